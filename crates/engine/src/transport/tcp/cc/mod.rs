//! Pluggable congestion control, with hooks modelled on Linux `struct tcp_congestion_ops`
//! (include/net/tcp.h). The TCP core owns loss detection, recovery, RTO and ECN; a congestion
//! control only answers these calls. Windows are in segments, as in Linux (or, with `window =
//! "htsim_bytes"`, htsim's bytes, `byte_window.rs`, which the sender and DCTCP then update).
//!
//! To add an algorithm: write a type implementing [`CongestionOps`] in its own file (with its
//! `KNOBS`, if it has tunable constants) and add one line to the `registry!` at the end of this
//! file: the variant, its module and type, its scenario names, its knob list, its constructor and
//! a one-line description. The registry makes the [`Cc`] enum (dispatch is a `match`, so the
//! per-ACK path stays statically dispatched), [`CcKind`] (what a scenario selects), the catalog
//! and the knob lookup.

use crate::time::Time;
use crate::transport::ports::DROP_TAIL;

mod send_tick;
mod byte_window;
pub use byte_window::ByteWindow;

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

/// Most knobs an algorithm has (HPCC's).
pub const MAX_KNOBS: usize = 17;

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
    /// htsim's window in bytes, when the sender keeps one (`TcpConfig::htsim_bytes`,
    /// `byte_window.rs`); `cwnd` and `ssthresh` then follow it.
    pub bytes: Option<ByteWindow>,
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
    /// The part of a segment ssthresh holds beyond `tcb.ssthresh`, for algorithms that keep it
    /// in bytes (DCTCP's `byte_cut`, as ns-3's `TcpDctcp::GetSsThresh`); PRR in bytes
    /// (`TcpConfig::prr_bytes`) counts it. 0 for the others.
    fn ssthresh_fraction(&self) -> f64 {
        0.0
    }
    /// True for algorithms whose window step runs on an ACK that counts no whole segment: ns-3's
    /// `TcpSocketBase::ProcessAck` calls `IncreaseWindow` with 0 on the ACK that ends a loss state
    /// exactly at its recovery point (DCTCP's `ns3_growth`). False: no step without a segment.
    fn grows_on_no_segment(&self) -> bool {
        false
    }
    /// ssthresh for a reduction that starts in the loss state under ns-3's rules (a repeated
    /// timeout with `timeout_ssthresh = "every"`, an ECE ending it with `loss_exit = "ns3"`).
    /// None: the sender's rule there, half the flight before it, at least two segments (ns-3's
    /// `TcpNewReno::GetSsThresh`, and ns-3-dev's `TcpDctcp` since d3181b537).
    fn loss_state_ssthresh(&mut self, _tcb: &Tcb) -> Option<u32> {
        None
    }
    /// Per ACK, for `owns_cwnd` algorithms (Linux `cong_control`).
    fn cong_control(&mut self, _tcb: &mut Tcb, _rs: &RateSample) {}
    fn cwnd_event(&mut self, _tcb: &mut Tcb, _ev: CwndEvent) {}
    /// True for algorithms that read the ECE bit of ACKs as a signal of their own while ECN is
    /// not negotiated (reTCP: circuit state), so the core passes ECE through without reacting.
    fn reads_raw_ece(&self) -> bool {
        false
    }
    /// False for algorithms whose ECE response is their own (`in_ack_event`), so an ECE starts
    /// no CWR episode in the core (htsim's DCTCP: `dctcp.rs` `cwr_on_ece`).
    fn cwr_on_ece(&self) -> bool {
        true
    }
    /// State changes, called after `ssthresh` when a reduction starts.
    fn set_state(&mut self, _tcb: &mut Tcb, _s: CaState) {}
    /// True for SAB: data packets carry the window field for switches to lower, and the receiver
    /// echoes it in ACKs.
    fn sets_window_field(&self) -> bool {
        false
    }
    /// The flow's idle path (NIC rate, base RTT, switch count), before `init`, for algorithms
    /// whose CcKind `wants_path` (HPCC, Swift).
    fn path(&mut self, _p: &crate::transport::PathInfo) {}
    /// Per ACK that echoes in-band telemetry (HPCC §3.2), before `cong_control`; `owns_cwnd`
    /// algorithms only.
    fn on_int(&mut self, _tcb: &mut Tcb, _rec: &crate::switch::telemetry::IntRecord) {}
    /// For algorithms that send only on a timer of their own (htsim's HPCC source, HPCC's
    /// `send_timing = "tick"`): the earliest time at or after `from` (≥ `now`) a packet may
    /// leave. The sender asks while it paces; the default lets it leave at `from`.
    fn send_tick(&mut self, _now: Time, from: Time) -> Time {
        from
    }
    /// The sender found its NIC paused by PFC (`paused`: a NIC that holds its senders, `[pfc]
    /// stop_senders`) or was woken after its NIC drained (`!paused`: when the NIC has room after
    /// the RESUME, at the RESUME itself unless it still holds `send_limit` packets); for a source
    /// timer that a pause stops (`send_tick.rs`). True: the algorithm keeps
    /// such a timer, so the sender waits for the RESUME's wake even with its window full.
    fn nic_pause(&mut self, _now: Time, _paused: bool) -> bool {
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

/// Grow by `alpha` segments per window: α/cwnd per ACKed segment, through the accumulator `acc`.
/// At α = 1 that is Reno's rule, and it is counted with Reno's integer counter (`cong_avoid_ai`):
/// summing 1/cwnd in floating point can fall just short of 1 after cwnd ACKs (ten times 0.1 is
/// 0.999…), which would make an algorithm whose specification reduces to Reno lag it.
pub fn cong_avoid_alpha(tcb: &mut Tcb, acc: &mut f64, alpha: f64, acked: u32) {
    if alpha == 1.0 {
        let w = tcb.cwnd;
        cong_avoid_ai(tcb, w, acked);
    } else {
        let inc = acked as f64 * alpha / tcb.cwnd as f64;
        add_fraction(tcb, acc, inc);
    }
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

impl Cc {
    /// DCTCP's α, for observation.
    pub fn alpha(&self) -> Option<f64> {
        match self {
            Cc::Dctcp(d) => Some(d.alpha()),
            Cc::D2tcp(d) => Some(d.alpha()),
            Cc::L2dct(d) => Some(d.alpha()),
            Cc::Ppt(d) => Some(d.alpha()),
            Cc::Rc3(d) => Some(d.alpha()),
            _ => None,
        }
    }
    /// Set DCTCP's α (a connection reused by a new flow keeps it: `Transport::resume`); PPT and
    /// RC3 keep theirs per flow.
    pub fn set_alpha(&mut self, a: f64) {
        match self {
            Cc::Dctcp(d) => d.set_alpha(a),
            Cc::D2tcp(d) => d.set_alpha(a),
            Cc::L2dct(d) => d.set_alpha(a),
            _ => {}
        }
    }
}

/// The registry: for each algorithm `Variant: module::Type = ["scenario", "aliases"], knobs
/// KNOB_LIST, ports PAPER_PORTS, |seed, knobs| constructor, "description";` (`PAPER_PORTS`: what
/// it needs of the switch ports and its paper's setup, `transport/ports.rs`).
macro_rules! registry {
    ($($v:ident: $m:ident :: $t:ident = [$name:literal $(, $alias:literal)*], knobs $knobs:expr, ports $ports:expr, |$seed:ident, $k:ident| $build:expr, $help:literal;)*) => {
        $(mod $m; pub use $m::$t;)*

        /// The congestion controls this engine knows, statically dispatched.
        #[derive(Clone, Debug)]
        pub enum Cc { $($v($t),)* }

        /// Which congestion control a connection uses (its constants are in the knobs).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum CcKind { $($v,)* }

        /// Scenario names of the congestion controls with a one-line description.
        pub const CC_CATALOG: &[(&str, &str)] = &[$(($name, $help), $(($alias, concat!("the same as ", $name)),)*)*];

        /// Every scenario name and alias.
        pub const CC_NAMES: &[&str] = &[$($name, $($alias,)*)*];

        // Each algorithm's knobs fit in `Knobs`: checked when the engine is compiled, not at a run.
        $(const _: () = { let k: &[Knob] = $knobs; assert!(k.len() <= MAX_KNOBS, concat!($name, " has more knobs than MAX_KNOBS")) };)*

        impl CcKind {
            /// The algorithm's state; `seed` feeds the ones that draw random numbers (CDG, BBR);
            /// `k` holds the knobs a scenario set (`cc_params`, positions as in `knobs`).
            #[allow(unused_variables)]
            pub fn build(self, seed: u64, knobs: &Knobs) -> Cc {
                match self {
                    $(CcKind::$v => {
                        let ($seed, $k) = (seed, knobs);
                        Cc::$v($build)
                    })*
                }
            }
            /// The scenario name.
            pub fn name(self) -> &'static str {
                match self { $(CcKind::$v => $name,)* }
            }
            /// The algorithm by scenario name (or alias).
            pub fn from_name(name: &str) -> Option<CcKind> {
                match name { $($name $(| $alias)* => Some(CcKind::$v),)* _ => None }
            }
            /// Its tunable constants, in knob order.
            pub fn knobs(self) -> &'static [Knob] {
                match self { $(CcKind::$v => $knobs,)* }
            }
            /// What it needs of the switch ports and its paper's port setup.
            pub fn paper_ports(self) -> &'static crate::transport::ports::PaperPorts {
                match self { $(CcKind::$v => &$ports,)* }
            }
        }

        impl CongestionOps for Cc {
            fn name(&self) -> &'static str { match self { $(Cc::$v(c) => c.name(),)* } }
            fn init(&mut self, tcb: &mut Tcb) { match self { $(Cc::$v(c) => c.init(tcb),)* } }
            fn ssthresh(&mut self, tcb: &Tcb) -> u32 { match self { $(Cc::$v(c) => c.ssthresh(tcb),)* } }
            fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) { match self { $(Cc::$v(c) => c.cong_avoid(tcb, acked),)* } }
            fn in_ack_event(&mut self, tcb: &mut Tcb, ev: AckEvent) { match self { $(Cc::$v(c) => c.in_ack_event(tcb, ev),)* } }
            fn pkts_acked(&mut self, tcb: &mut Tcb, acked: u32, rtt: Option<Time>) { match self { $(Cc::$v(c) => c.pkts_acked(tcb, acked, rtt),)* } }
            fn owns_cwnd(&self) -> bool { match self { $(Cc::$v(c) => c.owns_cwnd(),)* } }
            fn ssthresh_fraction(&self) -> f64 { match self { $(Cc::$v(c) => c.ssthresh_fraction(),)* } }
            fn grows_on_no_segment(&self) -> bool { match self { $(Cc::$v(c) => c.grows_on_no_segment(),)* } }
            fn loss_state_ssthresh(&mut self, tcb: &Tcb) -> Option<u32> { match self { $(Cc::$v(c) => c.loss_state_ssthresh(tcb),)* } }
            fn cong_control(&mut self, tcb: &mut Tcb, rs: &RateSample) { match self { $(Cc::$v(c) => c.cong_control(tcb, rs),)* } }
            fn cwnd_event(&mut self, tcb: &mut Tcb, ev: CwndEvent) { match self { $(Cc::$v(c) => c.cwnd_event(tcb, ev),)* } }
            fn reads_raw_ece(&self) -> bool { match self { $(Cc::$v(c) => c.reads_raw_ece(),)* } }
            fn cwr_on_ece(&self) -> bool { match self { $(Cc::$v(c) => c.cwr_on_ece(),)* } }
            fn set_state(&mut self, tcb: &mut Tcb, s: CaState) { match self { $(Cc::$v(c) => c.set_state(tcb, s),)* } }
            fn sets_window_field(&self) -> bool { match self { $(Cc::$v(c) => c.sets_window_field(),)* } }
            fn path(&mut self, p: &crate::transport::PathInfo) { match self { $(Cc::$v(c) => c.path(p),)* } }
            fn on_int(&mut self, tcb: &mut Tcb, rec: &crate::switch::telemetry::IntRecord) { match self { $(Cc::$v(c) => c.on_int(tcb, rec),)* } }
            fn send_tick(&mut self, now: Time, from: Time) -> Time { match self { $(Cc::$v(c) => c.send_tick(now, from),)* } }
            fn nic_pause(&mut self, now: Time, paused: bool) -> bool { match self { $(Cc::$v(c) => c.nic_pause(now, paused),)* } }
        }
    };
}

