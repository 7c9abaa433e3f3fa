//! Export: one interface's settings written as Cisco IOS configuration text — the reverse of
//! [`super::translate`]. Reading the text back ([`super::parse()`], then
//! [`super::interface_settings`]) gives policies that build the same discipline, so a run
//! of the interface configured from the exported text is byte-identical to a run of its
//! YAML (test `every_expressible_example_interface_round_trips`). What IOS cannot say, or
//! what qoslab would not read back as it was written, is refused at its key path with the
//! reason and what to write instead; nothing is dropped or approximated.
//!
//! **The mapping.** Commands are those of the Cisco IOS Quality of Service Solutions
//! Command Reference (QoS CR) unless another reference is named:
//!
//! | scenario | IOS |
//! |---|---|
//! | `fifo`, its `limit` or the interface's `hold_queue` (packets) | interface `no fair-queue` and `hold-queue N out` (QoS CR `fair-queue`; Interface and Hardware Component Command Reference, `hold-queue`) |
//! | `wfq` `cdt`, `dynamic_queues`, `hold_queue` | interface `fair-queue CDT QUEUES`, `hold-queue N out` (QoS CR `fair-queue`) |
//! | `prio` (bands high, medium, normal, low), `default`, `classify` | `priority-list 1 protocol ip QUEUE [list ACL]`, `priority-list 1 default QUEUE`, `priority-list 1 queue-limit H M N L`; interface `priority-group 1` (QoS CR `priority-list`, `priority-group`) |
//! | `custom` queues, `default_queue`, `lowest_custom`, `classify` | `queue-list 1 protocol ip Q [list ACL]`, `queue-list 1 queue Q limit L`, `queue-list 1 queue Q byte-count B`, `queue-list 1 default Q`, `queue-list 1 lowest-custom Q`; interface `custom-queue-list 1` (QoS CR `queue-list`, `custom-queue-list`) |
//! | `cbwfq` class `match` | `class-map match-all\|match-any NAME` with `match any`, `match [not] ip dscp V...` (at most 8 values), `match [not] ip precedence V...` (at most 4), `match [not] access-group N` (QoS CR `class-map`, `match`) |
//! | addresses, prefixes, ports, protocols of a match | a numbered extended access list, `access-list N permit\|deny PROTOCOL SRC [PORT] DST [PORT] [dscp V\|precedence P]` with `host A`, `A WILDCARD`, `any`, `eq`, `range`, `gt`, `lt` (Security Command Reference, `access-list (IP extended)`) |
//! | `cbwfq` classes | `policy-map NAME` and `class NAME` with `priority KBPS\|percent P [BURST]`, `bandwidth KBPS\|percent P\|remaining percent P`, `queue-limit N [bytes\|ms\|us]` (the units IOS XE's), `fair-queue [QUEUES]`, `random-detect [dscp-based]`, `random-detect exponential-weighting-constant N`, `random-detect ecn`, `random-detect precedence\|dscp V MIN MAX [DENOMINATOR]`, `police cir BPS\|percent P [bc B] [be B] [pir BPS] conform-action A exceed-action A [violate-action A]`, `set ip dscp\|precedence V`, `shape average\|peak BPS\|percent P [BC_BITS [BE_BITS]]` (QoS CR, each command by name) |
//! | `cbwfq` `scheduler: hqf\|xe`; `priority_level`, `bandwidth_remaining_ratio` | a `version 15.4` (HQF) or `version 17.9` (IOS XE) line, which the importer reads back as that scheduler; `priority level N [KBPS\|percent P [BURST]]`, `bandwidth remaining ratio N` (IOS XE QoS configuration guides, "Multi-Level Priority Queues", "Distribution of Remaining Bandwidth Using Ratio") |
//! | `max_reserved` | interface `max-reserved-bandwidth P` (QoS CR), when it differs from the scheduler's default |
//! | `tbf` with `child` | `policy-map NAME` whose only class, `class-default`, holds `shape average\|peak` and `service-policy CHILD` (QoS CR `shape`, `service-policy`) |
//! | a `cbwfq` class's `child` | `service-policy PARENT-CLASS` in the class, the child written as its own policy map under the parent's scheduler (IOS XE QoS MQC configuration guide, "3-level user-defined queuing policy support") |
//! | the output policy; `input` | interface `service-policy output NAME`; `service-policy input NAME` with `set` and `police` classes (QoS CR `service-policy`) |
//! | QoS bandwidth; `tx_ring` | interface `bandwidth KBPS`, `tx-ring-limit N` (Interface and Hardware Component Command Reference; QoS CR `tx-ring-limit`) |
//! | `lfi` | interface `ppp multilink`, `ppp multilink fragment delay MS`, `ppp multilink interleave` (Dial Technologies Command Reference) |
//!
//! **Names.** Class maps take the classes' names; the output policy map takes the scenario
//! policy's name (`NODE-to-PEER` for one written in place), a shaper's child `PARENT-child`,
//! a class's child `PARENT-CLASS`, the
//! input policy map `NODE-from-PEER`. Access lists are numbered 101 to 199, then 2000 to
//! 2699, in the order their matches are met (output before input, classes in order); two
//! matches with the same entries share a list. The priority and queue lists are number 1.
//! A class map an input class would share with an output class of another match is named
//! `NAME-in`. The interface is `Serial0/0/0` on HDLC and PPP links (with `encapsulation
//! hdlc|ppp`, Interface and Hardware Component Command Reference), `GigabitEthernet0/0` on
//! others, unless named.
//!
//! **Matches.** A match's own fields become `match ip dscp`, `match ip precedence` and one
//! access list for addresses, ports and protocols; `all` adds their statements, `not`
//! becomes `match not`, and a match that is only `any` becomes a `match-any` class map. An
//! access list holds the match's alternatives, one entry per combination of values; a
//! `not` inside a list becomes `deny` entries before the `permit`s it excludes (first match
//! decides, as IOS reads access lists). Refused: a port without `protocol: tcp` or `udp`
//! (IOS's access lists take ports only for TCP and UDP), `length` (qoslab does not read
//! `match packet length`, whose bounds Cisco's texts describe differently), and
//! exclusions that no order of `deny` and `permit` entries can express.
//!
//! **QoS bandwidth.** A serial interface without `bandwidth` has 1544 kbit/s in IOS, so on
//! a serial interface the QoS bandwidth is always written (a whole number of kbit/s, and
//! not following rate changes, which IOS's `bandwidth` does not do); other interfaces get
//! `bandwidth` only when the scenario gives one, and otherwise take the link's rate, as
//! qoslab reads them.
//!
//! **Refused besides.** Disciplines IOS has no command for (`htb`, `drr`, `fq_codel`,
//! `cbq`), Cisco 12000 MDRR, a `tbf` without a child policy; parameters that are qoslab's
//! modelling choices where Cisco's texts are silent (`cdt_policy`, `legacy_weights`,
//! `carry_over`, `weight_constant`, RED's count correction and idle decay); values outside
//! IOS's ranges or not in its units (whole kbit/s, whole percent, packets); `changes`
//! during the run.

use super::keywords::interface_name;
use super::parse::range;
use crate::aqm::red::{RedBasis, Unlisted};
use crate::aqm::red_profile::CountCorrection;
use crate::aqm::RedSpec;
use crate::classify::dscp::{Dscp, Precedence};
use crate::classify::matcher::{format_ipv4, parse_ipv4, MatchSpec, PortRange};
use crate::condition::marker::SetSpec;
use crate::condition::policer::{PoliceAction, PoliceSpec};
use crate::condition::ConditionerSpec;
use crate::config::error::{join_path, Issue};
use crate::config::one_or_many::OneOrMany;
use crate::net::l2::L2Framing;
use crate::net::lfi::{LfiSpec, SequenceFormat};
use crate::qdisc::cbwfq::{
    CbwfqParams, ClassSpec, FairQueueSpec, Scheduler, CLASS_DEFAULT, DEFAULT_MAX_RESERVED_PPM,
};
use crate::qdisc::class_queue_limit::ClassQueueLimit;
use crate::qdisc::custom::{CustomParams, DEFAULT_LIMIT as CUSTOM_DEFAULT_LIMIT};
use crate::qdisc::prio::PrioParams;
use crate::qdisc::shaper_credit::{ShapeMode, ShapeSpec, FAST_TC_NS, SLOW_BC_BYTES, SLOW_CIR_BPS};
use crate::qdisc::tbf::TbfParams;
use crate::qdisc::wfq::{CdtPolicy, WfqParams, DEFAULT_CDT_PACKETS, DEFAULT_DYNAMIC_QUEUES};
use crate::qdisc::{PolicySpec, QueueLimit};
use crate::time::{NS_PER_MS, NS_PER_S};
use crate::units::RateOrShare;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The output FIFO's hold queue when neither the policy nor the interface sets one
/// (`fifo`'s `DEFAULT_LIMIT`, IOS's default hold queue).
const FIFO_DEFAULT_PACKETS: u32 = 40;
/// The WFQ system's hold queue when neither the policy nor the interface sets one
/// (`wfq`'s `DEFAULT_HOLD_QUEUE_PACKETS`).
const WFQ_DEFAULT_HOLD_PACKETS: u32 = crate::qdisc::wfq::DEFAULT_HOLD_QUEUE_PACKETS;
/// A `prio` band's limit when it gives none (`prio`'s `DEFAULT_BAND_LIMIT`).
const PRIO_DEFAULT_BAND_PACKETS: u32 = 40;
/// IOS priority queuing's queues in priority order, and the limits of the `ios` preset.
const PRIO_QUEUES: [(&str, u32); 4] = [("high", 20), ("medium", 40), ("normal", 60), ("low", 80)];
/// The `ios` preset's queue for unmatched packets.
const PRIO_DEFAULT_QUEUE: &str = "normal";
/// The number of the priority list and of the queue list written (IOS takes 1 to 16).
const LIST_NUMBER: u32 = 1;
/// Numbered extended IP access lists: 100–199, then the expanded range 2000–2699 (Security
/// Command Reference, `access-list (IP extended)`). Numbering starts at 101, the first
/// number Cisco's own examples use.
const ACL_NUMBERS: [(u32, u32); 2] = [(101, 199), (2000, 2699)];
/// The most values one `match ip dscp` takes (QoS CR, `match dscp`).
const MAX_MATCH_DSCP: usize = 8;
/// The most values one `match ip precedence` takes (QoS CR, `match precedence`).
const MAX_MATCH_PRECEDENCE: usize = 4;
/// The most entries one access list is given; a match that needs more is refused rather
/// than written as a list no one can read.
const MAX_ACL_ENTRIES: usize = 512;
/// `police` Bc and Be, bytes (QoS CR, `police`: 1000 to 512000000).
const POLICE_BURST_BYTES: (u64, u64) = (1_000, 512_000_000);
/// Parts per million in one percent.
const PPM_PER_PERCENT: u64 = 10_000;
/// The levels of policy maps IOS nests (parent, child, grandchild).
const MAX_LEVELS: usize = super::translate::MAX_POLICY_LEVELS;

