//! Scenario validation: good documents load, and each kind of bad input is reported with its key
//! path and a helpful message — all of them at once, never a panic.

use super::*;

const GOOD: &str = r#"
name = "tiny"
[simulation]
end = "10ms"
seed = 7
[topology]
kind = "star"
hosts = 3
link = { rate = "10Gbps", delay = "1us" }
[queue]
buffer = "100pkt"
discipline = "ecn"
ecn_threshold = "20pkt"
[transport]
cc = "dctcp"
min_rto = "10ms"
[transports.reno]
cc = "newreno"
[[flows]]
src = "h1"
dst = "h0"
size = "1MB"
[[flows]]
src = "h2"
dst = "h0"
start = "1us"
transport = "reno"
[output]
sample_interval = "10us"
queues = ["s0->h0"]
cwnd = "all"
"#;

#[test]
fn good_scenario_loads() {
    let s = Scenario::from_toml(GOOD).unwrap();
    assert_eq!(s.name, "tiny");
    assert_eq!(s.end, Time::from_ms(10));
    assert_eq!(s.seed, 7);
    assert_eq!(s.topology.nodes.len(), 4);
    assert_eq!(s.flows.len(), 2);
    assert_eq!(s.flows[0].size, Some(1_000_000));
    assert_eq!(s.flows[1].size, None);
    assert_eq!(s.flows[0].cfg.tcp().unwrap().cc.name(), "dctcp");
    assert_eq!(s.flows[1].cfg.tcp().unwrap().cc.name(), "newreno");
    assert_eq!(s.flows[1].cfg.tcp().unwrap().rto.min, Time::from_ms(10), "named profiles inherit from [transport]");
    assert_eq!(s.output.cwnd, vec![0, 1]);
    assert_eq!(s.topology.links[0].queue_ba.marking, crate::queue::QueueSpec::ecn(Some(Amount::Packets(100)), Amount::Packets(20)).marking);
}

#[test]
fn json_and_toml_agree() {
    let s = Scenario::from_toml(GOOD).unwrap();
    let v: toml::Value = toml::from_str(GOOD).unwrap();
    let j = serde_json::to_string(&v).unwrap();
    assert_eq!(Scenario::from_json(&j).unwrap(), s);
}

/// Apply `edit` (a find → replace on GOOD) and return the problems reported.
fn problems(find: &str, replace: &str) -> Vec<Issue> {
    assert!(GOOD.contains(find), "test bug: '{find}' not in GOOD");
    let doc = GOOD.replacen(find, replace, 1);
    match Scenario::from_toml(&doc) {
        Ok(_) => panic!("expected an error after replacing '{find}' with '{replace}'"),
        Err(iss) => iss.0,
    }
}

fn assert_reports(find: &str, replace: &str, path: &str, words: &[&str]) {
    let iss = problems(find, replace);
    let hit = iss.iter().find(|i| i.path == path);
    let Some(i) = hit else { panic!("no problem reported at '{path}'; got: {iss:?}") };
    for w in words {
        assert!(i.message.contains(w), "message for {path} lacks '{w}': {}", i.message);
    }
}

#[test]
fn bad_inputs_name_key_value_and_expectation() {
    // 1. Unknown key, with a suggestion.
    assert_reports("seed = 7", "sede = 7", "simulation.sede", &["unknown key", "did you mean 'seed'"]);
    // 2. Malformed rate unit.
    assert_reports("\"10Gbps\"", "\"10Gbs\"", "topology.link.rate", &["'10Gbs' is not a rate", "try '10Gbps'"]);
    // 3. Zero rate.
    assert_reports("\"10Gbps\"", "\"0Gbps\"", "topology.link.rate", &["positive"]);
    // 4. Negative delay.
    assert_reports("delay = \"1us\"", "delay = \"-1us\"", "topology.link.delay", &["not a duration"]);
    // 5. Duration without a unit.
    assert_reports("end = \"10ms\"", "end = 10", "simulation.end", &["no unit"]);
    // 6. Buffer smaller than one packet.
    assert_reports("buffer = \"100pkt\"", "buffer = \"1KB\"", "queue.buffer", &["smaller than one packet"]);
    // 7. Unknown host, with a suggestion.
    assert_reports("dst = \"h0\"", "dst = \"h9\"", "flows[0].dst", &["'h9' is not a host", "h0 .. h2"]);
    // 8. src == dst.
    assert_reports("src = \"h1\"", "src = \"h0\"", "flows[0].dst", &["also the source"]);
    // 9. Unknown congestion control.
    assert_reports("cc = \"dctcp\"", "cc = \"dctpc\"", "transport.cc", &["'dctpc' is not known", "did you mean 'dctcp'"]);
    // 10. Unknown transport profile on a flow.
    assert_reports("transport = \"reno\"", "transport = \"cubic9\"", "flows[1].transport", &["not a transport profile"]);
    // 11. Flow starting after the end.
    assert_reports("start = \"1us\"", "start = \"20ms\"", "flows[1].start", &["not before the end"]);
    // 12. Flow between a host and a switch.
    assert_reports("dst = \"h0\"", "dst = \"s0\"", "flows[0].dst", &["is a switch"]);
    // 13. Malformed size.
    assert_reports("size = \"1MB\"", "size = \"1 parsec\"", "flows[0].size", &["not a size"]);
    // 14. ECN threshold at or above the buffer.
    assert_reports("ecn_threshold = \"20pkt\"", "ecn_threshold = \"200pkt\"", "queue.ecn_threshold", &["not below the buffer"]);
    // 15. Unknown topology kind.
    assert_reports("kind = \"star\"", "kind = \"ring\"", "topology.kind", &["'ring' is not known", "star"]);
    // 16. Wrong type.
    assert_reports("hosts = 3", "hosts = \"three\"", "topology.hosts", &["not a non-negative whole number"]);
    // 17. Unknown port in the output section.
    assert_reports("queues = [\"s0->h0\"]", "queues = [\"s0->h7\"]", "output.queues[0]", &["not a port"]);
    // 18. cwnd series for a flow that does not exist.
    assert_reports("cwnd = \"all\"", "cwnd = [5]", "output.cwnd[0]", &["no flow 5"]);
    // 19. Loss rate out of range.
    assert_reports("delay = \"1us\" }", "delay = \"1us\", loss_rate = 1.5 }", "topology.link.loss_rate", &["probability"]);
    // 20. Zero-length simulation.
    assert_reports("end = \"10ms\"", "end = \"0s\"", "simulation.end", &["positive"]);
    // 20b. The tie order is one of its three names (hybrid networks: the next test).
    assert_reports("end = \"10ms\"", "end = \"10ms\"\ntie_order = \"fifo\"", "simulation.tie_order", &["'fifo' is not known", "event, scheduled, scheduled_pipe, scheduled_switch"]);
    assert_reports("end = \"10ms\"", "end = \"10ms\"\ntie_order = \"schedule\"", "simulation.tie_order", &["did you mean 'scheduled'"]);
    // Not a string: the accepted names too (every choice key reads through `as_choice`).
    assert_reports("end = \"10ms\"", "end = \"10ms\"\ntie_order = 3", "simulation.tie_order", &["3 is not a string", "expected one of: event, scheduled, scheduled_pipe, scheduled_switch"]);
    // 20c. The clock's resolution is "1ps" or "1ns"; a nanosecond clock refuses a delay it would round to 0.
    let ns = GOOD.replacen("end = \"10ms\"", "end = \"10ms\"\ntime_resolution = \"1ns\"", 1).replacen("delay = \"1us\"", "delay = \"400ps\"", 1);
    let iss = Scenario::from_toml(&ns).err().expect("a 400 ps delay under a 1 ns clock").0;
    let i = iss.iter().find(|i| i.path == "simulation.time_resolution").unwrap_or_else(|| panic!("{iss:?}"));
    assert!(i.message.contains("400 ps") && i.message.contains("0 ns"), "{}", i.message);
    assert!(Scenario::from_toml(&ns.replacen("delay = \"400ps\"", "delay = \"500ps\"", 1)).is_ok(), "500 ps rounds to 1 ns");
    assert_reports("end = \"10ms\"", "end = \"10ms\"\ntime_resolution = \"1us\"", "simulation.time_resolution", &["'1us' is not known", "1ps, 1ns"]);
    // 21. min RTO above max RTO.
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\nmax_rto = \"1ms\"", "transport.min_rto", &["above max_rto"]);
    // 21b. The SYN's timestamp is "sent" or "zero" (htsim's).
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\nsyn_timestamp = \"0\"", "transport.syn_timestamp", &["\"sent\" or \"zero\""]);
    // 21b'. The SYN has a size (htsim's is one byte).
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\nsyn_size = 0", "transport.syn_size", &["0 B", "1 to 10000 bytes"]);
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\nhandshake = true\nsyn_size = \"20KB\"", "transport.syn_size", &["20000 B", "1 to 10000 bytes"]);
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\nack_size = \"20KB\"", "transport.ack_size", &["20000 B", "1 to 10000 bytes"]);
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\nsyn_size = \"1B\"", "transport.syn_size", &["needs handshake = true"]);
    // 21b''. The SYN-ACK has a size (ns-3's carries options: 58 B).
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\nhandshake = true\nsynack_size = 0", "transport.synack_size", &["0 B", "1 to 10000 bytes"]);
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\nsynack_size = \"58B\"", "transport.synack_size", &["needs handshake = true"]);
    // 21b'''. ns-3's DCTCP rules refused where htsim's rules replace what they act on, and ns-3's
    // CWR exit where DCTCP never enters CWR.
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\ncc_params = { first_window_at_ack = 1, ack_window = 1 }", "transport.cc_params", &["first_window_at_ack = 1", "ack_window = 1"]);
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\ncc_params = { cut_before_alpha = 1, window_cut = 1 }", "transport.cc_params", &["cut_before_alpha = 1", "window_cut = 1"]);
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\ncwr_exit = \"beyond\"\ncc_params = { cwr_on_ece = 0, window_cut = 1 }", "transport.cwr_exit", &["\"beyond\"", "cwr_on_ece = 0"]);
    // 21c. The RTO scan period is a time.
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\nrto_tick = \"fast\"", "transport.rto_tick", &["fast"]);
    // 21d. The ACKs' class is a class.
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\nack_class = 8", "transport.ack_class", &["8 is not a priority class"]);
    // 22. Zero-size flow.
    assert_reports("size = \"1MB\"", "size = 0", "flows[0].size", &["at least one byte"]);
    // 24. A top-level key swallowed by the preceding table (a classic TOML slip).
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\nflows = []", "transport.flows", &["belongs to that table"]);
    // 23. DCTCP without ECN.
    assert_reports("min_rto = \"10ms\"", "min_rto = \"10ms\"\necn = false", "transport.ecn", &["DCTCP needs ECN"]);
}

