//! Key builders that leave out an owner at hand: a method named for a key
//! (`func (i Item) Key() string`) in a package or on a type named for a
//! store (`package dedupe`), whose `fmt.Sprintf` builds the key from fields
//! of its receiver but not from the receiver's owner field (`Namespace`,
//! `TenantID`: `[scope_column]` of `rules/stores.toml`). Two owners' items
//! with the same id then share one key. Also a stripe-go key made where an
//! owner parameter is at hand and left out ([`dropped`]).

use super::syntax::{args, named, path_of, span, string_value, text};
use crate::facts::flow::TypeDef;
use crate::facts::keys::{DroppedCaller, OwnerlessKey};
use crate::knowledge;
use tree_sitter::Node;

/// The ownerless keys of a file's methods, given its struct types.
pub fn read(root: Node, src: &str, structs: &[TypeDef]) -> Vec<OwnerlessKey> {
    let stores = knowledge::stores();
    let package = named(root)
        .into_iter()
        .find(|n| n.kind() == "package_clause")
        .and_then(|p| named(p).into_iter().next())
        .map(|p| text(p, src).to_string())
        .unwrap_or_default();
    let mut out = Vec::new();
    for m in named(root)
        .into_iter()
        .filter(|n| n.kind() == "method_declaration")
    {
        if let Some(k) = method(m, src, structs, stores.is_store_table(&package)) {
            out.push(k);
        }
    }
    out
}

fn method(m: Node, src: &str, structs: &[TypeDef], store_package: bool) -> Option<OwnerlessKey> {
    let name = text(m.child_by_field_name("name")?, src);
    if !knowledge::name_words(name).iter().any(|w| w == "key") {
        return None;
    }
    let recv = named(m.child_by_field_name("receiver")?)
        .into_iter()
        .find(|p| p.kind() == "parameter_declaration")?;
    let var = text(recv.child_by_field_name("name")?, src);
    let ty = super::syntax::type_name(recv.child_by_field_name("type")?, src);
    if !store_package && !knowledge::stores().is_store_table(&ty) {
        return None;
    }
    let def = structs.iter().find(|d| d.name == ty)?;
    let scope = &knowledge::stores().scope_column;
    let owner = def
        .fields
        .iter()
        .find(|(f, t)| scope.matches_with(&knowledge::snake(f), t, &[]))?;
    let body = m.child_by_field_name("body")?;
    let used = |f: &str| text(body, src).contains(&format!("{var}.{f}"));
    if used(&owner.0) {
        return None;
    }
    let call = sprintf(body, src)?;
    let a = args(call);
    let format = *a.first()?;
    let from_receiver = a[1..]
        .iter()
        .any(|x| path_of(*x, src).is_some_and(|p| p.len() == 2 && p[0] == var));
    if !from_receiver {
        return None;
    }
    let s = span(format);
    Some(OwnerlessKey {
        span: crate::source::Span::new(s.start + 1, s.end.saturating_sub(1).max(s.start + 1)),
        text: string_value(format, src)?,
        owner: format!("{var}.{}", owner.0),
        late: false,
    })
}

/// The first `fmt.Sprintf(..)` call in a body.
fn sprintf<'t>(body: Node<'t>, src: &str) -> Option<Node<'t>> {
    let mut stack = vec![body];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > 4_096 {
            return None;
        }
        if n.kind() == "call_expression" {
            let f = n
                .child_by_field_name("function")
                .and_then(|f| path_of(f, src));
            if f.is_some_and(|p| p == ["fmt", "Sprintf"]) {
                return Some(n);
            }
        }
        let mut kids = named(n);
        kids.reverse();
        stack.extend(kids);
    }
    None
}

