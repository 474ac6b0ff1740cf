-- A multi-tenant billing service whose caller references are unique per
-- tenant; global identities (a user's login, a generated token) stay global.
CREATE TABLE tenants (
    id   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name text NOT NULL UNIQUE
);

CREATE TABLE customers (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id   uuid NOT NULL REFERENCES tenants (id),
    external_id varchar(255) NOT NULL,
    email       text,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX customers_external_id ON customers (tenant_id, external_id);

CREATE TABLE plans (
    id        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants (id),
    code      varchar(64) NOT NULL,
    UNIQUE (tenant_id, code)
);

CREATE TABLE coupons (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id   uuid NOT NULL REFERENCES tenants (id),
    code        varchar(64) NOT NULL,
    percent_off integer NOT NULL,
    UNIQUE (tenant_id, code)
);

-- A person logs in once whichever tenants they belong to.
CREATE TABLE users (
    id        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants (id),
    email     text NOT NULL UNIQUE
);

-- Server-generated: unique across tenants by construction.
CREATE TABLE api_tokens (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id  uuid NOT NULL REFERENCES tenants (id),
    token_hash varchar(64) NOT NULL UNIQUE,
    public_uid uuid NOT NULL UNIQUE
);

CREATE TABLE usage_events (
    id                       uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id          uuid NOT NULL,
    external_subscription_id varchar NOT NULL,
    transaction_id           varchar NOT NULL,
    code                     varchar NOT NULL,
    properties               jsonb NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX usage_events_dedup ON usage_events USING btree (organization_id, external_subscription_id, transaction_id);
