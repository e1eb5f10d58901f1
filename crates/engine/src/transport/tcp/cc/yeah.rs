//! YeAH-TCP (Baiocchi, Castellani, Vacirca, PFLDnet 2007), modelled on Linux tcp_yeah.c: Scalable
//! growth ("fast mode", +1 per min(cwnd, 100) ACKed) while the Vegas-style backlog
//! Q = cwnd·(RTT − base)/RTT stays below α = 80 packets and the queuing delay below base/φ (φ = 8);
//! otherwise Reno ("slow mode"), draining Q (cwnd −= min(Q/γ, cwnd/2^ε)). On loss the cut is the
//! last backlog, clamped to [cwnd/2^δ, cwnd/2], unless slow mode has lasted ρ = 16 rounds (then half).

use super::{cong_avoid_ai, slow_start, CongestionOps, RoundRtt, Tcb};
use crate::time::Time;

pub const ALPHA: f64 = 80.0;
pub const GAMMA: f64 = 1.0;
pub const DELTA: u32 = 3;
pub const EPSILON: u32 = 1;
pub const PHY: u64 = 8;
pub const RHO: u32 = 16;
pub const ZETA: u32 = 50;
pub const SCALABLE_AI_CNT: u32 = 100;

#[derive(Clone, Debug)]
pub struct Yeah {
    p: YeahParams,
    rtt: RoundRtt,
    beg_snd_nxt: u64,
    doing_reno_now: u32,
    reno_count: u32,
    fast_count: u32,
    last_q: u32,
}

/// Scenario knobs (`cc_params`), Linux tcp_yeah module parameters.
pub const KNOBS: &[super::Knob] = &[
    super::Knob { name: "alpha", default: ALPHA, min: 0.0, max: 1e6, help: "backlog (packets) that ends fast mode" },
    super::Knob { name: "gamma", default: GAMMA, min: 0.01, max: 1e6, help: "fraction of the backlog drained (1/gamma)" },
    super::Knob { name: "delta", default: DELTA as f64, min: 0.0, max: 16.0, help: "loss cut at least cwnd >> delta" },
    super::Knob { name: "epsilon", default: EPSILON as f64, min: 0.0, max: 16.0, help: "drain at most cwnd >> epsilon" },
    super::Knob { name: "phy", default: PHY as f64, min: 1.0, max: 1e6, help: "slow mode when queuing delay > base RTT / phy" },
    super::Knob { name: "rho", default: RHO as f64, min: 0.0, max: 1e6, help: "rounds of Reno before the loss cut is Reno's" },
    super::Knob { name: "zeta", default: ZETA as f64, min: 0.0, max: 1e6, help: "fast rounds before the Reno count resets" },
];

/// YeAH's tunable constants (the knobs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct YeahParams {
    pub alpha: f64,
    pub gamma: f64,
    pub delta: u32,
    pub epsilon: u32,
    pub phy: u64,
    pub rho: u32,
    pub zeta: u32,
}

impl Yeah {
    pub fn with_knobs(k: &super::Knobs) -> Self {
        let p = YeahParams {
            alpha: k.get(KNOBS, 0),
            gamma: k.get(KNOBS, 1),
            delta: k.get(KNOBS, 2) as u32,
            epsilon: k.get(KNOBS, 3) as u32,
            phy: k.get(KNOBS, 4) as u64,
            rho: k.get(KNOBS, 5) as u32,
            zeta: k.get(KNOBS, 6) as u32,
        };
        Yeah { p, rtt: RoundRtt::default(), beg_snd_nxt: 0, doing_reno_now: 0, reno_count: 2, fast_count: 0, last_q: 0 }
    }
}

impl Default for Yeah {
    fn default() -> Self {
        Yeah::with_knobs(&super::Knobs::default())
    }
}

impl CongestionOps for Yeah {
    fn name(&self) -> &'static str {
        "yeah"
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.beg_snd_nxt = tcb.snd_nxt;
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        let cwnd = tcb.cwnd;
        let reduction = if self.doing_reno_now < self.p.rho {
            self.last_q.min((cwnd >> 1).max(2)).max(cwnd >> self.p.delta)
        } else {
            (cwnd >> 1).max(2)
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(2);
        cwnd.saturating_sub(reduction).max(2)
    }
    fn pkts_acked(&mut self, _tcb: &mut Tcb, _acked: u32, rtt: Option<Time>) {
        self.rtt.sample(rtt);
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        if !tcb.cwnd_limited {
            return;
        }
        if tcb.cwnd <= tcb.ssthresh {
            slow_start(tcb, acked);
        } else if self.doing_reno_now == 0 {
            let w = tcb.cwnd.min(SCALABLE_AI_CNT);
            cong_avoid_ai(tcb, w, acked);
        } else {
            let w = tcb.cwnd;
            cong_avoid_ai(tcb, w, acked);
        }
        if tcb.snd_una < self.beg_snd_nxt {
            return;
        }
        // Once per RTT.
        if let Some((base, rtt)) = self.rtt.enough() {
            let queue = (tcb.cwnd as u64 * (rtt - base).0 / rtt.0) as u32;
            if queue as f64 > self.p.alpha || (rtt - base).0 > base.0 / self.p.phy {
                if queue as f64 > self.p.alpha && tcb.cwnd > self.reno_count {
                    let reduction = ((queue as f64 / self.p.gamma) as u32).min(tcb.cwnd >> self.p.epsilon);
                    tcb.cwnd = (tcb.cwnd - reduction).max(self.reno_count);
                    tcb.ssthresh = tcb.cwnd;
                }
                self.reno_count = if self.reno_count <= 2 { (tcb.cwnd >> 1).max(2) } else { self.reno_count + 1 };
                self.doing_reno_now = (self.doing_reno_now + 1).min(0xff_ffff);
            } else {
                self.fast_count += 1;
                if self.fast_count > self.p.zeta {
                    self.reno_count = 2;
                    self.fast_count = 0;
                }
                self.doing_reno_now = 0;
            }
            self.last_q = queue;
        }
        self.beg_snd_nxt = tcb.snd_nxt;
        self.rtt.new_round();
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn loss_cut_is_the_backlog_clamped() {
        let mut y = Yeah::default();
        // Backlog 10 with cwnd 100: clamp to [100/8, 100/2] → 12.
        y.last_q = 10;
        assert_eq!(y.ssthresh(&tcb(100, 50)), 88);
        // Backlog 30: cut 30.
        y.last_q = 30;
        assert_eq!(y.ssthresh(&tcb(100, 50)), 70);
        // After ρ rounds of slow mode: Reno half.
        y.doing_reno_now = RHO;
        assert_eq!(y.ssthresh(&tcb(100, 50)), 50);
    }

    #[test]
    fn large_backlog_switches_to_slow_mode_and_drains() {
        let mut y = Yeah::default();
        let mut t = tcb(400, 100);
        for _ in 0..3 {
            y.pkts_acked(&mut t, 1, Some(Time::from_us(100) - Time::from_us(1)));
        }
        y.rtt.base = Some(Time::from_us(50));
        // RTT 100, base 50: Q = 400/2 = 200 > 80: cwnd −= min(200, 200) = 200.
        t.snd_una = 1;
        t.snd_nxt = 1000;
        y.cong_avoid(&mut t, 1);
        assert_eq!(y.doing_reno_now, 1);
        assert_eq!(t.cwnd, 200);
        assert_eq!(t.ssthresh, 200);
    }
}
