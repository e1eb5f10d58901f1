//! Linux host stacks (`[host] stack = "linux-4.15"`): the TCP defaults of the kernel versions the
//! reproduced papers ran — SAB's testbed on 2.6.38.3 (JSAC 2014 §V-A), PPT's prototype on 3.18.1
//! (SIGCOMM 2024 §5), and Etalon's hosts on Ubuntu 18.04, kernel 4.15 (reTCP, NSDI 2020 §3.2).
//!
//! A stack sets the defaults of every TCP profile of the scenario (keys written in a
//! `[transport]` table still win), so every scheme of a figure runs on the same host model. What
//! differs by version, with the kernel fact behind it:
//!
//! | | 2.6.38 | 3.18 | 4.15 |
//! |---|---|---|---|
//! | initial window (`tcp_init_cwnd`) | RFC 3390: 3 segments at MSS 1096–1460, 2 above, 4 below (IW10 came in 2.6.39) | 10 | 10 |
//! | initial RTO without a sample (`TCP_TIMEOUT_INIT`) | 3 s | 1 s (RFC 6298, since 3.1) | 1 s |
//! | tail loss probes | no (3.10) | yes | yes |
//! | RACK for first transmissions (`tcp_recovery`) | no | no (4.4) | yes |
//! | receive window growth (`tcp_adv_win_scale`) | 2 (¾ of the buffer) | 1 (½, since 3.4) | 1 |
//!
//! Common to all three: minimum RTO 200 ms (`TCP_RTO_MIN`), SACK and timestamps on, an ACK for
//! every second full segment with a delayed-ACK timer of 40 ms (`TCP_ATO_MIN`: the adaptive ato
//! stays at its floor when segments arrive µs apart, and `tcp_send_delayed_ack` bounds it by
//! max(SRTT, 40 ms)), and quick-ACK mode (`quickack.rs`). Not modelled: TSO/GSO and GRO batching
//! (segments leave and arrive one by one), receive-buffer autotuning (the window clamp stays at
//! its value at connection setup, which only shortens the quick-ACK phase), F-RTO, PRR.
//!
//! Beside the kernels, `"ns-3"` is the simulator's TCP (`TcpSocketBase`) with its attribute
//! defaults, for papers whose results come from ns-3 ([`Kernel::Ns3`], [`ns3`]).

use super::ns3;
use crate::time::Time;
use crate::transport::tcp::TcpConfig;

/// A kernel version whose TCP defaults a scenario can select.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Linux 2.6.38 (SAB's testbed).
    V2_6_38,
    /// Linux 3.18 (PPT's prototype).
    V3_18,
    /// Linux 4.15 (Ubuntu 18.04: Etalon's hosts in the reTCP paper).
    V4_15,
    /// Not a kernel: ns-3's `TcpSocketBase` with its attribute defaults (ns-3.32 to 3.41; see
    /// [`ns3`]).
    Ns3,
}

/// Stack names as written in scenarios, and their kernels.
pub const STACKS: &[(&str, Kernel)] =
    &[("linux-2.6.38", Kernel::V2_6_38), ("linux-3.18", Kernel::V3_18), ("linux-4.15", Kernel::V4_15), ("ns-3", Kernel::Ns3)];
pub const STACK_NAMES: &[&str] = &["linux-2.6.38", "linux-3.18", "linux-4.15", "ns-3"];

/// `TCP_RTO_MIN` (HZ / 5).
pub const MIN_RTO: Time = Time::from_ms(200);
/// `TCP_ATO_MIN` (HZ / 25): the delayed-ACK timer of a bulk receiver.
pub const ATO_MIN: Time = Time::from_ms(40);
/// `TCP_DEFAULT_INIT_RCVWND`: the initial receive window, in segments of up to 1460 B.
pub const INIT_RCVWND: u64 = 10;
/// `tcp_rmem[1]`: the default receive buffer (bytes).
pub const RMEM_DEFAULT: u64 = 87_380;
/// `MAX_TCP_HEADER` plus the aligned `struct sk_buff` and `struct skb_shared_info` of an x86-64
/// build: what a received segment's buffer costs beyond its payload (`SKB_TRUESIZE`); 320 + 256 +
/// 320 bytes.
pub const SKB_OVERHEAD: u64 = 896;

