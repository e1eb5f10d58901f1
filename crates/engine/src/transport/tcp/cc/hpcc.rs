//! HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, §3, Algorithm 1).
//!
//! Every data packet collects in-band telemetry (INT) at each egress it leaves (queue length,
//! cumulative transmitted bytes, time stamp, line rate: `switch::telemetry`) and every ACK echoes
//! it (§3.2). Per ACK the sender computes, for each hop j, the normalized inflight
//! U_j = qlen_j/(B_j·T) + txRate_j/B_j, with qlen the smaller of the two latest queue reports and
//! txRate from the byte counters of two consecutive records of the same hop; it keeps the most
//! loaded hop's value u and smooths it over one base RTT T: U ← (1 − τ/T)·U + (τ/T)·u, τ the
//! interval between the two records of that hop (capped at T) (MeasureInflight, §3.2–3.3).
//! ComputeWind (§3.3): if U ≥ η or maxStage additive steps have been taken,
//! W = W_c/(U/η) + W_AI, else W = W_c + W_AI; the reference window W_c becomes W once per RTT
//! (when the ACK passes the snd_nxt of the last update) and the additive-step counter resets with
//! a multiplicative update. The sender paces at R = W/T and keeps the bytes in flight within W.
//!
//! Units and choices of this model:
//! - W, W_c and W_AI are bytes on the wire (payload + header, as INT's byte counters count);
//!   the TCP core's window is in segments: cwnd = ⌈W / segment⌉, so a segment may leave while
//!   the bytes in flight are below W; pacing is W/T bytes per second.
//! - W_init = B_nic·T (§3.3); T is the flow's idle-path RTT of a full segment (a global T can be
//!   set with `t_us`, as the paper uses one T for the whole fabric); W is kept within
//!   [W_AI, W_init] (W ≥ W_AI holds by construction), and W_c takes the clamped W. The bound is
//!   ours; `w_max_bytes` sets another (htsim's HPCCSrc has none, so with its T = 12 µs below a
//!   path's RTT its W grows past B·T: docs/VALIDATION.md).
//! - A change of path (the hops' ports differ) restarts the per-hop history, like the paper's
//!   path ID. A hop whose new record is not newer than the last gives no rate sample.
//! - Loss recovery is the TCP core's (RFC 6675 SACK, RACK, TLP, RTO), not the go-back-N of the
//!   authors' RDMA simulator; a loss does not cut W (HPCC has no loss response; the authors'
//!   network is lossless with PFC). After an RTO the core's cwnd of 1 lasts until the next ACK.
//! - INT header bytes are not added to packets.
//!
//! Eight knobs model where htsim's `HPCCSrc` (csg-htsim 841d9e7, `sim/hpcc.cpp`) departs from
//! Algorithm 1, each on its own (`HtsimRules`; defaults are Algorithm 1 as above):
//! `reference_update = "per_ack"` (`processAck` stores every ACK's W in `_cwnd`, which
//! `computeWind` reads as W_c), `int_reference = "first"` (`measureInFlight` sets `_link_info`
//! only when a path's hop count changes), `tau_ratio = "integer"` (τ/T divides picoseconds:
//! 0 below T, 1 from T), `u_init` (the constructor's `_U = _eta`), `unmeasured_ack = "update"`
//! (an ACK with no earlier record still runs `computeWind` on the current U; `_last_update_seq`
//! starts at 0), `int_queue = "with_packet"` (`LosslessOutputQueue::completeService` records
//! the queue before taking the leaving packet off it), `int_hops = "switches"` (the host's queue
//! records nothing) and `window_rounding = "down"` (`doNextEvent` sends only while a whole
//! packet fits in W). A ninth, `int_record = "end"`, is the switches' side: each egress records
//! the data packet's hop as its last bit leaves (`completeService`), not as it starts
//! (`Int::CollectAtEnd`, `switch/telemetry.rs`). A tenth, `send_timing = "tick"`, is htsim's
//! source timer: a packet leaves only on a tick every `_packet_spacing` = T × packet / W,
//! recomputed per ACK, so one the window allows waits for the next tick (`doNextEvent`;
//! `send_tick.rs`). `window_rounding = "sequence"` takes `doNextEvent`'s rule whole: `_cwnd` is a
//! `seq_t` of payload bytes, so W holds ⌊W/payload⌋ packets (`_flightsize += _mss`, while the
//! timer's period counts the packet on the wire) and each W is truncated to whole bytes. An
//! eleventh, `u_arithmetic = "htsim"`, computes each hop's u in `measureInFlight`'s units and
//! order (bits·10¹² over integer picoseconds): exact for whole packets at line rate, so hops that
//! carry the same rate tie and the first keeps τ, where bytes over seconds can round the tie to a
//! later hop (and its τ).

use super::send_tick::{htsim_period, SendTick};
use super::{CongestionOps, Knob, Knobs, RateSample, Tcb};
use crate::switch::telemetry::{IntHop, IntRecord};
use crate::time::Time;
use crate::transport::PathInfo;
use crate::transport::ports::{drop_tail, Needs, PaperPorts, PortSetup};

/// η, the target utilization (§3.3, §5.1: 95 %).
pub const ETA: f64 = 0.95;
/// maxStage, additive steps before a multiplicative update (§3.3, §5.1: 5).
pub const MAX_STAGE: u32 = 5;
/// N in W_AI = W_init·(1 − η)/N (§3.3): with N = 100, 100 Gb/s and T = 13 µs this gives the
/// paper's W_AI ≈ 80 B (§5.1).
pub const AI_FLOWS: f64 = 100.0;

