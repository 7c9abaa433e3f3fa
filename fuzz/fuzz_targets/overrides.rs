//! `--set` overrides on the example scenarios: the first byte picks an example, each further
//! line is one `key.path=value`. `Override::parse` never panics; the overridden example loads
//! or fails with an error that names its place (the `--set` that caused it, or the file), and
//! one that loads runs briefly to a clean finish.

#![no_main]

use libfuzzer_sys::fuzz_target;
use qoslab_core::Override;
use std::sync::OnceLock;

/// More overrides than this add nothing a shorter input cannot reach.
const MAX_OVERRIDES: usize = 8;

fuzz_target!(|data: &[u8]| {
    static EXAMPLES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    let examples = EXAMPLES.get_or_init(qoslab_fuzz::example_scenarios);
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(rest) = std::str::from_utf8(rest) else {
        return;
    };
    let mut overrides = Vec::new();
    for line in rest.lines().take(MAX_OVERRIDES) {
        match Override::parse(line) {
            Ok(change) => overrides.push(change),
            Err(error) => assert!(!error.to_string().is_empty(), "a refused override without a reason"),
        }
    }
    let (text, origin) = &examples[pick as usize % examples.len()];
    qoslab_fuzz::load_and_run(text, origin, &overrides);
});
