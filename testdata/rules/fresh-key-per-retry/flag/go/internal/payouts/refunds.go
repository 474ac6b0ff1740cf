package payouts

import (
	"context"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/paymentintent"
	"github.com/stripe/stripe-go/v82/refund"
)

// RefundCharge tries three times; each attempt carries a new key, so an
// attempt whose reply was lost is refunded again by the next.
func RefundCharge(ctx context.Context, chargeID string) (*stripe.Refund, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		params := &stripe.RefundParams{Charge: stripe.String(chargeID)}
		params.SetIdempotencyKey(uuid.NewString()) // expect: fresh-key-per-retry
		r, err := refund.New(params)
		if err == nil {
			return r, nil
		}
		lastErr = err
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return nil, lastErr
}

// CaptureIntent names the operation before it retries it.
func CaptureIntent(ctx context.Context, intentID string) error {
	operation := func() error {
		params := &stripe.PaymentIntentCaptureParams{}
		params.SetIdempotencyKey("capture-" + uuid.NewString()) // expect: fresh-key-per-retry
		_, err := paymentintent.Capture(intentID, params)
		return err
	}
	return backoff.Retry(operation, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}
