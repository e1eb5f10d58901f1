//! The simulator's side of the ToRs that segregate elephants from mice (model in
//! `rdcn/segregated.rs`): where a packet entering the source ToR goes (Algorithm 1 for AccelToR,
//! the baselines' rules otherwise), what the packet uplink and the circuit lane take next, and
//! what happens at each slot boundary (calendar rotation, retiring idle elephants).
//!
//! The packet uplink sends whatever its queues hold (strict priority HP over LP); unlike Etalon,
//! nothing holds packets back for the packet switch, whose ports queue and drop as any switch.

use super::{Ctx, Fabric};
use crate::ids::PacketId;
use crate::packet::Kind;
use crate::rdcn::segregated::push_capped;
use crate::queue::Fifo;
use crate::rdcn::{AccelTor, Decision, Design, Rack, TorPolicy, TorQueues};
use crate::time::Time;

/// Where an entering packet was put.
enum Placed {
    Packet,
    Circuit,
    /// In a paused calendar queue.
    Held,
    Dropped,
}

/// Put a packet in AccelToR's LP queue (`to_lp`) or HP queue, each capped at its size.
#[inline]
fn packet_port(a: &AccelTor, hp: &mut Fifo, lp: &mut Fifo, to_lp: bool, id: PacketId, size: u32, now: Time) -> Placed {
    let (q, cap) = if to_lp { (lp, a.lp) } else { (hp, a.hp) };
    if push_capped(q, cap, id, size, now) {
        Placed::Packet
    } else {
        Placed::Dropped
    }
}

impl Fabric {
    /// A packet for rack `d` entered ToR `s` (a segregating design).
    pub(super) fn seg_ingress(&mut self, s: Rack, d: Rack, id: PacketId, cx: &mut Ctx) {
        let now = cx.now;
        let r = self.rdcn.as_deref_mut().unwrap();
        let pi = r.pair(s, d);
        let pkt = cx.slab.get_mut(id);
        pkt.stamp = now;
        let (kind, flow, size, rank) = (pkt.kind, pkt.flow, pkt.size, pkt.rank);
        r.voqs[pi].used = true;
        r.voqs[pi].data |= kind == Kind::Data;
        let TorPolicy::Segregated(design, _) = r.spec.policy else { unreachable!() };
        let plan = &r.spec.plan;
        let seg = r.seg.as_deref_mut().unwrap();
        let elephant = kind == Kind::Data && seg.elephants.observe(s as usize, d as usize, flow, size as u64, now);
        if elephant {
            seg.elephants.sent(flow, size as u64);
        }
        let c = &mut seg.cases;
        let placed = match (&design, &mut seg.tors[s as usize]) {
            (Design::Accel(a), TorQueues::Accel { hp, lp, calendar }) => {
                let ahead = if elephant { plan.days_ahead(s, d, now) } else { None };
                // Algorithm 1, or the authors' per-flow rules (`case4`, `acceleration`).
                let mut decide = |i: usize, day_start: Time, calendar: &crate::rdcn::calendar::Calendar| {
                    if a.per_flow() {
                        if let Some(f) = seg.elephants.state_mut(s as usize, d as usize, flow) {
                            return a.decide_flow(f, i, day_start, now, || calendar.has_room(i, size));
                        }
                    }
                    a.decide(i, day_start, now)
                };
                match ahead {
                    // Case I (and elephants of a pair that never gets a circuit).
                    None => {
                        c.mice += 1;
                        let to_lp = a.takes_lp(false, rank);
                        c.mice_lp += to_lp as u64;
                        packet_port(a, hp, lp, to_lp, id, size, now)
                    }
                    Some((i, day)) => match decide(i, day.day_start, calendar) {
                        dec @ (Decision::Accelerate | Decision::Fallback) => {
                            if dec == Decision::Fallback {
                                c.case4_lp += 1;
                            } else {
                                c.accelerated += 1;
                            }
                            let to_lp = a.takes_lp(true, rank);
                            c.elephant_hp += !to_lp as u64;
                            packet_port(a, hp, lp, to_lp, id, size, now)
                        }
                        Decision::Today | Decision::Buffer(_) => {
                            if i == 0 {
                                c.today += 1;
                            } else {
                                c.buffered += 1;
                            }
                            if calendar.has_room(i, size) {
                                calendar.offer(i, id, size, now);
                                if i == 0 {
                                    Placed::Circuit
                                } else {
                                    Placed::Held
                                }
                            } else if a.overflow_to_lp {
                                // §IV-G: a full Q_i sends the packet through the LP queue.
                                c.overflow_lp += 1;
                                let to_lp = a.takes_lp(true, rank);
                                c.elephant_hp += !to_lp as u64;
                                packet_port(a, hp, lp, to_lp, id, size, now)
                            } else {
                                calendar.q_mut(i).stats.drops += 1;
                                Placed::Dropped
                            }
                        }
                        Decision::Drop => {
                            c.case4_drops += 1;
                            self.dropped += 1;
                            cx.slab.free(id);
                            return;
                        }
                    },
                }
            }
            (Design::Blocking(b), TorQueues::Blocking { packet, circuit, pooled }) => {
                if !elephant || plan.pair_day(s, d, now).is_none() {
                    c.mice += 1;
                    if push_capped(packet, b.packet_queue, id, size, now) {
                        Placed::Packet
                    } else {
                        Placed::Dropped
                    }
                } else if b.circuit_pool.exceeded_by(pooled.0 + 1, pooled.1 + size as u64) {
                    circuit[d as usize].stats.drops += 1;
                    Placed::Dropped
                } else {
                    c.today += 1;
                    let q = &mut circuit[d as usize];
                    q.push(id, size, now);
                    q.stats.enqueued += 1;
                    pooled.0 += 1;
                    pooled.1 += size as u64;
                    Placed::Circuit
                }
            }
            (Design::Unblocking(u), TorQueues::Unblocking { packet, circuit }) => {
                let up = elephant && plan.circuit_dst(s, now) == Some(d);
                let (n, b) = (packet.len_packets() + circuit.len_packets() + 1, packet.len_bytes() + circuit.len_bytes() + size as u64);
                let q = if up { &mut *circuit } else { &mut *packet };
                if u.shared.exceeded_by(n, b) {
                    q.stats.drops += 1;
                    Placed::Dropped
                } else {
                    q.push(id, size, now);
                    q.stats.enqueued += 1;
                    if up {
                        c.today += 1;
                        Placed::Circuit
                    } else if elephant {
                        c.elephant_packet += 1;
                        Placed::Packet
                    } else {
                        c.mice += 1;
                        Placed::Packet
                    }
                }
            }
            _ => unreachable!("ToR queues match the design"),
        };
        match placed {
            Placed::Packet => self.seg_packet_pull(s, cx),
            Placed::Circuit => self.seg_circuit_pull(s, cx),
            Placed::Held => {}
            Placed::Dropped => {
                self.rdcn.as_deref_mut().unwrap().seg.as_deref_mut().unwrap().cases.full_drops += 1;
                self.dropped += 1;
                cx.slab.free(id);
            }
        }
    }

