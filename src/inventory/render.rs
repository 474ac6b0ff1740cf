//! The inventory as text: a table and a timeline bar per store for the
//! terminal (coloured when asked), markdown for an incident document, JSON.

use super::{Inventory, Store};
use crate::duration::Duration;
use crate::size::{human_bytes, thousands};

/// `24h`, `30d`.
pub fn dur(secs: u64) -> String {
    Duration::from_secs(secs).to_string()
}

/// `3.3%`; under a tenth of a percent `<0.1%`.
pub fn pct(f: f64) -> String {
    let p = f * 100.0;
    if p > 0.0 && p < 0.05 {
        "<0.1%".to_string()
    } else {
        format!("{p:.1}%")
    }
}

pub fn guard_cell(s: &Store) -> String {
    s.unique_guard.state.to_string()
}

pub fn retention_cell(s: &Store) -> String {
    match &s.retention {
        Some(r) => format!("{} ({})", dur(r.seconds), r.mechanism),
        None => "none found".to_string(),
    }
}

pub fn counterparty_cell(s: &Store) -> String {
    match &s.counterparty {
        Some(c) => c.name.clone(),
        None => "unknown".to_string(),
    }
}

/// `3.3% of 30d`, or what stands in for it.
pub fn coverage_cell(s: &Store) -> String {
    match (&s.retention, &s.counterparty, s.coverage) {
        (Some(_), Some(c), Some(f)) => format!("{} of {}", pct(f), dur(c.horizon_seconds)),
        (None, _, _) => "no expiry".to_string(),
        (Some(_), None, _) => "counterparty unknown".to_string(),
        _ => "-".to_string(),
    }
}

pub fn floor_cell(s: &Store, margin: u64) -> String {
    match &s.counterparty {
        Some(c) => format!("{} floor", dur(c.floor_seconds)),
        None => format!("{} floor (default horizon)", dur(s.floor_seconds(margin))),
    }
}

/// `2.41 GB at 20 writes/s for 35 d`: the bytes the store holds at the
/// replay floor, at `--rate` (1 write a second without it).
pub fn size_cell(s: &Store, rate: Option<f64>) -> String {
    let Some(z) = &s.size else {
        return "-".to_string();
    };
    let (bytes, rate) = match (z.bytes_at_floor, rate) {
        (Some(b), Some(r)) => (b, r),
        _ => (z.bytes_at_floor_per_write_per_second, 1.0),
    };
    let rate = if rate.fract() == 0.0 {
        format!("{rate:.0}")
    } else {
        format!("{rate}")
    };
    let writes = if rate == "1" { "write" } else { "writes" };
    format!(
        "{} at {rate} {writes}/s for {} d",
        human_bytes(bytes as f64),
        crate::size::figure(z.floor_days)
    )
}

pub fn findings_cell(s: &Store) -> String {
    let shown = s.findings.iter().filter(|f| !f.suppressed).count();
    let hidden = s.findings.len() - shown;
    match hidden {
        0 => shown.to_string(),
        h => format!("{shown} (+{h} suppressed)"),
    }
}

/// The margin the run used, from any store that knows it.
fn margin(inv: &Inventory) -> u64 {
    inv.stores
        .iter()
        .find_map(|s| s.counterparty.as_ref().map(|c| c.margin_seconds))
        .unwrap_or(5 * crate::duration::DAY)
}

/// The header line naming what was read.
pub fn source_line(inv: &Inventory) -> String {
    match &inv.revision {
        Some(r) => format!(
            "as of commit {} ({}, {}): {}",
            short(&r.commit),
            r.rev,
            r.date,
            r.subject
        ),
        None => "as of the work tree".to_string(),
    }
}

fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// The cells of a store's timeline: where it is covered, uncovered, in the
/// margin; and where each window ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    Covered,
    Uncovered,
    Margin,
    /// Past the floor, still kept.
    Beyond,
}

/// The span a timeline draws (seconds), and what each part is.
pub struct Timeline {
    pub span: u64,
    pub retention: Option<u64>,
    pub horizon: u64,
    pub floor: u64,
    /// (seconds, short label, source).
    pub marks: Vec<(u64, String, String)>,
}

