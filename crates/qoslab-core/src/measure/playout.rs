//! A receiver's fixed playout (jitter) buffer: which voice packets arrive too late to be
//! played.
//!
//! The buffer is set by the first packet of a talk spurt (or of the call): it is played
//! `buffer` after it arrived, and every later packet of the spurt is played at the same
//! offset from its creation time — playout deadline = created + the first packet's network
//! delay + `buffer`. A packet that arrives after its deadline is discarded as late, which
//! for the listener is the same as lost; one that arrives exactly at it is played. The
//! mouth-to-ear delay the buffer adds is the first packet's delay plus `buffer`.
//! (A modelling choice documented with the voice-quality results; adaptive buffers that
//! re-set the offset between spurts use [`Playout::restart`].)

/// The playout state of one voice stream.
#[derive(Clone, Debug)]
pub struct Playout {
    buffer_ns: u64,
    /// Network delay + buffer of the current spurt's first packet.
    offset_ns: Option<u64>,
    /// Packets played.
    pub played_packets: u64,
    /// Packets that arrived after their playout time.
    pub late_packets: u64,
}

impl Playout {
    /// A buffer of `buffer_ns`.
    pub fn new(buffer_ns: u64) -> Self {
        Playout { buffer_ns, offset_ns: None, played_packets: 0, late_packets: 0 }
    }

    /// A new talk spurt: the next packet sets the playout offset again.
    pub fn restart(&mut self) {
        self.offset_ns = None;
    }

    /// A packet with network delay `delay_ns` arrived; returns whether it is too late.
    pub fn on_arrival(&mut self, delay_ns: u64) -> bool {
        let offset_ns = *self.offset_ns.get_or_insert(delay_ns + self.buffer_ns);
        let late = delay_ns > offset_ns;
        self.late_packets += u64::from(late);
        self.played_packets += u64::from(!late);
        late
    }

    /// The delay the buffer plays packets at (network delay of the spurt's first packet
    /// plus the buffer), ns, once a packet has arrived.
    pub fn playout_delay_ns(&self) -> Option<u64> {
        self.offset_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// A 40 ms buffer behind a first packet of 20 ms: packets are played at 60 ms after
    /// their creation. Delays 25, 60 (exactly on time) and 45 ms are played; 61 ms is late.
    #[test]
    fn one_late_packet() {
        let mut playout = Playout::new(40 * MS);
        let late: Vec<bool> = [20, 25, 60, 61, 45].iter().map(|d| playout.on_arrival(d * MS)).collect();
        assert_eq!(late, [false, false, false, true, false]);
        assert_eq!((playout.played_packets, playout.late_packets), (4, 1));
        assert_eq!(playout.playout_delay_ns(), Some(60 * MS));
    }

    /// The same trace with an 80 ms buffer loses nothing; a new spurt re-sets the offset.
    #[test]
    fn a_deeper_buffer_and_a_new_spurt() {
        let mut playout = Playout::new(80 * MS);
        assert!([20, 25, 60, 61, 45].iter().all(|d| !playout.on_arrival(d * MS)));
        playout.restart();
        assert!(!playout.on_arrival(5 * MS));
        assert!(playout.on_arrival(90 * MS), "85 ms after the new spurt's 5 ms first packet");
        assert_eq!(playout.playout_delay_ns(), Some(85 * MS));
    }
}
