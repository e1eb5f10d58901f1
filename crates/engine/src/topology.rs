//! Building the [`Network`] from a topology description: nodes, one port per link direction, and
//! the forwarding tables.
//!
//! Shapes (names are what scenarios and outputs use):
//! - `star`: hosts h0..h{N−1} on switch s0.
//! - `dumbbell`: hosts h0..h{L−1} on s0, h{L}..h{L+R−1} on s1, bottleneck s0–s1.
//! - `explicit`: the nodes and links as listed.

use crate::ids::{NodeId, PortId};
use crate::network::{Network, Node, NodeKind, Port, PortStats, Routes};
use crate::scenario::{FaultSpec, QueueSpec, TopologySpec};

fn port(name: String, node: usize, peer: usize, l: &crate::scenario::LinkSpec, q: QueueSpec, clock: crate::time::Resolution) -> Port {
    Port {
        name,
        node: NodeId::from_idx(node),
        peer: NodeId::from_idx(peer),
        rate: l.rate,
        delay: l.delay,
        loss_rate: l.loss_rate,
        queue: crate::queue::PortQueue::new(&q, l.rate, q.shared_alpha.map(|_| node as u32)),
        rng: crate::rng::Rng::new(0),
        drop_list: Vec::new(),
        drop_next: 0,
        busy: false,
        tx_pending: false,
        watched: false,
        tx_done_always: false,
        shaped: false,
        lossy: false,
        simple_queue: false,
        paused: false,
        held: 0,
        ps_per_byte: 0,
        stats: PortStats::default(),
        clock,
    }
}

/// Build nodes, ports and routes.
pub fn build(spec: &TopologySpec) -> Network {
    let mut net = build_unrouted(spec);
    let adj: Vec<Vec<(PortId, NodeId)>> =
        net.nodes.iter().map(|n| n.ports.iter().map(|&p| (p, net.ports[p.idx()].peer)).collect()).collect();
    let is_host: Vec<bool> = spec.nodes.iter().map(|n| n.is_host).collect();
    net.routes = Routes::build(&adj, &is_host, &net.hosts);
    net
}

/// Nodes and ports without the forwarding tables (empty routes): what validation needs to check
/// names, at a small fraction of the tables' time and memory on large fabrics. Reachability is
/// [`Reach`]'s.
pub fn build_unrouted(spec: &TopologySpec) -> Network {
    let mut nodes: Vec<Node> = spec
        .nodes
        .iter()
        .map(|n| Node { name: n.name.clone(), kind: if n.is_host { NodeKind::Host } else { NodeKind::Switch }, ports: vec![] })
        .collect();
    let mut ports = Vec::with_capacity(spec.links.len() * 2);
    for l in &spec.links {
        let (na, nb) = (&spec.nodes[l.a].name, &spec.nodes[l.b].name);
        nodes[l.a].ports.push(PortId::from_idx(ports.len()));
        ports.push(port(format!("{na}->{nb}"), l.a, l.b, l, l.queue_ab, spec.clock));
        nodes[l.b].ports.push(PortId::from_idx(ports.len()));
        let mut back = port(format!("{nb}->{na}"), l.b, l.a, l, l.queue_ba, spec.clock);
        if let Some((rate, delay)) = l.reverse {
            back.rate = rate;
            back.delay = delay;
        }
        ports.push(back);
    }
    let hosts: Vec<NodeId> = (0..nodes.len()).filter(|&i| spec.nodes[i].is_host).map(NodeId::from_idx).collect();
    let mut host_index = vec![None; nodes.len()];
    for (i, h) in hosts.iter().enumerate() {
        host_index[h.idx()] = Some(i as u32);
    }
    if let Some(r) = &spec.rdcn {
        // Circuit lanes come after routing: they are not static links, the hybrid ToRs use them
        // only while the schedule connects the pair (rdcn module docs). They belong to no node's
        // port list, so nothing routes onto them.
        let unused = QueueSpec::fifo(None);
        let lane = crate::scenario::LinkSpec { a: 0, b: 0, rate: r.circuit_rate, delay: r.circuit_delay, loss_rate: 0.0, queue_ab: unused, queue_ba: unused, reverse: None };
        for s in 0..r.racks {
            for d in (0..r.racks).filter(|&d| d != s) {
                ports.push(port(crate::rdcn::lane_name(s, d), r.tor_node(s), r.tor_node(d), &lane, unused, spec.clock));
            }
        }
    }
    Network { nodes, ports, hosts, host_index, routes: Routes::default() }
}

