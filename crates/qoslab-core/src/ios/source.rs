//! Reading a configuration file before parsing it: what is not a regular file (see
//! `config::user_file`), a file larger than any router's configuration and text that is
//! not UTF-8 are refused with the reason and the fix, the size before anything is read.
//! The text read is kept for the run's record of its inputs (`user_file::note_text`).

use crate::config::user_file;
pub use crate::config::user_file::Unreadable;
use std::io::Read;
use std::path::Path;

/// The largest configuration file read, bytes (16 MiB: far above any router's whole
/// configuration, which is rarely more than a few hundred kilobytes).
pub const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// The text of the configuration file at `path`.
pub fn read_config(path: &Path) -> Result<String, Unreadable> {
    let shown = path.display();
    let unreadable = |message: String, hint: &str| Unreadable { message, hint: hint.to_owned() };
    let file = user_file::open(path)?;
    let size_bytes = file.metadata().map_or(0, |m| m.len());
    if size_bytes > MAX_CONFIG_BYTES {
        return Err(unreadable(
            format!(
                "`{shown}` has {size_bytes} bytes, more than the {MAX_CONFIG_BYTES} bytes (16 MiB) a configuration may have"
            ),
            "give the router's configuration text (`show running-config`), not a log or an image",
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes).map_err(|error| {
        unreadable(format!("cannot read `{shown}`: {error}"), "check the file's permissions")
    })?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(unreadable(
            format!("`{shown}` grew past the {MAX_CONFIG_BYTES} bytes (16 MiB) a configuration may have"),
            "give the router's configuration text (`show running-config`), not a log or an image",
        ));
    }
    let text = String::from_utf8(bytes).map_err(|error| {
        let offset = error.utf8_error().valid_up_to();
        let line = error.as_bytes()[..offset].iter().filter(|&&b| b == b'\n').count() + 1;
        unreadable(
            format!(
                "`{shown}` is not UTF-8 text: the bytes at offset {offset} (line {line}) are not a character"
            ),
            "save the configuration as UTF-8 or plain ASCII text",
        )
    })?;
    user_file::note_text(path, &text);
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_that_are_not_configurations() {
        let dir = std::env::temp_dir().join(format!("qoslab-ios-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = read_config(&dir.join("none.txt")).unwrap_err();
        assert!(missing.message.ends_with("none.txt` does not exist"), "{missing:?}");
        assert!(read_config(&dir).unwrap_err().message.ends_with("is a folder"));
        let device = read_config(Path::new("/dev/zero")).unwrap_err();
        assert!(device.message.contains("not a regular file"), "{device:?}");
        let latin1 = dir.join("latin1.txt");
        std::fs::write(&latin1, b"interface s0\n description caf\xe9\n").unwrap();
        let bad = read_config(&latin1).unwrap_err();
        assert!(bad.message.ends_with("the bytes at offset 29 (line 2) are not a character"), "{bad:?}");
        let big = dir.join("big.txt");
        std::fs::File::create(&big).unwrap().set_len(MAX_CONFIG_BYTES + 1).unwrap();
        assert!(read_config(&big).unwrap_err().message.contains("more than the 16777216 bytes"));
        let good = dir.join("good.txt");
        std::fs::write(&good, "interface s0\n").unwrap();
        assert_eq!(read_config(&good).unwrap(), "interface s0\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
