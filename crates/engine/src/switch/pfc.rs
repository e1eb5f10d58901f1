//! Priority Flow Control (IEEE 802.1Qbb), one priority: every switch counts, per ingress, the
//! packets that entered through it and have not yet left the switch; when an ingress holds more
//! than `xoff` it sends a PAUSE upstream, and when it holds less than `xon` again a RESUME. The
//! upstream egress — a switch port or a host NIC — finishes the packet it is serializing and
//! starts no other until resumed. Queues on a PFC fabric never drop (the scenario reader refuses
//! buffer limits and dropping disciplines alongside `[pfc]`).
//!
//! What is modelled, and where it follows htsim (csg-htsim 841d9e7, read, not copied):
//! - The count grows when a packet's last bit reaches the switch and shrinks when its last bit
//!   leaves the egress port (`LosslessInputQueue::receivePacket` adds the packet's size,
//!   `LosslessInputQueue::completedService`, called from `LosslessOutputQueue::completeService`,
//!   subtracts it). Strict comparisons as there: pause above `xoff`, resume below `xon`.
//! - An ingress sends one PAUSE when it crosses `xoff` and one RESUME when it falls below `xon`
//!   (htsim's `sendPause(1000)` / `sendPause(0)` under `_state_recv`); 802.1Qbb's pause quanta
//!   are not modelled: a pause lasts until its resume (a switch that refreshes its pause before
//!   the quanta run out behaves the same).
//! - A frame reaches the upstream egress after the link's propagation delay and acts at once:
//!   it neither waits for the packet serializing on the reverse wire nor takes serialization time
//!   itself (htsim's `CallbackPipe` of the hop latency). An 802.1Qbb frame is 64 B and would wait
//!   for the reverse wire's current frame: at most one MTU's serialization later than here.
//! - The upstream finishes its current packet (htsim's `LosslessOutputQueue` state
//!   `PAUSE_RECEIVED`, then `PAUSED`). A host NIC stops as a port does; its senders then stop
//!   at the NIC's send limit, or with `stop_senders` at once: htsim's host queue forwards a pause
//!   to the host's sources (`FairPriorityQueue::receivePacket` → `HPCCSrc::processPause`), which
//!   hand it nothing until the resume (`HPCCSrc::doNextEvent` returns while `PAUSED`, and
//!   `processPause` fires it again at the resume). Here a paused NIC then counts as full to its
//!   senders (`Fabric::nic_queued` gives `host::HELD`): a sender blocks at its next send and is
//!   woken, as any blocked sender, when the NIC has room after the RESUME (at the RESUME unless
//!   it still holds `send_limit` packets). Every unfinished sender of the NIC is also told as the
//!   PAUSE arrives (`Simulator::tell_paused`), as htsim's host queue tells all its sources: an
//!   HPCC source on htsim's timer (`send_tick.rs`) stops its ticks then and fires at once when
//!   woken, as htsim's at the resume, whether or not an ACK or timer reaches it in the pause.
//! - One class: a pause stops every queue of the port (802.1Qbb pauses per priority; htsim's
//!   lossless queues have one).
//!
//! Counters: per port (the upstream egress of a link), the pauses its peer switch sent it and the
//! time it spent paused.

use crate::ids::{PacketId, PortId};
use crate::network::{Network, NodeKind};
use crate::queue::Amount;
use crate::time::Time;

/// The `[pfc]` section of a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfcSpec {
    /// Pause the upstream when an ingress holds more than this.
    pub xoff: Amount,
    /// Resume it when the ingress holds less than this.
    pub xon: Amount,
    /// A paused host NIC also stops its senders until the RESUME (htsim's host queue forwards
    /// the pause to its sources: `FairPriorityQueue::receivePacket`, `HPCCSrc::processPause`);
    /// false: they fill it up to its send limit.
    pub stop_senders: bool,
}

/// Does an occupancy of (`pkts`, `bytes`) fall below `a`?
#[inline]
fn below(a: Amount, pkts: u64, bytes: u64) -> bool {
    match a {
        Amount::Packets(n) => pkts < n,
        Amount::Bytes(b) => bytes < b,
    }
}

/// One ingress of a switch: the link behind port P, as its peer switch counts it.
#[derive(Clone, Copy, Debug, Default)]
struct Ingress {
    packets: u64,
    bytes: u64,
    /// A PAUSE was sent and no RESUME since.
    paused: bool,
}

/// A port's PFC counters (reported in the port table).
#[derive(Clone, Copy, Debug, Default)]
pub struct PauseStats {
    /// PAUSE frames this port received from its peer (each one sent by the peer's ingress).
    pub pauses: u64,
    /// Time paused, up to the last RESUME.
    pub paused: Time,
    /// When the current pause began, if paused now.
    since: Option<Time>,
}

