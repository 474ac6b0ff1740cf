use super::*;

/// A big Rust file is read around: the words of the prefilter outside
/// comments (in test code too), names that may name a store although
/// they hold no word (`seen_events`), `cache`, and header names the
/// header rule judges (`Idemptoency-Key`); a file holding a suppression
/// comment, or bytes that are not UTF-8, is read whole.
#[test]
fn a_rust_file_is_anchored_where_a_rule_may_read_it() {
    let k = Keywords::new(&[], 1);
    let text = "// idempotent, says the comment\nfn a() { let s = \"seen_events\"; }\nfn b(c: &Cache) {}\nfn c(r: R) { r.header(\"Idemptoency-Key\", k); }\nfn d() { dedup_once(); }\nfn e() { plain(); }\n#[test]\nfn t() { replay(); }\n";
    let at = |w: &str| text.find(w).unwrap();
    let anchors = k.anchors(text.as_bytes()).unwrap();
    for w in ["seen_events", "Cache", "\"Idemptoency", "dedup", "replay"] {
        assert!(anchors.contains(&at(w)), "{w}: {anchors:?}");
    }
    let between = |from: &str, to: &str| {
        let (a, b) = (at(from), at(to));
        anchors.iter().any(|&x| a <= x && x < b)
    };
    assert!(!between("// ", "fn a"), "{anchors:?}");
    assert!(!between("fn e", "#[test]"), "{anchors:?}");
    assert_eq!(k.anchors(b"// idemlint: allow(x) -- ok\nfn a() {}\n"), None);
    assert_eq!(k.anchors(b"fn dedup() { let _ = \"\xff\"; }\n"), None);
}

#[test]
fn prefilter_is_case_insensitive() {
    assert!(prefilter(b"let k = IDEMPOTENCY_KEY;"));
    assert!(!prefilter(b"fn main() {}"));
}

#[test]
fn words_in_rust_test_code_count_only_when_tests_are_judged() {
    let default = Keywords::new(&[], 1);
    let judging = Keywords::new(&[], 1).judging_tests(true);
    let rs = Path::new("src/pay.rs");
    let test_module = "fn pay() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn replays_are_idempotent() { let h = \"Idempotency-Key\"; }\n}\n";
    let test_fn = "fn pay() {}\n#[tokio::test]\nasync fn dedup_works() {}\n";
    for text in [test_module, test_fn] {
        assert_eq!(
            default.admission_in(FileKind::Rust, rs, text.as_bytes(), &|| false),
            Admission::No,
            "{text}"
        );
        assert_eq!(
            judging.admission_in(FileKind::Rust, rs, text.as_bytes(), &|| false),
            Admission::Full,
            "{text}"
        );
    }
    // A word in the code the rules judge; a suppression comment.
    let live = format!("fn pay() {{ let k = \"idem:{{}}\"; }}\n{test_module}");
    let suppressed = format!(
        "// idemlint: allow misspelled-idempotency-header -- checks the typo\n{test_module}"
    );
    for text in [live.as_str(), suppressed.as_str()] {
        assert_eq!(
            default.admission_in(FileKind::Rust, rs, text.as_bytes(), &|| false),
            Admission::Full,
            "{text}"
        );
    }
    // A file at a test path is test code whole.
    let whole = b"async fn charge_is_idempotent() { let k = idempotency_key(); }";
    let at = Path::new("tests/charge.rs");
    assert_eq!(
        default.admission_in(FileKind::Rust, at, whole, &|| true),
        Admission::No
    );
    assert_eq!(
        judging.admission_in(FileKind::Rust, at, whole, &|| true),
        Admission::Full
    );
    assert_eq!(
        default.admission_in(FileKind::Rust, rs, whole, &|| false),
        Admission::Full
    );
    // Other kinds keep their words.
    assert_eq!(
        default.admission_in(
            FileKind::Sql,
            Path::new("tests/k.sql"),
            b"create table idempotency_keys (k text);",
            &|| true
        ),
        Admission::Full
    );
}

/// Each Rust text at `path` is admitted as `no` says (`No`), and each
/// of `full` in full.
fn rust_admissions(path: &str, no: &[&str], full: &[&str]) {
    let k = Keywords::new(&[], 1);
    let rs = Path::new(path);
    let admission = |text: &str| k.admission_in(FileKind::Rust, rs, text.as_bytes(), &|| false);
    for (texts, want) in [(no, Admission::No), (full, Admission::Full)] {
        for text in texts {
            assert_eq!(admission(text), want, "{text}");
        }
    }
}

#[test]
fn std_dedup_methods_are_no_word() {
    rust_admissions(
        "src/list.rs",
        &[
        "fn f(v: &mut Vec<u32>) { v.sort(); v.dedup(); }",
        "fn f(v: &mut Vec<Row>) { v.dedup_by_key(|r| r.id); }",
        "fn f(v: &mut Vec<Row>) {\n    v\n        .dedup_by(move |a, b| a.id == b.id);\n}",
        "impl<T: PartialEq> List<T> {\n    pub fn dedup(&mut self) { self.dedup_by(|a, b| a == b) }\n}",
        "impl<T> List<T> {\n    pub fn dedup_by<F>(&mut self, same: F)\n    where\n        F: FnMut(&mut T, &mut T) -> bool,\n    {\n    }\n}",
        ],
        &[
        // A store's method, a binding, a comment between the tokens,
        // the words in a string, a method of another name.
        "fn f(store: &Store, key: &str) { store.dedup(key); }",
        "fn f() { let deduped = rows.len(); }",
        "fn f(v: &mut Vec<u32>) { v.dedup(/* by id */); }",
        "fn f() { let q = \"v.dedup()\"; }",
        "fn f(s: &Seen) { s.dedup_events(); }",
        "impl Store {\n    pub fn dedup(&mut self, key: &str) -> bool { true }\n}",
        ],
    );
}

