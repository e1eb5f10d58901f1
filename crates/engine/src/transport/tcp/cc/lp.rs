//! TCP-LP (Kuzmanovic & Knightly, "TCP-LP: A Distributed Algorithm for Low Priority Data
//! Transfer", INFOCOM 2003, §III), a low-priority scavenger. Early congestion indication (§III-A):
//! the smoothed delay s ← 7/8·s + 1/8·d (γ = 1/8, TCP's smoothing gain, per sample) exceeds
//! d_min + δ·(d_max − d_min), δ = 0.15, with d_min, d_max the smallest and largest delays seen on
//! the connection. Congestion avoidance policy (§III-B): the first indication halves cwnd and starts
//! the inference phase, during which cwnd does not grow; another indication before the inference
//! time-out drops cwnd to 1; after it, additive increase (+1 per RTT: the reduction also sets
//! ssthresh, so growth does not restart in slow start). Like ECN, TCP-LP reacts at most once per
//! RTT: indications within one RTT of a reaction (an early reduction, or a loss reduction) are
//! ignored, since the packets acknowledged then left before the reduction took effect. The
//! inference time-out is 3 RTTs (the authors' implementation, ported to Linux's tcp_lp; the paper
//! needs it above one RTT so that the answer to the halving is seen). All of this is in RTTs and
//! samples, so it holds at µs RTTs unchanged. Loss is Reno.
//! Deviations: the delay is the RTT sample, not the timestamp one-way delay (no TCP timestamps in
//! the model), so reverse-path queuing counts too; no signal before a min–max range exists; d_max
//! ignores a lone outlier as Linux does (the largest sample is held in reserve until it recurs).
//! Linux's tcp_lp differs from the paper in resetting d_min and d_max to s and 2s after each early
//! reduction, in checking every ACK (no once-per-RTT rule) and in leaving ssthresh alone (so cwnd
//! slow-starts back after a reduction); at µs RTTs those three make it collapse to cwnd 1 over and
//! over (docs/CONGESTION_CONTROL.md, "TCP-LP"). At cwnd = 1 a receiver that delays ACKs holds the
//! lone segment's ACK for its timeout — LP's stall there is the protocol's, not the model's.

use super::{reno_cong_avoid, reno_ssthresh, CaState, CongestionOps, Tcb};
use crate::time::Time;

/// Early-congestion threshold: 15 % of the (max − min) delay range above the minimum.
pub const THRESHOLD_PERCENT: u64 = 15;

/// Scenario knobs (`cc_params`).
pub const KNOBS: &[super::Knob] = &[super::Knob {
    name: "threshold_percent",
    default: THRESHOLD_PERCENT as f64,
    min: 0.0,
    max: 100.0,
    help: "early congestion when the smoothed delay exceeds min + this % of the range",
}];

#[derive(Clone, Debug)]
pub struct Lp {
    /// Smoothed delay × 8, picoseconds.
    sowd8: u64,
    owd_min: u64,
    owd_max: u64,
    owd_max_rsv: u64,
    /// Start of the current inference phase (the last early reduction).
    last_drop: Option<Time>,
    /// Last reaction (early or loss reduction): indications within one RTT of it are ignored.
    last_reaction: Option<Time>,
    /// Latest RTT sample.
    rtt: Time,
    pub early_reductions: u64,
    /// Percent of the delay range (THRESHOLD_PERCENT unless set).
    threshold: u64,
}

impl Default for Lp {
    fn default() -> Self {
        Lp {
            sowd8: 0,
            owd_min: 0,
            owd_max: 0,
            owd_max_rsv: 0,
            last_drop: None,
            last_reaction: None,
            rtt: Time::ZERO,
            early_reductions: 0,
            threshold: THRESHOLD_PERCENT,
        }
    }
}

impl Lp {
    pub fn with_knobs(k: &super::Knobs) -> Self {
        Lp { threshold: k.get(KNOBS, 0) as u64, ..Lp::default() }
    }

    /// Linux tcp_lp_rtt_sample: min/max with a reserve for the max, and the 7/8 EWMA.
    fn sample(&mut self, d: u64) {
        if self.owd_min == 0 || d < self.owd_min {
            self.owd_min = d;
        }
        if d > self.owd_max {
            if d > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0 { d } else { self.owd_max_rsv };
                self.owd_max_rsv = d;
            } else {
                self.owd_max = d;
            }
        }
        if self.sowd8 == 0 {
            self.sowd8 = d << 3;
        } else {
            self.sowd8 = self.sowd8 - (self.sowd8 >> 3) + d;
        }
    }
}

impl Lp {
    /// The inference time-out: 3 RTTs.
    pub fn inference_timeout(&self) -> Time {
        self.rtt.times(3)
    }
    fn within_inference(&self, now: Time) -> bool {
        self.last_drop.is_some_and(|d| now - d < self.inference_timeout())
    }
    /// The early-congestion threshold d_min + δ(d_max − d_min), if a range exists.
    pub fn threshold(&self) -> Option<u64> {
        (self.owd_max > self.owd_min).then(|| self.owd_min + self.threshold * (self.owd_max - self.owd_min) / 100)
    }
}

