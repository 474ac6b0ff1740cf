-- postgres: skip (MySQL schema: backticks, KEY, ENGINE)
CREATE TABLE `adyen_notifications` ( -- expect: missing-unique-key-constraint
  `id` bigint unsigned NOT NULL AUTO_INCREMENT,
  `psp_reference` varchar(16) NOT NULL,
  `event_code` varchar(64) NOT NULL,
  `merchant_account` varchar(80) NOT NULL,
  `success` tinyint(1) NOT NULL,
  `raw` json NOT NULL,
  `created_at` datetime NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (`id`),
  KEY `idx_adyen_notifications_psp_reference` (`psp_reference`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE `stripe_webhooks` ( -- expect: missing-unique-key-constraint
  `id` varchar(255) NOT NULL,
  `type` varchar(128) NOT NULL,
  `payload` longtext NOT NULL,
  `handled_at` datetime DEFAULT NULL,
  KEY `idx_stripe_webhooks_id` (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
