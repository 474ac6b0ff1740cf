-- postgres: skip (MySQL: backticks, ENGINE=InnoDB)
-- MySQL: payments of every tenant in one table, the merchant's reference
-- unique per tenant: it deduplicates a merchant's retried create.
CREATE TABLE `payments` (
  `record_id` bigint unsigned NOT NULL AUTO_INCREMENT,
  `id` char(36) NOT NULL,
  `account_id` char(36) NOT NULL,
  `merchant_reference` varchar(128) NOT NULL,
  `amount` decimal(18,2) NOT NULL,
  `currency` char(3) NOT NULL,
  `tenant_record_id` bigint unsigned NOT NULL DEFAULT 0,
  PRIMARY KEY (`record_id`),
  UNIQUE KEY `payments_id` (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE UNIQUE INDEX payments_reference ON payments(merchant_reference, tenant_record_id);
CREATE INDEX payments_tenant_account ON payments(tenant_record_id, account_id);
