//! The network: nodes, egress ports of full-duplex links, layer-2 framing, routing and
//! tunnels, joined in one [`network::Network`].

pub mod l2;
pub mod lfi;
pub mod link_loss;
pub mod network;
pub mod pcap;
pub mod port;
pub mod reconfiguration;
pub mod routing;
pub mod tunnel;

use schemars::JsonSchema;
use serde::Deserialize;

/// What a node is.
#[derive(Copy, Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// An end system: sends and receives, never forwards.
    Host,
    /// Forwards packets between its links.
    Router,
}

/// A host or router.
#[derive(Clone, Debug)]
pub struct Node {
    /// Unique name.
    pub name: String,
    /// Host or router.
    pub kind: NodeKind,
    /// IPv4 address (host order).
    pub address: u32,
}
