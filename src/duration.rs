//! Durations as written in configs, SQL and code: `24h`, `30d`, `PT24H`,
//! `86400` (seconds unless a unit says otherwise), `'24 hours'`,
//! `'1 day 2 hours'`, `interval '7 days'`. Parsing only; which store a
//! duration belongs to is the front ends' and the model's business.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration {
    pub secs: u64,
}

pub const MINUTE: u64 = 60;
pub const HOUR: u64 = 3600;
pub const DAY: u64 = 86_400;

impl Duration {
    pub const fn from_secs(secs: u64) -> Self {
        Duration { secs }
    }

    /// Durations longer than this (2^50 s, about 35 million years) all
    /// mean "forever" and saturate here: below it, seconds are exact in the
    /// `f64` arithmetic of parsing, so a duration printed and parsed again
    /// is the same.
    pub const MAX: Duration = Duration::from_secs(1 << 50);

    pub fn from_unit(n: f64, unit_secs: u64) -> Option<Self> {
        let s = n * unit_secs as f64;
        (s.is_finite() && s >= 0.0)
            .then(|| Duration::from_secs((s.round() as u64).min(Duration::MAX.secs)))
    }

    pub fn days(self) -> f64 {
        self.secs as f64 / DAY as f64
    }
}

/// Short human form: `30d`, `24h`, `36h`, `90m`, `45s`, `2d 12h`. Whole
/// hours under two days read as hours, as people write them.
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.secs;
        if s == 0 {
            return f.write_str("0s");
        }
        if s < 2 * DAY && s.is_multiple_of(HOUR) {
            return write!(f, "{}h", s / HOUR);
        }
        let (d, h, m, sec) = (s / DAY, (s % DAY) / HOUR, (s % HOUR) / MINUTE, s % MINUTE);
        let mut parts = Vec::new();
        if d > 0 {
            parts.push(format!("{d}d"));
        }
        if h > 0 {
            parts.push(format!("{h}h"));
        }
        if m > 0 {
            parts.push(format!("{m}m"));
        }
        if sec > 0 {
            parts.push(format!("{sec}s"));
        }
        f.write_str(&parts.join(" "))
    }
}

/// Seconds in a unit word or suffix (`d`, `day`, `days`, `hours`, `ms`, ...).
pub fn unit_secs(unit: &str) -> Option<f64> {
    let u = unit.trim().to_ascii_lowercase();
    Some(match u.as_str() {
        "ms" | "msec" | "msecs" | "millis" | "millisecond" | "milliseconds" => 0.001,
        "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
        "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3600.0,
        "d" | "day" | "days" => 86_400.0,
        "w" | "week" | "weeks" => 604_800.0,
        "mon" | "mons" | "month" | "months" => 30.0 * 86_400.0,
        "y" | "year" | "years" => 365.0 * 86_400.0,
        _ => return None,
    })
}

/// The unit a config key's suffix names: `_ms`, `_seconds`, `_secs`, `_hours`,
/// `_days`, `_minutes` (also `Ms`, `Seconds` in camelCase).
pub fn key_suffix_unit(key: &str) -> Option<f64> {
    let k = key.to_ascii_lowercase();
    let last = k.rsplit(['_', '-', '.']).next().unwrap_or(&k);
    if let Some(u) = unit_secs(last) {
        if last != k.as_str() {
            return Some(u);
        }
    }
    // camelCase: ttlSeconds, retentionDays, windowMs
    for (suffix, secs) in [
        ("milliseconds", 0.001),
        ("millis", 0.001),
        ("ms", 0.001),
        ("seconds", 1.0),
        ("secs", 1.0),
        ("minutes", 60.0),
        ("mins", 60.0),
        ("hours", 3600.0),
        ("days", 86_400.0),
    ] {
        if k.ends_with(suffix) && k.len() > suffix.len() {
            return Some(secs);
        }
    }
    None
}

/// Parse a duration written as text. `default_unit` (seconds per unit)
/// applies to a bare number; `None` refuses bare numbers.
pub fn parse(text: &str, default_unit: Option<f64>) -> Option<Duration> {
    let t = text.trim().trim_matches(|c| c == '\'' || c == '"').trim();
    if t.is_empty() {
        return None;
    }
    if let Some(d) = parse_iso8601(t) {
        return Some(d);
    }
    if let Ok(n) = t.parse::<f64>() {
        return Duration::from_unit(n, 1).and_then(|_| {
            let unit = default_unit?;
            Duration::from_unit(n * unit, 1)
        });
    }
    parse_units(t)
}