impl Timeline {
    pub fn of(s: &Store, margin: u64) -> Timeline {
        let floor = s.floor_seconds(margin);
        let horizon = s
            .counterparty
            .as_ref()
            .map_or(s.default_horizon_seconds, |c| c.horizon_seconds);
        let retention = s.retention.as_ref().map(|r| r.seconds);
        let mut marks: Vec<(u64, String, String)> = Vec::new();
        if let Some(c) = &s.counterparty {
            // Windows that agree (kind and length) are one mark, with
            // every source.
            for w in &c.windows {
                let l = label(&w.covers);
                match marks.iter_mut().find(|m| m.0 == w.seconds && m.1 == l) {
                    Some(m) if !m.2.split("; ").any(|x| x == w.source) => {
                        m.2 = format!("{}; {}", m.2, w.source);
                    }
                    Some(_) => {}
                    None => marks.push((w.seconds, l, w.source.clone())),
                }
            }
        } else {
            marks.push((
                horizon,
                "default horizon".to_string(),
                "counterparty unknown".to_string(),
            ));
        }
        let span = floor.max(retention.unwrap_or(0)).max(1);
        Timeline {
            span,
            retention,
            horizon,
            floor,
            marks,
        }
    }

    /// What the point `t` seconds after the first request is.
    pub fn at(&self, t: u64) -> Cell {
        let kept = self.retention.is_none_or(|r| t < r);
        if t >= self.floor {
            return Cell::Beyond;
        }
        if kept {
            Cell::Covered
        } else if t < self.horizon {
            Cell::Uncovered
        } else {
            Cell::Margin
        }
    }
}

/// `automatic-retries` → `retries`.
pub fn label(covers: &str) -> String {
    match covers {
        "automatic-retries" => "automatic retries".to_string(),
        "manual-resend" => "manual resend".to_string(),
        "event-retention" => "event retention".to_string(),
        "test-retries" => "test retries".to_string(),
        other => other.replace('-', " "),
    }
}

const BAR: usize = 48;

/// One line: the bar, then what it shows.
pub fn bar(s: &Store, margin: u64, color: bool) -> String {
    let tl = Timeline::of(s, margin);
    let cell = tl.span as f64 / BAR as f64;
    let mut ends: Vec<usize> = tl
        .marks
        .iter()
        .map(|(secs, ..)| ((*secs as f64 / cell).round() as usize).clamp(1, BAR) - 1)
        .collect();
    ends.push(((tl.floor as f64 / cell).round() as usize).clamp(1, BAR) - 1);
    let mut out = String::from("[");
    let mut last: Option<Cell> = None;
    for i in 0..BAR {
        let t = ((i as f64 + 0.5) * cell) as u64;
        let c = tl.at(t);
        if color && last != Some(c) {
            out.push_str(match c {
                Cell::Covered | Cell::Beyond => "\x1b[32m",
                Cell::Uncovered => "\x1b[31m",
                Cell::Margin => "\x1b[33m",
            });
        }
        last = Some(c);
        out.push(if ends.contains(&i) {
            '┃'
        } else {
            match c {
                Cell::Covered | Cell::Beyond => '█',
                Cell::Uncovered => '░',
                Cell::Margin => '▒',
            }
        });
    }
    if color {
        out.push_str("\x1b[0m");
    }
    out.push(']');
    let kept = match tl.retention {
        Some(r) => format!("kept {}", dur(r)),
        None => "no expiry found".to_string(),
    };
    let mut marks: Vec<String> = Vec::new();
    for (secs, l, _) in &tl.marks {
        let m = format!("{l} {}", dur(*secs));
        if !marks.contains(&m) {
            marks.push(m);
        }
    }
    marks.push(format!("floor {}", dur(tl.floor)));
    let cov = match (s.coverage, &s.counterparty) {
        (Some(f), Some(c)) if f < 1.0 => format!(
            "; covers {} of {}, {} unguarded",
            pct(f),
            dur(c.horizon_seconds),
            pct(1.0 - f)
        ),
        _ => String::new(),
    };
    format!("{out} {kept}{cov} | {}", marks.join(" | "))
}

fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| -> String {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                s.push_str(c);
            } else {
                s.push_str(&format!("{c:<w$}  ", w = widths[i]));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(headers.iter().map(|h| h.to_string()).collect());
    out.push_str(&line(widths.iter().map(|w| "-".repeat(*w)).collect()));
    for r in rows {
        out.push_str(&line(r.clone()));
    }
    out
}

/// The terminal's table: what to scan down, within 100 columns; the
/// kind, floor and size are in each store's details below it.
fn terminal_rows(inv: &Inventory) -> Vec<Vec<String>> {
    inv.stores
        .iter()
        .map(|s| {
            vec![
                s.name.clone(),
                guard_cell(s),
                retention_cell(s),
                counterparty_cell(s),
                coverage_cell(s),
                findings_cell(s),
            ]
        })
        .collect()
}

const TERMINAL_HEADERS: [&str; 6] = [
    "store",
    "unique guard",
    "retention",
    "counterparty",
    "coverage",
    "findings",
];