/// Refuses a match that expands to more access-list entries than a list may hold.
fn check_acl_entries(entries: usize, at: &str) -> Result<(), Issue> {
    if entries > MAX_ACL_ENTRIES {
        return Err(Issue::at(
            at,
            format!("the match expands to more than {MAX_ACL_ENTRIES} access-list entries"),
        )
        .hint("match on fewer combinations of values, e.g. one prefix instead of a list of addresses"));
    }
    Ok(())
}

/// An interface to export: its settings as the scenario resolves them. Key paths of
/// refusals are relative to the interface entry (`output.classes[1].match`, `input...`,
/// `lfi...`, `hold_queue`) or name the link value the setting came from (`bandwidth`,
/// `rate`, `tx_ring`).
pub struct Export<'a> {
    /// Comment lines for the top of the text (without the `!`).
    pub comments: Vec<String>,
    /// The interface's name in IOS (canonical form, `Serial0/0/0`).
    pub name: String,
    /// The link's framing (the `encapsulation` of a serial interface).
    pub framing: L2Framing,
    /// The output policy.
    pub output: &'a PolicySpec,
    /// The output policy map's name (CBWFQ and shaping).
    pub output_name: String,
    /// The input policy map's name.
    pub input_name: String,
    /// The QoS bandwidth when the scenario gives it, bit/s.
    pub bandwidth_bps: Option<u64>,
    /// The link's physical rate, bit/s.
    pub rate_bps: u64,
    /// Whether the link's rate changes during the run.
    pub rate_changes: bool,
    /// The transmit ring, packets.
    pub tx_ring: u32,
    /// The interface's `hold_queue`.
    pub hold_queue: Option<u32>,
    /// The input policy.
    pub input: Option<&'a ConditionerSpec>,
    /// Link fragmentation and interleaving.
    pub lfi: Option<&'a LfiSpec>,
}

/// The canonical name of the IOS interface `name` (`s0/0/0` → `Serial0/0/0`), or an issue
/// at `at` naming the types qoslab knows.
pub fn canonical_interface(name: &str, at: &str) -> Result<String, Issue> {
    interface_name(name).ok_or_else(|| {
        Issue::at(at, format!("`{name}` is not an IOS interface name qoslab knows"))
            .hint("write a type and a number, e.g. Serial0/0/0, FastEthernet0/1 or GigabitEthernet0/0")
    })
}

/// The interface name used when none is given: a serial interface for HDLC and PPP links,
/// Gigabit Ethernet for the others.
pub fn default_interface_name(framing: L2Framing) -> &'static str {
    match framing {
        L2Framing::CiscoHdlc | L2Framing::Ppp => "Serial0/0/0",
        L2Framing::Ethernet | L2Framing::Unknown => "GigabitEthernet0/0",
    }
}

/// The interface as IOS configuration text.
pub fn export(interface: &Export, node_address: &dyn Fn(&str) -> Option<u32>) -> Result<String, Issue> {
    let mut text = Text { node_address: Some(node_address), ..Text::default() };
    // PPP and HDLC framing belong to serial, multilink and packet-over-SONET interfaces;
    // of these only a serial interface has IOS's 1544 kbit/s default bandwidth.
    let serial = interface.name.starts_with("Serial");
    let framed = ["Serial", "Multilink", "POS"].iter().any(|t| interface.name.starts_with(t));
    let mut lines: Vec<String> = Vec::new();
    if framed {
        match interface.framing {
            L2Framing::Ppp => lines.push("encapsulation ppp".into()),
            L2Framing::CiscoHdlc => lines.push("encapsulation hdlc".into()),
            L2Framing::Ethernet | L2Framing::Unknown => {}
        }
    }
    lines.extend(bandwidth(interface, serial)?);
    let (low, high) = range::TX_RING;
    if !(low..=high).contains(&u64::from(interface.tx_ring)) {
        return Err(Issue::at(
            "tx_ring",
            format!("a transmit ring of {} packets is outside IOS's range", interface.tx_ring),
        )
        .hint(format!("`tx-ring-limit` takes {low} to {high}")));
    }
    lines.push(format!("tx-ring-limit {}", interface.tx_ring));
    lines.extend(text.output(interface)?);
    if let Some(input) = interface.input {
        text.input_policy(input, &interface.input_name)?;
        lines.push(format!("service-policy input {}", interface.input_name));
    }
    if let Some(lfi) = interface.lfi {
        lines.extend(fragmentation(lfi, interface.framing, framed)?);
    }
    Ok(text.render(interface, &lines))
}

/// The `version` line a configuration of `scheduler`'s routers carries, which the importer
/// reads back as that scheduler ([`super::flavour`]): none before HQF (as the studies'
/// configurations), 15.4 for HQF, 17.9 for IOS XE.
fn release_line(scheduler: Scheduler) -> Option<&'static str> {
    match scheduler {
        Scheduler::PreHqf => None,
        Scheduler::Hqf => Some("version 15.4"),
        Scheduler::Xe => Some("version 17.9"),
    }
}

/// `bandwidth KBPS`, when the interface needs it.
fn bandwidth(interface: &Export, serial: bool) -> Result<Option<String>, Issue> {
    let (bps, at) =
        match interface.bandwidth_bps {
            Some(bps) => (bps, "bandwidth"),
            None if !serial => return Ok(None),
            None if interface.rate_changes => return Err(Issue::at(
                "rate",
                "the QoS bandwidth follows the link's rate changes, but a serial interface's bandwidth is \
                 IOS `bandwidth`, a fixed figure (1544 kbit/s when not configured)",
            )
            .hint(
                "give the interface or the link an explicit `bandwidth`, or export it under a non-serial \
                 name (`--name GigabitEthernet0/0`), whose bandwidth qoslab takes from the link's rate",
            )),
            None => (interface.rate_bps, "rate"),
        };
    let (low, high) = range::BANDWIDTH_KBPS;
    if bps % 1000 != 0 || !(low..=high).contains(&(bps / 1000)) {
        let message = format!("IOS `bandwidth` is a whole number of kbit/s from {low} to {high}");
        return Err(match at {
            "rate" => Issue::at(at, format!("the link's rate, the QoS bandwidth here, is {bps} bit/s, but {message}"))
                .hint(
                    "give the interface or the link a `bandwidth` in whole kbit/s, or export the interface under a \
                     non-serial name (`--name GigabitEthernet0/0`), whose bandwidth qoslab takes from the link's rate",
                ),
            _ => Issue::at(at, format!("the QoS bandwidth is {bps} bit/s, but {message}"))
                .hint("give `bandwidth` in whole kbit/s, e.g. `38kbps`"),
        });
    }
    Ok(Some(format!("bandwidth {}", bps / 1000)))
}

/// The LFI commands.
fn fragmentation(lfi: &LfiSpec, framing: L2Framing, framed: bool) -> Result<Vec<String>, Issue> {
    if framing != L2Framing::Ppp || !framed {
        return Err(Issue::at("lfi", "IOS fragments and interleaves with multilink PPP, on a serial or multilink interface with PPP framing")
            .hint("give the link `l2: ppp` and a serial interface name (the default for PPP links)"));
    }
    if lfi.sequence == Some(SequenceFormat::Short) {
        return Err(Issue::at(
            "lfi.sequence",
            "the 12-bit short sequence format (RFC 1990) has no command among those qoslab reads back",
        )
        .hint("export the interface with `sequence: long`, the multilink default"));
    }
    let delay_ns = lfi.fragment_delay.map_or(crate::net::lfi::DEFAULT_FRAGMENT_DELAY_NS, |d| d.0);
    let (low, high) = range::FRAGMENT_DELAY_MS;
    if delay_ns % NS_PER_MS != 0 || !(low..=high).contains(&(delay_ns / NS_PER_MS)) {
        return Err(Issue::at(
            "lfi.fragment_delay",
            format!("IOS gives the fragment delay in whole milliseconds from {low} to {high}"),
        )
        .hint("write e.g. `10ms`"));
    }
    let mut lines =
        vec!["ppp multilink".to_owned(), format!("ppp multilink fragment delay {}", delay_ns / NS_PER_MS)];
    if lfi.interleave.unwrap_or(true) {
        lines.push("ppp multilink interleave".into());
    }
    Ok(lines)
}

/// Refuses a discipline IOS has no command for.
fn not_ios(kind: &str, what: &str) -> Issue {
    Issue::at("output.kind", format!("`{kind}` is {what}; IOS has no command for it"))
        .hint("export an interface whose output is `fifo`, `prio`, `custom`, `wfq`, `cbwfq` or a `tbf` over a `cbwfq` child")
}

/// An IOS name (class map, policy map): letters, digits, `-`, `_` and `.`.
fn check_name(name: &str, what: &str, at: &str) -> Result<(), Issue> {
    let valid = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && !matches!(name.to_ascii_lowercase().as_str(), "match-all" | "match-any" | "type");
    if valid {
        return Ok(());
    }
    Err(Issue::at(at, format!("{what} `{name}` cannot be an IOS name")).hint(
        "use letters, digits, `-`, `_` and `.`, without spaces (and not `match-all`, `match-any` or `type`)",
    ))
}

/// A rate in whole kbit/s within `(low, high)`, for `priority` and `bandwidth`.
fn kbps(bps: u64, what: &str, at: &str) -> Result<u64, Issue> {
    let (low, high) = range::CLASS_RATE_KBPS;
    if bps % 1000 != 0 || !(low..=high).contains(&(bps / 1000)) {
        return Err(Issue::at(
            at,
            format!("{bps} bit/s: IOS's `{what}` takes whole kbit/s from {low} to {high}"),
        )
        .hint("write the rate in whole kbit/s (`64kbps`), or as a whole percentage"));
    }
    Ok(bps / 1000)
}

