//! NDP against facts that do not come from this code: the ideal FCT of a lone flow (closed form,
//! `output::ideal_fct`), the pull pacer's spacing (9 KB at 10 Gb/s = 7.2 µs, the paper's §3.2
//! figure), and an incast finishing within a few percent of the receiver link's optimum
//! (Handley et al. §6.1: within 1 % for 450 KB responses).

use super::*;
use crate::host::HostInfo;
use crate::ids::{FlowId, NodeId};
use crate::sim::testing::run;
use crate::time::Rate;

/// A star of `hosts` hosts at 10 Gb/s, 1 µs wires, NDP switch ports (header queue first, WRR
/// 10:1, 8-packet data queue, trimming to 64 B), NDP as the default transport; then `rest`.
pub(crate) fn ndp_star(hosts: usize, rest: &str) -> String {
    format!(
        "[simulation]\nend = \"1s\"\nstop_when_done = true\n[topology]\nkind = \"star\"\nhosts = {hosts}\n\
         link = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
         [queue]\nbuffer = \"unlimited\"\nqueues = 2\nclasses = [0, 1]\nqueue_buffer = [\"72KB\", \"8pkt\"]\n\
         scheduler = \"wrr\"\nweights = [10, 1]\nadmission = \"trim\"\n\
         [transport]\nkind = \"ndp\"\n{rest}\n"
    )
}

/// The best an `n` × `size` incast on `ndp_star` can do: the receiver link serializes every wire
/// byte back to back, after the first packet's two hops (1 µs each plus one serialization at the
/// sender), plus the last ACK's way back (64 B over two hops, 1 µs each).
fn incast_optimum(n: u64, size: u64) -> Time {
    let ser = |b: u64| Rate::gbps(10).serialization(b);
    let wire = size + size.div_ceil(8936) * 64;
    ser(9000) + Time::from_us(1) + ser(wire * n) + Time::from_us(1) + ser(64).times(2) + Time::from_us(2)
}

#[test]
fn pull_pacer_sends_one_pull_per_packet_time_round_robin() {
    // 9000 B at 10 Gb/s = 7.2 us between PULLs (§3.2).
    let host = HostInfo { node: NodeId(0), rate: Rate::gbps(10) };
    let mut p = NdpHost::new(host, &NdpConfig::default());
    assert_eq!(p.interval(), Time::from_ns(7200));
    let ends = |f| Endpoints { flow: FlowId(f), src: NodeId(1), dst: NodeId(0), hash_fwd: 0, hash_rev: 0 };
    let (a, b) = (p.register(ends(0), 64), p.register(ends(1), 64));
    let mut out = Outbox::default();
    for slot in [a, a, a, b] {
        p.enqueue(slot, Time::ZERO, &mut out);
    }
    // The first goes at once; the pacer then waits one interval.
    assert_eq!(out.packets.len(), 1);
    assert_eq!(out.host_timers.len(), 1);
    assert_eq!(out.host_timers[0].0, Time::from_ns(7200));
    let mut sent = vec![(Time::ZERO, out.packets[0].flow.0, match out.packets[0].hdr { Header::Ndp(h) => h.pull, _ => 0 })];
    let mut t = Time::ZERO;
    for _ in 0..4 {
        let Some(&(at, _, _)) = out.host_timers.last() else { break };
        t = at;
        out.clear();
        p.on_pull_timer(t, &mut out);
        for q in &out.packets {
            sent.push((t, q.flow.0, match q.hdr { Header::Ndp(h) => h.pull, _ => 0 }));
        }
    }
    // The first PULL left alone; then a (2 queued) and b (1) take turns: a, b, a. Each PULL
    // carries its connection's running count.
    let us = |x: u64| Time::from_ns(x * 7200);
    assert_eq!(sent, vec![(us(0), 0, 1), (us(1), 0, 2), (us(2), 1, 1), (us(3), 0, 3)]);
    assert_eq!(t, us(3));
    assert!(out.host_timers.is_empty(), "nothing queued: the pacer goes idle");
}

#[test]
fn a_lone_flow_finishes_in_the_ideal_fct() {
    // Within the first window (5 packets) and well beyond it (112 packets, pulled).
    for size in ["40KB", "1MB"] {
        let sim = run(&ndp_star(2, &format!("[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = \"{size}\"")));
        let t = sim.flow_table();
        let s = t.slowdown[0].expect("finished");
        println!("{size}: slowdown {s}");
        assert!((1.0..1.001).contains(&s), "{size}: slowdown {s} (fct {:?} ideal {:?})", t.fct_ps[0], t.ideal_fct_ps[0]);
        assert_eq!(t.retransmits[0], 0);
        assert_eq!(t.trimmed[0], 0);
    }
}

