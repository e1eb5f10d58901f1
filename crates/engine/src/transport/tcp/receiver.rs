//! TCP receiver: cumulative ACK, out-of-order buffer reported by SACK, delayed ACKs and the ECN
//! echo (RFC 3168 §6.1.3 latch, or DCTCP's two-state machine, RFC 8257 §3.2).

use super::quickack::{QuickAck, QuickAckConfig};
use super::{EcnMode, TcpConfig};
use super::timers;
use crate::transport::timer::LazyTimer;
use crate::packet::{Ecn, Header, Kind, Packet, TcpHeader, MAX_SACK_BLOCKS};
use crate::time::Time;
use crate::transport::{Endpoints, Outbox};
use std::collections::VecDeque;

/// What the receiver reads of its connection's configuration, copied in at construction so a
/// closed connection (`closed.rs`) keeps these few bytes instead of the whole `TcpConfig`.
#[derive(Clone, Copy, Debug)]
struct AckConfig {
    ack_size: u32,
    /// `TcpConfig::synack_size`, or `ack_size`.
    synack_size: u32,
    class: u8,
    ecn: EcnMode,
    /// SAB: echo the window field of the data (`CcKind::sets_window_field`).
    window_field: bool,
    sack: bool,
    /// The SYN-ACK ECN-capable (`TcpConfig::ect_syn`).
    ect_syn: bool,
    delack_count: u32,
    delack_timeout: Time,
    rcv_buffer: Option<u64>,
    /// How the receive buffer makes the window (`TcpConfig::rcv_window`).
    rcv_window: RcvWindow,
    /// Low-priority packets per low-priority ACK (PPT's EWD: 2; otherwise 1).
    lp_per_ack: u8,
    /// DCTCP's echo as ns-3 does it (`TcpConfig::dctcp_echo_ns3`; its sender then reads ECE only
    /// on ACKs that advance).
    echo_ns3: bool,
    /// `TcpConfig::ack_first_data`.
    ack_first_data: bool,
    /// Bytes a SACK option adds to an ACK once, besides 8 per block (RFC 2018 §3), or
    /// `NO_SACK_BYTES` (`TcpConfig::sack_bytes`; one byte: `Closed` keeps this struct).
    sack_once: u8,
}

/// What SACK blocks add to an ACK on the wire (`[transport] sack_bytes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackBytes {
    /// Nothing: every ACK is `ack_size`.
    None,
    /// ns-3's `TcpHeader::CalculateHeaderLength` pads its options together to whole words: with
    /// the 10 B timestamp option (`TcpConfig::timestamps`; 12 B padded) a SACK option of 2 + 8n B
    /// takes the padding, so n blocks add 8n B; without it, 2 + 8n padded: 4 + 8n B.
    Ns3,
    /// Linux pads each option itself (`tcp_options_write`): NOP, NOP, then 2 + 8n B: 4 + 8n B.
    Linux,
}

/// `AckConfig::sack_once` for `SackBytes::None`.
const NO_SACK_BYTES: u8 = u8::MAX;

impl SackBytes {
    /// The bytes added once (8 more per block), with or without the timestamp option.
    fn once(self, timestamps: bool) -> u8 {
        match self {
            SackBytes::None => NO_SACK_BYTES,
            SackBytes::Ns3 if timestamps => 0,
            SackBytes::Ns3 | SackBytes::Linux => 4,
        }
    }
}

/// How a receive buffer (`rcv_buffer`) bounds what the receiver holds and advertises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RcvWindow {
    /// The window is the buffer less the out-of-order data held; data beyond rcv_nxt + buffer is
    /// not accepted (RFC 9293 §3.10.7.4's acceptability test; a sender that keeps to the window
    /// never sends there, PPT's and RC3's low-priority loops do).
    FreeSpace,
    /// ns-3's `TcpRxBuffer` (src/internet/model/tcp-rx-buffer.cc, `Add`, `MaxRxSequence`) with an
    /// application that reads in-order data at once: the window stays the whole buffer
    /// (`TcpSocketBase::AdvertisedWindowSize`), and out-of-order data beyond the lowest byte held
    /// + buffer is cut off (everything is accepted while nothing is held).
    Ns3,
}

impl From<&TcpConfig> for AckConfig {
    fn from(c: &TcpConfig) -> Self {
        AckConfig {
            ack_size: c.ack_size,
            synack_size: c.synack_size.unwrap_or(c.ack_size),
            class: c.ack_class.unwrap_or(c.class),
            ecn: c.ecn,
            window_field: c.cc.sets_window_field(),
            sack: c.sack,
            ect_syn: c.syn_ect(),
            delack_count: c.delack_count,
            delack_timeout: c.delack_timeout,
            rcv_buffer: c.rcv_buffer,
            rcv_window: c.rcv_window,
            lp_per_ack: c.lp_per_ack().min(u8::MAX as u32) as u8,
            echo_ns3: c.dctcp_echo_ns3,
            sack_once: c.sack_bytes.once(c.timestamps),
            ack_first_data: c.ack_first_data,
        }
    }
}

