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
//! bytes go to their dedicated counters. Memory is fixed per pair; a flow's label lives in a
//! vector indexed by flow id that grows only when a new flow id appears.

use super::acceltor::{ElephantSpec, FlowState, Selection};
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

/// One elephant: its flow, when it last sent a data packet through the ToR, and the state the
/// authors' per-flow ToR rules keep (fresh for each new elephant, as their `Flow` objects are).
#[derive(Clone, Debug)]
struct Slot {
    flow: FlowId,
    last: Time,
    state: FlowState,
}

impl Slot {
    fn new(flow: FlowId, last: Time) -> Slot {
        Slot { flow, last, state: FlowState::default() }
    }
}

#[derive(Clone, Debug, Default)]
struct PairSet {
    slots: Vec<Slot>,
    /// The heaviest candidate seen while no place was free: (flow, estimated bytes).
    best: Option<(FlowId, u64)>,
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
    pairs: Vec<PairSet>,
    /// Per flow id: its position in its pair's `slots`, or NONE for a mouse.
    label: Vec<u32>,
    counter: Counter,
    /// Data bytes of each elephant (by flow id) this week: that left the hybrid network, of
    /// those across the circuit, and that entered its source ToR (reset at each week's start and
    /// when a flow's label changes).
    delivered: Vec<Week>,
    /// Flows made elephants after the start (replacements and first fills).
    pub promoted: u64,
    /// Elephants that left (idle).
    pub departed: u64,
}

impl Elephants {
    pub fn new(spec: ElephantSpec, racks: usize, seed: u64) -> Elephants {
        let pairs = (0..racks * racks).map(|_| PairSet { slots: Vec::with_capacity(spec.per_pair), best: None }).collect();
        let counter = match spec.selection {
            Selection::Sketch { width, depth } => Counter::Sketch((0..racks).map(|r| CountMin::new(width, depth, seed ^ (r as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))).collect()),
            Selection::Oracle => Counter::Exact(Vec::new()),
        };
        Elephants { spec, racks, pairs, label: Vec::new(), counter, delivered: Vec::new(), promoted: 0, departed: 0 }
    }

    pub fn spec(&self) -> &ElephantSpec {
        &self.spec
    }

    #[inline]
    fn grow(v: &mut Vec<u32>, i: usize) {
        if i >= v.len() {
            v.resize((i + 1).next_power_of_two().max(64), NONE);
        }
    }

    /// Choose, per pair, the `per_pair` largest of `flows` (flow, src rack, dst rack, size; no
    /// size = long-lived = largest), ties to the lower flow id.
    pub fn preselect(&mut self, flows: &[(FlowId, usize, usize, Option<u64>)]) {
        let mut order: Vec<_> = flows.iter().filter(|f| f.1 != f.2).collect();
        order.sort_by_key(|f| (std::cmp::Reverse(f.3.unwrap_or(u64::MAX)), f.0));
        for &&(id, s, d, _) in &order {
            let pi = s * self.racks + d;
            if self.pairs[pi].slots.len() < self.spec.per_pair {
                Self::grow(&mut self.label, id.idx());
                self.label[id.idx()] = self.pairs[pi].slots.len() as u32;
                self.pairs[pi].slots.push(Slot::new(id, Time::ZERO));
            }
        }
    }

    /// Is `flow` an elephant now (without counting anything)?
    #[inline]
    pub fn is_elephant(&self, flow: FlowId) -> bool {
        self.label.get(flow.idx()).is_some_and(|&l| l != NONE)
    }

    /// A data packet of `flow` left the hybrid network (`circuit`: across the circuit); counted
    /// if the flow is an elephant.
    #[inline]
    pub fn delivered(&mut self, flow: FlowId, bytes: u64, circuit: bool) {
        if !self.is_elephant(flow) {
            return;
        }
        let w = self.week_mut(flow);
        w.bytes += bytes;
        w.circuit += if circuit { bytes } else { 0 };
    }

    /// A data packet of `bytes` of elephant `flow` entered its source ToR.
    #[inline]
    pub fn sent(&mut self, flow: FlowId, bytes: u64) {
        if self.is_elephant(flow) {
            self.week_mut(flow).sent += bytes;
        }
    }

    #[inline]
    fn week_mut(&mut self, flow: FlowId) -> &mut Week {
        let i = flow.idx();
        if i >= self.delivered.len() {
            self.delivered.resize((i + 1).next_power_of_two().max(64), Week::default());
        }
        &mut self.delivered[i]
    }

