//! Lookups of a key in a table that is no store: code that reads a row by
//! an idempotency key, an event's id or a provider object's id (a Prisma
//! `findFirst`/`findUnique` whose `where` names it) and creates one when
//! none is found relies on a unique guard over what it looked up. With
//! none, two concurrent requests both find nothing and both create: the
//! check-then-insert race on a table that carries the key.

use super::schema::{keyish, Origin, SchemaModel};
use crate::facts::store::KeyKind;

/// A lookup no unique guard covers.
#[derive(Debug, Clone)]
pub struct Unguarded {
    /// The looked-up columns that make it a key's lookup, as the code
    /// names them (Prisma fields).
    pub key: Vec<String>,
    /// Every looked-up column, as the code names it: the guard to give.
    pub fields: Vec<String>,
    /// The table is a Prisma model's: the guard is written there.
    pub prisma: bool,
    /// A unique guard over the key the migrations create that the Prisma
    /// model no longer declares: the next `prisma migrate dev` drops it
    /// (the model's plain index, else its name).
    pub dropped: Option<Origin>,
}

impl SchemaModel {
    /// The lookup of `table` by `fields` (a Prisma `where`'s fields) when
    /// it reads a key no unique guard covers: none over only looked-up
    /// columns, none over the key. A table no schema declares, a field
    /// the table lacks or a lookup by no key is not judged.
    pub fn unguarded_lookup(&self, table: &str, fields: &[String]) -> Option<Unguarded> {
        if fields
            .iter()
            .any(|f| matches!(f.as_str(), "OR" | "AND" | "NOT"))
        {
            return None;
        }
        let t = self.find_table(table)?;
        if t.partition_of.is_some() {
            return None;
        }
        let columns: Vec<(&str, &str)> = fields
            .iter()
            .filter_map(|f| {
                let c = t
                    .prisma
                    .iter()
                    .flatten()
                    .find(|(_, field)| field == f)
                    .map_or(f.as_str(), |(c, _)| c.as_str());
                t.column(c).map(|c| (c.name.as_str(), f.as_str()))
            })
            .collect();
        let key: Vec<&str> = columns
            .iter()
            .filter(|(c, _)| keyish(c))
            .map(|(c, _)| *c)
            .collect();
        if key.is_empty() {
            return None;
        }
        let looked: Vec<&str> = columns.iter().map(|(c, _)| *c).collect();
        let covers = |cols: &[&str]| {
            !cols.is_empty()
                && (cols.iter().all(|c| looked.contains(c)) || key.iter().all(|k| cols.contains(k)))
        };
        let guarded = t
            .guards
            .iter()
            .chain(&t.unmigrated)
            .filter(|g| g.key.kind != KeyKind::Index)
            .any(|g| covers(&guard_columns(g)));
        if guarded {
            return None;
        }
        let dropped = t
            .removed
            .iter()
            .filter(|r| r.by_schema)
            .find(|r| covers(&guard_columns(&r.guard)))
            .map(|r| r.at);
        Some(Unguarded {
            key: columns
                .iter()
                .filter(|(c, _)| key.contains(c))
                .map(|(_, f)| (*f).to_string())
                .collect(),
            fields: columns.iter().map(|(_, f)| (*f).to_string()).collect(),
            prisma: t.prisma.is_some(),
            dropped,
        })
    }
}

fn guard_columns(g: &super::schema::Guard) -> Vec<&str> {
    g.key.parts.iter().flat_map(|p| p.columns()).collect()
}

#[cfg(test)]
mod tests {
    use super::SchemaModel;
    use crate::config::Config;
    use crate::source::{FileKind, SourceFile, SourceMap};

    fn model(schema: &str) -> SchemaModel {
        let mut sources = SourceMap::default();
        sources.files.push(SourceFile::new(
            "prisma/schema.prisma",
            FileKind::Prisma,
            schema,
        ));
        let facts = vec![crate::frontend::parse(0, FileKind::Prisma, schema)];
        SchemaModel::build(&facts, &sources, &Config::default())
    }

    const COMMISSION: &str = "model Commission {\n  id String @id\n  programId String\n  invoiceId String? @map(\"invoice_id\")\n  status String\n  GUARD\n}\n";

    fn fields(f: &[&str]) -> Vec<String> {
        f.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_lookup_of_a_key_is_unguarded_until_a_unique_guard_covers_it() {
        let lookup = fields(&["invoiceId", "programId"]);
        let plain = model(&COMMISSION.replace("GUARD", "@@index([invoiceId, programId])"));
        let u = plain
            .unguarded_lookup("commission", &lookup)
            .expect("unguarded");
        assert_eq!(
            (u.key, u.fields, u.prisma),
            (fields(&["invoiceId"]), lookup.clone(), true)
        );
        // a guard over the looked-up columns, or one holding the key
        for guard in [
            "@@unique([invoiceId, programId])",
            "@@unique([programId, invoiceId, status])",
            "@@unique([programId])",
        ] {
            let m = model(&COMMISSION.replace("GUARD", guard));
            assert!(
                m.unguarded_lookup("commission", &lookup).is_none(),
                "{guard}"
            );
        }
        // no key looked up: a row read by its id or its status
        assert!(plain
            .unguarded_lookup("commission", &fields(&["id"]))
            .is_none());
        assert!(plain
            .unguarded_lookup("commission", &fields(&["programId", "status"]))
            .is_none());
        // an `OR` of filters, or a table no schema declares
        assert!(plain
            .unguarded_lookup("commission", &fields(&["OR"]))
            .is_none());
        assert!(plain.unguarded_lookup("payout", &lookup).is_none());
    }
}
