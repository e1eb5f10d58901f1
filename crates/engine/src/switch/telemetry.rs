//! In-band network telemetry (INT) as HPCC uses it (Li et al., SIGCOMM 2019 §3.2, §4.1): a packet
//! that asks for it collects, at each egress port on dequeue, the time stamp, the queue length
//! the port has, its cumulative transmitted bytes and its link rate; the receiver copies the
//! records into its ACK, which carries them back to the sender unchanged.
//!
//! The records live in a side table indexed by packet slot, not in the packet, so the packet that
//! every hop copies stays small; a slot's record is reset when the slot is reused.
//!
//! Where a hop records: as the packet starts serializing (`Int::Collect`: the paper's "on
//! dequeue"), or as its last bit leaves (`Int::CollectAtEnd`, HPCC's `int_record = "end"`): htsim's
//! `LosslessOutputQueue::completeService` (csg-htsim 841d9e7) writes the time stamp and the queue
//! then, so the queue also holds the packets that arrived during the serialization; the byte
//! counter is the port's before the packet in both. Such a hop is written at the start and its
//! time and queue are overwritten when the serialization ends (`Telemetry::ended`), before any
//! packet that reaches the port in that same picosecond, as in htsim: there a packet reaching a
//! switch goes on to its egress queue through the switch's zero-latency pipe (`FatTreeSwitch`,
//! `CallbackPipe`), in an event scheduled in that picosecond, so always after a `completeService`
//! scheduled one serialization earlier (docs/VALIDATION.md, the HPCC incasts; fabricsim's
//! `tie_order = "scheduled_switch"` models that pipe).

use crate::ids::{PacketId, PortId};
use crate::time::{Rate, Time};

/// Hops a packet records at most (HPCC's fat trees have at most 5 switch egresses).
pub const MAX_HOPS: usize = 6;

/// What one egress port reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntHop {
    pub port: PortId,
    /// When the packet was dequeued (started serializing), or when its last bit left.
    pub time: Time,
    /// Bytes waiting in the port's queues behind the packet then.
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

/// No packet (an empty `on_wire` entry).
const NO_PACKET: PacketId = PacketId(u32::MAX);

/// The side table: a record per packet slot that carries telemetry.
#[derive(Clone, Debug, Default)]
pub struct Telemetry {
    records: Vec<IntRecord>,
    /// Per port, the packet serializing there whose hop is recorded at its end (`NO_PACKET`:
    /// none); empty until the first such packet, so runs without one test one length.
    on_wire: Vec<PacketId>,
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

    /// Packet `id`, whose hop at `port` (one of `ports`) is recorded, takes that hop's time and
    /// queue from the end of its serialization there (`ended`).
    pub fn await_end(&mut self, id: PacketId, port: PortId, ports: usize) {
        if self.on_wire.is_empty() {
            self.on_wire = vec![NO_PACKET; ports];
        }
        self.on_wire[port.idx()] = id;
    }

    /// May a packet be waiting for its end record (one ever asked for one)?
    #[inline]
    pub fn pending(&self) -> bool {
        !self.on_wire.is_empty()
    }

    /// The serialization on `port` ended at `time` with `queue_bytes` waiting: the hop there of
    /// the packet that asked for an end record (if `only` is given, only if it is that packet)
    /// takes them.
    pub fn ended(&mut self, port: PortId, only: Option<PacketId>, time: Time, queue_bytes: u64) {
        let id = self.on_wire[port.idx()];
        if id == NO_PACKET || only.is_some_and(|o| o != id) {
            return;
        }
        self.on_wire[port.idx()] = NO_PACKET;
        let rec = &mut self.records[id.idx()];
        // The hop is the last one pushed, unless the record was already full.
        if let Some(h) = rec.hop[..rec.hops as usize].last_mut().filter(|h| h.port == port) {
            h.time = time;
            h.queue_bytes = queue_bytes;
        }
    }
}
