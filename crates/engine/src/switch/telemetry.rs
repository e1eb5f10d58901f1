//! In-band network telemetry (INT) as HPCC uses it (Li et al., SIGCOMM 2019 §3.2, §4.1): a packet
//! that asks for it collects, at each egress port on dequeue, the time stamp, the queue length
//! the port has, its cumulative transmitted bytes and its link rate; the receiver copies the
//! records into its ACK, which carries them back to the sender unchanged.
//!
//! The records live in a side table indexed by packet slot, not in the packet, so the packet that
//! every hop copies stays small; a slot's record is reset when the slot is reused.

use crate::ids::{PacketId, PortId};
use crate::time::{Rate, Time};

/// Hops a packet records at most (HPCC's fat trees have at most 5 switch egresses).
pub const MAX_HOPS: usize = 6;

/// What one egress port reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntHop {
    pub port: PortId,
    /// When the packet was dequeued (started serializing).
    pub time: Time,
    /// Bytes waiting in the port's queues as the packet left.
    pub queue_bytes: u64,
    /// Bytes the port had put on its wire before this packet.
    pub tx_bytes: u64,
    pub rate: Rate,
}

/// The records one packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntRecord {
    pub hops: u8,
    pub hop: [IntHop; MAX_HOPS],
}

const NO_HOP: IntHop = IntHop { port: PortId(u32::MAX), time: Time::ZERO, queue_bytes: 0, tx_bytes: 0, rate: Rate(0) };

impl Default for IntRecord {
    fn default() -> Self {
        IntRecord { hops: 0, hop: [NO_HOP; MAX_HOPS] }
    }
}

impl IntRecord {
    /// The hops recorded, first egress first.
    pub fn hops(&self) -> &[IntHop] {
        &self.hop[..self.hops as usize]
    }
    fn push(&mut self, h: IntHop) {
        if (self.hops as usize) < MAX_HOPS {
            self.hop[self.hops as usize] = h;
            self.hops += 1;
        }
    }
}

/// The side table: a record per packet slot that carries telemetry.
#[derive(Clone, Debug, Default)]
pub struct Telemetry {
    records: Vec<IntRecord>,
}

impl Telemetry {
    /// The record of packet `id` (empty if it never had one).
    pub fn get(&self, id: PacketId) -> IntRecord {
        self.records.get(id.idx()).copied().unwrap_or_default()
    }

    /// Give packet `id` a record (empty for a collecting packet; a copy for an echo).
    pub fn set(&mut self, id: PacketId, rec: IntRecord) {
        if self.records.len() <= id.idx() {
            self.records.resize(id.idx() + 1, IntRecord::default());
        }
        self.records[id.idx()] = rec;
    }

    /// Packet `id` leaves an egress port.
    #[inline]
    pub fn record(&mut self, id: PacketId, hop: IntHop) {
        if self.records.len() <= id.idx() {
            self.records.resize(id.idx() + 1, IntRecord::default());
        }
        self.records[id.idx()].push(hop);
    }
}
