//! The sender's per-segment scoreboard: SACKed / lost / retransmitted flags for every segment in
//! flight, with counters kept in step so that `pipe` (RFC 6675 §4 SetPipe) is O(1).
//!
//! Segments are numbered from 0; segment `i` carries bytes `[i·MSS, min((i+1)·MSS, size))`. The
//! sender always sends whole segments on these boundaries (retransmissions included), so every ACK
//! and SACK edge falls on a boundary.

use crate::time::Time;
use std::collections::VecDeque;

const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETRANS: u8 = 4;
const EVER_RETRANS: u8 = 8;
/// Delivered by a low-priority loop before the normal loop reached it (PPT §5, RC3): the normal
/// loop skips it. Not in flight, never lost or resent, and no SACK evidence for loss detection or
/// RACK (it was not sent by this loop).
const SKIP: u8 = 16;
/// SACKed once and forgotten at a timeout (`clear_sacked`): its delivery was counted then, so a
/// later SACK or cumulative ACK of it does not count it again.
const WAS_SACKED: u8 = 32;

/// The connection's delivery state when a segment was sent (draft-cheng-iccrg-delivery-rate-
/// estimation §3.2: P.delivered, P.delivered_time, P.first_sent_time, P.is_app_limited).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxState {
    pub delivered: u64,
    pub delivered_time: Time,
    pub first_tx: Time,
    pub app_limited: bool,
}

#[derive(Clone, Copy, Debug)]
struct Seg {
    sent: Time,
    flags: u8,
}

/// What cumulatively acknowledging segments revealed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckedSegs {
    pub count: u64,
    /// Send time of the highest newly acked segment, if it was never retransmitted (Karn).
    pub rtt_sent: Option<Time>,
    /// Of `count`, segments a low-priority loop had delivered (skipped by this loop), and whether
    /// the highest acknowledged segment was one of them.
    pub skipped: u64,
    pub last_skipped: bool,
    /// A newly acknowledged segment, not SACKed before, had been retransmitted (ns-3's
    /// `TcpTxBuffer::IsRetransmittedDataAcked`, PRR's safe ACK).
    pub retrans_acked: bool,
}

/// Rings of at most this many entries are never shrunk; larger ones shrink to no fewer than half
/// of it (`Scoreboard::give_back`).
const KEEP_SEGS: usize = 64;

/// Per-segment state for segments `[una, nxt)`.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    una: u64,
    segs: VecDeque<Seg>,
    /// Delivery-rate snapshots, parallel to `segs`, kept only when `track_rate` (for congestion
    /// controls that use rate samples) so other flows keep 16-byte entries.
    tx: VecDeque<TxState>,
    pub track_rate: bool,
    /// RTT samples as RFC 7323 timestamps give them (`TcpConfig::timestamps`), not Karn's.
    pub timestamps: bool,
    sacked: u64,
    lost: u64,
    retrans: u64,
    skipped: u64,
    /// Highest SACKed segment + 1 (0 if none above una).
    high_sacked: u64,
    /// The most recently sent segment among those delivered (acked or SACKed) so far: its
    /// (re)transmission time and index — RACK.xmit_ts and RACK.end_seq (RFC 8985 §6.1).
    delivered_xmit: Time,
    delivered_seg: u64,
    /// Segments delivered (cumulatively acked or SACKed) since the start (C.delivered).
    pub delivered: u64,
    /// The latest send time of the segments the ACK being processed newly SACKed (reset by
    /// `set_ack_context`), for ns-3's lost-retransmission rule (`mark_retransmits_lost_before`).
    pub sacked_sent_max: Time,
    /// The most recently sent segment delivered since `take_newest_delivered` (its send time and
    /// snapshot), for the delivery-rate sample.
    newest_delivered: Option<(Time, TxState)>,
    /// Times a segment was marked lost (monotonic; per-ACK differences give "losses").
    pub lost_marks: u64,
    /// Arrival time of the ACK being processed and the minimum RTT (`set_ack_context`).
    ack_now: Time,
    ack_min_rtt: Option<Time>,
    /// No segment below this is unmarked (`first_unmarked`'s cursor): a marked segment stays
    /// marked, since LOST, SACKED and SKIP are never cleared and RETRANS only as LOST is set
    /// (`mark_all_lost_forgetting_sacks` clears SACKED only where it sets LOST at once).
    unmarked_from: u64,
    /// Every segment below this is SACKed, skipped or deemed lost, so `mark_lost_by_sacks` has
    /// nothing to change there (those flags are never cleared): its walk stops here, which keeps
    /// a long loss episode (a lost retransmission waiting for its timeout) linear, not quadratic.
    settled: u64,
    /// Ranges `sack` has marked whole (every segment in them SACKed or skipped, which stays so):
    /// a block reported again walks only what lies beyond the range it starts in. Three, as an
    /// ACK carries up to three blocks.
    sacked_runs: [(u64, u64); 3],
}

impl Scoreboard {
    pub fn una(&self) -> u64 {
        self.una
    }
    pub fn nxt(&self) -> u64 {
        self.una + self.segs.len() as u64
    }
    pub fn packets_out(&self) -> u64 {
        self.segs.len() as u64
    }
    pub fn sacked_out(&self) -> u64 {
        self.sacked
    }
    pub fn lost_out(&self) -> u64 {
        self.lost
    }
    pub fn retrans_out(&self) -> u64 {
        self.retrans
    }
    pub fn high_sacked(&self) -> u64 {
        self.high_sacked.max(self.una)
    }

