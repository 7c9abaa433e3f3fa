//! `Simulation`: a loaded scenario that Python advances in steps and then finishes.

use crate::document::ResultsDocument;
use crate::errors::{already_finished, capture_error, run_error, scenario_error};
use crate::{core_overrides, OverrideArg};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use qoslab_core::results::{TableColumns, Values};
use qoslab_core::trace::{TraceChunk, TraceEvent};
use qoslab_core::CHECK_EVERY_EVENTS;
use qoslab_core::{DropReason, Results};
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
    /// defaults when not given). `trace`: `None` records the per-packet trace the scenario's
    /// `measure.trace` asks for, `True` records one (everything, unless the scenario says
    /// otherwise), `False` none.
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (text, origin, overrides = Vec::new(), seed = None, max_memory_bytes = None, max_events = None, variant = None, replication = None, trace = None))]
    fn new(
        text: &str,
        origin: &str,
        overrides: Vec<OverrideArg>,
        seed: Option<u64>,
        max_memory_bytes: Option<u64>,
        max_events: Option<u64>,
        variant: Option<&str>,
        replication: Option<u64>,
        trace: Option<bool>,
    ) -> PyResult<Self> {
        let defaults = Limits::default();
        let limits = Limits {
            max_memory_bytes: max_memory_bytes.unwrap_or(defaults.max_memory_bytes),
            max_events: max_events.unwrap_or(defaults.max_events),
        };
        let overrides = core_overrides(overrides);
        let selection = Selection { variant, overrides: &overrides, seed, replication };
        let mut core =
            qoslab_core::load_selected(text, origin, &selection, &limits).map_err(scenario_error)?;
        match trace {
            Some(true) => core.record_trace(),
            Some(false) => core.drop_trace(),
            None => {}
        }
        Ok(Self { inner: Some(core) })
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
    /// one pcap file per port in `folder` (created if need be; files of the same names are
    /// replaced, so give a new folder of your own); returns the files' paths.
    /// Raises `OSError` when the folder or a file cannot be created, `RuntimeError` once
    /// the run has advanced.
    fn capture_pcap(&mut self, folder: std::path::PathBuf) -> PyResult<Vec<std::path::PathBuf>> {
        let core = self.inner.as_mut().ok_or_else(already_finished)?;
        core.capture_pcap(&folder).map_err(capture_error)
    }

    /// Whether the run records a per-packet trace.
    #[getter]
    fn traces(&self) -> PyResult<bool> {
        Ok(self.core()?.traces())
    }

    /// The most the packet capture can write, bytes (the traffic's estimate per port,
    /// within `measure.pcap.max_bytes`).
    #[getter]
    fn capture_bytes_bound(&self) -> PyResult<u64> {
        Ok(self.core()?.capture_bytes_bound())
    }

    /// The most rows the per-packet trace can record (0 without a trace).
    #[getter]
    fn trace_rows_bound(&self) -> PyResult<u64> {
        Ok(self.core()?.trace_rows_bound())
    }

    /// The names the trace's index columns stand for: `event`, `reason`, `node`, `port`
    /// and `flow`, each a list in index order (classes come with each chunk).
    fn trace_dictionaries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let core = self.core()?;
        let names = PyDict::new(py);
        names.set_item("event", TraceEvent::ALL.map(TraceEvent::name).to_vec())?;
        names.set_item("reason", DropReason::ALL.map(DropReason::name).to_vec())?;
        names.set_item("node", core.node_names())?;
        names.set_item("port", core.port_names())?;
        names.set_item("flow", core.flow_names())?;
        Ok(names)
    }

    /// Processes every event before `until_ns` (at most to the end of the run), without the
    /// GIL, in slices: between two slices a pending signal is handled, so Ctrl-C raises
    /// `KeyboardInterrupt` within a fraction of a second, and full chunks of the per-packet
    /// trace are handed to `trace_sink` (a callable taking one chunk: a dict of column name
    /// to the column's little-endian bytes, with `rows` and `class_names`; without a sink
    /// the rows are discarded). Raises `RunError` if the run was stopped at a guard.
    #[pyo3(signature = (until_ns, trace_sink = None))]
    fn advance(
        &mut self,
        py: Python<'_>,
        until_ns: u64,
        trace_sink: Option<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let core = self.inner.as_mut().ok_or_else(already_finished)?;
        loop {
            let reached = py.detach(|| core.advance_some(until_ns, EVENTS_PER_SLICE));
            drain(py, core, false, trace_sink.as_ref())?;
            if reached {
                break;
            }
            py.check_signals()?;
        }
        match core.halted() {
            Some(error) => Err(run_error(error.clone())),
            None => Ok(()),
        }
    }

    /// Runs to the end, hands the rest of the per-packet trace to `trace_sink` (see
    /// `advance`), checks the invariants and returns the results as JSON text.
    #[pyo3(signature = (trace_sink = None))]
    fn finish(&mut self, py: Python<'_>, trace_sink: Option<Bound<'_, PyAny>>) -> PyResult<String> {
        let results = self.results(py, trace_sink)?;
        Ok(py.detach(|| results.to_json()))
    }

    /// `finish`, with the results as columns: the `run` record and the inputs as JSON text
    /// (`{"run": ..., "inputs": ...}`), then every other table in the document's order as
    /// `(name, rows, columns)`, each column `(name, validity, values, text)` in the memory
    /// layout of Apache Arrow: the validity bitmap (`None` when every row has a value),
    /// the values (little-endian 64-bit integers or floats, bit-packed booleans, or a text
    /// column's 64-bit offsets) and a text column's UTF-8 bytes (else `None`).
    #[pyo3(signature = (trace_sink = None))]
    fn finish_columns<'py>(
        &mut self,
        py: Python<'py>,
        trace_sink: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(String, Vec<TableTuple<'py>>)> {
        let results = self.results(py, trace_sink)?;
        Ok(columns(py, &results))
    }

    /// `finish_columns`, and the results kept for their document (JSON), which is made only
    /// when asked for: `(header, tables, document)`.
    #[pyo3(signature = (trace_sink = None))]
    fn finish_document<'py>(
        &mut self,
        py: Python<'py>,
        trace_sink: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(String, Vec<TableTuple<'py>>, ResultsDocument)> {
        let results = self.results(py, trace_sink)?;
        let (header, tables) = columns(py, &results);
        Ok((header, tables, ResultsDocument::new(results)))
    }
}

