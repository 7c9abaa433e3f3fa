//! What a configuration says about QoS: access lists, class maps, policy maps, priority and
//! queue lists, and interfaces, each with the line it was written on. Class and policy
//! contents are kept in qoslab's own scenario form (match conditions and class settings as
//! the YAML writes them), so the importer's result is an ordinary policy.

use super::acl::AclEntry;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// How bad a finding is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// A line qoslab does not model; the rest of the configuration stands.
    Warning,
    /// A line that changes QoS meaning and cannot be read, or that IOS itself would refuse.
    Error,
}

/// A finding about one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Warning or error.
    pub severity: Severity,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it, if there is a suggestion.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error at `(line, column)` (line 0: about no line in particular, such as an
    /// interface the configuration does not have).
    pub fn error((line, column): Place, message: impl Into<String>, hint: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            line,
            column,
            message: message.into(),
            hint: Some(hint.into()),
        }
    }

    /// `ORIGIN:LINE:COLUMN: message (hint)`, or `ORIGIN: message (hint)` for line 0.
    pub fn located(&self, origin: &str) -> String {
        let mut text = match self.line {
            0 => format!("{origin}: {}", self.message),
            line => format!("{origin}:{line}:{}: {}", self.column, self.message),
        };
        if let Some(hint) = &self.hint {
            text.push_str(&format!(" ({hint})"));
        }
        text
    }
}

/// Where a command was written: 1-based line and column.
pub type Place = (usize, usize);

/// A command's words by where they were written: a setting's key (`bandwidth`,
/// `hold_queue`, ...) and the place of the command that set it.
pub type Places = BTreeMap<String, Place>;

/// A name a command refers to (a policy map, a list, a group), with the place of the name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The name as written.
    pub name: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column of the name.
    pub column: usize,
}

/// A class map.
#[derive(Clone, Debug)]
pub struct ClassMap {
    /// `match-all` (the default) or `match-any`.
    pub match_all: bool,
    /// Its `match` conditions in order, each as a match object, with where it was written.
    pub matches: Vec<(Value, Place)>,
}

/// A class of a policy map, with its settings in the scenario's class form.
#[derive(Clone, Debug)]
pub struct PolicyClass {
    /// The class map's name (`class-default` included).
    pub name: String,
    /// Settings: `priority`, `bandwidth`, `bandwidth_remaining`, `queue_limit`,
    /// `fair_queue`, `random_detect`, `police`, `shape`, `set`.
    pub settings: Map<String, Value>,
    /// Where each setting was written, by its key.
    pub places: Places,
    /// A child policy (`service-policy` in a shaped class).
    pub child: Option<Reference>,
    /// Where it was opened: the line, and the column of the class map's name.
    pub place: Place,
}

/// A policy map.
#[derive(Clone, Debug, Default)]
pub struct PolicyMap {
    /// Classes in order.
    pub classes: Vec<PolicyClass>,
    /// Where it was first opened: the line, and the column of its name.
    pub place: Place,
}

/// What a priority-list or queue-list rule matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListMatch {
    /// Every IP packet.
    Ip,
    /// An access list.
    Acl(String),
    /// TCP to or from this port.
    Tcp(u16),
    /// UDP to or from this port.
    Udp(u16),
}

/// A legacy priority list (`priority-list N ...`).
#[derive(Clone, Debug, Default)]
pub struct PriorityList {
    /// (queue `high|medium|normal|low`, what, where) in order.
    pub rules: Vec<(String, ListMatch, Place)>,
    /// The queue for unmatched packets.
    pub default: Option<String>,
    /// Queue limits of high, medium, normal, low, and where they were written.
    pub limits: Option<([u32; 4], Place)>,
}

/// A legacy custom queue list (`queue-list N ...`).
#[derive(Clone, Debug, Default)]
pub struct QueueList {
    /// (queue number, what, where) in order.
    pub rules: Vec<(u32, ListMatch, Place)>,
    /// The queue for unmatched packets.
    pub default: Option<u32>,
    /// Per queue: limit in packets and byte count.
    pub queues: BTreeMap<u32, (Option<u32>, Option<u64>)>,
    /// Where each queue's settings were last written.
    pub queue_places: BTreeMap<u32, Place>,
    /// `lowest-custom`.
    pub lowest_custom: Option<u32>,
}

/// One entry of a route map (policy-based marking).
#[derive(Clone, Debug)]
pub struct RouteMapEntry {
    /// `permit` (true) or `deny`.
    pub permit: bool,
    /// Sequence number.
    pub sequence: u32,
    /// Access lists of `match ip address` (any of them; none: every packet).
    pub acls: Vec<String>,
    /// `set ip precedence|dscp`, as a marker object.
    pub set: Option<Value>,
    /// Where it was opened.
    pub place: Place,
}

