//! The schema model: every migration history replayed in order into tables
//! (columns, unique guards, plain indexes, partitioning), with renames and
//! drops tracked and every fact keeping the file and statement that made it
//! (and, for a removed guard, the statement that removed it). Also which
//! tables are idempotency stores (`rules/stores.toml` plus `[[store]]` in
//! the config) and what guards their key. Rules read this; none replays.

use super::migrations::{self, History};
use crate::config::Config;
use crate::facts::store::{
    AlterOp, Column, Delete, Key, KeyKind, KeyPart, Name, PartitionMethod, Partitioning,
    SchemaChange, SchemaCode, SchemaEvent,
};
use crate::facts::FileFacts;
use crate::knowledge;
use crate::source::{shared_dirs, FileId, SourceMap, Span};
use std::collections::HashMap;

/// Where a fact came from: a file and a span in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    pub file: FileId,
    pub span: Span,
}

/// A key (PRIMARY KEY, UNIQUE, unique or plain index) and the statement
/// that made it.
#[derive(Debug, Clone)]
pub struct Guard {
    pub key: Key,
    /// The declaring token (`UNIQUE`, `PRIMARY KEY`, the index name).
    pub at: Origin,
    pub statement: Origin,
}

/// A guard that a later statement removed.
#[derive(Debug, Clone)]
pub struct Removed {
    pub guard: Guard,
    /// The token that names it in the removing statement.
    pub at: Origin,
    pub statement: Origin,
    /// Not removed by a statement: a Prisma model no longer declares a
    /// guard its migrations create, so the next `prisma migrate dev`
    /// writes the `DROP INDEX` (`at` is the model).
    pub by_schema: bool,
}

