//! What a run produces: per-flow records, per-port counters, time series and a summary, as
//! columns (ready to become Arrow/Parquet tables on the Python side).

use crate::ids::PortId;
use crate::network::Network;
use crate::time::{Rate, Time};

/// One row per flow.
#[derive(Clone, Debug, Default)]
pub struct FlowTable {
    pub id: Vec<u32>,
    pub src: Vec<String>,
    pub dst: Vec<String>,
    pub transport: Vec<String>,
    /// The workload or application that created the flow ("" for listed flows).
    pub workload: Vec<String>,
    /// Inside the measurement window (not in warm-up or cool-down).
    pub measured: Vec<bool>,
    pub cc: Vec<String>,
    /// Bytes; `None` for long-lived flows.
    pub size: Vec<Option<u64>>,
    pub start_ps: Vec<u64>,
    /// When the last byte was acknowledged; `None` if not (yet).
    pub end_ps: Vec<Option<u64>>,
    pub fct_ps: Vec<Option<u64>>,
    /// FCT of the flow alone on the idle network (docs/ARCHITECTURE.md "Ideal FCT").
    pub ideal_fct_ps: Vec<Option<u64>>,
    pub slowdown: Vec<Option<f64>>,
    pub bytes_acked: Vec<u64>,
    /// Connection setup: from the start until the SYN-ACK arrived (0 without a handshake).
    pub setup_ps: Vec<Option<u64>>,
    pub segments_sent: Vec<u64>,
    pub retransmits: Vec<u64>,
    pub timeouts: Vec<u64>,
    pub fast_recoveries: Vec<u64>,
    pub ecn_reductions: Vec<u64>,
    /// Data packets of the flow trimmed to headers on the way (NDP: NACKed).
    pub trimmed: Vec<u64>,
    /// Credit messages its receiver sent: NDP PULLs, Homa GRANTs (0 for TCP).
    pub credits: Vec<u64>,
    /// Deadline relative to the start, if the flow has one; whether it was met (None = no
    /// deadline, or not decided yet).
    pub deadline_ps: Vec<Option<u64>>,
    pub deadline_met: Vec<Option<bool>>,
}

/// One row per port (link direction).
#[derive(Clone, Debug, Default)]
pub struct PortTable {
    pub name: Vec<String>,
    pub node: Vec<String>,
    pub peer: Vec<String>,
    pub rate_bps: Vec<u64>,
    pub tx_packets: Vec<u64>,
    /// Bytes serialized by the table's time (a packet still on the wire counts in part).
    pub tx_bytes: Vec<u64>,
    pub drops: Vec<u64>,
    pub wire_losses: Vec<u64>,
    pub ecn_marks: Vec<u64>,
    /// Data packets cut to headers (trimming ports).
    pub trims: Vec<u64>,
    /// Headers returned to their senders (trimming ports with return-to-sender).
    pub bounces: Vec<u64>,
    pub max_queue_packets: Vec<u64>,
    pub max_queue_bytes: Vec<u64>,
    pub mean_queue_packets: Vec<f64>,
    pub mean_queue_bytes: Vec<f64>,
    /// Fraction of the run the transmitter was busy.
    pub utilization: Vec<f64>,
    /// PFC's counters, with `[pfc]` only (so the table is unchanged without it).
    pub pfc: Option<PfcColumns>,
}

/// The port table's PFC columns (`switch/pfc.rs`).
#[derive(Clone, Debug, Default)]
pub struct PfcColumns {
    /// PAUSE frames the port received: the pauses its peer switch's ingress sent it.
    pub pauses: Vec<u64>,
    /// Seconds the port spent paused, up to the table's time.
    pub paused_s: Vec<f64>,
}

impl PfcColumns {
    pub fn from_stats(stats: &[crate::switch::pfc::PauseStats], now: Time) -> PfcColumns {
        PfcColumns {
            pauses: stats.iter().map(|s| s.pauses).collect(),
            paused_s: stats.iter().map(|s| s.paused_until(now).0 as f64 / Time::S as f64).collect(),
        }
    }
}

