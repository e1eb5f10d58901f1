//! Homa against facts that do not come from this code: a lone message's ideal FCT (closed form),
//! SRPT grant order on a hand case of three messages, the priority layout of §3.4, the
//! bytes-weighted cut-off of a uniform size distribution (closed form), and recovery from drops.

use super::*;
use crate::ids::FlowId;
use crate::sim::testing::run;
use crate::sim::Simulator;
use crate::workload::{Cdf, Sampling};

/// A star of `hosts` hosts at 10 Gb/s, 1 µs wires, 8 strict-priority queues per switch port
/// (`buffer`), Homa as the default transport with `homa` keys; then `rest`.
fn homa_star(hosts: usize, buffer: &str, homa: &str, rest: &str) -> String {
    format!(
        "[simulation]\nend = \"1s\"\nstop_when_done = true\n[topology]\nkind = \"star\"\nhosts = {hosts}\n\
         link = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
         [queue]\nbuffer = \"{buffer}\"\nqueues = 8\n\
         [transport]\nkind = \"homa\"\n{homa}\n{rest}\n"
    )
}

fn inbound(sim: &Simulator, host: usize) -> &Inbound {
    &sim.hosts.stacks.homa.get(crate::ids::NodeId::from_idx(host)).unwrap().inbound
}

#[test]
fn priority_levels_follow_section_3_4() {
    let c = HomaConfig { priorities: 8, scheduled: 2, ..Default::default() };
    // One granted message uses the lowest level; two use the lowest two, rank 0 the higher.
    assert_eq!(c.scheduled_class(0, 1), 7);
    assert_eq!((c.scheduled_class(0, 2), c.scheduled_class(1, 2)), (6, 7));
    // More messages than scheduled levels share the lowest.
    assert_eq!((c.scheduled_class(0, 3), c.scheduled_class(1, 3), c.scheduled_class(2, 3)), (6, 7, 7));
    let mut c = HomaConfig { priorities: 8, scheduled: 5, ..Default::default() };
    c.cutoffs[..2].copy_from_slice(&[1000, 10_000]);
    c.n_cutoffs = 2;
    assert_eq!([c.unscheduled_class(1000), c.unscheduled_class(1001), c.unscheduled_class(10_000), c.unscheduled_class(1 << 30)], [0, 1, 1, 2]);
    // Unscheduled bytes: RTTbytes rounded up to whole packets (45 000 B = 31.08 packets of 1448 B).
    assert_eq!(HomaConfig::default().unscheduled_bytes(1 << 20), 32 * 1448);
    assert_eq!(HomaConfig::default().unscheduled_bytes(5000), 5000);
}

#[test]
fn cutoffs_split_unscheduled_bytes_evenly() {
    // Sizes uniform on [0, 10 000] B, all below RTTbytes: the bytes-weighted CDF is (c/10 000)^2,
    // so two unscheduled levels split at c = 10 000/sqrt(2) = 7071 B.
    let cdf = Cdf::parse("u", "0 0\n10000 1\n").unwrap();
    let c = HomaConfig { priorities: 8, scheduled: 6, ..Default::default() }.with_cutoffs_from(&cdf, Sampling::Linear);
    assert_eq!(c.n_cutoffs, 1);
    assert!((7061..=7081).contains(&c.cutoffs[0]), "{}", c.cutoffs[0]);
    // Three levels: (1/3)^(1/2) and (2/3)^(1/2) of 10 000 B.
    let c = HomaConfig { priorities: 8, scheduled: 5, ..Default::default() }.with_cutoffs_from(&cdf, Sampling::Linear);
    assert_eq!(c.n_cutoffs, 2);
    assert!((5764..=5784).contains(&c.cutoffs[0]) && (8155..=8175).contains(&c.cutoffs[1]), "{:?}", &c.cutoffs[..2]);
}

#[test]
fn a_lone_message_finishes_in_the_ideal_fct() {
    // Unscheduled only (10 KB) and mostly scheduled (500 KB: 45 KB unscheduled, the rest granted).
    for size in ["10KB", "500KB"] {
        let sim = run(&homa_star(2, "unlimited", "", &format!("[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = \"{size}\"")));
        let t = sim.flow_table();
        let s = t.slowdown[0].expect("finished");
        println!("{size}: slowdown {s}");
        assert!((1.0..1.001).contains(&s), "{size}: slowdown {s} (fct {:?} ideal {:?})", t.fct_ps[0], t.ideal_fct_ps[0]);
        assert_eq!(t.retransmits[0], 0);
    }
}

