//! The running source of an open-loop flow: it emits the flow's packets on its schedule.
//!
//! Sources are open loop: they emit on their schedule whatever happens downstream. Each has
//! its own random stream, keyed on (seed, replication, flow name) — see
//! [`crate::engine::rng`]. `start` and `stop` are instants since the run began, warm-up
//! included; packets created before the warm-up ends travel normally but do not count in the
//! flow's statistics.
//!
//! A source ends at whichever comes first: its `stop` (no packet leaves at or after it) or
//! its packet count (`packets: N`, as a traffic generator's `send N` or iperf's `-n`: after
//! its N-th packet, warm-up included). A source with send jitter ([`super::send_jitter`])
//! leaves each packet a random delay after its nominal instant; `stop` applies to the
//! actual departure.

use super::generator::Generator;
use super::send_jitter::SendJitter;
use crate::engine::Rng;
use crate::ids::PortId;
use crate::packet::Packet;
use crate::time::SimTime;

/// First source port given to flows that do not set one (+ the flow's index).
pub const DEFAULT_SRC_PORT_BASE: u16 = 49_152;
/// Destination port of flows that do not set one (iperf's default).
pub const DEFAULT_DST_PORT: u16 = 5_001;

/// The packet count of a source without `packets`: more than any run can send.
pub const UNLIMITED_PACKETS: u64 = u64::MAX;

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
    /// Packets still to emit, the one due next included ([`UNLIMITED_PACKETS`] without a
    /// count).
    pub packets_left: u64,
    /// The random delay of each packet after its nominal instant, if any.
    pub send_jitter: Option<SendJitter>,
    /// The egress port at the sending node.
    pub first_port: PortId,
    /// Size of the packet due next, IP bytes.
    pub next_size_bytes: u32,
}

impl Source {
    /// A source with its generator started: the first emission is due at the returned time
    /// (delayed by a draw of `send_jitter`, if given).
    pub fn start(
        template: Packet,
        mut generator: Generator,
        mut rng: Rng,
        start: SimTime,
        start_off: bool,
        send_jitter: Option<SendJitter>,
    ) -> (Self, SimTime) {
        let nominal = generator.first(start, start_off, &mut rng);
        let first = match send_jitter {
            Some(jitter) => jitter.departure(nominal, SimTime::ZERO, &mut rng),
            None => nominal,
        };
        let next_size_bytes = generator.size_bytes().unwrap_or(template.size_bytes);
        let source = Source {
            template,
            generator,
            rng,
            stop: SimTime::ZERO,
            packets_left: UNLIMITED_PACKETS,
            send_jitter,
            first_port: PortId(0),
            next_size_bytes,
        };
        (source, first)
    }

    /// The packet emitted at `now` (its id is given as it enters the network).
    #[inline]
    pub fn packet(&self, now: SimTime, counted: bool) -> Packet {
        Packet { created: now, counted, size_bytes: self.next_size_bytes, ..self.template }
    }

    /// The next emission time after the one at `now`, or `None` once the source stops: its
    /// packet count is spent, or the next departure is at or after `stop`.
    #[inline]
    pub fn next_emission(&mut self, now: SimTime) -> Option<SimTime> {
        self.packets_left -= 1;
        if self.packets_left == 0 {
            return None;
        }
        let nominal = self.generator.next(&mut self.rng);
        if let Some(size_bytes) = self.generator.size_bytes() {
            self.next_size_bytes = size_bytes;
        }
        let at = match self.send_jitter {
            Some(jitter) => jitter.departure(nominal, now, &mut self.rng),
            None => nominal,
        };
        (at < self.stop).then_some(at)
    }
}
