//! The result schemas are the records' own keys: every row a run writes lists exactly the
//! columns of its table's schema, in the schema's order, and the results document holds
//! exactly the schema's tables.

use qoslab_core::results::{table_schemas, TableSchema};
use qoslab_core::{load, Override, Results};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

/// The keys of a JSON object, in the order written.
struct Keys(Vec<String>);

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = Keys;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(key);
                }
                Ok(Keys(keys))
            }
        }
        deserializer.deserialize_map(KeysVisitor)
    }
}

fn keys_of(json: &str) -> Vec<String> {
    serde_json::from_str::<Keys>(json).unwrap().0
}

fn names(table: &TableSchema) -> Vec<String> {
    table.columns.iter().map(|c| c.name.clone()).collect()
}

/// Runs an example with `overrides`.
fn run_example(name: &str, overrides: &[&str]) -> Results {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let overrides: Vec<Override> = overrides.iter().map(|o| Override::parse(o).unwrap()).collect();
    let sim = load(&text, path.to_str().unwrap(), &overrides, None).unwrap_or_else(|e| panic!("{e}"));
    sim.finish().unwrap_or_else(|e| panic!("{e}"))
}

/// The first and last row of each table of `results` that has rows, as JSON objects.
fn rows(results: &Results) -> Vec<(&'static str, String)> {
    fn ends<T: serde::Serialize>(table: &'static str, rows: &[T]) -> Vec<(&'static str, String)> {
        [rows.first(), rows.last()]
            .into_iter()
            .flatten()
            .map(|row| (table, serde_json::to_string(row).unwrap()))
            .collect()
    }
    let r = results;
    [
        vec![("run", serde_json::to_string(&r.run).unwrap())],
        ends("flows", &r.flows),
        ends("classes", &r.classes),
        ends("ports", &r.ports),
        ends("apps", &r.apps),
        ends("users", &r.users),
        ends("probes", &r.probes),
        ends("spurts", &r.spurts),
        ends("hops", &r.hops),
        ends("changes", &r.changes),
        ends("contracts", &r.contracts),
        ends("dq_intervals", &r.dq_intervals),
        ends("voice", &r.voice),
        ends("voice_spurts", &r.voice_spurts),
        ends("series", &r.series),
        ends("class_series", &r.class_series),
        ends("delay_distribution", &r.delay_distribution),
    ]
    .concat()
}

#[test]
fn the_document_holds_the_schemas_tables_in_order() {
    let results = run_example("voice-vs-flood.yaml", &[]);
    let mut keys: Vec<String> = table_schemas().iter().map(|t| t.name.to_owned()).collect();
    // Then the texts the run read, which is not a table.
    keys.push("inputs".to_owned());
    assert_eq!(keys_of(&results.to_json()), keys);
}

#[test]
fn every_row_lists_its_schemas_columns_in_order() {
    let schemas = table_schemas();
    let mut seen = BTreeSet::new();
    for (example, overrides) in [
        ("adhoc-annex-mix.yaml", &["measure.interval_table=true"][..]),
        ("adhoc-step-down.yaml", &[][..]),
        ("janet-access-router.yaml", &[][..]),
        ("lmr-push-to-talk.yaml", &[][..]),
        ("congestion-lab.yaml", &[][..]),
    ] {
        let results = run_example(example, overrides);
        for (table, row) in rows(&results) {
            let schema = schemas.iter().find(|t| t.name == table).unwrap();
            assert_eq!(keys_of(&row), names(schema), "{table} of {example}");
            seen.insert(table);
        }
    }
    let all: BTreeSet<&str> = schemas.iter().map(|t| t.name).collect();
    assert_eq!(seen, all, "tables without a row in the examples run");
}
