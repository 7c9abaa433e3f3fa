//! Cisco IOS configuration import for the `qoslab ios` command.

use crate::errors::ScenarioError;
use pyo3::prelude::*;
use qoslab_core::ios::{explain, interface_settings, parse, to_yaml, Severity};

/// A problem resolving an interface as a `ScenarioError` naming the line.
fn unresolved((line, message): (usize, String)) -> PyErr {
    match line {
        0 => ScenarioError::new_err(message),
        line => ScenarioError::new_err(format!("line {line}: {message}")),
    }
}

/// Every finding of a configuration: `(severity, line, column, message, hint)`, severity
/// `"warning"` or `"error"`.
#[pyfunction]
pub fn ios_check(text: &str) -> Vec<(String, usize, usize, String, Option<String>)> {
    parse(text)
        .diagnostics
        .into_iter()
        .map(|d| {
            let severity = if d.severity == Severity::Error { "error" } else { "warning" };
            (severity.to_owned(), d.line, d.column, d.message, d.hint)
        })
        .collect()
}

/// The configuration's interfaces, by their canonical names.
#[pyfunction]
pub fn ios_interfaces(text: &str) -> Vec<String> {
    parse(text).interfaces.into_iter().map(|i| i.name).collect()
}

/// What interface `interface` does; `rate` is the link's physical rate (`"128kbps"`).
#[pyfunction]
#[pyo3(signature = (text, interface, rate = None))]
pub fn ios_explain(text: &str, interface: &str, rate: Option<&str>) -> PyResult<String> {
    let rate_bps = rate
        .map(|r| {
            qoslab_core::units::parse_rate_bps(r).map_err(|e| ScenarioError::new_err(format!("--rate: {e}")))
        })
        .transpose()?;
    explain(&parse(text), interface, rate_bps).map_err(unresolved)
}

/// Interface `interface` as the YAML of a scenario's `interfaces.NODE.PEER` entry.
#[pyfunction]
pub fn ios_to_yaml(text: &str, interface: &str) -> PyResult<String> {
    interface_settings(&parse(text), interface).map(|s| to_yaml(&s)).map_err(unresolved)
}
