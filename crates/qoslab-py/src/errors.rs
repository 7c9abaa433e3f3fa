//! The one place where core errors become Python exceptions.

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::PyErr;
use qoslab_core::CaptureError;
use qoslab_core::OverrideError;

pyo3::create_exception!(
    qoslab,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be loaded: the message names the file, line, column and key path, \
     says what is wrong and how to fix it."
);

pyo3::create_exception!(
    qoslab,
    RunError,
    PyRuntimeError,
    "A run that broke one of the simulator's invariants, such as packet conservation."
);

/// A scenario problem as a `ScenarioError` carrying the core's one-paragraph message.
pub fn scenario_error(error: qoslab_core::ScenarioError) -> PyErr {
    ScenarioError::new_err(error.to_string())
}

/// A malformed `--set` as a `ScenarioError`.
pub fn bad_override(error: OverrideError) -> PyErr {
    ScenarioError::new_err(format!("--set: {error}"))
}

/// A failed run as a `RunError` carrying the core's message.
pub fn run_error(error: qoslab_core::RunError) -> PyErr {
    RunError::new_err(error.to_string())
}

/// A packet capture that cannot start: an `OSError` when its folder or a file cannot be
/// created, a `RuntimeError` when it is asked for after the run advanced.
pub fn capture_error(error: CaptureError) -> PyErr {
    match error {
        CaptureError::RunAdvanced => PyRuntimeError::new_err(error.to_string()),
        _ => PyOSError::new_err(error.to_string()),
    }
}

/// The error for using a simulation after `finish()` has consumed it.
pub fn already_finished() -> PyErr {
    PyRuntimeError::new_err(
        "this simulation has already finished; create a new Simulation to run the scenario again",
    )
}
