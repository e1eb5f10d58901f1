//! TCP Westwood+ (Mascolo et al. 2001; Grieco & Mascolo 2004), modelled on Linux tcp_westwood.c:
//! Reno increase; a bandwidth estimate from bytes acknowledged per interval of max(RTT, 50 ms),
//! filtered twice with gain 1/8 (bw_ns = 7/8·bw_ns + 1/8·sample, bw_est = 7/8·bw_est + 1/8·bw_ns);
//! after a reduction (COMPLETE_CWR) cwnd = ssthresh = bw_est·RTT_min/MSS; after an RTO
//! ssthresh = bw_est·RTT_min/MSS. Deviation: duplicate ACKs are not counted as delivered MSSes.

use super::{reno_cong_avoid, reno_ssthresh, CongestionOps, CwndEvent, Tcb};
use crate::time::Time;

/// Shortest estimation interval (Linux TCP_WESTWOOD_RTT_MIN).
pub const MIN_INTERVAL: Time = Time::from_ms(50);

#[derive(Clone, Debug, Default)]
pub struct Westwood {
    /// Bytes per second.
    bw_ns: f64,
    bw_est: f64,
    window_start: Option<Time>,
    bytes: u64,
    rtt: Time,
    rtt_min: Option<Time>,
    first: bool,
}

impl Westwood {
    pub fn bandwidth(&self) -> f64 {
        self.bw_est
    }
    fn bw_window(&self, tcb: &Tcb) -> u32 {
        let rtt_min = self.rtt_min.unwrap_or(Time::ZERO).secs_f64();
        ((self.bw_est * rtt_min / tcb.mss as f64) as u32).max(2)
    }
}

impl CongestionOps for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        reno_ssthresh(tcb)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        reno_cong_avoid(tcb, acked)
    }
    fn pkts_acked(&mut self, tcb: &mut Tcb, acked: u32, rtt: Option<Time>) {
        if let Some(r) = rtt {
            self.rtt = r;
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
        }
        self.bytes += acked as u64 * tcb.mss as u64;
        let start = *self.window_start.get_or_insert(tcb.now);
        let delta = tcb.now - start;
        if delta > self.rtt.max(MIN_INTERVAL) {
            let sample = self.bytes as f64 / delta.secs_f64();
            if !self.first {
                self.bw_ns = sample;
                self.bw_est = sample;
                self.first = true;
            } else {
                self.bw_ns = (7.0 * self.bw_ns + sample) / 8.0;
                self.bw_est = (7.0 * self.bw_est + self.bw_ns) / 8.0;
            }
            self.bytes = 0;
            self.window_start = Some(tcb.now);
        }
    }
    fn cwnd_event(&mut self, tcb: &mut Tcb, ev: CwndEvent) {
        match ev {
            CwndEvent::CompleteCwr => {
                let w = self.bw_window(tcb);
                tcb.ssthresh = w;
                tcb.cwnd = w;
            }
            CwndEvent::Loss => tcb.ssthresh = self.bw_window(tcb),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn estimate_converges_to_the_delivery_rate_and_sets_the_window() {
        // 1000 B segments acked at 1 per 8 µs = 125 MB/s; RTT 100 µs.
        let mut w = Westwood::default();
        let mut t = tcb(100, 1000);
        for i in 0..200_000u64 {
            t.now = Time::from_us(8 * i);
            w.pkts_acked(&mut t, 1, Some(Time::from_us(100)));
        }
        assert!((w.bandwidth() - 125e6).abs() / 125e6 < 0.01, "{}", w.bandwidth());
        // bw·RTT_min/MSS = 125e6 · 100e-6 / 1000 = 12.5 → 12 segments.
        w.cwnd_event(&mut t, CwndEvent::CompleteCwr);
        assert_eq!((t.cwnd, t.ssthresh), (12, 12));
    }
}
