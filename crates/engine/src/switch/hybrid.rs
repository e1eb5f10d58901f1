//! The simulator's side of hybrid circuit/packet networks (model in `crate::rdcn`): admission to
//! the source ToR's VOQs, pulls by the packet uplink and the circuit lanes, the circuit switch's
//! day/night events, and the measurements taken as packets leave the hybrid network.
//!
//! The ACK bypass (`[tor] ack_bypass`, Mukerjee et al. §4's validation of Table 1) is not here:
//! it takes a pure ACK for another rack at its sending host, in `Fabric::at_node`, and schedules
//! its arrival at the destination host through `Rdcn::host_down`, so that nothing here sees it.

use super::{Ctx, Fabric};
use crate::event::Event;
use crate::ids::{PacketId, PortId};
use crate::network::Port;
use crate::packet::Kind;
use crate::queue::Admit;
use crate::rdcn::{CircuitDay, Feedback, Rack, Rdcn, Role, SeqView};
use crate::time::Time;

/// Could the packet switch's port take one more packet of `size` bytes, counting the packets
/// already pulled towards it (`inflight`)? Conservative by the one packet on its wire.
#[inline]
fn eps_room(p: &Port, inflight: (u64, u64), size: u64) -> bool {
    let (n, b) = (p.queue.len_packets() + inflight.0 + 1, p.queue.len_bytes() + inflight.1 + size);
    p.queue.limit().is_none_or(|l| !l.exceeded_by(n, b))
}

/// Bytes port `p` has serialized by `now`: those it started, less what of the packet on its wire
/// is still to go.
fn serialized(p: &Port, now: Time) -> f64 {
    let left = if p.stats.busy_until > now { (p.stats.busy_until - now).0 as f64 * p.rate.bps() as f64 / 8e12 } else { 0.0 };
    p.stats.tx_bytes as f64 - left
}

impl Fabric {
    /// A packet for rack `d` entered ToR `s`: into VOQ (s, d), then let an uplink take it.
    pub(super) fn tor_ingress(&mut self, s: Rack, d: Rack, id: PacketId, cx: &mut Ctx) {
        let now = cx.now;
        let r = self.rdcn.as_deref_mut().unwrap();
        if r.seg.is_some() {
            return self.seg_ingress(s, d, id, cx);
        }
        let pi = r.pair(s, d);
        let (cap, k) = r.spec.policy.limits(&r.spec.plan, s, d, now);
        let pkt = cx.slab.get_mut(id);
        pkt.stamp = now;
        let old = r.voqs[pi].len_packets();
        let first = !r.voqs[pi].used;
        if r.voqs[pi].offer(id, pkt, cap, k, now) == Admit::Dropped {
            self.dropped += 1;
            cx.slab.free(id);
            return;
        }
        if first {
            if let Some(day) = r.spec.plan.pair_day(s, d, Time::ZERO) {
                let sp = &r.spec;
                r.views[pi] = Some(Box::new(SeqView::new(day.day_start, sp.view_before, sp.plan.week(), sp.view_bin, r.warmup)));
            }
        }
        if let Some(v) = r.views[pi].as_deref_mut() {
            v.advance(now, old);
        }
        if r.spec.plan.circuit_dst(s, now) == Some(d) {
            self.circuit_pull(s, cx);
        } else {
            self.packet_pull(s, cx);
        }
    }

    /// Take the head of VOQ `pi` (size `size`), keeping the week-folded view's integral.
    #[inline]
    fn voq_pop(r: &mut Rdcn, pi: usize, size: u32, now: Time) -> PacketId {
        let old = r.voqs[pi].len_packets();
        if let Some(v) = r.views[pi].as_deref_mut() {
            v.advance(now, old);
        }
        r.voqs[pi].pop(size, now).unwrap()
    }

