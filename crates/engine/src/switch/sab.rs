//! SAB's switch side (Zhang et al., IEEE JSAC 32(1), 2014, §IV-A.2 and §IV-C): every switch egress
//! port counts the flows N passing through it — +1 for each SYN, −1 for each FIN — and lowers the
//! window field of every passing data packet to εB/N, B being the port's buffer. The field starts
//! at 0xffff (u64::MAX here) at the sender, so the smallest allocation along the path wins.
//!
//! N is counted literally, as the NetFPGA switch does: a resent SYN or FIN counts again, and a
//! count never goes below zero. Ports of hosts do not take part. Only packets of SAB senders carry
//! a window field to lower (other transports leave it at 0).

use crate::ids::PortId;
use crate::network::Network;
use crate::packet::{Kind, Packet};
use crate::queue::Amount;

/// Bytes per packet when a buffer is given in packets (an Ethernet MTU).
pub const PACKET_BYTES: u64 = 1500;

/// The `[sab]` section of a scenario.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SabSpec {
    /// ε: the share of the buffer given out (§IV-C eq. (2): CD_max/B ≤ ε ≤ 1). Paper: 1/2 on the
    /// testbed, 0.6 in the ns-2 capacity runs.
    pub epsilon: f64,
    /// B for every switch port, bytes; `None` = each port's own buffer limit.
    pub buffer: Option<u64>,
    /// Relative error of the flow count, N̂ = N·(1 + error), to test Proposition 2 (η = |error|).
    pub count_error: f64,
}

impl Default for SabSpec {
    fn default() -> Self {
        SabSpec { epsilon: 0.5, buffer: None, count_error: 0.0 }
    }
}

/// Per-port SAB state of a network.
#[derive(Clone, Debug)]
pub struct SabPorts {
    count_factor: f64,
    /// ε·B per port, bytes; 0 = the port does not take part (a host's).
    share: Vec<f64>,
    /// N per port.
    pub flows: Vec<u32>,
    /// Largest N each port has seen.
    pub peak: Vec<u32>,
    /// Data packets whose window this port lowered.
    pub rewrites: Vec<u64>,
}

impl SabPorts {
    pub fn new(spec: &SabSpec, net: &Network) -> SabPorts {
        let share = net
            .ports
            .iter()
            .map(|p| {
                if net.node(p.node).kind != crate::network::NodeKind::Switch {
                    return 0.0;
                }
                let b = spec.buffer.or(match p.queue.limit() {
                    Some(Amount::Bytes(b)) => Some(b),
                    Some(Amount::Packets(n)) => Some(n * PACKET_BYTES),
                    None => None,
                });
                b.map_or(0.0, |b| spec.epsilon * b as f64)
            })
            .collect();
        let n = net.ports.len();
        SabPorts { count_factor: 1.0 + spec.count_error, share, flows: vec![0; n], peak: vec![0; n], rewrites: vec![0; n] }
    }

    /// The window port `port` assigns now, bytes: ⌊εB / N̂⌋ with N̂ = max(1, N·(1 + error)).
    #[inline]
    pub fn window(&self, port: PortId) -> u64 {
        let n = (self.flows[port.idx()] as f64 * self.count_factor).max(1.0);
        (self.share[port.idx()] / n) as u64
    }

