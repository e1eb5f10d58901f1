//! Homa (Montazeri, Li, Alizadeh, Ousterhout, "Homa: A Receiver-Driven Low-Latency Transport
//! Protocol Using Network Priorities", SIGCOMM 2018): messages, receiver grants with SRPT and
//! overcommitment, and in-network priorities.
//!
//! - A message sends its first RTTbytes unscheduled (§3.2), at the priority its length maps to
//!   through the unscheduled cut-offs (§3.4, computed from the workload's size distribution).
//! - The receiver's grant scheduler ([`receiver::Inbound`], per host) grants the k messages with
//!   the fewest bytes left to grant (one per sender) so each has RTTbytes in flight, at the
//!   scheduled priority its rank gives (§3.3–3.5).
//! - The sender ([`sender::Outbound`], per host) sends one packet at a time, from the message with
//!   the fewest bytes left (§3.3).
//! - Loss (§3.7): a receiver that expects data and hears nothing for `resend_interval` sends
//!   RESEND for the first missing range; the sender resends it, answering BUSY if another message
//!   of its own goes first. The receiver ACKs a complete message (as Linux Homa does); the
//!   message's completion time is that ACK's arrival at the sender, as for every transport here.
//!
//! - Aeolus (Hu et al., "Aeolus: A Building Block for Proactive Transport in Datacenters",
//!   SIGCOMM 2020), `kind = "aeolus"`: Homa's unscheduled packets go out droppable at line rate
//!   (§3.2, switches drop them above a small threshold: `[queue] selective_drop`); a PROBE
//!   follows them and the receiver has the lost ones resent first as scheduled packets (§3.3,
//!   [`receiver`]); scheduled losses are left to Homa's timeouts, as the paper says.
//!
//! Switches: strict-priority ports with `priorities` queues (class c → queue c).
//! Not modelled: the RPC request/response pairing, incast optimisation, FIFO grants, cut-off
//! updates at run time.

pub mod config;
pub mod header;
pub mod receiver;
pub mod sender;

pub use config::HomaConfig;
pub use header::{HomaHeader, HomaKind};
pub use receiver::{InSlot, Inbound};
pub use sender::{OutSlot, Outbound};

use super::ports::{bytes, pkts, strict_queues, Needs, PaperPorts, PortSetup};
use super::timer::TimerId;
use super::TransportConfig;
use super::{Endpoints, FlowStats, Framing, Outbox, Transport};
use crate::host::{HostInfo, HostTimer, HostTimerId, Stacks};
use crate::packet::{Header, Packet};
use crate::time::Time;

/// One host's Homa state: its outgoing and incoming messages, and the timeout scan.
#[derive(Clone, Debug)]
pub struct HomaHost {
    cfg: HomaConfig,
    pub outbound: Outbound,
    pub inbound: Inbound,
    scan: HostTimer,
}

impl HomaHost {
    pub fn new(host: HostInfo, cfg: &HomaConfig) -> HomaHost {
        HomaHost { cfg: *cfg, outbound: Outbound::default(), inbound: Inbound::default(), scan: HostTimer::new(host.node, HostTimerId::HomaScan) }
    }

    /// Keep the timeout scan running while messages are live.
    fn arm_scan(&mut self, now: Time, out: &mut Outbox) {
        if self.scan.deadline().is_none() {
            self.scan.set(now + self.cfg.resend_interval, out);
        }
    }

    pub fn on_scan_timer(&mut self, now: Time, out: &mut Outbox) {
        if !self.scan.fired(now, out) {
            return;
        }
        let rx = self.inbound.scan(now, &self.cfg, out);
        let tx = self.outbound.scan(now, &self.cfg);
        self.outbound.pump(&self.cfg, out);
        if rx || tx {
            self.scan.set(now + self.cfg.resend_interval, out);
        }
    }
}

/// One message: the flow object keeps its slots in the two hosts' tables and what the flow
/// table reports; the protocol state is in the hosts' tables.
#[derive(Clone, Debug)]
pub struct HomaFlow {
    ends: Endpoints,
    cfg: HomaConfig,
    size: u64,
    out: Option<OutSlot>,
    inb: Option<InSlot>,
    /// The receiver has the whole message.
    received_all: bool,
    delivered: u64,
    done: Option<Time>,
    stats: FlowStats,
}

