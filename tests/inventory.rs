//! End-to-end tests of `idemlint inventory` (every format, the HTML's SVG
//! as XML), `idemlint size` (the worked example, line by line) and `--rev`
//! (a store as an earlier commit left it, read without the work tree).

#![allow(clippy::unwrap_used)]
mod support;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::git;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn idemlint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idemlint"))
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const INCIDENT: &str = "testdata/projects/incident";

fn inventory(format: &str) -> String {
    let o = idemlint(
        &manifest(),
        &["inventory", INCIDENT, "--isolated", "--format", format],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o)
}

fn store<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["stores"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no store {name} in {v}"))
}

#[test]
fn json_shape_carries_coverage_floor_retention_and_findings_of_a_24h_stripe_store() {
    let v: Value = serde_json::from_str(&inventory("json")).unwrap();
    assert_eq!(v["version"], 1);
    assert!(v["revision"].is_null());
    let s = store(&v, "processed_stripe_events");
    assert_eq!(s["kind"], "sql-table");
    assert!(s["defined_at"]
        .as_str()
        .unwrap()
        .ends_with("20261002000000_processed_stripe_events.sql:2"));
    assert_eq!(s["unique_guard"]["state"], "present");
    assert_eq!(s["retention"]["seconds"], 86_400);
    assert!(s["retention"]["at"]
        .as_str()
        .unwrap()
        .ends_with("db/cleanup.sql:3"));
    assert_eq!(s["retention"]["mechanism"], "DELETE job");
    assert_eq!(s["counterparty"]["id"], "stripe-webhooks");
    assert_eq!(s["counterparty"]["horizon_seconds"], 30 * 86_400);
    assert_eq!(s["counterparty"]["floor_seconds"], 35 * 86_400);
    let cov = s["coverage"].as_f64().unwrap();
    assert!((cov - 24.0 / 720.0).abs() < 1e-9, "{cov}");
    let rules: Vec<&str> = s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"ttl-below-replay-horizon"), "{rules:?}");
    // The seed table: no retention, no counterparty; its size at the floor.
    let p = store(&v, "payment_idempotency");
    assert!(p["retention"].is_null() && p["counterparty"].is_null() && p["coverage"].is_null());
    assert_eq!(p["size"]["bytes_per_key"], 132.0);
    assert_eq!(p["fingerprint"], "request_hash");
    assert_eq!(p["in_flight"], "state");
    // No Rust was read: no writers to show.
    assert!(p["writers"].is_null());
}

#[test]
fn terminal_and_markdown_show_the_coverage_and_the_35_day_floor() {
    for format in ["terminal", "markdown"] {
        let text = inventory(format);
        assert!(text.contains("3.3% of 30d"), "{format}:\n{text}");
        assert!(text.contains("35d floor"), "{format}:\n{text}");
        assert!(text.contains("96.7% unguarded"), "{format}:\n{text}");
        assert!(!text.contains('\x1b'), "{format}: colour in a pipe");
    }
    let o = idemlint(
        &manifest(),
        &["inventory", INCIDENT, "--isolated", "--color", "always"],
    );
    assert!(stdout(&o).contains("\x1b[31m"), "{}", stdout(&o));
}

#[test]
fn html_is_self_contained_and_its_svg_parses_with_the_figures_in_its_labels() {
    let html = inventory("html");
    assert!(html.starts_with("<!DOCTYPE html>"));
    for banned in [
        "<script",
        "<link",
        "@import",
        "url(http",
        "src=\"http",
        "<img",
    ] {
        assert!(!html.contains(banned), "{banned} in the report");
    }
    let mut svgs = Vec::new();
    let mut rest = html.as_str();
    while let Some(i) = rest.find("<svg") {
        let end = rest[i..].find("</svg>").unwrap() + i + "</svg>".len();
        svgs.push(&rest[i..end]);
        rest = &rest[end..];
    }
    assert_eq!(svgs.len(), 2, "one timeline per store");
    let mut stripe = None;
    for svg in &svgs {
        let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
        let texts: Vec<String> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text().map(str::to_string))
            .collect();
        if texts.iter().any(|t| t.contains("covers 3.3%")) {
            stripe = Some(texts);
        }
    }
    let texts = stripe.expect("the Stripe store's timeline");
    assert!(
        texts.iter().any(|t| t.starts_with("35d floor")),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.contains("96.7% unguarded")),
        "{texts:?}"
    );
    // each window with its length
    assert!(
        texts.iter().any(|t| t == "automatic retries 3d"),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t == "manual resend 30d"), "{texts:?}");
    // the window's source, in full, as the row's tooltip (and in the table
    // of windows below the picture)
    assert!(
        svgs.iter()
            .any(|svg| svg.contains("<title>https://docs.stripe.com/cli/events/resend")),
        "no full source in the timeline"
    );
    assert!(html.contains(">https://docs.stripe.com/cli/events/resend"));
    assert!(texts.iter().any(|t| t == "3.3% covered"), "{texts:?}");
}

