//! A source that sends only on a timer of its own: htsim's HPCC source (csg-htsim 841d9e7,
//! `sim/hpcc.cpp`, `HPCCSrc::doNextEvent`), HPCC's `send_timing = "tick"`.
//!
//! htsim's rule: the timer first fires when the flow starts (`startflow`). At each firing, if no
//! tick has been taken yet (`_time_last_sent == 0`, which a tick at time 0 leaves so) or at least
//! the current period has passed since the last tick, the firing is a tick: one packet leaves if
//! the window allows it, and the tick time is recorded whether one left or not. The next firing
//! is the last tick plus the period current at this firing. The period (`_packet_spacing`) is
//! recomputed on every ACK (`processAck`), so a firing scheduled under a shorter period that finds
//! a longer one is no tick and fires again at the last tick plus the longer period. An ACK never
//! sends; a packet the window allows waits for the next tick.
//!
//! A PFC pause of the source's NIC (`[pfc] stop_senders`): a firing while the source is paused
//! returns without a tick and without firing again (`doNextEvent` returns while `PAUSED`), so the
//! timer stops at its first firing in the pause; the resume fires it at once (`processPause`
//! calls `sourceIsPendingRel(0)`), an ordinary firing: a tick if a period has passed since the
//! last tick, so the first packet leaves at the resume and the next a period later. A resume
//! that finds the timer still pending (no firing fell in the pause) adds a second pending firing
//! beside it: both fire from then on (each at the last tick plus the period at its own firing)
//! until they fall on the same instant. Up to `CHAINS` pending firings are kept (a later one
//! beyond that is dropped; they merge within a period while the period holds).
//!
//! The sender reports the pause as the PAUSE reaches its NIC (`pause`; `Sender::on_nic_paused`,
//! every unfinished sender of the NIC) and again as it finds the NIC held, and the RESUME as it
//! is woken (`resume`).
//!
//! The tick times depend only on the start, the pauses and the periods set at the ACKs, not on
//! what was sent, so they are kept lazily: `set_period` (at an ACK) first plays out the firings
//! up to that instant under the old period, `next` answers the sender.

use crate::time::Time;

/// htsim's `_packet_spacing` for window `w` bytes, base RTT `t` picoseconds and `packet` bytes
/// on the wire: `_pacing_rate = W·8·10¹²/T` (bits per second, truncated to an integer), then
/// `packet·8·10¹²/_pacing_rate` picoseconds, truncated. htsim's W is an integer; at least 1 ps
/// (htsim asserts that the next firing is later than now, which fails beyond W ≈ 10¹¹ B).
pub fn htsim_period(w: f64, t_ps: u64, packet: f64) -> Time {
    let rate = (w.floor() * 8e12 / t_ps as f64).floor();
    Time(((packet * 8e12 / rate).floor() as u64).max(1))
}

/// Pending firings kept at once (one, plus one per resume that found the timer pending).
const CHAINS: usize = 4;

/// The tick chain of one flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendTick {
    /// The current period.
    period: Time,
    /// The last tick; `Time::ZERO` = none yet, or one at time 0 (htsim's `_time_last_sent`).
    last: Time,
    /// The pending firings, `fires[..n]`; none until the flow's first send attempt starts the
    /// chain, or after a pause stopped it.
    fires: [Time; CHAINS],
    n: u8,
    /// The chain has started (a stopped chain waits for the resume, not for `next`).
    started: bool,
    /// The source's NIC is paused (the sender found it held): firings now stop the timer.
    paused: bool,
}

impl SendTick {
    /// A new period from `now` on: the firings up to `now` take the old one.
    pub fn set_period(&mut self, now: Time, period: Time) {
        self.advance(now);
        self.period = period.max(Time(1));
    }

    /// The current period.
    #[cfg(test)]
    pub fn period(&self) -> Time {
        self.period
    }

    /// Is the firing at `f` a tick under the current period?
    fn is_tick(&self, f: Time) -> bool {
        self.last == Time::ZERO || f - self.last >= self.period
    }

