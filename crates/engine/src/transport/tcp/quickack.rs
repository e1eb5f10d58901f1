//! Linux's quick-ACK mode (kernels 2.6.38 to 4.17, `net/ipv4/tcp_input.c`): when a Linux
//! receiver ACKs every segment instead of every second one.
//!
//! - A credit `quick` of segments to ACK at once. The first data segment of a connection sets it
//!   (`tcp_incr_quickack`) to rcv_wnd / (2·MSS), at least 2 and at most `TCP_MAX_QUICKACKS` = 16;
//!   so do a duplicate segment (`tcp_enter_quickack_mode` on out-of-window data) and, on a
//!   classic-ECN connection, a CE mark while no ECE is being echoed yet ("better not delay acks,
//!   sender can have a very low cwnd"). Every ACK sent spends one (`tcp_dec_quickack_mode`).
//! - While the receive window grows (`tcp_grow_window`: `rcv_ssthresh` rises by 2·MSS per
//!   in-order segment of at least 128 B until the window clamp), each growth sets the credit's
//!   low bit (`quick |= 1`), so that segment is ACKed at once too.
//!
//! With the default 14 480 B initial window and 93 760 B clamp of 4.15 at MSS 1448, the first 28
//! segments each get their own ACK, then the 4 credits left, then every second segment does.
//! Kernels from 4.18 give only 2 credits on CE (not modelled: no preset names them).

/// The receive window a quick-ACK receiver starts from and grows to (bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuickAckConfig {
    pub init_rcv_wnd: u64,
    pub window_clamp: u64,
}

/// `TCP_MAX_QUICKACKS`.
pub const MAX_QUICKACKS: u32 = 16;

/// The receiver's quick-ACK state.
#[derive(Clone, Copy, Debug)]
pub struct QuickAck {
    mss: u32,
    clamp: u64,
    /// `rcv_ssthresh`: the window the receiver would advertise now; 0 until the first segment.
    rcv_ssthresh: u64,
    init: u64,
    quick: u32,
}

impl QuickAck {
    pub fn new(cfg: QuickAckConfig, mss: u32) -> QuickAck {
        QuickAck { mss, clamp: cfg.window_clamp.max(cfg.init_rcv_wnd), rcv_ssthresh: 0, init: cfg.init_rcv_wnd, quick: 0 }
    }

    /// `tcp_incr_quickack`: raise the credit to rcv_wnd / (2·MSS), within [2, 16].
    fn enter(&mut self) {
        let q = (self.rcv_ssthresh / (2 * self.mss as u64)).clamp(2, MAX_QUICKACKS as u64) as u32;
        self.quick = self.quick.max(q);
    }

    /// An in-order data segment of `len` bytes arrived (`tcp_event_data_recv`).
    pub fn on_in_order(&mut self, len: u32) {
        if self.rcv_ssthresh == 0 {
            self.rcv_ssthresh = self.init;
            self.enter();
        }
        if len >= 128 && self.rcv_ssthresh < self.clamp {
            self.rcv_ssthresh = (self.rcv_ssthresh + 2 * self.mss as u64).min(self.clamp);
            self.quick |= 1;
        }
    }

    /// `tcp_enter_quickack_mode`: a segment carrying only bytes already received, or a CE mark
    /// on a classic-ECN connection that is not echoing ECE yet.
    pub fn enter_mode(&mut self) {
        self.rcv_ssthresh = self.rcv_ssthresh.max(self.init);
        self.enter();
    }

    /// In quick-ACK mode: this segment is ACKed at once.
    pub fn active(&self) -> bool {
        self.quick > 0
    }

    /// An ACK left.
    pub fn on_ack_sent(&mut self) {
        self.quick = self.quick.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which of the next `n` full in-order segments leave an ACK (quick-ACK mode, else every
    /// second full segment), starting with nothing pending.
    fn pattern(q: &mut QuickAck, n: usize) -> Vec<bool> {
        let mut pending = 0;
        (0..n)
            .map(|_| {
                q.on_in_order(1448);
                pending += 1;
                let now = q.active() || pending >= 2;
                if now {
                    q.on_ack_sent();
                    pending = 0;
                }
                now
            })
            .collect()
    }

    #[test]
    fn linux_4_15_acks_the_first_32_segments_one_by_one() {
        // Hand count: rcv_ssthresh 14480 -> 93760 in steps of 2896 B takes ceil(79280 / 2896) = 28
        // segments, each ACKed at once (credit 5 | 1, then 4 | 1 after each ACK); the 4 credits
        // left cover segments 29-32; from segment 33 every second segment is ACKed.
        let mut q = QuickAck::new(QuickAckConfig { init_rcv_wnd: 14_480, window_clamp: 93_760 }, 1448);
        let mut pending = 0;
        let mut acked_alone = 0;
        let mut acks = 0;
        for i in 1..=60 {
            q.on_in_order(1448);
            pending += 1;
            if q.active() || pending >= 2 {
                if pending == 1 {
                    acked_alone = i;
                }
                q.on_ack_sent();
                pending = 0;
                acks += 1;
            }
        }
        assert_eq!(acked_alone, 32);
        assert_eq!(acks, 32 + (60 - 32) / 2);
        assert!(pattern(&mut q, 4) == vec![false, true, false, true]);
    }

    #[test]
    fn credits_start_at_half_the_initial_window_within_2_and_16() {
        // Initial credit with no growth (clamp = initial window): rcv_wnd / (2 MSS).
        let count = |init: u64, mss: u32| {
            let mut q = QuickAck::new(QuickAckConfig { init_rcv_wnd: init, window_clamp: init }, mss);
            q.on_in_order(mss);
            q.quick
        };
        assert_eq!(count(14_480, 1448), 5);
        assert_eq!(count(17_920, 8960), 2); // 1, raised to 2
        assert_eq!(count(100 * 1448, 1448), 16); // 50, capped
    }

    #[test]
    fn duplicates_and_first_ce_refill_the_credit() {
        let mut q = QuickAck::new(QuickAckConfig { init_rcv_wnd: 14_480, window_clamp: 14_480 }, 1448);
        q.on_in_order(1448);
        for _ in 0..5 {
            q.on_ack_sent();
        }
        assert!(!q.active());
        q.enter_mode(); // a duplicate
        assert_eq!(q.quick, 5);
        q.quick = 0;
        q.enter_mode(); // a first CE
        assert_eq!(q.quick, 5);
        // Tiny segments (< 128 B) do not grow the window.
        let mut t = QuickAck::new(QuickAckConfig { init_rcv_wnd: 14_480, window_clamp: 93_760 }, 1448);
        t.on_in_order(100);
        assert_eq!((t.rcv_ssthresh, t.quick), (14_480, 5));
    }
}