/// A percentage as IOS's whole percent, 1 to 100.
fn percent(ppm: u64, what: &str, at: &str) -> Result<u64, Issue> {
    if ppm % PPM_PER_PERCENT != 0 || !(1..=100).contains(&(ppm / PPM_PER_PERCENT)) {
        return Err(Issue::at(
            at,
            format!("{} %: IOS's `{what}` takes a whole percentage from 1 to 100", ppm as f64 / 1e4),
        )
        .hint("round the percentage to a whole number, or give a rate"));
    }
    Ok(ppm / PPM_PER_PERCENT)
}

/// A rate for `police` and `shape`, bit/s within IOS's range.
fn ios_rate(rate_bps: u64, what: &str, at: &str) -> Result<u64, Issue> {
    let (low, high) = range::RATE_BPS;
    if !(low..=high).contains(&rate_bps) {
        return Err(Issue::at(
            at,
            format!("{rate_bps} bit/s is outside the {low} to {high} bit/s IOS's `{what}` takes"),
        )
        .hint(format!("give a rate from {low}bps to 10Gbps")));
    }
    Ok(rate_bps)
}

/// A packet limit within `(low, high)`.
fn packets(limit: QueueLimit, what: &str, (low, high): (u64, u64), at: &str) -> Result<u32, Issue> {
    match limit {
        QueueLimit::Packets(n) if (low.max(1)..=high).contains(&u64::from(n)) => Ok(n),
        QueueLimit::Packets(n) => {
            Err(Issue::at(at, format!("{n} packets is outside IOS's range for {what}"))
                .hint(format!("give {} to {high} packets", low.max(1))))
        }
        QueueLimit::Bytes(_) | QueueLimit::Unlimited => {
            Err(Issue::at(at, format!("IOS gives {what} in packets"))
                .hint("write the limit as a packet count, e.g. `40`"))
        }
    }
}

/// `queue-limit N [bytes|ms|us]` for a class's limit: packets, or IOS XE's bytes or time
/// in whole milliseconds or microseconds.
fn queue_limit_line(limit: ClassQueueLimit, at: &str) -> Result<String, Issue> {
    let within = |value: u64, unit: &str, (low, high): (u64, u64)| match (low..=high).contains(&value) {
        true => Ok(format!("queue-limit {value} {unit}")),
        false => Err(Issue::at(
            at,
            format!("{value} {unit} is outside the {low} to {high} {unit} a queue limit takes"),
        )
        .hint(format!("give {low} to {high} {unit}"))),
    };
    match limit {
        ClassQueueLimit::Packets(n) => Ok(format!(
            "queue-limit {}",
            packets(QueueLimit::Packets(n), "a class's queue limit", range::CLASS_QUEUE_LIMIT, at)?
        )),
        ClassQueueLimit::Bytes(bytes) => within(bytes, "bytes", range::CLASS_QUEUE_LIMIT_BYTES),
        ClassQueueLimit::Time(ns) if ns % 1_000_000 == 0 => {
            within(ns / 1_000_000, "ms", range::CLASS_QUEUE_LIMIT_MS)
        }
        ClassQueueLimit::Time(ns) if ns % 1_000 == 0 => within(ns / 1_000, "us", range::CLASS_QUEUE_LIMIT_US),
        ClassQueueLimit::Time(ns) => Err(Issue::at(
            at,
            format!("{ns} ns is not a whole number of microseconds, which IOS XE gives a queue limit in"),
        )
        .hint("give the limit in ms or us, e.g. `50ms`")),
    }
}

/// A DSCP as IOS writes it: `ef`, `af41`, `cs3`, `default`, or the number.
fn dscp_name(dscp: u8) -> String {
    match dscp {
        0 => "default".into(),
        46 => "ef".into(),
        d if d % 8 == 0 => format!("cs{}", d / 8),
        d if (10..=38).contains(&d) && d % 2 == 0 && (1..=3).contains(&(d % 8 / 2)) => {
            format!("af{}{}", d / 8, d % 8 / 2)
        }
        d => d.to_string(),
    }
}

fn police_action(action: PoliceAction) -> String {
    match action {
        PoliceAction::Transmit => "transmit".into(),
        PoliceAction::Drop => "drop".into(),
        PoliceAction::SetDscpTransmit(d) => format!("set-dscp-transmit {}", dscp_name(d)),
        PoliceAction::SetPrecTransmit(p) => format!("set-prec-transmit {p}"),
    }
}

fn set_line(set: &SetSpec, at: &str) -> Result<String, Issue> {
    match (set.dscp, set.precedence) {
        (Some(Dscp(d)), None) => Ok(format!("set ip dscp {}", dscp_name(d))),
        (None, Some(Precedence(p))) => Ok(format!("set ip precedence {p}")),
        _ => Err(Issue::at(at, "`set` takes one of `dscp` and `precedence`")),
    }
}

/// `police ...` on one line, as the QoS CR's `police` (two-rate with `pir`).
fn police_line(police: &PoliceSpec, at: &str) -> Result<String, Issue> {
    if police.color_aware.is_some() {
        return Err(Issue::at(join_path(at, "color_aware"), "colour-aware policing is not among the commands qoslab reads back (IOS writes it with `conform-color` class maps)")
            .hint("remove `color_aware` to export the policer colour-blind"));
    }
    let burst = |size: Option<crate::units::Size>, key: &str| -> Result<Option<u64>, Issue> {
        let Some(size) = size else { return Ok(None) };
        let (low, high) = POLICE_BURST_BYTES;
        if !(low..=high).contains(&size.0) {
            return Err(Issue::at(
                join_path(at, key),
                format!("{} B is outside the {low} to {high} bytes IOS's `police` takes for {key}", size.0),
            )
            .hint(format!("give {key} from {low}B")));
        }
        Ok(Some(size.0))
    };
    let mut line = match police.cir {
        RateOrShare::Absolute(rate) => {
            format!("police cir {}", ios_rate(rate, "police", &join_path(at, "cir"))?)
        }
        RateOrShare::Share(ppm) => {
            if let Some(key) =
                [("bc", police.bc.is_some()), ("be", police.be.is_some()), ("pir", police.pir.is_some())]
                    .iter()
                    .find_map(|(k, set)| set.then_some(*k))
            {
                return Err(Issue::at(join_path(at, key), format!("with `cir` a percentage, IOS gives `{key}` in milliseconds or as a percentage, which qoslab does not read back"))
                    .hint("give `cir` as a rate (`128kbps`), or leave out the bursts and `pir`"));
            }
            format!("police cir percent {}", percent(ppm, "police cir percent", &join_path(at, "cir"))?)
        }
    };
    // Single rate: a Be of 0 B is qoslab's default (two colours) and IOS's omitted Be.
    let be = match (police.pir, police.be) {
        (None, Some(crate::units::Size(0))) => None,
        (_, be) => be,
    };
    if let Some(bc) = burst(police.bc, "bc")? {
        let _ = write!(line, " bc {bc}");
    }
    if let Some(be) = burst(be, "be")? {
        let _ = write!(line, " be {be}");
    }
    match police.pir {
        None => {}
        Some(RateOrShare::Absolute(rate)) => {
            let _ = write!(line, " pir {}", ios_rate(rate, "police pir", &join_path(at, "pir"))?);
        }
        Some(RateOrShare::Share(_)) => {
            return Err(Issue::at(join_path(at, "pir"), "qoslab reads `pir` back in bit/s only")
                .hint("give `pir` as a rate, e.g. `256kbps`"))
        }
    }
    let conform = police.conform_action.unwrap_or(PoliceAction::Transmit);
    let exceed = police.exceed_action.unwrap_or(PoliceAction::Drop);
    let _ =
        write!(line, " conform-action {} exceed-action {}", police_action(conform), police_action(exceed));
    if let Some(violate) = police.violate_action {
        let _ = write!(line, " violate-action {}", police_action(violate));
    }
    Ok(line)
}

/// `shape average|peak ...`; Bc and Be in bits, as IOS gives them.
fn shape_line(shape: &ShapeSpec, at: &str) -> Result<String, Issue> {
    let mode = match shape.mode.unwrap_or_default() {
        ShapeMode::Average => "average",
        ShapeMode::Peak => "peak",
        ShapeMode::Continuous => {
            return Err(Issue::at(join_path(at, "mode"), "IOS shapes by intervals (`shape average` or `shape peak`); the continuous token bucket is Linux `tbf`'s")
                .hint("write `mode: average` or `mode: peak`"))
        }
    };
    let rate_bps = match shape.rate {
        RateOrShare::Absolute(rate) => rate,
        RateOrShare::Share(ppm) => {
            if let Some(key) = [("bc", shape.bc.is_some()), ("be", shape.be.is_some())]
                .iter()
                .find_map(|(k, s)| s.then_some(*k))
            {
                return Err(Issue::at(join_path(at, key), format!("with a percentage rate, IOS gives `{key}` in milliseconds, which qoslab does not read back"))
                    .hint("give the rate in bit/s, or leave out the bursts"));
            }
            return Ok(format!(
                "shape {mode} percent {}",
                percent(ppm, "shape percent", &join_path(at, "rate"))?
            ));
        }
    };
    let mut line = format!("shape {mode} {}", ios_rate(rate_bps, "shape", &join_path(at, "rate"))?);
    // IOS takes Be only after Bc: without `bc`, write the default the shaper would take.
    let bc = match (shape.bc, shape.be) {
        (Some(bc), _) => Some(bc.0),
        (None, Some(_)) if rate_bps <= SLOW_CIR_BPS => Some(SLOW_BC_BYTES),
        (None, Some(_)) => {
            Some((rate_bps as u128 * FAST_TC_NS as u128 / (8 * NS_PER_S as u128)).max(1) as u64)
        }
        (None, None) => None,
    };
    if let Some(bc) = bc {
        let _ = write!(line, " {}", bc * 8);
    }
    if let Some(be) = shape.be {
        let _ = write!(line, " {}", be.0 * 8);
    }
    Ok(line)
}

