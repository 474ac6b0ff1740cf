//! The per-file time bound: a front end that runs past it on one file gives
//! up on that file with a `parse-error` naming the bound, and the run goes
//! on and reports the rest. Pathological inputs for the parsers that can be
//! slow (a deep SQL expression, a long YAML flow sequence, a giant HCL
//! heredoc, a long Rust expression chain) finish within the default bound;
//! under a tiny bound they give up cleanly, and a planted finding in another
//! file is still reported.

#![allow(clippy::unwrap_used)]
use idemlint::config::FailOn;
use idemlint::fuzzing::check_dir_within;
use std::path::Path;
use std::time::Duration;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

const SLOW: &[&str] = &[
    "migrations/0001_deep.sql",
    "config/flow.yaml",
    "infra/heredoc.tf",
    "src/chain.rs",
];

/// The pathological files (about 1 MB each) and one planted finding.
fn tree(root: &Path) {
    // A flat expression of 120,000 terms: sqlparser builds it left-nested.
    let terms = vec!["1"; 120_000].join(" + ");
    write(
        root,
        SLOW[0],
        &format!(
            "-- idempotency sweep\nSELECT {terms};\nCREATE TABLE idem_a (k text PRIMARY KEY);\n"
        ),
    );
    let items = (0..150_000)
        .map(|i| format!("k{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    write(root, SLOW[1], &format!("idempotency:\n  keys: [{items}]\n"));
    let body = "idempotency line of a heredoc\n".repeat(35_000);
    write(
        root,
        SLOW[2],
        &format!("resource \"null_resource\" \"idempotency\" {{\n  triggers = {{\n    doc = <<EOT\n{body}EOT\n  }}\n}}\n"),
    );
    let chain = ".then(|x| x + 1)".repeat(40_000);
    write(
        root,
        SLOW[3],
        &format!("// idempotency\nfn f() -> Option<u8> {{ Some(1){chain} }}\n"),
    );
    write(
        root,
        "planted/idempotency-redis.conf",
        "# Redis for idempotency keys\nmaxmemory 2gb\nmaxmemory-policy allkeys-lru\n",
    );
}

fn gave_up(outcome: &idemlint::Outcome, path: &str) -> bool {
    outcome.diagnostics.iter().any(|d| {
        d.rule == "parse-error"
            && outcome.sources.path(d.file).ends_with(path)
            && d.message.starts_with("gave up on this file after")
    })
}

fn planted(outcome: &idemlint::Outcome) -> bool {
    outcome.diagnostics.iter().any(|d| {
        d.rule == "evicting-key-store" && outcome.sources.path(d.file).ends_with("redis.conf")
    })
}

#[test]
fn pathological_inputs_finish_within_the_default_bound() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    let outcome = check_dir_within(dir.path(), None).unwrap();
    for path in SLOW {
        assert!(
            !gave_up(&outcome, path),
            "{path} ran past the default bound"
        );
    }
    assert!(outcome.crashed.is_empty(), "{:?}", outcome.crashed);
    assert!(planted(&outcome));
}

#[test]
fn a_file_past_the_bound_is_given_up_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    tree(dir.path());
    // 20 ms (200 ms in this unoptimised build): far below what a 1 MB
    // pathological file takes, far above what the planted one does.
    let outcome = check_dir_within(dir.path(), Some(Duration::from_millis(20))).unwrap();
    let given_up: Vec<&&str> = SLOW.iter().filter(|p| gave_up(&outcome, p)).collect();
    assert!(!given_up.is_empty(), "no file ran past a 20 ms bound");
    for d in outcome
        .diagnostics
        .iter()
        .filter(|d| d.message.starts_with("gave up"))
    {
        let bound = if cfg!(debug_assertions) {
            "200 ms"
        } else {
            "20 ms"
        };
        assert!(d.message.contains(bound), "{}", d.message);
        assert_eq!(
            d.notes,
            vec!["nothing in this file was checked; the other files were".to_string()]
        );
    }
    assert!(planted(&outcome), "the planted finding was lost");
    assert!(outcome.crashed.is_empty());
    assert!(outcome.fails(FailOn::Warning));
}
