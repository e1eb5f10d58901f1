//! PPT's high-priority loop (Suo, Pang, Li et al., "PPT: A Pragmatic Transport for
//! Datacenters", SIGCOMM 2024, §3): "HCP is simply the same with DCTCP", so every window
//! decision is DCTCP's ([`Dctcp`]). What PPT adds on this side is observation for its
//! low-priority loop (`transport/tcp/lcp.rs`):
//!
//! - α once per DCTCP update (eq. (1)), kept for the last `alpha_rtts` updates; once the flow is
//!   past its start-up phase, an update whose α is the minimum of that history is §3.1's case 2
//!   ("PPT initializes an LCP loop for it whenever its DCTCP parameter α takes the minimum value
//!   α_min in the past RTTs");
//! - W_max, the largest congestion window "the flow experienced in past RTTs" — footnote 3:
//!   "only the congestion windows after the congestion-avoidance phase are considered", so cwnd
//!   is recorded from the first reduction on (ssthresh set).
//!
//! The LCP's other constants live here too as knobs, so a scenario sets them in `cc_params`.

use super::dctcp::DctcpParams;
use super::{AckEvent, CaState, CongestionOps, CwndEvent, Dctcp, Knob, Knobs, Tcb};
use crate::transport::ports::{dctcp_k, mark_queues, pkts, strict_queues, Needs, PaperPorts, PortSetup};
use serde_json::json;

/// §4.1 / Table 3: "Identification threshold: Default: 100KB".
pub const IDENT_THRESHOLD: f64 = 100_000.0;
/// §3.2: "terminate the current LCP loop if the sender has not received low-priority ACKs for
/// 2 RTTs".
pub const SILENCE_RTTS: f64 = 2.0;
/// §3.1 "the minimum value α_min in the past RTTs" (§5: "the minimal α in the past few RTTs"):
/// how many is not stated; our choice, a knob.
pub const ALPHA_RTTS: f64 = 8.0;
/// §3.2: "whenever two consecutive opportunistic data packets arrive at the receiver, the
/// receiver sends one low-priority ACK back" (the exponential window decrease).
pub const LCP_PER_ACK: f64 = 2.0;
/// Eq. (3): the ports' marking threshold K = λ·C·RTT; λ = 0.17 for the high-priority queues (as
/// DCTCP's analysis), 0.1 for the low-priority ones (§3.2). Switch settings, given here so a
/// scenario builder can derive K from its links; §6.2 states the values it used (96 KB / 86 KB).
pub const LAMBDA_HCP: f64 = 0.17;
pub const LAMBDA_LCP: f64 = 0.1;

/// K = λ·C·RTT in bytes for a link of `bps` and a base round trip of `rtt_s` seconds (eq. (3)).
pub fn marking_threshold(lambda: f64, bps: f64, rtt_s: f64) -> f64 {
    lambda * bps * rtt_s / 8.0
}

/// Longest α history kept (the `alpha_rtts` knob's maximum).
pub const MAX_ALPHA_RTTS: usize = 32;

/// Scenario knobs (`cc_params`): DCTCP's two first (same names and meaning as `dctcp`).
pub const KNOBS: &[Knob] = &[
    Knob { name: "g", default: 1.0 / 16.0, min: 1e-6, max: 1.0, help: "DCTCP's α estimation gain (HCP = DCTCP)" },
    Knob { name: "initial_alpha", default: 1.0, min: 0.0, max: 1.0, help: "DCTCP's α at connection start" },
    Knob { name: "ident_threshold", default: IDENT_THRESHOLD, min: 0.0, max: 1e15, help: "bytes: a first write above this marks the flow large (§4.1)" },
    Knob { name: "silence_rtts", default: SILENCE_RTTS, min: 0.1, max: 100.0, help: "RTTs without low-priority ACKs that close the LCP (§3.2)" },
    Knob { name: "alpha_rtts", default: ALPHA_RTTS, min: 1.0, max: MAX_ALPHA_RTTS as f64, help: "α updates over which α_min is taken (§3.1 case 2)" },
    Knob { name: "lcp_per_ack", default: LCP_PER_ACK, min: 1.0, max: 16.0, help: "LCP packets per low-priority ACK: 2 halves the LCP window per RTT (EWD, §3.2)" },
    Knob { name: "lcp", default: 1.0, min: 0.0, max: 1.0, help: "1 = run the low-priority loop; 0 = HCP alone (DCTCP with PPT's tagging)" },
    Knob { name: "ns3_dctcp", default: 0.0, min: 0.0, max: 1.0, help: "1: the HCP is ns-3's TcpDctcp (dctcp's knobs of ns-3, cc/dctcp.rs Dctcp::NS3_RULES); [host] stack = \"ns-3\" sets it" },
];

