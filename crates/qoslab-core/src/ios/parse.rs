//! Reading configuration lines the way IOS does: a command either belongs to the mode the
//! previous commands opened (`class-map`, `policy-map` and its `class`, `interface`, `ip
//! access-list`) or, if that mode has no such command, to the mode above it — so
//! configurations pasted without indentation (as the studies print them) read the same as
//! indented ones. `exit` leaves one mode, `end` all of them.
//!
//! Lines qoslab does not model become warnings. A line that would change QoS meaning but
//! cannot be read — a misspelt `priority`, a rate IOS would refuse — is an error, with a
//! suggestion for near-miss keywords.

use super::acl::entry;
use super::config::{
    ClassMap, CosQueueGroup, Diagnostic, FairQueue, Interface, IosConfig, ListMatch, PolicyClass, PolicyMap,
    Reference, RouteMapEntry, Severity,
};
use super::keywords::{damaged, interface_name, lookup, Lookup};
use super::lines::{control_characters, split, Line, Words};
use crate::classify::dscp::{parse_dscp, parse_precedence, CodepointError};
use serde_json::{json, Map, Value};

/// Where the following lines go.
#[derive(Clone, Debug, PartialEq)]
enum Mode {
    Global,
    Interface(usize),
    ClassMap(String),
    PolicyMap(String),
    PolicyClass(String, usize),
    NamedAcl(String, bool),
    RouteMap(String, usize),
    CosQueueGroup(String),
}

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

/// A problem with a line: column, message, hint.
type Problem = (usize, String, Option<String>);

fn problem(column: usize, message: impl std::fmt::Display) -> Problem {
    (column, message.to_string(), None)
}

/// What a mode made of a line.
enum Outcome {
    Done,
    NotHere,
}

struct Parser {
    config: IosConfig,
    mode: Mode,
    mode_indent: usize,
}

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

fn number<T: std::str::FromStr>(words: &mut Words, what: &str) -> Result<T, Problem> {
    let column = words.column();
    let word = words.next().ok_or_else(|| problem(column, format!("{what} is missing")))?;
    word.parse().map_err(|_| problem(column, format!("`{word}` is not {what}")))
}

/// IOS's ranges for the numbers that size queues and set rates, inclusive. A value outside
/// is refused at its column, as IOS refuses it, so no configuration can ask for an absurd
/// queue or rate. Sources: Cisco IOS Quality of Service Solutions Command Reference
/// (`queue-limit`, `tx-ring-limit`, `priority-list queue-limit`, `queue-list queue limit`,
/// `fair-queue`, `random-detect`, `priority`, `bandwidth`, `police`, `shape`) and Cisco
/// IOS Interface and Hardware Component Command Reference (`bandwidth`, `hold-queue`).
pub mod range {
    /// `queue-limit` in a policy-map class, packets.
    pub const CLASS_QUEUE_LIMIT: (u64, u64) = (1, 32_768);
    /// IOS XE's `queue-limit N bytes`, `N ms` and `N us`: qoslab's bounds (the command
    /// reference's ranges for these units were not in the sources read) — a 32-bit byte
    /// count, and at most one second.
    pub const CLASS_QUEUE_LIMIT_BYTES: (u64, u64) = (1, 4_294_967_295);
    /// See [`CLASS_QUEUE_LIMIT_BYTES`].
    pub const CLASS_QUEUE_LIMIT_MS: (u64, u64) = (1, 1_000);
    /// See [`CLASS_QUEUE_LIMIT_BYTES`].
    pub const CLASS_QUEUE_LIMIT_US: (u64, u64) = (1, 1_000_000);
    /// `tx-ring-limit`, particles (qoslab: packets).
    pub const TX_RING: (u64, u64) = (1, 32_767);
    /// `priority-list N queue-limit` and `queue-list N queue Q limit`, packets (0: no
    /// limit in IOS, which qoslab does not model).
    pub const LIST_QUEUE_LIMIT: (u64, u64) = (0, 32_767);
    /// `hold-queue N out`, packets.
    pub const HOLD_QUEUE: (u64, u64) = (0, 240_000);
    /// Interface `bandwidth`, kbit/s; also the most a class may be given in kbit/s.
    pub const BANDWIDTH_KBPS: (u64, u64) = (1, 10_000_000);
    /// `bandwidth` and `priority` of a class, kbit/s.
    pub const CLASS_RATE_KBPS: (u64, u64) = (8, 10_000_000);
    /// `police` and `shape` rates, bit/s (at most the largest interface bandwidth).
    pub const RATE_BPS: (u64, u64) = (8_000, 10_000_000_000);
    /// LLQ burst (`priority KBPS BURST`), bytes.
    pub const PRIORITY_BURST_BYTES: (u64, u64) = (32, 2_000_000);
    /// `fair-queue` congestive discard threshold, packets.
    pub const CDT: (u64, u64) = (1, 4_096);
    /// `fair-queue` dynamic conversation queues: a power of two in this range.
    pub const DYNAMIC_QUEUES: (u64, u64) = (16, 4_096);
    /// WRED thresholds in a policy-map class, packets.
    pub const WRED_THRESHOLD: (u64, u64) = (1, 4_096);
    /// WRED thresholds of a Cisco 12000 `random-detect-label`, packets: the line cards take
    /// thresholds above MQC's 4096 (the studied configuration has 5461); this bound is
    /// qoslab's, since a label's maximum also sizes its queue.
    pub const LABEL_THRESHOLD: (u64, u64) = (1, 65_535);
    /// WRED mark probability denominator.
    pub const WRED_DENOMINATOR: (u64, u64) = (1, 65_536);
    /// `random-detect exponential-weighting-constant`.
    pub const WRED_EXPONENT: (u64, u64) = (1, 16);
    /// Cisco 12000 MDRR queue weight (`queue Q WEIGHT`, `alternate-priority WEIGHT`).
    pub const MDRR_WEIGHT: (u64, u64) = (1, 2_048);
    /// `ppp multilink fragment delay`, ms.
    pub const FRAGMENT_DELAY_MS: (u64, u64) = (1, 1_000);
    /// IOS XE `bandwidth remaining ratio`.
    pub const REMAINING_RATIO: (u64, u64) = (1, 1_000);
    /// IOS XE `priority level`.
    pub const PRIORITY_LEVEL: (u64, u64) = (1, 2);
}

