//! A store's rows as code maps and reads them (`facts::rows`: bun models,
//! their fields' assignments and comparisons, query chains) joined with
//! the schema: a fingerprint column the code never fills, never compares,
//! or fills from a function that reads none of its input; and a lookup of
//! a store by its key that leaves out the owner the store's guard holds.

use super::schema::{Guarding, StoreKind, Table};
use super::ProjectModel;
use crate::facts::rows::{Assigned, RowFacts};
use crate::source::{FileId, Span};

/// How the code defeats a fingerprint column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gap {
    /// Every assignment to the field puts nothing in it (`""`, `nil`).
    NeverFilled,
    /// It is filled and never compared with a new request's.
    NeverCompared,
    /// It is filled from this function, which reads none of its parameters.
    HashesNothing(String),
}

/// A fingerprint column of a store that the code maps and defeats.
#[derive(Debug, Clone)]
pub struct FingerprintGap {
    pub gap: Gap,
    /// The struct field mapped to the column.
    pub field: String,
    /// Where: the assignment, or the function that hashes nothing.
    pub file: FileId,
    pub span: Span,
}

/// A lookup of a store by its key that leaves out every owner column of
/// the store's unique guard.
#[derive(Debug, Clone)]
pub struct OwnerlessLookup {
    /// The table's name.
    pub table: String,
    /// The columns the lookup filters by.
    pub columns: Vec<String>,
    /// The owner columns the guard holds.
    pub scope: Vec<String>,
    pub file: FileId,
    pub span: Span,
}

impl ProjectModel {
    /// The row facts of the code outside tests.
    fn row_code(&self) -> impl Iterator<Item = (FileId, &RowFacts)> {
        self.files
            .iter()
            .filter(|f| !f.test_path)
            .filter_map(|f| f.code.as_ref().map(|c| (f.file, &c.rows)))
    }

    /// How the code defeats `column` of `t`, a fingerprint column, when a
    /// bun model maps it and the code assigns it; `None` when it is filled,
    /// compared and hashed from its input, or when no code in sight writes
    /// it (a trigger, another service).
    pub fn fingerprint_gap(&self, t: &Table, column: &str) -> Option<FingerprintGap> {
        let of_table = |name: &str| self.schema.find_table(name).is_some_and(|x| x.key == t.key);
        let fields: Vec<&str> = self
            .row_code()
            .flat_map(|(_, r)| &r.columns)
            .filter(|c| c.column == column && of_table(&c.table))
            .map(|c| c.field.as_str())
            .collect();
        let mapped = |f: &str| fields.contains(&f);
        let assigns: Vec<_> = self
            .row_code()
            .flat_map(|(file, r)| r.assigns.iter().map(move |a| (file, a)))
            .filter(|(_, a)| mapped(&a.field))
            .collect();
        let &(file, first) = assigns.first()?;
        let filled: Vec<_> = assigns
            .iter()
            .filter(|(_, a)| a.value != Assigned::Empty)
            .collect();
        let Some(&&(file, a)) = filled.first() else {
            return Some(FingerprintGap {
                gap: Gap::NeverFilled,
                field: first.field.clone(),
                file,
                span: first.span,
            });
        };
        let compared = self.row_code().any(|(_, r)| {
            r.compares.iter().any(|c| mapped(&c.field))
                || r.lookups
                    .iter()
                    .any(|l| of_table(&l.table) && l.columns.iter().any(|c| c == column))
        });
        if !compared {
            return Some(FingerprintGap {
                gap: Gap::NeverCompared,
                field: a.field.clone(),
                file,
                span: a.span,
            });
        }
        self.hashes_nothing(&filled)
    }

    /// The first function a fingerprint is filled from that reads none of
    /// its parameters (every definition of that name reads none).
    fn hashes_nothing(
        &self,
        filled: &[&(FileId, &crate::facts::rows::FieldAssign)],
    ) -> Option<FingerprintGap> {
        for (_, a) in filled {
            let Assigned::Call(name) = &a.value else {
                continue;
            };
            let defs: Vec<_> = self
                .row_code()
                .flat_map(|(file, r)| r.digests.iter().map(move |d| (file, d)))
                .filter(|(_, d)| &d.name == name)
                .collect();
            if let Some((file, d)) = defs
                .first()
                .filter(|_| defs.iter().all(|(_, d)| !d.reads_params))
            {
                return Some(FingerprintGap {
                    gap: Gap::HashesNothing(name.clone()),
                    field: a.field.clone(),
                    file: *file,
                    span: d.span,
                });
            }
        }
        None
    }

    /// Lookups of a request-key store by its key that leave out every
    /// owner column its full unique guard holds.
    pub fn ownerless_lookups(&self) -> Vec<OwnerlessLookup> {
        let mut out = Vec::new();
        let lookups: Vec<_> = self
            .row_code()
            .flat_map(|(file, r)| r.lookups.iter().map(move |l| (file, l)))
            .collect();
        if lookups.is_empty() {
            return out;
        }
        for (t, s) in self.schema.stores() {
            if s.kind != StoreKind::RequestKey || s.scope.is_empty() {
                continue;
            }
            let Guarding::Guarded(g) = s.guarding(t) else {
                continue;
            };
            let guarded: Vec<&str> = g.key.parts.iter().flat_map(|p| p.columns()).collect();
            let scope: Vec<String> = s
                .scope
                .iter()
                .filter(|c| guarded.contains(&c.as_str()))
                .cloned()
                .collect();
            if scope.is_empty() {
                continue;
            }
            for (file, l) in &lookups {
                let here = self
                    .schema
                    .find_table(&l.table)
                    .is_some_and(|x| x.key == t.key);
                let by_key = l.columns.iter().any(|c| s.key.contains(c));
                let owned = l.columns.iter().any(|c| scope.contains(c));
                if here && by_key && !owned {
                    out.push(OwnerlessLookup {
                        table: t.name.clone(),
                        columns: l.columns.clone(),
                        scope: scope.clone(),
                        file: *file,
                        span: l.span,
                    });
                }
            }
        }
        out
    }
}
