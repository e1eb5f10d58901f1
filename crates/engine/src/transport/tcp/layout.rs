//! How a connection's byte stream is cut into segments.
//!
//! The scoreboard numbers segments; this maps segment numbers to bytes and back.
//! - Fixed layout (plain TCP): segment `i` is `[i·MSS, min((i+1)·MSS, written))` — arithmetic only.
//! - Cut-as-sent layout: each new segment is cut when it is first sent, at the size the sender uses
//!   then, and its boundaries are kept until it is cumulatively acknowledged. SAB needs it because a
//!   window below one packet shrinks the segment size (Zhang et al., JSAC 2014, §IV-B); persistent
//!   connections need it because the application writes data in pieces. Retransmissions resend a
//!   segment with the boundaries of its first transmission, so every ACK and SACK edge a receiver
//!   reports falls on a boundary.

use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct Layout {
    mss: u64,
    /// Bytes the application has handed to the connection (`None` = an endless stream).
    written: Option<u64>,
    cut: Option<Cut>,
}

/// Boundaries of segments `base..`: `bounds[k]` is where segment `base + k` starts; the last entry
/// is where the next new segment will start.
#[derive(Clone, Debug)]
struct Cut {
    base: u64,
    bounds: VecDeque<u64>,
}

impl Layout {
    pub fn fixed(mss: u32, written: Option<u64>) -> Layout {
        Layout { mss: mss as u64, written, cut: None }
    }

    pub fn cut_as_sent(mss: u32, written: Option<u64>) -> Layout {
        Layout { mss: mss as u64, written, cut: Some(Cut { base: 0, bounds: VecDeque::from([0]) }) }
    }

    pub fn written(&self) -> Option<u64> {
        self.written
    }

    /// The application hands `bytes` more (cut-as-sent layouts only: fixed boundaries would move).
    pub fn write(&mut self, bytes: u64) {
        debug_assert!(self.cut.is_some(), "a fixed layout cannot grow");
        self.written = self.written.map(|w| w + bytes);
    }

    /// The data ends at `bytes`, which must be at or after every segment cut so far (and, for a
    /// fixed layout, on a segment boundary or the old end).
    pub fn truncate(&mut self, bytes: u64) {
        self.written = Some(bytes);
    }

    /// First byte of segment `seg`. Cut-as-sent: `seg` must be between the oldest unreleased
    /// segment and the next new one.
    #[inline]
    pub fn start(&self, seg: u64) -> u64 {
        match &self.cut {
            None => {
                let b = seg * self.mss;
                self.written.map_or(b, |w| b.min(w))
            }
            Some(c) => c.bounds[(seg - c.base) as usize],
        }
    }

    /// Payload bytes of segment `seg`, once it has been sent (fixed: any segment).
    #[inline]
    pub fn len(&self, seg: u64) -> u64 {
        self.start(seg + 1) - self.start(seg)
    }

    /// Payload of the next new segment (number `nxt`) if it were cut now at `seg_size` bytes.
    #[inline]
    pub fn next_len(&self, nxt: u64, seg_size: u32) -> u64 {
        match &self.cut {
            None => self.len(nxt),
            Some(_) => {
                let s = self.start(nxt);
                let size = (seg_size as u64).max(1);
                self.written.map_or(size, |w| size.min(w.saturating_sub(s)))
            }
        }
    }

    /// Segment `nxt` is being sent for the first time: fix its end.
    #[inline]
    pub fn cut(&mut self, nxt: u64, seg_size: u32) {
        let len = self.next_len(nxt, seg_size);
        if let Some(c) = &mut self.cut {
            let end = c.bounds.back().copied().unwrap_or(0) + len;
            c.bounds.push_back(end);
        }
    }

    /// Segments below `una` are acknowledged: forget their boundaries.
    #[inline]
    pub fn release(&mut self, una: u64) {
        if let Some(c) = &mut self.cut {
            while c.base < una && c.bounds.len() > 1 {
                c.bounds.pop_front();
                c.base += 1;
            }
        }
    }

    /// The segment number whose start is the first boundary at or after `byte` (a byte offset an
    /// ACK or SACK reports). `nxt` is the next new segment: offsets beyond what was sent map past
    /// it, offsets below the oldest kept boundary map below it.
    #[inline]
    pub fn seg_of(&self, byte: u64, nxt: u64) -> u64 {
        match &self.cut {
            None => match self.written {
                Some(w) if byte >= w => w.div_ceil(self.mss),
                _ => byte.div_ceil(self.mss),
            },
            Some(c) => {
                if byte < c.bounds[0] {
                    return c.base.saturating_sub(1);
                }
                if byte > *c.bounds.back().unwrap() {
                    return nxt + 1;
                }
                c.base + c.bounds.partition_point(|&b| b < byte) as u64
            }
        }
    }

    /// Is there unsent data at segment `nxt`?
    #[inline]
    pub fn has_data_at(&self, nxt: u64) -> bool {
        self.written.is_none_or(|w| self.start(nxt) < w)
    }

    /// Does segment `seg` (sent) end where the written data ends?
    #[inline]
    pub fn ends_written(&self, seg: u64) -> bool {
        self.written.is_some_and(|w| self.start(seg + 1) >= w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_layout_is_arithmetic() {
        let l = Layout::fixed(1000, Some(2500));
        assert_eq!((l.start(0), l.start(1), l.start(2), l.start(3)), (0, 1000, 2000, 2500));
        assert_eq!((l.len(2), l.next_len(2, 10)), (500, 500), "the last segment is short; seg_size is ignored");
        assert_eq!((l.seg_of(1000, 0), l.seg_of(1500, 0), l.seg_of(2500, 0)), (1, 2, 3));
        assert!(l.ends_written(2) && !l.ends_written(1));
    }

    #[test]
    fn cut_as_sent_keeps_the_sizes_segments_were_sent_with() {
        // Two full segments, then the window shrinks to 300 B (SAB §IV-B), then grows again.
        let mut l = Layout::cut_as_sent(1000, Some(10_000));
        l.cut(0, 1000);
        l.cut(1, 1000);
        assert_eq!(l.next_len(2, 300), 300);
        l.cut(2, 300);
        l.cut(3, 1000);
        assert_eq!((l.start(2), l.start(3), l.start(4)), (2000, 2300, 3300));
        assert_eq!((l.len(2), l.len(3)), (300, 1000));
        // ACK and SACK edges map back to segment numbers.
        assert_eq!((l.seg_of(2000, 4), l.seg_of(2300, 4), l.seg_of(3300, 4)), (2, 3, 4));
        assert_eq!(l.seg_of(9000, 4), 5, "beyond what was sent");
        l.release(3);
        assert_eq!(l.start(3), 2300);
        assert_eq!(l.seg_of(1000, 4), 2, "an old ACK maps below the oldest unacknowledged segment");
    }

    #[test]
    fn written_data_grows_in_pieces() {
        let mut l = Layout::cut_as_sent(1000, Some(1500));
        l.cut(0, 1000);
        assert_eq!(l.next_len(1, 1000), 500);
        l.cut(1, 1000);
        assert!(!l.has_data_at(2) && l.ends_written(1));
        l.write(1500);
        assert!(l.has_data_at(2) && !l.ends_written(1));
        assert_eq!(l.next_len(2, 1000), 1000);
        l.cut(2, 1000);
        assert_eq!((l.start(2), l.start(3)), (1500, 2500));
    }
}
