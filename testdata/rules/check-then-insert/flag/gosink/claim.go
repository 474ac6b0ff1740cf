package gosink

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

type Claims struct {
	rdb *redis.Client
	ttl time.Duration
}

// claimEvent means to record a usage event's id only if it is new, but its
// SET has no NX: the reply is always OK, never nil.
func (c Claims) claimEvent(ctx context.Context, id string) (bool, error) {
	status, err := c.rdb.SetArgs(ctx, "usage-dedupe:"+id, "", redis.SetArgs{TTL: c.ttl}).Result() // expect: check-then-insert
	if err == redis.Nil {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return status == "OK", nil
}
