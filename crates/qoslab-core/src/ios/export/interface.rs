//! The interface's own commands in an export: its name, `bandwidth` (the QoS bandwidth a
//! serial interface must state, since IOS gives one 1544 kbit/s when it is absent —
//! Interface and Hardware Component Command Reference, `bandwidth`) and multilink PPP's
//! fragmentation and interleaving (Dial Technologies Command Reference, `ppp multilink
//! fragment delay`, `ppp multilink interleave`). What IOS cannot say of them is refused at
//! the key path it came from.

use crate::condition::ConditionerSpec;
use crate::config::error::Issue;
use crate::ios::keywords::interface_name;
use crate::ios::parse::range;
use crate::net::l2::L2Framing;
use crate::net::lfi::{LfiSpec, SequenceFormat};
use crate::qdisc::PolicySpec;
use crate::time::NS_PER_MS;

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

/// `bandwidth KBPS`, when the interface needs it.
pub(super) fn bandwidth(interface: &Export, serial: bool) -> Result<Option<String>, Issue> {
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
pub(super) fn fragmentation(lfi: &LfiSpec, framing: L2Framing, framed: bool) -> Result<Vec<String>, Issue> {
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
