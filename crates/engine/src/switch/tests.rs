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
