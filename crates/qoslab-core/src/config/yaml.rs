//! YAML text → a JSON-like document tree plus the source position of every key path.
//!
//! The scenario structs are deserialized from the tree (so YAML files, `--set` overrides and
//! Python dicts all take one path); the position index lets every later error — a type
//! mismatch found by serde or a semantic problem found by the validator — point at
//! `file:line:column`. Anchors and aliases are expanded; duplicate keys are an error, and so
//! is a key no key path can name (empty, or with a dot at an end or two in a row).
//!
//! The reader refuses, at their place, what a YAML library would read silently or not at
//! all: control characters (the scanner takes a NUL for the end of the text, so everything
//! after one would be dropped) and invisible formatting characters, a second document in
//! the stream, nesting deeper than [`MAX_DEPTH`], and a document that expands (aliases
//! counted as copies of what they name) to more than [`MAX_VALUES`] values — the "billion
//! laughs" alias bomb. A byte-order mark at the very start is allowed, as YAML 1.2 §5.2
//! allows it, and skipped.

use serde_json::{Map, Number, Value};
use std::collections::HashMap;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};
use yaml_rust2::ScanError;
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
    /// Whether the text has `path` itself.
    pub fn has(&self, path: &str) -> bool {
        self.positions.contains_key(path)
    }

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

/// Most values (scalars, sequences and mappings, each alias counted as a copy of what it
/// names) a document may expand to.
pub const MAX_VALUES: usize = 1_000_000;

/// Deepest nesting of sequences and mappings in a document.
pub const MAX_DEPTH: usize = 64;

/// The anchor number and the count of values when a container started (its own size is
/// the count at its end minus this).
enum Frame {
    Sequence(Vec<Value>, usize, usize),
    Mapping(Map<String, Value>, Option<String>, usize, usize),
}

