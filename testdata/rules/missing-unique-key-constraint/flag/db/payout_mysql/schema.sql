-- postgres: skip (MySQL schema: ENGINE, DATETIME, KEY)
-- The current transfer of each batch: one row per (merchant, batch), the
-- request id kept to answer a retried start. The run id went into the key.
CREATE TABLE current_transfers (
  merchant_id BIGINT NOT NULL,
  batch_ref VARCHAR(64) NOT NULL,
  run_id BINARY(16) NOT NULL,
  create_request_id VARCHAR(64) NOT NULL,
  state TINYINT NOT NULL,
  started_at DATETIME(6) NOT NULL,
  PRIMARY KEY (merchant_id, batch_ref, run_id) -- expect: missing-unique-key-constraint
) ENGINE=InnoDB;

CREATE TABLE refund_requests (
  id BIGINT NOT NULL AUTO_INCREMENT,
  merchant_id BIGINT NOT NULL,
  refund_ref VARCHAR(64) NOT NULL,
  amount BIGINT NOT NULL,
  PRIMARY KEY (id)
) ENGINE=InnoDB;
CREATE INDEX uq_refund_requests_ref ON refund_requests (merchant_id, refund_ref); -- expect: missing-unique-key-constraint
