//! From a document tree to a validated [`Scenario`], collecting every problem.

use super::reader::*;
use super::*;
use crate::network::source_paths::PathChoice;
use crate::event::TieOrder;
use crate::time::Resolution;
use crate::network::Ecmp;
use super::port_profiles::{self, Written};
use super::queues::queue_table;
use crate::topology;
use crate::transport::tcp::{CcKind, EcnMode, LimitedTransmit, PrrBound, TcpConfig};
use crate::transport::TransportConfig;
use serde_json::Value;
use std::collections::BTreeMap;

/// Switch ports hold 100 packets unless told otherwise (ns-3's default queue size).
pub const DEFAULT_SWITCH_BUFFER: Amount = Amount::Packets(100);
/// Hosts a generated topology may have.
pub const MAX_HOSTS: u64 = 1_000_000;

fn as_count(v: &Value) -> Result<u64, String> {
    match as_positive(v)? {
        n if n > MAX_HOSTS => Err(format!("{n} is more than the {MAX_HOSTS} hosts a topology may have")),
        n => Ok(n),
    }
}

/// Why a generated topology with these products of its counts cannot be built (`limits`).
fn generated_refusal(hosts: u128, links: u128) -> Option<String> {
    super::limits::generated_refusal(hosts, links, MAX_HOSTS, super::limits::machine_memory())
}

/// The longest time results can hold: signed 64-bit picoseconds.
pub const MAX_RESULT_PS: u64 = i64::MAX as u64;

/// Host NICs push back on their transports at 100 queued packets (ns-3's device queue).
pub const DEFAULT_SEND_LIMIT: u64 = 100;

use crate::transport::tcp::cc::CC_NAMES;
use crate::transport::tcp::priority::{self, Priority, MAX_THRESHOLDS};
use crate::transport::tcp::scheme::{self, CC_AND_SCHEME_NAMES};
use crate::transport::tcp::FixedRto;

/// `[switch]`: the switches' shared packet memory (dynamic thresholds, `alpha` in a queue table).
fn switch_section(t: &Table, max_packet: u64, iss: &mut Issues) -> Option<Amount> {
    let s = t.table("switch", iss)?;
    let b = s.get("shared_buffer", iss, as_amount);
    if let Some(Amount::Bytes(x)) = b {
        if x < max_packet {
            iss.push(s.key_path("shared_buffer"), format!("{x} B is smaller than one packet ({max_packet} B)"));
        }
    }
    if b == Some(Amount::Packets(0)) {
        iss.push(s.key_path("shared_buffer"), "'0pkt' cannot hold a single packet");
    }
    s.finish(iss);
    b
}

pub(super) fn scenario(v: &Value) -> Result<Scenario, Issues> {
    let mut iss = Issues::default();
    let Value::Object(root) = v else {
        iss.push("", "the scenario must be a table of sections ([simulation], [topology], ...)");
        return Err(iss);
    };
    let t = Table::new("", root);
    let name = t.get("name", &mut iss, as_str).unwrap_or_else(|| "scenario".into());
    t.get("description", &mut iss, as_str);

    let (mut end, mut seed, mut stop_when_done, mut tie_order) = (None, 1, false, TieOrder::Event);
    let mut clock = Resolution::Picosecond;
    match t.table("simulation", &mut iss) {
        Some(s) => {
            end = s.need("end", &mut iss, "a duration such as '1s'", as_time);
            if end == Some(Time::ZERO) {
                iss.push("simulation.end", "'0' is not a positive duration; the simulation must run for some time");
                end = None;
            }
            seed = s.get("seed", &mut iss, as_u64).unwrap_or(1);
            stop_when_done = s.get("stop_when_done", &mut iss, as_bool).unwrap_or(false);
            if let Some(o) = s.get("tie_order", &mut iss, as_choice(&TieOrder::NAMES)) {
                tie_order = TieOrder::from_name(&o).expect("a listed name");
            }
            if let Some(r) = s.get("time_resolution", &mut iss, as_choice(&Resolution::NAMES)) {
                clock = Resolution::from_name(&r).expect("a listed name");
            }
            s.finish(&mut iss);
        }
        None => iss.push("simulation", "missing; add [simulation] with end = \"1s\""),
    }

    // The hosts' stack first: it sets the defaults of every TCP profile.
    let host = host_section(&t, &mut iss);
    let tcp_base = host.stack.map_or_else(TcpConfig::default, |k| k.tcp_defaults(TcpConfig::default()));
    // Transports next: the largest packet decides whether a buffer can hold one packet.
    let (mut profiles, written_ports) = transports(&t, tcp_base, &mut iss);
    if host.time_dilation > 1 {
        dilate(&mut profiles, host.time_dilation, &mut iss);
    }
    let max_packet = profiles.values().map(|p| p.framing()).map(|f| (f.payload + f.header) as u64).max().unwrap_or(1500);

    let shared_buffer = switch_section(&t, max_packet, &mut iss);
    let shared = shared_buffer.is_some();
    let switch_q = queue(&t, "queue", Some(DEFAULT_SWITCH_BUFFER), None, max_packet, shared, &mut iss);
    let host_q = match t.raw("host_queue") {
        // ns-2's duplex-link gives a host the switches' queue type and no backpressure (the
        // HKUST PIAS/TCN scripts attach hosts with `$switchAlg`): drops and marks as a port's.
        Some(Value::String(s)) if s == "switch" => QueueSpec { send_limit: None, ..switch_q },
        Some(Value::String(s)) => {
            iss.push("host_queue", format!("'{s}' is not \"switch\" (the [queue] settings, no backpressure) or a [host_queue] table"));
            QueueSpec { send_limit: Some(DEFAULT_SEND_LIMIT), ..QueueSpec::fifo(None) }
        }
        _ => queue(&t, "host_queue", None, Some(DEFAULT_SEND_LIMIT), max_packet, shared, &mut iss),
    };

    let own_ports = port_profiles::read(&written_ports, switch_q, host_q, max_packet, shared, &mut iss);

    let mut layout = None;
    let (nodes, mut topo) = match t.table("topology", &mut iss) {
        Some(tt) => topology_spec(&tt, switch_q, host_q, max_packet, shared, &mut layout, &mut iss),
        None => {
            iss.push("topology", "missing; add [topology] with kind = \"star\", \"dumbbell\" or \"explicit\"");
            (vec![], None)
        }
    };
    // The clock's resolution applies to every link as it was written (ns-3's channel delays are
    // whole nanoseconds; each serialization is rounded as the packet starts).
    if let Some(topo) = topo.as_mut() {
        topo.clock = clock;
        for l in topo.links.iter_mut() {
            if l.delay > Time::ZERO && clock.delay(l.delay) == Time::ZERO {
                // Said here, or a model that needs a delay would blame the link for having none.
                iss.push("simulation.time_resolution", format!("\"1ns\" rounds a link delay of {} ps to 0 ns; give delays of at least 500 ps, or keep \"1ps\"", l.delay.0));
            }
            l.delay = clock.delay(l.delay);
            if let Some((_, d)) = l.reverse.as_mut() {
                *d = clock.delay(*d);
            }
        }
    }

    let mut ecmp = Ecmp::FlowHash;
    let mut paths = PathChoice::Switches;
    if let Some(r) = t.table("routing", &mut iss) {
        if let Some(e) = r.get("ecmp", &mut iss, as_choice(&["flow_hash", "packet_spray"])) {
            ecmp = if e == "flow_hash" { Ecmp::FlowHash } else { Ecmp::PacketSpray };
        }
        if let Some(c) = r.get("paths", &mut iss, as_choice(&PathChoice::NAMES)) {
            paths = PathChoice::from_name(&c).expect("a listed name");
            if paths != PathChoice::Switches && ecmp == Ecmp::PacketSpray {
                iss.push(r.key_path("paths"), format!("'{c}' has the sources choose the paths, so the switches' ecmp = \"packet_spray\" would never apply; drop one of the two"));
            }
        }
        r.finish(&mut iss);
    }

    let is_rdcn = t.table("topology", &mut Issues::default()).and_then(|tt| tt.raw("kind")).and_then(|k| k.as_str()) == Some("rdcn");
    if is_rdcn && tie_order != TieOrder::Event {
        // A hybrid's pulls at its circuit boundaries are written for the kind order (event.rs).
        let name = TieOrder::NAMES[tie_order as usize];
        iss.push("simulation.tie_order", format!("'{name}' is not supported with kind = \"rdcn\" (hybrid networks run their ties in the event order); remove it"));
    }
    if is_rdcn && clock != Resolution::Picosecond {
        // Circuit days admit a packet by its serialization at the lane's exact rate.
        iss.push("simulation.time_resolution", format!("'{}' is not supported with kind = \"rdcn\" (hybrid networks keep picoseconds); remove it", Resolution::NAMES[clock as usize]));
    }
    let rdcn = super::rdcn::sections(&t, is_rdcn, layout, &mut profiles, &mut iss);
    if let (Some(topo), Some(r)) = (topo.as_mut(), rdcn) {
        topo.rdcn = Some(r);
    }
    if let (Some(topo), TieOrder::Event) = (topo.as_ref(), tie_order) {
        // A packet on a wire without delay arrives in the picosecond its service ends, and the
        // event order runs arrivals first: its mark at the end would come after it was delivered.
        let marks_at_end = |q: &crate::queue::QueueSpec| matches!(q.marking, crate::queue::Marking::Threshold { at: crate::queue::MarkAt::End, .. });
        let mut ports = topo.links.iter().filter(|l| l.delay == Time::ZERO).flat_map(|l| [(l.a, l.b, &l.queue_ab), (l.b, l.a, &l.queue_ba)]);
        if let Some((a, b, _)) = ports.find(|(_, _, q)| marks_at_end(q)) {
            let name = |i: usize| topo.nodes[i].name.as_str();
            iss.push("queue.mark_at", format!("\"end\" on port {}->{}, whose link has no delay: under tie_order = \"event\" its packets arrive before their service ends; give the link a delay or set tie_order = \"scheduled\"", name(a), name(b)));
        }
    }
    if let Some(topo) = topo.as_mut() {
        topo.shared_buffer = shared_buffer;
        // With bursts the host ports keep their links' rate: the shapers do the limiting.
        if let (Some(r), None) = (host.egress_rate, host.egress_burst) {
            limit_host_egress(topo, r);
        }
    }
    // Validation needs names and reachability, not the forwarding tables (the simulator builds
    // those): on a large fabric they are most of the set-up's time and memory.
    let net = topo.as_ref().map(topology::build_unrouted);
    let reach = topo.as_ref().map(topology::Reach::new);
    // Flows are checked against the node names even when the links had problems.
    let traffic = t.has("workload") || t.has("incast");
    if let (Some(net), true) = (net.as_ref(), paths != PathChoice::Switches) {
        source_paths_fit(net, is_rdcn, paths, &mut iss);
    }
    let mut flows = flows(&t, &nodes, reach.as_ref(), &profiles, end, traffic, paths, &mut iss);
    let mut workloads = workloads(&t, &nodes, &profiles, end, &mut iss);
    let mut incasts = incasts(&t, &nodes, &profiles, end, &mut iss);
    if let Some(reach) = reach.as_ref() {
        generated_pairs_reach(&workloads, &incasts, reach, &nodes, &mut iss);
    }
    if let Some(topo) = topo.as_mut() {
        let used: Vec<&str> = flows.iter().map(|f| f.transport.as_str()).chain(workloads.iter().map(|w| w.transport.as_str())).chain(incasts.iter().map(|i| i.transport.as_str())).collect();
        port_profiles::apply(&own_ports, &used, topo, &mut iss);
    }
    if topo.as_ref().and_then(|t| t.rdcn.as_ref()).is_some_and(|r| r.lp_left().is_some()) {
        rank_for_lp_left(&mut flows, &mut workloads, &mut incasts, &mut iss);
    }
    let voqs = topo.as_ref().and_then(|t| t.rdcn.as_ref()).map_or(0, |r| (r.racks * r.racks.saturating_sub(1)) as u64);
    let output = output(&t, net.as_ref(), flows.len(), end, voqs, &mut iss);
    let faults = faults(&t, net.as_ref(), &mut iss);
    let is_sab = |c: &TransportConfig| c.tcp().is_some_and(|t| t.cc == CcKind::Sab);
    let uses_sab = profiles.values().any(is_sab) || flows.iter().map(|f| &f.cfg).chain(workloads.iter().map(|w| &w.cfg)).chain(incasts.iter().map(|a| &a.cfg)).any(is_sab);
    let sab = sab_section(&t, uses_sab, switch_q.limit.is_some(), &mut iss);
    let mut ndp = flows.iter().map(|f| (&f.transport, &f.cfg)).chain(workloads.iter().map(|w| (&w.transport, &w.cfg))).chain(incasts.iter().map(|a| (&a.transport, &a.cfg)));
    let ndp = ndp.find_map(|(name, c)| matches!(c, TransportConfig::Ndp(_)).then_some(name.as_str()));
    let pfc = pfc_section(&t, topo.as_ref(), ndp, &mut iss);
    t.finish(&mut iss);
    if let (Some(e), true) = (end, iss.is_empty()) {
        if e.0 > MAX_RESULT_PS {
            iss.push("simulation.end", format!("'{e}' is beyond the {MAX_RESULT_PS} ps (about 106 days) that results hold as signed 64-bit times"));
        }
    }
    if let (Some(net), true) = (net.as_ref(), iss.is_empty()) {
        // Flow tables hold times as signed 64-bit picoseconds: a size whose ideal FCT could
        // pass that would make a run that cannot report its own results.
        let slowest = net.ports.iter().map(|p| p.rate.0).min().unwrap_or(1).max(1);
        let sizes = flows.iter().enumerate().filter_map(|(i, f)| f.size.map(|b| (format!("flows[{i}].size"), b)));
        let blocks = incasts.iter().enumerate().map(|(i, a)| (format!("incast[{i}].block"), a.block));
        for (path, b) in sizes.chain(blocks) {
            if (b as u128) * 8 * Time::S as u128 / slowest as u128 > (MAX_RESULT_PS / 2) as u128 {
                iss.push(path, format!("{b} B would take longer than {} ps (about 53 days) at the slowest link ({} bps); results hold times up to 2^63 ps", MAX_RESULT_PS / 2, slowest));
            }
        }
    }

    if !iss.is_empty() {
        return Err(iss);
    }
    Ok(Scenario { name, end: end.unwrap(), seed, topology: topo.unwrap(), ecmp, paths, flows, output, faults, workloads, incasts, stop_when_done, tie_order, sab, host, pfc })
}

