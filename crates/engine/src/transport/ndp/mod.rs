//! NDP (Handley et al., "Re-architecting datacenter networks and stacks for low latency and
//! high performance", SIGCOMM 2017): a receiver-pulled transport over trimming switches.
//!
//! - Sender (§3.2): sends a full window (`iw` packets) at line rate in the first RTT, every packet
//!   on its own path (per-packet path hash, so ECMP spreads them); afterwards it sends only when
//!   pulled: a PULL with counter n lets it send n − (last counter) packets, retransmissions (NACKed
//!   packets) first, then new data. A NACK queues the packet for retransmission without sending
//!   it (the PULL its header caused will). A retransmission takes a fresh path.
//! - Switches (§3.1): `admission = "trim"` ports with a small data queue (8 packets) cut data they
//!   cannot hold to headers, which go to a header queue served with priority (WRR 10:1).
//! - Receiver (§3.2): ACKs each full packet and NACKs each header at once, and queues one PULL per
//!   arrival in its host's pull pacer ([`pacer::NdpHost`]), which paces PULLs at its line rate,
//!   fair across connections.
//! - A retransmission timeout (rare: only if a header or control packet is lost): a packet out
//!   for `rto` with neither ACK nor NACK is resent at once (no PULL will come for it).
//!
//! - Return to sender (§3.1): a port with `return_to_sender` sends a header its header queue
//!   cannot hold back to the sender (`Packet::bounced`), which resends the packet at once.
//!
//! Not modelled: the sender's path scoreboard, priority pulls, time-wait.

pub mod header;
pub mod pacer;

pub use header::{NdpHeader, NdpKind};
pub use pacer::{NdpHost, PullSlot};

use super::timer::{LazyTimer, TimerId};
use super::ports::{bytes, keys, pkts, Needs, PaperPorts, PortSetup};
use super::{Endpoints, FlowStats, Framing, Outbox, Transport, TransportConfig};
use serde_json::json;
use crate::host::Stacks;
use crate::packet::{Header, Kind, Packet};
use crate::rng::mix64;
use crate::time::Time;
use std::collections::VecDeque;

/// NDP's parameters (scenario `[transport] kind = "ndp"`); defaults are the paper's (§6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NdpConfig {
    /// Payload per data packet: 9 000 B jumbo frames less the header (§6: 9 KB packets).
    pub mss: u32,
    /// Header bytes; also what a trimmed packet keeps (64 B, §3.1).
    pub header: u32,
    /// ACK, NACK and PULL size.
    pub control: u32,
    /// Packets sent in the first RTT before any PULL (§6.2: IW 23 for the large incasts; §6.1
    /// permutations use up to 30).
    pub iw: u32,
    /// Retransmission timeout after the last sign of progress (§3.2: with RTTs below 400 µs a
    /// 1 ms timeout is safe).
    pub rto: Time,
    /// Pull rate as a fraction of the receiver's line rate (§3.2: 1).
    pub pull_rate: f64,
}

impl Default for NdpConfig {
    fn default() -> Self {
        NdpConfig { mss: 9000 - 64, header: 64, control: 64, iw: 23, rto: Time::from_ms(1), pull_rate: 1.0 }
    }
}

impl NdpConfig {
    pub fn framing(&self) -> Framing {
        Framing { payload: self.mss, header: self.header, control: self.control, handshake: false, sprays: true }
    }
}

/// Packets NDP's data queue holds (§3.1, §6.1: 8 full packets keep a permutation above 95 %).
pub const DATA_QUEUE_PACKETS: u64 = 8;
/// The header queue is served this many times per data packet (§3.1: weighted round robin 10:1).
pub const HEADER_WEIGHT: u32 = 10;

/// NDP's switch ports (Handley et al., SIGCOMM 2017 §3.1): a data queue of 8 full packets that
/// trims what does not fit to its header (or, with probability 1/2, trims the packet at its tail
/// instead, against phase effects), a header queue of the same bytes served 10:1 ahead of it,
/// and return-to-sender for headers that overflow it; hosts send control packets ahead of data.
pub const PORTS: PaperPorts = PaperPorts {
    needs: Needs { trimming: true, queues: 2, ..Needs::NONE },
    summary: "2 queues, WRR 10:1: headers and control / data; data queue of 8 packets, trimming to the header (1/2 at the tail), return to sender (NDP §3.1)",
    setup: |cfg, _| {
        let TransportConfig::Ndp(c) = cfg else { unreachable!("NDP's declaration") };
        let packet = (c.mss + c.header) as u64;
        let header_queue = DATA_QUEUE_PACKETS * packet;
        PortSetup {
            ports: keys(&[
                ("queues", json!(2)),
                ("classes", json!([0, 1])),
                ("queue_buffer", json!([bytes(header_queue), pkts(DATA_QUEUE_PACKETS)])),
                ("scheduler", json!("wrr")),
                ("weights", json!([HEADER_WEIGHT, 1])),
                ("admission", json!("trim")),
                ("trim_size", json!(format!("{}B", c.header))),
                ("trim_tail", json!(0.5)),
                ("return_to_sender", json!(true)),
            ]),
            host_ports: Some(keys(&[("queues", json!(2)), ("classes", json!([0, 1]))])),
            note: format!("data queue {DATA_QUEUE_PACKETS} x {packet} B packets, header queue {header_queue} B served {HEADER_WEIGHT}:1 (NDP §3.1)"),
        }
    },
};

