//! A switch port's egress queues: 1–8 FIFOs, a class → queue map, a scheduler, a buffer (per port
//! or a switch-wide shared memory), an admission policy and ECN marking — the queue-discipline
//! seam of the switch (compare ns-3's `QueueDisc` with its internal queues and classes).
//!
//! A transport sets each packet's `class` (0 = most urgent); the scenario maps classes to queues.
//! Occupancy counts packets *waiting*, not the one being serialized (the transmitter holds that
//! one), which is how a switch's buffer accounting sees it once the packet is on the wire.
//! Disciplines read only network fields of a packet (size, class, ECN, rank, flow, kind), never
//! transport state.
//!
//! - Scheduling ([`Sched`]): strict priority (lowest queue index first), deficit round robin over
//!   bytes (Shreedhar & Varghese, SIGCOMM 1995) or weighted round robin over packets.
//! - Buffer: a per-port limit and optional per-queue limits, and/or a switch-wide [`SharedPool`]
//!   with dynamic thresholds (α per class).
//! - Admission ([`Admission`]): drop-tail; push-out of the lowest-priority queue's tail (Flash,
//!   Algorithm 1); pFabric's drop of the lowest-priority packet (with its priority dequeue);
//!   NDP's trimming of data packets to headers (optionally of the queue's tail packet, by a
//!   coin, and returning headers that do not fit to their senders).
//! - Selective dropping (`QueueSpec::selective_drop`, Aeolus, Hu et al. SIGCOMM 2020 §3.2): a
//!   packet marked droppable is admitted only while the port's occupancy stays within a small
//!   threshold; other packets see the whole buffer.
//! - Random drop ([`random_drop`], `QueueSpec::random_drop`): an arrival above a threshold below
//!   the buffer limit is dropped with a fixed probability (htsim's `RandomQueue`).
//! - Marking ([`Marking`]): step marking on the instantaneous occupancy per queue and/or per port,
//!   at enqueue or dequeue; or RED ([`red`]).
//! - Order within a queue ([`Order`]): first in first out, or round robin over flows by flow
//!   number (htsim's `FairPullQueue`).
//! - A device queue below all of it (`QueueSpec::device_queue`, [`device`]): ns-3's NetDevice
//!   transmit queue under a queue disc, which the discipline never sees.

pub mod describe;
pub mod device;
pub mod fifo;
pub mod random_drop;
pub mod red;
pub mod shared;

pub use fifo::{Fifo, QueueStats};
pub use random_drop::RandomDrop;
pub use red::{Red, RedAction, RedCount, RedSpec};
pub use shared::SharedPool;

use crate::ids::{FlowId, PacketId};
use crate::switch::paths::PathPos;
use crate::packet::{Ecn, Kind, PacketSlab};
use crate::rng::Rng;
use crate::time::{Rate, Time};
use crate::ring::Ring;

/// Queues a port may have, and priority classes a packet may carry.
pub const MAX_QUEUES: usize = 8;
pub const CLASSES: usize = 8;

/// A size measured either in packets or in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    Packets(u64),
    Bytes(u64),
}

impl Amount {
    /// Does an occupancy of (`pkts`, `bytes`) exceed this amount?
    #[inline]
    pub fn exceeded_by(self, pkts: u64, bytes: u64) -> bool {
        match self {
            Amount::Packets(n) => pkts > n,
            Amount::Bytes(b) => bytes > b,
        }
    }
}

/// Where step marking looks at the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkAt {
    /// An arriving packet is marked when the occupancy it finds (excluding itself) exceeds K
    /// (DCTCP, Alizadeh et al. SIGCOMM 2010 §3.1; RFC 8257 §3.1).
    Enqueue,
    /// A departing packet is marked when the occupancy it leaves behind exceeds K.
    Dequeue,
    /// A packet is marked as its serialization ends when the occupancy then, itself included,
    /// exceeds K: htsim's `ECNQueue::completeService` (sim/ecnqueue.cpp), whose queue holds the
    /// packet in service until then, so the arrivals during its service count.
    End,
}

/// The order in which a queue sends the packets it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Oldest first.
    Fifo,
    /// Round robin over flows by flow number: the oldest packet of the next flow after the last
    /// one served, cyclically (htsim's `FairPullQueue`, sim/fairpullqueue.cpp, which its hosts'
    /// `FairPriorityQueue` keeps per priority). htsim keeps a flow's queue once it exists, so a
    /// flow numbered between the last served and the next one that arrives meanwhile waits for
    /// the next round there; here it is served in this one.
    FlowRr,
}

/// How a port marks ECN-capable packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Marking {
    None,
    /// Step marking on the instantaneous occupancy: of the packet's queue (`queue[i]`) and/or of
    /// the whole port (`port[i]`, the threshold for packets of queue i); either threshold
    /// exceeded marks.
    Threshold { queue: [Option<Amount>; MAX_QUEUES], port: [Option<Amount>; MAX_QUEUES], at: MarkAt },
    /// RED on each queue's own length.
    Red(RedSpec),
}

