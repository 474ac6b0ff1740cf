//! A Prisma schema joined with the migrations Prisma Migrate generated from
//! it, and its client's accessors resolved to tables: the model, from facts
//! the front ends give (the TypeScript front end's steps built by hand).

#[cfg(test)]
mod tests {
    use super::super::schema::{Guarding, SchemaModel};
    use crate::config::Config;
    use crate::facts::flow::{FnTrace, Step, StepKind};
    use crate::facts::store::{ConflictTarget, Dml, DmlKind};
    use crate::facts::{CodeFacts, FileFacts};
    use crate::source::{FileKind, SourceFile, SourceMap, Span};

    const SCHEMA_NO_UNIQUE: &str = "model ProcessedEvent {\n  id String @id @default(cuid())\n  eventId String\n  receivedAt DateTime @default(now())\n}\n";
    const SCHEMA_UNIQUE: &str = "model ProcessedEvent {\n  id String @id @default(cuid())\n  eventId String @unique\n  receivedAt DateTime @default(now())\n}\n";
    const MIGRATION_NO_UNIQUE: &str = "-- CreateTable\nCREATE TABLE \"ProcessedEvent\" (\n    \"id\" TEXT NOT NULL,\n    \"eventId\" TEXT NOT NULL,\n    \"receivedAt\" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,\n\n    CONSTRAINT \"ProcessedEvent_pkey\" PRIMARY KEY (\"id\")\n);\n";

    fn unique_index() -> String {
        format!("{MIGRATION_NO_UNIQUE}\n-- CreateIndex\nCREATE UNIQUE INDEX \"ProcessedEvent_eventId_key\" ON \"ProcessedEvent\"(\"eventId\");\n")
    }

    const MIGRATION: &str = "prisma/migrations/20240105120000_init/migration.sql";

    fn build(files: &[(&str, &str)], code: Vec<FileFacts>) -> (SchemaModel, SourceMap) {
        let mut sources = SourceMap::default();
        let mut facts = Vec::new();
        for (i, (path, text)) in files.iter().enumerate() {
            let kind = crate::walk::classify(std::path::Path::new(path)).unwrap_or(FileKind::Text);
            sources.files.push(SourceFile::new(*path, kind, *text));
            facts.push(crate::frontend::parse(i, kind, text));
        }
        for mut f in code {
            f.file = sources.files.len();
            sources
                .files
                .push(SourceFile::new("src/inbox.ts", FileKind::Text, ""));
            facts.push(f);
        }
        let mut m = SchemaModel::build(&facts, &sources, &Config::default());
        m.mark_treated_as_stores(&facts);
        (m, sources)
    }

    /// The one `ProcessedEvent` table, its path, and whether its key is guarded.
    fn judged(m: &SchemaModel, sources: &SourceMap) -> (String, bool) {
        let stores: Vec<_> = m.stores().collect();
        assert_eq!(stores.len(), 1, "{:?}", m.tables);
        let (t, s) = &stores[0];
        assert_eq!(t.key, "ProcessedEvent");
        assert_eq!(s.key, ["eventId"]);
        let guarded = !matches!(s.guarding(t), Guarding::Missing);
        (sources.path(t.created.file).to_string(), guarded)
    }

    #[test]
    fn a_schema_alone_is_judged_as_its_tables() {
        let (m, src) = build(&[("prisma/schema.prisma", SCHEMA_NO_UNIQUE)], vec![]);
        assert_eq!(judged(&m, &src), ("prisma/schema.prisma".into(), false));
        let (m, src) = build(&[("prisma/schema.prisma", SCHEMA_UNIQUE)], vec![]);
        assert_eq!(judged(&m, &src), ("prisma/schema.prisma".into(), true));
    }

    #[test]
    fn migrations_alone_are_judged_as_before() {
        let (m, src) = build(&[(MIGRATION, MIGRATION_NO_UNIQUE)], vec![]);
        assert_eq!(judged(&m, &src), (MIGRATION.into(), false));
    }