    /// ToR `s`'s packet uplink, if idle, takes the next packet: HP before LP under AccelToR, the
    /// one packet queue otherwise.
    pub(super) fn seg_packet_pull(&mut self, s: Rack, cx: &mut Ctx) {
        let now = cx.now;
        let r = self.rdcn.as_deref_mut().unwrap();
        let up = r.uplink[s as usize];
        if self.net.ports[up.idx()].busy {
            return;
        }
        let seg = r.seg.as_deref_mut().unwrap();
        let q = match &mut seg.tors[s as usize] {
            TorQueues::Accel { hp, lp, .. } => {
                if hp.is_empty() {
                    lp
                } else {
                    hp
                }
            }
            TorQueues::Blocking { packet, .. } | TorQueues::Unblocking { packet, .. } => packet,
        };
        let Some(head) = q.front() else { return };
        let size = cx.slab.get(head).size;
        q.remove(0, size, now);
        let d = r.rack_of_host(cx.slab.get(head).dst) as usize;
        r.eps_inflight[d].0 += 1;
        r.eps_inflight[d].1 += size as u64;
        self.start_tx(up, head, cx);
    }

    /// ToR `s`'s circuit lane, if its circuit is up and the lane idle, takes the head of the
    /// circuit queue of the rack it reaches (Q_0 of the calendar under AccelToR) if the packet's
    /// serialization ends before the day does.
    pub(super) fn seg_circuit_pull(&mut self, s: Rack, cx: &mut Ctx) {
        let now = cx.now;
        let r = self.rdcn.as_deref_mut().unwrap();
        let phase = r.spec.plan.phase(now);
        if !phase.day {
            return;
        }
        let Some(d) = r.spec.plan.slots()[phase.slot].matching[s as usize] else { return };
        let lane = r.lanes[r.pair(s, d)];
        let p = &self.net.ports[lane.idx()];
        if p.busy {
            return;
        }
        let seg = r.seg.as_deref_mut().unwrap();
        let tor = &mut seg.tors[s as usize];
        let head = match tor {
            TorQueues::Accel { calendar, .. } => calendar.front(),
            TorQueues::Blocking { circuit, .. } => circuit[d as usize].front(),
            TorQueues::Unblocking { circuit, .. } => circuit.front(),
        };
        let Some(head) = head else { return };
        let size = cx.slab.get(head).size;
        if now + p.rate.serialization(size as u64) > phase.ends {
            return;
        }
        match tor {
            TorQueues::Accel { calendar, .. } => {
                calendar.pop(size, now);
            }
            TorQueues::Blocking { circuit, pooled, .. } => {
                circuit[d as usize].remove(0, size, now);
                pooled.0 -= 1;
                pooled.1 -= size as u64;
            }
            TorQueues::Unblocking { circuit, .. } => {
                circuit.remove(0, size, now);
            }
        }
        let pi = r.pair(s, d);
        r.note_lane_tx(pi, now);
        self.start_tx(lane, head, cx);
    }

    /// A circuit boundary under a segregating design. At the start of each slot (its night, or
    /// its day when the night is empty; not at time zero): AccelToR's calendars rotate and drop
    /// what the old Q_0 still holds, Unblocking hands the circuit queue's leftovers to the packet
    /// queue, and the elephants of the pairs whose day just ended are checked for departure.
    pub(super) fn seg_boundary(&mut self, cx: &mut Ctx) {
        let now = cx.now;
        let r = self.rdcn.as_deref_mut().unwrap();
        let plan = &r.spec.plan;
        let phase = plan.phase(now);
        let new_slot = !phase.day || plan.slots()[phase.slot].night == Time::ZERO;
        if !new_slot || now == Time::ZERO {
            return;
        }
        let prev = (phase.slot + plan.slots().len() - 1) % plan.slots().len();
        let seg = r.seg.as_deref_mut().unwrap();
        if phase.slot == 0 {
            // A week ends where slot 0 starts: one row per elephant, before any departs below.
            let start = now - plan.week();
            seg.end_week(start, start >= r.warmup);
        }
        let mut stale = 0;
        for (s, tor) in seg.tors.iter_mut().enumerate() {
            match tor {
                TorQueues::Accel { calendar, .. } => calendar.rotate(now, |id| {
                    stale += 1;
                    let size = cx.slab.get(id).size;
                    cx.slab.free(id);
                    size
                }),
                TorQueues::Unblocking { packet, circuit } => {
                    while let Some(id) = circuit.front() {
                        let size = cx.slab.get(id).size;
                        circuit.remove(0, size, now);
                        packet.push(id, size, now);
                    }
                }
                TorQueues::Blocking { .. } => {}
            }
            if let Some(d) = plan.slots()[prev].matching[s] {
                seg.elephants.expire(s, d as usize, now);
            }
        }
        seg.cases.stale_drops += stale;
        self.dropped += stale;
    }
}

