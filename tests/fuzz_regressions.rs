//! Replays every input under `testdata/fuzz-regressions/<target>/` through
//! the checks the fuzz target of that name runs (`idemlint::fuzzing`): the
//! crashes fuzzing found, and seed edge cases. A folder that names no target
//! is an error, so a misplaced input cannot pass unseen.

#![allow(clippy::unwrap_used)]
use idemlint::fuzzing::{self, Target};
use std::path::Path;

#[test]
fn every_fuzz_regression_input_passes_its_targets_checks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fuzz-regressions");
    let mut failures = Vec::new();
    let mut replayed = 0;
    let mut seen = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().collect();
    dirs.sort_by_key(|e| e.path());
    for dir in dirs {
        let name = dir.file_name().to_string_lossy().into_owned();
        let Some(target) = Target::from_name(&name) else {
            failures.push(format!("{name}: no fuzz target of that name"));
            continue;
        };
        seen.push(target);
        let mut files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        files.sort_by_key(|e| e.path());
        for f in files {
            let bytes = std::fs::read(f.path()).unwrap();
            replayed += 1;
            let run = std::panic::catch_unwind(|| fuzzing::check(target, &bytes));
            match run {
                Ok(Ok(())) => {}
                Ok(Err(e)) => failures.push(format!("{}: {e}", f.path().display())),
                Err(_) => failures.push(format!("{}: panicked", f.path().display())),
            }
        }
    }
    for t in Target::ALL {
        if !seen.contains(&t) {
            failures.push(format!("no regression inputs for target {}", t.name()));
        }
    }
    eprintln!("replayed {replayed} fuzz regression inputs");
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn a_span_past_the_input_or_inside_a_character_is_caught() {
    let text = "é!";
    assert!(fuzzing::span_in(text, idemlint::source::Span::new(0, 2), "t").is_ok());
    assert!(fuzzing::span_in(text, idemlint::source::Span::new(1, 2), "t").is_err());
    assert!(fuzzing::span_in(text, idemlint::source::Span::new(0, 4), "t").is_err());
    let debug = "Foo { span: Span { start: 3, end: 9 } }";
    assert!(fuzzing::spans_in(text, debug, "t").is_err());
}

#[test]
fn a_duration_prints_as_text_that_parses_back_to_it() {
    for t in [
        "24h",
        "30d",
        "1 day 2 hours",
        "PT36H",
        "86400",
        "90m",
        "2d 12h 1s",
    ] {
        fuzzing::duration_round_trip(t).unwrap();
    }
}
