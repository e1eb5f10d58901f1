//! HPCC and the Swift-like window in tiny scenarios, pinned to the papers' targets (HPCC: link
//! utilization η with a near-empty queue; Swift: fabric delay at its target, line rate for one
//! flow) and to the ideal FCT of a lone flow (`output::ideal_fct`).

use crate::scenario::Scenario;
use crate::sim::testing::{jain, run, tcp};
use crate::sim::Simulator;
use crate::time::Time;
use crate::transport::tcp::cc::Cc;

/// n senders h1..hn to h0 through one switch; 10 Gb/s links of `delay`; long flows unless
/// `size` is given; `extra` goes into [transport].
fn star(n: usize, cc: &str, delay: &str, end: &str, size: Option<&str>, extra: &str) -> String {
    let mut flows = String::new();
    for i in 1..=n {
        let size = size.map(|s| format!("size = \"{s}\"\n")).unwrap_or_default();
        flows += &format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h0\"\nstart = \"{}us\"\n{size}", i - 1);
    }
    format!(
        r#"
[simulation]
end = "{end}"
[topology]
kind = "star"
hosts = {hosts}
link = {{ rate = "10Gbps", delay = "{delay}" }}
[queue]
buffer = "1000pkt"
[transport]
cc = "{cc}"
min_rto = "1ms"
{extra}
{flows}
"#,
        hosts = n + 1
    )
}

/// Run `doc`, skipping the first `warm_ms`; per port named: utilization and mean queue (bytes)
/// from then to the end, and drops over the whole run.
fn measured(doc: &str, warm_ms: u64, ports: &[&str]) -> (Simulator, Vec<(f64, f64, u64)>) {
    let mut sim = Simulator::new(&Scenario::from_toml(doc).unwrap_or_else(|e| panic!("{e}")), None);
    let ids: Vec<_> = ports.iter().map(|n| sim.fabric.net.port_by_name(n).unwrap()).collect();
    let warm = Time::from_ms(warm_ms);
    sim.run_until(warm);
    let before: Vec<_> = ids.iter().map(|p| {
        let s = &sim.fabric.net.ports[p.idx()].stats;
        (s.busy_time, s.queue_area_bytes)
    }).collect();
    sim.run();
    let span = (sim.now() - warm).0 as f64;
    let out = ids.iter().zip(before).map(|(p, (busy, area))| {
        let s = &sim.fabric.net.ports[p.idx()].stats;
        ((s.busy_time - busy).0 as f64 / span, (s.queue_area_bytes - area) as f64 / span, s.drops)
    }).collect();
    (sim, out)
}

/// The idle RTT of a 1500-B segment and its 52-B ACK over two 10 Gb/s links of `d_us` each.
fn base_rtt_us(d_us: f64) -> f64 {
    2.0 * (1.2 + d_us) + 2.0 * (0.0416 + d_us)
}

#[test]
fn hpcc_settles_at_eta_with_an_empty_queue() {
    // HPCC §3 / §5: on one bottleneck the flows hold the most loaded hop's normalized inflight
    // at η, so the link runs at ≈ 95 % and the queue stays near empty. 4 long flows, 5 µs
    // wires (T ≈ 22.5 µs, B·T ≈ 28 KB ≈ 19 segments), 4 ms; the first 1 ms is skipped.
    for n in [2usize, 4] {
        let (sim, m) = measured(&star(n, "hpcc", "5us", "4ms", None, ""), 1, &["s0->h0"]);
        let (util, mean_q, drops) = m[0];
        let u: Vec<f64> = (0..n).map(|i| match &tcp(&sim, i).sender.cc { Cc::Hpcc(h) => h.u, _ => unreachable!() }).collect();
        println!("hpcc x{n}: utilization {util:.4}, mean queue {mean_q:.0} B, drops {drops}, U {u:?}");
        assert!((util - 0.95).abs() < 0.03, "x{n}: utilization {util:.4} is not η = 0.95 ± 0.03");
        // Near-empty queue: each sender's window exceeds its share of η·B·T by at most one
        // segment (cwnd = ⌈W/segment⌉) plus maxStage·W_AI (≈ 7 B each here), so the standing
        // queue cannot exceed n segments (minus the 5 % headroom); the mean is far below it.
        assert!(mean_q < 1500.0 * n as f64, "x{n}: mean queue {mean_q} B");
        assert_eq!(drops, 0);
    }
}

