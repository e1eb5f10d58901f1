//! Scalable TCP (Kelly, CCR 2003), modelled on Linux tcp_scalable.c: congestion avoidance adds one
//! segment per min(cwnd, 50) ACKed segments (0.02 per ACK above 50 segments, Reno-like below), and
//! a loss cuts cwnd by 1/8 (ssthresh = cwnd − cwnd/8). The paper's constants are a = 0.01 per ACK
//! and b = 0.125; Linux doubles a to offset delayed ACKs.

use super::{cong_avoid_ai, slow_start_first, CongestionOps, Tcb};

/// ACKs per +1 segment above this window (Linux TCP_SCALABLE_AI_CNT).
pub const AI_CNT: u32 = 50;
/// cwnd is cut by cwnd >> MD_SCALE (1/8).
pub const MD_SCALE: u32 = 3;

/// Scenario knobs (`cc_params`).
pub const KNOBS: &[super::Knob] = &[
    super::Knob { name: "ai_cnt", default: AI_CNT as f64, min: 1.0, max: 1e6, help: "ACKs per +1 segment above this window" },
    super::Knob { name: "md_shift", default: MD_SCALE as f64, min: 1.0, max: 16.0, help: "loss cuts cwnd by cwnd >> md_shift" },
];

#[derive(Clone, Debug)]
pub struct Scalable {
    ai_cnt: u32,
    md_shift: u32,
}

impl Default for Scalable {
    fn default() -> Self {
        Scalable { ai_cnt: AI_CNT, md_shift: MD_SCALE }
    }
}

impl Scalable {
    pub fn with_knobs(k: &super::Knobs) -> Self {
        Scalable { ai_cnt: k.get(KNOBS, 0) as u32, md_shift: k.get(KNOBS, 1) as u32 }
    }
}

impl CongestionOps for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        (tcb.cwnd - (tcb.cwnd >> self.md_shift)).max(2)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        let Some(acked) = slow_start_first(tcb, acked) else { return };
        let w = tcb.cwnd.min(self.ai_cnt);
        cong_avoid_ai(tcb, w, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn multiplicative_increase_and_eighth_decrease() {
        let mut s = Scalable::default();
        let mut t = tcb(200, 100);
        for _ in 0..200 {
            s.cong_avoid(&mut t, 1); // one window of ACKs: +200/50 = 4 segments (2 % per RTT)
        }
        assert_eq!(t.cwnd, 204);
        assert_eq!(s.ssthresh(&tcb(200, 100)), 175);
        assert_eq!(s.ssthresh(&tcb(3, 100)), 3);
    }
}