/// Scenario knobs (`cc_params`).
pub const KNOBS: &[Knob] = &[
    Knob { name: "eta", default: ETA, min: 0.01, max: 1.0, help: "target utilization eta (§3.3)" },
    Knob { name: "max_stage", default: MAX_STAGE as f64, min: 0.0, max: 1000.0, help: "additive steps before a multiplicative update (§3.3; whole number)" },
    Knob { name: "w_ai_bytes", default: 0.0, min: 0.0, max: 1e12, help: "additive increase W_AI in bytes; 0 = W_init(1-eta)/ai_flows (§3.3)" },
    Knob { name: "ai_flows", default: AI_FLOWS, min: 1.0, max: 1e9, help: "N, the expected concurrent flows in W_AI = W_init(1-eta)/N (§3.3)" },
    Knob { name: "t_us", default: 0.0, min: 0.0, max: 1e9, help: "T, the base RTT in microseconds; 0 = the flow's idle-path RTT" },
    Knob { name: "w_max_bytes", default: 0.0, min: 0.0, max: 1e15, help: "upper bound on W in bytes; 0 = W_init (ours; htsim's HPCCSrc has none)" },
    Knob { name: "reference_update", default: 0.0, min: 0.0, max: 1.0, help: "when W_c takes W: \"per_rtt\" (0; Algorithm 1) or \"per_ack\" (1; htsim's HPCCSrc::processAck)" },
    Knob { name: "int_reference", default: 0.0, min: 0.0, max: 1.0, help: "the record L each new one is measured against: \"previous\" (0; Algorithm 1's L = ack.L) or \"first\" (1; the path's first, htsim's measureInFlight)" },
    Knob { name: "tau_ratio", default: 0.0, min: 0.0, max: 1.0, help: "the EWMA weight tau/T: \"real\" (0) or \"integer\" (1; 0 below T, 1 from T, htsim's picosecond division)" },
    Knob { name: "u_init", default: 0.0, min: 0.0, max: 100.0, help: "U before the first measurement (htsim's HPCCSrc: eta)" },
    Knob { name: "unmeasured_ack", default: 0.0, min: 0.0, max: 1.0, help: "an ACK with no earlier record of its path: \"record\" (0; kept as L only) or \"update\" (1; W from the current U as well, htsim)" },
    Knob { name: "int_queue", default: 0.0, min: 0.0, max: 1.0, help: "a hop's queue: \"waiting\" (0; bytes behind the packet) or \"with_packet\" (1; plus the packet's own segment, as htsim records it)" },
    Knob { name: "int_hops", default: 0.0, min: 0.0, max: 1.0, help: "hops measured: \"all\" (0) or \"switches\" (1; not the sender's NIC, whose queue records none in htsim)" },
    Knob { name: "window_rounding", default: 0.0, min: 0.0, max: 2.0, help: "segments in flight from W: \"up\" (0; ceil(W/segment)), \"down\" (1; floor, htsim sends only while a whole packet fits) or \"sequence\" (2; floor(W/payload) with W in whole bytes: htsim's seq_t _cwnd against _flightsize += _mss; W_AI is not converted: set w_ai_bytes in payload bytes, htsim's 9000)" },
    Knob { name: "int_record", default: 0.0, min: 0.0, max: 1.0, help: "when an egress records a data packet's INT: \"start\" (0; as it starts serializing) or \"end\" (1; as its last bit leaves, so the queue counts what arrived meanwhile: htsim's completeService)" },
    Knob { name: "send_timing", default: 0.0, min: 0.0, max: 1.0, help: "when a packet the window allows leaves: \"window\" (0; at once, paced at W/T) or \"tick\" (1; on the next tick of a timer every T x packet / W, htsim's HPCCSrc::doNextEvent)" },
    Knob { name: "u_arithmetic", default: 0.0, min: 0.0, max: 1.0, help: "how each hop's u is computed: \"seconds\" (0; bytes over seconds) or \"htsim\" (1; bits x 10^12 over integer picoseconds, htsim's measureInFlight, exact where it is: hops at the same rate tie and the first decides tau)" },
];

/// The names the two-way knobs accept (`cc::knob_choices`), in knob order from `reference_update`.
pub const CHOICES: [&[(&str, f64)]; 11] = [
    &[("per_rtt", 0.0), ("per_ack", 1.0)],
    &[("previous", 0.0), ("first", 1.0)],
    &[("real", 0.0), ("integer", 1.0)],
    &[],
    &[("record", 0.0), ("update", 1.0)],
    &[("waiting", 0.0), ("with_packet", 1.0)],
    &[("all", 0.0), ("switches", 1.0)],
    &[("up", 0.0), ("down", 1.0), ("sequence", 2.0)],
    &[("start", 0.0), ("end", 1.0)],
    &[("window", 0.0), ("tick", 1.0)],
    &[("seconds", 0.0), ("htsim", 1.0)],
];

/// Index of `reference_update`, the first of the knobs `CHOICES` covers.
const FIRST_RULE: usize = 6;

/// The names knob `knob` accepts instead of a number (none for the numeric knobs).
pub fn choices(knob: &str) -> &'static [(&'static str, f64)] {
    KNOBS.iter().position(|k| k.name == knob).and_then(|i| i.checked_sub(FIRST_RULE)).map_or(&[], |i| CHOICES[i])
}

