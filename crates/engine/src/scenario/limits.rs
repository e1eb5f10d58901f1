//! Size limits computed from the structures the engine builds for a fabric: the routing table
//! (`network::Routes`), the ports and the nodes. A scenario is refused up front, with this
//! estimate, only when the estimate exceeds the machine's memory (or a structural bound of the
//! tables' index types) — never by a fixed count of hosts or entries (docs/SCENARIOS.md, "Size
//! limits").

use super::TopologySpec;
use crate::network::Port;

/// Bytes of one ECMP set entry of the routing table: (start, length) into its port list.
const SET_BYTES: u64 = std::mem::size_of::<(u32, u16)>() as u64;
/// Bytes of one port id in an ECMP set's port list.
const PORT_ID_BYTES: u64 = 4;
/// Bytes per node beside the sets: its row index, and its uplink and that link's switch
/// (`Routes::row`, `Routes::uplink`).
const NODE_ROUTE_BYTES: u64 = 12;
/// The port list of the routing table is indexed by `u32`.
pub const MAX_ROUTE_PORTS: u64 = u32::MAX as u64;

/// What the fabric of a scenario will take in memory, by structure, before any packet is sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Destination groups of the routing table: the switches single-homed hosts hang off, plus
    /// each host attached otherwise (`Routes::build` groups hosts the same way).
    pub groups: u64,
    /// Rows of the routing table: every node but the hosts whose one link goes to a switch (their
    /// set is that link, kept per node).
    pub route_rows: u64,
    /// ECMP set entries: one per (row, group).
    pub route_sets: u64,
    /// Port ids over all ECMP sets, at most: a host with a row lists its links per group, a
    /// switch at most its ports to other switches (hosts other than the destination never
    /// relay), plus one.
    pub route_ports_max: u64,
    /// Egress ports (two per link).
    pub ports: u64,
    pub nodes: u64,
}

impl Footprint {
    /// The footprint of `spec`'s fabric, from its nodes and links alone (nothing is built).
    pub fn of(spec: &TopologySpec) -> Footprint {
        let n = spec.nodes.len();
        let mut deg = vec![0u64; n];
        let mut switch_peers = vec![0u64; n];
        let mut only_peer = vec![usize::MAX; n];
        for l in &spec.links {
            for (u, v) in [(l.a, l.b), (l.b, l.a)] {
                deg[u] += 1;
                only_peer[u] = v;
                if !spec.nodes[v].is_host {
                    switch_peers[u] += 1;
                }
            }
        }
        let mut is_root = vec![false; n];
        let single = |h: usize| spec.nodes[h].is_host && deg[h] == 1 && !spec.nodes[only_peer[h]].is_host;
        for (h, node) in spec.nodes.iter().enumerate() {
            if node.is_host {
                is_root[if single(h) { only_peer[h] } else { h }] = true;
            }
        }
        let groups = is_root.iter().filter(|&&r| r).count() as u64;
        let rows = (0..n).filter(|&u| !single(u)).count() as u64;
        let per_group: u64 = spec
            .nodes
            .iter()
            .enumerate()
            .map(|(u, node)| if single(u) { 0 } else if node.is_host { deg[u] } else { switch_peers[u] + 1 })
            .sum();
        Footprint {
            groups,
            route_rows: rows,
            route_sets: rows * groups,
            route_ports_max: per_group.saturating_mul(groups),
            ports: 2 * spec.links.len() as u64,
            nodes: n as u64,
        }
    }

    /// Bytes of the routing table, at most (sets, port lists, each node's row index and uplink).
    pub fn route_bytes(&self) -> u64 {
        self.route_sets
            .saturating_mul(SET_BYTES)
            .saturating_add(self.route_ports_max.saturating_mul(PORT_ID_BYTES))
            .saturating_add(self.nodes.saturating_mul(NODE_ROUTE_BYTES))
    }

    /// Bytes of the ports' own state (counters, queues, before any packet is queued).
    pub fn port_bytes(&self) -> u64 {
        self.ports.saturating_mul(std::mem::size_of::<Port>() as u64)
    }

    /// Bytes of the fabric before traffic: routing table plus ports.
    pub fn bytes(&self) -> u64 {
        self.route_bytes().saturating_add(self.port_bytes())
    }

