//! The scheduler among a CBWFQ policy's class queues, one per IOS flavour: before HQF the
//! self-clocked fair queuing of sequence numbers with the class weights ([`crate::qdisc::scfq`]);
//! under HQF and IOS XE the three-parameter scheduler ([`crate::qdisc::three_parameter`]) with
//! HQF's shares ([`crate::qdisc::hqf_policy`]) or IOS XE's minimums and excess weights
//! ([`crate::qdisc::xe_policy`]).

use super::rates::Reservations;
use super::spec::{CbwfqParams, Scheduler};
use crate::config::error::Issue;
use crate::packet::Packet;
use crate::qdisc::hqf_policy;
use crate::qdisc::scfq::Scfq;
use crate::qdisc::three_parameter::ThreeParameter;
use crate::qdisc::xe_policy;

/// The scheduler among the class queues.
#[derive(Clone, Debug)]
pub(super) enum ClassQueues {
    /// Pre-HQF: by sequence number, the weight passed with each packet.
    Scfq(Scfq),
    /// HQF (shares only) and IOS XE (minimum, then excess).
    ThreeParameter(ThreeParameter),
}

impl ClassQueues {
    pub(super) fn queue_len(&self, queue: usize) -> usize {
        match self {
            ClassQueues::Scfq(s) => s.queue_len(queue),
            ClassQueues::ThreeParameter(t) => t.queue_len(queue),
        }
    }

    /// Bytes held in `queue`, a queue of one flow (a class without `fair_queue`): only IOS
    /// XE's queues count bytes against a limit.
    pub(super) fn queue_bytes(&self, queue: usize) -> u64 {
        match self {
            ClassQueues::Scfq(_) => unreachable!("byte limits belong to IOS XE's scheduler"),
            ClassQueues::ThreeParameter(t) => t.flow_bytes(queue, 0),
        }
    }

    pub(super) fn len_packets(&self) -> usize {
        match self {
            ClassQueues::Scfq(s) => s.len_packets(),
            ClassQueues::ThreeParameter(t) => t.len_packets(),
        }
    }

    /// Appends `packet` to `queue` (flow queue `flow` of it under HQF and IOS XE); `weight`
    /// is the pre-HQF sequence-number weight.
    pub(super) fn push(&mut self, queue: usize, flow: usize, packet: Packet, weight: u64) {
        match self {
            ClassQueues::Scfq(s) => {
                s.push(queue, packet, weight);
            }
            ClassQueues::ThreeParameter(t) => t.push(queue, flow, packet),
        }
    }

    pub(super) fn take_all(&mut self) -> Vec<Packet> {
        match self {
            ClassQueues::Scfq(s) => s.take_all(),
            ClassQueues::ThreeParameter(t) => t.take_all(),
        }
    }
}

impl ClassQueues {
    /// The class queues of `params` under its scheduler: queue `q` holds the packets of class
    /// `queue_class[q]` in `flows[q]` flow queues; `classes` counts the policy's classes,
    /// class-default included; `class_at` gives a class's key path.
    pub(super) fn build(
        params: &CbwfqParams,
        rates: &Reservations,
        queue_class: &[usize],
        flows: &[usize],
        classes: usize,
        class_at: &dyn Fn(usize) -> String,
    ) -> Result<Self, Issue> {
        let bw = rates.bandwidth_bps;
        Ok(match params.scheduler.unwrap_or_default() {
            Scheduler::PreHqf => ClassQueues::Scfq(Scfq::new(queue_class.len())),
            Scheduler::Hqf => {
                // A class's own rate: its bandwidth, or its share of what priority leaves.
                let mut class_bps: Vec<Option<u64>> = params
                    .classes
                    .iter()
                    .zip(&rates.guaranteed_bps)
                    .map(|(c, b)| b.or(c.bandwidth_remaining.map(|p| rates.remaining_share_bps(p.0))))
                    .collect();
                class_bps.resize(classes, None);
                ClassQueues::ThreeParameter(ThreeParameter::new(
                    &hqf_policy::queue_rates(queue_class, &class_bps, rates.unreserved_bps(), bw, flows),
                    bw,
                ))
            }
            Scheduler::Xe => {
                let mut min_bps = rates.guaranteed_bps.clone();
                min_bps.resize(classes, None);
                let excess: Vec<xe_policy::ExcessSpec> = params
                    .classes
                    .iter()
                    .map(|c| xe_policy::ExcessSpec {
                        ratio: c.bandwidth_remaining_ratio,
                        remaining_ppm: c.bandwidth_remaining.map(|p| p.0),
                        has_bandwidth: c.bandwidth.is_some(),
                    })
                    .collect();
                ClassQueues::ThreeParameter(ThreeParameter::new(
                    &xe_policy::queue_rates(&excess, queue_class, &min_bps, flows, class_at)?,
                    bw,
                ))
            }
        })
    }
}
