//! Count-Min sketch (Cormode & Muthukrishnan, J. Algorithms 55(1), 2005): the heavy-hitter
//! counter AccelToR's ToRs use to pick elephant flows (Chen et al., AccelToR §III-G, §IV-B).
//!
//! `depth` rows of `width` counters; row j hashes a key with its own function h_j drawn from the
//! Carter–Wegman family ((a·x + b) mod p) mod w, p = 2^61 − 1, which is pairwise independent, with
//! a and b taken from a seeded stream. `add` adds to one counter per row, `estimate` is the
//! smallest of them, so an estimate never undercounts, and with width ⌈e/ε⌉ it overcounts by more
//! than ε·‖a‖₁ with probability at most e^(−depth).

use crate::rng::Rng;

/// The Mersenne prime 2^61 − 1 of the hash family.
const P: u64 = (1 << 61) - 1;

/// (x mod 2^61−1) without a division.
#[inline]
fn mod_p(x: u128) -> u64 {
    let lo = (x as u64) & P;
    let hi = (x >> 61) as u64;
    let s = lo + (hi & P) + ((x >> 122) as u64);
    let s = (s & P) + (s >> 61);
    if s >= P {
        s - P
    } else {
        s
    }
}

#[derive(Clone, Debug)]
pub struct CountMin {
    width: usize,
    depth: usize,
    /// (a_j, b_j) of each row's hash, 1 ≤ a < p, 0 ≤ b < p.
    hash: Vec<(u64, u64)>,
    counts: Vec<u64>,
    /// ‖a‖₁: everything ever added.
    total: u64,
}

impl CountMin {
    /// A sketch of `depth` rows by `width` counters, its hashes drawn from `seed`.
    pub fn new(width: usize, depth: usize, seed: u64) -> CountMin {
        assert!(width > 0 && depth > 0);
        let mut rng = Rng::stream(seed, 0xc0_u64 << 32 | 0x5e7c);
        let hash = (0..depth).map(|_| (1 + rng.below(P - 1), rng.below(P))).collect();
        CountMin { width, depth, hash, counts: vec![0; width * depth], total: 0 }
    }

    /// Width and depth for an error ε with failure probability δ (width ⌈e/ε⌉, depth ⌈ln 1/δ⌉).
    pub fn dimensions(epsilon: f64, delta: f64) -> (usize, usize) {
        ((std::f64::consts::E / epsilon).ceil() as usize, (1.0 / delta).ln().ceil().max(1.0) as usize)
    }

    pub fn width(&self) -> usize {
        self.width
    }
    pub fn depth(&self) -> usize {
        self.depth
    }
    /// ‖a‖₁, the sum of every count added.
    pub fn total(&self) -> u64 {
        self.total
    }

    #[inline]
    fn cell(&self, row: usize, key: u64) -> usize {
        let (a, b) = self.hash[row];
        row * self.width + (mod_p(a as u128 * (key & P) as u128 + b as u128) % self.width as u64) as usize
    }

    /// Add `c` to `key`'s count; returns its estimate after the update.
    #[inline]
    pub fn add(&mut self, key: u64, c: u64) -> u64 {
        self.total += c;
        let mut est = u64::MAX;
        for j in 0..self.depth {
            let i = self.cell(j, key);
            self.counts[i] += c;
            est = est.min(self.counts[i]);
        }
        est
    }

    /// The estimate of `key`'s count: the smallest of its counters.
    #[inline]
    pub fn estimate(&self, key: u64) -> u64 {
        (0..self.depth).map(|j| self.counts[self.cell(j, key)]).min().unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mod_p_agrees_with_the_remainder() {
        for x in [0u128, 1, P as u128 - 1, P as u128, P as u128 + 5, u64::MAX as u128, (P as u128) * (P as u128) - 1, (1u128 << 122) + 12345] {
            assert_eq!(mod_p(x) as u128, x % P as u128, "{x}");
        }
    }

    #[test]
    fn dimensions_follow_epsilon_and_delta() {
        // ε = 0.01 → ⌈e/0.01⌉ = 272; δ = 0.01 → ⌈ln 100⌉ = ⌈4.605⌉ = 5.
        assert_eq!(CountMin::dimensions(0.01, 0.01), (272, 5));
    }

    #[test]
    fn never_underestimates_and_stays_within_epsilon_of_the_total_on_a_hand_stream() {
        // A skewed hand stream: key k (1..=400) appears k mod 7 + 1 times with weight 1500 B and
        // keys 1000..1010 are elephants of 10^6 B each. ε = 0.05 → width 55, δ = e^-4 → depth 4.
        let (w, d) = CountMin::dimensions(0.05, (-4.0f64).exp());
        assert_eq!((w, d), (55, 4));
        let mut truth = std::collections::BTreeMap::<u64, u64>::new();
        let mut cm = CountMin::new(w, d, 7);
        for round in 0..7u64 {
            for k in 1..=400u64 {
                if k % 7 >= round {
                    cm.add(k, 1500);
                    *truth.entry(k).or_default() += 1500;
                }
            }
            for k in 1000..1010u64 {
                cm.add(k, 1_000_000 / 7 + (round < 1_000_000 % 7) as u64);
                *truth.entry(k).or_default() += 1_000_000 / 7 + (round < 1_000_000 % 7) as u64;
            }
        }
        let l1: u64 = truth.values().sum();
        assert_eq!(cm.total(), l1);
        assert_eq!(truth[&1000], 1_000_000);
        let bound = (0.05 * l1 as f64) as u64;
        let mut over = 0;
        for (&k, &a) in &truth {
            let e = cm.estimate(k);
            assert!(e >= a, "key {k}: estimate {e} < true {a}");
            over += (e > a + bound) as u32;
        }
        // The bound may fail for a key with probability ≤ δ = e^-4 ≈ 1.8 %; with this seed none does.
        assert_eq!(over, 0);
        // Elephants stand out: every elephant's estimate is above every mouse's.
        let min_elephant = (1000..1010).map(|k| cm.estimate(k)).min().unwrap();
        let max_mouse = (1..=400).map(|k| cm.estimate(k)).max().unwrap();
        assert!(min_elephant > max_mouse, "{min_elephant} vs {max_mouse}");
    }

    #[test]
    fn a_lone_key_is_exact_and_seeds_change_the_hashes() {
        let mut a = CountMin::new(64, 3, 1);
        assert_eq!(a.add(42, 10), 10);
        assert_eq!(a.add(42, 5), 15);
        assert_eq!(a.estimate(42), 15);
        assert!(a.estimate(43) <= 15);
        let b = CountMin::new(64, 3, 2);
        assert_ne!(a.hash, b.hash);
        let c = CountMin::new(64, 3, 1);
        assert_eq!(a.hash, c.hash);
    }
}
