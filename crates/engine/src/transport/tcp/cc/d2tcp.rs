//! D2TCP (Vamanan, Hasan, Vijaykumar, "Deadline-Aware Datacenter TCP", SIGCOMM 2012 §3): DCTCP
//! whose window cut is scaled by the flow's deadline imminence. α is DCTCP's; on a reduction the
//! penalty is p = α^d with d = Tc / D, where Tc = B / (0.75·W/RTT) is the time the remaining B
//! bytes need at the sawtooth's average rate and D the time left until the deadline, clamped to
//! [0.5, 2]; cwnd ← cwnd·(1 − p/2). Flows without a deadline use d = 1 (exactly DCTCP). A flow
//! past its deadline uses d = 0.5 (the most deferential; the paper does not say — the third-party
//! ns-3 port we read does this); one without an RTT sample yet uses d = 1.

use super::dctcp::DctcpParams;
use super::{AckEvent, CaState, CongestionOps, CwndEvent, Dctcp, Tcb};

/// Bounds of the imminence factor (§3.1).
pub const D_MIN: f64 = 0.5;
pub const D_MAX: f64 = 2.0;

#[derive(Clone, Debug)]
pub struct D2tcp {
    inner: Dctcp,
    /// The last imminence factor used (for observation).
    pub last_d: f64,
}

impl D2tcp {
    pub fn new(p: DctcpParams) -> D2tcp {
        D2tcp { inner: Dctcp::new(p), last_d: 1.0 }
    }
    pub fn alpha(&self) -> f64 {
        self.inner.alpha()
    }
    pub fn set_alpha(&mut self, a: f64) {
        self.inner.set_alpha(a)
    }

    /// The imminence factor d for the flow's state now.
    pub fn imminence(tcb: &Tcb) -> f64 {
        let (Some(deadline), Some(size), Some(srtt)) = (tcb.deadline, tcb.flow_size, tcb.srtt) else { return 1.0 };
        if tcb.now >= deadline {
            return D_MIN;
        }
        let remaining = size.saturating_sub(tcb.snd_una) as f64;
        let rate = 0.75 * tcb.cwnd as f64 * tcb.mss as f64 / srtt.secs_f64().max(1e-12); // bytes/s
        let tc = remaining / rate;
        let d = (deadline - tcb.now).secs_f64();
        (tc / d).clamp(D_MIN, D_MAX)
    }

    /// cwnd after a cut with penalty p = α^d (§3.1 eq. 2), at least 2 segments.
    pub fn cut(cwnd: u32, alpha: f64, d: f64) -> u32 {
        let p = alpha.powf(d);
        let cut = (cwnd as f64 * p / 2.0).floor() as u32;
        (cwnd - cut.min(cwnd)).max(2)
    }
}

impl CongestionOps for D2tcp {
    fn name(&self) -> &'static str {
        "d2tcp"
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.inner.init(tcb)
    }
    /// The ECE reduction, deadline-scaled. On loss DCTCP's `set_state(Recovery)` and
    /// `cwnd_event(Loss)` then halve, as for DCTCP (the paper changes only the ECN response).
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        self.last_d = Self::imminence(tcb);
        Self::cut(tcb.cwnd, self.inner.alpha(), self.last_d)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        self.inner.cong_avoid(tcb, acked)
    }
    fn in_ack_event(&mut self, tcb: &mut Tcb, ev: AckEvent) {
        self.inner.in_ack_event(tcb, ev)
    }
    fn cwnd_event(&mut self, tcb: &mut Tcb, ev: CwndEvent) {
        self.inner.cwnd_event(tcb, ev)
    }
    fn set_state(&mut self, tcb: &mut Tcb, s: CaState) {
        self.inner.set_state(tcb, s)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;
    use crate::time::Time;

    #[test]
    fn penalty_follows_alpha_to_the_d() {
        // D2TCP (Vamanan et al. SIGCOMM 2012), p = α^d, cwnd × (1 − p/2): α = 0.25 → p = 0.5, 0.25, 0.0625 for d = 0.5, 1, 2, i.e.
        // cuts of 25 %, 12.5 % and 3.1 % of a 64-segment window.
        assert_eq!(D2tcp::cut(64, 0.25, 0.5), 48);
        assert_eq!(D2tcp::cut(64, 0.25, 1.0), 56);
        assert_eq!(D2tcp::cut(64, 0.25, 2.0), 62);
    }

    #[test]
    fn imminence_from_remaining_bytes_rate_and_time_left() {
        // 1 MB left, cwnd 100 × 1000 B, SRTT 100 µs: rate 0.75·1e5 B / 1e-4 s = 7.5e8 B/s, so
        // Tc = 1.333 ms. With 1 ms left d = 1.33; with 10 ms left d = 0.133 → 0.5; with 0.5 ms
        // left 2.67 → 2; past the deadline 0.5; no deadline 1.
        let mut t = tcb(100, 50);
        t.srtt = Some(Time::from_us(100));
        t.flow_size = Some(1_000_000);
        t.snd_una = 0;
        t.now = Time::from_ms(1);
        t.deadline = Some(Time::from_ms(2));
        assert!((D2tcp::imminence(&t) - 4.0 / 3.0).abs() < 1e-9);
        t.deadline = Some(Time::from_ms(11));
        assert_eq!(D2tcp::imminence(&t), 0.5);
        t.deadline = Some(Time::from_us(1500));
        assert_eq!(D2tcp::imminence(&t), 2.0);
        t.deadline = Some(Time::from_us(900));
        assert_eq!(D2tcp::imminence(&t), 0.5);
        t.deadline = None;
        assert_eq!(D2tcp::imminence(&t), 1.0);
    }
}