impl HomaFlow {
    /// A message of `size` bytes (Homa carries messages: a long-lived flow is validated away;
    /// `None` here is one byte).
    pub fn new(ends: Endpoints, cfg: HomaConfig, size: Option<u64>) -> HomaFlow {
        HomaFlow { ends, cfg, size: size.unwrap_or(1).max(1), out: None, inb: None, received_all: false, delivered: 0, done: None, stats: FlowStats::default() }
    }

    fn receiver_data(&mut self, now: Time, h: &HomaHeader, st: &mut Stacks, out: &mut Outbox) {
        let host = st.homa.at(self.ends.dst);
        if self.received_all {
            // The ACK was lost and the sender timed out: acknowledge again.
            out.packets.push(receiver::control(&self.ends, &self.cfg, HomaHeader::new(HomaKind::Ack)));
            return;
        }
        let slot = match self.inb {
            Some(s) => s,
            None => {
                let s = host.inbound.add(self.ends, h.msg_len, h.unsched, &self.cfg, now);
                self.inb = Some(s);
                s
            }
        };
        let a = host.inbound.on_data(slot, h, &self.cfg, now);
        self.delivered += a.new_bytes;
        self.stats.credits = host.inbound.grants(slot);
        if a.complete {
            self.received_all = true;
            out.packets.push(receiver::control(&self.ends, &self.cfg, HomaHeader::new(HomaKind::Ack)));
        }
        host.inbound.schedule(now, &self.cfg, out);
        host.arm_scan(now, out);
    }

    /// Aeolus's PROBE: the unscheduled packets that have not arrived are lost.
    fn receiver_probe(&mut self, now: Time, h: &HomaHeader, st: &mut Stacks, out: &mut Outbox) {
        if self.received_all {
            return;
        }
        let host = st.homa.at(self.ends.dst);
        let slot = match self.inb {
            Some(s) => s,
            None => {
                let s = host.inbound.add(self.ends, h.msg_len, h.unsched, &self.cfg, now);
                self.inb = Some(s);
                s
            }
        };
        host.inbound.on_probe(slot, h.unsched, now);
        host.inbound.schedule(now, &self.cfg, out);
        self.stats.credits = host.inbound.grants(slot);
        host.arm_scan(now, out);
    }

    fn sender_control(&mut self, now: Time, h: &HomaHeader, st: &mut Stacks, out: &mut Outbox) {
        let host = st.homa.at(self.ends.src);
        let Some(slot) = self.out else { return };
        if self.done.is_some() {
            return;
        }
        match h.kind {
            HomaKind::Grant => host.outbound.on_grant(slot, h, now),
            HomaKind::Resend => {
                if host.outbound.on_resend(slot, h, &self.cfg, now) {
                    out.packets.push(busy(&self.ends, &self.cfg));
                }
            }
            HomaKind::Ack => {
                self.done = Some(now);
                self.sync_stats(st);
                st.homa.at(self.ends.src).outbound.finish(slot);
                // The slot may go to another message now: this flow no longer reads it.
                self.out = None;
                st.homa.at(self.ends.src).outbound.pump(&self.cfg, out);
                return;
            }
            HomaKind::Busy | HomaKind::Data | HomaKind::Probe => {}
        }
        self.sync_stats(st);
        st.homa.at(self.ends.src).outbound.pump(&self.cfg, out);
    }

    /// The sender's counters live with the message in the host table; the flow keeps a copy.
    fn sync_stats(&mut self, st: &mut Stacks) {
        if let Some(s) = self.out {
            let m = st.homa.at(self.ends.src).outbound.get(s).stats;
            self.stats.packets_sent = m.packets_sent;
            self.stats.retransmits = m.retransmits;
            self.stats.timeouts = m.timeouts;
        }
    }
}

/// BUSY from the sender (§3.7).
fn busy(ends: &Endpoints, cfg: &HomaConfig) -> Packet {
    Packet::new(ends.flow, ends.src, ends.dst, cfg.control, crate::packet::Kind::Control, ends.hash_fwd, Header::Homa(HomaHeader::new(HomaKind::Busy)))
}

