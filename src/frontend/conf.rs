//! What the YAML, JSON, TOML and `.env` front ends share beyond the
//! flattened tree they fill (`facts::config`): which config paths hold
//! header names, and which hold column titles rather than settings.

use crate::facts::config::PathSeg;

/// The role of a string under `path` for the header rule: a config path with
/// a segment that speaks of headers (`request_headers_to_add`, `headers`,
/// `idempotency_header`) holds header names; one that adds or sets them
/// (`request_headers_to_add`, `add_headers`) writes them. Elsewhere a string is
/// only a mention (`idempotency_key: true` is a setting, not a header).
pub fn header_role(path: &[PathSeg]) -> Option<crate::facts::headers::StrRole> {
    use crate::facts::headers::StrRole;
    // NOTE: `headers` of a table, a CSV export or a translation file are
    // column titles (`en.payments.table.headers.idempotency_key`,
    // `csv.headers: [Idempotency_Key, Amount]`), not HTTP headers.
    if not_http(path) {
        return None;
    }
    let mut role = None;
    for k in keys(path) {
        if mentions(k, "header") {
            let writes = ["add", "set", "append"].iter().any(|w| mentions(k, w));
            role = Some(if writes {
                StrRole::Write
            } else {
                role.unwrap_or(StrRole::HeaderName)
            });
        }
    }
    role
}

/// The keys of a path (its indexes left out).
fn keys(path: &[PathSeg]) -> impl Iterator<Item = &str> + '_ {
    path.iter().filter_map(|s| match s {
        PathSeg::Key(k) => Some(k.as_str()),
        PathSeg::Index(_) => None,
    })
}

fn mentions(key: &str, word: &str) -> bool {
    crate::knowledge::contains_ignore_ascii_case(key, word)
}

/// A translation file, or a table, CSV export or report.
fn not_http(path: &[PathSeg]) -> bool {
    keys(path).next().is_some_and(is_locale)
        || keys(path).any(|k| NOT_HTTP.iter().any(|w| k.eq_ignore_ascii_case(w)))
}

/// Whether strings under `path` are column titles (`csv.headers:
/// [Idempotency_Key, Amount]`): they are not header names in any spelling,
/// so the header rule never sees them.
pub fn column_titles(path: &[PathSeg]) -> bool {
    not_http(path) && keys(path).any(|k| mentions(k, "header"))
}

/// Path words under which `headers` are column titles, not HTTP headers.
const NOT_HTTP: &[&str] = &[
    "csv",
    "table",
    "tables",
    "columns",
    "export",
    "exports",
    "report",
    "reports",
    "spreadsheet",
    "grid",
];

/// A translation file's top key: `en`, `de`, `pt-BR`, `zh_Hant`.
fn is_locale(k: &str) -> bool {
    const LANGS: &[&str] = &[
        "en", "de", "fr", "es", "it", "nl", "pt", "ja", "zh", "ko", "ru", "pl", "sv", "da", "fi",
        "nb", "tr", "cs", "ar", "he", "uk", "el", "hu", "ro", "id", "th", "vi",
    ];
    let lang = k.split(['-', '_']).next().unwrap_or(k);
    k.len() <= 7 && LANGS.iter().any(|l| lang.eq_ignore_ascii_case(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_of_a_csv_export_are_column_titles_not_header_names() {
        assert!(column_titles(&[
            PathSeg::Key("exports".into()),
            PathSeg::Key("csv".into()),
            PathSeg::Key("headers".into())
        ]));
        assert!(column_titles(&[
            PathSeg::Key("en".into()),
            PathSeg::Key("payments".into()),
            PathSeg::Key("table".into()),
            PathSeg::Key("headers".into())
        ]));
        assert!(!column_titles(&[
            PathSeg::Key("envoy".into()),
            PathSeg::Key("request_headers_to_add".into())
        ]));
        assert!(!column_titles(&[
            PathSeg::Key("exports".into()),
            PathSeg::Key("csv".into()),
            PathSeg::Key("delimiter".into())
        ]));
    }
}
