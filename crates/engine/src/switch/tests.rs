//! Scenario-level tests of the switch pipeline's disciplines, pinned to hand-computed timelines
//! and closed forms.

use crate::sim::testing::{run, tcp};
use crate::{Scenario, Simulator, Time};

/// A star of `hosts` at 10 Gb/s, 1 µs wires; `queue` lines for the switch ports, `rest` after.
fn star(hosts: usize, end: &str, queue: &str, rest: &str) -> String {
    format!(
        "[simulation]\nend = \"{end}\"\n[topology]\nkind = \"star\"\nhosts = {hosts}\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
         [queue]\n{queue}\n[transport]\nmss = 1448\nheader = 52\n{rest}"
    )
}

#[test]
fn strict_priority_gives_the_low_class_nothing_while_the_high_class_is_backlogged() {
    // h1 (class 1, 5 segments) and h2 (class 0, 20 segments, initial window 20) send to h0 at
    // t = 0; 1500 B take 1.2 µs per 10 Gb/s hop. Both first packets reach s0 at 2.2 µs; h1's
    // (its wire h1->s0 is the lower port, first in the tie order) finds s0->h0 idle and goes out. From then on the high queue is
    // never empty until H20 leaves (H_k arrives at 2.2 + 1.2(k−1) µs, starts at 3.4 + 1.2(k−1)):
    // H_k reaches h0 at 5.6 + 1.2(k−1) µs — H20 at 28.4 µs — and L2 only starts at 27.4 µs,
    // reaching h0 at 29.6 µs, L5 at 33.2 µs.
    let flows = "[transports.lo]\nclass = 1\n[transports.hi]\nclass = 0\n\
        [[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = 7240\ntransport = \"lo\"\n\
        [[flows]]\nsrc = \"h2\"\ndst = \"h0\"\nsize = 28960\ntransport = \"hi\"\n";
    let doc = star(3, "1ms", "buffer = \"100pkt\"\nqueues = 2", &format!("initial_cwnd = 20\n{flows}"));
    let sc = Scenario::from_toml(&doc).unwrap();
    let mut sim = Simulator::new(&sc, None);
    sim.keep_finished = true; // the test reads finished connections
    let at = |sim: &mut Simulator, ps: u64| {
        sim.run_until(Time::from_ps(ps));
        (tcp(sim, 0).receiver.delivered(), tcp(sim, 1).receiver.delivered())
    };
    assert_eq!(at(&mut sim, 4_400_000), (1448, 0), "L1 first");
    assert_eq!(at(&mut sim, 5_600_000 - 1), (1448, 0));
    assert_eq!(at(&mut sim, 5_600_000), (1448, 1448));
    assert_eq!(at(&mut sim, 28_400_000 - 1), (1448, 19 * 1448), "all the while, the low class got nothing");
    assert_eq!(at(&mut sim, 28_400_000), (1448, 20 * 1448));
    assert_eq!(at(&mut sim, 29_600_000 - 1), (1448, 20 * 1448));
    assert_eq!(at(&mut sim, 29_600_000), (2 * 1448, 20 * 1448));
    assert_eq!(at(&mut sim, 33_200_000), (5 * 1448, 20 * 1448));
    sim.run();
    assert!(sim.conservation().holds());
    // One FIFO for comparison: the two senders interleave, L2 leaves long before H20.
    let fifo = Scenario::from_toml(&star(3, "1ms", "buffer = \"100pkt\"", &format!("initial_cwnd = 20\n{flows}"))).unwrap();
    let mut sim = Simulator::new(&fifo, None);
    assert!(at(&mut sim, 10_000_000).0 >= 2 * 1448);
}

/// Two long-lived flows, h1 in class 1 and h2 in class 0, into h0 through DRR 3:1; receive
/// windows of 500 KB keep both queues backlogged without loss in the 2000-packet buffer.
fn drr_3_to_1(end: &str, rest: &str) -> String {
    star(
        3,
        end,
        "buffer = \"2000pkt\"\nqueues = 2\nscheduler = \"drr\"\nweights = [3, 1]",
        &format!(
            "rcv_buffer = \"500KB\"\n[transports.lo]\nclass = 1\n[transports.hi]\nclass = 0\n\
             [[flows]]\nsrc = \"h1\"\ndst = \"h0\"\ntransport = \"lo\"\n[[flows]]\nsrc = \"h2\"\ndst = \"h0\"\ntransport = \"hi\"\n{rest}"
        ),
    )
}

