//! Building a CBWFQ/LLQ policy from its settings, in three steps kept apart: the checks that
//! need no rate ([`super::check`]), the reservations on the interface's bandwidth with their
//! own checks ([`super::rates`]), then the construction here — each class's kind (priority
//! queue, class queue, flow queues, pre-HQF conversations or child policy) with IOS's default
//! queue limits, its marker, policer, WRED dropper and shaper, the class queues' scheduler
//! ([`super::queues`]), the child policies on their classes' rates, and the classes of the
//! results with a child's in place of the class that holds it.

use super::check::{checked_names, fair_queues};
use super::rates::{priority_burst_bytes, Reservations};
use super::spec::{CbwfqParams, ClassSpec, Scheduler, CLASS_DEFAULT, DEFAULT_QUEUE_LIMIT_PACKETS};
use super::{Cbwfq, ChildPolicy, ClassKind, ClassQueues, Held};
use crate::aqm::Red;
use crate::classify::class_setup::{element_path, Rules};
use crate::classify::flow_hash::FlowHashMemo;
use crate::condition::marker::Marker;
use crate::condition::policer::Policer;
use crate::condition::TokenBucket;
use crate::config::error::{join_path, Issue};
use crate::qdisc::class_queue_limit::Limit;
use crate::qdisc::shaper_credit::ShaperCredit;
use crate::qdisc::xe_policy;
use crate::qdisc::{Interface, PolicySpec, QdiscKind};
use std::collections::VecDeque;

/// What separates the random seeds of a policy's child policies, class by class: 2⁶⁴ over
/// the golden ratio (odd, so distinct classes give distinct seeds; Knuth's multiplicative
/// hashing constant).
const CHILD_SEED_STEP: u64 = 0x9E37_79B9_7F4A_7C15;

/// A class's marker and policer, applied before it queues.
type Conditioning = (Option<Marker>, Option<Policer>);

impl QdiscKind for Cbwfq {
    const KIND: &'static str = "cbwfq";
    const DEPENDS_ON_BANDWIDTH: bool = true;
    type Params = CbwfqParams;

    /// Builds from `params` found at key path `at` for `interface`.
    fn build(
        params: &Self::Params,
        at: &str,
        interface: Interface,
        node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        let (names, default_index) = checked_names(params, at)?;
        let policy = Policy { params, at, interface, rates: Reservations::of(params, at, interface)? };
        let mut classes = ClassQueuing::default();
        let mut rules = Rules::new();
        for (i, name) in names.iter().enumerate() {
            let kind = policy.class_kind(i, name, &mut classes)?;
            classes.kinds.push(kind);
            if let Some(condition) = params.classes.get(i).and_then(|c| c.condition.as_ref()) {
                rules.add(condition, &policy.class_at(i), i as u32, node_address)?;
            }
        }
        let (conditioning, droppers) = policy.conditioning(names.len())?;
        let shapers = policy.shapers(names.len())?;
        let flows: Vec<usize> = classes
            .kinds
            .iter()
            .map(|kind| match kind {
                ClassKind::Flows { mask, .. } => *mask as usize + 1,
                _ => 1,
            })
            .collect();
        let queues =
            ClassQueues::build(params, &policy.rates, &classes.queue_class, &flows, names.len(), &|i| {
                policy.class_at(i)
            })?;
        let mut children = policy.children(&classes.kinds, &shapers, node_address)?;
        let (flat, slots) = result_names(&names, &classes.kinds, &mut children, at)?;
        Ok(Cbwfq {
            names: flat,
            labels: names.into(),
            slots: slots.into(),
            kinds: classes.kinds.into(),
            classifier: rules.classifier(default_index),
            priority_queues: [VecDeque::new(), VecDeque::new()],
            priority_held: vec![Held::default(); shapers.len()].into(),
            conditioning: conditioning.into(),
            droppers: droppers.into(),
            shapers: shapers.into(),
            queues,
            queue_class: classes.queue_class.into(),
            flow_hashes: FlowHashMemo::default(),
            children: children.into(),
            ios_header_bytes: interface.ios_header_bytes,
        })
    }
}