/// `[tor.acceltor] lp_left` reads the bytes left in a packet's flow from its rank: every TCP
/// sender must write it (a scheme's configuration, e.g. PIAS, turns ranks off, so this runs on the
/// resolved flows, not the profiles), and other transports carry none: refused.
fn rank_for_lp_left(flows: &mut [FlowSpec], workloads: &mut [WorkloadSpec], incasts: &mut [IncastSpec], iss: &mut Issues) {
    let cfgs = flows.iter_mut().map(|f| (&f.transport, &mut f.cfg)).chain(workloads.iter_mut().map(|w| (&w.transport, &mut w.cfg))).chain(incasts.iter_mut().map(|a| (&a.transport, &mut a.cfg)));
    for (name, cfg) in cfgs {
        match cfg {
            TransportConfig::Tcp(c) => c.rank_remaining = true,
            _ => {
                iss.push("tor.acceltor.lp_left", format!("needs TCP senders, which write the bytes left into their packets; '{name}' is not TCP"));
                return;
            }
        }
    }
}

/// `[routing] paths` other than the switches' needs a packet-switched fabric (a hybrid network's
/// ToRs queue by rack pair, not by path) and hosts with one link each (a host's NIC is its flow's,
/// chosen once, so a path index could not pick among a host's links).
fn source_paths_fit(net: &crate::network::Network, is_rdcn: bool, paths: PathChoice, iss: &mut Issues) {
    let name = paths.name();
    if is_rdcn {
        iss.push("routing.paths", format!("'{name}' needs a packet-switched fabric; a hybrid (rdcn) network's ToRs send by rack pair, not by path"));
    } else if let Some(&h) = net.hosts.iter().find(|&&h| net.node(h).ports.len() > 1) {
        iss.push("routing.paths", format!("'{name}' needs hosts with one link each; '{}' has {}", net.node(h).name, net.node(h).ports.len()));
    }
}

/// `[host] time_dilation`: every TCP profile's kernel timers shrink and its congestion control
/// runs on the kernel's clock (`TcpConfig::dilate`). Other transports have no kernel model, and
/// the algorithms that read the path's rates and delays or in-band telemetry (HPCC, Swift) would
/// mix the two clocks: both are refused.
fn dilate(profiles: &mut BTreeMap<String, TransportConfig>, k: u32, iss: &mut Issues) {
    for (name, p) in profiles.iter_mut() {
        let path = if name == "default" { "transport".to_string() } else { format!("transports.{name}") };
        match p {
            TransportConfig::Tcp(c) if matches!(c.cc, CcKind::Hpcc | CcKind::Swift | CcKind::PptSwift) => {
                iss.push(format!("{path}.cc"), format!("{} reads the path's rates and delays, which time dilation (host.time_dilation = {k}) does not model; remove one", c.cc.name()));
            }
            TransportConfig::Tcp(c) => *c = c.dilate(k),
            other => iss.push(format!("{path}.kind"), format!("'{}' has no kernel to dilate: host.time_dilation applies to TCP only", other.kind())),
        }
    }
}

/// `[host] egress_rate`: the host → switch direction of every host link serializes at most at
/// `r` (Etalon's `tc ... netem rate` on each container, which delays each packet by its
/// serialization at that rate before the NIC); the switch → host direction keeps its rate.
fn limit_host_egress(topo: &mut TopologySpec, r: Rate) {
    let is_host: Vec<bool> = topo.nodes.iter().map(|n| n.is_host).collect();
    for l in &mut topo.links {
        let back = l.reverse.unwrap_or((l.rate, l.delay));
        if is_host[l.a] {
            l.reverse = Some(back);
            l.rate = l.rate.min(r);
        }
        if is_host[l.b] {
            l.reverse = Some((back.0.min(r), back.1));
        }
    }
}

/// `[host]`: the hosts' model. `stack`: the Linux kernel whose TCP defaults every TCP profile
/// starts from; `egress_rate`: each host's egress limit; `egress_burst`: that limit applied to
/// offload batches of up to this size (`network::shaper`); `time_dilation`: the emulator's factor;
/// `rx_jitter`: largest receive processing delay (uniform, per host).
fn host_section(t: &Table, iss: &mut Issues) -> crate::host::HostSpec {
    use crate::host::linux::{Kernel, STACK_NAMES};
    let mut h = crate::host::HostSpec::default();
    if let Some(ht) = t.table("host", iss) {
        if let Some(name) = ht.get("stack", iss, as_choice(STACK_NAMES)) {
            h.stack = Kernel::from_name(&name);
        }
        if let Some(r) = ht.get("egress_rate", iss, as_rate) {
            h.egress_rate = Some(r);
        }
        if let Some(b) = ht.get("egress_burst", iss, as_bytes) {
            let (key, v) = (ht.key_path("egress_burst"), ht.raw("egress_burst").map_or_else(String::new, show));
            let max = crate::network::shaper::MAX_BURST;
            if b == 0 {
                iss.push(key, format!("{v} is not a burst size; give the largest offload batch in bytes, e.g. \"64KB\" (Linux's GSO limit)"));
            } else if b > max {
                iss.push(key, format!("{v} ({b} B) is not an offload batch; give at most {max} B (Linux batches up to 64 KB)"));
            } else if ht.raw("egress_rate").is_none() {
                iss.push(key, format!("{v} needs host.egress_rate, the rate its bursts are shaped to (e.g. egress_rate = \"10Gbps\")"));
            } else {
                h.egress_burst = Some(b);
            }
        }
        if let Some(k) = ht.get("time_dilation", iss, as_positive) {
            if k > 1000 {
                iss.push(ht.key_path("time_dilation"), format!("{k} is not a time dilation factor; give 1 (none) to 1000 (Etalon uses 20)"));
            } else {
                h.time_dilation = k as u32;
            }
        }
        if let Some(j) = ht.get("rx_jitter", iss, as_time) {
            if j > Time::from_ms(100) {
                iss.push(ht.key_path("rx_jitter"), format!("'{j}' is not a host processing delay; give up to 100ms (e.g. \"2us\"), or 0 for none"));
            } else {
                h.rx_jitter = j;
            }
        }
        ht.finish(iss);
    }
    h
}

fn queue(t: &Table, key: &'static str, default_limit: Option<Amount>, send_limit: Option<u64>, max_packet: u64, shared: bool, iss: &mut Issues) -> QueueSpec {
    let mut spec = QueueSpec { send_limit, ..QueueSpec::fifo(default_limit) };
    if let Some(q) = t.table(key, iss) {
        spec = queue_table(&q, spec, max_packet, shared, iss);
    }
    spec
}

#[derive(Clone)]
struct LinkParams {
    rate: Option<Rate>,
    delay: Option<Time>,
    loss: f64,
}

impl LinkParams {
    /// The link a–b (rate and delay checked present by the caller).
    fn link(&self, a: usize, b: usize, qa: QueueSpec, qb: QueueSpec) -> LinkSpec {
        LinkSpec { a, b, rate: self.rate.unwrap(), delay: self.delay.unwrap(), loss_rate: self.loss, queue_ab: qa, queue_ba: qb, reverse: None }
    }
}

fn link_params(l: &Table, iss: &mut Issues) -> LinkParams {
    LinkParams {
        rate: l.need("rate", iss, "a rate such as '10Gbps'", as_rate),
        delay: l.need("delay", iss, "a propagation delay such as '1us'", as_time),
        loss: l.get("loss_rate", iss, as_probability).unwrap_or(0.0),
    }
}

/// A required link table (`link = { rate, delay, loss_rate }`).
fn required_link(t: &Table, key: &'static str, iss: &mut Issues) -> Option<LinkParams> {
    let lp = t.table(key, iss).map(|l| {
        let p = link_params(&l, iss);
        l.finish(iss);
        p
    });
    if lp.is_none() && !t.has(key) {
        iss.push(t.key_path(key), "missing; expected { rate = \"10Gbps\", delay = \"1us\" }");
    }
    lp
}

/// Rack layout of a `kind = "rdcn"` topology, for reading [circuit] and [tor].
#[derive(Clone, Copy)]
pub(super) struct RdcnLayout {
    pub racks: usize,
    pub hosts_per_rack: usize,
    pub circuit_rate: Rate,
    pub circuit_delay: Time,
    /// Host links and packet-switch links (for the base RTTs AccelToR derives its values from).
    pub host: (Rate, Time),
    pub packet: (Rate, Time),
}

