//! The inventory as one self-contained HTML file: inline CSS, no script, no
//! font or image fetched, and per store an inline SVG timeline that draws
//! its retention against each published window of its counterparty, the
//! uncovered part of each window hatched, the floor dashed, each window
//! labelled with its source. The SVG is well-formed XML on its own.

use super::render::{
    counterparty_cell, coverage_cell, details, dur, finding_line, floor_cell, guard_cell, label,
    pct, retention_cell, size_cell, source_line, Timeline,
};
use super::{Inventory, Store};

/// Text for XML and HTML: `&`, `<`, `>` and quotes escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em;color:#1b1b1b;max-width:80em}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}code{font-family:ui-monospace,Menlo,Consolas,monospace}section{margin-top:2.5em}
dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dt{font-weight:600}dd{margin:0}
td,dd,li{overflow-wrap:anywhere}table{max-width:100%}
.error{color:#b00020}.warning{color:#8a5a00}.note{color:#245}.suppressed{color:#666}svg{max-width:100%;height:auto}";

const WIDTH: f64 = 760.0;
const LEFT: f64 = 230.0;
/// The bars end at 650, leaving room for the "4.2% covered" after them.
const CHART: f64 = 420.0;
const ROW: f64 = 34.0;

fn x(secs: u64, span: u64) -> f64 {
    LEFT + CHART * (secs as f64 / span.max(1) as f64).min(1.0)
}

/// The timeline of one store as an SVG element; `id` keeps pattern ids unique.
pub fn svg(s: &Store, margin: u64, id: usize) -> String {
    let tl = Timeline::of(s, margin);
    let kept = tl.retention.unwrap_or(tl.span);
    let rows = tl.marks.len() + 1;
    let height = 58.0 + ROW * rows as f64 + 30.0;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"{}\">",
        escape(&format!("retention timeline of {}", s.name))
    );
    out.push_str(&format!(
        "<defs><pattern id=\"gap{id}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fde2e2\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#c62828\" stroke-width=\"2\"/></pattern></defs>"
    ));
    let headline = match (s.coverage, &s.counterparty, tl.retention) {
        (Some(f), Some(c), Some(r)) if f < 1.0 => format!(
            "{} covers {} of the {} window and leaves {} unguarded",
            dur(r),
            pct(f),
            dur(c.horizon_seconds),
            pct(1.0 - f)
        ),
        (_, Some(c), Some(r)) => format!(
            "{} covers the whole {} window",
            dur(r),
            dur(c.horizon_seconds)
        ),
        (_, None, Some(r)) => format!(
            "{} against the default horizon of {} (counterparty unknown)",
            dur(r),
            dur(tl.horizon)
        ),
        (_, _, None) => "no expiry found: keys are kept until deleted by hand".to_string(),
    };
    out.push_str(&format!(
        "<text x=\"0\" y=\"18\" font-size=\"15\" font-weight=\"600\">{}</text>",
        escape(&headline)
    ));
    // one row per window, then the retention
    let mut y = 40.0;
    for (secs, what, source) in &tl.marks {
        let end = x(*secs, tl.span);
        let cover = x(kept.min(*secs), tl.span);
        out.push_str(&format!(
            "<text x=\"0\" y=\"{:.1}\" font-size=\"13\">{}</text>",
            y + 12.0,
            escape(&format!("{what} {}", dur(*secs)))
        ));
        // The sources, in full, are in the table of windows below.
        out.push_str(&format!("<title>{}</title>", escape(source)));
        out.push_str(&format!(
            "<rect x=\"{LEFT:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"16\" fill=\"#2e7d32\"><title>{}</title></rect>",
            (cover - LEFT).max(0.0),
            escape(&format!("covered: the first {}", dur(kept.min(*secs))))
        ));
        if kept < *secs {
            let f = kept as f64 / *secs as f64;
            out.push_str(&format!(
                "<rect x=\"{cover:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"16\" fill=\"url(#gap{id})\" stroke=\"#c62828\"><title>{}</title></rect>",
                end - cover,
                escape(&format!(
                    "unguarded: {} of this {} window ({})",
                    dur(secs - kept),
                    dur(*secs),
                    pct(1.0 - f)
                ))
            ));
            out.push_str(&format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#c62828\">{}</text>",
                end + 4.0,
                y + 12.0,
                escape(&format!("{} covered", pct(f)))
            ));
        } else {
            out.push_str(&format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#2e7d32\">covered</text>",
                end + 4.0,
                y + 12.0
            ));
        }
        y += ROW;
    }
    let kept_label = match tl.retention {
        Some(r) => format!("retention {}", dur(r)),
        None => "retention: none found".to_string(),
    };
    out.push_str(&format!(
        "<text x=\"0\" y=\"{:.1}\" font-size=\"13\" font-weight=\"600\">{}</text>",
        y + 12.0,
        escape(&kept_label)
    ));
    out.push_str(&format!(
        "<rect x=\"{LEFT:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"16\" fill=\"#1565c0\"/>",
        (x(kept, tl.span) - LEFT).max(1.0)
    ));
    out.push_str(&live_marker(s, tl.span, y));
    // the floor, across every row
    let fx = x(tl.floor, tl.span);
    out.push_str(&format!(
        "<line x1=\"{fx:.1}\" y1=\"34\" x2=\"{fx:.1}\" y2=\"{:.1}\" stroke=\"#6a1b9a\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>",
        y + 22.0
    ));
    let floor_text = match &s.counterparty {
        Some(c) => format!(
            "{} floor ({} + {} margin)",
            dur(tl.floor),
            dur(c.horizon_seconds),
            dur(c.margin_seconds)
        ),
        None => format!("{} floor (default horizon + margin)", dur(tl.floor)),
    };
    out.push_str(&format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#6a1b9a\" text-anchor=\"end\">{}</text>",
        fx,
        y + 36.0,
        escape(&floor_text)
    ));
    out.push_str(&format!(
        "<text x=\"{LEFT:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#555\">0</text>",
        y + 36.0
    ));
    out.push_str("</svg>");
    out
}

