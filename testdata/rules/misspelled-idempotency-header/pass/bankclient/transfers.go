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
	req.Header.Set("Idempotency-Key", idempotencyKey)
	return c.http.Do(req)
}

// InitiateWire goes through the older gateway, which reads the prefixed
// name; the key is sent under both while the gateway is migrated.
func (c *Client) InitiateWire(ctx context.Context, body []byte, idempotencyKey string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/wires", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Idempotency-Key", idempotencyKey)
	req.Header.Set("X-Idempotency-Key", idempotencyKey)
	return c.http.Do(req)
}

// CreatePayout pays a recipient by ACH.
func (c *Client) CreatePayout(ctx context.Context, body []byte, idempotencyKey string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/ach_transfers", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Idempotency-Key", idempotencyKey)
	return c.http.Do(req)
}