impl PauseStats {
    /// Time paused up to `now`, the current pause included.
    pub fn paused_until(&self, now: Time) -> Time {
        self.paused + self.since.map_or(Time::ZERO, |s| now - s)
    }
}

/// The PFC state of a network: ingress counts, the packets on switch wires, and per-port
/// counters. Sized once from the network; the table indexed by packet slot doubles when a slot
/// outgrows it.
#[derive(Clone, Debug)]
pub struct Pfc {
    spec: PfcSpec,
    /// Per port P: P's peer switch counts the packets that came through P (false when the peer
    /// is a host).
    counted: Vec<bool>,
    /// Per port P: its peer's ingress count of the packets that came through P.
    ingress: Vec<Ingress>,
    /// Per port: its node is a switch.
    at_switch: Vec<bool>,
    /// Per port of a switch: the ingress of the packet on its wire and its size, until it ends.
    on_wire: Vec<Option<(PortId, u32)>>,
    /// Per packet (slab index): the port it came through to the switch it is in, and its size
    /// then — what that ingress counted, and so what it uncounts when the packet leaves, whatever
    /// happens to the packet in between.
    entered_by: Vec<(PortId, u32)>,
    pub stats: Vec<PauseStats>,
}

impl Pfc {
    pub fn new(spec: PfcSpec, net: &Network) -> Pfc {
        let n = net.ports.len();
        let switch = |n| net.node(n).kind == NodeKind::Switch;
        let counted = net.ports.iter().map(|p| switch(p.peer)).collect();
        let at_switch = net.ports.iter().map(|p| switch(p.node)).collect();
        // Room for a few packets per port before the first growth (`grow`).
        let entered_by = vec![(PortId::from_idx(0), 0); 16 * n];
        Pfc { spec, counted, at_switch, ingress: vec![Ingress::default(); n], on_wire: vec![None; n], entered_by, stats: vec![PauseStats::default(); n] }
    }

    /// Make room for packet slab index `i`: the table doubles, so it grows a logarithmic number
    /// of times over a run, never per packet (not inlined: the per-packet path is a bounds test).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, i: usize) {
        let len = (i + 1).max(2 * self.entered_by.len());
        self.entered_by.resize(len, (PortId::from_idx(0), 0));
    }

    /// Does a paused host NIC stop its senders (`PfcSpec::stop_senders`)?
    #[inline]
    pub fn stops_senders(&self) -> bool {
        self.spec.stop_senders
    }

    /// Does the node behind `port` count what comes through it (is it a switch)?
    #[inline]
    pub fn counts(&self, port: PortId) -> bool {
        self.counted[port.idx()]
    }

    /// Packet `id` of `size` bytes reached the switch behind `port`: count it. True when the
    /// ingress now holds more than `xoff` and had not paused `port`: send it a PAUSE.
    #[inline]
    pub fn entered(&mut self, port: PortId, id: PacketId, size: u32) -> bool {
        let i = id.idx();
        if i >= self.entered_by.len() {
            self.grow(i);
        }
        self.entered_by[i] = (port, size);
        let g = &mut self.ingress[port.idx()];
        g.packets += 1;
        g.bytes += size as u64;
        if !g.paused && self.spec.xoff.exceeded_by(g.packets, g.bytes) {
            g.paused = true;
            return true;
        }
        false
    }

    /// `port` starts serializing packet `id`. At a switch the packet came through one of its
    /// ingresses and leaves the switch's count when its last bit leaves, with the size it was
    /// counted at (a packet whose size changed in the switch must not leave the count off).
    #[inline]
    pub fn on_wire(&mut self, port: PortId, id: PacketId) {
        if self.at_switch[port.idx()] {
            self.on_wire[port.idx()] = Some(self.entered_by[id.idx()]);
        }
    }

    /// `port` finished serializing its packet: uncount it from its ingress. Returns that
    /// ingress's port when the ingress now holds less than `xon` after a PAUSE: send it a RESUME.
    #[inline]
    pub fn left(&mut self, port: PortId) -> Option<PortId> {
        let (from, size) = self.on_wire[port.idx()].take()?;
        let g = &mut self.ingress[from.idx()];
        g.packets -= 1;
        g.bytes -= size as u64;
        if g.paused && below(self.spec.xon, g.packets, g.bytes) {
            g.paused = false;
            return Some(from);
        }
        None
    }

    /// A frame reached `port`: count it and start or end its paused time.
    pub fn received(&mut self, port: PortId, pause: bool, now: Time) {
        let s = &mut self.stats[port.idx()];
        if pause {
            s.pauses += 1;
            s.since = Some(now);
        } else if let Some(t) = s.since.take() {
            s.paused += now - t;
        }
    }

    /// Packets and bytes the switch behind `port` holds that came through it (for tests).
    pub fn held(&self, port: PortId) -> (u64, u64) {
        let g = &self.ingress[port.idx()];
        (g.packets, g.bytes)
    }
}

