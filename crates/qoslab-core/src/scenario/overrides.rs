//! `--set key.path=value`: changes applied to the scenario document before it is read.
//!
//! Path segments are separated by dots; a list element is addressed by its index, either
//! as a segment (`traffic.0.dscp`) or in brackets (`traffic[0].dscp`, the form error
//! messages print). The value is read as a YAML scalar or flow collection, so `40`,
//! `EF`, `true` and `{kind: fifo}` all mean what they would in the file. A missing final
//! key is created; a missing intermediate mapping is created too.

use super::error::Issue;
use super::yaml;
use serde_json::{Map, Value};

/// One `key.path=value` change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Override {
    /// Where, e.g. `interfaces.r1.r2.output`.
    pub key_path: String,
    /// The new value, as YAML text.
    pub value: String,
}

impl Override {
    /// Parses `key.path=value`.
    pub fn parse(text: &str) -> Result<Override, String> {
        match text.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => {
                Ok(Override { key_path: key.trim().to_owned(), value: value.to_owned() })
            }
            _ => Err(format!("`{text}` is not key.path=value (e.g. run.seed=2)")),
        }
    }

    /// The key path in the `a.b[2].c` form used by error messages.
    pub fn normalized_path(&self) -> String {
        segments(&self.key_path).iter().fold(String::new(), |acc, s| match s.parse::<usize>() {
            Ok(i) => format!("{acc}[{i}]"),
            Err(_) if acc.is_empty() => (*s).to_owned(),
            Err(_) => format!("{acc}.{s}"),
        })
    }
}

fn segments(path: &str) -> Vec<&str> {
    path.split(['.', '[', ']']).filter(|s| !s.is_empty()).collect()
}

/// Applies `change` to `document`; returns the key path it wrote in the document's own form
/// (`[i]` where a segment indexed a list, `.key` where it named a key of a mapping).
pub fn apply(document: &mut Value, change: &Override) -> Result<String, Issue> {
    let at = change.normalized_path();
    let (value, _) = yaml::parse(&change.value).map_err(|e| {
        Issue::at(&at, format!("the value `{}` is not valid YAML: {}", change.value, e.message))
    })?;
    let parts = segments(&change.key_path);
    let Some((last, parents)) = parts.split_last() else {
        return Err(Issue::at("", format!("`{}` names no key", change.key_path)));
    };
    let mut node = document;
    let mut walked = String::new();
    for part in parents {
        walked = descend(&walked, part, node.is_array());
        node = step(node, part, &walked, true)?;
    }
    let written = descend(&walked, last, node.is_array());
    match node {
        Value::Array(items) => {
            let slot = index_into(items, last, &at)?;
            *slot = value;
        }
        Value::Object(map) => {
            map.insert((*last).to_owned(), value);
        }
        _ => {
            return Err(Issue::at(
                &at,
                format!("cannot set a key inside `{walked}`: it is not a mapping or a list"),
            ))
        }
    }
    Ok(written)
}

/// The key path of `part` under `parent`: an index of a list, or a key of anything else.
fn descend(parent: &str, part: &str, in_list: bool) -> String {
    match (in_list, parent.is_empty()) {
        (true, _) => format!("{parent}[{part}]"),
        (false, true) => part.to_owned(),
        (false, false) => format!("{parent}.{part}"),
    }
}

fn index_into<'a>(items: &'a mut [Value], part: &str, at: &str) -> Result<&'a mut Value, Issue> {
    let len = items.len();
    let i: usize = part.parse().map_err(|_| {
        Issue::at(at, format!("`{part}` is not a list index"))
            .hint("address list elements by number, e.g. traffic.0")
    })?;
    items.get_mut(i).ok_or_else(|| Issue::at(at, format!("index {i} is past the end of a list of {len}")))
}

fn step<'a>(node: &'a mut Value, part: &str, walked: &str, create: bool) -> Result<&'a mut Value, Issue> {
    match node {
        Value::Array(items) => index_into(items, part, walked),
        Value::Object(map) => {
            if create && !map.contains_key(part) {
                map.insert(part.to_owned(), Value::Object(Map::new()));
            }
            Ok(map.get_mut(part).expect("inserted above"))
        }
        _ => Err(Issue::at(walked, "cannot descend into a value that is not a mapping or a list")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn set_values_by_path() {
        let mut doc = json!({"run": {"duration": "60s"}, "traffic": [{"dscp": 0}], "interfaces": {}});
        for text in [
            "run.seed=7",
            "traffic.0.dscp=EF",
            "traffic[0].start=1s",
            "interfaces.r1.r2.output=pq",
            "run.duration='30s'",
        ] {
            apply(&mut doc, &Override::parse(text).unwrap()).unwrap();
        }
        assert_eq!(doc["run"]["seed"], json!(7));
        assert_eq!(doc["run"]["duration"], json!("30s"));
        assert_eq!(doc["traffic"][0]["dscp"], json!("EF"));
        assert_eq!(doc["traffic"][0]["start"], json!("1s"));
        assert_eq!(doc["interfaces"]["r1"]["r2"]["output"], json!("pq"));
    }

    #[test]
    fn bad_overrides() {
        assert!(Override::parse("run.seed").is_err());
        assert!(Override::parse("=3").is_err());
        let mut doc = json!({"traffic": [{"dscp": 0}], "name": "x"});
        let err = apply(&mut doc, &Override::parse("traffic.3.dscp=EF").unwrap()).unwrap_err();
        assert!(err.message.contains("past the end"), "{}", err.message);
        assert_eq!(err.key_path, "traffic[3]");
        let err = apply(&mut doc, &Override::parse("name.first=EF").unwrap()).unwrap_err();
        assert!(err.message.contains("not a mapping"), "{}", err.message);
        assert_eq!(Override::parse("traffic.0.dscp=1").unwrap().normalized_path(), "traffic[0].dscp");
    }
}
