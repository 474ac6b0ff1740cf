//! The PostgreSQL storage estimate of a store table (`idemlint size`, and the
//! size column of `idemlint inventory`): bytes a heap row and an entry of
//! each B-tree index take, from the columns and indexes as the migration
//! history leaves them, and what that costs a day at a write rate. The layout
//! constants and typical value sizes are data (`rules/postgres-layout.toml`);
//! this module holds the arithmetic and the line-by-line derivation. Not for
//! TOAST, bloat from updates or deletes, or B-tree deduplication of repeated
//! values: the derivation says where those apply.

use crate::facts::store::{KeyKind, KeyPart};
use crate::model::schema::Table;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

pub const LAYOUT_TOML: &str = include_str!("../rules/postgres-layout.toml");

#[derive(Debug, Deserialize, Default)]
struct LayoutFile {
    constant: Vec<Constant>,
    r#type: Vec<FixedType>,
    varlena: Vec<VarType>,
    typical: Vec<Typical>,
}

#[derive(Debug, Deserialize)]
struct Constant {
    name: String,
    value: u64,
}

#[derive(Debug, Deserialize)]
struct FixedType {
    name: String,
    names: Vec<String>,
    bytes: u64,
    align: u64,
}

#[derive(Debug, Deserialize)]
struct VarType {
    names: Vec<String>,
    align: u64,
}

#[derive(Debug, Deserialize)]
struct Typical {
    types: Vec<String>,
    words: Vec<String>,
    bytes: u64,
    why: String,
}

/// The layout constants, by name.
#[derive(Debug)]
struct Layout {
    file: LayoutFile,
    constants: BTreeMap<String, u64>,
}

impl Layout {
    fn get(&self, name: &str) -> u64 {
        // The meta-test `layout_constants_are_all_present` guards the names;
        // the fallbacks are the values the file gives.
        self.constants.get(name).copied().unwrap_or(match name {
            "page_bytes" => 8192,
            "page_header_bytes" => 24,
            "line_pointer_bytes" => 4,
            "heap_tuple_header_bytes" => 23,
            "maxalign_bytes" => 8,
            "varlena_short_max_bytes" => 127,
            "varlena_short_header_bytes" => 1,
            "varlena_header_bytes" => 4,
            "index_tuple_header_bytes" => 8,
            "btree_fill_increasing_percent" => 90,
            "btree_fill_random_percent" => 70,
            "enum_bytes" => 4,
            _ => 2032,
        })
    }
}

/// The names every layout constant must have in `rules/postgres-layout.toml`.
pub const CONSTANTS: &[&str] = &[
    "page_bytes",
    "page_header_bytes",
    "line_pointer_bytes",
    "heap_tuple_header_bytes",
    "maxalign_bytes",
    "varlena_short_max_bytes",
    "varlena_short_header_bytes",
    "varlena_header_bytes",
    "index_tuple_header_bytes",
    "btree_fill_increasing_percent",
    "btree_fill_random_percent",
    "enum_bytes",
    "toast_threshold_bytes",
];

fn layout() -> &'static Layout {
    static L: OnceLock<Layout> = OnceLock::new();
    L.get_or_init(|| {
        let file: LayoutFile = crate::knowledge::load("postgres-layout.toml", LAYOUT_TOML);
        let constants = file
            .constant
            .iter()
            .map(|c| (c.name.clone(), c.value))
            .collect();
        Layout { file, constants }
    })
}

/// Whether every constant the arithmetic uses is in the data file.
pub fn layout_is_complete() -> Vec<&'static str> {
    CONSTANTS
        .iter()
        .copied()
        .filter(|c| !layout().constants.contains_key(*c))
        .collect()
}

fn align_up(n: u64, a: u64) -> u64 {
    if a <= 1 {
        n
    } else {
        n.div_ceil(a) * a
    }
}

