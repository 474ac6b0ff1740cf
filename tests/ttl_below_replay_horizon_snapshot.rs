//! What a user sees for the cross-module Redis case of
//! `ttl-below-replay-horizon`: the number where it is written, the Redis
//! write as a label, the window's source as help.

#![allow(clippy::unwrap_used)]
use idemlint::{check, ConfigChoice, Options};
use std::path::PathBuf;

#[test]
fn redis_expiry_from_constants_in_another_module_renders_with_label_and_source() {
    let dir = PathBuf::from("testdata/rules/ttl-below-replay-horizon/flag/src");
    let outcome = check(&Options {
        paths: vec![dir],
        stdin: None,
        config: ConfigChoice::Isolated,
        no_suppressions: false,
    })
    .unwrap();
    let mut out = Vec::new();
    let mut summary = outcome.summary;
    summary.elapsed_ms = 0;
    idemlint::render::human::render(
        &outcome.diagnostics,
        &outcome.sources,
        &summary,
        false,
        &mut out,
    )
    .unwrap();
    insta::assert_snapshot!(String::from_utf8(out).unwrap());
}
