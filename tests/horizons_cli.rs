//! `idemlint horizons` end to end: the binary prints the catalogue with its
//! sources, as a table and as JSON, and applies the config's entries.

#![allow(clippy::unwrap_used)]
use std::process::Command;

fn idemlint(args: &[&str], dir: &std::path::Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_idemlint"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The JSON entry of one counterparty.
fn counterparty<'a>(v: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    v["counterparties"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap()
}

#[test]
fn horizons_lists_stripe_3_day_and_30_day_windows_with_urls_and_dates() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = idemlint(&["horizons", "--isolated"], dir.path());
    assert_eq!(code, 0);
    let stripe: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("stripe-webhooks (Stripe)"))
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(stripe[0].ends_with("replay horizon 30d, floor 35d"));
    assert!(stripe[1].starts_with("  inbound   3d ") && stripe[1].contains("webhook retries"));
    assert_eq!(
        stripe[2].trim(),
        "https://docs.stripe.com/webhooks/process-undelivered-events"
    );
    assert!(stripe[3].trim().starts_with("read 2026-12-01"));
    assert!(stripe.iter().any(|l| l.starts_with("  inbound   30d ")));
    assert!(out.contains("stripe-api-v1 (Stripe API v1): keys we send only"));
    assert!(out.contains("\n  outbound  24h "));
}

#[test]
fn horizons_fits_in_100_columns_and_wide_gives_one_line_per_window() {
    let dir = tempfile::tempdir().unwrap();
    let (_, out) = idemlint(&["horizons", "--isolated"], dir.path());
    for line in out.lines() {
        // A URL is never broken: a line holding one URL alone may be longer.
        let lone_url = line.trim_start().starts_with("https://") && !line.trim().contains(' ');
        assert!(line.chars().count() <= 100 || lone_url, "{line}");
    }
    let (code, wide) = idemlint(&["horizons", "--isolated", "--wide"], dir.path());
    assert_eq!(code, 0);
    let row = wide
        .lines()
        .find(|l| l.starts_with("adyen-api (Adyen API)"))
        .unwrap();
    for part in [
        "outbound",
        "31d",
        "https://docs.adyen.com/development-resources/api-idempotency/",
        "2026-12-01",
        "\"Idempotency keys are valid for a minimum period of 31 days",
    ] {
        assert!(row.contains(part), "{part}: {row}");
    }
}

#[test]
fn horizons_json_includes_config_counterparties() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(
        dir.path().join("idemlint.toml"),
        "margin = \"7d\"\n[[counterparty]]\nid = \"acme-bank\"\nname = \"Acme Bank\"\nhorizon = \"45d\"\nmatch = [\"acme\"]\nsource = \"Acme transfer API guide\"\n",
    )
    .unwrap();
    let (code, out) = idemlint(&["horizons", "--format", "json"], dir.path());
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["margin_secs"], 7 * 86_400);
    let acme = counterparty(&v, "acme-bank");
    assert_eq!(acme["floor_secs"], 52 * 86_400);
    assert_eq!(acme["windows"][0]["source"], "Acme transfer API guide");
    assert!(acme["windows"][0]["url"].is_null());
    let checkout = counterparty(&v, "checkout-webhooks");
    let w = &checkout["windows"][0];
    assert_eq!(w["direction"], "inbound");
    assert_eq!(
        w["url"],
        "https://www.checkout.com/docs/workflows/retrigger-events"
    );
    assert!(w["quote"]
        .as_str()
        .unwrap()
        .contains("within the last 90 days"));
    assert!(w["read"].as_str().unwrap().starts_with("2026-12-01"));
}

#[test]
fn a_config_outbound_window_is_listed_as_outbound_next_to_the_inbound_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(
        dir.path().join("idemlint.toml"),
        "[[counterparty]]\nid = \"acme-bank\"\nname = \"Acme Bank\"\nhorizon = \"45d\"\noutbound = \"72h\"\nhosts = [\"api.acmebank.example\"]\n",
    )
    .unwrap();
    let (code, out) = idemlint(&["horizons"], dir.path());
    assert_eq!(code, 0);
    let acme: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("acme-bank (Acme Bank)"))
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(
        acme.iter().any(|l| l.starts_with("  inbound   45d ")),
        "{acme:?}"
    );
    assert!(
        acme.iter().any(|l| l.starts_with("  outbound  3d ")),
        "{acme:?}"
    );
    // A counterparty with only an outbound window is valid; one with
    // neither window is a config error (exit 2).
    std::fs::write(
        dir.path().join("idemlint.toml"),
        "[[counterparty]]\nid = \"acme-bank\"\noutbound = \"72h\"\n",
    )
    .unwrap();
    assert_eq!(idemlint(&["horizons"], dir.path()).0, 0);
    std::fs::write(
        dir.path().join("idemlint.toml"),
        "[[counterparty]]\nid = \"acme-bank\"\n",
    )
    .unwrap();
    assert_eq!(idemlint(&["horizons"], dir.path()).0, 2);
}

#[test]
fn a_declared_outbound_window_decides_whether_a_long_retry_is_flagged() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/bank.rs"),
        "use backoff::ExponentialBackoff;\nuse std::time::Duration;\npub async fn pay(http: &reqwest::Client, key: &str) {\n    let policy = ExponentialBackoff { max_elapsed_time: Some(Duration::from_secs(48 * 3600)), ..Default::default() };\n    let _ = backoff::future::retry(policy, || async { http.post(\"https://api.acmebank.example/v1/transfers\").header(\"Idempotency-Key\", key).send().await.map_err(backoff::Error::transient) }).await;\n}\n",
    )
    .unwrap();
    let rules = |toml: &str| {
        std::fs::write(dir.path().join("idemlint.toml"), toml).unwrap();
        let (_, out) = idemlint(&["check", "--format", "json", "."], dir.path());
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["severity"].as_str().unwrap().to_string(),
                    d["message"].as_str().unwrap().to_string(),
                )
            })
            .collect::<Vec<_>>()
    };
    // Unknown counterparty, 48 h > 24 h: a warning.
    let unknown = rules("");
    assert_eq!(unknown.len(), 1, "{unknown:?}");
    assert_eq!(unknown[0].0, "warning");
    // Acme keeps keys 24 h: an error naming both numbers.
    let short = rules("[[counterparty]]\nid = \"acme-bank\"\nname = \"Acme Bank\"\noutbound = \"24h\"\nhosts = [\"acmebank.example\"]\n");
    assert_eq!(short.len(), 1, "{short:?}");
    assert_eq!(short[0].0, "error");
    assert!(
        short[0].1.contains("2d") && short[0].1.contains("Acme Bank keeps keys 24h"),
        "{}",
        short[0].1
    );
    // Acme keeps keys 7 days: nothing.
    let long = rules(
        "[[counterparty]]\nid = \"acme-bank\"\noutbound = \"7d\"\nhosts = [\"acmebank.example\"]\n",
    );
    assert!(long.is_empty(), "{long:?}");
}
