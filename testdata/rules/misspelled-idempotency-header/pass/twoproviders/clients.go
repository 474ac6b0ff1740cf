package twoproviders

import "net/http"

// Each provider reads its own name: one request each tells nothing.
func keyForLedger(req *http.Request, key string) { req.Header.Set("Idempotency-Key", key) }

func keyForCards(req *http.Request, key string) {
	// The card network's gateway reads its own header.
	req.Header.Set("X-Idempotency-Key", key)
}
