//! Cisco IOS configurations for the `qoslab ios` command: import, and export of a scenario
//! interface.

use crate::errors::{invalid_input, scenario_error, scenario_error_with, Parts};
use crate::{core_overrides, OverrideArg};
use pyo3::prelude::*;
use qoslab_core::ios::{
    check, explain, flavour, migrate, parse, read_config, resolve, to_yaml, Diagnostic, IosConfig, Scheduler,
    Severity,
};
use qoslab_core::Selection;
use std::path::Path;

/// A problem of the configuration read from `origin` as a `ScenarioError` naming its place.
fn located(origin: &str) -> impl Fn(Diagnostic) -> PyErr + '_ {
    move |diagnostic| {
        let parts = Parts {
            kind: "invalid",
            origin: Some(origin),
            key_path: "",
            line: Some(diagnostic.line),
            column: Some(diagnostic.column),
            message: &diagnostic.message,
            hint: diagnostic.hint.as_deref(),
        };
        scenario_error_with(diagnostic.located(origin), parts)
    }
}

/// The text of the configuration file at `path`: a missing file, a folder, a file above
/// the size limit or text that is not UTF-8 is a `ScenarioError` saying so.
#[pyfunction]
pub fn ios_read(path: &str) -> PyResult<String> {
    read_config(Path::new(path)).map_err(|e| {
        let text = format!("{} ({})", e.message, e.hint);
        scenario_error_with(text.clone(), Parts::message("file", &text))
    })
}

/// `text` read, with the class scheduler the user names (`pre-hqf`, `hqf`, `xe`) if any.
fn read_told(text: &str, scheduler: Option<&str>) -> PyResult<IosConfig> {
    let mut config = parse(text);
    config.told_scheduler = match scheduler {
        None => None,
        Some("pre-hqf") => Some(Scheduler::PreHqf),
        Some("hqf") => Some(Scheduler::Hqf),
        Some("xe") => Some(Scheduler::Xe),
        Some(other) => {
            return Err(invalid_input(format!(
                "--scheduler: `{other}` is not a scheduler (use pre-hqf, hqf or xe)"
            )))
        }
    };
    Ok(config)
}

/// The class scheduler the configuration runs under and why, as `(name, reason)`; `None`
/// when its syntax contradicts itself or `scheduler` (`ios_check` reports that).
#[pyfunction]
#[pyo3(signature = (text, scheduler = None))]
pub fn ios_flavour(text: &str, scheduler: Option<&str>) -> PyResult<Option<(String, String)>> {
    let config = read_told(text, scheduler)?;
    Ok(flavour(&config, config.told_scheduler).ok().map(|f| (f.scheduler.name().to_owned(), f.reason)))
}

/// One finding: severity, line, column, message, hint.
type Finding = (String, usize, usize, String, Option<String>);

/// Every finding of a configuration, each interface resolved and built as a run builds it:
/// `(severity, line, column, message, hint)`, severity `"warning"` or `"error"`.
#[pyfunction]
#[pyo3(signature = (text, scheduler = None))]
pub fn ios_check(text: &str, scheduler: Option<&str>) -> PyResult<Vec<Finding>> {
    Ok(check(&read_told(text, scheduler)?)
        .into_iter()
        .map(|d| {
            let severity = if d.severity == Severity::Error { "error" } else { "warning" };
            (severity.to_owned(), d.line, d.column, d.message, d.hint)
        })
        .collect())
}

/// The configuration's interfaces, by their canonical names.
#[pyfunction]
pub fn ios_interfaces(text: &str) -> Vec<String> {
    parse(text).interfaces.into_iter().map(|i| i.name).collect()
}

/// What interface `interface` does; `rate` is the link's physical rate (`"128kbps"`);
/// `origin` names the text in errors.
#[pyfunction]
#[pyo3(signature = (text, interface, rate = None, origin = "<text>", scheduler = None))]
pub fn ios_explain(
    text: &str,
    interface: &str,
    rate: Option<&str>,
    origin: &str,
    scheduler: Option<&str>,
) -> PyResult<String> {
    let rate_bps = rate
        .map(|r| qoslab_core::parse_rate_bps(r).map_err(|e| invalid_input(format!("--rate: {e}"))))
        .transpose()?;
    explain(&read_told(text, scheduler)?, interface, rate_bps).map_err(located(origin))
}

/// The configuration rewritten so that interface `interface`'s policy shares a congested link
/// under the `to` scheduler (`"xe"` or `"hqf"`) as under its own: `(text, changes)`; `rate`
/// is the link's rate (`"100Mbps"`) when the configuration does not give the policy's.
#[pyfunction]
#[pyo3(signature = (text, interface, rate = None, origin = "<text>", to = "xe"))]
pub fn ios_migrate(
    text: &str,
    interface: &str,
    rate: Option<&str>,
    origin: &str,
    to: &str,
) -> PyResult<(String, Vec<String>)> {
    let to = match to {
        "xe" => Scheduler::Xe,
        "hqf" => Scheduler::Hqf,
        other => return Err(invalid_input(format!("--to: `{other}` is not a target (use xe or hqf)"))),
    };
    let rate_bps = rate
        .map(|r| qoslab_core::parse_rate_bps(r).map_err(|e| invalid_input(format!("the link's rate: {e}"))))
        .transpose()?;
    let migration = migrate(&parse(text), text, interface, rate_bps, to).map_err(located(origin))?;
    Ok((migration.text, migration.changes))
}

/// Interface `interface` as the YAML of a scenario's `interfaces.NODE.PEER` entry, refused
/// (naming the place in `origin`) when a run would refuse it.
#[pyfunction]
#[pyo3(signature = (text, interface, origin = "<text>", scheduler = None))]
pub fn ios_to_yaml(text: &str, interface: &str, origin: &str, scheduler: Option<&str>) -> PyResult<String> {
    resolve(&read_told(text, scheduler)?, interface, None)
        .map(|r| to_yaml(&r.settings))
        .map_err(located(origin))
}

/// Interface `interface` (`NODE.PEER`) of the scenario `text` as Cisco IOS configuration
/// text, under IOS interface name `name` (default by the link's framing); `variant` and
/// `overrides` choose the form of the scenario as for a run. Refused (a `ScenarioError`
/// naming the scenario's key) when a run would refuse the scenario or IOS cannot express
/// the interface.
#[pyfunction]
#[pyo3(signature = (text, origin, interface, name = None, overrides = Vec::new(), variant = None))]
pub fn ios_from_yaml(
    text: &str,
    origin: &str,
    interface: &str,
    name: Option<&str>,
    overrides: Vec<OverrideArg>,
    variant: Option<&str>,
) -> PyResult<String> {
    let overrides = core_overrides(overrides);
    let selection = Selection { variant, overrides: &overrides, ..Selection::default() };
    qoslab_core::ios_from_yaml(text, origin, &selection, interface, name).map_err(scenario_error)
}
