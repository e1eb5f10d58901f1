//! The simulator: one event loop over the network and the flows.
//!
//! The simulator owns time, the event list, the packet slab, the flows and their applications;
//! the [`Fabric`](crate::switch::Fabric) moves packets between wires (the switch pipeline) and the
//! [`Hosts`](crate::host::Hosts) hold the NICs' backpressure. Packets live in the slab; events
//! carry ids.

mod prefetch;

use crate::event::{Event, EventQueue, TieOrder};
use crate::ids::{FlowId, NodeId, PacketId, PortId};
use crate::host::Hosts;
use crate::network::source_paths::{PathChoice, Pins, SourcePaths};
use crate::network::{routing, Ecmp};
use crate::output::{ideal_fct, ideal_fct_sprayed, peak_rss_bytes, FlowTable, Metric, PortTable, Series, Summary};
use crate::switch::{Ctx, Fabric};
use crate::packet::PacketSlab;
use crate::rng::{mix64, Rng};
use crate::scenario::Scenario;
use crate::workload::OpenLoop;
use crate::time::Time;
use crate::topology;
use crate::transport::{Endpoints, FlowTransport, Outbox, Transport, TransportConfig};

/// The fabric's view of the simulation (`switch::Ctx`), borrowing only the fields it needs so
/// that `self.fabric` stays free to call.
macro_rules! ctx {
    ($s:ident) => {
        Ctx { now: $s.now, key: $s.now_key, end: $s.end, slab: &mut $s.slab, events: &mut $s.events }
    };
}

/// A flow: its transport and what the output table needs.
#[derive(Clone, Debug)]
pub struct Flow {
    pub transport: FlowTransport,
    pub ends: Endpoints,
    pub size: Option<u64>,
    pub start: Time,
    /// Index into `Simulator::names` of the transport profile.
    pub profile: u32,
    /// Index into `Simulator::names` of the workload or application that made it ("" = listed).
    pub label: u32,
    /// The incast application waiting for this flow, if any.
    pub app: Option<u32>,
    /// A persistent incast connection's current block: the application, and the acknowledged
    /// byte count that completes the block.
    pub block: Option<(u32, u64)>,
    /// The source NIC port this flow's data leaves by (for backpressure).
    pub nic: PortId,
    /// Registered as a waiter on `nic`.
    pub waiting: bool,
    /// Completion already accounted for.
    pub done: bool,
    /// Absolute deadline, if any.
    pub deadline: Option<Time>,
    /// Its connection goes back to its host pair's pool when it finishes.
    pub pooled: bool,
}

/// Runtime state of an open-loop workload.
#[derive(Clone, Debug)]
struct Generator {
    spec: usize,
    arrivals: OpenLoop,
    active: bool,
    label: u32,
    profile: u32,
}

/// Runtime state of an incast application.
#[derive(Clone, Debug)]
struct Incast {
    spec: usize,
    rounds_done: u64,
    outstanding: usize,
    active: bool,
    label: u32,
    profile: u32,
    /// Persistent connections, one per sender, made by the first round.
    conns: Vec<FlowId>,
}

/// Packet counts for the conservation invariant: created = delivered + dropped + in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conservation {
    pub created: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
}

impl Conservation {
    pub fn holds(&self) -> bool {
        self.created == self.delivered + self.dropped + self.in_flight
    }
}

/// One simulation, from a validated scenario.
pub struct Simulator {
    now: Time,
    /// Tie key of the event being processed (`Event::tie_key`): where in the instant `now` we are.
    now_key: u64,
    /// The event loop prefetches several events ahead (`prefetch.rs`): a fabric too large for
    /// the cache.
    deep_prefetch: bool,
    /// Keep completed flows' full state (tests compare against it; normally released).
    pub(crate) keep_finished: bool,
    end: Time,
    sc: Scenario,
    /// Interned profile and workload names (index 0 = "").
    names: Vec<String>,
    gens: Vec<Generator>,
    incasts: Vec<Incast>,
    /// Finite flows not finished yet.
    unfinished: u64,
    /// Long-lived flows (they never finish).
    long_lived: u64,
    seed: u64,
    name: String,
    events: EventQueue,
    slab: PacketSlab,
    /// The switches, links and ports: the per-hop pipeline.
    pub fabric: Fabric,
    /// The flows' own path choices (`[routing] paths`), when the sources choose.
    source_paths: Option<Box<SourcePaths>>,
    pub hosts: Hosts,
    pub flows: Vec<Flow>,
    /// The TCP configurations the flows' connections share.
    tcp_configs: crate::transport::tcp::SharedConfigs,
    outbox: Outbox,
    /// The telemetry box lent to an outbox while a transport reads a delivered record.
    int_spare: Option<Box<crate::switch::telemetry::IntRecord>>,
    /// Scratch list for waking flows blocked on a NIC (reused, never reallocated in steady state).
    wake: Vec<FlowId>,
    created: u64,
    delivered: u64,
    sample_interval: Option<Time>,
    sample_ports: Vec<PortId>,
    sample_flows: Vec<FlowId>,
    pub series: Series,
    wall: std::time::Duration,
    /// Idle connections of persistent workloads per (source, destination) host, oldest first:
    /// what each keeps for its next flow.
    pools: std::collections::BTreeMap<(NodeId, NodeId), std::collections::VecDeque<crate::transport::Carry>>,
}

