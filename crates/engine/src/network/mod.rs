//! The network: nodes (hosts and switches), ports (one per link direction) and forwarding tables.
//!
//! A bidirectional link between nodes A and B is two [`Port`]s: A's egress towards B and B's egress
//! towards A. A port owns its egress queue and its transmitter; the wire behind it has a rate, a
//! propagation delay and an optional random loss rate. Store-and-forward: a packet is handed to the
//! next node only after its last bit has arrived (serialization + propagation).

pub mod port;
pub mod routing;
pub mod shaper;
pub mod source_paths;

pub use port::{Port, PortStats};
pub use routing::{Ecmp, Routes};

use crate::ids::{NodeId, PortId};

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An endpoint: owns transport endpoints, never forwards transit traffic.
    Host,
    /// A packet switch: forwards by destination using its ECMP table.
    Switch,
}

/// A host or a switch.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// Egress ports, in the order the links were declared.
    pub ports: Vec<PortId>,
}

/// All devices and wires of one simulation.
#[derive(Clone, Debug)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    /// Hosts in declaration order; `host_index[node]` is a node's position here.
    pub hosts: Vec<NodeId>,
    pub host_index: Vec<Option<u32>>,
    pub routes: Routes,
}

impl Network {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.idx()]
    }

    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().position(|n| n.name == name).map(NodeId::from_idx)
    }

    pub fn port_by_name(&self, name: &str) -> Option<PortId> {
        self.ports.iter().position(|p| p.name == name).map(PortId::from_idx)
    }

    /// The ports a packet at `node` for host `dst` may leave by (ECMP set); empty if unreachable.
    pub fn next_hops(&self, node: NodeId, dst: NodeId) -> &[PortId] {
        match self.host_index[dst.idx()] {
            Some(h) => self.routes.next_hops(node, h),
            None => &[],
        }
    }

    /// [`next_hops`](Self::next_hops) for a packet being forwarded, whose destination is
    /// reachable (`Routes::forward_hops`: a single-homed host's uplink without the check).
    #[inline]
    pub fn forward_hops(&self, node: NodeId, dst: NodeId) -> &[PortId] {
        match self.host_index[dst.idx()] {
            Some(h) => self.routes.forward_hops(node, h),
            None => &[],
        }
    }

    /// The path a packet with `hash` takes from `src` to `dst` under per-flow hashing.
    pub fn path(&self, src: NodeId, dst: NodeId, hash: u64) -> Option<Vec<PortId>> {
        self.walk(src, dst, |hops, at| hops[routing::pick(hops.len(), hash, at)])
    }

    /// The path of source-chosen path index `index` from `src` to `dst` (`source_paths.rs`).
    pub fn path_by_index(&self, src: NodeId, dst: NodeId, mut index: u64) -> Option<Vec<PortId>> {
        self.walk(src, dst, |hops, _| if hops.len() == 1 { hops[0] } else { hops[source_paths::take_digit(&mut index, hops.len())] })
    }

    /// The ports from `src` to `dst`, `choose` picking one of each node's next hops.
    pub(crate) fn walk(&self, src: NodeId, dst: NodeId, mut choose: impl FnMut(&[PortId], NodeId) -> PortId) -> Option<Vec<PortId>> {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            let hops = self.next_hops(at, dst);
            if hops.is_empty() || path.len() > self.nodes.len() {
                return None;
            }
            let p = choose(hops, at);
            path.push(p);
            at = self.ports[p.idx()].peer;
        }
        Some(path)
    }
}
