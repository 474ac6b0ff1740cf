//! Requests to the Zenpay acquirer, built by the payments framework from
//! the attempt's data: the key is the attempt's own id, the same on every
//! build of the same attempt.

pub struct RouterData {
    pub attempt_id: String,
    pub payment_id: String,
    pub refund_id: Option<String>,
    pub amount: i64,
}

pub struct ZenpayCaptureRequest {
    pub idempotency_key: String,
    pub amount: i64,
}

impl TryFrom<&RouterData> for ZenpayCaptureRequest {
    type Error = String;
    fn try_from(item: &RouterData) -> Result<Self, Self::Error> {
        Ok(Self {
            idempotency_key: item.attempt_id.clone(),
            amount: item.amount,
        })
    }
}

pub struct Zenpay;

impl ConnectorCommonExt for Zenpay {
    fn build_headers(&self, req: &RouterData) -> Result<Vec<(String, String)>, String> {
        // A trace id per build is fine: it is not the idempotency key.
        let trace_id = uuid::Uuid::new_v4().to_string();
        Ok(vec![
            ("Content-Type".to_string(), "application/json".to_string()),
            ("Idempotency-Key".to_string(), format!("zp_{}", req.attempt_id)),
            ("X-Trace-Id".to_string(), trace_id),
        ])
    }
}

pub trait ConnectorCommonExt {
    fn build_headers(&self, req: &RouterData) -> Result<Vec<(String, String)>, String>;
}

/// The caller may pass a key; a call without one gets a random key, made
/// once, before the client's own retries.
pub fn create_options(key: Option<String>) -> CreateOptions {
    CreateOptions {
        idempotency_key: key.unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
    }
}

pub struct CreateOptions {
    pub idempotency_key: String,
}
