//! DCTCP sender (Alizadeh et al., SIGCOMM 2010 §3.1; RFC 8257 §3.3–3.5).
//!
//! α is estimated once per observation window (about one RTT: until snd_una passes the snd_nxt
//! recorded at the window's start) from the fraction F of bytes acknowledged with ECE:
//! α ← (1 − g)·α + g·F (RFC 8257 eq. in §3.3). On ECE the window is cut once per window to
//! cwnd·(1 − α/2) (computed as Linux does: cwnd − ⌊cwnd·α/2⌋, at least 2); on loss (fast
//! retransmit or RTO) it halves like Reno (RFC 8257 §3.5, Linux `dctcp_react_to_loss`).
//!
//! `cc_params = { byte_cut = 1 }` cuts as ns-3's `TcpDctcp::GetSsThresh` does (ns-3-dev
//! src/internet/model/tcp-dctcp.cc): the window is kept in bytes and cut to exactly (1 − α/2) of
//! itself, with no floor of 2 segments, and a segment goes out while a whole one fits
//! (`TcpSocketBase::SendPendingData`); so the part of a segment the cut leaves is carried to the
//! next cut (growth adds whole segments, as ns-3's `TcpLinuxReno`). Linux's integer cut spares a
//! small window: at 6 segments it cuts nothing until α reaches 1/3. One segment is the floor here,
//! where ns-3's window can fall below one segment and stop sending.
//!
//! `cc_params = { window_cut = 1 }` runs htsim's variant instead (csg-htsim `DCTCPSrc::
//! receivePacket`), for side-by-side validation against htsim: at the end of *every* observation
//! window cwnd is cut to cwnd·(1 − α/2) while α > 0, marked or not, and ssthresh follows it; an ECE
//! only ends slow start (ssthresh ≤ cwnd), without a cut of its own.
//!
//! Two more of htsim's rules (csg-htsim sim/dctcp.cpp, sim/tcp.cpp), each its own knob:
//! `ack_window = 1` counts the observation window in ACKs, duplicates included, as
//! `DCTCPSrc::receivePacket` does (`_pkts_seen`, `_pkts_marked`): it ends once the ACKs seen
//! reach the window of the last update (`_past_cwnd`: cwnd after that update's cut; 2 segments at
//! first; cwnd before the reduction after a loss, when `deflate_window` restarts the count), and
//! F is the fraction of those ACKs with ECE. So windows keep ending while snd_una stands still in
//! a fast recovery, and with `window_cut` each cuts the (inflated) window there too.
//! `cwr_on_ece = 0` starts no CWR episode on ECE: htsim's `TcpSrc::receivePacket` grows the
//! window on every new ACK outside fast recovery, marked or not (Linux and RFC 3168 §6.1.2 hold
//! it for a window); the ECE only lowers ssthresh to cwnd. With `window_cut`, `byte_cut = 1` makes
//! htsim's cut exact too: its window is bytes, so `_cwnd * (1 - _alfa/2)` keeps the part of a
//! segment that Linux's rounding drops (a window of 7.7 segments at α = 0.2 loses 0.77 of one
//! there, nothing here); the fraction is carried to the next cut. With the TCP key `window =
//! "htsim_bytes"` the whole window is htsim's bytes (`byte_window.rs`): the cut, the ECE's
//! ssthresh and the window of ACKs (`_pkts_seen · mss ≥ _past_cwnd`) are then in those bytes.
//!
//! Two of ns-3's rules (ns-3-dev src/internet/model/tcp-dctcp.cc, tcp-socket-base.cc), each its
//! own knob, for validation against ns-3 (docs/VALIDATION.md, B1): `first_window_at_ack = 1` starts
//! the first observation window at the first ACK, as `TcpDctcp::PktsAcked` sets `m_nextSeq` then,
//! so α first moves once everything sent by that ACK is acknowledged (by default the window starts
//! at the connection's start and the first ACK closes it). `cut_before_alpha = 1` cuts with α as it
//! was before the current ACK's update: ns-3's `TcpSocketBase::ReceivedAck` enters CWR (`EnterCwr`,
//! `GetSsThresh`) before `ProcessAck` calls `PktsAcked`, where Linux updates α first (`dctcp_update_
//! alpha` in `tcp_ack`'s `in_ack_event`, before `tcp_fastretrans_alert`). Both act on the window by
//! sequence (not with `ack_window`).

use super::{reno_cong_avoid, AckEvent, CaState, CongestionOps, CwndEvent, Tcb};
use crate::time::Time;
use crate::transport::ports::{dctcp_k, mark_queues, pkts, Needs, PaperPorts, PortSetup};
use serde_json::Map;

/// DCTCP parameters (RFC 8257 §4.2 defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DctcpParams {
    /// Estimation gain g (RFC 8257: 1/16).
    pub g: f64,
    /// α at connection start (RFC 8257 §3.3: 1, the conservative choice).
    pub initial_alpha: f64,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams { g: 1.0 / 16.0, initial_alpha: 1.0 }
    }
}

/// Scenario knobs (`cc_params`; also the keys `dctcp_g`, `dctcp_initial_alpha`).
pub const KNOBS: &[super::Knob] = &[
    super::Knob { name: "g", default: 1.0 / 16.0, min: 1e-6, max: 1.0, help: "α estimation gain" },
    super::Knob { name: "initial_alpha", default: 1.0, min: 0.0, max: 1.0, help: "α at connection start" },
];

