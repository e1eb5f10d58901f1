//! Offered load: what a scenario's open-loop workloads ask of the host links and of the switches'
//! uplinks, in closed form from the traffic pattern (no simulation), for `fabricsim topology` and
//! `validate` to warn about scenarios that are overloaded by construction.
//!
//! A workload at load L offers L × (its senders' host-link capacity) bits/s (docs/SCENARIOS.md
//! `[[workload]]`), spread over host pairs by its pattern: `all_to_all` draws a uniform pair of a
//! sender and another receiver, so each of the N valid pairs gets 1/N; `many_to_one` sends
//! everything to its receiver; `permutation` gives each sender's share (1/senders) to its fixed
//! peer (the same random map the run uses for this seed). The load on a host downlink is the sum
//! over workloads of the bits/s addressed to that host over the downlink's rate; on the core, the
//! bits/s that must leave (or enter) a first-tier switch — the one a host attaches to — over the
//! capacity of its links to other switches. Workloads are summed as if all were active at once;
//! listed `[[flows]]` and incast are closed-loop or fixed and not counted.

use crate::ids::NodeId;
use crate::network::{Network, NodeKind};
use crate::rng::Rng;
use crate::scenario::{Pattern, Scenario};
use crate::workload::OpenLoop;

/// The most loaded host downlink, host uplink and first-tier switch (None when there is no
/// workload, or no switch-to-switch link for the core).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OfferedLoad {
    /// (port into the host, offered bits/s over its rate)
    pub downlink: Option<(String, f64)>,
    /// (the host's port, offered bits/s over its rate)
    pub uplink: Option<(String, f64)>,
    /// (switch, "up" or "down", offered bits/s over the capacity of its links to other switches)
    pub core: Option<(String, &'static str, f64)>,
}

