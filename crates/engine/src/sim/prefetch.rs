//! The event loop's prefetch pipeline (issue 36): on a fabric whose state does not fit the
//! last-level cache, each packet-hop reads several lines from DRAM — the packet, the egress
//! port, its queue, the receiving flow's transport state — one after another, and one event's
//! work (a few hundred ns) cannot hide a miss it only starts one event ahead. The packet events
//! sit mostly in the lanes of `event::Lanes`, popped in order, so the events a few places behind
//! a lane's head are known without a miss; each event taken starts loading, for the events of
//! its lane:
//!
//! - [`FAR`] places ahead: the packet's line and its path position's hop entry (an arrival), or
//!   the port's hot lines (a transmit-done) — addresses known from the event alone;
//! - [`NEAR`] places ahead, those lines now in cache: the egress port the hop names (its hot
//!   lines), or at the path's end the flow's record; for a transmit-done the port's FIFO ends;
//! - [`MID`] places ahead, for a packet at its path's end: the first hop entry of the path its
//!   receiving end sends on (the reply, or the data an ACK releases), through that flow's path
//!   record, which the near stage loaded with the flow's;
//! - the next event: the egress FIFO's ends an enqueue writes, or the transport state the
//!   delivered packet reaches through the (now cached) flow record and the NIC port its
//!   answer will be queued at (the hop entry now cached). Before these two stages a packet's
//!   first hop at its host waited for three lines in a row — path record, hop, NIC port — and
//!   took 11.5 % of a k = 48 run (`perf`), 3.8 % after.
//!
//! Hints only: they read only memory the run holds (the reply stages may load lines for an answer that never comes), and nothing changes but timing. On
//! a fabric that fits the cache the pipeline's own instructions cost more than they save (k = 8,
//! 3 ms: 12 % more instructions, 113 per packet-hop, callgrind; B4 no faster), so it runs only
//! above [`DEEP_PORT_BYTES`]; smaller fabrics keep the one-event-ahead hint. The depths were
//! chosen by timing k = 48: 4 / 2 and 16 / 8 within the noise of 8 / 4, 32 / 16 slower
//! (docs/PERFORMANCE.md, "Engine changes").

use super::{Flow, Simulator};
use crate::event::Event;

/// Places behind the next event of a lane whose packet and hop (or port) start loading.
pub(super) const FAR: usize = 8;
/// Places behind the next event whose second, dependent lines start loading.
pub(super) const NEAR: usize = 4;
/// Places behind the next event whose third, dependent line starts loading (a delivery's reply hop).
pub(super) const MID: usize = 2;
/// The deep pipeline runs when the ports alone take more than this (bytes): about the
/// last-level cache's share a port's hot lines can keep (a fat tree has 1.5 k^3 ports, host NICs
/// included: k = 32's 49 152 are 18.9 MB, k = 24's 20 736 just under 8 MiB, B4's 2 592 1.0 MB;
/// fat trees from k = 26 take the pipeline).
pub(super) const DEEP_PORT_BYTES: usize = 8 << 20;

impl Simulator {
    /// Start loading what the coming events will touch (see the module doc). Called with each
    /// event taken, before it runs.
    #[inline(always)]
    pub(super) fn prefetch_ahead(&self) {
        if !self.deep_prefetch {
            match self.events.upcoming() {
                Some(Event::Arrive { pkt, at, .. }) => {
                    self.slab.prefetch(pkt);
                    self.fabric.prefetch_hop(at);
                }
                Some(Event::TxDone { port }) => {
                    self.fabric.prefetch_port(port);
                    self.fabric.prefetch_queue(port);
                }
                _ => {}
            }
            return;
        }
        match self.events.lane_ahead(FAR) {
            Some(Event::Arrive { pkt, at, .. }) => {
                self.slab.prefetch(pkt);
                self.fabric.prefetch_path(at);
            }
            Some(Event::TxDone { port }) => self.fabric.prefetch_port(port),
            _ => {}
        }
        match self.events.lane_ahead(NEAR) {
            Some(Event::Arrive { pkt, at, .. }) => match self.fabric.egress_on_path(at) {
                Some(Some(port)) => self.fabric.prefetch_port(port),
                Some(None) => self.prefetch_flow(pkt),
                None => {}
            },
            Some(Event::TxDone { port }) => self.fabric.prefetch_queue(port),
            _ => {}
        }
        if let Some(Event::Arrive { pkt, at, .. }) = self.events.lane_ahead(MID) {
            if self.fabric.egress_on_path(at) == Some(None) {
                self.prefetch_reply_hop(pkt);
            }
        }
        if let Some(Event::Arrive { pkt, at, .. }) = self.events.upcoming() {
            match self.fabric.egress_on_path(at) {
                Some(Some(port)) => self.fabric.prefetch_queue(port),
                Some(None) => {
                    self.prefetch_transport(pkt);
                    self.prefetch_reply_port(pkt);
                }
                None => {}
            }
        }
    }

    /// The first hop of the path the end a packet `pkt` reaches sends on (its reply, or the
    /// data an ACK releases: the host's first hop, `Fabric::at_node`), through its cached flow's
    /// path record.
    #[inline]
    fn prefetch_reply_hop(&self, pkt: crate::ids::PacketId) {
        if let Some(p) = self.slab.peek(pkt) {
            if let Some(at) = self.fabric.first_from(p.flow, p.dst) {
                self.fabric.prefetch_path(at);
            }
        }
    }

    /// The NIC port that reply leaves by, through the (cached) hop.
    #[inline]
    fn prefetch_reply_port(&self, pkt: crate::ids::PacketId) {
        if let Some(p) = self.slab.peek(pkt) {
            if let Some(Some(port)) = self.fabric.first_from(p.flow, p.dst).and_then(|at| self.fabric.egress_on_path(at)) {
                self.fabric.prefetch_port(port);
            }
        }
    }

    /// Packet `pkt` and the record of its flow, if both exist (a hint's lookup: never panics).
    #[inline]
    fn packet_and_flow(&self, pkt: crate::ids::PacketId) -> Option<(&crate::packet::Packet, &Flow)> {
        let p = self.slab.peek(pkt)?;
        Some((p, self.flows.get(p.flow.idx())?))
    }

    /// The record of the flow packet `pkt` belongs to.
    #[inline]
    fn prefetch_flow(&self, pkt: crate::ids::PacketId) {
        if let Some((p, f)) = self.packet_and_flow(pkt) {
            crate::packet::prefetch_lines(f, 3);
            self.fabric.prefetch_flow_paths(p.flow);
        }
    }

    /// The transport state delivering `pkt` will touch, through its flow's record.
    #[inline]
    fn prefetch_transport(&self, pkt: crate::ids::PacketId) {
        if let Some((p, f)) = self.packet_and_flow(pkt) {
            f.transport.prefetch(p.kind == crate::packet::Kind::Ack);
        }
    }

    /// Whether the deep pipeline pays on this fabric (its ports' size against the cache).
    pub(super) fn wants_deep_prefetch(ports: usize) -> bool {
        ports * std::mem::size_of::<crate::network::Port>() > DEEP_PORT_BYTES
    }
}
