//! The CI gate end to end: SARIF validated against the official schema,
//! GitHub / GitLab / JUnit output with hostile paths and messages, the
//! `--format` scheme, human `--quiet` / `--statistics` / `--show-suppressed`,
//! baselines that survive edits, `--staged` and `--changed-since` in real git
//! repositories, `--fix` / `--diff`, and shell completions.

#![allow(clippy::unwrap_used)]
mod support;
use idemlint::diagnostic::{Diagnostic, Edit, Severity};
use idemlint::render::{self, Report, Summary};
use idemlint::source::{FileKind, SourceFile, SourceMap, Span};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::git;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_idemlint"));
    c.current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn idemlint(dir: &Path, args: &[&str]) -> Output {
    run(dir, args, &[])
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// (rule, path) of every finding of a JSON run.
fn findings(o: &Output) -> Vec<(String, String)> {
    let j: Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)));
    support::rule_paths(&j)
}

/// A Stripe client that reads the wrong replay header: one error with a fix.
const STRIPE_CLIENT: &str = "use stripe::Client;\n\npub fn replayed(resp: &reqwest::Response) -> bool {\n    resp.headers().get(\"Idempotency-Replayed\").is_some()\n}\n";

// ---------------------------------------------------------------- SARIF

/// The demo project plus a suppressed finding and a parse error: findings
/// with labels in other files, fixes, suppressions and a notification.
fn sarif_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&manifest().join("testdata/projects/demo"), dir.path());
    write(
        dir.path(),
        "src/legacy client,v1.rs",
        "use stripe::Client;\npub fn r(resp: &reqwest::Response) -> bool {\n    // idemlint: allow(misspelled-idempotency-header) -- the v1 proxy renames it\n    resp.headers().get(\"Idempotency-Replayed\").is_some()\n}\n",
    );
    write(dir.path(), "src/broken.rs", "fn idempotency( {\n");
    dir
}

#[test]
fn sarif_validates_against_the_official_schema_with_labels_fixes_and_suppressions() {
    // The OASIS schema, kept in the repository (tests/data/README.md).
    let schema_path = manifest().join("tests/data/sarif-schema-2.1.0.json");
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(&schema_path)
            .unwrap_or_else(|e| panic!("{}: {e}", schema_path.display())),
    )
    .unwrap();
    let dir = sarif_project();
    let o = idemlint(dir.path(), &["check", "--isolated", "--format", "sarif"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let sarif: Value = serde_json::from_slice(&o.stdout).unwrap();
    // NOTE: the official schema's `run.language` pattern,
    // `^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`, has a stray `]` that
    // ECMAScript reads as a literal and Rust's regex engine refuses, which
    // fails the schema's own `format: regex` check. Escaping it changes no
    // match (and idemlint writes no `language`); nothing else is touched.
    let text = serde_json::to_string(&schema)
        .unwrap()
        .replace("{2}]?$", "{2}\\\\]?$");
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");

    assert_eq!(sarif["version"], "2.1.0");
    let runs = sarif["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "idemlint");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    assert!(driver["informationUri"]
        .as_str()
        .unwrap()
        .starts_with("https://"));
    let rules = driver["rules"].as_array().unwrap();
    for r in rules {
        assert!(r["help"]["markdown"]
            .as_str()
            .unwrap()
            .contains("## What it does"));
        assert!(r["fullDescription"]["text"].is_string());
        assert!(["error", "warning", "note"]
            .contains(&r["defaultConfiguration"]["level"].as_str().unwrap()));
    }
    assert!(run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap()
        .ends_with('/'));
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);

    let results = run["results"].as_array().unwrap();
    for r in results {
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[i]["id"], r["ruleId"]);
        assert!(r["message"]["text"].is_string());
        assert!(r["partialFingerprints"]["primaryLocationLineHash"]
            .as_str()
            .unwrap()
            .starts_with("sha256:"));
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        let region = &loc["region"];
        for k in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(region[k].as_u64().unwrap() >= 1, "{k} in {r}");
        }
    }
    // a label in another file
    assert!(results.iter().any(|r| {
        let own = &r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
        r["relatedLocations"].as_array().is_some_and(|rel| {
            rel.iter().any(|l| {
                l["message"]["text"].is_string()
                    && &l["physicalLocation"]["artifactLocation"]["uri"] != own
            })
        })
    }));
    // a fix
    let fixed = results
        .iter()
        .find(|r| r["fixes"].is_array())
        .expect("a result with a fix");
    let rep = &fixed["fixes"][0]["artifactChanges"][0]["replacements"][0];
    assert!(rep["insertedContent"]["text"].is_string());
    assert!(rep["deletedRegion"]["startLine"].as_u64().unwrap() >= 1);
    // the suppressed finding, with its reason, in a percent-encoded path
    let suppressed: Vec<&Value> = results
        .iter()
        .filter(|r| r["suppressions"].is_array())
        .collect();
    assert_eq!(suppressed.len(), 1);
    assert_eq!(suppressed[0]["suppressions"][0]["kind"], "inSource");
    assert_eq!(
        suppressed[0]["suppressions"][0]["justification"],
        "the v1 proxy renames it"
    );
    assert_eq!(
        suppressed[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "src/legacy%20client%2Cv1.rs"
    );
    // the parse error is a result and a notification
    assert!(results.iter().any(|r| r["ruleId"] == "parse-error"));
    let notes = run["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["descriptor"]["id"], "parse-error");
}

#[test]
fn a_run_that_cannot_be_trusted_still_writes_a_failed_sarif_file_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "idemlint.toml", "bogus = 1\n");
    let o = idemlint(dir.path(), &["check", "--format", "sarif=out.sarif"]);
    assert_eq!(o.status.code(), Some(2));
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out.sarif")).unwrap())
            .unwrap();
    let inv = &sarif["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    assert!(inv["toolExecutionNotifications"][0]["message"]["text"]
        .as_str()
        .unwrap()
        .contains("bogus"));
}

