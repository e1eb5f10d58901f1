//! Which flows are elephants (AccelToR §III-F, §III-G, §IV-B). Per source–destination rack pair
//! at most |F_i| flows are elephants, each with a dedicated counter of its last activity. At the
//! start the largest declared flows of each pair are chosen (§IV-B: "at the beginning of each
//! experiment, for each pair of source-destination racks, we select |F_i| = 80 largest flows");
//! afterwards a heavy-hitter counter at the source ToR — a Count-Min sketch, or exact per-flow
//! counts with the `oracle` selection — finds replacements: an elephant whose counter has not
//! moved for `idle` has left and frees its place, which goes to the heaviest flow of the pair
//! whose count reached `heavy` (or, with a place already free, to the first flow that reaches it).
//!
//! Only data packets count; the sketch counts the flows that are not (yet) elephants, whose own
//! bytes go to their dedicated counters. Memory is fixed per pair (one 64 B slot per place); a
//! flow's label lives in a vector indexed by flow id that grows only when a new flow id appears.

use super::acceltor::{ElephantSpec, FlowState, Forget, Selection};
use super::sketch::CountMin;
use crate::ids::FlowId;
use crate::time::Time;

const NONE: u32 = u32::MAX;

/// One elephant's data bytes in the current week.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Week {
    /// Left the hybrid network at the destination ToR (retransmissions included).
    pub bytes: u64,
    /// Of those, across the circuit.
    pub circuit: u64,
    /// Entered the source ToR from the sender (everything the sender put on the wire, whatever
    /// the ToR then did with it).
    pub sent: u64,
}

/// One elephant: its flow, when it last sent a data packet through the ToR, the state the
/// authors' per-flow ToR rules keep (fresh for each new elephant, as their `Flow` objects are)
/// and its bytes this week. One cache line: a data packet entering the source ToR reads its
/// flow's label and then touches only this line (`observe`, `sent`, `state_mut`).
#[derive(Clone, Debug)]
#[repr(align(64))]
struct Slot {
    last: Time,
    flow: FlowId,
    state: FlowState,
    week: Week,
}

impl Slot {
    fn new(flow: FlowId, last: Time) -> Slot {
        Slot { last, flow, state: FlowState::default(), week: Week::default() }
    }
}

#[derive(Clone, Debug)]
enum Counter {
    /// One sketch per source ToR.
    Sketch(Vec<CountMin>),
    /// Exact bytes per flow id.
    Exact(Vec<u64>),
}

#[derive(Clone, Debug)]
pub struct Elephants {
    spec: ElephantSpec,
    racks: usize,
    /// Pair pi's elephants (pi = src · racks + dst) are `slots[pi · per_pair ..][.. len[pi]]`:
    /// one flat table, so a flow's label leads straight to its slot.
    slots: Vec<Slot>,
    len: Vec<u32>,
    /// Per pair: the heaviest candidate seen while no place was free (flow, estimated bytes).
    best: Vec<Option<(FlowId, u64)>>,
    /// Per flow id: the index of its slot in `slots`, or NONE for a mouse.
    label: Vec<u32>,
    counter: Counter,
    /// Flows made elephants after the start (replacements and first fills).
    pub promoted: u64,
    /// Elephants that left (idle).
    pub departed: u64,
}

impl Elephants {
    pub fn new(spec: ElephantSpec, racks: usize, seed: u64) -> Elephants {
        let pairs = racks * racks;
        assert!(pairs * spec.per_pair < NONE as usize, "slot indices fit a u32");
        let slots = vec![Slot::new(FlowId(NONE), Time::ZERO); pairs * spec.per_pair];
        let counter = match spec.selection {
            Selection::Sketch { width, depth } => Counter::Sketch((0..racks).map(|r| CountMin::new(width, depth, seed ^ (r as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))).collect()),
            Selection::Oracle => Counter::Exact(Vec::new()),
        };
        Elephants { spec, racks, slots, len: vec![0; pairs], best: vec![None; pairs], label: Vec::new(), counter, promoted: 0, departed: 0 }
    }

    pub fn spec(&self) -> &ElephantSpec {
        &self.spec
    }

    /// Make `v[i]` exist, new entries `fill`: vectors indexed by flow id grow only when a new id
    /// appears, by doubling.
    #[inline]
    fn grow<T: Copy>(v: &mut Vec<T>, i: usize, fill: T) {
        if i >= v.len() {
            v.resize((i + 1).next_power_of_two().max(64), fill);
        }
    }

