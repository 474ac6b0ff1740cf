//! Where a TypeScript import leads by the project's `tsconfig.json`: its
//! `compilerOptions.paths` (`"~/*": ["./app/*"]`) and `baseUrl`, inherited
//! through `extends` between configs of the tree. A file is governed by
//! the nearest `tsconfig.json` above it (else `jsconfig.json`), as an
//! editor takes it. The flow model resolves a call to an imported
//! function through it; an import no config maps keeps the front end's
//! reading (`@/`, `~/` and `#/` name the source root).
//!
//! Not read: `extends` of a package (`@tsconfig/node20`), `references`,
//! and a target that names a file other than the first of its list.

use crate::facts::config::{ConfDoc, PathSeg};
use crate::facts::FileFacts;
use crate::source::SourceMap;
use std::collections::HashMap;

/// Configs deeper than this in an `extends` chain are not followed.
const MAX_EXTENDS: usize = 16;

/// One config as written.
#[derive(Debug, Default)]
struct Config {
    /// Its directory (`apps/webapp`, `` at the root).
    dir: String,
    /// The configs it extends, as tree paths, in order.
    extends: Vec<String>,
    /// `baseUrl`, as a tree path.
    base_url: Option<String>,
    /// `paths`: each pattern and its first target, as written.
    paths: Option<Vec<(String, String)>>,
}

/// The TypeScript configs of the tree.
#[derive(Debug, Default)]
pub struct TsPaths {
    configs: HashMap<String, Config>,
}

impl TsPaths {
    /// The configs among the parsed files.
    pub fn build(files: &[FileFacts], sources: &SourceMap) -> TsPaths {
        let mut configs = HashMap::new();
        for f in files {
            let path = sources.path(f.file).replace('\\', "/");
            let name = path.rsplit('/').next().unwrap_or(&path);
            let config = (name.starts_with("tsconfig") || name.starts_with("jsconfig"))
                && name.ends_with(".json");
            if let (true, Some(doc)) = (config, &f.conf) {
                configs.insert(path.clone(), read(&path, doc));
            }
        }
        TsPaths { configs }
    }

    /// The file an import of `spec` in the file at `importer` leads to, as
    /// a tree path without its extension (`apps/webapp/app/services/pay`);
    /// `None` for a relative import or one no config maps.
    pub fn resolve(&self, importer: &str, spec: &str) -> Option<String> {
        if spec.starts_with('.') || self.configs.is_empty() {
            return None;
        }
        let config = self.governing(importer)?;
        let (paths, base) = self.effective(config)?;
        let target = best_match(&paths, spec)?;
        Some(strip_module(&join(&base, &target)))
    }

    /// The nearest `tsconfig.json` above a file, else `jsconfig.json`.
    fn governing(&self, importer: &str) -> Option<&str> {
        let mut dir = importer.replace('\\', "/");
        loop {
            dir = match dir.rfind('/') {
                Some(i) => dir[..i].to_string(),
                None if dir.is_empty() => return None,
                None => String::new(),
            };
            for name in ["tsconfig.json", "jsconfig.json"] {
                let p = if dir.is_empty() {
                    name.to_string()
                } else {
                    format!("{dir}/{name}")
                };
                if let Some((k, _)) = self.configs.get_key_value(&p) {
                    return Some(k);
                }
            }
            if dir.is_empty() {
                return None;
            }
        }
    }

    /// The `paths` a config has, its own or inherited (each target made a
    /// tree path), and the directory they resolve from.
    fn effective(&self, path: &str) -> Option<(Vec<(String, String)>, String)> {
        let mut chain = vec![path.to_string()];
        let mut base_url = None;
        let mut paths = None;
        // Breadth-first up the `extends` chain: the nearest setting wins.
        let mut i = 0;
        while i < chain.len() && chain.len() <= MAX_EXTENDS {
            let c = self.configs.get(&chain[i])?;
            if base_url.is_none() {
                base_url.clone_from(&c.base_url);
            }
            if paths.is_none() {
                paths = c.paths.as_ref().map(|p| (p.clone(), c.dir.clone()));
            }
            for e in c.extends.iter().rev() {
                if self.configs.contains_key(e) && !chain.contains(e) {
                    chain.push(e.clone());
                }
            }
            i += 1;
        }
        let (paths, declared_in) = paths?;
        Some((paths, base_url.unwrap_or(declared_in)))
    }
}

