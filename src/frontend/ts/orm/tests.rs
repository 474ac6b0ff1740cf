use crate::facts::flow::StepKind;
use crate::facts::store::{CreateTable, DmlKind, KeyKind, SchemaChange, SqlFacts};
use crate::facts::FileFacts;
use crate::source::Dialect;

fn read(text: &str) -> FileFacts {
    let mut f = FileFacts::default();
    crate::frontend::ts::parse(text, Dialect::Ts, &mut f);
    f
}

fn tables(text: &str) -> (Vec<CreateTable>, SqlFacts) {
    let sql = read(text).sql.unwrap_or_default();
    let tables = sql
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            SchemaChange::CreateTable(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    (tables, sql)
}

/// (name, table) of each alias.
fn aliases(sql: &SqlFacts) -> Vec<(&str, &str)> {
    sql.aliases
        .iter()
        .map(|a| (a.name.as_str(), a.table.as_str()))
        .collect()
}

/// (kind, columns) of each key.
fn keys(t: &CreateTable) -> Vec<(KeyKind, String)> {
    t.keys.iter().map(|k| (k.kind, k.parts_text())).collect()
}

/// (kind, table) of each statement of the file's functions.
fn statements(text: &str) -> Vec<(DmlKind, String, Vec<String>)> {
    let f = read(text);
    f.code
        .iter()
        .flat_map(|c| &c.flow.functions)
        .flat_map(|func| &func.events)
        .filter_map(|ev| match &ev.kind {
            StepKind::Sql { dml, .. } => Some((dml.kind, dml.table.clone(), dml.conflict.to_vec())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_drizzle_table_has_its_columns_keys_and_variable_as_alias() {
    let (ts, sql) = tables(
        r#"
import { pgTable, pgSchema, serial, text, uuid, uniqueIndex, index, primaryKey, unique } from "drizzle-orm/pg-core";
export const processedEvents = pgTable("processed_events", {
  id: serial("id").primaryKey(),
  eventId: text("event_id").notNull().unique(),
  provider: text().notNull(),
}, (t) => ({
  byEvent: uniqueIndex("pe_provider_event").on(t.provider, t.eventId),
  recent: index("pe_recent").on(t.id),
  pk: primaryKey({ columns: [t.provider, t.eventId] }),
  u: unique().on(t.provider, t.id),
}));
const billing = pgSchema("billing");
export const webhookDeliveries = billing.table("webhook_deliveries", {
  id: uuid("id").defaultRandom().primaryKey(),
  deliveryId: text("delivery_id"),
}, (t) => [uniqueIndex("wd_delivery").on(t.deliveryId).where(sql`true`)]);
"#,
    );
    assert_eq!(ts.len(), 2);
    let pe = &ts[0];
    assert_eq!(pe.name.key, "processed_events");
    let cols: Vec<&str> = pe.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(cols, ["id", "event_id", "provider"]);
    assert!(pe.columns[1].not_null);
    assert_eq!(
        keys(pe),
        [
            (KeyKind::PrimaryKey, "id".to_string()),
            (KeyKind::Unique, "event_id".to_string()),
            (KeyKind::Unique, "provider, event_id".to_string()),
            (KeyKind::Index, "id".to_string()),
            (KeyKind::PrimaryKey, "provider, event_id".to_string()),
            (KeyKind::Unique, "provider, id".to_string()),
        ]
    );
    let wd = &ts[1];
    assert_eq!(wd.name.key, "billing.webhook_deliveries");
    assert_eq!(wd.columns[0].default.as_deref(), Some("gen_random_uuid()"));
    assert!(wd.keys[1].predicate.is_some(), "a partial unique index");
    let aliases = aliases(&sql);
    assert_eq!(
        aliases,
        [("webhook_deliveries", "billing.webhook_deliveries")]
    );
}

#[test]
fn mysql_and_sqlite_tables_and_the_columns_callback_are_read() {
    let (ts, _) = tables(
        r#"
export const a = mysqlTable("idem_keys", { key: varchar("key", { length: 64 }).primaryKey() });
export const b = sqliteTable("inbox", (t) => ({ messageId: t.text("message_id").unique() }));
export const c = mysqlTable("deliveries", { state: stateEnum.notNull().unique(), ...dates });
"#,
    );
    assert_eq!(ts.len(), 3);
    assert_eq!(ts[0].columns[0].ty, "VARCHAR");
    assert_eq!(keys(&ts[1]), [(KeyKind::Unique, "message_id".to_string())]);
    let state = &ts[2].columns[0];
    assert_eq!((state.name.as_str(), state.not_null), ("state", true));
    assert_eq!(keys(&ts[2]), [(KeyKind::Unique, "state".to_string())]);
}

#[test]
fn drizzle_queries_are_statements_on_the_tables_variable() {
    let found = statements(
        r#"
export async function handle(db, event) {
  const seen = await db.select().from(processedEvents).where(eq(processedEvents.eventId, event.id)).limit(1);
  await db.insert(processedEvents).values({ eventId: event.id }).onConflictDoNothing({ target: processedEvents.eventId });
  await db.insert(schema.ledgerEntries).values({ id: 1 }).onConflictDoUpdate({ target: [t.accountId, t.entryId], set: {} });
  await db.transaction(async (tx) => {
    await tx.update(processedEvents).set({ done: true }).where(eq(processedEvents.id, 1));
    await tx.delete(processedEvents).where(eq(processedEvents.id, 1));
    await tx.insert(processedEvents).values({ eventId: event.id }).returning();
  });
  await db.query.processedEvents.findFirst({ where: eq(processedEvents.id, 1) });
  await client.delete(url);
}
"#,
    );
    let t = |s: &str| s.to_string();
    assert_eq!(
        found,
        [
            (DmlKind::Read, t("processed_events"), vec![]),
            (
                DmlKind::InsertDoNothing,
                t("processed_events"),
                vec![t("event_id")]
            ),
            (
                DmlKind::Upsert,
                t("ledger_entries"),
                vec![t("account_id"), t("entry_id")]
            ),
            (DmlKind::Update, t("processed_events"), vec![]),
            (DmlKind::Delete, t("processed_events"), vec![]),
            (DmlKind::Insert, t("processed_events"), vec![]),
            (DmlKind::Read, t("processed_events"), vec![]),
        ]
    );
}

#[test]
fn a_typeorm_entity_is_named_by_its_decorator_or_its_class_in_snake_case() {
    let (ts, sql) = tables(
        r#"
@Entity()
@Index(["provider", "eventId"], { unique: true })
@Unique("uq_delivery", ["deliveryId"])
export class ProcessedEvent {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column() provider: string;
  @Column({ name: "event_id" }) eventId: string;
  @Column({ name: "delivery_id", nullable: true }) deliveryId: string;
  @Index({ unique: true }) @Column() token: string;
  @ManyToOne(() => Account) account: Account;
}
@Entity({ tableName: "mikro_events" })
export class MikroEvent {
  @PrimaryKey() id: string;
  @Property() eventId: string;
}
@Entity({ name: "idem_keys", schema: "billing" })
export class IdemKey {
  @PrimaryColumn() key: string;
  @Column({ unique: true }) requestHash: string;
}
"#,
    );
    assert_eq!(ts.len(), 2);
    let pe = &ts[0];
    assert_eq!(pe.name.key, "processed_event");
    let cols: Vec<&str> = pe.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(cols, ["id", "provider", "event_id", "delivery_id", "token"]);
    assert!(!pe.columns[3].not_null);
    assert_eq!(pe.columns[0].ty, "UUID");
    assert_eq!(
        keys(pe),
        [
            (KeyKind::PrimaryKey, "id".to_string()),
            (KeyKind::Unique, "token".to_string()),
            (KeyKind::Unique, "provider, event_id".to_string()),
            (KeyKind::Unique, "delivery_id".to_string()),
        ]
    );
    assert_eq!(ts[1].name.key, "billing.idem_keys");
    assert_eq!(
        keys(&ts[1]),
        [
            (KeyKind::PrimaryKey, "key".to_string()),
            (KeyKind::Unique, "requestHash".to_string()),
        ]
    );
    let aliases = aliases(&sql);
    assert_eq!(aliases, [("idem_key", "billing.idem_keys")]);
}

#[test]
fn typeorm_repository_calls_are_statements_on_the_entitys_table() {
    let found = statements(
        r#"
export async function handle(dataSource, manager, event) {
  await dataSource.getRepository(ProcessedEvent).insert({ eventId: event.id });
  await manager.findOneBy(ProcessedEvent, { eventId: event.id });
  await this.entityManager.upsert(ProcessedEvent, { eventId: event.id }, ["eventId"]);
  await manager.insert(event, {});
}
"#,
    );
    let t = |s: &str| s.to_string();
    assert_eq!(
        found,
        [
            (DmlKind::Insert, t("processed_event"), vec![]),
            (DmlKind::Read, t("processed_event"), vec![]),
            (DmlKind::Upsert, t("processed_event"), vec![]),
        ]
    );
}

#[test]
fn sequelize_models_are_tables_with_their_attributes_and_indexes() {
    let (ts, sql) = tables(
        r#"
const ProcessedEvent = sequelize.define("ProcessedEvent", {
  eventId: { type: DataTypes.STRING, allowNull: false, field: "event_id" },
  provider: { type: DataTypes.STRING, unique: "provider_event" },
  externalId: { type: DataTypes.STRING, unique: "provider_event" },
}, { indexes: [{ unique: true, fields: ["eventId"] }] });
class Entry extends Model {}
Entry.init({ id: { type: DataTypes.UUID, primaryKey: true, defaultValue: DataTypes.UUIDV4 }, ref: DataTypes.TEXT },
  { sequelize, modelName: "LedgerEntry", underscored: true });
customElements.define("x-button", { connectedCallback() {} });
"#,
    );
    assert_eq!(ts.len(), 2);
    assert_eq!(ts[0].name.key, "ProcessedEvents");
    let cols: Vec<&str> = ts[0].columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(cols, ["id", "event_id", "provider", "externalId"]);
    assert_eq!(
        keys(&ts[0]),
        [
            (KeyKind::Unique, "provider, externalId".to_string()),
            (KeyKind::PrimaryKey, "id".to_string()),
            (KeyKind::Unique, "event_id".to_string()),
        ]
    );
    assert_eq!(ts[1].name.key, "LedgerEntries");
    assert_eq!(keys(&ts[1]), [(KeyKind::PrimaryKey, "id".to_string())]);
    let aliases = aliases(&sql);
    assert_eq!(
        aliases,
        [
            ("processed_event", "ProcessedEvents"),
            ("entry", "LedgerEntries")
        ]
    );
}

#[test]
fn a_file_without_orm_declarations_has_no_schema() {
    assert!(read("export const x = pgTable;\nfoo.define('a', {});\n")
        .sql
        .is_none());
}

/// A Prisma create in a `try` whose `catch` tests `P2002` claims on the
/// fields it writes; an upsert there on its `where`; elsewhere a plain insert.
#[test]
fn a_prisma_create_that_catches_a_unique_violation_is_a_claim() {
    let text = r#"
export async function credit(eventId: string, amount: number) {
  try {
    return await prisma.reward.create({ data: { eventId, amount } });
  } catch (error: any) {
    if (error.code === "P2002") return null;
    throw error;
  }
}
export async function plain(eventId: string) {
  await prisma.reward.create({ data: { eventId } });
}
"#;
    assert_eq!(
        statements(text),
        vec![
            (
                DmlKind::InsertDoNothing,
                "reward".to_string(),
                vec!["eventId".to_string(), "amount".to_string()]
            ),
            (DmlKind::Insert, "reward".to_string(), vec![]),
        ]
    );
}

#[test]
fn a_medusa_model_has_its_columns_keys_and_indexes() {
    let (ts, _) = tables(
        r#"
import { model } from "@medusajs/framework/utils"
export const Ledger = model
  .define({ name: "LedgerEntry", tableName: "ledger_entry" }, {
    id: model.id({ prefix: "le" }).primaryKey(),
    request_key: model.text().unique().nullable(),
    account_id: model.text().index("IDX_account"),
    note: model.text().nullable(),
    owner: model.belongsTo(() => Account),
  })
  .indexes([
    { on: ["account_id", "note"], unique: true, where: "deleted_at IS NULL" },
    { on: ["note"], unique: true, where: "note IS NOT NULL" },
  ])
"#,
    );
    assert_eq!(ts.len(), 1);
    let t = &ts[0];
    assert_eq!(t.name.key, "ledger_entry");
    let cols: Vec<(&str, bool)> = t
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.not_null))
        .collect();
    assert_eq!(
        cols,
        vec![
            ("id", true),
            ("request_key", false),
            ("account_id", true),
            ("note", false),
            ("created_at", true),
            ("updated_at", true),
            ("deleted_at", false),
        ]
    );
    assert_eq!(
        keys(t),
        vec![
            (KeyKind::PrimaryKey, "id".to_string()),
            (KeyKind::Unique, "request_key".to_string()),
            (KeyKind::Index, "account_id".to_string()),
            (KeyKind::Unique, "account_id, note".to_string()),
            (KeyKind::Unique, "note".to_string()),
        ]
    );
    let partial: Vec<bool> = t.keys.iter().map(|k| k.predicate.is_some()).collect();
    assert_eq!(partial, vec![false, false, false, false, true]);
}

#[test]
fn a_prisma_read_names_the_fields_of_its_where_and_of_a_compound_selector() {
    let got = statements(
        r#"
export async function find(invoiceId: string, programId: string, id: string) {
  await prisma.commission.findUnique({ where: { invoiceId_programId: { invoiceId, programId } } });
  await prisma.commission.findFirst({ where: { invoiceId, status: { in: ["paid"] } } });
  await prisma.commission.findUnique({ where: { byInvoice: { invoiceId } } });
  await prisma.commission.findUnique({ where: { id } });
}
"#,
    );
    let fields: Vec<Vec<String>> = got.into_iter().map(|(_, _, c)| c).collect();
    assert_eq!(
        fields,
        [
            vec!["invoiceId".to_string(), "programId".to_string()],
            vec!["invoiceId".to_string(), "status".to_string()],
            vec!["byInvoice".to_string()],
            vec!["id".to_string()],
        ]
    );
}
