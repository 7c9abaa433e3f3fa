//! The egress port: queuing discipline → transmit ring → serializer → propagation.
//!
//! ```text
//!  enqueue ──► qdisc ──► transmit ring (FIFO, `tx_ring` packets) ──► wire (rate) ──► peer
//! ```
//!
//! **What `tx_ring` counts.** The ring size is the number of packets the hardware queue
//! holds *including the frame being serialized*. With `tx_ring: 1` the discipline is asked
//! for a packet only when the wire falls idle, so a priority packet waits at most for the
//! residue of the frame on the wire. With `tx_ring: 2` one more frame may already be
//! committed behind it, adding up to one more maximum-size frame time; and so on. IOS and
//! Linux both poll the software queue only when the ring has room (Cisco tech note 6142,
//! "Understanding and Tuning the tx-ring-limit Value"; Linux `net/sched/sch_generic.c`).
//! Default: 2 — the smallest ring on Cisco's per-VC table for links under 2 Mbit/s
//! (the serial-port default is not documented; set it per link).
//!
//! Serialization time = (IP size + L2 overhead) × 8 / rate, rounded up to the nanosecond.
//! Frames arrive at the peer one propagation delay after their last bit left, in order.
//!
//! **Straight through.** A packet that finds the discipline an empty FIFO (without a
//! dropper, with room for it) and the ring with room goes straight to the ring, counted as
//! enqueued and dequeued at once — what a trip through the queue would count — as Linux
//! lets a packet bypass an empty work-conserving qdisc (`TCQ_F_CAN_BYPASS`).
//!
//! **Fragmentation.** With `lfi`, large packets leave as multilink fragments with priority
//! packets between them; see [`super::lfi`].
//!
//! **Reconfiguration.** The discipline may be replaced during the run, by a scheduled
//! configuration change or because a rate change re-sizes the policy; see
//! [`super::reconfiguration`].
//!
//! **Input.** The port also stands for the interface's receiving side: an input policy
//! (IOS `service-policy input`, a [`Conditioner`]) on the interface `node->peer` conditions
//! the packets `node` receives from `peer` — those the reverse port `peer->node` delivers —
//! before `node` delivers or routes them. Its drops and re-markings are counted here.

use super::lfi::{Lfi, Train};
use super::link_loss::LinkLoss;
use super::reconfiguration::{ChangeLog, PortChange, RetiredDiscipline};
use crate::condition::{Conditioner, Verdict};
use crate::engine::{Event, EventQueue};
use crate::ids::{NodeId, PortId};
use crate::measure::class_series::ClassSeries;
use crate::measure::trace::{Row, TraceEvent, NONE};
use crate::measure::{DropCounters, DropReason, Observers, Place, QueueStats};
use crate::net::pcap::PortCapture;
use crate::packet::NO_HOP;
use crate::packet::{take_oldest, Fragment, Packet, SegmentStore};
use crate::qdisc::packet_queue::RESERVED_PACKETS;
use crate::qdisc::{AnyQdisc, Dequeue, Qdisc, QdiscCtx};
use crate::time::{transmission_ns, SimTime};
use std::collections::VecDeque;

/// Default transmit ring size, packets (including the frame on the wire).
pub const DEFAULT_TX_RING_PACKETS: u32 = 2;

/// Static facts of a port.
#[derive(Clone, Debug)]
pub struct PortConfig {
    /// `node->peer`.
    pub name: String,
    /// Sending node.
    pub node: NodeId,
    /// Receiving node.
    pub peer: NodeId,
    /// Physical rate, bit/s (> 0).
    pub rate_bps: u64,
    /// Per-frame layer-2 overhead, bytes.
    pub l2_overhead_bytes: u32,
    /// The framing that overhead stands for (the link-layer header of a packet capture).
    pub l2_framing: crate::net::l2::L2Framing,
    /// Propagation delay, ns.
    pub propagation_ns: u64,
    /// Largest IP packet the link carries, bytes.
    pub mtu_bytes: u32,
    /// Transmit ring size, packets, including the frame on the wire (≥ 1).
    pub tx_ring_packets: u32,
    /// QoS bandwidth (IOS `bandwidth`) when set explicitly, bit/s; otherwise the physical
    /// rate stands in for it.
    pub bandwidth_bps: Option<u64>,
}