/// The `random-detect` commands of a class.
fn wred_lines(red: &RedSpec, at: &str) -> Result<Vec<String>, Issue> {
    let not_read = |key: &str, what: &str| {
        Issue::at(join_path(at, key), format!("{what} has no IOS command among those qoslab reads back"))
            .hint(format!("remove `{key}` to export IOS's WRED"))
    };
    for (key, set) in
        [("min", red.min.is_some()), ("max", red.max.is_some()), ("denominator", red.denominator.is_some())]
    {
        if set {
            return Err(not_read(key, "classic RED's single profile"));
        }
    }
    if red.unlisted == Some(Unlisted::TailDrop) {
        return Err(not_read(
            "unlisted",
            "tail drop for the packets no row names (a Cisco 12000 `cos-queue-group`'s)",
        ));
    }
    if red.gentle == Some(true) {
        return Err(not_read("gentle", "gentle RED"));
    }
    if red.count_correction.is_some_and(|c| c != CountCorrection::None) {
        return Err(not_read("count_correction", "a count correction"));
    }
    if red.idle_decay == Some(false) {
        return Err(not_read("idle_decay", "turning off the idle decay"));
    }
    if red.idle_packet_size.is_some_and(|s| s.0 != crate::aqm::red::DEFAULT_IDLE_PACKET_BYTES) {
        return Err(not_read("idle_packet_size", "the idle decay's packet size"));
    }
    let dscp = match red.based_on.unwrap_or_default() {
        RedBasis::Precedence => false,
        RedBasis::Dscp => true,
        RedBasis::None | RedBasis::DropPrecedence => {
            return Err(Issue::at(
                join_path(at, "based_on"),
                "IOS's WRED chooses profiles by precedence or DSCP",
            )
            .hint("write `based_on: precedence` or `based_on: dscp`"))
        }
    };
    let mut lines = vec![if dscp { "random-detect dscp-based" } else { "random-detect" }.to_owned()];
    if let Some(n) = red.exponential_weighting_constant {
        lines.push(format!("random-detect exponential-weighting-constant {n}"));
    }
    if red.ecn == Some(true) {
        lines.push("random-detect ecn".into());
    }
    let (low, high) = range::WRED_THRESHOLD;
    for (i, row) in red.profiles.iter().enumerate() {
        let here = format!("{}[{i}]", join_path(at, "profiles"));
        for (key, value) in [("min", row.min), ("max", row.max)] {
            if !(low..=high).contains(&u64::from(value)) {
                return Err(Issue::at(
                    join_path(&here, key),
                    format!("{value} packets is outside the {low} to {high} IOS's `random-detect` takes"),
                )
                .hint(format!("give thresholds from {low} to {high} packets")));
            }
        }
        let denominator = row.denominator.map(|d| format!(" {d}")).unwrap_or_default();
        let values: Vec<String> = if dscp {
            row.dscp.iter().flat_map(|v| v.0.iter().map(|d| format!("dscp {}", dscp_name(d.0)))).collect()
        } else {
            row.precedence.iter().flat_map(|v| v.0.iter().map(|p| format!("precedence {}", p.0))).collect()
        };
        for value in values {
            lines.push(format!("random-detect {value} {} {}{denominator}", row.min, row.max));
        }
    }
    Ok(lines)
}

/// A prefix: network and length.
type Prefix = (u32, u32);

fn mask(length: u32) -> u32 {
    if length == 0 {
        0
    } else {
        u32::MAX << (32 - length)
    }
}

/// One access-list entry's conditions: each field one value, or any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Entry {
    protocol: Option<u8>,
    src: Option<Prefix>,
    src_port: Option<(u16, u16)>,
    dst: Option<Prefix>,
    dst_port: Option<(u16, u16)>,
    dscp: Option<u8>,
    precedence: Option<u8>,
}

/// Both `a` and `b`: `None` when they cannot both hold.
fn same<T: PartialEq + Copy>(a: Option<T>, b: Option<T>) -> Option<Option<T>> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => None,
        (x, y) => Some(x.or(y)),
    }
}

impl Entry {
    /// The entry for packets both entries match, if any can.
    fn and(&self, other: &Entry) -> Option<Entry> {
        let prefix = |a: Option<Prefix>, b: Option<Prefix>| match (a, b) {
            (Some(p), Some(q)) => {
                let (wide, narrow) = if p.1 <= q.1 { (p, q) } else { (q, p) };
                (narrow.0 & mask(wide.1) == wide.0).then_some(Some(narrow))
            }
            (x, y) => Some(x.or(y)),
        };
        let ports = |a: Option<(u16, u16)>, b: Option<(u16, u16)>| match (a, b) {
            (Some(p), Some(q)) => {
                let (low, high) = (p.0.max(q.0), p.1.min(q.1));
                (low <= high).then_some(Some((low, high)))
            }
            (x, y) => Some(x.or(y)),
        };
        Entry {
            protocol: same(self.protocol, other.protocol)?,
            src: prefix(self.src, other.src)?,
            src_port: ports(self.src_port, other.src_port)?,
            dst: prefix(self.dst, other.dst)?,
            dst_port: ports(self.dst_port, other.dst_port)?,
            dscp: same(self.dscp, other.dscp)?,
            precedence: same(self.precedence, other.precedence)?,
        }
        .normal()
    }

    /// The same conditions in the form an entry takes: a whole port range is no port
    /// condition, and a precedence beside the DSCP it agrees with is dropped.
    fn normal(mut self) -> Option<Entry> {
        for port in [&mut self.src_port, &mut self.dst_port] {
            if *port == Some((0, u16::MAX)) {
                *port = None;
            }
        }
        match (self.dscp, self.precedence) {
            (Some(d), Some(p)) if d >> 3 == p => Some(Entry { precedence: None, ..self }),
            (Some(_), Some(_)) => None,
            _ => Some(self),
        }
    }
}

/// Every entry of `a` with every entry of `b`, contradictions dropped, first occurrences
/// kept in order.
fn cross(a: &[Entry], b: &[Entry], at: &str) -> Result<Vec<Entry>, Issue> {
    let mut out: Vec<Entry> = Vec::new();
    for x in a {
        for y in b {
            if let Some(both) = x.and(y) {
                if !out.contains(&both) {
                    out.push(both);
                }
            }
        }
        check_acl_entries(out.len(), at)?;
    }
    Ok(out)
}

/// An alternative of a match: packets matching one of `permits` and none of `denies`.
#[derive(Clone, Debug)]
struct Alternative {
    permits: Vec<Entry>,
    denies: Vec<Entry>,
}

/// What resolves a node name used as an address in a match.
type NodeAddress<'a> = &'a dyn Fn(&str) -> Option<u32>;

/// Builds the entries of matches, resolving node names.
struct Matches<'a> {
    node_address: NodeAddress<'a>,
}

fn only<T>(list: &Option<OneOrMany<T>>) -> impl Iterator<Item = &T> {
    list.iter().flat_map(|l| l.0.iter())
}

fn is_empty(m: &MatchSpec) -> bool {
    *m == MatchSpec::default()
}

/// `{not: {}}`, which no packet matches.
fn is_nothing(m: &MatchSpec) -> bool {
    m.not.as_deref().is_some_and(is_empty) && MatchSpec { not: None, ..m.clone() } == MatchSpec::default()
}

/// The match holds only `key`.
fn only_key(m: &MatchSpec, key: &str) -> bool {
    let bare = match key {
        "dscp" => MatchSpec { dscp: None, ..m.clone() },
        "precedence" => MatchSpec { precedence: None, ..m.clone() },
        "not" => MatchSpec { not: None, ..m.clone() },
        _ => MatchSpec { any: None, ..m.clone() },
    };
    !is_empty(m) && is_empty(&bare)
}

