//! Service settings that are not read from the environment.

use crate::time_consts::{DAY, HOUR};

/// How long a processed Stripe event id is kept.
pub const STRIPE_EVENT_TTL_SECS: u64 = 2 * DAY + 12 * HOUR; // expect: ttl-below-replay-horizon

pub const SESSION_TTL_SECS: u64 = DAY;