#[test]
fn every_problem_is_reported_at_once() {
    let doc = GOOD.replacen("\"10Gbps\"", "\"10Gbs\"", 1).replacen("seed = 7", "sede = 7", 1).replacen("size = \"1MB\"", "size = \"1 parsec\"", 1);
    let iss = Scenario::from_toml(&doc).unwrap_err();
    let paths: Vec<&str> = iss.0.iter().map(|i| i.path.as_str()).collect();
    assert!(paths.contains(&"topology.link.rate"), "{paths:?}");
    assert!(paths.contains(&"simulation.sede"), "{paths:?}");
    assert!(paths.contains(&"flows[0].size"), "flows are checked even when the links are broken: {paths:?}");
}

#[test]
fn unreachable_destination_in_explicit_topology() {
    let doc = r#"
[simulation]
end = "1ms"
[topology]
kind = "explicit"
hosts = ["a", "b", "c"]
switches = ["s"]
links = [ { a = "a", b = "s", rate = "10Gbps", delay = "1us" },
          { a = "b", b = "s", rate = "10Gbps", delay = "1us" } ]
[[flows]]
src = "a"
dst = "c"
size = "10KB"
"#;
    let iss = Scenario::from_toml(doc).unwrap_err();
    assert_eq!(iss.0.len(), 1, "{iss}");
    assert_eq!(iss.0[0].path, "flows[0].dst");
    assert!(iss.0[0].message.contains("cannot be reached"));
}

#[test]
fn garbage_never_panics() {
    let docs = [
        "",
        "[[[",
        "simulation = 3",
        "[simulation]\nend = \"1s\"\n[topology]\nkind = 5",
        "[simulation]\nend = \"1s\"\n[topology]\nkind = \"explicit\"\nlinks = 3",
        "[simulation]\nend = \"1s\"\n[topology]\nkind = \"explicit\"\nhosts=[\"a\",\"a\"]\nlinks = [1, {a=\"a\"}]",
        "[simulation]\nend = \"1s\"\n[topology]\nkind = \"star\"\nhosts = 2\nlink = 4\nflows = 3",
        "flows = [1, 2]\n[simulation]\nend=\"99999999999999999999s\"",
    ];
    for d in docs {
        assert!(Scenario::from_toml(d).is_err(), "accepted: {d}");
    }
    assert!(Scenario::from_json("[1, 2]").is_err());
    assert!(Scenario::from_json("{").is_err());
}

#[test]
fn random_mutations_never_panic() {
    // Replace 1–3 random leaves of GOOD with values from a hostile pool; whatever validates must
    // also build and run without panicking.
    use crate::rng::Rng;
    use serde_json::{json, Value};
    let base: Value = serde_json::to_value(toml::from_str::<toml::Value>(GOOD).unwrap()).unwrap();
    let pool = [
        json!(0), json!(-1), json!(1), json!(7), json!(1e300), json!(u64::MAX), json!(2.5), json!(true),
        json!(""), json!("0"), json!("1us"), json!("0ps"), json!("999999999h"), json!("1e9Gbps"),
        json!("1Tbps"), json!("1bps"), json!("1B"), json!("65000B"), json!("0pkt"), json!("1pkt"),
        json!("unlimited"), json!("infinite"), json!("all"), json!("h0"), json!("s0"), json!("ecn"),
        json!("dctcp"), json!([]), json!([1, "x"]), json!({}), json!({"rate": "1Gbps"}), json!(null),
    ];
    fn leaves(v: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, x)| {
                path.push(k.clone());
                leaves(x, path, out);
                path.pop();
            }),
            Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| {
                path.push(i.to_string());
                leaves(x, path, out);
                path.pop();
            }),
            _ => out.push(path.clone()),
        }
        if !path.is_empty() {
            out.push(path.clone()); // tables and lists themselves can be replaced too
        }
    }
    let mut paths = vec![];
    leaves(&base, &mut vec![], &mut paths);
    let mut rng = Rng::new(2024);
    let (mut valid, mut invalid) = (0, 0);
    for _ in 0..4000 {
        let mut doc = base.clone();
        for _ in 0..1 + rng.below(3) {
            let path = &paths[rng.below(paths.len() as u64) as usize];
            let ptr = format!("/{}", path.join("/"));
            if let Some(slot) = doc.pointer_mut(&ptr) {
                *slot = pool[rng.below(pool.len() as u64) as usize].clone();
            }
        }
        match Scenario::from_value(&doc) {
            Ok(sc) => {
                valid += 1;
                let mut sim = crate::Simulator::new(&sc, None);
                sim.run_until(Time::from_us(200));
                assert!(sim.conservation().holds());
            }
            Err(iss) => {
                invalid += 1;
                assert!(!iss.0.is_empty() && iss.0.iter().all(|i| !i.message.is_empty()));
            }
        }
    }
    assert!(valid > 50 && invalid > 1000, "valid {valid}, invalid {invalid}");
}

#[test]
fn oversized_topology_is_refused_not_allocated() {
    // A leaf-spine of 60,000 leaves (16 hosts each, 960,000 hosts) and 4 spines: its routing
    // table has a row per switch and a group per leaf, (60,000 + 4) x 60,000 x 8 B = 28.8 GB of
    // sets. Refused before anything is built wherever the machine has less memory than that (the
    // test says nothing on a larger one).
    let doc = "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"leaf_spine\"\nleaves = 60000\nspines = 4\nhosts_per_leaf = 16\nlink = { rate = \"10Gbps\", delay = \"1us\" }\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n";
    let mem = crate::scenario::limits::machine_memory();
    if mem.is_some_and(|m| m > 30_000_000_000) {
        return;
    }
    let iss = Scenario::from_toml(doc).unwrap_err();
    let msg = &iss.0.iter().find(|i| i.path == "topology.kind").unwrap_or_else(|| panic!("{iss}")).message;
    assert!(msg.starts_with("1020004 nodes, 2400000 ports: routing table 60004 rows x 60000 destination groups"), "{msg}");
}

#[test]
fn cc_params_set_knobs_by_name_and_are_checked() {
    use crate::transport::tcp::cc::knobs_of;
    let doc = GOOD
        .replace("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\ncc_params = { g = 0.125 }\nmin_rto")
        .replace("[transports.reno]\ncc = \"newreno\"", "[transports.reno]\ncc = \"scalable\"\ncc_params = { md_shift = 1 }\n[transports.plain]\ncc = \"cubic\"");
    let sc = Scenario::from_toml(&doc).unwrap();
    let g = knobs_of("dctcp").iter().position(|k| k.name == "g").unwrap();
    assert_eq!(sc.flows[0].cfg.tcp().unwrap().cc_params.0[g], Some(0.125));
    let md = knobs_of("scalable").iter().position(|k| k.name == "md_shift").unwrap();
    assert_eq!(sc.flows[1].cfg.tcp().unwrap().cc_params.0[md], Some(1.0));

    let bad = GOOD.replace("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\ncc_params = { gg = 0.1, initial_alpha = 2 }\nmin_rto")
        .replace("[transports.reno]\ncc = \"newreno\"", "[transports.reno]\ncc = \"westwood\"\ncc_params = { x = 1 }");
    let e = Scenario::from_toml(&bad).unwrap_err().to_string();
    assert!(e.contains("transport.cc_params.gg: is not a parameter of 'dctcp'; did you mean 'g'?"), "{e}");
    assert!(e.contains("transport.cc_params.initial_alpha: 2 is not a number in [0, 1]"), "{e}");
    assert!(e.contains("transports.reno.cc_params.x: unknown: 'westwood' has no settable parameters"), "{e}");
}

#[test]
fn a_profile_that_switches_algorithm_does_not_inherit_knobs() {
    // Knobs are positional per algorithm: cubic's would mean something else to veno.
    let doc = GOOD
        .replace("cc = \"dctcp\"\nmin_rto", "cc = \"cubic\"\ncc_params = { beta = 0.5 }\nmin_rto")
        .replace("[transports.reno]\ncc = \"newreno\"", "[transports.reno]\ncc = \"veno\"")
        .replace("[queue]\nbuffer = \"100pkt\"\ndiscipline = \"ecn\"\necn_threshold = \"20pkt\"\n", "");
    let sc = Scenario::from_toml(&doc).unwrap();
    assert!(!sc.flows[0].cfg.tcp().unwrap().cc_params.is_empty());
    assert!(sc.flows[1].cfg.tcp().unwrap().cc_params.is_empty());
}

#[test]
fn shorthand_keys_set_their_algorithms_knobs_and_cc_params_wins() {
    use crate::transport::tcp::cc::knobs_of;
    let knob = |cc: &str, name: &str| knobs_of(cc).iter().position(|k| k.name == name).unwrap();
    let doc = GOOD
        .replace("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\ndctcp_g = 0.125\ndctcp_initial_alpha = 0.5\ncc_params = { initial_alpha = 0.25 }\nmin_rto")
        .replace("[transports.reno]\ncc = \"newreno\"", "[transports.reno]\ncc = \"cubic\"\ncubic_hystart = false\nretcp_alpha = 3");
    let sc = Scenario::from_toml(&doc).unwrap();
    let d = sc.flows[0].cfg.tcp().unwrap();
    assert_eq!(d.cc_params.0[knob("dctcp", "g")], Some(0.125));
    assert_eq!(d.cc_params.0[knob("dctcp", "initial_alpha")], Some(0.25), "cc_params wins over the shorthand");
    let c = sc.flows[1].cfg.tcp().unwrap();
    assert_eq!(c.cc_params.0[knob("cubic", "hystart")], Some(0.0));
    // A shorthand for another algorithm (reTCP's alpha on a CUBIC profile) sets nothing.
    assert_eq!(c.cc_params.0.iter().filter(|v| v.is_some()).count(), 1);
}

