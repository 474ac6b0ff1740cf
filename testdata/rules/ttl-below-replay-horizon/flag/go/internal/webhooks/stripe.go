package webhooks

import (
	"io"
	"net/http"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stripe/stripe-go/v82/webhook"
)

// StripeHandler remembers each delivered event for a day; Stripe retries
// a failed delivery for three days, so a late retry is applied again.
type StripeHandler struct {
	rdb     *redis.Client
	secret  string
	fulfill func(id string) error
}

func NewStripeHandler(rdb *redis.Client) *StripeHandler {
	return &StripeHandler{rdb: rdb, secret: os.Getenv("STRIPE_WEBHOOK_SECRET")}
}

func (h *StripeHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	payload, err := io.ReadAll(io.LimitReader(r.Body, 65536))
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	evt, err := webhook.ConstructEvent(payload, r.Header.Get("Stripe-Signature"), h.secret)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	fresh, err := h.rdb.SetNX(r.Context(), "stripe:"+evt.ID, 1, 24*time.Hour).Result() // expect: ttl-below-replay-horizon
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	if !fresh {
		w.WriteHeader(http.StatusOK)
		return
	}
	if err := h.fulfill(evt.ID); err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}
