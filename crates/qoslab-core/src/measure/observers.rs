//! Everything that watches packets come and go: the per-flow statistics (with their voice
//! and series state) and the ΔQ accounting of applications. The network calls one method
//! per packet event; each observer takes what it needs from it. Only packets created in the
//! measured window are observed.

use super::drops::DropReason;
use super::flow_stats::FlowStats;
use super::invariant::InvariantError;
use super::quality::Quality;
use super::receipt::Receipt;
use super::receipts::{Receipts, DEFER_FROM_FLOWS};
use super::trace::Trace;
use crate::ids::{FlowId, Table};
use crate::packet::{Packet, SegmentStore};
use crate::time::SimTime;

/// The run's observers.
#[derive(Clone, Debug)]
pub struct Observers {
    /// Per flow row.
    pub flows: Table<FlowId, FlowStats>,
    /// ΔQ accounting, when the scenario has a `measure` section that asks for it.
    pub quality: Option<Box<Quality>>,
    /// The per-packet trace, when the run records one.
    pub trace: Option<Box<Trace>>,
    /// Deliveries not counted against their flows yet, when counting them is deferred.
    receipts: Option<Box<Receipts>>,
}

impl Observers {
    /// The observers of a run: deliveries are counted a few deliveries late when the flows
    /// are many and none counts what a listener hears or per-interval series (see
    /// [`crate::measure::receipts`]).
    pub fn new(
        flows: Table<FlowId, FlowStats>,
        quality: Option<Box<Quality>>,
        trace: Option<Box<Trace>>,
    ) -> Self {
        let deferred =
            flows.len() >= DEFER_FROM_FLOWS && flows.iter().all(|f| f.voice.is_none() && f.series.is_none());
        Observers { flows, quality, trace, receipts: deferred.then(Box::default) }
    }

    /// A counted packet was created.
    #[inline]
    pub fn on_sent(&mut self, packet: &Packet) {
        self.flows[packet.flow].on_sent(packet);
        if let Some(quality) = &mut self.quality {
            quality.on_sent(packet);
        }
    }

    /// `packet` reached its destination at `now`, counted against its flow if it was created
    /// in the measured window (`in_window` is then true) and as an arrival if `in_window`.
    #[inline]
    pub fn on_delivered(&mut self, packet: &Packet, now: SimTime, in_window: bool) {
        let receipt = Receipt::of(packet, now, in_window);
        match &mut self.receipts {
            Some(receipts) => receipts.push(receipt, &mut self.flows),
            None => self.flows[packet.flow].on_receipt(&receipt),
        }
        if packet.counted {
            if let Some(quality) = &mut self.quality {
                quality.on_received(packet, now);
            }
        }
    }

    /// `packet` leaves the network at `now`, dropped for `reason` (after its trace row, which
    /// may read its segment): counted in the run's `dropped_packets` and, if it is counted,
    /// against its flow; its TCP segment's slot in `segments`, if any, is freed. Every drop,
    /// by a discipline, a link or an input policy, ends a packet's life here.
    #[inline]
    pub fn on_dropped(
        &mut self,
        packet: &Packet,
        reason: DropReason,
        now: SimTime,
        dropped_packets: &mut u64,
        segments: &mut SegmentStore,
    ) {
        *dropped_packets += 1;
        if packet.counted {
            self.flows[packet.flow].on_dropped(packet, reason, now);
            if let Some(quality) = &mut self.quality {
                quality.on_dropped(packet, now);
            }
        }
        if let Some(segment) = packet.segment {
            segments.release(segment);
        }
    }

    /// A counted packet was offered to an observed port's discipline (`hop_slot` and
    /// `hop_in` set).
    #[inline]
    pub fn on_hop_arrival(&mut self, packet: &Packet) {
        self.flows[packet.flow].hops[packet.hop_slot as usize].arrived_packets += 1;
        if let Some(quality) = &mut self.quality {
            quality.on_hop_arrival(packet);
        }
    }

    /// A counted packet reached the far end of an observed port's link at `now`.
    #[inline]
    pub fn on_hop_departure(&mut self, packet: &Packet, now: SimTime) {
        self.flows[packet.flow].hops[packet.hop_slot as usize].on_departed(packet.hop_in, now);
        if let Some(quality) = &mut self.quality {
            quality.on_hop_departure(packet, now);
        }
    }

    /// The observers agree with each other (after [`Observers::finish`]): the ΔQ accounts
    /// with the flows' counters, and each voice flow's counts with its flow's.
    pub fn check(&self) -> Result<(), InvariantError> {
        if let Some(quality) = &self.quality {
            quality.check(&self.flows)?;
        }
        for (f, stats) in self.flows.iter_enumerated() {
            let Some(voice) = &stats.voice else { continue };
            let c = &voice.call;
            let expected = (stats.sent_packets, stats.received_packets, stats.drops.total_packets());
            let got = (c.sent_packets, c.played_packets + c.late_packets, c.lost_packets);
            if got != expected {
                return Err(InvariantError::VoiceCounts { flow_row: f, got, expected });
            }
        }
        Ok(())
    }

    /// The run ended at `end`: open intervals are closed.
    pub fn finish(&mut self, end: SimTime) {
        if let Some(receipts) = &mut self.receipts {
            receipts.flush(&mut self.flows);
        }
        for stats in &mut self.flows {
            if let Some(series) = &mut stats.series {
                series.finish();
            }
        }
        if let Some(quality) = &mut self.quality {
            quality.finish(end);
        }
    }
}