    /// ToR `s`'s packet uplink, if idle, takes the next packet round-robin from the VOQs whose
    /// pair's packet path is open and whose packet-switch port has room (Etalon §4.2).
    pub(super) fn packet_pull(&mut self, s: Rack, cx: &mut Ctx) {
        let now = cx.now;
        let r = self.rdcn.as_deref_mut().unwrap();
        if r.seg.is_some() {
            return self.seg_packet_pull(s, cx);
        }
        let up = r.uplink[s as usize];
        if self.net.ports[up.idx()].busy {
            return;
        }
        let n = r.racks as u32;
        let mut blocked = false;
        let start = r.rr[s as usize];
        for step in 1..=n {
            let d = (start + step) % n;
            let pi = r.pair(s, d);
            let Some(head) = r.voqs[pi].front() else { continue };
            if !r.spec.policy.packet_path_open(&r.spec.plan, s, d, now) {
                continue;
            }
            let size = cx.slab.get(head).size;
            let di = d as usize;
            if !eps_room(&self.net.ports[r.eps_down[di].idx()], r.eps_inflight[di], size as u64) {
                blocked = true;
                continue;
            }
            let id = Self::voq_pop(r, pi, size, now);
            r.rr[s as usize] = d;
            r.eps_inflight[di].0 += 1;
            r.eps_inflight[di].1 += size as u64;
            r.set_eps_blocked(s, false);
            self.start_tx(up, id, cx);
            return;
        }
        r.set_eps_blocked(s, blocked);
    }

    /// ToR `s`'s circuit lane, if its circuit is up and the lane idle, takes the head of the VOQ
    /// it reaches — if the packet's serialization ends before the day does.
    pub(super) fn circuit_pull(&mut self, s: Rack, cx: &mut Ctx) {
        let now = cx.now;
        let r = self.rdcn.as_deref_mut().unwrap();
        if r.seg.is_some() {
            return self.seg_circuit_pull(s, cx);
        }
        let phase = r.spec.plan.phase(now);
        if !phase.day {
            return;
        }
        let Some(d) = r.spec.plan.slots()[phase.slot].matching[s as usize] else { return };
        let pi = r.pair(s, d);
        let lane = r.lanes[pi];
        let Some(head) = r.voqs[pi].front() else { return };
        let p = &self.net.ports[lane.idx()];
        let size = cx.slab.get(head).size;
        if p.busy || now + p.rate.serialization(size as u64) > phase.ends {
            return;
        }
        let id = Self::voq_pop(r, pi, size, now);
        r.note_lane_tx(pi, now);
        self.start_tx(lane, id, cx);
    }


    /// The circuit switch reaches a boundary: a day starts (open its rows, start the lanes) or a
    /// night starts (close the day's rows; pairs change packet-path eligibility, so wake the
    /// packet uplinks). Schedules the next boundary.
    pub(crate) fn reconfigure(&mut self, cx: &mut Ctx) {
        if self.rdcn.as_deref().unwrap().seg.is_some() {
            self.seg_boundary(cx);
        }
        let now = cx.now;
        let r = self.rdcn.as_deref_mut().unwrap();
        let phase = r.spec.plan.phase(now);
        let n = r.racks;
        // The packet uplinks' bytes over the phase that ends now, if it began after the warm-up.
        let count = now > r.phase_start && r.phase_start >= r.warmup;
        let span = now - r.phase_start;
        for s in 0..n {
            let mark = serialized(&self.net.ports[r.uplink[s].idx()], now);
            if count {
                let acc = if r.phase_day { &mut r.uplink_day[s] } else { &mut r.uplink_night[s] };
                acc.0 += mark - r.uplink_mark[s];
                acc.1 = acc.1 + span;
            }
            r.uplink_mark[s] = mark;
        }
        r.phase_start = now;
        r.phase_day = phase.day;
        if phase.day {
            r.day_start = now;
            r.day_open.clear();
            for s in 0..n {
                if let Some(d) = r.spec.plan.slots()[phase.slot].matching[s] {
                    let pi = r.pair(s as Rack, d);
                    let lane = r.lanes[pi];
                    r.wire_first[pi] = Time::MAX;
                    r.day_open.push((s as Rack, d, self.net.ports[lane.idx()].stats.tx_bytes));
                }
            }
            for s in 0..n {
                self.circuit_pull(s as Rack, cx);
            }
        } else {
            let rate = r.spec.circuit_rate;
            let length = now - r.day_start;
            for &(s, d, b0) in &r.day_open {
                let pi = r.pair(s, d);
                if r.voqs[pi].used {
                    let lane = &self.net.ports[r.lanes[pi].idx()];
                    let bytes = lane.stats.tx_bytes - b0;
                    let cap = rate.bytes_in(length).max(1);
                    let wire = (bytes > 0 && r.wire_first[pi] != Time::MAX).then(|| (r.wire_first[pi], lane.stats.busy_until));
                    r.days.push(CircuitDay { src: s, dst: d, start: r.day_start, length, bytes, utilization: bytes as f64 / cap as f64, data: r.voqs[pi].data, wire });
                }
            }
            r.day_open.clear();
            for s in 0..n {
                self.packet_pull(s as Rack, cx);
            }
        }
        if phase.ends <= cx.end {
            cx.events.schedule(phase.ends, Event::Circuit);
        }
    }

