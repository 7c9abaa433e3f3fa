//! `--set key.path=value`: changes applied to the scenario document before it is read.
//!
//! Path segments are separated by dots; a list element is addressed by its index, either
//! as a segment (`traffic.0.dscp`) or in brackets (`traffic[0].dscp`, the form error
//! messages print), or by the `name` of the entry (`traffic.voice.dscp`). The value is read as a YAML scalar or flow collection, so `40`,
//! `EF`, `true` and `{kind: fifo}` all mean what they would in the file. A missing final
//! key is created; a missing intermediate mapping is created too.

use crate::config::error::Issue;
use crate::config::key_path::{list_position, segments};
use crate::config::yaml;
use serde_json::{Map, Value};

/// A `--set` text without a key path and `=`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not key.path=value (e.g. run.seed=2)")]
pub struct OverrideError {
    /// The text as written.
    pub text: String,
}

/// One `key.path=value` change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Override {
    /// Where, e.g. `interfaces.r1.r2.output`.
    pub key_path: String,
    /// The new value, as YAML text.
    pub value: String,
    /// Where the change was written, when not on the command line: an error in the value
    /// names this place (e.g. `s.yaml:14:31: sweep.vary.topology.links.1.rate[1]`) instead
    /// of `(--set key.path=value)`.
    pub source: Option<String>,
}

impl Override {
    /// Parses `key.path=value`.
    pub fn parse(text: &str) -> Result<Override, OverrideError> {
        match text.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => {
                Ok(Override { key_path: key.trim().to_owned(), value: value.to_owned(), source: None })
            }
            _ => Err(OverrideError { text: text.to_owned() }),
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
        node = step(node, part, &mut walked)?;
    }
    let written = match node {
        Value::Array(items) => {
            let i = list_position(items, last, &at)?;
            items[i] = value;
            descend(&walked, &i.to_string(), true)
        }
        Value::Object(map) => {
            map.insert((*last).to_owned(), value);
            descend(&walked, last, false)
        }
        _ => {
            return Err(Issue::at(
                &at,
                format!("cannot set a key inside `{walked}`: it is not a mapping or a list"),
            ))
        }
    };
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

/// The value `part` names inside `node`, a missing mapping created; `walked` (the path so
/// far) is extended by the step.
fn step<'a>(node: &'a mut Value, part: &str, walked: &mut String) -> Result<&'a mut Value, Issue> {
    match node {
        Value::Array(items) => {
            let i = list_position(items, part, &descend(walked, part, true))?;
            *walked = descend(walked, &i.to_string(), true);
            Ok(&mut items[i])
        }
        Value::Object(map) => {
            *walked = descend(walked, part, false);
            Ok(map.entry(part.to_owned()).or_insert_with(|| Value::Object(Map::new())))
        }
        _ => Err(Issue::at(
            descend(walked, part, false),
            "cannot descend into a value that is not a mapping or a list",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn set_values_by_path() {
        let mut doc =
            json!({"run": {"duration": "60s"}, "traffic": [{"name": "voice", "dscp": 0}], "interfaces": {}});
        for text in [
            "run.seed=7",
            "traffic.0.dscp=EF",
            "traffic[0].start=1s",
            "traffic.voice.size=200B",
            "interfaces.r1.r2.output=pq",
            "run.duration='30s'",
        ] {
            apply(&mut doc, &Override::parse(text).unwrap()).unwrap();
        }
        assert_eq!(doc["run"]["seed"], json!(7));
        assert_eq!(doc["run"]["duration"], json!("30s"));
        assert_eq!(doc["traffic"][0]["dscp"], json!("EF"));
        assert_eq!(doc["traffic"][0]["start"], json!("1s"));
        assert_eq!(doc["traffic"][0]["size"], json!("200B"));
        let written = apply(&mut doc, &Override::parse("traffic.voice.dscp=AF41").unwrap()).unwrap();
        assert_eq!(written, "traffic[0].dscp");
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
