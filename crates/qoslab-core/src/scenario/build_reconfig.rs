//! Planning when an interface's output discipline is replaced during a run (see
//! [`crate::net::reconfiguration`] for what a replacement does).
//!
//! The interface's timeline merges its link's rate changes with its scheduled
//! configuration changes (a rate change first when both fall on one instant). Walking it:
//!
//! * a configuration change installs its policy and/or QoS bandwidth; a policy that does
//!   not fit is an error at the change, as IOS refuses such a `service-policy` command;
//! * a rate change matters only to an interface without an explicit `bandwidth` whose
//!   policy depends on the bandwidth (CBWFQ, HTB, a shaper, CBQ): its QoS bandwidth follows
//!   the rate, so the policy is built again against the new value; if it
//!   no longer fits, it is withdrawn and the interface falls back to FIFO, and a later
//!   change that lets it fit reinstates it.

use super::spec::{InterfaceChangeSpec, PolicyRef};
use crate::config::error::{join_path, Issue};
use crate::net::reconfiguration::PortChange;
use crate::qdisc::{AnyQdisc, PolicySpec};
use crate::time::SimTime;
use crate::units::format_rate;
use std::collections::{BTreeMap, VecDeque};

/// Builds a policy for the interface: (policy, its key path, QoS bandwidth, the number of
/// the discipline in the interface's sequence — 0 for the first).
pub(super) type BuildPolicy<'a> = dyn Fn(&PolicySpec, &str, u64, u64) -> Result<AnyQdisc, Issue> + 'a;

/// An interface's settings at the start and what changes them.
pub(super) struct Timeline<'a> {
    /// `interfaces.NODE.PEER`.
    pub at: String,
    /// The physical rate at the start, bit/s.
    pub rate_bps: u64,
    /// The explicit QoS bandwidth at the start, bit/s.
    pub bandwidth_bps: Option<u64>,
    /// The output policy at the start (the interface's hold queue applied) and its key path.
    pub policy: (PolicySpec, String),
    /// The interface's output hold queue, packets.
    pub hold_queue: Option<u32>,
    /// The link's rate changes.
    pub rate_changes: &'a [(SimTime, u64)],
    /// The interface's configuration changes.
    pub changes: &'a [InterfaceChangeSpec],
}

/// The policy `policy` refers to, with the key path where its text is.
pub(super) fn resolve_policy<'a>(
    policy: &'a PolicyRef,
    at: &str,
    policies: &'a BTreeMap<String, PolicySpec>,
) -> Result<(&'a PolicySpec, String), Issue> {
    match policy {
        PolicyRef::Named(name) => {
            let spec = policies.get(name).ok_or_else(|| {
                Issue::unknown_name(at, "policy", name, policies.keys().map(String::as_str))
            })?;
            Ok((spec, format!("policies.{name}")))
        }
        PolicyRef::Inline(spec) => Ok((spec, at.to_owned())),
    }
}

/// `policy` with the interface's hold queue, if it has one; `at` blames the hold queue.
fn with_hold_queue(policy: &PolicySpec, hold_queue: Option<u32>, at: &str) -> Result<PolicySpec, Issue> {
    match hold_queue {
        Some(packets) => policy.with_hold_queue(packets).map_err(|why| Issue::at(at, why.to_string())),
        None => Ok(policy.clone()),
    }
}

enum Step<'a> {
    Rate(u64),
    Change(usize, &'a InterfaceChangeSpec),
}

