//! `idemlint init`: a commented starter `idemlint.toml` written from what a
//! check of the repository found: each idemlint store (SQL tables, Redis key
//! prefixes, Redis instances that hold keys) with the counterparty idemlint
//! inferred and why, for a team to confirm or correct. Not for checking.

use crate::facts::retention::StoreRef;
use crate::horizons::Catalogue;
use crate::model::retention::{attribute, Attribution};
use crate::Outcome;
use std::collections::BTreeMap;

/// One store the starter config declares.
struct Entry {
    /// `table` or `key_prefix` or `redis`.
    key: &'static str,
    name: String,
    /// Where it was found (`path:line`).
    at: String,
    attribution: Attribution,
}

/// The starter config text and the number of stores it declares; paths in
/// its comments are shown relative to `base`, the directory it goes into.
pub fn starter(outcome: &Outcome, base: &str) -> (String, usize) {
    let entries = stores(outcome, base);
    let mut out = String::from(HEADER);
    if entries.is_empty() {
        out.push_str(
            "\n# idemlint found no idempotency store here. Declare one it missed:\n#\n# [[store]]\n# table = \"payment_requests\"\n# counterparty = \"stripe-webhooks\"\n",
        );
    }
    for e in &entries {
        push_entry(&mut out, e);
    }
    (out, entries.len())
}

/// The stores the check found, each with the counterparty idemlint settled
/// on and where it was found (paths relative to `base`), sorted by kind and
/// name.
fn stores(outcome: &Outcome, base: &str) -> Vec<Entry> {
    let model = &outcome.model;
    let sources = &outcome.sources;
    let catalogue = Catalogue::with_config(&outcome.config);
    let at = |file: usize, offset: usize| {
        let text = sources.text(file);
        let line = text[..crate::source::clamp_to_char_boundary(text, offset)]
            .matches('\n')
            .count()
            + 1;
        let path = sources.path(file);
        let shown = match base {
            "." | "" => path,
            b => path
                .strip_prefix(b.trim_end_matches('/'))
                .and_then(|p| p.strip_prefix('/'))
                .unwrap_or(path),
        };
        format!("{shown}:{line}")
    };
    // The counterparty the retention rule settled on, per store.
    let mut retained: BTreeMap<(&'static str, String), (&Attribution, String)> = BTreeMap::new();
    for r in &model.retention.items {
        let key = match &r.target {
            StoreRef::Table(t) => ("table", t.clone()),
            StoreRef::RedisPrefix(p) => ("key_prefix", p.clone()),
            StoreRef::ConfigPath(_) | StoreRef::Constant(_) => continue,
        };
        let better = retained
            .get(&key)
            .is_none_or(|(a, _)| *a == &Attribution::Unknown);
        if better {
            retained.insert(key, (&r.attribution, at(r.file, r.span.start)));
        }
    }
    let mut entries: Vec<Entry> = Vec::new();
    for (t, _) in model.schema.stores() {
        let key = ("table", t.name.clone());
        let attribution = match retained.remove(&key) {
            Some((a, _)) if *a != Attribution::Unknown => a.clone(),
            _ => attribute(
                &[t.name.clone(), sources.path(t.created.file).to_string()],
                &catalogue,
            ),
        };
        entries.push(Entry {
            key: "table",
            name: t.name.clone(),
            at: at(t.created.file, t.created.span.start),
            attribution,
        });
    }
    for ((key, name), (a, where_)) in retained {
        entries.push(Entry {
            key,
            name,
            at: where_,
            attribution: a.clone(),
        });
    }
    for i in &model.redis.instances {
        if i.links.is_empty() {
            continue;
        }
        entries.push(Entry {
            key: "redis",
            name: i.name.clone(),
            at: at(i.file, i.span.start),
            attribution: Attribution::Unknown,
        });
    }
    entries.sort_by(|a, b| (a.key, &a.name).cmp(&(b.key, &b.name)));
    entries.dedup_by(|a, b| a.key == b.key && a.name == b.name);
    entries
}

/// One store of the starter config: a comment that says what it is, where
/// it was found and how its counterparty was settled, then its `[[store]]`.
fn push_entry(out: &mut String, e: &Entry) {
    let what = match e.key {
        "table" => "table",
        "key_prefix" => "Redis key prefix",
        _ => "Redis instance holding keys",
    };
    out.push_str(&format!("\n# {what} `{}` ({})", e.name, e.at));
    let counterparty = match (&e.attribution, e.key) {
        (_, "redis") => {
            out.push('\n');
            None
        }
        (Attribution::Declared(id), _) => {
            out.push_str(": counterparty as declared\n");
            Some(id)
        }
        (Attribution::Named { id, name }, _) => {
            out.push_str(&format!(": counterparty inferred from `{name}`\n"));
            Some(id)
        }
        (Attribution::Writer(w), _) => {
            out.push_str(&format!(
                ": counterparty inferred from the code that {} it, which {}\n",
                if w.writes { "writes" } else { "reads" },
                w.why
            ));
            Some(&w.counterparty)
        }
        (Attribution::Outbound { id, name }, _) => {
            out.push_str(&format!(
                ": keys sent to a counterparty, inferred from `{name}`\n"
            ));
            Some(id)
        }
        (Attribution::Unknown, _) => {
            out.push_str(": no counterparty found; name the one whose requests it guards\n");
            None
        }
    };
    out.push_str(&format!(
        "[[store]]\n{} = {}\n",
        e.key,
        toml_string(&e.name)
    ));
    match counterparty {
        Some(id) => out.push_str(&format!("counterparty = {}\n", toml_string(id))),
        None if e.key != "redis" => out.push_str("# counterparty = \"stripe-webhooks\"\n"),
        None => {}
    }
}

const HEADER: &str = "# idemlint.toml, written by `idemlint init` from what this repository holds.
# Confirm or correct each store below and the counterparty idemlint inferred
# for it: `idemlint horizons` lists the counterparties it knows, with their
# replay windows; add your own with [[counterparty]]. `store = false` tells
# idemlint that a table or prefix it took for a store is not one.

# fail_on = \"warning\"        # error | warning | note | never
# margin = \"5d\"              # outage margin added to a counterparty's replay horizon
# default_horizon = \"30d\"    # horizon when a store's counterparty is unknown
# exclude = [\"vendor/**\"]

# [rules]
# delete-based-expiry = \"off\"   # or error | warning | note
";

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}
