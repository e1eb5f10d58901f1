//! The switch: what happens to a packet between two wires, as explicit pipeline stages.
//!
//! 1. **Ingress** ([`Fabric::at_node`]): the packet reaches a node. At its destination host it is
//!    handed back for delivery; at a hybrid ToR bound for another rack it goes to a VOQ
//!    (`hybrid.rs`); otherwise forwarding picks an egress port from the ECMP set (per-flow hash,
//!    per-packet spraying from the node's own random stream, or the next digit of the path index
//!    the packet's source chose, `network/source_paths.rs`).
//! 2. **Egress features** ([`Fabric::enqueue`]): per-port header rewriting that must see every
//!    packet leaving by a port before it queues (SAB's flow counting and window field, `sab.rs`).
//! 3. **Admission and enqueue**: the port's [`PortQueue`](crate::queue::PortQueue) decides by the
//!    packet's class, the buffer (per port or shared), its admission policy (drop-tail, push-out,
//!    pFabric, trimming) and marking (step or RED); a packet that finds the transmitter idle goes
//!    straight to stage 4.
//! 4. **Dequeue and transmit** ([`Fabric::start_tx`], [`Fabric::tx_done`]): the scheduler picks
//!    the queue (strict priority, DRR, WRR), dequeue marking applies, telemetry is recorded
//!    (`telemetry.rs`), the wire may lose the packet (random loss from the port's stream, or a
//!    scheduled fault), and `TxDone` / `Arrive` are scheduled (store-and-forward).
//!
//! The fabric never calls a transport: delivery returns the packet to the simulator, which also
//! checks after each transmission whether a host NIC has room again for its blocked senders.

mod hybrid;
mod segregated;
pub mod paths;
pub mod pfc;
pub mod sab;
pub mod telemetry;

use crate::event::{Event, EventQueue};
use crate::ids::{NodeId, PacketId, PortId};
use crate::network::shaper::Shapers;
use crate::network::source_paths::PathChoice;
use crate::network::{routing, Ecmp, Network};
use crate::packet::{Int, PacketSlab};
use crate::queue::{Admit, Env, SharedPool};
use crate::rng::Rng;
use crate::scenario::Scenario;
use crate::time::Time;
use paths::PathPos;
use telemetry::{IntHop, Telemetry};

/// What a stage needs from the simulation around the fabric.
pub struct Ctx<'a> {
    pub now: Time,
    /// Tie key of the event being processed: with `now`, the position in simulated time (events
    /// at one picosecond run in key order). Lets a port tell whether the `TxDone` it skipped
    /// would already have run.
    pub key: u64,
    pub end: Time,
    pub slab: &'a mut PacketSlab,
    pub events: &'a mut EventQueue,
}

/// Random stream numbers: per node (spraying) and per port (loss, RED), so that adding a node or
/// a port never shifts another's draws.
const NODE_STREAM: u64 = 1 << 40;
const PORT_STREAM: u64 = 2 << 40;

/// All switches, links and ports of one simulation, and the features that act on them.
pub struct Fabric {
    pub net: Network,
    /// Shared packet memory per node (empty unless `[switch] shared_buffer` is set).
    pub pools: Vec<SharedPool>,
    ecmp: Ecmp,
    spray: Vec<Rng>,
    /// SAB's per-port flow counts and window assignment, when SAB runs.
    pub sab: Option<Box<sab::SabPorts>>,
    /// The circuit side of a hybrid network, if the topology is one.
    pub rdcn: Option<Box<crate::rdcn::Rdcn>>,
    pub telemetry: Telemetry,
    /// The pcap tap (`[output.pcap]`), if capturing: one `Option` test per transmission otherwise.
    pub capture: Option<Box<crate::capture::Capture>>,
    /// The host-egress shapers (`[host] egress_burst`), if any; their ports have `Port::shaped`.
    pub shapers: Option<Box<Shapers>>,
    /// Every transmission ends in a `TxDone` event (for tests: results must not change).
    pub(crate) eager_tx_done: bool,
    /// A packet reaching a switch passes its internal pipe (`Event::Forward`) before its egress,
    /// as htsim's `FatTreeSwitch` does (`tie_order = "scheduled_switch"`).
    pub(crate) switch_pipe: bool,
    /// Each flow's paths under per-flow ECMP (`None` with packet spraying, source-chosen paths or
    /// a hybrid network, or when switched off for tests: results must not change).
    pub paths: Option<Box<paths::FlowPaths>>,
    /// Priority Flow Control (`[pfc]`, `pfc.rs`), if on: one `Option` test per arrival,
    /// transmission and transmit-done otherwise.
    pub pfc: Option<Box<pfc::Pfc>>,
    /// Each port's peer node (`Port::peer`), apart: an arrival reads 4 bytes from a 4-byte-per-port
    /// table that stays in cache instead of a cache line of the sending port.
    peers: Vec<NodeId>,
    /// Scratch list of packets pushed out by an admission (reused).
    victims: Vec<PacketId>,
    pub packet_hops: u64,
    /// Packets lost in the fabric (admission, push-out, wire).
    pub dropped: u64,
}

