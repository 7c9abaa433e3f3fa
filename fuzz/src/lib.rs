//! What every fuzz target asserts about qoslab-core, beyond "no panic": an error names its
//! place, and a scenario that loads runs to a clean finish (the core's end-of-run checks
//! include packet conservation).

use qoslab_core::{Override, ScenarioError, Simulation};
use std::path::PathBuf;

/// The simulated time a loaded scenario is run for: long enough for packets to cross every
/// example's topology, short enough to keep thousands of runs a second.
pub const RUN_DURATION: &str = "20ms";

/// The repository's `examples/` folder.
pub fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// The text and origin of every example scenario, sorted by file name. The origin is the
/// file's own path, so the files an example refers to (IOS configurations, traces) load.
pub fn example_scenarios() -> Vec<(String, String)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(examples_dir())
        .expect("the examples folder")
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("an example");
            (text, path.display().to_string())
        })
        .collect()
}

/// Panics unless `error` names where it is: its origin, and a line and column or a key path
/// (or the `--set` it came from); only an error about the whole document may have neither,
/// and then it says so. A line and column must lie in `text` (or just past its end).
pub fn assert_located(error: &ScenarioError, text: &str) {
    assert!(!error.origin.is_empty(), "an error without an origin: {error:?}");
    assert!(!error.message.is_empty(), "an error without a message: {error:?}");
    let placed = error.position.is_some() || !error.key_path.is_empty() || error.origin.contains("(--set ");
    let whole_document = error.message.contains("scenario") || error.message.starts_with("missing key `");
    assert!(placed || whole_document, "an error without a place: {error:?}");
    if let Some(position) = error.position {
        // YAML ends a line at a line feed, a carriage return, or the two together.
        let breaks = text.replace("\r\n", "\n").matches(['\n', '\r']).count();
        assert!(
            (1..=breaks + 1).contains(&position.line) && position.column >= 1,
            "a position outside the text: {error:?}"
        );
    }
}

/// Loads `text` with `overrides`; if it loads, loads it again cut to [`RUN_DURATION`] with no
/// warm-up and runs it to the end, which must pass the end-of-run checks.
pub fn load_and_run(text: &str, origin: &str, overrides: &[Override]) {
    match qoslab_core::load(text, origin, overrides, None) {
        Err(error) => assert_located(&error, text),
        Ok(_) => {
            let mut short = overrides.to_vec();
            for setting in [format!("run.duration={RUN_DURATION}"), "run.warmup=0s".to_owned()] {
                short.push(Override::parse(&setting).expect("a valid override"));
            }
            match qoslab_core::load(text, origin, &short, None) {
                Err(error) => assert_located(&error, text),
                Ok(sim) => finish(sim),
            }
        }
    }
}

fn finish(sim: Simulation) {
    if let Err(error) = sim.finish() {
        panic!("a loaded scenario broke an end-of-run check: {error}");
    }
}
