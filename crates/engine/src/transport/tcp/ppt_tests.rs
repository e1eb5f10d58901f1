//! PPT and RC3 in small scenarios and at the sender, pinned to the paper's mechanisms
//! (Suo et al., SIGCOMM 2024 §3, §4) and hand-computed cases.

use super::cc::{CcKind, Knobs};
use super::lcp::{LARGE_CLASS, LCP_CLASS_OFFSET};
use super::sender::{ppt_thresholds, PPT_THRESHOLDS};
use super::{timers, EcnMode, Sender, TcpConfig};
use crate::packet::TcpHeader;
use crate::ids::{FlowId, NodeId};
use crate::sim::testing::{run, tcp};
use crate::sim::Simulator;
use crate::time::Time;
use crate::transport::{Endpoints, Outbox};

/// Hosts h1.. -> h0 through one switch, 10 Gb/s, 10 us per wire; 8 strict-priority queues
/// marking at K = 65 packets (HCP, queues 0-3) and 55 (LCP, queues 4-7).
fn star(cc: &str, flows: &[(&str, u64)], extra: &str) -> String {
    let mut doc = format!(
        r#"
[simulation]
end = "100ms"
stop_when_done = true
[topology]
kind = "star"
hosts = 5
link = {{ rate = "10Gbps", delay = "10us" }}
[queue]
buffer = "2000pkt"
queues = 8
scheduler = "strict"
discipline = "ecn"
ecn_threshold = ["65pkt", "65pkt", "65pkt", "65pkt", "55pkt", "55pkt", "55pkt", "55pkt"]
[transport]
cc = "{cc}"
min_rto = "10ms"
{extra}
"#
    );
    for (src, size) in flows {
        doc.push_str(&format!("[[flows]]\nsrc = \"{src}\"\ndst = \"h0\"\nsize = {size}\n"));
    }
    doc
}

/// The star's idle round trip for a full segment (1448 + 52 B = 1.2 us per hop, two hops) and
/// its ACK (52 B, 41.6 ns per hop), four 10 us wires: 42.4832 us; BDP = 10 Gb/s x RTT / 1500 B
/// = 35.4 -> 35 segments.
const RTT_PS: u64 = 40_000_000 + 2 * 1_200_000 + 2 * 41_600;
const BDP: u64 = 35;

#[test]
fn a_lone_large_flow_opens_its_lcp_in_the_second_rtt_with_bdp_minus_iw() {
    // §3.1 case 1: a flow identified as large (2 MB > 100 KB) opens its LCP in its 2nd RTT with
    // I = BDP − IW = 35 − 10 = 25 packets, paced at I/RTT; then EWD.
    let doc = star("ppt", &[("h1", 2_000_000)], "");
    let sc = crate::scenario::Scenario::from_toml(&doc).unwrap();
    let mut sim = Simulator::new(&sc, None);
    sim.keep_finished = true;
    // Step one RTT at a time: HCP's window at each step and the LCP packets sent in between.
    let mut steps = Vec::new();
    let mut t = 0;
    let mut prev_sent = 0;
    let mut max_cwnd = 0;
    while tcp(&sim, 0).sender.completed_at().is_none() && t < 10_000_000_000 {
        let c = tcp(&sim, 0);
        let cwnd = c.sender.tcb.cwnd as u64;
        max_cwnd = max_cwnd.max(cwnd);
        t += RTT_PS;
        sim.run_until(Time(t));
        let sent = tcp(&sim, 0).sender.low.as_deref().unwrap().stats.sent;
        steps.push((cwnd, sent - prev_sent));
        prev_sent = sent;
    }
    sim.run();
    let c = tcp(&sim, 0);
    let low = c.sender.low.as_deref().unwrap();
    assert!(low.identified);
    assert_eq!(low.bdp(), BDP);
    // Alone on an idle path the flow's queue builds in its own NIC, unmarked: DCTCP never leaves
    // slow start, so case 2 never comes and the loop opens once.
    assert_eq!(low.stats.opened, 1);
    let (at, window) = low.stats.last_open.expect("opened");
    assert_eq!(window, BDP - 10, "I = BDP − IW");
    // It opens at the first ACK: the delayed ACK of the first two segments, one RTT after the
    // second left (1.2 us after the first).
    assert_eq!(at, Time(RTT_PS + 1_200_000));
    assert_eq!(steps[0].1, 0, "nothing opportunistic in the 1st RTT of an identified flow");
    assert_eq!(steps[1].1, BDP - 10, "the whole opening window in the 2nd RTT");
    // EWD: about 2·I in all (25 + 12 + 6 + 3 + 1 when every pair is acknowledged in time).
    assert!(low.stats.sent <= 2 * window && low.stats.sent > window, "{:?}", low.stats);
    // The flow's maximum window bounds HCP + LCP in every RTT (§3.2).
    for (i, &(cwnd, lcp)) in steps.iter().enumerate() {
        assert!(cwnd + lcp <= max_cwnd, "RTT {i}: HCP {cwnd} + LCP {lcp} > W_max {max_cwnd} ({steps:?})");
    }
    // Every byte delivered once: the receiver has all 2 MB, no segment arrived twice, and the
    // normal loop skipped exactly the segments the LCP got delivered.
    assert_eq!(c.receiver.delivered(), 2_000_000);
    assert_eq!(c.receiver.duplicate_segments, 0);
    assert_eq!(low.stats.skipped, low.stats.sent);
    assert_eq!(c.sender.stats.segments_sent, 2_000_000u64.div_ceil(1448));
    assert_eq!(sim.flow_table().bytes_acked[0], 2_000_000);
}

