//! The per-packet path allocates nothing: after a warm-up (arenas, queues and the event heap have
//! grown to their working size), running B1-like traffic performs zero heap allocations.
//! Its own test binary, because it installs a counting global allocator (tests/common).

use fabricsim_engine::{Scenario, Simulator, Time};
mod common;

/// The counter is global: the tests take turns so that one's allocations are not another's.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn steady_state_dctcp_incast_allocates_nothing() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
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
    let (events_before, hops_before) = (sim.events_processed(), sim.packet_hops());
    sim.run_until(Time::from_ms(200));
    let allocs = common::allocations() - before;
    let (events, hops) = (sim.events_processed() - events_before, sim.packet_hops() - hops_before);
    // 100 ms of a 10 Gb/s bottleneck: about 260 000 packet-hops (1500 B packets, their ACKs).
    assert!(hops > 200_000, "the run did real work ({hops} packet-hops)");
    assert_eq!(allocs, 0, "{allocs} heap allocations during {events} events");
}

/// Star of 9 hosts at 10 Gb/s: 8 senders into h0 (long flows), `transport` and `queue` tables
/// given; warm up 40 ms (tables and heaps reach their working size), then 20 ms must allocate
/// nothing.
fn assert_steady_state_allocates_nothing(queue: &str, transport: &str, size: &str) {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut flows = String::new();
    for i in 1..=8 {
        flows += &format!("{{ src = \"h{i}\", dst = \"h0\", start = \"{i}us\"{size} }},\n");
    }
    let doc = format!(
        "flows = [\n{flows}]\n[simulation]\nend = \"60ms\"\n[topology]\nkind = \"star\"\nhosts = 9\n\
         link = {{ rate = \"10Gbps\", delay = \"1us\" }}\n[queue]\n{queue}\n[transport]\n{transport}\n"
    );
    let sc = Scenario::from_toml(&doc).unwrap();
    let mut sim = Simulator::new(&sc, None);
    sim.run_until(Time::from_ms(40));
    let before = common::allocations();
    let events_before = sim.events_processed();
    sim.run_until(Time::from_ms(60));
    let allocs = common::allocations() - before;
    let events = sim.events_processed() - events_before;
    assert!(events > 20_000, "the run did real work ({events} events)");
    assert_eq!(allocs, 0, "{allocs} heap allocations during {events} events");
}

#[test]
fn steady_state_ndp_incast_allocates_nothing() {
    // Trimming ports: PULLs, NACKs and retransmissions all in the measured window.
    let queue = "buffer = \"unlimited\"\nqueues = 2\nqueue_buffer = [\"72KB\", \"8pkt\"]\nscheduler = \"wrr\"\nweights = [10, 1]\nadmission = \"trim\"";
    assert_steady_state_allocates_nothing(queue, "kind = \"ndp\"", "");
}

#[test]
fn steady_state_homa_incast_allocates_nothing() {
    // 1 GB messages: grants, SRPT ranking and the NIC wake-ups run throughout.
    assert_steady_state_allocates_nothing("buffer = \"unlimited\"\nqueues = 8", "kind = \"homa\"", ", size = \"1GB\"");
}

#[test]
fn source_chosen_paths_allocate_nothing_per_packet() {
    // What `[routing] paths` adds per packet: the source's pick (`SourcePaths::next`, a shuffle
    // every 4 packets between pods of a k = 4 fat tree) and each hop's digit (`take_digit`, as
    // `Fabric::at_node` reads it). A whole run's working-set growth (queues reaching a new depth)
    // is not this code's and would blur the count, so the two are driven directly.
    use fabricsim_engine::ids::FlowId;
    use fabricsim_engine::network::source_paths::{take_digit, PathChoice, SourcePaths};
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let doc = "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"fat_tree\"\nk = 4\nlink = { rate = \"10Gbps\", delay = \"1us\" }\n[[flows]]\nsrc = \"h0\"\ndst = \"h15\"\n";
    let net = fabricsim_engine::topology::build(&Scenario::from_toml(doc).unwrap().topology);
    let hosts = net.hosts.clone();
    for choice in [PathChoice::Permutation, PathChoice::Random, PathChoice::Flow] {
        let mut sp = SourcePaths::new(choice, 1);
        for f in 0..16 {
            sp.add(&net, FlowId(f), hosts[f as usize], hosts[(f as usize + 5) % 16], Default::default());
        }
        let before = common::allocations();
        let mut hops_taken = 0u64;
        for n in 0..200_000u32 {
            let (f, fwd) = (n % 16, n % 3 != 0);
            let (mut at, to) = if fwd { (hosts[f as usize], hosts[(f as usize + 5) % 16]) } else { (hosts[(f as usize + 5) % 16], hosts[f as usize]) };
            let mut index = sp.next(FlowId(f), fwd);
            while at != to {
                let hops = net.next_hops(at, to);
                let port = if hops.len() == 1 { hops[0] } else { hops[take_digit(&mut index, hops.len())] };
                at = net.ports[port.idx()].peer;
                hops_taken += 1;
            }
        }
        let allocs = common::allocations() - before;
        assert!(hops_taken > 800_000, "{choice:?}: {hops_taken} hops");
        assert_eq!(allocs, 0, "{choice:?}: {allocs} heap allocations in {hops_taken} hops");
    }
}

#[test]
fn steady_state_pfc_incast_allocates_nothing() {
    // PFC at the switch: eight DCTCP senders into one port keep its ingresses pausing and resuming
    // (ingress counts, the per-packet ingress table, PAUSE/RESUME events): 95 pauses in the measured
    // window (191 by 40 ms, 286 by 60 ms).
    let queue = "buffer = \"unlimited\"\ndiscipline = \"ecn\"\necn_threshold = \"20pkt\"\n[pfc]\nxoff = \"6pkt\"\nxon = \"4pkt\"";
    assert_steady_state_allocates_nothing(queue, "cc = \"dctcp\"", "");
}
