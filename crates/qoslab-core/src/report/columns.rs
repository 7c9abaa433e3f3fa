//! The result tables as columns, in the memory layout of Apache Arrow (the Arrow Columnar
//! Format specification, "Physical Memory Layout"): per column, a validity bitmap (bit i set
//! when row i has a value, least significant bit first; absent when every row has one) and
//! its values — 64-bit little-endian integers or floats, a bit-packed boolean buffer, or
//! text as 64-bit offsets into UTF-8 bytes (Arrow's `large_string`). A table of `n` rows
//! is its schema's columns, each of `n` values, so a reader makes its arrays from these
//! buffers without parsing anything.
//!
//! This file knows the layout only; which columns a table has, and what goes into them, is
//! the schema's ([`super::schema`]). Numbers are kept as the per-packet trace keeps its
//! columns ([`crate::measure::trace::Column`]): little-endian bytes, handed over as they are.

use crate::measure::trace::Column;

/// One column's values.
#[derive(Clone, Debug)]
pub enum Values {
    /// Signed 64-bit integers (the tables' counts all fit).
    Int(Column<i64>),
    /// 64-bit floats.
    Float(Column<f64>),
    /// Booleans, bit-packed, least significant bit first.
    Bool(Vec<u8>),
    /// Text: `offsets[i]..offsets[i + 1]` of `data` is row i's (`offsets` has rows + 1).
    Str { offsets: Column<i64>, data: Vec<u8> },
}

/// One column of a table: its name, its values, and which rows have one.
#[derive(Clone, Debug)]
pub struct ColumnValues {
    /// The column's name, as in the schema.
    pub name: String,
    /// The values (a row without one holds 0, `false` or empty text).
    pub values: Values,
    /// Validity bitmap, when some row has no value.
    pub validity: Option<Vec<u8>>,
}

/// One result table as columns.
#[derive(Clone, Debug)]
pub struct TableColumns {
    /// The table's name in the results document.
    pub name: &'static str,
    /// Rows.
    pub rows: usize,
    /// The columns, in the schema's order.
    pub columns: Vec<ColumnValues>,
}

/// A column being filled.
pub struct Builder {
    values: Values,
    present: Vec<bool>,
}

impl Builder {
    /// A column of values of `kind` (a schema's type name) for `rows` rows.
    pub fn new(kind: &str, rows: usize) -> Self {
        let values = match kind {
            "int" => Values::Int(Column::with_rows(rows)),
            "float" => Values::Float(Column::with_rows(rows)),
            "bool" => Values::Bool(vec![0; rows.div_ceil(8)]),
            "str" => {
                let mut offsets = Column::with_rows(rows + 1);
                offsets.push(0);
                Values::Str { offsets, data: Vec::new() }
            }
            other => panic!("a column of {other} has no column form"),
        };
        Builder { values, present: Vec::with_capacity(rows) }
    }

    /// The next row has no value.
    pub fn push_missing(&mut self) {
        match &mut self.values {
            Values::Int(v) => v.push(0),
            Values::Float(v) => v.push(0.0),
            Values::Bool(_) => {}
            Values::Str { offsets, data } => offsets.push(data.len() as i64),
        }
        self.present.push(false);
    }

    /// The next row's value, an integer.
    pub fn push_int(&mut self, value: u64) {
        let Values::Int(v) = &mut self.values else { panic!("an integer in a column of another type") };
        v.push(i64::try_from(value).expect("a count fits a 64-bit integer"));
        self.present.push(true);
    }

    /// The next row's value, a float.
    pub fn push_float(&mut self, value: f64) {
        let Values::Float(v) = &mut self.values else { panic!("a float in a column of another type") };
        v.push(value);
        self.present.push(true);
    }

    /// The next row's value, a boolean.
    pub fn push_bool(&mut self, value: bool) {
        let row = self.present.len();
        let Values::Bool(bits) = &mut self.values else { panic!("a boolean in a column of another type") };
        if value {
            bits[row / 8] |= 1 << (row % 8);
        }
        self.present.push(true);
    }

    /// The next row's value, text.
    pub fn push_str(&mut self, value: &str) {
        let Values::Str { offsets, data } = &mut self.values else {
            panic!("text in a column of another type")
        };
        data.extend_from_slice(value.as_bytes());
        offsets.push(data.len() as i64);
        self.present.push(true);
    }

    /// The column, named `name`.
    pub fn finish(self, name: String) -> ColumnValues {
        let validity = self.present.iter().any(|p| !p).then(|| {
            let mut bits = vec![0u8; self.present.len().div_ceil(8)];
            for (row, _) in self.present.iter().enumerate().filter(|(_, p)| **p) {
                bits[row / 8] |= 1 << (row % 8);
            }
            bits
        });
        ColumnValues { name, values: self.values, validity }
    }
}

/// The columns a row is written into, the next one first.
pub struct Cursor<'a> {
    builders: std::slice::IterMut<'a, Builder>,
}

impl<'a> Cursor<'a> {
    /// A row written into `builders`, in order.
    pub fn new(builders: &'a mut [Builder]) -> Self {
        Cursor { builders: builders.iter_mut() }
    }

    /// The column the next value goes to.
    pub fn next_column(&mut self) -> &mut Builder {
        self.builders.next().expect("a row has no more values than its schema has columns")
    }

    /// Whether every column has its value.
    pub fn is_full(&mut self) -> bool {
        self.builders.len() == 0
    }
}