#[derive(Debug, Clone)]
pub struct Table {
    /// As last named (`public.idempotency_keys`).
    pub name: String,
    /// Normalised (`idempotency_keys`).
    pub key: String,
    /// Index into [`SchemaModel::histories`].
    pub history: usize,
    /// The table's name in its `CREATE TABLE`.
    pub created: Origin,
    pub columns: Vec<Column>,
    /// Keys alive at the end of the history.
    pub guards: Vec<Guard>,
    pub removed: Vec<Removed>,
    pub partition_by: Option<(Partitioning, FileId)>,
    /// `PARTITION OF` this parent (normalised).
    pub partition_of: Option<String>,
    /// Declared by a Prisma model: its columns named apart from their
    /// field (`@map`), as (column, field).
    pub prisma: Option<Vec<(String, String)>>,
    /// Unique guards its Prisma model declares that no migration of its
    /// history creates: not guards of a database the migrations built.
    pub unmigrated: Vec<Guard>,
    /// The schema code that declares it (`None` for SQL): where a guard
    /// or a claim is to be written.
    pub declared_by: Option<SchemaCode>,
    /// (column, property) where the declaring ORM names a column apart
    /// from its property (`eventId: text("event_id")`).
    pub fields: Vec<(String, String)>,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The migrated table joined with the Prisma model (or the ORM
    /// declaration in code) that declares it: shown where the model is (its
    /// name, its columns, the guards the model declares too), the
    /// migrations' columns and guards kept.
    fn join_model(&mut self, model: Table) {
        self.created = model.created;
        for c in &mut self.columns {
            if let Some(d) = model.columns.iter().find(|d| d.name == c.name) {
                c.span = d.span;
            }
        }
        for g in &mut self.guards {
            if let Some(d) = model.guards.iter().find(|d| same_guard(d, g)) {
                g.at = d.at;
                g.statement = d.statement;
            }
        }
        self.prisma = model.prisma;
    }

    /// The migrated table joined with the Prisma model it was generated
    /// from. A guard is the table's when both have it: one the model
    /// declares that no migration creates is not in any database the
    /// migrations built (a hand-edited migration, or one not generated yet);
    /// a guard the migrations create that
    /// the model could declare (plain columns, no `WHERE`) and does not is
    /// dropped by the next migration, so it is removed, at the model; a
    /// guard no model can express (a partial or expression index written
    /// by hand into a migration) stays.
    fn join_prisma_model(&mut self, model: Table) {
        let guards = std::mem::take(&mut self.guards);
        let mut declared = model.guards.clone();
        for g in guards {
            if let Some(i) = declared.iter().position(|d| same_guard(d, &g)) {
                let d = declared.remove(i);
                self.guards.push(Guard {
                    at: d.at,
                    statement: d.statement,
                    ..g
                });
            } else if g.key.predicate.is_some()
                || g.key
                    .parts
                    .iter()
                    .any(|p| matches!(p, KeyPart::Expr { .. }))
            {
                self.guards.push(g);
            } else if g.key.kind != KeyKind::Index {
                let at = declared
                    .iter()
                    .find(|d| d.key.kind == KeyKind::Index && same_columns(d, &g))
                    .map_or(model.created, |d| d.at);
                self.removed.push(Removed {
                    guard: g,
                    at,
                    statement: model.created,
                    by_schema: true,
                });
            }
        }
        // Plain indexes the model alone declares are shown, never guards.
        let (plain, unmigrated) = declared
            .into_iter()
            .partition(|d| d.key.kind == KeyKind::Index);
        self.guards.extend::<Vec<Guard>>(plain);
        self.unmigrated = unmigrated;
        self.join_model(model);
    }

    /// The migrated table joined with the ent schema it is generated from.
    /// A guard both declare (same kind, columns and `WHERE`) is the
    /// table's, shown at the schema. A migrated guard is removed, at the
    /// schema, when the schema declares another over the same columns (a
    /// unique index made plain, or given another `WHERE`) or a unique one
    /// of the same `WHERE` over fewer or more columns (rescoped): the next
    /// migration makes the schema's. Any other migrated guard stays (a
    /// mixin's index, or a field's, declared where this file does not
    /// say). The schema's unique guards no migration creates are
    /// `unmigrated`; its plain ones are shown.
    fn join_ent_model(&mut self, model: Table) {
        let guards = std::mem::take(&mut self.guards);
        let mut declared = model.guards.clone();
        let set = |g: &Guard| {
            let mut c: Vec<&str> = g.key.parts.iter().map(KeyPart::text).collect();
            c.sort_unstable();
            c.dedup();
            c.into_iter().map(str::to_string).collect::<Vec<_>>()
        };
        let pred = |g: &Guard| {
            g.key.predicate.as_deref().map(|p| {
                p.chars()
                    .filter(|c| !c.is_whitespace() && !matches!(c, '(' | ')' | '"'))
                    .collect::<String>()
                    .to_ascii_lowercase()
            })
        };
        let same = |a: &Guard, b: &Guard| {
            a.key.kind == b.key.kind && set(a) == set(b) && pred(a) == pred(b)
        };
        // the schema's guards no migrated guard is the same as: only these
        // replace one
        let fresh: Vec<&Guard> = model
            .guards
            .iter()
            .filter(|d| !guards.iter().any(|g| same(g, d)))
            .collect();
        let mut replaced = Vec::new();
        for g in guards {
            if let Some(i) = declared.iter().position(|d| same(d, &g)) {
                let d = declared.remove(i);
                self.guards.push(Guard {
                    at: d.at,
                    statement: d.statement,
                    ..g
                });
                continue;
            }
            let cols = set(&g);
            let other = fresh.iter().find(|d| set(d) == cols).or_else(|| {
                fresh.iter().find(|d| {
                    let dc = set(d);
                    d.key.kind == g.key.kind
                        && pred(d) == pred(&g)
                        && dc != cols
                        && (dc.iter().all(|c| cols.contains(c))
                            || cols.iter().all(|c| dc.contains(c)))
                })
            });
            match other {
                Some(d) if g.key.kind != KeyKind::Index => replaced.push(Removed {
                    guard: g,
                    at: d.at,
                    statement: model.created,
                    by_schema: true,
                }),
                _ => self.guards.push(g),
            }
        }
        let (plain, unmigrated): (Vec<Guard>, Vec<Guard>) = declared
            .into_iter()
            .partition(|d| d.key.kind == KeyKind::Index);
        self.guards.extend(plain);
        self.removed.extend(replaced);
        self.unmigrated = unmigrated;
        self.declared_by = Some(SchemaCode::Ent);
        self.join_model(model);
    }

    /// The code the table is declared in, if not SQL alone: a Prisma model
    /// joined with its migrations is Prisma's.
    pub fn code(&self) -> Option<SchemaCode> {
        self.declared_by
            .or(self.prisma.is_some().then_some(SchemaCode::Prisma))
    }

    /// The name a column goes by where the table is declared: its Prisma
    /// field (`eventId` of `@map("event_id")`) or ORM property (`eventId:
    /// text("event_id")`), else the column's own.
    pub fn field_name<'a>(&'a self, column: &'a str) -> &'a str {
        self.prisma
            .iter()
            .flatten()
            .chain(&self.fields)
            .find(|(c, _)| c == column)
            .map_or(column, |(_, f)| f.as_str())
    }
}

/// A `DELETE` statement found anywhere.
#[derive(Debug, Clone)]
pub struct DeleteUse {
    pub file: FileId,
    pub statement: Span,
    pub delete: Delete,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// Client-supplied request keys (`idempotency_key`, `request_id`) with a
    /// stored response.
    RequestKey,
    /// A provider's event ids (`event_id` in a webhook/processed-events table).
    ProviderEvent,
}

/// What makes a table a store and which columns are its key.
#[derive(Debug, Clone)]
pub struct Store {
    pub kind: StoreKind,
    /// The key column(s); empty when none is recognised.
    pub key: Vec<String>,
    /// Columns naming the caller (account_id, tenant_id, ...).
    pub scope: Vec<String>,
    /// The table is a store by its name or the config, not only because
    /// it has an `idempotency_key` column (a `payments` table with one is
    /// the effect itself, guarded by its key, and holds the request's
    /// fields rather than a copy of them).
    pub dedicated: bool,
    /// The key is a digest of the request (`request_sha256`, a `bytea`
    /// key): its own fingerprint, and scoped by construction when the
    /// digest covers the owner.
    pub digest: bool,
    /// The table keeps a response or result to replay; without one it is a
    /// pure dedup table.
    pub keeps_response: bool,
    /// A table that only carries a key column, judged because no other
    /// table guards that key: its findings are notes.
    pub note_only: bool,
    /// A table that carries the key (a run, an event, an order) and holds,
    /// or held before a later migration removed it, a unique guard of its
    /// own over it: a unique index over `idempotency_key` exists only to
    /// refuse a second row with that key, so losing, splitting or unscoping
    /// it is judged in full.
    pub own_guard: bool,
    /// Code that fills the table from an idempotency header or a provider
    /// event's identity: where, and from what (`event.id`).
    pub derived: Option<DerivedUse>,
}

/// A statement of the code that binds a value built from an idempotency
/// header or a provider event's identity.
#[derive(Debug, Clone)]
pub struct DerivedUse {
    pub file: FileId,
    pub span: Span,
    /// The column the value goes to, when the statement says.
    pub column: Option<String>,
    /// "`event.id`", "the `Idempotency-Key` header".
    pub what: String,
    /// The statement writes the table (else it looks the value up).
    pub writes: bool,
    /// A provider event's identity (else a client's request key).
    pub event: bool,
}

impl Store {
    /// The severity a rule gives a finding on this store: at most a note
    /// for a table that only carries a key column.
    pub fn severity(&self, s: crate::diagnostic::Severity) -> crate::diagnostic::Severity {
        if self.note_only {
            s.min(crate::diagnostic::Severity::Note)
        } else {
            s
        }
    }
}

/// How a store's key is guarded at the end of its history.
#[derive(Debug, Clone)]
pub enum Guarding<'a> {
    /// A full PRIMARY KEY / UNIQUE over the key (possibly with scope columns).
    Guarded(&'a Guard),
    /// Only partial unique indexes cover the key.
    Partial(&'a Guard),
    /// The only unique guards add partition columns to the key.
    SplitByPartition {
        guard: &'a Guard,
        columns: Vec<String>,
    },
    Missing,
}

/// An `INSERT … ON CONFLICT (cols)` in the code of a text file (Go,
/// TypeScript, Python, …), outside test paths.
#[derive(Debug, Clone)]
pub struct ConflictUse {
    pub file: FileId,
    pub target: crate::facts::store::ConflictTarget,
}

/// A find-or-create in code, outside tests (`model::find_or_create`
/// judges it against the schema).
#[derive(Debug, Clone)]
pub struct FindOrCreateUse {
    pub file: crate::source::FileId,
    pub call: crate::facts::store::FindOrCreate,
}

#[derive(Debug, Default)]
pub struct SchemaModel {
    pub histories: Vec<History>,
    pub tables: Vec<Table>,
    pub deletes: Vec<DeleteUse>,
    pub conflicts: Vec<ConflictUse>,
    /// Find-or-create calls in code outside tests (Django's
    /// `get_or_create`): `model::find_or_create`.
    pub find_or_create: Vec<FindOrCreateUse>,
    /// Where a Django model shows the guards it inherits from an abstract
    /// base (its class's name): `model::inherit`.
    pub inherited_at: std::collections::HashSet<(FileId, Span)>,
    /// Files of schema with a statement no dialect reads.
    unread: std::collections::HashSet<FileId>,
    /// Tables the config declares (`store = true`) or excludes (`false`), normalised.
    declared: HashMap<String, bool>,
    /// Tables (bare, normalised) that Rust code treats as a key store: it
    /// claims a key with `INSERT … ON CONFLICT DO NOTHING`, or reads a table
    /// and then inserts into it in one function (a check-then-insert).
    treated: std::collections::HashSet<String>,
    /// Tables (bare, normalised) code claims a key column on: it inserts
    /// and takes a unique violation over a key column (`event_id`,
    /// `idempotency_key`) for a replay (`ON CONFLICT (event_id) DO
    /// NOTHING`, a Prisma `create` whose `catch` tests `P2002`). A table
    /// that carries the key is then where the code keeps it.
    claimed: std::collections::HashSet<String>,
    /// Tables (bare, normalised) that Rust code writes or reads with a
    /// value built from an idempotency header or a provider event's
    /// identity, and the column it goes to when the statement says.
    derived: HashMap<String, DerivedUse>,
    /// Owner words the config adds to the scope vocabulary.
    scope_words: Vec<String>,
    /// Names code reaches tables by (Prisma client accessors, ORM table
    /// objects and entity classes) and the tables they stand for
    /// ([`crate::facts::store::table_aliases`]).
    aliases: HashMap<String, String>,
    /// Files of schema the built-in prefilter admits by their text alone
    /// ([`crate::facts::store::SqlFacts::admitted`]).
    admitted: std::collections::HashSet<FileId>,
    /// What [`SchemaModel::stores`] gives, by table index, made on first
    /// use: every rule over stores asks for them (omicron's 383 tables
    /// were judged six times a run).
    stores: std::sync::OnceLock<Vec<(usize, Store)>>,
}

/// Whether a table's bare name, as written or in snake case (Prisma's
/// `"InboxMessage"`), matches `words`.
fn table_words(words: &knowledge::Words, key: &str) -> bool {
    let b = bare(key);
    words.matches(b) || words.matches(&knowledge::snake_of_camel(b))
}

fn bare(key: &str) -> &str {
    key.rsplit('.').next().unwrap_or(key)
}

/// Whether a table is named for a provider's deliveries (`stripe_events`,
/// `adyen_notifications`, `paypal_webhook_events`, `processed_stripe_events`).
fn provider_delivery(t: &Table) -> bool {
    let stores = knowledge::stores();
    stores.is_provider_event_table(&t.key)
        || (table_words(&stores.event_table, &t.key)
            && knowledge::counterparties()
                .inbound_matches(bare(&t.key), &knowledge::name_words(bare(&t.key))))
}

/// The `id` column of a provider's delivery table when it holds the
/// provider's id: a text type with no generated default.
fn provider_id_column(t: &Table) -> Option<String> {
    let c = t.column("id")?;
    let ty = c.ty.to_ascii_uppercase();
    let text = ["TEXT", "VARCHAR", "CHAR", "CHARACTER", "STRING", "NVARCHAR"]
        .iter()
        .any(|w| ty.starts_with(w));
    let generated = c.default.as_deref().is_some_and(|d| {
        let d = d.to_ascii_lowercase();
        d.contains('(') || d.contains("nextval")
    });
    (text && !generated && c.generated.is_none()).then(|| c.name.clone())
}

/// The directory of a path (`prisma` of `prisma/schema.prisma`; empty for a
/// file at the root).
fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Whether a history's directory is Prisma Migrate's migrations folder of
/// the schema in `schema_dir`: beside the schema, or beside the folder of a
/// multi-file schema (`prisma/schema/*.prisma`, `prisma/migrations`). The
/// folder is `migrations`, or any folder of Prisma's layout
/// (`<ts>_<name>/migration.sql`) when a config names it
/// (`migrations: { path: "./migration" }`).
fn migrations_of(history_dir: &str, prisma_layout: bool, schema_dir: &str) -> bool {
    let (root, last) = history_dir.rsplit_once('/').unwrap_or(("", history_dir));
    let multi_file = schema_dir.rsplit('/').next() == Some("schema");
    (last == "migrations" || prisma_layout)
        && (root == schema_dir || (multi_file && root == parent_dir(schema_dir)))
}

/// Whether two guards are the same key: same kind, same columns.
fn same_guard(a: &Guard, b: &Guard) -> bool {
    a.key.kind == b.key.kind && a.key.predicate.is_none() && same_columns(a, b)
}

/// Whether two keys are over the same parts, in any order.
fn same_columns(a: &Guard, b: &Guard) -> bool {
    let cols = |g: &Guard| {
        let mut c: Vec<String> = g.key.parts.iter().map(|p| p.text().to_string()).collect();
        c.sort_unstable();
        c
    };
    cols(a) == cols(b)
}

fn norm_decl(table: &str) -> String {
    let t = table.trim().trim_matches('"').to_ascii_lowercase();
    t.strip_prefix("public.").map(str::to_string).unwrap_or(t)
}

impl SchemaModel {
    pub fn build(files: &[FileFacts], sources: &SourceMap, config: &Config) -> Self {
        let sql_files: Vec<(FileId, &str)> = files
            .iter()
            .filter(|f| f.sql.is_some())
            .map(|f| (f.file, sources.path(f.file)))
            .collect();
        let mut model = SchemaModel {
            histories: migrations::histories(&sql_files),
            ..SchemaModel::default()
        };
        model.scope_words = config
            .scope_words
            .iter()
            .map(|w| w.to_ascii_lowercase())
            .collect();
        for d in &config.store {
            if let Some(t) = &d.table {
                model.declared.insert(norm_decl(t), d.store);
            }
        }
        model.admitted = files
            .iter()
            .filter(|f| f.sql.as_ref().is_some_and(|s| s.admitted))
            .map(|f| f.file)
            .collect();
        model.unread = files
            .iter()
            .filter(|f| f.sql.as_ref().is_some_and(|s| s.unparsed > 0))
            .map(|f| f.file)
            .collect();
        model.conflicts = files
            .iter()
            .filter(|f| !f.test_path)
            .flat_map(|f| {
                f.conflict_targets.iter().map(|t| ConflictUse {
                    file: f.file,
                    target: t.clone(),
                })
            })
            .collect();
        model.find_or_create = files
            .iter()
            .filter(|f| !f.test_path)
            .flat_map(|f| {
                f.find_or_create
                    .iter()
                    .filter(|c| {
                        !f.test_regions
                            .iter()
                            .any(|t| t.start <= c.span.start && c.span.end <= t.end)
                    })
                    .map(|c| FindOrCreateUse {
                        file: f.file,
                        call: c.clone(),
                    })
            })
            .collect();
        let by_id: HashMap<FileId, &FileFacts> = files.iter().map(|f| (f.file, f)).collect();
        // Django's abstract models, in their concrete subclasses' tables
        let inherited = super::inherit::join(files, sources);
        for (h, history) in model.histories.clone().iter().enumerate() {
            let mut replay = Replay {
                history: h,
                tables: Vec::new(),
            };
            for id in &history.files {
                let Some(sql) = by_id.get(id).and_then(|f| f.sql.as_ref()) else {
                    continue;
                };
                for ev in inherited.events.get(id).unwrap_or(&sql.events) {
                    if let SchemaChange::Delete(d) = &ev.kind {
                        model.deletes.push(DeleteUse {
                            file: *id,
                            statement: ev.span,
                            delete: d.clone(),
                        });
                    }
                    replay.apply(*id, ev);
                }
            }
            model.tables.extend(replay.tables.into_iter().flatten());
        }
        model.aliases = crate::facts::store::table_aliases(files);
        model.inherited_at = inherited.at;
        for a in inherited.aliases {
            model.aliases.entry(a.name).or_insert(a.table);
        }
        model.join_prisma(files, sources);
        model.join_code_schemas(sources);
        model.join_ent_schemas(sources);
        model
    }

    /// A Prisma schema and the migrations Prisma Migrate generated from it
    /// (`<dir>/migrations/<ts>_<name>/migration.sql` beside the schema, or
    /// beside its folder for a multi-file `prisma/schema/`) describe each
    /// table twice: they are one table. The migrations say what the
    /// database holds (a hand-edited migration may add a partial or
    /// expression index no model can declare, or partition the table), so
    /// the migrated table is kept, and the schema, which a user edits and
    /// Prisma generates the SQL from, is where it is shown: the table's
    /// definition and each guard the model declares point at the model. A
    /// model no migration creates is a table of its own. The client's
    /// accessors are kept with the other aliases ([`SchemaModel::resolve`]).
    fn join_prisma(&mut self, files: &[FileFacts], sources: &SourceMap) {
        let schemas: HashMap<FileId, &str> = files
            .iter()
            .filter(|f| f.sql.as_ref().is_some_and(|s| s.prisma.is_some()))
            .map(|f| (f.file, parent_dir(sources.path(f.file))))
            .collect();
        if schemas.is_empty() {
            return;
        }
        let models: HashMap<(FileId, &str), &Vec<(String, String)>> = files
            .iter()
            .filter_map(|f| Some((f.file, f.sql.as_ref()?.prisma.as_ref()?)))
            .flat_map(|(id, ms)| ms.iter().map(move |m| ((id, m.table.as_str()), &m.mapped)))
            .collect();
        let mut declared = Vec::new();
        // the tables of the migration histories, by key
        let mut migrated: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, t) in self.tables.iter_mut().enumerate() {
            if schemas.contains_key(&t.created.file) {
                let mapped = models.get(&(t.created.file, t.key.as_str()));
                t.prisma = Some(mapped.map(|m| m.to_vec()).unwrap_or_default());
                declared.push(i);
            } else {
                migrated.entry(t.key.clone()).or_default().push(i);
            }
        }
        let mut gone = vec![false; self.tables.len()];
        for &p in &declared {
            let dir = schemas[&self.tables[p].created.file];
            let own = migrated.get(&self.tables[p].key).and_then(|ms| {
                ms.iter().copied().find(|&i| {
                    let h = &self.histories[self.tables[i].history];
                    let layout = h
                        .files
                        .first()
                        .is_some_and(|&f| sources.path(f).ends_with("/migration.sql"));
                    migrations_of(&h.dir, layout, dir)
                })
            });
            let Some(m) = own else { continue };
            let model = self.tables[p].clone();
            self.tables[m].join_prisma_model(model);
            gone[p] = true;
        }
        self.drop_generated_copies(&declared, &mut gone, sources);
        let mut i = 0;
        self.tables.retain(|_| {
            i += 1;
            !gone[i - 1]
        });
    }

    /// A table an ORM declares in TypeScript or JavaScript (a Drizzle
    /// `pgTable`, a TypeORM entity, a Sequelize model) and the table a SQL
    /// migration history creates under the same name (the SQL `drizzle-kit
    /// generate` wrote, or migrations kept by hand) are one table, joined
    /// as a Prisma model is with its migrations: the migrated table is
    /// kept (the database holds what the migrations made), shown where the
    /// code declares it. Of several histories that create it, the one
    /// nearest the declaring file.
    fn join_code_schemas(&mut self, sources: &SourceMap) {
        use crate::source::FileKind;
        let code: Vec<bool> = self
            .tables
            .iter()
            .map(|t| {
                let kind = sources.files.get(t.created.file).map(|f| f.kind);
                matches!(kind, Some(FileKind::Script(_)))
            })
            .collect();
        if !code.contains(&true) {
            return;
        }
        let mut gone = vec![false; self.tables.len()];
        for p in (0..self.tables.len()).filter(|&i| code[i]) {
            let path = sources.path(self.tables[p].created.file);
            let own = (0..self.tables.len())
                .filter(|&i| !code[i] && !gone[i] && self.tables[i].prisma.is_none())
                .filter(|&i| self.tables[i].key == self.tables[p].key)
                .max_by_key(|&i| shared_dirs(path, sources.path(self.tables[i].created.file)));
            let Some(m) = own else { continue };
            let declared = self.tables[p].clone();
            self.tables[m].join_model(declared);
            gone[p] = true;
        }
        let mut i = 0;
        self.tables.retain(|_| {
            i += 1;
            !gone[i - 1]
        });
    }

    /// An ent schema (Go) and the migrations generated from it (atlas's
    /// `migrate diff`, golang-migrate files) describe each table twice:
    /// they are one table, joined as a Prisma model is with its migrations
    /// (the ent schema is the next migration). Of several histories that
    /// create it, the one nearest the schema, then the longest.
    fn join_ent_schemas(&mut self, sources: &SourceMap) {
        let ent: Vec<bool> = self
            .tables
            .iter()
            .map(|t| t.declared_by == Some(SchemaCode::Ent))
            .collect();
        if !ent.contains(&true) {
            return;
        }
        let mut gone = vec![false; self.tables.len()];
        for p in (0..self.tables.len()).filter(|&i| ent[i]) {
            let path = sources.path(self.tables[p].created.file);
            let own = (0..self.tables.len())
                .filter(|&i| !ent[i] && !gone[i] && self.tables[i].declared_by.is_none())
                .filter(|&i| self.tables[i].key == self.tables[p].key)
                .max_by_key(|&i| {
                    (
                        shared_dirs(path, sources.path(self.tables[i].created.file)),
                        self.histories[self.tables[i].history].files.len(),
                    )
                });
            let Some(m) = own else { continue };
            let declared = self.tables[p].clone();
            self.tables[m].join_ent_model(declared);
            gone[p] = true;
        }
        let mut i = 0;
        self.tables.retain(|_| {
            i += 1;
            !gone[i - 1]
        });
    }

    /// A generated client keeps a copy of the schema
    /// (`src/generated/prisma/schema.prisma`): its tables are the schema's,
    /// not more of them. Marks them `gone`.
    fn drop_generated_copies(&self, declared: &[usize], gone: &mut [bool], sources: &SourceMap) {
        let copy = |i: usize| {
            let path = sources.path(self.tables[i].created.file);
            path.contains("generated/") || path.contains("node_modules/")
        };
        let originals: std::collections::HashSet<&str> = (0..self.tables.len())
            .filter(|&i| self.tables[i].prisma.is_some() && !copy(i))
            .map(|i| self.tables[i].key.as_str())
            .collect();
        for &p in declared {
            if copy(p) && originals.contains(self.tables[p].key.as_str()) {
                gone[p] = true;
            }
        }
    }

    /// The table a name in code refers to: the model's table when it is a
    /// Prisma client's accessor (`prisma.processedEvent` reaches
    /// `"ProcessedEvent"`, or its `@@map` name), the table an ORM's table
    /// object or entity class declares (`db.insert(processedEvents)`
    /// reaches Drizzle's `pgTable("processed_events", ..)`), else the name
    /// itself.
    pub fn resolve<'a>(&'a self, name: &'a str) -> &'a str {
        if self.aliases.is_empty() {
            return name;
        }
        self.aliases
            .get(&bare(name).to_ascii_lowercase())
            .map_or(name, String::as_str)
    }

    /// Record the tables Rust code treats as key stores (see `treated`).
    /// A table that only carries a key column is judged in full when the
    /// code claims on it or checks and then inserts.
    pub fn mark_treated_as_stores(&mut self, files: &[FileFacts]) {
        use crate::facts::flow::StepKind;
        self.stores.take();
        use crate::facts::store::DmlKind;
        for f in files.iter().filter(|f| !f.test_path) {
            let Some(r) = &f.code else { continue };
            for d in &r.derived.tables {
                if f.test_regions
                    .iter()
                    .any(|t| t.start <= d.span.start && d.span.end <= t.end)
                {
                    continue;
                }
                let table = bare(self.resolve(&d.table)).to_string();
                let u = self.derived.entry(table).or_insert_with(|| DerivedUse {
                    file: f.file,
                    span: d.span,
                    column: None,
                    what: d.source.what.clone(),
                    event: d.source.event,
                    writes: d.writes,
                });
                // the statement to show: one that names the column, a
                // write before a read
                let better = (d.column.is_some(), d.writes) > (u.column.is_some(), u.writes);
                if better {
                    u.writes = d.writes;
                    u.column.clone_from(&d.column);
                    u.file = f.file;
                    u.span = d.span;
                    u.what.clone_from(&d.source.what);
                }
                u.event |= d.source.event;
            }
        }
        for func in files
            .iter()
            .filter_map(|f| f.code.as_ref())
            .flat_map(|r| r.flow.functions.iter())
            .filter(|func| !func.test)
        {
            let mut read: Vec<String> = Vec::new();
            for ev in &func.events {
                let StepKind::Sql { dml, .. } = &ev.kind else {
                    continue;
                };
                let table = bare(self.resolve(&dml.table)).to_string();
                // `ON CONFLICT (idempotency_key) DO UPDATE`: the statement
                // leans on a unique guard over the key column.
                let on_key = dml.conflict.iter().any(|c| {
                    knowledge::stores()
                        .key_column
                        .marks_store
                        .contains(&knowledge::snake(c))
                });
                // an idempotency key or an event's id (`eventId`,
                // `stripeEventId`); a `message_id` may be a chat's own
                let claims_key = dml.conflict.iter().any(|c| {
                    let c = knowledge::snake(c);
                    let keys = &knowledge::stores().key_column;
                    keys.marks_store.contains(&c)
                        || (keys.event_id.contains(&c) && c.ends_with("event_id"))
                });
                if claims_key && matches!(dml.kind, DmlKind::InsertDoNothing | DmlKind::Upsert) {
                    self.claimed.insert(table.clone());
                }
                match dml.kind {
                    // A target of other columns (`ON CONFLICT (inserted_at,
                    // id)`, the row's own key) dedups rows, not a key the
                    // table carries (hatchet's `v1_tasks_olap`).
                    DmlKind::InsertDoNothing if dml.conflict.is_empty() || on_key => {
                        self.treated.insert(table.clone());
                    }
                    DmlKind::Insert | DmlKind::Upsert if on_key => {
                        self.treated.insert(table.clone());
                    }
                    DmlKind::Insert if read.contains(&table) => {
                        self.treated.insert(table.clone());
                    }
                    // a read that names its columns and none is a key
                    // (`findFirst({ where: { id } })`) looks a row up, not a key
                    DmlKind::Read if dml.conflict.is_empty() || key_read(&dml.conflict) => {
                        read.push(table)
                    }
                    _ => {}
                }
            }
        }
    }

    /// The names (normalised, bare of their schema, lowered) of the tables that are
    /// stores or carry a key column, before any is left out as guarded
    /// elsewhere ([`SchemaModel::stores`]), or a column code may look a key
    /// up by ([`carries_key`]): the tables whose every
    /// column, guard and rename the rules may read.
    pub fn key_table_names(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .tables
            .iter()
            .filter(|t| self.store_of(t, true).is_some() || carries_key(t))
            .map(|t| bare(&t.key).to_ascii_lowercase())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// [`SchemaModel::key_table_names`] and the names code reaches those
    /// tables by ([`SchemaModel::resolve`]'s aliases: Prisma accessors,
    /// ORM table objects), lowered.
    pub fn key_table_code_names(&self) -> Vec<String> {
        let mut out = self.key_table_names();
        let aliases: Vec<String> = self
            .aliases
            .iter()
            .filter(|(_, t)| out.contains(&bare(t).to_ascii_lowercase()))
            .map(|(a, _)| a.clone())
            .collect();
        out.extend(aliases);
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether the built-in prefilter admits a file of schema by its text
    /// alone: a run that reads every file whole reads the same ones.
    pub fn admitted(&self, file: FileId) -> bool {
        self.admitted.contains(&file)
    }

    /// Owner words the config adds to the scope vocabulary.
    pub fn scope_words(&self) -> &[String] {
        &self.scope_words
    }

    /// Whether a table is an idempotency store, and what kind.
    pub fn store(&self, t: &Table) -> Option<Store> {
        self.store_of(t, false)
    }

    /// [`SchemaModel::store`]; with `carrier`, a run, event or delivery
    /// table that carries a key column is read as a store too.
    fn store_of(&self, t: &Table, carrier: bool) -> Option<Store> {
        let stores = knowledge::stores();
        let declared = self
            .declared
            .get(&t.key)
            .or_else(|| self.declared.get(bare(&t.key)))
            .copied();
        if declared == Some(false) {
            return None;
        }
        let marked = t.columns.iter().any(|c| {
            stores
                .key_column
                .marks_store
                .contains(&knowledge::snake(&c.name))
        });
        let derived = self.derived.get(bare(&t.key));
        let dedicated = declared == Some(true)
            || stores.is_store_table(&t.key)
            || stores.is_provider_event_table(&t.key)
            || (marked && self.treated.contains(bare(&t.key)))
            || derived.is_some();
        let weak = table_words(&stores.weak_table, &t.key);
        // A table the code claims a key on is judged as one that carries
        // the key ([`SchemaModel::stores`]), never taken for a store of the
        // flows: its rows are the effect.
        let claimed = carrier && self.claimed.contains(bare(&t.key));
        if !dedicated && !marked && !weak && !claimed {
            return None;
        }
        // A run, event, delivery or log row that carries a key column
        // records what happened; it is not where the key is kept.
        if !carrier && !dedicated && !weak && stores.is_carrier_table(&t.key) {
            return None;
        }
        // in the order of the words: the first word that names a column wins
        let find = |words: &[String]| -> Option<String> {
            words.iter().find_map(|w| {
                t.columns
                    .iter()
                    .find(|c| c.name == *w || knowledge::snake(&c.name) == *w)
                    .map(|c| c.name.clone())
            })
        };
        // The column code fills from an idempotency header or an event's
        // identity is the key, whatever it is called.
        let derived_column = derived
            .and_then(|u| u.column.as_ref())
            .and_then(|c| t.column(c))
            .map(|c| c.name.clone());
        if let Some(c) = &derived_column {
            if !stores.key_column.request_key.contains(c) && !stores.key_column.event_id.contains(c)
            {
                // only a column no convention names: else the conventions
                // below pick it (and its kind) themselves
                let kind = if derived.is_some_and(|u| u.event) {
                    StoreKind::ProviderEvent
                } else {
                    StoreKind::RequestKey
                };
                let mut s = self.finish_store(t, kind, Some(c.clone()), true);
                s.derived = derived.cloned();
                return Some(s);
            }
        }
        // A provider's event object carries the request that caused it
        // (Stripe's `request.idempotency_key`): on a table of a provider's
        // events that names no event id (dj-stripe's `djstripe_event`), that
        // column is the event's field, not the store's key.
        let request = find(&stores.key_column.request_key).filter(|_| {
            !(dedicated && provider_delivery(t) && find(&stores.key_column.event_id).is_none())
        });
        // A provider's delivery table whose own `id` is text holds the
        // provider's event id there (`stripe_events (id text, …)`): Stripe,
        // Adyen and PayPal ids are strings, a surrogate key is a number or
        // a UUID.
        let event = find(&stores.key_column.event_id).or_else(|| {
            (request.is_none() && (dedicated || weak) && provider_delivery(t))
                .then(|| provider_id_column(t))
                .flatten()
        });
        if !dedicated && !marked && request.is_none() && event.is_none() {
            return None; // a weak name (`inbox_messages`) with no key column
        }
        let eventish = table_words(&stores.event_table, &t.key);
        // An event row that carries both (saleor's `TransactionEvent`:
        // `psp_reference`, `idempotency_key`) is keyed by the one its own
        // unique guards hold: `UNIQUE (transaction_id, idempotency_key)`.
        let own = |c: &String| {
            t.guards
                .iter()
                .chain(t.removed.iter().map(|r| &r.guard))
                .filter(|g| g.key.kind != KeyKind::Index)
                .any(|g| {
                    g.key
                        .parts
                        .iter()
                        .any(|p| p.columns().contains(&c.as_str()))
                })
        };
        let request_guarded = request.as_ref().is_some_and(own);
        let event = event.filter(|e| !request_guarded || own(e));
        let (kind, key) = match (request, event) {
            (_, Some(e)) if eventish => (StoreKind::ProviderEvent, Some(e)),
            (Some(r), _) if !eventish => (StoreKind::RequestKey, Some(r)),
            (Some(r), None) => (StoreKind::ProviderEvent, Some(r)),
            (None, Some(e)) => (StoreKind::ProviderEvent, Some(e)),
            (r, _) => (
                if eventish {
                    StoreKind::ProviderEvent
                } else {
                    StoreKind::RequestKey
                },
                r,
            ),
        };
        let named = key.is_some();
        let mut s = self.finish_store(t, kind, key, dedicated || weak);
        s.derived = derived.cloned();
        // A store whose columns name no key is keyed by what code finds
        // or creates its rows by (`IdempotencyKey.objects.get_or_create(
        // action=.., livemode=..)`).
        let looked = (!named).then(|| self.lookup_key(t)).flatten();
        if let Some(cols) = looked {
            s.scope.retain(|c| !cols.contains(c));
            s.key = cols;
        } else if !named {
            if let Some((key, _)) = per_row_key(t) {
                s.scope.retain(|c| !key.contains(c));
                s.key = key;
            }
        }
        Some(s)
    }

    /// A table that keeps the caller's request id (`create_request_id`)
    /// and whose unique guards all hold a column each insert fills anew:
    /// the key is the rest of such a guard, and nothing refuses a second
    /// row with it. Its findings are notes (its name does not say it keeps
    /// keys). A table the code claims on without a target (`ON CONFLICT
    /// DO NOTHING`) is not judged here: its migrations are read only when
    /// they hold a store word, and a partial history would misjudge it.
    fn request_store(&self, t: &Table) -> Option<Store> {
        let stores = knowledge::stores();
        let carries = t
            .columns
            .iter()
            .any(|c| stores.request_carrier_column.matches(&c.name));
        if !carries {
            return None;
        }
        if t.guards.iter().any(|g| rows_within_minted(t, g)) {
            return None; // a per-run log: `(…, run_id, event_id)` numbers each run's rows
        }
        let (key, _) = per_row_key(t)?;
        let mut s = self.finish_store(t, StoreKind::RequestKey, None, false);
        s.scope.retain(|c| !key.contains(c));
        s.key = key;
        s.note_only = true;
        Some(s)
    }

    /// A store of `t` keyed by `key`: its scope columns, whether the key
    /// is a digest, whether it keeps a response.
    fn finish_store(
        &self,
        t: &Table,
        kind: StoreKind,
        key: Option<String>,
        dedicated: bool,
    ) -> Store {
        let stores = knowledge::stores();
        let scope = t
            .columns
            .iter()
            .filter(|c| {
                Some(&c.name) != key.as_ref()
                    && stores
                        .scope_column
                        .matches_with(&c.name, &c.ty, &self.scope_words)
            })
            .map(|c| c.name.clone())
            .collect();
        let digest = key
            .as_ref()
            .and_then(|k| t.column(k))
            .is_some_and(|c| stores.digest_key.matches(&c.name, &c.ty));
        let keeps_response = t.columns.iter().any(|c| {
            Some(&c.name) != key.as_ref()
                && stores.response_column.matches(&knowledge::snake(&c.name))
        });
        Store {
            kind,
            key: key.into_iter().collect(),
            scope,
            dedicated,
            digest,
            keeps_response,
            note_only: false,
            own_guard: false,
            derived: None,
        }
    }

    /// Whether a table that carries a key column holds (or held, before a
    /// later migration removed it) a full unique guard over that key.
    fn guards_own_key(t: &Table, s: &Store) -> bool {
        let covers = |g: &Guard| {
            g.key.kind != KeyKind::Index
                && g.key.predicate.is_none()
                && g.key.parts.iter().any(|p| reads_only(t, p, &s.key))
        };
        !s.key.is_empty()
            && (t.guards.iter().any(covers) || t.removed.iter().any(|r| covers(&r.guard)))
    }

    /// Tables that no store rule judges (or judges only as notes) but that
    /// hold a unique guard over a column that exists only to guard
    /// (`[guard_column]` of `rules/stores.toml`: `idempotency_key`,
    /// `dedup_key`) split by the table's time partitioning. Whatever the
    /// table is called, that index was written to refuse a replay, and
    /// across partitions it refuses nothing.
    pub fn split_guards(&self) -> Vec<(&Table, Store)> {
        let judged: std::collections::HashSet<&str> = self
            .stores()
            .filter(|(_, s)| !s.note_only)
            .map(|(t, _)| t.key.as_str())
            .collect();
        let words = &knowledge::stores().guard_column;
        let mut out = Vec::new();
        for t in self
            .tables
            .iter()
            .filter(|t| t.partition_of.is_none() && t.partition_by.is_some())
            .filter(|t| !judged.contains(t.key.as_str()))
        {
            for c in t.columns.iter().filter(|c| words.matches(&c.name)) {
                let s = Store {
                    kind: StoreKind::RequestKey,
                    key: vec![c.name.clone()],
                    scope: Vec::new(),
                    dedicated: false,
                    digest: false,
                    keeps_response: false,
                    note_only: false,
                    own_guard: false,
                    derived: None,
                };
                if matches!(s.guarding(t), Guarding::SplitByPartition { .. }) {
                    out.push((t, s));
                    break;
                }
            }
        }
        out
    }

    /// Every store table at the end of its history, with what makes it one.
    /// Partitions (`PARTITION OF`) are left out: their parent is the store.
    ///
    /// A table that only carries a key column (`orders.idempotency_key`,
    /// `task_runs.idempotency_key`) is judged in full when it holds (or
    /// held) a unique guard of its own over the key (`own_guard`). Else it
    /// is left alone when another table guards a column of that name (the
    /// key's guard lives there) or it is a run, event or delivery table, and
    /// any other table's findings are notes.
    pub fn stores(&self) -> impl Iterator<Item = (&Table, Store)> {
        self.stores
            .get_or_init(|| {
                let judged = self
                    .tables
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.partition_of.is_none())
                    .filter_map(|(i, t)| {
                        let store = self.store(t);
                        let carrier = store.is_none();
                        store
                            .or_else(|| self.store_of(t, true).filter(|s| !s.dedicated))
                            .map(|s| (i, t, s, carrier))
                    })
                    .filter_map(|(i, t, mut s, carrier)| {
                        if !s.dedicated {
                            if Self::guards_own_key(t, &s) || self.claimed.contains(bare(&t.key)) {
                                s.own_guard = true;
                            } else if self.guarded_elsewhere(t, &s.key) || carrier {
                                return None;
                            } else {
                                s.note_only = true;
                            }
                        }
                        Some((i, s))
                    })
                    .collect::<Vec<_>>();
                let requests: Vec<(usize, Store)> = self
                    .request_stores()
                    .into_iter()
                    .filter(|(i, _)| !judged.iter().any(|(j, _)| j == i))
                    .collect();
                judged.into_iter().chain(requests).collect()
            })
            .iter()
            .map(|(i, s)| (&self.tables[*i], s.clone()))
    }

    /// [`SchemaModel::request_store`] of every table that is no store
    /// otherwise (or one with no key column).
    fn request_stores(&self) -> Vec<(usize, Store)> {
        self.tables
            .iter()
            .enumerate()
            .filter(|(_, t)| t.partition_of.is_none())
            .filter(|(_, t)| {
                let known = self
                    .store(t)
                    .or_else(|| self.store_of(t, true).filter(|s| !s.dedicated));
                known.is_none_or(|s| s.key.is_empty() && !s.dedicated)
            })
            .filter_map(|(i, t)| self.request_store(t).map(|s| (i, s)))
            .collect()
    }

    /// Whether a table other than `t` has a unique guard over a column
    /// named like one of `key`. A guard that a time partition splits
    /// (`UNIQUE (idempotency_key, created_at)` of a table partitioned by
    /// `created_at`) or that adds a time column guards nothing.
    fn guarded_elsewhere(&self, t: &Table, key: &[String]) -> bool {
        let key: Vec<String> = key.iter().map(|k| knowledge::snake(k)).collect();
        self.tables
            .iter()
            .filter(|o| !std::ptr::eq(*o, t) && o.key != t.key)
            .any(|o| {
                o.columns
                    .iter()
                    .filter(|c| key.contains(&knowledge::snake(&c.name)))
                    .any(|c| {
                        let s = Store {
                            kind: StoreKind::RequestKey,
                            key: vec![c.name.clone()],
                            scope: Vec::new(),
                            dedicated: false,
                            digest: false,
                            keeps_response: false,
                            note_only: false,
                            own_guard: false,
                            derived: None,
                        };
                        matches!(s.guarding(o), Guarding::Guarded(_) | Guarding::Partial(_))
                    })
            })
    }

    /// The `ON CONFLICT (cols)` targets of the code whose table one history
    /// alone defines and which no unique guard of it matches: PostgreSQL
    /// takes as arbiter only a unique index or constraint over exactly the
    /// target's columns (in any order), so the insert fails, and nothing
    /// refuses a second row with those values. A table several histories
    /// define (two services' `events`) is not judged, nor one whose
    /// `CREATE TABLE` file holds a statement no dialect reads.
    pub fn unguarded_conflicts(&self) -> Vec<(&ConflictUse, &Table)> {
        let mut out = Vec::new();
        for c in &self.conflicts {
            let defined: Vec<&Table> = self
                .tables
                .iter()
                .filter(|t| bare(&t.key).eq_ignore_ascii_case(bare(self.resolve(&c.target.table))))
                .collect();
            // A Python model and the migrations made from it (SQLAlchemy
            // and Alembic, Django's model and its migrations) define one
            // table twice: each state is judged, as the next migration
            // makes the model's.
            let one_project = defined.iter().all(|t| {
                matches!(
                    t.declared_by,
                    Some(SchemaCode::SqlAlchemy | SchemaCode::Alembic | SchemaCode::Django)
                )
            });
            if defined.len() != 1 && !one_project {
                continue;
            }
            if let Some(t) = defined.iter().find(|t| !self.arbiter(c, t)) {
                out.push((c, *t));
            }
        }
        out
    }

    /// Of [`SchemaModel::unguarded_conflicts`], those whose target holds
    /// the caller's scope (`organization_id`) beside columns a unique guard
    /// of the table holds without it: the code dedups per owner, the guard
    /// across owners. The guard and the scope columns it leaves out.
    pub fn unscoped_conflicts(&self) -> Vec<(&ConflictUse, &Table, &Guard, Vec<String>)> {
        let words = &knowledge::stores().scope_column;
        let mut out = Vec::new();
        for (c, t) in self.unguarded_conflicts() {
            let (scope, rest): (Vec<&String>, Vec<&String>) =
                c.target.columns.iter().partition(|name| {
                    t.column(name).is_some_and(|col| {
                        words.matches_with(&col.name, &col.ty, &self.scope_words)
                    })
                });
            if scope.is_empty() || rest.is_empty() {
                continue;
            }
            let mut want: Vec<&str> = rest.iter().map(|s| s.as_str()).collect();
            want.sort_unstable();
            want.dedup();
            let guard = t.guards.iter().find(|g| {
                let mut have: Vec<&str> = g.key.parts.iter().flat_map(|p| p.columns()).collect();
                have.sort_unstable();
                have.dedup();
                g.key.kind != KeyKind::Index && have == want
            });
            if let Some(g) = guard {
                out.push((c, t, g, scope.into_iter().cloned().collect()));
            }
        }
        out
    }

    /// Whether `t` has the unique guard an `ON CONFLICT` target names, or
    /// is not judged (a partition, a column the table lacks, a file with
    /// statements no dialect reads).
    fn arbiter(&self, c: &ConflictUse, t: &Table) -> bool {
        let known = c
            .target
            .columns
            .iter()
            .all(|name| t.columns.iter().any(|col| col.name == *name));
        if t.partition_of.is_some() || !known || self.unread.contains(&t.created.file) {
            return true;
        }
        let mut want: Vec<&str> = c.target.columns.iter().map(String::as_str).collect();
        want.sort_unstable();
        want.dedup();
        t.guards.iter().any(|g| {
            g.key.kind != KeyKind::Index && {
                let mut have: Vec<&str> = g.key.parts.iter().flat_map(|p| p.columns()).collect();
                have.sort_unstable();
                have.dedup();
                have == want
            }
        })
    }

    /// The table a name refers to (as written: quoted, schema-qualified or
    /// not), the last history's definition when several define it.
    pub fn find_table(&self, name: &str) -> Option<&Table> {
        // A Prisma model's name keeps its case (`Transfer`), as its
        // accessor resolves to it; SQL's unquoted names are lowered.
        let resolved = self.resolve(name);
        let key = norm_decl(resolved);
        self.tables.iter().rev().find(|t| {
            t.key == key
                || bare(&t.key) == bare(&key)
                || t.key == resolved
                || bare(&t.key) == bare(resolved)
        })
    }

    /// Whether a table named `key` (normalised) is a store: by its
    /// definition when some history defines it, else by its name.
    pub fn is_store_name(&self, key: &str) -> bool {
        let key = self.resolve(key);
        let defined: Vec<&Table> = self
            .tables
            .iter()
            .filter(|t| t.key == key || bare(&t.key) == bare(key))
            .collect();
        if !defined.is_empty() {
            return defined.iter().any(|t| self.store(t).is_some());
        }
        match self
            .declared
            .get(key)
            .or_else(|| self.declared.get(bare(key)))
        {
            Some(d) => *d,
            None => knowledge::stores().is_store_table(key),
        }
    }

    /// Whether code claims rows of `t` by a key: an insert whose `ON
    /// CONFLICT (cols)` target (SQL in a string, SQLAlchemy's
    /// `on_conflict_do_nothing(index_elements=..)`) one of `t`'s unique
    /// guards holds exactly, on a table named for events or deliveries
    /// (`[event_table]` of rules/stores.toml). PostgreSQL takes only such a
    /// guard as the insert's arbiter: its columns are the key the table
    /// records deliveries by (polar's `external_events`, `UNIQUE (source,
    /// external_id)`), whatever they are called. Neither the name nor the
    /// insert alone makes it: an event log upserted by its own `id` is
    /// named so too.
    pub fn claims_delivery_key(&self, t: &Table) -> bool {
        if !table_words(&knowledge::stores().event_table, &t.key) {
            return false;
        }
        self.conflicts.iter().any(|c| {
            let mut want: Vec<&str> = c.target.columns.iter().map(String::as_str).collect();
            want.sort_unstable();
            want.dedup();
            self.find_table(&c.target.table)
                .is_some_and(|f| f.key == t.key)
                && t.guards.iter().any(|g| {
                    g.key.kind != KeyKind::Index && {
                        let mut have: Vec<&str> =
                            g.key.parts.iter().flat_map(|p| p.columns()).collect();
                        have.sort_unstable();
                        have.dedup();
                        have == want
                    }
                })
        })
    }

    /// Whether some history partitions the table `key` by RANGE or LIST,
    /// so old rows can go by dropping whole partitions (HASH partitions
    /// cannot be dropped by age).
    pub fn has_droppable_partitions(&self, key: &str) -> bool {
        self.tables
            .iter()
            .filter(|t| t.key == key || bare(&t.key) == bare(key))
            .filter_map(|t| t.partition_by.as_ref())
            .any(|(p, _)| matches!(p.method, PartitionMethod::Range | PartitionMethod::List))
    }
}

/// Whether a read filters on a key column (`idempotencyKey`, `eventId`).
fn key_read(columns: &[String]) -> bool {
    let keys = &knowledge::stores().key_column;
    columns.iter().any(|c| {
        let c = knowledge::snake(c);
        keys.marks_store.contains(&c) || keys.event_id.contains(&c) || keys.request_key.contains(&c)
    })
}

/// Whether a key part reads only key columns (`key`, `lower(key)`).
/// Whether a key part reads only `cols`, a generated column standing for the
/// columns its expression reads (`key_lower GENERATED ALWAYS AS
/// (lower(idempotency_key))` reads `idempotency_key`).
fn reads_only(t: &Table, part: &crate::facts::store::KeyPart, cols: &[String]) -> bool {
    let read: Vec<&str> = part
        .columns()
        .into_iter()
        .flat_map(
            |c| match t.column(c).and_then(|col| col.generated.as_ref()) {
                Some(g) if !g.is_empty() => g.iter().map(String::as_str).collect(),
                _ => vec![c],
            },
        )
        .collect();
    !read.is_empty() && read.iter().all(|c| cols.iter().any(|k| k == c))
}

/// A column that holds a time: its type says so, or its name
/// (`created_at`, `received_on`) when the type is unknown.
pub(super) fn is_time_column(t: &Table, name: &str) -> bool {
    match t.column(name) {
        Some(c) => {
            let ty = c.ty.to_ascii_uppercase();
            ty.contains("TIME") || ty.starts_with("DATE")
        }
        None => name.ends_with("_at") || name.ends_with("_on"),
    }
}

/// A column each insert fills anew: an id minted for the row
/// (`[per_row_column]` of `rules/stores.toml`: `run_id`, a
/// `gen_random_uuid()` default, a serial) or a time the clock fills
/// (`DEFAULT now()`).
pub fn minted(t: &Table, name: &str) -> bool {
    let words = &knowledge::stores().per_row_column;
    let Some(c) = t.column(name) else {
        return words.names.contains(&knowledge::snake(name));
    };
    let clock = [
        "now()",
        "current_timestamp",
        "clock_timestamp",
        "localtimestamp",
        "sysdate",
        "getdate",
        "'now'",
    ];
    let default = c
        .default
        .as_deref()
        .unwrap_or_default()
        .to_ascii_lowercase();
    words.matches(&c.name, &c.ty, c.default.as_deref())
        || (is_time_column(t, name) && clock.iter().any(|w| default.contains(w)))
}

/// When every unique guard of `t` holds a column each insert fills anew
/// ([`minted`]): the other columns of the first such guard that has some
/// (the key it was meant to guard), and the minted ones. `None` when some
/// guard holds none (it guards), or a guard is partial or has no plain
/// column besides.
pub fn per_row_key(t: &Table) -> Option<(Vec<String>, Vec<String>)> {
    let mut found = None;
    for g in t.guards.iter().filter(|g| g.key.kind != KeyKind::Index) {
        if g.key.predicate.is_some() {
            return None;
        }
        let cols: Vec<&str> = g.key.parts.iter().flat_map(|p| p.columns()).collect();
        let (new, rest): (Vec<&str>, Vec<&str>) = cols.iter().partition(|c| minted(t, c));
        if new.is_empty() {
            return None;
        }
        if !rest.is_empty() && found.is_none() {
            let own = |v: Vec<&str>| v.into_iter().map(str::to_string).collect::<Vec<_>>();
            found = Some((own(rest), own(new)));
        }
    }
    found
}

/// A guard that numbers rows within a minted id (`(workflow_id, run_id,
/// event_id)`): each run has many rows by design, a log of runs, not a
/// claim on a request.
fn rows_within_minted(t: &Table, g: &Guard) -> bool {
    if g.key.kind == KeyKind::Index {
        return false;
    }
    let cols: Vec<&str> = g.key.parts.iter().flat_map(|p| p.columns()).collect();
    cols.iter()
        .position(|c| minted(t, c))
        .is_some_and(|i| cols[i + 1..].iter().any(|c| !minted(t, c)))
}

/// A partial predicate that excludes no row that could collide:
/// `WHERE key IS NOT NULL` (NULLs never collide anyway).
fn harmless_predicate(pred: &str, key: &[String]) -> bool {
    let p = pred
        .trim()
        .trim_matches(|c| c == '(' || c == ')')
        .to_ascii_lowercase();
    let p: Vec<&str> = p.split_whitespace().collect();
    matches!(p.as_slice(), [col, "is", "not", "null"] if key.iter().any(|k| k == col.trim_matches('"')))
}

impl Store {
    /// How the key is guarded in `t`.
    pub fn guarding<'a>(&self, t: &'a Table) -> Guarding<'a> {
        if self.key.is_empty() {
            return Guarding::Missing;
        }
        let partition_cols: &[String] = t
            .partition_by
            .as_ref()
            .map(|(p, _)| p.columns.as_slice())
            .unwrap_or(&[]);
        let mut partial = None;
        let mut split = None;
        for g in t.guards.iter().filter(|g| g.key.kind != KeyKind::Index) {
            let parts = &g.key.parts;
            if !parts.iter().any(|p| reads_only(t, p, &self.key)) {
                continue;
            }
            // Columns beside the key: a caller scope (account_id), a
            // composite provider identity (psp_reference, event_code) or a
            // partition column the request determines (tenant_id) still
            // guard the key; a time column does not, since a replay carries
            // a new time.
            let extra: Vec<&str> = parts
                .iter()
                .filter(|p| !reads_only(t, p, &self.key))
                .flat_map(|p| p.columns())
                .filter(|c| is_time_column(t, c) || minted(t, c))
                .collect();
            let full = g
                .key
                .predicate
                .as_deref()
                .is_none_or(|p| harmless_predicate(p, &self.key));
            if extra.is_empty() {
                if full {
                    return Guarding::Guarded(g);
                }
                partial.get_or_insert(g);
            } else if extra.iter().all(|c| partition_cols.iter().any(|p| p == c)) {
                split.get_or_insert((g, extra.iter().map(|c| c.to_string()).collect()));
            }
        }
        if let Some((guard, columns)) = split {
            return Guarding::SplitByPartition { guard, columns };
        }
        match partial {
            Some(g) => Guarding::Partial(g),
            None => Guarding::Missing,
        }
    }

