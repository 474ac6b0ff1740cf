package payoutlog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/uptrace/bun"
)

var errMismatch = errors.New("idempotency key reused with another payout")

type PayoutEntry struct {
	bun.BaseModel `bun:"table:payouts_log"`

	AccountID          string `bun:"account_id"`
	IdempotencyKey     string `bun:"idempotency_key,nullzero"`
	RequestFingerprint string `bun:"request_fingerprint"`
}

type PayoutInput struct {
	Amount      int64
	Destination string
}

// The fingerprint hashes a fixed text, not the payout: every request has
// the same one.
func PayoutFingerprint(in PayoutInput) string { // expect: missing-request-fingerprint
	sum := sha256.Sum256([]byte("payout"))
	return hex.EncodeToString(sum[:])
}

func logPayout(ctx context.Context, db bun.IDB, account, key string, in PayoutInput) error {
	e := PayoutEntry{AccountID: account, IdempotencyKey: key, RequestFingerprint: PayoutFingerprint(in)}
	_, err := db.NewInsert().Model(&e).Exec(ctx)
	return err
}

func replayPayout(ctx context.Context, db bun.IDB, account, key string, in PayoutInput) (*PayoutEntry, error) {
	var e PayoutEntry
	err := db.NewSelect().Model(&e).Table("payouts_log").Where("account_id = ?", account).Where("idempotency_key = ?", key).Scan(ctx)
	if err != nil {
		return nil, err
	}
	if e.RequestFingerprint != PayoutFingerprint(in) {
		return nil, errMismatch
	}
	return &e, nil
}