#[test]
fn prose_in_message_macros_is_no_word() {
    rust_admissions(
        "src/attach.rs",
        &[
        "fn f(log: &Logger) { info!(log, \"call was idempotent\"); }",
        "fn f() { tracing::warn!(\"Idempotency is not supported (yet)\"); }",
        "fn f() -> Result<()> { bail!(\"event {} already replayed\", id) }",
        "fn f(v: &[u8]) { debug_assert!(v.is_sorted(), \"keys are sorted and deduplicated\"); }",
        ],
        &[
        // A key, a header, a table, a lone word, a word in another
        // macro or call, a word in code, a literal after a stray close.
        "fn f(id: &str) { info!(\"claimed idem:{}\", id); }",
        "fn f() { warn!(\"missing Idempotency-Key header\"); }",
        "fn f() { info!(\"insert into dedup_keys failed\"); }",
        "fn f() { info!(\"idempotent\"); }",
        "fn f(id: &str) { let k = format!(\"idempotent charge {}\", id); }",
        "fn f() { q.query(\"select from replay log\"); }",
        "fn f(idempotent: bool) { info!(\"call was idempotent\"); }",
        "fn f() {} } fn g() { info!(\"call was idempotent\"); }",
        ],
    );
    // A module named for the word is that code, whatever its messages.
    rust_admissions(
        "src/idempotency/mod.rs",
        &[],
        &["fn f() { info!(\"call was idempotent\"); }"],
    );
}

#[test]
fn c_declarations_are_no_word() {
    rust_admissions(
        "src/unix/mod.rs",
        &[
        "pub const CONNECT_DATA_IDEMPOTENT: c_uint = 0x2;",
        "pub(crate) static mut REPLAY_MODE: ::core::ffi::c_int = 0;",
        "s! {\n    pub struct ff_replay {\n        pub length: __u16,\n    }\n    pub struct ff_effect {\n        pub replay: ff_replay,\n    }\n}",
        "pub union dedup_u { pub a: u32 }\nextern \"C\" { fn f(p: *mut dedup_u); }",
        "pub struct t { pub replay: *mut crate::ev_t }",
        ],
        &[
        // Types and constants named Rust's way, a primitive type, a
        // struct literal's field, a parameter, a C type used but not
        // declared here, a binding.
        "pub const IDEMPOTENCY_TTL_SECS: u64 = 86_400;",
        "pub struct Replay { pub at: u64 }",
        "pub struct Request { pub idempotency_key: String }",
        "pub struct Window { pub dedup_ttl: Duration }",
        "fn f(dedup_key: &str) { let e = Event { dedup: dedup_key }; }",
        "fn f(replay: ff_replay) {}",
        "fn f(r: ff_replay) {}",
        "fn f() { let replay_t = 1; }",
        "fn f() { let mut replay: ff_replay = g(); }",
        "pub struct t { pub x: *mut crate::replay_t }",
        "pub static IDEM_PREFIX: &str = \"x\";",
        ],
    );
}

#[test]
fn store_names_in_test_code_do_not_keep_a_retry_file() {
    let k = Keywords::new(&[], 1);
    let rs = Path::new("src/client.rs");
    let admission = |text: &str| k.admission_in(FileKind::Rust, rs, text.as_bytes(), &|| false);
    let code = "use backoff::ExponentialBackoff;\nfn run() {}\n";
    assert_eq!(admission(code), Admission::Late);
    let in_test = format!(
        "{code}#[cfg(test)]\nmod tests {{\n    #[test]\n    fn f() {{ let t = \"processed_events\"; }}\n}}\n"
    );
    assert_eq!(admission(&in_test), Admission::Late);
    let live = format!("{code}fn g() {{ let t = \"processed_events\"; }}\n");
    assert_eq!(admission(&live), Admission::Full);
}

#[test]
fn generated_rust_is_known_by_its_head() {
    assert!(generated_rust(b"/* automatically generated by rust-bindgen 0.72.1 */\n\npub const XFRM_REPLAY_UPDATE: u32 = 1;\n"));
    let late = format!(
        "{}// automatically generated by rust-bindgen\n",
        "fn f() {}\n".repeat(40)
    );
    assert!(!generated_rust(late.as_bytes()));
    assert!(!generated_rust(
        b"pub const REPLAY_WINDOW_SECS: u64 = 86_400;\n"
    ));
}

/// One source of knowledge: every name by which the model recognises a
/// store or a header (`rules/stores.toml`, `rules/counterparties.toml`,
/// `rules/headers.toml`, `rules/redis.toml`) admits a file that holds
/// it and no word of `rules/prefilter.toml`.
#[test]
fn every_name_the_catalogues_recognise_admits_its_file() {
    let k = Keywords::new(&[], 1);
    let stores = crate::knowledge::stores();
    let sql = |table: &str| format!("CREATE TABLE {table} (\n    id TEXT NOT NULL\n);\n");
    let mut missed = Vec::new();
    let mut check = |kind, path: &str, text: String| {
        if !k.admits(kind, Path::new(path), text.as_bytes()) {
            missed.push(text);
        }
    };
    for c in &crate::knowledge::counterparties().counterparty {
        if c.inbound_horizon().is_none() {
            continue;
        }
        for m in &c.r#match {
            for part in &stores.provider_event_table.parts {
                let table = format!("{}_{part}", m.replace('-', "_"));
                if stores.is_provider_event_table(&table) {
                    check(FileKind::Sql, "m.sql", sql(&table));
                    let rust = format!(
                        "fn f(p: &Pool) {{ query(\"INSERT INTO {table} (id) VALUES ($1)\"); }}"
                    );
                    check(FileKind::Rust, "src/a.rs", rust);
                }
            }
        }
    }
    for [a, b] in &stores.table.pairs {
        check(FileKind::Sql, "m.sql", sql(&format!("{a}_{b}s")));
    }
    for w in stores.table.substrings.iter().chain(&stores.table.parts) {
        check(FileKind::Sql, "m.sql", sql(&format!("{w}_rows")));
    }
    let headers = crate::knowledge::headers();
    for h in headers.canonical.iter().chain(&headers.legitimate) {
        check(
            FileKind::Yaml,
            "a.yaml",
            format!("header: \"{}\"\n", h.name),
        );
    }
    assert!(missed.is_empty(), "not admitted: {missed:#?}");
    // A name that holds such a word and is no store admits nothing.
    assert!(!k.admits(
        FileKind::Sql,
        Path::new("m.sql"),
        sql("stripe_customers").as_bytes()
    ));
    assert!(!k.admits(
        FileKind::Rust,
        Path::new("src/a.rs"),
        b"fn f() { let otherwise = seen_count; } // received"
    ));
}

