//! The sending half of a TCP endpoint: what to (re)transmit, when, and how the window and
//! the retransmission timer react to acknowledgements.
//!
//! * **Sequence space.** The SYN is sequence number 0, data bytes 1 to n, the FIN n + 1.
//!   `snd_una` is the oldest unacknowledged number, `snd_nxt` the next to send, `snd_max`
//!   one past the highest ever sent (RFC 9293 §3.3.1).
//! * **Output.** Segments leave while the next one fits in min(cwnd, peer window) above
//!   `snd_una`; a data segment carries min(MSS, bytes written and not yet sent) — a shorter
//!   one only at the end of what the application wrote, so no silly-window segments
//!   (RFC 9293 §3.8.6.2.1). The FIN rides on the last data segment when the application has
//!   already closed.
//! * **Timer.** One retransmission timer (RFC 6298 §5): started when a segment leaves and
//!   none is running, restarted when new data is acknowledged, stopped when nothing is
//!   outstanding. On expiry: back off, window one MSS, and go back to `snd_una`
//!   (everything after it is sent again as the window reopens).
//! * **Threshold on a timeout.** Lowered to max(FlightSize/2, 2·MSS) (CUBIC: cwnd·β) —
//!   except when the loss being timed has already lowered it: a timer that expires during
//!   fast recovery keeps the ssthresh recovery set, and so does one that expires again
//!   before anything new is acknowledged (RFC 5681 §3.1: held constant when the segment
//!   was already retransmitted by the timer). In fast recovery the flight is no measure of
//!   the path: NewReno inflates cwnd by one MSS per duplicate ACK and sends new data with
//!   it, so halving that flight would aim the next slow start at about twice what the path
//!   holds, overflow the buffer again and time out again. Linux likewise leaves ssthresh
//!   alone on a timeout in its Recovery state (`tcp_enter_loss` in
//!   `net/ipv4/tcp_input.c` reduces it only once per window).
//! * **RTT.** One segment at a time is timed; the sample is taken when an ACK covers it, and
//!   timing is abandoned when it is retransmitted (Karn's rule).
//! * **Loss recovery.** NewReno (RFC 6582): the third duplicate ACK, when the ACK covers more
//!   than `recover`, retransmits `snd_una`, sets ssthresh and cwnd = ssthresh + 3·MSS, and
//!   records `recover = snd_max`. Further duplicates inflate cwnd by one MSS. A partial ACK
//!   (below `recover`) retransmits the next hole, deflates cwnd by the bytes it acknowledged
//!   and adds one MSS back if it acknowledged at least one MSS; only the first partial ACK
//!   restarts the timer (RFC 6582 §3.2, the variant it calls "Impatient": with many
//!   holes in one window the timer ends a recovery that would take one round trip per
//!   hole, and the slow start that follows aims at the threshold recovery set — see
//!   above). A full ACK ends recovery with cwnd = min(ssthresh,
//!   max(FlightSize, MSS) + MSS). After a timeout `recover = snd_max`, so duplicate ACKs
//!   from the go-back-N retransmissions cannot start a second recovery.
//! * **SACK-based recovery** (with SACK on, RFC 6675): an ACK that SACKs new data is a
//!   duplicate; the third one — or a scoreboard showing the oldest byte lost — starts
//!   recovery: the oldest unacknowledged segment is retransmitted, ssthresh and cwnd both
//!   become the congestion control's reduced window, and `RecoveryPoint = snd_max`. On every
//!   ACK in recovery the sender sends while cwnd − pipe ≥ 1 MSS, choosing with NextSeg
//!   ([`super::scoreboard`]): lost holes first, then new data, then holes not yet known
//!   lost. Recovery ends when the cumulative ACK reaches RecoveryPoint; a timeout clears
//!   the scoreboard.
//! * **What a retransmission carries.** By default a retransmitted segment is cut afresh from
//!   the first byte it repeats: min(MSS, bytes written) — what BSD's `tcp_output` does when
//!   it goes back to `snd_una`, and close to Linux, which merges small queued segments into
//!   one retransmission (`tcp_retrans_try_collapse` in `net/ipv4/tcp_output.c`). With
//!   [`Retransmit::AsSent`] it repeats a segment exactly as first sent, however small: the
//!   sender keeps where each first transmission ended until those bytes are acknowledged.

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::Deserialize;