impl PortConfig {
    /// The interface's QoS bandwidth: the explicit one, or the physical rate.
    pub fn qos_bandwidth_bps(&self) -> u64 {
        self.bandwidth_bps.unwrap_or(self.rate_bps)
    }
}

/// Counters of what the port put on the wire in the measured window.
#[derive(Clone, Debug, Default)]
pub struct WireCounters {
    /// Frames whose transmission completed.
    pub sent_packets: u64,
    /// Their IP bytes.
    pub sent_bytes: u64,
    /// Time the wire was busy, ns (frames straddling the window edges count only for
    /// their part inside it).
    pub busy_ns: u64,
    /// Layer-2 bits those busy times carried (busy time × the rate each frame was sent at).
    pub l2_bits: f64,
}

/// Counters of the interface's input policy in the measured window.
#[derive(Clone, Debug, Default)]
pub struct InputCounters {
    /// Packets the input policy dropped, by reason.
    pub drops: DropCounters,
    /// Packets whose DSCP the input policy changed.
    pub remarked_packets: u64,
}

/// The run's shared state a port works with during one event.
pub struct PortEnv<'a> {
    /// Current time.
    pub now: SimTime,
    /// The future event list.
    pub events: &'a mut EventQueue,
    /// Per-flow statistics and ΔQ accounting (drops are charged to flows).
    pub observers: &'a mut Observers,
    /// The run's dropped-packet total.
    pub dropped_packets: &'a mut u64,
    /// The TCP headers of the segments on the network (read by the trace and the capture,
    /// released by drops).
    pub segments: &'a mut SegmentStore,
}

/// The context of port `$port`'s discipline during the event of `$env`: the port's counters
/// (its totals left out while its one class keeps them) and the run's observers. A macro, so
/// that it borrows the port field by field and leaves its discipline, ring and wire free.
macro_rules! qdisc_ctx {
    ($port:expr, $env:expr, $ring_has_room:expr) => {
        QdiscCtx::new(
            $port.place($env.now, $ring_has_room),
            &mut $port.class_stats,
            (!$port.totals_in_class).then_some(&mut $port.queue_stats),
            $env.observers,
            $env.dropped_packets,
            $env.segments,
            &mut $port.dropper_draws,
        )
    };
}

/// An egress port.
///
/// Laid out in the order of its fields (`repr(C)`), from the start of a cache line: what a
/// frame's passage reads and writes first (the ring, the wire's state, the link's facts,
/// the wire counters: the first four lines), then the optional parts a frame only tests
/// for, then the discipline and its counters, then what only the run's start, changes and
/// end read. A port is about 1.5 kB; with the compiler's order, a hop touched some ten of
/// its lines, which a network of hundreds of ports cannot keep in the first-level cache.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Port {
    /// The frames past the discipline, oldest first: the first `propagating` of them on the
    /// link, the rest in the transmit ring. A frame moves from the ring to the link by
    /// moving the boundary, not the frame.
    frames: VecDeque<Packet>,
    /// How many of `frames` are propagating.
    propagating: usize,
    /// When the frame at the ring's front started on the wire, and at what rate; None while
    /// the wire is idle.
    on_wire: Option<(SimTime, u64)>,
    /// The last frame's size, bytes, the rate it was sent at and its frame time, ns.
    last_frame: (u32, u64, u64),
    /// Static facts.
    pub config: PortConfig,
    wake_at: Option<SimTime>,
    /// The last busy time counted, ns, its rate and the layer-2 bits it carried.
    last_busy: (u64, u64, f64),
    window_start: SimTime,
    /// Wire counters.
    pub wire: WireCounters,
    /// Frames the link lost in the measured window.
    pub link_lost_packets: u64,
    index: PortId,
    /// The slot of this port among the observed hops ([`NO_HOP`] if not observed).
    pub observe_slot: u32,
    /// Whether arriving packets are stamped with the time they arrive (`hop_in`): at an
    /// observed hop, whose delay is measured, and where a discipline is to be replaced,
    /// which hands its packets over in their order of arrival. Nowhere else is the stamp
    /// read, and writing a field of a packet just before it is copied into the discipline
    /// stalls the copy (the copy's wide loads wait for the narrow store).
    stamps_arrivals: bool,
    /// Whether the discipline's one class keeps the port's totals: true from the start for
    /// a discipline of one class, until a discipline is replaced.
    totals_in_class: bool,
    /// Whether the link lost a fragment of the packet now arriving in fragments.
    reassembly_broken: bool,
    /// Link fragmentation and interleaving, if configured.
    pub lfi: Option<Lfi>,
    /// The packet capture of the frames this port sends, when one was asked for.
    pub capture: Option<Box<PortCapture>>,
    /// The input policy of this interface: conditions what it receives from the peer.
    pub ingress: Option<Conditioner>,
    /// The packet whose fragments are being handed to the ring.
    train: Option<Train>,
    /// The link's random loss in this direction, if any.
    pub link_loss: Option<LinkLoss>,
    /// The queuing discipline.
    pub qdisc: AnyQdisc,
    /// Totals over the discipline's classes (at the end of the run; while `totals_in_class`,
    /// its one class keeps them during the run).
    pub queue_stats: QueueStats,
    /// Per-class counters of the discipline.
    pub class_stats: Vec<QueueStats>,
    /// The input policy's counters.
    pub input: InputCounters,
    /// 64-bit random outputs drawn by the droppers of all its disciplines, replaced ones
    /// included.
    pub dropper_draws: u64,
    /// Changes still to come (rate, bandwidth, discipline), in time order.
    pub schedule: VecDeque<PortChange>,
    /// When the current discipline was installed.
    pub since: SimTime,
    /// Disciplines used earlier in the run, in order.
    pub retired: Vec<RetiredDiscipline>,
    /// The replacements made so far.
    pub changes: Vec<ChangeLog>,
    /// A QoS bandwidth the fragment size is to follow once no fragment of the old size
    /// waits, bit/s.
    lfi_bandwidth_bps: Option<u64>,
}

