/// Name of the metric that counts stored keys, and of the admin resource.
pub const IDEMPOTENCY_KEYS: &str = "idempotency_keys";
pub const IDEMPOTENCY_KEYS_PATH: &str = "/admin/idempotency-keys";

pub fn record_stored(count: u64) {
    metrics::gauge!(IDEMPOTENCY_KEYS).set(count as f64);
}

pub fn admin_routes() -> axum::Router {
    axum::Router::new().route(IDEMPOTENCY_KEYS_PATH, axum::routing::get(|| async { "ok" }))
}
