//! NDP's header (Handley et al., SIGCOMM 2017 §3): data packets carry a packet number and a LAST
//! flag; the receiver answers each full packet with an ACK, each trimmed header with a NACK, and
//! paces PULLs carrying a per-connection pull counter.

/// What an NDP packet is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NdpKind {
    /// Payload (or, once a switch trimmed it, its header: `Packet::trimmed`).
    Data,
    /// A full data packet `seq` arrived (§3.2).
    Ack,
    /// Only the header of `seq` arrived: the sender queues it for retransmission (§3.2).
    Nack,
    /// The receiver's pull number `pull`: the sender may send `pull − last pull` packets (§3.2).
    Pull,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NdpHeader {
    pub kind: NdpKind,
    /// Packet number (data, ACK, NACK).
    pub seq: u32,
    /// ACK: every packet below this has arrived (cumulative, the receiver's in-order point).
    pub cum: u32,
    /// PULL: the connection's pull counter (cumulative, so a lost PULL is subsumed by the next).
    pub pull: u32,
    /// Data: the last packet of the flow.
    pub last: bool,
}

impl NdpHeader {
    pub fn new(kind: NdpKind) -> NdpHeader {
        NdpHeader { kind, seq: 0, cum: 0, pull: 0, last: false }
    }
}
