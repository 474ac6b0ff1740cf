CREATE TABLE payout_dedup (
    request_id   text        NOT NULL,
    request_hash bytea       NOT NULL,
    payout_id    uuid,
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX payout_dedup_request_id_key ON payout_dedup (request_id);
