-- Not named like a store, but its idempotency_key column makes it one: the
-- order row is the effect, and nothing stops a replay from inserting twice.
CREATE TABLE orders ( -- expect: missing-unique-key-constraint
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    idempotency_key text,
    amount_minor    bigint      NOT NULL,
    currency        char(3)     NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