#[test]
fn incast_trims_recovers_everything_and_finishes_near_the_optimum() {
    // 16 senders x 450 KB (the paper's §6.1 response size) into h0: 16 x 23 first-window packets
    // overflow the 8-packet queue, so most are trimmed and NACKed, then pulled again.
    let n = 16;
    let mut flows = String::new();
    for i in 1..=n {
        flows += &format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h0\"\nsize = \"450KB\"\n");
    }
    let mut sim = run(&ndp_star(n + 1, &flows));
    let t = sim.flow_table();
    assert!(t.fct_ps.iter().all(|f| f.is_some()), "every flow finishes");
    let trimmed: u64 = t.trimmed.iter().sum();
    let rtx: u64 = t.retransmits.iter().sum();
    assert!(trimmed > 100, "the first windows collide: {trimmed} trims");
    assert_eq!(rtx, trimmed, "each trimmed packet is resent once, on its pull");
    assert_eq!(t.timeouts.iter().sum::<u64>(), 0);
    let optimum = incast_optimum(n as u64, 450_000);
    let ser = |b: u64| Rate::gbps(10).serialization(b);
    let wire = 450_000 + 450_000u64.div_ceil(8936) * 64;
    let last = Time(t.end_ps.iter().map(|e| e.unwrap()).max().unwrap());
    let ratio = last.0 as f64 / optimum.0 as f64;
    println!("incast: {trimmed} trims, last flow {last} vs optimum {optimum} ({ratio:.4})");
    assert!((1.0..1.03).contains(&ratio), "last flow at {last}, optimum {optimum}: {ratio}");
    // The receiver's link carries the data back to back: busy for all but a few percent of the run.
    let ports = sim.port_table();
    let down = ports.find("s0->h0").unwrap();
    let data = ser(wire * n as u64).0 as f64;
    assert!(ports.utilization[down] * last.0 as f64 >= data, "all data crossed the receiver link");
}

#[test]
fn headers_that_do_not_fit_return_to_the_sender() {
    // A header queue of 10 headers under a 16 x 23-packet first window: without return-to-sender
    // the surplus headers are lost and only the timeout recovers them; with it they come back to
    // their senders, which resend them at once.
    let flows: String = (1..=16).map(|i| format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h0\"\nsize = \"450KB\"\n")).collect();
    let small = |rts: bool| ndp_star(17, &flows).replace("queue_buffer = [\"72KB\", \"8pkt\"]", &format!("queue_buffer = [\"640B\", \"8pkt\"]\nreturn_to_sender = {rts}"));
    let mut off = run(&small(false));
    let mut on = run(&small(true));
    let (po, pn) = (off.port_table(), on.port_table());
    let (fo, fl) = (off.flow_table(), on.flow_table());
    let drops_off: u64 = po.drops.iter().sum();
    let (drops_on, bounces): (u64, u64) = (pn.drops.iter().sum(), pn.bounces.iter().sum());
    println!("off: {drops_off} drops, {} timeouts; on: {drops_on} drops, {bounces} bounces, {} timeouts", fo.timeouts.iter().sum::<u64>(), fl.timeouts.iter().sum::<u64>());
    assert!(drops_off > 0 && fo.timeouts.iter().sum::<u64>() > 0);
    assert!(bounces > 0 && drops_on == 0, "{bounces} bounces, {drops_on} drops");
    assert_eq!(fl.timeouts.iter().sum::<u64>(), 0, "bounced headers need no timeout");
    assert!(fl.fct_ps.iter().all(|f| f.is_some()));
    let (rtx, trimmed): (u64, u64) = (fl.retransmits.iter().sum(), fl.trimmed.iter().sum());
    assert_eq!(rtx, trimmed, "every trimmed or bounced packet is resent once");
    // The receiver link still carries everything back to back: within 3 % of the optimum.
    let last = Time(fl.end_ps.iter().map(|e| e.unwrap()).max().unwrap());
    let ratio = last.0 as f64 / incast_optimum(16, 450_000).0 as f64;
    assert!((1.0..1.03).contains(&ratio), "{ratio}");
}