#[test]
fn drr_shares_the_bottleneck_by_weight() {
    // Two long-lived flows in classes 0 and 1 through DRR 3:1; receive windows keep both queues
    // backlogged without loss (500 KB each < the 2000-packet buffer), so bytes split 3:1.
    let doc = drr_3_to_1("20ms", "");
    let sc = Scenario::from_toml(&doc).unwrap();
    let mut sim = Simulator::new(&sc, None);
    sim.run_until(Time::from_ms(2));
    let (lo0, hi0) = (tcp(&sim, 0).receiver.delivered(), tcp(&sim, 1).receiver.delivered());
    sim.run();
    let (lo, hi) = (tcp(&sim, 0).receiver.delivered() - lo0, tcp(&sim, 1).receiver.delivered() - hi0);
    let ratio = hi as f64 / lo as f64;
    assert!((ratio - 3.0).abs() < 0.03, "hi/lo = {ratio} ({hi} / {lo})");
    let t = sim.port_table();
    let p = t.find("s0->h0").unwrap();
    assert_eq!(t.drops[p], 0);
    assert!(t.utilization[p] > 0.99);
}

#[test]
fn pfabric_lets_a_short_flow_finish_as_if_alone() {
    // Two 1 MB flows (h1, h3) overload s0->h0 from t = 0 with 100-segment windows into a
    // 24-packet pFabric port; a 10 KB flow (h2) starts at 100 µs. Ranks are remaining bytes, so the short
    // flow's packets go first and the long flow's are the ones dropped: its FCT is its FCT alone
    // plus at most one 1500 B serialization (the packet on the wire when each arrives: 1.2 µs).
    let q = "buffer = \"24pkt\"\nadmission = \"pfabric\"";
    let t = "rank = \"remaining\"\ninitial_cwnd = 100\nmin_rto = \"200us\"\ninitial_rto = \"1ms\"\n";
    let both = star(4, "50ms", q, &format!("{t}[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = \"1MB\"\n[[flows]]\nsrc = \"h2\"\ndst = \"h0\"\nsize = \"10KB\"\nstart = \"100us\"\n[[flows]]\nsrc = \"h3\"\ndst = \"h0\"\nsize = \"1MB\"\n"));
    let alone = star(4, "50ms", q, &format!("{t}[[flows]]\nsrc = \"h2\"\ndst = \"h0\"\nsize = \"10KB\"\nstart = \"100us\"\n"));
    let (b, a) = (run(&both).flow_table(), run(&alone).flow_table());
    let (with, without) = (b.fct_ps[1].unwrap(), a.fct_ps[0].unwrap());
    assert!(with >= without && with - without <= 1_200_000, "short flow FCT {with} ps vs {without} ps alone");
    assert!(b.fct_ps[0].is_some() && b.fct_ps[2].is_some(), "the long flows finish too");
    // In a drop-tail FIFO deep enough for the long flows' windows, the short flow waits behind
    // their queue.
    let fifo = run(&both.replace(q, "buffer = \"1000pkt\"")).flow_table();
    assert!(fifo.fct_ps[1].unwrap() > without + 10 * 1_200_000);
}

#[test]
fn an_incast_into_a_trimming_queue_turns_overflow_into_headers() {
    // 8 senders × 30 segments at once into an 8-packet data queue; overflowing data becomes
    // 64 B headers in queue 0 (WRR 10:1 over headers and data). Every data packet sent is
    // either received whole, received trimmed, or counted as dropped at the port.
    let q = "queues = 2\nclasses = [1]\nqueue_buffer = [\"1000pkt\", \"8pkt\"]\nbuffer = \"2000pkt\"\nadmission = \"trim\"\nscheduler = \"wrr\"\nweights = [10, 1]";
    let flows: String = (1..=8).map(|i| format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h0\"\nsize = {}\n", 30 * 1448)).collect();
    let doc = star(9, "100ms", q, &format!("initial_cwnd = 30\nmin_rto = \"1ms\"\ninitial_rto = \"1ms\"\n{flows}"));
    let mut sim = run(&doc);
    let t = sim.flow_table();
    assert!(t.fct_ps.iter().all(|f| f.is_some()), "every flow completes");
    let pt = sim.port_table();
    let p = pt.find("s0->h0").unwrap();
    let sent: u64 = t.segments_sent.iter().sum();
    let (whole, trimmed): (u64, u64) = (0..8).map(|i| (tcp(&sim, i).receiver.data_packets, tcp(&sim, i).receiver.trimmed)).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    assert!(pt.trims[p] > 100, "trims {}", pt.trims[p]);
    assert_eq!(trimmed, pt.trims[p], "every trimmed packet reached the receiver as a header");
    assert_eq!(sent, whole + trimmed + pt.drops[p], "no data packet lost unaccounted");
    assert_eq!(pt.drops[p], 0, "the header queue never overflowed");
}

