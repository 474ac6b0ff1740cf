//! The live audit (`idemlint audit`): the idempotency stores as they are
//! deployed, read from PostgreSQL catalogues and statistics and from Redis
//! `CONFIG`/`INFO`/`SCAN`, read-only, then judged beside the code's model.
//!
//! Layering: [`facts`] is plain data; [`postgres`] and [`redis`] read it
//! (the only code that opens a connection); [`judge`] turns it into
//! diagnostics of the same rules `check` runs; [`command`] joins them with
//! a check of the repository. Nothing here is reached by `check`.

pub mod command;
pub mod facts;
pub mod judge;
pub mod live;
pub mod postgres;
pub mod redis;
pub mod tls;

use std::time::Duration;

/// The bounds of every read.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// TCP connect and handshake, per host.
    pub connect: Duration,
    /// PostgreSQL `statement_timeout`, and the Redis read timeout.
    pub statement: Duration,
    /// Rows read at most for the age of the oldest row when no index leads
    /// with the timestamp column.
    pub sample_rows: u64,
    /// Keys sampled at most per Redis store prefix.
    pub redis_keys: u64,
    /// Time spent at most scanning per Redis store prefix.
    pub redis_time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connect: Duration::from_secs(5),
            statement: Duration::from_secs(5),
            sample_rows: 10_000,
            redis_keys: 1_000,
            redis_time: Duration::from_secs(5),
        }
    }
}

/// A URL's parts as idemlint needs them to name it without its secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub scheme: String,
    /// `host:port` (the host alone when no port is written).
    pub host_port: String,
    /// The path after the host (`/db`), empty when none.
    pub path: String,
    /// The password (from the user part or a `password=` parameter),
    /// percent-decoded and as written, to scrub from any message.
    pub secrets: Vec<String>,
}

impl Target {
    pub fn parse(url: &str) -> Target {
        let url = url.trim();
        let (scheme, rest) = match url.split_once("://") {
            Some((s, r)) => (s.to_ascii_lowercase(), r),
            None => return Target::keywords(url),
        };
        let (before_query, query) = match rest.split_once('?') {
            Some((b, q)) => (b, q),
            None => (rest, ""),
        };
        // The user part ends at the last `@` before the path.
        let authority_end = before_query.find('/').unwrap_or(before_query.len());
        let (authority, path) = before_query.split_at(authority_end);
        let (userinfo, host) = match authority.rfind('@') {
            Some(i) => (&authority[..i], &authority[i + 1..]),
            None => ("", authority),
        };
        let mut secrets = Vec::new();
        if let Some((_, pw)) = userinfo.split_once(':') {
            push_secret(&mut secrets, pw);
        } else if !userinfo.is_empty() && scheme.starts_with("redis") {
            // `redis://password@host` is read as a password by some clients.
            push_secret(&mut secrets, userinfo);
        }
        for pair in query.split('&') {
            if let Some((k, v)) = pair.split_once('=') {
                if k.eq_ignore_ascii_case("password") || k.eq_ignore_ascii_case("sslpassword") {
                    push_secret(&mut secrets, v);
                }
            }
        }
        Target {
            scheme,
            host_port: host.to_string(),
            path: path.to_string(),
            secrets,
        }
    }

    /// A libpq keyword/value string (`host=db port=5432 dbname=app
    /// password=...`), named as the URL it stands for.
    fn keywords(text: &str) -> Target {
        let mut secrets = Vec::new();
        let (mut host, mut port, mut db) = (String::new(), String::new(), String::new());
        for pair in text.split_whitespace() {
            let Some((k, v)) = pair.split_once('=') else {
                continue;
            };
            let v = v.trim_matches('\'');
            match k.to_ascii_lowercase().as_str() {
                "password" | "sslpassword" => push_secret(&mut secrets, v),
                "host" | "hostaddr" if host.is_empty() => host = v.to_string(),
                "port" => port = v.to_string(),
                "dbname" => db = v.to_string(),
                _ => {}
            }
        }
        // A quoted password with spaces: scrub everything after `password=`.
        if let Some(i) = text.find("password=") {
            let rest = &text[i + "password=".len()..];
            if let Some(q) = rest.strip_prefix('\'') {
                if let Some(end) = q.find('\'') {
                    push_secret(&mut secrets, &q[..end]);
                }
            }
        }
        let host_port = match (host.is_empty(), port.is_empty()) {
            (false, false) => format!("{host}:{port}"),
            (false, true) => host,
            _ => String::new(),
        };
        Target {
            scheme: "postgres".into(),
            host_port,
            path: if db.is_empty() {
                String::new()
            } else {
                format!("/{db}")
            },
            secrets,
        }
    }

