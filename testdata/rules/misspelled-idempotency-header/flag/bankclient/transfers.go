package bankclient

import (
	"bytes"
	"context"
	"net/http"
)

// InitiateTransfer moves money between two of the merchant's accounts.
func (c *Client) InitiateTransfer(ctx context.Context, body []byte, idempotencyKey string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/transfers", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", idempotencyKey)
	return c.http.Do(req)
}

// InitiateWire sends a wire to an external account.
func (c *Client) InitiateWire(ctx context.Context, body []byte, idempotencyKey string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/wires", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Idempotency-Key", idempotencyKey) // expect: misspelled-idempotency-header
	return c.http.Do(req)
}