/// How a column's value is stored.
#[derive(Debug, Clone, Serialize)]
pub struct ColumnSize {
    pub name: String,
    /// The type as written.
    #[serde(rename = "type")]
    pub ty: String,
    /// Bytes on disk, header included.
    pub bytes: u64,
    /// The alignment the value starts at (1 for a short variable-length value).
    pub align: u64,
    /// The variable-length header (0 for a fixed-length type).
    pub header: u64,
    /// Why the value's size was assumed rather than known from the type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assumed: Option<String>,
    /// The size came from `--assume`.
    pub given: bool,
}

/// One column placed in a row.
#[derive(Debug, Clone, Serialize)]
pub struct Placed {
    #[serde(flatten)]
    pub column: ColumnSize,
    /// Padding before it.
    pub pad: u64,
    /// Where it starts in the tuple.
    pub offset: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct HeapRow {
    pub tuple_header: u64,
    /// The null bitmap, counted when the table has nullable columns.
    pub null_bitmap: u64,
    /// Where the data starts (header and bitmap rounded up to MAXALIGN).
    pub data_offset: u64,
    pub columns: Vec<Placed>,
    /// Where the last column ends.
    pub data_end: u64,
    /// The tuple as the page stores it, rounded up to MAXALIGN.
    pub tuple: u64,
    pub line_pointer: u64,
    pub bytes: u64,
    /// Rows a page holds, and the bytes a row takes on disk with that packing.
    pub rows_per_page: u64,
    pub packed_bytes: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct IndexSize {
    pub name: String,
    /// `primary key`, `unique`, `index`.
    pub kind: &'static str,
    pub columns: Vec<Placed>,
    /// A partial index's predicate: it holds entries only for rows that match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicate: Option<String>,
    pub tuple_header: u64,
    /// Header and key rounded up to MAXALIGN.
    pub tuple: u64,
    /// With its line pointer.
    pub entry: u64,
    /// Leaf pages fill this full: keys inserted in increasing order fill to
    /// the B-tree fill factor, random ones less.
    pub fill_percent: u64,
    pub increasing: bool,
    pub fill_reason: String,
    pub bytes_per_row: f64,
}

/// The estimate for one table.
#[derive(Debug, Clone, Serialize)]
pub struct Estimate {
    pub table: String,
    pub heap: HeapRow,
    pub indexes: Vec<IndexSize>,
    pub bytes_per_key: f64,
    /// What the arithmetic leaves out for this table.
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SizeError {
    #[error("--assume `{0}`: table `{1}` has no such column; its columns: {2}")]
    NoColumn(String, String, String),
    #[error("--assume `{0}`: `{0}` is `{1}`, always {2} bytes; only variable-length columns take a size")]
    Fixed(String, String, u64),
    #[error("--assume `{0}`: write COLUMN=BYTES, e.g. `request_hash=32`")]
    BadAssume(String),
    #[error("--rate `{0}`: write a number of writes per unit, e.g. `20/s`, `1200/min`, `5000/h`, `100000/d`")]
    BadRate(String),
    #[error("--days `{0}`: write a number of days, e.g. `30`")]
    BadDays(String),
}

/// Parse `--assume` values (`col=bytes`).
pub fn parse_assume(values: &[String]) -> Result<BTreeMap<String, u64>, SizeError> {
    let mut out = BTreeMap::new();
    for v in values {
        let (c, b) = v
            .split_once('=')
            .ok_or_else(|| SizeError::BadAssume(v.clone()))?;
        let bytes = b
            .trim()
            .parse::<u64>()
            .map_err(|_| SizeError::BadAssume(v.clone()))?;
        let c = c.trim().trim_matches('"').to_ascii_lowercase();
        if c.is_empty() {
            return Err(SizeError::BadAssume(v.clone()));
        }
        out.insert(c, bytes);
    }
    Ok(out)
}

/// Writes a second from `20/s`, `1200/min`, `5000/h`, `100000/d`.
pub fn parse_rate(text: &str) -> Result<f64, SizeError> {
    let bad = || SizeError::BadRate(text.to_string());
    let (n, unit) = text.trim().split_once('/').ok_or_else(bad)?;
    let n: f64 = n.trim().replace('_', "").parse().map_err(|_| bad())?;
    let per = match unit.trim().to_ascii_lowercase().as_str() {
        "s" | "sec" | "second" => 1.0,
        "m" | "min" | "minute" => 60.0,
        "h" | "hr" | "hour" => 3600.0,
        "d" | "day" => 86_400.0,
        _ => return Err(bad()),
    };
    if !n.is_finite() || n < 0.0 {
        return Err(bad());
    }
    Ok(n / per)
}

pub fn parse_days(text: &str) -> Result<f64, SizeError> {
    match text.trim().trim_end_matches('d').parse::<f64>() {
        Ok(d) if d.is_finite() && d >= 0.0 => Ok(d),
        _ => Err(SizeError::BadDays(text.to_string())),
    }
}

/// A type as written, lower-cased, without its modifier: `varchar(64)` →
/// (`varchar`, Some(64)); `text[]` → (`array`, None).
fn base_type(ty: &str) -> (String, Option<u64>) {
    let t = ty.trim().to_ascii_lowercase();
    if t.ends_with("[]") || t.starts_with("array") {
        return ("array".to_string(), None);
    }
    let mut modifier = None;
    let mut out = String::new();
    let mut depth = 0;
    let mut inner = String::new();
    for ch in t.chars() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if modifier.is_none() {
                    modifier = inner.split(',').next().and_then(|n| n.trim().parse().ok());
                }
            }
            c if depth > 0 => inner.push(c),
            c => out.push(c),
        }
    }
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    // `public.mood`, `"Status"`: the bare name.
    let out = out.rsplit('.').next().unwrap_or(&out).to_string();
    (out, modifier)
}

