//! An output policy as the `tc` commands that give a Linux device the same discipline.
//!
//! Each kind maps to the kernel discipline it models, with every value written out (the
//! kernel's defaults are not relied on) so that the device runs what qoslab simulated:
//!
//! | qoslab | tc (`tc-<kind>(8)`) |
//! |---|---|
//! | `fifo` | `pfifo limit N` (packets) or `bfifo limit B` (bytes) |
//! | `prio` | `prio bands N priomap` (every priority to the default band), a `pfifo` per band |
//! | `drr` | `drr`, a class with its `quantum` and a `pfifo` each |
//! | `htb` | `htb default M r2q R` (after `stab …` when the policy has a size table), classes with `rate`, `ceil`, `burst`, `cburst`, `prio` and (leaves) `quantum`, a `pfifo` per leaf |
//! | `fq_codel` | `fq_codel limit flows quantum target interval ecn\|noecn` |
//! | `tbf` (`mode: continuous`) | `tbf rate burst`, its queue a `pfifo` (or the byte `limit`), or the child policy's discipline under it |
//!
//! Classes are chosen by u32 filters on the discipline that classifies, one filter priority
//! per class in the order the classes are listed, so the first class that matches wins as
//! in qoslab ([`super::tc_filter`]). Packets no class matches go where qoslab sends them:
//! HTB's `default`, the priority map for `prio`, a last catch-all filter for `drr`. Handles
//! are hexadecimal, as tc reads them: the root is `1:`, the leaves' qdiscs `2:`, `3:`, ...
//! The script first removes the device's root discipline, whatever it was: tc replaces a
//! discipline in place only by one of the same kind.
//!
//! What the kernel has no discipline for is refused at its key: IOS's CBWFQ, custom queuing,
//! flow-based WFQ and MDRR, ALTQ's CBQ (Linux 6.3 removed `cbq`), IOS interval shaping
//! (`tbf` in `average` or `peak` mode), and random early detection, which Linux's `red`
//! runs on a byte count where qoslab's (IOS's) counts packets.

use super::tc_filter::u32_selectors;
use crate::aqm::RedSpec;
use crate::classify::MatchSpec;
use crate::config::error::{join_path, Issue};
use crate::qdisc::drr::{
    DrrParams, DEFAULT_LIMIT_PACKETS as DRR_LIMIT, DEFAULT_QUANTUM_BYTES as DRR_QUANTUM,
};
use crate::qdisc::fq_codel::{
    FqCodelParams, DEFAULT_FLOWS, DEFAULT_INTERVAL_NS, DEFAULT_LIMIT_PACKETS as FQ_LIMIT,
    DEFAULT_QUANTUM_BYTES as FQ_QUANTUM, DEFAULT_TARGET_NS,
};
use crate::qdisc::htb::{
    class_tree, default_burst_bytes, default_quantum_bytes, HtbParams, DEFAULT_LIMIT_PACKETS as HTB_LIMIT,
    DEFAULT_R2Q,
};
use crate::qdisc::linux_charge::{LinkLayer, StabSpec};
use crate::qdisc::prio::{bands_of, PrioParams};
use crate::qdisc::shaper_credit::{ShapeMode, ShapeSpec, ShaperCredit};
use crate::qdisc::tbf::{TbfParams, DEFAULT_LIMIT as TBF_LIMIT};
use crate::qdisc::{PolicySpec, QueueLimit};

/// The largest packet count a `pfifo` takes: the kernel's limit is a 32-bit number.
const UNLIMITED_PACKETS: u64 = u32::MAX as u64;

/// Bytes per packet assumed when a `tbf`'s own byte limit stands in for a packet limit that a
/// `pfifo` then replaces (the limit is never reached: the `pfifo` holds the packets).
const TBF_PLACEHOLDER_BYTES_PER_PACKET: u64 = 1500;

