//! The port on its own, driven by a bench that plays the run loop's part for one port: its
//! events taken in time order, each frame's arrival at the far end recorded. Checked by hand:
//! frame times, the transmit ring's occupancy, what the ring's length does to a priority
//! packet's wait, a FIFO's pass-through, a priority packet sent between the fragments of a
//! large one (link fragmentation and interleaving), and a change of rate and discipline
//! during the run.

use super::*;
use crate::ids::FlowId;
use crate::measure::FlowStats;
use crate::packet::testing::packet;
use crate::qdisc::testing::INTERFACE;
use crate::qdisc::PolicySpec;

/// The discipline of `policy` (YAML) on a 1 Mbit/s interface.
fn build(policy: &str) -> AnyQdisc {
    let (value, _) = crate::config::yaml::parse(policy).expect("a policy");
    let spec: PolicySpec = serde_json::from_value(value).expect("a valid policy");
    spec.build("output", INTERFACE, &|_| None).expect("it builds")
}

/// One port from `a` to `b` and what surrounds it in a run.
struct Bench {
    port: Port,
    events: EventQueue,
    observers: Observers,
    dropped: u64,
    segments: SegmentStore,
    now: SimTime,
    /// Each packet received at the far end: its id and when.
    received: Vec<(u64, SimTime)>,
}

impl Bench {
    /// A port at `rate_bps` with no framing overhead and no propagation delay, a transmit
    /// ring of `ring` packets and output policy `policy` (YAML).
    fn new(rate_bps: u64, ring: u32, policy: &str) -> Self {
        let config = PortConfig {
            name: "a->b".into(),
            node: NodeId(0),
            peer: NodeId(1),
            rate_bps,
            l2_overhead_bytes: 0,
            l2_framing: crate::net::l2::L2Framing::Unknown,
            propagation_ns: 0,
            mtu_bytes: 1500,
            tx_ring_packets: ring,
            bandwidth_bps: None,
        };
        let setup = PortSetup {
            config,
            qdisc: build(policy),
            ingress: None,
            link_loss: None,
            lfi: None,
            observe_slot: NO_HOP,
            schedule: VecDeque::new(),
        };
        Bench {
            port: Port::new(PortId(0), setup, None),
            events: EventQueue::new(),
            observers: Observers::new(vec![FlowStats::new(0, u64::MAX)].into(), None, None),
            dropped: 0,
            segments: SegmentStore::new(),
            now: SimTime::ZERO,
            received: Vec::new(),
        }
    }

    /// The same port fragmenting and interleaving as `lfi` (YAML) asks, at `bandwidth_bps`.
    fn with_lfi(mut self, lfi: &str, bandwidth_bps: u64) -> Self {
        let (value, _) = crate::config::yaml::parse(lfi).expect("settings");
        let spec: crate::net::lfi::LfiSpec = serde_json::from_value(value).expect("valid settings");
        self.port.lfi = Some(Lfi::build(&spec, "lfi", bandwidth_bps).expect("it builds"));
        self
    }

    /// At `at_ns` the link's rate becomes `rate_bps` and the discipline `policy` (YAML).
    fn change_at(&mut self, at_ns: u64, rate_bps: u64, policy: &str) {
        let change = PortChange {
            at: SimTime(at_ns),
            rate_bps: Some(rate_bps),
            bandwidth_bps: None,
            discipline: Some((build(policy), "a test's change".into())),
        };
        self.port.schedule.push_back(change);
        // As a port built with a change of discipline to come does: it stamps arrivals, so
        // that the held packets are handed over in their order of arrival.
        self.port.stamps_arrivals = true;
        self.events.schedule(SimTime(at_ns), Event::PortChange(PortId(0)));
    }

    fn env(&mut self) -> (&mut Port, PortEnv<'_>) {
        let env = PortEnv {
            now: self.now,
            events: &mut self.events,
            observers: &mut self.observers,
            dropped_packets: &mut self.dropped,
            segments: &mut self.segments,
        };
        (&mut self.port, env)
    }

    /// Packet `id` of `size_bytes` with `dscp` arrives for the link at `at_ns` (the events
    /// before then handled first).
    fn arrive(&mut self, at_ns: u64, id: u64, size_bytes: u32, dscp: u8) {
        self.run_until(at_ns);
        self.now = SimTime(at_ns);
        let (port, mut env) = self.env();
        port.enqueue(Packet { flow: FlowId(0), ..packet(id, size_bytes, dscp) }, &mut env);
    }

