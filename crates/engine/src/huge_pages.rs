//! A global allocator that asks Linux to back the simulator's memory with transparent huge pages
//! (2 MiB instead of 4 KiB), for fabrics whose state outgrows the caches (issue 36).
//!
//! Why: a k = 48 fat tree's run touches some 400 MiB at random, every packet-hop a few lines of
//! ports, queues, packets and flows scattered over it. With 4 KiB pages nearly each of those
//! reads also misses the TLB, and in a virtual machine a TLB miss walks two page tables (guest
//! and host). Most Linux distributions (and this project's machines) ship
//! `/sys/kernel/mm/transparent_hugepage/enabled = madvise`: a process gets huge pages only where
//! it asks for them with `madvise(MADV_HUGEPAGE)` (the kernel's `admin-guide/mm/transhuge`).
//! Measured on B8 (k = 48, 5 ms): about 8 % less CPU time (docs/PERFORMANCE.md, "Engine
//! changes"), 1 % more peak memory; B4, which fits the caches, unchanged.
//!
//! What it does, on glibc Linux only (elsewhere it is the system allocator unchanged):
//! - a block of 2 MiB or more (the big vectors: ports, packet slab, flows, routes, event
//!   storage) is advised as it is allocated or grown;
//! - the main heap, where glibc puts the many small blocks (a port's queue, a flow's buffers),
//!   is advised as it grows: after each allocation the break (`sbrk(0)`, no system call once
//!   glibc has read it) is compared with how far the heap has been advised, and the new part is
//!   advised before most of it is written (glibc has written a block's header there; a 2 MiB
//!   range already partly written gets small pages). glibc is told to grow the heap 32 MiB at a time (`M_TOP_PAD`), so that such ranges
//!   stay whole; the pages are only reserved, and untouched pages cost no memory.
//!
//! Limits and side effects: only the main heap is followed (a simulation run on another thread,
//! as a Dask worker's task is, gets its large blocks advised only; glibc gives threads arenas of
//! their own); in the Python extension, heap growth caused by CPython's own allocations is
//! advised at the next Rust allocation; and setting `M_TOP_PAD` also stops glibc from raising
//! its mmap and trim thresholds for the rest of the process (blocks from 128 KiB to 2 MiB then
//! each get a mapping of their own, unadvised, and a trimmed heap keeps 32 MiB). Results cannot
//! depend on any of it: only where blocks live and the pages behind them change. Use it in a binary or the Python extension:
//! `#[global_allocator] static A: fabricsim_engine::huge_pages::HugePages = fabricsim_engine::huge_pages::HugePages;`.
//! The added check costs a few instructions per allocation, which the per-packet path almost
//! never makes (a timing-wheel bucket regrown past 64 entries).

use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, with its memory advised for transparent huge pages (module doc).
#[derive(Clone, Copy, Debug, Default)]
pub struct HugePages;

/// Blocks at least this large are advised themselves (one huge page: a smaller block cannot
/// hold an aligned one).
pub const BLOCK_BYTES: usize = 2 << 20;
/// How far glibc extends its heap at once (`M_TOP_PAD`).
pub const HEAP_STEP_BYTES: i32 = 32 << 20;

