//! Forwarding tables: for every (node, destination host) the set of egress ports on a shortest
//! path (by hop count), built by one breadth-first search per destination. Hosts never forward
//! transit traffic, so paths only pass through switches.

use crate::ids::{NodeId, PortId};
use crate::rng::mix64;
use std::collections::{HashMap, VecDeque};

/// How a switch picks among equal-cost next hops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ecmp {
    /// Hash of the flow (and direction), mixed with the switch id: one path per flow.
    FlowHash,
    /// A uniformly random next hop per packet (per-packet spraying).
    PacketSpray,
    /// The packet carries the path its source chose (`[routing] paths`, `source_paths.rs`):
    /// each node with a choice takes the next digit of its path index.
    Source,
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

/// Where a destination host hangs: its group, the switch it hangs off and that switch's port
/// down to it.
#[derive(Clone, Copy, Debug)]
struct Dest {
    group: u32,
    /// The switch a single-homed host hangs off (the host itself otherwise).
    attach: NodeId,
    /// `attach`'s port to the host; `NO_PORT` for a host that is its own group.
    down: PortId,
}

const NO_PORT: PortId = PortId(u32::MAX);

/// ECMP sets for every node and destination, stored flat.
///
/// Destinations are grouped by the switch they hang off: every shortest path to a single-homed
/// host ends with the hop from its switch, so everywhere else the next hops towards the host are
/// those towards its switch, and one set serves all the hosts of a rack. The table is nodes ×
/// switches with hosts (a k = 12 fat tree: 612 × 72 entries, 0.35 MB) instead of nodes × hosts
/// (612 × 432, 2.1 MB, plus a copy of the ports per entry) — small enough to stay in cache.
/// The sets, and their order, are exactly those of a search per host (tested), so routes are
/// unchanged. A multi-homed host, or one hanging off another host, is a group of its own.
///
/// A host with one link, to a switch, has no row: towards every other host its set is that
/// link (hosts hold 27 648 of a k = 48 fat tree's 30 528 rows, 255 of its 281 MB of sets).
#[derive(Clone, Debug, Default)]
pub struct Routes {
    n_groups: usize,
    dest: Vec<Dest>,
    /// Each node's row of `sets`, or `NO_ROW` for a host whose one link goes to a switch.
    row: Vec<u32>,
    /// The one uplink of a node without a row and the switch it leads to (`NO_PORT` for the
    /// others): the host reaches a destination exactly when that switch does.
    uplink: Vec<(PortId, NodeId)>,
    /// (start, len) into `ports`, indexed by row * n_groups + group.
    sets: Vec<(u32, u16)>,
    ports: Vec<PortId>,
}

const NO_ROW: u32 = u32::MAX;

