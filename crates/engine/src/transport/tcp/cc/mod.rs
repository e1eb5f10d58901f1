//! Pluggable congestion control, with hooks modelled on Linux `struct tcp_congestion_ops`
//! (include/net/tcp.h). The TCP core owns loss detection, recovery, RTO and ECN; a congestion
//! control only answers these calls. Windows are in segments, as in Linux.
//!
//! To add an algorithm: write a type implementing [`CongestionOps`] in its own file, add a variant to
//! [`Cc`] and to the two `match`es below, and a name in `scenario`. Dispatch is a `match`, so the
//! per-ACK path stays statically dispatched.

mod bbr;
mod bic;
mod cdg;
mod cubic;
mod d2tcp;
mod dctcp;
pub mod highspeed;
mod htcp;
mod hybla;
mod illinois;
mod ledbat;
mod lp;
mod newreno;
mod nv;
mod retcp;
mod sab;
mod scalable;
mod vegas;
mod veno;
mod westwood;
mod yeah;

pub use bbr::Bbr;
pub use bic::{Bic, BicParams};
pub use cdg::Cdg;
pub use cubic::{Cubic, CubicParams};
pub use d2tcp::D2tcp;
pub use dctcp::{Dctcp, DctcpParams};
pub use highspeed::HighSpeed;
pub use htcp::Htcp;
pub use hybla::Hybla;
pub use illinois::Illinois;
pub use ledbat::{Ledbat, LedbatParams};
pub use lp::Lp;
pub use newreno::NewReno;
pub use nv::Nv;
pub use retcp::{Retcp, RetcpParams};
pub use sab::Sab;
pub use scalable::Scalable;
pub use vegas::{Vegas, VegasParams};
pub use veno::Veno;
pub use westwood::Westwood;
pub use yeah::Yeah;
use crate::time::Time;

/// One tunable constant of a congestion control: its name in a scenario's `cc_params`, default,
/// accepted range and meaning (docs/CONGESTION_CONTROL.md).
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    pub name: &'static str,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    pub help: &'static str,
}

/// Most knobs an algorithm has.
pub const MAX_KNOBS: usize = 8;

/// Values set for an algorithm's knobs, by position in its knob list; unset = the default.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Knobs(pub [Option<f64>; MAX_KNOBS]);

impl Knobs {
    /// Knob `i` of `list`: the value set, or the default.
    #[inline]
    pub fn get(&self, list: &[Knob], i: usize) -> f64 {
        self.0[i].unwrap_or(list[i].default)
    }
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }
}

/// The knobs of the algorithm named `cc` (scenario name), in order.
pub fn knobs_of(cc: &str) -> &'static [Knob] {
    match cc {
        "cubic" => cubic::KNOBS,
        "bic" => bic::KNOBS,
        "vegas" => vegas::KNOBS,
        "scalable" => scalable::KNOBS,
        "veno" => veno::KNOBS,
        "hybla" => hybla::KNOBS,
        "lp" => lp::KNOBS,
        "illinois" => illinois::KNOBS,
        "bbr" => bbr::KNOBS,
        "dctcp" | "d2tcp" => dctcp::KNOBS,
        "nv" => nv::KNOBS,
        "cdg" => cdg::KNOBS,
        "yeah" => yeah::KNOBS,
        "ledbat" => ledbat::KNOBS,
        "retcp" => retcp::KNOBS,
        _ => &[],
    }
}

/// Linux's congestion-avoidance states (`enum tcp_ca_state`), ordered as in Linux.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    Open,
    /// Duplicate ACKs or SACKs seen, no recovery yet.
    Disorder,
    /// Reducing after ECE (RFC 3168 §6.1.2).
    Cwr,
    /// Fast recovery (RFC 6675 / RFC 6582).
    Recovery,
    /// After a retransmission timeout.
    Loss,
}

/// Events of `cwnd_event` (Linux `enum tcp_ca_event`, the ones this engine raises).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndEvent {
    /// Retransmission timeout (CA_EVENT_LOSS).
    Loss,
    /// Leaving a CWR reduction (CA_EVENT_COMPLETE_CWR).
    CompleteCwr,
}

