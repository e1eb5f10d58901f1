//! A Swift-like delay-based window (Kumar et al., "Swift: Delay is Simple and Effective for
//! Congestion Control in the Datacenter", SIGCOMM 2020, §3, Algorithm 1), in the form PPT
//! (Suo et al., SIGCOMM 2024, §6.2, footnote 7) compares against: Swift's window adjustment on
//! the fabric delay only (no host-delay loop).
//!
//! Per ACK with an RTT sample `delay` (the model has no host delays and the receiver ACKs every
//! packet, so the RTT is the fabric delay):
//! - target = base_target + hops·hop_scale + clamp(α/√cwnd + β, 0, fs_range), with
//!   α = fs_range/(1/√fs_min_cwnd − 1/√fs_max_cwnd) and β = −α/√fs_max_cwnd (§3.5: topology-
//!   and flow-based scaling), so the flow term is fs_range at fs_min_cwnd and 0 at fs_max_cwnd;
//! - delay < target: additive increase, cwnd += ai·acked/cwnd (cwnd ≥ 1) or ai·acked (cwnd < 1),
//!   i.e. ai packets per RTT;
//! - else, if the last decrease is at least one RTT old: cwnd ·= max(1 − β·(delay − target)/delay,
//!   1 − max_mdf).
//! Fast recovery (the core entering SACK recovery) cuts cwnd by (1 − max_mdf) if a decrease is
//! allowed; a retransmission timeout does too, and the RETX_RESET_THRESHOLD-th consecutive one
//! sets cwnd to MIN_CWND. cwnd is kept in [MIN_CWND, MAX_CWND] packets (fractional); below one
//! packet the sender keeps one packet in flight and paces one every RTT/cwnd.
//!
//! Hops: the switches on the flow's path, from the topology (not from INT or TTL). The RTT used
//! for "once per RTT" and for pacing is the latest sample. Two htsim readings are options
//! (`fs_whole_packets`: the flow term on ⌊cwnd⌋; `decrease_srtt`: once per smoothed RTT). The TCP core's window is
//! ⌊cwnd⌋ segments for cwnd ≥ 1. Loss recovery is the core's (RFC 6675 SACK, RACK, TLP, RTO).

use super::{CaState, CongestionOps, Knob, Knobs, RateSample, Tcb};
use crate::time::Time;
use crate::transport::PathInfo;

/// Smallest and largest window, packets (Algorithm 1's min_cwnd / max_cwnd; our values).
pub const MIN_CWND: f64 = 0.001;
pub const MAX_CWND: f64 = 1e6;
/// Consecutive retransmission timeouts that reset cwnd to MIN_CWND (Algorithm 1's
/// RETX_RESET_THRESHOLD; our value).
pub const RETX_RESET_THRESHOLD: u32 = 5;

/// Scenario knobs (`cc_params`). The paper names these parameters (Algorithm 1, §3.5); the values
/// of its deployment were not checked for this model and PPT §6.2 states none, so these defaults
/// are ours, sized for 10–100 Gb/s fabrics with µs RTTs (docs/CONGESTION_CONTROL.md).
pub const KNOBS: &[Knob] = &[
    Knob { name: "base_target_us", default: 25.0, min: 0.0, max: 1e9, help: "base target delay, microseconds (§3.5)" },
    Knob { name: "hop_scale_us", default: 1.0, min: 0.0, max: 1e9, help: "h: target added per switch on the path, microseconds (§3.5)" },
    Knob { name: "fs_range_us", default: 50.0, min: 0.0, max: 1e9, help: "flow-based scaling range, microseconds; 0 = no flow scaling (§3.5)" },
    Knob { name: "fs_min_cwnd", default: 0.1, min: 1e-6, max: 1e9, help: "window (packets) at which the flow term reaches fs_range (§3.5)" },
    Knob { name: "fs_max_cwnd", default: 100.0, min: 1e-6, max: 1e9, help: "window (packets) at which the flow term is 0 (§3.5)" },
    Knob { name: "ai", default: 1.0, min: 0.0, max: 1e6, help: "additive increase, packets per RTT (Algorithm 1)" },
    Knob { name: "beta", default: 0.8, min: 0.0, max: 1.0, help: "multiplicative decrease constant (Algorithm 1)" },
    Knob { name: "max_mdf", default: 0.5, min: 0.0, max: 1.0, help: "largest multiplicative decrease per RTT (Algorithm 1)" },
    Knob { name: "fs_whole_packets", default: 0.0, min: 0.0, max: 1.0, help: "1 = the flow term takes the window in whole packets, ⌊cwnd⌋ (htsim's SwiftSrc::targetDelay divides bytes by mss in integers); 0 = fractional" },
    Knob { name: "decrease_srtt", default: 0.0, min: 0.0, max: 1.0, help: "1 = a decrease waits one smoothed RTT (7/8 average, before this ACK's sample) since the last, as htsim's SwiftSubflowSrc::adjust_cwnd; 0 = one latest sample" },
];

