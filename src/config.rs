//! `idemlint.toml`: discovery (walk up to the repository root), parsing with
//! unknown keys refused (file and line named), and the per-path rule levels.
//! Later issues read `store`, `counterparty`, `margin` and `default_horizon`.

use crate::diagnostic::{RuleId, Severity};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Invalid {
        path: String,
        line: usize,
        message: String,
    },
    #[error("{first} and {second} are both config files of one directory; keep one, or name it with --config")]
    Ambiguous { first: String, second: String },
}

/// A rule's level as the config sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Off,
    Note,
    Warning,
    Error,
}

impl Level {
    pub fn severity(self) -> Option<Severity> {
        match self {
            Level::Off => None,
            Level::Note => Some(Severity::Note),
            Level::Warning => Some(Severity::Warning),
            Level::Error => Some(Severity::Error),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    Error,
    Warning,
    Note,
    Never,
}

impl FailOn {
    pub fn parse(s: &str) -> Option<FailOn> {
        match s {
            "error" => Some(FailOn::Error),
            "warning" => Some(FailOn::Warning),
            "note" => Some(FailOn::Note),
            "never" => Some(FailOn::Never),
            _ => None,
        }
    }

    /// The lowest severity that fails the run, if any.
    pub fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Note => Some(Severity::Note),
            FailOn::Never => None,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreDecl {
    #[serde(default)]
    pub table: Option<String>,
    #[serde(default)]
    pub key_prefix: Option<String>,
    #[serde(default)]
    pub counterparty: Option<String>,
    /// Which Redis instance (compose service, release, resource) holds it.
    #[serde(default)]
    pub redis: Option<String>,
    /// `false` excludes a table or prefix that the name recognisers would take.
    #[serde(default = "yes")]
    pub store: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterpartyDecl {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    /// Inbound: how long it may send us the same event again.
    #[serde(default)]
    pub horizon: Option<String>,
    /// Outbound: how long it keeps the idempotency keys we send it.
    #[serde(default)]
    pub outbound: Option<String>,
    /// API hosts (or host suffixes) our requests to it go to.
    #[serde(default)]
    pub hosts: Vec<String>,
    #[serde(default)]
    pub r#match: Vec<String>,
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Override {
    pub paths: Vec<String>,
    #[serde(default)]
    pub rules: BTreeMap<String, Level>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub fail_on: Option<FailOn>,
    #[serde(default)]
    pub margin: Option<String>,
    #[serde(default)]
    pub default_horizon: Option<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default)]
    pub rules: BTreeMap<String, Level>,
    #[serde(default)]
    pub store: Vec<StoreDecl>,
    #[serde(default)]
    pub counterparty: Vec<CounterpartyDecl>,
    #[serde(default, rename = "override")]
    pub overrides: Vec<Override>,
    /// Judge test code with every rule (default false: the retention,
    /// header and flow rules leave it alone).
    #[serde(default)]
    pub tests: Option<bool>,
    /// Calls the project counts as effects, beside `rules/effects.toml`.
    #[serde(default)]
    pub effect: Vec<crate::knowledge::CallPattern>,
    /// Owner words of the project's own, beside those of `rules/stores.toml`
    /// (`[scope_column] parts`): a column named for one (`household_id`) is a
    /// caller scope for `unscoped-idempotency-key`.
    #[serde(default)]
    pub scope_words: Vec<String>,
    /// Whether a suppression must give a reason after `--` (default true).
    #[serde(default)]
    pub suppression_reason_required: Option<bool>,
    /// Where the config was read from, if anywhere.
    #[serde(skip)]
    pub source: Option<PathBuf>,
}

pub const CONFIG_NAMES: &[&str] = &["idemlint.toml", ".idemlint.toml"];

/// toml's "unknown field `margn`, expected one of `fail_on`, `margin`, …"
/// with the nearest key named first: "unknown key `margn`; did you mean
/// `margin`? (expected one of …)".
fn with_suggestion(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_string();
    };
    let Some((key, expected)) = rest.split_once('`') else {
        return message.to_string();
    };
    let candidates: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    let best = candidates
        .iter()
        .map(|c| (crate::catalogue::osa_distance(key, c), *c))
        .filter(|(d, c)| *d > 0 && *d <= (c.len() / 3).max(2))
        .min_by_key(|(d, _)| *d);
    match best {
        Some((_, c)) => format!(
            "unknown key `{key}`; did you mean `{c}`? ({})",
            expected
                .trim_start_matches(", ")
                .trim_end()
                .replace("expected one of", "known keys:")
        ),
        None => message.to_string(),
    }
}

impl Config {
    /// Parse config text; `path` names it in errors.
    pub fn parse(text: &str, path: &str) -> Result<Config, ConfigError> {
        let cfg: Config = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
                .unwrap_or(1);
            ConfigError::Invalid {
                path: path.to_string(),
                line,
                message: with_suggestion(e.message().trim()),
            }
        })?;
        cfg.validate(text, path)?;
        Ok(cfg)
    }

