//! Builds the order capture request under the attempt's own reference, so
//! every resend of the attempt carries the same key.

use super::headers;

pub struct Walletpay;

pub struct CaptureData {
    pub attempt_reference: String,
}

impl Walletpay {
    pub fn build_headers(&self, data: &CaptureData) -> Vec<(String, String)> {
        let request_key = data.attempt_reference.clone();
        vec![
            (headers::CONTENT_TYPE.to_string(), "application/json".to_string()),
            (headers::PAYPAL_REQUEST_ID.to_string(), request_key),
        ]
    }
}
