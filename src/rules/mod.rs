//! The rules that run. Each reads the project model and pushes diagnostics;
//! none parses. One file per rule, named after it; its docs and default
//! severity are in `rules/<name>.toml`.

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
use crate::diagnostic::Diagnostic;
use crate::model::ProjectModel;
use crate::source::SourceMap;

/// What a rule may read.
pub struct Context<'a> {
    pub model: &'a ProjectModel,
    pub sources: &'a SourceMap,
    pub config: &'a Config,
}

pub type Check = fn(&Context<'_>, &mut Vec<Diagnostic>);

/// Built rules that read the model. `parse-error` and `unused-suppression`
/// are emitted by the pipeline itself and listed in [`PIPELINE_RULES`].
#[rustfmt::skip]
pub const BUILT: &[(&str, Check)] = &[
    (misspelled_idempotency_header::NAME, misspelled_idempotency_header::check),
    (ttl_below_replay_horizon::NAME, ttl_below_replay_horizon::check),
    (missing_unique_key_constraint::NAME, missing_unique_key_constraint::check),
    (unique_guard_split_by_partition::NAME, unique_guard_split_by_partition::check),
    (unscoped_idempotency_key::NAME, unscoped_idempotency_key::check),
    (missing_request_fingerprint::NAME, missing_request_fingerprint::check),
    (delete_based_expiry::NAME, delete_based_expiry::check),
    (evicting_key_store::NAME, evicting_key_store::check),
    (key_recorded_after_effect::NAME, key_recorded_after_effect::check),
    (check_then_insert::NAME, check_then_insert::check),
    (fresh_key_per_retry::NAME, fresh_key_per_retry::check),
    (retry_outlives_key_retention::NAME, retry_outlives_key_retention::check),
];

/// Rules the pipeline emits itself.
pub const PIPELINE_RULES: &[&str] = &["parse-error", "unused-suppression"];

/// Rules only `idemlint audit` runs, on what it reads from a live database
/// (`src/audit/judge.rs`); their tests are `tests/audit_*.rs`, not fixtures.
pub const LIVE_RULES: &[&str] = &["live-schema-drift"];

pub fn is_built(name: &str) -> bool {
    PIPELINE_RULES.contains(&name)
        || LIVE_RULES.contains(&name)
        || BUILT.iter().any(|(n, _)| *n == name)
}

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
