package checkout

import "net/http"

const headerIdempotencyKey = "Idempotency-Key"

// Idempotency reads the client's key and marks replays on the way out.
func Idempotency(next http.Handler, store Responses) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(headerIdempotencyKey)
		if body, ok := store.Get(r.Context(), "idempotency-keys/"+key); ok {
			w.Header().Set("Idempotent-Replayed", "true")
			_, _ = w.Write(body)
			return
		}
		next.ServeHTTP(w, r)
	})
}

type Payout struct {
	IdempotencyKey string `json:"idempotency_key" db:"idempotency_key"`
}
