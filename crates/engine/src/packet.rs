//! Packets and the slab they live in.
//!
//! A packet is a plain struct in a `Vec` reused through a free list: sending a packet costs no heap
//! allocation once the slab has grown to the peak number of packets in flight. Switches and queues
//! read only the network fields (size, class, ECN, rank, trimmed mark, telemetry request, flow,
//! path hash); the transport header beside them is opaque to them (each protocol's header lives
//! in its own module, e.g. `transport::tcp::header`).

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

/// What the packet is, for the switches that look (trimming cuts only data; hybrid ToRs measure
/// data and mark ACKs; SAB counts SYN/FIN). Transports that are not TCP map their control packets
/// (grants, pulls, NACKs) onto `Control`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Data,
    Ack,
    /// Connection setup (transports with `handshake`): SYN and its SYN-ACK.
    Syn,
    SynAck,
    Control,
}

/// In-band telemetry a packet asks for (HPCC's INT, Li et al. SIGCOMM 2019 §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Int {
    #[default]
    Off,
    /// Each egress appends a hop record on dequeue (`crate::switch::telemetry`).
    Collect,
    /// As `Collect`, but each hop's time stamp and queue length are those of the end of the
    /// packet's serialization (htsim's `LosslessOutputQueue::completeService`; HPCC's
    /// `int_record = "end"`): the queue then holds what arrived while the packet was sent.
    CollectAtEnd,
    /// Carries records collected by another packet back to its sender; switches add nothing.
    Echo,
}

impl Int {
    /// Does the packet collect hop records (at either point)?
    #[inline]
    pub fn collects(self) -> bool {
        matches!(self, Int::Collect | Int::CollectAtEnd)
    }
}

pub use crate::transport::tcp::header::{TcpHeader, MAX_SACK_BLOCKS};

/// The transport's own header: each protocol's in its own module; switches never read it
/// (except header-rewriting features such as SAB, which know their protocol).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    Tcp(TcpHeader),
    Ndp(crate::transport::ndp::NdpHeader),
    Homa(crate::transport::homa::HomaHeader),
}

/// One packet on the wire: the network fields every switch may read, then the transport header.
///
/// Laid out by hand (`repr(C)`) and aligned to a cache line: the network fields fill the first
/// 64 bytes of a slab slot and the transport header the second, so a switch forwarding or
/// queueing a packet touches one cache line of it, not two or three (a 128-byte slot at 8-byte
/// alignment straddles lines, and Rust's own field order put `size` in the second line).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Packet {
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// Bytes on the wire (headers included).
    pub size: u32,
    /// Hash used by ECMP (per flow and direction), fixed when the packet is created; under
    /// source-chosen paths (`[routing] paths`) the path index its source picked, of which each
    /// node with a choice takes and removes one digit (`network/source_paths.rs`).
    pub path_hash: u64,
    /// Scheduling rank for rank-ordered ports (pFabric: remaining flow size; smaller = sooner).
    pub rank: u64,
    /// Time stamp for latency accounting: when the packet entered the network, reset when it
    /// enters a hybrid ToR's VOQ (latency through the hybrid network).
    pub stamp: Time,
    /// Priority class, 0 = most urgent; the port's class map picks the queue.
    pub class: u8,
    pub kind: Kind,
    pub ecn: Ecn,
    /// Cut to a header by a trimming queue (NDP).
    pub trimmed: bool,
    /// Sent back to its sender by a switch whose header queue was full (NDP's return-to-sender);
    /// `src` and `dst` are swapped.
    pub bounced: bool,
    /// May be dropped by a selective-dropping port above its threshold (Aeolus, Hu et al.
    /// SIGCOMM 2020 §3.2: first-RTT unscheduled packets); never set by TCP.
    pub droppable: bool,
    pub int: Int,
    pub hdr: Header,
}

impl Packet {
    /// A packet with the given addressing and header; class 0, Not-ECT, no telemetry, rank 0.
    pub fn new(flow: FlowId, src: NodeId, dst: NodeId, size: u32, kind: Kind, path_hash: u64, hdr: Header) -> Packet {
        Packet { flow, src, dst, size, class: 0, kind, ecn: Ecn::NotEct, trimmed: false, bounced: false, droppable: false, int: Int::Off, rank: 0, path_hash, stamp: Time::ZERO, hdr }
    }

    /// The TCP header (TCP's own packets).
    #[inline]
    pub fn tcp(&self) -> &TcpHeader {
        match &self.hdr {
            Header::Tcp(h) => h,
            _ => unreachable!("only TCP's packets are read as TCP"),
        }
    }

    #[inline]
    pub fn tcp_mut(&mut self) -> &mut TcpHeader {
        match &mut self.hdr {
            Header::Tcp(h) => h,
            _ => unreachable!("only TCP's packets are read as TCP"),
        }
    }
}

/// Start loading the cache line at `at` (a hint: it never faults and changes no data).
#[inline(always)]
pub fn prefetch(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing into the program and cannot fault, whatever the address;
    // the SSE feature it is compiled for is part of the x86_64 baseline.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// Start loading the cache lines of `x`, at most `max` of them from its start (a hint, as
/// [`prefetch`]).
#[inline(always)]
pub fn prefetch_lines<T>(x: &T, max: usize) {
    let start = x as *const T as usize;
    let first = start & !63;
    let end = (start + std::mem::size_of::<T>()).min(first + 64 * max);
    let mut at = first;
    while at < end {
        prefetch(at as *const u8);
        at += 64;
    }
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

    /// Ask the processor to start loading packet `id`'s network fields (its slot's first cache
    /// line) into cache, without waiting: the event loop calls this for a packet whose arrival
    /// is coming up, so the switch that reads it finds it there. No effect on results.
    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        if let Some(p) = self.slots.get(id.idx()) {
            prefetch(p as *const Packet as *const u8);
        }
    }

    /// Packet `id` if its slot exists (for prefetch hints, which must not panic).
    #[inline]
    pub fn peek(&self, id: PacketId) -> Option<&Packet> {
        self.slots.get(id.idx())
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
        Packet::new(FlowId(0), NodeId(0), NodeId(1), 1500, Kind::Data, 0, Header::Tcp(TcpHeader::default()))
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

    /// A slot is two cache lines: every field a switch reads in the first (slots are aligned to
    /// 64 bytes), the transport header in the second.
    #[test]
    fn network_fields_share_the_first_cache_line() {
        use super::Packet;
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(size_of::<Packet>(), 128);
        assert_eq!(align_of::<Packet>(), 64);
        let ends = [
            offset_of!(Packet, flow) + 4,
            offset_of!(Packet, src) + 4,
            offset_of!(Packet, dst) + 4,
            offset_of!(Packet, size) + 4,
            offset_of!(Packet, path_hash) + 8,
            offset_of!(Packet, rank) + 8,
            offset_of!(Packet, stamp) + 8,
            offset_of!(Packet, class) + 1,
            offset_of!(Packet, kind) + 1,
            offset_of!(Packet, ecn) + 1,
            offset_of!(Packet, trimmed) + 1,
            offset_of!(Packet, bounced) + 1,
            offset_of!(Packet, droppable) + 1,
            offset_of!(Packet, int) + 1,
        ];
        assert!(ends.iter().all(|&e| e <= 64), "{ends:?}");
        assert!(offset_of!(Packet, hdr) >= 48);
    }
}
