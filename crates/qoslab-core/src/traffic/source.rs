//! The running source of an open-loop flow: it emits the flow's packets on its schedule.
//!
//! Sources are open loop: they emit on their schedule whatever happens downstream. Each has
//! its own random stream, keyed on (seed, replication, flow name) — see
//! [`crate::engine::rng`]. `start` and `stop` are instants since the run began, warm-up
//! included; packets created before the warm-up ends travel normally but do not count in the
//! flow's statistics.

use super::generator::Generator;
use crate::engine::Rng;
use crate::ids::PortId;
use crate::packet::Packet;
use crate::time::SimTime;

/// First source port given to flows that do not set one (+ the flow's index).
pub const DEFAULT_SRC_PORT_BASE: u16 = 49_152;
/// Destination port of flows that do not set one (iperf's default).
pub const DEFAULT_DST_PORT: u16 = 5_001;

/// A running source.
#[derive(Clone, Debug)]
pub struct Source {
    /// Header fields every packet of the flow carries (id, time and `counted` are set per
    /// packet).
    pub template: Packet,
    /// Emission schedule.
    pub generator: Generator,
    /// The flow's random stream.
    pub rng: Rng,
    /// No packet is emitted at or after this instant.
    pub stop: SimTime,
    /// The egress port at the sending node.
    pub first_port: PortId,
    /// Size of the packet due next, IP bytes.
    pub next_size_bytes: u32,
}

impl Source {
    /// A source with its generator started: the first emission is due at the returned time.
    pub fn start(
        template: Packet,
        mut generator: Generator,
        mut rng: Rng,
        start: SimTime,
        start_off: bool,
    ) -> (Self, SimTime) {
        let first = generator.first(start, start_off, &mut rng);
        let next_size_bytes = generator.size_bytes().unwrap_or(template.size_bytes);
        (
            Source { template, generator, rng, stop: SimTime::ZERO, first_port: PortId(0), next_size_bytes },
            first,
        )
    }

    /// The packet emitted at `now` (its id is given as it enters the network).
    #[inline]
    pub fn packet(&self, now: SimTime, counted: bool) -> Packet {
        Packet { created: now, counted, size_bytes: self.next_size_bytes, ..self.template }
    }

    /// The next emission time after the current one, or `None` once the source stops.
    #[inline]
    pub fn next_emission(&mut self) -> Option<SimTime> {
        let at = self.generator.next(&mut self.rng);
        if let Some(size_bytes) = self.generator.size_bytes() {
            self.next_size_bytes = size_bytes;
        }
        (at < self.stop).then_some(at)
    }
}
