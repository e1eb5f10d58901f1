//! Circuit schedules: which rack each rack's circuit uplink reaches, and when.
//!
//! Terminology of the RDCN papers (Mukerjee et al., NSDI 2020 §2, after RotorNet): a **day** is one
//! circuit configuration (a matching of source racks to destination racks), a **night** is the
//! reconfiguration gap before it, during which no circuit carries anything, and a **week** is the
//! sequence of (night, day) slots that repeats. A schedule here is a [`WeekPlan`] repeated forever.
//! Demand-aware schedulers (Solstice, Eclipse) compute one `WeekPlan` per week from VOQ occupancy;
//! they plug in as a producer of week plans (`Rdcn` asks for the plan at each week boundary) — the
//! fixed plans below are the strobe and explicit-list cases.

use crate::time::Time;

/// Rack index (0-based).
pub type Rack = u32;

/// One slot of the week: a night of `night`, then a day of `day` with this matching.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    pub night: Time,
    pub day: Time,
    /// Destination rack of each source rack's circuit during the day (`None` = no circuit).
    pub matching: Vec<Option<Rack>>,
}

/// A circuit day of one rack pair, in absolute time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairDay {
    /// The night before the day starts here.
    pub night_start: Time,
    pub day_start: Time,
    pub day_end: Time,
}

/// Where the schedule is at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Phase {
    pub slot: usize,
    /// True during the day, false during the night.
    pub day: bool,
    /// When this phase ends.
    pub ends: Time,
}

/// A week of slots, repeated from time zero.
#[derive(Clone, Debug, PartialEq)]
pub struct WeekPlan {
    racks: usize,
    slots: Vec<Slot>,
    /// Offset of each slot's night start within the week.
    starts: Vec<Time>,
    week: Time,
    /// Per ordered pair (src·racks + dst): the slots whose day connects src to dst.
    pair_slots: Vec<Vec<u32>>,
}

impl WeekPlan {
    /// A plan from explicit slots. Every matching must have one entry per rack, no rack may
    /// reach itself and no destination may be reached twice in one slot (a crossbar matching);
    /// the scenario reader checks this and reports it, here it is an invariant.
    pub fn new(racks: usize, slots: Vec<Slot>) -> WeekPlan {
        assert!(!slots.is_empty(), "a week needs at least one slot");
        let mut starts = Vec::with_capacity(slots.len());
        let mut at = Time::ZERO;
        let mut pair_slots = vec![Vec::new(); racks * racks];
        for (k, s) in slots.iter().enumerate() {
            assert_eq!(s.matching.len(), racks);
            debug_assert!(is_matching(&s.matching));
            starts.push(at);
            at = at + s.night + s.day;
            for (src, dst) in s.matching.iter().enumerate() {
                if let Some(d) = dst {
                    pair_slots[src * racks + *d as usize].push(k as u32);
                }
            }
        }
        assert!(at > Time::ZERO, "a week must last some time");
        WeekPlan { racks, slots, starts, week: at, pair_slots }
    }

    /// Round-robin strobe over `racks` racks (Mukerjee et al. §4.5, Fig. 7): in slot k
    /// (k = 0 … racks−2) rack i's circuit reaches rack (i + k + 1) mod racks, so every ordered
    /// pair gets exactly one day per week and a week lasts (racks − 1)·(night + day).
    pub fn strobe(racks: usize, day: Time, night: Time) -> WeekPlan {
        assert!(racks >= 2);
        let slots = (0..racks - 1)
            .map(|k| Slot { night, day, matching: (0..racks).map(|i| Some(((i + k + 1) % racks) as Rack)).collect() })
            .collect();
        WeekPlan::new(racks, slots)
    }

    pub fn racks(&self) -> usize {
        self.racks
    }
    pub fn week(&self) -> Time {
        self.week
    }
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// Offset of `t` within its week, and the week's start.
    #[inline]
    fn split(&self, t: Time) -> (Time, Time) {
        let off = Time(t.0 % self.week.0);
        (off, Time(t.0 - off.0))
    }