/// The next word as a number within IOS's `(low, high)` range for `what`.
fn ranged(words: &mut Words, what: &str, bounds: (u64, u64)) -> Result<u64, Problem> {
    within(words, what, bounds, "IOS's")
}

/// A number in `(low, high)`, the range of `whose` (`IOS's`, or `qoslab's` where IOS's own
/// is not known), refused at its column otherwise.
fn within(words: &mut Words, what: &str, (low, high): (u64, u64), whose: &str) -> Result<u64, Problem> {
    let column = words.column();
    let word = words.next().ok_or_else(|| problem(column, format!("{what} is missing")))?;
    let unsigned = word.strip_prefix('-').unwrap_or(word);
    let digits = !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit());
    match word.parse::<u64>() {
        Ok(value) if (low..=high).contains(&value) => Ok(value),
        Ok(_) | Err(_) if digits => Err((
            column,
            format!("{word} is outside {whose} range for {what}, {low} to {high}"),
            Some(format!("give {what} from {low} to {high}")),
        )),
        _ => Err(problem(column, format!("`{word}` is not {what}"))),
    }
}

/// A number of dynamic conversation queues: a power of two in IOS's range.
fn dynamic_queues(words: &mut Words) -> Result<u32, Problem> {
    let column = words.column();
    let queues = ranged(words, "a number of dynamic queues", range::DYNAMIC_QUEUES)?;
    if !queues.is_power_of_two() {
        return Err((
            column,
            format!("{queues} dynamic queues: IOS takes a power of two"),
            Some("give 16, 32, 64, 128, 256, 512, 1024, 2048 or 4096".into()),
        ));
    }
    Ok(queues as u32)
}

/// WRED `MIN MAX [DENOMINATOR]`, the thresholds within `thresholds` and the minimum not
/// above the maximum.
fn wred_thresholds(
    words: &mut Words,
    thresholds: (u64, u64),
    denominator_required: bool,
) -> Result<(u32, u32, Option<u32>), Problem> {
    let min = ranged(words, "a minimum threshold", thresholds)?;
    let max_column = words.column();
    let max = ranged(words, "a maximum threshold", thresholds)?;
    if min > max {
        return Err((
            max_column,
            format!("the maximum threshold {max} is below the minimum {min}"),
            Some("give the minimum threshold first, then a maximum at least as large".into()),
        ));
    }
    let denominator = if denominator_required || words.peek().is_some() {
        Some(ranged(words, "a mark probability denominator", range::WRED_DENOMINATOR)? as u32)
    } else {
        None
    };
    Ok((min as u32, max as u32, denominator))
}

/// A packet count within `range` that must not be 0 (IOS's "no limit", not modelled).
fn limit_packets(words: &mut Words, what: &str, range: (u64, u64)) -> Result<u32, Problem> {
    let column = words.column();
    // IOS's range starts at 0, qoslab's at 1.
    let modelled =
        |(column, message, _): Problem| (column, message, Some(format!("give {what} from 1 to {}", range.1)));
    match ranged(words, what, range).map_err(modelled)? {
        0 => Err((
            column,
            format!("{what} 0 (no limit at all) is not modelled"),
            Some(format!("give a limit from 1 to {}", range.1)),
        )),
        packets => Ok(u32::try_from(packets).expect("IOS's ranges fit in 32 bits")),
    }
}

fn percent(words: &mut Words) -> Result<u64, Problem> {
    let column = words.column();
    let value: u64 = number(words, "a percentage")?;
    if value == 0 || value > 100 {
        return Err((
            column,
            format!("{value} % is outside 1 to 100, which IOS refuses"),
            Some("give a percentage from 1 to 100".into()),
        ));
    }
    Ok(value)
}

impl Parser {
    fn diagnose(&mut self, severity: Severity, line: &Line, (column, message, hint): Problem) {
        self.config.diagnostics.push(Diagnostic { severity, line: line.number, column, message, hint });
    }

    fn unmodelled(&mut self, line: &Line) {
        let message = format!("`{}` is not modelled; the line is ignored", line.rest(0));
        self.diagnose(Severity::Warning, line, problem(line.column(0), message));
    }

    fn enter(&mut self, mode: Mode, line: &Line) {
        self.mode = mode;
        self.mode_indent = line.indent;
    }

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