#[derive(Clone, Debug)]
pub struct Swift {
    base_target: f64,
    hop_scale: f64,
    fs_range: f64,
    fs_alpha: f64,
    fs_beta: f64,
    ai: f64,
    beta: f64,
    max_mdf: f64,
    /// The flow term sees ⌊cwnd⌋ (htsim 841d9e7's `SwiftSrc::targetDelay`: `cwnd/_mss` of two
    /// integers); below one packet that is 0, whose term clamps to fs_range.
    fs_whole_packets: bool,
    /// "Once per RTT" measured against the smoothed RTT as it stood before the ACK's sample
    /// (htsim 841d9e7's `adjust_cwnd` reads `_rtt` before `update_rtt`).
    decrease_srtt: bool,
    hops: u32,
    /// Window in packets (fractional).
    pub cwnd: f64,
    /// Latest RTT sample, seconds (0 before the first).
    rtt: f64,
    /// Smoothed RTT (7/8 average of the samples), seconds; kept for `decrease_srtt` only.
    srtt: f64,
    t_last_decrease: Option<Time>,
    retransmit_cnt: u32,
}

impl Swift {
    pub fn with_knobs(k: &Knobs) -> Self {
        let fs_range = k.get(KNOBS, 2) * 1e-6;
        let (fs_min, fs_max) = (k.get(KNOBS, 3), k.get(KNOBS, 4));
        let span = 1.0 / fs_min.sqrt() - 1.0 / fs_max.sqrt();
        let fs_alpha = if fs_range > 0.0 && span > 0.0 { fs_range / span } else { 0.0 };
        Swift {
            base_target: k.get(KNOBS, 0) * 1e-6,
            hop_scale: k.get(KNOBS, 1) * 1e-6,
            fs_range,
            fs_alpha,
            fs_beta: -fs_alpha / fs_max.sqrt(),
            ai: k.get(KNOBS, 5),
            beta: k.get(KNOBS, 6),
            max_mdf: k.get(KNOBS, 7),
            fs_whole_packets: k.get(KNOBS, 8) >= 0.5,
            decrease_srtt: k.get(KNOBS, 9) >= 0.5,
            hops: 0,
            cwnd: 0.0,
            rtt: 0.0,
            srtt: 0.0,
            t_last_decrease: None,
            retransmit_cnt: 0,
        }
    }

    /// The target delay in seconds at the current window (§3.5).
    pub fn target_delay(&self) -> f64 {
        let w = if self.fs_whole_packets { self.cwnd.floor() } else { self.cwnd };
        let flow = (self.fs_alpha / w.sqrt() + self.fs_beta).clamp(0.0, self.fs_range);
        self.base_target + self.hops as f64 * self.hop_scale + flow
    }

    /// The RTT "once per RTT" waits: the latest sample, or the smoothed RTT (`decrease_srtt`).
    fn decrease_rtt(&self) -> f64 {
        if self.decrease_srtt { self.srtt } else { self.rtt }
    }

    fn can_decrease(&self, now: Time, rtt: f64) -> bool {
        self.t_last_decrease.is_none_or(|t| (now - t).secs_f64() >= rtt)
    }

    fn decrease(&mut self, now: Time, factor: f64) {
        self.cwnd = (self.cwnd * factor).clamp(MIN_CWND, MAX_CWND);
        self.t_last_decrease = Some(now);
    }

