-- postgres: skip (sqlc queries with parameters, not a migration; the tables are in migrations/)
-- name: IsProcessed :one
SELECT EXISTS (SELECT 1 FROM processed_dispute_events WHERE event_id = $1);

-- name: MarkProcessed :exec
INSERT INTO processed_dispute_events (event_id) VALUES ($1);
