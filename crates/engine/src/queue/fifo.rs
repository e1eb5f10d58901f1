//! One FIFO of packets with its byte count and counters: the unit every port queue, and every
//! VOQ of a hybrid ToR, is made of.

use super::Queued;
use crate::ids::PacketId;
use crate::packet::Int;
use crate::switch::paths::PathPos;
use crate::time::Time;
use crate::ring::Ring;

/// Counters of one queue (the per-queue rows of the ports output). Laid out by hand: what every
/// enqueue and dequeue updates (the time of the last change, the peaks, the time integrals) first,
/// so that with [`Fifo`]'s own fields it takes two cache lines.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct QueueStats {
    pub last_change: Time,
    pub max_packets: u64,
    pub max_bytes: u64,
    /// Time integral of the length (packet·ps and byte·ps), for time averages.
    pub area_packets: u128,
    pub area_bytes: u128,
    /// Packets admitted (including those that found the transmitter idle and went straight out).
    pub enqueued: u64,
    /// Packets dropped at admission or pushed out later, counted in the queue they were lost from.
    pub drops: u64,
    /// Arriving packets dropped while a lower-priority queue of the port held packets (the
    /// drops Flash's Algorithm 1 avoids: Flash, Gao et al., Fig. 5); a subset of `drops`.
    pub drops_over_lower: u64,
    /// Droppable packets (Aeolus's unscheduled ones) dropped by selective dropping; a subset of
    /// `drops`.
    pub selective_drops: u64,
    /// Packets given CE here.
    pub marks: u64,
    /// Data packets cut to a header here (NDP); they are counted where they were cut.
    pub trims: u64,
}

/// A FIFO of packets that keeps its byte count and time-weighted length. Each entry holds, besides
/// the packet's id, its size and what its transmission needs ([`Queued`]), so that a port's
/// dequeue does not read the packet's own slot, cold after its wait (NDP's two-queue ports spent
/// a sixth of their time waiting for that line). Entries pushed with [`push`](Self::push) (the
/// hybrid ToRs' queues, which send by id) carry no path position and no telemetry request.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct Fifo {
    ids: Ring<Queued>,
    bytes: u64,
    pub stats: QueueStats,
}

impl Fifo {
    /// An empty FIFO with room for `packets` ids before it has to grow.
    pub fn with_capacity(packets: usize) -> Fifo {
        Fifo { ids: Ring::with_capacity(packets, Queued { id: PacketId(0), size: 0, next: PathPos::NONE, int: Int::Off }), ..Fifo::default() }
    }
    #[inline]
    pub fn len_packets(&self) -> u64 {
        self.ids.len() as u64
    }
    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
    #[inline]
    pub fn front(&self) -> Option<PacketId> {
        self.ids.front().map(|q| q.id)
    }
    /// The head's entry.
    #[inline]
    pub fn front_entry(&self) -> Option<&Queued> {
        self.ids.front()
    }
    /// The waiting packets, head first.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.ids.iter().map(|q| q.id)
    }

    /// Account the length up to `now` before it changes.
    #[inline]
    pub fn note(&mut self, now: Time) {
        let dt = (now - self.stats.last_change).0 as u128;
        self.stats.area_packets += self.ids.len() as u128 * dt;
        self.stats.area_bytes += self.bytes as u128 * dt;
        self.stats.last_change = now;
    }

    /// Append packet `id` of `size` bytes (an entry without path position or telemetry request).
    #[inline]
    pub fn push(&mut self, id: PacketId, size: u32, now: Time) {
        self.push_entry(Queued { id, size, next: PathPos::NONE, int: Int::Off }, now)
    }

    /// Append an entry.
    #[inline]
    pub fn push_entry(&mut self, q: Queued, now: Time) {
        self.note(now);
        let size = q.size;
        self.ids.push_back(q);
        self.bytes += size as u64;
        let s = &mut self.stats;
        s.max_packets = s.max_packets.max(self.ids.len() as u64);
        s.max_bytes = s.max_bytes.max(self.bytes);
    }

    /// Remove the packet at position `i` (0 = head); `size` is its size (checked in debug builds).
    #[inline]
    pub fn remove(&mut self, i: usize, size: u32, now: Time) -> Option<PacketId> {
        let q = self.take(i, now)?;
        debug_assert_eq!(q.size, size, "the size a packet was queued with");
        Some(q.id)
    }

    /// Remove the entry at position `i` (0 = head).
    #[inline]
    pub fn take(&mut self, i: usize, now: Time) -> Option<Queued> {
        self.note(now);
        let q = if i == 0 { self.ids.pop_front()? } else { self.ids.remove(i)? };
        self.bytes -= q.size as u64;
        Some(q)
    }
}
