package activities

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/oklog/ulid/v2"
	restate "github.com/restatedev/sdk-go"
	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/transfer"
	"github.com/stripe/stripe-go/v82/transferreversal"
)

type Activities struct {
	bank BankClient
}

// CreateTransfer runs as a workflow activity, which the engine retries
// until it succeeds: a random key per run pays the account again.
func (a *Activities) CreateTransfer(ctx context.Context, t Transfer) (*stripe.Transfer, error) {
	params := &stripe.TransferParams{
		Amount:      stripe.Int64(t.Amount),
		Currency:    stripe.String(t.Currency),
		Destination: stripe.String(t.Account),
	}
	params.IdempotencyKey = stripe.String(stripe.NewIdempotencyKey()) // expect: fresh-key-per-retry
	return transfer.New(params)
}

// ReverseTransfer keys the reversal with its reference and the clock.
func (a *Activities) ReverseTransfer(ctx context.Context, r Reversal) error {
	params := &stripe.TransferReversalParams{
		Params: stripe.Params{
			IdempotencyKey: stripe.String(fmt.Sprintf("%s-%d", r.Reference, time.Now().UnixNano())), // expect: fresh-key-per-retry
		},
		ID:     stripe.String(r.TransferID),
		Amount: stripe.Int64(r.Amount),
	}
	_, err := transferreversal.New(params)
	return err
}

// SendWire hands the bank client a key built from the clock.
func (a *Activities) SendWire(ctx context.Context, w Wire) error {
	idempotencyKey := a.keyFor(w.Reference, time.Now().String()) // expect: fresh-key-per-retry
	return a.bank.InitiateWire(ctx, w, idempotencyKey)
}

// CloseMonth starts the month's close once per invoice: the clock in the
// key starts it again on every redelivery of the invoice event.
func (a *Activities) CloseMonth(ctx restate.Context, inv Invoice) error {
	_, err := restate.Service[string](ctx, "Billing", "Close").Request(inv.ID,
		restate.WithIdempotencyKey("close-"+inv.ID+"-"+time.Now().String())) // expect: fresh-key-per-retry
	return err
}

// CreatePayout is given the caller's key, yet sends a random one.
func (a *Activities) CreatePayout(ctx context.Context, req PayoutRequest) error {
	params := &stripe.PayoutParams{Amount: stripe.Int64(req.Amount)}
	if req.IdempotencyKey != "" {
		params.IdempotencyKey = stripe.String(stripe.NewIdempotencyKey()) // expect: fresh-key-per-retry
	}
	_, err := a.payouts.New(params)
	return err
}

// deliver stamps the caller's key with the clock on every attempt.
func deliver(ctx context.Context, header http.Header, keyHeader, idempotencyKey string) {
	if len(idempotencyKey) > 0 {
		header[keyHeader] = []string{fmt.Sprintf("%s-%d", idempotencyKey, time.Now().UnixNano())} // expect: fresh-key-per-retry
	}
}

// Ingest stores each incoming event under a new ULID: a provider's
// redelivery of the same event is stored and fanned out again.
func (a *Activities) Ingest(ctx context.Context, src Source, body []byte) error {
	var key string
	if len(src.IdempotencyKeys) > 0 {
		key = ulid.Make().String() // expect: fresh-key-per-retry
	}
	return a.events.Create(ctx, &Event{Body: body, IdempotencyKey: key})
}
