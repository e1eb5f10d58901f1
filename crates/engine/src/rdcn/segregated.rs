//! ToRs that segregate elephant flows from mice (AccelToR §III and the two baselines of §IV-B):
//! mice always take the packet network; the designs differ in what the elephants do while their
//! circuit is down and in how the buffer is organized.
//!
//! - **AccelToR**: HP and LP queues on the packet port (strict priority), a calendar queue of K
//!   queues on the circuit port; Algorithm 1 places elephant packets (`acceltor.rs`).
//! - **Blocking**: one packet queue (300 KB) for mice and N − 1 per-destination circuit queues
//!   sharing 1.5 MB; elephants wait for their circuit in their destination's queue.
//! - **Unblocking**: elephants take the circuit while it is up and the packet network otherwise;
//!   the packet port's queue and the circuit port's queue share one 1.8 MB buffer.
//!
//! All queues are the queue machinery's [`Fifo`]s; the simulator side is
//! `switch/segregated.rs`.

use super::acceltor::{AccelTor, ElephantSpec};
use super::calendar::Calendar;
use super::elephants::Elephants;
use crate::queue::{Amount, Fifo};
use crate::time::Time;

/// The Blocking baseline's buffers (§IV-B).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Blocking {
    /// The packet port's queue (mice only): 300 KB.
    pub packet_queue: Amount,
    /// The N − 1 per-destination circuit queues share this much: 1.5 MB.
    pub circuit_pool: Amount,
    /// eq. (7): τ_week − τ_day.
    pub rto_min: Time,
}

/// The Unblocking baseline's buffer (§IV-B): packet and circuit ports share 1.8 MB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unblocking {
    pub shared: Amount,
}

/// Per-ToR queues of one design.
#[derive(Clone, Debug)]
pub enum TorQueues {
    Accel { hp: Fifo, lp: Fifo, calendar: Calendar },
    /// `circuit[d]` buffers the elephants to rack d; `pooled` = (packets, bytes) in all of them.
    Blocking { packet: Fifo, circuit: Vec<Fifo>, pooled: (u64, u64) },
    /// `packet` and `circuit` share one buffer.
    Unblocking { packet: Fifo, circuit: Fifo },
}

/// What happened to the packets entering the ToRs, by Algorithm 1's cases (all designs fill the
/// rows that apply to them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cases {
    /// Case I: mice and non-data packets to the packet port (HP).
    pub mice: u64,
    /// Case II: elephants whose circuit is today, to the circuit port.
    pub today: u64,
    /// Subcase III-A: accelerated through the LP queue.
    pub accelerated: u64,
    /// Subcase III-B: buffered in Q_i (i ≥ 1).
    pub buffered: u64,
    /// Case IV: dropped (day K or more days away).
    pub case4_drops: u64,
    /// Case IV past the drop window (`case4 = "window"`): sent through the LP queue.
    pub case4_lp: u64,
    /// §IV-G: Q_i full, sent through the LP queue instead.
    pub overflow_lp: u64,
    /// With `lp_left`: Case I packets sent LP (their flow had that much left)…
    pub mice_lp: u64,
    /// …and elephant packets for LP sent HP (theirs had less).
    pub elephant_hp: u64,
    /// Elephants sent through the packet network (Unblocking off-day).
    pub elephant_packet: u64,
    /// Packets refused by a full queue (any design).
    pub full_drops: u64,
    /// Packets still in the circuit queue when its day ended (dropped; AccelToR's old Q_0).
    pub stale_drops: u64,
}

/// Per elephant and week (AccelToR §IV-B's weekly and daily throughput): the data bytes that
/// left the hybrid network during the week, and those that crossed the circuit (all in its
/// pair's day). Weeks that start at or after the warm-up; one row per elephant of the week's end.
#[derive(Clone, Debug, Default)]
pub struct ElephantWeeks {
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub flow: Vec<u32>,
    pub week_start_ps: Vec<u64>,
    pub bytes: Vec<u64>,
    pub circuit_bytes: Vec<u64>,
    /// Data bytes the sender put on the wire (counted entering the source ToR): the throughput
    /// of the AccelToR authors' scripts (RDCNSimulate `analyze/FlowThroughput_V2.py` counts the
    /// data packets in a pcap taken at the sending hosts).
    pub sent_bytes: Vec<u64>,
}

#[derive(Clone, Debug)]
pub struct Segregated {
    pub tors: Vec<TorQueues>,
    pub elephants: Elephants,
    pub cases: Cases,
    pub weeks: ElephantWeeks,
    /// Per ordered pair (src · racks + dst): does it get weekly rows (`ElephantSpec::record_pairs`)?
    recorded: Vec<bool>,
    racks: usize,
}