/// The declared nodes (known even if links have problems) and, if all is well, the topology.
fn topology_spec(
    t: &Table,
    switch_q: QueueSpec,
    host_q: QueueSpec,
    max_packet: u64,
    shared: bool,
    layout: &mut Option<RdcnLayout>,
    iss: &mut Issues,
) -> (Vec<NodeSpec>, Option<TopologySpec>) {
    let kinds = &["star", "dumbbell", "explicit", "leaf_spine", "fat_tree", "rdcn"];
    let Some(kind) = t.need("kind", iss, "one of star, dumbbell, explicit, leaf_spine, fat_tree, rdcn", as_choice(kinds)) else {
        return (vec![], None);
    };
    let mut oversubscription = None;
    let mut bisection_bps = None;
    let mut nodes = Vec::new();
    let mut links = Vec::new();
    let host = |name: String| NodeSpec { name, is_host: true };
    let switch = |name: String| NodeSpec { name, is_host: false };
    let ok_before = iss.0.len();
    match kind.as_str() {
        "star" => {
            let n = t.need("hosts", iss, "the number of hosts", as_count);
            let lp = required_link(t, "link", iss);
            if let Some(n) = n {
                nodes.extend((0..n).map(|i| host(format!("h{i}"))));
                nodes.push(switch("s0".into()));
            }
            if let (Some(n), Some(LinkParams { rate: Some(rate), delay: Some(delay), loss })) = (n, lp) {
                for i in 0..n as usize {
                    links.push(LinkSpec { a: i, b: n as usize, rate, delay, loss_rate: loss, queue_ab: host_q, queue_ba: switch_q, reverse: None });
                }
            }
        }
        "dumbbell" => {
            let l = t.need("left", iss, "the number of hosts on the left switch", as_count);
            let r = t.need("right", iss, "the number of hosts on the right switch", as_count);
            let lp = required_link(t, "link", iss);
            let bp = t.table("bottleneck", iss).map(|x| {
                let p = link_params(&x, iss);
                let q = x.table("queue", iss).map(|q| queue_table(&q, switch_q, max_packet, shared, iss));
                x.finish(iss);
                (p, q.unwrap_or(switch_q))
            });
            if bp.is_none() && !t.has("bottleneck") {
                iss.push(t.key_path("bottleneck"), "missing; expected { rate = \"10Gbps\", delay = \"10us\" }");
            }
            if let (Some(l), Some(r)) = (l, r) {
                nodes.extend((0..l + r).map(|i| host(format!("h{i}"))));
                nodes.push(switch("s0".into()));
                nodes.push(switch("s1".into()));
            }
            if let (Some(l), Some(r), Some(lp), Some((bp, bq))) = (l, r, lp, bp) {
                if let (Some(rate), Some(delay), Some(brate), Some(bdelay)) = (lp.rate, lp.delay, bp.rate, bp.delay) {
                    let (l, r) = (l as usize, r as usize);
                    let (s0, s1) = (l + r, l + r + 1);
                    for i in 0..l + r {
                        let s = if i < l { s0 } else { s1 };
                        links.push(LinkSpec { a: i, b: s, rate, delay, loss_rate: lp.loss, queue_ab: host_q, queue_ba: switch_q, reverse: None });
                    }
                    links.push(LinkSpec { a: s0, b: s1, rate: brate, delay: bdelay, loss_rate: bp.loss, queue_ab: bq, queue_ba: bq, reverse: None });
                }
            }
        }
        "leaf_spine" => {
            let leaves = t.need("leaves", iss, "the number of leaf (ToR) switches", as_count);
            let spines = t.need("spines", iss, "the number of spine switches", as_count);
            let hpl = t.need("hosts_per_leaf", iss, "the number of hosts under each leaf", as_count);
            let (hl, cl) = fabric_links(t, iss);
            let (leaves, spines) = match (leaves, spines, hpl) {
                (Some(l), Some(s), Some(h)) => match generated_refusal(l as u128 * h as u128, l as u128 * (h as u128 + s as u128)) {
                    Some(why) => {
                        iss.push(t.key_path("leaves"), format!("{l} leaves x {s} spines x {h} hosts per leaf: {why}"));
                        (None, None)
                    }
                    None => (Some(l), Some(s)),
                },
                _ => (leaves, spines),
            };
            if let (Some(l), Some(s), Some(h)) = (leaves, spines, hpl) {
                let (l, s, h) = (l as usize, s as usize, h as usize);
                nodes.extend((0..l * h).map(|i| host(format!("h{i}"))));
                nodes.extend((0..l).map(|i| switch(format!("leaf{i}"))));
                nodes.extend((0..s).map(|i| switch(format!("spine{i}"))));
                if let (Some(hl), Some(cl)) = (hl, cl) {
                    let (leaf0, spine0) = (l * h, l * h + l);
                    for i in 0..l * h {
                        links.push(hl.link(i, leaf0 + i / h, host_q, switch_q));
                    }
                    for a in 0..l {
                        for b in 0..s {
                            links.push(cl.link(leaf0 + a, spine0 + b, switch_q, switch_q));
                        }
                    }
                    // A leaf's hosts can send h·host_rate; its uplinks carry s·core_rate.
                    let down = h as f64 * hl.rate.unwrap().bps() as f64;
                    let up = s as f64 * cl.rate.unwrap().bps() as f64;
                    oversubscription = Some(down / up);
                    // Cut the leaves in two halves: each half sends at most min(down, up) per leaf.
                    bisection_bps = Some(((l / 2) as f64 * down.min(up)) as u64);
                }
            }
        }
        "rdcn" => {
            let racks = t.need("racks", iss, "the number of racks (at least 2)", as_count);
            if racks == Some(1) {
                iss.push(t.key_path("racks"), "1 rack leaves nothing to connect; a hybrid network needs at least 2");
            }
            let hpr = t.need("hosts_per_rack", iss, "the number of hosts under each ToR", as_count);
            let hl = required_link(t, "host_link", iss);
            // The ToR→host direction, if it differs (an emulator's receive path, say).
            let down = t.table("host_downlink", iss).map(|l| {
                let p = link_params(&l, iss);
                l.finish(iss);
                p
            });
            let pl = required_link(t, "packet_link", iss);
            let cl = required_link(t, "circuit_link", iss);
            let racks = match (racks, hpr) {
                (Some(r), Some(h)) => match generated_refusal(r as u128 * h as u128, r as u128 * (h as u128 + 1)) {
                    Some(why) => {
                        iss.push(t.key_path("racks"), format!("{r} racks x {h} hosts per rack: {why}"));
                        None
                    }
                    None => Some(r),
                },
                _ => racks,
            };
            if let (Some(r), Some(h)) = (racks.filter(|&r| r >= 2), hpr) {
                let (r, h) = (r as usize, h as usize);
                nodes.extend((0..r * h).map(|i| host(format!("h{i}"))));
                nodes.extend((0..r).map(|i| switch(format!("tor{i}"))));
                nodes.push(switch("eps".into()));
                if let (Some(hl), Some(pl), Some(cl)) = (hl, pl, cl) {
                    if let (Some(hr), Some(hd), Some(pr), Some(pd), Some(crate_rate), Some(crate_delay)) = (hl.rate, hl.delay, pl.rate, pl.delay, cl.rate, cl.delay) {
                        let tor0 = r * h;
                        let reverse = down.as_ref().and_then(|d| Some((d.rate?, d.delay?)));
                        for i in 0..r * h {
                            links.push(LinkSpec { reverse, ..hl.link(i, tor0 + i / h, host_q, switch_q) });
                        }
                        for k in 0..r {
                            links.push(pl.link(tor0 + k, tor0 + r, switch_q, switch_q));
                        }
                        *layout = Some(RdcnLayout { racks: r, hosts_per_rack: h, circuit_rate: crate_rate, circuit_delay: crate_delay, host: (hr, hd), packet: (pr, pd) });
                    }
                }
            }
        }
        "fat_tree" => {
            let k = t.need("k", iss, "an even number of ports per switch, e.g. 4", as_count);
            if let Some(k) = k {
                if k % 2 == 1 || k > 128 {
                    iss.push(t.key_path("k"), format!("{k} is not an even port count from 2 to 128"));
                }
            }
            let (hl, cl) = fabric_links(t, iss);
            if let Some(k) = k.filter(|k| k % 2 == 0 && *k <= 128) {
                let k = k as usize;
                let half = k / 2;
                let n_hosts = k * k * k / 4;
                nodes.extend((0..n_hosts).map(|i| host(format!("h{i}"))));
                let edge0 = nodes.len();
                for p in 0..k {
                    nodes.extend((0..half).map(|i| switch(format!("edge{p}_{i}"))));
                }
                let agg0 = nodes.len();
                for p in 0..k {
                    nodes.extend((0..half).map(|i| switch(format!("agg{p}_{i}"))));
                }
                let core0 = nodes.len();
                nodes.extend((0..half * half).map(|i| switch(format!("core{i}"))));
                if let (Some(hl), Some(cl)) = (hl, cl) {
                    // Al-Fares et al., SIGCOMM 2008 §3: k pods of k/2 edge and k/2 aggregation
                    // switches, (k/2)² cores; aggregation switch j of every pod reaches cores
                    // j·k/2 .. (j+1)·k/2 − 1.
                    for hst in 0..n_hosts {
                        links.push(hl.link(hst, edge0 + hst / half, host_q, switch_q));
                    }
                    for p in 0..k {
                        for e in 0..half {
                            for a in 0..half {
                                links.push(cl.link(edge0 + p * half + e, agg0 + p * half + a, switch_q, switch_q));
                            }
                        }
                        for a in 0..half {
                            for m in 0..half {
                                links.push(cl.link(agg0 + p * half + a, core0 + a * half + m, switch_q, switch_q));
                            }
                        }
                    }
                    let ratio = hl.rate.unwrap().bps() as f64 / cl.rate.unwrap().bps() as f64;
                    oversubscription = Some(ratio);
                    bisection_bps = Some(((n_hosts / 2) as f64 * hl.rate.unwrap().bps().min(cl.rate.unwrap().bps()) as f64) as u64);
                }
            }
        }
        _ => {
            let names = |key: &'static str, iss: &mut Issues| -> Vec<String> {
                t.get(key, iss, |v| match v {
                    Value::Array(a) => a.iter().map(as_str).collect::<Result<Vec<_>, _>>(),
                    _ => Err(format!("{} is not a list of names", show(v))),
                })
                .unwrap_or_default()
            };
            let hosts = names("hosts", iss);
            let switches = names("switches", iss);
            if hosts.is_empty() && !t.has("hosts") {
                iss.push(t.key_path("hosts"), "missing; expected a list of host names such as [\"h0\", \"h1\"]");
            }
            let n_hosts = hosts.len();
            nodes.extend(hosts.into_iter().map(host));
            nodes.extend(switches.into_iter().map(switch));
            let mut seen = std::collections::HashSet::new();
            for (i, n) in nodes.iter().enumerate() {
                let key = t.key_path(if i < n_hosts { "hosts" } else { "switches" });
                if n.name.trim().is_empty() || n.name.contains("->") {
                    // Ports are named 'node->peer': such a name would make them unreadable.
                    iss.push(key, format!("'{}' is not a usable name: names must be non-blank and not contain '->' (ports are named 'node->peer')", n.name));
                } else if !seen.insert(n.name.as_str()) {
                    iss.push(t.key_path("hosts"), format!("the name '{}' is used twice", n.name));
                }
            }
            let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
            match t.raw("links") {
                Some(Value::Array(items)) => {
                    for (i, item) in items.iter().enumerate() {
                        let path = format!("{}[{i}]", t.key_path("links"));
                        let Value::Object(m) = item else {
                            iss.push(path, "is not a table such as { a = \"h0\", b = \"s0\", rate = \"10Gbps\", delay = \"1us\" }");
                            continue;
                        };
                        let l = Table::new(path, m);
                        let end = |key: &'static str, iss: &mut Issues| {
                            let s = l.need(key, iss, "a node name", as_str)?;
                            match names.iter().position(|&n| n == s) {
                                Some(p) => Some(p),
                                None => {
                                    let hint = suggest(&s, &names).map(|o| format!(" did you mean '{o}'?")).unwrap_or_default();
                                    iss.push(l.key_path(key), format!("'{s}' is not a declared host or switch;{hint}"));
                                    None
                                }
                            }
                        };
                        let (a, b) = (end("a", iss), end("b", iss));
                        let p = link_params(&l, iss);
                        let q = l.table("queue", iss);
                        let egress = l.get("host_egress", iss, as_choice(&["nic", "lossy"]));
                        if a.is_some() && a == b {
                            iss.push(l.key_path("b"), "a link cannot connect a node to itself");
                        }
                        if let (Some(a), Some(b), Some(rate), Some(delay)) = (a, b, p.rate, p.delay) {
                            // A host's egress is its NIC queue ([host_queue]: backpressure, no
                            // drops) unless the link asks for a lossy queue (`host_egress =
                            // "lossy"`: the link's `queue`, or [queue], without backpressure). A
                            // link's `queue` otherwise sets its switch directions only.
                            let hosts = (nodes[a].is_host, nodes[b].is_host);
                            if egress.is_some() && hosts == (false, false) {
                                iss.push(l.key_path("host_egress"), "only a link with a host end has a host egress; remove it or connect a host");
                            }
                            let link_q = q.as_ref().map_or(switch_q, |q| queue_table(q, switch_q, max_packet, shared, iss));
                            let side = |host: bool| if !host { link_q } else if egress.as_deref() == Some("lossy") { link_q } else { host_q };
                            let (qa, qb) = (side(hosts.0), side(hosts.1));
                            links.push(LinkSpec { a, b, rate, delay, loss_rate: p.loss, queue_ab: qa, queue_ba: qb, reverse: None });
                        }
                        l.finish(iss);
                    }
                }
                Some(v) => iss.push(t.key_path("links"), format!("{} is not a list of links", show(v))),
                None => iss.push(t.key_path("links"), "missing; expected a list of links"),
            }
        }
    }
    t.finish(iss);
    if iss.0.len() > ok_before || nodes.is_empty() {
        return (nodes, None);
    }
    let spec = TopologySpec { kind, nodes, links, oversubscription, bisection_bps, rdcn: None, shared_buffer: None, clock: Default::default() };
    // Refused before anything is built, and only when it cannot fit this machine.
    if let Some(why) = super::limits::Footprint::of(&spec).refusal(super::limits::machine_memory()) {
        iss.push(t.key_path("kind"), why);
        return (vec![], None);
    }
    (spec.nodes.clone(), Some(spec))
}

/// Host links and switch-to-switch links of a generated fabric: `host_link` and `core_link`, or
/// `link` for both.
fn fabric_links(t: &Table, iss: &mut Issues) -> (Option<LinkParams>, Option<LinkParams>) {
    let both = if t.has("link") { required_link(t, "link", iss) } else { None };
    let pick = |key: &'static str, iss: &mut Issues| -> Option<LinkParams> {
        if t.has(key) {
            required_link(t, key, iss)
        } else if both.is_some() {
            both.clone()
        } else {
            iss.push(t.key_path(key), "missing; give host_link and core_link (or link for both), e.g. { rate = \"40Gbps\", delay = \"1us\" }");
            None
        }
    };
    let hl = pick("host_link", iss);
    let cl = pick("core_link", iss);
    let ok = |p: Option<LinkParams>| p.filter(|p| p.rate.is_some() && p.delay.is_some());
    (ok(hl), ok(cl))
}

/// The transport profiles: "default" from [transport], one per [transports.NAME]. A table's
/// `kind` picks the transport (TCP unless said); a named profile of the same kind as
/// [transport] inherits its settings.
/// With them, each named profile's port tables (`port_profiles.rs`); a profile that sets only
/// ports and is named after a transport, congestion control or scheme is that one, as a flow
/// naming it would get it.
fn transports<'a>(t: &Table<'a>, tcp_base: TcpConfig, iss: &mut Issues) -> (BTreeMap<String, TransportConfig>, BTreeMap<String, Written<'a>>) {
    let mut out = BTreeMap::new();
    let mut written = BTreeMap::new();
    let one = |tt: &Table, inherit: Option<(TransportConfig, Option<bool>)>, iss: &mut Issues| -> (TransportConfig, Option<bool>) {
        let kind = super::kinds::kind_of(tt, iss).or_else(|| inherit.map(|(c, _)| c.kind().to_string())).unwrap_or_else(|| "tcp".into());
        if kind == "tcp" {
            let (base, ecn) = match inherit {
                Some((TransportConfig::Tcp(c), ecn)) => (c, ecn),
                _ => (tcp_base, None),
            };
            let (c, e) = tcp_config(tt, base, ecn, iss);
            (TransportConfig::Tcp(c), e)
        } else {
            let c = super::kinds::config(tt, &kind, inherit.map(|(c, _)| c), iss).unwrap_or(TransportConfig::Tcp(TcpConfig::default()));
            (c, None)
        }
    };
    let (base, base_ecn) = match t.table("transport", iss) {
        Some(tt) => one(&tt, None, iss),
        None => (TransportConfig::Tcp(tcp_base), None),
    };
    out.insert("default".to_string(), base);
    if let Some(named) = t.table("transports", iss) {
        for (name, v) in named.entries() {
            let path = named.key_path(name);
            match v {
                Value::Object(pm) => {
                    let tt = Table::new(path, pm);
                    written.insert(name.clone(), Written::take(&tt, iss));
                    let cfg = match by_name(name, &base) {
                        Some(c) if Written::only_ports(pm) => c,
                        _ => one(&tt, Some((base, base_ecn)), iss).0,
                    };
                    out.insert(name.clone(), cfg);
                }
                _ => iss.push(path, format!("{} is not a table of transport settings", show(v))),
            }
        }
    }
    (out, written)
}

