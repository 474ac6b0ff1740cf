//! Settings that configuration files give to names the code reads: a
//! retry count or a TTL the code takes from `cfg.payouts.max_retries` or
//! `$PAYOUT_MAX_RETRIES`, found in YAML, TOML, JSON, `.env` and Kubernetes
//! `env:` lists. Below the retention, retry and Redis models, which all
//! join through it.

use crate::facts::config::{content_span, ConfEntry, ConfValue, PathSeg};
use crate::facts::retention::ConstExpr;
use crate::facts::FileFacts;
use crate::source::{FileId, SourceMap, Span};
use std::collections::{HashMap, HashSet};

/// A value a configuration file gives to a setting the code reads.
#[derive(Debug, Clone)]
pub(super) struct Given {
    pub(super) file: FileId,
    pub(super) span: Span,
    /// `workers.payouts.max_retries: 50`
    pub(super) shown: String,
    pub(super) expr: ConstExpr,
    /// For choosing the largest: the count, or milliseconds.
    size: u128,
    /// Other files that give the same setting (a smaller or equal value).
    pub(super) others: usize,
}

/// How a setting read in the code and one written in a file meet: the
/// last two names of a field path, folded (`cfg.payouts.max_retries` and
/// `workers.payouts.max-retries` → `payouts.maxretries`), so the file must
/// name the section (the worker) as well as the setting; an environment
/// variable by its exact name (`$PAYOUT_MAX_RETRIES`).
pub(super) fn join_key(read: &str) -> Option<String> {
    if let Some(env) = read.strip_prefix('$') {
        return Some(format!("${env}"));
    }
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let segs: Vec<&str> = read.split('.').collect();
    match segs.as_slice() {
        [.., section, setting] => Some(format!("{}.{}", fold(section), fold(setting))),
        _ => None,
    }
}

/// A count (`50`) or a duration with its unit (`1h`, `PT30M`); a bare
/// number is a count, its unit the code's (`Duration::from_secs(cfg.x)`).
pub(super) fn given_value(v: &str) -> Option<(ConstExpr, u128)> {
    let v = v.trim();
    if let Ok(n) = v.parse::<u64>() {
        return Some((ConstExpr::Int(n), u128::from(n)));
    }
    if v.parse::<f64>().is_ok() {
        return None;
    }
    let d = crate::duration::parse(v, None)?;
    Some((
        ConstExpr::Dur {
            ms: 1000,
            arg: Box::new(ConstExpr::Int(d.secs)),
        },
        u128::from(d.secs) * 1000,
    ))
}

/// The join key of an environment name that layers over a config file's
/// section (`APP__WEBHOOKS__EVENT_TTL_SECS` → `webhooks.eventttlsecs`), as
/// the `config` crate's `Environment::separator("__")` and figment's
/// `Env::split("__")` read it.
pub(super) fn nested_env_key(k: &str) -> Option<String> {
    let parts: Vec<&str> = k.split("__").filter(|p| !p.is_empty()).collect();
    match parts.as_slice() {
        [.., section, setting] if parts.len() >= 2 && is_env_name(k) => {
            join_key(&format!("{section}.{setting}"))
        }
        _ => None,
    }
}

