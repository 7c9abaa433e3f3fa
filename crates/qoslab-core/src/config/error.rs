//! Errors in a scenario, each naming the place (file, line, column and key path) and a fix.

use super::suggest::nearest;
use super::yaml::{Position, PositionIndex};
use std::fmt;

/// What kind of problem an input has: a closed list with stable names, for programs that
/// react to errors (Python's `ScenarioError.kind`) and for the tests that pin them. Every
/// problem has one; those of no narrower kind are `invalid`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The text is not YAML (or JSON) at all.
    Syntax,
    /// A key the format does not have at that place.
    UnknownKey,
    /// A value that is not one of the names the format allows at that place.
    UnknownValue,
    /// A reference to a node, link, policy, flow or other name the scenario does not define.
    UnknownName,
    /// A required key left out.
    MissingKey,
    /// A value of the wrong type, or no value.
    WrongType,
    /// A value the format takes but its place refuses: out of range, in conflict with
    /// another setting, or not expressible where it is asked for.
    #[default]
    Invalid,
    /// A scenario or run beyond the size, memory or events allowed.
    Limit,
    /// A file the scenario names that cannot be read.
    File,
}

impl ErrorKind {
    /// Every kind, in the order above.
    pub const ALL: [ErrorKind; 9] = [
        ErrorKind::Syntax,
        ErrorKind::UnknownKey,
        ErrorKind::UnknownValue,
        ErrorKind::UnknownName,
        ErrorKind::MissingKey,
        ErrorKind::WrongType,
        ErrorKind::Invalid,
        ErrorKind::Limit,
        ErrorKind::File,
    ];

    /// The kind's stable name (`unknown_key`).
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "syntax",
            ErrorKind::UnknownKey => "unknown_key",
            ErrorKind::UnknownValue => "unknown_value",
            ErrorKind::UnknownName => "unknown_name",
            ErrorKind::MissingKey => "missing_key",
            ErrorKind::WrongType => "wrong_type",
            ErrorKind::Invalid => "invalid",
            ErrorKind::Limit => "limit",
            ErrorKind::File => "file",
        }
    }
}