/// Where this HPCC follows htsim's `HPCCSrc` (csg-htsim 841d9e7, `sim/hpcc.cpp`) instead of
/// Algorithm 1; all false is Algorithm 1. One flag per two-way knob, in knob order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HtsimRules {
    /// W_c takes every ACK's W (`processAck`: `_cwnd = computeWind(..)`).
    pub per_ack_reference: bool,
    /// L stays the path's first record (`measureInFlight` never replaces `_link_info`).
    pub first_reference: bool,
    /// τ/T is 0 below T and 1 from T (integer picoseconds).
    pub integer_tau: bool,
    /// An ACK with no earlier record of its path still computes W from the current U.
    pub update_unmeasured: bool,
    /// Each hop's queue counts the recorded packet (its segment) too.
    pub queue_with_packet: bool,
    /// The first hop, the sender's own NIC, is left out of the measurement.
    pub switches_only: bool,
    /// ⌊W/segment⌋ segments in flight rather than ⌈W/segment⌉.
    pub floor_window: bool,
    /// Each egress records the data packet's hop as its last bit leaves
    /// (`LosslessOutputQueue::completeService`), not as it starts: the switches' side
    /// (`Int::CollectAtEnd`, `switch/telemetry.rs`); the window rule is unchanged.
    pub record_at_end: bool,
    /// A packet leaves only on a tick of the source's timer (`HPCCSrc::doNextEvent`, `send_tick.rs`).
    pub tick_send: bool,
    /// W counts whole sequence bytes (`window_rounding = "sequence"`, with `floor_window`): it
    /// holds packets by their payload (`send_packet`: `_flightsize += _mss`; `doNextEvent` sends
    /// while `_cwnd >= _flightsize + _mss`) and every W computed is truncated (`computeWind`
    /// returns a `seq_t`).
    pub sequence_window: bool,
    /// Each hop's u in htsim's units and order of operations (`measureInFlight`: the rate in
    /// bits per second as Δbytes·8·10¹² / Δps, the queue term as bytes·8·10¹² / (rate·T_ps)),
    /// exact for whole packets at line rate, so hops at one rate tie and the first keeps τ
    /// (`u_prime > u` is strict); the default's bytes over seconds rounds such ties either way.
    pub htsim_arithmetic: bool,
}