#[cfg(test)]
mod tests {
    use crate::ids::PortId;
    use crate::sim::testing::{run, tcp};
    use crate::{Scenario, Simulator, Time};

    const US: u64 = 1_000_000;

    /// h1 and h2 each send 20 segments of 1448 B (1500 B packets, initial window 20) to h0
    /// through s0, all links 10 Gb/s and 1 µs; `pfc` is the `[pfc]` table.
    fn two_into_one(pfc: &str) -> String {
        format!(
            "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 3\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
             [queue]\nbuffer = \"unlimited\"\n{pfc}\n[transport]\nmss = 1448\nheader = 52\ninitial_cwnd = 20\n\
             [[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = 28960\n[[flows]]\nsrc = \"h2\"\ndst = \"h0\"\nsize = 28960\n"
        )
    }

    fn port(sim: &Simulator, name: &str) -> PortId {
        sim.fabric.net.port_by_name(name).unwrap()
    }

    fn pfc(sim: &Simulator) -> &super::Pfc {
        sim.fabric.pfc.as_deref().unwrap()
    }

    #[test]
    fn two_senders_into_one_port_pause_and_resume_when_hand_computed() {
        // 1500 B take 1.2 µs at 10 Gb/s. h1's k-th packet A_k and h2's B_k leave their NICs at
        // 1.2(k−1) µs and reach s0 at 2.2 + 1.2(k−1) µs, A_k first (tie order: port h1->s0 is
        // the lower). s0->h0 serves them FIFO, A1 B1 A2 B2 ..., the j-th ending at 2.2 + 1.2j µs:
        // A_m leaves s0 at 2.2 + 1.2(2m−1), B_m at 2.2 + 2.4m. An arrival is counted before a
        // departure of the same picosecond (arrivals rank first), so after B_k arrives ingress
        // h2->s0 holds k − #{m : 2.4m < 1.2(k−1)} packets: 1 2 3 3 4 4 5 — B_7 at 9.4 µs makes 5
        // > xoff = 4 packets, and the PAUSE reaches h2 one link delay later, 10.4 µs, while B_9
        // serializes (9.6–10.8 µs): B_9 goes, B_10 waits. h1->s0 holds k − #{m : 2m−1 < k−1}
        // after A_k: 1 2 2 3 3 4 4 5 — A_8 at 10.6 µs, PAUSE at h1 at 11.6 µs during A_10
        // (10.8–12.0 µs). s0 then holds B up to B_9 and A up to A_10 (arrived 13.0 µs); the
        // ingress falls below xon = 2 packets when B_8 leaves at 21.4 µs (9 − 8 = 1) and when
        // A_9 leaves at 22.6 µs (10 − 9 = 1): RESUMEs reach h2 at 22.4 µs and h1 at 23.6 µs,
        // where B_10 and A_11 start. Each paused 12.0 µs.
        let sc = Scenario::from_toml(&two_into_one("[pfc]\nxoff = \"4pkt\"\nxon = \"2pkt\"")).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.keep_finished = true;
        let (a, b) = (port(&sim, "h1->s0"), port(&sim, "h2->s0"));
        let at = |sim: &mut Simulator, ps: u64| sim.run_until(Time::from_ps(ps));
        at(&mut sim, 10_400_000 - 1);
        assert!(!sim.fabric.net.ports[b.idx()].paused);
        assert_eq!(pfc(&sim).held(b), (4, 6000), "B_1..B_7 arrived, B_1..B_3 left");
        at(&mut sim, 10_400_000);
        assert!(sim.fabric.net.ports[b.idx()].paused, "h2's PAUSE one link delay after B_7 crossed xoff");
        assert_eq!(pfc(&sim).stats[b.idx()].pauses, 1);
        assert_eq!(sim.fabric.net.ports[b.idx()].stats.tx_packets, 9, "B_9 on the wire finishes");
        at(&mut sim, 11_600_000 - 1);
        assert!(!sim.fabric.net.ports[a.idx()].paused);
        at(&mut sim, 11_600_000);
        assert!(sim.fabric.net.ports[a.idx()].paused);
        assert_eq!(sim.fabric.net.ports[a.idx()].stats.tx_packets, 10, "A_10 on the wire finishes");
        at(&mut sim, 22_400_000 - 1);
        assert_eq!(pfc(&sim).held(b), (1, 1500), "B_9 alone at s0 since B_8 left at 21.4 µs");
        assert_eq!(sim.fabric.net.ports[b.idx()].stats.tx_packets, 9, "nothing left h2 while paused");
        at(&mut sim, 22_400_000);
        assert!(!sim.fabric.net.ports[b.idx()].paused);
        assert_eq!(sim.fabric.net.ports[b.idx()].stats.tx_packets, 10, "B_10 starts at the RESUME");
        assert_eq!(pfc(&sim).stats[b.idx()].paused_until(sim.now()), Time::from_ps(12 * US));
        at(&mut sim, 23_600_000 - 1);
        assert_eq!(sim.fabric.net.ports[a.idx()].stats.tx_packets, 10);
        at(&mut sim, 23_600_000);
        assert_eq!(sim.fabric.net.ports[a.idx()].stats.tx_packets, 11, "A_11 starts at the RESUME");
        assert_eq!(pfc(&sim).stats[a.idx()].paused_until(sim.now()), Time::from_ps(12 * US));
        sim.run();
        assert!(sim.conservation().holds());
        assert_eq!((tcp(&sim, 0).receiver.delivered(), tcp(&sim, 1).receiver.delivered()), (28_960, 28_960));
        let t = sim.port_table();
        assert_eq!(t.drops.iter().sum::<u64>(), 0, "a PFC fabric does not drop");
        let p = t.pfc.as_ref().unwrap();
        assert!(p.pauses[a.idx()] >= 1 && p.pauses[b.idx()] >= 1);
        let down = t.find("s0->h0").unwrap();
        assert_eq!(p.pauses[down], 0, "hosts do not pause");
        assert_eq!(t.tx_packets[down], 40);
    }

