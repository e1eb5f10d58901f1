//! RED, Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM ToN 1993, Fig. 2), with the gentle extension (Floyd, "Recommendation on
//! using the gentle_ variant of RED", 2000) and ECN marking (RFC 3168 §7), as Linux `sch_red`
//! and ns-3's `RedQueueDisc` define it:
//!
//! - on every arrival the average is updated from the queue length the packet finds,
//!   avg ← (1 − w)·avg + w·q; after an idle period of length t the average first decays as if
//!   m = t / (mean packet transmission time) empty-queue arrivals had happened, avg ← (1 − w)^m·avg;
//! - avg < min_th: pass (count ← −1);
//! - min_th ≤ avg < max_th: count ← count + 1, p_b = max_p·(avg − min_th)/(max_th − min_th),
//!   p_a = p_b / (1 − count·p_b), and with probability p_a the packet is marked (count ← 0);
//! - gentle, max_th ≤ avg < 2·max_th: the same with p_b = max_p + (1 − max_p)(avg − max_th)/max_th;
//! - above that: every packet is marked (or dropped with `hard_drop`).
//!
//! With `wait` (ns-2's `wait_` and ns-3's `RedQueueDisc::Wait`, true by default in both; Linux has
//! no such mode) p_a is instead 0 while count·p_b < 1, p_b/(2 − count·p_b) while it is below 2,
//! and 1 beyond (ns-3 `RedQueueDisc::ModifyP`): the gap between marks is at least 1/p_b arrivals
//! and under 2/p_b, where FJ93's is uniform on 1 … 1/p_b — about three times fewer marks at the
//! same average.
//!
//! In mark mode an ECN-capable packet gets CE and others are dropped (RFC 3168 §7); in drop mode
//! the packet is dropped. With w = 1 and min_th = max_th = K, RED marks every packet that finds at
//! least K waiting (non-gentle): step marking.

use super::Amount;
use crate::rng::Rng;
use crate::time::{Rate, Time};

/// Linux's `tc red` default weight is 2^-9 (ewma log 9); ns-3's QW default is 0.002.
pub const DEFAULT_WEIGHT: f64 = 0.002;
/// ns-3 `RedQueueDisc::LInterm` = 50 → max_p = 1/50.
pub const DEFAULT_MAX_P: f64 = 0.02;
/// The mean packet size used for the idle-time correction (Linux `tc red avpkt` is commonly 1000 B).
pub const DEFAULT_MEAN_PACKET: u32 = 1000;

/// What RED does to a packet it picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedAction {
    /// CE on ECN-capable packets, drop for the others.
    Mark,
    Drop,
}

/// RED's parameters (`[queue.red]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedSpec {
    /// Thresholds in packets or bytes (both in the same unit).
    pub min_th: Amount,
    pub max_th: Amount,
    pub max_p: f64,
    /// EWMA weight w_q.
    pub weight: f64,
    pub gentle: bool,
    pub action: RedAction,
    /// In mark mode, drop instead of marking once avg is past the forced-marking threshold
    /// (ns-3 `UseHardDrop`); Linux marks there unless the `harddrop` flag is set.
    pub hard_drop: bool,
    /// Mean packet size for the idle-time correction.
    pub mean_packet: u32,
    /// ns-2/ns-3's "wait between drops" form of p_a (module doc); false: FJ93's.
    pub wait: bool,
}

impl RedSpec {
    pub fn new(min_th: Amount, max_th: Amount) -> RedSpec {
        RedSpec { min_th, max_th, max_p: DEFAULT_MAX_P, weight: DEFAULT_WEIGHT, gentle: true, action: RedAction::Mark, hard_drop: false, mean_packet: DEFAULT_MEAN_PACKET, wait: false }
    }
}

/// RED's decision for one arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// Early (probabilistic) or forced mark/drop; the caller applies `RedAction`.
    Pick { forced: bool },
}