/// What a port is built from: its static facts, its output discipline and the rest of its
/// interface's settings.
pub struct PortSetup {
    pub config: PortConfig,
    pub qdisc: AnyQdisc,
    /// The input policy, if the interface has one.
    pub ingress: Option<Conditioner>,
    /// The link's random loss in this direction, if any.
    pub link_loss: Option<LinkLoss>,
    /// Link fragmentation and interleaving, if configured.
    pub lfi: Option<Lfi>,
    /// The slot of this port among the observed hops ([`NO_HOP`] if not observed).
    pub observe_slot: u32,
    /// Changes to come (rate, bandwidth, discipline), in time order.
    pub schedule: VecDeque<PortChange>,
}

impl Port {
    /// A port with index `index` in the network's port list; each class of its discipline
    /// keeps a per-interval series of length `class_series_ns` when one is given.
    pub fn new(index: PortId, setup: PortSetup, class_series_ns: Option<u64>) -> Self {
        let PortSetup { config, qdisc, ingress, link_loss, lfi, observe_slot, schedule } = setup;
        let mut class_stats = QueueStats::default();
        class_stats.series = class_series_ns.map(|length_ns| Box::new(ClassSeries::new(length_ns)));
        let classes = qdisc.class_names().len();
        let stamps_arrivals = observe_slot != NO_HOP || schedule.iter().any(|c| c.discipline.is_some());
        Port {
            frames: VecDeque::with_capacity((config.tx_ring_packets as usize).min(RESERVED_PACKETS)),
            propagating: 0,
            config,
            qdisc,
            class_stats: vec![class_stats; classes],
            queue_stats: QueueStats::default(),
            totals_in_class: classes == 1,
            wire: WireCounters::default(),
            ingress,
            input: InputCounters::default(),
            link_loss,
            link_lost_packets: 0,
            dropper_draws: 0,
            observe_slot,
            stamps_arrivals,
            schedule,
            since: SimTime::ZERO,
            retired: Vec::new(),
            changes: Vec::new(),
            lfi,
            capture: None,
            lfi_bandwidth_bps: None,
            train: None,
            reassembly_broken: false,
            index,
            on_wire: None,
            wake_at: None,
            last_frame: (0, 0, 0),
            last_busy: (0, 0, 0.0),
            window_start: SimTime::ZERO,
        }
    }

    /// Frame time of a frame of `bytes` (a whole packet or a fragment, IP bytes) on this
    /// link now, ns. The last size and rate are remembered with their frame time: frames of
    /// one size follow each other, and a division is the costliest step of sending one.
    #[inline]
    fn frame_ns(&mut self, bytes: u32) -> u64 {
        let (last_bytes, last_rate_bps, last_ns) = self.last_frame;
        if bytes == last_bytes && self.config.rate_bps == last_rate_bps {
            return last_ns;
        }
        let bits = (bytes as u64 + self.config.l2_overhead_bytes as u64) * 8;
        let ns = transmission_ns(bits, self.config.rate_bps);
        self.last_frame = (bytes, self.config.rate_bps, ns);
        ns
    }