fn ends() -> Endpoints {
    Endpoints { flow: FlowId(0), src: NodeId(0), dst: NodeId(1), hash_fwd: 0, hash_rev: 1 }
}

/// A PPT sender of `size` bytes with 1000-byte segments, IW 10, RTT 100 us, BDP `bdp`.
fn ppt_sender(size: u64, bdp: u64, cfg: TcpConfig) -> (Sender, TcpConfig) {
    let c = TcpConfig { mss: 1000, initial_cwnd: 10, cc: CcKind::Ppt, ecn: EcnMode::Dctcp, ..cfg };
    let mut s = Sender::new(&c, Some(size), 0);
    s.rtt.sample(Time::from_us(100));
    s.tcb.min_rtt = Some(Time::from_us(100));
    s.low.as_deref_mut().unwrap().set_bdp(bdp, Time::from_us(100));
    (s, c)
}

fn lp_ack(ack: u64, sack: &[(u64, u64)], ece: bool) -> TcpHeader {
    let mut h = TcpHeader { ack, rwnd: u32::MAX, ece, lcp: true, ..TcpHeader::default() };
    for (i, &b) in sack.iter().enumerate() {
        h.sack[i] = b;
    }
    h.sack_count = sack.len() as u8;
    h
}

/// Run the sender's LCP against an ideal receiver that answers every 2nd opportunistic packet
/// one RTT after it left (EWD, §3.2), ACKing nothing of the normal loop; returns the send times
/// of the opportunistic packets and the time of the last low-priority ACK.
fn drive_lcp(s: &mut Sender, c: &TcpConfig, out: &mut Outbox, until: Time, ece_from: Option<Time>) -> (Vec<Time>, Option<Time>) {
    let rtt = Time::from_us(100);
    let mut sent = Vec::new();
    let mut pending_acks: Vec<(Time, u64)> = Vec::new();
    let mut timers: Vec<(Time, crate::transport::timer::TimerId)> = Vec::new();
    let mut now = Time::ZERO;
    let mut last_ack = None;
    let mut lcp_seen = 0u64;
    let mut lowest = u64::MAX;
    loop {
        for p in out.packets.drain(..) {
            if p.tcp().lcp {
                sent.push(now);
                lowest = lowest.min(p.tcp().seq);
                lcp_seen += 1;
                if lcp_seen.is_multiple_of(2) {
                    pending_acks.push((now + rtt, lowest));
                }
            }
        }
        timers.append(&mut out.timers);
        // Next event: an LP ACK or an LCP timer.
        let next_ack = pending_acks.iter().map(|a| a.0).min();
        let next_timer = timers.iter().filter(|t| t.1 == timers::LCP_PACE || t.1 == timers::LCP_SILENCE).map(|t| t.0).min();
        let next = match (next_ack, next_timer) {
            (Some(a), Some(t)) => a.min(t),
            (a, t) => match a.or(t) {
                Some(x) => x,
                None => break,
            },
        };
        if next > until {
            break;
        }
        now = next;
        if next_ack == Some(now) {
            let i = pending_acks.iter().position(|a| a.0 == now).unwrap();
            let (_, low) = pending_acks.remove(i);
            let ece = ece_from.is_some_and(|t| now >= t);
            s.on_lp_ack(now, &lp_ack(0, &[(low, c.mss as u64 * 1000)], ece), c, &ends(), out);
            last_ack = Some(now);
        } else {
            let i = timers.iter().position(|t| t.0 == now && (t.1 == timers::LCP_PACE || t.1 == timers::LCP_SILENCE)).unwrap();
            let (_, id) = timers.remove(i);
            if id == timers::LCP_PACE {
                s.on_lcp_pace_timer(now, c, &ends(), out);
            } else {
                s.on_lcp_silence_timer(now, out);
            }
        }
    }
    // The events still to come, back to the caller (the last one of a timer is its pending one).
    out.timers.append(&mut timers);
    (sent, last_ack)
}