/// Whether a config entry at `path` is one [`TsPaths`] reads: `extends`,
/// `compilerOptions.baseUrl` and `compilerOptions.paths` (kept when the
/// model drops what no reader of a config tree needs).
pub fn setting(path: &[PathSeg]) -> bool {
    let key = |i: usize| match path.get(i) {
        Some(PathSeg::Key(k)) => Some(k.as_str()),
        _ => None,
    };
    match key(0) {
        Some("extends") => path.len() <= 2,
        Some("compilerOptions") => matches!(key(1), Some("baseUrl" | "paths")) && path.len() <= 4,
        _ => false,
    }
}

/// A config's settings, its relative paths made tree paths.
fn read(path: &str, doc: &ConfDoc) -> Config {
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    let mut c = Config {
        dir: dir.clone(),
        ..Config::default()
    };
    for e in &doc.entries {
        let Some(value) = e.scalar() else { continue };
        let keys: Vec<&str> = e
            .path
            .iter()
            .filter_map(|s| match s {
                PathSeg::Key(k) => Some(k.as_str()),
                PathSeg::Index(_) => None,
            })
            .collect();
        let first = matches!(e.path.last(), Some(PathSeg::Index(0)));
        match keys.as_slice() {
            ["extends"] if value.starts_with('.') => c.extends.push(config_path(&dir, value)),
            ["compilerOptions", "baseUrl"] => c.base_url = Some(join(&dir, value)),
            ["compilerOptions", "paths", pattern] if first => c
                .paths
                .get_or_insert_with(Vec::new)
                .push(((*pattern).to_string(), value.to_string())),
            _ => {}
        }
    }
    c
}

/// An `extends` path as the tree path of a config (`.json` optional).
fn config_path(dir: &str, value: &str) -> String {
    let p = join(dir, value);
    if p.ends_with(".json") {
        p
    } else {
        format!("{p}.json")
    }
}

/// The target of the pattern that matches `spec`: an exact pattern first,
/// else the `*` pattern with the longest prefix, as TypeScript picks.
fn best_match(paths: &[(String, String)], spec: &str) -> Option<String> {
    if let Some((_, t)) = paths.iter().find(|(p, _)| p == spec) {
        return Some(t.clone());
    }
    paths
        .iter()
        .filter_map(|(p, t)| {
            let (pre, post) = p.split_once('*')?;
            let middle = spec.strip_prefix(pre)?.strip_suffix(post)?;
            Some((pre.len(), t.replacen('*', middle, 1)))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, t)| t)
}