    /// A packet crossed a port of the hybrid network (`role` ≠ Plain) and is about to reach the
    /// node behind it.
    pub(super) fn hybrid_arrival(&mut self, role: Role, id: PacketId, cx: &mut Ctx) {
        let now = cx.now;
        let r = self.rdcn.as_deref_mut().unwrap();
        let pkt = cx.slab.get_mut(id);
        let (dst_rack, circuit) = match role {
            Role::Uplink(_) => {
                let d = r.rack_of_host(pkt.dst) as usize;
                r.eps_inflight[d].0 -= 1;
                r.eps_inflight[d].1 -= pkt.size as u64;
                return;
            }
            Role::Lane(_, d) => (d, true),
            Role::EpsDown(d) => (d, false),
            Role::Plain => return,
        };
        // Leaving the hybrid network at the destination ToR.
        let src_rack = r.rack_of_host(pkt.src);
        match pkt.kind {
            Kind::Data => {
                if let Some(seg) = r.seg.as_deref_mut() {
                    seg.elephants.delivered(pkt.flow, pkt.size as u64, circuit);
                }
                if now >= r.warmup {
                    let h = if circuit { &mut r.latency_circuit } else { &mut r.latency_packet };
                    h.record(now - pkt.stamp);
                }
                let pi = r.pair(src_rack, dst_rack);
                let len = r.voqs[pi].len_packets();
                if let Some(v) = r.views[pi].as_deref_mut() {
                    v.delivered(now, pkt.size as u64, len);
                }
            }
            Kind::Syn | Kind::SynAck | Kind::Control => {}
            Kind::Ack => {
                // reTCP feedback (§5.3): at ToR S (= this ACK's destination rack), mark ACKs from
                // rack D with the state of the circuit S→D.
                if r.spec.policy.feedback_mode() != Feedback::Off {
                    pkt.tcp_mut().ece = r.spec.policy.feedback(&r.spec.plan, dst_rack, src_rack, now);
                }
            }
        }
    }

    /// A packet was lost on the wire behind `port` (a lossy packet link, or a scheduled fault).
    pub(super) fn hybrid_wire_loss(&mut self, port: PortId, id: PacketId, cx: &mut Ctx) {
        let r = self.rdcn.as_deref_mut().unwrap();
        if let Role::Uplink(_) = r.role[port.idx()] {
            let pkt = cx.slab.get(id);
            let d = r.rack_of_host(pkt.dst) as usize;
            r.eps_inflight[d].0 -= 1;
            r.eps_inflight[d].1 -= pkt.size as u64;
        }
    }

