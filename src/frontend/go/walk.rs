//! One walk over each Go function: its trace of steps (`facts::flow`: SQL
//! sent to a table, go-redis commands on a key, transactions, calls), the
//! go-redis writes and their expiries (`redis`), and keys made fresh inside
//! a retry and sent as the idempotency key (`fresh`). A function literal
//! inside a function (a handler closure, a `backoff.Retry` operation) is
//! read as part of it.

use super::state::{File, Local, Walk, MAX_DEPTH};
use super::syntax::{args, bare, named, path_of, span, text, type_name};
use crate::facts::flow::{CallSite, FnTrace, Step, StepKind};
use crate::knowledge::{self, CallShape, Name};
use crate::source::Span;
use std::collections::HashMap;
use tree_sitter::Node;

impl<'a, 's> Walk<'a, 's> {
    pub fn new(file: &'a File<'s>, fn_name: String) -> Self {
        Walk {
            file,
            fn_name,
            fn_span: Span::new(0, 0),
            locals: HashMap::new(),
            steps: Vec::new(),
            branch: Vec::new(),
            next_site: 0,
            exits: Vec::new(),
            next_exit: 0,
            scopes: Vec::new(),
            writes: Vec::new(),
            fresh: Vec::new(),
            sends: Vec::new(),
            defaulting: 0,
            retried: HashMap::new(),
        }
    }

    /// Find the names the body's retry wrappers are given, before the
    /// walk: the operation is bound before the call that retries it.
    pub fn find_retried(&mut self, body: Node) {
        let mut stack = vec![body];
        let mut seen = 0usize;
        while let Some(n) = stack.pop() {
            seen += 1;
            if seen > 100_000 {
                return;
            }
            if n.kind() == "call_expression" {
                let site = self.call_site(n);
                if self.is_retry(&site) {
                    let f = n.child_by_field_name("function").map_or(span(n), span);
                    for a in args(n).into_iter().map(bare) {
                        if a.kind() == "identifier" {
                            let what = format!("`{}` retry", site.path.join("."));
                            self.retried
                                .insert(text(a, self.src()).to_string(), (f, what));
                        }
                    }
                }
            }
            stack.extend(named(n));
        }
    }

