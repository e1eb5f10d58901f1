//! pFabric's minimal rate control (Alizadeh et al., SIGCOMM 2013 §4.2): flows start at line
//! rate (the initial window is one BDP, set by the `pfabric` scheme), grow as TCP does, never
//! react to ECN or duplicate ACKs (the scheme disables fast retransmit: the switches reorder and
//! drop low-priority packets on purpose), and on a timeout halve ssthresh and restart from one
//! segment. The window is capped at `max_cwnd` segments (the authors' ns-2 runs: buffer − 1 = 23).
//! The fixed retransmission timeout of about 3 RTTs and the probe mode after repeated timeouts
//! are sender settings of the scheme (`transport/tcp/scheme.rs`).

use super::{reno_cong_avoid, CongestionOps, Knob, Knobs, Tcb};

pub const KNOBS: &[Knob] = &[Knob {
    name: "max_cwnd",
    default: 23.0,
    min: 1.0,
    max: 1e9,
    help: "largest window in segments (pFabric: buffer in packets − 1)",
}];

#[derive(Clone, Debug)]
pub struct PFabric {
    max_cwnd: u32,
}

impl PFabric {
    pub fn with_knobs(k: &Knobs) -> PFabric {
        PFabric { max_cwnd: k.get(KNOBS, 0) as u32 }
    }
}

impl CongestionOps for PFabric {
    fn name(&self) -> &'static str {
        "pfabric"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        (tcb.cwnd / 2).max(2)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        reno_cong_avoid(tcb, acked);
        tcb.cwnd = tcb.cwnd.min(self.max_cwnd);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn grows_like_tcp_up_to_the_cap() {
        let mut c = PFabric::with_knobs(&Knobs::default());
        let mut t = tcb(12, u32::MAX);
        c.cong_avoid(&mut t, 8);
        assert_eq!(t.cwnd, 20); // slow start: +1 per ACKed segment
        c.cong_avoid(&mut t, 8);
        assert_eq!(t.cwnd, 23); // capped at buffer − 1
        assert_eq!(c.ssthresh(&t), 11);
    }
}
