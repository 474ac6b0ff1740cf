//! Django's abstract models (`class Meta: abstract = True`) make no table:
//! their fields, the guards over them and their `Meta`'s keys belong to
//! each concrete model that inherits them (Django's "abstract base
//! classes"), often declared in another file (an app's
//! `abstract_models.py`, a package's `models/base.py`). The front end
//! lists each file's model classes ([`ModelClass`]); here the concrete
//! ones get what their abstract bases declare, before the schema is
//! replayed. A class of a models module that only names a base
//! (`class Order(AbstractOrder): pass`) is a model when the base is an
//! abstract model, and code reaches its table by its class.
//!
//! What a subclass inherits is shown at the subclass's name: the model
//! declares it there, whatever file its base is in. A field the subclass
//! declares again is its own; a base's `Meta` keys only reach a subclass
//! with no `Meta` or one that extends the base's.

use crate::facts::store::{
    CreateTable, Key, KeyKind, ModelClass, SchemaChange, SchemaCode, SchemaEvent, TableAlias,
};
use crate::facts::FileFacts;
use crate::knowledge;
use crate::source::{shared_dirs, FileId, SourceMap, Span};
use std::collections::{HashMap, HashSet};

/// How deep a chain of abstract bases is followed.
const MAX_DEPTH: usize = 8;

/// What inheritance changes: the files whose events change (all of them,
/// in order), the names code reaches the new tables by, and where the
/// inherited guards are shown (the subclasses' names).
#[derive(Default)]
pub struct Inherited {
    pub events: HashMap<FileId, Vec<SchemaEvent>>,
    pub aliases: Vec<TableAlias>,
    pub at: HashSet<(FileId, Span)>,
}

/// What a concrete class takes from its abstract bases.
#[derive(Default)]
struct Taken<'a> {
    bases: Vec<&'a ModelClass>,
}

/// The abstract models of the project by class name.
type Abstracts<'a> = HashMap<&'a str, Vec<(FileId, &'a ModelClass)>>;

/// The concrete models' tables with their abstract bases' fields and
/// guards.
pub fn join(files: &[FileFacts], sources: &SourceMap) -> Inherited {
    let mut abstracts: Abstracts = HashMap::new();
    for f in files {
        for m in f.sql.iter().flat_map(|s| &s.model_classes) {
            if m.abstract_ {
                abstracts
                    .entry(m.class.as_str())
                    .or_default()
                    .push((f.file, m));
            }
        }
    }
    let mut out = Inherited::default();
    if abstracts.is_empty() {
        return out;
    }
    for f in files {
        let Some(sql) = &f.sql else { continue };
        let path = sources.path(f.file);
        let mut events: Option<Vec<SchemaEvent>> = None;
        for m in sql.model_classes.iter().filter(|m| !m.abstract_) {
            let taken = ancestors(m, f.file, path, &abstracts, sources);
            if taken.bases.is_empty() {
                continue;
            }
            let Some(table) = &m.table else { continue };
            out.at.insert((f.file, m.span));
            let evs = events.get_or_insert_with(|| sql.events.clone());
            let own = evs.iter_mut().find_map(|e| match &mut e.kind {
                SchemaChange::CreateTable(t)
                    if m.declared
                        && t.name.key == table.key
                        && t.declared_by == Some(SchemaCode::Django) =>
                {
                    Some(t)
                }
                _ => None,
            });
            match own {
                Some(t) => extend(t, m, &taken),
                None => {
                    let mut t = CreateTable {
                        name: table.clone(),
                        if_not_exists: false,
                        columns: Vec::new(),
                        keys: Vec::new(),
                        partition_by: None,
                        partition_of: None,
                        declared_by: Some(SchemaCode::Django),
                        fields: Vec::new(),
                    };
                    extend(&mut t, m, &taken);
                    if t.columns.is_empty() {
                        continue;
                    }
                    evs.push(SchemaEvent {
                        span: m.span,
                        kind: SchemaChange::CreateTable(t),
                    });
                    out.aliases.push(TableAlias {
                        name: knowledge::snake(&m.class),
                        table: table.key.clone(),
                    });
                }
            }
        }
        if let Some(evs) = events {
            out.events.insert(f.file, evs);
        }
    }
    out
}

/// The abstract models a class inherits, nearest first: of several of one
/// name, the one in the class's file, else the nearest.
fn ancestors<'a>(
    m: &ModelClass,
    file: FileId,
    path: &str,
    abstracts: &Abstracts<'a>,
    sources: &SourceMap,
) -> Taken<'a> {
    let mut taken = Taken::default();
    let mut todo: Vec<(String, usize)> = m.bases.iter().rev().map(|b| (b.clone(), 1)).collect();
    while let Some((b, depth)) = todo.pop() {
        let Some(found) = abstracts.get(b.as_str()) else {
            continue;
        };
        let base = found
            .iter()
            .max_by_key(|(f, _)| (*f == file, shared_dirs(path, sources.path(*f))))
            .map(|(_, a)| *a);
        let Some(base) = base else { continue };
        if taken.bases.iter().any(|t| std::ptr::eq(*t, base)) {
            continue;
        }
        taken.bases.push(base);
        if depth < MAX_DEPTH {
            todo.extend(base.bases.iter().rev().map(|b| (b.clone(), depth + 1)));
        }
    }
    taken
}

/// A key of an abstract model renamed for the table that inherits it
/// (`abstractorder_number_key` → `order_order_number_key`), shown at `at`.
fn renamed(k: &Key, base: &ModelClass, table: &str, at: Span) -> Key {
    let mut k = k.clone();
    let from = base.class.to_ascii_lowercase();
    let bare = table.rsplit('.').next().unwrap_or(table);
    if let Some(rest) = k.name.strip_prefix(from.as_str()) {
        k.name = format!("{bare}{rest}");
    }
    k.span = at;
    k
}

/// Add to a concrete model's table what its abstract bases declare.
fn extend(t: &mut CreateTable, m: &ModelClass, taken: &Taken) {
    let at = m.span;
    let table = t.name.key.clone();
    let inherited_pk = taken.bases.iter().any(|b| b.has_pk);
    if inherited_pk && !m.has_pk {
        // the implicit `id` Django adds only where no field is the key
        t.keys
            .retain(|k| !(k.kind == KeyKind::PrimaryKey && k.span == at));
    }
    for b in &taken.bases {
        for (c, (field, col)) in b.columns.iter().zip(&b.fields) {
            if t.columns.iter().any(|x| x.name == c.name) {
                continue;
            }
            let mut c = c.clone();
            c.span = at;
            t.columns.push(c);
            if field != col {
                t.fields.push((col.clone(), field.clone()));
            }
            let over = |k: &&Key| k.parts.iter().flat_map(|p| p.columns()).eq([col.as_str()]);
            for k in b.keys.iter().filter(over) {
                t.keys.push(renamed(k, b, &table, at));
            }
        }
        if m.inherits_meta {
            t.keys
                .extend(b.meta_keys.iter().map(|k| renamed(k, b, &table, at)));
        }
    }
    if !m.declared && !inherited_pk {
        t.keys.push(Key::over_columns(
            table.rsplit('.').next().unwrap_or(&table),
            KeyKind::PrimaryKey,
            vec!["id".to_string()],
            None,
            at,
        ));
    }
}
