//! What a user sees for the SQL rules: rendered human output (no colour) of
//! two flag fixtures, so a change in wording or spans shows in review.

#![allow(clippy::unwrap_used)]
use idemlint::{check, ConfigChoice, Options};
use std::path::PathBuf;

fn rendered(rule: &str) -> String {
    let dir = PathBuf::from("testdata/rules").join(rule).join("flag");
    let outcome = check(&Options {
        paths: vec![dir],
        stdin: None,
        config: ConfigChoice::Isolated,
        no_suppressions: false,
    })
    .unwrap();
    let mut out = Vec::new();
    idemlint::render::human::render(
        &outcome.diagnostics,
        &outcome.sources,
        &outcome.summary,
        false,
        &mut out,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    // The summary line carries the elapsed time; the reports are the point.
    text.lines()
        .filter(|l| !l.starts_with("idemlint: "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn partition_split_guard_renders_with_its_explanation() {
    insta::assert_snapshot!(rendered("unique-guard-split-by-partition"));
}

#[test]
fn dropped_and_missing_unique_guards_render_at_the_statement_that_left_them() {
    insta::assert_snapshot!(rendered("missing-unique-key-constraint"));
}
