// Package invoices drafts each month's Stripe invoice in a restate workflow.
package invoices

import (
	"time"

	restate "github.com/restatedev/sdk-go"
	stripe "github.com/stripe/stripe-go/v82"
)

// draftRetryWindow bounds how long restate retries the draft step: three
// days, though Stripe forgets the invoice's key after one.
const draftRetryWindow = 3 * 24 * time.Hour

type Workflow struct {
	stripe *stripe.Client
}

func (w *Workflow) Run(ctx restate.Context, customerID, period string) (string, error) {
	return restate.Run(ctx, func(rc restate.RunContext) (string, error) {
		inv, err := draftInvoice(rc, w.stripe, customerID, period)
		if err != nil {
			return "", err
		}
		return inv.ID, nil
	}, restate.WithName("draft invoice"), restate.WithMaxRetryDuration(draftRetryWindow)) // expect: retry-outlives-key-retention
}
