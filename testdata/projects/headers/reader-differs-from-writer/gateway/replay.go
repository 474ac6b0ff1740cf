package gateway

import "net/http"

// MarkReplay tells our clients this response was stored for their key.
func MarkReplay(w http.ResponseWriter) {
	w.Header().Set("Idempotency-Replayed", "true")
}