#[test]
fn ewd_halves_the_lcp_window_every_rtt() {
    // An unidentified flow (ident off) opens its LCP at the start with I = BDP − IW = 64. Paced
    // at I/RTT, the 64 leave in the 1st RTT; their 32 ACKs (one per two) send 32 in the 2nd, then
    // 16, 8, 4, 2, 1 (§3.2: "the sending rate of opportunistic packets is naturally cut by half
    // after every single RTT").
    let mut cfg = TcpConfig::default();
    cfg.ppt.ident = false;
    let (mut s, c) = ppt_sender(1_000_000, 74, cfg);
    let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
    s.start(Time::ZERO, &c, &ends(), &mut out);
    let hcp: Vec<u64> = out.packets.iter().filter(|p| !p.tcp().lcp).map(|p| p.tcp().seq / 1000).collect();
    assert_eq!(hcp, (0..10).collect::<Vec<_>>(), "HCP: the initial window from the head");
    let first_lcp: Vec<u64> = out.packets.iter().filter(|p| p.tcp().lcp).map(|p| p.tcp().seq / 1000).collect();
    assert_eq!(first_lcp, vec![999], "LCP starts at the tail; the rest of its window is paced");
    let (sent, _) = drive_lcp(&mut s, &c, &mut out, Time::from_us(2000), None);
    let per_rtt: Vec<usize> = (0..8).map(|k| sent.iter().filter(|t| t.0 >= k * 100_000_000 && t.0 < (k + 1) * 100_000_000).count()).collect();
    assert_eq!(per_rtt, vec![64, 32, 16, 8, 4, 2, 1, 0]);
    let low = s.low.as_deref().unwrap();
    assert_eq!(low.stats.sent, 127);
    // The pacing gap is RTT / I = 1.5625 us.
    assert_eq!(sent[1] - sent[0], Time(100_000_000 / 64));
}

#[test]
fn an_ecn_marked_low_priority_ack_sends_nothing() {
    // §3.2 / §5 tcp_ack_loops: "if the low-priority ACK is not marked with ECE flag, we send a new
    // opportunistic packet from the last byte of send buffer; otherwise, we do nothing".
    let mut cfg = TcpConfig::default();
    cfg.ppt.ident = false;
    let (mut s, c) = ppt_sender(1_000_000, 74, cfg);
    let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
    s.start(Time::ZERO, &c, &ends(), &mut out);
    let (sent, _) = drive_lcp(&mut s, &c, &mut out, Time::from_us(2000), Some(Time::ZERO));
    assert_eq!(sent.len(), 64, "only the paced opening window");
    assert_eq!(s.low.as_deref().unwrap().stats.ece_acks, 32);
    // Without LCP ECN (§6.3 Fig. 15) the packets are Not-ECT and ECE is never echoed for them;
    // the same ACKs would clock the loop (the sender ignores the LCP's marks).
    let mut cfg = TcpConfig::default();
    cfg.ppt.ident = false;
    cfg.ppt.lcp_ecn = false;
    let (mut s, c) = ppt_sender(1_000_000, 74, cfg);
    let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
    s.start(Time::ZERO, &c, &ends(), &mut out);
    assert!(out.packets.iter().filter(|p| p.tcp().lcp).all(|p| p.ecn == crate::packet::Ecn::NotEct));
    let (sent, _) = drive_lcp(&mut s, &c, &mut out, Time::from_us(2000), Some(Time::ZERO));
    assert_eq!(sent.len(), 127);
}

