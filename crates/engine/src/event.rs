//! The event list: binary heaps of (time, sequence number, event).
//!
//! The sequence number is assigned at scheduling time, so two events at the same picosecond are
//! processed in the order they were scheduled — the tie-break that makes a run bit-identical on
//! every machine.
//!
//! Two heaps share one sequence counter: packet events (`Arrive`, `TxDone`), which are many but
//! short-lived, and everything else (timers, arrivals, flow starts, samples), which is rare per
//! packet but long-lived — a stale delayed-ACK timer can sit for 200 ms. Keeping the timers apart
//! keeps the packet heap small (a few entries per busy port), so the per-packet push and pop touch
//! little memory. `pop` takes the smaller (time, seq) of the two heads, so the order is exactly
//! that of a single heap.

use crate::ids::{FlowId, PacketId, PortId};
use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Which of a TCP connection's timers fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// Sender retransmission timeout (RFC 6298).
    Rto,
    /// Receiver delayed-ACK timeout (RFC 1122 §4.2.3.2).
    DelayedAck,
    /// Sender pacing: the next packet may leave.
    Pace,
    /// Sender tail loss probe (RFC 8985 §7).
    Probe,
    /// Sender RACK reordering timer (RFC 8985 §6.3).
    Reorder,
}

/// Everything that can happen. Small and `Copy`: events carry indices, never data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The packet has crossed the link behind `port` and reaches the port's peer node.
    Arrive { port: PortId, pkt: PacketId },
    /// `port` finished serializing its packet and may start the next one.
    TxDone { port: PortId },
    /// A flow's sender starts.
    FlowStart { flow: FlowId },
    /// A transport timer; stale timers are recognised by the owner (lazy cancellation).
    Timer { flow: FlowId, kind: TimerKind },
    /// Take one time-series sample.
    Sample,
    /// The next flow arrival of open-loop workload `gen`.
    Arrival { gen: u32 },
    /// Incast application `app` issues its next request.
    IncastRound { app: u32 },
    /// The circuit switch of a hybrid network reaches a day or night boundary.
    Circuit,
}

#[derive(Debug)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap, we want the earliest (time, seq) on top.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

/// Pending events in (time, scheduling order).
#[derive(Debug, Default)]
pub struct EventQueue {
    packets: BinaryHeap<Entry>,
    timers: BinaryHeap<Entry>,
    next_seq: u64,
    popped: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn schedule(&mut self, time: Time, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let e = Entry { time, seq, event };
        match event {
            Event::Arrive { .. } | Event::TxDone { .. } => self.packets.push(e),
            _ => self.timers.push(e),
        }
    }

    /// Which heap holds the earliest event (true = packets).
    #[inline]
    fn packets_first(&self) -> Option<bool> {
        match (self.packets.peek(), self.timers.peek()) {
            (None, None) => None,
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (Some(p), Some(t)) => Some((p.time, p.seq) < (t.time, t.seq)),
        }
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        match self.packets_first()? {
            true => self.packets.peek().map(|e| e.time),
            false => self.timers.peek().map(|e| e.time),
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let e = match self.packets_first()? {
            true => self.packets.pop()?,
            false => self.timers.pop()?,
        };
        self.popped += 1;
        Some((e.time, e.event))
    }

    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.packets.len() + self.timers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_schedule_order() {
        let mut q = EventQueue::new();
        // Packet events and timers interleave exactly by (time, scheduling order).
        q.schedule(Time(10), Event::Sample);
        q.schedule(Time(5), Event::TxDone { port: PortId(1) });
        q.schedule(Time(10), Event::TxDone { port: PortId(2) });
        q.schedule(Time(5), Event::Timer { flow: FlowId(0), kind: TimerKind::Rto });
        q.schedule(Time(5), Event::TxDone { port: PortId(3) });
        assert_eq!(q.peek_time(), Some(Time(5)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Time(5), Event::TxDone { port: PortId(1) }),
                (Time(5), Event::Timer { flow: FlowId(0), kind: TimerKind::Rto }),
                (Time(5), Event::TxDone { port: PortId(3) }),
                (Time(10), Event::Sample),
                (Time(10), Event::TxDone { port: PortId(2) }),
            ]
        );
        assert_eq!(q.processed(), 5);
        assert!(q.is_empty());
    }
}
