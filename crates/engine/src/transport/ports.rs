//! What a transport needs of the switch ports, and the port setup its paper configures.
//!
//! Every transport, congestion control and scheme declares a [`PaperPorts`] beside its own code
//! (`ndp::PORTS`, `homa::PORTS`, `cc/dctcp.rs`'s `PORTS`, a `Scheme`'s `ports`); the registries
//! collect them and [`super::TransportConfig::paper_ports`] finds a profile's. Three readers:
//! `scenario/warnings.rs` checks a run's ports against [`Needs`]; `fabricsim compare --ports
//! paper` gives each transport the setup of `setup`, as a profile's `ports` table (the keys of
//! `[queue]`); `fabricsim list transports` / `list cc` print `summary`.
//!
//! A setup may depend on the fabric (DCTCP's K on the link rate and round trip): `setup` reads a
//! [`Fabric`] computed from the scenario and says in its `note` which values it chose and why.

use super::TransportConfig;
use crate::queue::Amount;
use crate::scenario::Scenario;
use crate::time::{Rate, Time};
use serde_json::{json, Map, Value};

/// What the switch ports must provide for a transport to work as its paper describes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// ECN marking somewhere on the path (DCTCP and the schemes built on it).
    pub marking: bool,
    /// Payload trimming (`admission = "trim"`: NDP).
    pub trimming: bool,
    /// At least this many queues (the classes it tags); 1 = any port. Homa's is its `priorities`.
    pub queues: u8,
    /// pFabric's rank admission and dequeue (`admission = "pfabric"`).
    pub rank_admission: bool,
    /// Aeolus's selective dropping (`selective_drop`).
    pub selective_drop: bool,
    /// In-band telemetry at every egress (HPCC). Every switch port of this engine records it for
    /// packets that ask, so nothing in a scenario can take it away; declared for the listing.
    pub telemetry: bool,
}

impl Needs {
    /// Nothing beyond one FIFO.
    pub const NONE: Needs = Needs { marking: false, trimming: false, queues: 1, rank_admission: false, selective_drop: false, telemetry: false };

    /// The needs in words ("ECN marking, 8 queues"), "nothing beyond a FIFO" when there are none.
    pub fn describe(&self) -> String {
        let mut out = Vec::new();
        if self.marking {
            out.push("ECN marking".to_string());
        }
        if self.trimming {
            out.push("trimming".to_string());
        }
        if self.queues > 1 {
            out.push(format!("{} queues", self.queues));
        }
        if self.rank_admission {
            out.push("rank admission".to_string());
        }
        if self.selective_drop {
            out.push("selective dropping".to_string());
        }
        if self.telemetry {
            out.push("in-band telemetry".to_string());
        }
        if out.is_empty() {
            "nothing beyond a FIFO".to_string()
        } else {
            out.join(", ")
        }
    }
}

/// The fabric a paper setup is computed for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fabric {
    /// The fastest host link: the rate of the ports where incast queues build.
    pub rate: Rate,
    /// Idle round trip of a 1500 B packet and a 64 B ACK between the two hosts farthest apart
    /// (from the first host, in links).
    pub rtt: Time,
    /// The switch ports' buffer as `[queue]` sets it (`None`: unlimited).
    pub buffer: Option<Amount>,
}

/// Packet and ACK sizes of [`Fabric::rtt`] and the packet unit of the K rules (DCTCP §3.4).
pub const PACKET_BYTES: u64 = 1500;
pub const ACK_BYTES: u64 = 64;