#[test]
fn hpcc_shares_converge_when_w_ai_fits_the_flows() {
    // Every flow adds the same W_AI per RTT while multiplicative updates keep ratios, so the
    // shares converge at a speed set by W_AI (HPCC §3.3). With W_AI = W_init(1 − η)/N for the
    // N = 4 flows present (`ai_flows = 4`: their additive steps together fill the 5 % headroom),
    // 4 flows share fairly over 20–40 ms. (With the default N = 100, W_AI ≈ 7 B against ≈ 7 KB
    // windows: the shares wander for tens of ms, Jain 0.82 over the same span.)
    let doc = star(4, "hpcc", "5us", "40ms", None, "cc_params = { ai_flows = 4 }");
    let mut sim = Simulator::new(&Scenario::from_toml(&doc).unwrap(), None);
    sim.run_until(Time::from_ms(20));
    let before: Vec<f64> = (0..4).map(|i| tcp(&sim, i).receiver.delivered() as f64).collect();
    sim.run();
    let got: Vec<f64> = (0..4).map(|i| tcp(&sim, i).receiver.delivered() as f64 - before[i]).collect();
    println!("hpcc x4 (ai_flows 4) shares over 20-40 ms: {got:?}, Jain {}", jain(&got));
    assert!(jain(&got) > 0.99, "Jain {} of {got:?}", jain(&got));
}

#[test]
fn hpcc_lone_flow_meets_the_ideal_fct_then_runs_at_eta() {
    // A flow within the first window (W_init = B·T ≈ 28 KB) leaves paced at line rate: FCT =
    // ideal (slowdown 1 within the 1 ps rounding of the pacing gap per packet).
    let sim = run(&star(1, "hpcc", "5us", "10ms", Some("14480"), ""));
    let t = sim.flow_table();
    let s = t.slowdown[0].unwrap();
    assert!((1.0..1.0001).contains(&s), "slowdown {s}");
    // A long flow settles at U = η on its own NIC hop: slowdown ≈ 1/η = 1.053 (HPCC §5's
    // "5 % headroom" cost for long flows).
    let sim = run(&star(1, "hpcc", "5us", "10ms", Some("2MB"), ""));
    let t = sim.flow_table();
    let s = t.slowdown[0].unwrap();
    println!("hpcc 2 MB slowdown {s:.4}");
    assert!((1.03..1.08).contains(&s), "slowdown {s}");
}

#[test]
fn swift_lone_flow_meets_the_ideal_fct() {
    // 1 µs wires: B·RTT ≈ 5.6 KB < the initial window of 10 segments, and the queue the flow
    // builds stays below the 26 µs target: the flow never slows, so FCT = ideal.
    for size in ["14480", "1MB"] {
        let sim = run(&star(1, "swift", "1us", "10ms", Some(size), ""));
        let t = sim.flow_table();
        let s = t.slowdown[0].unwrap();
        println!("swift {size}: slowdown {s}");
        assert!((1.0..1.0001).contains(&s), "{size}: slowdown {s}");
    }
}