impl Fabric {
    pub fn new(sc: &Scenario, seed: u64, mut net: Network) -> Fabric {
        for (i, p) in net.ports.iter_mut().enumerate() {
            p.rng = Rng::stream(seed, PORT_STREAM | i as u64);
            p.lossy = p.loss_rate > 0.0 || !p.drop_list.is_empty();
            p.simple_queue = p.queue.counted_by_port();
            p.ps_per_byte = p.exact_ps_per_byte();
        }
        let pools = match sc.topology.shared_buffer {
            Some(b) => vec![SharedPool::new(b); net.nodes.len()],
            None => Vec::new(),
        };
        let spray = (0..net.nodes.len()).map(|i| Rng::stream(seed, NODE_STREAM | i as u64)).collect();
        let rdcn = sc.topology.rdcn.as_ref().map(|spec| {
            let mut r = crate::rdcn::Rdcn::new(spec, &net, sc.output.warmup, seed);
            if let Some(seg) = r.seg.as_deref_mut() {
                // The declared flows are flow ids 0, 1, … in order (§IV-B's initial selection).
                let h = spec.hosts_per_rack;
                let flows: Vec<_> = sc.flows.iter().enumerate().map(|(i, f)| (crate::ids::FlowId::from_idx(i), f.src / h, f.dst / h, f.size)).collect();
                seg.elephants.preselect(&flows);
            }
            Box::new(r)
        });
        let sab = sc.sab.as_ref().map(|spec| Box::new(sab::SabPorts::new(spec, &net)));
        let capture = sc.output.pcap.as_ref().map(|s| Box::new(crate::capture::Capture::new(s, &net)));
        if let Some(r) = rdcn.as_deref() {
            // Hybrid uplinks and lanes pull their VOQs, and the packet switch's ports release
            // held-back ToRs, when a packet ends.
            for (p, role) in net.ports.iter_mut().zip(&r.role) {
                p.tx_done_always = *role != crate::rdcn::Role::Plain;
            }
        }
        let shapers = match (sc.host.egress_rate, sc.host.egress_burst) {
            (Some(rate), Some(burst)) => {
                let s = Shapers::hosts(&net, rate, burst);
                for (i, p) in net.ports.iter_mut().enumerate() {
                    p.shaped = s.shapes(PortId::from_idx(i));
                }
                Some(Box::new(s))
            }
            _ => None,
        };
        for p in net.ports.iter_mut() {
            // A mark at the end of service needs the transmit-done that ends it.
            p.tx_done_always |= p.queue.marks_at_end();
        }
        let (eager_tx_done, switch_pipe) = (false, false);
        let paths = (sc.ecmp == Ecmp::FlowHash && sc.paths == PathChoice::Switches && rdcn.is_none()).then(Box::default);
        let pfc = sc.pfc.map(|spec| {
            // A packet leaves a switch's count when its last bit leaves: every switch port's
            // transmission ends in a `TxDone` (results are the same with or without them).
            for p in net.ports.iter_mut() {
                p.tx_done_always |= net.nodes[p.node.idx()].kind == crate::network::NodeKind::Switch;
            }
            Box::new(pfc::Pfc::new(spec, &net))
        });
        let peers = net.ports.iter().map(|p| p.peer).collect();
        // Source-chosen paths: switches read the packet's path index instead of hashing.
        let ecmp = if sc.paths == PathChoice::Switches { sc.ecmp } else { Ecmp::Source };
        // `serialization` multiplies by `ps_per_byte` where it is set: it must be the rate's own
        // (no rate may change after the loop above set it).
        debug_assert!(net.ports.iter().all(|p| p.ps_per_byte == p.exact_ps_per_byte()), "a port's ps_per_byte is not its rate's");
        Fabric { net, pools, ecmp, spray, sab, rdcn, telemetry: Telemetry::default(), capture, shapers, eager_tx_done, switch_pipe, paths, pfc, peers, victims: Vec::new(), packet_hops: 0, dropped: 0 }
    }

