//! What a CBWFQ/LLQ policy means under the hierarchical queuing framework (HQF) of classic
//! IOS 12.4(20)T and 15.x (ISR G1 and G2, 7200 with 15.x): each class queue's share of the
//! link, for the sharing half of [`super::three_parameter`] (no minimums: classic IOS is a
//! two-parameter scheduler).
//!
//! * A class with `bandwidth` (or `bandwidth remaining percent`, a share of what the priority
//!   classes leave) is served in proportion to that rate; so, when every class is backlogged,
//!   it gets its rate and no more.
//! * The bandwidth no class reserved is shared **equally** by the classes without a bandwidth
//!   of their own — class-default, and any class that only fair-queues, shapes or polices its
//!   traffic — each with at least 1 % of the interface bandwidth. ipSpace measured it on
//!   15.0(1)M: with `bandwidth percent 20` and `30` and an unconfigured class-default, "all the
//!   remaining bandwidth was used by the best-effort class-default" (ipSpace, "First HQF
//!   impressions", 2009); HQF "provides a minimum of 1% bandwidth to the class-default"
//!   (Global Knowledge, "Cisco QoS Evolution: Hierarchical Queueing Framework", 2009).
//! * Reservations may take the whole interface bandwidth (the same source: "HQF allows 100%
//!   of the interface bandwidth to be assigned").
//! * `fair-queue` is allowed in any class that is not a priority class; its flow queues are
//!   served equally (Cisco tech note 110850), and a priority class has a queue of its own
//!   whose limit `queue-limit` sets (the same note).

use super::three_parameter::QueueRates;

/// The least share of the interface bandwidth a class without a bandwidth of its own gets,
/// parts per million.
pub const MIN_UNRESERVED_SHARE_PPM: u64 = 10_000;

/// The rate of each class queue in `queued` (class indexes): `class_bps[i]` for a class with
/// a bandwidth of its own, else an equal part of `unreserved_bps`, at least 1 % of
/// `interface_bps`; `flows[i]` flow queues for class `i`.
pub fn queue_rates(
    queued: &[usize],
    class_bps: &[Option<u64>],
    unreserved_bps: u64,
    interface_bps: u64,
    flows: &[usize],
) -> Vec<QueueRates> {
    let without = queued.iter().filter(|&&i| class_bps[i].is_none()).count() as u64;
    let floor_bps = (u128::from(interface_bps) * u128::from(MIN_UNRESERVED_SHARE_PPM) / 1_000_000) as u64;
    let equal_bps = (unreserved_bps / without.max(1)).max(floor_bps).max(1);
    queued
        .iter()
        .map(|&i| QueueRates {
            min_bps: None,
            excess_weight: class_bps[i].unwrap_or(equal_bps).max(1),
            flows: flows[i],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unreserved_bandwidth_is_shared_equally_with_a_floor() {
        // 2 Mbit/s, classes of 400 and 600 kbit/s, two classes without: 500 kbit/s each.
        let weights = |class_bps: &[Option<u64>], unreserved_bps| {
            let queued: Vec<usize> = (0..class_bps.len()).collect();
            queue_rates(&queued, class_bps, unreserved_bps, 2_000_000, &vec![1; class_bps.len()])
                .iter()
                .map(|r| r.excess_weight)
                .collect::<Vec<u64>>()
        };
        assert_eq!(
            weights(&[Some(400_000), Some(600_000), None, None], 1_000_000),
            [400_000, 600_000, 500_000, 500_000]
        );
        // Everything reserved: class-default keeps 1 % (20 kbit/s).
        assert_eq!(weights(&[Some(2_000_000), None], 0), [2_000_000, 20_000]);
    }
}