#[test]
fn swift_holds_the_fabric_delay_at_its_target() {
    // Flow scaling off: target = base_target 25 µs + 1 switch × 1 µs = 26 µs. With 5 µs wires
    // the idle RTT is 22.48 µs, so the flows should keep ≈ 3.5 µs of queue (≈ 4.4 KB at
    // 10 Gb/s) and the bottleneck busy. 1 and 3 long flows, 3 ms, the first 1 ms skipped.
    let base = base_rtt_us(5.0);
    for n in [1usize, 3] {
        let doc = star(n, "swift", "5us", "3ms", None, "cc_params = { fs_range_us = 0 }");
        let mut names: Vec<String> = (1..=n).map(|i| format!("h{i}->s0")).collect();
        names.push("s0->h0".into());
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let (sim, m) = measured(&doc, 1, &refs);
        let (util, bq, drops) = m[n];
        for i in 0..n {
            // Flow i queues at its own NIC (the bottleneck of a lone flow) and at s0->h0.
            let delay = base + (m[i].1 + bq) * 8.0 / 10e3; // µs at 10 Gb/s
            let srtt = tcp(&sim, i).sender.rtt.srtt().unwrap().secs_f64() * 1e6;
            println!("swift x{n} flow {i}: fabric delay {delay:.2} µs (srtt {srtt:.2}), s0->h0 utilization {util:.4}");
            // Each flow adds ai = 1 packet per RTT until the delay passes the target and cuts
            // at most once per RTT, so the delay sits from just below the target to n packet
            // times (1.2 µs each) above it.
            assert!(delay > 25.0 && delay < 26.0 + 1.2 * n as f64, "x{n}: fabric delay {delay:.2} µs vs target 26 µs");
        }
        // AIMD with a common delay signal converges to equal shares (Swift §3, Chiu and Jain).
        let got: Vec<f64> = (0..n).map(|i| tcp(&sim, i).receiver.delivered() as f64).collect();
        println!("swift x{n}: delivered {got:?}, Jain {}", jain(&got));
        assert!(jain(&got) > 0.99, "x{n}: Jain {} of {got:?}", jain(&got));
        let total: f64 = if n == 1 { m[0].0 } else { util };
        assert!(total > 0.99, "x{n}: bottleneck utilization {total}");
        assert_eq!(drops, 0);
    }
}

#[test]
fn contrary_keys_are_rejected_by_name() {
    let err = |cc: &str, extra: &str| Scenario::from_toml(&star(1, cc, "1us", "1ms", None, extra)).err().map(|e| e.to_string());
    let e = err("hpcc", "telemetry = false").unwrap();
    assert!(e.contains("transport.telemetry: hpcc reads in-band telemetry"), "{e}");
    let e = err("swift", "delayed_ack = 2").unwrap();
    assert!(e.contains("transport.delayed_ack: 2: swift needs an ACK per data packet"), "{e}");
    let e = err("hpcc", "cc_params = { max_stage = 2.5 }").unwrap();
    assert!(e.contains("max_stage = 2.5 is not a whole number"), "{e}");
    let e = err("swift", "cc_params = { fs_min_cwnd = 200 }").unwrap();
    assert!(e.contains("fs_min_cwnd = 200 must be below fs_max_cwnd = 100"), "{e}");
    let e = err("swift", "cc_params = { max_mdf = 1.5 }").unwrap();
    assert!(e.contains("transport.cc_params.max_mdf: 1.5 is not a number in [0, 1]"), "{e}");
    let e = err("hpcc", "cc_params = { reference_update = \"per_packet\" }").unwrap();
    assert!(e.contains("transport.cc_params.reference_update: 'per_packet' is not one of \"per_rtt\", \"per_ack\""), "{e}");
    // htsim's readings by name, and the numbers they stand for.
    let named = "cc_params = { reference_update = \"per_ack\", int_reference = \"first\", tau_ratio = \"integer\", unmeasured_ack = \"update\", int_queue = \"with_packet\", int_hops = \"switches\", window_rounding = \"down\", u_init = 0.95, int_record = \"end\" }";
    let sc = Scenario::from_toml(&star(1, "hpcc", "1us", "1ms", None, named)).unwrap();
    let k = &sc.flows[0].cfg.tcp().unwrap().cc_params;
    assert_eq!(&k.0[6..15], &[Some(1.0), Some(1.0), Some(1.0), Some(0.95), Some(1.0), Some(1.0), Some(1.0), Some(1.0), Some(1.0)]);
    let e = err("hpcc", "cc_params = { int_record = \"dequeue\" }").unwrap();
    assert!(e.contains("transport.cc_params.int_record: 'dequeue' is not one of \"start\", \"end\""), "{e}");
    let e = err("hpcc", "cc_params = { send_timing = \"timer\" }").unwrap();
    assert!(e.contains("transport.cc_params.send_timing: 'timer' is not one of \"window\", \"tick\""), "{e}");
    // Settings they imply are accepted when written out.
    assert!(err("hpcc", "telemetry = true\ndelayed_ack = 1").is_none());
    // And they are what the connections run with.
    let sim = run(&star(1, "hpcc", "1us", "1ms", Some("1448"), ""));
    assert!(tcp(&sim, 0).cfg.telemetry && tcp(&sim, 0).cfg.delack_count == 1);
    assert!(!tcp(&sim, 0).cfg.int_at_end);
}

