//! TCP-Illinois (Liu, Başar, Srikant, Perf. Eval. 2008), modelled on Linux tcp_illinois.c: loss
//! decides the direction, queuing delay the size. Per round, with da = mean RTT − base RTT and
//! dm = max RTT − base RTT: α = α_max when da ≤ d1 = dm/100 (after θ = 5 low-delay rounds once
//! delay has been high), else α = dm'·α_max/(dm' + da'·(α_max − α_min)/α_min) (d1-shifted);
//! β = β_min (1/8) for da ≤ dm/10, β_max (1/2) for da ≥ 0.8·dm, linear between. Below
//! win_thresh = 15 segments α = 1, β = 1/2. Per ACK cwnd += α/cwnd; loss: ssthresh = (1 − β)·cwnd.

use super::{cong_avoid_alpha, slow_start, CaState, CongestionOps, Tcb};
use crate::time::Time;

pub const ALPHA_MIN: f64 = 0.3;
pub const ALPHA_MAX: f64 = 10.0;
pub const BETA_MIN: f64 = 0.125;
pub const BETA_MAX: f64 = 0.5;
pub const WIN_THRESH: u32 = 15;
pub const THETA: u32 = 5;

#[derive(Clone, Debug)]
pub struct Illinois {
    p: IllinoisParams,
    base_rtt: Option<Time>,
    max_rtt: Time,
    sum_rtt: f64,
    cnt_rtt: u32,
    end_seq: u64,
    alpha: f64,
    beta: f64,
    rtt_above: bool,
    rtt_low: u32,
    acc: f64,
}

/// Scenario knobs (`cc_params`), Linux tcp_illinois's constants.
pub const KNOBS: &[super::Knob] = &[
    super::Knob { name: "alpha_min", default: ALPHA_MIN, min: 0.0, max: 1e3, help: "additive increase at large queuing delay" },
    super::Knob { name: "alpha_max", default: ALPHA_MAX, min: 0.0, max: 1e3, help: "additive increase at no queuing delay" },
    super::Knob { name: "beta_min", default: BETA_MIN, min: 0.0, max: 1.0, help: "decrease factor at small delay" },
    super::Knob { name: "beta_max", default: BETA_MAX, min: 0.0, max: 1.0, help: "decrease factor at large delay" },
    super::Knob { name: "win_thresh", default: WIN_THRESH as f64, min: 0.0, max: 1e6, help: "Reno below this window" },
    super::Knob { name: "theta", default: THETA as f64, min: 0.0, max: 1e6, help: "rounds of low delay before α = α_max" },
];

/// Illinois's constants (the knobs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IllinoisParams {
    pub alpha_min: f64,
    pub alpha_max: f64,
    pub beta_min: f64,
    pub beta_max: f64,
    pub win_thresh: u32,
    pub theta: u32,
}

impl IllinoisParams {
    pub fn from_knobs(k: &super::Knobs) -> Self {
        IllinoisParams {
            alpha_min: k.get(KNOBS, 0),
            alpha_max: k.get(KNOBS, 1),
            beta_min: k.get(KNOBS, 2),
            beta_max: k.get(KNOBS, 3),
            win_thresh: k.get(KNOBS, 4) as u32,
            theta: k.get(KNOBS, 5) as u32,
        }
    }
}

impl Default for Illinois {
    fn default() -> Self {
        Illinois::with_knobs(&super::Knobs::default())
    }
}

impl Illinois {
    pub fn with_knobs(k: &super::Knobs) -> Self {
        Illinois {
            p: IllinoisParams::from_knobs(k),
            base_rtt: None,
            max_rtt: Time::ZERO,
            sum_rtt: 0.0,
            cnt_rtt: 0,
            end_seq: 0,
            alpha: 1.0,
            beta: 0.5,
            rtt_above: false,
            rtt_low: 0,
            acc: 0.0,
        }
    }
}

/// β for average queuing delay `da` and maximum `dm` (Linux `beta`).
pub fn beta(p: &IllinoisParams, da: f64, dm: f64) -> f64 {
    let (d2, d3) = (dm / 10.0, 8.0 * dm / 10.0);
    if da <= d2 {
        p.beta_min
    } else if da >= d3 || d3 <= d2 {
        p.beta_max
    } else {
        (p.beta_min * d3 - p.beta_max * d2 + (p.beta_max - p.beta_min) * da) / (d3 - d2)
    }
}

