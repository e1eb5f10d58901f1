//! Host-egress shaping with segmentation offload (`[host] egress_rate` with `egress_burst`).
//!
//! What is modelled: Linux's netem queueing discipline with a rate (`tc qdisc … netem rate R`, as
//! Etalon puts on each container's data interface) in front of a NIC whose segmentation offload
//! (TSO/GSO) is on, the kernel's default. netem treats each skb as one packet: an skb of `len`
//! bytes queued at `now` gets the departure time
//!
//! ```text
//! time_to_send = max(now, time_to_send of the skb queued before it) + len / R
//! ```
//!
//! and leaves whole at that time (Linux 4.15, `net/sched/sch_netem.c`, `netem_enqueue`; netem
//! segments a GSO skb itself only when it corrupts packets). With offload on, a TCP skb carries up
//! to 64 KB of segments (`gso_max_size`); after netem it is cut into segments at the device's line
//! rate, so they reach the switch back to back. The long-run rate is R; the spacing is per skb,
//! not per segment.
//!
//! The model: the host's port keeps its link's rate for serialization, and a [`Shaper`] sits in
//! front of it. Packets handed to the port wait in the shaper. When it holds no burst, it forms one
//! from the packets at its head — consecutive data packets of one flow, up to `burst` bytes, at
//! least one packet; any other packet (an ACK, a SYN) is a burst of its own, as Linux never
//! aggregates them — and releases it at `time_to_send = max(now, previous release) + bytes / R`.
//! The released packets then enter the port's queue (the NIC) and go out back to back at the link
//! rate. The next burst forms at that release. A burst forms at the end of the instant it is due
//! (the `Release` event ranks after every other event at its picosecond), so packets a transport
//! hands over together at one instant — a TCP window opening — can share a burst.
//!
//! The approximation: Linux forms skbs at the TCP layer (`tcp_write_xmit`, sized by
//! `tcp_tso_autosize`); the model forms bursts at the NIC from what is queued there. The two agree
//! when TCP hands over a window's worth at once or the queue is backlogged, and differ when TCP
//! would have deferred a small send to build a larger skb (`tcp_tso_should_defer`, not modelled).
//!
//! With bursts of one packet this is per-packet netem, and differs from plain `egress_rate` (the
//! port itself serializing at R) by one thing: a packet leaves the shaper when its R-rate
//! serialization would end there, and then takes one link-rate serialization more. While the wire
//! is free at every release (the link faster than R, packets of similar sizes) each packet reaches
//! the switch exactly one link-rate serialization later than under plain `egress_rate`.

use crate::ids::{FlowId, PacketId, PortId};
use crate::network::{Network, NodeKind};
use crate::time::{Rate, Time};
use std::collections::VecDeque;

/// Largest `egress_burst` a scenario may give: far above Linux's 64 KB GSO limit (and the
/// 512 KB of BIG TCP), below sizes that no offload batches.
pub const MAX_BURST: u64 = 1 << 20;

/// A packet waiting in a shaper, with what burst formation reads of it.
#[derive(Clone, Copy, Debug)]
struct Held {
    id: PacketId,
    size: u32,
    flow: FlowId,
    /// Carries payload (may share a burst with its flow's neighbours).
    data: bool,
}

/// The shaper in front of one host port.
#[derive(Clone, Debug)]
pub struct Shaper {
    /// The egress rate R.
    pub rate: Rate,
    /// Largest burst in bytes (wire bytes, headers included).
    pub burst: u64,
    /// Packets waiting, head first; the first `formed` are the burst due at `last`.
    waiting: VecDeque<Held>,
    /// Packets of the burst waiting for its release (0: none formed).
    formed: usize,
    /// Release time of the last burst formed (netem's `time_to_send` of the previous skb).
    last: Time,
    /// A `Release` event is scheduled (at `last` when a burst is formed; at the instant the first
    /// packet arrived at an idle shaper otherwise).
    pending: bool,
}

impl Shaper {
    pub fn new(rate: Rate, burst: u64) -> Shaper {
        Shaper { rate, burst, waiting: VecDeque::new(), formed: 0, last: Time::ZERO, pending: false }
    }

    /// Packets held (not yet released to the port).
    #[inline]
    pub fn held(&self) -> u64 {
        self.waiting.len() as u64
    }

    /// Hold a packet. Returns true when the caller must schedule a `Release` now (the shaper was
    /// idle: the burst forms at the end of this instant).
    pub fn hold(&mut self, id: PacketId, size: u32, flow: FlowId, data: bool) -> bool {
        self.waiting.push_back(Held { id, size, flow, data });
        !std::mem::replace(&mut self.pending, true)
    }

    /// Take the next packet of the burst being released (at its `Release` event, `now` = its
    /// release time), or `None` when the burst is out.
    pub fn next_released(&mut self) -> Option<PacketId> {
        if self.formed == 0 {
            return None;
        }
        self.formed -= 1;
        self.waiting.pop_front().map(|h| h.id)
    }

