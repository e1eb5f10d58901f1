//! htsim's congestion window in bytes (`[transport] window = "htsim_bytes"`), for validation
//! against htsim (csg-htsim 841d9e7, sim/tcp.cpp `TcpSrc`, sim/dctcp.cpp `DCTCPSrc`).
//!
//! htsim keeps cwnd and ssthresh as byte counts of whole packets (its MSS is the packet's size
//! on the wire; here `seg` = mss + header) that need not be multiples of a packet:
//!
//! - Growth, on every ACK of new data outside fast recovery, the SYN-ACK included
//!   (`TcpSrc::inflate_window`): `room = snd_una + cwnd − snd_nxt`, the window's free room after
//!   this ACK (not what it acknowledged), at most one packet; none if negative. Slow start
//!   (cwnd < ssthresh) adds min(ssthresh − cwnd, room); congestion avoidance adds
//!   ⌊room · seg / cwnd⌋ bytes. With the window full that is one packet per ACK in slow start and
//!   ⌊seg² / cwnd⌋ in avoidance; a window cut below the flight grows nothing until the flight
//!   falls under it.
//! - Sending (`TcpSrc::send_packets`): a packet leaves while flight + seg ≤ cwnd, so ⌊cwnd / seg⌋
//!   packets are out at most; no limited transmit.
//! - DCTCP (`DCTCPSrc::receivePacket`, before the ACK's own processing): an ECE lowers ssthresh
//!   to cwnd; each observation window cuts cwnd to ⌊cwnd · (1 − α/2)⌋, at least one packet, and
//!   sets ssthresh to it.
//! - A loss (`deflate_window`, at the third duplicate ACK and at *every* timeout):
//!   ssthresh = max(⌊cwnd / 2⌋, 2 packets).
//! - Fast recovery (`TcpSrc::receivePacket`): cwnd = ssthresh + 3 packets on entry, + 1 packet per
//!   further duplicate ACK, a partial ACK takes off what it acknowledged and adds one packet
//!   (not below one packet), the full ACK sets min(ssthresh, flight + 1 packet).
//! - A timeout (`TcpSrc::doNextEvent`): in fast recovery cwnd = min(ssthresh, flight + 1 packet)
//!   first; then the loss rule; then cwnd = one packet.
//!
//! The sender keeps the segment fields of `Tcb` in step ([`ByteWindow::sync`]: cwnd = ⌊bytes /
//! seg⌋ packets, which is what it may have out), so the rest of the TCP core reads them as usual.

use super::Tcb;

/// htsim's window, bytes (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteWindow {
    /// `_cwnd`, bytes.
    pub cwnd: u64,
    /// `_ssthresh`, bytes.
    pub ssthresh: u64,
    /// A packet on the wire, bytes (htsim's `_mss`).
    pub seg: u64,
}

impl ByteWindow {
    /// A window of `cwnd` and `ssthresh` packets of `seg` bytes.
    pub fn new(cwnd: u32, ssthresh: u32, seg: u32) -> ByteWindow {
        let seg = seg.max(1) as u64;
        ByteWindow { cwnd: cwnd as u64 * seg, ssthresh: ssthresh as u64 * seg, seg }
    }

    /// `TcpSrc::inflate_window` after an ACK of new data, `flight` the bytes still out after it.
    pub fn grow(&mut self, flight: u64) {
        let Some(room) = self.cwnd.checked_sub(flight) else { return };
        let room = room.min(self.seg);
        if self.cwnd < self.ssthresh {
            self.cwnd += (self.ssthresh - self.cwnd).min(room);
        } else {
            self.cwnd += room * self.seg / self.cwnd;
        }
    }

    /// `DCTCPSrc::receivePacket` on an ECE: "exit slow start".
    pub fn end_slow_start(&mut self) {
        self.ssthresh = self.ssthresh.min(self.cwnd);
    }

    /// `DCTCPSrc::receivePacket` at the end of an observation window with α > 0.
    pub fn cut(&mut self, alpha: f64) {
        self.cwnd = ((self.cwnd as f64 * (1.0 - alpha / 2.0)) as u64).max(self.seg);
        self.ssthresh = self.cwnd;
    }

    /// `deflate_window` (TcpSrc's and DCTCPSrc's alike): half the window, at least two packets.
    pub fn halve(&mut self) {
        self.ssthresh = (self.cwnd / 2).max(2 * self.seg);
    }

    /// Entering fast recovery, after `halve`: the three duplicate ACKs' packets added.
    pub fn enter_recovery(&mut self) {
        self.cwnd = self.ssthresh + 3 * self.seg;
    }

    /// A duplicate ACK in fast recovery.
    pub fn inflate(&mut self) {
        self.cwnd += self.seg;
    }

    /// A partial ACK in fast recovery, acknowledging `acked` bytes.
    pub fn partial_ack(&mut self, acked: u64) {
        self.cwnd = self.cwnd.saturating_sub(acked) + self.seg;
    }

    /// Leaving fast recovery (the full ACK, or a timeout in it) with `flight` bytes out.
    pub fn exit_recovery(&mut self, flight: u64) {
        self.cwnd = self.ssthresh.min(flight + self.seg);
    }

    /// The segment fields of `tcb` from the bytes: ⌊cwnd / seg⌋ packets may be out.
    pub fn sync(&self, tcb: &mut Tcb) {
        tcb.cwnd = (self.cwnd / self.seg).clamp(1, u32::MAX as u64) as u32;
        tcb.ssthresh = (self.ssthresh / self.seg).min(u32::MAX as u64) as u32;
    }
}