#[test]
fn int_recorded_at_the_end_counts_what_arrived_during_the_serialization() {
    // h0 - s0 - s1 - h1: 10 Gb/s host links, a 1 Gb/s s0->s1 (1500 B = 12 µs), 1 µs wires; one
    // HPCC flow of 3 segments of 1500 B on the wire, T = 12 µs (W_init = 1.25 GB/s × 12 µs =
    // 15 000 B, paced at line rate: packet k leaves h0 at 1.2(k−1) µs and reaches s0 at
    // 2.2 + 1.2(k−1)). On s0->s1 packet 1 serializes over [2.2, 14.2] µs, packet 2 over
    // [14.2, 26.2]; packets 2 and 3 reach s0 at 3.4 and 4.6 µs, during packet 1's.
    //   start: packet 1 records (2.2 µs, 0 B waiting), packet 2 (14.2 µs, 1500 B);
    //   end:   packet 1 records (14.2 µs, 3000 B: packets 2 and 3), packet 2 (26.2 µs, 1500 B).
    // Byte counters are the port's before the packet in both: 0 and 1500.
    // The first ACK only records L; the second measures (int_hops = "switches" leaves h0's NIC
    // out; s1->h1 carries 1 Gb/s of its 10, U = 0.1): on s0->s1 txRate = 1500 B / 12 µs = B, so
    // u = min(q2, q1)/(B·T) + 1 with B·T = 1500 B: 1 at the start (min(1500, 0) = 0), 2 at the
    // end (min(1500, 3000) = 1500). τ = 12 µs = T, so U = u, both ≥ η = 0.95, and
    // W = W_c·η/U + W_AI with W_c = W_init = 15 000 and W_AI = 15 000 × 0.05 / 100 = 7.5 B:
    // 14 257.5 B at the start, 7 132.5 B at the end.
    let doc = |at: &str| {
        format!(
            "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"explicit\"\nswitches = [\"s0\", \"s1\"]\nhosts = [\"h0\", \"h1\"]\n\
             [[topology.links]]\na = \"h0\"\nb = \"s0\"\nrate = \"10Gbps\"\ndelay = \"1us\"\n\
             [[topology.links]]\na = \"s0\"\nb = \"s1\"\nrate = \"1Gbps\"\ndelay = \"1us\"\n\
             [[topology.links]]\na = \"s1\"\nb = \"h1\"\nrate = \"10Gbps\"\ndelay = \"1us\"\n\
             [transport]\ncc = \"hpcc\"\nmss = 1448\nheader = 52\nhandshake = false\n\
             cc_params = {{ t_us = 12, int_hops = \"switches\", int_record = \"{at}\" }}\n\
             [[flows]]\nsrc = \"h0\"\ndst = \"h1\"\nsize = 4344\n"
        )
    };
    let us = |x: f64| Time::from_ps((x * 1e6).round() as u64);
    for (at, times, queues, w) in [("start", [2.2, 14.2], [0, 1500], 14_257.5), ("end", [14.2, 26.2], [3000, 1500], 7_132.5)] {
        let mut sim = Simulator::new(&Scenario::from_toml(&doc(at)).unwrap_or_else(|e| panic!("{e}")), None);
        let mut seen = Vec::new();
        // Packet k reaches h1 once s1->h1 has carried it (1.2 µs + 1 µs after s0->s1's end + 1 µs).
        for k in 0..2 {
            let end_s0 = [14.2, 26.2][k];
            sim.run_until(us(end_s0 + 1.0 + 1.2 + 1.0));
            let rec = *tcp(&sim, 0).receiver.int_last.as_deref().unwrap_or_else(|| panic!("{at}: packet {k}: no telemetry"));
            let h = rec.hops()[1];
            assert_eq!(sim.fabric.net.ports[h.port.idx()].name, "s0->s1");
            seen.push((h.time, h.queue_bytes, h.tx_bytes));
        }
        let want: Vec<_> = (0..2).map(|k| (us(times[k]), queues[k], 1500 * k as u64)).collect();
        assert_eq!(seen, want, "int_record = {at}");
        // The second ACK is back at h0 within 6 µs (three hops of a 52-B ACK), the third not
        // before another 12 µs.
        sim.run_until(us(26.2 + 3.2 + 6.0));
        let Cc::Hpcc(h) = &tcp(&sim, 0).sender.cc else { unreachable!() };
        assert!((h.w - w).abs() < 1e-6, "int_record = {at}: W = {} B, want {w}", h.w);
    }
    // A packet arriving in the picosecond the last bit leaves is not counted (htsim's order):
    // with T = 24 µs (a first window of 20 segments) and 12 segments, packet 11 reaches s0 at
    // 2.2 + 12 = 14.2 µs, as packet 1's serialization ends: its record holds packets 2–10, 13 500 B.
    let tie = doc("end").replace("t_us = 12", "t_us = 24").replace("size = 4344", "size = 17376");
    let mut sim = Simulator::new(&Scenario::from_toml(&tie).unwrap_or_else(|e| panic!("{e}")), None);
    sim.run_until(us(14.2 + 1.0 + 1.2 + 1.0));
    let rec = *tcp(&sim, 0).receiver.int_last.as_deref().expect("packet 1's record");
    assert_eq!((rec.hops()[1].time, rec.hops()[1].queue_bytes), (us(14.2), 13_500));
    // Over an s0->s1 wire without delay packet 1 reaches s1 (and leaves by s1->h1) in the
    // picosecond its serialization ends, before that port's `TxDone`: its record is still the end's.
    let no_delay = doc("end").replace("rate = \"1Gbps\"\ndelay = \"1us\"", "rate = \"1Gbps\"\ndelay = \"0us\"");
    assert_ne!(no_delay, doc("end"));
    let mut sim = Simulator::new(&Scenario::from_toml(&no_delay).unwrap_or_else(|e| panic!("{e}")), None);
    sim.run_until(us(14.2 + 1.2 + 1.0));
    let rec = *tcp(&sim, 0).receiver.int_last.as_deref().expect("packet 1's record");
    assert_eq!((rec.hops()[1].time, rec.hops()[1].queue_bytes), (us(14.2), 3000));
}

