//! Static routing: shortest paths computed once before the run, with overrides.
//!
//! For each destination, a breadth-first search over reversed links gives every node's hop
//! distance; a node's next hop is the neighbour one hop closer, ties broken by the lowest
//! port index (the order links are written), so routes are deterministic. Only routers
//! forward: a host is a path's end, never a transit hop. Routes do not change during a run.

/// Marks "no route" in the next-hop table.
pub const NO_ROUTE: u32 = u32::MAX;

/// Why a path cannot be followed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PathError {
    /// Node `at` has no route to the destination.
    NoRoute {
        /// The node index.
        at: u32,
    },
    /// The routes lead back to a port already used, first noticed at node `at`.
    Loop {
        /// The node index.
        at: u32,
    },
}

/// A next-hop table: for each (node, destination) the egress port index.
#[derive(Clone, Debug)]
pub struct RoutingTable {
    nodes: usize,
    next_port: Vec<u32>,
}

impl RoutingTable {
    /// Shortest-path routes for `nodes` nodes joined by `ports` (each `(from, to)`, indexed
    /// by port number); `forwards[n]` says whether node `n` may be a transit hop.
    pub fn shortest_paths(nodes: usize, ports: &[(u32, u32)], forwards: &[bool]) -> Self {
        let mut next_port = vec![NO_ROUTE; nodes * nodes];
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        for (p, &(_, to)) in ports.iter().enumerate() {
            incoming[to as usize].push(p as u32);
        }
        for dst in 0..nodes {
            let mut distance = vec![u32::MAX; nodes];
            distance[dst] = 0;
            let mut frontier = std::collections::VecDeque::from([dst]);
            while let Some(v) = frontier.pop_front() {
                // Traffic may only continue through `v` if it is the destination or forwards.
                if v != dst && !forwards[v] {
                    continue;
                }
                for &p in &incoming[v] {
                    let u = ports[p as usize].0 as usize;
                    if distance[u] == u32::MAX {
                        distance[u] = distance[v] + 1;
                        frontier.push_back(u);
                    }
                }
            }
            for (p, &(from, to)) in ports.iter().enumerate() {
                let (u, v) = (from as usize, to as usize);
                let slot = &mut next_port[u * nodes + dst];
                let forwards_to_v = v == dst || forwards[v];
                if u != dst
                    && forwards_to_v
                    && distance[v] != u32::MAX
                    && distance[u] == distance[v] + 1
                    && *slot == NO_ROUTE
                {
                    *slot = p as u32;
                }
            }
        }
        RoutingTable { nodes, next_port }
    }

    /// The egress port at `node` towards `dst`, or [`NO_ROUTE`].
    #[inline]
    pub fn next_port(&self, node: u32, dst: u32) -> u32 {
        self.next_port[node as usize * self.nodes + dst as usize]
    }

    /// Replaces the route at `node` towards `dst`.
    pub fn set(&mut self, node: u32, dst: u32, port: u32) {
        self.next_port[node as usize * self.nodes + dst as usize] = port;
    }

    /// The ports a packet crosses from `src` to `dst`, or where it gets stuck.
    pub fn path(&self, src: u32, dst: u32, ports: &[(u32, u32)]) -> Result<Vec<u32>, PathError> {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            let p = self.next_port(at, dst);
            if p == NO_ROUTE {
                return Err(PathError::NoRoute { at });
            }
            if path.contains(&p) || path.len() > self.nodes {
                return Err(PathError::Loop { at });
            }
            path.push(p);
            at = ports[p as usize].1;
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ports of full-duplex links: each link gives two ports, a→b then b→a.
    fn duplex(links: &[(u32, u32)]) -> Vec<(u32, u32)> {
        links.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect()
    }

    #[test]
    fn chain_and_ties() {
        // 0 - 1 - 2 - 3 and a second path 1 - 4 - 3 of equal length (2 hops from 1).
        let ports = duplex(&[(0, 1), (1, 2), (2, 3), (1, 4), (4, 3)]);
        let table = RoutingTable::shortest_paths(5, &ports, &[true; 5]);
        // From 0 to 3: 0->1 (port 0), then the lower-indexed of 1->2 (port 2) and 1->4 (port 6).
        assert_eq!(table.path(0, 3, &ports), Ok(vec![0, 2, 4]));
        assert_eq!(table.path(3, 0, &ports), Ok(vec![5, 3, 1]));
    }

    #[test]
    fn hosts_do_not_forward() {
        // Router 0 and router 2 are joined only through host 1.
        let ports = duplex(&[(0, 1), (1, 2)]);
        let table = RoutingTable::shortest_paths(3, &ports, &[true, false, true]);
        assert_eq!(table.path(0, 2, &ports), Err(PathError::NoRoute { at: 0 }));
        assert_eq!(table.path(0, 1, &ports), Ok(vec![0]));
    }

    #[test]
    fn overrides_and_loops() {
        let ports = duplex(&[(0, 1), (1, 2), (2, 3), (1, 3)]);
        let mut table = RoutingTable::shortest_paths(4, &ports, &[true; 4]);
        assert_eq!(table.path(0, 3, &ports), Ok(vec![0, 6]));
        table.set(1, 3, 2); // via node 2
        assert_eq!(table.path(0, 3, &ports), Ok(vec![0, 2, 4]));
        table.set(2, 3, 3); // 2 sends back to 1: loop
        assert_eq!(table.path(0, 3, &ports), Err(PathError::Loop { at: 1 }));
    }
}
