//! A host's outgoing messages (Montazeri et al., SIGCOMM 2018 §3.2–3.3): each sends its
//! unscheduled bytes at once and the rest as grants allow; the host transmits one packet at a
//! time and always from the message with the fewest bytes left (SRBF), keeping the NIC queue at
//! most one packet deep so that a shorter message never waits behind a longer one's burst.
//!
//! Aeolus (Hu et al., SIGCOMM 2020): first transmissions of unscheduled packets are droppable
//! (§3.2), the last one is followed by a PROBE (§3.3), and unscheduled packets a RESEND names by
//! set are sent again first, in the class the RESEND gives (scheduled packets, never droppable).

use super::header::{HomaHeader, HomaKind};
use super::HomaConfig;
use crate::ids::FlowId;
use crate::packet::{Header, Kind, Packet};
use crate::time::Time;
use crate::transport::{Endpoints, FlowStats, Outbox};

/// A message's slot in its sender's table (typed index, reused once the message is done).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutSlot(pub u32);

#[derive(Clone, Copy, Debug)]
pub struct OutMsg {
    pub ends: Endpoints,
    pub len: u64,
    pub unsched: u64,
    unsched_class: u8,
    /// Bytes sent once: [0, sent).
    sent: u64,
    /// May send up to here.
    granted: u64,
    grant_class: u8,
    /// A range to send again (RESEND, or the sender's own timeout).
    rtx: Option<(u64, u64)>,
    /// Aeolus: unscheduled packets to send again (bit k = the packet at k·MSS), before `rtx`.
    lost: u64,
    /// Last time the receiver said anything about it (GRANT, RESEND, BUSY) or it was created.
    heard: Time,
    heard_any: bool,
    live: bool,
    pub stats: FlowStats,
}

impl OutMsg {
    fn eligible(&self) -> bool {
        self.live && (self.lost != 0 || self.rtx.is_some() || self.sent < self.granted.min(self.len))
    }
    fn remaining(&self) -> u64 {
        self.len - self.sent
    }
}

#[derive(Clone, Debug, Default)]
pub struct Outbound {
    msgs: Vec<OutMsg>,
    free: Vec<u32>,
    /// Live messages (slots), for the SRBF choice and the timeout scan.
    live: Vec<u32>,
}

