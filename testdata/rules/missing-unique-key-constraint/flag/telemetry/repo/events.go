package repo

import (
	"context"
	"database/sql"
)

type EventRepo struct {
	DB *sql.DB
}

// Record stores a reported event once: a resent report is a no-op.
func (r *EventRepo) Record(ctx context.Context, id, event, app string, data []byte, userID *int64) error {
	_, err := r.DB.ExecContext(ctx, `INSERT INTO client_events (id, event, app, data, user_id)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (id, event) DO NOTHING`, id, event, app, data, userID)
	return err
}