/// Which hosts can reach which, as the forwarding tables would have it, without building them:
/// hosts never relay, so `s` reaches `d` when they share a link or when a switch next to `s` and
/// a switch next to `d` are connected through switches. Linear in the links; agrees with
/// `Routes::next_hops` being non-empty (tested).
#[derive(Clone, Debug)]
pub struct Reach {
    /// Per node, the switch component it belongs to (switches) — hosts have none.
    comp: Vec<u32>,
    /// Per node, its neighbours (for hosts: to list their switch components and direct peers).
    peers: Vec<Vec<usize>>,
    is_host: Vec<bool>,
}

impl Reach {
    pub fn new(spec: &TopologySpec) -> Reach {
        let n = spec.nodes.len();
        let is_host: Vec<bool> = spec.nodes.iter().map(|x| x.is_host).collect();
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        let mut peers = vec![Vec::new(); n];
        for l in &spec.links {
            peers[l.a].push(l.b);
            peers[l.b].push(l.a);
            if !is_host[l.a] && !is_host[l.b] {
                let (ra, rb) = (find(&mut parent, l.a), find(&mut parent, l.b));
                parent[ra] = rb;
            }
        }
        let comp = (0..n).map(|x| if is_host[x] { u32::MAX } else { find(&mut parent, x) as u32 }).collect();
        Reach { comp, peers, is_host }
    }

    /// Whether host `s` can send to host `d` (node indices).
    pub fn reaches(&self, s: usize, d: usize) -> bool {
        self.peers[s].contains(&d) || self.switch_comps(s).any(|a| self.switch_comps(d).any(|b| a == b))
    }

    /// The switch components next to host `h`.
    fn switch_comps(&self, h: usize) -> impl Iterator<Item = u32> + '_ {
        self.peers[h].iter().filter(|&&v| !self.is_host[v]).map(|&v| self.comp[v])
    }

    /// A sender and another receiver (host node indices) that cannot reach each other, if any:
    /// one pass when all of them hang off one connected set of switches (every generated fabric),
    /// pair by pair otherwise.
    pub fn unreachable_pair(&self, senders: &[usize], receivers: &[usize]) -> Option<(usize, usize)> {
        let common = senders.first().and_then(|&h| self.switch_comps(h).next());
        if common.is_some_and(|c| senders.iter().chain(receivers).all(|&h| self.switch_comps(h).any(|x| x == c))) {
            return None;
        }
        senders.iter().flat_map(|&s| receivers.iter().map(move |&d| (s, d))).find(|&(s, d)| s != d && !self.reaches(s, d))
    }
}

/// Build the network and apply the scenario's scheduled drops.
pub fn build_with_faults(spec: &TopologySpec, faults: &[FaultSpec]) -> Network {
    let mut net = build(spec);
    for f in faults {
        if let Some(p) = net.port_by_name(&f.port) {
            let list = &mut net.ports[p.idx()].drop_list;
            list.extend(&f.drop_packets);
            list.sort_unstable();
            list.dedup();
        }
    }
    net
}

/// Shape figures of a built network (`fabricsim topology`).
#[derive(Clone, Debug, PartialEq)]
pub struct TopologySummary {
    pub kind: String,
    pub hosts: usize,
    pub switches: usize,
    /// Bidirectional links.
    pub links: usize,
    /// Over ordered pairs of distinct hosts: fewest, mean and most equal-cost shortest paths.
    pub paths_min: u64,
    pub paths_mean: f64,
    pub paths_max: u64,
    /// Longest shortest path between two hosts, in links.
    pub diameter_hops: u32,
    pub oversubscription: Option<f64>,
    pub bisection_bps: Option<u64>,
    /// Sum of host-link rates.
    pub host_capacity_bps: u64,
}

