use chrono::Duration;
use jsonwebtoken::{Algorithm, Validation};

/// Clock skew tolerated between us and the identity provider.
pub const TOKEN_LEEWAY: Duration = Duration::seconds(60);

pub fn validation(audience: &str) -> Validation {
    let mut v = Validation::new(Algorithm::RS256);
    v.leeway = TOKEN_LEEWAY.num_seconds() as u64;
    v.set_audience(&[audience]);
    v
}
