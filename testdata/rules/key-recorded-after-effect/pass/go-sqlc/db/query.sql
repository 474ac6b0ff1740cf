-- postgres: skip (sqlc queries with parameters, not a migration; the tables are in migrations/)
-- name: ClaimEvent :execrows
INSERT INTO processed_dispute_events (event_id) VALUES ($1) ON CONFLICT (event_id) DO NOTHING;
