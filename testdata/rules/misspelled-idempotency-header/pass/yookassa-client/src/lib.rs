use reqwest::header::{HeaderMap, HeaderValue};

const YOOKASSA_PAYMENTS: &str = "https://api.yookassa.ru/v3/payments";

/// YooKassa names its key header `Idempotence-Key`; our own API takes
/// `Idempotency-Key` and passes the same value on.
pub fn payment_headers(idempotency_key: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if let Ok(value) = HeaderValue::from_str(idempotency_key) {
        headers.insert("Idempotence-Key", value);
    }
    headers
}

pub fn payments_url() -> &'static str {
    YOOKASSA_PAYMENTS
}
