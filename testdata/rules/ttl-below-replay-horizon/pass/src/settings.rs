//! Service settings that are not read from the environment.

use crate::time_consts::{DAY, HOUR, MINUTE};
use std::time::Duration;

/// Stripe may resend an event for 30 days (CLI / List Events); keep ids for
/// that window plus five days of outage margin.
pub const STRIPE_EVENT_TTL_SECS: u64 = 35 * DAY;

/// How long an in-flight claim blocks a concurrent delivery of the same event.
pub const IDEMPOTENCY_LOCK_TTL: Duration = Duration::from_secs(30);

pub const SESSION_TTL_SECS: u64 = DAY;
pub const JWT_EXPIRY: Duration = Duration::from_secs(HOUR);
pub const RATE_LIMIT_WINDOW_SECS: u64 = MINUTE;