    /// The core's window and pacing from cwnd.
    fn apply(&self, tcb: &mut Tcb) {
        if self.cwnd < 1.0 {
            tcb.cwnd = 1;
            let rtt = if self.rtt > 0.0 { self.rtt } else { tcb.srtt.or(tcb.min_rtt).map_or(0.0, Time::secs_f64) };
            tcb.pacing_rate = (rtt > 0.0).then(|| self.cwnd / rtt);
        } else {
            tcb.cwnd = self.cwnd as u32;
            tcb.pacing_rate = None;
        }
    }
}

impl CongestionOps for Swift {
    fn name(&self) -> &'static str {
        "swift"
    }
    fn path(&mut self, p: &PathInfo) {
        self.hops = p.switches;
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.cwnd = (tcb.cwnd as f64).clamp(MIN_CWND, MAX_CWND);
        if let Some(r) = tcb.min_rtt {
            self.rtt = r.secs_f64();
        }
        self.apply(tcb);
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        tcb.cwnd
    }
    fn cong_avoid(&mut self, _tcb: &mut Tcb, _acked: u32) {}
    fn owns_cwnd(&self) -> bool {
        true
    }
    /// Algorithm 1, "On Receiving ACK".
    fn cong_control(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        if rs.acked_sacked > 0 {
            self.retransmit_cnt = 0;
        }
        if let Some(delay) = rs.rtt {
            let delay = delay.secs_f64();
            let srtt_before = self.srtt;
            self.srtt = if self.srtt > 0.0 { 0.875 * self.srtt + 0.125 * delay } else { delay };
            self.rtt = delay;
            let wait = if self.decrease_srtt { srtt_before } else { delay };
            let target = self.target_delay();
            let acked = rs.acked_sacked as f64;
            if delay < target {
                self.cwnd += if self.cwnd >= 1.0 { self.ai * acked / self.cwnd } else { self.ai * acked };
                self.cwnd = self.cwnd.clamp(MIN_CWND, MAX_CWND);
            } else if self.can_decrease(tcb.now, wait) {
                let f = (1.0 - self.beta * (delay - target) / delay).max(1.0 - self.max_mdf);
                self.decrease(tcb.now, f);
            }
        }
        self.apply(tcb);
    }
    /// Algorithm 1, "On Fast Recovery" and "On Retransmit Timeout" (the core enters Loss on
    /// every timeout).
    fn set_state(&mut self, tcb: &mut Tcb, s: CaState) {
        match s {
            CaState::Recovery => {
                self.retransmit_cnt = 0;
                if self.can_decrease(tcb.now, self.decrease_rtt()) {
                    self.decrease(tcb.now, 1.0 - self.max_mdf);
                }
            }
            CaState::Loss => {
                self.retransmit_cnt += 1;
                if self.retransmit_cnt >= RETX_RESET_THRESHOLD {
                    self.decrease(tcb.now, 0.0);
                } else if self.can_decrease(tcb.now, self.decrease_rtt()) {
                    self.decrease(tcb.now, 1.0 - self.max_mdf);
                }
            }
            _ => return,
        }
        self.apply(tcb);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swift(k: &Knobs, cwnd: u32, hops: u32) -> (Swift, Tcb) {
        let mut s = Swift::with_knobs(k);
        s.path(&PathInfo { nic_rate: crate::time::Rate::gbps(10), base_rtt: Time::from_us(10), switches: hops, segment: 1500 });
        let mut t = super::super::tcb(cwnd, u32::MAX);
        s.init(&mut t);
        (s, t)
    }

    fn ack(s: &mut Swift, t: &mut Tcb, now_us: u64, delay_us: u64, acked: u32) {
        t.now = Time::from_us(now_us);
        let rs = RateSample { acked_sacked: acked, rtt: Some(Time::from_us(delay_us)), ..RateSample::default() };
        s.cong_control(t, &rs);
    }

    #[test]
    fn target_scales_with_hops_and_window() {
        // Defaults: 25 µs + 3 hops × 1 µs + flow term. α = 50 µs / (1/√0.1 − 1/√100) =
        // 50/(3.16228 − 0.1) µs = 16.3277 µs; β = −α/10.
        let (mut s, _) = swift(&Knobs::default(), 10, 3);
        let alpha = 50.0 / (1.0 / 0.1f64.sqrt() - 0.1);
        for (cwnd, flow_us) in [(100.0, 0.0), (1000.0, 0.0), (0.1, 50.0), (0.01, 50.0), (4.0, alpha / 2.0 - alpha / 10.0)] {
            s.cwnd = cwnd;
            let want = (25.0 + 3.0 + flow_us) * 1e-6;
            assert!((s.target_delay() - want).abs() < 1e-12, "cwnd {cwnd}: {} vs {want}", s.target_delay());
        }
    }

    #[test]
    fn whole_packet_flow_term_floors_the_window() {
        // htsim's mapping: base 20 µs, no hop term, fs_range 100 µs; α = 100/(1/√0.1 − 1/√100)
        // = 32.6555 µs, β = −α/10. At cwnd 2.5 the whole-packet term uses 2: α/√2 − α/10 =
        // 19.8253 µs (fractional: α/√2.5 − α/10 = 17.3874 µs). Below one packet ⌊cwnd⌋ = 0 and
        // the term is the whole range.
        let mut k = Knobs::default();
        for (i, v) in [(0, 20.0), (1, 0.0), (2, 100.0)] {
            k.0[i] = Some(v);
        }
        let (mut frac, _) = swift(&k, 10, 3);
        k.0[8] = Some(1.0);
        let (mut whole, _) = swift(&k, 10, 3);
        for (cwnd, w_us, f_us) in [(2.5, 39.8253, 37.3874), (2.0, 39.8253, 39.8253), (0.5, 120.0, 20.0 + 32.6555 * (2f64.sqrt() - 0.1)), (150.0, 20.0, 20.0)] {
            whole.cwnd = cwnd;
            frac.cwnd = cwnd;
            assert!((whole.target_delay() * 1e6 - w_us).abs() < 1e-3, "whole, cwnd {cwnd}: {}", whole.target_delay() * 1e6);
            assert!((frac.target_delay() * 1e6 - f_us).abs() < 1e-3, "fractional, cwnd {cwnd}: {}", frac.target_delay() * 1e6);
        }
    }

    #[test]
    fn additive_increase_is_ai_per_rtt() {
        // Below target, a window's worth of ACKs (10 packets acked at cwnd ≈ 10) adds ≈ ai = 1.
        let (mut s, mut t) = swift(&Knobs::default(), 10, 1);
        for i in 0..10 {
            ack(&mut s, &mut t, 10 + i, 10, 1);
        }
        assert!((s.cwnd - 11.0).abs() < 0.05, "cwnd {}", s.cwnd);
        assert_eq!(t.cwnd, 10); // ⌊10.95…⌋
        // Below one packet the increase is ai per ACK.
        s.cwnd = 0.5;
        ack(&mut s, &mut t, 100, 10, 1);
        assert!((s.cwnd - 1.5).abs() < 1e-12);
    }

    #[test]
    fn decrease_honours_max_mdf_and_once_per_rtt() {
        // Target with 1 hop, window 100 (flow term 0): 26 µs. Hand timeline, RTT samples in µs:
        let (mut s, mut t) = swift(&Knobs::default(), 100, 1);
        // t = 100: delay 260 = 10× target: 1 − 0.8·(234/260) = 0.28 < 1 − max_mdf: cut to 50.
        ack(&mut s, &mut t, 100, 260, 1);
        assert!((s.cwnd - 50.0).abs() < 1e-9, "cwnd {}", s.cwnd);
        // t = 200 (< 100 + 260): no second cut within the RTT, however large the delay.
        ack(&mut s, &mut t, 200, 1000, 1);
        assert!((s.cwnd - 50.0).abs() < 1e-9);
        // t = 400: 300 µs after the cut, RTT now 30 µs: delay 30 vs target 26 µs + flow term
        // (α/√cwnd + β, α = 50/(1/√0.1 − 1/√100) µs): a mild cut, 1 − 0.8·(30 − target)/30.
        let alpha = 50.0 / (1.0 / 0.1f64.sqrt() - 0.1);
        let target = |c: f64| 26.0 + (alpha / c.sqrt() - alpha / 10.0).clamp(0.0, 50.0);
        ack(&mut s, &mut t, 400, 30, 1);
        let want = 50.0 * (1.0 - 0.8 * (30.0 - target(50.0)) / 30.0);
        assert!((s.cwnd - want).abs() < 1e-9, "cwnd {} vs {want}", s.cwnd);
        // t = 420, delay 40 µs: 20 µs since the cut is less than the RTT: no cut.
        ack(&mut s, &mut t, 420, 40, 1);
        assert!((s.cwnd - want).abs() < 1e-9);
        // t = 440: one RTT (40 µs) after the cut: cut by 1 − 0.8·(40 − target)/40.
        ack(&mut s, &mut t, 440, 40, 1);
        let want2 = want * (1.0 - 0.8 * (40.0 - target(want)) / 40.0);
        assert!((s.cwnd - want2).abs() < 1e-9, "cwnd {} vs {want2}", s.cwnd);
    }

    #[test]
    fn decrease_srtt_waits_one_smoothed_rtt() {
        // Window 100, 1 hop, defaults: target 26 µs (the flow term is 0 from 100 packets; at 50
        // it is 0.68 µs). t = 100: a 10 µs sample (below target: +1/100). t = 200: 300 µs, cut to
        // the floor 0.5 (50.005); the smoothed RTT was 10 µs, now 7/8·10 + 300/8 = 46.25 µs.
        // t = 250: 300 µs again, 50 µs after the cut: one smoothed RTT (46.25 µs, as it stood
        // before this sample) has passed, one latest sample (300 µs) has not.
        for (srtt, want) in [(0.0, 50.005), (1.0, 25.0025)] {
            let mut k = Knobs::default();
            k.0[9] = Some(srtt);
            let (mut s, mut t) = swift(&k, 100, 1);
            ack(&mut s, &mut t, 100, 10, 1);
            ack(&mut s, &mut t, 200, 300, 1);
            assert!((s.cwnd - 50.005).abs() < 1e-9, "cwnd {}", s.cwnd);
            ack(&mut s, &mut t, 250, 300, 1);
            assert!((s.cwnd - want).abs() < 1e-9, "decrease_srtt {srtt}: cwnd {} vs {want}", s.cwnd);
        }
    }

    #[test]
    fn below_one_packet_paces_one_every_rtt_over_cwnd() {
        let (mut s, mut t) = swift(&Knobs::default(), 1, 1);
        ack(&mut s, &mut t, 100, 500, 1); // cut to 0.5
        assert!((s.cwnd - 0.5).abs() < 1e-12);
        assert_eq!(t.cwnd, 1);
        // One packet per 500 µs / 0.5 = 1 ms: 1000 packets per second.
        assert!((t.pacing_rate.unwrap() - 1000.0).abs() < 1e-6);
        // Back above one packet: unpaced, window-limited.
        s.cwnd = 3.2;
        ack(&mut s, &mut t, 200, 10, 0);
        assert_eq!((t.cwnd, t.pacing_rate), (3, None));
    }

    #[test]
    fn timeouts_cut_by_max_mdf_then_reset_to_min_cwnd() {
        let (mut s, mut t) = swift(&Knobs::default(), 64, 1);
        ack(&mut s, &mut t, 100, 10, 0); // rtt 10 µs, no change (acked 0)
        t.now = Time::from_us(200);
        s.set_state(&mut t, CaState::Loss);
        assert!((s.cwnd - 32.0).abs() < 1e-12);
        for k in 2..RETX_RESET_THRESHOLD {
            t.now = Time::from_us(200 + 100 * k as u64);
            s.set_state(&mut t, CaState::Loss);
        }
        assert!((s.cwnd - 64.0 / 2f64.powi(RETX_RESET_THRESHOLD as i32 - 1)).abs() < 1e-9);
        t.now = Time::from_us(10_000);
        s.set_state(&mut t, CaState::Loss);
        assert_eq!(s.cwnd, MIN_CWND);
    }
}
