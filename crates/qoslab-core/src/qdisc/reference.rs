//! Plain reference versions of the work-conserving schedulers, each written from its
//! primary source with nothing but a `VecDeque` per queue, and property tests that drive
//! them and the fast disciplines with the same generated arrivals and departures: the
//! packets sent, in order, and the number dropped must agree.
//!
//! * FIFO with tail drop at a packet limit (IOS's output hold queue, Linux `pfifo`) or a byte
//!   limit (Linux `bfifo`: a packet that would take the backlog past the limit is dropped).
//! * Strict priority (IOS priority queuing, Cisco IOS Quality of Service Solutions
//!   Configuration Guide, "Priority Queuing"; Linux `prio`): the highest non-empty band is
//!   served first; each band drops at its own limit.
//! * Deficit round robin (M. Shreedhar and G. Varghese, "Efficient Fair Queueing Using
//!   Deficit Round Robin", SIGCOMM 1995; Linux `sch_drr`): a class that turns backlogged joins
//!   the tail of the active list with one quantum of deficit; the class at the head sends its
//!   head packet when the deficit covers it, else gains a quantum and moves to the tail; a
//!   class that empties leaves the list.
//!
//! The cases come from a fixed seed, so every run checks the same ones.

use super::testing::{harness, packet, INTERFACE};
use super::{Dequeue, PolicySpec, Qdisc};
use crate::packet::Packet;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed, TestRunner};
use std::collections::VecDeque;

/// A reference scheduler: takes a packet (false: dropped) and gives the next one.
trait Reference {
    fn enqueue(&mut self, packet: Packet) -> bool;
    fn dequeue(&mut self) -> Option<Packet>;
}

/// One step of a generated workload: a packet arrives (size, DSCP), or the link asks for one.
#[derive(Clone, Copy, Debug)]
enum Step {
    Arrive(u32, u8),
    Depart,
}

/// The DSCPs of the generated packets: EF, AF11 and best effort.
const DSCPS: [u8; 3] = [46, 10, 0];

/// The sizes of the generated packets: few, so that backlogs and deficits meet limits and
/// packet sizes exactly.
const SIZES_BYTES: [u32; 6] = [64, 100, 300, 500, 1000, 1500];

/// The class of a packet in the three-class policies below: EF, AF11, the rest.
fn class_of(packet: &Packet) -> usize {
    DSCPS.iter().position(|&d| d == packet.dscp).unwrap_or(2)
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        3 => (prop::sample::select(&SIZES_BYTES[..]), 0usize..3).prop_map(|(size, d)| Step::Arrive(size, DSCPS[d])),
        2 => Just(Step::Depart),
    ];
    proptest::collection::vec(step, 1..200)
}

fn config(seed: u64) -> Config {
    Config {
        cases: 256,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(seed),
        ..Config::default()
    }
}

/// Runs `steps` through the discipline of `policy` (YAML) and through `reference`, then
/// drains both: the ids sent and the drops must be the same.
fn agree(
    policy: &str,
    classes: usize,
    steps: &[Step],
    mut reference: impl Reference,
) -> Result<(), TestCaseError> {
    let (value, _) = crate::config::yaml::parse(policy).expect("a policy");
    let spec: PolicySpec = serde_json::from_value(value).expect("a valid policy");
    let mut fast = spec.build("p", INTERFACE, &|_| None).expect("it builds");
    let mut h = harness(classes);
    let (mut sent_fast, mut sent_reference, mut dropped_reference) = (Vec::new(), Vec::new(), 0u64);
    let mut depart =
        |fast: &mut super::AnyQdisc, h: &mut super::testing::Harness, reference: &mut dyn Reference| {
            if let Dequeue::Packet(p) = fast.dequeue(&mut h.ctx()) {
                sent_fast.push(p.id);
            }
            if let Some(p) = reference.dequeue() {
                sent_reference.push(p.id);
            }
        };
    for (id, step) in (1..).zip(steps) {
        match *step {
            Step::Arrive(size, dscp) => {
                fast.enqueue(packet(id, size, dscp), &mut h.ctx());
                dropped_reference += u64::from(!reference.enqueue(packet(id, size, dscp)));
            }
            Step::Depart => depart(&mut fast, &mut h, &mut reference),
        }
    }
    for _ in 0..steps.len() {
        depart(&mut fast, &mut h, &mut reference);
    }
    prop_assert_eq!(&sent_fast, &sent_reference, "{}", policy);
    prop_assert_eq!(h.dropped, dropped_reference, "{}", policy);
    prop_assert_eq!(fast.len_packets(), 0);
    Ok(())
}

/// A FIFO dropping at `limit_packets` packets or `limit_bytes` bytes.
struct Fifo {
    queue: VecDeque<Packet>,
    limit_packets: usize,
    limit_bytes: u64,
}

