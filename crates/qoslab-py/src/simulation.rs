//! `Simulation`: a loaded scenario that Python advances in steps and then finishes.

use crate::core_overrides;
use crate::errors::{already_finished, run_error, scenario_error};
use pyo3::prelude::*;

/// A scenario loaded, validated and built, ready to run.
///
/// `finish()` consumes the core simulation, so the wrapper holds it in an `Option` and every
/// method after `finish()` raises `RuntimeError`.
#[pyclass(module = "qoslab._core")]
pub struct Simulation {
    inner: Option<qoslab_core::Simulation>,
}

impl Simulation {
    fn core(&self) -> PyResult<&qoslab_core::Simulation> {
        self.inner.as_ref().ok_or_else(already_finished)
    }
}

#[pymethods]
impl Simulation {
    /// Parses, validates and builds the scenario in `text`; `origin` names it in errors.
    #[new]
    #[pyo3(signature = (text, origin, overrides = Vec::new(), seed = None))]
    fn new(text: &str, origin: &str, overrides: Vec<(String, String)>, seed: Option<u64>) -> PyResult<Self> {
        let core = qoslab_core::load(text, origin, &core_overrides(overrides), seed);
        Ok(Self { inner: Some(core.map_err(scenario_error)?) })
    }

    /// Simulated time reached so far, in nanoseconds.
    #[getter]
    fn now_ns(&self) -> PyResult<u64> {
        Ok(self.core()?.now_ns())
    }

    /// Simulated time at which the run ends (warm-up plus duration), in nanoseconds.
    #[getter]
    fn end_ns(&self) -> PyResult<u64> {
        Ok(self.core()?.end_ns())
    }

    /// Processes every event before `until_ns` (at most to the end of the run), without the GIL.
    fn advance(&mut self, py: Python<'_>, until_ns: u64) -> PyResult<()> {
        let core = self.inner.as_mut().ok_or_else(already_finished)?;
        py.detach(|| core.advance(until_ns));
        Ok(())
    }

    /// Runs to the end, checks the invariants and returns the results as JSON text.
    fn finish(&mut self, py: Python<'_>) -> PyResult<String> {
        let core = self.inner.take().ok_or_else(already_finished)?;
        let results = py.detach(|| core.finish()).map_err(run_error)?;
        Ok(results.to_json())
    }
}