fn words_of(name: &str) -> Vec<String> {
    crate::knowledge::name_words(name)
}

/// The size of a column's value.
fn column_size(
    name: &str,
    ty: &str,
    assume: &BTreeMap<String, u64>,
) -> Result<ColumnSize, SizeError> {
    let l = layout();
    let (base, modifier) = base_type(ty);
    if let Some(f) = l.file.r#type.iter().find(|f| f.names.contains(&base)) {
        if assume.contains_key(name) {
            return Err(SizeError::Fixed(name.to_string(), f.name.clone(), f.bytes));
        }
        return Ok(ColumnSize {
            name: name.to_string(),
            ty: ty.to_string(),
            bytes: f.bytes,
            align: f.align,
            header: 0,
            assumed: None,
            given: false,
        });
    }
    let var = l.file.varlena.iter().find(|v| v.names.contains(&base));
    let Some(var) = var.map(|v| v.align).or((base == "array").then_some(4)) else {
        // Not a built-in idemlint knows: an enum (four bytes), or a domain.
        let enum_bytes = l.get("enum_bytes");
        if let Some(b) = assume.get(name) {
            return Ok(ColumnSize {
                name: name.to_string(),
                ty: ty.to_string(),
                bytes: *b,
                align: 4,
                header: 0,
                assumed: None,
                given: true,
            });
        }
        return Ok(ColumnSize {
            name: name.to_string(),
            ty: ty.to_string(),
            bytes: enum_bytes,
            align: 4,
            header: 0,
            assumed: Some(format!(
                "`{ty}` is no built-in type idemlint knows: taken as an enum ({enum_bytes} bytes)"
            )),
            given: false,
        });
    };
    let (payload, assumed, given) = match assume.get(name) {
        Some(b) => (*b, None, true),
        None => {
            let words = words_of(name);
            let t = l
                .file
                .typical
                .iter()
                .find(|t| {
                    t.types.contains(&base)
                        && (t.words.is_empty() || t.words.iter().any(|w| words.contains(w)))
                })
                .map(|t| (t.bytes, t.why.clone()))
                .unwrap_or((32, "a short value".to_string()));
            // `char(3)` is always 3 characters; `varchar(n)` at most n.
            let (bytes, why) = match (base.as_str(), modifier) {
                ("char" | "character" | "bpchar", Some(n)) => (n, format!("`{ty}` holds {n}")),
                (_, Some(n)) if n < t.0 && !matches!(base.as_str(), "numeric" | "decimal") => {
                    (n, format!("{}, at most {n} for `{ty}`", t.1))
                }
                _ => t,
            };
            (bytes, Some(why), false)
        }
    };
    let short_max = l.get("varlena_short_max_bytes");
    let short = l.get("varlena_short_header_bytes");
    let long = l.get("varlena_header_bytes");
    let (header, align) = if payload + short <= short_max {
        (short, 1)
    } else {
        (long, var)
    };
    Ok(ColumnSize {
        name: name.to_string(),
        ty: ty.to_string(),
        bytes: payload + header,
        align,
        header,
        assumed,
        given,
    })
}