#[test]
fn queue_tables_are_read_and_their_mistakes_named() {
    let q = "buffer = \"100pkt\"\ndiscipline = \"ecn\"\necn_threshold = \"20pkt\"\n";
    let with = |extra: &str| GOOD.replace(q, extra);
    // A full multi-class port reads back as written.
    let doc = with("buffer = \"240pkt\"\nqueues = 4\nclasses = [0, 0, 1, 2, 3]\nscheduler = \"drr\"\nweights = [4, 3, 2, 1]\nquantum = \"9KB\"\n\
        discipline = \"ecn\"\necn_threshold = [\"96KB\", \"86KB\", \"86KB\", \"86KB\"]\necn_port_threshold = \"65pkt\"\nmark_at = \"dequeue\"\nadmission = \"pushout\"\n");
    let s = Scenario::from_toml(&doc).unwrap_or_else(|e| panic!("{e}"));
    let sp = s.topology.links[0].queue_ba;
    assert_eq!((sp.queues, &sp.class_map[..6]), (4, &[0, 0, 1, 2, 3, 3][..]));
    assert_eq!(sp.sched, crate::queue::Sched::Drr { weights: [4, 3, 2, 1, 1, 1, 1, 1], quantum: 9000 });
    assert_eq!(sp.admission, crate::queue::Admission::PushOut);
    let crate::queue::Marking::Threshold { queue, port, at } = sp.marking else { panic!("{:?}", sp.marking) };
    assert_eq!((queue[0], queue[1], &port[..4], at), (Some(Amount::Bytes(96_000)), Some(Amount::Bytes(86_000)), &[Some(Amount::Packets(65)); 4][..], crate::queue::MarkAt::Dequeue));
    // Per queue, with "off": PPT's reading of §3.2 (HCP queues on their own length, LCP queues on
    // the port's buffer occupancy).
    let doc = with("buffer = \"120KB\"\nqueues = 4\ndiscipline = \"ecn\"\necn_threshold = [\"96KB\", \"96KB\", \"off\", \"off\"]\necn_port_threshold = [\"off\", \"off\", \"86KB\", \"86KB\"]\n");
    let sp = Scenario::from_toml(&doc).unwrap_or_else(|e| panic!("{e}")).topology.links[0].queue_ba;
    let crate::queue::Marking::Threshold { queue, port, .. } = sp.marking else { panic!("{:?}", sp.marking) };
    let (k96, k86) = (Some(Amount::Bytes(96_000)), Some(Amount::Bytes(86_000)));
    assert_eq!((&queue[..4], &port[..4]), (&[k96, k96, None, None][..], &[None, None, k86, k86][..]));
    let red = with("discipline = \"red\"\nred = { min_th = \"20pkt\", max_th = \"60pkt\", max_p = 0.1, weight = 0.5, gentle = false }\n");
    let crate::queue::Marking::Red(r) = Scenario::from_toml(&red).unwrap().topology.links[0].queue_ba.marking else { panic!() };
    assert_eq!((r.min_th, r.max_th, r.max_p, r.weight, r.gentle), (Amount::Packets(20), Amount::Packets(60), 0.1, 0.5, false));
    // Weight 1 (ns-3's QW = 1: the instantaneous queue) is a weight; 0 and above 1 are not.
    let unit = with("discipline = \"red\"\nred = { min_th = \"20pkt\", max_th = \"60pkt\", weight = 1 }\n");
    let crate::queue::Marking::Red(r) = Scenario::from_toml(&unit).unwrap_or_else(|e| panic!("{e}")).topology.links[0].queue_ba.marking else { panic!() };
    assert_eq!(r.weight, 1.0);
    // ns-3's count (queue/red.rs); FJ93's by default.
    let ns3 = with("discipline = \"red\"\nred = { min_th = \"20pkt\", max_th = \"60pkt\", wait = true, count = \"ns3\" }\n");
    let crate::queue::Marking::Red(r) = Scenario::from_toml(&ns3).unwrap_or_else(|e| panic!("{e}")).topology.links[0].queue_ba.marking else { panic!() };
    assert_eq!((r.wait, r.count), (true, crate::queue::RedCount::Ns3));
    let crate::queue::Marking::Red(r) = Scenario::from_toml(&red).unwrap().topology.links[0].queue_ba.marking else { panic!() };
    assert_eq!(r.count, crate::queue::RedCount::Fj93);
    let shared = format!("{}\n[switch]\nshared_buffer = \"12MB\"\n", with("alpha = [8, 1]\n"));
    let a = Scenario::from_toml(&shared).unwrap().topology.links[0].queue_ba.shared_alpha.unwrap();
    assert_eq!((a[0], a[1], a[7]), (8.0, 1.0, 1.0));

    // Each mistake named by its key, before the run.
    assert_reports(q, "queues = 9\n", "queue.queues", &["9 queues", "1 to 8"]);
    assert_reports(q, "queues = 2\nclasses = [0, 2]\n", "queue.classes[1]", &["class 1 maps to queue 2", "2 queues"]);
    assert_reports(q, "buffer = \"100pkt\"\ndiscipline = \"ecn\"\necn_threshold = \"100pkt\"\n", "queue.ecn_threshold", &["not below the buffer"]);
    assert_reports(q, "queues = 2\ndiscipline = \"ecn\"\necn_threshold = [\"10pkt\", \"100pkt\"]\n", "queue.ecn_threshold[1]", &["not below the buffer"]);
    assert_reports(q, "discipline = \"red\"\nred = { min_th = \"60pkt\", max_th = \"20pkt\" }\n", "queue.red.min_th", &["60 is above max_th (20)"]);
    assert_reports(q, "discipline = \"red\"\nred = { min_th = \"20pkt\", max_th = \"60KB\" }\n", "queue.red.max_th", &["same unit"]);
    assert_reports(q, "discipline = \"red\"\nred = { min_th = \"20pkt\", max_th = \"60pkt\", weight = 0 }\n", "queue.red.weight", &["(0, 1]"]);
    assert_reports(q, "discipline = \"red\"\nred = { min_th = \"20pkt\", max_th = \"60pkt\", weight = 1.5 }\n", "queue.red.weight", &["1.5", "(0, 1]"]);
    assert_reports(q, "discipline = \"red\"\nred = { min_th = \"20pkt\", max_th = \"60pkt\", count = \"ns-3\" }\n", "queue.red.count", &["'ns-3'", "did you mean 'ns3'", "fj93, ns3"]);
    assert_reports(q, "alpha = 0\n", "queue.alpha", &["above 0"]);
    assert_reports(q, "alpha = 1\n", "queue.alpha", &["shared_buffer"]);
    assert_reports(q, "queues = 2\nscheduler = \"wrr\"\nweights = [1, 2, 3]\n", "queue.weights", &["3 entries", "2 queues"]);
    assert_reports(q, "admission = \"trim\"\n", "queue.admission", &["queues >= 2"]);
    assert_reports(q, "admission = \"pfabrc\"\n", "queue.admission", &["did you mean 'pfabric'"]);
    let rd = with("buffer = \"28KB\"\nrandom_drop = { above = \"16KB\", probability = 0.1 }\n");
    let got = Scenario::from_toml(&rd).unwrap_or_else(|e| panic!("{e}")).topology.links[0].queue_ba.random_drop;
    assert_eq!(got, Some(crate::queue::RandomDrop { above: Amount::Bytes(16_000), probability: 0.1 }));
    assert_reports(q, "buffer = \"28KB\"\nrandom_drop = { above = \"28KB\", probability = 0.1 }\n", "queue.random_drop.above", &["28000B", "not below the buffer"]);
    assert_reports(q, "random_drop = { above = \"16KB\", probability = 0 }\n", "queue.random_drop.probability", &["drops nothing", "\"off\""]);
    assert_reports(q, "random_drop = { above = \"16KB\", probability = 1.5 }\n", "queue.random_drop.probability", &["1.5"]);
    assert_reports(q, "buffer = \"28KB\"\nrandom_drop = { above = \"4pkt\", probability = 0.1 }\n", "queue.random_drop.above", &["other units"]);
    assert_reports(q, "random_drop = { probability = 0.1 }\n", "queue.random_drop.above", &["missing"]);
    assert_reports(q, "random_drop = { above = \"16KB\", probability = 0.1, band = 3 }\n", "queue.random_drop.band", &[]);
    let dq = with("device_queue = \"100pkt\"\n");
    assert_eq!(Scenario::from_toml(&dq).unwrap_or_else(|e| panic!("{e}")).topology.links[0].queue_ba.device_queue, Some(100));
    assert_reports(q, "device_queue = \"0pkt\"\n", "queue.device_queue", &["'1pkt' to '1000000pkt'", "'100pkt'"]);
    assert_reports(q, "device_queue = \"15KB\"\n", "queue.device_queue", &["not a packet count"]);
    assert_reports(q, "device_queue = \"4pkt\"\ndiscipline = \"ecn\"\necn_port_threshold = \"8pkt\"\n", "queue.device_queue", &["ecn_port_threshold"]);
    assert_reports(q, "device_queue = \"4pkt\"\nselective_drop = \"8pkt\"\n", "queue.device_queue", &["selective_drop"]);
    // Order within a queue and marking at the end of service (htsim's hosts and ECNQueue).
    let rr = with("queues = 2\norder = \"flow_rr\"\ndiscipline = \"ecn\"\necn_threshold = \"20pkt\"\nmark_at = \"end\"\n");
    let sp = Scenario::from_toml(&rr).unwrap_or_else(|e| panic!("{e}")).topology.links[0].queue_ba;
    assert_eq!(sp.order, crate::queue::Order::FlowRr);
    assert!(matches!(sp.marking, crate::queue::Marking::Threshold { at: crate::queue::MarkAt::End, .. }));
    assert_eq!(Scenario::from_toml(GOOD).unwrap().topology.links[0].queue_ba.order, crate::queue::Order::Fifo);
    assert_reports(q, "order = \"lifo\"\n", "queue.order", &["lifo", "flow_rr"]);
    assert_reports(q, "order = \"flow_rr\"\nadmission = \"pfabric\"\n", "queue.order", &["pfabric"]);
    assert_reports(q, "mark_at = \"ending\"\ndiscipline = \"ecn\"\necn_threshold = \"20pkt\"\n", "queue.mark_at", &["ending", "end"]);
    assert_reports(q, "device_queue = \"4pkt\"\ndiscipline = \"ecn\"\necn_threshold = \"20pkt\"\nmark_at = \"end\"\n", "queue.mark_at", &["device_queue"]);
    // Marks at the end of service on a wire without delay: its packets would arrive first in the
    // event order; fine in the scheduled orders (the transmit-done was scheduled first).
    let end = with("discipline = \"ecn\"\necn_threshold = \"20pkt\"\nmark_at = \"end\"\n").replace("delay = \"1us\"", "delay = \"0us\"");
    let iss = Scenario::from_toml(&end).unwrap_err();
    assert!(iss.0.iter().any(|i| i.path == "queue.mark_at" && i.message.contains("no delay")), "{iss:?}");
    assert!(Scenario::from_toml(&end.replace("[simulation]\n", "[simulation]\ntie_order = \"scheduled\"\n")).is_ok());
    assert_reports("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nclass = 8\nmin_rto", "transport.class", &["0 (most urgent) to 7"]);
    assert_reports("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nprr = \"yes\"\nmin_rto", "transport.prr", &["not true or false"]);
    let prr = GOOD.replacen("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nprr = true\nmin_rto", 1);
    assert!(Scenario::from_toml(&prr).unwrap_or_else(|e| panic!("{e}")).flows[0].cfg.tcp().unwrap().prr);
    assert_reports("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\ndctcp_echo = \"ns-3\"\nmin_rto", "transport.dctcp_echo", &["ns3"]);
    let echo = GOOD.replacen("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\ndctcp_echo = \"ns3\"\nmin_rto", 1);
    assert!(Scenario::from_toml(&echo).unwrap_or_else(|e| panic!("{e}")).flows[0].cfg.tcp().unwrap().dctcp_echo_ns3);
    assert_reports("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nloss_exit = \"linux\"\nmin_rto", "transport.loss_exit", &["acked", "ns3", "ns2"]);
    let exit = GOOD.replacen("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nloss_exit = \"ns3\"\nmin_rto", 1);
    assert!(Scenario::from_toml(&exit).unwrap_or_else(|e| panic!("{e}")).flows[0].cfg.tcp().unwrap().loss_exit == crate::transport::tcp::LossExit::Ns3);
    assert_reports("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nrto_backoff_end = \"ack\"\nmin_rto", "transport.rto_backoff_end", &["sample", "new_ack"]);
    let backoff = GOOD.replacen("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nrto_backoff_end = \"new_ack\"\nmin_rto", 1);
    assert!(Scenario::from_toml(&backoff).unwrap_or_else(|e| panic!("{e}")).flows[0].cfg.tcp().unwrap().backoff_ends_on_new_ack);
    assert!(!Scenario::from_toml(GOOD).unwrap().flows[0].cfg.tcp().unwrap().backoff_ends_on_new_ack, "Karn's rule by default");
    assert_reports("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\ntimeout_ssthresh = \"ns-2\"\nmin_rto", "transport.timeout_ssthresh", &["episode", "every", "ns2"]);
    let ns2 = GOOD.replacen("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\ntimeout_ssthresh = \"ns2\"\nmin_rto", 1);
    use crate::transport::tcp::TimeoutSsthresh;
    assert_eq!(Scenario::from_toml(&ns2).unwrap_or_else(|e| panic!("{e}")).flows[0].cfg.tcp().unwrap().timeout_ssthresh, TimeoutSsthresh::Ns2);
    assert_eq!(Scenario::from_toml(GOOD).unwrap().flows[0].cfg.tcp().unwrap().timeout_ssthresh, TimeoutSsthresh::Episode);
    // ns-2's loss-state ECE reads the mark only ns-2's timeout rule keeps.
    let ns2_exit = GOOD.replacen("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nloss_exit = \"ns2\"\nmin_rto", 1);
    let e = Scenario::from_toml(&ns2_exit).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("transport.loss_exit") && e.contains("timeout_ssthresh = \"ns2\""), "{e}");
    let both = ns2.replacen("min_rto", "loss_exit = \"ns2\"\nmin_rto", 1);
    assert_eq!(Scenario::from_toml(&both).unwrap_or_else(|e| panic!("{e}")).flows[0].cfg.tcp().unwrap().loss_exit, crate::transport::tcp::LossExit::Ns2);
    assert_reports("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\ncwr_exit = \"ns3\"\nmin_rto", "transport.cwr_exit", &["at", "beyond"]);
    let cwr = GOOD.replacen("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\ncwr_exit = \"beyond\"\nmin_rto", 1);
    assert!(Scenario::from_toml(&cwr).unwrap_or_else(|e| panic!("{e}")).flows[0].cfg.tcp().unwrap().ns3_cwr_exit);
    assert_reports("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nprr_entry = \"twice\"\nmin_rto", "transport.prr_entry", &["rfc6937", "ns3"]);
    let entry = GOOD.replacen("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nprr = true\nprr_entry = \"ns3\"\nmin_rto", 1);
    assert!(Scenario::from_toml(&entry).unwrap_or_else(|e| panic!("{e}")).flows[0].cfg.tcp().unwrap().prr_ns3_entry);
    assert_reports("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nprr = true\nprr_units = \"octets\"\nmin_rto", "transport.prr_units", &["segments", "bytes"]);
    let units = GOOD.replacen("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nprr = true\nprr_units = \"bytes\"\nmin_rto", 1);
    assert!(Scenario::from_toml(&units).unwrap_or_else(|e| panic!("{e}")).flows[0].cfg.tcp().unwrap().prr_bytes);
    assert_reports("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nack_first_data = 1\nmin_rto", "transport.ack_first_data", &["not true or false"]);
    assert_reports("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nhandshake_ack = \"ns3\"\nmin_rto", "transport.handshake_ack", &["not true or false"]);
    let both = GOOD.replacen("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nhandshake = true\nack_first_data = true\nhandshake_ack = true\nmin_rto", 1);
    let sc = Scenario::from_toml(&both).unwrap_or_else(|e| panic!("{e}"));
    let tcp = sc.flows[0].cfg.tcp().unwrap();
    assert!(tcp.ack_first_data && tcp.handshake_ack);
}

