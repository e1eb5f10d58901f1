//! BBR v1 (Cardwell et al., ACM Queue 2016; draft-cardwell-iccrg-bbr-congestion-control-00),
//! modelled on Linux tcp_bbr.c: a model of the path — BtlBw, the windowed maximum of delivery-rate
//! samples over 10 rounds, and RTprop, the windowed minimum RTT over 10 s — sets the pacing rate
//! (pacing_gain·BtlBw·0.99) and cwnd (cwnd_gain·BDP + 3 segments of send quantum, ns-3's choice).
//! Modes: STARTUP (gain 2/ln 2 until BtlBw stops growing 25 % for 3 rounds), DRAIN (1/2.885 until
//! inflight ≤ BDP), PROBE_BW (pacing gains 1.25, 0.75, 1 ×6 over phases of one RTprop, entered at a
//! random phase other than 0.75), PROBE_RTT (cwnd 4 for 200 ms and one round when RTprop is 10 s
//! old). Loss recovery: packet conservation in the first round, restore the saved cwnd after.
//! Deviations: no long-term (policer) bandwidth model, no ACK-aggregation (extra_acked) term, no
//! idle-restart handling; the send quantum is 3 segments (ns-3) rather than Linux's TSO goal.

use super::{CaState, CongestionOps, RateSample, Tcb};
use crate::rng::Rng;
use crate::time::Time;
use std::collections::VecDeque;

pub const HIGH_GAIN: f64 = 2.885; // 2/ln 2 (Linux 739/256)
#[allow(dead_code)] // DRAIN runs at 1/high_gain; the tests check it against this
pub const DRAIN_GAIN: f64 = 1.0 / HIGH_GAIN;
pub const CWND_GAIN: f64 = 2.0;
pub const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
pub const BW_ROUNDS: u64 = 10;
pub const MIN_RTT_WINDOW: Time = Time::from_ms(10_000);
pub const PROBE_RTT_TIME: Time = Time::from_ms(200);
pub const MIN_CWND: u32 = 4;
pub const FULL_BW_THRESH: f64 = 1.25;
pub const FULL_BW_COUNT: u32 = 3;
pub const PACING_MARGIN: f64 = 0.01;
pub const SEND_QUANTUM: u32 = 3;

/// Scenario knobs (`cc_params`).
pub const KNOBS: &[super::Knob] = &[
    super::Knob { name: "high_gain", default: HIGH_GAIN, min: 1.0, max: 100.0, help: "STARTUP pacing and cwnd gain (DRAIN uses its inverse)" },
    super::Knob { name: "cwnd_gain", default: CWND_GAIN, min: 1.0, max: 100.0, help: "PROBE_BW cwnd gain (cwnd = gain x BDP)" },
    super::Knob { name: "probe_rtt_ms", default: PROBE_RTT_TIME.0 as f64 / 1e9, min: 0.001, max: 1e6, help: "time spent in PROBE_RTT" },
    super::Knob { name: "min_rtt_window_s", default: MIN_RTT_WINDOW.0 as f64 / 1e12, min: 0.001, max: 1e6, help: "RTprop expires after this long" },
];

/// BBR's tunable constants (the knobs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BbrParams {
    pub high_gain: f64,
    pub cwnd_gain: f64,
    pub probe_rtt_time: Time,
    pub min_rtt_window: Time,
}

