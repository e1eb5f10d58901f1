//! BIC-TCP (Xu, Harfoush, Rhee, INFOCOM 2004), modelled on Linux tcp_bic.c: binary search towards
//! the last maximum (B = 4), at most `max_increment` = 16 segments per RTT, slow probing past it,
//! Reno below `low_window` = 14, β = 819/1024, fast convergence, and the ACK-ratio correction for
//! delayed ACKs. Deviation: `cnt` is recomputed on every ACK (Linux caches it for HZ/32).

use super::{cong_avoid_ai, slow_start_first, CaState, CongestionOps, Tcb};

/// BIC constants (Linux defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BicParams {
    pub b: u32,
    pub max_increment: u32,
    pub low_window: u32,
    pub smooth_part: u32,
    /// β in 1/1024.
    pub beta: u32,
    pub fast_convergence: bool,
}

impl Default for BicParams {
    fn default() -> Self {
        BicParams { b: 4, max_increment: 16, low_window: 14, smooth_part: 20, beta: 819, fast_convergence: true }
    }
}

/// Scenario knobs (`cc_params`), Linux tcp_bic module parameters.
pub const KNOBS: &[super::Knob] = &[
    super::Knob { name: "beta", default: 819.0 / 1024.0, min: 0.01, max: 0.99, help: "multiplicative decrease factor" },
    super::Knob { name: "max_increment", default: 16.0, min: 1.0, max: 1e6, help: "largest increase per RTT, segments" },
    super::Knob { name: "low_window", default: 14.0, min: 1.0, max: 1e6, help: "Reno below this window, segments" },
    super::Knob { name: "smooth_part", default: 20.0, min: 1.0, max: 1e6, help: "RTTs to approach W_max smoothly" },
];

impl BicParams {
    /// These parameters with the knobs set in a scenario.
    pub fn with_knobs(mut self, k: &super::Knobs) -> Self {
        if let Some(b) = k.0[0] {
            self.beta = (b * 1024.0).round() as u32;
        }
        self.max_increment = k.0[1].map_or(self.max_increment, |v| v as u32);
        self.low_window = k.0[2].map_or(self.low_window, |v| v as u32);
        self.smooth_part = k.0[3].map_or(self.smooth_part, |v| v as u32);
        self
    }
}

#[derive(Clone, Debug)]
pub struct Bic {
    p: BicParams,
    last_max_cwnd: u32,
    loss_cwnd: u32,
    cnt: u32,
    /// Packets per ACK × 16 (Linux ACK_RATIO_SHIFT 4), initially 2.
    delayed_ack: u32,
}

impl Bic {
    pub fn new(p: BicParams) -> Self {
        Bic { p, last_max_cwnd: 0, loss_cwnd: 0, cnt: 0, delayed_ack: 2 << 4 }
    }

    /// Linux `bictcp_update`: ACKs per +1 segment for this window.
    fn update(&mut self, cwnd: u32) -> u32 {
        let p = self.p;
        if cwnd <= p.low_window {
            return cwnd;
        }
        let mut cnt = if cwnd < self.last_max_cwnd {
            let dist = (self.last_max_cwnd - cwnd) / p.b;
            if dist > p.max_increment {
                cwnd / p.max_increment
            } else if dist <= 1 {
                cwnd * p.smooth_part / p.b
            } else {
                cwnd / dist
            }
        } else if cwnd < self.last_max_cwnd + p.b {
            cwnd * p.smooth_part / p.b
        } else if cwnd < self.last_max_cwnd + p.max_increment * (p.b - 1) {
            cwnd * (p.b - 1) / (cwnd - self.last_max_cwnd)
        } else {
            cwnd / p.max_increment
        };
        if self.loss_cwnd == 0 && cnt > 20 {
            cnt = 20;
        }
        ((cnt << 4) / self.delayed_ack).max(1)
    }
}

impl CongestionOps for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        let cwnd = tcb.cwnd;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.p.fast_convergence {
            ((cwnd as u64 * (1024 + self.p.beta as u64)) / 2048) as u32
        } else {
            cwnd
        };
        self.loss_cwnd = cwnd;
        if cwnd <= self.p.low_window {
            (cwnd >> 1).max(2)
        } else {
            (((cwnd as u64 * self.p.beta as u64) >> 10) as u32).max(2)
        }
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        // Linux bictcp_cong_avoid: ACKs left over from slow start feed congestion avoidance.
        let Some(acked) = slow_start_first(tcb, acked) else { return };
        self.cnt = self.update(tcb.cwnd);
        let cnt = self.cnt;
        cong_avoid_ai(tcb, cnt, acked);
    }
    fn pkts_acked(&mut self, _tcb: &mut Tcb, acked: u32, _rtt: Option<crate::time::Time>) {
        // EWMA of packets per ACK, gain 1/16 (Linux bictcp_acked, Open state).
        self.delayed_ack = self.delayed_ack + acked - (self.delayed_ack >> 4);
    }
    fn set_state(&mut self, _tcb: &mut Tcb, s: CaState) {
        if s == CaState::Loss {
            *self = Bic::new(self.p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn binary_search_regions() {
        // ACK ratio 1 (delayed_ack = 16) so cnt is ACKs per +1 segment directly.
        let mut b = Bic::new(BicParams::default());
        b.delayed_ack = 16;
        b.loss_cwnd = 1;
        b.last_max_cwnd = 200;
        // Far below W_max: (200 − 100)/4 = 25 > 16 → +16 per RTT: cnt = 100/16 = 6.
        assert_eq!(b.update(100), 6);
        // Closer: (200 − 180)/4 = 5 → +5 per RTT: cnt = 180/5 = 36.
        assert_eq!(b.update(180), 36);
        // Within B of W_max: smooth part, +B/smooth_part = 0.2 per RTT: cnt = 199·20/4 = 995.
        assert_eq!(b.update(199), 995);
        // Max probing, slow start-like away from W_max: cwnd 230 → (230·3)/(30) = 23.
        assert_eq!(b.update(230), 23);
        // Far above: +16 per RTT.
        assert_eq!(b.update(400), 25);
        // Reno below the low window.
        assert_eq!(b.update(10), 10);
    }

    #[test]
    fn decrease_is_beta_with_fast_convergence() {
        let mut b = Bic::new(BicParams::default());
        assert_eq!(b.ssthresh(&tcb(100, 50)), 79); // 100·819/1024 = 79.98 → 79
        assert_eq!(b.last_max_cwnd, 100);
        assert_eq!(b.ssthresh(&tcb(90, 50)), 71);
        assert_eq!(b.last_max_cwnd, 90 * 1843 / 2048);
        assert_eq!(b.ssthresh(&tcb(10, 50)), 5, "Reno below low_window");
    }
}
