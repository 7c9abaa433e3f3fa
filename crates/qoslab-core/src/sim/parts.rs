//! What a simulation is assembled from: the run's identity and window, the network, the
//! sources, the flow rows with their sinks, the applications and their users. The build
//! ([`crate::scenario`]) makes these; [`super::Simulation::new`] takes them whole.

use crate::app::App;
use crate::ids::{AppId, EndpointId, FlowId, NodeId, PortId, SourceId, Table, UserId};
use crate::measure::Observers;
use crate::net::network::Network;
use crate::net::pcap::CapturePlan;
use crate::packet::Packet;
use crate::tcp::TcpStack;
use crate::time::SimTime;
use crate::traffic::Source;

/// Where a flow's packets go when they reach their destination, after they are counted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sink {
    /// Nowhere further: open-loop traffic.
    Counted,
    /// Reflected back to the sender (an IP SLA responder).
    Echo(Echo),
    /// To the application whose datagram flow it is (push-to-talk voice).
    App(AppId),
    /// To the TCP endpoint its segment is addressed to.
    Tcp,
}

/// How a flow's packets are reflected at their destination.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Echo {
    /// The row of the reflected packets.
    pub flow: FlowId,
    /// The egress port at the destination towards the sender.
    pub first_port: PortId,
}

/// Facts about a flow needed for its results row, and its sink.
#[derive(Clone, Debug)]
pub struct FlowInfo {
    /// Flow name.
    pub name: String,
    /// Sending node.
    pub from: NodeId,
    /// Receiving node.
    pub to: NodeId,
    /// Pattern kind.
    pub pattern: &'static str,
    /// IP packet size, bytes (the largest segment for TCP).
    pub size_bytes: u32,
    /// The slowest port on the path (first one on ties).
    pub bottleneck_port: PortId,
    /// Header fields of the flow's packets.
    pub template: Packet,
    /// Where its packets go at the destination.
    pub sink: Sink,
    /// The voice codec of a codec pattern or push-to-talk voice.
    pub codec: Option<crate::traffic::codec::Codec>,
}

impl FlowInfo {
    /// The row its destination reflects it on, for a flow with `echo`.
    pub fn echo(&self) -> Option<Echo> {
        match self.sink {
            Sink::Echo(echo) => Some(echo),
            _ => None,
        }
    }
}

/// Facts about an application needed for its results row, and where it sends.
#[derive(Clone, Debug)]
pub struct AppInfo {
    /// The flow (traffic entry) name.
    pub name: String,
    /// Application kind.
    pub kind: &'static str,
    /// Its first endpoint pair.
    pub first_endpoint: EndpointId,
    /// How many endpoints it owns.
    pub endpoints: u32,
    /// Its first user.
    pub first_user: UserId,
    /// Where the packets of its datagram flow go (push-to-talk voice).
    pub datagrams: Option<DatagramOut>,
}

/// The datagram flow of an application.
#[derive(Copy, Clone, Debug)]
pub struct DatagramOut {
    /// Header fields of its packets.
    pub template: Packet,
    /// The egress port at the sending node.
    pub first_port: PortId,
}

/// What a run was asked to do.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// Scenario name.
    pub scenario: String,
    /// Master seed.
    pub seed: u64,
    /// Replication number.
    pub replication: u64,
    /// What identifies the run (set when the scenario is loaded).
    pub identity: RunIdentity,
    /// Warm-up end (measured window start).
    pub warmup_end: SimTime,
    /// End of the run.
    pub end: SimTime,
    /// What the scenario's inputs hold that qoslab does not model (lines of IOS
    /// configurations), one sentence each.
    pub notes: Vec<String>,
    /// `measure.order_of_failure`.
    pub order_of_failure: Vec<String>,
    /// The texts the run read: the scenario, then each IOS configuration file as read.
    pub inputs: Vec<Input>,
}

/// A text a run read, kept as read for its record of its inputs.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Input {
    /// What it is: `scenario` or `ios` (a router's configuration file).
    pub kind: &'static str,
    /// Where it was read from: the scenario's origin (its file, or `<text>`), the
    /// configuration's path.
    pub path: String,
    /// The text.
    pub text: String,
}

/// What identifies a run: the hash of what determines its results, and how the scenario
/// was chosen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunIdentity {
    /// SHA-256 of the effective scenario and the files its build read, as hex
    /// (see `docs/variants.md`).
    pub scenario_sha256: String,
    /// The overrides applied, `key.path=value` as given.
    pub overrides: Vec<String>,
    /// The variant run; None for the scenario as written.
    pub variant: Option<String>,
}

/// Applications, their users and those users' first timers.
#[derive(Default)]
pub struct AppSetup {
    /// Every TCP endpoint of the applications.
    pub stack: TcpStack,
    /// The applications.
    pub apps: Table<AppId, App>,
    /// Their results facts.
    pub info: Table<AppId, AppInfo>,
    /// Each user: its application and its number there.
    pub users: Table<UserId, (AppId, u32)>,
    /// (when, the user) of each user's first timer.
    pub starts: Vec<(SimTime, UserId)>,
}

/// Everything a simulation is assembled from.
pub struct Parts {
    pub run: RunInfo,
    pub network: Network,
    /// Each source with the time of its first packet.
    pub sources: Table<SourceId, (Source, SimTime)>,
    pub flows: Table<FlowId, FlowInfo>,
    pub observers: Observers,
    pub apps: AppSetup,
    /// Packets that may be in flight at once before the run is stopped.
    pub max_packets_in_flight: u64,
    /// What a packet capture covers, when one is asked for.
    pub capture: CapturePlan,
    /// The events the run is estimated to take ([`crate::scenario`]'s work estimate).
    pub estimated_events: u64,
}
