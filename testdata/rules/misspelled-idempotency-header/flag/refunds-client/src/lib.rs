use reqwest::header::{HeaderMap, HeaderValue};

/// Headers for a refund request; the key survives our own retries.
pub fn refund_headers(idempotency_key: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if let Ok(value) = HeaderValue::from_str(idempotency_key) {
        headers.insert("idempotency-keys", value); // expect: misspelled-idempotency-header
    }
    headers
}
