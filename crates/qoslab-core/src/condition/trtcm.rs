//! The two-rate three-colour marker of RFC 2698 (trTCM).
//!
//! Two independent buckets: the peak bucket P, `pbs_bytes` deep, filling at the peak
//! information rate (PIR), and the committed bucket C, `cbs_bytes` deep, filling at the
//! committed information rate (CIR ≤ PIR). Both start full, and each overflows on its own —
//! unlike RFC 2697, nothing spills from one bucket into the other. The refill happens at
//! each packet arrival for the time since the previous one, in exact integer units
//! (bits × 10⁹; Δt ns at R bit/s adds Δt · R units).
//!
//! Colouring a packet of B bytes (RFC 2698 §3):
//! * colour-blind: red if P holds less than B (nothing taken); else yellow if C holds less
//!   than B (P −= B); else green (P −= B and C −= B);
//! * colour-aware: red if it arrived red or P holds less than B; else yellow if it arrived
//!   yellow or C holds less than B (P −= B); else green (both −= B). Marking only ever
//!   keeps or worsens the colour a packet arrived with.
//!
//! A packet exactly the size of the tokens in a bucket fits it. Colour-blind operation is
//! colour-aware operation with every packet arriving green. Rates are in bit/s (the RFC
//! counts bytes per second).
//!
//! References: RFC 2698, "A Two Rate Three Color Marker", §2–§3.

use super::{Color, UNITS_PER_BYTE};
use crate::time::SimTime;

/// An RFC 2698 two-rate three-colour meter.
#[derive(Clone, Debug)]
pub struct TrTcm {
    cir_bps: u64,
    pir_bps: u64,
    cbs_units: u128,
    pbs_units: u128,
    committed_units: u128,
    peak_units: u128,
    last: SimTime,
}

impl TrTcm {
    /// Both buckets full: C `cbs_bytes` deep filling at `cir_bps`, P `pbs_bytes` deep
    /// filling at `pir_bps`.
    pub fn new(cir_bps: u64, cbs_bytes: u64, pir_bps: u64, pbs_bytes: u64) -> Self {
        let cbs_units = cbs_bytes as u128 * UNITS_PER_BYTE;
        let pbs_units = pbs_bytes as u128 * UNITS_PER_BYTE;
        TrTcm {
            cir_bps,
            pir_bps,
            cbs_units,
            pbs_units,
            committed_units: cbs_units,
            peak_units: pbs_units,
            last: SimTime::ZERO,
        }
    }

    /// Colours a packet of `size_bytes` arriving at `now` that already carries colour
    /// `pre` (colour-aware mode; pass [`Color::Green`] for colour-blind mode).
    #[inline]
    pub fn meter(&mut self, now: SimTime, size_bytes: u32, pre: Color) -> Color {
        let elapsed_ns = now.since(self.last) as u128;
        self.last = now;
        self.committed_units = (self.committed_units + elapsed_ns * self.cir_bps as u128).min(self.cbs_units);
        self.peak_units = (self.peak_units + elapsed_ns * self.pir_bps as u128).min(self.pbs_units);
        let need = size_bytes as u128 * UNITS_PER_BYTE;
        if pre == Color::Red || self.peak_units < need {
            Color::Red
        } else if pre == Color::Yellow || self.committed_units < need {
            self.peak_units -= need;
            Color::Yellow
        } else {
            self.peak_units -= need;
            self.committed_units -= need;
            Color::Green
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Green as G, Red as R, Yellow as Y};

    const MS: u64 = 1_000_000;

    fn run(m: &mut TrTcm, train: &[(u64, u32, Color)]) -> Vec<Color> {
        train.iter().map(|&(t, b, pre)| m.meter(SimTime(t * MS), b, pre)).collect()
    }

    #[test]
    fn colour_blind_sequence() {
        // CIR 8 kbit/s = 1000 B/s, CBS 200 B; PIR 16 kbit/s = 2000 B/s, PBS 400 B.
        let mut m = TrTcm::new(8_000, 200, 16_000, 400);
        let train = [
            (0, 100, G), // P 400 → 300, C 200 → 100
            (0, 100, G), // P → 200, C → 0 (exactly)
            (0, 100, G), // C 0 < 100: yellow, P → 100
            (0, 100, G), // yellow, P → 0 (exactly)
            (0, 1, G),   // P 0 < 1: red
            // 50 ms: P +100 → 100, C +50 → 50.
            (50, 100, G), // P fits exactly, C 50 < 100: yellow, P → 0
            // 50 ms more: P +100 → 100, C +50 → 100.
            (100, 100, G), // both fit exactly: green
            (100, 1, G),   // P 0: red
            // An hour: both full, no more (P 400, C 200).
            (3_600_000, 401, G), // larger than P: red
            (3_600_000, 201, G), // fits P, not C: yellow, P → 199
            (3_600_000, 200, G), // P 199 < 200: red although C is full
        ];
        assert_eq!(run(&mut m, &train), [G, G, Y, Y, R, Y, G, R, R, Y, R]);
    }

    #[test]
    fn colour_aware_never_upgrades() {
        let mut m = TrTcm::new(8_000, 200, 16_000, 400);
        let train = [
            (0, 100, R), // red stays red, nothing taken
            (0, 100, Y), // yellow stays yellow with C full: P 400 → 300, C untouched
            (0, 200, G), // green: P → 100, C 200 → 0
            (0, 100, G), // C 0: downgraded to yellow, P → 0
            (0, 1, Y),   // P 0: red
        ];
        assert_eq!(run(&mut m, &train), [R, Y, G, Y, R]);
    }
}