#[test]
fn weak_words_admit_only_where_they_carry_meaning() {
    let k = Keywords::new(&[], 1);
    let rs = Path::new("src/a.rs");
    let admits = |kind, path: &str, text: &str| k.admits(kind, Path::new(path), text.as_bytes());
    // A strong word admits every kind.
    assert!(admits(FileKind::Rust, "a.rs", "let k = idempotency_key;"));
    // In Rust, a word only a comment holds admits nothing; in a string
    // it does, and other kinds keep their comments.
    assert!(!admits(
        FileKind::Rust,
        "a.rs",
        "/// Safe to call twice: idempotent.\nfn f() {} /* dedup */ // backoff"
    ));
    assert!(admits(
        FileKind::Rust,
        "a.rs",
        "// x\nlet h = \"Idempotency-Key\";"
    ));
    assert!(admits(
        FileKind::Rust,
        "a.rs",
        "// x\nuse backoff::ExponentialBackoff;"
    ));
    assert!(!admits(
        FileKind::Rust,
        "a.rs",
        "// webhook redis\nfn f() {}"
    ));
    assert!(admits(
        FileKind::Rust,
        "src/idempotency/mod.rs",
        "//! The idempotency claim.\npub fn begin() {}"
    ));
    assert!(admits(FileKind::Sql, "m.sql", "-- idempotent\nSELECT 1;"));
    // `webhook` in SQL is a store word; in Rust only inside a store name.
    assert!(admits(
        FileKind::Sql,
        "m.sql",
        "CREATE TABLE webhooks (id int);"
    ));
    assert!(!admits(
        FileKind::Rust,
        "a.rs",
        "struct WebhookConfig { url: String }"
    ));
    assert!(admits(
        FileKind::Rust,
        "a.rs",
        "sqlx::query(\"INSERT INTO webhook_events (id) VALUES ($1)\")"
    ));
    assert!(admits(FileKind::Rust, "a.rs", "struct ProcessedEvent;"));
    assert!(admits(
        FileKind::Rust,
        "a.rs",
        "let k = format!(\"processed:adyen:{id}\");"
    ));
    assert!(!admits(
        FileKind::Rust,
        "a.rs",
        "let n = members_processed + 1;"
    ));
    assert!(!admits(FileKind::Rust, "a.rs", "Status::Reprocessed => {}"));
    assert!(admits(
        FileKind::Text,
        "a.ts",
        "const k = `webhook:event:${id}`;"
    ));
    assert!(admits(
        FileKind::Text,
        "a.ts",
        "headers['webhook-id'] = id;"
    ));
    // ... or when the file also talks about Redis.
    assert!(admits(
        FileKind::Yaml,
        "v.yaml",
        "receipts:\n  image: redis:7\n"
    ));
    assert!(!admits(
        FileKind::Yaml,
        "v.yaml",
        "admissionWebhooks:\n  enabled: true\n"
    ));
    // Pod eviction is not Redis eviction; a `.conf` may be a Redis config.
    assert!(!admits(FileKind::Yaml, "v.yaml", "evictionHard: 100Mi\n"));
    assert!(admits(FileKind::Text, "cache.conf", "# eviction\n"));
    // Retry crates matter to the Rust front end only.
    assert!(admits(
        FileKind::Rust,
        "a.rs",
        "use backoff::ExponentialBackoff;"
    ));
    assert!(!admits(FileKind::Yaml, "v.yaml", "backoffLimit: 6\n"));
    // A word in a comment does not hide the same word in code after it.
    assert!(admits(
        FileKind::Rust,
        "a.rs",
        "// idempotent\nlet idempotency_key = k;"
    ));
    assert!(admits(
        FileKind::Rust,
        "a.rs",
        "// uses backoff\nuse backoff::ExponentialBackoff;"
    ));
    // Names the config declares are strong.
    let k = Keywords::new(&["payment_requests".to_string()], DFA_FROM_FILES);
    assert!(k.admits(FileKind::Rust, rs, b"INSERT INTO payment_requests"));
}

