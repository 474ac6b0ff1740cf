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

// HandleChargeDisputed claims the event first: only the delivery whose
// insert lands refunds, a concurrent or later one finds the row.
func (r *Refunder) HandleChargeDisputed(ctx context.Context, evt stripe.Event, chargeID string) error {
	claimed, err := r.queries.ClaimEvent(ctx, evt.ID)
	if err != nil {
		return fmt.Errorf("claim event: %w", err)
	}
	if claimed == 0 {
		return nil
	}
	params := &stripe.RefundParams{Charge: stripe.String(chargeID)}
	params.SetIdempotencyKey("refund:" + evt.ID)
	if _, err := refund.New(params); err != nil {
		return fmt.Errorf("refund: %w", err)
	}
	return nil
}