    #[test]
    fn a_schema_and_its_migrations_are_one_table_shown_in_the_schema() {
        let both = unique_index();
        let (m, src) = build(
            &[("prisma/schema.prisma", SCHEMA_UNIQUE), (MIGRATION, &both)],
            vec![],
        );
        assert_eq!(judged(&m, &src), ("prisma/schema.prisma".into(), true));
        let g = m.tables[0]
            .guards
            .iter()
            .find(|g| g.key.name == "ProcessedEvent_eventId_key")
            .unwrap();
        assert_eq!(src.path(g.at.file), "prisma/schema.prisma");
        assert_eq!(&SCHEMA_UNIQUE[g.at.span.start..g.at.span.end], "@unique");
        // neither declares the guard: one table, shown where it is fixed
        let (m, src) = build(
            &[
                ("prisma/schema.prisma", SCHEMA_NO_UNIQUE),
                (MIGRATION, MIGRATION_NO_UNIQUE),
            ],
            vec![],
        );
        assert_eq!(judged(&m, &src), ("prisma/schema.prisma".into(), false));
    }

    /// The migrations say what the database holds: a unique index written by
    /// hand into a migration guards the key though the model does not say so.
    /// A column named apart from its field (`@map`) is named by its field
    /// where the model is, joined or not.
    #[test]
    fn a_mapped_column_keeps_its_field_name() {
        let schema = "model ProcessedEvent {\n  id String @id\n  eventId String @map(\"event_id\")\n  @@map(\"processed_events\")\n}\n";
        let sql = "CREATE TABLE \"processed_events\" (\"id\" TEXT NOT NULL, \"event_id\" TEXT NOT NULL, CONSTRAINT \"processed_events_pkey\" PRIMARY KEY (\"id\"));\n";
        for files in [
            vec![("prisma/schema.prisma", schema)],
            vec![("prisma/schema.prisma", schema), (MIGRATION, sql)],
        ] {
            let (m, _) = build(&files, vec![]);
            assert_eq!(m.tables.len(), 1);
            assert_eq!(m.tables[0].field_name("event_id"), "eventId");
        }
        let (m, _) = build(&[(MIGRATION, sql)], vec![]);
        assert_eq!(m.tables[0].field_name("event_id"), "event_id");
    }

    /// The schema is what the next `prisma migrate dev` makes true: a
    /// plain unique index only the migrations hold is dropped by it, so it
    /// guards nothing, and it is remembered as removed at the model.
    #[test]
    fn a_guard_the_model_no_longer_declares_is_dropped_by_the_next_migration() {
        let both = unique_index();
        let (m, src) = build(
            &[
                ("prisma/schema.prisma", SCHEMA_NO_UNIQUE),
                (MIGRATION, &both),
            ],
            vec![],
        );
        assert_eq!(judged(&m, &src), ("prisma/schema.prisma".into(), false));
        let r = &m.tables[0].removed[0];
        assert!(r.by_schema);
        assert_eq!(src.path(r.at.file), "prisma/schema.prisma");
        assert_eq!(src.path(r.guard.at.file), MIGRATION);
    }

    /// A table that carries a provider event's id is where the code keeps
    /// it when the code creates its rows and takes a unique violation for a
    /// replay (a `create` whose `catch` tests `P2002`).
    #[test]
    fn a_create_that_catches_a_unique_violation_makes_the_carrier_a_store() {
        let schema = "model Reward {\n  id String @id @default(cuid())\n  eventId String?\n  amount Int\n}\n";
        let code = "export async function credit(eventId: string) {\n  try {\n    await prisma.reward.create({ data: { eventId, amount: 1 } });\n  } catch (e: any) {\n    if (e.code === \"P2002\") return;\n    throw e;\n  }\n}\n";
        let (m, _) = build(
            &[("prisma/schema.prisma", schema), ("src/credit.ts", code)],
            vec![],
        );
        let stores: Vec<_> = m.stores().collect();
        assert_eq!(stores.len(), 1, "{:?}", m.tables);
        assert_eq!(stores[0].1.key, ["eventId"]);
        assert!(matches!(
            stores[0].1.guarding(stores[0].0),
            Guarding::Missing
        ));
    }

