//! Transports: endpoint pairs (a sender at the source host, a receiver at the destination) that
//! talk to the network only through an [`Outbox`]: packets to inject and timers to set.
//!
//! The seam has three parts:
//! - [`TransportConfig`]: what a scenario says about a flow's transport, one variant per
//!   transport (`[transport] kind`); it builds the flow's state and answers what the simulator
//!   needs before the flow runs (packet sizes, whether to seed an RTT).
//! - [`Transport`]: everything the simulator does with or reads from a running flow — events in
//!   (start, packets, its own timers, NIC room), application calls (stop, write, deadline) and
//!   observations (completion, [`FlowStats`], sampled window and congestion estimate).
//! - [`FlowTransport`]: the enum the simulator holds per flow; dispatch is one `match` per call
//!   (no trait objects on the per-packet path).
//!
//! A transport's packets carry its own header (`packet::Header`, one variant per protocol) beside
//! the network fields switches read; it owns its timers ([`timer::LazyTimer`], ids of its own).
//!
//! To add a transport (as `ndp/` and `homa/`): a module under `transport/` with its header,
//! config and state implementing [`Transport`]; a variant in `packet::Header`,
//! [`TransportConfig`] and [`FlowTransport`] (the `dispatch!` list below); per-host state, if
//! it needs any, as a field of `host::Stacks`; its `kind` and keys in `scenario/kinds.rs`; and
//! what it needs of the switch ports with its paper's port setup (a `ports::PaperPorts` in its
//! own file, returned by [`TransportConfig::paper_ports`]).

pub mod homa;
pub mod ndp;
pub mod ports;
pub mod tcp;
pub mod timer;

use crate::host::{HostTimerId, Stacks};
use crate::ids::{FlowId, NodeId};
use crate::packet::Packet;
use crate::time::Time;
use timer::TimerId;

/// Who a flow's packets are from and to, and the hashes ECMP uses for each direction.
#[derive(Clone, Copy, Debug)]
pub struct Endpoints {
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub hash_fwd: u64,
    pub hash_rev: u64,
}

/// What a transport asks of the simulator after handling an event. Reused across calls, so
/// steady-state operation allocates nothing.
#[derive(Debug, Default)]
pub struct Outbox {
    pub packets: Vec<Packet>,
    pub timers: Vec<(Time, TimerId)>,
    /// Data packets the sender's NIC accepts now (backpressure; ACKs are exempt).
    pub budget: u64,
    /// Set by a transport that stopped for lack of budget: wake it when the NIC drains.
    pub blocked: bool,
    /// The telemetry the packet being delivered collected (packets that asked for it); boxed
    /// (a box the simulator reuses) so the outbox stays small.
    pub int_in: Option<Box<crate::switch::telemetry::IntRecord>>,
    /// Telemetry to attach to packets of `packets` (by index): echoes of collected records.
    pub int_out: Vec<(u32, crate::switch::telemetry::IntRecord)>,
    /// Host timers to set (per-host transport state, `host::Stacks`).
    pub host_timers: Vec<(Time, NodeId, HostTimerId)>,
    /// Packets waiting in the sender's NIC queue now (transports that keep it short: Homa).
    pub nic_queued: u64,
    /// Per-host state that stopped for NIC room names the flow to wake when the NIC drains
    /// (otherwise the flow whose event this is).
    pub waiter: Option<FlowId>,
}

impl Outbox {
    pub fn clear(&mut self) {
        self.packets.clear();
        self.timers.clear();
        self.blocked = false;
        self.int_in = None;
        self.int_out.clear();
        self.host_timers.clear();
        self.waiter = None;
    }
}

/// A flow's counters, as the flow table reports them. Transports fill what applies to them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowStats {
    /// Bytes the sender knows were delivered (cumulatively acknowledged).
    pub bytes_acked: u64,
    /// Bytes the receiver got in order.
    pub bytes_delivered: u64,
    /// When the connection was set up (handshake done), if it has been.
    pub established_at: Option<Time>,
    /// Data packets sent, first transmissions and retransmissions.
    pub packets_sent: u64,
    pub retransmits: u64,
    /// Data packets of this flow cut to headers by trimming switches, as its receiver saw them
    /// (NDP: each answered with a NACK).
    pub trimmed: u64,
    /// Receiver-driven transports: credit messages the receiver sent (NDP PULLs, Homa GRANTs).
    pub credits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// Window reductions on congestion signals (ECN).
    pub ecn_reductions: u64,
}

