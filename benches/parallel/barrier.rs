//! What one barrier costs on this machine: the synchronization a conservative windowed parallel
//! engine pays once per lookahead window (docs/PARALLEL.md). Stand-alone, std only:
//!
//!     rustc -O -o /tmp/barrier benches/parallel/barrier.rs && /tmp/barrier [threads] [rounds]
//!
//! Two barriers: a sense-reversing spin barrier on one shared counter (what a window loop on
//! dedicated cores would use) and `std::sync::Barrier` (a mutex and a condition variable: threads
//! sleep in the kernel). Each thread does no work between barriers, so the time per round is the
//! barrier's own latency. Prints the median and the range of 5 repetitions in ns per round.
//! On a shared, loaded machine a spinning thread can lose its core for a whole scheduler slice,
//! which shows in the maximum; only a quiet machine with a core per thread measures the floor.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Instant;

/// Centralized sense-reversing barrier: the last thread to arrive resets the count and flips
/// the shared sense; the others spin until the sense equals their own.
struct SpinBarrier {
    count: AtomicUsize,
    sense: AtomicBool,
    n: usize,
}

impl SpinBarrier {
    fn wait(&self, local: &mut bool) {
        *local = !*local;
        if self.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.count.store(self.n, Ordering::Relaxed);
            self.sense.store(*local, Ordering::Release);
        } else {
            let mut spins = 0u32;
            while self.sense.load(Ordering::Acquire) != *local {
                std::hint::spin_loop();
                spins += 1;
                if spins > 1 << 14 {
                    // Let a descheduled partner run (a loaded machine has fewer cores than
                    // runnable threads); costs nothing when the partner is on its own core.
                    std::thread::yield_now();
                    spins = 0;
                }
            }
        }
    }
}

fn spin(threads: usize, rounds: u64) -> f64 {
    let b = Arc::new(SpinBarrier { count: AtomicUsize::new(threads), sense: AtomicBool::new(false), n: threads });
    let start = Arc::new(Barrier::new(threads));
    let hs: Vec<_> = (0..threads)
        .map(|_| {
            let (b, start) = (b.clone(), start.clone());
            std::thread::spawn(move || {
                let mut local = false;
                start.wait();
                let t = Instant::now();
                for _ in 0..rounds {
                    b.wait(&mut local);
                }
                t.elapsed().as_nanos() as f64 / rounds as f64
            })
        })
        .collect();
    hs.into_iter().map(|h| h.join().unwrap()).fold(0.0, f64::max)
}

fn futex(threads: usize, rounds: u64) -> f64 {
    let b = Arc::new(Barrier::new(threads));
    let hs: Vec<_> = (0..threads)
        .map(|_| {
            let b = b.clone();
            std::thread::spawn(move || {
                b.wait();
                let t = Instant::now();
                for _ in 0..rounds {
                    b.wait();
                }
                t.elapsed().as_nanos() as f64 / rounds as f64
            })
        })
        .collect();
    hs.into_iter().map(|h| h.join().unwrap()).fold(0.0, f64::max)
}

fn report(name: &str, mut v: Vec<f64>) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("{name:>24}: median {:>9.0} ns per barrier (min {:.0}, max {:.0}; {} repetitions)", v[v.len() / 2], v[0], v[v.len() - 1], v.len());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let threads: usize = args.get(1).map_or(2, |s| s.parse().expect("threads"));
    let rounds: u64 = args.get(2).map_or(200_000, |s| s.parse().expect("rounds"));
    println!("{threads} threads, {rounds} rounds per repetition");
    report("spin (sense-reversing)", (0..5).map(|_| spin(threads, rounds)).collect());
    report("std::sync::Barrier", (0..5).map(|_| futex(threads, rounds / 10)).collect());
}
