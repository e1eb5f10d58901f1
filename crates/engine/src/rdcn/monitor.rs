//! What the RDCN papers measure: circuit utilization per day, per-packet latency through the
//! ToRs, and the "expected sequence number" view around a circuit day (Mukerjee et al. Figs. 2,
//! 8b, 9b, 11b). Fixed memory per watched pair; nothing here allocates per packet.

use crate::time::Time;

/// A latency histogram with log-linear buckets (64 per power of two: ≤ 1.6 % relative error),
/// in nanoseconds. Fixed size; recording is a few integer operations.
#[derive(Clone, Debug)]
pub struct LatencyHistogram {
    counts: Vec<u64>,
    total: u64,
    sum_ns: u128,
    max_ns: u64,
}

const SUB: u64 = 64;

impl Default for LatencyHistogram {
    fn default() -> Self {
        LatencyHistogram { counts: vec![0; 64 * SUB as usize], total: 0, sum_ns: 0, max_ns: 0 }
    }
}

impl LatencyHistogram {
    #[inline]
    fn index(v: u64) -> usize {
        if v < 2 * SUB {
            return v as usize;
        }
        let shift = 63 - v.leading_zeros() as u64 - 6;
        (SUB * shift + (v >> shift)) as usize
    }

    /// Middle of bucket `i`.
    fn value(i: usize) -> f64 {
        let i = i as u64;
        if i < 2 * SUB {
            return i as f64;
        }
        let shift = i / SUB - 1;
        let top = i % SUB + SUB;
        ((top << shift) as f64) + ((1u64 << shift) as f64 - 1.0) / 2.0
    }

    #[inline]
    pub fn record(&mut self, latency: Time) {
        let ns = latency.0 / 1000;
        self.counts[Self::index(ns)] += 1;
        self.total += 1;
        self.sum_ns += ns as u128;
        self.max_ns = self.max_ns.max(ns);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn merge(&mut self, o: &LatencyHistogram) {
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.total += o.total;
        self.sum_ns += o.sum_ns;
        self.max_ns = self.max_ns.max(o.max_ns);
    }

    /// The q-quantile (0 < q ≤ 1) in microseconds: the bucket holding the ⌈q·n⌉-th smallest value.
    pub fn quantile_us(&self, q: f64) -> Option<f64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(Self::value(i).min(self.max_ns as f64) / 1000.0);
            }
        }
        None
    }

    pub fn mean_us(&self) -> Option<f64> {
        (self.total > 0).then(|| self.sum_ns as f64 / self.total as f64 / 1000.0)
    }
}

/// One circuit day of one rack pair that carries traffic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CircuitDay {
    pub src: u32,
    pub dst: u32,
    pub start: Time,
    pub length: Time,
    /// Bytes (headers included) serialized onto the circuit during the day.
    pub bytes: u64,
    /// bytes / (circuit rate × day length).
    pub utilization: f64,
    /// The pair's VOQ has carried data packets (not only ACKs) by the day's end.
    pub data: bool,
    /// The day as seen on the wire: start of the lane's first transmission and end of its last
    /// (`None` when the lane sent nothing).
    pub wire: Option<(Time, Time)>,
}

/// The week-folded view of one pair: bytes leaving the hybrid network and the VOQ length, in
/// bins over one week that starts `before` ahead of the pair's day, summed over complete weeks
/// after the warm-up. Averages = sums / weeks.
#[derive(Clone, Debug)]
pub struct SeqView {
    /// Start of the first window (absolute): the pair's first day start − before, moved past the
    /// warm-up by whole weeks.
    origin: Time,
    week: Time,
    bin: Time,
    /// Index of the window being filled.
    window: u64,
    cur_bytes: Vec<u64>,
    cur_area: Vec<u128>,
    pub bytes: Vec<u64>,
    /// VOQ length integral per bin (packet·ps).
    pub area: Vec<u128>,
    pub weeks: u64,
    /// Time up to which the VOQ length has been integrated.
    last: Time,
}

impl SeqView {
    /// `day_start` is any day start of the pair; windows open `before` ahead of it.
    pub fn new(day_start: Time, before: Time, week: Time, bin: Time, warmup: Time) -> SeqView {
        let before = Time(before.0 % week.0);
        let mut origin = Time((day_start.0 + week.0 - before.0) % week.0);
        while origin < warmup {
            origin = origin + week;
        }
        let n = week.0.div_ceil(bin.0) as usize;
        SeqView {
            origin,
            week,
            bin,
            window: 0,
            cur_bytes: vec![0; n],
            cur_area: vec![0; n],
            bytes: vec![0; n],
            area: vec![0; n],
            weeks: 0,
            last: origin,
        }
    }

