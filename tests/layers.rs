//! The layers of `src/` only look down. Every module is in one layer, named
//! in the table of `docs/architecture.md` (so the page cannot drift from the
//! code); a module refers only to modules of its own layer or below, and the
//! modules of one layer refer to each other in no circle. A reference is any
//! `crate::<module>` path in a file: a `use` line, a path in code, a doc
//! link (`[`crate::walk::classify`]`), `use crate::{a, b}` groups included;
//! in `lib.rs`, a module's name followed by `::`; in `main.rs`,
//! `idemlint::<module>`. A path to an item of `lib.rs` itself
//! (`crate::check_with`) refers to the `lib` row.

#![allow(clippy::unwrap_used, clippy::expect_used)]
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// References that cross a layer upward today and are being removed by
/// other work, each with the reason. An entry that no longer occurs fails
/// the test, so that it is deleted when its reason goes. None today: the
/// last (`catalogue` asking `rules::is_built`) went with `rule_id`.
const KNOWN: &[(&str, &str, &str)] = &[];

/// The layer table: module path (`inventory::command`, `frontend`) to its
/// layer's number and name.
type Table = BTreeMap<String, (u32, String)>;

/// The rows of the module table of `docs/architecture.md`:
/// ``| `module` | N name | what it does |``.
fn parse_table(doc: &str) -> Table {
    let mut table = Table::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || !cells[0].is_empty() {
            continue;
        }
        let Some(module) = cells[1].strip_prefix('`').and_then(|m| m.strip_suffix('`')) else {
            continue;
        };
        let Some((n, name)) = cells[2].split_once(' ') else {
            continue;
        };
        let Ok(n) = n.parse::<u32>() else {
            continue;
        };
        table.insert(module.to_string(), (n, name.trim().to_string()));
    }
    table
}

/// The module path of a file under `src/` (`frontend/rust/mod.rs` is
/// `frontend::rust`; `lib.rs` is `lib`, `main.rs` is `main`).
fn module_of_file(rel: &str) -> String {
    let rel = rel.strip_suffix(".rs").unwrap_or(rel);
    let rel = rel.strip_suffix("/mod").unwrap_or(rel);
    rel.replace('/', "::")
}

/// The table row a module path falls in: the longest row that is the path
/// or one of its parents.
fn row_of<'t>(table: &'t Table, path: &str) -> Option<&'t str> {
    let segments: Vec<&str> = path.split("::").collect();
    (1..=segments.len())
        .rev()
        .map(|n| segments[..n].join("::"))
        .find_map(|p| table.get_key_value(&p).map(|(k, _)| k.as_str()))
}

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The path that starts at `rest` (`walk::classify(..)` gives
/// `walk::classify`).
fn path_at(rest: &str) -> String {
    let bytes = rest.as_bytes();
    let mut end = 0;
    loop {
        let ident = bytes[end..]
            .iter()
            .take_while(|b| ident_char(char::from(**b)))
            .count();
        if ident == 0 {
            break;
        }
        end += ident;
        let more = bytes[end..].starts_with(b"::")
            && bytes
                .get(end + 2)
                .is_some_and(|b| ident_char(char::from(*b)));
        if !more {
            break;
        }
        end += 2;
    }
    rest[..end].to_string()
}

/// The paths named in a `{a, b::c, d::{e, f}}` group that starts at
/// `rest` (just after its `{`): each top-level item's path.
fn group_paths(rest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut start = true;
    for (i, c) in rest.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => start = true,
            c if start && ident_char(c) => {
                out.push(path_at(&rest[i..]));
                start = false;
            }
            _ => {}
        }
    }
    out
}

/// Every path a line names under `prefix` (`crate::`), groups included.
fn paths_after(line: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = line[from..].find(prefix) {
        let start = from + at;
        let before = line[..start].chars().next_back();
        from = start + prefix.len();
        if before.is_some_and(|c| ident_char(c) || c == '$' || c == ':') {
            continue;
        }
        let rest = &line[from..];
        if let Some(group) = rest.strip_prefix('{') {
            out.extend(group_paths(group));
        } else {
            out.push(path_at(rest));
        }
    }
    out
}

/// A reference from one file's line to a row of the table.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Reference {
    file: String,
    line: usize,
    from: String,
    to: String,
}

