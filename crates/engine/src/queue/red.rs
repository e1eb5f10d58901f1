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
//! With `count = "ns3"` RED keeps its count of arrivals as ns-3's `RedQueueDisc::DoEnqueue` does
//! (and ns-2's `REDQueue::enque` before it), three rules FJ93 and Linux do not have:
//! - the first arrival that finds avg ≥ min_th after a spell below it (ns-3's `m_old` = 0) is
//!   never marked and sets count ← 1, so the next arrival is judged with count 2 (FJ93: count 0,
//!   then 1) — the first mark after each crossing comes one arrival earlier under `wait`;
//! - nothing is marked while the queue holds at most one packet (`nQueued > 1`; in byte mode one
//!   byte), which also counts as a spell below min_th;
//! - a forced mark (avg past max_th, or 2·max_th when gentle) leaves count running (ns-3 resets
//!   it only on an early mark, `DropEarly`), where FJ93 resets it.
//! ns-3 draws its uniform number once per `DropEarly` call — on every arrival judged in the early
//! region, as here, not once per mark. Its byte mode (count in mean packets, p scaled by
//! size/`MeanPktSize`) is not modelled.
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

/// How RED keeps its count of arrivals since the last mark (`red.count`, module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedCount {
    /// Floyd & Jacobson's (and Linux's): count restarts below min_th and at every mark.
    Fj93,
    /// ns-3's `RedQueueDisc` (ns-2's RED): the `m_old` skip, no mark with one packet queued,
    /// count kept across forced marks.
    Ns3,
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
    /// FJ93's or ns-3's bookkeeping of the count (module doc).
    pub count: RedCount,
}

impl RedSpec {
    pub fn new(min_th: Amount, max_th: Amount) -> RedSpec {
        RedSpec { min_th, max_th, max_p: DEFAULT_MAX_P, weight: DEFAULT_WEIGHT, gentle: true, action: RedAction::Mark, hard_drop: false, mean_packet: DEFAULT_MEAN_PACKET, wait: false, count: RedCount::Fj93 }
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
    /// ns-3's `m_old`: the previous arrival found avg ≥ min_th (and more than one packet queued).
    old: bool,
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
        // ns-3 starts its count at 0 (`InitializeParams`); FJ93's −1 means "below min_th".
        let count = if spec.count == RedCount::Ns3 { 0 } else { -1 };
        Red { spec, avg: 0.0, count, old: false, idle_since: Some(Time::ZERO), packets_per_ps }
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
        if s.count == RedCount::Ns3 {
            return self.judge_ns3(q, rng);
        }
        if self.avg < value(s.min_th) {
            self.count = -1;
            return Verdict::Pass;
        }
        let Some(pb) = self.p_b() else {
            self.count = 0;
            return Verdict::Pick { forced: true };
        };
        self.count += 1;
        self.early(pb, rng)
    }

    /// ns-3's `RedQueueDisc::DoEnqueue` after the average is updated, for an arrival that finds
    /// `q` (packets or bytes) waiting: count every arrival; no mark at avg < min_th or with at most
    /// one packet queued; forced marks keep the count; the first arrival of a spell at or above
    /// min_th only restarts the count at 1 (`m_old`); the others go to `DropEarly`.
    fn judge_ns3(&mut self, q: f64, rng: &mut Rng) -> Verdict {
        self.count += 1;
        if self.avg < value(self.spec.min_th) || q <= 1.0 {
            self.old = false;
            return Verdict::Pass;
        }
        let Some(pb) = self.p_b() else { return Verdict::Pick { forced: true } };
        if !self.old {
            self.old = true;
            self.count = 1;
            return Verdict::Pass;
        }
        self.early(pb, rng)
    }

    /// The early (probabilistic) decision at p_b with the current count: one draw; a mark
    /// restarts the count (FJ93; ns-3's `DropEarly`).
    #[inline]
    fn early(&mut self, pb: f64, rng: &mut Rng) -> Verdict {
        if rng.uniform() < self.p_a(pb) {
            self.count = 0;
            Verdict::Pick { forced: false }
        } else {
            Verdict::Pass
        }
    }

    /// p_b at the current average (at or above min_th), or `None` past the forced threshold.
    #[inline]
    fn p_b(&self) -> Option<f64> {
        let s = &self.spec;
        let (min, max, avg) = (value(s.min_th), value(s.max_th), self.avg);
        let pb = if avg < max {
            if max > min { s.max_p * (avg - min) / (max - min) } else { 1.0 }
        } else if s.gentle && avg < 2.0 * max {
            s.max_p + (1.0 - s.max_p) * (avg - max) / max
        } else {
            return None;
        };
        (pb < 1.0).then_some(pb)
    }

