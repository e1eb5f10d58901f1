//! Empirical flow-size distributions and their sampling, exactly as crates/engine/workloads/README.md
//! defines them: points (s_i, p_i) with p_0 = 0 and p_n = 1; F is linear in x between points; a
//! repeated size is a point mass. Sampling draws u ~ U(0, 1], takes the first i with p_i ≥ u and
//! p_i > p_{i−1}, and returns s_{i−1} + (s_i − s_{i−1})(u − p_{i−1})/(p_i − p_{i−1}) ("linear", the
//! ns-2 EmpiricalRandomVariable / HPCC rule) or s_i ("step", the Homa simulator's rule).

/// How a CDF table is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    Linear,
    Step,
}

/// A flow-size distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    pub name: String,
    sizes: Vec<f64>,
    probs: Vec<f64>,
}

impl Cdf {
    /// Parse the `*.cdf` format; errors name the line.
    pub fn parse(name: &str, text: &str) -> Result<Cdf, String> {
        let (mut sizes, mut probs) = (Vec::new(), Vec::new());
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut it = line.split_whitespace();
            let (Some(a), Some(b), None) = (it.next(), it.next(), it.next()) else {
                return Err(format!("line {}: expected 'size_bytes cumulative_probability', got '{line}'", i + 1));
            };
            let s: f64 = a.parse().map_err(|_| format!("line {}: '{a}' is not a size in bytes", i + 1))?;
            let p: f64 = b.parse().map_err(|_| format!("line {}: '{b}' is not a probability", i + 1))?;
            if !s.is_finite() || s < 0.0 || !(0.0..=1.0).contains(&p) {
                return Err(format!("line {}: size must be ≥ 0 and probability in [0, 1]", i + 1));
            }
            if let (Some(&ls), Some(&lp)) = (sizes.last(), probs.last()) {
                if s < ls || p < lp {
                    return Err(format!("line {}: sizes and probabilities must not decrease", i + 1));
                }
            }
            sizes.push(s);
            probs.push(p);
        }
        if sizes.len() < 2 {
            return Err("needs at least two data lines".into());
        }
        if probs[0] != 0.0 || *probs.last().unwrap() != 1.0 {
            return Err("the first probability must be 0 and the last exactly 1".into());
        }
        Ok(Cdf { name: name.to_string(), sizes, probs })
    }

    /// Sample with u in (0, 1].
    pub fn sample(&self, u: f64, mode: Sampling) -> f64 {
        // First i with p_i ≥ u; p_0 = 0 < u, so i ≥ 1, and a point with p_i = p_{i−1} is skipped
        // because partition_point finds the first p_i ≥ u, which has p_{i−1} < u ≤ p_i.
        let i = self.probs.partition_point(|&p| p < u).clamp(1, self.probs.len() - 1);
        match mode {
            Sampling::Step => self.sizes[i],
            Sampling::Linear => {
                let (s0, s1, p0, p1) = (self.sizes[i - 1], self.sizes[i], self.probs[i - 1], self.probs[i]);
                s0 + (s1 - s0) * (u - p0) / (p1 - p0)
            }
        }
    }

    /// Sample a whole number of bytes (rounded up, at least 1) with u in (0, 1].
    pub fn sample_bytes(&self, u: f64, mode: Sampling) -> u64 {
        (self.sample(u, mode).ceil() as u64).max(1)
    }

    /// The mean under a reading (README: mean_bytes_linear / mean_bytes_step).
    pub fn mean(&self, mode: Sampling) -> f64 {
        (1..self.sizes.len())
            .map(|i| {
                let w = self.probs[i] - self.probs[i - 1];
                match mode {
                    Sampling::Linear => (self.sizes[i - 1] + self.sizes[i]) / 2.0 * w,
                    Sampling::Step => self.sizes[i] * w,
                }
            })
            .sum()
    }

    /// F(x) = P(size ≤ x) under the linear reading.
    pub fn cdf_linear(&self, x: f64) -> f64 {
        if x < self.sizes[0] {
            return 0.0;
        }
        // The last point with s_i ≤ x.
        let i = self.sizes.partition_point(|&s| s <= x);
        if i >= self.sizes.len() {
            return 1.0;
        }
        let (s0, s1, p0, p1) = (self.sizes[i - 1], self.sizes[i], self.probs[i - 1], self.probs[i]);
        if s1 == s0 {
            p0
        } else {
            p0 + (p1 - p0) * (x - s0) / (s1 - s0)
        }
    }

    /// F(x−) = P(size < x) under the linear reading (differs from F(x) at point masses).
    pub fn cdf_linear_below(&self, x: f64) -> f64 {
        let i = self.sizes.partition_point(|&s| s < x);
        if i == 0 {
            return 0.0;
        }
        if i >= self.sizes.len() {
            return 1.0;
        }
        if self.sizes[i] == x {
            return self.probs[i]; // the first point at x: mass at x not included
        }
        let (s0, s1, p0, p1) = (self.sizes[i - 1], self.sizes[i], self.probs[i - 1], self.probs[i]);
        p0 + (p1 - p0) * (x - s0) / (s1 - s0)
    }

    pub fn max(&self) -> f64 {
        *self.sizes.last().unwrap()
    }

    /// Every flow exactly `bytes` long (SAB's 2 KB queries).
    pub fn fixed(bytes: f64) -> Cdf {
        Cdf { name: format!("{bytes}B"), sizes: vec![bytes, bytes], probs: vec![0.0, 1.0] }
    }

    /// This distribution conditioned on lo ≤ size ≤ hi, under the linear reading (DCTCP's "short
    /// messages" are the 100 KB – 1 MB part of its background sizes). `None` if no mass lies there.
    pub fn truncated(&self, lo: f64, hi: f64) -> Option<Cdf> {
        let (flo, fhi) = (self.cdf_linear_below(lo), self.cdf_linear(hi));
        if fhi - flo <= 0.0 || hi < lo {
            return None;
        }
        let mut sizes = vec![lo];
        let mut probs = vec![0.0];
        for (&x, &p) in self.sizes.iter().zip(&self.probs) {
            if x > lo && x < hi {
                sizes.push(x);
                probs.push(((p - flo) / (fhi - flo)).clamp(0.0, 1.0));
            }
        }
        sizes.push(hi);
        probs.push(1.0);
        Some(Cdf { name: format!("{}[{lo}-{hi}]", self.name), sizes, probs })
    }
}