#[test]
fn telemetry_holds_the_queue_each_hop_had() {
    // h0 - s0 - s1 - h1: 10 Gb/s host links, a 1 Gb/s s0->s1 (1500 B = 12 µs), 1 µs wires. Ten
    // data packets leave h0 back to back (initial window 10): packet k (1-based) leaves h0's NIC
    // at 1.2(k−1) µs with 10 − k waiting, reaches s0 at 2.2 + 1.2(k−1) and leaves s0->s1 at
    // 2.2 + 12(k−1) µs: k = 1 finds nothing behind it (k = 2 arrives at 3.4), later ones leave
    // 10 − k behind (all ten have arrived by 13.0 µs) after 1500(k−1) B sent; s1->h1 is idle
    // for each; packet k reaches h1 at 17.4 + 12(k−1) µs.
    let doc = "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"explicit\"\nswitches = [\"s0\", \"s1\"]\nhosts = [\"h0\", \"h1\"]\n\
        [[topology.links]]\na = \"h0\"\nb = \"s0\"\nrate = \"10Gbps\"\ndelay = \"1us\"\n\
        [[topology.links]]\na = \"s0\"\nb = \"s1\"\nrate = \"1Gbps\"\ndelay = \"1us\"\n\
        [[topology.links]]\na = \"s1\"\nb = \"h1\"\nrate = \"10Gbps\"\ndelay = \"1us\"\n\
        [transport]\nmss = 1448\nheader = 52\ntelemetry = true\ndelayed_ack = 1\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = 14480\n";
    let sc = Scenario::from_toml(doc).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&sc, None);
    for k in 1..=10u64 {
        sim.run_until(Time::from_ps(17_400_000 + 12_000_000 * (k - 1)));
        let rec = *tcp(&sim, 0).receiver.int_last.as_deref().unwrap_or_else(|| panic!("packet {k}: no telemetry"));
        let h = rec.hops();
        assert_eq!(h.len(), 3);
        let names: Vec<&str> = h.iter().map(|x| sim.fabric.net.ports[x.port.idx()].name.as_str()).collect();
        assert_eq!(names, ["h0->s0", "s0->s1", "s1->h1"]);
        assert_eq!(h[0].time, Time::from_ps(1_200_000 * (k - 1)));
        // Packet 1 leaves before the rest of the window is queued behind it.
        assert_eq!(h[0].queue_bytes, if k == 1 { 0 } else { (10 - k) * 1500 }, "packet {k} at h0's NIC");
        assert_eq!(h[1].time, Time::from_ps(2_200_000 + 12_000_000 * (k - 1)));
        assert_eq!(h[1].queue_bytes, if k == 1 { 0 } else { (10 - k) * 1500 }, "packet {k} at s0->s1");
        assert_eq!(h[1].tx_bytes, 1500 * (k - 1));
        assert_eq!(h[1].rate.bps(), 1_000_000_000);
        assert_eq!(h[2].queue_bytes, 0);
    }
}

#[test]
fn per_queue_series_and_table_add_up_to_the_port() {
    // The DRR case, sampled: each queue's length is recorded, and the queues always sum to the
    // port's; the queues table's admissions add up to what the port sent plus what waits.
    let doc = drr_3_to_1("3ms", "[output]\nqueues = [\"s0->h0\"]\nsample_interval = \"100us\"\n");
    let mut sim = run(&doc);
    let s = &sim.series;
    let at = |m: crate::output::Metric, name: &str| -> Vec<f64> {
        (0..s.time_ps.len()).filter(|&i| s.metric[i] == m && sim.series_target(i) == name).map(|i| s.value[i]).collect()
    };
    use crate::output::Metric::*;
    let (total, q0, q1) = (at(QueuePackets, "s0->h0"), at(ClassQueuePackets, "s0->h0#0"), at(ClassQueuePackets, "s0->h0#1"));
    assert_eq!(total.len(), 31);
    assert_eq!((q0.len(), q1.len()), (31, 31));
    assert!(q0.iter().zip(&q1).zip(&total).all(|((a, b), t)| a + b == *t));
    assert!(q0.iter().any(|&v| v > 0.0) && q1.iter().any(|&v| v > 0.0));
    let qt = sim.queue_table();
    let pt = sim.port_table();
    let p = pt.find("s0->h0").unwrap();
    let rows: Vec<usize> = (0..qt.port.len()).filter(|&i| qt.port[i] == "s0->h0").collect();
    assert_eq!(rows.len(), 2);
    assert_eq!((qt.classes[rows[0]].as_str(), qt.classes[rows[1]].as_str()), ("0", "1,2,3,4,5,6,7"));
    let waiting = sim.fabric.net.ports[sim.fabric.net.port_by_name("s0->h0").unwrap().idx()].queue.len_packets();
    assert_eq!(qt.enqueued[rows[0]] + qt.enqueued[rows[1]], pt.tx_packets[p] + waiting);
    // A single-FIFO port (a host NIC) reports its one queue from the port's own counters.
    let h = (0..qt.port.len()).find(|&i| qt.port[i] == "h1->s0").unwrap();
    let ph = pt.find("h1->s0").unwrap();
    assert!(pt.tx_packets[ph] > 300, "{}", pt.tx_packets[ph]);
    assert_eq!((qt.enqueued[h], qt.max_packets[h]), (pt.tx_packets[ph], pt.max_queue_packets[ph]));
}