#[cfg(test)]
mod tests {
    use crate::rdcn::{Design, Rdcn, TorPolicy, TorQueues};
    use crate::{Scenario, Simulator, Time};

    /// 4 racks of one host (h_r is rack r), strobe of 3 slots: night 20 µs then day 240 µs, so
    /// rack 0 reaches rack 1 in [20, 260), rack 2 in [280, 520), rack 3 in [540, 780) µs, and
    /// again a 780 µs week later. Hosts at 100 Gb/s, 1 µs: a 1500 B packet reaches ToR 0
    /// 1.12 µs after its host starts sending it, the next 0.12 µs later.
    fn doc(tor: &str, flows: &str, end: &str) -> String {
        format!(
            r#"
[simulation]
end = "{end}"
[topology]
kind = "rdcn"
racks = 4
hosts_per_rack = 1
host_link = {{ rate = "100Gbps", delay = "1us" }}
packet_link = {{ rate = "10Gbps", delay = "13us" }}
circuit_link = {{ rate = "80Gbps", delay = "25us" }}
[circuit]
schedule = "strobe"
day = "240us"
night = "20us"
[tor]
{tor}
[transport]
mss = 1448
header = 52
initial_cwnd = 4
{flows}
"#
        )
    }

    fn flows_to(dsts: &[usize], start: &str) -> String {
        dsts.iter().map(|d| format!("[[flows]]\nsrc = \"h0\"\ndst = \"h{d}\"\nstart = \"{start}\"\n")).collect()
    }

    fn rdcn(sim: &Simulator) -> &Rdcn {
        sim.fabric.rdcn.as_deref().unwrap()
    }

    fn lane_tx(sim: &Simulator, s: u32, d: u32) -> u64 {
        let r = rdcn(sim);
        sim.fabric.net.ports[r.lanes[r.pair(s, d)].idx()].stats.tx_packets
    }

    /// (Q_0, Q_1, Q_2) lengths of ToR 0's calendar.
    fn calendar(sim: &Simulator) -> Vec<u64> {
        let TorQueues::Accel { calendar, .. } = &rdcn(sim).seg.as_deref().unwrap().tors[0] else { panic!() };
        (0..calendar.k()).map(|i| calendar.q(i).len_packets()).collect()
    }

    #[test]
    fn derived_values_and_rto_min_reach_the_hosts() {
        // Base RTTs of this topology (1500 B out, 52 B ACK back, no queueing):
        //   packet: 2·(0.12 + 1) + 2·(1.2 + 13) µs out, 2·(0.00416 + 1) + 2·(0.0416 + 13) back
        //           = 30.64 + 28.09152 = 58.73152 µs;
        //   circuit: 2·(0.12 + 1) + 0.15 + 25 out, 2·(0.00416 + 1) + 0.0052 + 25 back
        //           = 27.39 + 27.01352 = 54.40352 µs.
        // n = ⌊240 / 54.40352⌋ = 4 → m = 2; K_1 = ⌈3·58.73152 / 260⌉ = 1; K = 3 (safe margin);
        // RTO_min = 780 − 240 − 3·58.73152 = 363.80544 µs (eq. 6).
        let sc = Scenario::from_toml(&doc("policy = \"acceltor\"", &flows_to(&[1], "0us"), "1ms")).unwrap();
        let spec = sc.topology.rdcn.as_ref().unwrap();
        let TorPolicy::Segregated(Design::Accel(a), e) = spec.policy else { panic!() };
        assert_eq!(a.rtt_pkt, Time::from_ps(58_731_520));
        assert_eq!(a.rtt_cir, Time::from_ps(54_403_520));
        assert_eq!((a.m, a.k1, a.k), (2, 1, 3));
        assert_eq!(a.rto_min, Time::from_ps(363_805_440));
        assert_eq!(spec.host_rto_min, Some(a.rto_min));
        assert_eq!(sc.flows[0].cfg.tcp().unwrap().rto.min, a.rto_min);
        assert_eq!(e.per_pair, 80);
        // 2^2 · 80 · 1500 B = 480 KB ≤ B = 500 KB: no overflow to LP (§III-F, §IV-B).
        assert!(!a.overflow_to_lp);
        // Overrides: the paper's §III-C example values.
        let sc = Scenario::from_toml(&doc("policy = \"acceltor\"\nacceltor = { m = 3, rtt_packet = \"30us\", safe_margin = false, queue = \"300KB\" }", &flows_to(&[1], "0us"), "1ms")).unwrap();
        let TorPolicy::Segregated(Design::Accel(a), _) = sc.topology.rdcn.as_ref().unwrap().policy else { panic!() };
        assert_eq!((a.m, a.k1, a.k), (3, 1, 2));
        assert_eq!(a.rto_min, Time::from_us(780 - 240 - 120));
        assert!(a.overflow_to_lp, "2^3·80·1500 B > 300 KB: §IV-G's overflow rule");
        // Blocking: eq. (7).
        let sc = Scenario::from_toml(&doc("policy = \"blocking\"", &flows_to(&[1], "0us"), "1ms")).unwrap();
        assert_eq!(sc.flows[0].cfg.tcp().unwrap().rto.min, Time::from_us(780 - 240));
    }