/// The receiving endpoint of a TCP flow.
#[derive(Clone, Debug)]
pub struct Receiver {
    cfg: AckConfig,
    size: Option<u64>,
    rcv_nxt: u64,
    /// Disjoint, sorted byte ranges received above `rcv_nxt`.
    ooo: VecDeque<(u64, u64)>,
    /// Start of the block holding the most recently received out-of-order segment (SACK order;
    /// u64::MAX: none, which no block holds — an `Option` would cost a closed connection 8 bytes).
    recent: u64,
    /// Full segments received since the last ACK.
    pending: u32,
    delack: LazyTimer,
    /// DCTCP CE state (RFC 8257 §3.2).
    ce_state: bool,
    /// ns-3's echo state when `echo_ns3` (`ns3_ce_event`), in the struct's padding: how far
    /// rcv_nxt moved while the last ECN-capable segment was taken in (its event recorded the
    /// point below it, `TcpDctcp::m_priorRcvNxt`; u32::MAX before the first), and whether that
    /// segment's ACK was delayed (`m_delayedAckReserved`).
    ns3_moved: u32,
    ns3_reserved: bool,
    /// ns-3's `m_ecnCESeq` (`TcpSocketBase::ForwardUp`): the sequence number, in ns-3's 32-bit
    /// space (payload byte k is k + 1, wrapping), of the last segment whose CE mark it took.
    ns3_ce_seq: u32,
    /// No data segment has arrived yet (`TcpConfig::ack_first_data` acknowledges the first at once).
    before_data: bool,
    /// RFC 3168 ECE latch.
    ece_latch: bool,
    /// Linux quick-ACK state, when the connection models a Linux receiver.
    quick: Option<QuickAck>,
    /// Data segments that carried only bytes already received.
    pub duplicate_segments: u64,
    /// Data packets that arrived trimmed to a header (their payload is lost; NDP-style ports).
    pub trimmed: u64,
    /// Data packets that arrived whole.
    pub data_packets: u64,
    /// The telemetry the latest data packet collected, echoed in the next ACK (HPCC §3.2);
    /// boxed once per connection that uses telemetry, so others stay small.
    pub int_last: Option<Box<crate::switch::telemetry::IntRecord>>,
    pub acks_sent: u64,
    /// SAB: the window field of the latest data packet (u64::MAX until one arrives).
    assigned: u64,
    /// Low-priority loop (PPT §3.2, §5): its packets are acknowledged apart, one low-priority ACK
    /// per `lp_per_ack` of them (2: EWD), echoing CE if any of them carried it; `lp_low` is the
    /// lowest byte such a packet brought (the normal loop's gaps are the ones below it).
    lp_pending: u32,
    lp_ce: bool,
    lp_low: u64,
    /// Low-priority data packets received and low-priority ACKs sent.
    pub lp_packets: u64,
    pub lp_acks: u64,
}

impl Receiver {
    pub fn new(cfg: &TcpConfig, size: Option<u64>) -> Self {
        // Linux's receive windows for this kernel and MSS (`quickack.rs`).
        let quick = cfg.quickack.map(|k| QuickAck::new(QuickAckConfig { init_rcv_wnd: k.init_rcv_wnd(cfg.mss), window_clamp: k.window_clamp(cfg.mss) }, cfg.mss));
        Receiver {
            quick,
            cfg: AckConfig::from(cfg),
            lp_pending: 0,
            lp_ce: false,
            lp_low: u64::MAX,
            lp_packets: 0,
            lp_acks: 0,
            size,
            rcv_nxt: 0,
            trimmed: 0,
            data_packets: 0,
            int_last: None,
            ooo: VecDeque::new(),
            recent: u64::MAX,
            pending: 0,
            delack: LazyTimer::new(timers::DELAYED_ACK),
            ce_state: false,
            ns3_moved: u32::MAX,
            ns3_reserved: false,
            ns3_ce_seq: 0,
            before_data: true,
            ece_latch: false,
            duplicate_segments: 0,
            acks_sent: 0,
            assigned: u64::MAX,
        }
    }

    /// In-order bytes delivered to the application.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    /// Give back the out-of-order buffer's spare capacity (a closed connection's receiver keeps
    /// only what it holds).
    pub fn shrink(&mut self) {
        self.ooo.shrink_to_fit();
    }

    /// Bytes held out of order.
    pub fn buffered_out_of_order(&self) -> u64 {
        self.ooo.iter().map(|(a, b)| b - a).sum()
    }

    /// A SYN: answer with a SYN-ACK at once (again for a resent SYN).
    pub fn on_syn(&mut self, now: Time, ends: &Endpoints, out: &mut Outbox) {
        let mut p = Packet::new(ends.flow, ends.dst, ends.src, self.cfg.synack_size, Kind::SynAck, ends.hash_rev, Header::Tcp(TcpHeader::default()));
        p.class = self.cfg.class;
        p.stamp = now;
        if self.cfg.ect_syn {
            p.ecn = Ecn::Ect0;
        }
        out.packets.push(p);
    }

