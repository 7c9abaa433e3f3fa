//! What a CBWFQ/LLQ policy means under IOS XE's scheduler: each queue's minimum and excess
//! weight for [`super::three_parameter`], the queue-limit defaults, and the rules IOS XE
//! applies when the policy is attached.
//!
//! * `bandwidth kbps|percent` is a queue's **minimum**; `bandwidth remaining ratio N` (1–1000)
//!   or `bandwidth remaining percent P` its **excess weight**. A queue without either weight
//!   has weight 1 (ratio form) — or, when the policy gives percentages, an equal part of the
//!   percentage the others leave (at least 1). (Cisco community, "ASR1000 CBWFQ QoS
//!   Configuration Example": "excess_weight 1" for a class with only `bandwidth`; Cisco IOS
//!   XE QoS configuration guide, "Distribution of Remaining Bandwidth Using Ratio".)
//! * `bandwidth remaining ratio` does not coexist with `bandwidth` in the same class or in
//!   another class of the policy, nor with `priority` in the same class (the same guide's
//!   restrictions).
//! * Priority and minimum rates together may take the whole of the interface's (or parent
//!   shaper's) rate; IOS XE has no `max-reserved-bandwidth`.
//! * Default queue limits: a class queue holds 50 ms of 1500-byte packets at the interface's
//!   rate, never fewer than 64; a priority queue 512 packets (Cisco IOS XE QoS congestion
//!   management guide, "Queue Limits").

use super::three_parameter::QueueRates;
use crate::config::error::Issue;

/// A class queue's default limit in time at the interface's rate, ms.
pub const QUEUE_LIMIT_MS: u64 = 50;
/// The packet size that time is counted in, bytes.
pub const QUEUE_LIMIT_PACKET_BYTES: u64 = 1500;
/// The fewest packets a class queue's default limit holds.
pub const MIN_QUEUE_LIMIT_PACKETS: u64 = 64;
/// A priority queue's default limit, packets.
pub const PRIORITY_QUEUE_LIMIT_PACKETS: u32 = 512;
/// The flow queues of a class with `fair-queue` (an assumption: the number is not in the
/// sources read; `fair_queue: {dynamic_queues: N}` sets another).
pub const FAIR_QUEUE_FLOWS: u32 = 16;
/// The largest `bandwidth remaining ratio`.
pub const MAX_REMAINING_RATIO: u32 = 1000;

/// The default limit of a class queue on an interface of `bandwidth_bps`, packets.
pub fn default_queue_limit_packets(bandwidth_bps: u64) -> u32 {
    let packets = (u128::from(bandwidth_bps) * u128::from(QUEUE_LIMIT_MS))
        .div_ceil(1000 * 8 * u128::from(QUEUE_LIMIT_PACKET_BYTES));
    packets.clamp(u128::from(MIN_QUEUE_LIMIT_PACKETS), u128::from(u32::MAX)) as u32
}

/// How the policy states excess weights.
#[derive(Clone, Copy, PartialEq, Eq)]
enum WeightForm {
    Ratio,
    Percent,
}

/// What the excess-weight rules read of a class of the policy.
pub struct ExcessSpec {
    /// `bandwidth_remaining_ratio`.
    pub ratio: Option<u32>,
    /// `bandwidth_remaining`, in parts per million.
    pub remaining_ppm: Option<u64>,
    /// Whether the class has a `bandwidth`.
    pub has_bandwidth: bool,
}

/// Checks the rules of excess weights of `classes` (at `class_at(i)`); returns, for each
/// queued class (not priority) in `queued`, its minimum (from `min_bps`), excess weight and
/// number of flow queues (from `flows`).
pub fn queue_rates(
    classes: &[ExcessSpec],
    queued: &[usize],
    min_bps: &[Option<u64>],
    flows: &[usize],
    class_at: &dyn Fn(usize) -> String,
) -> Result<Vec<QueueRates>, Issue> {
    let form_of = |c: &ExcessSpec| match (c.ratio, c.remaining_ppm) {
        (Some(_), _) => Some(WeightForm::Ratio),
        (None, Some(_)) => Some(WeightForm::Percent),
        (None, None) => None,
    };
    let mut form = None;
    for (i, class) in classes.iter().enumerate() {
        let here = class_at(i);
        if let Some(ratio) = class.ratio {
            if !(1..=MAX_REMAINING_RATIO).contains(&ratio) {
                return Err(Issue::at(
                    format!("{here}.bandwidth_remaining_ratio"),
                    format!("{ratio} is outside the IOS XE range"),
                )
                .hint("use a whole number from 1 to 1000"));
            }
            if class.remaining_ppm.is_some() {
                return Err(Issue::at(
                    format!("{here}.bandwidth_remaining_ratio"),
                    "a class takes one of `bandwidth_remaining` and `bandwidth_remaining_ratio`",
                ));
            }
            if let Some(j) = classes.iter().position(|c| c.has_bandwidth) {
                return Err(Issue::at(
                    format!("{}.bandwidth", class_at(j)),
                    "IOS XE refuses `bandwidth` in a policy whose classes share the excess by `bandwidth_remaining_ratio`",
                )
                .hint("give every class its share as a `bandwidth_remaining_ratio`, or every class a `bandwidth`"));
            }
        }
        match (form, form_of(class)) {
            (Some(a), Some(b)) if a != b => {
                return Err(Issue::at(&here, "one policy states excess shares as ratios or as percentages, not both")
                    .hint("give every class a `bandwidth_remaining_ratio`, or every class a `bandwidth_remaining` percentage"));
            }
            (None, Some(b)) => form = Some(b),
            _ => {}
        }
    }
    // Percentages as parts per thousand; what the configured classes leave is shared equally
    // by the others.
    let percent_left_ppt = {
        let given: u64 = classes.iter().filter_map(|c| c.remaining_ppm.map(|ppm| ppm / 1000)).sum();
        let unconfigured =
            queued.iter().filter(|&&i| classes.get(i).is_none_or(|c| c.remaining_ppm.is_none())).count()
                as u64;
        (1000u64.saturating_sub(given) / unconfigured.max(1)).max(1)
    };
    Ok(queued
        .iter()
        .map(|&i| {
            let class = classes.get(i);
            let excess_weight = match (form, class) {
                (Some(WeightForm::Ratio), Some(c)) => u64::from(c.ratio.unwrap_or(1)),
                (Some(WeightForm::Percent), Some(c)) => {
                    c.remaining_ppm.map_or(percent_left_ppt, |ppm| (ppm / 1000).max(1))
                }
                (Some(WeightForm::Percent), None) => percent_left_ppt,
                _ => 1,
            };
            QueueRates { min_bps: min_bps[i], excess_weight, flows: flows[i] }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_queue_limits() {
        // 50 ms of 1500-byte packets: 1 Gbit/s → 4167, 100 Mbit/s → 417, 10 Mbit/s → 42,
        // raised to 64.
        let limits: Vec<u32> =
            [1_000_000_000, 100_000_000, 10_000_000].into_iter().map(default_queue_limit_packets).collect();
        assert_eq!(limits, [4167, 417, 64]);
    }
}
