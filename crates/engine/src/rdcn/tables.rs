//! Result tables of a hybrid network, as columns (the Python side turns them into frames).

use super::{Rack, Rdcn};
use crate::network::Network;
use crate::time::Time;

/// One row per circuit day of each rack pair that carries traffic.
#[derive(Clone, Debug, Default)]
pub struct DayTable {
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub start_ps: Vec<u64>,
    pub length_ps: Vec<u64>,
    pub bytes: Vec<u64>,
    pub utilization: Vec<f64>,
    pub data: Vec<bool>,
    /// The day on the wire: the lane's first transmission start and last transmission end.
    pub wire_start_ps: Vec<Option<u64>>,
    pub wire_end_ps: Vec<Option<u64>>,
}

/// One row per ToR packet uplink: bytes it serialized (pro rata: a packet on the wire at a
/// circuit boundary counts on both sides in proportion) during the nights and during the days
/// that began after the warm-up, and those nights' and days' total length.
#[derive(Clone, Debug, Default)]
pub struct UplinkTable {
    pub rack: Vec<u32>,
    pub night_bytes: Vec<f64>,
    pub night_ps: Vec<u64>,
    pub day_bytes: Vec<f64>,
    pub day_ps: Vec<u64>,
}

/// One row per VOQ that saw traffic.
#[derive(Clone, Debug, Default)]
pub struct VoqTable {
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub enqueued: Vec<u64>,
    pub drops: Vec<u64>,
    pub ecn_marks: Vec<u64>,
    pub max_packets: Vec<u64>,
    pub mean_packets: Vec<f64>,
}

/// The week-folded view (Mukerjee et al. Figs. 2, 8b, 9b, 11b), long format: per pair and bin,
/// the bin's start relative to the pair's day start, mean bytes leaving the hybrid network per
/// week in the bin and cumulated ("expected sequence number", wire bytes), the mean VOQ length,
/// and the cumulative optimal and packet-only lines.
#[derive(Clone, Debug, Default)]
pub struct SeqTable {
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub offset_ps: Vec<i64>,
    pub bytes: Vec<f64>,
    pub expected_bytes: Vec<f64>,
    pub voq_packets: Vec<f64>,
    pub optimal_bytes: Vec<f64>,
    pub packet_only_bytes: Vec<f64>,
    pub weeks: Vec<u64>,
}

/// Latency through the hybrid network (source ToR in → destination ToR in), data packets after
/// the warm-up, per path and overall.
#[derive(Clone, Debug, Default)]
pub struct LatencyTable {
    pub path: Vec<&'static str>,
    pub packets: Vec<u64>,
    pub mean_us: Vec<Option<f64>>,
    pub p50_us: Vec<Option<f64>>,
    pub p99_us: Vec<Option<f64>>,
    pub p999_us: Vec<Option<f64>>,
}

impl Rdcn {
    pub fn day_table(&self) -> DayTable {
        let mut t = DayTable::default();
        for d in &self.days {
            t.src.push(d.src);
            t.dst.push(d.dst);
            t.start_ps.push(d.start.0);
            t.length_ps.push(d.length.0);
            t.bytes.push(d.bytes);
            t.utilization.push(d.utilization);
            t.data.push(d.data);
            t.wire_start_ps.push(d.wire.map(|w| w.0 .0));
            t.wire_end_ps.push(d.wire.map(|w| w.1 .0));
        }
        t
    }

    pub fn uplink_table(&self) -> UplinkTable {
        let mut t = UplinkTable::default();
        for s in 0..self.racks {
            t.rack.push(s as u32);
            t.night_bytes.push(self.uplink_night[s].0);
            t.night_ps.push(self.uplink_night[s].1 .0);
            t.day_bytes.push(self.uplink_day[s].0);
            t.day_ps.push(self.uplink_day[s].1 .0);
        }
        t
    }

