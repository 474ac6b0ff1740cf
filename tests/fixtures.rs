//! The fixture harness: every directory `testdata/rules/<rule>/flag` and
//! `.../pass` is checked as one small project. In `flag/`, each expected
//! finding is declared on its own line by a comment in the file's syntax,
//! `expect: <rule>[, <rule>...]`, or, for files without comments (JSON), in a
//! sidecar `<file>.expect` holding `<line> <rule>` rows. The set of reported
//! (file, line, rule) must equal the declared set, across all rules; `pass/`
//! must produce nothing at all. An `idemlint.toml` in the directory is used.

#![allow(clippy::unwrap_used)]
use idemlint::rule_id::{RuleId, RuleKind};
use idemlint::{check, ConfigChoice, Options};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

type Finding = (String, usize, String);

fn rules_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/rules")
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn declared(dir: &Path) -> BTreeSet<Finding> {
    let mut set = BTreeSet::new();
    for f in files_under(dir) {
        let rel = f
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        if let Some(target) = rel.strip_suffix(".expect") {
            for row in text.lines().filter(|l| !l.trim().is_empty()) {
                let (line, rule) = row.trim().split_once(' ').expect("`<line> <rule>` rows");
                set.insert((
                    target.to_string(),
                    line.parse().expect("a line number"),
                    rule.trim().to_string(),
                ));
            }
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            if let Some(pos) = line.find("expect: ") {
                let rules = &line[pos + "expect: ".len()..];
                for rule in rules.split(',') {
                    let rule: String = rule
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                        .collect();
                    if !rule.is_empty() {
                        set.insert((rel.clone(), n + 1, rule));
                    }
                }
            }
        }
    }
    set
}

