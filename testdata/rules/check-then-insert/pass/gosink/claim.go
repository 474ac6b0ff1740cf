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

// claimEvent records a usage event's id only if it is new: NX, and a nil
// reply is a duplicate.
func (c Claims) claimEvent(ctx context.Context, id string) (bool, error) {
	status, err := c.rdb.SetArgs(ctx, "usage-dedupe:"+id, "", redis.SetArgs{TTL: c.ttl, Mode: "NX"}).Result()
	if err == redis.Nil {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return status == "OK", nil
}

// cached reads a value and fills it when missing: the nil reply is the
// GET's, the SET only stores.
func (c Claims) cached(ctx context.Context, id string) (string, error) {
	v, err := c.rdb.Get(ctx, "usage-cache:"+id).Result()
	if err == redis.Nil {
		err = c.rdb.Set(ctx, "usage-cache:"+id, "x", c.ttl).Err()
		return "x", err
	}
	return v, err
}

// touch refreshes a key only if it exists (XX): a nil reply means absent.
func (c Claims) touch(ctx context.Context, id string) (bool, error) {
	_, err := c.rdb.SetArgs(ctx, "usage-dedupe:"+id, "", redis.SetArgs{TTL: c.ttl, Mode: "XX"}).Result()
	if err == redis.Nil {
		return false, nil
	}
	return err == nil, err
}