    pub fn on_data(&mut self, now: Time, pkt: &Packet, ends: &Endpoints, out: &mut Outbox) {
        if pkt.trimmed {
            // Only the header arrived: TCP has no use for it (no NACKs); the data is resent as
            // any lost segment is.
            self.trimmed += 1;
            return;
        }
        self.data_packets += 1;
        if let Some(rec) = out.int_in.as_deref() {
            match self.int_last.as_deref_mut() {
                Some(b) => *b = *rec,
                None => self.int_last = Some(Box::new(*rec)),
            }
        }
        let h = pkt.tcp();
        let ce = pkt.ecn == Ecn::Ce;
        if h.lcp {
            self.on_lp_data(pkt, ends, out);
            return;
        }
        if self.cfg.echo_ns3 && h.seq + (h.len as u64) < self.rcv_nxt {
            // ns-3 answers a segment wholly below rcv_nxt (ending short of it) with a plain ACK
            // before any ECN processing: no ECE, no CE event, the delayed-ACK count restarted
            // (`TcpSocketBase::ForwardUp`, `IsValidTcpSegment`, `OutOfRange`).
            self.duplicate_segments += 1;
            self.send_ack_at(self.rcv_nxt, false, ends, out);
            return;
        }
        let mut immediate = false;
        match self.cfg.ecn {
            EcnMode::Dctcp if self.cfg.echo_ns3 => {
                let ce = ce && self.ns3_takes_ce(h.seq);
                self.ns3_ce_event(ce, ends, out)
            }
            EcnMode::Dctcp => {
                if ce != self.ce_state {
                    // RFC 8257 §3.2: flush a pending delayed ACK with the old CE state first, so
                    // the sender learns exactly which bytes were marked.
                    if self.pending > 0 {
                        self.send_ack(ends, out);
                    }
                    self.ce_state = ce;
                    immediate = true;
                }
            }
            EcnMode::Classic => {
                if h.cwr {
                    self.ece_latch = false;
                }
                if ce {
                    if !self.ece_latch {
                        // Linux tcp_ecn_check_ce: the sender may have a tiny window; don't delay.
                        if let Some(q) = self.quick.as_mut() {
                            q.enter_mode();
                        }
                    }
                    self.ece_latch = true;
                }
            }
            EcnMode::Off => {}
        }

        let at_event = self.rcv_nxt;
        let (start, end) = (h.seq, h.seq + h.len as u64);
        // Only the normal loop's gaps count: data a low-priority loop sent from the tail sits
        // above them and must not change this loop's ACKs (PPT §5).
        let had_gap = self.ooo.front().is_some_and(|&(a, _)| a < self.lp_low);
        let arrival = self.take(start, end);
        match arrival {
            Arrival::Duplicate | Arrival::Refused => immediate = true,
            Arrival::InOrder => {
                if had_gap {
                    immediate = true; // RFC 5681 §4.2: ACK at once when a gap is (partly) filled.
                }
            }
            Arrival::OutOfOrder => immediate = true, // Out of order: this is the duplicate ACK.
        }
        if let Some(q) = self.quick.as_mut() {
            match arrival {
                Arrival::Duplicate => q.enter_mode(),
                Arrival::InOrder => q.on_in_order(h.len),
                Arrival::OutOfOrder | Arrival::Refused => {}
            }
            immediate |= q.active();
        }
        if h.psh || self.size.is_some_and(|s| self.rcv_nxt >= s) {
            immediate = true; // The FIN segment, and the end of a written block, are acknowledged at once.
        }
        if self.cfg.window_field {
            // SAB §IV-A.3: the ACK carries min(awnd, the window the switches left in the data).
            self.assigned = h.window();
        }
        if std::mem::take(&mut self.before_data) && self.cfg.ack_first_data {
            immediate = true; // ns-3 opens with its delayed-ACK count full
        }
        self.pending += 1;
        let ack_now = immediate || self.pending >= self.cfg.delack_count;
        if self.cfg.echo_ns3 {
            // ns-3 notes whether this segment's ACK waits (TcpDctcp::UpdateAckReserved), except
            // for a segment it could not add, which it acknowledges without raising either event
            // (TcpSocketBase::ReceivedData).
            if !matches!(arrival, Arrival::Duplicate | Arrival::Refused) {
                self.ns3_reserved = !ack_now;
            }
            self.ns3_moved = (self.rcv_nxt - at_event).min(u32::MAX as u64 - 1) as u32;
        }
        if ack_now {
            self.send_ack(ends, out);
        } else if !self.delack.is_set() {
            self.delack.set(now + self.cfg.delack_timeout, out);
        }
    }

    /// The handshake's own ACK (`TcpConfig::handshake_ack`): nothing to acknowledge; under ns-3's
    /// DCTCP echo an ECN-capable one raises the CE event as a segment would (`ForwardUp`), with
    /// the sequence number of the first data byte, so a mark on it takes that segment's.
    pub fn on_handshake_ack(&mut self, pkt: &Packet, ends: &Endpoints, out: &mut Outbox) {
        if self.cfg.echo_ns3 && self.cfg.ecn == EcnMode::Dctcp && pkt.ecn != Ecn::NotEct {
            let ce = pkt.ecn == Ecn::Ce && self.ns3_takes_ce(pkt.tcp().seq);
            self.ns3_ce_event(ce, ends, out);
        }
    }

    /// ns-3's DCTCP receiver on an ECN-capable data segment, before it is taken in
    /// (`TcpSocketBase::ForwardUp` raising `CA_EVENT_ECN_IS_CE`/`_NO_CE`, `TcpDctcp::CeState0to1`
    /// and `CeState1to0`): when the CE state flips while an ACK is being delayed, an ACK with the
    /// old state's ECE goes out at once — for the rcv_nxt recorded at the *previous* segment's
    /// event, before that segment was taken in, so it acknowledges up to the segment before it
    /// and, the previous segment still unacknowledged, is often a duplicate ACK, whose ECE the
    /// sender ignores (`TcpSocketBase::ReceivedAck` reads ECE only on an ACK that advances). That
    /// ACK resets the delayed-ACK count (`SendEmptyPacket`). No immediate ACK of the segment
    /// itself (RFC 8257 §3.2 and Linux send one).
    fn ns3_ce_event(&mut self, ce: bool, ends: &Endpoints, out: &mut Outbox) {
        if ce != self.ce_state && self.ns3_reserved && self.ns3_moved != u32::MAX {
            let prior = self.rcv_nxt - self.ns3_moved as u64;
            self.send_ack_at(prior, self.ce_state, ends, out);
        }
        self.ce_state = ce;
    }

    /// Whether ns-3 takes the CE mark of a segment starting at payload byte `seq`: only above the
    /// last segment whose mark it took (`TcpSocketBase::ForwardUp`, `m_ecnCESeq < seq` in 32-bit
    /// sequence numbers, payload byte k being k + 1); otherwise — a retransmission, a segment
    /// filling a hole below a marked one — it raises the no-CE event, as for an unmarked segment.
    fn ns3_takes_ce(&mut self, seq: u64) -> bool {
        let s = (seq as u32).wrapping_add(1);
        let ahead = s.wrapping_sub(self.ns3_ce_seq);
        let takes = ahead != 0 && ahead <= i32::MAX as u32;
        if takes {
            self.ns3_ce_seq = s;
        }
        takes
    }

