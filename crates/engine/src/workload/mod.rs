//! Traffic: flow-size distributions, open-loop generators (Poisson arrivals at a target load over a
//! traffic pattern) and the closed-loop incast application.

pub mod builtin;
pub mod cdf;

pub use cdf::{Cdf, Sampling};

use crate::rng::Rng;
use crate::scenario::{Pattern, WorkloadSpec};
use crate::time::Time;

/// One flow an open-loop workload asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewFlow {
    /// Host node indices.
    pub src: usize,
    pub dst: usize,
    pub size: u64,
}

/// The arrival process of one workload: Poisson arrivals calibrated so that the offered load is
/// `load` × the senders' total host-link capacity (`capacity_bps`), over a traffic pattern.
#[derive(Clone, Debug)]
pub struct OpenLoop {
    rng: Rng,
    /// Mean inter-arrival time in picoseconds: 8 · mean size / (load · capacity).
    pub mean_gap_ps: f64,
    /// Permutation pattern: sender i sends to receivers[perm[i]].
    perm: Vec<usize>,
    pub made: u64,
}

impl OpenLoop {
    pub fn new(w: &WorkloadSpec, capacity_bps: u64, mut rng: Rng) -> OpenLoop {
        let mean_gap_ps = 8.0 * w.cdf.mean(w.sampling) / (w.load * capacity_bps as f64) * Time::S as f64;
        let perm = if w.pattern == Pattern::Permutation { derangement(&w.senders, &w.receivers, &mut rng) } else { vec![] };
        OpenLoop { rng, mean_gap_ps, perm, made: 0 }
    }

    /// Permutation pattern: the receiver index (into the workload's `receivers`) of sender `i`.
    pub fn peer(&self, i: usize) -> usize {
        self.perm[i]
    }

    /// An exponential gap (Poisson arrivals), in whole picoseconds.
    pub fn gap(&mut self) -> Time {
        let u = 1.0 - self.rng.uniform(); // (0, 1]
        Time((-u.ln() * self.mean_gap_ps).round() as u64)
    }

    /// The next flow's endpoints and size.
    pub fn flow(&mut self, w: &WorkloadSpec) -> NewFlow {
        let r = &mut self.rng;
        let (src, dst) = match w.pattern {
            Pattern::AllToAll => loop {
                let s = w.senders[r.below(w.senders.len() as u64) as usize];
                let d = w.receivers[r.below(w.receivers.len() as u64) as usize];
                if s != d {
                    break (s, d);
                }
            },
            Pattern::Permutation => {
                let i = r.below(w.senders.len() as u64) as usize;
                (w.senders[i], w.receivers[self.perm[i]])
            }
            Pattern::ManyToOne(d) => (w.senders[r.below(w.senders.len() as u64) as usize], d),
        };
        let size = w.cdf.sample_bytes(1.0 - r.uniform(), w.sampling);
        self.made += 1;
        NewFlow { src, dst, size }
    }
}

/// A random one-to-one map from senders to receivers (indices into `receivers`) with no host
/// mapped to itself (a derangement when the two sets are the same).
fn derangement(senders: &[usize], receivers: &[usize], rng: &mut Rng) -> Vec<usize> {
    let n = receivers.len();
    let mut perm: Vec<usize> = (0..n).collect();
    for _ in 0..10_000 {
        for i in (1..n).rev() {
            perm.swap(i, rng.below(i as u64 + 1) as usize);
        }
        if senders.iter().zip(&perm).all(|(&s, &r)| s != receivers[r]) {
            return perm;
        }
    }
    (0..n).map(|i| (i + 1) % n).collect() // a cyclic shift: valid for distinct hosts, n ≥ 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn spec(extra: &str) -> WorkloadSpec {
        let doc = format!(
            "[simulation]\nend = \"10s\"\n[topology]\nkind = \"star\"\nhosts = 16\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n[[workload]]\ncdf = \"websearch\"\nload = 0.5\n{extra}\n"
        );
        Scenario::from_toml(&doc).unwrap_or_else(|e| panic!("{e}")).workloads.remove(0)
    }

    #[test]
    fn offered_load_matches_the_target_within_two_percent() {
        // Load = offered bytes/s over the senders' capacity (16 x 10 Gb/s). 200 000 arrivals.
        for (extra, seed) in [("", 1u64), ("pattern = \"permutation\"", 2), ("cdf = \"fb_hadoop\"", 3)] {
            let mut w = spec("");
            if extra.starts_with("cdf") {
                w.cdf = crate::workload::Cdf::parse("fb_hadoop", crate::workload::builtin::text("fb_hadoop").unwrap()).unwrap();
            } else if !extra.is_empty() {
                w = spec(extra);
            }
            let cap = 16 * 10_000_000_000u64;
            let mut g = OpenLoop::new(&w, cap, Rng::new(seed));
            let (mut t, mut bytes) = (Time::ZERO, 0u64);
            for _ in 0..200_000 {
                t += g.gap();
                bytes += g.flow(&w).size;
            }
            let load = bytes as f64 * 8.0 / t.secs_f64() / cap as f64;
            assert!((load - 0.5).abs() / 0.5 < 0.02, "{extra}: measured load {load}");
        }
    }

    #[test]
    fn patterns_pick_valid_pairs() {
        let w = spec("pattern = \"permutation\"");
        let mut g = OpenLoop::new(&w, 1, Rng::new(4));
        let mut peer = std::collections::HashMap::new();
        for _ in 0..2000 {
            let f = g.flow(&w);
            assert_ne!(f.src, f.dst);
            assert_eq!(*peer.entry(f.src).or_insert(f.dst), f.dst, "a permutation keeps each sender's peer");
        }
        assert_eq!(peer.len(), 16);
        let mut dsts: Vec<_> = peer.values().collect();
        dsts.sort();
        dsts.dedup();
        assert_eq!(dsts.len(), 16, "one-to-one");
        let w = spec("pattern = \"many_to_one\"\nreceiver = \"h3\"");
        let mut g = OpenLoop::new(&w, 1, Rng::new(4));
        for _ in 0..500 {
            let f = g.flow(&w);
            assert_eq!(f.dst, 3);
            assert_ne!(f.src, 3);
        }
    }
}
