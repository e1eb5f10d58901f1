//! A device transmit queue below a port's discipline (`device_queue`), as ns-3 places a
//! NetDevice's own queue under a traffic-control queue disc.
//!
//! In ns-3 a PointToPointNetDevice keeps a DropTail queue (`DropTailQueue` `MaxSize`, 100
//! packets by default) between the queue disc and the wire. Flow control couples the two
//! (`NetDeviceQueue::PacketEnqueued`/`PacketDequeued` in net-device-queue-interface.h,
//! `QueueDisc::Run`/`Restart`/`Transmit` in queue-disc.cc): the disc hands its head to the device
//! (`PointToPointNetDevice::Send`) while the device queue is not stopped; the device queue stops
//! once it holds `MaxSize` packets and wakes, which runs the disc again, as soon as the
//! transmitter takes a packet from it (`TransmitComplete`). So whenever the disc holds a packet
//! the device queue is full, and the discipline (RED, its limit) sees only what waits above it.
//! With the queue disc helpers' defaults no byte queue limits (BQL) apply.
//!
//! Here: packets leave the discipline for the device FIFO whenever it has room — at admission
//! and each time the transmitter takes the device's head — and the transmitter sends only from
//! the device FIFO. The port's occupancy (statistics, telemetry) counts both; the discipline's
//! buffer limit, per-queue limits and marking count only the discipline's packets. Not
//! modelled: ns-3 wakes the disc in an event scheduled at the same instant (`ScheduleNow`), so a
//! packet arriving in that very instant still finds the disc one packet longer.

use super::Queued;
use std::collections::VecDeque;

/// The device FIFO of one port: at most `cap` packets (their queue entries), held in order.
#[derive(Clone, Debug)]
pub struct Device {
    fifo: VecDeque<Queued>,
    cap: usize,
    bytes: u64,
}

impl Device {
    /// A device queue of `cap` ≥ 1 packets (room reserved up front: nothing allocates per packet).
    pub fn new(cap: u32) -> Device {
        let cap = cap.max(1) as usize;
        Device { fifo: VecDeque::with_capacity(cap), cap, bytes: 0 }
    }
    #[inline]
    pub fn has_room(&self) -> bool {
        self.fifo.len() < self.cap
    }
    #[inline]
    pub fn len_packets(&self) -> u64 {
        self.fifo.len() as u64
    }
    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }
    #[inline]
    pub fn push(&mut self, q: Queued) {
        debug_assert!(self.has_room());
        self.bytes += q.size as u64;
        self.fifo.push_back(q);
    }
    #[inline]
    pub fn pop(&mut self) -> Option<Queued> {
        let q = self.fifo.pop_front()?;
        self.bytes -= q.size as u64;
        Some(q)
    }
}
