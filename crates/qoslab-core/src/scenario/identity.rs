//! A run's identity: the SHA-256 (FIPS 180-4) of what determines its results.
//!
//! The hash covers the effective document — the scenario after its variant and overrides,
//! without the `variants` and `sweep` sections and the `x-` keys, with `run.seed` and
//! `run.replication` set to the values the run uses — as canonical JSON (keys sorted at
//! every level, no spaces), followed by the SHA-256 of each file the build read (IOS
//! configurations, traffic and rate traces), in the order first read. Comments, key order,
//! anchors and the way a value was given (in the file, by a variant, by `--set`) leave it
//! unchanged; a changed value or a changed file changes it. Two runs with the same hash and
//! the same qoslab version give the same results.

use crate::config::error::{ErrorKind, Issue};
use crate::config::user_file;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// The hash, as 64 lowercase hex digits, of `document` (the effective document, sections
/// included: they are left out here) run with `seed` and `replication`, and of `files`.
pub fn scenario_sha256(
    document: &Value,
    seed: u64,
    replication: u64,
    files: &[PathBuf],
) -> Result<String, Issue> {
    let mut hasher = Sha256::new();
    hasher.update(canonical_document(document, seed, replication).as_bytes());
    for path in files {
        let mut file = user_file::open(path).map_err(|why| {
            Issue::at("", format!("cannot read a file again to identify the run: {}", why.message))
                .hint(why.hint)
                .kind(ErrorKind::File)
        })?;
        let mut file_hasher = Sha256::new();
        std::io::copy(&mut file, &mut file_hasher).map_err(|error| {
            Issue::at("", format!("cannot read `{}` again to identify the run: {error}", path.display()))
                .hint("check that the file stays in place while the scenario loads")
                .kind(ErrorKind::File)
        })?;
        hasher.update(file_hasher.finalize());
    }
    Ok(hex(&hasher.finalize()))
}

/// The canonical JSON of the document that identifies a run.
fn canonical_document(document: &Value, seed: u64, replication: u64) -> String {
    let mut document = document.clone();
    if let Value::Object(map) = &mut document {
        map.remove("variants");
        map.remove("sweep");
        if let Some(Value::Object(run)) = map.get_mut("run") {
            run.insert("seed".to_owned(), seed.into());
            run.insert("replication".to_owned(), replication.into());
        }
    }
    let mut out = String::new();
    canonical(&document, &mut out);
    out
}

/// Writes `value` as JSON with the keys of every mapping sorted (whatever order the map
/// keeps them in) and no spaces.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (n, (key, item)) in entries.into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(key).expect("a key serializes"));
                out.push(':');
                canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&serde_json::to_string(scalar).expect("a scalar serializes")),
    }
}

/// Bytes as lowercase hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_form_sorts_keys_and_drops_the_sections() {
        let document =
            json!({"run": {"seed": 3}, "b": [{"z": 1, "a": "x"}], "a": 1.5, "sweep": {}, "variants": {}});
        assert_eq!(
            canonical_document(&document, 7, 0),
            r#"{"a":1.5,"b":[{"a":"x","z":1}],"run":{"replication":0,"seed":7}}"#
        );
    }

    #[test]
    fn known_digest() {
        // SHA-256 of `{}` (FIPS 180-4; e.g. `printf '{}' | sha256sum`).
        assert_eq!(
            scenario_sha256(&json!({}), 1, 0, &[]).unwrap(),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }
}