impl Simulator {
    /// Build the network and flows. `seed` overrides the scenario's seed.
    pub fn new(sc: &Scenario, seed: Option<u64>) -> Simulator {
        let seed = seed.unwrap_or(sc.seed);
        let net = topology::build_with_faults(&sc.topology, &sc.faults);
        let mut events = EventQueue::with_order(sc.tie_order);
        let sample_ports = sc.output.queues.iter().filter_map(|q| net.port_by_name(q)).collect();
        let sample_flows = sc.output.cwnd.iter().map(|&i| FlowId::from_idx(i)).collect();
        if sc.output.sample_interval.is_some() {
            events.schedule(Time::ZERO, Event::Sample);
        }
        let mut sim = Simulator {
            now: Time::ZERO,
            now_key: 0,
            deep_prefetch: Self::wants_deep_prefetch(net.ports.len()),
            keep_finished: false,
            end: sc.end,
            sc: Self::kept(sc),
            names: vec![String::new()],
            gens: Vec::new(),
            incasts: Vec::new(),
            unfinished: 0,
            long_lived: 0,
            seed,
            name: sc.name.clone(),
            events,
            slab: PacketSlab::new(),
            hosts: Hosts::new(&sc.topology, &net),
            tcp_configs: Default::default(),
            fabric: Fabric::new(sc, seed, net),
            source_paths: (sc.paths != PathChoice::Switches).then(|| Box::new(SourcePaths::new(sc.paths, seed))),
            flows: Vec::with_capacity(sc.flows.len()),
            outbox: Outbox::default(),
            int_spare: None,
            wake: Vec::new(),
            created: 0,
            delivered: 0,
            sample_interval: sc.output.sample_interval,
            sample_ports,
            sample_flows,
            series: Series::default(),
            wall: std::time::Duration::ZERO,
            pools: Default::default(),
        };
        sim.hosts.rx_jitter = crate::host::RxJitter::new(&sc.host, sim.fabric.net.nodes.len(), seed).map(Box::new);
        // Ties in scheduling order: every transmission schedules its transmit-done as it starts,
        // as both peers do; a lazy one would take its place among the ties from when it was
        // scheduled (event.rs's module doc).
        sim.fabric.eager_tx_done |= sc.tie_order != TieOrder::Event;
        sim.fabric.switch_pipe = sc.tie_order == TieOrder::ScheduledSwitch;
        if sim.fabric.rdcn.is_some() {
            sim.events.schedule(Time::ZERO, Event::Circuit);
        }
        for f in &sc.flows {
            let (profile, label) = (sim.intern(&f.transport), 0);
            let id = sim.add_flow(NodeId::from_idx(f.src), NodeId::from_idx(f.dst), f.size, f.start, f.cfg, profile, label, None, f.path);
            if let Some(t) = f.stop {
                sim.events.schedule(t, Event::FlowStop { flow: id });
            }
            if let Some(d) = f.deadline {
                sim.set_deadline(id, f.start + d);
            }
        }
        for (i, w) in sc.workloads.iter().enumerate() {
            let capacity: u64 = w.senders.iter().map(|&h| sim.host_rate(NodeId::from_idx(h))).sum();
            let mut arrivals = OpenLoop::new(w, capacity, Rng::stream(seed, 1000 + i as u64));
            let label = sim.intern(&w.name);
            let profile = sim.intern(&w.transport);
            let first = w.start + arrivals.gap();
            let active = first < w.stop;
            if active {
                sim.events.schedule(first, Event::Arrival { gen: i as u32 });
            }
            sim.gens.push(Generator { spec: i, arrivals, active, label, profile });
        }
        for (i, a) in sc.incasts.iter().enumerate() {
            let label = sim.intern(&a.name);
            let profile = sim.intern(&a.transport);
            sim.events.schedule(a.start, Event::IncastRound { app: i as u32 });
            sim.incasts.push(Incast { spec: i, rounds_done: 0, outstanding: 0, active: true, label, profile, conns: Vec::new() });
        }
        sim
    }

    /// What the run reads from the scenario after building: applications, outputs, timing —
    /// not the topology's links or the flow list, which can be large.
    fn kept(sc: &Scenario) -> Scenario {
        let t = &sc.topology;
        let topology = crate::scenario::TopologySpec {
            kind: t.kind.clone(),
            nodes: Vec::new(),
            links: Vec::new(),
            oversubscription: t.oversubscription,
            bisection_bps: t.bisection_bps,
            rdcn: None,
            shared_buffer: t.shared_buffer,
            clock: t.clock,
        };
        Scenario {
            name: sc.name.clone(),
            topology,
            flows: Vec::new(),
            faults: Vec::new(),
            workloads: sc.workloads.clone(),
            incasts: sc.incasts.clone(),
            output: sc.output.clone(),
            sab: sc.sab.clone(),
            ..*sc
        }
    }

    fn intern(&mut self, name: &str) -> u32 {
        match self.names.iter().position(|n| n == name) {
            Some(i) => i as u32,
            None => {
                self.names.push(name.to_string());
                (self.names.len() - 1) as u32
            }
        }
    }

    /// Sum of a host's egress rates (its links', or its shapers' when lower).
    fn host_rate(&self, h: NodeId) -> u64 {
        self.fabric.net.node(h).ports.iter().map(|&p| self.fabric.egress_rate(p).bps()).sum()
    }