/// Which ordered rack pairs get weekly rows: all, or `n` of them drawn without replacement
/// (a partial Fisher–Yates shuffle from a stream of the scenario's seed).
fn recorded_pairs(racks: usize, n: Option<usize>, seed: u64) -> Vec<bool> {
    let mut out = vec![false; racks * racks];
    let mut pairs: Vec<usize> = (0..racks).flat_map(|s| (0..racks).filter(move |&d| d != s).map(move |d| s * racks + d)).collect();
    let n = n.unwrap_or(pairs.len()).min(pairs.len());
    let mut rng = crate::rng::Rng::stream(seed, 0x7265_636f_7264); // "record"
    for i in 0..n {
        let j = i + rng.below((pairs.len() - i) as u64) as usize;
        pairs.swap(i, j);
        out[pairs[i]] = true;
    }
    out
}

/// The three segregating designs' parameters, as carried in `TorPolicy`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Design {
    Accel(AccelTor),
    Blocking(Blocking),
    Unblocking(Unblocking),
}

impl Segregated {
    pub fn new(design: &Design, elephants: ElephantSpec, racks: usize, seed: u64) -> Segregated {
        let tors = (0..racks)
            .map(|_| match design {
                Design::Accel(a) => TorQueues::Accel { hp: Fifo::default(), lp: Fifo::default(), calendar: Calendar::new(a.k as usize, a.queue) },
                Design::Blocking(_) => TorQueues::Blocking { packet: Fifo::default(), circuit: vec![Fifo::default(); racks], pooled: (0, 0) },
                Design::Unblocking(_) => TorQueues::Unblocking { packet: Fifo::default(), circuit: Fifo::default() },
            })
            .collect();
        let recorded = recorded_pairs(racks, elephants.record_pairs, seed);
        Segregated { tors, elephants: Elephants::new(elephants, racks, seed), cases: Cases::default(), weeks: ElephantWeeks::default(), recorded, racks }
    }

    /// The week that started at `start` is over: one row per elephant if it is measured.
    pub fn end_week(&mut self, start: Time, measured: bool) {
        let (w, recorded, racks) = (&mut self.weeks, &self.recorded, self.racks);
        self.elephants.take_week(|s, d, f, b| {
            if measured && recorded[s * racks + d] {
                w.src.push(s as u32);
                w.dst.push(d as u32);
                w.flow.push(f.0);
                w.week_start_ps.push(start.0);
                w.bytes.push(b.bytes);
                w.circuit_bytes.push(b.circuit);
                w.sent_bytes.push(b.sent);
            }
        });
    }

    /// One row per queue of every ToR: (tor, queue name, the queue).
    pub fn queue_rows(&self) -> Vec<(u32, String, &Fifo)> {
        let mut out = vec![];
        for (s, t) in self.tors.iter().enumerate() {
            let s = s as u32;
            match t {
                TorQueues::Accel { hp, lp, calendar } => {
                    out.push((s, "hp".to_string(), hp));
                    out.push((s, "lp".to_string(), lp));
                    // Physical queues: each serves as Q_0 … Q_{K−1} in turn.
                    for (i, q) in calendar.queues().iter().enumerate() {
                        out.push((s, format!("calendar{i}"), q));
                    }
                }
                TorQueues::Blocking { packet, circuit, .. } => {
                    out.push((s, "packet".to_string(), packet));
                    for (d, q) in circuit.iter().enumerate().filter(|&(d, _)| d as u32 != s) {
                        out.push((s, format!("circuit{d}"), q));
                    }
                }
                TorQueues::Unblocking { packet, circuit } => {
                    out.push((s, "packet".to_string(), packet));
                    out.push((s, "circuit".to_string(), circuit));
                }
            }
        }
        out
    }
}