/// `24h`, `30d`, `1h30m`, `24 hours`, `1 day 2 hours`, `7 days`, `00:05:00`.
fn parse_units(t: &str) -> Option<Duration> {
    if let Some(d) = parse_clock(t) {
        return Some(d);
    }
    let mut total = 0f64;
    let mut rest = t.trim();
    let mut any = false;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_len == 0 {
            return None;
        }
        let n: f64 = rest[..num_len].parse().ok()?;
        rest = rest[num_len..].trim_start();
        let unit_len = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        if unit_len == 0 {
            return None;
        }
        let unit = unit_secs(&rest[..unit_len])?;
        total += n * unit;
        any = true;
        rest = rest[unit_len..]
            .trim_start()
            .trim_start_matches(',')
            .trim_start();
    }
    if any {
        Duration::from_unit(total, 1)
    } else {
        None
    }
}

/// `HH:MM:SS` as PostgreSQL prints intervals.
fn parse_clock(t: &str) -> Option<Duration> {
    let parts: Vec<&str> = t.split(':').collect();
    if parts.len() != 3 {
        return None;
    }
    let h: u64 = parts[0].parse().ok()?;
    let m: u64 = parts[1].parse().ok()?;
    let s: f64 = parts[2].parse().ok()?;
    Duration::from_unit(h as f64 * 3600.0 + m as f64 * 60.0 + s, 1)
}

/// ISO 8601 durations: `P30D`, `PT24H`, `P1DT12H`, `PT90M`, `P2W`.
fn parse_iso8601(t: &str) -> Option<Duration> {
    let u = t.to_ascii_uppercase();
    let body = u.strip_prefix('P')?;
    let mut total = 0f64;
    let mut in_time = false;
    let mut num = String::new();
    let mut any = false;
    for c in body.chars() {
        match c {
            'T' => in_time = true,
            '0'..='9' | '.' => num.push(c),
            _ => {
                let n: f64 = num.parse().ok()?;
                num.clear();
                total += n * match (c, in_time) {
                    ('Y', false) => 365.0 * 86_400.0,
                    ('M', false) => 30.0 * 86_400.0,
                    ('W', false) => 604_800.0,
                    ('D', false) => 86_400.0,
                    ('H', true) => 3600.0,
                    ('M', true) => 60.0,
                    ('S', true) => 1.0,
                    _ => return None,
                };
                any = true;
            }
        }
    }
    if any && num.is_empty() {
        Duration::from_unit(total, 1)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beyond_exact_seconds_everything_is_forever() {
        let huge = parse("84055540555550550", Some(1.0)).unwrap();
        assert_eq!(huge, Duration::MAX);
        assert_eq!(parse(&huge.to_string(), Some(1.0)), Some(Duration::MAX));
        assert_eq!(parse("1e999", Some(1.0)), None);
    }

    #[test]
    fn forms() {
        let d = |s: &str| parse(s, Some(1.0)).map(|d| d.secs);
        assert_eq!(d("24h"), Some(86_400));
        assert_eq!(d("30d"), Some(30 * DAY));
        assert_eq!(d("PT24H"), Some(DAY));
        assert_eq!(d("P1DT12H"), Some(DAY + 12 * HOUR));
        assert_eq!(d("86400"), Some(DAY));
        assert_eq!(d("'24 hours'"), Some(DAY));
        assert_eq!(d("1 day 2 hours"), Some(DAY + 2 * HOUR));
        assert_eq!(d("1h30m"), Some(5400));
        assert_eq!(d("00:05:00"), Some(300));
        assert_eq!(d("soon"), None);
        assert_eq!(parse("86400", None), None);
    }

    #[test]
    fn key_suffixes() {
        assert_eq!(key_suffix_unit("dedup_ttl_hours"), Some(3600.0));
        assert_eq!(key_suffix_unit("IDEMPOTENCY_TTL_SECONDS"), Some(1.0));
        assert_eq!(key_suffix_unit("windowMs"), Some(0.001));
        assert_eq!(key_suffix_unit("ttl"), None);
    }

    #[test]
    fn display() {
        assert_eq!(Duration::from_secs(DAY).to_string(), "24h");
        assert_eq!(Duration::from_secs(35 * DAY).to_string(), "35d");
        assert_eq!(
            Duration::from_secs(2 * DAY + 12 * HOUR).to_string(),
            "2d 12h"
        );
        assert_eq!(
            Duration::from_secs(24 * HOUR - 1).to_string(),
            "23h 59m 59s"
        );
    }
}
