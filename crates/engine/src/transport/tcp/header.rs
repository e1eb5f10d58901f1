//! TCP's header, as far as the model needs it (RFC 9293 §3.1; SACK option RFC 2018).

/// At most three SACK blocks per ACK (RFC 2018 with the timestamp option).
pub const MAX_SACK_BLOCKS: usize = 3;

/// TCP header fields carried by the packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TcpHeader {
    /// First byte of payload (data) — sequence space starts at 0 for every flow.
    pub seq: u64,
    /// Payload bytes (data).
    pub len: u32,
    /// Cumulative ACK: next byte expected (ACK packets).
    pub ack: u64,
    /// The window field in bytes. ACKs: the advertised window (u64::MAX = unlimited). SAB data
    /// packets: the window switches assign (u64::MAX = SAB's initial 0xffff, none assigned yet).
    pub rwnd: u64,
    pub ece: bool,
    pub cwr: bool,
    /// Last segment of the flow (FIN): acknowledged at once.
    pub fin: bool,
    /// Last segment of the data written so far (PSH): acknowledged at once, as the application's
    /// next request carries the ACK.
    pub psh: bool,
    pub sack_count: u8,
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
}
