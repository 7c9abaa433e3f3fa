//! A CBWFQ/LLQ policy's reservations on its interface's QoS bandwidth: the priority and
//! bandwidth classes' rates (percentages of the bandwidth resolved), what the priority
//! classes leave for `bandwidth_remaining` shares, what no class reserves, and the class
//! weights of the pre-HQF scheduler (weight = constant × bandwidth / class rate, at least 1).
//!
//! When the policy is attached, the priority and bandwidth reservations together may not
//! exceed `max_reserved` of the bandwidth — 75 % before HQF (IOS `max-reserved-bandwidth`,
//! `docs/reference/ios-defaults.md`), 100 % under HQF, and always 100 % under IOS XE, which
//! has no such command; the `bandwidth_remaining` shares may not add up to more than
//! 100 %. Each refusal names its key path and what to change.

use super::spec::{
    CbwfqParams, ClassSpec, DEFAULT_BURST_NS, DEFAULT_MAX_RESERVED_PPM, DEFAULT_WEIGHT_CONSTANT,
};
use super::spec::{Scheduler, MAX_BURST_BYTES, MIN_BURST_BYTES};
use crate::classify::class_setup::element_path;
use crate::config::error::{join_path, Issue};
use crate::qdisc::Interface;

/// Parts per million in the whole.
const PPM: u64 = 1_000_000;

/// The reservations of a policy's written classes on its interface, bit/s.
#[derive(Clone, Debug)]
pub(super) struct Reservations {
    /// The interface's QoS bandwidth.
    pub(super) bandwidth_bps: u64,
    /// Per written class: its `priority` rate.
    pub(super) priority_bps: Vec<Option<u64>>,
    /// Per written class: its `bandwidth`.
    pub(super) guaranteed_bps: Vec<Option<u64>>,
    /// The priority and bandwidth rates together.
    pub(super) reserved_bps: u64,
    /// What the priority classes leave of the bandwidth.
    pub(super) remaining_bps: u64,
    /// The `bandwidth_remaining` shares together, parts per million.
    pub(super) remaining_sum_ppm: u64,
    /// Whether any class gives `bandwidth_remaining`.
    pub(super) uses_remaining: bool,
    /// The pre-HQF class weight constant.
    weight_constant: u64,
}

impl Reservations {
    /// The reservations of `params`, found at `at`, on `interface`, refused at their key
    /// path when the interface cannot keep them.
    pub(super) fn of(params: &CbwfqParams, at: &str, interface: Interface) -> Result<Self, Issue> {
        let bw = interface.bandwidth_bps;
        let class_at = |i: usize| element_path(at, "classes", i);
        let priority_bps: Vec<Option<u64>> =
            params.classes.iter().map(|c| c.priority.map(|r| r.bps(bw))).collect();
        let guaranteed_bps: Vec<Option<u64>> =
            params.classes.iter().map(|c| c.bandwidth.map(|r| r.bps(bw))).collect();
        for (i, (p, b)) in priority_bps.iter().zip(&guaranteed_bps).enumerate() {
            if *p == Some(0) || *b == Some(0) {
                let key = if p.is_some() { "priority" } else { "bandwidth" };
                return Err(Issue::at(join_path(&class_at(i), key), "the rate must be above zero"));
            }
        }
        let reserved_bps: u64 = priority_bps.iter().chain(&guaranteed_bps).flatten().sum();
        check_admission(params, at, interface, reserved_bps)?;
        // A strict priority class held to no rate could take the whole link: no minimum
        // beside it could be kept.
        let unpoliced = params
            .classes
            .iter()
            .position(|c| c.priority_level.is_some() && c.priority.is_none() && c.police.is_none());
        if let (Some(p), Some(b)) = (unpoliced, guaranteed_bps.iter().position(Option::is_some)) {
            return Err(Issue::at(
                join_path(&class_at(b), "bandwidth"),
                format!(
                    "no minimum can be kept beside class `{}`, a priority class held to no rate",
                    params.classes[p].name
                ),
            )
            .hint("give the priority class a rate (`priority: 20%`) or a `police`, or share the excess with `bandwidth_remaining_ratio`"));
        }
        let remaining_sum_ppm: u64 =
            params.classes.iter().filter_map(|c| c.bandwidth_remaining.map(|p| p.0)).sum();
        if remaining_sum_ppm > PPM {
            return Err(Issue::at(
                join_path(at, "classes"),
                "the `bandwidth_remaining` shares add up to more than 100 %",
            ));
        }
        let uses_remaining = params.classes.iter().any(|c| c.bandwidth_remaining.is_some());
        let remaining_bps = bw.saturating_sub(priority_bps.iter().flatten().sum());
        if uses_remaining && remaining_bps == 0 {
            return Err(Issue::at(
                join_path(at, "classes"),
                "the priority classes leave no bandwidth for `bandwidth_remaining` classes",
            )
            .hint("lower the `priority` rates"));
        }
        let weight_constant = params.weight_constant.unwrap_or(DEFAULT_WEIGHT_CONSTANT);
        if weight_constant == 0 {
            return Err(Issue::at(join_path(at, "weight_constant"), "must be above zero"));
        }
        Ok(Reservations {
            bandwidth_bps: bw,
            priority_bps,
            guaranteed_bps,
            reserved_bps,
            remaining_bps,
            remaining_sum_ppm,
            uses_remaining,
            weight_constant,
        })
    }