use super::congestion::{Congestion, CongestionControl};
use super::rtt::RttEstimator;
use super::scoreboard::{Scoreboard, DUP_THRESH};
use crate::packet::sack::SackBlocks;
use crate::packet::segment::flags;
use crate::time::SimTime;

/// Counters of one sending half.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SendCounters {
    /// Segments sent, retransmissions and pure ACKs included.
    pub segments: u64,
    /// Segments that carried data or SYN/FIN already sent before.
    pub retransmissions: u64,
    /// Retransmission timer expiries.
    pub timeouts: u64,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
    /// SYN, FIN and pure ACK segments (no payload): the control overhead.
    pub control: u64,
}

/// How a sender cuts the segments it sends again.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Retransmit {
    /// Cut afresh from the first byte repeated, up to one MSS of what was written (BSD;
    /// Linux merges small segments likewise).
    #[default]
    Repacketize,
    /// Each segment exactly as first sent.
    AsSent,
}

/// A segment the sender wants to put on the wire (the endpoint adds the ACK fields).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// Sequence number.
    pub seq: u64,
    /// Payload bytes.
    pub payload_bytes: u32,
    /// SYN and FIN bits.
    pub flags: u8,
}

/// The acknowledgement fields of an arriving segment.
#[derive(Copy, Clone, Debug)]
pub struct Ack<'a> {
    /// Cumulative acknowledgement.
    pub ack: u64,
    /// Advertised window, bytes.
    pub window_bytes: u64,
    /// The segment carried no data, SYN or FIN (only such segments count as duplicates).
    pub dup_candidate: bool,
    /// Its SACK blocks.
    pub sack: &'a SackBlocks,
}

/// The sending half of an endpoint.
#[derive(Clone, Debug)]
pub struct Sender {
    mss_bytes: u64,
    /// Oldest unacknowledged sequence number.
    pub snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Whether the application opened this direction (a SYN is due or sent).
    opened: bool,
    /// One past the last byte the application wrote (data starts at 1).
    write_end: u64,
    /// Whether the application closed: a FIN follows the data.
    closed: bool,
    peer_window_bytes: u64,
    /// The congestion window.
    pub cc: Congestion,
    /// The RTT estimator.
    pub rtt: RttEstimator,
    dupacks: u32,
    /// `Some(recover)` while in fast recovery.
    recovery: Option<u64>,
    recover: u64,
    partial_acks: u32,
    timing: Option<(u64, SimTime)>,
    /// `snd_una` when the timer last expired.
    timeout_una: Option<u64>,
    /// When the retransmission timer expires, if it runs.
    pub rto_deadline: Option<SimTime>,
    syn_retransmitted: bool,
    /// The SACK scoreboard, when the connection uses SACK.
    scoreboard: Option<Scoreboard>,
    /// With [`Retransmit::AsSent`], one past the last sequence number of each segment sent
    /// for the first time and not yet wholly acknowledged, oldest first.
    first_sent_ends: Option<VecDeque<u64>>,
    /// Counters.
    pub counters: SendCounters,
}

impl Sender {
    /// A closed sender with segments of at most `mss_bytes` payload.
    pub fn new(
        kind: CongestionControl,
        mss_bytes: u64,
        initial_window_segments: u64,
        min_rto_ns: u64,
    ) -> Self {
        Sender {
            mss_bytes,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            opened: false,
            write_end: 1,
            closed: false,
            peer_window_bytes: u64::MAX,
            cc: Congestion::new(kind, mss_bytes, initial_window_segments),
            rtt: RttEstimator::new(min_rto_ns),
            dupacks: 0,
            recovery: None,
            recover: 0,
            partial_acks: 0,
            timing: None,
            timeout_una: None,
            rto_deadline: None,
            syn_retransmitted: false,
            scoreboard: None,
            first_sent_ends: None,
            counters: SendCounters::default(),
        }
    }

