//! Trace-driven traffic: frames (or packets) at the times and of the sizes a CSV file
//! lists, as the DiffServ measurements replayed an MPEG-4 trace with RUDE.
//!
//! The file has one row per frame, `time_s,size_bytes` — the time in seconds since the
//! trace began (non-decreasing), the payload in bytes — with an optional header row and
//! `#` comment lines. It is read once, a line at a time, when the scenario is built (a line
//! longer than [`MAX_LINE_BYTES`], text that is not UTF-8, or more than [`MAX_ROWS`] rows is
//! an error at its line); the run never touches the disk. Row i leaves at the flow's start + time_i, split into packets by
//! [`super::frames`]. With `loop: true` the trace starts over after its last row, one
//! period later, the period being the last row's time plus the mean gap between rows; without
//! it the flow falls silent after the last row.

use crate::config::error::{join_path, ErrorKind, Issue};
use crate::config::user_file;
use crate::time::SimTime;
use crate::units::Size;
use schemars::JsonSchema;
use serde::Deserialize;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;

/// Longest line of a CSV trace, bytes.
pub const MAX_LINE_BYTES: usize = 4096;

/// Most rows a CSV trace may have (each kept for the run, 16 bytes a row).
pub const MAX_ROWS: usize = 10_000_000;

/// A CSV trace that cannot be read: where (the file, and the line when one line is at
/// fault) and what is wrong.
#[derive(Debug)]
pub struct TraceError {
    /// The file (or other origin) of the text.
    pub origin: String,
    /// The line at fault, counted from 1.
    pub line: Option<u64>,
    /// What is wrong.
    pub problem: TraceProblem,
}

impl TraceError {
    fn at_line(origin: &str, line: u64, problem: TraceProblem) -> Self {
        TraceError { origin: origin.to_owned(), line: Some(line), problem }
    }

    fn whole(origin: &str, problem: TraceProblem) -> Self {
        TraceError { origin: origin.to_owned(), line: None, problem }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.origin, self.problem),
            None => write!(f, "{}: {}", self.origin, self.problem),
        }
    }
}

impl std::error::Error for TraceError {}

/// What is wrong with a CSV trace, or with one of its lines.
#[derive(Debug, thiserror::Error)]
pub enum TraceProblem {
    /// Reading failed.
    #[error("cannot be read: {0}")]
    Unreadable(std::io::Error),
    /// A line longer than [`MAX_LINE_BYTES`].
    #[error("the line is longer than {MAX_LINE_BYTES} bytes")]
    LineTooLong,
    /// A line that is not UTF-8.
    #[error("not UTF-8 text")]
    NotUtf8,
    /// Not two fields.
    #[error("expected two fields `time_s,{column}`, found {found}")]
    FieldCount { column: String, found: usize },
    /// A time that is not a number.
    #[error("`{text}` is not a time in seconds")]
    NotATime { text: String },
    /// A value that is not a whole number.
    #[error("`{text}` is not a whole number of {unit}")]
    NotWhole { text: String, unit: String },
    /// A negative or infinite time.
    #[error("the time must be zero or positive")]
    NegativeTime,
    /// A time before the previous row's.
    #[error("times must not decrease ({time_s} s comes after a later row)")]
    Decreasing { time_s: f64 },
    /// More than [`MAX_ROWS`] rows.
    #[error("more than {MAX_ROWS} rows")]
    TooManyRows,
    /// No row at all.
    #[error("no rows")]
    NoRows,
    /// Every row has 0 bytes.
    #[error("the trace has no row with bytes to send")]
    NothingToSend,
}

/// Trace parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceParams {
    /// The CSV file of `time_s,size_bytes` rows, relative to the scenario file's folder.
    pub file: String,
    /// Start over after the last row (default false).
    #[serde(default, rename = "loop")]
    pub repeat: bool,
    /// Largest IP packet (default 1500 B).
    pub packet_size: Option<Size>,
    /// Header bytes in each packet (default 28 B: IPv4 and UDP).
    pub headers: Option<Size>,
}

/// A loaded trace: (time from the flow's start ns, payload bytes) per row, as the file
/// gives them.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The rows.
    pub rows: Vec<(u64, u64)>,
    /// Time from a row to the same row of the next repetition, ns: the last row's time plus
    /// the mean gap between rows.
    pub period_ns: u64,
}

