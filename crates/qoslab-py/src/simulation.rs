//! `Simulation`: a loaded scenario that Python advances in steps and then finishes.

use crate::errors::{already_finished, capture_error, run_error, scenario_error};
use crate::{core_overrides, OverrideArg};
use pyo3::prelude::*;
use qoslab_core::sim::CHECK_EVERY_EVENTS;
use qoslab_core::{Limits, Selection};

/// Events simulated between two looks for a pending signal (Ctrl-C): a few tens of
/// milliseconds of work.
const EVENTS_PER_SLICE: u64 = 16 * CHECK_EVERY_EVENTS;

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
    /// Parses, validates and builds the scenario in `text` (its variant `variant`, when
    /// given); `origin` names it in errors. `seed` and `replication` replace the run's.
    /// `max_memory_bytes` and `max_events` bound what the run may take (the core's
    /// defaults when not given).
    #[new]
    #[pyo3(signature = (text, origin, overrides = Vec::new(), seed = None, max_memory_bytes = None, max_events = None, variant = None, replication = None))]
    fn new(
        text: &str,
        origin: &str,
        overrides: Vec<OverrideArg>,
        seed: Option<u64>,
        max_memory_bytes: Option<u64>,
        max_events: Option<u64>,
        variant: Option<&str>,
        replication: Option<u64>,
    ) -> PyResult<Self> {
        let defaults = Limits::default();
        let limits = Limits {
            max_memory_bytes: max_memory_bytes.unwrap_or(defaults.max_memory_bytes),
            max_events: max_events.unwrap_or(defaults.max_events),
        };
        let overrides = core_overrides(overrides);
        let selection = Selection { variant, overrides: &overrides, seed, replication };
        let core = qoslab_core::load_selected(text, origin, &selection, &limits);
        Ok(Self { inner: Some(core.map_err(scenario_error)?) })
    }

    /// SHA-256 (hex) of the effective scenario and the files its build read.
    #[getter]
    fn scenario_sha256(&self) -> PyResult<String> {
        Ok(self.core()?.scenario_sha256().to_owned())
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

    /// Captures the frames of the ports `measure.pcap` names (every port without it) into
    /// one pcap file per port in `folder` (created if need be); returns the files' paths.
    /// Raises `OSError` when the folder or a file cannot be created, `RuntimeError` once
    /// the run has advanced.
    fn capture_pcap(&mut self, folder: std::path::PathBuf) -> PyResult<Vec<std::path::PathBuf>> {
        let core = self.inner.as_mut().ok_or_else(already_finished)?;
        core.capture_pcap(&folder).map_err(capture_error)
    }

    /// Processes every event before `until_ns` (at most to the end of the run), without the
    /// GIL, in slices: between two slices a pending signal is handled, so Ctrl-C raises
    /// `KeyboardInterrupt` within a fraction of a second. Raises `RunError` if the run was
    /// stopped at a guard.
    fn advance(&mut self, py: Python<'_>, until_ns: u64) -> PyResult<()> {
        let core = self.inner.as_mut().ok_or_else(already_finished)?;
        while !py.detach(|| core.advance_some(until_ns, EVENTS_PER_SLICE)) {
            py.check_signals()?;
        }
        match core.halted() {
            Some(error) => Err(run_error(error.clone())),
            None => Ok(()),
        }
    }

    /// Runs to the end, checks the invariants and returns the results as JSON text.
    fn finish(&mut self, py: Python<'_>) -> PyResult<String> {
        let core = self.inner.take().ok_or_else(already_finished)?;
        let results = py.detach(|| core.finish()).map_err(run_error)?;
        Ok(results.to_json())
    }
}
