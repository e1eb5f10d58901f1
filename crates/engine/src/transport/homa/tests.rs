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
