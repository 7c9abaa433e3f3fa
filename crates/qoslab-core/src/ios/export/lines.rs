//! One IOS command line per setting of a class or queue: rates in kbit/s or percent,
//! queue limits, `set`, `police`, `shape` and `random-detect` lines, each in the form and
//! within the range the Cisco IOS Quality of Service Solutions Command Reference gives for
//! that command, or refused at the setting's key path with the form to write instead.

use crate::aqm::red::{RedBasis, Unlisted};
use crate::aqm::red_profile::CountCorrection;
use crate::aqm::RedSpec;
use crate::classify::dscp::{Dscp, Precedence};
use crate::condition::marker::SetSpec;
use crate::condition::policer::{PoliceAction, PoliceCounts, PoliceSpec};
use crate::config::error::{join_path, Issue};
use crate::ios::parse::range;
use crate::qdisc::class_queue_limit::ClassQueueLimit;
use crate::qdisc::shaper_credit::{ShapeMode, ShapeSpec, FAST_TC_NS, SLOW_BC_BYTES, SLOW_CIR_BPS};
use crate::qdisc::QueueLimit;
use crate::time::NS_PER_S;
use crate::units::RateOrShare;
use std::fmt::Write;

/// `police` Bc and Be, bytes (QoS CR, `police`: 1000 to 512000000).
const POLICE_BURST_BYTES: (u64, u64) = (1_000, 512_000_000);
/// Parts per million in one percent.
const PPM_PER_PERCENT: u64 = 10_000;

/// Refuses a discipline IOS has no command for.
pub(super) fn not_ios(kind: &str, what: &str) -> Issue {
    Issue::at("output.kind", format!("`{kind}` is {what}; IOS has no command for it"))
        .hint("export an interface whose output is `fifo`, `prio`, `custom`, `wfq`, `cbwfq` or a `tbf` over a `cbwfq` child")
}

/// An IOS name (class map, policy map): letters, digits, `-`, `_` and `.`.
pub(super) fn check_name(name: &str, what: &str, at: &str) -> Result<(), Issue> {
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
pub(super) fn kbps(bps: u64, what: &str, at: &str) -> Result<u64, Issue> {
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
pub(super) fn percent(ppm: u64, what: &str, at: &str) -> Result<u64, Issue> {
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
pub(super) fn packets(
    limit: QueueLimit,
    what: &str,
    (low, high): (u64, u64),
    at: &str,
) -> Result<u32, Issue> {
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
pub(super) fn queue_limit_line(limit: ClassQueueLimit, at: &str) -> Result<String, Issue> {
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
pub(super) fn dscp_name(dscp: u8) -> String {
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

pub(super) fn set_line(set: &SetSpec, at: &str) -> Result<String, Issue> {
    match (set.dscp, set.precedence) {
        (Some(Dscp(d)), None) => Ok(format!("set ip dscp {}", dscp_name(d))),
        (None, Some(Precedence(p))) => Ok(format!("set ip precedence {p}")),
        _ => Err(Issue::at(at, "`set` takes one of `dscp` and `precedence`")),
    }
}

/// `police ...` on one line, as the QoS CR's `police` (two-rate with `pir`).
pub(super) fn police_line(police: &PoliceSpec, at: &str) -> Result<String, Issue> {
    if police.counts == Some(PoliceCounts::Ip) {
        return Err(Issue::at(join_path(at, "counts"), "IOS's `police` counts the layer-2 header with each packet; a meter of the IP packet alone (`counts: ip`) has no IOS form")
            .hint("remove `counts: ip` to export the policer as IOS runs it"));
    }
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
pub(super) fn shape_line(shape: &ShapeSpec, at: &str) -> Result<String, Issue> {
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
pub(super) fn wred_lines(red: &RedSpec, at: &str) -> Result<Vec<String>, Issue> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dscp_names_are_ios_keywords() {
        let names: Vec<String> = [0, 8, 10, 12, 14, 34, 38, 46, 48, 1, 63].map(dscp_name).into();
        assert_eq!(names, ["default", "cs1", "af11", "af12", "af13", "af41", "af43", "ef", "cs6", "1", "63"]);
        for d in 0..64u8 {
            assert_eq!(crate::classify::dscp::parse_dscp(&dscp_name(d)), Ok(d), "{d}");
        }
    }
}
