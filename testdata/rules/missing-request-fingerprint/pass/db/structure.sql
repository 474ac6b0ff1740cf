-- Tables whose names sound like stores but are not request-key stores: a
-- mailbox, webhook endpoints and deliveries, a nonce table, an audit log, an outbox.
CREATE TABLE users (id bigserial PRIMARY KEY, email text NOT NULL UNIQUE, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE inbox_messages (id uuid PRIMARY KEY, user_id bigint NOT NULL REFERENCES users(id), subject text, body text, read_at timestamptz);
CREATE TABLE webhook_endpoints (id uuid PRIMARY KEY, account_id bigint NOT NULL, url text NOT NULL, secret text NOT NULL);
CREATE TABLE webhook_deliveries (id bigserial PRIMARY KEY, endpoint_id uuid NOT NULL, event_type text NOT NULL, payload jsonb NOT NULL, status smallint, attempted_at timestamptz);
CREATE TABLE processed_files (id bigserial PRIMARY KEY, filename text NOT NULL, processed_at timestamptz);
CREATE TABLE replay_protection_nonces (nonce text PRIMARY KEY, seen_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE charges (id uuid PRIMARY KEY, merchant_id bigint NOT NULL, idempotency_key text NOT NULL, amount bigint NOT NULL, UNIQUE (merchant_id, idempotency_key));
CREATE TABLE dedup_audit_log (id bigserial PRIMARY KEY, message text);
CREATE TABLE outbox_events (id bigserial PRIMARY KEY, aggregate_id uuid NOT NULL, event_type text NOT NULL, payload jsonb NOT NULL, published_at timestamptz);
CREATE TABLE stripe_events (id text PRIMARY KEY, type text NOT NULL, data jsonb NOT NULL, received_at timestamptz NOT NULL DEFAULT now());
DELETE FROM webhook_deliveries WHERE attempted_at < now() - interval '7 days';
DELETE FROM inbox_messages WHERE read_at < now() - interval '30 days';
