package bankclient

import (
	"bytes"
	"context"
	"net/http"
)

// CreatePayout pays a recipient by ACH.
func (c *Client) CreatePayout(ctx context.Context, body []byte, idempotencyKey string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/ach_transfers", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Idempotency-Key", idempotencyKey)
	return c.http.Do(req)
}
