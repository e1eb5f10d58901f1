//! TCP-NV (Brakmo; Linux ≥ 4.8 net/ipv4/tcp_nv.c), a datacenter Vegas successor: per ACK (Open or
//! Disorder) it averages the RTT with the previous average, estimates the delivery rate
//! in_flight/avg_rtt and keeps the round's maximum; once per round it computes the window that
//! fills the path, cwnd_by_slope = max_rate·min_rtt, and max_win = cwnd_by_slope + nv_pad. Above
//! max_win (after ≥ 2 rounds and enough samples) it stops growing, sets ssthresh = max_win and cuts
//! cwnd by 30 % of the excess (at least 2); at or below max_win − nv_pad_buffer it allows Reno
//! growth again. Loss: ssthresh = 0.8·cwnd. Deviations: the min-RTT window is reset every 5 s
//! exactly (Linux randomizes ×[0.75, 1.25)); no TSO-driven raise of the minimum window.

use super::{cong_avoid_ai, slow_start, CaState, CongestionOps, Tcb};
use crate::time::Time;

/// Linux module parameters (defaults).
pub const PAD: u32 = 10;
pub const PAD_BUFFER: u32 = 2;
pub const RESET_PERIOD: Time = Time::from_ms(5000);
pub const MIN_CWND: u32 = 2;
/// Decrease: 30 % of the excess over max_win.
pub const CONG_DEC_MULT: f64 = 0.3;
pub const LOSS_DEC_FACTOR: f64 = 0.8;
pub const DEC_EVAL_MIN_CALLS: u32 = 60;
pub const INC_EVAL_MIN_CALLS: u32 = 20;
pub const SSTHRESH_EVAL_MIN_CALLS: u32 = 30;
pub const STOP_RTT_CNT: u32 = 10;
pub const RTT_MIN_CNT: u32 = 2;

#[derive(Clone, Debug)]
pub struct Nv {
    p: NvParams,
    allow_growth: bool,
    last_rtt: Option<Time>,
    min_rtt: Option<Time>,
    min_rtt_new: Option<Time>,
    min_rtt_reset_at: Time,
    /// Bytes per second.
    rtt_max_rate: f64,
    rtt_start_seq: u64,
    rtt_cnt: u32,
    eval_call_cnt: u32,
    reset: bool,
    pub decreases: u64,
}

/// Scenario knobs (`cc_params`), Linux tcp_nv module parameters.
pub const KNOBS: &[super::Knob] = &[
    super::Knob { name: "pad", default: PAD as f64, min: 0.0, max: 1e6, help: "segments allowed above the rate-times-min-RTT window" },
    super::Knob { name: "pad_buffer", default: PAD_BUFFER as f64, min: 0.0, max: 1e6, help: "grow only this far below that window" },
    super::Knob { name: "min_cwnd", default: MIN_CWND as f64, min: 1.0, max: 1e6, help: "smallest window after a decrease" },
    super::Knob { name: "cong_dec_mult", default: CONG_DEC_MULT, min: 0.0, max: 1.0, help: "fraction of the excess cut per decrease" },
    super::Knob { name: "loss_dec_factor", default: LOSS_DEC_FACTOR, min: 0.01, max: 1.0, help: "cwnd kept after a loss" },
];

/// NV's tunable constants (the knobs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NvParams {
    pub pad: u32,
    pub pad_buffer: u32,
    pub min_cwnd: u32,
    pub cong_dec_mult: f64,
    pub loss_dec_factor: f64,
}

impl Nv {
    pub fn with_knobs(k: &super::Knobs) -> Self {
        let p = NvParams {
            pad: k.get(KNOBS, 0) as u32,
            pad_buffer: k.get(KNOBS, 1) as u32,
            min_cwnd: k.get(KNOBS, 2) as u32,
            cong_dec_mult: k.get(KNOBS, 3),
            loss_dec_factor: k.get(KNOBS, 4),
        };
        Nv { p, ..Nv::default() }
    }
}

impl Default for Nv {
    fn default() -> Self {
        Nv {
            p: NvParams { pad: PAD, pad_buffer: PAD_BUFFER, min_cwnd: MIN_CWND, cong_dec_mult: CONG_DEC_MULT, loss_dec_factor: LOSS_DEC_FACTOR },
            allow_growth: true,
            last_rtt: None,
            min_rtt: None,
            min_rtt_new: None,
            min_rtt_reset_at: RESET_PERIOD,
            rtt_max_rate: 0.0,
            rtt_start_seq: 0,
            rtt_cnt: 0,
            eval_call_cnt: 0,
            reset: false,
            decreases: 0,
        }
    }
}

impl Nv {
    fn reset_round_state(&mut self, tcb: &Tcb) {
        self.rtt_cnt = 0;
        self.last_rtt = None;
        self.rtt_max_rate = 0.0;
        self.rtt_start_seq = tcb.snd_una;
        self.eval_call_cnt = 0;
        self.reset = false;
    }
}

