//! Homa's parameters and its priority assignment (Montazeri et al., SIGCOMM 2018 §3.4).

use crate::time::Time;
use crate::transport::Framing;
use crate::workload::{Cdf, Sampling};

/// Unscheduled priority levels at most (8 levels, at least one of them scheduled).
pub const MAX_CUTOFFS: usize = 7;

/// Unscheduled packets per message Aeolus can track (one bit each in PROBE-driven RESENDs).
pub const MAX_AEOLUS_UNSCHEDULED: u64 = 64;

/// Homa's parameters (scenario `[transport] kind = "homa"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HomaConfig {
    pub mss: u32,
    pub header: u32,
    /// GRANT, RESEND, BUSY and ACK size.
    pub control: u32,
    /// RTTbytes: data a message sends unscheduled, and granted-but-not-received bytes the
    /// receiver keeps per granted message (§3.2). Default 45 KB, PPT's setting for 40/100 Gb/s
    /// (Suo et al., SIGCOMM 2024 §6.2); the Homa paper uses 9.7 KB at 10 Gb/s (§5.2).
    pub rtt_bytes: u64,
    /// Degree of overcommitment k: messages granted at once (§3.5). Default 2 (PPT §6.2).
    pub overcommit: u32,
    /// Priority levels of the switches (§3.4: 8).
    pub priorities: u8,
    /// Of those, the lowest `scheduled` serve scheduled packets; the rest unscheduled ones
    /// (the Homa simulator sets it to the overcommitment degree).
    pub scheduled: u8,
    /// Unscheduled cut-offs: messages up to `cutoffs[i]` bytes send their unscheduled packets at
    /// level i (0 = highest); longer ones at the last unscheduled level. `n_cutoffs` are used.
    pub cutoffs: [u64; MAX_CUTOFFS],
    pub n_cutoffs: u8,
    /// Cut-offs were given in the scenario (otherwise a workload computes them from its sizes).
    pub cutoffs_given: bool,
    /// A receiver that hears nothing of a message it expects data for this long asks for it
    /// again (RESEND, §3.7); a sender that hears nothing of a message for twice this long
    /// retransmits its first (or last) packet.
    pub resend_interval: Time,
    /// Aeolus on top of Homa (Hu et al., SIGCOMM 2020 §3–4; `kind = "aeolus"`): first-RTT
    /// unscheduled packets are sent droppable, a PROBE follows them, and the receiver has the
    /// ones the PROBE shows lost resent at once as scheduled packets.
    pub aeolus: bool,
}

impl Default for HomaConfig {
    fn default() -> Self {
        HomaConfig {
            mss: 1448,
            header: 52,
            control: 52,
            rtt_bytes: 45_000,
            overcommit: 2,
            priorities: 8,
            scheduled: 2,
            cutoffs: [u64::MAX; MAX_CUTOFFS],
            n_cutoffs: 0,
            cutoffs_given: false,
            resend_interval: Time::from_ms(1),
            aeolus: false,
        }
    }
}

impl HomaConfig {
    pub fn framing(&self) -> Framing {
        Framing { payload: self.mss, header: self.header, control: self.control, handshake: false, sprays: false }
    }

    /// Packets a message sends unscheduled at most (RTTbytes in whole packets). Aeolus tracks
    /// them in one 64-bit set, so it needs this to be at most [`MAX_AEOLUS_UNSCHEDULED`].
    pub fn unscheduled_packets(&self) -> u64 {
        self.rtt_bytes.div_ceil(self.mss as u64)
    }

    /// Unscheduled levels: classes 0 .. unscheduled.
    pub fn unscheduled_levels(&self) -> u8 {
        self.priorities - self.scheduled
    }

    /// Bytes a message of `len` bytes sends before any grant: RTTbytes rounded up to whole
    /// packets, or all of it.
    pub fn unscheduled_bytes(&self, len: u64) -> u64 {
        let mss = self.mss as u64;
        len.min(self.rtt_bytes.div_ceil(mss) * mss)
    }

    /// The class of a message's unscheduled packets, from its length and the cut-offs (§3.4).
    pub fn unscheduled_class(&self, len: u64) -> u8 {
        let levels = self.unscheduled_levels().max(1);
        let i = self.cutoffs[..self.n_cutoffs as usize].iter().position(|&c| len <= c).unwrap_or(self.n_cutoffs as usize);
        (i as u8).min(levels - 1)
    }

    /// The class of scheduled packets of the message ranked `rank` (0 = fewest bytes left) among
    /// `n` granted ones (§3.4): the lowest `min(n, scheduled)` levels are used, so that a newcomer
    /// with fewer bytes can take a higher one; rank 0 gets the highest of them.
    pub fn scheduled_class(&self, rank: usize, n: usize) -> u8 {
        let s = self.scheduled.max(1) as usize;
        let m = n.clamp(1, s);
        (self.priorities as usize - m + rank.min(m - 1)) as u8
    }

    /// Cut-offs from a workload's size distribution (§3.4): the unscheduled levels each carry an
    /// equal share of unscheduled bytes, each message contributing min(length, RTTbytes);
    /// shorter messages get the higher levels. The CDF is read at 10 000 evenly spaced quantiles.
    pub fn with_cutoffs_from(mut self, cdf: &Cdf, sampling: Sampling) -> HomaConfig {
        if self.cutoffs_given {
            return self;
        }
        let levels = self.unscheduled_levels() as usize;
        const N: usize = 10_000;
        let sizes: Vec<f64> = (1..=N).map(|i| cdf.sample(i as f64 / N as f64, sampling).max(1.0)).collect();
        let weight = |x: f64| x.min(self.rtt_bytes as f64);
        let total: f64 = sizes.iter().map(|&x| weight(x)).sum();
        let mut acc = 0.0;
        let mut n = 0;
        for &x in &sizes {
            acc += weight(x);
            // Level n is full once it holds its share; its cut-off is the size that filled it.
            while n + 1 < levels && n < MAX_CUTOFFS && acc >= total * (n + 1) as f64 / levels as f64 {
                let c = x.ceil() as u64;
                if n == 0 || c > self.cutoffs[n - 1] {
                    self.cutoffs[n] = c;
                    n += 1;
                } else {
                    break;
                }
            }
        }
        self.n_cutoffs = n as u8;
        self
    }
}