    /// Put bytes `[start, end)` in place (those the receive buffer can hold).
    #[inline]
    fn take(&mut self, start: u64, end: u64) -> Arrival {
        let end = match self.cfg.rcv_buffer {
            None => end,
            Some(b) => {
                let limit = match self.cfg.rcv_window {
                    RcvWindow::FreeSpace => self.rcv_nxt + b,
                    RcvWindow::Ns3 => self.ooo.front().map_or(u64::MAX, |&(a, _)| a.saturating_add(b)),
                };
                if start.max(self.rcv_nxt) >= limit {
                    // Nothing fits: dropped, answered by an ACK at once (ns-3's `ReceivedData`).
                    return Arrival::Refused;
                }
                end.min(limit)
            }
        };
        if end <= self.rcv_nxt {
            self.duplicate_segments += 1;
            Arrival::Duplicate
        } else if start <= self.rcv_nxt {
            self.rcv_nxt = end;
            while let Some(&(a, b)) = self.ooo.front() {
                if a > self.rcv_nxt {
                    break;
                }
                self.rcv_nxt = self.rcv_nxt.max(b);
                self.ooo.pop_front();
            }
            Arrival::InOrder
        } else {
            self.insert_ooo(start, end);
            Arrival::OutOfOrder
        }
    }

    /// An opportunistic packet (PPT §5 "when receiving two consecutive opportunistic data packets,
    /// we send an ACK packet back to the sender at low priority"; RC3: one per packet). The normal
    /// loop's ACK state (pending count, CE state, delayed-ACK timer) is untouched.
    fn on_lp_data(&mut self, pkt: &Packet, ends: &Endpoints, out: &mut Outbox) {
        let h = pkt.tcp();
        self.lp_packets += 1;
        self.lp_low = self.lp_low.min(h.seq);
        self.take(h.seq, h.seq + h.len as u64);
        self.lp_pending += 1;
        self.lp_ce |= pkt.ecn == Ecn::Ce;
        let complete = self.size.is_some_and(|s| self.rcv_nxt >= s);
        if self.lp_pending >= self.cfg.lp_per_ack as u32 || complete {
            let mut h = self.ack_header();
            h.ece = self.lp_ce;
            h.lcp = true;
            let mut p = Packet::new(ends.flow, ends.dst, ends.src, self.ack_len(&h), Kind::Ack, ends.hash_rev, Header::Tcp(h));
            p.ecn = if self.cfg.ecn == EcnMode::Dctcp { Ecn::Ect0 } else { Ecn::NotEct };
            // "at low priority": the class of the packet it answers.
            p.class = pkt.class;
            out.packets.push(p);
            self.lp_pending = 0;
            self.lp_ce = false;
            self.lp_acks += 1;
        }
    }

    pub fn on_delack_timer(&mut self, now: Time, ends: &Endpoints, out: &mut Outbox) {
        if self.delack.fired(now, out) && self.pending > 0 {
            // ns-3's DelAckTimeout raises CA_EVENT_DELAYED_ACK before its ACK.
            self.ns3_reserved = true;
            self.send_ack(ends, out);
        }
    }

    /// Out-of-order bytes into the buffer (not inlined: the rarer case of `take`).
    #[inline(never)]
    fn insert_ooo(&mut self, start: u64, end: u64) {
        let i = self.ooo.partition_point(|&(_, b)| b < start);
        let (mut s, mut e) = (start, end);
        while i < self.ooo.len() && self.ooo[i].0 <= e {
            s = s.min(self.ooo[i].0);
            e = e.max(self.ooo[i].1);
            self.ooo.remove(i);
        }
        self.ooo.insert(i, (s, e));
        self.recent = s;
    }

    /// The SACK blocks of what is held out of order (not inlined: only while there is a gap).
    #[inline(never)]
    fn sack_blocks(&self, h: &mut TcpHeader) {
        let mut n = 0;
        let r = self.recent;
        let recent = self.ooo.iter().find(|&&(a, b)| a <= r && r < b).copied();
        if let Some(b) = recent {
            h.sack[n] = b;
            n += 1;
        }
        for &b in self.ooo.iter().rev() {
            if n == MAX_SACK_BLOCKS {
                break;
            }
            if Some(b) != recent {
                h.sack[n] = b;
                n += 1;
            }
        }
        h.sack_count = n as u8;
    }

    /// An ACK's header: cumulative ACK, window, SACK blocks (ECE left clear). Inlined into the
    /// ACK senders; the blocks are looked for only when something is held out of order.
    #[inline]
    fn ack_header(&self) -> TcpHeader {
        let window = match (self.cfg.rcv_buffer, self.cfg.rcv_window) {
            (Some(b), RcvWindow::FreeSpace) => b.saturating_sub(self.buffered_out_of_order()),
            (Some(b), RcvWindow::Ns3) => b,
            (None, _) => u64::MAX,
        }
        .min(self.assigned);
        let mut h = TcpHeader { ack: self.rcv_nxt, ..TcpHeader::default() };
        h.set_window(window);
        if self.cfg.sack && !self.ooo.is_empty() {
            self.sack_blocks(&mut h);
        }
        h
    }

    /// An ACK's size on the wire: `ack_size`, and its SACK blocks' bytes (`SackBytes`).
    fn ack_len(&self, h: &TcpHeader) -> u32 {
        match (h.sack_count, self.cfg.sack_once) {
            (0, _) | (_, NO_SACK_BYTES) => self.cfg.ack_size,
            (n, once) => self.cfg.ack_size + once as u32 + 8 * n as u32,
        }
    }

