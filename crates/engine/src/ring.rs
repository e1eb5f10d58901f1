//! [`Ring`]: a first-in first-out queue of `Copy` items in a buffer whose length is a power of two,
//! for the per-packet queues (the event list's lanes, the ports' FIFOs). A position is the front's index plus an
//! offset, masked by the length: a push or a pop is an add and an `and`, where std's `VecDeque`
//! (any capacity) wraps with a compare at every access.

/// A FIFO of `Copy` items; grows by doubling from 8 and never shrinks. As large as a `VecDeque`
/// (32 bytes), so a port's layout does not change with it.
#[derive(Debug, Clone)]
pub struct Ring<T: Copy> {
    /// Empty, or of a power-of-two length.
    buf: Box<[T]>,
    /// Index in `buf` of the front item.
    head: usize,
    len: usize,
}

impl<T: Copy> Default for Ring<T> {
    fn default() -> Self {
        Ring { buf: Box::default(), head: 0, len: 0 }
    }
}

impl<T: Copy> Ring<T> {
    /// An empty ring with room for `n` items before it grows (`fill`: any item, for the slots not
    /// yet used).
    pub fn with_capacity(n: usize, fill: T) -> Ring<T> {
        let cap = if n == 0 { 0 } else { n.next_power_of_two().max(8) };
        Ring { buf: vec![fill; cap].into_boxed_slice(), head: 0, len: 0 }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Index in `buf` of the item `n` places behind the front (`buf` not empty).
    #[inline]
    fn slot(&self, n: usize) -> usize {
        (self.head + n) & (self.buf.len() - 1)
    }

    /// The item `n` places behind the front, if there is one.
    #[inline]
    pub fn get(&self, n: usize) -> Option<&T> {
        if n < self.len { Some(&self.buf[self.slot(n)]) } else { None }
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    #[inline]
    pub fn back(&self) -> Option<&T> {
        self.len.checked_sub(1).and_then(|n| self.get(n))
    }

    #[inline]
    pub fn push_back(&mut self, x: T) {
        if self.len == self.buf.len() {
            self.grow(x);
        }
        let i = self.slot(self.len);
        self.buf[i] = x;
        self.len += 1;
    }

    /// Append `x` if the buffer has room and `x` may follow the back item (`follows(back)`); the
    /// common case of a push kept small enough to inline, the rest left to the caller.
    #[inline(always)]
    pub fn try_push_after(&mut self, x: T, follows: impl Fn(&T) -> bool) -> bool {
        if self.len == 0 || self.len == self.buf.len() {
            return false;
        }
        let mask = self.buf.len() - 1;
        if !follows(&self.buf[(self.head + self.len - 1) & mask]) {
            return false;
        }
        self.buf[(self.head + self.len) & mask] = x;
        self.len += 1;
        true
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let x = self.buf[self.head];
        self.head = (self.head + 1) & (self.buf.len() - 1);
        self.len -= 1;
        Some(x)
    }

    /// The items, front first.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).map(move |n| &self.buf[self.slot(n)])
    }

    /// Take the item at position `at` (0: the front), moving the shorter side of the ring up to
    /// close the gap. Not inlined: the rare path (push-out, trimming) stays out of the callers'.
    #[inline(never)]
    pub fn remove(&mut self, at: usize) -> Option<T> {
        if at >= self.len {
            return None;
        }
        let x = self.buf[self.slot(at)];
        if at < self.len / 2 {
            for n in (0..at).rev() {
                let (from, to) = (self.slot(n), self.slot(n + 1));
                self.buf[to] = self.buf[from];
            }
            self.head = (self.head + 1) & (self.buf.len() - 1);
        } else {
            for n in at..self.len - 1 {
                let (from, to) = (self.slot(n + 1), self.slot(n));
                self.buf[to] = self.buf[from];
            }
        }
        self.len -= 1;
        Some(x)
    }

    /// `pop_front`, with a copy of the new front item (the event list reads it at once).
    #[inline]
    pub fn pop_front_peek(&mut self) -> Option<(T, Option<T>)> {
        if self.len == 0 {
            return None;
        }
        let x = self.buf[self.head];
        self.head = (self.head + 1) & (self.buf.len() - 1);
        self.len -= 1;
        let next = if self.len > 0 { Some(self.buf[self.head]) } else { None };
        Some((x, next))
    }

    /// Put `x` in order from the back: behind the last item for which `after` is false, the
    /// items for which it is true (the last ones, at most `max` of them) moved one place back.
    /// Its position (0: the front), or `None`, nothing changed, when more than `max` would move.
    #[inline]
    pub fn insert_from_back(&mut self, x: T, max: usize, after: impl Fn(&T) -> bool) -> Option<usize> {
        let n = self.len;
        if n > max && after(&self.buf[self.slot(n - 1 - max)]) {
            return None;
        }
        let mut at = n;
        while at > 0 && after(&self.buf[self.slot(at - 1)]) {
            at -= 1;
        }
        if self.len == self.buf.len() {
            self.grow(x);
        }
        for i in (at..n).rev() {
            let (from, to) = (self.slot(i), self.slot(i + 1));
            self.buf[to] = self.buf[from];
        }
        let i = self.slot(at);
        self.buf[i] = x;
        self.len += 1;
        Some(at)
    }

    /// Double the buffer (8 at first), the items moved to its start in order; `fill` is any item,
    /// for the slots not yet used.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: T) {
        let cap = (self.buf.len() * 2).max(8);
        let mut buf = vec![fill; cap].into_boxed_slice();
        for (n, b) in buf.iter_mut().enumerate().take(self.len) {
            *b = self.buf[self.slot(n)];
        }
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;
    use std::collections::VecDeque;

    /// Against std's VecDeque over pushes, inlined appends, pops and removals that wrap around and grow the buffer.
    #[test]
    fn a_ring_keeps_fifo_order_across_wrap_growth_appends_and_removals() {
        let mut r: Ring<u32> = Ring::default();
        let mut d: VecDeque<u32> = VecDeque::new();
        let mut state = 12345u64;
        for step in 0..20_000u32 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            match (state >> 33) % 8 {
                0..=2 => {
                    r.push_back(step);
                    d.push_back(step);
                }
                3 => assert_eq!(r.pop_front(), d.pop_front()),
                4 => {
                    let want = d.pop_front().map(|x| (x, d.front().copied()));
                    assert_eq!(r.pop_front_peek(), want);
                }
                5 => {
                    // The inlined append: only behind an item, with room, and if allowed.
                    let ok = r.try_push_after(step, |&back| back % 2 == 0);
                    assert!(!ok || d.back().is_some_and(|&b| b % 2 == 0));
                    if ok {
                        d.push_back(step);
                    }
                }
                6 => {
                    let n = ((state >> 40) as usize) % (d.len() + 2);
                    assert_eq!(r.get(n), d.get(n));
                }
                _ => {
                    let at = ((state >> 40) as usize) % (d.len() + 1);
                    assert_eq!(r.remove(at), d.remove(at));
                }
            }
            assert_eq!(r.len(), d.len());
            assert_eq!(r.front(), d.front());
            assert_eq!(r.back(), d.back());
            if step % 97 == 0 {
                assert!(r.iter().eq(d.iter()));
            }
        }
        // Wrapped: the front has moved past the buffer's start many times.
        assert!(r.head > 0 || r.is_empty());
    }

