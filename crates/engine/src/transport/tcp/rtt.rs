//! Retransmission timer computation, RFC 6298.
//!
//! Integer picoseconds with the RFC's gains α = 1/8 and β = 1/4 (divisions round down). Karn's rule
//! is the caller's duty: only feed samples of segments that were never retransmitted.

use crate::time::Time;

/// RTO bounds and granularity (RFC 6298 §2, with the datacenter-typical min RTO as a parameter).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RtoConfig {
    pub initial: Time,
    pub min: Time,
    pub max: Time,
    /// Clock granularity G of RFC 6298 §2.
    pub granularity: Time,
}

/// SRTT / RTTVAR / RTO state with exponential back-off.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    cfg: RtoConfig,
    srtt: Option<Time>,
    rttvar: Time,
    /// RTO before back-off.
    base_rto: Time,
    /// Number of back-offs since the last valid sample (RFC 6298 §5.5).
    backoffs: u32,
}

impl RttEstimator {
    pub fn new(cfg: RtoConfig) -> Self {
        RttEstimator { cfg, srtt: None, rttvar: Time::ZERO, base_rto: cfg.initial, backoffs: 0 }
    }

    /// Feed one RTT measurement (RFC 6298 §2.2/2.3). Clears the back-off (§5.7's note).
    pub fn sample(&mut self, r: Time) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Time(r.0 / 2);
            }
            Some(srtt) => {
                let diff = srtt.0.abs_diff(r.0);
                self.rttvar = Time((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(Time((7 * srtt.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.unwrap();
        let rto = srtt + Time(self.cfg.granularity.0.max(4 * self.rttvar.0));
        self.base_rto = rto.max(self.cfg.min).min(self.cfg.max);
        self.backoffs = 0;
    }

    /// Data starts after the SYN's RTT sample: keep what `sample` set, drop back-offs.
    pub fn reset_backoff(&mut self) {
        self.backoffs = 0;
    }

    /// Data starts after a SYN had to be resent (no sample, Karn): RFC 6298 §5.7 re-initializes
    /// the RTO to 3 s if it is lower.
    pub fn reinit_after_syn_timeout(&mut self) {
        self.backoffs = 0;
        self.base_rto = self.base_rto.max(Time::from_ms(3000)).min(self.cfg.max);
    }

    /// Double the timer after an expiry (RFC 6298 §5.5), capped at the maximum.
    pub fn back_off(&mut self) {
        self.backoffs = self.backoffs.saturating_add(1);
    }

    /// The current retransmission timeout, back-off included.
    pub fn rto(&self) -> Time {
        let mut rto = self.base_rto;
        for _ in 0..self.backoffs.min(64) {
            rto = rto.times(2);
            if rto >= self.cfg.max {
                return self.cfg.max;
            }
        }
        rto.min(self.cfg.max)
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    pub fn rttvar(&self) -> Time {
        self.rttvar
    }

    pub fn backoffs(&self) -> u32 {
        self.backoffs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(min_ms: u64) -> RtoConfig {
        RtoConfig { initial: Time::from_ms(1000), min: Time::from_ms(min_ms), max: Time::from_ms(60_000), granularity: Time::ZERO }
    }

    #[test]
    fn first_sample_gives_three_r() {
        // RFC 6298 §2.2: SRTT = R, RTTVAR = R/2, RTO = SRTT + 4·RTTVAR = 3R.
        let mut e = RttEstimator::new(cfg(0));
        assert_eq!(e.rto(), Time::from_ms(1000));
        e.sample(Time::from_us(100));
        assert_eq!(e.rto(), Time::from_us(300));
    }

    #[test]
    fn second_sample_uses_old_srtt() {
        let mut e = RttEstimator::new(cfg(0));
        e.sample(Time::from_us(100));
        e.sample(Time::from_us(200));
        // RTTVAR = 3/4·50 + 1/4·|100−200| = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5 (µs).
        assert_eq!(e.rttvar(), Time(62_500_000));
        assert_eq!(e.srtt(), Some(Time(112_500_000)));
        assert_eq!(e.rto(), Time(112_500_000 + 4 * 62_500_000));
    }

    #[test]
    fn min_rto_floors_and_backoff_doubles_to_cap() {
        let mut e = RttEstimator::new(RtoConfig { max: Time::from_ms(50), ..cfg(10) });
        e.sample(Time::from_us(100));
        assert_eq!(e.rto(), Time::from_ms(10));
        e.back_off();
        assert_eq!(e.rto(), Time::from_ms(20));
        e.back_off();
        assert_eq!(e.rto(), Time::from_ms(40));
        e.back_off();
        assert_eq!(e.rto(), Time::from_ms(50));
        e.sample(Time::from_us(100));
        assert_eq!(e.rto(), Time::from_ms(10), "a valid sample clears the back-off");
    }
}
