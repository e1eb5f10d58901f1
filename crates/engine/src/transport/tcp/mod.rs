//! TCP: one connection = a [`Sender`] at the source and a [`Receiver`] at the destination.
//!
//! What is modelled (docs/ARCHITECTURE.md "TCP model"): MSS-sized segments on fixed boundaries, initial window,
//! cumulative ACKs with delayed ACKs (count + timeout; immediate ACK on out-of-order data, on
//! gap-filling data and on the FIN segment), SACK (RFC 2018, 3 blocks) with RFC 6675 loss recovery,
//! NewReno fast recovery (RFC 6582) when SACK is off, limited transmit (RFC 3042), RFC 6298 RTO
//! with Karn's rule and exponential back-off, ECN (RFC 3168 classic latch, or DCTCP's two-state
//! echo, RFC 8257 §3.2), receive window, and pluggable congestion control ([`cc`]).
//!
//! Also: RACK and tail loss probes (RFC 8985), an optional SYN / SYN-ACK handshake, and segments
//! cut as they are sent (SAB's sub-MSS segments, persistent connections written in pieces: see
//! `layout`), Linux's receiver quick-ACK mode (`quickack`), and the kernel clock of time dilation
//! (`Sender::cc_call`).
//!
//! Not modelled: ECN negotiation (set by configuration), the FIN exchange (the last data segment
//! carries FIN), timestamp option bytes (the RTT samples they give are: `timestamps`), PRR in fast
//! recovery (cwnd is set to ssthresh on entering it, as RFC 6675 §5 says; PRR only in CWR, `prr`), F-RTO and undo, Nagle, slow
//! start after idle, SACK option bytes on the wire.

pub mod cc;
mod closed;
pub mod header;
mod layout;
mod ns3_ecn;
pub mod lcp;
pub mod priority;
pub mod scheme;
pub mod quickack;
mod receiver;
mod rtt;
mod scoreboard;
mod sender;

pub use closed::Closed;
pub use receiver::{RcvWindow, Receiver, SackBytes};
pub use rtt::{RtoConfig, RttEstimator};
pub use scoreboard::Scoreboard;
pub use sender::{Sender, SenderStats};

use std::sync::Arc;

use super::{Endpoints, FlowStats, Outbox, Transport};
use crate::host::linux::Kernel;
use crate::host::Stacks;
use crate::transport::timer::TimerId;
use crate::packet::{Kind, Packet};
use crate::time::Time;

/// TCP's timers (the ids its `LazyTimer`s schedule).
pub mod timers {
    use crate::transport::timer::TimerId;
    /// Sender retransmission timeout (RFC 6298).
    pub const RTO: TimerId = TimerId(0);
    /// Receiver delayed-ACK timeout (RFC 1122 §4.2.3.2).
    pub const DELAYED_ACK: TimerId = TimerId(1);
    /// Sender pacing: the next packet may leave.
    pub const PACE: TimerId = TimerId(2);
    /// Sender tail loss probe (RFC 8985 §7).
    pub const PROBE: TimerId = TimerId(3);
    /// Sender RACK reordering timer (RFC 8985 §6.3).
    pub const REORDER: TimerId = TimerId(4);
    /// Sender low-priority loop: the next paced opportunistic packet may leave (PPT §3.2).
    pub const LCP_PACE: TimerId = TimerId(5);
    /// Sender low-priority loop: no low-priority ACK for `silence_rtts` RTTs closes it (PPT §3.2).
    pub const LCP_SILENCE: TimerId = TimerId(6);
}

/// How ECN is used on a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnMode {
    /// Not ECN-capable: packets are Not-ECT, ECE is ignored.
    Off,
    /// RFC 3168: receiver latches ECE until CWR; sender reduces once per window.
    Classic,
    /// RFC 8257 §3.2: receiver echoes each CE change at once; ECT on all packets.
    Dctcp,
}

pub use cc::{CcKind, CC_CATALOG};

impl CcKind {
    /// Does the sender cut segments as it sends them (SAB shrinks them below the MSS, §IV-B)?
    pub fn cuts_segments(self) -> bool {
        matches!(self, CcKind::Sab)
    }
    /// Data packets carry a window field for switches to lower, echoed by the receiver (SAB).
    pub fn sets_window_field(self) -> bool {
        matches!(self, CcKind::Sab)
    }
    /// Needs DCTCP's ECN (ECT on every packet, the receiver's two-state echo: RFC 8257 §3.2).
    pub fn uses_dctcp_ecn(self) -> bool {
        matches!(self, CcKind::Dctcp | CcKind::D2tcp | CcKind::L2dct | CcKind::Ppt | CcKind::Rc3)
    }
    /// The algorithm sizes its first window or its delay target from the idle path (HPCC: NIC
    /// rate × base RTT; Swift: the hop count).
    pub fn wants_path(self) -> bool {
        matches!(self, CcKind::Hpcc | CcKind::Swift | CcKind::Ppt | CcKind::PptSwift | CcKind::Rc3)
    }
    /// The algorithm reads in-band telemetry: data packets must collect it (HPCC).
    pub fn needs_telemetry(self) -> bool {
        matches!(self, CcKind::Hpcc)
    }
    /// The algorithm wants one ACK per data packet (HPCC §3.2: every ACK echoes its packet's
    /// INT; Swift: the RTT sample is the fabric delay only without the delayed-ACK hold).
    pub fn acks_every_packet(self) -> bool {
        matches!(self, CcKind::Hpcc | CcKind::Swift | CcKind::PptSwift)
    }
}

impl TcpConfig {
    /// The configuration as a connection runs it: what HPCC and Swift assume of the stack (the
    /// scenario parser rejects contrary keys) made explicit.
    pub fn for_connection(mut self) -> TcpConfig {
        self.telemetry |= self.cc.needs_telemetry();
        self.int_at_end = self.cc == CcKind::Hpcc && cc::HpccHtsimRules::from_knobs(&self.cc_params).record_at_end;
        if self.cc.acks_every_packet() {
            self.delack_count = 1;
        }
        self
    }

