package api

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Claim reserves a client's request key before the transfer runs.
func Claim(ctx context.Context, rdb *redis.Client, tenant, key string) (bool, error) {
	k := fmt.Sprintf("idem:%s:%s", tenant, key)
	return rdb.SetNX(ctx, k, "pending", 48*time.Hour).Result() // expect: ttl-below-replay-horizon
}