/// The knobs of the algorithm named `cc` (scenario name or alias), in order.
pub fn knobs_of(cc: &str) -> &'static [Knob] {
    CcKind::from_name(cc).map_or(&[], CcKind::knobs)
}

/// Names a scenario may give instead of a number for knob `knob` of algorithm `cc` (a rule
/// chosen by name, e.g. L2DCT's `increase = "ns2"`), with the value each stands for.
pub fn knob_choices(cc: CcKind, knob: &str) -> &'static [(&'static str, f64)] {
    match (cc, knob) {
        (CcKind::L2dct, "increase") => l2dct::INCREASE_CHOICES,
        (CcKind::Hpcc, _) => hpcc::choices(knob),
        _ => &[],
    }
}

registry! {
    NewReno: newreno::NewReno = ["newreno", "reno"], knobs &[], ports DROP_TAIL, |seed, k| NewReno, "Reno/NewReno (RFC 5681, RFC 6582 or RFC 6675 recovery); Linux 'reno'";
    Dctcp: dctcp::Dctcp = ["dctcp"], knobs dctcp::DCTCP_KNOBS, ports dctcp::PORTS, |seed, k| Dctcp::with_knobs(dctcp::DctcpParams::default(), k), "DCTCP: ECN-fraction-proportional cut (RFC 8257)";
    Cubic: cubic::Cubic = ["cubic"], knobs cubic::KNOBS, ports DROP_TAIL, |seed, k| Cubic::new(cubic::CubicParams::default().with_knobs(k)), "CUBIC: cubic window growth from the last maximum (RFC 9438, Linux tcp_cubic)";
    Bic: bic::Bic = ["bic"], knobs bic::KNOBS, ports DROP_TAIL, |seed, k| Bic::new(bic::BicParams::default().with_knobs(k)), "BIC-TCP: binary search towards the last maximum (Linux tcp_bic)";
    HighSpeed: highspeed::HighSpeed = ["highspeed"], knobs &[], ports DROP_TAIL, |seed, k| HighSpeed::default(), "HighSpeed TCP: a(w)/b(w) response function above 38 segments (RFC 3649)";
    Htcp: htcp::Htcp = ["htcp"], knobs &[], ports DROP_TAIL, |seed, k| Htcp::default(), "H-TCP: increase grows with time since congestion, adaptive backoff (Linux tcp_htcp)";
    Hybla: hybla::Hybla = ["hybla"], knobs hybla::KNOBS, ports DROP_TAIL, |seed, k| Hybla::with_knobs(k), "Hybla: RTT-normalised growth for long paths (Linux tcp_hybla)";
    Scalable: scalable::Scalable = ["scalable"], knobs scalable::KNOBS, ports DROP_TAIL, |seed, k| Scalable::with_knobs(k), "Scalable TCP: +1 per 50 ACKs, cut by 1/8 (Linux tcp_scalable)";
    Veno: veno::Veno = ["veno"], knobs veno::KNOBS, ports DROP_TAIL, |seed, k| Veno::with_knobs(k), "Veno: Vegas backlog tells random from congestive loss (Linux tcp_veno)";
    Westwood: westwood::Westwood = ["westwood"], knobs &[], ports DROP_TAIL, |seed, k| Westwood::default(), "Westwood+: post-loss window from a bandwidth estimate (Linux tcp_westwood)";
    Vegas: vegas::Vegas = ["vegas"], knobs vegas::KNOBS, ports DROP_TAIL, |seed, k| Vegas::new(vegas::VegasParams::default().with_knobs(k)), "Vegas: keeps 2-4 packets queued per flow (Linux tcp_vegas)";
    Illinois: illinois::Illinois = ["illinois"], knobs illinois::KNOBS, ports DROP_TAIL, |seed, k| Illinois::with_knobs(k), "TCP-Illinois: loss sets direction, queuing delay sets the step (Linux tcp_illinois)";
    Yeah: yeah::Yeah = ["yeah"], knobs yeah::KNOBS, ports DROP_TAIL, |seed, k| Yeah::with_knobs(k), "YeAH: Scalable growth while the backlog is small, else Reno and drain (Linux tcp_yeah)";
    Ledbat: ledbat::Ledbat = ["ledbat"], knobs ledbat::KNOBS, ports DROP_TAIL, |seed, k| Ledbat::new(ledbat::LedbatParams::default().with_knobs(k)), "LEDBAT: scavenger keeping queuing delay at a target (RFC 6817, ns-3 flavour)";
    Nv: nv::Nv = ["nv"], knobs nv::KNOBS, ports DROP_TAIL, |seed, k| Nv::with_knobs(k), "TCP-NV: caps cwnd at the rate-times-min-RTT window plus a pad (Linux tcp_nv)";
    Cdg: cdg::BoxedCdg = ["cdg"], knobs cdg::KNOBS, ports DROP_TAIL, |seed, k| Box::new(Cdg::with_knobs(seed, k)), "CDG: probabilistic back-off on positive RTT gradients (Linux tcp_cdg)";
    Bbr: bbr::Bbr = ["bbr"], knobs bbr::KNOBS, ports DROP_TAIL, |seed, k| Bbr::with_knobs(seed, k), "BBR v1: paces at the measured bottleneck rate, cwnd = 2 BDP (Linux tcp_bbr)";
    Lp: lp::Lp = ["lp"], knobs lp::KNOBS, ports DROP_TAIL, |seed, k| Lp::with_knobs(k), "TCP-LP: low-priority scavenger backing off on early delay increase (Linux tcp_lp)";
    D2tcp: d2tcp::D2tcp = ["d2tcp"], knobs dctcp::KNOBS, ports dctcp::PORTS, |seed, k| D2tcp::new(dctcp::DctcpParams::default().with_knobs(k)), "D2TCP: DCTCP with the cut scaled by deadline imminence, p = alpha^d (SIGCOMM 2012)";
    Sab: sab::Sab = ["sab"], knobs &[], ports DROP_TAIL, |seed, k| Sab, "SAB: cwnd = the window switches write into data packets, eps*B/N (JSAC 2014 §IV); needs [sab] switches";
    L2dct: l2dct::L2dct = ["l2dct"], knobs l2dct::KNOBS, ports dctcp::PORTS, |seed, k| L2dct::new(l2dct::L2dctParams::default().with_knobs(k)), "L2DCT: DCTCP with increase and cut weighted by bytes sent, b = alpha^w_c (INFOCOM 2013 §III)";
    PFabric: pfabric::PFabric = ["pfabric-rc"], knobs pfabric::KNOBS, ports pfabric::PORTS, |seed, k| PFabric::with_knobs(k), "pFabric's minimal rate control: TCP growth capped at max_cwnd, timeouts only (SIGCOMM 2013 §4.2); use the 'pfabric' scheme";
    Hpcc: hpcc::Hpcc = ["hpcc"], knobs hpcc::KNOBS, ports hpcc::PORTS, |seed, k| Hpcc::with_knobs(k), "HPCC: window from the most loaded hop's INT-measured inflight, target eta 95 %, paced at W/T (SIGCOMM 2019 §3); telemetry on";
    Swift: swift::Swift = ["swift"], knobs swift::KNOBS, ports DROP_TAIL, |seed, k| Swift::with_knobs(k), "Swift-like: AIMD on fabric delay vs a target scaled by hops and flow window, paced below 1 packet (SIGCOMM 2020 §3)";
    Ppt: ppt::BoxedPpt = ["ppt"], knobs ppt::KNOBS, ports ppt::PORTS, |seed, k| Box::new(Ppt::with_knobs(k)), "PPT (SIGCOMM 2024): DCTCP loop + low-priority loop from the flow's tail (opened at start / at alpha_min, EWD, closed after 2 silent RTTs), mirror-symmetric P0-P3/P4-P7 tagging with buffer-aware identification";
    PptSwift: ppt_swift::PptSwift = ["ppt-swift"], knobs ppt_swift::KNOBS, ports ppt_swift::PORTS, |seed, k| PptSwift::with_knobs(k), "PPT on the Swift-like transport (SIGCOMM 2024 Fig. 14): Swift's window + a low-priority loop opened whenever the fabric delay is below the target (window: the spare up to the target), PPT's EWD, silence and tagging; Swift's knobs";
    Rc3: rc3::Rc3 = ["rc3"], knobs rc3::KNOBS, ports rc3::PORTS, |seed, k| Rc3::with_knobs(k), "RC3 (NSDI 2014) as PPT ran it: DCTCP primary loop + recursive low-priority loop sending the rest of the flow from its tail at line rate once, in classes 1..levels of factor^i x IW packets";
    Retcp: retcp::Retcp = ["retcp"], knobs retcp::KNOBS, ports DROP_TAIL, |seed, k| Retcp::new(retcp::RetcpParams::default().with_knobs(k)), "reTCP: NewReno, cwnd x2 / x0.5 when circuit state in ECE rises / falls (NSDI 2020 §5.3)";
}

