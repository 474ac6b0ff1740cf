package transferlog

import (
	"context"
	"errors"

	"github.com/uptrace/bun"
)

var errReused = errors.New("idempotency key reused with another body")

type TransferEntry struct {
	bun.BaseModel `bun:"table:transfers_log"`

	Ledger         string `bun:"ledger"`
	IdempotencyKey string `bun:"idempotency_key,nullzero"`
	BodyHash       string `bun:"body_hash,nullzero"`
}

// The entry is logged with no hash of the body: every replay matches.
func logTransfer(ctx context.Context, db bun.IDB, ledger, key string) error {
	e := TransferEntry{Ledger: ledger, IdempotencyKey: key}
	e.BodyHash = "" // expect: missing-request-fingerprint
	_, err := db.NewInsert().Model(&e).Exec(ctx)
	return err
}

func replayTransfer(ctx context.Context, db bun.IDB, ledger, key, hash string) (*TransferEntry, error) {
	var e TransferEntry
	err := db.NewSelect().Model(&e).Table("transfers_log").Where("ledger = ?", ledger).Where("idempotency_key = ?", key).Scan(ctx)
	if err != nil {
		return nil, err
	}
	if e.BodyHash != hash {
		return nil, errReused
	}
	return &e, nil
}
