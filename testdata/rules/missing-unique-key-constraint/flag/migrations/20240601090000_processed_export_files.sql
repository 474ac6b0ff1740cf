-- Settlement exports a worker has already imported, so a redelivered bucket
-- notification is skipped. The import time went into the key "so the same
-- file can be re-imported after a fix", which also lets a redelivery in.
CREATE TABLE processed_export_files (
    object_key  TEXT        NOT NULL,
    imported_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    row_count   INTEGER     NOT NULL,
    PRIMARY KEY (object_key, imported_at) -- expect: missing-unique-key-constraint
);

-- Payouts are claimed by the merchant's reference (`ON CONFLICT (merchant_id,
-- payout_ref) DO NOTHING`); the index is named as the guard and was created
-- plain.
CREATE TABLE payout_requests (
    id          BIGSERIAL PRIMARY KEY,
    merchant_id BIGINT NOT NULL,
    payout_ref  TEXT   NOT NULL,
    amount      BIGINT NOT NULL
);
CREATE INDEX payout_requests_ref_unique ON payout_requests (merchant_id, payout_ref); -- expect: missing-unique-key-constraint
