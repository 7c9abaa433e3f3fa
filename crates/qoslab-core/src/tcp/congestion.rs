//! The congestion window: slow start and congestion avoidance, and what a loss does to
//! them, for NewReno and CUBIC.
//!
//! Both grow the window the same way below the slow-start threshold: by the bytes newly
//! acknowledged, at most one MSS per ACK (RFC 5681 §3.1, with appropriate byte counting's
//! limit L = 1 MSS). Above it NewReno adds one MSS per window of acknowledged bytes
//! (RFC 5681 §3.1) and CUBIC follows its cubic function ([`super::cubic`], RFC 9438). On a
//! loss detected by duplicate ACKs the threshold becomes max(FlightSize/2, 2·MSS) for
//! NewReno (RFC 5681 eq. 4) or max(cwnd·β, 2·MSS) with β = 0.7 for CUBIC (RFC 9438 §4.6);
//! fast recovery itself (window inflation, partial ACKs) belongs to the sender
//! ([`super::sender`], RFC 6582). A retransmission timeout sets the window to one MSS (the
//! loss window, RFC 5681 §3.1) and the threshold the same way as a loss — unless the
//! sender says the loss was already answered (a timeout during fast recovery, or one
//! repeating the previous timeout with nothing acknowledged in between): then the
//! threshold stays (RFC 5681 §3.1; Linux's `tcp_enter_loss` in `net/ipv4/tcp_input.c`);
//! the sender's header gives the rule.

use super::cubic::Cubic;
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::Deserialize;

/// Which congestion control a connection runs.
#[derive(Copy, Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CongestionControl {
    /// RFC 5681 with NewReno fast recovery (RFC 6582).
    #[default]
    Newreno,
    /// CUBIC (RFC 9438) with the same fast recovery.
    Cubic,
}

/// The window state of one sender.
#[derive(Clone, Debug)]
pub struct Congestion {
    /// Maximum segment size, bytes.
    pub mss_bytes: u64,
    /// Congestion window, bytes.
    pub cwnd_bytes: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh_bytes: u64,
    /// Bytes acknowledged in congestion avoidance since the window last grew (NewReno).
    avoidance_acked_bytes: u64,
    cubic: Option<Cubic>,
}

impl Congestion {
    /// A window of `initial_segments` MSS with no threshold yet.
    pub fn new(kind: CongestionControl, mss_bytes: u64, initial_segments: u64) -> Self {
        Congestion {
            mss_bytes,
            cwnd_bytes: initial_segments * mss_bytes,
            ssthresh_bytes: u64::MAX,
            avoidance_acked_bytes: 0,
            cubic: (kind == CongestionControl::Cubic).then(Cubic::default),
        }
    }

    /// Whether the window is below the slow-start threshold.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd_bytes < self.ssthresh_bytes
    }

    /// `acked_bytes` of new data were acknowledged at `now` outside loss recovery;
    /// `srtt_ns` is the smoothed RTT (CUBIC looks one RTT ahead).
    pub fn on_ack(&mut self, acked_bytes: u64, now: SimTime, srtt_ns: u64) {
        if self.in_slow_start() {
            self.cwnd_bytes += acked_bytes.min(self.mss_bytes);
            return;
        }
        match &mut self.cubic {
            Some(cubic) => {
                self.cwnd_bytes = cubic.on_ack(self.cwnd_bytes, self.mss_bytes, acked_bytes, now, srtt_ns);
            }
            None => {
                self.avoidance_acked_bytes += acked_bytes;
                if self.avoidance_acked_bytes >= self.cwnd_bytes {
                    self.avoidance_acked_bytes -= self.cwnd_bytes;
                    self.cwnd_bytes += self.mss_bytes;
                }
            }
        }
    }

    /// A loss was detected with `flight_bytes` outstanding: sets the new threshold (the
    /// sender then runs fast recovery).
    pub fn on_loss(&mut self, flight_bytes: u64) {
        self.avoidance_acked_bytes = 0;
        self.ssthresh_bytes = match &mut self.cubic {
            Some(cubic) => cubic.on_loss(self.cwnd_bytes, self.mss_bytes),
            None => (flight_bytes / 2).max(2 * self.mss_bytes),
        };
    }

    /// The retransmission timer expired with `flight_bytes` outstanding. The threshold is
    /// lowered only when `already_reduced` is false: a timeout inside a loss episode whose
    /// reduction was already made keeps it.
    pub fn on_timeout(&mut self, flight_bytes: u64, already_reduced: bool) {
        if already_reduced {
            self.avoidance_acked_bytes = 0;
        } else {
            self.on_loss(flight_bytes);
        }
        self.cwnd_bytes = self.mss_bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newreno_slow_start_then_one_mss_per_window() {
        let mut cc = Congestion::new(CongestionControl::Newreno, 1000, 2);
        // Slow start: +1 MSS per ACK of a full segment, at most 1 MSS per ACK.
        cc.on_ack(1000, SimTime::ZERO, 0);
        cc.on_ack(3000, SimTime::ZERO, 0);
        assert_eq!(cc.cwnd_bytes, 4000);
        // Threshold at 4000: avoidance adds 1 MSS after a window's worth (4000 B) of ACKs.
        cc.ssthresh_bytes = 4000;
        for _ in 0..3 {
            cc.on_ack(1000, SimTime::ZERO, 0);
        }
        assert_eq!(cc.cwnd_bytes, 4000);
        cc.on_ack(1000, SimTime::ZERO, 0);
        assert_eq!(cc.cwnd_bytes, 5000);
    }

    #[test]
    fn loss_halves_the_flight_and_a_timeout_leaves_one_segment() {
        let mut cc = Congestion::new(CongestionControl::Newreno, 1000, 10);
        cc.on_loss(9000);
        assert_eq!(cc.ssthresh_bytes, 4500);
        cc.on_loss(3000);
        assert_eq!(cc.ssthresh_bytes, 2000);
        cc.on_timeout(20_000, false);
        assert_eq!((cc.ssthresh_bytes, cc.cwnd_bytes), (10_000, 1000));
        // A timeout inside an episode already answered keeps the threshold.
        cc.cwnd_bytes = 30_000;
        cc.on_timeout(40_000, true);
        assert_eq!((cc.ssthresh_bytes, cc.cwnd_bytes), (10_000, 1000));
    }

    #[test]
    fn cubic_threshold_is_seven_tenths_of_the_window() {
        let mut cc = Congestion::new(CongestionControl::Cubic, 1000, 10);
        cc.on_loss(10_000);
        assert_eq!(cc.ssthresh_bytes, 7000);
    }
}