    /// Whether this flow's SYN, SYN-ACK and handshake ACK carry ECT(0) (`ect_syn`).
    pub fn syn_ect(&self) -> bool {
        match self.ect_syn {
            EctSyn::Off => false,
            EctSyn::On => self.ecn != EcnMode::Off,
            EctSyn::Dctcp => self.ecn == EcnMode::Dctcp,
        }
    }

    /// This profile on hosts whose kernels run `k` times faster than the network (time
    /// dilation, reTCP NSDI 2020 §4.3: Etalon's LibVT dilates the applications' clocks, not the
    /// kernel's): every timer constant of the kernel — minimum, maximum and initial RTO, a fixed
    /// RTO, the delayed-ACK timer, the tail-loss-probe floor — lasts `k` times less in the
    /// network's time; RTT-based timers need nothing, they follow the measured RTT.
    pub fn dilate(self, k: u32) -> TcpConfig {
        let mut c = self;
        let k = k.max(1);
        let d = |t: Time| Time(t.0 / k as u64);
        c.rto.min = d(c.rto.min);
        c.rto.max = d(c.rto.max);
        c.rto.initial = d(c.rto.initial);
        c.delack_timeout = d(c.delack_timeout);
        c.tlp_min = d(c.tlp_min);
        c.rto_tick = d(c.rto_tick);
        if let FixedRto::Time(t) = c.fixed_rto {
            c.fixed_rto = FixedRto::Time(d(t));
        }
        c.time_dilation = c.time_dilation.max(1) * k;
        c
    }

    /// Low-priority packets per low-priority ACK the receiver returns (PPT's EWD: 2; without EWD
    /// and for RC3: 1).
    pub fn lp_per_ack(&self) -> u32 {
        match self.ppt_params() {
            Some(p) if self.ppt.ewd => p.lcp_per_ack,
            _ => 1,
        }
    }
    /// PPT's low-priority-loop constants: from the knobs for `ppt`, PPT's defaults for
    /// `ppt-swift` (its knobs are Swift's); `None` for other algorithms.
    pub fn ppt_params(&self) -> Option<cc::PptParams> {
        match self.cc {
            CcKind::Ppt => Some(cc::PptParams::from_knobs(&self.cc_params)),
            CcKind::PptSwift => Some(cc::PptParams::from_knobs(&cc::Knobs::default())),
            _ => None,
        }
    }
    /// Packet sizes for the ideal FCT: MSS payload, header, ACK, and the handshake if any.
    pub fn framing(&self) -> super::Framing {
        super::Framing { payload: self.mss, header: self.header, control: self.ack_size, handshake: self.handshake, sprays: false }
    }
}

/// When a flow's SYN and SYN-ACK are ECN-capable (`TcpConfig::ect_syn`, scenario key `ect_syn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EctSyn {
    /// Never: not ECN-capable (RFC 3168 §6.1.1), so a RED queue that picks them drops them.
    Off,
    /// ECT(0) whenever the flow uses ECN (`ect_syn = true`).
    On,
    /// ECT(0) only in DCTCP's ECN mode, as ns-3 tags every packet of a socket in `DctcpEcn` mode
    /// (`TcpSocketBase::AddSocketTags`; `TcpDctcp::Init` sets the mode) and no SYN in its
    /// `ClassicEcn` mode: the ns-3 stack's default.
    Dctcp,
}

/// When a retransmission timeout lowers ssthresh (`TcpConfig::timeout_ssthresh`, scenario key
/// `timeout_ssthresh`); every rule then sets cwnd to one segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutSsthresh {
    /// Once per loss episode: not again for repeated timeouts of the same data, nor when a
    /// reduction for this window is under way (Linux `tcp_enter_loss`).
    Episode,
    /// At every timeout, as ns-3's `TcpSocketBase::ReTxTimeout` does (its `IsHeadRetransmitted`
    /// check follows `SetSentListLost`, which clears the flags it reads): from the loss state, a
    /// repeated timeout, half the flight, at least two segments (TcpNewReno's and ns-3-dev
    /// TcpDctcp's `GetSsThresh` in CA_LOSS); otherwise the congestion control's.
    Every,
    /// ns-2's FullTcp (`FullTcpAgent::timeout_action`, tcp/tcp-full.cc, stock ns-2.34/2.35 and
    /// the HKUST trees): if the sender's last window reduction was an ECN reaction
    /// (`last_cwnd_action_` ECN, which neither time, new ACKs nor a timeout clear; only a fast
    /// retransmit replaces it: here fast recovery or a tail-loss probe's recovery), ssthresh
    /// stays, at every such timeout;
    /// otherwise ssthresh = max(⌊cwnd/2⌋, 2) at every timeout, repeated ones too
    /// (`slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)`, tcp/tcp.cc).
    Ns2,
}

