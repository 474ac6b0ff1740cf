//! The `inventory` and `size` commands: run the check on the work tree or a
//! commit, then report the stores. The binary only prints what these return.

use crate::cli::{InventoryArgs, InventoryFormat, SizeArgs};
use crate::files::{Mode, Revision, Selection};
use crate::inventory::{self, build, html, render, Options};
use crate::render::Format;
use crate::size::{self, figure, human_bytes, thousands};
use crate::{check_with, ConfigChoice, Gate, Outcome};
use std::path::PathBuf;

fn config_choice(config: &Option<PathBuf>, isolated: bool) -> ConfigChoice {
    if isolated {
        ConfigChoice::Isolated
    } else if let Some(c) = config {
        ConfigChoice::File(c.clone())
    } else {
        ConfigChoice::Discover
    }
}

/// Run the check as `check --rev` or a plain check would.
fn run(
    paths: &[PathBuf],
    rev: &Option<String>,
    config: ConfigChoice,
    include_tests: bool,
) -> Result<(Outcome, Option<Revision>), String> {
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let mode = match rev {
        Some(r) => Mode::Revision(r.clone()),
        None => Mode::WorkTree,
    };
    let files = Selection::resolve(&mode, paths, &cwd).map_err(|e| e.to_string())?;
    let revision = files.revision().cloned();
    let opts = crate::Options {
        paths: paths.to_vec(),
        stdin: None,
        config,
        // Suppressions are applied so that their reasons are known; the
        // report shows what they hid only when asked.
        no_suppressions: false,
        include_tests,
        parse_timeout: None,
    };
    let outcome = check_with(
        &opts,
        &Gate {
            files,
            baseline: None,
            exhaustive: false,
        },
    )
    .map_err(|e| e.to_string())?;
    Ok((outcome, revision))
}

/// `idemlint inventory`: the report in the chosen format.
pub fn inventory(args: &InventoryArgs, color: bool) -> Result<String, String> {
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        return Err("inventory reads files and directories, not standard input".into());
    }
    let rate = args
        .rate
        .as_deref()
        .map(size::parse_rate)
        .transpose()
        .map_err(|e| e.to_string())?;
    // A bad record is refused before the repository is read.
    let live = args
        .live
        .as_deref()
        .map(crate::audit::live::load)
        .transpose()?;
    let (outcome, revision) = run(
        &args.paths,
        &args.rev,
        config_choice(&args.config, args.isolated),
        args.include_tests,
    )?;
    let mut inv = build(
        &outcome,
        &Options {
            suppressed: args.no_suppressions,
            rate,
            revision,
        },
    );
    if let Some(record) = &live {
        crate::audit::live::attach(&mut inv, record);
    }
    Ok(match args.format {
        InventoryFormat::Terminal => render::terminal(&inv, color),
        InventoryFormat::Markdown => render::markdown(&inv),
        InventoryFormat::Json => render::json(&inv) + "\n",
        InventoryFormat::Html => html::render(&inv),
    })
}

/// `idemlint size`: the derivation (or JSON) for one table.
pub fn size(args: &SizeArgs) -> Result<String, String> {
    let per_second = size::parse_rate(&args.rate).map_err(|e| e.to_string())?;
    let days = args
        .days
        .as_deref()
        .map(size::parse_days)
        .transpose()
        .map_err(|e| e.to_string())?;
    let assume = size::parse_assume(&args.assume).map_err(|e| e.to_string())?;
    let (outcome, revision) = run(
        &args.paths,
        &args.rev,
        config_choice(&args.config, args.isolated),
        false,
    )?;
    let schema = &outcome.model.schema;
    let Some(table) = schema.find_table(&args.table) else {
        return Err(no_table(schema, &args.table));
    };
    let e = size::estimate(table, &assume).map_err(|e| e.to_string())?;
    let inv = build(
        &outcome,
        &Options {
            suppressed: false,
            rate: Some(per_second),
            revision: revision.clone(),
        },
    );
    let store = inv
        .stores
        .iter()
        .find(|s| s.kind == inventory::Kind::SqlTable && s.name == table.name);
    let margin = crate::horizons::Catalogue::with_config(&outcome.config)
        .margin
        .secs;
    let at = e.at_rate(per_second, &periods(days, store, margin));
    let report = SizeReport {
        e: &e,
        at: &at,
        defined: defined_at(&outcome, table),
        store: store.is_some(),
        per_second,
    };
    Ok(match args.format {
        Format::Json => report.json(&revision),
        Format::Human => report.human(&inv),
    })
}

/// The error of `idemlint size` for a table the migrations do not define,
/// with the tables they do.
fn no_table(schema: &crate::model::schema::SchemaModel, name: &str) -> String {
    let mut names: Vec<&str> = schema
        .tables
        .iter()
        .filter(|t| t.partition_of.is_none())
        .map(|t| t.name.as_str())
        .collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        format!(
            "no table `{}`: no SQL migration read here defines a table",
            name
        )
    } else {
        format!(
            "no table `{}` in the migrations read here; tables: {}",
            name,
            names.join(", ")
        )
    }
}

