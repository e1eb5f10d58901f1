//! Reconfigurable datacenter networks (RDCNs): racks whose hybrid ToRs share a low-rate packet
//! switch and a high-rate, bufferless circuit switch that cycles through matchings.
//!
//! Model (Mukerjee et al., "Adapting TCP for Reconfigurable Datacenter Networks", NSDI 2020 §2,
//! §4.2; the Etalon emulator): rack r's hosts hang off ToR r; every ToR has one packet uplink to
//! the packet switch (`eps`) and one circuit uplink. The circuit switch is a crossbar whose
//! matching follows a [`WeekPlan`]; it has no buffer, so it is modelled as one *lane* port per
//! ordered rack pair (`tor{s}=>tor{d}`, circuit rate and delay), of which a ToR uses only the one
//! its circuit reaches during a day, and only for packets whose serialization ends before the
//! day does (nothing crosses the circuit at night). All cross-rack traffic waits in the source
//! ToR's virtual output queue for its destination rack; the ToR's [`TorPolicy`] decides
//! capacities and which uplink serves which VOQ. The packet switch is an ordinary switch, except
//! that a ToR pulls a packet for rack D only while the switch's port to D has room for it
//! (counting packets already on the uplink wire): a packet the packet switch would drop waits in
//! the VOQ instead (Etalon holds it, like PFC).
//!
//! The simulator side (forwarding into VOQs, pulls, reconfiguration events, measurements) is in
//! `sim/hybrid.rs`.

pub mod acceltor;
pub mod calendar;
pub mod elephants;
pub mod monitor;
pub mod policy;
pub mod schedule;
pub mod segregated;
pub mod sketch;
pub mod tables;
pub mod voq;

pub use monitor::{CircuitDay, LatencyHistogram, SeqView};
pub use policy::{EcnMarks, Etalon, Feedback, Resize, TorPolicy};
pub use schedule::{PairDay, Phase, Rack, Slot, WeekPlan};
pub use acceltor::{AccelTor, Acceleration, CaseIv, Decision, ElephantSpec, FlowState, Forget, Selection};
pub use segregated::{Blocking, Cases, Design, Segregated, TorQueues, Unblocking};
pub use voq::Voq;

use crate::ids::{NodeId, PortId};
use crate::network::Network;
use crate::time::{Rate, Time};

/// A hybrid network as declared: the node layout is hosts `h0…` (rack r holds hosts
/// r·hosts_per_rack …), then ToRs `tor0…`, then the packet switch `eps`.
#[derive(Clone, Debug, PartialEq)]
pub struct RdcnSpec {
    pub racks: usize,
    pub hosts_per_rack: usize,
    pub circuit_rate: Rate,
    pub circuit_delay: Time,
    pub plan: WeekPlan,
    pub policy: TorPolicy,
    /// Bin width and lead of the week-folded view (`SeqView`).
    pub view_bin: Time,
    pub view_before: Time,
    /// The RTO_min the scenario gave every TCP transport for the ToR design (AccelToR eq. (6),
    /// Blocking eq. (7)), if it did.
    pub host_rto_min: Option<Time>,
    /// ACK bypass (`[tor] ack_bypass`, Mukerjee et al. §4.4, the validation of Table 1): a pure
    /// ACK from a host to a host of another rack is delivered this long after it is sent, without
    /// entering its host's NIC, a VOQ, either switch or any link. `None`: ACKs cross the network.
    pub ack_bypass: Option<Time>,
}

impl RdcnSpec {
    pub fn tor_node(&self, rack: usize) -> usize {
        self.racks * self.hosts_per_rack + rack
    }
    pub fn eps_node(&self) -> usize {
        self.racks * self.hosts_per_rack + self.racks
    }
    /// AccelToR's `lp_left`, if the ToRs are AccelToR's and it is set.
    pub fn lp_left(&self) -> Option<u64> {
        match self.policy {
            TorPolicy::Segregated(Design::Accel(a), _) => a.lp_left,
            _ => None,
        }
    }
}