    pub fn src(&self) -> &'s str {
        self.file.src
    }

    pub fn push(&mut self, at: Span, kind: StepKind) {
        self.steps.push(Step {
            span: at,
            kind,
            branch: self.branch.iter().copied().collect(),
            exits: self.exits.iter().copied().collect(),
            success_only: false,
            awaited: false,
        });
    }

    /// Walk a statement or expression in source order.
    pub fn visit(&mut self, n: Node, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match n.kind() {
            "if_statement" => self.if_statement(n, depth),
            "expression_switch_statement" | "type_switch_statement" | "select_statement" => {
                self.switch(n, depth)
            }
            "for_statement" => {
                let kw = Span::new(n.start_byte(), n.start_byte() + 3);
                self.scopes.push((kw, "`for` loop".to_string()));
                self.children(n, depth);
                self.scopes.pop();
            }
            "short_var_declaration" | "assignment_statement" => self.assign(n, depth),
            "var_spec" => self.var_spec(n, depth),
            "call_expression" => super::calls::call(self, n, depth),
            "keyed_element" => {
                self.children(n, depth);
                super::fresh::keyed(self, n);
            }
            _ => self.children(n, depth),
        }
    }

    pub fn children(&mut self, n: Node, depth: usize) {
        for c in named(n) {
            self.visit(c, depth + 1);
        }
    }

    /// A block as one arm of a branch site; a block that returns leaves.
    fn arm(&mut self, block: Node, site: u32, arm: u32, depth: usize) {
        self.branch.push((site, arm));
        let leaves = leaves(block, self.src());
        if leaves {
            self.exits.push(self.next_exit);
            self.next_exit += 1;
        }
        self.visit(block, depth + 1);
        if leaves {
            self.exits.pop();
        }
        self.branch.pop();
    }

    fn if_statement(&mut self, n: Node, depth: usize) {
        for f in ["initializer", "condition"] {
            if let Some(c) = n.child_by_field_name(f) {
                self.visit(c, depth + 1);
            }
        }
        let site = self.next_site;
        self.next_site += 1;
        // `if params.IdempotencyKey == nil {..}`: a key made only where the
        // caller gave none (a client's default for its own resends); not
        // `!= ""`, where the caller's key is replaced.
        let defaulting = n.child_by_field_name("condition").is_some_and(|c| {
            let c = text(c, self.src());
            super::fresh::names_key(c) && super::fresh::tests_absent(c)
        });
        self.defaulting += usize::from(defaulting);
        if let Some(c) = n.child_by_field_name("consequence") {
            self.arm(c, site, 0, depth);
        }
        if let Some(a) = n.child_by_field_name("alternative") {
            self.arm(a, site, 1, depth);
        }
        self.defaulting -= usize::from(defaulting);
    }

    fn switch(&mut self, n: Node, depth: usize) {
        let site = self.next_site;
        self.next_site += 1;
        let mut arm = 0;
        for c in named(n) {
            if matches!(
                c.kind(),
                "expression_case" | "default_case" | "type_case" | "communication_case"
            ) {
                self.arm(c, site, arm, depth);
                arm += 1;
            } else {
                self.visit(c, depth + 1);
            }
        }
    }

    /// `a, b := f(..)` / `a = f(..)`: the right side first, then what
    /// each name now holds.
    fn assign(&mut self, n: Node, depth: usize) {
        let (Some(left), Some(right)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            return self.children(n, depth);
        };
        let lefts = named(left);
        let rights = named(right);
        let retried = match (lefts.as_slice(), rights.as_slice()) {
            ([l], [r]) if bare(*r).kind() == "func_literal" => {
                self.retried.get(text(*l, self.src())).cloned()
            }
            _ => None,
        };
        let scoped = retried.is_some();
        self.scopes.extend(retried);
        self.visit(right, depth + 1);
        if scoped {
            self.scopes.pop();
        }
        if rights.len() == 1 && lefts.len() > 1 {
            // `tx, err := db.BeginTx(..)`, `event, err := webhook.ConstructEvent(..)`.
            self.bind(lefts[0], rights[0], None);
            return;
        }
        for (l, r) in lefts.iter().zip(&rights) {
            super::fresh::assigned(self, *l, *r);
            self.bind(*l, *r, None);
        }
    }

    fn var_spec(&mut self, n: Node, depth: usize) {
        let ty = n
            .child_by_field_name("type")
            .map(|t| text(t, self.src()).to_string());
        let value = n.child_by_field_name("value");
        if let Some(v) = value {
            self.visit(v, depth + 1);
        }
        let mut c = n.walk();
        let names: Vec<Node> = n.children_by_field_name("name", &mut c).collect();
        let values = value.map(named).unwrap_or_default();
        for (i, name) in names.iter().enumerate() {
            match values.get(i) {
                Some(v) => self.bind(*name, *v, ty.clone()),
                None => {
                    let local = Local {
                        ty: ty.clone(),
                        ..Local::default()
                    };
                    self.locals
                        .insert(text(*name, self.src()).to_string(), local);
                }
            }
        }
    }

    /// Record what `name = value` makes `name` hold.
    fn bind(&mut self, name: Node, value: Node, ty: Option<String>) {
        if name.kind() != "identifier" {
            return;
        }
        let name = text(name, self.src()).to_string();
        if name == "_" {
            return;
        }
        let value = bare(value);
        if let Some(last) = self.steps.last_mut() {
            if let StepKind::TxBegin { var } = &mut last.kind {
                if last.span == span(value) {
                    *var = Some(name.clone());
                }
            }
        }
        let mut local = Local {
            prefix: self.prefix(value),
            source: super::keys::source(self, value),
            event: super::keys::verified_event(self, value),
            ty: ty.or_else(|| composite_type(value, self.src())),
            fresh: None,
            fresh_from: None,
        };
        if let Some((at, what, level)) = super::fresh::fresh_in(self, value, 0) {
            // Made here, or bound from a binding made earlier (its level).
            let level = level.unwrap_or(self.scopes.len());
            local.fresh = Some((at, what, level));
            local.fresh_from = super::fresh::input_part(self, value);
        }
        self.locals.insert(name, local);
    }

    /// A key's literal prefix, through a binding.
    pub fn prefix(&self, key: Node) -> Option<String> {
        let key = bare(key);
        if key.kind() == "identifier" {
            if let Some(l) = self.locals.get(text(key, self.src())) {
                return l.prefix.clone();
            }
        }
        super::syntax::literal_prefix(key, self.src(), &self.file.consts.strings)
    }

    /// The call site of a call expression.
    pub fn call_site(&self, call: Node) -> CallSite {
        let src = self.src();
        let mut site = CallSite::default();
        let Some(f) = call.child_by_field_name("function").map(bare) else {
            return site;
        };
        if f.kind() == "selector_expression" {
            let (Some(operand), Some(field)) = (
                f.child_by_field_name("operand").map(bare),
                f.child_by_field_name("field"),
            ) else {
                return site;
            };
            let field = Name::from(text(field, src));
            match path_of(operand, src) {
                Some(p) if p.len() == 1 && self.is_package(&p[0]) => {
                    site.path = [Name::from(p[0].as_str()), field].into_iter().collect();
                }
                Some(p) => {
                    site.recv_type = self.type_of(&p[0]).map(Name::from);
                    site.receiver = p.iter().map(|s| Name::from(s.as_str())).collect();
                    site.method = Some(field);
                }
                None => {
                    site.method = Some(field);
                    self.chain_of(operand, &mut site);
                }
            }
        } else if let Some(p) = path_of(f, src) {
            site.path = p.iter().map(|s| Name::from(s.as_str())).collect();
        }
        for a in args(call) {
            let a = bare(a);
            let root = match a.kind() {
                "composite_literal" => a.child_by_field_name("type"),
                _ => Some(a),
            }
            .and_then(|x| path_of(x, src));
            if let Some(p) = &root {
                site.args.extend(p.iter().map(|s| Name::from(s.as_str())));
            }
            site.arg_roots
                .push(root.and_then(|p| p.first().map(|s| Name::from(s.as_str()))));
        }
        site
    }

    /// `a.B().C()`: the methods and root path before the last call.
    fn chain_of(&self, mut operand: Node, site: &mut CallSite) {
        let src = self.src();
        for _ in 0..32 {
            if operand.kind() != "call_expression" {
                break;
            }
            let Some(f) = operand.child_by_field_name("function").map(bare) else {
                break;
            };
            match f.kind() {
                "selector_expression" => {
                    if let Some(m) = f.child_by_field_name("field") {
                        site.chain.push(Name::from(text(m, src)));
                    }
                    let Some(o) = f.child_by_field_name("operand").map(bare) else {
                        break;
                    };
                    if let Some(p) = path_of(o, src) {
                        site.chain.extend(p.iter().map(|s| Name::from(s.as_str())));
                        site.receiver = p.iter().map(|s| Name::from(s.as_str())).collect();
                        break;
                    }
                    operand = o;
                }
                _ => {
                    if let Some(p) = path_of(f, src) {
                        site.chain.extend(p.iter().map(|s| Name::from(s.as_str())));
                    }
                    break;
                }
            }
        }
    }

    /// A name that is an imported package here, not a binding.
    pub fn is_package(&self, name: &str) -> bool {
        !self.locals.contains_key(name) && self.file.imports.contains_key(name)
    }

    fn type_of(&self, name: &str) -> Option<String> {
        self.locals.get(name).and_then(|l| l.ty.clone())
    }

    /// Whether a shape is one of the catalogue's retry wrappers.
    pub fn is_retry(&self, site: &CallSite) -> bool {
        !site.path.is_empty() && CallShape::path(&site.path).any_of(&knowledge::effects().retry)
    }
}