/// What a full buffer does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Drop the arriving packet.
    DropTail,
    /// Flash (Gao et al., "Flash: Joint Flow Scheduling and Congestion Control in Data Center
    /// Networks", Algorithm 1): drop the arriving packet if its queue is at or below the
    /// lowest-priority non-empty queue, otherwise push out that queue's tail packet (repeat until
    /// the arriving packet fits).
    PushOut,
    /// pFabric (Alizadeh et al., SIGCOMM 2013 §4.1): dequeue the packet with the smallest rank
    /// first — but of that packet's flow, the earliest — and when full drop the packet with the
    /// largest rank, the arriving one included (ties: the arriving one, else the latest).
    PFabric,
    /// NDP (Handley et al., SIGCOMM 2017 §3.1): a data packet that does not fit its queue is cut
    /// to `header_bytes` and queued, marked trimmed, in queue 0 (the header queue); a packet
    /// trimmed upstream joins queue 0 too. With `return_to_sender`, a header the header queue
    /// cannot hold goes back to its sender instead of being dropped (§3.1; the switch turns it).
    /// With probability `tail_percent`/100 a data packet that does not fit trims the packet at
    /// its queue's tail instead and takes its place (§3.1: a 50 % coin, against phase effects).
    Trim { header_bytes: u32, return_to_sender: bool, tail_percent: u8 },
}

/// The order in which the port serves its queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sched {
    /// Lowest non-empty queue index first.
    Strict,
    /// Deficit round robin: queue i gets `weights[i] · quantum` bytes per round.
    Drr { weights: [u32; MAX_QUEUES], quantum: u32 },
    /// Weighted round robin over packets: queue i sends up to `weights[i]` packets per round.
    Wrr { weights: [u32; MAX_QUEUES] },
}

/// A port's queue configuration (scenario level).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueSpec {
    /// Port buffer; `None` = unlimited.
    pub limit: Option<Amount>,
    /// Number of queues, 1..=8.
    pub queues: u8,
    /// Queue of each class.
    pub class_map: [u8; CLASSES],
    /// Per-queue limits (besides the port's).
    pub queue_limits: [Option<Amount>; MAX_QUEUES],
    pub sched: Sched,
    /// Shared-memory dynamic threshold α per class, when the port's switch shares its buffer.
    pub shared_alpha: Option<[f64; CLASSES]>,
    pub admission: Admission,
    /// The order within each queue.
    pub order: Order,
    /// Aeolus's selective dropping (Hu et al., SIGCOMM 2020 §3.2): a droppable packet that would
    /// take the port's occupancy (all its queues, the packet included) above this amount is
    /// dropped; packets that are not droppable are admitted as usual.
    pub selective_drop: Option<Amount>,
    /// htsim's `RandomQueue` band ([`random_drop`]): an arrival taking the port's occupancy above
    /// the threshold is dropped with a fixed probability. `None`: off.
    pub random_drop: Option<RandomDrop>,
    pub marking: Marking,
    /// Host NICs only: transports stop handing data packets to the NIC while it holds this many
    /// packets (backpressure, no drop). `None` = no backpressure.
    pub send_limit: Option<u64>,
    /// A device transmit queue of this many packets below the discipline ([`device`]: ns-3's
    /// NetDevice queue under a queue disc). `None`: the transmitter takes from the queues.
    pub device_queue: Option<u32>,
}

impl QueueSpec {
    /// One FIFO with a buffer limit and drop-tail (what a port is unless configured).
    pub fn fifo(limit: Option<Amount>) -> QueueSpec {
        QueueSpec {
            limit,
            queues: 1,
            class_map: [0; CLASSES],
            queue_limits: [None; MAX_QUEUES],
            sched: Sched::Strict,
            shared_alpha: None,
            admission: Admission::DropTail,
            order: Order::Fifo,
            selective_drop: None,
            random_drop: None,
            marking: Marking::None,
            send_limit: None,
            device_queue: None,
        }
    }

    /// DCTCP-style step marking at K on one queue.
    pub fn ecn(limit: Option<Amount>, k: Amount) -> QueueSpec {
        let mut q = [None; MAX_QUEUES];
        q[0] = Some(k);
        QueueSpec { marking: Marking::Threshold { queue: q, port: [None; MAX_QUEUES], at: MarkAt::Enqueue }, ..QueueSpec::fifo(limit) }
    }
}

/// The outcome of offering a packet to a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    Enqueued { marked: bool, trimmed: bool },
    Dropped,
}

/// What `offer` and `pop` need besides the queue: the packets, the switch's shared memories, the
/// port's random stream, the time, and a list the queue fills with packets it pushed out (the
/// caller frees and counts them).
pub struct Env<'a> {
    pub slab: &'a mut PacketSlab,
    pub pools: &'a mut [SharedPool],
    pub rng: &'a mut Rng,
    pub now: Time,
    pub victims: &'a mut Vec<PacketId>,
}

/// Occupancy of a port (all its queues) and its buffer limit.
#[derive(Clone, Copy, Debug)]
struct Occupancy {
    pkts: u64,
    bytes: u64,
    limit: Option<Amount>,
}

impl Occupancy {
    #[inline]
    fn full_for(&self, size: u64) -> bool {
        self.limit.is_some_and(|l| l.exceeded_by(self.pkts + 1, self.bytes + size))
    }
}