/// How a timeout's loss state ends, and what an ECE does inside it (`TcpConfig::loss_exit`,
/// scenario key `loss_exit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossExit {
    /// Linux: the ACK that ends it grows the window by every segment it acknowledges; an ECE
    /// in the loss state is not acted on until the state has ended.
    Acked,
    /// ns-3: the ACK that ends it grows the window (and counts for DCTCP's α) only by the
    /// segments beyond the point the timeout recorded (snd_nxt then), as
    /// `TcpSocketBase::ProcessAck` does in CA_LOSS (`segsAcked = (ack − m_recover) / segment
    /// size`, `m_recover = m_highTxMark` in `ReTxTimeout`): after a timeout with one segment
    /// outstanding the window stays at one segment. And an ECE on an advancing ACK in the loss
    /// state enters CWR, as `TcpSocketBase::ReceivedAck` does in any state but CWR, with
    /// ssthresh from ns-3's rule for CA_LOSS (`TcpDctcp::GetSsThresh`: in flight / 2, at least 2
    /// segments); the ACK then counts all it delivered for α and PRR sets the window.
    Ns3,
    /// ns-2's FullTcp (`FullTcpAgent::recv` calls `TcpAgent::ecn()` on every advancing ACK with
    /// ECE, tcp/tcp-full.cc and tcp/tcp.cc, stock ns-2.34/2.35 and the HKUST trees): `ecn()`
    /// reacts when the ACK passes `recover_` *or* the last window reduction was a timeout's
    /// (`last_cwnd_action_ == CWND_ACTION_TIMEOUT`), so after a timeout that did not keep an
    /// ECN reaction's mark (`TimeoutSsthresh::Ns2`) the first such ECE cuts at once, in the
    /// loss state, by the congestion control's rule (DCTCP's (1 − α/2)), and marks the
    /// reduction ECN with the next one a window later (`recover_ = maxseq_`; here the loss state
    /// then ends at snd_nxt of the cut). The ACK that ends the loss state otherwise counts as
    /// `Acked`. Needs `TimeoutSsthresh::Ns2` (its mark). Congestion controls that own cwnd are
    /// not cut here.
    Ns2,
}

/// How a TCP sender finds a retransmission lost before its timeout (`TcpConfig::lost_retransmit`,
/// scenario key `lost_retransmit`). Only with SACK, and beside RACK: with `rack` on, RACK's rule
/// finds lost retransmissions whatever this says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LostRetransmit {
    /// RACK's rule (RFC 8985 §6.2), run for retransmissions even with `rack` off: sent before the
    /// newest delivered segment (by time, then sequence) and overdue by RACK's RTT and reorder
    /// window. Linux's behaviour.
    Rack,
    /// At once when an ACK newly SACKs a segment last sent strictly after it, as ns-3-dev's
    /// `TcpTxBuffer::MarkRetransmittedSegmentsLost` (5ada3ae14, 2026-07-19; in no release to
    /// ns-3.48).
    Ns3Sacked,
    /// Never: a lost retransmission waits for the timeout, as in every ns-3 release from
    /// ns-3.32 to ns-3.48, whose `TcpTxBuffer::NextSeg` skips every segment flagged `m_retrans`
    /// and only `SetSentListLost` (the timeout) or `MarkHeadAsLost` clears the flag; and as in
    /// ns-2.34's FullTcp/Sack (tcp/tcp-full.cc `SackFullTcpAgent::nxt_tseq`: a hole pointer that
    /// never moves back, one fast retransmit per recovery episode).
    Never,
}

/// What a sender may send on the duplicate ACKs before fast recovery (Disorder), beyond what
/// cwnd allows (`TcpConfig::limited_transmit`, scenario key `limited_transmit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitedTransmit {
    /// RFC 3042: cwnd + min(duplicate ACKs, 2) against the pipe, SACK or not.
    Rfc3042,
    /// With SACK, only through the pipe (SACKed segments leave it), as RFC 6675 §5 (C) and ns-3's
    /// `TcpSocketBase::DupAck` send: no duplicate ACK adds to cwnd. Without SACK as `Rfc3042`.
    Pipe,
    /// Nothing: outside fast recovery and the loss state (in Disorder, and in CWR after ECE) the
    /// window counts every segment between snd_una and snd_nxt, SACKed or not, against cwnd, as
    /// ns-2.34's FullTcp/Sack sends (tcp/tcp-full.cc `FullTcpAgent::send_much`: outside recovery,
    /// `pipectrl_` off, the window is `t_seqno_ - highest_ack_` against cwnd; no limited-transmit
    /// rule in tcp-full.cc). SACK or not; not in the byte-counted window of htsim's mode.
    None,
}

/// PRR's bound once pipe is at or below ssthresh (`TcpConfig::prr_bound`); DeliveredData is what
/// the ACK delivered, prr_delivered − prr_out what the round has delivered and not yet used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrrBound {
    /// max(prr_delivered − prr_out, DeliveredData), plus a segment on a safe ACK (one that
    /// cumulatively acknowledges a retransmission in fast recovery): RFC 6937 §3's conservative
    /// bound as ns-3-dev (1406464, `TcpPrrRecovery::DoRecovery`, after RFC 9937) counts it;
    /// RecoverFS the flight less what SACK had delivered before, plus this ACK's delivery.
    Crb,
    /// ns-3.33–3.44's default `ReductionBound` SSRB, as its `DoRecovery` counts it: on a safe
    /// ACK max(prr_delivered − prr_out, DeliveredData) + a segment, otherwise DeliveredData only
    /// (RFC 6937's SSRB adds the segment on every ACK); RecoverFS the unacknowledged data
    /// (`UnAckDataCount`, no SACK refinement).
    Ns3Ssrb,
}

