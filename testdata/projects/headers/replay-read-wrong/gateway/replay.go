package gateway

import "net/http"

// MarkReplay tells the client this response was stored for its idempotency key.
func MarkReplay(w http.ResponseWriter) {
	w.Header().Set("Idempotent-Replayed", "true")
}
