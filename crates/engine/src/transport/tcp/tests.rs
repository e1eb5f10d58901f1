//! TCP behaviour in tiny scenarios, pinned to hand-computed round counts, RFC behaviour and the
//! DCTCP paper's steady-state analysis.

use crate::scenario::Scenario;
use crate::sim::testing::{jain, run, tcp};
use crate::sim::Simulator;
use crate::time::Time;
use crate::transport::tcp::cc::Cc;
use crate::transport::tcp::CcKind;

/// h1 -> h0 through one switch; 100 us per wire, so RTT ≈ 400 us ≫ window transmission times.
fn long_path(size: &str, extra: &str) -> String {
    format!(
        r#"
[simulation]
end = "200ms"
[topology]
kind = "star"
hosts = 2
link = {{ rate = "10Gbps", delay = "100us" }}
[queue]
buffer = "1000pkt"
[transport]
mss = 1448
initial_cwnd = 10
delayed_ack = 1
min_rto = "10ms"
{extra}
[[flows]]
src = "h1"
dst = "h0"
size = "{size}"
"#
    )
}

#[test]
fn slow_start_round_count() {
    // Base RTT: data 1500 B = 1.2 us per hop, ACK 52 B = 41.6 ns per hop, 4 wires of 100 us.
    let rtt = 400_000_000 + 2 * 1_200_000 + 2 * 41_600;
    // Windows double each round: 10, 20, 40, 80 -> 150 segments finish in 4 rounds, the 151st
    // needs a 5th. Each round adds at most the window's serialization (< 100 us) to the RTTs.
    for (segs, rounds) in [(10u64, 1u64), (30, 2), (150, 4), (151, 5)] {
        let sim = run(&long_path(&(segs * 1448).to_string(), ""));
        let fct = sim.flow_table().fct_ps[0].unwrap();
        assert!(fct >= rounds * rtt && fct < rounds * rtt + 100_000_000, "{segs} segments: FCT {fct} ps is not {rounds} rounds of {rtt} ps");
        assert_eq!(tcp(&sim, 0).sender.stats.retransmits, 0);
    }
}

#[test]
fn slow_start_with_delayed_acks_still_doubles() {
    // Linux-style growth (cwnd += segments ACKed) doubles per RTT with ACK-every-2 as well
    // (Linux counts segments ACKed, as RFC 3465 byte counting with L = 2 does): 150 segments still
    // take 4 rounds.
    let rtt = 400_000_000u64 + 2 * 1_200_000 + 2 * 41_600;
    let sim = run(&long_path("217200", "").replace("delayed_ack = 1", "delayed_ack = 2"));
    let fct = sim.flow_table().fct_ps[0].unwrap();
    assert!(fct >= 4 * rtt && fct < 4 * rtt + 100_000_000, "FCT {fct}");
}

fn many_to_one(n: usize, cc: &str, rate: &str, k: &str, end: &str, extra: &str) -> String {
    let mut flows = String::new();
    for i in 1..=n {
        flows += &format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h0\"\nstart = \"{i}us\"\n");
    }
    format!(
        r#"
[simulation]
end = "{end}"
[topology]
kind = "star"
hosts = {hosts}
link = {{ rate = "{rate}", delay = "1us" }}
[queue]
buffer = "250pkt"
{k}
[transport]
cc = "{cc}"
min_rto = "10ms"
{extra}
{flows}
[output]
sample_interval = "100us"
queues = ["s0->h0"]
cwnd = "all"
"#,
        hosts = n + 1
    )
}

/// n senders on the left of a dumbbell, one receiver on the right; 10 Gb/s hosts, 1 Gb/s
/// bottleneck (so each sender alone can overflow it), 250-packet bottleneck buffer.
fn dumbbell(n: usize, cc: &str, k: &str) -> String {
    let mut flows = String::new();
    for i in 0..n {
        flows += &format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h{n}\"\nstart = \"{i}us\"\n");
    }
    format!(
        r#"
[simulation]
end = "1s"
[topology]
kind = "dumbbell"
left = {n}
right = 1
link = {{ rate = "10Gbps", delay = "1us" }}
bottleneck = {{ rate = "1Gbps", delay = "10us", queue = {{ buffer = "250pkt" {k} }} }}
[transport]
cc = "{cc}"
min_rto = "10ms"
{flows}
"#
    )
}

fn goodputs(sim: &Simulator) -> Vec<f64> {
    (0..sim.flows.len()).map(|i| tcp(sim, i).receiver.delivered() as f64).collect()
}

#[test]
fn long_flows_share_a_bottleneck_fairly() {
    for (cc, k) in [("newreno", ""), ("dctcp", ", discipline = \"ecn\", ecn_threshold = \"20pkt\"")] {
        for n in [2usize, 4] {
            let mut sim = run(&dumbbell(n, cc, k));
            let g = goodputs(&sim);
            let j = jain(&g);
            println!("{cc} x{n}: Jain {j:.4}");
            assert!(j >= 0.95, "{cc} x{n}: Jain {j:.4} of {g:?}");
            // And the bottleneck is kept busy.
            let p = sim.port_table();
            let u = p.utilization[p.find("s0->s1").unwrap()];
            assert!(u > 0.95, "{cc} x{n}: utilization {u}");
        }
    }
}

#[test]
fn sixteen_flow_fairness_is_reported() {
    // Reported, not asserted beyond sanity: 16 synchronized flows on one port need not be fair.
    let sim = run(&many_to_one(16, "dctcp", "1Gbps", "discipline = \"ecn\"\necn_threshold = \"20pkt\"", "1s", ""));
    let j = jain(&goodputs(&sim));
    println!("Jain index, 16 DCTCP flows over 1 s: {j:.4}");
    assert!(j > 0.5);
}

