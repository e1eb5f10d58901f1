//! The event list: binary heaps of (time, tie key, event), and for packet events a timing wheel.
//!
//! Two events due at the same picosecond are ordered by a key derived from the event itself
//! ([`Event::tie_key`]): first by kind (samples observe the instant before anything changes it,
//! then circuit boundaries, packet arrivals, transmitters freed, timers, flow and application
//! events), then by the port, flow, node or generator it concerns. Arrivals come before freed
//! transmitters so that a port finishing a packet at the instant another one arrives chooses
//! among all packets present (with equal link rates such ties recur on every packet: a priority
//! port would otherwise serve the newcomer one packet late). No global counter is involved:
//! the order does not depend on which part of the simulation scheduled an event first, so a later
//! parallel engine that schedules from several threads gets the same order, and every run is
//! bit-identical on every machine. Two pending events never share a key (a port has one packet
//! on the wire and one `TxDone`, a lazy timer at most one pending event; see `tie_key`), so the
//! order is total.
//!
//! Packet events (`Arrive`, `TxDone`) are many and short-lived: they fall due within a link's
//! serialization plus propagation time. Those scheduled a fixed offset ahead of the current
//! event — the transmit stage's arrival and transmit-done, i.e. nearly all — go to FIFO lanes,
//! one per offset ([`Lanes`], `EventQueue::schedule_ahead`), which stay sorted by construction.
//! The others (a transmit-done scheduled when a packet starts waiting behind a transmission
//! already under way, ties a lane cannot place) go where all packet events went before the
//! lanes: while few are pending they sit in a binary heap (small
//! enough for L1); once thousands are, they move to a timing wheel ([`Wheel`]): 8 192 buckets
//! (vectors) of 8.2 ns covering the next 67 µs, with a two-level occupancy bitmap, so scheduling and popping
//! cost O(1) instead of a large heap's O(log n) cache misses (45 % of the run time of the fat-tree
//! benchmark), and back when the count falls. Packet events beyond the wheel's horizon (long links) and everything else
//! (timers, arrivals, flow starts, samples — rare per packet but long-lived: a stale delayed-ACK
//! timer can sit for 200 ms) go to binary heaps. `pop` takes the smallest (time, key) of the
//! lanes' and the heaps' (or wheel's) heads, so the order is exactly that of a single heap.
//!
//! `[simulation] tie_order = "scheduled"` ([`TieOrder::Scheduled`]) orders same-picosecond events
//! as htsim and ns-3 do instead: in the order they were scheduled, whatever their kind (htsim's
//! `EventList` is a multimap keyed by time, equal keys kept in insertion order, `sim/eventlist.h`;
//! ns-3's schedulers order equal times by a global uid taken at `Schedule`,
//! `src/core/model/scheduler.h`, `default-simulator-impl.cc`). A per-run counter is taken at
//! every `schedule`/`schedule_ahead`, and those events go to one binary heap of (time, class,
//! counter) ([`Scheduled`]); the lanes refuse every offset in that mode, so the default path's
//! append to a lane has no test of the mode, and `pop_keyed_until` looks for that heap only where
//! the default structures are empty (`schedule` and a lane miss test the mode once: +0.1 %
//! instructions per packet-hop, docs/PERFORMANCE.md). (The lanes would stay sorted under
//! the counter, but the heap is the
//! simpler exact structure, and the pipe below defers arrivals anyway.) Where an event is
//! scheduled decides its place: the transmit stage schedules a packet's arrival as its
//! transmission begins, as ns-3's `PointToPointChannel::TransmitStart` does; htsim's `Pipe`
//! (`sim/pipe.cpp`) is handed the packet as its service ends and keeps one pending event per
//! link, scheduling the next arrival once the previous one has been handled.
//! `tie_order = "scheduled_pipe"` ([`TieOrder::ScheduledPipe`]) holds each arrival back until its
//! transmit-done runs (the packet enters its link there, [`EventQueue::enter_link`], after a
//! PFC RESUME the departure sends and before the port begins its next packet, as htsim's
//! `completeService` tells the ingress, sends the packet on, then calls `beginService`) and lets
//! one arrival per link into the heap at a time ([`Pipe`]). `tie_order = "scheduled_switch"`
//! ([`TieOrder::ScheduledSwitch`]) adds the pipe inside htsim's `FatTreeSwitch` (the HPCC
//! driver's fat tree; `sim/datacenter/fat_tree_switch.cpp`): every packet reaching a switch is
//! handed to a `CallbackPipe` of the switching latency (0), one per switch, so it reaches its
//! egress queue in an event of its own, behind everything already due that picosecond, and the
//! switch's packets of one picosecond go on one at a time, each scheduled as the one ahead is
//! delivered ([`Event::Forward`]). In one picosecond the switches then start their packets in
//! turn (a first packet at each, then a second at each, …), not all of one switch's first, which
//! orders the next hop's arrivals; and a port always ends its service before the packets of that
//! picosecond reach it. What the default order guaranteed, decided for the scheduled modes:
//! - samples (class 0) still run first at their picosecond: a sample observes the instant
//!   before anything changes it, whoever scheduled first (not an event of the peers' networks);
//! - a shaper's `Release` (class 2) stays last of its picosecond, after PFC frames too (the
//!   default ranks those after it): the burst forms from every packet handed over at that
//!   instant (netem's qdisc timer, not a network event);
//! - hybrid networks (`kind = "rdcn"`) are refused: their pulls at circuit boundaries are written
//!   for boundaries that precede the instant's packet events;
//! - everything else (class 1) runs in scheduling order: an arrival and a freed transmitter of
//!   the same picosecond in the order they were scheduled (the point of the mode); two PFC frames
//!   over one link in the order they were sent (FIFO, so a PAUSE sent before a RESUME still
//!   arrives first); a host's delayed receptions (`HostRx`) in arrival order (the jitter's own queue
//!   hands over the oldest at each, in every mode);
//! - transmit-dones are scheduled for every transmission (`Fabric::eager_tx_done`), as both
//!   peers schedule a port's end of service when it begins: the lazy transmit-done of the default
//!   mode is exact only because tie keys do not depend on when an event was scheduled, and
//!   `Fabric::finished`, which compares tie keys (`Ctx::key`), is then never consulted (a port
//!   with a packet on its wire always has its transmit-done pending);
//! - tie keys need not be unique in this mode (the counter is); the loop still hands the event's
//!   tie key to `Ctx::key`.

use crate::host::HostTimerId;
use crate::ids::{FlowId, NodeId, PacketId, PortId};
use crate::switch::paths::PathPos;
use crate::ring::Ring;
use crate::transport::timer::TimerId;
use crate::time::Time;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// How events due at the same picosecond are ordered (`[simulation] tie_order`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TieOrder {
    /// By `Event::tie_key`, derived from the event itself (the default).
    #[default]
    Event,
    /// In the order they were scheduled, as htsim and ns-3 do (samples first, shaper releases
    /// last; see the module doc); a transmission schedules its packet's arrival as it begins, as
    /// ns-3's point-to-point channel does.
    Scheduled,
    /// `Scheduled`, with each link's arrivals scheduled as htsim's `Pipe` does: when the packet
    /// has entered the link (its serialization ended), one at a time per link.
    ScheduledPipe,
    /// `ScheduledPipe`, and a packet reaching a switch passes the switch's own zero-latency pipe
    /// (`Event::Forward`) before its egress, as in htsim's `FatTreeSwitch` (the HPCC driver's
    /// fat tree; its older drivers' routes hold no switch).
    ScheduledSwitch,
}

impl TieOrder {
    /// The scenario's names, in `TieOrder` order.
    pub const NAMES: [&'static str; 4] = ["event", "scheduled", "scheduled_pipe", "scheduled_switch"];

    pub fn from_name(name: &str) -> Option<TieOrder> {
        match name {
            "event" => Some(TieOrder::Event),
            "scheduled" => Some(TieOrder::Scheduled),
            "scheduled_pipe" => Some(TieOrder::ScheduledPipe),
            "scheduled_switch" => Some(TieOrder::ScheduledSwitch),
            _ => None,
        }
    }
}

/// Everything that can happen. Small and `Copy`: events carry indices, never data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The packet has crossed the link behind `port` and reaches the port's peer node; `at` is
    /// its position on its flow's path there, when known (not part of the tie key: a forwarding
    /// hint that changes no result).
    Arrive { port: PortId, pkt: PacketId, at: PathPos },
    /// `port` finished serializing its packet and may start the next one.
    TxDone { port: PortId },
    /// Host `node` hands the oldest packet it holds to its transport (receive processing delay,
    /// `[host] rx_jitter`); `pkt`, the packet whose arrival scheduled it, only keeps the key
    /// unique (two may fall due in one picosecond).
    HostRx { node: NodeId, pkt: PacketId },
    /// A flow's sender starts.
    FlowStart { flow: FlowId },
    /// A flow's application stops writing (`[[flows]] stop`).
    FlowStop { flow: FlowId },
    /// A transport timer; stale timers are recognised by the owner (lazy cancellation).
    Timer { flow: FlowId, timer: TimerId },
    /// A timer of a host's per-host transport state (`host::Stacks`), lazily cancelled too.
    HostTimer { node: NodeId, timer: HostTimerId },
    /// Take one time-series sample.
    Sample,
    /// The next flow arrival of open-loop workload `gen`.
    Arrival { gen: u32 },
    /// Incast application `app` issues its next request.
    IncastRound { app: u32 },
    /// The circuit switch of a hybrid network reaches a day or night boundary.
    Circuit,
    /// The host-egress shaper of `port` releases its burst to the port and forms the next
    /// (`network::shaper`).
    Release { port: PortId },
    /// A PFC frame from the peer of `port` reaches it: PAUSE (`pause`) or RESUME
    /// (`switch::pfc`).
    Pfc { port: PortId, pause: bool },
    /// Packet `pkt`, arrived at switch `node`, passes the switch's internal pipe to its egress
    /// (`at`: its path position there). Only under `tie_order = "scheduled_switch"`: htsim's
    /// `FatTreeSwitch::receivePacket` hands every packet to a `CallbackPipe` of the switching
    /// latency (0 here), one per switch, which delivers it in an event of its own
    /// (`sim/datacenter/fat_tree_switch.cpp`, `sim/callback_pipe.cpp`).
    Forward { node: NodeId, pkt: PacketId, at: PathPos },
}