impl PortTable {
    /// Row of the port named `name` ("s0->h0").
    pub fn find(&self, name: &str) -> Option<usize> {
        self.name.iter().position(|n| n == name)
    }

    pub fn from_network(net: &Network, duration: Time) -> PortTable {
        let mut t = PortTable::default();
        let d = duration.0.max(1) as f64;
        for p in &net.ports {
            let s = &p.stats;
            t.name.push(p.name.clone());
            t.node.push(net.node(p.node).name.clone());
            t.peer.push(net.node(p.peer).name.clone());
            t.rate_bps.push(p.rate.bps());
            // A packet still on the wire at `duration` counts only the part serialized so far
            // (here, once per port, not on the per-packet path): its unsent tail is the rest of
            // its serialization time at the port's rate, rounded up, so tx_bytes never exceeds
            // what the rate carries in `duration`.
            let ahead = s.busy_until.0.saturating_sub(duration.0);
            let unsent = (p.rate.bps() as u128 * ahead as u128).div_ceil(8 * Time::S as u128) as u64;
            t.tx_packets.push(s.tx_packets);
            t.tx_bytes.push(s.tx_bytes.saturating_sub(unsent));
            t.drops.push(s.drops);
            t.wire_losses.push(s.wire_losses);
            t.ecn_marks.push(s.ecn_marks);
            t.trims.push(s.trims);
            t.bounces.push(s.bounces);
            t.max_queue_packets.push(s.max_queue_packets);
            t.max_queue_bytes.push(s.max_queue_bytes);
            t.mean_queue_packets.push(s.queue_area_packets as f64 / d);
            t.mean_queue_bytes.push(s.queue_area_bytes as f64 / d);
            t.utilization.push(s.busy_time.0.saturating_sub(ahead) as f64 / d);
        }
        t
    }
}

/// One row per queue of every port (ports have 1–8 queues): the per-class view of a port.
#[derive(Clone, Debug, Default)]
pub struct QueueTable {
    pub port: Vec<String>,
    pub queue: Vec<u32>,
    /// The classes mapped to this queue, e.g. "0,1".
    pub classes: Vec<String>,
    pub enqueued: Vec<u64>,
    pub drops: Vec<u64>,
    /// Arriving packets dropped while a lower-priority queue of the port held packets.
    pub drops_over_lower: Vec<u64>,
    /// Droppable (Aeolus unscheduled) packets dropped by selective dropping; part of `drops`.
    pub selective_drops: Vec<u64>,
    pub marks: Vec<u64>,
    pub trims: Vec<u64>,
    pub max_packets: Vec<u64>,
    pub max_bytes: Vec<u64>,
    pub mean_packets: Vec<f64>,
    pub mean_bytes: Vec<f64>,
}