/// Number of distinct shortest paths from every node to host `dst` (through the ECMP sets), and
/// hop distances. Counts saturate at u64::MAX.
pub fn path_counts_to(net: &Network, dst: NodeId) -> (Vec<u64>, Vec<u32>) {
    let n = net.nodes.len();
    let mut count = vec![0u64; n];
    let mut hops = vec![u32::MAX; n];
    count[dst.idx()] = 1;
    hops[dst.idx()] = 0;
    // Memoised depth-first walk along next hops (the ECMP sets form a DAG towards dst).
    fn visit(net: &Network, u: NodeId, dst: NodeId, count: &mut [u64], hops: &mut [u32]) {
        if hops[u.idx()] != u32::MAX {
            return;
        }
        let next = net.next_hops(u, dst);
        let (mut c, mut h) = (0u64, u32::MAX);
        for &p in next {
            let v = net.ports[p.idx()].peer;
            visit(net, v, dst, count, hops);
            c = c.saturating_add(count[v.idx()]);
            h = h.min(hops[v.idx()].saturating_add(1));
        }
        count[u.idx()] = c;
        hops[u.idx()] = h;
    }
    for &h in &net.hosts {
        if h != dst && !net.next_hops(h, dst).is_empty() {
            visit(net, h, dst, &mut count, &mut hops);
        }
    }
    (count, hops)
}

