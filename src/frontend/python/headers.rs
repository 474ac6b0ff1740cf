//! Header names that Python code sends as such beyond the literals the
//! text reader finds in a header call (`request.headers.get("…")`): the
//! string keys of a dict literal that is a request's headers, the value of
//! a `headers=` argument (`httpx.post(url, headers={"webhook-id": ..})`),
//! a dict bound to a name that says headers (`headers: Mapping[str, str] =
//! {..}`, `self.headers = {..}`), or one given to a headers map's
//! `update(..)`. Each key is a header the request sends
//! (`StrRole::Write`), so a misspelt one is judged as a header's name, not
//! as a JSON field's.

use super::syntax::span_of;
use crate::facts::headers::StrRole;
use crate::facts::FileFacts;
use crate::source::Span;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{Expr, ExprDict, Stmt};

/// Mark the keys of the module's header dicts as headers it sends.
pub(super) fn read(body: &[Stmt], facts: &mut FileFacts) {
    let mut w = HeaderDicts::default();
    for s in body {
        w.visit_stmt(s);
    }
    if w.keys.is_empty() {
        return;
    }
    for s in &mut facts.strings {
        if s.role == StrRole::Mention && w.keys.contains(&s.span) {
            s.role = StrRole::Write;
        }
    }
}

/// The quoted keys of the header dicts found, inside the quotes.
#[derive(Default)]
struct HeaderDicts {
    keys: Vec<Span>,
}

impl HeaderDicts {
    /// Each string key of `d`.
    fn dict(&mut self, d: &ExprDict) {
        for item in &d.items {
            if let Some(Expr::StringLiteral(k)) = &item.key {
                let at = span_of(k);
                // Inside the quotes (one on each side; a prefix or triple
                // quotes make no header name).
                self.keys
                    .push(Span::new(at.start + 1, at.end.saturating_sub(1)));
            }
        }
    }

    /// `value` is a dict given as headers.
    fn headers(&mut self, value: &Expr) {
        if let Expr::Dict(d) = value {
            self.dict(d);
        }
    }
}

/// Whether a name or attribute says it holds headers (`headers`,
/// `request_headers`, `self.extra_headers`).
fn says_headers(target: &Expr) -> bool {
    let name = match target {
        Expr::Name(n) => n.id.as_str(),
        Expr::Attribute(a) => a.attr.id.as_str(),
        _ => return false,
    };
    name.to_ascii_lowercase().ends_with("headers")
}

impl<'a> Visitor<'a> for HeaderDicts {
    fn visit_stmt(&mut self, s: &'a Stmt) {
        match s {
            Stmt::Assign(a) if a.targets.iter().any(says_headers) => self.headers(&a.value),
            Stmt::AnnAssign(a) if says_headers(&a.target) => {
                if let Some(v) = &a.value {
                    self.headers(v);
                }
            }
            _ => {}
        }
        walk_stmt(self, s);
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        if let Expr::Call(c) = e {
            for k in &c.arguments.keywords {
                if k.arg.as_ref().is_some_and(|a| a.as_str() == "headers") {
                    self.headers(&k.value);
                }
            }
            // `headers.update({..})`
            if let Expr::Attribute(m) = c.func.as_ref() {
                if m.attr.id.as_str() == "update" && says_headers(&m.value) {
                    if let Some(first) = c.arguments.args.first() {
                        self.headers(first);
                    }
                }
            }
        }
        walk_expr(self, e);
    }
}

#[cfg(test)]
mod tests {
    use crate::facts::headers::StrRole;
    use crate::source::FileKind;

    fn roles(src: &str) -> Vec<(String, StrRole)> {
        let f = crate::frontend::parse(0, FileKind::Python, src);
        f.strings
            .iter()
            .map(|s| (s.value.clone(), s.role))
            .collect()
    }

    #[test]
    fn keys_of_header_dicts_are_headers_sent() {
        let src = "async def send(client, event, sig):\n\
                   \x20   headers: dict[str, str] = {\n\
                   \x20       \"content-type\": \"application/json\",\n\
                   \x20       \"webhook_id\": str(event.id),\n\
                   \x20   }\n\
                   \x20   self.headers = {'X-Request_Id': '1'}\n\
                   \x20   headers.update({'idempotency_key': k})\n\
                   \x20   return await client.post(u, headers={'Webhook-ID': event.id})\n";
        let got = roles(src);
        for name in [
            "webhook_id",
            "X-Request_Id",
            "idempotency_key",
            "Webhook-ID",
        ] {
            assert!(
                got.iter().any(|(v, r)| v == name && *r == StrRole::Write),
                "{name}: {got:?}"
            );
        }
    }

    #[test]
    fn other_dicts_keep_their_keys_as_mentions() {
        let src = "payload = {'webhook_id': event.id, 'idempotency_key': k}\n\
                   client.post(u, json={'webhook_id': 1})\n\
                   params.update({'idempotency_key': k})\n";
        let got = roles(src);
        assert!(
            got.iter()
                .filter(|(v, _)| v == "webhook_id" || v == "idempotency_key")
                .all(|(_, r)| *r == StrRole::Mention),
            "{got:?}"
        );
    }
}
