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
use crate::rdcn::{Decision, Design, Rack, TorPolicy, TorQueues};
use crate::time::Time;

/// Where an entering packet was put.
enum Placed {
    Packet,
    Circuit,
    /// In a paused calendar queue.
    Held,
    Dropped,
}

impl Fabric {
    /// A packet for rack `d` entered ToR `s` (a segregating design).
    pub(super) fn seg_ingress(&mut self, s: Rack, d: Rack, id: PacketId, cx: &mut Ctx) {
        let now = cx.now;
        let r = self.rdcn.as_deref_mut().unwrap();
        let pi = r.pair(s, d);
        let pkt = cx.slab.get_mut(id);
        pkt.stamp = now;
        let (kind, flow, size) = (pkt.kind, pkt.flow, pkt.size);
        r.voqs[pi].used = true;
        r.voqs[pi].data |= kind == Kind::Data;
        let TorPolicy::Segregated(design, _) = r.spec.policy else { unreachable!() };
        let plan = &r.spec.plan;
        let seg = r.seg.as_deref_mut().unwrap();
        let elephant = kind == Kind::Data && seg.elephants.observe(s as usize, d as usize, flow, size as u64, now);
        let c = &mut seg.cases;
        let placed = match (&design, &mut seg.tors[s as usize]) {
            (Design::Accel(a), TorQueues::Accel { hp, lp, calendar }) => {
                let ahead = if elephant { plan.days_ahead(s, d, now) } else { None };
                match ahead {
                    // Case I (and elephants of a pair that never gets a circuit).
                    None => {
                        c.mice += 1;
                        if push_capped(hp, a.hp, id, size, now) {
                            Placed::Packet
                        } else {
                            Placed::Dropped
                        }
                    }
                    Some((i, day)) => match a.decide(i, day.day_start, now) {
                        Decision::Accelerate => {
                            c.accelerated += 1;
                            if push_capped(lp, a.lp, id, size, now) {
                                Placed::Packet
                            } else {
                                Placed::Dropped
                            }
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
                                if push_capped(lp, a.lp, id, size, now) {
                                    Placed::Packet
                                } else {
                                    Placed::Dropped
                                }
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
                        Decision::Hp => unreachable!(),
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