    /// Form the next burst from the waiting packets at `now` (the previous burst is out). Returns
    /// its release time, for which the caller schedules a `Release`; `None` leaves the shaper
    /// idle.
    pub fn form(&mut self, now: Time) -> Option<Time> {
        debug_assert_eq!(self.formed, 0);
        let Some(first) = self.waiting.front().copied() else {
            self.pending = false;
            return None;
        };
        let (mut n, mut bytes) = (1, first.size as u64);
        if first.data {
            while let Some(h) = self.waiting.get(n) {
                if !h.data || h.flow != first.flow || bytes + h.size as u64 > self.burst {
                    break;
                }
                n += 1;
                bytes += h.size as u64;
            }
        }
        self.formed = n;
        self.last = self.last.max(now) + self.rate.serialization(bytes);
        self.pending = true;
        Some(self.last)
    }
}

/// The shapers of a network's host ports.
#[derive(Clone, Debug)]
pub struct Shapers {
    /// Per port: index into `list`, or `u32::MAX` for an unshaped port.
    slot: Vec<u32>,
    list: Vec<Shaper>,
}

impl Shapers {
    /// A shaper at `rate` with bursts of up to `burst` bytes on every port of every host.
    pub fn hosts(net: &Network, rate: Rate, burst: u64) -> Shapers {
        let mut slot = vec![u32::MAX; net.ports.len()];
        let mut list = Vec::new();
        for (i, p) in net.ports.iter().enumerate() {
            if net.node(p.node).kind == NodeKind::Host {
                slot[i] = list.len() as u32;
                list.push(Shaper::new(rate, burst));
            }
        }
        Shapers { slot, list }
    }

    /// The shaper of `port` (which must have one).
    #[inline]
    pub fn of(&mut self, port: PortId) -> &mut Shaper {
        &mut self.list[self.slot[port.idx()] as usize]
    }

    /// The shaper of `port`, if it has one.
    #[inline]
    pub fn get(&self, port: PortId) -> Option<&Shaper> {
        self.slot.get(port.idx()).and_then(|&s| self.list.get(s as usize))
    }

    /// Is `port` shaped?
    pub fn shapes(&self, port: PortId) -> bool {
        self.get(port).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(i: u32) -> PacketId {
        PacketId(i)
    }

    #[test]
    fn a_burst_takes_one_flows_data_up_to_the_size_and_spaces_releases_by_bytes_over_rate() {
        // 10 Gb/s, 64 000 B bursts; 9012 B packets: 7 fit (63 084 B), 8 do not (72 096 B).
        let mut s = Shaper::new(Rate::gbps(10), 64_000);
        assert!(s.hold(pkt(0), 9012, FlowId(0), true), "an idle shaper asks for a Release");
        for i in 1..10 {
            assert!(!s.hold(pkt(i), 9012, FlowId(0), true));
        }
        // 7 × 9012 B × 8 bit / 10 Gb/s = 50.4672 µs.
        assert_eq!(s.form(Time::ZERO), Some(Time(50_467_200)));
        let out: Vec<_> = std::iter::from_fn(|| s.next_released()).collect();
        assert_eq!(out, (0..7).map(pkt).collect::<Vec<_>>());
        // The next burst forms at that release: 3 packets, due 3 × 7.2096 µs later.
        assert_eq!(s.form(Time(50_467_200)), Some(Time(72_096_000)));
        assert_eq!(s.held(), 3);
        while s.next_released().is_some() {}
        assert_eq!(s.form(Time(72_096_000)), None);
        assert!(s.hold(pkt(20), 9012, FlowId(0), true), "idle again");
        // Formed later than the last release: from now.
        assert_eq!(s.form(Time(100_000_000)), Some(Time(107_209_600)));
    }

    #[test]
    fn another_flow_or_a_packet_without_payload_ends_a_burst() {
        let mut s = Shaper::new(Rate::gbps(10), 64_000);
        s.hold(pkt(0), 1000, FlowId(0), true);
        s.hold(pkt(1), 1000, FlowId(0), true);
        s.hold(pkt(2), 1000, FlowId(1), true);
        s.hold(pkt(3), 52, FlowId(1), false);
        s.hold(pkt(4), 52, FlowId(1), false);
        s.hold(pkt(5), 1000, FlowId(1), true);
        // 2000 B: 1.6 µs; then flow 1's 1000 B alone (0.8 µs), each ACK alone (41.6 ns), the
        // last data packet alone.
        let mut t = Time::ZERO;
        let mut sizes = Vec::new();
        while let Some(at) = s.form(t) {
            let n = std::iter::from_fn(|| s.next_released()).count();
            sizes.push((n, at.0 - t.0));
            t = at;
        }
        assert_eq!(sizes, vec![(2, 1_600_000), (1, 800_000), (1, 41_600), (1, 41_600), (1, 800_000)]);
    }

    #[test]
    fn a_packet_larger_than_the_burst_goes_alone() {
        let mut s = Shaper::new(Rate::gbps(10), 1);
        s.hold(pkt(0), 9012, FlowId(0), true);
        s.hold(pkt(1), 9012, FlowId(0), true);
        assert_eq!(s.form(Time::ZERO), Some(Time(7_209_600)));
        assert_eq!(s.next_released(), Some(pkt(0)));
        assert_eq!(s.next_released(), None);
    }
}