// `Cc` holds PPT and CDG boxed (the registry exports `BoxedPpt`, `BoxedCdg`): their own types.
pub use self::cdg::Cdg;
pub use self::ppt::{Ppt, PptParams};
pub use self::rc3::Rc3Params;
pub use self::hpcc::HtsimRules as HpccHtsimRules;
/// The port setups the schemes built on these share (`scheme.rs`).
pub use self::{pfabric::PORTS as PFABRIC_PORTS, ppt::PORTS as PPT_PORTS};
/// PPT's LCP constants (`cc/ppt.rs`).
pub mod ppt_consts {
    pub use super::ppt::{marking_threshold, ALPHA_RTTS, IDENT_THRESHOLD, LAMBDA_HCP, LAMBDA_LCP, LCP_PER_ACK, SILENCE_RTTS};
}

#[cfg(test)]
pub(crate) fn tcb(cwnd: u32, ssthresh: u32) -> Tcb {
    Tcb { cwnd, cwnd_cnt: 0, ssthresh, snd_una: 0, snd_nxt: 0, mss: 1000, cwnd_limited: true, now: Time::ZERO, srtt: None, min_rtt: None, in_flight: 0, request_cwr: false, pacing_rate: None, ca_state: CaState::Open, flow_size: None, deadline: None, rwnd: u64::MAX, seg_size: 1000, bytes: None }
}

#[cfg(test)]
mod variants_tests;

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
