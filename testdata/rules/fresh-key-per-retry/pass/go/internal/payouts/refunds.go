package payouts

import (
	"bytes"
	"context"
	"net/http"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/payout"
	"github.com/stripe/stripe-go/v82/refund"
)

// RefundCharge makes the key once, before the loop: every attempt is the
// same request to Stripe.
func RefundCharge(ctx context.Context, chargeID string) (*stripe.Refund, error) {
	key := uuid.NewString()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		params := &stripe.RefundParams{Charge: stripe.String(chargeID)}
		params.SetIdempotencyKey(key)
		r, err := refund.New(params)
		if err == nil {
			return r, nil
		}
		lastErr = err
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return nil, lastErr
}

// SendPayout derives the key from the payout's own id.
func SendPayout(payoutID string, amount int64) error {
	return backoff.Retry(func() error {
		params := &stripe.PayoutParams{
			Params: stripe.Params{IdempotencyKey: stripe.String("payout-" + payoutID)},
			Amount: stripe.Int64(amount),
		}
		_, err := payout.New(params)
		return err
	}, backoff.NewExponentialBackOff())
}

// NotifyLedger keeps one key across retry-go's attempts.
func NotifyLedger(ctx context.Context, url string, body []byte) error {
	key := uuid.NewString()
	return retry.Do(func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, retry.Attempts(5))
}
