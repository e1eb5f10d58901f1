//! Virtual output queues of a hybrid ToR: one queue per destination rack, shared by the packet
//! uplink and the circuit uplink. A VOQ is the queue machinery's [`Fifo`] with Etalon's admission
//! and marking; its capacity is not fixed: the ToR's policy passes the limit in force at each
//! admission (dynamic VOQ resizing changes it over time).

use crate::ids::PacketId;
use crate::packet::{Ecn, Kind, Packet};
use crate::queue::{Admit, Amount, Fifo};
use crate::time::Time;

/// One VOQ (source rack = the ToR, destination rack = its index in the ToR).
#[derive(Clone, Debug, Default)]
pub struct Voq {
    /// The packets, with the counters the VOQ table reports (`stats`).
    pub fifo: Fifo,
    /// Has any packet ever been offered (the pair carries traffic)?
    pub used: bool,
    /// Has a data packet ever been offered (not only ACKs)?
    pub data: bool,
}

impl Voq {
    #[inline]
    pub fn len_packets(&self) -> u64 {
        self.fifo.len_packets()
    }
    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }
    #[inline]
    pub fn front(&self) -> Option<PacketId> {
        self.fifo.front()
    }
    /// Account the length up to `now`.
    #[inline]
    pub fn note(&mut self, now: Time) {
        self.fifo.note(now);
    }

    /// Offer a packet under the limit `cap`; with `ecn_k`, an ECN-capable packet is marked CE
    /// when accepting it makes the queue longer than K (Etalon's marking rule, §6.2: "if accepting
    /// a packet would increase its buffer length beyond a threshold").
    #[inline]
    pub fn offer(&mut self, id: PacketId, pkt: &mut Packet, cap: Amount, ecn_k: Option<Amount>, now: Time) -> Admit {
        self.used = true;
        self.data |= pkt.kind == Kind::Data;
        let size = pkt.size as u64;
        let (n, b) = (self.len_packets() + 1, self.len_bytes() + size);
        if cap.exceeded_by(n, b) {
            self.fifo.stats.drops += 1;
            return Admit::Dropped;
        }
        let mut marked = false;
        if let Some(k) = ecn_k {
            if pkt.ecn != Ecn::NotEct && k.exceeded_by(n, b) {
                marked = pkt.ecn != Ecn::Ce;
                pkt.ecn = Ecn::Ce;
                self.fifo.stats.marks += marked as u64;
            }
        }
        self.fifo.push(id, pkt.size, now);
        self.fifo.stats.enqueued += 1;
        Admit::Enqueued { marked, trimmed: false }
    }

    /// Take the head packet (`size` is its size in bytes).
    #[inline]
    pub fn pop(&mut self, size: u32, now: Time) -> Option<PacketId> {
        self.fifo.remove(0, size, now)
    }
}