#[test]
fn a_weak_word_in_rust_code_is_judged_as_an_identifier() {
    let k = Keywords::new(&[], 1);
    let rs = |text: &str| k.admits(FileKind::Rust, Path::new("src/a.rs"), text.as_bytes());
    // A delivery, its type and its handler are not where deliveries are
    // kept: a table convention that is a noun does not make them stores.
    assert!(!rs("match e { IncomingWebhookEvent::RefundSuccess => {} }"));
    assert!(!rs(
        "fn get_webhook_event_type(&self) -> Result<Kind> { todo!() }"
    ));
    assert!(!rs("let t = api::webhooks::IncomingWebhookEvent::from(s);"));
    assert!(!rs("fn status(s: AdyenWebhookStatus) {}"));
    assert!(!rs("let c = svix::webhooks::Webhook::new(secret);"));
    // An inbox is a store only with a key column, which code has not.
    assert!(!rs("let inbox_url = person.inbox_url.clone();"));
    assert!(!rs("struct SharedInboxActivities;"));
    // Words of different segments do not make a pair.
    assert!(!rs("if s == EventReportStatus::Processed { n += 1; }"));
    // An identifier written as a table: a diesel table module, a
    // retention-named constant.
    assert!(rs("insert_into(webhook_events::table).values(&row)"));
    assert!(rs("use schema::webhook_events::{self, dsl};"));
    assert!(rs("webhook_events::dsl::webhook_events.find(id)"));
    assert!(rs("use schema::webhook_events::{columns::{id}, table};"));
    assert!(rs("use crate::schema::webhook_events::*;"));
    assert!(rs("use crate::schema::webhook_events::{"));
    assert!(rs("pub const WEBHOOK_EVENTS_TTL: u64 = 86_400;"));
    // A module of that name followed by a type or a function is not
    // diesel's table module.
    assert!(!rs(
        "let r = api_models::webhook_events::EventListItemResponse::from(e);"
    ));
    assert!(!rs(
        ".route(routes::webhook_events::list_delivery_attempts)"
    ));
    assert!(!rs(
        "use api_models::webhook_events::{EventListItemResponse, EventListConstraints};"
    ));
    // A name that writes the table is store code.
    assert!(rs("db.insert_webhook_event(&event).await?;"));
    assert!(rs("self.record_webhook_receipt(id)"));
    assert!(!rs(
        "if is_refund_webhook_event(&e) { lookup_webhook_event(id) }"
    ));
    // The verbs of handling count in any identifier.
    assert!(rs("db.mark_event_processed(&event.id).await?;"));
    assert!(rs("struct ProcessedEvent;"));
    assert!(rs("let seen = StripeEventsProcessed::load();"));
    // In a string, every convention counts as before, a table's only
    // in text that may be SQL (`literal_may_name_a_table`).
    assert!(rs(
        "sqlx::query(\"SELECT 1 FROM webhook_events WHERE id = $1\")"
    ));
    assert!(rs("let q = \"INSERT INTO inbox (id) VALUES ($1)\";"));
    assert!(!rs("let t = \"inbox\"; // a map key"));
    assert!(rs("let k = format!(\"webhook:event:{id}\");"));
    // Beside a Redis word, a weak word admits a Rust file in a name
    // the Redis model links by (a Redis link word), in a string or an
    // identifier, not in any name.
    assert!(!rs(
        "let webhook_url = cfg.url; let c = redis::Client::open(u)?;"
    ));
    assert!(rs(
        "let h = env::var(\"RECEIPTS_HOST\"); let c = redis::Client::open(h)?;"
    ));
    assert!(rs("let c = redis::Client::open(\"receipts-redis\")?;"));
    assert!(!rs(
        "let h = env::var(\"WEBHOOK_HOST\"); let c = redis::Client::open(h)?;"
    ));
    assert!(!rs("let c = redis::Client::open(\"webhook-redis\")?;"));
    assert!(!rs(
        "log::info!(\"webhook sent\"); let c = redis::Client::open(u)?;"
    ));
    assert!(rs(
        "struct ReceiptCache { pool: redis::aio::ConnectionManager }"
    ));
    // An identifier links only through a type named for a cache or a
    // line that calls a link-named identifier (`links`): an enum
    // variant `Receipt` beside a `RedisKv` one links nothing.
    assert!(!rs("pub enum Kind { RedisKv, Receipt, Invoice }"));
    assert!(rs(
        "pub enum Kind { RedisKv, Receipt }\nfn f() { let s = ReceiptStore::new(url); }"
    ));
    // The call that links need not be the weak word's: `IdemStore`
    // holds a link word (`idem`) that no prefilter word spells.
    assert!(rs(
        "pub enum Kind { RedisKv, Receipt }\nfn f() { let s = IdemStore::connect(&url); }"
    ));
    assert!(rs(
        "pub enum Kind { RedisKv, Receipt }\ntype C = Cache<Kind>;"
    ));
    assert!(!rs(
        "let n = processed_count + 1; let c = redis::Client::open(u)?;"
    ));
}

#[test]
fn request_id_admits_a_file_only_as_the_catalogue_header() {
    let k = Keywords::new(&[], 1);
    for (kind, path, text, admitted) in [
        // PayPal's idempotency header, in any case, or with an
        // underscore that the header rule reports.
        (
            FileKind::Rust,
            "src/paypal.rs",
            "req.header(\"PayPal-Request-Id\", key)",
            true,
        ),
        (
            FileKind::Json,
            "c.json",
            "{\"key\": \"paypal-request-ID\"}",
            true,
        ),
        (FileKind::Text, "a.ts", "h['PayPal_Request-Id'] = k;", true),
        // A tracing header is none of the catalogue's.
        (
            FileKind::Json,
            "postman.json",
            "[{\"key\": \"X-Request-Id\"}]",
            false,
        ),
        (
            FileKind::Rust,
            "src/trace.rs",
            "RequestIdentifier::new(\"x-request-id\")",
            false,
        ),
        // Separators are ignored only in a name that holds a `-`: a
        // `webhookId` variable is not the `webhook-id` header.
        (FileKind::Text, "a.ts", "const webhookId = body.id;", false),
        (FileKind::Text, "a.ts", "headers['Webhook-ID'] = id;", true),
    ] {
        let got = k.admits(kind, Path::new(path), text.as_bytes());
        assert_eq!(got, admitted, "{path}: {text}");
    }
}

#[test]
fn sql_that_changes_a_table_waits_for_the_schema() {
    let k = Keywords::new(&[], 1);
    let sql = |t: &str| k.admission(FileKind::Sql, Path::new("m.sql"), t.as_bytes());
    assert_eq!(
        sql("ALTER TABLE \"ExportTask\" ADD COLUMN \"workspaceId\" TEXT;"),
        Admission::Schema
    );
    assert_eq!(
        sql("CREATE INDEX orders_at ON orders (created_at);"),
        Admission::Schema
    );
    assert_eq!(sql("INSERT INTO countries VALUES ('NL');"), Admission::No);
    assert_eq!(
        sql("ALTER TABLE idempotency_keys ADD COLUMN user_id TEXT;"),
        Admission::Full
    );
    assert!(!k.admits(
        FileKind::Sql,
        Path::new("m.sql"),
        b"ALTER TABLE a ADD b INT;"
    ));
    let lower = b"alter table \"exporttask\" add column x; -- exporttasks";
    assert!(names_table(lower, "exporttask"));
    assert!(!names_table(
        b"alter table exporttasks add x;",
        "exporttask"
    ));
    assert!(!names_table(
        b"alter table my_exporttask add x;",
        "exporttask"
    ));
    assert!(!names_table(lower, ""));
}

