//! Django models and migrations.

use super::{
    column, column_keys, django_column, elements, is_django_field, key, kwarg, name, span_of,
    string_value, strings, table_key, Declared, Reader,
};
use crate::facts::store::{
    AlterOp, Column, Key, KeyKind, ModelClass, Name, SchemaChange, SchemaCode, TableAlias,
};
use crate::knowledge;
use crate::source::Span;
use ruff_python_ast::{Expr, ExprCall, Stmt, StmtClassDef};

/// What a model's `Meta` (or a migration's `options`) says.
#[derive(Default)]
struct Meta {
    db_table: Option<String>,
    app_label: Option<String>,
    abstract_: bool,
    /// `unique_together` groups, `constraints` and `indexes`, as written.
    unique_together: Vec<(Vec<String>, Span)>,
    keys: Vec<Expr>,
}

impl Meta {
    fn set(&mut self, key: &str, value: &Expr) {
        match key {
            "db_table" => self.db_table = string_value(value),
            "app_label" => self.app_label = string_value(value),
            "abstract" => self.abstract_ = super::is_true(value),
            "unique_together" => {
                // a migration's `set([("a", "b")])`
                let value = match value {
                    Expr::Call(c) if super::last_name(c).as_deref() == Some("set") => {
                        super::arg(c, 0).unwrap_or(value)
                    }
                    v => v,
                };
                let at = span_of(value);
                let groups = elements(value);
                if groups.iter().all(|g| string_value(g).is_some()) {
                    // `unique_together = ("a", "b")`: one group.
                    self.unique_together.push((strings(value), at));
                } else {
                    for g in groups {
                        self.unique_together.push((strings(g), span_of(g)));
                    }
                }
            }
            "constraints" | "indexes" => self.keys.extend(elements(value).iter().cloned()),
            _ => {}
        }
    }

    fn keys(&self, table: &str, fields: &[(String, String)]) -> Vec<Key> {
        let column = |f: &String| {
            fields
                .iter()
                .find(|(attr, _)| attr == f)
                .map_or_else(|| f.to_ascii_lowercase(), |(_, c)| c.clone())
        };
        let mut out: Vec<Key> = self
            .unique_together
            .iter()
            .filter(|(g, _)| !g.is_empty())
            .map(|(g, at)| {
                key(
                    table,
                    KeyKind::Unique,
                    g.iter().map(column).collect(),
                    None,
                    *at,
                )
            })
            .collect();
        for e in &self.keys {
            if let Some(mut k) = table_key(table, e) {
                for p in &mut k.parts {
                    if let crate::facts::store::KeyPart::Column(c) = p {
                        *c = column(c);
                    }
                }
                out.push(k);
            }
        }
        out
    }
}

impl Meta {
    /// The table a model of this name makes: `db_table`, else Django's
    /// `<app_label>_<model name lower-cased>`. Where `Meta` names no app
    /// label, the lower-cased name is kept and listed for the model to
    /// prefix with the app's directory ([`Reader::app_tables`]); it is also
    /// how migrations of other files name the model
    /// (`model_name="processedevent"`).
    fn table(&self, model: &str, app_tables: &mut Vec<String>) -> String {
        if let Some(t) = &self.db_table {
            return t.clone();
        }
        let model = model.to_ascii_lowercase();
        match &self.app_label {
            Some(app) => format!("{}_{model}", app.to_ascii_lowercase()),
            None => {
                app_tables.push(model.clone());
                model
            }
        }
    }
}

/// A class's `Meta`, and whether it extends a base's (`class
/// Meta(Base.Meta)`).
fn meta_of(c: &StmtClassDef) -> (Meta, Option<bool>) {
    let mut meta = Meta::default();
    let mut own = None;
    for s in &c.body {
        let Stmt::ClassDef(m) = s else { continue };
        if m.name.id.as_str() != "Meta" {
            continue;
        }
        own = Some(m.arguments.as_ref().is_some_and(|a| !a.args.is_empty()));
        for s in &m.body {
            if let Stmt::Assign(a) = s {
                if let Some(Expr::Name(n)) = a.targets.first() {
                    meta.set(n.id.as_str(), &a.value);
                }
            }
        }
    }
    (meta, own)
}

/// The last names of a class's bases.
pub(super) fn base_names(c: &StmtClassDef) -> Vec<String> {
    c.arguments
        .iter()
        .flat_map(|a| a.args.iter())
        .filter_map(super::path_of)
        .filter_map(|p| p.last().cloned())
        .collect()
}

/// A model's fields: columns, the keys over one column, (field, column)
/// pairs, and whether one is the primary key.
struct Fields {
    columns: Vec<Column>,
    keys: Vec<Key>,
    fields: Vec<(String, String)>,
    has_pk: bool,
}

