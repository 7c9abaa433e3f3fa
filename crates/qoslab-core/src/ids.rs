//! Typed indices of the things a run is made of: nodes, ports, flow rows, sources,
//! applications and their users, TCP endpoints.
//!
//! Each is a `u32` wrapped in a type of its own, so that a port index cannot be used where
//! a node is meant, and the tables they index are typed vectors
//! ([`typed_index_collections::TiVec`]) that accept only their own id: `ports[port]`,
//! `nodes[port_config.peer]`. A `u32` is enough — the scenario limits keep every count far
//! below 2^32 — and keeps the packet and the event small.

use std::fmt;

/// A table indexed by a typed id.
pub type Table<I, T> = typed_index_collections::TiVec<I, T>;

macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            /// The position in its table.
            #[inline(always)]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl From<usize> for $name {
            #[inline(always)]
            fn from(index: usize) -> Self {
                $name(u32::try_from(index).expect("the scenario limits keep tables below 2^32 entries"))
            }
        }

        impl From<$name> for usize {
            #[inline(always)]
            fn from(id: $name) -> usize {
                id.index()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

typed_id! {
    /// A host or router, in the order the topology lists them.
    NodeId
}

typed_id! {
    /// An egress port. Links make ports in pairs: the link written k-th gives port 2k
    /// (`a->b`) and port 2k + 1 (`b->a`).
    PortId
}

impl PortId {
    /// The other direction of the same link: the port whose frames this port's node
    /// receives, and whose receiving interface this port's input policy stands for.
    #[inline(always)]
    pub const fn reverse(self) -> PortId {
        PortId(self.0 ^ 1)
    }
}

typed_id! {
    /// A flow row of the results: an open-loop flow, an echo, an application's direction.
    FlowId
}

typed_id! {
    /// The source of an open-loop flow.
    SourceId
}

typed_id! {
    /// An application.
    AppId
}

typed_id! {
    /// One user of an application, numbered across all applications.
    UserId
}

typed_id! {
    /// A TCP endpoint. Connections are endpoint pairs 2k (the opening side) and 2k + 1.
    EndpointId
}

impl EndpointId {
    /// The other end of the connection.
    #[inline(always)]
    pub const fn peer(self) -> EndpointId {
        EndpointId(self.0 ^ 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ports_reverse_is_the_other_direction_of_its_link() {
        assert_eq!(PortId(0).reverse(), PortId(1));
        assert_eq!(PortId(1).reverse(), PortId(0));
        assert_eq!(PortId(6).reverse().reverse(), PortId(6));
        assert_eq!(EndpointId(4).peer(), EndpointId(5));
    }

    #[test]
    fn tables_accept_their_own_ids() {
        let mut table: Table<NodeId, &str> = Table::new();
        let r1 = table.push_and_get_key("r1");
        let r2 = table.push_and_get_key("r2");
        assert_eq!((r1, r2), (NodeId(0), NodeId(1)));
        assert_eq!(table[r2], "r2");
        assert_eq!(table.iter_enumerated().map(|(id, _)| id.index()).collect::<Vec<_>>(), [0, 1]);
    }
}
