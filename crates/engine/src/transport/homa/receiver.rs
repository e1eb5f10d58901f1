//! A host's incoming messages and its grant scheduler (Montazeri et al., SIGCOMM 2018 §3.3–3.5).
//!
//! On every DATA arrival the receiver ranks the messages that still need grants by the bytes
//! left to grant (SRPT), one message per sender (a sender transmits one message at a time), and
//! grants the first k (the overcommitment degree) so that each has RTTbytes granted but not yet
//! received; the rank decides the scheduled priority (`HomaConfig::scheduled_class`). A message
//! that has everything is ACKed and leaves the table, and the next ones are granted at once.
//!
//! Aeolus (Hu et al., SIGCOMM 2020 §3.3): a PROBE travels behind a message's unscheduled packets
//! in the same FIFOs, so the unscheduled packets missing when it arrives are lost. They join the
//! message's demand, and when the grant scheduler picks the message it asks for them first, by
//! one RESEND naming them as a set, at the scheduled priority the message's rank gives. (Aeolus
//! has the receiver answer a PROBE-ACK and the sender resend on its next credit; Homa's credits
//! are the receiver's grants, so here the answer and the credit are the one RESEND.)

use super::header::{HomaHeader, HomaKind};
use super::HomaConfig;
use crate::packet::{Header, Kind, Packet};
use crate::time::Time;
use crate::transport::{Endpoints, Outbox};

/// A message's slot in its receiver's table (typed index, reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InSlot(pub u32);

#[derive(Clone, Debug)]
struct InMsg {
    ends: Endpoints,
    len: u64,
    mss: u64,
    /// Distinct payload bytes received.
    received: u64,
    /// Packets received, one bit per packet (index = offset / mss).
    got: Vec<u64>,
    granted: u64,
    /// Aeolus: unscheduled packets a PROBE found lost and not yet asked for again (bit k = the
    /// packet at k·MSS).
    lost: u64,
    /// Last DATA (or BUSY) for it, or the last RESEND sent.
    progress: Time,
    live: bool,
    grants: u64,
}

impl InMsg {
    fn n_packets(&self) -> usize {
        (self.len.div_ceil(self.mss) as usize).max(1)
    }
    fn has(&self, k: usize) -> bool {
        self.got[k / 64] >> (k % 64) & 1 == 1
    }
}

#[derive(Clone, Debug, Default)]
pub struct Inbound {
    msgs: Vec<InMsg>,
    free: Vec<u32>,
    live: Vec<u32>,
    /// Scratch for ranking (reused: no allocation per packet once grown).
    rank: Vec<(u64, u32)>,
    chosen: Vec<u32>,
    /// (time, flow, granted offset) of every GRANT sent, in tests: the grant timeline.
    #[cfg(test)]
    pub trace: Vec<(Time, crate::ids::FlowId, u64)>,
}

/// What a DATA packet did to its message.
pub struct Arrival {
    /// New payload bytes.
    pub new_bytes: u64,
    /// The message is complete now.
    pub complete: bool,
}

impl Inbound {
    /// The first packet of a message arrived: its slot.
    pub fn add(&mut self, ends: Endpoints, len: u64, unsched: u64, cfg: &HomaConfig, now: Time) -> InSlot {
        let n = len.div_ceil(cfg.mss as u64).max(1) as usize;
        let fresh = |mut got: Vec<u64>| {
            got.clear();
            got.resize(n.div_ceil(64), 0);
            InMsg { ends, len, mss: cfg.mss as u64, received: 0, got, granted: unsched, lost: 0, progress: now, live: true, grants: 0 }
        };
        let i = match self.free.pop() {
            Some(i) => {
                let got = std::mem::take(&mut self.msgs[i as usize].got);
                self.msgs[i as usize] = fresh(got);
                i
            }
            None => {
                self.msgs.push(fresh(Vec::new()));
                self.msgs.len() as u32 - 1
            }
        };
        self.live.push(i);
        InSlot(i)
    }

    pub fn grants(&self, s: InSlot) -> u64 {
        self.msgs[s.0 as usize].grants
    }

    /// A DATA packet of message `s`.
    pub fn on_data(&mut self, s: InSlot, h: &HomaHeader, cfg: &HomaConfig, now: Time) -> Arrival {
        let m = &mut self.msgs[s.0 as usize];
        m.progress = now;
        let k = (h.offset / cfg.mss as u64) as usize;
        let mut new_bytes = 0;
        if k < m.n_packets() && !m.has(k) {
            m.got[k / 64] |= 1 << (k % 64);
            if k < 64 {
                m.lost &= !(1 << k);
            }
            new_bytes = h.len as u64;
            m.received += new_bytes;
        }
        let complete = m.received >= m.len;
        if complete {
            m.live = false;
            self.live.retain(|&i| i != s.0);
            self.free.push(s.0);
        }
        Arrival { new_bytes, complete }
    }