impl Fabric {
    /// The fabric of a validated scenario.
    pub fn of(s: &Scenario) -> Fabric {
        let t = &s.topology;
        let is_host = |i: usize| t.nodes[i].is_host;
        let rate = Rate(t.links.iter().filter(|l| is_host(l.a) || is_host(l.b)).map(|l| l.rate.0).max().unwrap_or(10_000_000_000));
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); t.nodes.len()];
        for (i, l) in t.links.iter().enumerate() {
            adj[l.a].push(i);
            adj[l.b].push(i);
        }
        // Breadth-first from the first host (hosts do not forward); the host reached last is
        // the farthest in links, and its round trip adds each link's both ways.
        let start = (0..t.nodes.len()).find(|&i| is_host(i)).unwrap_or(0);
        let mut rtt: Vec<Option<Time>> = vec![None; t.nodes.len()];
        rtt[start] = Some(Time::ZERO);
        let mut todo = std::collections::VecDeque::from([start]);
        let mut far = Time::ZERO;
        while let Some(u) = todo.pop_front() {
            let here = rtt[u].unwrap_or(Time::ZERO);
            for &li in &adj[u] {
                let l = &t.links[li];
                let v = if l.a == u { l.b } else { l.a };
                if rtt[v].is_some() {
                    continue;
                }
                let back = l.reverse.map_or(l.rate, |(r, _)| r);
                let there = here + l.delay + l.reverse.map_or(l.delay, |(_, d)| d) + l.rate.serialization(PACKET_BYTES) + back.serialization(ACK_BYTES);
                rtt[v] = Some(there);
                if is_host(v) {
                    far = there;
                } else {
                    todo.push_back(v);
                }
            }
        }
        let buffer = t.links.iter().find_map(|l| if !is_host(l.a) { Some(l.queue_ab.limit) } else if !is_host(l.b) { Some(l.queue_ba.limit) } else { None }).flatten();
        Fabric { rate, rtt: far, buffer }
    }

    /// C·RTT in packets of [`PACKET_BYTES`].
    pub fn bdp_packets(&self) -> f64 {
        self.rate.0 as f64 * self.rtt.secs_f64() / 8.0 / PACKET_BYTES as f64
    }

    /// The buffer in packets of [`PACKET_BYTES`] (None: unlimited).
    pub fn buffer_packets(&self) -> Option<u64> {
        self.buffer.map(|b| match b {
            Amount::Packets(n) => n,
            Amount::Bytes(b) => b / PACKET_BYTES,
        })
    }

    /// "40 Gb/s, 8.9 us" for notes.
    pub fn describe(&self) -> String {
        format!("{:.0} Gb/s, {:.1} us", self.rate.0 as f64 / 1e9, self.rtt.secs_f64() * 1e6)
    }
}

/// A port setup: the keys of a `[queue]` table for every switch port (a profile's `ports`), of a
/// `[host_queue]` table when the hosts need more than one FIFO, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct PortSetup {
    pub ports: Map<String, Value>,
    pub host_ports: Option<Map<String, Value>>,
    /// The values computed from the fabric and the rule or paper that gave them.
    pub note: String,
}

impl PortSetup {
    /// The `ports` and `host_ports` tables as JSON text.
    pub fn tables_json(&self) -> (String, Option<String>) {
        let obj = |m: &Map<String, Value>| Value::Object(m.clone()).to_string();
        (obj(&self.ports), self.host_ports.as_ref().map(obj))
    }
}

/// A transport's declaration: what it needs of the ports and the setup its paper configures.
#[derive(Clone, Copy)]
pub struct PaperPorts {
    pub needs: Needs,
    /// The setup in words with its source, for `fabricsim list`.
    pub summary: &'static str,
    pub setup: fn(&TransportConfig, &Fabric) -> PortSetup,
}