const RTO: TimerId = TimerId(1);

/// Where the sender stands with one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sent {
    /// On its way (or lost): no ACK or NACK yet.
    Out,
    /// Queued for retransmission (NACKed or timed out).
    Queued,
    Acked,
}

#[derive(Clone, Debug)]
struct Sender {
    /// Packets of the flow (`None` = long-lived until stopped).
    packets: Option<u64>,
    size: Option<u64>,
    /// Packets below `base` are all acknowledged; `state[i]` is packet `base + i`.
    base: u64,
    state: VecDeque<Sent>,
    /// When packet `base + i` was last sent.
    sent_at: VecDeque<Time>,
    /// The next new packet.
    next: u64,
    rtx: VecDeque<u64>,
    /// The last pull counter acted on; pulls not yet served (NIC full).
    last_pull: u32,
    /// When the last PULL came.
    pulled_at: Time,
    credit: u64,
    /// Transmissions so far: the per-packet path choice.
    sends: u64,
    rto: LazyTimer,
    done: Option<Time>,
    stats: FlowStats,
}

#[derive(Clone, Debug)]
struct Receiver {
    /// Packets below `cum` all arrived; `got[i]` is packet `cum + i`.
    cum: u64,
    got: VecDeque<bool>,
    /// Packet count, once the LAST packet (or its header) has been seen.
    total: Option<u64>,
    slot: Option<PullSlot>,
    finished: bool,
}

/// One NDP connection: its sender (at `ends.src`) and receiver (at `ends.dst`).
#[derive(Clone, Debug)]
pub struct NdpFlow {
    ends: Endpoints,
    cfg: NdpConfig,
    tx: Sender,
    rx: Receiver,
}

impl NdpFlow {
    pub fn new(ends: Endpoints, cfg: NdpConfig, size: Option<u64>) -> NdpFlow {
        let packets = size.map(|s| s.div_ceil(cfg.mss as u64).max(1));
        NdpFlow {
            ends,
            cfg,
            tx: Sender {
                packets,
                size,
                base: 0,
                state: VecDeque::new(),
                sent_at: VecDeque::new(),
                next: 0,
                rtx: VecDeque::new(),
                last_pull: 0,
                pulled_at: Time::ZERO,
                credit: 0,
                sends: 0,
                rto: LazyTimer::new(RTO),
                done: None,
                stats: FlowStats::default(),
            },
            rx: Receiver { cum: 0, got: VecDeque::new(), total: None, slot: None, finished: false },
        }
    }

    /// Wire size of packet `seq`.
    fn packet_size(&self, seq: u64) -> u32 {
        let mss = self.cfg.mss as u64;
        let payload = match self.tx.size {
            Some(s) if (seq + 1) * mss > s => s.saturating_sub(seq * mss).max(1),
            _ => mss,
        };
        (payload + self.cfg.header as u64) as u32
    }