    /// `scheme://host:port/path`: no user, no password, no parameters.
    pub fn display(&self) -> String {
        format!("{}://{}{}", self.scheme, self.host_port, self.path)
    }

    /// `text` with every secret of this target replaced by `***`.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            if !s.is_empty() {
                out = out.replace(s.as_str(), "***");
            }
        }
        out
    }
}

fn push_secret(out: &mut Vec<String>, raw: &str) {
    if raw.is_empty() {
        return;
    }
    out.push(raw.to_string());
    let decoded = percent_decode(raw);
    if decoded != raw {
        out.push(decoded);
    }
    // The longest first, so a secret that contains another is replaced whole.
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Replace the user and password of every URL in `text` (`scheme://user:pw@`)
/// with nothing: a last guard on any message that may quote a URL.
pub fn redact_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        out.push_str(&rest[..i + 3]);
        rest = &rest[i + 3..];
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '/' || c == '"' || c == '\'' || c == '`')
            .unwrap_or(rest.len());
        if let Some(at) = rest[..end].rfind('@') {
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// A duration for a human: `2 d 3 h`, `24 h`, `5 min`, `12 s`.
pub fn human_duration(secs: f64) -> String {
    let s = secs.max(0.0);
    if s >= 86_400.0 {
        let d = (s / 86_400.0).floor();
        let h = ((s - d * 86_400.0) / 3600.0).floor();
        if h >= 1.0 {
            format!("{d} d {h} h")
        } else {
            format!("{d} d")
        }
    } else if s >= 3600.0 {
        format!("{:.1} h", s / 3600.0).replace(".0 h", " h")
    } else if s >= 60.0 {
        format!("{} min", (s / 60.0).round())
    } else {
        format!("{} s", s.round())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_names_host_port_and_path_and_keeps_its_secrets_apart() {
        let t = Target::parse("postgres://app:s3cr%40t@db.internal:5432/payments?sslmode=require");
        assert_eq!(t.display(), "postgres://db.internal:5432/payments");
        assert!(t.secrets.contains(&"s3cr%40t".to_string()));
        assert!(t.secrets.contains(&"s3cr@t".to_string()));
        assert_eq!(t.scrub("auth failed for s3cr@t"), "auth failed for ***");
        let r = Target::parse("rediss://:hunter2@cache:6380/0");
        assert_eq!(r.display(), "rediss://cache:6380/0");
        assert_eq!(r.scrub("hunter2"), "***");
        let q = Target::parse("postgres://h/db?user=a&password=pw1");
        assert_eq!(q.display(), "postgres://h/db");
        assert_eq!(q.secrets, vec!["pw1".to_string()]);
    }

    #[test]
    fn a_keyword_string_is_named_without_its_password() {
        let t = Target::parse("host=db.internal port=5433 dbname=pay user=app password=pw9");
        assert_eq!(t.display(), "postgres://db.internal:5433/pay");
        assert_eq!(t.scrub("pw9 refused"), "*** refused");
        let q = Target::parse("host=h password='a b c' dbname=x");
        assert_eq!(q.scrub("got 'a b c'"), "got '***'");
    }

    #[test]
    fn urls_in_any_text_lose_their_credentials() {
        assert_eq!(
            redact_urls("cannot reach redis://u:pw@h:1/0 or postgres://x:y@h2/db"),
            "cannot reach redis://h:1/0 or postgres://h2/db"
        );
    }

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(human_duration(86_400.0 * 2.0), "2 d");
        assert_eq!(human_duration(86_400.0), "1 d");
        assert_eq!(human_duration(3600.0 * 24.0 - 1.0), "24 h");
        assert_eq!(human_duration(90.0), "2 min");
    }
}