/// What a port is to the hybrid network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Plain,
    /// ToR `rack`'s packet uplink (pulls from the VOQs).
    Uplink(Rack),
    /// The circuit lane from rack `src` (pulls from VOQ (src, dst) during the pair's days).
    Lane(Rack, Rack),
    /// The packet switch's port down to ToR `rack`.
    EpsDown(Rack),
}

/// Runtime state of the hybrid network.
#[derive(Debug)]
pub struct Rdcn {
    pub spec: RdcnSpec,
    pub racks: usize,
    pub role: Vec<Role>,
    pub eps: NodeId,
    /// VOQ of pair (src, dst) at index src·racks + dst.
    pub voqs: Vec<Voq>,
    pub uplink: Vec<PortId>,
    pub eps_down: Vec<PortId>,
    pub lanes: Vec<PortId>,
    /// Packets and bytes pulled towards the packet switch for rack d, not there yet.
    pub eps_inflight: Vec<(u64, u64)>,
    /// Round-robin cursor of each ToR's packet uplink (last rack served).
    pub rr: Vec<u32>,
    /// ToRs whose packet uplink idles with packets held back by the packet switch (set through
    /// `set_eps_blocked`, which keeps `eps_blocked_count`).
    pub eps_blocked: Vec<bool>,
    /// How many of `eps_blocked` are set: a packet-switch port that drains looks for held-back
    /// ToRs only when there are some, instead of scanning every rack per packet.
    pub eps_blocked_count: u32,
    /// Lane byte counters at the start of the running day, per pair of the current matching.
    pub day_open: Vec<(Rack, Rack, u64)>,
    pub day_start: Time,
    pub days: Vec<CircuitDay>,
    /// Latency through the hybrid network (source ToR in → destination ToR in), data packets.
    pub latency_packet: LatencyHistogram,
    pub latency_circuit: LatencyHistogram,
    pub views: Vec<Option<Box<SeqView>>>,
    pub warmup: Time,
    /// The queues and elephant selection of a segregating ToR design (AccelToR, Blocking,
    /// Unblocking); `None` under Etalon, whose state is `voqs`.
    pub seg: Option<Box<Segregated>>,
    /// With the ACK bypass: per host, the port from its ToR down to it (a bypassed ACK "arrives"
    /// through it without having crossed it). Empty otherwise.
    pub host_down: Vec<PortId>,
    /// First transmission start on each pair's lane during the running day (`Time::MAX`: none
    /// yet), for the day's span on the wire (`CircuitDay::wire`).
    pub wire_first: Vec<Time>,
    /// Per ToR packet uplink: bytes serialized by the last circuit boundary (`Event::Circuit`),
    /// and, after the warm-up, bytes serialized and time spent during nights and during days.
    pub uplink_mark: Vec<f64>,
    pub uplink_night: Vec<(f64, Time)>,
    pub uplink_day: Vec<(f64, Time)>,
    /// When the running phase began, and whether it is a day.
    pub phase_start: Time,
    pub phase_day: bool,
}