/// The LCP's constants as a scenario set them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PptParams {
    pub ident_threshold: u64,
    pub silence_rtts: f64,
    pub alpha_rtts: usize,
    pub lcp_per_ack: u32,
    pub lcp: bool,
}

impl PptParams {
    pub fn from_knobs(k: &Knobs) -> PptParams {
        PptParams {
            ident_threshold: k.get(KNOBS, 2) as u64,
            silence_rtts: k.get(KNOBS, 3),
            alpha_rtts: (k.get(KNOBS, 4).round() as usize).clamp(1, MAX_ALPHA_RTTS),
            lcp_per_ack: k.get(KNOBS, 5).round().max(1.0) as u32,
            lcp: k.get(KNOBS, 6) >= 0.5,
        }
    }
}

/// PPT's state boxed in `Cc`: it is the largest congestion control (480 bytes), and inline it would
/// make every other connection as large.
pub type BoxedPpt = Box<Ppt>;

/// DCTCP plus the α history and W_max.
#[derive(Clone, Debug)]
pub struct Ppt {
    dctcp: Dctcp,
    keep: usize,
    /// The last `keep` α values, oldest overwritten first.
    history: [f64; MAX_ALPHA_RTTS],
    filled: usize,
    next: usize,
    rounds: u64,
    /// Largest cwnd seen since the first reduction (segments).
    w_max: u32,
    /// Set by an α update that is the minimum of the history (case 2), taken by the sender.
    case2: Option<f64>,
}

impl Ppt {
    pub fn with_knobs(k: &Knobs) -> Ppt {
        let d = DctcpParams { g: k.get(KNOBS, 0), initial_alpha: k.get(KNOBS, 1) };
        Ppt {
            dctcp: Dctcp::primary_loop(d, k.get(KNOBS, 7) >= 0.5),
            keep: PptParams::from_knobs(k).alpha_rtts,
            history: [0.0; MAX_ALPHA_RTTS],
            filled: 0,
            next: 0,
            rounds: 0,
            w_max: 0,
            case2: None,
        }
    }
    pub fn alpha(&self) -> f64 {
        self.dctcp.alpha()
    }
    /// W_max of eq. (2), segments (0 before the first reduction).
    pub fn w_max(&self) -> u32 {
        self.w_max
    }
    /// The α_min of a case-2 opportunity raised since the last call, if any.
    pub fn take_case2(&mut self) -> Option<f64> {
        self.case2.take()
    }

    fn record(&mut self, tcb: &Tcb) {
        let a = self.dctcp.alpha();
        let min = self.history[..self.filled].iter().copied().fold(f64::INFINITY, f64::min);
        self.history[self.next] = a;
        self.next = (self.next + 1) % self.keep;
        self.filled = (self.filled + 1).min(self.keep);
        // Past the start-up phase: slow start has ended with a first reduction.
        if tcb.ssthresh != u32::MAX && a <= min {
            self.case2 = Some(a);
        } else {
            self.case2 = None;
        }
    }
}