impl Event {
    /// The tie-break among events due at the same picosecond: kind rank (4 bits), then the
    /// entity the event concerns (32 bits), then a 28-bit detail (the packet of an arrival, the
    /// timer of a flow or host). Unique among pending events: a port serializes one packet at a
    /// time, so two arrivals behind one port are at least one serialization time apart (and carry
    /// different packets anyway); a port has at most one `TxDone`, a shaper at most one `Release`
    /// and a lazy timer at most one pending event; flows start and stop once. Packet ids stay below 2^28 (that many packets
    /// in flight would need 34 GB of slab).
    #[inline(always)]
    pub fn tie_key(&self) -> u64 {
        #[inline(always)]
        fn key(rank: u64, who: u32, detail: u32) -> u64 {
            debug_assert!(detail < 1 << 28);
            rank << 60 | (who as u64) << 28 | (detail as u64 & ((1 << 28) - 1))
        }
        match *self {
            Event::Sample => key(0, 0, 0),
            Event::Circuit => key(1, 0, 0),
            Event::Arrive { port, pkt, .. } => key(2, port.0, pkt.0),
            Event::TxDone { port } => key(3, port.0, 0),
            Event::Timer { flow, timer } => key(4, flow.0, timer.0 as u32),
            Event::HostTimer { node, timer } => key(5, node.0, timer as u32),
            Event::FlowStop { flow } => key(6, flow.0, 0),
            Event::FlowStart { flow } => key(7, flow.0, 0),
            Event::Arrival { gen } => key(8, gen, 0),
            Event::IncastRound { app } => key(9, app, 0),
            // After everything else at its picosecond: a delayed packet is handled as if it had
            // arrived an instant later. (Rank 10 keeps every other kind's order unchanged.)
            Event::HostRx { node, pkt } => key(10, node.0, pkt.0),
            // Last of all: a shaper forms its burst from everything handed to it at this instant.
            Event::Release { port } => key(11, port.0, 0),
            // After a transmit-done of the same picosecond: a frame arriving as a packet ends
            // lets the next one start (rank 12 keeps every other kind's order unchanged). A PAUSE
            // before a RESUME of the same picosecond: both cross the same link, and the PAUSE was
            // sent first (by an arrival, which ranks before the departure that sends a RESUME).
            Event::Pfc { port, pause } => key(12, port.0, (!pause) as u32),
            // Scheduled orders only (never in this order, whose ties it would not change).
            Event::Forward { node, pkt, .. } => key(13, node.0, pkt.0),
        }
    }
}

#[derive(Debug)]
pub(crate) struct Entry {
    time: Time,
    /// `event.tie_key()`, computed once at scheduling.
    key: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    #[inline]
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap, we want the earliest (time, key) on top. One 128-bit
    // comparison (`order`) instead of two with a branch between.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        order(o.time, o.key).cmp(&order(self.time, self.key))
    }
}

/// A packet event (`Arrive`, `TxDone`) as the packet queues hold it: its time, its tie key and an
/// arrival's path position, 24 bytes. The key holds the rest of the event (`Event::tie_key`:
/// rank, port, packet); smaller than an [`Entry`], which matters because these queues hold
/// thousands of events whose nodes are touched in time order, not memory order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PEntry {
    time: Time,
    key: u64,
    at: PathPos,
}

impl PEntry {
    #[inline(always)]
    fn new(time: Time, event: Event) -> PEntry {
        let at = match event {
            Event::Arrive { at, .. } => at,
            _ => PathPos::NONE,
        };
        PEntry { time, key: event.tie_key(), at }
    }
    /// The event the key encodes (ranks 2 and 3 of `Event::tie_key`).
    #[inline]
    fn event(&self) -> Event {
        let port = PortId((self.key >> 28) as u32);
        if self.key >> 60 == 2 {
            Event::Arrive { port, pkt: PacketId((self.key & ((1 << 28) - 1)) as u32), at: self.at }
        } else {
            debug_assert_eq!(self.key >> 60, 3);
            Event::TxDone { port }
        }
    }
}

impl PartialOrd for PEntry {
    #[inline]
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for PEntry {
    // Reversed, as `Entry`: the earliest (time, key) on top of a max-heap.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        order(o.time, o.key).cmp(&order(self.time, self.key))
    }
}

impl Clone for Entry {
    fn clone(&self) -> Self {
        *self
    }
}
impl Copy for Entry {}

/// A timing wheel of `1 << BITS` buckets of `1 << SHIFT` ps, for events due soon. Each bucket is
/// an unsorted vector; a bucket's events all fall in the same `1 << SHIFT`-ps slot of absolute
/// time, so buckets in wheel order are in time order. The earliest bucket's vector becomes `cur`
/// (swapped, not copied: the bucket gets `cur`'s empty one, so allocations circulate) and is
/// sorted once, then popped from its end: a bucket may hold thousands of events of one instant —
/// every host of a symmetric fabric in lock step (a k = 32 fat tree's permutation: 8 192) — and
/// one sort costs fewer instructions than a binary heap's push and pop per entry (callgrind,
/// k = 32). Entries scheduled into the slot being drained meanwhile wait in a small heap (`late`)
/// beside it.
///
/// Buckets are vectors rather than linked lists in a node slab because an entry is read some
/// hundred thousand events after it was written (a transmit-done a serialization ahead, at
/// k = 48): walking a bucket's list then took one dependent cache miss per node (12 % of a k = 48
/// run's time, `perf`), where a vector's entries lie in consecutive lines that load together.
/// Buckets of 8 ns (a k = 48 bucket holds some 50 entries) keep the vectors' ends being appended
/// to few enough to stay cached.
#[derive(Debug)]
pub struct Wheel {
    buckets: Vec<Vec<PEntry>>,
    /// Bit per bucket, and bit per word of `bits` (non-empty words).
    bits: Vec<u64>,
    summary: Vec<u64>,
    len: usize,
    /// Absolute slot (time >> SHIFT) no event in the wheel precedes; never decreases.
    cursor: u64,
    /// The bucket being drained, sorted by `PEntry`'s (reversed) order: the earliest entry last.
    cur: Vec<PEntry>,
    /// Entries inserted at or before `cur_slot` while it drains, earliest on top. Every entry in
    /// `cur` or `late` precedes every entry still in a bucket.
    late: BinaryHeap<PEntry>,
    /// Absolute slot of the bucket `cur` was filled from (meaningful while `cur` or `late` is not
    /// empty).
    cur_slot: u64,
}

/// Buckets of 2^13 ps (8.2 ns), 2^13 of them: the wheel covers the next 67 µs.
const SHIFT: u32 = 13;
const BITS: u32 = 13;
const BUCKETS: usize = 1 << BITS;
/// A bucket's vector larger than this many entries is let go once drained.
const KEEP_ENTRIES: usize = 64;

impl Default for Wheel {
    fn default() -> Self {
        Wheel {
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            bits: vec![0; BUCKETS / 64],
            summary: vec![0; BUCKETS.div_ceil(64 * 64)],
            len: 0,
            cursor: 0,
            cur: Vec::new(),
            late: BinaryHeap::new(),
            cur_slot: 0,
        }
    }
}

impl Wheel {
    /// Take `e` if it falls inside the wheel's horizon; give it back otherwise.
    #[inline]
    fn insert(&mut self, e: PEntry) -> Result<(), PEntry> {
        let slot = e.time.0 >> SHIFT;
        debug_assert!(slot >= self.cursor, "an event scheduled before the wheel's cursor");
        if slot >= self.cursor + BUCKETS as u64 {
            return Err(e);
        }
        self.len += 1;
        if self.draining() && slot <= self.cur_slot {
            self.late.push(e);
            return Ok(());
        }
        let b = (slot as usize) & (BUCKETS - 1);
        self.buckets[b].push(e);
        self.bits[b / 64] |= 1 << (b % 64);
        self.summary[b / 4096] |= 1 << ((b / 64) % 64);
        Ok(())
    }