/// The part of the connection a congestion control reads and writes (Linux `struct tcp_sock`).
#[derive(Clone, Debug)]
pub struct Tcb {
    /// Congestion window, segments.
    pub cwnd: u32,
    /// Linux `snd_cwnd_cnt`: ACKed segments towards the next +1 in congestion avoidance.
    pub cwnd_cnt: u32,
    pub ssthresh: u32,
    /// Bytes: oldest unacknowledged and next new byte.
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub mss: u32,
    /// The sender was limited by cwnd at its last send attempt (RFC 7661 / Linux is_cwnd_limited).
    pub cwnd_limited: bool,
    /// Current time (Linux tcp_jiffies32 / tcp_clock_us), set before every hook call.
    pub now: Time,
    /// Smoothed RTT (RFC 6298), once there is a sample.
    pub srtt: Option<Time>,
    /// Smallest RTT sample seen (Linux tcp_min_rtt, without the windowing).
    pub min_rtt: Option<Time>,
    /// Bytes in flight estimate (RFC 6675 pipe × MSS) when the hook is called.
    pub in_flight: u64,
    /// Set by a congestion control that wants a CWR reduction now (Linux `tcp_enter_cwr`).
    pub request_cwr: bool,
    /// Pacing rate in segments per second, if the congestion control paces (BBR).
    pub pacing_rate: Option<f64>,
    /// The connection's congestion-avoidance state.
    pub ca_state: CaState,
    /// Flow size in bytes (None = long-lived) and absolute deadline, for deadline-aware control.
    pub flow_size: Option<u64>,
    pub deadline: Option<Time>,
    /// The window field of the latest ACK, bytes (u64::MAX = unlimited).
    pub rwnd: u64,
    /// Payload bytes of the next new segment (the MSS unless the algorithm shrinks it: SAB §IV-B).
    pub seg_size: u32,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation; Linux `struct
/// rate_sample`), given to `cong_control` on every ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Segments delivered over `interval`; `interval` zero = no valid sample.
    pub delivered: u64,
    pub interval: Time,
    /// C.delivered when the sampled segment was sent.
    pub prior_delivered: u64,
    pub is_app_limited: bool,
    /// Segments newly acked or SACKed by this ACK, and newly marked lost.
    pub acked_sacked: u32,
    pub losses: u32,
    /// RTT sample of this ACK.
    pub rtt: Option<Time>,
}

impl RateSample {
    /// Delivery rate in segments per second, if valid.
    pub fn rate(&self) -> Option<f64> {
        (self.interval > Time::ZERO).then(|| self.delivered as f64 / self.interval.secs_f64())
    }
}

impl Default for CaState {
    fn default() -> Self {
        CaState::Open
    }
}

/// Per-ACK information for `in_ack_event` (Linux passes flags; we pass what the flags summarise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckEvent {
    /// The ACK carried ECE.
    pub ece: bool,
    /// Bytes newly acknowledged cumulatively by this ACK.
    pub acked_bytes: u64,
}

/// The hook set. Every method but `ssthresh` and `cong_avoid` has a do-nothing default.
pub trait CongestionOps {
    /// Name as written in scenarios.
    fn name(&self) -> &'static str;
    /// Connection established.
    fn init(&mut self, _tcb: &mut Tcb) {}
    /// Slow-start threshold after a congestion event; called once on entering CWR, Recovery or Loss.
    fn ssthresh(&mut self, tcb: &Tcb) -> u32;
    /// Grow the window; called per ACK that advances snd_una in Open, Disorder or Loss.
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32);
    /// Called per ACK before `cong_avoid` (DCTCP's α estimator lives here).
    fn in_ack_event(&mut self, _tcb: &mut Tcb, _ev: AckEvent) {}
    /// Per ACK that newly acknowledges data: segments acked and, when Karn allows, the RTT sample
    /// (Linux `pkts_acked` with `ack_sample`).
    fn pkts_acked(&mut self, _tcb: &mut Tcb, _acked: u32, _rtt: Option<Time>) {}
    /// True for algorithms that set cwnd (and pacing) themselves on every ACK through
    /// `cong_control` (Linux: BBR), so the core neither grows nor reduces cwnd for them.
    fn owns_cwnd(&self) -> bool {
        false
    }
    /// Per ACK, for `owns_cwnd` algorithms (Linux `cong_control`).
    fn cong_control(&mut self, _tcb: &mut Tcb, _rs: &RateSample) {}
    fn cwnd_event(&mut self, _tcb: &mut Tcb, _ev: CwndEvent) {}
    /// True for algorithms that read the ECE bit of ACKs as a signal of their own while ECN is
    /// not negotiated (reTCP: circuit state), so the core passes ECE through without reacting.
    fn reads_raw_ece(&self) -> bool {
        false
    }
    /// State changes, called after `ssthresh` when a reduction starts.
    fn set_state(&mut self, _tcb: &mut Tcb, _s: CaState) {}
    /// True for SAB: data packets carry the window field for switches to lower, and the receiver
    /// echoes it in ACKs.
    fn sets_window_field(&self) -> bool {
        false
    }
}