    /// Where and when this port's discipline works now.
    #[inline(always)]
    fn place(&self, now: SimTime, ring_has_room: bool) -> Place {
        Place { now, rate_bps: self.config.rate_bps, port: Some(self.index), ring_has_room }
    }

    /// Packets the discipline holds, as its counters have them.
    #[inline]
    fn backlog_packets(&self) -> u64 {
        match self.totals_in_class {
            true => self.class_stats[0].backlog_packets,
            false => self.queue_stats.backlog_packets,
        }
    }

    /// The port's totals taken from its one class, which kept them so far; from now on
    /// they are kept apart.
    fn take_totals_from_class(&mut self) {
        if std::mem::take(&mut self.totals_in_class) {
            self.queue_stats = self.class_stats[0].without_series();
        }
    }

    /// Whether the transmit ring (the frame on the wire included) has a free slot.
    #[inline]
    fn ring_has_room(&self) -> bool {
        self.frames.len() - self.propagating < self.config.tx_ring_packets as usize
    }

    /// 64-bit random outputs drawn so far by the port's droppers and its link's loss model.
    pub fn random_draws(&self) -> u64 {
        self.dropper_draws + self.link_loss.as_ref().map_or(0, LinkLoss::random_draws)
    }

    /// A packet arrives for transmission.
    #[inline(always)]
    pub fn enqueue(&mut self, mut packet: Packet, env: &mut PortEnv) {
        // A packet is in no observed hop between ports (the link arrival took it out).
        debug_assert_eq!(packet.hop_slot, NO_HOP);
        if self.stamps_arrivals {
            packet.hop_in = env.now;
            if self.observe_slot != NO_HOP {
                packet.hop_slot = self.observe_slot;
                if packet.counted {
                    env.observers.on_hop_arrival(&packet);
                }
            }
        }
        if let Some(trace) = &mut env.observers.trace {
            let queue_packets = self.backlog_packets() as u32;
            let row = Row { event: TraceEvent::Arrival, class: NONE, queue_packets, reason: None };
            trace.at_port(env.now, &packet, env.segments, self.index, row);
        }
        if self.lfi.is_none() && self.ring_has_room() && self.qdisc.surely_empty() {
            // An empty FIFO with room for the packet would hand it out at once.
            let mut ctx = qdisc_ctx!(self, env, true);
            if self.qdisc.pass_through(&packet, &mut ctx) {
                self.frames.push_back(packet);
                self.start_wire(env);
                return;
            }
        }
        self.fill_ring(
            env,
            #[inline(always)]
            move |qdisc, ctx| qdisc.enqueue(packet, ctx),
        );
        self.start_wire(env);
    }

    /// Moves packets from the discipline into the ring while it has room, and starts the
    /// wire if it is idle. Nothing is asked when the ring is full or nothing waits for it
    /// (with fragmentation, the fragment size may still have to change in the ring's
    /// filling).
    #[inline(always)]
    fn service(&mut self, env: &mut PortEnv) {
        if self.ring_has_room() && (self.lfi.is_some() || !self.qdisc.surely_empty()) {
            self.fill_ring(env, |_, _| {});
        }
        self.start_wire(env);
    }