impl Trace {
    /// Mean payload bit rate over one period, bit/s.
    pub fn mean_rate_bps(&self) -> f64 {
        let bytes: u64 = self.rows.iter().map(|&(_, b)| b).sum();
        bytes as f64 * 8.0 / (self.period_ns as f64 / 1e9)
    }

    /// Mean time between rows, ns.
    pub fn mean_gap_ns(&self) -> u64 {
        self.period_ns / self.rows.len() as u64
    }

    /// Parses CSV text; errors name `origin:line`.
    pub fn parse(text: &str, origin: &str) -> Result<Trace, TraceError> {
        Trace::from_rows(parse_rows(text.as_bytes(), origin, "size_bytes", "bytes")?, origin)
    }

    fn from_rows(rows: Vec<(u64, u64)>, origin: &str) -> Result<Trace, TraceError> {
        if rows.iter().all(|&(_, b)| b == 0) {
            return Err(TraceError::whole(origin, TraceProblem::NothingToSend));
        }
        let last_ns = rows.last().expect("a row").0;
        let span_ns = last_ns - rows[0].0;
        let gap_ns = if rows.len() > 1 { span_ns / (rows.len() as u64 - 1) } else { 1_000_000_000 };
        let period_ns = last_ns.saturating_add(gap_ns.max(1));
        Ok(Trace { rows, period_ns })
    }

    /// Loads the trace of `params` at key path `at`, with relative paths read from
    /// `base_dir`.
    pub fn load(params: &TraceParams, at: &str, base_dir: &Path) -> Result<Trace, Issue> {
        let path = base_dir.join(&params.file);
        let at = join_path(at, "file");
        let origin = path.display().to_string();
        let rows = read_rows(&path, "size_bytes", "bytes").map_err(|issue| issue.relocate(&at))?;
        Trace::from_rows(rows, &origin).map_err(|error| {
            Issue::at(at, error.to_string()).hint("rows are `time_s,size_bytes`, e.g. `0.04,5120`")
        })
    }
}

/// The rows of the CSV file at `path` (see [`parse_rows`]), read a line at a time. The
/// issue's key path is empty: the caller places it.
pub fn read_rows(path: &Path, column: &str, unit: &str) -> Result<Vec<(u64, u64)>, Issue> {
    let origin = path.display().to_string();
    let file = user_file::open(path).map_err(|why| {
        Issue::at("", format!("cannot read the trace: {}", why.message)).hint(why.hint).kind(ErrorKind::File)
    })?;
    parse_rows(BufReader::new(file), &origin, column, unit).map_err(|error| {
        Issue::at("", error.to_string()).hint(format!("rows are `time_s,{column}`, one per line"))
    })
}

/// Rows `time_s,COLUMN` of CSV text (`column` names the second column and `unit` its unit in
/// messages): times in seconds, non-decreasing, as ns; values whole numbers of `unit`. An
/// optional header row and `#` comment lines are skipped; errors name `origin:line`.
pub fn parse_rows(
    mut reader: impl BufRead,
    origin: &str,
    column: &str,
    unit: &str,
) -> Result<Vec<(u64, u64)>, TraceError> {
    let mut rows: Vec<(u64, u64)> = Vec::new();
    let mut bytes = Vec::new();
    for line_no in 1.. {
        let fault = |problem| TraceError::at_line(origin, line_no, problem);
        bytes.clear();
        let read = reader
            .by_ref()
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut bytes)
            .map_err(|error| fault(TraceProblem::Unreadable(error)))?;
        if read == 0 {
            break;
        }
        if bytes.len() > MAX_LINE_BYTES {
            return Err(fault(TraceProblem::LineTooLong));
        }
        let Ok(line) = std::str::from_utf8(&bytes) else {
            return Err(fault(TraceProblem::NotUtf8));
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [time, number] = fields[..] else {
            return Err(fault(TraceProblem::FieldCount { column: column.to_owned(), found: fields.len() }));
        };
        let Ok(time_s) = time.parse::<f64>() else {
            if rows.is_empty() && time.chars().any(|c| c.is_ascii_alphabetic()) {
                continue; // a header row
            }
            return Err(fault(TraceProblem::NotATime { text: time.to_owned() }));
        };
        let number = number
            .parse::<u64>()
            .map_err(|_| fault(TraceProblem::NotWhole { text: number.to_owned(), unit: unit.to_owned() }))?;
        if !(time_s.is_finite() && time_s >= 0.0) {
            return Err(fault(TraceProblem::NegativeTime));
        }
        let at_ns = (time_s * 1e9).round() as u64;
        if rows.last().is_some_and(|&(last, _)| at_ns < last) {
            return Err(fault(TraceProblem::Decreasing { time_s }));
        }
        if rows.len() == MAX_ROWS {
            return Err(fault(TraceProblem::TooManyRows));
        }
        rows.push((at_ns, number));
    }
    if rows.is_empty() {
        return Err(TraceError::whole(origin, TraceProblem::NoRows));
    }
    Ok(rows)
}

