//! Python bindings for qoslab: the `qoslab._core` extension module.
//!
//! Everything here converts between Python and `qoslab_core`; the behaviour lives in the core
//! and the ergonomics (CLI, DataFrames, files) in the `qoslab` Python package.

mod document;
mod errors;
mod ios;
mod simulation;
mod tc;

use errors::{bad_override, scenario_error};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use qoslab_core::Override;

/// One override from Python: `(key.path, value)`, or `(key.path, value, source)` where
/// `source` names the place the value was written.
#[derive(FromPyObject)]
enum OverrideArg {
    Labelled(String, String, String),
    Plain(String, String),
}

/// Overrides from Python as core overrides.
fn core_overrides(overrides: Vec<OverrideArg>) -> Vec<Override> {
    overrides
        .into_iter()
        .map(|change| match change {
            OverrideArg::Labelled(key_path, value, source) => {
                Override { key_path, value, source: Some(source) }
            }
            OverrideArg::Plain(key_path, value) => Override { key_path, value, source: None },
        })
        .collect()
}

/// The benchmark cases: (name, scenario YAML, overrides). A function, not a constant of the
/// module: the large network's scenario is generated, and only the benchmark needs it.
#[pyfunction]
fn bench_cases() -> Vec<(&'static str, String, Vec<&'static str>)> {
    qoslab_core::bench_cases()
        .into_iter()
        .map(|case| (case.name, case.scenario.into_owned(), case.overrides.to_vec()))
        .collect()
}

/// The JSON Schema of the scenario format, as pretty-printed JSON text.
#[pyfunction]
fn json_schema() -> String {
    qoslab_core::json_schema()
}

/// The schema of every result table, `run` first: table name → its columns in order, each a
/// dict of `name`, `type`, `nullable`, `unit`, `key`, `descriptive` and `description`.
#[pyfunction]
fn table_schemas(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let tables = PyDict::new(py);
    for table in qoslab_core::results::table_schemas() {
        let columns = PyList::empty(py);
        for column in table.columns {
            let entry = PyDict::new(py);
            entry.set_item("name", column.name)?;
            entry.set_item("type", column.kind)?;
            entry.set_item("nullable", column.nullable)?;
            entry.set_item("unit", column.unit)?;
            entry.set_item("key", column.key)?;
            entry.set_item("descriptive", column.descriptive)?;
            entry.set_item("description", column.description)?;
            columns.append(entry)?;
        }
        tables.set_item(table.name, columns)?;
    }
    Ok(tables)
}

/// A bit rate as the scenario writes it (`512kbps`, `2 Mbit/s`), in bit/s; `ValueError`
/// with the reason and the fix otherwise.
#[pyfunction]
fn parse_rate_bps(text: &str) -> PyResult<u64> {
    qoslab_core::parse_rate_bps(text).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// A size as the scenario writes it (`12000B`, `12.5kB`), in bytes; `ValueError` with the
/// reason and the fix otherwise.
#[pyfunction]
fn parse_size_bytes(text: &str) -> PyResult<u64> {
    qoslab_core::parse_size_bytes(text).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// Splits one `key.path=value` override into its key path and value.
#[pyfunction]
fn parse_override(text: &str) -> PyResult<(String, String)> {
    let change = Override::parse(text).map_err(bad_override)?;
    Ok((change.key_path, change.value))
}

/// The name of a scenario and its numbers of nodes, links and flows (read, not built).
#[pyfunction]
#[pyo3(signature = (text, origin, overrides = Vec::new(), variant = None))]
fn scenario_counts(
    text: &str,
    origin: &str,
    overrides: Vec<OverrideArg>,
    variant: Option<&str>,
) -> PyResult<(String, usize, usize, usize)> {
    let overrides = core_overrides(overrides);
    let (spec, _) = qoslab_core::parse_variant(text, origin, variant, &overrides).map_err(scenario_error)?;
    // A traffic entry with `copies: N` is N flows.
    let flows = spec.traffic.iter().map(|f| f.copies.unwrap_or(1) as usize).sum();
    Ok((spec.name, spec.topology.nodes.len(), spec.topology.links.len(), flows))
}

/// The scenario's `sweep:` section and variants as JSON text (see `qoslab_core::SweepPlan`).
#[pyfunction]
fn sweep_plan(text: &str, origin: &str) -> PyResult<String> {
    Ok(qoslab_core::sweep_plan(text, origin).map_err(scenario_error)?.to_json())
}

/// Interface `interface` (`NODE.PEER`) of the scenario as JSON text: its output policy as
/// scenario data, whether an IOS configuration set it, and the rate of a shaper at its root
/// (see `qoslab_core::interface_output`), of its variant `variant` when given.
#[pyfunction]
#[pyo3(signature = (text, origin, interface, overrides = Vec::new(), variant = None))]
fn interface_output(
    text: &str,
    origin: &str,
    interface: &str,
    overrides: Vec<OverrideArg>,
    variant: Option<&str>,
) -> PyResult<String> {
    let overrides = core_overrides(overrides);
    let selection = qoslab_core::Selection { variant, overrides: &overrides, ..Default::default() };
    let value = qoslab_core::interface_output(text, origin, &selection, interface).map_err(scenario_error)?;
    Ok(value.to_string())
}

/// The `qoslab._core` module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", qoslab_core::VERSION)?;
    m.add("MAX_SCENARIO_BYTES", qoslab_core::MAX_SCENARIO_BYTES)?;
    m.add("ScenarioError", m.py().get_type::<errors::ScenarioError>())?;
    m.add("RunError", m.py().get_type::<errors::RunError>())?;
    m.add_function(wrap_pyfunction!(interface_output, m)?)?;
    m.add_function(wrap_pyfunction!(bench_cases, m)?)?;
    m.add_function(wrap_pyfunction!(json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(parse_override, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate_bps, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_counts, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_plan, m)?)?;
    m.add_function(wrap_pyfunction!(table_schemas, m)?)?;
    m.add_function(wrap_pyfunction!(ios::ios_read, m)?)?;
    m.add_function(wrap_pyfunction!(ios::ios_check, m)?)?;
    m.add_function(wrap_pyfunction!(ios::ios_flavour, m)?)?;
    m.add_function(wrap_pyfunction!(ios::ios_migrate, m)?)?;
    m.add_function(wrap_pyfunction!(ios::ios_interfaces, m)?)?;
    m.add_function(wrap_pyfunction!(ios::ios_explain, m)?)?;
    m.add_function(wrap_pyfunction!(ios::ios_to_yaml, m)?)?;
    m.add_function(wrap_pyfunction!(ios::ios_from_yaml, m)?)?;
    m.add_function(wrap_pyfunction!(tc::tc_from_yaml, m)?)?;
    m.add_function(wrap_pyfunction!(tc::tc_import, m)?)?;
    m.add_class::<simulation::Simulation>()?;
    m.add_class::<document::ResultsDocument>()
}
