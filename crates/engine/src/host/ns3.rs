//! The ns-3 host stack (`[host] stack = "ns-3"`): the TCP of the ns-3 simulator with its attribute
//! defaults, for reproductions of papers whose results come from ns-3 (PPT, SIGCOMM 2024;
//! AccelToR). Read from nsnam/ns-3-dev-git at the tags ns-3.32 to ns-3.45; where a rule changes
//! among them the stack is ns-3.33–3.40's (the row names the option for the others; ns-3.31 and
//! earlier open with `InitialCwnd` 1):
//!
//! | ns-3 attribute (file) | default | here |
//! |---|---|---|
//! | `TcpSocket::InitialCwnd` (tcp-socket.cc) | 10 segments | `initial_cwnd` 10 |
//! | `TcpSocket::InitialSlowStartThreshold` | `UINT32_MAX` bytes | unlimited |
//! | `TcpSocket::SndBufSize`, `RcvBufSize` | 131 072 B each | `send_buffer`, `rcv_buffer` 131 072 B |
//! | `TcpRxBuffer::Add`, `TcpSocketBase::AdvertisedWindowSize` | window = the whole buffer while the application reads at once; out-of-order data beyond the lowest byte held + buffer cut off | `rcv_window = "ns-3"` |
//! | `TcpSocket::DelAckCount`, `DelAckTimeout` | 2 segments, 200 ms | the same |
//! | `TcpSocket::ConnTimeout` | 3 s (SYN retransmission, doubling) | `initial_rto` 3 s |
//! | `TcpSocket::SegmentSize` | 536 B | **not set**: the scenario's `mss` (1448 unless written) |
//! | `TcpSocketBase::MinRto` (tcp-socket-base.cc) | 1 s | `min_rto` 1 s |
//! | `TcpSocketBase::ClockGranularity` | 1 ms | `rto_granularity` 1 ms |
//! | `TcpSocketBase::Timestamp`, `Sack` | on, on | on, on |
//! | `TcpSocketBase::ReTxThreshold`, `LimitedTransmit` | 3, on | `dupthresh` 3, limited transmit (its rule: the `DupAck` row below) |
//! | `TcpL4Protocol::RttEstimatorType` | `RttMeanDeviation`, α 1/8, β 1/4 | RFC 6298's estimator (the same gains) |
//! | `TcpL4Protocol::RecoveryType` | `TcpPrrRecovery` (tcp-prr-recovery.cc), `ReductionBound` SSRB, in fast recovery (`EnterRecovery`, `DupAck`, `ProcessAck`'s partial ACK) and, from ns-3.33, in CWR (`EnterCwr`) | `prr`, `prr_recovery`, `prr_bound = "ns3-ssrb"`, `prr_entry = "ns3"` (`EnterCwr`'s and `ProcessAck`'s two `DoRecovery` calls for one ACK), `prr_units = "bytes"` |
//! | `TcpSocketBase::DupAck` | fast recovery only from CA_DISORDER: none during a CWR episode | `recovery_from_cwr = false` |
//! | `TcpSocketBase::DupAck` | fast recovery only on an ACK with new SACK information | `recovery_on = "duplicate_ack"` |
//! | `TcpSocketBase::ReceivedAck` | CA_CWR ends on an ACK beyond `m_recover` | `cwr_exit = "beyond"` |
//! | `TcpSocketBase::ProcessAck` | PRR steps in CA_CWR only on ACKs that advance | `prr_cwr_acks = "advancing"` |
//! | `TcpSocketBase::DupAck` (SACK) | limited transmit through the pipe alone | `limited_transmit = "pipe"` |
//! | `TcpHeader::CalculateHeaderLength` | options padded together: with timestamps a SACK block adds 8 B | `sack_bytes = "ns3"` |
//! | `TcpSocketBase::ReTxTimeout` | ssthresh lowered at every timeout (`IsHeadRetransmitted` reads flags `SetSentListLost` has just cleared) | `timeout_ssthresh = "every"` |
//! | tail loss probes, RACK | none in ns-3 | `tlp`, `rack` off |
//! | `TcpSocketBase::DoRetransmit` | on a partial ACK in fast recovery (all versions) and entering it (to ns-3.40): `NextSeg`'s first lost segment not resent, else new data (the receive window allowing), else the head again | `partial_ack = "ns3"` (ns-3.41 on enters with the head even if resent before: `fast_retransmit = "head"`) |
//! | `TcpTxBuffer::NextSeg` (to ns-3.42) | in fast recovery, with nothing lost and no new data, the lowest segment neither SACKed, lost nor resent (rule 3, anywhere; ns-3.43 on only below the highest SACK); no rescue retransmission | `next_seg = "ns3"` |
//! | lost retransmissions (every release to ns-3.48) | none detected: `NextSeg` skips a segment flagged resent until the timeout clears the flags (ns-3-dev's `MarkRetransmittedSegmentsLost`, 5ada3ae14: `lost_retransmit = "ns3"`) | `lost_retransmit = "never"` |
//! | `TcpSocketBase::AddSocketTags` | in `DctcpEcn` mode (`TcpDctcp::Init`) every packet ECT(0), the SYN, SYN-ACK and handshake ACK too; in `ClassicEcn` mode no packet without payload | `ect_syn` = ECT only under DCTCP's ECN (`EctSyn::Dctcp`; pure ACKs follow the flow's ECN mode as before) |
//! | `TcpDctcp::CeState0to1`/`CeState1to0`, `TcpSocketBase::ReceivedAck`, `ProcessAck` | DCTCP's receiver echo (an ACK for the point before the previous segment on a CE change), ECE read on advancing ACKs only, a segment counted for α per duplicate ACK | `dctcp_echo = "ns3"` |
//! | `TcpSocketBase::ProcessAck` in CA_LOSS, `ReceivedAck` | the ACK ending a timeout's loss state grows by the segments beyond its recovery point only; an ECE there enters CWR first | `loss_exit = "ns3"` |
//! | `TcpSocketBase::NewAck` | `m_rto` recomputed from the estimator at every ACK of new data: a timeout's doubling ends there, with or without an RTT sample (without timestamps the ACK of a retransmission gives none) | `rto_backoff_end = "new_ack"` |
//! | `ProcessSynSent`, `ProcessSynRcvd` | the handshake's ACK a packet of its own; the first data segment acknowledged at once | `handshake_ack`, `ack_first_data` |
//! | `TcpDctcp` (tcp-dctcp.cc) on `TcpLinuxReno` (3.33 on) | see `Dctcp::NS3_RULES` (cc/dctcp.rs) (and PPT's and RC3's primary loop: their `ns3_dctcp`); `GetSsThresh` has no loss-state case in any release (ns-3-dev's halving there, d3181b537, came after 3.48) | `cc_params` of `dctcp` (`ns3_dctcp` of `ppt`, `rc3`), each only where the scenario sets none |
//! | `TcpSocketBase::EstimateRtt` | RTT from the timestamp echo in milliseconds (a sub-millisecond RTT is taken as 1 µs, 3.34 on), none when the oldest segment acknowledged was resent (to 3.42) | **not modelled**: samples are the true RTT; with a minimum RTO of a millisecond or more the RTO is the same unless queues add milliseconds |
//! | `TcpSocketBase::DupAck` → `TcpTxBuffer::IsLost` (to 3.40) | fast recovery entered when the first segment past the cumulative ACK flagged lost or SACKed decides | **not modelled** (the RFC 6675 rule, as ns-3.41 on) |
//! | SYN and SYN-ACK sizes | 36 B of TCP with options | **not set**: they depend on the links' framing; `syn_size`, `synack_size` |
//! | Linux quick-ACK mode | none in ns-3 | off |
//! | three-way handshake | every socket connects first | `handshake` on |
//!
//! Behaviour the engine's TCP already shares with `TcpSocketBase` (so nothing to set): the RTO is
//! max(SRTT + max(G, 4·RTTVAR), MinRto) (`EstimateRtt`, `NewAck`), recomputed on every ACK of
//! new data (the back-off's end there is the row above) and the timer restarted there — except
//! that in fast recovery ns-3 restarts it on the first partial ACK only, ours on every one (not
//! modelled); a timeout doubles the RTO up to 60 s (`ReTxTimeout`), sets cwnd to
//! one segment and retransmits from the first unacknowledged byte; the SYN-ACK gives the first
//! RTT sample (`ProcessSynSent` → `EstimateRtt`); an out-of-order segment is ACKed at once; no
//! Nagle (`TcpNoDelay` true).
//!
//! The segment size is left to the scenario on purpose: ns-3's 536 B default "may be adjusted
//! based on MTU discovery" (its help text), which ns-3 does not do, and every datacenter script
//! sets it (ns-3's own dctcp-example sets 1448); write `mss = 536` for the literal default.