    /// The phase (slot, night or day) at `t`; a boundary belongs to the phase it starts.
    pub fn phase(&self, t: Time) -> Phase {
        let (off, base) = self.split(t);
        // Slots are few (racks − 1 for a strobe); a binary search keeps long lists cheap.
        let k = self.starts.partition_point(|&s| s <= off) - 1;
        let s = &self.slots[k];
        let day_start = self.starts[k] + s.night;
        if off < day_start {
            Phase { slot: k, day: false, ends: base + day_start }
        } else {
            Phase { slot: k, day: true, ends: base + day_start + s.day }
        }
    }

    /// The rack `src`'s circuit reaches at `t` (`None` at night or when unmatched).
    #[inline]
    pub fn circuit_dst(&self, src: Rack, t: Time) -> Option<Rack> {
        let p = self.phase(t);
        if p.day {
            self.slots[p.slot].matching[src as usize]
        } else {
            None
        }
    }

    /// The day of pair (src, dst) that is running at `t` or comes next (the earliest day that
    /// ends after `t`); `None` if the pair never gets a circuit.
    pub fn pair_day(&self, src: Rack, dst: Rack, t: Time) -> Option<PairDay> {
        let slots = &self.pair_slots[src as usize * self.racks + dst as usize];
        if slots.is_empty() {
            return None;
        }
        let (off, base) = self.split(t);
        let day_of = |k: u32, week_base: Time| {
            let s = &self.slots[k as usize];
            let night_start = week_base + self.starts[k as usize];
            PairDay { night_start, day_start: night_start + s.night, day_end: night_start + s.night + s.day }
        };
        for &k in slots {
            let d = day_of(k, base);
            if d.day_end > base + off {
                return Some(d);
            }
        }
        Some(day_of(slots[0], base + self.week))
    }
}

impl WeekPlan {
    /// How many slots ahead of the current one (0 = this slot, in its night or its day) the day
    /// of pair (src, dst) running or next at `t` is, with that day (AccelToR's F_i index, §III-B).
    pub fn days_ahead(&self, src: Rack, dst: Rack, t: Time) -> Option<(usize, PairDay)> {
        let day = self.pair_day(src, dst, t)?;
        let k = self.phase(t).slot;
        let j = self.phase(day.night_start).slot;
        // Whole weeks between the two slot starts, plus the slot distance.
        let (_, base_t) = self.split(t);
        let (_, base_j) = self.split(day.night_start);
        let weeks = ((base_j.0 - base_t.0) / self.week.0) as usize;
        let n = self.slots.len();
        Some((weeks * n + j - k, day))
    }
}