/// The egress queues of one port.
///
/// The common port — one drop-tail FIFO, at most step marking at enqueue on its own length — is
/// a packet list, its occupancy and the threshold: small, so thousands of ports stay in cache,
/// and its counters are the port's own. Everything else lives behind `multi`. Laid out by hand:
/// the occupancy and the packet list, all a dequeue reads, first ([`PortQueue::HOT_BYTES`]).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct PortQueue {
    occ: Occupancy,
    fifo: Ring<Queued>,
    multi: Option<Box<Multi>>,
    /// The simple port's step-marking threshold.
    mark_k: Option<Amount>,
}

/// A packet waiting in a port's queue (the simple port's FIFO, a multi-queue port's `Fifo`s and
/// device queue), with what its transmission needs of it (wire size, telemetry request, its
/// position on its flow's path at the next node): the packet's own slot, cold after its wait, is
/// not read to send it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued {
    pub id: PacketId,
    pub size: u32,
    pub next: PathPos,
    pub int: crate::packet::Int,
}

/// A port with several queues, or any admission, marking or buffer beyond the simple port's.
///
/// Laid out by hand, what every enqueue and dequeue reads first: a switch holds thousands of
/// these, mostly out of the core's caches, and each line touched is a wait (NDP's two-queue
/// ports spent most of their queue time so). The first line holds the scheduler's cursor, the
/// packet in service, the class map, the admission, the number of queues and `flags`, which say
/// which of the optional parts (device queue, shared memory, random drop, per-queue limits,
/// marking) exist, so that a port without them does not read them; then the scheduler and its
/// deficits, the per-queue limits, the cold parts, and the queues themselves, inline (no pointer
/// to follow) and each starting a line.
#[derive(Clone, Debug)]
#[repr(C)]
struct Multi {
    cur: usize,
    /// Under `MarkAt::End`, the packet being serialized and its queue, until its end
    /// (`end_service`).
    serving: Option<(PacketId, u8)>,
    class_map: [u8; CLASSES],
    admission: Admission,
    fresh: bool,
    order: Order,
    /// `HAS_*` bits: which optional parts below exist (set once, by `PortQueue::new`).
    flags: u8,
    /// A packet waited behind the port's last transmission (`PortQueue::predict_waiter`).
    waited: bool,
    /// Queues in use.
    n: u8,
    sched: Sched,
    deficit: [u64; MAX_QUEUES],
    queue_limits: [Option<Amount>; MAX_QUEUES],
    /// Under `Order::FlowRr`, the flow each queue served last (`None`: none yet).
    last_flow: [Option<FlowId>; MAX_QUEUES],
    selective_drop: Option<Amount>,
    random_drop: Option<RandomDrop>,
    marking: Marking,
    red: Vec<Red>,
    /// The switch's shared memory (index into the pools) and α per class.
    shared: Option<(u32, [f64; CLASSES])>,
    /// The queues, in the same allocation (a dequeue reaches its queue without another pointer):
    /// the first `n` are in use.
    fifos: [Fifo; MAX_QUEUES],
    /// The device queue below the queues, if any; `occ` counts its packets too.
    device: Option<device::Device>,
}

impl PortQueue {
    /// Bytes from the start of the queue that a dequeue from the simple port reads.
    pub const HOT_BYTES: usize = std::mem::offset_of!(PortQueue, multi);

    /// The queues of a port with `spec`, sending at `rate`; `pool` = its switch's shared memory.
    pub fn new(spec: &QueueSpec, rate: Rate, pool: Option<u32>) -> PortQueue {
        let n = spec.queues.clamp(1, MAX_QUEUES as u8) as usize;
        let occ = Occupancy { pkts: 0, bytes: 0, limit: spec.limit };
        let shared = match (pool, spec.shared_alpha) {
            (Some(p), Some(a)) => Some((p, a)),
            _ => None,
        };
        if n == 1 && spec.admission == Admission::DropTail && spec.order == Order::Fifo && spec.selective_drop.is_none() && spec.random_drop.is_none() && spec.queue_limits[0].is_none() && shared.is_none() && spec.device_queue.is_none() {
            match spec.marking {
                Marking::None => return PortQueue { occ, fifo: Ring::default(), multi: None, mark_k: None },
                Marking::Threshold { queue, port: [None, ..], at: MarkAt::Enqueue } => {
                    return PortQueue { occ, fifo: Ring::default(), multi: None, mark_k: queue[0] }
                }
                _ => {}
            }
        }
        let red = match spec.marking {
            Marking::Red(r) => (0..n).map(|_| Red::new(r, rate)).collect(),
            _ => Vec::new(),
        };
        // Any one queue may hold the whole buffer (or, without a port limit, its own limit: ns-3's
        // per-band buffers): give each room for it up front (capped), so a class that first fills
        // up late in a run does not allocate on the per-packet path.
        let packets = |a: Option<Amount>| match a {
            Some(Amount::Packets(p)) => p,
            Some(Amount::Bytes(b)) => b / 1500,
            None => 0,
        };
        let room = match spec.limit {
            Some(_) => packets(spec.limit),
            None => spec.queue_limits.iter().map(|&l| packets(l)).max().unwrap_or(0),
        }
        .min(1024) as usize;
        let flags = if spec.device_queue.is_some() { HAS_DEVICE } else { 0 }
            | if shared.is_some() { HAS_SHARED } else { 0 }
            | if spec.random_drop.is_some() { HAS_RANDOM_DROP } else { 0 }
            | if spec.queue_limits.iter().any(Option::is_some) { HAS_QUEUE_LIMITS } else { 0 }
            | if spec.selective_drop.is_some() { HAS_SELECTIVE_DROP } else { 0 }
            | match spec.marking {
                Marking::None => 0,
                Marking::Threshold { at: MarkAt::Enqueue, .. } => MARKS_ENQUEUE,
                Marking::Threshold { at: MarkAt::Dequeue, .. } => MARKS_DEQUEUE,
                Marking::Threshold { at: MarkAt::End, .. } => MARKS_END,
                Marking::Red(_) => MARKS_ENQUEUE,
            };
        let multi = Multi {
            flags,
            waited: false,
            n: n as u8,
            fifos: std::array::from_fn(|i| if i < n { Fifo::with_capacity(room) } else { Fifo::default() }),
            class_map: spec.class_map,
            queue_limits: spec.queue_limits,
            sched: spec.sched,
            deficit: [0; MAX_QUEUES],
            cur: 0,
            fresh: true,
            admission: spec.admission,
            order: spec.order,
            last_flow: [None; MAX_QUEUES],
            serving: None,
            selective_drop: spec.selective_drop,
            random_drop: spec.random_drop,
            marking: spec.marking,
            red,
            shared,
            device: spec.device_queue.map(device::Device::new),
        };
        PortQueue { occ, fifo: Ring::default(), multi: Some(Box::new(multi)), mark_k: None }
    }