    /// A non-unique index whose first part is the key: it looks like a
    /// guard to a reader and is not one.
    pub fn plain_index<'a>(&self, t: &'a Table) -> Option<&'a Guard> {
        t.guards.iter().find(|g| {
            g.key.kind == KeyKind::Index
                && g.key
                    .parts
                    .first()
                    .is_some_and(|p| reads_only(t, p, &self.key))
        })
    }

    /// The latest removal of a guard that did cover the key.
    pub fn last_removed<'a>(&self, t: &'a Table) -> Option<&'a Removed> {
        t.removed.iter().rev().find(|r| {
            r.guard.key.kind != KeyKind::Index
                && r.guard.key.predicate.is_none()
                && r.guard
                    .key
                    .parts
                    .iter()
                    .any(|p| reads_only(t, p, &self.key))
        })
    }
}

/// Replays one history.
struct Replay {
    history: usize,
    /// `None` once dropped.
    tables: Vec<Option<Table>>,
}

impl Replay {
    fn find(&mut self, name: &Name) -> Option<&mut Table> {
        self.tables
            .iter_mut()
            .flatten()
            .rev()
            .find(|t| t.key == name.key)
    }

    fn apply(&mut self, file: FileId, ev: &SchemaEvent) {
        let statement = Origin {
            file,
            span: ev.span,
        };
        let guard = |k: &Key| Guard {
            key: k.clone(),
            at: Origin { file, span: k.span },
            statement,
        };
        match &ev.kind {
            SchemaChange::CreateTable(ct) => {
                if self.find(&ct.name).is_some() {
                    if ct.if_not_exists {
                        return;
                    }
                    // Recreated: the old one is gone.
                    for t in &mut self.tables {
                        if t.as_ref().is_some_and(|t| t.key == ct.name.key) {
                            *t = None;
                        }
                    }
                }
                self.tables.push(Some(Table {
                    name: ct.name.text.clone(),
                    key: ct.name.key.clone(),
                    history: self.history,
                    created: Origin {
                        file,
                        span: ct.name.span,
                    },
                    columns: ct.columns.clone(),
                    guards: ct.keys.iter().map(guard).collect(),
                    removed: Vec::new(),
                    partition_by: ct.partition_by.clone().map(|p| (p, file)),
                    partition_of: ct.partition_of.as_ref().map(|p| p.key.clone()),
                    prisma: None,
                    unmigrated: Vec::new(),
                    declared_by: ct.declared_by,
                    fields: ct.fields.clone(),
                }));
            }
            SchemaChange::CreateIndex(ci) => {
                if let Some(t) = self.find(&ci.table) {
                    if ci.if_not_exists && t.guards.iter().any(|g| g.key.name == ci.key.name) {
                        return;
                    }
                    t.guards.push(guard(&ci.key));
                }
            }
            SchemaChange::AlterTable { table, ops } => {
                for op in ops {
                    if let AlterOp::AttachPartition(child) = op {
                        if let Some(c) = self.find(child) {
                            c.partition_of = Some(table.key.clone());
                        }
                    }
                }
                let Some(t) = self.find(table) else {
                    return;
                };
                for op in ops {
                    alter(t, op, file, statement, &guard);
                }
            }
            SchemaChange::DropIndex { names } => {
                for n in names {
                    for t in self.tables.iter_mut().flatten() {
                        remove_guards(t, |g| g.key.name == bare(&n.key), file, n.span, statement);
                    }
                }
            }
            SchemaChange::DropTable { names } => {
                for n in names {
                    for t in &mut self.tables {
                        if t.as_ref().is_some_and(|t| t.key == n.key) {
                            *t = None;
                        }
                    }
                }
            }
            SchemaChange::RenameIndex { from, to } => {
                for t in self.tables.iter_mut().flatten() {
                    for g in t
                        .guards
                        .iter_mut()
                        .filter(|g| g.key.name == bare(&from.key))
                    {
                        g.key.name = bare(&to.key).to_string();
                    }
                }
            }
            SchemaChange::Delete(_) => {}
        }
    }
}