impl QueueTable {
    /// Every port's queues, time averages over `duration` (queues noted up to it).
    pub fn from_network(net: &Network, duration: Time) -> QueueTable {
        let mut t = QueueTable::default();
        let d = duration.0.max(1) as f64;
        for p in &net.ports {
            let ps = &p.stats;
            if p.queue.counted_by_port() {
                // One drop-tail FIFO: its counters are the port's; admissions are what it sent
                // plus what waits.
                t.port.push(p.name.clone());
                t.queue.push(0);
                t.classes.push((0..crate::queue::CLASSES).map(|c| c.to_string()).collect::<Vec<_>>().join(","));
                t.enqueued.push(ps.tx_packets + p.queue.len_packets());
                t.drops.push(ps.drops);
                t.drops_over_lower.push(0);
                t.selective_drops.push(0);
                t.marks.push(ps.ecn_marks);
                t.trims.push(0);
                t.max_packets.push(ps.max_queue_packets);
                t.max_bytes.push(ps.max_queue_bytes);
                t.mean_packets.push(ps.queue_area_packets as f64 / d);
                t.mean_bytes.push(ps.queue_area_bytes as f64 / d);
                continue;
            }
            for (i, q) in p.queue.queues().iter().enumerate() {
                let s = &q.stats;
                t.port.push(p.name.clone());
                t.queue.push(i as u32);
                let cls: Vec<String> = (0..crate::queue::CLASSES as u8).filter(|&c| p.queue.queue_of(c) == i).map(|c| c.to_string()).collect();
                t.classes.push(cls.join(","));
                t.enqueued.push(s.enqueued);
                t.drops.push(s.drops);
                t.drops_over_lower.push(s.drops_over_lower);
                t.selective_drops.push(s.selective_drops);
                t.marks.push(s.marks);
                t.trims.push(s.trims);
                t.max_packets.push(s.max_packets);
                t.max_bytes.push(s.max_bytes);
                t.mean_packets.push(s.area_packets as f64 / d);
                t.mean_bytes.push(s.area_bytes as f64 / d);
            }
        }
        t
    }
}

/// What a time-series sample measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    QueuePackets,
    QueueBytes,
    /// Cumulative bytes a port has put on its wire (throughput = its slope).
    TxBytes,
    Cwnd,
    DctcpAlpha,
    /// Length of a hybrid ToR's VOQ (target = src·racks + dst).
    VoqPackets,
    /// Length of one queue of a multi-queue port (target = port·8 + queue).
    ClassQueuePackets,
    ClassQueueBytes,
    /// A flow's bytes acknowledged so far (goodput = its slope).
    DeliveredBytes,
    /// A flow's smoothed RTT, seconds.
    Srtt,
    /// A flow's sending rate, bits/s of payload: its pacing rate, else window / smoothed RTT.
    SendRate,
}

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::QueuePackets => "queue_packets",
            Metric::QueueBytes => "queue_bytes",
            Metric::TxBytes => "tx_bytes",
            Metric::Cwnd => "cwnd",
            Metric::DctcpAlpha => "dctcp_alpha",
            Metric::VoqPackets => "voq_packets",
            Metric::ClassQueuePackets => "class_queue_packets",
            Metric::ClassQueueBytes => "class_queue_bytes",
            Metric::DeliveredBytes => "delivered_bytes",
            Metric::Srtt => "srtt_s",
            Metric::SendRate => "rate_bps",
        }
    }
}

/// Samples in long format: (time, metric, target, value); target is a port or a flow name.
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub time_ps: Vec<u64>,
    pub metric: Vec<Metric>,
    pub target: Vec<u32>,
    pub value: Vec<f64>,
}

impl Series {
    #[inline]
    pub fn push(&mut self, t: Time, m: Metric, target: u32, v: f64) {
        self.time_ps.push(t.0);
        self.metric.push(m);
        self.target.push(target);
        self.value.push(v);
    }

    /// Target names: ports for queue metrics, "port#q" for one queue of a port ("s0->h0#1"),
    /// flow ids for flow metrics, "tor{s}->tor{d}" for VOQs (`racks` = racks of a hybrid network).
    pub fn target_name(&self, i: usize, net: &Network, racks: usize) -> String {
        match self.metric[i] {
            Metric::VoqPackets => {
                let p = self.target[i] as usize;
                format!("tor{}->tor{}", p / racks.max(1), p % racks.max(1))
            }
            Metric::QueuePackets | Metric::QueueBytes | Metric::TxBytes => net.ports[PortId(self.target[i]).idx()].name.clone(),
            Metric::ClassQueuePackets | Metric::ClassQueueBytes => {
                let t = self.target[i] as usize;
                format!("{}#{}", net.ports[t / crate::queue::MAX_QUEUES].name, t % crate::queue::MAX_QUEUES)
            }
            Metric::Cwnd | Metric::DctcpAlpha | Metric::DeliveredBytes | Metric::Srtt | Metric::SendRate => self.target[i].to_string(),
        }
    }
}

