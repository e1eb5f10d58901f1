//! AccelToR (Chen, Tian, Zhang, "AccelToR: Accelerating TCP for circuit/packet hybrid data
//! centers with packet scheduling", §III): the derived parameters m, K_1, K, RTO_min of eqs.
//! (1), (4), (6) and the per-packet decision of Algorithm 1. The queues themselves are in
//! `segregated.rs` (HP/LP on the packet port) and `calendar.rs` (the circuit port).

use crate::queue::Amount;
use crate::time::Time;

/// n = ⌊τ_day / RTT_cir⌋, the circuit RTTs in a day (§III-C).
pub fn rtts_per_day(day: Time, rtt_cir: Time) -> u64 {
    day.0 / rtt_cir.0.max(1)
}

/// m from problem (4): by Theorem 1 the unique x = m with 2^(m−1) < n ≤ 2^m, i.e. m = ⌈log₂ n⌉
/// (n = 8 → m = 3, §III-C; n = 4 → m = 2, §IV-B). n ≤ 1 gives 0 (no acceleration).
pub fn acceleration_rtts(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    }
}

/// K_1 = ⌈(m + 1)·RTT_pkt / (τ_day + τ_night)⌉, eq. (1).
pub fn k1(m: u32, rtt_pkt: Time, day: Time, night: Time) -> u32 {
    ((m as u64 + 1) * rtt_pkt.0).div_ceil((day + night).0.max(1)) as u32
}

/// RTO_min = τ_week − τ_day − (m + 1)·RTT_pkt, eq. (6) (clamped at zero).
pub fn rto_min(week: Time, day: Time, m: u32, rtt_pkt: Time) -> Time {
    Time(week.0.saturating_sub(day.0).saturating_sub((m as u64 + 1) * rtt_pkt.0))
}

/// The Blocking baseline's RTO_min = τ_week − τ_day, eq. (7).
pub fn blocking_rto_min(week: Time, day: Time) -> Time {
    Time(week.0.saturating_sub(day.0))
}

/// How elephant flows are recognized (§III-G, §IV-B).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Selection {
    /// A Count-Min sketch per ToR over the bytes of flows that are not elephants.
    Sketch { width: usize, depth: usize },
    /// Exact per-flow byte counts (what the sketch approximates).
    Oracle,
}

/// What an elephant that has left (idle) keeps of its count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Forget {
    /// What the counter holds: a flow that became an elephant by its count still has it and is
    /// an elephant again at its next packet (if its pair has a place); one chosen at the start,
    /// never counted, is a mouse that must reach `heavy`.
    #[default]
    AsCounted,
    /// At least `heavy`, the start's elephants too, as if they had passed the sketch as all the
    /// authors' did: their `Ipv4EpsRouting::EraseFlow` (HPCC724/RDCNSimulate,
    /// src/ocs/model/Ipv4EpsRouting.h) deletes the flow's `Flow` object but never the Count-Min
    /// sketch's counters, and they choose no elephant at the start, so every forgotten flow's next
    /// packet makes it an elephant again at once (a fresh `Flow`) if its pair has a place.
    KeepCount,
}

/// Elephant selection shared by the three segregating ToRs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElephantSpec {
    /// |F_i|: elephants per rack pair at most.
    pub per_pair: usize,
    /// A flow becomes a candidate once its (estimated) bytes reach this.
    pub heavy: u64,
    /// An elephant whose counter has not moved for this long has left (and is replaced).
    pub idle: Time,
    /// What forgetting an idle elephant does to its count.
    pub forget: Forget,
    pub selection: Selection,
    /// Ordered rack pairs whose elephants get weekly rows (`ElephantWeeks`): all (`None`), or a
    /// seeded random sample of this many — at 50 racks and 80 elephants a pair, every pair is
    /// 196 000 rows a week, which a 5 s run cannot hold.
    pub record_pairs: Option<usize>,
}

/// Where an elephant's packet goes (Algorithm 1; Case I, a mouse → the HP queue, is decided
/// before, by the elephant selection).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Case II: an elephant whose circuit is today → Q_0.
    Today,
    /// Subcase III-A: ≥ RTT_pkt before its day → LP queue (accelerate).
    Accelerate,
    /// Subcase III-B: < RTT_pkt before its day → Q_i (buffer).
    Buffer(usize),
    /// Case IV: its day is K or more days away → drop.
    Drop,
    /// Case IV past its drop window (`CaseIv::Window`): → LP queue.
    Fallback,
}

