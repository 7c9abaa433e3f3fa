//! The network: nodes, egress ports of full-duplex links, layer-2 framing and routing.

pub mod l2;
pub mod lfi;
pub mod link_loss;
pub mod port;
pub mod reconfiguration;
pub mod routing;
pub mod tunnel;

use crate::scenario::spec::NodeKind;

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
