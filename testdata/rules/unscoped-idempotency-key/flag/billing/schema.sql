-- A multi-tenant billing service: every tenant sends its own reference for
-- the customers, subscriptions and coupons it creates, and retries a create
-- with the same reference.
CREATE TABLE tenants (
    id   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name text NOT NULL
);

CREATE TABLE customers (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id   uuid NOT NULL REFERENCES tenants (id),
    external_id varchar(255) NOT NULL,
    email       text,
    created_at  timestamptz NOT NULL DEFAULT now()
);
-- The tenant is missing: tenant B's "cus_42" is refused as tenant A's.
CREATE UNIQUE INDEX customers_external_id ON customers (external_id); -- expect: unscoped-idempotency-key

CREATE TABLE plans (
    id        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants (id),
    code      varchar(64) NOT NULL,
    UNIQUE (tenant_id, code)
);

CREATE TABLE usage_events (
    id                       uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id          uuid NOT NULL,
    external_subscription_id varchar NOT NULL,
    transaction_id           varchar NOT NULL,
    code                     varchar NOT NULL,
    properties               jsonb NOT NULL DEFAULT '{}'
);
-- Deduplicates a client's retried event, but across organisations.
CREATE UNIQUE INDEX usage_events_dedup ON usage_events USING btree (external_subscription_id, transaction_id); -- expect: unscoped-idempotency-key

-- An external system's id, per integration; the integration is one
-- organisation's, which only the data says (a note).
CREATE TABLE integration_mappings (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    integration_id  uuid NOT NULL,
    external_id     varchar NOT NULL
);
CREATE UNIQUE INDEX integration_mappings_external ON integration_mappings (external_id, integration_id); -- expect: unscoped-idempotency-key