    /// A guard Prisma cannot express (a partial unique index written by
    /// hand into a migration) stays the table's.
    #[test]
    fn a_partial_guard_only_the_migrations_hold_counts() {
        let partial = format!("{MIGRATION_NO_UNIQUE}\nCREATE UNIQUE INDEX \"ProcessedEvent_eventId_key\" ON \"ProcessedEvent\"(\"eventId\") WHERE \"eventId\" IS NOT NULL;\n");
        let (m, src) = build(
            &[
                ("prisma/schema.prisma", SCHEMA_NO_UNIQUE),
                (MIGRATION, &partial),
            ],
            vec![],
        );
        assert_eq!(judged(&m, &src), ("prisma/schema.prisma".into(), true));
    }

    /// A guard only the model declares is not in a database the migrations
    /// built (a hand-edited migration, or one not generated yet): it does
    /// not count, and the rule says where it is declared.
    #[test]
    fn a_guard_only_the_model_declares_does_not_count() {
        let (m, src) = build(
            &[
                ("prisma/schema.prisma", SCHEMA_UNIQUE),
                (MIGRATION, MIGRATION_NO_UNIQUE),
            ],
            vec![],
        );
        assert_eq!(judged(&m, &src), ("prisma/schema.prisma".into(), false));
        assert_eq!(m.tables[0].unmigrated.len(), 1);
    }

    /// The copy of the schema a generated client keeps adds no table.
    #[test]
    fn a_generated_clients_copy_of_the_schema_adds_no_table() {
        let (m, src) = build(
            &[
                ("src/generated/prisma/schema.prisma", SCHEMA_NO_UNIQUE),
                ("prisma/schema.prisma", SCHEMA_NO_UNIQUE),
                (MIGRATION, MIGRATION_NO_UNIQUE),
            ],
            vec![],
        );
        assert_eq!(judged(&m, &src), ("prisma/schema.prisma".into(), false));
    }

    /// A table partitioned in a hand-edited migration is judged as
    /// partitioned, its guard shown in the model.
    #[test]
    fn a_partition_only_the_migrations_make_is_kept() {
        let schema = "model ProcessedEvent {\n  eventId String\n  receivedAt DateTime @default(now())\n  @@unique([eventId, receivedAt])\n}\n";
        let sql = "CREATE TABLE \"ProcessedEvent\" (\"eventId\" TEXT NOT NULL, \"receivedAt\" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP) PARTITION BY RANGE (\"receivedAt\");\nCREATE UNIQUE INDEX \"ProcessedEvent_eventId_receivedAt_key\" ON \"ProcessedEvent\"(\"eventId\", \"receivedAt\");\n";
        let (m, src) = build(
            &[("prisma/schema.prisma", schema), (MIGRATION, sql)],
            vec![],
        );
        let (t, s) = m.stores().next().unwrap();
        assert!(t.partition_by.is_some());
        let Guarding::SplitByPartition { guard, .. } = s.guarding(t) else {
            panic!("{:?}", s.guarding(t));
        };
        assert_eq!(src.path(guard.at.file), "prisma/schema.prisma");
    }

    /// A multi-file schema (`prisma/schema/*.prisma`) has its migrations
    /// beside its folder or in it; migrations of another folder are another
    /// database's.
    #[test]
    fn migrations_join_the_schema_of_their_folder_only() {
        let both = unique_index();
        for (schema, migration, joined) in [
            ("prisma/schema/events.prisma", MIGRATION, true),
            (
                "prisma/schema/events.prisma",
                "prisma/schema/migrations/20240105120000_init/migration.sql",
                true,
            ),
            (
                "prisma/schema.prisma",
                "services/ledger/migrations/20240105120000_init/migration.sql",
                false,
            ),
        ] {
            let (m, _) = build(&[(schema, SCHEMA_NO_UNIQUE), (migration, &both)], vec![]);
            assert_eq!(
                m.tables.len(),
                if joined { 1 } else { 2 },
                "{schema} {migration}"
            );
        }
    }

    fn step(dml: Dml) -> Step {
        Step {
            span: Span::new(0, 1),
            kind: StepKind::Sql { dml, conn: None },
            branch: Default::default(),
            exits: Default::default(),
            success_only: false,
            awaited: true,
        }
    }