/// Sizes the ideal FCT needs: payload per data packet, header bytes, control (ACK) bytes, and
/// whether a connection handshake precedes the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Framing {
    pub payload: u32,
    pub header: u32,
    pub control: u32,
    pub handshake: bool,
    /// The sender spreads its packets over paths itself (NDP): the ideal FCT is the sprayed one.
    pub sprays: bool,
}

/// The contract between the simulator and a transport. Every event comes with the per-host
/// transport state of all hosts (`Stacks`); a protocol reads only its own field of it.
pub trait Transport {
    /// The flow starts (its start time has come).
    fn start(&mut self, now: Time, st: &mut Stacks, out: &mut Outbox);
    /// A packet of this flow arrived at one of its endpoints.
    fn on_packet(&mut self, now: Time, pkt: &Packet, st: &mut Stacks, out: &mut Outbox);
    /// A timer this flow set has fired (possibly stale: transports cancel lazily).
    fn on_timer(&mut self, now: Time, timer: TimerId, st: &mut Stacks, out: &mut Outbox);
    /// The sender's NIC has room again after this transport reported `blocked`.
    fn on_send_ready(&mut self, now: Time, st: &mut Stacks, out: &mut Outbox);
    /// A PFC PAUSE reached the sender's NIC, which holds its senders (`[pfc] stop_senders`):
    /// a transport whose source keeps a timer of its own stops it now and reports `blocked` to
    /// be woken at the RESUME (htsim's `HPCCSrc::processPause`). Default: nothing.
    fn on_nic_paused(&mut self, _now: Time, _out: &mut Outbox) {}
    /// When the last byte was acknowledged, if it has been.
    fn completed_at(&self) -> Option<Time>;
    fn stats(&self) -> FlowStats;
    /// The application stops writing now; returns the bytes the flow will have carried.
    fn stop(&mut self, now: Time, st: &mut Stacks, out: &mut Outbox) -> u64;
    /// Make this (not yet started) flow persistent: more data comes through `write`; `last` =
    /// the data it was made with is also the last.
    fn keep_open(&mut self, last: bool);
    /// The application writes `bytes` more on a persistent flow; `last` closes it.
    fn write(&mut self, now: Time, bytes: u64, last: bool, st: &mut Stacks, out: &mut Outbox);
    /// The flow should finish by `at` (absolute); deadline-aware transports read it.
    fn set_deadline(&mut self, at: Time);
    /// The idle-path round trip, for transports that seed an RTT estimate with it.
    fn seed_rtt(&mut self, rtt: Time);
    /// What the flow's path looks like when idle (`TransportConfig::wants_path`): given before
    /// the flow starts to congestion controls that size their first window or delay target
    /// from it (HPCC, Swift).
    fn set_path(&mut self, _path: PathInfo) {}
    /// The sender's window (packets), sampled as `cwnd`.
    fn window(&self) -> Option<f64>;
    /// The sender's congestion estimate (DCTCP's α), sampled as `dctcp_alpha`.
    fn congestion(&self) -> Option<f64>;
    /// The sender's smoothed RTT, sampled as `srtt_s` (`[output] flows`).
    fn rtt(&self) -> Option<Time> {
        None
    }
    /// The sender's rate in payload bits/s, sampled as `rate_bps` (`[output] flows`).
    fn rate_bps(&self) -> Option<f64> {
        None
    }
    /// The name the flow table reports in `cc` (TCP: its congestion control).
    fn name(&self) -> &'static str;
    /// Its packet sizes (as `TransportConfig::framing`).
    fn framing(&self) -> Framing;
    /// What its connection keeps for the next flow when flows reuse connections
    /// (`[[workload]] connections = "persistent"`); `None` = nothing.
    fn carry(&self) -> Option<Carry> {
        None
    }
    /// Start (before `start`) from what a previous flow on the same connection left.
    fn resume(&mut self, _c: Carry) {}
}

/// The state a connection carries from one flow to the next when a workload reuses connections:
/// ns-2's FullTcpAgent::advance_bytes, which the HKUST PIAS/TCN scripts call per flow on a
/// persistent connection, resets cwnd to the initial window and the L2DCT byte count, and keeps
/// the rest — the slow-start threshold and DCTCP's α among it (HKUST-SING/PIAS-NS2,
/// tcp/tcp-full.cc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Carry {
    pub ssthresh: u32,
    /// DCTCP's α (also D2TCP's and L2DCT's), if the congestion control has one.
    pub alpha: Option<f64>,
    /// The connection's last window reduction was an ECN reaction (ns-2's `last_cwnd_action_`,
    /// which `FullTcpAgent::advance_bytes` keeps; `TimeoutSsthresh::Ns2` reads it).
    pub ecn_cut_last: bool,
}

