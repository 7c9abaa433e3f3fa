//! The reader's state: the configuration read so far and the mode (global, an interface, a
//! class map, a policy map or its class, a named access list, a route map, a Cisco 12000
//! `cos-queue-group`) the next line is read in.

use super::words::{problem, Problem};
use crate::ios::config::{Diagnostic, IosConfig, Severity};
use crate::ios::lines::Line;

/// Where the following lines go.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Mode {
    Global,
    Interface(usize),
    ClassMap(String),
    PolicyMap(String),
    PolicyClass(String, usize),
    NamedAcl(String, bool),
    RouteMap(String, usize),
    CosQueueGroup(String),
}

/// What a mode made of a line.
pub(super) enum Outcome {
    Done,
    NotHere,
}

/// The configuration read so far and the mode the next line is read in.
pub(super) struct Parser {
    pub(super) config: IosConfig,
    pub(super) mode: Mode,
    /// The indentation of the line that opened the mode.
    pub(super) mode_indent: usize,
}

impl Parser {
    /// Records `problem` of `line` with `severity`.
    pub(super) fn diagnose(&mut self, severity: Severity, line: &Line, (column, message, hint): Problem) {
        self.config.diagnostics.push(Diagnostic { severity, line: line.number, column, message, hint });
    }

    /// Warns that `line` is not modelled.
    pub(super) fn unmodelled(&mut self, line: &Line) {
        let message = format!("`{}` is not modelled; the line is ignored", line.rest(0));
        self.diagnose(Severity::Warning, line, problem(line.column(0), message));
    }

    /// Opens `mode` at `line`.
    pub(super) fn enter(&mut self, mode: Mode, line: &Line) {
        self.mode = mode;
        self.mode_indent = line.indent;
    }
}
