//! Names that become parts of key paths: nodes and policies.

use crate::config::error::Issue;

/// Node and policy names become parts of key paths (`interfaces.r1.r2.output`, `--set`),
/// so they are restricted to characters that need no quoting there or in a shell.
pub(super) fn check_name(name: &str, what: &str, at: &str) -> Result<(), Issue> {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if valid {
        Ok(())
    } else {
        Err(Issue::at(at, format!("{what} name `{name}` has characters that key paths cannot carry"))
            .hint("use letters, digits, `-` and `_`, starting with a letter or digit"))
    }
}