// ------------------------------------------------- hostile text, other formats

/// A finding in a file whose name has a comma and a colon, with a message
/// holding `%`, a newline and XML markup.
fn hostile() -> (SourceMap, Vec<Diagnostic>) {
    let mut sources = SourceMap::default();
    sources.files.push(SourceFile::new(
        "src/a,b:c.rs",
        FileKind::Rust,
        "let k = \"Idempotancy-Key\";\n",
    ));
    let mut d = Diagnostic::new(
        idemlint::diagnostic::RuleId::MisspelledIdempotencyHeader,
        Severity::Warning,
        0,
        Span::new(9, 24),
        "covers 3.3% of the window\nsecond line <b>&\"'</b>\u{1}",
    )
    .with_fix(
        "rename",
        vec![Edit {
            file: 0,
            span: Span::new(9, 24),
            replacement: "Idempotency-Key".to_string(),
        }],
    );
    d.fingerprint = "sha256:00".to_string();
    (sources, vec![d])
}

fn rendered(format: render::OutputFormat) -> String {
    let (sources, diags) = hostile();
    let summary = Summary::default();
    let report = Report {
        diagnostics: &diags,
        suppressed: &[],
        sources: &sources,
        summary: &summary,
        unparsed: None,
        not_read: None,
    };
    let mut out = Vec::new();
    render::write(
        format,
        &report,
        &render::human::Options::default(),
        &mut out,
    )
    .unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn github_annotations_escape_a_comma_in_the_path_and_percent_and_newline_in_the_message() {
    let out = rendered(render::OutputFormat::Github);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.starts_with(
            "::warning file=src/a%2Cb%3Ac.rs,line=1,col=10,endLine=1,endColumn=24,title=misspelled-idempotency-header::covers 3.3%25 of the window%0Asecond line <b>&\"'</b>"
        ),
        "{out}"
    );
}

#[test]
fn gitlab_code_quality_keeps_hostile_text_as_json_strings() {
    let out = rendered(render::OutputFormat::Gitlab);
    let j: Value = serde_json::from_str(&out).unwrap();
    let issue = &j[0];
    assert_eq!(
        issue["description"],
        "covers 3.3% of the window\nsecond line <b>&\"'</b>\u{1}"
    );
    assert_eq!(issue["check_name"], "misspelled-idempotency-header");
    assert_eq!(issue["fingerprint"], "sha256:00");
    assert_eq!(issue["severity"], "minor");
    assert_eq!(issue["location"]["path"], "src/a,b:c.rs");
    assert_eq!(issue["location"]["lines"]["begin"], 1);
}