fn tcp_config(t: &Table, base: TcpConfig, base_ecn: Option<bool>, iss: &mut Issues) -> (TcpConfig, Option<bool>) {
    let mut c = base;
    t.raw("kind");
    let cc = t.get("cc", iss, as_choice(&CC_AND_SCHEME_NAMES));
    // A scheme sets its defaults first, so the keys of this table override them.
    let scheme = cc.as_deref().and_then(scheme::scheme);
    if let Some(s) = scheme {
        c = s.config(c);
    }
    let prior_cc = if scheme.is_some() { c.cc } else { base.cc };
    if let Some(v) = t.get("mss", iss, as_bytes) {
        if v == 0 || v > 65_000 {
            iss.push(t.key_path("mss"), format!("{v} B is not a usable segment size (1 to 65000 bytes)"));
        } else {
            c.mss = v as u32;
        }
    }
    // A stack's initial window depends on the MSS (2.6.38's RFC 3390 table): follow a new MSS
    // unless a table already set the window.
    if let Some(k) = c.stack {
        if c.mss != base.mss && c.initial_cwnd == k.initial_cwnd(base.mss) {
            c.initial_cwnd = k.initial_cwnd(c.mss);
        }
    }
    if let Some(v) = t.get("header", iss, as_bytes) {
        c.header = v.min(10_000) as u32;
    }
    // A control packet's size: 1 B (htsim's SYN) to 10 000 B (a jumbo frame).
    let control = |key: &'static str, what: &str, iss: &mut Issues| {
        let v = t.get(key, iss, as_bytes)?;
        if (1..=10_000).contains(&v) {
            return Some(v as u32);
        }
        iss.push(t.key_path(key), format!("{v} B: {what} must be 1 to 10000 bytes"));
        None
    };
    if let Some(v) = control("ack_size", "an ACK", iss) {
        c.ack_size = v;
    }
    if let Some(v) = control("syn_size", "a SYN", iss) {
        c.syn_size = Some(v);
    }
    if let Some(v) = control("synack_size", "a SYN-ACK", iss) {
        c.synack_size = Some(v);
    }
    if let Some(v) = t.get("initial_cwnd", iss, as_positive) {
        c.initial_cwnd = v.min(u32::MAX as u64) as u32;
    }
    if let Some(v) = t.raw("initial_ssthresh") {
        if v.as_str() == Some("unlimited") {
            c.initial_ssthresh = u32::MAX;
        } else {
            match as_positive(v) {
                Ok(n) => c.initial_ssthresh = n.min(u32::MAX as u64) as u32,
                Err(e) => iss.push(t.key_path("initial_ssthresh"), format!("{e} (segments), or \"unlimited\"")),
            }
        }
    }
    if let Some(v) = t.get("min_rto", iss, as_time) {
        c.rto.min = v;
    }
    if let Some(v) = t.get("max_rto", iss, as_time) {
        c.rto.max = v;
    }
    match t.raw("initial_rto") {
        Some(v) if v.as_str() == Some("handshake") => c.handshake_rtt = true,
        Some(v) => match as_time(v) {
            Ok(Time::ZERO) => iss.push(t.key_path("initial_rto"), "must be above 0"),
            Ok(d) => {
                c.rto.initial = d;
                c.handshake_rtt = false;
            }
            Err(e) => iss.push(t.key_path("initial_rto"), format!("{e}; or \"handshake\"")),
        },
        None => {}
    }
    if let Some(v) = t.get("handshake", iss, as_bool) {
        c.handshake = v;
    }
    if let Some(v) = t.get("ect_syn", iss, as_bool) {
        c.ect_syn = if v { crate::transport::tcp::EctSyn::On } else { crate::transport::tcp::EctSyn::Off };
    }
    if let Some(v) = t.get("prr", iss, as_bool) {
        c.prr = v;
    }
    if let Some(v) = t.get("prr_entry", iss, as_choice(&["rfc6937", "ns3"])) {
        c.prr_ns3_entry = v == "ns3";
    }
    if let Some(v) = t.get("prr_units", iss, as_choice(&["segments", "bytes"])) {
        c.prr_bytes = v == "bytes";
    }
    if let Some(v) = t.get("acked_count", iss, as_choice(&["cumulative", "delivered"])) {
        c.acked_delivered = v == "delivered";
    }
    if let Some(v) = t.get("limited_transmit", iss, as_choice(&["rfc3042", "pipe", "none"])) {
        c.limited_transmit = match v.as_str() {
            "pipe" => LimitedTransmit::Pipe,
            "none" => LimitedTransmit::None,
            _ => LimitedTransmit::Rfc3042,
        };
    }
    if let Some(v) = t.get("prr_cwr_acks", iss, as_choice(&["delivering", "advancing"])) {
        c.prr_cwr_advancing = v == "advancing";
    }
    if let Some(v) = t.get("prr_recovery", iss, as_bool) {
        c.prr_recovery = v;
    }
    if let Some(v) = t.get("prr_bound", iss, as_choice(&["crb", "ns3-ssrb"])) {
        c.prr_bound = if v == "crb" { PrrBound::Crb } else { PrrBound::Ns3Ssrb };
    }
    if let Some(v) = t.get("recovery_from_cwr", iss, as_bool) {
        c.recovery_from_cwr = v;
    }
    if let Some(v) = t.get("partial_ack", iss, as_choice(&["window", "ns3"])) {
        c.partial_ack_ns3 = v == "ns3";
    }
    if let Some(v) = t.get("fast_retransmit", iss, as_choice(&["lost", "head"])) {
        c.fast_rtx_head = v == "head";
    }
    if let Some(v) = t.get("lost_retransmit", iss, as_choice(&["rack", "ns3", "never"])) {
        use crate::transport::tcp::LostRetransmit;
        c.lost_retransmit = match v.as_str() {
            "ns3" => LostRetransmit::Ns3Sacked,
            "never" => LostRetransmit::Never,
            _ => LostRetransmit::Rack,
        };
    }
    if let Some(v) = t.get("next_seg", iss, as_choice(&["rfc6675", "ns3"])) {
        c.next_seg_ns3 = v == "ns3";
    }
    if let Some(v) = t.get("recovery_on", iss, as_choice(&["any_ack", "duplicate_ack"])) {
        c.recovery_on_dupack = v == "duplicate_ack";
    }
    if let Some(v) = t.get("timeout_ssthresh", iss, as_choice(&["episode", "every", "ns2"])) {
        use crate::transport::tcp::TimeoutSsthresh;
        c.timeout_ssthresh = match v.as_str() {
            "every" => TimeoutSsthresh::Every,
            "ns2" => TimeoutSsthresh::Ns2,
            _ => TimeoutSsthresh::Episode,
        };
    }
    if let Some(v) = t.get("sack_bytes", iss, as_choice(&["none", "ns3", "linux"])) {
        use crate::transport::tcp::SackBytes;
        c.sack_bytes = match v.as_str() {
            "ns3" => SackBytes::Ns3,
            "linux" => SackBytes::Linux,
            _ => SackBytes::None,
        };
    }
    if let Some(v) = t.get("dctcp_echo", iss, as_choice(&["rfc8257", "ns3"])) {
        c.dctcp_echo_ns3 = v == "ns3";
    }
    if let Some(v) = t.get("loss_exit", iss, as_choice(&["acked", "ns3", "ns2"])) {
        use crate::transport::tcp::LossExit;
        c.loss_exit = match v.as_str() {
            "ns3" => LossExit::Ns3,
            "ns2" => LossExit::Ns2,
            _ => LossExit::Acked,
        };
    }
    if let Some(v) = t.get("timeout_sack", iss, as_choice(&["keep", "clear"])) {
        c.clear_sack_on_timeout = v == "clear";
    }
    if let Some(v) = t.get("rto_backoff_end", iss, as_choice(&["sample", "new_ack"])) {
        c.backoff_ends_on_new_ack = v == "new_ack";
    }
    if let Some(v) = t.get("cwr_exit", iss, as_choice(&["at", "beyond"])) {
        c.ns3_cwr_exit = v == "beyond";
    }
    if let Some(v) = t.get("window", iss, as_choice(&["segments", "htsim_bytes"])) {
        c.htsim_bytes = v == "htsim_bytes";
    }
    if let Some(v) = t.get("extra_segment", iss, as_bool) {
        c.extra_segment = v;
    }
    if let Some(v) = t.get("ack_first_data", iss, as_bool) {
        c.ack_first_data = v;
    }
    if let Some(v) = t.get("handshake_ack", iss, as_bool) {
        c.handshake_ack = v;
        if v && !c.handshake {
            iss.push(t.key_path("handshake_ack"), "true needs handshake = true (the ACK answers the SYN-ACK)");
        }
    }
    if c.syn_size.is_some() && !c.handshake && t.has("syn_size") {
        iss.push(t.key_path("syn_size"), "needs handshake = true (without it no SYN is sent)");
    }
    if c.synack_size.is_some() && !c.handshake && t.has("synack_size") {
        iss.push(t.key_path("synack_size"), "needs handshake = true (without it no SYN-ACK is sent)");
    }
    if c.prr_ns3_entry && !c.prr && t.has("prr_entry") {
        iss.push(t.key_path("prr_entry"), "\"ns3\" needs prr = true (it counts PRR's first ACK)");
    }
    if c.prr_bytes && !c.prr && t.has("prr_units") {
        iss.push(t.key_path("prr_units"), "\"bytes\" needs prr = true (it is how PRR counts)");
    }
    if c.prr_cwr_advancing && !c.prr && t.has("prr_cwr_acks") {
        iss.push(t.key_path("prr_cwr_acks"), "\"advancing\" needs prr = true (it says when PRR steps in CWR)");
    }
    if t.has("prr_bound") && !c.prr && !c.prr_recovery {
        iss.push(t.key_path("prr_bound"), "needs prr = true or prr_recovery = true (it bounds PRR)");
    }
    match t.raw("syn_timestamp") {
        Some(v) if v.as_str() == Some("sent") => c.syn_ts_zero = false,
        Some(v) if v.as_str() == Some("zero") => c.syn_ts_zero = true,
        Some(v) => iss.push(t.key_path("syn_timestamp"), format!("expected \"sent\" or \"zero\", got {v}")),
        None => {}
    }
    if let Some(v) = t.get("timestamps", iss, as_bool) {
        c.timestamps = v;
    }
    if let Some(v) = t.get("rto_granularity", iss, as_time) {
        c.rto.granularity = v;
    }
    if let Some(v) = t.get("rto_tick", iss, as_time) {
        c.rto_tick = v;
    }
    if c.rto.min > c.rto.max {
        iss.push(t.key_path("min_rto"), format!("{} is above max_rto {}", c.rto.min, c.rto.max));
    }
    if let Some(v) = t.get("delayed_ack", iss, as_positive) {
        c.delack_count = v.min(1000) as u32;
    }
    if let Some(v) = t.get("delayed_ack_timeout", iss, as_time) {
        c.delack_timeout = v;
    }
    if let Some(r) = t.get("app_rate", iss, as_rate) {
        c.app_rate = Some(r);
    }
    if let Some(v) = t.get("quickack", iss, as_bool) {
        // Linux's quick-ACK mode, with the windows of the hosts' kernel (4.15's without one or on ns-3).
        c.quickack = v.then(|| c.stack.filter(|k| k.is_linux()).unwrap_or(crate::host::linux::Kernel::V4_15));
    }
    if let Some(v) = t.get("sack", iss, as_bool) {
        c.sack = v;
    }
    if c.prr_recovery && !c.sack && t.has("prr_recovery") {
        iss.push(t.key_path("prr_recovery"), "true needs sack = true (PRR in fast recovery counts SACKed data)");
    }
    let ecn = t.get("ecn", iss, as_bool).or(base_ecn);
    match t.get("rcv_window", iss, as_choice(&["free", "ns-3"])).as_deref() {
        Some("ns-3") => c.rcv_window = crate::transport::tcp::RcvWindow::Ns3,
        Some(_) => c.rcv_window = crate::transport::tcp::RcvWindow::FreeSpace,
        None => {}
    }
    if let Some(v) = t.raw("rcv_buffer") {
        if v.as_str() == Some("unlimited") {
            c.rcv_buffer = None;
        } else {
            match as_bytes(v) {
                Ok(b) if b < c.mss as u64 => {
                    iss.push(t.key_path("rcv_buffer"), format!("{} is smaller than one segment ({} B)", show(v), c.mss))
                }
                Ok(b) => c.rcv_buffer = Some(b),
                Err(e) => iss.push(t.key_path("rcv_buffer"), e),
            }
        }
    }
    if let Some(v) = t.raw("send_buffer") {
        if v.as_str() == Some("unlimited") {
            c.send_buffer = None;
        } else {
            match as_bytes(v) {
                Ok(b) if b < c.mss as u64 => {
                    iss.push(t.key_path("send_buffer"), format!("{} is smaller than one segment ({} B)", show(v), c.mss))
                }
                Ok(b) => c.send_buffer = Some(b),
                Err(e) => iss.push(t.key_path("send_buffer"), format!("{e}; or \"unlimited\"")),
            }
        }
    }
    if let Some(v) = t.get("rack", iss, as_bool) {
        c.rack = v;
    }
    if let Some(v) = t.get("tlp", iss, as_bool) {
        c.tlp = v;
    }
    if let Some(v) = t.get("class", iss, as_u64) {
        if v as usize >= crate::queue::CLASSES {
            iss.push(t.key_path("class"), format!("{v} is not a priority class; classes are 0 (most urgent) to {}", crate::queue::CLASSES - 1));
        } else {
            c.class = v as u8;
        }
    }
    if let Some(v) = t.get("ack_class", iss, as_u64) {
        if v as usize >= crate::queue::CLASSES {
            iss.push(t.key_path("ack_class"), format!("{v} is not a priority class; classes are 0 (most urgent) to {}", crate::queue::CLASSES - 1));
        } else {
            c.ack_class = Some(v as u8);
        }
    }
    if let Some(r) = t.get("rank", iss, as_choice(&["none", "remaining"])) {
        c.rank_remaining = r == "remaining";
    }
    if let Some(v) = t.get("telemetry", iss, as_bool) {
        c.telemetry = v;
    }
    if let Some(v) = t.get("tlp_min", iss, as_time) {
        c.tlp_min = v;
    }
    if let Some(v) = t.get("dupthresh", iss, as_positive) {
        c.dupthresh = v.min(1000) as u32;
    }
    match t.raw("cwnd_cap") {
        Some(v) if v.as_str() == Some("none") => c.cwnd_cap = None,
        Some(v) => match v.as_u64() {
            Some(n) if n >= 1 => c.cwnd_cap = Some(n.min(u32::MAX as u64) as u32),
            _ => iss.push(t.key_path("cwnd_cap"), format!("{} is not a window in segments of at least 1 (or \"none\")", show(v))),
        },
        None => {}
    }
    if let Some(v) = t.get("ecn_growth", iss, as_choice(&["linux", "ns2"])) {
        c.ns2_ecn_growth = v == "ns2";
    }
    // Shorthand keys for some algorithms' knobs: each sets that knob of `cc_params` when the
    // profile's algorithm has it (a value in `cc_params` itself wins).
    let mut shorthand: Vec<(&'static str, f64)> = Vec::new();
    if let Some(g) = t.get("dctcp_g", iss, as_f64) {
        if g > 0.0 && g <= 1.0 {
            shorthand.push(("g", g));
        } else {
            iss.push(t.key_path("dctcp_g"), format!("{g} is not a gain in (0, 1]; RFC 8257 suggests 1/16 = 0.0625"));
        }
    }
    if let Some(a) = t.get("dctcp_initial_alpha", iss, as_f64) {
        if (0.0..=1.0).contains(&a) {
            shorthand.push(("initial_alpha", a));
        } else {
            iss.push(t.key_path("dctcp_initial_alpha"), format!("{a} is not in [0, 1]"));
        }
    }
    match t.get("ledbat_target", iss, as_time) {
        Some(Time::ZERO) => iss.push(t.key_path("ledbat_target"), "must be above 0"),
        Some(v) => shorthand.push(("target_ms", v.0 as f64 / 1e9)),
        None => {}
    }
    if let Some(a) = t.get("retcp_alpha", iss, as_f64) {
        if a >= 1.0 && a.is_finite() {
            shorthand.push(("alpha", a));
        } else {
            iss.push(t.key_path("retcp_alpha"), format!("{a} is not a growth factor >= 1 (the paper uses 2)"));
        }
    }
    if let Some(b) = t.get("retcp_beta", iss, as_f64) {
        if b > 0.0 && b <= 1.0 {
            shorthand.push(("beta", b));
        } else {
            iss.push(t.key_path("retcp_beta"), format!("{b} is not a shrink factor in (0, 1] (the paper uses 0.5)"));
        }
    }
    if let Some(v) = t.get("cubic_hystart", iss, as_bool) {
        shorthand.push(("hystart", if v { 1.0 } else { 0.0 }));
    }
    match cc.as_deref() {
        Some(name) if scheme.is_none() => {
            c.cc = CcKind::from_name(name).unwrap_or(CcKind::NewReno);
            c.scheme = None;
        }
        _ => {}
    }
    priority_keys(t, &mut c, iss);
    match t.table("cc_params", iss) {
        Some(tbl) => {
            let name = c.cc.name();
            let list = crate::transport::tcp::cc::knobs_of(name);
            // A scheme's own knob settings stay unless this table sets them.
            let mut k = if scheme.is_some() { c.cc_params } else { crate::transport::tcp::cc::Knobs::default() };
            let names: Vec<&str> = list.iter().map(|n| n.name).collect();
            for (key, v) in tbl.entries() {
                let path = tbl.key_path(key);
                let Some(i) = list.iter().position(|n| n.name == key.as_str()) else {
                    if list.is_empty() {
                        iss.push(path, format!("unknown: '{name}' has no settable parameters (see docs/CONGESTION_CONTROL.md)"));
                    } else {
                        let hint = suggest(key, &names).map(|o| format!("did you mean '{o}'? ")).unwrap_or_default();
                        iss.push(path, format!("is not a parameter of '{name}'; {hint}known: {}", names.join(", ")));
                    }
                    continue;
                };
                let kn = &list[i];
                let choices = crate::transport::tcp::cc::knob_choices(c.cc, kn.name);
                let named = v.as_str().and_then(|s| choices.iter().find(|(n, _)| *n == s)).map(|&(_, x)| x);
                match v.as_f64().or(named) {
                    // A knob with named values takes only those (or their numbers): 1.7 is no choice.
                    Some(x) if x >= kn.min && x <= kn.max && (choices.is_empty() || choices.iter().any(|&(_, c)| c == x)) => k.0[i] = Some(x),
                    _ if !choices.is_empty() => {
                        let names: Vec<String> = choices.iter().map(|(n, _)| format!("\"{n}\"")).collect();
                        iss.push(path, format!("{} is not one of {} ({})", show(v), names.join(", "), kn.help))
                    }
                    _ => iss.push(path, format!("{} is not a number in [{}, {}] ({}; default {})", show(v), kn.min, kn.max, kn.help, kn.default)),
                }
            }
            c.cc_params = k;
        }
        // Knobs are positional per algorithm: a profile that switches algorithm starts afresh.
        None if c.cc != prior_cc => c.cc_params = Default::default(),
        None => {}
    }
    let explicit = t.table("cc_params", &mut Issues::default());
    for (knob, v) in shorthand {
        let list = c.cc.knobs();
        if let Some(i) = list.iter().position(|n| n.name == knob) {
            if !explicit.as_ref().is_some_and(|e| e.has(knob)) {
                c.cc_params.0[i] = Some(v);
            }
        }
    }
    // The stack's own rules for this algorithm (ns-3's `TcpDctcp` for `dctcp`), for every knob
    // the profile left unset.
    if let Some(k) = c.stack {
        let list = c.cc.knobs();
        for &(knob, v) in k.cc_knobs(c.cc) {
            if let Some(i) = list.iter().position(|n| n.name == knob) {
                c.cc_params.0[i].get_or_insert(v);
            }
        }
    }
    c.ecn = match (c.cc, ecn) {
        (CcKind::Retcp, Some(true)) => {
            iss.push(t.key_path("ecn"), "reTCP reads circuit state from ECE and must run without ECN (NSDI 2020 §5.3); remove ecn = true");
            EcnMode::Off
        }
        (k, Some(false)) if k.uses_dctcp_ecn() => {
            iss.push(t.key_path("ecn"), format!("{} needs ECN (DCTCP's α); remove ecn = false or pick another cc", k.name().to_uppercase()));
            EcnMode::Dctcp
        }
        (k, _) if k.uses_dctcp_ecn() => EcnMode::Dctcp,
        (_, Some(true)) => EcnMode::Classic,
        _ => EcnMode::Off,
    };
    if c.cc == CcKind::Sab {
        // SAB's switches count flows by SYN and FIN (§IV-A.2): the connection must open with one.
        if t.get("handshake", &mut Issues::default(), as_bool) == Some(false) {
            iss.push(t.key_path("handshake"), "SAB switches count flows by SYN and FIN (JSAC 2014 §IV-A.2); remove handshake = false");
        }
        c.handshake = true;
    }
    if c.cc.needs_telemetry() && t.get("telemetry", &mut Issues::default(), as_bool) == Some(false) {
        iss.push(t.key_path("telemetry"), format!("{} reads in-band telemetry from every ACK (HPCC §3.2); remove telemetry = false", c.cc.name()));
    }
    if c.cc.acks_every_packet() {
        if let Some(n) = t.get("delayed_ack", &mut Issues::default(), as_positive).filter(|&n| n > 1) {
            iss.push(t.key_path("delayed_ack"), format!("{n}: {} needs an ACK per data packet (its signal is per packet); remove delayed_ack", c.cc.name()));
        }
    }
    let knob = |name: &str| c.cc.knobs().iter().position(|k| k.name == name).map(|i| c.cc_params.get(c.cc.knobs(), i));
    if c.cc == CcKind::Hpcc {
        if let Some(v) = knob("max_stage").filter(|v| v.fract() != 0.0) {
            iss.push(t.key_path("cc_params"), format!("max_stage = {v} is not a whole number of additive steps (HPCC §3.3 uses 5)"));
        }
    }
    if c.cc == CcKind::Dctcp && knob("cwr_on_ece").is_some_and(|v| v < 0.5) && knob("window_cut").is_some_and(|v| v < 0.5) {
        // Without a CWR episode DCTCP's cut never runs (`ssthresh` is only asked on entering
        // one), and only `window_cut` cuts elsewhere: the flow would ignore every mark.
        iss.push(t.key_path("cc_params"), "cwr_on_ece = 0 needs window_cut = 1: without a CWR episode DCTCP cuts its window only with htsim's per-window cut, so an ECE would cut nothing and the flow would ignore ECN; set window_cut = 1 (htsim's rules) or remove cwr_on_ece");
    }
    if c.cc == CcKind::Dctcp {
        // ns-3's two rules (cc/dctcp.rs) act on DCTCP's own per-window count and its cut on
        // entering CWR; htsim's ACK window and per-window cut replace those, so the rule would do
        // nothing.
        let on = |n: &str| knob(n).is_some_and(|v| v >= 0.5);
        for rule in ["first_window_at_ack", "cut_before_alpha"].into_iter().filter(|r| on(r)) {
            if on("ack_window") {
                iss.push(t.key_path("cc_params"), format!("{rule} = 1 is a rule of DCTCP's per-window count, which ack_window = 1 (htsim's) replaces: the rule would do nothing; remove one of them"));
            }
        }
        if on("cut_before_alpha") && on("window_cut") {
            iss.push(t.key_path("cc_params"), "cut_before_alpha = 1 orders the cut made on entering CWR, which window_cut = 1 (htsim's per-window cut) replaces: the rule would do nothing; remove one of them");
        }
        if c.ns3_cwr_exit && knob("cwr_on_ece").is_some_and(|v| v < 0.5) {
            iss.push(t.key_path("cwr_exit"), "\"beyond\" ends a CWR episode, and with cc_params cwr_on_ece = 0 DCTCP never starts one: remove cwr_exit or cwr_on_ece");
        }
    }
    if c.loss_exit == crate::transport::tcp::LossExit::Ns2 && c.timeout_ssthresh != crate::transport::tcp::TimeoutSsthresh::Ns2 {
        iss.push(t.key_path("loss_exit"), "\"ns2\" reacts to an ECE after a timeout by ns-2's mark of the last window reduction, which only timeout_ssthresh = \"ns2\" keeps: add it".to_string());
    }
    if c.htsim_bytes && c.timeout_ssthresh == crate::transport::tcp::TimeoutSsthresh::Ns2 {
        iss.push(t.key_path("timeout_ssthresh"), "htsim's byte window (window = \"htsim_bytes\") halves at every timeout itself: \"ns2\" does not apply".to_string());
    }
    if c.htsim_bytes {
        if let Some(why) = htsim_bytes_conflict(&c, knob("window_cut"), knob("cwr_on_ece"), knob("ack_window")) {
            iss.push(t.key_path("window"), format!("\"htsim_bytes\" is htsim's TcpSrc/DCTCPSrc window: {why}"));
        }
    }
    if matches!(c.cc, CcKind::Swift | CcKind::PptSwift) {
        if let (Some(lo), Some(hi)) = (knob("fs_min_cwnd"), knob("fs_max_cwnd")) {
            if lo >= hi {
                iss.push(t.key_path("cc_params"), format!("fs_min_cwnd = {lo} must be below fs_max_cwnd = {hi} (Swift §3.5)"));
            }
        }
    }
    t.finish(iss);
    (c, ecn)
}

