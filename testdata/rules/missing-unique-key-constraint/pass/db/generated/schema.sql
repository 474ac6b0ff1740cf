-- Keys compared case-insensitively through a stored generated column: the
-- unique constraint on `idempotency_key_normalized` guards `idempotency_key`,
-- the column its expression reads.
CREATE TABLE payout_idempotency_keys (
    id                         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    idempotency_key            text   NOT NULL,
    idempotency_key_normalized text   GENERATED ALWAYS AS (lower(btrim(idempotency_key))) STORED,
    request_hash               bytea  NOT NULL,
    response_body              jsonb,
    created_at                 timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT payout_idempotency_keys_normalized_key UNIQUE (idempotency_key_normalized)
);
