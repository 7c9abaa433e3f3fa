//! What one flow experienced crossing one observed hop: how many of its packets entered the
//! hop, how many left it, how many it dropped, and the delay of those that left.
//!
//! A hop is an egress port from the moment a packet is offered to its discipline to the
//! moment the packet reaches the node at the far end of the link — queuing, transmit ring,
//! serialization and propagation — before that node's input policy. The hop delays of a
//! packet along its path therefore add up to its end-to-end delay, and a hop's drops are its
//! discipline's drops and its link's losses. Counts cover packets created in the measured
//! window, as the flow rows do.

use crate::measure::histogram::Histogram;
use crate::measure::quantile::Quantile;
use crate::time::SimTime;

/// One flow at one observed hop, its counters and its histogram's count in the first 64
/// bytes.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct HopStats {
    /// Packets offered to the hop's discipline.
    pub arrived_packets: u64,
    /// Packets that reached the far end of the link.
    pub departed_packets: u64,
    /// Packets the hop dropped (discipline or link).
    pub dropped_packets: u64,
    delay_min_ns: u64,
    delay_sum_ns: u128,
    delay_max_ns: u64,
    histogram: Histogram,
}

impl HopStats {
    /// A packet that entered the hop at `entered` reached the far end at `now`.
    #[inline]
    pub fn on_departed(&mut self, entered: SimTime, now: SimTime) {
        let delay_ns = now.since(entered);
        if self.departed_packets == 0 {
            self.delay_min_ns = delay_ns;
        }
        self.departed_packets += 1;
        self.delay_sum_ns += delay_ns as u128;
        self.delay_min_ns = self.delay_min_ns.min(delay_ns);
        self.delay_max_ns = self.delay_max_ns.max(delay_ns);
        self.histogram.record(delay_ns);
    }

    /// Sum of the delays of the packets that left, ns.
    pub fn delay_sum_ns(&self) -> u128 {
        self.delay_sum_ns
    }

    /// Mean delay, ns.
    pub fn delay_mean_ns(&self) -> Option<f64> {
        (self.departed_packets > 0).then(|| self.delay_sum_ns as f64 / self.departed_packets as f64)
    }

    /// Smallest and largest delay, ns.
    pub fn delay_range_ns(&self) -> Option<(u64, u64)> {
        (self.departed_packets > 0).then_some((self.delay_min_ns, self.delay_max_ns))
    }

    /// Delay quantile `q`, ns.
    pub fn delay_quantile_ns(&self, q: Quantile) -> Option<f64> {
        self.histogram.quantile(q)
    }
}
