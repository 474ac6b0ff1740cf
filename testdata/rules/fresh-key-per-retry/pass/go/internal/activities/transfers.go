package activities

import (
	"context"
	"fmt"
	"net/http"
	"time"

	restate "github.com/restatedev/sdk-go"
	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/transfer"
	"github.com/stripe/stripe-go/v82/transferreversal"
)

type Activities struct {
	bank BankClient
}

// CreateTransfer keys the transfer with the transfer's own id: every run
// of the activity sends the same key.
func (a *Activities) CreateTransfer(ctx context.Context, t Transfer) (*stripe.Transfer, error) {
	params := &stripe.TransferParams{
		Amount:      stripe.Int64(t.Amount),
		Currency:    stripe.String(t.Currency),
		Destination: stripe.String(t.Account),
	}
	params.IdempotencyKey = stripe.String("transfer-" + t.ID)
	return transfer.New(params)
}

// ReverseTransfer keys the reversal with its reference alone.
func (a *Activities) ReverseTransfer(ctx context.Context, r Reversal) error {
	params := &stripe.TransferReversalParams{
		Params: stripe.Params{IdempotencyKey: stripe.String(r.Reference)},
		ID:     stripe.String(r.TransferID),
		Amount: stripe.Int64(r.Amount),
	}
	_, err := transferreversal.New(params)
	return err
}

// SendWire hands the bank client the wire's reference as its key.
func (a *Activities) SendWire(ctx context.Context, w Wire) error {
	idempotencyKey := a.keyFor(w.Reference)
	return a.bank.InitiateWire(ctx, w, idempotencyKey)
}

// CloseMonth keys the close by the invoice and its month: a bucket of the
// clock, the same for every redelivery within the month.
func (a *Activities) CloseMonth(ctx restate.Context, inv Invoice) error {
	period := time.Now().UTC().Format("2006-01")
	_, err := restate.Service[string](ctx, "Billing", "Close").Request(inv.ID,
		restate.WithIdempotencyKey(fmt.Sprintf("close-%s-%s", inv.ID, period)))
	return err
}

// CreatePayout sends the caller's key, and only a caller that gave none
// gets a key of the client's own (which its network retries reuse).
func (a *Activities) CreatePayout(ctx context.Context, req PayoutRequest) error {
	params := &stripe.PayoutParams{Amount: stripe.Int64(req.Amount)}
	if req.IdempotencyKey != "" {
		params.IdempotencyKey = stripe.String(req.IdempotencyKey)
	}
	if params.IdempotencyKey == nil {
		params.IdempotencyKey = stripe.String(stripe.NewIdempotencyKey())
	}
	_, err := a.payouts.New(params)
	return err
}

// deliver sends the caller's key as it is.
func deliver(ctx context.Context, header http.Header, keyHeader, idempotencyKey string) {
	if len(idempotencyKey) > 0 {
		header[keyHeader] = []string{idempotencyKey}
	}
}

// checkDuplicate times its look-up of the caller's key.
func (a *Activities) checkDuplicate(ctx context.Context, projectID, key string) (bool, error) {
	idempotencyStart := time.Now()
	_, err := a.events.FindByIdempotencyKey(ctx, projectID, key)
	a.log.Debug("idempotency check", "duration", time.Since(idempotencyStart))
	return err == nil, nil
}

// Ingest stores each incoming event under a checksum of the fields the
// source names as its identity: a redelivery gets the same key.
func (a *Activities) Ingest(ctx context.Context, src Source, body []byte) error {
	var key string
	if len(src.IdempotencyKeys) > 0 {
		key = checksum(src.Name, src.IdempotencyKeys, body)
	}
	return a.events.Create(ctx, &Event{Body: body, IdempotencyKey: key})
}