    /// p_a from p_b and the count: FJ93's p_b/(1 − count·p_b) or, with `wait`, ns-2/ns-3's
    /// (`RedQueueDisc::ModifyP`).
    #[inline]
    fn p_a(&self, pb: f64) -> f64 {
        let cp = self.count as f64 * pb;
        if self.spec.wait {
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

    /// Each arrival's verdict for a sequence of queue lengths (w = 1: the average is the length).
    fn verdicts(spec: RedSpec, qs: &[u64]) -> Vec<Verdict> {
        let mut red = Red::new(RedSpec { weight: 1.0, ..spec }, Rate(10_000_000_000));
        let mut rng = Rng::new(5);
        qs.iter().enumerate().map(|(i, &q)| red.arrive(q, q * 1500, Time::from_ns(i as u64 + 1), &mut rng)).collect()
    }

    const P: Verdict = Verdict::Pass;
    const E: Verdict = Verdict::Pick { forced: false };
    const F: Verdict = Verdict::Pick { forced: true };

    /// B1's ns-3 RED (min_th = max_th = 65, gentle, max_p 0.02, wait). At 111 packets
    /// p_b = 0.02 + 0.98·46/65 = 0.7135: count 1 gives count·p_b = 0.71 < 1, p_a = 0; count 2 gives
    /// 1.43, p_a = 0.7135/0.573 = 1.25 ≥ 1; so every verdict below holds whatever the draws.
    fn b1(count: RedCount) -> RedSpec {
        RedSpec { gentle: true, wait: true, count, ..RedSpec::new(Amount::Packets(65), Amount::Packets(65)) }
    }

    #[test]
    fn ns3_count_skips_the_crossing_arrival_and_restarts_at_one() {
        let qs = [60, 111, 111, 111, 111, 111, 60, 111, 111, 111];
        // FJ93's count: −1 below, 0 on the crossing arrival, a mark at count 2.
        assert_eq!(verdicts(b1(RedCount::Fj93), &qs), [P, P, P, E, P, E, P, P, P, E]);
        // ns-3: the crossing arrival sets count = 1 (m_old), the next one is judged at count 2.
        assert_eq!(verdicts(b1(RedCount::Ns3), &qs), [P, P, E, P, E, P, P, P, E, P]);
    }

    #[test]
    fn ns3_count_survives_forced_marks() {
        // 140 ≥ 2·65: forced. ns-3 keeps count (1 after the arrival), so the next 111 is judged at
        // count 2 and marked; FJ93 restarts it at 0 and marks two arrivals later.
        let qs = [111, 111, 140, 111, 111];
        assert_eq!(verdicts(b1(RedCount::Ns3), &qs), [P, E, F, E, P]);
        assert_eq!(verdicts(b1(RedCount::Fj93), &qs), [P, P, F, P, E]);
    }

    #[test]
    fn ns3_count_never_marks_one_queued_packet() {
        // min_th = max_th = 1, not gentle: avg ≥ max_th is forced, but ns-3 acts only with more
        // than one packet queued (nQueued > 1).
        let spec = |count| RedSpec { gentle: false, count, ..RedSpec::new(Amount::Packets(1), Amount::Packets(1)) };
        let qs = [1, 2, 1, 2, 0, 3];
        assert_eq!(verdicts(spec(RedCount::Fj93), &qs), [F, F, F, F, P, F]);
        assert_eq!(verdicts(spec(RedCount::Ns3), &qs), [P, F, P, F, P, F]);
    }

    #[test]
    fn ns3_count_spaces_marks_as_wait_once_above_min_th() {
        // Held at p_b = 0.1 the gaps are wait's 10 … 19, mean 14.5 (the count restarts at 0 after
        // a mark under both rules).
        let spec = RedSpec { max_p: 0.2, gentle: false, wait: true, weight: 1.0, count: RedCount::Ns3, ..RedSpec::new(Amount::Packets(20), Amount::Packets(60)) };
        let marks: Vec<usize> = verdicts(spec, &[40; 300_000]).iter().enumerate().filter(|(_, v)| **v != P).map(|(i, _)| i).collect();
        let gaps: Vec<usize> = marks.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!((gaps.iter().min(), gaps.iter().max()), (Some(&10), Some(&19)));
        let mean = gaps.iter().sum::<usize>() as f64 / gaps.len() as f64;
        assert!((mean - 14.5).abs() < 0.05, "{mean}");
        // The first mark: arrival 0 is the skip (count 1), arrival k has count k + 1, so the first
        // mark falls on arrivals 9 (count 10, count·p_b = 1) to 18 (count 19, p_a = 1).
        assert!((9..=18).contains(&marks[0]), "{}", marks[0]);
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
