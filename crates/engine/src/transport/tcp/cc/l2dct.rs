//! L2DCT (Munir et al., "Minimizing Flow Completion Times in Data Centers", INFOCOM 2013 §III):
//! DCTCP whose increase and decrease are weighted by the bytes the flow has already sent, so the
//! window sharing approximates Least Attained Service.
//!
//! - Weight w_c (§III-B): w_max while the flow has sent at most 200 KB, falling linearly to w_min
//!   at 1 MB, w_min after that (w_max = 2.5, w_min = 0.125).
//! - Decrease (§III-C): on ECE, once per window, W ← W·(1 − b/2) with the penalty b = α^{w_c}
//!   (α is DCTCP's estimate), so young flows back off less than old ones; on loss halve, as DCTCP.
//! - Increase (§III-D): slow start as DCTCP; in congestion avoidance W ← W + k per RTT with
//!   k = w_c / w_max (a new flow +1 segment per RTT, an old one +0.05).
//!
//! With w_c = 1 everywhere (w_max = w_min = 1) the increase is Reno's and the penalty DCTCP's α:
//! L2DCT is then exactly DCTCP (tested below).
//!
//! `increase = "ns2"` (`cc_params`) replaces the increase by what the HKUST ns-2 code that PIAS,
//! TCN and (by its setup) Flash ran does: see [`L2dct::ns2_opencwnd`].

use super::dctcp::DctcpParams;
use super::{cong_avoid_ai, slow_start_first, AckEvent, CaState, CongestionOps, CwndEvent, Dctcp, Knob, Knobs, Tcb};

/// L2DCT's constants (§III-B), with DCTCP's estimator gain and start value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct L2dctParams {
    pub dctcp: DctcpParams,
    /// Weight of a flow that has sent little, and of one that has sent much.
    pub w_max: f64,
    pub w_min: f64,
    /// Bytes sent up to which the weight is w_max, and from which it is w_min.
    pub young_bytes: f64,
    pub old_bytes: f64,
    /// The increase rule: false = the paper's (+w_c/w_max per RTT), true = ns-2's `opencwnd()`.
    pub ns2_increase: bool,
}

impl Default for L2dctParams {
    fn default() -> Self {
        L2dctParams { dctcp: DctcpParams::default(), w_max: 2.5, w_min: 0.125, young_bytes: 200e3, old_bytes: 1e6, ns2_increase: false }
    }
}

/// Scenario knobs (`cc_params`): DCTCP's two, then the weight schedule.
pub const KNOBS: &[Knob] = &[
    Knob { name: "g", default: 1.0 / 16.0, min: 1e-6, max: 1.0, help: "α estimation gain (DCTCP)" },
    Knob { name: "initial_alpha", default: 1.0, min: 0.0, max: 1.0, help: "α at connection start" },
    Knob { name: "w_max", default: 2.5, min: 1e-3, max: 100.0, help: "weight of a flow that has sent at most young_bytes" },
    Knob { name: "w_min", default: 0.125, min: 1e-3, max: 100.0, help: "weight of a flow that has sent at least old_bytes" },
    Knob { name: "young_bytes", default: 200e3, min: 0.0, max: 1e15, help: "bytes sent below which the weight is w_max" },
    Knob { name: "old_bytes", default: 1e6, min: 0.0, max: 1e15, help: "bytes sent above which the weight is w_min" },
    Knob { name: "increase", default: 0.0, min: 0.0, max: 1.0, help: "increase rule: \"spec\" (0; +w_c/w_max per RTT, §III-D) or \"ns2\" (1; the HKUST ns-2 opencwnd(): +1 per ceil(cwnd/2) ACKs)" },
];

/// Names accepted for the `increase` knob, and the value each stands for.
pub const INCREASE_CHOICES: &[(&str, f64)] = &[("spec", 0.0), ("ns2", 1.0)];

impl L2dctParams {
    /// These parameters with the knobs set in a scenario (positions as in [`KNOBS`]).
    pub fn with_knobs(mut self, k: &Knobs) -> Self {
        self.dctcp = self.dctcp.with_knobs(k);
        self.w_max = k.0[2].unwrap_or(self.w_max);
        self.w_min = k.0[3].unwrap_or(self.w_min);
        self.young_bytes = k.0[4].unwrap_or(self.young_bytes);
        self.old_bytes = k.0[5].unwrap_or(self.old_bytes).max(self.young_bytes);
        self.ns2_increase = k.0[6].map_or(self.ns2_increase, |v| v >= 0.5);
        self
    }

    /// The weight w_c of a flow that has sent `bytes_sent` bytes (§III-B).
    pub fn weight(&self, bytes_sent: u64) -> f64 {
        let s = bytes_sent as f64;
        if s <= self.young_bytes {
            self.w_max
        } else if s >= self.old_bytes {
            self.w_min
        } else {
            self.w_max - (self.w_max - self.w_min) * (s - self.young_bytes) / (self.old_bytes - self.young_bytes)
        }
    }
}

#[derive(Clone, Debug)]
pub struct L2dct {
    p: L2dctParams,
    dctcp: Dctcp,
}

