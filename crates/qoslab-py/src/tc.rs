//! Linux traffic control for the `qoslab tc` command: export of a scenario interface's
//! output policy as a `tc` script, and import of what `tc` shows of a device.

use crate::errors::scenario_error;
use crate::{core_overrides, OverrideArg};
use pyo3::prelude::*;
use qoslab_core::Selection;

/// The output policy of interface `interface` (`NODE.PEER`) of the scenario `text` as a
/// shell script of `tc` commands for Linux device `device` (default `eth0`); `variant` and
/// `overrides` choose the form of the scenario as for a run. Refused (a `ScenarioError`
/// naming the scenario's key) when a run would refuse the scenario or tc cannot express the
/// policy.
#[pyfunction]
#[pyo3(signature = (text, origin, interface, device = None, overrides = Vec::new(), variant = None))]
pub fn tc_from_yaml(
    text: &str,
    origin: &str,
    interface: &str,
    device: Option<&str>,
    overrides: Vec<OverrideArg>,
    variant: Option<&str>,
) -> PyResult<String> {
    let overrides = core_overrides(overrides);
    let selection = Selection { variant, overrides: &overrides, ..Selection::default() };
    qoslab_core::tc_from_yaml(text, origin, &selection, interface, device).map_err(scenario_error)
}

/// A device's policy from what tc shows: `qdiscs` and `classes` as (text, name) pairs,
/// `filters` as ((text, name), parent handle or None) — as the YAML of an interface entry.
/// Refused (a `ScenarioError` naming the output and the entry) where it cannot be read.
#[pyfunction]
pub fn tc_import(
    qdiscs: (String, String),
    classes: (String, String),
    filters: Vec<((String, String), Option<String>)>,
) -> PyResult<String> {
    let filters: Vec<((&str, &str), Option<&str>)> =
        filters.iter().map(|((t, o), p)| ((t.as_str(), o.as_str()), p.as_deref())).collect();
    qoslab_core::tc_import_yaml((&qdiscs.0, &qdiscs.1), (&classes.0, &classes.1), &filters)
        .map_err(scenario_error)
}
