//! The result tables as columns hold what the results document holds: for runs that fill
//! every kind of table, each column's values and missing values agree with the JSON's, floats
//! bit for bit; and the document written to a file as it is made is its text byte for byte.

use qoslab_core::results::{table_schemas, Values};
use qoslab_core::{load, Override, Results};
use serde_json::Value;

/// The rows of each table of `results`' document.
fn document(results: &Results) -> serde_json::Map<String, Value> {
    match serde_json::from_str(&results.to_json()).expect("a document") {
        Value::Object(map) => map,
        _ => panic!("a document is an object"),
    }
}

/// Row `row` of a column, as the JSON value it must equal.
fn cell(values: &Values, validity: Option<&Vec<u8>>, row: usize) -> Value {
    if validity.is_some_and(|bits| bits[row / 8] & (1 << (row % 8)) == 0) {
        return Value::Null;
    }
    match values {
        Values::Int(v) => Value::from(v.get(row)),
        Values::Float(v) => Value::from(v.get(row)),
        Values::Bool(bits) => Value::from(bits[row / 8] & (1 << (row % 8)) != 0),
        Values::Str { offsets, data } => {
            let text = &data[offsets.get(row) as usize..offsets.get(row + 1) as usize];
            Value::from(std::str::from_utf8(text).expect("UTF-8"))
        }
    }
}

/// Runs example `example` with `overrides` and compares its columns with its document.
fn assert_columns_match_document(example: &str, overrides: &[&str]) -> Vec<&'static str> {
    let path = format!("{}/../../examples/{example}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the example");
    let overrides: Vec<Override> = overrides.iter().map(|o| Override::parse(o).unwrap()).collect();
    let sim = load(&text, &path, &overrides, None).unwrap_or_else(|e| panic!("{e}"));
    let results = sim.finish().expect("it runs");
    let mut written = Vec::new();
    results.write_json(&mut written).expect("written to memory");
    assert!(written == results.to_json().as_bytes(), "{path}: the document written is its text");
    let document = document(&results);
    let tables = results.to_columns();
    let names: Vec<&str> = tables.iter().map(|t| t.name).collect();
    let schema_names: Vec<&str> = table_schemas().iter().skip(1).map(|t| t.name).collect();
    assert_eq!(names, schema_names, "every table but run, in the document's order");
    let mut cells = 0;
    for table in &tables {
        let rows = document[table.name].as_array().expect("a table is a list");
        assert_eq!(table.rows, rows.len(), "{path}: {}", table.name);
        for (row, record) in rows.iter().enumerate() {
            let record = record.as_object().expect("a row is an object");
            let keys: Vec<&String> = record.keys().collect();
            let columns: Vec<&String> = table.columns.iter().map(|c| &c.name).collect();
            assert_eq!(keys.len(), columns.len(), "{path}: {}", table.name);
            for column in &table.columns {
                let want = &record[&column.name];
                let got = cell(&column.values, column.validity.as_ref(), row);
                match (want.as_f64(), got.as_f64()) {
                    (Some(a), Some(b)) if want.is_f64() => {
                        assert_eq!(a.to_bits(), b.to_bits(), "{path}: {}.{}[{row}]", table.name, column.name)
                    }
                    _ => assert_eq!(want, &got, "{path}: {}.{}[{row}]", table.name, column.name),
                }
                cells += 1;
            }
        }
    }
    assert!(cells > 0, "{path}: no cell compared");
    tables.iter().filter(|t| t.rows > 0).map(|t| t.name).collect()
}

/// Examples that between them fill every table (each checked to have rows somewhere).
#[test]
fn columns_hold_what_the_document_holds() {
    let mut filled = std::collections::BTreeSet::new();
    for (example, overrides) in [
        ("adhoc-annex-mix.yaml", &["measure.interval_table=true"][..]),
        ("adhoc-step-down.yaml", &[]),
        ("congestion-lab.yaml", &[]),
        ("lmr-push-to-talk.yaml", &[]),
        ("janet-access-router.yaml", &["run.duration=20s"]),
    ] {
        filled.extend(assert_columns_match_document(example, overrides));
    }
    let all: std::collections::BTreeSet<&str> = table_schemas().iter().skip(1).map(|t| t.name).collect();
    assert_eq!(filled, all, "every table has rows in some run");
}