impl CongestionOps for Lp {
    fn name(&self) -> &'static str {
        "lp"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        reno_ssthresh(tcb)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        if !self.within_inference(tcb.now) {
            reno_cong_avoid(tcb, acked);
        }
    }
    fn set_state(&mut self, tcb: &mut Tcb, s: CaState) {
        // Disorder (duplicate ACKs, no reduction yet) is no reaction: only a reduction mutes.
        if matches!(s, CaState::Cwr | CaState::Recovery | CaState::Loss) {
            self.last_reaction = Some(tcb.now); // a loss (or ECN) reduction: the RTT after it is its
        }
    }
    fn pkts_acked(&mut self, tcb: &mut Tcb, _acked: u32, rtt: Option<Time>) {
        let Some(r) = rtt else { return };
        self.rtt = r;
        if self.last_reaction.is_some_and(|t| tcb.now - t < r) {
            // At most one reaction per RTT: these packets left before the reduction took effect.
            // They still count for d_min/d_max, but s restarts with the first packet sent after.
            self.sample(r.0);
            self.sowd8 = 0;
            return;
        }
        self.sample(r.0);
        let Some(threshold) = self.threshold() else { return };
        if (self.sowd8 >> 3) < threshold {
            return;
        }
        tcb.cwnd = if self.within_inference(tcb.now) { 1 } else { (tcb.cwnd >> 1).max(1) };
        tcb.ssthresh = tcb.cwnd.max(2);
        tcb.cwnd_cnt = 0;
        self.last_drop = Some(tcb.now);
        self.last_reaction = Some(tcb.now);
        self.early_reductions += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    /// d_min 100 µs, d_max 200 µs (threshold 115 µs), s = 100 µs, cwnd 64, nothing reduced yet.
    fn calibrated() -> (Lp, Tcb) {
        let mut lp = Lp::default();
        let mut t = tcb(64, 1000);
        lp.pkts_acked(&mut t, 1, Some(Time::from_us(200)));
        lp.sowd8 = 0;
        for _ in 0..20 {
            lp.pkts_acked(&mut t, 1, Some(Time::from_us(100)));
        }
        assert_eq!(lp.threshold(), Some(Time::from_us(115).0));
        assert_eq!((t.cwnd, lp.early_reductions), (64, 0), "at d_min: no indication");
        (lp, t)
    }

    /// Feed `n` samples of `us` at `at`; returns the sample number of the first reduction.
    fn feed(lp: &mut Lp, t: &mut Tcb, at: Time, us: u64, n: u32) -> Option<u32> {
        t.now = at;
        let before = lp.early_reductions;
        for i in 1..=n {
            lp.pkts_acked(t, 1, Some(Time::from_us(us)));
            if lp.early_reductions > before {
                return Some(i);
            }
        }
        None
    }

    #[test]
    fn halves_then_drops_to_one_within_the_inference_time_out() {
        let (mut lp, mut t) = calibrated();
        // Delay 190 µs: s = 190 − 90·(7/8)^k crosses 115 at k = 2 (111.25 after one, 121.1 after two).
        assert_eq!(feed(&mut lp, &mut t, Time::from_ms(1), 190, 10), Some(2));
        assert_eq!((t.cwnd, t.ssthresh), (32, 32), "halved, and additive increase afterwards");
        // Within one RTT (190 µs) of the reaction: ignored, however high.
        assert_eq!(feed(&mut lp, &mut t, Time::from_ms(1) + Time::from_us(150), 400, 10), None);
        assert_eq!(t.cwnd, 32);
        // After that RTT but within the inference time-out (3·190 = 570 µs): down to one segment.
        // s restarted with the first packet sent after the reduction, so one sample suffices.
        assert_eq!(feed(&mut lp, &mut t, Time::from_ms(1) + Time::from_us(250), 190, 10), Some(1));
        assert_eq!((t.cwnd, t.ssthresh), (1, 2));
        // No growth during the inference phase (570 µs from the last reduction) ...
        t.now = Time::from_ms(1) + Time::from_us(250 + 569);
        lp.cong_avoid(&mut t, 1);
        assert_eq!(t.cwnd, 1);
        // ... Reno growth after it.
        t.now = Time::from_ms(1) + Time::from_us(250 + 571);
        lp.cong_avoid(&mut t, 1);
        assert_eq!(t.cwnd, 2);
    }

    #[test]
    fn after_the_inference_time_out_an_indication_halves_again() {
        let (mut lp, mut t) = calibrated();
        assert_eq!(feed(&mut lp, &mut t, Time::from_ms(1), 190, 10), Some(2));
        // 600 µs later (> 3·190 µs): a new inference phase, cwnd 32 → 16.
        assert_eq!(feed(&mut lp, &mut t, Time::from_ms(1) + Time::from_us(600), 190, 10), Some(1));
        assert_eq!(t.cwnd, 16);
    }

    #[test]
    fn a_loss_reduction_mutes_delay_indications_for_one_rtt() {
        let (mut lp, mut t) = calibrated();
        t.now = Time::from_ms(1);
        lp.set_state(&mut t, CaState::Recovery);
        assert_eq!(feed(&mut lp, &mut t, Time::from_ms(1) + Time::from_us(100), 190, 10), None);
        // s restarted after the muted RTT: the first fresh sample above 115 µs is the indication.
        assert_eq!(feed(&mut lp, &mut t, Time::from_ms(1) + Time::from_us(200), 190, 10), Some(1));
        assert_eq!(t.cwnd, 32, "the first early reduction halves");
    }

    #[test]
    fn disorder_is_not_a_reaction() {
        // Duplicate ACKs alone reduce nothing, so they must not mute the next RTT's indications:
        // the delay that would be the first indication (two samples of 190 us) still is.
        let (mut lp, mut t) = calibrated();
        t.now = Time::from_ms(1);
        lp.set_state(&mut t, CaState::Disorder);
        assert_eq!(feed(&mut lp, &mut t, Time::from_ms(1) + Time::from_us(10), 190, 10), Some(2));
    }
}
