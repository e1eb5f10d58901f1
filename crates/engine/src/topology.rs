//! Building the [`Network`] from a topology description: nodes, one port per link direction, and
//! the forwarding tables.
//!
//! Shapes (names are what scenarios and outputs use):
//! - `star`: hosts h0..h{N−1} on switch s0.
//! - `dumbbell`: hosts h0..h{L−1} on s0, h{L}..h{L+R−1} on s1, bottleneck s0–s1.
//! - `explicit`: the nodes and links as listed.

use crate::ids::{NodeId, PortId};
use crate::network::{Network, Node, NodeKind, Port, PortStats, Routes};
use crate::queue::Queue;
use crate::scenario::{FaultSpec, QueueSpec, TopologySpec};

fn port(name: String, node: usize, peer: usize, l: &crate::scenario::LinkSpec, q: QueueSpec) -> Port {
    Port {
        name,
        node: NodeId::from_idx(node),
        peer: NodeId::from_idx(peer),
        rate: l.rate,
        delay: l.delay,
        loss_rate: l.loss_rate,
        queue: Queue::new(q.limit, q.discipline),
        drop_list: Vec::new(),
        send_limit: q.send_limit,
        waiters: Vec::new(),
        drop_next: 0,
        busy: false,
        stats: PortStats::default(),
    }
}

/// Build nodes, ports and routes.
pub fn build(spec: &TopologySpec) -> Network {
    let mut nodes: Vec<Node> = spec
        .nodes
        .iter()
        .map(|n| Node { name: n.name.clone(), kind: if n.is_host { NodeKind::Host } else { NodeKind::Switch }, ports: vec![] })
        .collect();
    let mut ports = Vec::with_capacity(spec.links.len() * 2);
    for l in &spec.links {
        let (na, nb) = (&spec.nodes[l.a].name, &spec.nodes[l.b].name);
        nodes[l.a].ports.push(PortId::from_idx(ports.len()));
        ports.push(port(format!("{na}->{nb}"), l.a, l.b, l, l.queue_ab));
        nodes[l.b].ports.push(PortId::from_idx(ports.len()));
        ports.push(port(format!("{nb}->{na}"), l.b, l.a, l, l.queue_ba));
    }
    let hosts: Vec<NodeId> = (0..nodes.len()).filter(|&i| spec.nodes[i].is_host).map(NodeId::from_idx).collect();
    let mut host_index = vec![None; nodes.len()];
    for (i, h) in hosts.iter().enumerate() {
        host_index[h.idx()] = Some(i as u32);
    }
    let adj: Vec<Vec<(PortId, NodeId)>> =
        nodes.iter().map(|n| n.ports.iter().map(|&p| (p, ports[p.idx()].peer)).collect()).collect();
    let is_host: Vec<bool> = spec.nodes.iter().map(|n| n.is_host).collect();
    let routes = Routes::build(&adj, &is_host, &hosts);
    Network { nodes, ports, hosts, host_index, routes }
}

/// Build the network and apply the scenario's scheduled drops.
pub fn build_with_faults(spec: &TopologySpec, faults: &[FaultSpec]) -> Network {
    let mut net = build(spec);
    for f in faults {
        if let Some(p) = net.port_by_name(&f.port) {
            let list = &mut net.ports[p.idx()].drop_list;
            list.extend(&f.drop_packets);
            list.sort_unstable();
            list.dedup();
        }
    }
    net
}