    /// A plain FIFO (tests, host NICs).
    pub fn fifo(limit: Option<Amount>) -> PortQueue {
        PortQueue::new(&QueueSpec::fifo(limit), Rate(1), None)
    }

    #[inline]
    pub fn len_packets(&self) -> u64 {
        self.occ.pkts
    }

    /// A transmission starts with `waiting` telling whether packets wait behind it: should its
    /// `TxDone` be scheduled now although nothing may wait? Yes on a multi-queue port where a
    /// packet waited behind the previous transmission: a packet will likely come, and a
    /// transmit-done scheduled as the transmission starts goes to a lane (an append), one
    /// scheduled when the packet comes to the heap of other packet events, which on NDP's
    /// fabric costs more than the transmit-dones scheduled in vain. Results are the same either
    /// way (tie keys do not depend on when an event was scheduled). The simple port: never
    /// (DCTCP's fat trees, where the prediction cost 6 % at k = 8).
    #[inline]
    pub fn predict_waiter(&mut self, waiting: bool) -> bool {
        match self.multi.as_deref_mut() {
            Some(m) => std::mem::replace(&mut m.waited, waiting),
            None => false,
        }
    }

    /// A packet came to wait behind the transmission under way (see `predict_waiter`).
    #[inline]
    pub fn note_waiter(&mut self) {
        if let Some(m) = self.multi.as_deref_mut() {
            m.waited = true;
        }
    }

