//! Simulated time and link rates as integers.
//!
//! Time is a count of picoseconds (`u64` spans ~213 days), rates are bits per second. Serialization
//! time rounds up to the next picosecond, so `1500 B @ 400 Gb/s` is exactly 30 000 ps and no float
//! ever touches the clock (docs/ARCHITECTURE.md code map).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in (or span of) simulated time, in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);
    pub const PS: u64 = 1;
    pub const NS: u64 = 1_000;
    pub const US: u64 = 1_000_000;
    pub const MS: u64 = 1_000_000_000;
    pub const S: u64 = 1_000_000_000_000;

    pub const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns * Self::NS)
    }
    pub const fn from_us(us: u64) -> Time {
        Time(us * Self::US)
    }
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * Self::MS)
    }
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// Seconds as a float, for reporting only.
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / Self::S as f64
    }
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
    /// `k` times this duration (saturating).
    pub fn times(self, k: u64) -> Time {
        Time(self.0.saturating_mul(k))
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0.saturating_add(rhs.0))
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, rhs: Time) -> Time {
        debug_assert!(self.0 >= rhs.0, "time went backwards: {} - {}", self.0, rhs.0);
        Time(self.0 - rhs.0)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps.is_multiple_of(Self::S) && ps > 0 {
            write!(f, "{}s", ps / Self::S)
        } else if ps.is_multiple_of(Self::MS) && ps > 0 {
            write!(f, "{}ms", ps / Self::MS)
        } else if ps.is_multiple_of(Self::US) && ps > 0 {
            write!(f, "{}us", ps / Self::US)
        } else if ps.is_multiple_of(Self::NS) {
            write!(f, "{}ns", ps / Self::NS)
        } else {
            write!(f, "{}ps", ps)
        }
    }
}

/// A link rate in bits per second (always > 0 once validated).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub const fn gbps(g: u64) -> Rate {
        Rate(g * 1_000_000_000)
    }
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Time to serialize `bytes` onto a link of this rate, rounded up to a whole picosecond.
    pub fn serialization(self, bytes: u64) -> Time {
        let bits = bytes as u128 * 8 * Time::S as u128;
        let r = self.0 as u128;
        Time(bits.div_ceil(r) as u64)
    }
    /// Picoseconds per byte when that is a whole number below 2^32 — 8·10^12 divisible by the
    /// rate, as for 1, 10, 25, 40, 100, 400 Gb/s — else 0. Then `bytes × ps_per_byte` is exactly
    /// [`serialization`](Self::serialization) (no rounding), without its 128-bit division.
    pub const fn exact_ps_per_byte(self) -> u32 {
        let ps = 8 * Time::S;
        if self.0 == 0 || ps % self.0 != 0 || ps / self.0 > u32::MAX as u64 {
            return 0;
        }
        (ps / self.0) as u32
    }
    /// Bytes this rate carries in `t` (floor), for capacity bookkeeping.
    pub fn bytes_in(self, t: Time) -> u64 {
        (self.0 as u128 * t.0 as u128 / (8 * Time::S as u128)) as u64
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b.is_multiple_of(1_000_000_000) {
            write!(f, "{}Gbps", b / 1_000_000_000)
        } else if b.is_multiple_of(1_000_000) {
            write!(f, "{}Mbps", b / 1_000_000)
        } else {
            write!(f, "{}bps", b)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_is_exact_in_picoseconds() {
        // 1500 B = 12 000 bits at 4e11 bit/s is 30 ns = 30 000 ps.
        assert_eq!(Rate::gbps(400).serialization(1500), Time(30_000));
        // 1500 B at 10 Gb/s = 12000 bits / 1e10 = 1.2 us.
        assert_eq!(Rate::gbps(10).serialization(1500), Time::from_ns(1200));
        // 52 B at 10 Gb/s = 41.6 ns.
        assert_eq!(Rate::gbps(10).serialization(52), Time(41_600));
    }

    #[test]
    fn serialization_rounds_up() {
        // 1 byte at 3 bps = 8/3 s -> rounded up.
        assert_eq!(Rate(3).serialization(1), Time(2_666_666_666_667));
    }

    #[test]
    fn whole_picoseconds_per_byte_where_exact() {
        // 8 bits / 1e10 bit/s = 800 ps; / 4e11 = 20 ps; 25 Gb/s: 320 ps; 1 Mb/s: 8e6 ps.
        assert_eq!(Rate::gbps(10).exact_ps_per_byte(), 800);
        assert_eq!(Rate::gbps(400).exact_ps_per_byte(), 20);
        assert_eq!(Rate::gbps(25).exact_ps_per_byte(), 320);
        assert_eq!(Rate(1_000_000).exact_ps_per_byte(), 8_000_000);
        // Not whole (8e12 / 3e9, 8e12 / 3e12) or beyond 32 bits (1 bit/s: 8e12 ps): none.
        assert_eq!(Rate(3_000_000_000).exact_ps_per_byte(), 0);
        assert_eq!(Rate(3_000_000_000_000).exact_ps_per_byte(), 0);
        assert_eq!(Rate(1).exact_ps_per_byte(), 0);
        assert_eq!(Rate(0).exact_ps_per_byte(), 0);
        // Where it is given, the product is the division's result for every size.
        for r in [Rate::gbps(1), Rate::gbps(10), Rate::gbps(40), Rate::gbps(100), Rate::gbps(800), Rate(2_000_000)] {
            let k = r.exact_ps_per_byte() as u64;
            assert!(k > 0);
            for b in [0, 1, 52, 1500, 8948, 9000, 65_536, u32::MAX as u64] {
                assert_eq!(Time(b * k), r.serialization(b), "{r} {b} B");
            }
        }
    }

    #[test]
    fn display_picks_largest_exact_unit() {
        assert_eq!(Time::from_us(5).to_string(), "5us");
        assert_eq!(Time(1500).to_string(), "1500ps");
        assert_eq!(Rate::gbps(40).to_string(), "40Gbps");
    }
}
