package stripeinvoice

import (
	"fmt"

	"github.com/stripe/stripe-go/v82"
)

// monthlyInvoiceParams keys the monthly invoice by the period alone: every
// tenant billed for the same month sends Stripe the same key, and the
// second tenant gets the first one's invoice back.
func monthlyInvoiceParams(tenantID, customer, period string) *stripe.InvoiceCreateParams { // expect: unscoped-idempotency-key
	params := &stripe.InvoiceCreateParams{
		Customer: stripe.String(customer),
		Metadata: map[string]string{"tenant_id": tenantID},
	}
	params.SetIdempotencyKey(fmt.Sprintf("monthly-invoice:%s", period))
	return params
}