/// What Case IV does with an elephant packet whose day is K or more days away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaseIv {
    /// Algorithm 1 as written: drop it, every time.
    Drop,
    /// The authors' ns-3 ToR (github.com/HPCC724/RDCNSimulate, `src/ocs/model/Ipv4EpsRouting.cc`,
    /// `Ipv4EpsRouting::RouteInput`, and `Flow::DropPacket` in `Ipv4EpsRouting.h`): drop only
    /// until this long after the flow's first drop since it last used the calendar; after that,
    /// and for an elephant that has not yet had a calendar queue, its packets take the LP queue
    /// until its destination is again within K days.
    Window(Time),
}

/// How Subcase III chooses between acceleration (LP) and buffering (Q_i).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acceleration {
    /// Algorithm 1: LP while at least RTT_pkt remains before the day (III-A), then Q_i (III-B).
    Time,
    /// The authors' ns-3 ToR (`Ipv4EpsRouting::RouteInput`, strategy `cwndbased` that the
    /// `warmup` scratch setups select): after a Case IV drop, the first `warmup` packets of the
    /// flow take LP (`2·warmup` if it sent fewer than `double_below` packets between its previous
    /// drop and this one), the next one goes to Q_i, and the rest take LP until its day
    /// (`then_calendar`: the rest go to Q_i too — not what their code does, but what the paper's
    /// "buffer the last window" reads as); a full Q_i sends the packet through LP.
    Count { warmup: u32, double_below: u32, then_calendar: bool },
}

/// Per-elephant state of the authors' ToR rules (the fields of their `Flow` class that
/// `RouteInput` reads): used only with `CaseIv::Window` or `Acceleration::Count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowState {
    /// Packets sent through LP by the warm-up count or to the calendar since the last drop.
    sent: u32,
    /// `sent` when the last drop ended a run of them.
    prev_sent: u32,
    /// The warm-up threshold is doubled (the flow sent fewer than `double_below` packets).
    doubled: bool,
    /// The first Case IV drop since the flow last entered the calendar (`NO_DROP`: none; a
    /// sentinel rather than an `Option` keeps the state 24 B, so an elephant's slot with its
    /// week's counts is one cache line, `elephants.rs`).
    drop_time: Time,
    /// Case IV packets take LP (their `lostflag`; true for a new elephant).
    lost: bool,
    /// A packet of the flow waits in a future day's Q_i (reset by a drop).
    enqueued: bool,
}

/// `FlowState::drop_time` when the flow has no drop to remember.
const NO_DROP: Time = Time::MAX;

impl Default for FlowState {
    fn default() -> FlowState {
        // `Flow`'s constructor: lostflag = true, droptime = 0, sentp = 0; `enqueued` is left
        // uninitialized there; false (fresh memory) is taken here.
        FlowState { sent: 0, prev_sent: 0, doubled: false, drop_time: NO_DROP, lost: true, enqueued: false }
    }
}

impl FlowState {
    /// `Flow::DropPacket`: a Case IV drop.
    fn dropped(&mut self, now: Time, double_below: u32) {
        self.enqueued = false;
        if self.sent != 0 {
            self.prev_sent = self.sent;
            self.drop_time = now;
        }
        self.doubled = self.prev_sent < double_below;
        self.sent = 0;
    }
}

/// AccelToR's parameters (§III, §IV-B), with the derived values resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccelTor {
    /// HP and LP queues of the packet port (§IV-B: 150 KB each).
    pub hp: Amount,
    pub lp: Amount,
    /// Each calendar queue's size B (§IV-B: 500 KB).
    pub queue: Amount,
    pub rtt_pkt: Time,
    pub rtt_cir: Time,
    pub m: u32,
    pub k1: u32,
    /// K queues in the calendar (K_1 + 2 with the safe margin, §III-E).
    pub k: u32,
    pub rto_min: Time,
    /// §IV-G: a packet for a full Q_i goes to the LP queue instead of being dropped.
    pub overflow_to_lp: bool,
    pub case4: CaseIv,
    pub acceleration: Acceleration,
    /// Which packet-port queue a packet takes: `None`, Algorithm 1's (HP for Case I, LP for
    /// the elephants' acceleration and fallbacks); `Some(b)`, LP exactly when its flow has at
    /// least `b` bytes left from the packet's first byte (its `rank`), whatever the case — the
    /// authors' `Prio2Device::GetTargetQueue` (HPCC724/RDCNSimulate, src/ocs/model/Prio2Device.cc)
    /// sends a packet to queue 1 when its `OcsTag` says more than `micethresh` = 50 KB (of
    /// 1024 B, rounded down) are left, i.e. b = 51 · 1024 B; untagged packets (ACKs, SYNs) HP.
    pub lp_left: Option<u64>,
}

