//! HighSpeed TCP (RFC 3649): above Low_Window = 38 segments the increase a(w) and decrease b(w)
//! follow the RFC's response function: b(w) = (High_Decrease − 0.5)·(ln w − ln 38)/(ln 83000 −
//! ln 38) + 0.5, p(w) = 0.078/w^1.2, a(w) = w²·p(w)·2·b(w)/(2 − b(w)); per ACK w += a(w)/w, on loss
//! w ← (1 − b(w))·w. Deviation: Linux and ns-3 read a and b from the 73-row table of RFC 3649
//! App. B (rounded); we evaluate the formulas it was computed from.

use super::{add_fraction, reno_cong_avoid, slow_start, CongestionOps, Tcb};

pub const LOW_WINDOW: f64 = 38.0;
pub const HIGH_WINDOW: f64 = 83_000.0;
pub const HIGH_DECREASE: f64 = 0.1;

/// Decrease factor b(w) (RFC 3649 §5).
pub fn b(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 0.5;
    }
    (HIGH_DECREASE - 0.5) * (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln()) + 0.5
}

/// Increase a(w) in segments per RTT (RFC 3649 §5).
pub fn a(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 1.0;
    }
    let p = 0.078 / w.powf(1.2);
    w * w * p * 2.0 * b(w) / (2.0 - b(w))
}

#[derive(Clone, Debug, Default)]
pub struct HighSpeed {
    acc: f64,
}

impl CongestionOps for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        let w = tcb.cwnd as f64;
        ((w - w * b(w)) as u32).max(2)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        if !tcb.cwnd_limited {
            return;
        }
        if tcb.cwnd < tcb.ssthresh {
            slow_start(tcb, acked);
            return;
        }
        if (tcb.cwnd as f64) <= LOW_WINDOW {
            return reno_cong_avoid(tcb, acked);
        }
        // Per ACKed segment add a(w)/w.
        let inc = acked as f64 * a(tcb.cwnd as f64) / tcb.cwnd as f64;
        add_fraction(tcb, &mut self.acc, inc);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn response_function_end_points() {
        // RFC 3649 App. B: a = 1, b = 0.5 at w = 38; b = 0.1 at w = 83 000 where the table has
        // a = 72 (its rows are rounded; the formula gives ≈ 70).
        assert_eq!(b(38.0), 0.5);
        assert!((a(38.0) - 1.0).abs() < 0.05, "{}", a(38.0));
        assert!((b(HIGH_WINDOW) - 0.1).abs() < 1e-12);
        assert!((a(HIGH_WINDOW) - 72.0).abs() < 3.0, "{}", a(HIGH_WINDOW));
    }

    #[test]
    fn decrease_uses_b_of_w() {
        let mut h = HighSpeed::default();
        assert_eq!(h.ssthresh(&tcb(30, 10)), 15);
        let w = 1000.0;
        assert_eq!(h.ssthresh(&tcb(1000, 10)), (w - w * b(w)) as u32);
    }
}
