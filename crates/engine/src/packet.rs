//! Packets and the slab they live in.
//!
//! A packet is a plain struct in a `Vec` reused through a free list: sending a packet costs no heap
//! allocation once the slab has grown to the peak number of packets in flight. Devices and queues
//! read only the network fields (size, route, ECN, priority); the transport fields are opaque to
//! them (DESIGN.md: "a discipline never knows about transports").

use crate::ids::{FlowId, NodeId, PacketId};
use crate::time::Time;

/// ECN codepoint of the IP header (RFC 3168 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect0,
    Ce,
}

/// What the packet is, for the transport at the endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Data,
    Ack,
    /// Connection setup (transports with `handshake`): SYN and its SYN-ACK.
    Syn,
    SynAck,
}

/// At most three SACK blocks per ACK (RFC 2018 with the timestamp option).
pub const MAX_SACK_BLOCKS: usize = 3;

/// TCP header fields carried by the packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TcpHeader {
    /// First byte of payload (data) — sequence space starts at 0 for every flow.
    pub seq: u64,
    /// Payload bytes (data).
    pub len: u32,
    /// Cumulative ACK: next byte expected (ACK packets).
    pub ack: u64,
    /// The window field in bytes. ACKs: the advertised window (u64::MAX = unlimited). SAB data
    /// packets: the window switches assign (u64::MAX = SAB's initial 0xffff, none assigned yet).
    pub rwnd: u64,
    pub ece: bool,
    pub cwr: bool,
    /// Last segment of the flow (FIN): acknowledged at once.
    pub fin: bool,
    /// Last segment of the data written so far (PSH): acknowledged at once, as the application's
    /// next request carries the ACK.
    pub psh: bool,
    pub sack_count: u8,
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
}

/// One packet on the wire.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// Bytes on the wire (headers included).
    pub size: u32,
    pub kind: Kind,
    pub ecn: Ecn,
    /// Hash used by ECMP (per flow and direction), fixed when the packet is created.
    pub path_hash: u64,
    /// Time stamp for latency accounting: when the packet entered the network, reset when it
    /// enters a hybrid ToR's VOQ (latency through the hybrid network).
    pub stamp: Time,
    pub tcp: TcpHeader,
}

/// Arena of packets with a free list.
#[derive(Debug, Default)]
pub struct PacketSlab {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
    live: usize,
    peak_live: usize,
}

impl PacketSlab {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        self.live += 1;
        self.peak_live = self.peak_live.max(self.live);
        if let Some(id) = self.free.pop() {
            self.slots[id.idx()] = p;
            id
        } else {
            self.slots.push(p);
            PacketId::from_idx(self.slots.len() - 1)
        }
    }

    #[inline]
    pub fn free(&mut self, id: PacketId) {
        debug_assert!(self.live > 0);
        self.live -= 1;
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.idx()]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.idx()]
    }

    /// Packets currently allocated (queued or on a wire).
    pub fn live(&self) -> usize {
        self.live
    }

    pub fn peak_live(&self) -> usize {
        self.peak_live
    }

    /// Slots ever allocated (the slab's high-water mark).
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt() -> Packet {
        Packet {
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            size: 1500,
            kind: Kind::Data,
            ecn: Ecn::NotEct,
            path_hash: 0,
            stamp: Time::ZERO,
            tcp: TcpHeader::default(),
        }
    }

    #[test]
    fn freed_slots_are_reused() {
        let mut s = PacketSlab::new();
        let a = s.alloc(pkt());
        let b = s.alloc(pkt());
        s.free(a);
        let c = s.alloc(pkt());
        assert_eq!(c, a);
        assert_ne!(b, c);
        assert_eq!(s.capacity_used(), 2);
        assert_eq!(s.live(), 2);
        assert_eq!(s.peak_live(), 2);
    }
}

#[cfg(test)]
mod size_tests {
    /// The per-packet memory budget (issue "Performance": ≤ 300 B per packet in flight): a slab
    /// slot, two pending events (TxDone and Arrive, or a queue slot) and the sender's scoreboard
    /// entry. Printed for docs/PERFORMANCE.md; the bound is asserted.
    #[test]
    fn per_packet_state_fits_the_budget() {
        let packet = std::mem::size_of::<super::Packet>();
        let event = std::mem::size_of::<crate::event::Event>() + 16 + 4; // entry + time + seq + list link
        let per_packet = packet + 2 * event + 4 + 16;
        println!("Packet {packet} B, event entry ~{event} B, total ~{per_packet} B");
        assert!(per_packet <= 300, "{per_packet} B per packet in flight");
    }
}