    pub fn voq_table(&self, now: Time) -> VoqTable {
        let mut t = VoqTable::default();
        for (pi, v) in self.voqs.iter().enumerate().filter(|(_, v)| v.used) {
            let mut v = v.clone();
            v.note(now);
            t.src.push((pi / self.racks) as u32);
            t.dst.push((pi % self.racks) as u32);
            t.enqueued.push(v.fifo.stats.enqueued);
            t.drops.push(v.fifo.stats.drops);
            t.ecn_marks.push(v.fifo.stats.marks);
            t.max_packets.push(v.fifo.stats.max_packets);
            t.mean_packets.push(if now > Time::ZERO { v.fifo.stats.area_packets as f64 / now.0 as f64 } else { 0.0 });
        }
        t
    }

    pub fn latency_table(&self) -> LatencyTable {
        let mut all = self.latency_packet.clone();
        all.merge(&self.latency_circuit);
        let mut t = LatencyTable::default();
        for (name, h) in [("packet", &self.latency_packet), ("circuit", &self.latency_circuit), ("all", &all)] {
            t.path.push(name);
            t.packets.push(h.count());
            t.mean_us.push(h.mean_us());
            t.p50_us.push(h.quantile_us(0.5));
            t.p99_us.push(h.quantile_us(0.99));
            t.p999_us.push(h.quantile_us(0.999));
        }
        t
    }

    /// Bytes the optimal schedule would move for pair (s, d) over [a, b): the circuit rate during
    /// the pair's days, nothing in the night before them, the packet uplink's rate otherwise.
    fn optimal_bytes(&self, net: &Network, s: Rack, d: Rack, a: Time, b: Time) -> f64 {
        let packet = net.ports[self.uplink[s as usize].idx()].rate.bps() as f64;
        let circuit = self.spec.circuit_rate.bps() as f64;
        let mut t = a;
        let mut bits = 0.0;
        while t < b {
            let Some(pd) = self.spec.plan.pair_day(s, d, t) else {
                return packet * (b - t).secs_f64() / 8.0 + bits / 8.0;
            };
            let (rate, until) = if t < pd.night_start {
                (packet, pd.night_start)
            } else if t < pd.day_start {
                (0.0, pd.day_start)
            } else {
                (circuit, pd.day_end)
            };
            let u = until.min(b);
            bits += rate * (u - t).secs_f64();
            t = u;
        }
        bits / 8.0
    }

    pub fn seq_table(&self, net: &Network) -> SeqTable {
        let mut t = SeqTable::default();
        let packet = net.ports[self.uplink[0].idx()].rate.bps() as f64;
        for (pi, v) in self.views.iter().enumerate() {
            let Some(v) = v.as_deref() else { continue };
            let (s, d) = ((pi / self.racks) as Rack, (pi % self.racks) as Rack);
            let weeks = v.weeks.max(1) as f64;
            let bin = v.bin();
            // Any day of the pair anchors the offsets; the optimal line is integrated over the
            // first full window after time zero.
            let day = self.spec.plan.pair_day(s, d, Time::ZERO).unwrap();
            let before = Time(self.spec.view_before.0 % self.spec.plan.week().0);
            let week = self.spec.plan.week();
            let anchor = day.day_start + week - before;
            let (mut cum, mut opt, mut pkt) = (0.0, 0.0, 0.0);
            for b in 0..v.bins() {
                let a0 = anchor + bin.times(b as u64);
                let a1 = (a0 + bin).min(anchor + week);
                cum += v.bytes[b] as f64 / weeks;
                opt += self.optimal_bytes(net, s, d, a0, a1);
                pkt += packet * (a1 - a0).secs_f64() / 8.0;
                t.src.push(s);
                t.dst.push(d);
                t.offset_ps.push(bin.times(b as u64).0 as i64 - before.0 as i64);
                t.bytes.push(v.bytes[b] as f64 / weeks);
                t.expected_bytes.push(cum);
                t.voq_packets.push(v.area[b] as f64 / (weeks * (a1 - a0).0 as f64));
                t.optimal_bytes.push(opt);
                t.packet_only_bytes.push(pkt);
                t.weeks.push(v.weeks);
            }
        }
        t
    }
}