/// DCTCP's own knobs: the shared ones and htsim's window-cut variant (not for the algorithms that
/// embed DCTCP's α, which take `KNOBS`).
pub const DCTCP_KNOBS: &[super::Knob] = &[
    KNOBS[0],
    KNOBS[1],
    super::Knob { name: "window_cut", default: 0.0, min: 0.0, max: 1.0, help: "1: htsim's DCTCPSrc (cut by α/2 every window while α > 0; ECE only ends slow start)" },
    super::Knob { name: "byte_cut", default: 0.0, min: 0.0, max: 1.0, help: "1: ns-3's TcpDctcp (the window, kept in bytes, cut to exactly (1 − α/2) of itself, no floor of 2 segments)" },
    super::Knob { name: "ack_window", default: 0.0, min: 0.0, max: 1.0, help: "1: htsim's DCTCPSrc observation window: counted in ACKs, duplicates included, until they reach the last update's cwnd" },
    super::Knob { name: "cwr_on_ece", default: 1.0, min: 0.0, max: 1.0, help: "0: an ECE starts no CWR episode, growth goes on (htsim's TcpSrc); it only lowers ssthresh to cwnd" },
    super::Knob { name: "first_window_at_ack", default: 0.0, min: 0.0, max: 1.0, help: "1: ns-3's TcpDctcp::PktsAcked: the first observation window starts at the first ACK (α first moves once the initial window is acknowledged)" },
    super::Knob { name: "cut_before_alpha", default: 0.0, min: 0.0, max: 1.0, help: "1: ns-3's TcpSocketBase::ReceivedAck: an ACK that enters CWR cuts with α as it was before that ACK's own update" },
    super::Knob { name: "ns3_growth", default: 0.0, min: 0.0, max: 1.0, help: "1: ns-3's TcpLinuxReno::IncreaseWindow as TcpDctcp runs it: slow start or congestion avoidance per ACK (no leftover carried), no cwnd-limited check, the avoidance count kept across timeouts and reductions, a step on an ACK of no whole segment" },
    super::Knob { name: "empty_window", default: 0.0, min: 0.0, max: 1.0, help: "1: an observation window that counted no acknowledged bytes closes too on an ACK that advances (α decays with F = 0), as ns-3's TcpDctcp::PktsAcked does at the ACK that ends a timeout's loss state at its recovery point" },
    super::Knob { name: "ns3_loss_cut", default: 0.0, min: 0.0, max: 1.0, help: "1: ns-3's TcpSocketBase::ReTxTimeout: a timeout's ssthresh is TcpDctcp::GetSsThresh in the state before it ((1 − α/2)·cwnd), not Linux's halving" },
    super::Knob { name: "loss_state_cut", default: 0.0, min: 0.0, max: 1.0, help: "1: ns-3's releases to 3.48: in the loss state too (a repeated timeout, an ECE ending it) TcpDctcp::GetSsThresh is the (1 − α/2) cut of the window, not half the flight (ns-3-dev d3181b537, after ns-3.48)" },
];

impl DctcpParams {
    /// These parameters with the knobs set in a scenario.
    pub fn with_knobs(mut self, k: &super::Knobs) -> Self {
        self.g = k.0[0].unwrap_or(self.g);
        self.initial_alpha = k.0[1].unwrap_or(self.initial_alpha);
        self
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    p: DctcpParams,
    alpha: f64,
    window_end: u64,
    bytes_acked: u64,
    bytes_marked: u64,
    /// α updates so far (one per observation window, about one RTT): PPT's LCP reads α once
    /// per update.
    rounds: u64,
    /// htsim's variant (module docs).
    window_cut: bool,
    /// ns-3's cut (module docs): the part of a segment the window holds beyond `tcb.cwnd`.
    byte_cut: Option<f64>,
    /// htsim's window of ACKs (module docs): `_pkts_seen`, `_pkts_marked`, `_past_cwnd`.
    ack_window: Option<AckWindow>,
    /// Whether an ECE starts a CWR episode (module docs).
    cwr_on_ece: bool,
    /// ns-3's first window (module docs): `window_end` is unset until the first ACK sets it.
    first_window_at_ack: bool,
    /// ns-3's order (module docs): an ACK's cut takes α before that ACK's update.
    cut_before_alpha: bool,
    /// With `cut_before_alpha`, after an update on the ACK being processed: when, and α before it
    /// (used only by a cut in that instant; cleared at the next ACK and at a loss).
    alpha_before_ack: Option<(Time, f64)>,
    /// ns-3's growth (`ns3_growth`): TcpLinuxReno's `m_cWndCnt`, which only its congestion
    /// avoidance touches (the sender's `cwnd_cnt` is reset at losses and reductions, Linux's).
    ns3_cnt: Option<u32>,
    /// ns-3's timeout (`ns3_loss_cut`): the loss event keeps the ssthresh the cut gave.
    ns3_loss_cut: bool,
    /// ns-3's releases (`loss_state_cut`): the cut in the loss state too.
    loss_state_cut: bool,
    /// ns-3's α (`empty_window`): a window that counted no bytes closes too, on an ACK that
    /// advances (ns-3 calls `PktsAcked` with no segment only there).
    empty_window: bool,
    /// snd_una at the previous ACK (for `empty_window`).
    prev_una: u64,
    /// The last byte cut: the ssthresh it gave the sender (segments, at least 1) and ns-3's
    /// ssthresh in bytes, which `ns3_growth` compares with while the sender's is still that one.
    ss_cut: Option<(u32, u64)>,
}

/// `window_end` before ns-3's first window is set (`first_window_at_ack`).
const WINDOW_UNSET: u64 = u64::MAX;

/// htsim's observation window counted in ACKs (`DCTCPSrc`'s `_pkts_seen`, `_pkts_marked`,
/// `_past_cwnd`, in segments or, with htsim's byte window, bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct AckWindow {
    seen: u32,
    marked: u32,
    /// In segments, or in bytes when the sender keeps htsim's byte window (`Tcb::bytes`).
    past_cwnd: u64,
}

