//! Round-trip time estimation and the retransmission timeout, per RFC 6298.
//!
//! The first measurement R sets SRTT = R and RTTVAR = R/2; later ones update
//! RTTVAR ← ¾·RTTVAR + ¼·|SRTT − R| and then SRTT ← ⅞·SRTT + ⅛·R. The timeout is
//! RTO = SRTT + max(G, 4·RTTVAR), never below the minimum (RFC 6298 §2.4: 1 s; Linux uses
//! 200 ms) nor above the maximum (60 s here). Before any measurement RTO is 1 s (§2.1).
//! Each expiry doubles the timeout ("back-off", §5.5) until a new measurement is taken.
//! Karn's rule — never measure a segment that was retransmitted — is the sender's duty
//! ([`super::sender`]). All arithmetic is in integer nanoseconds.

/// Initial RTO before any measurement, ns (RFC 6298 §2.1).
pub const INITIAL_RTO_NS: u64 = 1_000_000_000;
/// Default minimum RTO, ns (RFC 6298 §2.4).
pub const DEFAULT_MIN_RTO_NS: u64 = 1_000_000_000;
/// Maximum RTO, ns (RFC 6298 §2.5 allows a cap of at least 60 s).
pub const MAX_RTO_NS: u64 = 60_000_000_000;
/// Clock granularity G, ns.
pub const CLOCK_GRANULARITY_NS: u64 = 1_000_000;

/// The RFC 6298 estimator of one sender.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt_ns: Option<u64>,
    rttvar_ns: u64,
    rto_ns: u64,
    min_rto_ns: u64,
    backoffs: u32,
}

impl RttEstimator {
    /// An estimator with no measurement yet and the given minimum RTO.
    pub fn new(min_rto_ns: u64) -> Self {
        RttEstimator {
            srtt_ns: None,
            rttvar_ns: 0,
            rto_ns: INITIAL_RTO_NS.max(min_rto_ns),
            min_rto_ns,
            backoffs: 0,
        }
    }

    /// Takes a measurement `r_ns`; clears any back-off.
    pub fn sample(&mut self, r_ns: u64) {
        match self.srtt_ns {
            None => {
                self.srtt_ns = Some(r_ns);
                self.rttvar_ns = r_ns / 2;
            }
            Some(srtt) => {
                self.rttvar_ns = (3 * self.rttvar_ns + srtt.abs_diff(r_ns)) / 4;
                self.srtt_ns = Some((7 * srtt + r_ns) / 8);
            }
        }
        let srtt = self.srtt_ns.expect("set above");
        self.rto_ns =
            (srtt + CLOCK_GRANULARITY_NS.max(4 * self.rttvar_ns)).clamp(self.min_rto_ns, MAX_RTO_NS);
        self.backoffs = 0;
    }

    /// The timer expired: double the timeout (up to the maximum).
    pub fn back_off(&mut self) {
        self.backoffs += 1;
    }

    /// The timeout to arm now, ns.
    pub fn rto_ns(&self) -> u64 {
        self.rto_ns.checked_shl(self.backoffs).unwrap_or(u64::MAX).min(MAX_RTO_NS)
    }

    /// The smoothed RTT, ns, once measured.
    pub fn srtt_ns(&self) -> Option<u64> {
        self.srtt_ns
    }

    /// RFC 6298 §5.7: if the SYN or SYN-ACK was retransmitted and no measurement was
    /// taken, the RTO after the handshake is 3 s.
    pub fn handshake_retransmitted(&mut self) {
        if self.srtt_ns.is_none() {
            self.rto_ns = 3 * INITIAL_RTO_NS;
            self.backoffs = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn first_and_later_samples_follow_rfc_6298() {
        let mut rtt = RttEstimator::new(200 * MS);
        assert_eq!(rtt.rto_ns(), 1000 * MS);
        // First sample 100 ms: SRTT 100, RTTVAR 50, RTO = 100 + 200 = 300 ms.
        rtt.sample(100 * MS);
        assert_eq!((rtt.srtt_ns(), rtt.rto_ns()), (Some(100 * MS), 300 * MS));
        // 140 ms: RTTVAR = (3·50 + 40)/4 = 47.5, SRTT = (7·100 + 140)/8 = 105,
        // RTO = 105 + 190 = 295 ms.
        rtt.sample(140 * MS);
        assert_eq!((rtt.srtt_ns(), rtt.rto_ns()), (Some(105 * MS), 295 * MS));
    }

    #[test]
    fn minimum_and_back_off() {
        let mut rtt = RttEstimator::new(DEFAULT_MIN_RTO_NS);
        rtt.sample(10 * MS);
        assert_eq!(rtt.rto_ns(), 1000 * MS);
        rtt.back_off();
        assert_eq!(rtt.rto_ns(), 2000 * MS);
        rtt.back_off();
        assert_eq!(rtt.rto_ns(), 4000 * MS);
        for _ in 0..10 {
            rtt.back_off();
        }
        assert_eq!(rtt.rto_ns(), MAX_RTO_NS);
        // A new measurement ends the back-off.
        rtt.sample(10 * MS);
        assert_eq!(rtt.rto_ns(), 1000 * MS);
    }

    #[test]
    fn retransmitted_handshake_leaves_three_seconds() {
        let mut rtt = RttEstimator::new(DEFAULT_MIN_RTO_NS);
        rtt.back_off();
        rtt.handshake_retransmitted();
        assert_eq!(rtt.rto_ns(), 3000 * MS);
    }
}