/// The references of one file (`rel`, relative to `src/`) to other rows.
/// `lib_items`: the names `lib.rs` defines; `top`: the top-level modules.
fn references(
    table: &Table,
    rel: &str,
    text: &str,
    lib_items: &BTreeSet<String>,
    top: &BTreeSet<String>,
) -> Result<Vec<Reference>, String> {
    let module = module_of_file(rel);
    let from = row_of(table, &module)
        .ok_or_else(|| format!("src/{rel}: module `{module}` has no row in the layer table"))?;
    let prefix = if module == "main" {
        "idemlint::"
    } else {
        "crate::"
    };
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut paths = paths_after(line, prefix);
        if module == "lib" {
            paths.extend(top.iter().flat_map(|m| {
                paths_after(line, &format!("{m}::"))
                    .into_iter()
                    .map(move |p| format!("{m}::{p}"))
            }));
        }
        for path in paths {
            let first = path.split("::").next().unwrap_or("");
            let to = if top.contains(first) {
                row_of(table, &path)
            } else if lib_items.contains(first) {
                Some("lib")
            } else {
                // Not a module nor an item of the crate root: a path in a
                // test's Rust text (`"crate::schema::events"`).
                None
            };
            if let Some(to) = to.filter(|to| *to != from) {
                out.push(Reference {
                    file: format!("src/{rel}"),
                    line: n + 1,
                    from: from.to_string(),
                    to: to.to_string(),
                });
            }
        }
    }
    Ok(out)
}

/// The names `lib.rs` defines at its top level (`check_with`, `Outcome`).
fn lib_items(lib: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in lib.lines() {
        let mut words = line.split_whitespace().peekable();
        while let Some(w) = words.next() {
            if matches!(
                w,
                "fn" | "struct" | "enum" | "const" | "static" | "type" | "trait"
            ) {
                if let Some(name) = words.peek() {
                    let name: String = name.chars().take_while(|c| ident_char(*c)).collect();
                    if !name.is_empty() {
                        out.insert(name);
                    }
                }
                break;
            }
            if !(w.starts_with("pub") || w == "async" || w == "unsafe") {
                break;
            }
        }
    }
    out
}

/// What is wrong with `files` (path under `src/`, text) against `table`:
/// a file without a row, a reference up a layer, a circle within one.
fn violations(table: &Table, files: &[(String, String)]) -> Vec<String> {
    let top: BTreeSet<String> = files
        .iter()
        .map(|(rel, _)| module_of_file(rel))
        .map(|m| m.split("::").next().unwrap_or("").to_string())
        .filter(|m| m != "lib" && m != "main")
        .collect();
    let lib = files
        .iter()
        .find(|(rel, _)| rel == "lib.rs")
        .map_or_else(BTreeSet::new, |(_, text)| lib_items(text));
    let mut out = Vec::new();
    let mut refs = Vec::new();
    for (rel, text) in files {
        match references(table, rel, text, &lib, &top) {
            Ok(r) => refs.extend(r),
            Err(e) => out.push(e),
        }
    }
    for row in table.keys() {
        let first = row.split("::").next().unwrap_or("");
        if !top.contains(first) && row != "lib" && row != "main" {
            out.push(format!(
                "the layer table names `{row}`, which is no module under src/"
            ));
        }
    }
    let layer = |m: &str| &table[m];
    let mut known_seen = BTreeSet::new();
    let mut same_layer: BTreeMap<&str, BTreeMap<&str, &Reference>> = BTreeMap::new();
    for r in &refs {
        let (lf, lt) = (layer(&r.from), layer(&r.to));
        if let Some(k) = KNOWN.iter().find(|k| k.0 == r.from && k.1 == r.to) {
            known_seen.insert(k.0);
            continue;
        }
        if lt.0 > lf.0 {
            out.push(format!(
                "{}:{}: `{}` (layer {} {}) refers to `{}` (layer {} {}), a layer above it",
                r.file, r.line, r.from, lf.0, lf.1, r.to, lt.0, lt.1
            ));
        } else if lt.0 == lf.0 {
            same_layer
                .entry(&r.from)
                .or_default()
                .entry(&r.to)
                .or_insert(r);
        }
    }
    for k in KNOWN {
        if !known_seen.contains(k.0) && table.contains_key(k.0) {
            out.push(format!(
                "`{}` no longer refers to `{}`: delete its entry from KNOWN in tests/layers.rs",
                k.0, k.1
            ));
        }
    }
    out.extend(circles(&same_layer, table));
    out
}

