//! TCP sender: window, loss detection and recovery, retransmission timer.
//!
//! State machine after Linux's (`CaState`): Open → Disorder on the first duplicate ACK/SACK;
//! → Recovery on DupThresh duplicate ACKs or when RFC 6675 IsLost() holds for the first unacked
//! segment; → CWR on ECE; → Loss on RTO. With SACK, recovery is RFC 6675 (pipe-limited NextSeg
//! rules 1, 2 and 4; rule 3 is omitted, as in Linux, so a segment is only resent once it is deemed
//! lost). Without SACK it is NewReno (RFC 6582, the "slow-but-steady" variant: the RTO timer is
//! restarted on every partial ACK).

use super::cc::{AckEvent, ByteWindow, CaState, Cc, CcKind, CongestionOps, CwndEvent, RateSample, Tcb};
use super::lcp::{Design, LowLoop};
use super::layout::Layout;
use super::ns3_ecn::Ns3EceState;
use super::rtt::RttEstimator;
use super::scoreboard::{Scoreboard, TxState};
use super::priority::Priority;
use super::{EcnMode, LimitedTransmit, LossExit, LostRetransmit, PrrBound, TcpConfig, TimeoutSsthresh};
use super::timers;
use crate::transport::timer::LazyTimer;
use crate::packet::{Ecn, Header, Kind, Packet, TcpHeader};
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
    /// Tail loss probes sent, and probes (retransmissions) whose ACK showed they repaired a loss.
    pub tlp_probes: u64,
    pub tlp_recoveries: u64,
    /// Header-only probes sent in probe mode (pFabric §4.2).
    pub probes: u64,
}

/// The sending endpoint of a TCP flow.
#[derive(Clone, Debug)]
pub struct Sender {
    /// The latest telemetry echoed back in an ACK (HPCC reads it; TCP only keeps it).
    pub int_echo: Option<Box<crate::switch::telemetry::IntRecord>>,
    /// The ACK being handled brought `int_echo` (the congestion control's `on_int` reads it).
    pub int_fresh: bool,
    /// Where each segment's bytes lie.
    layout: Layout,
    /// No more data will be written: the last byte written carries FIN and ends the flow.
    closed: bool,
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
    /// The last ACK of new data carried ECE (ns-2 FullTcp's `ecn_burst_`, `TcpConfig::ns2_ecn_growth`).
    prev_ece: bool,
    /// Proportional Rate Reduction's state during a CWR episode (`TcpConfig::prr`).
    prr: Option<Prr>,
    /// What ns-3's DCTCP counts of duplicate ACKs (`TcpConfig::dctcp_echo_ns3`, ns3_ecn.rs).
    ns3_ecn: Ns3EceState,
    /// Retransmit the first lost segment regardless of the window (RFC 6675 §5 step 4.3,
    /// RFC 6582 §3.2 steps 2 and 5).
    force_rtx: bool,
    /// The pending forced retransmission is fast recovery's first (`TcpConfig::fast_rtx_head`).
    rtx_entry: bool,
    pub rtt: RttEstimator,
    rto: LazyTimer,
    /// Tail loss probe: its deadline, the pending event, and the outstanding probe (the segment
    /// end it covers, and whether it was a retransmission) — RFC 8985 §7 TLP.end_seq/is_retrans.
    tlp: LazyTimer,
    tlp_high: Option<(u64, bool)>,
    /// RACK.rtt, and the reordering timer's deadline and pending event (RFC 8985 §6).
    rack_rtt: Option<Time>,
    /// Connection setup: open yet, when the (last) SYN left, and whether it was resent.
    established: bool,
    established_at: Option<Time>,
    syn_sent_at: Option<Time>,
    syn_resent: bool,
    rack: LazyTimer,
    /// Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation §3).
    delivered_time: Time,
    first_tx_time: Time,
    /// Nonzero while application-limited: the C.delivered value that ends it.
    app_limited: u64,
    /// Pacing: the earliest time the next packet may leave, and the pending pacing event.
    next_send_at: Time,
    pace: LazyTimer,
    started_at: Option<Time>,
    completed_at: Option<Time>,
    /// The retransmission timeout when it is fixed (`TcpConfig::fixed_rto`).
    pub fixed_rto: Option<Time>,
    /// `TcpConfig::rto_tick` (0: timeouts fire at their deadline).
    rto_tick: Time,
    /// Timeouts since the last ACK, and whether the sender is probing (pFabric §4.2).
    timeouts_in_row: u32,
    probing: bool,
    /// The last window reduction was an ECN reaction, not fast recovery or a timeout (ns-2's
    /// `last_cwnd_action_` ECN; read by `TimeoutSsthresh::Ns2`).
    pub ecn_cut_last: bool,
    /// Flash: the class of the current window, and the byte that starts the next window.
    class: u8,
    class_until: u64,
    /// `TcpConfig::send_buffer` (u64::MAX = unlimited).
    sndbuf: u64,
    /// The low-priority loop (PPT's LCP, RC3's), boxed so other flows stay small (`lcp.rs`).
    pub low: Option<Box<LowLoop>>,
    /// The kernel's clock over the simulation's (`TcpConfig::time_dilation`; 1 = the same).
    dilation: u32,
    pub stats: SenderStats,
}

impl Sender {
    /// Run a congestion-control hook on the kernel's clock. Under time dilation (`[host]
    /// time_dilation`, Etalon: reTCP NSDI 2020 §4.3) the hosts' kernels keep real time while the
    /// emulated network runs `dilation` times slower, so the algorithm sees every time (now,
    /// SRTT, minimum RTT, deadline) that many times longer and rates that many times lower, and
    /// its own constants (CUBIC's HyStart thresholds, BBR's 10 s and 200 ms, ...) keep their
    /// kernel meaning. RTT samples and rate samples are scaled where they are passed.
    /// Always inlined: without dilation (nearly always) the hook is called directly, not through
    /// a function per hook that tests the dilation first.
    #[inline(always)]
    fn cc_call<R>(&mut self, f: impl FnOnce(&mut Cc, &mut Tcb) -> R) -> R {
        if self.dilation == 1 {
            return f(&mut self.cc, &mut self.tcb);
        }
        self.cc_call_dilated(f)
    }

    /// `cc_call` under time dilation (not inlined: rare).
    #[inline(never)]
    fn cc_call_dilated<R>(&mut self, f: impl FnOnce(&mut Cc, &mut Tcb) -> R) -> R {
        let k = self.dilation as u64;
        let t = &mut self.tcb;
        let saved = (t.now, t.srtt, t.min_rtt, t.deadline);
        let up = |x: Time| Time(x.0.saturating_mul(k));
        t.now = up(t.now);
        t.srtt = t.srtt.map(up);
        t.min_rtt = t.min_rtt.map(up);
        t.deadline = t.deadline.map(up);
        t.pacing_rate = t.pacing_rate.map(|r| r / k as f64);
        let r = f(&mut self.cc, &mut self.tcb);
        let t = &mut self.tcb;
        (t.now, t.srtt, t.min_rtt, t.deadline) = saved;
        t.pacing_rate = t.pacing_rate.map(|r| r * k as f64);
        r
    }

    /// A time of the simulation on the kernel's clock (see `cc_call`).
    #[inline]
    fn kernel_time(&self, x: Time) -> Time {
        Time(x.0.saturating_mul(self.dilation as u64))
    }

    /// A sender for `size` bytes (`None` = long-lived); `seed` feeds randomized congestion
    /// controls.
    pub fn new(cfg: &TcpConfig, size: Option<u64>, seed: u64) -> Self {
        let layout = if cfg.cc.cuts_segments() { Layout::cut_as_sent(cfg.mss, size) } else { Layout::fixed(cfg.mss, size) };
        Self::with_layout(cfg, layout, size.is_some(), seed)
    }

    fn with_layout(cfg: &TcpConfig, layout: Layout, closed: bool, seed: u64) -> Self {
        let size = if closed { layout.written() } else { None };
        let cc = cfg.cc.build(seed, &cfg.cc_params);
        let mut board = Scoreboard::default();
        board.track_rate = cc.owns_cwnd();
        board.timestamps = cfg.timestamps;
        Sender {
            dilation: cfg.time_dilation.max(1),
            int_echo: None,
            int_fresh: false,
            layout,
            closed,
            board,
            tcb: Tcb {
                cwnd: cfg.initial_cwnd,
                cwnd_cnt: 0,
                ssthresh: cfg.initial_ssthresh,
                snd_una: 0,
                snd_nxt: 0,
                mss: cfg.mss,
                cwnd_limited: false,
                now: Time::ZERO,
                srtt: None,
                min_rtt: None,
                in_flight: 0,
                request_cwr: false,
                pacing_rate: None,
                ca_state: CaState::Open,
                flow_size: size,
                deadline: None,
                rwnd: u64::MAX,
                seg_size: cfg.mss,
                // htsim's packet is its MSS: the byte window counts packets on the wire.
                bytes: cfg.htsim_bytes.then(|| ByteWindow::new(cfg.initial_cwnd, cfg.initial_ssthresh, cfg.mss + cfg.header)),
            },
            cc,
            state: CaState::Open,
            dupacks: 0,
            recovery_point: 0,
            rxt_cursor: 0,
            rescue_rxt: None,
            rwnd: u64::MAX,
            send_cwr: false,
            prev_ece: false,
            ns3_ecn: Ns3EceState::default(),
            prr: None,
            force_rtx: false,
            rtx_entry: false,
            rtt: RttEstimator::new(cfg.rto),
            rto: LazyTimer::new(timers::RTO),
            tlp: LazyTimer::new(timers::PROBE),
            tlp_high: None,
            rack_rtt: None,
            established: false,
            established_at: None,
            syn_sent_at: None,
            syn_resent: false,
            rack: LazyTimer::new(timers::REORDER),
            delivered_time: Time::ZERO,
            first_tx_time: Time::ZERO,
            app_limited: 0,
            next_send_at: Time::ZERO,
            pace: LazyTimer::new(timers::PACE),
            started_at: None,
            completed_at: None,
            fixed_rto: match cfg.fixed_rto {
                super::FixedRto::Time(t) => Some(t),
                _ => None,
            },
            rto_tick: cfg.rto_tick,
            timeouts_in_row: 0,
            probing: false,
            ecn_cut_last: false,
            class: cfg.class,
            class_until: 0,
            sndbuf: cfg.send_buffer.unwrap_or(u64::MAX),
            low: Self::low_loop(cfg, closed),
            stats: SenderStats::default(),
        }
    }

    /// The low-priority loop a configuration asks for: PPT and RC3 on fixed segments of a flow
    /// whose data is known at the start (a flow of known size, or a send buffer bounding it).
    fn low_loop(cfg: &TcpConfig, closed: bool) -> Option<Box<LowLoop>> {
        // An endless stream without a send buffer has no tail to send from.
        let tail = closed || cfg.send_buffer.is_some();
        if cfg.cc.cuts_segments() {
            return None;
        }
        let design = match cfg.cc {
            CcKind::Ppt | CcKind::PptSwift => {
                let mut p = cfg.ppt_params().expect("PPT has its constants");
                if !cfg.ppt.ident {
                    p.ident_threshold = u64::MAX;
                }
                // Without a tail PPT still tags its packets (§4.2), with no LCP.
                p.lcp &= tail;
                // The delay variant's normal loop has no ECN; its LCP keeps PPT's own.
                let on_delay = cfg.cc == CcKind::PptSwift;
                let ecn = cfg.ppt.lcp_ecn && (cfg.ecn != EcnMode::Off || on_delay);
                Design::Ppt { p, ewd: cfg.ppt.ewd, ecn, on_delay }
            }
            CcKind::Rc3 if tail => {
                let p = super::cc::Rc3Params::from_knobs(&cfg.cc_params);
                Design::Rc3 { factor: p.factor, levels: p.levels }
            }
            _ => return None,
        };
        Some(Box::new(LowLoop::new(design)))
    }