/// The `tc` commands that give device `device` the output policy `policy` (found at key
/// path `at`), whose percentages are of `bandwidth_bps`; node names in its matches resolve
/// through `node_address`. Refused, at the key that holds it, where tc cannot express the
/// policy.
pub fn tc_commands(
    policy: &PolicySpec,
    at: &str,
    bandwidth_bps: u64,
    device: &str,
    node_address: &dyn Fn(&str) -> Option<u32>,
) -> Result<Vec<String>, Issue> {
    let mut script = Script { device, node_address, lines: Vec::new(), next_handle: 2 };
    script.qdisc(policy, at, "root", 1, bandwidth_bps)?;
    Ok(script.lines)
}

struct Script<'a> {
    device: &'a str,
    node_address: &'a dyn Fn(&str) -> Option<u32>,
    lines: Vec<String>,
    next_handle: u32,
}

impl Script<'_> {
    fn handle(&mut self) -> u32 {
        let handle = self.next_handle;
        self.next_handle += 1;
        handle
    }

    /// `tc qdisc add dev D root handle H: ...` at the root, after removing whatever root
    /// discipline the device had (tc cannot replace one kind by another in place); `tc qdisc
    /// add dev D parent P handle H: ...` below it.
    fn qdisc_line(&mut self, parent: &str, handle: u32, what: &str) {
        let place = if parent == "root" {
            self.lines.push(format!("tc qdisc del dev {} root 2>/dev/null || true", self.device));
            "root".to_owned()
        } else {
            format!("parent {parent}")
        };
        self.lines.push(format!("tc qdisc add dev {} {place} handle {handle:x}: {what}", self.device));
    }

    fn class_line(&mut self, parent: &str, classid: &str, what: &str) {
        self.lines.push(format!("tc class add dev {} parent {parent} classid {classid} {what}", self.device));
    }

    /// Filters sending what `condition` (found at `at`) matches to `flowid`, at filter
    /// priority `prio` of the discipline with handle `handle`; no condition matches all.
    fn filters(
        &mut self,
        handle: u32,
        prio: usize,
        condition: Option<&MatchSpec>,
        at: &str,
        flowid: &str,
    ) -> Result<(), Issue> {
        let alternatives = match condition {
            Some(spec) => u32_selectors(&spec.compile(at, self.node_address)?, at)?,
            None => vec![Vec::new()],
        };
        for selectors in alternatives {
            let selectors =
                if selectors.is_empty() { "match u32 0 0".to_owned() } else { selectors.join(" ") };
            self.lines.push(format!(
                "tc filter add dev {} parent {handle:x}: protocol ip prio {prio} u32 {selectors} flowid {flowid}",
                self.device
            ));
        }
        Ok(())
    }

    /// A leaf queue at `parent`: a `pfifo` or `bfifo` of `limit`; refused with a dropper.
    fn leaf(
        &mut self,
        parent: &str,
        limit: QueueLimit,
        red: Option<&RedSpec>,
        at: &str,
    ) -> Result<(), Issue> {
        refuse_red(red, at)?;
        let handle = self.handle();
        let what = fifo(limit);
        self.qdisc_line(parent, handle, &what);
        Ok(())
    }

    /// The discipline `policy` (found at `at`) at `parent` with handle `handle`; its
    /// percentages are of `reference_bps`.
    fn qdisc(
        &mut self,
        policy: &PolicySpec,
        at: &str,
        parent: &str,
        handle: u32,
        reference_bps: u64,
    ) -> Result<(), Issue> {
        match policy {
            PolicySpec::Fifo(p) => {
                refuse_red(p.random_detect.as_ref(), at)?;
                let what = fifo(p.limit.unwrap_or(crate::qdisc::fifo::DEFAULT_LIMIT));
                self.qdisc_line(parent, handle, &what);
            }
            PolicySpec::Prio(p) => self.prio(p, at, parent, handle)?,
            PolicySpec::Drr(p) => self.drr(p, at, parent, handle)?,
            PolicySpec::Htb(p) => self.htb(p, at, parent, handle, reference_bps)?,
            PolicySpec::FqCodel(p) => self.fq_codel(p, parent, handle),
            PolicySpec::Tbf(p) => self.tbf(p, at, parent, handle, reference_bps)?,
            PolicySpec::Custom(_) => {
                return Err(no_kernel_form(
                    at,
                    "IOS custom queuing (byte-count round robin)",
                    "`drr` with a quantum per class",
                ))
            }
            PolicySpec::Wfq(_) => {
                return Err(no_kernel_form(
                    at,
                    "IOS flow-based WFQ",
                    "`fq_codel`, or `drr` with a class per flow",
                ))
            }
            PolicySpec::Cbwfq(_) => {
                return Err(no_kernel_form(
                    at,
                    "IOS CBWFQ/LLQ",
                    "`htb` with a high-`prio` class for the priority traffic",
                ))
            }
            PolicySpec::Mdrr(_) => return Err(no_kernel_form(at, "Cisco 12000 MDRR", "`drr`")),
            PolicySpec::Cbq(_) => {
                return Err(no_kernel_form(at, "ALTQ CBQ (Linux removed its `cbq` in 6.3)", "`htb`"))
            }
        }
        Ok(())
    }

    fn prio(&mut self, p: &PrioParams, at: &str, parent: &str, handle: u32) -> Result<(), Issue> {
        let (bands, preset_default) = bands_of(p, at)?;
        if bands.len() > 16 {
            return Err(Issue::at(
                join_path(at, "bands"),
                format!("Linux's `prio` has at most 16 bands, not {}", bands.len()),
            ));
        }
        let index = |name: &str| bands.iter().position(|(n, _)| n == name);
        let default = match p.default.as_deref().or(preset_default) {
            Some(name) => index(name)
                .ok_or_else(|| Issue::at(join_path(at, "default"), format!("there is no band `{name}`")))?,
            None => bands.len() - 1,
        };
        let priomap = vec![default.to_string(); 16].join(" ");
        self.qdisc_line(parent, handle, &format!("prio bands {} priomap {priomap}", bands.len()));
        for (b, (_, limit)) in bands.iter().enumerate() {
            self.leaf(&format!("{handle:x}:{:x}", b + 1), *limit, None, at)?;
        }
        for (i, rule) in p.classify.iter().enumerate() {
            let band = index(&rule.band).ok_or_else(|| {
                Issue::at(
                    format!("{}[{i}].band", join_path(at, "classify")),
                    format!("there is no band `{}`", rule.band),
                )
            })?;
            let rule_at = format!("{}[{i}].match", join_path(at, "classify"));
            self.filters(
                handle,
                i + 1,
                Some(&rule.condition),
                &rule_at,
                &format!("{handle:x}:{:x}", band + 1),
            )?;
        }
        Ok(())
    }

    fn drr(&mut self, p: &DrrParams, at: &str, parent: &str, handle: u32) -> Result<(), Issue> {
        self.qdisc_line(parent, handle, "drr");
        let default =
            match p.default.as_deref() {
                Some(name) => p.classes.iter().position(|c| c.name == name).ok_or_else(|| {
                    Issue::at(join_path(at, "default"), format!("there is no class `{name}`"))
                })?,
                None => p.classes.len().saturating_sub(1),
            };
        for (i, class) in p.classes.iter().enumerate() {
            let class_at = format!("{}[{i}]", join_path(at, "classes"));
            let classid = format!("{handle:x}:{:x}", i + 1);
            let quantum = class.quantum.map_or(DRR_QUANTUM, |q| q.0);
            self.class_line(&format!("{handle:x}:"), &classid, &format!("drr quantum {quantum}b"));
            let limit = class.limit.unwrap_or(QueueLimit::Packets(DRR_LIMIT));
            self.leaf(&classid, limit, class.random_detect.as_ref(), &class_at)?;
        }
        for (i, class) in p.classes.iter().enumerate() {
            if let Some(condition) = &class.condition {
                let match_at = format!("{}[{i}].match", join_path(at, "classes"));
                self.filters(handle, i + 1, Some(condition), &match_at, &format!("{handle:x}:{:x}", i + 1))?;
            }
        }
        // DRR drops what no filter classifies; qoslab sends it to the default class.
        self.filters(handle, p.classes.len() + 1, None, at, &format!("{handle:x}:{:x}", default + 1))
    }

    fn htb(
        &mut self,
        p: &HtbParams,
        at: &str,
        parent: &str,
        handle: u32,
        reference_bps: u64,
    ) -> Result<(), Issue> {
        let r2q = p.r2q.unwrap_or(DEFAULT_R2Q);
        let (_, parents, depths) = class_tree(p, at)?;
        let is_parent = |i: usize| parents.contains(&Some(i));
        let minor = |name: &str| p.classes.iter().position(|c| c.name == name).map(|i| i + 1);
        let leaves: Vec<usize> = (0..p.classes.len()).filter(|&i| !is_parent(i)).collect();
        let default = match p.default.as_deref() {
            Some(name) => minor(name)
                .ok_or_else(|| Issue::at(join_path(at, "default"), format!("there is no class `{name}`")))?,
            None => leaves.last().map_or(1, |&i| i + 1),
        };
        let stab = p.stab.map(size_table).unwrap_or_default();
        self.qdisc_line(parent, handle, &format!("{stab}htb default {default:x} r2q {r2q}"));
        // Parents before children, as tc needs them: shallowest first, in listed order.
        let mut order: Vec<usize> = (0..p.classes.len()).collect();
        order.sort_by_key(|&i| depths[i]);
        for i in order {
            let class = &p.classes[i];
            let parent_id = match parents[i] {
                None => format!("{handle:x}:"),
                Some(up) => format!("{handle:x}:{:x}", up + 1),
            };
            let rate_bps = class.rate.bps(reference_bps);
            let ceil_bps = class.ceil.map_or(rate_bps, |c| c.bps(reference_bps));
            let burst = class.burst.map_or(default_burst_bytes(rate_bps), |b| b.0);
            let cburst = class.cburst.map_or(default_burst_bytes(ceil_bps), |b| b.0);
            let mut what =
                format!("htb rate {rate_bps}bit ceil {ceil_bps}bit burst {burst}b cburst {cburst}b");
            if !is_parent(i) {
                let quantum = class.quantum.map_or(default_quantum_bytes(rate_bps, r2q), |q| q.0);
                what += &format!(" prio {} quantum {quantum}", class.prio.unwrap_or(0));
            }
            self.class_line(&parent_id, &format!("{handle:x}:{:x}", i + 1), &what);
        }
        for &i in &leaves {
            let class = &p.classes[i];
            let class_at = format!("{}[{i}]", join_path(at, "classes"));
            let limit = class.limit.unwrap_or(QueueLimit::Packets(HTB_LIMIT));
            self.leaf(&format!("{handle:x}:{:x}", i + 1), limit, class.random_detect.as_ref(), &class_at)?;
        }
        for (order, &i) in leaves.iter().enumerate() {
            if let Some(condition) = &p.classes[i].condition {
                let match_at = format!("{}[{i}].match", join_path(at, "classes"));
                self.filters(
                    handle,
                    order + 1,
                    Some(condition),
                    &match_at,
                    &format!("{handle:x}:{:x}", i + 1),
                )?;
            }
        }
        Ok(())
    }

    fn fq_codel(&mut self, p: &FqCodelParams, parent: &str, handle: u32) {
        let what = format!(
            "fq_codel limit {} flows {} quantum {} target {}us interval {}us {}",
            p.limit.unwrap_or(FQ_LIMIT),
            p.flows.unwrap_or(DEFAULT_FLOWS),
            p.quantum.map_or(FQ_QUANTUM, |q| q.0),
            p.target.map_or(DEFAULT_TARGET_NS, |d| d.0) / 1000,
            p.interval.map_or(DEFAULT_INTERVAL_NS, |d| d.0) / 1000,
            if p.ecn.unwrap_or(true) { "ecn" } else { "noecn" },
        );
        self.qdisc_line(parent, handle, &what);
    }

    fn tbf(
        &mut self,
        p: &TbfParams,
        at: &str,
        parent: &str,
        handle: u32,
        reference_bps: u64,
    ) -> Result<(), Issue> {
        if p.mode != Some(ShapeMode::Continuous) {
            let place = if p.mode.is_some() { join_path(at, "mode") } else { at.to_owned() };
            return Err(Issue::at(place, "tc's `tbf` is a continuous token bucket; IOS's interval shaping (`average`, `peak`) has no tc form")
                .hint("write `mode: continuous` to shape as Linux's tbf does"));
        }
        let shape = ShapeSpec { rate: p.rate, bc: p.bc, be: p.be, mode: p.mode };
        let credit = ShaperCredit::build(&shape, at, reference_bps)?;
        let (rate_bps, burst) = (credit.rate_bps(), credit.bucket_bytes());
        let inner = format!("{handle:x}:1");
        match (&p.child, p.limit.unwrap_or(TBF_LIMIT)) {
            (Some(child), _) => {
                self.qdisc_line(
                    parent,
                    handle,
                    &format!("tbf rate {rate_bps}bit burst {burst}b limit {burst}b"),
                );
                let child_handle = self.handle();
                self.qdisc(child, &join_path(at, "child"), &inner, child_handle, rate_bps)?;
            }
            (None, QueueLimit::Bytes(bytes)) => {
                self.qdisc_line(
                    parent,
                    handle,
                    &format!("tbf rate {rate_bps}bit burst {burst}b limit {bytes}b"),
                );
            }
            (None, limit) => {
                let packets = match limit {
                    QueueLimit::Packets(n) => n as u64,
                    _ => UNLIMITED_PACKETS,
                };
                let placeholder = (packets * TBF_PLACEHOLDER_BYTES_PER_PACKET).min(u32::MAX as u64);
                self.qdisc_line(
                    parent,
                    handle,
                    &format!("tbf rate {rate_bps}bit burst {burst}b limit {placeholder}b"),
                );
                self.leaf(&inner, limit, None, at)?;
            }
        }
        Ok(())
    }
}