/// The circles among references within one layer, each named by its
/// references (file and line) and its layer.
fn circles(edges: &BTreeMap<&str, BTreeMap<&str, &Reference>>, table: &Table) -> Vec<String> {
    let mut out = Vec::new();
    let mut reported: BTreeSet<BTreeSet<String>> = BTreeSet::new();
    for &start in edges.keys() {
        // Depth-first from `start`, looking for a way back to it.
        let mut stack: Vec<(&str, Vec<&Reference>)> = vec![(start, Vec::new())];
        let mut seen = BTreeSet::new();
        while let Some((at, trail)) = stack.pop() {
            for (&next, &r) in edges.get(at).into_iter().flatten() {
                let mut trail = trail.clone();
                trail.push(r);
                if next == start {
                    let members: BTreeSet<String> = trail.iter().map(|r| r.from.clone()).collect();
                    if reported.insert(members) {
                        let (n, name) = &table[start];
                        let steps: Vec<String> = trail
                            .iter()
                            .map(|r| format!("{}:{}: `{}` -> `{}`", r.file, r.line, r.from, r.to))
                            .collect();
                        out.push(format!(
                            "a circle within layer {n} {name}: {}",
                            steps.join("; ")
                        ));
                    }
                } else if seen.insert(next) {
                    stack.push((next, trail));
                }
            }
        }
    }
    out
}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, root, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p.strip_prefix(root).expect("under src/");
            let rel = rel.to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&p).expect("a source file is UTF-8");
            out.push((rel, text));
        }
    }
}

#[test]
fn every_module_refers_only_to_its_own_layer_or_below_and_in_no_circle() {
    let doc = std::fs::read_to_string(manifest().join("docs/architecture.md"))
        .expect("docs/architecture.md");
    let table = parse_table(&doc);
    assert!(table.len() > 10, "no layer table in docs/architecture.md");
    let src = manifest().join("src");
    let mut files = Vec::new();
    rust_files(&src, &src, &mut files);
    let found = violations(&table, &files);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

fn planted_table() -> Table {
    parse_table(
        "| Module | Layer | What |\n|---|---|---|\n\
         | `source` | 0 ground | spans |\n\
         | `model` | 2 model | joins |\n\
         | `frontend` | 1 front ends | reads |\n\
         | `frontend::sql` | 1 front ends | sql |\n\
         | `render` | 3 pipeline | prints |\n\
         | `lib` | 3 pipeline | the run |\n",
    )
}

fn planted(files: &[(&str, &str)]) -> Vec<String> {
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    violations(&planted_table(), &files)
}

#[test]
fn a_planted_reference_up_a_layer_is_named_with_its_file_line_and_layers() {
    let ok = [
        (
            "lib.rs",
            "pub mod model;\npub fn check_with() { model::run(); }\n",
        ),
        ("source.rs", "pub struct Span;\n"),
        ("frontend/mod.rs", "use crate::source::Span;\n"),
        (
            "frontend/sql.rs",
            "use crate::{source::Span, frontend::Facts};\n",
        ),
        (
            "model.rs",
            "/// Joins [`crate::frontend::Facts`].\nuse crate::frontend;\n",
        ),
        ("render.rs", "use crate::check_with;\n"),
    ];
    assert_eq!(planted(&ok), Vec::<String>::new());
    // A doc link in a front end to the model above it.
    let mut up = ok;
    up[2] = (
        "frontend/mod.rs",
        "use crate::source::Span;\n/// See [`crate::model::join`].\n",
    );
    assert_eq!(
        planted(&up),
        ["src/frontend/mod.rs:2: `frontend` (layer 1 front ends) refers to `model` (layer 2 model), a layer above it"]
    );
    // A `use` group in the ground layer that names the pipeline's item.
    up = ok;
    up[1] = ("source.rs", "use crate::{check_with, Options};\n");
    let found = planted(&up);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("src/source.rs:1: `source` (layer 0 ground) refers to `lib`"));
    // A path inside a test's Rust text names no module: no reference.
    up = ok;
    up[1] = (
        "source.rs",
        "const T: &str = \"use crate::schema::events;\";\n",
    );
    assert_eq!(planted(&up), Vec::<String>::new());
}

#[test]
fn a_planted_circle_within_a_layer_is_named_with_each_step() {
    let files = [
        ("lib.rs", "pub mod model;\n"),
        ("source.rs", "pub struct Span;\n"),
        (
            "frontend/mod.rs",
            "pub fn f() { crate::frontend::sql::g(); }\n",
        ),
        ("frontend/sql.rs", "pub fn g() { crate::frontend::f(); }\n"),
        ("model.rs", "\n"),
        ("render.rs", "\n"),
    ];
    let found = planted(&files);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("a circle within layer 1 front ends: "),
        "{}",
        found[0]
    );
    assert!(found[0].contains("src/frontend/mod.rs:1: `frontend` -> `frontend::sql`"));
    assert!(found[0].contains("src/frontend/sql.rs:1: `frontend::sql` -> `frontend`"));
}

#[test]
fn a_module_without_a_row_and_a_row_without_a_module_are_named() {
    let files = [
        ("lib.rs", "\n"),
        ("source.rs", "\n"),
        ("frontend/mod.rs", "\n"),
        ("frontend/sql.rs", "\n"),
        ("model.rs", "\n"),
        ("audit.rs", "\n"),
    ];
    let found = planted(&files);
    assert!(
        found.contains(&"src/audit.rs: module `audit` has no row in the layer table".to_string()),
        "{found:?}"
    );
    assert!(
        found
            .contains(&"the layer table names `render`, which is no module under src/".to_string()),
        "{found:?}"
    );
}

