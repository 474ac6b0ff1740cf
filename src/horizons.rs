//! The effective counterparty catalogue of a run: `rules/counterparties.toml`
//! with the config's `[[counterparty]]` entries added or overriding, `margin`
//! and `default_horizon` applied; and its rendering for `idemlint horizons`.
//! Attribution of stores to counterparties is the model's (`model::retention`).

use crate::config::Config;
use crate::duration::Duration;
use crate::knowledge::{self, Counterparty, Direction, Window};

/// The catalogue a run uses.
#[derive(Debug, Clone)]
pub struct Catalogue {
    pub counterparties: Vec<Counterparty>,
    pub margin: Duration,
    pub margin_source: String,
    pub default_horizon: Duration,
    pub default_horizon_source: String,
}

/// Fallbacks when a catalogue value cannot be read (a build defect the
/// knowledge tests catch): the values `rules/counterparties.toml` gives.
const FALLBACK_MARGIN: Duration = Duration::from_secs(5 * crate::duration::DAY);
const FALLBACK_HORIZON: Duration = Duration::from_secs(30 * crate::duration::DAY);

impl Catalogue {
    pub fn builtin() -> Catalogue {
        Catalogue::with_config(&Config::default())
    }

    /// The built-in catalogue with the config's additions. A config
    /// `[[counterparty]]` with the id of a built-in entry replaces it; its
    /// `horizon` becomes one inbound window, its `outbound` one outbound
    /// window (key retention).
    pub fn with_config(config: &Config) -> Catalogue {
        let k = knowledge::counterparties();
        let mut counterparties = k.counterparty.clone();
        for d in &config.counterparty {
            let source = d
                .source
                .clone()
                .unwrap_or_else(|| "declared in idemlint.toml".to_string());
            let declared = |text: &Option<String>, direction, covers: &str, what: &str| {
                let length = crate::duration::parse(text.as_deref()?, None)?;
                Some(Window {
                    covers: covers.to_string(),
                    what: what.to_string(),
                    duration: length.to_string(),
                    direction,
                    source: source.clone(),
                    quote: None,
                    read: "idemlint.toml".to_string(),
                    note: None,
                    paths: Vec::new(),
                })
            };
            let window: Vec<Window> = [
                declared(
                    &d.horizon,
                    Direction::Inbound,
                    "declared",
                    "replay horizon declared in idemlint.toml",
                ),
                declared(
                    &d.outbound,
                    Direction::Outbound,
                    "key-retention",
                    "key retention declared in idemlint.toml",
                ),
            ]
            .into_iter()
            .flatten()
            .collect();
            if window.is_empty() {
                continue;
            }
            let entry = Counterparty {
                id: d.id.clone(),
                name: d.name.clone().unwrap_or_else(|| d.id.clone()),
                r#match: d.r#match.clone(),
                window,
                hosts: d.hosts.clone(),
            };
            match counterparties.iter_mut().find(|c| c.id == d.id) {
                Some(existing) => {
                    // A declared window replaces the built-in ones; the
                    // built-in hosts still attribute requests unless replaced.
                    let hosts = std::mem::take(&mut existing.hosts);
                    *existing = entry;
                    if existing.hosts.is_empty() {
                        existing.hosts = hosts;
                    }
                }
                None => counterparties.push(entry),
            }
        }
        let parse_or = |cfg: &Option<String>, builtin: &str, fallback: Duration| {
            cfg.as_deref()
                .and_then(|t| crate::duration::parse(t, None))
                .or_else(|| crate::duration::parse(builtin, None))
                .unwrap_or(fallback)
        };
        let from_config = |v: &Option<String>, builtin: &str| match v {
            Some(_) => "idemlint.toml".to_string(),
            None => builtin.to_string(),
        };
        Catalogue {
            counterparties,
            margin: parse_or(&config.margin, &k.margin, FALLBACK_MARGIN),
            margin_source: from_config(&config.margin, &k.margin_source),
            default_horizon: parse_or(
                &config.default_horizon,
                &k.default_horizon,
                FALLBACK_HORIZON,
            ),
            default_horizon_source: from_config(&config.default_horizon, &k.default_horizon_source),
        }
    }

    pub fn get(&self, id: &str) -> Option<&Counterparty> {
        self.counterparties.iter().find(|c| c.id == id)
    }
}

/// The width the human table keeps to. A URL is never broken, so a line
/// holding one URL alone may run past it.
pub const WIDTH: usize = 100;

/// Where the text column of the human table starts: two spaces, the
/// direction (`direction` and a space) and the window (`75h 35m` and two).
const TEXT_AT: usize = 2 + 10 + 9;

