//! Homa's packets (Montazeri et al., SIGCOMM 2018 §3, Fig. 3): DATA carries its byte offset, the
//! message length and how much of it is unscheduled; GRANT gives an offset the sender may send up
//! to and the priority to use; RESEND asks for a byte range; BUSY says "alive, sending something
//! else"; ACK (as in the Linux implementation) tells the sender the message is complete.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HomaKind {
    Data,
    Grant,
    Resend,
    Busy,
    Ack,
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
}

impl HomaHeader {
    pub fn new(kind: HomaKind) -> HomaHeader {
        HomaHeader { kind, offset: 0, len: 0, msg_len: 0, unsched: 0, prio: 0 }
    }
}
