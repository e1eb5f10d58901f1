//! Reno/NewReno window control (RFC 5681 §3.1 growth in Linux's segment form; `tcp_reno_*` in
//! net/ipv4/tcp_cong.c). Recovery itself (RFC 6582 or RFC 6675) is the TCP core's.

use super::{reno_cong_avoid, reno_ssthresh, CongestionOps, Tcb};

/// Standard TCP congestion control.
#[derive(Clone, Debug, Default)]
pub struct NewReno;

impl CongestionOps for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        reno_ssthresh(tcb)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        reno_cong_avoid(tcb, acked)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    #[test]
    fn halves_on_loss_with_floor_of_two() {
        let mut r = NewReno;
        assert_eq!(r.ssthresh(&tcb(20, 100)), 10);
        assert_eq!(r.ssthresh(&tcb(3, 100)), 2);
    }
}