    /// A packet leaves by `port`: count SYN/FIN, lower a data packet's window field.
    #[inline]
    pub fn on_egress(&mut self, port: PortId, pkt: &mut Packet) {
        let i = port.idx();
        if self.share[i] == 0.0 {
            return;
        }
        match pkt.kind {
            Kind::Syn => {
                self.flows[i] += 1;
                self.peak[i] = self.peak[i].max(self.flows[i]);
            }
            // Only TCP carries SAB's window field; other transports' data passes uncounted.
            Kind::Data if !matches!(pkt.hdr, crate::packet::Header::Tcp(_)) => {}
            Kind::Data => {
                if pkt.tcp().rwnd != 0 {
                    let w = self.window(port);
                    if pkt.tcp().window() > w {
                        pkt.tcp_mut().set_window(w);
                        self.rewrites[i] += 1;
                    }
                }
                if pkt.tcp().fin {
                    self.flows[i] = self.flows[i].saturating_sub(1);
                }
            }
            Kind::Ack | Kind::SynAck | Kind::Control => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::testing::{goodput_gbps, incast_scenario, run, tcp};
    use crate::sim::Simulator;
    use crate::scenario::Scenario;
    use crate::time::Time;

    /// `n` SAB senders h1..hn to h0 through one switch, 10 Gb/s, 1 µs wires.
    fn star(n: usize, extra: &str, flows: &str) -> String {
        format!(
            r#"
[simulation]
end = "20ms"
[topology]
kind = "star"
hosts = {hosts}
link = {{ rate = "10Gbps", delay = "1us" }}
[queue]
buffer = "200KB"
[transport]
cc = "sab"
mss = 1448
header = 52
{extra}
{flows}
"#,
            hosts = n + 1
        )
    }

    fn port(sim: &Simulator, name: &str) -> crate::ids::PortId {
        sim.fabric.net.port_by_name(name).unwrap()
    }

    #[test]
    fn one_flow_gets_epsilon_b_after_one_round_trip() {
        // Handshake: SYN and SYN-ACK, 52 B each way over two hops: 2 × 2 × (41.6 ns + 1 µs)
        // = 4.1664 µs. The initial window's first two 1500 B packets reach h0 at 4.1664 +
        // 2 × (1.2 + 1) + 1.2 = 9.7664 µs; their (delayed) ACK is back at 9.7664 + 2.0832 =
        // 11.8496 µs carrying εB/N = 0.5 × 200 000 / 1 = 100 000 B: cwnd = ⌊100 000 / 1448⌋ = 69.
        let doc = star(1, "", "[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\n");
        let sc = Scenario::from_toml(&doc).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.run_until(Time(11_849_599));
        assert_eq!(tcp(&sim, 0).sender.tcb.cwnd, 10, "the initial window for the first round trip");
        sim.run_until(Time(11_849_600));
        let s = &tcp(&sim, 0).sender;
        assert_eq!((s.tcb.rwnd, s.tcb.cwnd), (100_000, 69));
        let sab = sim.fabric.sab.as_deref().unwrap();
        assert_eq!(sab.flows[port(&sim, "s0->h0").idx()], 1);
        assert_eq!(sab.flows[port(&sim, "s0->h1").idx()], 0, "the SYN-ACK's way does not count");
        assert_eq!(sab.flows[port(&sim, "h1->s0").idx()], 0, "hosts do not take part");
    }

    #[test]
    fn flows_sharing_a_port_get_epsilon_b_over_n_and_n_follows_syn_and_fin() {
        // Three flows start 1 ms apart; each carries 3 MB (≈ 2.5 ms alone at 10 Gb/s).
        let flows = (1..=3).map(|i| format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h0\"\nsize = \"3MB\"\nstart = \"{}ms\"\n", i - 1)).collect::<String>();
        let doc = star(3, "", &flows);
        let sc = Scenario::from_toml(&doc).unwrap();
        let mut sim = Simulator::new(&sc, None);
        let p = port(&sim, "s0->h0").idx();
        let mut counts = vec![];
        for t in [500, 1500, 2500] {
            sim.run_until(Time::from_us(t));
            counts.push(sim.fabric.sab.as_deref().unwrap().flows[p]);
        }
        assert_eq!(counts, vec![1, 2, 3], "a SYN adds one");
        // All three now share the port: each window is ⌊100 000 / 3⌋ = 33 333 B = 23 segments.
        for f in 0..3 {
            let s = &tcp(&sim, f).sender;
            assert_eq!((s.tcb.rwnd, s.tcb.cwnd), (33_333, 23), "flow {f}");
        }
        sim.run();
        let sab = sim.fabric.sab.as_deref().unwrap();
        assert_eq!((sab.flows[p], sab.peak[p]), (0, 3), "each FIN took one away");
        assert!(sim.flow_table().fct_ps.iter().all(Option::is_some));
        assert_eq!(sim.port_table().drops.iter().sum::<u64>(), 0, "SAB loses nothing here");
    }

    #[test]
    fn a_window_below_one_packet_shrinks_the_segment_and_it_grows_back() {
        // εB = 5 000 B shared by 10 flows: 500 B each, below the 1448 B MSS, so every sender sends
        // one 500 B segment per round trip (§IV-B). Nine flows are short; when they are done the
        // long one gets all 5 000 B: ⌊5000 / 1448⌋ = 3 full segments.
        let mut flows = String::from("[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\n");
        for i in 2..=10 {
            flows += &format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h0\"\nsize = \"100KB\"\n");
        }
        let doc = star(10, "initial_cwnd = 1\ndelayed_ack = 1\n[sab]\nbuffer = \"10KB\"", &flows);
        let sc = Scenario::from_toml(&doc).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.run_until(Time::from_us(200));
        let s = &tcp(&sim, 0).sender;
        assert_eq!((s.tcb.rwnd, s.tcb.cwnd, s.tcb.seg_size), (500, 1, 500));
        let p = port(&sim, "s0->h0");
        let before = sim.fabric.net.ports[p.idx()].stats.clone();
        sim.run_until(Time::from_us(400));
        let after = &sim.fabric.net.ports[p.idx()].stats;
        let (pkts, bytes) = (after.tx_packets - before.tx_packets, after.tx_bytes - before.tx_bytes);
        assert!(pkts > 100 && bytes == pkts * (500 + 52), "only 552 B packets on the bottleneck: {pkts} packets, {bytes} B");
        sim.run();
        assert!(sim.flow_table().fct_ps[1..].iter().all(Option::is_some), "the short flows finish");
        let s = &tcp(&sim, 0).sender;
        assert_eq!((s.tcb.rwnd, s.tcb.cwnd, s.tcb.seg_size), (5_000, 3, 1448), "the MSS is back");
        assert_eq!(sim.port_table().drops.iter().sum::<u64>(), 0);
        // The long flow's bytes arrived in order despite the changing segment sizes, none twice.
        let r = &tcp(&sim, 0).receiver;
        assert_eq!((r.buffered_out_of_order(), r.duplicate_segments), (0, 0));
        assert!(r.delivered() >= tcp(&sim, 0).sender.bytes_acked() && r.delivered() > 5_000_000);
    }