    fn dispatch(&mut self, keyword: &str, line: &Line, words: &mut Words) -> Result<Outcome, Problem> {
        match (&self.mode, keyword) {
            (_, "description") => Ok(Outcome::Done),
            (Mode::Global, "access-list") => self.numbered_acl(words),
            (Mode::Global, "ip") => match words.peek().map(str::to_ascii_lowercase).as_deref() {
                Some("access-list") => {
                    words.next();
                    let column = words.column();
                    let kind = words.next().unwrap_or("").to_ascii_lowercase();
                    let extended = match kind.as_str() {
                        "extended" => true,
                        "standard" => false,
                        _ => return Err(problem(column, "expected `standard` or `extended`")),
                    };
                    let name =
                        words.next().ok_or_else(|| problem(words.column(), "the list needs a name"))?;
                    self.config.acls.entry(name.to_owned()).or_default();
                    self.enter(Mode::NamedAcl(name.to_owned(), extended), line);
                    Ok(Outcome::Done)
                }
                _ => Ok(Outcome::NotHere),
            },
            (Mode::Global, "class-map" | "policy-map") if !qos_type(words) => Ok(Outcome::NotHere),
            (Mode::Global, "class-map") => {
                let mut match_all = true;
                match words.peek().map(str::to_ascii_lowercase).as_deref() {
                    Some("match-any") => {
                        match_all = false;
                        words.next();
                    }
                    Some("match-all") => {
                        words.next();
                    }
                    _ => {}
                }
                let name =
                    words.next().ok_or_else(|| problem(words.column(), "the class map needs a name"))?;
                self.config.class_maps.insert(name.to_owned(), ClassMap { match_all, matches: Vec::new() });
                self.enter(Mode::ClassMap(name.to_owned()), line);
                Ok(Outcome::Done)
            }
            (Mode::Global, "policy-map") => {
                let column = words.column();
                let name = words.next().ok_or_else(|| problem(column, "the policy map needs a name"))?;
                let place = (line.number, column);
                self.config
                    .policy_maps
                    .entry(name.to_owned())
                    .or_insert(PolicyMap { classes: Vec::new(), place });
                self.enter(Mode::PolicyMap(name.to_owned()), line);
                Ok(Outcome::Done)
            }
            (Mode::Global, "version") => {
                let column = words.column();
                let version = words.next().ok_or_else(|| problem(column, "the version number is missing"))?;
                self.config.version = Some((version.to_owned(), (line.number, column)));
                Ok(Outcome::Done)
            }
            (Mode::Global, "priority-list") => self.priority_list(line, words),
            (Mode::Global, "queue-list") => self.queue_list(line, words),
            (Mode::Global, "interface") => {
                let column = words.column();
                let written = line.rest(1);
                let name = interface_name(&written.replace(' ', "")).ok_or_else(|| {
                    problem(column, format!("`{written}` is not an interface name qoslab knows"))
                })?;
                let index = match self.config.interfaces.iter().position(|i| i.name == name) {
                    Some(i) => i,
                    None => {
                        self.config.interfaces.push(Interface {
                            name,
                            line: line.number,
                            ..Interface::default()
                        });
                        self.config.interfaces.len() - 1
                    }
                };
                self.enter(Mode::Interface(index), line);
                Ok(Outcome::Done)
            }
            (Mode::Interface(i), _) => {
                let i = *i;
                self.interface_command(i, keyword, line, words)
            }
            (Mode::ClassMap(name), "match") => {
                let name = name.clone();
                let condition = self.class_match(words)?;
                if let Some(map) = self.config.class_maps.get_mut(&name) {
                    map.matches.push((condition, (line.number, line.column(1))));
                }
                Ok(Outcome::Done)
            }
            (Mode::PolicyMap(policy), "class") => {
                let policy = policy.clone();
                let column = words.column();
                let name = words.next().ok_or_else(|| problem(column, "`class` needs a class-map name"))?;
                let map = self.config.policy_maps.get_mut(&policy).expect("the policy map was opened");
                let index = match map.classes.iter().position(|c| c.name == name) {
                    Some(i) => i,
                    None => {
                        map.classes.push(PolicyClass {
                            name: name.to_owned(),
                            settings: Map::new(),
                            places: Default::default(),
                            child: None,
                            place: (line.number, column),
                        });
                        map.classes.len() - 1
                    }
                };
                self.enter(Mode::PolicyClass(policy, index), line);
                Ok(Outcome::Done)
            }
            (Mode::PolicyClass(policy, index), _) => {
                let (policy, index) = (policy.clone(), *index);
                self.class_setting(&policy, index, keyword, line, words)
            }
            (Mode::Global, "route-map") => {
                let name =
                    words.next().ok_or_else(|| problem(words.column(), "the route map needs a name"))?;
                let mut permit = true;
                if let Some(verb) = words.peek().map(str::to_ascii_lowercase) {
                    if verb == "permit" || verb == "deny" {
                        permit = verb == "permit";
                        words.next();
                    }
                }
                let sequence =
                    words.peek().map(|_| number(words, "a sequence number")).transpose()?.unwrap_or(10);
                let entries = self.config.route_maps.entry(name.to_owned()).or_default();
                let index = match entries.iter().position(|e| e.sequence == sequence) {
                    Some(i) => i,
                    None => {
                        entries.push(RouteMapEntry {
                            permit,
                            sequence,
                            acls: Vec::new(),
                            set: None,
                            place: (line.number, line.column(0)),
                        });
                        entries.sort_by_key(|e| e.sequence);
                        entries.iter().position(|e| e.sequence == sequence).expect("just added")
                    }
                };
                self.enter(Mode::RouteMap(name.to_owned(), index), line);
                Ok(Outcome::Done)
            }
            (Mode::RouteMap(name, index), keyword) => {
                let (name, index) = (name.clone(), *index);
                self.route_map_command(&name, index, keyword, line, words)
            }
            (Mode::Global, "cos-queue-group") => {
                let name = words
                    .next()
                    .ok_or_else(|| problem(words.column(), "the cos-queue-group needs a name"))?;
                let group = self.config.cos_queue_groups.entry(name.to_owned()).or_default();
                if group.place.0 == 0 {
                    group.place = (line.number, line.column(0));
                }
                self.enter(Mode::CosQueueGroup(name.to_owned()), line);
                Ok(Outcome::Done)
            }
            (Mode::CosQueueGroup(name), keyword) => {
                let name = name.clone();
                self.cos_command(&name, keyword, line.number, words)
            }
            (Mode::NamedAcl(..), "remark") => Ok(Outcome::Done),
            (Mode::NamedAcl(..), _) => self.named_acl_entry(line, 0),
            _ => Ok(Outcome::NotHere),
        }
    }

    fn numbered_acl(&mut self, words: &mut Words) -> Result<Outcome, Problem> {
        let column = words.column();
        let acl_number: u32 = number(words, "an access-list number")?;
        let extended = match acl_number {
            1..=99 | 1300..=1999 => false,
            100..=199 | 2000..=2699 => true,
            _ => return Err(problem(column, format!("{acl_number} is not an IP access-list number"))),
        };
        let column = words.column();
        let verb = words.next().unwrap_or("").to_ascii_lowercase();
        let permit = match verb.as_str() {
            "permit" => true,
            "deny" => false,
            "remark" => {
                words.skip_rest();
                return Ok(Outcome::Done);
            }
            _ => return Err(problem(column, "expected `permit`, `deny` or `remark`")),
        };
        let entry = entry(permit, words, extended).map_err(|(c, m)| problem(c, m))?;
        let acl = self.config.acls.entry(acl_number.to_string()).or_default();
        acl.push(entry);
        Ok(Outcome::Done)
    }