#[test]
fn transmit_done_events_only_where_needed_and_flow_paths_change_no_result() {
    // A port schedules `TxDone` only when packets wait behind its transmission (or a host sender
    // waits for its NIC). Against one `TxDone` per packet, on scenarios that exercise every
    // discipline and transport: the same flows, ports and queues to the bit, fewer events.
    // Likewise per-flow paths (`paths::FlowPaths`) against the routing table at every hop.
    let scenarios = [
        include_str!("../../../../scenarios/leafspine-websearch.toml"),
        include_str!("../../../../scenarios/flash-mixed.toml"),
        include_str!("../../../../scenarios/incast.toml"),
        include_str!("../../../../scenarios/ndp-permutation-k8.toml"),
        include_str!("../../../../scenarios/star-websearch.toml"),
        include_str!("../../../../scenarios/dumbbell-cc.toml"),
        include_str!("../../../../scenarios/rdcn-etalon.toml"),
        include_str!("../../../../python/fabricsim/benchmarks/rdcn-strobe.toml"),
    ];
    let mut extra = vec![
        star(4, "2ms", "buffer = \"20pkt\"\nqueues = 3\nscheduler = \"drr\"\nweights = [1, 2, 3]", "[transports.a]\nclass = 0\n[transports.b]\nclass = 1\n[transports.c]\nclass = 2\n[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\ntransport = \"a\"\n[[flows]]\nsrc = \"h2\"\ndst = \"h0\"\ntransport = \"b\"\n[[flows]]\nsrc = \"h3\"\ndst = \"h0\"\ntransport = \"c\"\n"),
        // Homa sends one packet at a time, waiting for its NIC to finish each (a watched port).
        "[simulation]\nend = \"1s\"\nstop_when_done = true\n[topology]\nkind = \"star\"\nhosts = 5\nlink = { rate = \"10Gbps\", delay = \"1us\" }\n\
         [queue]\nbuffer = \"30pkt\"\nqueues = 8\n[transport]\nkind = \"homa\"\n\
         [[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = 300000\n[[flows]]\nsrc = \"h2\"\ndst = \"h0\"\nsize = 100000\n\
         [[flows]]\nsrc = \"h3\"\ndst = \"h0\"\nsize = 200000\n[[flows]]\nsrc = \"h1\"\ndst = \"h4\"\nsize = 50000\n".to_string(),
        star(5, "3ms", "buffer = \"12pkt\"\nqueues = 8\nadmission = \"pfabric\"", "cc = \"pfabric\"\n[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = 50000\n[[flows]]\nsrc = \"h2\"\ndst = \"h0\"\nsize = 500000\n[[flows]]\nsrc = \"h3\"\ndst = \"h0\"\nsize = 20000\n[[flows]]\nsrc = \"h4\"\ndst = \"h0\"\nsize = 2000000\n"),
    ];
    extra.extend(scenarios.iter().map(|s| s.to_string()));
    // The segregating ToRs (AccelToR's calendar queue, Blocking's per-destination queues).
    let acceltor = include_str!("../../../../scenarios/acceltor-small.toml");
    extra.push(acceltor.to_string());
    extra.push(acceltor.replace("policy = \"acceltor\"", "policy = \"blocking\""));
    for (i, doc) in extra.iter().enumerate() {
        let mut sc = Scenario::from_toml(doc).unwrap_or_else(|e| panic!("scenario {i}: {e}"));
        sc.end = sc.end.min(Time::from_ps(3_000_000_000));
        let mut runs = [(true, true), (false, true), (false, false)].map(|(eager, paths)| {
            let mut sim = Simulator::new(&sc, None);
            sim.fabric.eager_tx_done = eager;
            if !paths {
                sim.fabric.paths = None;
            }
            sim.run();
            sim
        });
        let [a, b, c] = &mut runs;
        assert_eq!(format!("{:?}", b.flow_table()), format!("{:?}", c.flow_table()), "scenario {i}: flows, paths");
        assert_eq!(format!("{:?}", b.port_table()), format!("{:?}", c.port_table()), "scenario {i}: ports, paths");
        assert_eq!(b.summary().packet_hops, c.summary().packet_hops, "scenario {i}");
        assert_eq!(format!("{:?}", a.flow_table()), format!("{:?}", b.flow_table()), "scenario {i}: flows");
        assert_eq!(format!("{:?}", a.port_table()), format!("{:?}", b.port_table()), "scenario {i}: ports");
        assert_eq!(format!("{:?}", a.queue_table()), format!("{:?}", b.queue_table()), "scenario {i}: queues");
        let (sa, sb) = (a.summary(), b.summary());
        assert_eq!((sa.packet_hops, sa.packets_dropped, sa.end_ps), (sb.packet_hops, sb.packets_dropped, sb.end_ps), "scenario {i}");
        assert!(sb.events < sa.events, "scenario {i}: {} events with a TxDone per packet, {} without", sa.events, sb.events);
    }
}