/// Every TCP knob. Defaults follow Linux where the issue or a paper does not say otherwise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpConfig {
    /// Payload bytes per segment.
    pub mss: u32,
    /// Header bytes on every data packet (IP + TCP + options).
    pub header: u32,
    /// Bytes of a pure ACK (the SYN-ACK's too).
    pub ack_size: u32,
    /// Bytes of the SYN; `None`: `ack_size`. htsim's SYN is one byte on the wire
    /// (`TcpSrc::send_packets`: `TcpPacket::new_syn_pkt(.., 1, 1)`, size 1; csg-htsim 841d9e7),
    /// so its SYNs barely queue behind one another where an incast's meet.
    pub syn_size: Option<u32>,
    /// Bytes of the SYN-ACK; `None`: `ack_size`. ns-3's SYN-ACK carries 16 B of TCP options
    /// (58 B on a PointToPoint wire; `TcpSocketBase::SendEmptyPacket`); htsim's is an ordinary ACK.
    pub synack_size: Option<u32>,
    /// Initial window, segments (RFC 6928: 10).
    pub initial_cwnd: u32,
    /// Initial ssthresh, segments (u32::MAX = "arbitrarily high", RFC 5681).
    pub initial_ssthresh: u32,
    pub rto: RtoConfig,
    /// Seed the RTT estimator with the idle-path RTT, as the SYN/SYN-ACK exchange would have
    /// (flows start established); otherwise the first RTO is `rto.initial` (RFC 6298 §2.1).
    pub handshake_rtt: bool,
    /// RFC 7323 timestamps for RTT measurement: every ACK that acknowledges new data is an RTT
    /// sample — the echoed timestamp is that of the earliest segment it newly acknowledges
    /// (§4.3), a retransmission included — so a timeout's back-off ends with the first such ACK,
    /// as in Linux and ns-3 (both enable timestamps by default). Off: Karn's rule (RFC 6298
    /// §3, §5.7): no sample from a retransmitted segment, the doubled RTO stays until one.
    pub timestamps: bool,
    /// Open the connection with a SYN / SYN-ACK exchange before any data (RFC 9293 §3.5; the
    /// SYN is resent on the initial RTO, backing off). Its RTT sample seeds the estimator.
    pub handshake: bool,
    /// When the SYN and SYN-ACK (and ns-3's handshake ACK) are ECN-capable (`EctSyn`; read
    /// through [`TcpConfig::syn_ect`]).
    pub ect_syn: EctSyn,
    /// Proportional Rate Reduction (RFC 6937) while reducing after ECE (CWR): cwnd is not cut
    /// to ssthresh at once but brought down over the round, `sender.rs` `Prr`; as Linux
    /// (`tcp_cwnd_reduction`) and ns-3 (`TcpPrrRecovery`, its default) do. Off: cwnd = ssthresh
    /// on entering CWR. Fast recovery keeps cwnd = ssthresh either way.
    pub prr: bool,
    /// PRR counts the segments the ACK that starts a CWR episode delivered twice, as ns-3 does
    /// (`TcpSocketBase::EnterCwr` runs `TcpPrrRecovery::EnterRecovery`, whose `DoRecovery` adds
    /// them, and `ProcessAck`'s CA_CWR branch runs `DoRecovery` again for the same ACK): the
    /// episode's first ACK may send up to twice what it delivered. Off: once (RFC 6937).
    pub prr_ns3_entry: bool,
    /// PRR's proportional part counted in bytes, as ns-3's `TcpPrrRecovery::DoRecovery` does
    /// (ns-3-dev src/internet/model/tcp-prr-recovery.cc): ⌈prr_delivered · ssthresh /
    /// RecoverFS⌉ in bytes, ssthresh with the fraction of a segment DCTCP's `byte_cut` keeps,
    /// then whole segments while one fits. Rounding up in bytes, not segments, releases a segment
    /// on fewer ACKs. Off: in segments (RFC 6937 counts either).
    pub prr_bytes: bool,
    /// An ACK that advances snd_una counts, for the window's growth and DCTCP's α, the segments it
    /// delivered (newly SACKed, or newly acknowledged and not SACKed before), as ns-3-dev's
    /// `TcpSocketBase::ProcessAck` does (`bytesAcked = currentDelivered`; ns-3.41 and earlier
    /// count the cumulative advance); the ACK that ends fast recovery still counts its whole
    /// advance (ns-3 recomputes it there). Off: the segments its cumulative ACK covers.
    pub acked_delivered: bool,
    /// What duplicate ACKs before fast recovery let out (scenario key `limited_transmit`).
    pub limited_transmit: LimitedTransmit,
    /// PRR during CWR steps only on ACKs that advance snd_una, counting what each delivered (SACKed
    /// data included, data SACKed before not again), as ns-3's `TcpSocketBase::ProcessAck` runs
    /// `DoRecovery` in CA_CWR (and `EnterCwr` counts the entering ACK's `currentDelivered`). Off:
    /// on every ACK that delivers, duplicate ACKs' SACKs included (RFC 6937, Linux).
    pub prr_cwr_advancing: bool,
    /// PRR (as `prr`, with its `prr_bound`) during SACK fast recovery too, as Linux
    /// (`tcp_cwnd_reduction` in CA_Recovery) and ns-3 (`TcpPrrRecovery`, called from
    /// `TcpSocketBase::EnterRecovery`, `DupAck` and `ProcessAck`'s partial-ACK branch) do:
    /// RecoverFS at entry, cwnd = pipe + what the round may send on each ACK that delivers,
    /// one segment (the fast retransmit) on the first; cwnd = ssthresh at the end. Off: cwnd =
    /// ssthresh on entering fast recovery (RFC 6675 §5 step 4.2). Only with SACK.
    pub prr_recovery: bool,
    /// PRR's bound once pipe ≤ ssthresh (`PrrBound`).
    pub prr_bound: PrrBound,
    /// Duplicate ACKs during a CWR episode may start a fast recovery (Linux
    /// `tcp_fastretrans_alert`). Off, as ns-3's `TcpSocketBase::DupAck` (ns-3.33 on: it enters
    /// CA_RECOVERY only from CA_DISORDER): the episode goes on, segments SACK marks lost are
    /// resent within its window (ns-3's `NextSeg` rule 1), and it ends only at its recovery point.
    pub recovery_from_cwr: bool,
    /// In SACK fast recovery, an ACK that advances below the recovery point sends one segment
    /// beyond the window — the lowest lost and not yet resent, else new data — unless the segment
    /// at the new point was resent already, as ns-3's `TcpSocketBase::ProcessAck` calls
    /// `DoRetransmit` (`NextSeg`) on a partial ACK. The fast retransmission on entering recovery
    /// follows `DoRetransmit` too (ns-3.32–3.40's `EnterRecovery`), and when `NextSeg` finds
    /// neither a lost segment nor new data the window allows, the segment at snd_una goes again
    /// ("re-send again the head"). Off: the window alone (RFC 6675).
    pub partial_ack_ns3: bool,
    /// Fast recovery's first retransmission is the segment at snd_una even when a retransmission
    /// of it is already out, as ns-3's `TcpSocketBase::EnterRecovery` sends `m_highRxAckMark`
    /// (RFC 6675 §5 step 4.3; ns-3.41 on — earlier ns-3 calls `DoRetransmit`, `partial_ack_ns3`).
    /// Only the retransmission entering recovery: a partial ACK's follows `partial_ack_ns3`.
    /// Off: the lowest segment deemed lost and not yet resent.
    pub fast_rtx_head: bool,
    /// How a retransmission still out is found lost before a timeout (`LostRetransmit`).
    pub lost_retransmit: LostRetransmit,
    /// ns-3's `TcpTxBuffer::NextSeg` as in ns-3.32–3.42: in SACK fast recovery, when nothing lost
    /// waits and no new data may go, the lowest segment neither SACKed, deemed lost nor resent
    /// goes (rule 3, without RFC 6675's test that it lies below the highest SACK, which ns-3.43
    /// added); no rescue retransmission
    /// (rule 4: "we choose to not respect the SHOULD"). (`EnterRecovery`'s `MarkHeadAsLost`, which
    /// forgets a resend of a head not deemed lost, has no case here: fast recovery starts only
    /// once SACKs deem the head lost.) Off: RFC 6675's NextSeg with its rescue retransmission.
    pub next_seg_ns3: bool,
    /// With SACK, fast recovery starts only on an ACK that newly SACKs data, as ns-3's
    /// `TcpSocketBase::DupAck` (run only for such an ACK) is its only way into CA_RECOVERY: an ACK
    /// that advances without new SACK information starts none even when the segment at its point
    /// is deemed lost. Off: any ACK that finds one (RFC 6675 §5, Linux).
    pub recovery_on_dupack: bool,
    /// When a retransmission timeout lowers ssthresh (`TimeoutSsthresh`, key `timeout_ssthresh`).
    pub timeout_ssthresh: TimeoutSsthresh,
    /// What SACK blocks add to an ACK on the wire (`SackBytes`; `None`: every ACK `ack_size`).
    pub sack_bytes: SackBytes,
    /// The DCTCP receiver's echo as ns-3's `TcpDctcp` does it (`receiver.rs`, `ns3_ce_event`), not
    /// RFC 8257 §3.2's, and its sender's count of ECE (ECE only on advancing ACKs, a segment for
    /// each duplicate ACK: `ns3_ecn.rs`): used only to validate against ns-3 (docs/VALIDATION.md).
    pub dctcp_echo_ns3: bool,
    /// How a timeout's loss state ends and what an ECE does in it (`LossExit`, key `loss_exit`).
    pub loss_exit: LossExit,
    /// At a retransmission timeout, forget what the receiver SACKed (scenario key `timeout_sack =
    /// "clear"`): RFC 2018 §8's "SHOULD turn off all of the SACKed bits" and ns-2.35's
    /// `Agent/TCP/FullTcp/Sack` with `clear_on_timeout_ true` (its default; TCN-NS2's scripts
    /// keep it, PIAS-NS2's set it false). Every segment from snd_una is then lost and resent
    /// until later SACK blocks mark it again. Off (`"keep"`, the default): Linux's and ns-3's
    /// timeouts keep the scoreboard and resend the holes only.
    pub clear_sack_on_timeout: bool,
    /// A timeout's RTO back-off ends with the next ACK of new data, an RTT sample or not
    /// (scenario key `rto_backoff_end = "new_ack"`): ns-3's `TcpSocketBase::NewAck` recomputes
    /// `m_rto` from the estimator at every such ACK, dropping `ReTxTimeout`'s doubling. Off
    /// (`"sample"`, the default): only a valid RTT sample ends it (RFC 6298 §5.7 with Karn's
    /// rule; Linux's `tcp_ack_update_rtt`), so without timestamps the ACK of a retransmission
    /// leaves the doubled RTO in place. With timestamps every such ACK is a sample, and the two
    /// agree. Only the doubling is dropped: after a resent SYN the 3 s floor of RFC 6298 §5.7
    /// stays, where ns-3 recomputes from its estimator; fast recovery's later partial ACKs, which
    /// ns-3 leaves alone, also end it here (no effect: the back-off is already gone by then).
    pub backoff_ends_on_new_ack: bool,
    /// A CWR episode (the reduction after an ECE) ends only on an ACK *beyond* the point recorded
    /// when it began (snd_nxt then), as ns-3's `TcpSocketBase::ReceivedAck` does (`ackNumber >
    /// m_recover`, `m_recover = m_highTxMark` in `EnterCwr`): the ACK of exactly that point stays
    /// in CWR, so PRR sets the window on it, it does not grow the window, and an ECE on it starts
    /// no new reduction. Linux holds CWR the same way (`tcp_fastretrans_alert`: "CWR is to be
    /// held something *above* high_seq is ACKed"). Off: the episode ends on the ACK of that point.
    pub ns3_cwr_exit: bool,
    /// The receiver acknowledges the connection's first data segment at once, as ns-3 does
    /// (`TcpSocketBase::ProcessSynRcvd`: "Always respond to first data packet", the delayed-ACK
    /// count set full on opening). Off: it waits for the delayed-ACK count like any other.
    pub ack_first_data: bool,
    /// With `handshake`, the sender answers the SYN-ACK with a header-only packet of its own
    /// before its first data segment (ECN-capable with `ect_syn`), as ns-3 does
    /// (`ProcessSynSent`'s `SendEmptyPacket(ACK)`): it takes a place in the queues, and under
    /// ns-3's DCTCP echo the receiver raises its CE event as for a segment with the first data
    /// byte's sequence number, so its mark takes the first segment's (`receiver.rs`). Off: the
    /// first data segment carries the ACK.
    pub handshake_ack: bool,
    /// The SYN carries a zero timestamp, so the SYN-ACK's RTT sample is its arrival time since
    /// the simulation's start rather than since the SYN left: htsim's TCP does this
    /// (`TcpPacket::new_syn_pkt` never sets the timestamp that `TcpSink` echoes and
    /// `TcpSrc::receivePacket` samples; csg-htsim 841d9e7). Modelled only for validation against
    /// htsim (docs/VALIDATION.md); off by default.
    pub syn_ts_zero: bool,
    /// The congestion window kept in bytes by htsim's rules (`window = "htsim_bytes"`,
    /// `cc/byte_window.rs`: growth by the window's free room per ACK, the SYN-ACK's included;
    /// DCTCP's cut, the loss halving at every timeout and fast recovery in bytes; no limited
    /// transmit), csg-htsim `TcpSrc::inflate_window` and `DCTCPSrc::receivePacket`. Modelled only
    /// for validation against htsim (docs/VALIDATION.md); off: the window is whole segments.
    pub htsim_bytes: bool,
    /// The flow's last segment is htsim's packet beyond the flow: sent, but the flow completes
    /// once the data before it is acknowledged. htsim's `TcpSrc::send_packets` sends while
    /// `_highest_sent <= _flow_size + 1` (`set_flowsize(f)` sets `_flow_size = f + _mss`) and
    /// reports the flow finished at the ACK of `_flow_size`, so a flow of f bytes sends f + 2
    /// packets and finishes at the ACK of f + 1 (csg-htsim 841d9e7). For validation against htsim
    /// only (its driver's flows mapped one segment longer); off: the flow completes with its
    /// last byte.
    pub extra_segment: bool,
    /// ACK every this many full segments (RFC 1122: 2).
    pub delack_count: u32,
    /// Delayed-ACK timeout.
    pub delack_timeout: Time,
    pub sack: bool,
    pub ecn: EcnMode,
    /// Receive buffer in bytes; `None` = rwnd never binds.
    pub rcv_buffer: Option<u64>,
    /// How the receive buffer makes the window (`rcv_window`: the free space, or ns-3's).
    pub rcv_window: RcvWindow,
    /// Duplicate-ACK threshold (RFC 5681: 3).
    pub dupthresh: u32,
    /// RACK time-based loss detection for first transmissions (RFC 8985 §6; Linux default).
    /// Retransmissions are always checked this way. Needs SACK.
    pub rack: bool,
    /// Knobs of the congestion control set by the scenario (`cc_params`).
    pub cc_params: cc::Knobs,
    /// Tail loss probes (RFC 8985 §7; Linux default). Needs SACK.
    pub tlp: bool,
    /// Smallest probe timeout (Linux: 10 ms).
    pub tlp_min: Time,
    /// Priority class of every packet of the connection (0 = most urgent; the ports' class map
    /// picks the queue).
    pub class: u8,
    /// Priority class of the receiver's pure ACKs and SYN-ACK, when it differs from `class`
    /// (htsim's hosts serve a `TcpAck`, `PRIO_HI`, before data, `PRIO_LO`, in their
    /// `FairPriorityQueue`: csg-htsim sim/queue.cpp, sim/tcppacket.h). None: `class`.
    pub ack_class: Option<u8>,
    /// Data packets carry their remaining flow size as rank (pFabric §4.1); else rank 0.
    pub rank_remaining: bool,
    /// How data packets get their class (`priority.rs`: fixed, PIAS's MLFQ, Flash).
    pub priority: priority::Priority,
    /// A retransmission timeout that ignores the RTT estimator and never backs off (pFabric §4.2).
    pub fixed_rto: FixedRto,
    /// Timeouts fire only at multiples of this period (0 = at their deadline), as htsim's
    /// `TcpRtxTimerScanner` checks every flow's deadline once per period (sim/tcp.cpp).
    pub rto_tick: Time,
    /// After this many timeouts in a row, probe with header-only packets until one is answered
    /// (pFabric §4.2's probe mode); 0 = never.
    pub probe_after: u32,
    /// Congestion avoidance and slow start never take cwnd above this many segments (ns-2's
    /// `maxcwnd_`, which the HKUST PIAS/pFabric scripts set to the port buffer − 1); `None` = no cap.
    pub cwnd_cap: Option<u32>,
    /// Grow cwnd as ns-2's FullTcp does around ECN: on every ACK of new data, during the
    /// once-per-window reduction too, except the first ECE ACK of a run of them (false: Linux, no
    /// growth while in CWR).
    pub ns2_ecn_growth: bool,
    /// The named scheme this profile was made from (`scheme.rs`), reported as the flow's `cc`.
    pub scheme: Option<&'static str>,
    /// Data packets collect in-band telemetry; the receiver echoes it in its ACKs.
    pub telemetry: bool,
    /// ... each hop recorded as the packet's last bit leaves, not as it starts (HPCC's
    /// `int_record = "end"`; set by `TcpConfig::for_connection`).
    pub int_at_end: bool,
    /// Send buffer in bytes (`None` = unlimited): the data the application can have handed to
    /// the connection beyond snd_una. Bounds what the sender may have out, and is what PPT's
    /// identification reads (§4.1: the first write is min(flow size, send buffer)).
    pub send_buffer: Option<u64>,
    /// PPT's ablation switches (`lcp.rs`), read when `cc` is PPT.
    pub ppt: lcp::PptSwitches,
    /// The application's rate (`app_rate`): it hands the connection data at this rate from the
    /// flow's start (rate × elapsed bytes written), so a new segment waits for its last byte;
    /// `None`: all data is there at the start. Retransmissions never wait.
    pub app_rate: Option<crate::time::Rate>,
    /// The Linux kernel whose defaults the profile started from (`[host] stack`), if any.
    pub stack: Option<Kernel>,
    /// Linux quick-ACK mode with this kernel's receive windows (`quickack.rs`); `None`: ACK every
    /// `delack_count` segments from the first.
    pub quickack: Option<Kernel>,
    /// How many times slower the network runs than the hosts' kernels (`[host] time_dilation`):
    /// the congestion control runs on the kernel's clock (`Sender::cc_call`). 1 = no dilation.
    /// The timer constants are divided by it when the scenario is read (`TcpConfig::dilate`).
    pub time_dilation: u32,
    pub cc: CcKind,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1448,
            header: 52,
            ack_size: 52,
            syn_size: None,
            synack_size: None,
            initial_cwnd: 10,
            initial_ssthresh: u32::MAX,
            rto: RtoConfig {
                initial: Time::from_ms(1000),
                min: Time::from_ms(200),
                max: Time::from_ms(60_000),
                granularity: Time::ZERO,
            },
            handshake_rtt: true,
            timestamps: false,
            handshake: false,
            ect_syn: EctSyn::Off,
            prr: false,
            prr_ns3_entry: false,
            prr_bytes: false,
            prr_cwr_advancing: false,
            limited_transmit: LimitedTransmit::Rfc3042,
            acked_delivered: false,
            prr_recovery: false,
            prr_bound: PrrBound::Crb,
            recovery_from_cwr: true,
            timeout_ssthresh: TimeoutSsthresh::Episode,
            recovery_on_dupack: false,
            lost_retransmit: LostRetransmit::Rack,
            next_seg_ns3: false,
            fast_rtx_head: false,
            partial_ack_ns3: false,
            sack_bytes: SackBytes::None,
            dctcp_echo_ns3: false,
            loss_exit: LossExit::Acked,
            clear_sack_on_timeout: false,
            backoff_ends_on_new_ack: false,
            ns3_cwr_exit: false,
            ack_first_data: false,
            handshake_ack: false,
            syn_ts_zero: false,
            htsim_bytes: false,
            extra_segment: false,
            delack_count: 2,
            delack_timeout: Time::from_ms(200),
            sack: true,
            ecn: EcnMode::Off,
            rcv_buffer: None,
            rcv_window: RcvWindow::FreeSpace,
            dupthresh: 3,
            rack: true,
            cc_params: cc::Knobs([None; cc::MAX_KNOBS]),
            tlp: true,
            tlp_min: Time::from_ms(10),
            class: 0,
            ack_class: None,
            rank_remaining: false,
            priority: priority::Priority::Fixed,
            fixed_rto: FixedRto::Off,
            rto_tick: Time::ZERO,
            probe_after: 0,
            cwnd_cap: None,
            ns2_ecn_growth: false,
            scheme: None,
            telemetry: false,
            int_at_end: false,
            send_buffer: None,
            ppt: lcp::PptSwitches { ewd: true, lcp_ecn: true, sched: true, ident: true },
            app_rate: None,
            stack: None,
            quickack: None,
            time_dilation: 1,
            cc: CcKind::NewReno,
        }
    }
}