    /// Aeolus's PROBE for message `s`, whose first `unsched` bytes were sent unscheduled: every
    /// unscheduled packet not here yet is lost (it would have arrived before the PROBE).
    pub fn on_probe(&mut self, s: InSlot, unsched: u64, now: Time) {
        let m = &mut self.msgs[s.0 as usize];
        m.progress = now;
        let n = (unsched.div_ceil(m.mss) as usize).min(m.n_packets()).min(64);
        for k in 0..n {
            if !m.has(k) {
                m.lost |= 1 << k;
            }
        }
    }

    pub fn on_busy(&mut self, s: InSlot, now: Time) {
        self.msgs[s.0 as usize].progress = now;
    }

    /// Grant the top k messages up to RTTbytes beyond what they have received (§3.3, §3.5).
    pub fn schedule(&mut self, now: Time, cfg: &HomaConfig, out: &mut Outbox) {
        self.rank.clear();
        for &i in &self.live {
            let m = &self.msgs[i as usize];
            if m.granted < m.len || m.lost != 0 {
                // SRPT on what is left to grant, the lost unscheduled packets included.
                self.rank.push((m.len - m.granted + m.lost.count_ones() as u64 * m.mss, i));
            }
        }
        self.rank.sort_unstable();
        // One message per sender: the one with the fewest bytes left to grant.
        self.chosen.clear();
        for &(_, i) in &self.rank {
            if self.chosen.len() == cfg.overcommit as usize {
                break;
            }
            let src = self.msgs[i as usize].ends.src;
            if self.chosen.iter().all(|&c| self.msgs[c as usize].ends.src != src) {
                self.chosen.push(i);
            }
        }
        let n = self.chosen.len();
        let mss = cfg.mss as u64;
        for r in 0..n {
            let i = self.chosen[r];
            let m = &mut self.msgs[i as usize];
            if m.lost != 0 {
                // Aeolus: the lost unscheduled packets first, as scheduled packets (§3.3).
                let mut h = HomaHeader::new(HomaKind::Resend);
                h.mask = m.lost;
                h.prio = cfg.scheduled_class(r, n);
                out.packets.push(control(&m.ends, cfg, h));
                m.lost = 0;
                m.grants += 1;
                m.progress = now;
            }
            let target = (m.received + cfg.rtt_bytes).min(m.len);
            // Grant in whole packets (or to the end), as the data arrives.
            if target > m.granted && (target - m.granted >= mss || target == m.len) {
                m.granted = target;
                m.grants += 1;
                let mut h = HomaHeader::new(HomaKind::Grant);
                h.offset = target;
                h.prio = cfg.scheduled_class(r, n);
                out.packets.push(control(&m.ends, cfg, h));
                #[cfg(test)]
                self.trace.push((now, m.ends.flow, target));
            }
        }
        let _ = now; // read by the test trace only
    }

    /// The timeout scan (§3.7): a message that expects data (granted or unscheduled bytes not
    /// received) and has had none for the resend interval gets a RESEND for its first missing
    /// range. Returns whether any message is still live.
    pub fn scan(&mut self, now: Time, cfg: &HomaConfig, out: &mut Outbox) -> bool {
        let mss = cfg.mss as u64;
        for &i in &self.live {
            let m = &mut self.msgs[i as usize];
            if now < m.progress + cfg.resend_interval {
                continue;
            }
            let limit = (m.granted.min(m.len).div_ceil(mss) as usize).min(m.n_packets());
            let Some(first) = (0..limit).find(|&k| !m.has(k)) else { continue };
            let end = (first..limit).find(|&k| m.has(k)).unwrap_or(limit);
            let a = first as u64 * mss;
            let b = (end as u64 * mss).min(m.len);
            let mut h = HomaHeader::new(HomaKind::Resend);
            h.offset = a;
            h.len = (b - a).min(u32::MAX as u64) as u32;
            h.prio = cfg.priorities - 1;
            out.packets.push(control(&m.ends, cfg, h));
            m.progress = now;
        }
        !self.live.is_empty()
    }
}

/// A control packet from the receiver to the sender, at the highest priority (§3.4).
pub fn control(ends: &Endpoints, cfg: &HomaConfig, h: HomaHeader) -> Packet {
    Packet::new(ends.flow, ends.dst, ends.src, cfg.control, Kind::Control, ends.hash_rev, Header::Homa(h))
}