/// `&T{..}` / `T{..}`: the type it builds.
fn composite_type(value: Node, src: &str) -> Option<String> {
    (value.kind() == "composite_literal")
        .then(|| value.child_by_field_name("type"))
        .flatten()
        .map(|t| text(t, src).to_string())
}

/// Whether a block's own statements leave the function or loop.
fn leaves(block: Node, src: &str) -> bool {
    let list = if block.kind() == "block" {
        named(block)
            .into_iter()
            .find(|c| c.kind() == "statement_list")
    } else {
        block
            .named_children(&mut block.walk())
            .find(|c| c.kind() == "statement_list")
    };
    let Some(list) = list else { return false };
    named(list).iter().any(|s| match s.kind() {
        "return_statement" | "break_statement" | "continue_statement" | "goto_statement" => true,
        "expression_statement" => {
            let t = text(*s, src);
            t.starts_with("panic(") || t.starts_with("log.Fatal") || t.starts_with("os.Exit(")
        }
        _ => false,
    })
}

/// A function's trace, built from its walk.
pub(super) fn trace(
    w: Walk,
    name_node: Node,
    owner: Option<String>,
    params: Vec<(String, String)>,
) -> super::Lowered {
    let t = FnTrace {
        name: w.fn_name.clone(),
        module: Vec::new(),
        owner,
        trait_of: None,
        bounds: Vec::new(),
        span: span(name_node),
        params,
        events: w.steps,
        opaque: None,
        test: false,
        unconditional_set: None,
        plain_claim: None,
        unlocked_check: None,
        claims: Vec::new(),
        script: false,
    };
    (t, w.writes, w.fresh, w.sends)
}

/// A receiver or parameter list as (name, type) pairs.
pub(super) fn params_of(list: Node, src: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in named(list)
        .into_iter()
        .filter(|p| p.kind() == "parameter_declaration")
    {
        let ty = p
            .child_by_field_name("type")
            .map(|t| text(t, src).to_string())
            .unwrap_or_default();
        let mut c = p.walk();
        for n in p.children_by_field_name("name", &mut c) {
            out.push((text(n, src).to_string(), ty.clone()));
        }
    }
    out
}

pub(super) fn type_of_node(n: Node, src: &str) -> String {
    type_name(n, src)
}