/// Why `window = "htsim_bytes"` cannot run with this profile, if it cannot: the byte window is
/// htsim's `TcpSrc` (NewReno, no ECN reaction) and `DCTCPSrc` (DCTCP with its per-window cut and
/// no CWR episode, its window of ACKs), whose recovery has no SACK, with its handshake, its three
/// duplicate ACKs and no window cap of ours (`cc/byte_window.rs`).
fn htsim_bytes_conflict(c: &TcpConfig, window_cut: Option<f64>, cwr_on_ece: Option<f64>, ack_window: Option<f64>) -> Option<String> {
    let off = |v: Option<f64>| v.is_none_or(|v| v < 0.5);
    match c.cc {
        CcKind::Dctcp if off(window_cut) || !off(cwr_on_ece) || off(ack_window) => {
            return Some("with cc = \"dctcp\" it needs cc_params window_cut = 1, cwr_on_ece = 0 and ack_window = 1 (DCTCPSrc's rules)".into());
        }
        CcKind::NewReno if c.ecn != EcnMode::Off => return Some("TcpSrc ignores ECE: set ecn = false with cc = \"newreno\"".into()),
        CcKind::Dctcp | CcKind::NewReno => {}
        k => return Some(format!("it needs cc = \"dctcp\" or \"newreno\", not \"{}\"", k.name())),
    }
    if c.sack {
        return Some("htsim's TCP has no SACK: set sack = false".into());
    }
    if !c.handshake {
        return Some("htsim's SYN-ACK grows the window and counts in DCTCP's window: keep handshake = true".into());
    }
    if c.dupthresh != 3 {
        return Some(format!("htsim's fast retransmit is at the third duplicate ACK, not dupthresh = {}", c.dupthresh));
    }
    c.cwnd_cap.map(|n| format!("cwnd_cap = {n} caps the segment window only, which the byte window overrides: remove it"))
}

