//! Find-or-create calls ([`FindOrCreate`]: Django's `get_or_create` and
//! `update_or_create`) joined with the schema. Such a call reads the row
//! by its lookup and inserts one when none is found; Django documents it as
//! race-free only where the database enforces the lookup's uniqueness
//! ("this method is atomic assuming that the database enforces uniqueness
//! of the keyword arguments", QuerySet API reference, `get_or_create()`).
//! So the lookup is what the code keys the table by: a store's key when
//! its columns name none ([`SchemaModel::lookup_key`]), and a
//! check-then-insert on a store where no unique guard holds it
//! ([`SchemaModel::unguarded_find_or_create`]).

use super::schema::FindOrCreateUse;
use super::schema::{is_time_column, minted, Guard, SchemaModel, Table};
use crate::facts::store::{KeyKind, SchemaCode};
use crate::knowledge;

/// A find-or-create on a store whose lookup no unique guard holds.
#[derive(Debug, Clone)]
pub struct UnguardedFindOrCreate<'a> {
    pub call: &'a FindOrCreateUse,
    /// The definition that lacks the guard (the model's, or the
    /// migrations').
    pub table: &'a Table,
    /// The lookup's columns.
    pub columns: Vec<String>,
}

/// The columns of `t` a lookup's fields name (`customer` is
/// `customer_id`), or `None` when one is no column of it.
fn columns_of(t: &Table, fields: &[String]) -> Option<Vec<String>> {
    fields
        .iter()
        .map(|f| {
            let c = t
                .fields
                .iter()
                .find(|(_, p)| p == f)
                .map_or(f.as_str(), |(c, _)| c.as_str());
            t.column(c).map(|c| c.name.clone())
        })
        .collect()
}

impl SchemaModel {
    /// The definitions of the table a name in code reaches.
    fn definitions<'a>(&'a self, name: &str) -> Vec<&'a Table> {
        let Some(found) = self.find_table(name) else {
            return Vec::new();
        };
        self.tables
            .iter()
            .filter(|t| t.key == found.key && t.partition_of.is_none())
            .collect()
    }

    /// The key a find-or-create on `t` looks rows up by, for a store
    /// whose columns name no key: the lookup's columns (the first call's
    /// that every definition holds).
    pub fn lookup_key(&self, t: &Table) -> Option<Vec<String>> {
        self.find_or_create.iter().find_map(|u| {
            let found = self.find_table(&u.call.table)?;
            (found.key == t.key)
                .then(|| columns_of(t, &u.call.columns))
                .flatten()
        })
    }

    /// The find-or-create calls on a store (by its name, its key column or
    /// the config) where a definition of the table holds no unique guard
    /// over the lookup: none whose columns the call fills (the lookup, or
    /// `defaults`) and that holds a looked-up column and no column each
    /// insert fills anew (a time, a minted id). A call whose lookup leaves
    /// out the store's key column looks up something else.
    pub fn unguarded_find_or_create(&self) -> Vec<UnguardedFindOrCreate<'_>> {
        let mut out = Vec::new();
        for u in &self.find_or_create {
            for t in self.definitions(&u.call.table) {
                let Some(store) = self.store(t) else { continue };
                let Some(cols) = columns_of(t, &u.call.columns) else {
                    continue;
                };
                if !store.key.iter().all(|k| cols.contains(k)) {
                    continue;
                }
                let defaults: Option<Vec<String>> = match &u.call.defaults {
                    Some(d) => columns_of(t, d).or(Some(Vec::new())),
                    None => None,
                };
                let filled = |c: &str| {
                    cols.iter().any(|x| x == c)
                        || defaults
                            .as_ref()
                            .map_or(!is_time_column(t, c) && !minted(t, c), |d| {
                                d.iter().any(|x| x == c)
                            })
                };
                let guarded = t.guards.iter().any(|g| {
                    let gc: Vec<&str> = g.key.parts.iter().flat_map(|p| p.columns()).collect();
                    g.key.kind != KeyKind::Index
                        && g.key.predicate.is_none()
                        && !gc.is_empty()
                        && gc.iter().any(|c| cols.iter().any(|x| x == c))
                        && gc.iter().all(|c| filled(c))
                        && !gc.iter().any(|c| {
                            !cols.iter().any(|x| x == c) && (is_time_column(t, c) || minted(t, c))
                        })
                });
                if !guarded {
                    out.push(UnguardedFindOrCreate {
                        call: u,
                        table: t,
                        columns: cols,
                    });
                    break;
                }
            }
        }
        out
    }
}

