//! Forwards each Kafka record to the ledger API. A record whose offset
//! commit fails is delivered again: the redelivery is the retry.

use std::time::{SystemTime, UNIX_EPOCH};

pub struct Record {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
    pub payload: Vec<u8>,
}

fn ledger_idempotency_key(topic: &str, partition: i32, stamp: i64) -> String {
    format!("{topic}:{partition}:{stamp}")
}

pub async fn forward(http: &reqwest::Client, rec: &Record) -> Result<(), reqwest::Error> {
    let key = ledger_idempotency_key(
        &rec.topic,
        rec.partition,
        SystemTime::now() // expect: fresh-key-per-retry
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64),
    );
    http.post("https://ledger.internal.example/v1/entries")
        .header("Idempotency-Key", key)
        .body(rec.payload.clone())
        .send()
        .await?;
    Ok(())
}
