//! The run's TCP endpoints, where they sit, and the segments they want to send.
//!
//! Endpoints come in pairs (a connection's two ends, indices 2k and 2k + 1) and are reused
//! by successive connections of the same application: [`TcpStack::reset_pair`] starts a new
//! incarnation with fresh state, keeping the counters, and segments of an earlier incarnation
//! still in the network are ignored on arrival. Each endpoint knows the node it lives on,
//! the port its segments leave by, the header fields they carry and the application that
//! owns it; the simulation turns the segments endpoints append to [`TcpStack::out`] into
//! packets.

use super::congestion::CongestionControl;
use super::endpoint::Endpoint;
use super::receiver::{DelayedAck, Receiver};
use super::sender::{Retransmit, Sender};
use crate::ids::{AppId, EndpointId, PortId, Table};
use crate::packet::segment::Segment;
use crate::packet::Packet;
use crate::time::SimTime;

/// How an endpoint's connections are configured.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TcpConfig {
    /// Congestion control.
    pub congestion_control: CongestionControl,
    /// Maximum segment size, bytes.
    pub mss_bytes: u64,
    /// Initial window, segments.
    pub initial_window_segments: u64,
    /// Minimum retransmission timeout, ns.
    pub min_rto_ns: u64,
    /// Advertised receive window, bytes.
    pub receive_window_bytes: u32,
    /// Delayed-ACK policy.
    pub delayed_ack: DelayedAck,
    /// SACK blocks and SACK-based loss recovery (RFC 2018, RFC 6675).
    pub sack: bool,
    /// How segments sent again are cut.
    pub retransmit: Retransmit,
}

impl TcpConfig {
    /// A fresh endpoint with this configuration, talking to `peer`.
    fn endpoint(&self, peer: EndpointId, incarnation: u32) -> Endpoint {
        let mut sender = Sender::new(
            self.congestion_control,
            self.mss_bytes,
            self.initial_window_segments,
            self.min_rto_ns,
        );
        let mut receiver = Receiver::new(self.receive_window_bytes, Some(self.delayed_ack));
        if self.sack {
            sender.enable_sack();
            receiver.enable_sack();
        }
        sender.set_retransmit(self.retransmit);
        Endpoint { sender, receiver, peer, incarnation }
    }
}

/// One endpoint and where it lives.
#[derive(Clone, Debug)]
pub struct EndpointSlot {
    /// The endpoint.
    pub endpoint: Endpoint,
    /// Its configuration.
    pub config: TcpConfig,
    /// The port its segments leave by.
    pub first_port: PortId,
    /// Header fields of its packets (flow, addresses, ports, DSCP).
    pub template: Packet,
    /// The application that owns it.
    pub app: AppId,
    /// When its timer event is scheduled, if it is.
    pub timer_at: Option<SimTime>,
}

/// Every endpoint of the run.
#[derive(Clone, Debug, Default)]
pub struct TcpStack {
    /// The endpoints, in connection pairs.
    pub slots: Table<EndpointId, EndpointSlot>,
    /// Segments waiting to be sent (drained by the simulation after each step).
    pub out: Vec<Segment>,
}

impl TcpStack {
    /// Adds a connection between two endpoints; returns the index of the first (the one
    /// that opens it).
    pub fn add_pair(&mut self, config: TcpConfig, ends: [(PortId, Packet); 2], app: AppId) -> EndpointId {
        let first = self.slots.next_key();
        for (first_port, template) in ends {
            let e = self.slots.next_key();
            self.slots.push(EndpointSlot {
                endpoint: config.endpoint(e.peer(), 0),
                config,
                first_port,
                template,
                app,
                timer_at: None,
            });
        }
        first
    }

    /// Starts a new connection on the pair whose first endpoint is `first`: fresh state,
    /// the counters kept.
    pub fn reset_pair(&mut self, first: EndpointId) {
        for i in [first, first.peer()] {
            let slot = &mut self.slots[i];
            let old = &slot.endpoint;
            let counters = old.sender.counters.clone();
            slot.endpoint = slot.config.endpoint(old.peer, old.incarnation + 1);
            slot.endpoint.sender.counters = counters;
        }
    }
}
