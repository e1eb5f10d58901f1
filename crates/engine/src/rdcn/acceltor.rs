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

/// Elephant selection shared by the three segregating ToRs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElephantSpec {
    /// |F_i|: elephants per rack pair at most.
    pub per_pair: usize,
    /// A flow becomes a candidate once its (estimated) bytes reach this.
    pub heavy: u64,
    /// An elephant whose counter has not moved for this long has left (and is replaced).
    pub idle: Time,
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
}

impl AccelTor {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rdcn::WeekPlan;

    fn us(x: u64) -> Time {
        Time::from_us(x)
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

    #[test]
    fn algorithm_1_cases() {
        let a = AccelTor {
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
        };
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
