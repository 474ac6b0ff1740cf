//! Severities, labels and fixes of `misspelled-idempotency-header` on the
//! small projects under `testdata/projects/headers/` (the fixture harness
//! checks lines only; this checks what each finding says and where).

#![allow(clippy::unwrap_used)]
use idemlint::diagnostic::{Diagnostic, Severity};
use idemlint::{check, ConfigChoice, Options, Outcome};
use std::path::Path;

fn run(dir: &str) -> Outcome {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    check(&Options {
        paths: vec![root],
        stdin: None,
        config: ConfigChoice::Isolated,
        no_suppressions: false,
        include_tests: false,
        parse_timeout: None,
    })
    .unwrap()
}

fn text_at(o: &Outcome, file: usize, span: idemlint::source::Span) -> &str {
    &o.sources.text(file)[span.start..span.end]
}

fn only(o: &Outcome) -> &Diagnostic {
    assert_eq!(o.diagnostics.len(), 1, "{:#?}", o.diagnostics);
    &o.diagnostics[0]
}

fn fix_of(d: &Diagnostic) -> &str {
    let fix = d.fix.as_ref().expect("every header finding carries a fix");
    assert_eq!(fix.edits.len(), 1);
    assert_eq!(fix.edits[0].span, d.span);
    &fix.edits[0].replacement
}

#[test]
fn stripe_client_reading_idempotency_replayed_is_an_error_fixed_to_idempotent_replayed() {
    let o = run("testdata/projects/headers/stripe-client");
    let d = only(&o);
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(text_at(&o, d.file, d.span), "Idempotency-Replayed");
    assert_eq!(fix_of(d), "Idempotent-Replayed");
    assert!(d
        .notes
        .join(" ")
        .contains("Stripe sends `Idempotent-Replayed`"));
    assert_eq!(
        d.primary_label.as_deref(),
        Some("Stripe sends `Idempotent-Replayed`")
    );
}

#[test]
fn server_writing_the_wrong_replay_name_is_an_error_labelled_with_the_client_read() {
    let o = run("testdata/projects/headers/replay-written-wrong");
    let d = only(&o);
    assert_eq!(d.severity, Severity::Error);
    assert!(o.sources.path(d.file).ends_with("server/src/headers.rs"));
    assert_eq!(text_at(&o, d.file, d.span), "idempotency-replayed");
    assert_eq!(fix_of(d), "idempotent-replayed");
    assert!(
        d.message.contains("sent as `idempotency-replayed`"),
        "{}",
        d.message
    );
    let l = &d.labels[..];
    assert_eq!(l.len(), 1);
    assert!(o.sources.path(l[0].file).ends_with("web/api.ts"));
    assert_eq!(text_at(&o, l[0].file, l[0].span), "Idempotent-Replayed");
    assert_eq!(l[0].message, "read as `Idempotent-Replayed` here");
}

#[test]
fn client_reading_the_wrong_replay_name_is_an_error_labelled_with_the_server_write() {
    let o = run("testdata/projects/headers/replay-read-wrong");
    let d = only(&o);
    assert_eq!(d.severity, Severity::Error);
    assert!(o.sources.path(d.file).ends_with("scripts/settle.py"));
    assert_eq!(text_at(&o, d.file, d.span), "Idempotency-Replayed");
    assert_eq!(fix_of(d), "Idempotent-Replayed");
    let l = &d.labels[0];
    assert!(o.sources.path(l.file).ends_with("gateway/replay.go"));
    assert_eq!(text_at(&o, l.file, l.span), "Idempotent-Replayed");
    assert_eq!(l.message, "sent as `Idempotent-Replayed` here");
}

#[test]
fn server_consistently_emitting_its_own_replay_header_is_one_note_at_the_write() {
    let o = run("testdata/projects/headers/own-replay-header");
    let d = only(&o);
    assert_eq!(d.severity, Severity::Note);
    assert!(o.sources.path(d.file).ends_with("src/middleware.rs"));
    assert_eq!(text_at(&o, d.file, d.span), "idempotency-replayed");
    assert_eq!(fix_of(d), "idempotent-replayed");
}

#[test]
fn reading_a_replay_header_nobody_in_the_repository_sends_is_a_warning() {
    let o = run("testdata/projects/headers/unknown-sender");
    let d = only(&o);
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(text_at(&o, d.file, d.span), "Idempotency-Replayed");
    assert_eq!(fix_of(d), "Idempotent-Replayed");
}

