//! LEDBAT (RFC 6817), ns-3 tcp-ledbat.cc flavour: per ACK
//! cwnd += GAIN·off_target·acked/cwnd with off_target = (TARGET − queuing_delay)/TARGET,
//! queuing_delay = current_delay − base_delay (current = min of the last CURRENT_FILTER = 4
//! samples, base = min seen), cwnd ≤ flight + ALLOWED_INCREASE, cwnd ≥ MIN_CWND = 2; slow start
//! only until the delay first exceeds TARGET or a loss occurs, and again after an RTO (ns-3
//! `DO_SLOWSTART` with its `LEDBAT_CAN_SS` flag); on loss cwnd halves (at least MIN_CWND).
//! Deviation: the delay is the RTT, not the timestamp one-way delay (no TCP timestamps in the
//! model): equal to the forward queuing delay while the ACK path does not queue. TARGET is a
//! parameter (`ledbat_target`, RFC default 100 ms) because datacenter RTTs are microseconds.

use super::{slow_start, CongestionOps, Tcb};
use crate::time::Time;

pub const GAIN: f64 = 1.0;
pub const MIN_CWND: f64 = 2.0;
pub const ALLOWED_INCREASE: f64 = 1.0;
pub const CURRENT_FILTER: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LedbatParams {
    pub target: Time,
    pub gain: f64,
    pub min_cwnd: f64,
}

impl Default for LedbatParams {
    fn default() -> Self {
        LedbatParams { target: Time::from_ms(100), gain: GAIN, min_cwnd: MIN_CWND }
    }
}

/// Scenario knobs (`cc_params`; the target also as `ledbat_target`), RFC 6817 §2.5.
pub const KNOBS: &[super::Knob] = &[
    super::Knob { name: "target_ms", default: 100.0, min: 0.0001, max: 1e6, help: "queuing-delay target TARGET in milliseconds" },
    super::Knob { name: "gain", default: GAIN, min: 0.0001, max: 1e3, help: "GAIN of the window update" },
    super::Knob { name: "min_cwnd", default: MIN_CWND, min: 1.0, max: 1e6, help: "smallest window, segments" },
];

impl LedbatParams {
    /// These parameters with the knobs set in a scenario.
    pub fn with_knobs(mut self, k: &super::Knobs) -> Self {
        if let Some(t) = k.0[0] {
            self.target = Time::from_ps((t * 1e9) as u64);
        }
        self.gain = k.0[1].unwrap_or(self.gain);
        self.min_cwnd = k.0[2].unwrap_or(self.min_cwnd);
        self
    }
}

#[derive(Clone, Debug)]
pub struct Ledbat {
    p: LedbatParams,
    base: Option<Time>,
    recent: [Time; CURRENT_FILTER],
    n: usize,
    cwnd: f64,
    /// Slow start is still allowed.
    can_ss: bool,
}

impl Ledbat {
    pub fn new(p: LedbatParams) -> Self {
        Ledbat { p, base: None, recent: [Time::ZERO; CURRENT_FILTER], n: 0, cwnd: 0.0, can_ss: true }
    }

    /// Current queuing-delay estimate.
    pub fn queuing_delay(&self) -> Option<Time> {
        let k = self.n.min(CURRENT_FILTER);
        if k == 0 {
            return None;
        }
        let current = self.recent[..k].iter().min().copied().unwrap();
        Some(current.saturating_sub(self.base?))
    }
}

impl CongestionOps for Ledbat {
    fn name(&self) -> &'static str {
        "ledbat"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        self.cwnd = 0.0;
        self.can_ss = false;
        ((tcb.cwnd as f64 / 2.0).max(self.p.min_cwnd)) as u32
    }
    fn pkts_acked(&mut self, _tcb: &mut Tcb, _acked: u32, rtt: Option<Time>) {
        if let Some(r) = rtt {
            self.base = Some(self.base.map_or(r, |b| b.min(r)));
            self.recent[self.n % CURRENT_FILTER] = r;
            self.n += 1;
        }
    }
    fn set_state(&mut self, _tcb: &mut Tcb, s: super::CaState) {
        if s == super::CaState::Loss {
            self.can_ss = true;
        }
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        let q = self.queuing_delay();
        if q.is_some_and(|q| q > self.p.target) {
            self.can_ss = false;
        }
        if self.can_ss && tcb.cwnd < tcb.ssthresh {
            if tcb.cwnd_limited {
                slow_start(tcb, acked);
            }
            return;
        }
        let Some(q) = q else { return };
        if self.cwnd < 1.0 || (self.cwnd.floor() as u32) != tcb.cwnd {
            self.cwnd = tcb.cwnd as f64; // resynchronise after the core changed cwnd
        }
        let target = self.p.target.0 as f64;
        let off_target = (target - q.0 as f64) / target;
        self.cwnd += self.p.gain * off_target * acked as f64 / self.cwnd;
        let flight = tcb.in_flight as f64 / tcb.mss as f64;
        self.cwnd = self.cwnd.min(flight + acked as f64 + ALLOWED_INCREASE).max(self.p.min_cwnd);
        tcb.cwnd = self.cwnd as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn grows_below_target_and_shrinks_above() {
        let mut l = Ledbat::new(LedbatParams { target: Time::from_us(100), ..Default::default() });
        let mut t = tcb(50, 10);
        t.in_flight = 50 * 1000;
        for _ in 0..4 {
            l.pkts_acked(&mut t, 1, Some(Time::from_us(100)));
        }
        // Queuing delay 0: off_target = 1 → +1/cwnd per ACK, ≈ +1 per window.
        for _ in 0..50 {
            l.cong_avoid(&mut t, 1);
        }
        assert_eq!(t.cwnd, 50, "one window of ACKs adds just under one segment");
        assert!(l.cwnd > 50.9 && l.cwnd < 51.0, "{}", l.cwnd);
        // Queuing delay 2·TARGET: off_target = −1 → shrink.
        for _ in 0..4 {
            l.pkts_acked(&mut t, 1, Some(Time::from_us(300)));
        }
        assert_eq!(l.queuing_delay(), Some(Time::from_us(200)));
        let before = l.cwnd;
        l.cong_avoid(&mut t, 1);
        assert!(l.cwnd < before);
    }
}
