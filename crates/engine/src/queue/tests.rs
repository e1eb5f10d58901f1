//! Unit tests of the port queues, each against a hand-worked case.

use super::*;
use crate::ids::{FlowId, NodeId};
use crate::packet::{Header, Packet, TcpHeader};

struct Bench {
    slab: PacketSlab,
    pools: Vec<SharedPool>,
    rng: Rng,
    victims: Vec<PacketId>,
}

impl Bench {
    fn new() -> Bench {
        Bench { slab: PacketSlab::new(), pools: vec![], rng: Rng::new(1), victims: vec![] }
    }
    fn pkt(&mut self, flow: u32, size: u32, class: u8, ecn: Ecn) -> PacketId {
        let mut p = Packet::new(FlowId(flow), NodeId(0), NodeId(1), size, Kind::Data, 0, Header::Tcp(TcpHeader::default()));
        p.class = class;
        p.ecn = ecn;
        self.slab.alloc(p)
    }
    fn offer(&mut self, q: &mut PortQueue, id: PacketId) -> Admit {
        let mut env = Env { slab: &mut self.slab, pools: &mut self.pools, rng: &mut self.rng, now: Time::ZERO, victims: &mut self.victims };
        q.offer(id, &mut env)
    }
    fn pop(&mut self, q: &mut PortQueue) -> Option<PacketId> {
        let mut env = Env { slab: &mut self.slab, pools: &mut self.pools, rng: &mut self.rng, now: Time::ZERO, victims: &mut self.victims };
        q.pop(&mut env).map(|(q, _)| q.id)
    }
}

fn spec(queues: u8) -> QueueSpec {
    let mut s = QueueSpec::fifo(Some(Amount::Packets(100)));
    s.queues = queues;
    for c in 0..CLASSES {
        s.class_map[c] = (c as u8).min(queues - 1);
    }
    s
}

const OK: Admit = Admit::Enqueued { marked: false, trimmed: false };

#[test]
fn droptail_packet_and_byte_limits() {
    let mut b = Bench::new();
    let mut q = PortQueue::fifo(Some(Amount::Packets(2)));
    let ids: Vec<_> = (0..3).map(|_| b.pkt(0, 1500, 0, Ecn::NotEct)).collect();
    assert_eq!(b.offer(&mut q, ids[0]), OK);
    assert_eq!(b.offer(&mut q, ids[1]), OK);
    assert_eq!(b.offer(&mut q, ids[2]), Admit::Dropped);
    assert_eq!(q.len_bytes(), 3000);
    assert_eq!(b.pop(&mut q), Some(ids[0]));
    assert_eq!(q.len_bytes(), 1500);
    // 3000 B holds two 1500 B packets exactly, not a 64 B third.
    let mut q = PortQueue::fifo(Some(Amount::Bytes(3000)));
    let (x, y, z) = (b.pkt(0, 1500, 0, Ecn::NotEct), b.pkt(0, 1500, 0, Ecn::NotEct), b.pkt(0, 64, 0, Ecn::NotEct));
    assert_eq!(b.offer(&mut q, x), OK);
    assert_eq!(b.offer(&mut q, y), OK);
    assert_eq!(b.offer(&mut q, z), Admit::Dropped);
}

#[test]
fn per_band_limits_without_a_port_limit_are_ns3_prio_queue_disc() {
    // ns-3's PrioQueueDisc has no limit of its own (QueueDiscSizePolicy::NO_LIMITS); each band is
    // a child queue disc with its own limit. `buffer = "unlimited"` with `queue_buffer = "120KB"`:
    // band 7 holds 80 packets of 1500 B (120 000 B) and drops the 81st, and band 0 still takes
    // its own 80 — 240 000 B in the port. Step marking reads each band's own length: K = 95 999 B
    // marks a band-0 arrival that finds at least 64 packets (96 000 B) of band 0 (ns-3's RED
    // with MinTh = MaxTh = K marks at avg >= K), whatever band 7 holds.
    let mut sp = spec(8);
    sp.limit = None;
    sp.queue_limits = [Some(Amount::Bytes(120_000)); MAX_QUEUES];
    let mut k = [None; MAX_QUEUES];
    k[0] = Some(Amount::Bytes(95_999));
    sp.marking = Marking::Threshold { queue: k, port: [None; MAX_QUEUES], at: MarkAt::Enqueue };
    let mut b = Bench::new();
    let fill_band_7 = |b: &mut Bench, q: &mut PortQueue| {
        for _ in 0..80 {
            let id = b.pkt(1, 1500, 7, Ecn::Ect0);
            assert_eq!(b.offer(q, id), OK);
        }
    };
    let mut q = PortQueue::new(&sp, Rate(1), None);
    fill_band_7(&mut b, &mut q);
    let over = b.pkt(1, 1500, 7, Ecn::Ect0);
    assert_eq!(b.offer(&mut q, over), Admit::Dropped);
    let marked: Vec<bool> = (0..81)
        .map(|_| {
            let id = b.pkt(0, 1500, 0, Ecn::Ect0);
            match b.offer(&mut q, id) {
                Admit::Enqueued { marked, .. } => marked,
                Admit::Dropped => panic!("band 0 dropped below its own 120 KB"),
            }
        })
        .take(80)
        .collect();
    assert_eq!(marked, (0..80).map(|i| i >= 64).collect::<Vec<_>>());
    assert_eq!(q.len_bytes(), 240_000);
    // The same packets with one 120 KB for the port: band 0's first arrival is dropped.
    sp.limit = Some(Amount::Bytes(120_000));
    sp.queue_limits = [None; MAX_QUEUES];
    let mut q = PortQueue::new(&sp, Rate(1), None);
    fill_band_7(&mut b, &mut q);
    let hcp = b.pkt(0, 1500, 0, Ecn::Ect0);
    assert_eq!(b.offer(&mut q, hcp), Admit::Dropped);
}

