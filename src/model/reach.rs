//! What the files parsed so far say a file not yet read whole can matter
//! to ([`prefilter::Reach`]): the functions that touch a store or send a
//! keyed request, the functions that call them and those they call, as
//! far as calls can resolve (by name inside a crate; across crates through
//! a type, a trait or the crate's name), and their crates. The parse
//! scheduler reads a held or big file whole only when it can join them
//! (`prefilter::reading`).

use super::flows::{module_of, redis_store, type_name};
use super::schema::SchemaModel;
use super::Joins;
use crate::facts::flow::{CallSite, FnTrace, Import, StepKind, TypeDef};
use crate::facts::FileFacts;
use crate::prefilter::reading::{crate_name, Reach};
use crate::source::{FileId, SourceMap};
use std::collections::{HashMap, HashSet};

/// The crate a file's functions belong to in the flow model: the directory
/// above `src/` (the file's own directory when there is none).
pub fn crate_of(path: &str) -> String {
    module_of(path).0
}

/// One function of the parsed files, with its crate.
struct Func<'f> {
    krate: String,
    flow: &'f FnTrace,
    /// The structs of its file, whose fields a receiver path follows.
    structs: &'f [TypeDef],
    /// The imports of its file.
    uses: &'f [Import],
}

impl Func<'_> {
    fn calls(&self) -> impl Iterator<Item = &CallSite> {
        self.flow.events.iter().filter_map(|e| match &e.kind {
            StepKind::Call(site) => Some(site),
            _ => None,
        })
    }
}

/// Whether a call may resolve to a function of a file not read yet: any
/// Rust call, a TypeScript method call, or a TypeScript function imported
/// from a module of the project (`./ledger`, `@/lib/bank`) or a scoped
/// package, which may be one of the workspace's (`@acme/billing`), not
/// from a plain package (`and` of `drizzle-orm`) nor a global (`setTimeout`).
fn local_call(f: &Func<'_>, site: &CallSite) -> bool {
    if !f.flow.script || site.method.is_some() {
        return true;
    }
    let Some(head) = site.path.first() else {
        return false;
    };
    f.uses.iter().any(|u| {
        u.alias == *head
            && u.path
                .first()
                .is_some_and(|m| m == "crate" || m == "super" || m.starts_with('@'))
    })
}

/// The name a call resolves by: its method's, else its path's last.
fn called(site: &CallSite) -> Option<&str> {
    site.method
        .as_deref()
        .or_else(|| site.path.last().map(|n| n.as_str()))
}

/// The types and traits a method call of `f` may resolve through in
/// another crate: its receiver's type (`self`'s is `f`'s own), the traits
/// bounding `f`'s generic parameters, and for a path through fields
/// (`self.repo.record()`) the types of the fields of that name in the
/// structs of `f`'s file.
fn through(f: &Func<'_>, site: &CallSite) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    match site.receiver.first().map(|n| n.as_str()) {
        Some("self") => out.extend(f.flow.owner.iter().cloned()),
        _ => {
            if let Some(Ok(Some(t))) = site.recv_type.as_deref().map(type_name) {
                out.push(t);
            }
        }
    }
    for (_, bounds) in &f.flow.bounds {
        out.extend(bounds.iter().cloned());
    }
    if let Some(last) = site.receiver.last().filter(|_| site.receiver.len() > 1) {
        let fields = f.structs.iter().flat_map(|s| &s.fields);
        for (_, ty) in fields.filter(|(n, _)| n == last.as_str()) {
            if let Ok(Some(t)) = type_name(ty) {
                out.push(t);
            }
        }
    }
    out
}

impl Joins {
    /// What the parsed `files` say a file not read whole can matter to;
    /// empty unless they hold keys ([`super::key_files`]).
    pub fn reach(&self, files: &[FileFacts], sources: &SourceMap) -> Reach {
        let key_files = super::key_files(&self.schema, &self.retention, &self.redis, files);
        self.reach_from(files, sources, &key_files)
    }

