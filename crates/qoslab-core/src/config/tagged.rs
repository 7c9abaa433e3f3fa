//! Path-preserving deserialization for nested values, and `kind:`-tagged enums.
//!
//! Scenario objects that come in several kinds (`{kind: fifo, limit: 40}`) are read by
//! looking at `kind` first and then deserializing the rest as that kind's parameters.
//! serde's own internally tagged enums buffer the value and lose the key path of any error
//! inside; here the inner value is deserialized on its own with its path tracked, and the
//! inner path travels inside the error message (between two `PATH_MARK` characters) until
//! the loader joins it to the outer path. The marker never reaches a user.

use super::error::{from_serde_message, Issue};
use super::scalar::describe;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt;

const PATH_MARK: char = '\u{1}';

/// A serde path as `a.b[2].c`.
pub fn path_string(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

/// A problem inside a nested value: the key path below that value (empty for the value
/// itself) and serde's message. Shown, it is the path-marked message that serde carries
/// outwards, or the bare message when the path is empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NestedError {
    /// Key path below the nested value, e.g. `shapes[1].size`.
    pub path: String,
    /// serde's message, without any path.
    pub message: String,
}

impl NestedError {
    /// The problem at `path`, for a (possibly path-marked) `message`: a path inside the
    /// message is appended to `path`.
    fn at(path: &str, message: &str) -> Self {
        let (inner_path, message) = unmark(message);
        NestedError { path: append_path(path, &inner_path), message }
    }

    /// The problem as an issue below key path `at`, with serde's message turned into a
    /// suggestion where it names a wrong key or value.
    pub fn issue(self, at: &str) -> Issue {
        from_serde_message(append_path(at, &self.path), &self.message)
    }
}

impl fmt::Display for NestedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{PATH_MARK}{}{PATH_MARK}{}", self.path, self.message)
        }
    }
}

impl std::error::Error for NestedError {}

/// Splits a path-marked message into (path, message); unmarked messages have an empty path.
pub fn unmark(message: &str) -> (String, String) {
    if let Some(rest) = message.strip_prefix(PATH_MARK) {
        if let Some((path, msg)) = rest.split_once(PATH_MARK) {
            return (path.to_owned(), msg.to_owned());
        }
    }
    (String::new(), message.to_owned())
}

/// Appends an inner key path to a path: `a.b` + `[2].c` → `a.b[2].c`.
pub fn append_path(outer: &str, inner: &str) -> String {
    match (outer.is_empty(), inner.is_empty()) {
        (true, _) => inner.to_owned(),
        (false, true) => outer.to_owned(),
        (false, false) if inner.starts_with('[') => format!("{outer}{inner}"),
        (false, false) => format!("{outer}.{inner}"),
    }
}

/// Deserializes `value` as `T`, keeping the key path of any error inside it.
pub fn nested<T: DeserializeOwned>(value: Value) -> Result<T, NestedError> {
    serde_path_to_error::deserialize(value)
        .map_err(|e| NestedError::at(&path_string(e.path()), &e.inner().to_string()))
}

/// Removes `kind` from an object and checks it against `kinds`.
pub fn split_kind(value: Value, kinds: &[&str]) -> Result<(String, Value), NestedError> {
    let quoted = kinds.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let Value::Object(mut map) = value else {
        return Err(NestedError::at(
            "",
            &format!("expected a mapping with `kind: ...` (one of {quoted}), found {}", describe(&value)),
        ));
    };
    match map.remove("kind") {
        Some(Value::String(kind)) if kinds.contains(&kind.as_str()) => Ok((kind, Value::Object(map))),
        Some(Value::String(kind)) => {
            Err(NestedError::at("kind", &format!("unknown variant `{kind}`, expected one of {quoted}")))
        }
        Some(other) => {
            Err(NestedError::at("kind", &format!("expected a string, found {}", describe(&other))))
        }
        None => Err(NestedError::at("", &format!("missing field `kind`, expected one of {quoted}"))),
    }
}

