//! Forwarding tables: for every (node, destination host) the set of egress ports on a shortest
//! path (by hop count), built by one breadth-first search per destination. Hosts never forward
//! transit traffic, so paths only pass through switches.

use crate::ids::{NodeId, PortId};
use crate::rng::mix64;
use std::collections::VecDeque;

/// How a switch picks among equal-cost next hops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ecmp {
    /// Hash of the flow (and direction), mixed with the switch id: one path per flow.
    FlowHash,
    /// A uniformly random next hop per packet (per-packet spraying).
    PacketSpray,
}

/// Index of the chosen next hop among `n` for a packet with `hash` at `node`.
#[inline]
pub fn pick(n: usize, hash: u64, node: NodeId) -> usize {
    if n == 1 {
        return 0;
    }
    // Mixing in the node id decorrelates the choices of successive switches (no polarization).
    (mix64(hash ^ (node.0 as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)) % n as u64) as usize
}

/// ECMP sets for every node and destination host, stored flat.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    n_hosts: usize,
    /// (start, len) into `ports`, indexed by node * n_hosts + host.
    sets: Vec<(u32, u16)>,
    ports: Vec<PortId>,
}

impl Routes {
    /// Build the tables. `adj[node]` lists (egress port, peer node); `is_host[node]` marks hosts.
    pub fn build(adj: &[Vec<(PortId, NodeId)>], is_host: &[bool], hosts: &[NodeId]) -> Routes {
        let n = adj.len();
        // Reverse adjacency: who can reach `v` in one hop, and by which port.
        let mut rev: Vec<Vec<(NodeId, PortId)>> = vec![Vec::new(); n];
        for (u, edges) in adj.iter().enumerate() {
            for &(p, v) in edges {
                rev[v.idx()].push((NodeId::from_idx(u), p));
            }
        }
        let mut sets = vec![(0u32, 0u16); n * hosts.len()];
        let mut ports = Vec::new();
        let mut dist = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        for (h, &dst) in hosts.iter().enumerate() {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[dst.idx()] = 0;
            queue.clear();
            queue.push_back(dst);
            while let Some(v) = queue.pop_front() {
                // Only the destination itself or a switch may relay towards the destination.
                if v != dst && is_host[v.idx()] {
                    continue;
                }
                for &(u, _) in &rev[v.idx()] {
                    if dist[u.idx()] == u32::MAX {
                        dist[u.idx()] = dist[v.idx()] + 1;
                        queue.push_back(u);
                    }
                }
            }
            for u in 0..n {
                if u == dst.idx() || dist[u] == u32::MAX {
                    continue;
                }
                let start = ports.len();
                for &(p, v) in &adj[u] {
                    let via_ok = v == dst || !is_host[v.idx()];
                    if via_ok && dist[v.idx()] != u32::MAX && dist[v.idx()] + 1 == dist[u] {
                        ports.push(p);
                    }
                }
                sets[u * hosts.len() + h] = (start as u32, (ports.len() - start) as u16);
            }
        }
        Routes { n_hosts: hosts.len(), sets, ports }
    }

    /// Egress ports at `node` on shortest paths to host number `host`.
    #[inline]
    pub fn next_hops(&self, node: NodeId, host: u32) -> &[PortId] {
        let (s, l) = self.sets[node.idx() * self.n_hosts + host as usize];
        &self.ports[s as usize..s as usize + l as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two hosts under two parallel switches: h0 - {s0, s1} - h1 (a diamond). Ports: h0->s0 (0),
    /// h0->s1 (1), s0->h0 (2), s0->h1 (3), s1->h0 (4), s1->h1 (5), h1->s0 (6), h1->s1 (7).
    fn diamond() -> (Vec<Vec<(PortId, NodeId)>>, Vec<bool>, Vec<NodeId>) {
        let (h0, h1, s0, s1) = (NodeId(0), NodeId(1), NodeId(2), NodeId(3));
        let adj = vec![
            vec![(PortId(0), s0), (PortId(1), s1)],
            vec![(PortId(6), s0), (PortId(7), s1)],
            vec![(PortId(2), h0), (PortId(3), h1)],
            vec![(PortId(4), h0), (PortId(5), h1)],
        ];
        (adj, vec![true, true, false, false], vec![h0, h1])
    }

    #[test]
    fn ecmp_sets_hold_all_shortest_next_hops() {
        let (adj, is_host, hosts) = diamond();
        let r = Routes::build(&adj, &is_host, &hosts);
        assert_eq!(r.next_hops(NodeId(0), 1), &[PortId(0), PortId(1)]);
        assert_eq!(r.next_hops(NodeId(2), 1), &[PortId(3)]);
        assert_eq!(r.next_hops(NodeId(3), 0), &[PortId(4)]);
    }

    #[test]
    fn hosts_do_not_relay() {
        // s0 - h0 - s1 - h1 : s0 cannot reach h1 through host h0.
        let (h0, h1, s0, s1) = (NodeId(0), NodeId(1), NodeId(2), NodeId(3));
        let adj = vec![
            vec![(PortId(0), s0), (PortId(1), s1)],
            vec![(PortId(2), s1)],
            vec![(PortId(3), h0)],
            vec![(PortId(4), h0), (PortId(5), h1)],
        ];
        let r = Routes::build(&adj, &[true, true, false, false], &[h0, h1]);
        assert!(r.next_hops(s0, 1).is_empty());
        assert_eq!(r.next_hops(h0, 1), &[PortId(1)]);
    }

    #[test]
    fn flow_hash_spreads_over_paths() {
        let mut counts = [0; 4];
        for h in 0..4000u64 {
            counts[pick(4, mix64(h), NodeId(7))] += 1;
        }
        assert!(counts.iter().all(|&c| c > 850 && c < 1150), "{counts:?}");
    }
}