    /// After a hybrid-network port finished a packet: pull the next one.
    pub(super) fn hybrid_tx_done(&mut self, port: PortId, cx: &mut Ctx) {
        let r = self.rdcn.as_deref_mut().unwrap();
        match r.role[port.idx()] {
            Role::Uplink(s) => self.packet_pull(s, cx),
            Role::Lane(s, _) => self.circuit_pull(s, cx),
            Role::EpsDown(_) => {
                if r.eps_blocked_count > 0 {
                    for s in 0..r.racks {
                        if self.rdcn.as_deref().unwrap().eps_blocked[s] {
                            self.packet_pull(s as Rack, cx);
                        }
                    }
                }
            }
            Role::Plain => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rdcn::Role;
    use crate::sim::testing::*;
    use crate::{Scenario, Simulator, Time};

    fn hybrid(racks: usize, hosts: usize, host_rate: &str, circuit: &str, tor: &str, flows: &str, end: &str) -> String {
        format!(
            r#"
[simulation]
end = "{end}"
[topology]
kind = "rdcn"
racks = {racks}
hosts_per_rack = {hosts}
host_link = {{ rate = "{host_rate}", delay = "1us" }}
packet_link = {{ rate = "10Gbps", delay = "5us" }}
circuit_link = {{ rate = "80Gbps", delay = "30us" }}
[circuit]
{circuit}
[tor]
{tor}
[transport]
mss = 1448
header = 52
{flows}
"#
        )
    }

    const STROBE: &str = "schedule = \"strobe\"\nday = \"180us\"\nnight = \"20us\"";

    #[test]
    fn one_packet_out_by_the_packet_switch_and_its_ack_back_by_the_circuit() {
        // 3 racks, strobe: slot 0 = night [0, 20) µs, day [20, 200) µs with 0→1, 1→2, 2→0;
        // slot 1 = night [200, 220), day [220, 400) with 0→2, 1→0, 2→1.
        // Data h0 (rack 0) → h2 (rack 2), 1500 B (1.2 µs per 10 Gb/s hop), at t = 0: pair (0, 2)
        // has its circuit only at 220 µs, so the packet path is open:
        //   host wire 1.2 + 1 → ToR0 at 2.2; uplink 1.2 + 5 → eps at 8.4; 1.2 + 5 → ToR2 at
        //   14.6; 1.2 + 1 → h2 at 16.8 µs.
        // The FIN is ACKed at once (52 B: 41.6 ns per 10 Gb/s hop, 5.2 ns at 80 Gb/s): ToR2 at
        // 17.8416 µs. Pair (2, 0) is in the night before its day [20, 200): the ACK waits in
        // VOQ (2, 0) until 20 µs, crosses the circuit (5.2 ns + 30 µs) to ToR0 at 50.0052 µs
        // and reaches h0 at 51.0468 µs.
        let doc = hybrid(3, 1, "10Gbps", STROBE, "voq = \"16pkt\"", "[[flows]]\nsrc = \"h0\"\ndst = \"h2\"\nsize = 1448", "1ms");
        let sc = Scenario::from_toml(&doc).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.run_until(Time::from_ps(16_800_000 - 1));
        assert_eq!(tcp(&sim, 0).receiver.delivered(), 0);
        sim.run_until(Time::from_ps(16_800_000));
        assert_eq!(tcp(&sim, 0).receiver.delivered(), 1448);
        sim.run_until(Time::from_us(19));
        let r = sim.fabric.rdcn.as_deref().unwrap();
        assert_eq!(r.voqs[r.pair(2, 0)].len_packets(), 1, "the ACK waits for its circuit");
        sim.run();
        let t = sim.flow_table();
        assert_eq!(t.fct_ps[0], Some(51_046_800));
        let r = sim.fabric.rdcn.as_deref().unwrap();
        // Latency through the hybrid network of the data packet: 14.6 − 2.2 = 12.4 µs.
        assert_eq!(r.latency_packet.count(), 1);
        assert!((r.latency_packet.quantile_us(0.5).unwrap() - 12.4).abs() < 0.2);
        // The circuit day of pair (2, 0) carried the 52-byte ACK: 52 / (10 GB/s·180 µs).
        let d = r.days.iter().find(|d| (d.src, d.dst) == (2, 0)).unwrap();
        assert_eq!((d.start, d.length, d.bytes), (Time::from_us(20), Time::from_us(180), 52));
        assert!((d.utilization - 52.0 / 1.8e6).abs() < 1e-12);
        assert!(sim.conservation().holds());
    }

    #[test]
    fn backlogged_voq_fills_the_circuit_day_but_for_the_last_packet() {
        // 2 racks: one slot, night [0, 20) and day [20, 200) µs every 200 µs, 0→1 and 1→0. 16
        // long flows with a 200-segment initial window into a huge VOQ keep it backlogged. A
        // 9052 B packet takes 0.9052 µs at 80 Gb/s; only packets that finish before the day ends
        // go: ⌊180 / 0.9052⌋ = 198 per day, 198·9052 B of the 1.8 MB the day could carry.
        let flows: String = (0..16).map(|i| format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h{}\"\n", 16 + i)).collect();
        let doc = hybrid(2, 16, "10Gbps", STROBE, "voq = \"100000pkt\"", &flows, "2ms")
            .replace("mss = 1448", "mss = 9000\ninitial_cwnd = 200");
        let sim = run(&doc);
        let r = sim.fabric.rdcn.as_deref().unwrap();
        let days: Vec<_> = r.days.iter().filter(|d| (d.src, d.dst) == (0, 1)).collect();
        assert_eq!(days.len(), 10);
        for d in &days {
            assert_eq!(d.bytes, 198 * 9052, "day at {:?}", d.start);
            assert!((d.utilization - 198.0 * 9052.0 / 1.8e6).abs() < 1e-12);
        }
    }

    #[test]
    fn nothing_crosses_the_circuit_at_night() {
        let flows: String = (0..4).map(|i| format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h{}\"\n", 4 + i)).collect();
        let doc = hybrid(3, 4, "10Gbps", STROBE, "voq = \"64pkt\"", &flows, "3ms");
        let sc = Scenario::from_toml(&doc).unwrap();
        let mut sim = Simulator::new(&sc, None);
        let plan = sc.topology.rdcn.as_ref().unwrap().plan.clone();
        let lanes: Vec<usize> = (0..sim.fabric.net.ports.len()).filter(|&p| matches!(sim.fabric.rdcn.as_deref().unwrap().role[p], Role::Lane(..))).collect();
        assert_eq!(lanes.len(), 6);
        let mut checked_nights = 0;
        let mut t = Time::ZERO;
        while t < Time::from_ms(3) {
            t = t + Time::from_ns(500);
            sim.run_until(t);
            if !plan.phase(t).day {
                checked_nights += 1;
                for &p in &lanes {
                    assert!(!sim.fabric.net.ports[p].busy, "lane {} busy at night, t = {t:?}", sim.fabric.net.ports[p].name);
                }
            }
        }
        assert!(checked_nights > 500);
        // And every byte a lane sent is accounted to one of the pair's days.
        let r = sim.fabric.rdcn.as_deref().unwrap();
        let lane_bytes: u64 = lanes.iter().map(|&p| sim.fabric.net.ports[p].stats.tx_bytes).sum();
        let day_bytes: u64 = r.days.iter().map(|d| d.bytes).sum();
        assert!(lane_bytes > 1_000_000);
        let open: u64 = r.day_open.iter().map(|&(s, d, b0)| sim.fabric.net.ports[r.lanes[r.pair(s, d)].idx()].stats.tx_bytes - b0).sum();
        assert_eq!(lane_bytes, day_bytes + open);
    }