    #[test]
    fn calendar_rotates_at_each_night_and_only_q0_dequeues() {
        // RTT_pkt forced to 1 ms: no Subcase III-A ever (no day is ≥ 1 ms away within K = 3
        // days), so every elephant packet is buffered. At t ≈ 1.1 µs (slot 0's night) the
        // three initial windows (4 packets each) land in Q_0 (rack 1, today), Q_1 (rack 2) and
        // Q_2 (rack 3).
        let tor = "policy = \"acceltor\"\nacceltor = { rtt_packet = \"1ms\", k = 3, rto_min = \"transport\" }";
        let sc = Scenario::from_toml(&doc(tor, &flows_to(&[1, 2, 3], "0us"), "2ms")).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.run_until(Time::from_us(19));
        assert_eq!(calendar(&sim), vec![4, 4, 4]);
        assert_eq!((lane_tx(&sim, 0, 1), lane_tx(&sim, 0, 2), lane_tx(&sim, 0, 3)), (0, 0, 0), "night: nothing dequeues");
        // Day 0 (rack 1): Q_0 drains through lane 0→1 only; Q_1 and Q_2 are paused.
        sim.run_until(Time::from_us(21));
        assert_eq!(lane_tx(&sim, 0, 1), 4);
        assert_eq!(&calendar(&sim)[1..], &[4, 4]);
        sim.run_until(Time::from_us(259));
        assert_eq!((lane_tx(&sim, 0, 2), lane_tx(&sim, 0, 3)), (0, 0));
        assert_eq!(&calendar(&sim)[1..], &[4, 4]);
        // Night 1 (260 µs): Q_1 → Q_0, Q_2 → Q_1, the old Q_0 → Q_2 (empty).
        sim.run_until(Time::from_us(261));
        assert_eq!(calendar(&sim), vec![4, 4, 0]);
        assert_eq!(lane_tx(&sim, 0, 2), 0, "Q_0 is paused until the day");
        sim.run_until(Time::from_us(281));
        assert_eq!(lane_tx(&sim, 0, 2), 4);
        assert_eq!(lane_tx(&sim, 0, 3), 0);
        // Night 2 (520 µs): the rack-3 packets reach Q_0 and leave at the day (540 µs).
        sim.run_until(Time::from_us(539));
        assert_eq!(calendar(&sim)[0], 4);
        assert_eq!(lane_tx(&sim, 0, 3), 0);
        sim.run_until(Time::from_us(541));
        assert_eq!(lane_tx(&sim, 0, 3), 4);
        let seg = rdcn(&sim).seg.as_deref().unwrap();
        assert_eq!(seg.cases.accelerated, 0);
        assert_eq!(seg.cases.case4_drops, 0);
        sim.run();
        assert!(sim.conservation().holds());
    }

    #[test]
    fn case_4_drops_packets_k_or_more_days_away() {
        // K = 2: at t ≈ 1.1 µs rack 3's day is 2 days away → Case IV; rack 2 (1 day away) is
        // buffered in Q_1, rack 1 (today) in Q_0.
        let tor = "policy = \"acceltor\"\nacceltor = { rtt_packet = \"1ms\", k = 2, rto_min = \"transport\" }";
        let sc = Scenario::from_toml(&doc(tor, &flows_to(&[1, 2, 3], "0us"), "1ms")).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.run_until(Time::from_us(19));
        assert_eq!(calendar(&sim), vec![4, 4]);
        let c = rdcn(&sim).seg.as_deref().unwrap().cases;
        assert_eq!((c.today, c.buffered, c.case4_drops), (4, 4, 4));
        assert_eq!(sim.conservation().dropped, 4);
    }

    /// The 4-rack scenario with `tor` and one flow from h0 to each of `dsts` starting at 0, run
    /// until `until` µs.
    fn sim_until(tor: &str, dsts: &[usize], end: &str, until: u64) -> Simulator {
        let sc = Scenario::from_toml(&doc(tor, &flows_to(dsts, "0us"), end)).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.run_until(Time::from_us(until));
        sim
    }

    #[test]
    fn with_a_drop_window_new_elephants_take_lp_instead_of_case_4_drops() {
        // As `case_4_drops_packets_k_or_more_days_away` (K = 2), with the authors' Case IV: the
        // rack-3 elephant is new (never had a calendar queue), so its 4 packets take LP — the
        // uplink starts them at 1.12, 2.32, 3.52, 4.72 µs — and none is dropped.
        let tor = "policy = \"acceltor\"\nacceltor = { rtt_packet = \"1ms\", k = 2, rto_min = \"transport\", case4 = \"window\" }";
        let sim = sim_until(tor, &[1, 2, 3], "1ms", 19);
        assert_eq!(calendar(&sim), vec![4, 4]);
        let c = rdcn(&sim).seg.as_deref().unwrap().cases;
        assert_eq!((c.today, c.buffered, c.case4_drops, c.case4_lp), (4, 4, 0, 4));
        assert_eq!(uplink_tx(&sim, 0), 4);
        assert_eq!(sim.conservation().dropped, 0);
    }

    #[test]
    fn count_acceleration_sends_the_warm_up_by_lp_and_one_packet_to_q_i() {
        // warm-up 2: the rack-2 window (day 1 ahead at 1.12 µs) goes LP, LP, Q_1, LP — by count,
        // whatever the time to the day; the rack-1 window (today) fills Q_0 as before.
        let tor = "policy = \"acceltor\"\nacceltor = { k = 3, rto_min = \"transport\", acceleration = \"count\", warmup = 2 }";
        let sim = sim_until(tor, &[1, 2], "1ms", 10);
        assert_eq!(calendar(&sim), vec![4, 1, 0]);
        let c = rdcn(&sim).seg.as_deref().unwrap().cases;
        assert_eq!((c.today, c.accelerated, c.buffered), (4, 3, 1));
        assert_eq!(uplink_tx(&sim, 0), 3);
        // after_warmup = "all": LP, LP, Q_1, Q_1.
        let tor = "policy = \"acceltor\"\nacceltor = { k = 3, rto_min = \"transport\", acceleration = \"count\", warmup = 2, after_warmup = \"all\" }";
        let sim = sim_until(tor, &[1, 2], "1ms", 10);
        assert_eq!(calendar(&sim), vec![4, 2, 0]);
        assert_eq!(uplink_tx(&sim, 0), 2);
        // Algorithm 1's timing instead: 280 µs − 1.12 µs ≥ RTT_pkt, all four accelerated.
        let tor = "policy = \"acceltor\"\nacceltor = { k = 3, rto_min = \"transport\" }";
        let sim = sim_until(tor, &[1, 2], "1ms", 10);
        assert_eq!(calendar(&sim), vec![4, 0, 0]);
        assert_eq!(uplink_tx(&sim, 0), 4);
    }