// Host-egress shaping with offload bursts (`[host] egress_burst`, network/shaper.rs).

/// h0 -> h1 through s0 on 800 Gb/s links with `delay`; TCP with 8960 B segments in 9012 B
/// packets; `host` lines for `[host]`, `flow` the flow's extra lines.
fn shaped_star(delay: &str, host: &str, flow: &str) -> String {
    format!(
        "[simulation]\nend = \"50ms\"\n[topology]\nkind = \"star\"\nhosts = 2\nlink = {{ rate = \"800Gbps\", delay = \"{delay}\" }}\n\
         [transport]\nmss = 8960\nheader = 52\n[host]\n{host}\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n{flow}\n"
    )
}

/// Packets h0's port has put on its wire, and segments h1 has received, by `t` (ps).
fn shaped_at(sim: &mut Simulator, t: u64) -> (u64, u64) {
    sim.run_until(Time::from_ps(t));
    let p = sim.fabric.net.port_by_name("h0->s0").unwrap();
    (sim.fabric.net.ports[p.idx()].stats.tx_packets, tcp(sim, 0).receiver.delivered() / 8960)
}

#[test]
fn offload_bursts_leave_at_the_egress_rate_per_burst_and_back_to_back_at_the_link_rate() {
    // TCP's initial window hands 10 packets of 9012 B to h0's NIC at t = 0. 64 KB bursts hold 7
    // (63 084 B; 8 would be 72 096 B). Burst 1 is released at 7 × 9012 × 8 / 10e9 s =
    // 50.4672 µs, its packets start one 800 Gb/s serialization (9012 × 8 / 800e9 s = 90.12 ns)
    // apart; burst 2 (3 packets) forms at that release and is released at
    // (7 + 3) × 9012 × 8 / 10e9 s = 72.096 µs.
    let (r1, r2, ser, d) = (50_467_200u64, 72_096_000u64, 90_120u64, 1_000_000u64);
    assert_eq!((7 * 9012 * 8 * 100, 10 * 9012 * 8 * 100, 9012 * 8 * 1000 / 800), (r1, r2, ser), "ps at 10 and 800 Gb/s");
    let doc = shaped_star("1us", "egress_rate = \"10Gbps\"\negress_burst = \"64KB\"", "size = 89600");
    let mut sim = Simulator::new(&Scenario::from_toml(&doc).unwrap(), None);
    sim.keep_finished = true;
    assert_eq!(shaped_at(&mut sim, r1 - 1).0, 0, "nothing leaves before the release");
    for k in 0..7 {
        assert_eq!(shaped_at(&mut sim, r1 + k * ser).0, k + 1, "burst 1, packet {}", k + 1);
        if k < 6 {
            assert_eq!(shaped_at(&mut sim, r1 + (k + 1) * ser - 1).0, k + 1);
        }
    }
    assert_eq!(shaped_at(&mut sim, r2 - 1).0, 7, "burst 2 waits for its release");
    for k in 0..3 {
        assert_eq!(shaped_at(&mut sim, r2 + k * ser).0, 8 + k);
    }
    // Store-and-forward through s0, whose port to h1 is never busy when a packet arrives: packet
    // j of a burst released at r reaches h1 at r + (j + 2) × 90.12 ns + 2 µs.
    let mut sim = Simulator::new(&Scenario::from_toml(&doc).unwrap(), None);
    sim.keep_finished = true;
    for (r, first, n) in [(r1, 0, 7), (r2, 7, 3)] {
        for j in 0..n {
            let at = r + (j + 2) * ser + 2 * d;
            assert_eq!(shaped_at(&mut sim, at - 1).1, first + j, "packet {} just before", first + j + 1);
            assert_eq!(shaped_at(&mut sim, at).1, first + j + 1, "packet {} arrives", first + j + 1);
        }
    }
    sim.run();
    assert!(sim.conservation().holds());
}

#[test]
fn one_packet_bursts_are_per_packet_shaping_one_link_serialization_later() {
    // Plain egress_rate: h0's port serializes at 10 Gb/s, packet k (of 10 queued at t = 0) is
    // at s0 at k × 7.2096 µs + 1 µs and at h1 (800 Gb/s on) 90.12 ns + 1 µs later. With bursts
    // of one packet the shaper releases packet k at k × 7.2096 µs and the port then serializes
    // it at 800 Gb/s: every arrival exactly one 90.12 ns serialization later.
    let (ser10, ser, d) = (7_209_600u64, 90_120u64, 1_000_000u64);
    let plain = shaped_star("1us", "egress_rate = \"10Gbps\"", "size = 89600");
    let burst1 = shaped_star("1us", "egress_rate = \"10Gbps\"\negress_burst = \"1B\"", "size = 89600");
    let mut a = Simulator::new(&Scenario::from_toml(&plain).unwrap(), None);
    let mut b = Simulator::new(&Scenario::from_toml(&burst1).unwrap(), None);
    a.keep_finished = true;
    b.keep_finished = true;
    for k in 1..=10u64 {
        let at = k * ser10 + d + ser + d;
        assert_eq!(shaped_at(&mut a, at - 1).1, k - 1, "per packet: segment {k} just before");
        assert_eq!(shaped_at(&mut a, at).1, k, "per packet: segment {k}");
        assert_eq!(shaped_at(&mut b, at + ser - 1).1, k - 1, "1-packet bursts: segment {k} just before");
        assert_eq!(shaped_at(&mut b, at + ser).1, k, "1-packet bursts: segment {k}");
    }
}