    /// Cuts the segments it sends again as `retransmit` says.
    pub fn set_retransmit(&mut self, retransmit: Retransmit) {
        self.first_sent_ends = match retransmit {
            Retransmit::Repacketize => None,
            Retransmit::AsSent => Some(VecDeque::new()),
        };
    }

    /// Recovers from losses with SACK (RFC 6675) instead of NewReno.
    pub fn enable_sack(&mut self) {
        self.scoreboard = Some(Scoreboard::default());
    }

    /// Opens this direction: the SYN (or SYN-ACK) is due.
    pub fn open(&mut self) {
        self.opened = true;
    }

    /// The application writes `bytes` more.
    pub fn write(&mut self, bytes: u64) {
        debug_assert!(!self.closed, "write after close");
        self.write_end += bytes;
    }

    /// The application has nothing more to send: a FIN follows the data.
    pub fn close(&mut self) {
        self.closed = true;
    }

    /// Whether the application has closed this direction.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// One past the last sequence number to send (data, then the FIN if closed).
    fn stream_end(&self) -> u64 {
        if !self.opened {
            0
        } else {
            self.write_end + self.closed as u64
        }
    }

    /// Whether the SYN has been acknowledged.
    pub fn established(&self) -> bool {
        self.snd_una >= 1
    }

