//! The one place where core errors become Python exceptions.

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::types::PyAnyMethods;
use pyo3::{PyErr, Python};
use qoslab_core::CaptureError;
use qoslab_core::OverrideError;

pyo3::create_exception!(
    qoslab,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be loaded: the message names the file, line, column and key path, \
     says what is wrong and how to fix it. The same parts are attributes: `kind` (a stable \
     name: syntax, unknown_key, unknown_value, unknown_name, missing_key, wrong_type, invalid, \
     limit, file), `origin`, `key_path`, `line`, `column`, `message` and `hint`."
);

pyo3::create_exception!(
    qoslab,
    RunError,
    PyRuntimeError,
    "A run that cannot give results: `kind` is `invariant` (it broke one of the simulator's \
     invariants, such as packet conservation), `stopped` (stopped at a guard) or `capture` \
     (its packet capture could not be written); `message` says what was found."
);

/// The parts of a `ScenarioError` besides its one-paragraph text.
pub struct Parts<'a> {
    /// The core's `ErrorKind` name.
    pub kind: &'static str,
    pub origin: Option<&'a str>,
    pub key_path: &'a str,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: &'a str,
    pub hint: Option<&'a str>,
}

impl<'a> Parts<'a> {
    /// A problem known only by its message, of kind `kind`.
    pub fn message(kind: &'static str, message: &'a str) -> Self {
        Parts { kind, origin: None, key_path: "", line: None, column: None, message, hint: None }
    }
}

/// A `ScenarioError` showing `text`, with `parts` as its attributes.
pub fn scenario_error_with(text: String, parts: Parts) -> PyErr {
    let error = ScenarioError::new_err(text);
    Python::attach(|py| {
        let value = error.value(py);
        let set = [
            value.setattr("kind", parts.kind),
            value.setattr("origin", parts.origin),
            value.setattr("key_path", parts.key_path),
            value.setattr("line", parts.line),
            value.setattr("column", parts.column),
            value.setattr("message", parts.message),
            value.setattr("hint", parts.hint),
        ];
        set.into_iter().collect::<Result<(), PyErr>>().expect("an exception takes attributes");
    });
    error
}

/// A scenario problem as a `ScenarioError` carrying the core's one-paragraph message and
/// its parts.
pub fn scenario_error(error: qoslab_core::ScenarioError) -> PyErr {
    let parts = Parts {
        kind: error.kind.name(),
        origin: Some(&error.origin),
        key_path: &error.key_path,
        line: error.position.map(|p| p.line),
        column: error.position.map(|p| p.column),
        message: &error.message,
        hint: error.hint.as_deref(),
    };
    scenario_error_with(error.to_string(), parts)
}

/// A malformed `--set` as a `ScenarioError`.
pub fn bad_override(error: OverrideError) -> PyErr {
    invalid_input(format!("--set: {error}"))
}

/// A failed run as a `RunError` carrying the core's message and its kind.
pub fn run_error(error: qoslab_core::RunError) -> PyErr {
    let raised = RunError::new_err(error.to_string());
    Python::attach(|py| {
        let value = raised.value(py);
        let set = [value.setattr("kind", error.kind()), value.setattr("message", error.message())];
        set.into_iter().collect::<Result<(), PyErr>>().expect("an exception takes attributes");
    });
    raised
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

/// A `ScenarioError` of kind `invalid` known only by its `text` (an option's value, say).
pub fn invalid_input(text: String) -> PyErr {
    scenario_error_with(text.clone(), Parts::message("invalid", &text))
}