    /// h1 sends two 1500 B packets and h2 three of 500 B (a profile with mss 448) to h0, as in
    /// `two_into_one`; `pfc` is the `[pfc]` table.
    fn mixed_sizes(pfc: &str) -> String {
        format!(
            "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 3\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
             [queue]\nbuffer = \"unlimited\"\n{pfc}\n[transport]\nmss = 1448\nheader = 52\ninitial_cwnd = 20\n\
             [transports.small]\nmss = 448\n\
             [[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = 2896\n[[flows]]\nsrc = \"h2\"\ndst = \"h0\"\nsize = 1344\ntransport = \"small\"\n"
        )
    }

    #[test]
    fn byte_thresholds_with_mixed_sizes_pause_and_resume_when_hand_computed() {
        // 1500 B take 1.2 µs at 10 Gb/s, 500 B 0.4 µs. h1's A_k reach s0 at 1.2k + 1 µs (A1 2.2,
        // A2 3.4), h2's B_k at 0.4k + 1 µs (B1 1.4, B2 1.8, B3 2.2). s0->h0, FIFO (arrivals of a
        // picosecond rank before its departure; A1 before B3, port h1->s0 being the lower):
        // B1 1.4–1.8, B2 1.8–2.2, A1 2.2–3.4, B3 3.4–3.8, A2 3.8–5.0. Ingress h1->s0 holds
        // 3000 B > xoff = 2000 B when A2 arrives at 3.4 µs (before A1 leaves): PAUSE at h1 at
        // 4.4 µs. It falls to 1500 B at 3.4 (not below xon = 1000 B) and to 0 when A2 leaves at
        // 5.0: RESUME at h1 at 6.0 µs, paused 1.6 µs. Ingress h2->s0 holds at most 2 packets,
        // 1000 B: never paused, though in packets it holds as many as h1's.
        let sc = Scenario::from_toml(&mixed_sizes("[pfc]\nxoff = \"2000B\"\nxon = \"1000B\"")).unwrap();
        let mut sim = Simulator::new(&sc, None);
        let (a, b) = (port(&sim, "h1->s0"), port(&sim, "h2->s0"));
        let paused = |sim: &Simulator, p: PortId| sim.fabric.net.ports[p.idx()].paused;
        sim.run_until(Time::from_ps(4_400_000 - 1));
        assert!(!paused(&sim, a));
        assert_eq!(pfc(&sim).held(a), (1, 1500), "A2 alone: A1 left at 3.4 µs");
        sim.run_until(Time::from_ps(4_400_000));
        assert!(paused(&sim, a));
        sim.run_until(Time::from_ps(6_000_000 - 1));
        assert!(paused(&sim, a));
        assert_eq!(pfc(&sim).held(a), (0, 0));
        sim.run_until(Time::from_ps(6_000_000));
        assert!(!paused(&sim, a));
        sim.run();
        let t = sim.port_table();
        let p = t.pfc.as_ref().unwrap();
        assert_eq!((p.pauses[a.idx()], p.paused_s[a.idx()]), (1, 1.6e-6));
        assert_eq!(p.pauses[b.idx()], 0);
    }

