//! A second, low-priority control loop inside a TCP sender, sending the flow's data from its
//! tail downwards while the normal loop sends from its head: PPT's LCP (Suo, Pang, Li et al.,
//! SIGCOMM 2024, §3) and RC3's recursive low-priority loop (Mittal et al., NSDI 2014).
//!
//! The normal loop (HCP) is the TCP sender, unchanged; this module holds the second loop's state
//! and decisions, and the sender calls it at four seams (`sender.rs`): after each send attempt
//! (`next_seg`, `emit_lcp`), on a low-priority ACK (`on_lp_ack`), on its two timers, and when the
//! normal loop reaches bytes this loop already got delivered (it skips them:
//! `Scoreboard::push_skipped`).
//!
//! PPT (§3.1, §3.2, §5):
//! - Case 1: a loop opens when the flow starts, with window I = BDP − IW; for a flow identified
//!   as large (§4.1) only in its 2nd RTT (at its first ACK).
//! - Case 2: after start-up, when DCTCP's α is the minimum of its recent values (`cc/ppt.rs`),
//!   a loop opens with I = (1/2 − α_min)·W_max (eq. (2)).
//! - The first I packets are paced at I/RTT; afterwards each low-priority ACK without ECE sends
//!   one packet, and the receiver returns one low-priority ACK per two LCP packets, so the rate
//!   halves every RTT (EWD). An ECE-marked low-priority ACK "does not trigger new opportunistic
//!   packet". No low-priority ACK for 2 RTTs closes the loop; it also closes when it meets data
//!   the normal loop has sent.
//! - LCP packets are never retransmitted by this loop: a lost one is a hole the normal loop fills
//!   when it gets there.
//!
//! RC3 (§3 of its paper, as summarized in our reference notes; unconfirmed): one loop at flow
//! start covering the rest of the flow at line rate, one low-priority ACK per packet, no
//! window, never reopened; the class of a packet grows with its distance from the head.

use super::cc::PptParams;
use super::timers;
use crate::time::Time;
use crate::transport::timer::LazyTimer;
use crate::transport::{Outbox, PathInfo};

/// PPT's mirror-symmetric tagging (§4.2): HCP uses P0–P3, LCP the same class + 4.
pub const LCP_CLASS_OFFSET: u8 = 4;
/// §4.2: "the flows identified as large by the buffer-aware approach use the last lowest
/// priority" of each half (P3 / P7).
pub const LARGE_CLASS: u8 = 3;
/// Classes in each half (P0–P3).
pub const HALF: u8 = 4;

/// RC3's level sizes: level i (class i, i ≥ 1) carries the next `RC3_FACTOR^i · IW` packets
/// after TCP's initial window, the last level the rest (as recalled in our reference notes: P1
/// the next 10·IW packets, P2 the next 100·IW, P3 the rest; unconfirmed, so kept as knobs).
pub const RC3_FACTOR: u64 = 10;
pub const RC3_LEVELS: u8 = 3;

/// PPT's ablation switches (§6.3), all on for `ppt`; the `ppt-no-*` schemes turn one off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PptSwitches {
    /// Exponential window decrease (off: §6.3's "PPT w.o. EWD").
    pub ewd: bool,
    /// ECN on the LCP (off: "PPT w.o. LCP ECN").
    pub lcp_ecn: bool,
    /// Mirror-symmetric tagging (off: "PPT w.o. scheduling": HCP in the connection's class, LCP
    /// in that class + 4).
    pub sched: bool,
    /// Buffer-aware identification (off: "PPT w.o. identification", every flow unidentified).
    pub ident: bool,
}

impl Default for PptSwitches {
    fn default() -> Self {
        PptSwitches { ewd: true, lcp_ecn: true, sched: true, ident: true }
    }
}

/// Which design the loop follows, and its ablation switches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Design {
    /// PPT: `ewd` = pace the first window and ACK every `lcp_per_ack` packets (off: the window
    /// at line rate, one ACK per packet, §6.3 "sends opportunistic packets at line rate once the
    /// LCP loop is opened"); `ecn` = LCP packets are ECN-capable and ECE stops the loop's
    /// clock (off: Not-ECT, §6.3 "PPT w.o. LCP ECN").
    /// `on_delay`: the delay-based variant (Fig. 14, `cc/ppt_swift.rs`): no case 1; a loop opens
    /// when the window's delay signal offers one (`delay_window`).
    Ppt { p: PptParams, ewd: bool, ecn: bool, on_delay: bool },
    /// RC3 with `levels` low-priority levels of sizes factor^i · IW.
    Rc3 { factor: u64, levels: u8 },
}