impl Tcb {
    /// Apply `f` to the byte window, if the sender keeps one, and bring the segment fields in
    /// step; false without one.
    #[inline]
    pub fn bytes_do(&mut self, f: impl FnOnce(&mut ByteWindow)) -> bool {
        let Some(mut b) = self.bytes else { return false };
        f(&mut b);
        b.sync(self);
        self.bytes = Some(b);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: u64 = 9000; // htsim's packet in its DCTCP drivers

    #[test]
    fn growth_follows_the_free_room_not_the_bytes_acknowledged() {
        // Worked by hand from inflate_window's rule, 9000 B packets; the values are those htsim
        // printed for tcp_407 of its DCTCP incast (docs/VALIDATION.md), restarting after its
        // first timeout at cwnd 9000, ssthresh 45450.
        let mut b = ByteWindow { cwnd: 9000, ssthresh: 45450, seg: P };
        b.grow(0); // the ACK of the one packet out: room 9000, slow start +9000
        assert_eq!(b.cwnd, 18000);
        b.end_slow_start(); // the next ACK carries ECE: ssthresh 45450 → 18000
        b.grow(9000); // two out, one acknowledged: room 9000; avoidance + 9000²/18000
        assert_eq!((b.cwnd, b.ssthresh), (22500, 18000));
        b.grow(9000); // room 13500 capped at 9000: + ⌊81e6 / 22500⌋ = 3600
        assert_eq!(b.cwnd, 26100);
        b.grow(9000); // + ⌊81e6 / 26100⌋ = 3103 (3103.4)
        assert_eq!(b.cwnd, 29203);
        // A window cut below the flight grows nothing: 29203 B with 4 packets (36000 B) out.
        let before = b;
        b.grow(36000);
        assert_eq!(b, before);
        // Room of 203 B in avoidance: + ⌊203 · 9000 / 29203⌋ = 62.
        b.grow(29000);
        assert_eq!(b.cwnd, 29265);
        // Slow start stops exactly at ssthresh, without spilling into avoidance.
        let mut s = ByteWindow { cwnd: 40000, ssthresh: 45000, seg: P };
        s.grow(0);
        assert_eq!(s.cwnd, 45000);
        // The SYN-ACK of htsim's incast flows: cwnd = ssthresh = 10 packets, nothing out: +900.
        let mut syn = ByteWindow::new(10, 10, 9000);
        syn.grow(0);
        assert_eq!(syn.cwnd, 90900);
    }

    #[test]
    fn dctcp_cut_and_loss_rules_in_bytes() {
        // tcp_407's first window end: α = 10/11 / 16 = 0.0568…; 43096 · (1 − α/2) = 41871.7.
        let mut b = ByteWindow { cwnd: 43096, ssthresh: 18000, seg: P };
        b.cut(10.0 / 11.0 / 16.0);
        assert_eq!((b.cwnd, b.ssthresh), (41871, 41871));
        b.grow(41871 - 14871); // then the same ACK's growth: room 14871 → 9000, + ⌊81e6 / 41871⌋
        assert_eq!(b.cwnd, 43805);
        // The cut never goes below one packet.
        let mut small = ByteWindow { cwnd: 10000, ssthresh: 10000, seg: P };
        small.cut(1.0);
        assert_eq!(small.cwnd, 9000);
        // A timeout from 90900 B: ssthresh 45450, cwnd one packet (the sender sets it).
        let mut t = ByteWindow { cwnd: 90900, ssthresh: 90000, seg: P };
        t.halve();
        assert_eq!(t.ssthresh, 45450);
        // ... but never below two packets.
        let mut l = ByteWindow { cwnd: 12000, ssthresh: 90000, seg: P };
        l.halve();
        assert_eq!(l.ssthresh, 18000);
    }

    #[test]
    fn fast_recovery_in_bytes() {
        // From 50000 B: ssthresh 25000, cwnd 25000 + 27000 = 52000; a duplicate ACK 61000; a
        // partial ACK of two packets 61000 − 18000 + 9000 = 52000; the full ACK with 3 packets
        // out min(25000, 36000) = 25000, with none out min(25000, 9000) = 9000.
        let mut b = ByteWindow { cwnd: 50000, ssthresh: 90000, seg: P };
        b.halve();
        b.enter_recovery();
        assert_eq!((b.ssthresh, b.cwnd), (25000, 52000));
        b.inflate();
        assert_eq!(b.cwnd, 61000);
        b.partial_ack(18000);
        assert_eq!(b.cwnd, 52000);
        let mut e = b;
        e.exit_recovery(27000);
        assert_eq!(e.cwnd, 25000);
        b.exit_recovery(0);
        assert_eq!(b.cwnd, 9000);
        // A partial ACK of more than the window keeps one packet.
        let mut p = ByteWindow { cwnd: 20000, ssthresh: 18000, seg: P };
        p.partial_ack(27000);
        assert_eq!(p.cwnd, 9000);
    }

    #[test]
    fn sync_gives_the_packets_the_window_lets_out() {
        // send_packets: a packet leaves while flight + 9000 ≤ cwnd, so 29203 B lets 3 out, 26999
        // B 2, and a window under one packet still one (the cut's floor keeps it there).
        let mut t = super::super::tcb(10, 10);
        for (bytes, segs) in [(29203, 3), (26999, 2), (27000, 3), (9000, 1)] {
            ByteWindow { cwnd: bytes, ssthresh: 45450, seg: P }.sync(&mut t);
            assert_eq!((t.cwnd, t.ssthresh), (segs, 5), "{bytes} B");
        }
        t.bytes = None;
        assert!(!t.bytes_do(|b| b.cwnd = 1), "no byte window: nothing done");
        t.bytes = Some(ByteWindow::new(4, 4, 9000));
        assert!(t.bytes_do(|b| b.inflate()));
        assert_eq!((t.cwnd, t.bytes.unwrap().cwnd), (5, 45000));
    }
}