    /// RFC 6675 SetPipe(): unSACKed segments not deemed lost, plus retransmissions in flight.
    #[inline]
    pub fn pipe(&self) -> u64 {
        self.packets_out() - self.sacked - self.skipped - self.lost + self.retrans
    }

    fn at(&self, seg: u64) -> Option<&Seg> {
        seg.checked_sub(self.una).and_then(|i| self.segs.get(i as usize))
    }
    fn at_mut(&mut self, seg: u64) -> Option<&mut Seg> {
        seg.checked_sub(self.una).and_then(|i| self.segs.get_mut(i as usize))
    }

    /// SACKed, or delivered by a low-priority loop (`push_skipped`).
    pub fn is_sacked(&self, seg: u64) -> bool {
        self.at(seg).is_some_and(|s| s.flags & (SACKED | SKIP) != 0)
    }
    pub fn is_lost(&self, seg: u64) -> bool {
        self.at(seg).is_some_and(|s| s.flags & LOST != 0)
    }
    pub fn is_retransmitted(&self, seg: u64) -> bool {
        self.at(seg).is_some_and(|s| s.flags & RETRANS != 0)
    }

    /// Record the first transmission of segment `nxt`.
    #[inline]
    pub fn push_new(&mut self, now: Time, tx: TxState) {
        self.segs.push_back(Seg { sent: now, flags: 0 });
        if self.track_rate {
            self.tx.push_back(tx);
        }
    }

    /// Segment `nxt` was delivered by a low-priority loop: record it without sending it.
    #[inline]
    pub fn push_skipped(&mut self, now: Time, tx: TxState) {
        self.segs.push_back(Seg { sent: now, flags: SKIP });
        if self.track_rate {
            self.tx.push_back(tx);
        }
        self.skipped += 1;
    }

    /// The newest delivered segment since the last call (see `newest_delivered`).
    pub fn take_newest_delivered(&mut self) -> Option<(Time, TxState)> {
        self.newest_delivered.take()
    }

    /// RACK.xmit_ts and RACK.end_seq (as a segment index).
    pub fn rack_point(&self) -> (Time, u64) {
        (self.delivered_xmit, self.delivered_seg)
    }

    /// The ACK being processed arrived at `now`, and the minimum RTT is `min_rtt`: a delivered
    /// segment that was retransmitted less than `min_rtt` ago must have been delivered by an
    /// earlier transmission, so it does not move RACK's time point (RFC 8985 §6.2 step 2).
    pub fn set_ack_context(&mut self, now: Time, min_rtt: Option<Time>) {
        self.ack_now = now;
        self.ack_min_rtt = min_rtt;
        self.sacked_sent_max = Time::ZERO;
    }

    /// ns-3's `TcpTxBuffer::MarkRetransmittedSegmentsLost`: every retransmission, not SACKed,
    /// last sent strictly before `t` (the newest send among the segments an ACK newly SACKed) is
    /// lost, at once: no reorder window, no tie broken by sequence. Returns the lowest so marked.
    pub fn mark_retransmits_lost_before(&mut self, t: Time) -> Option<u64> {
        if self.retrans == 0 {
            return None;
        }
        let mut lowest = None;
        for (i, s) in self.segs.iter_mut().enumerate() {
            if s.flags & RETRANS == 0 || s.flags & (SACKED | SKIP) != 0 || s.sent >= t {
                continue;
            }
            mark_seg_lost(s, &mut self.retrans, &mut self.lost, &mut self.lost_marks);
            lowest.get_or_insert(self.una + i as u64);
        }
        lowest
    }

    #[inline]
    fn note_delivered(&mut self, seg: u64, sent: Time, tx: TxState, flags: u8) {
        self.delivered += 1;
        let ambiguous = flags & EVER_RETRANS != 0 && self.ack_min_rtt.is_some_and(|m| self.ack_now < sent + m);
        if ambiguous {
            return;
        }
        self.note_xmit(seg, sent);
        // Only rate samples read it (`take_newest_delivered`).
        if self.track_rate && self.newest_delivered.is_none_or(|(t, _)| sent >= t) {
            self.newest_delivered = Some((sent, tx));
        }
    }

    /// A segment sent at `sent` was delivered: RACK's time point moves to it if it was sent
    /// later (by time, then sequence).
    #[inline]
    fn note_xmit(&mut self, seg: u64, sent: Time) {
        if sent > self.delivered_xmit || (sent == self.delivered_xmit && seg > self.delivered_seg) {
            self.delivered_xmit = sent;
            self.delivered_seg = seg;
        }
    }

    /// Record a retransmission of `seg`.
    pub fn mark_retransmitted(&mut self, seg: u64, now: Time, tx: TxState) {
        let s = self.at_mut(seg).expect("retransmitting a segment not in flight");
        debug_assert!(s.flags & SACKED == 0);
        let was = s.flags & RETRANS != 0;
        s.flags |= RETRANS | EVER_RETRANS;
        s.sent = now;
        if self.track_rate {
            let i = (seg - self.una) as usize;
            self.tx[i] = tx;
        }
        if !was {
            self.retrans += 1;
        }
    }