    #[test]
    fn packet_uplink_serves_voqs_round_robin() {
        // 4 racks, no circuit ever (a single slot with an empty matching): the packet path is
        // always open. Three flows from rack 0 to racks 1, 2, 3 each put their 4-segment initial
        // window into the ToR at 100 Gb/s (all 12 packets there by 1.48 µs); the 10 Gb/s uplink
        // takes one 1500 B packet every 1.2 µs from 1.12 µs, cycling over the VOQs.
        let circuit = "schedule = \"list\"\nslots = [{ night = \"0us\", day = \"1ms\", matching = [-1, -1, -1, -1] }]";
        let flows = "[[flows]]\nsrc = \"h0\"\ndst = \"h3\"\n[[flows]]\nsrc = \"h1\"\ndst = \"h6\"\n[[flows]]\nsrc = \"h2\"\ndst = \"h9\"\n";
        let doc = hybrid(4, 3, "100Gbps", circuit, "voq = \"16pkt\"", flows, "1ms").replace("mss = 1448", "mss = 1448\ninitial_cwnd = 4");
        let sc = Scenario::from_toml(&doc).unwrap();
        let mut sim = Simulator::new(&sc, None);
        let mut seen = vec![];
        for k in 0..9u64 {
            sim.run_until(Time::from_ps(1_120_000 + k * 1_200_000 + 600_000));
            let r = sim.fabric.rdcn.as_deref().unwrap();
            seen.push((1..4).map(|d| r.voqs[r.pair(0, d)].len_packets()).collect::<Vec<_>>());
        }
        let want: Vec<Vec<u64>> = vec![
            vec![3, 4, 4],
            vec![3, 3, 4],
            vec![3, 3, 3],
            vec![2, 3, 3],
            vec![2, 2, 3],
            vec![2, 2, 2],
            vec![1, 2, 2],
            vec![1, 1, 2],
            vec![1, 1, 1],
        ];
        assert_eq!(seen, want);
    }