/// A Prisma schema is read for the words an SQL file is read for, and a
/// model with none of them waits for the schema as a migration does.
#[test]
fn a_prisma_schema_is_admitted_as_sql_is() {
    let k = Keywords::new(&[], 1);
    let prisma = |t: &str| k.admission(FileKind::Prisma, Path::new("schema.prisma"), t.as_bytes());
    for full in [
        "model WebhookEvent {\n  id String @id\n}\n",
        "model Event {\n  id String @id\n  @@map(\"processed_events\")\n}\n",
        "model Charge {\n  idempotencyKey String\n}\n",
        "model StripeEvent {\n  id String @id\n}\n",
        "model Fee {\n  ref String\n  @@index([ref], map: \"uq_fee_ref\")\n}\n",
    ] {
        assert_eq!(prisma(full), Admission::Full, "{full}");
    }
    assert_eq!(
        prisma("model ExportTask {\n  id String @id\n}\n"),
        Admission::Schema
    );
    assert_eq!(
        prisma("generator client {\n  provider = \"prisma-client-js\"\n}\n"),
        Admission::No
    );
}

#[test]
fn every_occurrence_counts_overlapping_ones_too() {
    // `retry_backoff` is a configuration word, and the `backoff` inside
    // it a Rust retry word: the leftmost-first search finds the first,
    // and the second must still admit the Rust file.
    let k = Keywords::new(&[], 1);
    assert!(k.admits(
        FileKind::Rust,
        Path::new("a.rs"),
        b"let d = cfg.retry_backoff;"
    ));
    let w = Words::new(
        &["ab".to_string(), "abc".to_string(), "bc".to_string()],
        false,
    );
    let all: Vec<(usize, usize)> = w.occurrences(b"xabcab").collect();
    assert_eq!(all, [(1, 0), (1, 1), (2, 2), (4, 0)]);
    // Case is folded in the text, not only in the words.
    let w = Words::new(&["MaxMemory".to_string()], true);
    assert!(w.is_match(b"maxmemory-policy"));
}

/// Every start of every word, by start then word: what
/// [`Words::occurrences`] must give, however it searches.
fn every_start(words: &[&[u8]], text: &[u8]) -> Vec<(usize, usize)> {
    (0..text.len())
        .flat_map(|at| {
            words
                .iter()
                .enumerate()
                .filter(move |(_, w)| text[at..].starts_with(w))
                .map(move |(i, _)| (at, i))
        })
        .collect()
}

#[test]
fn teddy_and_the_automata_find_the_same_occurrences() {
    // A `with` group's few words (for which an automaton looks for
    // bytes it ranks rare), words inside words, a word that overlaps
    // itself, and texts shorter and longer than Teddy's minimum.
    let sets: [&[&[u8]]; 3] = [
        &[b"redis", b"valkey", b"keydb"],
        &[b"ab", b"abc", b"bc", b"retry_backoff", b"backoff"],
        &[b"elasticache", b"e", b"memorystore"],
    ];
    let mut long = Vec::new();
    for i in 0..300u32 {
        long.extend_from_slice(b"let k = cfg.retry_backoff; valkeydb redis ");
        long.extend_from_slice(format!("x{i}elasticachelasticache ab").as_bytes());
    }
    let texts: [&[u8]; 5] = [b"", b"r", b"xabcab", b"redisvalkeykeydb", &long];
    // Over 32 words: Teddy in slices, the leftmost of all taken.
    let many: Vec<Vec<u8>> = (0..70u32)
        .map(|i| format!("w{i}k").into_bytes())
        .chain([b"redis".to_vec(), b"abc".to_vec(), b"ab".to_vec()])
        .collect();
    let many: Vec<&[u8]> = many.iter().map(Vec::as_slice).collect();
    let mut long_many = long.clone();
    for i in (0..70u32).rev() {
        long_many.extend_from_slice(format!(" w{i}k w{}k redis", i / 2).as_bytes());
    }
    let sets: Vec<&[&[u8]]> = sets.into_iter().chain([&many[..]]).collect();
    for set in sets {
        let owned: Vec<Vec<u8>> = set.iter().map(|w| w.to_vec()).collect();
        for text in texts.iter().copied().chain([&long_many[..]]) {
            let want = every_start(set, text);
            for (dfa, teddy) in [(true, true), (true, false), (false, false)] {
                let w = Words::searched_by(owned.clone(), dfa, teddy);
                let got: Vec<(usize, usize)> = w.occurrences(text).collect();
                assert_eq!(got, want, "dfa {dfa} teddy {teddy}");
                assert_eq!(w.is_match(text), !want.is_empty());
            }
        }
    }
}

#[test]
fn words_in_a_crd_schema_admit_nothing() {
    let k = Keywords::new(&[], DFA_FROM_FILES);
    let y = |t: &str| k.admits(FileKind::Yaml, Path::new("crds.yaml"), t.as_bytes());
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
               spec:\n  versions:\n  - schema:\n      openAPIV3Schema:\n        \
               properties:\n          dedupWindow:\n            type: string\n";
    assert!(!y(crd));
    assert!(!y(&format!(
        "{{{{- if .Values.crds }}}}\n---\n{crd}{{{{- end }}}}\n"
    )));
    // Another document of the stream still counts, before or after it.
    let redis =
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  redis.conf: maxmemory-policy allkeys-lru\n";
    assert!(y(&format!("{crd}---\n{redis}")));
    assert!(y(&format!("{redis}...\n---\n{crd}")));
    // A resource of a custom kind is not its definition; `kind:` must be
    // top-level and the API group the CRDs' own.
    assert!(y(
        "apiVersion: example.com/v1\nkind: Dedup\nspec:\n  window: 1h\n"
    ));
    assert!(y(
        "apiVersion: v1\nkind: CustomResourceDefinition\nmetadata:\n  name: dedup\n"
    ));
    assert!(y(&crd.replace("\nkind:", "\n  kind:")));
    assert_eq!(
        schema_documents(format!("a: 1\n---\n{crd}").as_bytes()),
        vec![std::ops::Range {
            start: 9,
            end: 9 + crd.len()
        }]
    );
}