    /// Mark `seg` lost (unless SACKed or already lost). Returns whether it changed.
    pub fn mark_lost(&mut self, seg: u64) -> bool {
        let Some(s) = self.at_mut(seg) else { return false };
        if s.flags & (SACKED | LOST | SKIP) != 0 {
            return false;
        }
        s.flags |= LOST;
        self.lost += 1;
        self.lost_marks += 1;
        true
    }

    /// Cumulative ACK up to (not including) segment `ack`. Inlined into its one caller (the
    /// ACK handler): a call through the linker's table, and the result passed in memory, cost
    /// more than the lean loop.
    #[inline]
    pub fn ack_to(&mut self, ack: u64) -> AckedSegs {
        let mut out = AckedSegs::default();
        if self.timestamps && self.una < ack {
            // RFC 7323 §4.3: the ACK echoes the timestamp of the earliest segment it newly
            // acknowledges, as last sent.
            out.rtt_sent = self.segs.front().map(|s| s.sent);
        }
        while self.una < ack {
            let Some(s) = self.segs.pop_front() else { break };
            let seg = self.una;
            self.una += 1;
            out.count += 1;
            if s.flags == 0 && !self.track_rate {
                // A first transmission, neither SACKed nor lost, without a rate snapshot: the
                // common case, kept apart so the loop holds few of the board's fields.
                self.delivered += 1;
                self.note_xmit(seg, s.sent);
                out.last_skipped = false;
                if !self.timestamps {
                    out.rtt_sent = Some(s.sent);
                }
            } else {
                self.acked_flagged(seg, s, &mut out);
            }
        }
        if self.segs.len() * 8 <= self.segs.capacity() && self.segs.capacity() > KEEP_SEGS {
            self.give_back();
        }
        out
    }

    /// Return most of the segment rings once the flight is an eighth of what they hold, down to
    /// twice the flight (at least `KEEP_SEGS / 2`). A ring grows to the largest flight its flow
    /// ever had; kept for the rest of the run, the rings of a long-lived flow population grew
    /// without end (AccelToR at 40 racks: 214 MB more between 200 and 600 ms, 1.7 KB per elephant).
    #[cold]
    #[inline(never)]
    fn give_back(&mut self) {
        let keep = (self.segs.len() * 2).max(KEEP_SEGS / 2);
        self.segs.shrink_to(keep);
        self.tx.shrink_to(keep);
    }

    /// `ack_to` for a segment with flags or a rate snapshot (not inlined: the rarer case).
    #[inline(never)]
    fn acked_flagged(&mut self, seg: u64, s: Seg, out: &mut AckedSegs) {
        let tx = if self.track_rate { self.tx.pop_front().unwrap_or_default() } else { TxState::default() };
        out.last_skipped = s.flags & SKIP != 0;
        out.retrans_acked |= s.flags & EVER_RETRANS != 0 && s.flags & (SACKED | SKIP) == 0;
        if s.flags & SKIP != 0 {
            out.skipped += 1;
        } else if s.flags & (SACKED | WAS_SACKED) == 0 {
            self.note_delivered(seg, s.sent, tx, s.flags);
        }
        self.forget(s.flags);
        if !self.timestamps && s.flags & SKIP == 0 {
            out.rtt_sent = if s.flags & EVER_RETRANS == 0 { Some(s.sent) } else { None };
        }
    }

    fn forget(&mut self, flags: u8) {
        if flags & SKIP != 0 {
            self.skipped -= 1;
        } else if flags & SACKED != 0 {
            self.sacked -= 1;
        } else {
            if flags & LOST != 0 {
                self.lost -= 1;
            }
            if flags & RETRANS != 0 {
                self.retrans -= 1;
            }
        }
    }

    /// Mark segments `[from, to)` SACKed; returns how many were newly SACKed.
    pub fn sack(&mut self, from: u64, to: u64) -> u64 {
        let from = from.max(self.una);
        let to = to.min(self.nxt());
        // A block starting inside a range marked before is marked up to that range's end.
        let run = self.sacked_runs.iter().position(|&(a, b)| a <= from && from <= b && a < b);
        let start = run.map_or(from, |i| self.sacked_runs[i].1.max(from));
        let mut newly = 0;
        for seg in start..to {
            let s = self.at_mut(seg).unwrap();
            if s.flags & (SACKED | SKIP) != 0 {
                continue;
            }
            let f = s.flags;
            let sent = s.sent;
            self.sacked_sent_max = self.sacked_sent_max.max(sent);
            let s = self.at_mut(seg).unwrap();
            s.flags |= SACKED;
            let tx = if self.track_rate { self.tx[(seg - self.una) as usize] } else { TxState::default() };
            if f & WAS_SACKED == 0 {
                self.note_delivered(seg, sent, tx, f);
            }
            if f & LOST != 0 {
                self.lost -= 1;
            }
            if f & RETRANS != 0 {
                self.retrans -= 1;
            }
            self.sacked += 1;
            newly += 1;
        }
        if newly > 0 {
            self.high_sacked = self.high_sacked.max(to);
        }
        if from < to {
            let merged = match run {
                Some(i) => (self.sacked_runs[i].0, self.sacked_runs[i].1.max(to)),
                None => (from, to),
            };
            // Keep the merged range first; the least recently used one drops out.
            let keep = run.unwrap_or(2);
            self.sacked_runs.copy_within(0..keep, 1);
            self.sacked_runs[0] = merged;
        }
        newly
    }

