// Package invoices drafts each month's Stripe invoice in a restate workflow.
package invoices

import (
	"time"

	restate "github.com/restatedev/sdk-go"
	stripe "github.com/stripe/stripe-go/v82"
)

// Inside the day Stripe keeps the invoice's key; after it, reconcile.
const draftRetryWindow = 20 * time.Hour

type Workflow struct {
	stripe *stripe.Client
}

func (w *Workflow) Run(ctx restate.Context, customerID, period string) (string, error) {
	if _, err := restate.Run(ctx, func(rc restate.RunContext) (int, error) {
		return countUsage(customerID), nil
	}, restate.WithMaxRetryDuration(30*24*time.Hour)); err != nil {
		return "", err
	}
	return restate.Run(ctx, func(rc restate.RunContext) (string, error) {
		inv, err := draftInvoice(rc, w.stripe, customerID, period)
		if err != nil {
			return "", err
		}
		return inv.ID, nil
	}, restate.WithName("draft invoice"), restate.WithMaxRetryDuration(draftRetryWindow))
}

func countUsage(customerID string) int { return len(customerID) }