#[test]
fn key_near_misses_and_underscores_are_warnings_with_the_canonical_fix() {
    let o = run("testdata/rules/misspelled-idempotency-header/flag");
    let mut keys = 0;
    for d in &o.diagnostics {
        let found = text_at(&o, d.file, d.span).to_string();
        // the span is the name itself, inside any quotes
        assert!(!found.contains(['"', '\'', ' ']), "{found}");
        assert!(d.primary_label.is_some(), "{d:?}");
        let fix = fix_of(d).to_string();
        if fix.eq_ignore_ascii_case("Idempotent-Replayed") {
            // the flag project reads Stripe's replies and spells the
            // replay header both ways: errors, labelled with the other side
            assert_eq!(d.severity, Severity::Error, "{found}");
            let cross_file = d.message.contains("elsewhere");
            assert_eq!(d.labels.len(), usize::from(cross_file), "{found}");
        } else {
            keys += 1;
            assert_eq!(d.severity, Severity::Warning, "{found}");
            // A provider's own name with one `_` among its hyphens is
            // fixed to hyphens throughout, not to the canonical name, and
            // so is a name of another header spelt with `_` (`webhook_id`).
            assert!(
                fix.eq_ignore_ascii_case("Idempotency-Key")
                    || fix.eq_ignore_ascii_case("X-Idempotency-Key")
                    || fix == found.replace('_', "-"),
                "{found} -> {fix}"
            );
            if found.contains('_') {
                assert!(d.message.contains("underscore"), "{}", d.message);
            }
        }
    }
    assert!(keys >= 10, "{keys}");
}

#[test]
fn the_fix_keeps_the_case_style_of_the_original() {
    let o = run("testdata/rules/misspelled-idempotency-header/flag");
    let fixes: Vec<(String, String)> = o
        .diagnostics
        .iter()
        .map(|d| {
            (
                text_at(&o, d.file, d.span).to_string(),
                fix_of(d).to_string(),
            )
        })
        .collect();
    assert!(fixes.contains(&("idempotancy-key".into(), "idempotency-key".into())));
    assert!(fixes.contains(&("Idempotency_Key".into(), "Idempotency-Key".into())));
    assert!(fixes.contains(&("X_Idempotency_Key".into(), "X-Idempotency-Key".into())));
}

#[test]
fn without_stripes_spelling_a_reader_that_differs_from_the_writer_is_the_error() {
    let o = run("testdata/projects/headers/reader-differs-from-writer");
    assert_eq!(o.diagnostics.len(), 2, "{:#?}", o.diagnostics);
    let read = o
        .diagnostics
        .iter()
        .find(|d| o.sources.path(d.file).ends_with("web/orders.ts"))
        .unwrap();
    assert_eq!(read.severity, Severity::Error);
    assert_eq!(text_at(&o, read.file, read.span), "Idempotent-Replay");
    assert_eq!(fix_of(read), "Idempotent-Replayed");
    assert_eq!(read.labels.len(), 1);
    assert_eq!(
        text_at(&o, read.labels[0].file, read.labels[0].span),
        "Idempotency-Replayed"
    );
    // the writer is consistent with itself: its own-name note
    let write = o
        .diagnostics
        .iter()
        .find(|d| o.sources.path(d.file).ends_with("gateway/replay.go"))
        .unwrap();
    assert_eq!(write.severity, Severity::Note);
    assert!(write.labels.is_empty());
}

#[test]
fn underscore_name_is_a_note_labelled_with_the_nginx_that_passes_it() {
    let o = run("testdata/projects/headers/nginx-passes-underscores");
    let d = only(&o);
    assert_eq!(d.severity, Severity::Note);
    assert!(o.sources.path(d.file).ends_with("pos/views.py"));
    assert_eq!(text_at(&o, d.file, d.span), "Idempotency_Key");
    assert_eq!(fix_of(d), "Idempotency-Key");
    let l = &d.labels[..];
    assert_eq!(l.len(), 1);
    assert!(o.sources.path(l[0].file).ends_with("deploy/nginx.conf"));
    assert_eq!(text_at(&o, l[0].file, l[0].span), "on");
}