    #[test]
    fn with_mixed_sizes_and_byte_thresholds_every_paused_port_is_resumed_by_the_end() {
        // Three flows of different segment sizes and odd lengths (short last segments) over two
        // hops, thresholds in bytes that are no multiple of any packet size: when the run ends
        // every ingress is empty, no port is paused, and each pause was followed by its RESUME.
        let table = "[pfc]\nxoff = \"7001B\"\nxon = \"2999B\"";
        let doc = two_hops(table).replace("[transport]\n", "[transports.small]\nmss = 448\n[transports.mid]\nmss = 948\n[transport]\n");
        let doc = doc.replacen("size = 57920\n", "size = 57001\ntransport = \"small\"\n", 1).replacen("size = 57920\n", "size = 40003\ntransport = \"mid\"\n", 1);
        let mut sim = run(&doc);
        assert!(sim.flow_table().fct_ps.iter().all(Option::is_some), "every flow finished");
        let t = sim.port_table();
        let p = t.pfc.as_ref().unwrap();
        assert!(p.pauses.iter().sum::<u64>() >= 3, "the scenario pauses: {:?}", p.pauses);
        for (i, port) in sim.fabric.net.ports.iter().enumerate() {
            assert!(!port.paused, "{} still paused", port.name);
            assert_eq!(pfc(&sim).held(PortId::from_idx(i)), (0, 0), "{}'s peer still counts packets from it", port.name);
            assert!(pfc(&sim).stats[i].since.is_none(), "{} has a PAUSE without its RESUME", port.name);
        }
    }

    #[test]
    fn a_packet_leaves_its_ingress_count_with_the_size_it_entered_with() {
        // `on_wire`/`left` take no size: a packet counted at 1500 B uncounts the 1500 B recorded at
        // `entered`, whatever it weighs when it leaves, so the ingress empties and resumes its
        // upstream (a size read on the way out could leave bytes counted for good).
        let sc = Scenario::from_toml(&two_into_one("[pfc]\nxoff = \"1000B\"\nxon = \"500B\"")).unwrap();
        let sim = Simulator::new(&sc, None);
        let mut f = super::Pfc::new(super::PfcSpec { xoff: crate::queue::Amount::Bytes(1000), xon: crate::queue::Amount::Bytes(500), stop_senders: false }, &sim.fabric.net);
        let (up, down) = (port(&sim, "h1->s0"), port(&sim, "s0->h0"));
        let id = crate::ids::PacketId::from_idx(3);
        assert!(f.entered(up, id, 1500), "1500 B > xoff: PAUSE");
        f.on_wire(down, id);
        assert_eq!(f.left(down), Some(up), "RESUME");
        assert_eq!(f.held(up), (0, 0));
    }

    #[test]
    fn the_per_packet_table_doubles_when_a_packet_index_outgrows_it() {
        let sc = Scenario::from_toml(&two_into_one("[pfc]\nxoff = \"4pkt\"\nxon = \"2pkt\"")).unwrap();
        let sim = Simulator::new(&sc, None);
        let mut f = super::Pfc::new(sc.pfc.unwrap(), &sim.fabric.net);
        let n = sim.fabric.net.ports.len();
        assert_eq!(f.entered_by.len(), 16 * n, "sized up front");
        let up = port(&sim, "h1->s0");
        f.entered(up, crate::ids::PacketId::from_idx(16 * n), 100);
        assert_eq!(f.entered_by.len(), 32 * n);
        f.entered(up, crate::ids::PacketId::from_idx(1000 * n), 100);
        assert_eq!(f.entered_by.len(), 1000 * n + 1, "a jump beyond double takes what it needs");
    }

    #[test]
    fn without_pfc_the_same_packets_queue_and_the_tables_have_no_pfc_columns() {
        let mut sim = run(&two_into_one(""));
        let t = sim.port_table();
        assert!(t.pfc.is_none() && sim.fabric.pfc.is_none());
        // Nothing holds the senders back: A_k and B_k arrive at 2.2 + 1.2(k−1) µs, when k − 2
        // packets have left s0->h0 and one is on its wire (the departure of that picosecond
        // comes after the arrivals), so k + 1 wait: 21 after A_20 and B_20.
        assert_eq!(t.max_queue_packets[t.find("s0->h0").unwrap()], 21);
    }

