package payouts

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/payout"
)

// SendPayout retries with backoff; the key is minted inside the
// operation, so every retry is a new payout to Stripe.
func SendPayout(amount int64, account string) error {
	return backoff.Retry(func() error {
		key := uuid.New().String() // expect: fresh-key-per-retry
		params := &stripe.PayoutParams{
			Params:   stripe.Params{IdempotencyKey: stripe.String(key)},
			Amount:   stripe.Int64(amount),
			Currency: stripe.String(string(stripe.CurrencyEUR)),
		}
		params.SetStripeAccount(account)
		_, err := payout.New(params)
		return err
	}, backoff.NewExponentialBackOff())
}

// NotifyLedger posts the transfer to the ledger service with retry-go.
func NotifyLedger(ctx context.Context, url string, body []byte) error {
	return retry.Do(func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Idempotency-Key", uuid.NewString()) // expect: fresh-key-per-retry
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 500 {
			return fmt.Errorf("ledger: %s", resp.Status)
		}
		return nil
	}, retry.Attempts(5), retry.Context(ctx))
}
