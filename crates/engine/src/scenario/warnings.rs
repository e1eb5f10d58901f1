//! Transports and switch ports that contradict each other: every key is valid on its own, but
//! together they cannot mean anything (an error), or probably not what was meant (a warning).
//!
//! Read from the validated `Scenario`, so per-link queue tables, profiles named by flows,
//! workloads and incasts, and the schemes' own settings are all seen as the run will use them.
//! Only the profiles that some traffic uses are checked.
//!
//! - Error: NDP over switch ports that do not trim (a full queue drops its data and NDP, which
//!   has no loss recovery but its RTO, runs on timeouts).
//! - Warnings, from what each transport declares it needs (`transport/ports.rs`): Homa over
//!   fewer queues than its priority levels; PPT, RC3, Flash or PIAS over fewer queues than the
//!   classes they tag; pFabric over ports without its admission; Aeolus over ports without
//!   selective dropping; a DCTCP-family profile where no switch port marks ECN. And `[switch]
//!   shared_buffer` that no port's `alpha` draws on. (HPCC's telemetry is recorded by every
//!   switch port, so it cannot be missing.)

use super::reader::Issue;
use super::Scenario;
use crate::queue::{Admission, Marking, QueueSpec};
use crate::transport::tcp::{EcnMode, TcpConfig};
use crate::transport::TransportConfig;

/// Every transport profile some flow, workload or incast uses, by name, first use first.
fn used_profiles(s: &Scenario) -> Vec<(&str, &TransportConfig)> {
    let mut out: Vec<(&str, &TransportConfig)> = Vec::new();
    let all = s.flows.iter().map(|f| (f.transport.as_str(), &f.cfg))
        .chain(s.workloads.iter().map(|w| (w.transport.as_str(), &w.cfg)))
        .chain(s.incasts.iter().map(|i| (i.transport.as_str(), &i.cfg)));
    for (name, cfg) in all {
        if !out.iter().any(|(n, _)| *n == name) {
            out.push((name, cfg));
        }
    }
    out
}

/// The egress queues of every switch port, with the port's name.
fn switch_ports(s: &Scenario) -> Vec<(String, &QueueSpec)> {
    let t = &s.topology;
    let mut out = Vec::new();
    for l in &t.links {
        let (a, b) = (&t.nodes[l.a], &t.nodes[l.b]);
        if !a.is_host {
            out.push((format!("{}->{}", a.name, b.name), &l.queue_ab));
        }
        if !b.is_host {
            out.push((format!("{}->{}", b.name, a.name), &l.queue_ba));
        }
    }
    out
}

/// The ports that fail a test, for a message ("every switch port (4)", "port s0->h1", "3 ports
/// (s0->h0, s0->h1, ...)"), or None when none does.
fn offenders(ports: &[(String, &QueueSpec)], bad: impl Fn(&QueueSpec) -> bool) -> Option<String> {
    let names: Vec<&str> = ports.iter().filter(|(_, q)| bad(q)).map(|(n, _)| n.as_str()).collect();
    match names.len() {
        0 => None,
        n if n == ports.len() => Some(format!("every switch port ({n})")),
        1 => Some(format!("port {}", names[0])),
        n => Some(format!("{} ports ({}{})", n, names[..2].join(", "), if n > 2 { ", ..." } else { "" })),
    }
}

/// A TCP profile's scheme as its paper names it, else its congestion control's scenario name.
fn scheme_name(c: &TcpConfig) -> &'static str {
    match c.scheme.unwrap_or(c.cc.name()) {
        "ppt" => "PPT",
        "rc3" => "RC3",
        "pias" => "PIAS",
        "flash" => "Flash",
        "flash-ia" => "Flash-IA",
        n => n,
    }
}

fn admission_name(a: Admission) -> &'static str {
    match a {
        Admission::DropTail => "droptail",
        Admission::PushOut => "pushout",
        Admission::PFabric => "pfabric",
        Admission::Trim { .. } => "trim",
    }
}

