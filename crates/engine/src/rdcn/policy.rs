//! How a hybrid ToR organizes its buffer and which VOQ each uplink serves: a strategy, because
//! this is where RDCN designs differ (Etalon's VOQs with optional dynamic resizing here; the
//! AccelToR, Blocking and Unblocking ToRs, which segregate elephants from mice, are
//! [`TorPolicy::Segregated`], see `segregated.rs`).

use super::acceltor::ElephantSpec;
use super::schedule::{Rack, WeekPlan};
use super::segregated::Design;
use crate::queue::Amount;
use crate::time::Time;

/// Dynamic VOQ resizing `resize(s, b, τ)` (Mukerjee et al., NSDI 2020 §5.2): the VOQ of pair
/// (S, D) holds `large` from `tau` before its circuit day starts until the day ends, `small`
/// otherwise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resize {
    pub small: Amount,
    pub large: Amount,
    pub tau: Time,
}

/// ECN marking thresholds at the VOQs for DCTCP under Etalon (§6.2: 10 packets with 16-packet
/// VOQs, 31 with 50-packet VOQs): `small` while the VOQ has its small size, `large` while resized.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EcnMarks {
    pub small: Amount,
    pub large: Amount,
}

/// Explicit circuit-state feedback for reTCP (§5.3): the ToR of rack S sets ECE on ACKs coming
/// from rack D while ...
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Feedback {
    /// ... never (ACKs pass unchanged).
    #[default]
    Off,
    /// ... the circuit S→D is up.
    Circuit,
    /// ... from the start of the resizing period (τ before the day) until the day ends.
    Resize,
}

/// Etalon's hybrid ToR (§4.2, Fig. 6): one VOQ per destination rack; the packet uplink pulls
/// round-robin from the VOQs whose pair has no circuit now and none in the coming night (one path
/// per pair at a time, so no reordering); the circuit uplink drains the VOQ of the rack its
/// circuit reaches; a packet the packet switch would drop stays in its VOQ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Etalon {
    /// Static VOQ capacity (used when `resize` is off).
    pub voq: Amount,
    pub resize: Option<Resize>,
    pub ecn: Option<EcnMarks>,
    pub feedback: Feedback,
}

/// The buffer organization and dequeue policy of the hybrid ToRs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TorPolicy {
    Etalon(Etalon),
    /// AccelToR, Blocking or Unblocking, with their elephant selection.
    Segregated(Design, ElephantSpec),
}

impl TorPolicy {
    /// Is pair (src, dst) inside its resizing window at `now`?
    fn resized(r: &Resize, plan: &WeekPlan, src: Rack, dst: Rack, now: Time) -> bool {
        plan.pair_day(src, dst, now).is_some_and(|d| now.0 + r.tau.0 >= d.day_start.0)
    }

    /// The VOQ limit and ECN threshold of pair (src, dst) at `now`.
    #[inline]
    pub fn limits(&self, plan: &WeekPlan, src: Rack, dst: Rack, now: Time) -> (Amount, Option<Amount>) {
        let TorPolicy::Etalon(e) = self else { return (Amount::Packets(0), None) };
        match &e.resize {
            None => (e.voq, e.ecn.map(|m| m.small)),
            Some(r) => {
                if Self::resized(r, plan, src, dst, now) {
                    (r.large, e.ecn.map(|m| m.large))
                } else {
                    (r.small, e.ecn.map(|m| m.small))
                }
            }
        }
    }

    /// May the packet uplink serve pair (src, dst) at `now`?
    #[inline]
    pub fn packet_path_open(&self, plan: &WeekPlan, src: Rack, dst: Rack, now: Time) -> bool {
        plan.pair_day(src, dst, now).is_none_or(|d| now < d.night_start)
    }

