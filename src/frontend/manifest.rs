//! Dependency manifests: which libraries that keep dedup keys or locks in
//! Redis (`rules/redis.toml` `[[dedup_library]]`) a project or one app of a
//! monorepo depends on, each with the span of the name on its manifest line.
//! Not for versions, and not for anything else a manifest says.
//!
//! package.json and pyproject.toml are read from the tree their own parsers
//! built (the JSON reader, toml_edit). A Gemfile is Ruby: only its
//! `gem "name"` lines are read, not code that computes a dependency.
//! Gemfile.lock is read for its `DEPENDENCIES` section (the direct ones),
//! requirements*.txt line by line, go.mod for its `require` lines.

use crate::facts::config::{ConfDoc, PathSeg};
use crate::facts::redis::DedupDep;
use crate::knowledge;
use crate::source::Span;

/// The package ecosystems a manifest belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ecosystem {
    RubyGems,
    Npm,
    PyPi,
    Go,
}

impl Ecosystem {
    fn id(self) -> &'static str {
        match self {
            Ecosystem::RubyGems => "rubygems",
            Ecosystem::Npm => "npm",
            Ecosystem::PyPi => "pypi",
            Ecosystem::Go => "go",
        }
    }
}

/// PyPI compares names with `-`, `_` and `.` alike; the others as written,
/// ASCII case-insensitively.
fn same_name(eco: Ecosystem, a: &str, b: &str) -> bool {
    let norm = |s: &str| -> String {
        s.chars()
            .map(|c| match c {
                '_' | '.' if eco == Ecosystem::PyPi => '-',
                c => c.to_ascii_lowercase(),
            })
            .collect()
    };
    norm(a) == norm(b)
}

/// The catalogue entry a package name of `eco` is, if any.
pub fn library_of(eco: Ecosystem, name: &str) -> Option<usize> {
    knowledge::redis()
        .dedup_library
        .iter()
        .position(|l| l.ecosystem == eco.id() && l.packages.iter().any(|p| same_name(eco, p, name)))
}

fn dep(eco: Ecosystem, name: &str, start: usize) -> Option<DedupDep> {
    library_of(eco, name).map(|library| DedupDep {
        library,
        package: name.to_string(),
        span: Span::new(start, start + name.len()),
    })
}

/// The libraries a package.json (`dependencies`, `optionalDependencies`)
/// depends on. Development dependencies do not run in production.
pub fn from_package_json(doc: &ConfDoc) -> Vec<DedupDep> {
    doc.entries
        .iter()
        .filter(|e| e.doc == 0)
        .filter_map(|e| match e.path.as_slice() {
            [PathSeg::Key(section), PathSeg::Key(name)]
                if section == "dependencies" || section == "optionalDependencies" =>
            {
                let span = e.key_span?;
                let mut d = dep(Ecosystem::Npm, name, span.start)?;
                d.span = span;
                Some(d)
            }
            _ => None,
        })
        .collect()
}