/// `rel` taken from `dir`, `.` and `..` folded.
fn join(dir: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// A target as a module's tree path: its extension and an `index` file
/// name dropped, as the front end names an import's module.
fn strip_module(p: &str) -> String {
    const EXTENSIONS: &[&str] = &[
        ".d.ts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs",
    ];
    let p = EXTENSIONS
        .iter()
        .find_map(|e| p.strip_suffix(e))
        .unwrap_or(p);
    p.strip_suffix("/index").unwrap_or(p).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &str, extends: &[&str], base: Option<&str>, paths: &[(&str, &str)]) -> Config {
        Config {
            dir: dir.to_string(),
            extends: extends.iter().map(|s| s.to_string()).collect(),
            base_url: base.map(str::to_string),
            paths: (!paths.is_empty()).then(|| {
                paths
                    .iter()
                    .map(|(p, t)| (p.to_string(), t.to_string()))
                    .collect()
            }),
        }
    }

    fn tree(configs: Vec<(&str, Config)>) -> TsPaths {
        TsPaths {
            configs: configs
                .into_iter()
                .map(|(p, c)| (p.to_string(), c))
                .collect(),
        }
    }

    #[test]
    fn an_alias_leads_into_the_directory_its_config_names() {
        let t = tree(vec![(
            "apps/webapp/tsconfig.json",
            config("apps/webapp", &[], None, &[("~/*", "./app/*")]),
        )]);
        assert_eq!(
            t.resolve("apps/webapp/app/routes/pay.ts", "~/services/refund.server")
                .as_deref(),
            Some("apps/webapp/app/services/refund.server")
        );
        // Relative imports and packages are the front end's.
        assert_eq!(t.resolve("apps/webapp/app/routes/pay.ts", "./x"), None);
        assert_eq!(t.resolve("apps/webapp/app/routes/pay.ts", "stripe"), None);
        // A file outside the config's directory is not governed by it.
        assert_eq!(t.resolve("apps/other/pay.ts", "~/services/x"), None);
    }

    #[test]
    fn paths_are_inherited_through_extends_and_resolved_from_base_url() {
        let t = tree(vec![
            (
                "tsconfig.base.json",
                config(
                    "",
                    &[],
                    Some(""),
                    &[
                        ("@acme/billing", "packages/billing/src/index.ts"),
                        ("@acme/*", "packages/*/src"),
                    ],
                ),
            ),
            (
                "apps/api/tsconfig.json",
                config("apps/api", &["tsconfig.base.json"], None, &[]),
            ),
        ]);
        assert_eq!(
            t.resolve("apps/api/src/routes.ts", "@acme/billing")
                .as_deref(),
            Some("packages/billing/src")
        );
        assert_eq!(
            t.resolve("apps/api/src/routes.ts", "@acme/ledger/post")
                .as_deref(),
            Some("packages/ledger/post/src")
        );
    }

    #[test]
    fn the_longest_prefix_wins_and_a_cycle_of_extends_ends() {
        let t = tree(vec![
            (
                "tsconfig.json",
                config(
                    "",
                    &["a.json"],
                    None,
                    &[("@/*", "./src/*"), ("@/lib/*", "./lib/*")],
                ),
            ),
            ("a.json", config("", &["tsconfig.json"], None, &[])),
        ]);
        assert_eq!(
            t.resolve("src/x.ts", "@/lib/pay").as_deref(),
            Some("lib/pay")
        );
        assert_eq!(
            t.resolve("src/x.ts", "@/pay/index").as_deref(),
            Some("src/pay")
        );
    }

    #[test]
    fn a_config_is_read_from_its_json() {
        use crate::facts::config::{ConfEntry, ConfValue, Key, ScalarStyle};
        use crate::source::Span;
        let entry = |path: Vec<PathSeg>, v: &str| ConfEntry {
            doc: 0,
            path,
            key_span: None,
            value: ConfValue::Scalar {
                text: v.to_string(),
                style: ScalarStyle::DoubleQuoted,
            },
            value_span: Span::new(0, 0),
            tag: None,
        };
        let k = |s: &str| PathSeg::Key(Key::from(s));
        let doc = ConfDoc {
            entries: vec![
                entry(vec![k("extends")], "../../tsconfig.base"),
                entry(vec![k("compilerOptions"), k("baseUrl")], "."),
                entry(
                    vec![
                        k("compilerOptions"),
                        k("paths"),
                        k("~/*"),
                        PathSeg::Index(0),
                    ],
                    "app/*",
                ),
                entry(
                    vec![
                        k("compilerOptions"),
                        k("paths"),
                        k("~/*"),
                        PathSeg::Index(1),
                    ],
                    "other/*",
                ),
            ],
        };
        let c = read("apps/web/tsconfig.json", &doc);
        assert_eq!(c.extends, vec!["tsconfig.base.json".to_string()]);
        assert_eq!(c.base_url.as_deref(), Some("apps/web"));
        assert_eq!(
            c.paths,
            Some(vec![("~/*".to_string(), "app/*".to_string())])
        );
    }
}
