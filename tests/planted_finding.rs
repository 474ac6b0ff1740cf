//! Property: whatever else a tree holds — valid files, truncated files,
//! garbage, deep nesting, invalid UTF-8, of every kind the walker reads —
//! one planted finding is always reported and the run fails with exit 1
//! (an `Ok` outcome that fails at the default threshold), never 0 or 2.
//! Every diagnostic's spans lie inside its file, and `--fix` applied twice
//! changes nothing the first application left (`idemlint::fuzzing`).
//! A front end that panics or runs past its time bound fails the case.
//! Each run draws new cases; `.ci/run` fixes `PROPTEST_RNG_SEED` so the
//! gate is reproducible. `PROPTEST_CASES=3000` explores further.

#![allow(clippy::unwrap_used)]
use idemlint::config::FailOn;
use idemlint::fuzzing;
use proptest::prelude::*;
use std::path::Path;

/// Valid files of each kind, with the words the prefilter looks for.
const RUST: &[&str] = &[
    "pub const IDEMPOTENCY_TTL_SECS: u64 = 86_400;\n",
    "use stripe::Client;\nasync fn pay(c: &Client, key: &str) {\n    let _ = c.post(\"/v1/charges\").header(\"Idempotency-Key\", key);\n}\n",
    "fn dedup(conn: &mut redis::Connection, id: &str) {\n    let _: () = redis::cmd(\"SET\").arg(format!(\"idem:orders:{id}\")).arg(1).arg(\"EX\").arg(3600).query(conn).unwrap();\n}\n",
    "#[cfg(test)]\nmod tests {\n    #[test]\n    fn replay() { assert_eq!(\"Idempotency-Key\".len(), 15); }\n}\n",
];
const SQL: &[&str] = &[
    "CREATE TABLE processed_orders (id bigint PRIMARY KEY, idempotency_key text NOT NULL UNIQUE);\n",
    "CREATE TABLE webhook_deliveries (id bigserial PRIMARY KEY, payload jsonb);\nDELETE FROM webhook_deliveries WHERE created_at < now() - interval '7 days';\n",
    "-- dedup of audit rows\nCREATE INDEX audit_idem ON audit_log (idempotency_key);\n",
    "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql; -- replay\n",
];
const YAML: &[&str] = &[
    "idempotency:\n  ttl: 72h\n  store: redis\n",
    "services:\n  cache:\n    image: redis:7\n    command: redis-server --maxmemory-policy noeviction\n",
    "webhook:\n  dedup_ttl_hours: 1000\n  headers:\n    - name: Idempotency-Key\n",
    "{{- if .Values.idempotency }}\nkind: ConfigMap\ndata:\n  ttl: {{ .Values.ttl | quote }}\n{{- end }}\n",
];
const JSON: &[&str] = &[
    "{\"idempotency\": {\"ttl_seconds\": 3600000}}\n",
    "{\n  // jsonc\n  \"dedup\": {\"window\": \"90d\"},\n}\n",
    "[{\"header\": \"Idempotency-Key\"}]\n",
];
const TOML: &[&str] = &[
    "[idempotency]\nttl = \"60d\"\n",
    "[webhooks.dedup]\nretention_days = 90\nheader = \"Idempotency-Key\"\n",
];
const ENV: &[&str] = &[
    "IDEMPOTENCY_TTL=90d\nREDIS_URL=redis://cache:6379\n",
    "export DEDUP_WINDOW_HOURS=2000\n# replay\n",
];
const REDIS: &[&str] = &[
    "# cache for sessions, idempotency not here\nmaxmemory 1gb\nmaxmemory-policy noeviction\n",
    "bind 0.0.0.0\nappendonly yes\n# dedup\n",
];
const HCL: &[&str] = &[
    "resource \"aws_elasticache_parameter_group\" \"sessions\" {\n  family = \"redis7\"\n  # idempotency lives elsewhere\n  parameter {\n    name  = \"maxmemory-policy\"\n    value = \"noeviction\"\n  }\n}\n",
    "variable \"dedup_ttl\" {\n  default = \"72h\"\n}\n",
];
const TEXT: &[&str] = &[
    "Send the Idempotency-Key header; replays are answered from the store.\n",
    "proxy_set_header Idempotency-Key $http_idempotency_key; # nginx\n",
];
/// Fragments spliced into broken files: the words front ends key on.
const SOUP: &[&str] = &[
    "idempotency",
    "dedup",
    "replay",
    "maxmemory-policy",
    "CREATE TABLE",
    "UNIQUE",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "{{",
    "}}",
    "\"",
    "'",
    "$$",
    "/*",
    "--",
    "#",
    "//",
    ":",
    "=",
    "\n",
    "\r\n",
    "\t",
    "  ",
    "é",
    "💥",
    "\u{feff}",
    "<<EOT\n",
    "EOT\n",
    "- ",
    "&a",
    "*a",
    "idemlint: allow(",
    "PT24H",
    "24h",
    "-1",
    "1e999",
];

