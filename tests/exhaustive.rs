//! The prefilter may never lose a finding: every directory the fixture
//! harness checks (`testdata/rules/<rule>/flag` and `pass`, and every
//! project of `testdata/projects`) is checked twice, once as a run reads it
//! (prefilter, constants-only reads, reads around words, files held back)
//! and once with every file read whole (`Gate::exhaustive`, the mode of
//! `check --exhaustive` and `IDEMLINT_EXHAUSTIVE=1`). The findings must be
//! the same in full: rule, path, span, severity, message, labels, notes,
//! help and fix.

#![allow(clippy::unwrap_used)]
use idemlint::{check_with, ConfigChoice, Gate, Options};
use std::path::{Path, PathBuf};

fn dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut out = Vec::new();
    for rule in idemlint::catalogue::names() {
        let d = root.join("rules").join(rule);
        for side in ["flag", "pass"] {
            if d.join(side).is_dir() {
                out.push(d.join(side));
            }
        }
    }
    let mut projects: Vec<PathBuf> = std::fs::read_dir(root.join("projects"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    projects.sort();
    out.extend(projects);
    out
}

/// Every finding of a run over `dir`, in full, one string each, in the
/// run's order.
fn findings(dir: &Path, exhaustive: bool) -> Vec<String> {
    let config = if dir.join("idemlint.toml").exists() {
        ConfigChoice::File(dir.join("idemlint.toml"))
    } else {
        ConfigChoice::Isolated
    };
    let opts = Options {
        paths: vec![dir.to_path_buf()],
        stdin: None,
        config,
        no_suppressions: false,
        include_tests: false,
        parse_timeout: None,
    };
    let gate = Gate {
        exhaustive,
        ..Gate::default()
    };
    let outcome = check_with(&opts, &gate).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let path = |f| outcome.sources.path(f).to_string();
    outcome
        .diagnostics
        .iter()
        .map(|d| {
            let labels: Vec<String> = d
                .labels
                .iter()
                .map(|l| {
                    format!(
                        "{}:{}..{} {}",
                        path(l.file),
                        l.span.start,
                        l.span.end,
                        l.message
                    )
                })
                .collect();
            format!(
                "[{}] {:?} {}:{}..{} {}\n    primary: {:?}\n    labels: {labels:?}\n    notes: {:?}\n    help: {:?}\n    fix: {:?}",
                d.rule,
                d.severity,
                path(d.file),
                d.span.start,
                d.span.end,
                d.message,
                d.primary_label,
                d.notes,
                d.help,
                d.fix.as_ref().map(|f| {
                    let edits: Vec<String> = f
                        .edits
                        .iter()
                        .map(|e| {
                            format!(
                                "{}:{}..{} {:?}",
                                path(e.file),
                                e.span.start,
                                e.span.end,
                                e.replacement
                            )
                        })
                        .collect();
                    format!("{} {edits:?}", f.message)
                }),
            )
        })
        .collect()
}

#[test]
fn findings_are_the_same_when_every_file_is_read_whole() {
    let mut failures = Vec::new();
    let mut seen = 0;
    for dir in dirs() {
        let fast = findings(&dir, false);
        let whole = findings(&dir, true);
        seen += whole.len();
        if fast != whole {
            let lost: Vec<&String> = whole.iter().filter(|w| !fast.contains(w)).collect();
            let extra: Vec<&String> = fast.iter().filter(|f| !whole.contains(f)).collect();
            failures.push(format!(
                "{}\n  only when read whole: {lost:#?}\n  only with the prefilter: {extra:#?}",
                dir.display()
            ));
        }
    }
    assert!(seen > 100, "only {seen} findings over the fixtures");
    assert!(
        failures.is_empty(),
        "{} directories differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