    #[test]
    fn a_flow_out_of_step_is_dropped_for_the_window_then_takes_lp_until_its_day_is_within_k() {
        // K = 2 and RTT_pkt = 1 ms: rack 0 → 1 uses Q_0 in slot 0 ([0, 260) µs); in slot 1
        // ([260, 520)) its day is 2 days ahead (Case IV), in slot 2 one day (Q_1). RTO_min =
        // 150 µs, so the flow, silenced by the drops after its day, times out inside slot 1.
        // Algorithm 1 drops everything it sends in slot 1; with a 100 µs window the drops stop
        // 100 µs after the first and every later Case IV packet takes LP, until 520 µs.
        let run = |case4: &str| {
            let tor = format!("policy = \"acceltor\"\nacceltor = {{ rtt_packet = \"1ms\", k = 2, rto_min = \"150us\", {case4} }}");
            let sc = Scenario::from_toml(&doc(&tor, &flows_to(&[1], "0us"), "1ms")).unwrap();
            let mut sim = Simulator::new(&sc, None);
            let (mut first_drop, mut last_drop, mut first_lp) = (None, None, None);
            let mut prev = rdcn(&sim).seg.as_deref().unwrap().cases;
            for t in 1..=5190u64 {
                let now = Time::from_ps(t * 100_000);
                sim.run_until(now);
                let c = rdcn(&sim).seg.as_deref().unwrap().cases;
                if c.case4_drops > prev.case4_drops {
                    first_drop.get_or_insert(now);
                    last_drop = Some(now);
                }
                if c.case4_lp > prev.case4_lp {
                    first_lp.get_or_insert(now);
                }
                prev = c;
            }
            (first_drop.unwrap(), last_drop.unwrap(), first_lp, prev, uplink_tx(&sim, 0))
        };
        let (d0, d1, lp, c, up) = run("case4 = \"drop\"");
        assert!(d0 >= Time::from_us(260), "Case IV starts with slot 1");
        assert!(d1 - d0 > Time::from_us(100), "the timeout's retransmission is dropped too");
        assert_eq!((lp, c.case4_lp, up), (None, 0, 0), "nothing takes the packet network");
        let (w0, w1, lp, c, up) = run("case4 = \"window\", case4_window = \"100us\"");
        assert_eq!(w0, d0, "the same first drop");
        assert!(w1 - w0 < Time::from_us(100), "no drop 100 µs or more after the first");
        let lp = lp.expect("the retransmission takes LP");
        assert!(lp >= w0 + Time::from_us(100) && lp < Time::from_us(520));
        assert!(c.case4_lp >= 1 && up == c.case4_lp, "the uplink carried exactly the fallback packets");
    }

    #[test]
    fn sent_bytes_count_what_enters_the_source_tor_delivered_bytes_what_leaves() {
        // Three one-window flows (4 × 1500 B), K = 2: rack 3's window is dropped by Case IV
        // (its retransmission waits for the 200 ms RTO): week 0 row 0 → 3 has 6000 B sent and
        // none delivered; the other two have 6000 B of each.
        let mut sim = one_window_each(2, "1ms");
        sim.run_until(Time::from_us(781));
        let w = &rdcn(&sim).seg.as_deref().unwrap().weeks;
        let mut rows: Vec<_> = (0..w.flow.len()).map(|i| (w.dst[i], w.bytes[i], w.circuit_bytes[i], w.sent_bytes[i])).collect();
        rows.sort();
        assert_eq!(rows, vec![(1, 6000, 6000, 6000), (2, 6000, 6000, 6000), (3, 0, 0, 6000)]);
    }

    #[test]
    fn subcase_3a_turns_into_3b_exactly_rtt_pkt_before_the_day() {
        // RTT_pkt = 30 µs; rack 2's day starts at 280 µs, so III-A holds up to 250 µs inclusive.
        // The flow starts at 248.76 µs: its 4 packets reach ToR 0 at 249.88, 250.00, 250.12
        // and 250.24 µs → 2 accelerated through LP, 2 buffered in Q_1.
        let tor = "policy = \"acceltor\"\nacceltor = { rtt_packet = \"30us\" }";
        let sc = Scenario::from_toml(&doc(tor, &flows_to(&[2], "248.76us"), "1ms")).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.run_until(Time::from_us(251));
        let c = rdcn(&sim).seg.as_deref().unwrap().cases;
        assert_eq!((c.accelerated, c.buffered), (2, 2));
        assert_eq!(calendar(&sim), vec![0, 2, 0]);
        // The same flow 1 ps later: only the first packet is still ≥ 30 µs ahead.
        let sc = Scenario::from_toml(&doc(tor, &flows_to(&[2], "248.760001us"), "1ms")).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.run_until(Time::from_us(251));
        let c = rdcn(&sim).seg.as_deref().unwrap().cases;
        assert_eq!((c.accelerated, c.buffered), (1, 3));
    }

    fn uplink_tx(sim: &Simulator, s: usize) -> u64 {
        sim.fabric.net.ports[rdcn(sim).uplink[s].idx()].stats.tx_packets
    }