/// The classes' kinds as they are built, and the class queues they take.
#[derive(Default)]
struct ClassQueuing {
    kinds: Vec<ClassKind>,
    /// Per class queue: the class whose packets it holds.
    queue_class: Vec<usize>,
    /// The child policies met so far.
    children: usize,
}

impl ClassQueuing {
    /// A new class queue for class `class`: its number.
    fn add_queue(&mut self, class: usize) -> usize {
        self.queue_class.push(class);
        self.queue_class.len() - 1
    }
}

/// A policy being built: its settings, where they were found, its interface and its
/// reservations there.
struct Policy<'a> {
    params: &'a CbwfqParams,
    at: &'a str,
    interface: Interface,
    rates: Reservations,
}

impl Policy<'_> {
    fn class_at(&self, class: usize) -> String {
        element_path(self.at, "classes", class)
    }

    fn scheduler(&self) -> Scheduler {
        self.params.scheduler.unwrap_or_default()
    }

    /// The kind of class `class`, named `name` (class-default when the policy does not
    /// write it), with the queues it takes added to `built`.
    fn class_kind(&self, class: usize, name: &str, built: &mut ClassQueuing) -> Result<ClassKind, Issue> {
        let bw = self.interface.bandwidth_bps;
        let scheduler = self.scheduler();
        let spec = self.params.classes.get(class);
        let here = self.class_at(class);
        let default_limit = match scheduler {
            Scheduler::Xe => xe_policy::default_queue_limit_packets(bw),
            Scheduler::PreHqf | Scheduler::Hqf => DEFAULT_QUEUE_LIMIT_PACKETS,
        };
        let limit = match spec.and_then(|c| c.queue_limit) {
            Some(limit) => limit.resolve(bw, &join_path(&here, "queue_limit"))?,
            None => Limit::packets(default_limit as usize),
        };
        // The class-default's bandwidth when it has no guarantee of its own: what is left.
        let unreserved_bps = self.rates.unreserved_bps().max(bw / 100);
        Ok(match spec {
            Some(c) if c.priority.is_some() || c.priority_level.is_some() => {
                self.priority_kind(c, class, limit)?
            }
            Some(c) if c.child.is_some() => {
                built.children += 1;
                ClassKind::Child { queue: built.add_queue(class), child: built.children - 1 }
            }
            Some(c) if scheduler != Scheduler::PreHqf => {
                let queue = built.add_queue(class);
                match fair_queues(c, &here, scheduler)? {
                    Some(count) => ClassKind::Flows { queue, mask: count as u64 - 1, limit },
                    None => ClassKind::Queue { queue, weight: 0, limit },
                }
            }
            Some(c) if fair_queues(c, &here, scheduler)?.is_some() => {
                let count = fair_queues(c, &here, scheduler)?.expect("checked in the guard");
                let first = built.queue_class.len();
                built.queue_class.extend(std::iter::repeat_n(class, count as usize));
                ClassKind::FairQueue { first, mask: count as u64 - 1, limit: limit.packet_bound() }
            }
            Some(c) => {
                let class_bps = match (self.rates.guaranteed_bps[class], c.bandwidth_remaining) {
                    (Some(b), _) => b,
                    (None, Some(share)) => self.rates.remaining_share_bps(share.0),
                    (None, None) if name == CLASS_DEFAULT => unreserved_bps,
                    (None, None) => {
                        return Err(Issue::at(&here, format!("class `{name}` has neither `priority` nor `bandwidth`"))
                            .hint("give it `bandwidth: 64kbps`, `bandwidth: 20%`, `bandwidth_remaining: 20%` or `priority: ...`"))
                    }
                };
                ClassKind::Queue {
                    queue: built.add_queue(class),
                    weight: self.rates.weight_for(class_bps),
                    limit,
                }
            }
            None => ClassKind::Queue {
                queue: built.add_queue(class),
                weight: self.rates.weight_for(unreserved_bps),
                limit,
            },
        })
    }

    /// The kind of priority class `c`, number `class`, whose resolved `queue_limit` (or
    /// default) is `limit`: its level, its policer at its rate, and the limit of its
    /// packets in the priority queue (none before HQF; HQF's and IOS XE's defaults).
    fn priority_kind(&self, c: &ClassSpec, class: usize, limit: Limit) -> Result<ClassKind, Issue> {
        let level = c.priority_level.unwrap_or(1) as usize - 1;
        let default_limit = match self.scheduler() {
            Scheduler::PreHqf => None,
            Scheduler::Hqf => Some(DEFAULT_QUEUE_LIMIT_PACKETS),
            Scheduler::Xe => Some(xe_policy::PRIORITY_QUEUE_LIMIT_PACKETS),
        };
        let limit = default_limit.map(|packets| match c.queue_limit {
            Some(_) => limit,
            None => Limit::packets(packets as usize),
        });
        let policer = match self.rates.priority_bps[class] {
            Some(rate_bps) => {
                Some(TokenBucket::new(rate_bps, priority_burst_bytes(c, rate_bps, &self.class_at(class))?))
            }
            None => None,
        };
        Ok(ClassKind::Priority { level, policer, limit })
    }

    /// Per class of `classes`: its marker and policer, and its queue's WRED dropper.
    fn conditioning(&self, classes: usize) -> Result<(Vec<Conditioning>, Vec<Option<Red>>), Issue> {
        let bw = self.interface.bandwidth_bps;
        let mut conditioning = Vec::with_capacity(classes);
        let mut droppers = Vec::with_capacity(classes);
        for i in 0..classes {
            let here = self.class_at(i);
            let spec = self.params.classes.get(i);
            let marker = match spec.and_then(|c| c.set.as_ref()) {
                Some(set) => Some(Marker::build(set, &join_path(&here, "set"))?),
                None => None,
            };
            let policer = match spec.and_then(|c| c.police.as_ref()) {
                Some(police) => Some(Policer::build(
                    police,
                    &join_path(&here, "police"),
                    bw,
                    self.interface.ios_header_bytes,
                )?),
                None => None,
            };
            conditioning.push((marker, policer));
            droppers.push(self.interface.dropper(spec.and_then(|c| c.random_detect.as_ref()), &here, i)?);
        }
        Ok((conditioning, droppers))
    }

    /// Per class of `classes`: its shaper, if it is shaped (an unwritten class-default is
    /// not). A shape below the class's `bandwidth` is refused when the policy is attached.
    fn shapers(&self, classes: usize) -> Result<Vec<Option<ShaperCredit>>, Issue> {
        let bw = self.interface.bandwidth_bps;
        let mut shapers = Vec::with_capacity(classes);
        for (i, class) in self.params.classes.iter().enumerate() {
            let Some(shape) = &class.shape else {
                shapers.push(None);
                continue;
            };
            let shaper = ShaperCredit::build(shape, &join_path(&self.class_at(i), "shape"), bw)?
                .counting_header(self.interface.ios_header_bytes);
            // Like the reservations, a check of the attachment: either rate may be a
            // percentage of the interface bandwidth.
            let guaranteed_bps =
                self.rates.guaranteed_bps[i].filter(|&b| self.interface.admission && b > shaper.rate_bps());
            if let Some(guaranteed_bps) = guaranteed_bps {
                return Err(Issue::at(
                    self.at,
                    format!(
                        "class `{}` is shaped to {} kbit/s, below the {} kbit/s its `bandwidth` guarantees",
                        class.name,
                        shaper.rate_bps() / 1000,
                        guaranteed_bps / 1000
                    ),
                )
                .hint("shape the class at or above its bandwidth, or lower its `bandwidth`"));
            }
            shapers.push(Some(shaper));
        }
        shapers.resize(classes, None);
        Ok(shapers)
    }

    /// The child policies of the classes of `kinds` that hold one, each on its class's
    /// shape rate (or this policy's bandwidth) and with random streams of its own.
    fn children(
        &self,
        kinds: &[ClassKind],
        shapers: &[Option<ShaperCredit>],
        node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Vec<ChildPolicy>, Issue> {
        let mut children = Vec::new();
        for (class, kind) in kinds.iter().enumerate() {
            let ClassKind::Child { queue, .. } = *kind else { continue };
            let spec = self.params.classes[class].child.as_deref().expect("a child class has a child");
            let base_bps =
                shapers[class].as_ref().map_or(self.interface.bandwidth_bps, ShaperCredit::rate_bps);
            // Its droppers draw from streams of their own.
            let interface = Interface {
                random_seed: self.interface.random_seed ^ (class as u64 + 1).wrapping_mul(CHILD_SEED_STEP),
                ..self.interface
            };
            let at = join_path(&self.class_at(class), "child");
            let policy = build_child(spec, &at, self.scheduler(), base_bps, interface, node_address)?;
            children.push(ChildPolicy { class, queue, policy: Box::new(policy), held: None });
        }
        Ok(children)
    }
}

