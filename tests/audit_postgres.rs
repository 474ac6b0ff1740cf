//! `idemlint audit --postgres` against a real PostgreSQL (`.ci/run` starts
//! one and sets IDEMLINT_TEST_DATABASE_URL; unset, each test says SKIPPED):
//! store tables as deployed (no unique guard, an invalid index, a guard split
//! by partition, a Stripe store whose oldest row is 2 days old), drift from
//! the migrations, a correct deployment reported clean, and the bad input
//! (unreachable host, unknown role, permission denied, no store).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod audit_common;
use audit_common::{audit, project, psql, service, Db};

const VAR: &str = "IDEMLINT_TEST_DATABASE_URL";
const SECRET: &str = "Sup3r-S3cret-pw";

const STORES: &str = "\
CREATE TABLE processed_stripe_events (
    event_id    text        PRIMARY KEY,
    received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX processed_stripe_events_received_at_idx ON processed_stripe_events (received_at);

CREATE TABLE refund_idempotency (
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX refund_idempotency_key_idx ON refund_idempotency (idempotency_key);

CREATE TABLE payout_dedup (
    request_id   text        NOT NULL,
    request_hash bytea       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT payout_dedup_request_id_key UNIQUE (request_id)
);
";

const PARTITIONED: &str = "\
CREATE TABLE webhook_events (
    event_id    text        NOT NULL,
    payload     jsonb       NOT NULL,
    received_at timestamptz NOT NULL,
    PRIMARY KEY (event_id, received_at)
) PARTITION BY RANGE (received_at);
CREATE TABLE webhook_events_2026 PARTITION OF webhook_events
    FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE TABLE webhook_events_2027 PARTITION OF webhook_events
    FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');
";

/// The URL with `user:password@` put in front of its host.
fn with_user(url: &str, user: &str, password: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap();
    let host = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
    format!("{scheme}://{user}:{password}@{host}")
}

fn has(found: &[(String, String, String)], rule: &str, severity: &str, words: &[&str]) -> bool {
    found
        .iter()
        .any(|(r, s, m)| r == rule && s == severity && words.iter().all(|w| m.contains(w)))
}

/// The JSON of the audit above: a live finding's path is the database's,
/// its labels name the migration it contradicts, and the audit section
/// holds each table's oldest row and partitions.
fn assert_live_json(json: &serde_json::Value) {
    let d = &json["diagnostics"][0];
    assert!(
        d["path"].as_str().unwrap().starts_with("postgres://"),
        "{d}"
    );
    let labelled = json["diagnostics"].as_array().unwrap().iter().any(|d| {
        d["labels"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["path"] == "migrations/0001_stores.sql")
    });
    assert!(
        labelled,
        "a live finding names the migration it contradicts"
    );
    let table = json["audit"]["postgres"][0]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "public.processed_stripe_events")
        .unwrap()
        .clone();
    assert!(
        table["oldest"]["method"]
            .as_str()
            .unwrap()
            .contains("index"),
        "{table}"
    );
    let age = table["oldest"]["age_seconds"].as_f64().unwrap();
    assert!((2.0 * 86_400.0..2.1 * 86_400.0).contains(&age), "{age}");
    let parts = &json["audit"]["postgres"][0]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "public.webhook_events")
        .unwrap()["partitioning"];
    assert_eq!(parts["strategy"], "range");
    assert_eq!(parts["partitions"].as_array().unwrap().len(), 2, "{parts}");
}

