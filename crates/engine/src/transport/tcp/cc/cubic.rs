//! CUBIC (RFC 9438; Ha, Rhee, Xu 2008), modelled on Linux tcp_cubic.c: the window follows
//! W(t) = C·(t − K)³ + W_max with t measured from the start of the congestion-avoidance epoch plus
//! the minimum RTT, K = ∛((W_max − cwnd_epoch)/C); the Reno-friendly estimate grows by one segment
//! per cwnd·(1+β)/(3(1−β)) segments acked; fast convergence; ssthresh = β·cwnd; entering Loss
//! resets all state. HyStart (Ha & Rhee 2011, Linux `hystart_update`; on by default as in Linux)
//! ends slow start when a round's ACK train spans half the minimum RTT or its RTT rises by
//! clamp(min RTT / 8, 4 ms, 16 ms). Deviations: no per-jiffy caching of `cnt`, floating point
//! instead of Linux's fixed point, HyStart's delay_min is the connection's min RTT.

use super::{cong_avoid_ai, slow_start_first, CaState, CongestionOps, Tcb};
use crate::time::Time;

/// CUBIC constants (RFC 9438 §4; Linux `bic_scale` 41 → C ≈ 0.4, `beta` 717/1024 ≈ 0.7).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicParams {
    pub c: f64,
    pub beta: f64,
    pub fast_convergence: bool,
    pub reno_friendly: bool,
    /// HyStart slow-start exit (Linux default: on, both detectors).
    pub hystart: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams { c: 0.4, beta: 0.7, fast_convergence: true, reno_friendly: true, hystart: true }
    }
}

/// Scenario knobs (`cc_params`): C and β (RFC 9438 §4.1, §4.6).
pub const KNOBS: &[super::Knob] = &[
    super::Knob { name: "c", default: 0.4, min: 1e-6, max: 100.0, help: "cubic scaling constant C (segments/s^3)" },
    super::Knob { name: "beta", default: 0.7, min: 0.01, max: 0.99, help: "multiplicative decrease factor" },
    super::Knob { name: "hystart", default: 1.0, min: 0.0, max: 1.0, help: "HyStart slow-start exit: 1 on (Linux default), 0 off" },
];

impl CubicParams {
    /// These parameters with the knobs set in a scenario.
    pub fn with_knobs(mut self, k: &super::Knobs) -> Self {
        self.c = k.0[0].unwrap_or(self.c);
        self.beta = k.0[1].unwrap_or(self.beta);
        if let Some(h) = k.0[2] {
            self.hystart = h >= 0.5;
        }
        self
    }
}

/// HyStart constants (Linux tcp_cubic.c): detection only from 16 segments, the ACK-train spacing
/// limit, the delay-detector's sample count and its threshold bounds.
const HYSTART_LOW_WINDOW: u32 = 16;
const HYSTART_ACK_DELTA: Time = Time::from_ms(2);
const HYSTART_MIN_SAMPLES: u32 = 8;
const HYSTART_DELAY_MIN: Time = Time::from_ms(4);
const HYSTART_DELAY_MAX: Time = Time::from_ms(16);

/// Per-round HyStart state (Linux `bictcp` round_start, last_ack, end_seq, curr_rtt,
/// sample_cnt, found).
#[derive(Clone, Debug, Default)]
struct HyStart {
    round_start: Time,
    last_ack: Time,
    end_seq: u64,
    curr_rtt: Option<Time>,
    samples: u32,
    found: bool,
    started: bool,
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
    hs: HyStart,
    /// Slow start ended by HyStart (for observation).
    pub hystart_exits: u32,
}

impl Cubic {
    pub fn new(p: CubicParams) -> Self {
        Cubic { p, last_max_cwnd: 0.0, epoch_start: None, origin_point: 0.0, k: 0.0, tcp_cwnd: 0.0, ack_cnt: 0.0, cnt: 0, hs: HyStart::default(), hystart_exits: 0 }
    }

    /// Linux `bictcp_hystart_reset`: a new round starts with this ACK.
    fn hystart_reset(&mut self, tcb: &Tcb) {
        self.hs.round_start = tcb.now;
        self.hs.last_ack = tcb.now;
        self.hs.end_seq = tcb.snd_nxt;
        self.hs.curr_rtt = None;
        self.hs.samples = 0;
        self.hs.started = true;
    }