/// Linux `tcp_slow_start`: grow by the ACKed count up to ssthresh; return what is left over.
pub fn slow_start(tcb: &mut Tcb, acked: u32) -> u32 {
    let cwnd = tcb.cwnd.saturating_add(acked).min(tcb.ssthresh);
    let used = cwnd - tcb.cwnd;
    tcb.cwnd = cwnd;
    acked - used
}

/// Linux `tcp_cong_avoid_ai`: +1 segment per `w` ACKed segments.
pub fn cong_avoid_ai(tcb: &mut Tcb, w: u32, acked: u32) {
    let w = w.max(1);
    if tcb.cwnd_cnt >= w {
        tcb.cwnd_cnt = 0;
        tcb.cwnd += 1;
    }
    tcb.cwnd_cnt += acked;
    if tcb.cwnd_cnt >= w {
        let delta = tcb.cwnd_cnt / w;
        tcb.cwnd_cnt -= delta * w;
        tcb.cwnd += delta;
    }
}

/// The common preamble of Linux `cong_avoid` functions: nothing unless cwnd-limited; slow start
/// below ssthresh. Returns the ACKed segments left for congestion avoidance, if any.
pub fn slow_start_first(tcb: &mut Tcb, acked: u32) -> Option<u32> {
    if !tcb.cwnd_limited {
        return None;
    }
    let mut acked = acked;
    if tcb.cwnd < tcb.ssthresh {
        acked = slow_start(tcb, acked);
    }
    (acked > 0).then_some(acked)
}

/// Add a fractional increase to cwnd through an accumulator (segments), whole segments at a time.
pub fn add_fraction(tcb: &mut Tcb, acc: &mut f64, increase: f64) {
    *acc += increase;
    let whole = acc.floor().max(0.0);
    *acc -= whole;
    tcb.cwnd = tcb.cwnd.saturating_add(whole as u32);
}

/// Vegas-style RTT bookkeeping (Linux tcp_vegas.c, reused by Veno and YeAH): the smallest RTT
/// ever (BaseRTT, +1 µs so it is never zero) and the smallest and count of the current round.
#[derive(Clone, Debug, Default)]
pub struct RoundRtt {
    pub base: Option<Time>,
    pub min: Option<Time>,
    pub count: u32,
}

impl RoundRtt {
    pub fn sample(&mut self, rtt: Option<Time>) {
        if let Some(r) = rtt {
            let v = r + Time::from_us(1);
            self.base = Some(self.base.map_or(v, |b| b.min(v)));
            self.min = Some(self.min.map_or(v, |m| m.min(v)));
            self.count += 1;
        }
    }
    pub fn new_round(&mut self) {
        self.min = None;
        self.count = 0;
    }
    /// (BaseRTT, round minimum) once the round has more than two samples (Linux's threshold).
    pub fn enough(&self) -> Option<(Time, Time)> {
        match (self.base, self.min) {
            (Some(b), Some(m)) if self.count > 2 => Some((b, m)),
            _ => None,
        }
    }
}

/// Linux `tcp_reno_cong_avoid`: slow start below ssthresh, then +1 segment per window.
pub fn reno_cong_avoid(tcb: &mut Tcb, acked: u32) {
    if let Some(acked) = slow_start_first(tcb, acked) {
        let w = tcb.cwnd;
        cong_avoid_ai(tcb, w, acked);
    }
}

/// Linux `tcp_reno_ssthresh`: half the window, at least 2.
pub fn reno_ssthresh(tcb: &Tcb) -> u32 {
    (tcb.cwnd / 2).max(2)
}