#[test]
fn inputs_that_cannot_run_sensibly_are_refused_with_their_key() {
    // A seed of 2^64 is not clamped to 2^64 - 1 (two seeds, one run).
    // (TOML itself stops at 2^63 - 1; the Python front sends JSON, where 2^64 arrives as a float.)
    let v: toml::Value = toml::from_str(GOOD).unwrap();
    let j = serde_json::to_string(&v).unwrap().replacen("\"seed\":7", "\"seed\":18446744073709551616", 1);
    let iss = Scenario::from_json(&j).unwrap_err().0;
    assert!(iss.iter().any(|i| i.path == "simulation.seed" && i.message.contains("too large") && i.message.contains("2^64 - 1")), "{iss:?}");
    // Sizes beyond what a signed 64-bit column holds.
    assert_reports("size = \"1MB\"", "size = \"9223372036854775808B\"", "flows[0].size", &["2^63 - 1"]);
    // Below that, a size whose ideal FCT passes 2^63 ps at the slowest link (10 Gb/s here):
    // 2^62 ps at 10 Gb/s is 5.76e15 B.
    assert_reports("size = \"1MB\"", "size = 9223372036854775807", "flows[0].size", &["53 days"]);
    let ok = GOOD.replacen("size = \"1MB\"", "size = 5000000000000000", 1);
    if let Err(e) = Scenario::from_toml(&ok) {
        panic!("5e15 B fits: {e}");
    }
    // A float where a duration belongs: the suggestion reads it as seconds.
    assert_reports("end = \"10ms\"", "end = 0.01", "simulation.end", &["no unit", "'10ms' if 0.01 is in seconds"]);
    // 10 ms sampled every picosecond: 10^10 samples x 3 series, refused against the budget.
    assert_reports("sample_interval = \"10us\"", "sample_interval = \"1ps\"", "output.sample_interval", &["output.memory_budget", "rows"]);
    // The budget is a key: raised, the same interval passes validation.
    let raised = GOOD.replacen("sample_interval = \"10us\"", "sample_interval = \"1ns\"\nmemory_budget = \"100GB\"", 1);
    assert!(Scenario::from_toml(&raised).is_ok());
    let tight = GOOD.replacen("sample_interval = \"10us\"", "sample_interval = \"1ns\"", 1);
    assert!(Scenario::from_toml(&tight).is_err(), "10^7 samples x 7 series is above 4 GB at 200 B a row");
}

#[test]
fn a_reversed_size_range_says_so() {
    let doc = r#"
[simulation]
end = "1ms"
[topology]
kind = "star"
hosts = 3
link = { rate = "10Gbps", delay = "1us" }
[[workload]]
cdf = "websearch"
load = 0.5
size_range = ["1MB", "100KB"]
"#;
    let iss = Scenario::from_toml(doc).unwrap_err().0;
    let i = iss.iter().find(|i| i.path == "workload[0].size_range").expect("reported at size_range");
    assert!(i.message.contains("is reversed") && i.message.contains("write ['100KB', '1MB']"), "{}", i.message);
}

/// A two-rack hybrid network of one host each with a 10 KB flow across it, given its `[circuit]`
/// and `[tor]` sections.
fn two_rack_rdcn(circuit: &str, tor: &str) -> String {
    format!(
        r#"
[simulation]
end = "1ms"
[topology]
kind = "rdcn"
racks = 2
hosts_per_rack = 1
host_link = {{ rate = "10Gbps", delay = "1us" }}
packet_link = {{ rate = "10Gbps", delay = "1us" }}
circuit_link = {{ rate = "80Gbps", delay = "1us" }}
[circuit]
{circuit}
[tor]
{tor}
[[flows]]
src = "h0"
dst = "h1"
size = "10KB"
"#
    )
}

#[test]
fn circuit_days_must_fit_a_packet() {
    let rdcn = |circuit: &str| two_rack_rdcn(circuit, "");
    // 1500 B at 80 Gb/s is 150 ns.
    for (circuit, path) in [
        ("schedule = \"strobe\"\nday = \"1ps\"\nnight = \"20us\"", "circuit.day"),
        ("schedule = \"list\"\nslots = [{ night = \"20us\", day = \"0us\", matching = [1, 0] }]", "circuit.slots[0].day"),
        ("schedule = \"list\"\nslots = [{ night = \"20us\", day = \"149ns\", matching = [1, 0] }]", "circuit.slots[0].day"),
    ] {
        let iss = Scenario::from_toml(&rdcn(circuit)).unwrap_err().0;
        let i = iss.iter().find(|i| i.path == path).unwrap_or_else(|| panic!("nothing at {path}: {iss:?}"));
        assert!(i.message.contains("no packet fits") && i.message.contains("150ns"), "{}", i.message);
    }
    let ok = rdcn("schedule = \"list\"\nslots = [{ night = \"20us\", day = \"150ns\", matching = [1, 0] }]");
    if let Err(e) = Scenario::from_toml(&ok) {
        panic!("{e}");
    }
}

#[test]
fn a_nanosecond_clock_is_refused_in_hybrid_networks() {
    let doc = two_rack_rdcn("schedule = \"strobe\"\nday = \"1us\"\nnight = \"20us\"", "")
        .replace("end = \"1ms\"", "end = \"1ms\"\ntime_resolution = \"1ns\"");
    let iss = Scenario::from_toml(&doc).unwrap_err().0;
    assert_eq!(iss.len(), 1, "{iss:?}");
    assert_eq!(iss[0].path, "simulation.time_resolution");
    assert!(iss[0].message.contains("'1ns' is not supported with kind = \"rdcn\""), "{}", iss[0].message);
    assert!(Scenario::from_toml(&doc.replace("time_resolution = \"1ns\"", "time_resolution = \"1ps\"")).is_ok());
}

#[test]
fn a_nanosecond_clock_rounds_every_link_delay_and_marks_the_topology() {
    let doc = |res: &str| format!("[simulation]\nend = \"1ms\"\n{res}\n[topology]\nkind = \"explicit\"\nhosts = [\"a\", \"b\"]\nswitches = [\"s\"]\nlinks = [\n  {{ a = \"a\", b = \"s\", rate = \"10Gbps\", delay = \"1500ps\" }},\n  {{ a = \"s\", b = \"b\", rate = \"10Gbps\", delay = \"1499ps\" }},\n]\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\nsize = \"10KB\"\n");
    let ns = Scenario::from_toml(&doc("time_resolution = \"1ns\"")).unwrap();
    let delays: Vec<_> = ns.topology.links.iter().map(|l| (l.delay, ns.topology.clock)).collect();
    let n = crate::time::Resolution::Nanosecond;
    assert_eq!(delays, vec![(Time::from_ns(2), n), (Time::from_ns(1), n)]);
    let ps = Scenario::from_toml(&doc("")).unwrap();
    assert_eq!(ps.topology.links.iter().map(|l| l.delay).collect::<Vec<_>>(), vec![Time(1_500), Time(1_499)]);
    assert_eq!(ps, Scenario::from_toml(&doc("time_resolution = \"1ps\"")).unwrap(), "1ps is the default");
}

#[test]
fn scheduled_ties_are_refused_in_hybrid_networks() {
    let doc = two_rack_rdcn("schedule = \"strobe\"\nday = \"1us\"\nnight = \"20us\"", "")
        .replace("end = \"1ms\"", "end = \"1ms\"\ntie_order = \"scheduled\"");
    let iss = Scenario::from_toml(&doc).unwrap_err().0;
    assert_eq!(iss.len(), 1, "{iss:?}");
    assert_eq!(iss[0].path, "simulation.tie_order");
    assert!(iss[0].message.contains("not supported with kind = \"rdcn\""), "{}", iss[0].message);
    let ok = Scenario::from_toml(&doc.replace("tie_order = \"scheduled\"", "tie_order = \"event\"")).unwrap();
    assert_eq!(ok.tie_order, crate::event::TieOrder::Event);
}

