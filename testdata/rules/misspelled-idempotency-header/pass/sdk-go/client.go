// Package bank is the client of a payout API: every write carries the
// payout's reference as its idempotency key.
package bank

import "net/http"

const idempotencyKeyHeader = "Idempotency-Key"

// RequestIDHeader names the header a delivery's key is sent under.
type RequestIDHeader string

const DefaultRequestIDHeader RequestIDHeader = "X-Bank-Idempotency-Key"

// The metric counting the keys a worker holds.
const idempotencyKeysMetric = "idempotency_keys"

func setIdempotencyKey(req *http.Request, key string) {
	if key != "" {
		req.Header.Set(idempotencyKeyHeader, key)
	}
}

// CreatePayoutRequest is what the generated SDK sends.
type CreatePayoutRequest struct {
	IdempotencyKey *string `header:"style=simple,explode=false,name=Idempotency-Key"`
	Amount         int64   `json:"amount"`
	Keys           []string `json:"idempotency_keys"`
}

// BindHeaders is what a gin handler binds from the request.
type BindHeaders struct {
	Key string `header:"Idempotency-Key"`
}