#[test]
fn suppressed_findings_show_with_their_reason_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("db")).unwrap();
    std::fs::write(
        dir.path().join("db/schema.sql"),
        "CREATE TABLE processed_stripe_events (event_id text PRIMARY KEY, received_at timestamptz NOT NULL);\n\
         -- idemlint: allow(ttl-below-replay-horizon) -- replays past a day are reconciled by hand\n\
         DELETE FROM processed_stripe_events WHERE received_at < now() - interval '24 hours';\n",
    )
    .unwrap();
    let run = |extra: &[&str]| -> Value {
        let mut args = vec!["inventory", ".", "--isolated", "--format", "json"];
        args.extend(extra);
        let o = idemlint(dir.path(), &args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let plain = run(&[]);
    let s = store(&plain, "processed_stripe_events");
    assert!(!s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["rule"] == "ttl-below-replay-horizon"));
    let all = run(&["--no-suppressions"]);
    let s = store(&all, "processed_stripe_events");
    let f = s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "ttl-below-replay-horizon")
        .expect("the suppressed finding");
    assert_eq!(f["suppressed"], true);
    assert_eq!(f["reason"], "replays past a day are reconciled by hand");
}

#[test]
fn size_of_the_seed_table_derives_92_40_132_and_6842880000_bytes() {
    let o = idemlint(
        &manifest(),
        &[
            "size",
            "--table",
            "payment_idempotency",
            INCIDENT,
            "--rate",
            "20/s",
            "--days",
            "30",
            "--isolated",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    for line in [
        "tuple header 23, aligned to 8: data starts at 24",
        "33 at 40..73 (32 assumed: a SHA-256 digest, + 1-byte header, not aligned)",
        "pad 2 (align 8), 8 at 80..88",
        "88 + line pointer 4 = 92 bytes of heap a row",
        "tuple header 8 + key 16 = 24, + line pointer 4 = 28",
        "28 / 0.7 fill",
        "bytes a key: 92 + 40 = 132",
        "at 20/s: 20 × 86,400 = 1,728,000 keys a day",
        "30 days (--days): 228,096,000 × 30 = 6,842,880,000 bytes (6.84 GB)",
        "request_hash: 32 bytes, a SHA-256 digest",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    let o = idemlint(
        &manifest(),
        &[
            "size",
            "--table",
            "payment_idempotency",
            INCIDENT,
            "--rate",
            "1200/min",
            "--days",
            "30",
            "--isolated",
            "--format",
            "json",
        ],
    );
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["heap_bytes_per_row"], 92);
    assert_eq!(v["indexes"][0]["name"], "payment_idempotency_pkey");
    assert_eq!(v["indexes"][0]["bytes_per_row"], 40.0);
    assert_eq!(v["bytes_per_key"], 132.0);
    assert_eq!(v["bytes_per_day"], 228_096_000);
    assert_eq!(v["bytes_at_retention"]["bytes"], 6_842_880_000u64);
    assert_eq!(v["assumed"][0]["column"], "request_hash");
}

#[test]
fn size_refuses_unknown_tables_columns_and_rates_with_exit_2() {
    for (args, says) in [
        (
            vec!["--table", "nope", "--rate", "20/s"],
            "tables: payment_idempotency, processed_stripe_events",
        ),
        (
            vec!["--table", "payment_idempotency", "--rate", "20"],
            "--rate `20`",
        ),
        (
            vec![
                "--table",
                "payment_idempotency",
                "--rate",
                "20/s",
                "--assume",
                "body=9",
            ],
            "has no such column",
        ),
        (
            vec![
                "--table",
                "payment_idempotency",
                "--rate",
                "20/s",
                "--assume",
                "key=9",
            ],
            "always 16 bytes",
        ),
    ] {
        let mut all = vec!["size", INCIDENT, "--isolated"];
        all.extend(args);
        let o = idemlint(&manifest(), &all);
        assert_eq!(o.status.code(), Some(2), "{all:?}");
        assert!(stderr(&o).contains(says), "{all:?}: {}", stderr(&o));
    }
}

const CLEANUP: &str = "SELECT cron.schedule('purge', '0 3 * * *', $$DELETE FROM processed_stripe_events WHERE received_at < now() - interval '{}'$$);\n";

#[test]
fn inventory_at_head_1_shows_the_retention_before_the_last_commit_changed_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q"]);
    std::fs::create_dir_all(d.join("db")).unwrap();
    std::fs::write(
        d.join("db/schema.sql"),
        "CREATE TABLE processed_stripe_events (event_id text PRIMARY KEY, received_at timestamptz NOT NULL);\n",
    )
    .unwrap();
    std::fs::write(d.join("db/cleanup.sql"), CLEANUP.replace("{}", "24 hours")).unwrap();
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "keep Stripe events a day"]);
    let before = git(d, &["rev-parse", "HEAD"]).trim().to_string();
    std::fs::write(d.join("db/cleanup.sql"), CLEANUP.replace("{}", "40 days")).unwrap();
    git(
        d,
        &["commit", "-q", "-am", "keep Stripe events past the floor"],
    );
    // An uncommitted edit that neither run may see.
    std::fs::write(d.join("db/cleanup.sql"), CLEANUP.replace("{}", "1 hour")).unwrap();

    let json = |extra: &[&str]| -> Value {
        let mut args = vec!["inventory", "--isolated", "--format", "json"];
        args.extend(extra);
        let o = idemlint(d, &args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let old = json(&["--rev", "HEAD~1"]);
    let s = store(&old, "processed_stripe_events");
    assert_eq!(s["retention"]["seconds"], 86_400);
    assert!((s["coverage"].as_f64().unwrap() - 1.0 / 30.0).abs() < 1e-9);
    assert_eq!(old["revision"]["commit"], before);
    assert_eq!(old["revision"]["rev"], "HEAD~1");
    assert_eq!(old["revision"]["subject"], "keep Stripe events a day");
    assert!(old["revision"]["date"].as_str().unwrap().contains('T'));

    let head = json(&["--rev", "HEAD"]);
    assert_eq!(
        store(&head, "processed_stripe_events")["retention"]["seconds"],
        40 * 86_400
    );
    let work = json(&[]);
    assert_eq!(
        store(&work, "processed_stripe_events")["retention"]["seconds"],
        3_600
    );
    // The work tree is untouched.
    assert!(std::fs::read_to_string(d.join("db/cleanup.sql"))
        .unwrap()
        .contains("1 hour"));

    let o = idemlint(d, &["inventory", "--isolated", "--rev", "HEAD~1"]);
    assert!(
        stdout(&o).contains(&format!("as of commit {}", &before[..12])),
        "{}",
        stdout(&o)
    );

    // `check --rev` reads the same commit and names it.
    let o = idemlint(
        d,
        &["check", "--isolated", "--rev", "HEAD~1", "--format", "json"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains(&before), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["rule"] == "ttl-below-replay-horizon"
            && d["message"].as_str().unwrap().contains("24h")));
    let o = idemlint(d, &["check", "--isolated", "--rev", "no-such-rev"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`no-such-rev` is not a commit"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn writers_and_redis_stores_come_from_the_flow_model_of_the_demo_project() {
    let o = idemlint(
        &manifest(),
        &[
            "inventory",
            "testdata/projects/demo",
            "--isolated",
            "--format",
            "json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let keys = store(&v, "idempotency_keys");
    let writers: Vec<&str> = keys["writers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["function"].as_str().unwrap())
        .collect();
    // the function that runs the INSERT (`create_transfer` calls it)
    assert_eq!(writers, ["transfer"]);
    assert_eq!(keys["scope"][0], "merchant_id");
    let split = store(&v, "refund_idempotency_keys");
    assert_eq!(split["unique_guard"]["state"], "split-by-partition");
    let redis = store(&v, "dedup:stripe:*");
    assert_eq!(redis["kind"], "redis-prefix");
    assert_eq!(redis["unique_guard"]["state"], "none");
    assert_eq!(redis["counterparty"]["id"], "stripe-webhooks");
}
