-- postgres: skip (mysql syntax)
CREATE TABLE `webhook_dedup` (
  `event_id` varchar(64) NOT NULL,
  `received_at` datetime NOT NULL,
  PRIMARY KEY (`event_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

ALTER TABLE `webhook_dedup` RENAME `webhook_dedup_v1`;
