//! The configuration text of an export: access lists, class maps, policy maps and the
//! `priority-list`/`queue-list` globals, each written once and numbered or named in the
//! order met, then rendered in the order IOS needs them defined (lists before the class maps
//! that use them, child policy maps before their parents, the interface last). The mapping
//! of each discipline to its commands is the table at the top of [`super`].

use super::acl::{entry_text, is_empty, Entry, Matches, NodeAddress, Statement};
use super::interface::Export;
use super::lines::{
    check_name, dscp_name, kbps, not_ios, packets, percent, police_line, queue_limit_line, set_line,
    shape_line, wred_lines,
};
use crate::classify::matcher::MatchSpec;
use crate::condition::ConditionerSpec;
use crate::config::error::{join_path, Issue};
use crate::ios::parse::range;
use crate::qdisc::cbwfq::{
    CbwfqParams, ClassSpec, FairQueueSpec, Scheduler, CLASS_DEFAULT, DEFAULT_MAX_RESERVED_PPM,
};
use crate::qdisc::custom::{CustomParams, DEFAULT_LIMIT as CUSTOM_DEFAULT_LIMIT};
use crate::qdisc::prio::PrioParams;
use crate::qdisc::shaper_credit::ShapeSpec;
use crate::qdisc::tbf::TbfParams;
use crate::qdisc::wfq::{CdtPolicy, WfqParams, DEFAULT_CDT_PACKETS, DEFAULT_DYNAMIC_QUEUES};
use crate::qdisc::{PolicySpec, QueueLimit};
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
/// The levels of policy maps IOS nests (parent, child, grandchild).
const MAX_LEVELS: usize = crate::ios::translate::MAX_POLICY_LEVELS;

/// The configuration being written: access lists, class maps, policy maps and lists, each
/// kept once.
#[derive(Default)]
pub(super) struct Text<'a> {
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
    /// An empty configuration whose matches resolve node names with `node_address`.
    pub(super) fn new(node_address: NodeAddress<'a>) -> Self {
        Text { node_address: Some(node_address), ..Text::default() }
    }

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
    pub(super) fn output(&mut self, interface: &Export) -> Result<Vec<String>, Issue> {
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
    pub(super) fn input_policy(&mut self, input: &ConditionerSpec, name: &str) -> Result<(), Issue> {
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
    pub(super) fn render(&self, interface: &Export, lines: &[String]) -> String {
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