#[test]
fn junit_is_well_formed_xml_with_one_suite_per_rule() {
    let out = rendered(render::OutputFormat::Junit);
    let doc = roxmltree::Document::parse(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
    let suites: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    let built = idemlint::catalogue::all()
        .iter()
        .filter(|m| m.is_built())
        .count();
    assert_eq!(suites.len(), built);
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert_eq!(
        failure.attribute("message").unwrap(),
        "covers 3.3% of the window\nsecond line <b>&\"'</b>\u{fffd}"
    );
    let case = failure.parent().unwrap();
    assert_eq!(case.attribute("file"), Some("src/a,b:c.rs"));
    assert_eq!(
        case.parent().unwrap().attribute("name"),
        Some("misspelled-idempotency-header")
    );
    // a rule with no finding has one passing case
    let ttl = suites
        .iter()
        .find(|s| s.attribute("name") == Some("ttl-below-replay-horizon"))
        .unwrap();
    assert_eq!(ttl.attribute("failures"), Some("0"));
    assert_eq!(ttl.children().filter(|n| n.is_element()).count(), 1);
}

// ------------------------------------------------------- the --format scheme

#[test]
fn formats_go_to_stdout_or_to_files_and_two_on_stdout_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/stripe.rs", STRIPE_CLIENT);
    let o = idemlint(
        dir.path(),
        &[
            "check",
            "--isolated",
            "--format",
            "json,sarif=out/r.sarif",
            "--format",
            "junit=r.xml",
            "--format=gitlab=cq.json",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(findings(&o).len(), 1);
    for f in ["out/r.sarif", "r.xml", "cq.json"] {
        assert!(dir.path().join(f).is_file(), "{f}");
    }
    let o = idemlint(dir.path(), &["check", "--format", "json,sarif"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("at most one --format"),
        "{}",
        stderr(&o)
    );
    let o = idemlint(dir.path(), &["check", "--format", "xml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown format `xml`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn in_github_actions_annotations_go_to_stdout_and_the_report_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/stripe.rs", STRIPE_CLIENT);
    let o = run(
        dir.path(),
        &["check", "--isolated"],
        &[("GITHUB_ACTIONS", "true")],
    );
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.starts_with("::error file=src/stripe.rs,line=4,"),
        "{out}"
    );
    assert!(stderr(&o).contains(" 1 finding ("), "{}", stderr(&o));
    // a comma in a real path, end to end
    write(dir.path(), "src/a,b.rs", STRIPE_CLIENT);
    let o = idemlint(dir.path(), &["check", "--isolated", "--format", "github"]);
    assert!(
        stdout(&o).contains("::error file=src/a%2Cb.rs,line=4,col=25,endLine=4,endColumn=44,title=misspelled-idempotency-header::"),
        "{}",
        stdout(&o)
    );
    // an explicit format wins
    let o = run(
        dir.path(),
        &["check", "--isolated", "--format", "human"],
        &[("GITHUB_ACTIONS", "true")],
    );
    assert!(!stdout(&o).contains("::error"));
}

// ------------------------------------------------------------ human options

#[test]
fn quiet_statistics_and_show_suppressed() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/stripe.rs", STRIPE_CLIENT);
    write(
        dir.path(),
        "src/old.rs",
        "use stripe::Client;\npub fn r(resp: &reqwest::Response) -> bool {\n    // idemlint: allow(misspelled-idempotency-header) -- the proxy renames it\n    resp.headers().get(\"Idempotency-Replayed\").is_some()\n}\n",
    );
    let o = idemlint(dir.path(), &["check", "--isolated", "--quiet"]);
    assert!(stdout(&o).contains("src/stripe.rs"));
    assert!(!stdout(&o).contains("idemlint: "), "{}", stdout(&o));
    let o = idemlint(dir.path(), &["check", "--isolated", "--statistics"]);
    assert!(
        stdout(&o).starts_with("1  misspelled-idempotency-header  error  (1 fixable)\n"),
        "{}",
        stdout(&o)
    );
    assert!(!stdout(&o).contains("src/stripe.rs"));
    let o = idemlint(dir.path(), &["check", "--isolated"]);
    assert!(!stdout(&o).contains("src/old.rs"));
    let o = idemlint(dir.path(), &["check", "--isolated", "--show-suppressed"]);
    let out = stdout(&o);
    assert!(out.contains("src/old.rs"), "{out}");
    assert!(out.contains("suppressed: "), "{out}");
    assert!(out.contains("(reason: the proxy renames it)"), "{out}");
    assert_eq!(o.status.code(), Some(1));
}

// ----------------------------------------------------------------- baseline

#[test]
fn a_baseline_survives_lines_inserted_above_and_reports_new_findings_only() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "src/stripe.rs", STRIPE_CLIENT);
    let o = idemlint(
        d,
        &[
            "check",
            "--isolated",
            "--write-baseline",
            "idemlint-baseline.json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("wrote 1 finding"), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("idemlint-baseline.json")).unwrap();
    let b: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(b["version"], 1);
    assert_eq!(b["findings"][0]["rule"], "misspelled-idempotency-header");
    assert_eq!(b["findings"][0]["path"], "src/stripe.rs");
    assert!(text.ends_with("}\n"));

    // three lines above, and the finding's own line re-indented
    let moved = format!(
        "// a\n// b\n// c\n{}",
        STRIPE_CLIENT.replace("    resp.headers()", "\t  resp.headers()")
    );
    write(d, "src/stripe.rs", &moved);
    let args = [
        "check",
        "--isolated",
        "--baseline",
        "idemlint-baseline.json",
        "--format",
        "json",
    ];
    let o = idemlint(d, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(findings(&o).is_empty());
    let o = idemlint(d, &args[..4]);
    assert!(
        stdout(&o).contains("1 hidden by the baseline"),
        "{}",
        stdout(&o)
    );

    // a new finding in a new file is reported
    write(d, "src/other.rs", STRIPE_CLIENT);
    let o = idemlint(d, &args);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        findings(&o),
        [(
            "misspelled-idempotency-header".to_string(),
            "src/other.rs".to_string()
        )]
    );

    // fixed: `baseline prune` lists the entry, `--write` drops it
    std::fs::remove_file(d.join("src/other.rs")).unwrap();
    write(
        d,
        "src/stripe.rs",
        &moved.replace("Idempotency-Replayed", "Idempotent-Replayed"),
    );
    let prune = ["baseline", "prune", "idemlint-baseline.json", "--isolated"];
    let o = idemlint(d, &prune);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("src/stripe.rs: misspelled-idempotency-header: "),
        "{}",
        stdout(&o)
    );
    let o = idemlint(d, &[&prune[..], &["--write"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let b: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("idemlint-baseline.json")).unwrap())
            .unwrap();
    assert_eq!(b["findings"].as_array().unwrap().len(), 0);
    assert_eq!(idemlint(d, &prune).status.code(), Some(0));
}

#[test]
fn an_unreadable_baseline_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.json", "{\"findings\": 3}");
    let o = idemlint(dir.path(), &["check", "--isolated", "--baseline", "b.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("b.json: not an idemlint baseline"),
        "{}",
        stderr(&o)
    );
    let o = idemlint(dir.path(), &["check", "--baseline", "missing.json"]);
    assert_eq!(o.status.code(), Some(2));
}

// ----------------------------------------------------------------- git modes

const TTL: &str = "testdata/rules/ttl-below-replay-horizon/flag/src";

/// A repository with a Redis store whose TTL constant is built from
/// constants in another file, and a partitioned event table; committed.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = manifest().join(TTL);
    for f in ["time_consts.rs", "webhooks/stripe.rs"] {
        write(
            d,
            &format!("src/{f}"),
            &std::fs::read_to_string(src.join(f)).unwrap(),
        );
    }
    write(
        d,
        "src/settings.rs",
        "use crate::time_consts::{DAY, HOUR};\n\npub const STRIPE_EVENT_TTL_SECS: u64 = 40 * DAY;\n\npub const SESSION_TTL_SECS: u64 = DAY + HOUR;\n",
    );
    // the fixture's 3-hour PayPal TTL is a finding of its own: keep 40 days
    let stripe = std::fs::read_to_string(d.join("src/webhooks/stripe.rs"))
        .unwrap()
        .replace(
            "3 * 60 * 60).await // expect: ttl-below-replay-horizon",
            "40 * 86_400).await",
        );
    write(d, "src/webhooks/stripe.rs", &stripe);
    write(
        d,
        "migrations/0001_events.sql",
        "CREATE TABLE processed_stripe_events (\n  event_id text NOT NULL,\n  received_at timestamptz NOT NULL DEFAULT now(),\n  PRIMARY KEY (event_id)\n) PARTITION BY LIST (event_id);\n",
    );
    git(d, &["init", "-q"]);
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "init"]);
    dir
}