/// Place columns one after another from `start`, each at its alignment.
fn place(columns: Vec<ColumnSize>, start: u64) -> (Vec<Placed>, u64) {
    let mut at = start;
    let mut out = Vec::new();
    for c in columns {
        let offset = align_up(at, c.align);
        let pad = offset - at;
        at = offset + c.bytes;
        out.push(Placed {
            column: c,
            pad,
            offset,
        });
    }
    (out, at)
}

/// A column whose values arrive in increasing order: a sequence, an
/// identity or a time of insertion.
fn increasing(t: &Table, col: &str) -> Option<String> {
    let c = t.column(col)?;
    let (base, _) = base_type(&c.ty);
    let default = c.default.as_deref().unwrap_or("").to_ascii_lowercase();
    if base.contains("serial") || default.contains("nextval") || default.contains("identity") {
        return Some(format!("`{col}` comes from a sequence"));
    }
    // NOTE: pg_dump writes `id bigint NOT NULL` and attaches its sequence in
    // a later `ALTER ... SET DEFAULT nextval(...)`; a whole-number primary
    // key named `id` is a surrogate from a sequence.
    let whole = matches!(
        base.as_str(),
        "bigint" | "int8" | "integer" | "int" | "int4" | "smallint" | "int2"
    );
    let sole_pk = t
        .guards
        .iter()
        .any(|g| g.key.kind == KeyKind::PrimaryKey && g.key.parts.len() == 1);
    if whole && col.eq_ignore_ascii_case("id") && sole_pk {
        return Some(format!("`{col}` is a surrogate key from a sequence"));
    }
    if default.contains("uuidv7") || default.contains("uuid_generate_v7") {
        return Some(format!("`{col}` is a time-ordered UUID"));
    }
    if base.starts_with("timestamp") || base == "date" {
        return Some(format!("`{col}` is a time of insertion"));
    }
    None
}

/// The estimate for a table as its history leaves it. `assume` gives sizes
/// of variable-length columns by name (lower-case).
pub fn estimate(t: &Table, assume: &BTreeMap<String, u64>) -> Result<Estimate, SizeError> {
    let l = layout();
    for name in assume.keys() {
        if t.column(name).is_none() {
            let cols: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
            return Err(SizeError::NoColumn(
                name.clone(),
                t.name.clone(),
                cols.join(", "),
            ));
        }
    }
    let mut sizes = Vec::new();
    for c in &t.columns {
        sizes.push(column_size(&c.name, &c.ty, assume)?);
    }
    let heap = heap_row(t, &sizes);
    let mut notes = Vec::new();
    let indexes: Vec<IndexSize> = t
        .guards
        .iter()
        .filter_map(|g| index_size(t, g, &sizes, &mut notes))
        .collect();
    if heap.tuple > l.get("toast_threshold_bytes") {
        notes.push(format!(
            "a row of {} bytes is over the {}-byte TOAST threshold: PostgreSQL compresses or moves its longest values out of line, which this estimate does not model",
            heap.tuple,
            l.get("toast_threshold_bytes")
        ));
    }
    if t.partition_by.is_some() {
        notes.push(
            "partitioned: each partition holds its rows and its own copy of each index; the figures are per row across partitions"
                .to_string(),
        );
    }
    notes.push(
        "rows deleted by an expiry job leave dead space until VACUUM reuses it; a DELETE-expired table holds more than its live rows"
            .to_string(),
    );
    let bytes_per_key = heap.bytes as f64 + indexes.iter().map(|i| i.bytes_per_row).sum::<f64>();
    Ok(Estimate {
        table: t.name.clone(),
        heap,
        indexes,
        bytes_per_key,
        notes,
    })
}