/// Counters for tests and the flow table.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LcpStats {
    /// Loops opened (case 1 and case 2).
    pub opened: u64,
    /// Opportunistic packets sent, low-priority ACKs received (ECE-marked among them).
    pub sent: u64,
    pub acks: u64,
    pub ece_acks: u64,
    /// Segments the normal loop skipped because this loop had them delivered.
    pub skipped: u64,
    /// When the latest loop opened and its window I (packets).
    pub last_open: Option<(Time, u64)>,
    /// Loops closed by silence (§3.2), and by meeting the normal loop's data.
    pub silenced: u64,
    pub met: u64,
}

#[derive(Clone, Debug)]
pub struct LowLoop {
    pub design: Design,
    open: bool,
    /// The loop sends segment `low − 1` next; it has sent `[low, top)` since its block started;
    /// it never goes below `floor` (the top of an earlier block).
    low: u64,
    top: u64,
    floor: u64,
    /// Sorted, disjoint segment ranges the receiver reported (SACK, or a cumulative ACK beyond
    /// the normal loop) at or above the normal loop's next segment.
    delivered: Vec<(u64, u64)>,
    /// Paced packets of the opening window still to send, the gap between them and when the
    /// next may leave; packets earned by low-priority ACKs.
    paced_left: u64,
    gap: Time,
    next_at: Time,
    credit: u64,
    pace: LazyTimer,
    silence: LazyTimer,
    /// Case 1 waits for the first ACK (a flow identified as large, §3.1).
    case1_at_first_ack: bool,
    /// The flow's first write exceeded the identification threshold (§4.1).
    pub identified: bool,
    /// BDP in segments and the base RTT of the idle path (`PathInfo`).
    bdp: u64,
    base_rtt: Time,
    /// Payload bytes the flow has sent in either loop (the tagging's "bytes sent", §4.2).
    pub sent_bytes: u64,
    pub stats: LcpStats,
}

