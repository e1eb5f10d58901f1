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

/// The clock's resolution (`[simulation] time_resolution`): fabricsim's own picoseconds, where a
/// serialization time rounds up to the next picosecond, or ns-3's default nanoseconds, where every
/// serialization is rounded to the nearest nanosecond ([`Rate::serialization_ns3`]) and link
/// delays are whole nanoseconds (a `Time` attribute such as the channel's `Delay` holds an integer
/// count of the resolution: src/core/model/nstime.h, `Time::m_data`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Resolution {
    #[default]
    Picosecond,
    Nanosecond,
}

impl Resolution {
    /// The scenario's names, in declaration order.
    pub const NAMES: [&'static str; 2] = ["1ps", "1ns"];

    pub fn from_name(name: &str) -> Option<Resolution> {
        match name {
            "1ps" => Some(Resolution::Picosecond),
            "1ns" => Some(Resolution::Nanosecond),
            _ => None,
        }
    }

    /// A link delay at this resolution: unchanged in picoseconds, to the nearest nanosecond (a
    /// half up, as ns-3's `Time` rounds a value written in nanoseconds, "1.5ns" → 2 ns) in
    /// nanoseconds.
    pub fn delay(self, t: Time) -> Time {
        match self {
            Resolution::Picosecond => t,
            Resolution::Nanosecond => Time((t.0.saturating_add(Time::NS / 2) / Time::NS).saturating_mul(Time::NS)),
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
    /// Time to serialize `bytes` as ns-3 computes it with its default 1 ns resolution
    /// (`DataRate::CalculateBitsTxTime` in src/network/utils/data-rate.cc: `Seconds(bits / bps)`
    /// in 64.64 fixed point; the quotient's fraction truncated to 64 bits, scaled by 10^9 exactly,
    /// then `Time(int64x64_t)` rounds to the nearest nanosecond, a half up, `int64x64_t::Round`).
    /// So 1502 B at 10 Gb/s is 1202 ns (1201.6 exactly), 54 B 43 ns (43.2).
    pub fn serialization_ns3(self, bytes: u64) -> Time {
        const ONE: u128 = 1 << 64;
        let bits = bytes as u128 * 8;
        // The 64.64 quotient bits / bps, truncated (ns-3's `int64x64_t::Udiv` is exact to the
        // last fraction bit for an integer numerator and denominator).
        let q = bits.saturating_mul(ONE) / self.0 as u128;
        // Times 10^9 (seconds to the nanosecond unit; exact), plus a half, integer part.
        let ns = (q.saturating_mul(1_000_000_000).saturating_add(ONE / 2) >> 64).min((u64::MAX / Time::NS) as u128);
        Time(ns as u64 * Time::NS)
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
    fn ns3_rounds_each_serialization_to_the_nearest_nanosecond() {
        let ten = Rate::gbps(10);
        // B1's wire sizes at 10 Gb/s: 0.8 ns per byte. Data 1502 B = 1201.6 ns, an ACK 54 B =
        // 43.2 ns, a SYN 58 B = 46.4 ns, a 1500 B packet 1200 ns exactly.
        assert_eq!(ten.serialization_ns3(1502), Time::from_ns(1202));
        assert_eq!(ten.serialization_ns3(54), Time::from_ns(43));
        assert_eq!(ten.serialization_ns3(58), Time::from_ns(46));
        assert_eq!(ten.serialization_ns3(1500), Time::from_ns(1200));
        assert_eq!(ten.serialization(1502), Time(1_201_600), "the picosecond clock keeps 1201.6 ns");
        // 1 Gb/s: 8 ns per byte, whole.
        assert_eq!(Rate::gbps(1).serialization_ns3(1502), Time::from_ns(12_016));
        // A half: 1 B at 8192 bit/s is 976 562.5 ns, and 8 / 8192 is a whole binary fraction
        // (2^-10 s), so ns-3's 64.64 quotient is exact and the half rounds up.
        assert_eq!(Rate(8192).serialization_ns3(1), Time::from_ns(976_563));
        // 1 B at 16 Gb/s is 0.5 ns too, but 8 / 1.6e10 is no binary fraction: the quotient's
        // last bit is truncated, the product falls just below the half, and ns-3 gives 0 ns;
        // 2 B (1.0 ns exactly in decimal, just below in 64.64) still round to 1 ns.
        assert_eq!(Rate::gbps(16).serialization_ns3(1), Time::ZERO);
        assert_eq!(Rate::gbps(16).serialization_ns3(2), Time::from_ns(1));
        assert_eq!(Rate::gbps(16).serialization_ns3(3), Time::from_ns(1), "1.5 ns, just below the half in 64.64");
        // Every value above, and these, as ns-3-dev 1406464 prints them
        // (`DataRate(bps).CalculateBytesTxTime(bytes).GetNanoSeconds()`, a scratch program).
        for (bps, bytes, ns) in [(25e9, 1502, 481), (40e9, 1502, 300), (100e9, 1502, 120), (100e9, 54, 4), (3e9, 1, 3), (3e9, 1502, 4005), (7e9, 999, 1142)] {
            assert_eq!(Rate(bps as u64).serialization_ns3(bytes), Time::from_ns(ns), "{bytes} B at {bps} bit/s");
        }
    }

    #[test]
    fn a_nanosecond_clock_rounds_delays_to_the_nearest_nanosecond() {
        let ns = Resolution::Nanosecond;
        assert_eq!(ns.delay(Time::from_us(10)), Time::from_us(10));
        assert_eq!(ns.delay(Time(1_499)), Time::from_ns(1));
        assert_eq!(ns.delay(Time(1_500)), Time::from_ns(2));
        assert_eq!(ns.delay(Time(2_500)), Time::from_ns(3), "ns-3's Time(\"2500ps\") is 3 ns: a half up");
        assert_eq!(ns.delay(Time(400)), Time::ZERO);
        assert_eq!(Resolution::Picosecond.delay(Time(1_499)), Time(1_499));
        for (i, name) in Resolution::NAMES.iter().enumerate() {
            assert_eq!(Resolution::from_name(name).map(|r| r as usize), Some(i));
        }
        assert_eq!(Resolution::from_name("1us"), None);
    }

    #[test]
    fn display_picks_largest_exact_unit() {
        assert_eq!(Time::from_us(5).to_string(), "5us");
        assert_eq!(Time(1500).to_string(), "1500ps");
        assert_eq!(Rate::gbps(40).to_string(), "40Gbps");
    }
}
