//! The calendar queue on AccelToR's circuit port (Chen et al., AccelToR §III-B, Fig. 3; after
//! Sharma et al., "Programmable calendar queues", NSDI 2020): K FIFOs Q_0 … Q_{K−1}, Q_i holding
//! the packets of the flows whose circuit comes i days from now. Only Q_0 may dequeue; the others
//! are paused. During each night the calendar *rotates* in step with the circuit switch: Q_i
//! becomes Q_{i−1} for 1 ≤ i < K and the old Q_0 becomes Q_{K−1} (K = 3: Q_2 → Q_1, Q_1 → Q_0,
//! Q_0 → Q_2). Packets left in the old Q_0 have missed their circuit: they are dropped at the
//! rotation (the queue now belongs to a rack K − 1 days away).
//!
//! Each queue is the queue machinery's [`Fifo`]; rotation is an index shift, no packet moves.

use crate::ids::PacketId;
use crate::queue::{Amount, Fifo};
use crate::time::Time;

#[derive(Clone, Debug)]
pub struct Calendar {
    queues: Vec<Fifo>,
    /// Physical index of Q_0.
    head: usize,
    /// Capacity of each queue (B).
    pub cap: Amount,
    /// Packets found in Q_0 at a rotation and dropped.
    pub stale_drops: u64,
}

impl Calendar {
    pub fn new(k: usize, cap: Amount) -> Calendar {
        assert!(k >= 1);
        Calendar { queues: vec![Fifo::default(); k], head: 0, cap, stale_drops: 0 }
    }

    pub fn k(&self) -> usize {
        self.queues.len()
    }

    /// Q_i (0 ≤ i < K).
    #[inline]
    pub fn q(&self, i: usize) -> &Fifo {
        &self.queues[(self.head + i) % self.queues.len()]
    }
    #[inline]
    pub fn q_mut(&mut self, i: usize) -> &mut Fifo {
        let k = self.queues.len();
        &mut self.queues[(self.head + i) % k]
    }

    /// Put a packet of `size` bytes in Q_i if it has room for it; false (and a drop counted in
    /// Q_i) if not.
    #[inline]
    pub fn offer(&mut self, i: usize, id: PacketId, size: u32, now: Time) -> bool {
        let cap = self.cap;
        let q = self.q_mut(i);
        if cap.exceeded_by(q.len_packets() + 1, q.len_bytes() + size as u64) {
            q.stats.drops += 1;
            return false;
        }
        q.push(id, size, now);
        q.stats.enqueued += 1;
        true
    }

    /// Would Q_i take a packet of `size` bytes?
    #[inline]
    pub fn has_room(&self, i: usize, size: u32) -> bool {
        let q = self.q(i);
        !self.cap.exceeded_by(q.len_packets() + 1, q.len_bytes() + size as u64)
    }

    /// The head of Q_0, the only queue that dequeues.
    #[inline]
    pub fn front(&self) -> Option<PacketId> {
        self.q(0).front()
    }

    /// Take the head of Q_0 (`size` = its size).
    #[inline]
    pub fn pop(&mut self, size: u32, now: Time) -> Option<PacketId> {
        self.q_mut(0).remove(0, size, now)
    }

    /// The night's rotation: Q_0's stale packets are handed to `drop` (with their index in Q_0's
    /// physical queue) and removed, then Q_1 becomes Q_0 and the emptied old Q_0 becomes Q_{K−1}.
    pub fn rotate(&mut self, now: Time, mut drop: impl FnMut(PacketId) -> u32) {
        let head = self.head;
        let q = &mut self.queues[head];
        while let Some(id) = q.front() {
            let size = drop(id);
            q.remove(0, size, now);
            q.stats.drops += 1;
            self.stale_drops += 1;
        }
        self.head = (head + 1) % self.queues.len();
    }

    /// All K queues in physical order (for tables).
    pub fn queues(&self) -> &[Fifo] {
        &self.queues
    }
    /// The physical index of Q_i.
    pub fn physical(&self, i: usize) -> usize {
        (self.head + i) % self.queues.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(i: u32) -> PacketId {
        PacketId(i)
    }

    #[test]
    fn rotation_moves_q2_to_q1_to_q0_to_q2_and_drops_only_stale_q0_packets() {
        let t = Time::ZERO;
        let mut c = Calendar::new(3, Amount::Packets(4));
        // One packet into each queue: 10 → Q_0, 11 → Q_1, 12 → Q_2.
        for i in 0..3 {
            assert!(c.offer(i, p(10 + i as u32), 1500, t));
        }
        let phys: Vec<usize> = (0..3).map(|i| c.physical(i)).collect();
        assert_eq!(phys, vec![0, 1, 2]);
        let mut dropped = vec![];
        c.rotate(t, |id| {
            dropped.push(id);
            1500
        });
        // The old Q_0's packet was stale; Q_1's packet is now at the head of Q_0, Q_2's in Q_1,
        // and the old Q_0 (empty) is Q_2.
        assert_eq!(dropped, vec![p(10)]);
        assert_eq!(c.front(), Some(p(11)));
        assert_eq!(c.q(1).front(), Some(p(12)));
        assert!(c.q(2).is_empty());
        assert_eq!((c.physical(0), c.physical(1), c.physical(2)), (1, 2, 0));
        // Three rotations bring the calendar back to where it started; each drops what reached
        // Q_0 and was not sent (11, then 12).
        c.rotate(t, |_| 1500);
        c.rotate(t, |_| 1500);
        assert_eq!((c.physical(0), c.physical(1), c.physical(2)), (0, 1, 2));
        assert_eq!(c.stale_drops, 3);
        assert!(c.queues().iter().all(|q| q.is_empty()));
    }

    #[test]
    fn each_queue_holds_at_most_b() {
        let mut c = Calendar::new(2, Amount::Bytes(3000));
        assert!(c.offer(1, p(1), 1500, Time::ZERO));
        assert!(c.has_room(1, 1500));
        assert!(c.offer(1, p(2), 1500, Time::ZERO));
        assert!(!c.has_room(1, 1));
        assert!(!c.offer(1, p(3), 1500, Time::ZERO));
        assert_eq!(c.q(1).stats.drops, 1);
        assert!(c.offer(0, p(3), 1500, Time::ZERO));
        assert_eq!(c.pop(1500, Time::ZERO), Some(p(3)));
        assert_eq!(c.pop(1500, Time::ZERO), None, "Q_1 is paused: only Q_0 dequeues");
    }
}