    /// Handles the port's events due by `until_ns`.
    fn run_until(&mut self, until_ns: u64) {
        while let Some((at, event)) = self.events.pop_before(SimTime(until_ns + 1)) {
            self.now = at;
            let (port, mut env) = self.env();
            match event {
                Event::TransmitDone(_) => {
                    if port.transmit_done(&mut env) {
                        self.arrival();
                    }
                }
                Event::LinkArrival(_) => self.arrival(),
                Event::PortWake(_) => port.wake(&mut env),
                Event::PortChange(index) => {
                    if let Some(next) = port.apply_changes(&mut env) {
                        env.events.schedule(next, Event::PortChange(index));
                    }
                }
                other => panic!("a port schedules no {other:?}"),
            }
        }
    }

    fn arrival(&mut self) {
        if self.port.receive() == Some(false) {
            let packet = self.port.take_received();
            self.received.push((packet.id, self.now));
        }
    }

    /// The packets held past the discipline: in the ring, the one on the wire included.
    fn in_ring(&self) -> usize {
        self.port.frames.len() - self.port.propagating
    }
}

const MS: u64 = 1_000_000;

#[test]
fn a_frame_leaves_after_its_bits_at_the_link_rate() {
    // 1000 B at 1 Mbit/s: 8 ms on the wire; the next frame starts when it ends.
    let mut bench = Bench::new(1_000_000, 2, "{kind: fifo}");
    bench.arrive(0, 1, 1000, 0);
    bench.arrive(0, 2, 500, 0);
    bench.run_until(100 * MS);
    assert_eq!(bench.received, [(1, SimTime(8 * MS)), (2, SimTime(12 * MS))]);
    assert_eq!(bench.port.wire.busy_ns, 12 * MS);
    assert_eq!((bench.port.wire.sent_packets, bench.port.wire.sent_bytes), (2, 1500));
}