/// Setups that cannot mean anything: refused with the keys to add.
pub(super) fn errors(s: &Scenario) -> Vec<Issue> {
    let ports = switch_ports(s);
    let mut out = Vec::new();
    for (name, cfg) in used_profiles(s) {
        if let TransportConfig::Ndp(_) = cfg {
            let untrimmed = |q: &QueueSpec| !matches!(q.admission, Admission::Trim { .. });
            if let Some(which) = offenders(&ports, untrimmed) {
                let first = ports.iter().find(|(_, q)| untrimmed(q)).map(|(_, q)| admission_name(q.admission)).unwrap_or("droptail");
                out.push(Issue {
                    path: "queue.admission".into(),
                    message: format!(
                        "transport '{name}' is NDP, which needs switch ports that trim, but {which} has admission = \"{first}\": \
                         a full queue drops NDP's data and it runs on timeouts; add to [queue] queues = 2, classes = [0, 1], \
                         admission = \"trim\" (and [host_queue] queues = 2, classes = [0, 1])"
                    ),
                });
            }
        }
    }
    out
}

/// Setups that run but are probably not what was meant: ports that lack what a transport
/// needs (its declaration, `TransportConfig::port_needs`), and an unused shared buffer.
pub(super) fn warnings(s: &Scenario) -> Vec<Issue> {
    let ports = switch_ports(s);
    let mut out = Vec::new();
    let mut warn = |path: &str, message: String| out.push(Issue { path: path.into(), message });
    let marks = ports.iter().any(|(_, q)| !matches!(q.marking, Marking::None));
    for (name, cfg) in used_profiles(s) {
        let needs = cfg.port_needs();
        let what = match cfg {
            TransportConfig::Homa(h) if h.aeolus => "Aeolus (on Homa)".to_string(),
            TransportConfig::Homa(_) => "Homa".to_string(),
            TransportConfig::Ndp(_) => "NDP".to_string(),
            TransportConfig::Tcp(c) => scheme_name(c).to_string(),
        };
        if needs.queues > 1 {
            if let Some(which) = offenders(&ports, |q| q.queues < needs.queues) {
                let n = needs.queues;
                let tags = match cfg {
                    TransportConfig::Homa(_) => format!("with {n} priority levels"),
                    _ => format!("which tags packets with {n} priority classes"),
                };
                warn("queue.queues", format!(
                    "transport '{name}' is {what} {tags}, but {which} has fewer than {n} queues, so some of its classes share a queue; \
                     set [queue] queues = {n}, scheduler = \"strict\" (or give the profile its paper's ports: fabricsim compare --ports paper)"
                ));
            }
        }
        if needs.rank_admission {
            if let Some(which) = offenders(&ports, |q| q.admission != Admission::PFabric) {
                warn("queue.admission", format!(
                    "transport '{name}' is pFabric, whose ports send the smallest remaining size first and drop \
                     the largest, but {which} does not (admission is not \"pfabric\"); set [queue] admission = \"pfabric\""
                ));
            }
        }
        if needs.selective_drop {
            if let Some(which) = offenders(&ports, |q| q.selective_drop.is_none()) {
                warn("queue.selective_drop", format!(
                    "transport '{name}' is {what}, whose first-RTT packets are droppable, but {which} has no selective dropping, \
                     so they are lost only when the buffer overflows, as Homa's; set [queue] selective_drop (Aeolus's default: 0.2 x the buffer)"
                ));
            }
        }
        let dctcp_ecn = cfg.tcp().is_some_and(|c| c.ecn == EcnMode::Dctcp);
        if (needs.marking || dctcp_ecn) && !marks && s.topology.rdcn.is_none() {
            warn("queue.discipline", format!(
                "transport '{name}' ({what}) reacts to ECN marks, but no switch port marks, so it behaves as Reno on \
                 drops; set [queue] discipline = \"ecn\" and ecn_threshold (e.g. \"65pkt\")"
            ));
        }
    }
    if s.topology.shared_buffer.is_some() && ports.iter().all(|(_, q)| q.shared_alpha.is_none()) {
        warn("switch.shared_buffer", "is set, but no port's queue table sets alpha, so no port draws on it and every \
              port keeps its own buffer; add alpha (e.g. alpha = 1) to [queue]".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::Scenario;

    /// A 3-host star with `queue` as its [queue] table, `transport` as [transport] and one flow.
    fn star(queue: &str, transport: &str) -> Result<Scenario, super::super::Issues> {
        Scenario::from_toml(&format!(
            "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 3\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
             [queue]\n{queue}\n[transport]\n{transport}\n[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = \"20KB\"\n"
        ))
    }

    fn keys(s: &Scenario) -> Vec<String> {
        s.warnings().into_iter().map(|i| i.path).collect()
    }

    #[test]
    fn ndp_needs_trimming_ports() {
        let e = star("buffer = \"100pkt\"", "kind = \"ndp\"").unwrap_err();
        assert_eq!(e.0.len(), 1);
        assert_eq!(e.0[0].path, "queue.admission");
        assert!(e.0[0].message.contains("every switch port (3) has admission = \"droptail\""), "{}", e.0[0].message);
        let ok = star("queues = 2\nclasses = [0, 1]\nadmission = \"trim\"", "kind = \"ndp\"").unwrap();
        assert!(keys(&ok).is_empty());
    }

    #[test]
    fn homa_levels_against_the_ports_queues() {
        let one = star("buffer = \"100pkt\"", "kind = \"homa\"").unwrap();
        assert_eq!(keys(&one), ["queue.queues"]);
        assert!(one.warnings()[0].message.contains("Homa with 8 priority levels"));
        assert!(keys(&star("queues = 8", "kind = \"homa\"").unwrap()).is_empty());
        // Four levels fit four queues; five do not.
        assert!(keys(&star("queues = 4", "kind = \"homa\"\npriorities = 4").unwrap()).is_empty());
        assert_eq!(keys(&star("queues = 4", "kind = \"homa\"\npriorities = 5").unwrap()), ["queue.queues"]);
    }

    #[test]
    fn dctcp_without_marking_and_an_unused_shared_buffer() {
        assert_eq!(keys(&star("buffer = \"100pkt\"", "cc = \"dctcp\"").unwrap()), ["queue.discipline"]);
        assert!(keys(&star("discipline = \"ecn\"\necn_threshold = \"20pkt\"", "cc = \"dctcp\"").unwrap()).is_empty());
        assert!(keys(&star("buffer = \"100pkt\"", "cc = \"cubic\"").unwrap()).is_empty());
        let shared = Scenario::from_toml(
            "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 2\nlink = { rate = \"10Gbps\", delay = \"1us\" }\n\
             [switch]\nshared_buffer = \"200pkt\"\n[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = \"20KB\"\n",
        )
        .unwrap();
        assert_eq!(keys(&shared), ["switch.shared_buffer"]);
    }

    #[test]
    fn aeolus_without_selective_dropping_and_pias_on_too_few_queues() {
        let w = star("queues = 8", "kind = \"aeolus\"").unwrap();
        assert_eq!(keys(&w), ["queue.selective_drop"]);
        assert!(w.warnings()[0].message.contains("'default' is Aeolus (on Homa)"), "{}", w.warnings()[0].message);
        assert!(keys(&star("queues = 8\nselective_drop = \"24KB\"", "kind = \"aeolus\"").unwrap()).is_empty());
        // PIAS tags 8 classes: 4 queues share some; marking present, so only the queues.
        let pias = star("queues = 4\ndiscipline = \"ecn\"\necn_port_threshold = \"20pkt\"", "cc = \"pias\"").unwrap();
        assert_eq!(keys(&pias), ["queue.queues"]);
        assert!(pias.warnings()[0].message.contains("PIAS which tags packets with 8 priority classes, but every switch port (3) has fewer than 8 queues"), "{}", pias.warnings()[0].message);
    }
}
