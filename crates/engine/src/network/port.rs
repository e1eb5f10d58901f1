//! A port: the egress queue and transmitter of one link direction, plus its counters.

use crate::ids::NodeId;
use crate::queue::PortQueue;
use crate::rng::Rng;
use crate::time::{Rate, Resolution, Time};

/// Counters a port keeps for the per-port output table. Laid out by hand for [`Port`]'s cache
/// lines: what the transmitter updates for every packet (the first four, in the port's first
/// line), then what a packet that waits updates (the queue's time integrals and peaks, one line),
/// then the losses, written only when a packet is lost or cut.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct PortStats {
    /// When the packet being serialized ends (may be after the run ends).
    pub busy_until: Time,
    pub tx_bytes: u64,
    /// Time the transmitter spent serializing (counted whole when a packet starts).
    pub busy_time: Time,
    pub tx_packets: u64,
    pub last_change: Time,
    pub ecn_marks: u64,
    pub max_queue_packets: u64,
    pub max_queue_bytes: u64,
    /// Time integral of the queue length (packet·ps and byte·ps), for time averages.
    pub queue_area_packets: u128,
    pub queue_area_bytes: u128,
    /// Dropped at admission (buffer full, RED) or pushed out later.
    pub drops: u64,
    /// Data packets cut to a header (trimming queues).
    pub trims: u64,
    /// Headers the header queue could not hold, sent back to their senders (return-to-sender).
    pub bounces: u64,
    /// Lost on the wire (random loss).
    pub wire_losses: u64,
}

/// One direction of a link. Laid out by hand and aligned to a cache line, by what a packet
/// touches ([`Port::HOT_LINES`], which the event loop prefetches ahead of a transmit-done):
/// line 0 is the transmitter — flags, wire, and the counters every packet updates — and is all a
/// packet that finds the port idle reads or writes; line 1 holds the queue's time integrals and
/// peaks, lines 2 and 3 the loss counters and the queue itself (occupancy and packet list first),
/// for packets that wait. The wire's loss settings, the name and the random stream come after.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Port {
    /// A packet is being serialized (or was, until `stats.busy_until`, when no `TxDone` was
    /// needed: see `tx_pending`).
    pub busy: bool,
    /// A `TxDone` event is scheduled for the packet being serialized. Without one, the port
    /// counts as idle from `stats.busy_until` on.
    pub tx_pending: bool,
    /// Host senders wait for this port (a NIC) to finish packets (`Fabric::watch`).
    pub watched: bool,
    /// Every packet of this port ends in a `TxDone` (hybrid ports that pull VOQs then).
    pub tx_done_always: bool,
    /// Packets pass a host-egress shaper before this port's queue (`shaper.rs`).
    pub shaped: bool,
    /// The wire may lose packets (`loss_rate` > 0 or a `drop_list`; set by the `Fabric`): only
    /// then does a transmission read the loss settings.
    pub lossy: bool,
    /// `queue.counted_by_port()`, kept here so that a packet passing an idle port reads nothing
    /// of its queue.
    pub simple_queue: bool,
    /// A PFC PAUSE from the peer holds the transmitter (`switch/pfc.rs`): the packet on the wire
    /// ends, the next waits for the RESUME. Always false without `[pfc]`.
    pub paused: bool,
    pub rate: Rate,
    pub delay: Time,
    /// Packets waiting in this port's shaper (`shaper.rs`), which the NIC's backpressure counts
    /// with the queue's; 0 on unshaped ports. Kept here so that counting costs no branch.
    pub held: u32,
    /// `rate.exact_ps_per_byte()` (set by the `Fabric`; 0: not whole, or not set): serialization
    /// as one multiplication ([`Port::serialization`]).
    pub ps_per_byte: u32,
    pub stats: PortStats,
    pub queue: PortQueue,
    pub node: NodeId,
    pub peer: NodeId,
    /// Probability that a packet serialized onto this wire is lost (0 = lossless).
    pub loss_rate: f64,
    /// Next entry of `drop_list` to match.
    pub drop_next: usize,
    /// Indices (0-based, in serialization order) of packets this wire loses on purpose — the
    /// `[[faults]]` of a scenario, like ns-3's ReceiveListErrorModel. Sorted ascending.
    pub drop_list: Vec<u64>,
    /// The port's own random stream (random loss, RED): per port, so what one port draws never
    /// shifts another's.
    pub rng: Rng,
    /// "a->b".
    pub name: String,
    /// The clock's resolution (`[simulation] time_resolution`), which rounds each serialization.
    pub clock: Resolution,
}

impl Port {
    /// Cache lines from the start of a port that a transmit-done touches: the transmitter, the
    /// queue's counters, the queue (two lines).
    pub const HOT_LINES: usize = 4;

