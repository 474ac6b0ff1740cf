-- postgres: skip (deliberately unparseable statement for parse-error)
CREATE TABLE idempotency_audit (id bigserial PRIMARY KEY, note text) WITH SOME NONSENSE; -- expect: parse-error

CREATE TABLE payment_dedup ( -- expect: missing-unique-key-constraint
    request_id   text        NOT NULL,
    request_hash text        NOT NULL,
    payment_id   uuid,
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX payment_dedup_request_id_idx ON payment_dedup (request_id);