#[test]
fn the_lcp_closes_after_exactly_two_silent_rtts() {
    // §3.2: "terminate the current LCP loop if the sender has not received low-priority ACKs for
    // 2 RTTs". SRTT is 100 us: the last LP ACK at T closes the loop at T + 200 us, not before.
    let mut cfg = TcpConfig::default();
    cfg.ppt.ident = false;
    let (mut s, c) = ppt_sender(1_000_000, 74, cfg);
    let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
    s.start(Time::ZERO, &c, &ends(), &mut out);
    let (_, last) = drive_lcp(&mut s, &c, &mut out, Time::from_us(600), None);
    let last = last.unwrap();
    assert!(s.low.as_deref().unwrap().is_open());
    let close_at = last + Time::from_us(200);
    // The silence timer's only pending event is exactly 2 RTTs after the last LP ACK (the events
    // of earlier ACKs came and re-armed it), so nothing can close the loop before then.
    let armed = out.timers.iter().rev().find(|t| t.1 == timers::LCP_SILENCE).expect("the silence timer is armed").0;
    assert_eq!(armed, close_at);
    let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
    s.on_lcp_silence_timer(close_at, &mut out);
    let low = s.low.as_deref().unwrap();
    assert!(!low.is_open());
    assert_eq!(low.stats.silenced, 1);
    // A later LP ACK does not revive it.
    let sent = low.stats.sent;
    s.on_lp_ack(close_at + Time(5), &lp_ack(0, &[], false), &c, &ends(), &mut out);
    assert_eq!(s.low.as_deref().unwrap().stats.sent, sent);
}

#[test]
fn tagging_follows_fig_6() {
    // §4.2, Fig. 6: identified flows at P3 (HCP) / P7 (LCP) whatever they sent; unidentified ones
    // start at P0 / P4 and are demoted at the same pace in both halves as bytes sent cross the
    // thresholds (here PIAS's: 1059, 1412, 1643 packets of 1460 B).
    assert_eq!(ppt_thresholds(&TcpConfig::default()), PPT_THRESHOLDS);
    assert_eq!(PPT_THRESHOLDS, [1_546_140, 2_061_520, 2_398_780]);
    let mut low = super::lcp::LowLoop::new(super::lcp::Design::Ppt {
        p: super::cc::PptParams::from_knobs(&Knobs::default()),
        ewd: true,
        ecn: true,
        on_delay: false,
    });
    let th = PPT_THRESHOLDS;
    let cases: &[(bool, u64, u8)] = &[
        (true, 0, 3),
        (true, 10_000_000, 3),
        (false, 0, 0),
        (false, 1_546_140, 0),
        (false, 1_546_141, 1),
        (false, 2_061_520, 1),
        (false, 2_061_521, 2),
        (false, 2_398_780, 2),
        (false, 2_398_781, 3),
        (false, u64::MAX, 3),
    ];
    for &(identified, sent, hcp) in cases {
        low.identified = identified;
        low.sent_bytes = sent;
        assert_eq!(low.class(false, true, &th, 0, 0, 10), hcp, "identified {identified}, {sent} B sent");
        assert_eq!(low.class(true, true, &th, 0, 0, 10), hcp + LCP_CLASS_OFFSET);
    }
    assert_eq!(LARGE_CLASS + LCP_CLASS_OFFSET, 7);
    // Without scheduling (§6.3 Fig. 17): the connection's class and that class + 4.
    low.identified = true;
    assert_eq!((low.class(false, false, &th, 0, 0, 10), low.class(true, false, &th, 0, 0, 10)), (0, 4));
    assert_eq!(low.class(true, false, &th, 6, 0, 10), 7, "the last class at most");
}