impl BbrParams {
    pub fn from_knobs(k: &super::Knobs) -> Self {
        BbrParams {
            high_gain: k.get(KNOBS, 0),
            cwnd_gain: k.get(KNOBS, 1),
            probe_rtt_time: Time::from_ps((k.get(KNOBS, 2) * 1e9) as u64),
            min_rtt_window: Time::from_ps((k.get(KNOBS, 3) * 1e12) as u64),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    p: BbrParams,
    rng: Rng,
    pub mode: Mode,
    /// (round, delivery rate in segments/s): the max over the last BW_ROUNDS rounds is BtlBw.
    bw: VecDeque<(u64, f64)>,
    round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    cycle_idx: usize,
    cycle_stamp: Time,
    full_bw: f64,
    full_bw_cnt: u32,
    pub full_bw_reached: bool,
    prior_cwnd: u32,
    packet_conservation: bool,
    prev_ca_state: CaState,
    pub pacing_gain: f64,
    cwnd_gain: f64,
    delivered: u64,
}

impl Bbr {
    pub fn new(seed: u64) -> Self {
        Self::with_knobs(seed, &super::Knobs::default())
    }

    pub fn with_knobs(seed: u64, k: &super::Knobs) -> Self {
        let p = BbrParams::from_knobs(k);
        Bbr {
            p,
            rng: Rng::new(seed),
            mode: Mode::Startup,
            bw: VecDeque::new(),
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            cycle_idx: 0,
            cycle_stamp: Time::ZERO,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            prior_cwnd: 0,
            packet_conservation: false,
            prev_ca_state: CaState::Open,
            pacing_gain: p.high_gain,
            cwnd_gain: p.high_gain,
            delivered: 0,
        }
    }

    /// BtlBw in segments per second.
    pub fn max_bw(&self) -> f64 {
        self.bw.iter().map(|&(_, b)| b).fold(0.0, f64::max)
    }

    /// BDP × gain in segments (Linux bbr_bdp), or None before an RTT sample.
    fn bdp(&self, gain: f64) -> Option<u32> {
        let m = self.min_rtt?;
        Some((gain * self.max_bw() * m.secs_f64()).ceil() as u32)
    }

    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let Some(rate) = rs.rate() else { return };
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = self.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        if !rs.is_app_limited || rate >= self.max_bw() {
            // Windowed max over BW_ROUNDS rounds (Linux minmax_running_max).
            while self.bw.front().is_some_and(|&(r, _)| r + BW_ROUNDS <= self.round_count) {
                self.bw.pop_front();
            }
            while self.bw.back().is_some_and(|&(_, b)| b <= rate) {
                self.bw.pop_back();
            }
            self.bw.push_back((self.round_count, rate));
        }
    }

    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw = self.max_bw();
        if bw >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = bw;
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_COUNT;
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        // A random phase other than the 0.75 one (Linux: CYCLE_LEN − 1 − rand(CYCLE_LEN − 1)).
        self.cycle_idx = 8 - 1 - self.rng.below(7) as usize;
        self.advance_cycle_phase(now);
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE.len();
        self.cycle_stamp = now;
    }

    fn is_next_cycle_phase(&self, tcb: &Tcb, rs: &RateSample) -> bool {
        let full_length = tcb.now - self.cycle_stamp > self.min_rtt.unwrap_or(Time::ZERO);
        let gain = CYCLE[self.cycle_idx];
        let inflight = (tcb.in_flight / tcb.mss as u64) as u32;
        if gain == 1.0 {
            full_length
        } else if gain > 1.0 {
            full_length && (rs.losses > 0 || self.bdp(gain).is_some_and(|b| inflight >= b))
        } else {
            full_length || self.bdp(1.0).is_some_and(|b| inflight <= b)
        }
    }

