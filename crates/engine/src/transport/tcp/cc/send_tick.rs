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
//! The tick times depend only on the start and the periods set at the ACKs, not on what was sent,
//! so they are kept as a chain advanced lazily: `set_period` (at an ACK) first plays out the
//! firings up to that instant under the old period, `next` answers the sender.

use crate::time::Time;

/// htsim's `_packet_spacing` for window `w` bytes, base RTT `t` picoseconds and `packet` bytes
/// on the wire: `_pacing_rate = W·8·10¹²/T` (bits per second, truncated to an integer), then
/// `packet·8·10¹²/_pacing_rate` picoseconds, truncated. htsim's W is an integer; at least 1 ps
/// (htsim asserts that the next firing is later than now, which fails beyond W ≈ 10¹¹ B).
pub fn htsim_period(w: f64, t_ps: u64, packet: f64) -> Time {
    let rate = (w.floor() * 8e12 / t_ps as f64).floor();
    Time(((packet * 8e12 / rate).floor() as u64).max(1))
}

/// The tick chain of one flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendTick {
    /// The current period.
    period: Time,
    /// The last tick; `Time::ZERO` = none yet, or one at time 0 (htsim's `_time_last_sent`).
    last: Time,
    /// The pending firing; `None` until the flow's first send attempt starts the chain.
    fire: Option<Time>,
}

impl SendTick {
    /// A new period from `now` on: the firings up to `now` take the old one.
    pub fn set_period(&mut self, now: Time, period: Time) {
        self.advance(now);
        self.period = period.max(Time(1));
    }

    /// Play out every firing at or before `now`.
    fn advance(&mut self, now: Time) {
        let Some(f) = self.fire.filter(|&f| f <= now) else { return };
        let s = self.period;
        if self.last == Time::ZERO || f - self.last >= s {
            self.last = f;
        }
        // Every later firing under this period is a tick, one period after the last.
        let next = self.last + s;
        if next <= now {
            self.last = next + Time(s.0 * ((now - next).0 / s.0));
        }
        self.fire = Some(self.last + s);
    }

    /// The earliest tick at or after `from` (≥ `now`), given the period set so far; the first
    /// call starts the chain with a firing at `now`.
    pub fn next(&mut self, now: Time, from: Time) -> Time {
        self.fire.get_or_insert(now);
        self.advance(now);
        if from == self.last {
            return from; // the tick at `now` itself (`from` ≥ `now` ≥ the last tick)
        }
        let (s, f) = (self.period, self.fire.unwrap_or(now));
        // The pending firing is a tick unless the period grew since it was scheduled.
        let first = if self.last == Time::ZERO || f - self.last >= s { f } else { self.last + s };
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
}