    /// Why this fabric cannot be built here, if it cannot: its estimate over `memory` (the
    /// machine's, when known), or a table past its index type.
    pub fn refusal(&self, memory: Option<u64>) -> Option<String> {
        let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
        let what = format!(
            "{} nodes, {} ports: routing table {} rows x {} destination groups, at most {:.0} MiB, ports {:.0} MiB",
            self.nodes,
            self.ports,
            self.route_rows,
            self.groups,
            mib(self.route_bytes()),
            mib(self.port_bytes())
        );
        if self.route_ports_max > MAX_ROUTE_PORTS {
            // The bound on the list is loose: only refuse when even one port per set overflows.
            if self.route_sets > MAX_ROUTE_PORTS {
                return Some(format!("{what}; the table's port list is indexed by 32 bits ({MAX_ROUTE_PORTS} entries)"));
            }
        }
        match memory {
            Some(m) if self.bytes() > m => Some(format!("{what}: {:.0} MiB in all, more than this machine's {:.0} MiB of memory", mib(self.bytes()), mib(m))),
            _ => None,
        }
    }
}

/// Bytes one generated link takes before the routing table: its description while the scenario
/// is read and its two ports once built.
const LINK_BYTES: u64 = (std::mem::size_of::<super::LinkSpec>() + 2 * std::mem::size_of::<Port>()) as u64;

/// Why a generated topology of `hosts` hosts and `links` links (products of the counts written,
/// so possibly far beyond any machine) cannot be built, checked before anything is: more hosts
/// than `max_hosts`, or links beyond `memory` (the finer estimate, `Footprint`, follows once
/// the links exist).
pub fn generated_refusal(hosts: u128, links: u128, max_hosts: u64, memory: Option<u64>) -> Option<String> {
    if hosts > max_hosts as u128 {
        return Some(format!("{hosts} hosts, more than the {max_hosts} a topology may have"));
    }
    let bytes = links.saturating_mul(LINK_BYTES as u128);
    match memory {
        Some(m) if bytes > m as u128 => Some(format!("{links} links take {} MiB before routing, more than this machine's {} MiB of memory", bytes >> 20, m >> 20)),
        _ => None,
    }
}

/// The machine's memory (Linux: MemTotal of /proc/meminfo); None where it cannot be read.
pub fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn fat_tree(k: u32) -> TopologySpec {
        let doc = format!("[simulation]\nend = \"1ms\"\n[topology]\nkind = \"fat_tree\"\nk = {k}\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n");
        Scenario::from_toml(&doc).unwrap().topology
    }

    /// A k-ary fat tree by hand: k^3/4 hosts, 5k^2/4 switches, 3k^3/4 links; hosts hang off the
    /// k^2/2 edge switches (the groups). Per group, a host lists 1 port, an edge switch at most its
    /// k/2 uplinks + 1, an aggregation switch k + 1, a core switch k + 1.
    #[test]
    fn fat_tree_footprint_by_hand() {
        for k in [4u64, 8, 12] {
            let f = Footprint::of(&fat_tree(k as u32));
            let (hosts, switches, edges) = (k * k * k / 4, 5 * k * k / 4, k * k / 2);
            assert_eq!(f.nodes, hosts + switches);
            assert_eq!(f.ports, 2 * 3 * k * k * k / 4);
            assert_eq!(f.groups, edges);
            // Hosts hang off one switch each: only the switches have rows.
            assert_eq!(f.route_rows, switches);
            assert_eq!(f.route_sets, switches * edges);
            let per_group = edges * (k / 2 + 1) + (k * k / 2) * (k + 1) + (k * k / 4) * (k + 1);
            assert_eq!(f.route_ports_max, per_group * edges);
        }
    }

    /// The estimate bounds what `Routes::build` really allocates. On a fat tree the sets are
    /// exact, and the port lists, stored once each, hold k^3 ids by hand: each edge switch's k/2
    /// uplinks (k^2/2 edges), each aggregation switch's k/2 single ports down plus its k/2
    /// uplinks (k^2/2 of them), each core switch's k ports down (k^2/4); hosts have no row.
    #[test]
    fn estimate_bounds_the_built_table() {
        for k in [4u64, 8, 12] {
            let spec = fat_tree(k as u32);
            let f = Footprint::of(&spec);
            let built = crate::topology::build(&spec).routes.table_bytes() as u64;
            let hosts = k.pow(3) / 4;
            let dest = hosts * 12; // each host's destination record (group, switch, port down)
            assert_eq!(built, f.route_sets * 8 + k.pow(3) * 4 + f.nodes * 12 + dest, "k = {k}");
            assert!(built <= f.route_bytes() + dest, "k = {k}: built {built} > estimate {}", f.route_bytes());
        }
    }

    #[test]
    fn refused_only_past_the_machine() {
        let f = Footprint::of(&fat_tree(8));
        assert_eq!(f.refusal(Some(f.bytes())), None);
        assert_eq!(f.refusal(None), None);
        let r = f.refusal(Some(f.bytes() - 1)).unwrap();
        assert!(r.contains("208 nodes, 768 ports") && r.contains("more than this machine's"), "{r}");
    }
}