    #[test]
    fn losses_on_a_packet_link_do_not_leak_packet_switch_room() {
        // 2 % loss on every ToR-packet switch link and a 2-packet switch buffer: if lost packets
        // kept their reserved room, the uplink would stall for good after two losses.
        let circuit = "schedule = \"list\"\nslots = [{ night = \"0us\", day = \"1ms\", matching = [-1, -1] }]";
        let doc = hybrid(2, 1, "10Gbps", circuit, "voq = \"100pkt\"", "[[flows]]\nsrc = \"h0\"\ndst = \"h1\"", "50ms")
            .replace("packet_link = { rate = \"10Gbps\", delay = \"5us\" }", "packet_link = { rate = \"10Gbps\", delay = \"5us\", loss_rate = 0.02 }")
            .replace("[transport]", "[queue]\nbuffer = \"2pkt\"\n[transport]\nmin_rto = \"1ms\"");
        let sc = Scenario::from_toml(&doc).unwrap();
        let mut sim = Simulator::new(&sc, None);
        // Halfway and at the end: the uplink still sends in the second half (a leak of two
        // reservations would stall it for good), and no more packets are reserved than the
        // packet switch's 2-packet buffer (a packet may be on the wire at the end).
        sim.run_until(Time::from_ps(25_000_000_000));
        let up = sim.port_table().find("tor0->eps").unwrap();
        let half = sim.port_table().tx_packets[up];
        sim.run_until(Time::from_ps(50_000_000_000));
        let ports = sim.port_table();
        assert!(ports.wire_losses[up] > 20, "{}", ports.wire_losses[up]);
        assert!(ports.tx_packets[up] > half + 500, "the uplink keeps going: {} then {}", half, ports.tx_packets[up]);
        let r = sim.fabric.rdcn.as_deref().unwrap();
        assert!(r.eps_inflight.iter().all(|&(n, _)| n <= 2), "{:?}", r.eps_inflight);
    }

    #[test]
    fn held_in_the_voq_instead_of_dropped_at_the_packet_switch() {
        // Two racks both send to rack 2 over the packet path; the packet switch's port to rack 2
        // holds only 2 packets. Etalon holds packets in the VOQs instead: no drop anywhere but
        // at the VOQs themselves.
        let circuit = "schedule = \"list\"\nslots = [{ night = \"0us\", day = \"1ms\", matching = [-1, -1, -1] }]";
        let flows = "[[flows]]\nsrc = \"h0\"\ndst = \"h2\"\n[[flows]]\nsrc = \"h1\"\ndst = \"h2\"\n";
        let doc = hybrid(3, 1, "10Gbps", circuit, "voq = \"1000pkt\"", flows, "5ms").replace("[transport]", "[queue]\nbuffer = \"2pkt\"\n[transport]");
        let mut sim = Simulator::new(&Scenario::from_toml(&doc).unwrap(), None);
        // The count of held-back ToRs (what a draining packet-switch port tests) agrees with
        // the flags throughout, and both racks are held back at some point.
        let mut most_held = 0;
        for k in 1..=500 {
            sim.run_until(Time::from_us(10 * k));
            let r = sim.fabric.rdcn.as_deref().unwrap();
            let held = r.eps_blocked.iter().filter(|&&b| b).count();
            assert_eq!(r.eps_blocked_count as usize, held);
            most_held = most_held.max(held);
        }
        assert_eq!(most_held, 2);
        sim.run();
        let ports = sim.port_table();
        let eps = ports.find("eps->tor2").unwrap();
        assert!(ports.tx_packets[eps] > 1000);
        assert_eq!(ports.drops.iter().sum::<u64>(), 0);
        assert_eq!(sim.conservation().dropped, 0);
        assert!(ports.max_queue_packets[eps] <= 2);
    }

