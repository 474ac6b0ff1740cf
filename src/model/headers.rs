//! Header-name uses across the project: every string that may name an
//! idempotency header, with the role the code gives it, Rust constants
//! resolved across files so `get(REPLAYED)` reads the constant's literal.

use crate::facts::headers::StrRole;
use crate::facts::FileFacts;
use crate::source::{FileId, Span};
use std::collections::HashMap;

#[derive(Debug, Clone)]
pub struct HeaderUse {
    pub file: FileId,
    pub span: Span,
    pub value: String,
    pub role: StrRole,
    /// The file talks to Stripe's API.
    pub stripe_context: bool,
    /// Found in a config file (YAML/TOML/JSON/.env), where a string is a
    /// header name only by its position or its spelling.
    pub in_config: bool,
    /// Set by an nginx directive on the request it forwards upstream
    /// (`proxy_set_header`).
    pub forwarded_upstream: bool,
}

#[derive(Debug, Default)]
pub struct HeaderModel {
    pub uses: Vec<HeaderUse>,
    /// An nginx config of the repository that passes underscore names
    /// (`underscores_in_headers on;`): the file and the span of `on`.
    pub underscores_passed: Option<(FileId, Span)>,
}

use crate::header_names::{header_relevant, header_shaped};

/// A name an idempotency key is sent under, whether or not it misses a
/// published one (`X-Idempotency-Key`, `Idempotency-Token`): the header
/// rule compares the names one client sends.
fn sent_key_name(value: &str, role: StrRole) -> bool {
    role == StrRole::Write
        && header_shaped(value)
        && crate::knowledge::contains_ignore_ascii_case(value, "idempot")
}

impl HeaderModel {
    pub fn build(files: &[FileFacts]) -> Self {
        // Roles given to constants by name, from every Rust file.
        let mut ident_roles: HashMap<&str, StrRole> = HashMap::new();
        for f in files {
            if let Some(r) = &f.code {
                for (name, role) in &r.ident_args {
                    ident_roles.entry(name.as_str()).or_insert(*role);
                }
            }
        }
        let mut uses = Vec::new();
        for f in files {
            let mut roles: Vec<StrRole> = f.strings.iter().map(|s| s.role).collect();
            if let Some(r) = &f.code {
                for c in &r.str_consts {
                    if let (Some(role), Some(slot)) =
                        (ident_roles.get(c.name.as_str()), roles.get_mut(c.string))
                    {
                        *slot = *role;
                    }
                }
            }
            for (s, role) in f.strings.iter().zip(roles) {
                if header_relevant(&s.value) || sent_key_name(&s.value, role) {
                    uses.push(HeaderUse {
                        file: f.file,
                        span: s.span,
                        value: s.value.clone(),
                        role,
                        stripe_context: f.hints.talks_to_stripe,
                        in_config: f.conf.is_some(),
                        forwarded_upstream: f.hints.forwarded_headers.contains(&s.span),
                    });
                }
            }
        }
        let underscores_passed = files
            .iter()
            .find_map(|f| f.hints.nginx_passes_underscores.map(|s| (f.file, s)));
        HeaderModel {
            uses,
            underscores_passed,
        }
    }
}
