package stripeinvoice

import (
	"fmt"

	"github.com/stripe/stripe-go/v82"
)

// monthlyInvoiceParams keys the monthly invoice by tenant and period.
func monthlyInvoiceParams(tenantID, customerID, period string) *stripe.InvoiceCreateParams {
	params := &stripe.InvoiceCreateParams{
		Customer: stripe.String(customerID),
	}
	params.SetIdempotencyKey(fmt.Sprintf("monthly-invoice:%s:%s", tenantID, period))
	return params
}

// lineParams keys a line by its invoice, which belongs to one tenant.
func lineParams(invoiceID string) *stripe.InvoiceItemCreateParams {
	return &stripe.InvoiceItemCreateParams{
		Params:  stripe.Params{IdempotencyKey: stripe.String(fmt.Sprintf("line:%s", invoiceID))},
		Invoice: stripe.String(invoiceID),
	}
}