/// The libraries a pyproject.toml depends on: PEP 621
/// `[project] dependencies = ["name>=1"]` and Poetry's
/// `[tool.poetry.dependencies] name = "^1"`.
pub fn from_pyproject(doc: &ConfDoc, text: &str) -> Vec<DedupDep> {
    let mut out = Vec::new();
    for e in &doc.entries {
        match e.path.as_slice() {
            [PathSeg::Key(p), PathSeg::Key(d), PathSeg::Index(_)]
                if p == "project" && d == "dependencies" =>
            {
                let Some(written) = text.get(e.value_span.start..e.value_span.end) else {
                    continue;
                };
                let quote = usize::from(written.starts_with(['"', '\'']));
                let name = requirement_name(&written[quote..]);
                out.extend(dep(Ecosystem::PyPi, name, e.value_span.start + quote));
            }
            [PathSeg::Key(t), PathSeg::Key(p), PathSeg::Key(d), PathSeg::Key(name)]
                if t == "tool" && p == "poetry" && d == "dependencies" =>
            {
                if let Some(span) = e.key_span {
                    if let Some(mut d) = dep(Ecosystem::PyPi, name, span.start) {
                        d.span = span;
                        out.push(d);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The distribution name at the start of a PEP 508 requirement
/// (`celery-once[redis]>=3.0 ; python_version > "3"` → `celery-once`).
fn requirement_name(req: &str) -> &str {
    let end = req
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(req.len());
    &req[..end]
}

/// Lines with their byte offsets.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    text.split_inclusive('\n').map(move |l| {
        let start = at;
        at += l.len();
        (start, l.trim_end_matches(['\n', '\r']))
    })
}

/// Which line format a manifest of the `manifest` kind is, from its name
/// (`Gemfile`, `Gemfile.lock`, `go.mod`, `requirements*.txt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineFormat {
    Gemfile,
    GemfileLock,
    GoMod,
    Requirements,
}

impl LineFormat {
    /// The format a manifest's text is: the front end is not told the
    /// file's name, and each format has a telling line.
    pub fn sniff(text: &str) -> Self {
        let mut gem = false;
        for (_, l) in lines(text) {
            match l {
                "DEPENDENCIES" | "GEM" | "PATH" | "GIT" => return LineFormat::GemfileLock,
                _ if l.starts_with("module ") => return LineFormat::GoMod,
                _ if gem_name(l).is_some() || l.trim_start().starts_with("source ") => gem = true,
                _ => {}
            }
        }
        if gem {
            LineFormat::Gemfile
        } else {
            LineFormat::Requirements
        }
    }
}

/// `gem "name", "~> 1"` → (offset of `name` in the line, `name`).
fn gem_name(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_start();
    let rest = t.strip_prefix("gem")?;
    let after = rest.trim_start();
    if after.len() == rest.len() && !after.starts_with('(') {
        return None;
    }
    let after = after.strip_prefix('(').unwrap_or(after).trim_start();
    let q = after.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let body = &after[1..];
    let end = body.find(q)?;
    let offset = line.len() - body.len();
    Some((offset, &body[..end]))
}

/// The libraries a line-format manifest depends on.
pub fn from_lines(text: &str) -> Vec<DedupDep> {
    let format = LineFormat::sniff(text);
    let mut out = Vec::new();
    let mut in_section = false;
    let mut in_require = false;
    for (start, l) in lines(text) {
        let found = match format {
            LineFormat::Gemfile => {
                gem_name(l).and_then(|(at, n)| dep(Ecosystem::RubyGems, n, start + at))
            }
            LineFormat::GemfileLock => {
                if !l.starts_with(' ') {
                    in_section = l == "DEPENDENCIES";
                    continue;
                }
                // `  name (~> 1.0)` or `  name!` directly under the section.
                let t = l.trim_start();
                if !in_section || l.len() - t.len() != 2 {
                    continue;
                }
                let n = t.split([' ', '!']).next().unwrap_or(t);
                dep(Ecosystem::RubyGems, n, start + 2)
            }
            LineFormat::GoMod => {
                let t = l.trim_start();
                if t.starts_with("require (") {
                    in_require = true;
                    continue;
                }
                if in_require && t.starts_with(')') {
                    in_require = false;
                    continue;
                }
                let spec = if in_require {
                    Some(t)
                } else {
                    t.strip_prefix("require ").map(str::trim_start)
                };
                spec.and_then(|s| {
                    let path = s.split_whitespace().next()?;
                    dep(Ecosystem::Go, path, start + (l.len() - s.len()))
                })
            }
            LineFormat::Requirements => {
                let t = l.trim_start();
                if t.starts_with(['#', '-']) {
                    continue;
                }
                let n = requirement_name(t);
                (!n.is_empty())
                    .then(|| dep(Ecosystem::PyPi, n, start + (l.len() - t.len())))
                    .flatten()
            }
        };
        out.extend(found);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(deps: &[DedupDep], text: &str) -> Vec<String> {
        deps.iter()
            .map(|d| text[d.span.start..d.span.end].to_string())
            .collect()
    }

    #[test]
    fn gemfile_gem_lines_are_read_and_ruby_code_is_not() {
        let text = "source \"https://rubygems.org\"\n\ngem \"rails\"\ngem 'sidekiq-unique-jobs', '~> 8.0'\ngroup :jobs do\n  gem(\"redlock\")\nend\n# gem \"activejob-uniqueness\"\nname = \"activejob-uniqueness\"\n";
        let deps = from_lines(text);
        assert_eq!(names(&deps, text), ["sidekiq-unique-jobs", "redlock"]);
    }

    #[test]
    fn lock_file_dependencies_section_only() {
        let text = "GEM\n  remote: https://rubygems.org/\n  specs:\n    redlock (2.0.6)\n      redis-client\n\nDEPENDENCIES\n  activejob-uniqueness\n  rails (~> 7.1)\n\nBUNDLED WITH\n   2.5.0\n";
        let deps = from_lines(text);
        assert_eq!(names(&deps, text), ["activejob-uniqueness"]);
    }

    #[test]
    fn requirements_and_pypi_name_normalisation() {
        let text = "# locks\n-r base.txt\npython_redis_lock[django]==4.0.0\ncelery-once>=3 ; python_version>'3'\nredis==5.0\n";
        let deps = from_lines(text);
        assert_eq!(names(&deps, text), ["python_redis_lock", "celery-once"]);
    }

    #[test]
    fn go_mod_reads_require_lines_in_blocks_and_alone() {
        let text = "module example.com/pay\n\ngo 1.22\n\nrequire (\n\tgithub.com/redis/go-redis/v9 v9.5.1\n\tgithub.com/go-redsync/redsync/v4 v4.13.0\n)\n\nrequire github.com/go-redsync/redsync v1.4.2 // indirect\n";
        assert_eq!(LineFormat::sniff(text), LineFormat::GoMod);
        let deps = from_lines(text);
        assert_eq!(
            names(&deps, text),
            [
                "github.com/go-redsync/redsync/v4",
                "github.com/go-redsync/redsync"
            ]
        );
    }
}