/// The periods the size is projected over: `--days`, the store's
/// retention, and its replay floor, each with its label and length in days.
fn periods(
    days: Option<f64>,
    store: Option<&inventory::Store>,
    margin: u64,
) -> Vec<(String, String, f64)> {
    let mut periods: Vec<(String, String, f64)> = Vec::new();
    if let Some(d) = days {
        periods.push(("days".into(), format!("{} days (--days)", figure(d)), d));
    }
    if let Some(r) = store.and_then(|s| s.retention.as_ref()) {
        periods.push((
            "retention".into(),
            format!(
                "{} (the store's retention: {} at {})",
                render::dur(r.seconds),
                r.mechanism,
                r.at
            ),
            r.seconds as f64 / 86_400.0,
        ));
    }
    if let Some(s) = store {
        let floor = s.floor_seconds(margin);
        let why = match &s.counterparty {
            Some(c) => format!(
                "the replay floor: {} {} + {} margin",
                c.name,
                render::dur(c.horizon_seconds),
                render::dur(c.margin_seconds)
            ),
            None => format!(
                "the replay floor: default horizon {} + {} margin",
                render::dur(s.default_horizon_seconds),
                render::dur(margin)
            ),
        };
        periods.push((
            "floor".into(),
            format!("{} ({why})", render::dur(floor)),
            floor as f64 / 86_400.0,
        ));
    }
    periods
}

/// Where a table is created, as `path:line`.
fn defined_at(outcome: &Outcome, table: &crate::model::schema::Table) -> String {
    let text = outcome.sources.text(table.created.file);
    let idx = crate::source::LineIndex::new(text);
    format!(
        "{}:{}",
        outcome.sources.path(table.created.file),
        outcome
            .sources
            .get(table.created.file)
            .line_col(&idx, table.created.span.start)
            .line
    )
}

/// A table's size estimate at a write rate, to show.
struct SizeReport<'a> {
    e: &'a size::Estimate,
    at: &'a size::AtRate,
    /// Where the table is created (`path:line`).
    defined: String,
    /// Whether it is an idempotency store idemlint recognises.
    store: bool,
    per_second: f64,
}

impl SizeReport<'_> {
    fn json(&self, revision: &Option<Revision>) -> String {
        let (e, at, defined) = (self.e, self.at, &self.defined);
        let bytes_at_retention = at
            .projections
            .iter()
            .find(|p| p.what == "days")
            .or_else(|| at.projections.iter().find(|p| p.what == "retention"));
        let v = serde_json::json!({
            "version": 1,
            "table": e.table,
            "defined_at": defined,
            "store": self.store,
            "revision": revision,
            "heap_bytes_per_row": e.heap.bytes,
            "heap_bytes_per_row_on_pages": e.heap.packed_bytes,
            "indexes": e.indexes.iter().map(|i| serde_json::json!({
                "name": i.name,
                "kind": i.kind,
                "columns": i.columns.iter().map(|c| c.column.name.clone()).collect::<Vec<_>>(),
                "entry_bytes": i.entry,
                "fill": i.fill_percent as f64 / 100.0,
                "fill_reason": i.fill_reason,
                "bytes_per_row": i.bytes_per_row,
            })).collect::<Vec<_>>(),
            "bytes_per_key": e.bytes_per_key,
            "writes_per_second": at.writes_per_second,
            "keys_per_day": at.keys_per_day,
            "bytes_per_day": at.bytes_per_day,
            "bytes_at_retention": bytes_at_retention.map(|p| serde_json::json!({
                "days": p.days, "bytes": p.bytes, "from": p.what,
            })),
            "projections": at.projections,
            "assumed": e.assumptions().iter().map(|(c, b, why)| serde_json::json!({
                "column": c, "bytes": b, "why": why,
            })).collect::<Vec<_>>(),
            "notes": e.notes,
            "derivation": e.derivation(),
            "layout": e,
        });
        serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
    }

    fn human(&self, inv: &inventory::Inventory) -> String {
        let (e, at, defined, per_second) = (self.e, self.at, &self.defined, self.per_second);
        let mut out = format!(
            "`{}` ({defined}), as the migrations leave it, {}\n",
            e.table,
            render::source_line(inv)
        );
        if !self.store {
            out.push_str(
                "(not an idempotency store idemlint recognises: no retention or floor to apply)\n",
            );
        }
        out.push('\n');
        for l in e.derivation() {
            out.push_str(&l);
            out.push('\n');
        }
        let keys = at.keys_per_day;
        out.push_str(&format!(
            "\nat {}/s: {} × 86,400 = {} keys a day\n",
            figure(per_second),
            figure(per_second),
            thousands(keys.round() as u64)
        ));
        out.push_str(&format!(
            "  a day: {} × {} = {} bytes ({})\n",
            thousands(keys.round() as u64),
            figure(e.bytes_per_key),
            thousands(at.bytes_per_day),
            human_bytes(at.bytes_per_day as f64)
        ));
        for p in &at.projections {
            out.push_str(&format!(
                "  {}: {} × {} = {} bytes ({})\n",
                p.label,
                thousands(at.bytes_per_day),
                figure(p.days),
                thousands(p.bytes),
                human_bytes(p.bytes as f64)
            ));
        }
        let assumed = e.assumptions();
        if !assumed.is_empty() {
            out.push_str("\nassumed sizes (override with --assume COLUMN=BYTES):\n");
            for (c, b, why) in assumed {
                out.push_str(&format!("  {c}: {b} bytes, {why}\n"));
            }
        }
        out.push_str("\nnot counted:\n");
        for n in &e.notes {
            out.push_str(&format!("  {n}\n"));
        }
        out
    }
}