    /// The first non-empty bucket at or after the cursor, in wheel order.
    #[inline]
    fn first_bucket(&self) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let start = (self.cursor as usize) & (BUCKETS - 1);
        // Scan words from the cursor's word to the end, then wrap to the start.
        let find_from = |from: usize| -> Option<usize> {
            // First set bucket bit at index >= from (no wrap).
            let w = from / 64;
            let first = self.bits[w] & (!0u64 << (from % 64));
            if first != 0 {
                return Some(w * 64 + first.trailing_zeros() as usize);
            }
            let mut sw = (w + 1) / 64;
            let mut smask = if (w + 1) % 64 == 0 { !0u64 } else { !0u64 << ((w + 1) % 64) };
            while sw < self.summary.len() {
                let s = self.summary[sw] & smask;
                if s != 0 {
                    let word = sw * 64 + s.trailing_zeros() as usize;
                    return Some(word * 64 + self.bits[word].trailing_zeros() as usize);
                }
                sw += 1;
                smask = !0;
            }
            None
        };
        find_from(start).or_else(|| find_from(0))
    }

    /// Is a bucket being drained (`cur` or `late` not empty)?
    #[inline]
    fn draining(&self) -> bool {
        !self.cur.is_empty() || !self.late.is_empty()
    }

    /// Make `cur` and `late` hold the earliest entries: when both are empty, drain the first
    /// non-empty bucket into `cur` and sort it. False when the wheel is empty.
    #[inline]
    fn fill(&mut self) -> bool {
        if self.draining() {
            return true;
        }
        let Some(b) = self.first_bucket() else { return false };
        std::mem::swap(&mut self.cur, &mut self.buckets[b]);
        if self.buckets[b].capacity() > KEEP_ENTRIES {
            // A lock-step instant's large vector is not handed on: every bucket would keep one.
            self.buckets[b] = Vec::new();
        }
        self.cur_slot = self.cur[0].time.0 >> SHIFT;
        // Keys are unique, so the unstable sort's order is the one order.
        self.cur.sort_unstable();
        self.bits[b / 64] &= !(1 << (b % 64));
        if self.bits[b / 64] == 0 {
            self.summary[b / 4096] &= !(1 << ((b / 64) % 64));
        }
        true
    }

    /// Whether the earliest entry is `late`'s top rather than `cur`'s last (after `fill`).
    #[inline]
    fn late_first(&self) -> bool {
        match (self.cur.last(), self.late.peek()) {
            (Some(c), Some(l)) => l > c,
            (None, _) => true,
            (_, None) => false,
        }
    }

    #[inline]
    fn peek(&mut self) -> Option<&PEntry> {
        if !self.fill() {
            return None;
        }
        if self.late_first() {
            self.late.peek()
        } else {
            self.cur.last()
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<PEntry> {
        if !self.fill() {
            return None;
        }
        let e = if self.late_first() { self.late.pop() } else { self.cur.pop() }?;
        self.len -= 1;
        self.advance(e.time);
        Some(e)
    }

    /// Nothing earlier than `t` will ever be scheduled again: move the cursor up to it.
    #[inline]
    fn advance(&mut self, t: Time) {
        self.cursor = self.cursor.max(t.0 >> SHIFT);
    }
}

/// Sorted runs of packet events, one per *offset*: the time between the event being processed
/// and the event scheduled. Most packet events are scheduled a fixed time ahead — an arrival one
/// serialization plus one propagation delay after its transmission starts, a transmitter freed
/// one serialization later — and a fabric has few distinct such offsets (B4's: data and ACK
/// sizes, each for arrivals and for freed transmitters). Events scheduled with one offset from a
/// clock that never goes back come in time order, so each lane is a FIFO: scheduling appends at
/// its tail and the earliest event is at the head of one of a few lanes. Appending and popping
/// touch the ends of a few ring buffers — cache lines in use anyway — where the timing wheel
/// touched a bucket and a node scattered over 256 KiB and more for every event.
///
/// Order is kept exactly: an event goes into a lane only if it sorts after the lane's tail, or
/// shortly before it at the same picosecond (ties are ordered by key, so a tie is inserted at
/// its place among the last few entries); anything else, and offsets beyond the lanes in use,
/// goes to the heap or wheel as before. `pop` takes the smallest (time, key) over all of them.
///
/// The lanes are fixed arrays, and a bit per lane tells which hold events: taking the next event
/// compares the heads of those lanes only (a fabric keeps some ten offsets in use, at any moment
/// a few of them with events pending), without bounds checks.
#[derive(Debug)]
struct Lanes {
    /// Offset of each lane (ps), for the first `used` lanes; a lane whose ring is empty may be
    /// given another offset.
    offsets: [u64; MAX_LANES],
    /// (time, key) of each lane's head as one number (`order`), `u128::MAX` when empty.
    heads: [u128; MAX_LANES],
    rings: [Ring<PEntry>; MAX_LANES],
    /// Lanes given an offset so far.
    used: usize,
    /// The lane last given each offset, by a hash of the offset (`insert` checks `offsets`): the
    /// lane of an offset is found without scanning `offsets`.
    slots: [u8; 1 << SLOT_BITS],
    /// Bit `i` set: lane `i` holds events.
    busy: u16,
    /// The new head of the lane last popped, as that pop left it (a prefetch hint: `upcoming`).
    next: Option<PEntry>,
    len: usize,
    /// Lanes that may be given an offset: `MAX_LANES`, or 0 when closed (the scheduled orders).
    cap: usize,
}

impl Default for Lanes {
    fn default() -> Self {
        Lanes { offsets: [0; MAX_LANES], heads: [u128::MAX; MAX_LANES], rings: std::array::from_fn(|_| Ring::default()), used: 0, slots: [0; 1 << SLOT_BITS], busy: 0, next: None, len: 0, cap: MAX_LANES }
    }
}

impl Lanes {
    /// Lanes that refuse every event (the scheduled orders): none may be given an offset, so
    /// `insert` hands everything back to the queue's `packet_event`, and `min` finds nothing.
    fn closed() -> Lanes {
        Lanes { cap: 0, ..Lanes::default() }
    }
}

/// Lanes at most (distinct offsets served at once); more offsets fall back to the heap/wheel.
/// At most 16: `Lanes::busy` has a bit per lane.
const MAX_LANES: usize = 16;
/// `Lanes::slots` has `1 << SLOT_BITS` entries.
const SLOT_BITS: u32 = 6;
/// How many of a lane's last events an insertion may move one place back (a tie at the tail's
/// picosecond with a smaller key; a transmit-done scheduled late, `insert_behind`); beyond that the
/// event goes to the heap.
const MAX_SHIFT: usize = 8;

/// (time, key) as one number with the same order.
#[inline]
fn order(time: Time, key: u64) -> u128 {
    (time.0 as u128) << 64 | key as u128
}

impl Lanes {
    /// Where `slots` keeps the lane last given `offset`.
    #[inline(always)]
    fn slot_of(offset: u64) -> usize {
        (offset.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOT_BITS)) as usize
    }

    /// The common case of [`insert`](Self::insert), inlined where packet events are scheduled:
    /// the lane of `offset` is the one its slot names, holds events, has room, and `e` is due
    /// after its tail. False, with nothing changed, in every other case.
    #[inline(always)]
    fn append(&mut self, offset: u64, e: PEntry) -> bool {
        let i = self.slots[Self::slot_of(offset)] as usize & (MAX_LANES - 1);
        if self.offsets[i] != offset || i >= self.used {
            return false;
        }
        let o = order(e.time, e.key);
        if !self.rings[i].try_push_after(e, |t| order(t.time, t.key) < o) {
            return false;
        }
        self.len += 1;
        true
    }

    /// Take `e`, scheduled `offset` after the current time, if a lane can hold it in order.
    #[inline]
    fn insert(&mut self, offset: u64, e: PEntry) -> Result<(), PEntry> {
        let slot = Self::slot_of(offset);
        let hint = self.slots[slot] as usize & (MAX_LANES - 1);
        let i = if self.offsets[hint] == offset && hint < self.used {
            hint
        } else {
            let i = match self.offsets[..self.used].iter().position(|&o| o == offset) {
                Some(i) => i,
                None => {
                    let idle = !self.busy & ((1u32 << self.used) - 1) as u16;
                    if idle != 0 {
                        idle.trailing_zeros() as usize
                    } else if self.used < self.cap {
                        self.used += 1;
                        self.used - 1
                    } else {
                        return Err(e);
                    }
                }
            };
            self.slots[slot] = i as u8;
            i & (MAX_LANES - 1)
        };
        self.offsets[i] = offset;
        let ring = &mut self.rings[i];
        let o = order(e.time, e.key);
        match ring.back() {
            None => {
                ring.push_back(e);
                self.heads[i] = o;
                self.busy |= 1 << i;
            }
            Some(t) if order(t.time, t.key) < o => ring.push_back(e),
            Some(t) if t.time == e.time => {
                // A tie at the tail's picosecond with a smaller key: its place among the last few.
                let Some(at) = ring.insert_from_back(e, MAX_SHIFT, |t| order(t.time, t.key) > o) else {
                    return Err(e);
                };
                if at == 0 {
                    self.heads[i] = o;
                }
            }
            Some(_) => return Err(e),
        }
        self.len += 1;
        Ok(())
    }

    /// Take `e`, due `ahead` after the current time but scheduled late (not `ahead` after the
    /// event that fixed its time: a transmit-done scheduled when a packet comes to wait behind the
    /// transmission under way), if a lane can hold it in order. The lane is the one of the
    /// smallest offset at least `ahead` — every event appended to it from now on is due no earlier
    /// than `e`, so `e` never blocks it — and `e` goes in at its place among the last
    /// `MAX_SHIFT` of that lane's events (most such events sit within two of the tail: k = 8,
    /// 50 ms). Otherwise it is handed back.
    #[inline]
    fn insert_behind(&mut self, ahead: u64, e: PEntry) -> Result<(), PEntry> {
        let mut lane = usize::MAX;
        let mut best = u64::MAX;
        for i in 0..self.used.min(MAX_LANES) {
            let o = self.offsets[i];
            if o >= ahead && o < best {
                (lane, best) = (i, o);
            }
        }
        if lane == usize::MAX {
            return Err(e);
        }
        let o = order(e.time, e.key);
        let Some(at) = self.rings[lane].insert_from_back(e, MAX_SHIFT, |t| order(t.time, t.key) > o) else {
            return Err(e);
        };
        if at == 0 {
            self.heads[lane] = o;
            self.busy |= 1 << lane;
        }
        self.len += 1;
        Ok(())
    }

    /// The lane with the earliest head, and that head's (time, key) as `order` gives it.
    #[inline]
    fn min(&self) -> Option<(usize, u128)> {
        let mut busy = self.busy;
        if busy == 0 {
            return None;
        }
        let mut best = busy.trailing_zeros() as usize & (MAX_LANES - 1);
        let mut head = self.heads[best];
        busy &= busy - 1;
        while busy != 0 {
            let i = busy.trailing_zeros() as usize & (MAX_LANES - 1);
            if self.heads[i] < head {
                (best, head) = (i, self.heads[i]);
            }
            busy &= busy - 1;
        }
        Some((best, head))
    }

    /// The event `n` places behind the head of lane `i`, if any.
    #[inline]
    fn entry_of(&self, i: usize, n: usize) -> Option<Event> {
        self.rings.get(i)?.get(n).map(|e| e.event())
    }

    #[inline]
    fn pop(&mut self, i: usize) -> PEntry {
        let i = i & (MAX_LANES - 1);
        let (e, next) = self.rings[i].pop_front_peek().expect("a lane's head exists");
        match next {
            Some(h) => self.heads[i] = order(h.time, h.key),
            None => {
                self.heads[i] = u128::MAX;
                self.busy &= !(1 << i);
            }
        }
        self.next = next;
        self.len -= 1;
        e
    }
}