    /// RFC 6675 §4 IsLost() applied to every segment: a segment is lost when `dupthresh`
    /// discontiguous SACKed blocks, or more than (dupthresh − 1)·MSS SACKed bytes, lie above it.
    /// `seg_bytes(i)` is segment i's payload. Returns the lowest newly-lost segment, if any.
    pub fn mark_lost_by_sacks(&mut self, dupthresh: u64, mss: u64, seg_bytes: impl Fn(u64) -> u64) -> Option<u64> {
        if self.sacked == 0 {
            return None;
        }
        let (mut blocks, mut bytes) = (0u64, 0u64);
        let mut above_sacked = false;
        let mut lowest = None;
        let top = self.high_sacked().min(self.nxt());
        let floor = self.settled.max(self.una);
        let mut seg = top;
        while seg > floor {
            seg -= 1;
            let flags = self.at(seg).unwrap().flags;
            if flags & SKIP != 0 {
                above_sacked = false;
                continue;
            }
            if flags & SACKED != 0 {
                if !above_sacked {
                    blocks += 1;
                }
                bytes += seg_bytes(seg);
                above_sacked = true;
                continue;
            }
            above_sacked = false;
            if blocks >= dupthresh || bytes > (dupthresh - 1) * mss {
                if flags & LOST != 0 {
                    // Everything below was judged with fewer SACKs above it, so only unmarked
                    // segments can change; keep walking (cheap: loss episodes only).
                    continue;
                }
                self.mark_lost(seg);
                lowest = Some(seg);
            }
        }
        let mut settled = floor;
        while self.at(settled).is_some_and(|s| s.flags & (SACKED | SKIP | LOST) != 0) {
            settled += 1;
        }
        self.settled = settled;
        lowest
    }

    /// Nothing for [`rack_detect`](Self::rack_detect) to find: the oldest segment out is a first
    /// transmission sent after the most recently sent delivered segment, so every later first
    /// transmission was too (they leave in sequence order) — the scan would stop at once. The
    /// common case of an ACK in order: one comparison instead of the scan's set-up.
    #[inline]
    pub fn rack_idle(&self) -> bool {
        let (xmit, end) = (self.delivered_xmit, self.delivered_seg);
        self.segs.front().is_none_or(|s| s.flags & RETRANS == 0 && (s.sent > xmit || (s.sent == xmit && self.una >= end)))
    }

    /// RACK loss detection (RFC 8985 §6.2, RACK_detect_loss): an unSACKed segment sent before
    /// the most recently sent delivered segment (by time, then sequence) is lost once it has been
    /// out for `rack_rtt + reo_wnd`; one that is not yet returns its remaining time, the soonest
    /// of which is the reordering timer (§6.3). With `all = false` only retransmissions are
    /// examined (the pre-RACK Linux `tcp_mark_lost_retrans`). A lost retransmission becomes
    /// eligible for retransmission again. Returns the lowest newly lost segment and the timer.
    pub fn rack_detect(&mut self, now: Time, rack_rtt: Time, reo_wnd: Time, all: bool) -> (Option<u64>, Option<Time>) {
        if !all && self.retrans == 0 {
            return (None, None);
        }
        let (mut lowest, mut timer) = (None, None::<Time>);
        let (xmit, end) = (self.delivered_xmit, self.delivered_seg);
        for (i, s) in self.segs.iter_mut().enumerate() {
            let seg = self.una + i as u64;
            let before = s.sent < xmit || (s.sent == xmit && seg < end);
            if !before {
                if s.flags & RETRANS == 0 {
                    // First transmissions go out in sequence order, and every later segment (or
                    // its retransmission) was sent no earlier: none of them qualifies either.
                    break;
                }
                continue;
            }
            if s.flags & (SACKED | SKIP) != 0 || (s.flags & RETRANS == 0 && (!all || s.flags & LOST != 0)) {
                continue;
            }
            let deadline = s.sent + rack_rtt + reo_wnd;
            if deadline > now {
                timer = Some(timer.map_or(deadline, |t| t.min(deadline)));
                continue;
            }
            mark_seg_lost(s, &mut self.retrans, &mut self.lost, &mut self.lost_marks);
            lowest.get_or_insert(seg);
        }
        (lowest, timer)
    }

    /// RTO with the SACK scoreboard forgotten, as RFC 2018 §8 says a sender should at a
    /// retransmission timeout ("the timeout might indicate that the data receiver has reneged")
    /// and ns-2.35's `SackFullTcpAgent::timeout_action` does under `clear_on_timeout_` (its
    /// default): every segment in flight, SACKed or not, is lost (`mark_all_lost`), and SACK
    /// blocks arriving later mark them again. A SACKed segment's delivery stays counted
    /// (`WAS_SACKED`). One function, so that no segment is ever left unmarked (`unmarked_from`).
    pub fn mark_all_lost_forgetting_sacks(&mut self) {
        for s in self.segs.iter_mut() {
            if s.flags & SACKED != 0 {
                // A SACKed segment may still carry LOST and RETRANS (`sack` leaves them, taking
                // it out of those counts): as a fresh loss it is counted below.
                s.flags = (s.flags & !(SACKED | LOST | RETRANS)) | WAS_SACKED;
            }
        }
        self.sacked = 0;
        self.high_sacked = self.una;
        self.sacked_runs = [(0, 0); 3];
        self.mark_all_lost();
    }