impl LowLoop {
    pub fn new(design: Design) -> LowLoop {
        LowLoop {
            design,
            open: false,
            low: 0,
            top: 0,
            floor: 0,
            delivered: Vec::new(),
            paced_left: 0,
            gap: Time::ZERO,
            next_at: Time::ZERO,
            credit: 0,
            pace: LazyTimer::new(timers::LCP_PACE),
            silence: LazyTimer::new(timers::LCP_SILENCE),
            case1_at_first_ack: false,
            identified: false,
            bdp: 0,
            base_rtt: Time::ZERO,
            sent_bytes: 0,
            stats: LcpStats::default(),
        }
    }

    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Does this loop ever send (PPT with `lcp = 0`, or on a connection written in pieces, only
    /// tags)?
    pub fn sends(&self) -> bool {
        !matches!(self.design, Design::Ppt { p, .. } if !p.lcp)
    }

    /// The flow now ends before segment `end` (the application stopped): nothing above it.
    pub fn truncate(&mut self, end: u64) {
        self.low = self.low.min(end);
        self.top = self.top.min(end);
        self.floor = self.floor.min(end);
    }

    /// The idle path: BDP = NIC rate × base RTT, in full segments on the wire.
    pub fn set_path(&mut self, p: &PathInfo) {
        let bytes = p.nic_rate.0 as f64 * p.base_rtt.secs_f64() / 8.0;
        self.bdp = (bytes / p.segment.max(1) as f64).floor() as u64;
        self.base_rtt = p.base_rtt;
    }
    /// For tests without a simulator: BDP in segments and the base RTT.
    pub fn set_bdp(&mut self, bdp: u64, base_rtt: Time) {
        self.bdp = bdp;
        self.base_rtt = base_rtt;
    }
    pub fn bdp(&self) -> u64 {
        self.bdp
    }

    /// Segments per low-priority ACK the receiver uses (EWD: 2).
    pub fn per_ack(design: &Design) -> u32 {
        match design {
            Design::Ppt { p, ewd: true, .. } => p.lcp_per_ack,
            _ => 1,
        }
    }

    /// LCP packets carry ECT (PPT with ECN on the LCP; RC3 marks nothing of its own).
    pub fn ecn_capable(&self) -> bool {
        matches!(self.design, Design::Ppt { ecn: true, .. })
    }

    /// The flow starts; `first_write` is what the application's first write put in the send
    /// buffer (§4.1: min(flow size, send buffer)). Decides identification and case 1.
    /// Returns whether a loop should open now (and with how many packets).
    pub fn on_start(&mut self, first_write: u64, iw: u64, rest_segments: u64) -> Option<u64> {
        match self.design {
            Design::Ppt { p, on_delay, .. } => {
                self.identified = first_write > p.ident_threshold;
                if !p.lcp || on_delay {
                    return None;
                }
                // §3.1 case 1: I = BDP − IW; identified flows wait for the 2nd RTT.
                if self.identified {
                    self.case1_at_first_ack = true;
                    None
                } else {
                    Some(self.bdp.saturating_sub(iw))
                }
            }
            // RC3: the rest of the flow, once.
            Design::Rc3 { .. } => Some(rest_segments),
        }
    }

    /// The normal loop's first ACK of new data (the 2nd RTT): case 1 for identified flows.
    pub fn on_first_ack(&mut self, iw: u64) -> Option<u64> {
        if !std::mem::take(&mut self.case1_at_first_ack) {
            return None;
        }
        Some(self.bdp.saturating_sub(iw))
    }

    /// Case 2 (eq. (2)): I = (1/2 − α_min)·W_max, when no loop is open.
    pub fn case2_window(&self, alpha_min: f64, w_max: u32) -> Option<u64> {
        match self.design {
            Design::Ppt { p, on_delay: false, .. } if p.lcp && !self.open && !self.case1_at_first_ack => {
                let i = ((0.5 - alpha_min) * w_max as f64).floor();
                (i >= 1.0).then_some(i as u64)
            }
            _ => None,
        }
    }

    /// The delay-based variant's opening (`cc/ppt_swift.rs`): `window` packets, when no loop is
    /// open.
    pub fn delay_window(&self, window: u64) -> Option<u64> {
        match self.design {
            Design::Ppt { p, on_delay: true, .. } if p.lcp && !self.open && window >= 1 => Some(window),
            _ => None,
        }
    }

    /// Open a loop of `window` packets. `tail` is one past the last segment the send buffer
    /// holds now; `rtt` the RTT the pacing and the silence use.
    pub fn open(&mut self, now: Time, window: u64, tail: u64, rtt: Time, out: &mut Outbox) {
        if window == 0 || self.open {
            return;
        }
        if tail > self.top {
            // "LCP sends opportunistic packets from the very last byte" of the send buffer: a
            // new block from the tail; the earlier block's segments stay below `floor`.
            self.floor = self.top;
            self.top = tail;
            self.low = tail;
        }
        self.open = true;
        self.stats.opened += 1;
        self.stats.last_open = Some((now, window));
        let rtt = if rtt > Time::ZERO { rtt } else { self.base_rtt };
        match self.design {
            Design::Ppt { p, ewd, .. } => {
                self.paced_left = window;
                // §3.2: "the sender paces the initial sending rate of opportunistic packets to
                // the initial window divided by RTT"; without EWD, line rate.
                self.gap = if ewd { Time(rtt.0 / window) } else { Time::ZERO };
                self.next_at = now;
                self.credit = 0;
                self.silence.set(now + scale(rtt, p.silence_rtts), out);
            }
            Design::Rc3 { .. } => {
                self.paced_left = window;
                self.gap = Time::ZERO;
                self.next_at = now;
                self.credit = 0;
            }
        }
    }

    fn close(&mut self) {
        self.open = false;
        self.paced_left = 0;
        self.credit = 0;
        self.silence.cancel();
        self.pace.cancel();
    }

    /// Record that the receiver holds segments `[a, b)` (only the part at or above `hcp_nxt`,
    /// the normal loop's next new segment, matters).
    pub fn note_delivered(&mut self, a: u64, b: u64, hcp_nxt: u64) {
        let a = a.max(hcp_nxt);
        if a >= b {
            return;
        }
        let i = self.delivered.partition_point(|&(_, e)| e < a);
        let (mut s, mut e) = (a, b);
        let mut j = i;
        while j < self.delivered.len() && self.delivered[j].0 <= e {
            s = s.min(self.delivered[j].0);
            e = e.max(self.delivered[j].1);
            j += 1;
        }
        if j == i + 1 && self.delivered[i] == (s, e) {
            return;
        }
        self.delivered.drain(i..j);
        self.delivered.insert(i, (s, e));
    }

    /// Is segment `seg` (the normal loop's next new one) known delivered? Forgets ranges the
    /// normal loop has passed.
    #[inline]
    pub fn is_delivered(&mut self, seg: u64) -> bool {
        while let Some(&(_, e)) = self.delivered.first() {
            if e > seg {
                break;
            }
            self.delivered.remove(0);
        }
        self.delivered.first().is_some_and(|&(a, _)| a <= seg)
    }

    /// The segment this loop would send next, given the normal loop's next new segment; closes
    /// the loop when it has met the normal loop's data.
    pub fn next_seg(&mut self, hcp_nxt: u64) -> Option<u64> {
        if !self.open {
            return None;
        }
        if self.low == 0 || self.low - 1 < hcp_nxt.max(self.floor) {
            self.stats.met += 1;
            self.close();
            return None;
        }
        Some(self.low - 1)
    }

    /// May a packet leave now? Consumes the permission when it says yes; arms the pacing timer
    /// when the next paced packet is due later.
    pub fn take_permission(&mut self, now: Time, out: &mut Outbox) -> bool {
        if !self.open {
            return false;
        }
        if self.credit > 0 {
            self.credit -= 1;
            return true;
        }
        if self.paced_left > 0 {
            if now < self.next_at {
                self.pace.arm(self.next_at, out);
                return false;
            }
            self.paced_left -= 1;
            self.next_at = self.next_at.max(now) + self.gap;
            return true;
        }
        false
    }

    /// Segment `seg` of `seg_bytes` left as an opportunistic packet.
    pub fn sent(&mut self, seg: u64, seg_bytes: u64) {
        debug_assert_eq!(seg + 1, self.low);
        self.low = seg;
        self.sent_bytes += seg_bytes;
        self.stats.sent += 1;
    }

    /// A low-priority ACK arrived (after its SACK information was recorded). Returns whether
    /// the loop may have something to send now.
    pub fn on_lp_ack(&mut self, now: Time, ece: bool, rtt: Time, out: &mut Outbox) -> bool {
        self.stats.acks += 1;
        if ece {
            self.stats.ece_acks += 1;
        }
        match self.design {
            Design::Ppt { p, ecn, .. } => {
                if !self.open {
                    return false;
                }
                self.silence.set(now + scale(rtt, p.silence_rtts), out);
                // §3.2 / §5 tcp_ack_loops: ECE → "we do nothing"; otherwise one new packet.
                if ece && ecn {
                    return false;
                }
                self.credit += 1;
                true
            }
            // RC3's low-priority loop is not ACK-clocked: ACKs only report delivery.
            Design::Rc3 { .. } => false,
        }
    }

    /// The pacing timer's event.
    pub fn on_pace_timer(&mut self, now: Time) {
        self.pace.event_seen(now);
    }

    /// The silence timer's event: closes the loop when it expired (§3.2).
    pub fn on_silence_timer(&mut self, now: Time, out: &mut Outbox) {
        if self.silence.fired(now, out) && self.open {
            self.stats.silenced += 1;
            self.close();
        }
    }

    /// The class of a normal-loop (`lcp` false) or opportunistic packet sent now.
    pub fn class(&self, lcp: bool, sched: bool, thresholds: &[u64; 3], base: u8, seg: u64, iw: u64) -> u8 {
        match self.design {
            Design::Ppt { .. } => {
                let hcp = if !sched {
                    base
                } else if self.identified {
                    LARGE_CLASS
                } else {
                    // Unidentified flows: PIAS-style demotion by bytes sent (§4.1, §4.2).
                    thresholds.iter().position(|&t| self.sent_bytes <= t).unwrap_or(3) as u8
                };
                if lcp {
                    (hcp + LCP_CLASS_OFFSET).min(crate::queue::CLASSES as u8 - 1)
                } else {
                    hcp
                }
            }
            Design::Rc3 { factor, levels } => {
                if !lcp {
                    return base;
                }
                rc3_level(seg, iw, factor, levels)
            }
        }
    }
}

fn scale(t: Time, k: f64) -> Time {
    Time((t.0 as f64 * k).round() as u64)
}

/// RC3's class for segment `seg`: level i ≥ 1 holds the `factor^i · iw` segments after the
/// previous level, starting after the initial window; the last level holds the rest.
pub fn rc3_level(seg: u64, iw: u64, factor: u64, levels: u8) -> u8 {
    let mut end = iw;
    let mut size = iw;
    for level in 1..levels {
        size = size.saturating_mul(factor);
        end = end.saturating_add(size);
        if seg < end {
            return level;
        }
    }
    levels.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rc3_levels_grow_tenfold_after_the_initial_window() {
        // IW 4: segments 0..4 are TCP's; 4..44 level 1 (40 = 10·IW), 44..444 level 2 (400), the rest 3.
        let l = |s| rc3_level(s, 4, 10, 3);
        assert_eq!((l(4), l(43), l(44), l(443), l(444), l(1_000_000)), (1, 1, 2, 2, 3, 3));
    }

    #[test]
    fn delivered_ranges_merge_and_are_forgotten_behind_the_normal_loop() {
        let mut l = LowLoop::new(Design::Rc3 { factor: 10, levels: 3 });
        l.note_delivered(50, 60, 10);
        l.note_delivered(70, 80, 10);
        l.note_delivered(58, 72, 10);
        assert_eq!(l.delivered, vec![(50, 80)]);
        l.note_delivered(5, 12, 10);
        assert_eq!(l.delivered, vec![(10, 12), (50, 80)]);
        assert!(l.is_delivered(11) && !l.is_delivered(12) && l.is_delivered(50));
        assert_eq!(l.delivered, vec![(50, 80)]);
    }
}