fn staged(d: &Path) -> Vec<(String, String)> {
    let o = idemlint(d, &["check", "--isolated", "--staged", "--format", "json"]);
    assert!(o.status.code() != Some(2), "{}", stderr(&o));
    findings(&o)
}

#[test]
fn staged_checks_the_index_and_reports_staged_files_judged_against_the_whole_repo() {
    let dir = repo();
    let d = dir.path();
    assert_eq!(idemlint(d, &["check", "--isolated"]).status.code(), Some(0));
    assert!(staged(d).is_empty());

    // a staged Rust change, judged with constants from a committed file
    write(
        d,
        "src/settings.rs",
        "use crate::time_consts::{DAY, HOUR};\n\npub const STRIPE_EVENT_TTL_SECS: u64 = 2 * DAY + 12 * HOUR;\n\npub const SESSION_TTL_SECS: u64 = DAY + HOUR;\n",
    );
    git(d, &["add", "src/settings.rs"]);
    // an unstaged problem, and the staged file edited back in the work tree
    write(d, "src/stripe_client.rs", STRIPE_CLIENT);
    let partially = std::fs::read_to_string(d.join("src/settings.rs"))
        .unwrap()
        .replace("2 * DAY + 12 * HOUR", "40 * DAY");
    write(d, "src/settings.rs", &partially);
    let ttl = (
        "ttl-below-replay-horizon".to_string(),
        "src/settings.rs".to_string(),
    );
    assert_eq!(staged(d), std::slice::from_ref(&ttl));

    // a staged SQL clean-up judged against the committed, partitioned table:
    // no `delete-based-expiry`, which the file alone would get
    write(
        d,
        "db/cleanup.sql",
        "DELETE FROM processed_stripe_events WHERE received_at < now() - interval '40 days';\n",
    );
    let alone = idemlint(
        d,
        &["check", "--isolated", "--format", "json", "db/cleanup.sql"],
    );
    assert_eq!(
        findings(&alone),
        [(
            "delete-based-expiry".to_string(),
            "db/cleanup.sql".to_string()
        )]
    );
    git(d, &["add", "db/cleanup.sql"]);
    assert_eq!(staged(d), std::slice::from_ref(&ttl));

    // a file deleted in the index is gone, even though it is still on disk
    git(d, &["rm", "-q", "--cached", "-f", "src/settings.rs"]);
    assert!(staged(d).is_empty());

    // paths narrow what is reported
    git(d, &["add", "src/settings.rs", "src/stripe_client.rs"]);
    let o = idemlint(
        d,
        &["check", "--isolated", "--staged", "--format", "json", "db"],
    );
    assert!(findings(&o).is_empty(), "{}", stdout(&o));
    let o = idemlint(
        d,
        &["check", "--isolated", "--staged", "--format", "json", "src"],
    );
    assert_eq!(findings(&o).len(), 1, "{}", stdout(&o));
}

