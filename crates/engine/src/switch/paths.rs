//! Per-flow paths: each flow's two paths (data and return), chosen once when the flow is
//! created by the same per-flow ECMP hash the routing table would use hop by hop, so a switch
//! finds a packet's egress port in a few bytes of the flow's path instead of in the routing
//! table (a large table read once per hop, rarely in cache on big fabrics) — htsim carries a
//! route with each packet for the same reason. The same choices: the paths are walked with
//! `routing::pick` over the same next-hop sets, so results are identical (tested).
//!
//! A packet uses its flow's path only if it carries the flow's hash for its direction and that
//! direction's source; anything else (sprayed packets, NDP's per-packet hashes, packets a switch
//! returned to their sender) falls back to the table. Identical paths are stored once.
//!
//! Once a packet is on its path, its position there ([`PathPos`]: an index into the stored hops)
//! travels with it — in the simple port's queue and in the `Arrive` event — so the next switch
//! reads its node and egress port from one hop entry, without the flow's record, the search along
//! the path or the port's peer table (three scattered reads per hop on a large fabric), and the
//! event loop can prefetch that egress port before the arrival is processed.

use crate::ids::{FlowId, NodeId, PortId};
use crate::network::Network;
use crate::packet::Packet;
use std::collections::HashMap;

/// The port of a path's last entry: its destination, where the packet is delivered.
const NO_PORT: PortId = PortId(u32::MAX);

/// One hop of a path: at `node`, leave by `port`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Hop {
    node: NodeId,
    port: PortId,
}

/// A packet's position on its flow's path: the hop it takes at the node it is at or reaching
/// (an index into [`FlowPaths`]' stored hops), or [`PathPos::NONE`] when it follows no stored
/// path or the position is not known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathPos(u32);

impl PathPos {
    pub const NONE: PathPos = PathPos(u32::MAX);

    /// Position `i`, for tests that need a real one.
    #[cfg(test)]
    pub(crate) const fn at(i: u32) -> PathPos {
        PathPos(i)
    }

    #[inline]
    pub fn is_some(self) -> bool {
        self != PathPos::NONE
    }

