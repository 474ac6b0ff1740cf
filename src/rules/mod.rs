//! The rules that run. Each reads the project model and pushes diagnostics;
//! none parses. One file per rule, named after it; the rule is declared in
//! `src/rule_id.rs` (id, kind, the severities it gives), and its docs and
//! default severity are in `rules/<name>.toml`.

pub mod check_then_insert;
pub mod delete_based_expiry;
pub mod evicting_key_store;
pub mod fresh_key_per_retry;
pub mod key_recorded_after_effect;
pub mod missing_request_fingerprint;
pub mod missing_unique_key_constraint;
pub mod misspelled_idempotency_header;
pub mod retry_outlives_key_retention;
pub mod ttl_below_replay_horizon;
pub mod unique_guard_split_by_partition;
pub mod unscoped_idempotency_key;

use crate::config::Config;
use crate::diagnostic::{Diagnostic, RuleId};
use crate::model::ProjectModel;
use crate::source::SourceMap;

/// What a rule may read.
pub struct Context<'a> {
    pub model: &'a ProjectModel,
    pub sources: &'a SourceMap,
    pub config: &'a Config,
}

pub type Check = fn(&Context<'_>, &mut Vec<Diagnostic>);

macro_rules! checks {
    ($($variant:ident = $id:literal, $kind:ident $(($module:ident))?, [$($sev:ident),+];)*) => {
        /// The rules that read the model, each with its check, in the order
        /// of the declaration (`crate::rule_id`): a model rule names the
        /// module whose `check` runs it. `parse-error` and
        /// `unused-suppression` are emitted by the pipeline itself, and
        /// `live-schema-drift` only by `idemlint audit`.
        pub const BUILT: &[(RuleId, Check)] = &[$($((RuleId::$variant, $module::check),)?)*];
    };
}
crate::rule_id::each_rule!(checks);

/// Run every built rule, then apply the config's levels (`off` drops the
/// diagnostic; a level replaces the severity the rule chose).
pub fn run(ctx: &Context<'_>) -> Vec<Diagnostic> {
    use rayon::prelude::*;
    // Each rule reads the model alone: they run side by side on the current
    // rayon pool, and their findings keep the table's order.
    let found: Vec<Vec<Diagnostic>> = BUILT
        .par_iter()
        .map(|(_, check)| {
            let mut out = Vec::new();
            check(ctx, &mut out);
            out
        })
        .collect();
    apply_levels(found.concat(), ctx.sources, ctx.config)
}

pub fn apply_levels(
    diags: Vec<Diagnostic>,
    sources: &SourceMap,
    config: &Config,
) -> Vec<Diagnostic> {
    diags
        .into_iter()
        .filter_map(|mut d| {
            let sev = config.level_for(d.rule, sources.path(d.file), d.severity)?;
            d.severity = sev;
            Some(d)
        })
        .collect()
}

/// A unique guard over `columns` of `t` as its schema declares one: a
/// Prisma model's `@@unique([field, ..])`, else SQL's `UNIQUE (column, ..)`.
fn unique_clause(t: &crate::model::schema::Table, columns: &[String]) -> String {
    if t.prisma.is_some() {
        let fields: Vec<&str> = columns.iter().map(|c| t.field_name(c)).collect();
        format!("@@unique([{}])", fields.join(", "))
    } else {
        format!("UNIQUE ({})", columns.join(", "))
    }
}
