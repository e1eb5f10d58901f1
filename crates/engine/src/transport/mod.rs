//! Transports: endpoint pairs (a sender at the source host, a receiver at the destination) that
//! talk to the network only through an [`Outbox`]: packets to inject and timers to set.
//!
//! To add a transport: implement [`Transport`] in its own module and add a variant to
//! [`FlowTransport`]; the simulator dispatches with a `match` (no trait objects per packet).

pub mod tcp;

use crate::event::TimerKind;
use crate::ids::{FlowId, NodeId};
use crate::packet::Packet;
use crate::time::Time;

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
    pub timers: Vec<(Time, TimerKind)>,
    /// Data packets the sender's NIC accepts now (backpressure; ACKs are exempt).
    pub budget: u64,
    /// Set by a transport that stopped for lack of budget: wake it when the NIC drains.
    pub blocked: bool,
    /// The telemetry the packet being delivered collected (packets that asked for it).
    pub int_in: Option<crate::switch::telemetry::IntRecord>,
    /// Telemetry to attach to packets of `packets` (by index): echoes of collected records.
    pub int_out: Vec<(u32, crate::switch::telemetry::IntRecord)>,
}

impl Outbox {
    pub fn clear(&mut self) {
        self.packets.clear();
        self.timers.clear();
        self.blocked = false;
        self.int_in = None;
        self.int_out.clear();
    }
}

/// The contract between the simulator and a transport.
pub trait Transport {
    /// The flow starts (its start time has come).
    fn start(&mut self, now: Time, out: &mut Outbox);
    /// A packet of this flow arrived at one of its endpoints.
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Outbox);
    /// A timer this flow set has fired (possibly stale: transports cancel lazily).
    fn on_timer(&mut self, now: Time, kind: TimerKind, out: &mut Outbox);
    /// The sender's NIC has room again after this transport reported `blocked`.
    fn on_send_ready(&mut self, now: Time, out: &mut Outbox);
    /// When the last byte was acknowledged, if it has been.
    fn completed_at(&self) -> Option<Time>;
}

/// Every transport the engine knows (static dispatch).
#[derive(Clone, Debug)]
pub enum FlowTransport {
    Tcp(Box<tcp::TcpConnection>),
}

impl Transport for FlowTransport {
    fn start(&mut self, now: Time, out: &mut Outbox) {
        match self {
            FlowTransport::Tcp(t) => t.start(now, out),
        }
    }
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Outbox) {
        match self {
            FlowTransport::Tcp(t) => t.on_packet(now, pkt, out),
        }
    }
    fn on_timer(&mut self, now: Time, kind: TimerKind, out: &mut Outbox) {
        match self {
            FlowTransport::Tcp(t) => t.on_timer(now, kind, out),
        }
    }
    fn on_send_ready(&mut self, now: Time, out: &mut Outbox) {
        match self {
            FlowTransport::Tcp(t) => t.on_send_ready(now, out),
        }
    }
    fn completed_at(&self) -> Option<Time> {
        match self {
            FlowTransport::Tcp(t) => t.completed_at(),
        }
    }
}
