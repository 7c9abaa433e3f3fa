//! Key paths: `topology.links[2].rate`, as error messages print them, and the forms people
//! write in `--set` and in variants, where dots and brackets both separate segments and a
//! segment addressing a list may be an index (`traffic.0`) or the `name` of one of its
//! entries (`traffic.voice`).

use super::error::Issue;
use super::suggest::nearest;
use serde_json::Value;

/// One step of a path in the document's own form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A key of a mapping.
    Key(String),
    /// An element of a list.
    Index(usize),
}

/// The segments of a path as people write it: dots and brackets both separate.
pub fn segments(path: &str) -> Vec<&str> {
    path.split(['.', '[', ']']).filter(|s| !s.is_empty()).collect()
}

/// The steps of a path in the document's own form (`a.b[2].c`: an index only in brackets).
pub fn steps(path: &str) -> Vec<Step> {
    let mut out = Vec::new();
    for (n, part) in path.split('[').enumerate() {
        let keys = if n == 0 {
            part
        } else {
            let (index, rest) = part.split_once(']').unwrap_or((part, ""));
            match index.parse() {
                Ok(i) => out.push(Step::Index(i)),
                Err(_) => out.push(Step::Key(index.to_owned())),
            }
            rest
        };
        out.extend(keys.split('.').filter(|k| !k.is_empty()).map(|k| Step::Key(k.to_owned())));
    }
    out
}

/// Appends `step` to the document-form path `path`.
pub fn push(path: &mut String, step: &Step) {
    match step {
        Step::Index(i) => path.push_str(&format!("[{i}]")),
        Step::Key(key) if path.is_empty() => path.push_str(key),
        Step::Key(key) => {
            path.push('.');
            path.push_str(key);
        }
    }
}

/// The document-form path of `steps`.
pub fn render(steps: &[Step]) -> String {
    let mut path = String::new();
    steps.iter().for_each(|step| push(&mut path, step));
    path
}

/// Whether `path` is `ancestor` or lies below it (both in the document's form; the empty
/// path, the whole document, is below nothing but itself).
pub fn at_or_below(path: &str, ancestor: &str) -> bool {
    path.strip_prefix(ancestor).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// The entry's `name`, when it is a mapping with a text `name`.
fn entry_name(entry: &Value) -> Option<&str> {
    entry.get("name").and_then(Value::as_str)
}

/// The index of the element of `items` that `segment` addresses: a number is an index, any
/// other text the `name` of an entry. `at` is the key path reported when there is none.
pub fn list_position(items: &[Value], segment: &str, at: &str) -> Result<usize, Issue> {
    let len = items.len();
    if segment.bytes().all(|b| b.is_ascii_digit()) {
        return match segment.parse::<usize>() {
            Ok(i) if i < len => Ok(i),
            Ok(i) => Err(Issue::at(at, format!("index {i} is past the end of a list of {len}"))),
            Err(_) => Err(Issue::at(at, format!("`{segment}` is not a list index"))
                .hint(format!("this list has {len} entries, numbered from 0"))),
        };
    }
    if let Some(i) = items.iter().position(|entry| entry_name(entry) == Some(segment)) {
        return Ok(i);
    }
    let names: Vec<&str> = items.iter().filter_map(entry_name).collect();
    if names.is_empty() {
        return Err(Issue::at(at, format!("`{segment}` is not a list index"))
            .hint("address list elements by number, e.g. traffic.0"));
    }
    let hint = match nearest(segment, names.iter().copied()) {
        Some(best) => format!("did you mean `{best}`? (names here: {})", names.join(", ")),
        None => format!("address an entry by its number or its name (names here: {})", names.join(", ")),
    };
    Err(Issue::at(at, format!("no entry of this list is named `{segment}`")).hint(hint))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn document_paths_split_into_keys_and_indices() {
        let parsed = steps("topology.links[2].rate");
        assert_eq!(
            parsed,
            vec![
                Step::Key("topology".into()),
                Step::Key("links".into()),
                Step::Index(2),
                Step::Key("rate".into())
            ]
        );
        assert_eq!(render(&parsed), "topology.links[2].rate");
        assert_eq!(render(&steps("a[0][1].b")), "a[0][1].b");
        assert!(steps("").is_empty());
    }

    #[test]
    fn ancestors() {
        assert!(at_or_below("traffic[1].rate", "traffic[1]"));
        assert!(at_or_below("traffic[1]", "traffic[1]"));
        assert!(!at_or_below("traffic[10]", "traffic[1]"));
        assert!(!at_or_below("anything", ""));
        assert!(at_or_below("", ""));
    }

    #[test]
    fn list_entries_by_index_or_name() {
        let items = [json!({"name": "voice"}), json!({"name": "data"})];
        assert_eq!(list_position(&items, "1", "traffic[1]"), Ok(1));
        assert_eq!(list_position(&items, "data", "traffic"), Ok(1));
        let err = list_position(&items, "dta", "traffic").unwrap_err();
        assert_eq!(err.message, "no entry of this list is named `dta`");
        assert!(err.hint.unwrap().starts_with("did you mean `data`?"));
        assert!(list_position(&items, "2", "traffic[2]").unwrap_err().message.contains("past the end"));
        let huge = list_position(&items, "99999999999999999999", "traffic").unwrap_err();
        assert_eq!(huge.message, "`99999999999999999999` is not a list index");
        let unnamed = [json!({"between": ["a", "b"]})];
        assert_eq!(list_position(&unnamed, "x", "links").unwrap_err().message, "`x` is not a list index");
    }
}
