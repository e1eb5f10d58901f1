//! The receiver's pull pacer, one per host (Handley et al., SIGCOMM 2017 §3.2): every packet
//! that arrives for a connection (full or trimmed) queues one PULL; the pacer sends PULLs at the
//! rate that makes the pulled data arrive at the receiver's line rate (one PULL per full data
//! packet's serialization time on its link), taking connections in round robin so pulls are
//! shared fairly across the senders of an incast.
//!
//! Connections register on their first arrival and get a [`PullSlot`] (typed index, reused after
//! the connection finishes); the round-robin ring holds slots with pulls pending. Nothing is
//! allocated per packet once the tables have grown.

use super::header::{NdpHeader, NdpKind};
use super::NdpConfig;
use crate::host::{HostInfo, HostTimer, HostTimerId};
use crate::packet::{Header, Kind, Packet};
use crate::time::Time;
use crate::transport::{Endpoints, Outbox};
use std::collections::VecDeque;

/// A connection's entry in its receiver's pull queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PullSlot(pub u32);

#[derive(Clone, Copy, Debug)]
struct Entry {
    ends: Endpoints,
    /// PULLs queued, not yet sent.
    pending: u32,
    /// PULLs sent so far (the counter the next PULL carries, minus one).
    pulled: u32,
    control: u32,
}

/// One host's pull pacer.
#[derive(Clone, Debug)]
pub struct NdpHost {
    /// Time between PULLs: one full data packet at the receiver's link rate (÷ `pull_rate`).
    interval: Time,
    timer: HostTimer,
    /// When the last PULL left.
    last: Option<Time>,
    entries: Vec<Entry>,
    free: Vec<u32>,
    /// Slots with PULLs pending, served in turn.
    ring: VecDeque<u32>,
    /// PULLs this host sent (all connections).
    pub pulls_sent: u64,
}

impl NdpHost {
    pub fn new(host: HostInfo, cfg: &NdpConfig) -> NdpHost {
        let full = host.rate.serialization((cfg.mss + cfg.header) as u64);
        let interval = Time((full.0 as f64 / cfg.pull_rate).round() as u64);
        NdpHost {
            interval,
            timer: HostTimer::new(host.node, HostTimerId::NdpPull),
            last: None,
            entries: Vec::new(),
            free: Vec::new(),
            ring: VecDeque::new(),
            pulls_sent: 0,
        }
    }

    pub fn interval(&self) -> Time {
        self.interval
    }

    /// A connection's first packet arrived here: its slot in the pull queue.
    pub fn register(&mut self, ends: Endpoints, control: u32) -> PullSlot {
        let e = Entry { ends, pending: 0, pulled: 0, control };
        match self.free.pop() {
            Some(i) => {
                self.entries[i as usize] = e;
                PullSlot(i)
            }
            None => {
                self.entries.push(e);
                PullSlot(self.entries.len() as u32 - 1)
            }
        }
    }

    /// The connection has everything: its queued PULLs are deleted (§3.2) and its slot freed.
    pub fn release(&mut self, slot: PullSlot) {
        if self.entries[slot.0 as usize].pending > 0 {
            self.ring.retain(|&s| s != slot.0);
        }
        self.entries[slot.0 as usize].pending = 0;
        self.free.push(slot.0);
    }

    /// Queue one PULL for `slot`, and send whatever the pacing allows now.
    pub fn enqueue(&mut self, slot: PullSlot, now: Time, out: &mut Outbox) {
        let e = &mut self.entries[slot.0 as usize];
        e.pending += 1;
        if e.pending == 1 {
            self.ring.push_back(slot.0);
        }
        self.pump(now, out);
    }

    pub fn on_pull_timer(&mut self, now: Time, out: &mut Outbox) {
        if self.timer.fired(now, out) {
            self.pump(now, out);
        }
    }

    /// Send the next PULL if one is queued and the pacing interval has passed; otherwise wait.
    fn pump(&mut self, now: Time, out: &mut Outbox) {
        let Some(&slot) = self.ring.front() else { return };
        let due = self.last.map_or(now, |l| l + self.interval);
        if now < due {
            if self.timer.deadline().is_none() {
                self.timer.set(due, out);
            }
            return;
        }
        self.ring.pop_front();
        let e = &mut self.entries[slot as usize];
        e.pending -= 1;
        e.pulled += 1;
        let mut h = NdpHeader::new(NdpKind::Pull);
        h.pull = e.pulled;
        let ends = e.ends;
        let p = Packet::new(ends.flow, ends.dst, ends.src, e.control, Kind::Control, ends.hash_rev, Header::Ndp(h));
        out.packets.push(p);
        if e.pending > 0 {
            self.ring.push_back(slot);
        }
        self.pulls_sent += 1;
        self.last = Some(now);
        if !self.ring.is_empty() {
            self.timer.set(now + self.interval, out);
        }
    }
}
