//! The Adyen client the services of the workspace share.

mod payouts;

pub use payouts::{AdyenClient, PayoutResult};