#[test]
fn hpcc_follows_the_most_loaded_hop() {
    // Dumbbell: 10 Gb/s hosts, a 1 Gb/s middle link. The senders' NICs report ≈ 10 % load, the
    // middle hop the real one, so HPCC must steer by the middle hop: it runs at η of 1 Gb/s
    // with a near-empty queue once the first window (B_nic·T, far above the 1 Gb/s BDP) has
    // drained. 2 senders, 20 ms, the first 5 ms skipped.
    let flows = "[[flows]]\nsrc = \"h0\"\ndst = \"h2\"\n[[flows]]\nsrc = \"h1\"\ndst = \"h2\"\nstart = \"1us\"\n";
    let doc = format!(
        "[simulation]\nend = \"20ms\"\n[topology]\nkind = \"dumbbell\"\nleft = 2\nright = 1\n\
         link = {{ rate = \"10Gbps\", delay = \"1us\" }}\nbottleneck = {{ rate = \"1Gbps\", delay = \"10us\", queue = {{ buffer = \"250pkt\" }} }}\n\
         [transport]\ncc = \"hpcc\"\nmin_rto = \"1ms\"\n{flows}"
    );
    let (_, m) = measured(&doc, 5, &["s0->s1"]);
    let (util, mean_q, drops) = m[0];
    println!("hpcc dumbbell: bottleneck utilization {util:.4}, mean queue {mean_q:.0} B, drops {drops}");
    assert!((util - 0.95).abs() < 0.03, "utilization {util:.4}");
    assert!(mean_q < 2.0 * 1500.0, "mean queue {mean_q} B");
    assert_eq!(drops, 0);
}