unsafe impl GlobalAlloc for HugePages {
    #[inline]
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        os::advise(p, l.size());
        p
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        os::advise(p, l.size());
        p
    }
    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    #[inline]
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        let q = System.realloc(p, l, n);
        os::advise(q, n);
        q
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod os {
    use super::{BLOCK_BYTES, HEAP_STEP_BYTES};
    use std::ffi::c_void;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    use std::sync::Once;

    extern "C" {
        fn madvise(addr: *mut c_void, len: usize, advice: i32) -> i32;
        fn sbrk(increment: isize) -> *mut c_void;
        fn mallopt(param: i32, value: i32) -> i32;
    }
    /// `<sys/mman.h>`'s value on every Linux architecture.
    const MADV_HUGEPAGE: i32 = 14;
    /// glibc's `<malloc.h>`.
    const M_TOP_PAD: i32 = -2;
    const PAGE: usize = 4096;

    static SETUP: Once = Once::new();
    /// The break up to which the main heap has been advised (0: not yet).
    static HEAP_ADVISED: AtomicUsize = AtomicUsize::new(0);

    /// Advise the whole pages of `[from, to)` (a failure, e.g. a kernel without THP, is
    /// ignored: the memory is as good, only in small pages).
    fn advise_range(from: usize, to: usize) {
        let (from, to) = ((from + PAGE - 1) & !(PAGE - 1), to & !(PAGE - 1));
        if to > from {
            // SAFETY: madvise with MADV_HUGEPAGE changes no contents and no mapping, only how
            // the kernel backs the pages; on an unmapped range it fails harmlessly.
            unsafe { madvise(from as *mut c_void, to - from, MADV_HUGEPAGE) };
        }
    }

    #[inline]
    pub(super) fn advise(p: *mut u8, size: usize) {
        if p.is_null() {
            return;
        }
        if size >= BLOCK_BYTES {
            advise_range(p as usize, p as usize + size);
        }
        // SAFETY: mallopt only sets a tunable of glibc's allocator.
        SETUP.call_once(|| unsafe {
            mallopt(M_TOP_PAD, HEAP_STEP_BYTES);
        });
        advise_heap();
    }

    /// Advise the part of the main heap added since the last call: from the break found the
    /// first time (below it the heap is in use already) up to the current one. A heap that
    /// glibc has trimmed is followed down, so that when it grows again (the next run of a sweep
    /// worker, say) the new part is advised too: a trimmed range is unmapped, and its advice with it.
    #[inline]
    fn advise_heap() {
        // SAFETY: sbrk(0) reads the current break and moves nothing.
        let top = unsafe { sbrk(0) } as usize;
        if top == usize::MAX {
            return;
        }
        let done = HEAP_ADVISED.load(Relaxed);
        if let Some((advise, now)) = heap_step(done, top) {
            if let Some((from, to)) = advise {
                advise_range(from, to);
            }
            // Threads racing here at most advise a range twice or once too little.
            HEAP_ADVISED.store(now, Relaxed);
        }
    }

    /// What to do when the heap, advised up to `done` (0: never looked at), now ends at `top`:
    /// the range to advise, if any, and the new `done`; None when nothing changed.
    pub(super) fn heap_step(done: usize, top: usize) -> Option<(Option<(usize, usize)>, usize)> {
        if top == done {
            return None;
        }
        // Grown: advise the new part (not the first time: below the first break the heap is in
        // use already). Trimmed: only follow it down; the unmapped range took its advice along.
        let advise = (top > done && done != 0).then_some((done, top));
        Some((advise, top))
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod os {
    #[inline]
    pub(super) fn advise(_p: *mut u8, _size: usize) {}
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    /// The kernel's own account: does the mapping holding `addr` carry the huge-page advice
    /// (`hg` in its `VmFlags`, proc(5))?
    fn advised(addr: usize) -> Option<bool> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((a, b)) = range.split_once('-') {
                    if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) {
                        inside = a <= addr && addr < b;
                        continue;
                    }
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return Some(flags.split_whitespace().any(|f| f == "hg"));
                }
            }
        }
        None
    }

    fn thp_in_kernel() -> bool {
        std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists()
    }

    /// The two tests below read the mappings of the whole process: one at a time.
    static KERNEL: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn a_large_block_is_advised_and_a_system_one_is_not() {
        if !thp_in_kernel() {
            return;
        }
        let _one = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
        let l = Layout::from_size_align(16 << 20, 8).unwrap();
        unsafe {
            // A 16 MiB block from the system allocator is a mapping of its own, not advised.
            let plain = System.alloc(l);
            assert_eq!(advised(plain as usize + (8 << 20)), Some(false));
            System.dealloc(plain, l);
            let p = HugePages.alloc(l);
            assert_eq!(advised(p as usize + (8 << 20)), Some(true));
            HugePages.dealloc(p, l);
            // A block the system gave without advice, grown through `realloc`, is advised
            // where it now lives (mremap would carry an advice over, but there is none).
            let p = System.alloc(l);
            let q = HugePages.realloc(p, l, 64 << 20);
            assert_eq!(advised(q as usize + (40 << 20)), Some(true));
            HugePages.dealloc(q, Layout::from_size_align(64 << 20, 8).unwrap());
        }
    }

    #[test]
    fn the_main_heap_is_advised_as_it_grows() {
        if !thp_in_kernel() {
            return;
        }
        extern "C" {
            fn sbrk(increment: isize) -> *mut std::ffi::c_void;
        }
        let _one = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
        let l = Layout::from_size_align(64, 8).unwrap();
        unsafe {
            let p = HugePages.alloc(l);
            // The heap grows by 4 MiB (here by hand: the test's threads allocate from arenas of
            // their own, not the main heap; glibc takes a break moved by others in its stride,
            // and these pages are simply never given back).
            let old = sbrk(4 << 20) as usize;
            assert_ne!(old, usize::MAX);
            let top = sbrk(0) as usize;
            assert_eq!(advised(top - 1), Some(false));
            let q = HugePages.alloc(l);
            // The next allocation advised the new part of the heap.
            assert_eq!(advised(top - 1), Some(true));
            HugePages.dealloc(q, l);
            HugePages.dealloc(p, l);
        }
    }

    #[test]
    fn the_heap_is_followed_up_and_down() {
        use super::os::heap_step;
        // First look: nothing advised, the break remembered.
        assert_eq!(heap_step(0, 1000), Some((None, 1000)));
        assert_eq!(heap_step(1000, 1000), None);
        // Grown: the new part.
        assert_eq!(heap_step(1000, 5000), Some((Some((1000, 5000)), 5000)));
        // Trimmed to 3000, then grown to 5000 again: 3000..5000 is a new mapping, advised.
        assert_eq!(heap_step(5000, 3000), Some((None, 3000)));
        assert_eq!(heap_step(3000, 5000), Some((Some((3000, 5000)), 5000)));
    }
}