/// The catalogue as `idemlint horizons` prints it: each counterparty with its
/// replay horizon and floor, then one entry per window (direction, length,
/// what it is, the page's URL and the date it was read), wrapped to
/// [`WIDTH`] columns. `wide` prints one unwrapped line per window instead,
/// with the quote and note.
pub fn render_table(cat: &Catalogue, wide: bool) -> String {
    let mut out = if wide {
        wide_table(cat)
    } else {
        narrow_table(cat)
    };
    out.push('\n');
    let floor = |d: Duration| Duration::from_secs(d.secs.saturating_add(cat.margin.secs));
    for line in [
        format!("margin {}: {}", cat.margin, cat.margin_source),
        format!(
            "unknown counterparty: default horizon {}, floor {}: {}",
            cat.default_horizon,
            floor(cat.default_horizon),
            cat.default_horizon_source
        ),
    ] {
        if wide {
            out.push_str(&line);
            out.push('\n');
        } else {
            for l in wrap(&line, WIDTH, "") {
                out.push_str(&l);
                out.push('\n');
            }
        }
    }
    out
}

/// A counterparty's heading: its id and name, and its horizon and floor.
fn heading(cat: &Catalogue, c: &Counterparty) -> String {
    match c.inbound_horizon() {
        Some((_, h)) => format!(
            "{} ({}): replay horizon {}, floor {}",
            c.id,
            c.name,
            h,
            Duration::from_secs(h.secs.saturating_add(cat.margin.secs))
        ),
        None => format!(
            "{} ({}): keys we send only, no replay horizon",
            c.id, c.name
        ),
    }
}

fn narrow_table(cat: &Catalogue) -> String {
    let mut out = format!(
        "  {:<10}{:<9}{}\n",
        "direction", "window", "what, source, date read"
    );
    for c in &cat.counterparties {
        out.push('\n');
        out.push_str(&heading(cat, c));
        out.push('\n');
        for w in &c.window {
            let indent = " ".repeat(TEXT_AT);
            let mut lines = wrap(&w.what, WIDTH, &indent);
            lines.extend(wrap(&w.source, WIDTH, &indent));
            // A config entry's `read` names the file it comes from, not a date.
            let read = if w.read.starts_with(|c: char| c.is_ascii_digit()) {
                format!("read {}", w.read)
            } else {
                format!("from {}", w.read)
            };
            lines.extend(wrap(&read, WIDTH, &indent));
            let first = format!("  {:<10}{:<9}", w.direction.as_str(), w.duration);
            for (i, l) in lines.iter().enumerate() {
                if i == 0 {
                    out.push_str(&first);
                    out.push_str(l.trim_start());
                } else {
                    out.push_str(l);
                }
                out.push('\n');
            }
        }
    }
    out
}