#[allow(clippy::too_many_arguments)]
fn flows(
    t: &Table,
    nodes: &[NodeSpec],
    reach: Option<&topology::Reach>,
    profiles: &BTreeMap<String, TransportConfig>,
    end: Option<Time>,
    traffic: bool,
    paths: PathChoice,
    iss: &mut Issues,
) -> Vec<FlowSpec> {
    let items = match t.raw("flows") {
        Some(Value::Array(a)) => a,
        Some(v) => {
            iss.push("flows", format!("{} is not a list of flows ([[flows]] tables)", show(v)));
            return vec![];
        }
        None if traffic => return vec![],
        None => {
            iss.push("flows", "missing; add [[flows]] (src, dst, size), a [[workload]] or an [[incast]]");
            return vec![];
        }
    };
    let host_names: Vec<&str> = nodes.iter().filter(|n| n.is_host).map(|n| n.name.as_str()).collect();
    // By name, once: a search per flow made a permutation on a large fabric quadratic.
    let by_name: std::collections::HashMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect();
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("flows[{i}]");
        let Value::Object(m) = item else {
            iss.push(path, "is not a table such as { src = \"h1\", dst = \"h0\", size = \"1MB\" }");
            continue;
        };
        let f = Table::new(path, m);
        let host = |key: &'static str, iss: &mut Issues| -> Option<usize> {
            let s = f.need(key, iss, "a host name", as_str)?;
            if nodes.is_empty() {
                return None; // the topology itself is broken and already reported
            }
            match by_name.get(s.as_str()).copied() {
                Some(p) if nodes[p].is_host => Some(p),
                Some(_) => {
                    iss.push(f.key_path(key), format!("'{s}' is a switch; flows run between hosts"));
                    None
                }
                None => {
                    let hint = suggest(&s, &host_names).map(|o| format!("did you mean '{o}'? ")).unwrap_or_default();
                    let range = match (host_names.first(), host_names.last()) {
                        (Some(a), Some(b)) => format!("hosts are {a} .. {b}"),
                        _ => "there are no hosts".into(),
                    };
                    iss.push(f.key_path(key), format!("'{s}' is not a host; {hint}({range})"));
                    None
                }
            }
        };
        let src = host("src", iss);
        let dst = host("dst", iss);
        let size = match f.raw("size") {
            None => None,
            Some(v) if v.as_str() == Some("infinite") => None,
            Some(v) => match as_bytes(v) {
                Ok(0) => {
                    iss.push(f.key_path("size"), "0 B: a flow must carry at least one byte (omit size for a long-lived flow)");
                    None
                }
                Ok(b) => Some(b),
                Err(e) => {
                    iss.push(f.key_path("size"), format!("{e}; or \"infinite\" for a long-lived flow"));
                    None
                }
            },
        };
        let start = f.get("start", iss, as_time).unwrap_or(Time::ZERO);
        let stop = f.get("stop", iss, as_time);
        if let Some(t) = stop.filter(|&t| t <= start) {
            iss.push(f.key_path("stop"), format!("{t} is not after the flow's start ({start})"));
        }
        let deadline = positive_time(&f, "deadline", iss);
        let path = crate::network::source_paths::Pins { forward: f.get("path", iss, as_u64), back: f.get("return_path", iss, as_u64) };
        for (key, pin, what) in [("path", path.forward, "the flow"), ("return_path", path.back, "the flow's return direction")] {
            if let (Some(i), false) = (pin, paths == PathChoice::Flow) {
                iss.push(f.key_path(key), format!("{i} pins {what} to a path, which needs [routing] paths = \"flow\" (the sources choose the paths)"));
            }
        }
        let tname = f.get("transport", iss, as_str).unwrap_or_else(|| "default".into());
        let mut tcp = resolve_transport(&f, &tname, profiles, iss);
        // A flow's own priority class overrides its profile's `class` (TCP: the other transports
        // set their packets' classes themselves).
        match (f.get("priority", iss, as_u64), tcp.as_mut()) {
            (Some(p), _) if p as usize >= crate::queue::CLASSES => {
                iss.push(f.key_path("priority"), format!("{p} is not a class; classes are 0 (most urgent) .. {}", crate::queue::CLASSES - 1))
            }
            (Some(p), Some(TransportConfig::Tcp(c))) => c.class = p as u8,
            (Some(_), Some(other)) => iss.push(f.key_path("priority"), format!("applies to TCP flows; {} sets its packets' priorities itself", other.kind())),
            _ => {}
        }
        let unsized_ = f.raw("size").is_none_or(|v| v.as_str() == Some("infinite"));
        if unsized_ && matches!(tcp, Some(TransportConfig::Homa(_))) {
            iss.push(f.key_path("size"), format!("missing; Homa (transport '{tname}') carries messages of a known length: give a size such as \"1MB\""));
        }
        f.finish(iss);
        if let (Some(s), Some(d)) = (src, dst) {
            if s == d {
                iss.push(f.key_path("dst"), format!("'{}' is also the source; a flow needs two different hosts", nodes[d].name));
                continue;
            }
            if reach.is_some_and(|r| !r.reaches(s, d)) {
                iss.push(f.key_path("dst"), format!("'{}' cannot be reached from '{}': no path through switches", nodes[d].name, nodes[s].name));
                continue;
            }
        }
        if let Some(end) = end {
            if start >= end {
                iss.push(f.key_path("start"), format!("{start} is not before the end of the simulation ({end})"));
                continue;
            }
        }
        if let (Some(src), Some(dst), Some(tcp)) = (src, dst, tcp) {
            out.push(FlowSpec { src, dst, size, start, stop: stop.filter(|&t| t > start), deadline, path, transport: tname, cfg: tcp });
        }
    }
    out
}

/// The sender's flow-scheduling keys (`transport/tcp/priority.rs`) and pFabric's timeout keys.
fn priority_keys(t: &Table, c: &mut TcpConfig, iss: &mut Issues) {
    let n_classes = crate::queue::CLASSES as u64;
    let queues = match t.get("priority_queues", iss, as_positive) {
        Some(n) if n > n_classes => {
            iss.push(t.key_path("priority_queues"), format!("{n} classes; a port has at most {n_classes}"));
            None
        }
        n => n.map(|n| n as u8),
    };
    match t.get("priority", iss, as_choice(&["fixed", "pias", "flash", "flash-ia"])).as_deref() {
        Some("fixed") => c.priority = Priority::Fixed,
        Some("pias") => c.priority = Priority::Mlfq { n: 8, thresholds: priority::pias_thresholds("websearch@0.5").expect("published") },
        Some(p) => c.priority = Priority::Flash { n: 8, t1: scheme::FLASH_T1, e: scheme::FLASH_E, aware: p == "flash-ia" },
        None => {}
    }
    let mlfq_only = |key: &str, c: &TcpConfig, iss: &mut Issues| {
        let ok = matches!(c.priority, Priority::Mlfq { .. });
        if !ok {
            iss.push(t.key_path(key), "applies to PIAS's tagging only: set priority = \"pias\" (or cc = \"pias\" / \"l2dct-pias\")");
        }
        ok
    };
    let flash_only = |key: &str, c: &TcpConfig, iss: &mut Issues| {
        let ok = matches!(c.priority, Priority::Flash { .. });
        if !ok {
            iss.push(t.key_path(key), "applies to Flash's tagging only: set priority = \"flash\" (or cc = \"flash\" / \"flash-ia\")");
        }
        ok
    };
    if let Some(v) = t.raw("pias_thresholds") {
        if mlfq_only("pias_thresholds", c, iss) {
            let parsed: Result<Vec<u64>, String> = match v {
                Value::String(name) => priority::pias_thresholds(name).map(|a| a.to_vec()).ok_or_else(|| {
                    format!("'{name}' is not a published set; known: {} (or a list of sizes)", priority::pias_threshold_names().join(", "))
                }),
                Value::Array(items) => items.iter().map(as_bytes).collect(),
                _ => Err(format!("{} is not a list of sizes nor a set name such as \"websearch@0.6\"", show(v))),
            };
            match parsed {
                Ok(list) if list.is_empty() || list.len() > MAX_THRESHOLDS => iss.push(
                    t.key_path("pias_thresholds"),
                    format!("{} thresholds; give 1 to {MAX_THRESHOLDS} (one fewer than the classes)", list.len()),
                ),
                Ok(list) if list.windows(2).any(|w| w[0] >= w[1]) => {
                    iss.push(t.key_path("pias_thresholds"), "thresholds must increase (α_1 < α_2 < …)")
                }
                Ok(list) => {
                    let mut th = [u64::MAX; MAX_THRESHOLDS];
                    th[..list.len()].copy_from_slice(&list);
                    // A list of k thresholds makes k + 1 classes unless priority_queues says fewer.
                    let n = queues.unwrap_or(list.len() as u8 + 1).min(list.len() as u8 + 1);
                    c.priority = Priority::Mlfq { n, thresholds: th };
                }
                Err(e) => iss.push(t.key_path("pias_thresholds"), e),
            }
        }
    }
    let t1 = t.get("flash_t1", iss, as_bytes);
    let e = t.get("flash_e", iss, as_f64);
    if let Priority::Flash { t1: ft1, e: fe, .. } = &mut c.priority {
        match t1 {
            Some(0) => iss.push(t.key_path("flash_t1"), "must be above 0 (Flash's Table 1: 1.2Mb)"),
            Some(v) => *ft1 = v,
            None => {}
        }
        match e {
            Some(x) if x > 1.0 && x.is_finite() => *fe = x,
            Some(x) => iss.push(t.key_path("flash_e"), format!("{x} is not a threshold ratio above 1 (Flash's Table 1: 3)")),
            None => {}
        }
    } else {
        if t1.is_some() {
            flash_only("flash_t1", c, iss);
        }
        if e.is_some() {
            flash_only("flash_e", c, iss);
        }
    }
    if let Some(n) = queues {
        match &mut c.priority {
            Priority::Mlfq { n: cn, .. } | Priority::Flash { n: cn, .. } => *cn = n,
            Priority::Fixed => {
                iss.push(t.key_path("priority_queues"), "applies to priority = \"pias\", \"flash\" or \"flash-ia\"");
            }
        }
    }
    match t.raw("fixed_rto") {
        Some(Value::String(s)) if s == "off" => c.fixed_rto = FixedRto::Off,
        Some(Value::String(s)) if s.ends_with("rtt") => match s.trim_end_matches("rtt").trim().parse::<f64>() {
            Ok(k) if k > 0.0 && k.is_finite() => c.fixed_rto = FixedRto::Rtts(k),
            _ => iss.push(t.key_path("fixed_rto"), format!("'{s}' is not a positive number of round trips such as \"3rtt\"")),
        },
        Some(v) => match as_time(v) {
            Ok(Time::ZERO) => iss.push(t.key_path("fixed_rto"), "must be above 0"),
            Ok(d) => c.fixed_rto = FixedRto::Time(d),
            Err(e) => iss.push(t.key_path("fixed_rto"), format!("{e}; or \"3rtt\" (round trips of the flow's idle path), or \"off\"")),
        },
        None => {}
    }
    if let Some(v) = t.get("probe_after", iss, as_u64) {
        c.probe_after = v.min(u32::MAX as u64) as u32;
    }
}

/// A transport profile name, or a congestion-control name applied to the default profile.
fn resolve_transport(f: &Table, tname: &str, profiles: &BTreeMap<String, TransportConfig>, iss: &mut Issues) -> Option<TransportConfig> {
    match profiles.get(tname).copied().or_else(|| by_name(tname, &profiles["default"])) {
        Some(c) => Some(c),
        None => {
            let mut known: Vec<&str> = profiles.keys().map(String::as_str).collect();
            known.extend(super::kinds::KINDS[1..].iter());
            known.extend(CC_AND_SCHEME_NAMES.iter());
            let hint = suggest(tname, &known).map(|o| format!("did you mean '{o}'? ")).unwrap_or_default();
            iss.push(f.key_path("transport"), format!("'{tname}' is not a transport profile or congestion control; {hint}known: {}", known.join(", ")));
            None
        }
    }
}

/// A transport kind, congestion control or scheme by name, over the default profile `default`.
fn by_name(tname: &str, default: &TransportConfig) -> Option<TransportConfig> {
    match tname {
            // A transport kind's name: its defaults.
            _ if super::kinds::default_of(tname).is_some() => super::kinds::default_of(tname),
            // A congestion-control name selects the default profile (if TCP) with that algorithm.
            _ if CC_NAMES.contains(&tname) => {
                let mut c = default.tcp().copied().unwrap_or_default();
                c.cc = CcKind::from_name(tname).expect("CC_NAMES are known");
                c.cc_params = Default::default();
                c.scheme = None;
                c.ecn = match c.cc {
                    k if k.uses_dctcp_ecn() => EcnMode::Dctcp,
                    _ if c.ecn == EcnMode::Classic => EcnMode::Classic,
                    _ => EcnMode::Off,
                };
                c.handshake |= c.cc == CcKind::Sab;
                Some(TransportConfig::Tcp(c))
            }
            // A scheme name: the default profile turned into that scheme.
            _ if scheme::scheme(tname).is_some() => {
                let base = default.tcp().copied().unwrap_or_default();
                Some(TransportConfig::Tcp(scheme::scheme(tname).expect("checked").config(base)))
            }
            _ => None,
    }
}

/// Host names: "all" (every host, minus `except`) or a list.
fn host_list(t: &Table, key: &'static str, nodes: &[NodeSpec], except: Option<usize>, iss: &mut Issues) -> Vec<usize> {
    let all = || (0..nodes.len()).filter(|&i| nodes[i].is_host && Some(i) != except).collect::<Vec<_>>();
    match t.raw(key) {
        None => all(),
        Some(Value::String(s)) if s == "all" => all(),
        Some(Value::Array(a)) => {
            let mut out = Vec::new();
            for (i, v) in a.iter().enumerate() {
                let path = format!("{}[{i}]", t.key_path(key));
                match as_str(v) {
                    Ok(name) => match nodes.iter().position(|n| n.name == name && n.is_host) {
                        Some(p) => out.push(p),
                        None => iss.push(path, format!("'{name}' is not a host")),
                    },
                    Err(e) => iss.push(path, e),
                }
            }
            out
        }
        Some(v) => {
            iss.push(t.key_path(key), format!("{} is not \"all\" or a list of host names", show(v)));
            vec![]
        }
    }
}