impl AckWindow {
    /// `DCTCPSrc`'s constructor: `_past_cwnd = 2 * data_packet_size()`.
    const START: AckWindow = AckWindow { seen: 0, marked: 0, past_cwnd: 2 };

    /// A new window of ACKs that ends when they reach `tcb`'s window now.
    fn from(tcb: &Tcb) -> AckWindow {
        AckWindow { seen: 0, marked: 0, past_cwnd: tcb.bytes.map_or(tcb.cwnd as u64, |b| b.cwnd) }
    }
}

impl Dctcp {
    pub fn new(p: DctcpParams) -> Dctcp {
        Dctcp {
            p,
            alpha: p.initial_alpha,
            window_end: 0,
            bytes_acked: 0,
            bytes_marked: 0,
            rounds: 0,
            window_cut: false,
            byte_cut: None,
            ack_window: None,
            cwr_on_ece: true,
            first_window_at_ack: false,
            cut_before_alpha: false,
            alpha_before_ack: None,
            ns3_cnt: None,
            ns3_loss_cut: false,
            loss_state_cut: false,
            empty_window: false,
            prev_una: 0,
            ss_cut: None,
        }
    }
    /// With `window_cut` (DCTCP_KNOBS[2] set to 1): htsim's variant.
    pub fn with_knobs(p: DctcpParams, k: &super::Knobs) -> Dctcp {
        let byte_cut = (k.get(DCTCP_KNOBS, 3) >= 0.5).then_some(0.0);
        let ack_window = (k.get(DCTCP_KNOBS, 4) >= 0.5).then_some(AckWindow::START);
        let cwr_on_ece = k.get(DCTCP_KNOBS, 5) >= 0.5;
        let first_window_at_ack = k.get(DCTCP_KNOBS, 6) >= 0.5;
        let cut_before_alpha = k.get(DCTCP_KNOBS, 7) >= 0.5;
        let ns3_cnt = (k.get(DCTCP_KNOBS, 8) >= 0.5).then_some(0);
        let empty_window = k.get(DCTCP_KNOBS, 9) >= 0.5;
        let ns3_loss_cut = k.get(DCTCP_KNOBS, 10) >= 0.5;
        let loss_state_cut = k.get(DCTCP_KNOBS, 11) >= 0.5;
        Dctcp {
            ns3_cnt,
            ns3_loss_cut,
            loss_state_cut,
            empty_window,
            window_cut: k.get(DCTCP_KNOBS, 2) >= 0.5,
            byte_cut,
            ack_window,
            cwr_on_ece,
            first_window_at_ack,
            cut_before_alpha,
            ..Dctcp::new(p.with_knobs(k))
        }
    }
    /// ns-3's `TcpDctcp` (tcp-dctcp.cc on `TcpLinuxReno`, ns-3.33–3.40) as `DCTCP_KNOBS`: the cut
    /// in bytes, the first window at the first ACK, the cut before the ACK's α update, its growth,
    /// α's decay on an empty window, the cut at a timeout and in the loss state. `[host] stack =
    /// "ns-3"` gives them to `dctcp`, and PPT's and RC3's primary loops take them with `ns3_dctcp`.
    pub const NS3_RULES: &'static [(&'static str, f64)] = &[
        ("byte_cut", 1.0),
        ("first_window_at_ack", 1.0),
        ("cut_before_alpha", 1.0),
        ("ns3_growth", 1.0),
        ("empty_window", 1.0),
        ("ns3_loss_cut", 1.0),
        ("loss_state_cut", 1.0),
    ];

    /// DCTCP with `p` and ns-3's `TcpDctcp` rules ([`Dctcp::NS3_RULES`]) when `ns3`, else Linux's.
    pub fn primary_loop(p: DctcpParams, ns3: bool) -> Dctcp {
        if !ns3 {
            return Dctcp::new(p);
        }
        let mut k = super::Knobs::default();
        for &(name, v) in Dctcp::NS3_RULES {
            let i = DCTCP_KNOBS.iter().position(|n| n.name == name).expect("a DCTCP knob");
            k.0[i] = Some(v);
        }
        Dctcp::with_knobs(p, &k)
    }
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
    pub fn set_alpha(&mut self, a: f64) {
        self.alpha = a;
    }
    /// How many times α has been updated (observation windows closed).
    pub fn rounds(&self) -> u64 {
        self.rounds
    }
    /// A loss: a timeout (`timeout`), or fast recovery starting.
    fn react_to_loss(&mut self, tcb: &mut Tcb, timeout: bool) {
        if self.ns3_loss_cut {
            // ns-3 (`ReTxTimeout`, `EnterRecovery`): ssthresh is the cut `ssthresh` gave
            // (TcpDctcp has no loss event); after a timeout the window is one whole segment,
            // in fast recovery PRR counts the cut's fraction.
            if timeout {
                if let Some(f) = self.byte_cut.as_mut() {
                    *f = 0.0;
                }
            }
            self.alpha_before_ack = None;
            return;
        }
        if tcb.bytes.is_none() {
            tcb.ssthresh = (tcb.cwnd / 2).max(2); // (the sender halves a byte window itself)
        }
        if let Some(f) = self.byte_cut.as_mut() {
            *f = 0.0;
        }
        self.alpha_before_ack = None;
        if let Some(w) = self.ack_window.as_mut() {
            // DCTCPSrc::deflate_window: the count restarts from the window before the reduction.
            *w = AckWindow::from(tcb);
        }
    }

    /// One EWMA step of α from the window's marked fraction, htsim's cut if chosen, and the next
    /// window's start.
    fn close_window(&mut self, tcb: &mut Tcb, f: f64) {
        self.alpha = (1.0 - self.p.g) * self.alpha + self.p.g * f;
        let alpha = self.alpha;
        // htsim's own window is bytes (`byte_window.rs`): the cut is exact there.
        if self.window_cut && alpha > 0.0 && !tcb.bytes_do(|b| b.cut(alpha)) {
            if let Some(f) = self.byte_cut.as_mut() {
                // htsim's window is bytes: `_cwnd * (1 - _alfa/2)` keeps the fraction of a segment.
                let w = (tcb.cwnd as f64 + *f) * (1.0 - alpha / 2.0);
                *f = w - w.floor();
                tcb.cwnd = (w.floor() as u32).max(1);
            } else {
                let cut = (tcb.cwnd as f64 * alpha / 2.0).floor() as u32;
                tcb.cwnd = (tcb.cwnd - cut.min(tcb.cwnd)).max(1);
            }
            tcb.ssthresh = tcb.cwnd;
        }
        self.rounds += 1;
    }
}