impl Transport for HomaFlow {
    fn start(&mut self, now: Time, st: &mut Stacks, out: &mut Outbox) {
        let host = st.homa.at(self.ends.src);
        self.out = Some(host.outbound.add(self.ends, self.size, &self.cfg, now));
        host.outbound.pump(&self.cfg, out);
        host.arm_scan(now, out);
        self.sync_stats(st);
    }
    fn on_packet(&mut self, now: Time, pkt: &Packet, st: &mut Stacks, out: &mut Outbox) {
        let Header::Homa(h) = pkt.hdr else { return };
        match h.kind {
            HomaKind::Data => self.receiver_data(now, &h, st, out),
            HomaKind::Probe => self.receiver_probe(now, &h, st, out),
            HomaKind::Busy => {
                if let Some(s) = self.inb.filter(|_| !self.received_all) {
                    st.homa.at(self.ends.dst).inbound.on_busy(s, now);
                }
            }
            _ => self.sender_control(now, &h, st, out),
        }
    }
    fn on_timer(&mut self, _: Time, _: TimerId, _: &mut Stacks, _: &mut Outbox) {}
    fn on_send_ready(&mut self, _: Time, st: &mut Stacks, out: &mut Outbox) {
        st.homa.at(self.ends.src).outbound.pump(&self.cfg, out);
        self.sync_stats(st);
    }
    fn completed_at(&self) -> Option<Time> {
        self.done
    }
    fn stats(&self) -> FlowStats {
        let acked = if self.done.is_some() { self.size } else { 0 };
        FlowStats { bytes_acked: acked, bytes_delivered: self.delivered, ..self.stats }
    }
    fn stop(&mut self, _: Time, _: &mut Stacks, _: &mut Outbox) -> u64 {
        self.size
    }
    fn keep_open(&mut self, _last: bool) {}
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
        if self.cfg.aeolus {
            "aeolus"
        } else {
            "homa"
        }
    }
    fn framing(&self) -> Framing {
        self.cfg.framing()
    }
}

/// Homa's switch ports (Montazeri et al., SIGCOMM 2018 §3.4): one strict-priority queue per
/// priority level, drop-tail (Homa recovers losses by RESEND).
pub const PORTS: PaperPorts = PaperPorts {
    needs: Needs { queues: 8, ..Needs::NONE },
    summary: "a strict-priority queue per priority level (8), drop-tail (Homa §3.4)",
    setup: |cfg, _| priority_ports(cfg, None),
};

/// Aeolus's switch ports (Hu et al., SIGCOMM 2020 §3.2): Homa's priority queues with selective
/// dropping of the droppable first-RTT packets. The threshold is 0.2 of the port buffer, the
/// default of the authors' htsim queue (the paper's text gives none); RTTbytes when the buffer is
/// unlimited.
pub const AEOLUS_PORTS: PaperPorts = PaperPorts {
    needs: Needs { queues: 8, selective_drop: true, ..Needs::NONE },
    summary: "Homa's strict-priority queues + selective dropping of first-RTT packets above 0.2 x the buffer (Aeolus §3.2; htsim's default)",
    setup: |cfg, f| {
        let TransportConfig::Homa(c) = cfg else { unreachable!("Aeolus's declaration") };
        let (k, why) = match f.buffer {
            Some(crate::queue::Amount::Bytes(b)) => (bytes(b / 5), format!("0.2 x the {b} B buffer")),
            Some(crate::queue::Amount::Packets(n)) => (pkts((n / 5).max(1)), format!("0.2 x the {n}-packet buffer")),
            None => (bytes(c.rtt_bytes), "RTTbytes (the buffer is unlimited)".to_string()),
        };
        priority_ports(cfg, Some((k, why)))
    },
};

/// One strict-priority queue per level; Aeolus's selective-drop threshold and its reason.
fn priority_ports(cfg: &TransportConfig, selective: Option<(serde_json::Value, String)>) -> PortSetup {
    let TransportConfig::Homa(c) = cfg else { unreachable!("Homa's declaration") };
    let mut ports = strict_queues(c.priorities);
    let mut note = format!("{} strict-priority queues, one per priority level, drop-tail (Homa §3.4)", c.priorities);
    if let Some((k, why)) = selective {
        note = format!("{note}; selective_drop = {} ({why})", k.as_str().unwrap_or_default());
        ports.insert("selective_drop".into(), k);
    }
    PortSetup { ports, host_ports: None, note }
}

#[cfg(test)]
mod tests;