/// Three messages to h0 at once: h1 300 KB, h2 100 KB, h3 200 KB; RTTbytes 20 KB.
fn three_messages(overcommit: u32) -> Simulator {
    let flows = "[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = \"300KB\"\n[[flows]]\nsrc = \"h2\"\ndst = \"h0\"\nsize = \"100KB\"\n\
                 [[flows]]\nsrc = \"h3\"\ndst = \"h0\"\nsize = \"200KB\"\n";
    run(&homa_star(4, "unlimited", &format!("rtt_bytes = \"20KB\"\novercommitment = {overcommit}"), flows))
}

#[test]
fn the_receiver_grants_the_shortest_remaining_message_first() {
    let sim = three_messages(1);
    let trace = &inbound(&sim, 0).trace;
    let grants = |f: u32| trace.iter().filter(|g| g.1 == FlowId(f)).map(|g| g.0).collect::<Vec<_>>();
    let (g300, g100, g200) = (grants(0), grants(1), grants(2));
    assert_eq!(trace[0].1, FlowId(1), "the first GRANT goes to the 100 KB message");
    // k = 1: the next message is granted only once the shorter one is granted to its end.
    assert!(g200[0] >= *g100.last().unwrap() && g300[0] >= *g200.last().unwrap(), "grants overlap: {trace:?}");
    // Each message is granted to its end, in whole packets: 100 KB - 20 272 B unscheduled.
    assert_eq!(trace.iter().filter(|g| g.1 == FlowId(1)).last().unwrap().2, 100_000);
    let t = sim.flow_table();
    let end = |i: usize| t.end_ps[i].unwrap();
    assert!(end(1) < end(2) && end(2) < end(0), "SRPT order of completion: {:?}", t.end_ps);
    // The receiver link never idles: the last message ends within 2 % of all the wire bytes back to
    // back after one packet's two hops.
    let wire: u64 = [300_000u64, 100_000, 200_000].iter().map(|&s| s + s.div_ceil(1448) * 52).sum();
    let rate = crate::time::Rate::gbps(10);
    let optimum = rate.serialization(1500) + Time::from_us(1) + rate.serialization(wire) + Time::from_us(2) + rate.serialization(52).times(2);
    let ratio = end(0) as f64 / optimum.0 as f64;
    println!("three messages: ends {:?}, optimum {optimum}, ratio {ratio:.4}, {} grants", t.end_ps, trace.len());
    assert!((1.0..1.02).contains(&ratio), "last at {} ps, optimum {optimum}: {ratio}", end(0));
}

#[test]
fn overcommitment_grants_two_messages_at_once() {
    let sim = three_messages(2);
    let trace = &inbound(&sim, 0).trace;
    let first = |f: u32| trace.iter().find(|g| g.1 == FlowId(f)).unwrap().0;
    let last = |f: u32| trace.iter().filter(|g| g.1 == FlowId(f)).last().unwrap().0;
    assert_eq!(trace[0].1, FlowId(1));
    assert!(first(2) < last(1), "with k = 2 the 200 KB message is granted alongside the 100 KB one");
    assert!(first(0) >= last(1), "the 300 KB message waits for a slot");
}

#[test]
fn drops_are_recovered_by_resend() {
    // 8 x 100 KB into a 30-packet drop-tail port: the unscheduled bursts (8 x 45 KB) overflow it.
    let mut flows = String::new();
    for i in 1..=8 {
        flows += &format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h0\"\nsize = \"100KB\"\n");
    }
    let mut sim = run(&homa_star(9, "30pkt", "resend_interval = \"50us\"", &flows));
    let t = sim.flow_table();
    assert!(t.fct_ps.iter().all(|f| f.is_some()), "every message completes");
    assert!(t.bytes_acked.iter().all(|&b| b == 100_000));
    let rtx: u64 = t.retransmits.iter().sum();
    let drops: u64 = sim.port_table().drops.iter().sum();
    println!("drops {drops} rtx {rtx} timeouts {} fcts {:?}", t.timeouts.iter().sum::<u64>(), t.fct_ps);
    assert!(drops > 0 && rtx >= drops, "{drops} drops, {rtx} retransmissions");
}

