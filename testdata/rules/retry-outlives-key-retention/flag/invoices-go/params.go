package invoices

import (
	"context"
	"fmt"

	stripe "github.com/stripe/stripe-go/v82"
)

func draftInvoice(ctx context.Context, sc *stripe.Client, customerID, period string) (*stripe.Invoice, error) {
	return sc.V1Invoices.Create(ctx, invoiceParams(customerID, period))
}

func invoiceParams(customerID, period string) *stripe.InvoiceCreateParams {
	params := &stripe.InvoiceCreateParams{Customer: stripe.String(customerID)}
	params.SetIdempotencyKey(fmt.Sprintf("invoice:%s:%s", customerID, period))
	return params
}