fn fields_of(c: &StmtClassDef, table: &str) -> Fields {
    let mut out = Fields {
        columns: Vec::new(),
        keys: Vec::new(),
        fields: Vec::new(),
        has_pk: false,
    };
    for s in &c.body {
        let Stmt::Assign(a) = s else { continue };
        let (Some(Expr::Name(attr)), Expr::Call(f)) = (a.targets.first(), &*a.value) else {
            continue;
        };
        if !is_django_field(f) {
            continue;
        }
        let col = django_column(attr.id.as_str(), f);
        let at = span_of(attr);
        out.has_pk |= kwarg(f, "primary_key").is_some_and(super::is_true);
        column_keys(table, &col, f, at, &mut out.keys);
        out.fields.push((attr.id.to_string(), col.clone()));
        out.columns.push(column(col, f, at));
    }
    out
}

impl Reader<'_> {
    /// A `models.Model` subclass.
    pub(super) fn django_model(&mut self, c: &StmtClassDef) {
        let (meta, own_meta) = meta_of(c);
        let class = c.name.id.to_string();
        let at = span_of(&c.name);
        let mut mc = ModelClass {
            class: class.clone(),
            bases: base_names(c),
            inherits_meta: own_meta.unwrap_or(true),
            span: at,
            ..ModelClass::default()
        };
        if meta.abstract_ {
            // named for the class: a subclass renames what it inherits
            let table = class.to_ascii_lowercase();
            let f = fields_of(c, &table);
            mc.abstract_ = true;
            mc.has_pk = f.has_pk;
            mc.meta_keys = meta.keys(&table, &f.fields);
            (mc.columns, mc.keys, mc.fields) = (f.columns, f.keys, f.fields);
            self.model_classes.push(mc);
            return;
        }
        let table = meta.table(&class, &mut self.app_tables);
        let Fields {
            columns,
            mut keys,
            fields,
            has_pk,
        } = fields_of(c, &table);
        mc.table = Some(name(&table, at));
        mc.has_pk = has_pk;
        mc.declared = !fields.is_empty();
        self.model_classes.push(mc);
        if fields.is_empty() {
            return;
        }
        if !has_pk {
            keys.push(key(
                &table,
                KeyKind::PrimaryKey,
                vec!["id".to_string()],
                None,
                at,
            ));
        }
        keys.extend(meta.keys(&table, &fields));
        // kept even where the class is its table's name (`Order`, then
        // `order`): the app label makes the table `shop_order`
        self.aliases.push(TableAlias {
            name: knowledge::snake(c.name.id.as_str()),
            table: table.clone(),
        });
        let declared = Declared::new(SchemaCode::Django, columns, keys).with_django_fields(&fields);
        self.create(at, name(&table, at), declared);
    }

    /// A class of no known kind with a base of the project's (`class
    /// Order(AbstractOrder): pass`): a model when a base is an abstract
    /// model, which only the project knows (`model::inherit`). Kept only
    /// in a models module (`label_apps`).
    pub(super) fn maybe_model(&mut self, c: &StmtClassDef) {
        let bases = base_names(c);
        if !bases
            .iter()
            .any(|b| b.starts_with(char::is_uppercase) && b != "Enum" && b != "Exception")
        {
            return;
        }
        let (meta, own_meta) = meta_of(c);
        if meta.abstract_ {
            return self.django_model(c);
        }
        let table = meta.table(c.name.id.as_str(), &mut self.app_tables);
        let at = span_of(&c.name);
        self.model_classes.push(ModelClass {
            class: c.name.id.to_string(),
            bases,
            table: Some(name(&table, at)),
            inherits_meta: own_meta.unwrap_or(true),
            span: at,
            ..ModelClass::default()
        });
    }

    /// The table of a migration's `model_name`: a model of another file
    /// of the same app (its app label is prefixed by the model) unless
    /// this migration creates it.
    fn model_table(&mut self, e: &Expr) -> Option<Name> {
        let m = string_value(e)?.to_ascii_lowercase();
        let t = match self.models.get(&m) {
            Some(t) => t.clone(),
            None => {
                self.app_tables.push(m.clone());
                m
            }
        };
        Some(name(&t, span_of(e)))
    }

    /// One operation of a migration's `operations`.
    pub(super) fn django_op(&mut self, c: &ExprCall) {
        let Some(op) = super::last_name(c) else {
            return;
        };
        let at = span_of(c);
        let model = || kwarg(c, "model_name").or(super::arg(c, 0));
        match op.as_str() {
            "CreateModel" => self.create_model(c, at),
            "AddField" | "AlterField" => {
                let (Some(t), Some(fname), Some(Expr::Call(f))) = (
                    model().and_then(|e| self.model_table(e)),
                    kwarg(c, "name").or(super::arg(c, 1)).and_then(string_value),
                    kwarg(c, "field").or(super::arg(c, 2)),
                ) else {
                    return;
                };
                let col = django_column(&fname, f);
                let mut ops = Vec::new();
                if op == "AddField" {
                    ops.push(AlterOp::AddColumn(column(col.clone(), f, at)));
                }
                let mut keys = Vec::new();
                column_keys(&t.key, &col, f, at, &mut keys);
                ops.extend(keys.into_iter().map(AlterOp::AddKey));
                if !ops.is_empty() {
                    self.alter(at, t, ops);
                }
            }
            "AddConstraint" | "AddIndex" => {
                let Some(t) = model().and_then(|e| self.model_table(e)) else {
                    return;
                };
                let k = kwarg(c, "constraint")
                    .or(kwarg(c, "index"))
                    .or(super::arg(c, 1))
                    .and_then(|e| table_key(&t.key, e));
                if let Some(k) = k {
                    self.push(
                        at,
                        SchemaChange::AlterTable {
                            table: t,
                            ops: vec![AlterOp::AddKey(k)],
                        },
                    );
                }
            }
            // `unique_together` set again: its groups are unique guards
            // (a group it leaves out is not dropped)
            "AlterUniqueTogether" => {
                let (Some(t), Some(groups)) = (
                    kwarg(c, "name")
                        .or(super::arg(c, 0))
                        .and_then(|e| self.model_table(e)),
                    kwarg(c, "unique_together").or(super::arg(c, 1)),
                ) else {
                    return;
                };
                let mut meta = Meta::default();
                meta.set("unique_together", groups);
                let ops: Vec<AlterOp> = meta
                    .keys(&t.key, &[])
                    .into_iter()
                    .map(|mut k| {
                        k.span = at;
                        AlterOp::AddKey(k)
                    })
                    .collect();
                if !ops.is_empty() {
                    self.alter(at, t, ops);
                }
            }
            "RemoveConstraint" => {
                let (Some(t), Some(n)) = (
                    model().and_then(|e| self.model_table(e)),
                    kwarg(c, "name").or(super::arg(c, 1)).and_then(string_value),
                ) else {
                    return;
                };
                let op = AlterOp::DropConstraint { name: n, span: at };
                self.alter(at, t, vec![op]);
            }
            "DeleteModel" => {
                if let Some(t) = kwarg(c, "name")
                    .or(super::arg(c, 0))
                    .and_then(|e| self.model_table(e))
                {
                    self.push(at, SchemaChange::DropTable { names: vec![t] });
                }
            }
            "RunSQL" => {
                if let Some(e) = kwarg(c, "sql").or(super::arg(c, 0)) {
                    self.sql(e);
                }
            }
            _ => {}
        }
    }

    /// `migrations.CreateModel(name=.., fields=[(name, field), ..], options={..})`.
    fn create_model(&mut self, c: &ExprCall, at: Span) {
        let Some(model) = kwarg(c, "name").or(super::arg(c, 0)).and_then(string_value) else {
            return;
        };
        let mut meta = Meta::default();
        if let Some(Expr::Dict(d)) = kwarg(c, "options").or(super::arg(c, 2)) {
            for item in &d.items {
                if let Some(k) = item.key.as_ref().and_then(string_value) {
                    meta.set(&k, &item.value);
                }
            }
        }
        if meta.abstract_ {
            return;
        }
        let table = meta.table(&model, &mut self.app_tables);
        self.models
            .insert(model.to_ascii_lowercase(), table.clone());
        let (mut columns, mut keys, mut fields): (Vec<Column>, Vec<Key>, Vec<(String, String)>) =
            (Vec::new(), Vec::new(), Vec::new());
        for f in kwarg(c, "fields")
            .or(super::arg(c, 1))
            .map(elements)
            .unwrap_or_default()
        {
            let (Some(fname), Some(Expr::Call(call))) = (
                elements(f).first().and_then(string_value),
                elements(f).get(1),
            ) else {
                continue;
            };
            let col = django_column(&fname, call);
            let fat = span_of(f);
            column_keys(&table, &col, call, fat, &mut keys);
            fields.push((fname, col.clone()));
            columns.push(column(col, call, fat));
        }
        keys.extend(meta.keys(&table, &fields));
        let name_at = kwarg(c, "name").or(super::arg(c, 0)).map_or(at, span_of);
        let declared = Declared::new(SchemaCode::Django, columns, keys).with_django_fields(&fields);
        self.create(at, name(&table, name_at), declared);
    }
}
