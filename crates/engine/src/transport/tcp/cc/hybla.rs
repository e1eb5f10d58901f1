//! Hybla (Caini & Firrincieli, IJSCN 2004), modelled on Linux tcp_hybla.c: with ρ = max(SRTT/RTT0, 1)
//! and RTT0 = 25 ms, slow start adds 2^ρ − 1 segments per ACK and congestion avoidance ρ²/cwnd,
//! so a long-RTT flow grows as fast as a 25 ms one. ρ follows the smallest SRTT seen. Loss
//! handling is Reno's. Deviation: the initial window is not raised to ρ (Linux does).

use super::{add_fraction, reno_cong_avoid, reno_ssthresh, CongestionOps, Tcb};
use crate::time::Time;

#[derive(Clone, Debug)]
pub struct Hybla {
    pub rtt0: Time,
    rho: f64,
    min_srtt: Option<Time>,
    acc: f64,
}

/// Scenario knobs (`cc_params`).
pub const KNOBS: &[super::Knob] =
    &[super::Knob { name: "rtt0_ms", default: 25.0, min: 0.001, max: 1e6, help: "reference RTT RTT0 in milliseconds" }];

impl Hybla {
    pub fn with_knobs(k: &super::Knobs) -> Self {
        Hybla { rtt0: Time::from_ps((k.get(KNOBS, 0) * 1e9) as u64), ..Hybla::default() }
    }
}

impl Default for Hybla {
    fn default() -> Self {
        Hybla { rtt0: Time::from_ms(25), rho: 1.0, min_srtt: None, acc: 0.0 }
    }
}

impl Hybla {
    pub fn rho(&self) -> f64 {
        self.rho
    }
    fn update_rho(&mut self, tcb: &Tcb) {
        if let Some(s) = tcb.srtt {
            if self.min_srtt.is_none_or(|m| s < m) {
                self.min_srtt = Some(s);
                self.rho = (s.secs_f64() / self.rtt0.secs_f64()).max(1.0);
            }
        }
    }
}

impl CongestionOps for Hybla {
    fn name(&self) -> &'static str {
        "hybla"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        reno_ssthresh(tcb)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        self.update_rho(tcb);
        if self.rho == 1.0 {
            // ρ = 1 (RTT ≤ RTT0): +2^ρ − 1 = 1 per ACK and +ρ²/cwnd are Reno's rules; count them
            // as Reno does, slow-start leftovers and integer counter included.
            return reno_cong_avoid(tcb, acked);
        }
        if !tcb.cwnd_limited {
            return;
        }
        let per_ack = if tcb.cwnd < tcb.ssthresh { 2f64.powf(self.rho) - 1.0 } else { self.rho * self.rho / tcb.cwnd as f64 };
        let slow = tcb.cwnd < tcb.ssthresh;
        add_fraction(tcb, &mut self.acc, acked as f64 * per_ack);
        if slow {
            tcb.cwnd = tcb.cwnd.min(tcb.ssthresh);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn rho_four_at_100ms() {
        // Hybla (Caini & Firrincieli, Int. J. Satellite Commun. Netw. 2004), ρ = RTT / RTT0 with RTT0 = 25 ms: RTT 100 ms ⇒ ρ = 4: slow start +15 per ACK, CA +16 per RTT.
        let mut h = Hybla::default();
        let mut t = tcb(10, 1000);
        t.srtt = Some(Time::from_ms(100));
        h.cong_avoid(&mut t, 1);
        assert_eq!(h.rho(), 4.0);
        assert_eq!(t.cwnd, 25);
        let mut t = tcb(100, 50);
        t.srtt = Some(Time::from_ms(100));
        for _ in 0..100 {
            h.cong_avoid(&mut t, 1); // one window of ACKs ≈ one RTT
        }
        // +ρ²/cwnd per ACK: about +16 per RTT; with the window growing during the round the closed
        // form is √(100² + 2·16·100) ≈ 114.9.
        assert_eq!(t.cwnd, 114);
    }

    #[test]
    fn short_rtt_is_reno() {
        let mut h = Hybla::default();
        let mut t = tcb(100, 50);
        t.srtt = Some(Time::from_us(100));
        for _ in 0..100 {
            h.cong_avoid(&mut t, 1);
        }
        assert_eq!((h.rho(), t.cwnd), (1.0, 101));
    }
}