    /// Lets `offer` give the discipline the arriving packet, if any, then asks it for
    /// packets while the ring has room, one context serving every call. With fragmentation,
    /// a packet larger than the fragment size goes in as a train of fragments, with priority
    /// packets between them. (The arriving packet comes inside `offer` rather than as an
    /// `Option<Packet>`: an option's tag sits in a field of the packet, and copying the
    /// packet out of it stalled on reading that field back.)
    #[inline(always)]
    fn fill_ring(&mut self, env: &mut PortEnv, offer: impl FnOnce(&mut AnyQdisc, &mut QdiscCtx)) {
        let ring_packets = self.config.tx_ring_packets as usize;
        let ring_has_room = self.ring_has_room();
        let mut ctx = qdisc_ctx!(self, env, ring_has_room);
        offer(&mut self.qdisc, &mut ctx);
        // Only an arrival asks whether the ring has room (LLQ's conditional policer).
        ctx.ring_has_room = false;
        while self.frames.len() - self.propagating < ring_packets {
            if let Some(lfi) = &mut self.lfi {
                if self.train.is_none() && self.lfi_bandwidth_bps.is_some() {
                    // The frames waiting in the ring, not the one on the wire.
                    let in_ring = self.propagating + usize::from(self.on_wire.is_some());
                    Self::resize_fragments(
                        lfi,
                        &mut self.lfi_bandwidth_bps,
                        self.frames.iter().skip(in_ring),
                    );
                }
                if let Some(train) = &mut self.train {
                    // A priority packet goes between two fragments.
                    if lfi.interleave {
                        if let Some(packet) = self.qdisc.dequeue_interleaved(&mut ctx) {
                            self.frames.push_back(packet);
                            continue;
                        }
                    }
                    let (frame, last) = train.next_frame(lfi);
                    self.frames.push_back(frame);
                    if last {
                        self.train = None;
                    }
                    continue;
                }
            }
            if self.qdisc.surely_empty() {
                break;
            }
            match self.qdisc.dequeue(&mut ctx) {
                Dequeue::Packet(packet) => match &self.lfi {
                    Some(lfi) if lfi.fragments(packet.size_bytes) => {
                        self.train = Some(Train { packet, sent: 0 });
                    }
                    _ => self.frames.push_back(packet),
                },
                Dequeue::NotBefore(at) => {
                    // One pending wake-up per port, the earliest asked for.
                    if self.wake_at.is_none_or(|w| at < w) {
                        self.wake_at = Some(at);
                        env.events.schedule(at, Event::PortWake(self.index));
                    }
                    break;
                }
                Dequeue::Empty => break,
            }
        }
    }

    /// The frame at the ring's front goes on the wire when the wire is idle; it stays in the
    /// ring, taking its slot, until its last bit has left.
    #[inline(always)]
    fn start_wire(&mut self, env: &mut PortEnv) {
        if self.on_wire.is_none() {
            if let Some(packet) = self.frames.get(self.propagating) {
                if let Some(capture) = &mut self.capture {
                    capture.record(packet, env.segments, self.lfi.as_ref(), env.now);
                }
                if let (Some(trace), false) = (&mut env.observers.trace, packet.fragment == Fragment::Leading)
                {
                    let queue_packets = self.backlog_packets() as u32;
                    let row = Row { event: TraceEvent::Transmit, class: NONE, queue_packets, reason: None };
                    trace.at_port(env.now, packet, env.segments, self.index, row);
                }
                let bytes = match &self.lfi {
                    None => packet.size_bytes,
                    Some(lfi) => lfi.frame_bytes(packet),
                };
                let done = env.now.after(self.frame_ns(bytes));
                self.on_wire = Some((env.now, self.config.rate_bps));
                env.events.schedule_transmit_done(done, self.index);
            }
        }
    }

    /// The frame on the wire finished: it starts propagating, the next one starts. Returns
    /// true when the frame reaches the far end now, on a link without delay, and its arrival
    /// is the next event in (time, sequence) order — no other event is due by now — so that
    /// the caller handles it next without scheduling it; otherwise the arrival is scheduled.
    #[inline]
    pub fn transmit_done(&mut self, env: &mut PortEnv) -> bool {
        let (started, rate_bps) = self.on_wire.take().expect("TransmitDone with an idle wire");
        let packet = &self.frames[self.propagating];
        // A packet counts as sent with its last fragment.
        if packet.fragment != Fragment::Leading {
            self.wire.sent_packets += 1;
            self.wire.sent_bytes += packet.size_bytes as u64;
        }
        // The frame at the ring's front starts propagating.
        self.propagating += 1;
        self.count_busy(started, env.now, rate_bps);
        let arrives_next = self.config.propagation_ns == 0 && env.events.nothing_due_by(env.now);
        if !arrives_next {
            env.events.schedule(env.now.after(self.config.propagation_ns), Event::LinkArrival(self.index));
        }
        self.service(env);
        arrives_next
    }