pub(super) fn is_env_name(k: &str) -> bool {
    k.len() >= 3
        && k.contains('_')
        && k.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The value a config entry gives a retry setting: a count or a duration,
/// or an environment reference's default (`${MAX_RETRIES:-5}`), with its
/// span and text.
pub(super) fn given_of(e: &ConfEntry, text: &str) -> Option<(ConstExpr, u128, Span, String)> {
    let ConfValue::Scalar { text: v, style } = &e.value else {
        return None;
    };
    // Every count and duration [`given_value`] reads holds a digit, and an
    // environment default is part of the value: most scalars of a large
    // tree (an OpenAPI file's descriptions) are judged by one byte scan.
    if !v.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let span = content_span(text, e.value_span, *style);
    let (v, span) = env_default(v, span, text)?;
    let (expr, size) = given_value(v)?;
    Some((expr, size, span, v.trim().to_string()))
}

/// Whether [`given_settings`] can read an entry: a count or duration under
/// an environment name (`PAYOUT_MAX_RETRIES: 50`) or a key in a section
/// (`payouts.max_retries`). An item of a list (`sources[0].line: 12`) is
/// neither; Kubernetes `env:` items are read as name/value pairs instead.
pub(super) fn may_be_given(e: &ConfEntry, text: &str) -> bool {
    let Some(key) = e.key() else { return false };
    let in_section = matches!(e.path.as_slice(), [.., PathSeg::Key(_), PathSeg::Key(_)]);
    (in_section || is_env_name(key)) && given_of(e, text).is_some()
}

pub(super) fn given_settings(
    files: &[FileFacts],
    sources: &SourceMap,
    wanted: &HashSet<String>,
) -> HashMap<String, Given> {
    let mut out: HashMap<String, Given> = HashMap::new();
    let mut add = |key: String, g: Given| match out.get_mut(&key) {
        Some(old) => {
            if g.size > old.size {
                let others = old.others + 1;
                *old = Given { others, ..g };
            } else {
                old.others += 1;
            }
        }
        None => {
            out.insert(key, g);
        }
    };
    for f in files {
        let Some(doc) = &f.conf else { continue };
        if f.test_path {
            continue;
        }
        let src = sources.get(f.file);
        let text = src.text();
        let assign = if src.kind == crate::source::FileKind::Toml {
            " = "
        } else {
            ": "
        };
        let value_of = |e: &ConfEntry| given_of(e, text);
        for e in &doc.entries {
            let Some(key) = e.key() else { continue };
            let env_key = is_env_name(key).then(|| format!("${key}"));
            let field_key = match e.path.as_slice() {
                // `APP__WEBHOOKS__EVENT_TTL_SECS=86400`: the `config` and
                // `figment` crates' nested environment overrides.
                _ if key.contains("__") => nested_env_key(key),
                [.., PathSeg::Key(section), PathSeg::Key(_)] => {
                    join_key(&format!("{section}.{key}"))
                }
                _ => None,
            };
            let env_key = env_key.filter(|k| wanted.contains(k));
            let field_key = field_key.filter(|k| wanted.contains(k));
            if env_key.is_none() && field_key.is_none() {
                continue;
            }
            let Some((expr, size, span, v)) = value_of(e) else {
                continue;
            };
            let given = |shown: String| Given {
                file: f.file,
                span,
                shown,
                expr: expr.clone(),
                size,
                others: 0,
            };
            if let Some(k) = env_key {
                add(k, given(format!("{key}={v}")));
            }
            if let Some(k) = field_key {
                add(k, given(format!("{}{assign}{v}", e.dotted())));
            }
        }
        // Kubernetes `env:` items: `- name: PAYOUT_MAX_RETRIES` / `value: "50"`.
        for (name, value) in k8s_env_pairs(&doc.entries) {
            let Some(n) = name.scalar().filter(|n| wanted.contains(&format!("${n}"))) else {
                continue;
            };
            let Some((expr, size, span, v)) = value_of(value) else {
                continue;
            };
            if is_env_name(n) {
                add(
                    format!("${n}"),
                    Given {
                        file: f.file,
                        span,
                        shown: format!("{n}={v}"),
                        expr,
                        size,
                        others: 0,
                    },
                );
            }
        }
    }
    out
}

/// A value that is an environment reference: its default
/// (`${DEDUP_TTL:-86400}` gives `86400` and its span), or nothing when it has
/// none (never guessed). Other values pass through.
pub(super) fn env_default<'v>(value: &'v str, span: Span, text: &str) -> Option<(&'v str, Span)> {
    let v = value.trim();
    let Some(inner) = v.strip_prefix("${").and_then(|r| r.strip_suffix('}')) else {
        if v.contains("${") || v.contains("{{") {
            return None;
        }
        return Some((value, span));
    };
    let (_, default) = inner.split_once(":-").or_else(|| inner.split_once('-'))?;
    let at = text
        .get(span.start..span.end)
        .and_then(|s| s.find(default))
        .map(|i| Span::new(span.start + i, span.start + i + default.len()))
        .unwrap_or(span);
    Some((default, at))
}

/// Whether an entry is a key of a list item's mapping (`env[2].name`).
pub(super) fn in_list_item(e: &ConfEntry) -> bool {
    e.path.len() >= 2 && matches!(e.path[e.path.len() - 2], PathSeg::Index(_))
}

/// Kubernetes env lists: `- name: IDEMPOTENCY_REDIS_URL` / `value: redis://…`.
pub(super) fn k8s_env_pairs(entries: &[ConfEntry]) -> Vec<(&ConfEntry, &ConfEntry)> {
    // Values by (document, parent path), so a large manifest stays linear.
    let parent_of = |e: &ConfEntry| {
        let mut key = String::new();
        for seg in e.parent() {
            match seg {
                PathSeg::Key(k) => key.push_str(&format!("k{}:{k}", k.len())),
                PathSeg::Index(i) => key.push_str(&format!("i{i}")),
            }
        }
        (e.doc, key)
    };
    let item = |e: &&ConfEntry| in_list_item(e);
    let values: std::collections::HashMap<(usize, String), &ConfEntry> = entries
        .iter()
        .filter(|e| e.key() == Some("value"))
        .filter(item)
        .map(|e| (parent_of(e), e))
        .collect();
    entries
        .iter()
        .filter(|e| e.key() == Some("name"))
        .filter(item)
        .filter_map(|n| values.get(&parent_of(n)).map(|v| (n, *v)))
        .collect()
}
