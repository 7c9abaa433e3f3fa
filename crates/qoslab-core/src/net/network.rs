//! The network a run moves packets through: its nodes, the egress ports of its links, the
//! routes between them and its tunnels.
//!
//! Packets enter in one place and leave in one place. [`Network::emit`] puts a new packet
//! on the network at its first egress port: it gets the next packet id and is counted as
//! created (and, when created in the measured window, as sent by its flow).
//! [`Network::deliver`] takes a packet out at its destination node: counted as delivered
//! and received, and handed back to the run loop, which gives it to the flow's sink (an
//! echo, an application, a TCP endpoint). In between, the network moves it hop by hop:
//! the egress port's discipline, ring and wire; the link's propagation and loss; the
//! receiving interface's input policy; the tunnel ends; the routing table at each router.
//! A packet that does not reach its destination is dropped on the way, with its reason,
//! by the port, the link or the input policy that refused it.

use super::port::{Port, PortEnv};
use super::routing::RoutingTable;
use super::tunnel::{Next, Passage, Tunnels};
use super::Node;
use crate::engine::{Event, EventQueue};
use crate::ids::{NodeId, PortId, Table};
use crate::measure::trace::{Row, TraceEvent, NONE};
use crate::measure::{DropReason, Observers};
use crate::packet::{Packet, SegmentStore, NO_HOP};
use crate::time::SimTime;

/// Packet counts over the whole run (warm-up included).
#[derive(Clone, Debug, Default)]
pub struct PacketCounts {
    /// Packets put on the network.
    pub created: u64,
    /// Packets that reached their destination.
    pub delivered: u64,
    /// Packets dropped anywhere.
    pub dropped: u64,
    /// Frames whose transmission completed on some link.
    pub packet_hops: u64,
    /// Times a port's wire fell idle while packets waited (must stay 0).
    pub work_conservation_violations: u64,
}

/// What the network works with during one event: the time, the event list and the
/// observers.
pub struct NetEnv<'a> {
    /// Current time.
    pub now: SimTime,
    /// The future event list.
    pub events: &'a mut EventQueue,
    /// Per-flow statistics, ΔQ accounting and the trace.
    pub observers: &'a mut Observers,
}

/// The nodes, ports, routes and tunnels of a run, and the packets in them.
#[derive(Debug)]
pub struct Network {
    /// The hosts and routers.
    pub nodes: Table<NodeId, Node>,
    /// The egress ports, two per link ([`PortId::reverse`] is the other direction).
    pub ports: Table<PortId, Port>,
    routes: RoutingTable,
    tunnels: Tunnels,
    /// When the measured window opens.
    warmup_end: SimTime,
    /// What became of the packets so far.
    pub counts: PacketCounts,
    /// The TCP headers of the segments on the network: taken when the run puts a segment
    /// on it, released when its packet is dropped (here, by a port's discipline or by the
    /// link or input policy in [`Network::link_arrival`]) or delivered (by the run, once
    /// the endpoint has it).
    pub segments: SegmentStore,
}

impl Network {
    /// A network of `nodes` and `ports`, routed by `routes`, with `tunnels`; statistics
    /// count from `warmup_end`.
    pub fn new(
        nodes: Table<NodeId, Node>,
        ports: Table<PortId, Port>,
        routes: RoutingTable,
        tunnels: Tunnels,
        warmup_end: SimTime,
    ) -> Self {
        Network {
            nodes,
            ports,
            routes,
            tunnels,
            warmup_end,
            counts: PacketCounts::default(),
            segments: SegmentStore::new(),
        }
    }

