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

// Subscribe keeps one address per person, whatever its case.
func (r *EventRepo) Subscribe(ctx context.Context, id, email string) error {
	_, err := r.DB.ExecContext(ctx, `INSERT INTO client_events (id, event, app, email)
		VALUES ($1, 'subscribe', 'web', $2)
		ON CONFLICT (lower(email)) DO NOTHING`, id, email)
	return err
}

// Touch records a visit in a table another service owns.
func (r *EventRepo) Touch(ctx context.Context, id string) error {
	_, err := r.DB.ExecContext(ctx, `INSERT INTO visits (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`, id)
	return err
}
