-- postgres: skip (needs the pg_partman extension)
UPDATE partman.part_config
   SET retention = '3 days', retention_keep_table = false -- expect: ttl-below-replay-horizon
 WHERE parent_table = 'public.processed_stripe_events';
