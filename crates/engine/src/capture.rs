//! Packet capture for pcap traces (`[output.pcap]`, `fabricsim run --pcap`).
//!
//! The fabric holds an `Option<Box<Capture>>`; without a capture the transmit stage pays one
//! `Option` test per packet-hop and allocates nothing. With one, every packet that starts
//! serializing on a captured port (the ports asked for, and every port out of and into a captured
//! host) inside the time window, of a captured flow, appends one row of header fields to a
//! column table; the Python side writes the pcap files (Ethernet/IPv4/TCP or UDP, see
//! python/fabricsim/pcap.py). Rows stop at `max_packets` (the table says it was cut).

use crate::ids::PortId;
use crate::network::Network;
use crate::packet::{Ecn, Header, Kind, Packet, MAX_SACK_BLOCKS};
use crate::scenario::reader::{as_str, as_time, as_u64, show, Issues, Table};
use crate::time::Time;
use serde_json::Value;

/// What to capture, as the scenario says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaptureSpec {
    /// Ports (indices) whose transmissions are recorded.
    pub ports: Vec<u32>,
    /// Flow numbers to keep (None = every flow).
    pub flows: Option<Vec<u32>>,
    pub from: Time,
    pub until: Time,
    pub max_packets: u64,
}

/// Packets recorded by default at most (about 100 B each in memory).
pub const DEFAULT_MAX_PACKETS: u64 = 1_000_000;

/// Read `[output.pcap]`: `ports`, `hosts` (every port out of and into each), `flows`, `from`,
/// `until`, `max_packets`.
/// `dynamic`: workloads or incast create flows while the run goes, numbered after the listed ones,
/// so any flow number may exist.
pub fn spec_from_table(t: &Table, net: Option<&Network>, n_flows: usize, dynamic: bool, end: Option<Time>, iss: &mut Issues) -> Option<CaptureSpec> {
    let mut s = CaptureSpec { until: end.unwrap_or(Time(u64::MAX)), max_packets: DEFAULT_MAX_PACKETS, ..Default::default() };
    let names = |key: &'static str, iss: &mut Issues| -> Vec<String> {
        match t.raw(key) {
            None => vec![],
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .filter_map(|(i, v)| as_str(v).map_err(|e| iss.push(format!("{}[{i}]", t.key_path(key)), e)).ok())
                .collect(),
            Some(v) => {
                iss.push(t.key_path(key), format!("{} is not a list of names", show(v)));
                vec![]
            }
        }
    };
    let (ports, hosts) = (names("ports", iss), names("hosts", iss));
    if let Some(net) = net {
        for (i, p) in ports.iter().enumerate() {
            match net.port_by_name(p) {
                Some(id) => s.ports.push(id.0),
                None => iss.push(format!("{}[{i}]", t.key_path("ports")), format!("'{p}' is not a port (ports are named 'node->peer', e.g. '{}')", net.ports[0].name)),
            }
        }
        for (i, h) in hosts.iter().enumerate() {
            match net.node_by_name(h).filter(|&n| net.host_index[n.idx()].is_some()) {
                Some(n) => {
                    for (pi, p) in net.ports.iter().enumerate() {
                        if p.node == n || p.peer == n {
                            s.ports.push(pi as u32);
                        }
                    }
                }
                None => iss.push(format!("{}[{i}]", t.key_path("hosts")), format!("'{h}' is not a host")),
            }
        }
    }
    s.ports.sort_unstable();
    s.ports.dedup();
    if ports.is_empty() && hosts.is_empty() {
        iss.push(t.key_path("ports"), "nothing to capture; list ports = [\"s0->h0\"] or hosts = [\"h1\"]");
    }
    match t.raw("flows") {
        None => {}
        Some(Value::String(a)) if a == "all" => {}
        Some(Value::Array(a)) => {
            let mut v = Vec::new();
            for (i, x) in a.iter().enumerate() {
                match as_u64(x) {
                    Ok(k) if (k as usize) < n_flows || (dynamic && k <= u32::MAX as u64) => v.push(k as u32),
                    Ok(k) => iss.push(format!("{}[{i}]", t.key_path("flows")), format!("there is no flow {k} (flows are numbered 0 .. {})", n_flows.saturating_sub(1))),
                    Err(e) => iss.push(format!("{}[{i}]", t.key_path("flows")), e),
                }
            }
            v.sort_unstable();
            s.flows = Some(v);
        }
        Some(v) => iss.push(t.key_path("flows"), format!("{} is not a list of flow numbers or \"all\"", show(v))),
    }
    if let Some(f) = t.get("from", iss, as_time) {
        s.from = f;
    }
    if let Some(u) = t.get("until", iss, as_time) {
        if u <= s.from {
            iss.push(t.key_path("until"), format!("{u} is not after from ({})", s.from));
        }
        s.until = u;
    }
    if let Some(m) = t.get("max_packets", iss, as_u64) {
        if m == 0 {
            iss.push(t.key_path("max_packets"), "0 would capture nothing");
        }
        s.max_packets = m;
    }
    t.finish(iss);
    Some(s)
}

/// TCP flag bits as in the TCP header (RFC 9293 §3.1, RFC 3168 §6.1).
pub mod flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
    pub const ECE: u8 = 0x40;
    pub const CWR: u8 = 0x80;
}

