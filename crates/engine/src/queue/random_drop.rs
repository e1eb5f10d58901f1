//! Random drop in a band below the buffer limit: an arrival that would take the port's occupancy
//! above a threshold is dropped with a fixed probability, however far above it lies; the buffer
//! limit still drops every arrival that does not fit. This is htsim's `RandomQueue`
//! (csg-htsim sim/randomqueue.cpp, `RandomQueue::receivePacket`: drop probability 0.1 once the
//! queue plus the arrival exceeds the limit less `RANDOM_BUFFER` = 3 packets, sim/datacenter/main.h),
//! the switch queue of its Swift driver (`main_swift.cpp`, queue type `RANDOM`). It is not RED:
//! there is no average and no ramp, the probability is a step at the threshold.
//!
//! The draw comes from the port's own seeded stream (`Env::rng`), and only for arrivals inside the
//! band, so a port whose occupancy never reaches the threshold draws nothing.

use super::Amount;
use crate::rng::Rng;

/// `[queue] random_drop`: drop an arrival with `probability` when the port's occupancy, the
/// arrival included, would exceed `above`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RandomDrop {
    pub above: Amount,
    pub probability: f64,
}

impl RandomDrop {
    /// Is an arrival of `size` bytes that finds (`pkts`, `bytes`) waiting dropped? Draws one
    /// uniform number from `rng` only when the arrival lands in the band.
    #[inline]
    pub fn drops(&self, pkts: u64, bytes: u64, size: u64, rng: &mut Rng) -> bool {
        self.above.exceeded_by(pkts + 1, bytes + size) && rng.uniform() < self.probability
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand check on a seeded stream: below the band nothing is drawn (the stream is untouched),
    /// inside it each decision is exactly "the stream's next uniform < p", compared draw by draw
    /// against an identical stream read by hand.
    #[test]
    fn drops_only_in_the_band_and_by_the_streams_next_uniform() {
        let rd = RandomDrop { above: Amount::Bytes(16_000), probability: 0.1 };
        let (mut rng, mut shadow) = (Rng::stream(7, 3), Rng::stream(7, 3));
        // 3 waiting 4000 B packets + a 4000 B arrival = 16,000 B: not above 16,000 B.
        for _ in 0..1000 {
            assert!(!rd.drops(3, 12_000, 4000, &mut rng));
        }
        assert_eq!(rng.next_u64(), shadow.next_u64(), "no draw below the band");
        // 4 waiting + the arrival = 20,000 B > 16,000 B: inside the band.
        let mut dropped = 0;
        for _ in 0..10_000 {
            let d = rd.drops(4, 16_000, 4000, &mut rng);
            assert_eq!(d, shadow.uniform() < 0.1);
            dropped += d as u32;
        }
        // Binomial(10,000, 0.1): mean 1,000, sd 30; this seed's count is fixed, the bound is 5 sd.
        assert!((850..=1150).contains(&dropped), "{dropped}");
        // A 40 B ACK arriving at 15,980 B waiting: 16,020 B, in the band too (bytes, not packets).
        let mut one = Rng::new(1);
        let first = Rng::new(1).uniform();
        assert_eq!(rd.drops(3, 15_980, 40, &mut one), first < 0.1);
    }

    #[test]
    fn a_packet_threshold_counts_the_arrival() {
        let rd = RandomDrop { above: Amount::Packets(4), probability: 1.0 };
        let mut rng = Rng::new(2);
        assert!(!rd.drops(3, 0, 0, &mut rng)); // 3 + 1 = 4: not above
        assert!(rd.drops(4, 0, 0, &mut rng)); // 5 > 4, p = 1
    }
}
