//! Splitting configuration text into command lines: words with their columns, comments
//! (`!` lines) and blank lines dropped, the indentation kept; and a cursor that reads a
//! line's words in turn.

/// One word of a command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// The text.
    pub text: String,
    /// 1-based column of its first character.
    pub column: usize,
}

/// A command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// 1-based line number in the text.
    pub number: usize,
    /// Leading spaces (a tab counts as one).
    pub indent: usize,
    /// Its words, at least one.
    pub words: Vec<Word>,
}

impl Line {
    /// The words' texts.
    #[cfg(test)]
    pub fn texts(&self) -> Vec<&str> {
        self.words.iter().map(|w| w.text.as_str()).collect()
    }

    /// The column of word `i` (the end of the line when there are fewer words).
    pub fn column(&self, i: usize) -> usize {
        match self.words.get(i) {
            Some(word) => word.column,
            None => self.words.last().map_or(1, |w| w.column + w.text.chars().count()),
        }
    }

    /// The words from `i` on, joined by single spaces (free text such as a description).
    pub fn rest(&self, i: usize) -> String {
        self.words.iter().skip(i).map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ")
    }
}

/// A cursor over a line's words with errors naming the column.
#[derive(Clone)]
pub struct Words<'a> {
    line: &'a Line,
    next: usize,
}

impl<'a> Words<'a> {
    /// Words of `line` from word `first` on.
    pub fn new(line: &'a Line, first: usize) -> Self {
        Words { line, next: first }
    }

    /// The next word, if any, without taking it.
    pub fn peek(&self) -> Option<&'a str> {
        self.line.words.get(self.next).map(|w| w.text.as_str())
    }

    /// Takes the next word.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<&'a str> {
        let word = self.peek();
        self.next += usize::from(word.is_some());
        word
    }

    /// Takes every word left (the rest of the line is free text).
    pub fn skip_rest(&mut self) {
        self.next = self.line.words.len();
    }

    /// The column of the next word (or the end of the line).
    pub fn column(&self) -> usize {
        self.line.column(self.next)
    }

    /// An error at the next word.
    pub fn error(&self, message: impl Into<String>) -> (usize, String) {
        (self.column(), message.into())
    }
}

/// Control characters in `text` (other than tab and line ends), each with its 1-based line
/// and column: a configuration is plain text, and a NUL or an escape byte means the file is
/// not what it seems.
pub fn control_characters(text: &str) -> Vec<(usize, usize, char)> {
    let mut found = Vec::new();
    for (n, raw) in text.split('\n').enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        for (i, c) in raw.chars().enumerate() {
            if c.is_control() && c != '\t' {
                found.push((n + 1, i + 1, c));
            }
        }
    }
    found
}

/// The command lines of `text`.
pub fn split(text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_end();
        let body = trimmed.trim_start();
        if body.is_empty() || body.starts_with('!') {
            continue;
        }
        let indent = trimmed.len() - body.len();
        let mut words = Vec::new();
        let mut start = None;
        for (i, c) in trimmed.char_indices().chain(std::iter::once((trimmed.len(), ' '))) {
            match (c.is_whitespace(), start) {
                (false, None) => start = Some(i),
                (true, Some(s)) => {
                    let column = trimmed[..s].chars().count() + 1;
                    words.push(Word { text: trimmed[s..i].to_owned(), column });
                    start = None;
                }
                _ => {}
            }
        }
        lines.push(Line { number: n + 1, indent, words });
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_columns_comments_and_indentation() {
        let lines = split("!\nclass-map VOICE\n match  access-group 103\n\n! a comment\nend\n");
        assert_eq!(lines.len(), 3);
        assert_eq!((lines[0].number, lines[0].indent), (2, 0));
        assert_eq!(lines[1].texts(), ["match", "access-group", "103"]);
        assert_eq!((lines[1].number, lines[1].indent), (3, 1));
        assert_eq!(lines[1].words[2].column, 22);
        assert_eq!(lines[1].column(5), 25);
        assert_eq!(lines[1].rest(1), "access-group 103");
    }

    #[test]
    fn control_characters_are_found_where_they_are() {
        assert_eq!(control_characters("interface s0\r\n\tbandwidth 64\n"), []);
        assert_eq!(control_characters("a\nb\u{0}c\r\n\u{1b}"), [(2, 2, '\u{0}'), (3, 1, '\u{1b}')]);
    }
}