/// A row of the heap: its header, null bitmap, columns placed with their
/// alignment, line pointer, and how many fit a page.
fn heap_row(t: &Table, sizes: &[ColumnSize]) -> HeapRow {
    let l = layout();
    let maxalign = l.get("maxalign_bytes");
    let line_pointer = l.get("line_pointer_bytes");
    let pk_columns: Vec<&str> = t
        .guards
        .iter()
        .filter(|g| g.key.kind == KeyKind::PrimaryKey)
        .flat_map(|g| g.key.parts.iter().flat_map(|p| p.columns()))
        .collect();
    let nullable = t
        .columns
        .iter()
        .any(|c| !c.not_null && !pk_columns.contains(&c.name.as_str()));
    let header = l.get("heap_tuple_header_bytes");
    let null_bitmap = if nullable {
        (t.columns.len() as u64).div_ceil(8)
    } else {
        0
    };
    let data_offset = align_up(header + null_bitmap, maxalign);
    let (columns, data_end) = place(sizes.to_vec(), data_offset);
    let tuple = align_up(data_end, maxalign);
    let bytes = tuple + line_pointer;
    let usable = l.get("page_bytes") - l.get("page_header_bytes");
    let rows_per_page = (usable / bytes.max(1)).max(1);
    let packed_bytes = l.get("page_bytes") as f64 / rows_per_page as f64;
    HeapRow {
        tuple_header: header,
        null_bitmap,
        data_offset,
        columns,
        data_end,
        tuple,
        line_pointer,
        bytes,
        rows_per_page,
        packed_bytes,
    }
}

/// The entry of one guard's index, and its fill; notes on what the
/// estimate leaves out of it go to `notes`. `None` when it reads no column
/// of the table.
fn index_size(
    t: &Table,
    g: &crate::model::schema::Guard,
    sizes: &[ColumnSize],
    notes: &mut Vec<String>,
) -> Option<IndexSize> {
    let l = layout();
    let maxalign = l.get("maxalign_bytes");
    let line_pointer = l.get("line_pointer_bytes");
    let ix_header = l.get("index_tuple_header_bytes");
    let mut cols = Vec::new();
    for part in &g.key.parts {
        let read = part.columns();
        let Some(first) = read.first() else { continue };
        let Some(i) = t.columns.iter().position(|c| c.name == *first) else {
            continue;
        };
        let mut c = sizes[i].clone();
        if let KeyPart::Expr { text, .. } = part {
            c.name = text.clone();
            c.assumed = Some(format!("the expression is taken as as long as `{first}`"));
        }
        cols.push(c);
    }
    if cols.is_empty() {
        return None;
    }
    let (placed, end) = place(cols, ix_header);
    let tuple = align_up(end, maxalign);
    let entry = tuple + line_pointer;
    let lead = g
        .key
        .parts
        .first()
        .and_then(|p| p.columns().first().copied());
    let inc = lead.and_then(|c| increasing(t, c));
    let is_increasing = inc.is_some();
    let (fill_percent, fill_reason) = match inc {
        Some(why) => (
            l.get("btree_fill_increasing_percent"),
            format!("increasing keys: {why}"),
        ),
        None => (
            l.get("btree_fill_random_percent"),
            match lead.and_then(|c| t.column(c)) {
                Some(c) if base_type(&c.ty).0 == "uuid" => {
                    format!("random keys: `{}` is a uuid (v4)", c.name)
                }
                Some(c) => format!("random keys: `{}` arrives in no order", c.name),
                None => "random keys".to_string(),
            },
        ),
    };
    let kind = match g.key.kind {
        KeyKind::PrimaryKey => "primary key",
        KeyKind::Unique => "unique",
        KeyKind::Index => "index",
    };
    if g.key.kind == KeyKind::Index {
        notes.push(format!(
            "`{}` is not unique: B-tree deduplication (PostgreSQL 13+) stores repeated values once, so it can be smaller",
            g.key.name
        ));
    }
    if let Some(p) = &g.key.predicate {
        notes.push(format!(
            "`{}` is partial (`WHERE {p}`): it holds entries only for the rows that match; counted here for every row",
            g.key.name
        ));
    }
    Some(IndexSize {
        name: g.key.name.clone(),
        kind,
        columns: placed,
        predicate: g.key.predicate.clone(),
        tuple_header: ix_header,
        tuple,
        entry,
        increasing: is_increasing,
        fill_percent,
        fill_reason,
        bytes_per_row: (entry * 100) as f64 / fill_percent as f64,
    })
}