    /// The oldest propagating frame reaches the peer. Returns `None` for a fragment that is
    /// not the last (it delivers nothing by itself and is discarded here); otherwise the
    /// frame completes a packet, which [`Port::take_received`] then hands over, and the
    /// answer is whether the link lost it (or, for a fragmented packet, any of its
    /// fragments; counted in `link_lost_packets`).
    ///
    /// The frame is looked at where it is and taken in one piece afterwards: a packet
    /// returned with its loss as `Option<(Packet, bool)>` was copied through pieces that
    /// stalled the copies after it.
    #[inline]
    pub fn receive(&mut self) -> Option<bool> {
        assert!(self.propagating > 0, "LinkArrival with nothing propagating");
        self.propagating -= 1;
        let lost = self.link_loss.as_mut().is_some_and(LinkLoss::lose);
        let front = self.frames.front_mut().expect("a propagating frame");
        let lost = match front.fragment {
            Fragment::Whole => lost,
            Fragment::Leading => {
                // A copy of the packet, handle of its segment included: the last fragment
                // alone carries the packet on, and frees the segment's slot when it leaves.
                self.reassembly_broken |= lost;
                self.frames.pop_front();
                return None;
            }
            Fragment::Last => {
                front.fragment = Fragment::Whole;
                lost || std::mem::take(&mut self.reassembly_broken)
            }
        };
        self.link_lost_packets += lost as u64;
        Some(lost)
    }

    /// The packet whose arrival [`Port::receive`] has just reported (whole again if it came
    /// in fragments).
    #[inline]
    pub fn take_received(&mut self) -> Packet {
        take_oldest(&mut self.frames)
    }

    /// Applies the input policy to `packet`, received on this interface at `now`; returns
    /// the drop reason if it is dropped (the caller charges the drop to the run and the
    /// flow). Counts drops and re-markings.
    #[inline]
    pub fn condition_input(&mut self, now: SimTime, packet: &mut Packet) -> Option<DropReason> {
        let conditioner = self.ingress.as_mut()?;
        let dscp_before = packet.dscp;
        // Counted from the start: the counters are reset when the measured window opens.
        match conditioner.apply(now, packet) {
            Verdict::Pass => {
                self.input.remarked_packets += u64::from(packet.dscp != dscp_before);
                None
            }
            Verdict::Drop(reason) => {
                self.input.drops.record(reason, packet.size_bytes);
                Some(reason)
            }
        }
    }

    /// Whether the wire is idle while the discipline or ring still holds packets — a
    /// work-conservation violation unless the discipline is deliberately holding them back.
    pub fn idle_with_backlog(&self) -> bool {
        // The discipline, asked through a call, last.
        self.on_wire.is_none()
            && self.wake_at.is_none()
            && (self.frames.len() > self.propagating || self.train.is_some() || self.qdisc.len_packets() > 0)
    }

    /// A wake-up the discipline asked for arrived: ask it again.
    pub fn wake(&mut self, env: &mut PortEnv) {
        // A later request may have replaced this one; only the current one counts.
        if self.wake_at == Some(env.now) {
            self.wake_at = None;
            self.service(env);
        }
    }

    /// Packets held anywhere in the port: discipline, fragmentation, ring, wire,
    /// propagating (a fragmented packet counts once, by its last fragment, wherever that is).
    pub fn packets_held(&self) -> u64 {
        let whole_or_last = |p: &Packet| p.fragment != Fragment::Leading;
        (self.qdisc.len_packets()
            + usize::from(self.train.is_some())
            + self.frames.iter().filter(|p| whole_or_last(p)).count()) as u64
    }

    /// Starts the measured window.
    pub fn start_window(&mut self, now: SimTime) {
        self.window_start = now;
        self.wire = WireCounters::default();
        self.input = InputCounters::default();
        self.link_lost_packets = 0;
        self.queue_stats.start_window(now);
        self.class_stats.iter_mut().for_each(|c| c.start_window(now));
        for retired in &mut self.retired {
            retired.class_stats.iter_mut().for_each(|c| c.start_window(now));
        }
    }

    /// Counts the wire busy from `started` to `now` at `rate_bps`, inside the window.
    fn count_busy(&mut self, started: SimTime, now: SimTime, rate_bps: u64) {
        let busy_ns = now.since(started.max(self.window_start));
        self.wire.busy_ns += busy_ns;
        // Frames of one size at one rate carry the same bits: the product and division are
        // made once for them (the same operations, so the same floating-point value).
        let (last_ns, last_rate_bps, last_bits) = self.last_busy;
        let bits = if busy_ns == last_ns && rate_bps == last_rate_bps {
            last_bits
        } else {
            let bits = busy_ns as f64 * rate_bps as f64 / 1e9;
            self.last_busy = (busy_ns, rate_bps, bits);
            bits
        };
        self.wire.l2_bits += bits;
    }

