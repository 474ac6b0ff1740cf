//! What every handler of the refunds service shares.

use crate::psp::PspClient;
use sqlx::PgPool;
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub db: PgPool,
    pub psp: Arc<PspClient>,
    pub provider: Arc<dyn crate::payouts::PayoutProvider + Send + Sync>,
}