#[test]
fn identification_reads_the_first_write() {
    // §4.1: large if the first write, min(flow size, send buffer), exceeds 100 KB.
    let cases: &[(u64, Option<u64>, bool, bool)] = &[
        // (flow size, send buffer, identification on, identified)
        (100_000, None, true, false),
        (100_001, None, true, true),
        (5_000_000, Some(2_000_000_000), true, true),
        (5_000_000, Some(64_000), true, false),
        (5_000_000, Some(128_000), true, true),
        (5_000_000, None, false, false),
    ];
    for &(size, send_buffer, ident, expect) in cases {
        let mut cfg = TcpConfig { send_buffer, ..TcpConfig::default() };
        cfg.ppt.ident = ident;
        let (mut s, c) = ppt_sender(size, 74, cfg);
        let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
        s.start(Time::ZERO, &c, &ends(), &mut out);
        let low = s.low.as_deref().unwrap();
        assert_eq!(low.identified, expect, "size {size}, send buffer {send_buffer:?}");
        // Case 1: an unidentified flow's LCP opens at once, an identified one's does not.
        assert_eq!(out.packets.iter().any(|p| p.tcp().lcp), !expect);
        let hcp_class = out.packets.iter().find(|p| !p.tcp().lcp).unwrap().class;
        assert_eq!(hcp_class, if expect { 3 } else { 0 });
    }
    // A long-lived flow without a send buffer writes without end: large, tagged P3, and with no
    // tail there is no LCP.
    let c = TcpConfig { mss: 1000, initial_cwnd: 10, cc: CcKind::Ppt, ecn: EcnMode::Dctcp, ..TcpConfig::default() };
    let mut s = Sender::new(&c, None, 0);
    let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
    s.start(Time::ZERO, &c, &ends(), &mut out);
    assert!(s.low.as_deref().unwrap().identified && !s.low.as_deref().unwrap().sends());
    assert!(out.packets.iter().all(|p| !p.tcp().lcp && p.class == 3));
}

#[test]
fn without_its_lcp_ppt_is_dctcp_packet_for_packet() {
    // HCP "is simply the same with DCTCP" (§3): with the LCP off and every packet in one class,
    // four flows into one receiver give the same flow table bit for bit.
    let flows = [("h1", 3_000_000), ("h2", 500_000), ("h3", 80_000), ("h4", 1_200_000)];
    let mut d = run(&star("dctcp", &flows, ""));
    let mut p = run(&star("ppt-no-sched", &flows, "cc_params = { lcp = 0 }"));
    let (a, b) = (d.flow_table(), p.flow_table());
    assert_eq!(a.fct_ps, b.fct_ps);
    assert_eq!(a.end_ps, b.end_ps);
    assert_eq!(a.segments_sent, b.segments_sent);
    assert_eq!(a.retransmits, b.retransmits);
    assert_eq!(a.ecn_reductions, b.ecn_reductions);
    assert_eq!(a.bytes_acked, b.bytes_acked);
    assert!(a.ecn_reductions.iter().sum::<u64>() > 0, "the flows did congest the port");
    assert_eq!(d.port_table().drops, p.port_table().drops);
    for i in 0..flows.len() {
        assert_eq!(tcp(&p, i).sender.low.as_deref().unwrap().stats.sent, 0);
    }
}

fn every_byte_once(sim: &Simulator, sizes: &[u64]) {
    let t = sim.flow_table();
    for (i, &size) in sizes.iter().enumerate() {
        let c = tcp(sim, i);
        assert!(t.fct_ps[i].is_some(), "flow {i} finished");
        assert_eq!(c.receiver.delivered(), size, "flow {i}: every byte delivered");
        assert_eq!(t.bytes_acked[i], size);
    }
}

#[test]
fn small_and_large_flow_scenarios_deliver_every_byte_once() {
    // Small flows (unidentified: LCP from the 1st RTT) and large ones (identified), four senders
    // into one receiver, both with LCP traffic crossing the normal loops.
    let small = [30_000u64, 60_000, 14_480, 95_000];
    let flows: Vec<(&str, u64)> = ["h1", "h2", "h3", "h4"].iter().copied().zip(small).collect();
    let sim = run(&star("ppt", &flows, ""));
    every_byte_once(&sim, &small);
    let lcp: u64 = (0..4).map(|i| tcp(&sim, i).sender.low.as_deref().unwrap().stats.sent).sum();
    assert!(lcp > 0, "small flows used their LCP");
    let large = [2_000_000u64, 3_000_000, 700_000, 5_000_000];
    let flows: Vec<(&str, u64)> = ["h1", "h2", "h3", "h4"].iter().copied().zip(large).collect();
    let sim = run(&star("ppt", &flows, ""));
    every_byte_once(&sim, &large);
    for name in ["ppt-no-ewd", "ppt-no-lcp-ecn", "ppt-no-ident", "ppt-no-sched", "rc3"] {
        let sim = run(&star(name, &flows, ""));
        every_byte_once(&sim, &large);
    }
}