fn one_host(t: &Table, key: &'static str, nodes: &[NodeSpec], iss: &mut Issues) -> Option<usize> {
    let name = t.need(key, iss, "a host name", as_str)?;
    match nodes.iter().position(|n| n.name == name && n.is_host) {
        Some(p) => Some(p),
        None => {
            if !nodes.is_empty() {
                iss.push(t.key_path(key), format!("'{name}' is not a host"));
            }
            None
        }
    }
}

fn load_cdf(t: &Table, iss: &mut Issues) -> Option<crate::workload::Cdf> {
    use crate::workload::{builtin, Cdf};
    let name = t.need("cdf", iss, "a built-in distribution such as \"websearch\", a path to a .cdf file, or size = \"2KB\" for fixed-size flows", as_str)?;
    if let Some(text) = builtin::text(&name) {
        return Some(Cdf::parse(&name, text).expect("built-in CDFs are valid"));
    }
    if name.ends_with(".cdf") || name.contains('/') {
        return match std::fs::read_to_string(&name) {
            Ok(text) => match Cdf::parse(&name, &text) {
                Ok(c) => Some(c),
                Err(e) => {
                    iss.push(t.key_path("cdf"), format!("'{name}': {e}"));
                    None
                }
            },
            Err(e) => {
                iss.push(t.key_path("cdf"), format!("cannot read '{name}': {e}"));
                None
            }
        };
    }
    let names = builtin::names();
    let hint = suggest(&name, &names).map(|o| format!("did you mean '{o}'? ")).unwrap_or_default();
    iss.push(t.key_path("cdf"), format!("'{name}' is not a built-in distribution or a .cdf file; {hint}built-ins: {}", names.join(", ")));
    None
}

/// An optional duration that must be above zero.
fn positive_time(t: &Table, key: &'static str, iss: &mut Issues) -> Option<Time> {
    match t.get(key, iss, as_time) {
        Some(Time::ZERO) => {
            iss.push(t.key_path(key), "'0' is not a positive duration");
            None
        }
        d => d,
    }
}

fn tables<'a>(t: &Table<'a>, key: &'static str, iss: &mut Issues) -> Vec<Table<'a>> {
    match t.raw(key) {
        None => vec![],
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .filter_map(|(i, v)| match v {
                Value::Object(m) => Some(Table::new(format!("{key}[{i}]"), m)),
                _ => {
                    iss.push(format!("{key}[{i}]"), format!("{} is not a table", show(v)));
                    None
                }
            })
            .collect(),
        Some(v) => {
            iss.push(key, format!("{} is not a list of [[{key}]] tables", show(v)));
            vec![]
        }
    }
}

fn workloads(t: &Table, nodes: &[NodeSpec], profiles: &BTreeMap<String, TransportConfig>, end: Option<Time>, iss: &mut Issues) -> Vec<WorkloadSpec> {
    use crate::workload::Sampling;
    let mut out = Vec::new();
    for (i, w) in tables(t, "workload", iss).into_iter().enumerate() {
        let cdf = match w.get("size", iss, as_bytes) {
            Some(0) => {
                iss.push(w.key_path("size"), "0 B: a flow must carry at least one byte");
                None
            }
            Some(b) if w.has("cdf") => {
                iss.push(w.key_path("size"), format!("{b} B conflicts with cdf: give a fixed size or a distribution"));
                None
            }
            Some(b) => Some(crate::workload::Cdf::fixed(b as f64)),
            None => load_cdf(&w, iss),
        };
        let cdf = match (cdf, w.raw("size_range")) {
            (c, None) => c,
            (c, Some(v)) => {
                let mut reported = false;
                let range = match v {
                    Value::Array(a) if a.len() == 2 => match (as_bytes(&a[0]), as_bytes(&a[1])) {
                        (Ok(lo), Ok(hi)) if lo <= hi => Some((lo, hi)),
                        (Ok(lo), Ok(hi)) => {
                            iss.push(w.key_path("size_range"), format!("[{}, {}] is reversed: the minimum {lo} B is above the maximum {hi} B; write [{}, {}]", show(&a[0]), show(&a[1]), show(&a[1]), show(&a[0])));
                            reported = true;
                            None
                        }
                        (Err(e), _) | (_, Err(e)) => {
                            iss.push(w.key_path("size_range"), e);
                            reported = true;
                            None
                        }
                    },
                    _ => None,
                };
                match (c, range) {
                    (Some(c), Some((lo, hi))) => c.truncated(lo as f64, hi as f64).or_else(|| {
                        iss.push(w.key_path("size_range"), format!("'{}' has no flows between {lo} B and {hi} B", c.name));
                        None
                    }),
                    (_, None) => {
                        if !reported {
                            iss.push(w.key_path("size_range"), format!("{} is not [min, max] sizes such as [\"100KB\", \"1MB\"]", show(v)));
                        }
                        None
                    }
                    (None, _) => None,
                }
            }
        };
        let name = w.get("name", iss, as_str).unwrap_or_else(|| cdf.as_ref().map_or(format!("workload{i}"), |c| c.name.clone()));
        let sampling = match w.get("sampling", iss, as_choice(&["linear", "step"])).as_deref() {
            Some("step") => Sampling::Step,
            _ => Sampling::Linear,
        };
        let load = w.need("load", iss, "a fraction of the senders' host-link capacity, e.g. 0.5", as_f64);
        if let Some(l) = load {
            if !(l > 0.0 && l <= 1.0) {
                iss.push(w.key_path("load"), format!("{l} is not a load in (0, 1]"));
            }
        }
        let pattern_name = w.get("pattern", iss, as_choice(&["all_to_all", "permutation", "many_to_one"])).unwrap_or_else(|| "all_to_all".into());
        let (pattern, except) = if pattern_name == "many_to_one" {
            match one_host(&w, "receiver", nodes, iss) {
                Some(r) => (Some(Pattern::ManyToOne(r)), Some(r)),
                None => (None, None),
            }
        } else {
            (Some(if pattern_name == "permutation" { Pattern::Permutation } else { Pattern::AllToAll }), None)
        };
        let senders = host_list(&w, "senders", nodes, except, iss);
        let receivers = match &pattern {
            Some(Pattern::ManyToOne(r)) => vec![*r],
            _ => host_list(&w, "receivers", nodes, None, iss),
        };
        let start = w.get("start", iss, as_time).unwrap_or(Time::ZERO);
        let deadline = match (positive_time(&w, "deadline", iss), positive_time(&w, "deadline_per_kb", iss)) {
            (Some(_), Some(_)) => {
                iss.push(w.key_path("deadline_per_kb"), "conflicts with deadline; give a fixed deadline or one per KB of flow size");
                None
            }
            (Some(d), None) => Some(Deadline::Fixed(d)),
            (None, Some(d)) => Some(Deadline::PerKb(d)),
            (None, None) => None,
        };
        let stop = w.get("stop", iss, as_time).or(end).unwrap_or(Time::MAX);
        let max_flows = w.get("flows", iss, as_positive);
        let tname = w.get("transport", iss, as_str).unwrap_or_else(|| "default".into());
        let tcp = resolve_transport(&w, &tname, profiles, iss);
        let persistent = w.get("connections", iss, as_choice(&["per_flow", "persistent"])).is_some_and(|c| c == "persistent");
        if persistent && tcp.is_some_and(|c| c.tcp().is_none()) {
            iss.push(w.key_path("connections"), format!("\"persistent\" needs a TCP transport; '{tname}' has no connection to reuse (remove connections = \"persistent\")"));
        }
        if !nodes.is_empty() {
            let distinct = senders.iter().any(|s| receivers.iter().any(|r| r != s));
            if !distinct {
                iss.push(w.key_path("senders"), "needs at least one sender with a receiver other than itself");
            }
            if pattern == Some(Pattern::Permutation) && (senders.len() != receivers.len() || senders.len() < 2) {
                iss.push(w.key_path("receivers"), format!("a permutation needs as many receivers as senders (at least 2); got {} and {}", senders.len(), receivers.len()));
            }
        }
        if let Some(end) = end {
            if start >= end {
                iss.push(w.key_path("start"), format!("{start} is not before the end of the simulation ({end})"));
            }
        }
        if stop <= start {
            iss.push(w.key_path("stop"), format!("{stop} is not after start {start}"));
        }
        w.finish(iss);
        // Homa's unscheduled cut-offs come from the sizes this workload draws (SIGCOMM 2018 §3.4).
        let tcp = match (tcp, cdf.as_ref()) {
            (Some(TransportConfig::Homa(h)), Some(cdf)) => Some(TransportConfig::Homa(h.with_cutoffs_from(cdf, sampling))),
            (t, _) => t,
        };
        if let (Some(cdf), Some(load), Some(pattern), Some(tcp)) = (cdf, load, pattern, tcp) {
            out.push(WorkloadSpec { name, cdf, sampling, load, pattern, senders, receivers, start, stop, max_flows, deadline, transport: tname, cfg: tcp, persistent });
        }
    }
    out
}

fn incasts(t: &Table, nodes: &[NodeSpec], profiles: &BTreeMap<String, TransportConfig>, end: Option<Time>, iss: &mut Issues) -> Vec<IncastSpec> {
    let mut out = Vec::new();
    for (i, w) in tables(t, "incast", iss).into_iter().enumerate() {
        let name = w.get("name", iss, as_str).unwrap_or_else(|| format!("incast{i}"));
        let receiver = one_host(&w, "receiver", nodes, iss);
        let senders = match w.raw("senders") {
            // A count: the first N hosts other than the receiver.
            Some(Value::Number(_)) => match w.get("senders", iss, as_positive) {
                Some(n) => {
                    let all: Vec<usize> = (0..nodes.len()).filter(|&k| nodes[k].is_host && Some(k) != receiver).collect();
                    if n as usize > all.len() {
                        iss.push(w.key_path("senders"), format!("{n} senders, but only {} other hosts exist", all.len()));
                    }
                    all.into_iter().take(n as usize).collect()
                }
                None => vec![],
            },
            _ => host_list(&w, "senders", nodes, receiver, iss),
        };
        let block = w.need("block", iss, "the response size per sender, e.g. '256KB'", as_bytes);
        if block == Some(0) {
            iss.push(w.key_path("block"), "0 B: a response must carry at least one byte");
        }
        let rounds = w.get("rounds", iss, as_positive);
        let start = w.get("start", iss, as_time).unwrap_or(Time::ZERO);
        let gap = w.get("gap", iss, as_time).unwrap_or(Time::ZERO);
        let persistent = w.get("connections", iss, as_choice(&["per_round", "persistent"])).is_some_and(|c| c == "persistent");
        let tname = w.get("transport", iss, as_str).unwrap_or_else(|| "default".into());
        let tcp = resolve_transport(&w, &tname, profiles, iss);
        if let (Some(r), false) = (receiver, senders.is_empty()) {
            if senders.contains(&r) {
                iss.push(w.key_path("senders"), "the receiver cannot also be a sender");
            }
        }
        if let Some(end) = end {
            if start >= end {
                iss.push(w.key_path("start"), format!("{start} is not before the end of the simulation ({end})"));
            }
        }
        w.finish(iss);
        if persistent && tcp.is_some_and(|c| c.tcp().is_none()) {
            iss.push(w.key_path("connections"), format!("\"persistent\" needs a TCP transport; '{tname}' sends each block as its own flow (remove connections = \"persistent\")"));
        }
        if let (Some(receiver), Some(block), Some(tcp)) = (receiver, block.filter(|&b| b > 0), tcp) {
            if !senders.is_empty() {
                out.push(IncastSpec { name, receiver, senders, block, rounds, start, gap, persistent, transport: tname, cfg: tcp });
            }
        }
    }
    out
}

/// `[sab]`: SAB's switch parameters. Present, or implied by a transport profile with `cc = "sab"`.
fn sab_section(t: &Table, uses_sab: bool, switch_buffer_limited: bool, iss: &mut Issues) -> Option<crate::switch::sab::SabSpec> {
    let tbl = t.table("sab", iss);
    if tbl.is_none() && !uses_sab {
        return None;
    }
    let mut spec = crate::switch::sab::SabSpec::default();
    if let Some(s) = tbl {
        if let Some(e) = s.get("epsilon", iss, as_f64) {
            if e > 0.0 && e <= 1.0 {
                spec.epsilon = e;
            } else {
                iss.push(s.key_path("epsilon"), format!("{e} is not a share of the buffer in (0, 1] (eq. (2): CD_max/B <= epsilon <= 1; the paper uses 0.5)"));
            }
        }
        match s.get("buffer", iss, as_bytes) {
            Some(0) => iss.push(s.key_path("buffer"), "0 B: SAB hands out a share of a buffer, which must hold something"),
            b => spec.buffer = b,
        }
        if let Some(e) = s.get("count_error", iss, as_f64) {
            if e > -1.0 && e.is_finite() {
                spec.count_error = e;
            } else {
                iss.push(s.key_path("count_error"), format!("{e} is not a relative error above -1 (the estimate is N x (1 + error))"));
            }
        }
        s.finish(iss);
    }
    if spec.buffer.is_none() && !switch_buffer_limited {
        iss.push("sab.buffer", "SAB allocates a share of each switch port's buffer, but [queue] buffer is \"unlimited\"; set sab.buffer (e.g. \"512KB\") or a finite queue buffer");
    }
    Some(spec)
}

