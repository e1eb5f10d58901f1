//! A TCP connection after its sender finished: the receiver stays, the sender's state goes.
//!
//! Once every byte is acknowledged the sender never sends again (its handlers return early on a
//! completed flow), but duplicates still in flight reach the receiver, which answers them as a
//! TCP receiver does. `Closed` keeps exactly that: the receiver (which carries the few
//! configuration fields it reads), the sender's final figures for the flow table, and the name and
//! framing the table reports. A finished web-search flow then costs a few hundred bytes instead of
//! its scoreboard, segment layout and congestion-control state (and its share of the configuration).

use super::{timers, Receiver, TcpConnection};
use crate::host::Stacks;
use crate::packet::{Kind, Packet};
use crate::time::Time;
use crate::transport::timer::TimerId;
use crate::transport::{Endpoints, FlowStats, Framing, Outbox, Transport};

/// See the module documentation.
#[derive(Clone, Debug)]
pub struct Closed {
    ends: Endpoints,
    receiver: Receiver,
    name: &'static str,
    framing: Framing,
    stats: FlowStats,
    completed_at: Time,
}

impl From<&TcpConnection> for Closed {
    fn from(c: &TcpConnection) -> Closed {
        let completed_at = c.completed_at().expect("only a completed connection closes");
        let mut receiver = c.receiver.clone();
        receiver.shrink();
        Closed { ends: c.ends, receiver, name: c.name(), framing: c.framing(), stats: c.stats(), completed_at }
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
            Kind::Data => self.receiver.on_data(now, pkt, &self.ends, out),
            Kind::Syn => self.receiver.on_syn(now, &self.ends, out),
            Kind::Ack | Kind::SynAck | Kind::Control => {}
        }
    }
    fn on_timer(&mut self, now: Time, timer: TimerId, _: &mut Stacks, out: &mut Outbox) {
        if timer == timers::DELAYED_ACK {
            self.receiver.on_delack_timer(now, &self.ends, out);
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
        self.name
    }
    fn framing(&self) -> Framing {
        self.framing
    }
}

#[cfg(test)]
mod tests {
    /// What a finished flow costs in memory is what B7 (a million flows) multiplies: `Closed`
    /// holds its receiver and figures, not the connection's configuration (`TcpConfig` alone is
    /// over 300 bytes).
    #[test]
    fn closed_connection_is_small() {
        let closed = std::mem::size_of::<super::Closed>();
        let receiver = std::mem::size_of::<super::Receiver>();
        eprintln!("Closed {closed} B (receiver {receiver} B)");
        assert!(closed <= 448, "Closed is {closed} bytes");
    }
}