/// A Cisco 12000 `cos-queue-group`.
#[derive(Clone, Debug, Default)]
pub struct CosQueueGroup {
    /// Per precedence: its queue (`None`: low-latency), when not the default queue 0.
    pub precedence_queue: BTreeMap<u8, Option<u32>>,
    /// Per precedence: its WRED label, and where the label was named.
    pub precedence_label: BTreeMap<u8, (u32, Place)>,
    /// Per label: (min, max, denominator).
    pub labels: BTreeMap<u32, (u32, u32, u32)>,
    /// Per regular queue: its weight.
    pub weights: BTreeMap<u32, u64>,
    /// The low-latency queue's mode: `Some(None)` strict, `Some(Some(w))` alternate with
    /// weight w.
    pub low_latency: Option<Option<u64>>,
    /// Where it was opened.
    pub place: Place,
}

/// `fair-queue [cdt [dynamic [reservable]]]` on an interface.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FairQueue {
    /// Congestive discard threshold.
    pub cdt: Option<u32>,
    /// Dynamic conversation queues.
    pub dynamic_queues: Option<u32>,
}

/// An interface.
#[derive(Clone, Debug, Default)]
pub struct Interface {
    /// Canonical name (`Serial0/1/1`).
    pub name: String,
    /// Where it was opened.
    pub line: usize,
    /// `bandwidth`, kbit/s.
    pub bandwidth_kbps: Option<u64>,
    /// `clock rate`, bit/s.
    pub clock_rate_bps: Option<u64>,
    /// `encapsulation`.
    pub encapsulation: Option<String>,
    /// `service-policy output`.
    pub output_policy: Option<Reference>,
    /// `service-policy input`.
    pub input_policy: Option<Reference>,
    /// `priority-group`.
    pub priority_group: Option<Reference>,
    /// `custom-queue-list`.
    pub custom_queue_list: Option<Reference>,
    /// `fair-queue`, or `no fair-queue` (Some(None)).
    pub fair_queue: Option<Option<FairQueue>>,
    /// `hold-queue N out`.
    pub hold_queue_out: Option<u32>,
    /// `tx-ring-limit`.
    pub tx_ring: Option<u32>,
    /// `max-reserved-bandwidth`, percent.
    pub max_reserved_pct: Option<u64>,
    /// `ppp multilink fragment delay`, ms.
    pub fragment_delay_ms: Option<u64>,
    /// `ppp multilink interleave`.
    pub interleave: bool,
    /// `ip policy route-map`.
    pub policy_route_map: Option<Reference>,
    /// `tx-cos` (Cisco 12000 output queuing).
    pub tx_cos: Option<Reference>,
    /// Where each setting was written: `bandwidth`, `hold_queue`, `tx_ring`, `max_reserved`,
    /// `fair_queue`, `lfi`.
    pub places: Places,
}

/// A whole configuration, read.
#[derive(Clone, Debug, Default)]
pub struct IosConfig {
    /// Access lists by number or name: their entries in order.
    pub acls: BTreeMap<String, Vec<AclEntry>>,
    /// Class maps by name.
    pub class_maps: BTreeMap<String, ClassMap>,
    /// Policy maps by name.
    pub policy_maps: BTreeMap<String, PolicyMap>,
    /// Priority lists by number.
    pub priority_lists: BTreeMap<String, PriorityList>,
    /// Queue lists by number.
    pub queue_lists: BTreeMap<String, QueueList>,
    /// Route maps by name, entries in sequence order.
    pub route_maps: BTreeMap<String, Vec<RouteMapEntry>>,
    /// Cisco 12000 cos-queue-groups by name.
    pub cos_queue_groups: BTreeMap<String, CosQueueGroup>,
    /// Interfaces in order.
    pub interfaces: Vec<Interface>,
    /// The `version` line: the release as written, and where.
    pub version: Option<(String, Place)>,
    /// The first command only IOS XE accepts (`priority level`, `bandwidth remaining
    /// ratio`), and where.
    pub xe_syntax: Option<(Place, &'static str)>,
    /// The first command IOS XE refuses (`max-reserved-bandwidth`, legacy queuing), and where.
    pub classic_syntax: Option<(Place, &'static str)>,
    /// The class scheduler the user says the router runs (else it is inferred).
    pub told_scheduler: Option<crate::qdisc::cbwfq::Scheduler>,
    /// Warnings and errors, in line order.
    pub diagnostics: Vec<Diagnostic>,
}

impl IosConfig {
    /// The interface named `name` (any abbreviation IOS accepts).
    pub fn interface(&self, name: &str) -> Option<&Interface> {
        let canonical = super::keywords::interface_name(name)?;
        self.interfaces.iter().find(|i| i.name.eq_ignore_ascii_case(&canonical))
    }

    /// Whether any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }
}