/// Node, link and path figures of a network built from `spec`.
pub fn summarize(spec: &TopologySpec, net: &Network) -> TopologySummary {
    let (mut pmin, mut pmax, mut psum, mut pairs, mut diameter) = (u64::MAX, 0u64, 0f64, 0u64, 0u32);
    for &d in &net.hosts {
        let (count, hops) = path_counts_to(net, d);
        for &s in &net.hosts {
            if s == d || hops[s.idx()] == u32::MAX {
                continue;
            }
            let c = count[s.idx()];
            pmin = pmin.min(c);
            pmax = pmax.max(c);
            psum += c as f64;
            pairs += 1;
            diameter = diameter.max(hops[s.idx()]);
        }
    }
    let host_capacity_bps = net
        .hosts
        .iter()
        .map(|&h| net.node(h).ports.iter().map(|&p| net.ports[p.idx()].rate.bps()).sum::<u64>())
        .sum();
    TopologySummary {
        kind: spec.kind.clone(),
        hosts: net.hosts.len(),
        switches: net.nodes.len() - net.hosts.len(),
        links: spec.links.len(),
        paths_min: if pairs == 0 { 0 } else { pmin },
        paths_mean: if pairs == 0 { 0.0 } else { psum / pairs as f64 },
        paths_max: pmax,
        diameter_hops: diameter,
        oversubscription: spec.oversubscription,
        bisection_bps: spec.bisection_bps,
        host_capacity_bps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::mix64;
    use crate::scenario::Scenario;

    fn build_toml(topology: &str) -> (Scenario, Network) {
        let doc = format!("[simulation]\nend = \"1ms\"\n[topology]\n{topology}\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = 1000\n");
        let sc = Scenario::from_toml(&doc).unwrap_or_else(|e| panic!("{e}"));
        let net = build(&sc.topology);
        (sc, net)
    }

    const LEAF_SPINE: &str = "kind = \"leaf_spine\"\nleaves = 9\nspines = 4\nhosts_per_leaf = 16\nhost_link = { rate = \"40Gbps\", delay = \"1us\" }\ncore_link = { rate = \"100Gbps\", delay = \"1us\" }";

    #[test]
    fn leaf_spine_shape_and_path_counts() {
        // PPT's fabric (PPT §6.2): 144 hosts, 9 leaves, 4 spines. Paths between hosts on
        // different leaves = number of spines; on the same leaf = 1.
        let (sc, net) = build_toml(LEAF_SPINE);
        let s = summarize(&sc.topology, &net);
        assert_eq!((s.hosts, s.switches, s.links), (144, 13, 144 + 9 * 4));
        assert_eq!((s.paths_min, s.paths_max, s.diameter_hops), (1, 4, 4));
        // Ordered pairs: 144·143; same-leaf pairs: 9·16·15 with 1 path, the rest with 4.
        let same = 9.0 * 16.0 * 15.0;
        let all = 144.0 * 143.0;
        assert!((s.paths_mean - (same + 4.0 * (all - same)) / all).abs() < 1e-9);
        // 16 × 40 Gb/s down, 4 × 100 Gb/s up.
        assert!((s.oversubscription.unwrap() - 1.6).abs() < 1e-12);
        assert_eq!(s.bisection_bps, Some(4 * 400_000_000_000));
        assert_eq!(net.node(net.node_by_name("leaf0").unwrap()).ports.len(), 16 + 4);
    }

    /// `Reach` answers what the forwarding tables answer, pair by pair: two switch islands, a
    /// host hanging off another host (reachable only from it), a dual-homed host, a host-to-host
    /// link, a lone switch with a host, and a host whose only way on is through another host.
    #[test]
    fn reach_agrees_with_the_forwarding_tables() {
        let l = |a: &str, b: &str| format!("{{ a = \"{a}\", b = \"{b}\", rate = \"10Gbps\", delay = \"1us\" }}");
        let links = [
            l("h0", "s0"), l("h1", "s1"), l("s0", "s1"), l("h2", "s1"), l("h2", "s2"), l("s2", "s3"), l("h3", "s3"),
            l("h4", "h1"), l("h5", "h0"), l("h5", "s4"), l("h6", "s5"), l("h7", "h6"), l("h8", "s3"),
        ];
        let topo = format!(
            "kind = \"explicit\"\nhosts = [\"h0\", \"h1\", \"h2\", \"h3\", \"h4\", \"h5\", \"h6\", \"h7\", \"h8\"]\nswitches = [\"s0\", \"s1\", \"s2\", \"s3\", \"s4\", \"s5\"]\nlinks = [{}]",
            links.join(", ")
        );
        let (sc, net) = build_toml(&topo);
        let reach = Reach::new(&sc.topology);
        let mut yes = 0;
        for &s in &net.hosts {
            for &d in net.hosts.iter().filter(|&&d| d != s) {
                let tables = !net.next_hops(s, d).is_empty();
                assert_eq!(reach.reaches(s.idx(), d.idx()), tables, "{} -> {}", net.node(s).name, net.node(d).name);
                yes += tables as u32;
            }
        }
        // By hand: {h0, h1, h2} via s0-s1, {h2, h3, h8} via s2-s3 (h2 in both, so h0 and h3 are
        // not connected: hosts do not relay): 6 + 6 ordered pairs; h4-h1, h5-h0, h7-h6 direct:
        // 6 more.
        assert_eq!(yes, 18);
    }

    #[test]
    fn fat_tree_path_counts_match_closed_form() {
        // Al-Fares et al.: k³/4 hosts, 5k²/4 switches; paths between pods (k/2)², within a pod
        // across edges k/2, under one edge 1; diameter 6 links.
        for k in [4u64, 6, 8] {
            let (sc, net) = build_toml(&format!("kind = \"fat_tree\"\nk = {k}\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}"));
            let s = summarize(&sc.topology, &net);
            assert_eq!(s.hosts as u64, k * k * k / 4);
            assert_eq!(s.switches as u64, 5 * k * k / 4);
            assert_eq!((s.paths_min, s.paths_max, s.diameter_hops), (1, (k / 2) * (k / 2), 6));
            let (count, _) = path_counts_to(&net, net.hosts[0]);
            let h = |i: u64| net.hosts[i as usize].idx();
            assert_eq!(count[h(1)], 1, "same edge switch");
            assert_eq!(count[h(k / 2)], k / 2, "same pod, other edge");
            assert_eq!(count[h(k * k / 4)], (k / 2) * (k / 2), "other pod");
            assert_eq!(s.oversubscription, Some(1.0));
        }
    }

    #[test]
    fn ecmp_spreads_flows_evenly_across_spines() {
        // 20 000 flows between hosts on leaf 0 and leaf 1 hash onto 4 spines; a chi-square test
        // against the uniform split must not reject at the 0.1 % level (df = 3: 16.27).
        let (_, net) = build_toml(LEAF_SPINE);
        let mut per_spine = [0u64; 4];
        let n = 20_000u64;
        for f in 0..n {
            let h = mix64(7 ^ mix64(f + 1));
            let (src, dst) = (net.hosts[(f % 16) as usize], net.hosts[16 + (f / 16 % 16) as usize]);
            let path = net.path(src, dst, h).unwrap();
            let spine = net.node(net.ports[path[1].idx()].peer).name.clone();
            per_spine[spine.trim_start_matches("spine").parse::<usize>().unwrap()] += 1;
        }
        let e = n as f64 / 4.0;
        let chi2: f64 = per_spine.iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
        assert!(chi2 < 16.27, "chi-square {chi2} for {per_spine:?}");
    }
}
