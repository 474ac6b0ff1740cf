package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"
)

const (
	dedupPrefix = "stripe:invoice:"
	eventTTL    = 12 * time.Hour // expect: ttl-below-replay-horizon
)

// InvoicePaid marks the invoice's event seen with SET NX and an expiry
// passed in the arguments.
func InvoicePaid(ctx context.Context, rdb *redis.Client, body []byte, sig, secret string) error {
	evt, err := webhook.ConstructEvent(body, sig, secret)
	if err != nil {
		return err
	}
	key := fmt.Sprintf(dedupPrefix+"%s", evt.ID)
	ok, err := rdb.SetArgs(ctx, key, "1", redis.SetArgs{Mode: "NX", TTL: eventTTL}).Result()
	if err != nil || ok == "" {
		return err
	}
	var inv stripe.Invoice
	return json.Unmarshal(evt.Data.Raw, &inv)
}