    /// Make `flow` the next elephant of pair `pi` (which has a free place) from `now`, its week's
    /// counts starting at zero.
    fn admit(&mut self, pi: usize, flow: FlowId, now: Time) {
        let g = pi * self.spec.per_pair + self.len[pi] as usize;
        self.len[pi] += 1;
        self.slots[g] = Slot::new(flow, now);
        Self::grow(&mut self.label, flow.idx(), NONE);
        self.label[flow.idx()] = g as u32;
    }

    /// Choose, per pair, the `per_pair` largest of `flows` (flow, src rack, dst rack, size; no
    /// size = long-lived = largest), ties to the lower flow id.
    pub fn preselect(&mut self, flows: &[(FlowId, usize, usize, Option<u64>)]) {
        let mut order: Vec<_> = flows.iter().filter(|f| f.1 != f.2).collect();
        order.sort_by_key(|f| (std::cmp::Reverse(f.3.unwrap_or(u64::MAX)), f.0));
        for &&(id, s, d, _) in &order {
            let pi = s * self.racks + d;
            if (self.len[pi] as usize) < self.spec.per_pair {
                self.admit(pi, id, Time::ZERO);
            }
        }
    }

    /// `flow`'s slot, if it is an elephant now.
    #[inline]
    fn slot_of(&self, flow: FlowId) -> Option<usize> {
        self.label.get(flow.idx()).copied().filter(|&l| l != NONE).map(|l| l as usize)
    }

    /// Is `flow` an elephant now (without counting anything)?
    #[inline]
    pub fn is_elephant(&self, flow: FlowId) -> bool {
        self.slot_of(flow).is_some()
    }

    /// A data packet of `flow` left the hybrid network (`circuit`: across the circuit); counted
    /// if the flow is an elephant.
    #[inline]
    pub fn delivered(&mut self, flow: FlowId, bytes: u64, circuit: bool) {
        if let Some(g) = self.slot_of(flow) {
            let w = &mut self.slots[g].week;
            w.bytes += bytes;
            w.circuit += if circuit { bytes } else { 0 };
        }
    }

    /// A data packet of `bytes` of elephant `flow` entered its source ToR.
    #[inline]
    pub fn sent(&mut self, flow: FlowId, bytes: u64) {
        if let Some(g) = self.slot_of(flow) {
            self.slots[g].week.sent += bytes;
        }
    }

    /// The per-flow ToR state of elephant `flow` of pair (s, d), if it is one.
    #[inline]
    pub fn state_mut(&mut self, s: usize, d: usize, flow: FlowId) -> Option<&mut FlowState> {
        let g = self.slot_of(flow)?;
        debug_assert_eq!(g / self.spec.per_pair, s * self.racks + d, "an elephant of another pair");
        Some(&mut self.slots[g].state)
    }

    /// Every current elephant as (src rack, dst rack, flow, its bytes this week), then the counts
    /// start again (the week-end flush).
    pub fn take_week(&mut self, mut row: impl FnMut(usize, usize, FlowId, Week)) {
        let per = self.spec.per_pair;
        for (pi, &n) in self.len.iter().enumerate() {
            for sl in &mut self.slots[pi * per..pi * per + n as usize] {
                row(pi / self.racks, pi % self.racks, sl.flow, std::mem::take(&mut sl.week));
            }
        }
    }

    /// Elephants of pair (s, d) now.
    pub fn count(&self, s: usize, d: usize) -> usize {
        self.len[s * self.racks + d] as usize
    }

    /// A data packet of `bytes` of `flow` (pair s → d) passes the source ToR at `now`: count it
    /// and say whether the flow is an elephant.
    #[inline]
    pub fn observe(&mut self, s: usize, d: usize, flow: FlowId, bytes: u64, now: Time) -> bool {
        let pi = s * self.racks + d;
        if let Some(g) = self.slot_of(flow) {
            self.slots[g].last = now;
            return true;
        }
        let est = match &mut self.counter {
            Counter::Sketch(cms) => cms[s].add(flow.idx() as u64, bytes),
            Counter::Exact(v) => {
                let i = flow.idx();
                Self::grow(v, i, 0);
                v[i] += bytes;
                v[i]
            }
        };
        if est < self.spec.heavy {
            return false;
        }
        if (self.len[pi] as usize) < self.spec.per_pair {
            self.admit(pi, flow, now);
            if self.best[pi].is_some_and(|(f, _)| f == flow) {
                self.best[pi] = None;
            }
            self.promoted += 1;
            return true;
        }
        let best = &mut self.best[pi];
        if best.is_none_or(|(f, e)| f == flow || est > e) {
            *best = Some((flow, est));
        }
        false
    }