/// RED's per-queue state.
#[derive(Clone, Debug)]
pub struct Red {
    pub spec: RedSpec,
    pub avg: f64,
    count: i64,
    /// Since when the queue has been empty (idle-time correction), if it is.
    idle_since: Option<Time>,
    /// Mean packet transmission times per picosecond at the port's rate.
    packets_per_ps: f64,
}

fn value(a: Amount) -> f64 {
    match a {
        Amount::Packets(n) | Amount::Bytes(n) => n as f64,
    }
}

impl Red {
    pub fn new(spec: RedSpec, rate: Rate) -> Red {
        let packets_per_ps = rate.bps() as f64 / (8.0 * spec.mean_packet as f64) / 1e12;
        Red { spec, avg: 0.0, count: -1, idle_since: Some(Time::ZERO), packets_per_ps }
    }

    /// The queue became empty at `now`.
    #[inline]
    pub fn idle(&mut self, now: Time) {
        self.idle_since = Some(now);
    }

    /// A packet arrives and finds (`pkts`, `bytes`) waiting.
    pub fn arrive(&mut self, pkts: u64, bytes: u64, now: Time, rng: &mut Rng) -> Verdict {
        let s = self.spec;
        let q = match s.min_th {
            Amount::Packets(_) => pkts as f64,
            Amount::Bytes(_) => bytes as f64,
        };
        match self.idle_since.take() {
            Some(t) if pkts == 0 => {
                let m = (now - t).0 as f64 * self.packets_per_ps;
                self.avg *= (1.0 - s.weight).powf(m);
                self.avg = (1.0 - s.weight) * self.avg + s.weight * q;
            }
            _ => self.avg = (1.0 - s.weight) * self.avg + s.weight * q,
        }
        let (min, max) = (value(s.min_th), value(s.max_th));
        let avg = self.avg;
        if avg < min {
            self.count = -1;
            return Verdict::Pass;
        }
        let pb = if avg < max {
            if max > min { s.max_p * (avg - min) / (max - min) } else { 1.0 }
        } else if s.gentle && avg < 2.0 * max {
            s.max_p + (1.0 - s.max_p) * (avg - max) / max
        } else {
            self.count = 0;
            return Verdict::Pick { forced: true };
        };
        if pb >= 1.0 {
            self.count = 0;
            return Verdict::Pick { forced: true };
        }
        self.count += 1;
        let cp = self.count as f64 * pb;
        let pa = if s.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                pb / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp >= 1.0 {
            1.0
        } else {
            pb / (1.0 - cp)
        };
        if rng.uniform() < pa {
            self.count = 0;
            Verdict::Pick { forced: false }
        } else {
            Verdict::Pass
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(avg_q: u64, spec: RedSpec, n: usize) -> f64 {
        // w = 1: the average is the length each arrival finds, held constant here.
        let mut red = Red::new(RedSpec { weight: 1.0, ..spec }, Rate(10_000_000_000));
        let mut rng = Rng::new(7);
        let marked = (0..n).filter(|i| red.arrive(avg_q, avg_q * 1500, Time::from_ns(*i as u64 + 1), &mut rng) != Verdict::Pass).count();
        marked as f64 / n as f64
    }

    #[test]
    fn marking_fraction_follows_the_linear_profile() {
        // FJ93 with count: between marks the gap is uniform on {1, ..., 1/p_b − 1} when 1/p_b is
        // an integer, so the long-run marked fraction is 2·p_b (p_b ≤ 1/2).
        // min 20, max 60, max_p 0.2: p_b = 0.2·(avg − 20)/40.
        let spec = RedSpec { max_p: 0.2, gentle: false, ..RedSpec::new(Amount::Packets(20), Amount::Packets(60)) };
        assert_eq!(held(10, spec, 10_000), 0.0);
        for (avg, pb) in [(30, 0.05), (40, 0.1), (50, 0.15)] {
            let f = held(avg, spec, 400_000);
            let expect = 2.0 * pb;
            assert!((f - expect).abs() < 0.01 * expect + 0.002, "avg {avg}: fraction {f}, expected {expect}");
        }
        // Non-gentle: at or above max_th every packet.
        assert_eq!(held(60, spec, 1000), 1.0);
    }

    #[test]
    fn wait_spaces_marks_between_one_and_two_over_p_b() {
        // ns-2/ns-3 "wait": p_a = 0 below count·p_b = 1, then p_b/(2 − count·p_b), the hazard of a
        // gap uniform on {1/p_b, …, 2/p_b − 1}. p_b = 0.1: gaps 10 … 19, mean 14.5, so a marked
        // fraction of 1/14.5 (FJ93: 2·p_b = 0.2).
        let spec = RedSpec { max_p: 0.2, gentle: false, wait: true, weight: 1.0, ..RedSpec::new(Amount::Packets(20), Amount::Packets(60)) };
        let mut red = Red::new(spec, Rate(10_000_000_000));
        let mut rng = Rng::new(11);
        let marks: Vec<usize> = (0..300_000).filter(|i| red.arrive(40, 0, Time::from_ns(*i as u64 + 1), &mut rng) != Verdict::Pass).collect();
        let gaps: Vec<usize> = marks.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!((gaps.iter().min(), gaps.iter().max()), (Some(&10), Some(&19)));
        let mean = gaps.iter().sum::<usize>() as f64 / gaps.len() as f64;
        assert!((mean - 14.5).abs() < 0.05, "{mean}");
        // Off, the same queue marks FJ93's fraction (bit-identical to before the option).
        assert!((held(40, RedSpec { wait: false, ..spec }, 200_000) - 0.2).abs() < 0.003);
    }

    #[test]
    fn gentle_region_ramps_from_max_p_to_one() {
        // max 80, avg 85: p_b = 0.2 + 0.8·5/80 = 0.25, fraction 2·0.25 = 0.5; at 2·max: all.
        let spec = RedSpec { max_p: 0.2, gentle: true, ..RedSpec::new(Amount::Packets(20), Amount::Packets(80)) };
        let f = held(85, spec, 200_000);
        assert!((f - 0.5).abs() < 0.005, "{f}");
        assert_eq!(held(160, spec, 1000), 1.0);
    }

    #[test]
    fn ewma_and_idle_decay() {
        let spec = RedSpec { weight: 0.5, ..RedSpec::new(Amount::Packets(100), Amount::Packets(200)) };
        let mut red = Red::new(spec, Rate(8_000_000_000)); // 1000 B in 1 µs
        let mut rng = Rng::new(1);
        red.idle_since = None;
        red.arrive(10, 0, Time::ZERO, &mut rng);
        assert_eq!(red.avg, 5.0);
        red.arrive(10, 0, Time::ZERO, &mut rng);
        assert_eq!(red.avg, 7.5);
        // Empty for 2 µs = 2 mean packet times: avg·(1/2)² then the arrival's own update.
        red.idle(Time::from_us(1));
        red.arrive(0, 0, Time::from_us(3), &mut rng);
        assert!((red.avg - 7.5 * 0.25 * 0.5).abs() < 1e-12, "{}", red.avg);
    }

    #[test]
    fn equal_thresholds_with_unit_weight_are_step_marking() {
        let spec = RedSpec { weight: 1.0, gentle: false, ..RedSpec::new(Amount::Packets(8), Amount::Packets(8)) };
        let mut red = Red::new(spec, Rate(10_000_000_000));
        let mut rng = Rng::new(3);
        let picks: Vec<bool> = (0..12).map(|q| red.arrive(q, 0, Time::from_ns(q + 1), &mut rng) != Verdict::Pass).collect();
        assert_eq!(picks, (0..12).map(|q| q >= 8).collect::<Vec<_>>());
    }
}
