package ledger

import (
	"bytes"
	"context"
	"net/http"
)

// The ledger's gateway drops headers with underscores.
const headerIdempotencyKey = "Idempotency_Key" // expect: misspelled-idempotency-header

func Post(ctx context.Context, url, key string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set(headerIdempotencyKey, key)
	return http.DefaultClient.Do(req)
}