#[test]
fn schemes_set_their_defaults_and_the_table_overrides_them() {
    use crate::transport::tcp::priority::Priority;
    use crate::transport::tcp::{CcKind, FixedRto};
    let doc = GOOD
        .replace("cc = \"dctcp\"\nmin_rto", "cc = \"pias\"\npias_thresholds = [\"10KB\", \"1MB\"]\nmin_rto")
        .replace("[transports.reno]\ncc = \"newreno\"", "[transports.reno]\ncc = \"flash\"\nflash_t1 = \"1.2Mb\"\nflash_e = 2\npriority_queues = 4");
    let sc = Scenario::from_toml(&doc).unwrap();
    let pias = sc.flows[0].cfg.tcp().unwrap();
    assert_eq!(pias.cc, CcKind::Dctcp);
    assert_eq!(pias.scheme, Some("pias"));
    let Priority::Mlfq { n, thresholds } = pias.priority else { panic!("{:?}", pias.priority) };
    assert_eq!((n, thresholds[0], thresholds[1]), (3, 10_000, 1_000_000));
    let flash = sc.flows[1].cfg.tcp().unwrap();
    assert_eq!((flash.cc, flash.priority), (CcKind::L2dct, Priority::Flash { n: 4, t1: 150_000, e: 2.0, aware: false }));
    // α starts at 0 in the schemes (ns-2's DCTCP), and a scheme name works as a flow's transport.
    let a0 = flash.cc.knobs().iter().position(|k| k.name == "initial_alpha").unwrap();
    assert_eq!(flash.cc_params.0[a0], Some(0.0));
    let doc = GOOD.replace("transport = \"reno\"", "transport = \"pfabric\"");
    let pf = *Scenario::from_toml(&doc).unwrap().flows[1].cfg.tcp().unwrap();
    assert_eq!((pf.cc, pf.rank_remaining, pf.fixed_rto, pf.probe_after), (CcKind::PFabric, true, FixedRto::Rtts(3.0), 5));
    assert_eq!(pf.ecn, crate::transport::tcp::EcnMode::Off);
}

#[test]
fn scheme_keys_are_checked() {
    let bad = GOOD
        .replace("cc = \"dctcp\"\nmin_rto", "cc = \"pias\"\npias_thresholds = [\"1MB\", \"10KB\"]\nfixed_rto = \"x rtt\"\nmin_rto")
        .replace("[transports.reno]\ncc = \"newreno\"", "[transports.reno]\ncc = \"flash\"\nflash_e = 1\npias_thresholds = \"websearch@0.55\"\npriority_queues = 9\n[transports.x]\ncc = \"newreno\"\nflash_t1 = \"150KB\"\n[transports.y]\ncc = \"flsh\"");
    let e = Scenario::from_toml(&bad).unwrap_err().to_string();
    for want in [
        "transport.pias_thresholds: thresholds must increase",
        "transport.fixed_rto: 'x rtt' is not a positive number of round trips",
        "transports.reno.flash_e: 1 is not a threshold ratio above 1",
        "transports.reno.pias_thresholds: applies to PIAS's tagging only",
        "transports.reno.priority_queues: 9 classes; a port has at most 8",
        "transports.x.flash_t1: applies to Flash's tagging only",
        "transports.y.cc: 'flsh' is not known; did you mean 'flash'?",
    ] {
        assert!(e.contains(want), "missing '{want}' in:\n{e}");
    }
    let named = GOOD.replace("cc = \"dctcp\"\nmin_rto", "cc = \"l2dct-pias\"\npias_thresholds = \"datamining@0.55\"\nmin_rto");
    let e = Scenario::from_toml(&named).unwrap_err().to_string();
    assert!(e.contains("'datamining@0.55' is not a published set; known: websearch@0.5"), "{e}");
}

#[test]
fn a_host_link_queue_keeps_the_nic_unless_the_link_asks_for_a_lossy_egress() {
    use crate::queue::Amount;
    use crate::scenario::parse::DEFAULT_SEND_LIMIT;
    let doc = |extra: &str, a: &str| {
        format!(
            "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"explicit\"\nhosts = [\"h0\", \"h1\"]\nswitches = [\"s0\", \"s1\"]\n\
             links = [{{ a = \"{a}\", b = \"s0\", rate = \"10Gbps\", delay = \"1us\", queue = {{ buffer = \"8pkt\" }} {extra} }}, \
             {{ a = \"s0\", b = \"s1\", rate = \"10Gbps\", delay = \"1us\" }}, {{ a = \"h1\", b = \"s1\", rate = \"10Gbps\", delay = \"1us\" }}]\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n"
        )
    };
    // Default: the host's direction stays the NIC queue (no drop limit, backpressure at 100);
    // the switch's direction takes the link's queue.
    let l = &Scenario::from_toml(&doc("", "h0")).unwrap().topology.links[0];
    assert_eq!((l.queue_ab.limit, l.queue_ab.send_limit), (None, Some(DEFAULT_SEND_LIMIT)));
    assert_eq!((l.queue_ba.limit, l.queue_ba.send_limit), (Some(Amount::Packets(8)), None));
    let s = Scenario::from_toml(&doc(", host_egress = \"nic\"", "h0")).unwrap();
    assert_eq!(s.topology.links[0].queue_ab.send_limit, Some(DEFAULT_SEND_LIMIT));
    // Lossy: the link's queue on the host's side too, without backpressure.
    let s = Scenario::from_toml(&doc(", host_egress = \"lossy\"", "h0")).unwrap();
    assert_eq!((s.topology.links[0].queue_ab.limit, s.topology.links[0].queue_ab.send_limit), (Some(Amount::Packets(8)), None));
    // Named errors: a bad value, and the key on a link without a host.
    let e = Scenario::from_toml(&doc(", host_egress = \"drop\"", "h0")).unwrap_err().to_string();
    assert!(e.contains("topology.links[0].host_egress") && e.contains("drop"), "{e}");
    let e = Scenario::from_toml(&doc("", "h0").replace("b = \"s1\", rate = \"10Gbps\", delay = \"1us\" }", "b = \"s1\", rate = \"10Gbps\", delay = \"1us\", host_egress = \"lossy\" }")).unwrap_err().to_string();
    assert!(e.contains("topology.links[1].host_egress") && e.contains("host end"), "{e}");
}

#[test]
fn a_flow_priority_sets_its_class() {
    let doc = |p: &str| format!("[simulation]\nend = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 2\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n[transport]\nclass = 1\n[[flows]]\nsrc = \"h0\"\ndst = \"h1\"\n{p}\n[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\n");
    let s = Scenario::from_toml(&doc("priority = 5")).unwrap();
    assert_eq!((s.flows[0].cfg.tcp().unwrap().class, s.flows[1].cfg.tcp().unwrap().class), (5, 1));
    let e = Scenario::from_toml(&doc("priority = 8")).unwrap_err().to_string();
    assert!(e.contains("flows[0].priority: 8 is not a class"), "{e}");
}

#[test]
fn ndp_and_homa_transport_tables() {
    use crate::transport::{homa::HomaConfig, ndp::NdpConfig};
    // kind = "ndp" with keys; a named profile inherits the kind and settings of [transport].
    // NDP needs trimming ports (scenario/warnings.rs).
    let doc = GOOD
        .replace("[queue]\n", "[queue]\nqueues = 2\nadmission = \"trim\"\n")
        .replace("cc = \"dctcp\"\nmin_rto = \"10ms\"", "kind = \"ndp\"\ninitial_window = 30\npull_rate = 0.5")
        .replace("[transports.reno]\ncc = \"newreno\"", "[transports.reno]\nrto = \"2ms\"\n[transports.h]\nkind = \"homa\"\nrtt_bytes = \"9.7KB\"\novercommitment = 4");
    let s = Scenario::from_toml(&doc).unwrap();
    let TransportConfig::Ndp(a) = s.flows[0].cfg else { panic!("{:?}", s.flows[0].cfg) };
    assert_eq!((a.iw, a.pull_rate, a.rto), (30, 0.5, NdpConfig::default().rto));
    let TransportConfig::Ndp(b) = s.flows[1].cfg else { panic!() };
    assert_eq!((b.iw, b.rto), (30, Time::from_ms(2)));
    // A flow may name a kind as it names a congestion control; Homa's scheduled levels follow k.
    let doc2 = doc.replace("transport = \"reno\"", "transport = \"h\"\nsize = \"1MB\"");
    let s = Scenario::from_toml(&doc2).unwrap();
    let TransportConfig::Homa(h) = s.flows[1].cfg else { panic!() };
    assert_eq!((h.rtt_bytes, h.overcommit, h.scheduled, h.priorities), (9_700, 4, 4, 8));
    let s = Scenario::from_toml(&GOOD.replace("transport = \"reno\"", "transport = \"homa\"\nsize = \"5KB\"")).unwrap();
    assert_eq!(s.flows[1].cfg, TransportConfig::Homa(HomaConfig::default()));
}

#[test]
fn ndp_and_homa_bad_values_are_named() {
    let ndp = |k: &str| GOOD.replace("cc = \"dctcp\"\nmin_rto = \"10ms\"", &format!("kind = \"ndp\"\n{k}")).replace("[transports.reno]\ncc = \"newreno\"\n", "");
    let homa = |k: &str| GOOD.replace("cc = \"dctcp\"\nmin_rto = \"10ms\"", &format!("kind = \"homa\"\n{k}")).replace("[transports.reno]\ncc = \"newreno\"\n", "").replace("transport = \"reno\"", "size = \"1MB\"");
    let first = |doc: String| -> Issue {
        match Scenario::from_toml(&doc) {
            Ok(_) => panic!("expected an error in\n{doc}"),
            Err(iss) => iss.0.into_iter().next().unwrap(),
        }
    };
    let cases: Vec<(String, &str, &[&str])> = vec![
        (ndp("initial_window = 0"), "transport.initial_window", &["0"]),
        (ndp("pull_rate = 2.0"), "transport.pull_rate", &["2", "(0, 1]"]),
        (ndp("rto = \"0s\""), "transport.rto", &["positive"]),
        (ndp("cc = \"dctcp\""), "transport.cc", &["unknown key"]),
        (ndp("").replace("kind = \"ndp\"", "kind = \"ndpp\""), "transport.kind", &["ndpp"]),
        (homa("overcommitment = 0"), "transport.overcommitment", &["0"]),
        (homa("priorities = 9"), "transport.priorities", &["9", "2 to 8"]),
        (homa("scheduled_priorities = 8"), "transport.scheduled_priorities", &["8", "unscheduled"]),
        (homa("unscheduled_cutoffs = [\"10KB\", \"1KB\"]"), "transport.unscheduled_cutoffs", &["increasing"]),
        (homa("rtt_bytes = \"0B\""), "transport.rtt_bytes", &["0 B"]),
        (homa("").replace("size = \"1MB\"\n", "").replace("size = \"1MB\"", ""), "flows[0].size", &["Homa", "size"]),
    ];
    for (doc, path, words) in cases {
        let i = first(doc);
        assert_eq!(i.path, path, "{i:?}");
        assert!(!i.message.contains('\n'), "one line: {}", i.message);
        for w in words {
            assert!(i.message.contains(w), "{path}: '{}' lacks '{w}'", i.message);
        }
    }
    let incast = "[[incast]]\nreceiver = \"h0\"\nsenders = [\"h1\", \"h2\"]\nblock = \"10KB\"\nrounds = 2\nconnections = \"persistent\"\n";
    let i = first(ndp("").replace("[output]", &format!("{incast}[output]")));
    assert_eq!(i.path, "incast[0].connections", "{i:?}");
}