    /// The position one hop further: the next hop, or the path's destination entry (whose
    /// node delivers the packet).
    #[inline]
    pub fn next(self) -> PathPos {
        if self.is_some() {
            PathPos(self.0 + 1)
        } else {
            self
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct FlowPath {
    hash_fwd: u64,
    hash_rev: u64,
    src: NodeId,
    /// First hop of each path in `FlowPaths::hops`, and its length (0: no path).
    fwd: u32,
    rev: u32,
    fwd_len: u8,
    rev_len: u8,
}

/// Every flow's paths, by flow id.
#[derive(Clone, Debug, Default)]
pub struct FlowPaths {
    flows: Vec<FlowPath>,
    hops: Vec<Hop>,
    /// Stored paths by a fingerprint of their hops (a hit is checked hop by hop).
    interned: HashMap<u64, u32>,
    scratch: Vec<Hop>,
}

impl FlowPaths {
    /// Record flow `flow` (ids come in order) from `src` to `dst` with its two hashes.
    pub fn add(&mut self, net: &Network, flow: FlowId, src: NodeId, dst: NodeId, hash_fwd: u64, hash_rev: u64) {
        debug_assert_eq!(flow.idx(), self.flows.len());
        let (fwd, fwd_len) = self.intern(net, src, dst, hash_fwd);
        let (rev, rev_len) = self.intern(net, dst, src, hash_rev);
        self.flows.push(FlowPath { hash_fwd, hash_rev, src, fwd, rev, fwd_len, rev_len });
    }

    fn intern(&mut self, net: &Network, from: NodeId, to: NodeId, hash: u64) -> (u32, u8) {
        let Some(ports) = net.path(from, to, hash) else { return (0, 0) };
        if ports.len() > u8::MAX as usize {
            return (0, 0);
        }
        self.scratch.clear();
        self.scratch.extend(ports.iter().map(|&port| Hop { node: net.ports[port.idx()].node, port }));
        // The path ends with its destination, where a packet leaves by no port: the position
        // after the last hop names the node the packet is delivered at.
        self.scratch.push(Hop { node: to, port: NO_PORT });
        let key = self.scratch.iter().fold(self.scratch.len() as u64, |h, x| crate::rng::mix64(h ^ ((x.port.0 as u64) << 32 | x.node.0 as u64)));
        let len = ports.len();
        if let Some(&s) = self.interned.get(&key) {
            if self.hops.get(s as usize..s as usize + len + 1) == Some(&self.scratch[..]) {
                return (s, len as u8);
            }
        }
        let s = self.hops.len() as u32;
        self.hops.extend_from_slice(&self.scratch);
        self.interned.entry(key).or_insert(s);
        (s, len as u8)
    }

    /// The position at `node` of packet `p` on its flow's path, if it follows one.
    #[inline]
    pub fn position(&self, p: &Packet, node: NodeId) -> Option<PathPos> {
        let f = self.flows.get(p.flow.idx())?;
        let (start, len) = if p.path_hash == f.hash_fwd && p.src == f.src {
            (f.fwd, f.fwd_len)
        } else if p.path_hash == f.hash_rev && p.dst == f.src {
            (f.rev, f.rev_len)
        } else {
            return None;
        };
        let hops = &self.hops[start as usize..start as usize + len as usize];
        hops.iter().position(|h| h.node == node).map(|i| PathPos(start + i as u32))
    }

    /// The egress port at `node` of packet `p` on its flow's path, if it follows one.
    #[inline]
    pub fn egress(&self, p: &Packet, node: NodeId) -> Option<PortId> {
        self.position(p, node).map(|at| self.port(at))
    }

    /// The egress port at position `at` (which must be some and not the destination's).
    #[inline]
    pub fn port(&self, at: PathPos) -> PortId {
        self.hops[at.0 as usize].port
    }

    /// Start loading the hop entry at position `at` (a hint; any position).
    #[inline]
    pub fn prefetch(&self, at: PathPos) {
        if let Some(h) = self.hops.get(at.0 as usize) {
            crate::packet::prefetch(h as *const Hop as *const u8);
        }
    }

    /// Start loading flow `flow`'s record (a hint; any id).
    #[inline]
    pub fn prefetch_flow(&self, flow: FlowId) {
        if let Some(f) = self.flows.get(flow.idx()) {
            crate::packet::prefetch(f as *const FlowPath as *const u8);
        }
    }

    /// The first position of the path flow `flow` sends on from its end `node` (its data path
    /// from its source, its return path from the other end), if it has one.
    #[inline]
    pub fn first_from(&self, flow: FlowId, node: NodeId) -> Option<PathPos> {
        let f = self.flows.get(flow.idx())?;
        let (start, len) = if node == f.src { (f.fwd, f.fwd_len) } else { (f.rev, f.rev_len) };
        (len > 0).then_some(PathPos(start))
    }

    /// The port a packet at position `at` leaves by: `Some(None)` at its path's destination
    /// entry (it is delivered there), `None` for a position not stored.
    #[inline]
    pub fn egress_at(&self, at: PathPos) -> Option<Option<PortId>> {
        let h = self.hops.get(at.0 as usize)?;
        Some((h.port != NO_PORT).then_some(h.port))
    }

    /// The node at position `at` (which must be some).
    #[inline]
    pub fn node(&self, at: PathPos) -> NodeId {
        self.hops[at.0 as usize].node
    }

    /// Hops stored, each path's destination entry included (distinct paths share their hops).
    pub fn stored_hops(&self) -> usize {
        self.hops.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::routing::pick;
    use crate::packet::{Header, Kind, TcpHeader};
    use crate::scenario::Scenario;

    #[test]
    fn a_flow_path_gives_the_ports_the_table_picks_and_nothing_for_other_packets() {
        let doc = "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"fat_tree\"\nk = 4\nlink = { rate = \"10Gbps\", delay = \"1us\" }\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n";
        let net = crate::topology::build(&Scenario::from_toml(doc).unwrap().topology);
        let mut paths = FlowPaths::default();
        let hosts = net.hosts.clone();
        let mut flows = Vec::new();
        for i in 0..64u32 {
            let (src, dst) = (hosts[(i as usize * 5) % 16], hosts[(i as usize * 7 + 3) % 16]);
            if src == dst {
                continue;
            }
            let (hf, hr) = (crate::rng::mix64(i as u64 + 1), crate::rng::mix64(i as u64 + 1000));
            paths.add(&net, FlowId(flows.len() as u32), src, dst, hf, hr);
            flows.push((src, dst, hf, hr));
        }
        assert_eq!(paths.first_from(FlowId(flows.len() as u32), hosts[0]), None, "a flow with no record");
        let mut walked = 0;
        for (f, &(src, dst, hf, hr)) in flows.iter().enumerate() {
            for (from, to, hash) in [(src, dst, hf), (dst, src, hr)] {
                // Walk hop by hop with the routing table and compare every egress port.
                let pkt = Packet::new(FlowId(f as u32), from, to, 1500, Kind::Data, hash, Header::Tcp(TcpHeader::default()));
                let mut at = from;
                // The position a packet carries from hop to hop names the same nodes and ports,
                // and after the last hop the destination.
                let mut pos = paths.position(&pkt, from).unwrap();
                // The prefetch stage's lookup from the flow's end alone finds the same first hop.
                assert_eq!(paths.first_from(FlowId(f as u32), from), Some(pos), "flow {f} from {from:?}");
                while at != to {
                    let hops = net.next_hops(at, to);
                    let want = hops[pick(hops.len(), hash, at)];
                    assert_eq!(paths.egress(&pkt, at), Some(want), "flow {f} at {at:?}");
                    assert_eq!((paths.node(pos), paths.port(pos)), (at, want));
                    at = net.ports[want.idx()].peer;
                    pos = pos.next();
                    walked += 1;
                }
                assert_eq!(paths.node(pos), to);
                // Another hash (a sprayed packet), or the data hash going back (a packet
                // returned to its sender), does not follow the flow's paths.
                let mut other = pkt;
                other.path_hash ^= 1;
                assert_eq!(paths.egress(&other, from), None);
            }
            let bounced = Packet::new(FlowId(f as u32), dst, src, 64, Kind::Data, hf, Header::Tcp(TcpHeader::default()));
            assert_eq!(paths.egress(&bounced, dst), None);
        }
        assert!(walked > 4 * flows.len());
        // 16 hosts, 4 paths at most between two pods: far fewer distinct paths than flows.
        assert!(paths.stored_hops() < walked, "{} hops stored for {walked} walked", paths.stored_hops());
    }
}
