package checkout

import "net/http"

// Idempotency reads the client's key and marks replays on the way out.
func Idempotency(next http.Handler, store Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("IdempotencyKey") // expect: misspelled-idempotency-header
		if key == "" {
			http.Error(w, "missing Idempotency-Key", http.StatusBadRequest)
			return
		}
		if resp, ok := store.Get(r.Context(), key); ok {
			w.Header().Set("Idempotency-Replayed", "true") // expect: misspelled-idempotency-header
			w.WriteHeader(resp.Status)
			_, _ = w.Write(resp.Body)
			return
		}
		next.ServeHTTP(w, r)
	})
}