    /// Should an ACK from rack `dst` to rack `src` carry ECE (circuit state) at `now`?
    #[inline]
    pub fn feedback(&self, plan: &WeekPlan, src: Rack, dst: Rack, now: Time) -> bool {
        let TorPolicy::Etalon(e) = self else { return false };
        match e.feedback {
            Feedback::Off => false,
            Feedback::Circuit => plan.circuit_dst(src, now) == Some(dst),
            Feedback::Resize => match &e.resize {
                Some(r) => Self::resized(r, plan, src, dst, now),
                None => plan.circuit_dst(src, now) == Some(dst),
            },
        }
    }

    pub fn feedback_mode(&self) -> Feedback {
        match self {
            TorPolicy::Etalon(e) => e.feedback,
            TorPolicy::Segregated(..) => Feedback::Off,
        }
    }

    /// The segregating design, if this is one.
    pub fn design(&self) -> Option<(&Design, &ElephantSpec)> {
        match self {
            TorPolicy::Segregated(d, e) => Some((d, e)),
            TorPolicy::Etalon(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> Time {
        Time::from_us(x)
    }

    fn etalon(resize: Option<Resize>, feedback: Feedback) -> TorPolicy {
        TorPolicy::Etalon(Etalon {
            voq: Amount::Packets(16),
            resize,
            ecn: Some(EcnMarks { small: Amount::Packets(10), large: Amount::Packets(31) }),
            feedback,
        })
    }

    #[test]
    fn resizing_starts_exactly_tau_before_the_day_and_ends_with_it() {
        // 25-rack strobe: pair (0, 1) has slot 0, day [20, 200) µs, next one [4820, 5000) µs.
        let plan = WeekPlan::strobe(25, us(180), us(20));
        let r = Resize { small: Amount::Packets(16), large: Amount::Packets(50), tau: us(1800) };
        let p = etalon(Some(r), Feedback::Resize);
        let at = |t: Time| p.limits(&plan, 0, 1, t).0;
        assert_eq!(at(us(199)), Amount::Packets(50));
        assert_eq!(at(us(200)), Amount::Packets(16));
        assert_eq!(at(us(4820 - 1800) - Time(1)), Amount::Packets(16));
        assert_eq!(at(us(4820 - 1800)), Amount::Packets(50));
        assert_eq!(p.limits(&plan, 0, 1, us(4820 - 1800)).1, Some(Amount::Packets(31)));
        assert_eq!(p.limits(&plan, 0, 1, us(1000)).1, Some(Amount::Packets(10)));
        // Feedback follows the resizing window.
        assert!(p.feedback(&plan, 0, 1, us(4820 - 1800)));
        assert!(!p.feedback(&plan, 0, 1, us(4000 - 1800)));
        // Pair (0, 2) has its own window: days [220, 400) and [5020, 5200) µs.
        assert_eq!(p.limits(&plan, 0, 2, us(150)).0, Amount::Packets(50));
        assert_eq!(p.limits(&plan, 0, 2, us(500)).0, Amount::Packets(16));
        assert_eq!(p.limits(&plan, 0, 2, us(5020 - 1800)).0, Amount::Packets(50));
    }

    #[test]
    fn packet_path_closes_for_the_night_before_the_day_and_the_day() {
        let plan = WeekPlan::strobe(25, us(180), us(20));
        let p = etalon(None, Feedback::Circuit);
        assert!(!p.packet_path_open(&plan, 0, 1, us(0)));
        assert!(!p.packet_path_open(&plan, 0, 1, us(199)));
        assert!(p.packet_path_open(&plan, 0, 1, us(200)));
        assert!(p.packet_path_open(&plan, 0, 1, us(4799)));
        assert!(!p.packet_path_open(&plan, 0, 1, us(4800)));
        // Pair (0, 2): night [200, 220), day [220, 400).
        assert!(p.packet_path_open(&plan, 0, 2, us(199)));
        assert!(!p.packet_path_open(&plan, 0, 2, us(200)));
        // Circuit feedback: only while the circuit is up.
        assert!(!p.feedback(&plan, 0, 1, us(10)));
        assert!(p.feedback(&plan, 0, 1, us(20)));
        assert!(!p.feedback(&plan, 1, 0, us(20)));
    }
}