    #[test]
    fn a_bypassed_ack_reaches_its_sender_when_the_data_arrives_plus_the_delay() {
        // The first test's packet, with the ACK bypass: the data still reaches h2 at 16.8 µs by
        // the packet switch, and its ACK — which went round pair (2, 0)'s night and circuit,
        // reaching h0 at 51.0468 µs — now reaches h0 at 16.8 µs + delay, having entered no NIC,
        // VOQ, switch or link.
        for (tor, at_ps) in [("ack_bypass = true", 16_800_000), ("ack_bypass = true\nack_bypass_delay = \"3us\"", 19_800_000)] {
            let doc = hybrid(3, 1, "10Gbps", STROBE, &format!("voq = \"16pkt\"\n{tor}"), "[[flows]]\nsrc = \"h0\"\ndst = \"h2\"\nsize = 1448", "1ms");
            let sc = Scenario::from_toml(&doc).unwrap();
            let mut sim = Simulator::new(&sc, None);
            sim.run_until(Time::from_ps(16_800_000 - 1));
            assert_eq!(tcp(&sim, 0).receiver.delivered(), 0);
            if at_ps > 16_800_000 {
                sim.run_until(Time::from_ps(16_800_000));
                assert_eq!(tcp(&sim, 0).receiver.delivered(), 1448);
            }
            sim.run();
            assert_eq!(sim.flow_table().fct_ps[0], Some(at_ps), "{tor}");
            let r = sim.fabric.rdcn.as_deref().unwrap();
            assert!(!r.voqs[r.pair(2, 0)].used, "no ACK entered VOQ (2, 0)");
            assert!(r.days.iter().all(|d| (d.src, d.dst) != (2, 0)));
            let ports = sim.port_table();
            let mut sent: Vec<(&str, u64)> = (0..ports.tx_packets.len()).filter(|&i| ports.tx_packets[i] > 0).map(|i| (ports.name[i].as_str(), ports.tx_packets[i])).collect();
            sent.sort();
            assert_eq!(sent, [("eps->tor2", 1), ("h0->tor0", 1), ("tor0->eps", 1), ("tor2->h2", 1)], "only the data packet crossed ports");
            assert!(sim.conservation().holds());
        }
    }

    #[test]
    fn with_the_bypass_acks_never_queue_anywhere() {
        // A long flow each way between racks 0 and 1 and one from rack 0 to rack 2, with and
        // without the bypass: with it, the receivers' NICs send nothing and the reverse pairs'
        // VOQs are never used; without it the ACKs are counted there.
        let flows = "[[flows]]\nsrc = \"h0\"\ndst = \"h2\"\n[[flows]]\nsrc = \"h1\"\ndst = \"h4\"\n[[flows]]\nsrc = \"h3\"\ndst = \"h5\"\n";
        for bypass in [false, true] {
            let doc = hybrid(3, 2, "10Gbps", STROBE, &format!("voq = \"16pkt\"\nack_bypass = {bypass}"), flows, "3ms");
            let mut sim = run(&doc);
            let ports = sim.port_table();
            let tx = |name: &str| ports.tx_packets[ports.find(name).unwrap()];
            // h2 and h4 (racks 1 and 2) only receive; h5 (rack 2) only receives.
            let acks = tx("h2->tor1") + tx("h4->tor2") + tx("h5->tor2");
            let r = sim.fabric.rdcn.as_deref().unwrap();
            let ack_voqs = [(1, 0), (2, 0), (2, 1)].iter().filter(|&&(s, d)| r.voqs[r.pair(s, d)].used).count();
            if bypass {
                assert_eq!((acks, ack_voqs), (0, 0));
            } else {
                assert!(acks > 1000 && ack_voqs == 3, "{acks} {ack_voqs}");
            }
            // The flows ran: a few MB each.
            assert!(sim.flow_table().bytes_acked.iter().all(|&b| b > 1_000_000), "{:?}", sim.flow_table().bytes_acked);
            assert!(sim.conservation().holds());
        }
    }

