//! One end of a TCP connection: a sending half and a receiving half sharing every segment.
//!
//! An arriving segment first updates the receiving half (sequence space, what to
//! acknowledge), then its acknowledgement fields update the sending half (which may send
//! data or retransmit). Every segment that leaves carries the current cumulative
//! acknowledgement and window, so data piggybacks the pending ACK; if an acknowledgement is
//! due and no segment left, a pure ACK is sent. The passive side answers a SYN with its own
//! SYN (the SYN-ACK). The endpoint's timers — retransmission and delayed ACK — are reported
//! as one next deadline.

use super::receiver::{AckNeed, Receiver};
use super::sender::{Ack, Outgoing, Sender};
use crate::ids::EndpointId;
use crate::packet::segment::{flags, Segment};
use crate::time::SimTime;

/// One end of a connection.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// The sending half.
    pub sender: Sender,
    /// The receiving half.
    pub receiver: Receiver,
    /// The other end.
    pub peer: EndpointId,
    /// The current connection's number (endpoints are reused by successive connections).
    pub incarnation: u32,
}

/// Turns the sender's `Outgoing` into a full segment with the receiver's ACK fields.
fn stamp(outgoing: Outgoing, receiver: &mut Receiver, peer: EndpointId, incarnation: u32) -> Segment {
    let mut segment_flags = outgoing.flags;
    let mut ack = 0;
    if receiver.syn_received() {
        segment_flags |= flags::ACK;
        ack = receiver.rcv_nxt;
        receiver.ack_sent();
    }
    Segment {
        to_endpoint: peer,
        incarnation,
        seq: outgoing.seq,
        ack,
        payload_bytes: outgoing.payload_bytes,
        flags: segment_flags,
        window_bytes: receiver.window_bytes,
        sack: receiver.sack_blocks(),
    }
}

impl Endpoint {
    /// Handles `segment`, arriving at `now`; segments to send are appended to `out`.
    pub fn on_segment(&mut self, segment: &Segment, now: SimTime, out: &mut Vec<Segment>) {
        let need = self.receiver.on_segment(segment, now);
        if segment.has(flags::SYN) && !segment.has(flags::ACK) {
            // A passive open: answer with our SYN.
            self.sender.open();
        }
        let before = out.len();
        let (peer, incarnation) = (self.peer, self.incarnation);
        let receiver = &mut self.receiver;
        let mut emit = |o: Outgoing| out.push(stamp(o, receiver, peer, incarnation));
        if segment.has(flags::ACK) {
            let dup_candidate = segment.payload_bytes == 0 && !segment.has(flags::SYN | flags::FIN);
            let ack = Ack {
                ack: segment.ack,
                window_bytes: segment.window_bytes as u64,
                dup_candidate,
                sack: &segment.sack,
            };
            self.sender.on_ack(&ack, now, &mut emit);
        } else {
            self.sender.output(now, &mut emit);
        }
        if need == AckNeed::Now && out.len() == before {
            self.pure_ack(out);
        }
    }

    /// The application changed what there is to send (opened, wrote, closed): send what the
    /// windows allow.
    pub fn output(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let (peer, incarnation) = (self.peer, self.incarnation);
        let receiver = &mut self.receiver;
        self.sender.output(now, &mut |o| out.push(stamp(o, receiver, peer, incarnation)));
    }

    fn pure_ack(&mut self, out: &mut Vec<Segment>) {
        self.sender.count_pure_ack();
        let outgoing = Outgoing { seq: self.sender.snd_nxt_for_ack(), payload_bytes: 0, flags: 0 };
        out.push(stamp(outgoing, &mut self.receiver, self.peer, self.incarnation));
    }