    fn send_ack(&mut self, ends: &Endpoints, out: &mut Outbox) {
        let ece = match self.cfg.ecn {
            EcnMode::Off => false,
            EcnMode::Classic => self.ece_latch,
            EcnMode::Dctcp => self.ce_state,
        };
        self.send_ack_at(self.rcv_nxt, ece, ends, out);
    }

    /// An ACK of the bytes below `ack` (the cumulative point, or an earlier one: ns-3's echo).
    fn send_ack_at(&mut self, ack: u64, ece: bool, ends: &Endpoints, out: &mut Outbox) {
        let mut h = self.ack_header();
        h.ack = ack;
        h.ece = ece;
        let mut p = Packet::new(ends.flow, ends.dst, ends.src, self.ack_len(&h), Kind::Ack, ends.hash_rev, Header::Tcp(h));
        p.ecn = if self.cfg.ecn == EcnMode::Dctcp { Ecn::Ect0 } else { Ecn::NotEct };
        p.class = self.cfg.class;
        if let Some(rec) = self.int_last.as_deref() {
            p.int = crate::packet::Int::Echo;
            out.int_out.push((out.packets.len() as u32, *rec));
        }
        out.packets.push(p);
        self.acks_sent += 1;
        self.pending = 0;
        self.delack.cancel();
        if let Some(q) = self.quick.as_mut() {
            q.on_ack_sent();
        }
    }
}