#[derive(Debug, Clone, Copy)]
enum Kind {
    Rust,
    Sql,
    Yaml,
    Json,
    Toml,
    Env,
    Redis,
    Hcl,
    Text,
}

const KINDS: [Kind; 9] = [
    Kind::Rust,
    Kind::Sql,
    Kind::Yaml,
    Kind::Json,
    Kind::Toml,
    Kind::Env,
    Kind::Redis,
    Kind::Hcl,
    Kind::Text,
];

impl Kind {
    fn samples(self) -> &'static [&'static str] {
        match self {
            Kind::Rust => RUST,
            Kind::Sql => SQL,
            Kind::Yaml => YAML,
            Kind::Json => JSON,
            Kind::Toml => TOML,
            Kind::Env => ENV,
            Kind::Redis => REDIS,
            Kind::Hcl => HCL,
            Kind::Text => TEXT,
        }
    }

    fn path(self, n: usize) -> String {
        match self {
            Kind::Rust => format!("src/gen_{n}.rs"),
            Kind::Sql => format!("migrations/{:04}_gen.sql", n + 1),
            Kind::Yaml => format!("config/gen_{n}.yaml"),
            Kind::Json => format!("config/gen_{n}.json"),
            Kind::Toml => format!("config/gen_{n}.toml"),
            Kind::Env => format!("env_{n}/.env"),
            Kind::Redis => format!("redis_{n}/redis.conf"),
            Kind::Hcl => format!("infra/gen_{n}.tf"),
            Kind::Text => format!("docs/gen_{n}.md"),
        }
    }
}

/// How a generated file's body is made.
#[derive(Debug, Clone)]
enum Body {
    Valid(usize),
    /// A valid sample cut at a byte (possibly inside a character).
    Truncated(usize, usize),
    /// A valid sample with fragments spliced in at byte offsets.
    Spliced(usize, Vec<(usize, usize)>),
    /// Fragments only.
    Soup(Vec<usize>),
    /// Arbitrary bytes after a keyword, so the prefilter lets them through.
    Bytes(Vec<u8>),
    /// Brackets nested deep.
    Deep(usize),
}

fn render(kind: Kind, body: &Body) -> Vec<u8> {
    let samples = kind.samples();
    let sample = |i: usize| samples[i % samples.len()].as_bytes().to_vec();
    match body {
        Body::Valid(i) => sample(*i),
        Body::Truncated(i, at) => {
            let s = sample(*i);
            let at = at % (s.len() + 1);
            s[..at].to_vec()
        }
        Body::Spliced(i, cuts) => {
            let mut s = sample(*i);
            for (at, frag) in cuts {
                let at = at % (s.len() + 1);
                let f = SOUP[frag % SOUP.len()].as_bytes();
                s.splice(at..at, f.iter().copied());
            }
            s
        }
        Body::Soup(frags) => frags
            .iter()
            .flat_map(|f| SOUP[f % SOUP.len()].bytes())
            .collect(),
        Body::Bytes(b) => {
            let mut s = b"idempotency ".to_vec();
            s.extend(b);
            s
        }
        Body::Deep(n) => {
            let (open, close) = match kind {
                Kind::Yaml | Kind::Json | Kind::Hcl => ("[", "]"),
                Kind::Toml => ("a = [", "]"),
                _ => ("(", ")"),
            };
            format!("idempotency {}1{}\n", open.repeat(*n), close.repeat(*n)).into_bytes()
        }
    }
}

