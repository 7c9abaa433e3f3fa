//! The checks of a CBWFQ/LLQ policy that need no rate: each class takes one form of
//! guarantee, class-default comes last and matches what no other class does, IOS XE's
//! settings appear only under its scheduler, a priority class is neither shaped nor
//! fair-queued nor given WRED, a class holding a child policy only shapes and shares, and
//! absolute and remaining bandwidths are not mixed — each refused at its key path, as IOS
//! refuses the `policy-map` (Cisco IOS Quality of Service Solutions Command Reference; IOS XE
//! QoS configuration guides for its restrictions).

use super::spec::{
    CbwfqParams, ClassSpec, FairQueueSpec, Scheduler, CLASS_DEFAULT, DEFAULT_DEFAULT_CLASS_QUEUES,
};
use crate::classify::class_setup::{element_path, ClassNames};
use crate::config::error::{join_path, Issue};
use crate::qdisc::xe_policy;

/// The policy's class names after the checks, class-default last (added when not written),
/// and class-default's index.
pub(super) fn checked_names(params: &CbwfqParams, at: &str) -> Result<(Vec<String>, u32), Issue> {
    let scheduler = params.scheduler.unwrap_or_default();
    let class_at = |i: usize| element_path(at, "classes", i);
    let mut names = ClassNames::with_capacity(params.classes.len() + 1);
    for (i, class) in params.classes.iter().enumerate() {
        names.add(&class.name, "class", join_path(&class_at(i), "name"))?;
        check_class(class, &class_at(i), i + 1 == params.classes.len(), scheduler)?;
    }
    if !names.contains(CLASS_DEFAULT) {
        names.push(CLASS_DEFAULT);
    }
    let default_index = names.position(CLASS_DEFAULT).expect("added above") as u32;
    let names = names.into_vec();
    // IOS refuses to mix absolute/percent bandwidth with remaining percent in one policy.
    let uses_remaining = params.classes.iter().any(|c| c.bandwidth_remaining.is_some());
    if uses_remaining {
        if let Some(i) = params.classes.iter().position(|c| c.bandwidth.is_some()) {
            return Err(Issue::at(
                join_path(&class_at(i), "bandwidth"),
                "`bandwidth` and `bandwidth_remaining` cannot be mixed in one policy",
            )
            .hint("give every class its guarantee in the same form"));
        }
    }

    Ok((names, default_index))
}

/// Checks class `class`, found at `here` (`last`: the policy's last class) under `scheduler`.
fn check_class(class: &ClassSpec, here: &str, last: bool, scheduler: Scheduler) -> Result<(), Issue> {
    let xe = scheduler == Scheduler::Xe;
    let pre_hqf = scheduler == Scheduler::PreHqf;
    let is_default = class.name == CLASS_DEFAULT;
    let is_priority = class.priority.is_some() || class.priority_level.is_some();
    if !xe {
        let xe_only = [
            ("priority_level", class.priority_level.is_some()),
            ("bandwidth_remaining_ratio", class.bandwidth_remaining_ratio.is_some()),
        ];
        if let Some((key, _)) = xe_only.iter().find(|(_, given)| *given) {
            return Err(Issue::at(join_path(here, key), format!("`{key}` belongs to the IOS XE scheduler"))
                .hint("set `scheduler: xe` on the policy, or remove it"));
        }
    }
    if class.priority_level.is_some_and(|level| !(1..=2).contains(&level)) {
        return Err(Issue::at(join_path(here, "priority_level"), "IOS XE has priority levels 1 and 2"));
    }
    let forms = [
        is_priority,
        class.bandwidth.is_some(),
        class.bandwidth_remaining.is_some(),
        class.bandwidth_remaining_ratio.is_some(),
    ];
    if forms.iter().filter(|f| **f).count() > 1 {
        return Err(Issue::at(
                here,
                "a class takes one of `priority`, `bandwidth`, `bandwidth_remaining` and `bandwidth_remaining_ratio`",
            )
            .hint("keep the one that says what the class needs"));
    }
    if is_default && class.condition.is_some() {
        return Err(Issue::at(join_path(here, "match"), "class-default takes what no other class matches")
            .hint("remove `match`, or give the class another name"));
    }
    if is_default && !last {
        return Err(Issue::at(here, "class-default must be the last class"));
    }
    if is_default && is_priority {
        return Err(Issue::at(
            join_path(here, if class.priority.is_some() { "priority" } else { "priority_level" }),
            "class-default cannot be a priority class",
        ));
    }
    if !is_default && class.condition.is_none() {
        return Err(Issue::at(here, format!("class `{}` has no `match`", class.name))
            .hint("add `match: {...}` (an empty `match: {}` takes every packet)"));
    }
    if !pre_hqf && is_priority && class.fair_queue.is_some() {
        return Err(Issue::at(join_path(here, "fair_queue"), "a priority class cannot be fair-queued"));
    }
    if pre_hqf && !is_default && class.fair_queue.is_some() {
        return Err(Issue::at(join_path(here, "fair_queue"), "only class-default can be fair-queued here")
            .hint("HQF and IOS XE fair-queue any class: set `scheduler: hqf` or `scheduler: xe`"));
    }
    if let Some(limit) = class.queue_limit {
        limit.check(here, !(pre_hqf && is_priority), xe, class.random_detect.is_some())?;
    }
    if class.shape.is_some() && is_priority {
        return Err(Issue::at(join_path(here, "shape"), "a priority class cannot be shaped")
                .hint("its policer already holds it to its rate; shape a `bandwidth` class, or put the policy under a `tbf` shaper as its `child`"));
    }
    if class.burst.is_some() && class.priority.is_none() {
        return Err(Issue::at(join_path(here, "burst"), "`burst` belongs to a priority class"));
    }
    if pre_hqf
        && fair_queues(class, here, scheduler)?.is_some()
        && (class.bandwidth.is_some() || class.bandwidth_remaining.is_some())
    {
        return Err(Issue::at(
            join_path(here, "fair_queue"),
            "a fair-queued class-default is scheduled by its conversations' weights, not by a bandwidth",
        )
        .hint(
            "remove `bandwidth`, or set `fair_queue: false` to give the class one queue with that bandwidth",
        ));
    }
    if class.bandwidth_remaining.is_some_and(|p| p.0 == 0 || p.0 > 1_000_000) {
        return Err(Issue::at(join_path(here, "bandwidth_remaining"), "must be from 1 % to 100 %"));
    }
    if class.random_detect.is_some() && is_priority {
        return Err(Issue::at(
            join_path(here, "random_detect"),
            "a priority class has no queue of its own to run WRED on",
        )
        .hint("its traffic is bounded by its policer; remove `random_detect`"));
    }
    if class.random_detect.is_some() && fair_queues(class, here, scheduler)?.is_some() {
        return Err(Issue::at(
            join_path(here, "random_detect"),
            "WRED on a fair-queued class is not modelled",
        )
        .hint("set `fair_queue: false` to give the class one queue with WRED"));
    }
    if class.child.is_some() {
        check_child_class(class, here, scheduler)?;
    }
    Ok(())
}