    /// Stage 1: packet `id` is at `node`. Returns it when `node` is its destination (the
    /// caller delivers and frees it); otherwise it is forwarded (or dropped).
    #[inline]
    pub fn at_node(&mut self, node: NodeId, id: PacketId, cx: &mut Ctx) -> Option<PacketId> {
        self.at_node_on(node, id, PathPos::NONE, cx)
    }

    /// Stage 1 for a packet whose position `at` on its flow's path at `node` may be known (an
    /// arrival carries it): then the hop there gives the egress port. Always inlined (the
    /// arrival in the event loop, `at_node`): a call per packet-hop saved and restored registers.
    #[inline(always)]
    fn at_node_on(&mut self, node: NodeId, id: PacketId, at: PathPos, cx: &mut Ctx) -> Option<PacketId> {
        let p = cx.slab.get(id);
        let (dst, path_hash) = (p.dst, p.path_hash);
        if dst == node {
            return Some(id);
        }
        if let Some(paths) = self.paths.as_deref() {
            let at = if at.is_some() { Some(at) } else { paths.position(p, node) };
            if let Some(at) = at {
                debug_assert_eq!(paths.node(at), node);
                self.enqueue_on(paths.port(at), id, at.next(), cx);
                return None;
            }
        }
        if let Some(r) = self.rdcn.as_deref() {
            if let Some(s) = r.tor_rack(node) {
                let d = r.rack_of_host(dst);
                if d != s {
                    self.tor_ingress(s, d, id, cx);
                    return None;
                }
            } else if let Some(delay) = r.spec.ack_bypass {
                // The ACK bypass (`hybrid.rs`): a pure ACK a host sends to another rack.
                if cx.slab.get(id).kind == crate::packet::Kind::Ack && r.is_host(node) && r.rack_of_host(node) != r.rack_of_host(dst) {
                    let port = r.host_down[dst.idx()];
                    cx.events.schedule(cx.now + delay, Event::Arrive { port, pkt: id, at: PathPos::NONE });
                    return None;
                }
            }
        }
        let hops = self.net.forward_hops(node, dst);
        let port = match (hops.len(), self.ecmp) {
            (0, _) => {
                // Validation guarantees routes; keep the invariant even so.
                cx.slab.free(id);
                self.dropped += 1;
                return None;
            }
            (1, _) => hops[0],
            (n, Ecmp::FlowHash) => hops[routing::pick(n, path_hash, node)],
            (n, Ecmp::PacketSpray) => hops[self.spray[node.idx()].below(n as u64) as usize],
            (n, Ecmp::Source) => hops[crate::network::source_paths::take_digit(&mut cx.slab.get_mut(id).path_hash, n)],
        };
        self.enqueue(port, id, cx);
        None
    }