    #[test]
    fn thresholds_in_bytes_act_as_the_same_packets() {
        // 6000 B is 4 packets of 1500 B, 3000 B 2: the same timeline as in packets.
        let mut pk = run(&two_into_one("[pfc]\nxoff = \"4pkt\"\nxon = \"2pkt\""));
        let mut by = run(&two_into_one("[pfc]\nxoff = \"6000B\"\nxon = \"3000B\""));
        assert_eq!(format!("{:?}", pk.port_table()), format!("{:?}", by.port_table()));
    }

    /// a and b on s1, s1 up to s2 at 20 Gb/s (a and b together fit: s1 itself never queues),
    /// c, r and u on s2, host links 10 Gb/s; a → r and c → r meet at s2->r, b → u shares s1->s2
    /// with a but its port s2->u is free.
    fn two_hops(pfc: &str) -> String {
        let link = |x: &str, y: &str| {
            let rate = if x == "s1" { "20Gbps" } else { "10Gbps" };
            format!("{{ a = \"{x}\", b = \"{y}\", rate = \"{rate}\", delay = \"1us\" }}")
        };
        let links = [("a", "s1"), ("b", "s1"), ("s1", "s2"), ("c", "s2"), ("r", "s2"), ("u", "s2")].map(|(x, y)| link(x, y)).join(", ");
        let flow = |s: &str, d: &str| format!("[[flows]]\nsrc = \"{s}\"\ndst = \"{d}\"\nsize = 57920\n");
        format!(
            "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"explicit\"\nhosts = [\"a\", \"b\", \"c\", \"r\", \"u\"]\nswitches = [\"s1\", \"s2\"]\nlinks = [{links}]\n\
             [queue]\nbuffer = \"unlimited\"\n{pfc}\n[transport]\nmss = 1448\nheader = 52\ninitial_cwnd = 40\n{}{}{}",
            flow("a", "r"),
            flow("c", "r"),
            flow("b", "u")
        )
    }

    /// h1 -> s0 -> h0: h1's link 10 Gb/s with 0.5 µs of wire, h0's 1 Gb/s with 1 µs; 1500 B
    /// packets (mss 1450 + 50 B); one flow of 20 segments whose application writes a segment
    /// every 2 µs (5.8 Gb/s); `[pfc]` thresholds of 4 and 2 packets and `extra` keys.
    fn slow_writer(extra: &str) -> String {
        "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"explicit\"\nhosts = [\"h0\", \"h1\"]\nswitches = [\"s0\"]\n\
         links = [{ a = \"h1\", b = \"s0\", rate = \"10Gbps\", delay = \"0.5us\" }, { a = \"s0\", b = \"h0\", rate = \"1Gbps\", delay = \"1us\" }]\n\
         [queue]\nbuffer = \"unlimited\"\n[pfc]\nxoff = \"4pkt\"\nxon = \"2pkt\"\n"
            .to_string()
            + extra
            + "\n[transport]\nmss = 1450\nheader = 50\nhandshake = false\ninitial_cwnd = 100\napp_rate = \"5.8Gbps\"\n\
               [[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = 29000\n"
    }

    #[test]
    fn stop_senders_keeps_the_data_out_of_a_paused_nic_until_the_resume() {
        // Segment k is written at 2k µs and leaves h1 at once (1.2 µs of wire), its last bit at s0
        // at 2k + 1.7 µs; s0->h0 takes 12 µs a packet: the first ends at 3.7 + 12 = 15.7 µs. So
        // s0's ingress from h1 holds k packets after segment k up to 15.7 µs: segment 5 (11.7 µs)
        // makes 5 > 4, and the PAUSE reaches h1 at 12.2 µs, during segment 6 (12.0–13.2 µs),
        // which goes. Departures at 15.7, 27.7, 39.7, 51.7, 63.7 µs bring the ingress from 6 to 1
        // < 2: the RESUME reaches h1 at 64.2 µs. Meanwhile the application writes segments 7–20
        // (14–40 µs). Without stop_senders each is handed to the paused NIC as it is written: at
        // 40 µs the NIC holds 14. With it the sender blocks at segment 7 (14 µs), the NIC holds
        // none, and the RESUME wakes the sender at 64.2 µs, which hands it all 14 at that instant.
        // The wire sees the same packets at the same times either way (they were all written).
        let us = |x: f64| Time::from_ps((x * 1e6).round() as u64);
        let mut runs = Vec::new();
        for stop in [false, true] {
            let sc = Scenario::from_toml(&slow_writer(&format!("stop_senders = {stop}"))).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(sc.pfc.unwrap().stop_senders, stop);
            let mut sim = Simulator::new(&sc, None);
            let nic = port(&sim, "h1->s0");
            let sent = |sim: &Simulator| tcp(sim, 0).sender.stats.segments_sent;
            let queued = |sim: &Simulator| sim.fabric.net.ports[nic.idx()].queue.len_packets();
            sim.run_until(us(12.2) - Time(1));
            assert!(!sim.fabric.net.ports[nic.idx()].paused);
            assert_eq!(sent(&sim), 6);
            sim.run_until(us(12.2));
            assert!(sim.fabric.net.ports[nic.idx()].paused, "stop_senders = {stop}: PAUSE at 12.2 µs");
            sim.run_until(us(40.0));
            assert_eq!((sent(&sim), queued(&sim)), if stop { (6, 0) } else { (20, 14) }, "stop_senders = {stop} at 40 µs");
            sim.run_until(us(64.2) - Time(1));
            assert!(sim.fabric.net.ports[nic.idx()].paused);
            assert_eq!(sent(&sim), if stop { 6 } else { 20 });
            sim.run_until(us(64.2));
            assert!(!sim.fabric.net.ports[nic.idx()].paused, "RESUME at 64.2 µs");
            assert_eq!(sent(&sim), 20, "stop_senders = {stop}: every segment handed over by the RESUME");
            sim.run();
            assert!(sim.flow_table().fct_ps[0].is_some());
            let t = sim.port_table();
            runs.push((sim.flow_table().fct_ps[0], t.tx_packets.clone(), t.pfc.clone().map(|p| (p.pauses, p.paused_s))));
        }
        assert_eq!(runs[0], runs[1], "the same wire timeline");
    }

