//! The list of every result table, in the results document's order, each with its columns
//! from its record type ([`super::schema`]): the schema the Python package and
//! `docs/results.md` read.

use super::results::RunRecord;
use super::results_apps::{AppRecord, SpurtRecord, UserRecord};
use super::results_distribution::DelayQuantileRecord;
use super::results_flows::{FlowRecord, HopRecord, ProbeRecord};
use super::results_ports::{ChangeRecord, ClassRecord, ClassSeriesRecord, PortRecord};
use super::results_quality::{ContractRecord, DqIntervalRecord, SeriesRecord, VoiceRecord, VoiceSpurtRecord};
use super::schema::TableSchema;

/// Every table of the results document, in the document's order: `run` first.
pub fn table_schemas() -> Vec<TableSchema> {
    let table = |name, columns| TableSchema { name, columns };
    vec![
        table("run", RunRecord::columns()),
        table("flows", FlowRecord::columns()),
        table("classes", ClassRecord::columns()),
        table("ports", PortRecord::columns()),
        table("apps", AppRecord::columns()),
        table("users", UserRecord::columns()),
        table("probes", ProbeRecord::columns()),
        table("spurts", SpurtRecord::columns()),
        table("hops", HopRecord::columns()),
        table("changes", ChangeRecord::columns()),
        table("contracts", ContractRecord::columns()),
        table("dq_intervals", DqIntervalRecord::columns()),
        table("voice", VoiceRecord::columns()),
        table("voice_spurts", VoiceSpurtRecord::columns()),
        table("series", SeriesRecord::columns()),
        table("class_series", ClassSeriesRecord::columns()),
        table("delay_distribution", DelayQuantileRecord::columns()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::drops::DropReason;
    use crate::report::schema::drop_column;
    use std::collections::BTreeSet;

    /// The unit a column's name promises by its suffix, if it has one of the unit suffixes.
    fn unit_of_suffix(name: &str) -> Option<&'static str> {
        [
            ("_ms", "ms"),
            ("_s", "s"),
            ("_bps", "bit/s"),
            ("_pct", "%"),
            ("_packets", "packets"),
            ("_bytes", "bytes"),
        ]
        .into_iter()
        .find(|(suffix, _)| name.ends_with(suffix))
        .map(|(_, unit)| unit)
    }

    #[test]
    fn units_agree_with_the_name_suffixes() {
        for table in table_schemas() {
            for column in &table.columns {
                if let Some(unit) = unit_of_suffix(&column.name) {
                    assert_eq!(column.unit, unit, "{}.{}", table.name, column.name);
                }
            }
        }
    }

    #[test]
    fn every_column_is_described_once() {
        for table in table_schemas() {
            let mut names = BTreeSet::new();
            for column in &table.columns {
                assert!(names.insert(column.name.as_str()), "{}.{} twice", table.name, column.name);
                assert!(!column.description.is_empty(), "{}.{}", table.name, column.name);
                assert!(column.description.ends_with('.'), "{}.{}", table.name, column.name);
            }
        }
    }

    #[test]
    fn every_drop_reason_has_its_column() {
        let flows = FlowRecord::columns();
        for reason in DropReason::ALL {
            let name = drop_column(reason);
            assert!(flows.iter().any(|c| c.name == name), "{name}");
        }
    }
}