/// A fixed retransmission timeout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FixedRto {
    /// RFC 6298's estimator with back-off.
    Off,
    /// This long, always.
    Time(Time),
    /// This many idle-path round trips of the flow (known when the flow is seeded with its RTT).
    Rtts(f64),
}

/// One TCP flow: both endpoints.
#[derive(Clone, Debug)]
pub struct TcpConnection {
    pub ends: Endpoints,
    /// The configuration, shared by the connections that have the same one (`SharedConfigs`).
    pub cfg: Arc<TcpConfig>,
    pub sender: Sender,
    pub receiver: Receiver,
}

impl TcpConnection {
    /// A connection carrying `size` bytes (`None` = until the simulation ends).
    pub fn new(ends: Endpoints, cfg: TcpConfig, size: Option<u64>) -> Self {
        Self::with_config(ends, Arc::new(cfg.for_connection()), size)
    }

    /// As `new`, with a configuration `TcpConfig::for_connection` already made (and shared).
    pub(crate) fn with_config(ends: Endpoints, cfg: Arc<TcpConfig>, size: Option<u64>) -> Self {
        debug_assert!(*cfg == cfg.for_connection(), "a connection's configuration is made by for_connection");
        TcpConnection { ends, sender: Sender::new(&cfg, size, ends.hash_fwd), receiver: Receiver::new(&cfg, size), cfg }
    }
}