impl Outbound {
    pub fn add(&mut self, ends: Endpoints, len: u64, cfg: &HomaConfig, now: Time) -> OutSlot {
        let unsched = cfg.unscheduled_bytes(len);
        let m = OutMsg {
            ends,
            len,
            unsched,
            unsched_class: cfg.unscheduled_class(len),
            sent: 0,
            granted: unsched,
            grant_class: cfg.priorities - 1,
            rtx: None,
            lost: 0,
            heard: now,
            heard_any: false,
            live: true,
            stats: FlowStats::default(),
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.msgs[i as usize] = m;
                i
            }
            None => {
                self.msgs.push(m);
                self.msgs.len() as u32 - 1
            }
        };
        self.live.push(i);
        OutSlot(i)
    }

    pub fn get(&self, s: OutSlot) -> &OutMsg {
        &self.msgs[s.0 as usize]
    }

    /// The receiver has the whole message: forget it.
    pub fn finish(&mut self, s: OutSlot) {
        let m = &mut self.msgs[s.0 as usize];
        if m.live {
            m.live = false;
            self.live.retain(|&i| i != s.0);
            self.free.push(s.0);
        }
    }

    pub fn on_grant(&mut self, s: OutSlot, h: &HomaHeader, now: Time) {
        let m = &mut self.msgs[s.0 as usize];
        m.granted = m.granted.max(h.offset.min(m.len));
        m.grant_class = h.prio;
        m.heard = now;
        m.heard_any = true;
        m.stats.credits += 1;
    }

    /// RESEND: queue the range (and treat it as granted), or with Aeolus's set the unscheduled
    /// packets it names. True: another message is ahead in
    /// line, so the receiver should be told BUSY (§3.7).
    pub fn on_resend(&mut self, s: OutSlot, h: &HomaHeader, cfg: &HomaConfig, now: Time) -> bool {
        let m = &mut self.msgs[s.0 as usize];
        let (a, b) = (h.offset.min(m.len), (h.offset + h.len as u64).min(m.len));
        m.heard = now;
        m.heard_any = true;
        if h.mask != 0 {
            // Aeolus: the unscheduled packets the PROBE found missing (only ones sent).
            let sent_packets = m.sent.div_ceil(cfg.mss as u64);
            let sent = if sent_packets >= 64 { u64::MAX } else { (1u64 << sent_packets) - 1 };
            m.lost |= h.mask & sent;
            m.grant_class = h.prio;
        } else if a < b {
            m.granted = m.granted.max(b);
            m.grant_class = h.prio;
            // Bytes never sent go out as new data; only sent ones are retransmitted.
            let b = b.min(m.sent);
            if a < b {
                m.rtx = Some(m.rtx.map_or((a, b), |(x, y)| (x.min(a), y.max(b))));
            }
        }
        let mine = m.remaining();
        self.live.iter().any(|&i| i != s.0 && self.msgs[i as usize].eligible() && self.msgs[i as usize].remaining() < mine)
    }

    pub fn on_busy(&mut self, s: OutSlot, now: Time) {
        self.msgs[s.0 as usize].heard = now;
    }

    /// Transmit while the NIC queue is empty: one packet of the eligible message with the
    /// fewest bytes left (SRBF; ties to the older slot order). Sets `blocked` (and the flow to
    /// wake) if more is eligible.
    pub fn pump(&mut self, cfg: &HomaConfig, out: &mut Outbox) {
        let pick = self.live.iter().copied().filter(|&i| self.msgs[i as usize].eligible()).min_by_key(|&i| (self.msgs[i as usize].remaining(), i));
        let Some(i) = pick else { return };
        if out.nic_queued > 0 || out.budget == 0 {
            out.blocked = true;
            out.waiter = Some(self.msgs[i as usize].ends.flow);
            return;
        }
        let m = &mut self.msgs[i as usize];
        let mss = cfg.mss as u64;
        let (offset, retx) = if m.lost != 0 {
            let k = m.lost.trailing_zeros() as u64;
            m.lost &= m.lost - 1;
            (k * mss, true)
        } else {
            match m.rtx {
                Some((a, b)) => {
                    let next = (a + mss).min(b);
                    m.rtx = if next < b { Some((next, b)) } else { None };
                    (a, true)
                }
                None => {
                    let a = m.sent;
                    m.sent = (a + mss).min(m.len);
                    (a, false)
                }
            }
        };
        let payload = mss.min(m.len - offset);
        let mut h = HomaHeader::new(HomaKind::Data);
        h.offset = offset;
        h.len = payload as u32;
        h.msg_len = m.len;
        h.unsched = m.unsched;
        let e = m.ends;
        let mut p = Packet::new(e.flow, e.src, e.dst, (payload + cfg.header as u64) as u32, Kind::Data, e.hash_fwd, Header::Homa(h));
        // Aeolus resends lost unscheduled packets as scheduled ones (§3.3), at the RESEND's class.
        let unscheduled = offset < m.unsched && !(cfg.aeolus && retx);
        p.class = if unscheduled { m.unsched_class } else { m.grant_class };
        p.droppable = cfg.aeolus && unscheduled;
        out.packets.push(p);
        if cfg.aeolus && !retx && offset + payload == m.unsched {
            // The PROBE right behind the last unscheduled packet, through the same queues (§3.3).
            let mut h = HomaHeader::new(HomaKind::Probe);
            h.msg_len = m.len;
            h.unsched = m.unsched;
            let mut probe = Packet::new(e.flow, e.src, e.dst, cfg.control, Kind::Control, e.hash_fwd, Header::Homa(h));
            probe.class = m.unsched_class;
            out.packets.push(probe);
        }
        m.stats.packets_sent += 1;
        m.stats.retransmits += retx as u64;
        out.budget -= 1;
        out.nic_queued = 1;
        if self.live.iter().any(|&j| self.msgs[j as usize].eligible()) {
            out.blocked = true;
            out.waiter = Some(e.flow);
        }
    }

    /// The timeout scan (§3.7): a message the receiver has said nothing about for twice the
    /// resend interval sends a packet again — its first if nothing was ever heard (the
    /// unscheduled packets may all be lost), else, once all of it was sent, its last (the ACK
    /// may be lost). A message the receiver knows and has not finished granting waits: the
    /// receiver's RESEND covers its losses.
    /// Returns whether any message is still live.
    pub fn scan(&mut self, now: Time, cfg: &HomaConfig) -> bool {
        let mss = cfg.mss as u64;
        for &i in &self.live {
            let m = &mut self.msgs[i as usize];
            if m.sent == 0 || now < m.heard + cfg.resend_interval.times(2) || m.eligible() || (m.heard_any && m.sent < m.len) {
                continue;
            }
            let a = if m.heard_any { (m.sent - 1) / mss * mss } else { 0 };
            m.rtx = Some((a, (a + mss).min(m.sent)));
            m.heard = now;
            m.stats.timeouts += 1;
        }
        !self.live.is_empty()
    }

    pub fn flow_of(&self, s: OutSlot) -> FlowId {
        self.msgs[s.0 as usize].ends.flow
    }
}