/// What a definition of a table lacks for a lookup the project keys it by
/// ([`SchemaModel::keyed_lookups`]).
#[derive(Debug, Clone)]
pub enum KeyedGap<'a> {
    /// No unique guard within the lookup's columns.
    Unguarded,
    /// A unique guard over the lookup's columns but the caller's scope
    /// (`organization_id`) the lookup holds: the guard and those columns.
    Unscoped(&'a Guard, Vec<String>),
}

/// A find-or-create on a table that one definition keys by the lookup and
/// another does not hold ([`SchemaModel::keyed_lookups`]).
#[derive(Debug, Clone)]
pub struct KeyedLookup<'a> {
    pub call: &'a FindOrCreateUse,
    /// The definition that lacks the guard.
    pub table: &'a Table,
    /// The definition whose unique guard is the lookup.
    pub keyed_by: &'a Guard,
    /// The lookup's columns.
    pub columns: Vec<String>,
    pub gap: KeyedGap<'a>,
}

/// The sorted, distinct columns of a unique guard (any predicate: a
/// partial index of live rows, `deleted_at IS NULL`, is the lookup's of a
/// repository that reads live rows), or `None` for a plain index.
fn unique_columns(g: &Guard) -> Option<Vec<&str>> {
    if g.key.kind == KeyKind::Index {
        return None;
    }
    let mut c: Vec<&str> = g.key.parts.iter().flat_map(|p| p.columns()).collect();
    c.sort_unstable();
    c.dedup();
    (!c.is_empty()).then_some(c)
}

impl SchemaModel {
    /// Find-or-creates (a `get_or_create`, a lookup then an insert) by
    /// columns that a unique guard of one definition of the table holds
    /// exactly, where another definition of the same project (a SQLAlchemy
    /// model and its Alembic revisions, a Django model and its migrations)
    /// holds no guard within them, or one without the caller's scope the
    /// lookup holds. The code's lookup and the guard over the same columns
    /// are the evidence that the columns are the rows' key, whatever the
    /// table is called; the definition that lost the guard lets a retried
    /// or concurrent call insert the row again.
    pub fn keyed_lookups(&self) -> Vec<KeyedLookup<'_>> {
        let words = &knowledge::stores().scope_column;
        let mut out = Vec::new();
        for u in &self.find_or_create {
            let defs = self.definitions(&u.call.table);
            let one_project = defs.iter().all(|t| {
                matches!(
                    t.declared_by,
                    Some(SchemaCode::SqlAlchemy | SchemaCode::Alembic | SchemaCode::Django)
                )
            });
            if defs.len() < 2 || !one_project {
                continue;
            }
            let looked: Vec<(&Table, Vec<String>)> = defs
                .iter()
                .filter_map(|t| Some((*t, columns_of(t, &u.call.columns)?)))
                .collect();
            let want = |cols: &[String]| {
                let mut w: Vec<String> = cols.to_vec();
                w.sort_unstable();
                w.dedup();
                w
            };
            let keyed_by = looked.iter().find_map(|(t, cols)| {
                let w = want(cols);
                t.guards
                    .iter()
                    .find(|g| unique_columns(g).is_some_and(|c| c == w))
            });
            let Some(keyed_by) = keyed_by else { continue };
            for (t, cols) in &looked {
                let (scope, rest): (Vec<&String>, Vec<&String>) = cols.iter().partition(|c| {
                    t.column(c).is_some_and(|col| {
                        words.matches_with(&col.name, &col.ty, self.scope_words())
                    })
                });
                let rest = want(&rest.into_iter().cloned().collect::<Vec<_>>());
                let unscoped = (!scope.is_empty() && !rest.is_empty())
                    .then(|| {
                        t.guards
                            .iter()
                            .find(|g| unique_columns(g).is_some_and(|c| c == rest))
                    })
                    .flatten();
                let gap = if let Some(g) = unscoped {
                    KeyedGap::Unscoped(g, scope.into_iter().cloned().collect())
                } else if t.guards.iter().any(|g| {
                    unique_columns(g).is_some_and(|c| c.iter().all(|x| cols.iter().any(|y| y == x)))
                }) {
                    continue;
                } else {
                    KeyedGap::Unguarded
                };
                out.push(KeyedLookup {
                    call: u,
                    table: t,
                    keyed_by,
                    columns: cols.clone(),
                    gap,
                });
            }
        }
        out
    }
}