#[test]
fn send_timing_tick_sends_only_on_the_sources_timer() {
    // h0 - s0 - h1, 10 Gb/s, 1 µs wires, 1500-B segments on the wire (1.2 µs each), 52-B ACKs:
    // a segment's ACK is back 2 × (1.2 + 1) + 2 × (0.0416 + 1) = 6.4832 µs after it left.
    // T = 4 µs and w_max_bytes = 3000: W = 3000 B, two segments (W_init = 5000 B is above the
    // bound; the path is at most 60 % busy, so U < η and every W computed is clamped back to
    // 3000). htsim's timer period: T × 1500 / W = 2 µs (rate 3000·8e12/4e6 = 6e9 b/s exactly).
    //   tick:   ticks at 0, 2, 4, ... µs; P1 at 0, P2 at 2; at 4 and 6 both are in flight;
    //           P1's ACK (6.4832) opens the window, P3 waits for the tick at 8; P2's (8.4832):
    //           P4 at 10; P3's (14.4832): P5 at 16; P4's (16.4832): P6 at 18.
    //   window: paced at W/T (one segment per 2 µs) and sent when the window opens: P1 at 0,
    //           P2 at 2, P3 at P1's ACK (6.4832), P4 at P2's (8.4832), P5 at 12.9664, ...
    let doc = |timing: &str| {
        format!(
            "[simulation]\nend = \"100us\"\n[topology]\nkind = \"explicit\"\nswitches = [\"s0\"]\nhosts = [\"h0\", \"h1\"]\n\
             [[topology.links]]\na = \"h0\"\nb = \"s0\"\nrate = \"10Gbps\"\ndelay = \"1us\"\n\
             [[topology.links]]\na = \"s0\"\nb = \"h1\"\nrate = \"10Gbps\"\ndelay = \"1us\"\n\
             [transport]\ncc = \"hpcc\"\nmss = 1448\nheader = 52\nhandshake = false\n\
             cc_params = {{ t_us = 4, w_max_bytes = 3000, send_timing = \"{timing}\" }}\n\
             [[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n"
        )
    };
    let us = |x: f64| Time::from_ps((x * 1e6).round() as u64);
    let tick = [0.0, 2.0, 8.0, 10.0, 16.0, 18.0, 24.0, 26.0];
    let window = [0.0, 2.0, 6.4832, 8.4832, 12.9664, 14.9664];
    for (timing, sends) in [("tick", &tick[..]), ("window", &window[..])] {
        let mut sim = Simulator::new(&Scenario::from_toml(&doc(timing)).unwrap_or_else(|e| panic!("{e}")), None);
        let sent = |sim: &Simulator| tcp(sim, 0).sender.stats.segments_sent;
        for (k, &t) in sends.iter().enumerate() {
            // Segment k + 1 leaves exactly at t: k sent a picosecond before, k + 1 at t.
            if t > 0.0 {
                sim.run_until(us(t) - Time(1));
                assert_eq!(sent(&sim), k as u64, "{timing}: before {t} µs");
            }
            sim.run_until(us(t));
            assert_eq!(sent(&sim), k as u64 + 1, "{timing}: at {t} µs");
        }
        let Cc::Hpcc(h) = &tcp(&sim, 0).sender.cc else { unreachable!() };
        assert_eq!(h.w, 3000.0, "{timing}: W stays at the bound");
    }
}