    /// RTO (RFC 6298 §5.4 + RFC 6675 §5.1): every unSACKed segment in flight is considered lost and
    /// no retransmission is in flight any more.
    pub fn mark_all_lost(&mut self) {
        for s in self.segs.iter_mut() {
            if s.flags & (SACKED | SKIP) == 0 {
                if s.flags & LOST == 0 {
                    self.lost += 1;
                    self.lost_marks += 1;
                }
                s.flags |= LOST;
                s.flags &= !RETRANS;
            }
        }
        self.retrans = 0;
    }

    /// Lowest segment at or above `from` that is lost and not yet retransmitted.
    pub fn next_lost(&self, from: u64) -> Option<u64> {
        if self.lost == 0 {
            return None;
        }
        let start = from.max(self.una);
        (start..self.nxt()).find(|&seg| {
            let f = self.at(seg).unwrap().flags;
            f & LOST != 0 && f & RETRANS == 0 && f & (SACKED | SKIP) == 0
        })
    }

    /// The lowest segment neither SACKed, deemed lost nor resent: ns-3.32–3.42's `NextSeg` rule 3
    /// (`TcpConfig::next_seg_ns3`). Amortized constant time: the scan resumes where the last one stopped, since a marked
    /// segment stays marked.
    pub fn first_unmarked(&mut self) -> Option<u64> {
        let from = self.unmarked_from.max(self.una);
        let skip = (from - self.una) as usize;
        let found = self.segs.iter().skip(skip).position(|s| s.flags & (LOST | RETRANS | SACKED | SKIP) == 0);
        let seg = found.map(|i| from + i as u64);
        self.unmarked_from = seg.unwrap_or_else(|| self.nxt());
        seg
    }

    /// Highest segment that is not SACKed (RFC 6675 rescue retransmission candidate).
    pub fn highest_unsacked(&self) -> Option<u64> {
        (self.una..self.nxt()).rev().find(|&s| !self.is_sacked(s))
    }
}