impl HtsimRules {
    pub fn from_knobs(k: &Knobs) -> Self {
        let on = |i: usize| k.get(KNOBS, FIRST_RULE + i) >= 0.5;
        HtsimRules {
            per_ack_reference: on(0),
            first_reference: on(1),
            integer_tau: on(2),
            update_unmeasured: on(4),
            queue_with_packet: on(5),
            switches_only: on(6),
            floor_window: on(7),
            record_at_end: on(8),
            tick_send: on(9),
            htsim_arithmetic: on(10),
            sequence_window: k.get(KNOBS, FIRST_RULE + 7) >= 1.5,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Hpcc {
    eta: f64,
    max_stage: u32,
    w_ai_set: f64,
    ai_flows: f64,
    /// T in seconds (0 until known).
    t: f64,
    /// The `w_max_bytes` knob (0: W's bound is W_init).
    w_max_set: f64,
    /// B_nic in bytes per second (0 until known).
    b_nic: f64,
    /// Wire bytes of a full segment.
    segment: f64,
    pub w_init: f64,
    /// W's upper bound: W_init, or `w_max_bytes` when set.
    pub w_max: f64,
    pub w: f64,
    pub wc: f64,
    pub w_ai: f64,
    /// Smoothed normalized inflight of the most loaded hop.
    pub u: f64,
    pub inc_stage: u32,
    last_update_seq: u64,
    /// L: the last INT record (boxed once, at the first echo, so the state stays small).
    last: Option<Box<IntRecord>>,
    /// U before the first measurement (`u_init`).
    u_init: f64,
    pub rules: HtsimRules,
    /// The source timer's ticks (`send_timing = "tick"`).
    tick: SendTick,
}

impl Hpcc {
    pub fn with_knobs(k: &Knobs) -> Self {
        Hpcc {
            eta: k.get(KNOBS, 0),
            max_stage: k.get(KNOBS, 1) as u32,
            w_ai_set: k.get(KNOBS, 2),
            ai_flows: k.get(KNOBS, 3),
            t: k.get(KNOBS, 4) * 1e-6,
            w_max_set: k.get(KNOBS, 5),
            b_nic: 0.0,
            segment: 0.0,
            w_init: 0.0,
            w_max: 0.0,
            w: 0.0,
            wc: 0.0,
            w_ai: 0.0,
            u: 0.0,
            inc_stage: 0,
            last_update_seq: 0,
            last: None,
            u_init: k.get(KNOBS, FIRST_RULE + 3),
            rules: HtsimRules::from_knobs(k),
            tick: SendTick::default(),
        }
    }

    /// The knobs with the flow's path set (what `path` does), for tests.
    pub fn on_path(k: &Knobs, p: &PathInfo) -> Self {
        let mut h = Self::with_knobs(k);
        h.path(p);
        h
    }

    /// Base RTT T in seconds.
    pub fn t(&self) -> f64 {
        self.t
    }

    /// cwnd and pacing from W.
    fn apply(&mut self, tcb: &mut Tcb) {
        if self.w_init <= 0.0 {
            return;
        }
        // ⌈W/segment⌉ (or ⌊W/segment⌋), forgiving the float error of B·T (1.25e9 · 1e-5 =
        // 12 500.000…2); htsim's W holds packets by their payload (`window_rounding = "sequence"`).
        let n = self.w / if self.rules.sequence_window { tcb.mss as f64 } else { self.segment };
        let n = if self.rules.floor_window { (n * (1.0 + 1e-12)).floor() } else { (n * (1.0 - 1e-12)).ceil() };
        tcb.cwnd = (n as u32).max(1);
        if self.rules.tick_send {
            // The timer is the only pacing: a 1 ps gap (10¹² segments per second) marks the tick
            // a packet took, and `send_tick` gives the next.
            self.tick.set_period(tcb.now, htsim_period(self.w, (self.t * 1e12).round() as u64, self.segment));
            tcb.pacing_rate = Some(Time::S as f64);
        } else {
            tcb.pacing_rate = Some(self.w / self.t / self.segment);
        }
    }

    /// The hops a record's measurement reads: all, or all but the sender's NIC (the first).
    fn measured<'a>(&self, r: &'a IntRecord) -> &'a [IntHop] {
        let hops = r.hops();
        &hops[(self.rules.switches_only as usize).min(hops.len())..]
    }

    /// MeasureInflight (§3.3): the smoothed U after record `a`, given the reference record `l`.
    fn measure_inflight(&mut self, a: &IntRecord, l: &IntRecord) {
        let (mut u_max, mut tau) = (0.0f64, Time::ZERO);
        // htsim's record counts the packet it rides in the queue (both records: the min keeps it).
        let own = if self.rules.queue_with_packet { self.segment } else { 0.0 };
        let t_ps = (self.t * 1e12).round();
        for (h, p) in self.measured(a).iter().zip(self.measured(l)) {
            if h.time <= p.time {
                continue;
            }
            let queue = h.queue_bytes.min(p.queue_bytes);
            let sent = h.tx_bytes.saturating_sub(p.tx_bytes);
            let u = if self.rules.htsim_arithmetic {
                // htsim's operands and order: integer bits, times 10¹², over picoseconds.
                let bps = h.rate.bps() as f64;
                let tx_rate = (sent * 8) as f64 * 1e12 / (h.time - p.time).0 as f64;
                ((queue + own as u64) * 8) as f64 * 1e12 / (bps * t_ps) + tx_rate / bps
            } else {
                let b = h.rate.bps() as f64 / 8.0;
                let tx_rate = sent as f64 / (h.time - p.time).secs_f64();
                (queue as f64 + own) / (b * self.t) + tx_rate / b
            };
            if u > u_max {
                u_max = u;
                tau = h.time - p.time;
            }
        }
        let weight = if self.rules.integer_tau {
            // htsim: simtime_picosec τ (≤ T) over T, an integer division.
            if tau.0 as f64 >= t_ps { 1.0 } else { 0.0 }
        } else {
            tau.secs_f64().min(self.t) / self.t
        };
        self.u = (1.0 - weight) * self.u + weight * u_max;
    }

    /// ComputeWind (§3.3); `update_wc` once per RTT.
    fn compute_wind(&mut self, update_wc: bool) {
        let w = if self.u >= self.eta || self.inc_stage >= self.max_stage {
            if update_wc {
                self.inc_stage = 0;
            }
            self.wc / (self.u / self.eta) + self.w_ai
        } else {
            if update_wc {
                self.inc_stage += 1;
            }
            self.wc + self.w_ai
        };
        // htsim's W is a whole number of bytes, truncated (forgiving float error, as `apply`).
        let w = if self.rules.sequence_window { (w * (1.0 + 1e-12)).floor() } else { w };
        // Within [W_AI, W_max] (a W_AI set above W_max pins W at W_max; U = 0 gives W_max).
        self.w = w.min(self.w_max).max(self.w_ai.min(self.w_max));
        if update_wc || self.rules.per_ack_reference {
            self.wc = self.w;
        }
    }
}

fn same_path(a: &IntRecord, b: &IntRecord) -> bool {
    a.hops == b.hops && a.hops().iter().zip(b.hops()).all(|(x, y)| x.port == y.port)
}

impl CongestionOps for Hpcc {
    fn name(&self) -> &'static str {
        "hpcc"
    }
    fn path(&mut self, p: &PathInfo) {
        self.b_nic = p.nic_rate.bps() as f64 / 8.0;
        self.segment = p.segment as f64;
        if self.t <= 0.0 {
            self.t = p.base_rtt.secs_f64();
        }
    }
    fn init(&mut self, tcb: &mut Tcb) {
        if self.b_nic <= 0.0 || self.t <= 0.0 {
            return; // no path given: the core's window, unpaced
        }
        self.w_init = self.b_nic * self.t;
        self.w_max = if self.w_max_set > 0.0 { self.w_max_set } else { self.w_init };
        self.w_ai = if self.w_ai_set > 0.0 { self.w_ai_set } else { self.w_init * (1.0 - self.eta) / self.ai_flows };
        self.w = self.w_init.min(self.w_max);
        self.wc = self.w;
        self.u = self.u_init;
        self.apply(tcb);
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        tcb.cwnd
    }
    fn cong_avoid(&mut self, _tcb: &mut Tcb, _acked: u32) {}
    fn owns_cwnd(&self) -> bool {
        true
    }
    /// NewAck (Algorithm 1): the first echo only records L; later ones measure and set W
    /// (`unmeasured_ack = "update"`: the first and a new path's set W too, from the current U).
    fn on_int(&mut self, tcb: &mut Tcb, a: &IntRecord) {
        if self.w_init <= 0.0 {
            return;
        }
        let last = self.last.take();
        let measured = match &last {
            Some(l) if same_path(a, l) => {
                self.measure_inflight(a, l);
                true
            }
            _ => false,
        };
        if measured || self.rules.update_unmeasured {
            let update_wc = tcb.snd_una > self.last_update_seq;
            self.compute_wind(update_wc);
            if update_wc {
                self.last_update_seq = tcb.snd_nxt;
            }
        } else if last.is_none() {
            self.last_update_seq = tcb.snd_nxt;
        }
        self.last = match last {
            Some(l) if measured && self.rules.first_reference => Some(l),
            Some(mut l) => {
                *l = *a;
                Some(l)
            }
            None => Some(Box::new(*a)),
        };
        self.apply(tcb);
    }
    /// Every ACK: the window and pacing are W's (this also undoes the core's cwnd of 1 after an
    /// RTO).
    fn cong_control(&mut self, tcb: &mut Tcb, _rs: &RateSample) {
        self.apply(tcb);
    }
    fn send_tick(&mut self, now: Time, from: Time) -> Time {
        if self.rules.tick_send {
            self.tick.next(now, from)
        } else {
            from
        }
    }
    /// htsim's source stops at its first firing in a pause and fires at once at the resume
    /// (`HPCCSrc::processPause`, `doNextEvent`).
    fn nic_pause(&mut self, now: Time, paused: bool) -> bool {
        if self.rules.tick_send {
            if paused {
                self.tick.pause(now)
            } else {
                self.tick.resume(now)
            }
        }
        self.rules.tick_send
    }
}

