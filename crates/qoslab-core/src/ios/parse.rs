//! Reading configuration lines the way IOS does: a command either belongs to the mode the
//! previous commands opened (`class-map`, `policy-map` and its `class`, `interface`, `ip
//! access-list`) or, if that mode has no such command, to the mode above it — so
//! configurations pasted without indentation (as the studies print them) read the same as
//! indented ones. `exit` leaves one mode, `end` all of them.
//!
//! Lines qoslab does not model become warnings. A line that would change QoS meaning but
//! cannot be read — a misspelt `priority`, a rate IOS would refuse — is an error, with a
//! suggestion for near-miss keywords.
//!
//! Each mode's commands are read in a file of their own: [`interface`], [`class_map`],
//! [`policy_map`] (and its classes), [`lists`] (access lists, priority and queue lists),
//! [`route_map`], [`cos_queue_group`]; [`words`] reads the values they share and [`state`]
//! holds what has been read.

mod class_map;
mod cos_queue_group;
mod interface;
mod lists;
mod policy_map;
mod route_map;
mod state;
mod words;

pub use words::range;

use crate::ios::config::{Diagnostic, IosConfig, Severity};
use crate::ios::keywords::{damaged, lookup, Lookup};
use crate::ios::lines::{control_characters, split, Line, Words};
use state::{Mode, Outcome, Parser};
use words::{problem, qos_type, Problem};

/// The commands each mode reads, by their first word.
const GLOBAL: &[&str] = &[
    "access-list",
    "ip",
    "class-map",
    "policy-map",
    "priority-list",
    "queue-list",
    "interface",
    "route-map",
    "cos-queue-group",
    "version",
    "end",
    "exit",
];
const INTERFACE: &[&str] = &[
    "bandwidth",
    "clock",
    "clockrate",
    "encapsulation",
    "service-policy",
    "priority-group",
    "custom-queue-list",
    "fair-queue",
    "no",
    "hold-queue",
    "tx-ring-limit",
    "max-reserved-bandwidth",
    "ppp",
    "ip",
    "tx-cos",
    "description",
];
const CLASS_MAP: &[&str] = &["match", "description"];
const POLICY_MAP: &[&str] = &["class", "description"];
const POLICY_CLASS: &[&str] = &[
    "bandwidth",
    "priority",
    "queue-limit",
    "fair-queue",
    "random-detect",
    "police",
    "shape",
    "set",
    "service-policy",
    "conform-action",
    "exceed-action",
    "violate-action",
];
const NAMED_ACL: &[&str] = &["permit", "deny", "remark"];
const ROUTE_MAP: &[&str] = &["match", "set", "description"];
const COS_QUEUE_GROUP: &[&str] = &["precedence", "random-detect-label", "queue"];

/// Reads `text`.
pub fn parse(text: &str) -> IosConfig {
    let mut parser = Parser { config: IosConfig::default(), mode: Mode::Global, mode_indent: 0 };
    // A line with a control character is an error there, and is not read further.
    let mut damaged = Vec::new();
    for (line, column, c) in control_characters(text) {
        parser.config.diagnostics.push(Diagnostic::error(
            (line, column),
            format!("control character U+{:04X} in the text", c as u32),
            "a configuration is plain text: remove the character, or give the file IOS printed (`show running-config`)",
        ));
        damaged.push(line);
    }
    for line in split(text).into_iter().filter(|l| !damaged.contains(&l.number)) {
        parser.line(&line);
    }
    parser.config.diagnostics.sort_by_key(|d| (d.line, d.column));
    parser.config
}

impl Parser {
    /// Reads one line: in the current mode, or in a mode above when this one has no such
    /// command.
    fn line(&mut self, line: &Line) {
        let first = line.words[0].text.to_ascii_lowercase();
        if first == "end" {
            self.mode = Mode::Global;
            return;
        }
        if first == "exit" {
            self.mode = match &self.mode {
                Mode::PolicyClass(policy, _) => Mode::PolicyMap(policy.clone()),
                _ => Mode::Global,
            };
            return;
        }
        // A command the mode does not know may belong to the mode above (IOS leaves a mode
        // for a command of the one above). An indented line belongs to its mode; a command
        // no mode knows is not modelled, and the mode stays as it was.
        let (start_mode, start_indent) = (self.mode.clone(), self.mode_indent);
        let indented = start_mode != Mode::Global && line.indent > start_indent;
        loop {
            match self.attempt(line, &first) {
                Ok(Outcome::Done) => return,
                Err(p) => {
                    (self.mode, self.mode_indent) = (start_mode, start_indent);
                    return self.diagnose(Severity::Error, line, p);
                }
                Ok(Outcome::NotHere) => {}
            }
            let parent = match &self.mode {
                Mode::Global => None,
                _ if indented => None,
                Mode::PolicyClass(policy, _) => Some(Mode::PolicyMap(policy.clone())),
                _ => Some(Mode::Global),
            };
            match parent {
                Some(mode) => self.mode = mode,
                None => {
                    (self.mode, self.mode_indent) = (start_mode, start_indent);
                    return self.unmodelled(line);
                }
            }
        }
    }

