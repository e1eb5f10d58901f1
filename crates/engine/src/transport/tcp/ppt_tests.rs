//! PPT and RC3 in small scenarios and at the sender, pinned to the paper's mechanisms
//! (SIGCOMM 2024 §3, §4) and hand-computed cases.

use crate::sim::testing::{run, tcp};

/// h1 -> h0 through one switch, 10 Gb/s, 10 us per wire; 8 strict-priority queues marking at
/// K = 65 packets (HCP) and 55 (LCP).
fn star(cc: &str, flows: &[(&str, u64)], extra: &str) -> String {
    let mut doc = format!(
        r#"
[simulation]
end = "100ms"
stop_when_done = true
[topology]
kind = "star"
hosts = 4
link = {{ rate = "10Gbps", delay = "10us" }}
[queue]
buffer = "2000pkt"
queues = 8
scheduler = "strict"
discipline = "ecn"
ecn_threshold = ["65pkt", "65pkt", "65pkt", "65pkt", "55pkt", "55pkt", "55pkt", "55pkt"]
[transport]
cc = "{cc}"
min_rto = "10ms"
{extra}
"#
    );
    for (src, size) in flows {
        doc.push_str(&format!("[[flows]]\nsrc = \"{src}\"\ndst = \"h0\"\nsize = {size}\n"));
    }
    doc
}

#[test]
fn smoke_lone_large_flow() {
    let sim = run(&star("ppt", &[("h1", 2_000_000)], ""));
    let t = sim.flow_table();
    let c = tcp(&sim, 0);
    let low = c.sender.low.as_deref().unwrap();
    println!("fct {:?} slowdown {:?} sent {} stats {:?} bdp {} rx lp {} acks {} dup {}", t.fct_ps[0], t.slowdown[0], t.segments_sent[0], low.stats, low.bdp(), c.receiver.lp_packets, c.receiver.lp_acks, c.receiver.duplicate_segments);
    let d = run(&star("dctcp", &[("h1", 2_000_000)], ""));
    println!("dctcp fct {:?} slowdown {:?}", d.flow_table().fct_ps[0], d.flow_table().slowdown[0]);
    assert_eq!(c.receiver.delivered(), 2_000_000);
}