    /// The earliest timer deadline, if any timer runs.
    pub fn next_deadline(&self) -> Option<SimTime> {
        match (self.sender.rto_deadline, self.receiver.delack_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Fires the timers due at `now`.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.receiver.delack_deadline.is_some_and(|at| at <= now) {
            self.pure_ack(out);
        }
        if self.sender.rto_deadline.is_some_and(|at| at <= now) {
            let (peer, incarnation) = (self.peer, self.incarnation);
            let receiver = &mut self.receiver;
            self.sender.on_timeout(now, &mut |o| out.push(stamp(o, receiver, peer, incarnation)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::congestion::CongestionControl;
    use crate::tcp::receiver::LINUX_DELAYED_ACK;
    use crate::tcp::sender::Retransmit;

    const MS: u64 = 1_000_000;

    /// A record of one segment put on the wire: (time ms, from endpoint, seq, ack,
    /// payload, flags).
    type Sent = (u64, u32, u64, u64, u32, u8);

    /// Two endpoints joined by a wire of one-way delay `delay_ms` and infinite rate;
    /// `drop` decides which transmissions are lost (it sees the record and how many
    /// times that sequence number was sent before).
    struct Wire {
        ends: [Endpoint; 2],
        in_flight: Vec<(u64, Segment)>,
        log: Vec<Sent>,
        delay_ns: u64,
    }

    impl Wire {
        fn new(delay_ms: u64, min_rto_ns: u64) -> Self {
            let end = |peer| Endpoint {
                sender: Sender::new(CongestionControl::Newreno, 1000, 10, min_rto_ns),
                receiver: Receiver::new(65535, Some(LINUX_DELAYED_ACK)),
                peer,
                incarnation: 0,
            };
            Wire {
                ends: [end(EndpointId(1)), end(EndpointId(0))],
                in_flight: Vec::new(),
                log: Vec::new(),
                delay_ns: delay_ms * MS,
            }
        }

        /// As `new`, both ends using SACK.
        fn with_sack(delay_ms: u64, min_rto_ns: u64) -> Self {
            let mut w = Wire::new(delay_ms, min_rto_ns);
            for end in &mut w.ends {
                end.sender.enable_sack();
                end.receiver.enable_sack();
            }
            w
        }

        /// Client 0 opens, writes `bytes` and sends what its window allows at 0.
        fn start_transfer(&mut self, bytes: u64) {
            self.ends[0].sender.open();
            self.ends[0].sender.write(bytes);
            let mut out = Vec::new();
            self.ends[0].output(SimTime(0), &mut out);
            self.send(0, 0, &mut out, &mut |_: &Sent, _: usize| false);
        }

        fn send(
            &mut self,
            from: u32,
            now: u64,
            out: &mut Vec<Segment>,
            drop: &mut impl FnMut(&Sent, usize) -> bool,
        ) {
            for s in out.drain(..) {
                let record = (now / MS, from, s.seq, s.ack, s.payload_bytes, s.flags);
                let earlier =
                    self.log.iter().filter(|r| r.1 == from && r.2 == s.seq && r.4 == s.payload_bytes).count();
                self.log.push(record);
                if !drop(&record, earlier) {
                    self.in_flight.push((now + self.delay_ns, s));
                }
            }
        }

        /// Runs until nothing is in flight and no timer is due before `until_ms`.
        fn run(&mut self, until_ms: u64, mut drop: impl FnMut(&Sent, usize) -> bool) {
            let mut out = Vec::new();
            loop {
                let arrival = self.in_flight.iter().map(|(t, _)| *t).min();
                let timers = (0..2).filter_map(|i| self.ends[i].next_deadline().map(|t| (t.0, i))).min();
                let next = match (arrival, timers) {
                    (Some(a), Some((t, _))) => a.min(t),
                    (Some(a), None) => a,
                    (None, Some((t, _))) => t,
                    (None, None) => return,
                };
                if next > until_ms * MS {
                    return;
                }
                if arrival == Some(next) {
                    let i = self.in_flight.iter().position(|(t, _)| *t == next).unwrap();
                    let (_, segment) = self.in_flight.remove(i);
                    let to = segment.to_endpoint.index();
                    self.ends[to].on_segment(&segment, SimTime(next), &mut out);
                    self.send(to as u32, next, &mut out, &mut drop);
                } else {
                    let (_, i) = timers.unwrap();
                    self.ends[i].on_timer(SimTime(next), &mut out);
                    self.send(i as u32, next, &mut out, &mut drop);
                }
            }
        }
    }

    const SA: u8 = flags::SYN | flags::ACK;
    const A: u8 = flags::ACK;

    #[test]
    fn handshake_one_loss_fast_retransmit_and_recovery() {
        // Client 0 writes 10 000 B (MSS 1000, initial window 10) over a 10 ms one-way path;
        // the first transmission of bytes 2001-3000 is lost.
        let mut w = Wire::new(10, 200 * MS);
        w.ends[0].sender.open();
        w.ends[0].sender.write(10_000);
        let mut out = Vec::new();
        w.ends[0].output(SimTime(0), &mut out);
        let mut no_drop = |_: &Sent, _: usize| false;
        w.send(0, 0, &mut out, &mut no_drop);
        w.run(1000, |r, earlier| r.1 == 0 && r.2 == 2001 && earlier == 0);
        let mut expected: Vec<Sent> = vec![
            (0, 0, 0, 0, 0, flags::SYN),
            // The server answers the SYN with its own.
            (10, 1, 0, 1, 0, SA),
        ];
        // The SYN-ACK opens the window: ten segments at once, the first carrying the ACK
        // that completes the handshake.
        expected.extend((0..10).map(|k| (20, 0, 1 + 1000 * k, 1, 1000, A)));
        // The server acknowledges the first two in order (the second ACK of a delayed pair)
        // and each of the seven after the hole at once: seven duplicates of 2001.
        expected.push((30, 1, 1, 2001, 0, A));
        expected.extend((0..7).map(|_| (30, 1, 1, 2001, 0, A)));
        // The third duplicate triggers the fast retransmit; the retransmission fills the
        // hole and everything is acknowledged.
        expected.push((40, 0, 2001, 1, 1000, A));
        expected.push((50, 1, 1, 10_001, 0, A));
        assert_eq!(w.log, expected);
        let s = &w.ends[0].sender;
        assert_eq!((s.counters.fast_retransmits, s.counters.retransmissions, s.counters.timeouts), (1, 1, 0));
        // ssthresh = flight / 2 = 8000 / 2; the full ACK leaves cwnd = min(ssthresh,
        // max(flight 0, MSS) + MSS) = 2000.
        assert_eq!((s.cc.ssthresh_bytes, s.cc.cwnd_bytes), (4000, 2000));
        // RTT samples: the SYN (20 ms) and the first data segment (20 ms).
        assert_eq!(s.rtt.srtt_ns(), Some(20 * MS));
        assert!(s.all_acked() && w.ends[1].receiver.delivered_bytes() == 10_000);
    }

    #[test]
    fn timeouts_back_off_and_karn_skips_retransmitted_segments() {
        // One 1000-byte segment after the handshake; its first three transmissions are
        // lost. RTT 20 ms gives RTO = 20 + 4·10 = 60 ms, below the 200 ms minimum: the
        // retransmissions leave at 20 + 200, + 400, + 800 ms.
        let mut w = Wire::new(10, 200 * MS);
        w.ends[0].sender.open();
        w.ends[0].sender.write(1000);
        let mut out = Vec::new();
        w.ends[0].output(SimTime(0), &mut out);
        w.send(0, 0, &mut out, &mut |_: &Sent, _: usize| false);
        w.run(5000, |r, earlier| r.1 == 0 && r.4 == 1000 && earlier < 3);
        let sends: Vec<u64> = w.log.iter().filter(|r| r.1 == 0 && r.4 == 1000).map(|r| r.0).collect();
        assert_eq!(sends, [20, 220, 620, 1420]);
        let s = &w.ends[0].sender;
        assert_eq!((s.counters.timeouts, s.counters.retransmissions), (3, 3));
        // Karn: the ACK of the retransmitted segment gives no sample, so SRTT is still the
        // handshake's 20 ms (a sample would have been 20 ms too, but the back-off stays).
        assert_eq!(s.rtt.srtt_ns(), Some(20 * MS));
        assert_eq!(s.rtt.rto_ns(), 1600 * MS);
        assert!(s.all_acked());
    }

    /// Two messages, 300 and 200 bytes, leave as two segments at 20 ms (the second written
    /// after the first left) and both are lost. The timer expires at 20 + 200 ms; with the
    /// window at one MSS the sender goes back to byte 1 and either cuts one 500-byte
    /// segment from what was written (repacketize, the default) or repeats the two segments
    /// as first sent.
    #[test]
    fn a_retransmission_repacketizes_or_repeats_the_segments_as_first_sent() {
        let data_sent = |retransmit: Retransmit| -> Vec<(u64, u64, u32)> {
            let mut w = Wire::new(10, 200 * MS);
            w.ends[0].sender.set_retransmit(retransmit);
            let early = |r: &Sent, _: usize| r.1 == 0 && r.4 > 0 && r.0 < 100;
            w.start_transfer(300);
            w.run(20, early);
            w.ends[0].sender.write(200);
            let mut out = Vec::new();
            w.ends[0].output(SimTime(20 * MS), &mut out);
            w.send(0, 20 * MS, &mut out, &mut { early });
            w.run(1000, early);
            assert!(w.ends[0].sender.all_acked() && w.ends[1].receiver.delivered_bytes() == 500);
            w.log.iter().filter(|r| r.1 == 0 && r.4 > 0).map(|r| (r.0, r.2, r.4)).collect()
        };
        assert_eq!(data_sent(Retransmit::Repacketize), [(20, 1, 300), (20, 301, 200), (220, 1, 500)]);
        assert_eq!(
            data_sent(Retransmit::AsSent),
            [(20, 1, 300), (20, 301, 200), (220, 1, 300), (220, 301, 200)]
        );
    }

    /// Ten 1000-byte segments leave at 20 ms over a 10 ms path; the first transmissions of
    /// 2001 and 6001 are lost. With SACK the duplicate ACKs at 40 ms say which segments
    /// arrived: the third (SACKing 3001-6001, more than 2 MSS above 2001) starts recovery
    /// with ssthresh = cwnd = flight/2 = 4000 and the retransmission of 2001; pipe is then
    /// 5000 (2001-3001 and 6001-10001 unSACKed, 2001 lost but retransmitted). Two more
    /// duplicates shrink pipe to 3000, and NextSeg's rule 3 retransmits 6001 — the hole
    /// below SACKed data not yet retransmitted — also at 40 ms. Both holes are repaired in
    /// one round trip: the ACK of everything leaves the server at 50 ms. NewReno learns of
    /// the second hole only from the partial ACK at 60 ms and finishes a round trip later.
    #[test]
    fn sack_repairs_two_holes_in_one_round_trip() {
        let lose = |r: &Sent, earlier: usize| r.1 == 0 && (r.2 == 2001 || r.2 == 6001) && earlier == 0;
        let retransmissions = |w: &Wire| -> Vec<(u64, u64)> {
            w.log.iter().filter(|r| r.1 == 0 && r.4 > 0 && r.0 > 20).map(|r| (r.0, r.2)).collect()
        };
        let full_ack_at = |w: &Wire| w.log.iter().find(|r| r.1 == 1 && r.3 == 10_001).map(|r| r.0);

        let mut sack = Wire::with_sack(10, 200 * MS);
        sack.start_transfer(10_000);
        sack.run(1000, lose);
        assert_eq!(retransmissions(&sack), vec![(40, 2001), (40, 6001)]);
        assert_eq!(full_ack_at(&sack), Some(50));
        let s = &sack.ends[0].sender;
        assert_eq!((s.counters.fast_retransmits, s.counters.retransmissions, s.counters.timeouts), (1, 2, 0));
        assert_eq!((s.cc.ssthresh_bytes, s.cc.cwnd_bytes), (4000, 4000));
        assert!(s.all_acked() && sack.ends[1].receiver.delivered_bytes() == 10_000);

        let mut newreno = Wire::new(10, 200 * MS);
        newreno.start_transfer(10_000);
        newreno.run(1000, lose);
        assert_eq!(retransmissions(&newreno), vec![(40, 2001), (60, 6001)]);
        assert_eq!(full_ack_at(&newreno), Some(70));
    }

    /// The duplicate ACKs of the SACK run carry the receiver's out-of-order ranges, the
    /// most recent arrival's first.
    #[test]
    fn duplicate_acks_carry_sack_blocks() {
        let mut w = Wire::with_sack(10, 200 * MS);
        w.start_transfer(10_000);
        let mut blocks = Vec::new();
        // Stop before the dup ACKs arrive and look at what is in flight from the server.
        w.run(30, |r, earlier| r.1 == 0 && (r.2 == 2001 || r.2 == 6001) && earlier == 0);
        for (_, segment) in &w.in_flight {
            if segment.to_endpoint == EndpointId(0) && !segment.sack.is_empty() {
                blocks.push(segment.sack.ranges(segment.ack).collect::<Vec<_>>());
            }
        }
        assert_eq!(
            blocks,
            vec![
                vec![(3001, 4001)],
                vec![(3001, 5001)],
                vec![(3001, 6001)],
                vec![(7001, 8001), (3001, 6001)],
                vec![(7001, 9001), (3001, 6001)],
                vec![(7001, 10_001), (3001, 6001)],
            ]
        );
    }
}
