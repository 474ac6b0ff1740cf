package refundlog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/uptrace/bun"
)

type RefundEntry struct {
	bun.BaseModel `bun:"table:refunds_log"`

	WalletID       string `bun:"wallet_id"`
	IdempotencyKey string `bun:"idempotency_key,nullzero"`
	PayloadDigest  string `bun:"payload_digest"`
}

type RefundInput struct {
	Amount int64
	Charge string
}

func digestRefund(in RefundInput) string {
	b, _ := json.Marshal(in)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// The digest is kept, and a replay returns the logged entry without
// looking at it.
func logRefund(ctx context.Context, db bun.IDB, wallet, key string, in RefundInput) error {
	e := RefundEntry{WalletID: wallet, IdempotencyKey: key}
	e.PayloadDigest = digestRefund(in) // expect: missing-request-fingerprint
	_, err := db.NewInsert().Model(&e).Exec(ctx)
	return err
}

func replayRefund(ctx context.Context, db bun.IDB, wallet, key string) (*RefundEntry, error) {
	var e RefundEntry
	err := db.NewSelect().Model(&e).Table("refunds_log").Where("wallet_id = ?", wallet).Where("idempotency_key = ?", key).Scan(ctx)
	if err != nil {
		return nil, err
	}
	return &e, nil
}