impl Routes {
    /// Build the tables. `adj[node]` lists (egress port, peer node); `is_host[node]` marks hosts.
    pub fn build(adj: &[Vec<(PortId, NodeId)>], is_host: &[bool], hosts: &[NodeId]) -> Routes {
        let n = adj.len();
        // Group the destinations: roots are the switches single-homed hosts hang off, or the
        // hosts themselves.
        let mut roots: Vec<NodeId> = Vec::new();
        let mut group_of_root = vec![u32::MAX; n];
        let mut dest = Vec::with_capacity(hosts.len());
        for &h in hosts {
            let single = match adj[h.idx()].as_slice() {
                [(_, a)] if !is_host[a.idx()] => adj[a.idx()].iter().find(|&&(_, v)| v == h).map(|&(p, _)| (*a, p)),
                _ => None,
            };
            let (root, down) = single.unwrap_or((h, NO_PORT));
            if group_of_root[root.idx()] == u32::MAX {
                group_of_root[root.idx()] = roots.len() as u32;
                roots.push(root);
            }
            dest.push(Dest { group: group_of_root[root.idx()], attach: root, down });
        }
        // Reverse adjacency: who can reach `v` in one hop, and by which port.
        let mut rev: Vec<Vec<(NodeId, PortId)>> = vec![Vec::new(); n];
        for (u, edges) in adj.iter().enumerate() {
            for &(p, v) in edges {
                rev[v.idx()].push((NodeId::from_idx(u), p));
            }
        }
        let g_count = roots.len();
        // Rows: every node but the hosts whose one link goes to a switch.
        let mut row = vec![NO_ROW; n];
        let mut uplink = vec![(NO_PORT, NodeId(u32::MAX)); n];
        let mut rows = 0u32;
        for u in 0..n {
            match adj[u].as_slice() {
                [(p, a)] if is_host[u] && !is_host[a.idx()] => uplink[u] = (*p, *a),
                _ => {
                    row[u] = rows;
                    rows += 1;
                }
            }
        }
        let mut sets = vec![(0u32, 0u16); rows as usize * g_count];
        let mut ports = Vec::new();
        // Identical next-hop lists are stored once: a node's list is the same towards most
        // groups (a host's one uplink, an edge switch's uplinks), so a k = 48 fat tree's 95 M
        // port ids (380 MB) shrink to the few distinct lists.
        let mut interned: HashMap<Vec<PortId>, u32> = HashMap::new();
        let mut list: Vec<PortId> = Vec::new();
        // Each node's previous list: usually its list towards the next group too (no hashing).
        let mut last = vec![(0u32, u16::MAX); n];
        let mut dist = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        for (g, &root) in roots.iter().enumerate() {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[root.idx()] = 0;
            queue.clear();
            queue.push_back(root);
            while let Some(v) = queue.pop_front() {
                // Only the root itself or a switch may relay towards it.
                if v != root && is_host[v.idx()] {
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
                if u == root.idx() || dist[u] == u32::MAX || row[u] == NO_ROW {
                    continue;
                }
                list.clear();
                for &(p, v) in &adj[u] {
                    let via_ok = v == root || !is_host[v.idx()];
                    if via_ok && dist[v.idx()] != u32::MAX && dist[v.idx()] + 1 == dist[u] {
                        list.push(p);
                    }
                }
                let (ls, ll) = last[u];
                let start = if ll as usize == list.len() && ports[ls as usize..ls as usize + list.len()] == list[..] {
                    ls
                } else {
                    match interned.get(list.as_slice()) {
                        Some(&s) => s,
                        None => {
                            let s = ports.len() as u32;
                            ports.extend_from_slice(&list);
                            interned.insert(list.clone(), s);
                            s
                        }
                    }
                };
                last[u] = (start, list.len() as u16);
                sets[row[u] as usize * g_count + g] = (start, list.len() as u16);
            }
        }
        Routes { n_groups: g_count, dest, row, uplink, sets, ports }
    }

    /// Egress ports at `node` on shortest paths to host number `host`.
    #[inline]
    pub fn next_hops(&self, node: NodeId, host: u32) -> &[PortId] {
        let d = &self.dest[host as usize];
        if node == d.attach {
            // The host's own switch: its port down (a host that is its own group is delivered
            // before it is ever looked up here).
            return if d.down == NO_PORT { &[] } else { std::slice::from_ref(&d.down) };
        }
        let r = self.row[node.idx()];
        if r == NO_ROW {
            let (port, switch) = &self.uplink[node.idx()];
            let on = *switch == d.attach || self.sets[self.row[switch.idx()] as usize * self.n_groups + d.group as usize].1 > 0;
            return if on { std::slice::from_ref(port) } else { &[] };
        }
        let (s, l) = self.sets[r as usize * self.n_groups + d.group as usize];
        &self.ports[s as usize..s as usize + l as usize]
    }

    /// [`next_hops`](Self::next_hops) for forwarding a packet, whose destination is reachable
    /// from its source (validation refuses listed flows to unreachable hosts, and workloads and
    /// incasts that could generate one: `Reach::unreachable_pair`): a host without a row
    /// answers its one uplink without reading its switch's row and set to confirm it (two
    /// scattered reads per packet at its source when it follows no stored path: spraying,
    /// source-chosen paths, NDP, hybrids). Exactly `next_hops` wherever that is not empty.
    #[inline]
    pub fn forward_hops(&self, node: NodeId, host: u32) -> &[PortId] {
        if self.row[node.idx()] == NO_ROW {
            let d = &self.dest[host as usize];
            if node != d.attach {
                return std::slice::from_ref(&self.uplink[node.idx()].0);
            }
        }
        self.next_hops(node, host)
    }

    /// Bytes the tables take (for the performance notes).
    pub fn table_bytes(&self) -> usize {
        self.sets.len() * std::mem::size_of::<(u32, u16)>()
            + self.ports.len() * 4
            + self.dest.len() * std::mem::size_of::<Dest>()
            + self.row.len() * (4 + 8)
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
    fn forwarding_from_a_single_homed_host_takes_its_uplink_unchecked() {
        // h0 - s0 - h1, and h2 - s1 alone: h2 has no row; towards h1 its switch has no route, so
        // the exact answer is none, while forwarding (never asked for an unreachable host) takes
        // the uplink without reading s1's set. Towards reachable hosts both agree.
        let (h0, h1, h2, s0, s1) = (NodeId(0), NodeId(1), NodeId(2), NodeId(3), NodeId(4));
        let adj = vec![
            vec![(PortId(0), s0)],
            vec![(PortId(1), s0)],
            vec![(PortId(2), s1)],
            vec![(PortId(3), h0), (PortId(4), h1)],
            vec![(PortId(5), h2)],
        ];
        let r = Routes::build(&adj, &[true, true, true, false, false], &[h0, h1, h2]);
        assert!(r.next_hops(h2, 1).is_empty());
        assert_eq!(r.forward_hops(h2, 1), &[PortId(2)]);
        assert_eq!(r.forward_hops(h0, 1), &[PortId(0)]);
        assert_eq!(r.next_hops(h0, 1), &[PortId(0)]);
        // At a destination's own switch: its port down, either way.
        assert_eq!(r.forward_hops(s0, 1), &[PortId(4)]);
    }

    #[test]
    fn flow_hash_spreads_over_paths() {
        let mut counts = [0; 4];
        for h in 0..4000u64 {
            counts[pick(4, mix64(h), NodeId(7))] += 1;
        }
        assert!(counts.iter().all(|&c| c > 850 && c < 1150), "{counts:?}");
    }

    /// The per-destination-host search the grouped tables replace, kept as the reference.
    fn per_host(adj: &[Vec<(PortId, NodeId)>], is_host: &[bool], dst: NodeId) -> Vec<Vec<PortId>> {
        let n = adj.len();
        let mut rev: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        for (u, edges) in adj.iter().enumerate() {
            for &(_, v) in edges {
                rev[v.idx()].push(NodeId::from_idx(u));
            }
        }
        let mut dist = vec![u32::MAX; n];
        dist[dst.idx()] = 0;
        let mut queue = VecDeque::from([dst]);
        while let Some(v) = queue.pop_front() {
            if v != dst && is_host[v.idx()] {
                continue;
            }
            for &u in &rev[v.idx()] {
                if dist[u.idx()] == u32::MAX {
                    dist[u.idx()] = dist[v.idx()] + 1;
                    queue.push_back(u);
                }
            }
        }
        (0..n)
            .map(|u| {
                if u == dst.idx() || dist[u] == u32::MAX {
                    return Vec::new();
                }
                adj[u].iter().filter(|&&(_, v)| (v == dst || !is_host[v.idx()]) && dist[v.idx()] != u32::MAX && dist[v.idx()] + 1 == dist[u]).map(|&(p, _)| p).collect()
            })
            .collect()
    }

    #[test]
    fn grouped_tables_equal_a_search_per_host() {
        // Every (node, host) set, in order, on the shipped topology kinds (fat tree, leaf-spine,
        // star, dumbbell, a hybrid network's packet side) and on the hand cases with multi-homed
        // and relaying hosts.
        let docs = [
            "[topology]\nkind = \"fat_tree\"\nk = 4\nlink = { rate = \"10Gbps\", delay = \"1us\" }",
            "[topology]\nkind = \"leaf_spine\"\nleaves = 3\nspines = 2\nhosts_per_leaf = 3\nhost_link = { rate = \"10Gbps\", delay = \"1us\" }\ncore_link = { rate = \"40Gbps\", delay = \"1us\" }",
            "[topology]\nkind = \"star\"\nhosts = 4\nlink = { rate = \"10Gbps\", delay = \"1us\" }",
            "[topology]\nkind = \"dumbbell\"\nleft = 2\nright = 3\nlink = { rate = \"10Gbps\", delay = \"1us\" }\nbottleneck = { rate = \"1Gbps\", delay = \"5us\" }",
        ];
        let mut cases: Vec<(Vec<Vec<(PortId, NodeId)>>, Vec<bool>, Vec<NodeId>)> = vec![diamond()];
        let (h0, h1, s0, s1) = (NodeId(0), NodeId(1), NodeId(2), NodeId(3));
        cases.push((
            vec![vec![(PortId(0), s0), (PortId(1), s1)], vec![(PortId(2), s1)], vec![(PortId(3), h0)], vec![(PortId(4), h0), (PortId(5), h1)]],
            vec![true, true, false, false],
            vec![h0, h1],
        ));
        for doc in docs {
            let sc = crate::Scenario::from_toml(&format!("[simulation]\nend = \"1ms\"\n{doc}\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n")).unwrap_or_else(|e| panic!("{e}"));
            let net = crate::topology::build(&sc.topology);
            let adj = net.nodes.iter().map(|n| n.ports.iter().map(|&p| (p, net.ports[p.idx()].peer)).collect()).collect();
            let is_host = (0..net.nodes.len()).map(|i| net.host_index[i].is_some()).collect();
            cases.push((adj, is_host, net.hosts.clone()));
        }
        for (c, (adj, is_host, hosts)) in cases.iter().enumerate() {
            let r = Routes::build(adj, is_host, hosts);
            for (h, &dst) in hosts.iter().enumerate() {
                let want = per_host(adj, is_host, dst);
                for (u, w) in want.iter().enumerate() {
                    if u == dst.idx() {
                        continue;
                    }
                    assert_eq!(r.next_hops(NodeId::from_idx(u), h as u32), w.as_slice(), "case {c}: node {u} to host {h}");
                    if !w.is_empty() {
                        assert_eq!(r.forward_hops(NodeId::from_idx(u), h as u32), w.as_slice(), "case {c}: node {u} to host {h}");
                    }
                }
            }
        }
    }
}
