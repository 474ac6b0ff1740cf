//! What a user sees: the rendered human output, without colour, for a few
//! findings, so a change in wording or spans shows in review. The elapsed
//! time in the summary line is set to 0.
//!
//! After an intended change: `INSTA_UPDATE=always cargo test --test snapshots`
//! (or `cargo insta review`), then commit the `.snap` files.

#![allow(clippy::unwrap_used)]
use idemlint::{check, render, ConfigChoice, Options};

fn human(dir: &str) -> String {
    // Paths are shown relative to the working directory, the crate root.
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut outcome = check(&Options {
        paths: vec![dir.into()],
        stdin: None,
        config: ConfigChoice::Isolated,
        no_suppressions: false,
        include_tests: false,
        parse_timeout: None,
    })
    .unwrap();
    outcome.summary.elapsed_ms = 0;
    let mut out = Vec::new();
    render::human::render(
        &outcome.diagnostics,
        &outcome.sources,
        &outcome.summary,
        false,
        &mut out,
    )
    .unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn stripe_client_reading_the_wrong_replay_header() {
    insta::assert_snapshot!(human("testdata/projects/headers/stripe-client"));
}

#[test]
fn replay_header_spelled_both_ways_across_files() {
    insta::assert_snapshot!(human("testdata/projects/headers/replay-written-wrong"));
}

#[test]
fn unparseable_yaml_is_a_parse_error() {
    insta::assert_snapshot!(human("testdata/projects/parse-error"));
}

#[test]
fn partition_split_guard_renders_with_its_explanation() {
    insta::assert_snapshot!(human("testdata/rules/unique-guard-split-by-partition/flag"));
}

#[test]
fn dropped_and_missing_unique_guards_render_at_the_statement_that_left_them() {
    insta::assert_snapshot!(human("testdata/rules/missing-unique-key-constraint/flag"));
}

/// The cross-module Redis case of `ttl-below-replay-horizon`: the number where
/// it is written, the Redis write as a label, the window's source as help.
#[test]
fn redis_expiry_from_constants_in_another_module_renders_with_label_and_source() {
    insta::assert_snapshot!(human("testdata/rules/ttl-below-replay-horizon/flag/src"));
}

/// The flow rule at a late key write, with labels at the effect and at the
/// commit that comes first, and the claim-first help.
#[test]
fn key_recorded_after_effect_renders_with_the_effect_and_the_commit() {
    insta::assert_snapshot!(human("testdata/rules/key-recorded-after-effect/flag/src"));
}

/// The lines of `out` wider than `limit` columns that are neither a source
/// line, nor the underline drawn under one with its label (a label stays
/// on the line of its underline), nor a line holding a URL (never broken).
pub fn too_wide(out: &str, limit: usize) -> Vec<String> {
    let in_snippet_gutter = |line: &str| {
        line.split_once('|').is_some_and(|(gutter, rest)| {
            let g = gutter.trim();
            g.chars().all(|c| c.is_ascii_digit())
                && !gutter.is_empty()
                && (!g.is_empty() || rest.trim_start().starts_with(['^', '-', '|']))
        })
    };
    out.lines()
        .filter(|l| l.chars().count() > limit)
        .filter(|l| !in_snippet_gutter(l) && !l.contains("://"))
        // a code span to copy is never broken
        .filter(|l| !(l.trim().starts_with('`') && l.trim().ends_with('`')))
        .map(str::to_string)
        .collect()
}

/// A call through a trait object between the lookup and the record: taken
/// for the effect at a warning, and the label says why.
#[test]
fn a_possible_effect_renders_with_the_call_taken_for_the_effect() {
    insta::assert_snapshot!(human("testdata/projects/possible-effect"));
}

/// The demo in full: errors, then warnings, then notes; no line wider than
/// 100 columns but source lines, their underlines and URLs; every headline
/// line under 100.
#[test]
fn demo_project_renders_like_rustc() {
    let out = human("testdata/projects/demo");
    let wide = too_wide(&out, 100);
    assert!(
        wide.is_empty(),
        "wider than 100 columns:\n{}",
        wide.join("\n")
    );
    let mut seen = Vec::new();
    for line in out.lines() {
        for (rank, level) in ["error[", "warning[", "note["].iter().enumerate() {
            if line.starts_with(level) {
                assert!(line.chars().count() < 100, "headline of 100+: {line}");
                seen.push(rank);
            }
        }
    }
    assert!(
        seen.windows(2).all(|w| w[0] <= w[1]),
        "not by severity: {seen:?}"
    );
    assert!(
        !out.contains("= note: line "),
        "a label moved under the report"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn retries_past_the_key_retention_render_with_the_span_the_request_and_the_key() {
    insta::assert_snapshot!(human(
        "testdata/rules/retry-outlives-key-retention/flag/src"
    ));
}

/// The README's output sample is a real capture: its report is a run of
/// consecutive lines of the demo's output, and its summary line is the
/// demo's (the elapsed time aside).
#[test]
fn readme_output_sample_is_a_verbatim_excerpt_of_the_demo_output() {
    let out = human("testdata/projects/demo");
    let readme = std::fs::read_to_string("README.md").unwrap();
    let cmd = "$ idemlint check testdata/projects/demo\n";
    let start = readme.find(cmd).expect("README shows the demo's command") + cmd.len();
    let sample = &readme[start..start + readme[start..].find("\n```").unwrap()];
    let (report, summary) = sample.rsplit_once("\n\n").unwrap();
    assert!(
        report.lines().count() > 10 && out.contains(&format!("{report}\n")),
        "README sample is not a run of the demo's output lines:\n{report}"
    );
    let ms = regex::Regex::new(r", \d+ ms$").unwrap();
    let wanted = out.lines().last().unwrap();
    assert_eq!(
        ms.replace(summary.trim(), ", 0 ms"),
        wanted,
        "README sample's summary line"
    );
}

/// `unscoped-idempotency-key` on tables and on Redis key formats in Rust,
/// TypeScript, Go and Python: a warning where the caller is at hand, a note
/// where it is not.
#[test]
fn unscoped_keys_render_for_tables_and_redis_key_formats() {
    insta::assert_snapshot!(human("testdata/rules/unscoped-idempotency-key/flag"));
}

/// A table written only by a handler that verifies Adyen's HMAC signature
/// takes Adyen's replay window (an error, with a label at the writer); the
/// same table written by code that names no provider stays a note.
#[test]
fn a_writer_that_verifies_adyen_names_the_counterparty_and_an_anonymous_one_does_not() {
    let signed = human("testdata/projects/signed-deliveries");
    let unsigned = human("testdata/projects/unsigned-deliveries");
    insta::assert_snapshot!(format!("{signed}\n---\n{unsigned}"));
}

/// The binary on the demo, at a terminal width: the elapsed time set to 0.
fn run_at(columns: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_idemlint"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("COLUMNS", columns)
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let ms = regex::Regex::new(r", \d+ ms").unwrap();
    ms.replace_all(&text, ", 0 ms").into_owned()
}

/// The demo's report at 80 and 120 columns: notes and help wrap to the
/// width; only source lines, their underlines and URLs pass it.
#[test]
fn demo_output_wraps_to_80_and_120_columns() {
    for (columns, limit) in [("80", 100), ("120", 120)] {
        let out = run_at(columns, &["check", "--isolated", "testdata/projects/demo"]);
        let wide = too_wide(&out, limit);
        assert!(wide.is_empty(), "COLUMNS={columns}:\n{}", wide.join("\n"));
        insta::assert_snapshot!(format!("demo_columns_{columns}"), out);
    }
}

/// `--verbose` names the file the demo does not parse, and why.
#[test]
fn verbose_demo_lists_what_was_not_parsed_and_why() {
    let out = run_at(
        "100",
        &["check", "--isolated", "--verbose", "testdata/projects/demo"],
    );
    assert!(
        out.contains("not parsed: testdata/projects/demo/Cargo.toml: no word of the prefilter"),
        "{out}"
    );
    let tail: Vec<&str> = out.lines().rev().take(2).collect();
    insta::assert_snapshot!(tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
}

/// `inventory` and `horizons` at 80 and 120 columns: no line over 100 but
/// a URL (the inventory's details wrap below its table).
#[test]
fn inventory_and_horizons_fit_100_columns() {
    for columns in ["80", "120"] {
        let inventory = run_at(
            columns,
            &["inventory", "--isolated", "testdata/projects/demo"],
        );
        let wide = too_wide(&inventory, 100);
        assert!(
            wide.is_empty(),
            "inventory, COLUMNS={columns}:\n{}",
            wide.join("\n")
        );
        assert!(
            inventory.contains("2.05 GB at 1 write/s for 35 d"),
            "{inventory}"
        );
        insta::assert_snapshot!(format!("inventory_columns_{columns}"), inventory);
        let horizons = run_at(columns, &["horizons", "--isolated"]);
        let wide = too_wide(&horizons, 100);
        assert!(
            wide.is_empty(),
            "horizons, COLUMNS={columns}:\n{}",
            wide.join("\n")
        );
        insta::assert_snapshot!(format!("horizons_columns_{columns}"), horizons);
    }
}