    /// [`Joins::reach`], given the files that hold keys.
    fn reach_from(
        &self,
        files: &[FileFacts],
        sources: &SourceMap,
        key_files: &HashSet<FileId>,
    ) -> Reach {
        if key_files.is_empty() {
            return Reach::default();
        }
        let funcs: Vec<Func<'_>> = files
            .iter()
            .filter_map(|f| f.code.as_ref().map(|r| (f.file, r)))
            .flat_map(|(file, r)| {
                let krate = crate_of(sources.path(file));
                r.flow.functions.iter().map(move |flow| Func {
                    krate: krate.clone(),
                    flow,
                    structs: &r.flow.structs,
                    uses: &r.flow.uses,
                })
            })
            .collect();
        let keyed: HashSet<usize> = files
            .iter()
            .filter(|f| {
                f.code
                    .as_ref()
                    .is_some_and(|r| !r.retry.requests.is_empty())
            })
            .map(|f| f.file)
            .collect();
        let mut seeds = Vec::new();
        let mut at = 0;
        for f in files {
            let Some(r) = &f.code else { continue };
            for flow in &r.flow.functions {
                if keyed.contains(&f.file) || touches_store(flow, &self.schema) {
                    seeds.push(at);
                }
                at += 1;
            }
        }
        let graph = Graph::of(&funcs);
        // What a TypeScript file joins by ([`Reach::defined`],
        // [`Reach::called`]) is bounded by how deep the flow model inlines:
        // a caller further than that from every store sees none of it.
        let near_up = within(&graph.callers, seeds.clone(), SCRIPT_DEPTH);
        let near = within(
            &graph.callees,
            near_up.iter().copied().collect(),
            SCRIPT_DEPTH,
        );
        let up = closure(&graph.callers, seeds);
        let reached = closure(&graph.callees, up.iter().copied().collect());
        if std::env::var_os("IDEMLINT_DEBUG_HELD").is_some() {
            eprintln!(
                "REACH funcs {} up {} reached {} near_up {} near {}",
                funcs.len(),
                up.len(),
                reached.len(),
                near_up.len(),
                near.len()
            );
        }
        let mut reach = Reach {
            keys: true,
            tables: self.schema.key_table_code_names(),
            ..Reach::default()
        };
        for &i in &reached {
            let f = &funcs[i];
            let name = &f.flow.name;
            reach.names.insert(name.clone());
            if near_up.contains(&i) {
                reach.defined.insert(name.clone());
                reach.defined.extend(f.flow.owner.iter().cloned());
            }
            let near = near.contains(&i);
            reach.crate_names.extend(crate_name(&f.krate));
            reach.crates.insert(f.krate.clone());
            for t in f.flow.owner.iter().chain(&f.flow.trait_of) {
                reach.owned.insert((t.clone(), name.clone()));
            }
            for site in f.calls() {
                reach.names.extend(called(site).map(str::to_string));
                if near && local_call(f, site) {
                    reach.called.extend(called(site).map(str::to_string));
                }
                reach.names.extend(site.args.iter().map(|n| n.to_string()));
                reach.paths.extend(site.path.iter().map(|n| n.to_string()));
                // A receiver path follows the fields of structs, which
                // may be defined in a file not yet read (`state.provider`).
                reach
                    .names
                    .extend(site.receiver.iter().map(|n| n.to_string()));
                let types = through(f, site);
                if let Some(m) = site.method.as_deref() {
                    for t in &types {
                        reach.methods.insert((t.clone(), m.to_string()));
                    }
                }
                if near {
                    reach.called.extend(types.iter().cloned());
                }
                reach.names.extend(types);
            }
        }
        let packages = &sources.packages;
        reach.judged = key_files
            .iter()
            .map(|&f| packages.of(sources.path(f)).to_string())
            .chain(
                reach
                    .crates
                    .iter()
                    .map(|c| packages.of(&format!("{c}/")).to_string()),
            )
            .collect();
        reach
    }

    /// The code files of the packages where what a file may hold anywhere
    /// is judged ([`Reach::judged`]): a unit slip, a used-token record, a
    /// held-back file's owner-less key.
    pub fn judged_files(&self, files: &[FileFacts], sources: &SourceMap) -> HashSet<FileId> {
        let packages = &sources.packages;
        let code: Vec<(FileId, &str)> = files
            .iter()
            .filter(|f| f.code.is_some())
            .map(|f| (f.file, packages.of(sources.path(f.file))))
            .collect();
        let key_files = super::key_files(&self.schema, &self.retention, &self.redis, files);
        let holding: HashSet<&str> = key_files
            .iter()
            .map(|&f| packages.of(sources.path(f)))
            .collect();
        // Only a package that holds no key itself needs the calls between
        // functions (one manifest over the tree, or none, is the usual case).
        let reach;
        let judged: HashSet<&str> = if code.iter().all(|(_, p)| holding.contains(p)) {
            holding
        } else {
            reach = self.reach_from(files, sources, &key_files);
            reach.judged.iter().map(String::as_str).collect()
        };
        code.into_iter()
            .filter(|(_, p)| judged.contains(p))
            .map(|(f, _)| f)
            .collect()
    }
}