    /// A packet crossed the wire behind `port` (event `Arrive`, with the packet's position `at`
    /// on its flow's path at the peer node, if known): hybrid-network measurements, then stage 1
    /// at the peer node.
    #[inline]
    pub fn arrive(&mut self, port: PortId, id: PacketId, at: PathPos, cx: &mut Ctx) -> Option<PacketId> {
        if let Some(r) = self.rdcn.as_deref() {
            let role = r.role[port.idx()];
            if role != crate::rdcn::Role::Plain {
                self.hybrid_arrival(role, id, cx);
            }
        }
        if self.telemetry.pending() {
            // Over a link without delay the packet arrives in the picosecond its serialization
            // ends, before the port's `TxDone` (arrivals rank first): its hop ends now.
            self.int_ended(port, Some(id), cx);
        }
        if let Some(pfc) = self.pfc.as_deref_mut().filter(|f| f.counts(port)) {
            if pfc.entered(port, id, cx.slab.get(id).size) {
                self.send_frame(port, true, cx);
            }
        }
        let node = match self.paths.as_deref() {
            Some(paths) if at.is_some() => paths.node(at),
            _ => self.peers[port.idx()],
        };
        debug_assert_eq!(node, self.peers[port.idx()]);
        if self.switch_pipe && cx.slab.get(id).dst != node {
            // Ingress done (PFC counted, as htsim's `LosslessInputQueue::receivePacket`); the
            // egress takes the packet in an event of its own, after those already due now.
            cx.events.schedule(cx.now, Event::Forward { node, pkt: id, at });
            return None;
        }
        self.at_node_on(node, id, at, cx)
    }

    /// A packet passed switch `node`'s internal pipe (`Event::Forward`, `switch_pipe`): on to its
    /// egress.
    pub fn forward(&mut self, node: NodeId, id: PacketId, at: PathPos, cx: &mut Ctx) {
        let delivered = self.at_node_on(node, id, at, cx);
        debug_assert!(delivered.is_none(), "a packet forwarded at its destination");
    }

    /// Start loading what the arrival of a packet at position `at` of its path will touch: the
    /// egress port's transmitter line (a hint; no effect on results).
    #[inline]
    pub fn prefetch_hop(&self, at: PathPos) {
        if let Some(paths) = self.paths.as_deref().filter(|_| at.is_some()) {
            if let Some(p) = self.net.ports.get(paths.port(at).idx()) {
                crate::packet::prefetch(p as *const crate::network::Port as *const u8);
            }
        }
    }

    /// Start loading the hop entry of path position `at` (the far stage of the event loop's
    /// prefetch pipeline, `sim/prefetch.rs`; a hint).
    #[inline]
    pub fn prefetch_path(&self, at: PathPos) {
        if let Some(paths) = self.paths.as_deref() {
            paths.prefetch(at);
        }
    }

    /// Start loading the path record of flow `flow` (a hint, as [`prefetch_path`](Self::prefetch_path)).
    #[inline]
    pub fn prefetch_flow_paths(&self, flow: crate::ids::FlowId) {
        if let Some(paths) = self.paths.as_deref() {
            paths.prefetch_flow(flow);
        }
    }

    /// The first position of the path flow `flow` sends on from its end `node` (see
    /// `FlowPaths::first_from`).
    #[inline]
    pub fn first_from(&self, flow: crate::ids::FlowId, node: NodeId) -> Option<PathPos> {
        self.paths.as_deref()?.first_from(flow, node)
    }

    /// The egress port of a packet arriving at path position `at`: `Some(None)` where it is
    /// delivered, `None` when it follows no stored path.
    #[inline]
    pub fn egress_on_path(&self, at: PathPos) -> Option<Option<PortId>> {
        self.paths.as_deref()?.egress_at(at)
    }

    /// Start loading the ends of `port`'s FIFO (what a dequeue reads and an enqueue writes; a
    /// hint once the port's lines are in cache).
    #[inline]
    pub fn prefetch_queue(&self, port: PortId) {
        if let Some(p) = self.net.ports.get(port.idx()) {
            p.queue.prefetch_ends();
        }
    }

    /// Stages 2 and 3: egress features, then admission to the port's queues (or straight to the
    /// transmitter when it is idle). A shaped host port's packets wait in its shaper first.
    #[inline]
    pub fn enqueue(&mut self, port: PortId, id: PacketId, cx: &mut Ctx) {
        self.enqueue_on(port, id, PathPos::NONE, cx)
    }