impl Simulation {
    /// Runs to the end, hands the rest of the trace to `trace_sink` and finishes the run.
    fn results(&mut self, py: Python<'_>, trace_sink: Option<Bound<'_, PyAny>>) -> PyResult<Results> {
        let end_ns = self.core()?.end_ns();
        self.advance(py, end_ns, trace_sink.clone())?;
        let mut core = self.inner.take().ok_or_else(already_finished)?;
        drain(py, &mut core, true, trace_sink.as_ref())?;
        py.detach(|| core.finish()).map_err(run_error)
    }
}

/// The `run` record and inputs as JSON text, and every other table as columns.
fn columns<'py>(py: Python<'py>, results: &Results) -> (String, Vec<TableTuple<'py>>) {
    let (header, tables) = py.detach(|| (results.header_json(), results.to_columns()));
    (header, tables.iter().map(|table| table_tuple(py, table)).collect())
}

/// One column for Python: name, validity bitmap, values, text bytes.
type ColumnTuple<'py> =
    (String, Option<Bound<'py, PyBytes>>, Bound<'py, PyBytes>, Option<Bound<'py, PyBytes>>);

/// One table for Python: name, rows, columns.
type TableTuple<'py> = (&'static str, usize, Vec<ColumnTuple<'py>>);

/// `table` as Python values, its buffers as bytes.
fn table_tuple<'py>(py: Python<'py>, table: &TableColumns) -> TableTuple<'py> {
    let columns = table
        .columns
        .iter()
        .map(|column| {
            let validity = column.validity.as_deref().map(|bits| PyBytes::new(py, bits));
            let (values, text) = match &column.values {
                Values::Int(v) => (PyBytes::new(py, v.as_bytes()), None),
                Values::Float(v) => (PyBytes::new(py, v.as_bytes()), None),
                Values::Bool(bits) => (PyBytes::new(py, bits), None),
                Values::Str { offsets, data } => {
                    (PyBytes::new(py, offsets.as_bytes()), Some(PyBytes::new(py, data)))
                }
            };
            (column.name.clone(), validity, values, text)
        })
        .collect();
    (table.name, table.rows, columns)
}

/// Hands the full trace chunks (with `all`, every row left) to `sink`, if there is one.
fn drain(
    py: Python<'_>,
    core: &mut qoslab_core::Simulation,
    all: bool,
    sink: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let mut chunks = Vec::new();
    let class_names = core.trace_class_names().to_vec();
    core.drain_trace(all, |chunk| chunks.push(chunk_dict(py, chunk, &class_names)));
    for chunk in chunks {
        if let Some(sink) = sink {
            sink.call1((chunk?,))?;
        }
    }
    Ok(())
}

/// One trace chunk for Python: each column's bytes, its row count and the class names.
fn chunk_dict<'py>(
    py: Python<'py>,
    chunk: &TraceChunk,
    class_names: &[String],
) -> PyResult<Bound<'py, PyDict>> {
    let columns = PyDict::new(py);
    let bytes = |b: &[u8]| PyBytes::new(py, b);
    columns.set_item("time_ns", bytes(chunk.time_ns.as_bytes()))?;
    columns.set_item("event", bytes(chunk.event.as_bytes()))?;
    columns.set_item("node", bytes(chunk.node.as_bytes()))?;
    columns.set_item("port", bytes(chunk.port.as_bytes()))?;
    columns.set_item("flow", bytes(chunk.flow.as_bytes()))?;
    columns.set_item("packet_id", bytes(chunk.packet_id.as_bytes()))?;
    columns.set_item("size_bytes", bytes(chunk.size_bytes.as_bytes()))?;
    columns.set_item("dscp", bytes(chunk.dscp.as_bytes()))?;
    columns.set_item("ecn", bytes(chunk.ecn.as_bytes()))?;
    columns.set_item("class", bytes(chunk.class.as_bytes()))?;
    columns.set_item("queue_packets", bytes(chunk.queue_packets.as_bytes()))?;
    columns.set_item("delay_ns", bytes(chunk.delay_ns.as_bytes()))?;
    columns.set_item("reason", bytes(chunk.reason.as_bytes()))?;
    columns.set_item("tcp_seq", bytes(chunk.tcp_seq.as_bytes()))?;
    columns.set_item("tcp_ack", bytes(chunk.tcp_ack.as_bytes()))?;
    columns.set_item("rows", chunk.rows())?;
    columns.set_item("class_names", class_names)?;
    Ok(columns)
}
