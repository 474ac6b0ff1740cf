use super::*;
use crate::facts::store::{KeyKind, SchemaChange};

fn tables(text: &str) -> (Vec<CreateTable>, FileFacts) {
    let mut f = FileFacts::default();
    parse(text, &mut f);
    let tables = f
        .sql
        .as_ref()
        .map(|s| {
            s.events
                .iter()
                .filter_map(|e| match &e.kind {
                    SchemaChange::CreateTable(t) => Some(t.clone()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    (tables, f)
}

const SCHEMA: &str = r#"// The webhook inbox.
generator client {
  provider = "prisma-client-js"
}

datasource db {
  provider = "postgresql"
  url      = env("DATABASE_URL")
}

enum Provider {
  STRIPE
  ADYEN
}

/// One row per delivery we acted on.
model ProcessedEvent {
  id         String   @id @default(cuid())
  provider   Provider
  eventId    String   @map("event_id") @db.VarChar(255)
  payload    Json?
  receivedAt DateTime @default(now()) @map("received_at")
  account    Account  @relation(fields: [accountId], references: [id])
  accountId  String

  @@unique([provider, eventId], name: "provider_event")
  @@index([receivedAt(sort: Desc)])
  @@map("processed_events")
}

model Account {
  id     Int              @id @default(autoincrement())
  events ProcessedEvent[]
}

view Totals {
  id Int @unique
}
"#;

#[test]
fn a_model_becomes_the_table_prisma_migrate_creates() {
    let (t, f) = tables(SCHEMA);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!(t.len(), 2);
    let pe = &t[0];
    assert_eq!(pe.name.key, "processed_events");
    assert_eq!(
        &SCHEMA[pe.name.span.start..pe.name.span.end],
        "ProcessedEvent"
    );
    let cols: Vec<&str> = pe.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        cols,
        [
            "id",
            "provider",
            "event_id",
            "payload",
            "received_at",
            "accountId"
        ]
    );
    assert_eq!(pe.columns[2].ty, "VARCHAR(255)");
    assert!(!pe.columns[3].not_null);
    assert_eq!(pe.columns[4].default.as_deref(), Some("CURRENT_TIMESTAMP"));
    assert_eq!(pe.columns[0].default.as_deref(), Some("cuid()"));
    let keys: Vec<(KeyKind, String, String)> = pe
        .keys
        .iter()
        .map(|k| (k.kind, k.name.clone(), k.parts_text()))
        .collect();
    assert_eq!(
        keys,
        [
            (
                KeyKind::PrimaryKey,
                "processed_events_pkey".into(),
                "id".into()
            ),
            (
                KeyKind::Unique,
                "processed_events_provider_event_id_key".into(),
                "provider, event_id".into()
            ),
            (
                KeyKind::Index,
                "processed_events_received_at_idx".into(),
                "received_at".into()
            ),
        ]
    );
    let k = &pe.keys[1];
    assert_eq!(&SCHEMA[k.span.start..k.span.end], "@@unique");
    assert_eq!(t[1].name.key, "Account");
    assert_eq!(t[1].columns[0].ty, "SERIAL");
    assert_eq!(t[1].columns.len(), 1, "a relation list is no column");
    let models = f.sql.unwrap().prisma.unwrap();
    assert_eq!(models[0].accessor, "processedevent");
    assert_eq!(models[0].table, "processed_events");
}

#[test]
fn field_attributes_make_keys_with_their_map_names() {
    let text = "model IdempotencyKey {\n  key String @unique(map: \"idem_key_uq\")\n  tenant String\n  @@id([tenant, key])\n  @@schema(\"billing\")\n}\n";
    let (t, _) = tables(text);
    assert_eq!(t[0].name.key, "billing.IdempotencyKey");
    assert_eq!(t[0].keys[0].name, "idem_key_uq");
    assert_eq!(t[0].keys[0].kind, KeyKind::Unique);
    assert_eq!(t[0].keys[1].kind, KeyKind::PrimaryKey);
    assert_eq!(t[0].keys[1].name, "IdempotencyKey_pkey");
    assert_eq!(t[0].keys[1].parts_text(), "tenant, key");
}

#[test]
fn an_unreadable_model_is_a_problem_and_the_next_model_is_read() {
    let text = "model WebhookEvent {\n  id String @id\n  eventId String @@@ ]\n}\n\nmodel Other {\n  id Int @id\n}\n";
    let (t, f) = tables(text);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].name.key, "Other");
    assert_eq!(f.problems.len(), 1);
    assert!(
        f.problems[0].reported,
        "a webhook event model may be a store"
    );
    let text = "model Country {\n  code String @id (\n}\nmodel Other {\n  id Int @id\n}\n";
    let (t, f) = tables(text);
    assert_eq!(t.len(), 1);
    assert!(!f.problems[0].reported, "a country holds no key");
}

#[test]
fn an_unclosed_model_ends_at_the_next_block() {
    let text = "model A {\n  id Int @id\n\nmodel B {\n  id Int @id\n}\n";
    let (t, f) = tables(text);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].name.key, "B");
    assert_eq!(f.problems.len(), 1);
}

#[test]
fn prisma_files_are_classified_by_extension() {
    use crate::source::FileKind;
    use std::path::Path;
    let k = |p: &str| crate::walk::classify(Path::new(p));
    assert_eq!(k("prisma/schema.prisma"), Some(FileKind::Prisma));
    assert_eq!(k("prisma/schema/billing.prisma"), Some(FileKind::Prisma));
    assert_eq!(FileKind::Prisma.name(), "prisma");
}

#[test]
fn every_prefix_of_a_schema_parses_without_panicking() {
    let text =
        format!("{SCHEMA}model \u{e9}t\u{e9} {{\n  a String @default(\"\u{1f600}\\\"\")\n}}\n");
    for (i, _) in text.char_indices() {
        let mut f = FileFacts::default();
        parse(&text[..i], &mut f);
    }
}

#[test]
fn deep_nesting_is_a_problem_not_a_crash() {
    let text = format!(
        "model IdempotencyKey {{\n  k String @default({}1{})\n}}\n",
        "[".repeat(5_000),
        "]".repeat(5_000)
    );
    let (t, f) = tables(&text);
    assert!(t.is_empty());
    assert_eq!(f.problems.len(), 1);
}

proptest::proptest! {
    #[test]
    fn arbitrary_text_never_panics(s in "\\PC*") {
        let mut f = FileFacts::default();
        parse(&s, &mut f);
    }

    #[test]
    fn arbitrary_schema_like_text_never_panics(
        s in "(model|enum|view|@@?|unique|id|map|\\{|\\}|\\(|\\)|\\[|\\]|\"|,|:|\\?|\n| |[a-zA-Z]+|//)*"
    ) {
        let mut f = FileFacts::default();
        parse(&s, &mut f);
    }
}