/// A position in a trace.
#[derive(Clone, Debug)]
pub struct TraceCursor {
    trace: Arc<Trace>,
    repeat: bool,
    origin: SimTime,
    index: usize,
}

impl TraceCursor {
    /// A cursor over `trace`, repeating it if `repeat`.
    pub fn new(trace: Arc<Trace>, repeat: bool) -> Self {
        TraceCursor { trace, repeat, origin: SimTime::ZERO, index: 0 }
    }

    /// Starts the trace over with its first row at `origin`.
    pub fn restart(&mut self, origin: SimTime) {
        self.origin = origin;
        self.index = 0;
    }

    /// The next row: when it leaves and its payload bytes. After the last row of a trace
    /// that does not repeat, a time no run reaches.
    pub fn next_frame(&mut self) -> (SimTime, u64) {
        if self.index == self.trace.rows.len() {
            if !self.repeat {
                return (SimTime(u64::MAX / 2), 1);
            }
            self.origin = self.origin.after(self.trace.period_ns);
            self.index = 0;
        }
        let (offset_ns, bytes) = self.trace.rows[self.index];
        self.index += 1;
        (self.origin.after(offset_ns), bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_times_sizes_and_the_loop() {
        let trace =
            Trace::parse("time_s,size_bytes\n# a comment\n0.5,100\n0.54,0\n0.58,3000\n", "t.csv").unwrap();
        // Each row keeps its own time from the start; the period is the last row's time plus
        // the mean gap between rows (40 ms).
        assert_eq!(trace.rows, vec![(500_000_000, 100), (540_000_000, 0), (580_000_000, 3000)]);
        assert_eq!(trace.period_ns, 620_000_000);
        assert!((trace.mean_rate_bps() - 3100.0 * 8.0 / 0.62).abs() < 1e-6);
        let mut cursor = TraceCursor::new(Arc::new(trace.clone()), true);
        cursor.restart(SimTime(1_000_000_000));
        let rows: Vec<(u64, u64)> = (0..4).map(|_| cursor.next_frame()).map(|(t, b)| (t.0, b)).collect();
        assert_eq!(
            rows,
            vec![(1_500_000_000, 100), (1_540_000_000, 0), (1_580_000_000, 3000), (2_120_000_000, 100)]
        );
        let mut once = TraceCursor::new(Arc::new(trace), false);
        once.restart(SimTime::ZERO);
        (0..3).for_each(|_| {
            once.next_frame();
        });
        assert!(once.next_frame().0 .0 > 1_000_000_000_000_000);
    }

    #[test]
    fn malformed_rows_name_their_line() {
        let error = |text: &str| Trace::parse(text, "v.csv").unwrap_err().to_string();
        assert_eq!(error("0,10\n0.1\n"), "v.csv:2: expected two fields `time_s,size_bytes`, found 1");
        assert_eq!(error("0,10\nsoon,5\n"), "v.csv:2: `soon` is not a time in seconds");
        assert_eq!(error("0,10\n0.1,1.5\n"), "v.csv:2: `1.5` is not a whole number of bytes");
        assert!(error("0.2,10\n0.1,5\n").starts_with("v.csv:2: times must not decrease"));
        assert_eq!(error("0,0\n"), "v.csv: the trace has no row with bytes to send");
    }
}
