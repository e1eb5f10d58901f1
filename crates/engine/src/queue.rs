//! Egress queues and their disciplines.
//!
//! A [`Queue`] is a FIFO of packet ids with a buffer limit; a [`Discipline`] decides, per arriving
//! packet, whether it is admitted, marked or dropped. Occupancy counts packets *waiting*, not the
//! one being serialized (the transmitter holds that one), which is how a switch's shared-memory
//! buffer accounting sees it once the packet is on the wire. Disciplines read only network fields
//! of a packet (size, ECN codepoint), never transport state.

use crate::ids::PacketId;
use crate::packet::{Ecn, Packet};
use std::collections::VecDeque;

/// A size measured either in packets or in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    Packets(u64),
    Bytes(u64),
}

impl Amount {
    /// Does an occupancy of (`pkts`, `bytes`) exceed this amount?
    #[inline]
    pub fn exceeded_by(self, pkts: u64, bytes: u64) -> bool {
        match self {
            Amount::Packets(n) => pkts > n,
            Amount::Bytes(b) => bytes > b,
        }
    }
}

/// How a queue treats arriving packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Discipline {
    /// Admit while the buffer has room, drop the arriving packet otherwise.
    DropTail,
    /// DCTCP-style threshold marking (Alizadeh et al., SIGCOMM 2010 §3.1; RFC 8257 §3.1): an
    /// arriving ECN-capable packet gets CE when the instantaneous occupancy it finds (excluding
    /// itself) exceeds K. Non-ECT packets are admitted unmarked; overflow still drops.
    EcnThreshold { k: Amount },
}

/// The outcome of offering a packet to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    Enqueued { marked: bool },
    Dropped,
}

/// A port's egress FIFO.
#[derive(Clone, Debug)]
pub struct Queue {
    fifo: VecDeque<PacketId>,
    bytes: u64,
    /// Buffer limit; `None` = unlimited (host NICs by default).
    pub limit: Option<Amount>,
    pub discipline: Discipline,
}

impl Queue {
    pub fn new(limit: Option<Amount>, discipline: Discipline) -> Queue {
        Queue { fifo: VecDeque::new(), bytes: 0, limit, discipline }
    }

    #[inline]
    pub fn len_packets(&self) -> u64 {
        self.fifo.len() as u64
    }

    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    /// Offer a packet: the discipline may mark it (mutating its ECN field) or drop it.
    #[inline]
    pub fn offer(&mut self, id: PacketId, pkt: &mut Packet) -> Admit {
        let size = pkt.size as u64;
        if let Some(limit) = self.limit {
            if limit.exceeded_by(self.len_packets() + 1, self.bytes + size) {
                return Admit::Dropped;
            }
        }
        let mut marked = false;
        if let Discipline::EcnThreshold { k } = self.discipline {
            if pkt.ecn != Ecn::NotEct && k.exceeded_by(self.len_packets(), self.bytes) {
                marked = pkt.ecn != Ecn::Ce;
                pkt.ecn = Ecn::Ce;
            }
        }
        self.fifo.push_back(id);
        self.bytes += size;
        Admit::Enqueued { marked }
    }

    /// Remove the head packet; the caller passes its size back for byte accounting.
    #[inline]
    pub fn pop(&mut self, size_of: impl Fn(PacketId) -> u32) -> Option<PacketId> {
        let id = self.fifo.pop_front()?;
        self.bytes -= size_of(id) as u64;
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId};
    use crate::packet::{Kind, TcpHeader};
    use crate::time::Time;

    fn pkt(size: u32, ecn: Ecn) -> Packet {
        Packet {
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            size,
            kind: Kind::Data,
            ecn,
            path_hash: 0,
            stamp: Time::ZERO,
            tcp: TcpHeader::default(),
        }
    }

    #[test]
    fn droptail_packet_limit() {
        let mut q = Queue::new(Some(Amount::Packets(2)), Discipline::DropTail);
        let mut p = pkt(1500, Ecn::NotEct);
        assert_eq!(q.offer(PacketId(0), &mut p), Admit::Enqueued { marked: false });
        assert_eq!(q.offer(PacketId(1), &mut p), Admit::Enqueued { marked: false });
        assert_eq!(q.offer(PacketId(2), &mut p), Admit::Dropped);
        assert_eq!(q.len_bytes(), 3000);
        assert_eq!(q.pop(|_| 1500), Some(PacketId(0)));
        assert_eq!(q.len_bytes(), 1500);
    }

    #[test]
    fn droptail_byte_limit_admits_exact_fit() {
        let mut q = Queue::new(Some(Amount::Bytes(3000)), Discipline::DropTail);
        let mut big = pkt(1500, Ecn::NotEct);
        let mut small = pkt(64, Ecn::NotEct);
        assert!(matches!(q.offer(PacketId(0), &mut big), Admit::Enqueued { .. }));
        assert!(matches!(q.offer(PacketId(1), &mut big), Admit::Enqueued { .. }));
        assert_eq!(q.offer(PacketId(2), &mut small), Admit::Dropped);
    }

    #[test]
    fn ecn_marks_only_above_k_and_only_ect() {
        // K = 2 packets: the 1st..3rd arrivals find 0, 1, 2 waiting (not above K), the 4th finds 3.
        let mut q = Queue::new(Some(Amount::Packets(100)), Discipline::EcnThreshold { k: Amount::Packets(2) });
        let mut marks = vec![];
        for i in 0..5 {
            let mut p = pkt(1500, Ecn::Ect0);
            let r = q.offer(PacketId(i), &mut p);
            marks.push(r == Admit::Enqueued { marked: true } && p.ecn == Ecn::Ce);
        }
        assert_eq!(marks, vec![false, false, false, true, true]);
        let mut not_ect = pkt(1500, Ecn::NotEct);
        assert_eq!(q.offer(PacketId(9), &mut not_ect), Admit::Enqueued { marked: false });
        assert_eq!(not_ect.ecn, Ecn::NotEct);
    }
}