impl L2dct {
    pub fn new(p: L2dctParams) -> L2dct {
        L2dct { p, dctcp: Dctcp::new(p.dctcp) }
    }
    pub fn alpha(&self) -> f64 {
        self.dctcp.alpha()
    }
    pub fn set_alpha(&mut self, a: f64) {
        self.dctcp.set_alpha(a)
    }
    pub fn params(&self) -> &L2dctParams {
        &self.p
    }

    /// cwnd after an ECE cut: W·(1 − α^{w_c}/2), rounded as DCTCP's, at least 2 segments.
    pub fn cut(cwnd: u32, alpha: f64, w_c: f64) -> u32 {
        let b = alpha.powf(w_c);
        let cut = (cwnd as f64 * b / 2.0).floor() as u32;
        (cwnd - cut.min(cwnd)).max(2)
    }

    /// One congestion-avoidance step of ns-2's `TcpAgent::opencwnd()` with `windowOption_ 0` and
    /// `lldct_` set (HKUST-SING/PIAS-NS2 and HKUST-SING/TCN-NS2, tcp/tcp.cc; `count_` is
    /// `cwnd_cnt` here): the counter is stepped and tested against cwnd / k (k = w_c/w_max, the
    /// L2DCT branch); when that test fails the `else if` of the plain-TCP branch steps it again
    /// and tests it against cwnd. Either success adds one segment and clears the counter. The
    /// counter thus moves by 2 per ACK and, as k ≤ 1, the second test wins: +1 segment per
    /// ⌈cwnd/2⌉ ACKs, about 2 per RTT for every flow, young or old.
    pub fn ns2_opencwnd(tcb: &mut Tcb, k: f64) {
        tcb.cwnd_cnt += 1;
        if tcb.cwnd_cnt as f64 * k < tcb.cwnd as f64 {
            tcb.cwnd_cnt += 1;
            if tcb.cwnd_cnt < tcb.cwnd {
                return;
            }
        }
        tcb.cwnd_cnt = 0;
        tcb.cwnd += 1;
    }
}

impl CongestionOps for L2dct {
    fn name(&self) -> &'static str {
        "l2dct"
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.dctcp.init(tcb)
    }
    /// The ECE reduction; on loss DCTCP's `set_state(Recovery)` / `cwnd_event(Loss)` halve.
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        Self::cut(tcb.cwnd, self.dctcp.alpha(), self.p.weight(tcb.snd_nxt))
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        if self.p.ns2_increase {
            // ns-2 calls opencwnd() once per ACK of new data, however much it acknowledges and
            // whether or not the window was full: slow start +1, else the counter step.
            if tcb.cwnd < tcb.ssthresh {
                tcb.cwnd += 1;
            } else {
                Self::ns2_opencwnd(tcb, self.p.weight(tcb.snd_nxt) / self.p.w_max);
            }
            return;
        }
        let Some(acked) = slow_start_first(tcb, acked) else { return };
        // +k per RTT = +1 segment per W/k ACKed segments (Reno's counter with a longer stride,
        // so k = 1 is Reno's increase exactly).
        let k = self.p.weight(tcb.snd_nxt) / self.p.w_max;
        let stride = (tcb.cwnd as f64 / k).round().min(u32::MAX as f64) as u32;
        cong_avoid_ai(tcb, stride, acked);
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
}

#[cfg(test)]
mod tests {
    use super::super::{reno_cong_avoid, tcb};
    use super::*;

    #[test]
    fn weight_schedule_is_linear_between_200kb_and_1mb() {
        let p = L2dctParams::default();
        assert_eq!(p.weight(0), 2.5);
        assert_eq!(p.weight(200_000), 2.5);
        // Half way (600 KB): (2.5 + 0.125) / 2.
        assert!((p.weight(600_000) - 1.3125).abs() < 1e-12);
        assert_eq!(p.weight(1_000_000), 0.125);
        assert_eq!(p.weight(50_000_000), 0.125);
    }

    #[test]
    fn young_flows_cut_by_alpha_to_the_weight() {
        // α = 0.25: a new flow (w_c = 2.5) cuts by 0.25^2.5 / 2 = 1.56 %; an old one (0.125) by
        // 0.25^0.125 / 2 = 42.0 %. On 100 segments: 100 − ⌊1.56⌋ = 99 and 100 − ⌊42.04⌋ = 58.
        assert_eq!(L2dct::cut(100, 0.25, 2.5), 99);
        assert_eq!(L2dct::cut(100, 0.25, 0.125), 58);
        // w_c = 1 is DCTCP's cut: 12.5 % of 40 = 5.
        assert_eq!(L2dct::cut(40, 0.25, 1.0), 35);
    }

    #[test]
    fn increase_per_rtt_is_weight_over_w_max() {
        // A flow past 1 MB grows 0.125 / 2.5 = 0.05 segments per RTT: 20 windows for +1.
        let mut c = L2dct::new(L2dctParams::default());
        let mut t = tcb(20, 10);
        t.snd_nxt = 2_000_000;
        for _ in 0..19 * 20 {
            c.cong_avoid(&mut t, 1);
        }
        assert_eq!(t.cwnd, 20);
        for _ in 0..25 {
            c.cong_avoid(&mut t, 1);
        }
        assert_eq!(t.cwnd, 21);
        // A young flow grows one segment per window, as Reno.
        let mut c = L2dct::new(L2dctParams::default());
        let mut t = tcb(20, 10);
        for _ in 0..20 {
            c.cong_avoid(&mut t, 1);
        }
        assert_eq!(t.cwnd, 21);
    }