/// Where a data segment's bytes fell.
enum Arrival {
    Duplicate,
    InOrder,
    OutOfOrder,
    /// Beyond what the receive buffer can hold: dropped.
    Refused,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId};

    fn ends() -> Endpoints {
        Endpoints { flow: FlowId(0), src: NodeId(0), dst: NodeId(1), hash_fwd: 0, hash_rev: 1 }
    }

    fn data(seq: u64, len: u32, ecn: Ecn) -> Packet {
        let mut p = Packet::new(FlowId(0), NodeId(0), NodeId(1), len + 52, Kind::Data, 0, Header::Tcp(TcpHeader { seq, len, ..Default::default() }));
        p.ecn = ecn;
        p
    }

    fn acks(out: &Outbox) -> Vec<(u64, bool)> {
        out.packets.iter().map(|p| (p.tcp().ack, p.tcp().ece)).collect()
    }

    #[test]
    fn ns3_acknowledges_the_first_data_segment_at_once() {
        // Delayed ACK every 2 segments; segments 0, 1, 2 arrive. Counted from zero: one ACK, for
        // 2000 (after segment 1). ns-3 opens with its count full: ACK(1000) for segment 0, then
        // the count restarts and segment 2 completes the next pair: ACK(3000).
        let acked = |first: bool| {
            let cfg = TcpConfig { ack_first_data: first, ..Default::default() };
            let mut r = Receiver::new(&cfg, None);
            let mut out = Outbox::default();
            for k in 0..3 {
                r.on_data(Time(k), &data(k * 1000, 1000, Ecn::NotEct), &ends(), &mut out);
            }
            acks(&out).iter().map(|&(a, _)| a).collect::<Vec<_>>()
        };
        assert_eq!(acked(false), vec![2000]);
        assert_eq!(acked(true), vec![1000, 3000]);
    }

    #[test]
    fn ns3s_handshake_ack_takes_the_first_segments_mark() {
        // ns-3's echo, first segment acknowledged at once. Segment 0 CE-marked: ACK(1000) with
        // ECE. After a CE-marked handshake ACK (sequence number that of byte 0) ns-3 has taken
        // the mark for that number (m_ecnCESeq), so segment 0's is not taken: it raises the no-CE
        // event and its ACK carries no ECE. The handshake ACK itself is not answered.
        let first_ack = |marked_handshake: bool| {
            let cfg = TcpConfig { ecn: EcnMode::Dctcp, dctcp_echo_ns3: true, ack_first_data: true, ..Default::default() };
            let mut r = Receiver::new(&cfg, None);
            let mut out = Outbox::default();
            if marked_handshake {
                let mut h = Packet::new(FlowId(0), NodeId(0), NodeId(1), 52, Kind::Control, 0, Header::Tcp(TcpHeader::default()));
                h.ecn = Ecn::Ce;
                r.on_handshake_ack(&h, &ends(), &mut out);
                assert!(out.packets.is_empty());
            }
            r.on_data(Time(1), &data(0, 1000, Ecn::Ce), &ends(), &mut out);
            acks(&out)
        };
        assert_eq!(first_ack(false), vec![(1000, true)]);
        assert_eq!(first_ack(true), vec![(1000, false)]);
    }

    #[test]
    fn delayed_ack_every_second_segment_then_timer() {
        let cfg = TcpConfig::default();
        let mut r = Receiver::new(&cfg, None);
        let mut out = Outbox::default();
        r.on_data(Time(0), &data(0, 1000, Ecn::NotEct), &ends(), &mut out);
        assert!(out.packets.is_empty());
        assert_eq!(out.timers, vec![(Time::from_ms(200), timers::DELAYED_ACK)]);
        r.on_data(Time(1), &data(1000, 1000, Ecn::NotEct), &ends(), &mut out);
        assert_eq!(acks(&out), vec![(2000, false)]);
        r.on_data(Time(2), &data(2000, 1000, Ecn::NotEct), &ends(), &mut out);
        // The first timer is still pending (lazy): it fires early and re-arms for the new deadline.
        r.on_delack_timer(Time::from_ms(200), &ends(), &mut out);
        assert_eq!(out.timers.last(), Some(&(Time::from_ms(200) + Time(2), timers::DELAYED_ACK)));
        r.on_delack_timer(Time::from_ms(200) + Time(2), &ends(), &mut out);
        assert_eq!(acks(&out), vec![(2000, false), (3000, false)]);
    }

    #[test]
    fn a_receive_buffer_holds_only_what_fits_free_space_or_ns3() {
        // 5000 B buffer, segments of 1000 B; segment 0 lost. Free space (RFC 9293's test): bytes
        // 1000..5000 fit (rcv_nxt + 5000), the segment at 5000 is refused; the window falls to
        // 5000 − 4000 = 1000. ns-3: nothing held yet, so the segment at 1000 opens the buffer at
        // 1000 and bytes up to 6000 fit; the one at 6000 is cut off; the window stays 5000.
        for (policy, held, refused, window) in [(RcvWindow::FreeSpace, 4000, 5000, 1000), (RcvWindow::Ns3, 5000, 6000, 5000)] {
            let cfg = TcpConfig { rcv_buffer: Some(5000), rcv_window: policy, ..Default::default() };
            let mut r = Receiver::new(&cfg, None);
            let mut out = Outbox::default();
            for seq in (1000..=refused).step_by(1000) {
                r.on_data(Time(0), &data(seq, 1000, Ecn::NotEct), &ends(), &mut out);
            }
            assert_eq!(r.buffered_out_of_order(), held, "{policy:?}");
            let last = *out.packets.last().unwrap().tcp();
            assert_eq!((last.ack, last.window()), (0, window), "{policy:?}");
            // The hole filled, everything held is delivered and the window is whole again.
            r.on_data(Time(0), &data(0, 1000, Ecn::NotEct), &ends(), &mut out);
            let last = *out.packets.last().unwrap().tcp();
            assert_eq!((last.ack, last.window()), (held + 1000, 5000), "{policy:?}");
        }
    }

    #[test]
    fn out_of_order_acks_at_once_with_sack() {
        let cfg = TcpConfig::default();
        let mut r = Receiver::new(&cfg, None);
        let mut out = Outbox::default();
        r.on_data(Time(0), &data(1000, 1000, Ecn::NotEct), &ends(), &mut out);
        r.on_data(Time(0), &data(3000, 1000, Ecn::NotEct), &ends(), &mut out);
        let last = *out.packets.last().unwrap().tcp();
        assert_eq!(last.ack, 0);
        assert_eq!(&last.sack[..last.sack_count as usize], &[(3000, 4000), (1000, 2000)]);
        // Filling the first hole merges up to the next hole and ACKs at once.
        r.on_data(Time(0), &data(0, 1000, Ecn::NotEct), &ends(), &mut out);
        let last = *out.packets.last().unwrap().tcp();
        assert_eq!((last.ack, last.sack_count), (2000, 1));
    }

    #[test]
    fn sack_blocks_add_their_option_bytes_to_the_ack() {
        // The case above (ACK size 52 B): one block, then two, then one. ns-3 with timestamps
        // (its options padded together: 10 + 2 + 8n → 12 + 8n): 60, 68, 60 B; without them
        // (2 + 8n padded to 4) and Linux (NOP, NOP, 2 + 8n): 64, 72, 64 B; off: 52 throughout.
        for (bytes, ts, sizes) in [
            (SackBytes::None, true, [52, 52, 52]),
            (SackBytes::Ns3, true, [60, 68, 60]),
            (SackBytes::Ns3, false, [64, 72, 64]),
            (SackBytes::Linux, true, [64, 72, 64]),
        ] {
            let cfg = TcpConfig { sack_bytes: bytes, timestamps: ts, ..TcpConfig::default() };
            let mut r = Receiver::new(&cfg, None);
            let mut out = Outbox::default();
            for seq in [1000, 3000, 0] {
                r.on_data(Time(0), &data(seq, 1000, Ecn::NotEct), &ends(), &mut out);
            }
            let got: Vec<u32> = out.packets.iter().map(|p| p.size).collect();
            assert_eq!(got, sizes, "{bytes:?}, timestamps {ts}");
        }
    }

    #[test]
    fn dctcp_echo_is_exact_with_delayed_acks() {
        // RFC 8257 §3.2: segments CE: 0 0 1 1 0. With ACK-every-2: ACK(2000, ECE=0) after two
        // unmarked; the third (CE) arrives with nothing pending -> immediate ACK(3000, ECE=1); the
        // fourth (CE) is held; the fifth (not CE) flushes ACK(4000, ECE=1) then ACK(5000, ECE=0).
        let cfg = TcpConfig { ecn: EcnMode::Dctcp, ..Default::default() };
        let mut r = Receiver::new(&cfg, None);
        let mut out = Outbox::default();
        let marks = [false, false, true, true, false];
        for (i, &m) in marks.iter().enumerate() {
            let e = if m { Ecn::Ce } else { Ecn::Ect0 };
            r.on_data(Time(i as u64), &data(i as u64 * 1000, 1000, e), &ends(), &mut out);
        }
        assert_eq!(acks(&out), vec![(2000, false), (3000, true), (4000, true), (5000, false)]);
    }

    #[test]
    fn ns3s_dctcp_echo_acks_the_segment_before_and_loses_a_leading_mark() {
        // ns-3's TcpDctcp receiver (dctcp_echo = "ns3"), ACK every 2nd segment. CE: 0 0 1 0 0.
        // Segments 0, 1: ACK(2000). Segment 2 (CE) flips the state with no ACK waiting: nothing
        // sent; its event records rcv_nxt = 2000; it waits. Segment 3 flips back while 2 waits:
        // ns-3 sends the old state's ACK for the rcv_nxt recorded at segment 2's event, 2000 —
        // a duplicate carrying ECE, which a sender ignores — and restarts the count; segment 4
        // completes a pair: ACK(5000) without ECE. Segment 2's mark reaches no sender.
        // RFC 8257 §3.2 instead: ACK(3000, ECE) at the flip to 1, ACK(4000) at the flip back.
        let run = |ns3: bool, marks: &[bool]| {
            let cfg = TcpConfig { ecn: EcnMode::Dctcp, dctcp_echo_ns3: ns3, ..Default::default() };
            let mut r = Receiver::new(&cfg, None);
            let mut out = Outbox::default();
            for (i, &m) in marks.iter().enumerate() {
                let e = if m { Ecn::Ce } else { Ecn::Ect0 };
                r.on_data(Time(i as u64), &data(i as u64 * 1000, 1000, e), &ends(), &mut out);
            }
            acks(&out)
        };
        let leading = [false, false, true, false, false];
        assert_eq!(run(true, &leading), vec![(2000, false), (2000, true), (5000, false)]);
        assert_eq!(run(false, &leading), vec![(2000, false), (3000, true), (4000, false)]);
        // CE: 0 1 0 0. Segment 1 flips while 0 waits: ACK(0) without ECE (rcv_nxt at segment 0's
        // event); segment 2 flips back while 1 waits: ACK(1000, ECE) — segment 0 acknowledged as
        // marked; segment 3 completes a pair: ACK(4000). One marked segment counted, the wrong one.
        assert_eq!(run(true, &[false, true, false, false]), vec![(0, false), (1000, true), (4000, false)]);
    }

    #[test]
    fn ns3s_echo_replays_ns3s_own_acks() {
        // tests/peers/ns3/echo_h11.txt: B1 in ns-3 (benches/validation/ns3/dctcp_ns3.cc
        // --echoTrace, flow h11 -> h0, its first 76 ms): each data segment reaching h0 ("D time_ns
        // seq len ce") and each ACK reaching h11 ("A time_ns ack ece"; ns-3 numbers payload byte
        // k as k + 1). Fed the same segments at the same times, the receiver must send ns-3's 26
        // ACKs, number and ECE alike: the previous ACKs of CE changes (duplicates, stale ones),
        // a retransmission wholly below rcv_nxt answered by a plain ACK, a duplicate inside the
        // window that leaves the delayed-ACK flag, lone segments held until the 10 ms RTO's
        // retransmission arrives (the delayed-ACK timer is 200 ms). ns-3's state at the first
        // segment: its delayed-ACK count is full ("Always respond to first data packet",
        // ProcessSynRcvd) and the handshake's last ACK, CE-marked, took m_ecnCESeq = 1, so the
        // first segment's mark is not taken.
        let cfg = TcpConfig { ecn: EcnMode::Dctcp, dctcp_echo_ns3: true, mss: 1448, ..Default::default() };
        let mut r = Receiver::new(&cfg, None);
        r.pending = 1;
        r.ns3_ce_seq = 1;
        let mut out = Outbox::default();
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        let mut deadline: Option<Time> = None;
        for line in include_str!("../../../../../tests/peers/ns3/echo_h11.txt").lines() {
            let f: Vec<u64> = line[2..].split(' ').map(|x| x.parse().unwrap()).collect();
            let t = Time(f[0] * 1000);
            if line.starts_with('A') {
                theirs.push((f[1] - 1, f[2] == 1));
                continue;
            }
            if let Some(d) = deadline.filter(|&d| d <= t) {
                r.on_delack_timer(d, &ends(), &mut out);
                deadline = None;
            }
            out.timers.clear();
            r.on_data(t, &data(f[1] - 1, f[2] as u32, if f[3] == 1 { Ecn::Ce } else { Ecn::Ect0 }), &ends(), &mut out);
            deadline = out.timers.last().map(|&(d, _)| d).or(deadline);
            ours.extend(out.packets.drain(..).map(|p| (p.tcp().ack, p.tcp().ece)));
        }
        assert_eq!(theirs.len(), 26);
        assert_eq!(ours, theirs);
    }

    #[test]
    fn ns3s_echo_holds_the_last_of_two_segments_for_the_delayed_ack_timer() {
        // ns-3's dctcp-example (benches/validation/ns3/dctcp_ns3.cc --echoTrace --echoFlow=24:
        // S1_4 -> R1, no start jitter, 4.4568 to 4.6645 s): the data segments reaching R1 and
        // ns-3's answers, a stop of 200 ms with two segments in flight and the sender's window
        // (3,996 B, 2.76 segments) full. Times in ns, sequence numbers as ns-3's (payload byte k
        // is k + 1), CE per segment. The state before: the last ACK (ECE) went out at once, so a
        // change of CE state sends nothing. Hand-traced (TcpDctcp::CeState0to1/1to0 and
        // TcpSocketBase::ReceivedData, DelAckCount 2, DelAckTimeout 200 ms):
        //   13636785 (0): flip, no ACK reserved -> nothing; count 1.  13638233 (0): ACK 13639681.
        //   13639681 (0): count 1, reserved.  13641129 (1): flip while reserved -> ACK 13639681
        //   (the point before the previous segment), count restarted; count 1.  13642577 (1):
        //   ACK 13644025 + ECE.  13644025 (1): count 1.  13645473 (1): ACK 13646921 + ECE, not
        //   reserved.  13646921 (0): flip, none reserved -> nothing; count 1, timer 4.662017.
        //   13648369 (1): flip while reserved -> ACK 13646921 (a duplicate: the sender's window
        //   stays full), the count restarted and the timer cancelled; count 1, timer 4.664445.
        //   Nothing more arrives: at 4.664445 the timer's ACK 13649817 + ECE (ns-3's sender
        //   received it at 4.664476, 30.9 us later, as every ACK of this trace).
        let segs: [(u64, u64, bool); 9] = [
            (4_456_778_392, 13_636_785, false),
            (4_456_802_424, 13_638_233, false),
            (4_459_445_944, 13_639_681, false),
            (4_459_457_960, 13_641_129, true),
            (4_459_494_008, 13_642_577, true),
            (4_459_518_040, 13_644_025, true),
            (4_461_993_336, 13_645_473, true),
            (4_462_017_368, 13_646_921, false),
            (4_464_444_600, 13_648_369, true),
        ];
        let cfg = TcpConfig { ecn: EcnMode::Dctcp, dctcp_echo_ns3: true, mss: 1448, ..Default::default() };
        let mut r = Receiver::new(&cfg, None);
        r.rcv_nxt = 13_636_784;
        r.ce_state = true;
        r.ns3_reserved = false;
        r.ns3_moved = 1448;
        r.ns3_ce_seq = 13_636_785 - 1448;
        r.before_data = false;
        let mut out = Outbox::default();
        let mut sent = Vec::new();
        for &(t, seq, ce) in &segs {
            r.on_data(Time(t * 1000), &data(seq - 1, 1448, if ce { Ecn::Ce } else { Ecn::Ect0 }), &ends(), &mut out);
            sent.extend(out.packets.drain(..).map(|p| (t, p.tcp().ack + 1, p.tcp().ece)));
        }
        let ns3 = [
            (4_456_802_424, 13_639_681, false),
            (4_459_457_960, 13_639_681, false),
            (4_459_494_008, 13_644_025, true),
            (4_461_993_336, 13_646_921, true),
            (4_464_444_600, 13_646_921, false),
        ];
        assert_eq!(sent, ns3);
        // The timer events come in order; those armed for deadlines since moved re-arm and send
        // nothing. The first ACK: 13649817 + ECE, 200 ms after the last segment.
        let mut due: Vec<Time> = out.timers.drain(..).map(|(t, _)| t).collect();
        let fired = loop {
            due.sort();
            let t = due.remove(0);
            r.on_delack_timer(t, &ends(), &mut out);
            due.extend(out.timers.drain(..).map(|(t, _)| t));
            if !out.packets.is_empty() {
                break t;
            }
        };
        assert_eq!(fired, Time(4_664_444_600 * 1000));
        assert_eq!(acks(&out), vec![(13_649_817 - 1, true)]);
    }

    #[test]
    fn classic_ece_latches_until_cwr() {
        let cfg = TcpConfig { ecn: EcnMode::Classic, delack_count: 1, ..Default::default() };
        let mut r = Receiver::new(&cfg, None);
        let mut out = Outbox::default();
        r.on_data(Time(0), &data(0, 1000, Ecn::Ce), &ends(), &mut out);
        r.on_data(Time(0), &data(1000, 1000, Ecn::Ect0), &ends(), &mut out);
        let mut cwr = data(2000, 1000, Ecn::Ect0);
        cwr.tcp_mut().cwr = true;
        r.on_data(Time(0), &cwr, &ends(), &mut out);
        assert_eq!(acks(&out), vec![(1000, true), (2000, true), (3000, false)]);
    }

    #[test]
    fn fin_is_acked_at_once() {
        let cfg = TcpConfig::default();
        let mut r = Receiver::new(&cfg, Some(1500));
        let mut out = Outbox::default();
        r.on_data(Time(0), &data(0, 1000, Ecn::NotEct), &ends(), &mut out);
        r.on_data(Time(0), &data(1000, 500, Ecn::NotEct), &ends(), &mut out);
        r.on_data(Time(0), &data(0, 1000, Ecn::NotEct), &ends(), &mut out);
        assert_eq!(acks(&out), vec![(1500, false), (1500, false)]);
        assert_eq!(r.duplicate_segments, 1);
    }

    #[test]
    fn a_linux_4_15_receiver_acks_32_segments_alone_then_every_second() {
        // quickack.rs's hand count through the receiver: 28 segments while the receive window
        // grows (14 480 -> 93 760 B in 2 x 1448 B steps), 4 credits left, then every second.
        let cfg = crate::host::linux::Kernel::V4_15.tcp_defaults(TcpConfig::default());
        let mut r = Receiver::new(&cfg, None);
        let mut out = Outbox::default();
        for i in 0..60u64 {
            r.on_data(Time(i), &data(i * 1448, 1448, Ecn::NotEct), &ends(), &mut out);
        }
        let acked: Vec<u64> = acks(&out).iter().map(|&(a, _)| a / 1448).collect();
        let want: Vec<u64> = (1..=32).chain((34..=60).step_by(2)).collect();
        assert_eq!(acked, want);
        // The delayed-ACK timer is Linux's 40 ms floor.
        r.on_data(Time(60), &data(60 * 1448, 1448, Ecn::NotEct), &ends(), &mut out);
        let n = out.packets.len();
        // Its pending event, armed by an earlier segment, re-arms it for 40 ms after the last.
        let armed = out.timers.iter().rev().find(|t| t.1 == crate::transport::tcp::timers::DELAYED_ACK).expect("armed").0;
        assert!(armed < Time(60) + Time::from_ms(40));
        out.timers.clear();
        r.on_delack_timer(armed, &ends(), &mut out);
        assert_eq!(out.packets.len(), n);
        assert_eq!(out.timers, vec![(Time(60) + Time::from_ms(40), crate::transport::tcp::timers::DELAYED_ACK)]);
        r.on_delack_timer(Time(60) + Time::from_ms(40), &ends(), &mut out);
        assert_eq!(acks(&out)[n].0, 61 * 1448);
        // A duplicate refills the credit: rcv_wnd / (2 MSS) = 93 760 / 2 896 = 32, capped at 16.
        r.on_data(Time(61), &data(0, 1448, Ecn::NotEct), &ends(), &mut out);
        let before = out.packets.len();
        for i in 61..77u64 {
            r.on_data(Time(62 + i), &data(i * 1448, 1448, Ecn::NotEct), &ends(), &mut out);
        }
        // 15 credits are left after the duplicate's own ACK: 15 segments ACKed alone, and the
        // 16th waits for a second one.
        assert_eq!(out.packets.len() - before, 15);
    }
}
