//! The per-packet path allocates nothing: after a warm-up (arenas, queues and the event heap have
//! grown to their working size), running B1-like traffic performs zero heap allocations.
//! Its own test binary, because it installs a counting global allocator.

use fabricsim_engine::{Scenario, Simulator, Time};
mod common;

#[test]
fn steady_state_dctcp_incast_allocates_nothing() {
    let mut flows = String::new();
    for i in 1..=16 {
        flows += &format!("{{ src = \"h{i}\", dst = \"h0\", start = \"{i}us\" }},\n");
    }
    let doc = format!(
        r#"
flows = [
{flows}]
[simulation]
end = "200ms"
[topology]
kind = "star"
hosts = 17
link = {{ rate = "10Gbps", delay = "1us" }}
[queue]
buffer = "250pkt"
discipline = "ecn"
ecn_threshold = "65pkt"
[transport]
cc = "dctcp"
min_rto = "10ms"
"#
    );
    let sc = Scenario::from_toml(&doc).unwrap();
    let mut sim = Simulator::new(&sc, None);
    sim.run_until(Time::from_ms(100));
    let before = common::allocations();
    let events_before = sim.events_processed();
    sim.run_until(Time::from_ms(200));
    let allocs = common::allocations() - before;
    let events = sim.events_processed() - events_before;
    assert!(events > 400_000, "the run did real work ({events} events)");
    assert_eq!(allocs, 0, "{allocs} heap allocations during {events} events");
}