/// The modules whose code names no front end: the fact layer, which the
/// front ends lower into, and the model and the rules, which judge those
/// facts whatever language they were lowered from. A layer check alone
/// would let them name `crate::frontend` no more than any other module
/// above it may; this one holds them to the facts.
const FRONTEND_BLIND: &[&str] = &["facts", "model", "rules"];

/// The lines of `text` outside its test items, with their numbers. A test
/// item is one a `#[cfg(test)]` line precedes (other attributes may come
/// between): an inline test module, a test helper (`fn parsed(..)` that
/// builds facts from texts), a `use`. It spans from its first line to the
/// `}` line at that line's indentation (rustfmt's layout), or that line
/// alone when it ends with `;`. Tests compile it alone, so it may call
/// `frontend::parse` to build the facts it judges; `#[cfg(..)]` of any
/// other form hides nothing.
fn outside_test_items(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() == "#[cfg(test)]" {
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim_start().starts_with("#[") {
                j += 1;
            }
            if let Some(item) = lines.get(j) {
                let indent = &item[..item.len() - item.trim_start().len()];
                let close = format!("{indent}}}");
                let end = if item.trim_end().ends_with(';') {
                    Some(j)
                } else {
                    (j + 1..lines.len()).find(|&k| lines[k] == close)
                };
                i = end.map_or(lines.len(), |k| k + 1);
                continue;
            }
        }
        out.push((i + 1, lines[i]));
        i += 1;
    }
    out
}

/// Where a file of [`FRONTEND_BLIND`] names `crate::frontend` outside its
/// test items (a `use` line, a path, a doc link, a `use crate::{..}`
/// group).
fn frontend_named(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, text) in files {
        let module = module_of_file(rel);
        let top = module.split("::").next().unwrap_or("");
        if !FRONTEND_BLIND.contains(&top) {
            continue;
        }
        for (n, line) in outside_test_items(text) {
            let named = paths_after(line, "crate::")
                .iter()
                .any(|p| p.split("::").next() == Some("frontend"));
            if named {
                out.push(format!(
                    "src/{rel}:{n}: `{module}` names `crate::frontend` outside test code: it reads `crate::facts`, never a front end"
                ));
            }
        }
    }
    out
}

#[test]
fn the_facts_the_model_and_the_rules_name_no_front_end() {
    let src = manifest().join("src");
    let mut files = Vec::new();
    rust_files(&src, &src, &mut files);
    let found = frontend_named(&files);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn a_planted_front_end_name_outside_test_code_is_named() {
    let files = |model: &str| {
        vec![
            ("model/mod.rs".to_string(), model.to_string()),
            (
                "frontend/mod.rs".to_string(),
                "use crate::facts::FileFacts;\n".to_string(),
            ),
        ]
    };
    let clean = "use crate::facts::flow::FnTrace;\n\
                 #[cfg(test)]\n\
                 #[allow(clippy::unwrap_used)]\n\
                 mod tests {\n    use crate::frontend;\n    \
                 fn t() {\n        frontend::parse();\n    }\n}\n";
    assert_eq!(frontend_named(&files(clean)), Vec::<String>::new());
    // A `use` of a front end's type in the model's code.
    let used = "use crate::frontend::rust::flow::FnFlow;\n";
    assert_eq!(
        frontend_named(&files(used)),
        ["src/model/mod.rs:1: `model` names `crate::frontend` outside test code: it reads `crate::facts`, never a front end"]
    );
    // After the test module closes, code is judged again; a group counts.
    let after = format!("{clean}pub fn f() {{ use crate::{{facts, frontend::conf}}; }}\n");
    let found = frontend_named(&files(&after));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("src/model/mod.rs:10: "), "{found:?}");
    // A test helper is test code; a `#[cfg(..)]` of another form is not.
    let helper = "#[cfg(test)]\npub(crate) fn parsed(\n    text: &str,\n) -> Facts {\n    \
                  crate::frontend::parse(text)\n}\nuse crate::facts::FileFacts;\n";
    assert_eq!(frontend_named(&files(helper)), Vec::<String>::new());
    let feature = "#[cfg(feature = \"x\")]\nfn f() { crate::frontend::parse(); }\n";
    let found = frontend_named(&files(feature));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("src/model/mod.rs:2: "), "{found:?}");
    // The front ends themselves may name each other.
    let own = vec![(
        "frontend/rust/mod.rs".to_string(),
        "use crate::frontend::sql::dml;\n".to_string(),
    )];
    assert_eq!(frontend_named(&own), Vec::<String>::new());
}
