package worker

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

const seenFor = 35 * 24 * time.Hour // Stripe resends for 30 days

// MarkSeen remembers an event id once the web tier has applied it; the
// web tier (TypeScript) skips the ids it finds.
func MarkSeen(ctx context.Context, rdb *redis.Client, id string) error {
	return rdb.Set(ctx, "webhook-dedup:"+id, "1", seenFor).Err()
}