#[test]
fn step_marking_above_k_only_ect() {
    // K = 2 packets: the 1st..3rd arrivals find 0, 1, 2 waiting (not above K), the 4th finds 3.
    let mut b = Bench::new();
    let mut q = PortQueue::new(&QueueSpec::ecn(Some(Amount::Packets(100)), Amount::Packets(2)), Rate(1), None);
    let marks: Vec<bool> = (0..5)
        .map(|_| {
            let id = b.pkt(0, 1500, 0, Ecn::Ect0);
            b.offer(&mut q, id) == Admit::Enqueued { marked: true, trimmed: false } && b.slab.get(id).ecn == Ecn::Ce
        })
        .collect();
    assert_eq!(marks, vec![false, false, false, true, true]);
    let n = b.pkt(0, 1500, 0, Ecn::NotEct);
    assert_eq!(b.offer(&mut q, n), OK);
    assert_eq!(b.slab.get(n).ecn, Ecn::NotEct);
}

#[test]
fn dequeue_marking_looks_at_what_stays_behind() {
    // K = 1: of 4 queued packets the 1st and 2nd leave 3 and 2 behind (marked), the 3rd leaves 1.
    let mut b = Bench::new();
    let mut s = QueueSpec::ecn(Some(Amount::Packets(100)), Amount::Packets(1));
    s.marking = Marking::Threshold { queue: [Some(Amount::Packets(1)); MAX_QUEUES], port: [None; MAX_QUEUES], at: MarkAt::Dequeue };
    let mut q = PortQueue::new(&s, Rate(1), None);
    for _ in 0..4 {
        let id = b.pkt(0, 1500, 0, Ecn::Ect0);
        assert_eq!(b.offer(&mut q, id), OK, "no marks on enqueue");
    }
    let ce: Vec<bool> = (0..4).map(|_| b.pop(&mut q).map(|id| b.slab.get(id).ecn == Ecn::Ce).unwrap()).collect();
    assert_eq!(ce, vec![true, true, false, false]);
}

#[test]
fn per_port_threshold_counts_every_queue() {
    // Two queues, port K = 2: the third packet finds 2 (one in each queue... and one more), the
    // fourth finds 3 > 2 although its own queue holds 1.
    let mut b = Bench::new();
    let mut s = spec(2);
    s.marking = Marking::Threshold { queue: [None; MAX_QUEUES], port: [Some(Amount::Packets(2)); MAX_QUEUES], at: MarkAt::Enqueue };
    let mut q = PortQueue::new(&s, Rate(1), None);
    let classes = [1, 1, 1, 0];
    let marked: Vec<bool> = classes.iter().map(|&c| {
        let id = b.pkt(0, 1500, c, Ecn::Ect0);
        matches!(b.offer(&mut q, id), Admit::Enqueued { marked: true, .. })
    }).collect();
    assert_eq!(marked, vec![false, false, false, true]);
    // Port thresholds per queue (PPT §3.2 read as: low-priority packets marked on the port's
    // buffer occupancy, high-priority ones on their own queue): queue 1 packets look at the
    // port (K = 2 packets), queue 0 packets at their queue (K = 2) only.
    let mut s = spec(2);
    let mut port = [None; MAX_QUEUES];
    port[1] = Some(Amount::Packets(2));
    let mut queue = [None; MAX_QUEUES];
    queue[0] = Some(Amount::Packets(2));
    s.marking = Marking::Threshold { queue, port, at: MarkAt::Enqueue };
    let mut q = PortQueue::new(&s, Rate(1), None);
    let classes = [0, 0, 0, 1, 0];
    let marked: Vec<bool> = classes.iter().map(|&c| {
        let id = b.pkt(0, 1500, c, Ecn::Ect0);
        matches!(b.offer(&mut q, id), Admit::Enqueued { marked: true, .. })
    }).collect();
    // Queue 0 holds 3 (port 3) when the class-1 packet comes: 3 > 2 on the port marks it; the
    // fifth (class 0) finds its queue at 3 > 2.
    assert_eq!(marked, vec![false, false, false, true, true]);
    let mut q = PortQueue::new(&s, Rate(1), None);
    let marked: Vec<bool> = [1, 1, 1, 0, 0, 0].iter().map(|&c| {
        let id = b.pkt(0, 1500, c, Ecn::Ect0);
        matches!(b.offer(&mut q, id), Admit::Enqueued { marked: true, .. })
    }).collect();
    // Three class-1 packets: the third finds the port at 2 (not above); class-0 packets are not
    // marked by the port's 3, 4, 5 (their queue holds 0, 1, 2).
    assert_eq!(marked, vec![false, false, false, false, false, false]);
}

#[test]
fn strict_priority_serves_class_0_first() {
    let mut b = Bench::new();
    let mut q = PortQueue::new(&spec(3), Rate(1), None);
    let low = b.pkt(0, 1500, 2, Ecn::NotEct);
    let mid = b.pkt(1, 1500, 1, Ecn::NotEct);
    let hi1 = b.pkt(2, 1500, 0, Ecn::NotEct);
    let hi2 = b.pkt(2, 1500, 5, Ecn::NotEct); // classes above the last queue share it
    for id in [low, mid, hi1, hi2] {
        b.offer(&mut q, id);
    }
    assert_eq!(q.queue_of(5), 2);
    let order: Vec<_> = std::iter::from_fn(|| b.pop(&mut q)).collect();
    assert_eq!(order, vec![hi1, mid, low, hi2]);
}