fn remove_guards(
    t: &mut Table,
    matches: impl Fn(&Guard) -> bool,
    file: FileId,
    at: Span,
    statement: Origin,
) {
    let (gone, kept): (Vec<Guard>, Vec<Guard>) = t.guards.drain(..).partition(|g| matches(g));
    t.guards = kept;
    for g in gone {
        t.removed.push(Removed {
            guard: g,
            at: Origin { file, span: at },
            statement,
            by_schema: false,
        });
    }
}

fn alter(
    t: &mut Table,
    op: &AlterOp,
    file: FileId,
    statement: Origin,
    guard: &dyn Fn(&Key) -> Guard,
) {
    match op {
        AlterOp::AddColumn(c) => {
            if t.column(&c.name).is_none() {
                t.columns.push(c.clone());
            }
        }
        AlterOp::DropColumn { name, span } => {
            t.columns.retain(|c| &c.name != name);
            // PostgreSQL drops every index and constraint on the column.
            remove_guards(
                t,
                |g| {
                    g.key
                        .parts
                        .iter()
                        .any(|p| p.columns().contains(&name.as_str()))
                },
                file,
                *span,
                statement,
            );
        }
        AlterOp::RenameColumn { from, to } => {
            if let Some(c) = t.columns.iter_mut().find(|c| &c.name == from) {
                c.name = to.clone();
            }
            for g in &mut t.guards {
                for p in &mut g.key.parts {
                    match p {
                        crate::facts::store::KeyPart::Column(c) if c == from => *c = to.clone(),
                        crate::facts::store::KeyPart::Expr { columns, .. } => {
                            for c in columns.iter_mut().filter(|c| *c == from) {
                                *c = to.clone();
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        AlterOp::SetNotNull { column, not_null } => {
            if let Some(c) = t.columns.iter_mut().find(|c| &c.name == column) {
                c.not_null = *not_null;
            }
        }
        AlterOp::AddKey(k) => {
            // a key over a Django field (`unique_together` of
            // `AlterUniqueTogether` names `product` for `product_id`)
            let mut k = k.clone();
            for p in &mut k.parts {
                if let KeyPart::Column(c) = p {
                    if t.column(c).is_none() {
                        if let Some((col, _)) = t.fields.iter().find(|(_, f)| f == c) {
                            c.clone_from(col);
                        }
                    }
                }
            }
            t.guards.push(guard(&k));
        }
        AlterOp::DropConstraint { name, span } => {
            remove_guards(t, |g| &g.key.name == name, file, *span, statement);
        }
        AlterOp::DropPrimaryKey { span } => {
            remove_guards(
                t,
                |g| g.key.kind == KeyKind::PrimaryKey,
                file,
                *span,
                statement,
            );
        }
        AlterOp::DropIndex { name, span } => {
            remove_guards(t, |g| &g.key.name == name, file, *span, statement);
        }
        AlterOp::RenameConstraint { from, to } => {
            for g in t.guards.iter_mut().filter(|g| &g.key.name == from) {
                g.key.name = to.clone();
            }
        }
        AlterOp::PromoteIndex {
            index,
            name,
            primary,
        } => {
            for g in t.guards.iter_mut().filter(|g| &g.key.name == index) {
                if let Some(n) = name {
                    g.key.name = n.clone();
                }
                if *primary {
                    g.key.kind = KeyKind::PrimaryKey;
                }
            }
        }
        AlterOp::RenameTable(n) => {
            t.name = n.text.clone();
            t.key = n.key.clone();
        }
        // applied to the child by the replay
        AlterOp::AttachPartition(_) => {}
    }
}

/// Whether a column holds a key a lookup-then-create dedupes on
/// (`[lookup_key_column]` of `rules/stores.toml`): a request's idempotency
/// key, a provider event's id or a provider object's id (`invoice_id`: a
/// webhook's effect recorded once per object).
pub(super) fn keyish(column: &str) -> bool {
    knowledge::stores().lookup_key_column.matches(column)
}

/// Whether a guard is over a key a replay repeats: a request key or event
/// id column (`[key_column]`), a key a lookup dedupes on, a column that
/// exists only to guard, a caller's reference, or a column named for
/// uniqueness (`unique_reference_id`, `[guard_index_name]`).
pub fn keyed_guard(t: &Table, g: &Guard) -> bool {
    let s = knowledge::stores();
    g.key.parts.iter().flat_map(|p| p.columns()).any(|c| {
        let ty = t.column(c).map_or("", |c| c.ty.as_str());
        s.key_column.request_key.iter().any(|k| k == c)
            || s.key_column.event_id.iter().any(|k| k == c)
            || s.lookup_key_column.matches(c)
            || s.guard_column.matches(c)
            || s.caller_key_column.matches(c, ty)
            || s.guard_index_name.matches(c)
    })
}

/// Whether a table has a column code may look a key up by: the code that
/// names it is read for its lookups and creates.
pub fn carries_key(t: &Table) -> bool {
    t.columns.iter().any(|c| keyish(&c.name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileKind, SourceFile};

    fn model(files: &[(&str, &str)], config: &Config) -> (SchemaModel, SourceMap) {
        let mut sources = SourceMap::default();
        let mut facts = Vec::new();
        for (i, (path, text)) in files.iter().enumerate() {
            sources
                .files
                .push(SourceFile::new(*path, FileKind::Sql, *text));
            facts.push(crate::frontend::parse(i, FileKind::Sql, text));
        }
        (SchemaModel::build(&facts, &sources, config), sources)
    }

    fn only_table(m: &SchemaModel) -> &Table {
        assert_eq!(m.tables.len(), 1, "{:?}", m.tables);
        &m.tables[0]
    }

    /// The stores are judged once and kept, and judged again once the code
    /// says which tables it treats as key stores.
    #[test]
    fn stores_are_judged_again_once_treated_tables_are_known() {
        let (sources, facts) = crate::model::parsed(&[
            (
                "migrations/0001.sql",
                FileKind::Sql,
                "CREATE TABLE payments (id bigserial PRIMARY KEY, idempotency_key text NOT NULL);",
            ),
            (
                "src/pay.rs",
                FileKind::Rust,
                "async fn pay(db: &PgPool, key: &str) {\n    sqlx::query(\"INSERT INTO payments (idempotency_key) VALUES ($1) ON CONFLICT DO NOTHING\").bind(key).execute(db).await;\n}\n",
            ),
        ]);
        let mut m = SchemaModel::build(&facts, &sources, &Config::default());
        let dedicated = |m: &SchemaModel| {
            m.stores()
                .map(|(t, s)| (t.key.clone(), s.dedicated))
                .collect::<Vec<_>>()
        };
        assert_eq!(dedicated(&m), [("payments".to_string(), false)]);
        assert_eq!(dedicated(&m), [("payments".to_string(), false)], "kept");
        m.mark_treated_as_stores(&facts);
        assert_eq!(dedicated(&m), [("payments".to_string(), true)]);
    }

    /// `ON CONFLICT (idempotency_key) DO UPDATE` leans on a guard over the
    /// key: the run table is the key's store even when another table
    /// guards a column of that name; an upsert on another target is not.
    #[test]
    fn an_upsert_on_the_key_column_makes_a_carrier_the_store() {
        let schema = "CREATE TABLE api_keys (tenant_id uuid, idempotency_key text, PRIMARY KEY (tenant_id, idempotency_key));\n\
                      CREATE TABLE payout_runs (id bigserial PRIMARY KEY, idempotency_key text NOT NULL);";
        let judged = |sql: &str| {
            let code =
                format!("async fn f(db: &PgPool) {{ sqlx::query(\"{sql}\").execute(db).await; }}");
            let (sources, facts) = crate::model::parsed(&[
                ("migrations/0001.sql", FileKind::Sql, schema),
                ("src/pay.rs", FileKind::Rust, &code),
            ]);
            let mut m = SchemaModel::build(&facts, &sources, &Config::default());
            m.mark_treated_as_stores(&facts);
            let found = m
                .stores()
                .any(|(t, s)| t.key == "payout_runs" && s.dedicated);
            found
        };
        assert!(judged("INSERT INTO payout_runs (idempotency_key) VALUES ($1) ON CONFLICT (idempotency_key) DO UPDATE SET idempotency_key = EXCLUDED.idempotency_key"));
        assert!(!judged("INSERT INTO payout_runs (id, idempotency_key) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET idempotency_key = EXCLUDED.idempotency_key"));
    }

    #[test]
    fn unique_index_added_in_a_later_migration_guards_the_key() {
        let (m, _) = model(
            &[
                ("migrations/0002_idx.sql", "CREATE UNIQUE INDEX CONCURRENTLY idem_key_uniq ON idempotency_keys (idempotency_key);"),
                ("migrations/0001_init.sql", "CREATE TABLE idempotency_keys (id bigserial PRIMARY KEY, idempotency_key text NOT NULL);"),
            ],
            &Config::default(),
        );
        let t = only_table(&m);
        let s = m.store(t).expect("a store");
        assert_eq!(s.key, vec!["idempotency_key".to_string()]);
        assert!(matches!(s.guarding(t), Guarding::Guarded(g) if g.key.name == "idem_key_uniq"));
    }

    #[test]
    fn attached_partition_is_not_a_store_of_its_own() {
        let sql = "CREATE TABLE webhook_events (event_id text NOT NULL, received_at timestamptz NOT NULL) PARTITION BY RANGE (received_at);\n\
                   CREATE TABLE webhook_events_2024_01 (event_id text NOT NULL, received_at timestamptz NOT NULL);\n\
                   ALTER TABLE ONLY webhook_events ATTACH PARTITION webhook_events_2024_01 FOR VALUES FROM ('2024-01-01') TO ('2024-02-01');\n\
                   ALTER INDEX webhook_events_pkey ATTACH PARTITION webhook_events_2024_01_pkey;";
        let (m, _) = model(&[("db/structure.sql", sql)], &Config::default());
        let stores: Vec<&str> = m.stores().map(|(t, _)| t.key.as_str()).collect();
        assert_eq!(stores, vec!["webhook_events"]);
        let child = m
            .find_table("webhook_events_2024_01")
            .expect("the partition");
        assert_eq!(child.partition_of.as_deref(), Some("webhook_events"));
    }

    #[test]
    fn constraint_dropped_later_is_removed_and_remembered_at_the_drop() {
        let drop =
            "ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_idempotency_key_key;";
        let (m, _) = model(
            &[
                ("migrations/1_init.up.sql", "CREATE TABLE idempotency_keys (idempotency_key text UNIQUE);"),
                ("migrations/2_drop.up.sql", drop),
                ("migrations/2_drop.down.sql", "ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_idempotency_key_key UNIQUE (idempotency_key);"),
            ],
            &Config::default(),
        );
        let t = only_table(&m);
        let s = m.store(t).expect("a store");
        assert!(matches!(s.guarding(t), Guarding::Missing));
        let r = s.last_removed(t).expect("a removal");
        assert_eq!(r.at.file, 1);
        assert_eq!(
            &drop[r.at.span.start..r.at.span.end],
            "idempotency_keys_idempotency_key_key"
        );
    }

    #[test]
    fn index_promoted_to_a_constraint_is_dropped_by_the_constraint_name() {
        let (m, _) = model(
            &[(
                "structure.sql",
                "CREATE TABLE idempotency_keys (idempotency_key text NOT NULL, request_hash bytea);\n\
                 CREATE UNIQUE INDEX CONCURRENTLY idem_key_idx ON idempotency_keys (idempotency_key);\n\
                 ALTER TABLE idempotency_keys ADD CONSTRAINT idem_key_uniq UNIQUE USING INDEX idem_key_idx;\n\
                 ALTER TABLE idempotency_keys DROP CONSTRAINT idem_key_uniq;",
            )],
            &Config::default(),
        );
        let t = only_table(&m);
        let s = m.store(t).expect("a store");
        assert!(matches!(s.guarding(t), Guarding::Missing));
        assert_eq!(
            s.last_removed(t).map(|r| r.guard.key.name.as_str()),
            Some("idem_key_uniq")
        );
    }

    #[test]
    fn renamed_table_and_column_keep_their_guard() {
        let (m, _) = model(
            &[(
                "schema.sql",
                "CREATE TABLE idem (k text, PRIMARY KEY (k));\nALTER TABLE idem RENAME COLUMN k TO idempotency_key;\nALTER TABLE idem RENAME TO idempotency_requests;",
            )],
            &Config::default(),
        );
        let t = only_table(&m);
        assert_eq!(t.key, "idempotency_requests");
        let s = m.store(t).expect("a store");
        assert!(matches!(s.guarding(t), Guarding::Guarded(_)));
    }

    #[test]
    fn partitioned_table_with_key_and_partition_column_is_split() {
        let (m, _) = model(
            &[(
                "schema.sql",
                "create table payment_idempotency (key uuid not null, created_at timestamptz not null, unique (key, created_at)) partition by range (created_at);",
            )],
            &Config::default(),
        );
        let t = only_table(&m);
        let s = m.store(t).expect("a store");
        assert!(
            matches!(s.guarding(t), Guarding::SplitByPartition { columns, .. } if columns == vec!["created_at".to_string()])
        );
    }

    #[test]
    fn tenant_partitioned_table_guarded_per_tenant_is_guarded() {
        let (m, _) = model(
            &[(
                "schema.sql",
                "CREATE TABLE idempotency_keys (tenant_id bigint NOT NULL, idempotency_key text NOT NULL, request_hash bytea, created_at timestamptz NOT NULL, PRIMARY KEY (tenant_id, idempotency_key)) PARTITION BY LIST (tenant_id);",
            )],
            &Config::default(),
        );
        let t = only_table(&m);
        let s = m.store(t).expect("a store");
        assert!(matches!(s.guarding(t), Guarding::Guarded(_)));
    }

    #[test]
    fn unique_with_a_timestamp_on_an_unpartitioned_table_is_no_guard() {
        let (m, _) = model(
            &[(
                "schema.sql",
                "CREATE TABLE idempotency_keys (idempotency_key text NOT NULL, created_at timestamptz NOT NULL, UNIQUE (idempotency_key, created_at));",
            )],
            &Config::default(),
        );
        let t = only_table(&m);
        let s = m.store(t).expect("a store");
        assert!(matches!(s.guarding(t), Guarding::Missing));
    }

    fn judged(m: &SchemaModel) -> Vec<(String, Store)> {
        m.stores().map(|(t, s)| (t.key.clone(), s)).collect()
    }

    #[test]
    fn a_table_that_only_carries_a_key_is_a_note_unless_another_table_guards_it() {
        let alone = "CREATE TABLE orders (id uuid PRIMARY KEY, idempotency_key text);";
        let (m, _) = model(&[("schema.sql", alone)], &Config::default());
        let stores = judged(&m);
        assert_eq!(stores.len(), 1);
        assert!(stores[0].1.note_only && !stores[0].1.dedicated);

        let beside = "CREATE TABLE orders (id uuid PRIMARY KEY, idempotency_key text);\n\
                      CREATE TABLE refunds (id uuid PRIMARY KEY, idempotency_key text UNIQUE);";
        let (m, _) = model(&[("schema.sql", beside)], &Config::default());
        let names: Vec<String> = judged(&m).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, vec!["refunds".to_string()]);
    }

    #[test]
    fn runs_events_and_logs_that_carry_a_key_are_not_stores() {
        for table in [
            "task_runs",
            "TaskRun",
            "webhook_deliveries",
            "job_event_log",
            "v1_runs_olap",
        ] {
            let sql =
                format!("CREATE TABLE \"{table}\" (id bigint PRIMARY KEY, idempotency_key text);");
            let (m, _) = model(&[("schema.sql", &sql)], &Config::default());
            assert!(m.store(only_table(&m)).is_none(), "{table}");
        }
    }

    #[test]
    fn provider_event_tables_are_stores_by_name() {
        let (m, _) = model(
            &[(
                "schema.sql",
                "CREATE TABLE stripe_events (id text PRIMARY KEY, event_id text NOT NULL UNIQUE);",
            )],
            &Config::default(),
        );
        let s = m.store(only_table(&m)).expect("a store");
        assert!(s.dedicated);
        assert_eq!(s.kind, StoreKind::ProviderEvent);
    }

    #[test]
    fn scope_is_an_owner_identifier_never_a_flag_a_time_or_free_text() {
        let sql = "CREATE TABLE api_idempotency_keys (key text PRIMARY KEY, \
                   \"userProvidedIdempotencyKey\" boolean, \"runtimeEnvironmentId\" text, \
                   organization_name text, account_created_at timestamptz, tenant_uuid uuid);";
        let (m, _) = model(&[("schema.sql", sql)], &Config::default());
        let s = m.store(only_table(&m)).expect("a store");
        assert_eq!(
            s.scope,
            vec![
                "runtimeEnvironmentId".to_string(),
                "tenant_uuid".to_string()
            ]
        );
    }

    #[test]
    fn a_binary_or_hash_named_key_is_a_digest_and_a_table_without_response_is_pure_dedup() {
        let sql = "CREATE TABLE idempotency_records (idempotency_key bytea PRIMARY KEY, resource_id uuid);";
        let (m, _) = model(&[("schema.sql", sql)], &Config::default());
        let s = m.store(only_table(&m)).expect("a store");
        assert!(s.digest && s.keeps_response);
        let sql = "CREATE TABLE dedup_keys (tenant_id uuid, key text, expires_at timestamptz, PRIMARY KEY (tenant_id, key));";
        let (m, _) = model(&[("schema.sql", sql)], &Config::default());
        let s = m.store(only_table(&m)).expect("a store");
        assert!(!s.digest && !s.keeps_response);
    }

    #[test]
    fn webhook_table_is_a_provider_event_store_keyed_by_event_id() {
        let (m, _) = model(
            &[("schema.sql", "CREATE TABLE stripe_webhook_events (id bigserial PRIMARY KEY, event_id text NOT NULL UNIQUE, payload jsonb);")],
            &Config::default(),
        );
        let t = only_table(&m);
        let s = m.store(t).expect("a store");
        assert_eq!(s.kind, StoreKind::ProviderEvent);
        assert_eq!(s.key, vec!["event_id".to_string()]);
        assert!(matches!(s.guarding(t), Guarding::Guarded(_)));
    }

    #[test]
    fn config_adds_and_excludes_stores() {
        let config = Config {
            store: vec![
                crate::config::StoreDecl {
                    table: Some("payment_requests".into()),
                    store: true,
                    ..Default::default()
                },
                crate::config::StoreDecl {
                    table: Some("public.dedup_cache".into()),
                    store: false,
                    ..Default::default()
                },
            ],
            ..Config::default()
        };
        let (m, _) = model(
            &[(
                "schema.sql",
                "CREATE TABLE payment_requests (request_id text PRIMARY KEY);\nCREATE TABLE dedup_cache (key text);",
            )],
            &config,
        );
        let stores: Vec<&str> = m
            .tables
            .iter()
            .filter(|t| m.store(t).is_some())
            .map(|t| t.key.as_str())
            .collect();
        assert_eq!(stores, vec!["payment_requests"]);
    }
}