impl CongestionOps for Ppt {
    fn name(&self) -> &'static str {
        "ppt"
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.dctcp.init(tcb)
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        self.dctcp.ssthresh(tcb)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        self.dctcp.cong_avoid(tcb, acked);
        if tcb.ssthresh != u32::MAX {
            self.w_max = self.w_max.max(tcb.cwnd);
        }
    }
    fn in_ack_event(&mut self, tcb: &mut Tcb, ev: AckEvent) {
        if tcb.ssthresh != u32::MAX {
            self.w_max = self.w_max.max(tcb.cwnd);
        }
        self.dctcp.in_ack_event(tcb, ev);
        if self.dctcp.rounds() != self.rounds {
            self.rounds = self.dctcp.rounds();
            self.record(tcb);
        }
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

/// §6.2's thresholds at 40/100 Gb/s: K_HCP (DCTCP's K too) and K_LCP, in bytes.
pub const K_HCP_PAPER: u64 = 96_000;
pub const K_LCP_PAPER: u64 = 86_000;

/// PPT's switch ports (SIGCOMM 2024 §4.2, §6.2): 8 strict-priority queues, P0-P3 for the HCP
/// marking at K_HCP and P4-P7 for the LCP at K_LCP, each on its own queue's length. K_HCP is
/// DCTCP's K for the fabric (§6.2 gives DCTCP and the HCP the same 96 KB) and K_LCP keeps §6.2's
/// ratio to it (86/96).
pub const PORTS: PaperPorts = PaperPorts {
    needs: Needs { marking: true, queues: 8, ..Needs::NONE },
    summary: "8 strict-priority queues; HCP queues P0-P3 mark at K_HCP (DCTCP's K), LCP queues P4-P7 at K_LCP = 86/96 K_HCP (PPT §4.2, §6.2)",
    setup: |_, f| {
        let (k, why) = dctcp_k(f);
        let lcp = (k * K_LCP_PAPER).div_ceil(K_HCP_PAPER);
        let per_queue: Vec<_> = [k; 4].into_iter().chain([lcp; 4]).map(pkts).collect();
        PortSetup {
            ports: mark_queues(strict_queues(8), json!(per_queue)),
            host_ports: None,
            note: format!("8 strict-priority queues, K_HCP {k} pkt, K_LCP {lcp} pkt (PPT §6.2: 96 KB and 86 KB; HCP's {why})"),
        }
    },
};

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn ns3_dctcp_gives_the_hcp_ns3s_byte_cut_and_loss_state_rule() {
        // α = 1 (its initial value, no window closed yet), cwnd 3 segments. Linux's DCTCP cuts
        // ⌊3·1/2⌋ = 1 segment, floor 2: ssthresh 2. ns-3's TcpDctcp: (1 − 1/2)·3 MSS = 1.5 MSS:
        // ssthresh 1 and half a segment kept for PRR; in the loss state its cut, not the sender's
        // halving (None).
        let t = tcb(3, u32::MAX);
        let mut linux = Ppt::with_knobs(&Knobs::default());
        assert_eq!((linux.ssthresh(&t), linux.ssthresh_fraction(), linux.loss_state_ssthresh(&t)), (2, 0.0, None));
        let mut k = Knobs::default();
        k.0[7] = Some(1.0);
        let mut ns3 = Ppt::with_knobs(&k);
        assert_eq!((ns3.ssthresh(&t), ns3.ssthresh_fraction()), (1, 0.5));
        assert_eq!(ns3.loss_state_ssthresh(&t), Some(1));
        assert!(ns3.grows_on_no_segment());
        assert_eq!(KNOBS[7].name, "ns3_dctcp");
    }

    fn window(p: &mut Ppt, t: &mut Tcb, n: u64, marked: u64) {
        for i in 0..n {
            t.snd_una += 1000;
            t.snd_nxt += 1000;
            p.in_ack_event(t, AckEvent { ece: i < marked, acked_bytes: 1000 });
        }
    }

    #[test]
    fn case_2_is_raised_when_alpha_is_the_minimum_of_the_recent_updates_after_start_up() {
        // g = 1/2 so α moves fast; history of 3 updates. α: 1 → (marked 1/2) 0.75 → 0.375 ...
        let mut k = Knobs::default();
        k.0[0] = Some(0.5);
        k.0[4] = Some(3.0);
        let mut p = Ppt::with_knobs(&k);
        let mut t = tcb(10, u32::MAX);
        t.snd_nxt = 10_000;
        p.init(&mut t);
        window(&mut p, &mut t, 10, 5);
        // Still in slow start (ssthresh unset): never case 2.
        assert!((p.alpha() - 0.75).abs() < 1e-12);
        assert_eq!(p.take_case2(), None);
        t.ssthresh = 8;
        // F = 1: α = 0.875, above the history's 0.75 → no.
        window(&mut p, &mut t, 10, 10);
        assert_eq!(p.take_case2(), None);
        // F = 0: α = 0.4375, the minimum of {0.75, 0.875, 0.4375} → case 2 with α_min = 0.4375.
        window(&mut p, &mut t, 10, 0);
        assert_eq!(p.take_case2(), Some(0.4375));
        assert_eq!(p.take_case2(), None, "taken once");
        // W_max counts windows from the first reduction on: cwnd 10 was seen with ssthresh set.
        assert_eq!(p.w_max(), 10);
    }

    #[test]
    fn equation_3_marking_thresholds() {
        // 40 Gb/s, 100 us: C·RTT = 500 KB; K = 85 KB (HCP), 50 KB (LCP).
        assert!((marking_threshold(LAMBDA_HCP, 40e9, 100e-6) - 85_000.0).abs() < 1e-6);
        assert!((marking_threshold(LAMBDA_LCP, 40e9, 100e-6) - 50_000.0).abs() < 1e-6);
    }

    #[test]
    fn hcp_cuts_exactly_as_dctcp() {
        let t = tcb(40, 100);
        let mut k = Knobs::default();
        k.0[1] = Some(0.25);
        assert_eq!(Ppt::with_knobs(&k).ssthresh(&t), 35);
    }
}
