//! PPT on a delay-based transport (Suo, Pang, Li et al., "PPT: A Pragmatic Transport for
//! Datacenters", SIGCOMM 2024, §6.3 "Working with delay-based transport", Fig. 14): the
//! Swift-like window of [`Swift`] is the high-priority loop, and "this variant starts an LCP loop
//! whenever a flow's transmission delay falls below the target delay and closes it when it does
//! not receive ACKs for two consecutive RTTs. Moreover, this variant uses the same flow
//! scheduling method as PPT." (footnote 7: Swift's window adjustment on the fabric delay only,
//! which is what [`Swift`] models).
//!
//! The paper does not give the opening window of this variant. Ours is the delay analogue of
//! eq. (2)'s spare window: the packets that would raise the measured delay to the target at the
//! current rate, I = ⌊cwnd·(target − delay)/delay⌋, taken on an ACK whose fabric delay is below
//! the target while no loop is open. Everything else of the low-priority loop is PPT's
//! (`lcp.rs`): pacing of the first I packets over an RTT, one low-priority ACK per two LCP
//! packets (EWD), closing after 2 silent RTTs, mirror-symmetric tagging with buffer-aware
//! identification, and ECT on LCP packets with an ECE-marked low-priority ACK sending nothing
//! (on drop-tail ports nothing is ever marked, so the LCP then runs on EWD and silence alone).
//! There is no case 1 (the variant opens on the delay signal only); the normal loop reads delay,
//! not marks. The LCP constants are PPT's defaults (`cc/ppt.rs`); the knobs are Swift's.

use super::swift::{Swift, KNOBS as SWIFT_KNOBS};
use super::{CaState, CongestionOps, Knob, Knobs, RateSample, Tcb};
use crate::transport::PathInfo;
use crate::transport::ports::{strict_queues, Needs, PaperPorts, PortSetup};

/// Scenario knobs: Swift's.
pub const KNOBS: &[Knob] = SWIFT_KNOBS;

/// The Swift-like window plus the delay-triggered openings of the low-priority loop.
#[derive(Clone, Debug)]
pub struct PptSwift {
    swift: Swift,
    /// Set by an ACK whose delay is below the target: the opening window I (packets), taken by
    /// the sender.
    opening: Option<u64>,
}

impl PptSwift {
    pub fn with_knobs(k: &Knobs) -> PptSwift {
        PptSwift { swift: Swift::with_knobs(k), opening: None }
    }
    /// The window of an opening raised since the last call, if any.
    pub fn take_opening(&mut self) -> Option<u64> {
        self.opening.take()
    }
    /// The Swift window, packets.
    pub fn cwnd(&self) -> f64 {
        self.swift.cwnd
    }
}

/// I = ⌊cwnd·(target − delay)/delay⌋ when the delay is below the target (see the module notes).
pub fn opening_window(cwnd: f64, delay: f64, target: f64) -> Option<u64> {
    if delay <= 0.0 || delay >= target {
        return None;
    }
    let i = (cwnd * (target - delay) / delay).floor();
    (i >= 1.0).then_some(i as u64)
}

impl CongestionOps for PptSwift {
    fn name(&self) -> &'static str {
        "ppt-swift"
    }
    fn path(&mut self, p: &PathInfo) {
        self.swift.path(p)
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.swift.init(tcb)
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        self.swift.ssthresh(tcb)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        self.swift.cong_avoid(tcb, acked)
    }
    fn owns_cwnd(&self) -> bool {
        true
    }
    fn cong_control(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        // The target Swift compares this ACK's delay against (before its window moves).
        let (target, cwnd) = (self.swift.target_delay(), self.swift.cwnd);
        self.swift.cong_control(tcb, rs);
        self.opening = rs.rtt.and_then(|d| opening_window(cwnd, d.secs_f64(), target));
    }
    fn set_state(&mut self, tcb: &mut Tcb, s: CaState) {
        self.swift.set_state(tcb, s)
    }
}

/// PPT-on-Swift's switch ports (PPT Fig. 14): PPT's 8 strict-priority queues, no marking
/// (the delay loop reads delay, not ECN).
pub const PORTS: PaperPorts = PaperPorts {
    needs: Needs { queues: 8, ..Needs::NONE },
    summary: "8 strict-priority queues, drop-tail, no marking (PPT §6.3, Fig. 14)",
    setup: |_, _| PortSetup { ports: strict_queues(8), host_ports: None, note: "8 strict-priority queues, drop-tail".into() },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Time;

    #[test]
    fn opening_window_is_the_spare_up_to_the_target() {
        // cwnd 20 packets, delay 10 µs, target 25 µs: 20·15/10 = 30 packets.
        assert_eq!(opening_window(20.0, 10e-6, 25e-6), Some(30));
        // 7 packets at 20 µs against 25 µs: 7·5/20 = 1.75 → 1.
        assert_eq!(opening_window(7.0, 20e-6, 25e-6), Some(1));
        // At or above the target: none; below one packet: none.
        assert_eq!(opening_window(20.0, 25e-6, 25e-6), None);
        assert_eq!(opening_window(20.0, 30e-6, 25e-6), None);
        assert_eq!(opening_window(3.0, 20e-6, 25e-6), None);
    }

    #[test]
    fn an_ack_below_the_target_raises_an_opening_and_the_window_is_swifts() {
        let path = PathInfo { nic_rate: crate::time::Rate::gbps(40), base_rtt: Time::from_us(10), switches: 3, segment: 1500 };
        let (mut p, mut s) = (PptSwift::with_knobs(&Knobs::default()), Swift::with_knobs(&Knobs::default()));
        p.path(&path);
        s.path(&path);
        let (mut tp, mut ts) = (super::super::tcb(10, u32::MAX), super::super::tcb(10, u32::MAX));
        p.init(&mut tp);
        s.init(&mut ts);
        // Target at cwnd 10: 25 + 3·1 µs + flow term α/√10 + β (α = 50/(1/√0.1 − 1/√100) µs).
        let alpha = 50.0 / (1.0 / 0.1f64.sqrt() - 0.1);
        let target_us = 28.0 + alpha / 10f64.sqrt() - alpha / 10.0;
        let mut openings = Vec::new();
        for (now_us, delay_us) in [(10u64, 12u64), (20, 60), (30, 14)] {
            let rs = RateSample { acked_sacked: 1, rtt: Some(Time::from_us(delay_us)), ..RateSample::default() };
            let (cwnd, target) = (p.cwnd(), if now_us == 10 { target_us * 1e-6 } else { s.target_delay() });
            tp.now = Time::from_us(now_us);
            ts.now = tp.now;
            p.cong_control(&mut tp, &rs);
            s.cong_control(&mut ts, &rs);
            assert_eq!((tp.cwnd, p.cwnd()), (ts.cwnd, s.cwnd), "the window is Swift's");
            let want = opening_window(cwnd, delay_us as f64 * 1e-6, target);
            openings.push(p.take_opening());
            assert_eq!(openings.last(), Some(&want), "ACK at {now_us} µs");
            assert_eq!(p.take_opening(), None, "taken once");
        }
        // The first ACK: α = 16.328 µs, flow term 16.328/√10 − 1.633 = 3.531 µs, target 31.53 µs;
        // 12 µs with cwnd 10 → ⌊10·19.53/12⌋ = 16 packets; the second (60 µs) is above: none.
        assert!((target_us - 31.53).abs() < 0.01, "{target_us}");
        assert_eq!(&openings[..2], &[Some(16), None]);
    }
}
