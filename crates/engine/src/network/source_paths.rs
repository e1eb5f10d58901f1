//! Source-chosen paths (`[routing] paths`): a flow's endpoints pick each packet's path among the
//! equal-cost ones and the switches follow it, as htsim's sources do (csg-htsim 841d9e7,
//! `NdpSrc::choose_route` and the DCTCP drivers' per-flow `choice`).
//!
//! A path is a number, the *path index*, carried in the packet's `path_hash` field. Each node
//! where the packet has more than one next hop takes the index's lowest digit in the base of its
//! number of choices and divides it away ([`take_digit`]): at the first choice the packet leaves
//! by next hop `index % n₀`, at the second by `(index / n₀) % n₁`, and so on. On a fat tree of
//! k-port switches a packet between pods therefore leaves its edge switch towards aggregation
//! switch `index % (k/2)` and that switch towards its core uplink `index / (k/2)`: the (k/2)²
//! indices below the path count are (k/2)² distinct paths, and the reply with the same index
//! takes the same switches back. On topologies whose branches offer different numbers of choices
//! every index is still a shortest path, but distinct indices may share one.
//!
//! Strategies ([`PathChoice`]): one index drawn per flow (pinning, both directions, unless the
//! return direction is given its own: [`Pins`]), a random index per packet, or each direction
//! cycling through a shuffled list of its indices. Every direction of every flow draws from its
//! own stream of the run's seed, so adding a flow never changes another's paths.

use crate::ids::{FlowId, NodeId};
use crate::network::Network;
use crate::rng::Rng;

/// Stream numbers of the flows' path draws (two per flow), apart from the switches', ports' and
/// hosts' streams (`switch/mod.rs`, `host/jitter.rs`).
const PATH_STREAM: u64 = 4 << 40;

/// The most path indices a flow's shuffled list holds: beyond, `Permutation` cycles through the
/// first this many (a fat tree of 512-port switches has 65 536 paths between pods).
pub const MAX_LISTED: u64 = 1 << 16;

/// Who picks a packet's next hop among the equal-cost ones (`[routing] paths`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PathChoice {
    /// Each switch, by `[routing] ecmp` (the default; source-chosen paths off).
    #[default]
    Switches,
    /// One path index per flow, drawn when the flow is created (or given by the flow's `path`),
    /// for both directions: the flow is pinned to it, as htsim's TCP drivers pin theirs.
    Flow,
    /// A uniformly random path for every packet (htsim's NDP `-strat rand`, `SCATTER_RANDOM`).
    Random,
    /// Each direction of a flow cycles through a shuffled list of all its paths, shuffled anew
    /// when every path has been used once (htsim's NDP `-strat perm`, `SCATTER_PERMUTE`).
    Permutation,
}