// ---- Aeolus (Hu et al., SIGCOMM 2020) on Homa ----------------------------------------------

fn ends() -> crate::transport::Endpoints {
    crate::transport::Endpoints { flow: FlowId(7), src: crate::ids::NodeId(1), dst: crate::ids::NodeId(0), hash_fwd: 11, hash_rev: 12 }
}

fn hh(p: &Packet) -> HomaHeader {
    match p.hdr {
        Header::Homa(h) => h,
        _ => panic!("not Homa"),
    }
}

fn aeolus_cfg() -> HomaConfig {
    HomaConfig { aeolus: true, ..Default::default() }
}

#[test]
fn aeolus_sends_unscheduled_packets_droppable_then_a_probe_then_what_a_resend_names() {
    // A 5-packet message (all unscheduled): five droppable DATA packets at the unscheduled
    // class, the PROBE right behind the fifth in the same class; a RESEND naming packets 2 and 4
    // brings exactly those again, not droppable, at the RESEND's class (§3.2-3.3).
    let cfg = aeolus_cfg();
    let mut ob = Outbound::default();
    let len = 5 * 1448;
    let s = ob.add(ends(), len, &cfg, Time::ZERO);
    let mut out = Outbox::default();
    let mut sent = Vec::new();
    for _ in 0..10 {
        out.clear();
        out.budget = 1;
        out.nic_queued = 0;
        ob.pump(&cfg, &mut out);
        sent.extend(out.packets.iter().copied());
    }
    let kinds: Vec<_> = sent.iter().map(|p| (hh(p).kind, hh(p).offset, p.droppable, p.class)).collect();
    let uc = cfg.unscheduled_class(len);
    let want: Vec<_> = (0..5).map(|k| (HomaKind::Data, k * 1448, true, uc)).chain([(HomaKind::Probe, 0, false, uc)]).collect();
    assert_eq!(kinds, want);
    assert_eq!(sent[5].size, cfg.control);
    assert_eq!((hh(&sent[5]).msg_len, hh(&sent[5]).unsched), (len, len));
    let mut h = HomaHeader::new(HomaKind::Resend);
    h.mask = 0b10100;
    h.prio = 7;
    ob.on_resend(s, &h, &cfg, Time::from_us(10));
    let mut again = Vec::new();
    for _ in 0..4 {
        out.clear();
        out.budget = 1;
        out.nic_queued = 0;
        ob.pump(&cfg, &mut out);
        again.extend(out.packets.iter().map(|p| (hh(p).offset, p.droppable, p.class)));
    }
    assert_eq!(again, vec![(2 * 1448, false, 7), (4 * 1448, false, 7)]);
    assert_eq!(ob.get(s).stats.retransmits, 2);
}

#[test]
fn aeolus_receiver_asks_for_what_the_probe_shows_lost() {
    // 10 unscheduled packets; 2 and 5 never arrive. The PROBE marks them lost, the scheduler asks
    // for both in one RESEND at the scheduled class of a lone granted message (7), once.
    let cfg = aeolus_cfg();
    let mut ib = Inbound::default();
    let len = 10 * 1448;
    let s = ib.add(ends(), len, len, &cfg, Time::ZERO);
    for k in (0..10u64).filter(|&k| k != 2 && k != 5) {
        let mut h = HomaHeader::new(HomaKind::Data);
        (h.offset, h.len, h.msg_len, h.unsched) = (k * 1448, 1448, len, len);
        ib.on_data(s, &h, &cfg, Time::ZERO);
    }
    let mut out = Outbox::default();
    ib.schedule(Time::ZERO, &cfg, &mut out);
    assert!(out.packets.is_empty(), "no PROBE yet: nothing is known lost");
    ib.on_probe(s, len, Time::from_us(1));
    ib.schedule(Time::from_us(1), &cfg, &mut out);
    let r: Vec<_> = out.packets.iter().map(|p| (hh(p).kind, hh(p).mask, hh(p).prio, p.src, p.dst)).collect();
    assert_eq!(r, vec![(HomaKind::Resend, 0b100100, 7, crate::ids::NodeId(0), crate::ids::NodeId(1))]);
    out.clear();
    ib.schedule(Time::from_us(2), &cfg, &mut out);
    assert!(out.packets.is_empty(), "asked once");
}