    /// `enqueue` of a packet whose position on its flow's path at the next node is `next` (kept
    /// with it through the port's queue entry and the arrival). Always inlined into stage 1
    /// (`at_node_on`) and `enqueue`: a call per packet-hop saved and restored registers.
    #[inline(always)]
    fn enqueue_on(&mut self, port: PortId, id: PacketId, next: PathPos, cx: &mut Ctx) {
        if let Some(sab) = self.sab.as_deref_mut() {
            sab.on_egress(port, cx.slab.get_mut(id));
        }
        if self.telemetry.pending() && self.net.ports[port.idx()].stats.busy_until == cx.now {
            // A hop recorded at its packet's end takes the queue before the packets that arrive
            // in the picosecond the last bit leaves, as htsim's does (`telemetry.rs`).
            self.int_ended(port, None, cx);
        }
        let p = &mut self.net.ports[port.idx()];
        if p.shaped {
            // One flag test in the port's first cache line for every other port.
            self.shape(port, id, cx);
            return;
        }
        if p.busy && !p.tx_pending && Self::finished(p.stats.busy_until, port, cx) {
            // The transmission ended unobserved (no `TxDone`: nothing was waiting).
            p.busy = false;
        }
        if !p.busy && !p.paused {
            debug_assert!(p.queue.is_empty());
            if !p.simple_queue {
                // Simple ports count admissions from what they send; no need to read the class.
                let pkt = cx.slab.get(id);
                p.queue.passed(id, pkt.class, pkt.flow);
            }
            // Nothing waits behind this packet: the transmitter reads nothing of the queue.
            let pkt = cx.slab.get(id);
            self.send(port, id, pkt.size, pkt.int, false, next, cx);
            return;
        }
        p.note_queue(cx.now);
        let mut env = Env { slab: cx.slab, pools: &mut self.pools, rng: &mut p.rng, now: cx.now, victims: &mut self.victims };
        let mut bounce = None;
        match p.queue.offer_at(id, next, &mut env) {
            Admit::Enqueued { marked, trimmed } => {
                p.stats.ecn_marks += marked as u64;
                if trimmed {
                    p.stats.trims += 1;
                }
                p.note_peak();
            }
            Admit::Dropped if p.queue.returns_to_sender() && { let q = cx.slab.get(id); q.trimmed && !q.bounced } => {
                // Return to sender (NDP §3.1): the header goes back the way it came.
                p.stats.bounces += 1;
                let q = cx.slab.get_mut(id);
                std::mem::swap(&mut q.src, &mut q.dst);
                q.bounced = true;
                bounce = Some(p.node);
            }
            Admit::Dropped => {
                p.stats.drops += 1;
                self.dropped += 1;
                cx.slab.free(id);
            }
        }
        if !self.victims.is_empty() {
            p.stats.drops += self.victims.len() as u64;
            self.dropped += self.victims.len() as u64;
            for v in self.victims.drain(..) {
                cx.slab.free(v);
            }
        }
        let p = &mut self.net.ports[port.idx()];
        if !p.simple_queue && !p.queue.is_empty() {
            // A packet waits behind this transmission (`PortQueue::predict_waiter`), whether or
            // not its transmit-done was scheduled early.
            p.queue.note_waiter();
        }
        if !p.tx_pending && !p.paused && !p.queue.is_empty() {
            // Someone waits now: the transmitter comes back for it when its packet ends (a
            // paused port's RESUME starts it instead).
            p.tx_pending = true;
            cx.events.schedule_behind(p.stats.busy_until, Event::TxDone { port });
        }
        if let Some(node) = bounce {
            self.reroute(node, id, cx);
        }
    }

    /// A packet for a shaped host port waits in its shaper; an idle shaper forms its burst at the
    /// end of this instant (not inlined: the rare path stays out of `enqueue`).
    #[inline(never)]
    fn shape(&mut self, port: PortId, id: PacketId, cx: &mut Ctx) {
        let p = cx.slab.get(id);
        let s = self.shapers.as_deref_mut().expect("a shaped port has a shaper").of(port);
        if s.hold(id, p.size, p.flow, p.kind == crate::packet::Kind::Data) {
            cx.events.schedule(cx.now, Event::Release { port });
        }
        self.net.ports[port.idx()].held += 1;
    }