    /// Time to serialize `bytes` onto this port's wire: `rate.serialization(bytes)`, by
    /// multiplication where the rate gives whole picoseconds per byte (the same result); on a
    /// nanosecond clock ns-3's rounding to the nanosecond (`Rate::serialization_ns3`). A
    /// nanosecond port keeps `ps_per_byte` 0 (`Port::exact_ps_per_byte`), so the common case reads
    /// no more than the rate's line.
    #[inline]
    pub fn serialization(&self, bytes: u64) -> Time {
        if self.ps_per_byte != 0 {
            return Time(bytes * self.ps_per_byte as u64);
        }
        if self.clock == Resolution::Nanosecond {
            return self.rate.serialization_ns3(bytes);
        }
        self.rate.serialization(bytes)
    }

    /// The `ps_per_byte` that [`Port::serialization`] may multiply by: the rate's whole
    /// picoseconds per byte, or 0 (divide) on a nanosecond clock, which rounds each time.
    pub fn exact_ps_per_byte(&self) -> u32 {
        if self.clock == Resolution::Nanosecond { 0 } else { self.rate.exact_ps_per_byte() }
    }

    /// Does the wire lose the packet about to be serialized (number `stats.tx_packets`): a
    /// scheduled drop, or a draw below `loss_rate`? (Called only for `lossy` ports.)
    #[inline(never)]
    pub fn lost(&mut self) -> bool {
        let scheduled = !self.drop_list.is_empty() && self.scheduled_drop();
        scheduled || (self.loss_rate > 0.0 && self.rng.uniform() < self.loss_rate)
    }

    /// Should the packet about to be serialized (number `stats.tx_packets`) be lost on purpose?
    #[inline]
    pub fn scheduled_drop(&mut self) -> bool {
        if self.drop_next < self.drop_list.len() && self.drop_list[self.drop_next] == self.stats.tx_packets {
            self.drop_next += 1;
            return true;
        }
        false
    }

    /// Account the queue's length up to `now` before it changes (time-weighted mean).
    #[inline]
    pub fn note_queue(&mut self, now: Time) {
        let dt = (now - self.stats.last_change).0 as u128;
        self.stats.queue_area_packets += self.queue.len_packets() as u128 * dt;
        self.stats.queue_area_bytes += self.queue.len_bytes() as u128 * dt;
        self.stats.last_change = now;
    }

    #[inline]
    pub fn note_peak(&mut self) {
        let s = &mut self.stats;
        s.max_queue_packets = s.max_queue_packets.max(self.queue.len_packets());
        s.max_queue_bytes = s.max_queue_bytes.max(self.queue.len_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn the_per_packet_fields_are_in_their_lines() {
        use crate::queue::PortQueue;
        let s = offset_of!(Port, stats);
        let line = |start: usize, len: usize| {
            assert_eq!(start / 64, (start + len - 1) / 64, "a field straddles two lines");
            start / 64
        };
        // Line 0: everything a packet passing an idle port reads or writes.
        for (at, len) in [
            (offset_of!(Port, busy), 1),
            (offset_of!(Port, shaped), 1),
            (offset_of!(Port, lossy), 1),
            (offset_of!(Port, simple_queue), 1),
            (offset_of!(Port, paused), 1),
            (offset_of!(Port, rate), 8),
            (offset_of!(Port, delay), 8),
            (offset_of!(Port, held), 4),
            (offset_of!(Port, ps_per_byte), 4),
            (s + offset_of!(PortStats, busy_until), 8),
            (s + offset_of!(PortStats, tx_bytes), 8),
            (s + offset_of!(PortStats, busy_time), 8),
            (s + offset_of!(PortStats, tx_packets), 8),
        ] {
            assert_eq!(line(at, len), 0, "field at {at}");
        }
        // Line 1: what a packet that waits updates besides the queue.
        for (at, len) in [
            (s + offset_of!(PortStats, last_change), 8),
            (s + offset_of!(PortStats, ecn_marks), 8),
            (s + offset_of!(PortStats, max_queue_bytes), 8),
            (s + offset_of!(PortStats, queue_area_packets), 16),
            (s + offset_of!(PortStats, queue_area_bytes), 16),
        ] {
            assert_eq!(line(at, len), 1, "field at {at}");
        }
        // Lines 2 and 3: the queue's occupancy and packet list (what a dequeue reads).
        let q = offset_of!(Port, queue);
        assert!(q + PortQueue::HOT_BYTES <= Port::HOT_LINES * 64);
        assert!(s + offset_of!(PortStats, drops) >= 128, "losses share no line with the counters every packet updates");
        assert_eq!(std::mem::align_of::<Port>(), 64);
    }
}
