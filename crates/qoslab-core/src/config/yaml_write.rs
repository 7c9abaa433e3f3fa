//! A JSON value written as readable YAML: mappings as indented blocks, a list of mappings as
//! `- {flow}` items (a deep item as a block), everything else in flow style on its key's line.
//! Keys come in the order a reader looks for them: `name` or `kind` and `match` first, a `child`
//! policy last.

use serde_json::Value;
use std::fmt::Write;

/// A value as one line of YAML flow style.
pub fn flow(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let items: Vec<String> =
                reading_order(map).iter().map(|(k, v)| format!("{k}: {}", flow(v))).collect();
            format!("{{{}}}", items.join(", "))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Value::String(s) => {
            let plain = !s.is_empty()
                && s.chars().all(|c| c.is_ascii_alphanumeric() || "._/%-".contains(c))
                && !matches!(s.as_str(), "true" | "false" | "null" | "yes" | "no");
            if plain {
                s.clone()
            } else {
                Value::String(s.clone()).to_string()
            }
        }
        other => other.to_string(),
    }
}

/// Whether `value` holds a list of mappings, at any depth: on one line it would be hard to
/// read (a class with a child policy).
fn deep(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.values().any(deep),
        Value::Array(items) => items.iter().any(Value::is_object),
        _ => false,
    }
}

/// The keys of `map` in the order a reader looks for them: `name` or `kind`, then `match`
/// first, a `child` policy last, the others between in their order.
fn reading_order(map: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let rank = |key: &str| match key {
        "name" | "kind" => 0,
        "match" => 1,
        "child" => 3,
        _ => 2,
    };
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_by_key(|(key, _)| rank(key));
    entries
}

/// `value` as YAML block lines at `indent`: mappings open blocks, lists of mappings become
/// `- {flow}` items (a deep one, such as a class with a child policy, a block item),
/// everything else stays on its key's line.
pub fn block(value: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    let Value::Object(map) = value else {
        let _ = writeln!(out, "{pad}{}", flow(value));
        return;
    };
    for (key, v) in reading_order(map) {
        match v {
            Value::Object(inner)
                if !inner.is_empty() && inner.values().any(|x| x.is_object() || x.is_array()) =>
            {
                let _ = writeln!(out, "{pad}{key}:");
                block(v, indent + 2, out);
            }
            Value::Array(items) if items.iter().any(Value::is_object) => {
                let _ = writeln!(out, "{pad}{key}:");
                for item in items {
                    if deep(item) {
                        // The item's block, its first line opened by the dash.
                        let mut inner = String::new();
                        block(item, indent + 4, &mut inner);
                        let _ = write!(out, "{pad}  - {}", &inner[indent + 4..]);
                    } else {
                        let _ = writeln!(out, "{pad}  - {}", flow(item));
                    }
                }
            }
            _ => {
                let _ = writeln!(out, "{pad}{key}: {}", flow(v));
            }
        }
    }
}