/// Recorded packets as columns, one row per packet and captured port.
#[derive(Clone, Debug, Default)]
pub struct CaptureTable {
    /// Serialization start on `port`, and arrival (last bit) at its peer.
    pub time_ps: Vec<u64>,
    pub arrive_ps: Vec<u64>,
    pub port: Vec<u32>,
    pub flow: Vec<u32>,
    /// Host indices (order of the topology's hosts).
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    /// Bytes on the wire (IP packet: headers and payload).
    pub size: Vec<u32>,
    pub class: Vec<u8>,
    /// IP ECN field: 0 Not-ECT, 2 ECT(0), 3 CE.
    pub ecn: Vec<u8>,
    /// 0 data, 1 ACK, 2 SYN, 3 SYN-ACK, 4 control.
    pub kind: Vec<u8>,
    pub trimmed: Vec<bool>,
    /// Lost on this port's wire (seen leaving, never arriving).
    pub lost: Vec<bool>,
    /// true: the TCP fields below are set; false: another transport (written as UDP).
    pub tcp: Vec<bool>,
    pub seq: Vec<u64>,
    pub ack: Vec<u64>,
    pub len: Vec<u32>,
    /// The window field in bytes (u32::MAX = unlimited).
    pub window: Vec<u32>,
    pub flags: Vec<u8>,
    pub sack_count: Vec<u8>,
    /// MAX_SACK_BLOCKS (left, right) pairs per row, flattened; unused blocks are 0.
    pub sack: Vec<u64>,
    pub rank: Vec<u64>,
}

/// The capture tap.
#[derive(Debug)]
pub struct Capture {
    pub spec: CaptureSpec,
    on: Vec<bool>,
    pub table: CaptureTable,
    /// Packets left out because `max_packets` was reached.
    pub dropped: u64,
}

impl Capture {
    pub fn new(spec: &CaptureSpec, net: &Network) -> Capture {
        let mut on = vec![false; net.ports.len()];
        for &p in &spec.ports {
            on[p as usize] = true;
        }
        Capture { spec: spec.clone(), on, table: CaptureTable::default(), dropped: 0 }
    }

    /// Packet `pkt` starts serializing on `port` at `now`; its last bit reaches the peer at
    /// `arrive` unless the wire loses it.
    #[inline]
    pub fn on_tx(&mut self, port: PortId, now: Time, arrive: Time, lost: bool, pkt: &Packet, net: &Network) {
        if !self.on[port.idx()] || now < self.spec.from || now >= self.spec.until {
            return;
        }
        if let Some(f) = &self.spec.flows {
            if f.binary_search(&pkt.flow.0).is_err() {
                return;
            }
        }
        if self.table.time_ps.len() as u64 >= self.spec.max_packets {
            self.dropped += 1;
            return;
        }
        let t = &mut self.table;
        t.time_ps.push(now.0);
        t.arrive_ps.push(arrive.0);
        t.port.push(port.0);
        t.flow.push(pkt.flow.0);
        t.src.push(net.host_index[pkt.src.idx()].unwrap_or(u32::MAX));
        t.dst.push(net.host_index[pkt.dst.idx()].unwrap_or(u32::MAX));
        t.size.push(pkt.size);
        t.class.push(pkt.class);
        t.ecn.push(match pkt.ecn {
            Ecn::NotEct => 0,
            Ecn::Ect0 => 2,
            Ecn::Ce => 3,
        });
        t.kind.push(match pkt.kind {
            Kind::Data => 0,
            Kind::Ack => 1,
            Kind::Syn => 2,
            Kind::SynAck => 3,
            Kind::Control => 4,
        });
        t.trimmed.push(pkt.trimmed);
        t.lost.push(lost);
        t.rank.push(pkt.rank);
        #[allow(unreachable_patterns)] // other transports' headers are written as UDP
        match &pkt.hdr {
            Header::Tcp(h) => {
                t.tcp.push(true);
                t.seq.push(h.seq);
                t.ack.push(h.ack);
                t.len.push(h.len);
                t.window.push(h.rwnd);
                let mut f = 0u8;
                f |= if pkt.kind == Kind::Syn || pkt.kind == Kind::SynAck { flags::SYN } else { 0 };
                f |= if pkt.kind != Kind::Syn { flags::ACK } else { 0 };
                f |= if h.fin { flags::FIN } else { 0 };
                f |= if h.psh { flags::PSH } else { 0 };
                f |= if h.ece { flags::ECE } else { 0 };
                f |= if h.cwr { flags::CWR } else { 0 };
                t.flags.push(f);
                t.sack_count.push(h.sack_count);
                for b in 0..MAX_SACK_BLOCKS {
                    let (l, r) = if b < h.sack_count as usize { h.sack[b] } else { (0, 0) };
                    t.sack.push(l);
                    t.sack.push(r);
                }
            }
            _ => {
                t.tcp.push(false);
                t.seq.push(0);
                t.ack.push(0);
                t.len.push(0);
                t.window.push(0);
                t.flags.push(0);
                t.sack_count.push(0);
                t.sack.extend([0; 2 * MAX_SACK_BLOCKS]);
            }
        }
    }
}