#[test]
fn offload_bursts_carry_the_egress_rate_in_the_long_run_and_blocked_senders_keep_up() {
    // A long-lived flow keeps h0's NIC backlogged (it blocks at the NIC's send limit). Once it
    // is, burst k is released at t0 + C_k / 10 Gb/s (C_k: bytes of bursts 1..k), so by time t the
    // wire has carried 10 Gb/s × (t − t0) less at most the burst due next and the part of the
    // last one still to start: over 20 ms, 25 000 000 B within two bursts (128 000 B), whatever
    // the send limit (with 3 packets the bursts are smaller, the rate the same).
    for send_limit in ["100pkt", "3pkt"] {
        let doc = shaped_star("1us", "egress_rate = \"10Gbps\"\negress_burst = \"64KB\"", "")
            .replace("[host]", &format!("[host_queue]\nsend_limit = \"{send_limit}\"\n[host]"));
        let mut sim = Simulator::new(&Scenario::from_toml(&doc).unwrap(), None);
        let p = sim.fabric.net.port_by_name("h0->s0").unwrap();
        let bytes = |sim: &mut Simulator, ms: u64| {
            sim.run_until(Time::from_ms(ms));
            sim.fabric.net.ports[p.idx()].stats.tx_bytes as i64
        };
        let b1 = bytes(&mut sim, 2);
        let b2 = bytes(&mut sim, 22);
        assert!((b2 - b1 - 25_000_000).abs() <= 128_000, "send limit {send_limit}: {} B in 20 ms", b2 - b1);
        let limit = if send_limit == "3pkt" { 3 } else { 100 };
        assert!(sim.fabric.nic_queued(p) <= limit, "the NIC holds at most the send limit");
    }
}

#[test]
fn offload_bursts_in_a_hybrid_network_keep_each_host_under_its_egress_rate() {
    // Etalon's host path with 64 KB bursts, 4 CUBIC flows rack 0 -> rack 1 under time dilation
    // (debug assertions check the shapers' counts on every release). No host can have put more
    // than 10 Gb/s × t plus one burst on its wire by t, and packets are conserved.
    let doc = r#"
[simulation]
end = "5ms"
[topology]
kind = "rdcn"
racks = 2
hosts_per_rack = 4
host_link = { rate = "800Gbps", delay = "0us" }
packet_link = { rate = "10Gbps", delay = "5us" }
circuit_link = { rate = "80Gbps", delay = "30us" }
[circuit]
schedule = "strobe"
day = "180us"
night = "20us"
[tor]
policy = "etalon"
voq = "16pkt"
[host]
stack = "linux-4.15"
time_dilation = 20
egress_rate = "10Gbps"
egress_burst = "64KB"
[transport]
cc = "cubic"
mss = 8960
[[flows]]
src = "h0"
dst = "h4"
[[flows]]
src = "h1"
dst = "h5"
[[flows]]
src = "h2"
dst = "h6"
[[flows]]
src = "h3"
dst = "h7"
"#;
    let sim = run(doc);
    let mut busiest = 0;
    for p in sim.fabric.net.ports.iter().filter(|p| p.shaped) {
        assert!(p.stats.tx_bytes <= 10_000_000_000 / 8 * 5 / 1000 + 64_000, "{}: {} B in 5 ms", p.name, p.stats.tx_bytes);
        busiest = busiest.max(p.stats.tx_bytes);
    }
    assert!(busiest > 1_000_000, "the senders did send ({busiest} B)");
}