/// Whole-run figures.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub sim_time_ps: u64,
    pub end_ps: u64,
    pub wall_seconds: f64,
    pub events: u64,
    /// Packets serialized onto links.
    pub packet_hops: u64,
    pub packets_created: u64,
    pub packets_delivered: u64,
    pub packets_dropped: u64,
    pub packets_in_flight: u64,
    pub peak_packets_in_flight: u64,
    pub peak_rss_bytes: u64,
    pub flows: u64,
    pub flows_completed: u64,
}

/// Peak resident set size of this process (Linux VmHWM), 0 where unavailable.
pub fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// The ideal FCT of `size` bytes sent at line rate from time 0 along `fwd` (ports), with the final
/// ACK returning along `rev`: the last packet's store-and-forward arrival plus the ACK's.
///
/// Packets 0..n−2 are full (mss + header); for identical packets through tandem store-and-forward
/// hops the k-th finishes hop h at Σ_{j≤h} s_j + Σ_{j<h} d_j + k·max_{j≤h} s_j. The last, possibly
/// shorter packet follows the recurrence L_h = max(F_{n−2,h}, L_{h−1} + d_{h−1}) + s'_h.
pub fn ideal_fct(hops: &[(Rate, Time)], rev: &[(Rate, Time)], size: u64, mss: u64, header: u64, ack: u64) -> Time {
    let n = size.div_ceil(mss).max(1);
    let full = mss + header;
    let last = size - (n - 1) * mss + header;
    let mut l_prev_done = Time::ZERO; // L_{h−1} + d_{h−1}: when the last packet reaches hop h
    let (mut sum_s, mut sum_d, mut max_s) = (Time::ZERO, Time::ZERO, Time::ZERO);
    for &(rate, delay) in hops.iter() {
        let s = rate.serialization(full);
        sum_s += s;
        max_s = max_s.max(s);
        let f_prev = if n >= 2 { Some(sum_s + sum_d + max_s.times(n - 2)) } else { None };
        let ready = match f_prev {
            Some(f) => f.max(l_prev_done),
            None => l_prev_done,
        };
        let l = ready + rate.serialization(last);
        l_prev_done = l + delay;
        sum_d += delay;
    }
    let back: Time = rev.iter().fold(Time::ZERO, |acc, &(r, d)| acc + r.serialization(ack) + d);
    l_prev_done + back
}

/// The ideal FCT when packets are sprayed: a lower bound over every way the packets can spread
/// over parallel paths of these hops. Only the first hop (the sender's NIC, in sending order) and
/// the last (into the receiver) are shared by every path; through the hops between, each packet
/// may find a path of its own and overtake the ones before it (the short last packet often does).
/// So: each packet's arrival at the last hop without queueing in between, then the last hop
/// serving them in order of arrival (which finishes a single server's work soonest).
/// Never above `ideal_fct`, equal for paths of one or two hops.
pub fn ideal_fct_sprayed(hops: &[(Rate, Time)], rev: &[(Rate, Time)], size: u64, mss: u64, header: u64, ack: u64) -> Time {
    if hops.len() <= 2 {
        return ideal_fct(hops, rev, size, mss, header, ack);
    }
    let n = size.div_ceil(mss).max(1);
    let full = mss + header;
    let last = size - (n - 1) * mss + header;
    let (r0, d0) = hops[0];
    let mid = &hops[1..hops.len() - 1];
    let (rl, dl) = hops[hops.len() - 1];
    let through = |b: u64| mid.iter().fold(d0, |t, &(r, d)| t + r.serialization(b) + d);
    // Full packets leave the NIC back to back; the last leaves after them.
    let (s_full, t_full) = (r0.serialization(full), through(full));
    let last_arrival = s_full.times(n - 1) + r0.serialization(last) + through(last);
    let free = last_hop_done(s_full, t_full, n - 1, last_arrival, rl.serialization(full), rl.serialization(last));
    let back: Time = rev.iter().fold(Time::ZERO, |acc, &(r, d)| acc + r.serialization(ack) + d);
    free + dl + back
}

