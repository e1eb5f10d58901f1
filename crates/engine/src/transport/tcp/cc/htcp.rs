//! H-TCP (Leith & Shorten, PFLDnet 2004; draft-leith-tcp-htcp-06), modelled on Linux tcp_htcp.c:
//! α grows with the time Δ since the last congestion event — α_raw = 1 for Δ ≤ 1 s, else
//! 1 + 10(Δ − 1) + ((Δ − 1)/2)² — scaled by minRTT/100 ms (clamped to [0.1, 2]),
//! α = 2(1 − β)·α_raw; β = minRTT/maxRTT clamped to [0.5, 0.8] (adaptive backoff, only when
//! minRTT > 10 ms and after the first event), else 0.5. Deviation: no bandwidth-switch test.

use super::{cong_avoid_alpha, slow_start, CongestionOps, Tcb};
use crate::time::Time;

#[derive(Clone, Debug)]
pub struct Htcp {
    last_cong: Time,
    min_rtt: Option<Time>,
    max_rtt: Time,
    beta: f64,
    modeswitch: bool,
    acc: f64,
}

impl Default for Htcp {
    fn default() -> Self {
        Htcp { last_cong: Time::ZERO, min_rtt: None, max_rtt: Time::ZERO, beta: 0.5, modeswitch: false, acc: 0.0 }
    }
}

/// α_raw(Δ) before RTT scaling.
pub fn alpha_raw(delta_s: f64) -> f64 {
    if delta_s <= 1.0 {
        1.0
    } else {
        let d = delta_s - 1.0;
        1.0 + 10.0 * d + (d / 2.0).powi(2)
    }
}

impl Htcp {
    /// The current increase per RTT.
    pub fn alpha(&self, now: Time) -> f64 {
        let mut f = alpha_raw((now.saturating_sub(self.last_cong)).secs_f64());
        if let Some(m) = self.min_rtt {
            f *= (m.secs_f64() / 0.1).clamp(0.1, 2.0);
        }
        (2.0 * f * (1.0 - self.beta)).max(1.0)
    }
}

impl CongestionOps for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.last_cong = tcb.now;
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        // Linux htcp_beta_update then htcp_param_update.
        self.beta = match self.min_rtt {
            Some(m) if self.modeswitch && m > Time::from_ms(10) && self.max_rtt > Time::ZERO => {
                (m.secs_f64() / self.max_rtt.secs_f64()).clamp(0.5, 0.8)
            }
            _ => 0.5,
        };
        self.modeswitch = true;
        if let Some(m) = self.min_rtt {
            if self.max_rtt > m {
                self.max_rtt = m + Time((0.95 * (self.max_rtt - m).0 as f64) as u64);
            }
        }
        self.last_cong = tcb.now;
        ((tcb.cwnd as f64 * self.beta) as u32).max(2)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        if !tcb.cwnd_limited {
            return;
        }
        if tcb.cwnd < tcb.ssthresh {
            slow_start(tcb, acked);
            return;
        }
        // Per ACKed segment cwnd += α/cwnd.
        let alpha = self.alpha(tcb.now);
        cong_avoid_alpha(tcb, &mut self.acc, alpha, acked);
    }
    fn pkts_acked(&mut self, _tcb: &mut Tcb, _acked: u32, rtt: Option<Time>) {
        if let Some(r) = rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
            // Linux accepts max-RTT samples only up to 20 ms above the current maximum.
            if r > self.max_rtt && (self.max_rtt == Time::ZERO || r <= self.max_rtt + Time::from_ms(20)) {
                self.max_rtt = r;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn alpha_grows_with_time_since_congestion() {
        assert_eq!(alpha_raw(0.5), 1.0);
        assert_eq!(alpha_raw(1.0), 1.0);
        assert!((alpha_raw(2.0) - (1.0 + 10.0 + 0.25)).abs() < 1e-12);
        assert!((alpha_raw(3.0) - (1.0 + 20.0 + 1.0)).abs() < 1e-12);
        // RTT scaling: minRTT 100 ms = ×1; β = 0.5 → α = 2·0.5·α_raw.
        let mut h = Htcp::default();
        h.min_rtt = Some(Time::from_ms(100));
        assert!((h.alpha(Time::from_ms(2000)) - 11.25).abs() < 1e-9);
        h.min_rtt = Some(Time::from_us(100)); // clamped to ×0.1, then α ≥ 1
        assert_eq!(h.alpha(Time::from_ms(500)), 1.0);
    }

    #[test]
    fn adaptive_backoff_uses_rtt_ratio_after_the_first_event() {
        let mut h = Htcp::default();
        let mut t = tcb(100, 1000);
        h.pkts_acked(&mut t, 1, Some(Time::from_ms(60)));
        h.pkts_acked(&mut t, 1, Some(Time::from_ms(75)));
        assert_eq!(h.ssthresh(&t), 50, "first event: β = 0.5");
        // min 60 ms, max shrunk to 60 + 0.95·15 = 74.25 ms → β = 0.808 → clamped 0.8.
        assert_eq!(h.ssthresh(&t), 80);
    }
}
