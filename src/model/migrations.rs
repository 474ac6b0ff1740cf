//! Migration histories: which SQL files a migration tool applies, and in
//! what order. Each migrations directory is its own history; a repository
//! can hold several. Down and undo migrations are never applied. Layouts:
//!
//! - sqlx: `<version>_<name>.sql`, `<version>_<name>.up.sql` (`.down.sql` skipped)
//! - golang-migrate: `<n>_<name>.up.sql` (`.down.sql` skipped)
//! - drizzle: `NNNN_<name>.sql`
//! - diesel: `migrations/<version>_<name>/up.sql` (`down.sql` skipped)
//! - Prisma: `migrations/<timestamp>_<name>/migration.sql`
//! - refinery and Flyway: `V<n>__<name>.sql` in version order, then
//!   repeatable `R__<name>.sql` in name order; undo `U<n>__` skipped
//! - any other `.sql` file (`schema.sql`, `structure.sql`, `init.sql`, a
//!   cron job file) is a history of its own.
//!
//! Versions compare as numbers, part by part (`V10` after `V9`, `V1.10`
//! after `V1.9`), however many digits they have.

use crate::source::FileId;
use std::cmp::Ordering;

/// One history: the files a tool applies, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct History {
    /// The directory (or, for a lone file, the file) that holds it.
    pub dir: String,
    pub files: Vec<FileId>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Placed {
    /// History key: the directory, or the path of a lone file.
    dir: String,
    /// 0: versioned; 1: repeatable (after every versioned one).
    group: u8,
    version: Vec<String>,
    name: String,
}

/// Digit runs of a version (`2024-01-01-120000` → 2024, 01, 01, 120000;
/// `1.10` → 1, 10).
fn version_parts(v: &str) -> Vec<String> {
    v.split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .map(|p| p.trim_start_matches('0').to_string())
        .collect()
}

fn cmp_version(a: &[String], b: &[String]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = x.len().cmp(&y.len()).then_with(|| x.cmp(y));
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// Leading version of a migration name: digits, with `.`/`-`/`_` between
/// digit runs (`2024-01-01-120000_add_keys` → `2024-01-01-120000`), ending
/// at the `_` or `-` before the name.
fn leading_version(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    if !b.first()?.is_ascii_digit() {
        return None;
    }
    let mut end = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            i += 1;
            end = i;
        } else if matches!(b[i], b'-' | b'.' | b'_') && b.get(i + 1).is_some_and(u8::is_ascii_digit)
        {
            i += 1;
        } else {
            break;
        }
    }
    Some(&s[..end])
}

/// Where a file sits in its history, or `None` when it is never applied.
fn place(path: &str) -> Option<Placed> {
    let path = path.replace('\\', "/");
    let (parent, file) = match path.rsplit_once('/') {
        Some((p, f)) => (p.to_string(), f.to_string()),
        None => (String::new(), path.clone()),
    };
    let lower = file.to_ascii_lowercase();
    if lower == "down.sql" || lower.ends_with(".down.sql") || lower.ends_with("_down.sql") {
        return None;
    }
    // diesel (`<version>_<name>/up.sql`) and Prisma (`<ts>_<name>/migration.sql`)
    if lower == "up.sql" || lower == "migration.sql" {
        let (grand, dir) = match parent.rsplit_once('/') {
            Some((g, d)) => (g.to_string(), d.to_string()),
            None => (String::new(), parent.clone()),
        };
        if let Some(v) = leading_version(&dir) {
            return Some(Placed {
                dir: grand,
                group: 0,
                version: version_parts(v),
                name: dir.clone(),
            });
        }
    }
    // refinery / Flyway
    if let Some((prefix, name)) = file.split_once("__") {
        let mut cs = prefix.chars();
        match cs.next() {
            Some('V' | 'v') if cs.clone().next().is_some_and(|c| c.is_ascii_digit()) => {
                return Some(Placed {
                    dir: parent,
                    group: 0,
                    version: version_parts(cs.as_str()),
                    name: name.to_string(),
                });
            }
            Some('U' | 'u') if cs.clone().next().is_some_and(|c| c.is_ascii_digit()) => {
                return None
            }
            Some('R' | 'r') if cs.as_str().is_empty() => {
                return Some(Placed {
                    dir: parent,
                    group: 1,
                    version: Vec::new(),
                    name: name.to_string(),
                });
            }
            _ => {}
        }
    }
    // sqlx, golang-migrate, drizzle: `<version>_<name>[.up].sql`
    if let Some(v) = leading_version(&file) {
        let rest = &file[v.len()..];
        if rest.starts_with(['_', '-']) {
            return Some(Placed {
                dir: parent,
                group: 0,
                version: version_parts(v),
                name: file.clone(),
            });
        }
    }
    // a lone schema file, cron file, or anything else: its own history
    Some(Placed {
        dir: path.clone(),
        group: 0,
        version: Vec::new(),
        name: file,
    })
}