/// A flow's idle path, as `Transport::set_path` hands it over.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathInfo {
    /// The sender's NIC line rate.
    pub nic_rate: crate::time::Rate,
    /// Round trip of one full data segment out and its ACK back on the idle path
    /// (serialization at every hop plus propagation).
    pub base_rtt: Time,
    /// Switches the data crosses (links on the path minus one).
    pub switches: u32,
    /// Bytes of a full data segment on the wire (payload + header).
    pub segment: u32,
}

/// A flow's transport as a scenario configures it (one variant per `kind`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TransportConfig {
    Tcp(tcp::TcpConfig),
    Ndp(ndp::NdpConfig),
    Homa(homa::HomaConfig),
}

impl TransportConfig {
    /// The flow's state for a flow of `size` bytes (`None` = long-lived); a TCP connection takes
    /// its configuration from `shared`.
    pub fn build(&self, ends: Endpoints, size: Option<u64>, shared: &mut tcp::SharedConfigs) -> FlowTransport {
        match self {
            TransportConfig::Tcp(c) => FlowTransport::Tcp(Box::new(tcp::TcpConnection::with_config(ends, shared.get(c), size))),
            TransportConfig::Ndp(c) => FlowTransport::Ndp(Box::new(ndp::NdpFlow::new(ends, *c, size))),
            TransportConfig::Homa(c) => FlowTransport::Homa(Box::new(homa::HomaFlow::new(ends, *c, size))),
        }
    }
    pub fn framing(&self) -> Framing {
        match self {
            TransportConfig::Tcp(c) => c.framing(),
            TransportConfig::Ndp(c) => c.framing(),
            TransportConfig::Homa(c) => c.framing(),
        }
    }
    /// Should the flow be given the idle-path RTT before it starts (`Transport::seed_rtt`)?
    pub fn seeds_rtt(&self) -> bool {
        match self {
            TransportConfig::Tcp(c) => (c.handshake_rtt && !c.handshake) || matches!(c.fixed_rto, tcp::FixedRto::Rtts(_)),
            TransportConfig::Ndp(_) | TransportConfig::Homa(_) => false,
        }
    }
    /// Does the flow want its idle path described before it starts (`Transport::set_path`)?
    pub fn wants_path(&self) -> bool {
        match self {
            TransportConfig::Tcp(c) => c.cc.wants_path(),
            TransportConfig::Ndp(_) | TransportConfig::Homa(_) => false,
        }
    }
    /// The `kind` a scenario names it by.
    pub fn kind(&self) -> &'static str {
        match self {
            TransportConfig::Tcp(_) => "tcp",
            TransportConfig::Ndp(_) => "ndp",
            TransportConfig::Homa(c) if c.aeolus => "aeolus",
            TransportConfig::Homa(_) => "homa",
        }
    }
    /// What the transport needs of the switch ports and its paper's port setup (`ports.rs`):
    /// a TCP profile's scheme's, else its congestion control's.
    pub fn paper_ports(&self) -> &'static ports::PaperPorts {
        match self {
            TransportConfig::Tcp(c) => c.scheme.and_then(tcp::scheme::scheme).map_or_else(|| c.cc.paper_ports(), |s| &s.ports),
            TransportConfig::Ndp(_) => &ndp::PORTS,
            TransportConfig::Homa(c) if c.aeolus => &homa::AEOLUS_PORTS,
            TransportConfig::Homa(_) => &homa::PORTS,
        }
    }
    /// [`Self::paper_ports`]'s needs for this configuration (queues: Homa's priority levels, the
    /// classes a PIAS or Flash sender tags).
    pub fn port_needs(&self) -> ports::Needs {
        let mut n = self.paper_ports().needs;
        match self {
            TransportConfig::Homa(h) => n.queues = h.priorities,
            TransportConfig::Tcp(c) => match c.priority {
                tcp::priority::Priority::Mlfq { n: k, .. } | tcp::priority::Priority::Flash { n: k, .. } => n.queues = k,
                _ => {}
            },
            TransportConfig::Ndp(_) => {}
        }
        n
    }
    /// The TCP configuration, if this is TCP.
    pub fn tcp(&self) -> Option<&tcp::TcpConfig> {
        match self {
            TransportConfig::Tcp(c) => Some(c),
            _ => None,
        }
    }
}

/// Every transport the engine knows (static dispatch).
#[derive(Clone, Debug)]
pub enum FlowTransport {
    Tcp(Box<tcp::TcpConnection>),
    Ndp(Box<ndp::NdpFlow>),
    Homa(Box<homa::HomaFlow>),
    /// A completed TCP flow whose sender state was released (`FlowTransport::finish`).
    TcpClosed(Box<tcp::Closed>),
}

