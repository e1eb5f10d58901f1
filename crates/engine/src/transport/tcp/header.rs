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
    /// The window field in bytes (read and written through `window`/`set_window`, which map
    /// u32::MAX to "unlimited" and saturate larger windows to it; 32 bits keep the packet within
    /// two cache lines). ACKs: the advertised window. SAB data packets: the window switches
    /// assign (unlimited = SAB's initial 0xffff, none assigned yet).
    pub rwnd: u32,
    pub ece: bool,
    pub cwr: bool,
    /// Last segment of the flow (FIN): acknowledged at once.
    pub fin: bool,
    /// Last segment of the data written so far (PSH): acknowledged at once, as the application's
    /// next request carries the ACK.
    pub psh: bool,
    /// A low-priority loop's packet (PPT's LCP, RC3's RLP): on data, an opportunistic packet the
    /// receiver acknowledges apart from the normal ones; on an ACK, a low-priority ACK (PPT §5:
    /// the DSCP priority tells the loops apart).
    pub lcp: bool,
    pub sack_count: u8,
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
}

impl TcpHeader {
    /// The window field in bytes; u64::MAX = unlimited.
    #[inline]
    pub fn window(&self) -> u64 {
        if self.rwnd == u32::MAX {
            u64::MAX
        } else {
            self.rwnd as u64
        }
    }
    /// Set the window field (windows of 4 GiB and more read as unlimited).
    #[inline]
    pub fn set_window(&mut self, w: u64) {
        self.rwnd = w.min(u32::MAX as u64) as u32;
    }
}