/// The constants tier searches only the words that hold no other; it
/// must say what a search for every word says, on idemlint's own
/// sources and on texts built from the words' pieces.
#[test]
fn the_constants_search_equals_a_search_for_every_word() {
    let words = builtin().rust_constants.expect("[rust_constants]").words;
    let every = |b: &[u8]| {
        let item = memchr::memmem::find(b, b"const ").is_some()
            || memchr::memmem::find(b, b"static ").is_some();
        item && words
            .iter()
            .any(|w| memchr::memmem::find(b, w.as_bytes()).is_some())
    };
    let mut texts: Vec<Vec<u8>> = Vec::new();
    for entry in ignore::Walk::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")).flatten() {
        if entry.path().extension().is_some_and(|e| e == "rs") {
            texts.push(std::fs::read(entry.path()).unwrap());
        }
    }
    let pieces: Vec<String> = words
        .iter()
        .flat_map(|w| [w.clone(), w[..w.len() - 1].to_string(), w[1..].to_string()])
        .chain(["const ".into(), "static ".into(), " ".into(), "_".into()])
        .collect();
    let mut seed = 7u64;
    for _ in 0..20_000 {
        let mut t = Vec::new();
        for _ in 0..4 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            t.extend_from_slice(pieces[(seed >> 33) as usize % pieces.len()].as_bytes());
        }
        texts.push(t);
    }
    let mut matched = 0;
    for t in &texts {
        assert_eq!(
            rust_constants_prefilter(t),
            every(t),
            "{}",
            String::from_utf8_lossy(t)
        );
        matched += usize::from(every(t));
    }
    assert!(matched > 100 && matched < texts.len(), "{matched}");
}

#[test]
fn a_large_file_is_searched_across_its_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    let k = Keywords::new(&[], DFA_FROM_FILES);
    // A word cut by the 1 MiB chunk boundary is still found, in either
    // case; a file without one is not.
    let mut bytes = vec![b' '; (1 << 20) - 3];
    bytes.extend_from_slice(b"IDEMPOTENCY");
    bytes.extend(std::iter::repeat_n(b' ', 1 << 20));
    std::fs::write(&path, &bytes).unwrap();
    assert!(k.stream_matches(&path));
    std::fs::write(&path, vec![b'x'; 3 << 20]).unwrap();
    assert!(!k.stream_matches(&path));
    assert!(k.stream_matches(&dir.path().join("missing")));
}

#[test]
fn constants_module_passes_the_second_tier_only() {
    let consts = b"pub const DAY: u64 = 86_400;\n";
    assert!(!prefilter(consts));
    assert!(rust_constants_prefilter(consts));
    assert!(!rust_constants_prefilter(b"fn main() { let day = 1; }"));
}

/// A Rust string that is one CamelCase name is a type's name: it can
/// be a Redis key or a header, never a table. The same name inside a
/// longer literal, or in another kind of file, is judged as before.
#[test]
fn a_type_name_in_a_rust_string_names_no_table() {
    let k = Keywords::new(&[], 1);
    let rs = |text: &str| k.admits(FileKind::Rust, Path::new("src/adyen.rs"), text.as_bytes());
    for ty in [
        "AdyenIncomingWebhook",
        "airwallexWebhookData",
        "StripeWebhookEvent",
    ] {
        assert!(
            !rs(&format!("let w: W = body.parse_struct(\"{ty}\")?;")),
            "{ty}"
        );
        assert!(
            rs(&format!(
                "sqlx::query(\"SELECT 1 FROM {ty} WHERE id = $1\");"
            )),
            "{ty}"
        );
        let ts = k.admits(
            FileKind::Text,
            Path::new("a.ts"),
            format!("x = \"{ty}\";").as_bytes(),
        );
        assert!(ts, "{ty}");
    }
    // Judged once per name and place: the type name first does not hide
    // the table after it.
    assert!(rs(
        "parse(\"StripeWebhookEvent\"); query(\"DELETE FROM StripeWebhookEvent\");"
    ));
    // Snake case, separators and raw strings are not type names
    // (this one is a Redis key prefix).
    assert!(rs("let t = \"stripe_webhook_events\";"));
    assert!(rs("let t = r#\"DELETE FROM StripeWebhookEvent\"#;"));
    // A header name keeps its meaning.
    assert!(rs("b.header(\"Webhook-Id\", id)"));
}