    /// ACKs until cwnd first exceeds `w` under ns-2's rule, from cwnd = w, counter 0, in CA.
    fn ns2_acks_per_step(w: u32, sent: u64) -> u32 {
        let mut c = L2dct::new(L2dctParams { ns2_increase: true, ..Default::default() });
        let mut t = tcb(w, 1);
        t.snd_nxt = sent;
        let mut n = 0;
        while t.cwnd == w {
            c.cong_avoid(&mut t, 1);
            n += 1;
        }
        assert_eq!((t.cwnd, t.cwnd_cnt), (w + 1, 0));
        n
    }

    #[test]
    fn ns2_increase_is_one_per_half_window_for_any_weight() {
        // Hand timeline, cwnd 10, an old flow (k = 0.125/2.5 = 0.05): the counter after each ACK
        // is 2, 4, 6, 8, 10 (1·0.05, 3·0.05, ... never reach 10); at 10 the plain test fires: +1
        // after 5 ACKs. cwnd 11: 2, 4, ..., 10, then 11 ≥ 11 on the 6th ACK's second step.
        assert_eq!(ns2_acks_per_step(10, 2_000_000), 5);
        assert_eq!(ns2_acks_per_step(11, 2_000_000), 6);
        // A young flow (k = 1): odd counts go through the L2DCT test, even through the plain one;
        // the first to reach cwnd is at ACK ⌈cwnd/2⌉ all the same (11: 1, 3, ..., 11 at ACK 6).
        assert_eq!(ns2_acks_per_step(10, 0), 5);
        assert_eq!(ns2_acks_per_step(11, 0), 6);
        // Half way through the weight ramp (k = 0.525) too.
        assert_eq!(ns2_acks_per_step(40, 600_000), 20);
        // So one RTT of cwnd ACKs grows the window by 2 (cwnd 20 -> 22 in 21 ACKs: 10 + 11)
        // where the paper's rule gives 0.05 and DCTCP 1.
        let mut c = L2dct::new(L2dctParams { ns2_increase: true, ..Default::default() });
        let mut t = tcb(20, 1);
        t.snd_nxt = 2_000_000;
        for _ in 0..21 {
            c.cong_avoid(&mut t, 1);
        }
        assert_eq!(t.cwnd, 22);
    }

    #[test]
    fn ns2_increase_counts_acks_not_segments_and_slow_starts_per_ack() {
        // ns-2's opencwnd() is called once per new ACK: a stretch ACK of 5 segments is one step.
        let mut c = L2dct::new(L2dctParams { ns2_increase: true, ..Default::default() });
        let mut t = tcb(10, 1);
        c.cong_avoid(&mut t, 5);
        assert_eq!((t.cwnd, t.cwnd_cnt), (10, 2));
        // Below ssthresh: +1 per ACK whatever it acknowledges.
        let mut t = tcb(10, 100);
        c.cong_avoid(&mut t, 3);
        assert_eq!(t.cwnd, 11);
    }

    #[test]
    fn increase_knob_selects_the_rule() {
        let mut k = Knobs::default();
        assert!(!L2dctParams::default().with_knobs(&k).ns2_increase);
        k.0[6] = Some(1.0);
        assert!(L2dctParams::default().with_knobs(&k).ns2_increase);
        assert_eq!(KNOBS[6].name, "increase");
    }

    #[test]
    fn unit_weight_equals_dctcp() {
        // w_max = w_min = 1: the same α, the same cuts and the same growth as DCTCP.
        let p = L2dctParams { w_max: 1.0, w_min: 1.0, ..Default::default() };
        let mut l = L2dct::new(p);
        let mut d = Dctcp::new(DctcpParams::default());
        let (mut tl, mut td) = (tcb(10, 1_000), tcb(10, 1_000));
        l.init(&mut tl);
        d.init(&mut td);
        for i in 0..2_000u64 {
            for t in [&mut tl, &mut td] {
                t.snd_una += 1000;
                t.snd_nxt += 1000;
            }
            let ev = AckEvent { ece: i % 7 == 0, acked_bytes: 1000 };
            l.in_ack_event(&mut tl, ev);
            d.in_ack_event(&mut td, ev);
            if i % 97 == 0 {
                tl.ssthresh = l.ssthresh(&tl);
                td.ssthresh = d.ssthresh(&td);
                tl.cwnd = tl.ssthresh;
                td.cwnd = td.ssthresh;
            }
            l.cong_avoid(&mut tl, 1);
            reno_cong_avoid(&mut td, 1);
            assert_eq!((tl.cwnd, tl.ssthresh), (td.cwnd, td.ssthresh), "ACK {i}");
            assert_eq!(l.alpha(), d.alpha());
        }
    }
}