#[test]
fn a_device_queue_delays_marks_but_not_packets() {
    // h1 and h2 each send one 10-segment window to h0 at t = 0 (10 Gb/s, 1 µs wires: 1500 B in
    // 1.2 µs). Segment k of each reaches s0 at 2.2 + 1.2(k−1) µs; h1's first finds s0->h0 idle.
    // At each later instant the two arrivals come before the transmitter frees (tie order), so
    // before instant k ≥ 2 k − 1 packets wait: h1's k-th finds k − 1, h2's k-th finds k (h2's
    // first: 0). Step marking above K = 2 marks h2's 3rd and both 4th..10th: 15. With a 4-packet
    // device queue below the discipline, it sees 4 fewer: above 2 means 7 or more in all, h1's
    // 8th..10th and h2's 7th..10th: 7. The order of departures is the same FIFO, so every
    // segment arrives when it did without the device queue.
    let flows = "initial_cwnd = 10\ncc = \"dctcp\"\n[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = 14480\n[[flows]]\nsrc = \"h2\"\ndst = \"h0\"\nsize = 14480\n";
    let marks_and_fcts = |queue: &str| {
        let mut sim = run(&star(3, "1ms", &format!("buffer = \"100pkt\"\ndiscipline = \"ecn\"\necn_threshold = \"2pkt\"\n{queue}"), flows));
        let pt = sim.port_table();
        let p = pt.find("s0->h0").unwrap();
        (pt.ecn_marks[p], pt.max_queue_packets[p], sim.flow_table().fct_ps)
    };
    let (plain, peak, fcts) = marks_and_fcts("");
    assert_eq!((plain, peak), (15, 11));
    let (dev, dpeak, dfcts) = marks_and_fcts("device_queue = \"4pkt\"");
    assert_eq!((dev, dpeak), (7, 11), "the port's occupancy counts the device queue's packets");
    assert_eq!(dfcts, fcts);
}

#[test]
fn every_port_serializes_at_its_own_rate_whether_or_not_it_has_whole_picoseconds_per_byte() {
    // 10 Gb/s: 800 ps per byte, 25 Gb/s 320 (the multiplication); 3 Gb/s: 8/3 ns per byte (none,
    // the division). Construction checks ps_per_byte against each rate (a debug assertion).
    let doc = "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"explicit\"\nhosts = [\"a\", \"b\", \"c\"]\nswitches = [\"s\"]\n\
               links = [{ a = \"a\", b = \"s\", rate = \"10Gbps\", delay = \"1us\" }, { a = \"s\", b = \"b\", rate = \"3Gbps\", delay = \"1us\" }, { a = \"c\", b = \"s\", rate = \"25Gbps\", delay = \"1us\" }]\n\
               [[flows]]\nsrc = \"a\"\ndst = \"b\"\nsize = 1000\n";
    let sc = Scenario::from_toml(doc).unwrap_or_else(|e| panic!("{e}"));
    let sim = Simulator::new(&sc, None);
    let ports = &sim.fabric.net.ports;
    let by_name = |n: &str| &ports[sim.fabric.net.port_by_name(n).unwrap().idx()];
    assert_eq!((by_name("a->s").ps_per_byte, by_name("s->b").ps_per_byte, by_name("c->s").ps_per_byte), (800, 0, 320));
    assert_eq!(by_name("s->b").serialization(1500), Time::from_ps(4_000_000), "1500 B at 3 Gb/s: 4 µs");
    for p in ports {
        assert_eq!(p.serialization(1500), p.rate.serialization(1500), "{}", p.name);
    }
}

#[test]
fn marks_at_the_end_of_service_count_the_arrivals_during_it() {
    // a_device_queue_delays_marks_but_not_packets' two 10-segment windows into s0->h0 at K = 2:
    // at instant t_k = 2.2 + 1.2k µs (k ≥ 1) two packets arrive, then the packet started at
    // t_{k−1} ends, leaving k + 2 waiting (k ≤ 9), then k + 1 after the next starts; from t_10
    // on nothing arrives and the packet ending at t_k leaves 19 − k + 1 waiting. At its end a
    // packet is judged on those plus itself: k + 3 for k = 1..9 (all marked), 21 − k for
    // k = 10..20 (marked up to k = 18): 18 of 20. Marking as service begins (what a departing
    // packet leaves behind: k + 1, then 19 − k) marks 15, as marking arrivals does. The marks
    // move no packet: every segment arrives when it did.
    let flows = "initial_cwnd = 10\ncc = \"dctcp\"\n[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = 14480\n[[flows]]\nsrc = \"h2\"\ndst = \"h0\"\nsize = 14480\n";
    let marks_and_fcts = |at: &str, tie: &str| {
        let doc = star(3, "1ms", &format!("buffer = \"100pkt\"\ndiscipline = \"ecn\"\necn_threshold = \"2pkt\"\nmark_at = \"{at}\""), flows);
        let mut sim = run(&doc.replace("[simulation]\n", &format!("[simulation]\ntie_order = \"{tie}\"\n")));
        let pt = sim.port_table();
        let p = pt.find("s0->h0").unwrap();
        assert!(sim.conservation().holds());
        (pt.ecn_marks[p], sim.flow_table().fct_ps)
    };
    let (enq, fcts) = marks_and_fcts("enqueue", "event");
    let (deq, _) = marks_and_fcts("dequeue", "event");
    let (end, end_fcts) = marks_and_fcts("end", "event");
    assert_eq!((enq, deq, end), (15, 15, 18));
    assert_eq!(end_fcts, fcts);
    // Every transmission ends in a transmit-done anyway in the scheduled orders: the same marks.
    assert_eq!(marks_and_fcts("end", "scheduled").0, 18);
}