    /// A TypeScript function as its front end lowers it: `prisma.<accessor>`
    /// calls as statements on the accessor, lower-cased.
    fn ts_code(steps: Vec<Step>, conflict: Option<ConflictTarget>) -> FileFacts {
        let func = FnTrace {
            name: "handleWebhook".into(),
            module: Vec::new(),
            owner: None,
            trait_of: None,
            bounds: Vec::new(),
            span: Span::new(0, 1),
            params: Vec::new(),
            events: steps,
            opaque: None,
            test: false,
            unconditional_set: None,
            plain_claim: None,
            unlocked_check: None,
            claims: Vec::new(),
            script: true,
        };
        let mut code = CodeFacts::default();
        code.flow.functions.push(func);
        FileFacts {
            code: Some(code),
            conflict_targets: conflict.into_iter().collect(),
            ..FileFacts::default()
        }
    }

    #[test]
    fn a_prisma_accessor_names_its_models_table() {
        let schema = "model ProcessedEvent {\n  id String @id\n  eventId String @unique\n  @@map(\"processed_events\")\n}\n";
        let (m, _) = build(&[("prisma/schema.prisma", schema)], vec![]);
        assert_eq!(m.resolve("processedevent"), "processed_events");
        assert_eq!(m.resolve("payments"), "payments");
        let t = &m.tables[0];
        assert_eq!(t.field_name("id"), "id");
        assert!(m.is_store_name("processedevent"));
        assert_eq!(
            m.find_table("processedevent").unwrap().key,
            "processed_events"
        );
    }

    /// A table that only carries a key is a store once the code claims on it,
    /// through its accessor as through its name.
    #[test]
    fn a_claim_through_an_accessor_makes_its_table_the_store() {
        let schema =
            "model TaskRun {\n  id String @id @default(cuid())\n  idempotencyKey String\n}\n";
        let claim = Dml::new(DmlKind::InsertDoNothing, "taskrun".into());
        let (m, src) = build(
            &[("prisma/schema.prisma", schema)],
            vec![ts_code(vec![step(claim)], None)],
        );
        let stores: Vec<_> = m.stores().collect();
        assert_eq!(stores.len(), 1);
        assert_eq!(stores[0].0.key, "TaskRun");
        assert!(!stores[0].1.note_only);
        assert!(matches!(
            stores[0].1.guarding(stores[0].0),
            Guarding::Missing
        ));
        assert_eq!(src.path(stores[0].0.created.file), "prisma/schema.prisma");
    }

    /// The schema pass reads the history of the table an accessor's
    /// `ON CONFLICT` names: the model's `@@map` name.
    #[test]
    fn the_schema_pass_looks_for_the_table_an_accessor_reaches() {
        let schema = "model ProcessedEvent {\n  id String @id\n  @@map(\"processed_events\")\n}\n";
        let target = ConflictTarget {
            table: "processedevent".into(),
            columns: vec!["id".into()],
            span: Span::new(0, 1),
        };
        let mut sources = SourceMap::default();
        sources.files.push(SourceFile::new(
            "prisma/schema.prisma",
            FileKind::Prisma,
            schema,
        ));
        let mut code = ts_code(Vec::new(), Some(target));
        code.file = 1;
        let facts = vec![crate::frontend::parse(0, FileKind::Prisma, schema), code];
        let tables = super::super::key_tables(&facts, &sources, &Config::default());
        assert!(
            tables.contains(&"processed_events".to_string()),
            "{tables:?}"
        );
    }

    /// An `ON CONFLICT` target on an accessor is held to the model's guards.
    #[test]
    fn a_conflict_target_through_an_accessor_is_held_to_the_models_guards() {
        let target = |cols: &[&str]| ConflictTarget {
            table: "processedevent".into(),
            columns: cols.iter().map(|c| c.to_string()).collect(),
            span: Span::new(0, 1),
        };
        let (m, _) = build(
            &[("prisma/schema.prisma", SCHEMA_UNIQUE)],
            vec![ts_code(Vec::new(), Some(target(&["eventId"])))],
        );
        assert!(m.unguarded_conflicts().is_empty());
        let (m, _) = build(
            &[("prisma/schema.prisma", SCHEMA_UNIQUE)],
            vec![ts_code(Vec::new(), Some(target(&["receivedAt"])))],
        );
        assert_eq!(m.unguarded_conflicts().len(), 1);
    }
}