/// Group SQL files into histories and order each. `files` holds each SQL
/// file's id and path; histories come out in directory order.
pub fn histories(files: &[(FileId, &str)]) -> Vec<History> {
    let mut placed: Vec<(Placed, FileId)> = files
        .iter()
        .filter_map(|(id, path)| place(path).map(|p| (p, *id)))
        .collect();
    placed.sort_by(|(a, ia), (b, ib)| {
        a.dir
            .cmp(&b.dir)
            .then(a.group.cmp(&b.group))
            .then_with(|| cmp_version(&a.version, &b.version))
            .then_with(|| a.name.cmp(&b.name))
            .then(ia.cmp(ib))
    });
    let mut out: Vec<History> = Vec::new();
    for (p, id) in placed {
        match out.last_mut() {
            Some(h) if h.dir == p.dir => h.files.push(id),
            _ => out.push(History {
                dir: p.dir,
                files: vec![id],
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(paths: &[&str]) -> Vec<Vec<&'static str>> {
        let leaked: Vec<&'static str> = paths
            .iter()
            .map(|p| &*Box::leak(p.to_string().into_boxed_str()))
            .collect();
        let files: Vec<(FileId, &str)> = leaked.iter().copied().enumerate().collect();
        histories(&files)
            .into_iter()
            .map(|h| h.files.into_iter().map(|i| leaked[i]).collect())
            .collect()
    }

    #[test]
    fn flyway_versions_order_numerically_and_repeatables_come_last() {
        assert_eq!(
            order(&[
                "db/migration/R__views.sql",
                "db/migration/V10__drop_index.sql",
                "db/migration/V9__add_index.sql",
                "db/migration/V1_1__keys.sql",
                "db/migration/V1__init.sql",
                "db/migration/U10__undo_drop.sql",
            ]),
            vec![vec![
                "db/migration/V1__init.sql",
                "db/migration/V1_1__keys.sql",
                "db/migration/V9__add_index.sql",
                "db/migration/V10__drop_index.sql",
                "db/migration/R__views.sql",
            ]]
        );
    }

    #[test]
    fn down_migrations_are_never_applied() {
        assert_eq!(
            order(&[
                "migrations/20240102000000_keys.down.sql",
                "migrations/20240102000000_keys.up.sql",
                "migrations/20240101000000_init.sql",
                "db/2024-01-01-000000_init/down.sql",
                "db/2024-01-01-000000_init/up.sql",
            ]),
            vec![
                vec!["db/2024-01-01-000000_init/up.sql"],
                vec![
                    "migrations/20240101000000_init.sql",
                    "migrations/20240102000000_keys.up.sql"
                ],
            ]
        );
    }

    #[test]
    fn golang_migrate_and_drizzle_numbers_order_numerically() {
        assert_eq!(
            order(&[
                "m/10_b.up.sql",
                "m/9_a.up.sql",
                "m/0002_c.sql",
                "m/0001_d.sql"
            ]),
            vec![vec![
                "m/0001_d.sql",
                "m/0002_c.sql",
                "m/9_a.up.sql",
                "m/10_b.up.sql"
            ]]
        );
    }

    #[test]
    fn prisma_folders_and_lone_schema_files_are_separate_histories() {
        assert_eq!(
            order(&[
                "prisma/migrations/20240301000000_b/migration.sql",
                "prisma/migrations/20240201000000_a/migration.sql",
                "db/schema.sql",
                "db/structure.sql",
            ]),
            vec![
                vec!["db/schema.sql"],
                vec!["db/structure.sql"],
                vec![
                    "prisma/migrations/20240201000000_a/migration.sql",
                    "prisma/migrations/20240301000000_b/migration.sql"
                ],
            ]
        );
    }
}
