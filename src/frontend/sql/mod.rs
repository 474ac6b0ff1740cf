//! The SQL front end: split a file into statements (`split`), parse each on
//! its own with sqlparser (PostgreSQL first, then MySQL and SQLite for their
//! forms), and turn what it reads into an ordered list of schema events
//! (`extract`) and retention facts (`retention`). Replaying the events of a
//! migration history is the model's job (`model::schema`), not this one's.

pub mod dml;
pub mod extract;
pub mod interval;
pub mod retention;
pub use crate::lex::sql as split;

use crate::facts::store::SqlFacts;
use crate::lex::sql::down_section;

/// Parse one SQL file into `facts`.
pub fn parse(text: &str, facts: &mut crate::facts::FileFacts) {
    let mut sql = SqlFacts::default();
    let up = &text[..down_section(text).unwrap_or(text.len())];
    for stmt in split::split(up) {
        extract::statement(text, &stmt, &mut sql, &mut facts.problems);
        retention::statement(text, &stmt, &mut sql, &mut facts.retention);
    }
    retention::column_defaults(text, &sql, &mut facts.retention);
    facts.early_purges.append(&mut sql.early_purges);
    facts.sql = Some(sql);
}

#[cfg(test)]
mod tests {
    use crate::facts::FileFacts;

    /// The down half of a goose, sql-migrate or dbmate file is not
    /// applied: the guard the up half makes stays.
    #[test]
    fn the_down_half_of_a_migration_file_is_not_read() {
        for marker in ["-- +goose Down", "-- +migrate Down", "-- migrate:down"] {
            let sql = format!(
                "-- +goose Up\nCREATE TABLE idem_keys (k text);\nCREATE UNIQUE INDEX idem_keys_k ON idem_keys (k);\n{marker}\nDROP INDEX idem_keys_k;\nDROP TABLE idem_keys;\n"
            );
            let mut f = FileFacts::default();
            super::parse(&sql, &mut f);
            let events = f.sql.map(|s| s.events.len()).unwrap_or(0);
            assert_eq!(events, 2, "{marker}");
        }
    }

    /// Every prefix of a file full of edge cases (cut inside quotes,
    /// bodies, comments, multi-byte characters) parses without a panic.
    #[test]
    fn every_prefix_of_a_tricky_file_parses_without_panicking() {
        let sql = "-- é ünïcode\u{a0}\nCREATE TABLE \"Idem\u{a0}Keys\" (k text PRIMARY KEY, e timestamptz DEFAULT now() + interval '1 day');\n\
                   DROP INDEX CONCURRENTLY IF EXISTS \u{a0}idx_é;\n\
                   SELECT cron.schedule('j', '* * * * *', $$DELETE FROM idem_keys WHERE t < now() - make_interval(days => 3)$$);\n\
                   CREATE FUNCTION f() RETURNS void AS $x$ BEGIN DELETE FROM idempotency_keys WHERE created_at < now() - '2 days'::interval; END $x$ LANGUAGE plpgsql;\n\
                   /* nested /* é */ */ ALTER TABLE idem_keys DROP CONSTRAINT idem_keys_pkey, ADD UNIQUE (k);\n\
                   UPDATE partman.part_config SET retention = '30 days' WHERE parent_table = 'public.idem_keys';";
        for (i, _) in sql.char_indices() {
            let mut f = FileFacts::default();
            super::parse(&sql[..i], &mut f);
        }
        let mut f = FileFacts::default();
        super::parse(sql, &mut f);
        assert_eq!(f.retention.len(), 3, "{:?}", f.retention);
    }

    #[test]
    fn deeply_nested_parentheses_are_a_problem_not_a_crash() {
        let sql = format!(
            "CREATE TABLE idempotency_keys (k text CHECK ({}true{}));",
            "(".repeat(10_000),
            ")".repeat(10_000)
        );
        let mut f = FileFacts::default();
        super::parse(&sql, &mut f);
        assert_eq!(f.problems.len(), 1);
        assert!(f.problems[0].reported);
    }
}
