//! The prefilter holds to what the front ends read: every word a reader
//! looks for admits its file, and what a reader takes from a file is what
//! the prefilter lets through.

use crate::prefilter::*;
use crate::source::FileKind;
use std::path::Path;

#[test]
fn a_conditional_set_admits_its_file() {
    let k = Keywords::new(&[], 1);
    let rs = Path::new("src/claims.rs");
    for w in crate::frontend::rust::flow::CONDITIONAL_SET_NAMES {
        let code = format!("impl C {{ fn claim_{w}(&self) {{}} }}\n");
        assert_eq!(
            k.admission_in(FileKind::Rust, rs, code.as_bytes(), &|| false),
            Admission::Full,
            "{w}"
        );
    }
}

#[test]
fn a_typescript_conditional_set_admits_its_file() {
    let k = Keywords::new(&[], 1);
    let ts = Path::new("src/cache.service.ts");
    for w in crate::frontend::ts::CONDITIONAL_SET_NAMES {
        let code = format!("export class C {{ async claim_{w}() {{}} }}\n");
        assert_eq!(
            k.admission_in(
                FileKind::Script(crate::source::Dialect::Ts),
                ts,
                code.as_bytes(),
                &|| false
            ),
            Admission::Full,
            "{w}"
        );
    }
}

#[test]
fn a_unit_slip_admits_its_file_late() {
    let k = Keywords::new(&[], 1);
    let rs = Path::new("src/options.rs");
    let admission = |text: &str| k.admission_in(FileKind::Rust, rs, text.as_bytes(), &|| false);
    for w in crate::frontend::rust::units::WORDS {
        let code = format!("fn f(o: O) -> D {{ o.x{w}.map(D::from) }}\n");
        assert_eq!(admission(&code), Admission::Late, "{w}");
    }
}

#[test]
fn a_token_record_or_a_leeway_admits_its_file() {
    let k = Keywords::new(&[], 1);
    let rs = Path::new("src/claims.rs");
    for w in crate::frontend::rust::jti::WORDS {
        let code = format!("fn f(v: &mut V) {{ v.x_{w} = 1; }}\n");
        assert_ne!(
            k.admission_in(FileKind::Rust, rs, code.as_bytes(), &|| false),
            Admission::No,
            "{w}"
        );
    }
}

/// What the Rust front end reads from `text`.
fn rust_facts(text: &str) -> crate::facts::FileFacts {
    let mut f = crate::facts::FileFacts::default();
    crate::frontend::rust::parse(text, &mut f);
    f
}

/// The flow steps of every function of a file's facts.
fn flow_events(f: &crate::facts::FileFacts) -> impl Iterator<Item = &crate::facts::flow::StepKind> {
    f.code
        .iter()
        .flat_map(|r| &r.flow.functions)
        .flat_map(|func| &func.events)
        .map(|e| &e.kind)
}

/// A Rust string literal names a table only in text that may be SQL:
/// the front end reads a table from no other. `stripe_webhooks` is a
/// provider event table and no Redis key prefix, so only the table
/// convention can admit it. Where the front end does read a table from
/// a literal, the file is admitted (the front end is the oracle).
#[test]
fn a_rust_string_names_a_table_only_where_it_may_be_sql() {
    let k = Keywords::new(&[], 1);
    let rs = |text: &str| k.admits(FileKind::Rust, Path::new("src/db.rs"), text.as_bytes());
    let tables = |text: &str| {
        let f = rust_facts(text);
        flow_events(&f)
            .filter_map(|e| match e {
                crate::facts::flow::StepKind::Sql { dml, .. } => Some(dml.table.clone()),
                _ => None,
            })
            .chain(
                f.sql
                    .iter()
                    .flat_map(|s| &s.events)
                    .map(|e| format!("{:?}", e.kind)),
            )
            .collect::<Vec<_>>()
    };
    // Read as SQL, and admitted.
    for text in [
        "async fn f(p: &PgPool) { sqlx::query(\"INSERT INTO stripe_webhooks (id) VALUES ($1)\").execute(p).await; }",
        "async fn f(p: &PgPool) { sqlx::query(\"select 1 from stripe_webhooks\").fetch_one(p).await; }",
        "async fn f(p: &PgPool) { sqlx::query(\"UPDATE stripe_webhooks SET x = 1\").execute(p).await; }",
        "async fn f(p: &PgPool) { sqlx::query(\"DELETE FROM stripe_webhooks\").execute(p).await; }",
        "async fn f(c: &Client) { c.execute(r#\"\n  SELECT id\n  FROM stripe_webhooks\n\"#, &[]).await; }",
        "async fn f(p: &PgPool) { sqlx::query(concat!(\"INSERT INTO \", \"stripe_webhooks\", \" (id) VALUES ($1)\")).execute(p).await; }",
        "async fn f(p: &PgPool) { sqlx::query(\"\\x49NSERT INTO stripe_webhooks (id) VALUES ($1)\").execute(p).await; }",
        "async fn f(p: &PgPool) { sqlx::query(\"CREATE TABLE stripe_webhooks (id text primary key)\").execute(p).await; }",
    ] {
        assert!(!tables(text).is_empty(), "the front end reads a table: {text}");
        assert!(rs(text), "{text}");
    }
    // No statement in the literal: a map key, a serde name, a route.
    for text in [
        "fn f(m: &Map) -> u64 { m.get(\"stripe_webhooks\").copied().unwrap_or(0) }",
        "#[serde(rename = \"stripe_webhooks\")]\nstruct S { n: u64 }",
        "fn r(cfg: &mut Cfg) { cfg.service(web::resource(\"stripe_webhooks\")); }",
        // the statement is in another literal
        "fn f() { let q = \"SELECT 1\"; let t = \"stripe_webhooks\"; }",
    ] {
        assert!(tables(text).is_empty(), "{text}");
        assert!(!rs(text), "{text}");
    }
}

