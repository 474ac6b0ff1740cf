//! `audit --save FILE` then `inventory --live FILE`: the record keeps what
//! was read and no secret, and every inventory format shows the live facts
//! beside the code's (against the services `.ci/run` starts; SKIPPED
//! without them).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod audit_common;
use audit_common::{audit, project, service, Db};
use std::process::Command;

const SCHEMA: &str = "\
CREATE TABLE processed_stripe_events (
    event_id    text        PRIMARY KEY,
    received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX processed_stripe_events_received_at_idx ON processed_stripe_events (received_at);
";

const CLAIM: &str = r#"//! Claim the Stripe event id in Redis.
const EVENT_ID_TTL_SECS: u64 = 40 * 24 * 60 * 60;

pub fn claim_event(con: &mut redis::Connection, event_id: &str) -> redis::RedisResult<bool> {
    let claimed: Option<String> = redis::cmd("SET")
        .arg(format!("idem:stripe-inv:{event_id}"))
        .arg("1")
        .arg("NX")
        .arg("EX")
        .arg(EVENT_ID_TTL_SECS)
        .query(con)?;
    Ok(claimed.is_some())
}
"#;

fn inventory(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_idemlint"))
        .current_dir(dir)
        .arg("inventory")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_saved_record_shows_beside_the_code_in_every_inventory_format() {
    let test = "the_saved_record_shows_beside_the_code_in_every_inventory_format";
    let (Some(admin), Some(redis_url)) = (
        service("IDEMLINT_TEST_DATABASE_URL", test),
        service("IDEMLINT_TEST_REDIS_URL", test),
    ) else {
        return;
    };
    let db = Db::new(&admin, "inventory");
    db.sql(SCHEMA);
    db.sql("INSERT INTO processed_stripe_events SELECT 'evt_' || g, now() - interval '2 days' + g * interval '1 minute' FROM generate_series(0, 99) g");
    let mut con = redis::Client::open(redis_url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    for i in 0..10 {
        let _: () = redis::cmd("SET")
            .arg(format!("idem:stripe-inv:evt_private_{i}"))
            .arg("1")
            .arg("EX")
            .arg(86_400)
            .query(&mut con)
            .unwrap();
    }
    let dir = project(&[
        ("migrations/0001_events.sql", SCHEMA),
        ("src/claim.rs", CLAIM),
    ]);
    // trust auth takes any password: this one must never be written down.
    let (scheme, rest) = db.url.split_once("://").unwrap();
    let host = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
    let url = format!("{scheme}://postgres:Inv3ntory-pw@{host}");
    let run = audit(
        dir.path(),
        &[
            "--postgres-env",
            "DB",
            "--redis",
            &redis_url,
            "--save",
            "live.json",
        ],
        &[("DB", url.as_str())],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let record = std::fs::read_to_string(dir.path().join("live.json")).unwrap();
    assert!(!record.contains("Inv3ntory-pw"), "{record}");
    assert!(!record.contains("evt_private"), "{record}");
    assert!(record.contains("\"idem:stripe-inv:*\""), "{record}");

    for format in ["terminal", "markdown", "json", "html"] {
        let (code, out, err) = inventory(dir.path(), &["--live", "live.json", "--format", format]);
        assert_eq!(code, 0, "{format}: {err}");
        assert!(out.contains("oldest row 2 d"), "{format}:\n{out}");
        assert!(
            out.contains("processed_stripe_events_pkey"),
            "{format}:\n{out}"
        );
        assert!(
            out.contains("maxmemory-policy noeviction"),
            "{format}:\n{out}"
        );
        assert!(out.contains("longest 24 h"), "{format}:\n{out}");
        assert!(!out.contains("Inv3ntory-pw"), "{format}");
    }
    let (_, html, _) = inventory(dir.path(), &["--live", "live.json", "--format", "html"]);
    assert!(
        html.contains("live 2d<"),
        "the timeline marks what the table keeps"
    );
    let (code, _, err) = inventory(dir.path(), &["--live", "missing.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("missing.json"), "{err}");
    std::fs::write(dir.path().join("bad.json"), "{\"postgres\": 3}").unwrap();
    let (code, _, err) = inventory(dir.path(), &["--live", "bad.json"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("not a record written by `idemlint audit --save`"),
        "{err}"
    );
}
