//! Meta-tests that guard the registry: complete rule docs, sourced catalogue
//! data, message style over every fixture, and the README rules table kept
//! equal to the catalogue. (That every built rule has `flag/` and `pass/`
//! fixtures is checked next to the harness, in `tests/fixtures.rs`.)
//!
//! `IDEMLINT_BLESS=1 cargo test --test meta` rewrites the README table.

#![allow(clippy::unwrap_used)]
use idemlint::diagnostic::{RuleId, Severity};
use idemlint::{catalogue, check, ConfigChoice, Options};
use std::path::{Path, PathBuf};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_catalogue_rule_has_complete_docs_and_a_valid_severity() {
    let raw = catalogue::raw_files();
    assert_eq!(
        catalogue::all().len(),
        raw.len(),
        "a rule file failed to parse"
    );
    for (file, meta) in raw.iter().zip(catalogue::all()) {
        assert_eq!(
            file.0, meta.name,
            "rules/{}.toml names another rule",
            file.0
        );
        assert!(
            Severity::parse(&meta.default_severity).is_some(),
            "{}: default_severity `{}`",
            meta.name,
            meta.default_severity
        );
        let d = &meta.docs;
        for (heading, text) in [
            ("summary", &meta.summary),
            ("severity_note", &meta.severity_note),
            ("what", &d.what),
            ("why", &d.why),
            ("example", &d.example),
            ("use_instead", &d.use_instead),
        ] {
            assert!(!text.trim().is_empty(), "{}: empty `{heading}`", meta.name);
        }
        assert!(!d.references.is_empty(), "{}: no reference", meta.name);
        assert!(
            d.references.iter().all(|r| !r.trim().is_empty()),
            "{}: an empty reference",
            meta.name
        );
        assert!(
            message_style_ok(&meta.summary),
            "{}: summary `{}` must start lowercase with no trailing period",
            meta.name,
            meta.summary
        );
    }
}

/// The declaration (`src/rule_id.rs`) and the docs are one list: every
/// declared rule has its `rules/<id>.toml` (in the declaration's order), and
/// every rule doc under `rules/` (a file with a `default_severity`) is
/// declared.
#[test]
fn every_declared_rule_has_its_docs_and_every_rule_doc_is_declared() {
    let declared: Vec<&str> = RuleId::ALL.iter().map(|r| r.as_str()).collect();
    let documented: Vec<&str> = catalogue::all().iter().map(|m| m.name.as_str()).collect();
    assert_eq!(declared, documented);
    for e in std::fs::read_dir(manifest().join("rules")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        let t: toml::Table = toml::from_str(&std::fs::read_to_string(&p).unwrap())
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
        if t.contains_key("default_severity") || t.contains_key("docs") {
            assert!(
                RuleId::parse(&stem).is_some(),
                "rules/{stem}.toml documents a rule that src/rule_id.rs does not declare"
            );
        }
    }
    for m in catalogue::all() {
        assert_eq!(
            m.id().map(RuleId::is_built),
            Some(m.is_built()),
            "{}",
            m.name
        );
    }
}

/// The severities a rule declares are the ones its docs name: the default
/// severity and every level `severity_note` mentions (`error; warning when
/// ...; note for ...`), no more and no fewer. What the fixtures emit is
/// checked against the declaration in `tests/fixtures.rs`.
#[test]
fn declared_severities_agree_with_the_docs() {
    let mut bad = Vec::new();
    for m in catalogue::all() {
        let Some(id) = m.id() else {
            bad.push(format!("{}: not declared", m.name));
            continue;
        };
        let mut named: Vec<Severity> = m
            .severity_note
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter_map(Severity::parse)
            .collect();
        named.extend(Severity::parse(&m.default_severity));
        named.sort();
        named.dedup();
        if named != id.severities() {
            bad.push(format!(
                "{}: declared {:?}, the docs name {named:?} (default_severity `{}`, severity_note `{}`)",
                m.name,
                id.severities(),
                m.default_severity,
                m.severity_note
            ));
        }
    }
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}

#[test]
fn rule_names_are_kebab_case_and_never_prefer_use_or_avoid() {
    for name in catalogue::names() {
        assert!(
            name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
            "{name}"
        );
        for bad in ["prefer-", "use-", "avoid-"] {
            assert!(!name.starts_with(bad), "{name}");
        }
    }
}