    #[test]
    fn blocking_holds_elephants_in_per_destination_queues_and_mice_take_the_packet_network() {
        // One elephant per pair: the long-lived flows to racks 1, 2, 3 are elephants; the 1448 B
        // flow to rack 2 (flow 3, smaller) is a mouse. The per-destination queues share 6000 B
        // = 4 packets: rack 1's window (today, but waiting for the day at 20 µs) fills them,
        // the windows to racks 2 and 3 are dropped.
        let flows = format!("{}[[flows]]\nsrc = \"h0\"\ndst = \"h2\"\nsize = 1448\n", flows_to(&[1, 2, 3], "0us"));
        let tor = "policy = \"blocking\"\nelephants = { per_pair = 1 }\nblocking = { circuit_pool = \"6000B\", rto_min = \"transport\" }";
        let sc = Scenario::from_toml(&doc(tor, &flows, "1ms")).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.run_until(Time::from_us(19));
        let TorQueues::Blocking { circuit, pooled, .. } = &rdcn(&sim).seg.as_deref().unwrap().tors[0] else { panic!() };
        let lens: Vec<u64> = circuit.iter().map(|q| q.len_packets()).collect();
        assert_eq!(lens, vec![0, 4, 0, 0]);
        assert_eq!(*pooled, (4, 6000));
        let c = rdcn(&sim).seg.as_deref().unwrap().cases;
        assert_eq!((c.today, c.full_drops, c.mice), (4, 8, 1));
        // Only the mouse used the packet uplink.
        assert_eq!(uplink_tx(&sim, 0), 1);
        sim.run_until(Time::from_us(21));
        assert_eq!(lane_tx(&sim, 0, 1), 4);
        // The mouse finished over the packet network long before its pair's day (280 µs).
        sim.run_until(Time::from_us(270));
        assert!(sim.flow_table().fct_ps[3].is_some());
        assert_eq!(lane_tx(&sim, 0, 2), 0);
        sim.run();
        assert!(sim.conservation().holds());
    }

    #[test]
    fn unblocking_sends_elephants_by_circuit_while_it_is_up_and_by_packet_network_otherwise() {
        // Flow to rack 2 (one 4-packet window) starts at 0 (its circuit is down: packet
        // network); flow to rack 1 starts at 100 µs (its circuit is up: circuit queue and lane).
        let flows = format!("{}size = 5792\n{}", flows_to(&[2], "0us"), flows_to(&[1], "100us"));
        let tor = "policy = \"unblocking\"\nelephants = { per_pair = 1 }";
        let sc = Scenario::from_toml(&doc(tor, &flows, "1ms")).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.run_until(Time::from_us(10));
        assert_eq!(uplink_tx(&sim, 0), 4);
        assert_eq!(rdcn(&sim).seg.as_deref().unwrap().cases.elephant_packet, 4);
        sim.run_until(Time::from_us(102));
        assert_eq!(lane_tx(&sim, 0, 1), 4);
        assert_eq!(uplink_tx(&sim, 0), 4, "no rack-1 packet took the packet network");
        sim.run();
        assert!(sim.conservation().holds());
        // The transports keep their own RTO_min (200 ms default) under Unblocking.
        assert_eq!(sc.topology.rdcn.as_ref().unwrap().host_rto_min, None);
    }

    #[test]
    fn unblocking_buffer_is_shared_by_both_ports() {
        // 3000 B shared: the first window reaches ToR 0 at 1.12, 1.24, 1.36, 1.48 µs; the
        // uplink takes the first at once and is busy until 2.32 µs (1.2 µs at 10 Gb/s).
        let tor = "policy = \"unblocking\"\nunblocking = { shared = \"3000B\" }";
        let sc = Scenario::from_toml(&doc(tor, &flows_to(&[2], "0us"), "100us")).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.run_until(Time::from_us(2));
        let TorQueues::Unblocking { packet, .. } = &rdcn(&sim).seg.as_deref().unwrap().tors[0] else { panic!() };
        // Packet 1 went straight out; 2 and 3 wait (3000 B); 4 arrived at 1.48 µs to a full buffer.
        assert_eq!(packet.len_packets(), 2);
        assert_eq!(rdcn(&sim).seg.as_deref().unwrap().cases.full_drops, 1);
    }

