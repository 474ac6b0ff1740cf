package stripe

import (
	"context"

	restate "github.com/restatedev/sdk-go"
	stripesdk "github.com/stripe/stripe-go/v82"
)

type handler struct {
	ingress *restate.Client
}

// invoice.created: close the customer's month once per invoice.
func (h *handler) invoiceCreated(ctx context.Context, invoice stripesdk.Invoice) error {
	client := NewMonthServiceIngressClient(h.ingress, invoice.Customer.ID)
	_, err := client.CloseMonthInvoice().Send(ctx, &CloseMonthRequest{InvoiceID: invoice.ID},
		restate.WithIdempotencyKey("close-month-"+invoice.ID))
	return err
}
