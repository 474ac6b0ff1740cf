-- postgres: skip (MySQL schema: ENGINE, DATETIME, KEY)
CREATE TABLE current_transfers (
  merchant_id BIGINT NOT NULL,
  batch_ref VARCHAR(64) NOT NULL,
  run_id BINARY(16) NOT NULL,
  create_request_id VARCHAR(64) NOT NULL,
  state TINYINT NOT NULL,
  started_at DATETIME(6) NOT NULL,
  PRIMARY KEY (merchant_id, batch_ref)
) ENGINE=InnoDB;

-- every run of a transfer, keyed by its run id
CREATE TABLE transfer_runs (
  merchant_id BIGINT NOT NULL,
  batch_ref VARCHAR(64) NOT NULL,
  run_id BINARY(16) NOT NULL,
  PRIMARY KEY (merchant_id, batch_ref, run_id)
) ENGINE=InnoDB;

CREATE TABLE refund_requests (
  id BIGINT NOT NULL AUTO_INCREMENT,
  merchant_id BIGINT NOT NULL,
  refund_ref VARCHAR(64) NOT NULL,
  amount BIGINT NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uq_refund_requests_ref (merchant_id, refund_ref)
) ENGINE=InnoDB;
