//! Switch-wide shared packet memory with dynamic thresholds (Choudhury & Hahne, "Dynamic Queue
//! Length Thresholds for Shared-Memory Packet Switches", IEEE/ACM ToN 1998): a queue may hold a
//! packet only while its length is below T(t) = α·(B − Q(t)), B the memory of the switch and Q(t)
//! all that its queues hold. With S queues saturated each settles at αB / (1 + αS), leaving
//! B/(1 + αS) free for a queue that becomes active. Commodity switch ASICs do this with α per
//! class (e.g. Broadcom's "dynamic alpha").

use super::Amount;

/// One switch's shared buffer: its size and what its queues hold now.
#[derive(Clone, Debug)]
pub struct SharedPool {
    pub size: Amount,
    pub used_packets: u64,
    pub used_bytes: u64,
}

impl SharedPool {
    pub fn new(size: Amount) -> SharedPool {
        SharedPool { size, used_packets: 0, used_bytes: 0 }
    }

    /// May a queue holding (`pkts`, `bytes`) take one more packet of `size` bytes, with
    /// threshold factor `alpha`? The memory itself must also have room for it.
    #[inline]
    pub fn admits(&self, pkts: u64, bytes: u64, size: u64, alpha: f64) -> bool {
        let (mine, used, total, need) = match self.size {
            Amount::Packets(b) => (pkts, self.used_packets, b, 1),
            Amount::Bytes(b) => (bytes, self.used_bytes, b, size),
        };
        used + need <= total && (mine as f64) < alpha * (total - used) as f64
    }

    #[inline]
    pub fn take(&mut self, size: u64) {
        self.used_packets += 1;
        self.used_bytes += size;
    }

    #[inline]
    pub fn give(&mut self, size: u64) {
        self.used_packets -= 1;
        self.used_bytes -= size;
    }
}