    fn validate(&self, text: &str, path: &str) -> Result<(), ConfigError> {
        let known = crate::catalogue::names();
        let line_of = |needle: &str| {
            text.find(needle)
                .map(|i| text[..i].matches('\n').count() + 1)
                .unwrap_or(1)
        };
        let all_rule_keys = self
            .rules
            .keys()
            .chain(self.overrides.iter().flat_map(|o| o.rules.keys()));
        for name in all_rule_keys {
            if !known.contains(&name.as_str()) {
                return Err(ConfigError::Invalid {
                    path: path.to_string(),
                    line: line_of(name),
                    message: match crate::catalogue::closest(name) {
                        Some(n) => format!("unknown rule `{name}`; did you mean `{n}`?"),
                        None => format!("unknown rule `{name}`; known rules: {}", known.join(", ")),
                    },
                });
            }
        }
        for o in &self.overrides {
            for p in &o.paths {
                if let Err(e) = globset::Glob::new(p) {
                    return Err(ConfigError::Invalid {
                        path: path.to_string(),
                        line: line_of(p),
                        message: format!("invalid glob `{p}`: {e}"),
                    });
                }
            }
        }
        let durations = self.margin.iter().chain(&self.default_horizon).chain(
            self.counterparty
                .iter()
                .flat_map(|c| c.horizon.iter().chain(&c.outbound)),
        );
        for c in &self.counterparty {
            if c.horizon.is_none() && c.outbound.is_none() {
                return Err(ConfigError::Invalid {
                    path: path.to_string(),
                    line: line_of(&c.id),
                    message: format!(
                        "counterparty `{}` needs a `horizon` (how long it may send the same event again) or an `outbound` window (how long it keeps the keys we send), e.g. `outbound = \"24h\"`",
                        c.id
                    ),
                });
            }
        }
        for d in durations {
            if crate::duration::parse(d, None).is_none() {
                return Err(ConfigError::Invalid {
                    path: path.to_string(),
                    line: line_of(d),
                    message: format!("invalid duration `{d}`: write it with a unit, e.g. `30d`"),
                });
            }
        }
        for s in &self.store {
            let Some(id) = &s.counterparty else { continue };
            let known = crate::knowledge::counterparties()
                .counterparty
                .iter()
                .map(|c| &c.id)
                .chain(self.counterparty.iter().map(|c| &c.id))
                .any(|k| k == id);
            if !known {
                return Err(ConfigError::Invalid {
                    path: path.to_string(),
                    line: line_of(id),
                    message: format!(
                        "unknown counterparty `{id}`: `idemlint horizons` lists the known ones; add it with `[[counterparty]]`"
                    ),
                });
            }
        }
        for e in &self.effect {
            if e.path.is_empty() && e.method.is_none() {
                return Err(ConfigError::Invalid {
                    path: path.to_string(),
                    line: line_of("[[effect]]"),
                    message: "an `[[effect]]` needs a `path` or a `method` to match calls by"
                        .to_string(),
                });
            }
        }
        for p in &self.exclude {
            if let Err(e) = globset::Glob::new(p) {
                return Err(ConfigError::Invalid {
                    path: path.to_string(),
                    line: line_of(p),
                    message: format!("invalid glob `{p}`: {e}"),
                });
            }
        }
        Ok(())
    }

    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let display = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: display.clone(),
            source,
        })?;
        let mut cfg = Config::parse(&text, &display)?;
        cfg.source = Some(path.to_path_buf());
        Ok(cfg)
    }

    /// Find the config for a scan starting at `start`: the nearest
    /// `idemlint.toml` or `.idemlint.toml`, looking upward no further than the
    /// repository root (the first directory holding `.git`).
    /// Both names in one directory is an error: which one rules would be
    /// a guess.
    pub fn discover(start: &Path) -> Result<Option<PathBuf>, ConfigError> {
        let Ok(start) = std::fs::canonicalize(start) else {
            return Ok(None);
        };
        let mut dir = if start.is_dir() {
            start
        } else {
            match start.parent() {
                Some(p) => p.to_path_buf(),
                None => return Ok(None),
            }
        };
        loop {
            let found: Vec<PathBuf> = CONFIG_NAMES
                .iter()
                .map(|name| dir.join(name))
                .filter(|c| c.is_file())
                .collect();
            match found.as_slice() {
                [one] => return Ok(Some(one.clone())),
                [first, second, ..] => {
                    return Err(ConfigError::Ambiguous {
                        first: first.display().to_string(),
                        second: second.display().to_string(),
                    })
                }
                [] => {}
            }
            if dir.join(".git").exists() {
                return Ok(None);
            }
            match dir.parent() {
                Some(p) => dir = p.to_path_buf(),
                None => return Ok(None),
            }
        }
    }

    /// The severity a rule's diagnostic gets for a file, or `None` when the
    /// rule is off there. `proposed` is what the rule chose.
    pub fn level_for(&self, rule: RuleId, path: &str, proposed: Severity) -> Option<Severity> {
        let mut level = self.rules.get(rule.as_str()).copied();
        for o in &self.overrides {
            if let Some(l) = o.rules.get(rule.as_str()) {
                if glob_match(&o.paths, path) {
                    level = Some(*l);
                }
            }
        }
        match level {
            None => Some(proposed),
            Some(l) => l.severity(),
        }
    }

    pub fn reason_required(&self) -> bool {
        self.suppression_reason_required.unwrap_or(true)
    }
}

