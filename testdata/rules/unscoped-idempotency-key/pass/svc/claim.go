package svc

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

func Claim(ctx context.Context, rdb *redis.Client, accountID string, key string) (bool, error) {
	k := fmt.Sprintf("idempotency:%s:%s", accountID, key)
	return rdb.SetNX(ctx, k, "pending", 0).Result()
}