/// Every pair of hosts a `[[workload]]` or `[[incast]]` may put a flow between must reach each
/// other (listed flows are checked one by one in `flows`): on a split topology a generated flow
/// to the other part would have no route.
fn generated_pairs_reach(workloads: &[WorkloadSpec], incasts: &[IncastSpec], reach: &topology::Reach, nodes: &[NodeSpec], iss: &mut Issues) {
    let tables = workloads.iter().enumerate().map(|(i, w)| (format!("workload[{i}]"), &w.senders, w.receivers.clone()));
    let tables = tables.chain(incasts.iter().enumerate().map(|(i, a)| (format!("incast[{i}]"), &a.senders, vec![a.receiver])));
    for (path, senders, receivers) in tables {
        if let Some((s, d)) = reach.unreachable_pair(senders, &receivers) {
            iss.push(path, format!(
                "'{}' cannot reach '{}' (no path through switches), but this traffic may put a flow between them; restrict senders and receivers to hosts that reach each other",
                nodes[s].name, nodes[d].name
            ));
        }
    }
}

/// `[pfc]`: Priority Flow Control at every switch (`switch/pfc.rs`). A PFC fabric does not drop,
/// so every port's queue must be unlimited and keep every packet; hybrid networks (their ToRs
/// queue by rack pair) are refused, and so is NDP (`ndp`: the name of a profile using it), which
/// relies on a fabric that trims.
fn pfc_section(t: &Table, topo: Option<&TopologySpec>, ndp: Option<&str>, iss: &mut Issues) -> Option<crate::switch::pfc::PfcSpec> {
    let s = t.table("pfc", iss)?;
    let xoff = s.need("xoff", iss, "an amount such as \"135KB\" or \"15pkt\" (pause the upstream above it)", as_amount);
    let xon = s.need("xon", iss, "an amount such as \"108KB\" or \"12pkt\" (resume below it)", as_amount);
    let stop_senders = s.get("stop_senders", iss, as_bool).unwrap_or(false);
    s.finish(iss);
    let (xoff, xon) = (xoff?, xon?);
    let n = |a: Amount| match a {
        Amount::Packets(n) | Amount::Bytes(n) => n,
    };
    if !super::queues::same_unit(xon, xoff) {
        let unit = |a: Amount| if matches!(a, Amount::Packets(_)) { "packets" } else { "bytes" };
        iss.push(s.key_path("xon"), format!(
            "{} is in {} but xoff ({}) in {}: give both in packets (\"12pkt\", \"15pkt\") or both in bytes (\"108KB\", \"135KB\")",
            crate::queue::describe::amount(xon), unit(xon), crate::queue::describe::amount(xoff), unit(xoff)
        ));
    } else if n(xon) == 0 {
        iss.push(s.key_path("xon"), "0: an ingress never holds less than nothing, so a paused port would never resume; use a positive amount such as \"108KB\"");
    } else if n(xon) > n(xoff) {
        iss.push(s.key_path("xon"), format!("{} is above xoff ({}): the upstream would resume before the pause; use an amount at or below xoff", crate::queue::describe::amount(xon), crate::queue::describe::amount(xoff)));
    }
    if let Some(name) = ndp {
        iss.push("pfc", format!("not with NDP (transport '{name}'): NDP relies on switches that trim its packets when a queue fills and return the headers, which a lossless fabric never lets happen; use PFC with TCP, DCTCP or HPCC"));
    } else if let Some(topo) = topo {
        if topo.rdcn.is_some() {
            iss.push("pfc", "not available in hybrid networks (kind = \"rdcn\"): their ToRs queue by rack pair, not by ingress");
        } else if topo.shared_buffer.is_some() {
            iss.push("pfc", "a PFC fabric does not drop, but [switch] shared_buffer sets dynamic thresholds that do; remove it");
        } else {
            let name = |i: usize| topo.nodes[i].name.as_str();
            let mut ports = topo.links.iter().flat_map(|l| [(l.a, l.b, &l.queue_ab), (l.b, l.a, &l.queue_ba)]);
            let trims = |q: &crate::queue::QueueSpec| matches!(q.admission, crate::queue::Admission::Trim { .. });
            if let Some((a, b, _)) = ports.clone().find(|(_, _, q)| trims(q)) {
                iss.push("pfc", format!("not with trimming queues (port {}->{} has admission = \"trim\"): a trimming queue cuts packets to headers when it fills, which a lossless fabric never lets happen, and the cut would change a packet's size under its ingress count; use admission = \"droptail\"", name(a), name(b)));
            } else if let Some((port, what)) = ports.find_map(|(a, b, q)| queue_drops(q).map(|w| ((a, b), w))) {
                iss.push("pfc", format!("a PFC fabric does not drop, but port {}->{} has {what}", name(port.0), name(port.1)));
            }
        }
    }
    Some(crate::switch::pfc::PfcSpec { xoff, xon, stop_senders })
}

/// What in a port's queue can drop a packet, if anything.
fn queue_drops(q: &crate::queue::QueueSpec) -> Option<String> {
    const UNLIMITED: &str = "make its queue unlimited ([queue] or [host_queue] buffer = \"unlimited\")";
    if let Some(l) = q.limit {
        return Some(format!("a {} buffer; {UNLIMITED}", crate::queue::describe::amount(l)));
    }
    if q.queue_limits.iter().any(Option::is_some) {
        return Some(format!("per-queue limits; {UNLIMITED} and remove queue_buffer"));
    }
    if q.selective_drop.is_some() {
        return Some("selective_drop; remove it".into());
    }
    if q.random_drop.is_some() {
        return Some("random_drop; remove it or set random_drop = \"off\"".into());
    }
    if matches!(q.marking, crate::queue::Marking::Red(_)) {
        return Some("RED (which drops packets that are not ECN-capable); use step marking (discipline = \"ecn\")".into());
    }
    None
}

/// Memory the time series may take unless `[output] memory_budget` says otherwise.
pub const DEFAULT_OUTPUT_BUDGET: u64 = 4_000_000_000;
/// What one time-series row costs at its peak, when the engine's columns become Python lists and
/// then a pandas frame (measured: about 150-200 B).
pub const BYTES_PER_SERIES_ROW: u64 = 200;

/// A list of flow numbers, or "all" (the listed flows).
fn flow_list(t: &Table, key: &'static str, n_flows: usize, iss: &mut Issues) -> Vec<usize> {
    let mut out = Vec::new();
    match t.raw(key) {
        None => {}
        Some(Value::String(s)) if s == "all" => out = (0..n_flows).collect(),
        Some(Value::Array(a)) => {
            for (i, x) in a.iter().enumerate() {
                match as_u64(x) {
                    Ok(k) if (k as usize) < n_flows => out.push(k as usize),
                    Ok(k) => iss.push(format!("{}[{i}]", t.key_path(key)), format!("there is no flow {k} (flows are numbered 0 .. {})", n_flows.saturating_sub(1))),
                    Err(e) => iss.push(format!("{}[{i}]", t.key_path(key)), e),
                }
            }
        }
        Some(v) => iss.push(t.key_path(key), format!("{} is not a list of flow numbers or \"all\"", show(v))),
    }
    out
}

fn output(t: &Table, net: Option<&crate::network::Network>, n_flows: usize, end: Option<Time>, voqs: u64, iss: &mut Issues) -> OutputSpec {
    let mut o = OutputSpec::default();
    let Some(ot) = t.table("output", iss) else { return o };
    o.sample_interval = ot.get("sample_interval", iss, as_time);
    let budget = ot.get("memory_budget", iss, as_bytes).unwrap_or(DEFAULT_OUTPUT_BUDGET);
    o.warmup = ot.get("warmup", iss, as_time).unwrap_or(Time::ZERO);
    o.cooldown = ot.get("cooldown", iss, as_time).unwrap_or(Time::ZERO);
    if o.sample_interval == Some(Time::ZERO) {
        iss.push(ot.key_path("sample_interval"), "must be above 0");
        o.sample_interval = None;
    }
    if let Some(v) = ot.raw("queues") {
        match v {
            Value::Array(a) => {
                for (i, q) in a.iter().enumerate() {
                    let path = format!("{}[{i}]", ot.key_path("queues"));
                    match (as_str(q), net) {
                        (Ok(name), Some(net)) => {
                            if net.port_by_name(&name).is_some() {
                                o.queues.push(name);
                            } else {
                                let names: Vec<&str> = net.ports.iter().map(|p| p.name.as_str()).collect();
                                let hint = suggest(&name, &names).map(|s| format!("; did you mean '{s}'?")).unwrap_or_default();
                                iss.push(path, format!("'{name}' is not a port (ports are named 'node->peer', e.g. '{}'){hint}", names.first().unwrap_or(&"s0->h0")));
                            }
                        }
                        (Err(e), _) => iss.push(path, e),
                        _ => {}
                    }
                }
            }
            _ => iss.push(ot.key_path("queues"), format!("{} is not a list of port names", show(v))),
        }
    }
    o.flows = flow_list(&ot, "flows", n_flows, iss);
    if let Some(pt) = ot.table("pcap", iss) {
        o.pcap = crate::capture::spec_from_table(&pt, net, n_flows, t.has("workload") || t.has("incast"), end, iss);
    }
    if let Some(v) = ot.raw("cwnd") {
        match v {
            Value::String(s) if s == "all" => o.cwnd = (0..n_flows).collect(),
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    match as_u64(x) {
                        Ok(k) if (k as usize) < n_flows => o.cwnd.push(k as usize),
                        Ok(k) => iss.push(format!("{}[{i}]", ot.key_path("cwnd")), format!("there is no flow {k} (flows are numbered 0 .. {})", n_flows.saturating_sub(1))),
                        Err(e) => iss.push(format!("{}[{i}]", ot.key_path("cwnd")), e),
                    }
                }
            }
            _ => iss.push(ot.key_path("cwnd"), format!("{} is not a list of flow numbers or \"all\"", show(v))),
        }
    }
    if o.sample_interval.is_none() && (!o.queues.is_empty() || !o.cwnd.is_empty() || !o.flows.is_empty()) && !ot.has("sample_interval") {
        iss.push(ot.key_path("sample_interval"), "missing; time series need an interval such as '10us'");
    }
    if let (Some(iv), Some(end)) = (o.sample_interval, end) {
        // Every sample is an event and at least one row, even with nothing listed to sample.
        let per_sample = (3 * o.queues.len() as u64 + 2 * o.cwnd.len() as u64 + 3 * o.flows.len() as u64 + voqs).max(1);
        let samples = end.0 / iv.0 + 1;
        let rows = samples.saturating_mul(per_sample);
        let need = rows.saturating_mul(BYTES_PER_SERIES_ROW);
        if need > budget {
            let fits = nice_up(end.0.saturating_mul(per_sample).saturating_mul(BYTES_PER_SERIES_ROW) / budget.max(1) + 1);
            iss.push(
                ot.key_path("sample_interval"),
                format!(
                    "'{iv}' over {end} gives {samples} samples x {per_sample} series = {rows} rows, about {} at {BYTES_PER_SERIES_ROW} B per row, above output.memory_budget ({}); sample every {fits} or more, or raise output.memory_budget",
                    fmt_bytes(need),
                    fmt_bytes(budget)
                ),
            );
            o.sample_interval = None;
        }
    }
    ot.finish(iss);
    o
}

/// The smallest 1, 2 or 5 times a power of ten picoseconds at or above `ps`.
fn nice_up(ps: u64) -> Time {
    let mut p = 1u64;
    loop {
        for m in [1, 2, 5] {
            if p.saturating_mul(m) >= ps {
                return Time(p.saturating_mul(m));
            }
        }
        if p > u64::MAX / 10 {
            return Time(ps);
        }
        p *= 10;
    }
}

fn fmt_bytes(b: u64) -> String {
    let (v, u) = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "KB")].iter().map(|&(k, u)| (b as f64 / k, u)).find(|(v, _)| *v >= 1.0).unwrap_or((b as f64, "B"));
    format!("{v:.3}{u}")
}

fn faults(t: &Table, net: Option<&crate::network::Network>, iss: &mut Issues) -> Vec<FaultSpec> {
    let mut out = Vec::new();
    let items = match t.raw("faults") {
        None => return out,
        Some(Value::Array(a)) => a,
        Some(v) => {
            iss.push("faults", format!("{} is not a list of [[faults]] tables", show(v)));
            return out;
        }
    };
    for (i, item) in items.iter().enumerate() {
        let path = format!("faults[{i}]");
        let Value::Object(m) = item else {
            iss.push(path, "is not a table such as { port = \"h1->s0\", drop_packets = [20] }");
            continue;
        };
        let f = Table::new(path, m);
        let port = f.need("port", iss, "a port name such as 'h1->s0'", as_str);
        let drops = f.need("drop_packets", iss, "a list of packet numbers (0 = first packet sent on the port)", |v| match v {
            Value::Array(a) => a.iter().map(as_u64).collect::<Result<Vec<_>, _>>(),
            _ => Err(format!("{} is not a list of packet numbers", show(v))),
        });
        if let (Some(port), Some(net)) = (&port, net) {
            if net.port_by_name(port).is_none() {
                let names: Vec<&str> = net.ports.iter().map(|p| p.name.as_str()).collect();
                let hint = suggest(port, &names).map(|s| format!("; did you mean '{s}'?")).unwrap_or_default();
                iss.push(f.key_path("port"), format!("'{port}' is not a port (ports are named 'node->peer'){hint}"));
            }
        }
        f.finish(iss);
        if let (Some(port), Some(drop_packets)) = (port, drops) {
            out.push(FaultSpec { port, drop_packets });
        }
    }
    out
}