/// Whether a function reads or writes a store: a SQL statement on a table
/// the schema holds as one, or a Redis key that names one.
fn touches_store(flow: &FnTrace, schema: &SchemaModel) -> bool {
    flow.events.iter().any(|e| match &e.kind {
        StepKind::Sql { dml, .. } => schema.is_store_name(&dml.table),
        StepKind::Redis { key, .. } => redis_store(key).is_some(),
        _ => false,
    })
}

/// The calls between the parsed functions, wider than the flow model
/// resolves them: inside a crate by name; across crates by name and
/// through a type, trait or crate name the call names.
struct Graph {
    callees: Vec<Vec<usize>>,
    callers: Vec<Vec<usize>>,
}

impl Graph {
    fn of(funcs: &[Func<'_>]) -> Self {
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut methods: HashMap<(&str, &str), usize> = HashMap::new();
        for (i, f) in funcs.iter().enumerate() {
            by_name.entry(f.flow.name.as_str()).or_default().push(i);
            if f.flow.owner.is_some() {
                *methods.entry((&f.krate, &f.flow.name)).or_default() += 1;
            }
        }
        let mut callees = vec![Vec::new(); funcs.len()];
        let mut callers = vec![Vec::new(); funcs.len()];
        for (i, f) in funcs.iter().enumerate() {
            for site in f.calls() {
                let Some(name) = called(site) else { continue };
                let Some(targets) = by_name.get(name) else {
                    continue;
                };
                let types = through(f, site);
                let unknown = unknown_receiver(f, site);
                for &g in targets {
                    let t = &funcs[g];
                    if unknown
                        && !(t.krate == f.krate
                            && t.flow.owner.is_some()
                            && methods.get(&(f.krate.as_str(), name)) == Some(&1)
                            && !super::flows::PLAIN_METHODS.contains(&name))
                    {
                        continue;
                    }
                    let crosses = || {
                        t.flow
                            .owner
                            .iter()
                            .chain(&t.flow.trait_of)
                            .any(|o| types.contains(o))
                            || crate_name(&t.krate)
                                .is_some_and(|n| site.path.iter().any(|p| *p == n))
                    };
                    if t.krate == f.krate || crosses() {
                        callees[i].push(g);
                        callers[g].push(i);
                    }
                }
            }
        }
        Graph { callees, callers }
    }
}

/// How many calls from a store a TypeScript file's join reaches
/// ([`within`]): the flow model inlines [`super::flows::MAX_CALL_DEPTH`]
/// calls deep, and the retries model one more; two more for a margin. A
/// caller further up sees no store in its trace, and a callee further down
/// is in no trace that holds one.
const SCRIPT_DEPTH: usize = super::flows::MAX_CALL_DEPTH + 2;

/// Whether a call of `f` is a TypeScript method call on a receiver whose
/// type nothing says (not `this`, no annotation or constructor): the flow
/// model resolves it only to the one method of that name in `f`'s crate,
/// and never a name of [`super::flows::PLAIN_METHODS`]
/// (`flows::Index::resolve`). A file read later can only add methods of a
/// name, so a name two methods of the crate have already resolves nowhere.
fn unknown_receiver(f: &Func<'_>, site: &CallSite) -> bool {
    f.flow.script
        && site.method.is_some()
        && site.recv_type.is_none()
        && site.receiver.first().map(|n| n.as_str()) != Some("self")
}

/// `from` and every function `edges` lead to from them in at most `depth`
/// steps.
fn within(edges: &[Vec<usize>], from: Vec<usize>, depth: usize) -> HashSet<usize> {
    let mut seen: HashSet<usize> = from.iter().copied().collect();
    let mut level = from;
    for _ in 0..depth {
        let mut next = Vec::new();
        for i in level {
            for &g in &edges[i] {
                if seen.insert(g) {
                    next.push(g);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    seen
}

/// `from` and every function `edges` lead to from them.
fn closure(edges: &[Vec<usize>], from: Vec<usize>) -> HashSet<usize> {
    let mut seen: HashSet<usize> = from.iter().copied().collect();
    let mut todo = from;
    while let Some(i) = todo.pop() {
        for &g in &edges[i] {
            if seen.insert(g) {
                todo.push(g);
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_stops_at_its_depth_and_closure_does_not() {
        // 0 -> 1 -> 2 -> 3, and 3 -> 0 (a cycle).
        let edges = vec![vec![1], vec![2], vec![3], vec![0]];
        assert_eq!(within(&edges, vec![0], 0), HashSet::from([0]));
        assert_eq!(within(&edges, vec![0], 2), HashSet::from([0, 1, 2]));
        assert_eq!(within(&edges, vec![0], 9), HashSet::from([0, 1, 2, 3]));
        assert_eq!(closure(&edges, vec![2]), HashSet::from([0, 1, 2, 3]));
    }
}