/// tc's size-table options for `stab`, ending in a space: `stab overhead 24 mpu 0 linklayer
/// ethernet `.
fn size_table(stab: StabSpec) -> String {
    let linklayer = match stab.linklayer.unwrap_or_default() {
        LinkLayer::Ethernet => "ethernet",
        LinkLayer::Atm => "atm",
    };
    format!(
        "stab overhead {} mpu {} linklayer {linklayer} ",
        stab.overhead.unwrap_or(0),
        stab.mpu.unwrap_or(0)
    )
}

/// A `pfifo` or `bfifo` holding `limit`.
fn fifo(limit: QueueLimit) -> String {
    match limit {
        QueueLimit::Packets(n) => format!("pfifo limit {n}"),
        QueueLimit::Bytes(b) => format!("bfifo limit {b}"),
        QueueLimit::Unlimited => format!("pfifo limit {UNLIMITED_PACKETS}"),
    }
}

fn refuse_red(red: Option<&RedSpec>, at: &str) -> Result<(), Issue> {
    match red {
        None => Ok(()),
        Some(_) => Err(Issue::at(
            join_path(at, "random_detect"),
            "Linux's `red` averages the queue in bytes and has no per-precedence profiles, where this RED (IOS's) counts packets: tc cannot express it",
        )
        .hint("export the policy without `random_detect` to compare tail drop with the kernel")),
    }
}

fn no_kernel_form(at: &str, what: &str, instead: &str) -> Issue {
    Issue::at(join_path(at, "kind"), format!("the Linux kernel has no discipline for {what}")).hint(format!(
        "tc export writes fifo, prio, drr, htb, fq_codel and tbf (continuous); the nearest is {instead}"
    ))
}