#[cfg(test)]
mod tests {
    use super::super::builtin;
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn a_truncated_distribution_is_the_conditional_one() {
        // websearch (linear): P(size ≤ x | 100 KB ≤ size ≤ 1 MB) = (F(x) − F(100 KB)) / (F(1 MB) − F(100 KB)).
        let c = Cdf::parse("websearch", builtin::text("websearch").unwrap()).unwrap();
        let t = c.truncated(100_000.0, 1_000_000.0).unwrap();
        let (a, b) = (c.cdf_linear(100_000.0), c.cdf_linear(1_000_000.0));
        for x in [150_000.0, 400_000.0, 900_000.0] {
            let want = (c.cdf_linear(x) - a) / (b - a);
            assert!((t.cdf_linear(x) - want).abs() < 1e-12, "{x}");
        }
        let mut r = Rng::new(3);
        assert!((0..10_000).all(|_| (100_000..=1_000_000).contains(&t.sample_bytes(1.0 - r.uniform(), Sampling::Linear))));
        assert_eq!(Cdf::fixed(2000.0).sample_bytes(0.3, Sampling::Linear), 2000);
        assert_eq!(Cdf::fixed(2000.0).mean(Sampling::Linear), 2000.0);
    }

    fn builtin_cdf(n: &str) -> Cdf {
        Cdf::parse(n, builtin::text(n).unwrap()).unwrap()
    }

    /// The mean quoted in each file's header (`# mean_bytes_linear: ...`).
    fn header_mean(n: &str, key: &str) -> f64 {
        let t = builtin::text(n).unwrap();
        let line = t.lines().find(|l| l.starts_with(&format!("# {key}:"))).unwrap();
        line.split(':').nth(1).unwrap().trim().split_whitespace().next().unwrap().replace(',', "").parse().unwrap()
    }