impl FlowTransport {
    /// Start loading the state a packet of kind `ack` (true: an acknowledgement, for the
    /// sender) or data (the receiver) will touch: a hint for the event loop's prefetch pipeline.
    #[inline]
    pub fn prefetch(&self, ack: bool) {
        use crate::packet::prefetch_lines;
        match self {
            FlowTransport::Tcp(c) if ack => prefetch_lines(&c.sender, 8),
            FlowTransport::Tcp(c) => prefetch_lines(&c.receiver, 4),
            FlowTransport::TcpClosed(c) => prefetch_lines(&**c, 2),
            FlowTransport::Ndp(f) => prefetch_lines(&**f, 4),
            FlowTransport::Homa(f) => prefetch_lines(&**f, 4),
        }
    }

    /// Release what a completed flow no longer needs (TCP: the sender — scoreboard, segment
    /// layout, congestion control — keeping the receiver, which still answers late duplicates
    /// exactly as before). Memory then grows with active flows, not with all flows ever made.
    /// Other transports keep their state (their receivers are driven by per-host state).
    pub fn finish(&mut self) {
        if let FlowTransport::Tcp(c) = self {
            if c.sender.completed_at().is_some() {
                let closed = tcp::Closed::from(&**c);
                *self = FlowTransport::TcpClosed(Box::new(closed));
            }
        }
    }
}

/// `dispatch!(self, t => expr)`: `expr` with `t` bound to the flow's transport, per variant.
macro_rules! dispatch {
    ($self:ident, $t:ident => $e:expr) => {
        match $self {
            FlowTransport::Tcp($t) => $e,
            FlowTransport::Ndp($t) => $e,
            FlowTransport::Homa($t) => $e,
            FlowTransport::TcpClosed($t) => $e,
        }
    };
}

impl Transport for FlowTransport {
    #[inline]
    fn start(&mut self, now: Time, st: &mut Stacks, out: &mut Outbox) {
        dispatch!(self, t => t.start(now, st, out))
    }
    #[inline]
    fn on_packet(&mut self, now: Time, pkt: &Packet, st: &mut Stacks, out: &mut Outbox) {
        dispatch!(self, t => t.on_packet(now, pkt, st, out))
    }
    #[inline]
    fn on_timer(&mut self, now: Time, timer: TimerId, st: &mut Stacks, out: &mut Outbox) {
        dispatch!(self, t => t.on_timer(now, timer, st, out))
    }
    #[inline]
    fn on_send_ready(&mut self, now: Time, st: &mut Stacks, out: &mut Outbox) {
        dispatch!(self, t => t.on_send_ready(now, st, out))
    }
    fn on_nic_paused(&mut self, now: Time, out: &mut Outbox) {
        dispatch!(self, t => t.on_nic_paused(now, out))
    }
    #[inline]
    fn completed_at(&self) -> Option<Time> {
        dispatch!(self, t => t.completed_at())
    }
    fn stats(&self) -> FlowStats {
        dispatch!(self, t => t.stats())
    }
    fn stop(&mut self, now: Time, st: &mut Stacks, out: &mut Outbox) -> u64 {
        dispatch!(self, t => t.stop(now, st, out))
    }
    fn keep_open(&mut self, last: bool) {
        dispatch!(self, t => t.keep_open(last))
    }
    fn write(&mut self, now: Time, bytes: u64, last: bool, st: &mut Stacks, out: &mut Outbox) {
        dispatch!(self, t => t.write(now, bytes, last, st, out))
    }
    fn set_deadline(&mut self, at: Time) {
        dispatch!(self, t => t.set_deadline(at))
    }
    fn seed_rtt(&mut self, rtt: Time) {
        dispatch!(self, t => t.seed_rtt(rtt))
    }
    fn set_path(&mut self, path: PathInfo) {
        dispatch!(self, t => t.set_path(path))
    }
    fn window(&self) -> Option<f64> {
        dispatch!(self, t => t.window())
    }
    fn congestion(&self) -> Option<f64> {
        dispatch!(self, t => t.congestion())
    }
    fn rtt(&self) -> Option<Time> {
        dispatch!(self, t => t.rtt())
    }
    fn rate_bps(&self) -> Option<f64> {
        dispatch!(self, t => t.rate_bps())
    }
    fn name(&self) -> &'static str {
        dispatch!(self, t => t.name())
    }
    fn framing(&self) -> Framing {
        dispatch!(self, t => t.framing())
    }
    fn carry(&self) -> Option<Carry> {
        dispatch!(self, t => t.carry())
    }
    fn resume(&mut self, c: Carry) {
        dispatch!(self, t => t.resume(c))
    }
}