impl Reference for Fifo {
    fn enqueue(&mut self, packet: Packet) -> bool {
        let held_bytes: u64 = self.queue.iter().map(|p| u64::from(p.size_bytes)).sum();
        let fits = self.queue.len() < self.limit_packets
            && held_bytes + u64::from(packet.size_bytes) <= self.limit_bytes;
        if fits {
            self.queue.push_back(packet);
        }
        fits
    }

    fn dequeue(&mut self) -> Option<Packet> {
        self.queue.pop_front()
    }
}

/// Strict priority among three bands, each dropping at its limit in packets.
struct Priority {
    bands: [VecDeque<Packet>; 3],
    limits: [usize; 3],
}

impl Reference for Priority {
    fn enqueue(&mut self, packet: Packet) -> bool {
        let band = class_of(&packet);
        let fits = self.bands[band].len() < self.limits[band];
        if fits {
            self.bands[band].push_back(packet);
        }
        fits
    }

    fn dequeue(&mut self) -> Option<Packet> {
        self.bands.iter_mut().find_map(VecDeque::pop_front)
    }
}

/// Deficit round robin among three classes.
struct DeficitRoundRobin {
    queues: [VecDeque<Packet>; 3],
    limits: [usize; 3],
    quanta: [u64; 3],
    deficits: [u64; 3],
    active: VecDeque<usize>,
}

impl Reference for DeficitRoundRobin {
    fn enqueue(&mut self, packet: Packet) -> bool {
        let class = class_of(&packet);
        if self.queues[class].len() >= self.limits[class] {
            return false;
        }
        self.queues[class].push_back(packet);
        if self.queues[class].len() == 1 {
            self.active.push_back(class);
            self.deficits[class] = self.quanta[class];
        }
        true
    }

    fn dequeue(&mut self) -> Option<Packet> {
        loop {
            let &class = self.active.front()?;
            let size =
                u64::from(self.queues[class].front().expect("an active class holds packets").size_bytes);
            if size <= self.deficits[class] {
                self.deficits[class] -= size;
                let packet = self.queues[class].pop_front();
                if self.queues[class].is_empty() {
                    self.active.pop_front();
                }
                return packet;
            }
            self.deficits[class] += self.quanta[class];
            self.active.rotate_left(1);
        }
    }
}

#[test]
fn fifo_agrees_with_the_reference() {
    let cases =
        (1usize..8, prop_oneof![Just(None), (15u64..60).prop_map(|hundreds| Some(hundreds * 100))], steps());
    TestRunner::new(config(1))
        .run(&cases, |(packets, bytes, steps)| {
            let (policy, limit_packets, limit_bytes) = match bytes {
                None => (format!("{{kind: fifo, limit: {packets}}}"), packets, u64::MAX),
                Some(b) => (format!("{{kind: fifo, limit: \"{b}B\"}}"), usize::MAX, b),
            };
            agree(&policy, 1, &steps, Fifo { queue: VecDeque::new(), limit_packets, limit_bytes })
        })
        .unwrap();
}

#[test]
fn priority_agrees_with_the_reference() {
    let cases = ([1usize..6, 1usize..6, 1usize..6], steps());
    TestRunner::new(config(2))
        .run(&cases, |(limits, steps)| {
            let policy = format!(
                "{{kind: prio, bands: [{{name: hi, limit: {}}}, {{name: mid, limit: {}}}, {{name: lo, limit: {}}}], \
                 classify: [{{match: {{dscp: EF}}, band: hi}}, {{match: {{dscp: AF11}}, band: mid}}]}}",
                limits[0], limits[1], limits[2]
            );
            agree(&policy, 3, &steps, Priority { bands: Default::default(), limits })
        })
        .unwrap();
}

#[test]
fn deficit_round_robin_agrees_with_the_reference() {
    let cases = ([1usize..6, 1usize..6, 1usize..6], [1u64..30, 1u64..30, 1u64..30], steps());
    TestRunner::new(config(3))
        .run(&cases, |(limits, quanta, steps)| {
            let quanta = quanta.map(|hundreds| hundreds * 100);
            let class = |name: &str, condition: &str, i: usize| {
                format!("{{name: {name}, {condition}quantum: {}B, limit: {}}}", quanta[i], limits[i])
            };
            let policy = format!(
                "{{kind: drr, classes: [{}, {}, {}]}}",
                class("a", "match: {dscp: EF}, ", 0),
                class("b", "match: {dscp: AF11}, ", 1),
                class("c", "", 2)
            );
            let reference = DeficitRoundRobin {
                queues: Default::default(),
                limits,
                quanta,
                deficits: [0; 3],
                active: VecDeque::new(),
            };
            agree(&policy, 3, &steps, reference)
        })
        .unwrap();
}
