package webhooks

import (
	"context"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stripe/stripe-go/v82/webhook"
)

// Seen events are kept forty days: longer than Stripe retries a delivery.
const eventTTL = 40 * 24 * time.Hour

type StripeHandler struct {
	rdb    *redis.Client
	secret string
}

func NewStripeHandler(rdb *redis.Client) *StripeHandler {
	return &StripeHandler{rdb: rdb, secret: os.Getenv("STRIPE_WEBHOOK_SECRET")}
}

func (h *StripeHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	payload, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	evt, err := webhook.ConstructEvent(payload, r.Header.Get("Stripe-Signature"), h.secret)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	fresh, err := h.rdb.SetNX(r.Context(), "stripe:"+evt.ID, 1, eventTTL).Result()
	if err != nil || !fresh {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// Touch extends a seen event's expiry by the same month.
func Touch(ctx context.Context, rdb *redis.Client, id string) error {
	return rdb.Expire(ctx, "stripe:"+id, time.Duration(35)*24*time.Hour).Err()
}