fn run(dir: &Path) -> idemlint::Outcome {
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
    check(&opts).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

fn reported(dir: &Path) -> BTreeSet<Finding> {
    let outcome = run(dir);
    let cwd = std::env::current_dir().unwrap();
    let prefix = dir
        .strip_prefix(&cwd)
        .unwrap_or(dir)
        .to_string_lossy()
        .replace('\\', "/");
    outcome
        .diagnostics
        .iter()
        .map(|d| {
            let path = outcome.sources.path(d.file);
            let rel = path
                .strip_prefix(&format!("{prefix}/"))
                .unwrap_or(path)
                .to_string();
            let text = outcome.sources.text(d.file);
            let line = idemlint::source::LineIndex::new(text)
                .line_col(text, d.span.start)
                .line;
            (rel, line, d.rule.to_string())
        })
        .collect()
}

fn fixture_dirs() -> Vec<(String, PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for rule in idemlint::catalogue::names() {
        let d = rules_dir().join(rule);
        if d.exists() {
            out.push((rule.to_string(), d.join("flag"), d.join("pass")));
        }
    }
    out
}

#[test]
fn flag_fixtures_report_exactly_what_they_declare() {
    let mut failures = Vec::new();
    for (rule, flag, _) in fixture_dirs() {
        let want = declared(&flag);
        assert!(
            want.iter().any(|(_, _, r)| *r == rule),
            "{rule}: flag/ declares no `expect: {rule}`"
        );
        let got = reported(&flag);
        if want != got {
            let missing: Vec<_> = want.difference(&got).collect();
            let extra: Vec<_> = got.difference(&want).collect();
            failures.push(format!(
                "{rule}/flag\n  missing: {missing:?}\n  unexpected: {extra:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn pass_fixtures_produce_nothing() {
    let mut failures = Vec::new();
    for (rule, _, pass) in fixture_dirs() {
        assert!(
            !files_under(&pass).is_empty(),
            "{rule}: pass/ has no fixture"
        );
        assert!(
            declared(&pass).is_empty(),
            "{rule}: pass/ must declare nothing"
        );
        let got = reported(&pass);
        if !got.is_empty() {
            failures.push(format!("{rule}/pass\n  unexpected: {got:?}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn every_built_rule_has_flag_and_pass_fixtures() {
    for meta in idemlint::catalogue::all() {
        // The pipeline's rules and the live ones are tested elsewhere.
        if meta.id().map(RuleId::kind) == Some(RuleKind::Model) {
            let d = rules_dir().join(&meta.name);
            assert!(
                !files_under(&d.join("flag")).is_empty(),
                "{}: no flag/ fixture",
                meta.name
            );
            assert!(
                !files_under(&d.join("pass")).is_empty(),
                "{}: no pass/ fixture",
                meta.name
            );
        }
    }
}

/// Whole small repositories under `testdata/projects/` that declare their
/// findings with the same `expect:` comments: cross-file cases (a Redis
/// linked by the code that writes to it, a retention in one file for a table
/// defined in another) that one rule's directory cannot hold alone.
#[test]
fn project_fixtures_report_exactly_what_they_declare() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/projects");
    let mut checked = 0;
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        let dir = entry.path();
        let want = declared(&dir);
        if want.is_empty() {
            continue; // a project asserted by its own test (demo, headers, ...)
        }
        checked += 1;
        let got = reported(&dir);
        if want != got {
            let missing: Vec<_> = want.difference(&got).collect();
            let extra: Vec<_> = got.difference(&want).collect();
            failures.push(format!(
                "{}\n  missing: {missing:?}\n  unexpected: {extra:?}",
                dir.display()
            ));
        }
    }
    assert!(checked > 0, "no project declares its findings");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Every rule's `flag/` and `pass/` directory, then every project of
/// `testdata/projects`.
fn every_fixture_dir() -> Vec<PathBuf> {
    let projects = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/projects");
    let mut dirs: Vec<PathBuf> = fixture_dirs()
        .into_iter()
        .flat_map(|(_, flag, pass)| [flag, pass])
        .collect();
    dirs.extend(
        std::fs::read_dir(&projects)
            .unwrap()
            .flatten()
            .map(|e| e.path()),
    );
    dirs
}

/// A headline is read in a terminal, a PR annotation, a SARIF viewer: it
/// stays under 100 characters; the reasoning goes to notes.
#[test]
fn every_headline_of_every_fixture_is_under_100_characters() {
    let dirs = every_fixture_dir();
    let mut long = Vec::new();
    let mut seen = 0;
    for dir in dirs {
        let outcome = run(&dir);
        for d in &outcome.diagnostics {
            seen += 1;
            let n = d.message.chars().count();
            if n >= 100 {
                long.push(format!("{n}: [{}] {}", d.rule, d.message));
            }
        }
    }
    assert!(seen > 50, "only {seen} findings over the fixtures");
    assert!(long.is_empty(), "\n{}", long.join("\n"));
}

/// The pass twin of `testdata/projects/redis-url-chain`: the same service,
/// its `REDIS_URL` pointing at the `noeviction` Redis; the `allkeys-lru`
/// one holds a dashboard's page cache. Nothing to report.
#[test]
fn a_redis_url_chain_to_the_noeviction_instance_reports_nothing() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/projects/redis-url-chain-noeviction");
    assert!(declared(&dir).is_empty());
    let got = reported(&dir);
    assert!(got.is_empty(), "unexpected: {got:?}");
}

/// The pass twin of `testdata/projects/redis-claims-config`: the same
/// workspace, whose config names two Redis sections (`[redis]` for the
/// locks, `[cache_redis]` for responses), so it does not say which Redis
/// the claims go to; the evicting one is the cache. Nothing to report.
#[test]
fn claims_with_a_config_of_two_redis_sections_report_nothing() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/projects/redis-claims-config-two-sections");
    assert!(declared(&dir).is_empty());
    let got = reported(&dir);
    assert!(got.is_empty(), "unexpected: {got:?}");
}

/// The rendered human output of every `flag/` directory, one snapshot per
/// directory that holds a finding's file, under
/// `tests/snapshots/rules/<rule>/`: a change in wording, labels or help shows
/// in review beside the `expect:` markers, which hold only (file, line,
/// rule). Each `flag/` is checked once as one project, as above, so a
/// finding that needs a file of another directory is the same finding here;
/// the reports are then grouped by the directory of their file
/// (`flag__src__redis.snap` for `flag/src/redis/`, `flag.snap` for `flag/`
/// itself). Paths are relative to the crate root, without colour, at the
/// default width and without the summary line.
///
/// A new fixture directory: `INSTA_UPDATE=always cargo test --test fixtures
/// flag_fixtures_render`, then read and commit the new `.snap` files.
#[test]
fn flag_fixtures_render_as_their_snapshots() {
    use idemlint::render::human::{render_with, Options as Human};
    use std::collections::BTreeMap;
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut stale = Vec::new();
    for (rule, _, _) in fixture_dirs() {
        let flag = PathBuf::from(format!("testdata/rules/{rule}/flag"));
        let outcome = run(&flag);
        let prefix = format!("{}/", flag.display());
        let mut groups: BTreeMap<String, Vec<idemlint::diagnostic::Diagnostic>> = BTreeMap::new();
        for d in &outcome.diagnostics {
            let path = outcome.sources.path(d.file).replace('\\', "/");
            let rel = path.strip_prefix(&prefix).unwrap_or(&path);
            let dir = rel.rsplit_once('/').map_or("", |(dir, _)| dir);
            let name = std::iter::once("flag")
                .chain(dir.split('/').filter(|p| !p.is_empty()))
                .collect::<Vec<_>>()
                .join("__");
            groups.entry(name).or_default().push(d.clone());
        }
        assert!(!groups.is_empty(), "{rule}/flag reports nothing");
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(format!("snapshots/rules/{rule}"));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        for (name, diags) in &groups {
            let report = idemlint::render::Report {
                diagnostics: diags,
                suppressed: &[],
                sources: &outcome.sources,
                summary: &outcome.summary,
                unparsed: None,
                not_read: None,
            };
            let opts = Human {
                quiet: true,
                width: Some(idemlint::render::human::DEFAULT_WIDTH),
                ..Human::default()
            };
            let mut out = Vec::new();
            render_with(&report, &opts, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            settings.bind(|| insta::assert_snapshot!(name.as_str(), text));
        }
        // A snapshot whose directory no longer reports anything is stale.
        let stored = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/snapshots/rules")
            .join(&rule);
        for e in std::fs::read_dir(&stored).into_iter().flatten().flatten() {
            let file = e.file_name().to_string_lossy().into_owned();
            if let Some(name) = file.strip_suffix(".snap") {
                if !groups.contains_key(name) {
                    stale.push(format!("{rule}/{file}"));
                }
            }
        }
    }
    assert!(stale.is_empty(), "snapshots of nothing: {stale:?}");
}

/// Every finding of every fixture has a severity its rule declares
/// (`src/rule_id.rs`), and every severity a model rule declares is shown by
/// some fixture, so the declaration (and the docs, which a test in
/// `tests/meta.rs` ties to it) says what the rules do.
#[test]
fn fixtures_emit_exactly_the_severities_their_rules_declare() {
    use idemlint::diagnostic::Severity;
    use std::collections::BTreeMap;
    let dirs = every_fixture_dir();
    let mut seen: BTreeMap<&str, BTreeSet<Severity>> = BTreeMap::new();
    let mut bad = Vec::new();
    for dir in dirs {
        let outcome = run(&dir);
        for d in &outcome.diagnostics {
            seen.entry(d.rule.as_str()).or_default().insert(d.severity);
            if !d.rule.severities().contains(&d.severity) {
                bad.push(format!(
                    "{}: {} `{}` gives {:?}, declared {:?}",
                    dir.display(),
                    d.rule,
                    d.message,
                    d.severity,
                    d.rule.severities()
                ));
            }
        }
    }
    // Given only by `idemlint audit` (a live table that only carries a key
    // column), which needs a live database: not a fixture.
    let live_only = [(RuleId::UniqueGuardSplitByPartition, Severity::Note)];
    for r in RuleId::ALL.iter().filter(|r| r.kind() == RuleKind::Model) {
        let shown = seen.remove(r.as_str()).unwrap_or_default();
        let unshown: Vec<_> = r
            .severities()
            .iter()
            .filter(|s| !shown.contains(s) && !live_only.contains(&(*r, **s)))
            .collect();
        if !unshown.is_empty() {
            bad.push(format!("{r}: no fixture gives {unshown:?}"));
        }
    }
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}