#[test]
fn staged_reads_the_index_when_the_work_tree_no_longer_holds_the_blob() {
    let dir = repo();
    let d = dir.path();
    write(d, "src/stripe_client.rs", STRIPE_CLIENT);
    git(d, &["add", "src/stripe_client.rs"]);
    let header = (
        "misspelled-idempotency-header".to_string(),
        "src/stripe_client.rs".to_string(),
    );
    // the finding and the byte it starts at, as a staged run reports them
    let at = || {
        let o = idemlint(d, &["check", "--isolated", "--staged", "--format", "json"]);
        assert_eq!(findings(&o), std::slice::from_ref(&header));
        let j: Value = serde_json::from_slice(&o.stdout).unwrap();
        j["diagnostics"][0]["span"]["byte_start"].as_u64().unwrap()
    };
    // read from the work tree, which holds the staged bytes
    let start = at();
    // gone from the work tree: read from git
    std::fs::remove_file(d.join("src/stripe_client.rs")).unwrap();
    assert_eq!(at(), start);
    // the same text with CRLF line endings is another blob: git's bytes,
    // whose offsets are the LF text's
    write(
        d,
        "src/stripe_client.rs",
        &STRIPE_CLIENT.replace('\n', "\r\n"),
    );
    assert_eq!(at(), start);
    // a directory where the file was: git's
    std::fs::remove_file(d.join("src/stripe_client.rs")).unwrap();
    std::fs::create_dir(d.join("src/stripe_client.rs")).unwrap();
    assert_eq!(at(), start);
}