    pub fn bins(&self) -> usize {
        self.bytes.len()
    }
    pub fn bin(&self) -> Time {
        self.bin
    }

    /// Window index and bin of `t` (t ≥ origin).
    #[inline]
    fn locate(&self, t: Time) -> (u64, usize) {
        let rel = t.0 - self.origin.0;
        let w = rel / self.week.0;
        (w, ((rel % self.week.0) / self.bin.0) as usize)
    }

    /// Close windows that ended before window `w`.
    fn roll(&mut self, w: u64) {
        if w > self.window {
            for (a, b) in self.bytes.iter_mut().zip(self.cur_bytes.iter_mut()) {
                *a += std::mem::take(b);
            }
            for (a, b) in self.area.iter_mut().zip(self.cur_area.iter_mut()) {
                *a += std::mem::take(b);
            }
            // Windows without any event in them were complete too (idle weeks).
            self.weeks += w - self.window;
            self.window = w;
        }
    }

    /// Integrate a VOQ length `len` that held from the last change until `now`.
    pub fn advance(&mut self, now: Time, len: u64) {
        if now <= self.last {
            return;
        }
        while self.last < now {
            let (w, b) = self.locate(self.last);
            self.roll(w);
            let bin_end = self.origin + self.week.times(w) + self.bin.times(b as u64 + 1);
            let bin_end = bin_end.min(self.origin + self.week.times(w + 1));
            let upto = bin_end.min(now);
            self.cur_area[b] += len as u128 * (upto - self.last).0 as u128;
            self.last = upto;
        }
        let (w, _) = self.locate(now);
        self.roll(w);
    }

    /// `bytes` left the hybrid network at `now`.
    pub fn delivered(&mut self, now: Time, bytes: u64, voq_len: u64) {
        if now < self.origin {
            return;
        }
        self.advance(now, voq_len);
        let (_, b) = self.locate(now);
        self.cur_bytes[b] += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_within_bucket_error() {
        let mut h = LatencyHistogram::default();
        // 1..=1000 µs, one each: p50 = 500 µs, p99 = 990 µs, p99.9 = 999 µs.
        for us in 1..=1000u64 {
            h.record(Time::from_us(us));
        }
        for (q, want) in [(0.5, 500.0), (0.99, 990.0), (0.999, 999.0), (1.0, 1000.0)] {
            let got = h.quantile_us(q).unwrap();
            assert!((got - want).abs() / want < 0.016, "q {q}: {got} vs {want}");
        }
        assert!((h.mean_us().unwrap() - 500.5).abs() < 1e-9);
        // Small values are exact.
        let mut s = LatencyHistogram::default();
        s.record(Time::from_ns(100));
        assert_eq!(s.quantile_us(0.5), Some(0.1));
    }

    #[test]
    fn seq_view_folds_weeks_and_integrates_queue() {
        // Week 100 µs, bins 10 µs, day starts at 30 µs, window opens 20 µs before: origin 10 µs.
        let us = Time::from_us;
        let mut v = SeqView::new(us(30), us(20), us(100), us(10), Time::ZERO);
        // Week 0: 1000 B at 15 µs (bin 0), queue of 2 packets from 10 to 35 µs (bins 0, 1, 2).
        v.delivered(us(15), 1000, 2);
        v.advance(us(35), 2);
        // Week 1: 3000 B at 115 µs (bin 0), queue 0 afterwards.
        v.delivered(us(115), 3000, 0);
        // Nothing in week 2; an event in week 3 closes weeks 1 and 2.
        v.delivered(us(315), 0, 0);
        assert_eq!(v.weeks, 3);
        assert_eq!(v.bytes[0], 4000);
        let pkt_us = |a: u128| a as f64 / 1e6;
        assert_eq!(pkt_us(v.area[0]), 20.0); // 2 pkts × 10 µs
        assert_eq!(pkt_us(v.area[2]), 10.0); // 2 pkts × 5 µs
        assert_eq!(pkt_us(v.area[3]), 0.0);
    }
}
