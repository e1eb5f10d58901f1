//! reTCP (Mukerjee et al., "Adapting TCP for Reconfigurable Datacenter Networks", NSDI 2020 §5.3):
//! NewReno plus an edge detector on circuit state carried in the ECE bit of ACKs. On a 0→1 edge
//! (the circuit to the receiver's rack came up, or — with dynamic VOQ resizing — the resizing
//! window opened) cwnd is multiplied by α; on a 1→0 edge by β. ECN is not negotiated, so ECE
//! never means congestion here: the TCP core hands the raw bit to [`CongestionOps::in_ack_event`]
//! because [`Retcp`] asks for it (`reads_raw_ece`), as Etalon's one-line kernel change does.
//! As in the Etalon module, the jump is applied in `cong_avoid` (after Reno's own growth, even
//! when Reno grew nothing because the flow was not cwnd-limited), so it waits while the flow is
//! in recovery; cwnd is not clamped to ssthresh by the jump.

use super::{reno_cong_avoid, reno_ssthresh, AckEvent, CongestionOps, Tcb};

/// α and β (§5.3: α = 2, β = 0.5, "based on the results of a parameter sweep").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetcpParams {
    pub alpha: f64,
    pub beta: f64,
}

impl Default for RetcpParams {
    fn default() -> Self {
        RetcpParams { alpha: 2.0, beta: 0.5 }
    }
}

/// Scenario knobs (`cc_params`; also the keys `retcp_alpha`, `retcp_beta`).
pub const KNOBS: &[super::Knob] = &[
    super::Knob { name: "alpha", default: 2.0, min: 1.0, max: 1e3, help: "cwnd factor when the circuit comes up (ECE 0→1)" },
    super::Knob { name: "beta", default: 0.5, min: 1e-6, max: 1.0, help: "cwnd factor when it goes down (ECE 1→0)" },
];

impl RetcpParams {
    /// These parameters with the knobs set in a scenario.
    pub fn with_knobs(mut self, k: &super::Knobs) -> Self {
        self.alpha = k.0[0].unwrap_or(self.alpha);
        self.beta = k.0[1].unwrap_or(self.beta);
        self
    }
}

#[derive(Clone, Debug)]
pub struct Retcp {
    p: RetcpParams,
    /// ECE of the latest ACK: the circuit is up (or about to be).
    have_circuit: bool,
    /// cwnd was multiplied by α and not yet by β.
    jumped: bool,
    /// Edges applied, for observation.
    pub ups: u64,
    pub downs: u64,
}

impl Retcp {
    pub fn new(p: RetcpParams) -> Self {
        Retcp { p, have_circuit: false, jumped: false, ups: 0, downs: 0 }
    }
}

impl CongestionOps for Retcp {
    fn name(&self) -> &'static str {
        "retcp"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        reno_ssthresh(tcb)
    }
    fn reads_raw_ece(&self) -> bool {
        true
    }
    fn in_ack_event(&mut self, _tcb: &mut Tcb, ev: AckEvent) {
        self.have_circuit = ev.ece;
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        reno_cong_avoid(tcb, acked);
        if self.have_circuit && !self.jumped {
            tcb.cwnd = ((tcb.cwnd as f64 * self.p.alpha) as u32).max(1);
            self.jumped = true;
            self.ups += 1;
        } else if !self.have_circuit && self.jumped {
            tcb.cwnd = ((tcb.cwnd as f64 * self.p.beta) as u32).max(1);
            self.jumped = false;
            self.downs += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;
    use crate::time::Time;

    fn ack(r: &mut Retcp, t: &mut Tcb, ece: bool) {
        r.in_ack_event(t, AckEvent { ece, acked_bytes: 1000 });
        r.cong_avoid(t, 1);
    }

    #[test]
    fn doubles_on_rising_edge_and_halves_on_falling_edge_once_each() {
        // Congestion avoidance at cwnd 10 (ssthresh 5), one segment per ACK: Reno adds 1 per
        // 10 ACKs. Scripted ECE stream 0,0,1,1,1,0,0.
        let mut r = Retcp::new(RetcpParams::default());
        let mut t = tcb(10, 5);
        ack(&mut r, &mut t, false);
        ack(&mut r, &mut t, false);
        assert_eq!(t.cwnd, 10);
        ack(&mut r, &mut t, true); // 0→1: ×2
        assert_eq!(t.cwnd, 20);
        ack(&mut r, &mut t, true); // no edge: Reno only (cnt 4 of 20)
        ack(&mut r, &mut t, true);
        assert_eq!(t.cwnd, 20);
        ack(&mut r, &mut t, false); // 1→0: ×0.5
        assert_eq!(t.cwnd, 10);
        ack(&mut r, &mut t, false);
        assert_eq!(t.cwnd, 10);
        assert_eq!((r.ups, r.downs), (1, 1));
    }

    #[test]
    fn jumps_even_when_not_cwnd_limited_and_uses_reno_on_loss() {
        let mut r = Retcp::new(RetcpParams { alpha: 3.0, beta: 0.25 });
        let mut t = tcb(8, 100);
        t.cwnd_limited = false;
        t.now = Time::ZERO;
        ack(&mut r, &mut t, true);
        assert_eq!(t.cwnd, 24);
        ack(&mut r, &mut t, false);
        assert_eq!(t.cwnd, 6);
        assert_eq!(r.ssthresh(&tcb(24, 100)), 12);
    }
}