impl CongestionOps for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }
    fn init(&mut self, tcb: &mut Tcb) {
        self.window_end = if self.first_window_at_ack { WINDOW_UNSET } else { tcb.snd_nxt };
        if let (Some(w), Some(b)) = (self.ack_window.as_mut(), tcb.bytes) {
            // htsim's two packets, in bytes, unless a lost SYN's timeout restarted the count.
            if *w == AckWindow::START {
                *w = AckWindow { past_cwnd: 2 * b.seg, ..AckWindow::START };
            }
        }
    }
    fn ssthresh(&mut self, tcb: &Tcb) -> u32 {
        if self.window_cut {
            return tcb.ssthresh.min(tcb.cwnd); // htsim: an ECE only ends slow start
        }
        // ns-3 cuts before this ACK's α update (`cut_before_alpha`); otherwise α as it is now.
        // Only for a cut in the same instant as that ACK: a timeout or probe later cuts with α now.
        let alpha = match self.alpha_before_ack {
            Some((at, a)) if at == tcb.now => a,
            _ => self.alpha,
        };
        if let Some(f) = self.byte_cut.as_mut() {
            // ns-3: ssthresh = (1 − α/2)·cwnd in bytes, truncated to a whole byte
            // (`static_cast<uint32_t>` in `TcpDctcp::GetSsThresh`), so the window stays whole
            // bytes; segments go out while a whole one fits.
            let mss = tcb.mss as f64;
            let window = ((tcb.cwnd as f64 + *f) * mss).round();
            let cut = ((1.0 - alpha / 2.0) * window).floor();
            let k = (cut / mss).floor();
            *f = (cut - k * mss) / mss;
            let ss = (k as u32).max(1);
            self.ss_cut = Some((ss, cut as u64));
            return ss;
        }
        let cut = (tcb.cwnd as f64 * alpha / 2.0).floor() as u32;
        (tcb.cwnd - cut.min(tcb.cwnd)).max(2)
    }
    fn cong_avoid(&mut self, tcb: &mut Tcb, acked: u32) {
        let Some(cnt) = self.ns3_cnt.as_mut() else {
            return reno_cong_avoid(tcb, acked);
        };
        // ns-3 TcpLinuxReno::IncreaseWindow (TcpDctcp: SetSuppressIncreaseIfCwndLimited(false)):
        // slow start below ssthresh, else CongestionAvoidance with its own count; never both on
        // one ACK. Compared in bytes with `byte_cut` (ns-3's window and ssthresh are bytes).
        let mss = tcb.mss as u64;
        let win = tcb.cwnd as u64 * mss + self.byte_cut.map_or(0, |f| (f * mss as f64).round() as u64);
        let ss = match self.ss_cut {
            Some((seg, bytes)) if seg == tcb.ssthresh => bytes,
            _ => tcb.ssthresh as u64 * mss,
        };
        if win < ss {
            if acked >= 1 {
                // SlowStart: min(cwnd + acked·MSS, ssthresh); capped, the window takes its fraction.
                let new = (win + acked as u64 * mss).min(ss);
                tcb.cwnd = ((new / mss) as u32).max(1);
                if let Some(f) = self.byte_cut.as_mut() {
                    *f = (new % mss) as f64 / mss as f64;
                }
            }
        } else {
            let w = tcb.cwnd.max(1);
            if *cnt >= w {
                *cnt = 0;
                tcb.cwnd += 1;
            }
            *cnt += acked;
            if *cnt >= w {
                let d = *cnt / w;
                *cnt -= d * w;
                tcb.cwnd += d;
            }
        }
    }
    fn grows_on_no_segment(&self) -> bool {
        self.ns3_cnt.is_some()
    }
    fn in_ack_event(&mut self, tcb: &mut Tcb, ev: AckEvent) {
        if ev.ece && !self.cwr_on_ece && !tcb.bytes_do(|b| b.end_slow_start()) {
            tcb.ssthresh = tcb.ssthresh.min(tcb.cwnd); // htsim: "exit slow start"
        }
        if let Some(mut w) = self.ack_window {
            w.seen += 1;
            w.marked += ev.ece as u32;
            // `_pkts_seen * _mss >= _past_cwnd`: in bytes with a byte window.
            if w.seen as u64 * tcb.bytes.map_or(1, |b| b.seg) >= w.past_cwnd {
                self.close_window(tcb, w.marked as f64 / w.seen as f64);
                w = AckWindow::from(tcb);
            }
            self.ack_window = Some(w);
            return;
        }
        self.alpha_before_ack = None;
        if self.window_end == WINDOW_UNSET {
            // ns-3's TcpDctcp::PktsAcked sets its m_nextSeq at the first ACK (`first_window_at_ack`).
            self.window_end = tcb.snd_nxt;
        }
        self.bytes_acked += ev.acked_bytes;
        if ev.ece {
            self.bytes_marked += ev.acked_bytes;
        }
        let advanced = std::mem::replace(&mut self.prev_una, tcb.snd_una) < tcb.snd_una;
        if tcb.snd_una >= self.window_end && (self.bytes_acked > 0 || (self.empty_window && advanced)) {
            if self.cut_before_alpha {
                self.alpha_before_ack = Some((tcb.now, self.alpha));
            }
            // ns-3 (`empty_window`): F = 0 when nothing was counted.
            let f = if self.bytes_acked > 0 { self.bytes_marked as f64 / self.bytes_acked as f64 } else { 0.0 };
            self.close_window(tcb, f);
            self.window_end = tcb.snd_nxt;
            self.bytes_acked = 0;
            self.bytes_marked = 0;
        }
    }
    fn cwnd_event(&mut self, tcb: &mut Tcb, ev: CwndEvent) {
        if ev == CwndEvent::Loss {
            self.react_to_loss(tcb, true);
        }
    }
    fn set_state(&mut self, tcb: &mut Tcb, s: CaState) {
        if s == CaState::Recovery {
            self.react_to_loss(tcb, false);
        }
    }
    fn cwr_on_ece(&self) -> bool {
        self.cwr_on_ece
    }
    fn ssthresh_fraction(&self) -> f64 {
        self.byte_cut.unwrap_or(0.0)
    }
    /// ns-3.33 to 3.48 (`loss_state_cut`): `TcpDctcp::GetSsThresh` has no case for CA_LOSS, so a
    /// repeated timeout and an ECE that ends the loss state cut the loss state's own window by
    /// (1 − α/2); ns-3-dev (d3181b537, after 3.48) halves the flight there instead.
    fn loss_state_ssthresh(&mut self, tcb: &Tcb) -> Option<u32> {
        self.loss_state_cut.then(|| self.ssthresh(tcb))
    }
}