/// Data catalogues under `rules/` (not rule docs, not the prefilter word list).
fn data_files() -> Vec<(String, String)> {
    let docs: Vec<&str> = catalogue::raw_files().iter().map(|(n, _)| *n).collect();
    let mut out = Vec::new();
    for e in std::fs::read_dir(manifest().join("rules")).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        if p.extension().is_some_and(|x| x == "toml")
            && !docs.contains(&stem.as_str())
            && stem != "prefilter"
        {
            out.push((stem, std::fs::read_to_string(&p).unwrap()));
        }
    }
    out.sort();
    out
}

fn has_source(t: &toml::Table) -> bool {
    t.iter().any(|(k, v)| {
        k.starts_with("source")
            && match v {
                toml::Value::String(s) => !s.trim().is_empty(),
                toml::Value::Array(a) => !a.is_empty(),
                _ => false,
            }
    })
}

/// Whether a table is sourced: by a `source` of its own, or, for a grouping
/// entry such as a counterparty, by every one of its nested entries (each
/// window of a counterparty carries its own source).
fn sourced(t: &toml::Table) -> bool {
    if has_source(t) {
        return true;
    }
    let nested: Vec<&toml::Table> = t
        .values()
        .filter_map(|v| v.as_array())
        .flatten()
        .filter_map(|v| v.as_table())
        .collect();
    !nested.is_empty() && nested.iter().all(|n| has_source(n))
}

/// Every named entry (a table with `name` or `id`) and every entry of an
/// array of tables must carry a `source`, itself or on all its nested entries.
fn unsourced(path: &str, t: &toml::Table, out: &mut Vec<String>) {
    if (t.contains_key("name") || t.contains_key("id")) && !sourced(t) {
        out.push(path.to_string());
    }
    for (k, v) in t {
        match v {
            toml::Value::Table(inner) => unsourced(&format!("{path}.{k}"), inner, out),
            toml::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let toml::Value::Table(inner) = item {
                        let p = format!("{path}.{k}[{i}]");
                        if !(sourced(inner)
                            || inner.contains_key("name")
                            || inner.contains_key("id"))
                        {
                            out.push(p.clone());
                        }
                        unsourced(&p, inner, out);
                    }
                }
            }
            _ => {}
        }
    }
}

#[test]
fn every_catalogue_data_entry_has_a_source() {
    let files = data_files();
    assert!(files.iter().any(|(n, _)| n == "headers"));
    for (name, text) in files {
        let table: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut missing = Vec::new();
        unsourced(&name, &table, &mut missing);
        assert!(
            missing.is_empty(),
            "rules/{name}.toml: no source for {missing:?}"
        );
        // A file of plain word lists names its source in a comment.
        assert!(
            has_source(&table) || text.contains("source") || text.contains("Source:"),
            "rules/{name}.toml names no source"
        );
    }
    let h = idemlint::knowledge::headers();
    assert!(!h.canonical.is_empty() && !h.legitimate.is_empty());
    for n in h.canonical.iter().chain(&h.legitimate) {
        assert!(!n.source.trim().is_empty(), "{}", n.name);
    }
    assert!(!h.stripe.source.trim().is_empty());
}

/// Lowercase first letter (a leading backtick is fine), no trailing period.
fn message_style_ok(m: &str) -> bool {
    let first = m.chars().next();
    let lower_start =
        matches!(first, Some(c) if c.is_lowercase() || c == '`' || c.is_ascii_digit());
    lower_start && !m.ends_with('.')
}

fn run(dir: &Path) -> idemlint::Outcome {
    let config = if dir.join("idemlint.toml").exists() {
        ConfigChoice::File(dir.join("idemlint.toml"))
    } else {
        ConfigChoice::Isolated
    };
    check(&Options {
        paths: vec![dir.to_path_buf()],
        stdin: None,
        config,
        no_suppressions: false,
        include_tests: false,
        parse_timeout: None,
    })
    .unwrap()
}