impl Illinois {
    pub fn alpha_beta(&self) -> (f64, f64) {
        (self.alpha, self.beta)
    }

    /// Linux `alpha`: the additive increase for delays da, dm (seconds or any one unit).
    fn alpha_for(&mut self, da: f64, dm: f64) -> f64 {
        let d1 = dm / 100.0;
        if da <= d1 {
            if !self.rtt_above {
                return self.p.alpha_max;
            }
            self.rtt_low += 1;
            if self.rtt_low < self.p.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return self.p.alpha_max;
        }
        self.rtt_above = true;
        let (dm, da) = (dm - d1, da - d1);
        let (amin, amax) = (self.p.alpha_min, self.p.alpha_max);
        (dm * amax) / (dm + (da * (amax - amin)) / amin)
    }

    fn update_params(&mut self, cwnd: u32) {
        if cwnd < self.p.win_thresh {
            self.alpha = 1.0;
            self.beta = 0.5;
        } else if self.cnt_rtt > 0 {
            let base = self.base_rtt.unwrap_or(Time::ZERO).0 as f64;
            let dm = self.max_rtt.0 as f64 - base;
            let da = self.sum_rtt / self.cnt_rtt as f64 - base;
            self.alpha = self.alpha_for(da, dm);
            self.beta = beta(&self.p, da, dm);
        }
        self.sum_rtt = 0.0;
        self.cnt_rtt = 0;
    }
}

impl CongestionOps for Illinois {
    fn name(&self) -> &'static str {
        "illinois"
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.end_seq = tcb.snd_nxt;
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        // Linux rounds the decrease down: cwnd − ⌊β·cwnd⌋.
        let w = tcb.cwnd;
        (w - (w as f64 * self.beta) as u32).max(2)
    }
    fn pkts_acked(&mut self, _tcb: &mut Tcb, _acked: u32, rtt: Option<Time>) {
        if let Some(r) = rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.max_rtt = self.max_rtt.max(r);
            self.sum_rtt += r.0 as f64;
            self.cnt_rtt += 1;
        }
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        if tcb.snd_una >= self.end_seq {
            self.update_params(tcb.cwnd);
            self.end_seq = tcb.snd_nxt;
        }
        if !tcb.cwnd_limited {
            return;
        }
        if tcb.cwnd < tcb.ssthresh {
            slow_start(tcb, acked);
            return;
        }
        let alpha = self.alpha;
        cong_avoid_alpha(tcb, &mut self.acc, alpha, acked);
    }
    fn set_state(&mut self, _tcb: &mut Tcb, s: CaState) {
        if s == CaState::Loss {
            self.alpha = 1.0;
            self.beta = 0.5;
            self.rtt_low = 0;
            self.rtt_above = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn alpha_spans_min_to_max_with_delay() {
        let mut i = Illinois::default();
        assert_eq!(i.alpha_for(0.0, 100.0), ALPHA_MAX, "no queuing delay yet");
        // At the maximum delay α falls to α_min.
        assert!((i.alpha_for(100.0, 100.0) - ALPHA_MIN).abs() < 1e-9);
        // After delay was high, θ = 5 low-delay rounds are needed before α_max again.
        let mid = i.alpha;
        for _ in 0..4 {
            assert_eq!(i.alpha_for(0.0, 100.0), mid);
        }
        assert_eq!(i.alpha_for(0.0, 100.0), ALPHA_MAX);
    }

    #[test]
    fn beta_piecewise_linear() {
        let p = IllinoisParams::from_knobs(&super::super::Knobs::default());
        assert_eq!(beta(&p, 5.0, 100.0), BETA_MIN);
        assert_eq!(beta(&p, 90.0, 100.0), BETA_MAX);
        // Half way between d2 = 10 and d3 = 80: (1/8 + 1/2)/2.
        assert!((beta(&p, 45.0, 100.0) - 0.3125).abs() < 1e-12);
        let mut i = Illinois::default();
        let t = tcb(100, 50);
        i.beta = beta(&i.p, 90.0, 100.0);
        assert_eq!(i.ssthresh(&t), 50);
        i.beta = BETA_MIN;
        assert_eq!(i.ssthresh(&t), 88); // 100 − ⌊12.5⌋
        i.update_params(10); // a 10-segment window
        assert_eq!(i.alpha_beta(), (1.0, 0.5), "small windows behave as Reno");
    }
}
