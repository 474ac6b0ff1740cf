-- Not named like a store, but its idempotency_key column makes it one, and
-- no other table guards the key: a note (the order row may be where the
-- key is kept, or only a copy of it; only the code can say).
CREATE TABLE orders ( -- expect: missing-unique-key-constraint
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    idempotency_key text,
    amount_minor    bigint      NOT NULL,
    currency        char(3)     NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