/// Adds `kind: <const>` as a required property to an object schema.
pub fn with_kind(mut schema: schemars::Schema, kind: &str) -> schemars::Schema {
    let object = schema.ensure_object();
    let properties = object.entry("properties").or_insert_with(|| Value::Object(Default::default()));
    if let Value::Object(p) = properties {
        p.insert("kind".into(), serde_json::json!({ "const": kind }));
    }
    let required = object.entry("required").or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(r) = required {
        r.insert(0, Value::from("kind"));
    }
    schema
}

/// Declares an enum read from `{kind: NAME, ...params}`, one variant per kind. Each NAME is a
/// string literal, or, after `@named`, a constant in brackets (`[Type::KIND]`).
macro_rules! kind_enum {
    ($(#[$meta:meta])* pub enum $name:ident {
        $($(#[$vmeta:meta])* $kind:literal => $variant:ident($params:ty),)+
    }) => {
        $crate::config::tagged::kind_enum! {
            @named $(#[$meta])* pub enum $name {
                $($(#[$vmeta])* [$kind] => $variant($params),)+
            }
        }
    };
    (@named $(#[$meta:meta])* pub enum $name:ident {
        $($(#[$vmeta:meta])* [$kind:expr] => $variant:ident($params:ty),)+
    }) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        pub enum $name {
            $($(#[$vmeta])* $variant($params),)+
        }

        impl $name {
            /// The accepted `kind` values.
            pub const KINDS: &'static [&'static str] = &[$($kind),+];

            /// This value's `kind`.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => $kind,)+
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error;
                let value = serde_json::Value::deserialize(d)?;
                let (kind, rest) = $crate::config::tagged::split_kind(value, Self::KINDS)
                    .map_err(D::Error::custom)?;
                $(if kind == $kind {
                    return $crate::config::tagged::nested(rest).map(Self::$variant).map_err(D::Error::custom);
                })+
                unreachable!("split_kind checked the kind")
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let variants = vec![$(
                    $crate::config::tagged::with_kind(
                        <$params as schemars::JsonSchema>::json_schema(generator), $kind,
                    ).to_value(),
                )+];
                schemars::json_schema!({ "oneOf": variants })
            }
        }
    };
}
pub(crate) use kind_enum;

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, schemars::JsonSchema, Clone, Debug)]
    #[serde(deny_unknown_fields)]
    pub struct Inner {
        pub size: u32,
    }

    kind_enum! {
        /// Test enum.
        pub enum Shape {
            "small" => Small(Inner),
            "large" => Large(Inner),
        }
    }

    #[derive(Deserialize, Debug)]
    struct Outer {
        shapes: Vec<Shape>,
    }

    fn error_of(json: serde_json::Value) -> (String, String) {
        let err = nested::<Outer>(json).unwrap_err();
        unmark(&err.to_string())
    }

    #[test]
    fn inner_paths_survive() {
        let (path, msg) = error_of(
            serde_json::json!({"shapes": [{"kind": "small", "size": 1}, {"kind": "large", "size": "x"}]}),
        );
        assert_eq!(path, "shapes[1].size");
        assert!(msg.starts_with("invalid type"), "{msg}");
        let (path, msg) = error_of(serde_json::json!({"shapes": [{"kind": "smal", "size": 1}]}));
        assert_eq!(path, "shapes[0].kind");
        assert!(msg.contains("unknown variant `smal`"), "{msg}");
        let (path, msg) = error_of(serde_json::json!({"shapes": [{"size": 1}]}));
        assert_eq!(path, "shapes[0]");
        assert!(msg.contains("missing field `kind`"), "{msg}");
    }

    #[test]
    fn kinds_parse() {
        let outer: Outer = nested(serde_json::json!({"shapes": [{"kind": "large", "size": 3}]})).unwrap();
        assert_eq!(outer.shapes[0].kind(), "large");
        assert!(matches!(&outer.shapes[0], Shape::Large(Inner { size: 3 })));
        let Shape::Small(small) = Shape::Small(Inner { size: 1 }) else { unreachable!() };
        assert_eq!(small.size, 1);
    }
}