fn wide_table(cat: &Catalogue) -> String {
    let mut rows: Vec<Vec<String>> = vec![[
        "counterparty",
        "direction",
        "covers",
        "window",
        "what",
        "source",
        "read",
        "quote",
        "note",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()];
    for c in &cat.counterparties {
        for (i, w) in c.window.iter().enumerate() {
            let who = if i == 0 {
                format!("{} ({})", c.id, c.name)
            } else {
                String::new()
            };
            rows.push(vec![
                who,
                w.direction.as_str().to_string(),
                w.covers.clone(),
                w.duration.clone(),
                w.what.clone(),
                w.source.clone(),
                w.read.clone(),
                w.quote
                    .as_deref()
                    .map(|q| format!("\"{q}\""))
                    .unwrap_or_default(),
                w.note.clone().unwrap_or_default(),
            ]);
        }
    }
    let last = rows[0].len() - 1;
    let widths: Vec<usize> = (0..last)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &rows {
        let mut line = String::new();
        for (i, cell) in r.iter().enumerate() {
            if i < last {
                line.push_str(&format!("{cell:<w$}  ", w = widths[i]));
            } else {
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push('\n');
    for c in &cat.counterparties {
        out.push_str(&heading(cat, c));
        out.push('\n');
    }
    out
}

/// `text` broken at spaces into lines of at most `width` columns, each
/// starting with `indent`. A word longer than the room (a URL) gets a line
/// of its own and is never broken.
fn wrap(text: &str, width: usize, indent: &str) -> Vec<String> {
    let room = width.saturating_sub(indent.chars().count()).max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > room {
            lines.push(format!("{indent}{line}"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(format!("{indent}{line}"));
    }
    lines
}

/// The catalogue as JSON: the counterparties with their windows, plus each
/// one's inbound horizon and floor in seconds.
pub fn render_json(cat: &Catalogue) -> String {
    let entries: Vec<serde_json::Value> = cat
        .counterparties
        .iter()
        .map(|c| {
            let horizon = c.inbound_horizon().map(|(_, d)| d.secs);
            serde_json::json!({
                "id": c.id,
                "name": c.name,
                "match": c.r#match,
                "inbound_horizon_secs": horizon,
                "floor_secs": horizon.map(|h| h.saturating_add(cat.margin.secs)),
                "windows": c.window.iter().map(|w| serde_json::json!({
                    "covers": w.covers,
                    "what": w.what,
                    "duration": w.duration,
                    "duration_secs": w.length().map(|d| d.secs),
                    "direction": w.direction,
                    "source": w.source,
                    "url": w.source.starts_with("https://").then_some(&w.source),
                    "quote": w.quote,
                    "read": w.read,
                    "note": w.note,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = serde_json::json!({
        "version": 1,
        "margin_secs": cat.margin.secs,
        "margin_source": cat.margin_source,
        "default_horizon_secs": cat.default_horizon.secs,
        "default_horizon_source": cat.default_horizon_source,
        "counterparties": entries,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_lists_stripe_3_day_and_30_day_windows_with_urls_and_dates() {
        let t = render_table(&Catalogue::builtin(), false);
        let stripe: Vec<&str> = t
            .lines()
            .skip_while(|l| !l.starts_with("stripe-webhooks (Stripe)"))
            .take_while(|l| !l.is_empty())
            .collect();
        assert!(stripe[0].contains("replay horizon 30d, floor 35d"));
        assert!(stripe[1].starts_with("  inbound   3d "));
        assert!(stripe.contains(
            &"                     https://docs.stripe.com/webhooks/process-undelivered-events"
        ));
        assert!(stripe.iter().any(|l| l.starts_with("  inbound   30d ")));
        assert!(stripe.iter().any(|l| l.contains("read 2026-12-01")));
    }

    #[test]
    fn table_fits_in_100_columns_except_a_lone_url() {
        for line in render_table(&Catalogue::builtin(), false).lines() {
            let lone_url = line.trim_start().starts_with("https://") && !line.trim().contains(' ');
            assert!(
                line.chars().count() <= WIDTH || lone_url,
                "{} columns: {line}",
                line.chars().count()
            );
        }
    }

    #[test]
    fn paypal_key_retentions_say_which_api_each_is() {
        let t = render_table(&Catalogue::builtin(), false);
        for (api, d) in [
            ("Orders v2", "6h"),
            ("Payments v2", "45d"),
            ("Catalog Products v1", "72h"),
            ("Subscriptions v1", "72h"),
            ("Payment Method Tokens v3", "3h"),
            ("Payouts v1", "30d"),
        ] {
            assert!(
                t.lines()
                    .any(|l| l.starts_with(&format!("  outbound  {d:<9}"))
                        && l.contains("`PayPal-Request-Id`")
                        && l.contains(api)),
                "{api}"
            );
        }
    }

    #[test]
    fn wide_table_has_one_line_per_window_with_its_quote() {
        let t = render_table(&Catalogue::builtin(), true);
        let line = t
            .lines()
            .find(|l| l.starts_with("stripe-webhooks (Stripe)"))
            .unwrap();
        assert!(line.contains("inbound") && line.contains("3d"));
        assert!(line.contains("https://docs.stripe.com/webhooks/process-undelivered-events"));
        assert!(line.contains("\"automatically resends the undelivered events"));
    }

    #[test]
    fn json_gives_windows_in_seconds() {
        let v: serde_json::Value =
            serde_json::from_str(&render_json(&Catalogue::builtin())).unwrap();
        let stripe = v["counterparties"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "stripe-webhooks")
            .unwrap();
        assert_eq!(stripe["inbound_horizon_secs"], 30 * 86_400);
        assert_eq!(stripe["floor_secs"], 35 * 86_400);
        assert_eq!(stripe["windows"][0]["duration_secs"], 3 * 86_400);
        assert_eq!(
            stripe["windows"][0]["url"],
            "https://docs.stripe.com/webhooks/process-undelivered-events"
        );
        assert!(stripe["windows"][0]["quote"]
            .as_str()
            .unwrap()
            .contains("up to three days"));
        assert!(stripe["windows"][0]["read"]
            .as_str()
            .unwrap()
            .starts_with("2026-12-01"));
    }

    #[test]
    fn config_counterparty_overrides_and_adds() {
        let cfg = Config::parse(
            "margin = \"7d\"\n[[counterparty]]\nid = \"acme-bank\"\nhorizon = \"45d\"\nmatch = [\"acme\"]\n[[counterparty]]\nid = \"paypal-webhooks\"\nname = \"PayPal\"\nhorizon = \"10d\"\nmatch = [\"paypal\"]\n",
            "idemlint.toml",
        )
        .unwrap();
        let cat = Catalogue::with_config(&cfg);
        assert_eq!(cat.margin.secs, 7 * 86_400);
        let acme = cat.get("acme-bank").unwrap();
        assert_eq!(acme.inbound_horizon().unwrap().1.secs, 45 * 86_400);
        let paypal = cat.get("paypal-webhooks").unwrap();
        assert_eq!(paypal.inbound_horizon().unwrap().1.secs, 10 * 86_400);
    }
}