    /// Start loading the simple port's FIFO entry a dequeue reads (its head) and the one past
    /// its tail, which an enqueue writes; of a multi-queue port its first two lines and its first
    /// two queues (hints).
    #[inline]
    pub fn prefetch_ends(&self) {
        if let Some(m) = self.multi.as_deref() {
            // The scheduler's lines and the first two queues (their addresses need no read).
            crate::packet::prefetch_lines(m, 2);
            crate::packet::prefetch_lines(&m.fifos[0], 2);
            crate::packet::prefetch_lines(&m.fifos[1], 2);
            return;
        }
        if let Some(q) = self.fifo.front() {
            crate::packet::prefetch(q as *const Queued as *const u8);
        }
        if let Some(q) = self.fifo.back() {
            crate::packet::prefetch((q as *const Queued).wrapping_add(1) as *const u8);
        }
    }
    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.occ.bytes
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.occ.pkts == 0
    }
    /// The port's buffer limit.
    pub fn limit(&self) -> Option<Amount> {
        self.occ.limit
    }
    /// Whether the port's counters are its only queue's (the simple port keeps no per-queue
    /// counters: the port's drops, marks, peaks and time averages are the queue's).
    #[inline]
    pub fn counted_by_port(&self) -> bool {
        self.multi.is_none()
    }
    /// The queues with their own counters (empty for the simple port).
    pub fn queues(&self) -> &[Fifo] {
        self.multi.as_ref().map_or(&[], |m| m.queues())
    }
    /// Does this port return headers it cannot hold to their senders (NDP's return-to-sender)?
    #[inline]
    pub fn returns_to_sender(&self) -> bool {
        self.multi.as_ref().is_some_and(|m| matches!(m.admission, Admission::Trim { return_to_sender: true, .. }))
    }
    /// Queue of a class.
    #[inline]
    pub fn queue_of(&self, class: u8) -> usize {
        self.multi.as_ref().map_or(0, |m| m.queue_of(class))
    }
    /// Account every queue's length up to `now` (before reading time averages).
    pub fn note_all(&mut self, now: Time) {
        if let Some(m) = self.multi.as_deref_mut() {
            let n = m.n as usize;
            for q in &mut m.fifos[..n] {
                q.note(now);
            }
        }
    }

    /// Count packet `id` of `class` and `flow` that found the transmitter idle and went straight
    /// out: admitted, never waiting, and served (only ports with per-queue counters call this).
    #[inline]
    pub fn passed(&mut self, id: PacketId, class: u8, flow: FlowId) {
        if let Some(m) = self.multi.as_deref_mut() {
            let qi = m.queue_of(class);
            m.fifos[qi].stats.enqueued += 1;
            m.served(id, qi, flow);
        }
    }

    /// Does this port mark packets as their serialization ends (`MarkAt::End`)? Its transmitter
    /// then ends every packet in a transmit-done, where `end_service` is called.
    pub fn marks_at_end(&self) -> bool {
        self.multi.as_ref().is_some_and(|m| m.marks_at_end())
    }

    /// The packet being serialized ends now (`MarkAt::End` ports; a no-op elsewhere): mark it
    /// if the occupancy, itself included, exceeds its threshold. `true` = it was marked here.
    #[inline]
    pub fn end_service(&mut self, slab: &mut PacketSlab) -> bool {
        match self.multi.as_deref_mut() {
            Some(m) => m.end_service(&self.occ, slab),
            None => false,
        }
    }

    /// The packet being serialized was lost on the wire (and freed): nothing to mark at its end.
    #[inline(never)]
    pub fn lost_in_service(&mut self) {
        if let Some(m) = self.multi.as_deref_mut() {
            m.serving = None;
        }
    }

    /// Offer a packet (the transmitter is busy): it is queued, possibly marked or trimmed, or
    /// dropped; packets pushed out to make room are appended to `env.victims`.
    #[inline]
    pub fn offer(&mut self, id: PacketId, env: &mut Env) -> Admit {
        self.offer_at(id, PathPos::NONE, env)
    }

    /// `offer` of a packet whose position on its flow's path at the next node is `next`, kept
    /// with the packet's queue entry.
    #[inline(always)]
    pub fn offer_at(&mut self, id: PacketId, next: PathPos, env: &mut Env) -> Admit {
        match self.multi.as_deref_mut() {
            None => self.offer_fifo(id, next, env.slab),
            Some(m) => m.offer(id, next, &mut self.occ, env),
        }
    }

    /// `offer` for the simple port.
    #[inline(always)]
    fn offer_fifo(&mut self, id: PacketId, next: PathPos, slab: &mut PacketSlab) -> Admit {
        let p = slab.get_mut(id);
        let size = p.size as u64;
        if self.occ.full_for(size) {
            return Admit::Dropped;
        }
        let mut marked = false;
        if let Some(k) = self.mark_k {
            if p.ecn != Ecn::NotEct && k.exceeded_by(self.occ.pkts, self.occ.bytes) {
                marked = p.ecn != Ecn::Ce;
                p.ecn = Ecn::Ce;
            }
        }
        self.fifo.push_back(Queued { id, size: p.size, next, int: p.int });
        self.occ.pkts += 1;
        self.occ.bytes += size;
        Admit::Enqueued { marked, trimmed: false }
    }

    /// `pop` for the simple port (`counted_by_port`): the head, if any.
    #[inline]
    pub fn pop_fifo(&mut self) -> Option<Queued> {
        let q = self.fifo.pop_front()?;
        self.occ.pkts -= 1;
        self.occ.bytes -= q.size as u64;
        Some(q)
    }

    /// Take the next packet to transmit, if any, as its queue entry; `true` = it was marked on
    /// dequeue.
    #[inline]
    pub fn pop(&mut self, env: &mut Env) -> Option<(Queued, bool)> {
        if self.occ.pkts == 0 {
            return None;
        }
        match self.multi.as_deref_mut() {
            None => self.pop_fifo().map(|q| (q, false)),
            Some(m) => Some(m.pop(&mut self.occ, env)),
        }
    }
}

/// `Multi::flags`: a device queue below the queues.
const HAS_DEVICE: u8 = 1;
/// The switch's shared memory.
const HAS_SHARED: u8 = 1 << 1;
/// A random-drop band.
const HAS_RANDOM_DROP: u8 = 1 << 2;
/// Some queue has a limit of its own.
const HAS_QUEUE_LIMITS: u8 = 1 << 3;
/// Selective dropping.
const HAS_SELECTIVE_DROP: u8 = 1 << 4;
/// Marking decided at enqueue (step marking there, or RED).
const MARKS_ENQUEUE: u8 = 1 << 5;
/// Step marking at dequeue.
const MARKS_DEQUEUE: u8 = 1 << 6;
/// Step marking at the end of service.
const MARKS_END: u8 = 1 << 7;

impl Multi {
    /// The queues in use.
    #[inline]
    fn queues(&self) -> &[Fifo] {
        &self.fifos[..self.n as usize]
    }

    #[inline]
    fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    #[inline]
    fn queue_of(&self, class: u8) -> usize {
        self.class_map[(class as usize).min(CLASSES - 1)] as usize
    }

    /// Does step marking with per-queue thresholds `queue` and port threshold `port` find queue
    /// `qi` (or the whole port) above its threshold now, counting `extra` bytes in one more
    /// packet if given (the packet in service, `MarkAt::End`)?
    #[inline]
    fn over(&self, occ: &Occupancy, qi: usize, queue: &[Option<Amount>; MAX_QUEUES], port: &[Option<Amount>; MAX_QUEUES], extra: Option<u64>) -> bool {
        let q = &self.fifos[qi];
        let (n, b) = extra.map_or((0, 0), |b| (1, b));
        queue[qi].is_some_and(|k| k.exceeded_by(q.len_packets() + n, q.len_bytes() + b)) || port[qi].is_some_and(|k| k.exceeded_by(occ.pkts + n, occ.bytes + b))
    }