impl PathChoice {
    /// The scenario's names, in the order of the variants.
    pub const NAMES: [&'static str; 4] = ["switches", "flow", "random", "permutation"];

    pub fn from_name(name: &str) -> Option<PathChoice> {
        [PathChoice::Switches, PathChoice::Flow, PathChoice::Random, PathChoice::Permutation].into_iter().zip(Self::NAMES).find(|&(_, n)| n == name).map(|(c, _)| c)
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Does every packet get its own path (a flow's packets may overtake each other)?
    pub fn per_packet(self) -> bool {
        matches!(self, PathChoice::Random | PathChoice::Permutation)
    }
}

/// The path indices a flow is pinned to under `PathChoice::Flow` (`[[flows]] path` and
/// `return_path`); none given: drawn. The return direction takes the data direction's index
/// unless it has its own, as htsim's Swift driver gives it (csg-htsim 841d9e7, main_swift.cpp:
/// the sink's ACKs take `choice` while `SwiftSrc::set_paths` reroutes the data onto the first
/// path of its shuffled list).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pins {
    /// The data direction's index (`path`).
    pub forward: Option<u64>,
    /// The return direction's index (`return_path`); `None`: the data direction's.
    pub back: Option<u64>,
}

/// At a node with `n` > 1 next hops: which one `index` takes (its lowest digit in base `n`), and
/// the index the next nodes read (the rest).
#[inline]
pub fn take_digit(index: &mut u64, n: usize) -> usize {
    let n = n as u64;
    let digit = *index % n;
    *index /= n;
    digit as usize
}

/// How many path indices lead from `from` to `to`: the product of the numbers of choices along
/// the path of index 0 (all of them on a fat tree or leaf-spine); 1 with no choice, saturating.
pub fn path_count(net: &Network, from: NodeId, to: NodeId) -> u64 {
    let mut count = 1u64;
    let _ = net.walk(from, to, |hops, _| {
        count = count.saturating_mul(hops.len() as u64);
        hops[0]
    });
    count
}

/// One direction of one flow: how its sending endpoint picks the next packet's path.
#[derive(Clone, Debug)]
struct Leg {
    rng: Rng,
    /// Path indices to pick from.
    count: u64,
    /// `Flow`: the pinned index. `Permutation`: the position in the list (`count` or more: the
    /// list is used up and is shuffled before the next pick).
    at: u64,
    /// `Permutation`: where the list starts in `SourcePaths::lists`.
    list: u32,
}

/// Every flow's path choice, by flow id (two legs per flow: data direction, then return).
#[derive(Clone, Debug)]
pub struct SourcePaths {
    choice: PathChoice,
    seed: u64,
    legs: Vec<Leg>,
    /// The `Permutation` lists of every leg, back to back.
    lists: Vec<u32>,
}

impl SourcePaths {
    /// The paths of a run with `choice` (not `Switches`) and `seed`.
    pub fn new(choice: PathChoice, seed: u64) -> SourcePaths {
        debug_assert_ne!(choice, PathChoice::Switches);
        SourcePaths { choice, seed, legs: Vec::new(), lists: Vec::new() }
    }

    /// Record flow `flow` (ids come in order) from `src` to `dst`; `pins` are given indices
    /// (`Flow` only: the flow's `path` and `return_path`).
    pub fn add(&mut self, net: &Network, flow: FlowId, src: NodeId, dst: NodeId, pins: Pins) {
        debug_assert_eq!(2 * flow.idx(), self.legs.len());
        let mut shared = pins.forward;
        for (dir, (from, to)) in [(src, dst), (dst, src)].into_iter().enumerate() {
            let mut rng = Rng::stream(self.seed, PATH_STREAM | (2 * flow.0 as u64 + dir as u64));
            let count = path_count(net, from, to);
            let own = if dir == 1 { pins.back } else { None };
            let (at, list) = match self.choice {
                // One draw for the flow: the return direction takes the same index (the same
                // switches back on a fat tree), as htsim's drivers pair `routeout` and `routein`,
                // unless it is given its own.
                PathChoice::Flow => (own.unwrap_or_else(|| *shared.get_or_insert_with(|| rng.below(count))) % count, 0),
                PathChoice::Permutation => {
                    let listed = count.min(MAX_LISTED);
                    let start = self.lists.len() as u32;
                    self.lists.extend(0..listed as u32);
                    (listed, start)
                }
                _ => (0, 0),
            };
            self.legs.push(Leg { rng, count, at, list });
        }
    }

    /// The path index of `flow`'s next packet in the data direction (`forward`) or back.
    #[inline]
    pub fn next(&mut self, flow: FlowId, forward: bool) -> u64 {
        let leg = &mut self.legs[2 * flow.idx() + !forward as usize];
        match self.choice {
            PathChoice::Random => leg.rng.below(leg.count),
            PathChoice::Permutation => {
                let n = leg.count.min(MAX_LISTED);
                let list = &mut self.lists[leg.list as usize..leg.list as usize + n as usize];
                if leg.at >= n {
                    // Every path used once: a new order (Fisher–Yates).
                    for i in (1..list.len()).rev() {
                        list.swap(i, leg.rng.below(i as u64 + 1) as usize);
                    }
                    leg.at = 0;
                }
                leg.at += 1;
                list[leg.at as usize - 1] as u64
            }
            _ => leg.at,
        }
    }

    /// The index `flow` is pinned to in the data direction (`forward`) or back (`Flow` only).
    pub fn pinned(&self, flow: FlowId, forward: bool) -> Option<u64> {
        (self.choice == PathChoice::Flow).then(|| self.legs[2 * flow.idx() + !forward as usize].at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::testing::run;
    use crate::Scenario;

    /// A k = 4 fat tree at 10 Gb/s (hosts h0–h15: h0, h1 under edge0_0 in pod 0; h15 under
    /// edge3_1 in pod 3), `routing` lines and `flows`.
    fn fat_tree(routing: &str, rest: &str) -> String {
        format!(
            "[simulation]\nend = \"2ms\"\n[topology]\nkind = \"fat_tree\"\nk = 4\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
             [queue]\nbuffer = \"1MB\"\n[routing]\n{routing}\n{rest}"
        )
    }

    fn tx_packets(sim: &mut crate::Simulator, port: &str) -> u64 {
        let t = sim.port_table();
        let i = t.name.iter().position(|p| p == port).unwrap_or_else(|| panic!("no port {port}"));
        t.tx_packets[i]
    }

    /// The eight uplinks of pod 0 and the core ports down into pod 3, by name.
    fn uplinks() -> Vec<String> {
        let mut up = vec![];
        for a in 0..2 {
            up.push(format!("edge0_0->agg0_{a}"));
            for m in 0..2 {
                up.push(format!("agg0_{a}->core{}", 2 * a + m));
            }
        }
        up
    }

    #[test]
    fn index_i_leaves_edge_by_agg_i_mod_2_and_agg_by_core_uplink_i_div_2() {
        // Between pods of a k = 4 fat tree: 2 × 2 = 4 paths. Index i: edge0_0 -> agg0_(i % 2),
        // then that switch's uplink i / 2, i.e. core 2·(i % 2) + i / 2 (aggregation switch a
        // reaches cores 2a, 2a + 1); from the core, one way down to h15. The flow of 10 packets
        // (7 data segments + ACKs back) is pinned to index i in both directions.
        let want = [("agg0_0", "core0"), ("agg0_1", "core2"), ("agg0_0", "core1"), ("agg0_1", "core3")];
        for (i, (agg, core)) in want.iter().enumerate() {
            let doc = fat_tree("paths = \"flow\"", &format!("[[flows]]\nsrc = \"h0\"\ndst = \"h15\"\nsize = 10000\npath = {i}\n"));
            let mut sim = run(&doc);
            for port in uplinks() {
                let on = port == format!("edge0_0->{agg}") || port == format!("{agg}->{core}");
                assert_eq!(tx_packets(&mut sim, &port) > 0, on, "index {i}: {port}");
            }
            // The ACKs come back through the same core and aggregation position.
            let back_agg = format!("agg3_{}", &agg[5..]);
            assert!(tx_packets(&mut sim, &format!("{back_agg}->{core}")) > 0, "index {i}: ACKs via {core}");
            assert!(sim.flow_table().end_ps[0].is_some());
        }
        // Index 4 wraps to 0 (4 paths), and the walk gives the same ports as the switches.
        let sc = Scenario::from_toml(&fat_tree("paths = \"flow\"", "[[flows]]\nsrc = \"h0\"\ndst = \"h15\"\n")).unwrap();
        let net = crate::topology::build(&sc.topology);
        let (h0, h15) = (net.node_by_name("h0").unwrap(), net.node_by_name("h15").unwrap());
        assert_eq!(path_count(&net, h0, h15), 4);
        assert_eq!(net.path_by_index(h0, h15, 4), net.path_by_index(h0, h15, 0));
        let names = |i| net.path_by_index(h0, h15, i).unwrap().iter().map(|p| net.ports[p.idx()].name.clone()).collect::<Vec<_>>();
        assert_eq!(names(3), ["h0->edge0_0", "edge0_0->agg0_1", "agg0_1->core3", "core3->agg3_1", "agg3_1->edge3_1", "edge3_1->h15"]);
        // Within a pod 2 paths (the aggregation switch), under one edge switch 1.
        let h2 = net.node_by_name("h2").unwrap();
        assert_eq!((path_count(&net, h0, h2), path_count(&net, h0, net.node_by_name("h1").unwrap())), (2, 1));
    }

    #[test]
    fn permutation_visits_every_path_once_per_cycle_and_reshuffles() {
        let sc = Scenario::from_toml(&fat_tree("paths = \"permutation\"", "[[flows]]\nsrc = \"h0\"\ndst = \"h15\"\n")).unwrap();
        let net = crate::topology::build(&sc.topology);
        let (h0, h15) = (net.node_by_name("h0").unwrap(), net.node_by_name("h15").unwrap());
        let mut sp = SourcePaths::new(PathChoice::Permutation, 1);
        sp.add(&net, FlowId(0), h0, h15, Pins::default());
        sp.add(&net, FlowId(1), h15, h0, Pins::default());
        let mut orders = std::collections::BTreeSet::new();
        for _ in 0..50 {
            let mut cycle: Vec<u64> = (0..4).map(|_| sp.next(FlowId(0), true)).collect();
            orders.insert(cycle.clone());
            cycle.sort();
            assert_eq!(cycle, [0, 1, 2, 3], "each cycle is a permutation of the 4 paths");
        }
        // 50 cycles of 24 possible orders: reshuffled, not one order repeated.
        assert!(orders.len() > 10, "{orders:?}");
        // The return direction and the other flow have their own lists.
        let back: Vec<u64> = (0..4).map(|_| sp.next(FlowId(0), false)).collect();
        let mut sorted = back.clone();
        sorted.sort();
        assert_eq!(sorted, [0, 1, 2, 3]);
        // Random: uniform over the 4 (each 1/4 of 4000 draws within 4 sigma = 110).
        let mut r = SourcePaths::new(PathChoice::Random, 1);
        r.add(&net, FlowId(0), h0, h15, Pins::default());
        let mut counts = [0; 4];
        for _ in 0..4000 {
            counts[r.next(FlowId(0), true) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| (890..1110).contains(&c)), "{counts:?}");
    }

    #[test]
    fn pinning_keeps_each_flow_on_one_path_and_per_packet_choices_use_them_all() {
        // 8 flows from pod 0 to pod 3 (h0–h3 to h12–h15 and back), 100 packets each.
        let mut flows = String::new();
        for (a, b) in [(0, 12), (1, 13), (2, 14), (3, 15), (12, 0), (13, 1), (14, 2), (15, 3)] {
            flows += &format!("[[flows]]\nsrc = \"h{a}\"\ndst = \"h{b}\"\nsize = 144800\n");
        }
        let cores = |sim: &mut crate::Simulator, pod: usize| -> Vec<u64> { (0..4).map(|c| tx_packets(sim, &format!("core{c}->agg{pod}_{}", c / 2))).collect() };
        // Pinned: one flow alone (h0 -> h12) crosses exactly one core towards pod 3, and its
        // ACKs exactly one towards pod 0, the same core.
        let mut one = run(&fat_tree("paths = \"flow\"", "[[flows]]\nsrc = \"h0\"\ndst = \"h12\"\nsize = 144800\n"));
        let (down3, down0) = (cores(&mut one, 3), cores(&mut one, 0));
        assert_eq!(down3.iter().filter(|&&n| n > 0).count(), 1, "{down3:?}");
        assert_eq!(down0.iter().position(|&n| n > 0), down3.iter().position(|&n| n > 0), "ACKs come back the same way");
        // Per packet (random, permutation): a single flow's data crosses all four cores; with
        // permutation its 100 data packets split 25 each, up to the cycle in progress (± 1).
        for choice in ["random", "permutation"] {
            let mut sim = run(&fat_tree(&format!("paths = \"{choice}\""), "[[flows]]\nsrc = \"h0\"\ndst = \"h12\"\nsize = 144800\n"));
            let down = cores(&mut sim, 3);
            assert!(down.iter().all(|&n| n > 0), "{choice}: {down:?}");
            if choice == "permutation" {
                assert!(down.iter().all(|&n| (24..=26).contains(&n)), "{down:?}");
            }
            assert!(sim.flow_table().end_ps[0].is_some());
        }
        // Many pinned flows: every flow finishes; the run is deterministic.
        let doc = fat_tree("paths = \"flow\"", &flows);
        let (mut a, mut b) = (run(&doc), run(&doc));
        assert_eq!(a.flow_table().end_ps, b.flow_table().end_ps);
        assert!(a.flow_table().end_ps.iter().all(|e| e.is_some()));
        assert_eq!(cores(&mut a, 3), cores(&mut b, 3));
    }

    #[test]
    fn return_path_sends_the_acks_across_the_other_spine() {
        // A leaf-spine of 2 leaves, 3 spines, 1 host each: h0 -> h1 has 3 paths, index i
        // leaving leaf0 by spine i (the one choice); the ACKs h1 -> h0 leave leaf1 by spine j.
        // 10 packets of data (7 segments) go up one spine, their ACKs up another.
        let doc = |pins: &str| {
            format!(
                "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 3\nhosts_per_leaf = 1\n\
                 link = {{ rate = \"10Gbps\", delay = \"1us\" }}\n[routing]\npaths = \"flow\"\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = 10000\n{pins}"
            )
        };
        let used = |sim: &mut crate::Simulator, from: &str| -> Vec<usize> { (0..3).filter(|s| tx_packets(sim, &format!("{from}->spine{s}")) > 0).collect() };
        for (pins, data, acks) in [("path = 0\nreturn_path = 2\n", 0, 2), ("path = 2\nreturn_path = 1\n", 2, 1), ("path = 1\n", 1, 1), ("path = 1\nreturn_path = 4\n", 1, 1)] {
            let mut sim = run(&doc(pins));
            assert_eq!(used(&mut sim, "leaf0"), [data], "{pins}: data");
            assert_eq!(used(&mut sim, "leaf1"), [acks], "{pins}: ACKs");
            // Down from the spines too: data spine -> leaf1, ACK spine -> leaf0.
            assert!(tx_packets(&mut sim, &format!("spine{data}->leaf1")) > 0 && tx_packets(&mut sim, &format!("spine{acks}->leaf0")) > 0);
            assert!(sim.flow_table().end_ps[0].is_some());
        }
        // A return path alone: the data direction keeps its own draw, the ACKs take spine 2;
        // the draw is the one made without return_path (same seed, same data spine).
        let (mut drawn, mut given) = (run(&doc("")), run(&doc("return_path = 2\n")));
        assert_eq!(used(&mut drawn, "leaf0"), used(&mut given, "leaf0"));
        assert_eq!(used(&mut given, "leaf1"), [2]);
        // Pinned per direction, as SourcePaths reports them.
        let sc = Scenario::from_toml(&doc("path = 0\nreturn_path = 2\n")).unwrap();
        assert_eq!(sc.flows[0].path, Pins { forward: Some(0), back: Some(2) });
        let net = crate::topology::build(&sc.topology);
        let (h0, h1) = (net.node_by_name("h0").unwrap(), net.node_by_name("h1").unwrap());
        let mut sp = SourcePaths::new(PathChoice::Flow, 1);
        sp.add(&net, FlowId(0), h0, h1, sc.flows[0].path);
        assert_eq!((sp.pinned(FlowId(0), true), sp.pinned(FlowId(0), false)), (Some(0), Some(2)));
        assert_eq!((sp.next(FlowId(0), true), sp.next(FlowId(0), false)), (0, 2));
    }

    #[test]
    fn bad_settings_are_refused_by_key() {
        let err = |routing: &str, flow: &str| Scenario::from_toml(&fat_tree(routing, &format!("[[flows]]\nsrc = \"h0\"\ndst = \"h15\"\n{flow}"))).unwrap_err().to_string();
        assert!(err("paths = \"perm\"", "").contains("routing.paths"), "{}", err("paths = \"perm\"", ""));
        assert!(err("paths = \"random\"\necmp = \"packet_spray\"", "").contains("routing.paths: 'random' has the sources choose"));
        assert!(err("paths = \"random\"", "path = 1").contains("flows[0].path: 1 pins the flow to a path, which needs [routing] paths = \"flow\""));
        assert!(err("", "path = 1").contains("flows[0].path"));
        assert!(err("paths = \"flow\"", "path = -1").contains("flows[0].path"));
        assert!(err("paths = \"random\"", "return_path = 1").contains("flows[0].return_path: 1 pins the flow's return direction to a path, which needs [routing] paths = \"flow\""));
        assert!(err("paths = \"flow\"", "return_path = \"1\"").contains("flows[0].return_path"));
        assert!(err("paths = \"flow\"", "return_path = -1").contains("flows[0].return_path"));
        // A host with two links.
        let diamond = "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"explicit\"\nhosts = [\"a\", \"b\"]\nswitches = [\"s0\", \"s1\"]\n\
            links = [{ a = \"a\", b = \"s0\", rate = \"10Gbps\", delay = \"1us\" }, { a = \"a\", b = \"s1\", rate = \"10Gbps\", delay = \"1us\" }, \
            { a = \"s0\", b = \"b\", rate = \"10Gbps\", delay = \"1us\" }, { a = \"s1\", b = \"b\", rate = \"10Gbps\", delay = \"1us\" }]\n\
            [routing]\npaths = \"flow\"\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\n";
        let e = Scenario::from_toml(diamond).unwrap_err().to_string();
        assert!(e.contains("routing.paths: 'flow' needs hosts with one link each; 'a' has 2"), "{e}");
    }
}