/// h0 - s0 - h1, h0's link 10 Gb/s (1500-B segments 1.2 µs), s0 - h1 1 Gb/s (12 µs), 1 µs
/// wires, 52-B ACKs; T = 12 µs and W pinned at `w` bytes (w_ai_bytes above w_max_bytes), on
/// htsim's timer; PFC at 1 packet (pause above 1, resume below 1), the NIC's senders stopped.
fn paused_source(w: u32, flow: &str) -> Simulator {
    let doc = format!(
        "[simulation]\nend = \"100us\"\n[topology]\nkind = \"explicit\"\nswitches = [\"s0\"]\nhosts = [\"h0\", \"h1\"]\n\
         [[topology.links]]\na = \"h0\"\nb = \"s0\"\nrate = \"10Gbps\"\ndelay = \"1us\"\n\
         [[topology.links]]\na = \"s0\"\nb = \"h1\"\nrate = \"1Gbps\"\ndelay = \"1us\"\n\
         [queue]\nbuffer = \"unlimited\"\n[pfc]\nxoff = \"1pkt\"\nxon = \"1pkt\"\nstop_senders = true\n\
         [transport]\ncc = \"hpcc\"\nmss = 1448\nheader = 52\nhandshake = false\n\
         cc_params = {{ t_us = 12, w_max_bytes = {w}, w_ai_bytes = 1000000, send_timing = \"tick\" }}\n\
         [[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n{flow}"
    );
    Simulator::new(&Scenario::from_toml(&doc).unwrap_or_else(|e| panic!("{e}")), None)
}

#[test]
fn a_paused_source_sends_at_the_resume_and_a_tick_later() {
    // W = 6000 B: four segments, htsim's period 12 × 1500 / 6000 = 3 µs.
    //   P1 at 0, P2 at 3, P3 at 6 (ticks). s0's ingress from h0 holds P1 from 2.2 µs, P2 from
    //   5.2 (2 > 1: PAUSE, at h0 at 6.2, after P3 left), P3 from 8.2; they leave s0 at 14.2,
    //   26.2, 38.2 (12 µs each): 0 < 1, RESUME at h0 at 39.2 µs. The firing at 9 µs found the
    //   source paused (window 3 < 4 segments) and stopped the timer; the resume fires it: a
    //   tick, P4 leaves at 39.2 µs, P5 and P6 a period later each (42.2, 45.2; P3's ACK is back
    //   at 38.2 + 1 + 0.416 + 1 + 0.0416 + 1 = 41.6576). Waiting for the next tick of the old
    //   grid instead would send them at 42, 45, 48.
    let us = |x: f64| Time::from_ps((x * 1e6).round() as u64);
    let mut sim = paused_source(6000, "");
    let nic = sim.fabric.net.port_by_name("h0->s0").unwrap();
    let sent = |sim: &Simulator| tcp(sim, 0).sender.stats.segments_sent;
    for (k, &t) in [0.0, 3.0, 6.0, 39.2, 42.2, 45.2].iter().enumerate() {
        if t > 0.0 {
            sim.run_until(us(t) - Time(1));
            assert_eq!(sent(&sim), k as u64, "before {t} µs");
        }
        sim.run_until(us(t));
        assert_eq!(sent(&sim), k as u64 + 1, "at {t} µs");
        if t == 39.2 {
            assert!(!sim.fabric.net.ports[nic.idx()].paused, "resumed at 39.2 µs");
        }
    }
    assert_eq!(sim.port_table().pfc.unwrap().pauses[nic.idx()], 1, "one pause before 45.2 µs");
}

#[test]
fn a_paused_source_with_nothing_to_send_is_woken_by_the_resume() {
    // W = 3000 B (two segments, period 6 µs), two segments to send: P1 at 0, P2 at 6; s0 holds
    // P2 from 8.2 µs (2 > 1: PAUSE, at h0 at 9.2); P1's ACK comes back in the pause (14.2 + 1 +
    // 0.416 + 1 + 0.0416 + 1 = 17.6576 µs) with nothing left to send. htsim's source stops its
    // timer all the same (its firing at 12 µs found it paused) and fires it at the resume, so
    // the sender, told of the pause as it arrives, waits for the RESUME: P2 leaves s0 at 26.2 µs,
    // which reaches h0 at 27.2.
    let us = |x: f64| Time::from_ps((x * 1e6).round() as u64);
    let mut sim = paused_source(3000, "size = 2896\n");
    sim.run_until(us(9.2) - Time(1));
    assert!(!sim.flows[0].waiting);
    sim.run_until(us(9.2));
    assert!(sim.flows[0].waiting, "told at the PAUSE");
    sim.run_until(us(27.2) - Time(1));
    assert!(sim.flows[0].waiting);
    sim.run_until(us(27.2));
    assert!(!sim.flows[0].waiting, "woken by the RESUME");
    assert_eq!(tcp(&sim, 0).sender.stats.segments_sent, 2);
}

