//! TCP Vegas (Brakmo & Peterson, JSAC 1995), modelled on Linux tcp_vegas.c: once per RTT, with
//! BaseRTT the smallest RTT seen and RTT the smallest of the last round (needs ≥ 3 samples, else
//! Reno), diff = cwnd·(RTT − BaseRTT)/BaseRTT packets (Linux divides by BaseRTT; the paper by RTT);
//! in congestion avoidance diff > β (4) → cwnd − 1, diff < α (2) → cwnd + 1, else hold; in slow start
//! diff > γ (1) → leave slow start with cwnd = min(cwnd, target + 1). Loss handling is Reno's; the
//! round state restarts after every reduction.

use super::{reno_cong_avoid, reno_ssthresh, slow_start, CaState, CongestionOps, RoundRtt, Tcb};
use crate::time::Time;

/// Vegas thresholds in packets (Linux and ns-3 defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasParams {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
}

impl Default for VegasParams {
    fn default() -> Self {
        VegasParams { alpha: 2.0, beta: 4.0, gamma: 1.0 }
    }
}

/// Scenario knobs (`cc_params`), Linux tcp_vegas module parameters.
pub const KNOBS: &[super::Knob] = &[
    super::Knob { name: "alpha", default: 2.0, min: 0.0, max: 1e6, help: "grow while fewer packets than this are queued" },
    super::Knob { name: "beta", default: 4.0, min: 0.0, max: 1e6, help: "shrink while more packets than this are queued" },
    super::Knob { name: "gamma", default: 1.0, min: 0.0, max: 1e6, help: "leave slow start above this backlog" },
];

impl VegasParams {
    /// These parameters with the knobs set in a scenario.
    pub fn with_knobs(mut self, k: &super::Knobs) -> Self {
        self.alpha = k.0[0].unwrap_or(self.alpha);
        self.beta = k.0[1].unwrap_or(self.beta);
        self.gamma = k.0[2].unwrap_or(self.gamma);
        self
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    p: VegasParams,
    rtt: RoundRtt,
    beg_snd_nxt: u64,
}

impl Vegas {
    pub fn new(p: VegasParams) -> Self {
        Vegas { p, rtt: RoundRtt::default(), beg_snd_nxt: 0 }
    }
}

impl CongestionOps for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.beg_snd_nxt = tcb.snd_nxt;
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        reno_ssthresh(tcb)
    }
    fn pkts_acked(&mut self, _tcb: &mut Tcb, _acked: u32, rtt: Option<Time>) {
        self.rtt.sample(rtt);
    }
    fn set_state(&mut self, tcb: &mut Tcb, _s: CaState) {
        self.beg_snd_nxt = tcb.snd_nxt;
        self.rtt.new_round();
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        if tcb.snd_una < self.beg_snd_nxt {
            if tcb.cwnd < tcb.ssthresh && tcb.cwnd_limited {
                slow_start(tcb, acked);
            }
            return;
        }
        // One round is over.
        self.beg_snd_nxt = tcb.snd_nxt;
        let Some((base, rtt)) = self.rtt.enough() else {
            self.rtt.new_round();
            return reno_cong_avoid(tcb, acked);
        };
        let (base, rtt) = (base.0 as f64, rtt.0 as f64);
        let cwnd = tcb.cwnd as f64;
        let target = cwnd * base / rtt;
        let diff = cwnd * (rtt - base) / base;
        let vegas_ssthresh = |t: &Tcb| t.ssthresh.min(t.cwnd.saturating_sub(1));
        if diff > self.p.gamma && tcb.cwnd < tcb.ssthresh {
            tcb.cwnd = tcb.cwnd.min(target as u32 + 1);
            tcb.ssthresh = vegas_ssthresh(tcb);
        } else if tcb.cwnd < tcb.ssthresh {
            if tcb.cwnd_limited {
                slow_start(tcb, acked);
            }
        } else if diff > self.p.beta {
            tcb.cwnd -= 1;
            tcb.ssthresh = vegas_ssthresh(tcb);
        } else if diff < self.p.alpha && tcb.cwnd_limited {
            tcb.cwnd += 1;
        }
        tcb.cwnd = tcb.cwnd.max(2);
        self.rtt.new_round();
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    fn round(v: &mut Vegas, t: &mut Tcb, base_us: u64, rtt_us: u64) {
        v.pkts_acked(t, 1, Some(Time::from_us(base_us) - Time::from_us(1)));
        v.rtt.new_round();
        for _ in 0..3 {
            v.pkts_acked(t, 1, Some(Time::from_us(rtt_us) - Time::from_us(1)));
        }
        t.snd_una = v.beg_snd_nxt; // the round's last ACK
        t.snd_nxt += 100;
        v.cong_avoid(t, 1);
    }

    #[test]
    fn alpha_beta_band() {
        // cwnd 100, BaseRTT 100 µs: RTT 105 → diff 5 > β → −1; 103 → diff 3 → hold; 101 → +1.
        let mut v = Vegas::new(VegasParams::default());
        let mut t = tcb(100, 50);
        round(&mut v, &mut t, 100, 105);
        assert_eq!(t.cwnd, 99);
        let mut t = tcb(100, 50);
        round(&mut v, &mut t, 100, 103);
        assert_eq!(t.cwnd, 100);
        let mut t = tcb(100, 50);
        round(&mut v, &mut t, 100, 101);
        assert_eq!(t.cwnd, 101);
    }

    #[test]
    fn leaves_slow_start_at_gamma() {
        let mut v = Vegas::new(VegasParams::default());
        let mut t = tcb(40, 1000);
        round(&mut v, &mut t, 100, 110); // diff = 40·0.1 = 4 > γ: cwnd = 40·100/110 + 1 = 37
        assert_eq!(t.cwnd, 37);
        assert_eq!(t.ssthresh, 36);
    }
}