    #[test]
    fn the_queue_settles_at_epsilon_b_minus_cd() {
        // §VI-C: 100 senders, B = 128 KB, 1 Gb/s, D = 100 µs, 1 KB packets (no header here, so
        // windows and queue count the same bytes). ε = 0.3 and 0.6 give 384 and 768 B windows,
        // below one packet: the sum of windows is εB and the queue ≈ εB − CD (CD = 12.5 KB).
        for eps in [0.3, 0.6] {
            let doc = format!(
                r#"
[simulation]
end = "60ms"
[topology]
kind = "star"
hosts = 101
link = {{ rate = "1Gbps", delay = "25us" }}
[queue]
buffer = "128KB"
[transport]
cc = "sab"
mss = 1000
header = 0
ack_size = 40
delayed_ack = 1
initial_cwnd = 1
[sab]
epsilon = {eps}
[output]
warmup = "20ms"
{flows}"#,
                flows = (1..=100).map(|i| format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h0\"\n")).collect::<String>()
            );
            let sim = run(&doc);
            let pt = sim.fabric.net.port_by_name("s0->h0").unwrap();
            let st = &sim.fabric.net.ports[pt.idx()].stats;
            let mean_q = st.queue_area_bytes as f64 / sim.now().0 as f64;
            let expect = eps * 128_000.0 - 1e9 / 8.0 * 100e-6;
            println!("eps {eps}: mean queue {mean_q:.0} B, εB − CD = {expect:.0} B");
            assert!((mean_q - expect).abs() < 0.1 * expect, "eps {eps}: queue {mean_q} vs {expect}");
            assert_eq!(st.drops, 0);
            let util = st.busy_time.0 as f64 / sim.now().0 as f64;
            assert!(util > 0.95, "full utilization for ε ≥ CD/B: {util}");
        }
    }

    /// Synchronized 256 KB blocks from `n` senders over persistent connections (1 Gb/s, 512 KB
    /// port buffer, Linux 2.6.38's initial window of 3): goodput in Gb/s and switch drops.
    fn incast(cc: &str, n: usize) -> (f64, u64) {
        let doc = incast_scenario(cc, n, 3, "32KB", "initial_cwnd = 3\ndelayed_ack = 1", "connections = \"persistent\"");
        let mut sim = run(&doc);
        let t = sim.flow_table();
        assert_eq!(t.id.len(), n, "one connection per sender");
        assert!(t.fct_ps.iter().all(Option::is_some), "every connection closed after the last round");
        assert_eq!(t.size.iter().map(|s| s.unwrap()).sum::<u64>(), 3 * n as u64 * 256_000);
        (goodput_gbps(&t), sim.port_table().drops.iter().sum())
    }

    #[test]
    fn an_incast_of_100_senders_loses_nothing() {
        // εB/N = 256 000 / 100 = 2 560 B per sender: one 1448 B segment each, 150 KB in all.
        let (goodput, drops) = incast("sab", 100);
        assert_eq!(drops, 0);
        assert!(goodput > 0.85, "goodput {goodput} Gb/s");
        // The same incast overflows the buffer with NewReno: the test can tell.
        let (reno, reno_drops) = incast("newreno", 100);
        println!("100-sender incast: SAB {goodput:.3} Gb/s, {drops} drops; NewReno {reno:.3} Gb/s, {reno_drops} drops");
        assert!(reno_drops > 100, "NewReno drops {reno_drops}");
    }

    #[test]
    fn the_smallest_allocation_along_the_path_wins() {
        // Fig. 6 of the paper: S (h2 → h3) and L (h1 → h5) share R1's port towards the middle
        // switch M; L and F (h4 → h5) share R2's port to h5. With Ns = 2, Nl = 1, Nf = 3:
        // R1 gives 0.5 × 120 000 / 3 = 20 000 B, R2 gives 0.5 × 120 000 / 4 = 15 000 B, and the
        // non-bottleneck port M → R2 (one flow) 60 000 B. L gets R2's 15 000 B.
        let mut doc = String::from(
            r#"
[simulation]
end = "10ms"
[topology]
kind = "explicit"
hosts = ["h1", "h2", "h3", "h4", "h5"]
switches = ["R1", "M", "R2"]
links = [
  { a = "h1", b = "R1", rate = "1Gbps", delay = "10us" },
  { a = "h2", b = "R1", rate = "1Gbps", delay = "10us" },
  { a = "R1", b = "M", rate = "1Gbps", delay = "10us" },
  { a = "M", b = "h3", rate = "1Gbps", delay = "10us" },
  { a = "M", b = "R2", rate = "1Gbps", delay = "10us" },
  { a = "h4", b = "R2", rate = "1Gbps", delay = "10us" },
  { a = "R2", b = "h5", rate = "1Gbps", delay = "10us" },
]
[queue]
buffer = "120KB"
[transport]
cc = "sab"
[[flows]]
src = "h1"
dst = "h5"
"#,
        );
        for _ in 0..2 {
            doc += "[[flows]]\nsrc = \"h2\"\ndst = \"h3\"\n";
        }
        for _ in 0..3 {
            doc += "[[flows]]\nsrc = \"h4\"\ndst = \"h5\"\n";
        }
        let sim = run(&doc);
        let sab = sim.fabric.sab.as_deref().unwrap();
        let n = |p: &str| sab.flows[sim.fabric.net.port_by_name(p).unwrap().idx()];
        assert_eq!((n("R1->M"), n("M->R2"), n("R2->h5"), n("M->h3")), (3, 1, 4, 2));
        let w: Vec<u64> = (0..6).map(|f| tcp(&sim, f).sender.tcb.rwnd).collect();
        assert_eq!(w, vec![15_000, 20_000, 20_000, 15_000, 15_000, 15_000]);
    }

    #[test]
    fn a_flow_count_error_scales_the_allocation() {
        // Proposition 2's estimate N̂ = N(1 + error): 4 flows seen as 2 or 6.
        let doc = star(1, "[sab]\nbuffer = \"120KB\"", "[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\n");
        let sc = Scenario::from_toml(&doc).unwrap();
        let sim = Simulator::new(&sc, None);
        let p = sim.fabric.net.port_by_name("s0->h0").unwrap();
        for (err, want) in [(0.0, 15_000), (-0.5, 30_000), (0.5, 10_000)] {
            let mut ports = super::SabPorts::new(&super::SabSpec { count_error: err, buffer: Some(120_000), ..Default::default() }, &sim.fabric.net);
            ports.flows[p.idx()] = 4;
            assert_eq!(ports.window(p), want, "error {err}");
        }
    }

    #[test]
    fn lost_shrunken_segments_are_resent_with_their_boundaries() {
        // 1 % random loss on every wire, windows below one MSS (εB = 5 000 B over 8 flows) and
        // SACK or NewReno recovery: every byte arrives exactly once in order, and retransmissions
        // reuse the boundaries of the first transmission (a receiver would otherwise see
        // overlapping segments and count duplicates).
        for sack in [true, false] {
            let flows = (1..=8).map(|i| format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h0\"\nsize = \"200KB\"\n")).collect::<String>();
            let doc = star(8, &format!("sack = {sack}\ndelayed_ack = 1\ninitial_cwnd = 1\nmin_rto = \"1ms\"\n[sab]\nbuffer = \"10KB\""), &flows)
                .replace("delay = \"1us\" }", "delay = \"1us\", loss_rate = 0.01 }")
                .replace("end = \"20ms\"", "end = \"2s\"");
            let sim = run(&doc);
            let t = sim.flow_table();
            assert!(t.fct_ps.iter().all(Option::is_some), "sack {sack}: every flow finishes");
            let retx: u64 = t.retransmits.iter().sum();
            assert!(retx > 10, "sack {sack}: losses were repaired ({retx} retransmissions)");
            for f in 0..8 {
                let r = &tcp(&sim, f).receiver;
                assert_eq!((r.delivered(), r.buffered_out_of_order()), (200_000, 0), "sack {sack}, flow {f}");
                let s = &tcp(&sim, f).sender;
                assert!(s.tcb.seg_size <= 1448 && s.tcb.cwnd >= 1);
            }
        }
    }
}