/// Owners at hand and left out of a key sent to Stripe: a function whose
/// parameter names an owner (`workspaceID`, `tenantID`: `[scope_column]`)
/// and that sends `params.SetIdempotencyKey(fmt.Sprintf(..))` (or
/// `IdempotencyKey: stripe.String(fmt.Sprintf(..))`) built from none of
/// its owner parameters, nor any owner-named value. Keys sent to one
/// Stripe account are one namespace: two owners' requests with the same
/// rest of the key meet there.
pub fn dropped(root: Node, src: &str) -> Vec<DroppedCaller> {
    if !src.contains("IdempotencyKey") {
        return Vec::new();
    }
    let mut out = Vec::new();
    for f in named(root)
        .into_iter()
        .filter(|n| matches!(n.kind(), "function_declaration" | "method_declaration"))
    {
        out.extend(dropped_in(f, src));
    }
    out
}

fn dropped_in(f: Node, src: &str) -> Option<DroppedCaller> {
    let name = f.child_by_field_name("name")?;
    let body = f.child_by_field_name("body")?;
    let scope = &knowledge::stores().scope_column;
    let owners: Vec<(String, Node)> =
        super::walk::params_of(f.child_by_field_name("parameters")?, src)
            .into_iter()
            .filter(|(p, ty)| scope.matches_with(&knowledge::snake(p), ty, &[]))
            .filter_map(|(p, _)| Some((p.clone(), param_node(f, &p, src)?)))
            .collect();
    let first = owners.first()?;
    let format = key_format(body, src)?;
    let a = args(format);
    let owned = a[1..].iter().any(|x| {
        let t = text(*x, src);
        owners.iter().any(|(p, _)| t.contains(p.as_str()))
            || t.split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| {
                    knowledge::name_words(w).len() > 1
                        && scope.matches_with(&knowledge::snake(w), "", &[])
                })
    });
    if owned || a.len() < 2 {
        return None;
    }
    let (p, node) = first;
    let used = text(body, src).contains(p.as_str());
    Some(DroppedCaller {
        span: span(*node),
        name: p.clone(),
        function: text(name, src).to_string(),
        function_span: span(name),
        how: "a parameter".to_string(),
        used,
    })
}

/// The identifier node of parameter `p` of `f`.
fn param_node<'t>(f: Node<'t>, p: &str, src: &str) -> Option<Node<'t>> {
    let list = f.child_by_field_name("parameters")?;
    named(list)
        .into_iter()
        .filter(|d| d.kind() == "parameter_declaration")
        .find_map(|d| {
            let mut c = d.walk();
            let found = d
                .children_by_field_name("name", &mut c)
                .find(|n| text(*n, src) == p);
            found
        })
}

/// The `fmt.Sprintf(..)` a stripe-go key is made of:
/// `x.SetIdempotencyKey(fmt.Sprintf(..))` or `IdempotencyKey:
/// stripe.String(fmt.Sprintf(..))`.
fn key_format<'t>(body: Node<'t>, src: &str) -> Option<Node<'t>> {
    let mut stack = vec![body];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > 20_000 {
            return None;
        }
        let value = match n.kind() {
            "call_expression" => {
                let f = n
                    .child_by_field_name("function")
                    .and_then(|f| path_of(f, src));
                f.filter(|p| p.last().is_some_and(|m| m == "SetIdempotencyKey"))
                    .and_then(|_| args(n).first().copied())
            }
            "keyed_element" => n
                .child_by_field_name("key")
                .filter(|k| text(*k, src) == "IdempotencyKey")
                .and_then(|_| n.child_by_field_name("value"))
                .map(super::syntax::bare)
                .and_then(|v| {
                    let f = v
                        .child_by_field_name("function")
                        .and_then(|f| path_of(f, src));
                    f.filter(|p| p == &["stripe", "String"])
                        .and_then(|_| args(v).first().copied())
                }),
            _ => None,
        };
        if let Some(v) = value.map(super::syntax::bare) {
            let f = v
                .child_by_field_name("function")
                .and_then(|f| path_of(f, src));
            if v.kind() == "call_expression" && f.is_some_and(|p| p == ["fmt", "Sprintf"]) {
                return Some(v);
            }
        }
        stack.extend(named(n));
    }
    None
}