/// The TCP configurations of a simulation's connections, shared by the connections that have
/// the same one.
///
/// A `TcpConfig` is about 600 bytes and read on every packet a connection handles. Held in each
/// connection it made a connection 2.5 KB and put its own copy of those lines in the way of the
/// cache; shared, the connections of one configuration read the same lines. Flows are created in
/// runs of one configuration, so only the 8 most recently used are searched: with more than 8
/// configurations interleaved one may be held more than once (at worst one copy per flow, as
/// before).
#[derive(Clone, Debug, Default)]
pub struct SharedConfigs {
    recent: Vec<Arc<TcpConfig>>,
}

impl SharedConfigs {
    /// How many of the most recently used configurations a new flow's is compared with.
    const SEARCHED: usize = 8;

    /// The shared configuration of a connection made from `cfg` (`TcpConfig::for_connection`).
    pub fn get(&mut self, cfg: &TcpConfig) -> Arc<TcpConfig> {
        let c = cfg.for_connection();
        let k = match self.recent.iter().rposition(|k| **k == c) {
            Some(i) => self.recent.remove(i),
            None => {
                if self.recent.len() == Self::SEARCHED {
                    self.recent.remove(0);
                }
                Arc::new(c)
            }
        };
        self.recent.push(k.clone());
        k
    }
}