#[test]
fn a_staged_rust_handler_is_judged_against_the_migrations_in_the_index() {
    let cti = manifest().join("testdata/rules/check-then-insert");
    let read = |p: &str| std::fs::read_to_string(cti.join(p)).unwrap();
    let migration = "migrations/20260301000000_processed_events.sql";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // committed: a dedup table with no unique guard on its key
    write(d, migration, &read(&format!("flag/{migration}")));
    git(d, &["init", "-q"]);
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "table"]);
    // staged: a consumer that checks, then inserts
    write(d, "src/consumer.rs", &read("flag/src/consumer.rs"));
    git(d, &["add", "src/consumer.rs"]);
    let cti = (
        "check-then-insert".to_string(),
        "src/consumer.rs".to_string(),
    );
    // the migration's own finding is not reported: it is not staged
    assert_eq!(staged(d), std::slice::from_ref(&cti));
    // the guard added in the work tree only does not count
    write(d, migration, &read(&format!("pass/{migration}")));
    assert_eq!(staged(d), std::slice::from_ref(&cti));
    let worktree = idemlint(d, &["check", "--isolated", "--format", "json"]);
    assert!(!findings(&worktree).contains(&cti));
    // staged, it does
    git(d, &["add", migration]);
    assert!(staged(d).is_empty());
}

#[test]
fn staged_finds_the_repository_from_a_subdirectory_or_from_the_path_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("repo/docs")).unwrap();
    write(&d.join("repo"), "src/stripe.rs", STRIPE_CLIENT);
    git(&d.join("repo"), &["init", "-q"]);
    git(&d.join("repo"), &["add", "."]);
    let args = ["check", "--isolated", "--staged", "--format", "json"];
    let from = |cwd: &Path, extra: &[&str]| findings(&idemlint(cwd, &[&args[..], extra].concat()));
    let rule = "misspelled-idempotency-header".to_string();
    assert_eq!(
        from(d, &["repo"]),
        [(rule.clone(), "repo/src/stripe.rs".to_string())]
    );
    let docs = d.join("repo/docs");
    assert_eq!(
        from(&docs, &[]),
        [(rule.clone(), "../src/stripe.rs".to_string())]
    );
    // `.` in a subdirectory narrows the report to it
    assert!(from(&docs, &["."]).is_empty());
}

#[test]
fn changed_since_reports_files_changed_since_the_merge_base() {
    let dir = repo();
    let d = dir.path();
    git(d, &["checkout", "-q", "-b", "feature"]);
    write(d, "src/stripe_client.rs", STRIPE_CLIENT);
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "client"]);
    write(
        d,
        "web/replay.ts",
        "const r = res.headers.get('Idempotency-Replayed');\n",
    );
    let o = idemlint(
        d,
        &[
            "check",
            "--isolated",
            "--changed-since",
            "main",
            "--format",
            "json",
        ],
    );
    let paths: Vec<String> = findings(&o).into_iter().map(|f| f.1).collect();
    assert!(
        paths.contains(&"src/stripe_client.rs".to_string()),
        "{paths:?}"
    );
    assert!(paths.iter().all(|p| p != "src/settings.rs"));
    let o = idemlint(
        d,
        &["check", "--isolated", "--changed-since", "no-such-rev"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no-such-rev"), "{}", stderr(&o));
}

#[test]
fn a_revision_is_read_without_touching_the_work_tree() {
    let dir = repo();
    let d = dir.path();
    write(d, "src/stripe_client.rs", STRIPE_CLIENT);
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "client"]);
    std::fs::remove_file(d.join("src/stripe_client.rs")).unwrap();
    let cwd = d.to_path_buf();
    let sel = idemlint::files::Selection::resolve(
        &idemlint::files::Mode::Revision("HEAD".into()),
        &[],
        &cwd,
    )
    .unwrap();
    let cands = sel.discover(&sel.roots(vec![]), &cwd, &[]).unwrap();
    assert!(cands.iter().any(|c| c.display == "src/stripe_client.rs"));
    let err = idemlint::files::Selection::resolve(
        &idemlint::files::Mode::Revision("nope".into()),
        &[],
        &cwd,
    )
    .unwrap_err();
    assert!(err.to_string().contains("`nope` is not a commit"), "{err}");
}

#[test]
fn git_modes_outside_a_repository_exit_2_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/stripe.rs", STRIPE_CLIENT);
    for flag in [&["--staged"][..], &["--changed-since", "main"][..]] {
        let o = idemlint(dir.path(), &[&["check", "--isolated"][..], flag].concat());
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains(&format!("{} needs a git repository", flag[0])),
            "{}",
            stderr(&o)
        );
    }
}

