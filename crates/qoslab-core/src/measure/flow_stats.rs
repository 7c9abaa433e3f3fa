//! Per-flow counters and one-way delay statistics, streaming and in constant memory.
//!
//! Only packets created after the warm-up count (`Packet::counted`); each of them ends as
//! received, dropped or still in flight when the run stops. In-flight packets are what
//! remains (`sent − received − dropped`); after every run the check that this is never
//! negative guards against counting a packet twice, and the network-wide conservation
//! check counts the packets really held in queues and on links.

use super::drops::{DropCounters, DropReason};
use super::histogram::Histogram;
use super::jitter::Jitter;
use super::quantile::Quantile;
use super::receipt::Receipt;
use super::series::Series;
use super::voice::VoiceStats;
use crate::engine::prefetch::prefetch;
use crate::measure::hop_stats::HopStats;
use crate::packet::Packet;
use crate::packet::NO_HOP;
use crate::time::SimTime;

/// Streaming statistics of one flow.
///
/// Laid out for the hot path, in cache lines of 64 bytes: what a created or delivered packet
/// counts first (with the options a packet's fate looks at), then the delay and the hops, then
/// the jitter estimators, then the delay histogram (its count in the jitter's last line) and
/// the drops; with many flows each line touched is a likely cache miss.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct FlowStats {
    /// What a listener hears, for a voice flow.
    pub voice: Option<Box<VoiceStats>>,
    /// Per-interval series, when asked for.
    pub series: Option<Box<Series>>,
    /// Packets created by the source (after the warm-up).
    pub sent_packets: u64,
    /// Bytes (layer 3) created by the source.
    pub sent_bytes: u64,
    /// Packets delivered to the destination.
    pub received_packets: u64,
    /// Bytes (layer 3) delivered to the destination.
    pub received_bytes: u64,
    /// Received packets whose ECN field said CE (congestion experienced, RFC 3168).
    pub ce_received_packets: u64,
    /// Packets that arrived during the measured window, whenever they were created (the
    /// receiver's view, for throughput).
    pub arrived_in_window_packets: u64,
    /// Their bytes (layer 3).
    pub arrived_in_window_bytes: u64,
    delay_min_ns: u64,
    delay_sum_ns: u128,
    delay_max_ns: u64,
    /// Per observed hop, in the order of the observed ports.
    pub hops: Vec<HopStats>,
    /// Jitter estimators.
    pub jitter: Jitter,
    delay_histogram: Histogram,
    /// Packets dropped on the way, by reason.
    pub drops: DropCounters,
}

impl FlowStats {
    /// Empty statistics for a flow with the given nominal interval (for deviation jitter).
    pub fn new(nominal_interval_ns: u64, gap_threshold_ns: u64) -> Self {
        FlowStats {
            hops: Vec::new(),
            sent_packets: 0,
            sent_bytes: 0,
            received_packets: 0,
            received_bytes: 0,
            arrived_in_window_packets: 0,
            arrived_in_window_bytes: 0,
            ce_received_packets: 0,
            drops: DropCounters::default(),
            delay_sum_ns: 0,
            delay_min_ns: u64::MAX,
            delay_max_ns: 0,
            delay_histogram: Histogram::default(),
            jitter: Jitter::new(nominal_interval_ns, gap_threshold_ns),
            voice: None,
            series: None,
        }
    }

    /// The source created `packet`.
    #[inline]
    pub fn on_sent(&mut self, packet: &Packet) {
        self.sent_packets += 1;
        self.sent_bytes += packet.size_bytes as u64;
        if let Some(voice) = &mut self.voice {
            voice.on_sent(packet.created);
        }
    }

    /// A packet was delivered: counted as received if it was created in the measured
    /// window, as an arrival if it came in the window.
    #[inline]
    pub fn on_receipt(&mut self, receipt: &Receipt) {
        if receipt.in_window {
            self.arrived_in_window_packets += 1;
            self.arrived_in_window_bytes += receipt.size_bytes as u64;
        }
        if !receipt.counted {
            return;
        }
        let (created, now) = (receipt.created, receipt.delivered);
        let delay_ns = receipt.delay_ns();
        self.received_packets += 1;
        self.received_bytes += receipt.size_bytes as u64;
        self.ce_received_packets += receipt.ce as u64;
        self.delay_sum_ns += delay_ns as u128;
        self.delay_min_ns = self.delay_min_ns.min(delay_ns);
        self.delay_max_ns = self.delay_max_ns.max(delay_ns);
        self.delay_histogram.record(delay_ns);
        self.jitter.record(created, now);
        if let Some(voice) = &mut self.voice {
            voice.on_received(created, now);
        }
        if let Some(series) = &mut self.series {
            series.on_delivered(created, now, receipt.size_bytes, self.jitter.rfc3550_ns());
        }
    }

    /// Requests the cache lines [`Self::on_receipt`] of a packet delayed by `delay_ns`
    /// touches, but its histogram counter (see [`crate::measure::receipts`]).
    #[inline]
    pub fn prefetch_receipt_lines(&self, delay_ns: u64) {
        prefetch(self);
        prefetch(&self.arrived_in_window_bytes);
        prefetch(&self.jitter);
        self.delay_histogram.prefetch_slot(delay_ns);
    }

    /// Requests the histogram counter a packet delayed by `delay_ns` will count in, if its
    /// range has counters already.
    #[inline]
    pub fn prefetch_histogram_counter(&self, delay_ns: u64) {
        self.delay_histogram.prefetch_counter(delay_ns);
    }

    /// `packet` was dropped for `reason` at `now` (its bytes as its source sent them, even
    /// inside a tunnel).
    #[inline]
    pub fn on_dropped(&mut self, packet: &Packet, reason: DropReason, now: SimTime) {
        self.drops.record(reason, packet.inner_size_bytes());
        if packet.hop_slot != NO_HOP {
            self.hops[packet.hop_slot as usize].dropped_packets += 1;
        }
        if let Some(voice) = &mut self.voice {
            voice.on_lost(packet.created);
        }
        if let Some(series) = &mut self.series {
            series.on_lost(now);
        }
    }

    /// Mean one-way delay of received packets, ns (`None` if none arrived).
    pub fn delay_mean_ns(&self) -> Option<f64> {
        (self.received_packets > 0).then(|| self.delay_sum_ns as f64 / self.received_packets as f64)
    }

    /// Smallest one-way delay, ns.
    pub fn delay_min_ns(&self) -> Option<u64> {
        (self.received_packets > 0).then_some(self.delay_min_ns)
    }

    /// Largest one-way delay, ns.
    pub fn delay_max_ns(&self) -> Option<u64> {
        (self.received_packets > 0).then_some(self.delay_max_ns)
    }

    /// One-way delays at the ascending quantiles `qs`, ns, as [`Self::delay_quantile_ns`]
    /// gives each; empty when no packet arrived.
    pub fn delay_quantiles_ns(&self, qs: &[Quantile]) -> Vec<f64> {
        let (low, high) = (self.delay_min_ns as f64, self.delay_max_ns as f64);
        self.delay_histogram.quantiles(qs).into_iter().map(|d| d.clamp(low, high)).collect()
    }

    /// One-way delay quantile, ns (within 0.4 %, see [`Histogram`]), never outside the
    /// observed minimum and maximum.
    pub fn delay_quantile_ns(&self, q: Quantile) -> Option<f64> {
        let estimate = self.delay_histogram.quantile(q)?;
        Some(estimate.clamp(self.delay_min_ns as f64, self.delay_max_ns as f64))
    }
}