/// An event of the scheduled order: (time, class << 62 | counter) orders it.
#[derive(Clone, Copy, Debug)]
struct SEntry {
    time: Time,
    ord: u64,
    event: Event,
}

impl PartialEq for SEntry {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.ord) == (o.time, o.ord)
    }
}
impl Eq for SEntry {}
impl PartialOrd for SEntry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for SEntry {
    // Reversed, as `Entry`: the earliest on top of a max-heap.
    fn cmp(&self, o: &Self) -> Ordering {
        order(o.time, o.ord).cmp(&order(self.time, self.ord))
    }
}

/// The event list of the scheduled orders: one binary heap of every event, ordered by time, then
/// class (samples 0, shaper releases 2, everything else 1; module doc), then a counter taken at
/// scheduling. A heap, not the lanes and wheel: these modes exist to match peers at validation
/// scale, where a heap's O(log n) is no concern.
#[derive(Debug, Default)]
struct Scheduled {
    /// Which scheduled order (never `Event`).
    order: TieOrder,
    heap: BinaryHeap<SEntry>,
    /// Events scheduled so far (the next one's counter).
    counter: u64,
    /// `TieOrder::ScheduledPipe`: each link's arrivals not in the heap yet, by port.
    /// Indexed by port, grown to the highest port seen (no hashing: plain, and its order never
    /// depends on a hasher's seed).
    pipes: Option<Vec<Pipe>>,
    /// Arrivals held in `pipes`.
    held: usize,
    /// `TieOrder::ScheduledSwitch`: each switch's internal pipe (htsim's `FatTreeSwitch::_pipe`,
    /// zero latency), by node: the packets waiting to reach their egress (`flight`).
    switches: Vec<Pipe>,
    /// The link whose arrival was popped last: its next arrival enters the heap at the next pop,
    /// once that one has been handled.
    advance: Option<PortId>,
    /// The same for the switch whose `Forward` was popped last.
    advance_switch: Option<NodeId>,
}

/// One link's arrivals as htsim's `Pipe` schedules them (`sim/pipe.cpp`): a packet is handed to
/// the pipe as its serialization ends; the pipe keeps one pending event, its oldest packet's, and
/// schedules the next one when that packet has been delivered. A switch's internal pipe is one
/// too, with no wire (`Event::Forward`: every packet enters and leaves it in one picosecond).
#[derive(Debug, Default)]
struct Pipe {
    /// The arrival of the packet being serialized (scheduled by the transmission's start).
    on_wire: Option<(Time, Event)>,
    /// Arrivals of packets on the link behind the one in the heap, oldest first.
    flight: VecDeque<(Time, Event)>,
    /// One of this link's arrivals is in the heap.
    pending: bool,
}

impl Pipe {
    /// A packet enters the pipe (`Pipe::receivePacket`): its event goes to the heap now (the
    /// answer) if the pipe has none pending, else it waits behind the packets the pipe holds.
    fn receive(&mut self, time: Time, event: Event) -> Option<(Time, Event)> {
        if self.pending {
            self.flight.push_back((time, event));
            return None;
        }
        self.pending = true;
        Some((time, event))
    }

    /// The packet of the pipe's pending event has been delivered: its next event, if it holds
    /// another packet (`Pipe::doNextEvent`).
    fn delivered(&mut self) -> Option<(Time, Event)> {
        let next = self.flight.pop_front();
        self.pending = next.is_some();
        next
    }
}

impl Scheduled {
    fn new(order: TieOrder) -> Scheduled {
        let pipes = matches!(order, TieOrder::ScheduledPipe | TieOrder::ScheduledSwitch);
        Scheduled { order, pipes: pipes.then(Default::default), ..Default::default() }
    }

    fn push(&mut self, time: Time, event: Event) {
        if let (Some(pipes), Event::Arrive { port, .. }) = (self.pipes.as_mut(), event) {
            // Held until the transmission's end hands the packet to the link.
            if port.idx() >= pipes.len() {
                pipes.resize_with(port.idx() + 1, Pipe::default);
            }
            let held = pipes[port.idx()].on_wire.replace((time, event));
            debug_assert!(held.is_none(), "one packet on a wire");
            self.held += 1;
            return;
        }
        if let Event::Forward { node, .. } = event {
            // htsim's `Pipe::receivePacket`: an event now if the switch's pipe is empty, else
            // behind the packets it holds, each scheduled as the one ahead is delivered.
            if node.idx() >= self.switches.len() {
                self.switches.resize_with(node.idx() + 1, Pipe::default);
            }
            self.held += 1;
            let now = self.switches[node.idx()].receive(time, event);
            self.enter_held(now);
            return;
        }
        self.enter(time, event);
    }

    /// Put `event` in the heap with the next counter.
    fn enter(&mut self, time: Time, event: Event) {
        let class: u64 = match event {
            Event::Sample => 0,
            Event::Release { .. } => 2,
            _ => 1,
        };
        self.heap.push(SEntry { time, ord: class << 62 | self.counter, event });
        self.counter += 1;
    }

    /// The earliest event if due by `limit`. With pipes: the link of the arrival popped before
    /// schedules its next one first (that arrival has been handled since).
    fn pop(&mut self, limit: Time) -> Option<SEntry> {
        if self.peek_time()? > limit {
            return None;
        }
        let e = self.heap.pop().expect("peeked");
        if self.pipes.is_some() {
            match e.event {
                Event::Arrive { port, .. } => self.advance = Some(port),
                Event::Forward { node, .. } => self.advance_switch = Some(node),
                _ => {}
            }
        }
        Some(e)
    }

    /// With pipes: the packet whose serialization on `port` just ended enters its link.
    fn enter_link(&mut self, port: PortId) {
        if let Some(pipe) = self.pipes.as_mut().and_then(|p| p.get_mut(port.idx())) {
            if let Some((t, a)) = pipe.on_wire.take() {
                let now = pipe.receive(t, a);
                self.enter_held(now);
            }
        }
    }

    fn len(&self) -> usize {
        self.heap.len() + self.held
    }

    /// Put a pipe's next event, held until now, in the heap.
    fn enter_held(&mut self, next: Option<(Time, Event)>) {
        if let Some((t, e)) = next {
            self.held -= 1;
            self.enter(t, e);
        }
    }

    /// Time of the earliest event, once the link of the arrival popped last has scheduled its
    /// next (between events: that arrival has been handled). An arrival still on its wire is
    /// never earlier than the transmit-done that lets it in.
    fn peek_time(&mut self) -> Option<Time> {
        if let Some(port) = self.advance.take() {
            let pipe = self.pipes.as_mut().and_then(|p| p.get_mut(port.idx())).expect("the link of a popped arrival");
            let next = pipe.delivered();
            self.enter_held(next);
        }
        if let Some(node) = self.advance_switch.take() {
            let next = self.switches[node.idx()].delivered();
            self.enter_held(next);
        }
        self.heap.peek().map(|e| e.time)
    }
}

/// Packet events go to the wheel once this many are pending in the heap, and back to the heap
/// when fewer than `WHEEL_EXIT` remain: a small heap lives in L1 and beats the wheel's scattered
/// bucket array (B1: 50-400 pending), a large one does not (B4: thousands).
const WHEEL_ENTER: usize = 2048;
const WHEEL_EXIT: usize = 256;

