//! Key builders that leave out an owner at hand: a method named for a key
//! (`func (i Item) Key() string`) in a package or on a type named for a
//! store (`package dedupe`), whose `fmt.Sprintf` builds the key from fields
//! of its receiver but not from the receiver's owner field (`Namespace`,
//! `TenantID`: `[scope_column]` of `rules/stores.toml`). Two owners' items
//! with the same id then share one key.

use super::syntax::{args, named, path_of, span, string_value, text};
use crate::facts::flow::TypeDef;
use crate::facts::keys::OwnerlessKey;
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
