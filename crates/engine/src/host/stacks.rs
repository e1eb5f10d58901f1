//! Per-host transport state: what a protocol keeps per host rather than per flow — a Homa
//! receiver's grant scheduler and a Homa sender's message queue, an NDP receiver's pull pacer.
//!
//! [`Stacks`] holds one field per protocol that needs host state, each a [`PerHost`] table indexed
//! by the host's `NodeId` (empty until the first flow of that protocol is built, so runs without
//! it pay nothing). Every transport event hands `&mut Stacks` to the flow handling it; a protocol
//! reads only its own field. A protocol's host state arms host timers ([`HostTimer`], lazily
//! cancelled like flow timers) that come back as `Event::HostTimer` and are dispatched here, by a
//! `match` on the protocol (static dispatch). Host state may emit packets of any of its flows
//! (a pull, a grant): packets carry their flow id, so the simulator injects them as it does a
//! flow's.

use crate::ids::NodeId;
use crate::network::Network;
use crate::time::{Rate, Time};
use crate::transport::timer::Lazy;
use crate::transport::{homa, ndp, Outbox};

/// Which host-level timer fired (the protocol it belongs to, and which of its timers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostTimerId {
    /// NDP: the receiver's pull pacer may send its next PULL.
    NdpPull,
    /// Homa: the host's periodic check for stalled messages (RESEND, retransmission).
    HomaScan,
}

/// One host-level timer with lazy cancellation (the bookkeeping of a flow's timer,
/// `transport::timer::Lazy`), scheduled as `Event::HostTimer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostTimer {
    node: NodeId,
    id: HostTimerId,
    lazy: Lazy,
}

impl HostTimer {
    pub const fn new(node: NodeId, id: HostTimerId) -> HostTimer {
        HostTimer { node, id, lazy: Lazy::new() }
    }

    pub fn deadline(&self) -> Option<Time> {
        self.lazy.deadline()
    }

    #[inline]
    fn schedule(&self, at: Option<Time>, out: &mut Outbox) {
        if let Some(at) = at {
            out.host_timers.push((at, self.node, self.id));
        }
    }

    /// Expire at `at` (replacing an earlier setting); schedules an event only if none is
    /// pending at or before `at`.
    #[inline]
    pub fn set(&mut self, at: Time, out: &mut Outbox) {
        let e = self.lazy.set(at);
        self.schedule(e, out);
    }

    pub fn cancel(&mut self) {
        self.lazy.cancel();
    }

    /// The event came at `now`: true if the timer expired (and is now unset).
    #[inline]
    pub fn fired(&mut self, now: Time, out: &mut Outbox) -> bool {
        let (expired, e) = self.lazy.fired(now);
        self.schedule(e, out);
        expired
    }
}

/// What a host's state is built from: its id and its NIC's line rate.
#[derive(Clone, Copy, Debug)]
pub struct HostInfo {
    pub node: NodeId,
    /// The rate of the host's (first) link (NDP paces its PULLs by it).
    pub rate: Rate,
}

/// One protocol's state for every host, indexed by `NodeId` (typed index; switches get an
/// unused default entry, which keeps the indexing direct).
#[derive(Clone, Debug)]
pub struct PerHost<T> {
    hosts: Vec<T>,
}

impl<T> Default for PerHost<T> {
    fn default() -> Self {
        PerHost { hosts: Vec::new() }
    }
}

impl<T> PerHost<T> {
    #[inline]
    pub fn at(&mut self, node: NodeId) -> &mut T {
        &mut self.hosts[node.idx()]
    }

    pub fn get(&self, node: NodeId) -> Option<&T> {
        self.hosts.get(node.idx())
    }

    /// Build every host's state (once; the first flow of the protocol calls it).
    pub fn build(&mut self, info: &[HostInfo], make: impl Fn(HostInfo) -> T) {
        if self.hosts.is_empty() {
            self.hosts = info.iter().map(|&i| make(i)).collect();
        }
    }
}

/// Per-host state of every protocol that has some (one field per protocol).
#[derive(Clone, Debug, Default)]
pub struct Stacks {
    info: Vec<HostInfo>,
    pub ndp: PerHost<ndp::NdpHost>,
    pub homa: PerHost<homa::HomaHost>,
}

impl Stacks {
    pub fn new(net: &Network) -> Stacks {
        let info = (0..net.nodes.len())
            .map(|i| {
                let node = NodeId::from_idx(i);
                let rate = net.node(node).ports.first().map_or(Rate(1), |&p| net.ports[p.idx()].rate);
                HostInfo { node, rate }
            })
            .collect();
        Stacks { info, ..Default::default() }
    }

    /// Make sure the per-host state the transport `cfg` needs exists.
    pub fn prepare(&mut self, cfg: &crate::transport::TransportConfig) {
        use crate::transport::TransportConfig as C;
        match cfg {
            C::Tcp(_) => {}
            C::Ndp(c) => self.ndp.build(&self.info, |i| ndp::NdpHost::new(i, c)),
            C::Homa(c) => self.homa.build(&self.info, |i| homa::HomaHost::new(i, c)),
        }
    }

    /// A host timer fired.
    pub fn on_timer(&mut self, now: Time, node: NodeId, timer: HostTimerId, out: &mut Outbox) {
        match timer {
            HostTimerId::NdpPull => self.ndp.at(node).on_pull_timer(now, out),
            HostTimerId::HomaScan => self.homa.at(node).on_scan_timer(now, out),
        }
    }
}
