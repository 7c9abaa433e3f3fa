//! YAML text → a JSON-like document tree plus the source position of every key path.
//!
//! The scenario structs are deserialized from the tree (so YAML files, `--set` overrides and
//! Python dicts all take one path); the position index lets every later error — a type
//! mismatch found by serde or a semantic problem found by the validator — point at
//! `file:line:column`. Anchors and aliases are expanded; duplicate keys are an error.

use serde_json::{Map, Number, Value};
use std::collections::HashMap;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};
use yaml_rust2::Yaml;

/// A 1-based line and column in the scenario text.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
}

impl From<Marker> for Position {
    fn from(m: Marker) -> Self {
        Position { line: m.line(), column: m.col() + 1 }
    }
}

/// Where each key path (`topology.links[2].rate`) starts in the text.
#[derive(Debug, Default, Clone)]
pub struct PositionIndex {
    positions: HashMap<String, Position>,
}

impl PositionIndex {
    /// Position of `path`, or of its nearest ancestor that has one.
    pub fn find(&self, path: &str) -> Option<Position> {
        let mut path = path;
        loop {
            if let Some(p) = self.positions.get(path) {
                return Some(*p);
            }
            let cut = path.rfind(['.', '['])?;
            path = &path[..cut];
        }
    }
}

/// A YAML syntax problem.
#[derive(Debug, Clone)]
pub struct YamlError {
    /// Where it was found.
    pub position: Position,
    /// What is wrong.
    pub message: String,
}

enum Frame {
    Sequence(Vec<Value>, usize),
    Mapping(Map<String, Value>, Option<String>, usize),
}

#[derive(Default)]
struct Builder {
    stack: Vec<(Frame, String)>,
    root: Option<Value>,
    anchors: HashMap<usize, Value>,
    index: PositionIndex,
    error: Option<YamlError>,
}

fn scalar_value(text: String, style: TScalarStyle) -> Value {
    if style != TScalarStyle::Plain {
        return Value::String(text);
    }
    match Yaml::from_str(&text) {
        Yaml::Integer(i) => Value::Number(i.into()),
        Yaml::Real(_) => {
            text.parse::<f64>().ok().and_then(Number::from_f64).map_or(Value::String(text), Value::Number)
        }
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Null => Value::Null,
        _ => Value::String(text),
    }
}

impl Builder {
    fn current_path(&self) -> String {
        self.stack.last().map(|(_, p)| p.clone()).unwrap_or_default()
    }

    /// The path of the next value to be added to the current container.
    fn child_path(&self) -> Option<String> {
        match self.stack.last() {
            None => Some(String::new()),
            Some((Frame::Sequence(items, _), path)) => Some(format!("{path}[{}]", items.len())),
            Some((Frame::Mapping(_, Some(key), _), path)) => {
                Some(if path.is_empty() { key.clone() } else { format!("{path}.{key}") })
            }
            Some((Frame::Mapping(_, None, _), _)) => None, // the next value is a key
        }
    }

    fn fail(&mut self, mark: Marker, message: String) {
        if self.error.is_none() {
            self.error = Some(YamlError { position: mark.into(), message });
        }
    }

    /// Adds a finished value (scalar or closed container) to its parent.
    fn add(&mut self, value: Value, anchor: usize, mark: Marker) {
        if anchor > 0 {
            self.anchors.insert(anchor, value.clone());
        }
        let path = self.current_path();
        match self.stack.last_mut() {
            None => self.root = Some(value),
            Some((Frame::Sequence(items, _), _)) => items.push(value),
            Some((Frame::Mapping(map, key, _), _)) => match key.take() {
                Some(k) => {
                    map.insert(k, value);
                }
                None => {
                    let key = match value {
                        Value::String(s) => s,
                        Value::Number(n) => n.to_string(),
                        Value::Bool(b) => b.to_string(),
                        _ => return self.fail(mark, "a mapping key must be a plain scalar".into()),
                    };
                    if map.contains_key(&key) {
                        let where_ =
                            if path.is_empty() { "the top level".into() } else { format!("`{path}`") };
                        return self.fail(
                            mark,
                            format!("duplicate key `{key}` in {where_}: each key may appear once"),
                        );
                    }
                    let child = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                    self.index.positions.insert(child, mark.into());
                    *key_slot(&mut self.stack) = Some(key);
                }
            },
        }
    }
}

