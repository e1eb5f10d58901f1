//! pFabric's minimal rate control (Alizadeh et al., SIGCOMM 2013 §4.2): flows start at line
//! rate (the initial window is one BDP, set by the `pfabric` scheme), grow as TCP does, never
//! react to ECN or duplicate ACKs (the scheme disables fast retransmit: the switches reorder and
//! drop low-priority packets on purpose), and on a timeout halve ssthresh and restart from one
//! segment. The window is capped at `max_cwnd` segments (the authors' ns-2 runs: buffer − 1 = 23).
//! The fixed retransmission timeout of about 3 RTTs and the probe mode after repeated timeouts
//! are sender settings of the scheme (`transport/tcp/scheme.rs`).

use super::{reno_cong_avoid, CongestionOps, Knob, Knobs, Tcb};
use crate::transport::ports::{keys, pkts, Needs, PaperPorts, PortSetup};
use serde_json::json;

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

/// Buffer of pFabric's ports in bandwidth-delay products (SIGCOMM 2013 §4.1, §5: 36 KB, "about
/// twice the BDP", at 10 Gb/s and 14.6 us).
pub const BUFFER_BDPS: f64 = 2.0;

/// pFabric's switch ports: one small buffer of about two BDPs that sends the smallest remaining
/// size first and drops the largest (`admission = "pfabric"`).
pub const PORTS: PaperPorts = PaperPorts {
    needs: Needs { rank_admission: true, ..Needs::NONE },
    summary: "one buffer of 2 BDPs, smallest rank first, largest rank dropped (pFabric §4.1, §5)",
    setup: |_, f| {
        let n = ((BUFFER_BDPS * f.bdp_packets()).ceil() as u64).max(2);
        PortSetup {
            ports: keys(&[("buffer", pkts(n)), ("admission", json!("pfabric"))]),
            host_ports: None,
            note: format!("buffer {n} pkt = 2 x C*RTT at {} (pFabric §5: 36 KB, 2 BDPs, at 10 Gb/s)", f.describe()),
        }
    },
};

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