#[test]
fn a_host_queue_in_flow_round_robin_interleaves_its_flows() {
    // h0 sends 3 segments to h1 (flow 0) and 3 to h2 (flow 1) at t = 0 (10 Gb/s, 1 µs wires,
    // 1500 B in 1.2 µs). Its NIC in FIFO order sends 0a 0b 0c 1a 1b 1c; in flow round robin 0a
    // (the port was idle) 1a 0b 1b 0c 1c. A segment leaving h0 at s reaches its host at
    // s + 4.4 µs: flow 0's at 4.4, 5.6, 6.8 µs (FIFO) or 4.4, 6.8, 9.2 µs (round robin), flow
    // 1's at 8.0, 9.2, 10.4 or 5.6, 8.0, 10.4 µs.
    let flows = "initial_cwnd = 3\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = 4344\n[[flows]]\nsrc = \"h0\"\ndst = \"h2\"\nsize = 4344\n";
    let delivered = |order: &str, ps: u64| {
        let doc = star(3, "1ms", "buffer = \"100pkt\"", flows).replace("[queue]", &format!("[host_queue]\norder = \"{order}\"\n[queue]"));
        let mut sim = Simulator::new(&Scenario::from_toml(&doc).unwrap_or_else(|e| panic!("{e}")), None);
        sim.keep_finished = true;
        sim.run_until(Time::from_ps(ps));
        (tcp(&mut sim, 0).receiver.delivered() / 1448, tcp(&mut sim, 1).receiver.delivered() / 1448)
    };
    assert_eq!(delivered("fifo", 5_600_000), (2, 0));
    assert_eq!(delivered("flow_rr", 5_600_000), (1, 1));
    assert_eq!(delivered("fifo", 6_800_000), (3, 0));
    assert_eq!(delivered("flow_rr", 6_800_000), (2, 1));
    assert_eq!(delivered("fifo", 8_000_000), (3, 1));
    assert_eq!(delivered("flow_rr", 9_200_000 - 1), (2, 2));
    assert_eq!(delivered("flow_rr", 9_200_000), (3, 2));
}

/// Two senders' initial windows into one switch port: h1 and h2 each send 10 segments of
/// 1448 B (1500 B on the wire) to h0 at t = 0.
fn two_windows_into_one() -> String {
    let flows = "[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = 14480\n[[flows]]\nsrc = \"h2\"\ndst = \"h0\"\nsize = 14480\n";
    star(3, "1ms", "buffer = \"100pkt\"", &format!("initial_cwnd = 10\n{flows}"))
}

/// (packets started, packets waiting) on `port` once every event up to `t` ps has run.
fn started_and_waiting(sim: &mut Simulator, port: crate::ids::PortId, t: u64) -> (u64, u64) {
    sim.run_until(Time::from_ps(t));
    let p = &sim.fabric.net.ports[port.idx()];
    (p.stats.tx_packets, p.queue.len_packets())
}

#[test]
fn a_fifo_port_fed_twice_its_rate_starts_a_packet_each_serialization() {
    // 1500 B take 1.2 µs per 10 Gb/s hop. Each NIC sends its packet k (0..9) at 1.2k µs, which
    // reaches s0 at 2.2 + 1.2k µs together with the other host's. s0->h0 starts a packet every
    // 1.2 µs from 2.2 µs on: its packet j (0..19) at 2.2 + 1.2j µs. Arrivals rank before the end
    // of a service in one picosecond, so after the instant 2.2 + 1.2j µs j + 1 packets wait for
    // j < 10 (11 at most: between the arrivals and the start at 13.0 µs), then 19 − j. Time
    // integral of the queue: 1.2 µs × (1 + 2 + … + 10 + 9 + … + 1) = 120 packet·µs. The same with
    // a transmit-done ending every packet.
    let (t0, ser) = (2_200_000u64, 1_200_000u64);
    for eager in [false, true] {
        let mut sim = Simulator::new(&Scenario::from_toml(&two_windows_into_one()).unwrap(), None);
        if eager {
            sim.fabric.eager_tx_done = true;
        }
        let port = sim.fabric.net.port_by_name("s0->h0").unwrap();
        assert_eq!(started_and_waiting(&mut sim, port, t0 - 1), (0, 0));
        for j in 0..20 {
            let waiting = if j < 10 { j + 1 } else { 19 - j };
            assert_eq!(started_and_waiting(&mut sim, port, t0 + j * ser), (j + 1, waiting), "eager {eager}: packet {j} starts");
            assert_eq!(started_and_waiting(&mut sim, port, t0 + (j + 1) * ser - 1), (j + 1, waiting), "eager {eager}: packet {j} on the wire");
        }
        sim.run();
        let s = &sim.fabric.net.ports[port.idx()].stats;
        assert_eq!((s.tx_packets, s.max_queue_packets, s.busy_time), (20, 11, Time::from_ps(20 * ser)));
        assert_eq!((s.queue_area_packets, s.queue_area_bytes), (120 * 1_000_000, 120 * 1_000_000 * 1500));
    }
}