#[test]
fn case_2_opens_with_half_minus_alpha_min_of_w_max() {
    // Eq. (2): I = (1/2 − α_min)·W_max, floored to whole packets; nothing below one packet.
    let low = super::lcp::LowLoop::new(super::lcp::Design::Ppt { p: super::cc::PptParams::from_knobs(&Knobs::default()), ewd: true, ecn: true, on_delay: false });
    assert_eq!(low.case2_window(0.1, 100), Some(40));
    assert_eq!(low.case2_window(0.0, 100), Some(50), "at most half of W_max");
    assert_eq!(low.case2_window(0.495, 100), None);
    assert_eq!(low.case2_window(0.6, 100), None);
}

#[test]
fn long_lived_flows_reopen_their_lcp_from_the_send_buffer_tail() {
    // Eight long-lived flows into one receiver through a 300 KB send buffer: after start-up, α
    // minima reopen loops (case 2) again and again, and every loop sends from una + send buffer.
    let mut doc = star("ppt", &[], "send_buffer = \"300KB\"").replace("stop_when_done = true", "").replace("end = \"100ms\"", "end = \"20ms\"");
    doc = doc.replace("hosts = 5", "hosts = 9");
    for i in 1..=8 {
        doc.push_str(&format!("[[flows]]\nsrc = \"h{i}\"\ndst = \"h0\"\n"));
    }
    let sim = run(&doc);
    let mut opened = 0;
    for i in 0..8 {
        let c = tcp(&sim, i);
        let low = c.sender.low.as_deref().unwrap();
        assert!(low.identified, "300 KB first write > 100 KB");
        opened += low.stats.opened;
        // The window of a case-2 loop is at most half the flow's largest window.
        if let (Some((_, w)), super::cc::Cc::Ppt(p)) = (low.stats.last_open, &c.sender.cc) {
            assert!(w * 2 <= p.w_max() as u64 || w == low.bdp() - 10, "window {w}, W_max {}", p.w_max());
        }
    }
    assert!(opened > 8, "case 2 reopened loops ({opened} openings)");
}

#[test]
fn a_limited_send_buffer_moves_the_tail() {
    // §4.1 / App. F: with a 64 KB send buffer the application has written only 64 KB beyond
    // snd_una: the LCP's first packet is the last whole segment of it (segment 63 of 1000 B).
    let mut cfg = TcpConfig { send_buffer: Some(64_000), ..TcpConfig::default() };
    cfg.ppt.ident = false;
    let (mut s, c) = ppt_sender(5_000_000, 74, cfg);
    let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
    s.start(Time::ZERO, &c, &ends(), &mut out);
    let lcp: Vec<u64> = out.packets.iter().filter(|p| p.tcp().lcp).map(|p| p.tcp().seq).collect();
    assert_eq!(lcp, vec![63_000]);
}

#[test]
fn rc3_sends_the_rest_of_the_flow_from_the_tail_in_growing_levels() {
    // RC3: TCP's initial window from the head at class 0; the other 1990 segments at once from
    // the tail down, segment s in level rc3_level(s): 10..110 class 1 (10·IW), 110..1110 class 2
    // (100·IW), the rest class 3. Low-priority ACKs send nothing more.
    let c = TcpConfig { mss: 1000, initial_cwnd: 10, cc: CcKind::Rc3, ecn: EcnMode::Dctcp, ..TcpConfig::default() };
    let mut s = Sender::new(&c, Some(2_000_000), 0);
    s.rtt.sample(Time::from_us(100));
    let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
    s.start(Time::ZERO, &c, &ends(), &mut out);
    let hcp: Vec<(u64, u8)> = out.packets.iter().filter(|p| !p.tcp().lcp).map(|p| (p.tcp().seq / 1000, p.class)).collect();
    assert_eq!(hcp, (0..10).map(|s| (s, 0)).collect::<Vec<_>>());
    let rlp: Vec<(u64, u8)> = out.packets.iter().filter(|p| p.tcp().lcp).map(|p| (p.tcp().seq / 1000, p.class)).collect();
    assert_eq!(rlp.len(), 1990);
    let expect: Vec<(u64, u8)> = (10..2000).rev().map(|s| (s, if s < 110 { 1 } else if s < 1110 { 2 } else { 3 })).collect();
    assert_eq!(rlp, expect);
    out.clear();
    s.on_lp_ack(Time::from_us(100), &lp_ack(0, &[(1_999_000, 2_000_000)], false), &c, &ends(), &mut out);
    assert!(out.packets.iter().all(|p| !p.tcp().lcp));
    // The normal loop skips what the RLP delivered: ACK 10 000 with SACK of the top segment
    // lets TCP send 10..30 but never 1999.
    out.clear();
    let mut h = TcpHeader { ack: 10_000, rwnd: u32::MAX, ..TcpHeader::default() };
    h.sack[0] = (1_999_000, 2_000_000);
    h.sack_count = 1;
    s.on_ack(Time::from_us(100), &h, &c, &ends(), &mut out);
    let sent: Vec<u64> = out.packets.iter().map(|p| p.tcp().seq / 1000).collect();
    assert_eq!(sent, (10..30).collect::<Vec<_>>());
}