/// Every headline is lowercase with no trailing period, and under 100
/// characters: the long explanation is in `= note:` lines and `explain`.
#[test]
fn every_message_is_lowercase_with_no_trailing_period() {
    let mut dirs = fixture_dirs();
    // parse errors of every front end
    let broken = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("a.rs", "fn idempotency( {"),
        ("b.yaml", "idempotency: [unclosed"),
        ("c.json", "{\"idempotency\": }"),
        ("d.toml", "idempotency = = 1"),
        ("e.rs", "idempotency\0binary"),
        ("f.json", &format!("{}\"idempotency\"", "[".repeat(300))),
        // a Kubernetes environment entry: a deep path for a headline
        (
            "g.yaml",
            "kind: Deployment\napiVersion: apps/v1\nspec:\n  template:\n    spec:\n      containers:\n        - env:\n            - name: STRIPE_WEBHOOK_DEDUP_TTL_HOURS\n              value: \"24\"\n",
        ),
    ] {
        std::fs::write(broken.path().join(name), text).unwrap();
    }
    dirs.push(broken.path().to_path_buf());

    let mut seen = 0;
    let mut bad = Vec::new();
    for dir in &dirs {
        let o = run(dir);
        for d in &o.diagnostics {
            seen += 1;
            if !message_style_ok(&d.message) {
                bad.push(format!("{}: {}", d.rule, d.message));
            }
            if d.message.chars().count() >= 100 {
                bad.push(format!("{}: a headline of 100+: {}", d.rule, d.message));
            }
        }
    }
    assert!(seen > 10, "too few messages checked: {seen}");
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}

const TABLE_START: &str = "<!-- rules-table:start -->";
const TABLE_END: &str = "<!-- rules-table:end -->";

