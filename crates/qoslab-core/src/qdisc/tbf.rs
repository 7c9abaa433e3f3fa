//! Traffic shaping: a FIFO whose head may leave only when a token bucket allows — IOS
//! `shape average | peak` (class-based shaping) and Linux `tbf`.
//!
//! Three ways to earn the right to send, chosen by `mode`:
//! * `average` (IOS `shape average cir [bc [be]]`, the default): time is cut into intervals
//!   Tc = Bc / CIR; at the start of each interval Bc bytes of credit are added, and credit
//!   saved from quiet intervals may grow to Bc + Be. The head packet leaves when the credit
//!   covers it.
//! * `peak` (IOS `shape peak`): each interval adds Bc + Be, so the long-run rate is
//!   CIR × (1 + Be/Bc).
//! * `continuous` (Linux `tbf`): tokens flow in continuously at CIR into a bucket Bc + Be
//!   deep, so over any window Δt no more than (Bc + Be) + CIR·Δt bytes leave.
//!
//! IOS defaults (Cisco Press shaping chapters; `qos-behaviour.md` A.8): CIR up to
//! 320 kbit/s → Bc = 8000 bits (1000 B); faster → Tc = 25 ms, Bc = CIR × 25 ms; Be = Bc. The HQF-era
//! defaults are not documented, so these are parameters. Credit is counted in IP bytes.
//!
//! A shaper is not work-conserving: while its head packet waits for credit it answers
//! "not before" the instant the credit is there, and the port wakes it then. Packets wait
//! in a FIFO of `limit` packets (1000 by default) and are tail-dropped beyond it; a packet
//! larger than the bucket can never leave and is dropped on arrival (`overlimit`).

use super::ctx::QdiscCtx;
use super::packet_queue::{PacketQueue, QueueLimit};
use super::{Dequeue, Interface, Qdisc};
use crate::condition::TokenBucket;
use crate::measure::DropReason;
use crate::packet::Packet;
use crate::scenario::error::{join_path, Issue};
use crate::time::{SimTime, NS_PER_MS, NS_PER_S};
use crate::units::{RateOrShare, Size};
use schemars::JsonSchema;
use serde::Deserialize;

/// Default shaping queue, packets.
pub const DEFAULT_LIMIT: QueueLimit = QueueLimit::Packets(1000);
/// Up to this CIR, IOS's default Bc is 8000 bits.
pub const SLOW_CIR_BPS: u64 = 320_000;
/// IOS's default Bc for slow CIRs, bytes (8000 bits).
pub const SLOW_BC_BYTES: u64 = 1000;
/// IOS's default Tc for faster CIRs.
pub const FAST_TC_NS: u64 = 25 * NS_PER_MS;

/// How credit is earned.
#[derive(Copy, Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ShapeMode {
    /// IOS `shape average`: Bc per interval, up to Bc + Be saved.
    #[default]
    Average,
    /// IOS `shape peak`: Bc + Be per interval.
    Peak,
    /// Linux `tbf`: a continuous token bucket Bc + Be deep.
    Continuous,
}

/// Parameters of a shaper.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TbfParams {
    /// Committed rate (CIR), or a percentage of the interface bandwidth.
    pub rate: RateOrShare,
    /// Committed burst Bc in bytes (default: IOS's rule, see the page).
    pub bc: Option<Size>,
    /// Excess burst Be in bytes (default Bc).
    pub be: Option<Size>,
    /// `average` (default), `peak` or `continuous`.
    pub mode: Option<ShapeMode>,
    /// Shaping queue limit (default 1000 packets).
    pub limit: Option<QueueLimit>,
}

/// Interval credit (IOS shaping).
#[derive(Clone, Debug)]
struct IntervalCredit {
    interval_ns: u64,
    added_bytes: u64,
    max_bytes: u64,
    credit_bytes: u64,
    /// Index of the last interval whose credit has been added.
    interval: u64,
}

impl IntervalCredit {
    fn catch_up(&mut self, now: SimTime) {
        let current = now.0 / self.interval_ns;
        if current > self.interval {
            let intervals = current - self.interval;
            self.credit_bytes = self
                .credit_bytes
                .saturating_add(intervals.saturating_mul(self.added_bytes))
                .min(self.max_bytes);
            self.interval = current;
        }
    }
}

