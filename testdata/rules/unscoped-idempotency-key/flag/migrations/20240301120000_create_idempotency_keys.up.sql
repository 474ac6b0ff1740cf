CREATE TABLE idempotency_keys (
    id              bigserial   PRIMARY KEY,
    account_id      bigint      NOT NULL REFERENCES accounts (id),
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    response_code   smallint,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now()
);

-- One account's key can collide with another's: the lookup below returns
-- the other account's stored response.
CREATE UNIQUE INDEX idempotency_keys_key_uniq ON idempotency_keys (idempotency_key); -- expect: unscoped-idempotency-key