/// Offered load of `sc`'s workloads on `net` (built from `sc`) under `seed`.
pub fn offered(sc: &Scenario, net: &Network, seed: u64) -> OfferedLoad {
    let n = net.nodes.len();
    let (mut into, mut out) = (vec![0.0f64; n], vec![0.0f64; n]);
    let mut tor_out = vec![0.0f64; n];
    let mut tor_in = vec![0.0f64; n];
    let port_rate = |p: &crate::ids::PortId| net.ports[p.idx()].rate.bps() as f64;
    let host_rate = |h: usize| net.nodes[h].ports.iter().map(port_rate).sum::<f64>();
    // The switch a host attaches to (its first link).
    let tor = |h: usize| net.nodes[h].ports.first().map(|p| net.ports[p.idx()].peer.idx());
    let mut any = false;
    for (i, w) in sc.workloads.iter().enumerate() {
        let total = w.load * w.senders.iter().map(|&s| host_rate(s)).sum::<f64>();
        let mut add = |s: usize, d: usize, r: f64| {
            out[s] += r;
            into[d] += r;
            let (ts, td) = (tor(s), tor(d));
            if ts != td {
                if let (Some(ts), Some(td)) = (ts, td) {
                    tor_out[ts] += r;
                    tor_in[td] += r;
                }
            }
        };
        any = true;
        let share = total / w.senders.len().max(1) as f64;
        match w.pattern {
            Pattern::AllToAll => {
                // Each valid (sender, other receiver) pair gets total / pairs; summed per host and
                // per first-tier switch in O(hosts), not O(pairs).
                let rcv: std::collections::HashSet<usize> = w.receivers.iter().copied().collect();
                let snd: std::collections::HashSet<usize> = w.senders.iter().copied().collect();
                let both = w.senders.iter().filter(|s| rcv.contains(s)).count();
                let pairs = (w.senders.len() * w.receivers.len() - both).max(1) as f64;
                let per = total / pairs;
                let mut rcv_under = std::collections::HashMap::new();
                let mut snd_under = std::collections::HashMap::new();
                for &d in &w.receivers {
                    *rcv_under.entry(tor(d)).or_insert(0usize) += 1;
                }
                for &s in &w.senders {
                    *snd_under.entry(tor(s)).or_insert(0usize) += 1;
                }
                for &s in &w.senders {
                    out[s] += per * (w.receivers.len() - rcv.contains(&s) as usize) as f64;
                }
                for &d in &w.receivers {
                    into[d] += per * (w.senders.len() - snd.contains(&d) as usize) as f64;
                }
                for (&t, &ns) in &snd_under {
                    if let Some(t) = t {
                        // Senders under t to receivers elsewhere (never the sender itself).
                        tor_out[t] += per * (ns * (w.receivers.len() - rcv_under.get(&Some(t)).copied().unwrap_or(0))) as f64;
                    }
                }
                for (&t, &nr) in &rcv_under {
                    if let Some(t) = t {
                        tor_in[t] += per * (nr * (w.senders.len() - snd_under.get(&Some(t)).copied().unwrap_or(0))) as f64;
                    }
                }
            }
            Pattern::ManyToOne(d) => w.senders.iter().for_each(|&s| add(s, d, share)),
            Pattern::Permutation => {
                // The same map the run draws first from this workload's stream (sim::Simulator::new).
                let g = OpenLoop::new(w, 1, Rng::stream(seed, 1000 + i as u64));
                for (k, &s) in w.senders.iter().enumerate() {
                    add(s, w.receivers[g.peer(k)], share);
                }
            }
        }
    }
    if !any {
        return OfferedLoad::default();
    }
    let mut r = OfferedLoad::default();
    for h in net.hosts.iter().map(|h: &NodeId| h.idx()) {
        let ups = &net.nodes[h].ports;
        if ups.is_empty() {
            continue;
        }
        let up = out[h] / host_rate(h);
        if r.uplink.as_ref().is_none_or(|(_, x)| up > *x) {
            r.uplink = Some((net.ports[ups[0].idx()].name.clone(), up));
        }
        // Ports into h: its peers' ports towards it.
        let downs: Vec<_> = ups.iter().flat_map(|p| net.nodes[net.ports[p.idx()].peer.idx()].ports.iter().filter(|q| net.ports[q.idx()].peer.idx() == h)).collect();
        let cap: f64 = downs.iter().map(|q| port_rate(q)).sum();
        let down = into[h] / cap.max(1.0);
        if r.downlink.as_ref().is_none_or(|(_, x)| down > *x) {
            r.downlink = Some((net.ports[downs[0].idx()].name.clone(), down));
        }
    }
    if sc.topology.rdcn.is_none() {
        // Circuits of a hybrid network are not static links: no core figure there.
        for t in 0..n {
            if net.nodes[t].kind != NodeKind::Switch || (tor_out[t] == 0.0 && tor_in[t] == 0.0) {
                continue;
            }
            let is_switch = |p: &&crate::ids::PortId| net.nodes[net.ports[p.idx()].peer.idx()].kind == NodeKind::Switch;
            let up_cap: f64 = net.nodes[t].ports.iter().filter(is_switch).map(port_rate).sum();
            let down_cap: f64 = net.nodes[t]
                .ports
                .iter()
                .filter(is_switch)
                .flat_map(|p| net.nodes[net.ports[p.idx()].peer.idx()].ports.iter().filter(|q| net.ports[q.idx()].peer.idx() == t))
                .map(port_rate)
                .sum();
            if up_cap == 0.0 || down_cap == 0.0 {
                continue;
            }
            for (dir, x) in [("up", tor_out[t] / up_cap), ("down", tor_in[t] / down_cap)] {
                if r.core.as_ref().is_none_or(|(_, _, y)| x > *y) {
                    r.core = Some((net.nodes[t].name.clone(), dir, x));
                }
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(doc: &str) -> OfferedLoad {
        let sc = Scenario::from_toml(doc).unwrap_or_else(|e| panic!("{e}"));
        let net = crate::topology::build(&sc.topology);
        offered(&sc, &net, sc.seed)
    }

    const STAR: &str = "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 8\nlink = { rate = \"10Gbps\", delay = \"1us\" }\n";

    #[test]
    fn many_to_one_puts_every_sender_on_the_receiver() {
        // 7 senders at load 0.5 of their 7 x 10 Gb/s: 35 Gb/s into h0's 10 Gb/s = 3.5.
        let l = load(&format!("{STAR}[[workload]]\ncdf = \"websearch\"\nload = 0.5\npattern = \"many_to_one\"\nreceiver = \"h0\"\n"));
        let (port, x) = l.downlink.unwrap();
        assert_eq!(port, "s0->h0");
        assert!((x - 3.5).abs() < 1e-12, "{x}");
        assert!((l.uplink.unwrap().1 - 0.5).abs() < 1e-12);
        assert_eq!(l.core, None, "a star has no switch-to-switch link");
    }

    #[test]
    fn all_to_all_and_permutation_keep_every_host_at_the_load() {
        for pat in ["all_to_all", "permutation"] {
            let l = load(&format!("{STAR}[[workload]]\ncdf = \"websearch\"\nload = 0.4\npattern = \"{pat}\"\n"));
            assert!((l.downlink.unwrap().1 - 0.4).abs() < 1e-12, "{pat}");
        }
    }

    #[test]
    fn leaf_spine_core_is_the_cross_rack_share_over_the_uplinks() {
        // 2 leaves x 4 hosts at 10 Gb/s, 1 spine at 10 Gb/s: all-to-all at load 0.5 offers
        // 40 Gb/s; 4 of each host's 7 peers are in the other rack, so each leaf sends
        // 0.5 x 40 x 4/7 = 11.43 Gb/s up its 10 Gb/s: 1.143.
        let l = load("[simulation]\nend = \"1ms\"\n[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 1\nhosts_per_leaf = 4\nlink = { rate = \"10Gbps\", delay = \"1us\" }\n[[workload]]\ncdf = \"websearch\"\nload = 0.5\n");
        let (sw, _, x) = l.core.unwrap();
        assert!(sw.starts_with("leaf"));
        assert!((x - 0.5 * 8.0 * 4.0 / 7.0 / 2.0).abs() < 1e-9, "{x}");
    }

    #[test]
    fn no_workload_no_figures() {
        assert_eq!(load(&format!("{STAR}[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\n")), OfferedLoad::default());
    }
}