#[test]
fn store_tables_as_deployed_are_judged_beside_the_migrations() {
    let Some(admin) = service(
        VAR,
        "store_tables_as_deployed_are_judged_beside_the_migrations",
    ) else {
        return;
    };
    let db = Db::new(&admin, "deployed");
    let dir = project(&[
        ("migrations/0001_stores.sql", STORES),
        ("migrations/0002_webhook_events.sql", PARTITIONED),
    ]);
    db.sql(STORES);
    db.sql(PARTITIONED);
    // The oldest Stripe event is 2 days old: the cleanup keeps 2 days.
    db.sql("INSERT INTO processed_stripe_events SELECT 'evt_' || g, now() - interval '2 days' + g * interval '1 minute' FROM generate_series(0, 999) g");
    // A CREATE INDEX CONCURRENTLY that failed leaves the index invalid.
    db.sql("UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'refund_idempotency_key_idx'::regclass");
    // The payout guard was dropped by hand during an incident.
    db.sql("ALTER TABLE payout_dedup DROP CONSTRAINT payout_dedup_request_id_key");
    let url = with_user(&db.url, "postgres", SECRET);
    let run = audit(
        dir.path(),
        &["--postgres-env", "AUDIT_DB", "--format", "json"],
        &[("AUDIT_DB", url.as_str())],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let found = run.findings();
    let all = format!("{found:#?}");
    assert!(
        has(
            &found,
            "missing-unique-key-constraint",
            "error",
            &["refund_idempotency_key_idx", "invalid"]
        ),
        "{all}"
    );
    assert!(
        has(
            &found,
            "missing-unique-key-constraint",
            "error",
            &["payout_dedup", "no unique guard", "request_id"]
        ),
        "{all}"
    );
    assert!(
        has(
            &found,
            "live-schema-drift",
            "warning",
            &["payout_dedup_request_id_key", "lacks"]
        ),
        "{all}"
    );
    assert!(
        has(
            &found,
            "unique-guard-split-by-partition",
            "error",
            &["webhook_events", "received_at"]
        ),
        "{all}"
    );
    assert!(
        has(
            &found,
            "ttl-below-replay-horizon",
            "warning",
            &["processed_stripe_events", "2 d old", "Stripe"]
        ),
        "{all}"
    );
    // The correct PRIMARY KEY of processed_stripe_events is not reported.
    assert!(
        !found
            .iter()
            .any(|(r, _, m)| r == "missing-unique-key-constraint"
                && m.contains("processed_stripe_events")),
        "{all}"
    );
    assert_live_json(&run.json());
    let everything = format!("{}{}", run.stdout, run.stderr);
    assert!(
        !everything.contains(SECRET),
        "the password leaked:\n{everything}"
    );
}

#[test]
fn a_correct_deployment_is_reported_clean() {
    let Some(admin) = service(VAR, "a_correct_deployment_is_reported_clean") else {
        return;
    };
    let db = Db::new(&admin, "clean");
    let schema = "\
CREATE TABLE processed_stripe_events (
    event_id    text        PRIMARY KEY,
    received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX processed_stripe_events_received_at_idx ON processed_stripe_events (received_at);
";
    let dir = project(&[("migrations/0001_events.sql", schema)]);
    db.sql(schema);
    db.sql("INSERT INTO processed_stripe_events SELECT 'evt_' || g, now() - interval '40 days' + g * interval '1 hour' FROM generate_series(0, 959) g");
    let run = audit(dir.path(), &["--postgres", &db.url], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("0 findings"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("oldest row of public.processed_stripe_events by received_at: 40 d"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("size of public.processed_stripe_events"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_large_table_without_a_timestamp_index_is_sampled_not_scanned() {
    let Some(admin) = service(
        VAR,
        "a_large_table_without_a_timestamp_index_is_sampled_not_scanned",
    ) else {
        return;
    };
    let db = Db::new(&admin, "sampled");
    let schema = "\
CREATE TABLE processed_stripe_events (
    event_id    text        PRIMARY KEY,
    payload     text        NOT NULL,
    received_at timestamptz NOT NULL
);
";
    let dir = project(&[("migrations/0001_events.sql", schema)]);
    db.sql(schema);
    // About 14 MB of rows spread evenly over the last 2 days.
    db.sql("INSERT INTO processed_stripe_events SELECT 'evt_' || g, repeat('x', 200), now() - interval '2 days' + g * interval '2 seconds' FROM generate_series(0, 86399) g");
    db.sql("ANALYZE processed_stripe_events");
    let run = audit(
        dir.path(),
        &[
            "--postgres",
            &db.url,
            "--format",
            "json",
            "--sample-rows",
            "2000",
            "--format",
            "sarif=audit.sarif",
        ],
        &[],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    // SARIF names the live object as a logical location, and is valid.
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("audit.sarif")).unwrap())
            .unwrap();
    validate_sarif(&sarif);
    let loc = &sarif["runs"][0]["results"][0]["locations"][0];
    assert_eq!(
        loc["logicalLocations"][0]["name"], "public.processed_stripe_events",
        "{loc}"
    );
    assert!(
        loc["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .starts_with("postgres://127.0.0.1:"),
        "{loc}"
    );
    let json = run.json();
    let t = &json["audit"]["postgres"][0]["tables"][0];
    assert!(
        t["oldest"]["method"]
            .as_str()
            .unwrap()
            .contains("sample of about 2000 rows"),
        "{t}"
    );
    let age = t["oldest"]["age_seconds"].as_f64().unwrap();
    assert!((1.5 * 86_400.0..2.1 * 86_400.0).contains(&age), "{age}");
    assert!(has(
        &run.findings(),
        "ttl-below-replay-horizon",
        "warning",
        &["processed_stripe_events"]
    ));
}

/// The official SARIF 2.1.0 schema (CI copies shared/ beside the clone),
/// with the stray `]` of its `run.language` pattern escaped as
/// tests/gate.rs does.
fn validate_sarif(sarif: &serde_json::Value) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/reference/sarif-schema-2.1.0.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!(
            "SKIPPED the SARIF schema check: {} is absent",
            path.display()
        );
        return;
    };
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let text = serde_json::to_string(&schema)
        .unwrap()
        .replace("{2}]?$", "{2}\\\\]?$");
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn an_unreachable_server_or_an_unknown_role_exits_2_naming_host_and_port() {
    let Some(admin) = service(
        VAR,
        "an_unreachable_server_or_an_unknown_role_exits_2_naming_host_and_port",
    ) else {
        return;
    };
    let dir = project(&[("migrations/0001.sql", STORES)]);
    let port = free_port();
    let refused = format!("postgres://app:{SECRET}@127.0.0.1:{port}/payments");
    let run = audit(
        dir.path(),
        &["--postgres", &refused, "--connect-timeout", "2"],
        &[],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("cannot connect to PostgreSQL at 127.0.0.1:{port}")),
        "{}",
        run.stderr
    );
    // An unknown role fails authentication as a wrong password does (the
    // test server trusts every local connection, so a password alone
    // cannot be refused here; tests/audit_redis.rs refuses one).
    let unknown = with_user(&admin, "idemlint_no_such_role", SECRET);
    let run = audit(
        dir.path(),
        &["--postgres-env", "AUDIT_DB"],
        &[("AUDIT_DB", unknown.as_str())],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("idemlint_no_such_role\" does not exist"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("cannot connect to PostgreSQL at 127.0.0.1:"),
        "{}",
        run.stderr
    );
    let nodb = audit_common::on_database(
        &with_user(&admin, "postgres", SECRET),
        "idemlint_no_such_db",
    );
    let run = audit(dir.path(), &["--postgres", &nodb], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("idemlint_no_such_db"), "{}", run.stderr);
    // A host that does not answer: given up on within the connect timeout.
    let started = std::time::Instant::now();
    let run = audit(
        dir.path(),
        &[
            "--postgres",
            &format!("postgres://app:{SECRET}@10.255.255.1:5432/db"),
            "--connect-timeout",
            "1",
        ],
        &[],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(run.stderr.contains("10.255.255.1:5432"), "{}", run.stderr);
    let missing = audit(
        dir.path(),
        &["--postgres-env", "IDEMLINT_UNSET_VARIABLE"],
        &[],
    );
    assert_eq!(missing.code, 2);
    assert!(
        missing
            .stderr
            .contains("`IDEMLINT_UNSET_VARIABLE` is not set"),
        "{}",
        missing.stderr
    );
    for r in [&run, &missing] {
        assert!(!r.stderr.contains(SECRET) && !r.stdout.contains(SECRET));
    }
}

#[test]
fn a_read_only_role_reads_what_it_may_and_says_what_it_could_not() {
    let Some(admin) = service(
        VAR,
        "a_read_only_role_reads_what_it_may_and_says_what_it_could_not",
    ) else {
        return;
    };
    let db = Db::new(&admin, "readonly");
    let dir = project(&[("migrations/0001_stores.sql", STORES)]);
    db.sql(STORES);
    let role = format!("idemlint_audit_ro_{}", std::process::id());
    psql(&admin, &format!("DROP ROLE IF EXISTS {role}"));
    psql(&admin, &format!("CREATE ROLE {role} LOGIN"));
    // The grants docs/audit.md gives, less the statistics view.
    db.sql(&format!(
        "GRANT CONNECT ON DATABASE {} TO {role}; GRANT USAGE ON SCHEMA public TO {role}; \
         GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}; GRANT pg_read_all_stats TO {role}; \
         REVOKE SELECT ON pg_catalog.pg_stat_user_tables FROM PUBLIC",
        db.name
    ));
    let url = with_user(&db.url, &role, SECRET);
    let run = audit(dir.path(), &["--postgres", &url], &[]);
    let _ = psql(&admin, &format!("DROP OWNED BY {role} CASCADE"));
    drop(db);
    let _ = psql(&admin, &format!("DROP ROLE IF EXISTS {role}"));
    assert!(
        run.stderr.contains("could not read pg_stat_user_tables"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("permission denied"), "{}", run.stderr);
    // It went on: the tables were read and judged.
    assert!(
        run.stdout.contains("index refund_idempotency_key_idx"),
        "{}",
        run.stdout
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(!format!("{}{}", run.stdout, run.stderr).contains(SECRET));
}

#[test]
fn a_database_with_no_store_says_so_and_goes_on() {
    let Some(admin) = service(VAR, "a_database_with_no_store_says_so_and_goes_on") else {
        return;
    };
    let db = Db::new(&admin, "nostore");
    db.sql("CREATE TABLE customers (id bigint PRIMARY KEY, email text)");
    let dir = project(&[("migrations/0001_stores.sql", STORES)]);
    let run = audit(dir.path(), &["--postgres", &db.url], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("no table of this database is an idempotency store"),
        "{}",
        run.stderr
    );
}
