//! CAIA Delay-Gradient (Hayes & Armitage, IFIP Networking 2011), modelled on Linux tcp_cdg.c: per
//! round it takes the change of the round's minimum and maximum RTT, sums the last `window` = 8 of
//! them (g = the min-gradient sum if positive, else the max-gradient sum, in µs, extrapolated while
//! the window fills) and, when g > 0, backs off with probability 1 − exp(−g·backoff_factor/2^20)
//! (backoff_factor 42): a CWR reduction to 0.7071·cwnd (backoff_beta 724/1024). After 5 back-offs
//! without an RTT decrease ("ineffective") it stops backing off until one works. A shadow window
//! remembers what Reno would have had, so a loss after delay back-offs cuts to
//! max(2, shadow/2 ≤ cwnd, cwnd/2). Growth is Reno. Deviations: no CDG HyStart, no delayed-ACK
//! filtering of RTT samples, no tolerance mode (Linux default off).

use super::{reno_cong_avoid, CongestionOps, Tcb};
use crate::rng::Rng;
use crate::time::Time;

pub const WINDOW: usize = 8;
pub const BACKOFF_BETA: u32 = 724;
pub const BACKOFF_FACTOR: f64 = 42.0;
pub const USE_INEFF: u32 = 5;

/// CDG's state boxed in `Cc`: with PPT's, the largest (280 bytes); inline it would make every
/// other connection as large.
pub type BoxedCdg = Box<Cdg>;

#[derive(Clone, Debug)]
pub struct Cdg {
    p: CdgParams,
    rng: Rng,
    /// Current round's min and max RTT (µs), previous round's.
    rtt: Option<(i64, i64)>,
    prev: Option<(i64, i64)>,
    grads: [(i64, i64); WINDOW],
    tail: usize,
    filled: bool,
    gsum: (i64, i64),
    rtt_seq: u64,
    shadow_wnd: u32,
    backoff_cnt: u32,
    backing_off: bool,
    pub backoffs: u64,
}

/// Scenario knobs (`cc_params`), Linux tcp_cdg module parameters.
pub const KNOBS: &[super::Knob] = &[
    super::Knob { name: "backoff_beta", default: BACKOFF_BETA as f64 / 1024.0, min: 0.01, max: 1.0, help: "cwnd kept after a delay back-off" },
    super::Knob { name: "backoff_factor", default: BACKOFF_FACTOR, min: 0.0, max: 1e9, help: "back-off probability scale (larger = more back-offs)" },
    super::Knob { name: "use_ineff", default: USE_INEFF as f64, min: 0.0, max: 1e6, help: "ineffective back-offs before giving up" },
];

/// CDG's tunable constants (the knobs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CdgParams {
    /// In 1/1024.
    pub backoff_beta: u32,
    pub backoff_factor: f64,
    pub use_ineff: u32,
}

impl Cdg {
    pub fn new(seed: u64) -> Self {
        Self::with_knobs(seed, &super::Knobs::default())
    }

    pub fn with_knobs(seed: u64, k: &super::Knobs) -> Self {
        Cdg {
            p: CdgParams {
                backoff_beta: (k.get(KNOBS, 0) * 1024.0).round() as u32,
                backoff_factor: k.get(KNOBS, 1),
                use_ineff: k.get(KNOBS, 2) as u32,
            },
            rng: Rng::new(seed),
            rtt: None,
            prev: None,
            grads: [(0, 0); WINDOW],
            tail: 0,
            filled: false,
            gsum: (0, 0),
            rtt_seq: 0,
            shadow_wnd: 0,
            backoff_cnt: 0,
            backing_off: false,
            backoffs: 0,
        }
    }

    /// Linux `tcp_cdg_grad`: the smoothed gradient of this round against the previous one.
    fn grad(&mut self, cur: (i64, i64), prev: (i64, i64)) -> i64 {
        let (gmin, gmax) = (cur.0 - prev.0, cur.1 - prev.1);
        let old = self.grads[self.tail];
        self.gsum.0 += gmin - old.0;
        self.gsum.1 += gmax - old.1;
        self.grads[self.tail] = (gmin, gmax);
        self.tail = (self.tail + 1) % WINDOW;
        let mut g = if self.gsum.0 > 0 { self.gsum.0 } else { self.gsum.1 };
        if !self.filled {
            if self.tail == 0 {
                self.filled = true;
            } else {
                g = g * WINDOW as i64 / self.tail as i64;
            }
        }
        if gmin <= -32 || gmax <= -32 {
            self.backoff_cnt = 0; // the RTT fell: back-off was effectual
        }
        g
    }