    /// The shaper of `port` releases the burst due now: its packets enter the port (stage 3), the
    /// first straight onto the wire if it is free, the rest back to back behind it. The caller
    /// then lets blocked senders refill and calls [`form_burst`](Self::form_burst).
    pub fn release(&mut self, port: PortId, cx: &mut Ctx) {
        // The packets go through `enqueue` again, past the shaper (its flag cleared meanwhile)
        // and past SAB's egress stage, which saw them on their way in. One admission code path
        // keeps the compiler's inlining of the hot one as it was.
        let sab = self.sab.take();
        self.net.ports[port.idx()].shaped = false;
        while let Some(id) = self.shapers.as_deref_mut().and_then(|s| s.of(port).next_released()) {
            self.net.ports[port.idx()].held -= 1;
            self.enqueue(port, id, cx);
        }
        self.net.ports[port.idx()].shaped = true;
        self.sab = sab;
        debug_assert_eq!(self.net.ports[port.idx()].held as u64, self.shapers.as_deref().and_then(|s| s.get(port)).map_or(0, |s| s.held()));
    }

    /// The shaper of `port` forms its next burst from the packets waiting, and schedules its
    /// release.
    pub fn form_burst(&mut self, port: PortId, cx: &mut Ctx) {
        if let Some(at) = self.shapers.as_deref_mut().and_then(|s| s.of(port).form(cx.now)) {
            cx.events.schedule(at, Event::Release { port });
        }
    }

    /// Packets a host has handed to NIC `port` that have not started on its wire: the port's
    /// queue and, for a shaped port, its shaper (the NIC's backpressure counts both). A NIC
    /// paused by PFC whose senders stop (`[pfc] stop_senders`) counts as full: `host::HELD`.
    #[inline]
    pub fn nic_queued(&self, port: PortId) -> u64 {
        let p = &self.net.ports[port.idx()];
        if p.paused && self.pfc.as_deref().is_some_and(pfc::Pfc::stops_senders) {
            return crate::host::HELD;
        }
        p.queue.len_packets() + p.held as u64
    }

    /// The rate at which `port` can carry traffic in the long run: its link's, or its shaper's
    /// when lower (for ideal completion times and the rates transports are told).
    pub fn egress_rate(&self, port: PortId) -> crate::time::Rate {
        let link = self.net.ports[port.idx()].rate;
        self.shapers.as_deref().and_then(|s| s.get(port)).map_or(link, |s| link.min(s.rate))
    }

    /// Start loading the transmitter state of `port` (a hint for an upcoming `TxDone`).
    #[inline]
    pub fn prefetch_port(&self, port: PortId) {
        if let Some(p) = self.net.ports.get(port.idx()) {
            let at = p as *const crate::network::Port as *const u8;
            for line in 0..crate::network::Port::HOT_LINES {
                crate::packet::prefetch(at.wrapping_add(64 * line));
            }
        }
    }

    /// A sender on this host waits for `port` (its NIC) to finish a packet: every transmission
    /// ends in a `TxDone` until no one waits (the simulator clears `watched`), including the one
    /// on the wire now.
    pub fn watch(&mut self, port: PortId, cx: &mut Ctx) {
        let p = &mut self.net.ports[port.idx()];
        p.watched = true;
        if p.busy && !p.tx_pending && !Self::finished(p.stats.busy_until, port, cx) {
            p.tx_pending = true;
            cx.events.schedule_behind(p.stats.busy_until, Event::TxDone { port });
        }
    }

    /// Has a transmission of `port` ending at `until` finished at the current point of the
    /// simulation — would its `TxDone` have run by now? Before `now` yes; at `now` exactly iff
    /// its tie key precedes the event being processed (arrivals at that picosecond still find
    /// the port busy, as they would with the event in the queue).
    #[inline]
    fn finished(until: Time, port: PortId, cx: &Ctx) -> bool {
        until < cx.now || (until == cx.now && Event::TxDone { port }.tie_key() < cx.key)
    }