/// When the last hop of [`ideal_fct_sprayed`] has sent everything: `m` full packets arriving at
/// `t_full + (k + 1) s_full` (k = 0 .. m - 1), each served for `serve`, and the short last packet
/// arriving at `last_arrival`, served for `serve_last` before the first full packet that arrives
/// after it, all in arrival order with no idle time wasted.
///
/// In closed form (a long sprayed flow has hundreds of thousands of packets; the packet-by-packet
/// recurrence cost 50 ms per 128 flows of 2 GB): with `f_k = max(f_(k-1), a_k) + S` and arrivals
/// evenly spaced, `f_k = max(F + (k - k0 + 1) S, a_(k0) + (k - k0 + 1) S, a_k + S)` for a run of
/// arrivals from `k0` after a start `F` — the recurrence's maximum over `j` of `a_j + (k - j + 1) S`
/// is linear in `j`, so it sits at an end. Integer picoseconds throughout, so the closed form is
/// the recurrence's exact value (`last_hop_done_is_the_recurrence`); near the end of `Time`'s
/// range, where the sums saturate, the recurrence itself runs.
fn last_hop_done(s_full: Time, t_full: Time, m: u64, last_arrival: Time, serve: Time, serve_last: Time) -> Time {
    let bound = (m + 2).checked_mul(s_full.0.max(serve.0).max(serve_last.0));
    let exact = s_full.0 > 0 && bound.and_then(|b| b.checked_add(t_full.0)).and_then(|b| b.checked_add(last_arrival.0)).is_some_and(|b| b < u64::MAX / 4);
    if !exact {
        return last_hop_done_stepwise(s_full, t_full, m, last_arrival, serve, serve_last);
    }
    let a = |k: u64| t_full + s_full.times(k + 1);
    // Full packets from `k0` to `k1` (exclusive) after the hop was busy until `start`.
    let run = |start: Time, k0: u64, k1: u64| {
        if k1 <= k0 {
            return start;
        }
        let served = serve.times(k1 - k0);
        (start + served).max(a(k0) + served).max(a(k1 - 1) + serve)
    };
    // The first full packet arriving after the last one: a_k > last_arrival.
    let first_after = if last_arrival < a(0) { 0 } else { ((last_arrival.0 - t_full.0) / s_full.0).min(m) };
    let before = run(Time::ZERO, 0, first_after);
    run(before.max(last_arrival) + serve_last, first_after, m)
}