fn key_slot(stack: &mut [(Frame, String)]) -> &mut Option<String> {
    match stack.last_mut() {
        Some((Frame::Mapping(_, key, _), _)) => key,
        _ => unreachable!("key_slot is only called on a mapping frame"),
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        match event {
            Event::Scalar(text, style, anchor, _) => {
                if let Some(path) = self.child_path() {
                    self.index.positions.entry(path).or_insert(mark.into());
                }
                self.add(scalar_value(text, style), anchor, mark);
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                let Some(path) = self.child_path() else {
                    return self.fail(mark, "a mapping key must be a plain scalar".into());
                };
                self.index.positions.entry(path.clone()).or_insert(mark.into());
                let frame = if matches!(event, Event::SequenceStart(..)) {
                    Frame::Sequence(Vec::new(), anchor)
                } else {
                    Frame::Mapping(Map::new(), None, anchor)
                };
                self.stack.push((frame, path));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (frame, _) = self.stack.pop().expect("balanced YAML events");
                let (value, anchor) = match frame {
                    Frame::Sequence(items, anchor) => (Value::Array(items), anchor),
                    Frame::Mapping(map, _, anchor) => (Value::Object(map), anchor),
                };
                self.add(value, anchor, mark);
            }
            Event::Alias(anchor) => match self.anchors.get(&anchor).cloned() {
                Some(value) => self.add(value, 0, mark),
                None => self.fail(mark, "alias to an unknown anchor".into()),
            },
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart
            | Event::DocumentEnd => {}
        }
    }
}

/// Parses one YAML document into a tree and the positions of its key paths.
pub fn parse(text: &str) -> Result<(Value, PositionIndex), YamlError> {
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    parser.load(&mut builder, false).map_err(|e| YamlError {
        position: (*e.marker()).into(),
        message: format!("YAML syntax error: {}", e.info()),
    })?;
    if let Some(error) = builder.error {
        return Err(error);
    }
    Ok((builder.root.unwrap_or(Value::Null), builder.index))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_positions() {
        let text =
            "run:\n  duration: 60s\n  seed: 3\nlinks:\n  - {a: x, rate: 128kbps}\n  - a: y\n    up: true\n";
        let (value, index) = parse(text).unwrap();
        assert_eq!(value["run"]["seed"], Value::from(3));
        assert_eq!(value["run"]["duration"], Value::from("60s"));
        assert_eq!(value["links"][1]["up"], Value::from(true));
        assert_eq!(index.find("run.seed"), Some(Position { line: 3, column: 3 }));
        assert_eq!(index.find("links[0].rate"), Some(Position { line: 5, column: 12 }));
        assert_eq!(index.find("links[1].up"), Some(Position { line: 7, column: 5 }));
        // An unknown deeper path falls back to its nearest ancestor.
        assert_eq!(index.find("links[1].up.deeper"), Some(Position { line: 7, column: 5 }));
    }

    #[test]
    fn quoted_scalars_stay_strings() {
        let (value, _) = parse("a: '42'\nb: 42\nc: 4.5\nd: ~\n").unwrap();
        assert_eq!(value["a"], Value::from("42"));
        assert_eq!(value["b"], Value::from(42));
        assert_eq!(value["c"], Value::from(4.5));
        assert_eq!(value["d"], Value::Null);
    }

    #[test]
    fn anchors_expand() {
        let (value, _) = parse("base: &b {rate: 1Mbps}\ncopy: *b\n").unwrap();
        assert_eq!(value["copy"]["rate"], Value::from("1Mbps"));
    }

    #[test]
    fn duplicate_keys_and_syntax_errors_have_positions() {
        let err = parse("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert!(err.message.contains("duplicate key `a`"), "{}", err.message);
        assert_eq!(err.position.line, 3);
        let err = parse("a: [1, 2\nb: 3\n").unwrap_err();
        assert!(err.message.contains("YAML syntax error"), "{}", err.message);
    }
}