    fn named_acl_entry(&mut self, line: &Line, first: usize) -> Result<Outcome, Problem> {
        let Mode::NamedAcl(name, extended) = self.mode.clone() else { return Ok(Outcome::NotHere) };
        let mut words = Words::new(line, first);
        let column = words.column();
        let permit = match words.next().unwrap_or("").to_ascii_lowercase().as_str() {
            "permit" => true,
            "deny" => false,
            "remark" => return Ok(Outcome::Done),
            _ => return Err(problem(column, "expected `permit`, `deny` or `remark`")),
        };
        let entry = entry(permit, &mut words, extended).map_err(|(c, m)| problem(c, m))?;
        self.config.acls.get_mut(&name).expect("the list was opened").push(entry);
        Ok(Outcome::Done)
    }

    /// What a `priority-list`/`queue-list` rule matches after its queue.
    fn list_match(words: &mut Words) -> Result<ListMatch, Problem> {
        let column = words.column();
        match words.next().map(str::to_ascii_lowercase).as_deref() {
            None => Ok(ListMatch::Ip),
            Some("list") => {
                let acl = words
                    .next()
                    .ok_or_else(|| problem(words.column(), "`list` needs an access-list number"))?;
                Ok(ListMatch::Acl(acl.to_owned()))
            }
            Some("tcp") => Ok(ListMatch::Tcp(number(words, "a port")?)),
            Some("udp") => Ok(ListMatch::Udp(number(words, "a port")?)),
            Some(other) => {
                Err(problem(column, format!("`{other}` is not modelled here (use `list`, `tcp` or `udp`)")))
            }
        }
    }

    fn priority_list(&mut self, line: &Line, words: &mut Words) -> Result<Outcome, Problem> {
        let list_number: u32 = number(words, "a priority-list number")?;
        let queues = ["high", "medium", "normal", "low"];
        let queue = |words: &mut Words| -> Result<String, Problem> {
            let column = words.column();
            let word = words.next().unwrap_or("");
            match lookup(word, &queues) {
                Lookup::Found(q) => Ok(q.to_owned()),
                _ => Err(problem(column, format!("`{word}` is not a queue (high, medium, normal, low)"))),
            }
        };
        let column = words.column();
        let list = self.config.priority_lists.entry(list_number.to_string()).or_default();
        match words.next().map(str::to_ascii_lowercase).as_deref() {
            Some("protocol") => {
                expect_ip(words)?;
                let q = queue(words)?;
                list.rules.push((q, Self::list_match(words)?, (line.number, line.column(0))));
            }
            Some("default") => list.default = Some(queue(words)?),
            Some("queue-limit") => {
                let place = (line.number, words.column());
                let limit = range::LIST_QUEUE_LIMIT;
                let limits = [
                    limit_packets(words, "the high queue's limit", limit)?,
                    limit_packets(words, "the medium queue's limit", limit)?,
                    limit_packets(words, "the normal queue's limit", limit)?,
                    limit_packets(words, "the low queue's limit", limit)?,
                ];
                list.limits = Some((limits, place));
            }
            _ => return Err(problem(column, "expected `protocol`, `default` or `queue-limit`")),
        }
        Ok(Outcome::Done)
    }

    fn queue_list(&mut self, line: &Line, words: &mut Words) -> Result<Outcome, Problem> {
        let list_number: u32 = number(words, "a queue-list number")?;
        let column = words.column();
        let list = self.config.queue_lists.entry(list_number.to_string()).or_default();
        let queue = |words: &mut Words| -> Result<u32, Problem> {
            let column = words.column();
            let q: u32 = number(words, "a queue number")?;
            if q > 16 {
                return Err(problem(
                    column,
                    format!("queue {q} does not exist: custom queuing has queues 0 to 16"),
                ));
            }
            Ok(q)
        };
        match words.next().map(str::to_ascii_lowercase).as_deref() {
            Some("protocol") => {
                expect_ip(words)?;
                let q = queue(words)?;
                list.rules.push((q, Self::list_match(words)?, (line.number, line.column(0))));
            }
            Some("default") => list.default = Some(queue(words)?),
            Some("lowest-custom") => list.lowest_custom = Some(queue(words)?),
            Some("queue") => {
                let q = queue(words)?;
                let column = words.column();
                let entry = list.queues.entry(q).or_default();
                match words.next().map(str::to_ascii_lowercase).as_deref() {
                    Some("limit") => {
                        entry.0 = Some(limit_packets(words, "a queue limit", range::LIST_QUEUE_LIMIT)?)
                    }
                    Some("byte-count") => {
                        let count_column = words.column();
                        match number(words, "a byte count")? {
                            0 => {
                                return Err((
                                    count_column,
                                    "a byte count of 0 lets the queue send nothing".into(),
                                    Some(
                                        "give the bytes the queue may send per round, 1500 by default".into(),
                                    ),
                                ))
                            }
                            bytes => entry.1 = Some(bytes),
                        }
                    }
                    _ => return Err(problem(column, "expected `limit` or `byte-count`")),
                }
                list.queue_places.insert(q, (line.number, line.column(0)));
            }
            _ => return Err(problem(column, "expected `protocol`, `default`, `queue` or `lowest-custom`")),
        }
        Ok(Outcome::Done)
    }

