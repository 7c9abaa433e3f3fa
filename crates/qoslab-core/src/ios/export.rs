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

mod acl;
mod interface;
mod lines;
mod writer;

pub use interface::{canonical_interface, default_interface_name, Export};

use crate::config::error::Issue;
use crate::ios::parse::range;
use crate::net::l2::L2Framing;
use interface::{bandwidth, fragmentation};
use writer::Text;

/// The interface as IOS configuration text.
pub fn export(interface: &Export, node_address: &dyn Fn(&str) -> Option<u32>) -> Result<String, Issue> {
    let mut text = Text::new(node_address);
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
