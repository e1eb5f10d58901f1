//! What an ns-3 DCTCP sender's congestion control counts of each ACK (`TcpConfig::dctcp_echo_ns3`;
//! ns-3-dev 1406464, src/internet/model/tcp-socket-base.cc and tcp-dctcp.cc).
//!
//! ns-3's `TcpSocketBase::ProcessAck` calls the congestion control's `PktsAcked` with one segment
//! for every ACK that acknowledges nothing new while data is outstanding ("DupAck. Artificially
//! call PktsAcked"), and `TcpDctcp::PktsAcked` adds those bytes to α's total, and to its ECE bytes
//! when the socket's ECN state is `ECN_ECE_RCVD`. ns-3's DCTCP receiver sends many such duplicates
//! (`receiver.rs`, `ns3_ce_event`), so in ns-3's B1 the senders' α windows hold 20 % more bytes
//! than were acknowledged (measured with benches/validation/ns3/dctcp_ns3.cc: the ECE share of the
//! acknowledged bytes 18.6 %, of what `TcpDctcp` counted 15.4 %).
//!
//! The state, read in `TcpSocketBase::ReceivedAck` and `SendDataPacket`: an ACK that advances with
//! ECE sets `ECN_ECE_RCVD` (and `m_ecnEchoSeq` to its number), one that advances without ECE
//! leaves it; a duplicate without ECE leaves it, a duplicate with ECE changes nothing; a new (not
//! retransmitted) data segment sent while in it, if `m_ecnEchoSeq` is above the segment that last
//! did this (`m_ecnCWRSeq`), carries CWR and leaves it (`ECN_CWR_SENT`).

/// The sender's ECN state as ns-3's `TcpDctcp::PktsAcked` reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns3EceState {
    /// `ECN_ECE_RCVD`.
    ece_rcvd: bool,
    /// `m_ecnEchoSeq`: the byte the last advancing ACK with ECE acknowledged up to.
    echo_seq: u64,
    /// `m_ecnCWRSeq`: the first byte of the data segment that last left `ECN_ECE_RCVD`.
    cwr_seq: u64,
}

impl Ns3EceState {
    /// An ACK that acknowledges new data up to `ack`; returns whether its bytes count as ECE.
    pub fn on_advancing_ack(&mut self, ack: u64, ece: bool) -> bool {
        self.ece_rcvd = ece;
        if ece {
            self.echo_seq = ack;
        }
        ece
    }

    /// A duplicate ACK while data is outstanding: ns-3 counts one segment for it; returns whether
    /// that segment counts as ECE.
    pub fn on_duplicate_ack(&mut self, ece: bool) -> bool {
        if !ece {
            self.ece_rcvd = false;
        }
        self.ece_rcvd
    }

    /// A new data segment starting at byte `seq` leaves (retransmissions change nothing).
    pub fn on_new_data(&mut self, seq: u64) {
        if self.ece_rcvd && self.echo_seq > self.cwr_seq {
            self.ece_rcvd = false;
            self.cwr_seq = seq;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duplicate_counts_as_ece_only_while_the_last_advancing_ece_is_unanswered() {
        let mut s = Ns3EceState::default();
        // ACK(2000, ECE): ECE_RCVD; a duplicate with ECE counts as ECE, one without ends it.
        assert!(s.on_advancing_ack(2000, true));
        assert!(s.on_duplicate_ack(true));
        assert!(!s.on_duplicate_ack(false));
        assert!(!s.on_duplicate_ack(true));
        // ACK(3000, ECE) again; new data at 5000 answers it (CWR, m_ecnCWRSeq = 5000), so a
        // duplicate with ECE no longer counts.
        assert!(s.on_advancing_ack(3000, true));
        s.on_new_data(5000);
        assert!(!s.on_duplicate_ack(true));
        // ACK(4000, ECE): m_ecnEchoSeq 4000 is below m_ecnCWRSeq 5000, so new data sends no CWR
        // and the state stays: the duplicate counts. ACK(6000, ECE) is above: new data ends it.
        assert!(s.on_advancing_ack(4000, true));
        s.on_new_data(6000);
        assert!(s.on_duplicate_ack(true));
        assert!(s.on_advancing_ack(6000, true));
        s.on_new_data(7000);
        assert!(!s.on_duplicate_ack(true));
        // An advancing ACK without ECE counts nothing and leaves the state.
        assert!(s.on_advancing_ack(8000, true));
        assert!(!s.on_advancing_ack(9000, false));
        assert!(!s.on_duplicate_ack(true));
    }
}