#[test]
fn dctcp_queue_hovers_at_k_and_alpha_matches_analysis() {
    // DCTCP paper (Alizadeh et al. SIGCOMM 2010) §3.3: N = 2, C·RTT ≈ 83.3 packets (10 Gb/s, 100 us, 1500 B),
    // K = 65: W* = (C·RTT + K)/N ≈ 74.2, α ≈ sqrt(2/W*) ≈ 0.164, Q_max = N + K = 67,
    // amplitude A = ½·sqrt(2N(C·RTT + K)) ≈ 12.2, so Q in about [55, 67].
    // 25 us per wire gives a 100 us base RTT. ACK every packet, as the analysis assumes.
    let doc = many_to_one(2, "dctcp", "10Gbps", "discipline = \"ecn\"\necn_threshold = \"65pkt\"", "300ms", "delayed_ack = 1")
        .replace("delay = \"1us\"", "delay = \"25us\"")
        .replace("sample_interval = \"100us\"", "sample_interval = \"10us\"");
    let sim = run(&doc);
    let s = &sim.series;
    let after = Time::from_ms(100).0; // past the α start-up transient (16 windows ≈ 2 ms, with margin)
    let values = |metric: crate::output::Metric| -> Vec<f64> {
        (0..s.value.len()).filter(|&i| s.metric[i] == metric && s.time_ps[i] >= after).map(|i| s.value[i]).collect()
    };
    let q = values(crate::output::Metric::QueuePackets);
    let a = values(crate::output::Metric::DctcpAlpha);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (qmin, qmax) = q.iter().fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let (n, crtt, k) = (2.0, 83.33, 65.0);
    let w_star = (crtt + k) / n;
    let alpha_theory = (2.0f64 / w_star).sqrt();
    let amplitude = 0.5 * (2.0f64 * n * (crtt + k)).sqrt();
    let alpha = mean(&a);
    println!(
        "DCTCP N=2: queue mean {:.1}, range [{qmin}, {qmax}] (theory [{:.1}, {}]); mean alpha {alpha:.3} (theory {alpha_theory:.3})",
        mean(&q),
        n + k - amplitude,
        n + k
    );
    // The queue envelope is where the analysis is sharp.
    assert!((qmax - (n + k)).abs() <= 4.0, "Q_max {qmax} vs {}", n + k);
    assert!((qmin - (n + k - amplitude)).abs() <= 5.0, "Q_min {qmin} vs {}", n + k - amplitude);
    assert!((55.0..=67.0).contains(&mean(&q)), "mean queue {}", mean(&q));
    // α: measured 0.115, i.e. 0.70 x the fluid value (also 0.70 x at N = 4): near K the queue
    // moves by ±1 packet, so only about half the packets of the last window see more than K —
    // a packet-level effect the fluid model ignores. Held to the analysis within ±35 %.
    assert!((alpha - alpha_theory).abs() / alpha_theory < 0.35, "alpha {alpha} vs {alpha_theory}");
}

/// 100 segments from h1 to h0 with data packet `drop` lost on h1's NIC wire.
fn one_drop(sack: bool, drops: &str) -> String {
    format!(
        r#"
[simulation]
end = "500ms"
[topology]
kind = "star"
hosts = 2
link = {{ rate = "10Gbps", delay = "10us" }}
[transport]
sack = {sack}
initial_cwnd = 10
min_rto = "10ms"
initial_rto = "10ms"
[[flows]]
src = "h1"
dst = "h0"
size = "144800"
[[faults]]
port = "h1->s0"
drop_packets = {drops}
"#
    )
}

#[test]
fn single_drop_is_repaired_by_fast_retransmit() {
    for sack in [true, false] {
        let sim = run(&one_drop(sack, "[20]"));
        let s = &tcp(&sim, 0).sender.stats;
        assert_eq!((s.retransmits, s.timeouts, s.fast_recoveries), (1, 0, 1), "sack={sack}: {s:?}");
        let t = sim.flow_table();
        // No timeout: well under the 10 ms RTO (the path RTT is ~40 us).
        assert!(t.fct_ps[0].unwrap() < Time::from_ms(2).0, "sack={sack}: FCT {:?}", t.fct_ps[0]);
        assert_eq!(t.bytes_acked[0], 144_800);
    }
}

/// 10 Gb/s star, 1 µs wires, 1500 B packets (1.2 µs per hop): h1 sends `size` bytes to h0.
fn star_with_drops(size: u64, drops: &str, extra: &str) -> String {
    format!(
        r#"
[simulation]
end = "1s"
[topology]
kind = "star"
hosts = 2
link = {{ rate = "10Gbps", delay = "1us" }}
[transport]
mss = 1448
header = 52
{extra}
[[flows]]
src = "h1"
dst = "h0"
size = {size}
[[faults]]
port = "h1->s0"
drop_packets = {drops}
"#
    )
}

#[test]
fn a_timeout_that_clears_the_scoreboard_resends_what_the_blocks_no_longer_name() {
    // Ten segments in the initial window; 0, 2, 4, 6 and 8 are lost, so h0 holds 1, 3, 5, 7 and 9
    // out of order. No fast retransmit (dupthresh 1000), no RACK or TLP: the timeout repairs it.
    // Its first resend (cwnd 1) is segment 0; h0's ACK is then cumulative to 2 with three blocks
    // (`MAX_SACK_BLOCKS`): 9, 7, 5 — segment 3 is no longer named. Kept scoreboard: the holes 2,
    // 4, 6, 8 follow, five resends in all. Cleared (RFC 2018 §8, ns-2's `clear_on_timeout_`):
    // 3 counts as lost again and is resent after 2 though h0 holds it: six.
    let extra = "initial_cwnd = 10\ndelayed_ack = 1\nrack = false\ntlp = false\ndupthresh = 1000\nmin_rto = \"10ms\"\ninitial_rto = \"10ms\"";
    for (mode, resent) in [("keep", 5), ("clear", 6)] {
        let sim = run(&star_with_drops(14480, "[0, 2, 4, 6, 8]", &format!("{extra}\ntimeout_sack = \"{mode}\"")));
        let s = &tcp(&sim, 0).sender.stats;
        assert_eq!((s.timeouts, s.fast_recoveries, s.retransmits), (1, 0, resent), "{mode}: {s:?}");
        assert!(sim.flow_table().fct_ps[0].is_some(), "{mode}: the flow completes");
    }
}

