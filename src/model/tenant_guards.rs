//! Unique guards that leave the owner out: a table that names its owner (a
//! scope column of `rules/stores.toml`: `tenant_id`, `organization_id`,
//! `namespace_id`) with a unique guard over an identifier its callers
//! choose (`external_key`, `uid`, `workflow_id`) that does not hold the
//! owner. Callers choose such identifiers independently, so one caller's
//! choice blocks, or is matched against, another's. Idempotency stores are
//! judged on their key column by the schema's store model; this reads every
//! other table.

use super::schema::{Guard, SchemaModel, Table};
use crate::facts::store::KeyKind;
use crate::knowledge;
use std::collections::HashSet;

/// Why a guard's columns are taken for a caller's choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence {
    /// A column of the guard holds a caller's chosen identifier by its name
    /// and type (`external_key varchar`).
    CallerKey(String),
}

/// A unique guard with no owner column in a table that has one.
#[derive(Debug, Clone)]
pub struct TenantBlind<'a> {
    pub table: &'a Table,
    pub guard: &'a Guard,
    /// The table's owner columns.
    pub scope: Vec<String>,
    pub evidence: Evidence,
    /// A column of the guard that references a parent row by a generated
    /// id (`integration_id uuid`): the parent may belong to one owner and
    /// scope the guard through it.
    pub parent: Option<String>,
}

impl SchemaModel {
    /// Every unique guard of a table that is not an idempotency store and
    /// names its owner, when the guard leaves the owner out and its columns
    /// are a caller's choice (see [`Evidence`]). A surrogate `id` alone is
    /// the row's own identity, never judged, nor is a guard a Django model
    /// inherits from an abstract base (`model::inherit`).
    ///
    /// No store word makes these tables worth reading, so only files the
    /// prefilter admits by their text are: a run that reads every file
    /// whole finds the same.
    pub fn tenant_blind_guards(&self) -> Vec<TenantBlind<'_>> {
        let stores: HashSet<&str> = self.stores().map(|(t, _)| t.key.as_str()).collect();
        let mut out = Vec::new();
        for t in self.tables.iter().filter(|t| {
            t.partition_of.is_none()
                && self.admitted(t.created.file)
                && !stores.contains(t.key.as_str())
        }) {
            let scope = self.owner_columns(t);
            if scope.is_empty() {
                continue;
            }
            for g in t
                .guards
                .iter()
                .filter(|g| g.key.kind != KeyKind::Index && self.admitted(g.at.file))
            {
                let cols: Vec<&str> = g.key.parts.iter().flat_map(|p| p.columns()).collect();
                // an abstract base's guard serves every model that inherits
                // it, declared knowing none of their owners (saleor's
                // `ModelWithExternalReference`, unique across the shop)
                if self.inherited_at.contains(&(g.at.file, g.key.span)) {
                    continue;
                }
                if cols.is_empty()
                    || cols.iter().all(|c| *c == "id")
                    || cols.iter().any(|c| scope.iter().any(|s| s == c))
                    || self.owned_parent(t, &cols).is_some()
                {
                    continue;
                }
                if let Some(evidence) = self.evidence(t, &cols) {
                    out.push(TenantBlind {
                        table: t,
                        guard: g,
                        scope: scope.clone(),
                        evidence,
                        parent: parent_reference(t, &cols),
                    });
                }
            }
        }
        out
    }

    /// A column of `cols` that names a parent row by the parent table's
    /// name (`workflowId` of `Workflow`, `booking_link_id` of
    /// `booking_links`) where that table names an owner itself, and the
    /// parent's name. The parent belongs to one owner, so a unique guard
    /// that holds the reference is scoped through it: `(workflowId,
    /// idempotencyKey)` is unique per workflow, hence per workspace.
    pub fn owned_parent(&self, t: &Table, cols: &[&str]) -> Option<(String, String)> {
        cols.iter().find_map(|c| {
            let words = knowledge::name_words(c);
            let (last, stem) = words.split_last()?;
            if !matches!(last.as_str(), "id" | "uuid") || stem.is_empty() {
                return None;
            }
            let stem = stem.join("_");
            let parent = self.tables.iter().find(|p| {
                let name = knowledge::snake(bare_name(&p.key));
                p.key != t.key
                    && [stem.clone(), format!("{stem}s"), format!("{stem}es")].contains(&name)
                    && !self.owner_columns(p).is_empty()
            })?;
            Some((c.to_string(), parent.name.clone()))
        })
    }

    /// The columns of `t` that name its owner.
    pub fn owner_columns(&self, t: &Table) -> Vec<String> {
        let words = &knowledge::stores().scope_column;
        t.columns
            .iter()
            .filter(|c| words.matches_with(&c.name, &c.ty, self.scope_words()))
            .map(|c| c.name.clone())
            .collect()
    }

    /// Why a guard's columns are a caller's choice, if they are. The bare
    /// `external_id` of an owner or endpoint table is the row's public id,
    /// which the service issues
    /// ([`knowledge::CallerKeys::issued_public_id`]).
    fn evidence(&self, t: &Table, cols: &[&str]) -> Option<Evidence> {
        let keys = &knowledge::stores().caller_key_column;
        let typed = |c: &str| t.column(c).map(|col| col.ty.as_str()).unwrap_or("");
        cols.iter()
            .find(|c| keys.matches(c, typed(c)) && !keys.issued_public_id(c, &t.name))
            .map(|c| Evidence::CallerKey(c.to_string()))
    }
}

/// A guard column named as a reference (`integration_id`) and typed as a
/// generated id (a UUID): the row it names may itself belong to one owner.
fn parent_reference(t: &Table, cols: &[&str]) -> Option<String> {
    cols.iter()
        .filter(|c| knowledge::name_words(c).last().is_some_and(|w| w == "id"))
        .find(|c| {
            t.column(c)
                .is_some_and(|col| col.ty.to_ascii_uppercase().starts_with("UUID"))
        })
        .map(|c| c.to_string())
}

/// A table's name without its schema.
fn bare_name(key: &str) -> &str {
    key.rsplit('.').next().unwrap_or(key)
}