impl Rdcn {
    pub fn new(spec: &RdcnSpec, net: &Network, warmup: Time, seed: u64) -> Rdcn {
        let n = spec.racks;
        let mut role = vec![Role::Plain; net.ports.len()];
        let tor = |r: usize| NodeId::from_idx(spec.tor_node(r));
        let eps = NodeId::from_idx(spec.eps_node());
        let find = |a: NodeId, b: NodeId| -> PortId {
            let i = net.ports.iter().position(|p| p.node == a && p.peer == b).expect("hybrid topology port");
            PortId::from_idx(i)
        };
        let uplink: Vec<PortId> = (0..n).map(|r| find(tor(r), eps)).collect();
        let eps_down: Vec<PortId> = (0..n).map(|r| find(eps, tor(r))).collect();
        let mut lanes = vec![PortId(u32::MAX); n * n];
        for (i, p) in net.ports.iter().enumerate() {
            if let Some((s, d)) = lane_of(&p.name) {
                lanes[s * n + d] = PortId::from_idx(i);
                role[i] = Role::Lane(s as Rack, d as Rack);
            }
        }
        for r in 0..n {
            role[uplink[r].idx()] = Role::Uplink(r as Rack);
            role[eps_down[r].idx()] = Role::EpsDown(r as Rack);
        }
        let host_down = match spec.ack_bypass {
            Some(_) => (0..n * spec.hosts_per_rack).map(|h| find(tor(h / spec.hosts_per_rack), NodeId::from_idx(h))).collect(),
            None => Vec::new(),
        };
        Rdcn {
            spec: spec.clone(),
            racks: n,
            role,
            eps,
            voqs: vec![Voq::default(); n * n],
            uplink,
            eps_down,
            lanes,
            eps_inflight: vec![(0, 0); n],
            rr: (0..n as u32).collect(),
            eps_blocked: vec![false; n],
            eps_blocked_count: 0,
            day_open: Vec::new(),
            day_start: Time::ZERO,
            days: Vec::new(),
            latency_packet: LatencyHistogram::default(),
            latency_circuit: LatencyHistogram::default(),
            views: vec![None; n * n],
            warmup,
            seg: spec.policy.design().map(|(d, e)| Box::new(Segregated::new(d, *e, n, seed))),
            host_down,
            wire_first: vec![Time::MAX; n * n],
            uplink_mark: vec![0.0; n],
            uplink_night: vec![(0.0, Time::ZERO); n],
            uplink_day: vec![(0.0, Time::ZERO); n],
            phase_start: Time::ZERO,
            phase_day: false,
        }
    }

    /// Rack of a host node (hosts come first in the layout).
    #[inline]
    pub fn rack_of_host(&self, h: NodeId) -> Rack {
        (h.idx() / self.spec.hosts_per_rack) as Rack
    }

    /// Mark ToR `s`'s packet uplink as held back by the packet switch or not.
    #[inline]
    pub fn set_eps_blocked(&mut self, s: Rack, blocked: bool) {
        let b = &mut self.eps_blocked[s as usize];
        self.eps_blocked_count = self.eps_blocked_count + blocked as u32 - *b as u32;
        *b = blocked;
    }

    /// Note that pair `pi`'s lane starts a transmission at `now` (the day's span on the wire
    /// begins at its first).
    #[inline]
    pub fn note_lane_tx(&mut self, pi: usize, now: Time) {
        if self.wire_first[pi] == Time::MAX {
            self.wire_first[pi] = now;
        }
    }

    /// Is `node` a host (hosts come first in the layout)?
    #[inline]
    pub fn is_host(&self, node: NodeId) -> bool {
        node.idx() < self.racks * self.spec.hosts_per_rack
    }

    /// Rack of a ToR node, if `node` is a ToR.
    #[inline]
    pub fn tor_rack(&self, node: NodeId) -> Option<Rack> {
        let first = self.racks * self.spec.hosts_per_rack;
        (node.idx() >= first && node.idx() < first + self.racks).then(|| (node.idx() - first) as Rack)
    }

    #[inline]
    pub fn pair(&self, s: Rack, d: Rack) -> usize {
        s as usize * self.racks + d as usize
    }

    /// Mean circuit utilization over the days, starting at or after `from`, of the pairs that
    /// carry data (the paper's measure, §5.1; pairs carrying only ACKs are left out).
    pub fn mean_utilization(&self, from: Time) -> Option<f64> {
        let data: Vec<bool> = self.voqs.iter().map(|v| v.data).collect();
        let u: Vec<f64> = self.days.iter().filter(|d| d.start >= from && data[self.pair(d.src, d.dst)]).map(|d| d.utilization).collect();
        (!u.is_empty()).then(|| u.iter().sum::<f64>() / u.len() as f64)
    }
}

/// Lane port name `tor{s}=>tor{d}` → (s, d).
pub fn lane_name(s: usize, d: usize) -> String {
    format!("tor{s}=>tor{d}")
}

fn lane_of(name: &str) -> Option<(usize, usize)> {
    let (a, b) = name.split_once("=>")?;
    Some((a.strip_prefix("tor")?.parse().ok()?, b.strip_prefix("tor")?.parse().ok()?))
}
