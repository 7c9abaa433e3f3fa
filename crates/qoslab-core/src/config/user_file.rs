//! Files a user names — IOS configurations, traffic traces, rate traces — opened only when
//! they are regular files. A folder, a pipe (which would wait for a writer that may never
//! come) or a device (which may never end, as `/dev/zero`) is refused with the reason and
//! the fix before anything is read; what is read from a file that opens is bounded by its
//! reader.
//!
//! The files opened while a scenario is built are noted (see [`recording`]), so that the
//! run's identity covers their contents as well as the scenario's text; the text of the
//! files a report shows (IOS configurations) is kept as read ([`note_text`]), so that the
//! run's record of its inputs holds exactly what the run used.

use std::cell::RefCell;
use std::fs::File;
use std::path::{Path, PathBuf};

thread_local! {
    /// The files opened on this thread since the innermost [`recording`] began.
    static OPENED: RefCell<Option<Vec<PathBuf>>> = const { RefCell::new(None) };
    /// The texts kept since the innermost [`recording`] began ([`note_text`]).
    static TEXTS: RefCell<Option<Vec<(PathBuf, String)>>> = const { RefCell::new(None) };
}

/// What a piece of work read through this module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Opened {
    /// The files opened through [`open`], each once, in the order first opened.
    pub files: Vec<PathBuf>,
    /// The texts noted through [`note_text`], each file once, as first read.
    pub texts: Vec<(PathBuf, String)>,
}

/// Runs `work` and returns what it returned with what it read (see [`Opened`]).
pub fn recording<R>(work: impl FnOnce() -> R) -> (R, Opened) {
    let outer = OPENED.with(|opened| opened.replace(Some(Vec::new())));
    let outer_texts = TEXTS.with(|texts| texts.replace(Some(Vec::new())));
    let result = work();
    let files = OPENED.with(|opened| {
        let mine = opened.replace(outer).unwrap_or_default();
        if let Some(outer) = opened.borrow_mut().as_mut() {
            mine.iter().for_each(|path| note(outer, path));
        }
        mine
    });
    let texts = TEXTS.with(|texts| {
        let mine = texts.replace(outer_texts).unwrap_or_default();
        if let Some(outer) = texts.borrow_mut().as_mut() {
            mine.iter().for_each(|(path, text)| note_text_in(outer, path, text));
        }
        mine
    });
    (result, Opened { files, texts })
}

/// Keeps `text`, read from the file at `path`, for the innermost [`recording`] (nothing
/// outside one).
pub fn note_text(path: &Path, text: &str) {
    TEXTS.with(|texts| {
        if let Some(texts) = texts.borrow_mut().as_mut() {
            note_text_in(texts, path, text);
        }
    });
}

fn note_text_in(texts: &mut Vec<(PathBuf, String)>, path: &Path, text: &str) {
    if !texts.iter().any(|(p, _)| p == path) {
        texts.push((path.to_owned(), text.to_owned()));
    }
}

/// Adds `path` to `opened` unless it is there already.
fn note(opened: &mut Vec<PathBuf>, path: &Path) {
    if !opened.iter().any(|p| p == path) {
        opened.push(path.to_owned());
    }
}

/// Why a file cannot be read: what is wrong, naming the file, and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// What is wrong, naming the file.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

/// The regular file at `path`, open for reading.
pub fn open(path: &Path) -> Result<File, Unreadable> {
    let shown = path.display();
    let unreadable = |message: String, hint: &str| Unreadable { message, hint: hint.to_owned() };
    let metadata = std::fs::metadata(path).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => unreadable(
            format!("`{shown}` does not exist"),
            "check the name; in a scenario a relative path is read from the scenario file's folder (the \
             current folder for a scenario given as text), on the command line from the current folder",
        ),
        _ => unreadable(format!("cannot read `{shown}`: {error}"), "check the file's permissions"),
    })?;
    if metadata.is_dir() {
        return Err(unreadable(format!("`{shown}` is a folder"), "name a file inside it"));
    }
    if !metadata.is_file() {
        return Err(unreadable(
            format!("`{shown}` is not a regular file (a pipe, a device or a socket)"),
            "save the text to a file and give its name",
        ));
    }
    let file = File::open(path).map_err(|error| {
        unreadable(format!("cannot read `{shown}`: {error}"), "check the file's permissions")
    })?;
    OPENED.with(|opened| {
        if let Some(opened) = opened.borrow_mut().as_mut() {
            note(opened, path);
        }
    });
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_open() {
        let dir = std::env::temp_dir().join(format!("qoslab-user-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = open(&dir.join("none.txt")).unwrap_err();
        assert!(missing.message.ends_with("none.txt` does not exist"), "{missing:?}");
        assert!(open(&dir).unwrap_err().message.ends_with("is a folder"));
        let device = open(Path::new("/dev/zero")).unwrap_err();
        assert!(device.message.contains("not a regular file"), "{device:?}");
        let good = dir.join("good.txt");
        std::fs::write(&good, "x").unwrap();
        assert!(open(&good).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn recording_notes_each_file_opened_once() {
        let dir = std::env::temp_dir().join(format!("qoslab-user-file-rec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
        std::fs::write(&a, "a").unwrap();
        std::fs::write(&b, "b").unwrap();
        let ((), opened) = recording(|| {
            for path in [&b, &a, &b, &dir.join("missing.txt")] {
                let _ = open(path);
            }
            note_text(&a, "a");
            note_text(&a, "a again");
        });
        assert_eq!(opened.files, vec![b.clone(), a.clone()]);
        assert_eq!(opened.texts, vec![(a.clone(), "a".to_owned())]);
        // Outside a recording nothing is noted.
        assert!(open(&a).is_ok());
        note_text(&a, "a");
        assert_eq!(recording(|| ()).1, Opened::default());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
