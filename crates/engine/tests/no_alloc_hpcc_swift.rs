//! HPCC's and Swift's per-packet paths allocate nothing either (as tests/no_alloc_hot_path.rs
//! for DCTCP): HPCC reads every ACK's telemetry, whose records live in boxes made once per
//! connection, and paces; Swift paces below one packet. Its own test binary, because it installs
//! a counting global allocator; one test, so nothing else allocates while it counts.

use fabricsim_engine::{Scenario, Simulator, Time};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn steady_state_hpcc_and_swift_incast_allocates_nothing() {
    for cc in ["hpcc", "swift"] {
        let mut flows = String::new();
        for i in 1..=16 {
            flows += &format!("{{ src = \"h{i}\", dst = \"h0\", start = \"{i}us\" }},\n");
        }
        let doc = format!(
            "flows = [\n{flows}]\n[simulation]\nend = \"40ms\"\n[topology]\nkind = \"star\"\nhosts = 17\n\
             link = {{ rate = \"10Gbps\", delay = \"1us\" }}\n[queue]\nbuffer = \"250pkt\"\n[transport]\ncc = \"{cc}\"\nmin_rto = \"10ms\"\n"
        );
        let sc = Scenario::from_toml(&doc).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.run_until(Time::from_ms(20));
        let before = ALLOCS.load(Ordering::Relaxed);
        let events_before = sim.events_processed();
        sim.run_until(Time::from_ms(40));
        let allocs = ALLOCS.load(Ordering::Relaxed) - before;
        let events = sim.events_processed() - events_before;
        assert!(events > 40_000, "{cc}: the run did real work ({events} events)");
        assert_eq!(allocs, 0, "{cc}: {allocs} heap allocations during {events} events");
    }
}