    /// Whether everything, FIN included if closed, has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.opened && self.snd_una >= self.stream_end()
    }

    /// Bytes sent and not yet acknowledged.
    pub fn flight_bytes(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// The segment starting at `seq`.
    fn segment_at(&self, seq: u64) -> Outgoing {
        if seq == 0 {
            return Outgoing { seq, payload_bytes: 0, flags: flags::SYN };
        }
        let mut payload = (self.write_end - seq).min(self.mss_bytes);
        if let Some(ends) = &self.first_sent_ends {
            // A segment sent before ends where its first transmission ended.
            if let Some(&end) = ends.iter().find(|&&end| end > seq) {
                payload = payload.min(end - seq);
            }
        }
        let fin = self.closed && seq + payload == self.write_end;
        Outgoing { seq, payload_bytes: payload as u32, flags: if fin { flags::FIN } else { 0 } }
    }

    fn seq_len(segment: &Outgoing) -> u64 {
        segment.payload_bytes as u64 + (segment.flags & (flags::SYN | flags::FIN) != 0) as u64
    }

    /// Sends `segment` (new or again) at `now`.
    fn emit(&mut self, segment: Outgoing, now: SimTime, out: &mut impl FnMut(Outgoing)) {
        let end = segment.seq + Self::seq_len(&segment);
        self.counters.segments += 1;
        if segment.payload_bytes == 0 {
            self.counters.control += 1;
        }
        if segment.seq < self.snd_max {
            self.counters.retransmissions += 1;
            if segment.seq == 0 {
                self.syn_retransmitted = true;
            }
            // Karn: a retransmitted segment is never timed.
            if self.timing.is_some_and(|(timed_end, _)| timed_end > segment.seq) {
                self.timing = None;
            }
        } else if self.timing.is_none() {
            self.timing = Some((end, now));
        }
        if end > self.snd_max {
            if let Some(ends) = &mut self.first_sent_ends {
                ends.push_back(end);
            }
        }
        self.snd_max = self.snd_max.max(end);
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now.after(self.rtt.rto_ns()));
        }
        out(segment);
    }

    /// Sends what the windows allow.
    pub fn output(&mut self, now: SimTime, out: &mut impl FnMut(Outgoing)) {
        let end = self.stream_end();
        while self.snd_nxt < end {
            if self.snd_nxt > 0 && !self.established() {
                return;
            }
            let segment = self.segment_at(self.snd_nxt);
            let window = self.cc.cwnd_bytes.min(self.peer_window_bytes);
            if self.snd_nxt > 0 && self.snd_nxt + segment.payload_bytes as u64 > self.snd_una + window {
                return;
            }
            self.snd_nxt += Self::seq_len(&segment);
            self.emit(segment, now, out);
        }
    }

    /// Processes the acknowledgement fields of an arriving segment.
    pub fn on_ack(&mut self, ack: &Ack, now: SimTime, out: &mut impl FnMut(Outgoing)) {
        let window_changed = ack.window_bytes != self.peer_window_bytes;
        self.peer_window_bytes = ack.window_bytes;
        if ack.ack > self.snd_max {
            return;
        }
        let (snd_una, snd_max) = (self.snd_una.max(ack.ack), self.snd_max);
        let new_sack =
            self.scoreboard.as_mut().is_some_and(|sb| sb.update(snd_una, snd_max, ack.sack.ranges(ack.ack)));
        let duplicate = match self.scoreboard {
            Some(_) => new_sack,
            None => !window_changed,
        };
        if ack.ack > self.snd_una {
            self.on_new_ack(ack.ack, now, out);
        } else if ack.ack == self.snd_una && ack.dup_candidate && duplicate && self.snd_max > self.snd_una {
            self.on_duplicate_ack(ack.ack, now, out);
        }
        if self.scoreboard.is_some() && self.recovery.is_some() {
            self.sack_transmit(now, out);
        } else {
            self.output(now, out);
        }
    }

    fn on_new_ack(&mut self, ack: u64, now: SimTime, out: &mut impl FnMut(Outgoing)) {
        let acked = ack - self.snd_una;
        if let Some((timed_end, sent_at)) = self.timing {
            if ack >= timed_end {
                self.rtt.sample(now.since(sent_at));
                self.timing = None;
            }
        }
        let was_handshake = self.snd_una == 0;
        self.snd_una = ack;
        if let Some(ends) = &mut self.first_sent_ends {
            while ends.front().is_some_and(|&end| end <= ack) {
                ends.pop_front();
            }
        }
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        if was_handshake && self.syn_retransmitted {
            self.rtt.handshake_retransmitted();
        }
        let mut restart_timer = true;
        let sack = self.scoreboard.is_some();
        if let Some(sb) = &mut self.scoreboard {
            sb.advance(ack);
        }
        match self.recovery {
            Some(recover) if sack => {
                // RFC 6675: partial ACKs only move the scoreboard; the window stays at
                // ssthresh, and recovery ends at RecoveryPoint.
                if ack >= recover {
                    self.recovery = None;
                }
            }
            Some(recover) if ack >= recover => {
                // Full ACK: leave fast recovery.
                let flight = self.flight_bytes();
                self.cc.cwnd_bytes =
                    self.cc.ssthresh_bytes.min(flight.max(self.cc.mss_bytes) + self.cc.mss_bytes);
                self.recovery = None;
            }
            Some(_) => {
                // Partial ACK: the next hole was lost too.
                let mss = self.cc.mss_bytes;
                self.cc.cwnd_bytes = self.cc.cwnd_bytes.saturating_sub(acked).max(mss);
                if acked >= mss {
                    self.cc.cwnd_bytes += mss;
                }
                self.partial_acks += 1;
                restart_timer = self.partial_acks == 1;
                let hole = self.segment_at(self.snd_una);
                self.emit(hole, now, out);
            }
            None => {
                let srtt = self.rtt.srtt_ns().unwrap_or(0);
                self.cc.on_ack(acked, now, srtt);
            }
        }
        if self.snd_una >= self.snd_max {
            self.rto_deadline = None;
        } else if restart_timer {
            self.rto_deadline = Some(now.after(self.rtt.rto_ns()));
        }
    }

    fn on_duplicate_ack(&mut self, ack: u64, now: SimTime, out: &mut impl FnMut(Outgoing)) {
        self.dupacks += 1;
        if let Some(sb) = &self.scoreboard {
            let lost = self.dupacks as u64 >= DUP_THRESH || sb.is_lost(self.snd_una, self.mss_bytes);
            if self.recovery.is_none() && ack > self.recover && lost {
                let hole_end = sb.hole_end(self.snd_una);
                self.cc.on_loss(self.flight_bytes());
                self.cc.cwnd_bytes = self.cc.ssthresh_bytes;
                self.recover = self.snd_max;
                self.recovery = Some(self.snd_max);
                self.counters.fast_retransmits += 1;
                self.retransmit(self.snd_una, hole_end, now, out);
            }
            return;
        }
        if self.recovery.is_some() {
            self.cc.cwnd_bytes += self.cc.mss_bytes;
        } else if self.dupacks == 3 && ack > self.recover {
            self.cc.on_loss(self.flight_bytes());
            self.recover = self.snd_max;
            self.recovery = Some(self.snd_max);
            self.partial_acks = 0;
            self.counters.fast_retransmits += 1;
            let lost = self.segment_at(self.snd_una);
            self.emit(lost, now, out);
            self.cc.cwnd_bytes = self.cc.ssthresh_bytes + 3 * self.cc.mss_bytes;
        }
    }

    /// Retransmits from `seq`, at most one MSS and not past `hole_end` (where SACKed data
    /// begins), recording it as HighRxt.
    fn retransmit(&mut self, seq: u64, hole_end: u64, now: SimTime, out: &mut impl FnMut(Outgoing)) {
        let mut segment = self.segment_at(seq);
        let room = hole_end - seq;
        if Self::seq_len(&segment) > room {
            segment.payload_bytes = room as u32;
            segment.flags = 0;
        }
        if let Some(sb) = &mut self.scoreboard {
            sb.high_rxt = seq + Self::seq_len(&segment);
        }
        self.emit(segment, now, out);
    }

    /// In SACK recovery: sends while cwnd − pipe ≥ 1 MSS, choosing by NextSeg (RFC 6675).
    fn sack_transmit(&mut self, now: SimTime, out: &mut impl FnMut(Outgoing)) {
        let mss = self.mss_bytes;
        loop {
            let sb = self.scoreboard.as_ref().expect("SACK recovery has a scoreboard");
            if self.cc.cwnd_bytes < sb.pipe(self.snd_una, self.snd_max, mss) + mss {
                return;
            }
            if let Some((seq, hole_end)) = sb.next_lost(self.snd_una, mss) {
                self.retransmit(seq, hole_end, now, out);
                continue;
            }
            let next_unsacked = sb.next_unsacked(self.snd_una);
            if self.snd_max < self.stream_end() {
                let segment = self.segment_at(self.snd_max);
                if self.snd_max + segment.payload_bytes as u64 <= self.snd_una + self.peer_window_bytes {
                    self.snd_nxt = self.snd_max + Self::seq_len(&segment);
                    self.emit(segment, now, out);
                    continue;
                }
            }
            match next_unsacked {
                Some((seq, hole_end)) => self.retransmit(seq, hole_end, now, out),
                None => return,
            }
        }
    }

    /// The retransmission timer expired at `now`.
    pub fn on_timeout(&mut self, now: SimTime, out: &mut impl FnMut(Outgoing)) {
        self.rto_deadline = None;
        if self.snd_una >= self.snd_max {
            return;
        }
        if let Some(sb) = &mut self.scoreboard {
            sb.clear();
        }
        self.counters.timeouts += 1;
        self.rtt.back_off();
        // In fast recovery the loss has already lowered ssthresh and the flight is inflated
        // by recovery; an expiry with nothing acknowledged since the last one repeats it.
        let repeated = self.timeout_una == Some(self.snd_una) && self.snd_una < self.recover;
        let already_reduced = self.recovery.is_some() || repeated;
        self.cc.on_timeout(self.flight_bytes(), already_reduced);
        self.timeout_una = Some(self.snd_una);
        self.recovery = None;
        self.dupacks = 0;
        self.recover = self.snd_max;
        self.timing = None;
        self.snd_nxt = self.snd_una;
        self.output(now, out);
    }

    /// The sequence number a pure ACK carries: the next new byte.
    pub fn snd_nxt_for_ack(&self) -> u64 {
        self.snd_max
    }

    /// A pure ACK (no data, SYN or FIN) left this endpoint.
    pub fn count_pure_ack(&mut self) {
        self.counters.segments += 1;
        self.counters.control += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Feeds `sender` an ACK of `ack` with a fixed 1 MB window at `now_ms`; returns the
    /// sequence numbers it sent in response.
    fn ack(sender: &mut Sender, ack: u64, dup_candidate: bool, now_ms: u64) -> Vec<u64> {
        let sack = SackBlocks::default();
        let mut sent = Vec::new();
        let fields = Ack { ack, window_bytes: 1 << 20, dup_candidate, sack: &sack };
        sender.on_ack(&fields, SimTime(now_ms * MS), &mut |o| sent.push(o.seq));
        sent
    }

    /// MSS 1000, initial window 10: the SYN is acknowledged at 20 ms and ten segments
    /// (1 to 10 001) leave; the first is lost. Its third duplicate ACK starts fast recovery
    /// with ssthresh = flight/2 = 5000 (NewReno) or ⌊0.7·cwnd⌋ = 7000 (CUBIC, cwnd 10 001
    /// after the SYN's byte) and cwnd = ssthresh + 3 MSS. The other six duplicates inflate
    /// cwnd by one MSS each and let new segments out (4 for NewReno, 6 for CUBIC), whose own
    /// duplicates inflate it as much again: the flight grows to 18 000 B (CUBIC 22 000 B),
    /// though the path never held more than 10 000. The retransmission is lost and the
    /// timer expires: the window restarts at one MSS, but ssthresh stays where recovery put
    /// it, where halving the inflated flight would give 9000 (CUBIC: 0.7 · 22 000 =
    /// 15 400). A second expiry (the next retransmission lost too) keeps it again.
    #[test]
    fn a_timeout_during_recovery_keeps_the_threshold_recovery_set() {
        let cases = [(CongestionControl::Newreno, 5000, 18_000), (CongestionControl::Cubic, 7000, 22_000)];
        for (kind, threshold, inflated_bytes) in cases {
            let mut s = Sender::new(kind, 1000, 10, 200 * MS);
            s.open();
            s.write(100_000);
            s.output(SimTime::ZERO, &mut |o| assert_eq!(o.seq, 0));
            let window: Vec<u64> = ack(&mut s, 1, false, 20);
            assert_eq!(window, (0..10).map(|k| 1 + 1000 * k).collect::<Vec<_>>());
            let mut new_segments = Vec::new();
            for dup in 1..=9 {
                let sent = ack(&mut s, 1, true, 40);
                if dup == 3 {
                    assert_eq!(sent, [1], "{kind:?}: fast retransmit");
                    assert_eq!(s.cc.ssthresh_bytes, threshold, "{kind:?}");
                } else {
                    new_segments.extend(sent);
                }
            }
            for _ in 0..new_segments.len() {
                new_segments.extend(ack(&mut s, 1, true, 60));
            }
            assert_eq!((s.flight_bytes(), s.cc.cwnd_bytes), (inflated_bytes, inflated_bytes), "{kind:?}");
            let mut resent = Vec::new();
            s.on_timeout(SimTime(300 * MS), &mut |o| resent.push(o.seq));
            assert_eq!(resent, [1], "{kind:?}: go back to snd_una with one MSS");
            assert_eq!((s.cc.ssthresh_bytes, s.cc.cwnd_bytes), (threshold, 1000), "{kind:?}");
            s.on_timeout(SimTime(700 * MS), &mut |_| {});
            assert_eq!((s.cc.ssthresh_bytes, s.counters.timeouts), (threshold, 2), "{kind:?}");
        }
        // docs/tcp.md quotes the thresholds, and what halving NewReno's inflated flight gives.
        let [(_, newreno, inflated), (_, cubic, _)] = cases;
        let quoted = format!(
            "({newreno} B for NewReno, {cubic} B for CUBIC) where halving the flight inflated to {} {:03} B \
             would give {} B",
            inflated / 1000,
            inflated % 1000,
            inflated / 2
        );
        let page = include_str!("../../../../docs/tcp.md").split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(page.contains(&quoted), "docs/tcp.md does not say `{quoted}`");
    }
}