    pub fn state(&self) -> CaState {
        self.state
    }
    pub fn completed_at(&self) -> Option<Time> {
        self.completed_at
    }
    /// When the connection opened (the SYN-ACK's arrival; the start without a handshake).
    pub fn established_at(&self) -> Option<Time> {
        self.established_at
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

    /// One line of sender state, for traces and debugging.
    pub fn summary(&self) -> String {
        let b = &self.board;
        format!(
            "{:?} cwnd {} ssthresh {} una {} nxt {} out {} sacked {} lost {} retrans {} pipe {} rto_at {:?} rto {}",
            self.state,
            self.tcb.cwnd,
            self.tcb.ssthresh,
            b.una(),
            b.nxt(),
            b.packets_out(),
            b.sacked_out(),
            b.lost_out(),
            b.retrans_out(),
            b.pipe(),
            self.rto.deadline(),
            self.rtt.rto()
        )
    }

    #[inline]
    fn seg_start(&self, seg: u64) -> u64 {
        self.layout.start(seg)
    }
    /// Segment index of a byte offset on a segment boundary (the end of the flow counts as one).
    #[inline]
    fn seg_of(&self, byte: u64) -> u64 {
        self.layout.seg_of(byte, self.board.nxt())
    }
    #[inline]
    fn has_new_data(&self) -> bool {
        self.layout.has_data_at(self.board.nxt())
    }
    /// The next new segment fits the window the receiver (or SAB's switches) allow.
    #[inline]
    fn new_data_allowed(&self) -> bool {
        let nxt = self.board.nxt();
        let end = self.seg_start(nxt) + self.layout.next_len(nxt, self.tcb.seg_size);
        self.has_new_data() && end <= self.tcb.snd_una.saturating_add(self.rwnd) && end <= self.tcb.snd_una.saturating_add(self.sndbuf)
    }

    /// Keep the connection open after the data written so far (before it starts); `last` = that
    /// data is all there will be after all.
    pub fn keep_open(&mut self, last: bool) {
        debug_assert!(self.started_at.is_none());
        // Written in pieces: no tail to send from (the tagging of PPT stays).
        if let Some(low) = self.low.as_deref_mut() {
            match &mut low.design {
                Design::Ppt { p, .. } => p.lcp = false,
                Design::Rc3 { .. } => self.low = None,
            }
        }
        self.layout = Layout::cut_as_sent(self.tcb.mss, self.layout.written());
        self.closed = last;
        if !last {
            self.tcb.flow_size = None;
        }
    }

    /// The application stops writing: the data already sent plus one more segment, which carries
    /// FIN, is all the connection carries (a flow that already sent everything keeps its size).
    /// Returns that size.
    pub fn stop(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) -> u64 {
        let nxt = self.board.nxt();
        let end = self.layout.start(nxt) + self.layout.next_len(nxt, self.tcb.seg_size);
        let end = self.layout.written().map_or(end, |w| w.min(end));
        self.layout.truncate(end);
        if let Some(low) = self.low.as_deref_mut() {
            low.truncate(self.layout.seg_of(end, nxt));
        }
        self.closed = true;
        self.tcb.flow_size = Some(end);
        if self.started_at.is_some() && self.completed_at.is_none() {
            self.try_send(now, cfg, ends, out);
        }
        end
    }

    /// The application writes `bytes` more on a persistent connection; `last` closes it (the last
    /// byte carries FIN).
    pub fn write(&mut self, now: Time, bytes: u64, last: bool, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        self.layout.write(bytes);
        self.closed = last;
        if last {
            self.tcb.flow_size = self.layout.written();
        }
        if self.started_at.is_some() && self.completed_at.is_none() {
            self.try_send(now, cfg, ends, out);
        }
    }

    pub fn start(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        self.started_at = Some(now);
        self.tcb.now = now;
        self.tcb.srtt = self.rtt.srtt();
        self.tcb.min_rtt = self.tcb.srtt;
        if cfg.handshake {
            self.send_syn(now, cfg, ends, out);
            self.arm_rto(now, out);
            return;
        }
        self.established = true;
        self.established_at = Some(now);
        self.cc_call(|cc, t| cc.init(t));
        let case1 = self.identify(cfg);
        self.try_send(now, cfg, ends, out);
        self.open_low(now, case1, cfg, ends, out);
    }

    /// PPT §4.1: the first write puts min(flow size, send buffer) bytes in the send buffer; above
    /// the threshold the flow is large. Returns case 1's window if the loop opens at once.
    fn identify(&mut self, cfg: &TcpConfig) -> Option<u64> {
        let written = self.layout.written().unwrap_or(u64::MAX);
        let first_write = written.min(cfg.send_buffer.unwrap_or(u64::MAX));
        let rest = self.layout.written().map_or(u64::MAX, |w| self.layout.seg_of(w, 0));
        self.low.as_deref_mut()?.on_start(first_write, cfg.initial_cwnd as u64, rest)
    }

    /// One past the last segment the send buffer holds now: the written data, at most
    /// `send_buffer` bytes beyond snd_una (whole segments).
    fn buffer_tail(&self, cfg: &TcpConfig) -> u64 {
        let nxt = self.board.nxt();
        let limit = cfg.send_buffer.map_or(u64::MAX, |b| self.tcb.snd_una.saturating_add(b));
        match self.layout.written() {
            Some(w) if w <= limit => self.layout.seg_of(w, nxt),
            _ => limit / cfg.mss as u64,
        }
    }

    /// Open a low-priority loop of `window` packets (if any) and let it send.
    fn open_low(&mut self, now: Time, window: Option<u64>, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        let Some(w) = window else { return };
        let tail = self.buffer_tail(cfg);
        let rtt = self.tcb.srtt.unwrap_or(Time::ZERO);
        if let Some(low) = self.low.as_deref_mut() {
            low.open(now, w, tail, rtt, out);
        }
        self.lcp_send(now, cfg, ends, out);
    }

    /// Send what the low-priority loop may: from the tail down, never below the normal loop's
    /// next new segment.
    fn lcp_send(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        let Some(mut low) = self.low.take() else { return };
        while low.is_open() {
            let Some(seg) = low.next_seg(self.board.nxt()) else { break };
            if out.budget == 0 {
                out.blocked = true;
                break;
            }
            if !low.take_permission(now, out) {
                break;
            }
            let len = self.layout.len(seg);
            let class = low.class(true, cfg.ppt.sched, &ppt_thresholds(cfg), cfg.class, seg, cfg.initial_cwnd as u64);
            low.sent(seg, len);
            out.budget -= 1;
            self.stats.segments_sent += 1;
            let ends_write = self.layout.ends_written(seg);
            let mut p = Packet::new(
                ends.flow,
                ends.src,
                ends.dst,
                len as u32 + cfg.header,
                Kind::Data,
                ends.hash_fwd,
                Header::Tcp(TcpHeader { seq: self.seg_start(seg), len: len as u32, fin: self.closed && ends_write, psh: ends_write, lcp: true, ..TcpHeader::default() }),
            );
            p.ecn = if low.ecn_capable() { Ecn::Ect0 } else { Ecn::NotEct };
            p.class = class;
            out.packets.push(p);
        }
        self.low = Some(low);
    }

    /// A low-priority ACK (PPT §5 `tcp_ack_loops`): record what it reports delivered, keep the
    /// loop alive, and send one opportunistic packet unless it carries ECE.
    pub fn on_lp_ack(&mut self, now: Time, h: &TcpHeader, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        if self.completed_at.is_some() || self.low.is_none() {
            return;
        }
        if self.layout.written().is_some_and(|w| h.ack >= w) {
            // The receiver holds every byte: the flow is done, as any ACK of the end says.
            let done = TcpHeader { ack: h.ack, rwnd: h.rwnd, ..TcpHeader::default() };
            self.on_ack(now, &done, cfg, ends, out);
            return;
        }
        self.tcb.now = now;
        self.note_reported(h, cfg);
        let rtt = self.tcb.srtt.unwrap_or(Time::ZERO);
        // The LCP's own ECN (not the connection's: PPT on Swift has none for its normal loop).
        let low = self.low.as_deref_mut().expect("checked");
        if low.on_lp_ack(now, h.ece, rtt, out) {
            self.lcp_send(now, cfg, ends, out);
        }
    }

    /// What an ACK (either loop's) says the receiver holds above the normal loop's next segment.
    /// Always inlined: without a low-priority loop (most flows) it is one test per ACK, not a call.
    #[inline(always)]
    fn note_reported(&mut self, h: &TcpHeader, cfg: &TcpConfig) {
        if self.low.is_some() {
            self.note_reported_low(h, cfg);
        }
    }

    /// `note_reported` with a low-priority loop.
    #[inline(never)]
    fn note_reported_low(&mut self, h: &TcpHeader, cfg: &TcpConfig) {
        let nxt = self.board.nxt();
        let Some(low) = self.low.as_deref_mut().filter(|l| l.sends()) else { return };
        let ack_seg = self.layout.seg_of(h.ack, nxt);
        if ack_seg > nxt {
            low.note_delivered(nxt, ack_seg, nxt);
        }
        if cfg.sack {
            for &(a, b) in &h.sack[..h.sack_count as usize] {
                low.note_delivered(self.layout.seg_of(a, nxt), self.layout.seg_of(b, nxt), nxt);
            }
        }
    }

    pub fn on_lcp_pace_timer(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        let Some(low) = self.low.as_deref_mut() else { return };
        low.on_pace_timer(now);
        if self.completed_at.is_none() {
            self.lcp_send(now, cfg, ends, out);
        }
    }

    pub fn on_lcp_silence_timer(&mut self, now: Time, out: &mut Outbox) {
        if let Some(low) = self.low.as_deref_mut() {
            low.on_silence_timer(now, out);
        }
    }

    fn send_syn(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        self.syn_sent_at = Some(now);
        let size = cfg.syn_size.unwrap_or(cfg.ack_size);
        let mut p = Packet::new(ends.flow, ends.src, ends.dst, size, Kind::Syn, ends.hash_fwd, Header::Tcp(TcpHeader::default()));
        p.class = cfg.class;
        if cfg.syn_ect() {
            p.ecn = Ecn::Ect0;
        }
        out.packets.push(p);
    }

    /// The SYN-ACK: the connection is open; its RTT (unless the SYN was resent: Karn) seeds the
    /// estimator and the minimum RTT, and data may flow.
    pub fn on_syn_ack(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        if self.established {
            return;
        }
        self.established = true;
        self.established_at = Some(now);
        self.tcb.now = now;
        match (self.syn_sent_at, self.syn_resent) {
            (Some(sent), false) => {
                let r = if cfg.syn_ts_zero { now } else { now - sent };
                self.rtt.sample(r);
                self.tcb.min_rtt = Some(r);
            }
            _ => self.rtt.reinit_after_syn_timeout(),
        }
        self.tcb.srtt = self.rtt.srtt();
        self.rto.cancel();
        self.cc_call(|cc, t| cc.init(t));
        if self.tcb.bytes.is_some() {
            // htsim's SYN-ACK acknowledges the SYN's byte like any ACK (`TcpSrc::receivePacket`):
            // DCTCP counts it in its window of ACKs and the window grows by its free room, all of
            // it, nothing being out (fabricsim's SYN-ACK carries no ECE).
            self.cc_call(|cc, t| cc.in_ack_event(t, AckEvent { ece: false, acked_bytes: 0 }));
            self.tcb.bytes_do(|b| b.grow(0));
        }
        if cfg.handshake_ack {
            // ns-3 acknowledges the SYN-ACK with a packet of its own (`TcpConfig::handshake_ack`).
            let mut p = Packet::new(ends.flow, ends.src, ends.dst, cfg.ack_size, Kind::Control, ends.hash_fwd, Header::Tcp(TcpHeader::default()));
            p.class = cfg.class;
            if cfg.syn_ect() {
                p.ecn = Ecn::Ect0;
            }
            out.packets.push(p);
        }
        let case1 = self.identify(cfg);
        self.try_send(now, cfg, ends, out);
        self.open_low(now, case1, cfg, ends, out);
    }

    pub fn on_ack(&mut self, now: Time, h: &TcpHeader, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        let int_fresh = std::mem::take(&mut self.int_fresh);
        if self.completed_at.is_some() {
            return;
        }
        let ack_seg = self.seg_of(h.ack);
        if ack_seg > self.board.nxt() {
            if !self.low.as_deref().is_some_and(LowLoop::sends) || self.layout.written().is_none_or(|w| h.ack > w) {
                return; // Acknowledges data never sent: ignore (RFC 9293 §3.10.7.4).
            }
            // The low-priority loop delivered the bytes above: the normal loop skips them and
            // takes the ACK (PPT §5: "advancing the send queue's head and updating snd_nxt").
            while self.board.nxt() < ack_seg {
                let tx = self.tx_state(now);
                self.board.push_skipped(now, tx);
                if let Some(low) = self.low.as_deref_mut() {
                    low.stats.skipped += 1;
                }
            }
            self.tcb.snd_nxt = self.seg_start(ack_seg);
        }
        self.rwnd = h.window();
        self.tcb.rwnd = h.window();
        let prior_una = self.board.una();
        let (prior_delivered, prior_lost_marks) = (self.board.delivered, self.board.lost_marks);
        let prior_rack = self.board.rack_point();
        self.board.set_ack_context(now, self.tcb.min_rtt);
        let acked = self.board.ack_to(ack_seg);
        let mut acked_bytes = self.seg_start(ack_seg.max(prior_una)) - self.seg_start(prior_una);
        if acked.skipped > 0 {
            // Bytes the other loop delivered are not this loop's: DCTCP's α and the window count
            // only the normal loop's own packets.
            let last = if acked.last_skipped { self.layout.len(ack_seg - 1) } else { cfg.mss as u64 };
            acked_bytes = acked_bytes.saturating_sub((acked.skipped - 1) * cfg.mss as u64 + last);
        }
        let own_acked = (acked.count - acked.skipped) as u32;
        self.tcb.snd_una = self.seg_start(self.board.una());
        // ns-3 ends a timeout's loss state counting only what lies beyond its recovery point
        // (`LossExit::Ns3`): for the window's growth and DCTCP's α.
        let ns3_exit = cfg.loss_exit == LossExit::Ns3;
        let ns3_beyond = (ns3_exit && self.state == CaState::Loss && self.board.una() >= self.recovery_point)
            .then(|| (self.board.una() - self.recovery_point) as u32);
        // Unless the ACK carries ECE: ns-3 then enters CWR from the loss state (below), and
        // counts all it delivered.
        let loss_ece = ns3_exit
            && self.state == CaState::Loss
            && acked.count > 0
            && h.ece
            && cfg.ecn != EcnMode::Off
            && self.cc.cwr_on_ece();
        if let Some(beyond) = ns3_beyond.filter(|_| !loss_ece) {
            acked_bytes = beyond as u64 * cfg.mss as u64;
        }

        let mut newly_sacked = 0;
        if cfg.sack {
            for &(a, b) in &h.sack[..h.sack_count as usize] {
                newly_sacked += self.board.sack(self.seg_of(a), self.seg_of(b));
            }
        }
        self.layout.release(self.board.una());
        self.note_reported(h, cfg);
        self.tcb.now = now;
        let mut rtt_sample = None;
        if acked.count > 0 {
            if let Some(sent) = acked.rtt_sent {
                let r = now - sent;
                self.rtt.sample(r);
                rtt_sample = Some(r);
                self.tcb.min_rtt = Some(self.tcb.min_rtt.map_or(r, |m| m.min(r)));
            }
            if cfg.backoff_ends_on_new_ack {
                // ns-3's `NewAck`: m_rto from the estimator, the doubling gone.
                self.rtt.reset_backoff();
            }
            self.tcb.srtt = self.rtt.srtt();
            self.dupacks = 0;
            self.timeouts_in_row = 0;
        } else if ack_seg == prior_una && self.board.packets_out() > 0 && (!cfg.sack || newly_sacked > 0) {
            // RFC 5681 §2 (and RFC 6675 §2 for SACK): a duplicate ACK acknowledges exactly
            // snd_una; older, reordered ACKs are not duplicates.
            self.dupacks += 1;
        }
        if std::mem::take(&mut self.probing) {
            // pFabric §4.2: the first answer to a probe ends probe mode; slow start resumes.
            self.timeouts_in_row = 0;
        }
        // ns-3 reads ECE only on an ACK that advances snd_una (TcpSocketBase::ReceivedAck), which
        // its DCTCP echo relies on (`TcpConfig::dctcp_echo_ns3`, receiver.rs).
        let ece = h.ece && cfg.ecn != EcnMode::Off && !(cfg.dctcp_echo_ns3 && acked.count == 0);
        let mut cc_ece = ece;
        if cfg.dctcp_echo_ns3 && cfg.ecn != EcnMode::Off {
            // ns-3's congestion control counts a segment for a duplicate ACK too (ns3_ecn.rs).
            if acked.count > 0 {
                self.ns3_ecn.on_advancing_ack(h.ack, h.ece);
            } else if ack_seg == prior_una && self.board.packets_out() > 0 {
                cc_ece = self.ns3_ecn.on_duplicate_ack(h.ece);
                acked_bytes = cfg.mss as u64;
            }
        }
        // ns-2 FullTcp opens cwnd on every ACK of new data but the first ECE one of a burst.
        let ns2_may_grow = !ece || self.prev_ece;
        if acked.count > 0 {
            self.prev_ece = ece;
        }
        self.tcb.in_flight = self.board.pipe() * cfg.mss as u64;
        let rs = self.rate_sample(now, prior_delivered, rtt_sample);
        if cfg.ecn == EcnMode::Off && self.cc.reads_raw_ece() {
            cc_ece = h.ece;
        }
        // ns-3-dev counts an advancing ACK's segments as what it delivered (`ProcessAck`:
        // `bytesAcked = currentDelivered`), but the ACK that ends fast recovery by its cumulative
        // advance (`TcpConfig::acked_delivered`).
        let delivered_count = (cfg.acked_delivered && acked.count > 0 && ns3_beyond.is_none()
            && !(self.state == CaState::Recovery && self.board.una() >= self.recovery_point))
            .then(|| (self.board.delivered - prior_delivered) as u32);
        if let Some(d) = delivered_count {
            acked_bytes = d as u64 * cfg.mss as u64;
        }
        self.cc_call(|cc, t| cc.in_ack_event(t, AckEvent { ece: cc_ece, acked_bytes }));
        if own_acked > 0 {
            let rtt_k = rtt_sample.map(|r| self.kernel_time(r));
            self.cc_call(|cc, t| cc.pkts_acked(t, own_acked, rtt_k));
        }

        if self.closed && self.layout.written().is_some_and(|w| self.tcb.snd_una >= w - self.extra_segment(w, cfg)) {
            self.completed_at = Some(now);
            self.rto.cancel();
            return;
        }

        let mut may_grow = acked.count > 0;
        let una = self.board.una();
        // PRR's safe ACK (`PrrBound`): in fast recovery, below its recovery point, it
        // cumulatively acknowledges a retransmission (ns-3 `TcpSocketBase::ReceivedAck`).
        let safe_ack = self.state == CaState::Recovery && acked.retrans_acked && una < self.recovery_point;
        // What this ACK delivered, SACKed before excluded (ns-3's `currentDelivered`).
        let delivered = self.board.delivered - prior_delivered;
        // What PRR counts for this ACK in CWR: ns-3's `currentDelivered`, or (by default) the
        // segments it acknowledged and newly SACKed (`TcpConfig::prr_cwr_advancing`).
        let cwr_delivered = if cfg.prr_cwr_advancing { delivered } else { own_acked as u64 + newly_sacked as u64 };
        match self.state {
            CaState::Recovery if una >= self.recovery_point => {
                self.prr = None;
                if self.cc.owns_cwnd() {
                    // the algorithm restores its own window
                } else if cfg.sack {
                    self.tcb.cwnd = self.tcb.ssthresh;
                } else if self.tcb.bytes.is_some() {
                    let flight = self.board.packets_out();
                    self.tcb.bytes_do(|b| b.exit_recovery(flight * b.seg));
                } else {
                    // RFC 6582 §3.2 step 3, option 1.
                    let flight = self.board.packets_out().max(1) as u32;
                    self.tcb.cwnd = self.tcb.ssthresh.min(flight + 1);
                }
                // Linux tcp_end_cwnd_reduction raises COMPLETE_CWR after Recovery too.
                self.cc_call(|cc, t| cc.cwnd_event(t, CwndEvent::CompleteCwr));
                self.state = CaState::Open;
                may_grow = false;
            }
            // ns-3's partial ACK (`TcpConfig::partial_ack_ns3`): one segment out beyond the
            // window unless the segment at the new point was resent already.
            CaState::Recovery if cfg.sack && cfg.partial_ack_ns3 && acked.count > 0 && !self.board.is_retransmitted(una) => {
                self.force_rtx = true;
            }
            CaState::Recovery if !cfg.sack => {
                if acked.count > 0 {
                    // Partial ACK (RFC 6582 §3.2 step 5): resend the next hole, deflate.
                    self.board.mark_lost(una);
                    self.rxt_cursor = self.rxt_cursor.min(una);
                    self.force_rtx = true;
                    let a = acked.count as u32;
                    if !self.tcb.bytes_do(|b| b.partial_ack(a as u64 * b.seg)) {
                        self.tcb.cwnd = self.tcb.cwnd.saturating_sub(a).max(1) + 1;
                    }
                } else if self.dupacks > 0 && !self.tcb.bytes_do(ByteWindow::inflate) {
                    self.tcb.cwnd += 1; // Step 4: inflate per further duplicate ACK.
                }
            }
            // ns-3 ends CWR only beyond the recovery point (`TcpConfig::ns3_cwr_exit`).
            CaState::Loss | CaState::Cwr
                if una >= self.recovery_point + (cfg.ns3_cwr_exit && self.state == CaState::Cwr) as u64 && !loss_ece =>
            {
                if self.state == CaState::Cwr {
                    if self.prr.take().is_some() && !self.cc.owns_cwnd() {
                        // The reduction ends at ssthresh (Linux tcp_end_cwnd_reduction, ns-3
                        // TcpSocketBase::ReceivedAck on leaving CA_CWR).
                        self.tcb.cwnd = self.tcb.ssthresh;
                    }
                    self.cc_call(|cc, t| cc.cwnd_event(t, CwndEvent::CompleteCwr));
                }
                self.state = CaState::Open;
            }
            _ => {}
        }

        if cfg.sack && newly_sacked > 0 {
            let layout = &self.layout;
            if let Some(low) = self.board.mark_lost_by_sacks(cfg.dupthresh as u64, cfg.mss as u64, |s| layout.len(s)) {
                self.rxt_cursor = self.rxt_cursor.min(low);
            }
            if cfg.lost_retransmit == LostRetransmit::Ns3Sacked {
                // ns-3-dev (`LostRetransmit::Ns3Sacked`): a retransmission sent before a newly
                // SACKed segment was is lost.
                let t = self.board.sacked_sent_max;
                if let Some(low) = self.board.mark_retransmits_lost_before(t) {
                    self.rxt_cursor = self.rxt_cursor.min(low);
                }
            }
        }
        if self.board.rack_point() != prior_rack {
            // RACK.rtt (RFC 8985 §6.2 step 2): the newest delivered segment's RTT, unless it is
            // shorter than the minimum RTT (then the ACK was for an earlier transmission).
            let r = now - self.board.rack_point().0;
            if self.tcb.min_rtt.is_none_or(|m| r >= m) {
                self.rack_rtt = Some(r);
            }
        }
        self.rack_detect(now, cfg, out);
        if let Some((end, was_retrans)) = self.tlp_high {
            // RFC 8985 §7.4: the probe's episode ends when it is acknowledged. Without DSACK we
            // cannot tell a spurious probe, so a retransmitted probe that gets acked in Open state
            // repaired a loss: reduce once, as Linux's tcp_process_tlp_ack does.
            if una >= end {
                self.tlp_high = None;
                if was_retrans && matches!(self.state, CaState::Open | CaState::Disorder) && una > prior_una {
                    self.tcb.ssthresh = self.cc_call(|cc, t| cc.ssthresh(t));
                    self.tcb.cwnd = self.tcb.cwnd.min(self.tcb.ssthresh);
                    self.tcb.cwnd_cnt = 0;
                    self.ecn_cut_last = false; // a loss's reduction, as a fast recovery
                    self.stats.tlp_recoveries += 1;
                }
            }
        }
        if matches!(self.state, CaState::Open | CaState::Disorder)
            || (self.state == CaState::Cwr && cfg.recovery_from_cwr)
        {
            let enter = if cfg.sack {
                // ns-3 (`TcpConfig::recovery_on_dupack`): only an ACK with new SACK information.
                (self.dupacks >= cfg.dupthresh || self.board.is_lost(una) || (cfg.rack && self.board.lost_out() > 0))
                    && (!cfg.recovery_on_dupack || newly_sacked > 0)
            } else {
                self.dupacks >= cfg.dupthresh
            };
            if enter {
                self.enter_recovery(cfg, delivered);
                may_grow = false;
            }
        }
        if loss_ece {
            // ns-3's `ReceivedAck` enters CWR on an ECE in any state but CWR, before `ProcessAck`
            // would end the loss state (`LossExit::Ns3`).
            self.ecn_reduce(cfg, cwr_delivered);
            may_grow = false;
        } else if cfg.loss_exit == LossExit::Ns2
            && self.state == CaState::Loss
            && !self.ecn_cut_last
            && acked.count > 0
            && ece
            && self.cc.cwr_on_ece()
            && !self.cc.owns_cwnd()
        {
            // ns-2 reacts here because the last reduction was this timeout's (the mark is not ECN).
            self.ns2_loss_ecn_cut();
            may_grow = cfg.ns2_ecn_growth; // then grows as after any ECN cut (`opencwnd()` follows `ecn()`)
        }
        if matches!(self.state, CaState::Open | CaState::Disorder) {
            let disorder = self.dupacks > 0 || self.board.sacked_out() > 0;
            self.state = if disorder { CaState::Disorder } else { CaState::Open };
            if ece && una >= self.recovery_point && self.cc.cwr_on_ece() {
                // RFC 3168 §6.1.2: one reduction per window of data.
                self.ecn_reduce(cfg, cwr_delivered);
                // ns-2 opens cwnd on this ACK too (unless it starts an ECE run), even when it also
                // ends a fast recovery (FullTcp grows on the full ACK that ends one).
                may_grow = cfg.ns2_ecn_growth;
            }
        }
        if self.cc.owns_cwnd() {
            let mut rs = rs;
            rs.losses = (self.board.lost_marks - prior_lost_marks) as u32;
            self.tcb.in_flight = self.board.pipe() * cfg.mss as u64;
            self.tcb.ca_state = self.state;
            if int_fresh {
                if let Some(rec) = self.int_echo.as_deref() {
                    self.cc.on_int(&mut self.tcb, rec);
                }
            }
            let rs = RateSample { interval: self.kernel_time(rs.interval), rtt: rs.rtt.map(|r| self.kernel_time(r)), ..rs };
            self.cc_call(|cc, t| cc.cong_control(t, &rs));
        } else if may_grow
            && (ns3_beyond.or(delivered_count).unwrap_or(own_acked) > 0 || self.cc.grows_on_no_segment())
            && self.may_grow_in(self.state, cfg, ns2_may_grow)
        {
            let grow = ns3_beyond.or(delivered_count).unwrap_or(own_acked);
            if !self.tcb.bytes_do(|b| b.grow(self.board.pipe() * b.seg)) {
                self.cc_call(|cc, t| cc.cong_avoid(t, grow));
            }
            if let Some(cap) = cfg.cwnd_cap {
                self.tcb.cwnd = self.tcb.cwnd.min(cap); // ns-2's maxcwnd_, applied in opencwnd()
            }
            if std::mem::take(&mut self.tcb.request_cwr) && matches!(self.state, CaState::Open | CaState::Disorder) {
                self.enter_cwr(cfg, 0); // a delay-based back-off (CDG)
            }
        }

        if self.prr.is_some() {
            match self.state {
                // ns-3 steps in CWR only on an ACK that advances (`ProcessAck`'s CA_CWR branch).
                CaState::Cwr if cfg.prr_cwr_advancing && acked.count == 0 => {}
                CaState::Cwr => self.prr_step(cwr_delivered, false, cfg),
                CaState::Recovery => self.prr_step(delivered, safe_ack, cfg),
                _ => {}
            }
        }

        // RFC 6298 §5.2/5.3: stop the timer when all is acked, restart it on new data acked.
        if self.board.packets_out() == 0 {
            self.rto.cancel();
        } else if acked.count > 0 {
            self.arm_rto(now, out);
        }
        self.try_send(now, cfg, ends, out);
        if self.low.is_some() {
            self.low_after_ack(now, own_acked, cfg, ends, out);
        }
        self.schedule_probe(now, cfg, out);
    }

    /// Bytes at the end of a flow of `written` bytes that it sends but does not wait for: htsim's
    /// packet beyond the flow (`TcpConfig::extra_segment`), the last segment; none otherwise, nor
    /// for a flow of one segment (it would complete on any ACK).
    #[inline]
    fn extra_segment(&self, written: u64, cfg: &TcpConfig) -> u64 {
        if !cfg.extra_segment || written <= cfg.mss as u64 {
            return 0;
        }
        (written - 1) % cfg.mss as u64 + 1
    }

    /// The low-priority loop's openings on a normal ACK: case 1 of an identified flow (its 2nd
    /// RTT), case 2 when DCTCP's α is at its recent minimum (PPT §3.1), or the delay-based
    /// variant's opening (§6.3, Fig. 14).
    fn low_after_ack(&mut self, now: Time, own_acked: u32, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        let low = self.low.as_deref_mut().expect("called with a loop");
        let mut window = None;
        if own_acked > 0 {
            window = low.on_first_ack(cfg.initial_cwnd as u64);
        }
        match &mut self.cc {
            Cc::Ppt(p) => {
                if let Some(alpha_min) = p.take_case2() {
                    window = window.or_else(|| low.case2_window(alpha_min, p.w_max()));
                }
            }
            // Fig. 14's variant: whenever the delay is below the target.
            Cc::PptSwift(p) => {
                if let Some(i) = p.take_opening() {
                    window = window.or_else(|| low.delay_window(i));
                }
            }
            _ => {}
        }
        self.open_low(now, window, cfg, ends, out);
    }

    /// RACK_detect_loss (RFC 8985 §6.2) with reo_wnd = min RTT / 4; arms the reordering timer
    /// (§6.3) for segments not yet overdue.
    /// Always inlined: the common outcome (nothing to examine, `Scoreboard::rack_idle`) costs a
    /// few tests per ACK, not a call; the scan is out of line.
    #[inline(always)]
    fn rack_detect(&mut self, now: Time, cfg: &TcpConfig, out: &mut Outbox) {
        if !cfg.sack || !(cfg.rack || (self.board.retrans_out() > 0 && cfg.lost_retransmit == LostRetransmit::Rack)) {
            return;
        }
        if self.board.rack_idle() {
            self.rack.cancel();
            return;
        }
        self.rack_scan(now, cfg, out);
    }

    /// `rack_detect`'s scan, when the oldest segment out may be overdue.
    #[inline(never)]
    fn rack_scan(&mut self, now: Time, cfg: &TcpConfig, out: &mut Outbox) {
        let reo_wnd = Time(self.tcb.min_rtt.unwrap_or(Time::ZERO).0 / 4);
        let rtt = self.rack_rtt.or(self.tcb.srtt).unwrap_or(Time::ZERO);
        let (low, timer) = self.board.rack_detect(now, rtt, reo_wnd, cfg.rack);
        if let Some(low) = low {
            self.rxt_cursor = self.rxt_cursor.min(low);
        }
        match timer {
            Some(at) => self.rack.set(at, out),
            None => self.rack.cancel(),
        }
    }

    pub fn on_reorder_timer(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        if !self.rack.fired(now, out) || self.completed_at.is_some() {
            return;
        }
        self.tcb.now = now;
        self.rack_detect(now, cfg, out);
        if self.board.lost_out() > 0
            && (matches!(self.state, CaState::Open | CaState::Disorder) || (self.state == CaState::Cwr && cfg.recovery_from_cwr))
        {
            self.enter_recovery(cfg, 0);
        }
        self.try_send(now, cfg, ends, out);
    }

    /// Arm the tail loss probe (RFC 8985 §7.2, Linux `tcp_schedule_loss_probe`): in Open state
    /// with SACK and no probe outstanding, PTO = 2·SRTT (1.5·SRTT + the worst-case delayed ACK
    /// when one segment is out), at least `tlp_min`; not later than the RTO.
    fn schedule_probe(&mut self, now: Time, cfg: &TcpConfig, out: &mut Outbox) {
        if !cfg.tlp || !cfg.sack || self.state != CaState::Open || self.board.packets_out() == 0 || self.tlp_high.is_some() {
            self.tlp.cancel();
            return;
        }
        let pto = match self.tcb.srtt {
            Some(srtt) => {
                let mut p = srtt + srtt;
                if self.board.packets_out() == 1 {
                    p = p.max(srtt + Time(srtt.0 / 2) + cfg.delack_timeout);
                }
                p.max(cfg.tlp_min)
            }
            None => Time::from_ms(1000),
        };
        let at = now + pto;
        if self.rto.deadline().is_some_and(|r| at >= r) {
            self.tlp.cancel();
            return;
        }
        self.tlp.set(at, out);
    }

    pub fn on_probe_timer(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        if self.tlp.fired(now, out) {
            self.fire_probe(now, cfg, ends, out);
        }
    }

    /// Send the loss probe (RFC 8985 §7.3): a new segment if the receive window allows, else the
    /// highest-sequence segment sent; then restart the RTO.
    fn fire_probe(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        self.tlp.cancel();
        if self.state != CaState::Open || self.board.packets_out() == 0 || self.completed_at.is_some() {
            return;
        }
        self.tcb.now = now;
        let nxt = self.board.nxt();
        let new_ok = self.new_data_allowed();
        let tx = self.tx_state(now);
        if new_ok {
            self.record_new(now, nxt, tx);
            self.tlp_high = Some((nxt + 1, false));
            self.emit(now, nxt, false, cfg, ends, out);
        } else {
            let last = nxt - 1;
            if self.board.is_sacked(last) {
                return;
            }
            self.board.mark_retransmitted(last, now, tx);
            self.stats.retransmits += 1;
            self.tlp_high = Some((nxt, true));
            self.emit(now, last, true, cfg, ends, out);
        }
        self.stats.tlp_probes += 1;
        out.budget = out.budget.saturating_sub(1);
        self.arm_rto(now, out);
    }

    /// The delivery-rate sample of this ACK (draft-cheng §3.3), and the bookkeeping it needs.
    fn rate_sample(&mut self, now: Time, prior_delivered: u64, rtt: Option<Time>) -> RateSample {
        let delivered = self.board.delivered;
        let mut rs = RateSample { acked_sacked: (delivered - prior_delivered) as u32, rtt, ..RateSample::default() };
        // Only congestion controls that own cwnd (and so track rates) read the sample.
        if delivered == prior_delivered || !self.board.track_rate {
            return rs;
        }
        self.delivered_time = now;
        if self.app_limited != 0 && delivered > self.app_limited {
            self.app_limited = 0;
        }
        let Some((sent, p)) = self.board.take_newest_delivered() else { return rs };
        self.first_tx_time = sent;
        let send_elapsed = sent.saturating_sub(p.first_tx);
        let ack_elapsed = now.saturating_sub(p.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        rs.prior_delivered = p.delivered;
        rs.is_app_limited = p.app_limited;
        // Linux tcp_rate_gen: an interval below the minimum RTT is not a valid sample.
        if interval > Time::ZERO && self.tcb.min_rtt.is_none_or(|m| interval >= m) {
            rs.delivered = delivered - p.delivered;
            rs.interval = interval;
        }
        rs
    }

    /// The delivery state to record with a segment being sent now.
    fn tx_state(&mut self, now: Time) -> TxState {
        if self.board.packets_out() == 0 {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        TxState { delivered: self.board.delivered, delivered_time: self.delivered_time, first_tx: self.first_tx_time, app_limited: self.app_limited != 0 }
    }

    pub fn on_pace_timer(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        self.pace.event_seen(now);
        if self.started_at.is_some() && self.completed_at.is_none() {
            self.try_send(now, cfg, ends, out);
        }
    }

    /// Whether an ACK of new data grows cwnd in state `s`: Linux grows in Open, Disorder and Loss;
    /// with `ns2_ecn_growth` also while reducing after ECE (CWR), but not on the first ECE ACK
    /// of a burst (`ns2_ok`), as ns-2's FullTcpAgent::recv does (HKUST-SING/PIAS-NS2,
    /// tcp/tcp-full.cc: `opencwnd()` unless ECE and not `ecn_burst_`).
    fn may_grow_in(&self, s: CaState, cfg: &TcpConfig, ns2_ok: bool) -> bool {
        match s {
            CaState::Open | CaState::Disorder | CaState::Loss => !cfg.ns2_ecn_growth || ns2_ok,
            CaState::Cwr => cfg.ns2_ecn_growth && ns2_ok,
            CaState::Recovery => false,
        }
    }

    /// The reduction an ECE asks for (RFC 3168 §6.1.2): enter CWR and set CWR on the next new
    /// segment (`delivered`: segments the triggering ACK delivered).
    fn ecn_reduce(&mut self, cfg: &TcpConfig, delivered: u64) {
        self.enter_cwr(cfg, delivered);
        self.mark_ecn_reduction();
    }

    /// ns-2's `TcpAgent::ecn()` in a timeout's loss state (`LossExit::Ns2`, tcp/tcp.cc): with
    /// `last_cwnd_action_` the timeout's own, an ECE cuts at once — ssthresh the congestion
    /// control's (DCTCP's (1 − α/2)·cwnd, at least 2), cwnd no more than it — marks the cut ECN
    /// and waits a window for the next (`recover_ = maxseq_`). The loss state goes on: ns-2 has
    /// no CWR state, and its go-back-N from `timeout_action` keeps resending from `t_seqno_`.
    /// Not modelled: ns-2's cwnd floor of 1 and its window rounding down (`window()`), where ours
    /// keeps the congestion control's ssthresh floor of 2: after a timeout at cwnd 2–3 with α = 1
    /// ns-2 sends one segment, ours two. The loss state now ends at snd_nxt of the cut (the
    /// same point as the timeout's unless new data went out before the ECE).
    fn ns2_loss_ecn_cut(&mut self) {
        self.tcb.ssthresh = self.cc_call(|cc, t| cc.ssthresh(t));
        self.tcb.cwnd = self.tcb.cwnd.min(self.tcb.ssthresh);
        self.tcb.cwnd_cnt = 0; // `slowdown` clears `count_`
        self.recovery_point = self.board.nxt();
        self.mark_ecn_reduction();
    }

    /// What every ECN reduction leaves: CWR on the next new segment, the reduction's mark (ns-2's
    /// `last_cwnd_action_` ECN) and its count.
    fn mark_ecn_reduction(&mut self) {
        self.send_cwr = true;
        self.ecn_cut_last = true;
        self.stats.ecn_reductions += 1;
    }

    /// Linux `tcp_enter_cwr`: ssthresh from the congestion control, cwnd reduced to it, until
    /// the data outstanding now is acknowledged — at once, or with `prr` over the round
    /// (`delivered`: segments the ACK that triggers it delivered). From the loss state with
    /// `LossExit::Ns3` ssthresh follows ns-3's rule there, which `TcpDctcp::GetSsThresh`
    /// applies because `EnterCwr` asks before it changes the state: half the flight, at least 2
    /// (ns-3-dev), or the congestion control's own (`loss_state_ssthresh`: DCTCP's cut in ns-3's
    /// releases).
    fn enter_cwr(&mut self, cfg: &TcpConfig, delivered: u64) {
        let pipe = self.board.pipe();
        // From the loss state: the congestion control's rule there if it has one, else half the
        // flight (then PRR counts the half segment an odd flight leaves).
        let (ssthresh, halved) = match self.state {
            CaState::Loss if cfg.loss_exit == LossExit::Ns3 => self.loss_state_ssthresh(),
            _ => (self.cc_call(|cc, t| cc.ssthresh(t)), false),
        };
        self.tcb.ssthresh = ssthresh;
        if cfg.prr && !self.cc.owns_cwnd() {
            // RFC 6937's RecoverFS: the flight when the reduction starts, this ACK's share
            // included (ns-3 TcpPrrRecovery::EnterRecovery: SND.NXT − SND.UNA − SACKed + delivered).
            let fs = self.recover_fs(cfg, delivered);
            // ns-3 counts this ACK's delivery here and again in prr_step (`prr_ns3_entry`).
            let counted = if cfg.prr_ns3_entry { delivered } else { 0 };
            let loss_half = halved && pipe % 2 == 1 && pipe >= 5;
            self.prr = Some(Prr { delivered: counted, out_base: self.stats.segments_sent, recover_fs: fs, loss_half });
        } else if !self.cc.owns_cwnd() {
            self.tcb.cwnd = self.tcb.cwnd.min(self.tcb.ssthresh);
        }
        self.state = CaState::Cwr;
        self.cc_call(|cc, t| cc.set_state(t, CaState::Cwr));
        self.recovery_point = self.board.nxt();
    }

    /// One ACK of a CWR episode under PRR (RFC 6937 §3, ns-3 `TcpPrrRecovery::DoRecovery`):
    /// `delivered` segments newly acknowledged or SACKed; cwnd becomes pipe + what may be sent.
    /// Above ssthresh, sending follows delivery in the ratio ssthresh / RecoverFS; at or below,
    /// the conservative bound (PRR-CRB) lets it catch up to ssthresh, at most as fast as data is
    /// delivered. At least one segment on the episode's first ACK (ns-3 forces one there).
    /// With `bytes` (`TcpConfig::prr_bytes`) the proportional part rounds up in bytes, as ns-3's
    /// `TcpPrrRecovery::DoRecovery` does, and sends the whole segments that fit.
    /// `safe`: a safe ACK (`PrrBound`), which the bound lets send a segment more.
    fn prr_step(&mut self, delivered: u64, safe: bool, cfg: &TcpConfig) {
        let bytes = cfg.prr_bytes;
        let Some(p) = self.prr.as_mut() else { return };
        if delivered == 0 {
            return;
        }
        p.delivered += delivered;
        let pipe = self.board.pipe();
        let ss = self.tcb.ssthresh as u64;
        let sent = self.stats.segments_sent - p.out_base;
        let quota = if pipe > ss && bytes {
            // ⌈delivered·MSS · ss_bytes / (RecoverFS·MSS)⌉ bytes = ⌈delivered · ss_bytes / RecoverFS⌉;
            // ns-3 keeps ssthresh in whole bytes (truncated).
            let mss = self.tcb.mss as u64;
            let frac = if p.loss_half { 0.5 } else { self.cc.ssthresh_fraction() };
            // Whole bytes (DCTCP's byte cut keeps them so): round off the float's noise.
            let ss_bytes = ((ss as f64 + frac) * mss as f64).round() as u64;
            ((p.delivered * ss_bytes).div_ceil(p.recover_fs) / mss).saturating_sub(sent)
        } else if pipe > ss {
            (p.delivered * ss).div_ceil(p.recover_fs).saturating_sub(sent)
        } else {
            let caught_up = p.delivered.saturating_sub(sent).max(delivered);
            let limit = match cfg.prr_bound {
                PrrBound::Crb => caught_up + safe as u64,
                PrrBound::Ns3Ssrb if safe => caught_up + 1,
                PrrBound::Ns3Ssrb => delivered,
            };
            limit.min(ss - pipe)
        };
        let quota = quota.max(if sent > 0 { 0 } else { 1 });
        self.tcb.cwnd = (pipe + quota).min(u32::MAX as u64) as u32;
    }

    /// RFC 6937's RecoverFS when a reduction starts (`delivered`: segments this ACK delivered),
    /// as `TcpConfig::prr_bound`'s ns-3 counts it.
    fn recover_fs(&self, cfg: &TcpConfig, delivered: u64) -> u64 {
        let out = self.board.packets_out();
        match cfg.prr_bound {
            // ns-3-dev TcpPrrRecovery::EnterRecovery: SND.NXT − SND.UNA − SACKed + delivered.
            PrrBound::Crb => out - self.board.sacked_out() + delivered,
            // ns-3.33–3.44: `UnAckDataCount`.
            PrrBound::Ns3Ssrb => out,
        }
        .max(1)
    }

    /// Fast recovery on its first ACK (`delivered` segments; 0 when RACK's timer starts it).
    fn enter_recovery(&mut self, cfg: &TcpConfig, delivered: u64) {
        self.prr = None;
        // A byte window halves by htsim's deflate_window (DCTCP's set_state restarts its count).
        if !self.tcb.bytes_do(ByteWindow::halve) && self.state != CaState::Cwr {
            self.tcb.ssthresh = self.cc_call(|cc, t| cc.ssthresh(t));
        }
        self.state = CaState::Recovery;
        self.cc_call(|cc, t| cc.set_state(t, CaState::Recovery));
        self.recovery_point = self.board.nxt();
        self.ecn_cut_last = false;
        self.stats.fast_recoveries += 1;
        let una = self.board.una();
        self.board.mark_lost(una);
        self.rxt_cursor = una;
        self.rescue_rxt = None;
        self.force_rtx = true;
        self.rtx_entry = true;
        self.tcb.cwnd_cnt = 0;
        if !self.cc.owns_cwnd() && !self.tcb.bytes_do(ByteWindow::enter_recovery) {
            self.tcb.cwnd = if cfg.sack && cfg.prr_recovery {
                // PRR (`TcpConfig::prr_recovery`): this ACK's step (`prr_step`) sets cwnd; until
                // then pipe + the fast retransmit (ns-3 forces one segment while prr_out = 0).
                let fs = self.recover_fs(cfg, delivered);
                self.prr = Some(Prr { delivered: 0, out_base: self.stats.segments_sent, recover_fs: fs, loss_half: false });
                (self.board.pipe() + 1).min(u32::MAX as u64) as u32
            } else if cfg.sack {
                self.tcb.ssthresh // RFC 6675 §5 step 4.2
            } else {
                self.tcb.ssthresh + 3 // RFC 6582 §3.2 step 2 (cwnd inflated by the 3 dupACKs)
            };
        }
    }

    /// htsim's timeout on a byte window (`TcpSrc::doNextEvent`): in fast recovery the window
    /// first leaves it at the flight (`recovery_flight` packets); then `deflate_window` (ssthresh
    /// halves, DCTCP restarts its count) and cwnd is one packet.
    fn byte_window_timeout(&mut self, recovery_flight: Option<u64>) {
        self.tcb.bytes_do(|b| {
            if let Some(flight) = recovery_flight {
                b.exit_recovery(flight * b.seg);
            }
            b.halve();
        });
        self.cc_call(|cc, t| cc.cwnd_event(t, CwndEvent::Loss));
        self.tcb.bytes_do(|b| b.cwnd = b.seg);
    }

    pub fn on_rto_timer(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        if self.rto.fired(now, out) {
            self.fire_rto(now, cfg, ends, out);
        }
    }

    /// RFC 6298 §5.4–5.7 and RFC 5681 §3.1 eq. 4 / Linux `tcp_enter_loss`.
    fn fire_rto(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        self.rto.cancel();
        self.tcb.now = now;
        if !self.established {
            // The SYN (or its SYN-ACK) was lost: resend it, backing off (RFC 6298 §5.5).
            self.stats.timeouts += 1;
            self.syn_resent = true;
            if self.tcb.bytes.is_some() {
                // htsim's timer deflates the window for a lost SYN too (`TcpSrc::doNextEvent`).
                self.byte_window_timeout(None);
            }
            self.rtt.back_off();
            self.send_syn(now, cfg, ends, out);
            self.arm_rto(now, out);
            return;
        }
        if self.board.packets_out() == 0 {
            return;
        }
        self.stats.timeouts += 1;
        self.timeouts_in_row += 1;
        let una = self.board.una();
        // Lower ssthresh once per episode: not again for repeated timeouts of the same data, nor
        // when a reduction for this window is already under way.
        let fresh = matches!(self.state, CaState::Open | CaState::Disorder)
            || una >= self.recovery_point
            || (self.state == CaState::Loss && self.rtt.backoffs() == 0);
        if self.tcb.bytes.is_some() {
            // htsim halves at every timeout (`TcpSrc::doNextEvent`), from fast recovery's exit
            // window when in it; then DCTCP restarts its count (`deflate_window`).
            let recovery_flight = (self.state == CaState::Recovery).then(|| self.board.packets_out());
            self.byte_window_timeout(recovery_flight);
        } else if cfg.timeout_ssthresh == TimeoutSsthresh::Ns2 {
            // ns-2 `FullTcpAgent::timeout_action`: after an ECN reaction ssthresh stays (cwnd 1
            // only), otherwise half the window at every timeout. The congestion control is asked
            // and told as at any timeout, for the state some keep there (H-TCP's last
            // congestion, BBR's saved window); its ssthresh gives way to ns-2's.
            let ssthresh = if self.ecn_cut_last { self.tcb.ssthresh } else { (self.tcb.cwnd / 2).max(2) };
            let _ = self.cc_call(|cc, t| cc.ssthresh(t));
            self.cc_call(|cc, t| cc.cwnd_event(t, CwndEvent::Loss));
            self.tcb.ssthresh = ssthresh;
        } else if cfg.timeout_ssthresh == TimeoutSsthresh::Every {
            // ns-3 (`TimeoutSsthresh::Every`): at every timeout; a repeated one, from the
            // loss state, the congestion control's rule there, or half the flight (before the
            // timeout), at least two segments.
            self.tcb.ssthresh = if self.state == CaState::Loss {
                self.loss_state_ssthresh().0
            } else {
                self.cc_call(|cc, t| cc.ssthresh(t))
            };
            self.cc_call(|cc, t| cc.cwnd_event(t, CwndEvent::Loss));
        } else if fresh {
            self.tcb.ssthresh = self.cc_call(|cc, t| cc.ssthresh(t));
            self.cc_call(|cc, t| cc.cwnd_event(t, CwndEvent::Loss));
        }
        self.tcb.cwnd = 1;
        self.tcb.cwnd_cnt = 0;
        self.state = CaState::Loss;
        self.cc_call(|cc, t| cc.set_state(t, CaState::Loss));
        self.recovery_point = self.board.nxt();
        if cfg.clear_sack_on_timeout {
            self.board.mark_all_lost_forgetting_sacks();
        } else {
            self.board.mark_all_lost();
        }
        self.rack.cancel();
        self.tlp_high = None;
        self.tlp.cancel();
        self.rxt_cursor = una;
        self.rescue_rxt = None;
        self.dupacks = 0;
        self.rtt.back_off();
        if cfg.probe_after > 0 && self.timeouts_in_row >= cfg.probe_after {
            // pFabric §4.2 probe mode: a header-only packet per timeout until one is answered.
            self.probing = true;
            self.stats.probes += 1;
            self.emit_probe(cfg, ends, out);
            self.arm_rto(now, out);
            return;
        }
        if self.board.lost_out() == 0 && self.low.as_deref().is_some_and(LowLoop::sends) {
            // Only segments the low-priority loop delivered are outstanding and the ACK saying
            // so was lost: resend the highest one, whose duplicate the receiver answers at once.
            let last = self.board.nxt() - 1;
            self.stats.retransmits += 1;
            out.budget = out.budget.saturating_sub(1);
            self.emit(now, last, true, cfg, ends, out);
            self.arm_rto(now, out);
            return;
        }
        self.try_send(now, cfg, ends, out);
    }

    fn arm_rto(&mut self, now: Time, out: &mut Outbox) {
        let at = now + self.fixed_rto.unwrap_or_else(|| self.rtt.rto());
        self.rto.set(ticked(at, self.rto_tick), out);
    }

    /// The NIC drained after this sender was blocked.
    pub fn on_send_ready(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        if self.started_at.is_some() && self.completed_at.is_none() {
            // A sender held by a paused NIC is woken by the RESUME (a source timer restarts).
            self.cc.nic_pause(now, false);
            self.try_send(now, cfg, ends, out);
        }
    }

    /// A PFC PAUSE reached this sender's NIC (`[pfc] stop_senders`): an unfinished source whose
    /// congestion control keeps a timer stops it now, not at its next ACK or firing, and waits
    /// for the RESUME's wake (htsim's `HPCCSrc::processPause` tells every source on the NIC).
    pub fn on_nic_paused(&mut self, now: Time, out: &mut Outbox) {
        if self.started_at.is_some() && self.completed_at.is_none() && self.cc.nic_pause(now, true) {
            out.blocked = true;
        }
    }

    /// The next segment NextSeg() (RFC 6675 §4, rules 1, 2 and 4) would send, if any.
    fn next_segment(&mut self, now: Time, cfg: &TcpConfig) -> Option<(u64, bool)> {
        if let Some(seg) = self.board.next_lost(self.rxt_cursor) {
            return Some((seg, true));
        }
        if self.low.is_some() {
            self.skip_delivered(now);
        }
        self.rxt_cursor = self.rxt_cursor.max(self.board.nxt());
        let nxt = self.board.nxt();
        if self.new_data_allowed() {
            if !self.app_ready_at(nxt, cfg).is_some_and(|t| t > now) {
                return Some((nxt, false));
            }
        }
        if cfg.sack && self.state == CaState::Recovery && cfg.next_seg_ns3 {
            // ns-3.32–3.42's NextSeg rule 3, and no rescue (`TcpConfig::next_seg_ns3`).
            return self.board.first_unmarked().map(|seg| (seg, true));
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

    /// When an application writing at `app_rate` from the flow's start has written all of
    /// segment `seg` (`None`: no rate, the data is all there).
    #[inline]
    fn app_ready_at(&self, seg: u64, cfg: &TcpConfig) -> Option<Time> {
        let (rate, start) = (cfg.app_rate?, self.started_at?);
        let end = self.seg_start(seg) + self.layout.next_len(seg, self.tcb.seg_size);
        Some(start + rate.serialization(end))
    }

    /// The normal loop's next new segments that the low-priority loop already got delivered are
    /// skipped (recorded, not sent): no byte goes twice where one delivery is known.
    fn skip_delivered(&mut self, now: Time) {
        let Some(mut low) = self.low.take() else { return };
        let before = self.board.nxt();
        while self.layout.has_data_at(self.board.nxt()) && low.is_delivered(self.board.nxt()) {
            let tx = self.tx_state(now);
            self.board.push_skipped(now, tx);
            low.stats.skipped += 1;
        }
        if self.board.nxt() != before {
            self.tcb.snd_nxt = self.seg_start(self.board.nxt());
        }
        self.low = Some(low);
    }

    /// ssthresh for a reduction that starts in the loss state under ns-3's rules: the congestion
    /// control's (`loss_state_ssthresh`), else half the flight, at least two segments; and
    /// whether it was halved (PRR then counts the half segment an odd flight leaves).
    fn loss_state_ssthresh(&mut self) -> (u32, bool) {
        match self.cc_call(|cc, t| cc.loss_state_ssthresh(t)) {
            Some(ss) => (ss, false),
            None => ((self.board.pipe() / 2).max(2).min(u32::MAX as u64) as u32, true),
        }
    }

    /// Segment `seg` (snd_nxt's) goes out for the first time: on the board, cut, snd_nxt past it.
    #[inline]
    fn record_new(&mut self, now: Time, seg: u64, tx: TxState) {
        self.board.push_new(now, tx);
        self.layout.cut(seg, self.tcb.seg_size);
        self.tcb.snd_nxt = self.seg_start(seg + 1);
    }

    /// A forced retransmission of `seg`, outside the window.
    fn resend_now(&mut self, now: Time, seg: u64, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        let tx = self.tx_state(now);
        self.board.mark_retransmitted(seg, now, tx);
        self.stats.retransmits += 1;
        out.budget -= 1;
        self.emit(now, seg, true, cfg, ends, out);
    }

    /// Send whatever the window, the receive window and the NIC allow: lost segments first, then
    /// new data, then (SACK recovery only) one rescue retransmission.
    fn try_send(&mut self, now: Time, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        if !self.established || self.probing {
            return;
        }
        if out.nic_queued == crate::host::HELD && self.cc.nic_pause(now, true) {
            // PFC paused the NIC (`[pfc] stop_senders`) and the source's timer stops: woken by
            // the RESUME, which restarts it, whether or not the window lets a packet out.
            out.blocked = true;
        }
        if self.force_rtx && out.budget > 0 {
            self.force_rtx = false;
            let entry = std::mem::take(&mut self.rtx_entry);
            // ns-3 (`TcpConfig::fast_rtx_head`): fast recovery resends snd_una's segment, a
            // retransmission of it already out staying counted in flight.
            let una = self.board.una();
            let head_ok = cfg.sack && self.state == CaState::Recovery && una < self.board.nxt() && !self.board.is_sacked(una);
            let head = (cfg.fast_rtx_head && entry && head_ok).then_some(una);
            if let Some(seg) = head.or_else(|| self.board.next_lost(self.rxt_cursor)) {
                self.rxt_cursor = self.rxt_cursor.max(seg + 1);
                self.resend_now(now, seg, cfg, ends, out);
            } else if cfg.partial_ack_ns3 && cfg.sack && self.state == CaState::Recovery {
                // ns-3's `DoRetransmit` on a partial ACK: `NextSeg`'s new data when nothing lost
                // waits (`TcpConfig::partial_ack_ns3`), whatever the window.
                let seg = self.board.nxt();
                if self.new_data_allowed() && !self.app_ready_at(seg, cfg).is_some_and(|t| t > now) {
                    let tx = self.tx_state(now);
                    self.record_new(now, seg, tx);
                    out.budget -= 1;
                    self.emit(now, seg, false, cfg, ends, out);
                } else if head_ok {
                    // `NextSeg` found nothing: "re-send again the head".
                    self.resend_now(now, una, cfg, ends, out);
                }
            }
        }
        loop {
            let mut cwnd = self.tcb.cwnd as u64;
            let mut flight = self.board.pipe();
            if self.tcb.bytes.is_none() {
                match (cfg.limited_transmit, self.state) {
                    // ns-2's FullTcp: outside fast recovery (`pipectrl_` off) everything from
                    // snd_una to snd_nxt counts, SACKed or not.
                    (LimitedTransmit::None, CaState::Disorder | CaState::Cwr) => flight = self.board.nxt() - self.board.una(),
                    // With `limited_transmit = "pipe"` and SACK, only the pipe (RFC 6675 §5 (C),
                    // ns-3's `DupAck`).
                    (LimitedTransmit::Pipe, CaState::Disorder) if cfg.sack => {}
                    // RFC 3042 limited transmit (htsim has none).
                    (LimitedTransmit::Rfc3042 | LimitedTransmit::Pipe, CaState::Disorder) => cwnd += self.dupacks.min(2) as u64,
                    _ => {}
                }
            }
            if flight >= cwnd {
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
            if self.tcb.pacing_rate.is_some() {
                // Paced (and, for an algorithm with a send timer of its own, on its tick).
                let at = self.cc.send_tick(now, self.next_send_at.max(now));
                if now < at {
                    // Come back when the next packet may leave.
                    self.pace.arm(at, out);
                    self.tcb.cwnd_limited = false;
                    break;
                }
            }
            let Some((seg, retransmission)) = self.next_segment(now, cfg) else {
                let nxt = self.board.nxt();
                if let Some(t) = self.app_ready_at(nxt, cfg).filter(|&t| t > now && self.new_data_allowed()) {
                    // The application has not written the next segment yet: come back then.
                    self.pace.arm(t, out);
                }
                self.tcb.cwnd_limited = false;
                // Nothing to send and not cwnd-limited: application-limited (draft-cheng §3.4).
                self.app_limited = (self.board.delivered + self.board.packets_out()).max(1);
                break;
            };
            let tx = self.tx_state(now);
            if retransmission {
                self.rxt_cursor = self.rxt_cursor.max(seg + 1).min(self.board.nxt());
                self.board.mark_retransmitted(seg, now, tx);
                self.stats.retransmits += 1;
            } else {
                self.record_new(now, seg, tx);
            }
            out.budget -= 1;
            if let Some(rate) = self.tcb.pacing_rate.filter(|r| *r > 0.0) {
                // Pacing rate is in segments per second.
                let gap = Time((Time::S as f64 / rate).ceil() as u64);
                self.next_send_at = self.next_send_at.max(now) + gap;
            }
            self.emit(now, seg, retransmission, cfg, ends, out);
        }
        if self.board.packets_out() > 0 && !self.rto.is_set() {
            self.arm_rto(now, out);
        }
        if self.low.is_some() {
            self.lcp_send(now, cfg, ends, out);
        }
    }

    fn emit(&mut self, _now: Time, seg: u64, retransmission: bool, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        let len = self.layout.len(seg) as u32;
        let ecn = match cfg.ecn {
            EcnMode::Off => Ecn::NotEct,
            EcnMode::Classic if retransmission => Ecn::NotEct, // RFC 3168 §6.1.5
            _ => Ecn::Ect0,
        };
        let cwr = std::mem::take(&mut self.send_cwr);
        if cfg.dctcp_echo_ns3 && !retransmission {
            self.ns3_ecn.on_new_data(self.seg_start(seg));
        }
        let ends_write = self.layout.ends_written(seg);
        self.stats.segments_sent += 1;
        let mut p = Packet::new(
            ends.flow,
            ends.src,
            ends.dst,
            len + cfg.header,
            Kind::Data,
            ends.hash_fwd,
            Header::Tcp(TcpHeader {
                seq: self.seg_start(seg),
                len,
                cwr,
                fin: self.closed && ends_write,
                psh: ends_write,
                // SAB §IV-A.1: data carries the largest window value (0xffff) for switches to lower.
                rwnd: if cfg.cc.sets_window_field() { u32::MAX } else { 0 },
                ..TcpHeader::default()
            }),
        );
        p.ecn = ecn;
        p.class = self.data_class(self.seg_start(seg), cfg);
        if let Some(low) = self.low.as_deref_mut() {
            p.class = low.class(false, cfg.ppt.sched, &ppt_thresholds(cfg), cfg.class, seg, cfg.initial_cwnd as u64);
            low.sent_bytes += len as u64;
        }
        if cfg.rank_remaining {
            // pFabric: the flow's remaining size from this packet on (long-lived flows: last).
            p.rank = self.tcb.flow_size.map_or(u64::MAX, |s| s.saturating_sub(self.seg_start(seg)));
        }
        if cfg.telemetry {
            p.int = if cfg.int_at_end { crate::packet::Int::CollectAtEnd } else { crate::packet::Int::Collect };
        }
        out.packets.push(p);
    }

    /// The class of a data packet starting at byte `start` (`priority.rs`).
    fn data_class(&mut self, start: u64, cfg: &TcpConfig) -> u8 {
        match cfg.priority {
            Priority::Fixed => cfg.class,
            Priority::Mlfq { n, thresholds } => Priority::mlfq_class(n, &thresholds, start),
            Priority::Flash { n, t1, e, aware } => {
                if start >= self.class_until {
                    // Flash §3.2.1: the priority is set each time a new window of packets starts.
                    let alpha = self.cc.alpha().unwrap_or(0.0);
                    let bytes = if aware { self.tcb.flow_size.map_or(u64::MAX, |s| s.saturating_sub(start)) } else { start };
                    self.class = Priority::flash_class(n, t1, e, Priority::flash_w(bytes, alpha));
                    self.class_until = start + self.tcb.cwnd as u64 * cfg.mss as u64;
                }
                self.class
            }
        }
    }

    /// A probe: a data packet without payload at snd_una, which the receiver answers with an ACK.
    fn emit_probe(&mut self, cfg: &TcpConfig, ends: &Endpoints, out: &mut Outbox) {
        let seq = self.tcb.snd_una;
        let mut p = Packet::new(ends.flow, ends.src, ends.dst, cfg.header, Kind::Data, ends.hash_fwd, Header::Tcp(TcpHeader { seq, len: 0, ..TcpHeader::default() }));
        p.class = self.class;
        if cfg.rank_remaining {
            p.rank = self.tcb.flow_size.map_or(u64::MAX, |s| s.saturating_sub(seq));
        }
        out.packets.push(p);
    }
}

/// PPT's demotion thresholds for unidentified flows (P0 → P1 → P2 → P3 by bytes sent, §4.1
/// "PPT fall-back to PIAS"): the first three of the `pias_thresholds` set when the profile has
/// one, else of PIAS's published web-search set for load 0.5 (the paper gives no values).
#[inline]
pub fn ppt_thresholds(cfg: &TcpConfig) -> [u64; 3] {
    match cfg.priority {
        Priority::Mlfq { thresholds: t, .. } => [t[0], t[1], t[2]],
        _ => PPT_THRESHOLDS,
    }
}

/// The first three of PIAS's web-search thresholds for load 0.5, bytes (`priority.rs`).
pub const PPT_THRESHOLDS: [u64; 3] = [1059 * 1460, 1412 * 1460, 1643 * 1460];

/// When a timeout due at `deadline` fires on a timer scanned every `tick` (0: at the deadline),
/// as htsim's `TcpRtxTimerScanner` runs it (sim/tcp.cpp: scans at every multiple of the period
/// check `now > deadline`; `TcpSrc::rtx_timer_hook` then acts after (period − too_late)/200, too_late
/// the scan's lateness, a spread of up to period/200 that it keeps "to keep randomness").
pub fn ticked(deadline: Time, tick: Time) -> Time {
    if tick == Time::ZERO {
        return deadline;
    }
    let scan = (deadline.0 / tick.0 + 1) * tick.0; // the first scan strictly after the deadline
    let late = scan - deadline.0;
    Time(scan + (tick.0 - late) / 200)
}

/// Proportional Rate Reduction during one CWR episode (RFC 6937; `TcpConfig::prr`), in segments.
#[derive(Clone, Copy, Debug)]
struct Prr {
    /// prr_delivered: segments delivered (acknowledged or SACKed) since the episode began.
    delivered: u64,
    /// `stats.segments_sent` when it began (prr_out = the difference).
    out_base: u64,
    /// RecoverFS: the flight at the start.
    recover_fs: u64,
    /// The reduction halved an odd flight of five or more from the loss state: ns-3's ssthresh
    /// (bytes in flight / 2) is half a segment above ours, which PRR in bytes counts.
    loss_half: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId};

    fn ends() -> Endpoints {
        Endpoints { flow: FlowId(0), src: NodeId(0), dst: NodeId(1), hash_fwd: 0, hash_rev: 1 }
    }

    fn cfg(sack: bool) -> TcpConfig {
        TcpConfig { mss: 1000, sack, initial_cwnd: 10, ..TcpConfig::default() }
    }

    fn ack(n: u64, sack: &[(u64, u64)]) -> TcpHeader {
        let mut h = TcpHeader { ack: n, rwnd: u32::MAX, ..TcpHeader::default() };
        for (i, &b) in sack.iter().enumerate() {
            h.sack[i] = b;
        }
        h.sack_count = sack.len() as u8;
        h
    }

    fn started(c: &TcpConfig) -> (Sender, Outbox) {
        let mut s = Sender::new(c, Some(100_000), 0);
        let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
        s.start(Time(0), c, &ends(), &mut out);
        assert_eq!(out.packets.len(), 10, "the initial window");
        (s, out)
    }

    fn seqs(out: &Outbox) -> Vec<u64> {
        out.packets.iter().map(|p| p.tcp().seq / 1000).collect()
    }

    #[test]
    fn newreno_three_dupacks_retransmit_and_inflate() {
        // RFC 6582 §3.2: ssthresh = max(cwnd/2, 2) = 5 (Linux form), cwnd = ssthresh + 3.
        let c = cfg(false);
        let (mut s, mut out) = started(&c);
        out.clear();
        for _ in 0..3 {
            s.on_ack(Time(1), &ack(0, &[]), &c, &ends(), &mut out);
        }
        assert_eq!(s.state(), CaState::Recovery);
        assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (5, 8));
        // Limited transmit sent segments 10 and 11 on the first two dupACKs; then the fast
        // retransmission of segment 0.
        assert_eq!(seqs(&out), vec![10, 11, 0]);
    }

    #[test]
    fn old_acks_are_not_duplicates() {
        let c = cfg(false);
        let (mut s, mut out) = started(&c);
        s.on_ack(Time(1), &ack(5000, &[]), &c, &ends(), &mut out);
        for _ in 0..5 {
            s.on_ack(Time(2), &ack(3000, &[]), &c, &ends(), &mut out);
        }
        assert_eq!(s.state(), CaState::Open);
        assert_eq!(s.stats.fast_recoveries, 0);
    }

    #[test]
    fn sack_recovery_sets_cwnd_to_ssthresh_and_resends_only_the_hole() {
        // Segment 0 lost; segments 1..4 SACKed one by one. After the 3rd SACKed segment, IsLost(0)
        // holds (3 x 1000 B > 2 x MSS): enter recovery with cwnd = ssthresh = 5 (RFC 6675 §5).
        let c = cfg(true);
        let (mut s, mut out) = started(&c);
        out.clear();
        for k in 1..=3u64 {
            s.on_ack(Time(k), &ack(0, &[(1000, 1000 * (k + 1))]), &c, &ends(), &mut out);
        }
        assert_eq!(s.state(), CaState::Recovery);
        assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (5, 5));
        assert_eq!(s.scoreboard().sacked_out(), 3);
        let rtx: Vec<_> = out.packets.iter().filter(|p| p.tcp().seq == 0).collect();
        assert_eq!(rtx.len(), 1, "segment 0 is retransmitted exactly once");
        // The full ACK ends recovery with cwnd = ssthresh.
        out.clear();
        let high = s.scoreboard().nxt() * 1000;
        s.on_ack(Time(10), &ack(high, &[]), &c, &ends(), &mut out);
        assert_eq!(s.state(), CaState::Open);
        assert_eq!(s.tcb.cwnd, 5);
    }

    #[test]
    fn ece_reduces_once_per_window() {
        let c = TcpConfig { ecn: EcnMode::Classic, ..cfg(true) };
        let (mut s, mut out) = started(&c);
        let mut h = ack(1000, &[]);
        h.ece = true;
        s.on_ack(Time(1), &h, &c, &ends(), &mut out);
        assert_eq!((s.state(), s.tcb.cwnd, s.stats.ecn_reductions), (CaState::Cwr, 5, 1));
        // More ECE within the same window: no further reduction.
        for k in 2..=6 {
            let mut h = ack(k * 1000, &[]);
            h.ece = true;
            s.on_ack(Time(k), &h, &c, &ends(), &mut out);
        }
        assert_eq!((s.tcb.cwnd, s.stats.ecn_reductions), (5, 1));
        // ACK 6000 left 4 of 5 in flight: one new segment went out, carrying CWR.
        // The next data segment carries CWR (RFC 3168 §6.1.2), exactly once.
        let cwr: Vec<_> = out.packets.iter().filter(|p| p.tcp().cwr).collect();
        assert_eq!(cwr.len(), 1);
    }

    /// htsim's DCTCP incast flow (`window = "htsim_bytes"`): 9000 B on the wire, IW and
    /// ssthresh 10, no SACK, htsim's DCTCP rules, α₀ = 0.
    fn htsim_bytes_dctcp() -> TcpConfig {
        let mut knobs = crate::transport::tcp::cc::Knobs::default();
        knobs.0[1] = Some(0.0); // initial_alpha
        knobs.0[2] = Some(1.0); // window_cut
        knobs.0[4] = Some(1.0); // ack_window
        knobs.0[5] = Some(0.0); // cwr_on_ece
        let base = TcpConfig { mss: 8948, header: 52, initial_ssthresh: 10, handshake: true, rack: false, tlp: false, ..cfg(false) };
        TcpConfig { ecn: EcnMode::Dctcp, cc: CcKind::Dctcp, cc_params: knobs, htsim_bytes: true, ..base }
    }

    #[test]
    fn htsim_bytes_window_follows_htsims_trace_of_an_incast_flow() {
        // htsim's tcp_407 in its DCTCP incast (printed by a scratch copy, docs/VALIDATION.md), each
        // value worked by hand from TcpSrc::inflate_window and DCTCPSrc::receivePacket (9000 B):
        // the SYN-ACK grows 90000 B by 9000²/90000 = 900 (cwnd = ssthresh: avoidance), so 10 go
        // out; nothing is acknowledged and the timeout halves 90900 to ssthresh 45450, cwnd 9000.
        let c = htsim_bytes_dctcp();
        let mut s = Sender::new(&c, Some(51 * 8948), 0);
        let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
        s.start(Time::from_ms(80), &c, &ends(), &mut out);
        out.clear();
        s.on_syn_ack(Time::from_ms(80) + Time::from_us(18), &c, &ends(), &mut out);
        assert_eq!((s.tcb.bytes.unwrap().cwnd, out.packets.len()), (90900, 10));
        let t0 = Time::from_us(330_500);
        s.fire_rto(t0, &c, &ends(), &mut out);
        let b = s.tcb.bytes.unwrap();
        assert_eq!((b.cwnd, b.ssthresh, s.board.packets_out() - s.board.lost_out() + s.board.retrans_out()), (9000, 45450, 1));
        // The restart: the first ACK in slow start (+9000), then every ACK marked: ssthresh falls
        // to 18000 and each ACK, the window full, adds ⌊9000² / cwnd⌋; the 11th ACK ends DCTCP's
        // window of 90900 B (11 × 9000 ≥ 90900, counted from the timeout), α = (10/11)/16, the
        // cut ⌊43096 · (1 − α/2)⌋ = 41871, then that ACK's growth + 1934. Packets out after
        // each ACK: ⌊cwnd / 9000⌋, as htsim's highest_sent − last_acked.
        let cwnds = [18000, 22500, 26100, 29203, 31976, 34509, 36856, 39053, 41127, 43096, 43805];
        let flights = [2, 2, 2, 3, 3, 3, 4, 4, 4, 4, 4];
        for k in 1..=11u64 {
            let h = TcpHeader { ece: k >= 2, ..ack(k * 8948, &[]) };
            s.on_ack(t0 + Time::from_us(k), &h, &c, &ends(), &mut out);
            let b = s.tcb.bytes.unwrap();
            assert_eq!((b.cwnd, s.board.pipe()), (cwnds[k as usize - 1], flights[k as usize - 1]), "ACK {k}");
            assert_eq!(s.tcb.cwnd as u64, b.cwnd / 9000);
        }
        assert_eq!((s.tcb.bytes.unwrap().ssthresh, s.cc.alpha()), (41871, Some(10.0 / 11.0 / 16.0)));
        // The same restart in whole segments: 2 after the first ACK, then 2 + 1/2 → 3 at the
        // third ACK (Reno's count), where htsim's is 2.9 packets.
        let seg = TcpConfig { htsim_bytes: false, ..c };
        let mut w = Sender::new(&seg, Some(51 * 8948), 0);
        w.start(Time::from_ms(80), &seg, &ends(), &mut out);
        w.on_syn_ack(Time::from_ms(80) + Time::from_us(18), &seg, &ends(), &mut out);
        w.fire_rto(t0, &seg, &ends(), &mut out);
        for k in 1..=3u64 {
            w.on_ack(t0 + Time::from_us(k), &TcpHeader { ece: k >= 2, ..ack(k * 8948, &[]) }, &seg, &ends(), &mut out);
        }
        assert_eq!(w.tcb.cwnd, 3);
    }

    #[test]
    fn htsim_bytes_a_lost_syn_deflates_the_window() {
        // htsim's TcpSrc::doNextEvent for a lost SYN (9000 B, IW 10): deflate_window halves
        // 90000 B to ssthresh 45000 and DCTCP's count restarts from 90000 B; cwnd = 9000. The
        // SYN-ACK then grows it by its free room, 9000 (slow start): 18000 B, two packets out.
        let c = htsim_bytes_dctcp();
        let mut s = Sender::new(&c, Some(51 * 8948), 0);
        let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
        s.start(Time::from_ms(80), &c, &ends(), &mut out);
        s.fire_rto(Time::from_ms(330), &c, &ends(), &mut out);
        out.clear();
        s.on_syn_ack(Time::from_ms(331), &c, &ends(), &mut out);
        let b = s.tcb.bytes.unwrap();
        assert_eq!((b.cwnd, b.ssthresh, out.packets.len()), (18000, 45000, 2));
        // DCTCP's window of ACKs ends at 90000 B, counted from the timeout (with the window
        // started at the SYN-ACK it would be two packets): the SYN-ACK (unmarked) and eight marked
        // ACKs do not close it; the ninth does (10 × 9000 ≥ 90000), α = (9/10)/16.
        for k in 1..=10u64 {
            let h = TcpHeader { ece: true, ..ack(k * 8948, &[]) };
            s.on_ack(Time::from_ms(331) + Time::from_us(k), &h, &c, &ends(), &mut out);
            assert_eq!(s.cc.alpha(), Some(if k < 9 { 0.0 } else { 9.0 / 10.0 / 16.0 }), "ACK {k}");
        }
    }

    #[test]
    fn htsims_extra_segment_is_sent_but_not_waited_for() {
        // htsim's set_flowsize(2000) makes _flow_size 3000 (mss 1000): send_packets sends while
        // highest_sent <= 3001, so four packets (to 4001), and the flow is finished at the ACK of
        // 3000, the third. Mapped as a flow of 4 segments with extra_segment (here a last one of
        // 500 B: the extra is the last segment, whatever its size): it sends all four and
        // completes at the ACK of the first three; without, at the fourth's.
        for extra in [false, true] {
            let c = TcpConfig { extra_segment: extra, ..cfg(false) };
            let mut s = Sender::new(&c, Some(3500), 0);
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.start(Time(0), &c, &ends(), &mut out);
            assert_eq!(seqs(&out), vec![0, 1, 2, 3]);
            s.on_ack(Time(5), &ack(2000, &[]), &c, &ends(), &mut out);
            assert_eq!(s.completed_at(), None);
            s.on_ack(Time(6), &ack(3000, &[]), &c, &ends(), &mut out);
            assert_eq!(s.completed_at(), extra.then_some(Time(6)));
            s.on_ack(Time(7), &ack(3500, &[]), &c, &ends(), &mut out);
            assert_eq!(s.completed_at(), Some(Time(if extra { 6 } else { 7 })));
        }
    }

    #[test]
    fn htsim_bytes_fast_recovery_has_no_limited_transmit_and_exits_at_the_flight() {
        // htsim's TcpSrc (NewReno, no ECN), 9000 B, ten out. Two duplicate ACKs send nothing
        // (no RFC 3042); the third halves 90000 B to ssthresh 45000, cwnd 45000 + 27000 = 72000
        // and resends segment 0; a 4th: 81000; a partial ACK of 3 packets: 81000 − 27000 + 9000
        // = 63000, resending segment 3; the full ACK with nothing out: min(45000, 0 + 9000).
        let c = TcpConfig { mss: 8948, header: 52, rack: false, tlp: false, htsim_bytes: true, ..cfg(false) };
        let (mut s, mut out) = started(&c);
        out.clear();
        let dup = ack(0, &[]);
        for _ in 0..2 {
            s.on_ack(Time(1), &dup, &c, &ends(), &mut out);
        }
        assert!(out.packets.is_empty(), "no limited transmit");
        s.on_ack(Time(2), &dup, &c, &ends(), &mut out);
        let b = s.tcb.bytes.unwrap();
        assert_eq!((s.state(), b.ssthresh, b.cwnd, seqs(&out)), (CaState::Recovery, 45000, 72000, vec![0]));
        s.on_ack(Time(3), &dup, &c, &ends(), &mut out);
        assert_eq!(s.tcb.bytes.unwrap().cwnd, 81000);
        out.clear();
        s.on_ack(Time(4), &ack(3 * 8948, &[]), &c, &ends(), &mut out);
        assert_eq!((s.tcb.bytes.unwrap().cwnd, s.tcb.cwnd), (63000, 7));
        assert_eq!(out.packets[0].tcp().seq, 3 * 8948);
        s.on_ack(Time(5), &ack(10 * 8948, &[]), &c, &ends(), &mut out);
        assert_eq!((s.state(), s.tcb.bytes.unwrap().cwnd, s.tcb.cwnd), (CaState::Open, 9000, 1));
    }

    #[test]
    fn dctcp_without_cwr_on_ece_keeps_growing_on_marked_acks() {
        // htsim's TcpSrc grows on every new ACK outside fast recovery: with cwr_on_ece = 0 an ECE
        // only lowers ssthresh to cwnd, before the ACK grows the window (DCTCPSrc::receivePacket
        // runs ahead of TcpSrc's): cwnd 10, ssthresh 100, six ACKs with ECE -> ssthresh 10 on the
        // first, and each of the six counts towards congestion avoidance's +1 (after 10): cwnd 10,
        // 6 counted, still Open. With the default a CWR episode starts instead (no cut: α = 0 and
        // window_cut; growth held for the window).
        let mut knobs = crate::transport::tcp::cc::Knobs::default();
        knobs.0[1] = Some(0.0); // initial_alpha
        knobs.0[2] = Some(1.0); // window_cut
        knobs.0[5] = Some(0.0); // cwr_on_ece
        let c = TcpConfig {
            ecn: EcnMode::Dctcp,
            cc: CcKind::Dctcp,
            cc_params: knobs,
            initial_ssthresh: 100,
            ..cfg(true)
        };
        let (mut s, mut out) = started(&c);
        for k in 1..=6 {
            let mut h = ack(k * 1000, &[]);
            h.ece = true;
            s.on_ack(Time(k), &h, &c, &ends(), &mut out);
        }
        assert_eq!((s.state(), s.tcb.ssthresh, s.stats.ecn_reductions), (CaState::Open, 10, 0));
        assert_eq!((s.tcb.cwnd, s.tcb.cwnd_cnt), (10, 6));
        let mut held = c.clone();
        held.cc_params.0[5] = None;
        let (mut s, mut out) = started(&held);
        let mut h = ack(1000, &[]);
        h.ece = true;
        s.on_ack(Time(1), &h, &held, &ends(), &mut out);
        assert_eq!((s.state(), s.stats.ecn_reductions), (CaState::Cwr, 1));
    }

    #[test]
    fn prr_spreads_the_cwr_reduction_over_the_round() {
        // Ten segments out (cwnd 10), ACK 1000 carries ECE: ssthresh = 5 (Reno), RecoverFS = 9
        // out + the 1 this ACK delivered = 10. RFC 6937 while pipe > ssthresh: after the k-th
        // ACK, sent = ⌈5k / 10⌉ in all — one new segment on ACKs 1, 3, 5, 7 (the first forced, as
        // ns-3 does). At ACK 9 pipe has fallen to ssthresh (segments 9..13 out), where the
        // conservative bound allows ssthresh − pipe = 0. ACK 10000 ends the round: cwnd =
        // ssthresh = 5, and segment 14 fills it. Cut at once instead, nothing leaves until pipe
        // drops below 5: ACKs 6 to 10 send one each.
        let per_ack = |prr: bool| {
            let c = TcpConfig { ecn: EcnMode::Classic, prr, ..cfg(true) };
            let (mut s, mut out) = started(&c);
            let mut sent = Vec::new();
            for k in 1..=10u64 {
                out.clear();
                let mut h = ack(k * 1000, &[]);
                h.ece = k == 1;
                s.on_ack(Time(k), &h, &c, &ends(), &mut out);
                sent.push(seqs(&out));
            }
            assert_eq!((s.state(), s.tcb.cwnd, s.tcb.ssthresh), (CaState::Open, 5, 5));
            sent
        };
        let e = Vec::<u64>::new;
        assert_eq!(per_ack(true), vec![vec![10], e(), vec![11], e(), vec![12], e(), vec![13], e(), e(), vec![14]]);
        assert_eq!(per_ack(false), vec![e(), e(), e(), e(), e(), vec![10], vec![11], vec![12], vec![13], vec![14]]);
    }

    #[test]
    fn ns3s_cwr_ends_only_beyond_the_recovery_point() {
        // As above: ten segments out, ACK 1000 with ECE enters CWR (ssthresh 5, recovery point
        // 10), PRR sends 10, 11, 12, 13 on ACKs 1, 3, 5, 7. ACK 10000, exactly the recovery
        // point, carries ECE too. Ending CWR there (`at`): cwnd = ssthresh = 5, and the ECE
        // starts a second reduction at once: ssthresh = 5 / 2 = 2. ns-3 (`beyond`: ReceivedAck's
        // `ackNumber > m_recover`) stays in CWR: no second reduction; PRR-CRB with pipe 4 (10..13)
        // ≤ 5: min(max(10 delivered − 4 sent, 1), 5 − 4) = 1, segment 14. ACK 11000 (no ECE)
        // goes beyond and ends it: cwnd = ssthresh = 5, the one reduction.
        let run = |beyond: bool| {
            let c = TcpConfig { ecn: EcnMode::Classic, prr: true, ns3_cwr_exit: beyond, ..cfg(true) };
            let (mut s, mut out) = started(&c);
            for k in 1..=10u64 {
                out.clear();
                let mut h = ack(k * 1000, &[]);
                h.ece = k == 1 || k == 10;
                s.on_ack(Time(k), &h, &c, &ends(), &mut out);
            }
            (s, out, c)
        };
        let (s, _, _) = run(false);
        assert_eq!((s.state(), s.tcb.ssthresh, s.stats.ecn_reductions), (CaState::Cwr, 2, 2));
        let (mut s, mut out, c) = run(true);
        assert_eq!((s.state(), s.tcb.ssthresh, s.stats.ecn_reductions, seqs(&out)), (CaState::Cwr, 5, 1, vec![14]));
        out.clear();
        s.on_ack(Time(11), &ack(11_000, &[]), &c, &ends(), &mut out);
        assert_eq!((s.state(), s.tcb.cwnd, s.stats.ecn_reductions), (CaState::Open, 5, 1));
    }

    #[test]
    fn with_ns3s_echo_ece_counts_only_on_an_ack_that_advances() {
        // ns-3's ReceivedAck reads ECE only when the ACK advances snd_una: a duplicate ACK(0)
        // with ECE leaves the sender open; ACK(1000) with ECE then reduces. By default the
        // duplicate's ECE reduces at once.
        let state_after_dup = |ns3: bool| {
            let c = TcpConfig { ecn: EcnMode::Dctcp, dctcp_echo_ns3: ns3, ..cfg(true) };
            let (mut s, mut out) = started(&c);
            let mut h = ack(0, &[]);
            h.ece = true;
            s.on_ack(Time(1), &h, &c, &ends(), &mut out);
            let dup = (s.state(), s.stats.ecn_reductions);
            let mut h = ack(1000, &[]);
            h.ece = true;
            s.on_ack(Time(2), &h, &c, &ends(), &mut out);
            (dup, s.stats.ecn_reductions)
        };
        assert_eq!(state_after_dup(true), ((CaState::Open, 0), 1));
        assert_eq!(state_after_dup(false), ((CaState::Cwr, 1), 1));
    }

    #[test]
    fn with_ns3s_echo_dctcp_counts_a_segment_per_duplicate_ack() {
        // ns-3's ProcessAck calls PktsAcked(1) on a duplicate ACK, which TcpDctcp adds to α's
        // total (ns3_ecn.rs). After ACK(1000) (α set to 0; the window ends at 10 000): two
        // duplicates ACK(1000), ACK(3000) with ECE, ACK(10000). F = 2000 / (2000 + 2000 + 7000)
        // = 2/11 with ns-3's counting, 2000 / 9000 = 2/9 without; α = F/16.
        let alpha = |ns3: bool| {
            let c = TcpConfig { ecn: EcnMode::Dctcp, cc: CcKind::Dctcp, dctcp_echo_ns3: ns3, ..cfg(true) };
            let (mut s, mut out) = started(&c);
            s.on_ack(Time(1), &ack(1000, &[]), &c, &ends(), &mut out);
            s.cc.set_alpha(0.0);
            for t in 2..4 {
                s.on_ack(Time(t), &ack(1000, &[]), &c, &ends(), &mut out);
            }
            let mut h = ack(3000, &[]);
            h.ece = true;
            s.on_ack(Time(4), &h, &c, &ends(), &mut out);
            s.on_ack(Time(5), &ack(10_000, &[]), &c, &ends(), &mut out);
            s.cc.alpha().unwrap()
        };
        assert!((alpha(true) - 2.0 / 11.0 / 16.0).abs() < 1e-12, "{}", alpha(true));
        assert!((alpha(false) - 2.0 / 9.0 / 16.0).abs() < 1e-12, "{}", alpha(false));
    }

    #[test]
    fn prr_catches_up_to_ssthresh_no_faster_than_delivery() {
        // PRR-CRB (RFC 6937 §3): once pipe is below ssthresh, an ACK may send what delivery has
        // earned beyond what the round sent (at least what it delivered), up to ssthresh − pipe.
        // ACK 1000 with ECE: ssthresh 5, segment 10 forced out (pipe 10). ACK 7000 delivers 6 at
        // once: pipe 4 < 5, so min(max(7 − 1, 6), 5 − 4) = 1: segment 11 (where the proportional
        // rule would give ⌈7·5/10⌉ − 1 = 3). ACK 8000: pipe 4 again, one more: segment 12.
        let c = TcpConfig { ecn: EcnMode::Classic, prr: true, ..cfg(true) };
        let (mut s, mut out) = started(&c);
        out.clear();
        let mut h = ack(1000, &[]);
        h.ece = true;
        s.on_ack(Time(1), &h, &c, &ends(), &mut out);
        assert_eq!((s.state(), s.tcb.ssthresh), (CaState::Cwr, 5));
        assert_eq!(seqs(&out), vec![10]);
        out.clear();
        s.on_ack(Time(2), &ack(7000, &[]), &c, &ends(), &mut out);
        assert_eq!((seqs(&out), s.tcb.cwnd), (vec![11], 5));
        out.clear();
        s.on_ack(Time(3), &ack(8000, &[]), &c, &ends(), &mut out);
        assert_eq!((seqs(&out), s.tcb.cwnd), (vec![12], 5));
    }

    /// ns-3-like hosts for PRR in fast recovery: SACK, no RACK or TLP (a loss is found by three
    /// SACKed segments above it, RFC 6675 IsLost), Reno's ssthresh 5 from cwnd 10, in congestion
    /// avoidance (ssthresh 10), so the three SACKs before recovery do not grow the window.
    fn prr_fr(bound: PrrBound) -> TcpConfig {
        TcpConfig { prr_recovery: true, prr_bound: bound, rack: false, tlp: false, initial_ssthresh: 10, ..cfg(true) }
    }

    /// `acks` in turn, each a SACK list on a cumulative ACK; returns the segments each sent.
    fn sends(s: &mut Sender, c: &TcpConfig, t0: u64, acks: &[(u64, &[(u64, u64)])]) -> Vec<Vec<u64>> {
        let mut all = Vec::new();
        for (k, &(a, sack)) in acks.iter().enumerate() {
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.on_ack(Time(t0 + k as u64), &ack(a, sack), c, &ends(), &mut out);
            all.push(seqs(&out));
        }
        all
    }

    #[test]
    fn prr_in_fast_recovery_sends_in_proportion_then_by_its_bound() {
        // Segments 0..9 out (cwnd 10); 0, 4, 5 and 6 are lost. By hand (RFC 6937 §3 with ns-3's
        // counts; pipe as RFC 6675 SetPipe; d = prr_delivered, out = prr_out):
        //  1: SACK 1..3, IsLost(0): recovery, ssthresh 5, RecoverFS 10 (10 out − 3 SACKed + 3
        //     delivered; ns-3.33–3.44: 10 unacknowledged), pipe 6 > 5: ⌈3·5/10⌉ − 0 = 2 →
        //     cwnd 8: resend 0, new 10.
        //  2, 3 (SACK 7, 8): ⌈d·5/10⌉ − out for d = 4, 5: 0, then 1: new 11.
        //  4 (SACK 9): 4, 5, 6 have three SACKed above: lost, pipe 12 − 6 − 4 + 1 = 3, d 6,
        //     out 3. CRB: min(max(6 − 3, 1), 5 − 3) = 2: resend 4, 5. ns-3.33–3.44's SSRB (not a
        //     safe ACK): DeliveredData 1: resend 4.
        //  5: 0's retransmission arrives (ACK 4000): a safe ACK (it cumulatively acknowledges a
        //     retransmission, below the recovery point 10), d 7. CRB: out 5, pipe 4 ({4, 5, 10,
        //     11}): min(max(2, 1) + 1, 1) = 1: resend 6. SSRB: out 4, pipe 3 ({4, 10, 11}):
        //     min(max(3, 1) + 1, 2) = 2: resend 5, 6 (were it not safe: DeliveredData 1, 5 only).
        let acks: [(u64, &[(u64, u64)]); 5] = [
            (0, &[(1000, 4000)]),
            (0, &[(1000, 4000), (7000, 8000)]),
            (0, &[(1000, 4000), (7000, 9000)]),
            (0, &[(1000, 4000), (7000, 10000)]),
            (4000, &[(7000, 10000)]),
        ];
        let head: Vec<Vec<u64>> = vec![vec![0, 10], vec![], vec![11]];
        for (bound, last) in [(PrrBound::Crb, vec![vec![4, 5], vec![6]]), (PrrBound::Ns3Ssrb, vec![vec![4], vec![5, 6]])] {
            let c = prr_fr(bound);
            let (mut s, _) = started(&c);
            let got = sends(&mut s, &c, 1, &acks);
            assert_eq!((&got[..3], &got[3..]), (&head[..], &last[..]), "{bound:?}");
            assert_eq!((s.state(), s.tcb.ssthresh, s.tcb.cwnd), (CaState::Recovery, 5, 5), "{bound:?}");
        }
    }

    #[test]
    fn prr_in_recovery_ends_at_ssthresh_and_is_off_by_default() {
        // The case above's first ACK (SACK 1..3): without `prr_recovery` cwnd = ssthresh 5
        // at once (RFC 6675 §5 step 4.2), with it pipe 6 + 2 = 8 (as above); both end with
        // cwnd = ssthresh on the ACK of everything sent.
        for (prr, at_entry) in [(false, 5), (true, 8)] {
            let c = TcpConfig { prr_recovery: prr, ..prr_fr(PrrBound::Crb) };
            let (mut s, _) = started(&c);
            sends(&mut s, &c, 1, &[(0, &[(1000, 4000)])]);
            assert_eq!((s.state(), s.tcb.cwnd), (CaState::Recovery, at_entry), "prr_recovery = {prr}");
            let high = s.scoreboard().nxt() * 1000;
            sends(&mut s, &c, 10, &[(high, &[])]);
            assert_eq!((s.state(), s.tcb.cwnd), (CaState::Open, 5), "prr_recovery = {prr}");
        }
    }

    #[test]
    fn limited_transmit_through_the_pipe_alone_with_sack() {
        // Segments 0..9 out (cwnd 10, ssthresh 10); segment 1 SACKed: pipe 9. RFC 3042 (the
        // default) lets cwnd + 1 dupACK = 11 out: 10 and 11; ns-3 (`limited_transmit = "pipe"`:
        // `DupAck` adds nothing with SACK) only cwnd: 10; ns-2's FullTcp (`"none"`: snd_nxt −
        // snd_una = 10 segments against cwnd 10) nothing. On the second duplicate ACK (segment 2
        // SACKed too; pipe 12 − 2 = 10, 11 − 2 = 9, 10): 12 and 13 against cwnd + 2 = 12; 11;
        // still nothing.
        for (rule, sent, second) in [
            (LimitedTransmit::Rfc3042, vec![10, 11], vec![12, 13]),
            (LimitedTransmit::Pipe, vec![10], vec![11]),
            (LimitedTransmit::None, vec![], vec![]),
        ] {
            let c = TcpConfig { limited_transmit: rule, ..prr_fr(PrrBound::Crb) };
            let (mut s, _) = started(&c);
            assert_eq!(sends(&mut s, &c, 1, &[(0, &[(1000, 2000)])]), vec![sent], "{rule:?}");
            assert_eq!(sends(&mut s, &c, 1, &[(0, &[(1000, 3000)])]), vec![second], "{rule:?}, second duplicate ACK");
            assert_eq!(s.state(), CaState::Disorder);
        }
    }

    #[test]
    fn prr_in_cwr_steps_only_on_advancing_acks_as_ns3() {
        // ACK 1000 with ECE: CWR, ssthresh 5, RecoverFS 9 + 1 = 10, ⌈1·5/10⌉ = 1: segment 10 (as
        // above). A duplicate ACK SACKing segment 2 then: RFC 6937 steps, ⌈2·5/10⌉ − 1 = 0, cwnd
        // = pipe 9, nothing; ns-3 (`prr_cwr_acks = "advancing"`: `ProcessAck` runs DoRecovery in
        // CA_CWR only when the ACK advances) leaves cwnd 10, pipe 9: segment 11.
        for (advancing, sent) in [(false, vec![]), (true, vec![11])] {
            let c = TcpConfig { ecn: EcnMode::Classic, prr: true, prr_cwr_advancing: advancing, rack: false, tlp: false, ..cfg(true) };
            let (mut s, _) = started(&c);
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.on_ack(Time(1), &TcpHeader { ece: true, ..ack(1000, &[]) }, &c, &ends(), &mut out);
            assert_eq!((s.state(), seqs(&out)), (CaState::Cwr, vec![10]));
            assert_eq!(sends(&mut s, &c, 2, &[(1000, &[(2000, 3000)])]), vec![sent], "advancing {advancing}");
        }
    }

    #[test]
    fn no_limited_transmit_counts_sacked_segments_while_reducing_too() {
        // As above with `prr_cwr_advancing`: in CWR (cwnd 10) a duplicate ACK SACKs segment 2.
        // Through the pipe (9 < 10) segment 11 goes; with `limited_transmit = "none"` (ns-2's
        // window outside fast recovery: snd_nxt − snd_una = 11 − 1 = 10 against cwnd 10) nothing.
        for (rule, sent) in [(LimitedTransmit::Rfc3042, vec![11]), (LimitedTransmit::None, vec![])] {
            let c = TcpConfig { ecn: EcnMode::Classic, prr: true, prr_cwr_advancing: true, limited_transmit: rule, rack: false, tlp: false, ..cfg(true) };
            let (mut s, _) = started(&c);
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.on_ack(Time(1), &TcpHeader { ece: true, ..ack(1000, &[]) }, &c, &ends(), &mut out);
            assert_eq!((s.state(), seqs(&out)), (CaState::Cwr, vec![10]));
            assert_eq!(sends(&mut s, &c, 2, &[(1000, &[(2000, 3000)])]), vec![sent], "{rule:?}");
            assert_eq!(s.state(), CaState::Cwr);
        }
    }

    #[test]
    fn an_ack_counts_what_it_delivered_as_ns3_dev() {
        // Congestion avoidance at cwnd 10 (ssthresh 5). A duplicate ACK SACKs segments 1 and 2;
        // then ACK 3000 covers 0, 1, 2. Counted by its cumulative advance (the default) the
        // avoidance count takes 3; by what it delivered (`acked_count = "delivered"`, ns-3-dev's
        // `bytesAcked = currentDelivered`) 1: segment 0, the others delivered by the SACK before.
        for (delivered, count) in [(false, 3), (true, 1)] {
            let c = TcpConfig { acked_delivered: delivered, initial_ssthresh: 5, rack: false, tlp: false, ..cfg(true) };
            let (mut s, _) = started(&c);
            sends(&mut s, &c, 1, &[(0, &[(1000, 3000)]), (3000, &[])]);
            assert_eq!((s.state(), s.tcb.cwnd, s.tcb.cwnd_cnt), (CaState::Open, 10, count), "delivered {delivered}");
        }
    }

    /// The CWR case of the two tests below: cwnd 10, segments 0..9; ACK 1000 with ECE: CWR at
    /// cwnd 5, recovery point 10. Segment 2 is lost: SACKs of 3..9 mark it lost and it is resent
    /// in the episode's window, with new segments 10..; 10 is lost too, and the SACKs of 11..13
    /// mark it lost.
    fn cwr_with_two_losses(c: &TcpConfig) -> Sender {
        let (mut s, _) = started(c);
        let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
        s.on_ack(Time(1), &TcpHeader { ece: true, ..ack(1000, &[]) }, c, &ends(), &mut out);
        assert_eq!((s.state(), s.tcb.cwnd), (CaState::Cwr, 5));
        let sacks = |hi: u64| if hi <= 10000 { vec![(3000, hi)] } else { vec![(3000, 10000), (11000, hi)] };
        let lists: Vec<(u64, Vec<(u64, u64)>)> = [6000, 7000, 8000, 9000, 10000, 12000, 13000, 14000].iter().map(|&hi| (1000, sacks(hi))).collect();
        let acks: Vec<(u64, &[(u64, u64)])> = lists.iter().map(|(a, l)| (*a, l.as_slice())).collect();
        sends(&mut s, c, 2, &acks);
        s
    }

    #[test]
    fn the_dctcp_family_cuts_again_when_fast_recovery_starts_in_a_window_an_ece_reduced() {
        // The HKUST ns-2 trees (PIAS-NS2, TCN-NS2; Flash's lineage), tcp/tcp-full.cc
        // `SackFullTcpAgent::dupack_action()`: 3 duplicate ACKs in a window an ECE already
        // reduced (`highest_ack_` ≤ `recover_`, `last_cwnd_action_` ECN) take the ECN branch,
        // which with `ecnhat_` also halves: `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)`.
        // Hand case: cwnd 10, α = 1; ACK 1 000 with ECE: cwnd = ssthresh = (1 − 1/2)·10 = 5.
        // Segment 1 lost: SACKs of 2, 3, 4 are the 3 duplicate ACKs; ns-2: halfwin = int(5/2) = 2,
        // ssthresh = cwnd = 2, and 1 is resent. Ours gets there by DCTCP's loss reaction on entering
        // recovery (cc/dctcp.rs `react_to_loss`). NewReno with classic ECN does not cut again: stock
        // ns-2's ECN branch only retransmits (RFC 3168 §6.1.2: once per window), cwnd stays 5.
        for (cc, ecn, cut) in [(CcKind::Dctcp, EcnMode::Dctcp, 2), (CcKind::L2dct, EcnMode::Dctcp, 2), (CcKind::D2tcp, EcnMode::Dctcp, 2), (CcKind::NewReno, EcnMode::Classic, 5)] {
            let c = TcpConfig { ecn, cc, rack: false, tlp: false, initial_ssthresh: 10, limited_transmit: LimitedTransmit::None, ..cfg(true) };
            let (mut s, _) = started(&c);
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.on_ack(Time(1), &TcpHeader { ece: true, ..ack(1000, &[]) }, &c, &ends(), &mut out);
            assert_eq!((s.state(), s.tcb.cwnd, s.tcb.ssthresh), (CaState::Cwr, 5, 5), "{cc:?}");
            let got = sends(&mut s, &c, 2, &[(1000, &[(2000, 3000)]), (1000, &[(2000, 4000)]), (1000, &[(2000, 5000)])]);
            assert_eq!(got, vec![vec![], vec![], vec![1]], "{cc:?}: the fast retransmission on the third");
            assert_eq!((s.state(), s.tcb.cwnd, s.tcb.ssthresh), (CaState::Recovery, cut, cut), "{cc:?}");
        }
    }

    #[test]
    fn ns3_enters_fast_recovery_only_on_an_ack_with_new_sack_information() {
        // ns-3's CWR keeps losses out of fast recovery (`recovery_from_cwr = false`): cwnd 10,
        // segments 0..9, ACK 1000 with ECE: CWR at cwnd 5, recovery point 10. Segment 2 is lost:
        // SACKs of 3..9 mark it lost and it is resent in the episode's window, with new segments
        // 10..; 10 is lost too, and the SACKs of 11..13 mark it lost. Then 2's retransmission
        // arrives: ACK 10 000 (the recovery point: CWR ends) with no new SACK information. The
        // segment at the new point is lost: RFC 6675 and Linux start fast recovery on this ACK;
        // ns-3 (`recovery_on = "duplicate_ack"`) only from `DupAck`, on the next ACK that SACKs
        // something new (14).
        for (dupack_only, at_exit) in [(false, CaState::Recovery), (true, CaState::Disorder)] {
            let c = TcpConfig {
                ecn: EcnMode::Classic,
                recovery_from_cwr: false,
                recovery_on_dupack: dupack_only,
                rack: false,
                tlp: false,
                initial_ssthresh: 10,
                ..cfg(true)
            };
            let mut s = cwr_with_two_losses(&c);
            assert_eq!((s.state(), s.stats.fast_recoveries), (CaState::Cwr, 0), "still CWR, no fast recovery");
            assert!(s.board.is_lost(10), "segment 10 has three SACKed above it");
            sends(&mut s, &c, 20, &[(10_000, &[(11000, 14000)])]);
            assert_eq!(s.state(), at_exit, "recovery on a duplicate ACK only: {dupack_only}");
            sends(&mut s, &c, 30, &[(10_000, &[(11000, 15000)])]);
            assert_eq!((s.state(), s.stats.fast_recoveries), (CaState::Recovery, 1), "{dupack_only}");
        }
    }

    #[test]
    fn ns3_deems_a_retransmission_lost_only_behind_a_later_send() {
        // RACK and TLP off, cwnd 10 (ssthresh 10). At 3 000 ps, SACK 1..6: fast recovery, cwnd =
        // ssthresh 5, pipe 10 − 6 − 1 = 3: resend 0, then new 10, both at 3 000. At 5 000, segment
        // 10 is SACKed, 0's resend not acknowledged. fabricsim's check for lost retransmissions
        // (RACK's rule, run with `rack` off for retransmissions: sent before the newest delivered
        // segment, time then sequence: 0 < 10 at the same instant; overdue: 3 000 + RTT 2 000 ≤
        // 5 000) deems 0 lost: pipe 11 − 7 − 1 = 3, resend 0 and new 11. ns-3 (`lost_retransmit
        // = "ns3"`, `MarkRetransmittedSegmentsLost`: last sent strictly before 10 was) does not:
        // pipe 4, new 11 alone.
        // At 7 000, 11 (sent at 5 000, after 0's resend) is SACKed: ns-3-dev deems the resend lost
        // (pipe 3: 7, 8, 9; 0 lost again): resend 0 and new 12. Every ns-3 release to ns-3.48 (`"never"`,
        // `NextSeg` skips a segment flagged resent) keep it out: pipe 4, new 12 alone.
        use LostRetransmit::{Never, Ns3Sacked, Rack};
        for (rule, at_5000, at_7000) in [(Rack, vec![0, 11], None), (Ns3Sacked, vec![11], Some(vec![0, 12])), (Never, vec![11], Some(vec![12]))] {
            let c = TcpConfig { lost_retransmit: rule, rack: false, tlp: false, initial_ssthresh: 10, ..cfg(true) };
            let (mut s, _) = started(&c);
            assert_eq!(sends(&mut s, &c, 3000, &[(0, &[(1000, 7000)])]), vec![vec![0, 10]]);
            assert_eq!(sends(&mut s, &c, 5000, &[(0, &[(1000, 7000), (10000, 11000)])]), vec![at_5000], "{rule:?}");
            if let Some(sent) = at_7000 {
                assert_eq!(sends(&mut s, &c, 7000, &[(0, &[(1000, 7000), (10000, 12000)])]), vec![sent], "{rule:?}");
                assert_eq!(s.board.is_retransmitted(0), true, "{rule:?}");
            }
        }
    }

    #[test]
    fn ns3s_next_seg_resends_the_lowest_unmarked_segment_and_no_rescue() {
        // A flow of 10 segments, all out (cwnd 10). SACK 1..6: 0 deemed lost (six SACKed above),
        // 7..9 not (none above). Fast recovery: cwnd = ssthresh 5, pipe 10 − 6 − 1 = 3. Both resend
        // 0 (pipe 4). No new data is left. RFC 6675 (rule 4): one rescue retransmission of the
        // highest unSACKed segment, 9. ns-3.32–3.42 (`next_seg = "ns3"`, rule 3 without 1.b):
        // the lowest segment neither SACKed, lost nor resent, 7; each counts twice in the pipe
        // (not lost, resent): 6 ≥ 5, nothing more.
        for (ns3, sent) in [(false, vec![0, 9]), (true, vec![0, 7])] {
            let c = TcpConfig { next_seg_ns3: ns3, rack: false, tlp: false, ..cfg(true) };
            let mut s = Sender::new(&c, Some(10_000), 0);
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.start(Time(0), &c, &ends(), &mut out);
            assert_eq!(out.packets.len(), 10);
            assert_eq!(sends(&mut s, &c, 1, &[(0, &[(1000, 7000)])]), vec![sent], "next_seg ns3 {ns3}");
            assert_eq!((s.state(), s.tcb.cwnd), (CaState::Recovery, 5));
        }
    }

    #[test]
    fn ns3s_fast_retransmit_resends_the_head_even_if_resent_before() {
        // The CWR case of `ns3_enters_fast_recovery_only_on_an_ack_with_new_sack_information`:
        // segment 10, lost, is resent within CWR (with 15, on the SACK that marks it lost); the
        // ACK of 10 000 ends CWR in Disorder; the next, SACKing 14, starts fast recovery with 10
        // at snd_una, its retransmission still out. RFC 6675's NextSeg (the default) has nothing
        // lost and not yet resent: nothing goes; ns-3 (`fast_retransmit = "head"`,
        // `EnterRecovery` sends `m_highRxAckMark`) resends 10.
        for (head, sent) in [(false, vec![]), (true, vec![10])] {
            let c = TcpConfig {
                ecn: EcnMode::Classic,
                recovery_from_cwr: false,
                recovery_on_dupack: true,
                fast_rtx_head: head,
                rack: false,
                tlp: false,
                initial_ssthresh: 10,
                ..cfg(true)
            };
            let mut s = cwr_with_two_losses(&c);
            sends(&mut s, &c, 20, &[(10_000, &[(11000, 14000)])]);
            assert!(s.state() == CaState::Disorder && s.board.is_retransmitted(10), "10 resent in CWR");
            assert_eq!(sends(&mut s, &c, 30, &[(10_000, &[(11000, 15000)])]), vec![sent], "head {head}");
            assert_eq!(s.state(), CaState::Recovery);
        }
    }

    #[test]
    fn ns3s_partial_ack_sends_a_segment_beyond_the_window() {
        // Segments 0..9 out (cwnd 10, ssthresh 10); 0 and 4 are lost. SACK 1..3: fast recovery,
        // cwnd = ssthresh 5, pipe 6: resend 0. SACK 5: pipe 10 − 4 − 1 + 1 = 6, nothing. Then 0's
        // retransmission arrives: ACK 4 000, a partial ACK (recovery point 10), segment 4 not
        // resent (one SACKed above it: not deemed lost). pipe 6 − 1 = 5 = cwnd: RFC 6675 sends
        // nothing; ns-3 (`partial_ack = "ns3"`: `DoRetransmit` takes `NextSeg`, no lost segment,
        // so new data) sends 10 beyond the window.
        for (ns3, sent) in [(false, vec![]), (true, vec![10])] {
            let c = TcpConfig { partial_ack_ns3: ns3, rack: false, tlp: false, initial_ssthresh: 10, ..cfg(true) };
            let (mut s, _) = started(&c);
            let got = sends(&mut s, &c, 1, &[(0, &[(1000, 4000)]), (0, &[(1000, 4000), (5000, 6000)]), (4000, &[(5000, 6000)])]);
            assert_eq!(got, vec![vec![0], vec![], sent], "partial_ack ns3 {ns3}");
            assert_eq!((s.state(), s.tcb.cwnd), (CaState::Recovery, 5));
        }
        // The same with `fast_retransmit = "head"` too: only fast recovery's first retransmission
        // is the head; the partial ACK's `DoRetransmit` still takes `NextSeg`'s new 10, not 4.
        let c = TcpConfig { partial_ack_ns3: true, fast_rtx_head: true, rack: false, tlp: false, initial_ssthresh: 10, ..cfg(true) };
        let (mut s, _) = started(&c);
        let got = sends(&mut s, &c, 1, &[(0, &[(1000, 4000)]), (0, &[(1000, 4000), (5000, 6000)]), (4000, &[(5000, 6000)])]);
        assert_eq!(got, vec![vec![0], vec![], vec![10]]);
    }

    #[test]
    fn ns3s_do_retransmit_resends_the_head_when_next_seg_has_nothing() {
        // The case above with a flow of 10 segments: at the partial ACK (4 000) segment 4 is not
        // deemed lost and no new data is left. `DoRetransmit`'s `NextSeg` fails, so ns-3
        // (`partial_ack = "ns3"`) "re-send[s] again the head", 4; the window (pipe 5 = cwnd 5)
        // sends nothing more. RFC 6675 sends nothing.
        for (ns3, sent) in [(false, vec![]), (true, vec![4])] {
            let c = TcpConfig { partial_ack_ns3: ns3, rack: false, tlp: false, initial_ssthresh: 10, ..cfg(true) };
            let mut s = Sender::new(&c, Some(10_000), 0);
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.start(Time(0), &c, &ends(), &mut out);
            let got = sends(&mut s, &c, 1, &[(0, &[(1000, 4000)]), (0, &[(1000, 4000), (5000, 6000)]), (4000, &[(5000, 6000)])]);
            assert_eq!(got, vec![vec![0], vec![], sent], "partial_ack ns3 {ns3}");
        }
    }

    #[test]
    fn without_recovery_from_cwr_a_cwr_episode_resends_what_sack_marks_lost() {
        // ACK 1000 with ECE: CWR, ssthresh = cwnd = 5, 9 in flight. Segment 1 lost; SACK 2..4
        // marks it lost (IsLost). Linux (and the default) starts a fast recovery from CWR there
        // and resends 1 at once (the fast retransmission); ns-3 (`recovery_from_cwr = false`:
        // `TcpSocketBase::DupAck` enters CA_RECOVERY only from CA_DISORDER) stays in CWR, where
        // pipe 9 − 3 − 1 = 5 = cwnd sends nothing, and resends 1 within the episode's window on
        // SACK 5 (pipe 4).
        for (from_cwr, state, sent) in [(true, CaState::Recovery, vec![vec![1], vec![]]), (false, CaState::Cwr, vec![vec![], vec![1]])] {
            let c = TcpConfig { ecn: EcnMode::Classic, recovery_from_cwr: from_cwr, rack: false, tlp: false, ..cfg(true) };
            let (mut s, _) = started(&c);
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.on_ack(Time(1), &TcpHeader { ece: true, ..ack(1000, &[]) }, &c, &ends(), &mut out);
            assert_eq!((s.state(), s.tcb.cwnd), (CaState::Cwr, 5));
            let got = sends(&mut s, &c, 2, &[(1000, &[(2000, 5000)]), (1000, &[(2000, 6000)])]);
            assert_eq!(got, sent, "recovery_from_cwr = {from_cwr}");
            assert_eq!((s.state(), s.stats.fast_recoveries), (state, from_cwr as u64), "recovery_from_cwr = {from_cwr}");
        }
    }

    #[test]
    fn ns2_ecn_growth_grows_during_cwr_except_on_a_bursts_first_ece() {
        // ACK 1000 (ECE after none): CWR, cwnd 10 -> ssthresh 5, no growth under either rule.
        // Five more ECE ACKs: Linux holds cwnd at 5 while in CWR; ns-2 opens cwnd on each
        // (Reno CA at cwnd 5: +1 after 5 ACKs) -> 6. Then a clean ACK (counter 1), an ECE ACK
        // right after it (first of a burst: no step) and another ECE ACK (counter 2).
        for (ns2, after_burst, end) in [(false, (5, 0), (5, 0)), (true, (6, 0), (6, 2))] {
            let c = TcpConfig { ecn: EcnMode::Classic, ns2_ecn_growth: ns2, ..cfg(true) };
            let (mut s, mut out) = started(&c);
            let ece = |n: u64, e: bool| TcpHeader { ece: e, ..ack(n, &[]) };
            for k in 1..=6 {
                s.on_ack(Time(k), &ece(k * 1000, true), &c, &ends(), &mut out);
            }
            assert_eq!((s.state(), s.stats.ecn_reductions), (CaState::Cwr, 1));
            assert_eq!((s.tcb.cwnd, s.tcb.cwnd_cnt), after_burst, "ns2 = {ns2}");
            for (k, e) in [(7, false), (8, true), (9, true)] {
                s.on_ack(Time(k), &ece(k * 1000, e), &c, &ends(), &mut out);
            }
            assert_eq!((s.tcb.cwnd, s.tcb.cwnd_cnt), end, "ns2 = {ns2}");
        }
    }

    #[test]
    fn cwnd_cap_bounds_growth() {
        // Slow start from 10 would reach 15 after five ACKs; the cap (ns-2's maxcwnd_) holds 12.
        let c = TcpConfig { cwnd_cap: Some(12), ..cfg(true) };
        let (mut s, mut out) = started(&c);
        for k in 1..=5 {
            s.on_ack(Time(k), &ack(k * 1000, &[]), &c, &ends(), &mut out);
        }
        assert_eq!(s.tcb.cwnd, 12);
    }

    #[test]
    fn rto_resets_to_one_segment_and_retransmits_una() {
        let c = cfg(true);
        let (mut s, mut out) = started(&c);
        out.clear();
        let rto = s.rtt.rto();
        s.on_rto_timer(rto, &c, &ends(), &mut out);
        assert_eq!((s.state(), s.tcb.cwnd, s.tcb.ssthresh), (CaState::Loss, 1, 5));
        assert_eq!(seqs(&out), vec![0]);
        assert_eq!(s.rtt.rto(), rto.times(2), "RFC 6298 §5.5 back-off");
    }

    #[test]
    fn ns3s_loss_exit_keeps_one_segment_after_a_lone_segments_timeout() {
        // Ten segments out; ACK(9000) leaves segment 9 alone (cwnd 10 + 9 = 19 in slow start,
        // so 9 + 19 − 1 = 27 more go out: segments 10..28). The RTO fires: cwnd 1, segment 9
        // resent, ssthresh 19 / 2 = 9; recovery point = snd_nxt = 28. ACK(28 000) acknowledges
        // all 19 outstanding: Linux grows by them (slow start 1 → 9 takes 8, the other 11 at
        // cwnd 9 add one: 10), ns-3 by 28 − 28 = 0: cwnd stays 1.
        let cwnd_after = |ns3: bool| {
            let c = TcpConfig { loss_exit: if ns3 { LossExit::Ns3 } else { LossExit::Acked }, ..cfg(true) };
            let (mut s, mut out) = started(&c);
            s.on_ack(Time(1), &ack(9000, &[]), &c, &ends(), &mut out);
            let nxt = s.board.nxt();
            let rto = s.rtt.rto();
            s.on_rto_timer(Time(1) + rto, &c, &ends(), &mut out);
            assert_eq!((s.state(), s.tcb.cwnd, s.recovery_point), (CaState::Loss, 1, nxt));
            s.on_ack(Time(2) + rto, &ack(nxt * 1000, &[]), &c, &ends(), &mut out);
            (s.state(), s.tcb.cwnd)
        };
        assert_eq!(cwnd_after(true), (CaState::Open, 1));
        assert_eq!(cwnd_after(false), (CaState::Open, 10));
    }

    /// DCTCP with ns-3's mappings (byte cut, echo, PRR, loss exit); `entry`: `prr_ns3_entry`.
    fn ns3_dctcp(entry: bool, initial_cwnd: u32) -> TcpConfig {
        let mut knobs = crate::transport::tcp::cc::Knobs::default();
        knobs.0[3] = Some(1.0); // byte_cut
        TcpConfig {
            ecn: EcnMode::Dctcp,
            cc: CcKind::Dctcp,
            cc_params: knobs,
            dctcp_echo_ns3: true,
            prr: true,
            prr_ns3_entry: entry,
            loss_exit: LossExit::Ns3,
            initial_cwnd,
            ..cfg(true)
        }
    }

    #[test]
    fn ns3s_loss_exit_with_ece_enters_cwr_and_sends_two() {
        // One segment out (initial window 1); the RTO resends it (cwnd 1, recovery point 1).
        // ACK(1000) ends the loss state. Without ECE ns-3 keeps cwnd at 1 (segsAcked = (1000 −
        // 1000) / 1000 = 0): segment 1 alone. With ECE `ReceivedAck` first enters CWR from
        // CA_LOSS: ssthresh by TcpDctcp's CA_LOSS rule, max(0 in flight / 2, 2 segments) = 2 (its
        // cut of the 1-segment window would give 1); PRR's RecoverFS = 0 unacknowledged + 1
        // delivered = 1, and DoRecovery runs twice for this ACK (EnterRecovery, then ProcessAck in
        // CA_CWR): prr_delivered 2, pipe 0 ≤ ssthresh, so PRR-CRB sends min(max(2 − 0, 1), 2 − 0)
        // = 2: cwnd 2, segments 1 and 2 (the first carrying CWR). Counted once (RFC 6937), 1.
        // ns-3's B1 h16 at 81.69 ms and h11 at 91.76 ms: ssthresh 1448 → 2896, cwnd → 2896, two
        // segments. ACK(3000) then ends CWR (cwnd = ssthresh = 2) and, in Open, Reno's avoidance
        // adds 2 acked to a count reaching cwnd: cwnd 3 (h11 at 91.88 ms: 2896 → 4344).
        let exit = |entry: bool, ece: bool| {
            let c = ns3_dctcp(entry, 1);
            let mut s = Sender::new(&c, Some(100_000), 0);
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.start(Time(0), &c, &ends(), &mut out);
            assert_eq!(seqs(&out), vec![0]);
            let rto = s.rtt.rto();
            s.on_rto_timer(rto, &c, &ends(), &mut out);
            assert_eq!((s.state(), s.tcb.cwnd, s.recovery_point), (CaState::Loss, 1, 1));
            out.clear();
            let h = TcpHeader { ece, ..ack(1000, &[]) };
            s.on_ack(rto + Time(1), &h, &c, &ends(), &mut out);
            let cwr = out.packets.first().is_some_and(|p| p.tcp().cwr);
            (s, out, cwr)
        };
        let (s, out, _) = exit(true, false);
        assert_eq!((s.state(), s.tcb.cwnd, seqs(&out)), (CaState::Open, 1, vec![1]));
        let (s, out, _) = exit(false, true);
        assert_eq!((s.state(), s.tcb.ssthresh, s.tcb.cwnd, seqs(&out)), (CaState::Cwr, 2, 1, vec![1]));
        let (mut s, mut out, cwr) = exit(true, true);
        assert_eq!((s.state(), s.tcb.ssthresh, s.tcb.cwnd, seqs(&out)), (CaState::Cwr, 2, 2, vec![1, 2]));
        assert!(cwr && s.stats.ecn_reductions == 1);
        out.clear();
        let c = ns3_dctcp(true, 1);
        s.on_ack(Time::from_ms(5000), &ack(3000, &[]), &c, &ends(), &mut out);
        assert_eq!((s.state(), s.tcb.cwnd, seqs(&out)), (CaState::Open, 3, vec![3, 4, 5]));
    }

    #[test]
    fn ns3s_timeout_keeps_the_alpha_cut_and_its_avoidance_count_grows_at_the_loss_exit() {
        // ns-3's TcpDctcp (B1's h2 at 57.52 ms, docs/VALIDATION.md): initial window 2 in
        // congestion avoidance (ssthresh 2), α = 1 held (g ≈ 0). ACK(1000): avoidance counts 1 of
        // w = 2, cwnd stays 2, segment 2 goes out. The RTO (from Open) cuts ssthresh to
        // (1 − α/2)·2000 = 1000 B and sets cwnd 1; segment 1 is resent. ACK(3000) reaches the
        // recovery point: ns-3 calls IncreaseWindow(0); cwnd 1000 B ≥ ssthresh 1000 B, so
        // CongestionAvoidance, whose count (1, kept through the timeout) reaches w = 1: cwnd 2,
        // segments 3 and 4. Linux's rules (halving at the timeout, no step without a segment):
        // ssthresh 2, cwnd 1, segment 3 alone.
        let run = |ns3: bool| {
            let mut c = ns3_dctcp(true, 2);
            c.initial_ssthresh = 2;
            c.cc_params.0[0] = Some(1e-6); // g: α stays 1
            if ns3 {
                c.cc_params.0[8] = Some(1.0); // ns3_growth
                c.cc_params.0[10] = Some(1.0); // ns3_loss_cut
                c.timeout_ssthresh = TimeoutSsthresh::Every;
            }
            let mut s = Sender::new(&c, Some(100_000), 0);
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.start(Time(0), &c, &ends(), &mut out);
            out.clear();
            s.on_ack(Time(1), &ack(1000, &[]), &c, &ends(), &mut out);
            assert_eq!((s.tcb.cwnd, seqs(&out)), (2, vec![2]));
            let rto = Time(1) + s.rtt.rto();
            out.clear();
            s.on_rto_timer(rto, &c, &ends(), &mut out);
            assert_eq!((s.state(), s.tcb.cwnd, seqs(&out)), (CaState::Loss, 1, vec![1]));
            let ss = s.tcb.ssthresh;
            out.clear();
            s.on_ack(rto + Time(1), &ack(3000, &[]), &c, &ends(), &mut out);
            (ss, s.state(), s.tcb.cwnd, seqs(&out))
        };
        assert_eq!(run(true), (1, CaState::Open, 2, vec![3, 4]));
        assert_eq!(run(false), (2, CaState::Open, 1, vec![3]));
    }

    #[test]
    fn ns3s_timeouts_each_lower_ssthresh_a_repeated_one_to_half_the_flight() {
        // Ten segments out, cwnd 10 (Reno). RTO 1 from Open: ssthresh 5 either way. RTO 2 in the
        // loss state (segment 0 resent, one in flight): Linux keeps ssthresh 5 (one reduction an
        // episode); ns-3's ReTxTimeout lowers it again, max(1 / 2, 2) = 2.
        // ns-2's FullTcp (`"ns2"`, no ECN reaction before): half the window at every timeout,
        // ⌊10/2⌋ = 5, then max(⌊1/2⌋, 2) = 2.
        use TimeoutSsthresh::{Episode, Every, Ns2};
        for (rule, second) in [(Episode, 5), (Every, 2), (Ns2, 2)] {
            let c = TcpConfig { timeout_ssthresh: rule, ..cfg(true) };
            let (mut s, mut out) = started(&c);
            let rto = s.rtt.rto();
            s.on_rto_timer(rto, &c, &ends(), &mut out);
            assert_eq!((s.state(), s.tcb.ssthresh), (CaState::Loss, 5));
            let again = rto + s.rtt.rto();
            s.on_rto_timer(again, &c, &ends(), &mut out);
            assert_eq!((s.state(), s.tcb.ssthresh), (CaState::Loss, second), "timeout_ssthresh {rule:?}");
        }
    }

    #[test]
    fn ns2s_timeout_after_an_ecn_reaction_keeps_ssthresh() {
        // ns-2 `FullTcpAgent::timeout_action`: with `last_cwnd_action_` ECN, `slowdown(CLOSE_CWND_ONE)`
        // only. DCTCP, α = 1, ten segments out: ACK 1 000 with ECE cuts to cwnd = ssthresh = 5;
        // ACK 10 000 ends that window (CWR over, Open; its 9 segments grow cwnd by one in
        // congestion avoidance, to 6) and 6 new segments go. The RTO then fires in Open: Linux's
        // rule (`"episode"`, a fresh episode) with DCTCP's loss reaction halves, ⌊6/2⌋ = 3, and a
        // repeated timeout keeps it; ns-2's keeps 5, at the repeated timeout too.
        use TimeoutSsthresh::{Episode, Ns2};
        for (rule, first, second) in [(Episode, 3, 3), (Ns2, 5, 5)] {
            let c = TcpConfig { ecn: EcnMode::Dctcp, cc: CcKind::Dctcp, rack: false, tlp: false, timeout_ssthresh: rule, ..cfg(true) };
            let (mut s, mut out) = started(&c);
            let timeout = |s: &mut Sender, out: &mut Outbox| fire_next_timeout(s, &c, out);
            s.on_ack(Time(1), &TcpHeader { ece: true, ..ack(1000, &[]) }, &c, &ends(), &mut out);
            assert_eq!((s.state(), s.tcb.cwnd, s.tcb.ssthresh), (CaState::Cwr, 5, 5));
            out.packets.clear();
            s.on_ack(Time(2), &ack(10_000, &[]), &c, &ends(), &mut out);
            assert_eq!((s.state(), s.tcb.cwnd, seqs(&out)), (CaState::Open, 6, vec![10, 11, 12, 13, 14, 15]));
            timeout(&mut s, &mut out);
            assert_eq!((s.state(), s.tcb.cwnd, s.tcb.ssthresh), (CaState::Loss, 1, first), "{rule:?}");
            timeout(&mut s, &mut out);
            assert_eq!((s.state(), s.tcb.cwnd, s.tcb.ssthresh), (CaState::Loss, 1, second), "{rule:?}: repeated");
        }
        // A fast recovery ends the mark (ns-2's `fast_retransmit()` sets DUPACK). NewReno with
        // classic ECN: an ECE cuts 10 to 5; 3 duplicate ACKs in that window start fast recovery
        // without a second cut (cwnd 5). The RTO then fires in recovery: Linux's rule, inside a
        // reduction under way, keeps 5; ns-2's halves, max(⌊5/2⌋, 2) = 2 (with the mark left, 5).
        for (rule, ssthresh) in [(Episode, 5), (Ns2, 2)] {
            let c = TcpConfig { ecn: EcnMode::Classic, cc: CcKind::NewReno, rack: false, tlp: false, limited_transmit: LimitedTransmit::None, timeout_ssthresh: rule, ..cfg(true) };
            let (mut s, mut out) = started(&c);
            s.on_ack(Time(1), &TcpHeader { ece: true, ..ack(1000, &[]) }, &c, &ends(), &mut out);
            for hi in [3000, 4000, 5000] {
                s.on_ack(Time(2), &ack(1000, &[(2000, hi)]), &c, &ends(), &mut out);
            }
            assert_eq!((s.state(), s.tcb.cwnd, s.tcb.ssthresh, s.ecn_cut_last), (CaState::Recovery, 5, 5, false), "{rule:?}");
            fire_next_timeout(&mut s, &c, &mut out);
            assert_eq!((s.state(), s.tcb.cwnd, s.tcb.ssthresh), (CaState::Loss, 1, ssthresh), "{rule:?}");
        }
    }

    #[test]
    fn ns2s_first_ece_after_its_own_timeout_cuts_in_the_loss_state() {
        // ns-2's `TcpAgent::ecn()` reacts when `last_cwnd_action_` is TIMEOUT, before the ACK
        // passes `recover_`. DCTCP, α = 1, ten segments out, the RTO in Open with no ECN
        // reaction before: ns-2's rule halves, ssthresh max(⌊10/2⌋, 2) = 5, cwnd 1, the loss
        // state to snd_nxt = 10. ACK 1 000 with ECE: Linux's exit (`Acked`) waits for the loss
        // state's end and grows in slow start (cwnd 2, then 3 at ACK 2 000, ssthresh 5); ns-2's
        // (`Ns2`) cuts at once by DCTCP's rule, ssthresh max(1 − 1/2, 2) = 2, cwnd min(1, 2) = 1
        // (grown after the cut only as `ns2_ecn_growth` says, as in the open state: here not),
        // the cut marked ECN and the next a window later: ECE on ACK 2 000 cuts nothing more
        // (slow start, 1 → 2, and ssthresh 2). Still the loss
        // state (ns-2 goes on resending from `t_seqno_`; a CWR state here would start a fast
        // recovery on the segments the timeout marked lost).
        // With ns-2's growth rule (`ns2_ecn_growth`, the artifact model's) the first ECE ACK of
        // a run grows nothing: Linux's exit 1 then 2, ns-2's 1 (cut) then 2.
        for (growth, exit, cwnd, ssthresh) in [
            (false, LossExit::Acked, 3, 5),
            (false, LossExit::Ns2, 2, 2),
            (true, LossExit::Acked, 2, 5),
            (true, LossExit::Ns2, 2, 2),
        ] {
            let c = TcpConfig { ecn: EcnMode::Dctcp, cc: CcKind::Dctcp, rack: false, tlp: false, timeout_ssthresh: TimeoutSsthresh::Ns2, loss_exit: exit, ns2_ecn_growth: growth, ..cfg(true) };
            let (mut s, mut out) = started(&c);
            fire_next_timeout(&mut s, &c, &mut out);
            let t = s.tcb.now;
            assert_eq!((s.state(), s.tcb.cwnd, s.tcb.ssthresh, s.recovery_point), (CaState::Loss, 1, 5, 10));
            s.on_ack(t + Time(1), &TcpHeader { ece: true, ..ack(1000, &[]) }, &c, &ends(), &mut out);
            let cut = exit == LossExit::Ns2;
            assert_eq!((s.ecn_cut_last, s.stats.ecn_reductions), (cut, cut as u64), "{exit:?}");
            if cut {
                assert_eq!((s.tcb.cwnd, s.tcb.ssthresh, s.state()), (1, 2, CaState::Loss), "the cut, no growth on its ACK");
            }
            s.on_ack(t + Time(2), &TcpHeader { ece: true, ..ack(2000, &[]) }, &c, &ends(), &mut out);
            assert_eq!((s.state(), s.tcb.cwnd, s.tcb.ssthresh, s.stats.ecn_reductions), (CaState::Loss, cwnd, ssthresh, cut as u64), "{exit:?}");
        }
        // After a timeout that kept an ECN reaction's mark, `ecn()` waits for `recover_` as
        // anywhere: an ECE cuts to 5, the window ends (cwnd 6), the RTO keeps ssthresh 5, and an
        // ECE in the loss state changes nothing (ACK 11 000: slow start, cwnd 2).
        let c = TcpConfig { ecn: EcnMode::Dctcp, cc: CcKind::Dctcp, rack: false, tlp: false, timeout_ssthresh: TimeoutSsthresh::Ns2, loss_exit: LossExit::Ns2, ..cfg(true) };
        let (mut s, mut out) = started(&c);
        s.on_ack(Time(1), &TcpHeader { ece: true, ..ack(1000, &[]) }, &c, &ends(), &mut out);
        s.on_ack(Time(2), &ack(10_000, &[]), &c, &ends(), &mut out);
        fire_next_timeout(&mut s, &c, &mut out);
        assert_eq!((s.state(), s.tcb.cwnd, s.tcb.ssthresh), (CaState::Loss, 1, 5));
        s.on_ack(s.tcb.now + Time(1), &TcpHeader { ece: true, ..ack(11_000, &[]) }, &c, &ends(), &mut out);
        assert_eq!((s.state(), s.tcb.cwnd, s.tcb.ssthresh, s.stats.ecn_reductions), (CaState::Loss, 2, 5, 1));
    }

    /// Runs the timer events `out` holds, earliest first, until a retransmission timeout fires
    /// (an event before the deadline re-arms the timer, as in the event loop).
    fn fire_next_timeout(s: &mut Sender, c: &TcpConfig, out: &mut Outbox) {
        let n = s.stats.timeouts;
        while s.stats.timeouts == n {
            let t = out.timers.iter().map(|e| e.0).min().expect("an event pending");
            out.timers.retain(|e| e.0 != t);
            s.on_rto_timer(t, c, &ends(), out);
        }
    }

    #[test]
    fn ns3_releases_cut_by_alpha_in_the_loss_state_too() {
        // ns-3.33–3.48's TcpDctcp::GetSsThresh has no CA_LOSS case (ns-3-dev's halving of the
        // flight there is d3181b537, after 3.48): DCTCP's `loss_state_cut`. α = 1 held (g ≈ 0),
        // byte cut, window 1000 B segments.
        let dctcp = |loss_state_cut: bool, cwnd: u32| {
            let mut c = ns3_dctcp(true, cwnd);
            c.cc_params.0[0] = Some(1e-6); // g
            c.cc_params.0[10] = Some(1.0); // ns3_loss_cut
            c.cc_params.0[11] = Some(loss_state_cut as u8 as f64);
            c.timeout_ssthresh = TimeoutSsthresh::Every;
            c
        };
        // A sender with its initial window out whose first RTO has fired (at the returned time).
        let timed_out = |c: &TcpConfig| {
            let mut s = Sender::new(c, Some(100_000), 0);
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.start(Time(0), c, &ends(), &mut out);
            let rto = s.rtt.rto();
            s.on_rto_timer(rto, c, &ends(), &mut out);
            (s, out, rto)
        };
        // (a) A repeated timeout. Ten segments out: the first RTO (from Open) cuts to
        // (1 − 1/2)·10 000 B = 5 000 B, 5 segments, either way. The second, in the loss state
        // with cwnd 1 000 B and one segment in flight: ns-3.38 cuts that window to 500 B (below
        // a segment: the sender's floor of 1 segment), ns-3-dev max(1 / 2, 2) = 2 segments.
        for (cut, second) in [(true, 1), (false, 2)] {
            let c = dctcp(cut, 10);
            let (mut s, mut out, rto) = timed_out(&c);
            assert_eq!((s.state(), s.tcb.ssthresh), (CaState::Loss, 5));
            let again = rto + s.rtt.rto();
            s.on_rto_timer(again, &c, &ends(), &mut out);
            assert_eq!((s.state(), s.tcb.ssthresh, s.tcb.cwnd), (CaState::Loss, second, 1), "loss_state_cut {cut}");
        }
        // (b) An ECE ending the loss state (the case of
        // `ns3s_loss_exit_with_ece_enters_cwr_and_sends_two`): one segment out, resent at the
        // RTO; ACK(1000) with ECE enters CWR from CA_LOSS. ns-3.38: ssthresh = (1 − 1/2)·1000 B
        // = 500 B (1 segment here); PRR's bound sends min(max(2 − 0, 1), 1 − 0) = 1 segment.
        // ns-3-dev: 2 segments, two sent.
        for (cut, ss, sent) in [(true, 1, vec![1]), (false, 2, vec![1, 2])] {
            let c = dctcp(cut, 1);
            let (mut s, mut out, rto) = timed_out(&c);
            out.clear();
            let h = TcpHeader { ece: true, ..ack(1000, &[]) };
            s.on_ack(rto + Time(1), &h, &c, &ends(), &mut out);
            assert_eq!((s.state(), s.tcb.ssthresh, seqs(&out)), (CaState::Cwr, ss, sent), "loss_state_cut {cut}");
        }
    }

    #[test]
    fn ns3s_loss_state_enters_cwr_on_an_ece_below_the_recovery_point() {
        // Ten segments out; the RTO marks them all lost and resends segment 0 (recovery point 10).
        // ACK(1000) with ECE advances below the point: ns-3 enters CWR there too. Pipe 0 (1..9
        // lost, none resent): ssthresh max(0, 2) = 2; RecoverFS = 9 + 1 = 10; prr_delivered 2,
        // PRR-CRB min(max(2, 1), 2) = 2: the lost segments 1 and 2 go out again.
        let c = ns3_dctcp(true, 10);
        let (mut s, mut out) = started(&c);
        let rto = s.rtt.rto();
        s.on_rto_timer(rto, &c, &ends(), &mut out);
        out.clear();
        s.on_ack(rto + Time(1), &TcpHeader { ece: true, ..ack(1000, &[]) }, &c, &ends(), &mut out);
        assert_eq!((s.state(), s.tcb.ssthresh, s.tcb.cwnd, seqs(&out)), (CaState::Cwr, 2, 2, vec![1, 2]));
        assert_eq!(s.recovery_point, 10);
    }

    #[test]
    fn ns3s_prr_counts_the_entering_acks_delivery_twice() {
        // Reno, ten segments out, ACK(1000) with ECE: ssthresh 5, RecoverFS 10, one segment
        // forced out (pipe 10). ACK(2000): pipe 9 > 5, so the proportional part sends
        // ⌈prr_delivered · 5 / 10⌉ − 1: with RFC 6937's count prr_delivered = 2, nothing; with
        // ns-3's (the first ACK counted twice) 3, one segment (11).
        let second = |entry: bool| {
            let c = TcpConfig { ecn: EcnMode::Classic, prr: true, prr_ns3_entry: entry, ..cfg(true) };
            let (mut s, mut out) = started(&c);
            out.clear();
            s.on_ack(Time(1), &TcpHeader { ece: true, ..ack(1000, &[]) }, &c, &ends(), &mut out);
            assert_eq!(seqs(&out), vec![10]);
            out.clear();
            s.on_ack(Time(2), &ack(2000, &[]), &c, &ends(), &mut out);
            seqs(&out)
        };
        assert_eq!(second(false), Vec::<u64>::new());
        assert_eq!(second(true), vec![11]);
    }

    #[test]
    fn prr_in_bytes_rounds_up_in_bytes_as_ns3_does() {
        // DCTCP, ns-3's byte cut with α held at 0.98 (gain ~0): ten 1448-byte segments out, the
        // first ACK carries ECE, ssthresh = 10 · (1 − 0.49) = 5.1 segments (5 and 0.1 kept),
        // RecoverFS 10, ns-3's count of the first ACK (twice), then one segment per ACK. In
        // segments: ⌈d · 5 / 10⌉ − sent for d = 2..6 gives 1, 2, 2, 3, 3 in all, released
        // 1, 1, 0, 1, 0. In bytes: ssthresh ⌊5.1 · 1448⌋ = 7384 B, ⌊⌈d · 1448 · 7384 / 14480⌉ / 1448⌋
        // = ⌊1477, 2216, 2954, 3692, 4431 / 1448⌋ = 1, 1, 2, 2, 3, released 1, 0, 1, 0, 1
        // (ns-3's TcpPrrRecovery::DoRecovery, byte for byte).
        let released = |bytes: bool| {
            let mut c = TcpConfig { mss: 1448, prr_bytes: bytes, ..ns3_dctcp(true, 10) };
            c.cc_params.0[0] = Some(1e-6); // g
            c.cc_params.0[1] = Some(0.98); // initial_alpha
            let (mut s, mut out) = started(&c);
            let mut per_ack = Vec::new();
            for k in 1..=5u64 {
                out.clear();
                let h = TcpHeader { ece: k == 1, ..ack(k * 1448, &[]) };
                s.on_ack(Time(k), &h, &c, &ends(), &mut out);
                assert_eq!((s.state(), s.tcb.ssthresh), (CaState::Cwr, 5));
                per_ack.push(out.packets.len());
            }
            per_ack
        };
        assert_eq!(released(false), vec![1, 1, 0, 1, 0]);
        assert_eq!(released(true), vec![1, 0, 1, 0, 1]);
    }

    #[test]
    fn prr_in_bytes_keeps_the_half_segment_of_a_loss_states_odd_flight() {
        // Seven 1448-byte segments out when the reduction starts from the loss state: ssthresh
        // ⌊7/2⌋ = 3 segments, ns-3's 7 · 1448 / 2 = 5068 B (3.5). RecoverFS 7; one segment per
        // ACK; the first ACK releases one (forced). Bytes with the half: ⌊⌈d · 5068 / 7⌉ / 1448⌋
        // = 0, 1, 1, 2 for d = 1..4 (724, 1448, 2172, 2896 B), released 1, 0, 0, 1; without the
        // half (4344 B): 0, 0, 1, 1 (621, 1242, 1862, 2483 B), released 1, 0, 0, 0. In segments:
        // ⌈d · 3 / 7⌉ = 1, 1, 2, 2, released 1, 0, 1, 0.
        let released = |bytes: bool| {
            let c = TcpConfig { mss: 1448, prr_bytes: bytes, ..ns3_dctcp(true, 10) };
            let (mut s, mut out) = started(&c);
            out.clear();
            out.budget = 0; // nothing more leaves: seven stay out
            s.on_ack(Time(1), &ack(3 * 1448, &[]), &c, &ends(), &mut out);
            assert_eq!(s.board.pipe(), 7);
            s.state = CaState::Loss;
            s.enter_cwr(&c, 0);
            assert_eq!(s.tcb.ssthresh, 3);
            out.budget = u64::MAX;
            let mut per_ack = Vec::new();
            for k in 4..=7u64 {
                out.clear();
                s.on_ack(Time(k), &ack(k * 1448, &[]), &c, &ends(), &mut out);
                per_ack.push(out.packets.len());
            }
            per_ack
        };
        assert_eq!(released(true), vec![1, 0, 0, 1]);
        assert_eq!(released(false), vec![1, 0, 1, 0]);
    }

    fn classes(out: &Outbox) -> Vec<(u64, u8)> {
        out.packets.iter().map(|p| (p.tcp().seq, p.class)).collect()
    }

    #[test]
    fn syn_ack_samples_the_time_since_zero_with_htsims_zero_syn_timestamp() {
        // SYN sent at 80 ms, SYN-ACK back 40 us later. Measured: the sample is 40 us. htsim's SYN
        // carries timestamp 0, so its sample is 80.04 ms, and RFC 6298's first sample gives
        // SRTT = R, RTO = R + 4 R/2 = 3 R = 240.12 ms (above the 200 ms minimum).
        let srtt_rto = |syn_ts_zero: bool| {
            let c = TcpConfig { handshake: true, syn_ts_zero, ..cfg(true) };
            let mut s = Sender::new(&c, Some(100_000), 0);
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.start(Time::from_ms(80), &c, &ends(), &mut out);
            s.on_syn_ack(Time::from_ms(80) + Time::from_us(40), &c, &ends(), &mut out);
            (s.rtt.srtt(), s.rtt.rto())
        };
        assert_eq!(srtt_rto(false).0, Some(Time::from_us(40)));
        assert_eq!(srtt_rto(true), (Some(Time::from_us(80_040)), Time::from_us(240_120)));
    }

    #[test]
    fn handshake_ack_goes_ahead_of_the_first_data() {
        // With `handshake_ack` the SYN-ACK is answered by a header-only packet (ECN-capable as
        // the SYN, `ect_syn`) and then the initial window of 10; without, the window alone.
        for own in [false, true] {
            let c = TcpConfig { handshake: true, handshake_ack: own, ect_syn: super::super::EctSyn::On, ecn: EcnMode::Dctcp, ..cfg(true) };
            let mut s = Sender::new(&c, Some(100_000), 0);
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.start(Time(0), &c, &ends(), &mut out);
            out.clear();
            s.on_syn_ack(Time(10), &c, &ends(), &mut out);
            let kinds: Vec<Kind> = out.packets.iter().map(|p| p.kind).collect();
            assert_eq!(kinds.len(), 10 + own as usize);
            assert_eq!(kinds[0], if own { Kind::Control } else { Kind::Data });
            assert_eq!(out.packets[0].ecn, Ecn::Ect0);
            assert_eq!((out.packets[0].tcp().seq, out.packets[0].size), (0, if own { c.ack_size } else { 1000 + c.header }));
        }
    }

    #[test]
    fn syn_is_ecn_capable_only_when_asked() {
        use super::super::EctSyn;
        let syn_ecn = |ect_syn: EctSyn, ecn: EcnMode| {
            let c = TcpConfig { handshake: true, ect_syn, ecn, ..cfg(true) };
            let mut s = Sender::new(&c, Some(100_000), 0);
            let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
            s.start(Time(0), &c, &ends(), &mut out);
            assert_eq!((out.packets.len(), out.packets[0].kind), (1, Kind::Syn));
            out.packets[0].ecn
        };
        assert_eq!(syn_ecn(EctSyn::Off, EcnMode::Dctcp), Ecn::NotEct); // RFC 3168 §6.1.1
        assert_eq!(syn_ecn(EctSyn::On, EcnMode::Dctcp), Ecn::Ect0); // Linux DCTCP, ns-3 DctcpEcn
        assert_eq!(syn_ecn(EctSyn::On, EcnMode::Off), Ecn::NotEct);
        assert_eq!(syn_ecn(EctSyn::On, EcnMode::Classic), Ecn::Ect0);
        // The ns-3 stack's rule: ECT only in DCTCP's ECN mode (`AddSocketTags` tags a packet
        // without payload only in `DctcpEcn` mode).
        assert_eq!(syn_ecn(EctSyn::Dctcp, EcnMode::Dctcp), Ecn::Ect0);
        assert_eq!(syn_ecn(EctSyn::Dctcp, EcnMode::Classic), Ecn::NotEct);
        assert_eq!(syn_ecn(EctSyn::Dctcp, EcnMode::Off), Ecn::NotEct);
    }

    #[test]
    fn pias_demotes_at_its_thresholds() {
        // Thresholds 10 KB and 50 KB (3 classes), 1000-byte segments, all 100 sent at once:
        // segments starting at 0..=10 000 B go in class 0 (11), 11 000..=50 000 in class 1 (40),
        // the other 49 in class 2 (PIAS §3.1: demoted once bytes sent exceed a threshold).
        let mut th = [u64::MAX; super::super::priority::MAX_THRESHOLDS];
        th[0] = 10_000;
        th[1] = 50_000;
        let c = TcpConfig { initial_cwnd: 100, priority: Priority::Mlfq { n: 3, thresholds: th }, ..cfg(true) };
        let mut s = Sender::new(&c, Some(100_000), 0);
        let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
        s.start(Time(0), &c, &ends(), &mut out);
        let got = classes(&out);
        assert_eq!(got.len(), 100);
        for (seq, class) in got {
            let expect = if seq <= 10_000 { 0 } else if seq <= 50_000 { 1 } else { 2 };
            assert_eq!(class, expect, "segment at {seq}");
        }
    }

    #[test]
    fn flash_sets_the_class_once_per_window_from_equation_1() {
        // α held at 0.5 (g ≈ 0), T_1 = 5000 B, E = 2 (T = 5, 10, 20 KB), 4 classes, IW 4.
        let mut knobs = super::super::cc::Knobs::default();
        knobs.0[0] = Some(1e-6);
        knobs.0[1] = Some(0.5);
        let c = TcpConfig {
            initial_cwnd: 4,
            cc: super::super::CcKind::L2dct,
            cc_params: knobs,
            ecn: EcnMode::Dctcp,
            priority: Priority::Flash { n: 4, t1: 5_000, e: 2.0, aware: false },
            ..cfg(true)
        };
        let mut s = Sender::new(&c, Some(100_000), 0);
        let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
        s.start(Time(0), &c, &ends(), &mut out);
        // Window 1 starts with nothing sent: W = 0, class 0, for its 4 packets.
        assert_eq!(classes(&out), vec![(0, 0), (1000, 0), (2000, 0), (3000, 0)]);
        out.clear();
        // All 4 acked: slow start doubles cwnd to 8. Window 2 starts at 4000 B sent:
        // W = 4000 / (1 − 0.5) = 8000 → class 1 for all 8 packets (re-evaluated at 12 000 B).
        s.on_ack(Time::from_us(10), &ack(4000, &[]), &c, &ends(), &mut out);
        let w2 = classes(&out);
        assert_eq!(w2.len(), 8);
        assert!(w2.iter().all(|&(_, cl)| cl == 1), "{w2:?}");
        out.clear();
        // Window 3 starts at 12 000 B: W = 24 000 ≥ T_3 = 20 000 → class 3, the lowest of 4.
        s.on_ack(Time::from_us(20), &ack(12_000, &[]), &c, &ends(), &mut out);
        let w3 = classes(&out);
        assert_eq!(w3.first(), Some(&(12_000, 3)));
        assert!(w3.iter().all(|&(_, cl)| cl == 3));
        // Flash-IA ranks by the remaining size: 100 KB left / 0.5 = 200 KB → class 3 from the start.
        let ia = TcpConfig { priority: Priority::Flash { n: 4, t1: 5_000, e: 2.0, aware: true }, ..c };
        let mut s = Sender::new(&ia, Some(100_000), 0);
        let mut out = Outbox { budget: u64::MAX, ..Outbox::default() };
        s.start(Time(0), &ia, &ends(), &mut out);
        assert!(classes(&out).iter().all(|&(_, cl)| cl == 3));
    }

    #[test]
    fn timestamps_or_ns3_s_new_ack_end_the_rto_back_off_with_the_retransmission_s_ack() {
        // The whole initial window is lost; the RTO (min 1 ms, initial 1 ms) fires at 1 ms and
        // retransmits segment 0, doubling the timer to 2 ms. Its ACK comes back 10 us later.
        // Karn (RFC 6298 §5.7): a retransmitted segment gives no RTT sample, the back-off stays
        // (the next RTO would be 2 ms). RFC 7323 timestamps: the ACK echoes the retransmission's
        // timestamp, a 10 us sample, and the back-off is gone (RTO back to its 1 ms floor).
        // ns-3's `NewAck` (`rto_backoff_end = "new_ack"`) recomputes the RTO from the estimator
        // at that ACK, sample or not: the back-off is gone without timestamps too, the estimator
        // still unseeded.
        for (timestamps, new_ack, backoffs, rto_ms) in [(false, false, 1, 2), (true, false, 0, 1), (false, true, 0, 1)] {
            let mut c = TcpConfig { timestamps, backoff_ends_on_new_ack: new_ack, ..cfg(true) };
            c.rto.min = Time::from_ms(1);
            c.rto.initial = Time::from_ms(1);
            c.handshake_rtt = false;
            let (mut s, mut out) = started(&c);
            out.clear();
            s.on_rto_timer(Time::from_ms(1), &c, &ends(), &mut out);
            assert_eq!(seqs(&out), vec![0]);
            assert_eq!(s.rtt.backoffs(), 1);
            out.clear();
            s.on_ack(Time::from_ms(1) + Time::from_us(10), &ack(1000, &[]), &c, &ends(), &mut out);
            assert_eq!(s.rtt.backoffs(), backoffs, "timestamps = {timestamps}, new_ack = {new_ack}");
            assert_eq!(s.rtt.rto(), Time::from_ms(rto_ms), "timestamps = {timestamps}, new_ack = {new_ack}");
            assert_eq!(s.rtt.srtt(), if timestamps { Some(Time::from_us(10)) } else { None });
            // The timer restarts at that ACK with the RTO it leaves (a lazy timer: its deadline).
            let at = Time::from_ms(1) + Time::from_us(10);
            assert_eq!(s.rto.deadline(), Some(at + Time::from_ms(rto_ms)), "timestamps = {timestamps}, new_ack = {new_ack}");
        }
    }

    #[test]
    fn ns3s_new_ack_back_off_end_needs_an_ack_that_advances() {
        // ns-3 recomputes the RTO in `NewAck`, which a duplicate ACK never reaches. The case
        // above with `rto_backoff_end = "new_ack"`: after the timeout (back-off 1, RTO 2 ms) a
        // duplicate ACK of 0 with a SACK of segment 1 keeps the back-off; ACK 1 000 ends it.
        let mut c = TcpConfig { backoff_ends_on_new_ack: true, ..cfg(true) };
        c.rto.min = Time::from_ms(1);
        c.rto.initial = Time::from_ms(1);
        c.handshake_rtt = false;
        let (mut s, mut out) = started(&c);
        s.on_rto_timer(Time::from_ms(1), &c, &ends(), &mut out);
        assert_eq!(s.rtt.backoffs(), 1);
        s.on_ack(Time::from_ms(1) + Time::from_us(5), &ack(0, &[(1000, 2000)]), &c, &ends(), &mut out);
        assert_eq!((s.rtt.backoffs(), s.rtt.rto()), (1, Time::from_ms(2)), "a duplicate ACK");
        s.on_ack(Time::from_ms(1) + Time::from_us(10), &ack(1000, &[(1000, 2000)]), &c, &ends(), &mut out);
        assert_eq!((s.rtt.backoffs(), s.rtt.rto()), (0, Time::from_ms(1)), "an ACK that advances");
    }

    #[test]
    fn ticked_timeouts_fire_at_the_next_scan_with_htsims_spread() {
        let ms = Time::from_ms;
        assert_eq!(ticked(Time::from_us(330_200), Time::ZERO), Time::from_us(330_200), "no tick: at the deadline");
        // Scans every 0.5 ms: due at 330.2 ms, the 330.5 ms scan is 0.3 ms late and acts
        // (0.5 − 0.3) ms / 200 = 1 us after it.
        assert_eq!(ticked(Time::from_us(330_200), Time::from_us(500)), Time::from_us(330_501));
        // Due exactly at a scan: htsim's check is now > deadline, so the next scan, 0.5 ms late: +0.
        assert_eq!(ticked(ms(330) + Time::from_us(500), Time::from_us(500)), ms(331));
        // Due just after a scan: the next is nearly a period late and acts at once; due just
        // before one: acts almost period/200 = 2.5 us after it (htsim's spread).
        assert_eq!(ticked(ms(330) + Time(1), Time::from_us(500)), ms(330) + Time::from_us(500));
        assert_eq!(ticked(ms(330) + Time::from_us(500) - Time(1), Time::from_us(500)), ms(330) + Time::from_us(500) + Time(2_499_999));
        // A sender with the tick arms its RTO on it: 50 us fixed RTO from 0, scans every 30 us:
        // due at 50, scanned at 60 (10 us late), acts (30 − 10)/200 us = 100 ns later.
        let c = TcpConfig { fixed_rto: super::super::FixedRto::Time(Time::from_us(50)), rto_tick: Time::from_us(30), ..cfg(true) };
        let (_, out) = started(&c);
        assert_eq!(out.timers.last().map(|t| t.0), Some(Time::from_us(60) + Time(100_000)));
    }

    #[test]
    fn probe_mode_after_repeated_timeouts_and_out_on_the_first_answer() {
        // pFabric §4.2: a fixed timeout (no back-off); after `probe_after` = 2 timeouts in a row
        // the sender sends header-only probes, one per timeout, and resumes on an ACK.
        let c = TcpConfig { fixed_rto: super::super::FixedRto::Time(Time::from_us(50)), probe_after: 2, ..cfg(true) };
        let (mut s, mut out) = started(&c);
        out.clear();
        s.on_rto_timer(Time::from_us(50), &c, &ends(), &mut out);
        assert_eq!(seqs(&out), vec![0], "first timeout: retransmit snd_una");
        assert_eq!(out.packets[0].tcp().len, 1000);
        assert_eq!(out.timers.last().map(|t| t.0), Some(Time::from_us(100)), "fixed RTO, no back-off");
        out.clear();
        s.on_rto_timer(Time::from_us(100), &c, &ends(), &mut out);
        assert_eq!(out.packets.len(), 1);
        assert_eq!((out.packets[0].tcp().seq, out.packets[0].tcp().len), (0, 0), "second timeout: a probe");
        assert_eq!(out.packets[0].size, c.header);
        out.clear();
        s.on_rto_timer(Time::from_us(150), &c, &ends(), &mut out);
        assert_eq!(out.packets.iter().map(|p| p.tcp().len).collect::<Vec<_>>(), vec![0], "still probing");
        assert_eq!(s.stats.probes, 2);
        out.clear();
        // The probe is answered (a duplicate ACK of 0): data flows again from snd_una.
        s.on_ack(Time::from_us(160), &ack(0, &[]), &c, &ends(), &mut out);
        assert_eq!(seqs(&out), vec![0]);
        assert_eq!(out.packets[0].tcp().len, 1000);
    }

    #[test]
    fn under_time_dilation_the_congestion_control_reads_the_kernels_clock() {
        // TDF 20: 100 ms of the network are 2 s of the kernel; an SRTT of 50 us is 1 ms; a
        // pacing rate the algorithm sets to 1000 segments per kernel second is 20 000 per
        // network second; everything is the network's again after the hook.
        let c = TcpConfig { time_dilation: 20, ..cfg(true) };
        let mut s = Sender::new(&c, Some(100_000), 1);
        s.tcb.now = Time::from_ms(100);
        s.tcb.srtt = Some(Time::from_us(50));
        s.tcb.pacing_rate = Some(40_000.0);
        let seen = s.cc_call(|_, t| {
            let seen = (t.now, t.srtt, t.pacing_rate);
            t.pacing_rate = Some(1000.0);
            seen
        });
        assert_eq!(seen, (Time::from_ms(2000), Some(Time::from_ms(1)), Some(2000.0)));
        assert_eq!((s.tcb.now, s.tcb.srtt, s.tcb.pacing_rate), (Time::from_ms(100), Some(Time::from_us(50)), Some(20_000.0)));
        // Times handed to a hook (RTT samples) are scaled the same way.
        assert_eq!(s.kernel_time(Time::from_ms(100)), Time::from_ms(2000));
        // The kernel's timers shrink by the same factor.
        let d = TcpConfig::default().dilate(20);
        assert_eq!((d.rto.min, d.rto.initial, d.rto.max, d.delack_timeout, d.tlp_min), (Time::from_ms(10), Time::from_ms(50), Time::from_ms(3000), Time::from_ms(10), Time::from_us(500)));
    }
}
