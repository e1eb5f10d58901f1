//! Print a scenario's time series: `cargo run --release --example series -- SCENARIO.toml`.

use fabricsim_engine::{Scenario, Simulator};

fn main() {
    let path = std::env::args().nth(1).expect("usage: series SCENARIO.toml");
    let sc = Scenario::from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&sc, None);
    sim.run();
    let s = &sim.series;
    for i in 0..s.value.len() {
        println!("{:>14} {:>14} {:>8} {}", s.time_ps[i], s.metric[i].name(), sim.series_target(i), s.value[i]);
    }
}
