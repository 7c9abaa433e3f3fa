//! Reading one scalar scenario value through a parser: the shared front of every type that
//! is written as text (`"128kbps"`, `EF`, `"16384-32767"`, `hdlc`).
//!
//! Numbers are either read as their text (`46` for a DSCP, `40` for a packet count) or
//! refused with a hint when the type needs a unit, because a bare `60` could mean 60 s,
//! 60 ms or 60 bytes. Lists, mappings and booleans are refused with what was found.

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::fmt::Display;

/// What a bare number means for a type.
#[derive(Copy, Clone, Debug)]
pub enum Numbers {
    /// A number is read as its text (`46` → `"46"`).
    AsText,
    /// A number lacks a unit; the text says how to write it, with `{n}` standing for the
    /// number (`"write e.g. \"{n}ms\""`).
    NeedUnit(&'static str),
}

/// How a value appears in an error message.
pub fn describe(value: &Value) -> String {
    match value {
        Value::Null => "nothing".into(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) => format!("number `{n}`"),
        Value::String(s) => format!("string `{s}`"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a mapping".into(),
    }
}

/// Reads a scalar and parses its text with `parse`, whose error's message becomes serde's.
pub fn parse_scalar<'de, D: Deserializer<'de>, T, E: Display>(
    d: D,
    numbers: Numbers,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<T, D::Error> {
    use serde::de::Error;
    let text = match Value::deserialize(d)? {
        Value::String(text) => text,
        Value::Number(n) => match numbers {
            Numbers::AsText => n.to_string(),
            Numbers::NeedUnit(how) => {
                let n = n.to_string();
                return Err(D::Error::custom(format!("`{n}` has no unit: {}", how.replace("{n}", &n))));
            }
        },
        other => {
            return Err(D::Error::custom(format!("expected a single value, found {}", describe(&other))))
        }
    };
    parse(&text).map_err(D::Error::custom)
}