#[test]
fn the_normal_loop_skips_what_the_lcp_got_delivered_and_takes_the_jumping_ack() {
    // 30 segments, IW 10, BDP 30 → LCP I = 20 at once (unidentified, ident off): it sends
    // 29..10 paced; the receiver SACKs 20..30. The normal loop then sends 10..19 and skips
    // 20..29; the ACK of everything (30 000) completes the flow although the normal loop sent
    // only 20 segments (PPT §5: advancing snd_nxt with the ACK).
    let mut cfg = TcpConfig::default();
    cfg.ppt.ident = false;
    let (mut s, c) = ppt_sender(30_000, 30, cfg);
    let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
    s.start(Time::ZERO, &c, &ends(), &mut out);
    out.clear();
    let mut h = TcpHeader { ack: 10_000, rwnd: u32::MAX, ..TcpHeader::default() };
    h.sack[0] = (20_000, 30_000);
    h.sack_count = 1;
    s.on_ack(Time::from_us(100), &h, &c, &ends(), &mut out);
    let hcp: Vec<u64> = out.packets.iter().filter(|p| !p.tcp().lcp).map(|p| p.tcp().seq / 1000).collect();
    assert_eq!(hcp, (10..20).collect::<Vec<_>>());
    assert_eq!(s.scoreboard().nxt(), 30, "20..30 recorded as skipped");
    assert_eq!(s.scoreboard().pipe(), 10, "skipped segments are not in flight");
    out.clear();
    s.on_ack(Time::from_us(200), &TcpHeader { ack: 30_000, rwnd: u32::MAX, ..TcpHeader::default() }, &c, &ends(), &mut out);
    assert_eq!(s.completed_at(), Some(Time::from_us(200)));
    assert_eq!(s.low.as_deref().unwrap().stats.skipped, 10);
}

#[test]
fn a_lost_final_ack_is_recovered_by_the_timeout() {
    // The LCP delivered 20..30 and the HCP's 10..19 were acked, but the ACK of the whole flow
    // was lost: only skipped segments are outstanding. The RTO resends the last one, whose
    // duplicate the receiver answers with the ACK of everything.
    let mut cfg = TcpConfig::default();
    cfg.ppt.ident = false;
    let (mut s, c) = ppt_sender(30_000, 30, cfg);
    let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
    s.start(Time::ZERO, &c, &ends(), &mut out);
    let mut h = TcpHeader { ack: 10_000, rwnd: u32::MAX, ..TcpHeader::default() };
    h.sack[0] = (20_000, 30_000);
    h.sack_count = 1;
    s.on_ack(Time::from_us(100), &h, &c, &ends(), &mut out);
    s.on_ack(Time::from_us(200), &TcpHeader { ack: 20_000, rwnd: u32::MAX, ..TcpHeader::default() }, &c, &ends(), &mut out);
    assert_eq!((s.scoreboard().una(), s.scoreboard().nxt(), s.scoreboard().pipe()), (20, 30, 0));
    // The RTO's pending event was armed before the last ACK moved its deadline: it comes first
    // and re-arms the timer for the deadline.
    let armed = out.timers.iter().rev().find(|t| t.1 == timers::RTO).expect("the RTO is armed").0;
    out.clear();
    let rto = s.rtt.rto();
    assert!(armed < Time::from_us(200) + rto);
    s.on_rto_timer(armed, &c, &ends(), &mut out);
    assert!(out.packets.is_empty());
    assert_eq!(out.timers, vec![(Time::from_us(200) + rto, timers::RTO)]);
    out.clear();
    s.on_rto_timer(Time::from_us(200) + rto, &c, &ends(), &mut out);
    let resent: Vec<(u64, bool)> = out.packets.iter().map(|p| (p.tcp().seq, p.tcp().lcp)).collect();
    assert_eq!(resent, vec![(29_000, false)]);
    s.on_ack(Time::from_us(300) + rto, &TcpHeader { ack: 30_000, rwnd: u32::MAX, ..TcpHeader::default() }, &c, &ends(), &mut out);
    assert!(s.completed_at().is_some());
}

