//! `idemlint audit --redis` against real Redis servers (`.ci/run` starts
//! four with Debian's redis-server and sets IDEMLINT_TEST_REDIS_URL,
//! ..._EVICTING_URL, ..._NOCONFIG_URL and ..._PASSWORD_URL; unset, each test
//! says SKIPPED): keys with 24-hour TTLs under a Stripe prefix, an
//! `allkeys-lru` instance that has evicted keys, `CONFIG` disabled, a wrong
//! password, a keyspace of a million keys, and a correct deployment.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod audit_common;
use audit_common::{audit, project, service};

/// Code that claims Stripe event ids under `{prefix}` for 40 days.
fn claim_code(prefix: &str) -> String {
    format!(
        r#"//! Claim the Stripe event id in Redis before handling it.

/// Stripe may resend an event for 30 days; keep ids past that.
const EVENT_ID_TTL_SECS: u64 = 40 * 24 * 60 * 60;

pub fn claim_event(con: &mut redis::Connection, event_id: &str) -> redis::RedisResult<bool> {{
    let claimed: Option<String> = redis::cmd("SET")
        .arg(format!("{prefix}{{event_id}}"))
        .arg("1")
        .arg("NX")
        .arg("EX")
        .arg(EVENT_ID_TTL_SECS)
        .query(con)?;
    Ok(claimed.is_some())
}}
"#
    )
}

fn connect(url: &str) -> redis::Connection {
    redis::Client::open(url).unwrap().get_connection().unwrap()
}

/// `n` keys `{prefix}evt_{i}` with a TTL of `ttl` seconds (0: none).
fn fill(url: &str, prefix: &str, n: usize, ttl: u64, value: &str) {
    let mut con = connect(url);
    let mut pipe = redis::pipe();
    for i in 0..n {
        let key = format!("{prefix}evt_{i}");
        if ttl == 0 {
            pipe.cmd("SET").arg(&key).arg(value).ignore();
        } else {
            pipe.cmd("SET")
                .arg(&key)
                .arg(value)
                .arg("EX")
                .arg(ttl)
                .ignore();
        }
    }
    let _: () = pipe.query(&mut con).unwrap();
}

fn findings_of(run: &audit_common::Run, rule: &str) -> Vec<String> {
    run.findings()
        .into_iter()
        .filter(|(r, _, _)| r == rule)
        .map(|(_, s, m)| format!("{s}: {m}"))
        .collect()
}