impl Matches<'_> {
    fn prefix(&self, text: &str, at: &str) -> Result<Prefix, Issue> {
        let (address, length) = text.split_once('/').unwrap_or((text, "32"));
        let length: u32 = length
            .parse()
            .ok()
            .filter(|l| *l <= 32)
            .ok_or_else(|| Issue::at(at, format!("`{text}` has a bad prefix length")))?;
        let address = parse_ipv4(address)
            .or_else(|| (length == 32).then(|| (self.node_address)(address)).flatten())
            .ok_or_else(|| {
                Issue::at(at, format!("`{text}` is neither an address, a prefix nor a node name"))
            })?;
        Ok((address & mask(length), length))
    }

    /// The entries of a match's own fields (not `all`, `any` or `not`): one per combination.
    fn fields(&self, m: &MatchSpec, at: &str) -> Result<Vec<Entry>, Issue> {
        if m.length.is_some() {
            return Err(Issue::at(join_path(at, "length"), "qoslab does not read IOS's `match packet length` back, and Cisco's texts differ on whether its bounds count")
                .hint("classify by DSCP, addresses, ports or protocol instead"));
        }
        let one = Entry::default();
        let mut entries = vec![one];
        let add = |alternatives: Vec<Entry>, entries: &mut Vec<Entry>| -> Result<(), Issue> {
            if !alternatives.is_empty() {
                *entries = cross(entries, &alternatives, at)?;
            }
            Ok(())
        };
        add(only(&m.protocol).map(|p| Entry { protocol: Some(p.0), ..one }).collect(), &mut entries)?;
        let prefixes = |list: &Option<OneOrMany<String>>, key: &str| -> Result<Vec<Prefix>, Issue> {
            only(list)
                .enumerate()
                .map(|(i, text)| self.prefix(text, &format!("{}[{i}]", join_path(at, key))))
                .collect()
        };
        let src = prefixes(&m.src, "src")?;
        let dst = prefixes(&m.dst, "dst")?;
        add(src.into_iter().map(|p| Entry { src: Some(p), ..one }).collect(), &mut entries)?;
        add(dst.into_iter().map(|p| Entry { dst: Some(p), ..one }).collect(), &mut entries)?;
        let port = |r: &PortRange| (r.0, r.1);
        add(only(&m.src_port).map(|r| Entry { src_port: Some(port(r)), ..one }).collect(), &mut entries)?;
        add(only(&m.dst_port).map(|r| Entry { dst_port: Some(port(r)), ..one }).collect(), &mut entries)?;
        add(only(&m.dscp).map(|d| Entry { dscp: Some(d.0), ..one }).collect(), &mut entries)?;
        add(only(&m.precedence).map(|p| Entry { precedence: Some(p.0), ..one }).collect(), &mut entries)?;
        Ok(entries)
    }

    /// The entries of a match without `not` anywhere.
    fn terms(&self, m: &MatchSpec, at: &str) -> Result<Vec<Entry>, Issue> {
        let alternatives = self.alternatives(m, at)?;
        if alternatives.iter().any(|a| !a.denies.is_empty()) {
            return Err(Issue::at(at, "a `not` inside a `not` is more than one access list can say")
                .hint("write the exclusion once, at the level of the match it excludes from"));
        }
        let mut entries: Vec<Entry> = Vec::new();
        for entry in alternatives.into_iter().flat_map(|a| a.permits) {
            if !entries.contains(&entry) {
                entries.push(entry);
            }
        }
        Ok(entries)
    }

    /// The match as alternatives, each a set of permitted entries less a set of denied ones.
    fn alternatives(&self, m: &MatchSpec, at: &str) -> Result<Vec<Alternative>, Issue> {
        let mut alternatives = vec![Alternative { permits: self.fields(m, at)?, denies: Vec::new() }];
        for (i, sub) in m.all.iter().flatten().enumerate() {
            let theirs = self.alternatives(sub, &format!("{}[{i}]", join_path(at, "all")))?;
            alternatives = conjoin(&alternatives, &theirs, at)?;
        }
        if let Some(any) = &m.any {
            let mut union = Vec::new();
            for (i, sub) in any.iter().enumerate() {
                union.extend(self.alternatives(sub, &format!("{}[{i}]", join_path(at, "any")))?);
            }
            alternatives = conjoin(&alternatives, &union, at)?;
        }
        if let Some(excluded) = &m.not {
            let not_at = join_path(at, "not");
            match &excluded.not {
                // not(not(x)) is x.
                Some(inner) if only_key(excluded, "not") => {
                    let theirs = self.alternatives(inner, &join_path(&not_at, "not"))?;
                    alternatives = conjoin(&alternatives, &theirs, at)?;
                }
                _ => {
                    let denies = self.terms(excluded, &not_at)?;
                    for alternative in &mut alternatives {
                        alternative.denies.extend(denies.iter().copied());
                    }
                }
            }
        }
        Ok(alternatives)
    }

    /// The access list of a match: `(permit, entry)` in order.
    fn acl(&self, m: &MatchSpec, at: &str) -> Result<Vec<(bool, Entry)>, Issue> {
        let mut alternatives: Vec<Alternative> =
            self.alternatives(m, at)?.into_iter().filter(|a| !a.permits.is_empty()).collect();
        // First match decides: alternatives that exclude nothing first, then those whose
        // exclusions grow, each one's denies covering every deny before it.
        alternatives.sort_by_key(|a| a.denies.len());
        let mut lines: Vec<(bool, Entry)> = Vec::new();
        let mut denied: Vec<Entry> = Vec::new();
        for alternative in &alternatives {
            if denied.iter().any(|d| !alternative.denies.contains(d)) {
                return Err(Issue::at(at, "the match's exclusions (`not`) differ between its alternatives in a way no order of access-list entries can say")
                    .hint("split the class in two, or exclude the same packets from every alternative"));
            }
            for deny in &alternative.denies {
                if !denied.contains(deny) {
                    denied.push(*deny);
                    lines.push((false, *deny));
                }
            }
            for permit in &alternative.permits {
                if !lines.contains(&(true, *permit)) {
                    lines.push((true, *permit));
                }
            }
        }
        if !lines.iter().any(|(permit, _)| *permit) {
            // Nothing can match: an explicit deny, since IOS keeps no empty list.
            lines = vec![(false, Entry::default())];
        }
        for (_, entry) in &lines {
            let ports = entry.src_port.or(entry.dst_port);
            if let Some((low, high)) = ports {
                if !matches!(entry.protocol, Some(6 | 17)) {
                    let port = if low == high { low.to_string() } else { format!("{low}-{high}") };
                    return Err(Issue::at(at, format!("IOS's access lists take ports only for TCP and UDP, and this match gives port {port} without `protocol: tcp` or `udp`"))
                        .hint("add `protocol: udp` (or `tcp`, or both as a list) next to the port"));
                }
            }
        }
        check_acl_entries(lines.len(), at)?;
        Ok(lines)
    }
}

/// `a` and `b`: each alternative of one with each of the other.
fn conjoin(a: &[Alternative], b: &[Alternative], at: &str) -> Result<Vec<Alternative>, Issue> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            let permits = cross(&x.permits, &y.permits, at)?;
            if permits.is_empty() {
                continue;
            }
            let mut denies = x.denies.clone();
            denies.extend(y.denies.iter().filter(|d| !x.denies.contains(d)));
            out.push(Alternative { permits, denies });
        }
    }
    Ok(out)
}

/// One `match` statement of a class map.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Statement {
    Any,
    Dscp(Vec<u8>),
    Precedence(Vec<u8>),
    AccessList(Vec<(bool, Entry)>),
    Not(Box<Statement>),
}

fn deduplicated<T: PartialEq + Copy>(values: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for value in values {
        if !out.contains(&value) {
            out.push(value);
        }
    }
    out
}

impl Matches<'_> {
    /// A class map for match `m`: match-all (true) or match-any, and its statements (none:
    /// it matches nothing).
    fn class_map(&self, m: &MatchSpec, at: &str) -> Result<(bool, Vec<Statement>), Issue> {
        if is_empty(m) {
            return Ok((true, vec![Statement::Any]));
        }
        if only_key(m, "any") {
            let mut statements = Vec::new();
            for (i, sub) in m.any.iter().flatten().enumerate() {
                if is_empty(sub) {
                    return Ok((true, vec![Statement::Any]));
                }
                if !is_nothing(sub) {
                    statements.push(self.statement(sub, &format!("{}[{i}]", join_path(at, "any")))?);
                }
            }
            return Ok(match statements.len() {
                1 => (true, statements),
                _ => (false, statements),
            });
        }
        let mut statements = Vec::new();
        Ok(match self.conjunction(m, at, &mut statements)? {
            true => (true, statements),
            false => (true, Vec::new()),
        })
    }

    /// Adds the statements of conjunction `m` to `out`; false when `m` holds for no packet.
    fn conjunction(&self, m: &MatchSpec, at: &str, out: &mut Vec<Statement>) -> Result<bool, Issue> {
        let mut header = MatchSpec {
            protocol: m.protocol.clone(),
            src: m.src.clone(),
            dst: m.dst.clone(),
            src_port: m.src_port.clone(),
            dst_port: m.dst_port.clone(),
            length: m.length.clone(),
            ..MatchSpec::default()
        };
        let dscp = deduplicated(only(&m.dscp).map(|d| d.0));
        match dscp.len() {
            0 => {}
            n if n <= MAX_MATCH_DSCP => out.push(Statement::Dscp(dscp)),
            _ => header.dscp = m.dscp.clone(),
        }
        let precedence = deduplicated(only(&m.precedence).map(|p| p.0));
        match precedence.len() {
            0 => {}
            n if n <= MAX_MATCH_PRECEDENCE => out.push(Statement::Precedence(precedence)),
            _ => header.precedence = m.precedence.clone(),
        }
        if !is_empty(&header) {
            out.push(Statement::AccessList(self.acl(&header, at)?));
        }
        for (i, sub) in m.all.iter().flatten().enumerate() {
            let here = format!("{}[{i}]", join_path(at, "all"));
            if only_key(sub, "any") {
                out.push(self.statement(sub, &here)?);
            } else if !self.conjunction(sub, &here, out)? {
                return Ok(false);
            }
        }
        if let Some(any) = &m.any {
            out.push(self.statement(&MatchSpec { any: Some(any.clone()), ..MatchSpec::default() }, at)?);
        }
        if let Some(excluded) = &m.not {
            let here = join_path(at, "not");
            if is_empty(excluded) {
                return Ok(false);
            }
            match &excluded.not {
                Some(inner) if only_key(excluded, "not") => {
                    if !self.conjunction(inner, &join_path(&here, "not"), out)? {
                        return Ok(false);
                    }
                }
                _ => out.push(Statement::Not(Box::new(self.statement(excluded, &here)?))),
            }
        }
        Ok(true)
    }

    /// Match `m` as one statement.
    fn statement(&self, m: &MatchSpec, at: &str) -> Result<Statement, Issue> {
        if is_empty(m) {
            return Ok(Statement::Any);
        }
        let dscp = deduplicated(only(&m.dscp).map(|d| d.0));
        if only_key(m, "dscp") && dscp.len() <= MAX_MATCH_DSCP {
            return Ok(Statement::Dscp(dscp));
        }
        let precedence = deduplicated(only(&m.precedence).map(|p| p.0));
        if only_key(m, "precedence") && precedence.len() <= MAX_MATCH_PRECEDENCE {
            return Ok(Statement::Precedence(precedence));
        }
        if let (true, Some(inner)) = (only_key(m, "not"), &m.not) {
            let here = join_path(at, "not");
            return Ok(match &inner.not {
                Some(twice) if only_key(inner, "not") => self.statement(twice, &join_path(&here, "not"))?,
                _ if is_empty(inner) => Statement::AccessList(vec![(false, Entry::default())]),
                _ => Statement::Not(Box::new(self.statement(inner, &here)?)),
            });
        }
        Ok(Statement::AccessList(self.acl(m, at)?))
    }
}

/// The configuration being written: access lists, class maps, policy maps and lists, each
/// kept once.
#[derive(Default)]
struct Text<'a> {
    node_address: Option<NodeAddress<'a>>,
    /// Access lists: their entries and numbers, in numbering order.
    acls: Vec<(Vec<(bool, Entry)>, u32)>,
    /// Class maps by name: match-all, their statement lines.
    class_maps: BTreeMap<String, (bool, Vec<String>)>,
    /// Class map names in the order written.
    class_order: Vec<String>,
    /// Policy maps in the order written (children before parents), with their lines.
    policy_maps: Vec<(String, Vec<String>)>,
    /// Global `priority-list` and `queue-list` lines.
    lists: Vec<String>,
    /// The class scheduler of the policies written, and where the first said so.
    scheduler: Option<(Scheduler, String)>,
}

