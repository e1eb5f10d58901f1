//! Homa's packets (Montazeri et al., SIGCOMM 2018 §3, Fig. 3): DATA carries its byte offset, the
//! message length and how much of it is unscheduled; GRANT gives an offset the sender may send up
//! to and the priority to use; RESEND asks for a byte range; BUSY says "alive, sending something
//! else"; ACK (as in the Linux implementation) tells the sender the message is complete.
//! With Aeolus (Hu et al., SIGCOMM 2020 §3.3), PROBE follows a message's unscheduled packets, and
//! the RESEND the receiver answers it with names the lost unscheduled packets as a set (`mask`).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HomaKind {
    Data,
    Grant,
    Resend,
    Busy,
    Ack,
    /// Aeolus: sent right after a message's last unscheduled packet, in the same class (so in the
    /// same FIFOs); never droppable. Carries the message's length and unscheduled bytes, so a
    /// receiver that lost every unscheduled packet still learns of the message.
    Probe,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HomaHeader {
    pub kind: HomaKind,
    /// DATA: first byte carried; GRANT: bytes granted (send up to here); RESEND: range start.
    pub offset: u64,
    /// DATA: payload bytes; RESEND: range length.
    pub len: u32,
    /// DATA: the whole message's length.
    pub msg_len: u64,
    /// DATA: bytes of the message sent unscheduled.
    pub unsched: u64,
    /// GRANT and RESEND: the priority (class) for the packets it asks for.
    pub prio: u8,
    /// Aeolus RESEND: the unscheduled packets to send again, bit k = the packet at k·MSS.
    pub mask: u64,
}

impl HomaHeader {
    pub fn new(kind: HomaKind) -> HomaHeader {
        HomaHeader { kind, offset: 0, len: 0, msg_len: 0, unsched: 0, prio: 0, mask: 0 }
    }
}