impl Kernel {
    pub fn name(self) -> &'static str {
        STACKS.iter().find(|(_, k)| *k == self).map(|(n, _)| *n).expect("every kernel is listed")
    }

    pub fn from_name(name: &str) -> Option<Kernel> {
        STACKS.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
    }

    /// A Linux kernel (not the ns-3 stack): has quick-ACK mode and its receive windows.
    pub fn is_linux(self) -> bool {
        self != Kernel::Ns3
    }

    /// One line for `fabricsim list stacks`: what this kernel sets, at MSS `mss`.
    pub fn summary(self, mss: u32) -> String {
        if self == Kernel::Ns3 {
            return ns3::summary();
        }
        let yes = |b: bool| if b { "on" } else { "off" };
        format!(
            "initial window {} (MSS {mss}), initial RTO {}, min RTO {MIN_RTO}, delayed ACK every 2 segments or {ATO_MIN}, quick-ACK while the receive window grows {} -> {} B, TLP {}, RACK {}, timestamps and SACK on",
            self.initial_cwnd(mss),
            self.initial_rto(),
            self.init_rcv_wnd(mss),
            self.window_clamp(mss),
            yes(self.tlp()),
            yes(self.rack()),
        )
    }

    /// The knobs (`cc_params`) this stack gives congestion control `cc` where a scenario sets
    /// none: its own implementation's rules (ns-3's `TcpDctcp`); none for Linux's, whose rules
    /// are the algorithms' defaults.
    pub fn cc_knobs(self, cc: crate::transport::tcp::cc::CcKind) -> &'static [(&'static str, f64)] {
        if self == Kernel::Ns3 {
            return ns3::cc_knobs(cc);
        }
        &[]
    }

    /// `c` with this kernel's TCP defaults (see the module documentation).
    pub fn tcp_defaults(self, c: TcpConfig) -> TcpConfig {
        if self == Kernel::Ns3 {
            return ns3::tcp_defaults(c);
        }
        let mut c = c;
        c.stack = Some(self);
        c.quickack = Some(self);
        c.initial_cwnd = self.initial_cwnd(c.mss);
        c.rto.min = MIN_RTO;
        c.rto.initial = self.initial_rto();
        c.timestamps = true;
        c.sack = true;
        c.delack_count = 2;
        c.delack_timeout = ATO_MIN;
        c.tlp = self.tlp();
        c.rack = self.rack();
        c
    }

    /// Initial congestion window in segments for an MSS (`tcp_init_cwnd`).
    pub fn initial_cwnd(self, mss: u32) -> u32 {
        match self {
            // RFC 3390: min(4·MSS, max(2·MSS, 4380 B)), as Linux tabulates it.
            Kernel::V2_6_38 => match mss {
                0..=1095 => 4,
                1096..=1460 => 3,
                _ => 2,
            },
            Kernel::V3_18 | Kernel::V4_15 | Kernel::Ns3 => 10,
        }
    }

    /// The first RTO when there is no RTT sample.
    pub fn initial_rto(self) -> Time {
        match self {
            Kernel::V2_6_38 => Time::from_ms(3000),
            Kernel::V3_18 | Kernel::V4_15 => Time::from_ms(1000),
            Kernel::Ns3 => ns3::CONN_TIMEOUT,
        }
    }

    pub fn tlp(self) -> bool {
        matches!(self, Kernel::V3_18 | Kernel::V4_15)
    }

    pub fn rack(self) -> bool {
        self == Kernel::V4_15
    }

    /// Segments of the initial receive window (`tcp_select_initial_window`): 10, or 14600 B worth
    /// (at least 2) for segments above 1460 B.
    fn init_rcvwnd_segments(mss: u64) -> u64 {
        if mss > 1460 { (1460 * INIT_RCVWND / mss).max(2) } else { INIT_RCVWND }
    }

    /// The initial receive window in bytes: where `rcv_ssthresh` starts.
    pub fn init_rcv_wnd(self, mss: u32) -> u64 {
        Self::init_rcvwnd_segments(mss as u64) * mss as u64
    }

    /// The window clamp at connection setup: the receive window `rcv_ssthresh` grows to
    /// (`tcp_init_buffer_space` after `tcp_fixup_rcvbuf`). 2.6.38 sizes the buffer for 4
    /// segments, so `tcp_rmem[1]` wins and ¾ of 87 380 B = 65 535 B; 3.18 and 4.15 size it for the
    /// initial window twice over, times 4 for autotuning, and advertise half of it (93 760 B at
    /// MSS 1448).
    pub fn window_clamp(self, mss: u32) -> u64 {
        let mss = mss as u64;
        match self {
            Kernel::V2_6_38 => {
                // rcvmem = MSS + MAX_TCP_HEADER + 16 + sizeof(sk_buff), in steps of 128 B until ¾ of
                // it holds an MSS; the buffer is the larger of 4 of those and tcp_rmem[1].
                let mut rcvmem = mss + 320 + 16 + 232;
                while rcvmem - rcvmem / 4 < mss {
                    rcvmem += 128;
                }
                let space = (4 * rcvmem).max(RMEM_DEFAULT);
                space - space / 4
            }
            Kernel::V3_18 | Kernel::V4_15 | Kernel::Ns3 => {
                let rcvmem = 2 * (mss + SKB_OVERHEAD) * Self::init_rcvwnd_segments(mss) * 4;
                let space = rcvmem.max(RMEM_DEFAULT);
                space - space / 2
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_windows_follow_rfc_3390_then_iw10() {
        // RFC 3390 §1: min(4*MSS, max(2*MSS, 4380 bytes)).
        for mss in [536u32, 1095, 1096, 1448, 1460, 1461, 8960] {
            let rfc = (4 * mss).min((2 * mss).max(4380)) / mss;
            assert_eq!(Kernel::V2_6_38.initial_cwnd(mss), rfc, "mss {mss}");
            assert_eq!(Kernel::V4_15.initial_cwnd(mss), 10);
        }
    }

    #[test]
    fn receive_windows_at_setup() {
        assert_eq!(Kernel::V4_15.init_rcv_wnd(1448), 14_480);
        // Jumbo frames: 14600 / 8960 = 1, raised to 2 segments.
        assert_eq!(Kernel::V4_15.init_rcv_wnd(8960), 17_920);
        // 2.6.38: tcp_rmem[1] with tcp_adv_win_scale = 2 -> 87380 - 87380/4.
        assert_eq!(Kernel::V2_6_38.window_clamp(1448), 65_535);
        // 4.15: 2 * (1448 + 896) * 10 * 4 = 187 520 B of buffer, half advertised.
        assert_eq!(Kernel::V4_15.window_clamp(1448), 93_760);
        assert_eq!(Kernel::V3_18.window_clamp(1448), 93_760);
    }

    #[test]
    fn names_round_trip() {
        assert_eq!(STACK_NAMES.len(), STACKS.len());
        for (n, k) in STACKS {
            assert!(STACK_NAMES.contains(n));
            assert_eq!(Kernel::from_name(n), Some(*k));
            assert_eq!(k.name(), *n);
        }
        assert_eq!(Kernel::from_name("linux-5.4"), None);
    }
}