    /// `share_ppm` of what the priority classes leave.
    pub(super) fn remaining_share_bps(&self, share_ppm: u64) -> u64 {
        (self.remaining_bps as u128 * share_ppm as u128 / PPM as u128) as u64
    }

    /// What no class reserves: the remaining bandwidth's unshared part when classes give
    /// `bandwidth_remaining`, otherwise the bandwidth less the reservations.
    pub(super) fn unreserved_bps(&self) -> u64 {
        if self.uses_remaining {
            self.remaining_share_bps(PPM - self.remaining_sum_ppm)
        } else {
            self.bandwidth_bps.saturating_sub(self.reserved_bps)
        }
    }

    /// The pre-HQF weight of a class of `class_bps`.
    pub(super) fn weight_for(&self, class_bps: u64) -> u64 {
        ((self.weight_constant as u128 * self.bandwidth_bps as u128) / class_bps.max(1) as u128).max(1) as u64
    }
}

/// Refuses `max_reserved` under IOS XE and reservations beyond what the scheduler lets the
/// classes reserve when the policy is attached.
fn check_admission(
    params: &CbwfqParams,
    at: &str,
    interface: Interface,
    reserved_bps: u64,
) -> Result<(), Issue> {
    let bw = interface.bandwidth_bps;
    let scheduler = params.scheduler.unwrap_or_default();
    let xe = scheduler == Scheduler::Xe;
    if xe && params.max_reserved.is_some() {
        return Err(Issue::at(
            join_path(at, "max_reserved"),
            "IOS XE has no `max-reserved-bandwidth`: its classes may reserve the whole rate",
        )
        .hint("remove `max_reserved`"));
    }
    // HQF lets the classes reserve the whole interface bandwidth by default.
    let default_max_reserved_ppm =
        if scheduler == Scheduler::PreHqf { DEFAULT_MAX_RESERVED_PPM } else { PPM };
    let max_reserved_ppm =
        if xe { PPM } else { params.max_reserved.map_or(default_max_reserved_ppm, |p| p.0) };
    if max_reserved_ppm == 0 || max_reserved_ppm > PPM {
        return Err(Issue::at(join_path(at, "max_reserved"), "must be above 0 % and at most 100 %"));
    }
    let available_bps = (bw as u128 * max_reserved_ppm as u128 / PPM as u128) as u64;
    if interface.admission && reserved_bps > available_bps {
        return Err(Issue::at(
            at,
            format!(
                "the classes reserve {} kbit/s, but only {} kbit/s may be reserved ({} % of the {} kbit/s interface bandwidth)",
                reserved_bps / 1000,
                available_bps / 1000,
                max_reserved_ppm as f64 / 10_000.0,
                bw / 1000
            ),
        )
        .hint(if xe { "lower the `priority` and `bandwidth` reservations" } else { "lower the `priority` and `bandwidth` reservations, or raise `max_reserved` (IOS `max-reserved-bandwidth`, at most 100 %)" }));
    }
    Ok(())
}

/// The depth of a priority class's policer: its `burst`, or 200 ms at its rate (at least
/// the IOS minimum of 32 bytes).
pub(super) fn priority_burst_bytes(class: &ClassSpec, rate_bps: u64, at: &str) -> Result<u64, Issue> {
    match class.burst {
        Some(b) if (MIN_BURST_BYTES..=MAX_BURST_BYTES).contains(&b.0) => Ok(b.0),
        Some(b) => Err(Issue::at(join_path(at, "burst"), format!("{} B is outside the IOS range", b.0))
            .hint("use 32B to 2000000B")),
        None => {
            Ok(((rate_bps as u128 * DEFAULT_BURST_NS as u128 / 8_000_000_000) as u64).max(MIN_BURST_BYTES))
        }
    }
}