    #[test]
    fn the_pause_reaches_b_only_after_s2_paused_s1() {
        // Step through the run 100 ns at a time: the first PAUSE at b's NIC comes while s1->s2
        // is paused (s1 then holds b's packets behind a's), never before s2 paused s1.
        let sc = Scenario::from_toml(&two_hops("[pfc]\nxoff = \"4pkt\"\nxon = \"2pkt\"")).unwrap();
        let mut sim = Simulator::new(&sc, None);
        let (up, b) = (port(&sim, "s1->s2"), port(&sim, "b->s1"));
        let mut first_up = None;
        for step in 1..=2000u64 {
            sim.run_until(Time::from_ps(step * 100_000));
            let paused = |p: PortId| sim.fabric.net.ports[p.idx()].paused;
            if first_up.is_none() && paused(up) {
                first_up = Some(step);
            }
            if pfc(&sim).stats[b.idx()].pauses > 0 {
                assert!(first_up.is_some_and(|u| u <= step) && paused(up), "b paused at step {step}, s1->s2 first at {first_up:?}");
                return;
            }
        }
        panic!("b was never paused");
    }

    #[test]
    fn a_pause_propagates_two_hops_and_blocks_a_flow_to_a_free_port() {
        let mut on = run(&two_hops("[pfc]\nxoff = \"4pkt\"\nxon = \"2pkt\""));
        let mut off = run(&two_hops(""));
        let t = on.port_table();
        let p = t.pfc.as_ref().unwrap();
        let n = |name: &str| p.pauses[t.find(name).unwrap()];
        // s2->r is the only congested port: s2's ingress from s1 (a's packets) pauses s1->s2,
        // whose queue then holds a's and b's packets: s1's ingress from b pauses b.
        assert!(n("s1->s2") >= 1, "s2 paused s1");
        assert!(n("b->s1") >= 1, "s1 paused b, whose flow goes to the free port s2->u");
        assert!(n("c->s2") >= 1 && n("a->s1") >= 1);
        assert_eq!(n("s2->u") + n("u->s2") + n("r->s2") + n("s2->s1"), 0);
        assert_eq!(t.drops.iter().sum::<u64>(), 0);
        // Head-of-line blocking. b's 40 packets alone: the last leaves b at 48 µs, reaches s1 at
        // 49.0, s2 at 50.6 (0.6 µs at 20 Gb/s + 1 µs) and u at 52.8; its 52 B ACK takes
        // 41.6 + 20.8 + 41.6 ns of serialization and 3 µs of wires back: FCT 55.904 µs. Without
        // PFC a's packets share s1->s2 but fit it: one tie there costs b 0.6 µs. With PFC b's NIC
        // stops while s1 holds b's packets behind a's, so b finishes at least its paused time
        // later than alone (measured: 106.1 µs, paused 44 µs).
        let fct = |sim: &mut Simulator| sim.flow_table().fct_ps[2].unwrap();
        let (b_on, b_off) = (fct(&mut on), fct(&mut off));
        let alone = 55_904_000;
        assert_eq!(b_off, alone + 600_000, "without PFC b barely notices a and c");
        let paused = p.paused_s[t.find("b->s1").unwrap()];
        assert!(b_on as f64 >= alone as f64 + paused * 1e12 && paused > 20e-6, "b with PFC {b_on} ps, paused {paused} s");
        assert_eq!(off.port_table().drops.iter().sum::<u64>(), 0);
    }
}