/// Checks a class that holds a child policy: the scheduler nests queuing under any class,
/// and the class itself only shapes and shares.
fn check_child_class(class: &ClassSpec, here: &str, scheduler: Scheduler) -> Result<(), Issue> {
    let child_at = join_path(here, "child");
    if scheduler == Scheduler::PreHqf {
        return Err(Issue::at(
            child_at,
            "before HQF, IOS nests a queuing policy only under a shaper of the whole interface",
        )
        .hint("set `scheduler: hqf` or `scheduler: xe` on the policy, or put the child under a `tbf` as its `child`"));
    }
    if class.priority.is_some() || class.priority_level.is_some() {
        return Err(Issue::at(child_at, "a priority class cannot hold a queuing child policy")
            .hint("put the priority class inside the child policy"));
    }
    let beside = [
        ("queue_limit", class.queue_limit.is_some()),
        ("fair_queue", class.fair_queue.is_some()),
        ("random_detect", class.random_detect.is_some()),
        ("police", class.police.is_some()),
        ("set", class.set.is_some()),
    ];
    if let Some((key, _)) = beside.iter().find(|(_, given)| *given) {
        return Err(Issue::at(
            join_path(here, key),
            format!("`{key}` beside a child policy is not modelled"),
        )
        .hint("move it into the child policy's classes"));
    }
    if scheduler == Scheduler::Xe && class.bandwidth.is_some() {
        return Err(Issue::at(
            join_path(here, "bandwidth"),
            "IOS XE takes `bandwidth` only in the classes of a hierarchy's lowest level",
        )
        .hint("share this level's excess with `bandwidth_remaining_ratio`, and give the minimums to the child's classes"));
    }
    let queues_itself = class.shape.is_some()
        || class.bandwidth_remaining.is_some()
        || class.bandwidth_remaining_ratio.is_some();
    if scheduler == Scheduler::Xe && !queues_itself {
        return Err(Issue::at(
            child_at,
            "IOS XE refuses a queuing child policy under a class that does not queue (\"Cannot attach queuing-based child policy to a non-queuing based class\")",
        )
        .hint("give the class `shape` or `bandwidth_remaining_ratio`"));
    }
    Ok(())
}

/// The number of conversation queues of a fair-queued class, or `None` for a FIFO class.
pub(super) fn fair_queues(class: &ClassSpec, at: &str, scheduler: Scheduler) -> Result<Option<u32>, Issue> {
    match &class.fair_queue {
        None => Ok(None),
        Some(spec) => fair_queue_count(spec, &join_path(at, "fair_queue"), scheduler),
    }
}

fn fair_queue_count(spec: &FairQueueSpec, at: &str, scheduler: Scheduler) -> Result<Option<u32>, Issue> {
    match *spec {
        FairQueueSpec::Switch(false) => Ok(None),
        FairQueueSpec::Switch(true) if scheduler == Scheduler::Xe => Ok(Some(xe_policy::FAIR_QUEUE_FLOWS)),
        FairQueueSpec::Switch(true) => Ok(Some(DEFAULT_DEFAULT_CLASS_QUEUES)),
        FairQueueSpec::Queues { dynamic_queues: n } if (16..=4096).contains(&n) && n.is_power_of_two() => {
            Ok(Some(n))
        }
        FairQueueSpec::Queues { dynamic_queues: n } => {
            Err(Issue::at(join_path(at, "dynamic_queues"), format!("{n} dynamic queues is not allowed"))
                .hint("use a power of two from 16 to 4096"))
        }
    }
}