    /// `Forget::KeepCount`: leave a departed elephant's count at `heavy` at least. Only an
    /// elephant chosen at the start can be short of it (never counted); the authors' elephants all
    /// passed the sketch to become one.
    fn keep_count(&mut self, s: usize, flow: FlowId) {
        let heavy = self.spec.heavy;
        match &mut self.counter {
            Counter::Sketch(cms) => {
                let short = heavy.saturating_sub(cms[s].estimate(flow.idx() as u64));
                if short > 0 {
                    cms[s].add(flow.idx() as u64, short);
                }
            }
            Counter::Exact(v) => {
                let i = flow.idx();
                Self::grow(v, i, 0);
                v[i] = v[i].max(heavy);
            }
        }
    }

    /// Retire the elephants of pair (s, d) idle since `now − idle` and give their places to the
    /// pair's heaviest candidate (one per call; later ones fill free places as they send).
    pub fn expire(&mut self, s: usize, d: usize, now: Time) {
        let pi = s * self.racks + d;
        let idle = self.spec.idle;
        let base = pi * self.spec.per_pair;
        let mut i = 0;
        while i < self.len[pi] as usize {
            if self.slots[base + i].last + idle <= now {
                // Remove by moving the pair's last elephant into the place (its week's counts
                // with it); the departed flow's counts go with its slot.
                let last = base + self.len[pi] as usize - 1;
                let gone = self.slots[base + i].flow;
                self.slots.swap(base + i, last);
                self.len[pi] -= 1;
                self.label[gone.idx()] = NONE;
                if self.spec.forget == Forget::KeepCount {
                    self.keep_count(s, gone);
                }
                if base + i < last {
                    self.label[self.slots[base + i].flow.idx()] = (base + i) as u32;
                }
                self.departed += 1;
            } else {
                i += 1;
            }
        }
        if (self.len[pi] as usize) < self.spec.per_pair {
            if let Some((f, _)) = self.best[pi].take() {
                if !self.is_elephant(f) {
                    self.admit(pi, f, now);
                    self.promoted += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(selection: Selection) -> ElephantSpec {
        ElephantSpec { per_pair: 2, heavy: 10_000, idle: Time::from_us(100), forget: Forget::AsCounted, selection, record_pairs: None }
    }
    fn f(i: usize) -> FlowId {
        FlowId::from_idx(i)
    }

    #[test]
    fn the_largest_declared_flows_of_each_pair_start_as_elephants() {
        let mut e = Elephants::new(spec(Selection::Oracle), 3, 1);
        e.preselect(&[(f(0), 0, 1, Some(10)), (f(1), 0, 1, None), (f(2), 0, 1, Some(50)), (f(3), 0, 2, Some(1)), (f(4), 1, 1, Some(9))]);
        assert!(!e.is_elephant(f(0)));
        assert!(e.is_elephant(f(1)) && e.is_elephant(f(2)) && e.is_elephant(f(3)));
        assert!(!e.is_elephant(f(4)), "intra-rack flows never cross a circuit");
        assert_eq!((e.count(0, 1), e.count(0, 2)), (2, 1));
    }

    #[test]
    fn a_departed_elephant_is_replaced_by_the_next_heavy_hitter() {
        for sel in [Selection::Oracle, Selection::Sketch { width: 256, depth: 4 }] {
            let mut e = Elephants::new(spec(sel), 2, 1);
            e.preselect(&[(f(0), 0, 1, None), (f(1), 0, 1, None)]);
            let t = Time::from_us;
            // Mice 2 and 3 send; 3 is heavier. Places are full, so they stay mice.
            assert!(!e.observe(0, 1, f(2), 6000, t(1)));
            assert!(!e.observe(0, 1, f(3), 9000, t(2)));
            assert!(!e.observe(0, 1, f(2), 6000, t(3)), "12 kB ≥ heavy, but no place is free");
            assert!(!e.observe(0, 1, f(3), 9000, t(4)));
            // Elephant 0 keeps sending, 1 goes quiet.
            assert!(e.observe(0, 1, f(0), 1500, t(50)));
            e.expire(0, 1, t(99));
            assert_eq!(e.departed, 0, "idle for 99 µs < 100 µs");
            e.expire(0, 1, t(100));
            assert_eq!(e.departed, 1);
            assert!(!e.is_elephant(f(1)));
            assert!(e.is_elephant(f(3)), "the heaviest candidate (18 kB) replaces it");
            assert!(!e.is_elephant(f(2)));
            assert!(e.is_elephant(f(0)));
        }
    }

    #[test]
    fn a_forgotten_elephant_comes_back_at_once_if_its_count_says_heavy() {
        // Pair 0 → 1 holds flows 0 and 1 from the start (never counted). Flow 1 is silent for
        // the idle time and leaves; no candidate waits, so its place stays free. Its next
        // 1500 B packet: a mouse under `AsCounted` (1500 B < heavy = 10 kB), an elephant again
        // under `KeepCount` (as the authors' sketch, which counted every elephant, would have it).
        for sel in [Selection::Oracle, Selection::Sketch { width: 256, depth: 4 }] {
            for (forget, back) in [(Forget::AsCounted, false), (Forget::KeepCount, true)] {
                let mut e = Elephants::new(ElephantSpec { forget, ..spec(sel) }, 2, 1);
                e.preselect(&[(f(0), 0, 1, None), (f(1), 0, 1, None)]);
                let t = Time::from_us;
                assert!(e.observe(0, 1, f(0), 1500, t(60)));
                e.expire(0, 1, t(100));
                assert_eq!((e.departed, e.count(0, 1)), (1, 1), "{forget:?}");
                assert_eq!(e.observe(0, 1, f(1), 1500, t(101)), back, "{forget:?} {sel:?}");
                assert_eq!((e.promoted, e.count(0, 1)), (back as u64, 1 + back as usize), "{forget:?}");
                // It left once; the second time it is forgotten, its count is still enough.
                e.expire(0, 1, t(300));
                assert_eq!(e.observe(0, 1, f(1), 1, t(301)), back, "{forget:?}");
                // A flow that became an elephant by its count keeps it either way: flow 2
                // reaches 10 kB, takes a free place, leaves, and is back at its next byte.
                assert!(!e.observe(0, 1, f(2), 9_999, t(302)) && e.observe(0, 1, f(2), 1, t(303)), "{forget:?}");
                e.expire(0, 1, t(500));
                assert!(!e.is_elephant(f(2)), "{forget:?}");
                assert!(e.observe(0, 1, f(2), 1, t(501)), "{forget:?}: its count stays");
            }
        }
    }

    #[test]
    fn a_free_place_goes_to_the_first_flow_that_turns_heavy() {
        let mut e = Elephants::new(spec(Selection::Oracle), 2, 1);
        assert!(!e.observe(0, 1, f(5), 9999, Time::ZERO));
        assert!(e.observe(0, 1, f(5), 1, Time::ZERO));
        assert_eq!(e.promoted, 1);
        assert_eq!(e.count(0, 1), 1);
        assert_eq!(e.count(1, 0), 0);
    }

    #[test]
    fn an_elephants_slot_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Slot>(), 64);
        assert_eq!(std::mem::align_of::<Slot>(), 64);
    }

    #[test]
    fn weekly_counts_follow_their_elephant_when_another_departs() {
        // Pair 0 → 1 holds flows 0 and 1 (places 0, 1). Flow 0 goes quiet and departs; flow 1
        // moves to place 0 with its counts (1500 delivered, 1000 of them by circuit, 3000 sent);
        // the mouse 2 (not counted while a mouse) takes the free place with zero counts.
        let mut e = Elephants::new(spec(Selection::Oracle), 2, 1);
        e.preselect(&[(f(0), 0, 1, None), (f(1), 0, 1, None)]);
        let t = Time::from_us;
        e.delivered(f(0), 700, true);
        e.sent(f(1), 3000);
        e.delivered(f(1), 1000, true);
        e.delivered(f(1), 500, false);
        assert!(e.observe(0, 1, f(1), 1500, t(60)));
        assert!(!e.observe(0, 1, f(2), 20_000, t(60)), "no place is free yet");
        e.delivered(f(2), 999, false);
        e.expire(0, 1, t(100));
        assert_eq!((e.departed, e.promoted, e.count(0, 1)), (1, 1, 2));
        let mut rows = vec![];
        e.take_week(|s, d, fl, w| rows.push((s, d, fl.idx(), w.bytes, w.circuit, w.sent)));
        assert_eq!(rows, vec![(0, 1, 1, 1500, 1000, 3000), (0, 1, 2, 0, 0, 0)]);
        // The flush starts the counts again.
        let mut rows = vec![];
        e.take_week(|_, _, fl, w| rows.push((fl.idx(), w)));
        assert_eq!(rows, vec![(1, Week::default()), (2, Week::default())]);
    }
}