#[derive(Default)]
struct Builder {
    stack: Vec<(Frame, String)>,
    root: Option<Value>,
    /// Each anchor's value and how many values it holds.
    anchors: HashMap<usize, (Value, usize)>,
    index: PositionIndex,
    error: Option<YamlError>,
    /// Values in the document so far, aliases expanded.
    values: usize,
    documents: usize,
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
            Some((Frame::Sequence(items, ..), path)) => Some(format!("{path}[{}]", items.len())),
            Some((Frame::Mapping(_, Some(key), ..), path)) => {
                Some(if path.is_empty() { key.clone() } else { format!("{path}.{key}") })
            }
            Some((Frame::Mapping(_, None, ..), _)) => None, // the next value is a key
        }
    }

    fn fail(&mut self, mark: Marker, message: String) {
        if self.error.is_none() {
            self.error = Some(YamlError { position: mark.into(), message });
        }
    }

    /// Counts `count` more values; false (with the error set) past [`MAX_VALUES`].
    fn count(&mut self, count: usize, mark: Marker) -> bool {
        self.values = self.values.saturating_add(count);
        if self.values > MAX_VALUES {
            self.fail(
                mark,
                format!(
                    "the document expands to more than {MAX_VALUES} values (aliases count as copies \
                     of what they name)"
                ),
            );
            return false;
        }
        true
    }

    /// Adds a finished value (scalar or closed container) of `size` values to its parent.
    fn add(&mut self, value: Value, anchor: usize, size: usize, mark: Marker) {
        if anchor > 0 {
            self.anchors.insert(anchor, (value.clone(), size));
        }
        let path = self.current_path();
        match self.stack.last_mut() {
            None => self.root = Some(value),
            Some((Frame::Sequence(items, ..), _)) => items.push(value),
            Some((Frame::Mapping(map, key, ..), _)) => match key.take() {
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
                    if !fits_a_key_path(&key) {
                        return self.fail(
                            mark,
                            format!(
                                "the key `{key}` cannot be named in a key path (no key is empty, \
                                 begins or ends with `.` or has `..`): rename or remove it"
                            ),
                        );
                    }
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

/// Whether `key` can be one step of a key path, or a key path of its own (the keys of
/// `variants` and `sweep.vary` are paths): a key that is empty, begins or ends with a dot
/// or has two in a row would lose a step, and its errors their place, in a path.
fn fits_a_key_path(key: &str) -> bool {
    !key.is_empty() && !key.starts_with('.') && !key.ends_with('.') && !key.contains("..")
}

fn key_slot(stack: &mut [(Frame, String)]) -> &mut Option<String> {
    match stack.last_mut() {
        Some((Frame::Mapping(_, key, ..), _)) => key,
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
                if !self.count(1, mark) {
                    return;
                }
                if let Some(path) = self.child_path() {
                    self.index.positions.entry(path).or_insert(mark.into());
                }
                self.add(scalar_value(text, style), anchor, 1, mark);
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                let Some(path) = self.child_path() else {
                    return self.fail(mark, "a mapping key must be a plain scalar".into());
                };
                if self.stack.len() == MAX_DEPTH {
                    return self.fail(
                        mark,
                        format!("lists and mappings are nested more than {MAX_DEPTH} deep here"),
                    );
                }
                let started = self.values;
                if !self.count(1, mark) {
                    return;
                }
                self.index.positions.entry(path.clone()).or_insert(mark.into());
                let frame = if matches!(event, Event::SequenceStart(..)) {
                    Frame::Sequence(Vec::new(), anchor, started)
                } else {
                    Frame::Mapping(Map::new(), None, anchor, started)
                };
                self.stack.push((frame, path));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (frame, _) = self.stack.pop().expect("balanced YAML events");
                let (value, anchor, started) = match frame {
                    Frame::Sequence(items, anchor, started) => (Value::Array(items), anchor, started),
                    Frame::Mapping(map, _, anchor, started) => (Value::Object(map), anchor, started),
                };
                self.add(value, anchor, self.values - started, mark);
            }
            Event::Alias(anchor) => match self.anchors.get(&anchor) {
                Some(&(_, size)) => {
                    if self.count(size, mark) {
                        let value = self.anchors[&anchor].0.clone();
                        self.add(value, 0, size, mark);
                    }
                }
                None => self.fail(mark, "alias to an unknown anchor".into()),
            },
            Event::DocumentStart => {
                self.documents += 1;
                if self.documents > 1 {
                    self.fail(
                        mark,
                        "a second YAML document (after `---`): a scenario is one document".into(),
                    );
                }
            }
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
        }
    }
}

/// The first character of `text` that has no place in a scenario: a control character
/// other than tab, line feed and carriage return, a byte-order mark past the start, or an
/// invisible character that reorders or hides text (bidirectional overrides, zero-width
/// characters).
fn forbidden_character(text: &str) -> Option<YamlError> {
    let mut line = 1;
    let mut column = 1;
    let mut chars = text.char_indices().peekable();
    while let Some((offset, c)) = chars.next() {
        let lone_return = c == '\r' && chars.peek().is_none_or(|&(_, next)| next != '\n');
        let what = match c {
            '\t' | '\r' if !lone_return => None,
            '\n' | '\r' => {
                line += 1;
                column = 0;
                None
            }
            '\u{feff}' if offset == 0 => None,
            '\0' => Some("the NUL character".to_owned()),
            c if c.is_control() => Some(format!("the control character U+{:04X}", c as u32)),
            '\u{feff}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}' => Some(format!("the invisible character U+{:04X}", c as u32)),
            _ => None,
        };
        if let Some(what) = what {
            return Some(YamlError {
                position: Position { line, column },
                message: format!(
                    "{what} (byte {offset}) has no place in a scenario: remove it (a scenario is \
                     printable text)"
                ),
            });
        }
        column += 1;
    }
    None
}

/// The last place of the text: its last line and the column after its last character. The
/// scanner puts the end of a text that does not end with a line break at the start of a line
/// after the last, where an editor cannot go; such a place is moved here. (Lines end as YAML
/// ends them: at a line feed, a carriage return, or both together.)
fn end_of(text: &str) -> Position {
    let text = text.replace("\r\n", "\n");
    let last = text.rsplit(['\n', '\r']).next().unwrap_or_default();
    Position { line: text.matches(['\n', '\r']).count() + 1, column: last.chars().count() + 1 }
}

/// `position` if it lies in the text whose end is `end`, else `end`.
fn within(position: Position, end: Position) -> Position {
    if position.line > end.line {
        end
    } else {
        position
    }
}

/// A syntax error, placed within the text.
fn syntax_error(error: &ScanError, text: &str) -> YamlError {
    YamlError {
        position: within((*error.marker()).into(), end_of(text)),
        message: format!("YAML syntax error: {}", error.info()),
    }
}

/// Parses one YAML document into a tree and the positions of its key paths.
///
/// The parser's events are pulled one at a time (the library's own loader recurses once per
/// level of nesting, so deep nesting would overflow the stack before anything could refuse
/// it), and reading stops at the first problem.
pub fn parse(text: &str) -> Result<(Value, PositionIndex), YamlError> {
    if let Some(error) = forbidden_character(text) {
        return Err(error);
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    loop {
        let (event, mark) = parser.next_token().map_err(|e| syntax_error(&e, text))?;
        if event == Event::StreamEnd {
            break;
        }
        builder.on_event(event, mark);
        if let Some(error) = builder.error {
            return Err(YamlError { position: within(error.position, end_of(text)), ..error });
        }
    }
    let end = end_of(text);
    builder.index.positions.values_mut().for_each(|p| *p = within(*p, end));
    Ok((builder.root.unwrap_or(Value::Null), builder.index))
}

/// `value` as YAML flow text that [`parse`] reads back as `value`: what a `--set` value
/// holding it is. A string is written plain when it reads back as itself (`128kbps`, `EF`)
/// and double-quoted otherwise (`"5060"`, `"true"`); lists and mappings in brackets and
/// braces.
pub fn to_flow_text(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(text) => flow_string(text),
        Value::Array(items) => format!("[{}]", items.iter().map(to_flow_text).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", flow_string(k), to_flow_text(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A string as a plain scalar when that is safe inside a flow collection and reads back as
/// the same string, else as a double-quoted scalar (JSON's escapes are YAML's too).
fn flow_string(text: &str) -> String {
    let plain_chars =
        text.chars().all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '/' | '%' | '+' | '-'));
    let reads_back = || parse(text).is_ok_and(|(value, _)| value == Value::String(text.to_owned()));
    if !text.is_empty() && plain_chars && reads_back() {
        text.to_owned()
    } else {
        serde_json::to_string(text).expect("a string serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_text_reads_back_as_the_value() {
        let values = serde_json::json!([
            "128kbps", "EF", "5060", "true", "null", "", "a b", "x: y", "-", "1e3", "{a}", "tab\there", "é",
            40, -3, 0.25, 1e300, true, null, [], {}, [1, "2", [3]], {"kind": "fifo", "limit": 10, "5": "x"}
        ]);
        for value in values.as_array().unwrap() {
            let text = to_flow_text(value);
            assert_eq!(&parse(&text).unwrap().0, value, "{text}");
        }
        assert_eq!(
            to_flow_text(&serde_json::json!({"kind": "fifo", "rate": "1Mbps"})),
            "{kind: fifo, rate: 1Mbps}"
        );
        assert_eq!(to_flow_text(&Value::from("5060")), "\"5060\"");
    }

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

    #[test]
    fn a_nul_is_an_error_at_its_place_not_the_end_of_the_text() {
        let err = parse("a: 1\n# note \0 here\nb: 2\n").unwrap_err();
        assert_eq!(err.position, Position { line: 2, column: 8 });
        assert!(err.message.contains("NUL"), "{}", err.message);
        let err = parse("a: \"x\u{1b}[31m\"\n").unwrap_err();
        assert!(err.message.contains("U+001B"), "{}", err.message);
        let err = parse("a: x\u{202e}y\n").unwrap_err();
        assert!(err.message.contains("invisible"), "{}", err.message);
    }

    #[test]
    fn a_second_document_is_an_error() {
        let err = parse("a: 1\n---\nb: 2\n").unwrap_err();
        assert_eq!(err.position.line, 2);
        assert!(err.message.contains("second YAML document"), "{}", err.message);
        // An explicit start of the only document is fine.
        assert!(parse("---\na: 1\n...\n").is_ok());
    }

    #[test]
    fn deep_block_nesting_is_refused_not_a_stack_overflow() {
        let deep = format!("name: x\nrun:\n{}1\n", "- ".repeat(20_000));
        let err = parse(&deep).unwrap_err();
        assert!(err.message.contains("nested more than"), "{}", err.message);
        assert_eq!(err.position.line, 3);
    }

    #[test]
    fn an_empty_value_at_the_end_is_placed_on_the_last_line() {
        let (_, index) = parse("a:\n  - x\n  -").unwrap();
        assert_eq!(index.find("a[1]"), Some(Position { line: 3, column: 4 }));
    }

    #[test]
    fn a_syntax_error_at_the_end_stays_on_the_last_line() {
        let err = parse("name: [a").unwrap_err();
        assert_eq!(err.position, Position { line: 1, column: 9 }, "{}", err.message);
        let err = parse("name: x\nrun: {duration: 1s").unwrap_err();
        assert_eq!(err.position.line, 2, "{}", err.message);
        // With a final line break the empty line after the text is a real place.
        assert_eq!(parse("name: [a\n").unwrap_err().position, Position { line: 2, column: 1 });
    }

    #[test]
    fn a_leading_byte_order_mark_is_skipped() {
        let (value, _) = parse("\u{feff}name: x\n").unwrap();
        assert_eq!(value["name"], Value::from("x"));
        assert!(parse("name: x\u{feff}\n").is_err());
    }

    #[test]
    fn alias_expansion_and_nesting_are_bounded() {
        // Nine levels of ten aliases each: 10^9 values once expanded.
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..10 {
            let previous = format!("*a{}", level - 1);
            text += &format!("a{level}: &a{level} [{}]\n", [previous.as_str(); 10].join(", "));
        }
        let err = parse(&text).unwrap_err();
        assert!(err.message.contains("expands to more than"), "{}", err.message);
        // a5 alone is 1 + 10 × (1 + 10 × ...) = 1,111,111 values.
        assert_eq!(err.position.line, 6, "{}", err.message);
        let deep = format!("a: {}{}\n", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let err = parse(&deep).unwrap_err();
        assert!(err.message.contains("nested more than"), "{}", err.message);
        let fine = format!("a: {}{}\n", "[".repeat(MAX_DEPTH - 1), "]".repeat(MAX_DEPTH - 1));
        assert!(parse(&fine).is_ok());
    }
}