    /// Linux `hystart_update`: per ACK with an RTT sample, in slow start.
    fn hystart_update(&mut self, tcb: &mut Tcb, rtt: Time) {
        let Some(delay_min) = tcb.min_rtt else { return };
        if self.hs.found || !self.hs.started {
            return;
        }
        let now = tcb.now;
        // ACK train: ACKs arriving closely spaced for longer than half the minimum RTT.
        if now - self.hs.last_ack <= HYSTART_ACK_DELTA {
            self.hs.last_ack = now;
            if now - self.hs.round_start > Time(delay_min.0 / 2) {
                self.hs.found = true;
            }
        }
        // Delay increase: the round's first samples are all above the minimum plus a margin.
        if self.hs.samples < HYSTART_MIN_SAMPLES {
            self.hs.curr_rtt = Some(self.hs.curr_rtt.map_or(rtt, |c| c.min(rtt)));
            self.hs.samples += 1;
        } else if let Some(curr) = self.hs.curr_rtt {
            let margin = Time(delay_min.0 / 8).max(HYSTART_DELAY_MIN).min(HYSTART_DELAY_MAX);
            if curr > delay_min + margin {
                self.hs.found = true;
            }
        }
        if self.hs.found {
            tcb.ssthresh = tcb.cwnd;
            self.hystart_exits += 1;
        }
    }

    /// W_cubic at `t` seconds into the epoch.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.origin_point + self.p.c * (t - self.k).powi(3)
    }

    pub fn k_seconds(&self) -> f64 {
        self.k
    }

    /// W_max (Linux last_max_cwnd) and the start of the current epoch, for observation.
    pub fn epoch(&self) -> (f64, Option<Time>) {
        (self.last_max_cwnd, self.epoch_start)
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
        if self.p.hystart && tcb.cwnd_limited && tcb.cwnd < tcb.ssthresh && (!self.hs.started || tcb.snd_una > self.hs.end_seq) {
            self.hystart_reset(tcb);
        }
        let Some(acked) = slow_start_first(tcb, acked) else { return };
        self.update(tcb, acked);
        let cnt = self.cnt;
        cong_avoid_ai(tcb, cnt, acked);
    }
    fn pkts_acked(&mut self, tcb: &mut Tcb, _acked: u32, rtt: Option<Time>) {
        if let Some(r) = rtt {
            if self.p.hystart && tcb.cwnd < tcb.ssthresh && tcb.cwnd >= HYSTART_LOW_WINDOW {
                self.hystart_update(tcb, r);
            }
        }
    }
    fn set_state(&mut self, _tcb: &mut Tcb, s: CaState) {
        if s == CaState::Loss {
            let exits = self.hystart_exits;
            self.reset();
            self.hystart_exits = exits;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn cubic_curve_after_a_loss_at_100() {
        // RFC 9438 §4.2 (W(t) = C·(t − K)³ + W_max, K = ∛(W_max·(1 − β)/C)): W_max = 100, C = 0.4, β = 0.7: cwnd 70 after the loss,
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

    fn hystart_acks(spacing_ms: u64, rtt_ms: u64, n: u64) -> (u64, u32) {
        // Scripted slow start: min RTT 10 ms, cwnd 20, an ACK every `spacing_ms` with RTT
        // `rtt_ms`; returns the ACK number at which HyStart fires (0 = never) and ssthresh.
        let mut c = Cubic::new(CubicParams::default());
        let mut t = tcb(20, u32::MAX);
        t.min_rtt = Some(Time::from_ms(10));
        t.snd_nxt = 1_000_000;
        c.cong_avoid(&mut t, 0); // round starts at t = 0
        for i in 1..=n {
            t.now = Time::from_ms(i * spacing_ms);
            c.pkts_acked(&mut t, 1, Some(Time::from_ms(rtt_ms)));
            if c.hystart_exits > 0 {
                return (i, t.ssthresh);
            }
        }
        (0, t.ssthresh)
    }

    #[test]
    fn hystart_ack_train_fires_after_half_the_min_rtt() {
        // ACKs 1 ms apart (≤ 2 ms): the train passes 10/2 = 5 ms at the 6th ACK.
        assert_eq!(hystart_acks(1, 10, 20), (6, 20));
    }

    #[test]
    fn hystart_delay_fires_after_eight_samples_above_min_plus_4ms() {
        // ACKs 3 ms apart (no train). RTT 15 ms > 10 + clamp(10/8, 4, 16) = 14 ms: found at the
        // first ACK after the 8 samples. RTT 13 ms is within the margin: never.
        assert_eq!(hystart_acks(3, 15, 20), (9, 20));
        assert_eq!(hystart_acks(3, 13, 20), (0, u32::MAX));
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
