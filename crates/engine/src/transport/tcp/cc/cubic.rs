//! CUBIC (RFC 9438; Ha, Rhee, Xu 2008), modelled on Linux tcp_cubic.c: the window follows
//! W(t) = C·(t − K)³ + W_max with t measured from the start of the congestion-avoidance epoch plus
//! the minimum RTT, K = ∛((W_max − cwnd_epoch)/C); the Reno-friendly estimate grows by one segment
//! per cwnd·(1+β)/(3(1−β)) segments acked; fast convergence; ssthresh = β·cwnd; entering Loss
//! resets all state. Deviations: no HyStart (Linux enables it by default), no per-jiffy caching of
//! `cnt`, floating point instead of Linux's fixed point.

use super::{cong_avoid_ai, slow_start_first, CaState, CongestionOps, Tcb};
use crate::time::Time;

/// CUBIC constants (RFC 9438 §4; Linux `bic_scale` 41 → C ≈ 0.4, `beta` 717/1024 ≈ 0.7).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicParams {
    pub c: f64,
    pub beta: f64,
    pub fast_convergence: bool,
    pub reno_friendly: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams { c: 0.4, beta: 0.7, fast_convergence: true, reno_friendly: true }
    }
}

#[derive(Clone, Debug)]
pub struct Cubic {
    p: CubicParams,
    last_max_cwnd: f64,
    epoch_start: Option<Time>,
    origin_point: f64,
    /// K in seconds.
    k: f64,
    /// Reno-friendly window estimate and the ACKs counted towards it.
    tcp_cwnd: f64,
    ack_cnt: f64,
    cnt: u32,
}

impl Cubic {
    pub fn new(p: CubicParams) -> Self {
        Cubic { p, last_max_cwnd: 0.0, epoch_start: None, origin_point: 0.0, k: 0.0, tcp_cwnd: 0.0, ack_cnt: 0.0, cnt: 0 }
    }

    /// W_cubic at `t` seconds into the epoch.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.origin_point + self.p.c * (t - self.k).powi(3)
    }

    pub fn k_seconds(&self) -> f64 {
        self.k
    }

    fn reset(&mut self) {
        *self = Cubic::new(self.p);
    }

    /// Linux `bictcp_update`: how many ACKed segments per +1 segment (`cnt`).
    fn update(&mut self, tcb: &Tcb, acked: u32) {
        let cwnd = tcb.cwnd as f64;
        self.ack_cnt += acked as f64;
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                self.epoch_start = Some(tcb.now);
                self.ack_cnt = acked as f64;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.k = 0.0;
                    self.origin_point = cwnd;
                } else {
                    self.k = ((self.last_max_cwnd - cwnd) / self.p.c).cbrt();
                    self.origin_point = self.last_max_cwnd;
                }
                tcb.now
            }
        };
        let delay_min = tcb.min_rtt.unwrap_or(Time::ZERO);
        let t = (tcb.now - epoch + delay_min).secs_f64();
        let target = self.w_cubic(t);
        let mut cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100.0 * cwnd };
        if self.last_max_cwnd == 0.0 && cnt > 20.0 {
            cnt = 20.0; // no loss yet: grow at least 5 % per RTT
        }
        if self.p.reno_friendly {
            let beta = self.p.beta;
            let delta = cwnd * (1.0 + beta) / (3.0 * (1.0 - beta));
            while self.ack_cnt > delta {
                self.ack_cnt -= delta;
                self.tcp_cwnd += 1.0;
            }
            if self.tcp_cwnd > cwnd {
                cnt = cnt.min(cwnd / (self.tcp_cwnd - cwnd));
            }
        }
        self.cnt = (cnt.floor() as u32).max(2);
    }
}