/// The congestion controls this engine knows, statically dispatched.
#[derive(Clone, Debug)]
pub enum Cc {
    NewReno(NewReno),
    Dctcp(Dctcp),
    Cubic(Cubic),
    Bic(Bic),
    HighSpeed(HighSpeed),
    Htcp(Htcp),
    Hybla(Hybla),
    Scalable(Scalable),
    Veno(Veno),
    Westwood(Westwood),
    Vegas(Vegas),
    Illinois(Illinois),
    Yeah(Yeah),
    Ledbat(Ledbat),
    Nv(Nv),
    Cdg(Cdg),
    Bbr(Bbr),
    Lp(Lp),
    Retcp(Retcp),
    D2tcp(D2tcp),
    Sab(Sab),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::NewReno($c) => $e,
            Cc::Dctcp($c) => $e,
            Cc::Cubic($c) => $e,
            Cc::Bic($c) => $e,
            Cc::HighSpeed($c) => $e,
            Cc::Htcp($c) => $e,
            Cc::Hybla($c) => $e,
            Cc::Scalable($c) => $e,
            Cc::Veno($c) => $e,
            Cc::Westwood($c) => $e,
            Cc::Vegas($c) => $e,
            Cc::Illinois($c) => $e,
            Cc::Yeah($c) => $e,
            Cc::Ledbat($c) => $e,
            Cc::Nv($c) => $e,
            Cc::Cdg($c) => $e,
            Cc::Bbr($c) => $e,
            Cc::Lp($c) => $e,
            Cc::Retcp($c) => $e,
            Cc::D2tcp($c) => $e,
            Cc::Sab($c) => $e,
        }
    };
}

impl CongestionOps for Cc {
    fn name(&self) -> &'static str {
        dispatch!(self, c => c.name())
    }
    fn init(&mut self, tcb: &mut Tcb) {
        dispatch!(self, c => c.init(tcb))
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        dispatch!(self, c => c.ssthresh(tcb))
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        dispatch!(self, c => c.cong_avoid(tcb, acked))
    }
    fn in_ack_event(&mut self, tcb: &mut Tcb, ev: AckEvent) {
        dispatch!(self, c => c.in_ack_event(tcb, ev))
    }
    fn pkts_acked(&mut self, tcb: &mut Tcb, acked: u32, rtt: Option<Time>) {
        dispatch!(self, c => c.pkts_acked(tcb, acked, rtt))
    }
    fn owns_cwnd(&self) -> bool {
        dispatch!(self, c => c.owns_cwnd())
    }
    fn cong_control(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        dispatch!(self, c => c.cong_control(tcb, rs))
    }
    fn cwnd_event(&mut self, tcb: &mut Tcb, ev: CwndEvent) {
        dispatch!(self, c => c.cwnd_event(tcb, ev))
    }
    fn reads_raw_ece(&self) -> bool {
        dispatch!(self, c => c.reads_raw_ece())
    }
    fn set_state(&mut self, tcb: &mut Tcb, s: CaState) {
        dispatch!(self, c => c.set_state(tcb, s))
    }
    fn sets_window_field(&self) -> bool {
        dispatch!(self, c => c.sets_window_field())
    }
}

impl Cc {
    /// DCTCP's α, for observation.
    pub fn alpha(&self) -> Option<f64> {
        match self {
            Cc::Dctcp(d) => Some(d.alpha()),
            Cc::D2tcp(d) => Some(d.alpha()),
            _ => None,
        }
    }
}

#[cfg(test)]
pub(crate) fn tcb(cwnd: u32, ssthresh: u32) -> Tcb {
    Tcb { cwnd, cwnd_cnt: 0, ssthresh, snd_una: 0, snd_nxt: 0, mss: 1000, cwnd_limited: true, now: Time::ZERO, srtt: None, min_rtt: None, in_flight: 0, request_cwr: false, pacing_rate: None, ca_state: CaState::Open, flow_size: None, deadline: None, rwnd: u64::MAX, seg_size: 1000 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_spills_into_ca() {
        // Linux: cwnd 8, ssthresh 10, 4 acked -> cwnd 10, 2 left for CA (cnt 2 of w 10).
        let mut t = tcb(8, 10);
        reno_cong_avoid(&mut t, 4);
        assert_eq!((t.cwnd, t.cwnd_cnt), (10, 2));
    }

    #[test]
    fn ca_adds_one_segment_per_window() {
        let mut t = tcb(10, 5);
        for _ in 0..9 {
            reno_cong_avoid(&mut t, 1);
        }
        assert_eq!(t.cwnd, 10);
        reno_cong_avoid(&mut t, 1);
        assert_eq!((t.cwnd, t.cwnd_cnt), (11, 0));
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut t = tcb(10, 100);
        t.cwnd_limited = false;
        reno_cong_avoid(&mut t, 5);
        assert_eq!(t.cwnd, 10);
    }
}