fn rows(inv: &Inventory) -> Vec<Vec<String>> {
    let m = margin(inv);
    inv.stores
        .iter()
        .map(|s| {
            vec![
                s.name.clone(),
                s.kind.describe().to_string(),
                guard_cell(s),
                retention_cell(s),
                counterparty_cell(s),
                coverage_cell(s),
                floor_cell(s, m),
                size_cell(s, inv.rate),
                findings_cell(s),
            ]
        })
        .collect()
}

pub(super) const HEADERS: [&str; 9] = [
    "store",
    "kind",
    "unique guard",
    "retention",
    "counterparty",
    "coverage",
    "floor",
    "size",
    "findings",
];

/// The facts of one store, as `label: value` pairs, in reading order.
pub fn details(s: &Store) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let none = || "none found".to_string();
    out.push(("backing", s.backing.clone()));
    if let Some(at) = &s.defined_at {
        out.push(("defined at", at.clone()));
    }
    if s.kind == super::Kind::SqlTable {
        out.push((
            "key",
            if s.key_columns.is_empty() {
                "no key column recognised".to_string()
            } else {
                s.key_columns.join(", ")
            },
        ));
    }
    let g = &s.unique_guard;
    let mut guard = g.state.to_string();
    if let Some(t) = &g.text {
        guard.push_str(&format!(": {t}"));
    }
    if let Some(at) = &g.at {
        guard.push_str(&format!(" at {at}"));
    }
    out.push(("unique guard", guard));
    if s.kind == super::Kind::SqlTable {
        out.push((
            "caller scope",
            if s.scope.is_empty() {
                none()
            } else {
                s.scope.join(", ")
            },
        ));
        out.push(("fingerprint", s.fingerprint.clone().unwrap_or_else(none)));
        out.push(("in-flight state", s.in_flight.clone().unwrap_or_else(none)));
    }
    out.push(("retention", retention(s)));
    out.push(("counterparty", counterparty(s)));
    for r in &s.redis {
        out.push((
            "redis instance",
            format!(
                "{} at {}: {} ({}; evicts: {})",
                r.instance,
                r.at,
                r.policy.as_deref().unwrap_or("policy unknown"),
                r.policy_from,
                r.evicts
            ),
        ));
    }
    if let Some(ws) = &s.writers {
        out.push((
            "writers",
            if ws.is_empty() {
                "no function of the crate writes it".to_string()
            } else {
                ws.iter()
                    .map(|w| format!("{} ({}, {})", w.function, w.what, w.at))
                    .collect::<Vec<_>>()
                    .join("; ")
            },
        ));
    }
    if let Some(z) = &s.size {
        out.push(("size", size(z)));
    }
    for l in &s.live {
        out.push(("live", format!("{} ({}): {}", l.what, l.target, l.text)));
    }
    out
}

/// How long the store keeps a key, and what expires it.
fn retention(s: &Store) -> String {
    match &s.retention {
        Some(r) => format!(
            "{} by {} at {}{}",
            dur(r.seconds),
            r.mechanism,
            r.at,
            if r.unit_assumed {
                " (a bare number, read as seconds)"
            } else {
                ""
            }
        ),
        None => "none found: nothing expires the keys".to_string(),
    }
}

/// Whose replays the store guards, with the horizon and floor that follow.
fn counterparty(s: &Store) -> String {
    match &s.counterparty {
        Some(c) => format!(
            "{} (`{}`, from {}): horizon {}, floor {} ({} + {} margin){}",
            c.name,
            c.id,
            c.attributed_by,
            dur(c.horizon_seconds),
            dur(c.floor_seconds),
            dur(c.horizon_seconds),
            dur(c.margin_seconds),
            match s.coverage {
                Some(f) => format!(", coverage {}", pct(f)),
                None => String::new(),
            }
        ),
        None => format!(
            "unknown: the default horizon of {} applies",
            dur(s.default_horizon_seconds)
        ),
    }
}

/// The store's size at its floor, per write a second and at the given rate.
fn size(z: &super::SizeInfo) -> String {
    let mut t = format!(
        "{} bytes a key; at the {} floor {} ({} bytes) for each write a second",
        crate::size::figure(z.bytes_per_key),
        dur((z.floor_days * 86_400.0).round() as u64),
        human_bytes(z.bytes_at_floor_per_write_per_second as f64),
        thousands(z.bytes_at_floor_per_write_per_second)
    );
    if let Some(b) = z.bytes_at_floor {
        t.push_str(&format!(
            ", {} ({} bytes) at the given rate",
            human_bytes(b as f64),
            thousands(b)
        ));
    }
    if !z.assumed.is_empty() {
        t.push_str(&format!("; assumed {}", z.assumed.join(", ")));
    }
    t
}

