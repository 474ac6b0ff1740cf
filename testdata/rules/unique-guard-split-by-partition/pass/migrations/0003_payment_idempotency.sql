-- Partitioned by the key itself: the unique guard on the key alone is
-- allowed and holds across the whole table.
CREATE TABLE payment_idempotency (
    key          uuid        NOT NULL,
    request_hash bytea       NOT NULL,
    status_code  smallint,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (key)
) PARTITION BY HASH (key);

CREATE TABLE payment_idempotency_p0 PARTITION OF payment_idempotency FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE payment_idempotency_p1 PARTITION OF payment_idempotency FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE payment_idempotency_p2 PARTITION OF payment_idempotency FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE payment_idempotency_p3 PARTITION OF payment_idempotency FOR VALUES WITH (MODULUS 4, REMAINDER 3);