    fn interface_command(
        &mut self,
        i: usize,
        keyword: &str,
        line: &Line,
        words: &mut Words,
    ) -> Result<Outcome, Problem> {
        let interface = &mut self.config.interfaces[i];
        let name = |words: &mut Words, what: &str| -> Result<Reference, Problem> {
            let column = words.column();
            let word = words.next().ok_or_else(|| problem(column, format!("{what} is missing")))?;
            Ok(Reference { name: word.to_owned(), line: line.number, column })
        };
        let place = (line.number, line.column(0));
        let clock = |words: &mut Words| -> Result<u64, Problem> {
            let column = words.column();
            match number(words, "a clock rate in bit/s")? {
                0 => Err((
                    column,
                    "a clock rate of 0 bit/s sends nothing".into(),
                    Some("give the line's rate in bit/s, the scenario link's `rate`".into()),
                )),
                bps => Ok(bps),
            }
        };
        match keyword {
            "bandwidth" => {
                interface.bandwidth_kbps =
                    Some(ranged(words, "a bandwidth in kbit/s", range::BANDWIDTH_KBPS)?);
                interface.places.insert("bandwidth".into(), place);
            }
            "clock" => {
                let column = words.column();
                if !words.next().is_some_and(|w| w.eq_ignore_ascii_case("rate")) {
                    return Err(problem(column, "expected `clock rate BPS`"));
                }
                interface.clock_rate_bps = Some(clock(words)?);
            }
            "clockrate" => interface.clock_rate_bps = Some(clock(words)?),
            "encapsulation" => interface.encapsulation = words.next().map(str::to_ascii_lowercase),
            "service-policy" => {
                let column = words.column();
                match words.next().map(str::to_ascii_lowercase).as_deref() {
                    Some("output") => interface.output_policy = Some(name(words, "the policy-map name")?),
                    Some("input") => interface.input_policy = Some(name(words, "the policy-map name")?),
                    _ => return Err(problem(column, "expected `input` or `output`")),
                }
            }
            "priority-group" => {
                interface.priority_group = Some(name(words, "the priority-list number")?);
                self.config.classic_syntax.get_or_insert((place, "priority-group"));
            }
            "custom-queue-list" => {
                interface.custom_queue_list = Some(name(words, "the queue-list number")?);
                self.config.classic_syntax.get_or_insert((place, "custom-queue-list"));
            }
            "fair-queue" => {
                let cdt = words
                    .peek()
                    .map(|_| ranged(words, "a congestive discard threshold", range::CDT))
                    .transpose()?
                    .map(|packets| packets as u32);
                let dynamic_queues = words.peek().map(|_| dynamic_queues(words)).transpose()?;
                interface.fair_queue = Some(Some(FairQueue { cdt, dynamic_queues }));
                interface.places.insert("fair_queue".into(), place);
                if words.peek().is_some() {
                    let column = words.column();
                    let message = "reservable (RSVP) conversation queues are not modelled; the rest of the line is read";
                    self.diagnose(Severity::Warning, line, problem(column, message));
                }
            }
            "no" => match words.next().map(str::to_ascii_lowercase).as_deref() {
                Some("fair-queue") => interface.fair_queue = Some(None),
                _ => {
                    self.unmodelled(line);
                }
            },
            "hold-queue" => {
                let packets = limit_packets(words, "a hold-queue length", range::HOLD_QUEUE)?;
                let column = words.column();
                match words.next().map(str::to_ascii_lowercase).as_deref() {
                    Some("out") => {
                        interface.hold_queue_out = Some(packets);
                        interface.places.insert("hold_queue".into(), place);
                    }
                    Some("in") => self.unmodelled(line),
                    _ => return Err(problem(column, "expected `in` or `out`")),
                }
            }
            "tx-ring-limit" => {
                interface.tx_ring = Some(ranged(words, "a transmit ring size", range::TX_RING)? as u32);
                interface.places.insert("tx_ring".into(), place);
            }
            "tx-cos" => interface.tx_cos = Some(name(words, "the cos-queue-group name")?),
            "ip" if line.rest(1).to_ascii_lowercase().starts_with("policy route-map ") => {
                let route_map = line.words.get(3).map(|w| w.text.clone()).unwrap_or_default();
                let column = line.column(3);
                interface.policy_route_map = Some(Reference { name: route_map, line: line.number, column });
            }
            "max-reserved-bandwidth" => {
                interface.max_reserved_pct = Some(percent(words)?);
                interface.places.insert("max_reserved".into(), place);
                self.config.classic_syntax.get_or_insert((place, "max-reserved-bandwidth"));
            }
            "ppp" => {
                let rest = line.rest(1).to_ascii_lowercase();
                let delay = rest.starts_with("multilink fragment delay ")
                    || rest.starts_with("multilink fragment-delay ");
                if rest == "multilink interleave" {
                    interface.interleave = true;
                    interface.places.entry("lfi".into()).or_insert(place);
                } else if delay {
                    let mut delay_words =
                        Words::new(line, if rest.contains("fragment-delay") { 3 } else { 4 });
                    let ms = ranged(&mut delay_words, "a fragment delay in ms", range::FRAGMENT_DELAY_MS)?;
                    interface.fragment_delay_ms = Some(ms);
                    interface.places.insert("lfi".into(), place);
                } else if rest != "multilink" {
                    // `ppp multilink` itself is read: what multilink PPP does to the queuing
                    // is its fragmentation and interleaving, the commands above.
                    self.unmodelled(line);
                }
            }
            _ => return Ok(Outcome::NotHere),
        }
        Ok(Outcome::Done)
    }

