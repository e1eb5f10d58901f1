//! TCP sender: window, loss detection and recovery, retransmission timer.
//!
//! State machine after Linux's (`CaState`): Open → Disorder on the first duplicate ACK/SACK;
//! → Recovery on DupThresh duplicate ACKs or when RFC 6675 IsLost() holds for the first unacked
//! segment; → CWR on ECE; → Loss on RTO. With SACK, recovery is RFC 6675 (pipe-limited NextSeg
//! rules 1, 2 and 4; rule 3 is omitted, as in Linux, so a segment is only resent once it is deemed
//! lost). Without SACK it is NewReno (RFC 6582, the "slow-but-steady" variant: the RTO timer is
//! restarted on every partial ACK).

use super::cc::{AckEvent, CaState, Cc, CongestionOps, CwndEvent, Tcb};
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::{EcnMode, TcpConfig};
use crate::event::TimerKind;
use crate::packet::{Ecn, Kind, Packet, TcpHeader};
use crate::time::Time;
use crate::transport::{Endpoints, Outbox};

/// Counters reported per flow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
}

/// The sending endpoint of a TCP flow.
#[derive(Clone, Debug)]
pub struct Sender {
    size: Option<u64>,
    total_segs: Option<u64>,
    board: Scoreboard,
    pub tcb: Tcb,
    pub cc: Cc,
    state: CaState,
    dupacks: u32,
    /// Segment index: a reduction (Recovery, CWR, Loss) ends when snd_una reaches it (Linux high_seq).
    recovery_point: u64,
    /// Lost segments below this have been considered for retransmission.
    rxt_cursor: u64,
    rescue_rxt: Option<u64>,
    rwnd: u64,
    send_cwr: bool,
    pub rtt: RttEstimator,
    rto_deadline: Option<Time>,
    rto_event_at: Option<Time>,
    started_at: Option<Time>,
    completed_at: Option<Time>,
    pub stats: SenderStats,
}

impl Sender {
    pub fn new(cfg: &TcpConfig, size: Option<u64>) -> Self {
        let mss = cfg.mss as u64;
        Sender {
            size,
            total_segs: size.map(|s| s.div_ceil(mss)),
            board: Scoreboard::default(),
            tcb: Tcb {
                cwnd: cfg.initial_cwnd,
                cwnd_cnt: 0,
                ssthresh: cfg.initial_ssthresh,
                snd_una: 0,
                snd_nxt: 0,
                mss: cfg.mss,
                cwnd_limited: false,
            },
            cc: cfg.cc.build(),
            state: CaState::Open,
            dupacks: 0,
            recovery_point: 0,
            rxt_cursor: 0,
            rescue_rxt: None,
            rwnd: u64::MAX,
            send_cwr: false,
            rtt: RttEstimator::new(cfg.rto),
            rto_deadline: None,
            rto_event_at: None,
            started_at: None,
            completed_at: None,
            stats: SenderStats::default(),
        }
    }

