//! Per-talk-spurt voice statistics: for every spurt of a push-to-talk voice stream, the
//! packets sent and received, the loss, and the mean and largest one-way delay — what a
//! listener hears spurt by spurt, which whole-run averages hide (the LMR VoIP thesis'
//! ON-OFF traffic talks 1–18 s at a time).
//!
//! The sender opens a spurt record at each spurt's first packet and counts its packets. A
//! flow's packets are never reordered (every discipline keeps a flow's packets in order
//! within its queue, and a flow takes one path), so a received packet belongs to the
//! newest spurt that began at or before its send time; older open spurts are complete and
//! are closed. Only spurts in flight are held, so memory does not grow with the run; the
//! closed spurts are the results table's rows (one per spurt).

use std::collections::VecDeque;

use crate::time::SimTime;

/// One talk spurt, as reported.
#[derive(Clone, Debug, PartialEq)]
pub struct SpurtSummary {
    /// When its first packet was sent.
    pub start: SimTime,
    /// Time from its first to its last packet's sending, ns.
    pub duration_ns: u64,
    /// Packets sent.
    pub sent_packets: u64,
    /// Packets received.
    pub received_packets: u64,
    /// Sum of the received packets' one-way delays, ns.
    pub delay_sum_ns: u128,
    /// Largest one-way delay, ns.
    pub delay_max_ns: u64,
}

impl SpurtSummary {
    /// Mean one-way delay, ns.
    pub fn delay_mean_ns(&self) -> Option<f64> {
        (self.received_packets > 0).then(|| self.delay_sum_ns as f64 / self.received_packets as f64)
    }

    /// Lost share of the spurt's packets, %.
    pub fn loss_pct(&self) -> f64 {
        100.0 * self.sent_packets.saturating_sub(self.received_packets) as f64 / self.sent_packets as f64
    }
}

/// The spurts of one voice stream.
#[derive(Clone, Debug, Default)]
pub struct TalkSpurts {
    open: VecDeque<SpurtSummary>,
    /// Completed spurts, oldest first.
    pub closed: Vec<SpurtSummary>,
}

impl TalkSpurts {
    /// A new spurt's first packet is sent at `now`.
    pub fn begin(&mut self, now: SimTime) {
        self.open.push_back(SpurtSummary {
            start: now,
            duration_ns: 0,
            sent_packets: 0,
            received_packets: 0,
            delay_sum_ns: 0,
            delay_max_ns: 0,
        });
    }

    /// A packet of the current spurt is sent at `now`.
    pub fn on_sent(&mut self, now: SimTime) {
        let spurt = self.open.back_mut().expect("a spurt has begun");
        spurt.sent_packets += 1;
        spurt.duration_ns = now.since(spurt.start);
    }

    /// A packet sent at `sent` arrived at `now`.
    pub fn on_received(&mut self, sent: SimTime, now: SimTime) {
        while self.open.len() > 1 && self.open[1].start <= sent {
            self.closed.extend(self.open.pop_front());
        }
        let Some(spurt) = self.open.front_mut().filter(|s| s.start <= sent) else {
            return;
        };
        let delay_ns = now.since(sent);
        spurt.received_packets += 1;
        spurt.delay_sum_ns += delay_ns as u128;
        spurt.delay_max_ns = spurt.delay_max_ns.max(delay_ns);
    }

    /// Every spurt so far, closed or not (at the end of the run).
    pub fn all(&self) -> impl Iterator<Item = &SpurtSummary> {
        self.closed.iter().chain(&self.open)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Two spurts of three packets 20 ms apart; the second packet of the first spurt is
    /// lost and the whole second spurt is late by 5 ms more.
    #[test]
    fn packets_are_credited_to_their_spurts() {
        let mut spurts = TalkSpurts::default();
        spurts.begin(SimTime(0));
        for k in 0..3 {
            spurts.on_sent(SimTime(k * 20 * MS));
        }
        spurts.begin(SimTime(1000 * MS));
        for k in 0..3 {
            spurts.on_sent(SimTime((1000 + k * 20) * MS));
        }
        spurts.on_received(SimTime(0), SimTime(10 * MS));
        spurts.on_received(SimTime(40 * MS), SimTime(50 * MS));
        for k in 0..3 {
            let sent = (1000 + k * 20) * MS;
            spurts.on_received(SimTime(sent), SimTime(sent + 15 * MS));
        }
        assert_eq!(spurts.closed.len(), 1);
        let all: Vec<_> = spurts.all().cloned().collect();
        assert_eq!(all.len(), 2);
        assert_eq!((all[0].sent_packets, all[0].received_packets), (3, 2));
        assert!((all[0].loss_pct() - 100.0 / 3.0).abs() < 1e-9);
        assert_eq!(all[0].delay_mean_ns(), Some(10.0 * MS as f64));
        assert_eq!(all[0].duration_ns, 40 * MS);
        assert_eq!((all[1].sent_packets, all[1].received_packets, all[1].delay_max_ns), (3, 3, 15 * MS));
        assert_eq!(all[1].loss_pct(), 0.0);
    }

    /// A spurt lost entirely is still reported, with nothing received.
    #[test]
    fn a_spurt_lost_entirely_is_kept() {
        let mut spurts = TalkSpurts::default();
        for start in [0, 1000, 2000] {
            spurts.begin(SimTime(start * MS));
            spurts.on_sent(SimTime(start * MS));
        }
        spurts.on_received(SimTime(2000 * MS), SimTime(2001 * MS));
        let received: Vec<u64> = spurts.all().map(|s| s.received_packets).collect();
        assert_eq!(received, vec![0, 0, 1]);
    }
}