#[test]
fn tail_loss_is_repaired_by_a_probe_not_a_timeout() {
    // 10 segments in the initial window, the last one lost. Segment k reaches h0 at 1.2k + 4.4 µs;
    // ACKs go every second segment, so the last ACK (8 segments) leaves after segment 7 at
    // 12.8 µs and is back at 12.8 + 2 × 1.0416 = 14.8832 µs, leaving segments 8 and 9 out.
    // PTO = max(2·SRTT, 10 ms) = 10 ms (RFC 8985 §7.2 with Linux's floor): segment 9 is resent at
    // 10 014.8832 µs, reaches h0 4.4 µs later, is ACKed at once (FIN) and the ACK is back after
    // 2.0832 µs: FCT 10 021.3664 µs. Without RACK/TLP the RTO (200 ms minimum) repairs it.
    let sim = run(&star_with_drops(14480, "[9]", ""));
    let s = &tcp(&sim, 0).sender.stats;
    // (The probe's ACK completes the flow, so no window reduction is recorded for it.)
    assert_eq!((s.timeouts, s.tlp_probes, s.retransmits), (0, 1, 1), "{s:?}");
    assert_eq!(sim.flow_table().fct_ps[0], Some(10_021_366_400));
    let old = run(&star_with_drops(14480, "[9]", "rack = false
tlp = false"));
    let s = &tcp(&old, 0).sender.stats;
    assert_eq!((s.timeouts, s.tlp_probes), (1, 0));
    assert!(old.flow_table().fct_ps[0].unwrap() > Time::from_ms(200).0);
}

#[test]
fn ns3_stack_repairs_a_tail_loss_by_timeouts_that_double() {
    // `[host] stack = "ns-3"`: handshake with its ACK a packet of its own, ACK every 2nd segment
    // or after 200 ms (the first data segment at once), min RTO 1 s, no TLP/RACK. The SYN (52 B,
    // 0.0416 µs a hop) reaches h0 at 2.0832 µs and the SYN-ACK is back at t0 = 4.1664 µs, when
    // the handshake's ACK (52 B) and then the 10 segments leave; h1's wire carries SYN = packet
    // 0, the ACK = packet 1, segment k = packet k + 2. Segment 9 is lost (packet 11), and so is
    // its first retransmission (packet 12). Segment k reaches h0 at t0 + 0.0416 + 1.2k + 4.4 µs;
    // segments 0, 2, 4, 6 and 8 are ACKed at once (the first, then every second), segment 8's
    // ACK back at h1 at t0 + 0.0416 + 9.6 + 4.4 + 2.0832 = 20.2912 µs. That new ACK restarts the
    // RTO: max(SRTT + max(1 ms, 4·RTTVAR), 1 s) = 1 s. No probe: the timer fires 1 s later, the
    // retransmission is lost, the RTO doubles to 2 s; the second retransmission reaches h0
    // 4.4 µs after it leaves and, the last segment, is ACKed at once (2.0832 µs back).
    // FCT = 3 s + 20.2912 + 4.4 + 2.0832 µs = 3 000 026.7744 µs.
    let doc = star_with_drops(14480, "[11, 12]", "").replace("end = \"1s\"", "end = \"5s\"") + "[host]\nstack = \"ns-3\"\n";
    let sim = run(&doc);
    let s = &tcp(&sim, 0).sender.stats;
    assert_eq!((s.timeouts, s.tlp_probes, s.retransmits), (2, 0, 2), "{s:?}");
    assert_eq!(sim.flow_table().fct_ps[0], Some(3_000_026_774_400));
}

#[test]
fn rack_repairs_a_loss_that_three_dupacks_never_reveal() {
    // 3 segments handed to the NIC at once, the first lost: only two SACKs come back, too few
    // for RFC 6675's IsLost. RACK (RFC 8985 §6.2): segment 0 was sent before the SACKed ones
    // (same time, lower sequence) and is lost once out for RACK.rtt + min RTT / 4; the
    // reordering timer fires then, fast recovery resends it — microseconds, not an RTO.
    let sim = run(&star_with_drops(3 * 1448, "[0]", ""));
    let s = &tcp(&sim, 0).sender.stats;
    // The reordering timer fires at RACK.rtt (segment 1's, 7.6832 µs) + 1.0416 µs = 8.7248 µs,
    // before segment 2's SACK is back (8.8832 µs), so the RFC 6675 rescue retransmission also
    // resends segment 2.
    assert_eq!((s.timeouts, s.fast_recoveries, s.retransmits), (0, 1, 2), "{s:?}");
    assert!(sim.flow_table().fct_ps[0].unwrap() < Time::from_us(30).0);
    let old = run(&star_with_drops(3 * 1448, "[0]", "rack = false
tlp = false"));
    assert_eq!(tcp(&old, 0).sender.stats.timeouts, 1);
}

#[test]
fn sack_repairs_several_holes_in_one_recovery() {
    let sim = run(&one_drop(true, "[20, 22, 24]"));
    let s = &tcp(&sim, 0).sender.stats;
    assert_eq!((s.retransmits, s.timeouts, s.fast_recoveries), (3, 0, 1), "{s:?}");
}

#[test]
fn newreno_repairs_several_holes_with_partial_acks() {
    // RFC 6582: one fast retransmit, then one retransmission per partial ACK, no timeout.
    let sim = run(&one_drop(false, "[20, 22, 24]"));
    let s = &tcp(&sim, 0).sender.stats;
    assert_eq!((s.retransmits, s.timeouts, s.fast_recoveries), (3, 0, 1), "{s:?}");
}

#[test]
fn losing_a_whole_window_times_out_with_backoff() {
    // The initial window (packets 0..9) is lost, and so is the first retransmission (packet 10).
    // ACK every segment, so a lone retransmission is not held by the delayed-ACK timer.
    // RFC 6298: the timer armed at t = 0 fires at RTO = 10 ms; after back-off the next fires
    // 20 ms later, at 30 ms; then segment 0 gets through and the flow finishes shortly after.
    let sim = run(&one_drop(true, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]").replace("min_rto", "delayed_ack = 1\nmin_rto"));
    let s = &tcp(&sim, 0).sender.stats;
    assert_eq!(s.timeouts, 2, "{s:?}");
    let fct = sim.flow_table().fct_ps[0].unwrap();
    assert!(fct > Time::from_ms(30).0 && fct < Time::from_ms(31).0, "FCT {fct}");
}

#[test]
fn receive_window_limits_the_sender() {
    // rwnd = 4 segments caps the flight at 4 however large cwnd grows: with ~40 us RTT and
    // 4 x 1448 B per RTT the 100-segment flow needs at least 25 RTTs.
    let doc = one_drop(true, "[]").replace("min_rto", "rcv_buffer = 5792\nmin_rto");
    let sc = Scenario::from_toml(&doc).unwrap();
    let mut sim = Simulator::new(&sc, None);
    sim.run();
    let fct = sim.flow_table().fct_ps[0].unwrap();
    let rtt = 4 * 10_000_000u64;
    assert!(fct >= 25 * rtt, "FCT {fct} too short for rwnd = 4 segments");
    assert!(sim.conservation().holds());
}

#[test]
fn classic_ecn_halves_newreno_once_per_window() {
    let k = "discipline = \"ecn\"\necn_threshold = \"20pkt\"";
    let mut sim = run(&many_to_one(2, "newreno", "1Gbps", k, "200ms", "ecn = true"));
    let p = sim.port_table();
    let i = p.find("s0->h0").unwrap();
    assert!(p.ecn_marks[i] > 0);
    assert_eq!(p.drops[i], 0, "ECN keeps the queue below the buffer");
    assert!(tcp(&sim, 0).sender.stats.ecn_reductions > 0);
    // Reductions are at most one per RTT-ish window, far fewer than marks.
    let red: u64 = (0..2).map(|f| tcp(&sim, f).sender.stats.ecn_reductions).sum();
    assert!(red < p.ecn_marks[i], "{red} reductions for {} marks", p.ecn_marks[i]);
}

#[test]
fn first_rto_comes_from_the_handshake_rtt_unless_told_otherwise() {
    // The whole initial window is lost. With the handshake's RTT sample (≈ 40 µs idle path),
    // RFC 6298 gives RTO = max(min_rto, 3R) = 10 ms; with initial_rto = "1s" (no sample) it is 1 s.
    let base = one_drop(true, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]").replace("initial_rto = \"10ms\"\n", "").replace("min_rto", "delayed_ack = 1\nmin_rto");
    let fct = |doc: &str| run(doc).flow_table().fct_ps[0].unwrap();
    let seeded = fct(&base);
    assert!(seeded > Time::from_ms(10).0 && seeded < Time::from_ms(11).0, "FCT {seeded}");
    let rfc = fct(&base.replace("min_rto", "initial_rto = \"1s\"\nmin_rto").replace("end = \"500ms\"", "end = \"2s\""));
    assert!(rfc > Time::from_ms(1000).0 && rfc < Time::from_ms(1001).0, "FCT {rfc}");
}

/// h1 sends a long flow to h0 whose window fills h1's NIC queue; at 1 ms h0 sends h1 one segment,
/// whose ACK leaves through that NIC.
fn ack_behind_data(extra_tcp: &str, host_queue: &str) -> String {
    format!(
        r#"
[simulation]
end = "2ms"
[topology]
kind = "star"
hosts = 2
link = {{ rate = "10Gbps", delay = "1us" }}
{host_queue}
[transport]
mss = 1448
delayed_ack = 1
handshake = false
{extra_tcp}
[[flows]]
src = "h1"
dst = "h0"
[[flows]]
src = "h0"
dst = "h1"
size = "1448B"
start = "1ms"
"#
    )
}

#[test]
fn ack_class_lets_acks_pass_the_hosts_own_data() {
    // htsim's hosts serve ACKs (PRIO_HI) before data (FairPriorityQueue). Idle round trip of the
    // one segment: 2 x (1.2 us + 1 us) for 1500 B of data, 2 x (41.6 ns + 1 us) for the 52 B ACK
    // = 6.483 us. h1's NIC holds the long flow's window (up to its 100-packet send limit, 1.2 us
    // each): FIFO, the ACK waits behind all of it; in its own queue ahead of the data, at most
    // for the packet being sent (1.2 us) and a few of the long flow's ACKs at h0 and s0.
    let rtt = 2 * (1_200_000 + 1_000_000) + 2 * (41_600 + 1_000_000);
    let fct = |doc: &str| run(doc).flow_table().fct_ps[1].unwrap();
    let fifo = fct(&ack_behind_data("", ""));
    assert!(fifo > rtt + 20 * 1_200_000, "FIFO: FCT {fifo} ps, expected the ACK behind > 20 packets");
    let split = "[host_queue]\nqueues = 2\nclasses = [0, 1]";
    let first = fct(&ack_behind_data("class = 1\nack_class = 0", split));
    assert!(first >= rtt && first < rtt + 1_200_000 + 200_000, "ack_class 0: FCT {first} ps, expected {rtt} + at most one packet");
    // The same split without ack_class changes nothing: the ACKs keep the flow's class 1.
    assert_eq!(fct(&ack_behind_data("class = 1", split)), fifo);
}

/// n long-lived flows of `cc` through a 10 Gb/s dumbbell bottleneck (40 Gb/s hosts, ≈ 80 µs base
/// RTT, so BDP ≈ 67 packets) with an 84-packet (≈ BDP) drop-tail buffer.
fn cc_dumbbell(cc: &str, n: usize, end: &str) -> String {
    let mut flows = String::new();
    for i in 0..n {
        flows += &format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h{n}\"\nstart = \"{}us\"\n", i * 100);
    }
    format!(
        r#"
[simulation]
end = "{end}"
[topology]
kind = "dumbbell"
left = {n}
right = 1
link = {{ rate = "40Gbps", delay = "5us" }}
bottleneck = {{ rate = "10Gbps", delay = "30us", queue = {{ buffer = "84pkt" }} }}
[transport]
cc = "{cc}"
min_rto = "5ms"
{flows}
"#
    )
}

const LOSS_BASED: &[&str] = &["newreno", "cubic", "bic", "highspeed", "htcp", "hybla", "scalable", "veno", "westwood", "illinois", "yeah"];

#[test]
fn every_loss_based_cc_fills_a_bdp_buffered_bottleneck() {
    for cc in LOSS_BASED {
        let mut sim = run(&cc_dumbbell(cc, 1, "100ms"));
        let p = sim.port_table();
        let i = p.find("s0->s1").unwrap();
        println!("{cc}: utilization {:.3}, mean queue {:.1} packets", p.utilization[i], p.mean_queue_packets[i]);
        assert!(p.utilization[i] > 0.9, "{cc}: utilization {}", p.utilization[i]);
        assert_eq!(tcp(&sim, 0).sender.stats.timeouts, 0, "{cc}: losses are repaired without timeouts");
    }
}

#[test]
fn vegas_keeps_alpha_to_beta_packets_queued() {
    // Vegas (Brakmo & Peterson, IEEE JSAC 1995): one Vegas flow keeps α..β = 2..4 packets in the bottleneck queue.
    let mut sim = run(&cc_dumbbell("vegas", 1, "100ms"));
    let p = sim.port_table();
    let i = p.find("s0->s1").unwrap();
    println!("vegas: utilization {:.3}, mean queue {:.1}", p.utilization[i], p.mean_queue_packets[i]);
    assert!(p.utilization[i] > 0.95);
    assert!((1.5..=5.0).contains(&p.mean_queue_packets[i]), "mean queue {}", p.mean_queue_packets[i]);
}

#[test]
fn two_flows_of_one_cc_share_fairly() {
    // Scalable (MIMD never converges to fairness; Kelly 2003), YeAH (in its Scalable fast mode with
    // this small buffer) and Vegas (a late flow measures an inflated BaseRTT; Brakmo & Peterson
    // 1995, Low et al. 2002) are reported, not asserted. Illinois too: its delay-driven α/β use
    // each flow's own base and maximum RTT, and the second flow's base RTT includes the first
    // one's queue; its Jain index ranges 0.78-0.99 over second-flow start offsets of 0.1-5 ms,
    // with or without RACK/TLP (docs/CONGESTION_CONTROL.md).
    for cc in LOSS_BASED.iter().chain(["vegas", "nv", "cdg", "bbr"].iter()) {
        let sim = run(&cc_dumbbell(cc, 2, "1s"));
        let j = jain(&goodputs(&sim));
        println!("{cc}: two-flow Jain index {j:.3}");
        if !["scalable", "vegas", "yeah", "illinois"].contains(cc) {
            assert!(j >= 0.95, "{cc}: Jain {j}");
        }
    }
}

#[test]
fn ledbat_holds_the_queuing_delay_at_its_target() {
    // RFC 6817 §2.4: a lone LEDBAT flow settles where its queuing-delay
    // estimate equals TARGET. 50 µs at 10 Gb/s is ≈ 42 packets of 1.2 µs.
    let doc = cc_dumbbell("ledbat", 1, "60ms")
        .replace("buffer = \"84pkt\"", "buffer = \"200pkt\"")
        .replace("min_rto", "ledbat_target = \"50us\"\nmin_rto")
        + "[output]\nsample_interval = \"20us\"\nqueues = [\"s0->s1\"]\n";
    let sim = run(&doc);
    let s = &sim.series;
    let q: Vec<f64> = (0..s.value.len())
        .filter(|&i| s.metric[i] == crate::output::Metric::QueuePackets && s.time_ps[i] >= Time::from_ms(20).0)
        .map(|i| s.value[i])
        .collect();
    let delay_us = q.iter().sum::<f64>() / q.len() as f64 * 1.2;
    println!("ledbat: queuing delay {delay_us:.1} us (target 50 us)");
    assert!((delay_us - 50.0).abs() < 10.0, "queuing delay {delay_us} us");
}

#[test]
fn nv_fills_the_path_with_about_its_pad_queued() {
    // Linux tcp_nv: cwnd is held near rate·min_RTT + nv_pad (10 packets), so a lone flow keeps the
    // link busy with a short queue and, with an 84-packet buffer, no losses.
    let mut sim = run(&cc_dumbbell("nv", 1, "100ms"));
    let p = sim.port_table();
    let i = p.find("s0->s1").unwrap();
    println!("nv: utilization {:.3}, mean queue {:.1}, drops {}", p.utilization[i], p.mean_queue_packets[i], p.drops[i]);
    assert!(p.utilization[i] > 0.95);
    assert!(p.mean_queue_packets[i] < 2.0 * 10.0, "mean queue {}", p.mean_queue_packets[i]);
    assert_eq!(p.drops[i], 0);
}

#[test]
fn cdg_backs_off_on_delay_gradients_at_wan_rtts() {
    // 100 Mb/s bottleneck, ≈ 10 ms RTT, 2·BDP buffer: the queue grows ~120 µs per round, so CDG's
    // back-off probability (1 − e^{−g·42/2^20} with g ≈ 8 × 120 µs) is a few % per round and it
    // reduces before the buffer overflows; NewReno only reacts to drops.
    let doc = |cc: &str| {
        cc_dumbbell(cc, 1, "4s")
            .replace("rate = \"10Gbps\", delay = \"30us\", queue = { buffer = \"84pkt\" }", "rate = \"100Mbps\", delay = \"4990us\", queue = { buffer = \"170pkt\" }")
            .replace("min_rto = \"5ms\"", "min_rto = \"200ms\"")
    };
    let drops = |sim: &mut Simulator| {
        let p = sim.port_table();
        p.drops[p.find("s0->s1").unwrap()]
    };
    let mut reno = run(&doc("newreno"));
    let mut cdg = run(&doc("cdg"));
    let backoffs = match &tcp(&cdg, 0).sender.cc {
        crate::transport::tcp::cc::Cc::Cdg(c) => c.backoffs,
        _ => unreachable!(),
    };
    let (dr, dc) = (drops(&mut reno), drops(&mut cdg));
    println!("cdg: {backoffs} delay back-offs, {dc} drops; newreno: {dr} drops");
    assert!(backoffs > 0);
    assert!(dc < dr, "cdg drops {dc} vs newreno {dr}");
}

#[test]
fn bbr_fills_the_pipe_with_at_most_a_bdp_queued() {
    // BBR (Cardwell et al., ACM Queue 2016; draft-cardwell-iccrg-bbr-congestion-control): inflight ≤ cwnd_gain·BDP = 2·BDP, so a lone BBR flow's standing queue is at
    // most one BDP (≈ 67 packets here) and utilization ≈ 100 % (no PROBE_RTT within 100 ms).
    let mut sim = run(&cc_dumbbell("bbr", 1, "100ms"));
    let p = sim.port_table();
    let i = p.find("s0->s1").unwrap();
    println!("bbr: utilization {:.3}, mean queue {:.1}, drops {}", p.utilization[i], p.mean_queue_packets[i], p.drops[i]);
    assert!(p.utilization[i] > 0.95, "utilization {}", p.utilization[i]);
    assert!(p.mean_queue_packets[i] < 67.0, "mean queue {}", p.mean_queue_packets[i]);
    let c = tcp(&sim, 0);
    match &c.sender.cc {
        crate::transport::tcp::cc::Cc::Bbr(b) => {
            assert!(b.full_bw_reached, "STARTUP found the bottleneck");
            // BtlBw ≈ 10 Gb/s / 1500 B = 833 333 segments/s.
            assert!((b.max_bw() / 833_333.0 - 1.0).abs() < 0.05, "BtlBw {}", b.max_bw());
        }
        _ => unreachable!(),
    }
}

#[test]
fn lp_yields_to_newreno() {
    // TCP-LP is a scavenger (Kuzmanovic & Knightly 2003): next to a NewReno flow it takes a small
    // share and the link stays full. ACK every segment: at cwnd = 1 a delayed ACK would stall LP for
    // the delayed-ACK timeout, as it would in Linux. Its stand-alone utilization at µs RTTs (74 %
    // here) is reported in docs/CONGESTION_CONTROL.md, not asserted.
    let doc = cc_dumbbell("newreno", 2, "200ms")
        .replace("min_rto", "delayed_ack = 1\nmin_rto")
        .replace("[[flows]]\nsrc = \"h1\"", "[[flows]]\ntransport = \"lp\"\nsrc = \"h1\"");
    let mut sim = run(&doc);
    let g = goodputs(&sim);
    let lp_share = g[1] / (g[0] + g[1]);
    let p = sim.port_table();
    let u = p.utilization[p.find("s0->s1").unwrap()];
    println!("lp share next to newreno: {lp_share:.3}, utilization {u:.3}");
    assert_eq!(tcp(&sim, 1).cfg.cc.name(), "lp");
    assert!(lp_share < 0.2, "LP took {lp_share}");
    assert!(u > 0.95);
}

#[test]
fn every_cc_coexists_with_newreno() {
    // Friendliness smoke test: each algorithm against one NewReno flow on the BDP-buffered
    // dumbbell. The link stays full and neither flow is starved (scavengers, LP and LEDBAT, are
    // meant to yield; DCTCP without ECN marks is Reno). Shares are reported in
    // docs/CONGESTION_CONTROL.md.
    let all = ["dctcp", "cubic", "bic", "highspeed", "htcp", "hybla", "scalable", "veno", "westwood", "vegas", "illinois", "yeah", "nv", "cdg", "bbr"];
    for cc in all {
        let doc = cc_dumbbell("newreno", 2, "300ms").replace("[[flows]]\nsrc = \"h1\"", &format!("[[flows]]\ntransport = \"{cc}\"\nsrc = \"h1\""));
        let mut sim = run(&doc);
        let g = goodputs(&sim);
        let share = g[1] / (g[0] + g[1]);
        let p = sim.port_table();
        let u = p.utilization[p.find("s0->s1").unwrap()];
        println!("{cc} vs newreno: share {share:.3}, utilization {u:.3}");
        assert!(u > 0.95, "{cc}: utilization {u}");
        assert!((0.05..0.95).contains(&share), "{cc}: share {share}");
    }
}

/// One CUBIC flow over a 12 Mb/s, 100 ms-RTT bottleneck (BDP = 100 packets of 1500 B, one per
/// millisecond) with a 100-packet buffer.
fn cubic_long_rtt(hystart: bool, ssthresh: &str, end: &str) -> String {
    format!(
        r#"
[simulation]
end = "{end}"
[topology]
kind = "dumbbell"
left = 1
right = 1
link = {{ rate = "1Gbps", delay = "1us" }}
bottleneck = {{ rate = "12Mbps", delay = "50ms", queue = {{ buffer = "100pkt" }} }}
[transport]
cc = "cubic"
cubic_hystart = {hystart}
initial_ssthresh = {ssthresh}
[[flows]]
src = "h0"
dst = "h1"
[output]
sample_interval = "10ms"
cwnd = [0]
"#
    )
}

#[test]
fn cubic_window_follows_the_cubic_curve_after_a_loss() {
    // RFC 9438 §4.2: after a loss at W_max, W(t) = C·(t − K)³ + W_max with K = ∛(W_max·(1 − β)/C),
    // t from the epoch start plus the minimum RTT (Linux). The flow grows from 50 segments until the
    // 200-packet pipe (BDP + buffer) overflows at ≈ 210 (K ≈ 5.4 s); it climbs the concave part
    // of the curve until it overflows the pipe again near 200 (≈ 3 s later, run ends before).
    // Every cwnd sample in between must sit on the curve.
    let sim = run(&cubic_long_rtt(false, "50", "7s"));
    let c = tcp(&sim, 0);
    let Cc::Cubic(cubic) = &c.sender.cc else { panic!() };
    let (w_max, epoch) = cubic.epoch();
    let epoch = epoch.expect("an epoch after the loss");
    let s = &sim.series;
    let cwnd: Vec<(f64, f64)> = (0..s.value.len()).map(|i| (s.time_ps[i] as f64 / 1e12, s.value[i])).collect();
    let peak = cwnd.iter().filter(|(t, _)| *t < epoch.secs_f64()).map(|&(_, w)| w).fold(0.0, f64::max);
    assert!((w_max - peak).abs() <= 1.0, "W_max {w_max} is the window at the loss ({peak})");
    assert!((190.0..=215.0).contains(&w_max), "the pipe holds about 200 packets: {w_max}");
    let (c_, beta) = (0.4, 0.7);
    let k = (w_max * (1.0 - beta) / c_).cbrt();
    let min_rtt = c.sender.tcb.min_rtt.unwrap().secs_f64();
    let mut checked = 0;
    for &(t, w) in &cwnd {
        let x = t - epoch.secs_f64();
        if !(0.2..=2.8).contains(&x) {
            continue;
        }
        // cwnd chases W(t + min RTT) ACK by ACK, so it trails the curve by up to one RTT (at most
        // 0.2 s here: 100 ms of path and up to 100 ms of queue).
        let w_at = |x: f64| c_ * (x - k).powi(3) + w_max;
        let (lo, hi) = (w_at(x - 0.2) - 1.0, w_at(x + min_rtt) + 1.0);
        assert!(lo <= w && w <= hi, "t = {t:.2} s: cwnd {w} outside W(t) band [{lo:.1}, {hi:.1}]");
        checked += 1;
    }
    assert!(checked > 200);
}

#[test]
fn hystart_leaves_slow_start_before_the_buffer_overflows() {
    // Without HyStart slow start doubles into the 200-packet pipe and loses a burst. With it: ACKs
    // (one per two segments) arrive about every 2 ms once the bottleneck is busy, so a round that
    // starts at cwnd W holds W/2 ACKs and its train lasts ≈ W ms; it can exceed half the 100 ms
    // RTT only from the round that starts at 80 (rounds: 10, 20, 40, 80), after ≥ 25 more ACKs
    // (+2 segments each): slow start ends with ssthresh = cwnd above 130 and below the pipe.
    // (Congestion avoidance then reaches the pipe at ≈ 2.1 s; the runs stop at 1.5 s.)
    let plain = run(&cubic_long_rtt(false, "\"unlimited\"", "1500ms"));
    assert!(tcp(&plain, 0).sender.stats.retransmits > 10);
    let hy = run(&cubic_long_rtt(true, "\"unlimited\"", "1500ms"));
    let c = tcp(&hy, 0);
    let Cc::Cubic(cubic) = &c.sender.cc else { panic!() };
    assert_eq!(cubic.hystart_exits, 1);
    assert!((130..=190).contains(&c.sender.tcb.ssthresh), "ssthresh {}", c.sender.tcb.ssthresh);
    assert_eq!(c.sender.stats.retransmits, 0);
}

/// Two 5 MB flows through a 10 Gb/s ECN bottleneck (K = 20), with deadlines `da` and `db`.
fn deadline_pair(cc: &str, da: &str, db: &str) -> String {
    format!(
        r#"
[simulation]
end = "50ms"
[topology]
kind = "dumbbell"
left = 2
right = 1
link = {{ rate = "40Gbps", delay = "2us" }}
bottleneck = {{ rate = "10Gbps", delay = "5us", queue = {{ buffer = "200pkt", discipline = "ecn", ecn_threshold = "20pkt" }} }}
[transport]
cc = "{cc}"
min_rto = "1ms"
[[flows]]
src = "h0"
dst = "h2"
size = "5MB"
{da}
[[flows]]
src = "h1"
dst = "h2"
size = "5MB"
{db}
"#
    )
}

#[test]
fn d2tcp_without_deadlines_is_dctcp() {
    // d = 1 for flows without a deadline: p = α, DCTCP's cut — the same run, event for event.
    let a = run(&deadline_pair("dctcp", "", ""));
    let b = run(&deadline_pair("d2tcp", "", ""));
    let (ta, tb) = (a.flow_table(), b.flow_table());
    assert_eq!(ta.fct_ps, tb.fct_ps);
    assert_eq!(ta.ecn_reductions, tb.ecn_reductions);
    assert_eq!(a.events_processed(), b.events_processed());
}

#[test]
fn d2tcp_gives_way_to_the_nearer_deadline() {
    // Fair sharing finishes both 5 MB flows in ≈ 8 ms, missing a 7 ms deadline. D2TCP cuts the
    // flow near its deadline less (d > 1) and the far one more (d = 0.5): the near flow makes it
    // (SIGCOMM 2012 §3), the far one still meets its 40 ms.
    let dctcp = run(&deadline_pair("dctcp", "deadline = \"7ms\"", "deadline = \"40ms\"")).flow_table();
    assert_eq!(dctcp.deadline_met, vec![Some(false), Some(true)]);
    let d2 = run(&deadline_pair("d2tcp", "deadline = \"7ms\"", "deadline = \"40ms\"")).flow_table();
    assert_eq!(d2.deadline_met, vec![Some(true), Some(true)]);
    assert!(d2.fct_ps[0].unwrap() < d2.fct_ps[1].unwrap());
    assert_eq!(d2.deadline_ps[0], Some(7_000_000_000));
}

#[test]
fn knobs_change_the_algorithms_rules() {
    // Scalable with md_shift = 1 halves on loss instead of cutting 1/8; BBR's STARTUP gain and
    // Veno's backlog threshold follow their knobs (each checked through a connection's state).
    use crate::transport::tcp::cc::{knobs_of, CongestionOps, Knobs};
    let set = |cc: &str, name: &str, v: f64| {
        let mut k = Knobs::default();
        k.0[knobs_of(cc).iter().position(|n| n.name == name).unwrap()] = Some(v);
        k
    };
    let mut s = CcKind::Scalable.build(1, &set("scalable", "md_shift", 1.0));
    assert_eq!(s.ssthresh(&crate::transport::tcp::cc::tcb(200, 100)), 100);
    let mut s = CcKind::Scalable.build(1, &Knobs::default());
    assert_eq!(s.ssthresh(&crate::transport::tcp::cc::tcb(200, 100)), 175);
    let Cc::Bbr(b) = CcKind::Bbr.build(1, &set("bbr", "high_gain", 2.0)) else { panic!() };
    assert_eq!(b.pacing_gain, 2.0);
    let Cc::Cubic(c) = CcKind::Cubic.build(1, &set("cubic", "beta", 0.5)) else { panic!() };
    let mut c = c;
    assert_eq!(c.ssthresh(&crate::transport::tcp::cc::tcb(100, 50)), 50);
    // A whole run with a knob: Scalable with md_shift 1 cuts deeper, so its mean queue is lower.
    let q = |extra: &str| {
        let mut sim = run(&cc_dumbbell("scalable", 1, "50ms").replace("min_rto = \"5ms\"", &format!("min_rto = \"5ms\"\n{extra}")));
        let p = sim.port_table();
        p.mean_queue_packets[p.find("s0->s1").unwrap()]
    };
    assert!(q("cc_params = { md_shift = 1 }") < q(""));
}

#[test]
fn a_linux_2_6_38_host_starts_with_3_segments_and_quick_acks() {
    // [host] stack = "linux-2.6.38": IW 3 (RFC 3390 at MSS 1448), so 3 + 6 + 12 + 24 = 45
    // segments take 4 rounds and the 46th a 5th (every ACK alone here: the window grows from
    // 14 480 to 65 535 B over the first 18 segments and the credits cover the next 4, after which
    // the windows come as pairs; growth per segment ACKed keeps the doubling).
    let rtt = 400_000_000u64 + 2 * 1_200_000 + 2 * 41_600;
    let strip = |d: String| d.replace("initial_cwnd = 10\ndelayed_ack = 1\nmin_rto = \"10ms\"\n", "");
    for (segs, rounds) in [(3u64, 1u64), (45, 4), (46, 5)] {
        let doc = strip(long_path(&(segs * 1448).to_string(), "")) + "[host]\nstack = \"linux-2.6.38\"\n";
        let sim = run(&doc);
        let c = tcp(&sim, 0);
        assert_eq!(c.cfg.initial_cwnd, 3);
        let fct = sim.flow_table().fct_ps[0].unwrap();
        assert!(fct >= rounds * rtt && fct < rounds * rtt + 100_000_000, "{segs} segments: FCT {fct} ps is not {rounds} rounds of {rtt} ps");
    }
    // 100 segments: 18 growth segments + 4 credits ACKed alone, then 78 in pairs (the last,
    // the FIN, at once either way): 22 + 39 = 61 ACKs.
    let sim = run(&(strip(long_path(&(100 * 1448).to_string(), "")) + "[host]\nstack = \"linux-2.6.38\"\n"));
    assert_eq!(tcp(&sim, 0).receiver.acks_sent, 61);
    // The engine's own defaults: IW 10 and an ACK per 2 segments from the start: 50 ACKs.
    let sim = run(&strip(long_path(&(100 * 1448).to_string(), "")));
    assert_eq!(tcp(&sim, 0).receiver.acks_sent, 50);
}

/// Three senders into one 20-packet port, on a network `k` times slower than `fast` (rates / k,
/// delays and start times x k), with `[host] time_dilation = tdf`.
fn dilation_case(cc: &str, k: u64, tdf: u32) -> String {
    let rate = 10_000 / k; // Mb/s
    let mut doc = format!(
        r#"
[simulation]
end = "{end}ms"
stop_when_done = true
[topology]
kind = "star"
hosts = 4
link = {{ rate = "{rate}Mbps", delay = "{d}ns" }}
[queue]
buffer = "{buf}"
[host]
stack = "linux-4.15"
time_dilation = {tdf}
[transport]
cc = "{cc}"
"#,
        end = 2_000 * k,
        d = 5_000 * k,
        buf = "8pkt",
    );
    for (i, src) in ["h1", "h2", "h3"].iter().enumerate() {
        doc.push_str(&format!("[[flows]]\nsrc = \"{src}\"\ndst = \"h0\"\nsize = \"300KB\"\nstart = \"{}ns\"\n", 10_000 * k * i as u64));
    }
    doc
}

#[test]
fn time_dilation_is_a_change_of_units() {
    // Etalon (reTCP §4.3): a 0.5 Gb/s network with 100 us links run by real kernels is emulated
    // as 10 Gb/s with 5 us links under a dilation factor of 20. So the dilated scenario must be
    // the slow one with every time divided by 20 — flow completion times, retransmissions and
    // timeouts alike — for loss-based, delay-sensing and rate-based algorithms.
    for cc in ["cubic", "newreno", "bbr", "htcp"] {
        let slow = run(&dilation_case(cc, 20, 1));
        let emulated = run(&dilation_case(cc, 1, 20));
        let (a, b) = (emulated.flow_table(), slow.flow_table());
        for i in 0..3 {
            let (fa, fb) = (a.fct_ps[i].unwrap(), b.fct_ps[i].unwrap());
            let err = (fa as f64 * 20.0 - fb as f64).abs() / fb as f64;
            assert!(err < 1e-6, "{cc} flow {i}: {fa} ps x 20 vs {fb} ps");
            let (sa, sb) = (&tcp(&emulated, i).sender.stats, &tcp(&slow, i).sender.stats);
            assert_eq!((sa.retransmits, sa.timeouts), (sb.retransmits, sb.timeouts), "{cc} flow {i}");
        }
        let drops: u64 = (0..3).map(|i| tcp(&slow, i).sender.stats.retransmits).sum();
        let timeouts: u64 = (0..3).map(|i| tcp(&slow, i).sender.stats.timeouts).sum();
        assert!(drops > 0, "{cc}: the case must lose packets to exercise the timers");
        assert!(cc != "bbr" || timeouts > 0, "BBR's case must time out");
    }
    // Without dilation the emulated network keeps the kernel's 200 ms minimum RTO in its own
    // time: BBR's timeouts last 20 times longer.
    let plain = run(&dilation_case("bbr", 1, 1));
    let dilated = run(&dilation_case("bbr", 1, 20));
    assert_ne!(plain.flow_table().fct_ps, dilated.flow_table().fct_ps);
}

#[test]
fn an_application_rate_spaces_new_data_and_bounds_the_fct() {
    // 100 segments written at 100 Mb/s: the last byte (144 800 B) is written 11.584 ms after the
    // start; its segment leaves then and its ACK is back one idle RTT (402.5 us) later at most.
    let doc = long_path(&(100 * 1448).to_string(), "app_rate = \"100Mbps\"");
    let sim = run(&doc);
    let fct = sim.flow_table().fct_ps[0].unwrap();
    let write = 144_800u64 * 8 * 10_000; // ps at 100 Mb/s
    let rtt = 400_000_000u64 + 2 * 1_200_000 + 2 * 41_600;
    assert!(fct >= write && fct <= write + rtt, "FCT {fct} ps vs writing {write} ps + RTT {rtt} ps");
    let c = tcp(&sim, 0);
    assert_eq!((c.sender.stats.segments_sent, c.sender.stats.retransmits), (100, 0));
    // Faster than the window allows, the rate does not bind: the FCT is the unlimited one.
    let free = run(&long_path(&(100 * 1448).to_string(), "")).flow_table().fct_ps[0].unwrap();
    let fast = run(&long_path(&(100 * 1448).to_string(), "app_rate = \"1000Gbps\"")).flow_table().fct_ps[0].unwrap();
    assert!(fast >= free && fast < free + 2_000_000, "{fast} vs {free}");
}

/// Connections of one configuration read one shared copy of it, made as `for_connection` makes
/// it; a different configuration gets its own, and only the most recent few are searched.
#[test]
fn shared_configs_share_equal_configurations() {
    use super::{SharedConfigs, TcpConfig};
    use std::sync::Arc;
    let mut shared = SharedConfigs::default();
    let reno = TcpConfig::default();
    let first = shared.get(&reno);
    assert!(Arc::ptr_eq(&first, &shared.get(&reno)));
    // HPCC's connections ACK every packet and carry telemetry whatever the keys said.
    let hpcc = TcpConfig { cc: CcKind::Hpcc, ..reno };
    let h = shared.get(&hpcc);
    assert!(!Arc::ptr_eq(&first, &h));
    assert_eq!((h.delack_count, h.telemetry), (1, true));
    assert_eq!((first.delack_count, first.telemetry), (reno.delack_count, false));
    assert!(Arc::ptr_eq(&first, &shared.get(&reno)), "found again after another configuration");
    // Eight newer configurations push the first out of the search: an equal copy of its own.
    for mss in 1..=8 {
        shared.get(&TcpConfig { mss: 1000 + mss, ..reno });
    }
    let again = shared.get(&reno);
    assert!(!Arc::ptr_eq(&first, &again));
    assert_eq!(*first, *again);
}

/// Every connection of a scenario with one TCP configuration shares it.
#[test]
fn flows_of_one_configuration_share_it() {
    let mut doc = long_path("100KB", "");
    for i in 0..5 {
        doc.push_str(&format!("[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = \"{}KB\"\n", 10 + i));
    }
    let sim = run(&doc);
    let first = &tcp(&sim, 0).cfg;
    assert_eq!(sim.flows.len(), 6);
    for i in 1..6 {
        assert!(std::sync::Arc::ptr_eq(first, &tcp(&sim, i).cfg), "flow {i}");
    }
    // The six connections and the simulator's table.
    assert_eq!(std::sync::Arc::strong_count(first), 7);
}

/// A connection's size is what hundreds of thousands of elephants (AccelToR at 72 racks) or a
/// k = 48 permutation multiply: the configuration is shared, not copied (2.5 KB → 1.7 KB), and the
/// congestion control's slot is as large as its largest inline state, so PPT (480 B) and CDG
/// (280 B) are boxed. A larger state added inline fails here: box it as `cc/ppt.rs` does.
#[test]
fn a_connection_is_small() {
    use crate::transport::tcp::{cc::Cc, TcpConnection};
    use std::mem::size_of;
    assert!(size_of::<Cc>() <= 224, "Cc is {} bytes", size_of::<Cc>());
    assert!(size_of::<TcpConnection>() <= 1700, "TcpConnection is {} bytes", size_of::<TcpConnection>());
}