// ---------------------------------------------------------------- fix, diff

#[test]
fn fix_rewrites_the_stripe_header_in_place_and_a_second_run_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "src/stripe.rs", STRIPE_CLIENT);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let p = d.join("src/stripe.rs");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
    }
    let o = idemlint(d, &["check", "--isolated", "--diff"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "--- a/src/stripe.rs\n+++ b/src/stripe.rs\n@@ -1,5 +1,5 @@\n use stripe::Client;\n \n pub fn replayed(resp: &reqwest::Response) -> bool {\n-    resp.headers().get(\"Idempotency-Replayed\").is_some()\n+    resp.headers().get(\"Idempotent-Replayed\").is_some()\n }\n"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("src/stripe.rs")).unwrap(),
        STRIPE_CLIENT
    );

    let o = idemlint(d, &["check", "--isolated", "--fix"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("fixed 1 finding, 0 remain"),
        "{}",
        stderr(&o)
    );
    let fixed = std::fs::read_to_string(d.join("src/stripe.rs")).unwrap();
    assert_eq!(
        fixed,
        STRIPE_CLIENT.replace("Idempotency-Replayed", "Idempotent-Replayed")
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(d.join("src/stripe.rs"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o640);
    }
    assert_eq!(std::fs::read_dir(d.join("src")).unwrap().count(), 1);

    let o = idemlint(d, &["check", "--isolated", "--fix"]);
    assert!(
        stderr(&o).contains("fixed 0 findings, 0 remain"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(d.join("src/stripe.rs")).unwrap(),
        fixed
    );
    let o = idemlint(d, &["check", "--isolated", "--diff"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty());
}

#[test]
fn fix_changes_the_eviction_policy_token_and_reports_what_remains() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&manifest().join("testdata/projects/demo"), dir.path());
    let d = dir.path();
    let before = idemlint(d, &["check", "--isolated", "--format", "json"]);
    let n = findings(&before).len();
    let o = idemlint(d, &["check", "--isolated", "--fix", "--format", "json"]);
    let err = stderr(&o);
    assert!(err.contains("fixed 3 findings"), "{err}");
    assert_eq!(findings(&o).len(), n - 3, "{err}");
    let compose = std::fs::read_to_string(d.join("docker-compose.yml")).unwrap();
    assert!(
        compose.contains("--maxmemory-policy noeviction"),
        "{compose}"
    );
}

// ---------------------------------------------------------------------- init

#[test]
fn init_writes_a_starter_config_with_the_stores_found_and_never_overwrites_unforced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("repo")).unwrap();
    copy_dir(&manifest().join("testdata/projects/demo"), &d.join("repo"));
    let _ = std::fs::remove_file(d.join("repo/idemlint.toml"));
    let o = idemlint(d, &["init", "repo"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("repo/idemlint.toml")).unwrap();
    assert!(
        text.contains(
            "[[store]]\ntable = \"processed_stripe_events\"\ncounterparty = \"stripe-webhooks\"\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("# table `idempotency_keys` (migrations/20260110090000_idempotency.sql:2): no counterparty found"),
        "{text}"
    );
    assert!(text.contains("redis = \"idempotency-redis\""), "{text}");
    // the file is a valid config: a check reads it
    let o = idemlint(&d.join("repo"), &["check"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));

    std::fs::write(d.join("repo/idemlint.toml"), "# mine\n").unwrap();
    let o = idemlint(d, &["init", "repo"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("already exists; `idemlint init --force`"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(d.join("repo/idemlint.toml")).unwrap(),
        "# mine\n"
    );
    let o = idemlint(d, &["init", "repo", "--force"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(std::fs::read_to_string(d.join("repo/idemlint.toml"))
        .unwrap()
        .contains("processed_stripe_events"));
}

// ---------------------------------------------------------------- completions

#[test]
fn completions_are_printed_for_bash_zsh_and_fish() {
    for shell in ["bash", "zsh", "fish"] {
        let o = idemlint(&manifest(), &["completions", shell]);
        assert_eq!(o.status.code(), Some(0));
        let out = stdout(&o);
        assert!(
            out.contains("idemlint") && out.contains("write-baseline"),
            "{shell}"
        );
    }
}
