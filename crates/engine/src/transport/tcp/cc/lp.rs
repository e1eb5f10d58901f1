//! TCP-LP (Kuzmanovic & Knightly, INFOCOM 2003), modelled on Linux tcp_lp.c: a low-priority
//! scavenger. Smoothed one-way delay sowd (EWMA 7/8) against owd_min + 15 %·(owd_max − owd_min):
//! above it is "early congestion": cwnd halves, or drops to 1 if within the inference period
//! (3 × the delay since the previous early reduction), and owd_min/max restart from sowd; growth is
//! Reno and frozen during the inference period; loss is Reno.
//! Deviations: the delay is the RTT sample, not the timestamp one-way delay (no TCP timestamps in
//! the model), so reverse-path queuing counts too; no signal before a min–max range exists (Linux
//! waits for valid timestamps). At cwnd = 1 a receiver that delays ACKs holds the lone segment's
//! ACK for its timeout (Linux: ≥ 40 ms) — LP's stall there is the protocol's, not the model's.

use super::{reno_cong_avoid, reno_ssthresh, CongestionOps, Tcb};
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
    last_drop: Option<Time>,
    inference: Time,
    within_inference: bool,
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
            inference: Time::ZERO,
            within_inference: false,
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

impl CongestionOps for Lp {
    fn name(&self) -> &'static str {
        "lp"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        reno_ssthresh(tcb)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        if !self.within_inference {
            reno_cong_avoid(tcb, acked);
        }
    }
    fn pkts_acked(&mut self, tcb: &mut Tcb, _acked: u32, rtt: Option<Time>) {
        let Some(r) = rtt else { return };
        self.sample(r.0);
        self.inference = r.times(3);
        self.within_inference = self.last_drop.is_some_and(|d| tcb.now - d < self.inference);
        let sowd = self.sowd8 >> 3;
        if self.owd_max <= self.owd_min || sowd < self.owd_min + self.threshold * (self.owd_max - self.owd_min) / 100 {
            return;
        }
        // Early congestion: restart the range and back off.
        self.owd_min = sowd;
        self.owd_max = self.sowd8 >> 2;
        tcb.cwnd = if self.within_inference { 1 } else { (tcb.cwnd >> 1).max(1) };
        self.last_drop = Some(tcb.now);
        self.early_reductions += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn early_congestion_halves_then_drops_to_one_within_inference() {
        let mut lp = Lp::default();
        let mut t = tcb(64, 10);
        // A calibrating range 100..200 µs, then a flat 100 µs: below threshold, no reduction.
        lp.pkts_acked(&mut t, 1, Some(Time::from_us(200)));
        lp.sowd8 = 0;
        for _ in 0..20 {
            lp.pkts_acked(&mut t, 1, Some(Time::from_us(100)));
        }
        assert_eq!((t.cwnd, lp.early_reductions), (64, 0));
        // The delay climbs well above min + 15 % of the range: halve.
        t.now = Time::from_ms(1);
        for _ in 0..10 {
            lp.pkts_acked(&mut t, 1, Some(Time::from_us(190)));
            if lp.early_reductions > 0 {
                break;
            }
        }
        assert_eq!((t.cwnd, lp.early_reductions), (32, 1));
        // Again within 3 × RTT of that reduction: down to one segment, and growth is frozen.
        t.now = Time::from_ms(1) + Time::from_us(300);
        for _ in 0..50 {
            lp.pkts_acked(&mut t, 1, Some(Time::from_us(400)));
            if lp.early_reductions > 1 {
                break;
            }
        }
        assert_eq!(t.cwnd, 1);
        lp.cong_avoid(&mut t, 5);
        assert_eq!(t.cwnd, 1, "no growth within the inference period");
    }
}