#[test]
fn the_transport_catalog_states_the_defaults() {
    use crate::transport::{homa::HomaConfig, ndp::NdpConfig};
    // Every default the listing prints, written into a scenario, gives the default config.
    for (kind, _, params) in kinds::TRANSPORT_CATALOG.iter().filter(|k| k.0 != "tcp") {
        let keys: String = params
            .iter()
            .filter(|p| p.1.chars().next().unwrap().is_ascii_digit())
            .map(|(k, v, _)| if v.parse::<f64>().is_ok() { format!("{k} = {v}\n") } else { format!("{k} = \"{v}\"\n") })
            .collect();
        let doc = GOOD.replace("cc = \"dctcp\"\nmin_rto = \"10ms\"", &format!("kind = \"{kind}\"\n{keys}")).replace("[transports.reno]\ncc = \"newreno\"\n", "").replace("transport = \"reno\"", "size = \"1MB\"");
        // NDP needs trimming ports (scenario/warnings.rs); Homa's queues only draw a warning.
        let doc = if *kind == "ndp" { doc.replace("[queue]\n", "[queue]\nqueues = 2\nadmission = \"trim\"\n") } else { doc };
        let s = Scenario::from_toml(&doc).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let want = match *kind {
            "ndp" => TransportConfig::Ndp(NdpConfig::default()),
            "aeolus" => TransportConfig::Homa(HomaConfig { aeolus: true, ..HomaConfig::default() }),
            _ => TransportConfig::Homa(HomaConfig::default()),
        };
        assert_eq!(s.flows[0].cfg, want, "{kind}");
    }
}

#[test]
fn a_host_stack_sets_every_tcp_profiles_defaults_and_tables_override_them() {
    use crate::host::linux::Kernel;
    // GOOD's [transport] sets min_rto = 10ms; its named profile inherits it.
    let doc = format!("{GOOD}\n[host]\nstack = \"linux-2.6.38\"\n");
    let sc = Scenario::from_toml(&doc).unwrap();
    for f in &sc.flows {
        let c = f.cfg.tcp().unwrap();
        assert_eq!((c.initial_cwnd, c.quickack, c.stack), (3, Some(Kernel::V2_6_38), Some(Kernel::V2_6_38)));
        assert_eq!((c.rto.min, c.rto.initial, c.delack_timeout), (Time::from_ms(10), Time::from_ms(3000), Time::from_ms(40)));
        assert!(c.timestamps && !c.tlp && !c.rack);
    }
    assert_eq!(sc.host.stack, Some(Kernel::V2_6_38));
    // 2.6.38's window follows the MSS (RFC 3390: 2 segments above 1460 B) unless a key sets it;
    // quickack = false keeps the rest of the stack.
    let doc = doc.replace("[transports.reno]\ncc = \"newreno\"", "[transports.reno]\ncc = \"newreno\"\nmss = 8960\nquickack = false\n[transports.iw]\nmss = 8960\ninitial_cwnd = 4")
        + "[[flows]]\nsrc = \"h1\"\ndst = \"h2\"\nsize = \"1MB\"\ntransport = \"iw\"\n";
    let sc = Scenario::from_toml(&doc).unwrap();
    let reno = sc.flows[1].cfg.tcp().unwrap();
    assert_eq!((reno.initial_cwnd, reno.quickack, reno.rto.initial), (2, None, Time::from_ms(3000)));
    assert_eq!(sc.flows[2].cfg.tcp().unwrap().initial_cwnd, 4);
    // 4.15: IW10, TLP and RACK; without a stack the engine's defaults are untouched.
    let sc = Scenario::from_toml(&format!("{GOOD}\n[host]\nstack = \"linux-4.15\"\n")).unwrap();
    let c = sc.flows[0].cfg.tcp().unwrap();
    assert_eq!((c.initial_cwnd, c.tlp, c.rack, c.rto.initial), (10, true, true, Time::from_ms(1000)));
    let plain = Scenario::from_toml(GOOD).unwrap();
    let c = plain.flows[0].cfg.tcp().unwrap();
    assert_eq!((c.quickack, c.delack_timeout, c.timestamps), (None, Time::from_ms(200), false));
}

#[test]
fn the_ns3_stack_sets_ns3s_tcp_defaults_and_tables_override_them() {
    use crate::host::linux::Kernel;
    // ns-3.33-3.40 TcpSocket / TcpSocketBase defaults (host/ns3.rs); GOOD's min_rto = 10ms wins.
    let sc = Scenario::from_toml(&format!("{GOOD}\n[host]\nstack = \"ns-3\"\n")).unwrap();
    let c = sc.flows[0].cfg.tcp().unwrap();
    assert_eq!((c.stack, c.quickack, c.initial_cwnd, c.mss), (Some(Kernel::Ns3), None, 10, 1448));
    assert_eq!((c.rto.min, c.rto.initial, c.rto.granularity, c.rto.max), (Time::from_ms(10), Time::from_ms(3000), Time::from_ms(1), Time::from_ms(60_000)));
    assert_eq!((c.delack_count, c.delack_timeout, c.rcv_buffer, c.send_buffer), (2, Time::from_ms(200), Some(131_072), Some(131_072)));
    assert!(c.handshake && c.timestamps && c.sack && !c.tlp && !c.rack);
    assert_eq!(c.rcv_window, crate::transport::tcp::RcvWindow::Ns3);
    // ns-3.33-3.41's loss recovery (host/ns3.rs's table): TcpPrrRecovery with SSRB in CWR and fast
    // recovery, counted in bytes; TcpSocketBase's DupAck, ProcessAck, ReceivedAck, ReTxTimeout.
    assert!(c.prr && c.prr_recovery && c.prr_ns3_entry && c.prr_bytes && c.prr_cwr_advancing);
    assert_eq!(c.prr_bound, crate::transport::tcp::PrrBound::Ns3Ssrb);
    assert!(!c.recovery_from_cwr && c.recovery_on_dupack && c.ns3_cwr_exit && c.timeout_ssthresh == crate::transport::tcp::TimeoutSsthresh::Every && c.limited_transmit == crate::transport::tcp::LimitedTransmit::Pipe);
    assert_eq!(c.sack_bytes, crate::transport::tcp::SackBytes::Ns3);
    assert!(!c.acked_delivered, "ns-3.41 counts the cumulative advance; ns-3-dev what was delivered");
    // ns-3.33-3.40's retransmissions: DoRetransmit entering recovery and on partial ACKs, NextSeg's
    // rule 3 without a rescue, no check for lost retransmissions before ns-3-dev's 5ada3ae14.
    assert!(c.partial_ack_ns3 && c.next_seg_ns3 && !c.fast_rtx_head);
    assert_eq!(c.lost_retransmit, crate::transport::tcp::LostRetransmit::Never);
    // AddSocketTags: the SYN ECN-capable in DctcpEcn mode only (GOOD's flows run DCTCP).
    assert_eq!(c.ect_syn, crate::transport::tcp::EctSyn::Dctcp);
    assert!(c.syn_ect() == (c.ecn == crate::transport::tcp::EcnMode::Dctcp));
    // TcpDctcp's echo, the loss state's exit and the handshake as ns-3's, whatever the algorithm.
    assert!(c.dctcp_echo_ns3 && c.loss_exit == crate::transport::tcp::LossExit::Ns3 && c.handshake_ack && c.ack_first_data);
    // NewAck: the next ACK of new data ends a timeout's back-off, RTT sample or not.
    assert!(c.backoff_ends_on_new_ack);
    // dctcp takes TcpDctcp's rules as knobs (host/ns3.rs DCTCP_KNOBS); newreno none.
    let knob = |c: &crate::transport::tcp::TcpConfig, name: &str| c.cc.knobs().iter().position(|k| k.name == name).and_then(|i| c.cc_params.0[i]);
    for name in ["byte_cut", "first_window_at_ack", "cut_before_alpha", "ns3_growth", "empty_window", "ns3_loss_cut", "loss_state_cut"] {
        assert_eq!(knob(c, name), Some(1.0), "{name}");
    }
    assert_eq!((knob(c, "window_cut"), knob(c, "g")), (None, None));
    let reno = sc.flows.iter().map(|f| f.cfg.tcp().unwrap()).find(|c| c.cc == crate::transport::tcp::cc::CcKind::NewReno).unwrap();
    assert_eq!(reno.cc_params, crate::transport::tcp::cc::Knobs::default());
    // A knob the scenario writes wins (Linux's integer cut here); the others stay ns-3's.
    let doc = format!("{GOOD}\n[host]\nstack = \"ns-3\"\n").replace("cc = \"dctcp\"\n", "cc = \"dctcp\"\ncc_params = { byte_cut = 0 }\n");
    let own = Scenario::from_toml(&doc).unwrap();
    let c2 = own.flows[0].cfg.tcp().unwrap();
    assert_eq!((knob(c2, "byte_cut"), knob(c2, "ns3_growth")), (Some(0.0), Some(1.0)));
    // PPT's and RC3's primary loop: ns-3's TcpDctcp too (`ns3_dctcp`).
    for cc in ["ppt", "rc3"] {
        let doc = format!("{GOOD}\n[host]\nstack = \"ns-3\"\n").replace("cc = \"dctcp\"\n", &format!("cc = \"{cc}\"\n"));
        let sc = Scenario::from_toml(&doc).unwrap();
        assert_eq!(knob(sc.flows[0].cfg.tcp().unwrap(), "ns3_dctcp"), Some(1.0), "{cc}");
    }
    // Without the stack, none of them.
    let plain = Scenario::from_toml(GOOD).unwrap();
    assert_eq!(knob(plain.flows[0].cfg.tcp().unwrap(), "byte_cut"), None);
    let e = Scenario::from_toml(&format!("{GOOD}\n[host]\nstack = \"ns-3\"\n").replace("min_rto = \"10ms\"\n", "rcv_window = \"ns3\"\n")).unwrap_err().to_string();
    assert!(e.contains("transport.rcv_window: 'ns3' is not known; did you mean 'ns-3'?"), "{e}");
    // Without a table's min_rto, ns-3's 1 s; quickack = true on ns-3 takes 4.15's windows.
    let doc = format!("{GOOD}\n[host]\nstack = \"ns-3\"\n").replace("min_rto = \"10ms\"\n", "quickack = true\n");
    let c = *Scenario::from_toml(&doc).unwrap().flows[0].cfg.tcp().unwrap();
    assert_eq!((c.rto.min, c.quickack), (Time::from_ms(1000), Some(Kernel::V4_15)));
}