/// [`last_hop_done`] packet by packet (its definition).
fn last_hop_done_stepwise(s_full: Time, t_full: Time, m: u64, last_arrival: Time, serve: Time, serve_last: Time) -> Time {
    let mut free = Time::ZERO;
    let mut last_done = false;
    for k in 0..m {
        let arrival = s_full.times(k + 1) + t_full;
        if !last_done && last_arrival < arrival {
            free = free.max(last_arrival) + serve_last;
            last_done = true;
        }
        free = free.max(arrival) + serve;
    }
    if !last_done {
        free = free.max(last_arrival) + serve_last;
    }
    free
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_hop_done_is_the_recurrence() {
        // The closed form against the packet-by-packet recurrence over random spacings, service
        // times (faster, equal and slower than the arrivals), counts and last-packet arrivals,
        // including a last packet before every full one and after all of them.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for _ in 0..20_000 {
            let s_full = Time(1 + next(2_000));
            let t_full = Time(next(10_000));
            let m = next(300);
            let last_arrival = Time(next(s_full.0 * (m + 3) + t_full.0 + 1));
            let serve = Time(1 + next(3_000));
            let serve_last = Time(next(3_000));
            assert_eq!(
                last_hop_done(s_full, t_full, m, last_arrival, serve, serve_last),
                last_hop_done_stepwise(s_full, t_full, m, last_arrival, serve, serve_last),
                "{s_full:?} {t_full:?} {m} {last_arrival:?} {serve:?} {serve_last:?}"
            );
        }
        // A 2 GB flow of 8 936 B packets at 10 Gb/s (223 814 packets): the bound as before.
        let (s, t) = (Time(7_200_000), Time(21_600_000));
        let m = 223_813;
        assert_eq!(last_hop_done(s, t, m, s.times(m) + Time(30_000_000), s, Time(100_000)),
                   last_hop_done_stepwise(s, t, m, s.times(m) + Time(30_000_000), s, Time(100_000)));
    }

    #[test]
    fn ideal_fct_sprayed_lets_the_short_last_packet_overtake() {
        // Four hops at 10 Gb/s, no delay; 2 full packets (1500 B, 1.2 us a hop) and a last one of
        // 152 B (0.1216 us a hop). In line, the last finishes hop 3 at 1.2 * 4 + 1.2 + 0.1216 =
        // 6.1216 us. Sprayed, it reaches hop 3 at 2.4 + 0.1216 * 3 = 2.7648 us, before the full
        // packets (at 1.2 + 2.4 = 3.6 us and 4.8 us), so the last hop serves it first and finishes
        // with the second full packet at 4.8 + 1.2 = 6.0 us.
        let f = [(Rate::gbps(10), Time::ZERO); 4];
        let line = ideal_fct(&f, &[], 2 * 1448 + 100, 1448, 52, 52);
        let spray = ideal_fct_sprayed(&f, &[], 2 * 1448 + 100, 1448, 52, 52);
        assert_eq!(line, Time(6_121_600));
        assert_eq!(spray, Time(6_000_000));
        // Two hops: nothing to overtake in, the same bound.
        let g = [(Rate::gbps(10), Time::from_us(1)); 2];
        assert_eq!(ideal_fct_sprayed(&g, &g, 5000, 1448, 52, 52), ideal_fct(&g, &g, 5000, 1448, 52, 52));
        // One packet: the same bound on any path length.
        assert_eq!(ideal_fct_sprayed(&f, &f, 1000, 1448, 52, 52), ideal_fct(&f, &f, 1000, 1448, 52, 52));
    }

    #[test]
    fn ideal_fct_one_packet_two_hops() {
        // 1000 B payload + 52 B header = 1052 B at 10 Gb/s = 841.6 ns per hop, 1 us per wire;
        // ACK 52 B = 41.6 ns per hop.
        let h = [(Rate::gbps(10), Time::from_us(1)); 2];
        let t = ideal_fct(&h, &h, 1000, 1448, 52, 52);
        assert_eq!(t, Time(2 * (841_600 + 1_000_000) + 2 * (41_600 + 1_000_000)));
    }

    #[test]
    fn ideal_fct_pipeline_through_slower_second_hop() {
        // 3 full packets of 1500 B: hop 0 at 10 Gb/s (1.2 us), hop 1 at 5 Gb/s (2.4 us), no delay.
        // Hop-1 finishes at 1.2 + 2.4·3 = 8.4 us.
        let f = [(Rate::gbps(10), Time::ZERO), (Rate::gbps(5), Time::ZERO)];
        let t = ideal_fct(&f, &[], 3 * 1448, 1448, 52, 52);
        assert_eq!(t, Time::from_ns(8400));
        // A short last packet (100 B payload, 152 B) on the same path: the first two finish hop 1
        // at 1.2 + 4.8 = 6.0 us; the last reaches hop 1 at 2.4 + 0.1216 = 2.5216 us and starts at
        // 6.0 us, taking 0.2432 us -> 6.2432 us.
        let t = ideal_fct(&f, &[], 2 * 1448 + 100, 1448, 52, 52);
        assert_eq!(t, Time(6_243_200));
    }
}