impl<'a> Text<'a> {
    fn matches(&self) -> Matches<'a> {
        Matches { node_address: self.node_address.expect("set when the text is made") }
    }

    /// The number of the access list with `entries`, a new one if no list has them.
    fn acl(&mut self, entries: Vec<(bool, Entry)>, at: &str) -> Result<u32, Issue> {
        if let Some((_, number)) = self.acls.iter().find(|(e, _)| *e == entries) {
            return Ok(*number);
        }
        let next = match self.acls.last() {
            None => ACL_NUMBERS[0].0,
            Some((_, last)) if *last == ACL_NUMBERS[0].1 => ACL_NUMBERS[1].0,
            Some((_, last)) if *last == ACL_NUMBERS[1].1 => {
                return Err(Issue::at(
                    at,
                    "the interface needs more numbered extended access lists than IOS has (799)",
                )
                .hint("share matches between classes, or export fewer classes"))
            }
            Some((_, last)) => last + 1,
        };
        self.acls.push((entries, next));
        Ok(next)
    }

    /// The `match` line of `statement` (without `match `).
    fn statement_text(&mut self, statement: &Statement, at: &str) -> Result<String, Issue> {
        Ok(match statement {
            Statement::Any => "any".into(),
            Statement::Dscp(values) => {
                format!("ip dscp {}", values.iter().map(|d| dscp_name(*d)).collect::<Vec<_>>().join(" "))
            }
            Statement::Precedence(values) => {
                format!("ip precedence {}", values.iter().map(u8::to_string).collect::<Vec<_>>().join(" "))
            }
            Statement::AccessList(entries) => format!("access-group {}", self.acl(entries.clone(), at)?),
            Statement::Not(inner) => format!("not {}", self.statement_text(inner, at)?),
        })
    }

    /// The class map for a class named `name` matching `m`; its name, `name` unless another
    /// class map of that name matches otherwise (then `NAME-in`, `NAME-in2`, ...).
    fn class_map(&mut self, name: &str, m: &MatchSpec, at: &str, input: bool) -> Result<String, Issue> {
        let (match_all, statements) = self.matches().class_map(m, at)?;
        let mut lines = Vec::new();
        for statement in &statements {
            lines.push(format!("match {}", self.statement_text(statement, at)?));
        }
        let candidates = std::iter::once(name.to_owned()).chain(
            input
                .then(|| {
                    (1..).map(move |i| if i == 1 { format!("{name}-in") } else { format!("{name}-in{i}") })
                })
                .into_iter()
                .flatten(),
        );
        for candidate in candidates {
            match self.class_maps.get(&candidate) {
                Some(existing) if *existing == (match_all, lines.clone()) => return Ok(candidate),
                Some(_) if !input => {
                    return Err(Issue::at(at, format!("two classes named `{name}` match different packets, and IOS has one class map per name"))
                        .hint("rename one of the classes"))
                }
                Some(_) => {}
                None => {
                    self.class_maps.insert(candidate.clone(), (match_all, lines));
                    self.class_order.push(candidate.clone());
                    return Ok(candidate);
                }
            }
        }
        unreachable!("the candidate names never run out")
    }

    /// The interface's output queuing: its lines (`priority-group 1` ...), with what it
    /// needs written globally.
    fn output(&mut self, interface: &Export) -> Result<Vec<String>, Issue> {
        let hold = |own: Option<u32>, default: u32| -> Result<u32, Issue> {
            let (packets, at) = match (interface.hold_queue, own) {
                (Some(p), _) => (p, "hold_queue"),
                (None, Some(p)) => (p, "output.hold_queue"),
                (None, None) => (default, "hold_queue"),
            };
            let (low, high) = range::HOLD_QUEUE;
            if !(low.max(1)..=high).contains(&u64::from(packets)) {
                return Err(Issue::at(
                    at,
                    format!("a hold queue of {packets} packets is outside IOS's range"),
                )
                .hint(format!("`hold-queue N out` takes 1 to {high} packets")));
            }
            Ok(packets)
        };
        match interface.output {
            PolicySpec::Fifo(fifo) => {
                if fifo.random_detect.is_some() {
                    return Err(Issue::at("output.random_detect", "WRED on a FIFO interface (IOS interface `random-detect`) is not among the commands qoslab reads back")
                        .hint("put the WRED in a `cbwfq` class, or remove it"));
                }
                let packets = match (interface.hold_queue, fifo.limit) {
                    (Some(p), _) => hold(Some(p), FIFO_DEFAULT_PACKETS)?,
                    (None, Some(limit)) => packets(limit, "a hold queue", range::HOLD_QUEUE, "output.limit")?,
                    (None, None) => FIFO_DEFAULT_PACKETS,
                };
                Ok(vec!["no fair-queue".into(), format!("hold-queue {packets} out")])
            }
            PolicySpec::Wfq(wfq) => self.wfq(wfq, hold(wfq.hold_queue, WFQ_DEFAULT_HOLD_PACKETS)?),
            PolicySpec::Prio(prio) => self.prio(prio),
            PolicySpec::Custom(custom) => self.custom(custom),
            PolicySpec::Cbwfq(_) | PolicySpec::Tbf(_) => {
                let reserved = self.policy_map(interface.output, &interface.output_name, "output", 1)?;
                let mut lines = Vec::new();
                if let Some(pct) = reserved {
                    lines.push(format!("max-reserved-bandwidth {pct}"));
                }
                lines.push(format!("service-policy output {}", interface.output_name));
                Ok(lines)
            }
            PolicySpec::Mdrr(_) => Err(Issue::at("output.kind", "`mdrr` is a Cisco 12000 `cos-queue-group`, which the export does not write")
                .hint("export an interface whose output is `fifo`, `prio`, `custom`, `wfq`, `cbwfq` or a `tbf` over a `cbwfq` child")),
            PolicySpec::Htb(_) => Err(not_ios("htb", "Linux's hierarchical token bucket")),
            PolicySpec::Drr(_) => Err(not_ios("drr", "deficit round robin (Linux `drr`)")),
            PolicySpec::FqCodel(_) => Err(not_ios("fq_codel", "Linux's FQ-CoDel")),
            PolicySpec::Cbq(_) => Err(not_ios("cbq", "ALTQ's class-based queuing")),
        }
    }

    fn wfq(&mut self, wfq: &WfqParams, hold_packets: u32) -> Result<Vec<String>, Issue> {
        if wfq.cdt_policy == Some(CdtPolicy::HighestSn) {
            return Err(Issue::at("output.cdt_policy", "`highest-sn` is one of two published readings of IOS's congestive discard; IOS has no command to choose it, and qoslab reads `fair-queue` as `arrival`")
                .hint("remove `cdt_policy` to export IOS's `fair-queue`"));
        }
        if wfq.legacy_weights {
            return Err(Issue::at("output.legacy_weights", "the older weights belong to older IOS releases; no command chooses them, and qoslab reads `fair-queue` with the current ones")
                .hint("remove `legacy_weights`"));
        }
        let cdt = wfq.cdt.unwrap_or(DEFAULT_CDT_PACKETS);
        let queues = wfq.dynamic_queues.unwrap_or(DEFAULT_DYNAMIC_QUEUES);
        Ok(vec![format!("fair-queue {cdt} {queues}"), format!("hold-queue {hold_packets} out")])
    }

    fn prio(&mut self, prio: &PrioParams) -> Result<Vec<String>, Issue> {
        let limits: Vec<(String, QueueLimit)> = match &prio.bands {
            None => PRIO_QUEUES.iter().map(|(n, l)| (n.to_string(), QueueLimit::Packets(*l))).collect(),
            Some(bands) => bands
                .iter()
                .map(|b| (b.name.clone(), b.limit.unwrap_or(QueueLimit::Packets(PRIO_DEFAULT_BAND_PACKETS))))
                .collect(),
        };
        let names: Vec<&str> = limits.iter().map(|(n, _)| n.as_str()).collect();
        if names != PRIO_QUEUES.map(|(n, _)| n) {
            return Err(Issue::at("output.bands", format!("IOS priority queuing has four queues, high, medium, normal and low, in that order; this policy has {}", names.join(", ")))
                .hint("write `preset: ios`, or name the bands high, medium, normal and low"));
        }
        let mut queue_limits = Vec::new();
        for (i, (_, limit)) in limits.iter().enumerate() {
            let at = format!("output.bands[{i}].limit");
            queue_limits
                .push(packets(*limit, "a priority queue's limit", range::LIST_QUEUE_LIMIT, &at)?.to_string());
        }
        let n = LIST_NUMBER;
        for (i, rule) in prio.classify.iter().enumerate() {
            let at = format!("output.classify[{i}].match");
            let list = self.list_rule(&rule.condition, &at)?;
            self.lists.push(format!("priority-list {n} protocol ip {}{list}", rule.band));
        }
        let default = match (&prio.default, &prio.bands) {
            (Some(default), _) => default.clone(),
            (None, None) => PRIO_DEFAULT_QUEUE.to_owned(),
            (None, Some(bands)) => bands.last().map(|b| b.name.clone()).unwrap_or_default(),
        };
        self.lists.push(format!("priority-list {n} default {default}"));
        self.lists.push(format!("priority-list {n} queue-limit {}", queue_limits.join(" ")));
        Ok(vec![format!("priority-group {n}")])
    }

    /// What follows the queue of a `priority-list` or `queue-list` rule: ` list ACL`, or
    /// nothing for a rule that takes every packet.
    fn list_rule(&mut self, m: &MatchSpec, at: &str) -> Result<String, Issue> {
        if is_empty(m) {
            return Ok(String::new());
        }
        let entries = self.matches().acl(m, at)?;
        Ok(format!(" list {}", self.acl(entries, at)?))
    }

    fn custom(&mut self, custom: &CustomParams) -> Result<Vec<String>, Issue> {
        if custom.carry_over == Some(true) {
            return Err(Issue::at("output.carry_over", "paying back a visit's over-send is not documented for IOS and has no command; qoslab reads `queue-list` without it")
                .hint("remove `carry_over` to export IOS's custom queuing"));
        }
        let n = LIST_NUMBER;
        for (i, rule) in custom.classify.iter().enumerate() {
            let at = format!("output.classify[{i}].match");
            let list = self.list_rule(&rule.condition, &at)?;
            self.lists.push(format!("queue-list {n} protocol ip {}{list}", rule.queue));
        }
        let mut queues: Vec<(u32, &crate::qdisc::custom::CustomQueueSpec, &String)> =
            custom.queues.iter().filter_map(|(k, spec)| k.parse().ok().map(|q| (q, spec, k))).collect();
        queues.sort_by_key(|(q, ..)| *q);
        for (q, spec, key) in queues {
            let at = format!("output.queues.{key}");
            let limit = packets(
                spec.limit.unwrap_or(CUSTOM_DEFAULT_LIMIT),
                "a custom queue's limit",
                range::LIST_QUEUE_LIMIT,
                &join_path(&at, "limit"),
            )?;
            self.lists.push(format!("queue-list {n} queue {q} limit {limit}"));
            if let Some(bytes) = spec.byte_count {
                self.lists.push(format!("queue-list {n} queue {q} byte-count {}", bytes.0));
            }
        }
        if let Some(q) = custom.default_queue {
            self.lists.push(format!("queue-list {n} default {q}"));
        }
        if let Some(q) = custom.lowest_custom.filter(|q| *q != crate::qdisc::custom::DEFAULT_LOWEST_CUSTOM) {
            self.lists.push(format!("queue-list {n} lowest-custom {q}"));
        }
        Ok(vec![format!("custom-queue-list {n}")])
    }

    /// Writes policy map `name` for `policy` (at key path `at`, level `level` of the
    /// hierarchy); the `max-reserved-bandwidth` percentage it needs on the interface.
    fn policy_map(
        &mut self,
        policy: &PolicySpec,
        name: &str,
        at: &str,
        level: usize,
    ) -> Result<Option<u64>, Issue> {
        check_name(name, "policy map", at)?;
        if level > MAX_LEVELS {
            return Err(Issue::at(
                at,
                format!("this policy is level {level} of nested policy maps; IOS nests {MAX_LEVELS}"),
            )
            .hint("flatten the hierarchy: a shaper over a shaper over a `cbwfq` policy at most"));
        }
        match policy {
            PolicySpec::Cbwfq(cbwfq) => self.cbwfq(cbwfq, name, at, level),
            PolicySpec::Tbf(tbf) => self.shaper(tbf, name, at, level).map(|()| None),
            other => Err(Issue::at(
                join_path(at, "kind"),
                format!("a `{}` policy under a shaper cannot be an IOS policy map", other.kind()),
            )
            .hint("make the child a `cbwfq` policy (or another `tbf` over one)")),
        }
    }

    fn shaper(&mut self, tbf: &TbfParams, name: &str, at: &str, level: usize) -> Result<(), Issue> {
        let Some(child) = &tbf.child else {
            return Err(Issue::at(at, "a `tbf` without `child` queues in a FIFO of its own; IOS shapes a policy map's class, which queues in the class's own queue (qoslab reads `shape` in a lone class-default as a `cbwfq` policy with that class shaped)")
                .hint("give the `tbf` a `child` policy (IOS `service-policy` under `shape`), or write the shaper as a `cbwfq` policy whose class-default has `shape`"));
        };
        let shape = ShapeSpec { rate: tbf.rate, bc: tbf.bc, be: tbf.be, mode: tbf.mode };
        let shape = shape_line(&shape, at)?;
        let child_name = format!("{name}-child");
        self.policy_map(child, &child_name, &join_path(at, "child"), level + 1)?;
        let lines = vec![
            format!(" class {CLASS_DEFAULT}"),
            format!("  {shape}"),
            format!("  service-policy {child_name}"),
        ];
        self.policy_maps.push((name.to_owned(), lines));
        Ok(())
    }

    fn cbwfq(
        &mut self,
        cbwfq: &CbwfqParams,
        name: &str,
        at: &str,
        level: usize,
    ) -> Result<Option<u64>, Issue> {
        let root = level == 1;
        let scheduler = cbwfq.scheduler.unwrap_or_default();
        match &self.scheduler {
            Some((first, first_at)) if *first != scheduler => {
                return Err(Issue::at(
                    join_path(at, "scheduler"),
                    format!(
                    "the `{}` scheduler here, but `{first_at}` is under the `{}` one: one router runs one",
                    scheduler.name(),
                    first.name()
                ),
                )
                .hint("give every policy of the interface the same `scheduler`"))
            }
            Some(_) => {}
            None => self.scheduler = Some((scheduler, at.to_owned())),
        }
        if cbwfq.weight_constant.is_some_and(|w| w != crate::qdisc::cbwfq::DEFAULT_WEIGHT_CONSTANT) {
            return Err(Issue::at(join_path(at, "weight_constant"), "the class weight constant is Cisco's unpublished figure, not a command; qoslab reads policy maps with its default")
                .hint("remove `weight_constant`"));
        }
        // HQF reserves up to 100 % unless told; IOS XE has no such command (the build refuses it).
        let default_ppm = if scheduler == Scheduler::PreHqf { DEFAULT_MAX_RESERVED_PPM } else { 1_000_000 };
        let reserved = match cbwfq.max_reserved {
            Some(p) if p.0 != default_ppm => {
                let key = join_path(at, "max_reserved");
                if !root {
                    return Err(Issue::at(key, "IOS's `max-reserved-bandwidth` is an interface command: a child policy under a shaper cannot have its own")
                        .hint("remove `max_reserved` from the child (its reservations are checked against 75 % of the shaping rate)"));
                }
                Some(percent(p.0, "max-reserved-bandwidth", &key)?)
            }
            _ => None,
        };
        let mut first_form: Option<(&str, &str)> = None;
        let mut lines = Vec::new();
        for (i, class) in cbwfq.classes.iter().enumerate() {
            let class_at = format!("{}[{i}]", join_path(at, "classes"));
            let form = match (&class.bandwidth, &class.bandwidth_remaining) {
                (Some(RateOrShare::Absolute(_)), _) => Some("`bandwidth` in kbit/s"),
                (Some(RateOrShare::Share(_)), _) => Some("`bandwidth percent`"),
                (None, Some(_)) => Some("`bandwidth remaining percent`"),
                (None, None) => None,
            };
            if let Some(form) = form {
                match first_form {
                    None => first_form = Some((form, &class.name)),
                    Some((first, first_class)) if first != form => {
                        let key = if class.bandwidth.is_some() { "bandwidth" } else { "bandwidth_remaining" };
                        return Err(Issue::at(join_path(&class_at, key), format!("{form} here, but class `{first_class}` uses {first}: IOS refuses a policy map that mixes them"))
                            .hint("give every class's bandwidth in the same form: all rates or all percentages"));
                    }
                    Some(_) => {}
                }
            }
            lines.extend(self.class(class, &class_at)?);
            if let Some(child) = &class.child {
                let child_name = format!("{name}-{}", class.name);
                // A class's child runs under its parent's scheduler.
                let child = match child.as_ref() {
                    PolicySpec::Cbwfq(inner) if inner.scheduler.is_none() => {
                        PolicySpec::Cbwfq(CbwfqParams { scheduler: Some(scheduler), ..inner.clone() })
                    }
                    other => other.clone(),
                };
                self.policy_map(&child, &child_name, &join_path(&class_at, "child"), level + 1)?;
                lines.push(format!("  service-policy {child_name}"));
            }
        }
        self.policy_maps.push((name.to_owned(), lines));
        Ok(reserved)
    }

    /// A CBWFQ class's lines in its policy map (and its class map).
    fn class(&mut self, class: &ClassSpec, at: &str) -> Result<Vec<String>, Issue> {
        let name = if class.name == CLASS_DEFAULT {
            CLASS_DEFAULT.to_owned()
        } else {
            check_name(&class.name, "class", &join_path(at, "name"))?;
            let Some(condition) = &class.condition else {
                return Err(Issue::at(at, format!("class `{}` has no `match`", class.name)));
            };
            self.class_map(&class.name, condition, &join_path(at, "match"), false)?
        };
        let mut lines = vec![format!(" class {name}")];
        let mut setting = |line: String| lines.push(format!("  {line}"));
        let level = class.priority_level.map(|l| format!(" level {l}")).unwrap_or_default();
        match class.priority {
            Some(rate) => {
                let key = join_path(at, "priority");
                let mut line = match rate {
                    RateOrShare::Absolute(b) => format!("priority{level} {}", kbps(b, "priority", &key)?),
                    RateOrShare::Share(ppm) => {
                        format!("priority{level} percent {}", percent(ppm, "priority percent", &key)?)
                    }
                };
                if let Some(burst) = class.burst {
                    let _ = write!(line, " {}", burst.0);
                }
                setting(line);
            }
            None if class.priority_level.is_some() => setting(format!("priority{level}")),
            None => {}
        }
        match class.bandwidth {
            Some(RateOrShare::Absolute(b)) => {
                setting(format!("bandwidth {}", kbps(b, "bandwidth", &join_path(at, "bandwidth"))?))
            }
            Some(RateOrShare::Share(ppm)) => setting(format!(
                "bandwidth percent {}",
                percent(ppm, "bandwidth percent", &join_path(at, "bandwidth"))?
            )),
            None => {}
        }
        if let Some(share) = class.bandwidth_remaining {
            let key = join_path(at, "bandwidth_remaining");
            setting(format!(
                "bandwidth remaining percent {}",
                percent(share.0, "bandwidth remaining percent", &key)?
            ));
        }
        if let Some(ratio) = class.bandwidth_remaining_ratio {
            setting(format!("bandwidth remaining ratio {ratio}"));
        }
        if let Some(limit) = class.queue_limit {
            setting(queue_limit_line(limit, &join_path(at, "queue_limit"))?);
        }
        match class.fair_queue {
            Some(FairQueueSpec::Switch(true)) => setting("fair-queue".into()),
            Some(FairQueueSpec::Queues { dynamic_queues }) => setting(format!("fair-queue {dynamic_queues}")),
            Some(FairQueueSpec::Switch(false)) | None => {}
        }
        if let Some(red) = &class.random_detect {
            for line in wred_lines(red, &join_path(at, "random_detect"))? {
                setting(line);
            }
        }
        if let Some(police) = &class.police {
            setting(police_line(police, &join_path(at, "police"))?);
        }
        if let Some(set) = &class.set {
            setting(set_line(set, &join_path(at, "set"))?);
        }
        if let Some(shape) = &class.shape {
            setting(shape_line(shape, &join_path(at, "shape"))?);
        }
        Ok(lines)
    }

    /// The input policy map `name`.
    fn input_policy(&mut self, input: &ConditionerSpec, name: &str) -> Result<(), Issue> {
        check_name(name, "policy map", "input")?;
        let mut lines = Vec::new();
        let last = input.classes.len().saturating_sub(1);
        for (i, class) in input.classes.iter().enumerate() {
            let at = format!("input.classes[{i}]");
            let class_name = class.name.clone().unwrap_or_else(|| format!("class{i}"));
            let Some(condition) = &class.condition else {
                return Err(Issue::at(&at, format!("class `{class_name}` has no `match`")));
            };
            let map = if class_name == CLASS_DEFAULT {
                if i != last || !is_empty(condition) {
                    return Err(Issue::at(
                        join_path(&at, "name"),
                        "IOS's class-default is the last class and takes every packet the others leave",
                    )
                    .hint("rename the class, or make it the last with `match: {}`"));
                }
                CLASS_DEFAULT.to_owned()
            } else {
                check_name(&class_name, "class", &join_path(&at, "name"))?;
                self.class_map(&class_name, condition, &join_path(&at, "match"), true)?
            };
            lines.push(format!(" class {map}"));
            if let Some(set) = &class.set {
                lines.push(format!("  {}", set_line(set, &join_path(&at, "set"))?));
            }
            if let Some(police) = &class.police {
                lines.push(format!("  {}", police_line(police, &join_path(&at, "police"))?));
            }
        }
        self.policy_maps.push((name.to_owned(), lines));
        Ok(())
    }

    /// The whole text: comments, access lists, class maps, policy maps, lists, interface.
    fn render(&self, interface: &Export, lines: &[String]) -> String {
        let mut out = String::new();
        for comment in &interface.comments {
            let _ = writeln!(out, "! {comment}");
        }
        // The release line that tells a reader which scheduler the policies are written for.
        if let Some(version) = self.scheduler.as_ref().and_then(|(s, _)| release_line(*s)) {
            let _ = writeln!(out, "{version}");
        }
        let _ = writeln!(out, "!");
        if !self.acls.is_empty() {
            for (entries, number) in &self.acls {
                for (permit, entry) in entries {
                    let _ = writeln!(
                        out,
                        "access-list {number} {} {}",
                        if *permit { "permit" } else { "deny" },
                        entry_text(entry)
                    );
                }
            }
            let _ = writeln!(out, "!");
        }
        if !self.class_order.is_empty() {
            for name in &self.class_order {
                let (match_all, statements) = &self.class_maps[name];
                let _ =
                    writeln!(out, "class-map {} {name}", if *match_all { "match-all" } else { "match-any" });
                for statement in statements {
                    let _ = writeln!(out, " {statement}");
                }
            }
            let _ = writeln!(out, "!");
        }
        if !self.policy_maps.is_empty() {
            for (name, lines) in &self.policy_maps {
                let _ = writeln!(out, "policy-map {name}");
                for line in lines {
                    let _ = writeln!(out, "{line}");
                }
            }
            let _ = writeln!(out, "!");
        }
        if !self.lists.is_empty() {
            for line in &self.lists {
                let _ = writeln!(out, "{line}");
            }
            let _ = writeln!(out, "!");
        }
        let _ = writeln!(out, "interface {}", interface.name);
        for line in lines {
            let _ = writeln!(out, " {line}");
        }
        let _ = writeln!(out, "!");
        let _ = writeln!(out, "end");
        out
    }
}