/// DCTCP's switch ports (Alizadeh et al., SIGCOMM 2010 §3.1, §3.4): one FIFO marking CE on
/// arrivals that find more than K packets queued, K from [`dctcp_k`]. D2TCP and L2DCT ran on the
/// same switches.
pub const PORTS: PaperPorts = PaperPorts {
    needs: Needs { marking: true, ..Needs::NONE },
    summary: "one FIFO marking ECN above K: K > C*RTT/7, the paper's 20 pkt at 1 Gb/s and 65 at 10 Gb/s (DCTCP §3.4)",
    setup: |_, f| {
        let (k, why) = dctcp_k(f);
        PortSetup { ports: mark_queues(Map::new(), pkts(k)), host_ports: None, note: why }
    },
};

#[cfg(test)]
mod tests {
    use super::super::tcb;
    use super::*;

    /// Feed one observation window of `n` ACKs of 1000 B, `marked` of them with ECE.
    fn window(d: &mut Dctcp, t: &mut Tcb, n: u64, marked: u64) {
        for i in 0..n {
            t.snd_una += 1000;
            t.snd_nxt += 1000;
            d.in_ack_event(t, AckEvent { ece: i < marked, acked_bytes: 1000 });
        }
    }

    /// htsim's DCTCP from α₀ = 0 with the knobs `set` (index, value), on a window of `cwnd`
    /// segments of 1000 B all in flight (ssthresh 1000).
    fn htsim_dctcp(set: &[(usize, f64)], cwnd: u32) -> (Dctcp, Tcb) {
        let mut k = super::super::Knobs::default();
        for &(i, v) in set {
            k.0[i] = Some(v);
        }
        let mut d = Dctcp::with_knobs(DctcpParams { initial_alpha: 0.0, ..Default::default() }, &k);
        let mut t = tcb(cwnd, 1000);
        t.snd_nxt = cwnd as u64 * 1000;
        d.init(&mut t);
        (d, t)
    }

    #[test]
    fn alpha_converges_to_marked_fraction() {
        // RFC 8257 §3.3 (α ← (1 − g)·α + g·F): a constant marked fraction F makes α converge to F.
        let mut d = Dctcp::new(DctcpParams::default());
        let mut t = tcb(10, 100);
        t.snd_nxt = 10_000; // ten segments in flight: a window is ten ACKs
        d.init(&mut t);
        for _ in 0..300 {
            // Each window ends when snd_una passes window_end = snd_nxt at the previous update.
            window(&mut d, &mut t, 10, 3);
        }
        assert!((d.alpha() - 0.3).abs() < 1e-6, "{}", d.alpha());
    }

    #[test]
    fn alpha_update_is_one_ewma_step_per_window() {
        let mut d = Dctcp::new(DctcpParams { g: 1.0 / 16.0, initial_alpha: 1.0 });
        let mut t = tcb(10, 100);
        d.init(&mut t); // window_end = 0: the first ACK closes a window at once.
        window(&mut d, &mut t, 1, 0);
        assert!((d.alpha() - 15.0 / 16.0).abs() < 1e-12);
    }

    #[test]
    fn cut_is_alpha_over_two() {
        // RFC 8257 §3.3 (cwnd × (1 − α/2)): α = 1 halves like Reno, α = 0 does not cut; α = 0.25 cuts 12.5 %.
        let t = tcb(40, 100);
        assert_eq!(Dctcp::new(DctcpParams { initial_alpha: 1.0, ..Default::default() }).ssthresh(&t), 20);
        assert_eq!(Dctcp::new(DctcpParams { initial_alpha: 0.0, ..Default::default() }).ssthresh(&t), 40);
        assert_eq!(Dctcp::new(DctcpParams { initial_alpha: 0.25, ..Default::default() }).ssthresh(&t), 35);
    }