impl CongestionOps for Nv {
    fn name(&self) -> &'static str {
        "nv"
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.reset_round_state(tcb);
        self.min_rtt_reset_at = tcb.now + RESET_PERIOD;
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        ((tcb.cwnd as f64 * self.p.loss_dec_factor) as u32).max(2)
    }
    fn set_state(&mut self, tcb: &mut Tcb, s: CaState) {
        match s {
            CaState::Open if self.reset => self.reset_round_state(tcb),
            CaState::Recovery | CaState::Loss => {
                self.reset = true;
                self.allow_growth = false;
            }
            _ => {}
        }
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        if self.reset {
            // Back in Open after a reduction (Linux resets on the state change).
            self.reset_round_state(tcb);
            self.allow_growth = true;
        }
        if !tcb.cwnd_limited || !self.allow_growth {
            return;
        }
        let mut acked = acked;
        if tcb.cwnd < tcb.ssthresh {
            acked = slow_start(tcb, acked);
            if acked == 0 {
                return;
            }
        }
        let w = tcb.cwnd.max(4);
        cong_avoid_ai(tcb, w, acked);
    }
    fn pkts_acked(&mut self, tcb: &mut Tcb, _acked: u32, rtt: Option<Time>) {
        let Some(r) = rtt else { return };
        let avg = match self.last_rtt {
            Some(l) => Time((r.0 + l.0) / 2),
            None => r,
        };
        self.last_rtt = Some(avg);
        if avg.0 == 0 {
            return;
        }
        let rate = tcb.in_flight as f64 / avg.secs_f64();
        self.rtt_max_rate = self.rtt_max_rate.max(rate);
        self.eval_call_cnt = (self.eval_call_cnt + 1).min(255);
        self.min_rtt = Some(self.min_rtt.map_or(avg, |m| m.min(avg)));
        self.min_rtt_new = Some(self.min_rtt_new.map_or(avg, |m| m.min(avg)));
        if tcb.now >= self.min_rtt_reset_at {
            self.min_rtt = self.min_rtt_new.take();
            self.min_rtt_reset_at = tcb.now + RESET_PERIOD;
        }
        if tcb.snd_una <= self.rtt_start_seq {
            return; // not a new round yet
        }
        self.rtt_start_seq = tcb.snd_nxt;
        self.rtt_cnt = (self.rtt_cnt + 1).min(255);
        if self.eval_call_cnt < RTT_MIN_CNT {
            return;
        }
        let min_rtt = self.min_rtt.unwrap_or(avg).secs_f64();
        let cwnd_by_slope = (self.rtt_max_rate * min_rtt / tcb.mss as f64) as u32;
        let max_win = cwnd_by_slope + self.p.pad;
        if tcb.cwnd > max_win {
            if self.rtt_cnt < RTT_MIN_CNT {
                return;
            } else if tcb.ssthresh == u32::MAX {
                if self.eval_call_cnt < SSTHRESH_EVAL_MIN_CALLS {
                    return;
                }
            } else if self.eval_call_cnt < DEC_EVAL_MIN_CALLS {
                if self.allow_growth && self.rtt_cnt > STOP_RTT_CNT {
                    self.allow_growth = false;
                }
                return;
            }
            // Congested: stop growing and cut part of the excess.
            self.allow_growth = false;
            tcb.ssthresh = max_win;
            let gap = tcb.cwnd - max_win;
            if gap > 2 {
                let dec = ((gap as f64 * self.p.cong_dec_mult) as u32).max(2);
                tcb.cwnd -= dec;
            } else {
                tcb.cwnd = max_win;
            }
            self.decreases += 1;
        } else if tcb.cwnd + self.p.pad_buffer <= max_win {
            if self.eval_call_cnt < INC_EVAL_MIN_CALLS {
                return;
            }
            self.allow_growth = true;
        } else {
            return; // in between: hold
        }
        self.eval_call_cnt = 0;
        self.rtt_cnt = 0;
        self.rtt_max_rate = 0.0;
        tcb.cwnd = tcb.cwnd.max(self.p.min_cwnd);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    /// Feed `calls` ACKs of one round at rtt with `inflight` segments, then close the round.
    fn round(nv: &mut Nv, t: &mut Tcb, calls: u32, rtt_us: u64, inflight: u64) {
        t.in_flight = inflight * t.mss as u64;
        for _ in 0..calls {
            nv.pkts_acked(t, 1, Some(Time::from_us(rtt_us)));
        }
        t.snd_una = nv.rtt_start_seq + 1;
        t.snd_nxt = t.snd_una + 100_000;
        nv.pkts_acked(t, 1, Some(Time::from_us(rtt_us)));
    }

    #[test]
    fn cuts_thirty_percent_of_the_excess_over_the_path_window() {
        // Path: 100 segments in flight at 100 µs → rate 1000 B·100/100 µs; min RTT 100 µs ⇒
        // cwnd_by_slope = 100, max_win = 110. cwnd 210 in congestion avoidance: cut 0.3·100 = 30.
        let mut nv = Nv::default();
        let mut t = tcb(210, 150);
        nv.init(&mut t);
        round(&mut nv, &mut t, 70, 100, 100);
        round(&mut nv, &mut t, 70, 100, 100);
        round(&mut nv, &mut t, 70, 100, 100);
        assert_eq!(nv.decreases, 1);
        assert_eq!((t.cwnd, t.ssthresh), (180, 110));
        assert!(!nv.allow_growth);
    }

    #[test]
    fn allows_growth_when_well_below_the_path_window() {
        let mut nv = Nv::default();
        let mut t = tcb(50, 40);
        nv.init(&mut t);
        nv.allow_growth = false;
        round(&mut nv, &mut t, 30, 100, 100);
        round(&mut nv, &mut t, 30, 100, 100);
        assert!(nv.allow_growth);
        assert_eq!(nv.decreases, 0);
    }

    #[test]
    fn loss_keeps_eighty_percent() {
        let mut nv = Nv::default();
        assert_eq!(nv.ssthresh(&tcb(100, 50)), 80);
    }
}