impl AccelTor {
    /// Does a packet with `rank` bytes left in its flow take LP, where Algorithm 1 says
    /// `algorithm_lp`?
    #[inline]
    pub fn takes_lp(&self, algorithm_lp: bool, rank: u64) -> bool {
        self.lp_left.map_or(algorithm_lp, |b| rank >= b)
    }

    /// Algorithm 1 for an elephant data packet whose circuit day is `ahead` days away (0 = the
    /// current day, during its night or its day) and starts at `day_start`.
    #[inline]
    pub fn decide(&self, ahead: usize, day_start: Time, now: Time) -> Decision {
        if ahead == 0 {
            Decision::Today
        } else if ahead < self.k as usize {
            if day_start.0 >= now.0 + self.rtt_pkt.0 {
                Decision::Accelerate
            } else {
                Decision::Buffer(ahead)
            }
        } else {
            Decision::Drop
        }
    }

    /// Do the placements need per-flow state (`decide_flow`)?
    #[inline]
    pub fn per_flow(&self) -> bool {
        self.case4 != CaseIv::Drop || self.acceleration != Acceleration::Time
    }

    /// `decide` with the authors' per-flow rules (`case4`, `acceleration`) and the flow's state
    /// `f`; `room()` says whether Q_ahead can take the packet.
    #[inline]
    pub fn decide_flow(&self, f: &mut FlowState, ahead: usize, day_start: Time, now: Time, room: impl FnOnce() -> bool) -> Decision {
        let double_below = match self.acceleration {
            Acceleration::Count { double_below, .. } => double_below,
            Acceleration::Time => 0,
        };
        if ahead >= self.k as usize {
            if let CaseIv::Window(w) = self.case4 {
                if f.lost {
                    return Decision::Fallback;
                }
                if f.drop_time != NO_DROP && now >= f.drop_time + w {
                    f.lost = true;
                    return Decision::Fallback;
                }
            }
            f.dropped(now, double_below);
            return Decision::Drop;
        }
        f.lost = false;
        let d = match self.acceleration {
            _ if ahead == 0 => Decision::Today,
            Acceleration::Time => self.decide(ahead, day_start, now),
            Acceleration::Count { warmup, then_calendar, .. } => {
                // `RouteInput`: a full Q_i, or one already holding a packet of the flow → LP.
                if f.enqueued && !then_calendar || !room() {
                    return Decision::Accelerate;
                }
                if f.sent < warmup << f.doubled as u32 {
                    f.sent += 1;
                    return Decision::Accelerate;
                }
                f.enqueued = true;
                Decision::Buffer(ahead)
            }
        };
        if d != Decision::Accelerate {
            f.sent += 1;
            f.drop_time = NO_DROP;
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rdcn::WeekPlan;

    fn us(x: u64) -> Time {
        Time::from_us(x)
    }

    #[test]
    fn lp_left_picks_the_queue_by_bytes_left_whatever_the_case() {
        let mut a = authors(CaseIv::Drop, Acceleration::Time);
        // Algorithm 1's choice stands without the rule.
        assert!(a.takes_lp(true, 0) && !a.takes_lp(false, u64::MAX));
        // The authors' `left / 1024 > 50`: 52 224 B left (51 KiB) is LP, one byte less HP;
        // a long-lived flow (rank u64::MAX) LP; ACKs (rank 0) HP.
        a.lp_left = Some(51 * 1024);
        for algorithm_lp in [false, true] {
            assert!(a.takes_lp(algorithm_lp, 52_224));
            assert!(!a.takes_lp(algorithm_lp, 52_223));
            assert!(a.takes_lp(algorithm_lp, u64::MAX));
            assert!(!a.takes_lp(algorithm_lp, 0));
        }
    }

    #[test]
    fn m_solves_problem_4() {
        // Theorem 1: 2^(m−1) < n ≤ 2^m. §III-C: n = 8 → m = 3; §IV-B: ⌊240/55⌋ = 4 → m = 2.
        assert_eq!(acceleration_rtts(8), 3);
        assert_eq!(rtts_per_day(us(240), us(55)), 4);
        assert_eq!(acceleration_rtts(4), 2);
        for n in 2..2000u64 {
            let m = acceleration_rtts(n);
            assert!((1u64 << (m - 1)) < n && n <= (1u64 << m), "n = {n}, m = {m}");
        }
        assert_eq!(acceleration_rtts(1), 0);
    }

    #[test]
    fn the_worked_examples_of_section_3() {
        // §III-C: τ_day = 240 µs, τ_night = 20 µs, RTT_pkt = 30 µs, m = 3 → K_1 = 1 (K = 2, or
        // 3 with the safe margin).
        assert_eq!(k1(3, us(30), us(240), us(20)), 1);
        // §II-B: 50 racks → a week of 49 days and nights = 12.74 ms.
        let week = WeekPlan::strobe(50, us(240), us(20)).week();
        assert_eq!(week, Time::from_ps(12_740_000_000));
        // §III-E eq. (6): 12.74 ms − 240 µs − 4·30 µs = 12.38 ms.
        assert_eq!(rto_min(week, us(240), 3, us(30)), Time::from_ps(12_380_000_000));
        // §IV-B: RTT_pkt = 60 µs, m = 2: K_1 = ⌈180/260⌉ = 1, K = 3 with the margin.
        assert_eq!(k1(2, us(60), us(240), us(20)), 1);
        // eq. (7): Blocking's RTO_min = week − day.
        assert_eq!(blocking_rto_min(week, us(240)), us(12_500));
        // A longer acceleration spills over a second day: (5+1)·60 = 360 µs > 260 µs.
        assert_eq!(k1(5, us(60), us(240), us(20)), 2);
    }

    /// §IV-B's parameters (K = 3, RTT_pkt 60 µs) with the given Case IV and acceleration rules.
    fn authors(case4: CaseIv, acceleration: Acceleration) -> AccelTor {
        AccelTor {
            hp: Amount::Bytes(150_000),
            lp: Amount::Bytes(150_000),
            queue: Amount::Bytes(500_000),
            rtt_pkt: us(60),
            rtt_cir: us(55),
            m: 2,
            k1: 1,
            k: 3,
            rto_min: us(0),
            overflow_to_lp: false,
            case4,
            acceleration,
            lp_left: None,
        }
    }

    #[test]
    fn case_4_drops_only_within_its_window_then_falls_back_to_lp() {
        // RDCNSimulate `RouteInput` by hand, K = 3, window 520 µs, Algorithm 1's timing.
        let a = authors(CaseIv::Window(us(520)), Acceleration::Time);
        assert!(a.per_flow());
        let mut f = FlowState::default();
        let room = || true;
        // A new elephant (lostflag = true): Case IV packets take LP, nothing is dropped.
        assert_eq!(a.decide_flow(&mut f, 5, us(5000), us(0), room), Decision::Fallback);
        // Its day comes within K (Case IV is 3 or more days ahead): 2 days ahead, 900 µs ≥
        // RTT_pkt before it → III-A.
        assert_eq!(a.decide_flow(&mut f, 2, us(1000), us(100), room), Decision::Accelerate);
        assert_eq!(a.decide_flow(&mut f, 0, us(1000), us(900), room), Decision::Today);
        // After the day: dropped from the first Case IV packet (1300 µs) up to 1820 µs excluded…
        assert_eq!(a.decide_flow(&mut f, 3, us(9000), us(1300), room), Decision::Drop);
        assert_eq!(a.decide_flow(&mut f, 3, us(9000), us(1819), room), Decision::Drop);
        // …then LP, and LP it stays while the day is K or more days away.
        assert_eq!(a.decide_flow(&mut f, 3, us(9000), us(1820), room), Decision::Fallback);
        assert_eq!(a.decide_flow(&mut f, 9, us(9000), us(5000), room), Decision::Fallback);
        // Back within K: Algorithm 1 again; the next Case IV run drops anew for 520 µs.
        assert_eq!(a.decide_flow(&mut f, 1, us(9000), us(8999), room), Decision::Buffer(1));
        assert_eq!(a.decide_flow(&mut f, 3, us(20_000), us(9500), room), Decision::Drop);
        assert_eq!(a.decide_flow(&mut f, 3, us(20_000), us(10_019), room), Decision::Drop);
        assert_eq!(a.decide_flow(&mut f, 3, us(20_000), us(10_020), room), Decision::Fallback);
        // Algorithm 1 as written drops every Case IV packet, new elephants included.
        let text = authors(CaseIv::Drop, Acceleration::Time);
        assert!(!text.per_flow());
        assert_eq!(text.decide_flow(&mut FlowState::default(), 5, us(5000), us(0), room), Decision::Drop);
    }

    #[test]
    fn count_acceleration_sends_the_warm_up_by_lp_one_packet_to_q_i_and_doubles_after_a_short_run() {
        // RDCNSimulate `RouteInput` (`cwndbased`) by hand: warm-up 4, doubled below 25 packets.
        let a = authors(CaseIv::Drop, Acceleration::Count { warmup: 4, double_below: 25, then_calendar: false });
        let mut f = FlowState::default();
        let t = us(0);
        let run = |f: &mut FlowState, ahead: usize, n: usize, room: bool| -> Vec<Decision> {
            (0..n).map(|_| a.decide_flow(f, ahead, us(1000), t, || room)).collect()
        };
        use Decision::*;
        // Q_2 full: LP, and the warm-up count does not move.
        assert_eq!(run(&mut f, 2, 2, false), vec![Accelerate; 2]);
        // Packets 1–4 by LP whatever the time to the day, the 5th to Q_2, then LP again.
        assert_eq!(run(&mut f, 2, 7, true), vec![Accelerate, Accelerate, Accelerate, Accelerate, Buffer(2), Accelerate, Accelerate]);
        // Its day: 10 packets to Q_0 → 5 + 10 = 15 packets in the run.
        assert_eq!(run(&mut f, 0, 10, true), vec![Today; 10]);
        // A Case IV drop ends the run: 15 < 25, so the next warm-up is 8 packets.
        assert_eq!(run(&mut f, 3, 1, true), vec![Drop]);
        let next = run(&mut f, 1, 10, true);
        assert_eq!(next[..8], [Accelerate; 8]);
        assert_eq!(next[8..], [Buffer(1), Accelerate]);
        // 9 + 30 = 39 ≥ 25: back to 4.
        run(&mut f, 0, 30, true);
        assert_eq!(run(&mut f, 4, 2, true), vec![Drop, Drop]);
        assert_eq!(run(&mut f, 2, 6, true), vec![Accelerate, Accelerate, Accelerate, Accelerate, Buffer(2), Accelerate]);
        // `then_calendar`: everything after the warm-up is buffered.
        let b = authors(CaseIv::Drop, Acceleration::Count { warmup: 4, double_below: 25, then_calendar: true });
        let mut f = FlowState::default();
        let got: Vec<_> = (0..7).map(|_| b.decide_flow(&mut f, 1, us(1000), t, || true)).collect();
        assert_eq!(got, vec![Accelerate, Accelerate, Accelerate, Accelerate, Buffer(1), Buffer(1), Buffer(1)]);
    }

    #[test]
    fn algorithm_1_cases() {
        let a = authors(CaseIv::Drop, Acceleration::Time);
        let day = us(1000);
        assert_eq!(a.decide(0, us(990), day), Decision::Today);
        // Case III: the switch from III-A to III-B is exactly RTT_pkt before the day.
        assert_eq!(a.decide(1, day, us(940)), Decision::Accelerate);
        assert_eq!(a.decide(1, day, us(940) + Time(1)), Decision::Buffer(1));
        assert_eq!(a.decide(2, day, us(100)), Decision::Accelerate);
        assert_eq!(a.decide(2, day, us(999)), Decision::Buffer(2));
        // Case IV: K or more days away.
        assert_eq!(a.decide(3, day, us(0)), Decision::Drop);
        assert_eq!(a.decide(48, day, us(0)), Decision::Drop);
    }
}