/// What `fabricsim topology` prints about a hybrid ToR design: (key, value) lines, derived
/// values included (AccelToR's n, m, K_1, K and RTO_min; Blocking's RTO_min).
pub fn describe(spec: &super::RdcnSpec, max_packet: u64) -> Vec<(&'static str, String)> {
    use super::TorPolicy;
    let amt = |a: Amount| match a {
        Amount::Packets(n) => format!("{n} packets"),
        Amount::Bytes(b) => format!("{b} B"),
    };
    let us = |t: Time| format!("{:.3} us", t.0 as f64 / 1e6);
    let mut out = vec![];
    let (design, e) = match &spec.policy {
        TorPolicy::Etalon(e) => {
            out.push(("policy", "etalon".to_string()));
            out.push(("voq", e.resize.map_or(amt(e.voq), |r| format!("{} / {} resized {} before the day", amt(r.small), amt(r.large), r.tau))));
            return out;
        }
        TorPolicy::Segregated(d, e) => (d, e),
    };
    let sel = match e.selection {
        super::Selection::Sketch { width, depth } => format!("Count-Min sketch {width} x {depth}"),
        super::Selection::Oracle => "oracle (exact per-flow counts)".to_string(),
    };
    let slot = &spec.plan.slots()[0];
    match design {
        Design::Accel(a) => {
            out.push(("policy", "acceltor".to_string()));
            out.push(("rtt_packet", us(a.rtt_pkt)));
            out.push(("rtt_circuit", us(a.rtt_cir)));
            out.push(("n", format!("{} circuit RTTs per day (floor(day / RTT_cir))", super::acceltor::rtts_per_day(slot.day, a.rtt_cir))));
            out.push(("m", format!("{} RTTs of acceleration (eq. 4)", a.m)));
            out.push(("k1", format!("{} (eq. 1)", a.k1)));
            out.push(("k", format!("{} calendar queues{}", a.k, if a.k == a.k1 + 2 { " (K_1 + 2, safe margin)" } else if a.k == a.k1 + 1 { " (K_1 + 1, no margin)" } else { "" })));
            let need = (1u64 << a.m) * e.per_pair as u64;
            let fits = !a.queue.exceeded_by(need, need * max_packet);
            out.push(("queue", format!("B = {} each; 2^m x |F_i| = {} packets = {} B {}", amt(a.queue), need, need * max_packet, if fits { "fits" } else { "does not fit" })));
            out.push(("overflow", if a.overflow_to_lp { "a full Q_i sends through LP (§IV-G)" } else { "a full Q_i drops" }.to_string()));
            out.push(("hp_lp", format!("{} / {}", amt(a.hp), amt(a.lp))));
            use super::acceltor::{Acceleration, CaseIv};
            out.push(("case4", match a.case4 {
                CaseIv::Drop => "drop every packet (Algorithm 1)".to_string(),
                CaseIv::Window(w) => format!("drop for {} after a flow's first drop, then LP (the authors' ns-3 ToR)", us(w)),
            }));
            out.push(("acceleration", match a.acceleration {
                Acceleration::Time => "LP while >= RTT_pkt before the day (Algorithm 1)".to_string(),
                Acceleration::Count { warmup, double_below, then_calendar } => format!(
                    "count: {warmup} packets by LP ({} after a run under {double_below}), then {} (the authors' ns-3 ToR)",
                    2 * warmup,
                    if then_calendar { "Q_i" } else { "one packet to Q_i and LP until the day" }
                ),
            }));
        }
        Design::Blocking(b) => {
            out.push(("policy", "blocking".to_string()));
            out.push(("packet_queue", amt(b.packet_queue)));
            out.push(("circuit_pool", format!("{} shared by {} per-destination queues", amt(b.circuit_pool), spec.racks - 1)));
        }
        Design::Unblocking(u) => {
            out.push(("policy", "unblocking".to_string()));
            out.push(("shared", format!("{} shared by the packet and circuit ports", amt(u.shared))));
        }
    }
    out.push(("rto_min", spec.host_rto_min.map_or("the transports' own".to_string(), |t| format!("{} at every TCP host", us(t)))));
    out.push(("elephants", format!("{} per rack pair; {sel}; heavy from {} B; idle after {}", e.per_pair, e.heavy, us(e.idle))));
    out
}

/// Push into `q` if `cap` allows it.
#[inline]
pub fn push_capped(q: &mut Fifo, cap: Amount, id: crate::ids::PacketId, size: u32, now: Time) -> bool {
    if cap.exceeded_by(q.len_packets() + 1, q.len_bytes() + size as u64) {
        q.stats.drops += 1;
        return false;
    }
    q.push(id, size, now);
    q.stats.enqueued += 1;
    true
}

#[cfg(test)]
mod tests {
    use super::recorded_pairs;

    #[test]
    fn recorded_pairs_are_a_seeded_sample_of_ordered_pairs() {
        // 5 racks: 20 ordered pairs; all of them without a limit, never a rack to itself.
        let all = recorded_pairs(5, None, 1);
        assert_eq!(all.iter().filter(|&&b| b).count(), 20);
        assert!((0..5).all(|r| !all[r * 5 + r]));
        let a = recorded_pairs(5, Some(3), 1);
        assert_eq!(a.iter().filter(|&&b| b).count(), 3);
        assert!((0..5).all(|r| !a[r * 5 + r]));
        assert_eq!(a, recorded_pairs(5, Some(3), 1), "same seed, same pairs");
        // Over seeds every pair is drawn at some point, about 3/20 of the time each.
        let mut hits = [0u32; 25];
        for seed in 0..2000 {
            for (i, b) in recorded_pairs(5, Some(3), seed).into_iter().enumerate() {
                hits[i] += b as u32;
            }
        }
        for s in 0..5 {
            for d in 0..5 {
                let h = hits[s * 5 + d];
                if s == d {
                    assert_eq!(h, 0);
                } else {
                    assert!((240..=360).contains(&h), "pair {s}->{d} drawn {h} times of 2000 (expected 300)");
                }
            }
        }
    }
}
