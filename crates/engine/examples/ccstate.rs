//! Print one flow's congestion-control state at the end of a run:
//! `cargo run --release --example ccstate -- SCENARIO.toml FLOW`.
use fabricsim_engine::transport::FlowTransport;
use fabricsim_engine::{Scenario, Simulator};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let sc = Scenario::from_toml(&std::fs::read_to_string(&a[1]).unwrap()).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&sc, None);
    sim.run();
    let FlowTransport::Tcp(c) = &sim.flows[a[2].parse::<usize>().unwrap()].transport else {
        eprintln!("that flow is not TCP");
        std::process::exit(2);
    };
    println!("{}\n{:?}\nmin_rtt {:?} srtt {:?}", c.sender.summary(), c.sender.cc, c.sender.tcb.min_rtt, c.sender.tcb.srtt);
}
