//! Forwards each Kafka record to the ledger API, keyed by the record's
//! place in the log: a redelivered record carries the same key.

pub struct Record {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
    pub payload: Vec<u8>,
}

fn ledger_idempotency_key(topic: &str, partition: i32, offset: i64) -> String {
    format!("{topic}:{partition}:{offset}")
}

pub async fn forward(http: &reqwest::Client, rec: &Record) -> Result<(), reqwest::Error> {
    let key = ledger_idempotency_key(&rec.topic, rec.partition, rec.offset);
    http.post("https://ledger.internal.example/v1/entries")
        .header("Idempotency-Key", key)
        .header("X-Sent-At", chrono::Utc::now().to_rfc3339())
        .body(rec.payload.clone())
        .send()
        .await?;
    Ok(())
}