    /// Create a flow; it starts at `start` (now or later). `path`: the path indices it is pinned
    /// to (`[routing] paths = "flow"`), else drawn.
    #[allow(clippy::too_many_arguments)]
    fn add_flow(&mut self, src: NodeId, dst: NodeId, size: Option<u64>, start: Time, cfg: TransportConfig, profile: u32, label: u32, app: Option<u32>, path: Pins) -> FlowId {
        let id = FlowId::from_idx(self.flows.len());
        let h = mix64(self.seed ^ mix64(id.0 as u64 + 1));
        let ends = Endpoints { flow: id, src, dst, hash_fwd: h, hash_rev: mix64(h ^ 0x5bd1_e995) };
        let hops = self.fabric.net.next_hops(src, dst);
        let nic = hops[routing::pick(hops.len(), ends.hash_fwd, src)];
        if let Some(paths) = self.fabric.paths.as_deref_mut() {
            paths.add(&self.fabric.net, id, src, dst, ends.hash_fwd, ends.hash_rev);
        }
        if let Some(sp) = self.source_paths.as_deref_mut() {
            sp.add(&self.fabric.net, id, src, dst, path);
        }
        self.hosts.stacks.prepare(&cfg);
        let mut transport = cfg.build(ends, size, &mut self.tcp_configs);
        if cfg.seeds_rtt() {
            let control = cfg.framing().control as u64;
            let one_way = |fwd| -> Time { self.route(&ends, fwd).iter().fold(Time::ZERO, |t, &(r, d)| t + r.serialization(control) + d) };
            transport.seed_rtt(one_way(true) + one_way(false));
        }
        if cfg.wants_path() {
            let fr = cfg.framing();
            let (data, control) = ((fr.payload + fr.header) as u64, fr.control as u64);
            let fwd = self.route(&ends, true);
            let there = fwd.iter().fold(Time::ZERO, |t, &(r, d)| t + r.serialization(data) + d);
            let back = self.route(&ends, false).iter().fold(Time::ZERO, |t, &(r, d)| t + r.serialization(control) + d);
            let nic_rate = self.fabric.egress_rate(nic);
            transport.set_path(crate::transport::PathInfo { nic_rate, base_rtt: there + back, switches: fwd.len().saturating_sub(1) as u32, segment: data as u32 });
        }
        self.flows.push(Flow { transport, ends, size, start, profile, label, app, block: None, nic, waiting: false, done: false, deadline: None, pooled: false });
        if size.is_some() {
            self.unfinished += 1;
        } else {
            self.long_lived += 1;
        }
        self.events.schedule(start, Event::FlowStart { flow: id });
        id
    }

    /// Nothing left to do: every finite flow finished, no generator or application can add more,
    /// and no long-lived flow runs.
    pub fn all_done(&self) -> bool {
        self.unfinished == 0
            && self.gens.iter().all(|g| !g.active)
            && self.incasts.iter().all(|a| !a.active)
            && self.long_lived == 0
    }