    /// Packet `id` of `flow` goes on the wire from queue `qi`: the round robin's cursor moves
    /// past its flow (htsim's hosts dequeue a packet that finds the port idle too), and marking
    /// at the end of service remembers it.
    #[inline]
    fn served(&mut self, id: PacketId, qi: usize, flow: FlowId) {
        if self.order == Order::FlowRr {
            self.last_flow[qi] = Some(flow);
        }
        if self.marks_at_end() {
            self.serving = Some((id, qi as u8));
        }
    }

    /// Does this port remember the packet in service (`MarkAt::End`)?
    #[inline]
    fn marks_at_end(&self) -> bool {
        self.has(MARKS_END)
    }

    /// `PortQueue::end_service`.
    #[inline]
    fn end_service(&mut self, occ: &Occupancy, slab: &mut PacketSlab) -> bool {
        if !self.has(MARKS_END) {
            return false;
        }
        let Some((id, qi)) = self.serving.take() else { return false };
        let Marking::Threshold { queue, port, .. } = self.marking else { return false };
        let qi = qi as usize;
        let p = slab.get_mut(id);
        if p.ecn != Ecn::Ect0 || !self.over(occ, qi, &queue, &port, Some(p.size as u64)) {
            return false;
        }
        p.ecn = Ecn::Ce;
        self.fifos[qi].stats.marks += 1;
        true
    }

    /// What the port's buffer limit is checked against: the whole occupancy, or with a device
    /// queue only the discipline's part.
    #[inline]
    fn buffered(&self, occ: &Occupancy) -> Occupancy {
        if !self.has(HAS_DEVICE) {
            return *occ;
        }
        match &self.device {
            None => *occ,
            Some(d) => Occupancy { pkts: occ.pkts - d.len_packets(), bytes: occ.bytes - d.len_bytes(), limit: occ.limit },
        }
    }

    /// Could queue `qi` hold one more packet of `size` bytes?
    #[inline]
    fn fits(&self, occ: &Occupancy, qi: usize, size: u64, class: u8, pools: &[SharedPool]) -> bool {
        let q = &self.fifos[qi];
        if self.buffered(occ).full_for(size) {
            return false;
        }
        if self.has(HAS_QUEUE_LIMITS) && self.queue_limits[qi].is_some_and(|l| l.exceeded_by(q.len_packets() + 1, q.len_bytes() + size)) {
            return false;
        }
        if !self.has(HAS_SHARED) {
            return true;
        }
        match self.shared {
            Some((p, alpha)) => pools[p as usize].admits(q.len_packets(), q.len_bytes(), size, alpha[(class as usize).min(CLASSES - 1)]),
            None => true,
        }
    }

    /// Remove the packet at position `pos` of queue `qi` (its entry holds its size: the packet's
    /// slot is not read).
    #[inline]
    fn take(&mut self, occ: &mut Occupancy, qi: usize, pos: usize, env: &mut Env) -> Queued {
        let q = self.fifos[qi].take(pos, env.now).expect("a waiting packet");
        let size = q.size;
        occ.pkts -= 1;
        occ.bytes -= size as u64;
        if !self.has(HAS_SHARED | MARKS_ENQUEUE) {
            return q;
        }
        if let Some((p, _)) = self.shared {
            env.pools[p as usize].give(size as u64);
        }
        if !self.red.is_empty() && self.fifos[qi].is_empty() {
            self.red[qi].idle(env.now);
        }
        q
    }

    /// Make room for a packet of class `class` arriving at queue `qi` by pushing out lower-priority
    /// packets (push-out and pFabric admission). False: the arriving packet is to be dropped.
    fn push_out(&mut self, occ: &mut Occupancy, qi: usize, size: u64, class: u8, rank: u64, env: &mut Env) -> bool {
        while !self.fits(occ, qi, size, class, env.pools) {
            let (vq, vpos) = match self.admission {
                Admission::PushOut => {
                    // The lowest-priority non-empty queue.
                    let Some(j) = (0..self.n as usize).rev().find(|&j| !self.fifos[j].is_empty()) else { return false };
                    if j <= qi {
                        return false;
                    }
                    (j, self.fifos[j].len_packets() as usize - 1)
                }
                Admission::PFabric => {
                    // The largest rank waiting; among equals the latest.
                    let mut best: Option<(u64, usize, usize)> = None;
                    for (j, q) in self.queues().iter().enumerate() {
                        for (pos, id) in q.iter().enumerate() {
                            let r = env.slab.get(id).rank;
                            if best.is_none_or(|(br, _, _)| r >= br) {
                                best = Some((r, j, pos));
                            }
                        }
                    }
                    match best {
                        Some((r, j, pos)) if r > rank => (j, pos),
                        _ => return false,
                    }
                }
                _ => return false,
            };
            let v = self.take(occ, vq, vpos, env);
            self.fifos[vq].stats.drops += 1;
            env.victims.push(v.id);
        }
        true
    }