fn body() -> impl Strategy<Value = Body> {
    prop_oneof![
        (0..8usize).prop_map(Body::Valid),
        (0..8usize, 0..400usize).prop_map(|(i, at)| Body::Truncated(i, at)),
        (
            0..8usize,
            prop::collection::vec((0..400usize, 0..64usize), 1..6)
        )
            .prop_map(|(i, c)| Body::Spliced(i, c)),
        prop::collection::vec(0..64usize, 1..40).prop_map(Body::Soup),
        prop::collection::vec(any::<u8>(), 0..200).prop_map(Body::Bytes),
        (1..2000usize).prop_map(Body::Deep),
    ]
}

/// A finding that must be reported wherever it sits: (path, text, rule).
const PLANTED: &[(&str, &str, &str)] = &[
    (
        "migrations/0000_planted.sql",
        "CREATE TABLE idempotency_planted (key text NOT NULL, response jsonb);\n",
        "missing-unique-key-constraint",
    ),
    (
        "planted/idempotency-redis.conf",
        "# Redis for idempotency keys\nmaxmemory 2gb\nmaxmemory-policy allkeys-lru\n",
        "evicting-key-store",
    ),
    (
        "src/planted_stripe.rs",
        "use stripe::Client;\n\npub fn replayed(resp: &reqwest::Response) -> bool {\n    resp.headers().get(\"Idempotency-Replayed\").is_some()\n}\n",
        "misspelled-idempotency-header",
    ),
    // After a broken part of its own file: one bad entry or statement must
    // not hide the rest of the file.
    (
        "deploy/docker-compose.yml",
        "broken: [unclosed, {\nservices:\n  # Holds the idempotency keys of inbound webhooks.\n  idem-redis:\n    image: redis:7.2-alpine\n    command: redis-server --maxmemory 512mb --maxmemory-policy allkeys-lru\n",
        "evicting-key-store",
    ),
    (
        "migrations/0000_planted_after_error.sql",
        "CREATE TABLE broken (id int,, ;\nCREATE TABLE idempotency_planted (key text NOT NULL, response jsonb);\n",
        "missing-unique-key-constraint",
    ),
];

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        // Failures are reported with their shrunk tree; a file of them
        // next to the test would only go stale.
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_planted_finding_is_reported_whatever_else_the_tree_holds(
        files in prop::collection::vec((0..KINDS.len(), body()), 0..10),
        planted in 0..PLANTED.len(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let (p_path, p_text, p_rule) = PLANTED[planted];
        write(&root, p_path, p_text.as_bytes());
        for (n, (k, b)) in files.iter().enumerate() {
            let kind = KINDS[*k];
            write(&root, &kind.path(n), &render(kind, b));
        }
        let outcome = fuzzing::check_and_fix_dir(&root);
        let outcome = match outcome {
            Ok(o) => o,
            Err(e) => return Err(TestCaseError::fail(e)),
        };
        let found = outcome.diagnostics.iter().any(|d| {
            d.rule == p_rule && outcome.sources.path(d.file).ends_with(p_path)
        });
        let rules: Vec<(&str, &str)> = outcome
            .diagnostics
            .iter()
            .map(|d| (d.rule.as_str(), outcome.sources.path(d.file)))
            .collect();
        prop_assert!(found, "{p_rule} in {p_path} not reported; got {rules:?}");
        prop_assert!(outcome.fails(FailOn::Warning), "the run would exit 0");
    }
}