/// An access-list entry after `permit|deny`.
fn entry_text(entry: &Entry) -> String {
    let protocol = match entry.protocol {
        None => "ip".to_owned(),
        Some(6) => "tcp".into(),
        Some(17) => "udp".into(),
        Some(1) => "icmp".into(),
        Some(47) => "gre".into(),
        Some(50) => "esp".into(),
        Some(n) => n.to_string(),
    };
    let address = |prefix: Option<Prefix>| match prefix {
        None | Some((_, 0)) => "any".to_owned(),
        Some((a, 32)) => format!("host {}", format_ipv4(a)),
        Some((a, length)) => format!("{} {}", format_ipv4(a), format_ipv4(!mask(length))),
    };
    let port = |range: Option<(u16, u16)>| match range {
        None => String::new(),
        Some((low, high)) if low == high => format!(" eq {low}"),
        Some((0, high)) => format!(" lt {}", u32::from(high) + 1),
        Some((low, u16::MAX)) => format!(" gt {}", low - 1),
        Some((low, high)) => format!(" range {low} {high}"),
    };
    let mut text = format!(
        "{protocol} {}{} {}{}",
        address(entry.src),
        port(entry.src_port),
        address(entry.dst),
        port(entry.dst_port)
    );
    if let Some(d) = entry.dscp {
        let _ = write!(text, " dscp {}", dscp_name(d));
    }
    if let Some(p) = entry.precedence {
        let _ = write!(text, " precedence {p}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(yaml: &str) -> MatchSpec {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        serde_json::from_value(value).unwrap()
    }

    fn acl(yaml: &str) -> Result<Vec<String>, Issue> {
        let matches = Matches { node_address: &|name| (name == "r1").then_some(0x0a00_0001) };
        let entries = matches.acl(&spec(yaml), "match")?;
        Ok(entries
            .iter()
            .map(|(p, e)| format!("{} {}", if *p { "permit" } else { "deny" }, entry_text(e)))
            .collect())
    }

    #[test]
    fn dscp_names_are_ios_keywords() {
        let names: Vec<String> = [0, 8, 10, 12, 14, 34, 38, 46, 48, 1, 63].map(dscp_name).into();
        assert_eq!(names, ["default", "cs1", "af11", "af12", "af13", "af41", "af43", "ef", "cs6", "1", "63"]);
        for d in 0..64u8 {
            assert_eq!(crate::classify::dscp::parse_dscp(&dscp_name(d)), Ok(d), "{d}");
        }
    }

    #[test]
    fn entries_with_prefixes_ports_and_node_names() {
        assert_eq!(
            acl("{protocol: udp, src: 172.16.10.0/24, dst: [r1, 10.9.0.0/16], dst_port: [5060, \"16384-32767\"]}").unwrap(),
            [
                "permit udp 172.16.10.0 0.0.0.255 host 10.0.0.1 eq 5060",
                "permit udp 172.16.10.0 0.0.0.255 host 10.0.0.1 range 16384 32767",
                "permit udp 172.16.10.0 0.0.0.255 10.9.0.0 0.0.255.255 eq 5060",
                "permit udp 172.16.10.0 0.0.0.255 10.9.0.0 0.0.255.255 range 16384 32767",
            ]
        );
        assert_eq!(
            acl("{protocol: [tcp, 47], src_port: \"1024-65535\", dst_port: \"0-1023\"}").unwrap_err().message,
            "IOS's access lists take ports only for TCP and UDP, and this match gives port 1024-65535 without `protocol: tcp` or `udp`"
        );
        assert_eq!(
            acl("{protocol: tcp, src_port: \"1024-65535\", dst_port: \"0-1023\"}").unwrap(),
            ["permit tcp any gt 1023 any lt 1024"]
        );
        assert_eq!(
            acl("{dscp: [EF, 40], precedence: 5}").unwrap(),
            ["permit ip any any dscp ef", "permit ip any any dscp cs5"]
        );
        assert_eq!(acl("{dscp: EF, precedence: 3}").unwrap(), ["deny ip any any"]);
    }

    #[test]
    fn class_maps_say_any_all_and_not() {
        let matches = Matches { node_address: &|_| None };
        let class_map = |yaml: &str| matches.class_map(&spec(yaml), "match").unwrap();
        assert_eq!(class_map("{}"), (true, vec![Statement::Any]));
        // `{not: {}}` holds for no packet: a class map without `match`, as IOS reads one.
        assert_eq!(class_map("{not: {}}"), (true, vec![]));
        assert_eq!(class_map("{dscp: EF, not: {}}"), (true, vec![]));
        // Each alternative of a match-any is its own statement, with its own exclusions.
        let (all, statements) =
            class_map("{any: [{dscp: 1, not: {dst: 10.0.0.0/8}}, {precedence: [3, 4], not: {dscp: 26}}]}");
        assert!(!all);
        let mut first = Entry::default().and(&Entry { dscp: Some(1), ..Entry::default() }).unwrap();
        let denied = Entry { dst: Some((0x0a00_0000, 8)), ..Entry::default() };
        assert_eq!(statements[0], Statement::AccessList(vec![(false, denied), (true, first)]));
        first = Entry { dscp: Some(26), ..Entry::default() };
        assert_eq!(
            statements[1],
            Statement::AccessList(vec![
                (false, first),
                (true, Entry { precedence: Some(3), ..Entry::default() }),
                (true, Entry { precedence: Some(4), ..Entry::default() }),
            ])
        );
        // A list longer than one `match` statement takes goes into an access list.
        let nine = class_map("{dscp: [0, 1, 2, 3, 4, 5, 6, 7, 8], not: {precedence: 7}}");
        assert!(matches!(&nine.1[..], [Statement::AccessList(e), Statement::Not(p)]
            if e.len() == 9 && **p == Statement::Precedence(vec![7])));
    }

    #[test]
    fn exclusions_become_denies_before_the_permits() {
        // The form qoslab reads `permit A; deny B; permit C` as.
        assert_eq!(
            acl("{any: [{protocol: tcp}, {protocol: udp, not: {any: [{dst: 10.0.0.0/8}]}}]}").unwrap(),
            ["permit tcp any any", "deny ip any 10.0.0.0 0.255.255.255", "permit udp any any"]
        );
        assert_eq!(acl("{not: {not: {dscp: EF}}}").unwrap(), ["permit ip any any dscp ef"]);
        assert!(acl("{any: [{dscp: 1, not: {dscp: 2}}, {dscp: 3, not: {dscp: 4}}]}").is_err());
        assert!(acl("{not: {dscp: 1, not: {dscp: 2}}}").unwrap_err().message.contains("inside a `not`"));
    }
}
