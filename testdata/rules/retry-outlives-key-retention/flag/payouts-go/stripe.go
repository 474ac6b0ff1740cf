// Package payouts sends connected-account payouts through one Stripe
// backend. stripe-go keys every write it sends and resends it with the same
// key on each of its own retries.
package payouts

import (
	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/client"
)

// NewClient builds the shared Stripe client.
func NewClient(key string) *client.API {
	backend := stripe.GetBackendWithConfig(stripe.APIBackend, &stripe.BackendConfig{
		MaxNetworkRetries: stripe.Int64(100000), // expect: retry-outlives-key-retention
	})
	sc := &client.API{}
	sc.Init(key, &stripe.Backends{API: backend})
	return sc
}

// NewRefundsClient builds the client the refund worker uses.
func NewRefundsClient(key string) *client.API {
	backends := stripe.NewBackends(nil)
	backends.API.SetMaxNetworkRetries(maxStripeRetries) // expect: retry-outlives-key-retention
	sc := &client.API{}
	sc.Init(key, backends)
	return sc
}

const maxStripeRetries = 50000