#[cfg(test)]
mod input {
    use crate::Scenario;

    /// The one line the scenario reader gives for `two_into_one` with `queue` and `pfc` swapped in.
    fn error(queue: &str, pfc: &str) -> String {
        let doc = format!(
            "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 3\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
             [queue]\n{queue}\n[pfc]\n{pfc}\n[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = 28960\n"
        );
        let e = Scenario::from_toml(&doc).expect_err("refused");
        assert_eq!(e.0.len(), 1, "one problem: {e}");
        e.0[0].to_string()
    }

    const OK_QUEUE: &str = "buffer = \"unlimited\"";

    #[test]
    fn bad_thresholds_are_refused_with_their_key() {
        let e = error(OK_QUEUE, "xoff = \"4pkt\"\nxon = \"5pkt\"");
        assert!(e.contains("pfc.xon") && e.contains("5pkt is above xoff (4pkt)"), "{e}");
        let e = error(OK_QUEUE, "xoff = \"-5KB\"\nxon = \"2KB\"");
        assert!(e.contains("pfc.xoff"), "{e}");
        let e = error(OK_QUEUE, "xon = \"2pkt\"");
        assert!(e.contains("pfc.xoff"), "{e}");
        let e = error(OK_QUEUE, "xoff = \"0pkt\"\nxon = \"0pkt\"");
        assert!(e.contains("pfc.xon: 0: an ingress never holds less"), "{e}");
        let e = error(OK_QUEUE, "xoff = \"4pkt\"\nxon = \"2pkt\"\nxof = 3");
        assert!(e.contains("pfc.xof"), "{e}");
        let e = error(OK_QUEUE, "xoff = \"4pkt\"\nxon = \"2pkt\"\nstop_senders = \"yes\"");
        assert!(e.contains("pfc.stop_senders: 'yes' is not true or false"), "{e}");
    }

    #[test]
    fn thresholds_in_mixed_units_are_refused() {
        let e = error(OK_QUEUE, "xoff = \"4pkt\"\nxon = \"2KB\"");
        assert!(e.contains("pfc.xon: 2000B is in bytes but xoff (4pkt) in packets"), "{e}");
        let e = error(OK_QUEUE, "xoff = \"9KB\"\nxon = \"12pkt\"");
        assert!(e.contains("pfc.xon: 12pkt is in packets but xoff (9000B) in bytes"), "{e}");
    }

    #[test]
    fn trimming_queues_and_ndp_are_refused_saying_why() {
        let pfc = "xoff = \"4pkt\"\nxon = \"2pkt\"";
        // Unlimited, so nothing could drop: the trimming itself is refused.
        let e = error("buffer = \"unlimited\"\nqueues = 2\nadmission = \"trim\"", pfc);
        assert!(e.starts_with("pfc: not with trimming queues (port s0->h0 has admission = \"trim\")") && e.contains("lossless"), "{e}");
        let trim = "buffer = \"unlimited\"\nqueues = 2\nclasses = [0, 1]\nadmission = \"trim\"\n[host_queue]\nqueues = 2\nclasses = [0, 1]";
        let doc = |queue: &str| {
            format!(
                "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 3\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
                 [queue]\n{queue}\n[pfc]\n{pfc}\n[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = 28960\ntransport = \"ndp\"\n"
            )
        };
        for queue in [trim, OK_QUEUE] {
            let e = Scenario::from_toml(&doc(queue)).expect_err("refused");
            assert_eq!(e.0.len(), 1, "{e}");
            let e = e.0[0].to_string();
            assert!(e.starts_with("pfc: not with NDP (transport 'ndp')") && e.contains("trim"), "{e}");
        }
    }

    #[test]
    fn a_fabric_that_could_drop_is_refused() {
        let pfc = "xoff = \"4pkt\"\nxon = \"2pkt\"";
        let e = error("buffer = \"100pkt\"", pfc);
        assert!(e.contains("pfc: a PFC fabric does not drop, but port s0->h0 has a 100pkt buffer"), "{e}");
        let e = error("buffer = \"unlimited\"\nqueues = 2\nqueue_buffer = \"50pkt\"", pfc);
        assert!(e.contains("per-queue limits"), "{e}");
        let e = error("buffer = \"unlimited\"\ndiscipline = \"red\"\nred = { min_th = \"20pkt\", max_th = \"60pkt\" }", pfc);
        assert!(e.contains("RED"), "{e}");
        // The switch buffer by default (100 packets) is a drop limit too.
        let e = error("", pfc);
        assert!(e.contains("100pkt buffer"), "{e}");
    }
}
