-- Each attempt to charge a card. The checkout service sends its own
-- idempotency key with every charge; this unique index is the only thing
-- that refuses a second attempt with the same key.
CREATE TABLE charge_attempt_log (
    id              bigserial   PRIMARY KEY,
    order_id        bigint      NOT NULL,
    idempotency_key varchar(64) NOT NULL,
    psp             text        NOT NULL,
    outcome         text,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX charge_attempt_log_idempotency_key_uq ON charge_attempt_log (idempotency_key);