/// A Rust string literal that names a Redis key prefix (`processed`,
/// `webhook_event`) admits a file only where the front end can read it
/// as part of a key; the front end is the oracle for the places it does.
#[test]
fn a_rust_string_is_a_redis_key_only_where_a_key_is_read() {
    let k = Keywords::new(&[], 1);
    let rs = |text: &str| k.admits(FileKind::Rust, Path::new("src/store.rs"), text.as_bytes());
    let keys = |text: &str| {
        let f = rust_facts(text);
        flow_events(&f)
            .filter(|e| matches!(e, crate::facts::flow::StepKind::Redis { .. }))
            .count()
            + f.redis_writes.len()
    };
    let c = "async fn f(c: &mut redis::aio::MultiplexedConnection, m: &Map, id: &str)";
    for body in [
        "let _: () = c.set_ex(\"processed_events\", 1, 60).await;",
        "let n: bool = c.exists(\"processed_events\").await;",
        "let n: Option<u8> = m.get(\"webhook_events\").copied();",
        "let _: () = redis::cmd(\"SET\").arg(\"processed_events\").arg(1).query_async(c).await;",
        "let _: () = c.set_ex(format!(\"processed_events_{id}\"), 1, 60).await;",
        "let k = \"processed_events\"; let _: () = c.set_ex(k, 1, 60).await;",
        "let _: () = c.get::<_, ()>(\"processed_events\").await;",
    ] {
        let text = format!("{c} {{ {body} }}\n");
        assert!(keys(&text) > 0, "the front end reads a key: {text}");
        assert!(rs(&text), "{text}");
    }
    for text in [
        "fn f() -> Result<(), E> { Err(E::Invalid { field_name: \"incoming_webhook_event_type\" }) }",
        "fn r(cfg: &mut Cfg) { cfg.service(web::resource(\"outgoing_webhook_event_logs\")); }",
        "fn s(x: Status) -> &'static str { match x { Status::Processed => \"processed\", _ => \"other\" } }",
        "fn t() -> String { Ok(\"outgoing_webhook_events_audit\".to_string()) }",
        // a char literal `(` does not open a call
        "fn u(c: char) -> bool { c == '(' && check(\"processed\") }",
    ] {
        assert_eq!(keys(text), 0, "{text}");
        assert!(!rs(text), "{text}");
    }
    // A `:` makes any literal a possible key prefix; so does a binding.
    assert!(rs("fn f() { log(\"processed:{}\"); }"));
    assert!(rs("static K: &str = \"processed_events\";"));
    // Past a close that matches no open, every literal may be a key.
    assert!(rs("fn f() { ) } log(\"processed_events\"); }"));
}

/// What the front end of `kind` makes of a text whose words stand in
/// description prose: no string that holds a space (the header, Redis
/// prefix and event readers take one token), no Redis instance or
/// policy, and no retention.
fn nothing_is_read_from_prose(kind: FileKind, text: &str) {
    let f = crate::frontend::parse(0, kind, text);
    assert!(f.strings.iter().all(|s| !s.value.contains(' ')));
    assert!(f.redis.settings.is_empty() && f.redis.instances.is_empty());
    assert!(f.retention.is_empty());
}

/// The readers take nothing from the Json prose the prefilter judges
/// silent (the same text ends the prefilter's test
/// `words_in_json_description_prose_admit_nothing`).
#[test]
fn json_readers_take_nothing_from_description_prose() {
    let text = r#"{"description": "Idempotency-Key idem:stripe: idempotency_ttl 86400", "components": {"redis": {"host": {"description": "the dedup Redis host, idem-redis"}}}}"#;
    nothing_is_read_from_prose(FileKind::Json, text);
}

/// The readers take nothing from the Yaml prose the prefilter judges
/// silent (the same text ends the prefilter's test
/// `words_in_yaml_description_prose_admit_nothing`).
#[test]
fn yaml_readers_take_nothing_from_description_prose() {
    let text = "components:\n  redis:\n    host:\n      description: the dedup Redis host, idem-redis\n    x:\n      description: >-\n        Idempotency-Key idem:stripe: idempotency_ttl 86400\n";
    nothing_is_read_from_prose(FileKind::Yaml, text);
}
