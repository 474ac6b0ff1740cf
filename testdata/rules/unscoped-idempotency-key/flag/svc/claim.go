package svc

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

func Claim(ctx context.Context, rdb *redis.Client, merchantID string, idemKey string) (bool, error) {
	key := fmt.Sprintf("idem:%s", idemKey) // expect: unscoped-idempotency-key
	return rdb.SetNX(ctx, key, merchantID, 0).Result()
}
