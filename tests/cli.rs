//! End-to-end tests of the built binary: exit codes, messages on stderr, the
//! JSON contract (docs/json-output.md, version 1), determinism, colour, the `rules` and
//! `explain` commands, and discovery (.gitignore, hidden files, symlinks).

#![allow(clippy::unwrap_used)]
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod support;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn idemlint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idemlint"))
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("GITHUB_ACTIONS")
        .args(args)
        .output()
        .unwrap()
}

fn with_stdin(dir: &Path, args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_idemlint"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The binary may exit before reading (a usage error): a broken pipe
    // here is expected then.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

const FLAG: &str = "testdata/rules/misspelled-idempotency-header/flag";
const PASS: &str = "testdata/rules/misspelled-idempotency-header/pass";

/// A Rust file with one warning (a near-miss of `Idempotency-Key`).
const WARNING_ONLY: &str =
    "pub fn send(b: reqwest::RequestBuilder, k: &str) -> reqwest::RequestBuilder {\n    b.header(\"Idempotancy-Key\", k)\n}\n";

#[test]
fn a_path_that_does_not_exist_exits_2_with_a_message() {
    let o = idemlint(&manifest(), &["check", "/nonexistent/idemlint-test"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("/nonexistent/idemlint-test: no such file or directory"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn parse_timeout_takes_a_positive_number_of_seconds() {
    for bad in ["0", "-1", "soon", "inf"] {
        let arg = format!("--parse-timeout={bad}");
        let o = idemlint(&manifest(), &["check", "--isolated", &arg, PASS]);
        assert_eq!(o.status.code(), Some(2), "--parse-timeout {bad}");
        assert!(
            stderr(&o).contains("not a positive number of seconds"),
            "{}",
            stderr(&o)
        );
    }
    let o = idemlint(
        &manifest(),
        &["check", "--isolated", "--parse-timeout", "30", PASS],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn a_clean_tree_exits_0() {
    let o = idemlint(&manifest(), &["check", "--isolated", PASS]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains(", no findings"), "{}", stdout(&o));
}

#[test]
fn a_tree_with_a_finding_exits_1_unless_fail_on_never() {
    let o = idemlint(&manifest(), &["check", "--isolated", FLAG]);
    assert_eq!(o.status.code(), Some(1));
    let o = idemlint(
        &manifest(),
        &["check", "--isolated", "--fail-on", "never", FLAG],
    );
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn fail_on_error_with_only_warnings_exits_0_and_fail_on_note_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/client.rs", WARNING_ONLY);
    let o = idemlint(dir.path(), &["check", "--isolated", "--fail-on", "error"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("1 warning"));
    let o = idemlint(dir.path(), &["check", "--isolated", "--fail-on", "note"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn fail_on_in_the_config_applies_when_the_flag_is_absent() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/client.rs", WARNING_ONLY);
    write(dir.path(), "idemlint.toml", "fail_on = \"error\"\n");
    let o = idemlint(dir.path(), &["check"]);
    assert_eq!(o.status.code(), Some(0));
    let o = idemlint(dir.path(), &["check", "--fail-on", "warning"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn a_parse_error_alone_fails_the_default_run_but_not_fail_on_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/lib.rs", "fn idempotency( {\n");
    let o = idemlint(dir.path(), &["check", "--isolated", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let j = json(&o);
    assert_eq!(j["diagnostics"][0]["rule"], "parse-error");
    assert_eq!(j["diagnostics"][0]["severity"], "warning");
    let o = idemlint(dir.path(), &["check", "--isolated", "--fail-on", "error"]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn an_unknown_config_key_exits_2_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/client.rs", WARNING_ONLY);
    write(
        dir.path(),
        "idemlint.toml",
        "fail_on = \"warning\"\nmargn = \"5d\"\n",
    );
    let o = idemlint(dir.path(), &["check"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("idemlint.toml:2"), "{err}");
    assert!(err.contains("margn"), "{err}");
    // --isolated ignores it
    let o = idemlint(dir.path(), &["check", "--isolated"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn stdin_is_read_and_reported_under_the_given_name() {
    let dir = tempfile::tempdir().unwrap();
    let o = with_stdin(
        dir.path(),
        &[
            "check",
            "--isolated",
            "--format",
            "json",
            "-",
            "--stdin-filename",
            "src/x.rs",
        ],
        WARNING_ONLY,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let j = json(&o);
    let d = &j["diagnostics"][0];
    assert_eq!(d["path"], "src/x.rs");
    assert_eq!(d["span"]["start"]["line"], 2);
    assert_eq!(d["span"]["start"]["column"], 15);
}

/// A file over 1 MiB is read again by the worker that parses it (its text
/// is not held while it waits): a finding in one, after a byte-order mark,
/// is reported at the same place, with the same snippet, as when the same
/// text comes on stdin (read once) and as in a small file.
#[test]
fn a_big_file_read_again_by_its_parser_reports_as_one_read_once() {
    let small =
        std::fs::read_to_string(manifest().join(FLAG).join("openapi/payments.yaml")).unwrap();
    let pad_lines = 40_000;
    let mut big = String::from("\u{feff}");
    for i in 0..pad_lines {
        big.push_str(&format!("# padding {i:05}: filler filler filler\n"));
    }
    big.push_str(&small);
    assert!(big.len() > 1 << 20);
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "api/openapi.yaml", &big);
    write(dir.path(), "small/openapi.yaml", &small);
    let args = ["check", "--isolated", "--format", "json"];
    let tree = json(&idemlint(dir.path(), &[&args[..], &["api"]].concat()));
    let read_once = json(&with_stdin(
        dir.path(),
        &[&args[..], &["-", "--stdin-filename", "api/openapi.yaml"]].concat(),
        &big,
    ));
    assert_eq!(tree["diagnostics"], read_once["diagnostics"]);
    let d = &tree["diagnostics"][0];
    assert_eq!(d["rule"], "misspelled-idempotency-header", "{tree}");
    let s = json(&idemlint(dir.path(), &[&args[..], &["small"]].concat()));
    let line = |v: &Value| v["span"]["start"]["line"].as_u64().unwrap();
    assert_eq!(line(d), line(&s["diagnostics"][0]) + pad_lines);
    assert_eq!(
        d["span"]["start"]["column"],
        s["diagnostics"][0]["span"]["start"]["column"]
    );
    let human = stdout(&idemlint(
        dir.path(),
        &["check", "--isolated", "--color", "never", "api"],
    ));
    assert!(human.contains("name: idempotancy-key"), "{human}");
}

/// A Rust file's text is let go after its front end: a file with no
/// keyword, only time constants, whose constants alone are read, and a file
/// parsed in full. A finding or a label shown in one reads the file again.
/// Their diagnostics (after a byte-order mark), suppression comments (one
/// used, one unused) and snippets are the same as when the same files come
/// from the git index, read once and kept.
#[test]
fn rust_files_let_go_report_as_ones_kept() {
    let fixture = manifest().join("testdata/rules/ttl-below-replay-horizon/flag/src");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for f in ["webhooks/stripe.rs", "time_consts.rs"] {
        write(
            d,
            &format!("src/{f}"),
            &std::fs::read_to_string(fixture.join(f)).unwrap(),
        );
    }
    let settings = |allow: &str| {
        write(
            d,
            "src/settings.rs",
            &format!(
                "\u{feff}use crate::time_consts::{{DAY, HOUR}};\n\n{allow}\
                 pub const STRIPE_EVENT_TTL_SECS: u64 = 2 * DAY + 12 * HOUR;\n\n\
                 // idemlint: allow(evicting-key-store) -- nothing here to hide\n\
                 pub const POLL_SECS: u64 = 5;\n"
            ),
        );
        for args in [&["init", "-q"][..], &["add", "."]] {
            let o = Command::new("git")
                .current_dir(d)
                .args(args)
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", stderr(&o));
        }
    };
    let run = |extra: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_idemlint"))
            .current_dir(d)
            .env("IDEMLINT_TIMINGS", "1")
            .args(["check", "--isolated", "--format", "json", extra])
            .output()
            .unwrap();
        let reads = stderr(&o)
            .lines()
            .find_map(|l| {
                l.split_once("read again to show: ")
                    .map(|(_, n)| n.to_string())
            })
            .unwrap();
        (json(&o), reads)
    };
    let rules_in_settings = |j: &Value| -> Vec<String> {
        let all = j["diagnostics"].as_array().unwrap().iter();
        all.filter(|d| d["path"] == "src/settings.rs")
            .map(|d| d["rule"].as_str().unwrap().to_string())
            .collect()
    };

    settings("");
    let (let_go, let_go_reads) = run("src");
    let (kept, kept_reads) = run("--staged");
    assert_eq!(
        let_go_reads, "2",
        "settings.rs and webhooks/stripe.rs are read again to show their lines"
    );
    assert_eq!(kept_reads, "0");
    assert_eq!(kept["diagnostics"], let_go["diagnostics"]);
    assert_eq!(
        rules_in_settings(&let_go),
        ["ttl-below-replay-horizon", "unused-suppression"],
        "{let_go}"
    );
    let d0 = &let_go["diagnostics"][0];
    assert_eq!(d0["path"], "src/settings.rs", "{let_go}");
    assert_eq!(d0["span"]["start"]["line"], 3);
    assert_eq!(d0["span"]["start"]["column"], 40);
    let human = stdout(&idemlint(
        d,
        &["check", "--isolated", "--color", "never", "src"],
    ));
    assert!(
        human.contains("3 | pub const STRIPE_EVENT_TTL_SECS: u64 = 2 * DAY + 12 * HOUR;"),
        "{human}"
    );

    settings("// idemlint: allow(ttl-below-replay-horizon) -- a test service\n");
    let (let_go, let_go_reads) = run("src");
    let (kept, _) = run("--staged");
    assert_eq!(
        let_go_reads, "2",
        "the unused suppression is shown, and the writer model reads \
         webhooks/stripe.rs, which writes the store"
    );
    assert_eq!(kept["diagnostics"], let_go["diagnostics"]);
    assert_eq!(let_go["summary"]["suppressed"], 1, "{let_go}");
    assert_eq!(rules_in_settings(&let_go), ["unused-suppression"]);
}

#[test]
fn stdin_without_a_filename_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let o = with_stdin(dir.path(), &["check", "--isolated", "-"], WARNING_ONLY);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--stdin-filename"), "{}", stderr(&o));
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

fn assert_span(s: &Value) {
    assert_eq!(keys(s), ["byte_end", "byte_start", "end", "start"]);
    for end in ["start", "end"] {
        assert_eq!(keys(&s[end]), ["column", "line"]);
        assert!(s[end]["line"].as_u64().unwrap() >= 1);
        assert!(s[end]["column"].as_u64().unwrap() >= 1);
    }
    assert!(s["byte_start"].as_u64().unwrap() <= s["byte_end"].as_u64().unwrap());
}

#[test]
fn json_output_has_exactly_the_version_1_shape() {
    let o = idemlint(
        &manifest(),
        &["check", "--isolated", "--format", "json", FLAG],
    );
    let j = json(&o);
    assert_eq!(keys(&j), ["diagnostics", "summary", "tool", "version"]);
    assert_eq!(j["version"], 1);
    assert_eq!(keys(&j["tool"]), ["name", "version"]);
    assert_eq!(j["tool"]["name"], "idemlint");
    assert_eq!(j["tool"]["version"], env!("CARGO_PKG_VERSION"));
    let diags = j["diagnostics"].as_array().unwrap();
    assert!(!diags.is_empty());
    let mut labelled = 0;
    for d in diags {
        assert_eq!(
            keys(d),
            [
                "fingerprint",
                "fix",
                "help",
                "label",
                "labels",
                "message",
                "notes",
                "path",
                "rule",
                "severity",
                "span"
            ]
        );
        assert!(["error", "warning", "note"].contains(&d["severity"].as_str().unwrap()));
        let path = d["path"].as_str().unwrap();
        assert!(path.starts_with(FLAG) && !path.contains('\\'), "{path}");
        assert_span(&d["span"]);
        assert!(d["help"].is_string() || d["help"].is_null());
        assert!(d["fix"].is_object() || d["fix"].is_null());
        for l in d["labels"].as_array().unwrap() {
            labelled += 1;
            assert_eq!(keys(l), ["message", "path", "span"]);
            assert_span(&l["span"]);
        }
    }
    assert!(labelled > 0);
    let s = &j["summary"];
    assert_eq!(
        keys(s),
        [
            "diagnostics",
            "elapsed_ms",
            "errors",
            "files_parsed",
            "files_scanned",
            "files_unparsed",
            "notes",
            "statements_unparsed",
            "stores",
            "suppressed",
            "warnings"
        ]
    );
    assert_eq!(s["diagnostics"].as_u64().unwrap() as usize, diags.len());
    let count = |sev: &str| diags.iter().filter(|d| d["severity"] == sev).count() as u64;
    assert_eq!(s["errors"], count("error"));
    assert_eq!(s["warnings"], count("warning"));
    assert_eq!(s["notes"], count("note"));
}

#[test]
fn output_is_identical_run_to_run() {
    let run = || {
        let mut j = json(&idemlint(
            &manifest(),
            &["check", "--isolated", "--format", "json", "testdata"],
        ));
        j["summary"]["elapsed_ms"] = Value::Null;
        j
    };
    let first = run();
    for _ in 0..3 {
        assert_eq!(run(), first);
    }
    // sorted by (path, start)
    let diags = first["diagnostics"].as_array().unwrap();
    let order: Vec<(String, u64)> = diags
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_string(),
                d["span"]["byte_start"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
}

#[test]
fn fingerprints_are_sha256_and_survive_lines_added_above() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/client.rs", WARNING_ONLY);
    let fp = |dir: &Path| -> String {
        let j = json(&idemlint(dir, &["check", "--isolated", "--format", "json"]));
        j["diagnostics"][0]["fingerprint"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let before = fp(dir.path());
    let hex = before.strip_prefix("sha256:").unwrap();
    assert_eq!(hex.len(), 64);
    assert!(hex
        .chars()
        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    write(
        dir.path(),
        "src/client.rs",
        &format!("//! Client.\n\nuse std::fmt;\n\n{WARNING_ONLY}"),
    );
    assert_eq!(fp(dir.path()), before);
}

#[test]
fn no_color_and_color_never_produce_no_escape_codes() {
    let o = Command::new(env!("CARGO_BIN_EXE_idemlint"))
        .current_dir(manifest())
        .env("NO_COLOR", "1")
        .args(["check", "--isolated", FLAG])
        .output()
        .unwrap();
    assert!(!stdout(&o).is_empty());
    assert!(!stdout(&o).contains('\u{1b}'));
    let o = idemlint(
        &manifest(),
        &["check", "--isolated", "--color", "never", FLAG],
    );
    assert!(!stdout(&o).contains('\u{1b}'));
    // Notes are a custom report kind, which ariadne colours unasked.
    let notes = "testdata/rules/delete-based-expiry/flag";
    let o = idemlint(
        &manifest(),
        &["check", "--isolated", "--color", "never", notes],
    );
    assert!(stdout(&o).contains("note:"), "{}", stdout(&o));
    assert!(!stdout(&o).contains('\u{1b}'));
    let o = idemlint(
        &manifest(),
        &["check", "--isolated", "--color", "always", FLAG],
    );
    assert!(stdout(&o).contains('\u{1b}'));
}

#[test]
fn rules_lists_every_catalogue_rule_and_marks_planned_ones() {
    let o = idemlint(&manifest(), &["rules"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    for m in idemlint::catalogue::all() {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(m.name.as_str()))
            .unwrap_or_else(|| panic!("{} missing from `rules`", m.name));
        assert_eq!(line.ends_with("(planned)"), !m.is_built(), "{line}");
        assert!(line.contains(&m.default_severity));
    }
    let j = json(&idemlint(&manifest(), &["rules", "--format", "json"]));
    let rows = j.as_array().unwrap();
    assert_eq!(rows.len(), idemlint::catalogue::all().len());
    for (row, m) in rows.iter().zip(idemlint::catalogue::all()) {
        assert_eq!(keys(row), ["default_severity", "name", "status", "summary"]);
        assert_eq!(row["name"], m.name.as_str());
        assert_eq!(
            row["status"],
            if m.is_built() { "built" } else { "planned" }
        );
    }
}

#[test]
fn explain_prints_the_fixed_headings() {
    let o = idemlint(&manifest(), &["explain", "misspelled-idempotency-header"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(
        headings,
        [
            "# misspelled-idempotency-header",
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "## Use instead",
            "## References"
        ]
    );
}

#[test]
fn explain_of_an_unknown_rule_exits_2_listing_the_names() {
    let o = idemlint(&manifest(), &["explain", "bogus"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("unknown rule `bogus`"));
    assert!(!err.contains("did you mean"), "{err}");
    for name in idemlint::catalogue::names() {
        assert!(err.contains(name), "{name}");
    }
}

/// A Rust file that reads Stripe's replay header under the wrong name.
const FINDING: &str = "use stripe::Client;\nfn r(resp: &reqwest::Response) -> bool {\n    resp.headers().get(\"Idempotency-Replayed\").is_some()\n}\n";

fn paths_reported(dir: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["check", "--isolated", "--format", "json"];
    all.extend_from_slice(args);
    let j = json(&idemlint(dir, &all));
    let mut p: Vec<String> = j["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_string())
        .collect();
    p.sort();
    p.dedup();
    p
}

#[test]
fn gitignored_files_and_hidden_dirs_are_skipped_but_env_files_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "target/\ngenerated.rs\n");
    write(root, "src/client.rs", FINDING);
    write(root, "target/debug/build/out.rs", FINDING);
    write(root, "generated.rs", FINDING);
    write(root, ".cache/client.rs", FINDING);
    write(root, ".env", "IDEMPOTENCY_HEADER=Idempotency_Key\n");
    write(
        root,
        "deploy/.env.production",
        "IDEMPOTENCY_HEADER=Idempotency_Key\n",
    );
    assert_eq!(
        paths_reported(root, &[]),
        [".env", "deploy/.env.production", "src/client.rs"]
    );
    // An explicit file argument is always read, ignored or not.
    assert_eq!(paths_reported(root, &["generated.rs"]), ["generated.rs"]);
    assert_eq!(
        paths_reported(root, &[".cache/client.rs"]),
        [".cache/client.rs"]
    );
}

#[cfg(unix)]
#[test]
fn symlinks_are_not_followed_in_a_walk() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    write(&root, "src/client.rs", FINDING);
    write(&dir.path().join("outside"), "client.rs", FINDING);
    std::os::unix::fs::symlink(dir.path().join("outside"), root.join("linked")).unwrap();
    std::os::unix::fs::symlink(root.join("src/client.rs"), root.join("alias.rs")).unwrap();
    std::os::unix::fs::symlink(&root, root.join("loop")).unwrap();
    let o = idemlint(&root, &["check", "--isolated", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(paths_reported(&root, &[]), ["src/client.rs"]);
    // named explicitly, a link to a file is read
    assert_eq!(paths_reported(&root, &["alias.rs"]), ["alias.rs"]);
}

/// `check --format json .` in `dir`, which must pass with no diagnostic.
fn clean_run_json(dir: &Path) -> Value {
    let o = idemlint(dir, &["check", "--isolated", "--format", "json", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let j = json(&o);
    assert_eq!(j["diagnostics"].as_array().unwrap().len(), 0);
    j
}

#[test]
fn an_unparseable_statement_away_from_stores_is_counted_not_reported() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "migrations/0001_init.sql",
        "CREATE TABLE idempotency_keys (idempotency_key text PRIMARY KEY, request_hash bytea NOT NULL);\n\
         CREATE FROBNICATOR reports_refresher EVERY 5 MINUTES;\n",
    );
    let j = clean_run_json(dir.path());
    assert_eq!(j["summary"]["statements_unparsed"], 1);
    let o = idemlint(
        dir.path(),
        &["check", "--isolated", "--color", "never", "."],
    );
    assert!(
        // the summary wraps to the width
        stdout(&o)
            .replace('\n', " ")
            .contains("1 statement not parsed, none of them touching an idempotency store"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn the_demo_project_shows_every_built_rule_that_reads_the_model() {
    let o = idemlint(
        &manifest(),
        &[
            "check",
            "--isolated",
            "--format",
            "json",
            "testdata/projects/demo",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let j = json(&o);
    let rules: std::collections::BTreeSet<&str> = j["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    for (name, _) in idemlint::rules::BUILT {
        assert!(
            rules.contains(name.as_str()),
            "the demo shows no `{name}`: {rules:?}"
        );
    }
}

#[test]
fn a_byte_order_mark_counts_as_one_character_and_spans_stay_byte_offsets() {
    let dir = tempfile::tempdir().unwrap();
    // The BOM is U+FEFF: 3 bytes, one Unicode scalar value.
    let text = "\u{feff}use stripe::Client;\nfn r(resp: &reqwest::Response) -> bool { resp.headers().get(\"Idempotency-Replayed\").is_some() }\nconst H: &str = \"Idempotancy-Key\"; const X: &str = \"\";\n";
    write(dir.path(), "src/c.rs", text);
    write(
        dir.path(),
        "src/first.rs",
        "\u{feff}const K: &str = \"Idempotancy-Key\";\n",
    );
    let o = idemlint(
        dir.path(),
        &["check", "--isolated", "--format", "json", "."],
    );
    let j = json(&o);
    let d = j["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["path"] == "src/first.rs")
        .unwrap()
        .clone();
    // The BOM is column 1 and `const K: &str = "` the next 17 characters.
    assert_eq!(d["span"]["start"]["line"], 1);
    assert_eq!(d["span"]["start"]["column"], 19);
    let start = d["span"]["byte_start"].as_u64().unwrap() as usize;
    let file = std::fs::read(dir.path().join("src/first.rs")).unwrap();
    assert_eq!(
        &file[start..start + "Idempotancy-Key".len()],
        b"Idempotancy-Key"
    );
}

/// Test code (a `tests/` file, a `#[cfg(test)]` module) is left alone by the
/// retention rule unless `--include-tests` or `tests = true` asks for it;
/// until then, the words in it do not send a Rust file to the parser. A
/// rust-bindgen module is never read.
#[test]
fn test_code_is_judged_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let short = "use redis::AsyncCommands;\npub async fn f(c: &mut redis::aio::MultiplexedConnection) -> redis::RedisResult<()> {\n    c.set_ex(\"idem:stripe:evt\", 1, 60).await\n}\n";
    write(root, "tests/expiry.rs", short);
    write(
        root,
        "src/lib.rs",
        &format!("#[cfg(test)]\nmod t {{\n{short}}}\n"),
    );
    write(
        root,
        "src/sys.rs",
        "/* automatically generated by rust-bindgen 0.72.1 */\n\npub const XFRM_REPLAY_UPDATE: u32 = 1;\npub const IDEMPOTENCY_TTL_SECS: u32 = 60;\n",
    );
    let count = |o: &Output| json(o)["diagnostics"].as_array().unwrap().len();
    let parsed = |o: &Output| json(o)["summary"]["files_parsed"].as_u64().unwrap();
    let o = idemlint(root, &["check", "--isolated", "--format", "json", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(count(&o), 0);
    assert_eq!(parsed(&o), 0);
    let o = idemlint(
        root,
        &[
            "check",
            "--isolated",
            "--include-tests",
            "--format",
            "json",
            ".",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(count(&o), 2);
    assert_eq!(parsed(&o), 2);
    write(root, "idemlint.toml", "tests = true\n");
    let o = idemlint(root, &["check", "--format", "json", "."]);
    assert_eq!(count(&o), 2, "{}", stdout(&o));
    // A file named on the command line is judged by its own path.
    let o = idemlint(
        root,
        &["check", "--isolated", "--format", "json", "tests/expiry.rs"],
    );
    assert_eq!(count(&o), 0);
}

#[test]
fn a_template_that_does_not_read_is_counted_and_listed_with_verbose() {
    let dir = tempfile::tempdir().unwrap();
    // Both branches of the `if` are kept, and together they are no YAML.
    write(
        dir.path(),
        "charts/api/templates/configmap.yaml",
        "apiVersion: v1\nkind: ConfigMap\ndata:\n{{- if .Values.idempotency.list }}\n  - a\n{{- else }}\n  idempotency: on\n{{- end }}\n",
    );
    write(
        dir.path(),
        "tsconfig.json",
        "{\n  // idempotency client paths\n  \"include\": [\"src/idempotency\",],\n}\n",
    );
    let j = clean_run_json(dir.path());
    assert_eq!(j["summary"]["files_unparsed"], 1);
    assert!(j.get("unparsed").is_none(), "listed only with --verbose");

    let o = idemlint(
        dir.path(),
        &["check", "--isolated", "--format", "json", "--verbose", "."],
    );
    let j = json(&o);
    let list = j["unparsed"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{list:#?}");
    assert_eq!(list[0]["path"], "charts/api/templates/configmap.yaml");
    assert!(list[0]["message"].as_str().unwrap().contains("Go template"));

    let o = idemlint(
        dir.path(),
        &["check", "--isolated", "--color", "never", "."],
    );
    let out = stdout(&o);
    assert!(out.contains("1 file not read in full"), "{out}");
    assert!(out.contains("--verbose lists them"), "{out}");
    let o = idemlint(
        dir.path(),
        &["check", "--isolated", "--color", "never", "-v", "."],
    );
    assert!(
        stdout(&o).contains("not read in full: charts/api/templates/configmap.yaml:"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn malformed_and_unknown_suppressions_are_reported_each_with_its_own_message() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "migrations/0001.sql",
        "-- idemlint: allow -- no rule\nCREATE TABLE a (id int);\n\
         -- idemlint: alow(missing-request-fingerprint) -- typo\nCREATE TABLE b (id int);\n\
         -- idemlint: allow(ttl-below-replay-horzon) -- misspelt rule\nCREATE TABLE c (id int);\n\
         -- idemlint: allow(missing-request-fingerprint) -- nothing here\nCREATE TABLE d (id int);\n\
         -- idemlint: the tool we use for idempotency checks\n",
    );
    let o = idemlint(dir.path(), &["check", "--isolated", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let j = json(&o);
    let found: Vec<(u64, String, String)> = j["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["rule"], "unused-suppression");
            (
                d["span"]["start"]["line"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_string(),
                d["help"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let lines: Vec<u64> = found.iter().map(|f| f.0).collect();
    assert_eq!(
        lines,
        [1, 3, 5, 7],
        "prose that mentions idemlint is no suppression"
    );
    assert_eq!(found[0].1, "suppression names no rule");
    assert_eq!(found[1].1, "`alow` is not a suppression directive");
    assert_eq!(
        found[2].1,
        "suppression names an unknown rule `ttl-below-replay-horzon`"
    );
    assert_eq!(found[2].2, "did you mean `ttl-below-replay-horizon`?");
    assert_eq!(
        found[3].1,
        "suppression of `missing-request-fingerprint` suppresses nothing"
    );
    let helps: std::collections::BTreeSet<&str> = found.iter().map(|f| f.2.as_str()).collect();
    assert_eq!(helps.len(), 4, "each kind has its own help: {helps:?}");
}

#[test]
fn an_unknown_rule_name_suggests_the_closest_in_explain_and_in_the_config() {
    let o = idemlint(&manifest(), &["explain", "misspeled-idempotency-header"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean `misspelled-idempotency-header`?"),
        "{}",
        stderr(&o)
    );
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "idemlint.toml",
        "[rules]\ndelete-based-expiri = \"off\"\n",
    );
    write(dir.path(), "src/lib.rs", WARNING_ONLY);
    let o = idemlint(dir.path(), &["check"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("idemlint.toml:2"), "{err}");
    assert!(err.contains("did you mean `delete-based-expiry`?"), "{err}");
}

#[test]
fn explain_prints_json_with_the_docs_under_their_headings() {
    let o = idemlint(
        &manifest(),
        &["explain", "ttl-below-replay-horizon", "--format", "json"],
    );
    assert_eq!(o.status.code(), Some(0));
    let j = json(&o);
    assert_eq!(j["name"], "ttl-below-replay-horizon");
    assert_eq!(j["status"], "built");
    for key in ["what_it_does", "why_is_this_bad", "example", "use_instead"] {
        assert!(!j["docs"][key].as_str().unwrap().is_empty(), "{key}");
    }
    assert!(!j["docs"]["references"].as_array().unwrap().is_empty());
}

#[test]
fn stdin_filename_without_a_dash_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/lib.rs", WARNING_ONLY);
    let o = with_stdin(
        dir.path(),
        &["check", "--isolated", "--stdin-filename", "src/lib.rs"],
        WARNING_ONLY,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("`-`"), "{}", stderr(&o));
}

#[test]
fn two_config_files_in_one_directory_are_an_error_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "idemlint.toml", "fail_on = \"error\"\n");
    write(dir.path(), ".idemlint.toml", "fail_on = \"note\"\n");
    write(dir.path(), "src/lib.rs", WARNING_ONLY);
    let o = idemlint(dir.path(), &["check"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("/idemlint.toml and ") && err.contains("/.idemlint.toml are both"),
        "{err}"
    );
}

#[test]
fn nothing_to_read_is_said_plainly_and_never_a_clean_pass() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "vendor/lib.rs", WARNING_ONLY);
    write(dir.path(), "idemlint.toml", "exclude = [\"vendor/**\"]\n");
    let o = idemlint(dir.path(), &["check", "vendor"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing to check"), "{}", stderr(&o));
    let empty = tempfile::tempdir().unwrap();
    let o = idemlint(empty.path(), &["check", "--isolated"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nothing to check"));
}

#[test]
fn the_summary_says_how_many_stores_were_found() {
    let o = idemlint(
        &manifest(),
        &["check", "--isolated", "testdata/projects/demo"],
    );
    let last = stdout(&o).lines().last().unwrap_or_default().to_string();
    // the stores come first; the findings' count is the JSON summary's
    let doc = json(&idemlint(
        &manifest(),
        &[
            "check",
            "--isolated",
            "--format",
            "json",
            "testdata/projects/demo",
        ],
    ));
    let findings = doc["summary"]["diagnostics"].as_u64().unwrap();
    assert_eq!(doc["summary"]["stores"], 5);
    assert!(
        last.starts_with(&format!("idemlint: 5 stores, {findings} findings")),
        "{last}"
    );
    let o = idemlint(
        &manifest(),
        &[
            "check",
            "--isolated",
            "--format",
            "json",
            "testdata/projects/demo",
        ],
    );
    assert_eq!(json(&o)["summary"]["stores"], 5);
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "src/lib.rs",
        "pub fn add(a: u8, b: u8) -> u8 { a + b }\n",
    );
    let o = idemlint(dir.path(), &["check", "--isolated"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("idemlint: 0 stores, no findings"),
        "{}",
        stdout(&o)
    );
}

/// The `--timings` line about Rust files held back for their retries:
/// (held, parsed), or `None` when none was.
fn held(o: &Output) -> Option<(usize, usize)> {
    timings_pair(
        o,
        "held back (Rust for its retries, TypeScript with no word): ",
        ", parsed: ",
    )
}

/// The two counts of a `--timings` line: after `first`, and after `then`.
fn timings_pair(o: &Output, first: &str, then: &str) -> Option<(usize, usize)> {
    stderr(o).lines().find_map(|l| {
        let rest = l.split_once(first)?.1;
        let (a, rest) = rest.split_once(then)?;
        let b = rest.split_whitespace().next()?;
        Some((a.parse().ok()?, b.parse().ok()?))
    })
}

/// `idemlint check --format json .` in `dir` with every file read whole.
fn exhaustive_run(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idemlint"))
        .current_dir(dir)
        .env("IDEMLINT_EXHAUSTIVE", "1")
        .args(["check", "--isolated", "--format", "json", "."])
        .output()
        .unwrap()
}

fn timed(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_idemlint"))
        .current_dir(dir)
        .env("IDEMLINT_TIMINGS", "1")
        .args(["check", "--isolated", "--format", "json", "."])
        .output()
        .unwrap()
}

/// A payout job whose only word is its retry crate's: it charges, then calls
/// the code that records the key.
const PAYOUT_JOB: &str = "use crate::keys::record_key;\nuse backoff::ExponentialBackoff;\nuse stripe::{CreatePayout, Payout};\n\npub async fn run_payout(pool: &PgPool, stripe: &stripe::Client, job: &PayoutJob) -> Result<(), Error> {\n    Payout::create(stripe, CreatePayout::from(job)).await?;\n    record_key(pool, &job.reference).await?;\n    Ok(())\n}\n\npub fn policy() -> ExponentialBackoff {\n    ExponentialBackoff::default()\n}\n";

#[test]
fn a_file_held_for_its_retries_is_parsed_only_when_the_rest_can_use_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "src/payout_job.rs", PAYOUT_JOB);
    // The code that records a payout, in `table`; the file is parsed for
    // the word in its last function.
    let keys = |table: &str| {
        format!(
            "pub async fn record_key(pool: &PgPool, key: &str) -> Result<(), sqlx::Error> {{\n    sqlx::query(\"INSERT INTO {table} (key) VALUES ($1)\")\n        .bind(key)\n        .execute(pool)\n        .await?;\n    Ok(())\n}}\n\npub fn idempotent_note() -> &'static str {{\n    \"ok\"\n}}\n"
        )
    };
    write(d, "src/keys.rs", &keys("payout_log"));

    // No store and no keyed request: the job is not parsed, and not counted.
    let o = timed(d);
    assert_eq!(held(&o), Some((1, 0)), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["summary"]["files_parsed"], 1, "{j}");
    assert!(support::rule_paths(&j).is_empty(), "{j}");

    // The code records the key in a store: the job's function now leads to
    // the recording, after its charge.
    write(d, "src/keys.rs", &keys("idempotency_keys"));
    let o = timed(d);
    assert_eq!(held(&o), Some((1, 1)), "{}", stderr(&o));
    let j = json(&o);
    assert!(
        support::rule_paths(&j)
            .iter()
            .any(|(r, _)| r == "key-recorded-after-effect"),
        "{j}"
    );
}

#[test]
fn a_file_held_for_its_retries_is_read_for_the_store_it_reaches_not_for_one_elsewhere() {
    // A Redis key named for a store: the held job calls the function that
    // sets it, so the job is parsed after the first look and its charge
    // before the recording is reported.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "src/payout_job.rs", PAYOUT_JOB);
    write(
        d,
        "src/keys.rs",
        "pub async fn record_key(con: &mut redis::aio::MultiplexedConnection, key: &str) -> redis::RedisResult<()> {\n    let k = format!(\"idem:payout:{}\", key);\n    let _: () = redis::cmd(\"SET\").arg(&k).arg(\"1\").arg(\"NX\").arg(\"EX\").arg(86400).query_async(con).await?;\n    Ok(())\n}\n",
    );
    // A retry job of another crate, which names nothing the store's code
    // calls or is called by: a store in the tree is no reason to read it.
    write(
        d,
        "reports/Cargo.toml",
        "[package]\nname = \"reports\"\nversion = \"0.1.0\"\n",
    );
    write(
        d,
        "reports/src/export.rs",
        "use backoff::ExponentialBackoff;\n\npub async fn export_report(client: &reqwest::Client, url: &str) -> Result<(), reqwest::Error> {\n    client.get(url).send().await?;\n    Ok(())\n}\n\npub fn policy() -> ExponentialBackoff {\n    ExponentialBackoff::default()\n}\n",
    );
    let o = timed(d);
    assert_eq!(held(&o), Some((2, 1)), "{}", stderr(&o));
    assert!(stderr(&o).contains("model-first"), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["summary"]["files_parsed"], 2, "{j}");
    assert!(
        support::rule_paths(&j)
            .iter()
            .any(|(r, _)| r == "key-recorded-after-effect"),
        "{j}"
    );
    // Every file read whole finds the same.
    let exhaustive = json(&exhaustive_run(d));
    assert_eq!(support::rule_paths(&exhaustive), support::rule_paths(&j));
}

/// A retry delay read in the wrong unit, in a client's options.
const UNIT_SLIP: &str = "use std::time::Duration;\n\npub struct RetryConfig {\n    pub retry_delay_ms: u64,\n}\n\npub fn first_retry(c: &RetryConfig) -> Duration {\n    Duration::from_secs(c.retry_delay_ms)\n}\n";

#[test]
fn a_unit_slip_is_judged_in_the_packages_that_hold_keys_not_in_one_beside_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let manifest = |name: &str| format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\n");
    // A service whose code records keys in Redis and calls a sibling
    // package's pacing; the same slip in the service, in that sibling and
    // in a vendored client nothing of the service calls.
    write(d, "svc/Cargo.toml", &manifest("svc"));
    write(
        d,
        "svc/src/keys.rs",
        "pub async fn record_key(con: &mut redis::aio::MultiplexedConnection, key: &str) -> redis::RedisResult<()> {\n    ledger_retry::pace().await;\n    let k = format!(\"idem:payout:{}\", key);\n    let _: () = redis::cmd(\"SET\").arg(&k).arg(\"1\").arg(\"NX\").arg(\"EX\").arg(86400).query_async(con).await?;\n    Ok(())\n}\n",
    );
    write(d, "svc/src/retry_config.rs", UNIT_SLIP);
    write(d, "libs/ledger-retry/Cargo.toml", &manifest("ledger-retry"));
    write(
        d,
        "libs/ledger-retry/src/lib.rs",
        &format!("{UNIT_SLIP}\npub async fn pace() {{}}\n"),
    );
    write(
        d,
        "vendor/ledger-client/Cargo.toml",
        &manifest("ledger-client"),
    );
    write(d, "vendor/ledger-client/src/lib.rs", UNIT_SLIP);
    let slips = |o: &Output| {
        let j = json(o);
        let mut paths: Vec<String> = support::rule_paths(&j)
            .into_iter()
            .filter(|(r, _)| r == "retry-outlives-key-retention")
            .map(|(_, p)| p)
            .collect();
        paths.sort();
        paths
    };
    let o = timed(d);
    let found = slips(&o);
    assert_eq!(
        found,
        ["libs/ledger-retry/src/lib.rs", "svc/src/retry_config.rs"],
        "{}",
        stderr(&o)
    );
    // Every file read whole finds the same.
    assert_eq!(slips(&exhaustive_run(d)), found);
    // One manifest over all: one package, which holds keys.
    write(d, "Cargo.toml", "[workspace]\nmembers = [\"svc\"]\n");
    let all = slips(&timed(d));
    assert_eq!(all.len(), 3, "{all:?}");
}

/// The `--timings` line about big Rust files read around their words:
/// (read around, read whole again), or `None` when none was.
fn around(o: &Output) -> Option<(usize, usize)> {
    timings_pair(o, "read around their words: ", ", read whole again: ")
}

#[test]
fn a_big_file_is_read_around_its_words_until_the_rest_holds_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A payout job (no word) that charges, then calls the code that
    // records the key; a header name misspelt without a word; one word,
    // which admits the file; and over 192 KiB of code no rule reads.
    let padding: String = (0..4000)
        .map(|i| format!("pub fn pad_{i}(a: u64) -> u64 {{\n    a.wrapping_mul({i})\n}}\n"))
        .collect();
    let big = format!(
        "use crate::keys::record_key;\nuse stripe::{{CreatePayout, Payout}};\n\npub async fn run_payout(pool: &PgPool, stripe: &stripe::Client, job: &PayoutJob) -> Result<(), Error> {{\n    Payout::create(stripe, CreatePayout::from(job)).await?;\n    record_key(pool, &job.reference).await?;\n    Ok(())\n}}\n\npub fn with_key(r: reqwest::RequestBuilder, key: &str) -> reqwest::RequestBuilder {{\n    r.header(\"Idemptoency-Key\", key)\n}}\n\npub fn idempotent_note() -> &'static str {{\n    \"ok\"\n}}\n{padding}"
    );
    assert!(big.len() > 192 * 1024);
    write(d, "src/payouts.rs", &big);
    let keys = |table: &str| {
        format!(
            "pub async fn record_key(pool: &PgPool, key: &str) -> Result<(), sqlx::Error> {{\n    sqlx::query(\"INSERT INTO {table} (key) VALUES ($1)\")\n        .bind(key)\n        .execute(pool)\n        .await?;\n    Ok(())\n}}\n\npub fn idempotent_note() -> &'static str {{\n    \"ok\"\n}}\n"
        )
    };
    let rules = |j: &serde_json::Value| {
        let mut r: Vec<String> = support::rule_paths(j).into_iter().map(|(r, _)| r).collect();
        r.sort();
        r
    };

    // No store and no keyed request: the header is still judged.
    write(d, "src/keys.rs", &keys("payout_log"));
    let o = timed(d);
    assert_eq!(around(&o), Some((1, 0)), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["summary"]["files_parsed"], 2, "{j}");
    assert_eq!(rules(&j), ["misspelled-idempotency-header"], "{j}");

    // The key is recorded in a store: the job, which holds no word, is
    // read and leads to the recording after its charge.
    write(d, "src/keys.rs", &keys("idempotency_keys"));
    let o = timed(d);
    assert_eq!(around(&o), Some((1, 1)), "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(
        rules(&j),
        ["key-recorded-after-effect", "misspelled-idempotency-header"],
        "{j}"
    );
}

#[test]
fn a_file_held_for_its_retries_with_a_suppression_is_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "src/payout_job.rs",
        &format!("// idemlint: allow(key-recorded-after-effect) -- reviewed\n{PAYOUT_JOB}"),
    );
    let o = timed(d);
    assert_eq!(held(&o), None, "{}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["summary"]["files_parsed"], 1, "{j}");
    assert_eq!(
        support::rule_paths(&j),
        [(
            "unused-suppression".to_string(),
            "src/payout_job.rs".to_string()
        )],
        "{j}"
    );
}

#[test]
fn a_binary_file_named_on_the_command_line_exits_2_and_one_found_by_the_walk_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("blob.rs"),
        b"fn a() {}\0\x01idempotency_key\n",
    )
    .unwrap();
    let o = idemlint(dir.path(), &["check", "--isolated", "blob.rs"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("blob.rs: a binary file"),
        "{}",
        stderr(&o)
    );
    // Found by the walk: one message, which says nothing was read.
    let o = idemlint(dir.path(), &["check", "--isolated", "--verbose", "."]);
    let out = stdout(&o);
    assert!(
        out.contains("binary content (a NUL byte); not parsed"),
        "{out}"
    );
    assert!(out.contains("nothing in this file was read"), "{out}");
    assert!(!out.contains("the rest of the file was read"), "{out}");
    assert!(
        out.contains("not parsed: blob.rs: binary content (a NUL byte)"),
        "{out}"
    );
}

#[test]
fn explain_suggests_the_rule_whose_name_holds_the_words_given() {
    let o = idemlint(&manifest(), &["explain", "misspelled-header"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean `misspelled-idempotency-header`?"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn verbose_json_lists_the_files_not_parsed_with_their_reasons() {
    let o = idemlint(
        &manifest(),
        &[
            "check",
            "--isolated",
            "--verbose",
            "--format",
            "json",
            "testdata/projects/demo",
        ],
    );
    let doc = json(&o);
    assert_eq!(
        doc["not_read"],
        serde_json::json!([{"path": "testdata/projects/demo/Cargo.toml", "reason": "no word of the prefilter"}])
    );
    // Without --verbose the field is absent: the version 1 shape is unchanged.
    let o = idemlint(
        &manifest(),
        &[
            "check",
            "--isolated",
            "--format",
            "json",
            "testdata/projects/demo",
        ],
    );
    assert!(json(&o).get("not_read").is_none());
}
