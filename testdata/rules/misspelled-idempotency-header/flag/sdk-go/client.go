// Package bank is the client of a payout API: every write carries the
// payout's reference as its idempotency key.
package bank

import "net/http"

const idempotencyKeyHeader = "Idempotency-Keys" // expect: misspelled-idempotency-header

// RequestIDHeader names the header a delivery's key is sent under.
type RequestIDHeader string

const DefaultRequestIDHeader RequestIDHeader = "X-Bank-Idempotency_Key" // expect: misspelled-idempotency-header

func setIdempotencyKey(req *http.Request, key string) {
	if key != "" {
		req.Header.Set(idempotencyKeyHeader, key)
	}
}

// CreatePayoutRequest is what the generated SDK sends.
type CreatePayoutRequest struct {
	IdempotencyKey *string `header:"style=simple,explode=false,name=Idempotency_Key"` // expect: misspelled-idempotency-header
	Amount         int64   `json:"amount"`
}

// BindHeaders is what a gin handler binds from the request.
type BindHeaders struct {
	Key string `header:"Idempotency-Keys"` // expect: misspelled-idempotency-header
}