    /// The per-flow ToR state of elephant `flow` of pair (s, d), if it is one.
    #[inline]
    pub fn state_mut(&mut self, s: usize, d: usize, flow: FlowId) -> Option<&mut FlowState> {
        let l = *self.label.get(flow.idx())?;
        (l != NONE).then(|| &mut self.pairs[s * self.racks + d].slots[l as usize].state)
    }

    /// Every current elephant as (src rack, dst rack, flow, its bytes this week), then the counts
    /// start again (the week-end flush).
    pub fn take_week(&mut self, mut row: impl FnMut(usize, usize, FlowId, Week)) {
        for (pi, p) in self.pairs.iter().enumerate() {
            for sl in &p.slots {
                let f = sl.flow;
                row(pi / self.racks, pi % self.racks, f, self.delivered.get(f.idx()).copied().unwrap_or_default());
                Self::forget(&mut self.delivered, f);
            }
        }
    }

    fn forget(delivered: &mut [Week], f: FlowId) {
        if let Some(x) = delivered.get_mut(f.idx()) {
            *x = Week::default();
        }
    }

    /// Elephants of pair (s, d) now.
    pub fn count(&self, s: usize, d: usize) -> usize {
        self.pairs[s * self.racks + d].slots.len()
    }

    /// A data packet of `bytes` of `flow` (pair s → d) passes the source ToR at `now`: count it
    /// and say whether the flow is an elephant.
    #[inline]
    pub fn observe(&mut self, s: usize, d: usize, flow: FlowId, bytes: u64, now: Time) -> bool {
        let pi = s * self.racks + d;
        let l = self.label.get(flow.idx()).copied().unwrap_or(NONE);
        if l != NONE {
            self.pairs[pi].slots[l as usize].last = now;
            return true;
        }
        let est = match &mut self.counter {
            Counter::Sketch(cms) => cms[s].add(flow.idx() as u64, bytes),
            Counter::Exact(v) => {
                let i = flow.idx();
                if i >= v.len() {
                    v.resize((i + 1).next_power_of_two().max(64), 0);
                }
                v[i] += bytes;
                v[i]
            }
        };
        if est < self.spec.heavy {
            return false;
        }
        let p = &mut self.pairs[pi];
        if p.slots.len() < self.spec.per_pair {
            Self::grow(&mut self.label, flow.idx());
            self.label[flow.idx()] = p.slots.len() as u32;
            p.slots.push(Slot::new(flow, now));
            Self::forget(&mut self.delivered, flow);
            if p.best.is_some_and(|(f, _)| f == flow) {
                p.best = None;
            }
            self.promoted += 1;
            return true;
        }
        if p.best.is_none_or(|(f, e)| f == flow || est > e) {
            p.best = Some((flow, est));
        }
        false
    }

    /// Retire the elephants of pair (s, d) idle since `now − idle` and give their places to the
    /// pair's heaviest candidate (one per call; later ones fill free places as they send).
    pub fn expire(&mut self, s: usize, d: usize, now: Time) {
        let pi = s * self.racks + d;
        let idle = self.spec.idle;
        let p = &mut self.pairs[pi];
        let mut i = 0;
        while i < p.slots.len() {
            if p.slots[i].last + idle <= now {
                let gone = p.slots.swap_remove(i).flow;
                self.label[gone.idx()] = NONE;
                Self::forget(&mut self.delivered, gone);
                if i < p.slots.len() {
                    self.label[p.slots[i].flow.idx()] = i as u32;
                }
                self.departed += 1;
            } else {
                i += 1;
            }
        }
        if p.slots.len() < self.spec.per_pair {
            if let Some((f, _)) = p.best.take() {
                if self.label.get(f.idx()).is_none_or(|&l| l == NONE) {
                    Self::grow(&mut self.label, f.idx());
                    self.label[f.idx()] = p.slots.len() as u32;
                    p.slots.push(Slot::new(f, now));
                    Self::forget(&mut self.delivered, f);
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
        ElephantSpec { per_pair: 2, heavy: 10_000, idle: Time::from_us(100), selection, record_pairs: None }
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
    fn a_free_place_goes_to_the_first_flow_that_turns_heavy() {
        let mut e = Elephants::new(spec(Selection::Oracle), 2, 1);
        assert!(!e.observe(0, 1, f(5), 9999, Time::ZERO));
        assert!(e.observe(0, 1, f(5), 1, Time::ZERO));
        assert_eq!(e.promoted, 1);
        assert_eq!(e.count(0, 1), 1);
        assert_eq!(e.count(1, 0), 0);
    }
}
