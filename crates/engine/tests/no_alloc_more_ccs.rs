//! HPCC's, Swift's, Flash's, PIAS's, PPT's and RC3's per-packet paths allocate nothing either (as tests/no_alloc_hot_path.rs
//! for DCTCP): HPCC reads every ACK's telemetry, whose records live in boxes made once per
//! connection, and paces; Swift paces below one packet. Its own test binary, because it installs
//! a counting global allocator; one test, so nothing else allocates while it counts.

use fabricsim_engine::{Scenario, Simulator, Time};
mod common;

#[test]
fn steady_state_hpcc_and_swift_incast_allocates_nothing() {
    // Also the flow-scheduling schemes (Flash's per-window class, PIAS's per-packet one) on the
    // ports they are meant for: 8 strict-priority queues with per-port ECN. Without marking their
    // DCTCP windows grow until loss, and a sender's segment record (`Scoreboard`) doubles its
    // capacity whenever its window passes a new power of two: growth, not per-packet work.
    let marking = "queues = 8\ndiscipline = \"ecn\"\necn_port_threshold = \"65pkt\"\n";
    // PPT and RC3 run their low-priority loops on long-lived flows through a send buffer (the
    // loop sends from its tail, una + send_buffer).
    let sndbuf = "send_buffer = \"300KB\"\n";
    for (cc, ports, extra) in [("hpcc", "", ""), ("swift", "", ""), ("flash", marking, ""), ("pias", marking, ""), ("ppt", marking, sndbuf), ("rc3", marking, sndbuf)] {
        let mut flows = String::new();
        for i in 1..=16 {
            flows += &format!("{{ src = \"h{i}\", dst = \"h0\", start = \"{i}us\" }},\n");
        }
        let doc = format!(
            "flows = [\n{flows}]\n[simulation]\nend = \"40ms\"\n[topology]\nkind = \"star\"\nhosts = 17\n\
             link = {{ rate = \"10Gbps\", delay = \"1us\" }}\n[queue]\nbuffer = \"250pkt\"\n{ports}[transport]\ncc = \"{cc}\"\nmin_rto = \"10ms\"\n{extra}"
        );
        let sc = Scenario::from_toml(&doc).unwrap();
        let mut sim = Simulator::new(&sc, None);
        sim.run_until(Time::from_ms(20));
        let before = common::allocations();
        let events_before = sim.events_processed();
        sim.run_until(Time::from_ms(40));
        let allocs = common::allocations() - before;
        let events = sim.events_processed() - events_before;
        assert!(events > 40_000, "{cc}: the run did real work ({events} events)");
        assert_eq!(allocs, 0, "{cc}: {allocs} heap allocations during {events} events");
    }
}
