//! Django's app label: a model without `db_table` is the table
//! `<app_label>_<model>` (`djstripe_idempotencykey`), and the label is by
//! default the last part of the app's package, the directory that holds
//! its `models.py` (or `models/` package) and its `migrations/`. The
//! schema reader lists the tables it named by the model alone
//! ([`SqlFacts::app_tables`]); the pipeline, which knows the file's path,
//! prefixes them here. Not read: an `AppConfig.label` that differs from
//! the package's name.

use crate::facts::store::{AlterOp, Key, Name, SchemaChange, SqlFacts};
use crate::facts::FileFacts;

/// The app label of a file at `path` (relative, `/`-separated): the
/// directory above `models/` or `migrations/`, else the file's own.
pub fn app_label(path: &str) -> Option<String> {
    let mut dirs: Vec<&str> = path.split(['/', '\\']).collect();
    dirs.pop()?;
    if dirs
        .last()
        .is_some_and(|d| *d == "models" || *d == "migrations")
    {
        dirs.pop();
    }
    let app = dirs.pop()?;
    let ok = !app.is_empty() && app.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then(|| app.to_ascii_lowercase())
}

/// Whether a file is an app's `models` module: `models.py`, or a file of
/// a `models/` package.
fn models_module(path: &str) -> bool {
    let mut parts = path.rsplit(['/', '\\']);
    let file = parts.next().unwrap_or_default();
    file == "models.py" || parts.next() == Some("models")
}

/// Prefix the app label of the file at `path` to the tables its Django
/// models and migrations named by the model alone.
pub fn label_apps(path: &str, facts: &mut FileFacts) {
    let Some(sql) = facts.sql.as_mut() else {
        return;
    };
    // Django finds models in an app's `models` module alone: elsewhere a
    // class that only names a base is no model
    if !models_module(path) {
        sql.model_classes.retain(|m| m.abstract_ || m.declared);
    }
    if sql.events.is_empty() && sql.model_classes.is_empty() {
        facts.sql = None;
        return;
    }
    if sql.app_tables.is_empty() {
        return;
    }
    let Some(app) = app_label(path) else {
        return;
    };
    relabel(sql, &app);
}

fn relabel(sql: &mut SqlFacts, app: &str) {
    let tables = std::mem::take(&mut sql.app_tables);
    let label = |n: &mut Name| {
        if tables.contains(&n.key) {
            n.key = format!("{app}_{}", n.key);
            n.text.clone_from(&n.key);
        }
    };
    // a key named as PostgreSQL names it after the table's old name
    let key = |k: &mut Key| {
        if let Some(t) = tables.iter().find(|t| {
            k.name
                .strip_prefix(t.as_str())
                .is_some_and(|r| r.starts_with('_'))
        }) {
            k.name = format!("{app}_{}{}", t, &k.name[t.len()..]);
        }
    };
    for ev in &mut sql.events {
        match &mut ev.kind {
            SchemaChange::CreateTable(t) => {
                label(&mut t.name);
                t.keys.iter_mut().for_each(key);
            }
            SchemaChange::CreateIndex(i) => {
                label(&mut i.table);
                key(&mut i.key);
            }
            SchemaChange::AlterTable { table, ops } => {
                label(table);
                for op in ops {
                    match op {
                        AlterOp::RenameTable(to) => label(to),
                        AlterOp::AddKey(k) => key(k),
                        _ => {}
                    }
                }
            }
            SchemaChange::DropTable { names } => names.iter_mut().for_each(label),
            _ => {}
        }
    }
    for m in &mut sql.model_classes {
        if let Some(t) = m.table.as_mut() {
            label(t);
        }
    }
    for a in &mut sql.aliases {
        if tables.contains(&a.table) {
            a.table = format!("{app}_{}", a.table);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::app_label;

    #[test]
    fn the_app_is_the_directory_above_models_or_migrations() {
        assert_eq!(
            app_label("djstripe/models/base.py").as_deref(),
            Some("djstripe")
        );
        assert_eq!(
            app_label("saleor/payment/migrations/0054_x.py").as_deref(),
            Some("payment")
        );
        assert_eq!(
            app_label("shop/orders/models.py").as_deref(),
            Some("orders")
        );
        assert_eq!(app_label("models.py"), None);
    }

    #[test]
    fn models_modules_are_models_py_and_the_models_package() {
        assert!(super::models_module("shop/orders/models.py"));
        assert!(super::models_module("djstripe/models/core.py"));
        assert!(!super::models_module("shop/orders/abstract_models.py"));
        assert!(!super::models_module("shop/orders/views.py"));
    }
}