    fn class_match(&mut self, words: &mut Words) -> Result<Value, Problem> {
        let mut negate = false;
        if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("not")) {
            negate = true;
            words.next();
        }
        let column = words.column();
        let kind = words.next().unwrap_or("").to_ascii_lowercase();
        let values =
            |words: &mut Words, parse: fn(&str) -> Result<u8, CodepointError>| -> Result<Vec<u8>, Problem> {
                let mut out = Vec::new();
                while let Some(word) = words.peek() {
                    let column = words.column();
                    out.push(parse(word).map_err(|m| problem(column, m))?);
                    words.next();
                }
                if out.is_empty() {
                    return Err(problem(words.column(), "at least one value is needed"));
                }
                Ok(out)
            };
        let condition = match kind.as_str() {
            "any" => json!({}),
            "access-group" => {
                if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("name")) {
                    words.next();
                }
                let acl = words.next().ok_or_else(|| problem(words.column(), "an access list is missing"))?;
                json!({"acl": acl})
            }
            "ip" => {
                let column = words.column();
                match words.next().map(str::to_ascii_lowercase).as_deref() {
                    Some("dscp") => json!({"dscp": values(words, parse_dscp)?}),
                    Some("precedence") => json!({"precedence": values(words, parse_precedence)?}),
                    _ => return Err(problem(column, "expected `ip dscp` or `ip precedence`")),
                }
            }
            "dscp" => json!({"dscp": values(words, parse_dscp)?}),
            "precedence" => json!({"precedence": values(words, parse_precedence)?}),
            "protocol" => {
                let column = words.column();
                let name = words.next().map(str::to_ascii_lowercase);
                match name.as_deref().map(protocol_condition) {
                    Some(Some(condition)) => condition,
                    Some(None) => {
                        return Err((
                            column,
                            format!(
                                "`match protocol {}` (application recognition) is not modelled",
                                name.unwrap_or_default()
                            ),
                            Some(format!(
                                "classify with an access list or by DSCP instead; modelled: {}",
                                MATCH_PROTOCOLS.join(", ")
                            )),
                        ))
                    }
                    None => return Err(problem(column, "a protocol is missing")),
                }
            }
            other => return Err(problem(column, format!("`match {other}` is not modelled"))),
        };
        Ok(if negate { json!({"not": condition}) } else { condition })
    }

    fn class_setting(
        &mut self,
        policy: &str,
        index: usize,
        keyword: &str,
        line: &Line,
        words: &mut Words,
    ) -> Result<Outcome, Problem> {
        let class = &mut self.config.policy_maps.get_mut(policy).expect("opened").classes[index];
        let settings = &mut class.settings;
        let kbps = |words: &mut Words, what: &str| -> Result<String, Problem> {
            let value = ranged(words, what, range::CLASS_RATE_KBPS)?;
            Ok(format!("{value}kbps"))
        };
        let bps =
            |words: &mut Words| -> Result<u64, Problem> { ranged(words, "a rate in bit/s", range::RATE_BPS) };
        // The setting this command writes, for errors found when the policy is resolved.
        let rest = line.rest(1).to_ascii_lowercase();
        let key = match keyword {
            "bandwidth" if rest.starts_with("remaining ratio") => "bandwidth_remaining_ratio",
            "bandwidth" if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("remaining")) => {
                "bandwidth_remaining"
            }
            "priority" if rest.starts_with("level") => "priority_level",
            "conform-action" | "exceed-action" | "violate-action" => "police",
            other => other,
        };
        class.places.insert(key.replace('-', "_"), (line.number, line.column(0)));
        match keyword {
            "bandwidth" => match words.peek().map(str::to_ascii_lowercase).as_deref() {
                Some("percent") => {
                    words.next();
                    settings.insert("bandwidth".into(), json!(format!("{}%", percent(words)?)));
                }
                Some("remaining") => {
                    words.next();
                    let column = words.column();
                    match words.next().map(str::to_ascii_lowercase).as_deref() {
                        Some("percent") => {
                            settings
                                .insert("bandwidth_remaining".into(), json!(format!("{}%", percent(words)?)));
                        }
                        Some("ratio") => {
                            let ratio = ranged(words, "a ratio", range::REMAINING_RATIO)?;
                            settings.insert("bandwidth_remaining_ratio".into(), json!(ratio));
                            self.config
                                .xe_syntax
                                .get_or_insert(((line.number, column), "bandwidth remaining ratio"));
                        }
                        _ => {
                            return Err(problem(
                                column,
                                "expected `remaining percent P` or `remaining ratio N`",
                            ))
                        }
                    }
                }
                _ => {
                    settings.insert("bandwidth".into(), json!(kbps(words, "a bandwidth in kbit/s")?));
                }
            },
            "priority" => {
                if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("level")) {
                    let column = words.column();
                    words.next();
                    let level = ranged(words, "a priority level", range::PRIORITY_LEVEL)?;
                    settings.insert("priority_level".into(), json!(level));
                    self.config.xe_syntax.get_or_insert(((line.number, column), "priority level"));
                    // IOS XE: a level alone is a priority class held to no rate.
                    if words.peek().is_none() {
                        return Ok(Outcome::Done);
                    }
                }
                let rate = if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("percent")) {
                    words.next();
                    format!("{}%", percent(words)?)
                } else {
                    kbps(words, "a rate in kbit/s")?
                };
                settings.insert("priority".into(), json!(rate));
                if words.peek().is_some() {
                    let burst = ranged(words, "a burst in bytes", range::PRIORITY_BURST_BYTES)?;
                    settings.insert("burst".into(), json!(format!("{burst}B")));
                }
            }
            "queue-limit" => {
                // The number is read once its unit, the word after it, is known.
                let mut number = words.clone();
                words.next();
                let column = words.column();
                let unit = words.next().map(str::to_ascii_lowercase);
                // IOS XE's units: the suffix of the YAML value and the syntax's name.
                let (what, bounds, xe) = match unit.as_deref() {
                    None | Some("packets") => ("a queue limit in packets", range::CLASS_QUEUE_LIMIT, None),
                    Some("bytes") => (
                        "a queue limit in bytes",
                        range::CLASS_QUEUE_LIMIT_BYTES,
                        Some(("B", "queue-limit bytes")),
                    ),
                    Some("ms") => {
                        ("a queue limit in ms", range::CLASS_QUEUE_LIMIT_MS, Some(("ms", "queue-limit ms")))
                    }
                    Some("us") => {
                        ("a queue limit in us", range::CLASS_QUEUE_LIMIT_US, Some(("us", "queue-limit us")))
                    }
                    Some(other) => {
                        return Err((
                            column,
                            format!("`{other}` is not a queue-limit unit"),
                            Some("write `packets` (or nothing), or IOS XE's `bytes`, `ms` or `us`".into()),
                        ))
                    }
                };
                match xe {
                    None => {
                        settings.insert("queue_limit".into(), json!(ranged(&mut number, what, bounds)?));
                    }
                    Some((suffix, syntax)) => {
                        let value = within(&mut number, what, bounds, "qoslab's")?;
                        self.config.xe_syntax.get_or_insert(((line.number, column), syntax));
                        settings.insert("queue_limit".into(), json!(format!("{value}{suffix}")));
                    }
                }
            }
            "fair-queue" => {
                let value = match words.peek() {
                    Some(_) => json!({"dynamic_queues": dynamic_queues(words)?}),
                    None => json!(true),
                };
                settings.insert("fair_queue".into(), value);
            }
            "random-detect" => {
                let red = settings.entry("random_detect").or_insert_with(|| json!({}));
                let red = red.as_object_mut().expect("an object");
                let column = words.column();
                match words.next().map(str::to_ascii_lowercase).as_deref() {
                    None | Some("prec-based") => {}
                    Some("dscp-based") => {
                        red.insert("based_on".into(), json!("dscp"));
                    }
                    Some("ecn") => {
                        red.insert("ecn".into(), json!(true));
                    }
                    Some("exponential-weighting-constant") => {
                        let n = ranged(words, "an exponential weighting constant", range::WRED_EXPONENT)?;
                        red.insert("exponential_weighting_constant".into(), json!(n));
                    }
                    Some(basis @ ("dscp" | "precedence")) => {
                        let column = words.column();
                        let word = words.next().unwrap_or("");
                        let value = if basis == "dscp" { parse_dscp(word) } else { parse_precedence(word) };
                        let value = value.map_err(|m| problem(column, m))?;
                        let (min, max, denominator) = wred_thresholds(words, range::WRED_THRESHOLD, false)?;
                        let mut row = json!({basis: value, "min": min, "max": max});
                        if let Some(denominator) = denominator {
                            row["denominator"] = json!(denominator);
                        }
                        if basis == "dscp" {
                            red.insert("based_on".into(), json!("dscp"));
                        }
                        let profiles = red.entry("profiles").or_insert_with(|| json!([]));
                        profiles.as_array_mut().expect("a list").push(row);
                    }
                    Some(other) => {
                        return Err(problem(column, format!("`random-detect {other}` is not modelled")))
                    }
                }
            }
            "police" => {
                settings.insert("police".into(), police(words)?);
            }
            "conform-action" | "exceed-action" | "violate-action" => {
                let Some(police) = settings.get_mut("police") else {
                    return Err(problem(line.column(0), format!("`{keyword}` without a `police` before it")));
                };
                let action = action(words)?;
                police[keyword.replace('-', "_")] = json!(action);
            }
            "shape" => {
                let column = words.column();
                let mode = match words.next().map(str::to_ascii_lowercase).as_deref() {
                    Some("average") => "average",
                    Some("peak") => "peak",
                    _ => return Err(problem(column, "expected `shape average` or `shape peak`")),
                };
                let rate = if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("percent")) {
                    words.next();
                    format!("{}%", percent(words)?)
                } else {
                    format!("{}bps", bps(words)?)
                };
                let mut shape = json!({"rate": rate, "mode": mode});
                // IOS gives Bc and Be in bits.
                if words.peek().is_some() {
                    shape["bc"] = json!(format!("{}B", number::<u64>(words, "Bc in bits")?.div_ceil(8)));
                }
                if words.peek().is_some() {
                    shape["be"] = json!(format!("{}B", number::<u64>(words, "Be in bits")?.div_ceil(8)));
                }
                settings.insert("shape".into(), shape);
            }
            "set" => {
                let mut rest = Words::new(line, 1);
                if rest.peek().is_some_and(|w| w.eq_ignore_ascii_case("ip")) {
                    rest.next();
                }
                let column = rest.column();
                let field = rest.next().unwrap_or("").to_ascii_lowercase();
                let value_column = rest.column();
                let value = rest.next().ok_or_else(|| problem(value_column, "a value is missing"))?;
                let set = match field.as_str() {
                    "dscp" => json!({"dscp": parse_dscp(value).map_err(|m| problem(value_column, m))?}),
                    "precedence" => {
                        json!({"precedence": parse_precedence(value).map_err(|m| problem(value_column, m))?})
                    }
                    _ => {
                        return Err(problem(
                            column,
                            format!(
                                "`set {field}` is not modelled (use `set ip dscp` or `set ip precedence`)"
                            ),
                        ))
                    }
                };
                settings.insert("set".into(), set);
            }
            "service-policy" => {
                let column = words.column();
                let child =
                    words.next().ok_or_else(|| problem(column, "the child policy's name is missing"))?;
                class.child = Some(Reference { name: child.to_owned(), line: line.number, column });
            }
            _ => return Ok(Outcome::NotHere),
        }
        Ok(Outcome::Done)
    }
}