/// The credit a shaper draws on.
#[derive(Clone, Debug)]
enum Credit {
    Interval(IntervalCredit),
    Continuous(TokenBucket),
}

/// A shaper.
#[derive(Clone, Debug)]
pub struct Tbf {
    queue: PacketQueue,
    credit: Credit,
    /// The largest packet that can ever leave, bytes.
    largest_bytes: u64,
}

impl Tbf {
    /// The `kind` of this discipline in scenarios.
    pub const KIND: &'static str = "tbf";

    /// Builds from `params` found at key path `at` for `interface`.
    pub fn build(
        params: &TbfParams,
        at: &str,
        interface: Interface,
        _node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        let cir_bps = params.rate.bps(interface.bandwidth_bps);
        if cir_bps == 0 {
            return Err(Issue::at(join_path(at, "rate"), "the shaping rate must be above zero"));
        }
        let bc_bytes = match params.bc {
            Some(Size(0)) => return Err(Issue::at(join_path(at, "bc"), "Bc must be above zero")),
            Some(bc) => bc.0,
            None if cir_bps <= SLOW_CIR_BPS => SLOW_BC_BYTES,
            None => (cir_bps as u128 * FAST_TC_NS as u128 / (8 * NS_PER_S as u128)).max(1) as u64,
        };
        let be_bytes = params.be.map_or(bc_bytes, |be| be.0);
        let mode = params.mode.unwrap_or_default();
        let credit = match mode {
            ShapeMode::Continuous => Credit::Continuous(TokenBucket::new(cir_bps, bc_bytes + be_bytes)),
            ShapeMode::Average | ShapeMode::Peak => {
                // Tc = Bc / CIR, rounded to the nearest nanosecond.
                let interval_ns = ((bc_bytes as u128 * 8 * NS_PER_S as u128 + cir_bps as u128 / 2)
                    / cir_bps as u128) as u64;
                if interval_ns == 0 {
                    return Err(Issue::at(
                        join_path(at, "bc"),
                        "Bc is too small for the rate: the interval would be under 1 ns",
                    ));
                }
                let added_bytes = if mode == ShapeMode::Peak { bc_bytes + be_bytes } else { bc_bytes };
                Credit::Interval(IntervalCredit {
                    interval_ns,
                    added_bytes,
                    max_bytes: bc_bytes + be_bytes,
                    credit_bytes: bc_bytes + be_bytes,
                    interval: 0,
                })
            }
        };
        Ok(Tbf {
            queue: PacketQueue::new(params.limit.unwrap_or(DEFAULT_LIMIT)),
            credit,
            largest_bytes: bc_bytes + be_bytes,
        })
    }

    /// Takes the head packet's credit if it is there now; otherwise says when it will be.
    fn release_time(&mut self, now: SimTime, size_bytes: u32) -> SimTime {
        match &mut self.credit {
            Credit::Continuous(bucket) => {
                if bucket.conform(now, size_bytes) {
                    now
                } else {
                    bucket.conforming_at(now, size_bytes).expect("oversized packets are refused on arrival")
                }
            }
            Credit::Interval(c) => {
                c.catch_up(now);
                if c.credit_bytes >= size_bytes as u64 {
                    c.credit_bytes -= size_bytes as u64;
                    return now;
                }
                // Credit arrives in steps at interval starts.
                let missing = size_bytes as u64 - c.credit_bytes;
                let intervals = missing.div_ceil(c.added_bytes);
                SimTime((c.interval + intervals) * c.interval_ns)
            }
        }
    }
}

impl Qdisc for Tbf {
    fn class_names(&self) -> Vec<String> {
        vec!["shaped".to_owned()]
    }

    fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
        if packet.size_bytes as u64 > self.largest_bytes {
            return ctx.drop_arrival(0, packet, DropReason::Overlimit);
        }
        if self.queue.is_full_for(packet.size_bytes) {
            return ctx.drop_arrival(0, packet, DropReason::TailDrop);
        }
        ctx.enqueued(0, &packet);
        self.queue.push(packet);
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        let Some(size_bytes) = self.queue.head_size_bytes() else {
            return Dequeue::Empty;
        };
        let at = self.release_time(ctx.now, size_bytes);
        if at > ctx.now {
            return Dequeue::NotBefore(at);
        }
        let packet = self.queue.pop().expect("the head exists");
        ctx.dequeued(0, &packet);
        Dequeue::Packet(packet)
    }

    fn len_packets(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{harness, packet};

    const LINK: Interface = Interface { bandwidth_bps: 1_000_000, admission: true, random_seed: 1 };

    fn tbf(yaml: &str) -> Tbf {
        let (value, _) = crate::scenario::yaml::parse(yaml).unwrap();
        Tbf::build(&serde_json::from_value(value).unwrap(), "s", LINK, &|_| None).unwrap()
    }

    /// Offers `count` packets of `size` at t = 0 and releases them as the port would:
    /// whenever allowed, waiting for each "not before". Returns the release times.
    fn releases(shaper: &mut Tbf, count: u64, size: u32) -> Vec<u64> {
        let mut h = harness(1);
        for id in 0..count {
            shaper.enqueue(packet(id, size, 0), &mut h.ctx());
        }
        let mut now = SimTime::ZERO;
        let mut times = Vec::new();
        loop {
            let mut ctx = h.ctx();
            ctx.now = now;
            match shaper.dequeue(&mut ctx) {
                Dequeue::Packet(_) => times.push(now.0),
                Dequeue::NotBefore(t) => now = t,
                Dequeue::Empty => return times,
            }
        }
    }

    #[test]
    fn ios_defaults() {
        // 64 kbit/s: Bc = Be = 1000 B, Tc = 125 ms.
        let Credit::Interval(c) = tbf("{rate: 64kbps}").credit else { panic!() };
        assert_eq!((c.interval_ns, c.added_bytes, c.max_bytes), (125_000_000, 1000, 2000));
        // 2 Mbit/s: Tc = 25 ms, Bc = 6250 B.
        let Credit::Interval(c) = tbf("{rate: 2Mbps}").credit else { panic!() };
        assert_eq!((c.interval_ns, c.added_bytes), (25_000_000, 6250));
        // Peak adds Bc + Be each interval.
        let Credit::Interval(c) = tbf("{rate: 64kbps, mode: peak}").credit else { panic!() };
        assert_eq!(c.added_bytes, 2000);
    }

    #[test]
    fn interval_shaping_hand_trace() {
        // 64 kbit/s, Bc = Be = 1000 B, Tc = 125 ms, bucket full (2000 B): five 500-byte
        // packets: four leave at once, then 1000 B arrive at 125 ms: the fifth leaves then.
        let mut s = tbf("{rate: 64kbps}");
        assert_eq!(releases(&mut s, 5, 500), [0, 0, 0, 0, 125_000_000]);
    }

    #[test]
    fn continuous_bucket_never_exceeds_burst_plus_rate() {
        // 1 Mbit/s (125 000 B/s), bucket 3000 B; 200 packets of 700 B. Over every window
        // [t_i, t_j] the bytes released are at most 3000 + 125 000 × (t_j − t_i) s.
        let mut s = tbf("{rate: 1Mbps, bc: 1500B, be: 1500B, mode: continuous}");
        let times = releases(&mut s, 200, 700);
        assert_eq!(times.len(), 200);
        for i in 0..times.len() {
            for j in i..times.len() {
                let bytes = 700.0 * (j - i + 1) as f64;
                let bound = 3000.0 + 125_000.0 * (times[j] - times[i]) as f64 / 1e9;
                assert!(bytes <= bound + 1e-6, "{i}..{j}: {bytes} > {bound}");
            }
        }
        // Once the initial bucket is spent, packets leave at exactly the rate: 189 packets
        // between the 11th and the 200th release. Within 1 %.
        let rate = 700.0 * 189.0 / ((times[199] - times[10]) as f64 / 1e9);
        assert!((rate - 125_000.0).abs() / 125_000.0 < 0.01, "{rate}");
    }

    #[test]
    fn oversized_packets_and_limits() {
        let mut s = tbf("{rate: 64kbps, limit: 2}");
        let mut h = harness(1);
        s.enqueue(packet(0, 2001, 0), &mut h.ctx()); // larger than Bc + Be
        for id in 1..=3 {
            s.enqueue(packet(id, 100, 0), &mut h.ctx());
        }
        assert_eq!(h.classes[0].dropped_for(DropReason::Overlimit), 1);
        assert_eq!(h.classes[0].dropped_for(DropReason::TailDrop), 1);
    }
}
