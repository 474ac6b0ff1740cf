-- postgres: skip (MySQL migration: AUTO_INCREMENT)
-- Payout batches: one row per bank file we send.
CREATE TABLE payout_batches (
    id BIGINT AUTO_INCREMENT,
    bank_reference VARCHAR(64) NOT NULL,
    submitted_at DATETIME(6) NOT NULL,
    PRIMARY KEY (id,
    UNIQUE KEY uq_payout_batches_bank_reference (bank_reference) -- expect: parse-error
);

CREATE TABLE payout_batch_items (
    batch_id BIGINT NOT NULL,
    seq INT NOT NULL,
    amount_minor BIGINT NOT NULL,
    PRIMARY KEY (batch_id, seq)
);