/// No rack reaches itself and no destination is reached twice.
pub fn is_matching(m: &[Option<Rack>]) -> bool {
    let mut seen = vec![false; m.len()];
    for (src, d) in m.iter().enumerate() {
        if let Some(d) = *d {
            let d = d as usize;
            if d == src || d >= m.len() || seen[d] {
                return false;
            }
            seen[d] = true;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> Time {
        Time::from_us(x)
    }

    #[test]
    fn strobe_week_is_racks_minus_one_slots() {
        // The paper's numbers: 25 racks, 20 µs nights, 180 µs days → 4800 µs weeks (§4.5).
        let w = WeekPlan::strobe(25, us(180), us(20));
        assert_eq!(w.week(), us(4800));
    }

    #[test]
    fn strobe_gives_every_pair_exactly_one_day_per_week_at_the_right_time() {
        let n = 5;
        let w = WeekPlan::strobe(n, us(180), us(20));
        for src in 0..n as Rack {
            for dst in 0..n as Rack {
                if src == dst {
                    assert_eq!(w.pair_day(src, dst, Time::ZERO), None);
                    continue;
                }
                // By hand: the pair's slot is k = (dst − src − 1) mod n; its day runs from
                // k·200 + 20 to (k+1)·200 µs.
                let k = (dst as u64 + n as u64 - src as u64 - 1) % n as u64;
                let d = w.pair_day(src, dst, Time::ZERO).unwrap();
                assert_eq!((d.night_start, d.day_start, d.day_end), (us(k * 200), us(k * 200 + 20), us(k * 200 + 200)));
                // Scan the week in 5 µs steps: the circuit src→dst is up exactly in that day.
                let mut up = Time::ZERO;
                for step in 0..(800 / 5) {
                    let t = us(step * 5);
                    if w.circuit_dst(src, t) == Some(dst) {
                        up = up + us(5);
                        assert!(t >= d.day_start && t < d.day_end, "{src}->{dst} up at {t:?}");
                    }
                }
                assert_eq!(up, us(180));
                // Next week: same offsets, 800 µs later.
                let d2 = w.pair_day(src, dst, d.day_end).unwrap();
                assert_eq!(d2.day_start, d.day_start + us(800));
            }
        }
    }

    #[test]
    fn phases_alternate_night_then_day() {
        let w = WeekPlan::strobe(3, us(180), us(20));
        assert_eq!(w.phase(Time::ZERO), Phase { slot: 0, day: false, ends: us(20) });
        assert_eq!(w.phase(us(20)), Phase { slot: 0, day: true, ends: us(200) });
        assert_eq!(w.phase(us(200)), Phase { slot: 1, day: false, ends: us(220) });
        assert_eq!(w.phase(us(399)), Phase { slot: 1, day: true, ends: us(400) });
        assert_eq!(w.phase(us(400)), Phase { slot: 0, day: false, ends: us(420) });
        assert_eq!(w.circuit_dst(0, us(10)), None);
        assert_eq!(w.circuit_dst(0, us(30)), Some(1));
        assert_eq!(w.circuit_dst(2, us(30)), Some(0));
        assert_eq!(w.circuit_dst(0, us(230)), Some(2));
    }

    #[test]
    fn explicit_slots_with_their_own_durations() {
        let slots = vec![
            Slot { night: us(10), day: us(100), matching: vec![Some(1), Some(0), None] },
            Slot { night: us(5), day: us(50), matching: vec![None, Some(2), Some(1)] },
        ];
        let w = WeekPlan::new(3, slots);
        assert_eq!(w.week(), us(165));
        assert_eq!(w.pair_day(1, 2, Time::ZERO), Some(PairDay { night_start: us(110), day_start: us(115), day_end: us(165) }));
        assert_eq!(w.pair_day(0, 2, Time::ZERO), None);
        assert_eq!(w.pair_day(0, 1, us(120)).unwrap().day_start, us(165 + 10));
    }

    #[test]
    fn days_ahead_counts_slots_from_the_current_one() {
        // 4 racks, strobe of 3 slots of 200 µs: pair (0, 1) slot 0, (0, 2) slot 1, (0, 3) slot 2.
        let w = WeekPlan::strobe(4, us(180), us(20));
        let at = |d: Rack, t: u64| w.days_ahead(0, d, us(t)).map(|(i, pd)| (i, pd.day_start));
        assert_eq!(at(1, 0), Some((0, us(20))));
        assert_eq!(at(2, 0), Some((1, us(220))));
        assert_eq!(at(3, 199), Some((2, us(420))));
        // In slot 1's night the day of slot 0 is over: pair (0, 1) is two slots ahead (next week).
        assert_eq!(at(1, 200), Some((2, us(620))));
        assert_eq!(at(2, 200), Some((0, us(220))));
        assert_eq!(at(3, 599), Some((0, us(420))));
        assert_eq!(at(1, 599), Some((1, us(620))));
        assert_eq!(w.days_ahead(0, 0, us(0)), None);
    }

    #[test]
    fn matchings_are_checked() {
        assert!(is_matching(&[Some(1), Some(2), Some(0)]));
        assert!(!is_matching(&[Some(0), None]));
        assert!(!is_matching(&[Some(2), Some(2), None]));
    }
}
