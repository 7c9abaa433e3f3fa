//! The single-rate three-colour marker of RFC 2697 (srTCM).
//!
//! Two buckets share one fill rate, the committed information rate (CIR): the committed
//! bucket C, `cbs_bytes` deep, and the excess bucket E, `ebs_bytes` deep. Both start full.
//! RFC 2697 adds one token CIR times a second, to C while C is below CBS, otherwise to E
//! while E is below EBS; so E only ever receives what overflows C. Here the refill is done
//! when a packet arrives, for the whole time since the previous one: the credit
//! Δt · CIR first tops C up to CBS and what is left tops E up to EBS — the same state the
//! RFC's token-at-a-time rule reaches, without rounding, because tokens are kept in
//! bits × 10⁹ (one byte is 8 · 10⁹ units; Δt ns at R bit/s adds Δt · R units).
//!
//! Colouring a packet of B bytes (RFC 2697 §3):
//! * colour-blind: green if C holds at least B (C −= B); else yellow if E holds at least B
//!   (E −= B); else red, taking nothing;
//! * colour-aware, given the colour the packet already carries: green only if it arrived
//!   green and C holds B; yellow if it arrived green or yellow and E holds B; else red. A
//!   packet is never coloured better than it arrived.
//!
//! The comparison is "at least": a packet exactly the size of the tokens conforms
//! (RFC 2697 writes it `Tc − B ≥ 0`). Colour-blind operation is colour-aware operation
//! with every packet arriving green, which is how it is computed here. CIR is in bit/s
//! (the RFC counts bytes per second; the difference is a factor 8 in the units only).
//!
//! References: RFC 2697, "A Single Rate Three Color Marker", §2–§3.

use super::{Color, UNITS_PER_BYTE};
use crate::time::SimTime;

/// An RFC 2697 single-rate three-colour meter.
#[derive(Clone, Debug)]
pub struct SrTcm {
    cir_bps: u64,
    cbs_units: u128,
    ebs_units: u128,
    committed_units: u128,
    excess_units: u128,
    last: SimTime,
}

impl SrTcm {
    /// Both buckets full, filling at `cir_bps`; C is `cbs_bytes` deep, E `ebs_bytes`.
    pub fn new(cir_bps: u64, cbs_bytes: u64, ebs_bytes: u64) -> Self {
        let cbs_units = cbs_bytes as u128 * UNITS_PER_BYTE;
        let ebs_units = ebs_bytes as u128 * UNITS_PER_BYTE;
        SrTcm {
            cir_bps,
            cbs_units,
            ebs_units,
            committed_units: cbs_units,
            excess_units: ebs_units,
            last: SimTime::ZERO,
        }
    }

    /// Tokens credited since the last packet: C first, its overflow into E.
    #[inline]
    fn refill(&mut self, now: SimTime) {
        let credit = now.since(self.last) as u128 * self.cir_bps as u128;
        self.last = now;
        let room_c = self.cbs_units - self.committed_units;
        if credit <= room_c {
            self.committed_units += credit;
        } else {
            self.committed_units = self.cbs_units;
            self.excess_units = (self.excess_units + (credit - room_c)).min(self.ebs_units);
        }
    }

    /// Colours a packet of `size_bytes` arriving at `now` that already carries colour
    /// `pre` (colour-aware mode; pass [`Color::Green`] for colour-blind mode).
    #[inline]
    pub fn meter(&mut self, now: SimTime, size_bytes: u32, pre: Color) -> Color {
        self.refill(now);
        let need = size_bytes as u128 * UNITS_PER_BYTE;
        if pre == Color::Green && self.committed_units >= need {
            self.committed_units -= need;
            Color::Green
        } else if pre != Color::Red && self.excess_units >= need {
            self.excess_units -= need;
            Color::Yellow
        } else {
            Color::Red
        }
    }

    /// Colour-blind metering.
    #[inline]
    #[cfg(test)]
    pub fn color_blind(&mut self, now: SimTime, size_bytes: u32) -> Color {
        self.meter(now, size_bytes, Color::Green)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Green as G, Red as R, Yellow as Y};

    const MS: u64 = 1_000_000;

    /// Colours of `(time_ms, bytes, pre-colour)` arrivals.
    fn run(m: &mut SrTcm, train: &[(u64, u32, Color)]) -> Vec<Color> {
        train.iter().map(|&(t, b, pre)| m.meter(SimTime(t * MS), b, pre)).collect()
    }

    #[test]
    fn colour_blind_sequence() {
        // CIR 8 kbit/s = 1000 B/s; CBS 300 B, EBS 200 B, both full at 0.
        let mut m = SrTcm::new(8_000, 300, 200);
        let train = [
            (0, 100, G), // C 300 → 200
            (0, 100, G), // C → 100
            (0, 100, G), // C → 0: the third fits exactly
            (0, 100, G), // E 200 → 100
            (0, 100, G), // E → 0
            (0, 100, G), // nothing left: red, nothing taken
            // 100 ms = 100 B of credit, all into C (C is below CBS).
            (100, 100, G), // C 100 ≥ 100: exactly equal conforms
            (100, 1, G),   // C 0, E 0: red
            // 150 ms later: 150 B; C takes it all.
            (250, 101, G), // C 150 → 49
            (250, 50, G),  // C 49 < 50, E 0 < 50: red
        ];
        assert_eq!(run(&mut m, &train), [G, G, G, Y, Y, R, G, R, G, R]);
    }

    #[test]
    fn overflow_of_c_fills_e() {
        let mut m = SrTcm::new(8_000, 300, 200);
        // Empty both buckets.
        assert_eq!(m.color_blind(SimTime(0), 300), G);
        assert_eq!(m.color_blind(SimTime(0), 200), Y);
        // 400 ms = 400 B: C fills to 300, the other 100 B go to E.
        assert_eq!(m.color_blind(SimTime(400 * MS), 300), G); // C 300 → 0
        assert_eq!(m.color_blind(SimTime(400 * MS), 100), Y); // E 100 → 0, exactly
        assert_eq!(m.color_blind(SimTime(400 * MS), 1), R);
        // A long idle period fills C to CBS and E to EBS, no further.
        let hour = SimTime(3_600_000 * MS);
        assert_eq!(m.color_blind(hour, 301), R); // larger than either bucket
        assert_eq!(m.color_blind(hour, 300), G);
        assert_eq!(m.color_blind(hour, 200), Y);
        assert_eq!(m.color_blind(hour, 1), R);
    }

    #[test]
    fn colour_aware_never_upgrades() {
        let mut m = SrTcm::new(8_000, 300, 200);
        let train = [
            (0, 100, Y), // C full, but yellow stays yellow: E 200 → 100
            (0, 100, R), // red stays red, even with tokens
            (0, 100, G), // C 300 → 200
            (0, 200, G), // C 200 → 0 (exactly)
            (0, 100, G), // C 0: downgraded to yellow, E 100 → 0
            (0, 1, Y),   // E 0: red
        ];
        assert_eq!(run(&mut m, &train), [Y, R, G, G, Y, R]);
    }
}