use super::linux::Kernel;
use crate::time::Time;
use crate::transport::tcp::cc::CcKind;
use crate::transport::tcp::{EctSyn, LimitedTransmit, LostRetransmit, PrrBound, RcvWindow, TcpConfig};

/// `TcpSocketBase::MinRto`.
pub const MIN_RTO: Time = Time::from_ms(1000);
/// `TcpSocketBase::ClockGranularity` (the G of RFC 6298 §2).
pub const CLOCK_GRANULARITY: Time = Time::from_ms(1);
/// `TcpSocket::ConnTimeout`: the SYN's retransmission timeout (no RTT sample yet).
pub const CONN_TIMEOUT: Time = Time::from_ms(3000);
/// `TcpSocket::DelAckTimeout`.
pub const DELACK_TIMEOUT: Time = Time::from_ms(200);
/// `TcpSocket::DelAckCount`.
pub const DELACK_COUNT: u32 = 2;
/// `TcpSocket::InitialCwnd` (segments).
pub const INITIAL_CWND: u32 = 10;
/// `TcpSocket::SndBufSize` and `TcpSocket::RcvBufSize` (bytes).
pub const SOCKET_BUFFER: u64 = 131_072;
/// `TcpSocketBase::ReTxTimeout`: the doubled RTO is capped at 60 s.
pub const MAX_RTO: Time = Time::from_ms(60_000);