impl CongestionOps for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        let cwnd = tcb.cwnd as f64;
        self.epoch_start = None;
        self.last_max_cwnd =
            if cwnd < self.last_max_cwnd && self.p.fast_convergence { cwnd * (1.0 + self.p.beta) / 2.0 } else { cwnd };
        ((cwnd * self.p.beta) as u32).max(2)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        let Some(acked) = slow_start_first(tcb, acked) else { return };
        self.update(tcb, acked);
        let cnt = self.cnt;
        cong_avoid_ai(tcb, cnt, acked);
    }
    fn set_state(&mut self, _tcb: &mut Tcb, s: CaState) {
        if s == CaState::Loss {
            self.reset();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn cubic_curve_after_a_loss_at_100() {
        // tcp-family.md §8.4: W_max = 100, C = 0.4, β = 0.7: cwnd 70 after the loss,
        // K = ∛75 ≈ 4.217 s, W(K) = 100, W(2K) ≈ 130.
        let mut c = Cubic::new(CubicParams::default());
        let mut t = tcb(100, 50);
        t.ssthresh = c.ssthresh(&t);
        assert_eq!(t.ssthresh, 70);
        t.cwnd = 70;
        c.update(&t, 1);
        assert!((c.k_seconds() - 75f64.cbrt()).abs() < 1e-9);
        assert!((c.w_cubic(c.k_seconds()) - 100.0).abs() < 1e-9);
        assert!((c.w_cubic(2.0 * c.k_seconds()) - 130.0).abs() < 1e-6);
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_below_it() {
        let mut c = Cubic::new(CubicParams::default());
        let mut t = tcb(100, 50);
        c.ssthresh(&t);
        t.cwnd = 80;
        c.ssthresh(&t);
        assert!((c.last_max_cwnd - 80.0 * 1.7 / 2.0).abs() < 1e-9);
    }

    #[test]
    fn growth_rate_follows_the_curve() {
        // After a loss at W_max = 100 (cwnd 70, K = ∛75 s), with min RTT 1 ms: `cnt` = ACKs per +1
        // segment = cwnd / (W(t + RTT) − cwnd).
        let mut c = Cubic::new(CubicParams { reno_friendly: false, ..Default::default() });
        let mut t = tcb(100, 50);
        t.min_rtt = Some(Time::from_ms(1));
        c.ssthresh(&t);
        t.cwnd = 70;
        c.update(&t, 1); // the epoch starts at t = 0
        let k = c.k_seconds();
        // Independent of the state: W(x) = 100 + 0.4·(x − K)³.
        let w = |x: f64| 100.0 + 0.4 * (x - k).powi(3);
        let expect = |cwnd: f64, at: f64| (cwnd / (w(at + 0.001) - cwnd)).floor() as u32;
        // 0.1 s in: W ≈ 72.1 → cnt = 70/2.1 = 33 (fast, concave start).
        t.now = Time::from_ms(100);
        c.update(&t, 1);
        assert_eq!(c.cnt, expect(70.0, 0.1));
        assert!((30..=36).contains(&c.cnt), "{}", c.cnt);
        // At K with cwnd 99, W ≈ 100: the plateau, one segment per ~99 ACKs... × (1/(W−99)).
        t.cwnd = 99;
        t.now = Time((k * 1e12) as u64);
        c.update(&t, 1);
        assert!(c.cnt > 90, "plateau cnt {}", c.cnt);
        // At 2K with cwnd 120, W ≈ 130: convex, cnt = 120/10 = 12.
        t.cwnd = 120;
        t.now = Time((2.0 * k * 1e12) as u64);
        c.update(&t, 1);
        assert_eq!(c.cnt, expect(120.0, 2.0 * k));
        assert!((11..=12).contains(&c.cnt), "{}", c.cnt);
    }

    #[test]
    fn reno_friendly_region_dominates_at_small_rtt() {
        // RFC 9438 §4.3: when W_cubic(t) lags the Reno estimate, follow the estimate, which
        // gains 3(1−β)/(1+β) ≈ 0.53 segment per RTT (one per 1.89·cwnd ACKs).
        let mut c = Cubic::new(CubicParams::default());
        let mut t = tcb(100, 50);
        t.min_rtt = Some(Time::from_us(100));
        c.ssthresh(&t);
        t.cwnd = 70;
        c.update(&t, 1);
        for _ in 0..3000 {
            c.update(&t, 1);
        }
        // tcp_cwnd ≈ 70 + 3000/(70·1.889) ≈ 92.7 > cwnd → cnt = 70/(92.7 − 70) ≈ 3.
        assert!((2..=4).contains(&c.cnt), "{}", c.cnt);
    }

    #[test]
    fn loss_state_resets_everything() {
        let mut c = Cubic::new(CubicParams::default());
        let mut t = tcb(100, 50);
        c.ssthresh(&t);
        c.set_state(&mut t, CaState::Loss);
        assert_eq!(c.last_max_cwnd, 0.0);
    }
}
