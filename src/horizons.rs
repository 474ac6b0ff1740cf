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
/// knowledge tests catch): the values DESIGN §4 gives.
const FALLBACK_MARGIN: Duration = Duration::from_secs(5 * crate::duration::DAY);
const FALLBACK_HORIZON: Duration = Duration::from_secs(30 * crate::duration::DAY);

impl Catalogue {
    pub fn builtin() -> Catalogue {
        Catalogue::with_config(&Config::default())
    }

    /// The built-in catalogue with the config's additions. A config
    /// `[[counterparty]]` with the id of a built-in entry replaces it; its
    /// `horizon` becomes one inbound window.
    pub fn with_config(config: &Config) -> Catalogue {
        let k = knowledge::counterparties();
        let mut counterparties = k.counterparty.clone();
        for d in &config.counterparty {
            let Some(horizon) = crate::duration::parse(&d.horizon, None) else {
                continue;
            };
            let source = d
                .source
                .clone()
                .unwrap_or_else(|| "declared in idemlint.toml".to_string());
            let entry = Counterparty {
                id: d.id.clone(),
                name: d.name.clone().unwrap_or_else(|| d.id.clone()),
                r#match: d.r#match.clone(),
                window: vec![Window {
                    covers: "declared".to_string(),
                    what: "replay horizon declared in idemlint.toml".to_string(),
                    duration: horizon.to_string(),
                    direction: Direction::Inbound,
                    source,
                    read: "idemlint.toml".to_string(),
                }],
            };
            match counterparties.iter_mut().find(|c| c.id == d.id) {
                Some(existing) => *existing = entry,
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

/// The catalogue as `idemlint horizons` prints it: one row per window,
/// grouped by counterparty, with its inbound horizon and floor.
pub fn render_table(cat: &Catalogue) -> String {
    let mut rows: Vec<[String; 6]> = vec![[
        "counterparty".into(),
        "direction".into(),
        "covers".into(),
        "window".into(),
        "source".into(),
        "read".into(),
    ]];
    for c in &cat.counterparties {
        for (i, w) in c.window.iter().enumerate() {
            let who = if i == 0 {
                format!("{} ({})", c.id, c.name)
            } else {
                String::new()
            };
            rows.push([
                who,
                w.direction.as_str().to_string(),
                w.covers.clone(),
                w.duration.clone(),
                w.source.clone(),
                w.read.clone(),
            ]);
        }
    }
    let widths: Vec<usize> = (0..5)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &rows {
        let mut line = String::new();
        for (i, cell) in r.iter().enumerate() {
            if i < 5 {
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
        if let Some((w, h)) = c.inbound_horizon() {
            out.push_str(&format!(
                "{}: replay horizon {} ({}), floor {}\n",
                c.id,
                h,
                w.what,
                Duration::from_secs(h.secs.saturating_add(cat.margin.secs))
            ));
        }
    }
    out.push_str(&format!(
        "\nmargin {} ({}); unknown counterparty: default horizon {} ({}), floor {}\n",
        cat.margin,
        cat.margin_source,
        cat.default_horizon,
        cat.default_horizon_source,
        Duration::from_secs(cat.default_horizon.secs.saturating_add(cat.margin.secs))
    ));
    out
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
                    "read": w.read,
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
    fn table_lists_stripe_3_day_and_30_day_windows_with_sources() {
        let t = render_table(&Catalogue::builtin());
        let stripe: Vec<&str> = t
            .lines()
            .skip_while(|l| !l.starts_with("stripe-webhooks"))
            .take(4)
            .collect();
        assert!(stripe[0].contains("3d") && stripe[0].contains("docs.stripe.com/webhooks"));
        assert!(stripe.iter().any(|l| l.contains("30d")
            && l.contains("docs.stripe.com/webhooks/process-undelivered-events")));
        assert!(t.contains("stripe-webhooks: replay horizon 30d"));
        assert!(t.contains("floor 35d"));
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
