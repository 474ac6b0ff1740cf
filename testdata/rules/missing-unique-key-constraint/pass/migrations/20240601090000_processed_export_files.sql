-- Settlement exports already imported: the object key alone is the guard,
-- the import time is a plain column.
CREATE TABLE processed_export_files (
    object_key  TEXT        NOT NULL PRIMARY KEY,
    imported_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    row_count   INTEGER     NOT NULL
);

CREATE TABLE payout_requests (
    id          BIGSERIAL PRIMARY KEY,
    merchant_id BIGINT NOT NULL,
    payout_ref  TEXT   NOT NULL,
    amount      BIGINT NOT NULL,
    CONSTRAINT payout_requests_ref_key UNIQUE (payout_ref, merchant_id)
);
-- a lookup index whose name echoes the guard it sits beside
CREATE INDEX payout_requests_ref_unique_lookup ON payout_requests (merchant_id, payout_ref, amount);

-- One usage row per customer and day: the day is part of what is counted,
-- not a time each insert makes up.
CREATE TABLE daily_usage (
    customer_id BIGINT NOT NULL,
    usage_day   DATE   NOT NULL,
    calls       BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (customer_id, usage_day)
);

-- Attempts of a payout: a row per attempt is what the table is for.
CREATE TABLE payout_attempts (
    payout_id  BIGINT      NOT NULL,
    attempt_id UUID        NOT NULL DEFAULT gen_random_uuid(),
    tried_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (payout_id, attempt_id)
);