#[test]
fn an_unknown_host_stack_is_named_with_the_choices() {
    let e = Scenario::from_toml(&format!("{GOOD}\n[host]\nstack = \"linux-4.51\"\n")).unwrap_err().to_string();
    assert!(e.contains("host.stack: 'linux-4.51' is not known; did you mean 'linux-4.15'?"), "{e}");
    assert!(e.contains("linux-2.6.38, linux-3.18, linux-4.15"), "{e}");
}

#[test]
fn time_dilation_divides_every_tcp_profiles_timers_and_is_checked() {
    let doc = format!("{GOOD}\n[host]\nstack = \"linux-4.15\"\ntime_dilation = 20\n");
    let sc = Scenario::from_toml(&doc).unwrap();
    for f in &sc.flows {
        let c = f.cfg.tcp().unwrap();
        // GOOD's min_rto = 10ms is the kernel's setting: 0.5 ms of the network's time.
        assert_eq!((c.rto.min, c.delack_timeout, c.tlp_min, c.time_dilation), (Time::from_us(500), Time::from_ms(2), Time::from_us(500), 20));
    }
    let bad = format!("{GOOD}\n[host]\ntime_dilation = 0\n");
    assert!(Scenario::from_toml(&bad).unwrap_err().to_string().contains("host.time_dilation"));
    let bad = GOOD.replace("cc = \"newreno\"", "cc = \"swift\"") + "\n[host]\ntime_dilation = 20\n";
    let e = Scenario::from_toml(&bad).unwrap_err().to_string();
    assert!(e.contains("transports.reno.cc: swift reads the path's rates and delays"), "{e}");
}

#[test]
fn host_egress_rate_limits_only_the_hosts_side_of_their_links() {
    use crate::time::Rate;
    let sc = Scenario::from_toml(&format!("{GOOD}\n[host]\negress_rate = \"1Gbps\"\n")).unwrap();
    let net = crate::topology::build(&sc.topology);
    let rate = |name: &str| net.ports.iter().find(|p| p.name == name).unwrap().rate;
    assert_eq!((rate("h1->s0"), rate("s0->h1")), (Rate::gbps(1), Rate::gbps(10)));
    // Etalon's host path: 10 Gb/s out of each container (tc netem rate), 800 Gb/s back in.
    let doc = r#"
[simulation]
end = "1ms"
[topology]
kind = "rdcn"
racks = 2
hosts_per_rack = 2
host_link = { rate = "800Gbps", delay = "0us" }
packet_link = { rate = "10Gbps", delay = "5us" }
circuit_link = { rate = "80Gbps", delay = "30us" }
[circuit]
schedule = "strobe"
day = "180us"
night = "20us"
[tor]
policy = "etalon"
voq = "16pkt"
[host]
egress_rate = "10Gbps"
[[flows]]
src = "h0"
dst = "h2"
"#;
    let net = crate::topology::build(&Scenario::from_toml(doc).unwrap().topology);
    let hosts_ports = net.ports.iter().filter(|p| net.node(p.node).kind == crate::network::NodeKind::Host).count();
    assert_eq!(hosts_ports, 4);
    for p in &net.ports {
        let host_side = net.node(p.node).kind == crate::network::NodeKind::Host;
        let peer_host = net.node(p.peer).kind == crate::network::NodeKind::Host;
        if host_side {
            assert_eq!(p.rate, Rate::gbps(10), "{}", p.name);
        } else if peer_host {
            assert_eq!(p.rate, Rate::gbps(800), "{}", p.name);
        }
    }
}

#[test]
fn host_egress_bursts_keep_the_links_rate_and_are_checked() {
    use crate::time::Rate;
    let sc = Scenario::from_toml(&format!("{GOOD}\n[host]\negress_rate = \"1Gbps\"\negress_burst = \"64KB\"\n")).unwrap();
    assert_eq!((sc.host.egress_rate, sc.host.egress_burst), (Some(Rate::gbps(1)), Some(64_000)));
    let net = crate::topology::build(&sc.topology);
    let rate = |name: &str| net.ports.iter().find(|p| p.name == name).unwrap().rate;
    assert_eq!((rate("h1->s0"), rate("s0->h1")), (Rate::gbps(10), Rate::gbps(10)), "the shaper limits, not the link");
    let sim = crate::Simulator::new(&sc, None);
    let shaped: Vec<_> = sim.fabric.net.ports.iter().filter(|p| p.shaped).map(|p| p.name.as_str()).collect();
    assert_eq!(shaped, ["h0->s0", "h1->s0", "h2->s0"]);
    let p = sim.fabric.net.port_by_name("h1->s0").unwrap();
    assert_eq!(sim.fabric.egress_rate(p), Rate::gbps(1));
    for (host, message) in [
        ("egress_burst = \"64KB\"", "host.egress_burst: '64KB' needs host.egress_rate"),
        ("egress_rate = \"10Gbps\"\negress_burst = \"0B\"", "host.egress_burst: '0B' is not a burst size"),
        ("egress_rate = \"10Gbps\"\negress_burst = 0", "host.egress_burst: 0 is not a burst size"),
        ("egress_rate = \"10Gbps\"\negress_burst = \"2MB\"", "host.egress_burst: '2MB' (2000000 B) is not an offload batch"),
        ("egress_rate = \"10Gbps\"\negress_burst = -5", "host.egress_burst"),
        ("egress_rate = \"10Gbps\"\negress_burst = \"7pkt\"", "host.egress_burst: '7pkt' is not a size"),
    ] {
        let e = Scenario::from_toml(&format!("{GOOD}\n[host]\n{host}\n")).unwrap_err().to_string();
        assert!(e.contains(message), "{host}: {e}");
        assert_eq!(e.lines().filter(|l| l.contains("egress_burst")).count(), 1, "{e}");
    }
}

#[test]
fn ack_bypass_is_read_and_its_mistakes_named_with_their_value() {
    let rdcn = |tor: &str| two_rack_rdcn("schedule = \"strobe\"\nday = \"180us\"\nnight = \"20us\"", tor);
    let bypass = |tor: &str| Scenario::from_toml(&rdcn(tor)).unwrap_or_else(|e| panic!("{e}")).topology.rdcn.unwrap().ack_bypass;
    assert_eq!(bypass("voq = \"16pkt\""), None, "off by default");
    assert_eq!(bypass("ack_bypass = false"), None);
    assert_eq!(bypass("ack_bypass = true"), Some(Time::ZERO), "instant by default");
    assert_eq!(bypass("ack_bypass = true\nack_bypass_delay = \"2.5us\""), Some(Time::from_ns(2500)));
    // The bypass is at the hosts: every ToR design takes it.
    assert_eq!(bypass("policy = \"blocking\"\nack_bypass = true"), Some(Time::ZERO));
    let one = |tor: &str, path: &str, words: &[&str]| {
        let iss = Scenario::from_toml(&rdcn(tor)).unwrap_err().0;
        let i = iss.iter().find(|i| i.path == path).unwrap_or_else(|| panic!("nothing at {path}: {iss:?}"));
        for w in words {
            assert!(i.message.contains(w), "{path}: '{}' lacks '{w}'", i.message);
        }
        assert!(!i.to_string().contains('\n'));
    };
    one("ack_bypass = true\nack_bypass_delay = \"-1us\"", "tor.ack_bypass_delay", &["'-1us' is negative"]);
    one("ack_bypass = true\nack_bypass_delay = \"5\"", "tor.ack_bypass_delay", &["'5' has no unit"]);
    one("ack_bypass = true\nack_bypass_delay = 5", "tor.ack_bypass_delay", &["5 has no unit"]);
    one("ack_bypass_delay = \"2us\"", "tor.ack_bypass_delay", &["'2us' only applies with ack_bypass = true"]);
    one("ack_bypass = \"yes\"", "tor.ack_bypass", &["'yes' is not true or false"]);
    one("ack_bypass = true\nfeedback = \"circuit\"", "tor.ack_bypass", &["conflicts with feedback = \"circuit\""]);
    one("ack_bypass = true\nresize = { small = \"16pkt\", large = \"50pkt\", tau = \"100us\" }\nfeedback = \"resize\"", "tor.ack_bypass", &["feedback = \"resize\""]);
    // On a topology without ToRs the key is named with its value.
    let iss = Scenario::from_toml(&format!("{GOOD}\n[tor]\nack_bypass = true\nack_bypass_delay = \"1us\"\n")).unwrap_err().0;
    for (path, v) in [("tor.ack_bypass", "true only applies to a hybrid network"), ("tor.ack_bypass_delay", "'1us' only applies to a hybrid network")] {
        let i = iss.iter().find(|i| i.path == path).unwrap_or_else(|| panic!("nothing at {path}: {iss:?}"));
        assert!(i.message.contains(v) && i.message.contains("kind = \"rdcn\""), "{}", i.message);
    }
}

#[test]
fn host_queue_switch_gives_hosts_the_switch_ports_queue_without_backpressure() {
    // ns-2's duplex-link with the switches' queue type: drops and marks at the host as at a port.
    let s = Scenario::from_toml(&format!("host_queue = \"switch\"\n{GOOD}")).unwrap_or_else(|e| panic!("{e}"));
    let l = &s.topology.links[0];
    assert_eq!(l.queue_ab, crate::queue::QueueSpec { send_limit: None, ..l.queue_ba });
    assert_eq!(l.queue_ab.limit, Some(Amount::Packets(100)));
    let e = Scenario::from_toml(&format!("host_queue = \"nic\"\n{GOOD}")).unwrap_err().to_string();
    assert!(e.contains("host_queue: 'nic' is not \"switch\""), "{e}");
}

#[test]
fn ns2_lineage_tcp_keys_parse_and_are_checked() {
    use crate::transport::tcp::cc::knobs_of;
    let inc = knobs_of("l2dct").iter().position(|k| k.name == "increase").unwrap();
    let doc = GOOD.replace(
        "cc = \"dctcp\"\nmin_rto",
        "cc = \"flash\"\ncc_params = { increase = \"ns2\" }\ncwnd_cap = 239\necn_growth = \"ns2\"\nmin_rto",
    );
    let c = *Scenario::from_toml(&doc).unwrap_or_else(|e| panic!("{e}")).flows[0].cfg.tcp().unwrap();
    assert_eq!((c.cc_params.0[inc], c.cwnd_cap, c.ns2_ecn_growth), (Some(1.0), Some(239), true));
    let spec = GOOD.replace("cc = \"dctcp\"\nmin_rto", "cc = \"l2dct\"\ncc_params = { increase = \"spec\" }\nmin_rto");
    assert_eq!(Scenario::from_toml(&spec).unwrap().flows[0].cfg.tcp().unwrap().cc_params.0[inc], Some(0.0));

    let bad = GOOD.replace(
        "cc = \"dctcp\"\nmin_rto",
        "cc = \"l2dct\"\ncc_params = { increase = \"fast\" }\ncwnd_cap = 0\necn_growth = \"bsd\"\nmin_rto",
    );
    let e = Scenario::from_toml(&bad).unwrap_err().to_string();
    assert!(e.contains("transport.cc_params.increase: 'fast' is not one of \"spec\", \"ns2\""), "{e}");
    assert!(e.contains("transport.cwnd_cap: 0 is not a window in segments"), "{e}");
    assert!(e.contains("transport.ecn_growth: 'bsd' is not known"), "{e}");
    // A knob of named values takes their numbers, and no number between them.
    let between = GOOD.replace("cc = \"dctcp\"\nmin_rto", "cc = \"l2dct\"\ncc_params = { increase = 0.5 }\nmin_rto");
    let e = Scenario::from_toml(&between).unwrap_err().to_string();
    assert!(e.contains("transport.cc_params.increase: 0.5 is not one of \"spec\", \"ns2\""), "{e}");
}