/// Pending events in (time, tie key) order.
#[derive(Debug)]
pub struct EventQueue {
    /// Packet events a fixed offset ahead (most of them).
    lanes: Lanes,
    /// Other packet events while few are pending.
    heap: BinaryHeap<PEntry>,
    /// Packet events while many are pending (`use_wheel`), and those beyond its horizon.
    wheel: Wheel,
    far: BinaryHeap<PEntry>,
    use_wheel: bool,
    /// The lane the last event came from (`usize::MAX`: none).
    last_lane: usize,
    /// Time of the last event popped (nothing is scheduled before it).
    last: Time,
    timers: BinaryHeap<Entry>,
    popped: u64,
    /// Every event, when ties run in scheduling order (the scheduled `TieOrder`s; the structures
    /// above then stay empty but for the event `pop_keyed_until` is taking).
    scheduled: Option<Box<Scheduled>>,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            lanes: Lanes::default(),
            heap: BinaryHeap::new(),
            wheel: Wheel::default(),
            far: BinaryHeap::new(),
            use_wheel: false,
            last_lane: usize::MAX,
            last: Time::ZERO,
            timers: BinaryHeap::new(),
            popped: 0,
            scheduled: None,
        }
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty queue whose same-picosecond events run in `order`.
    pub fn with_order(order: TieOrder) -> Self {
        match order {
            TieOrder::Event => Self::default(),
            _ => EventQueue { lanes: Lanes::closed(), scheduled: Some(Box::new(Scheduled::new(order))), ..Self::default() },
        }
    }

    /// The order of this queue's ties.
    pub fn order(&self) -> TieOrder {
        self.scheduled.as_deref().map_or(TieOrder::Event, |s| s.order)
    }

    /// A packet event likely to come up soon: the new head of the lane the last event came from,
    /// as that pop left it (for prefetching what it will touch; any answer is correct).
    #[inline]
    pub fn upcoming(&self) -> Option<Event> {
        self.lanes.next.map(|e| e.event())
    }

    /// The packet event `n` places behind the head of the lane last popped (`n` = 0: its head now,
    /// which is [`upcoming`](Self::upcoming) unless that lane changed at its front since), for
    /// prefetching further ahead: a lane is popped in order, so each of its
    /// events passes place `n` once, while some `n` events of that lane (and those of the other
    /// lanes between them) run. Any answer is correct.
    #[inline]
    pub fn lane_ahead(&self, n: usize) -> Option<Event> {
        self.lanes.entry_of(self.last_lane, n)
    }

    #[inline]
    pub fn schedule(&mut self, time: Time, event: Event) {
        match event {
            Event::Arrive { .. } | Event::TxDone { .. } => self.packet_event(PEntry::new(time, event)),
            _ if self.scheduled.is_some() => self.push_scheduled(time, event),
            _ => self.timers.push(Entry { time, key: event.tie_key(), event }),
        }
    }

    /// Schedule `event` in a queue of the scheduled orders. Out of line and cold: its code kept
    /// out of the transmit stage lets the compiler keep inlining that stage into the event loop.
    #[cold]
    #[inline(never)]
    fn push_scheduled(&mut self, time: Time, event: Event) {
        self.scheduled.as_deref_mut().expect("a queue in a scheduled order").push(time, event);
    }

    /// A packet event outside the lanes: the heap while few are pending, else the wheel (in the
    /// scheduled orders, where the lanes refuse everything, their one heap).
    #[inline]
    fn packet_event(&mut self, e: PEntry) {
        if self.scheduled.is_some() {
            self.push_scheduled(e.time, e.event());
        } else if self.use_wheel {
            self.wheel_insert(e);
        } else {
            self.heap.push(e);
            if self.heap.len() >= WHEEL_ENTER {
                self.to_wheel();
            }
        }
    }

    /// Schedule a packet event (`Arrive`, `TxDone`) due a fixed offset after the event being
    /// processed — a serialization time, or one plus a propagation delay — so that it goes to the
    /// lane of that offset ([`Lanes`]). Any other event, or one the lanes cannot hold in order,
    /// is scheduled as by [`schedule`](Self::schedule); the order is the same either way.
    /// Inlined so that the caller's event, known where it is built, becomes its entry without a
    /// match on its kind.
    #[inline(always)]
    pub fn schedule_ahead(&mut self, time: Time, event: Event) {
        debug_assert!(matches!(event, Event::Arrive { .. } | Event::TxDone { .. }));
        let e = PEntry::new(time, event);
        if !self.lanes.append(time.0.wrapping_sub(self.last.0), e) {
            self.entry_ahead(e);
        }
    }

    fn entry_ahead(&mut self, e: PEntry) {
        if let Some(offset) = e.time.0.checked_sub(self.last.0) {
            match self.lanes.insert(offset, e) {
                Ok(()) => {}
                Err(e) => self.packet_event(e),
            }
        } else {
            self.packet_event(e);
        }
    }

    /// Schedule a packet event due at `time`, not later than a lane's offset ahead, whose time
    /// was fixed earlier than now — the transmit-done of a transmission under way, scheduled when
    /// a packet comes to wait behind it — in order among a lane's last events
    /// ([`Lanes::insert_behind`]) rather than in the heap. The order is the same either way.
    #[inline]
    pub fn schedule_behind(&mut self, time: Time, event: Event) {
        debug_assert!(matches!(event, Event::Arrive { .. } | Event::TxDone { .. }));
        // The scheduled orders' lanes are closed: they refuse it, as they refuse every event.
        let e = PEntry::new(time, event);
        let placed = match time.0.checked_sub(self.last.0) {
            Some(ahead) => self.lanes.insert_behind(ahead, e),
            None => Err(e),
        };
        if let Err(e) = placed {
            self.packet_event(e);
        }
    }

    #[inline(never)]
    fn wheel_insert(&mut self, e: PEntry) {
        if let Err(e) = self.wheel.insert(e) {
            self.far.push(e);
        }
    }

    #[cold]
    #[inline(never)]
    fn to_wheel(&mut self) {
        self.use_wheel = true;
        self.wheel.advance(self.last);
        for e in std::mem::take(&mut self.heap).into_vec() {
            if let Err(e) = self.wheel.insert(e) {
                self.far.push(e);
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn to_heap(&mut self) {
        self.use_wheel = false;
        let mut v = std::mem::take(&mut self.heap).into_vec();
        while let Some(e) = self.wheel.pop() {
            v.push(e);
        }
        // Draining moved the cursor up to the latest entry; the empty wheel takes it back to the
        // present, or events due before that entry would go in behind the cursor when the
        // packet events next outgrow the heap.
        self.wheel.cursor = self.last.0 >> SHIFT;
        v.extend(std::mem::take(&mut self.far).into_vec());
        self.heap = BinaryHeap::from(v);
    }

    /// Where the earliest event is (0 = wheel, 1 = far packet heap, 2 = timers, 3 = packet heap,
    /// 4 + i = lane i) and when it is due.
    #[inline]
    fn head(&mut self) -> Option<(usize, Time)> {
        // No pending event's order is u128::MAX (no tie key's rank is 15).
        let (mut src, mut best) = match self.lanes.min() {
            Some((i, o)) => (4 + i, o),
            None => (usize::MAX, u128::MAX),
        };
        if self.use_wheel {
            if let Some(e) = self.wheel.peek() {
                let o = order(e.time, e.key);
                if o < best {
                    (src, best) = (0, o);
                }
            }
            if let Some(e) = self.far.peek() {
                let o = order(e.time, e.key);
                if o < best {
                    (src, best) = (1, o);
                }
            }
        } else if let Some(e) = self.heap.peek() {
            let o = order(e.time, e.key);
            if o < best {
                (src, best) = (3, o);
            }
        }
        if let Some(e) = self.timers.peek() {
            let o = order(e.time, e.key);
            if o < best {
                (src, best) = (2, o);
            }
        }
        (src != usize::MAX).then_some((src, Time((best >> 64) as u64)))
    }

    #[inline]
    fn take(&mut self, source: usize) -> (Time, u64, Event) {
        let (time, key, event) = match source {
            0 => self.wheel.pop().map(|e| (e.time, e.key, e.event())),
            1 => self.far.pop().map(|e| (e.time, e.key, e.event())),
            2 => self.timers.pop().map(|e| (e.time, e.key, e.event)),
            3 => self.heap.pop().map(|e| (e.time, e.key, e.event())),
            i => {
                self.last_lane = i - 4;
                Some(self.lanes.pop(i - 4)).map(|e| (e.time, e.key, e.event()))
            }
        }
        .expect("the head's source holds it");
        self.popped += 1;
        // Nothing can be scheduled before the event being processed.
        self.last = time;
        if self.use_wheel {
            self.wheel.advance(time);
            if self.wheel.len + self.far.len() < WHEEL_EXIT {
                self.to_heap();
            }
        }
        (time, key, event)
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        match self.scheduled.as_deref_mut() {
            None => self.head().map(|(_, t)| t),
            Some(s) => s.peek_time(),
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.pop_until(Time(u64::MAX))
    }

    /// Pop the earliest event if it is due at or before `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, Event)> {
        self.pop_keyed_until(limit).map(|(time, _, event)| (time, event))
    }

    /// [`pop_until`](Self::pop_until), with the event's tie key (`Event::tie_key`) as stored at
    /// scheduling, so that the caller need not derive it again.
    #[inline]
    pub fn pop_keyed_until(&mut self, limit: Time) -> Option<(Time, u64, Event)> {
        // A queue in a scheduled order keeps the default structures empty: it is found where the
        // default one is empty, and its next event staged where `take` finds it, so the default
        // order pays no test per event (a second loop in the simulator, or a call returning the
        // event, cost it 2-3 % of its instructions per packet-hop, callgrind).
        let (src, t) = match self.head() {
            Some(head) => head,
            None => self.stage_scheduled(limit)?,
        };
        if t > limit {
            return None;
        }
        Some(self.take(src))
    }

    /// In a scheduled order, move its next event, if due by `limit`, to the (empty) timer heap
    /// and give its source and time as `head` does; `None` in the default order (its queue is
    /// empty).
    #[cold]
    #[inline(never)]
    fn stage_scheduled(&mut self, limit: Time) -> Option<(usize, Time)> {
        let e = self.scheduled.as_deref_mut()?.pop(limit)?;
        debug_assert!(self.timers.is_empty());
        self.timers.push(Entry { time: e.time, key: e.event.tie_key(), event: e.event });
        Some((2, e.time))
    }

    /// The transmission on `port` has ended and its packet enters the link: under
    /// `tie_order = "scheduled_pipe"`/`"scheduled_switch"` its arrival is scheduled now (htsim's
    /// `completeService` sends the packet on after telling the ingress it left, which may send
    /// a RESUME, and before it begins the next service); nothing in the other orders, where the
    /// arrival was scheduled as the transmission began. The transmit stage calls it.
    #[cold]
    #[inline(never)]
    pub fn enter_link(&mut self, port: PortId) {
        if let Some(s) = self.scheduled.as_deref_mut() {
            s.enter_link(port);
        }
    }

    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        let scheduled = self.scheduled.as_deref().map_or(0, Scheduled::len);
        self.lanes.len + self.heap.len() + self.wheel.len + self.far.len() + self.timers.len() + scheduled
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn packet_entries_are_compact_and_decode_to_their_event() {
        // The packet queues keep (time, key, path position) only: 24 bytes, not an `Entry`'s 48.
        assert_eq!(std::mem::size_of::<PEntry>(), 24);
        for ev in [
            Event::Arrive { port: PortId(0), pkt: PacketId(0), at: PathPos::NONE },
            Event::Arrive { port: PortId(u32::MAX), pkt: PacketId((1 << 28) - 1), at: PathPos::NONE },
            Event::Arrive { port: PortId(123_456), pkt: PacketId(98_765), at: PathPos::at(7) },
            Event::TxDone { port: PortId(0) },
            Event::TxDone { port: PortId(u32::MAX) },
        ] {
            assert_eq!(PEntry::new(Time(5), ev).event(), ev);
        }
    }

    #[test]
    fn wheel_pops_exactly_like_one_heap() {
        // Random schedules as a simulation makes them: every new event is due at or after the
        // last popped one — mostly within microseconds (the wheel), some far beyond its 67 µs
        // horizon, some timers, many ties. The order must equal a single binary heap's.
        let mut rng = Rng::stream(7, 0);
        // Bursts push the pending count through both thresholds, so the heap/wheel hand-overs run
        // many times.
        let mut q = EventQueue::new();
        let mut reference: BinaryHeap<Entry> = BinaryHeap::new();
        let mut now = Time::ZERO;
        let mut popped = 0;
        for step in 0..200_000u32 {
            let push_bias = if (step / 20_000) % 2 == 0 { 70 } else { 35 };
            if rng.below(100) < push_bias || reference.is_empty() {
                let dt = match rng.below(14) {
                    // A few fixed offsets, as a fabric's serialization and propagation times
                    // give them (the lanes), many at one picosecond.
                    10..=13 => [0, 51_200, 7_200_000, 8_200_000][rng.below(4) as usize],
                    0 => 0,
                    1..=6 => rng.below(20_000_000),                 // within 20 µs
                    7 => rng.below(3) << SHIFT,                      // whole slots ahead
                    8 => 60_000_000 + rng.below(20_000_000),         // around the horizon
                    _ => rng.below(50_000_000_000),                  // up to 50 ms
                };
                let t = Time(now.0 + dt);
                let event = if rng.below(4) == 0 {
                    Event::Timer { flow: FlowId(step), timer: TimerId(0) }
                } else {
                    // Ports in random order, so that ties reach a lane out of key order.
                    Event::Arrive { port: PortId(rng.below(1 << 20) as u32), pkt: PacketId(step), at: PathPos::NONE }
                };
                // Three ways in: a lane's tail, a late event sorted into a lane, the heap/wheel.
                match (matches!(event, Event::Arrive { .. }), rng.below(3)) {
                    (true, 0) => q.schedule_ahead(t, event),
                    (true, 1) => q.schedule_behind(t, event),
                    _ => q.schedule(t, event),
                }
                reference.push(Entry { time: t, key: event.tie_key(), event });
            } else {
                let want = reference.pop().unwrap();
                // Both ways out: `pop`, and `pop_until` (the simulator's), which must refuse an
                // event beyond its limit.
                let got = if step % 2 == 0 {
                    q.pop().unwrap()
                } else {
                    if want.time > Time::ZERO {
                        assert_eq!(q.pop_until(Time(want.time.0 - 1)), None);
                    }
                    let (time, key, event) = q.pop_keyed_until(want.time).unwrap();
                    assert_eq!(key, event.tie_key(), "pop {popped}: the stored key is the event's");
                    (time, event)
                };
                assert_eq!(got, (want.time, want.event), "pop {popped}");
                now = want.time;
                popped += 1;
            }
        }
        while let Some(want) = reference.pop() {
            assert_eq!(q.pop().unwrap(), (want.time, want.event));
        }
        assert!(q.is_empty() && q.pop().is_none());
    }

    #[test]
    fn a_lock_step_instant_in_the_wheel_pops_in_key_order() {
        // 5 000 arrivals due at one picosecond (every host of a symmetric fabric at once), in
        // random key order, with more at that instant and just after it arriving while it drains:
        // exactly a heap's order. (A list scan per pop made this quadratic.)
        let mut rng = Rng::stream(11, 0);
        let mut q = EventQueue::new();
        let mut reference: BinaryHeap<Entry> = BinaryHeap::new();
        let t0 = Time(8_200_000);
        let mut push = |q: &mut EventQueue, reference: &mut BinaryHeap<Entry>, t: Time, id: u32| {
            let event = Event::Arrive { port: PortId(rng.below(1 << 20) as u32), pkt: PacketId(id), at: PathPos::NONE };
            q.schedule(t, event);
            reference.push(Entry { time: t, key: event.tie_key(), event });
        };
        for id in 0..5_000 {
            push(&mut q, &mut reference, t0, id);
        }
        let mut id = 5_000;
        while let Some(want) = reference.pop() {
            assert_eq!(q.pop().unwrap(), (want.time, want.event));
            if id < 7_000 {
                // Same instant, the same slot, the next slot and one further on.
                let t = Time(want.time.0 + [0, 100, 1 << SHIFT, 5 << SHIFT][(id % 4) as usize]);
                push(&mut q, &mut reference, t, id);
                id += 1;
            }
        }
        assert!(q.is_empty());
        // The instant's large vector was let go, not handed on from bucket to bucket.
        assert!(q.wheel.buckets.iter().all(|b| b.capacity() <= KEEP_ENTRIES));
    }

    #[test]
    fn the_wheel_after_a_hand_back_takes_events_due_before_its_last_drained_one() {
        // 2 048 packet events move the queue to the wheel; popping all but 200 of them (the last
        // one 60 µs ahead) hands the rest back to the heap, draining the wheel. 2 048 more, due
        // before that last one, move it to the wheel again: they must pop in order, not behind
        // a cursor the drain left 60 µs ahead.
        let mut rng = Rng::stream(5, 0);
        let mut q = EventQueue::new();
        let mut reference: BinaryHeap<Entry> = BinaryHeap::new();
        let mut id = 0u32;
        let mut push = |q: &mut EventQueue, reference: &mut BinaryHeap<Entry>, t: u64| {
            let event = Event::Arrive { port: PortId(rng.below(1 << 20) as u32), pkt: PacketId(id), at: PathPos::NONE };
            id += 1;
            q.schedule(Time(t), event);
            reference.push(Entry { time: Time(t), key: event.tie_key(), event });
        };
        for i in 0..WHEEL_ENTER as u64 {
            let t = if i < 1_848 { 1_000 + i * 1_000 } else { 60_000_000 + i };
            push(&mut q, &mut reference, t);
        }
        assert!(q.use_wheel);
        for _ in 0..1_848 {
            let want = reference.pop().unwrap();
            assert_eq!(q.pop().unwrap(), (want.time, want.event));
        }
        assert!(!q.use_wheel, "handed back to the heap");
        let now = q.last.0;
        for i in 0..WHEEL_ENTER as u64 {
            push(&mut q, &mut reference, now + 1 + i * 10_000);
        }
        assert!(q.use_wheel);
        while let Some(want) = reference.pop() {
            assert_eq!(q.pop().unwrap(), (want.time, want.event));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn lanes_keep_exact_order_through_ties_and_fallbacks() {
        // Hand-built: offsets 100 and 300 from a clock at 0, then at 50. Ties at one picosecond
        // arrive out of key order; one tie further back than a lane will search, and an event
        // earlier than its lane's tail, must fall back to the heap and still pop in order.
        let mut q = EventQueue::new();
        let a = |port: u32, t: u64| (Time(t), Event::Arrive { port: PortId(port), pkt: PacketId(0), at: PathPos::NONE });
        let mut want = Vec::new();
        for port in [5, 3, 9, 1] {
            // Offset 100 at time 0: all due at 100, scheduled with falling and rising keys.
            let (t, e) = a(port, 100);
            q.schedule_ahead(t, e);
            want.push((t, e));
        }
        for port in 10..30 {
            let (t, e) = a(port, 300);
            q.schedule_ahead(t, e);
            want.push((t, e));
        }
        // A tie at 300 with the smallest key: 20 entries back, beyond the lane's tie search.
        let (t, e) = a(0, 300);
        q.schedule_ahead(t, e);
        want.push((t, e));
        assert_eq!(q.lanes.len, 24);
        assert_eq!(q.len(), 25);
        // Pop up to 50 (nothing due), then the clock moves to 100 with the first pop.
        assert_eq!(q.pop_until(Time(50)), None);
        let first = q.pop().unwrap();
        assert_eq!(first, a(1, 100));
        // Offset 100 from 100 = 200: in order in its lane (tail at 100).
        let (t, e) = a(2, 200);
        q.schedule_ahead(t, e);
        want.push((t, e));
        // Offset 50 from 100 = 150, a new lane.
        let (t, e) = a(4, 150);
        q.schedule_ahead(t, e);
        want.push((t, e));
        want.sort_by_key(|&(t, e)| (t, e.tie_key()));
        let mut got = vec![first];
        got.extend(std::iter::from_fn(|| q.pop()));
        assert_eq!(got, want);
        assert!(q.is_empty());
    }

    #[test]
    fn a_late_transmit_done_is_sorted_into_a_lane_or_falls_back_to_the_heap() {
        // Hand-built: lanes of offsets 1 000 and 50 from a clock at 0; the 50 pops, so the clock
        // is at 50. A transmit-done due at 1 020 (970 ahead) goes into the lane of offset 1 000,
        // the smallest at least 970 ahead, one place before its tail (1 050); one due at 60 (10
        // ahead) into the emptied lane of offset 50; one due at 2 000, beyond every lane's
        // offset, to the heap. After eleven ties at 1 050 behind it, one due at 1 030 would move
        // twelve events (more than `MAX_SHIFT`): the heap too. All pop in (time, key) order.
        let mut q = EventQueue::new();
        let d = |port: u32| Event::TxDone { port: PortId(port) };
        let mut want = vec![(Time(1_000), d(1)), (Time(50), d(2))];
        q.schedule_ahead(Time(1_000), d(1));
        q.schedule_ahead(Time(50), d(2));
        assert_eq!(q.pop(), Some((Time(50), d(2))));
        q.schedule_ahead(Time(1_050), d(3));
        q.schedule_behind(Time(1_020), d(4));
        q.schedule_behind(Time(60), d(5));
        assert_eq!((q.lanes.len, q.heap.len()), (4, 0));
        assert_eq!(q.lane_ahead(0), Some(d(5)), "the lane of offset 50 holds the one due at 60");
        q.schedule_behind(Time(2_000), d(6));
        assert_eq!((q.lanes.len, q.heap.len()), (4, 1));
        for port in 10..21 {
            q.schedule_ahead(Time(1_050), d(port));
            want.push((Time(1_050), d(port)));
        }
        q.schedule_behind(Time(1_030), d(7));
        assert_eq!((q.lanes.len, q.heap.len()), (15, 2));
        want.extend([(Time(1_050), d(3)), (Time(1_020), d(4)), (Time(60), d(5)), (Time(2_000), d(6)), (Time(1_030), d(7))]);
        want.sort_by_key(|&(t, e)| (t, e.tie_key()));
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(got, want[1..]);
    }

    #[test]
    fn lane_ahead_reads_the_popped_lanes_next_events_in_order() {
        // Two lanes from a clock at 0: offset 100 (ports 1..=5, all at 100: a tie ordered by
        // port) and offset 1 000 (port 9). Popping port 1 leaves its lane's ports 2..=5 at
        // places 0..=3; a transmit-done 100 after that pop joins the same lane behind them.
        let mut q = EventQueue::new();
        let a = |port: u32| Event::Arrive { port: PortId(port), pkt: PacketId(port), at: PathPos::at(port) };
        for port in 1..=5u32 {
            q.schedule_ahead(Time(100), a(port));
        }
        q.schedule_ahead(Time(1_000), a(9));
        assert_eq!(q.lane_ahead(0), None, "no lane popped yet");
        assert_eq!(q.pop(), Some((Time(100), a(1))));
        assert_eq!(q.upcoming(), Some(a(2)));
        assert_eq!((0..5).map(|n| q.lane_ahead(n)).collect::<Vec<_>>(), vec![Some(a(2)), Some(a(3)), Some(a(4)), Some(a(5)), None]);
        // A transmit-done decodes as itself.
        q.schedule_ahead(Time(200), Event::TxDone { port: PortId(7) });
        assert_eq!(q.lane_ahead(4), Some(Event::TxDone { port: PortId(7) }));
    }

    #[test]
    fn lanes_are_reused_once_empty_and_overflow_to_the_heap() {
        // 20 distinct offsets from a clock at 0: the first 16 take the 16 lanes, the other 4 go
        // to the heap. Three pops empty the lanes of offsets 10, 20, 30; two new offsets then
        // take two of those lanes (no lane is added), and everything pops in (time, key) order.
        let mut q = EventQueue::new();
        let a = |port: u32, t: u64| (Time(t), Event::Arrive { port: PortId(port), pkt: PacketId(0), at: PathPos::NONE });
        let mut want = Vec::new();
        for i in 1..=20u32 {
            let (t, e) = a(i, 10 * i as u64);
            q.schedule_ahead(t, e);
            want.push((t, e));
        }
        assert_eq!((q.lanes.len, q.lanes.used, q.heap.len()), (16, MAX_LANES, 4));
        let mut got: Vec<_> = (0..3).map(|_| q.pop().unwrap()).collect();
        assert_eq!(q.lanes.busy.count_ones(), 13);
        for (port, t) in [(30, 1030), (31, 2030)] {
            let (t, e) = a(port, t);
            q.schedule_ahead(t, e);
            want.push((t, e));
        }
        assert_eq!((q.lanes.len, q.lanes.used, q.heap.len()), (15, MAX_LANES, 4));
        got.extend(std::iter::from_fn(|| q.pop()));
        want.sort_by_key(|&(t, e)| (t, e.tie_key()));
        assert_eq!(got, want);
        assert_eq!(q.lanes.busy, 0);
    }

    #[test]
    fn pops_in_time_then_tie_key_order() {
        let mut q = EventQueue::new();
        // At one picosecond: samples first, then arrivals, transmitters freed (by port), then
        // timers; whatever the scheduling order.
        q.schedule(Time(10), Event::TxDone { port: PortId(2) });
        q.schedule(Time(5), Event::Timer { flow: FlowId(0), timer: TimerId(0) });
        q.schedule(Time(5), Event::TxDone { port: PortId(3) });
        q.schedule(Time(10), Event::Sample);
        q.schedule(Time(5), Event::TxDone { port: PortId(1) });
        assert_eq!(q.peek_time(), Some(Time(5)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Time(5), Event::TxDone { port: PortId(1) }),
                (Time(5), Event::TxDone { port: PortId(3) }),
                (Time(5), Event::Timer { flow: FlowId(0), timer: TimerId(0) }),
                (Time(10), Event::Sample),
                (Time(10), Event::TxDone { port: PortId(2) }),
            ]
        );
        assert_eq!(q.processed(), 5);
        assert!(q.is_empty());
    }

    #[test]
    fn scheduled_order_runs_ties_as_scheduled_with_samples_first_and_releases_last() {
        // Hand-built instant at 10 ps: scheduled in this order, whatever the kinds; the sample
        // (scheduled fifth) still first, the shaper's release (scheduled fourth) still last; an
        // earlier instant scheduled last pops first. Default order of the same events, for
        // contrast: sample, arrivals by port, the transmit-done, the timer, HostRx, release.
        let a = |port: u32| Event::Arrive { port: PortId(port), pkt: PacketId(port), at: PathPos::NONE };
        let timer = Event::Timer { flow: FlowId(0), timer: TimerId(0) };
        let rx = Event::HostRx { node: NodeId(0), pkt: PacketId(9) };
        let release = Event::Release { port: PortId(2) };
        let mut q = EventQueue::with_order(TieOrder::Scheduled);
        assert_eq!(q.order(), TieOrder::Scheduled);
        q.schedule(Time(10), Event::TxDone { port: PortId(1) });
        q.schedule_ahead(Time(10), a(5));
        q.schedule(Time(10), timer);
        q.schedule(Time(10), release);
        q.schedule(Time(10), Event::Sample);
        q.schedule(Time(10), rx);
        q.schedule_ahead(Time(10), a(0));
        q.schedule(Time(5), Event::TxDone { port: PortId(7) });
        assert_eq!((q.len(), q.peek_time()), (8, Some(Time(5))));
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(got, vec![Event::TxDone { port: PortId(7) }, Event::Sample, Event::TxDone { port: PortId(1) }, a(5), timer, rx, a(0), release]);
        assert_eq!((q.processed(), q.lanes.len, q.is_empty()), (8, 0, true));
    }

    /// Pop as the simulator does: a transmit-done lets its packet into its link (the transmit
    /// stage's `enter_link`, after anything else it schedules first).
    fn pop_sent(q: &mut EventQueue) -> Option<(Time, Event)> {
        let (t, e) = q.pop()?;
        if let Event::TxDone { port } = e {
            q.enter_link(port);
        }
        Some((t, e))
    }

    #[test]
    fn scheduled_pipe_schedules_a_resume_sent_at_a_departure_before_the_departing_packet() {
        // htsim's completeService tells the ingress the packet left (a RESUME, 1 us of wire), then
        // sends the packet on (its arrival 1 us on): the frame first, though the arrival was
        // scheduled as the transmission began. Port 3 ends at 10, its packet arrives at 12; the
        // RESUME to port 8 also reaches it at 12.
        let arrive = Event::Arrive { port: PortId(3), pkt: PacketId(1), at: PathPos::NONE };
        let resume = Event::Pfc { port: PortId(8), pause: false };
        let mut q = EventQueue::with_order(TieOrder::ScheduledPipe);
        q.schedule_ahead(Time(10), Event::TxDone { port: PortId(3) });
        q.schedule_ahead(Time(12), arrive);
        assert_eq!(q.pop(), Some((Time(10), Event::TxDone { port: PortId(3) })));
        q.schedule(Time(12), resume);
        q.enter_link(PortId(3));
        assert_eq!((q.pop(), q.pop(), q.pop()), (Some((Time(12), resume)), Some((Time(12), arrive)), None));
    }

    #[test]
    fn scheduled_pipe_schedules_an_arrival_as_its_packet_enters_the_link_one_per_link() {
        // As the transmit stage does: a transmission's transmit-done, then its arrival, both
        // scheduled as it begins. Port 3 begins at 0 (ends 10, arrives 12), port 4 at 0 (ends 9,
        // arrives 12): the scheduled order runs port 3's arrival first (scheduled first), the
        // pipe order port 4's (its packet entered its link first, at 9).
        let a = |port: u32, pkt: u32| Event::Arrive { port: PortId(port), pkt: PacketId(pkt), at: PathPos::NONE };
        let d = |port: u32| Event::TxDone { port: PortId(port) };
        let run = |order: TieOrder| {
            let mut q = EventQueue::with_order(order);
            for (done, port) in [(10, 3), (9, 4)] {
                q.schedule_ahead(Time(done), d(port));
                q.schedule_ahead(Time(12), a(port, port));
            }
            assert_eq!(q.len(), 4);
            std::iter::from_fn(|| pop_sent(&mut q)).collect::<Vec<_>>()
        };
        assert_eq!(run(TieOrder::Scheduled), vec![(Time(9), d(4)), (Time(10), d(3)), (Time(12), a(3, 3)), (Time(12), a(4, 4))]);
        assert_eq!(run(TieOrder::ScheduledPipe), vec![(Time(9), d(4)), (Time(10), d(3)), (Time(12), a(4, 4)), (Time(12), a(3, 3))]);
        // Two packets on one link (port 5: 1 ps each, 100 ps of wire): the second's arrival enters
        // the heap when the first has been handled (the pop after it), so a timer scheduled at 50
        // for 101 runs before it; in the scheduled order after it (scheduled at 1).
        let timer = Event::Timer { flow: FlowId(0), timer: TimerId(0) };
        let run = |order: TieOrder| {
            let mut q = EventQueue::with_order(order);
            q.schedule_ahead(Time(1), d(5));
            q.schedule_ahead(Time(100), a(5, 1));
            let mut got = vec![pop_sent(&mut q).unwrap()];
            q.schedule_ahead(Time(2), d(5));
            q.schedule_ahead(Time(101), a(5, 2));
            got.push(pop_sent(&mut q).unwrap());
            q.schedule(Time(50), Event::Sample);
            got.push(pop_sent(&mut q).unwrap());
            q.schedule(Time(101), timer);
            assert_eq!(q.len(), 3, "{order:?}: both arrivals and the timer pending");
            got.extend(std::iter::from_fn(|| pop_sent(&mut q)));
            got
        };
        let head = [(Time(1), d(5)), (Time(2), d(5)), (Time(50), Event::Sample), (Time(100), a(5, 1))];
        assert_eq!(run(TieOrder::Scheduled)[..], [&head[..], &[(Time(101), a(5, 2)), (Time(101), timer)]].concat()[..]);
        assert_eq!(run(TieOrder::ScheduledPipe)[..], [&head[..], &[(Time(101), timer), (Time(101), a(5, 2))]].concat()[..]);
    }

    #[test]
    fn scheduled_switch_passes_packets_through_a_switch_in_their_own_events_one_at_a_time() {
        // htsim's FatTreeSwitch hands each packet to a zero-latency pipe per switch. Links 1 and 2
        // end their packets at 5 and 6 (both arrive at switch 7 at 10); port 9 of the switch,
        // which began a transmission at 6, ends it at 10. Hand-computed: the arrivals first
        // (in the heap since 5 and 6), then the end of service (scheduled at 6, after them);
        // each arrival's `Forward`, scheduled as it is handled at 10, comes after all three;
        // B's waits in the switch's pipe until A's has been handled, so a timer A's egress
        // schedules for 10 runs before it.
        let a = |port: u32, pkt: u32| Event::Arrive { port: PortId(port), pkt: PacketId(pkt), at: PathPos::NONE };
        let f = |pkt: u32| Event::Forward { node: NodeId(7), pkt: PacketId(pkt), at: PathPos::NONE };
        let d = |port: u32| Event::TxDone { port: PortId(port) };
        let timer = Event::Timer { flow: FlowId(0), timer: TimerId(0) };
        let mut q = EventQueue::with_order(TieOrder::ScheduledSwitch);
        q.schedule_ahead(Time(5), d(1));
        q.schedule_ahead(Time(10), a(1, 100));
        q.schedule_ahead(Time(6), d(2));
        q.schedule_ahead(Time(10), a(2, 200));
        let mut got = vec![pop_sent(&mut q).unwrap(), pop_sent(&mut q).unwrap()];
        q.schedule_ahead(Time(10), d(9));
        for _ in 0..2 {
            let (t, e) = pop_sent(&mut q).unwrap();
            if let Event::Arrive { pkt, .. } = e {
                q.schedule(t, f(pkt.0));
            }
            got.push((t, e));
        }
        assert_eq!(q.len(), 3, "the end of service and A's Forward in the heap, B's in the pipe");
        got.push(pop_sent(&mut q).unwrap());
        got.push(pop_sent(&mut q).unwrap());
        q.schedule(Time(10), timer);
        got.extend(std::iter::from_fn(|| pop_sent(&mut q)));
        let t = Time(10);
        assert_eq!(got, vec![(Time(5), d(1)), (Time(6), d(2)), (t, a(1, 100)), (t, a(2, 200)), (t, d(9)), (t, f(100)), (t, timer), (t, f(200))]);
    }

    #[test]
    fn scheduled_order_matches_a_stable_sort_of_random_schedules() {
        // Random schedules as a simulation makes them (due at or after the last pop, many ties,
        // both ways in): pops equal a stable sort by (time, class) of what is pending, i.e. ties
        // in scheduling order; `pop_until` refuses what is beyond its limit; the key handed back
        // is the event's own.
        let mut rng = Rng::stream(5, 0);
        let mut q = EventQueue::with_order(TieOrder::Scheduled);
        let mut pending: Vec<(Time, u8, u64, Event)> = Vec::new();
        let (mut now, mut n) = (Time::ZERO, 0u64);
        for step in 0..20_000u32 {
            if rng.below(100) < 55 || pending.is_empty() {
                let t = Time(now.0 + [0, 0, 1_200, 7_200, rng.below(50_000)][rng.below(5) as usize]);
                let e = match rng.below(6) {
                    0 => Event::TxDone { port: PortId(rng.below(4) as u32) },
                    1 => Event::Timer { flow: FlowId(rng.below(4) as u32), timer: TimerId(0) },
                    2 => Event::Sample,
                    3 => Event::Release { port: PortId(rng.below(4) as u32) },
                    _ => Event::Arrive { port: PortId(rng.below(4) as u32), pkt: PacketId(step), at: PathPos::NONE },
                };
                if matches!(e, Event::Arrive { .. }) && rng.below(2) == 0 {
                    q.schedule_ahead(t, e);
                } else {
                    q.schedule(t, e);
                }
                let class = match e {
                    Event::Sample => 0,
                    Event::Release { .. } => 2,
                    _ => 1,
                };
                pending.push((t, class, n, e));
                n += 1;
            } else {
                pending.sort_by_key(|&(t, c, i, _)| (t, c, i));
                let (t, _, _, e) = pending.remove(0);
                if t > Time::ZERO {
                    assert_eq!(q.pop_until(Time(t.0 - 1)), None);
                }
                assert_eq!(q.pop_keyed_until(t), Some((t, e.tie_key(), e)), "step {step}");
                now = t;
            }
        }
        assert_eq!(q.len(), pending.len());
    }

    #[test]
    fn scheduled_pipe_delivers_every_arrival_on_time_and_in_link_order() {
        // A transmit stage driven at random over four links (zero and non-zero propagation
        // delays, serialization 1.2 or 7.2 ns): each transmission schedules its transmit-done and
        // its arrival as it begins, the next packet of a link starts when the transmit-done pops.
        // However the pipe holds and releases arrivals, each must pop exactly at its own time,
        // in its link's order, none lost, with time never going backwards.
        const SER: [u64; 4] = [1_200, 7_200, 1_200, 7_200];
        const DELAY: [u64; 4] = [0, 1_000, 500, 0];
        let mut rng = Rng::stream(9, 0);
        let mut q = EventQueue::with_order(TieOrder::ScheduledPipe);
        let mut expect: Vec<VecDeque<(Time, u32)>> = (0..4).map(|_| VecDeque::new()).collect();
        let mut waiting: Vec<VecDeque<u32>> = (0..4).map(|_| VecDeque::new()).collect();
        let mut busy = [false; 4];
        let (mut now, mut next, mut arrived) = (Time::ZERO, 0u32, 0u32);
        let start = |q: &mut EventQueue, i: usize, now: Time, pkt: u32, expect: &mut Vec<VecDeque<(Time, u32)>>| {
            let port = PortId(i as u32);
            q.schedule(Time(now.0 + SER[i]), Event::TxDone { port });
            let at = Time(now.0 + SER[i] + DELAY[i]);
            q.schedule(at, Event::Arrive { port, pkt: PacketId(pkt), at: PathPos::NONE });
            expect[i].push_back((at, pkt));
        };
        for step in 0..60_000u32 {
            if step < 40_000 && (rng.below(100) < 45 || q.is_empty()) {
                let i = rng.below(4) as usize;
                if busy[i] {
                    waiting[i].push_back(next);
                } else {
                    busy[i] = true;
                    start(&mut q, i, now, next, &mut expect);
                }
                next += 1;
                continue;
            }
            let Some((t, e)) = pop_sent(&mut q) else { break };
            assert!(t >= now, "step {step}: time went back");
            now = t;
            match e {
                Event::TxDone { port } => {
                    let i = port.idx();
                    match waiting[i].pop_front() {
                        Some(pkt) => start(&mut q, i, now, pkt, &mut expect),
                        None => busy[i] = false,
                    }
                }
                Event::Arrive { port, pkt, .. } => {
                    assert_eq!(Some((t, pkt.0)), expect[port.idx()].pop_front(), "step {step}: link {}", port.idx());
                    arrived += 1;
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        assert!(expect.iter().all(VecDeque::is_empty) && waiting.iter().all(VecDeque::is_empty) && q.is_empty(), "every arrival popped");
        assert_eq!(arrived, next, "{arrived} of {next} arrivals");
    }

    #[test]
    fn order_does_not_depend_on_scheduling_order() {
        // The same events at a few instants, scheduled in 50 shuffled orders, always pop alike:
        // what a parallel engine scheduling from several threads needs.
        use crate::host::HostTimerId;
        let mut events = Vec::new();
        for t in [0u64, 1024, 5_000_000] {
            events.push((Time(t), Event::Sample));
            events.push((Time(t + 1), Event::Circuit));
            for i in 0..4 {
                events.push((Time(t), Event::Arrive { port: PortId(i), pkt: PacketId(7 - i), at: PathPos::NONE }));
                events.push((Time(t), Event::TxDone { port: PortId(i) }));
                events.push((Time(t), Event::Timer { flow: FlowId(i), timer: TimerId(i as u8) }));
                events.push((Time(t), Event::HostTimer { node: NodeId(i), timer: HostTimerId::NdpPull }));
                events.push((Time(t), Event::FlowStart { flow: FlowId(i) }));
                events.push((Time(t), Event::Arrival { gen: i }));
            }
        }
        let run = |order: &[(Time, Event)]| {
            let mut q = EventQueue::new();
            for &(t, e) in order {
                q.schedule(t, e);
            }
            std::iter::from_fn(|| q.pop()).collect::<Vec<_>>()
        };
        let reference = run(&events);
        // Kind order at one instant, then the entity: hand-checked on the first instant.
        assert_eq!(reference[0], (Time(0), Event::Sample));
        assert_eq!(reference[1], (Time(0), Event::Arrive { port: PortId(0), pkt: PacketId(7), at: PathPos::NONE }));
        assert_eq!(reference[5], (Time(0), Event::TxDone { port: PortId(0) }));
        assert_eq!(reference[9], (Time(0), Event::Timer { flow: FlowId(0), timer: TimerId(0) }));
        let mut rng = Rng::stream(3, 0);
        let mut shuffled = events.clone();
        for _ in 0..50 {
            for i in (1..shuffled.len()).rev() {
                shuffled.swap(i, rng.below(i as u64 + 1) as usize);
            }
            assert_eq!(run(&shuffled), reference);
        }
    }
}