    /// The environment a port works in during the event of `env`.
    #[inline(always)]
    fn port_env<'a>(
        env: &'a mut NetEnv,
        dropped: &'a mut u64,
        segments: &'a mut SegmentStore,
    ) -> PortEnv<'a> {
        PortEnv {
            now: env.now,
            events: env.events,
            observers: env.observers,
            dropped_packets: dropped,
            segments,
        }
    }

    /// Puts a new packet on the network at egress port `port` of its source: it takes the
    /// next packet id, and counts as created (and as sent when it is counted).
    #[inline]
    pub fn emit(&mut self, mut packet: Packet, port: PortId, env: &mut NetEnv) {
        packet.id = self.counts.created;
        self.counts.created += 1;
        if packet.counted {
            env.observers.on_sent(&packet);
        }
        self.send(port, packet, env);
    }

    /// Hands `packet` to egress port `port`, through the tunnel its flow enters there, if any.
    #[inline(always)]
    fn send(&mut self, port: PortId, packet: Packet, env: &mut NetEnv) {
        if self.tunnels.in_use() {
            match self.tunnels.on_egress(port, packet, env.now) {
                Passage::Go(packet) => self.enqueue(port, packet, env),
                Passage::Held(at, line) => env.events.schedule(at, Event::TunnelRelease(line)),
            }
        } else {
            self.enqueue(port, packet, env);
        }
    }

    #[inline(always)]
    fn enqueue(&mut self, port: PortId, packet: Packet, env: &mut NetEnv) {
        self.ports[port]
            .enqueue(packet, &mut Self::port_env(env, &mut self.counts.dropped, &mut self.segments));
    }

    /// The frame on port `p`'s wire has been sent. Returns true when its arrival at the far
    /// end is the next event, left to the caller rather than scheduled
    /// ([`Port::transmit_done`]).
    #[inline]
    pub fn transmit_done(&mut self, p: PortId, env: &mut NetEnv) -> bool {
        self.counts.packet_hops += 1;
        let port = &mut self.ports[p];
        let arrives_next =
            port.transmit_done(&mut Self::port_env(env, &mut self.counts.dropped, &mut self.segments));
        if port.idle_with_backlog() {
            self.counts.work_conservation_violations += 1;
        }
        arrives_next
    }

    /// Port `p`'s discipline asked to be served again now.
    pub fn wake(&mut self, p: PortId, env: &mut NetEnv) {
        let port = &mut self.ports[p];
        port.wake(&mut Self::port_env(env, &mut self.counts.dropped, &mut self.segments));
        if port.idle_with_backlog() {
            self.counts.work_conservation_violations += 1;
        }
    }

    /// Port `p` applies the changes scheduled for now; returns when its next is due.
    pub fn change(&mut self, p: PortId, env: &mut NetEnv) -> Option<SimTime> {
        self.ports[p].apply_changes(&mut Self::port_env(env, &mut self.counts.dropped, &mut self.segments))
    }

    /// The oldest frame propagating on port `p`'s link reaches the far end: the packet it
    /// completes is lost by the link, refused by the receiving interface's input policy,
    /// held at a tunnel end, routed on, or — at its destination — delivered and returned.
    #[inline]
    pub fn link_arrival(&mut self, p: PortId, env: &mut NetEnv) -> Option<Packet> {
        let port = &mut self.ports[p];
        let node = port.config.peer;
        // A fragment other than the last delivers nothing by itself.
        let lost = port.receive()?;
        let mut packet = port.take_received();
        if lost {
            self.drop(&packet, p, TraceEvent::Drop, DropReason::LinkLoss, env);
            return None;
        }
        if packet.hop_slot != NO_HOP {
            Self::leave_observed_hop(&mut packet, env);
        }
        // The receiving interface is the reverse port; its input policy acts before
        // delivery or routing.
        let input = p.reverse();
        debug_assert_eq!(self.ports[input].config.node, node);
        if let Some(reason) = self.ports[input].condition_input(env.now, &mut packet) {
            self.drop(&packet, input, TraceEvent::InputDrop, reason, env);
            return None;
        }
        if !self.tunnels.in_use() {
            return self.land(node, packet, env);
        }
        match self.tunnels.on_arrival(node, packet, env.now) {
            Passage::Go(packet) => self.land(node, packet, env),
            Passage::Held(at, line) => {
                env.events.schedule(at, Event::TunnelRelease(line));
                None
            }
        }
    }

    /// `packet` reaches the far end of an observed hop's link: its departure is counted and
    /// it leaves the hop. Out of line, so that the common path writes nothing into the
    /// packet before it is copied on.
    #[inline(never)]
    fn leave_observed_hop(packet: &mut Packet, env: &mut NetEnv) {
        if packet.counted {
            env.observers.on_hop_departure(packet, env.now);
        }
        packet.hop_slot = NO_HOP;
    }

    /// The oldest packet held at tunnel end `line` is processed: into its egress port, or
    /// on from the node where it left the tunnel (and returned if delivered there).
    pub fn tunnel_release(&mut self, line: u32, env: &mut NetEnv) -> Option<Packet> {
        match self.tunnels.release(line) {
            (packet, Next::Port(port)) => {
                self.enqueue(port, packet, env);
                None
            }
            (packet, Next::Node(node)) => self.land(node, packet, env),
        }
    }

    /// Drops `packet` at `port` (its link, or its receiving interface) for `reason`: it
    /// leaves the network, and its segment's slot is freed.
    fn drop(
        &mut self,
        packet: &Packet,
        port: PortId,
        event: TraceEvent,
        reason: DropReason,
        env: &mut NetEnv,
    ) {
        if let Some(trace) = &mut env.observers.trace {
            let row = Row { event, class: NONE, queue_packets: NONE, reason: Some(reason) };
            trace.at_port(env.now, packet, &self.segments, port, row);
        }
        env.observers.on_dropped(packet, reason, env.now, &mut self.counts.dropped, &mut self.segments);
    }

    /// `packet` is at `node`, past the receiving interface and any tunnel end there:
    /// delivered if `node` is its destination, else routed on.
    #[inline(always)]
    fn land(&mut self, node: NodeId, packet: Packet, env: &mut NetEnv) -> Option<Packet> {
        if node == packet.dst_node {
            self.deliver(node, &packet, env);
            return Some(packet);
        }
        let next = self.routes.next_port(node, packet.dst_node).expect("every flow's route was checked");
        self.send(next, packet, env);
        None
    }

    /// `packet` leaves the network at its destination `node`: counted as delivered, and as
    /// received by its flow when it is counted.
    #[inline]
    fn deliver(&mut self, node: NodeId, packet: &Packet, env: &mut NetEnv) {
        self.counts.delivered += 1;
        let in_window = env.now >= self.warmup_end;
        if packet.counted || in_window {
            env.observers.on_delivered(packet, env.now, in_window);
        }
        if let Some(trace) = &mut env.observers.trace {
            trace.delivered(env.now, packet, &self.segments, node);
        }
    }

    /// The measured window opens: the ports' counters restart.
    pub fn start_window(&mut self, now: SimTime) {
        self.ports.iter_mut().for_each(|p| p.start_window(now));
    }

    /// The measured window closes at the end of the run.
    pub fn close_window(&mut self, end: SimTime) {
        self.ports.iter_mut().for_each(|p| p.close_window(end));
    }

    /// Packets in the network: in the ports and held at tunnel ends.
    pub fn packets_held(&self) -> u64 {
        self.ports.iter().map(Port::packets_held).sum::<u64>() + self.tunnels.packets_held()
    }

    /// Packets created and neither delivered nor dropped yet.
    pub fn packets_in_flight(&self) -> u64 {
        let c = &self.counts;
        c.created - c.delivered - c.dropped
    }

    /// 64-bit random outputs the ports' droppers and links' loss models have drawn.
    pub fn random_draws(&self) -> u64 {
        self.ports.iter().map(Port::random_draws).sum()
    }
}