    pub fn now(&self) -> Time {
        self.now
    }
    pub fn end(&self) -> Time {
        self.end
    }
    /// Events waiting in the queue.
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }
    pub fn events_processed(&self) -> u64 {
        self.events.processed()
    }
    pub fn packet_hops(&self) -> u64 {
        self.fabric.packet_hops
    }
    pub fn finished(&self) -> bool {
        self.now >= self.end
    }

    pub fn conservation(&self) -> Conservation {
        Conservation { created: self.created, delivered: self.delivered, dropped: self.fabric.dropped, in_flight: self.slab.live() as u64 }
    }

    /// Process every event up to and including `until` (capped at the end time).
    pub fn run_until(&mut self, until: Time) {
        let started = std::time::Instant::now();
        // `end` may move earlier during the loop (stop_when_done).
        while let Some((t, key, ev)) = self.events.pop_keyed_until(until.min(self.end)) {
            debug_assert!(t >= self.now, "time went backwards");
            // Start loading what upcoming packet events will touch while this one runs.
            self.prefetch_ahead();
            self.now = t;
            self.now_key = key;
            self.dispatch(ev);
        }
        self.now = self.now.max(until.min(self.end));
        self.wall += started.elapsed();
    }

    /// Run to the end.
    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    /// Always inlined into the loop (its one caller): a call per event with the event passed in
    /// memory cost about 35 instructions per packet-hop (callgrind, B4).
    #[inline(always)]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Arrive { port, pkt, at } => {
                let mut cx = ctx!(self);
                if let Some(p) = self.fabric.arrive(port, pkt, at, &mut cx) {
                    self.received(p);
                }
            }
            Event::TxDone { port } => {
                let mut cx = ctx!(self);
                self.fabric.tx_done(port, &mut cx);
                self.wake_if_room(port);
            }
            Event::FlowStart { flow } => {
                self.prepare_outbox(flow);
                self.flows[flow.idx()].transport.start(self.now, &mut self.hosts.stacks, &mut self.outbox);
                self.flush(flow);
            }
            Event::FlowStop { flow } => self.stop_flow(flow),
            Event::Timer { flow, timer } => {
                self.prepare_outbox(flow);
                self.flows[flow.idx()].transport.on_timer(self.now, timer, &mut self.hosts.stacks, &mut self.outbox);
                self.flush(flow);
            }
            Event::HostTimer { node, timer } => {
                // Host state sends through the host's (first) NIC.
                if let Some(&nic) = self.fabric.net.node(node).ports.first() {
                    self.prepare_outbox_at(nic);
                }
                self.hosts.stacks.on_timer(self.now, node, timer, &mut self.outbox);
                if self.outbox.blocked {
                    if let Some(w) = self.outbox.waiter {
                        self.wait_for_nic(w);
                    }
                }
                self.inject(None);
            }
            Event::HostRx { node, .. } => {
                // The host's oldest held packet: arrival order, whatever the tie order.
                let pkt = self.hosts.rx_jitter.as_deref_mut().expect("HostRx only with rx_jitter").take(node);
                self.deliver(pkt)
            }
            Event::Sample => self.sample(),
            Event::Arrival { gen } => self.arrival(gen as usize),
            Event::IncastRound { app } => self.incast_round(app as usize),
            Event::Circuit => {
                let mut cx = ctx!(self);
                self.fabric.reconfigure(&mut cx);
            }
            Event::Release { port } => {
                // The burst leaves the shaper; a sender blocked on this NIC may refill it before
                // the next burst forms (it forms from what waits at the end of the instant).
                let mut cx = ctx!(self);
                self.fabric.release(port, &mut cx);
                self.wake_if_room(port);
                let mut cx = ctx!(self);
                self.fabric.form_burst(port, &mut cx);
            }
            Event::Pfc { port, pause } => {
                let mut cx = ctx!(self);
                self.fabric.pfc_frame(port, pause, &mut cx);
                if pause && self.fabric.nic_queued(port) == crate::host::HELD {
                    self.tell_paused(port);
                }
                self.wake_if_room(port);
            }
            Event::Forward { node, pkt, at } => {
                let mut cx = ctx!(self);
                self.fabric.forward(node, pkt, at, &mut cx);
            }
        }
    }

    /// One open-loop arrival: a new flow now, and the next arrival.
    fn arrival(&mut self, gi: usize) {
        let w = &self.sc.workloads[self.gens[gi].spec];
        let g = &mut self.gens[gi];
        let f = g.arrivals.flow(w);
        let next = self.now + g.arrivals.gap();
        g.active = next < w.stop && w.max_flows.is_none_or(|m| g.arrivals.made < m);
        if g.active {
            self.events.schedule(next, Event::Arrival { gen: gi as u32 });
        }
        let (cfg, profile, label, now) = (w.cfg, g.profile, g.label, self.now);
        let deadline = w.deadline.map(|d| now + d.for_size(f.size));
        let (src, dst) = (NodeId::from_idx(f.src), NodeId::from_idx(f.dst));
        let pooled = w.persistent;
        let id = self.add_flow(src, dst, Some(f.size), now, cfg, profile, label, None, Pins::default());
        if pooled {
            // The pair's connection idle longest takes the flow (ns-2's Agent_Aggr_pair schedules
            // idle connections in the order they finished); none idle: a new one, fresh.
            let flow = &mut self.flows[id.idx()];
            flow.pooled = true;
            if let Some(c) = self.pools.get_mut(&(src, dst)).and_then(|q| q.pop_front()) {
                flow.transport.resume(c);
            }
        }
        if let Some(at) = deadline {
            self.set_deadline(id, at);
        }
    }

    /// Flow `id` should finish by `at` (absolute).
    fn set_deadline(&mut self, id: FlowId, at: Time) {
        let f = &mut self.flows[id.idx()];
        f.deadline = Some(at);
        f.transport.set_deadline(at);
    }

    /// The flow's application stops writing: what it has sent, plus one segment carrying FIN, is
    /// all the flow will carry; a long-lived flow becomes a finite one.
    fn stop_flow(&mut self, flow: FlowId) {
        if self.flows[flow.idx()].done {
            return;
        }
        self.prepare_outbox(flow);
        let now = self.now;
        let f = &mut self.flows[flow.idx()];
        let size = f.transport.stop(now, &mut self.hosts.stacks, &mut self.outbox);
        if f.size.is_none() {
            self.long_lived -= 1;
            self.unfinished += 1;
        }
        f.size = Some(size);
        self.flush(flow);
    }

    /// An incast request: every sender answers with one block.
    fn incast_round(&mut self, ai: usize) {
        let a = &self.sc.incasts[self.incasts[ai].spec];
        if a.rounds.is_some_and(|r| self.incasts[ai].rounds_done >= r) {
            self.incasts[ai].active = false;
            return;
        }
        let (senders, receiver, block, cfg, persistent) = (a.senders.clone(), a.receiver, a.block, a.cfg, a.persistent);
        let last = a.rounds.is_some_and(|r| self.incasts[ai].rounds_done + 1 >= r);
        let (label, profile) = (self.incasts[ai].label, self.incasts[ai].profile);
        self.incasts[ai].outstanding = senders.len();
        let now = self.now;
        if !persistent {
            for s in senders {
                self.add_flow(NodeId::from_idx(s), NodeId::from_idx(receiver), Some(block), now, cfg, profile, label, Some(ai as u32), Pins::default());
            }
            return;
        }
        if self.incasts[ai].conns.is_empty() {
            // The first request opens the connections; later ones reuse them.
            for s in senders {
                let id = self.add_flow(NodeId::from_idx(s), NodeId::from_idx(receiver), Some(block), now, cfg, profile, label, None, Pins::default());
                let f = &mut self.flows[id.idx()];
                f.transport.keep_open(last);
                f.block = Some((ai as u32, block));
                self.incasts[ai].conns.push(id);
            }
            return;
        }
        for k in 0..self.incasts[ai].conns.len() {
            let id = self.incasts[ai].conns[k];
            let f = &mut self.flows[id.idx()];
            let total = f.size.unwrap_or(0) + block;
            f.size = Some(total);
            f.block = Some((ai as u32, total));
            self.prepare_outbox(id);
            self.flows[id.idx()].transport.write(now, block, last, &mut self.hosts.stacks, &mut self.outbox);
            self.flush(id);
        }
    }

    /// Every sender's answer to the current request has been acknowledged: the next request
    /// goes out after `gap`, unless that was the last round.
    fn round_answered(&mut self, ai: usize) {
        self.incasts[ai].outstanding -= 1;
        if self.incasts[ai].outstanding == 0 {
            self.incasts[ai].rounds_done += 1;
            let a = &self.sc.incasts[self.incasts[ai].spec];
            if a.rounds.is_some_and(|r| self.incasts[ai].rounds_done >= r) {
                self.incasts[ai].active = false;
            } else {
                let at = self.now + a.gap;
                self.events.schedule(at, Event::IncastRound { app: ai as u32 });
            }
        }
    }

    /// A flow just finished: account for it, advance its application, maybe end the run.
    fn flow_done(&mut self, flow: FlowId) {
        let f = &mut self.flows[flow.idx()];
        f.done = true;
        self.unfinished -= 1;
        if f.pooled {
            if let Some(c) = f.transport.carry() {
                self.pools.entry((f.ends.src, f.ends.dst)).or_default().push_back(c);
            }
        }
        let f = &self.flows[flow.idx()];
        if let Some(ai) = f.app {
            self.round_answered(ai as usize);
        }
        if self.sc.stop_when_done && self.all_done() {
            self.end = self.now;
        }
    }

    /// Ready the reusable outbox (empty) for a call into `flow`'s transport: its NIC budget.
    #[inline]
    fn prepare_outbox(&mut self, flow: FlowId) {
        self.prepare_outbox_at(self.flows[flow.idx()].nic);
    }

    /// Ready the outbox for a call that sends through NIC `nic` (a flow's, or a host's own state).
    #[inline]
    fn prepare_outbox_at(&mut self, nic: PortId) {
        let queued = self.fabric.nic_queued(nic);
        self.outbox.budget = self.hosts.budget(nic, queued);
        self.outbox.nic_queued = queued;
    }

    /// A PAUSE stopped host NIC `port`, which holds its senders (`[pfc] stop_senders`): every
    /// unfinished flow sending from it hears of it now (`Transport::on_nic_paused`), as htsim
    /// pauses every source of a paused NIC, whether or not an ACK or timer reaches it in the pause.
    /// A scan of the flow table, only under `stop_senders` and only at a host's PAUSE.
    #[inline(never)]
    fn tell_paused(&mut self, port: PortId) {
        let node = self.fabric.net.ports[port.idx()].node;
        if self.fabric.net.node(node).kind != crate::network::NodeKind::Host {
            return;
        }
        for i in 0..self.flows.len() {
            if self.flows[i].nic == port && !self.flows[i].done {
                let flow = FlowId::from_idx(i);
                self.prepare_outbox(flow);
                self.flows[i].transport.on_nic_paused(self.now, &mut self.outbox);
                self.flush(flow);
            }
        }
    }

    /// Register `flow` to be woken when its NIC has room (once).
    fn wait_for_nic(&mut self, flow: FlowId) {
        let f = &mut self.flows[flow.idx()];
        if !f.waiting {
            f.waiting = true;
            let nic = f.nic;
            self.hosts.nic_mut(nic).waiters.push(flow);
            let mut cx = ctx!(self);
            self.fabric.watch(nic, &mut cx);
        }
    }

    /// Wake the senders waiting for NIC `port` if it has room now. `watched` (in the port just
    /// handled) is set exactly while the NIC has waiters, so the host table is read only for
    /// ports with senders waiting.
    /// Always inlined: after every transmit-done, one test of a flag in the port line just
    /// handled instead of a call (about 10 instructions per packet-hop, callgrind k = 8).
    #[inline(always)]
    fn wake_if_room(&mut self, port: PortId) {
        if self.fabric.net.ports[port.idx()].watched {
            self.wake_watched(port);
        }
    }

    /// `wake_if_room` for a port whose host has senders waiting (not inlined: rare per packet).
    #[inline(never)]
    fn wake_watched(&mut self, port: PortId) {
        if self.hosts.has_waiters(port) && self.nic_budget(port) > 0 {
            self.wake_senders(port);
        }
    }

    /// Data packets a sender may still hand to NIC `port`.
    #[inline]
    fn nic_budget(&self, port: PortId) -> u64 {
        self.hosts.budget(port, self.fabric.nic_queued(port))
    }

    /// Inject what a transport produced, and set its timers.
    fn flush(&mut self, flow: FlowId) {
        if let Some(b) = self.outbox.int_in.take() {
            self.int_spare = Some(b);
        }
        let f = &self.flows[flow.idx()];
        if let Some((ai, end)) = f.block {
            if f.transport.stats().bytes_acked >= end {
                self.flows[flow.idx()].block = None;
                self.round_answered(ai as usize);
            }
        }
        let f = &self.flows[flow.idx()];
        let done_now = !f.done && f.size.is_some() && f.transport.completed_at().is_some();
        if done_now {
            self.flow_done(flow);
        }
        if self.outbox.blocked {
            self.wait_for_nic(self.outbox.waiter.unwrap_or(flow));
        }
        self.inject(Some(flow));
        if done_now && !self.keep_finished && !self.sampled(flow) {
            // The results row stays; the connection state goes (memory O(active flows)).
            self.flows[flow.idx()].transport.finish();
        }
    }

    /// Is `flow` in a time series (its state is read after it completes)?
    fn sampled(&self, flow: FlowId) -> bool {
        self.sc.output.flows.contains(&flow.idx()) || self.sample_flows.contains(&flow)
    }

    /// Inject the packets in the outbox, set its timers (`flow`'s and the hosts'), and empty it.
    fn inject(&mut self, flow: Option<FlowId>) {
        // The packets leave the outbox (a cheap Vec swap) while they enter the network.
        let mut packets = std::mem::take(&mut self.outbox.packets);
        for idx in 0..packets.len() {
            let id = self.slab.alloc(packets[idx]);
            let p = self.slab.get_mut(id);
            p.stamp = self.now;
            let (from, int) = (p.src, p.int);
            if let Some(sp) = self.source_paths.as_deref_mut() {
                // The sending endpoint picks the packet's path (`network/source_paths.rs`).
                p.path_hash = sp.next(p.flow, from == self.flows[p.flow.idx()].ends.src);
            }
            self.created += 1;
            if int != crate::packet::Int::Off {
                let rec = self.outbox.int_out.iter().find(|(i, _)| *i as usize == idx).map_or_else(Default::default, |&(_, r)| r);
                self.fabric.telemetry.set(id, rec);
            }
            let mut cx = ctx!(self);
            if let Some(p) = self.fabric.at_node(from, id, &mut cx) {
                self.received(p);
            }
        }
        packets.clear();
        debug_assert!(self.outbox.packets.is_empty(), "a transport wrote into the outbox during a flush");
        self.outbox.packets = packets;
        if let Some(flow) = flow {
            for &(at, timer) in &self.outbox.timers {
                self.events.schedule(at, Event::Timer { flow, timer });
            }
        }
        for &(at, node, timer) in &self.outbox.host_timers {
            self.events.schedule(at, Event::HostTimer { node, timer });
        }
        self.outbox.clear();
    }

    /// A packet reached its destination host: handled now, or after the host's receive
    /// processing delay (`host::RxJitter`).
    #[inline]
    fn received(&mut self, id: PacketId) {
        match self.hosts.rx_jitter.as_deref_mut() {
            None => self.deliver(id),
            Some(j) => {
                let node = self.slab.get(id).dst;
                let at = j.due(node, self.now);
                j.hold(node, id);
                self.events.schedule(at, Event::HostRx { node, pkt: id });
            }
        }
    }

    /// A packet is handed to its host's transport: its flow's transport handles it (with the
    /// telemetry it collected, if it asked for any).
    #[inline]
    fn deliver(&mut self, id: PacketId) {
        self.delivered += 1;
        let (flow, int) = {
            let p = self.slab.get(id);
            (p.flow, p.int)
        };
        self.prepare_outbox(flow);
        if int != crate::packet::Int::Off {
            // The record travels in a box kept for reuse: the outbox stays small to move.
            let mut b = self.int_spare.take().unwrap_or_default();
            *b = self.fabric.telemetry.get(id);
            self.outbox.int_in = Some(b);
        }
        self.flows[flow.idx()].transport.on_packet(self.now, self.slab.get(id), &mut self.hosts.stacks, &mut self.outbox);
        self.slab.free(id);
        self.flush(flow);
    }

    /// Give blocked senders on `port` their turn, in the order they blocked, while the NIC has
    /// room. Those not served keep their place ahead of any that block again (round robin), so a
    /// bulk sender cannot starve a short flow on the same host.
    fn wake_senders(&mut self, port: PortId) {
        let mut wake = std::mem::take(&mut self.wake);
        std::mem::swap(&mut wake, &mut self.hosts.nic_mut(port).waiters);
        let mut served = 0;
        while served < wake.len() && self.nic_budget(port) > 0 {
            let flow = wake[served];
            served += 1;
            self.flows[flow.idx()].waiting = false;
            self.prepare_outbox(flow);
            self.flows[flow.idx()].transport.on_send_ready(self.now, &mut self.hosts.stacks, &mut self.outbox);
            self.flush(flow);
        }
        let p = self.hosts.nic_mut(port);
        wake.drain(..served);
        wake.append(&mut p.waiters);
        std::mem::swap(&mut wake, &mut p.waiters);
        self.fabric.net.ports[port.idx()].watched = !p.waiters.is_empty();
        self.wake = wake;
    }

    fn sample(&mut self) {
        let now = self.now;
        for &port in &self.sample_ports {
            let p = &self.fabric.net.ports[port.idx()];
            self.series.push(now, Metric::QueuePackets, port.0, p.queue.len_packets() as f64);
            self.series.push(now, Metric::QueueBytes, port.0, p.queue.len_bytes() as f64);
            self.series.push(now, Metric::TxBytes, port.0, p.stats.tx_bytes as f64);
            if p.queue.queues().len() > 1 {
                for (qi, q) in p.queue.queues().iter().enumerate() {
                    let target = port.0 * crate::queue::MAX_QUEUES as u32 + qi as u32;
                    self.series.push(now, Metric::ClassQueuePackets, target, q.len_packets() as f64);
                    self.series.push(now, Metric::ClassQueueBytes, target, q.len_bytes() as f64);
                }
            }
        }
        if let Some(r) = self.fabric.rdcn.as_deref() {
            for (pi, v) in r.voqs.iter().enumerate().filter(|(_, v)| v.used) {
                self.series.push(now, Metric::VoqPackets, pi as u32, v.len_packets() as f64);
            }
        }
        for &i in &self.sc.output.flows {
            let t = &self.flows[i].transport;
            let f = i as u32;
            self.series.push(now, Metric::DeliveredBytes, f, t.stats().bytes_acked as f64);
            if let Some(r) = t.rtt() {
                self.series.push(now, Metric::Srtt, f, r.secs_f64());
            }
            if let Some(r) = t.rate_bps() {
                self.series.push(now, Metric::SendRate, f, r);
            }
        }
        for &f in &self.sample_flows {
            let t = &self.flows[f.idx()].transport;
            if let Some(w) = t.window() {
                self.series.push(now, Metric::Cwnd, f.0, w);
            }
            if let Some(a) = t.congestion() {
                self.series.push(now, Metric::DctcpAlpha, f.0, a);
            }
        }
        if let Some(iv) = self.sample_interval {
            if now + iv <= self.end {
                self.events.schedule(now + iv, Event::Sample);
            }
        }
    }

    /// Hop list (rate, delay; a shaped host port counts at its egress rate) of a flow's path in
    /// the data direction (`fwd`) or back: the one it is pinned to under `[routing] paths =
    /// "flow"`, else its per-flow hash's (with per-packet choices, one of its equal-cost paths).
    fn route(&self, ends: &Endpoints, fwd: bool) -> Vec<(crate::time::Rate, Time)> {
        let (from, to, hash) = if fwd { (ends.src, ends.dst, ends.hash_fwd) } else { (ends.dst, ends.src, ends.hash_rev) };
        match self.source_paths.as_deref().and_then(|sp| sp.pinned(ends.flow, fwd)) {
            Some(index) => self.rates_of(self.fabric.net.path_by_index(from, to, index)),
            None => self.rates_of(self.fabric.net.path(from, to, hash)),
        }
    }

    fn rates_of(&self, path: Option<Vec<PortId>>) -> Vec<(crate::time::Rate, Time)> {
        path.unwrap_or_default()
            .iter()
            .map(|&p| (self.fabric.egress_rate(p), self.fabric.net.ports[p.idx()].delay))
            .collect()
    }

    /// The per-flow table as of now.
    pub fn flow_table(&self) -> FlowTable {
        let mut t = FlowTable::default();
        for (i, f) in self.flows.iter().enumerate() {
            let s = f.transport.stats();
            let fr = f.transport.framing();
            t.id.push(i as u32);
            t.src.push(self.fabric.net.node(f.ends.src).name.clone());
            t.dst.push(self.fabric.net.node(f.ends.dst).name.clone());
            t.transport.push(self.names[f.profile as usize].clone());
            t.workload.push(self.names[f.label as usize].clone());
            let o = &self.sc.output;
            t.measured.push(f.start >= o.warmup && f.start + o.cooldown < self.sc.end);
            t.cc.push(f.transport.name().to_string());
            t.size.push(f.size);
            t.start_ps.push(f.start.0);
            let end = f.transport.completed_at();
            t.end_ps.push(end.map(|e| e.0));
            let fct = end.map(|e| e - f.start);
            t.fct_ps.push(fct.map(|x| x.0));
            let ideal = f.size.map(|size| {
                let fwd = self.route(&f.ends, true);
                let rev = self.route(&f.ends, false);
                let a = fr.control as u64;
                // With a handshake the flow first waits one SYN / SYN-ACK round trip.
                let setup = if fr.handshake { fwd.iter().chain(&rev).fold(Time::ZERO, |t, &(r, d)| t + r.serialization(a) + d) } else { Time::ZERO };
                // Sprayed packets may overtake each other: the bound over paths (output.rs).
                let bound = if self.sc.ecmp == Ecmp::PacketSpray || self.sc.paths.per_packet() || fr.sprays { ideal_fct_sprayed } else { ideal_fct };
                setup + bound(&fwd, &rev, size, fr.payload as u64, fr.header as u64, a)
            });
            t.ideal_fct_ps.push(ideal.map(|x| x.0));
            t.slowdown.push(match (fct, ideal) {
                (Some(a), Some(b)) if b.0 > 0 => Some(a.0 as f64 / b.0 as f64),
                _ => None,
            });
            t.bytes_acked.push(s.bytes_acked);
            t.setup_ps.push(s.established_at.map(|e| (e - f.start).0));
            t.segments_sent.push(s.packets_sent);
            t.retransmits.push(s.retransmits);
            t.timeouts.push(s.timeouts);
            t.fast_recoveries.push(s.fast_recoveries);
            t.ecn_reductions.push(s.ecn_reductions);
            t.trimmed.push(s.trimmed);
            t.credits.push(s.credits);
            t.deadline_ps.push(f.deadline.map(|d| (d - f.start).0));
            // Met: finished by the deadline. Missed: finished late, or unfinished past it.
            t.deadline_met.push(f.deadline.and_then(|d| match end {
                Some(e) => Some(e <= d),
                None if self.now > d => Some(false),
                None => None,
            }));
        }
        t
    }

    pub fn port_table(&mut self) -> PortTable {
        let now = self.now;
        for p in &mut self.fabric.net.ports {
            p.note_queue(now);
        }
        let mut t = PortTable::from_network(&self.fabric.net, now);
        if let Some(pfc) = self.fabric.pfc.as_deref() {
            t.pfc = Some(crate::output::PfcColumns::from_stats(&pfc.stats, now));
        }
        t
    }

    /// The per-queue table as of now.
    pub fn queue_table(&mut self) -> crate::output::QueueTable {
        let now = self.now;
        for p in &mut self.fabric.net.ports {
            p.queue.note_all(now);
        }
        crate::output::QueueTable::from_network(&self.fabric.net, now)
    }

    pub fn summary(&self) -> Summary {
        let c = self.conservation();
        Summary {
            scenario: self.name.clone(),
            seed: self.seed,
            sim_time_ps: self.now.0,
            end_ps: self.end.0,
            wall_seconds: self.wall.as_secs_f64(),
            events: self.events.processed(),
            packet_hops: self.fabric.packet_hops,
            packets_created: c.created,
            packets_delivered: c.delivered,
            packets_dropped: c.dropped,
            packets_in_flight: c.in_flight,
            peak_packets_in_flight: self.slab.peak_live() as u64,
            peak_rss_bytes: peak_rss_bytes(),
            flows: self.flows.len() as u64,
            flows_completed: self.flows.iter().filter(|f| f.transport.completed_at().is_some()).count() as u64,
        }
    }

    /// Name of series entry `i`'s target.
    pub fn series_target(&self, i: usize) -> String {
        self.series.target_name(i, &self.fabric.net, self.fabric.rdcn.as_deref().map_or(1, |r| r.racks))
    }

    /// Bytes delivered in order to receivers, summed over flows.
    pub fn goodput_bytes(&self) -> u64 {
        self.flows.iter().map(|f| f.transport.stats().bytes_delivered).sum()
    }

}

