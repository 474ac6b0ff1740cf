//! Requests to the Zenpay acquirer, built by the payments framework from
//! the attempt's data each time the framework sends them.

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
            idempotency_key: uuid::Uuid::new_v4().to_string(), // expect: fresh-key-per-retry
            amount: item.amount,
        })
    }
}

pub struct Zenpay;

impl ConnectorCommonExt for Zenpay {
    fn build_headers(&self, req: &RouterData) -> Result<Vec<(String, String)>, String> {
        let request_id = uuid::Uuid::new_v4().to_string(); // expect: fresh-key-per-retry
        Ok(vec![
            ("Content-Type".to_string(), "application/json".to_string()),
            ("Idempotency-Key".to_string(), request_id),
            ("X-Merchant".to_string(), req.payment_id.clone()),
        ])
    }
}

pub trait ConnectorCommonExt {
    fn build_headers(&self, req: &RouterData) -> Result<Vec<(String, String)>, String>;
}