    /// Linux `tcp_cdg_backoff`: decide probabilistically; true = reduce now.
    fn backoff(&mut self, g: i64, tcb: &Tcb) -> bool {
        let p_stay = (-(g as f64) * self.p.backoff_factor / (1u64 << 20) as f64).exp();
        if self.rng.uniform() < p_stay {
            return false;
        }
        self.backoff_cnt += 1;
        if self.backoff_cnt > self.p.use_ineff {
            return false;
        }
        self.shadow_wnd = self.shadow_wnd.max(tcb.cwnd);
        self.backing_off = true;
        self.backoffs += 1;
        true
    }
}

impl CongestionOps for Cdg {
    fn name(&self) -> &'static str {
        "cdg"
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.rtt_seq = tcb.snd_nxt;
        self.shadow_wnd = tcb.cwnd;
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        if std::mem::take(&mut self.backing_off) {
            return ((tcb.cwnd * self.p.backoff_beta) >> 10).max(2);
        }
        self.shadow_wnd = (self.shadow_wnd >> 1).min(tcb.cwnd);
        self.shadow_wnd.max(tcb.cwnd >> 1).max(2)
    }
    fn pkts_acked(&mut self, _tcb: &mut Tcb, _acked: u32, rtt: Option<Time>) {
        if let Some(r) = rtt {
            let us = (r.0 / Time::US) as i64;
            self.rtt = Some(match self.rtt {
                Some((lo, hi)) => (lo.min(us), hi.max(us)),
                None => (us, us),
            });
        }
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        if tcb.snd_una > self.rtt_seq {
            if let Some(cur) = self.rtt.take() {
                let g = match self.prev {
                    Some(prev) => self.grad(cur, prev),
                    None => 0,
                };
                self.rtt_seq = tcb.snd_nxt;
                self.prev = Some(cur);
                if g > 0 && self.backoff(g, tcb) {
                    tcb.request_cwr = true;
                    return;
                }
            }
        }
        if !tcb.cwnd_limited {
            self.shadow_wnd = self.shadow_wnd.min(tcb.cwnd);
            return;
        }
        let before = tcb.cwnd;
        reno_cong_avoid(tcb, acked);
        self.shadow_wnd = self.shadow_wnd.saturating_add(tcb.cwnd - before);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn gradient_sums_and_extrapolates_over_the_window() {
        let mut c = Cdg::new(1);
        // Two rounds in: one gradient of +10 µs in the min, extrapolated ×8 while filling.
        assert_eq!(c.grad((110, 120), (100, 120)), 80);
        // Min falls by 40 µs: negative min sum → use the max sum (0 + 0) → 0; effectual back-off.
        c.backoff_cnt = 3;
        assert_eq!(c.grad((70, 120), (110, 120)), 0);
        assert_eq!(c.backoff_cnt, 0);
    }

    #[test]
    fn backoff_probability_follows_the_exponential() {
        // g = 2^20/42 µs ⇒ P(back off) = 1 − e^−1 ≈ 0.632 (use_ineff aside).
        let mut c = Cdg::new(7);
        let t = tcb(100, 50);
        let g = ((1u64 << 20) as f64 / 42.0) as i64;
        let n = 20_000;
        let mut hits = 0;
        for _ in 0..n {
            c.backoff_cnt = 0;
            if c.backoff(g, &t) {
                hits += 1;
            }
        }
        let p = hits as f64 / n as f64;
        assert!((p - (1.0 - (-1f64).exp())).abs() < 0.015, "{p}");
        // A back-off reduces to 724/1024 of cwnd.
        c.backing_off = true;
        assert_eq!(c.ssthresh(&t), 70);
    }

    #[test]
    fn loss_after_backoffs_uses_the_shadow_window() {
        let mut c = Cdg::new(3);
        let t = tcb(40, 10);
        c.shadow_wnd = 120; // Reno would be at 120: cut to min(60, cwnd) = 40 → max(40, 20) = 40
        assert_eq!(c.ssthresh(&t), 40);
        c.shadow_wnd = 50;
        assert_eq!(c.ssthresh(&t), 25);
    }
}