    #[test]
    fn ns3s_cut_is_exact_on_a_window_kept_in_bytes() {
        // ns-3 TcpDctcp::GetSsThresh: (1 − α/2)·cwnd in bytes, no floor; a segment goes out while
        // a whole one fits. α = 0.3 from 6 segments: 6·0.85 = 5.1 → 5 (Linux: 6 − ⌊0.9⌋ = 6);
        // again from 5.1: 4.335 → 4; α = 1 from 4.335: 2.1675 → 2, then 1.08375 → 1 (Linux stops
        // at 2), and it stays at one segment (ns-3 would go below one and stall: not modelled).
        let mut k = super::super::Knobs::default();
        k.0[3] = Some(1.0);
        let mut d = Dctcp::with_knobs(DctcpParams { initial_alpha: 0.3, ..Default::default() }, &k);
        let mut linux = Dctcp::new(DctcpParams { initial_alpha: 0.3, ..Default::default() });
        assert_eq!((d.ssthresh(&tcb(6, 100)), linux.ssthresh(&tcb(6, 100))), (5, 6));
        assert_eq!(d.ssthresh(&tcb(5, 100)), 4);
        d.set_alpha(1.0);
        linux.set_alpha(1.0);
        assert_eq!(d.ssthresh(&tcb(4, 100)), 2);
        assert_eq!((d.ssthresh(&tcb(2, 100)), linux.ssthresh(&tcb(2, 100))), (1, 2));
        assert_eq!(d.ssthresh(&tcb(1, 100)), 1);
        // A loss halves like Reno and forgets the fraction: from 10, ssthresh 5; then α = 1 cuts
        // 5 to 2 (2.5), not 2.77.
        let mut t = tcb(10, 100);
        d.cwnd_event(&mut t, CwndEvent::Loss);
        assert_eq!(t.ssthresh, 5);
        assert_eq!(d.ssthresh(&tcb(5, 100)), 2);
        assert_eq!(d.ssthresh(&tcb(3, 100)), 1, "3.5 / 2 = 1.75: the half segment carried over");
    }

    #[test]
    fn ns3s_cut_truncates_to_a_whole_byte() {
        // ns-3 keeps cwnd and ssthresh in whole bytes (`static_cast<uint32_t>((1 − α/2)·cWnd)`),
        // so a cut's fraction of a byte is lost and can decide a later segment. MSS 1448: from
        // 7 segments (10 136 B) at α = 0.285794, (1 − α/2)·10 136 = 8 687.6 → 8 687 B (5
        // segments + 1 447 B). One segment of growth: 10 135 B. α = 0.2856: 0.8572 · 10 135 =
        // 8 687.7 → 8 687 B, 5 segments; kept unrounded (10 135.6 B) it would be 8 688.2 B, 6.
        let mut k = super::super::Knobs::default();
        k.0[3] = Some(1.0);
        let mut d = Dctcp::with_knobs(DctcpParams { initial_alpha: 0.285794, ..Default::default() }, &k);
        let at = |cwnd| Tcb { mss: 1448, ..tcb(cwnd, 100) };
        assert_eq!(d.ssthresh(&at(7)), 5);
        assert!((d.ssthresh_fraction() - 1447.0 / 1448.0).abs() < 1e-12, "{}", d.ssthresh_fraction());
        d.set_alpha(0.2856);
        assert_eq!(d.ssthresh(&at(6)), 5);
        assert!((d.ssthresh_fraction() - 1447.0 / 1448.0).abs() < 1e-12, "8 687 B = 5 segments + 1 447 B");
    }

    #[test]
    fn ns3s_growth_is_slow_start_or_avoidance_never_both_and_ignores_cwnd_limits() {
        // ns-3 TcpLinuxReno::IncreaseWindow (TcpDctcp): cwnd 4, ssthresh 5, 3 acked: slow start
        // to min(7, 5) = 5 and nothing more (Linux carries the 2 left into avoidance: count 2).
        // Then not cwnd-limited: Linux does not grow; ns-3's TcpDctcp grows anyway
        // (SetSuppressIncreaseIfCwndLimited(false)): 5 acked at w = 5, cwnd 6.
        let mut k = super::super::Knobs::default();
        k.0[8] = Some(1.0);
        let mut d = Dctcp::with_knobs(DctcpParams::default(), &k);
        let mut linux = Dctcp::new(DctcpParams::default());
        let (mut t, mut u) = (tcb(4, 5), tcb(4, 5));
        d.cong_avoid(&mut t, 3);
        linux.cong_avoid(&mut u, 3);
        assert_eq!((t.cwnd, t.cwnd_cnt, u.cwnd, u.cwnd_cnt), (5, 0, 5, 2));
        t.cwnd_limited = false;
        u.cwnd_limited = false;
        d.cong_avoid(&mut t, 5);
        linux.cong_avoid(&mut u, 5);
        assert_eq!((t.cwnd, u.cwnd), (6, 5));
        assert!(d.grows_on_no_segment() && !linux.grows_on_no_segment());
    }

    #[test]
    fn ns3s_alpha_closes_a_window_that_counted_nothing() {
        // ns-3 TcpDctcp::PktsAcked(0) on an ACK past the window's end: α = 15/16·α + 0. Without
        // `empty_window` the window stays open until bytes are counted.
        for (empty, alpha) in [(false, 1.0), (true, 15.0 / 16.0)] {
            let mut k = super::super::Knobs::default();
            k.0[9] = Some(if empty { 1.0 } else { 0.0 });
            let mut d = Dctcp::with_knobs(DctcpParams::default(), &k);
            let mut t = tcb(10, 100);
            t.snd_una = 5000;
            d.in_ack_event(&mut t, AckEvent { ece: false, acked_bytes: 0 });
            assert_eq!(d.alpha(), alpha, "empty_window = {empty}");
        }
    }

