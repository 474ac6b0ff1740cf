//! Fuzz target `pipeline`: a few files of chosen kinds with fuzzed bodies,
//! written to a temporary directory and checked as one project, then fixed
//! twice (`idemlint::fuzzing::check_and_fix_dir`): no panic, no untrusted
//! run, every diagnostic span inside its file, `--fix` twice equals once.
#![no_main]
use arbitrary::Arbitrary;

#[derive(Debug, Arbitrary)]
enum Kind {
    Rust,
    Sql,
    Yaml,
    HelmTemplate,
    Json,
    Toml,
    Env,
    RedisConf,
    Hcl,
    Text,
    Config,
}

#[derive(Debug, Arbitrary)]
struct File {
    kind: Kind,
    body: Vec<u8>,
}

#[derive(Debug, Arbitrary)]
struct Tree {
    files: Vec<File>,
}

fn path(kind: &Kind, n: usize) -> String {
    match kind {
        Kind::Rust => format!("src/f{n}.rs"),
        Kind::Sql => format!("migrations/{n:04}_f.sql"),
        Kind::Yaml => format!("config/f{n}.yaml"),
        Kind::HelmTemplate => format!("charts/app/templates/f{n}.yaml"),
        Kind::Json => format!("config/f{n}.json"),
        Kind::Toml => format!("config/f{n}.toml"),
        Kind::Env => format!("e{n}/.env"),
        Kind::RedisConf => format!("r{n}/redis.conf"),
        Kind::Hcl => format!("infra/f{n}.tf"),
        Kind::Text => format!("docs/f{n}.md"),
        // Read only when the run is not isolated; written so that a stray
        // config never makes a check fail to start.
        Kind::Config => format!("sub{n}/idemlint.toml"),
    }
}

libfuzzer_sys::fuzz_target!(|tree: Tree| {
    let Ok(dir) = tempfile::tempdir() else { return };
    let root = dir.path().join("repo");
    for (n, f) in tree.files.iter().take(6).enumerate() {
        let p = root.join(path(&f.kind, n));
        if let Some(parent) = p.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        // Every body carries a keyword so the prefilter lets it through.
        let mut body = b"idempotency ".to_vec();
        body.extend_from_slice(&f.body);
        let _ = std::fs::write(p, body);
    }
    let _ = std::fs::create_dir_all(&root);
    if let Err(e) = idemlint::fuzzing::check_and_fix_dir(&root) {
        panic!("{e}");
    }
});
