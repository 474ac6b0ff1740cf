package chargelog

import (
	"context"

	"github.com/uptrace/bun"
)

type ChargeEntry struct {
	bun.BaseModel `bun:"table:charges_log"`

	MerchantID     string `bun:"merchant_id"`
	IdempotencyKey string `bun:"idempotency_key,nullzero"`
}

type Store struct {
	db       bun.IDB
	merchant string
}

func (s *Store) rel(name string) string { return `"charges".` + name }

func (s *Store) ChargeByKey(ctx context.Context, key string) (*ChargeEntry, error) {
	var e ChargeEntry
	err := s.db.NewSelect().
		Model(&e).
		ModelTableExpr(s.rel("charges_log")).
		Where("idempotency_key = ?", key).
		Where("merchant_id = ?", s.merchant).
		Limit(1).
		Scan(ctx)
	if err != nil {
		return nil, err
	}
	return &e, nil
}