    /// The index of the earliest pending firing.
    fn earliest(&self) -> Option<usize> {
        (0..self.n as usize).min_by_key(|&i| self.fires[i])
    }

    fn remove(&mut self, i: usize) {
        self.n -= 1;
        self.fires[i] = self.fires[self.n as usize];
    }

    /// Add a pending firing at `f` (two at one instant act as one: the second is no tick and
    /// fires again where the first does).
    fn push(&mut self, f: Time) {
        if !self.fires[..self.n as usize].contains(&f) && (self.n as usize) < CHAINS {
            self.fires[self.n as usize] = f;
            self.n += 1;
        }
    }

    /// Play out every firing at or before `now`.
    fn advance(&mut self, now: Time) {
        if self.paused {
            // Each firing in the pause stops its chain.
            let mut i = 0;
            while i < self.n as usize {
                if self.fires[i] <= now { self.remove(i) } else { i += 1 }
            }
            return;
        }
        while let Some(i) = self.earliest().filter(|&i| self.fires[i] <= now) {
            let (f, s) = (self.fires[i], self.period);
            self.remove(i);
            if self.is_tick(f) {
                // This chain's later firings are ticks too, one period apart, up to the next
                // firing of another chain (which is then no tick, and joins this one).
                let until = self.earliest().map_or(now, |j| now.min(self.fires[j] - Time(1)));
                self.last = f + Time(s.0 * ((until - f).0 / s.0));
            }
            self.push(self.last + s);
        }
    }

    /// The source's NIC is found paused at `now` (it may have been paused earlier; the firings
    /// before `now` count as outside the pause).
    pub fn pause(&mut self, now: Time) {
        if !self.paused {
            self.advance(Time(now.0.saturating_sub(1)));
            self.paused = true;
        }
        self.advance(now);
    }

    /// The pause ends at `now`: the timer fires at once (beside a firing still pending).
    pub fn resume(&mut self, now: Time) {
        if !self.paused {
            return;
        }
        self.advance(now);
        self.paused = false;
        if self.started {
            self.push(now);
            self.advance(now);
        }
    }

