//! Hosts: the NIC side of a host, where its transports meet the network.
//!
//! A host NIC exerts backpressure (like ns-3's device-queue flow control or Linux TSQ): a sender
//! may hand a data packet to its NIC only while the NIC queue holds fewer than `send_limit`
//! packets; blocked senders are woken in the order they blocked as the NIC drains.
//!
//! Beside the NICs, [`Stacks`] holds the transports' per-host state (`stacks.rs`),
//! [`RxJitter`] the hosts' receive processing delays (`jitter.rs`, `[host] rx_jitter`), and
//! `linux.rs` the TCP defaults of the Linux kernels a scenario can name (`[host] stack`), `ns3.rs`
//! those of ns-3's TCP.

pub mod jitter;
pub mod linux;
pub mod ns3;
pub mod stacks;
pub use jitter::RxJitter;
pub use stacks::{HostInfo, HostTimer, HostTimerId, PerHost, Stacks};

use crate::ids::{FlowId, PortId};
use crate::time::Time;

/// The `[host]` section: the hosts' model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostSpec {
    /// Largest receive processing delay; zero = none.
    pub rx_jitter: Time,
    /// The Linux kernel whose TCP defaults every TCP profile starts from; `None`: the engine's
    /// own defaults.
    pub stack: Option<linux::Kernel>,
    /// Time dilation factor: the network runs this many times slower than the hosts' kernels
    /// (Etalon's TDF); 1 = none. See `TcpConfig::dilate`.
    pub time_dilation: u32,
    /// Each host's egress limited to this rate (`tc qdisc ... netem rate`, as Etalon sets each
    /// container's): the host's side of its links serializes at it; the switch's side keeps the
    /// link's rate. `None`: the links' rates.
    pub egress_rate: Option<crate::time::Rate>,
    /// With `egress_rate`: netem's shaping of segmentation-offload batches of up to this many
    /// bytes (`network::shaper`) instead of per-packet serialization at the egress rate; the
    /// host's side of its links keeps the link's rate. `None`: per packet.
    pub egress_burst: Option<u64>,
}

impl Default for HostSpec {
    fn default() -> Self {
        HostSpec { rx_jitter: Time::ZERO, stack: None, time_dilation: 1, egress_rate: None, egress_burst: None }
    }
}
use crate::network::Network;
use crate::scenario::TopologySpec;

/// What `Fabric::nic_queued` reports for a NIC that holds its senders back whatever it queues: a
/// NIC paused by PFC under `[pfc] stop_senders` (`switch/pfc.rs`). Its budget is 0.
pub const HELD: u64 = u64::MAX;

/// Backpressure state of one host NIC port.
#[derive(Clone, Debug, Default)]
pub struct Nic {
    /// Data senders stop while the NIC queue holds this many packets; `None` = never.
    pub send_limit: Option<u64>,
    /// Flows blocked on `send_limit`, woken in order when the queue drains.
    pub waiters: Vec<FlowId>,
}

/// The hosts' NICs, by port.
#[derive(Clone, Debug, Default)]
pub struct Hosts {
    nics: Vec<Nic>,
    /// The transports' per-host state (Homa's schedulers, NDP's pull pacers).
    pub stacks: Stacks,
    /// Receive processing delays, when the scenario asks for them.
    pub rx_jitter: Option<Box<RxJitter>>,
}

impl Hosts {
    /// NIC settings from the links' queue specs (the port order `topology::build` uses: a→b,
    /// then b→a, per link; circuit lanes after).
    pub fn new(spec: &TopologySpec, net: &Network) -> Hosts {
        let mut nics = vec![Nic::default(); net.ports.len()];
        for (i, l) in spec.links.iter().enumerate() {
            nics[2 * i].send_limit = l.queue_ab.send_limit;
            nics[2 * i + 1].send_limit = l.queue_ba.send_limit;
        }
        Hosts { nics, stacks: Stacks::new(net), rx_jitter: None }
    }

    /// Data packets a sender may still hand to NIC `port`, whose queue holds `queued` packets;
    /// none while the NIC holds its senders (`queued` = [`HELD`]), whatever its send limit.
    #[inline]
    pub fn budget(&self, port: PortId, queued: u64) -> u64 {
        match self.nics[port.idx()].send_limit {
            _ if queued == HELD => 0,
            None => u64::MAX,
            Some(l) => l.saturating_sub(queued),
        }
    }

    #[inline]
    pub fn nic_mut(&mut self, port: PortId) -> &mut Nic {
        &mut self.nics[port.idx()]
    }

    #[inline]
    pub fn has_waiters(&self, port: PortId) -> bool {
        !self.nics[port.idx()].waiters.is_empty()
    }
}