    /// Reads `line` as a command of the current mode.
    fn attempt(&mut self, line: &Line, first: &str) -> Result<Outcome, Problem> {
        let keywords = match self.mode {
            Mode::Global => GLOBAL,
            Mode::Interface(_) => INTERFACE,
            Mode::ClassMap(_) => CLASS_MAP,
            Mode::PolicyMap(_) => POLICY_MAP,
            Mode::PolicyClass(..) => POLICY_CLASS,
            Mode::NamedAcl(..) => NAMED_ACL,
            Mode::RouteMap(..) => ROUTE_MAP,
            Mode::CosQueueGroup(_) => COS_QUEUE_GROUP,
        };
        let outcome = match lookup(&line.words[0].text, keywords) {
            Lookup::Found(keyword) => self.command(keyword, line),
            Lookup::Ambiguous(options) => Err(problem(
                line.column(0),
                format!("`{}` is ambiguous here: {}", line.words[0].text, options.join(", ")),
            )),
            Lookup::Unknown(near) => {
                // In a class map or a policy's class, a damaged keyword still changes
                // what the policy does.
                let qos_mode = matches!(
                    self.mode,
                    Mode::ClassMap(_) | Mode::PolicyClass(..) | Mode::RouteMap(..) | Mode::CosQueueGroup(_)
                );
                // A command of a mode above (`policy-map` after a class's settings) is not a
                // misspelling: it leaves this mode.
                let known_above = matches!(lookup(first, GLOBAL), Lookup::Found(_))
                    || matches!(self.mode, Mode::PolicyClass(..))
                        && matches!(lookup(first, POLICY_MAP), Lookup::Found(_));
                let near = if known_above {
                    None
                } else {
                    near.or_else(|| if qos_mode { damaged(first, keywords) } else { None })
                };
                let sequence = matches!(self.mode, Mode::NamedAcl(..)) && first.parse::<u32>().is_ok();
                if sequence {
                    self.named_acl_entry(line, 1)
                } else {
                    match near {
                        // A misspelt keyword of a QoS mode changes what the policy does.
                        // (Short keywords such as `ip` and `no` are too near too many commands.)
                        Some(keyword) if keyword.len() >= 4 => {
                            let (column, word) = (line.column(0), &line.words[0].text);
                            Err((
                                column,
                                format!("unknown command `{word}`"),
                                Some(format!("did you mean `{keyword}`?")),
                            ))
                        }
                        _ => Ok(Outcome::NotHere),
                    }
                }
            }
        };
        outcome
    }

    /// Reads `line` as command `keyword` of the current mode, and warns of words left over.
    fn command(&mut self, keyword: &str, line: &Line) -> Result<Outcome, Problem> {
        let mut words = Words::new(line, 1);
        let outcome = self.dispatch(keyword, line, &mut words)?;
        // Commands that read the line themselves are free text after their keyword.
        let reads_line =
            matches!(keyword, "description" | "ppp" | "ip" | "set" | "interface" | "no" | "match")
                || matches!(self.mode, Mode::NamedAcl(..));
        if matches!(outcome, Outcome::Done) && !reads_line && words.peek().is_some() {
            let column = words.column();
            let rest = line.rest(line.words.iter().position(|w| w.column == column).unwrap_or(0));
            let message = format!("`{rest}` at the end of the line is not read");
            self.diagnose(Severity::Warning, line, problem(column, message));
        }
        Ok(outcome)
    }

    /// Reads a command of the current mode whose keyword is `keyword`.
    fn dispatch(&mut self, keyword: &str, line: &Line, words: &mut Words) -> Result<Outcome, Problem> {
        match (&self.mode, keyword) {
            (_, "description") => Ok(Outcome::Done),
            (Mode::Global, "access-list") => self.numbered_acl(words),
            (Mode::Global, "ip") => self.open_named_acl(line, words),
            (Mode::Global, "class-map" | "policy-map") if !qos_type(words) => Ok(Outcome::NotHere),
            (Mode::Global, "class-map") => self.open_class_map(line, words),
            (Mode::Global, "policy-map") => self.open_policy_map(line, words),
            (Mode::Global, "version") => {
                let column = words.column();
                let version = words.next().ok_or_else(|| problem(column, "the version number is missing"))?;
                self.config.version = Some((version.to_owned(), (line.number, column)));
                Ok(Outcome::Done)
            }
            (Mode::Global, "priority-list") => self.priority_list(line, words),
            (Mode::Global, "queue-list") => self.queue_list(line, words),
            (Mode::Global, "interface") => self.open_interface(line, words),
            (Mode::Interface(i), _) => {
                let i = *i;
                self.interface_command(i, keyword, line, words)
            }
            (Mode::ClassMap(name), "match") => {
                let name = name.clone();
                self.class_map_match(&name, line, words)
            }
            (Mode::PolicyMap(policy), "class") => {
                let policy = policy.clone();
                self.open_policy_class(policy, line, words)
            }
            (Mode::PolicyClass(policy, index), _) => {
                let (policy, index) = (policy.clone(), *index);
                self.class_setting(&policy, index, keyword, line, words)
            }
            (Mode::Global, "route-map") => self.open_route_map(line, words),
            (Mode::RouteMap(name, index), keyword) => {
                let (name, index) = (name.clone(), *index);
                self.route_map_command(&name, index, keyword, line, words)
            }
            (Mode::Global, "cos-queue-group") => self.open_cos_queue_group(line, words),
            (Mode::CosQueueGroup(name), keyword) => {
                let name = name.clone();
                self.cos_command(&name, keyword, line.number, words)
            }
            (Mode::NamedAcl(..), "remark") => Ok(Outcome::Done),
            (Mode::NamedAcl(..), _) => self.named_acl_entry(line, 0),
            _ => Ok(Outcome::NotHere),
        }
    }
}