/// `c` with ns-3's TCP defaults (the table of the module documentation).
pub fn tcp_defaults(c: TcpConfig) -> TcpConfig {
    let mut c = c;
    c.stack = Some(Kernel::Ns3);
    c.quickack = None;
    c.initial_cwnd = INITIAL_CWND;
    c.initial_ssthresh = u32::MAX;
    c.rto.min = MIN_RTO;
    c.rto.max = MAX_RTO;
    c.rto.granularity = CLOCK_GRANULARITY;
    c.rto.initial = CONN_TIMEOUT;
    c.handshake = true;
    c.timestamps = true;
    c.sack = true;
    c.dupthresh = 3;
    c.delack_count = DELACK_COUNT;
    c.delack_timeout = DELACK_TIMEOUT;
    c.tlp = false;
    c.rack = false;
    c.rcv_buffer = Some(SOCKET_BUFFER);
    c.rcv_window = RcvWindow::Ns3;
    c.send_buffer = Some(SOCKET_BUFFER);
    c.prr = true;
    c.prr_recovery = true;
    c.prr_bound = PrrBound::Ns3Ssrb;
    c.prr_ns3_entry = true;
    c.prr_bytes = true;
    c.recovery_from_cwr = false;
    c.ns3_cwr_exit = true;
    c.timeout_ssthresh = crate::transport::tcp::TimeoutSsthresh::Every;
    c.prr_cwr_advancing = true;
    c.limited_transmit = LimitedTransmit::Pipe;
    c.sack_bytes = crate::transport::tcp::SackBytes::Ns3;
    c.recovery_on_dupack = true;
    c.partial_ack_ns3 = true;
    c.next_seg_ns3 = true;
    c.lost_retransmit = LostRetransmit::Never;
    c.ect_syn = EctSyn::Dctcp;
    c.dctcp_echo_ns3 = true;
    c.loss_exit = crate::transport::tcp::LossExit::Ns3;
    c.backoff_ends_on_new_ack = true;
    c.handshake_ack = true;
    c.ack_first_data = true;
    c
}

/// The knobs the stack gives congestion control `cc` where a scenario sets none: ns-3's own
/// implementation of it, where fabricsim models one.
pub fn cc_knobs(cc: CcKind) -> &'static [(&'static str, f64)] {
    match cc {
        CcKind::Dctcp => crate::transport::tcp::cc::Dctcp::NS3_RULES,
        // PPT's and RC3's primary loop is DCTCP (PPT §4, §6.1); as ns-3 simulations the papers'
        // would be ns-3's TcpDctcp (an assumption: no code of theirs is public).
        CcKind::Ppt | CcKind::Rc3 => &[("ns3_dctcp", 1.0)],
        _ => &[],
    }
}

/// One line for `fabricsim list stacks`.
pub fn summary() -> String {
    format!(
        "ns-3's TcpSocketBase defaults (ns-3.33-3.40): initial window {INITIAL_CWND}, SYN timeout {CONN_TIMEOUT} (three-way handshake), min RTO {MIN_RTO}, clock granularity {CLOCK_GRANULARITY}, delayed ACK every {DELACK_COUNT} segments or {DELACK_TIMEOUT}, send and receive buffers {SOCKET_BUFFER} B (ns-3's receive window), timestamps and SACK on, no TLP, no RACK, no quick-ACK; MSS the scenario's (ns-3's SegmentSize default 536 B is not applied); PRR (TcpPrrRecovery, SSRB) in fast recovery and CWR, no fast recovery during CWR, CWR ends beyond its recovery point, ssthresh lowered at every timeout, PRR in CWR on advancing ACKs, limited transmit through the pipe, SACK blocks 8 B each on ACKs, fast recovery only on a duplicate ACK, DoRetransmit on entering fast recovery and on partial ACKs, NextSeg's rule 3 and no rescue, lost retransmissions only by timeout, SYN and SYN-ACK ECN-capable under DCTCP, DCTCP's echo and the loss state's exit as ns-3's, a timeout's back-off ended by the next new ACK, the handshake's ACK a packet of its own; dctcp as TcpDctcp (byte cut, first window at the first ACK, cut before the ACK's alpha update, TcpLinuxReno's growth, alpha decay on an empty window, the cut at timeouts and in the loss state) (ns-3.33-3.40)"
    )
}