    fn save_cwnd(&mut self, tcb: &Tcb) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = tcb.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(tcb.cwnd);
        }
    }

    fn update_min_rtt(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        let expired = tcb.now > self.min_rtt_stamp + self.p.min_rtt_window;
        if let Some(r) = rs.rtt {
            if self.min_rtt.is_none_or(|m| r < m) || expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = tcb.now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt && self.min_rtt.is_some() {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(tcb);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            let inflight = (tcb.in_flight / tcb.mss as u64) as u32;
            match self.probe_rtt_done {
                None if inflight <= MIN_CWND => {
                    self.probe_rtt_done = Some(tcb.now + self.p.probe_rtt_time);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = self.delivered;
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && tcb.now > done {
                        self.min_rtt_stamp = tcb.now;
                        tcb.cwnd = tcb.cwnd.max(self.prior_cwnd);
                        if self.full_bw_reached {
                            self.enter_probe_bw(tcb.now);
                        } else {
                            self.mode = Mode::Startup;
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.p.high_gain, self.p.high_gain),
            Mode::Drain => (1.0 / self.p.high_gain, self.p.high_gain),
            Mode::ProbeBw => (CYCLE[self.cycle_idx], self.p.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// Linux bbr_set_cwnd_to_recover_or_restore: returns the window to use, if recovery decides it.
    fn recover_or_restore(&mut self, tcb: &mut Tcb, rs: &RateSample) -> Option<u32> {
        let state = tcb.ca_state;
        let inflight = (tcb.in_flight / tcb.mss as u64) as u32;
        let acked = rs.acked_sacked;
        let mut cwnd = tcb.cwnd;
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        if state == CaState::Recovery && self.prev_ca_state != CaState::Recovery {
            self.packet_conservation = true;
            self.next_round_delivered = self.delivered;
            cwnd = inflight + acked;
        } else if self.prev_ca_state >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return Some(cwnd.max(inflight + acked));
        }
        tcb.cwnd = cwnd;
        None
    }

    fn set_cwnd(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        let acked = rs.acked_sacked;
        if acked > 0 {
            if let Some(c) = self.recover_or_restore(tcb, rs) {
                tcb.cwnd = c;
            } else if let Some(bdp) = self.bdp(self.cwnd_gain) {
                let mut target = bdp + SEND_QUANTUM;
                target = (target + 1) & !1;
                if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
                    target += 2;
                }
                if self.full_bw_reached {
                    tcb.cwnd = (tcb.cwnd + acked).min(target);
                } else if tcb.cwnd < target || self.delivered < 10 {
                    tcb.cwnd += acked;
                }
            } else {
                tcb.cwnd += acked;
            }
            tcb.cwnd = tcb.cwnd.max(MIN_CWND);
        }
        if self.mode == Mode::ProbeRtt {
            tcb.cwnd = tcb.cwnd.min(MIN_CWND);
        }
    }

    fn set_pacing_rate(&mut self, tcb: &mut Tcb) {
        let bw = self.max_bw();
        let rate = if bw > 0.0 {
            self.pacing_gain * bw * (1.0 - PACING_MARGIN)
        } else {
            // Before the first sample: high_gain · cwnd / SRTT (1 ms if none), Linux bbr_init_pacing_rate_from_rtt.
            let srtt = tcb.srtt.unwrap_or(Time::from_ms(1)).secs_f64();
            self.p.high_gain * tcb.cwnd as f64 / srtt
        };
        // Never lower the rate before the pipe is known to be full.
        if self.full_bw_reached || tcb.pacing_rate.is_none_or(|r| rate > r) {
            tcb.pacing_rate = Some(rate);
        }
    }
}

impl CongestionOps for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.min_rtt = tcb.srtt; // the handshake sample, when seeded
        self.min_rtt_stamp = tcb.now;
        self.cycle_stamp = tcb.now;
        self.set_pacing_rate(tcb);
    }
    fn owns_cwnd(&self) -> bool {
        true
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        self.save_cwnd(tcb);
        tcb.ssthresh
    }
    fn cong_avoid(&mut self, _tcb: &mut Tcb, _acked: u32) {}
    fn set_state(&mut self, _tcb: &mut Tcb, s: CaState) {
        if s == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0.0;
            self.round_start = true;
        }
    }
    fn cong_control(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        self.delivered += rs.acked_sacked as u64;
        self.update_bw(rs);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(tcb, rs) {
            self.advance_cycle_phase(tcb.now);
        }
        self.check_full_bw_reached(rs);
        let inflight = (tcb.in_flight / tcb.mss as u64) as u32;
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            if let Some(b) = self.bdp(1.0) {
                tcb.ssthresh = b;
            }
        }
        if self.mode == Mode::Drain && self.bdp(1.0).is_some_and(|b| inflight <= b) {
            self.enter_probe_bw(tcb.now);
        }
        self.update_min_rtt(tcb, rs);
        self.update_gains();
        self.set_pacing_rate(tcb);
        self.set_cwnd(tcb, rs);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    fn sample(delivered: u64, interval_us: u64, prior: u64, rtt_us: u64) -> RateSample {
        RateSample {
            delivered,
            interval: Time::from_us(interval_us),
            prior_delivered: prior,
            acked_sacked: 10,
            rtt: Some(Time::from_us(rtt_us)),
            ..RateSample::default()
        }
    }

    #[test]
    fn startup_exits_after_three_rounds_without_growth_then_drains_to_probe_bw() {
        // draft-cardwell-iccrg-bbr-congestion-control ("full pipe" estimate): STARTUP ends 3 rounds after BtlBw stops growing by 25 %.
        let mut b = Bbr::new(1);
        let mut t = tcb(10, u32::MAX);
        b.init(&mut t);
        // Rounds with doubling bandwidth: stays in STARTUP.
        let mut prior = 0;
        t.in_flight = 1000 * t.mss as u64; // a full pipe: DRAIN must wait for it to empty
        for k in 0..5u64 {
            t.now = Time::from_us(100 * (k + 1));
            b.cong_control(&mut t, &sample(10 << k, 100, prior, 100));
            prior = b.delivered;
        }
        assert_eq!(b.mode, Mode::Startup);
        // The rate stops growing (stays at 160 segments per 100 µs) for three rounds: full pipe.
        for k in 0..3u64 {
            t.now = Time::from_us(1000 + 100 * k);
            b.cong_control(&mut t, &sample(160, 100, prior, 100));
            prior = b.delivered;
        }
        assert!(b.full_bw_reached);
        assert_eq!(b.mode, Mode::Drain);
        assert!((b.pacing_gain - DRAIN_GAIN).abs() < 1e-12);
        // BDP = 1.6 M seg/s · 100 µs = 160 segments; with inflight ≤ BDP it moves to PROBE_BW.
        t.in_flight = 150 * t.mss as u64;
        t.now = Time::from_us(2000);
        b.cong_control(&mut t, &sample(10, 100, prior, 100));
        assert_eq!(b.mode, Mode::ProbeBw);
        assert_ne!(b.cycle_idx, 1, "never enters at the 0.75 phase");
    }

    #[test]
    fn cwnd_target_is_two_bdp_plus_quantum() {
        let mut b = Bbr::new(2);
        let mut t = tcb(100, u32::MAX);
        b.bw.push_back((0, 100_000.0)); // 100 000 segments/s
        b.min_rtt = Some(Time::from_us(200)); // BDP = 20 segments
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        b.cycle_idx = 2;
        b.update_gains();
        b.set_cwnd(&mut t, &RateSample { acked_sacked: 5, ..RateSample::default() });
        assert_eq!(t.cwnd, 2 * 20 + 3 + 1); // 43 rounded up to even = 44
        b.set_pacing_rate(&mut t);
        assert!((t.pacing_rate.unwrap() - 100_000.0 * 0.99).abs() < 1e-6);
    }

    #[test]
    fn probe_rtt_after_ten_seconds_caps_cwnd_at_four() {
        let mut b = Bbr::new(3);
        let mut t = tcb(100, u32::MAX);
        b.bw.push_back((0, 100_000.0));
        b.min_rtt = Some(Time::from_us(100));
        b.full_bw_reached = true;
        b.mode = Mode::ProbeBw;
        t.now = Time::from_ms(10_001);
        t.in_flight = 50 * t.mss as u64;
        b.cong_control(&mut t, &sample(10, 1000, 0, 150));
        assert_eq!(b.mode, Mode::ProbeRtt);
        assert_eq!(t.cwnd, MIN_CWND);
    }
}