    #[test]
    fn bad_tor_keys_are_reported_with_their_path() {
        let cases: &[(&str, &str, &str)] = &[
            ("policy = \"acceltor\"\nvoq = \"16pkt\"", "tor.voq", "only applies to policy = \"etalon\""),
            ("policy = \"acceltor\"\nblocking = { circuit_pool = \"1MB\" }", "tor.blocking", "only applies to policy = \"blocking\""),
            ("policy = \"acceltor\"\nacceltor = { m = 40 }", "tor.acceltor.m", "at most 30"),
            ("policy = \"acceltor\"\nacceltor = { queue = \"0pkt\" }", "tor.acceltor.queue", "at least one packet"),
            ("policy = \"acceltor\"\nacceltor = { hp = \"100B\" }", "tor.acceltor.hp", "smaller than one packet"),
            ("policy = \"acceltor\"\nacceltor = { k = 3, safe_margin = false }", "tor.acceltor.safe_margin", "conflicts with k"),
            ("policy = \"acceltor\"\nacceltor = { rtt_packet = \"1ms\" }", "tor.acceltor.rto_min", "≤ 0"),
            ("policy = \"acceltor\"\nacceltor = { rto_min = \"soon\" }", "tor.acceltor.rto_min", "not 'auto'"),
            ("policy = \"acceltor\"\nacceltor = { overflow = \"spill\" }", "tor.acceltor.overflow", "spill"),
            ("policy = \"acceltor\"\nacceltor = { case4 = \"sometimes\" }", "tor.acceltor.case4", "sometimes"),
            ("policy = \"acceltor\"\nacceltor = { case4_window = \"520us\" }", "tor.acceltor.case4_window", "only applies to case4 = \"window\""),
            ("policy = \"acceltor\"\nacceltor = { case4 = \"window\", case4_window = \"soon\" }", "tor.acceltor.case4_window", "soon"),
            ("policy = \"acceltor\"\nacceltor = { acceleration = \"fast\" }", "tor.acceltor.acceleration", "fast"),
            ("policy = \"acceltor\"\nacceltor = { warmup = 4 }", "tor.acceltor.warmup", "only applies to acceleration = \"count\""),
            ("policy = \"acceltor\"\nacceltor = { acceleration = \"count\", warmup = 0 }", "tor.acceltor.warmup", ""),
            ("policy = \"acceltor\"\nacceltor = { warmup_double_below = 25 }", "tor.acceltor.warmup_double_below", "only applies"),
            ("policy = \"acceltor\"\nacceltor = { acceleration = \"count\", after_warmup = \"some\" }", "tor.acceltor.after_warmup", "some"),
            ("policy = \"acceltor\"\nacceltor = { kk = 3 }", "tor.acceltor.kk", "unknown key"),
            ("policy = \"acceltor\"\nacceltor = { lp_left = \"0B\" }", "tor.acceltor.lp_left", "every packet"),
            ("policy = \"acceltor\"\nacceltor = { lp_left = \"lots\" }", "tor.acceltor.lp_left", "lots"),
            ("policy = \"blocking\"\nblocking = { lp_left = \"50KB\" }", "tor.blocking.lp_left", "unknown key"),
            ("policy = \"acceltor\"\nelephants = { forget = \"never\" }", "tor.elephants.forget", "never"),
            ("policy = \"blocking\"\nelephants = { selection = \"oracle\", width = 10 }", "tor.elephants.width", "only applies to selection = \"sketch\""),
            ("policy = \"unblocking\"\nelephants = { per_pair = 0 }", "tor.elephants.per_pair", ""),
            ("policy = \"unblocking\"\nelephants = { idle = \"0us\" }", "tor.elephants.idle", "positive"),
            ("policy = \"fast\"", "tor.policy", "fast"),
        ];
        for (tor, path, msg) in cases {
            let err = Scenario::from_toml(&doc(tor, &flows_to(&[1], "0us"), "1ms")).unwrap_err();
            assert!(err.0.iter().any(|i| i.path == *path && i.message.contains(msg)), "{tor}: {err:?}");
        }
        // Unequal slots: eqs. (1), (6), (7) need one day and one night length.
        let list = doc("policy = \"acceltor\"", &flows_to(&[1], "0us"), "1ms").replace(
            "schedule = \"strobe\"\nday = \"240us\"\nnight = \"20us\"",
            "schedule = \"list\"\nslots = [{ night = \"20us\", day = \"240us\", matching = [1, 0, 3, 2] }, { night = \"20us\", day = \"100us\", matching = [2, 3, 0, 1] }]",
        );
        let err = Scenario::from_toml(&list).unwrap_err();
        assert!(err.0.iter().any(|i| i.path == "circuit.slots" && i.message.contains("equal days")), "{err:?}");
    }

    #[test]
    fn the_oracle_and_the_sketch_pick_the_same_heavy_mouse_here() {
        // per_pair = 1, heavy = 20 KB: the preselected long flow to rack 1 stops at 100 µs; a
        // 1 MB flow to rack 1 starting at 0 is the pair's heavy hitter. After two weeks of
        // silence (idle = 1560 µs) the long flow departs at the night after the pair's day and
        // the heavy flow replaces it, with either selection.
        for sel in ["selection = \"oracle\"", "selection = \"sketch\", width = 64, depth = 2"] {
            let flows = "[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\nstop = \"100us\"\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = \"1MB\"\n";
            let tor = format!("policy = \"blocking\"\nelephants = {{ per_pair = 1, heavy = \"20KB\", idle = \"1560us\", {sel} }}");
            let sc = Scenario::from_toml(&doc(&tor, flows, "3ms")).unwrap();
            let mut sim = Simulator::new(&sc, None);
            sim.run_until(Time::from_us(50));
            let e = &rdcn(&sim).seg.as_deref().unwrap().elephants;
            assert!(e.is_elephant(crate::ids::FlowId::from_idx(0)));
            assert!(!e.is_elephant(crate::ids::FlowId::from_idx(1)));
            sim.run();
            let e = &rdcn(&sim).seg.as_deref().unwrap().elephants;
            assert_eq!(e.departed, 1, "{sel}");
            assert!(e.is_elephant(crate::ids::FlowId::from_idx(1)) || sim.flow_table().fct_ps[1].is_some(), "{sel}");
            assert_eq!(e.promoted, 1, "{sel}");
        }
    }

    /// Three one-window flows (4 × 1500 B) from h0 to racks 1, 2, 3 under AccelToR with K
    /// calendar queues and RTT_pkt = 1 ms (no acceleration: everything within K is buffered).
    fn one_window_each(k: u32, end: &str) -> Simulator {
        let tor = format!("policy = \"acceltor\"\nacceltor = {{ rtt_packet = \"1ms\", k = {k}, rto_min = \"transport\" }}");
        let flows: String = [1, 2, 3].iter().map(|d| format!("[[flows]]\nsrc = \"h0\"\ndst = \"h{d}\"\nsize = 5792\n")).collect();
        Simulator::new(&Scenario::from_toml(&doc(&tor, &flows, end)).unwrap(), None)
    }

