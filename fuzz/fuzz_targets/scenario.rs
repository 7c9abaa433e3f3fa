//! The scenario loader on arbitrary text: `qoslab_core::load` never panics or hangs, every
//! error names its place, and a scenario that loads runs briefly to a clean finish.
//!
//! The origin is a file in `examples/`, so the files an example refers to resolve.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fuzz_target!(|data: &[u8]| {
    static ORIGIN: OnceLock<String> = OnceLock::new();
    let origin = ORIGIN.get_or_init(|| qoslab_fuzz::examples_dir().join("fuzz.yaml").display().to_string());
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    qoslab_fuzz::load_and_run(text, origin, &[]);
});