/// HPCC's switch ports (Li et al., SIGCOMM 2019 §3.2, §4.1): in-band telemetry at every egress,
/// which every switch port of this engine records for the packets that ask; no marking.
pub const PORTS: PaperPorts = PaperPorts {
    needs: Needs { telemetry: true, ..Needs::NONE },
    summary: "one drop-tail FIFO with in-band telemetry at every egress (HPCC §3.2; always on in this engine)",
    setup: |c, f| PortSetup { note: "drop-tail FIFO; INT recorded at every egress".into(), ..drop_tail(c, f) },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PortId;
    use crate::switch::telemetry::MAX_HOPS;
    use crate::time::Rate;

    /// 10 Gb/s NIC (1.25e9 B/s), T = 10 µs: W_init = 12 500 B; 1250-B segments.
    fn hpcc(k: &Knobs) -> (Hpcc, Tcb) {
        let p = PathInfo { nic_rate: Rate::gbps(10), base_rtt: Time::from_us(10), switches: 1, segment: 1250 };
        let mut h = Hpcc::on_path(k, &p);
        let mut t = super::super::tcb(10, u32::MAX);
        h.init(&mut t);
        (h, t)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// A record of `n` hops at 10 Gb/s: hop i at `us[i]` µs with `tx[i]` bytes sent, `q[i]` queued.
    fn rec(us: &[f64], tx: &[u64], q: &[u64]) -> IntRecord {
        let mut r = IntRecord::default();
        for i in 0..us.len() {
            r.hop[i] = IntHop { port: PortId(i as u32), time: Time::from_ps((us[i] * 1e6) as u64), queue_bytes: q[i], tx_bytes: tx[i], rate: Rate::gbps(10) };
        }
        r.hops = us.len() as u8;
        assert!(us.len() <= MAX_HOPS);
        r
    }

    #[test]
    fn initial_window_is_b_times_t_and_paced_at_line_rate() {
        let (h, t) = hpcc(&Knobs::default());
        assert!(close(h.w_init, 12_500.0));
        // W_AI = W_init (1 − 0.95) / 100 = 6.25 B.
        assert!(close(h.w_ai, 6.25));
        assert_eq!(t.cwnd, 10); // 12 500 / 1250
        // W/T = 1.25e9 B/s = 1e6 segments of 1250 B per second.
        assert!((t.pacing_rate.unwrap() - 1e6).abs() < 1e-3);
    }

    #[test]
    fn multiplicative_update_from_the_most_loaded_hop() {
        let (mut h, mut t) = hpcc(&Knobs::default());
        t.snd_nxt = 100_000;
        // First echo: only recorded.
        h.on_int(&mut t, &rec(&[0.0, 0.5], &[0, 0], &[5000, 0]));
        assert!(close(h.w, 12_500.0) && h.u == 0.0);
        // 10 µs (= T, so τ/T = 1 and U = u) later. Hop 0: 12 500 B sent = line rate (1.0), queue
        // min(2500, 5000) = 2500 B = 0.2 of B·T: u0 = 1.2. Hop 1: 6250 B (0.5), queue 0: 0.5.
        t.snd_una = 100_001; // past lastUpdateSeq: W_c is updated
        t.snd_nxt = 200_000;
        h.on_int(&mut t, &rec(&[10.0, 10.5], &[12_500, 6250], &[2500, 0]));
        assert!((h.u - 1.2).abs() < 1e-12, "U {}", h.u);
        // U ≥ η: W = W_c / (U/η) + W_AI = 12 500·0.95/1.2 + 6.25 = 9902.083…
        let w = 12_500.0 * 0.95 / 1.2 + 6.25;
        assert!(close(h.w, w), "W {}", h.w);
        assert_eq!((h.wc, h.inc_stage), (h.w, 0));
        assert_eq!(t.cwnd, 8); // ⌈9902.08 / 1250⌉
        assert!((t.pacing_rate.unwrap() - w / 10e-6 / 1250.0).abs() < 1e-6);
    }

    #[test]
    fn ewma_over_tau_and_additive_steps_until_max_stage() {
        let (mut h, mut t) = hpcc(&Knobs::default());
        t.snd_nxt = 10;
        h.on_int(&mut t, &rec(&[0.0], &[0], &[0]));
        // τ = 1 µs = T/10, hop at half rate, no queue: u = 0.5, U = 0.1·0.5 = 0.05 < η.
        let mut us = 0.0;
        let mut tx = 0;
        let mut wc = 12_500.0;
        for stage in 1..=5u32 {
            us += 1.0;
            tx += 625;
            t.snd_una += 100; // a new RTT each time: W_c += W_AI
            t.snd_nxt = t.snd_una + 10;
            h.on_int(&mut t, &rec(&[us], &[tx], &[0]));
            // W is clamped at W_init, so W_c stays there: the additive stage still counts.
            wc = (wc + 6.25f64).min(12_500.0);
            assert!(close(h.w, wc) && h.inc_stage == stage, "W {} stage {}", h.w, h.inc_stage);
        }
        let u5 = h.u;
        // EWMA: U_k = 0.9·U_{k−1} + 0.1·0.5 → after 5 steps 0.5·(1 − 0.9⁵).
        assert!((u5 - 0.5 * (1.0 - 0.9f64.powi(5))).abs() < 1e-12, "U {u5}");
        // Sixth step: incStage = maxStage forces the multiplicative form even though U < η.
        us += 1.0;
        tx += 625;
        t.snd_una += 100;
        h.on_int(&mut t, &rec(&[us], &[tx], &[0]));
        let u6 = 0.9 * u5 + 0.05;
        let w = (12_500.0 / (u6 / 0.95) + 6.25f64).min(12_500.0);
        assert!((h.u - u6).abs() < 1e-12);
        assert!(close(h.w, w) && h.inc_stage == 0);
    }

    #[test]
    fn reference_window_moves_once_per_rtt() {
        // Within one RTT (the ACK does not pass the snd_nxt of the last update), each ACK scales
        // the same W_c: three ACKs at U = 1.9 (τ = T) all give W = W_c/2 + W_AI, not W_c/8.
        let (mut h, mut t) = hpcc(&Knobs::default());
        t.snd_nxt = 1_000_000;
        h.on_int(&mut t, &rec(&[0.0], &[0], &[11_250]));
        let mut us = 0.0;
        let mut tx = 0;
        for _ in 0..3 {
            us += 10.0;
            tx += 12_500;
            t.snd_una += 1000; // still below 1 000 000
            h.on_int(&mut t, &rec(&[us], &[tx], &[11_250]));
            // u = 11 250/12 500 + 1 = 1.9
            assert!(close(h.w, 12_500.0 * 0.95 / 1.9 + 6.25), "W {}", h.w);
            assert!(close(h.wc, 12_500.0));
        }
    }

    #[test]
    fn extreme_knobs_keep_w_within_bounds() {
        // W_AI above W_init, and maxStage 0 with U = 0 (W_c/0): W stays at W_init, no panic.
        let mut k = Knobs::default();
        k.0[2] = Some(1e9);
        k.0[1] = Some(0.0);
        let (mut h, mut t) = hpcc(&k);
        h.on_int(&mut t, &rec(&[0.0], &[0], &[0]));
        t.snd_una = 1;
        h.on_int(&mut t, &rec(&[1.0], &[0], &[0]));
        assert!(close(h.w, 12_500.0) && t.cwnd == 10, "W {}", h.w);
    }

    #[test]
    fn w_max_bytes_lets_additive_steps_pass_w_init() {
        // U = 0.5 < η on every ACK (τ = T, hop at half rate, no queue), each ACK a new RTT: by
        // default W stays at W_init = 12 500 B; with w_max_bytes = 12 520 it takes W_AI = 6.25 B
        // per RTT up to the bound: 12 506.25, 12 512.5, 12 518.75, then 12 520.
        let mut k = Knobs::default();
        k.0[5] = Some(12_520.0);
        for (knobs, want) in [(Knobs::default(), [12_500.0; 4]), (k, [12_506.25, 12_512.5, 12_518.75, 12_520.0])] {
            let (mut h, mut t) = hpcc(&knobs);
            h.on_int(&mut t, &rec(&[0.0], &[0], &[0]));
            for (i, w) in want.iter().enumerate() {
                t.snd_una = t.snd_nxt + 1;
                t.snd_nxt = t.snd_una + 10;
                h.on_int(&mut t, &rec(&[10.0 * (i + 1) as f64], &[6250 * (i as u64 + 1)], &[0]));
                assert!((h.u - 0.5).abs() < 1e-12 && close(h.w, *w), "step {i}: U {} W {} want {w}", h.u, h.w);
            }
        }
    }

    /// Knobs by name (the two-way ones as their values: 1 = htsim's reading).
    fn knobs(set: &[(&str, f64)]) -> Knobs {
        let mut k = Knobs::default();
        for (name, v) in set {
            k.0[KNOBS.iter().position(|n| n.name == *name).unwrap()] = Some(*v);
        }
        k
    }

    #[test]
    fn per_ack_reference_compounds_within_an_rtt() {
        // The three ACKs of `reference_window_moves_once_per_rtt` (U = 1.9, τ = T, one RTT):
        // per RTT each gives W_c/2 + W_AI with W_c = 12 500; per ACK (htsim's processAck) W_c is
        // the previous W: 6256.25, then 6256.25/2 + 6.25 = 3134.375, then 1573.4375. The additive
        // stage counter still moves only once per RTT (it stays 0 here).
        for (k, want) in [(Knobs::default(), [6256.25, 6256.25, 6256.25]), (knobs(&[("reference_update", 1.0)]), [6256.25, 3134.375, 1573.4375])] {
            let (mut h, mut t) = hpcc(&k);
            t.snd_nxt = 1_000_000;
            h.on_int(&mut t, &rec(&[0.0], &[0], &[11_250]));
            for (i, w) in want.iter().enumerate() {
                t.snd_una += 1000;
                h.on_int(&mut t, &rec(&[10.0 * (i + 1) as f64], &[12_500 * (i as u64 + 1)], &[11_250]));
                assert!(close(h.w, *w) && close(h.wc, if h.rules.per_ack_reference { *w } else { 12_500.0 }), "ACK {i}: W {} W_c {}", h.w, h.wc);
                assert_eq!(h.inc_stage, 0);
            }
        }
    }

    #[test]
    fn first_reference_measures_since_the_paths_first_record() {
        // Records at 0, 10 and 20 µs with 0, 12 500 and 18 750 B sent, no queue. The second ACK
        // gives u = 1.0 either way (τ = T: U = u). The third: since the previous record
        // 6250 B in 10 µs, u = 0.5; since the first (htsim's _link_info) 18 750 B in 20 µs,
        // u = 0.75, with τ = 20 µs capped at T.
        for (k, want) in [(Knobs::default(), 0.5), (knobs(&[("int_reference", 1.0)]), 0.75)] {
            let (mut h, mut t) = hpcc(&k);
            h.on_int(&mut t, &rec(&[0.0], &[0], &[0]));
            h.on_int(&mut t, &rec(&[10.0], &[12_500], &[0]));
            assert!(close(h.u, 1.0), "U {}", h.u);
            h.on_int(&mut t, &rec(&[20.0], &[18_750], &[0]));
            assert!(close(h.u, want), "U {} want {want}", h.u);
        }
    }

    #[test]
    fn integer_tau_keeps_u_until_a_full_t_and_u_init_starts_it() {
        // u_init = η (htsim's _U = _eta). An ACK 5 µs (T/2) after the first record with the hop
        // at half rate (u = 0.5): real τ/T gives U = 0.5·0.95 + 0.5·0.5 = 0.725; integer τ/T
        // (htsim's picosecond division) gives 0, so U stays 0.95, and W = W_c/(U/η) + W_AI =
        // 12 500 + 6.25 (w_max_bytes lifts the W_init bound). At τ = T = 10 µs both give U = u.
        let base = [("u_init", 0.95), ("w_max_bytes", 1e9)];
        let integer = knobs(&[base[0], base[1], ("tau_ratio", 1.0)]);
        for (k, half, w_half) in [(knobs(&base), 0.725, 12_500.0 + 6.25), (integer, 0.95, 12_500.0 + 6.25)] {
            let (mut h, mut t) = hpcc(&k);
            assert!(close(h.u, 0.95));
            h.on_int(&mut t, &rec(&[0.0], &[0], &[0]));
            t.snd_una = 1; // past the first echo's snd_nxt (0): W_c moves
            h.on_int(&mut t, &rec(&[5.0], &[3125], &[0]));
            assert!(close(h.u, half), "U {} want {half}", h.u);
            if h.rules.integer_tau {
                assert!(close(h.w, w_half), "W {}", h.w);
            }
            h.on_int(&mut t, &rec(&[10.0], &[6250], &[0]));
            // Real: τ = 5 µs since the previous record; integer: the same 5 µs, still below T.
            let u = if h.rules.integer_tau { 0.95 } else { 0.5 * 0.725 + 0.5 * 0.5 };
            assert!(close(h.u, u), "U {} want {u}", h.u);
            h.on_int(&mut t, &rec(&[20.0], &[12_500], &[0]));
            assert!(close(h.u, 0.5), "τ = T: U = u, got {}", h.u);
        }
    }

    #[test]
    fn htsim_arithmetic_ties_hops_at_line_rate_and_keeps_the_first_tau() {
        // Draw 14's h40 -> h106 (docs/VALIDATION.md, issue 32): its 12th ACK, two of its hops at
        // 100 Gb/s, T = 12 µs, each hop's queue + the packet (9064 B). Against the first record,
        // hop A sent 99 704 B (11 packets) in 7 976 320 ps and hop B 208 472 B (23) in
        // 16 677 760 ps: both exactly line rate (11 and 23 serializations of 725 120 ps), and both
        // queue terms min(q, q_first) + 9064 = 9064 B, so u' = 9064·8/(10¹¹·12·10⁻⁶) + 1 =
        // 1.0604266… on both. htsim computes both exactly (797 632·10¹² / 7 976 320 = 10¹¹), the
        // tie keeps hop A (`u' > u` is strict) and its τ < T, so τ/T = 0 and U stays 0.95; in
        // bytes over seconds hop B rounds one ulp higher and its τ ≥ T gives U = u.
        let p = PathInfo { nic_rate: Rate::gbps(100), base_rtt: Time::from_us(12), switches: 2, segment: 9064 };
        let rules = [("u_init", 0.95), ("w_max_bytes", 1e12), ("int_reference", 1.0), ("tau_ratio", 1.0), ("int_queue", 1.0)];
        let hop = |i: u32, ps: u64, tx: u64, q: u64| IntHop { port: PortId(i), time: Time::from_ps(ps), queue_bytes: q, tx_bytes: tx, rate: Rate::gbps(100) };
        let two = |a: IntHop, b: IntHop| {
            let mut r = IntRecord::default();
            (r.hop[0], r.hop[1], r.hops) = (a, b, 2);
            r
        };
        let first = two(hop(0, 2_450_240, 0, 0), hop(1, 7_625_600, 0, 0));
        let ack = two(hop(0, 10_426_560, 99_704, 0), hop(1, 24_303_360, 208_472, 145_088));
        let u = 9064.0 * 8.0 / (1e11 * 12e-6) + 1.0;
        for (arith, want) in [(0.0, u), (1.0, 0.95)] {
            let mut set = rules.to_vec();
            set.push(("u_arithmetic", arith));
            let mut h = Hpcc::on_path(&knobs(&set), &p);
            let mut t = super::super::tcb(10, u32::MAX);
            h.init(&mut t);
            h.on_int(&mut t, &first);
            h.on_int(&mut t, &ack);
            assert!(close(h.u, want), "u_arithmetic {arith}: U {} want {want}", h.u);
        }
        // The value itself, where τ ≥ T makes U = u': one hop, T = 12 µs apart, 100 000 B sent
        // and min(36 256, 18 128) = 18 128 B queued plus the packet's 9 064 B:
        // u' = 27 192·8 / (10¹¹·12·10⁻⁶) + 100 000·8 / (10¹¹·12·10⁻⁶) = 0.18128 + 0.6̅ = 0.847946̅.
        let one = |a: IntHop| {
            let mut r = IntRecord::default();
            (r.hop[0], r.hops) = (a, 1);
            r
        };
        let want = 0.18128 + 2.0 / 3.0;
        for arith in [0.0, 1.0] {
            let mut set = rules.to_vec();
            set.push(("u_arithmetic", arith));
            let mut h = Hpcc::on_path(&knobs(&set), &p);
            let mut t = super::super::tcb(10, u32::MAX);
            h.init(&mut t);
            h.on_int(&mut t, &one(hop(0, 1_000_000, 0, 18_128)));
            h.on_int(&mut t, &one(hop(0, 13_000_000, 100_000, 36_256)));
            assert!(close(h.u, want), "u_arithmetic {arith}: U {} want {want}", h.u);
        }
    }

    #[test]
    fn unmeasured_ack_update_sets_w_from_the_current_u() {
        // The first echo: by default only recorded (W = W_init); with "update" (htsim) W is
        // computed from U = u_init = η: W_c/(η/η) + W_AI = 12 506.25, W_c too (the ACK passes
        // lastUpdateSeq = 0), stage 0.
        let base = [("u_init", 0.95), ("w_max_bytes", 1e9)];
        for (k, want) in [(knobs(&base), 12_500.0), (knobs(&[base[0], base[1], ("unmeasured_ack", 1.0)]), 12_506.25)] {
            let (mut h, mut t) = hpcc(&k);
            t.snd_una = 1250;
            t.snd_nxt = 12_500;
            h.on_int(&mut t, &rec(&[0.0], &[0], &[0]));
            assert!(close(h.w, want) && close(h.wc, want) && h.inc_stage == 0, "W {} W_c {}", h.w, h.wc);
        }
    }

    #[test]
    fn queue_with_packet_adds_the_segment_and_switches_skip_the_nic() {
        // Hop 0 (the sender's NIC) at line rate with min(2500, 5000) B queued: u0 = 1.2; hop 1 at
        // half rate, no queue: u1 = 0.5 (τ = T, so U = the larger). "with_packet" adds the
        // 1250-B segment to each hop's queue: u0 = 3750/12 500 + 1 = 1.3, u1 = 0.6. "switches"
        // leaves hop 0 out: U = u1.
        let cases = [(vec![], 1.2), (vec![("int_queue", 1.0)], 1.3), (vec![("int_hops", 1.0)], 0.5), (vec![("int_queue", 1.0), ("int_hops", 1.0)], 0.6)];
        for (set, want) in cases {
            let (mut h, mut t) = hpcc(&knobs(&set));
            h.on_int(&mut t, &rec(&[0.0, 0.5], &[0, 0], &[5000, 0]));
            h.on_int(&mut t, &rec(&[10.0, 10.5], &[12_500, 6250], &[2500, 0]));
            assert!(close(h.u, want), "{set:?}: U {} want {want}", h.u);
        }
    }

    #[test]
    fn window_rounding_down_sends_whole_segments_only() {
        // W = 12 500·0.95/1.2 + 6.25 = 9902.08 B of 1250-B segments: 7.92 → 8 up, 7 down; the
        // initial 12 500 B is exactly 10 either way (the float error of B·T forgiven).
        for (k, first, after) in [(Knobs::default(), 10, 8), (knobs(&[("window_rounding", 1.0)]), 10, 7)] {
            let (mut h, mut t) = hpcc(&k);
            assert_eq!(t.cwnd, first);
            t.snd_nxt = 100_000;
            h.on_int(&mut t, &rec(&[0.0, 0.5], &[0, 0], &[5000, 0]));
            t.snd_una = 100_001;
            h.on_int(&mut t, &rec(&[10.0, 10.5], &[12_500, 6250], &[2500, 0]));
            assert_eq!(t.cwnd, after, "W {}", h.w);
        }
    }

    #[test]
    fn sequence_window_counts_packets_by_their_payload() {
        // 1250-B segments on the wire carrying 1200 B of payload; W_AI = 1200 B, W unbounded.
        // The first ACK (U = u_init = η, htsim's update) gives W = 12 500 + 1200 = 13 700 B:
        // 13 700 / 1250 = 10.96 → 10 segments by wire bytes, 13 700 / 1200 = 11.42 → 11 by
        // payload (htsim: _cwnd ≥ _flightsize + _mss with _flightsize += _mss). The timer's period
        // counts the packet on the wire either way: 1250 B · 10 µs / 13 700 B = 912 408 ps.
        let base = [("u_init", 0.95), ("unmeasured_ack", 1.0), ("w_ai_bytes", 1200.0), ("w_max_bytes", 1e9), ("send_timing", 1.0)];
        for (units, want) in [(1.0, 10), (2.0, 11)] {
            let mut set = base.to_vec();
            set.push(("window_rounding", units));
            let (mut h, mut t) = hpcc(&knobs(&set));
            t.mss = 1200;
            t.snd_una = 1200;
            h.on_int(&mut t, &rec(&[0.0], &[0], &[0]));
            assert!(close(h.w, 13_700.0), "W {}", h.w);
            assert_eq!(t.cwnd, want, "window_rounding {units}");
            assert_eq!(h.tick.period(), Time(912_408));
        }
    }

    #[test]
    fn sequence_window_truncates_every_w() {
        // The multiplicative update of `multiplicative_update_from_the_most_loaded_hop`:
        // W = 12 500 · 0.95 / 1.2 + 6.25 = 9902.083… B; htsim's seq_t W is 9902. The next ACK
        // (same U, W_c per ACK) scales the truncated W: 9902 · 0.95 / 1.2 + 6.25 = 7845.166… → 7845.
        for (bytes, want) in [(1.0, [12_500.0 * 0.95 / 1.2 + 6.25, (12_500.0 * 0.95 / 1.2 + 6.25) * 0.95 / 1.2 + 6.25]), (2.0, [9902.0, 7845.0])] {
            let (mut h, mut t) = hpcc(&knobs(&[("window_rounding", bytes), ("reference_update", 1.0)]));
            t.snd_nxt = 100_000;
            h.on_int(&mut t, &rec(&[0.0, 0.5], &[0, 0], &[5000, 0]));
            t.snd_una = 100_001;
            h.on_int(&mut t, &rec(&[10.0, 10.5], &[12_500, 6250], &[2500, 0]));
            assert!(close(h.w, want[0]), "window_rounding {bytes}: W {}", h.w);
            h.on_int(&mut t, &rec(&[20.0, 20.5], &[25_000, 12_500], &[2500, 0]));
            assert!((h.u - 1.2).abs() < 1e-12 && close(h.w, want[1]), "window_rounding {bytes}: U {} W {}", h.u, h.w);
        }
    }

    #[test]
    fn a_new_path_restarts_the_history() {
        let (mut h, mut t) = hpcc(&Knobs::default());
        h.on_int(&mut t, &rec(&[0.0], &[0], &[0]));
        let mut other = rec(&[10.0], &[12_500], &[12_500]);
        other.hop[0].port = PortId(7);
        t.snd_una = 1;
        h.on_int(&mut t, &other);
        assert!(h.u == 0.0 && close(h.w, 12_500.0), "no sample across paths");
    }
}