    pub fn state(&self) -> CaState {
        self.state
    }
    pub fn completed_at(&self) -> Option<Time> {
        self.completed_at
    }
    pub fn started_at(&self) -> Option<Time> {
        self.started_at
    }
    /// Bytes cumulatively acknowledged.
    pub fn bytes_acked(&self) -> u64 {
        self.seg_start(self.board.una())
    }
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.board
    }

    fn seg_start(&self, seg: u64) -> u64 {
        let b = seg * self.tcb.mss as u64;
        self.size.map_or(b, |s| b.min(s))
    }
    fn seg_len(&self, seg: u64) -> u64 {
        self.seg_start(seg + 1) - self.seg_start(seg)
    }
    /// Segment index of a byte offset on a segment boundary (the end of the flow counts as one).
    fn seg_of(&self, byte: u64) -> u64 {
        match self.size {
            Some(s) if byte >= s => self.total_segs.unwrap(),
            _ => byte.div_ceil(self.tcb.mss as u64),
        }
    }
    fn has_new_data(&self) -> bool {
        self.total_segs.is_none_or(|t| self.board.nxt() < t)
    }

    pub fn start(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        self.started_at = Some(now);
        self.cc.init(&mut self.tcb);
        self.try_send(now, cfg, ends, out);
    }

    pub fn on_ack(&mut self, now: Time, h: &TcpHeader, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        if self.completed_at.is_some() {
            return;
        }
        let ack_seg = self.seg_of(h.ack);
        if ack_seg > self.board.nxt() {
            return; // Acknowledges data never sent: ignore (RFC 9293 §3.10.7.4).
        }
        self.rwnd = h.rwnd;
        let prior_una = self.board.una();
        let acked = self.board.ack_to(ack_seg);
        let acked_bytes = self.seg_start(ack_seg.max(prior_una)) - self.seg_start(prior_una);
        self.tcb.snd_una = self.seg_start(self.board.una());

        let mut newly_sacked = 0;
        if cfg.sack {
            for &(a, b) in &h.sack[..h.sack_count as usize] {
                newly_sacked += self.board.sack(self.seg_of(a), self.seg_of(b));
            }
        }
        if acked.count > 0 {
            if let Some(sent) = acked.rtt_sent {
                self.rtt.sample(now - sent);
            }
            self.dupacks = 0;
        } else if self.board.packets_out() > 0 && (!cfg.sack || newly_sacked > 0) {
            self.dupacks += 1;
        }
        let ece = h.ece && cfg.ecn != EcnMode::Off;
        self.cc.in_ack_event(&mut self.tcb, AckEvent { ece, acked_bytes });

        if self.total_segs.is_some_and(|t| self.board.una() >= t) {
            self.completed_at = Some(now);
            self.rto_deadline = None;
            return;
        }

        let mut may_grow = acked.count > 0;
        let una = self.board.una();
        match self.state {
            CaState::Recovery if una >= self.recovery_point => {
                if cfg.sack {
                    self.tcb.cwnd = self.tcb.ssthresh;
                } else {
                    // RFC 6582 §3.2 step 3, option 1.
                    let flight = self.board.packets_out().max(1) as u32;
                    self.tcb.cwnd = self.tcb.ssthresh.min(flight + 1);
                }
                self.state = CaState::Open;
                may_grow = false;
            }
            CaState::Recovery if !cfg.sack => {
                if acked.count > 0 {
                    // Partial ACK (RFC 6582 §3.2 step 5): resend the next hole, deflate.
                    self.board.mark_lost(una);
                    self.rxt_cursor = self.rxt_cursor.min(una);
                    let a = acked.count as u32;
                    self.tcb.cwnd = self.tcb.cwnd.saturating_sub(a).max(1) + 1;
                } else if self.dupacks > 0 {
                    self.tcb.cwnd += 1; // Step 4: inflate per further duplicate ACK.
                }
            }
            CaState::Loss | CaState::Cwr if una >= self.recovery_point => {
                if self.state == CaState::Cwr {
                    self.cc.cwnd_event(&mut self.tcb, CwndEvent::CompleteCwr);
                }
                self.state = CaState::Open;
            }
            _ => {}
        }

        if cfg.sack && newly_sacked > 0 {
            let (size, mss) = (self.size, cfg.mss as u64);
            let seg_len = move |s: u64| {
                let end = size.map_or((s + 1) * mss, |z| ((s + 1) * mss).min(z));
                end - s * mss
            };
            if let Some(low) = self.board.mark_lost_by_sacks(cfg.dupthresh as u64, mss, seg_len) {
                self.rxt_cursor = self.rxt_cursor.min(low);
            }
        }
        if matches!(self.state, CaState::Open | CaState::Disorder | CaState::Cwr) {
            let enter = if cfg.sack {
                self.dupacks >= cfg.dupthresh || self.board.is_lost(una)
            } else {
                self.dupacks >= cfg.dupthresh
            };
            if enter {
                self.enter_recovery(cfg);
                may_grow = false;
            }
        }
        if matches!(self.state, CaState::Open | CaState::Disorder) {
            let disorder = self.dupacks > 0 || self.board.sacked_out() > 0;
            self.state = if disorder { CaState::Disorder } else { CaState::Open };
            if ece && una >= self.recovery_point {
                // RFC 3168 §6.1.2: one reduction per window of data.
                self.tcb.ssthresh = self.cc.ssthresh(&self.tcb);
                self.tcb.cwnd = self.tcb.cwnd.min(self.tcb.ssthresh);
                self.state = CaState::Cwr;
                self.cc.set_state(&mut self.tcb, CaState::Cwr);
                self.recovery_point = self.board.nxt();
                self.send_cwr = true;
                self.stats.ecn_reductions += 1;
                may_grow = false;
            }
        }
        if may_grow && matches!(self.state, CaState::Open | CaState::Disorder | CaState::Loss) {
            self.cc.cong_avoid(&mut self.tcb, acked.count as u32);
        }

        // RFC 6298 §5.2/5.3: stop the timer when all is acked, restart it on new data acked.
        if self.board.packets_out() == 0 {
            self.rto_deadline = None;
        } else if acked.count > 0 {
            self.arm_rto(now, out);
        }
        self.try_send(now, cfg, ends, out);
    }

    fn enter_recovery(&mut self, cfg: &TcpConfig) {
        if self.state != CaState::Cwr {
            self.tcb.ssthresh = self.cc.ssthresh(&self.tcb);
        }
        self.state = CaState::Recovery;
        self.cc.set_state(&mut self.tcb, CaState::Recovery);
        self.recovery_point = self.board.nxt();
        self.stats.fast_recoveries += 1;
        let una = self.board.una();
        self.board.mark_lost(una);
        self.rxt_cursor = una;
        self.rescue_rxt = None;
        self.tcb.cwnd_cnt = 0;
        self.tcb.cwnd = if cfg.sack {
            self.tcb.ssthresh // RFC 6675 §5 step 4.2
        } else {
            self.tcb.ssthresh + 3 // RFC 6582 §3.2 step 2 (cwnd inflated by the 3 dupACKs)
        };
    }

    pub fn on_rto_timer(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        self.rto_event_at = None;
        match self.rto_deadline {
            None => {}
            Some(d) if now < d => {
                self.rto_event_at = Some(d);
                out.timers.push((d, TimerKind::Rto));
            }
            Some(_) => self.fire_rto(now, cfg, ends, out),
        }
    }

    /// RFC 6298 §5.4–5.7 and RFC 5681 §3.1 eq. 4 / Linux `tcp_enter_loss`.
    fn fire_rto(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        self.rto_deadline = None;
        if self.board.packets_out() == 0 {
            return;
        }
        self.stats.timeouts += 1;
        let una = self.board.una();
        // Lower ssthresh once per episode: not again for repeated timeouts of the same data, nor
        // when a reduction for this window is already under way.
        let fresh = matches!(self.state, CaState::Open | CaState::Disorder)
            || una >= self.recovery_point
            || (self.state == CaState::Loss && self.rtt.backoffs() == 0);
        if fresh {
            self.tcb.ssthresh = self.cc.ssthresh(&self.tcb);
            self.cc.cwnd_event(&mut self.tcb, CwndEvent::Loss);
        }
        self.tcb.cwnd = 1;
        self.tcb.cwnd_cnt = 0;
        self.state = CaState::Loss;
        self.cc.set_state(&mut self.tcb, CaState::Loss);
        self.recovery_point = self.board.nxt();
        self.board.mark_all_lost();
        self.rxt_cursor = una;
        self.rescue_rxt = None;
        self.dupacks = 0;
        self.rtt.back_off();
        self.try_send(now, cfg, ends, out);
    }

    fn arm_rto(&mut self, now: Time, out: &mut Outbox) {
        let at = now + self.rtt.rto();
        self.rto_deadline = Some(at);
        if self.rto_event_at.is_none_or(|e| e > at) {
            self.rto_event_at = Some(at);
            out.timers.push((at, TimerKind::Rto));
        }
    }

    /// The NIC drained after this sender was blocked.
    pub fn on_send_ready(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        if self.started_at.is_some() && self.completed_at.is_none() {
            self.try_send(now, cfg, ends, out);
        }
    }

    /// The next segment NextSeg() (RFC 6675 §4, rules 1, 2 and 4) would send, if any.
    fn next_segment(&mut self, cfg: &TcpConfig) -> Option<(u64, bool)> {
        if let Some(seg) = self.board.next_lost(self.rxt_cursor) {
            return Some((seg, true));
        }
        self.rxt_cursor = self.rxt_cursor.max(self.board.nxt());
        let nxt = self.board.nxt();
        if self.has_new_data() && self.seg_start(nxt) + self.seg_len(nxt) <= self.tcb.snd_una.saturating_add(self.rwnd) {
            return Some((nxt, false));
        }
        if cfg.sack && self.state == CaState::Recovery && self.rescue_rxt.is_none_or(|r| self.board.una() > r) {
            if let Some(seg) = self.board.highest_unsacked() {
                if !self.board.is_retransmitted(seg) {
                    self.rescue_rxt = Some(self.recovery_point);
                    return Some((seg, true));
                }
            }
        }
        None
    }

    /// Send whatever the window, the receive window and the NIC allow: lost segments first, then
    /// new data, then (SACK recovery only) one rescue retransmission.
    fn try_send(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        loop {
            let mut cwnd = self.tcb.cwnd as u64;
            if self.state == CaState::Disorder {
                cwnd += self.dupacks.min(2) as u64; // RFC 3042 limited transmit
            }
            if self.board.pipe() >= cwnd {
                self.tcb.cwnd_limited = true;
                break;
            }
            if out.budget == 0 {
                // NIC backpressure (Linux TSQ / ns-3 device-queue flow control): not cwnd-limited.
                if self.board.next_lost(self.rxt_cursor).is_some() || self.has_new_data() {
                    out.blocked = true;
                }
                self.tcb.cwnd_limited = false;
                break;
            }
            let Some((seg, retransmission)) = self.next_segment(cfg) else {
                self.tcb.cwnd_limited = false;
                break;
            };
            if retransmission {
                self.rxt_cursor = self.rxt_cursor.max(seg + 1).min(self.board.nxt());
                self.board.mark_retransmitted(seg, now);
                self.stats.retransmits += 1;
            } else {
                self.board.push_new(now);
                self.tcb.snd_nxt = self.seg_start(seg + 1);
            }
            out.budget -= 1;
            self.emit(now, seg, retransmission, cfg, ends, out);
        }
        if self.board.packets_out() > 0 && self.rto_deadline.is_none() {
            self.arm_rto(now, out);
        }
    }

    fn emit(&mut self, now: Time, seg: u64, retransmission: bool, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        let len = self.seg_len(seg) as u32;
        let ecn = match cfg.ecn {
            EcnMode::Off => Ecn::NotEct,
            EcnMode::Classic if retransmission => Ecn::NotEct, // RFC 3168 §6.1.5
            _ => Ecn::Ect0,
        };
        let cwr = std::mem::take(&mut self.send_cwr);
        self.stats.segments_sent += 1;
        out.packets.push(Packet {
            flow: ends.flow,
            src: ends.src,
            dst: ends.dst,
            size: len + cfg.header,
            kind: Kind::Data,
            ecn,
            path_hash: ends.hash_fwd,
            created: now,
            tcp: TcpHeader {
                seq: self.seg_start(seg),
                len,
                cwr,
                fin: self.total_segs == Some(seg + 1),
                ..TcpHeader::default()
            },
        });
    }
}