    /// Not inlined: kept out of `PortQueue::offer_at`, so that the simple port's admission, the
    /// common case, inlines into the switch's enqueue stage.
    #[inline(never)]
    fn offer(&mut self, id: PacketId, next: PathPos, occ: &mut Occupancy, env: &mut Env) -> Admit {
        let p = env.slab.get(id);
        let (class, mut size, kind, ecn, rank, int) = (p.class, p.size as u64, p.kind, p.ecn, p.rank, p.int);
        if p.droppable && self.has(HAS_SELECTIVE_DROP) && self.selective_drop.is_some_and(|k| k.exceeded_by(occ.pkts + 1, occ.bytes + size)) {
            let qi = self.queue_of(class);
            self.fifos[qi].stats.drops += 1;
            self.fifos[qi].stats.selective_drops += 1;
            return Admit::Dropped;
        }
        let mut qi = self.queue_of(class);
        if matches!(self.admission, Admission::Trim { .. }) && env.slab.get(id).trimmed {
            // A header trimmed upstream travels in the header queue at every trimming hop (§3.1).
            qi = 0;
        }
        let mut marked = false;
        let mut drop = false;
        match self.marking {
            _ if !self.has(MARKS_ENQUEUE) => {}
            Marking::None => {}
            Marking::Threshold { queue, port, at: MarkAt::Enqueue } => marked = ecn != Ecn::NotEct && self.over(occ, qi, &queue, &port, None),
            Marking::Threshold { .. } => {}
            Marking::Red(spec) => {
                let q = &self.fifos[qi];
                if let red::Verdict::Pick { forced } = self.red[qi].arrive(q.len_packets(), q.len_bytes(), env.now, env.rng) {
                    if spec.action == RedAction::Mark && ecn != Ecn::NotEct && !(forced && spec.hard_drop) {
                        marked = true;
                    } else {
                        drop = true;
                    }
                }
            }
        }
        let fits = !drop && self.fits(occ, qi, size, class, env.pools);
        if fits && self.has(HAS_RANDOM_DROP) {
            if let Some(r) = self.random_drop {
                // Only an arrival that fits draws (htsim tests the limit first); one that does not
                // is dropped below as it would be without the band.
                let b = self.buffered(occ);
                drop = r.drops(b.pkts, b.bytes, size, env.rng);
            }
        }
        let mut trimmed = false;
        if !drop && !fits {
            match self.admission {
                Admission::DropTail => drop = true,
                Admission::PushOut | Admission::PFabric => drop = !self.push_out(occ, qi, size, class, rank, env),
                Admission::Trim { header_bytes, tail_percent, .. } => {
                    if kind == Kind::Data && qi != 0 && !env.slab.get(id).trimmed && tail_percent > 0 && !self.fifos[qi].is_empty() && env.rng.below(100) < tail_percent as u64 {
                        // The coin: the packet at the tail becomes the header, the arrival queues.
                        let pos = self.fifos[qi].len_packets() as usize - 1;
                        let mut v = self.take(occ, qi, pos, env);
                        self.fifos[qi].stats.trims += 1;
                        trimmed = true;
                        let vp = env.slab.get_mut(v.id);
                        vp.size = header_bytes.min(vp.size);
                        vp.trimmed = true;
                        let vclass = vp.class;
                        v.size = vp.size;
                        if self.fits(occ, 0, v.size as u64, vclass, env.pools) {
                            self.admit(v, 0, occ, env);
                        } else {
                            self.fifos[0].stats.drops += 1;
                            env.victims.push(v.id);
                        }
                    }
                    if !self.fits(occ, qi, size, class, env.pools) && kind == Kind::Data && qi != 0 && !env.slab.get(id).trimmed {
                        self.fifos[qi].stats.trims += 1;
                        let p = env.slab.get_mut(id);
                        p.size = header_bytes.min(p.size);
                        p.trimmed = true;
                        size = p.size as u64;
                        qi = 0;
                        trimmed = true;
                        marked = false;
                    }
                    drop = !self.fits(occ, qi, size, class, env.pools);
                }
            }
        }
        if drop {
            self.fifos[qi].stats.drops += 1;
            if self.fifos[qi + 1..].iter().any(|q| !q.is_empty()) {
                // Flash §2.2, Fig. 5: lost although lower-priority packets were waiting.
                self.fifos[qi].stats.drops_over_lower += 1;
            }
            return Admit::Dropped;
        }
        if marked {
            let p = env.slab.get_mut(id);
            marked = p.ecn != Ecn::Ce;
            p.ecn = Ecn::Ce;
            self.fifos[qi].stats.marks += marked as u64;
        }
        self.admit(Queued { id, size: size as u32, next, int }, qi, occ, env);
        if self.has(HAS_DEVICE) && self.device.as_ref().is_some_and(device::Device::has_room) {
            // The device queue had room, so the discipline was empty: the packet goes on down.
            marked |= self.to_device(occ, env);
        }
        Admit::Enqueued { marked, trimmed }
    }

    /// Move the discipline's next packet into the device queue (both counted in `occ`); `true`
    /// = it was marked on leaving the discipline (dequeue marking).
    #[inline(never)]
    fn to_device(&mut self, occ: &mut Occupancy, env: &mut Env) -> bool {
        let (q, marked) = self.pop_queues(occ, env);
        self.device.as_mut().expect("a device queue").push(q);
        occ.pkts += 1;
        occ.bytes += q.size as u64;
        marked
    }