    /// The earliest tick at or after `from` (≥ `now`), given the period set so far; the first
    /// call starts the chain with a firing at `now`.
    pub fn next(&mut self, now: Time, from: Time) -> Time {
        // A sender that may send again finds the pause over (if it was not told at the resume).
        self.resume(now);
        if !self.started {
            self.started = true;
            self.push(now);
        }
        self.advance(now);
        if from == self.last {
            return from; // the tick at `now` itself (`from` ≥ `now` ≥ the last tick)
        }
        let s = self.period;
        // Each pending firing is a tick unless the period grew since it was scheduled; if not,
        // it fires again at the last tick plus the period, a tick.
        let first = self.fires[..self.n as usize].iter().map(|&f| if self.is_tick(f) { f } else { self.last + s }).min();
        let Some(first) = first else { return from.max(self.last + s) };
        if from <= first {
            first
        } else {
            first + Time(s.0 * (from - first).0.div_ceil(s.0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: f64) -> Time {
        Time((x * 1e6).round() as u64)
    }

    #[test]
    fn htsim_period_is_t_times_the_packet_over_w() {
        // T = 12 µs, 9064 B packets: W_init = 150 000 B gives a rate of exactly 1e11 b/s and
        // 9064·8e12/1e11 = 725 120 ps; W = 50 300.7 B (htsim's integer: 50 300) gives
        // ⌊50 300·8e12/1.2e7⌋ = 33 533 333 333 b/s and ⌊7.2512e16 / 33 533 333 333⌋ = 2 162 385 ps.
        assert_eq!(htsim_period(150_000.0, 12_000_000, 9064.0), Time(725_120));
        assert_eq!(htsim_period(50_300.7, 12_000_000, 9064.0), Time(2_162_385));
        // A window beyond htsim's range still gives a period of 1 ps.
        assert_eq!(htsim_period(1e15, 12_000_000, 9064.0), Time(1));
    }

    #[test]
    fn ticks_every_period_from_the_start() {
        let mut t = SendTick::default();
        t.set_period(us(5.0), us(1.0));
        // The first ask starts the chain: a tick now, then every 1 µs.
        assert_eq!(t.next(us(5.0), us(5.0)), us(5.0));
        assert_eq!(t.next(us(5.0), us(5.0) + Time(1)), us(6.0));
        // An ACK at 7.3 µs (the window opens between ticks) waits for 8 µs.
        assert_eq!(t.next(us(7.3), us(7.3)), us(8.0));
        // Long idle: the chain still runs, 100 µs later the ticks are on the same grid.
        assert_eq!(t.next(us(107.5), us(107.5)), us(108.0));
        assert_eq!(t.next(us(108.0), us(108.0)), us(108.0));
    }

    #[test]
    fn a_longer_period_moves_the_next_tick_a_shorter_one_does_not() {
        // Ticks at 0 (htsim's "none yet" sentinel too), 1, 2 µs with a period of 1 µs; the
        // firing at 3 µs is pending.
        let mut t = SendTick::default();
        t.set_period(Time::ZERO, us(1.0));
        assert_eq!(t.next(Time::ZERO, Time::ZERO), Time::ZERO);
        assert_eq!(t.next(us(2.0), us(2.0)), us(2.0));
        // An ACK at 2.5 µs lengthens it to 1.5 µs: the firing at 3 µs finds 1 µs since the last
        // tick, is no tick, and fires again at 2 + 1.5 = 3.5 µs, a tick; then 5, 6.5.
        t.set_period(us(2.5), us(1.5));
        assert_eq!(t.next(us(2.5), us(2.5)), us(3.5));
        assert_eq!(t.next(us(3.6), us(3.6)), us(5.0));
        // An ACK at 5.2 µs shortens it to 0.4 µs: the firing at 6.5 µs stays (htsim does not
        // move a scheduled firing) and is a tick; then 6.9, 7.3.
        t.set_period(us(5.2), us(0.4));
        assert_eq!(t.next(us(5.2), us(5.2)), us(6.5));
        assert_eq!(t.next(us(6.5), us(6.5) + Time(1)), us(6.9));
        assert_eq!(t.next(us(7.0), us(7.0)), us(7.3));
    }

    #[test]
    fn the_second_firing_after_a_start_at_zero_is_a_tick_whatever_the_period() {
        // htsim's _time_last_sent == 0 after a tick at time 0: its next firing (0.725 µs) is a
        // tick even if an ACK has lengthened the period to 2 µs meanwhile; a start at 1 µs gets
        // no such pass (its second firing at 1.725 waits for 1 + 2 = 3 µs).
        for (start, want) in [(Time::ZERO, us(0.725)), (us(1.0), us(3.0))] {
            let mut t = SendTick::default();
            t.set_period(start, Time(725_000));
            assert_eq!(t.next(start, start), start);
            t.set_period(start + us(0.5), us(2.0));
            assert_eq!(t.next(start + us(0.5), start + us(0.5)), want, "start {start:?}");
        }
    }

    /// Ticks at 1 and 2 µs with a period of 1 µs (the chain started at 1 µs); the firing at 3 µs
    /// is pending.
    fn ticking() -> SendTick {
        let mut t = SendTick::default();
        t.set_period(us(1.0), us(1.0));
        assert_eq!(t.next(us(1.0), us(1.0)), us(1.0));
        assert_eq!(t.next(us(2.0), us(2.0)), us(2.0));
        t
    }

    #[test]
    fn a_firing_in_the_pause_stops_the_timer_and_the_resume_fires_it() {
        // From `ticking` (ticks at 1, 2 µs, period 1 µs, firing pending at 3): paused at `p`
        // (as the sender finds it), an ACK setting a period in the pause, resumed at `r`; the
        // first two ticks after.
        let rows: [(f64, Option<(f64, f64)>, f64, [f64; 2]); 5] = [
            // The firing at 3 finds the source paused and stops the timer; the resume at 3.4 is
            // a tick (3.4 − 2 ≥ 1): a packet at the resume, the next a period later (htsim's
            // `_time_last_sent` = 3.4). Without the pause: 3, 4.
            (2.5, None, 3.4, [3.4, 4.4]),
            // The same with an ACK in the pause that plays the firing at 3 out.
            (2.5, Some((3.2, 1.0)), 3.4, [3.4, 4.4]),
            // The sender finds the pause at its tick of 3 µs: that firing is in the pause.
            (3.0, None, 3.5, [3.5, 4.5]),
            // No firing in the pause (2.3–2.8): the pending one at 3 stays; the resume's firing
            // (2.8 − 2 < 1) is no tick and fires again at 2 + 1 = 3: the ticks stay 3, 4.
            (2.3, None, 2.8, [3.0, 4.0]),
            // The firing at 3 stops the timer; an ACK at 3.2 sets 2 µs: the resume at 3.5 is
            // 1.5 µs after the last tick, no tick; it fires again at 2 + 2 = 4, a tick; then 6.
            (2.5, Some((3.2, 2.0)), 3.5, [4.0, 6.0]),
        ];
        for (p, ack, r, [first, second]) in rows {
            let mut t = ticking();
            t.pause(us(p));
            if let Some((at, period)) = ack {
                t.set_period(us(at), us(period));
            }
            t.resume(us(r));
            assert_eq!(t.next(us(r), us(r)), us(first), "paused {p}, resumed {r}");
            assert_eq!(t.next(us(first), us(first) + Time(1)), us(second), "paused {p}, resumed {r}");
        }
    }

    #[test]
    fn a_resume_beside_a_pending_firing_adds_a_second_one() {
        // Paused 2.1–2.2 µs; an ACK at 2.15 shortens the period to 0.5 µs. The firing at 3 µs
        // (scheduled under 1 µs) stays; the resume's (2.2 − 2 < 0.5: no tick) fires again at
        // 2 + 0.5 = 2.5, a tick, before it. Then 3.0 (both firings there: one tick), 3.5.
        // Without the pause the first tick after 2 µs would be the pending firing at 3 µs.
        let mut t = ticking();
        t.pause(us(2.1));
        t.set_period(us(2.15), us(0.5));
        t.resume(us(2.2));
        assert_eq!(t.next(us(2.2), us(2.2)), us(2.5));
        assert_eq!(t.next(us(2.5), us(2.5) + Time(1)), us(3.0));
        assert_eq!(t.next(us(3.0), us(3.0) + Time(1)), us(3.5));
        let mut t = ticking();
        t.set_period(us(2.15), us(0.5));
        assert_eq!(t.next(us(2.2), us(2.2)), us(3.0));
    }

    #[test]
    fn random_pauses_and_periods_never_leave_a_running_timer_without_a_firing() {
        // Pauses, resumes, period changes and send attempts in a random order (a fixed LCG):
        // a started, unpaused timer always keeps a pending firing (at most `CHAINS`, the extra
        // ones a resume adds dropped when full), and a send attempt gets a tick at or after it.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rnd = |n: u64| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) % n
        };
        let mut t = SendTick::default();
        t.set_period(Time::ZERO, us(1.0));
        let mut now = Time::ZERO;
        for step in 0..20_000 {
            now = now + Time(rnd(400_000)); // up to 0.4 µs between calls
            match rnd(4) {
                0 => t.pause(now),
                1 => t.resume(now),
                2 => t.set_period(now, Time(100_000 + rnd(2_000_000))),
                _ => {
                    let from = now + Time(rnd(300_000));
                    assert!(t.next(now, from) >= from, "step {step}");
                }
            }
            assert!(t.n as usize <= CHAINS, "step {step}");
            assert!(!t.started || t.paused || t.n >= 1, "step {step}: a running timer lost its firings");
        }
    }

    #[test]
    fn a_sender_asking_again_after_a_pause_finds_it_over() {
        // Not woken by the resume (it found the NIC free at its next call, 3.7 µs): the timer
        // restarts then.
        let mut t = ticking();
        t.pause(us(2.5));
        assert_eq!(t.next(us(3.7), us(3.7)), us(3.7));
        assert_eq!(t.next(us(3.7), us(3.7) + Time(1)), us(4.7));
    }
}
