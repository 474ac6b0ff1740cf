-- The payment row is the effect and carries the request's own fields; its
-- unique idempotency key is the guard, and no separate fingerprint is kept.
CREATE TABLE payments (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    idempotency_key text        NOT NULL UNIQUE,
    amount_minor    bigint      NOT NULL,
    currency        char(3)     NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