impl Transport for TcpConnection {
    fn start(&mut self, now: Time, _: &mut Stacks, out: &mut Outbox) {
        self.sender.start(now, &self.cfg, &self.ends, out);
    }
    fn on_packet(&mut self, now: Time, pkt: &Packet, _: &mut Stacks, out: &mut Outbox) {
        if pkt.bounced {
            // A header a trimming switch returned (NDP's return-to-sender): TCP has no use for it.
            return;
        }
        match pkt.kind {
            Kind::Data => self.receiver.on_data(now, pkt, &self.ends, out),
            Kind::Ack => {
                if let Some(rec) = out.int_in.as_deref() {
                    match self.sender.int_echo.as_deref_mut() {
                        Some(b) => *b = *rec,
                        None => self.sender.int_echo = Some(Box::new(*rec)),
                    }
                    self.sender.int_fresh = true;
                }
                if pkt.tcp().lcp {
                    self.sender.on_lp_ack(now, pkt.tcp(), &self.cfg, &self.ends, out)
                } else {
                    self.sender.on_ack(now, pkt.tcp(), &self.cfg, &self.ends, out)
                }
            }
            Kind::Syn => self.receiver.on_syn(now, &self.ends, out),
            Kind::SynAck => self.sender.on_syn_ack(now, &self.cfg, &self.ends, out),
            // The handshake's own ACK (`TcpConfig::handshake_ack`), the only control packet TCP sends.
            Kind::Control => self.receiver.on_handshake_ack(pkt, &self.ends, out),
        }
    }
    fn on_timer(&mut self, now: Time, timer: TimerId, _: &mut Stacks, out: &mut Outbox) {
        match timer {
            timers::RTO => self.sender.on_rto_timer(now, &self.cfg, &self.ends, out),
            timers::DELAYED_ACK => self.receiver.on_delack_timer(now, &self.ends, out),
            timers::PACE => self.sender.on_pace_timer(now, &self.cfg, &self.ends, out),
            timers::PROBE => self.sender.on_probe_timer(now, &self.cfg, &self.ends, out),
            timers::REORDER => self.sender.on_reorder_timer(now, &self.cfg, &self.ends, out),
            timers::LCP_PACE => self.sender.on_lcp_pace_timer(now, &self.cfg, &self.ends, out),
            timers::LCP_SILENCE => self.sender.on_lcp_silence_timer(now, out),
            _ => debug_assert!(false, "TCP set no timer {timer:?}"),
        }
    }
    fn on_send_ready(&mut self, now: Time, _: &mut Stacks, out: &mut Outbox) {
        self.sender.on_send_ready(now, &self.cfg, &self.ends, out);
    }
    fn on_nic_paused(&mut self, now: Time, out: &mut Outbox) {
        self.sender.on_nic_paused(now, out);
    }
    fn completed_at(&self) -> Option<Time> {
        self.sender.completed_at()
    }
    fn stats(&self) -> FlowStats {
        let s = &self.sender.stats;
        FlowStats {
            bytes_acked: self.sender.bytes_acked(),
            bytes_delivered: self.receiver.delivered(),
            established_at: self.sender.established_at(),
            packets_sent: s.segments_sent,
            retransmits: s.retransmits,
            timeouts: s.timeouts,
            fast_recoveries: s.fast_recoveries,
            ecn_reductions: s.ecn_reductions,
            ..Default::default()
        }
    }
    fn stop(&mut self, now: Time, _: &mut Stacks, out: &mut Outbox) -> u64 {
        self.sender.stop(now, &self.cfg, &self.ends, out)
    }
    fn keep_open(&mut self, last: bool) {
        self.sender.keep_open(last);
        self.receiver = Receiver::new(&self.cfg, None);
    }
    fn write(&mut self, now: Time, bytes: u64, last: bool, _: &mut Stacks, out: &mut Outbox) {
        self.sender.write(now, bytes, last, &self.cfg, &self.ends, out);
    }
    fn set_deadline(&mut self, at: Time) {
        self.sender.tcb.deadline = Some(at);
    }
    fn seed_rtt(&mut self, handshake_rtt: Time) {
        if let FixedRto::Rtts(k) = self.cfg.fixed_rto {
            self.sender.fixed_rto = Some(Time((handshake_rtt.0 as f64 * k).round() as u64));
        }
        if self.cfg.handshake_rtt && !self.cfg.handshake {
            // Linux feeds the SYN/SYN-ACK sample to both the RTO estimator and min_rtt.
            self.sender.rtt.sample(handshake_rtt);
            self.sender.tcb.min_rtt = Some(handshake_rtt);
        }
    }
    fn set_path(&mut self, path: super::PathInfo) {
        cc::CongestionOps::path(&mut self.sender.cc, &path);
        if let Some(low) = self.sender.low.as_deref_mut() {
            low.set_path(&path);
        }
    }
    fn window(&self) -> Option<f64> {
        Some(self.sender.tcb.cwnd as f64)
    }
    fn congestion(&self) -> Option<f64> {
        self.sender.cc.alpha()
    }
    fn rtt(&self) -> Option<Time> {
        self.sender.tcb.srtt
    }
    fn rate_bps(&self) -> Option<f64> {
        let bits = self.cfg.mss as f64 * 8.0;
        match (self.sender.tcb.pacing_rate, self.sender.tcb.srtt) {
            (Some(p), _) if p > 0.0 => Some(p * bits),
            (_, Some(rtt)) if rtt.0 > 0 => Some(self.sender.tcb.cwnd as f64 * bits / rtt.secs_f64()),
            _ => None,
        }
    }
    fn name(&self) -> &'static str {
        self.cfg.scheme.unwrap_or(self.cfg.cc.name())
    }
    fn framing(&self) -> super::Framing {
        self.cfg.framing()
    }
    fn carry(&self) -> Option<super::Carry> {
        Some(super::Carry { ssthresh: self.sender.tcb.ssthresh, alpha: self.sender.cc.alpha(), ecn_cut_last: self.sender.ecn_cut_last })
    }
    fn resume(&mut self, c: super::Carry) {
        self.sender.tcb.ssthresh = c.ssthresh;
        self.sender.ecn_cut_last = c.ecn_cut_last;
        if let Some(a) = c.alpha {
            self.sender.cc.set_alpha(a);
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod hpcc_swift_tests;
#[cfg(test)]
mod ppt_tests;