#[test]
fn a_retry_crate_alone_holds_a_rust_file_back() {
    let k = Keywords::new(&[], 1);
    let rs = |text: &str| k.admission(FileKind::Rust, Path::new("src/jobs.rs"), text.as_bytes());
    let retry = "use backoff::ExponentialBackoff;\nfn policy() -> ExponentialBackoff { ExponentialBackoff::default() }\n";
    assert_eq!(rs(retry), Admission::Late);
    // Another word admits it in full, before or after the retry's.
    assert_eq!(
        rs(&format!("{retry}const H: &str = \"Idempotency-Key\";\n")),
        Admission::Full
    );
    assert_eq!(rs(&format!("fn replay() {{}}\n{retry}")), Admission::Full);
    // In a comment, or in another kind, the word is nothing.
    assert_eq!(rs("// retried with backoff\nfn main() {}\n"), Admission::No);
    let yaml = k.admission(FileKind::Yaml, Path::new("values.yaml"), b"backoff: 10s\n");
    assert_eq!(yaml, Admission::No);
    assert!(k.admits(FileKind::Rust, Path::new("src/jobs.rs"), retry.as_bytes()));
    // A name that makes a store by a convention that is no prefilter
    // word: such a file can make a store, so it is parsed in full.
    for store in [
        "sqlx::query(\"INSERT INTO seen_events (id) VALUES ($1)\")",
        "struct HandledWebhooks;",
        "sqlx::query(\"SELECT 1 FROM stripe_events WHERE id = $1\")",
        "conn.set_nx(&processed_key, 1)",
    ] {
        assert_eq!(
            rs(&format!("{retry}fn f() {{ {store}; }}\n")),
            Admission::Full,
            "{store}"
        );
    }
    // The same words apart, or in a comment, are nothing.
    let apart = "fn f(seen: bool, event: Event) {} // processed_key, the webhook_event table\n";
    assert_eq!(rs(&format!("{retry}{apart}")), Admission::Late);
}

#[test]
fn words_in_json_description_prose_admit_nothing() {
    let k = Keywords::new(&[], DFA_FROM_FILES);
    let j = |t: &str| k.admits(FileKind::Json, Path::new("openapi.json"), t.as_bytes());
    let prose = r#"{"paths": {"/payments": {"post": {"description": "Creates a payment. A retried request with the same id is idempotent."}}},
  "components": {"schemas": {"Payment": {"properties": {"payment_id": {"type": "string", "description": "Ensures idempotency\nfor \"retries\"."}}}}}}"#;
    assert!(!j(prose));
    assert_eq!(
        json_prose(prose.as_bytes(), &prose.to_ascii_lowercase().into_bytes()).len(),
        2
    );
    // The header a parameter names still counts, and so do a key, a
    // single-token description (a header name is one), a value outside
    // a description, a description that is an object, and a
    // `Description` (keys are case-sensitive).
    for admitted in [
        prose.replace(
            r#""type": "string","#,
            r#""name": "Idempotency-Key", "in": "header","#,
        ),
        prose.replace("payment_id", "idempotency_key"),
        r#"{"description": " Idempotency-Key "}"#.to_string(),
        r#"{"example": "{\"description\": \"is idempotent here\"}"}"#.to_string(),
        r#"{"description": {"idempotency_ttl": "a day or two"}}"#.to_string(),
        r#"{"Description": "is idempotent"}"#.to_string(),
        r#"["description", "is idempotent"]"#.to_string(),
    ] {
        assert!(j(&admitted), "{admitted}");
    }
    // Prose that a reader takes something from keeps its words: a Redis
    // URL (a host), a `maxmemory-policy` flag (a policy from any
    // scalar), and any text of a file with a suppression comment.
    for read in [
        r#"{"description": "dedup keys live at redis://idem-redis:6379 for a day"}"#,
        r#"{"description": "run it with --maxmemory-policy noeviction"}"#,
        "{\"description\": \"dedup keys, see below\"} // idemlint: ignore",
    ] {
        assert!(j(read), "{read}");
    }
    // The readers, on prose this judges silent: no string a header or a
    // Redis prefix is read from (both take no whitespace), no Redis
    // policy, and no retention (settings are read by key).
    let text = r#"{"description": "Idempotency-Key idem:stripe: idempotency_ttl 86400", "components": {"redis": {"host": {"description": "the dedup Redis host, idem-redis"}}}}"#;
    assert_eq!(
        json_prose(text.as_bytes(), &text.to_ascii_lowercase().into_bytes()).len(),
        2
    );
}

#[test]
fn words_in_yaml_description_prose_admit_nothing() {
    let k = Keywords::new(&[], DFA_FROM_FILES);
    let y = |t: &str| k.admits(FileKind::Yaml, Path::new("openapi.yaml"), t.as_bytes());
    let spec = "openapi: 3.1.0\npaths:\n  /payments:\n    post:\n      description: |\n        Creates a payment. Retrying with the same id\n\n        is idempotent.\n      parameters:\n        - description: The key that makes a retry idempotent.\n          in: query\n";
    assert!(!y(spec));
    assert_eq!(
        yaml_prose(spec.as_bytes(), &spec.to_ascii_lowercase().into_bytes()).len(),
        2
    );
    for admitted in [
        // A header parameter's name, a property named for the key, a
        // property named `description` (its mapping follows), a single
        // token, a template, and a word after the scalar's end.
        spec.replace("in: query", "in: header\n          name: Idempotency-Key"),
        spec.replace("parameters:", "idempotency_key:"),
        "properties:\n  description:\n    type: string\n    x-idempotent: true\n".to_string(),
        "description: Idempotency-Key\n".to_string(),
        "description: {{ .Values.idempotency }} here\n".to_string(),
        "a:\n  description: plain words\n  idempotency_ttl: 1d\n".to_string(),
        "x_description: is idempotent\n".to_string(),
    ] {
        assert!(y(&admitted), "{admitted}");
    }
    for read in [
        "description: dedup keys live at redis://idem-redis:6379\n",
        "description: >\n  run with --maxmemory-policy noeviction for dedup\n",
        "# idemlint: ignore\ndescription: dedup keys, see below\n",
    ] {
        assert!(y(read), "{read}");
    }
    // Within a CRD's schema as well: both kinds of ranges together.
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  description: Enables deduplication.\n";
    assert!(!y(&format!(
        "{crd}---\nkind: Job\nspec:\n  description: replays the queue\n"
    )));
    // The readers, on prose this judges silent, as for JSON.
    let text = "components:\n  redis:\n    host:\n      description: the dedup Redis host, idem-redis\n    x:\n      description: >-\n        Idempotency-Key idem:stripe: idempotency_ttl 86400\n";
    assert_eq!(
        yaml_prose(text.as_bytes(), &text.to_ascii_lowercase().into_bytes()).len(),
        2
    );
}