    #[test]
    fn ns3s_loss_cut_keeps_the_fraction_in_fast_recovery_not_after_a_timeout() {
        // Byte cut of 9 segments at α = 0.5 (MSS 1000): 6 750 B, ssthresh 6 and 0.75 of a
        // segment. With `ns3_loss_cut` fast recovery keeps the 0.75 for PRR (ns-3's ssthresh is
        // 6 750 B there); a timeout leaves the window one whole segment (the fraction 0); Linux's
        // rule halves and forgets it either way.
        for (ns3, recovery, timeout) in [(true, 0.75, 0.0), (false, 0.0, 0.0)] {
            let mut k = super::super::Knobs::default();
            k.0[3] = Some(1.0);
            k.0[10] = Some(if ns3 { 1.0 } else { 0.0 });
            let mut d = Dctcp::with_knobs(DctcpParams { initial_alpha: 0.5, ..Default::default() }, &k);
            let mut t = tcb(9, 100);
            assert_eq!(d.ssthresh(&t), 6);
            d.set_state(&mut t, CaState::Recovery);
            assert_eq!(d.ssthresh_fraction(), recovery, "ns3 {ns3}");
            d.cwnd_event(&mut t, CwndEvent::Loss);
            assert_eq!(d.ssthresh_fraction(), timeout, "ns3 {ns3}");
        }
    }

    #[test]
    fn htsims_variant_cuts_every_window_while_alpha_is_positive() {
        // csg-htsim DCTCPSrc::receivePacket: α = 15/16·α + F/16 per window, then cwnd × (1 − α/2)
        // whenever α > 0, marked or not; ECE alone does not cut.
        let (mut d, mut t) = htsim_dctcp(&[(2, 1.0)], 40);
        window(&mut d, &mut t, 40, 0); // no marks, α stays 0: no cut
        assert_eq!((t.cwnd, t.ssthresh), (40, 1000));
        assert_eq!(d.ssthresh(&t), 40); // an ECE now: ssthresh down to cwnd, cwnd kept
        window(&mut d, &mut t, 40, 40); // all marked: α = 1/16, cut ⌊40/32⌋ = 1
        assert_eq!((t.cwnd, t.ssthresh), (39, 39));
        window(&mut d, &mut t, 40, 0); // unmarked, α = 15/256 > 0: cut ⌊39·15/512⌋ = 1 again
        assert_eq!(t.cwnd, 38);
        // Without the knob the same windows never cut (RFC 8257 cuts on ECE, in the core).
        let (mut r, mut u) = htsim_dctcp(&[], 40);
        window(&mut r, &mut u, 40, 40);
        assert_eq!(u.cwnd, 40);
    }

    #[test]
    fn htsims_cut_with_byte_cut_keeps_the_fraction_of_a_segment() {
        // htsim's cwnd is bytes: _cwnd * (1 - _alfa/2) from 10 segments at α = 1/16 is 9.6875
        // (9 segments go out, 0.6875 kept); the next window, unmarked (α = 15/256), cuts 9.6875 to
        // 9.6875 · (1 − 15/512) = 9.4037. Linux-style rounding cuts ⌊10/32⌋ = 0 and ⌊10 · 15/512⌋ = 0.
        let (mut d, mut t) = htsim_dctcp(&[(2, 1.0), (3, 1.0)], 10);
        window(&mut d, &mut t, 10, 10);
        assert_eq!((t.cwnd, t.ssthresh, d.byte_cut), (9, 9, Some(0.6875)));
        window(&mut d, &mut t, 10, 0); // by sequence: the 10 segments sent in the first window
        let f = d.byte_cut.unwrap();
        assert_eq!(t.cwnd, 9);
        assert!((9.0 + f - 9.6875 * (1.0 - 15.0 / 512.0)).abs() < 1e-12, "{f}");
        let (mut r, mut u) = htsim_dctcp(&[(2, 1.0)], 10);
        window(&mut r, &mut u, 10, 10);
        window(&mut r, &mut u, 10, 0);
        assert_eq!(u.cwnd, 10);
    }

    /// ACK `i` (1-based) of a flow that sent 10 segments of 1000 B at once and one more per ACK:
    /// snd_una = 1000·i, snd_nxt = 10 000 + 1000·(i − 1).
    fn ack(d: &mut Dctcp, t: &mut Tcb, i: u64, ece: bool) {
        t.snd_una = 1000 * i;
        t.snd_nxt = 10_000 + 1000 * (i - 1);
        d.in_ack_event(t, AckEvent { ece, acked_bytes: 1000 });
    }

    #[test]
    fn ns3s_first_window_starts_at_the_first_ack() {
        // ns-3 TcpDctcp::PktsAcked sets m_nextSeq at the first ACK. g = 1/16, α₀ = 1, init before
        // anything is sent (snd_nxt 0), then an initial window of 10 segments; ACKs 6–10 marked.
        // ns-3: the first ACK sets the window's end at snd_nxt = 10 000, so only ACK 10 closes it,
        // F = 5000/10 000: α = 15/16 + 1/32 = 31/32, one update. By default (Linux) the first ACK
        // closes a window at once (F = 0: α = 15/16) and ACK 10 (snd_una 10 000 ≥ 10 000) a second
        // of 9 ACKs, 5 marked: α = 225/256 + 5/144.
        let mut k = super::super::Knobs::default();
        k.0[6] = Some(1.0);
        for (knobs, rounds_at_1, alpha) in [(k, 0, 31.0 / 32.0), (Default::default(), 1, 225.0 / 256.0 + 5.0 / 144.0)] {
            let mut d = Dctcp::with_knobs(DctcpParams::default(), &knobs);
            let mut t = tcb(10, 100);
            d.init(&mut t);
            ack(&mut d, &mut t, 1, false);
            assert_eq!(d.rounds(), rounds_at_1);
            for i in 2..=10 {
                ack(&mut d, &mut t, i, i >= 6);
            }
            assert_eq!(d.rounds(), rounds_at_1 + 1);
            assert!((d.alpha() - alpha).abs() < 1e-12, "{} {alpha}", d.alpha());
        }
    }