    #[test]
    fn one_row_per_elephant_and_week_with_its_bytes() {
        // Three one-window flows (4 × 1500 B) from rack 0, buffered as in the rotation test:
        // each crosses its circuit in week 0 ([0, 780) µs), nothing after.
        let mut sim = one_window_each(3, "2ms");
        sim.run_until(Time::from_us(779));
        assert!(rdcn(&sim).seg.as_deref().unwrap().weeks.flow.is_empty());
        sim.run_until(Time::from_us(781));
        let w = &rdcn(&sim).seg.as_deref().unwrap().weeks;
        let mut rows: Vec<_> = (0..w.flow.len()).map(|i| (w.src[i], w.dst[i], w.flow[i], w.week_start_ps[i], w.bytes[i], w.circuit_bytes[i])).collect();
        rows.sort();
        assert_eq!(rows, vec![(0, 1, 0, 0, 6000, 6000), (0, 2, 1, 0, 6000, 6000), (0, 3, 2, 0, 6000, 6000)]);
        // Week 1: the same elephants, nothing delivered.
        sim.run_until(Time::from_us(1561));
        let w = &rdcn(&sim).seg.as_deref().unwrap().weeks;
        assert_eq!(w.flow.len(), 6);
        assert_eq!(&w.bytes[3..], &[0, 0, 0]);
        assert_eq!(&w.week_start_ps[3..], &[780_000_000; 3]);
    }

    #[test]
    fn a_full_calendar_queue_overflows_to_lp_or_drops() {
        // Q_1 holds 3000 B = 2 packets; the 4-packet window to rack 2 (1 day ahead, buffered
        // because RTT_pkt = 1 ms) puts 2 in Q_1 and, by §IV-G, 2 through LP — or drops 2.
        for (overflow, lp, dropped) in [("lp", 2, 0), ("drop", 0, 2)] {
            let tor = format!("policy = \"acceltor\"\nacceltor = {{ rtt_packet = \"1ms\", k = 3, rto_min = \"transport\", queue = \"3000B\", overflow = \"{overflow}\" }}");
            let sc = Scenario::from_toml(&doc(&tor, &flows_to(&[2], "0us"), "100us")).unwrap();
            let mut sim = Simulator::new(&sc, None);
            sim.run_until(Time::from_us(10));
            assert_eq!(calendar(&sim), vec![0, 2, 0], "{overflow}");
            let c = rdcn(&sim).seg.as_deref().unwrap().cases;
            assert_eq!((c.overflow_lp, c.full_drops), (lp, dropped), "{overflow}");
            assert_eq!(uplink_tx(&sim, 0), lp, "{overflow}");
        }
    }

    #[test]
    fn lp_left_sends_packets_to_lp_by_the_bytes_left_in_their_flow() {
        // Pair 0 → 1 has one elephant place: the 200 000 B flow takes it, the 100 000 B flow is
        // a mouse (Case I). With lp_left = 51·1024 = 52 224 B (the authors' Prio2Device), a
        // mouse packet starting at byte 1448·k takes LP while 100 000 − 1448·k ≥ 52 224, i.e.
        // k ≤ 32 (1448·33 = 47 784 > 47 776 = 100 000 − 52 224): k = 0…32, 33 of its 70 packets.
        // The elephant's packets for LP go HP once fewer than 52 224 B are left: k ≥ 103 of its
        // 139, so at most 36. Without the rule no packet changes queue. The mouse's HP packets
        // overtake its LP ones; a high duplicate-ACK threshold (in the [transport] table the
        // flows follow) keeps the reordering from resending any, so each is counted once.
        for (rule, mice_lp) in [("", 0u64), (", lp_left = \"52224B\"", 33)] {
            let tor = format!("policy = \"acceltor\"\nelephants = {{ per_pair = 1 }}\nacceltor = {{ rto_min = \"transport\"{rule} }}");
            let flows = "dupthresh = 1000\nrack = false\ntlp = false\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = 200000\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = 100000\n";
            let sc = Scenario::from_toml(&doc(&tor, flows, "5ms")).unwrap();
            assert_eq!(sc.flows[1].cfg.tcp().unwrap().rank_remaining, !rule.is_empty(), "the rule turns the hosts' ranks on");
            let mut sim = Simulator::new(&sc, None);
            sim.run_until(Time::from_us(5000));
            let seg = rdcn(&sim).seg.as_deref().unwrap();
            let c = seg.cases;
            assert_eq!(c.mice_lp, mice_lp, "{rule}");
            assert!(c.elephant_hp <= 36, "{rule}: {}", c.elephant_hp);
            assert_eq!(c.elephant_hp > 0, !rule.is_empty(), "{rule}: the elephant's last packets went to the packet port");
            // The LP queue took exactly the packets the rule (or Algorithm 1) sent there.
            let TorQueues::Accel { lp, hp, .. } = &seg.tors[0] else { panic!() };
            assert_eq!(lp.stats.enqueued, c.mice_lp + c.accelerated + c.case4_lp + c.overflow_lp - c.elephant_hp, "{rule}");
            assert_eq!(hp.stats.drops + lp.stats.drops + c.full_drops, 0, "{rule}: nothing lost, so no packet was sent twice");
        }
        // A scheme's configuration turns ranks off (PIAS here); the rule turns them back on for
        // every resolved TCP flow. Transports without bytes-left ranks are refused.
        let tor = "policy = \"acceltor\"\nacceltor = { lp_left = \"52224B\" }";
        let pias = "[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = 100000\ntransport = \"pias\"\n";
        let sc = Scenario::from_toml(&doc(tor, pias, "1ms")).unwrap();
        assert!(sc.flows[0].cfg.tcp().unwrap().rank_remaining);
        let sc = Scenario::from_toml(&doc("policy = \"acceltor\"", pias, "1ms")).unwrap();
        assert!(!sc.flows[0].cfg.tcp().unwrap().rank_remaining, "no rule, no ranks");
        let err = Scenario::from_toml(&doc(tor, &pias.replace("pias", "ndp"), "1ms")).unwrap_err();
        assert!(err.0.iter().any(|i| i.path == "tor.acceltor.lp_left" && i.message.contains("'ndp' is not TCP")), "{err:?}");
    }
}