    #[test]
    fn a_ring_made_with_room_holds_that_many_before_it_grows() {
        let mut r = Ring::with_capacity(100, 0u16);
        assert_eq!(r.buf.len(), 128);
        for i in 0..128 {
            r.push_back(i);
        }
        assert_eq!(r.buf.len(), 128);
        r.push_back(128);
        assert_eq!(r.buf.len(), 256);
        assert!(r.iter().copied().eq(0..129));
        assert_eq!(Ring::with_capacity(0, 0u8).buf.len(), 0);
    }

    #[test]
    fn insert_from_back_places_an_item_among_the_last_few_or_refuses() {
        // 0, 10, 20, ..., 90, after six pushed and popped (the front moved, then the ring grew).
        let mut r: Ring<u32> = Ring::default();
        for x in [1, 2, 3, 4, 5, 6] {
            r.push_back(x);
        }
        for _ in 0..6 {
            r.pop_front();
        }
        for x in 0..10 {
            r.push_back(10 * x);
        }
        // 75 goes behind 70, two from the back; 95 at the back; 5 would move ten (> 8): refused.
        assert_eq!(r.insert_from_back(75, 8, |&y| y > 75), Some(8));
        assert_eq!(r.insert_from_back(95, 8, |&y| y > 95), Some(11));
        assert_eq!(r.insert_from_back(5, 8, |&y| y > 5), None);
        assert_eq!(r.len(), 12);
        // 25 would move nine: refused; 35 moves eight, the limit: placed.
        assert_eq!(r.insert_from_back(25, 8, |&y| y > 25), None);
        assert_eq!(r.insert_from_back(35, 8, |&y| y > 35), Some(4));
        assert!(r.iter().copied().eq([0, 10, 20, 30, 35, 40, 50, 60, 70, 75, 80, 90, 95]));

        // Across the buffer's end: 60 .. 120 in a buffer of 8 whose front is at slot 6, so the
        // moves wrap; then a full buffer grows before the insert.
        let mut w: Ring<u32> = Ring::default();
        for x in 0..8 {
            w.push_back(10 * x);
        }
        for _ in 0..6 {
            w.pop_front();
        }
        for x in 8..13 {
            w.push_back(10 * x);
        }
        assert_eq!((w.head, w.len(), w.buf.len()), (6, 7, 8));
        assert_eq!(w.insert_from_back(65, 8, |&y| y > 65), Some(1));
        assert_eq!((w.len(), w.buf.len()), (8, 8));
        assert_eq!(w.insert_from_back(115, 8, |&y| y > 115), Some(7));
        assert_eq!(w.buf.len(), 16);
        assert!(w.iter().copied().eq([60, 65, 70, 80, 90, 100, 110, 115, 120]));
    }

    #[test]
    fn try_push_after_appends_only_when_it_may_and_there_is_room() {
        let mut r: Ring<u32> = Ring::default();
        assert!(!r.try_push_after(1, |_| true), "empty: left to the caller");
        r.push_back(10);
        assert!(r.try_push_after(20, |&b| b < 20));
        assert!(!r.try_push_after(15, |&b| b < 15), "not after the back item");
        for x in 3..8 {
            assert!(r.try_push_after(10 * x, |&b| b < 10 * x));
        }
        assert_eq!(r.len(), 7);
        assert!(r.try_push_after(80, |_| true));
        assert!(!r.try_push_after(90, |_| true), "full: left to the caller, which grows it");
        assert!(r.iter().copied().eq((1..9).map(|x| 10 * x)));
    }

    #[test]
    fn a_ring_grows_by_doubling_from_eight() {
        let mut r: Ring<u8> = Ring::default();
        assert!(r.pop_front().is_none() && r.front().is_none() && r.back().is_none());
        for i in 0..9 {
            r.push_back(i);
        }
        assert_eq!(r.buf.len(), 16);
        assert_eq!((0..9).map(|_| r.pop_front().unwrap()).collect::<Vec<_>>(), (0..9).collect::<Vec<_>>());
    }
}