/// What the deployed store keeps (`inventory --live`): a line across every
/// row of the timeline, labelled below it.
fn live_marker(s: &Store, span: u64, y: f64) -> String {
    let Some(live) = s.live_kept_seconds else {
        return String::new();
    };
    // to the hour past a day, to the minute below
    let unit = if live >= 86_400.0 { 3600.0 } else { 60.0 };
    let live = ((live.max(0.0) / unit).round() * unit) as u64;
    let lx = x(live, span);
    format!(
        "<line x1=\"{lx:.1}\" y1=\"34\" x2=\"{lx:.1}\" y2=\"{:.1}\" stroke=\"#ef6c00\" stroke-width=\"2\"><title>{}</title></line><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#ef6c00\">{}</text>",
        y + 22.0,
        escape(&format!("live: {} kept as read", dur(live))),
        lx + 3.0,
        y + 48.0,
        escape(&format!("live {}", dur(live)))
    )
}

fn link(url: &str) -> String {
    if url.starts_with("https://") || url.starts_with("http://") {
        format!("<a href=\"{0}\">{0}</a>", escape(url))
    } else {
        escape(url)
    }
}

/// The whole report.
pub fn render(inv: &Inventory) -> String {
    let margin = inv
        .stores
        .iter()
        .find_map(|s| s.counterparty.as_ref().map(|c| c.margin_seconds))
        .unwrap_or(5 * crate::duration::DAY);
    let mut out = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    out.push_str("<title>idemlint inventory</title>");
    out.push_str(&format!("<style>{STYLE}</style></head><body>\n"));
    out.push_str("<h1>Idempotency stores</h1>\n");
    out.push_str(&format!(
        "<p>idemlint {}, {}.</p>\n",
        escape(inv.tool.version),
        escape(&source_line(inv))
    ));
    if inv.stores.is_empty() {
        out.push_str("<p>No idempotency store found.</p></body></html>\n");
        return out;
    }
    out.push_str("<table><thead><tr>");
    for h in super::render::HEADERS {
        out.push_str(&format!("<th>{h}</th>"));
    }
    out.push_str("</tr></thead><tbody>\n");
    for (i, s) in inv.stores.iter().enumerate() {
        out.push_str(&format!(
            "<tr><td><a href=\"#store{i}\"><code>{}</code></a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&s.name),
            escape(s.kind.describe()),
            escape(&guard_cell(s)),
            escape(&retention_cell(s)),
            escape(&counterparty_cell(s)),
            escape(&coverage_cell(s)),
            escape(&floor_cell(s, margin)),
            escape(&size_cell(s, inv.rate)),
            s.findings.len()
        ));
    }
    out.push_str("</tbody></table>\n");
    for (i, s) in inv.stores.iter().enumerate() {
        out.push_str(&format!(
            "<section id=\"store{i}\"><h2><code>{}</code></h2>\n",
            escape(&s.name)
        ));
        out.push_str(&svg(s, margin, i));
        out.push_str("\n<dl>");
        for (k, v) in details(s) {
            out.push_str(&format!("<dt>{}</dt><dd>{}</dd>", escape(k), escape(&v)));
        }
        out.push_str("</dl>\n");
        if let Some(c) = &s.counterparty {
            windows_table(&c.windows, &mut out);
        }
        if !s.findings.is_empty() {
            out.push_str("<h3>Findings</h3><ul>");
            for f in &s.findings {
                out.push_str(&finding_item(f));
            }
            out.push_str("</ul>\n");
        }
        out.push_str("</section>\n");
    }
    if !inv.other_findings.is_empty() {
        out.push_str("<section id=\"other\"><h2>Findings not tied to a store</h2><ul>");
        for f in &inv.other_findings {
            out.push_str(&finding_item(f));
        }
        out.push_str("</ul></section>\n");
    }
    out.push_str("</body></html>\n");
    out
}

fn finding_item(f: &super::Finding) -> String {
    let class = if f.suppressed {
        "suppressed"
    } else {
        f.severity.as_str()
    };
    format!("<li class=\"{class}\">{}</li>", escape(&finding_line(f)))
}

/// The counterparty's windows, one row per window: windows that agree
/// (the same kind and length, from several pages) are one row listing
/// every source.
fn windows_table(windows: &[super::WindowInfo], out: &mut String) {
    out.push_str("<table><thead><tr><th>window</th><th>length</th><th>what</th><th>source</th><th>read</th></tr></thead><tbody>");
    let mut rows: Vec<(String, u64, Vec<&super::WindowInfo>)> = Vec::new();
    for w in windows {
        let l = label(&w.covers);
        match rows
            .iter_mut()
            .find(|(rl, secs, _)| *rl == l && *secs == w.seconds)
        {
            Some(row) => row.2.push(w),
            None => rows.push((l, w.seconds, vec![w])),
        }
    }
    for (l, secs, ws) in rows {
        let join = |f: &dyn Fn(&super::WindowInfo) -> String| {
            let mut parts: Vec<String> = Vec::new();
            for w in &ws {
                let p = f(w);
                if !parts.contains(&p) {
                    parts.push(p);
                }
            }
            parts.join("<br>")
        };
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&l),
            escape(&dur(secs)),
            join(&|w| escape(&w.what)),
            join(&|w| link(&w.source)),
            join(&|w| escape(&w.read))
        ));
    }
    out.push_str("</tbody></table>\n");
}
