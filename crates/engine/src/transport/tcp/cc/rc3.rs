//! RC3's primary loop (Mittal, Sherry, Ratnasamy, Shenker, "Recursively Cautious Congestion
//! Control", NSDI 2014) as PPT's evaluation runs it: "RC3 is originally designed for Internet and
//! uses TCP for high-priority loop by default. To make a fair comparison in DCN environment, we
//! use DCTCP for RC3's high priority control loop" (PPT §6.1). Every window decision is DCTCP's;
//! the recursive low-priority loop is `transport/tcp/lcp.rs` (`Design::Rc3`), whose level sizes
//! are this algorithm's knobs.

use super::dctcp::DctcpParams;
use super::{AckEvent, CaState, CongestionOps, CwndEvent, Dctcp, Knob, Knobs, Tcb};
use crate::transport::tcp::lcp::{RC3_FACTOR, RC3_LEVELS};
use crate::transport::ports::{dctcp_k, mark_queues, pkts, strict_queues, Needs, PaperPorts, PortSetup};

pub const KNOBS: &[Knob] = &[
    Knob { name: "g", default: 1.0 / 16.0, min: 1e-6, max: 1.0, help: "DCTCP's α estimation gain (primary loop)" },
    Knob { name: "initial_alpha", default: 1.0, min: 0.0, max: 1.0, help: "DCTCP's α at connection start" },
    Knob { name: "level_factor", default: RC3_FACTOR as f64, min: 2.0, max: 1000.0, help: "level i carries factor^i x IW packets (RC3 §3; reference: 10)" },
    Knob { name: "levels", default: RC3_LEVELS as f64, min: 1.0, max: 7.0, help: "low-priority levels (classes 1..levels)" },
    Knob { name: "ns3_dctcp", default: 0.0, min: 0.0, max: 1.0, help: "1: the primary loop is ns-3's TcpDctcp (dctcp's knobs of ns-3, cc/dctcp.rs Dctcp::NS3_RULES); [host] stack = \"ns-3\" sets it" },
];

/// The low-priority loop's level sizes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rc3Params {
    pub factor: u64,
    pub levels: u8,
}

impl Rc3Params {
    pub fn from_knobs(k: &Knobs) -> Rc3Params {
        Rc3Params { factor: k.get(KNOBS, 2).round() as u64, levels: k.get(KNOBS, 3).round().clamp(1.0, 7.0) as u8 }
    }
}

#[derive(Clone, Debug)]
pub struct Rc3 {
    dctcp: Dctcp,
}

impl Rc3 {
    pub fn with_knobs(k: &Knobs) -> Rc3 {
        let p = DctcpParams { g: k.get(KNOBS, 0), initial_alpha: k.get(KNOBS, 1) };
        Rc3 { dctcp: Dctcp::primary_loop(p, k.get(KNOBS, 4) >= 0.5) }
    }
    pub fn alpha(&self) -> f64 {
        self.dctcp.alpha()
    }
}

impl CongestionOps for Rc3 {
    fn name(&self) -> &'static str {
        "rc3"
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.dctcp.init(tcb)
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        self.dctcp.ssthresh(tcb)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        self.dctcp.cong_avoid(tcb, acked)
    }
    fn in_ack_event(&mut self, tcb: &mut Tcb, ev: AckEvent) {
        self.dctcp.in_ack_event(tcb, ev)
    }
    fn cwnd_event(&mut self, tcb: &mut Tcb, ev: CwndEvent) {
        self.dctcp.cwnd_event(tcb, ev)
    }
    fn set_state(&mut self, tcb: &mut Tcb, s: CaState) {
        self.dctcp.set_state(tcb, s)
    }
    // ns-3's TcpDctcp rules (`ns3_dctcp`); without them DCTCP's defaults.
    fn ssthresh_fraction(&self) -> f64 {
        self.dctcp.ssthresh_fraction()
    }
    fn grows_on_no_segment(&self) -> bool {
        self.dctcp.grows_on_no_segment()
    }
    fn loss_state_ssthresh(&mut self, tcb: &Tcb) -> Option<u32> {
        self.dctcp.loss_state_ssthresh(tcb)
    }
}

/// RC3's switch ports as PPT ran it (PPT §6.2): 8 strict-priority queues (RC3 §3: the low
/// priority loop's classes), every queue marking at DCTCP's K for the primary loop.
pub const PORTS: PaperPorts = PaperPorts {
    needs: Needs { marking: true, queues: 8, ..Needs::NONE },
    summary: "8 strict-priority queues, each marking at DCTCP's K (RC3 §3; PPT §6.2)",
    setup: |_, f| {
        let (k, why) = dctcp_k(f);
        PortSetup { ports: mark_queues(strict_queues(8), pkts(k)), host_ports: None, note: format!("8 strict-priority queues, each marking at {why}") }
    },
};