/// A problem in a scenario: where it is, what is wrong, how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// What kind of problem it is.
    pub kind: ErrorKind,
    /// The file (or `<dict>`, `<string>`) the scenario came from (a `Box<str>`, which keeps
    /// the error within the size clippy's `result_large_err` allows).
    pub origin: Box<str>,
    /// Line and column in that file, when known.
    pub position: Option<Position>,
    /// Key path of the offending value, e.g. `topology.links[2].rate`; empty for the whole
    /// document.
    pub key_path: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when there is something specific to say.
    pub hint: Option<String>,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.origin)?;
        if let Some(p) = self.position {
            write!(f, ":{}:{}", p.line, p.column)?;
        }
        if !self.key_path.is_empty() {
            write!(f, ": {}", self.key_path)?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(hint) = &self.hint {
            // The hint is a sentence of its own.
            let mut chars = hint.chars();
            if let Some(first) = chars.next() {
                write!(f, ". {}{}", first.to_uppercase(), chars.as_str())?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// A problem found before its position is known: a key path, a message and maybe a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// What kind of problem it is.
    pub kind: ErrorKind,
    /// Key path of the offending value.
    pub key_path: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
}

impl Issue {
    /// A problem at `key_path`.
    pub fn at(key_path: impl Into<String>, message: impl Into<String>) -> Self {
        Issue { kind: ErrorKind::Invalid, key_path: key_path.into(), message: message.into(), hint: None }
    }

    /// The same problem, of kind `kind`.
    pub fn kind(mut self, kind: ErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// The same problem at `key_path` (for an issue found by code that does not know where
    /// its input came from).
    pub fn relocate(mut self, key_path: &str) -> Self {
        key_path.clone_into(&mut self.key_path);
        self
    }

    /// Adds how to fix it.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// An unknown name (node, policy, band ...) with the nearest known one suggested.
    pub fn unknown_name<'a>(
        key_path: impl Into<String>,
        what: &str,
        name: &str,
        known: impl IntoIterator<Item = &'a str> + Clone,
    ) -> Self {
        let listing: Vec<&str> = known.clone().into_iter().collect();
        let plural = match what.strip_suffix('y') {
            Some(stem) => format!("{stem}ies"),
            None => format!("{what}s"),
        };
        let hint = match nearest(name, known) {
            Some(best) => format!("did you mean `{best}`? (known: {})", listing.join(", ")),
            None if listing.is_empty() => format!("define the {what} first"),
            None => format!("known {plural}: {}", listing.join(", ")),
        };
        Issue::at(key_path, format!("unknown {what} `{name}`")).hint(hint).kind(ErrorKind::UnknownName)
    }

    /// Places the issue in `origin` using the positions of the document's key paths.
    pub fn locate(self, origin: &str, index: &PositionIndex) -> ScenarioError {
        ScenarioError {
            kind: self.kind,
            origin: origin.into(),
            // The document as a whole has no useful position, and neither has text that did
            // not come from a file (`<dict>`, `<string>`: one-line JSON, say).
            position: if self.key_path.is_empty() || origin.starts_with('<') {
                None
            } else {
                index.find(&self.key_path)
            },
            key_path: self.key_path,
            message: self.message,
            hint: self.hint,
        }
    }
}

/// Words quoted in backticks after "expected" in a serde message (the valid names).
fn expected_names(message: &str) -> Vec<&str> {
    let Some(start) = message.find("expected") else {
        return Vec::new();
    };
    message[start..].split('`').skip(1).step_by(2).collect()
}

/// Turns a serde message (`unknown field `rat`, expected one of ...`) into an issue with a
/// suggestion, at `key_path`.
pub fn from_serde_message(key_path: String, message: &str) -> Issue {
    for (prefix, what) in [("unknown field `", "key"), ("unknown variant `", "value")] {
        if let Some(rest) = message.strip_prefix(prefix) {
            let wrong = rest.split('`').next().unwrap_or_default();
            let names = expected_names(rest);
            let key_path = if what == "key" && !key_path.ends_with(wrong) {
                join_path(&key_path, wrong)
            } else {
                key_path
            };
            let hint = match nearest(wrong, names.iter().copied()) {
                _ if names.is_empty() => format!("no {what} is allowed here: remove it"),
                _ if what == "key" && (wrong == "true" || wrong == "false") => format!(
                    "a YAML 1.1 reader such as PyYAML turns the keys `on`, `off`, `yes` and `no` into \
                     true and false: quote such a key (`'off':`) or give qoslab the file itself (valid: {})",
                    names.join(", ")
                ),
                Some(best) => format!("did you mean `{best}`? (valid: {})", names.join(", ")),
                None => format!("valid {what}s here: {}", names.join(", ")),
            };
            let kind = if what == "key" { ErrorKind::UnknownKey } else { ErrorKind::UnknownValue };
            return Issue::at(key_path, format!("unknown {what} `{wrong}`")).hint(hint).kind(kind);
        }
    }
    if let Some(field) = message.strip_prefix("missing field `").and_then(|r| r.split('`').next()) {
        return Issue::at(key_path, format!("missing key `{field}`"))
            .hint(format!("add `{field}:` here"))
            .kind(ErrorKind::MissingKey);
    }
    if let Some(expected) = message.strip_prefix("invalid type: null, expected ") {
        return Issue::at(key_path, format!("has no value; expected {expected}"))
            .hint("write the value after the colon, or remove the key")
            .kind(ErrorKind::WrongType);
    }
    let kind = if message.starts_with("invalid type: ") { ErrorKind::WrongType } else { ErrorKind::Invalid };
    Issue::at(key_path, message.to_owned()).kind(kind)
}

/// `parent.key`, or `key` at the top level.
pub fn join_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mapping that takes no keys says so instead of listing none.
    #[test]
    fn no_keys_allowed() {
        let issue =
            from_serde_message("measure.voice.playout".into(), "unknown field `buffer`, there are no fields");
        assert_eq!(issue.hint.as_deref(), Some("no key is allowed here: remove it"));
    }

    /// PyYAML reads `off:` as the key `false`; the error says so.
    #[test]
    fn a_key_turned_boolean_is_explained() {
        let issue = from_serde_message(
            "traffic[2].pattern".into(),
            "unknown field `false`, expected one of `on`, `off`, `during_on`, `start_off`",
        );
        assert_eq!(issue.key_path, "traffic[2].pattern.false");
        assert!(issue.hint.unwrap().contains("quote such a key (`'off':`)"));
    }

    #[test]
    fn unknown_field_gets_a_suggestion_and_its_own_path() {
        let issue = from_serde_message(
            "topology.links[0]".into(),
            "unknown field `rat`, expected one of `between`, `rate`, `delay`",
        );
        assert_eq!(issue.key_path, "topology.links[0].rat");
        assert_eq!(issue.message, "unknown key `rat`");
        assert!(issue.hint.unwrap().starts_with("did you mean `rate`?"));
    }

    #[test]
    fn unknown_variant_lists_valid_values() {
        let issue = from_serde_message("l2".into(), "unknown variant `atm`, expected `hdlc` or `ppp`");
        assert_eq!(issue.message, "unknown value `atm`");
        assert_eq!(issue.hint.unwrap(), "valid values here: hdlc, ppp");
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let issue = Issue::unknown_name("interfaces.x.output", "policy", "zzz", ["fifo", "pq"]);
        assert_eq!(issue.hint.unwrap(), "known policies: fifo, pq");
        let issue = Issue::unknown_name("x", "node", "r9", ["a", "b"]);
        assert_eq!(issue.hint.unwrap(), "known nodes: a, b");
    }

    #[test]
    fn display_has_file_line_column_path_and_hint() {
        let e = ScenarioError {
            kind: ErrorKind::Invalid,
            origin: "s.yaml".into(),
            position: Some(Position { line: 4, column: 7 }),
            key_path: "run.duration".into(),
            message: "must be greater than zero".into(),
            hint: Some("write e.g. `60s`".into()),
        };
        assert_eq!(e.to_string(), "s.yaml:4:7: run.duration: must be greater than zero. Write e.g. `60s`");
    }

    #[test]
    fn serde_messages_keep_their_kinds() {
        let kind = |message: &str| from_serde_message("a".into(), message).kind;
        assert_eq!(kind("unknown field `rat`, expected one of `rate`"), ErrorKind::UnknownKey);
        assert_eq!(kind("unknown variant `qp`, expected `pq`"), ErrorKind::UnknownValue);
        assert_eq!(kind("missing field `rate`"), ErrorKind::MissingKey);
        assert_eq!(kind("invalid type: null, expected a string"), ErrorKind::WrongType);
        assert_eq!(kind("invalid type: integer `3`, expected a string"), ErrorKind::WrongType);
        assert_eq!(kind("must be above zero"), ErrorKind::Invalid);
        let names: std::collections::BTreeSet<&str> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names.len(), ErrorKind::ALL.len(), "every kind has a name of its own");
    }
}
