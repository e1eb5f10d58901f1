//! Virtual output queues of a hybrid ToR: one FIFO per destination rack, shared by the packet
//! uplink and the circuit uplink. The capacity is not fixed: the ToR's policy passes the limit
//! in force at each admission (dynamic VOQ resizing changes it over time).

use crate::ids::PacketId;
use crate::packet::{Ecn, Packet};
use crate::queue::{Admit, Amount};
use crate::time::Time;
use std::collections::VecDeque;

/// Counters of one VOQ.
#[derive(Clone, Debug, Default)]
pub struct VoqStats {
    pub enqueued: u64,
    pub drops: u64,
    pub ecn_marks: u64,
    pub max_packets: u64,
    /// Time integral of the length (packet·ps).
    pub area_packets: u128,
    pub last_change: Time,
}

/// One VOQ (source rack = the ToR, destination rack = its index in the ToR).
#[derive(Clone, Debug, Default)]
pub struct Voq {
    fifo: VecDeque<PacketId>,
    bytes: u64,
    /// Has any packet ever been offered (the pair carries traffic)?
    pub used: bool,
    /// Has a data packet ever been offered (not only ACKs)?
    pub data: bool,
    pub stats: VoqStats,
}

impl Voq {
    #[inline]
    pub fn len_packets(&self) -> u64 {
        self.fifo.len() as u64
    }
    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }
    #[inline]
    pub fn front(&self) -> Option<PacketId> {
        self.fifo.front().copied()
    }

    /// Account the length up to `now` before it changes.
    #[inline]
    pub fn note(&mut self, now: Time) {
        let dt = (now - self.stats.last_change).0 as u128;
        self.stats.area_packets += self.fifo.len() as u128 * dt;
        self.stats.last_change = now;
    }

    /// Offer a packet under the limit `cap`; with `ecn_k`, an ECN-capable packet is marked CE
    /// when accepting it makes the queue longer than K (Etalon's marking rule, §6.2: "if accepting
    /// a packet would increase its buffer length beyond a threshold").
    #[inline]
    pub fn offer(&mut self, id: PacketId, pkt: &mut Packet, cap: Amount, ecn_k: Option<Amount>, now: Time) -> Admit {
        self.used = true;
        self.data |= pkt.kind == crate::packet::Kind::Data;
        let size = pkt.size as u64;
        let (n, b) = (self.len_packets() + 1, self.bytes + size);
        if cap.exceeded_by(n, b) {
            self.stats.drops += 1;
            return Admit::Dropped;
        }
        let mut marked = false;
        if let Some(k) = ecn_k {
            if pkt.ecn != Ecn::NotEct && k.exceeded_by(n, b) {
                marked = pkt.ecn != Ecn::Ce;
                pkt.ecn = Ecn::Ce;
                self.stats.ecn_marks += marked as u64;
            }
        }
        self.note(now);
        self.fifo.push_back(id);
        self.bytes = b;
        self.stats.enqueued += 1;
        self.stats.max_packets = self.stats.max_packets.max(n);
        Admit::Enqueued { marked }
    }

    /// Take the head packet (`size` is its size in bytes).
    #[inline]
    pub fn pop(&mut self, size: u32, now: Time) -> Option<PacketId> {
        self.note(now);
        let id = self.fifo.pop_front()?;
        self.bytes -= size as u64;
        Some(id)
    }
}