/// Keys from `(name, value)` pairs.
pub fn keys(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

/// One drop-tail FIFO: what the TCP variants ran on. (Setups list only the keys that differ
/// from one drop-tail FIFO, over which a profile's `ports` are read.)
pub fn drop_tail(_: &TransportConfig, _: &Fabric) -> PortSetup {
    PortSetup { ports: Map::new(), host_ports: None, note: "drop-tail FIFO".into() }
}

/// Loss-based and delay-based TCP: one drop-tail FIFO.
pub const DROP_TAIL: PaperPorts = PaperPorts { needs: Needs::NONE, summary: "one drop-tail FIFO (no switch support)", setup: drop_tail };

/// DCTCP's marking threshold K for a fabric, in packets, and why (Alizadeh et al., SIGCOMM 2010
/// §3.4, eq. (15)): full throughput needs K > C·RTT/7; the paper ran K = 20 packets at 1 Gb/s and
/// 65 at 10 Gb/s, above the bound for its burstier 10 Gb/s hosts. K is the larger of the bound and
/// the paper's value for the rate (20 below 10 Gb/s, 65 from 10 Gb/s), kept below the buffer.
pub fn dctcp_k(f: &Fabric) -> (u64, String) {
    let bound = (f.bdp_packets() / 7.0).floor() as u64 + 1;
    let paper = if f.rate.0 < 10_000_000_000 { 20 } else { 65 };
    let k = bound.max(paper);
    let why = format!("DCTCP §3.4: K > C·RTT/7 = {:.1} pkt at {}; the paper's {paper} pkt at {}", f.bdp_packets() / 7.0, f.describe(),
                      if paper == 20 { "1 Gb/s" } else { "10 Gb/s" });
    match f.buffer_packets() {
        Some(b) if k >= b => {
            let fit = (b / 2).max(1);
            (fit, format!("K = {fit} pkt, half the {b}-packet buffer, which cannot hold {k} ({why})"))
        }
        _ => (k, format!("K = {k} pkt ({why})")),
    }
}

/// `"65pkt"`.
pub fn pkts(n: u64) -> Value {
    json!(format!("{n}pkt"))
}

/// `"24KB"` for whole kilobytes, else `"24001B"`.
pub fn bytes(b: u64) -> Value {
    json!(if b % 1000 == 0 && b > 0 { format!("{}KB", b / 1000) } else { format!("{b}B") })
}

/// `n` strict-priority queues, drop-tail, no marking: the base of the priority setups.
pub fn strict_queues(n: u8) -> Map<String, Value> {
    keys(&[("queues", json!(n)), ("scheduler", json!("strict"))])
}

/// `ports` marking ECN on each queue's own length at `per_queue` (one entry per queue, or one for all).
pub fn mark_queues(mut ports: Map<String, Value>, per_queue: Value) -> Map<String, Value> {
    ports.insert("discipline".into(), json!("ecn"));
    ports.insert("ecn_threshold".into(), per_queue);
    ports
}

/// `ports` marking ECN on the port's total occupancy at `k` (PIAS's and Flash's per-port marking).
pub fn mark_port(mut ports: Map<String, Value>, k: Value) -> Map<String, Value> {
    ports.insert("discipline".into(), json!("ecn"));
    ports.insert("ecn_port_threshold".into(), k);
    ports
}

/// Eight strict-priority queues marking on the port at DCTCP's K: PIAS's and Flash's ports.
pub fn strict_marked_port(_: &TransportConfig, f: &Fabric) -> PortSetup {
    let (k, why) = dctcp_k(f);
    PortSetup { ports: mark_port(strict_queues(8), pkts(k)), host_ports: None, note: format!("8 strict-priority queues, per-port marking at {why}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;
    use crate::transport::tcp::CcKind;

    /// A leaf-spine of `host` / `core` links with 1 us per link and `buffer` ports.
    fn fabric(host: &str, core: &str, buffer: &str) -> Fabric {
        let s = Scenario::from_toml(&format!(
            "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"leaf_spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n\
             host_link = {{ rate = \"{host}\", delay = \"1us\" }}\ncore_link = {{ rate = \"{core}\", delay = \"1us\" }}\n\
             [queue]\nbuffer = \"{buffer}\"\n[[flows]]\nsrc = \"h0\"\ndst = \"h3\"\nsize = \"1KB\"\n"
        ))
        .unwrap();
        Fabric::of(&s)
    }

    #[test]
    fn round_trip_across_the_spines() {
        // 4 links each way, 1 us each: 8 us; a 1500 B packet at 40, 100, 100, 40 Gb/s is
        // 0.3 + 0.12 + 0.12 + 0.3 us, a 64 B ACK 12.8 + 5.12 + 5.12 + 12.8 ns.
        let f = fabric("40Gbps", "100Gbps", "120KB");
        assert_eq!(f.rate, Rate(40_000_000_000));
        assert_eq!(f.rtt, Time(8_000_000 + 840_000 + 35_840));
        assert_eq!(f.buffer, Some(Amount::Bytes(120_000)));
    }

    #[test]
    fn dctcp_k_from_the_rule_and_the_papers_examples() {
        // 40 Gb/s, 8.876 us: C·RTT = 29.6 packets, /7 = 4.2: the paper's 65 packets decide.
        let (k, why) = dctcp_k(&fabric("40Gbps", "100Gbps", "120KB"));
        assert_eq!(k, 65, "{why}");
        assert!(why.contains("C·RTT/7 = 4.2 pkt at 40 Gb/s, 8.9 us"), "{why}");
        // 1 Gb/s: the paper's 20 packets.
        assert_eq!(dctcp_k(&fabric("1Gbps", "1Gbps", "1MB")).0, 20);
        // A long round trip makes the bound decide: 10 Gb/s and 1 ms are 833 packets, /7 = 119.
        let long = Fabric { rate: Rate(10_000_000_000), rtt: Time::from_ms(1), buffer: None };
        assert_eq!(dctcp_k(&long).0, 120);
        // A 60 KB buffer (40 packets) cannot hold 65: half of it.
        let (k, why) = dctcp_k(&fabric("40Gbps", "100Gbps", "60KB"));
        assert_eq!(k, 20, "{why}");
        assert!(why.contains("half the 40-packet buffer"), "{why}");
    }

    /// PPT's fabric at reduced size (40/100 Gb/s, 1 us links, 120 KB ports) carrying one flow
    /// of `transport` (a kind, congestion control or scheme), with `profile` as its
    /// `[transports.NAME]` table if given.
    fn doc(transport: &str, profile: Option<Value>) -> Value {
        let mut d = json!({
            "simulation": {"end": "1ms"},
            "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2,
                         "host_link": {"rate": "40Gbps", "delay": "1us"}, "core_link": {"rate": "100Gbps", "delay": "1us"}},
            "queue": {"buffer": "120KB"},
            "flows": [{"src": "h0", "dst": "h3", "size": "20KB", "transport": transport}],
        });
        if let Some(p) = profile {
            d["transports"] = json!({ transport: p });
        }
        d
    }

    fn setup(transport: &str) -> PortSetup {
        Scenario::paper_ports(&doc(transport, None).to_string()).unwrap().unwrap().1
    }

    fn port(setup: &PortSetup, key: &str) -> Value {
        setup.ports.get(key).cloned().unwrap_or(Value::Null)
    }

    #[test]
    fn each_papers_setup_by_hand() {
        // DCTCP (and D2TCP, L2DCT): one FIFO marking at the paper's 65 packets (40 Gb/s).
        for t in ["dctcp", "d2tcp", "l2dct"] {
            let s = setup(t);
            assert_eq!((port(&s, "queues"), port(&s, "discipline"), port(&s, "ecn_threshold")), (Value::Null, json!("ecn"), json!("65pkt")), "{t}");
        }
        // NDP: 8 data packets of 8936 + 64 B, a header queue of the same 72 000 B, WRR 10:1,
        // trimming to the 64 B header, 2 queues at the hosts.
        let s = setup("ndp");
        assert_eq!(port(&s, "queue_buffer"), json!(["72KB", "8pkt"]));
        assert_eq!((port(&s, "scheduler"), port(&s, "weights"), port(&s, "admission"), port(&s, "trim_size")), (json!("wrr"), json!([10, 1]), json!("trim"), json!("64B")));
        assert_eq!(s.host_ports, Some(keys(&[("queues", json!(2)), ("classes", json!([0, 1]))])));
        // Homa: a strict queue per level; 4 levels, 4 queues.
        assert_eq!((port(&setup("homa"), "queues"), port(&setup("homa"), "scheduler")), (json!(8), json!("strict")));
        let four = Scenario::paper_ports(&doc("homa4", Some(json!({"kind": "homa", "priorities": 4}))).to_string()).unwrap().unwrap().1;
        assert_eq!(port(&four, "queues"), json!(4));
        // Aeolus: 0.2 x 120 KB = 24 KB, PPT's reproduction's value.
        assert_eq!(port(&setup("aeolus"), "selective_drop"), json!("24KB"));
        // pFabric: 2 x C·RTT = 2 x 29.59 packets -> 60.
        let s = setup("pfabric");
        assert_eq!((port(&s, "buffer"), port(&s, "admission")), (json!("60pkt"), json!("pfabric")));
        // PIAS and Flash: 8 strict queues marking per port at 65; Flash pushes out.
        for t in ["pias", "l2dct-pias", "flash", "flash-ia"] {
            let s = setup(t);
            assert_eq!((port(&s, "queues"), port(&s, "ecn_port_threshold")), (json!(8), json!("65pkt")), "{t}");
            assert_eq!(port(&s, "admission"), if t.starts_with("flash") { json!("pushout") } else { Value::Null }, "{t}");
        }
        // PPT: K_HCP = 65, K_LCP = 65 x 86/96 = 58.2 -> 59 packets.
        let p = json!(["65pkt", "65pkt", "65pkt", "65pkt", "59pkt", "59pkt", "59pkt", "59pkt"]);
        assert_eq!(port(&setup("ppt"), "ecn_threshold"), p);
        assert_eq!(port(&setup("ppt-no-ewd"), "ecn_threshold"), p);
        assert_eq!(port(&setup("rc3"), "ecn_threshold"), json!("65pkt"));
        assert_eq!(setup("ppt-swift").ports, strict_queues(8));
        // Loss- and delay-based TCP, HPCC: one drop-tail FIFO, nothing to change.
        for t in ["cubic", "newreno", "bbr", "swift", "hpcc"] {
            assert!(setup(t).ports.is_empty(), "{t}");
        }
        assert!(CcKind::Hpcc.paper_ports().needs.telemetry);
    }

    #[test]
    fn every_setup_gives_its_transport_what_it_needs() {
        // Written as the transport's port profile, each paper setup is valid, reaches every
        // switch port and draws no warning; without it, the ones with needs are warned about.
        let names = super::super::tcp::scheme::CC_AND_SCHEME_NAMES.iter().copied().chain(["ndp", "homa", "aeolus"]);
        for t in names.filter(|&t| !["sab", "retcp"].contains(&t)) {
            let s = setup(t);
            let mut profile = json!({ "ports": Value::Object(s.ports.clone()) });
            if let Some(h) = &s.host_ports {
                profile["host_ports"] = Value::Object(h.clone());
            }
            let sc = Scenario::from_value(&doc(t, Some(profile))).unwrap_or_else(|e| panic!("{t}: {e}"));
            assert!(sc.warnings().is_empty(), "{t}: {:?}", sc.warnings());
            let queues = s.ports.get("queues").map_or(1, |q| q.as_u64().unwrap() as u8);
            for l in &sc.topology.links {
                let to_switch = if sc.topology.nodes[l.a].is_host { &l.queue_ba } else { &l.queue_ab };
                assert_eq!(to_switch.queues, queues, "{t}");
            }
            let plain = Scenario::from_value(&doc(t, None));
            let needs = plain.as_ref().map(|p| p.flows[0].cfg.port_needs()).unwrap_or(crate::transport::ndp::PORTS.needs);
            if needs != Needs::NONE && !needs.telemetry {
                assert!(plain.map_or(true, |p| !p.warnings().is_empty()), "{t}: no warning on FIFO ports");
            }
        }
    }
}