/// The interface's schedule of changes (rate changes, and the disciplines they and the
/// configuration changes install), in time order.
pub(super) fn plan(
    timeline: &Timeline,
    policies: &BTreeMap<String, PolicySpec>,
    build: &BuildPolicy,
) -> Result<VecDeque<PortChange>, Issue> {
    let mut steps: Vec<(SimTime, Step)> =
        timeline.rate_changes.iter().map(|&(t, r)| (t, Step::Rate(r))).collect();
    let mut last_at = None;
    for (k, change) in timeline.changes.iter().enumerate() {
        let here = format!("{}.changes[{k}]", timeline.at);
        if last_at.is_some_and(|last| change.at.0 <= last) {
            return Err(Issue::at(join_path(&here, "at"), "changes must be in time order")
                .hint("list the changes by increasing `at`"));
        }
        last_at = Some(change.at.0);
        if change.output.is_none() && change.bandwidth.is_none() {
            return Err(Issue::at(&here, "this change changes nothing")
                .hint("give it an `output` policy, a `bandwidth`, or both"));
        }
        if change.bandwidth.is_some_and(|b| b.0 == 0) {
            return Err(Issue::at(join_path(&here, "bandwidth"), "a bandwidth must be above zero")
                .hint("write e.g. `1544kbps`"));
        }
        steps.push((SimTime(change.at.0), Step::Change(k, change)));
    }
    // Stable: at one instant the rate changes (listed first) come before the changes.
    steps.sort_by_key(|(t, _)| *t);

    let mut rate_bps = timeline.rate_bps;
    let mut explicit_bps = timeline.bandwidth_bps;
    let (mut policy, mut policy_at) = timeline.policy.clone();
    let mut withdrawn = false;
    let mut plan = VecDeque::new();
    for (number, (at, step)) in (1u64..).zip(steps) {
        let before_bps = explicit_bps.unwrap_or(rate_bps);
        match step {
            Step::Rate(new_rate_bps) => {
                rate_bps = new_rate_bps;
                let bandwidth_bps = explicit_bps.unwrap_or(rate_bps);
                let mut change =
                    PortChange { at, rate_bps: Some(new_rate_bps), bandwidth_bps: None, discipline: None };
                if bandwidth_bps == before_bps || !policy.depends_on_bandwidth() {
                    plan.push_back(change);
                    continue;
                }
                let rate = format_rate(rate_bps);
                let (qdisc, cause) = match build(&policy, &policy_at, bandwidth_bps, number) {
                    Ok(qdisc) if withdrawn => {
                        withdrawn = false;
                        (
                            qdisc,
                            format!("the link's rate became {rate}: the policy fits again and is reinstated"),
                        )
                    }
                    Ok(qdisc) => {
                        (qdisc, format!("the link's rate became {rate}: the policy is re-sized to it"))
                    }
                    Err(_) if withdrawn => {
                        plan.push_back(change);
                        continue;
                    }
                    Err(issue) => {
                        withdrawn = true;
                        let fifo = with_hold_queue(
                            &PolicySpec::default_output(),
                            timeline.hold_queue,
                            &timeline.at,
                        )?;
                        let qdisc = build(&fifo, &timeline.at, bandwidth_bps, number)?;
                        let cause = format!(
                            "the link's rate became {rate}: the policy is withdrawn ({}); the interface queues FIFO",
                            issue.message
                        );
                        (qdisc, cause)
                    }
                };
                change.discipline = Some((qdisc, cause));
                plan.push_back(change);
            }
            Step::Change(k, change) => {
                let here = format!("{}.changes[{k}]", timeline.at);
                if let Some(bandwidth) = change.bandwidth {
                    explicit_bps = Some(bandwidth.0);
                }
                if let Some(output) = &change.output {
                    let output_at = join_path(&here, "output");
                    let (spec, spec_at) = resolve_policy(output, &output_at, policies)?;
                    policy = with_hold_queue(spec, timeline.hold_queue, &output_at)?;
                    policy_at = spec_at;
                }
                let bandwidth_bps = explicit_bps.unwrap_or(rate_bps);
                let qdisc = build(&policy, &policy_at, bandwidth_bps, number).map_err(|issue| {
                    // The policy does not fit this interface at this point of the run.
                    if issue.key_path == policy_at {
                        Issue { key_path: here.clone(), ..issue }
                    } else {
                        issue
                    }
                })?;
                withdrawn = false;
                let what = match (&change.output, change.bandwidth) {
                    (Some(_), Some(b)) => format!("a new policy and bandwidth {}", format_rate(b.0)),
                    (Some(_), None) => "a new policy".to_owned(),
                    (None, _) => format!("bandwidth {}", format_rate(bandwidth_bps)),
                };
                let cause = format!("scheduled change ({here}): {what}");
                let bandwidth_bps = change.bandwidth.map(|b| b.0);
                plan.push_back(PortChange {
                    at,
                    rate_bps: None,
                    bandwidth_bps,
                    discipline: Some((qdisc, cause)),
                });
            }
        }
    }
    Ok(plan)
}
