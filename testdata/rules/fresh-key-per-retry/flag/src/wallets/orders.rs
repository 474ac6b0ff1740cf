//! Builds the order capture request; the header name comes by its constant.

use super::headers;

pub struct Walletpay;

pub struct CaptureData {
    pub attempt_reference: String,
}

impl Walletpay {
    pub fn build_headers(&self, data: &CaptureData) -> Vec<(String, String)> {
        let _ = &data.attempt_reference;
        let request_key = uuid::Uuid::new_v4().to_string(); // expect: fresh-key-per-retry
        vec![
            (headers::CONTENT_TYPE.to_string(), "application/json".to_string()),
            (headers::PAYPAL_REQUEST_ID.to_string(), request_key),
        ]
    }
}