#[test]
fn the_ring_takes_packets_from_the_discipline_as_it_empties() {
    // A ring of 2: the frame on the wire and one waiting; the other three stay in the FIFO,
    // and each frame that leaves lets one more into the ring.
    let mut bench = Bench::new(1_000_000, 2, "{kind: fifo}");
    for id in 1..=5 {
        bench.arrive(0, id, 1000, 0);
    }
    assert_eq!((bench.in_ring(), bench.port.qdisc.len_packets()), (2, 3));
    bench.run_until(8 * MS);
    assert_eq!((bench.in_ring(), bench.port.qdisc.len_packets()), (2, 2));
    bench.run_until(32 * MS);
    assert_eq!((bench.in_ring(), bench.port.qdisc.len_packets()), (1, 0));
    bench.run_until(40 * MS);
    assert_eq!(bench.received.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    assert!(!bench.port.idle_with_backlog());
}

#[test]
fn a_longer_ring_delays_a_priority_packet_by_the_frames_it_holds() {
    // 1500 B of best effort take 12 ms each at 1 Mbit/s. A 100 B EF packet (0.8 ms) arrives
    // at 1 ms behind three of them: with a ring of 1 it waits for the frame on the wire only
    // (done at 12 + 0.8 ms); with a ring of 2 also for the one waiting in the ring (24.8 ms).
    let policy =
        "{kind: prio, bands: [{name: high}, {name: low}], classify: [{match: {dscp: EF}, band: high}]}";
    for (ring, done_ns) in [(1, 12_800_000), (2, 24_800_000)] {
        let mut bench = Bench::new(1_000_000, ring, policy);
        for id in 1..=3 {
            bench.arrive(0, id, 1500, 0);
        }
        bench.arrive(MS, 99, 100, 46);
        bench.run_until(100 * MS);
        let voice = bench.received.iter().find(|r| r.0 == 99).expect("delivered");
        assert_eq!(voice.1, SimTime(done_ns), "ring {ring}");
    }
}

#[test]
fn an_empty_fifo_passes_a_packet_straight_to_the_wire_and_counts_it() {
    let mut bench = Bench::new(1_000_000, 2, "{kind: fifo}");
    bench.arrive(0, 1, 1000, 0);
    // On the wire at once, the FIFO's counters as if it had queued and sent it.
    assert_eq!((bench.in_ring(), bench.port.qdisc.len_packets()), (1, 0));
    let class = &bench.port.class_stats[0];
    assert_eq!((class.enqueued_packets, class.dequeued_packets, class.backlog_packets), (1, 1, 0));
    bench.run_until(10 * MS);
    assert_eq!(bench.received, [(1, SimTime(8 * MS))]);
}

#[test]
fn fragmentation_lets_a_priority_packet_in_after_one_fragment() {
    // 128 kbit/s, fragments of 10 ms: 160 B of payload + a 4 B multilink header, 10.25 ms
    // each. A 100 B EF packet (6.25 ms) arriving at 1 ms behind a 1500 B packet goes after
    // the first fragment (done at 16.5 ms) with a ring of 1, after the fragment waiting in
    // the ring too with a ring of 2 (26.75 ms), and without fragmentation after the whole
    // packet (93.75 + 6.25 = 100 ms).
    let llq =
        "{kind: cbwfq, classes: [{name: voice, match: {dscp: EF}, priority: 64kbps}, {name: class-default}]}";
    let lfi = "{fragment_delay: 10ms, interleave: true}";
    let cases = [(1, Some(lfi), 16_500_000), (2, Some(lfi), 26_750_000), (1, None, 100 * MS)];
    for (ring, lfi, done_ns) in cases {
        let mut bench = Bench::new(128_000, ring, llq);
        if let Some(lfi) = lfi {
            bench = bench.with_lfi(lfi, 128_000);
        }
        bench.arrive(0, 1, 1500, 0);
        bench.arrive(MS, 99, 100, 46);
        bench.run_until(200 * MS);
        let voice = bench.received.iter().find(|r| r.0 == 99).expect("delivered");
        assert_eq!(voice.1, SimTime(done_ns), "ring {ring}, lfi {lfi:?}");
        // The large packet is delivered with its last fragment, after the voice packet.
        let order: Vec<u64> = bench.received.iter().map(|r| r.0).collect();
        assert_eq!(order, if lfi.is_some() { [99, 1] } else { [1, 99] }, "ring {ring}, lfi {lfi:?}");
    }
}

#[test]
fn a_new_discipline_takes_the_held_packets_in_their_arrival_order() {
    // Three 1000 B best-effort packets at 0 (one on the wire, two in the FIFO) and a 100 B
    // EF packet at 0.5 ms behind them. At 1 ms the link goes to 2 Mbit/s and the FIFO is
    // replaced by priority queuing: the three held packets are handed over in arrival order,
    // the EF one to the high band. The frame on the wire ends at its old rate (8 ms); then EF
    // (0.4 ms at the new rate), then the other two (4 ms each).
    let mut bench = Bench::new(1_000_000, 1, "{kind: fifo}");
    bench.change_at(
        MS,
        2_000_000,
        "{kind: prio, bands: [{name: high}, {name: low}], classify: [{match: {dscp: EF}, band: high}]}",
    );
    for id in 1..=3 {
        bench.arrive(0, id, 1000, 0);
    }
    bench.arrive(MS / 2, 4, 100, 46);
    bench.run_until(100 * MS);
    let times: Vec<(u64, u64)> = bench.received.iter().map(|&(id, at)| (id, at.0)).collect();
    assert_eq!(times, [(1, 8 * MS), (4, 8_400_000), (2, 12_400_000), (3, 16_400_000)]);
    let change = &bench.port.changes[0];
    assert_eq!((change.kind, change.handed_over_packets, change.refused_packets), ("prio", 3, 0));
    assert_eq!(bench.port.retired[0].kind, "fifo");
}

/// What a frame's passage reads and writes stays in the port's first four cache lines, as
/// the layout's comment says: a field added before them would push them apart.
#[test]
fn a_frames_fields_stay_in_the_ports_first_four_cache_lines() {
    use std::mem::{align_of, offset_of, size_of_val};
    assert_eq!(align_of::<Port>(), 64);
    let port = &Bench::new(1_000_000, 2, "{kind: fifo}").port;
    let ends = [
        offset_of!(Port, frames) + size_of_val(&port.frames),
        offset_of!(Port, propagating) + size_of_val(&port.propagating),
        offset_of!(Port, on_wire) + size_of_val(&port.on_wire),
        offset_of!(Port, last_frame) + size_of_val(&port.last_frame),
        offset_of!(Port, config) + size_of_val(&port.config),
        offset_of!(Port, last_busy) + size_of_val(&port.last_busy),
        offset_of!(Port, wire) + size_of_val(&port.wire),
        offset_of!(Port, link_lost_packets) + size_of_val(&port.link_lost_packets),
    ];
    assert!(ends.iter().all(|&end| end <= 4 * 64), "{ends:?}");
}