    /// Forward a packet that turned back at `node` (not inlined: the rare path stays out of
    /// `enqueue`).
    #[inline(never)]
    fn reroute(&mut self, node: NodeId, id: PacketId, cx: &mut Ctx) {
        // Turned back at the sender's own NIC it has nowhere to go: a drop.
        if self.at_node(node, id, cx).is_some() {
            self.dropped += 1;
            cx.slab.free(id);
        }
    }

    /// Stage 4: put packet `id` on the wire of `port` (idle).
    #[inline]
    pub fn start_tx(&mut self, port: PortId, id: PacketId, cx: &mut Ctx) {
        let pkt = cx.slab.get(id);
        let waiting = !self.net.ports[port.idx()].queue.is_empty();
        self.send(port, id, pkt.size, pkt.int, waiting, PathPos::NONE, cx);
    }

    /// `start_tx` for a packet of `size` bytes whose telemetry request (`int`) is known, with
    /// `waiting` telling whether packets wait in the port's queue behind it and `next` its
    /// position on its flow's path at the port's peer. Always inlined into its callers (the idle
    /// port in `enqueue_on`, the next packet in `tx_done`, `start_tx`): a call per packet-hop
    /// saved and restored six registers.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn send(&mut self, port: PortId, id: PacketId, size: u32, int: Int, waiting: bool, next: PathPos, cx: &mut Ctx) {
        let now = cx.now;
        let size = size as u64;
        let p = &mut self.net.ports[port.idx()];
        if int.collects() {
            let hop = IntHop { port, time: now, queue_bytes: p.queue.len_bytes(), tx_bytes: p.stats.tx_bytes, rate: p.rate };
            self.telemetry.record(id, hop);
        }
        p.busy = true;
        let ser = p.serialization(size);
        p.stats.tx_bytes += size;
        p.stats.busy_time += ser;
        p.stats.busy_until = now + ser;
        self.packet_hops += 1;
        if let Some(pfc) = self.pfc.as_deref_mut() {
            pfc.on_wire(port, id);
        }
        // A `TxDone` only when packets wait, a host sender waits for this NIC, or the port pulls
        // VOQs then (hybrid networks); a port that
        // gets a packet while this one serializes schedules it then (`enqueue`). Event order and
        // results are the same as with one `TxDone` per packet — tie keys do not depend on when an
        // event was scheduled — with half the packet events on lightly queued fabrics.
        // A hop recorded at the packet's end needs the `TxDone` that ends it.
        // A multi-queue port whose last transmission had a packet waiting behind it schedules
        // this one's `TxDone` now (`PortQueue::predict_waiter`).
        let predicted = !p.simple_queue && p.queue.predict_waiter(waiting);
        p.tx_pending = self.eager_tx_done || p.tx_done_always || waiting || predicted || p.watched || int == Int::CollectAtEnd;
        if p.tx_pending {
            cx.events.schedule_ahead(now + ser, Event::TxDone { port });
        }
        let lost = p.lossy && p.lost();
        p.stats.tx_packets += 1;
        if let Some(c) = self.capture.as_deref_mut() {
            let p = &self.net.ports[port.idx()];
            c.on_tx(port, now, now + ser + p.delay, lost, cx.slab.get(id), &self.net);
        }
        let p = &mut self.net.ports[port.idx()];
        if lost {
            p.stats.wire_losses += 1;
            p.queue.lost_in_service();
            self.dropped += 1;
            if self.rdcn.is_some() {
                // A packet pulled towards the packet switch that never gets there frees its room.
                self.hybrid_wire_loss(port, id, cx);
            }
            cx.slab.free(id);
        } else {
            let delay = p.delay;
            cx.events.schedule_ahead(now + ser + delay, Event::Arrive { port, pkt: id, at: next });
            if int == Int::CollectAtEnd {
                self.telemetry.await_end(id, port, self.net.ports.len());
            }
        }
    }

    /// The serialization on `port` ends now: a hop recorded at its end (of packet `only`, if
    /// given) takes the time and the bytes waiting (`telemetry.rs`; not inlined: rare).
    #[inline(never)]
    fn int_ended(&mut self, port: PortId, only: Option<PacketId>, cx: &Ctx) {
        let waiting = self.net.ports[port.idx()].queue.len_bytes();
        self.telemetry.ended(port, only, cx.now, waiting);
    }

    /// The peer of `port` sends it a PFC frame (PAUSE or RESUME), which arrives after the link's
    /// propagation delay (`pfc.rs`).
    #[inline(never)]
    fn send_frame(&mut self, port: PortId, pause: bool, cx: &mut Ctx) {
        cx.events.schedule(cx.now + self.net.ports[port.idx()].delay, Event::Pfc { port, pause });
    }

    /// A PFC frame reaches `port` (event `Pfc`): a PAUSE stops it after the packet on its wire; a
    /// RESUME starts the next packet waiting, or has the transmitter come back for it when the
    /// packet on the wire ends.
    pub fn pfc_frame(&mut self, port: PortId, pause: bool, cx: &mut Ctx) {
        if let Some(pfc) = self.pfc.as_deref_mut() {
            pfc.received(port, pause, cx.now);
        }
        let p = &mut self.net.ports[port.idx()];
        p.paused = pause;
        if pause || p.queue.is_empty() {
            return;
        }
        if p.busy && !p.tx_pending && Self::finished(p.stats.busy_until, port, cx) {
            p.busy = false;
        }
        if !p.busy {
            self.tx_done(port, cx);
        } else if !p.tx_pending {
            p.tx_pending = true;
            cx.events.schedule_behind(p.stats.busy_until, Event::TxDone { port });
        }
    }

    /// The transmitter of `port` finished its packet: dequeue the next one (stage 4 again).
    /// Always inlined (the event loop; `pfc_frame`): a call per transmit-done saved and restored
    /// registers.
    #[inline(always)]
    pub fn tx_done(&mut self, port: PortId, cx: &mut Ctx) {
        if self.telemetry.pending() {
            self.int_ended(port, None, cx);
        }
        if let Some(pfc) = self.pfc.as_deref_mut() {
            if let Some(from) = pfc.left(port) {
                self.send_frame(from, false, cx);
            }
        }
        if self.eager_tx_done {
            // The scheduled tie orders: the packet enters the link now (htsim's `Pipe`).
            cx.events.enter_link(port);
        }
        let p = &mut self.net.ports[port.idx()];
        p.busy = false;
        p.tx_pending = false;
        if !p.simple_queue {
            // A mark decided as the packet's service ends (`mark_at = "end"`; nothing otherwise).
            p.stats.ecn_marks += p.queue.end_service(cx.slab) as u64;
        }
        if p.paused {
            // PAUSE received: the next packet waits for the RESUME.
            return;
        }
        p.note_queue(cx.now);
        if p.simple_queue {
            if let Some(q) = p.queue.pop_fifo() {
                debug_assert!({ let k = cx.slab.get(q.id); (k.size, k.int) == (q.size, q.int) });
                let waiting = !p.queue.is_empty();
                self.send(port, q.id, q.size, q.int, waiting, q.next, cx);
            }
        } else {
            let mut env = Env { slab: cx.slab, pools: &mut self.pools, rng: &mut p.rng, now: cx.now, victims: &mut self.victims };
            if let Some((q, marked)) = p.queue.pop(&mut env) {
                debug_assert!({ let k = env.slab.get(q.id); (k.size, k.int) == (q.size, q.int) });
                p.stats.ecn_marks += marked as u64;
                // The entry holds what the transmission needs: the packet's slot is not read.
                let waiting = !p.queue.is_empty();
                self.send(port, q.id, q.size, q.int, waiting, q.next, cx);
            }
        }
        if self.rdcn.is_some() {
            self.hybrid_tx_done(port, cx);
        }
    }
}

#[cfg(test)]
mod tests;
