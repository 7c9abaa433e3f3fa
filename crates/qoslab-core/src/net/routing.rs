//! Static routing: shortest paths computed once before the run, with overrides.
//!
//! For each destination, a breadth-first search over reversed links gives every node's hop
//! distance; a node's next hop is the neighbour one hop closer, ties broken by the lowest
//! port index (the order links are written), so routes are deterministic. Only routers
//! forward: a host is a path's end, never a transit hop. Routes do not change during a run.

use crate::ids::{NodeId, PortId, Table};

/// Why a path cannot be followed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PathError {
    /// Node `at` has no route to the destination.
    NoRoute {
        /// The node.
        at: NodeId,
    },
    /// The routes lead back to a port already used, first noticed at node `at`.
    Loop {
        /// The node.
        at: NodeId,
    },
}

/// A next-hop table: for each (node, destination) the egress port.
#[derive(Clone, Debug)]
pub struct RoutingTable {
    nodes: usize,
    next_port: Vec<Option<PortId>>,
}

impl RoutingTable {
    /// Shortest-path routes for `nodes` nodes joined by `ports` (each `(from, to)`, indexed
    /// by port); `forwards[n]` says whether node `n` may be a transit hop.
    pub fn shortest_paths(
        nodes: usize,
        ports: &Table<PortId, (NodeId, NodeId)>,
        forwards: &Table<NodeId, bool>,
    ) -> Self {
        let mut next_port = vec![None; nodes * nodes];
        let mut incoming: Table<NodeId, Vec<PortId>> = vec![Vec::new(); nodes].into();
        for (p, &(_, to)) in ports.iter_enumerated() {
            incoming[to].push(p);
        }
        for dst in (0..nodes).map(NodeId::from) {
            let mut distance: Table<NodeId, u32> = vec![u32::MAX; nodes].into();
            distance[dst] = 0;
            let mut frontier = std::collections::VecDeque::from([dst]);
            while let Some(v) = frontier.pop_front() {
                // Traffic may only continue through `v` if it is the destination or forwards.
                if v != dst && !forwards[v] {
                    continue;
                }
                for &p in &incoming[v] {
                    let u = ports[p].0;
                    if distance[u] == u32::MAX {
                        distance[u] = distance[v] + 1;
                        frontier.push_back(u);
                    }
                }
            }
            for (p, &(u, v)) in ports.iter_enumerated() {
                let slot = &mut next_port[u.index() * nodes + dst.index()];
                let forwards_to_v = v == dst || forwards[v];
                if u != dst
                    && forwards_to_v
                    && distance[v] != u32::MAX
                    && distance[u] == distance[v] + 1
                    && slot.is_none()
                {
                    *slot = Some(p);
                }
            }
        }
        RoutingTable { nodes, next_port }
    }

    /// The egress port at `node` towards `dst`, if there is a route.
    #[inline]
    pub fn next_port(&self, node: NodeId, dst: NodeId) -> Option<PortId> {
        self.next_port[node.index() * self.nodes + dst.index()]
    }

    /// Replaces the route at `node` towards `dst`.
    pub fn set(&mut self, node: NodeId, dst: NodeId, port: PortId) {
        self.next_port[node.index() * self.nodes + dst.index()] = Some(port);
    }

    /// The ports a packet crosses from `src` to `dst`, or where it gets stuck.
    pub fn path(
        &self,
        src: NodeId,
        dst: NodeId,
        ports: &Table<PortId, (NodeId, NodeId)>,
    ) -> Result<Vec<PortId>, PathError> {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            let p = self.next_port(at, dst).ok_or(PathError::NoRoute { at })?;
            if path.contains(&p) || path.len() > self.nodes {
                return Err(PathError::Loop { at });
            }
            path.push(p);
            at = ports[p].1;
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ports of full-duplex links: each link gives two ports, a→b then b→a.
    fn duplex(links: &[(u32, u32)]) -> Table<PortId, (NodeId, NodeId)> {
        links.iter().flat_map(|&(a, b)| [(NodeId(a), NodeId(b)), (NodeId(b), NodeId(a))]).collect()
    }

    fn port_list(ids: &[u32]) -> Vec<PortId> {
        ids.iter().map(|&p| PortId(p)).collect()
    }

    fn forwarding(flags: &[bool]) -> Table<NodeId, bool> {
        flags.to_vec().into()
    }

    #[test]
    fn chain_and_ties() {
        // 0 - 1 - 2 - 3 and a second path 1 - 4 - 3 of equal length (2 hops from 1).
        let ports = duplex(&[(0, 1), (1, 2), (2, 3), (1, 4), (4, 3)]);
        let table = RoutingTable::shortest_paths(5, &ports, &forwarding(&[true; 5]));
        // From 0 to 3: 0->1 (port 0), then the lower-indexed of 1->2 (port 2) and 1->4 (port 6).
        assert_eq!(table.path(NodeId(0), NodeId(3), &ports), Ok(port_list(&[0, 2, 4])));
        assert_eq!(table.path(NodeId(3), NodeId(0), &ports), Ok(port_list(&[5, 3, 1])));
    }

    #[test]
    fn hosts_do_not_forward() {
        // Router 0 and router 2 are joined only through host 1.
        let ports = duplex(&[(0, 1), (1, 2)]);
        let table = RoutingTable::shortest_paths(3, &ports, &forwarding(&[true, false, true]));
        assert_eq!(table.path(NodeId(0), NodeId(2), &ports), Err(PathError::NoRoute { at: NodeId(0) }));
        assert_eq!(table.path(NodeId(0), NodeId(1), &ports), Ok(port_list(&[0])));
    }

    #[test]
    fn overrides_and_loops() {
        let ports = duplex(&[(0, 1), (1, 2), (2, 3), (1, 3)]);
        let mut table = RoutingTable::shortest_paths(4, &ports, &forwarding(&[true; 4]));
        assert_eq!(table.path(NodeId(0), NodeId(3), &ports), Ok(port_list(&[0, 6])));
        table.set(NodeId(1), NodeId(3), PortId(2)); // via node 2
        assert_eq!(table.path(NodeId(0), NodeId(3), &ports), Ok(port_list(&[0, 2, 4])));
        table.set(NodeId(2), NodeId(3), PortId(3)); // 2 sends back to 1: loop
        assert_eq!(table.path(NodeId(0), NodeId(3), &ports), Err(PathError::Loop { at: NodeId(1) }));
    }
}
