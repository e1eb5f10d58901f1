//! Run a scenario file without Python: `cargo run --release --example run -- SCENARIO.toml`.
//! A `.json` path is read as the scenario document the Python front end hands the engine
//! (`fabricsim.scenario.to_json`), e.g. a reproduction's point written out by a script.
//! Prints the summary and the first flows; handy for profiling the engine on its own.

use fabricsim_engine::{Scenario, Simulator};

/// As the Python extension does (`fabricsim_engine::huge_pages`).
#[global_allocator]
static ALLOC: fabricsim_engine::huge_pages::HugePages = fabricsim_engine::huge_pages::HugePages;

fn main() {
    let path = std::env::args().nth(1).expect("usage: run SCENARIO.toml");
    let text = std::fs::read_to_string(&path).expect("cannot read the scenario");
    let parsed = if path.ends_with(".json") { Scenario::from_json(&text) } else { Scenario::from_toml(&text) };
    let sc = match parsed {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut sim = Simulator::new(&sc, None);
    sim.run();
    let s = sim.summary();
    println!("{s:#?}");
    let t = sim.flow_table();
    for i in 0..t.id.len().min(20) {
        println!(
            "flow {:3} {:>4}->{:<4} acked {:>12} B  fct {:>12?} ps  rtx {:>5}  rto {:>3}  fr {:>4}  ecn {:>5}",
            t.id[i], t.src[i], t.dst[i], t.bytes_acked[i], t.fct_ps[i], t.retransmits[i], t.timeouts[i], t.fast_recoveries[i], t.ecn_reductions[i]
        );
    }
    if let (Some(min), Some(max)) = (t.bytes_acked.iter().min(), t.bytes_acked.iter().max()) {
        let mean = t.bytes_acked.iter().sum::<u64>() as f64 / t.id.len() as f64;
        println!("bytes acknowledged per flow: min {min} mean {mean:.0} max {max}");
    }
    let p = sim.port_table();
    for i in (0..p.name.len()).filter(|&i| p.drops[i] > 0).take(10) {
        println!("port {:>16} drops {:>6} trims {:>6} max queue {:>5} pkts", p.name[i], p.drops[i], p.trims[i], p.max_queue_packets[i]);
    }
}
