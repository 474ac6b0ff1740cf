package depositlog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"

	"github.com/uptrace/bun"
)

var errReused = errors.New("idempotency key reused with another deposit")

type DepositEntry struct {
	bun.BaseModel `bun:"table:deposits_log"`

	AccountID      string `bun:"account_id"`
	IdempotencyKey string `bun:"idempotency_key,nullzero"`
	BodyDigest     []byte `bun:"body_digest"`
}

type DepositInput struct {
	Amount int64
	Source string
}

func DepositDigest(in DepositInput) []byte {
	b, _ := json.Marshal(in)
	sum := sha256.Sum256(b)
	return sum[:]
}

func logDeposit(ctx context.Context, db bun.IDB, account, key string, in DepositInput) error {
	e := DepositEntry{AccountID: account, IdempotencyKey: key, BodyDigest: DepositDigest(in)}
	_, err := db.NewInsert().Model(&e).Exec(ctx)
	return err
}

func replayDeposit(ctx context.Context, db bun.IDB, account, key string, in DepositInput) (*DepositEntry, error) {
	var e DepositEntry
	err := db.NewSelect().Model(&e).Table("deposits_log").Where("account_id = ?", account).Where("idempotency_key = ?", key).Scan(ctx)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(e.BodyDigest, DepositDigest(in)) {
		return nil, errReused
	}
	return &e, nil
}
