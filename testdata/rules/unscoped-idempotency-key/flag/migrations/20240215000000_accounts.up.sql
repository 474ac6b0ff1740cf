CREATE TABLE accounts (id bigserial PRIMARY KEY, name text NOT NULL);
-- idempotency keys reference accounts