#[test]
fn persistent_workload_connections_need_tcp() {
    let doc = |transport: &str| {
        format!(
            "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 3\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
             [transports.n]\nkind = \"{transport}\"\n[[workload]]\ncdf = \"websearch\"\nload = 0.5\nconnections = \"persistent\"\ntransport = \"n\"\n"
        )
    };
    assert!(Scenario::from_toml(&doc("tcp")).unwrap().workloads[0].persistent);
    let e = Scenario::from_toml(&doc("ndp")).unwrap_err().to_string();
    assert!(e.contains("workload[0].connections: \"persistent\" needs a TCP transport"), "{e}");
    let e = Scenario::from_toml(&doc("tcp").replace("\"persistent\"", "\"pooled\"")).unwrap_err().to_string();
    assert!(e.contains("workload[0].connections: 'pooled' is not known"), "{e}");
}

#[test]
fn dctcp_without_cwr_on_ece_needs_window_cut() {
    // cwr_on_ece = 0 alone: no CWR episode and no per-window cut, so marks would cut nothing.
    let with = |params: &str| GOOD.replace("cc = \"dctcp\"\nmin_rto", &format!("cc = \"dctcp\"\ncc_params = {{ {params} }}\nmin_rto"));
    let e = Scenario::from_toml(&with("cwr_on_ece = 0")).unwrap_err();
    assert_eq!(e.0.len(), 1, "{e}");
    let e = e.0[0].to_string();
    assert!(e.starts_with("transport.cc_params: cwr_on_ece = 0 needs window_cut = 1"), "{e}");
    Scenario::from_toml(&with("cwr_on_ece = 0, window_cut = 1")).expect("htsim's rules together");
    Scenario::from_toml(&with("cwr_on_ece = 1")).expect("the default");
}

/// A leaf-spine (leaves l0, l1; spines p0, p1; two hosts per leaf) with l1's uplinks failed (left
/// out), so {a0, a1} and {b0, b1} are apart; `traffic` is appended.
fn split_leaf_spine(traffic: &str) -> String {
    let link = |a: &str, b: &str| format!("{{ a = \"{a}\", b = \"{b}\", rate = \"10Gbps\", delay = \"1us\" }}");
    let links = [("a0", "l0"), ("a1", "l0"), ("b0", "l1"), ("b1", "l1"), ("l0", "p0"), ("l0", "p1")].map(|(a, b)| link(a, b)).join(", ");
    format!(
        "[simulation]\nend = \"2ms\"\n[topology]\nkind = \"explicit\"\nhosts = [\"a0\", \"a1\", \"b0\", \"b1\"]\n\
         switches = [\"l0\", \"l1\", \"p0\", \"p1\"]\nlinks = [{links}]\n{traffic}"
    )
}

#[test]
fn generated_traffic_between_split_parts_is_refused() {
    // Before: the engine panicked creating the first flow from one part to the other (no next hop).
    let one = |traffic: &str| {
        let e = Scenario::from_toml(&split_leaf_spine(traffic)).unwrap_err();
        assert_eq!(e.0.len(), 1, "{e}");
        e.0[0].to_string()
    };
    let e = one("[[workload]]\nsize = \"3000B\"\nload = 0.1\n");
    assert!(e.starts_with("workload[0]: 'a0' cannot reach 'b0' (no path through switches)"), "{e}");
    let e = one("[[workload]]\nsize = \"3000B\"\nload = 0.1\nsenders = [\"a0\"]\nreceivers = [\"a1\", \"b1\"]\n");
    assert!(e.starts_with("workload[0]: 'a0' cannot reach 'b1'"), "{e}");
    let e = one("[[incast]]\nreceiver = \"b0\"\nsenders = [\"b1\", \"a1\"]\nblock = \"10KB\"\nrounds = 1\n");
    assert!(e.starts_with("incast[0]: 'a1' cannot reach 'b0'"), "{e}");
    // Within one part, and across the whole of a connected fabric, nothing is refused.
    let sc = Scenario::from_toml(&split_leaf_spine("[[workload]]\nsize = \"3000B\"\nload = 0.1\nflows = 5\nsenders = [\"a0\", \"a1\"]\nreceivers = [\"a0\", \"a1\"]\n")).expect("one part");
    let mut sim = crate::Simulator::new(&sc, None);
    sim.run();
    assert_eq!(sim.flow_table().fct_ps.iter().filter(|f| f.is_some()).count(), 5);
    let joined = split_leaf_spine("[[workload]]\nsize = \"3000B\"\nload = 0.1\n").replace("links = [", "links = [{ a = \"l1\", b = \"p0\", rate = \"10Gbps\", delay = \"1us\" }, ");
    Scenario::from_toml(&joined).expect("l1's uplink to p0 back: connected");
}

#[test]
fn generated_topologies_too_large_to_build_are_refused_before_building() {
    // 10^5 leaves x 10^5 spines would be 10^10 links: the reader used to build them and run out of
    // memory. The products are checked first: hosts against MAX_HOSTS, links against memory.
    let leaf_spine = |l: u64, s: u64, h: u64| {
        format!(
            "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"leaf_spine\"\nleaves = {l}\nspines = {s}\nhosts_per_leaf = {h}\n\
             host_link = {{ rate = \"10Gbps\", delay = \"1us\" }}\ncore_link = {{ rate = \"40Gbps\", delay = \"1us\" }}\n\
             [[workload]]\nsize = \"3000B\"\nload = 0.1\n"
        )
    };
    let one = |doc: String| {
        let e = Scenario::from_toml(&doc).unwrap_err();
        assert_eq!(e.0.len(), 1, "{e}");
        e.0[0].to_string()
    };
    let e = one(leaf_spine(100_000, 100_000, 1));
    assert!(e.starts_with("topology.leaves: 100000 leaves x 100000 spines x 1 hosts per leaf: 10000100000 links take"), "{e}");
    let e = one(leaf_spine(100_000, 2, 100));
    assert!(e.contains("10000000 hosts, more than the 1000000"), "{e}");
    assert!(super::limits::generated_refusal(1000, 1 << 40, 1_000_000, Some(1 << 30)).is_some());
    assert!(super::limits::generated_refusal(1000, 2000, 1_000_000, Some(1 << 30)).is_none());
    assert!(super::limits::generated_refusal(1000, 1 << 40, 1_000_000, None).is_none(), "memory unknown: the host bound only");
}

#[test]
fn blank_names_and_names_with_arrows_are_refused() {
    let doc = |hosts: &str, switch: &str| {
        format!(
            "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"explicit\"\nhosts = [{hosts}]\nswitches = [\"{switch}\"]\n\
             links = []\n[[workload]]\nsize = \"3000B\"\nload = 0.1\n"
        )
    };
    let problems = |d: String| Scenario::from_toml(&d).unwrap_err().0.iter().map(|i| i.to_string()).collect::<Vec<_>>();
    let p = problems(doc("\"\", \"b\"", "s"));
    assert!(p.iter().any(|e| e.starts_with("topology.hosts: '' is not a usable name")), "{p:?}");
    let p = problems(doc("\"a\", \"b\"", "s->t"));
    assert!(p.iter().any(|e| e.starts_with("topology.switches: 's->t' is not a usable name")), "{p:?}");
    let p = problems(doc("\"a\", \"a\"", "s"));
    assert!(p.iter().any(|e| e == "topology.hosts: the name 'a' is used twice"), "{p:?}");
}

#[test]
fn htsim_bytes_window_needs_htsims_tcp() {
    // window = "htsim_bytes" is htsim's TcpSrc / DCTCPSrc window: DCTCP with its per-window cut
    // and no CWR episode, or NewReno without ECN; no SACK either way.
    let with = |lines: &str| GOOD.replace("cc = \"dctcp\"\nmin_rto", &format!("{lines}\nmin_rto"));
    let htsim = "cc = \"dctcp\"\ncc_params = { window_cut = 1, cwr_on_ece = 0, ack_window = 1 }\nsack = false\nhandshake = true\nwindow = \"htsim_bytes\"";
    let s = Scenario::from_toml(&with(htsim)).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.flows[0].cfg.tcp().unwrap().htsim_bytes);
    let reno = "cc = \"newreno\"\nsack = false\nhandshake = true\nwindow = \"htsim_bytes\"";
    assert!(Scenario::from_toml(&with(reno)).unwrap_or_else(|e| panic!("{e}")).flows[0].cfg.tcp().unwrap().htsim_bytes);
    let err = |lines: &str| {
        // (the profile [transports.reno] inherits the key, and may be reported too)
        Scenario::from_toml(&with(lines)).unwrap_err().0[0].to_string()
    };
    let e = err(&htsim.replace(", cwr_on_ece = 0", ""));
    assert!(e.starts_with("transport.window: \"htsim_bytes\" is htsim's TcpSrc/DCTCPSrc window: with cc = \"dctcp\" it needs cc_params window_cut = 1, cwr_on_ece = 0 and ack_window = 1"), "{e}");
    assert!(err(&htsim.replace(", ack_window = 1", "")).contains("ack_window = 1 (DCTCPSrc's rules)"));
    assert!(err(&reno.replace("handshake = true", "handshake = false")).contains("keep handshake = true"));
    assert!(err(&format!("{reno}\ndupthresh = 4")).contains("not dupthresh = 4"));
    assert!(err(&format!("{reno}\ncwnd_cap = 12")).contains("cwnd_cap = 12 caps the segment window only"));
    assert!(err(&htsim.replace("sack = false\n", "")).contains("no SACK: set sack = false"));
    assert!(err("cc = \"cubic\"\nsack = false\nhandshake = true\nwindow = \"htsim_bytes\"").contains("needs cc = \"dctcp\" or \"newreno\", not \"cubic\""));
    assert!(err(&format!("{reno}\necn = true")).contains("TcpSrc ignores ECE"));
    assert!(err(&format!("{reno}\ntimeout_ssthresh = \"ns2\"")).starts_with("transport.timeout_ssthresh: htsim's byte window"));
    assert_reports("cc = \"dctcp\"\nmin_rto", "cc = \"dctcp\"\nwindow = \"bytes\"\nmin_rto", "transport.window", &["segments", "htsim_bytes"]);
}
