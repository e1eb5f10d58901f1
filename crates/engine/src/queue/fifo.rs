//! One FIFO of packet ids with its byte count and counters: the unit every port queue, and every
//! VOQ of a hybrid ToR, is made of.

use crate::ids::PacketId;
use crate::time::Time;
use std::collections::VecDeque;

/// Counters of one queue (the per-queue rows of the ports output).
#[derive(Clone, Debug, Default)]
pub struct QueueStats {
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
    pub max_packets: u64,
    pub max_bytes: u64,
    /// Time integral of the length (packet·ps and byte·ps), for time averages.
    pub area_packets: u128,
    pub area_bytes: u128,
    pub last_change: Time,
}

/// A FIFO of packet ids that keeps its byte count and time-weighted length.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    ids: VecDeque<PacketId>,
    bytes: u64,
    pub stats: QueueStats,
}

impl Fifo {
    /// An empty FIFO with room for `packets` ids before it has to grow.
    pub fn with_capacity(packets: usize) -> Fifo {
        Fifo { ids: VecDeque::with_capacity(packets), ..Fifo::default() }
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
        self.ids.front().copied()
    }
    /// The waiting packets, head first.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.ids.iter().copied()
    }

    /// Account the length up to `now` before it changes.
    #[inline]
    pub fn note(&mut self, now: Time) {
        let dt = (now - self.stats.last_change).0 as u128;
        self.stats.area_packets += self.ids.len() as u128 * dt;
        self.stats.area_bytes += self.bytes as u128 * dt;
        self.stats.last_change = now;
    }

    #[inline]
    pub fn push(&mut self, id: PacketId, size: u32, now: Time) {
        self.note(now);
        self.ids.push_back(id);
        self.bytes += size as u64;
        let s = &mut self.stats;
        s.max_packets = s.max_packets.max(self.ids.len() as u64);
        s.max_bytes = s.max_bytes.max(self.bytes);
    }

    /// Remove the packet at position `i` (0 = head); the caller passes its size back.
    #[inline]
    pub fn remove(&mut self, i: usize, size: u32, now: Time) -> Option<PacketId> {
        self.note(now);
        let id = if i == 0 { self.ids.pop_front()? } else { self.ids.remove(i)? };
        self.bytes -= size as u64;
        Some(id)
    }
}