/// The star with 2 µs wires and drop-tail strict-priority queues (Swift reads delay, not marks).
fn swift_star(cc: &str, flows: &[(&str, u64)]) -> String {
    star(cc, flows, "").replace("delay = \"10us\"", "delay = \"2us\"").replace("discipline = \"ecn\"\n", "").replace(
        "ecn_threshold = [\"65pkt\", \"65pkt\", \"65pkt\", \"65pkt\", \"55pkt\", \"55pkt\", \"55pkt\", \"55pkt\"]\n",
        "",
    )
}

#[test]
fn the_delay_variant_opens_its_lcp_at_the_first_ack_below_the_target_with_the_spare_window() {
    // §6.3 (Fig. 14): the loop opens "whenever a flow's transmission delay falls below the target
    // delay" — no case 1 at the start. The first ACK's delay is the idle RTT: four 2 µs wires, a
    // 1500 B packet twice (1.2 µs) and its 52 B ACK twice (41.6 ns) = 10.4832 µs. Swift's target
    // at cwnd 10 on a one-switch path: 25 + 1 + (α/√10 + β) µs with α = 50/(1/√0.1 − 1/√100),
    // β = −α/10 → 29.5305 µs. Opening window ⌊10·(29.5305 − 10.4832)/10.4832⌋ = 18 packets.
    let doc = swift_star("ppt-swift", &[("h1", 2_000_000)]);
    let sc = crate::scenario::Scenario::from_toml(&doc).unwrap();
    let mut sim = Simulator::new(&sc, None);
    sim.keep_finished = true;
    let rtt = Time(4 * 2_000_000 + 2 * 1_200_000 + 2 * 41_600);
    sim.run_until(Time(rtt.0 - 1));
    assert_eq!(tcp(&sim, 0).sender.low.as_deref().unwrap().stats.opened, 0, "nothing opens before an ACK");
    sim.run_until(Time(rtt.0 + 1));
    let low = tcp(&sim, 0).sender.low.as_deref().unwrap();
    let alpha = 50.0 / (1.0 / 0.1f64.sqrt() - 0.1);
    let target = 26.0 + alpha / 10f64.sqrt() - alpha / 10.0;
    let want = (10.0 * (target - 10.4832) / 10.4832).floor() as u64;
    assert_eq!(want, 18);
    assert_eq!(low.stats.opened, 1);
    assert_eq!(low.stats.last_open, Some((rtt, want)));
    assert!(low.identified, "2 MB > 100 KB: tagged as large (P3 / P7)");
    assert!(low.ecn_capable(), "the LCP keeps PPT's ECN although the delay loop has none");
    sim.run();
    let c = tcp(&sim, 0);
    assert!(c.sender.low.as_deref().unwrap().stats.sent > 0);
    assert_eq!(c.receiver.delivered(), 2_000_000);
}

#[test]
fn the_delay_variant_delivers_every_byte_once_and_its_window_is_swifts_without_the_lcp() {
    let sizes = [2_000_000u64, 3_000_000, 90_000, 700_000];
    let flows: Vec<(&str, u64)> = ["h1", "h2", "h3", "h4"].iter().copied().zip(sizes).collect();
    let sim = run(&swift_star("ppt-swift", &flows));
    every_byte_once(&sim, &sizes);
    let lcp: u64 = (0..4).map(|i| tcp(&sim, i).sender.low.as_deref().unwrap().stats.sent).sum();
    assert!(lcp > 0, "the flows used their LCP");
    // Same flows with Swift alone finish too, in a different time (the LCP carried data).
    let swift = run(&swift_star("swift", &flows));
    every_byte_once(&swift, &sizes);
    assert_ne!(swift.flow_table().fct_ps, sim.flow_table().fct_ps);
}