    /// Send one packet: a queued retransmission, else new data. False: nothing to send.
    fn send_one(&mut self, now: Time, out: &mut Outbox) -> bool {
        let tx = &mut self.tx;
        let seq = loop {
            match tx.rtx.pop_front() {
                Some(s) if s >= tx.base && tx.state[(s - tx.base) as usize] == Sent::Queued => {
                    tx.stats.retransmits += 1;
                    break s;
                }
                Some(_) => continue,
                None if tx.packets.is_none_or(|n| tx.next < n) => {
                    tx.next += 1;
                    tx.state.push_back(Sent::Out);
                    tx.sent_at.push_back(now);
                    break tx.next - 1;
                }
                None => return false,
            }
        };
        tx.state[(seq - tx.base) as usize] = Sent::Out;
        tx.sent_at[(seq - tx.base) as usize] = now;
        tx.stats.packets_sent += 1;
        tx.sends += 1;
        // Every transmission on its own path (§3.2): a fresh path hash per packet.
        let hash = mix64(self.ends.hash_fwd ^ tx.sends.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut h = NdpHeader::new(NdpKind::Data);
        h.seq = seq as u32;
        h.last = tx.packets == Some(seq + 1);
        let size = self.packet_size(seq);
        let mut p = Packet::new(self.ends.flow, self.ends.src, self.ends.dst, size, Kind::Data, hash, Header::Ndp(h));
        p.class = 1;
        out.packets.push(p);
        if !self.tx.rto.is_set() {
            self.tx.rto.set(now + self.cfg.rto, out);
        }
        true
    }

    /// Use the pulls granted so far, as far as the NIC takes them.
    fn serve_credit(&mut self, now: Time, out: &mut Outbox) {
        while self.tx.credit > 0 {
            if out.budget == 0 {
                out.blocked = true;
                return;
            }
            if !self.send_one(now, out) {
                // Nothing to send: a pull with nothing behind it is spent (§3.2).
                self.tx.credit = 0;
                return;
            }
            out.budget -= 1;
            self.tx.credit -= 1;
        }
    }

    fn sender_packet(&mut self, now: Time, h: &NdpHeader, out: &mut Outbox) {
        let tx = &mut self.tx;
        match h.kind {
            NdpKind::Ack | NdpKind::Nack => {
                let seq = h.seq as u64;
                if seq >= tx.base && seq < tx.next {
                    let i = (seq - tx.base) as usize;
                    if h.kind == NdpKind::Ack {
                        tx.state[i] = Sent::Acked;
                    } else if tx.state[i] == Sent::Out {
                        tx.state[i] = Sent::Queued;
                        tx.rtx.push_back(seq);
                    }
                }
                while tx.state.front() == Some(&Sent::Acked) {
                    tx.state.pop_front();
                    tx.sent_at.pop_front();
                    tx.base += 1;
                }
                if tx.packets == Some(tx.base) && tx.done.is_none() {
                    tx.done = Some(now);
                    tx.rto.cancel();
                }
            }
            NdpKind::Pull => {
                tx.pulled_at = now;
                if h.pull > tx.last_pull {
                    tx.credit += (h.pull - tx.last_pull) as u64;
                    tx.last_pull = h.pull;
                    tx.stats.credits = h.pull as u64;
                    self.serve_credit(now, out);
                }
            }
            NdpKind::Data => {}
        }
    }

    /// A switch returned this packet's header (§3.1): the receiver never saw it, so no PULL will
    /// come for it; it is resent at once, on a fresh path.
    fn on_bounce(&mut self, now: Time, h: &NdpHeader, out: &mut Outbox) {
        let tx = &mut self.tx;
        let seq = h.seq as u64;
        if h.kind != NdpKind::Data || seq < tx.base || seq >= tx.next || tx.state[(seq - tx.base) as usize] != Sent::Out {
            return;
        }
        tx.state[(seq - tx.base) as usize] = Sent::Queued;
        tx.rtx.push_back(seq);
        tx.stats.trimmed += 1;
        tx.credit += 1;
        self.serve_credit(now, out);
    }

    fn receiver_packet(&mut self, now: Time, pkt: &Packet, h: &NdpHeader, st: &mut Stacks, out: &mut Outbox) {
        let rx = &mut self.rx;
        let seq = h.seq as u64;
        if h.last {
            rx.total = Some(seq + 1);
        }
        let mut reply = NdpHeader::new(if pkt.trimmed { NdpKind::Nack } else { NdpKind::Ack });
        reply.seq = h.seq;
        if pkt.trimmed {
            self.tx.stats.trimmed += 1;
        } else if seq >= rx.cum {
            let i = (seq - rx.cum) as usize;
            if rx.got.len() <= i {
                rx.got.resize(i + 1, false);
            }
            rx.got[i] = true;
            while rx.got.front() == Some(&true) {
                rx.got.pop_front();
                rx.cum += 1;
            }
        }
        reply.cum = rx.cum.min(u32::MAX as u64) as u32;
        let ends = self.ends;
        out.packets.push(Packet::new(ends.flow, ends.dst, ends.src, self.cfg.control, Kind::Control, ends.hash_rev, Header::Ndp(reply)));
        if rx.finished {
            return;
        }
        let pacer = st.ndp.at(ends.dst);
        let slot = *rx.slot.get_or_insert_with(|| pacer.register(ends, self.cfg.control));
        if rx.total.is_some_and(|n| rx.cum >= n) {
            // Everything is here: no more pulls for this connection (§3.2).
            rx.finished = true;
            pacer.release(slot);
        } else {
            pacer.enqueue(slot, now, out);
        }
    }

    /// The timer runs while packets are out; when it fires, packets out for `rto` with neither
    /// ACK nor NACK are presumed lost (header and all) and resent at once, since no PULL will
    /// come for them; NACKed packets still waiting when nothing else is out and no PULL has come for
    /// `rto` go too.
    fn on_rto(&mut self, now: Time, out: &mut Outbox) {
        if !self.tx.rto.fired(now, out) || self.tx.done.is_some() {
            return;
        }
        let rto = self.cfg.rto;
        let tx = &mut self.tx;
        let mut lost = 0;
        let mut oldest: Option<Time> = None;
        for (i, s) in tx.state.iter_mut().enumerate() {
            if *s != Sent::Out {
                continue;
            }
            if tx.sent_at[i] + rto <= now {
                *s = Sent::Queued;
                tx.rtx.push_back(tx.base + i as u64);
                lost += 1;
            } else {
                oldest = Some(oldest.map_or(tx.sent_at[i], |o: Time| o.min(tx.sent_at[i])));
            }
        }
        // NACKed packets wait for the PULLs their headers queued; only if none has come for
        // `rto` (a PULL lost) are they sent unpulled.
        let waiting = tx.state.iter().filter(|&&s| s == Sent::Queued).count() as u64;
        let stalled = oldest.is_none() && waiting > 0 && tx.pulled_at + rto <= now;
        if lost > 0 || stalled {
            tx.stats.timeouts += 1;
            tx.credit = if stalled { tx.credit.max(waiting.min(self.cfg.iw as u64)) } else { tx.credit + lost };
            self.serve_credit(now, out);
        }
        let tx = &mut self.tx;
        if tx.done.is_none() && !tx.rto.is_set() && !tx.state.is_empty() {
            // The oldest packet out expires next; with none out, look again in `rto`.
            let at = oldest.map_or(now, |o| o) + rto;
            tx.rto.set(at.max(now + Time(1)), out);
        }
    }
}

impl Transport for NdpFlow {
    fn start(&mut self, now: Time, _: &mut Stacks, out: &mut Outbox) {
        // The first RTT: a full window at line rate, unpulled (§3.2).
        self.tx.credit = self.cfg.iw as u64;
        self.serve_credit(now, out);
    }
    fn on_packet(&mut self, now: Time, pkt: &Packet, st: &mut Stacks, out: &mut Outbox) {
        let Header::Ndp(h) = pkt.hdr else { return };
        if pkt.bounced {
            self.on_bounce(now, &h, out);
        } else if h.kind == NdpKind::Data {
            self.receiver_packet(now, pkt, &h, st, out);
        } else {
            self.sender_packet(now, &h, out);
        }
    }
    fn on_timer(&mut self, now: Time, timer: TimerId, _: &mut Stacks, out: &mut Outbox) {
        if timer == RTO {
            self.on_rto(now, out);
        }
    }
    fn on_send_ready(&mut self, now: Time, _: &mut Stacks, out: &mut Outbox) {
        self.serve_credit(now, out);
    }
    fn completed_at(&self) -> Option<Time> {
        self.tx.done
    }
    fn stats(&self) -> FlowStats {
        let mss = self.cfg.mss as u64;
        let cap = |b: u64| self.tx.size.map_or(b, |s| b.min(s));
        FlowStats { bytes_acked: cap(self.tx.base * mss), bytes_delivered: cap(self.rx.cum * mss), ..self.tx.stats }
    }
    fn stop(&mut self, now: Time, _: &mut Stacks, out: &mut Outbox) -> u64 {
        let tx = &mut self.tx;
        if tx.packets.is_none() {
            // What has been sent is the flow; a flow that sent nothing sends one packet.
            let n = tx.next.max(1);
            tx.packets = Some(n);
            tx.size = Some(n * self.cfg.mss as u64);
            if tx.base >= n {
                tx.done = Some(now);
                tx.rto.cancel();
            } else if tx.next == 0 {
                tx.credit = tx.credit.max(1);
                self.serve_credit(now, out);
            }
        }
        self.tx.size.unwrap_or(0)
    }
    fn keep_open(&mut self, _last: bool) {}
    fn write(&mut self, _: Time, _: u64, _: bool, _: &mut Stacks, _: &mut Outbox) {}
    fn set_deadline(&mut self, _: Time) {}
    fn seed_rtt(&mut self, _: Time) {}
    fn window(&self) -> Option<f64> {
        Some((self.tx.next - self.tx.base) as f64)
    }
    fn congestion(&self) -> Option<f64> {
        None
    }
    fn name(&self) -> &'static str {
        "ndp"
    }
    fn framing(&self) -> Framing {
        self.cfg.framing()
    }
}

#[cfg(test)]
mod tests;
