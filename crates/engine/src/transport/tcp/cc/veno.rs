//! TCP Veno (Fu & Liew, JSAC 2003), modelled on Linux tcp_veno.c: the backlog estimate
//! N = cwnd·(RTT − BaseRTT)/RTT (BaseRTT = smallest RTT seen, RTT = smallest since the last ACK
//! processed) decides both growth and back-off: below β = 3 packets it is Reno (+1/RTT) and a loss
//! is taken as random (ssthresh = 4/5·cwnd); at or above β growth halves (+1 every other RTT) and
//! a loss is congestive (ssthresh = cwnd/2). Fewer than 3 RTT samples: Reno.

use super::{reno_cong_avoid, slow_start, CongestionOps, RoundRtt, Tcb};
use crate::time::Time;

pub const BETA: f64 = 3.0;

/// Scenario knobs (`cc_params`), Linux tcp_veno's `beta`.
pub const KNOBS: &[super::Knob] =
    &[super::Knob { name: "beta", default: BETA, min: 0.0, max: 1e6, help: "backlog (packets) separating random from congestive loss" }];

#[derive(Clone, Debug)]
pub struct Veno {
    rtt: RoundRtt,
    diff: f64,
    inc: bool,
    beta: f64,
}

impl Default for Veno {
    fn default() -> Self {
        Veno { rtt: RoundRtt::default(), diff: 0.0, inc: false, beta: BETA }
    }
}

impl Veno {
    pub fn with_knobs(k: &super::Knobs) -> Self {
        Veno { beta: k.get(KNOBS, 0), ..Veno::default() }
    }

    /// Backlog estimate in packets.
    pub fn backlog(&self) -> f64 {
        self.diff
    }
}

impl CongestionOps for Veno {
    fn name(&self) -> &'static str {
        "veno"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        if self.diff < self.beta {
            (tcb.cwnd * 4 / 5).max(2)
        } else {
            (tcb.cwnd / 2).max(2)
        }
    }
    fn pkts_acked(&mut self, _tcb: &mut Tcb, _acked: u32, rtt: Option<Time>) {
        self.rtt.sample(rtt);
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        // Linux counts samples since the connection began (cntrtt is never reset) but takes the
        // minimum since the previous call.
        let (Some(base), Some(rtt), true) = (self.rtt.base, self.rtt.min, self.rtt.count > 2) else {
            return reno_cong_avoid(tcb, acked);
        };
        let cwnd = tcb.cwnd as f64;
        let target = cwnd * base.0 as f64 / rtt.0 as f64;
        self.diff = cwnd - target;
        if tcb.cwnd_limited {
            if tcb.cwnd < tcb.ssthresh {
                slow_start(tcb, acked);
            } else if self.diff < self.beta {
                super::cong_avoid_ai(tcb, tcb.cwnd, acked);
            } else if tcb.cwnd_cnt >= tcb.cwnd {
                // Heavy backlog: +1 every other RTT.
                if self.inc {
                    tcb.cwnd += 1;
                    self.inc = false;
                } else {
                    self.inc = true;
                }
                tcb.cwnd_cnt = 0;
            } else {
                tcb.cwnd_cnt += acked;
            }
        }
        self.rtt.min = None; // the next ACK starts a new measurement (Linux "wipe the slate")
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn backlog_decides_the_backoff() {
        let mut v = Veno::default();
        let mut t = tcb(100, 50);
        for _ in 0..3 {
            v.pkts_acked(&mut t, 1, Some(Time::from_us(99)));
        }
        // RTT = BaseRTT: N = 0 → random loss → 4/5.
        v.cong_avoid(&mut t, 1);
        assert!(v.backlog().abs() < 1e-9);
        assert_eq!(v.ssthresh(&t), 80);
        // RTT 110 µs vs base 100 µs: N = 100·(1 − 100/110) ≈ 9.1 ≥ 3 → congestive → 1/2.
        v.pkts_acked(&mut t, 1, Some(Time::from_us(109)));
        t.cwnd = 100;
        v.cong_avoid(&mut t, 1);
        assert!((v.backlog() - 100.0 * (1.0 - 100.0 / 110.0)).abs() < 0.01, "{}", v.backlog());
        assert_eq!(v.ssthresh(&t), 50);
    }
}