/// `6,842,880,000`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `6.84 GB`, `228.1 MB` (decimal units, as disks are sold).
pub fn human_bytes(n: f64) -> String {
    let units = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)];
    for (u, v) in units {
        if n >= v {
            let x = n / v;
            return if x >= 100.0 {
                format!("{x:.0} {u}")
            } else if x >= 10.0 {
                format!("{x:.1} {u}")
            } else {
                format!("{x:.2} {u}")
            };
        }
    }
    format!("{n:.0} bytes")
}

/// A figure with at most one decimal, none when whole: `40`, `31.1`.
pub fn figure(x: f64) -> String {
    if (x - x.round()).abs() < 0.05 {
        format!("{}", x.round() as i64)
    } else {
        format!("{x:.1}")
    }
}

/// What a number of days of keys costs.
#[derive(Debug, Clone, Serialize)]
pub struct Projection {
    /// `retention`, `floor`, `--days`.
    pub what: String,
    pub label: String,
    pub days: f64,
    pub bytes: u64,
}

/// A rate applied to an estimate.
#[derive(Debug, Clone, Serialize)]
pub struct AtRate {
    pub writes_per_second: f64,
    pub keys_per_day: f64,
    pub bytes_per_day: u64,
    pub projections: Vec<Projection>,
}

impl Estimate {
    /// Bytes for `days` of keys at `per_second` writes.
    pub fn bytes_for(&self, per_second: f64, days: f64) -> u64 {
        (per_second * 86_400.0 * days * self.bytes_per_key).round() as u64
    }

    pub fn at_rate(&self, per_second: f64, periods: &[(String, String, f64)]) -> AtRate {
        let keys_per_day = per_second * 86_400.0;
        AtRate {
            writes_per_second: per_second,
            keys_per_day,
            bytes_per_day: (keys_per_day * self.bytes_per_key).round() as u64,
            projections: periods
                .iter()
                .map(|(what, label, days)| Projection {
                    what: what.clone(),
                    label: label.clone(),
                    days: *days,
                    bytes: self.bytes_for(per_second, *days),
                })
                .collect(),
        }
    }