pub fn finding_line(f: &super::Finding) -> String {
    let mut s = format!(
        "{} {} at {}: {}",
        f.severity.as_str(),
        f.rule,
        f.at,
        f.message
    );
    if f.suppressed {
        s.push_str(&format!(
            " [suppressed: {}]",
            f.reason.as_deref().unwrap_or("no reason given")
        ));
    }
    s
}

/// The terminal report.
pub fn terminal(inv: &Inventory, color: bool) -> String {
    let mut out = format!(
        "idemlint inventory, {}: {} store{}\n\n",
        source_line(inv),
        inv.stores.len(),
        if inv.stores.len() == 1 { "" } else { "s" }
    );
    if inv.stores.is_empty() {
        out.push_str("no idempotency store found\n");
        return out;
    }
    out.push_str(&table(&TERMINAL_HEADERS, &terminal_rows(inv)));
    let m = margin(inv);
    let width = crate::render::human::width().min(100);
    for s in &inv.stores {
        let name = if color {
            format!("\x1b[1m{}\x1b[0m", s.name)
        } else {
            s.name.clone()
        };
        out.push_str(&format!("\n{name}\n"));
        // The bar, then its marks: wrapped between marks.
        let text = format!("  {}", bar(s, m, color));
        let mut line = String::new();
        for part in text.split(" | ") {
            if line.is_empty() {
                line = part.to_string();
            } else if line.chars().count() + 3 + part.chars().count() > width {
                out.push_str(&line);
                out.push('\n');
                line = format!("      | {part}");
            } else {
                line = format!("{line} | {part}");
            }
        }
        out.push_str(&line);
        out.push('\n');
        let mut lines = vec![
            ("floor".to_string(), floor_cell(s, m)),
            ("size at the floor".to_string(), size_cell(s, inv.rate)),
        ];
        lines.extend(details(s).into_iter().map(|(k, v)| (k.to_string(), v)));
        lines.extend(
            s.findings
                .iter()
                .map(|f| ("finding".to_string(), finding_line(f))),
        );
        for (k, v) in lines {
            out.push_str(&hanging(&format!("  {k}: {v}"), width, "      "));
        }
    }
    if !inv.other_findings.is_empty() {
        out.push_str("\nfindings not tied to a store\n");
        for f in &inv.other_findings {
            out.push_str(&hanging(
                &format!("  finding: {}", finding_line(f)),
                width,
                "      ",
            ));
        }
    }
    out
}

/// `text` broken at spaces into lines of at most `width` columns, the
/// lines after the first indented by `indent`; a word longer than the
/// width (a URL, a path) keeps a line of its own.
pub fn hanging(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    // Whether `line` holds a word yet (beyond the text's own leading
    // spaces or the indent).
    let mut has_word = false;
    for word in text.split(' ') {
        if has_word && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = indent.to_string();
        } else if has_word {
            line.push(' ');
        } else if word.is_empty() {
            line.push(' '); // a leading space of the text
            continue;
        }
        line.push_str(word);
        has_word = true;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// Markdown for an incident document.
pub fn markdown(inv: &Inventory) -> String {
    let mut out = format!(
        "## Idempotency stores\n\n{}{}.\n\n",
        source_line(inv)[..1].to_uppercase(),
        &source_line(inv)[1..]
    );
    if inv.stores.is_empty() {
        out.push_str("No idempotency store found.\n");
        return out;
    }
    out.push_str(&format!("| {} |\n", HEADERS.join(" | ")));
    out.push_str(&format!("|{}\n", "---|".repeat(HEADERS.len())));
    for r in rows(inv) {
        let cells: Vec<String> = r.iter().map(|c| md_escape(c)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    let m = margin(inv);
    for s in &inv.stores {
        out.push_str(&format!("\n### `{}`\n\n", s.name));
        out.push_str(&format!("`{}`\n\n", bar(s, m, false)));
        for (k, v) in details(s) {
            out.push_str(&format!("- **{k}**: {}\n", md_escape(&v)));
        }
        if let Some(c) = &s.counterparty {
            for w in &c.windows {
                out.push_str(&format!(
                    "- **window**: {} {} ({}): {}, read {}\n",
                    label(&w.covers),
                    dur(w.seconds),
                    md_escape(&w.what),
                    w.source,
                    w.read
                ));
            }
        }
        for f in &s.findings {
            out.push_str(&format!("- **finding**: {}\n", md_escape(&finding_line(f))));
        }
    }
    out
}

pub fn json(inv: &Inventory) -> String {
    serde_json::to_string_pretty(inv).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
