//! Fuzz target `python`: arbitrary bytes through the pipeline's entry point
//! for it (see `idemlint::fuzzing::check` for the properties checked).
#![no_main]
use idemlint::fuzzing::{check, Target};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = check(Target::Python, data) {
        panic!("{e}");
    }
});