    #[test]
    fn ns3s_cut_takes_alpha_before_the_acks_update() {
        // ns-3 TcpSocketBase::ReceivedAck: EnterCwr → GetSsThresh before ProcessAck → PktsAcked.
        // α₀ = 1, g = 1/16, cwnd 40 all in flight; a window of 40 ACKs, the last with ECE:
        // α = 15/16 + 1/640 = 601/640 on that ACK, which also enters CWR. Linux order: the cut
        // takes 601/640: 40 − ⌊40 · 601/1280⌋ = 40 − 18 = 22; in bytes (byte_cut) 40 · 679/1280 =
        // 21.22 → 21. ns-3's order: α = 1 still, 20 either way. On the next ACK (no update) both
        // take 601/640.
        for byte_cut in [false, true] {
            let mut k = super::super::Knobs::default();
            k.0[3] = byte_cut.then_some(1.0);
            let linux = Dctcp::with_knobs(DctcpParams::default(), &k);
            k.0[7] = Some(1.0);
            let ns3 = Dctcp::with_knobs(DctcpParams::default(), &k);
            for (mut d, cut) in [(linux, if byte_cut { 21 } else { 22 }), (ns3, 20)] {
                let mut t = tcb(40, 1000);
                t.snd_nxt = 40_000;
                d.init(&mut t);
                for i in 0..40 {
                    t.snd_una += 1000;
                    t.snd_nxt += 1000;
                    d.in_ack_event(&mut t, AckEvent { ece: i == 39, acked_bytes: 1000 });
                }
                assert_eq!((d.rounds(), d.alpha()), (1, 601.0 / 640.0));
                assert_eq!(d.ssthresh(&t), cut, "byte_cut {byte_cut}");
                // A timeout later, with no ACK between, cuts with α as it is now (ns-3's
                // ReTxTimeout reads m_alpha), not the saved one.
                let at = t.now;
                t.now = at + Time::from_us(1);
                if let Some(f) = d.byte_cut.as_mut() {
                    *f = 0.0;
                }
                assert_eq!(d.ssthresh(&t), if byte_cut { 21 } else { 22 }, "a later cut: α updated");
                t.now = at;
                if let Some(f) = d.byte_cut.as_mut() {
                    *f = 0.0;
                }
                t.snd_una += 1000;
                d.in_ack_event(&mut t, AckEvent { ece: false, acked_bytes: 1000 });
                if let Some(f) = d.byte_cut.as_mut() {
                    *f = 0.0;
                }
                assert_eq!(d.ssthresh(&t), if byte_cut { 21 } else { 22 }, "the next ACK: α updated");
            }
        }
    }

    #[test]
    fn htsims_ack_window_counts_acks_duplicates_included() {
        // csg-htsim DCTCPSrc::receivePacket: the window ends when _pkts_seen · mss ≥ _past_cwnd
        // (2 segments at first, then cwnd after each update). cwnd 40, window_cut, α₀ = 0.
        let (mut d, mut t) = htsim_dctcp(&[(2, 1.0), (4, 1.0)], 40);
        let dup = AckEvent { ece: true, acked_bytes: 0 };
        d.in_ack_event(&mut t, AckEvent { ece: false, acked_bytes: 1000 });
        assert_eq!(d.rounds(), 0);
        d.in_ack_event(&mut t, dup); // the 2nd ACK closes the first window: F = 1/2, α = 1/32
        assert_eq!((d.rounds(), d.alpha()), (1, 1.0 / 32.0));
        assert_eq!(t.cwnd, 40, "⌊40 · 1/64⌋ = 0: no cut");
        // 40 duplicate ACKs (snd_una still), all marked: one window of 40. α = 15/16 · 1/32 +
        // 1/16 = 47/512; cut ⌊40 · 47/1024⌋ = ⌊1.836⌋ = 1.
        for _ in 0..39 {
            d.in_ack_event(&mut t, dup);
        }
        assert_eq!(d.rounds(), 1);
        d.in_ack_event(&mut t, dup);
        assert_eq!((d.rounds(), d.alpha(), t.cwnd, t.ssthresh), (2, 47.0 / 512.0, 39, 39));
        // A loss restarts the count from the window before its reduction (deflate_window).
        d.set_state(&mut t, CaState::Recovery);
        assert_eq!(d.ack_window, Some(AckWindow { seen: 0, marked: 0, past_cwnd: 39 }));
        // By sequence instead (the default), duplicate ACKs close no window.
        let (mut r, mut u) = htsim_dctcp(&[(2, 1.0)], 40);
        for _ in 0..100 {
            r.in_ack_event(&mut u, dup);
        }
        assert_eq!((r.rounds(), u.cwnd), (0, 40));
    }

    #[test]
    fn loss_halves_regardless_of_alpha() {
        let mut d = Dctcp::new(DctcpParams { initial_alpha: 0.0, ..Default::default() });
        let mut t = tcb(40, 100);
        t.ssthresh = d.ssthresh(&t);
        d.set_state(&mut t, CaState::Recovery);
        assert_eq!(t.ssthresh, 20);
    }
}