impl Parser {
    fn route_map_command(
        &mut self,
        name: &str,
        index: usize,
        keyword: &str,
        line: &Line,
        words: &mut Words,
    ) -> Result<Outcome, Problem> {
        let entry = &mut self.config.route_maps.get_mut(name).expect("opened")[index];
        let rest = line.rest(1).to_ascii_lowercase();
        match keyword {
            "match" if rest.starts_with("ip address ") => {
                words.next();
                words.next();
                while let Some(acl) = words.next() {
                    entry.acls.push(acl.to_owned());
                }
            }
            "set" if rest.starts_with("ip precedence") || rest.starts_with("ip dscp") => {
                words.next();
                let field = words.next().unwrap_or_default().to_ascii_lowercase();
                let column = words.column();
                let value =
                    words.next().ok_or_else(|| problem(column, format!("`set ip {field}` needs a value")))?;
                entry.set = Some(if field == "dscp" {
                    json!({"dscp": parse_dscp(value).map_err(|m| problem(column, m))?})
                } else {
                    json!({"precedence": parse_precedence(value).map_err(|m| problem(column, m))?})
                });
            }
            _ => {
                // Route maps also steer routing (`set ip next-hop`, ...): not QoS, not modelled.
                self.unmodelled(line);
            }
        }
        Ok(Outcome::Done)
    }