    #[test]
    fn one_backlogged_flow_with_the_bypass_gets_the_packet_rate_while_its_path_is_open_and_the_circuit_rate_in_its_days() {
        // 3 racks, one host each at 100 Gb/s, one flow h0 → h1 with a 1000-segment initial window
        // into a VOQ that never fills: VOQ (0, 1) stays backlogged. Week = 400 µs: night [0, 20),
        // day [20, 200) with 0→1; night [200, 220), day [220, 400) with 0→2. Pair (0, 1)'s packet
        // path is closed over its night and day [0, 200) and open over [200, 400).
        // 9052 B packets: 0.9052 µs at 80 Gb/s, 7.2416 µs at 10 Gb/s.
        // - Each day of (0, 1) carries ⌊180 / 0.9052⌋ = 198 packets, the first starting at the day
        //   start and the last ending at 198 · 0.9052 = 179.2296 µs into the day.
        // - The packet uplink starts 28 packets at 200 + k · 7.2416 µs (k = 0…27) and is idle
        //   otherwise: the last ends at 402.7648 µs, 2.7648 µs into the next week's night. Per
        //   week, nights carry 25 000 B (all of [200, 220) at 10 Gb/s) + 3456 B (the tail) and days
        //   225 000 B (all of [220, 400) at 10 Gb/s); the day [20, 200) carries nothing.
        let doc = hybrid(3, 1, "100Gbps", STROBE, "voq = \"100000pkt\"\nack_bypass = true", "[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n", "2ms")
            .replace("mss = 1448", "mss = 9000\ninitial_cwnd = 1000")
            .replace("[transport]", "[output]\nwarmup = \"400us\"\n[transport]");
        let sim = run(&doc);
        let r = sim.fabric.rdcn.as_deref().unwrap();
        let days: Vec<_> = r.days.iter().filter(|d| (d.src, d.dst) == (0, 1) && d.start >= Time::from_us(400)).collect();
        assert_eq!(days.len(), 4);
        for d in &days {
            assert_eq!(d.bytes, 198 * 9052, "day at {:?}", d.start);
            assert_eq!(d.wire, Some((d.start, d.start + Time::from_ps(179_229_600))), "day at {:?}", d.start);
        }
        // Weeks 1–4 (the phases that start after the 400 µs warm-up and end by 2 ms).
        let u = r.uplink_table();
        assert_eq!((u.night_ps[0], u.day_ps[0]), (Time::from_us(8 * 20).0, Time::from_us(8 * 180).0));
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6 * b;
        assert!(close(u.night_bytes[0], 4.0 * (25_000.0 + 3_456.0)), "{}", u.night_bytes[0]);
        assert!(close(u.day_bytes[0], 4.0 * 225_000.0), "{}", u.day_bytes[0]);
        // The open packet path at the packet rate: 250 000 B per 200 µs is 10 Gb/s.
        assert!(close((u.day_bytes[0] + u.night_bytes[0] - 4.0 * 3_456.0) * 8.0 / (4.0 * 200e-6), 10e9));
        // Racks 1 and 2 send nothing (rack 1's ACKs take the bypass).
        assert_eq!((u.night_bytes[1], u.day_bytes[1], u.night_bytes[2], u.day_bytes[2]), (0.0, 0.0, 0.0, 0.0));
    }

    #[test]
    fn every_day_that_carried_bytes_has_its_span_on_the_wire_inside_the_day() {
        // Under Etalon's VOQs and a segregating design (whose lanes are pulled elsewhere): a day
        // with bytes has a span, inside the day, at least one packet long; a day without has none.
        let flows: String = (0..4).map(|i| format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h{}\"\n", 4 + i)).collect();
        for tor in ["voq = \"64pkt\"", "policy = \"unblocking\""] {
            let sim = run(&hybrid(3, 4, "10Gbps", STROBE, tor, &flows, "3ms"));
            let r = sim.fabric.rdcn.as_deref().unwrap();
            let one = r.spec.circuit_rate.serialization(52);
            let busy = r.days.iter().filter(|d| d.bytes > 100_000).count();
            assert!(busy >= 5, "{tor}: {busy} days carried more than 100 KB");
            for d in &r.days {
                match d.wire {
                    Some((a, b)) => assert!(d.bytes > 0 && d.start <= a && a < b && a + one <= b && b <= d.start + d.length, "{tor}: {d:?}"),
                    None => assert_eq!(d.bytes, 0, "{tor}: {d:?}"),
                }
            }
        }
    }
}