    #[test]
    fn every_builtin_parses_and_its_means_match_the_header() {
        for (n, _) in builtin::BUILTIN {
            let c = builtin_cdf(n);
            for (mode, key) in [(Sampling::Linear, "mean_bytes_linear"), (Sampling::Step, "mean_bytes_step")] {
                let want = header_mean(n, key);
                let got = c.mean(mode);
                assert!((got - want).abs() <= 1e-6 * want.max(1.0) + 0.5, "{n} {key}: {got} vs header {want}");
            }
        }
    }

    #[test]
    fn sampling_rule_on_a_small_table() {
        // 0 → 0, 100 → 0.5, 100 → 0.8 (point mass 0.3 at 100), 300 → 1.
        let c = Cdf::parse("t", "# x\n0 0\n100 0.5\n100 0.8\n300 1.0\n").unwrap();
        assert_eq!(c.sample(0.25, Sampling::Linear), 50.0);
        assert_eq!(c.sample(0.5, Sampling::Linear), 100.0);
        assert_eq!(c.sample(0.6, Sampling::Linear), 100.0, "inside the point mass");
        assert_eq!(c.sample(0.9, Sampling::Linear), 200.0);
        assert_eq!(c.sample(0.9, Sampling::Step), 300.0);
        assert_eq!(c.sample(0.25, Sampling::Step), 100.0);
        assert_eq!(c.sample(1.0, Sampling::Linear), 300.0);
        assert_eq!(c.cdf_linear(50.0), 0.25);
        assert_eq!(c.cdf_linear(100.0), 0.8);
        assert_eq!(c.cdf_linear_below(100.0), 0.5);
        assert_eq!(c.mean(Sampling::Linear), 25.0 + 30.0 + 40.0);
    }

    #[test]
    fn websearch_mean_within_one_percent_and_ks_over_a_million_draws() {
        let c = builtin_cdf("websearch");
        let mut r = Rng::new(5);
        let n = 1_000_000;
        let mut x: Vec<f64> = (0..n).map(|_| c.sample(1.0 - r.uniform(), Sampling::Linear)).collect();
        let mean = x.iter().sum::<f64>() / n as f64;
        let want = c.mean(Sampling::Linear);
        assert!((mean - want).abs() / want < 0.01, "mean {mean} vs {want}");
        // Kolmogorov–Smirnov: D = sup |F_n − F| must stay below 1.63/√n (1 % level).
        x.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let mut d: f64 = 0.0;
        let mut i = 0;
        while i < n {
            let v = x[i];
            let mut j = i;
            while j < n && x[j] == v {
                j += 1;
            }
            // Compare at v (after the jump) and just below v (before it).
            let (f, f_below) = (c.cdf_linear(v), c.cdf_linear_below(v));
            d = d.max((j as f64 / n as f64 - f).abs()).max((i as f64 / n as f64 - f_below).abs());
            i = j;
        }
        assert!(d < 1.63 / (n as f64).sqrt(), "KS D = {d}");
    }

    #[test]
    fn step_sampling_returns_table_sizes_with_their_weights() {
        let c = builtin_cdf("homa_w1");
        let mut r = Rng::new(9);
        let n = 1_000_000;
        let mean = (0..n).map(|_| c.sample(1.0 - r.uniform(), Sampling::Step)).sum::<f64>() / n as f64;
        let want = c.mean(Sampling::Step);
        assert!((mean - want).abs() / want < 0.01, "mean {mean} vs {want}");
    }

    #[test]
    fn malformed_tables_are_refused_with_the_line() {
        assert!(Cdf::parse("x", "0 0\n10 0.5\n").unwrap_err().contains("last exactly 1"));
        assert!(Cdf::parse("x", "0 0\n10 0.7\n5 1\n").unwrap_err().contains("line 3"));
        assert!(Cdf::parse("x", "0 0\nten 1\n").unwrap_err().contains("'ten'"));
    }
}