    /// The derivation, line by line.
    pub fn derivation(&self) -> Vec<String> {
        let h = &self.heap;
        let l = layout();
        let maxalign = l.get("maxalign_bytes");
        let mut out = vec![format!("heap row of `{}`", self.table)];
        let width = h
            .columns
            .iter()
            .map(|c| c.column.name.len())
            .max()
            .unwrap_or(0)
            .max(12);
        if h.null_bitmap > 0 {
            out.push(format!(
                "  tuple header {} + null bitmap {} (nullable columns) = {}, aligned to {maxalign}: data starts at {}",
                h.tuple_header,
                h.null_bitmap,
                h.tuple_header + h.null_bitmap,
                h.data_offset
            ));
        } else {
            out.push(format!(
                "  tuple header {}, aligned to {maxalign}: data starts at {}",
                h.tuple_header, h.data_offset
            ));
        }
        for p in &h.columns {
            out.push(format!(
                "  {:width$} {}",
                p.column.name,
                column_line(p),
                width = width
            ));
        }
        if h.tuple != h.data_end {
            out.push(format!(
                "  row ends at {}, padded to {} (a multiple of {maxalign})",
                h.data_end, h.tuple
            ));
        } else {
            out.push(format!(
                "  row ends at {} (a multiple of {maxalign})",
                h.data_end
            ));
        }
        out.push(format!(
            "  {} + line pointer {} = {} bytes of heap a row",
            h.tuple, h.line_pointer, h.bytes
        ));
        out.push(format!(
            "  (a page holds ({} - {}) / {} = {} rows, so {} bytes a row on disk)",
            l.get("page_bytes"),
            l.get("page_header_bytes"),
            h.bytes,
            h.rows_per_page,
            figure(h.packed_bytes)
        ));
        for ix in &self.indexes {
            let cols: Vec<String> = ix.columns.iter().map(|c| c.column.name.clone()).collect();
            out.push(format!(
                "index `{}` ({} on {})",
                ix.name,
                ix.kind,
                cols.join(", ")
            ));
            let mut sum = vec![format!("tuple header {}", ix.tuple_header)];
            for c in &ix.columns {
                let pad = if c.pad > 0 {
                    format!("pad {} + ", c.pad)
                } else {
                    String::new()
                };
                sum.push(format!("{pad}{} {}", c.column.name, c.column.bytes));
            }
            let end = ix
                .columns
                .last()
                .map_or(ix.tuple_header, |c| c.offset + c.column.bytes);
            let aligned = if end != ix.tuple {
                format!(" = {end}, padded to {}", ix.tuple)
            } else {
                format!(" = {}", ix.tuple)
            };
            out.push(format!(
                "  {}{aligned}, + line pointer {} = {}",
                sum.join(" + "),
                l.get("line_pointer_bytes"),
                ix.entry
            ));
            out.push(format!(
                "  {} / {} fill ({}) = {} bytes a row",
                ix.entry,
                fill_text(ix.fill_percent),
                ix.fill_reason,
                figure(ix.bytes_per_row)
            ));
        }
        let mut parts = vec![h.bytes.to_string()];
        parts.extend(self.indexes.iter().map(|i| figure(i.bytes_per_row)));
        out.push(format!(
            "bytes a key: {} = {}",
            parts.join(" + "),
            figure(self.bytes_per_key)
        ));
        out
    }

    /// The columns whose size was assumed, as `name: N bytes (why)`.
    pub fn assumptions(&self) -> Vec<(String, u64, String)> {
        self.heap
            .columns
            .iter()
            .filter_map(|p| {
                p.column.assumed.as_ref().map(|why| {
                    (
                        p.column.name.clone(),
                        p.column.bytes - p.column.header,
                        why.clone(),
                    )
                })
            })
            .collect()
    }
}

fn fill_text(pct: u64) -> String {
    let f = pct as f64 / 100.0;
    format!("{f}")
}