    fn cos_command(
        &mut self,
        name: &str,
        keyword: &str,
        line: usize,
        words: &mut Words,
    ) -> Result<Outcome, Problem> {
        let group: &mut CosQueueGroup = self.config.cos_queue_groups.get_mut(name).expect("opened");
        match keyword {
            "precedence" => {
                let column = words.column();
                let precedence: u8 = number(words, "a precedence")?;
                if precedence > 7 {
                    return Err(problem(column, format!("precedence {precedence} does not exist (0 to 7)")));
                }
                let column = words.column();
                match words.next().map(str::to_ascii_lowercase).as_deref() {
                    Some("queue") => {
                        let queue = if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("low-latency")) {
                            words.next();
                            None
                        } else {
                            Some(number(words, "a queue number")?)
                        };
                        group.precedence_queue.insert(precedence, queue);
                    }
                    Some("random-detect-label") => {
                        let place = (line, words.column());
                        group.precedence_label.insert(precedence, (number(words, "a label")?, place));
                    }
                    _ => return Err(problem(column, "expected `queue` or `random-detect-label`")),
                }
            }
            "random-detect-label" => {
                let label: u32 = number(words, "a label")?;
                let (min, max, denominator) = wred_thresholds(words, range::LABEL_THRESHOLD, true)?;
                group.labels.insert(label, (min, max, denominator.expect("required")));
            }
            "queue" => {
                if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("low-latency")) {
                    words.next();
                    let column = words.column();
                    match words.next().map(str::to_ascii_lowercase).as_deref() {
                        Some("strict-priority") | None => group.low_latency = Some(None),
                        Some("alternate-priority") => {
                            group.low_latency =
                                Some(Some(ranged(words, "an MDRR weight", range::MDRR_WEIGHT)?))
                        }
                        _ => {
                            return Err(problem(
                                column,
                                "expected `strict-priority` or `alternate-priority W`",
                            ))
                        }
                    }
                } else {
                    let queue: u32 = number(words, "a queue number")?;
                    group.weights.insert(queue, ranged(words, "an MDRR weight", range::MDRR_WEIGHT)?);
                }
            }
            _ => return Ok(Outcome::NotHere),
        }
        Ok(Outcome::Done)
    }
}

/// Reads the `ip` of `protocol ip` in priority- and queue-list rules.
fn expect_ip(words: &mut Words) -> Result<(), Problem> {
    let column = words.column();
    match words.next() {
        Some(word) if word.eq_ignore_ascii_case("ip") => Ok(()),
        _ => Err(problem(column, "only `protocol ip` rules are modelled")),
    }
}

/// Skips `type qos` after `class-map`/`policy-map`; false for other types (`inspect`,
/// `control-plane`, ...), which are not QoS queuing.
fn qos_type(words: &mut Words) -> bool {
    if !words.peek().is_some_and(|w| w.eq_ignore_ascii_case("type")) {
        return true;
    }
    words.next();
    let qos = words.peek().is_some_and(|w| w.eq_ignore_ascii_case("qos"));
    words.next();
    qos
}

/// The `match protocol` names qoslab reads: IP protocols, and applications by their
/// well-known ports (what application recognition would find on the standard ports).
const MATCH_PROTOCOLS: [&str; 16] = [
    "ip",
    "tcp",
    "udp",
    "icmp",
    "http",
    "secure-http",
    "ftp",
    "telnet",
    "ssh",
    "smtp",
    "dns",
    "snmp",
    "ntp",
    "sip",
    "h323",
    "rtp",
];

/// The match condition of `match protocol NAME`, if modelled.
fn protocol_condition(name: &str) -> Option<Value> {
    let on = |protocol: &str, port: &str| json!({"protocol": protocol, "dst_port": [port]});
    let both = |port: &str| json!({"any": [on("tcp", port), on("udp", port)]});
    Some(match name {
        "ip" => json!({}),
        "tcp" | "udp" | "icmp" => json!({"protocol": name}),
        "http" => on("tcp", "80"),
        "secure-http" => on("tcp", "443"),
        "ftp" => on("tcp", "21"),
        "telnet" => on("tcp", "23"),
        "ssh" => on("tcp", "22"),
        "smtp" => on("tcp", "25"),
        "dns" => both("53"),
        "snmp" => on("udp", "161"),
        "ntp" => on("udp", "123"),
        "sip" => both("5060"),
        "h323" => on("tcp", "1720"),
        // Cisco's default RTP port range (even and odd ports).
        "rtp" => on("udp", "16384-32767"),
        _ => return None,
    })
}

/// A police action: `transmit`, `drop`, `set-dscp-transmit X`, `set-prec-transmit N`.
fn action(words: &mut Words) -> Result<String, Problem> {
    let column = words.column();
    let verb = words.next().unwrap_or("").to_ascii_lowercase();
    match verb.as_str() {
        "transmit" | "drop" => Ok(verb),
        "set-dscp-transmit" | "set-prec-transmit" => {
            let value = words.next().ok_or_else(|| problem(words.column(), "a value is missing"))?;
            Ok(format!("{verb} {value}"))
        }
        _ => Err(problem(column, format!("`{verb}` is not a police action qoslab models"))),
    }
}

/// `police [cir] BPS|cir percent P [bc] [BYTES [be] [BYTES]] [pir BPS] [actions]`.
fn police(words: &mut Words) -> Result<Value, Problem> {
    let mut police = json!({});
    if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("cir")) {
        words.next();
    }
    if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("percent")) {
        words.next();
        police["cir"] = json!(format!("{}%", percent(words)?));
    } else {
        police["cir"] = json!(format!("{}bps", ranged(words, "a rate in bit/s", range::RATE_BPS)?));
    }
    let mut positional = 0;
    while let Some(word) = words.peek() {
        let column = words.column();
        match word.to_ascii_lowercase().as_str() {
            "bc" => {
                words.next();
                police["bc"] = json!(format!("{}B", number::<u64>(words, "Bc in bytes")?));
            }
            "be" => {
                words.next();
                police["be"] = json!(format!("{}B", number::<u64>(words, "Be in bytes")?));
            }
            "pir" => {
                words.next();
                police["pir"] = json!(format!("{}bps", ranged(words, "a rate in bit/s", range::RATE_BPS)?));
            }
            key @ ("conform-action" | "exceed-action" | "violate-action") => {
                words.next();
                police[key.replace('-', "_")] = json!(action(words)?);
            }
            _ if word.parse::<u64>().is_ok() && positional < 2 => {
                let bytes: u64 = number(words, "a burst in bytes")?;
                police[if positional == 0 { "bc" } else { "be" }] = json!(format!("{bytes}B"));
                positional += 1;
            }
            other => return Err(problem(column, format!("`{other}` is not modelled in `police`"))),
        }
    }
    Ok(police)
}
