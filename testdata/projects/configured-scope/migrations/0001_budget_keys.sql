-- A budgeting app: every request belongs to a household.
CREATE TABLE budget_idempotency_keys (
    household_id    bigint      NOT NULL,
    idempotency_key text        NOT NULL,
    request_hash    text        NOT NULL,
    response        jsonb,
    CONSTRAINT budget_idempotency_keys_key UNIQUE (idempotency_key) -- expect: unscoped-idempotency-key
);