fn column_line(p: &Placed) -> String {
    let c = &p.column;
    let pad = if p.pad > 0 {
        format!("pad {} (align {}), ", p.pad, c.align)
    } else {
        String::new()
    };
    let what = if c.header > 0 {
        let payload = c.bytes - c.header;
        let src = if c.given {
            "given".to_string()
        } else if let Some(why) = &c.assumed {
            format!("assumed: {why}")
        } else {
            "known".to_string()
        };
        let header = if c.align == 1 {
            format!("{}-byte header, not aligned", c.header)
        } else {
            format!("{}-byte header", c.header)
        };
        format!(" ({payload} {src}, + {header})")
    } else {
        match (&c.assumed, c.given) {
            (_, true) => " (given)".to_string(),
            (Some(why), _) => format!(" ({why})"),
            _ => String::new(),
        }
    };
    format!(
        "{:12} {pad}{} at {}..{}{what}",
        c.ty,
        c.bytes,
        p.offset,
        p.offset + c.bytes
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::source::{FileKind, SourceFile, SourceMap};

    fn table(sql: &str) -> Table {
        let mut sources = SourceMap::default();
        sources
            .files
            .push(SourceFile::new("schema.sql", FileKind::Sql, sql));
        let facts = vec![crate::frontend::parse(0, FileKind::Sql, sql)];
        let m = crate::model::schema::SchemaModel::build(&facts, &sources, &Config::default());
        m.tables.into_iter().next().expect("a table")
    }

    const SEED: &str = "create table payment_idempotency (
  key          uuid        not null,
  request_hash bytea       not null,
  state        smallint    not null,
  status_code  smallint    not null,
  created_at   timestamptz not null,
  primary key (key)
);";

    #[test]
    fn seed_table_is_92_bytes_of_heap_40_of_index_132_a_key() {
        let e = estimate(&table(SEED), &BTreeMap::new()).expect("estimate");
        assert_eq!(e.heap.data_offset, 24);
        let offsets: Vec<(u64, u64)> = e.heap.columns.iter().map(|p| (p.pad, p.offset)).collect();
        assert_eq!(offsets, vec![(0, 24), (0, 40), (1, 74), (0, 76), (2, 80)]);
        assert_eq!(e.heap.bytes, 92);
        assert_eq!(e.heap.rows_per_page, 88);
        assert_eq!(e.indexes.len(), 1);
        assert_eq!(e.indexes[0].entry, 28);
        assert_eq!(e.indexes[0].bytes_per_row, 40.0);
        assert_eq!(e.bytes_per_key, 132.0);
        let r = e.at_rate(20.0, &[("days".into(), "30 days".into(), 30.0)]);
        assert_eq!(r.keys_per_day, 1_728_000.0);
        assert_eq!(r.bytes_per_day, 228_096_000);
        assert_eq!(r.projections[0].bytes, 6_842_880_000);
    }

    #[test]
    fn long_values_take_a_four_byte_header_and_alignment() {
        let t = table(
            "create table idempotency_keys (id smallint not null, response_body jsonb not null);",
        );
        let e = estimate(&t, &BTreeMap::new()).expect("estimate");
        let body = &e.heap.columns[1];
        assert_eq!(body.column.header, 4);
        assert_eq!((body.pad, body.offset), (2, 28));
        let mut assume = BTreeMap::new();
        assume.insert("response_body".to_string(), 126);
        let e = estimate(&t, &assume).expect("estimate");
        assert_eq!(e.heap.columns[1].column.bytes, 127);
        assert_eq!(e.heap.columns[1].column.header, 1);
    }

    #[test]
    fn nullable_columns_add_a_bitmap_and_increasing_keys_fill_to_90() {
        let t = table(
            "create table idempotency_keys (id bigserial primary key, k text, a int, b int, c int, d int, e int, f int, g int);",
        );
        let e = estimate(&t, &BTreeMap::new()).expect("estimate");
        assert_eq!(e.heap.null_bitmap, 2);
        assert_eq!(e.heap.data_offset, 32);
        assert_eq!(e.indexes[0].fill_percent, 90);
        assert!(e.indexes[0].increasing);
        assert_eq!(e.indexes[0].entry, 20);
    }

    #[test]
    fn bad_assumptions_and_rates_are_refused_with_the_reason() {
        let t = table(SEED);
        let mut a = BTreeMap::new();
        a.insert("nope".to_string(), 3);
        assert!(matches!(estimate(&t, &a), Err(SizeError::NoColumn(..))));
        let mut a = BTreeMap::new();
        a.insert("key".to_string(), 3);
        assert!(matches!(estimate(&t, &a), Err(SizeError::Fixed(..))));
        assert!(parse_assume(&["x".into()]).is_err());
        assert_eq!(parse_rate("20/s"), Ok(20.0));
        assert_eq!(parse_rate("1200/min"), Ok(20.0));
        assert!(parse_rate("20").is_err());
        assert!(parse_rate("-1/s").is_err());
    }

    #[test]
    fn every_layout_constant_is_in_the_data_file() {
        assert!(
            layout_is_complete().is_empty(),
            "{:?}",
            layout_is_complete()
        );
    }

    #[test]
    fn figures_read_as_people_write_them() {
        assert_eq!(thousands(6_842_880_000), "6,842,880,000");
        assert_eq!(human_bytes(6_842_880_000.0), "6.84 GB");
        assert_eq!(figure(40.0), "40");
        assert_eq!(figure(31.11), "31.1");
    }
}