/// Whether `path` (relative, `/`-separated) matches any of the globs.
pub fn glob_match(globs: &[String], path: &str) -> bool {
    let mut b = globset::GlobSetBuilder::new();
    for g in globs {
        if let Ok(g) = globset::Glob::new(g) {
            b.add(g);
        }
    }
    b.build().map(|s| s.is_match(path)).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_names_file_and_line() {
        let err = Config::parse("fail_on = \"error\"\n\nbogus = 1\n", "idemlint.toml").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("idemlint.toml:3:"), "{msg}");
        assert!(msg.contains("bogus"), "{msg}");
    }

    #[test]
    fn a_mistyped_key_gets_the_nearest_one() {
        let e = Config::parse("margn = \"5d\"\n", "idemlint.toml").unwrap_err();
        assert!(e.to_string().contains("did you mean `margin`?"), "{e}");
        let e = Config::parse("zzzzzz = 1\n", "idemlint.toml").unwrap_err();
        assert!(!e.to_string().contains("did you mean"), "{e}");
    }

    #[test]
    fn unknown_rule_is_refused() {
        let err = Config::parse("[rules]\nno-such-rule = \"off\"\n", "c.toml").unwrap_err();
        assert!(err
            .to_string()
            .contains("c.toml:2: unknown rule `no-such-rule`"));
    }

    #[test]
    fn duration_without_unit_is_refused() {
        let err = Config::parse("margin = \"5\"\n", "c.toml").unwrap_err();
        assert!(
            err.to_string().contains("c.toml:1: invalid duration `5`"),
            "{err}"
        );
    }

    #[test]
    fn store_naming_an_unknown_counterparty_is_refused() {
        let text = "[[store]]\ntable = \"processed_events\"\ncounterparty = \"strip-webhooks\"\n";
        let err = Config::parse(text, "c.toml").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("c.toml:3: unknown counterparty `strip-webhooks`"),
            "{err}"
        );
        let ok = "[[store]]\ntable = \"t\"\ncounterparty = \"acme\"\n[[counterparty]]\nid = \"acme\"\nhorizon = \"45d\"\n";
        assert!(Config::parse(ok, "c.toml").is_ok());
    }

    #[test]
    fn overrides_apply_by_path() {
        let cfg = Config::parse(
            "[rules]\nmissing-request-fingerprint = \"error\"\n[[override]]\npaths = [\"migrations/legacy/**\"]\nrules = { missing-request-fingerprint = \"off\" }\n",
            "c.toml",
        )
        .unwrap();
        let r = RuleId::MissingRequestFingerprint;
        assert_eq!(
            cfg.level_for(r, "migrations/legacy/1.sql", Severity::Warning),
            None
        );
        assert_eq!(
            cfg.level_for(r, "migrations/2.sql", Severity::Warning),
            Some(Severity::Error)
        );
    }
}