#[test]
fn drr_shares_bytes_by_weight_and_wrr_counts_packets() {
    // DRR 3:1 with a 1500 B quantum: queue 0 (1500 B packets) sends 3 per round, queue 1 (500 B
    // packets) sends 3 per round too (1500 B) — equal packets, bytes 3:1.
    let mut b = Bench::new();
    let mut s = spec(2);
    s.limit = None;
    s.sched = Sched::Drr { weights: [3, 1, 1, 1, 1, 1, 1, 1], quantum: 1500 };
    let mut q = PortQueue::new(&s, Rate(1), None);
    for _ in 0..300 {
        let a = b.pkt(0, 1500, 0, Ecn::NotEct);
        let c = b.pkt(1, 500, 1, Ecn::NotEct);
        b.offer(&mut q, a);
        b.offer(&mut q, c);
    }
    let mut bytes = [0u64; 2];
    for _ in 0..240 {
        let id = b.pop(&mut q).unwrap();
        bytes[b.slab.get(id).class as usize] += b.slab.get(id).size as u64;
    }
    assert_eq!(bytes[0], 3 * bytes[1], "{bytes:?}");
    // WRR 10:1 over packets (NDP's header:data ratio).
    let mut s = spec(2);
    s.limit = None;
    s.sched = Sched::Wrr { weights: [10, 1, 1, 1, 1, 1, 1, 1] };
    let mut q = PortQueue::new(&s, Rate(1), None);
    for _ in 0..100 {
        let a = b.pkt(0, 64, 0, Ecn::NotEct);
        b.offer(&mut q, a);
    }
    for _ in 0..10 {
        let c = b.pkt(1, 9000, 1, Ecn::NotEct);
        b.offer(&mut q, c);
    }
    let classes: Vec<u8> = (0..22).map(|_| { let id = b.pop(&mut q).unwrap(); b.slab.get(id).class }).collect();
    assert_eq!(&classes[..11], &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    assert_eq!(&classes[11..], &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
}

#[test]
fn pushout_follows_flash_algorithm_1() {
    // 4-packet buffer, 3 queues; full with [q0: a] [q1: b] [q2: c, d].
    let mut b = Bench::new();
    let mut s = spec(3);
    s.limit = Some(Amount::Packets(4));
    s.admission = Admission::PushOut;
    let mut q = PortQueue::new(&s, Rate(1), None);
    let a = b.pkt(0, 1500, 0, Ecn::NotEct);
    let bb = b.pkt(1, 1500, 1, Ecn::NotEct);
    let c = b.pkt(2, 1500, 2, Ecn::NotEct);
    let d = b.pkt(3, 1500, 2, Ecn::NotEct);
    for id in [a, bb, c, d] {
        assert_eq!(b.offer(&mut q, id), OK);
    }
    // An arrival of class 2 (= the lowest non-empty queue): dropped itself.
    let e = b.pkt(4, 1500, 2, Ecn::NotEct);
    assert_eq!(b.offer(&mut q, e), Admit::Dropped);
    assert!(b.victims.is_empty());
    // Class 1 (above queue 2): q2's tail d is pushed out.
    let f = b.pkt(5, 1500, 1, Ecn::NotEct);
    assert_eq!(b.offer(&mut q, f), OK);
    assert_eq!(b.victims, vec![d]);
    // Class 0 now: q2's tail c goes.
    b.victims.clear();
    let g = b.pkt(6, 1500, 0, Ecn::NotEct);
    assert_eq!(b.offer(&mut q, g), OK);
    assert_eq!(b.victims, vec![c]);
    // Class 1 with q2 empty: the lowest non-empty is q1, the arrival's own: dropped.
    b.victims.clear();
    let h = b.pkt(7, 1500, 1, Ecn::NotEct);
    assert_eq!(b.offer(&mut q, h), Admit::Dropped);
    assert_eq!(q.queues()[2].stats.drops, 3);
    let order: Vec<_> = std::iter::from_fn(|| b.pop(&mut q)).collect();
    assert_eq!(order, vec![a, g, bb, f]);
}

#[test]
fn droptail_counts_drops_while_lower_priority_packets_wait() {
    // PIAS's port (drop-tail, strict priority), full with [q0: a] [q2: b]: a class-1 arrival is
    // dropped although q2 holds a lower-priority packet (Flash Fig. 5 counts it); a class-2
    // arrival is dropped with nothing below it (not counted).
    let mut b = Bench::new();
    let mut s = spec(3);
    s.limit = Some(Amount::Packets(2));
    let mut q = PortQueue::new(&s, Rate(1), None);
    let a = b.pkt(0, 1500, 0, Ecn::NotEct);
    let bb = b.pkt(1, 1500, 2, Ecn::NotEct);
    for id in [a, bb] {
        assert_eq!(b.offer(&mut q, id), OK);
    }
    let c = b.pkt(2, 1500, 1, Ecn::NotEct);
    assert_eq!(b.offer(&mut q, c), Admit::Dropped);
    let d = b.pkt(3, 1500, 2, Ecn::NotEct);
    assert_eq!(b.offer(&mut q, d), Admit::Dropped);
    let st: Vec<_> = q.queues().iter().map(|x| (x.stats.drops, x.stats.drops_over_lower)).collect();
    assert_eq!(st, vec![(0, 0), (1, 1), (1, 0)]);
}

#[test]
fn pfabric_sends_the_smallest_rank_flows_earliest_packet_and_drops_the_largest() {
    let mut b = Bench::new();
    let mut s = spec(1);
    s.limit = Some(Amount::Packets(3));
    s.admission = Admission::PFabric;
    let mut q = PortQueue::new(&s, Rate(1), None);
    let mk = |b: &mut Bench, flow, rank| {
        let id = b.pkt(flow, 1500, 0, Ecn::NotEct);
        b.slab.get_mut(id).rank = rank;
        id
    };
    // Flow 1's first packet has rank 9 (sent when 9 packets remained), its second rank 2.
    let f1a = mk(&mut b, 1, 9);
    let f2 = mk(&mut b, 2, 5);
    let f1b = mk(&mut b, 1, 2);
    for id in [f1a, f2, f1b] {
        assert_eq!(b.offer(&mut q, id), OK);
    }
    // Full: an arrival of rank 7 pushes out the largest rank (9, flow 1's first packet).
    let x = mk(&mut b, 3, 7);
    assert_eq!(b.offer(&mut q, x), OK);
    assert_eq!(b.victims, vec![f1a]);
    // An arrival of rank 8 is the largest now: it is the one dropped.
    b.victims.clear();
    let y = mk(&mut b, 4, 8);
    assert_eq!(b.offer(&mut q, y), Admit::Dropped);
    assert!(b.victims.is_empty());
    let order: Vec<_> = std::iter::from_fn(|| b.pop(&mut q)).collect();
    assert_eq!(order, vec![f1b, f2, x]);
    // Earliest of the most urgent flow: flow 1 has ranks 9 then 2; flow 2 has 5. Rank 2 is the
    // smallest, so flow 1's *earliest* packet (rank 9) leaves first, then its second.
    let mut q = PortQueue::new(&s, Rate(1), None);
    let (p1, p2, p3) = (mk(&mut b, 1, 9), mk(&mut b, 2, 5), mk(&mut b, 1, 2));
    for id in [p1, p2, p3] {
        b.offer(&mut q, id);
    }
    let order: Vec<_> = std::iter::from_fn(|| b.pop(&mut q)).collect();
    assert_eq!(order, vec![p1, p3, p2]);
}

#[test]
fn trimming_cuts_data_to_headers_in_queue_0() {
    let mut b = Bench::new();
    let mut s = spec(2);
    s.class_map = [1; CLASSES];
    s.queue_limits[1] = Some(Amount::Packets(2));
    s.queue_limits[0] = Some(Amount::Packets(3));
    s.admission = Admission::Trim { header_bytes: 64, return_to_sender: false, tail_percent: 0 };
    let mut q = PortQueue::new(&s, Rate(1), None);
    let ids: Vec<_> = (0..6).map(|i| b.pkt(i, 9000, 0, Ecn::NotEct)).collect();
    let r: Vec<Admit> = ids.iter().map(|&id| b.offer(&mut q, id)).collect();
    let trimmed = Admit::Enqueued { marked: false, trimmed: true };
    assert_eq!(r, vec![OK, OK, trimmed, trimmed, trimmed, Admit::Dropped]);
    assert!(ids[2..5].iter().all(|&id| b.slab.get(id).trimmed && b.slab.get(id).size == 64));
    assert_eq!((q.queues()[1].stats.trims, q.queues()[0].stats.drops), (4, 1));
    assert_eq!(q.len_bytes(), 2 * 9000 + 3 * 64);
    // Headers are served first (strict): 2, 3, 4 then the data.
    let order: Vec<_> = std::iter::from_fn(|| b.pop(&mut q)).collect();
    assert_eq!(order, vec![ids[2], ids[3], ids[4], ids[0], ids[1]]);
    // At the next trimming hop a header keeps to the header queue, ahead of data, even when
    // the data queue has room (it used to follow its class into the data queue, or be dropped
    // there when that was full).
    let mut q = PortQueue::new(&s, Rate(1), None);
    let data = b.pkt(9, 9000, 0, Ecn::NotEct);
    assert_eq!(b.offer(&mut q, data), OK);
    assert_eq!(b.offer(&mut q, ids[2]), OK);
    assert_eq!(q.queues()[0].len_packets(), 1);
    assert_eq!(b.pop(&mut q), Some(ids[2]));
}

#[test]
fn shared_buffer_dynamic_threshold_settles_at_alpha_b_over_1_plus_alpha_s() {
    // Choudhury–Hahne: B = 120 packets, α = 1, S saturated queues each settle at B/(1 + S).
    for (s_queues, alpha) in [(1usize, 1.0), (2, 1.0), (3, 2.0), (4, 0.5)] {
        let expect = alpha * 120.0 / (1.0 + alpha * s_queues as f64);
        let mut b = Bench::new();
        b.pools = vec![SharedPool::new(Amount::Packets(120))];
        let mut s = QueueSpec::fifo(None);
        s.shared_alpha = Some([alpha; CLASSES]);
        let mut ports: Vec<PortQueue> = (0..s_queues).map(|_| PortQueue::new(&s, Rate(1), Some(0))).collect();
        // Offer many packets to each queue in turn; none drains.
        for _ in 0..200 {
            for p in ports.iter_mut() {
                let id = b.pkt(0, 1500, 0, Ecn::NotEct);
                b.offer(p, id);
            }
        }
        // Whole packets: each queue ends within one packet of αB/(1 + αS) (60, 40, 34.3, 20).
        for p in &ports {
            let q = p.len_packets() as f64;
            assert!((q - expect).abs() <= 1.0, "S = {s_queues}, α = {alpha}: {q} vs {expect}");
        }
        assert_eq!(b.pools[0].used_packets, ports.iter().map(|p| p.len_packets()).sum::<u64>());
    }
}

#[test]
fn the_trim_coin_cuts_the_tail_packet_and_queues_the_arrival() {
    // NDP §3.1: when the data queue is full, with probability 1/2 the packet at its tail is
    // trimmed instead of the arrival. At 100 % the tail always goes: data 0, 1 queued; 2 arrives,
    // 1 is trimmed and 2 takes its place; 3 arrives, 2 is trimmed.
    let mut b = Bench::new();
    let mut s = spec(2);
    s.class_map = [1; CLASSES];
    s.queue_limits[1] = Some(Amount::Packets(2));
    s.admission = Admission::Trim { header_bytes: 64, return_to_sender: false, tail_percent: 100 };
    let mut q = PortQueue::new(&s, Rate(1), None);
    let ids: Vec<_> = (0..4).map(|i| b.pkt(i, 9000, 0, Ecn::NotEct)).collect();
    let r: Vec<Admit> = ids.iter().map(|&id| b.offer(&mut q, id)).collect();
    let trimmed = Admit::Enqueued { marked: false, trimmed: true };
    assert_eq!(r, vec![OK, OK, trimmed, trimmed]);
    assert!(b.slab.get(ids[1]).trimmed && b.slab.get(ids[2]).trimmed && !b.slab.get(ids[3]).trimmed);
    let order: Vec<_> = std::iter::from_fn(|| b.pop(&mut q)).collect();
    assert_eq!(order, vec![ids[1], ids[2], ids[0], ids[3]], "headers first, then data 0 and 3");
    // At 50 % the coin comes from the port's stream: over many full-queue arrivals about half
    // trim the tail.
    s.admission = Admission::Trim { header_bytes: 64, return_to_sender: false, tail_percent: 50 };
    s.queue_limits[0] = None;
    s.limit = None;
    let mut q = PortQueue::new(&s, Rate(1), None);
    let mut tails = 0;
    for i in 0..2000u32 {
        let id = b.pkt(i, 9000, 0, Ecn::NotEct);
        b.offer(&mut q, id);
        if i >= 2 && !b.slab.get(id).trimmed {
            tails += 1;
        }
    }
    assert!((900..1100).contains(&tails), "{tails} of 1998");
}

#[test]
fn selective_dropping_keeps_droppable_packets_under_the_threshold() {
    // Aeolus §3.2: threshold 3000 B on a 100-packet port with 2 strict queues. Droppable 1500 B
    // packets fill the port to 3000 B and the third is dropped; packets that are not droppable
    // still fill the buffer; a droppable one finds the port above the threshold and is dropped,
    // even into the higher-priority queue.
    let mut b = Bench::new();
    let mut s = spec(2);
    s.selective_drop = Some(Amount::Bytes(3000));
    let mut q = PortQueue::new(&s, Rate::gbps(10), None);
    let droppable = |b: &mut Bench, class: u8| {
        let id = b.pkt(1, 1500, class, Ecn::NotEct);
        b.slab.get_mut(id).droppable = true;
        id
    };
    let d: Vec<_> = (0..3).map(|_| droppable(&mut b, 1)).collect();
    assert_eq!(b.offer(&mut q, d[0]), OK);
    assert_eq!(b.offer(&mut q, d[1]), OK);
    assert_eq!(b.offer(&mut q, d[2]), Admit::Dropped, "4500 B would exceed 3000 B");
    for _ in 0..5 {
        let id = b.pkt(2, 1500, 1, Ecn::NotEct);
        assert_eq!(b.offer(&mut q, id), OK, "scheduled packets see the whole buffer");
    }
    let hi = droppable(&mut b, 0);
    assert_eq!(b.offer(&mut q, hi), Admit::Dropped);
    let st: Vec<_> = q.queues().iter().map(|x| (x.stats.drops, x.stats.selective_drops, x.stats.enqueued)).collect();
    assert_eq!(st, vec![(1, 1, 0), (1, 1, 7)]);
    // Drained below the threshold again, a droppable packet is admitted.
    for _ in 0..6 {
        b.pop(&mut q).unwrap();
    }
    assert_eq!(q.len_bytes(), 1500);
    let again = droppable(&mut b, 0);
    assert_eq!(b.offer(&mut q, again), OK);
    // Without the policy the flag means nothing.
    let mut plain = PortQueue::new(&spec(2), Rate::gbps(10), None);
    for _ in 0..4 {
        let id = droppable(&mut b, 1);
        assert_eq!(b.offer(&mut plain, id), OK);
    }
}

#[test]
fn a_device_queue_holds_packets_below_red_and_its_limit() {
    // RED as step marking at 2 (min = max = 2, w = 1, not gentle: every arrival finding at least
    // 2 in the discipline is marked), a 4-packet buffer, and a 3-packet device queue below (ns-3's
    // queue disc over a NetDevice queue). Arrivals 0..2 go down to the device, finding the
    // discipline empty; 3 and 4 find 0 and 1 there; 5 and 6 find 2 and 3 (marked); 7 finds the
    // buffer full (4 + 1 > 4) and is dropped. The port holds 3 + 4 = 7.
    let mut s = QueueSpec::fifo(Some(Amount::Packets(4)));
    s.marking = Marking::Red(RedSpec { weight: 1.0, gentle: false, ..RedSpec::new(Amount::Packets(2), Amount::Packets(2)) });
    s.device_queue = Some(3);
    let mut b = Bench::new();
    let mut q = PortQueue::new(&s, Rate(10_000_000_000), None);
    let ids: Vec<_> = (0..8).map(|_| b.pkt(0, 1500, 0, Ecn::Ect0)).collect();
    let got: Vec<Admit> = ids.iter().map(|&id| b.offer(&mut q, id)).collect();
    let mark = Admit::Enqueued { marked: true, trimmed: false };
    assert_eq!(got, vec![OK, OK, OK, OK, OK, mark, mark, Admit::Dropped]);
    assert_eq!((q.len_packets(), q.len_bytes()), (7, 7 * 1500));
    assert_eq!(q.queues()[0].len_packets(), 4, "the discipline's own queue");
    // The transmitter takes 0 from the device; 3 moves down, so a new arrival finds 3 above the
    // device (marked) and fits (3 + 1 <= 4).
    assert_eq!(b.pop(&mut q), Some(ids[0]));
    assert_eq!(q.queues()[0].len_packets(), 3);
    let late = b.pkt(0, 1500, 0, Ecn::Ect0);
    assert_eq!(b.offer(&mut q, late), mark);
    // First in, first out through both stages.
    let order: Vec<_> = std::iter::from_fn(|| b.pop(&mut q)).collect();
    assert_eq!(order, [&ids[1..7], &[late]].concat());
    assert_eq!(q.len_packets(), 0);
    // Without the device queue the same arrivals find 0, 1, 2 (marked), 3 (marked), then a full
    // buffer.
    s.device_queue = None;
    let mut q = PortQueue::new(&s, Rate(10_000_000_000), None);
    let got: Vec<Admit> = (0..5).map(|_| { let id = b.pkt(0, 1500, 0, Ecn::Ect0); b.offer(&mut q, id) }).collect();
    assert_eq!(got, vec![OK, OK, mark, mark, Admit::Dropped]);
}

#[test]
fn a_device_queue_under_step_marking_moves_marks_not_departures() {
    // Per-queue step marking at K = 1 over a 2-packet device queue: the discipline sees the
    // occupancy minus 2. Six arrivals find 0..5 waiting in all, 0, 0, 0, 1, 2, 3 in the
    // discipline: the last two are marked (above 1), not the last four. Dequeue marking at K = 0
    // marks a packet leaving the discipline for the device with another still behind it.
    let mut b = Bench::new();
    let mut s = QueueSpec::ecn(Some(Amount::Packets(100)), Amount::Packets(1));
    s.device_queue = Some(2);
    let mut q = PortQueue::new(&s, Rate(1), None);
    let marks: Vec<bool> = (0..6).map(|_| { let id = b.pkt(0, 1500, 0, Ecn::Ect0); b.offer(&mut q, id) != OK }).collect();
    assert_eq!(marks, vec![false, false, false, false, true, true]);
    s.marking = Marking::Threshold { queue: [Some(Amount::Packets(0)); MAX_QUEUES], port: [None; MAX_QUEUES], at: MarkAt::Dequeue };
    let mut q = PortQueue::new(&s, Rate(1), None);
    for _ in 0..5 {
        let id = b.pkt(0, 1500, 0, Ecn::Ect0);
        assert_eq!(b.offer(&mut q, id), OK);
    }
    // 0 and 1 went down with nothing behind them; popping 0 moves 2 down leaving 3 and 4 (marked),
    // popping 1 moves 3 leaving 4 (marked), popping 2 moves 4 leaving nothing.
    let ce: Vec<bool> = (0..5).map(|_| b.pop(&mut q).map(|id| b.slab.get(id).ecn == Ecn::Ce).unwrap()).collect();
    assert_eq!(ce, vec![false, false, true, true, false]);
}

#[test]
fn random_drop_band_is_htsims_q8_randomqueue() {
    // htsim's -q 8 with 4000 B packets: RandomQueue drops an arrival when the queue (the packet on
    // the wire included) plus the arrival exceeds 32,000 B, and with probability 0.1 when it
    // exceeds 32,000 - 3 x 4000 = 20,000 B. Counting waiting packets only (the wire's 4000 B
    // off): buffer 28,000 B, band above 16,000 B. So arrivals finding 0-3 packets waiting
    // (totals 4,000-16,000 B) always enter, finding 4-6 (20,000-28,000 B) enter unless the
    // port's stream draws below 0.1, finding 7 never do.
    let mut b = Bench::new();
    let mut s = QueueSpec::fifo(Some(Amount::Bytes(28_000)));
    s.random_drop = Some(RandomDrop { above: Amount::Bytes(16_000), probability: 0.1 });
    let mut q = PortQueue::new(&s, Rate::gbps(100), None);
    let mut shadow = b.rng.clone();
    let (mut in_band, mut band_drops, mut full_drops) = (0u64, 0u64, 0u64);
    for round in 0..400u32 {
        // Nine arrivals, then drain.
        for n in 0..9 {
            let waiting = q.len_packets();
            let id = b.pkt(round, 4000, 0, Ecn::NotEct);
            let got = b.offer(&mut q, id);
            let want = match waiting {
                0..=3 => OK,
                4..=6 => {
                    in_band += 1;
                    if shadow.uniform() < 0.1 {
                        band_drops += 1;
                        Admit::Dropped
                    } else {
                        OK
                    }
                }
                _ => {
                    full_drops += 1;
                    Admit::Dropped
                }
            };
            assert_eq!(got, want, "round {round}, arrival {n}, {waiting} waiting");
        }
        while b.pop(&mut q).is_some() {}
    }
    assert!(in_band > 1000 && full_drops > 0, "{in_band} {full_drops}");
    assert!((band_drops as f64 / in_band as f64 - 0.1).abs() < 0.03, "{band_drops} of {in_band}");
    assert_eq!(q.queues()[0].stats.drops, band_drops + full_drops);
}

#[test]
fn flow_round_robin_takes_the_next_flow_after_the_last_served() {
    // Flows A = 0, B = 1, C = 2 queued A1 A2 B1 C1 A3 B2 leave A1 B1 C1 A2 B2 A3: each round one
    // packet of every waiting flow in flow-number order, each flow's own packets oldest first.
    let mut b = Bench::new();
    let mut s = spec(1);
    s.order = Order::FlowRr;
    let mut q = PortQueue::new(&s, Rate(1), None);
    assert!(!q.counted_by_port(), "off the single-FIFO fast path");
    let order = [(0, "A1"), (0, "A2"), (1, "B1"), (2, "C1"), (0, "A3"), (1, "B2")];
    let mut names = std::collections::HashMap::new();
    for (f, name) in order {
        let id = b.pkt(f, 1500, 0, Ecn::NotEct);
        names.insert(id, name);
        assert_eq!(b.offer(&mut q, id), OK);
    }
    let out: Vec<&str> = (0..6).map(|_| names[&b.pop(&mut q).unwrap()]).collect();
    assert_eq!(out, ["A1", "B1", "C1", "A2", "B2", "A3"]);
    assert!(b.pop(&mut q).is_none());

    // The cursor survives an empty queue: after B was served, C (2) goes before A (0) and B (1),
    // although it arrived last; then the cycle starts over at A.
    let (a, bb, c) = (b.pkt(0, 100, 0, Ecn::NotEct), b.pkt(1, 100, 0, Ecn::NotEct), b.pkt(2, 100, 0, Ecn::NotEct));
    let x = b.pkt(1, 100, 0, Ecn::NotEct);
    b.offer(&mut q, x);
    assert_eq!(b.pop(&mut q), Some(x), "last served: flow 1");
    for id in [a, bb, c] {
        b.offer(&mut q, id);
    }
    assert_eq!([b.pop(&mut q), b.pop(&mut q), b.pop(&mut q)], [Some(c), Some(a), Some(bb)]);

    // A packet that finds the transmitter idle is served too (htsim dequeues it): flow 0's
    // passed, so flow 1's waiting packet goes before flow 0's next.
    let mut q = PortQueue::new(&s, Rate(1), None);
    let (a1, a2, b1) = (b.pkt(0, 100, 0, Ecn::NotEct), b.pkt(0, 100, 0, Ecn::NotEct), b.pkt(1, 100, 0, Ecn::NotEct));
    q.passed(a1, 0, FlowId(0));
    b.offer(&mut q, a2);
    b.offer(&mut q, b1);
    assert_eq!([b.pop(&mut q), b.pop(&mut q)], [Some(b1), Some(a2)]);
}

#[test]
fn flow_round_robin_keeps_a_cursor_per_queue() {
    // Two strict queues (ACKs in 0 ahead of data in 1, htsim's FairPriorityQueue): serving queue
    // 0's flow 5 does not move queue 1's cursor, which served flow 1 and goes on to flow 3.
    let mut b = Bench::new();
    let mut s = spec(2);
    s.order = Order::FlowRr;
    let mut q = PortQueue::new(&s, Rate(1), None);
    let d1 = b.pkt(1, 1500, 1, Ecn::NotEct);
    b.offer(&mut q, d1);
    assert_eq!(b.pop(&mut q), Some(d1));
    let (d0, d3, ack) = (b.pkt(0, 1500, 1, Ecn::NotEct), b.pkt(3, 1500, 1, Ecn::NotEct), b.pkt(5, 40, 0, Ecn::NotEct));
    for id in [d0, d3, ack] {
        b.offer(&mut q, id);
    }
    assert_eq!([b.pop(&mut q), b.pop(&mut q), b.pop(&mut q)], [Some(ack), Some(d3), Some(d0)]);
}

#[test]
fn end_of_service_marking_counts_the_packet_and_what_arrived_meanwhile() {
    // K = 2 packets. P1 finds the port idle and goes straight out; P2 and P3 arrive during its
    // service: at its end the queue holds 3 with P1 (> 2: marked). P2 starts, leaving P3; P4
    // arrives: at P2's end 3 again (marked), though at its start it left only 1 behind (dequeue
    // marking would not have marked it). P3 ends with P4 waiting: 2, not above K. P4 ends alone: 1.
    // htsim's ECNQueue::completeService (its queue holds the packet in service until it ends).
    let mut b = Bench::new();
    let mut s = QueueSpec::ecn(Some(Amount::Packets(100)), Amount::Packets(2));
    s.marking = Marking::Threshold { queue: [Some(Amount::Packets(2)); MAX_QUEUES], port: [None; MAX_QUEUES], at: MarkAt::End };
    let mut q = PortQueue::new(&s, Rate(1), None);
    assert!(q.marks_at_end());
    let p: Vec<_> = (0..4).map(|_| b.pkt(0, 1500, 0, Ecn::Ect0)).collect();
    let ce = |b: &Bench, id| b.slab.get(id).ecn == Ecn::Ce;
    q.passed(p[0], 0, FlowId(0));
    assert_eq!(b.offer(&mut q, p[1]), OK, "no mark on enqueue");
    assert_eq!(b.offer(&mut q, p[2]), OK);
    assert!(q.end_service(&mut b.slab) && ce(&b, p[0]));
    assert_eq!(b.pop(&mut q), Some(p[1]));
    assert!(!ce(&b, p[1]), "no mark as it starts");
    b.offer(&mut q, p[3]);
    assert!(q.end_service(&mut b.slab) && ce(&b, p[1]));
    assert_eq!(b.pop(&mut q), Some(p[2]));
    assert!(!q.end_service(&mut b.slab) && !ce(&b, p[2]));
    assert_eq!(b.pop(&mut q), Some(p[3]));
    assert!(!q.end_service(&mut b.slab) && !ce(&b, p[3]));
    assert!(!q.end_service(&mut b.slab), "nothing in service");
    assert_eq!(q.queues()[0].stats.marks, 2);

    // Not ECN-capable: never marked. Lost on the wire: nothing to mark at its end.
    let mut q = PortQueue::new(&s, Rate(1), None);
    let n: Vec<_> = (0..3).map(|_| b.pkt(0, 1500, 0, Ecn::NotEct)).collect();
    q.passed(n[0], 0, FlowId(0));
    b.offer(&mut q, n[1]);
    b.offer(&mut q, n[2]);
    assert!(!q.end_service(&mut b.slab) && b.slab.get(n[0]).ecn == Ecn::NotEct);
    let e = b.pkt(0, 1500, 0, Ecn::Ect0);
    b.offer(&mut q, e);
    assert_eq!(b.pop(&mut q), Some(n[1]));
    q.lost_in_service();
    assert!(!q.end_service(&mut b.slab));
}

#[test]
fn end_of_service_marking_in_bytes_counts_the_departing_packet() {
    // K = 2000 B: a 1500 B packet ending with one 600 B packet waiting is 2100 B (marked); with a
    // 400 B one, 1900 B (not).
    let mut b = Bench::new();
    let mut s = QueueSpec::ecn(Some(Amount::Packets(100)), Amount::Bytes(2000));
    s.marking = Marking::Threshold { queue: [Some(Amount::Bytes(2000)); MAX_QUEUES], port: [None; MAX_QUEUES], at: MarkAt::End };
    for (waiting, marked) in [(600, true), (400, false)] {
        let mut q = PortQueue::new(&s, Rate(1), None);
        let (big, small) = (b.pkt(0, 1500, 0, Ecn::Ect0), b.pkt(0, waiting, 0, Ecn::Ect0));
        q.passed(big, 0, FlowId(0));
        b.offer(&mut q, small);
        assert_eq!(q.end_service(&mut b.slab), marked, "{waiting} B waiting");
    }
}

#[test]
fn a_multi_queue_entry_carries_what_the_transmission_needs() {
    // The transmitter sends from the queue entry without reading the packet (`Queued`): the entry
    // must hold the packet's size as it leaves (a 64 B header after trimming), its path position
    // at the next node as given at enqueue, and its telemetry request. Two WRR queues (10:1),
    // trimming, a 1-packet data queue; packets 0, 1, 2 (9000 B, positions 7, 8, 9, packet 0 with
    // telemetry). Without a device queue: 0 waits in the data queue, 1 and 2 are cut to headers
    // in queue 0, which is served first: 1, 2, 0. With a 1-packet device queue below the
    // discipline: 0 goes down to the device at once, 1 fits the data queue, 2 is cut; the device
    // sends 0, then the discipline refills it with 2 (queue 0 first), then 1.
    use crate::packet::Int;
    for device in [None, Some(1)] {
        let mut b = Bench::new();
        let mut s = spec(2);
        s.class_map = [1; CLASSES];
        s.queue_limits[1] = Some(Amount::Packets(1));
        s.sched = Sched::Wrr { weights: [10, 1, 0, 0, 0, 0, 0, 0] };
        s.admission = Admission::Trim { header_bytes: 64, return_to_sender: false, tail_percent: 0 };
        s.device_queue = device;
        let mut q = PortQueue::new(&s, Rate(1), None);
        let ids: Vec<PacketId> = (0..3).map(|i| b.pkt(i, 9000, 0, Ecn::NotEct)).collect();
        b.slab.get_mut(ids[0]).int = Int::Collect;
        let mut env = Env { slab: &mut b.slab, pools: &mut b.pools, rng: &mut b.rng, now: Time::ZERO, victims: &mut b.victims };
        for (i, &id) in ids.iter().enumerate() {
            assert!(matches!(q.offer_at(id, PathPos::at(7 + i as u32), &mut env), Admit::Enqueued { .. }));
        }
        let got: Vec<Queued> = std::iter::from_fn(|| q.pop(&mut env).map(|(e, _)| e)).collect();
        let e = |i: usize, size: u32| Queued { id: ids[i], size, next: PathPos::at(7 + i as u32), int: if i == 0 { Int::Collect } else { Int::Off } };
        let want = match device {
            None => vec![e(1, 64), e(2, 64), e(0, 9000)],
            Some(_) => vec![e(0, 9000), e(2, 64), e(1, 9000)],
        };
        assert_eq!(got, want, "device queue {device:?}");
        for w in &want {
            assert_eq!(b.slab.get(w.id).size, w.size, "the entry's size is the packet's");
        }
        assert!(q.is_empty() && q.len_bytes() == 0);
    }
}

#[test]
fn a_multi_queue_port_predicts_a_waiter_from_its_last_transmission() {
    // Transmissions in turn: the first (nothing waited before) schedules no early transmit-done;
    // a packet comes to wait behind it, so the second does; nothing waits behind the second nor
    // at its start, so the third does not; the third starts with packets waiting, so the fourth
    // does. The simple port never predicts.
    let mut q = PortQueue::new(&spec(2), Rate(1), None);
    assert!(!q.predict_waiter(false));
    q.note_waiter();
    assert!(q.predict_waiter(false));
    assert!(!q.predict_waiter(true));
    assert!(q.predict_waiter(false));
    let mut f = PortQueue::fifo(Some(Amount::Packets(10)));
    f.note_waiter();
    assert!(!f.predict_waiter(true) && !f.predict_waiter(false));
}