    /// The transmitter takes the device queue's head; the discipline refills the room it leaves
    /// (ns-3's wake of a stopped device queue). `true` = the refill was marked on dequeue.
    #[inline(never)]
    fn pop_device(&mut self, occ: &mut Occupancy, env: &mut Env) -> (Queued, bool) {
        let q = self.device.as_mut().expect("a device queue").pop().expect("the device queue holds the port's head");
        occ.pkts -= 1;
        occ.bytes -= q.size as u64;
        let waiting = self.buffered(occ).pkts > 0;
        (q, waiting && self.to_device(occ, env))
    }

    /// Put the packet of entry `q` at the tail of queue `qi` (it fits).
    #[inline]
    fn admit(&mut self, q: Queued, qi: usize, occ: &mut Occupancy, env: &mut Env) {
        let size = q.size as u64;
        self.fifos[qi].push_entry(q, env.now);
        self.fifos[qi].stats.enqueued += 1;
        occ.pkts += 1;
        occ.bytes += size;
        if !self.has(HAS_SHARED) {
            return;
        }
        if let Some((p, _)) = self.shared {
            env.pools[p as usize].take(size);
        }
    }

    /// The queue the scheduler serves next (some queue is non-empty).
    #[inline]
    fn pick_queue(&mut self) -> usize {
        let n = self.n as usize;
        if n == 1 {
            return 0;
        }
        let (weights, quantum, bytes) = match self.sched {
            Sched::Strict => return self.queues().iter().position(|q| !q.is_empty()).unwrap(),
            Sched::Drr { weights, quantum } => (weights, quantum as u64, true),
            Sched::Wrr { weights } => (weights, 1, false),
        };
        loop {
            let i = self.cur;
            match self.fifos[i].front_entry() {
                None => {
                    self.deficit[i] = 0;
                    self.cur = (i + 1) % n;
                    self.fresh = true;
                }
                Some(head) => {
                    if self.fresh {
                        self.deficit[i] += weights[i] as u64 * quantum;
                        self.fresh = false;
                    }
                    let cost = if bytes { head.size as u64 } else { 1 };
                    if cost <= self.deficit[i] {
                        self.deficit[i] -= cost;
                        return i;
                    }
                    self.cur = (i + 1) % n;
                    self.fresh = true;
                }
            }
        }
    }

    /// Position in queue `qi` of the packet to send: the head, under pFabric the earliest
    /// packet of the flow that holds the smallest rank, under `Order::FlowRr` the earliest of
    /// the next flow.
    #[inline]
    fn pick_position(&self, qi: usize, slab: &PacketSlab) -> usize {
        if self.order == Order::FlowRr {
            return self.next_flow_position(qi, slab);
        }
        if self.admission != Admission::PFabric {
            return 0;
        }
        let q = &self.fifos[qi];
        let mut best: Option<(u64, crate::ids::FlowId)> = None;
        for id in q.iter() {
            let p = slab.get(id);
            if best.is_none_or(|(r, _)| p.rank < r) {
                best = Some((p.rank, p.flow));
            }
        }
        let flow = best.unwrap().1;
        q.iter().position(|id| slab.get(id).flow == flow).unwrap()
    }

    /// `Order::FlowRr`: the position of the earliest packet of the flow with the smallest number
    /// above the one served last, or, when no flow numbered above it waits, of the smallest
    /// number waiting (the cycle starts over). One pass over the queue, no allocation.
    fn next_flow_position(&self, qi: usize, slab: &PacketSlab) -> usize {
        let last = self.last_flow[qi];
        // Key: (wraps around, flow number); the first position of the smallest key wins.
        let mut best: Option<((bool, FlowId), usize)> = None;
        for (pos, id) in self.fifos[qi].iter().enumerate() {
            let f = slab.get(id).flow;
            let key = (last.is_some_and(|l| f <= l), f);
            if best.is_none_or(|(b, _)| key < b) {
                best = Some((key, pos));
            }
        }
        best.expect("a non-empty queue").1
    }

    /// The next packet to transmit (the port holds one); `true` = marked on dequeue.
    #[inline]
    fn pop(&mut self, occ: &mut Occupancy, env: &mut Env) -> (Queued, bool) {
        if self.has(HAS_DEVICE) {
            return self.pop_device(occ, env);
        }
        self.pop_queues(occ, env)
    }

    /// The next packet of the queues (some queue is non-empty); `true` = marked on dequeue.
    fn pop_queues(&mut self, occ: &mut Occupancy, env: &mut Env) -> (Queued, bool) {
        let qi = self.pick_queue();
        let pos = self.pick_position(qi, env.slab);
        let q = self.take(occ, qi, pos, env);
        let id = q.id;
        if self.order != Order::Fifo || self.marks_at_end() {
            self.served(id, qi, env.slab.get(id).flow);
        }
        if self.fifos[qi].is_empty() && !matches!(self.sched, Sched::Strict) {
            self.deficit[qi] = 0;
        }
        let mut marked = false;
        if !self.has(MARKS_DEQUEUE) {
            return (q, marked);
        }
        if let Marking::Threshold { queue, port, at: MarkAt::Dequeue } = self.marking {
            let over = self.over(occ, qi, &queue, &port, None);
            let p = env.slab.get_mut(id);
            if over && p.ecn == Ecn::Ect0 {
                p.ecn = Ecn::Ce;
                marked = true;
                self.fifos[qi].stats.marks += 1;
            }
        }
        (q, marked)
    }
}

#[cfg(test)]
mod tests;
