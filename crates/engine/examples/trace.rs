//! Step a scenario and print one flow's TCP sender state:
//! `cargo run --release --example trace -- SCENARIO.toml FLOW FROM_US TO_US STEP_US`.

use fabricsim_engine::transport::FlowTransport;
use fabricsim_engine::{Scenario, Simulator, Time};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let sc = Scenario::from_toml(&std::fs::read_to_string(&a[1]).unwrap()).unwrap_or_else(|e| panic!("{e}"));
    let (flow, from, to, step): (usize, u64, u64, u64) = (a[2].parse().unwrap(), a[3].parse().unwrap(), a[4].parse().unwrap(), a[5].parse().unwrap());
    let mut sim = Simulator::new(&sc, None);
    let mut t = from;
    while t <= to {
        sim.run_until(Time::from_us(t));
        let FlowTransport::Tcp(c) = &sim.flows[flow].transport else {
            eprintln!("flow {flow} is not TCP");
            std::process::exit(2);
        };
        println!("{t:>8}us {} | rcv {}", c.sender.summary(), c.receiver.delivered());
        t += step;
    }
}
