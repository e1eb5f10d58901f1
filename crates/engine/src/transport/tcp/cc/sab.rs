//! SAB's sender side (Zhang, Ren, Yue, Shu, Lin, "Sharing Bandwidth by Allocating Switch Buffer in
//! Data Center Networks", IEEE JSAC 32(1), 2014, §IV). SAB has no congestion control of its own:
//! every switch port writes εB/N into the window field of passing data packets when the field is
//! larger (`crate::switch::sab`), the receiver returns min(awnd, field) in its ACKs (§IV-A.3), and the
//! sender takes that window as its congestion window (§IV-A.1).
//!
//! - A window of at least one MSS gives ⌊W / MSS⌋ segments: the decimal part is dropped (§VI-C).
//! - A window below one MSS shrinks the segment size to the window, one segment in flight; the MSS
//!   comes back when the window grows again (§IV-B).
//! - Until an ACK carries an assigned window the sender uses its initial window (the first round
//!   trip), and an ACK whose field no switch lowered (0xffff, here u64::MAX) leaves cwnd alone.
//! - Loss does not reduce the window (switches set it); after a timeout the core's one-segment
//!   window holds until the next ACK brings the assigned window back.

use super::{CongestionOps, RateSample, Tcb};

#[derive(Clone, Debug, Default)]
pub struct Sab;

impl Sab {
    /// cwnd and segment size from the window the latest ACK carried.
    pub fn apply_window(tcb: &mut Tcb) {
        let w = tcb.rwnd;
        if w == u64::MAX {
            return;
        }
        let mss = tcb.mss as u64;
        if w >= mss {
            tcb.cwnd = (w / mss).min(u32::MAX as u64) as u32;
            tcb.seg_size = tcb.mss;
        } else {
            tcb.cwnd = 1;
            tcb.seg_size = w.max(1) as u32;
        }
    }
}

impl CongestionOps for Sab {
    fn name(&self) -> &'static str {
        "sab"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        tcb.cwnd
    }
    fn cong_avoid(&mut self, _tcb: &mut Tcb, _acked: u32) {}
    fn owns_cwnd(&self) -> bool {
        true
    }
    fn cong_control(&mut self, tcb: &mut Tcb, _rs: &RateSample) {
        Sab::apply_window(tcb);
    }
    fn sets_window_field(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn whole_segments_above_one_mss_and_a_shrunken_segment_below() {
        let mut t = tcb(10, 100); // MSS 1000
        t.rwnd = 4999;
        Sab::apply_window(&mut t);
        assert_eq!((t.cwnd, t.seg_size), (4, 1000), "the decimal part is dropped (§VI-C)");
        t.rwnd = 655; // 0.5 · 128 KB / 100 flows in §VI-C, with 1 KB packets
        Sab::apply_window(&mut t);
        assert_eq!((t.cwnd, t.seg_size), (1, 655), "one segment of the window's size (§IV-B)");
        t.rwnd = 3000;
        Sab::apply_window(&mut t);
        assert_eq!((t.cwnd, t.seg_size), (3, 1000), "the MSS comes back");
        t.rwnd = u64::MAX;
        Sab::apply_window(&mut t);
        assert_eq!((t.cwnd, t.seg_size), (3, 1000), "no switch assigned a window: unchanged");
    }
}
