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

#[test]
fn horizons_lists_stripe_3_day_and_30_day_windows_with_sources() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = idemlint(&["horizons", "--isolated"], dir.path());
    assert_eq!(code, 0);
    let stripe: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("stripe-webhooks"))
        .take(4)
        .collect();
    assert!(stripe[0].contains(" 3d ") && stripe[0].contains("docs.stripe.com/webhooks"));
    assert!(
        stripe[3].contains(" 30d ")
            && stripe[3].contains("docs.stripe.com/webhooks/process-undelivered-events")
    );
    assert!(out.contains("stripe-api-v1 (Stripe API v1)"));
    assert!(out.contains("stripe-webhooks: replay horizon 30d"));
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
    let acme = v["counterparties"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "acme-bank")
        .unwrap();
    assert_eq!(acme["floor_secs"], 52 * 86_400);
    assert_eq!(acme["windows"][0]["source"], "Acme transfer API guide");
}