#[test]
fn readme_rules_table_equals_the_catalogue() {
    let path = manifest().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme
        .find(TABLE_START)
        .expect("README has the table start marker");
    let end = readme
        .find(TABLE_END)
        .expect("README has the table end marker");
    let body_start = start + TABLE_START.len();
    let current = readme[body_start..end].trim();
    let wanted = catalogue::markdown_table();
    if current == wanted.trim() {
        return;
    }
    if std::env::var_os("IDEMLINT_BLESS").is_some() {
        let updated = format!("{}\n{}{}", &readme[..body_start], wanted, &readme[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    panic!(
        "README rules table is out of date; run `IDEMLINT_BLESS=1 cargo test --test meta`\n--- README\n{current}\n--- catalogue\n{wanted}"
    );
}

/// The README reads as ruff's and squawk's do: a pitch, a real output
/// sample (its text is checked against the demo in `tests/snapshots.rs`),
/// then the sections in this order, in at most about 1,800 words; the two
/// set-up commands stay the ones CI runs.
#[test]
fn readme_keeps_its_order_its_two_commands_and_its_length() {
    let readme = std::fs::read_to_string(manifest().join("README.md")).unwrap();
    let words = readme.split_whitespace().count();
    assert!(
        words <= 1_800,
        "README is {words} words; move details to docs/"
    );
    let order = [
        "```text\n$ idemlint check testdata/projects/demo\n",
        "\n## Install\n",
        "\n## Try it\n",
        "\n## Usage\n",
        "\n## In CI and pre-commit\n",
        "\n## Rules\n",
        "\n## Configuration and suppressions\n",
        "\n## What idemlint cannot see\n",
        "\n## Exit codes and formats\n",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|h| {
            readme
                .find(h)
                .unwrap_or_else(|| panic!("README lacks {h:?}"))
        })
        .collect();
    assert!(
        at.windows(2).all(|w| w[0] < w[1]),
        "README sections out of order"
    );
    let pitch = &readme[..at[0]];
    assert!(
        pitch.split_whitespace().count() > 40,
        "README opens with a pitch"
    );
    let try_it = &readme[at[2]..at[3]];
    for cmd in ["cargo run -- check testdata/projects/demo", "bash .ci/run"] {
        assert!(
            try_it.contains(&format!("\n{cmd} ")),
            "Try it lacks `{cmd}`"
        );
    }
    assert!(
        try_it.contains("few minutes"),
        "say that the first build is slow"
    );
    let ci = std::fs::read_to_string(manifest().join(".ci/run")).unwrap();
    assert!(
        ci.lines()
            .any(|l| l.trim_start().starts_with("cargo test --no-fail-fast")),
        ".ci/run runs the tests"
    );
    assert!(!readme.contains("| xargs"), "no changed-files recipe");
    let cargo: toml::Table = std::fs::read_to_string(manifest().join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let msrv = cargo["package"]["rust-version"].as_str().unwrap();
    assert!(
        readme.contains(&format!("Rust {msrv} or newer")),
        "README states the rust-version of Cargo.toml ({msrv})"
    );
    for (i, line) in readme.lines().enumerate() {
        for link in line.split("](").skip(1) {
            let target = link.split([')', '#']).next().unwrap_or("");
            if !target.contains("://") && !target.is_empty() {
                assert!(
                    manifest().join(target).exists(),
                    "README line {}: broken link {target}",
                    i + 1
                );
            }
        }
    }
}

// --- Sources a reviewer can follow -------------------------------------
//
// User-facing text never cites a document the user does not have, and every
// number of the catalogue cites a page the user can open.

/// What in user-facing text points at a document outside the repository.
fn internal_citations(text: &str) -> Vec<String> {
    let re = regex::Regex::new(r"(?i)\bDESIGN\b|horizons\.md|\bseeds?\b").unwrap();
    re.find_iter(text).map(|m| m.as_str().to_string()).collect()
}

/// Every string of a TOML value, with its path.
fn strings(path: &str, v: &toml::Value, out: &mut Vec<(String, String)>) {
    match v {
        toml::Value::String(s) => out.push((path.to_string(), s.clone())),
        toml::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                strings(&format!("{path}[{i}]"), x, out);
            }
        }
        toml::Value::Table(t) => {
            for (k, x) in t {
                strings(&format!("{path}.{k}"), x, out);
            }
        }
        _ => {}
    }
}

fn all_rules_files() -> Vec<(String, toml::Value)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(manifest().join("rules")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(&p).unwrap();
            let v: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            out.push((name, v));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn bin(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_idemlint"))
        .args(args)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "idemlint {args:?} failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The text a user reads: every string of `rules/*.toml` (docs, summaries,
/// references, sources, windows, words), the output of `horizons`, `rules`
/// and `explain` for every rule, every `--help`, the README and `docs/`,
/// every finding over the fixtures (headline, labels, notes, help, fix) and
/// the SARIF rule descriptions.
fn user_facing_texts() -> Vec<(String, String)> {
    let mut texts = Vec::new();
    for (name, v) in all_rules_files() {
        strings(&format!("rules/{name}"), &v, &mut texts);
    }
    for args in [
        &["horizons", "--isolated"][..],
        &["horizons", "--isolated", "--wide"],
        &["horizons", "--isolated", "--format", "json"],
        &["rules"],
        &["rules", "--format", "json"],
        &["--help"],
    ] {
        texts.push((format!("idemlint {}", args.join(" ")), bin(args)));
    }
    use clap::CommandFactory;
    for sub in idemlint::cli::Cli::command().get_subcommands() {
        let name = sub.get_name().to_string();
        texts.push((format!("idemlint {name} --help"), bin(&[&name, "--help"])));
    }
    for rule in catalogue::names() {
        texts.push((format!("idemlint explain {rule}"), bin(&["explain", rule])));
    }
    let readme = std::fs::read_to_string(manifest().join("README.md")).unwrap();
    texts.push(("README.md".to_string(), readme));
    for e in std::fs::read_dir(manifest().join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            let name = format!("docs/{}", p.file_name().unwrap().to_string_lossy());
            texts.push((name, std::fs::read_to_string(&p).unwrap()));
        }
    }
    for dir in fixture_dirs() {
        for d in &run(&dir).diagnostics {
            let mut parts = vec![d.message.clone()];
            parts.extend(d.primary_label.clone());
            parts.extend(d.labels.iter().map(|l| l.message.clone()));
            parts.extend(d.notes.iter().cloned());
            parts.extend(d.help.clone());
            parts.extend(d.fix.as_ref().map(|f| f.message.clone()));
            texts.push((format!("a {} finding", d.rule), parts.join("\n")));
        }
    }
    for rule in sarif_rules() {
        let id = rule["id"].as_str().unwrap_or("?").to_string();
        for field in ["shortDescription", "fullDescription", "help"] {
            for form in ["text", "markdown"] {
                if let Some(t) = rule[field][form].as_str() {
                    texts.push((format!("SARIF {id} {field}.{form}"), t.to_string()));
                }
            }
        }
    }
    texts
}

/// `tool.driver.rules` of a SARIF run over the demo project, where a
/// finding's rule description is what code scanning shows beside it.
fn sarif_rules() -> Vec<serde_json::Value> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_idemlint"))
        .args(["check", "--isolated", "--format", "sarif"])
        .arg(manifest().join("testdata/projects/demo"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "the demo has findings");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn every_sarif_rule_has_a_short_and_a_full_description_and_help_that_say_something() {
    let rules = sarif_rules();
    let ids: Vec<&str> = rules.iter().filter_map(|r| r["id"].as_str()).collect();
    assert_eq!(ids, catalogue::names(), "one SARIF rule per catalogue rule");
    let words = |t: &str| t.split_whitespace().count();
    let mut bad = Vec::new();
    for r in &rules {
        let id = r["id"].as_str().unwrap_or("?");
        let short = r["shortDescription"]["text"].as_str().unwrap_or("");
        let full = r["fullDescription"]["text"].as_str().unwrap_or("");
        let help = r["help"]["text"].as_str().unwrap_or("");
        let markdown = r["help"]["markdown"].as_str().unwrap_or("");
        if words(short) < 5 || short.contains('\n') {
            bad.push(format!(
                "{id}: shortDescription is not one meaningful line: {short:?}"
            ));
        }
        if words(full) < 12 || full == short || full.trim() != full {
            bad.push(format!("{id}: fullDescription says too little: {full:?}"));
        }
        for heading in [
            "What it does",
            "Why is this bad?",
            "Example",
            "Use instead",
            "References",
        ] {
            if !help.contains(&format!("## {heading}"))
                || !markdown.contains(&format!("## {heading}"))
            {
                bad.push(format!("{id}: help lacks the `{heading}` section"));
            }
        }
        if !help.contains("https://") {
            bad.push(format!("{id}: help cites no page"));
        }
        if r["defaultConfiguration"]["level"].as_str().is_none() {
            bad.push(format!("{id}: no default level"));
        }
        for (field, t) in [
            ("shortDescription", short),
            ("fullDescription", full),
            ("help", help),
        ] {
            let found = internal_citations(t);
            if !found.is_empty() {
                bad.push(format!("{id}: {field} cites {found:?}"));
            }
        }
    }
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}

#[test]
fn no_user_facing_text_cites_an_internal_document() {
    let texts = user_facing_texts();
    assert!(texts.len() > 100, "too few texts checked: {}", texts.len());
    let bad: Vec<String> = texts
        .iter()
        .filter_map(|(where_, text)| {
            let found = internal_citations(text);
            (!found.is_empty()).then(|| format!("{where_}: {found:?}"))
        })
        .collect();
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}

#[test]
fn the_internal_citation_check_catches_what_it_is_for() {
    for t in [
        "DESIGN §4",
        "see horizons.md, Header names",
        "source = seed",
        "seeds/000 (the 24-hour article)",
        "read 2026-10-29 (Seed)",
    ] {
        assert!(!internal_citations(t).is_empty(), "{t}");
    }
    for t in [
        "designed for",
        "seeded random",
        "a redesign",
        "https://docs.stripe.com",
    ] {
        assert!(internal_citations(t).is_empty(), "{t}");
    }
}

/// Every rule's `flag/` fixtures and the fixture projects.
fn fixture_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = catalogue::names()
        .iter()
        .map(|n| manifest().join("testdata/rules").join(n).join("flag"))
        .filter(|d| d.exists())
        .collect();
    dirs.push(manifest().join("testdata/projects"));
    dirs
}

/// Every note and help of every finding over the fixtures that cites a page
/// gives the date it was read, as `idemlint horizons` does; a window the
/// user declared in idemlint.toml says so instead.
#[test]
fn every_finding_that_cites_a_page_gives_the_date_it_was_read() {
    let dirs = fixture_dirs();
    let dated = regex::Regex::new(r"read \d{4}-\d{2}-\d{2}").unwrap();
    let (mut seen, mut bad) = (0, Vec::new());
    for dir in &dirs {
        for d in &run(dir).diagnostics {
            for text in d.notes.iter().chain(d.help.iter()) {
                if !text.contains("https://") {
                    continue;
                }
                seen += 1;
                if !dated.is_match(text) && !text.contains("idemlint.toml") {
                    bad.push(format!("{}: {text}", d.rule));
                }
            }
        }
    }
    assert!(seen > 10, "too few citations checked: {seen}");
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}

/// A number no page states may stand only when its source says, in words,
/// that it is idemlint's own choice.
fn own_choice(source: &str) -> bool {
    source.starts_with("idemlint's own choice")
}

fn dated(s: &str) -> bool {
    regex::Regex::new(r"\b\d{4}-\d{2}-\d{2}\b")
        .unwrap()
        .is_match(s)
}

/// Keys that hold a catalogue number: a window, a margin, a horizon, a
/// default policy, a scale in seconds.
fn is_number_key(k: &str) -> bool {
    matches!(
        k,
        "duration" | "margin" | "default_horizon" | "default_policy"
    ) || k.ends_with("_secs")
}

/// Every catalogue number in `t` (and the tables under it) without a full
/// citation: an `https://` URL in its `source` (or `<key>_source`) and a
/// date read in `read` or the source, unless the source says it is
/// idemlint's own choice.
fn uncited(path: &str, t: &toml::Table, out: &mut Vec<String>) {
    for (k, v) in t {
        if is_number_key(k) && !matches!(v, toml::Value::Table(_) | toml::Value::Array(_)) {
            let source = t
                .get(&format!("{k}_source"))
                .or_else(|| t.get(&format!("{}_source", k.trim_end_matches("_secs"))))
                .or_else(|| t.get("source"))
                .and_then(|s| s.as_str())
                .unwrap_or("");
            let read = t.get("read").and_then(|s| s.as_str()).unwrap_or("");
            let cited = source.contains("https://") && (dated(read) || dated(source));
            if !(cited || own_choice(source)) {
                out.push(format!(
                    "{path}.{k} = {v} (source {source:?}, read {read:?})"
                ));
            }
        }
        match v {
            toml::Value::Table(inner) => uncited(&format!("{path}.{k}"), inner, out),
            toml::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let toml::Value::Table(inner) = item {
                        uncited(&format!("{path}.{k}[{i}]"), inner, out);
                    }
                }
            }
            _ => {}
        }
    }
}

#[test]
fn every_catalogue_number_cites_a_url_and_a_date_or_is_idemlints_own_choice() {
    let mut missing = Vec::new();
    let mut numbers = 0;
    for (name, v) in all_rules_files() {
        let mut strs = Vec::new();
        strings("", &v, &mut strs);
        numbers += strs
            .iter()
            .filter(|(p, _)| p.ends_with(".duration"))
            .count();
        uncited(
            &format!("rules/{name}"),
            v.as_table().unwrap(),
            &mut missing,
        );
    }
    assert!(numbers > 50, "too few windows checked: {numbers}");
    assert!(missing.is_empty(), "\n{}", missing.join("\n"));
    // The built-in horizons as a user sees them: each window with a URL, a
    // date read and a direction.
    let v: serde_json::Value =
        serde_json::from_str(&bin(&["horizons", "--isolated", "--format", "json"])).unwrap();
    for c in v["counterparties"].as_array().unwrap() {
        for w in c["windows"].as_array().unwrap() {
            assert!(
                w["url"].as_str().is_some_and(|u| u.starts_with("https://")),
                "{c}"
            );
            assert!(dated(w["read"].as_str().unwrap()), "{c}");
            assert!(
                matches!(w["direction"].as_str(), Some("inbound" | "outbound")),
                "{c}"
            );
        }
    }
    assert!(own_choice(v["margin_source"].as_str().unwrap()));
    assert!(own_choice(v["default_horizon_source"].as_str().unwrap()));
}

#[test]
fn every_header_name_cites_a_url() {
    let h = idemlint::knowledge::headers();
    for n in h.canonical.iter().chain(&h.legitimate) {
        let cited = n.source.contains("https://") && n.read.as_deref().is_some_and(dated);
        assert!(cited || own_choice(&n.source), "{}: {}", n.name, n.source);
    }
}