/// The parts of a setting name that link an app to its Redis
/// (`rules/redis.toml` `[app_setting] host_parts`) are strong words, so a
/// file that holds one is always read and the oracle links what a run
/// with the prefilter links.
#[test]
fn the_redis_setting_parts_are_strong_words() {
    let strong = lists::builtin().words;
    let setting = &crate::knowledge::redis().app_setting;
    assert!(!setting.host_parts.is_empty());
    for part in &setting.host_parts {
        assert!(strong.contains(part), "{part} is no strong word");
    }
    assert!(setting.names_a_host("IDEMPOTENCY_REDIS_URL"));
    assert!(!setting.names_a_host("CACHE_TTL"));
    assert!(setting.is_generic("redis_dsn"));
    assert!(!setting.is_generic("cache_redis_url"));
}

/// A TypeScript file is read for its constants when it exports one whose
/// name says it is a time (any case); a file's own constants, or an
/// exported one named for something else, do not count.
#[test]
fn a_typescript_module_exporting_a_time_constant_is_read_for_it() {
    assert!(ts_constants_prefilter(
        b"export const DAY_SECONDS = 86_400;\n"
    ));
    assert!(ts_constants_prefilter(b"export const dedupTtl = 60;\n"));
    assert!(!ts_constants_prefilter(
        b"const DAY = 86_400;\nexport const name = 'x';\n"
    ));
    assert!(!ts_constants_prefilter(b"export const PAGE_SIZE = 50;\n"));
}

#[test]
fn generated_go_is_known_by_its_marker_line_and_sqlc_output_is_kept() {
    let client = b"// Package client provides primitives.\n//\n// Code generated by oapi-codegen version v2.4.1 DO NOT EDIT.\npackage client\n\ntype WebhookEndpoint struct { URL string }\n";
    assert!(generated_go(client));
    // A generated SDK that sends a key: its header's spelling is what ships.
    let sdk = b"// Code generated by Speakeasy (https://speakeasy.com). DO NOT EDIT.\n\npackage operations\n\ntype CreateRequest struct {\n\tIdempotencyKey *string `header:\"style=simple,explode=false,name=Idempotency-Key\"`\n}\n";
    assert!(!generated_go(sdk));
    let licensed = format!(
        "{}// Code generated by ent, DO NOT EDIT.\r\n\npackage db\n",
        "// Copyright the authors.\n".repeat(20)
    );
    assert!(generated_go(licensed.as_bytes()));
    // sqlc's queries are what link a handler's calls to their SQL.
    let sqlc = b"// Code generated by sqlc. DO NOT EDIT.\npackage db\n\nconst markProcessed = `-- name: MarkProcessed :exec\nINSERT INTO processed_events (event_id) VALUES ($1)\n`\n";
    assert!(!generated_go(sqlc));
    // The marker must be the whole line: a comment that talks about it is
    // no marker, nor is one without `DO NOT EDIT.`.
    assert!(!generated_go(
        b"package dedupe\n\n// Code generated keys are claimed with SET NX; do not edit them.\nfunc Claim() {}\n"
    ));
    assert!(!generated_go(
        b"// Code generated by hand\npackage dedupe\n"
    ));
    // An API's documentation of its key, in comments, keeps nothing; a
    // comment that quotes a name, or the word in code, still does.
    let server = b"// Code generated by oapi-codegen DO NOT EDIT.\npackage v3\n\ntype CreateGrant struct {\n\t// Key Idempotency key for the grant creation request.\n\tKey *string `json:\"key\"`\n}\n";
    assert!(generated_go(server));
    let quoted = b"// Code generated by oapi-codegen DO NOT EDIT.\npackage v3\n\n// Sent as \"Idempotency_Key\".\ntype P struct{}\n";
    assert!(!generated_go(quoted));
    let code = b"// Code generated by oapi-codegen DO NOT EDIT.\npackage v3\n\ntype P struct {\n\tIdempotencyKey string\n}\n";
    assert!(!generated_go(code));
}

#[test]
fn header_names_spelt_with_underscores_admit_where_a_rule_reads_them() {
    let k = Keywords::new(&[], 1);
    let py = Path::new("app/deliver.py");
    let admission = |text: &str| k.admission_in(FileKind::Python, py, text.as_bytes(), &|| false);
    // Spelt as a header, the text rule reports it wherever it stands.
    assert_eq!(admission("h = {'Webhook_Id': e.id}\n"), Admission::Full);
    assert_eq!(
        admission("r.post(u, json={'PayPal_Request_Id': k})\n"),
        Admission::Full
    );
    // In lower case only where the code speaks of headers.
    assert_eq!(
        admission("headers = {'webhook_id': e.id}\n"),
        Admission::Full
    );
    assert_eq!(admission("row = {'webhook_id': e.id}\n"), Admission::No);
    assert_eq!(
        admission("def f(webhook_id, headers):\n    return webhook_id\n"),
        Admission::No
    );
}

#[test]
fn a_group_with_only_counts_in_its_kinds_alone() {
    let k = Keywords::new(&[], 1);
    let admit = |kind: FileKind, path: &str, text: &str| {
        k.admission_in(kind, Path::new(path), text.as_bytes(), &|| false)
    };
    // An ORM delete of old rows is a Python table's retention.
    let orm = "def prune(cutoff):\n    Event.objects.filter(created__lt=cutoff).delete()\n";
    assert_eq!(
        admit(FileKind::Python, "app/prune.py", orm),
        Admission::Full
    );
    // Go's map delete and a comparison are no ORM delete.
    let go = "package cache\n\nfunc evict(m map[string]int, n int) {\n\tfor k, v := range m {\n\t\tif v < n {\n\t\t\tdelete(m, k)\n\t\t}\n\t}\n}\n";
    assert_eq!(admit(FileKind::Go, "cache/evict.go", go), Admission::No);
}
