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
//! samples, so it holds at µs RTTs unchanged, and on a dilated kernel clock (times × k) it reacts
//! exactly as on the network's (tested). Loss is Reno.
//! Deviations: the delay is the RTT sample (with `timestamps`, RFC 7323's: that of the earliest
//! newly acknowledged segment), not the timestamp one-way delay, so reverse-path queuing counts
//! too; no signal before a min–max range exists; d_max ignores a lone outlier as Linux does (the
//! largest sample is held in reserve until it recurs). The receiver's delayed-ACK hold is in the
//! sample, as it is in a timestamp one-way delay (the ACK's TSval is stamped when the ACK leaves).
//! Linux's tcp_lp differs from the paper in resetting d_min and d_max to s and 2s after each early
//! reduction, in checking every ACK (no once-per-RTT rule) and in leaving ssthresh alone (so cwnd
//! slow-starts back after a reduction); at µs RTTs those three make it collapse to cwnd 1 over and
//! over (docs/CONGESTION_CONTROL.md, "TCP-LP"). At cwnd = 1 a receiver that delays ACKs holds the
//! lone segment's ACK for its timeout, and that hold makes cwnd = 1 absorbing: every sample then
//! exceeds d_min + δ·(d_max − d_min) (the hold itself bounds d_max), comes one RTT after the last
//! reaction and inside the inference time-out, so cwnd stays 1 for good (tested). That is the
//! paper's rules meeting a delayed-ACK timer far above the RTT, not a fault of the model.

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
        calibrated_on(1)
    }

    /// `calibrated` on a clock running `k` times faster: every time and delay × k.
    fn calibrated_on(k: u64) -> (Lp, Tcb) {
        let mut lp = Lp::default();
        let mut t = tcb(64, 1000);
        lp.pkts_acked(&mut t, 1, Some(Time::from_us(200 * k)));
        lp.sowd8 = 0;
        for _ in 0..20 {
            lp.pkts_acked(&mut t, 1, Some(Time::from_us(100 * k)));
        }
        assert_eq!(lp.threshold(), Some(Time::from_us(115 * k).0));
        assert_eq!((t.cwnd, lp.early_reductions), (64, 0), "at d_min: no indication");
        (lp, t)
    }

    /// One ACK of one segment at `now_us` carrying a delay sample of `sample_us`, both × `k`, then
    /// the window growth the ACK allows. Returns (cwnd, early reductions, threshold / k in ps).
    fn ack(lp: &mut Lp, t: &mut Tcb, k: u64, now_us: u64, sample_us: u64) -> (u32, u64, Option<u64>) {
        t.now = Time::from_us(now_us * k);
        lp.pkts_acked(t, 1, Some(Time::from_us(sample_us * k)));
        lp.cong_avoid(t, 1);
        (t.cwnd, lp.early_reductions, lp.threshold().map(|x| x / k))
    }

    /// From `calibrated`: the halving at 1 ms and, one RTT later and inside the inference
    /// time-out, the drop to one segment (as in the first test; s = 129.7 µs afterwards).
    fn at_one_segment(k: u64) -> (Lp, Tcb) {
        let (mut lp, mut t) = calibrated_on(k);
        t.ssthresh = t.cwnd; // in congestion avoidance: two ACKs do not grow cwnd 64
        assert_eq!(ack(&mut lp, &mut t, k, 1000, 190).0, 64, "s = 111.25 µs < 115");
        assert_eq!(ack(&mut lp, &mut t, k, 1000, 190).0, 32, "s = 121.1 µs: halve");
        assert_eq!(ack(&mut lp, &mut t, k, 1250, 190), (1, 2, Some(Time::from_us(115).0)), "s = 129.7 µs, 250 µs < 3 RTTs: one segment");
        (lp, t)
    }

    #[test]
    fn a_delayed_ack_hold_at_one_segment_keeps_the_window_at_one() {
        // With one segment in flight a receiver that ACKs every second segment holds the ACK for
        // its delayed-ACK timer (here 2 ms: Linux's 40 ms under 20x time dilation), so every
        // delay sample is 100 µs + 2 ms. Each comes one RTT after the previous reaction (the
        // segment left at that reaction, so it is not muted) and inside the 3-RTT inference
        // time-out (6.3 ms), so each is a second indication: cwnd = 1, the phase restarts, and
        // no ACK ever grows the window. The hold cannot lift the threshold above itself: d_max is
        // at most 2.1 ms, so d_min + 15 % of the range is at most 100 + 300 = 400 µs.
        let (mut lp, mut t) = at_one_segment(1);
        // The first 2.1 ms sample is a lone maximum (held in reserve): threshold still 115 µs,
        // s = 7/8·129.7 + 2100/8 = 376.0 µs.
        assert_eq!(ack(&mut lp, &mut t, 1, 3350, 2100), (1, 3, Some(Time::from_us(115).0)));
        // It recurs: d_max = 2.1 ms, threshold 400 µs, s = 591.5, 780.1, ... µs → 2.1 ms.
        let mut now = 3350;
        for n in 4..60 {
            now += 2100;
            assert_eq!(ack(&mut lp, &mut t, 1, now, 2100), (1, n, Some(Time::from_us(400).0)), "sample {n}");
        }
    }

    #[test]
    fn without_the_hold_the_window_grows_again_after_the_inference_time_out() {
        // The same start, but the receiver ACKs the lone segment at once: RTT 100 µs (d_min).
        // s = 100 + 29.7·(7/8)^k µs: 126.0, 122.7, 119.9, 117.4, 115.2 (k = 1..5) are still
        // indications (cwnd stays 1, the phase restarts at each); 113.3 at k = 6 is not. The last
        // reaction is at 1250 + 500 µs, so the window is frozen until 1750 + 3·100 µs and grows
        // (slow start to ssthresh 2) with the ACK at 2050 µs.
        let (mut lp, mut t) = at_one_segment(1);
        let mut seen = vec![];
        for k in 1..=9 {
            let (cwnd, reductions, _) = ack(&mut lp, &mut t, 1, 1250 + 100 * k, 100);
            seen.push((cwnd, reductions));
        }
        assert_eq!(seen, vec![(1, 3), (1, 4), (1, 5), (1, 6), (1, 7), (1, 7), (1, 7), (2, 7), (2, 7)]);
    }

    #[test]
    fn the_rules_have_no_unit_of_time() {
        // The paper's rules are in RTTs (muting, inference time-out) and in fractions of the
        // delay range (δ), so running every time and delay on a clock k times faster — as the
        // host model's time dilation does for the kernel's clock — gives the same reactions.
        let trace = |k: u64| {
            let (mut lp, mut t) = at_one_segment(k);
            let mut out = vec![];
            for (now, d) in [(3350, 2100), (5450, 2100), (7550, 2100), (7650, 100), (7750, 100), (7850, 100), (8700, 150), (9000, 300)] {
                out.push(ack(&mut lp, &mut t, k, now, d));
            }
            (out, t.ssthresh, lp.inference_timeout().0 / k)
        };
        assert_eq!(trace(20), trace(1));
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
