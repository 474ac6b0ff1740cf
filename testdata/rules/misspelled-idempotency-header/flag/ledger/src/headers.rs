//! Header names our own API uses.

use http::HeaderName;

pub const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
pub const REPLAYED: HeaderName = HeaderName::from_static("idempotency-replayed"); // expect: misspelled-idempotency-header