/// `n` senders each send `size` to h0 at time 0 through a `buffer` port; Aeolus ports drop
/// droppable packets above `threshold`.
fn incast(kind: &str, n: usize, size: &str, buffer: &str, threshold: &str) -> Simulator {
    let mut flows = String::new();
    for i in 1..=n {
        flows += &format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h0\"\nsize = \"{size}\"\n");
    }
    let doc = homa_star(n + 1, buffer, "", &flows).replace("kind = \"homa\"", &format!("kind = \"{kind}\"")).replace("queues = 8\n", &format!("queues = 8\nselective_drop = \"{threshold}\"\n"));
    run(&doc)
}

#[test]
fn aeolus_lone_messages_finish_in_the_ideal_fct() {
    for size in ["10KB", "500KB"] {
        let doc = homa_star(2, "unlimited", "", &format!("[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = \"{size}\"")).replace("kind = \"homa\"", "kind = \"aeolus\"");
        let sim = run(&doc.replace("queues = 8\n", "queues = 8\nselective_drop = \"6KB\"\n"));
        let t = sim.flow_table();
        let s = t.slowdown[0].expect("finished");
        assert!((1.0..1.001).contains(&s), "{size}: slowdown {s}");
        assert_eq!((t.retransmits[0], t.timeouts[0]), (0, 0));
    }
}

#[test]
fn aeolus_incast_loses_only_droppable_packets_and_recovers_them_without_timeouts() {
    // 16 x 100 KB into one 10 Gb/s receiver, 100-packet port buffer: each message's 32
    // unscheduled packets (45 KB) arrive together, 512 packets for a port that holds 100. Plain
    // Homa loses unscheduled packets and waits for its 1 ms RESEND timeout; Aeolus drops them
    // above its threshold (6 KB), recovers them from the PROBE's RESEND, and never loses a
    // scheduled one (two granted messages keep at most 2 x 45 KB = 62 packets in flight).
    let wire: u64 = 16 * (100_000 + 100_000u64.div_ceil(1448) * 52);
    let optimum = crate::time::Rate::gbps(10).serialization(wire).0 as f64;
    let mut a = incast("aeolus", 16, "100KB", "100pkt", "6KB");
    let mut h = incast("homa", 16, "100KB", "100pkt", "6KB");
    let (ta, th) = (a.flow_table(), h.flow_table());
    for (name, t) in [("aeolus", &ta), ("homa", &th)] {
        assert!(t.fct_ps.iter().all(|f| f.is_some()), "{name}: every message completes");
        assert!(t.bytes_acked.iter().all(|&b| b == 100_000), "{name}");
    }
    let qa = a.queue_table();
    let (drops, selective): (u64, u64) = (qa.drops.iter().sum(), qa.selective_drops.iter().sum());
    let rtx: u64 = ta.retransmits.iter().sum();
    let timeouts: u64 = ta.timeouts.iter().sum();
    let last = |t: &crate::output::FlowTable| t.end_ps.iter().map(|e| e.unwrap()).max().unwrap() as f64;
    println!("aeolus: drops {drops} selective {selective} rtx {rtx} timeouts {timeouts} last/optimum {:.3}; homa: drops {} timeouts {} last/optimum {:.3}",
        last(&ta) / optimum, h.queue_table().drops.iter().sum::<u64>(), th.timeouts.iter().sum::<u64>(), last(&th) / optimum);
    assert!(drops > 100, "the incast overflows: {drops} drops");
    assert_eq!(drops, selective, "only droppable packets are lost");
    assert_eq!(rtx, drops, "each lost packet is resent exactly once");
    assert_eq!(timeouts, 0);
    assert!(h.queue_table().drops.iter().sum::<u64>() > 0 && th.retransmits.iter().sum::<u64>() > 0);
    // The receiver link stays busy: the last message ends within 2 % of all the bytes back to
    // back (the first round trip included), while Homa waits for its 1 ms timeout.
    assert!(last(&ta) < 1.02 * optimum, "aeolus last {} ps, optimum {optimum}", last(&ta));
    assert!(last(&th) > last(&ta) + 0.5e9, "homa waits for its timeout");
}
