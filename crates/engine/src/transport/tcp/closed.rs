//! A TCP connection after its sender finished: the receiver stays, the sender's state goes.
//!
//! Once every byte is acknowledged the sender never sends again (its handlers return early on a
//! completed flow), but duplicates still in flight reach the receiver, which answers them as a
//! TCP receiver does. `Closed` keeps exactly that: the receiver, the configuration it reads, and
//! the sender's final figures for the flow table. A finished web-search flow then costs a few
//! hundred bytes instead of its scoreboard, segment layout and congestion-control state.

use super::{timers, Receiver, TcpConfig, TcpConnection};
use crate::host::Stacks;
use crate::packet::{Kind, Packet};
use crate::time::Time;
use crate::transport::timer::TimerId;
use crate::transport::{Endpoints, FlowStats, Framing, Outbox, Transport};

/// See the module documentation.
#[derive(Clone, Debug)]
pub struct Closed {
    ends: Endpoints,
    cfg: TcpConfig,
    receiver: Receiver,
    stats: FlowStats,
    completed_at: Time,
}

impl From<&TcpConnection> for Closed {
    fn from(c: &TcpConnection) -> Closed {
        let completed_at = c.completed_at().expect("only a completed connection closes");
        Closed { ends: c.ends, cfg: c.cfg, receiver: c.receiver.clone(), stats: c.stats(), completed_at }
    }
}

impl Transport for Closed {
    fn start(&mut self, _: Time, _: &mut Stacks, _: &mut Outbox) {}
    fn on_packet(&mut self, now: Time, pkt: &Packet, _: &mut Stacks, out: &mut Outbox) {
        // The receiver's half of `TcpConnection::on_packet`; the sender ignores everything now.
        if pkt.bounced {
            return;
        }
        match pkt.kind {
            Kind::Data => self.receiver.on_data(now, pkt, &self.cfg, &self.ends, out),
            Kind::Syn => self.receiver.on_syn(now, &self.cfg, &self.ends, out),
            Kind::Ack | Kind::SynAck | Kind::Control => {}
        }
    }
    fn on_timer(&mut self, now: Time, timer: TimerId, _: &mut Stacks, out: &mut Outbox) {
        if timer == timers::DELAYED_ACK {
            self.receiver.on_delack_timer(now, &self.cfg, &self.ends, out);
        }
    }
    fn on_send_ready(&mut self, _: Time, _: &mut Stacks, _: &mut Outbox) {}
    fn completed_at(&self) -> Option<Time> {
        Some(self.completed_at)
    }
    fn stats(&self) -> FlowStats {
        FlowStats { bytes_delivered: self.receiver.delivered(), ..self.stats }
    }
    fn stop(&mut self, _: Time, _: &mut Stacks, _: &mut Outbox) -> u64 {
        self.stats.bytes_acked
    }
    fn keep_open(&mut self, _: bool) {}
    fn write(&mut self, _: Time, _: u64, _: bool, _: &mut Stacks, _: &mut Outbox) {}
    fn set_deadline(&mut self, _: Time) {}
    fn seed_rtt(&mut self, _: Time) {}
    fn window(&self) -> Option<f64> {
        None
    }
    fn congestion(&self) -> Option<f64> {
        None
    }
    fn name(&self) -> &'static str {
        self.cfg.scheme.unwrap_or(self.cfg.cc.name())
    }
    fn framing(&self) -> Framing {
        self.cfg.framing()
    }
}