    /// Layer-2 bits put on the wire in the window: busy time × the rate of each frame, so
    /// frames straddling the window edges count only for their part inside it.
    pub fn sent_l2_bits(&self) -> f64 {
        self.wire.l2_bits
    }

    /// Applies the scheduled changes due now, each in order: a new physical rate (a frame
    /// already on the wire finishes at the rate it started with; the next frame starts at
    /// the new one), a new QoS bandwidth, a new discipline. Returns when the next is due.
    pub fn apply_changes(&mut self, env: &mut PortEnv) -> Option<SimTime> {
        while self.schedule.front().is_some_and(|c| c.at <= env.now) {
            let change = self.schedule.pop_front().expect("checked");
            if let Some(rate_bps) = change.rate_bps {
                self.config.rate_bps = rate_bps;
            }
            if change.bandwidth_bps.is_some() {
                self.config.bandwidth_bps = change.bandwidth_bps;
            }
            if self.lfi.is_some() {
                self.lfi_bandwidth_bps = Some(self.config.qos_bandwidth_bps());
            }
            if let Some((qdisc, cause)) = change.discipline {
                self.install(qdisc, cause, env);
            }
        }
        self.schedule.front().map(|c| c.at)
    }

    /// Applies a pending fragment size, `pending_bps`'s, once no fragment of the old size
    /// waits in the ring (between trains: a packet's fragments are all one size).
    fn resize_fragments<'a>(
        lfi: &mut Lfi,
        pending_bps: &mut Option<u64>,
        mut waiting: impl Iterator<Item = &'a Packet>,
    ) {
        let Some(bandwidth_bps) = *pending_bps else { return };
        if waiting.all(|frame| frame.fragment == Fragment::Whole) {
            lfi.fragment_bytes = Lfi::fragment_bytes_for(bandwidth_bps, lfi.delay_ns);
            *pending_bps = None;
        }
    }

    /// Replaces the discipline by `qdisc`: the packets the old one holds are offered to the
    /// new one in their order of arrival at the port.
    fn install(&mut self, qdisc: AnyQdisc, cause: String, env: &mut PortEnv) {
        self.take_totals_from_class();
        let mut packets = self.qdisc.take_packets();
        packets.sort_unstable_by_key(|p| (p.hop_in, p.id));
        let bytes = packets.iter().map(|p| p.size_bytes as u64).sum();
        self.queue_stats.hand_over(env.now, packets.len() as u64, bytes);
        for stats in &mut self.class_stats {
            stats.hand_over(env.now, stats.backlog_packets, stats.backlog_bytes);
        }
        if let Some(trace) = &mut env.observers.trace {
            trace.set_classes(self.index, &qdisc.class_names());
        }
        let classes = qdisc.class_names().len();
        let old = std::mem::replace(&mut self.qdisc, qdisc);
        // The old classes' series end here; the new classes get series of the same length.
        let series_length_ns =
            self.class_stats.first().and_then(|c| c.series.as_ref()).map(|s| s.length_ns());
        for stats in &mut self.class_stats {
            stats.close_window(env.now);
        }
        let mut fresh = QueueStats::default();
        fresh.series = series_length_ns.map(|length_ns| Box::new(ClassSeries::new(length_ns)));
        fresh.start_window(env.now);
        self.retired.push(RetiredDiscipline {
            kind: old.kind(),
            class_names: old.class_names(),
            class_stats: std::mem::replace(&mut self.class_stats, vec![fresh; classes]),
            since: self.since,
        });
        self.since = env.now;
        let handed_over_packets = packets.len() as u64;
        let dropped_before = *env.dropped_packets;
        let mut ctx = qdisc_ctx!(self, env, self.ring_has_room());
        for packet in packets {
            self.qdisc.enqueue(packet, &mut ctx);
        }
        self.changes.push(ChangeLog {
            at: env.now,
            kind: self.qdisc.kind(),
            cause,
            handed_over_packets,
            refused_packets: *env.dropped_packets - dropped_before,
        });
        self.service(env);
    }

    /// Closes the measured window at the end of the run.
    pub fn close_window(&mut self, now: SimTime) {
        if let Some((started, rate_bps)) = self.on_wire {
            self.count_busy(started, now, rate_bps);
        }
        self.class_stats.iter_mut().for_each(|c| c.close_window(now));
        if self.totals_in_class {
            self.take_totals_from_class();
        } else {
            self.queue_stats.close_window(now);
        }
    }
}

#[cfg(test)]
mod tests;