/// A segment (a retransmission among them) deemed lost: no longer a retransmission in flight,
/// lost, one more loss mark (the counts are the board's, passed apart from its segments).
fn mark_seg_lost(s: &mut Seg, retrans: &mut u64, lost: &mut u64, marks: &mut u64) {
    if s.flags & RETRANS != 0 {
        s.flags &= !RETRANS;
        *retrans -= 1;
    }
    if s.flags & LOST == 0 {
        s.flags |= LOST;
        *lost += 1;
    }
    *marks += 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        sent_at(&vec![0; n as usize])
    }

    /// A board with one segment out per send time (ps), in order.
    fn sent_at(times: &[u64]) -> Scoreboard {
        let mut b = Scoreboard::default();
        for &t in times {
            b.push_new(Time(t), TxState::default());
        }
        b
    }

    /// A long flight's rings are given back once the flight is an eighth of them, and the
    /// segments left keep their order and state (sent times, SACK and loss flags).
    #[test]
    fn rings_shrink_when_the_flight_falls() {
        let times: Vec<u64> = (0..1000).collect();
        let mut b = sent_at(&times);
        let grown = b.segs.capacity();
        assert!(grown >= 1000);
        assert_eq!(b.sack(995, 997), 2);
        assert!(b.mark_lost(993));
        // 850 acked, 150 left (more than an eighth of 1 024): kept.
        assert_eq!(b.ack_to(850).count, 850);
        assert_eq!(b.segs.capacity(), grown);
        // 10 left of >= 1000: down to twice the flight, at least KEEP_SEGS / 2.
        assert_eq!(b.ack_to(990).count, 140);
        assert!(b.segs.capacity() >= 32 && b.segs.capacity() < 64, "{}", b.segs.capacity());
        assert_eq!((b.una(), b.nxt(), b.pipe()), (990, 1000, 7), "10 out, 2 SACKed, 1 lost");
        assert!(b.is_lost(993) && b.is_sacked(995) && b.is_sacked(996) && !b.is_sacked(997));
        assert_eq!(b.at(998).map(|s| s.sent), Some(Time(998)));
        // With rate samples the snapshots' ring shrinks with it and keeps its entries in step:
        // the segment acked next gives back its own snapshot.
        let mut r = Scoreboard { track_rate: true, ..Default::default() };
        for t in 0..1000u64 {
            r.push_new(Time(t), TxState { delivered: t, ..Default::default() });
        }
        r.ack_to(990);
        assert!(r.tx.capacity() < 64 && r.tx.len() == 10, "{} {}", r.tx.capacity(), r.tx.len());
        r.set_ack_context(Time(5_000), None);
        r.ack_to(991);
        assert_eq!(r.take_newest_delivered().map(|(t, x)| (t, x.delivered)), Some((Time(990), 990)));
        // Below KEEP_SEGS a ring is never shrunk.
        let mut small = board(60);
        let cap = small.segs.capacity();
        small.ack_to(59);
        assert_eq!(small.segs.capacity(), cap);
    }

    #[test]
    fn pipe_follows_rfc6675_setpipe() {
        // 10 segments out; SACK 5..8; with DupThresh 3 segments 0..4 become lost (3 SACKed above).
        let mut b = board(10);
        assert_eq!(b.pipe(), 10);
        assert_eq!(b.sack(5, 8), 3);
        assert_eq!(b.pipe(), 7);
        assert_eq!(b.mark_lost_by_sacks(3, 1000, |_| 1000), Some(0));
        // Lost: 0..5 (5 segs). Pipe = 10 − 3 sacked − 5 lost = 2 (segments 8 and 9).
        assert_eq!(b.lost_out(), 5);
        assert_eq!(b.pipe(), 2);
        b.mark_retransmitted(0, Time(1), TxState::default());
        assert_eq!(b.pipe(), 3, "a retransmission counts once more");
        assert_eq!(b.next_lost(0), Some(1));
    }

    #[test]
    fn a_block_reported_again_counts_only_its_new_segments() {
        // Blocks as a receiver repeats them: each newly SACKed segment counted once, whatever
        // the order, the overlaps and the blocks in between.
        let mut b = board(12);
        assert_eq!(b.sack(2, 4), 2);
        assert_eq!(b.sack(2, 6), 2);
        assert_eq!(b.sack(8, 9), 1);
        assert_eq!(b.sack(10, 11), 1);
        assert_eq!(b.sack(3, 7), 1); // starts inside the run 2..6: only 6 is walked
        assert_eq!(b.sack(2, 7), 0);
        assert_eq!(b.sack(1, 10), 3); // 1, 7 and 9
        assert_eq!(b.sacked_out(), 10);
        assert!((1..=10).all(|s| b.is_sacked(s)) && !b.is_sacked(0) && !b.is_sacked(11));
    }

    #[test]
    fn first_unmarked_resumes_its_scan_and_sees_new_segments() {
        // 0..6 out; 1 SACKed, 0 lost, 2 resent: 3 is the first unmarked, then (3 resent) 4.
        let mut b = board(6);
        b.sack(1, 2);
        b.mark_lost(0);
        b.mark_retransmitted(2, Time(1), TxState::default());
        assert_eq!(b.first_unmarked(), Some(3));
        b.mark_retransmitted(3, Time(2), TxState::default());
        assert_eq!(b.first_unmarked(), Some(4));
        b.mark_lost(4);
        b.mark_lost(5);
        assert_eq!(b.first_unmarked(), None);
        // A resend deemed lost stays marked (LOST); a new segment is unmarked.
        b.mark_retransmits_lost_before(Time(10));
        b.push_new(Time(3), TxState::default());
        assert_eq!(b.first_unmarked(), Some(6));
        // snd_una past the cursor.
        b.ack_to(7);
        b.push_new(Time(4), TxState::default());
        assert_eq!(b.first_unmarked(), Some(7));
    }

    #[test]
    fn is_lost_needs_more_than_two_mss_or_three_blocks() {
        // Two SACKed segments above a hole: not lost (2·MSS is not more than (3−1)·MSS).
        let mut b = board(6);
        b.sack(1, 3);
        assert_eq!(b.mark_lost_by_sacks(3, 1000, |_| 1000), None);
        // Three discontiguous one-segment blocks with short segments also suffice.
        let mut b = board(6);
        b.sack(1, 2);
        b.sack(3, 4);
        b.sack(5, 6);
        assert_eq!(b.mark_lost_by_sacks(3, 1000, |_| 100), Some(0));
        assert!(b.is_lost(0) && !b.is_lost(2) && !b.is_lost(4));
    }

    #[test]
    fn timestamps_echo_the_earliest_newly_acknowledged_segment() {
        // RFC 7323 §4.3: an ACK covering segments 0 and 1 (first sent at 0; 1 retransmitted
        // at 5 ps) echoes segment 0's timestamp; one covering only the retransmitted segment 2
        // (resent at 7 ps) echoes that retransmission's, not nothing as under Karn.
        let mut b = board(3);
        b.timestamps = true;
        b.mark_lost(1);
        b.mark_retransmitted(1, Time(5), TxState::default());
        assert_eq!(b.ack_to(2).rtt_sent, Some(Time(0)));
        b.mark_lost(2);
        b.mark_retransmitted(2, Time(7), TxState::default());
        assert_eq!(b.ack_to(3).rtt_sent, Some(Time(7)));
        assert_eq!(b.ack_to(3).rtt_sent, None, "nothing newly acknowledged: no sample");
    }

    #[test]
    fn cumulative_ack_applies_karn() {
        let mut b = board(3);
        b.mark_lost(1);
        b.mark_retransmitted(1, Time(5), TxState::default());
        let a = b.ack_to(2);
        assert_eq!(a.count, 2);
        assert_eq!(a.rtt_sent, None, "segment 1 was retransmitted: no sample");
        assert_eq!((b.lost_out(), b.retrans_out(), b.pipe()), (0, 0, 1));
        let a = b.ack_to(3);
        assert_eq!(a.rtt_sent, Some(Time::ZERO));
    }

    #[test]
    fn a_retransmission_overtaken_by_later_deliveries_is_lost_again() {
        // Segment 0 is retransmitted at t = 10; segment 5, sent at t = 20, is then SACKed.
        let mut b = Scoreboard::default();
        for t in 0..5 {
            b.push_new(Time(t), TxState::default());
        }
        b.mark_lost(0);
        b.mark_retransmitted(0, Time(10), TxState::default());
        b.push_new(Time(20), TxState::default());
        assert_eq!(b.rack_detect(Time(100), Time(5), Time(5), false), (None, None), "nothing sent after it was delivered yet");
        b.sack(5, 6);
        // RFC 8985 §6.2: lost once out for RACK.rtt + reo_wnd = 10, i.e. at t = 20; before that
        // the reordering timer says when to look again.
        assert_eq!(b.rack_detect(Time(18), Time(5), Time(5), false), (None, Some(Time(20))));
        assert_eq!(b.rack_detect(Time(20), Time(5), Time(5), false), (Some(0), None));
        assert_eq!((b.retrans_out(), b.lost_out(), b.next_lost(0)), (0, 1, Some(0)));
    }

    #[test]
    fn an_ack_for_the_original_does_not_move_the_rack_point() {
        // Segment 1 is retransmitted at t = 100 (sent first at 0); at t = 120 (min RTT 50) it is
        // SACKed: too soon to be the retransmission, so RACK.xmit_ts stays at segment 2's first
        // send (t = 2) and segment 0 (sent at 0) is not declared lost by it (RFC 8985 §6.2).
        let mut b = sent_at(&[0, 1, 2]);
        b.sack(2, 3);
        assert_eq!(b.rack_point(), (Time(2), 2));
        b.mark_lost(1);
        b.mark_retransmitted(1, Time(100), TxState::default());
        b.set_ack_context(Time(120), Some(Time(50)));
        b.sack(1, 2);
        assert_eq!(b.rack_point(), (Time(2), 2));
        // Delivered 60 after the retransmission (> min RTT): it counts.
        let mut c = sent_at(&[0, 1, 2]);
        c.mark_lost(1);
        c.mark_retransmitted(1, Time(100), TxState::default());
        c.set_ack_context(Time(160), Some(Time(50)));
        c.sack(1, 2);
        assert_eq!(c.rack_point(), (Time(100), 1));
    }

    #[test]
    fn a_cumulative_ack_of_plain_segments_reports_as_with_rate_snapshots() {
        // Segments sent at 5, 7, 9 ps; an ACK of the first two. Karn's sample is the newest
        // acknowledged segment's send time (7), RACK's point moves to it, two delivered — the same
        // whether the board keeps rate snapshots (the general path) or not (the lean one).
        for track_rate in [false, true] {
            let mut b = Scoreboard { track_rate, ..Scoreboard::default() };
            for t in [5, 7, 9] {
                b.push_new(Time(t), TxState { delivered: t, ..TxState::default() });
            }
            let a = b.ack_to(2);
            assert_eq!((a.count, a.rtt_sent, a.skipped, a.last_skipped), (2, Some(Time(7)), 0, false));
            assert_eq!((b.una(), b.delivered, b.rack_point(), b.pipe()), (2, 2, (Time(7), 1), 1));
            let newest = b.take_newest_delivered().map(|(t, tx)| (t, tx.delivered));
            assert_eq!(newest, track_rate.then_some((Time(7), 7)), "snapshots only where rate samples read them");
        }
    }

    #[test]
    fn rack_is_idle_only_when_its_scan_would_find_nothing() {
        // In order: segments 0..3 sent at 0, 1, 2; 0 acknowledged. The oldest out (1, sent at 1)
        // left after the delivered one: nothing to find, whatever the clock.
        let mut b = sent_at(&[0, 1, 2]);
        b.ack_to(1);
        assert!(b.rack_idle());
        assert_eq!(b.rack_detect(Time(1000), Time(1), Time(1), true), (None, None));
        // Segment 1 retransmitted at 10 and SACKed: segment 2 (sent at 2) left before it, so the
        // scan has work (2 becomes lost once out 2 ps) though the oldest is not "before".
        b.mark_lost(1);
        b.mark_retransmitted(1, Time(10), TxState::default());
        b.set_ack_context(Time(50), None);
        b.sack(1, 2);
        assert!(!b.rack_idle(), "the oldest out is a retransmission: the scan goes on past it");
        assert_eq!(b.rack_detect(Time(50), Time(1), Time(1), true), (Some(2), None));
        // Equal send times: the sequence number decides (2 and 3 sent at 20 with 3 delivered).
        let mut c = sent_at(&[20; 4]);
        c.ack_to(2);
        assert!(c.rack_idle());
        c.sack(3, 4);
        assert!(!c.rack_idle());
        assert_eq!(c.rack_detect(Time(30), Time(5), Time(1), true), (Some(2), None));
    }

    #[test]
    fn rack_idle_never_hides_a_loss_the_scan_would_find() {
        // Random boards as a sender makes them: sends at a clock that often stands still (equal
        // send times), cumulative ACKs, SACKs, losses and retransmissions. Whenever `rack_idle`
        // says there is nothing to find, RACK's full scan (every segment examined, a clock far
        // past every deadline) finds no loss and sets no timer either.
        let mut rng = crate::rng::Rng::stream(11, 0);
        let mut b = Scoreboard::default();
        let mut now = 0u64;
        let mut idle_seen = 0;
        for step in 0..20_000 {
            now += [0, 0, 1, 3][rng.below(4) as usize];
            match rng.below(10) {
                0..=3 => b.push_new(Time(now), TxState::default()),
                4 | 5 if b.nxt() > b.una() => {
                    b.set_ack_context(Time(now), None);
                    b.ack_to(b.una() + 1 + rng.below(b.nxt() - b.una()));
                }
                6 if b.nxt() > b.una() + 1 => {
                    b.set_ack_context(Time(now), None);
                    let from = b.una() + 1 + rng.below(b.nxt() - b.una() - 1);
                    b.sack(from, from + 1);
                }
                7 if b.nxt() > b.una() => {
                    let seg = b.una() + rng.below(b.nxt() - b.una());
                    if b.mark_lost(seg) {
                        b.mark_retransmitted(seg, Time(now), TxState::default());
                    }
                }
                _ => {}
            }
            if b.rack_idle() {
                idle_seen += 1;
                let mut scan = b.clone();
                assert_eq!(scan.rack_detect(Time(now + 1_000_000), Time(1), Time(1), true), (None, None), "step {step}");
            }
        }
        assert!(idle_seen > 1_000, "{idle_seen} idle boards");
    }

    #[test]
    fn rack_breaks_send_time_ties_by_sequence() {
        // Three segments handed to the NIC at the same instant; the third is SACKed. The first
        // two were "sent before" it (RACK_sent_after compares sequence on equal times).
        let mut b = board(3);
        b.sack(2, 3);
        assert_eq!(b.rack_detect(Time(8), Time(8), Time(1), true), (None, Some(Time(9))));
        assert_eq!(b.rack_detect(Time(9), Time(8), Time(1), true), (Some(0), None));
        assert!(b.is_lost(0) && b.is_lost(1) && !b.is_lost(2));
        // First transmissions are not examined without `all`.
        let mut c = board(3);
        c.sack(2, 3);
        assert_eq!(c.rack_detect(Time(100), Time(8), Time(1), false), (None, None));
    }

    #[test]
    fn rto_marks_everything_unsacked_lost() {
        let mut b = board(4);
        b.sack(2, 3);
        b.mark_lost(0);
        b.mark_retransmitted(0, Time(1), TxState::default());
        b.mark_all_lost();
        assert_eq!((b.lost_out(), b.retrans_out(), b.sacked_out()), (3, 0, 1));
        assert_eq!(b.pipe(), 0);
        assert_eq!(b.next_lost(0), Some(0));
        assert_eq!(b.highest_unsacked(), Some(3));
    }

    #[test]
    fn a_cleared_scoreboard_resends_from_una_and_counts_each_delivery_once() {
        // Five segments, 1 and 3 SACKed (two deliveries); a timeout that clears the scoreboard
        // (RFC 2018 §8) leaves all five lost. A block naming 3 again marks it without counting
        // its delivery twice; the cumulative ACK of 0..2 counts 0 only (1 was counted when SACKed).
        let mut b = board(5);
        b.sack(1, 2);
        b.sack(3, 4);
        assert_eq!((b.sacked_out(), b.delivered), (2, 2));
        b.mark_all_lost_forgetting_sacks();
        assert_eq!((b.lost_out(), b.sacked_out(), b.pipe()), (5, 0, 0));
        assert_eq!((b.next_lost(0), b.next_lost(1), b.high_sacked()), (Some(0), Some(1), 0));
        assert_eq!(b.sack(3, 4), 1);
        assert_eq!((b.lost_out(), b.sacked_out(), b.delivered), (4, 1, 2));
        assert_eq!(b.next_lost(2), Some(2));
        assert_eq!(b.next_lost(3), Some(4));
        let acked = b.ack_to(2);
        assert_eq!((acked.count, b.delivered, b.lost_out(), b.sacked_out()), (2, 3, 2, 1));
        // A segment lost and resent before it was SACKed (its LOST and RETRANS bits stay under
        // SACKED): forgotten, it counts as one lost segment, not as none.
        let mut r = board(3);
        r.mark_lost(1);
        r.mark_retransmitted(1, Time(1), TxState::default());
        r.sack(1, 2);
        assert_eq!((r.lost_out(), r.retrans_out(), r.sacked_out()), (0, 0, 1));
        r.mark_all_lost_forgetting_sacks();
        assert_eq!((r.lost_out(), r.retrans_out(), r.pipe()), (3, 0, 0));
        assert_eq!(r.next_lost(1), Some(1));
        r.mark_retransmitted(1, Time(2), TxState::default());
        assert_eq!(r.sack(1, 2), 1);
        assert_eq!((r.lost_out(), r.retrans_out(), r.sacked_out()), (2, 0, 1));
        assert_eq!(r.ack_to(3).count, 3);
        assert_eq!((r.lost_out(), r.retrans_out(), r.sacked_out(), r.pipe()), (0, 0, 0, 0));
        // Kept (no clear): the same timeout leaves the holes only.
        let mut k = board(5);
        k.sack(1, 2);
        k.sack(3, 4);
        k.mark_all_lost();
        assert_eq!((k.lost_out(), k.sacked_out(), k.next_lost(1)), (3, 2, Some(2)));
    }
}