#[test]
fn keys_with_24_hour_ttls_under_a_stripe_prefix_are_reported() {
    let Some(url) = service(
        "IDEMLINT_TEST_REDIS_URL",
        "keys_with_24_hour_ttls_under_a_stripe_prefix_are_reported",
    ) else {
        return;
    };
    fill(&url, "idem:stripe:", 50, 86_400, "1");
    let dir = project(&[("src/dedup.rs", &claim_code("idem:stripe:"))]);
    let run = audit(dir.path(), &["--redis", &url, "--format", "json"], &[]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let ttl = findings_of(&run, "ttl-below-replay-horizon");
    assert!(
        ttl.iter().any(|m| m.starts_with("error:")
            && m.contains("idem:stripe:*")
            && m.contains("24 h")
            && m.contains("Stripe")),
        "{ttl:?}"
    );
    let json = run.json();
    let d = &json["diagnostics"][0];
    assert!(
        d["path"]
            .as_str()
            .unwrap()
            .starts_with("redis://127.0.0.1:"),
        "{d}"
    );
    let notes = d["notes"].to_string();
    assert!(notes.contains("the code's TTL is 40 d"), "{notes}");
    let p = &json["audit"]["redis"][0]["prefixes"][0];
    assert!(p["sampled"].as_u64().unwrap() >= 50, "{p}");
    assert!(p["longest_ms"].as_i64().unwrap() <= 86_400_000, "{p}");
    assert_eq!(json["audit"]["redis"][0]["policy_from"], "CONFIG GET");
}

#[test]
fn an_evicting_redis_that_has_evicted_keys_is_reported() {
    let Some(url) = service(
        "IDEMLINT_TEST_REDIS_EVICTING_URL",
        "an_evicting_redis_that_has_evicted_keys_is_reported",
    ) else {
        return;
    };
    let mut con = connect(&url);
    let value = "x".repeat(512);
    let mut evicted = 0;
    for round in 0..40 {
        fill(
            &url,
            &format!("idem:stripe:{round}:"),
            2_000,
            40 * 86_400,
            &value,
        );
        let info: String = redis::cmd("INFO").arg("stats").query(&mut con).unwrap();
        evicted = info
            .lines()
            .find_map(|l| l.strip_prefix("evicted_keys:"))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0);
        if evicted > 0 {
            break;
        }
    }
    assert!(evicted > 0, "the instance never evicted");
    let dir = project(&[("src/dedup.rs", &claim_code("idem:stripe:"))]);
    let run = audit(dir.path(), &["--redis", &url, "--format", "json"], &[]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let ev = findings_of(&run, "evicting-key-store");
    assert!(
        ev.iter().any(|m| m.starts_with("error:")
            && m.contains("allkeys-lru")
            && m.contains("has already evicted")),
        "{ev:?}"
    );
    let r = &run.json()["audit"]["redis"][0];
    assert!(r["evicted_keys"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(r["maxmemory"], 2 * 1024 * 1024);
}

#[test]
fn a_disabled_config_is_read_from_info_memory_and_said() {
    let Some(url) = service(
        "IDEMLINT_TEST_REDIS_NOCONFIG_URL",
        "a_disabled_config_is_read_from_info_memory_and_said",
    ) else {
        return;
    };
    fill(&url, "idem:stripe:", 20, 40 * 86_400, "1");
    let dir = project(&[("src/dedup.rs", &claim_code("idem:stripe:"))]);
    let run = audit(dir.path(), &["--redis", &url, "--format", "json"], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("CONFIG GET is refused"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("read from INFO memory"),
        "{}",
        run.stderr
    );
    let r = &run.json()["audit"]["redis"][0];
    assert_eq!(r["policy_from"], "INFO memory", "{r}");
    assert_eq!(r["policy"], "noeviction", "{r}");
    assert!(run.findings().is_empty(), "{:?}", run.findings());
}

#[test]
fn a_wrong_password_exits_2_naming_host_and_port_and_no_output_holds_a_password() {
    let Some(url) = service(
        "IDEMLINT_TEST_REDIS_PASSWORD_URL",
        "a_wrong_password_exits_2_naming_host_and_port_and_no_output_holds_a_password",
    ) else {
        return;
    };
    let (_, host) = url.rsplit_once('@').unwrap();
    let password = url
        .split_once("://:")
        .unwrap()
        .1
        .split_once('@')
        .unwrap()
        .0
        .to_string();
    let dir = project(&[("src/dedup.rs", &claim_code("idem:stripe:"))]);
    let wrong = format!("redis://:Wr0ng-pw-4-test@{host}");
    let run = audit(
        dir.path(),
        &["--redis-env", "CACHE_URL"],
        &[("CACHE_URL", wrong.as_str())],
    );
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains(&format!("cannot connect to Redis at {host}")),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("Wr0ng-pw-4-test") && !run.stdout.contains("Wr0ng-pw-4-test"),
        "{}",
        run.stderr
    );
    // No password at all: the server answers NOAUTH to the first read.
    let run = audit(dir.path(), &["--redis", &format!("redis://{host}")], &[]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains(host), "{}", run.stderr);
    // The right one: read, saved, and neither output nor record holds it
    // or a key beyond its prefix.
    fill(&url, "idem:stripe:", 5, 40 * 86_400, "1");
    let saved = dir.path().join("audit.json");
    let run = audit(
        dir.path(),
        &[
            "--redis-env",
            "CACHE_URL",
            "--save",
            saved.to_str().unwrap(),
            "--format",
            "json",
        ],
        &[("CACHE_URL", url.as_str())],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let record = std::fs::read_to_string(&saved).unwrap();
    for text in [&run.stdout, &run.stderr, &record] {
        assert!(!text.contains(&password), "the password leaked:\n{text}");
        assert!(
            !text.contains("evt_"),
            "a key beyond its prefix leaked:\n{text}"
        );
    }
    assert!(record.contains(&format!("redis://{host}")), "{record}");
}

#[test]
fn a_keyspace_of_a_million_keys_is_sampled_within_the_cap_and_time_limit() {
    let Some(url) = service(
        "IDEMLINT_TEST_REDIS_PASSWORD_URL",
        "a_keyspace_of_a_million_keys_is_sampled_within_the_cap_and_time_limit",
    ) else {
        return;
    };
    let mut con = connect(&url);
    let _: () = redis::cmd("DEBUG")
        .arg("POPULATE")
        .arg(1_000_000)
        .arg("bulk")
        .query(&mut con)
        .unwrap();
    fill(&url, "idem:stripe:", 2_000, 40 * 86_400, "1");
    let dir = project(&[("src/dedup.rs", &claim_code("idem:stripe:"))]);
    let started = std::time::Instant::now();
    let run = audit(
        dir.path(),
        &[
            "--redis",
            &url,
            "--format",
            "json",
            "--redis-sample",
            "100",
            "--redis-time-limit",
            "2",
        ],
        &[],
    );
    let took = started.elapsed();
    let _: () = redis::cmd("FLUSHALL").query(&mut con).unwrap();
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    let p = &run.json()["audit"]["redis"][0]["prefixes"][0];
    assert!(p["sampled"].as_u64().unwrap() <= 100, "{p}");
    assert_eq!(p["complete"], false, "{p}");
    let stopped = p["stopped_by"].as_str().unwrap();
    assert!(
        stopped.contains("cap of 100 keys") || stopped.contains("time limit"),
        "{p}"
    );
}

#[test]
fn a_correct_deployment_is_reported_clean() {
    let Some(url) = service(
        "IDEMLINT_TEST_REDIS_URL",
        "a_correct_deployment_is_reported_clean",
    ) else {
        return;
    };
    fill(&url, "idem:stripe-ok:", 30, 40 * 86_400, "1");
    let dir = project(&[("src/dedup.rs", &claim_code("idem:stripe-ok:"))]);
    let run = audit(dir.path(), &["--redis", &url], &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("0 findings"), "{}", run.stdout);
    assert!(
        run.stdout.contains("maxmemory-policy noeviction"),
        "{}",
        run.stdout
    );
}