#[test]
fn a_pause_stops_every_source_of_the_nic_even_one_nothing_calls_in_it() {
    // paused_source's path with PFC at xoff = xon = 3 packets and W = 3000 B (two segments,
    // period 12 × 1500 / 3000 = 6 µs); flow A from 0, flow B from 3 µs, both h0 → h1.
    //   Ticks: A1 at 0, B1 at 3, A2 at 6, B2 at 9; each window is then full (no timer armed).
    //   s0's ingress from h0: A1 from 2.2 µs (on s0 - h1 until 14.2), B1 from 5.2, A2 from 8.2,
    //   B2 from 11.2: 4 > 3, PAUSE at h0 at 12.2. A1 leaves s0 at 14.2 (3, not below 3), B1 at
    //   26.2 (2 < 3): RESUME at h0 at 27.2. A1's ACK is back in the pause (14.2 + 3.4576 =
    //   17.6576 µs); B's first, B1's, after it (26.2 + 3.4576 = 29.6576): nothing calls B in the
    //   pause. htsim pauses every source of the NIC at the PAUSE: B's firing at 15 µs finds it
    //   paused and stops the timer; the resume fires it at 27.2 (a tick, window full), so after
    //   B1's ACK opens the window B3 leaves at the next tick, 33.2 µs. A source told only at its
    //   first ACK or firing in the pause keeps the old grid and sends B3 at 33 µs. (A: its
    //   firing at 18 stops its timer either way; A3 at the resume, 27.2 µs.)
    let us = |x: f64| Time::from_ps((x * 1e6).round() as u64);
    let doc = "[simulation]\nend = \"40us\"\n[topology]\nkind = \"explicit\"\nswitches = [\"s0\"]\nhosts = [\"h0\", \"h1\"]\n\
         [[topology.links]]\na = \"h0\"\nb = \"s0\"\nrate = \"10Gbps\"\ndelay = \"1us\"\n\
         [[topology.links]]\na = \"s0\"\nb = \"h1\"\nrate = \"1Gbps\"\ndelay = \"1us\"\n\
         [queue]\nbuffer = \"unlimited\"\n[pfc]\nxoff = \"3pkt\"\nxon = \"3pkt\"\nstop_senders = true\n\
         [transport]\ncc = \"hpcc\"\nmss = 1448\nheader = 52\nhandshake = false\n\
         cc_params = { t_us = 12, w_max_bytes = 3000, w_ai_bytes = 1000000, send_timing = \"tick\" }\n\
         [[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\nstart = \"3us\"\n";
    let mut sim = Simulator::new(&Scenario::from_toml(doc).unwrap_or_else(|e| panic!("{e}")), None);
    let nic = sim.fabric.net.port_by_name("h0->s0").unwrap();
    let sent = |sim: &Simulator, f: usize| tcp(sim, f).sender.stats.segments_sent;
    sim.run_until(us(12.2) - Time(1));
    assert!(!sim.fabric.net.ports[nic.idx()].paused);
    assert_eq!((sent(&sim, 0), sent(&sim, 1)), (2, 2));
    sim.run_until(us(12.2));
    assert!(sim.fabric.net.ports[nic.idx()].paused, "PAUSE at 12.2 µs");
    assert!(sim.flows[1].waiting, "B told at the PAUSE");
    sim.run_until(us(27.2));
    assert!(!sim.fabric.net.ports[nic.idx()].paused, "RESUME at 27.2 µs");
    assert_eq!((sent(&sim, 0), sent(&sim, 1)), (3, 2), "A3 at the resume");
    sim.run_until(us(33.2) - Time(1));
    assert_eq!(sent(&sim, 1), 2, "no B3 on the old grid (33 µs)");
    sim.run_until(us(33.2));
    assert_eq!(sent(&sim, 1), 3, "B3 a period after the resume's tick");
    assert_eq!(sim.port_table().pfc.unwrap().pauses[nic.idx()], 1);
}