#[cfg(test)]
mod tests;

/// Helpers for scenario-level tests across the crate.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// Load a TOML scenario (panicking with the problems if invalid), run it to the end and check
    /// packet conservation. Completed flows keep their state, so tests can inspect their
    /// connections (`tcp`); releasing it changes no result (tested).
    pub fn run(doc: &str) -> Simulator {
        let sc = Scenario::from_toml(doc).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = Simulator::new(&sc, None);
        sim.keep_finished = true;
        sim.run();
        let c = sim.conservation();
        assert!(c.holds(), "packet conservation violated: {c:?}");
        sim
    }

    /// Jain's fairness index of `x`.
    pub fn jain(x: &[f64]) -> f64 {
        let s: f64 = x.iter().sum();
        let s2: f64 = x.iter().map(|v| v * v).sum();
        s * s / (x.len() as f64 * s2)
    }

    /// A synchronized-block incast on a 1 Gb/s star (5 µs wires, 512 KB port buffers, 256 KB
    /// blocks): `n` senders answer h0's `rounds` requests; DCTCP marks at `ecn_k`; `transport`
    /// and `incast` are further lines for those tables. Ends when everything is answered.
    pub fn incast_scenario(cc: &str, n: usize, rounds: u64, ecn_k: &str, transport: &str, incast: &str) -> String {
        let ecn = if cc == "dctcp" { format!("discipline = \"ecn\"\necn_threshold = \"{ecn_k}\"") } else { String::new() };
        format!(
            "[simulation]\nend = \"20s\"\nstop_when_done = true\n[topology]\nkind = \"star\"\nhosts = {hosts}\n\
             link = {{ rate = \"1Gbps\", delay = \"5us\" }}\n[queue]\nbuffer = \"512KB\"\n{ecn}\n[transport]\ncc = \"{cc}\"\n{transport}\n\
             [[incast]]\nreceiver = \"h0\"\nsenders = {n}\nblock = \"256KB\"\nrounds = {rounds}\n{incast}\n",
            hosts = n + 1
        )
    }

    /// Goodput in Gb/s of finished flows: their bytes over the time from the first start to the
    /// last end.
    pub fn goodput_gbps(t: &FlowTable) -> f64 {
        let bytes: u64 = t.size.iter().map(|s| s.unwrap()).sum();
        let first = *t.start_ps.iter().min().unwrap();
        let last = t.end_ps.iter().map(|e| e.unwrap()).max().unwrap();
        bytes as f64 * 8.0 / ((last - first) as f64 / 1e12) / 1e9
    }

    pub fn tcp(sim: &Simulator, flow: usize) -> &crate::transport::tcp::TcpConnection {
        match &sim.flows[flow].transport {
            FlowTransport::Tcp(c) => c,
            _ => panic!("flow {flow} is not TCP"),
        }
    }
}