/// The classes of the results — a child's in place of the class that holds it
/// (`parent/child`) — and each class's first number among them; two results named alike
/// are refused.
fn result_names(
    names: &[String],
    kinds: &[ClassKind],
    children: &mut [ChildPolicy],
    at: &str,
) -> Result<(Vec<String>, Vec<usize>), Issue> {
    let mut flat = Vec::with_capacity(names.len());
    let mut slots = Vec::with_capacity(names.len());
    for (class, name) in names.iter().enumerate() {
        slots.push(flat.len());
        match kinds[class] {
            ClassKind::Child { child, .. } => {
                children[child].policy.move_slots(flat.len());
                flat.extend(children[child].policy.names.iter().map(|inner| format!("{name}/{inner}")));
            }
            _ => flat.push(name.clone()),
        }
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(twice) = flat.iter().find(|name| !seen.insert(name.as_str())) {
        return Err(Issue::at(
            join_path(at, "classes"),
            format!("two classes of the results would be named `{twice}`"),
        )
        .hint("rename the class whose name has a `/`"));
    }
    Ok((flat, slots))
}

/// Builds the child policy `spec` of a class, found at `at`, on the class's `base_bps` (its
/// shape rate, or the parent's bandwidth) under the parent's `scheduler`.
fn build_child(
    spec: &PolicySpec,
    at: &str,
    scheduler: Scheduler,
    base_bps: u64,
    interface: Interface,
    node_address: &dyn Fn(&str) -> Option<u32>,
) -> Result<Cbwfq, Issue> {
    let PolicySpec::Cbwfq(params) = spec else {
        return Err(Issue::at(
            at,
            "a class's child policy is a `cbwfq` policy (IOS `service-policy` of a policy map)",
        )
        .hint("write the child as `{kind: cbwfq, classes: [...]}`"));
    };
    if let Some(own) = params.scheduler.filter(|&own| own != scheduler) {
        return Err(Issue::at(
            join_path(at, "scheduler"),
            format!(
                "the child runs under its parent's `{}` scheduler, not `{}`",
                scheduler.name(),
                own.name()
            ),
        )
        .hint("remove `scheduler` from the child"));
    }
    let params = CbwfqParams { scheduler: Some(scheduler), ..params.clone() };
    // Its reservations are checked against its base.
    Interface { bandwidth_bps: base_bps, ..interface }.build_nested(
        |on| Cbwfq::build(&params, at, on, node_address),
        |issue| Issue {
            message: format!(
                "the child policy's bandwidth is its class's {} kbit/s: {}",
                base_bps / 1000,
                issue.message
            ),
            ..issue
        },
    )
}
