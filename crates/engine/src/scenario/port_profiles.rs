//! Port profiles: a transport profile's own port settings. `[transports.NAME.ports]` takes the
//! keys of `[queue]` and sets every switch port, `[transports.NAME.host_ports]` the keys of
//! `[host_queue]` and sets every host NIC, when that profile carries all of the run's traffic
//! (docs/SCENARIOS.md "Port profiles"). What `fabricsim compare --ports paper` writes.
//!
//! A profile's table replaces the port's discipline (queues, classes, scheduling, admission,
//! marking, selective dropping), read over one drop-tail FIFO; the memory stays the scenario's: a
//! port keeps its own `buffer` (and `alpha`, and a NIC its `send_limit`) unless the profile's
//! table gives one. Traffic of profiles with different port settings cannot share one set of
//! ports: such a run is refused.

use super::queues::queue_table;
use super::reader::{Issues, Table};
use super::TopologySpec;
use crate::queue::QueueSpec;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The port tables of one transport profile, as written.
#[derive(Default)]
pub(super) struct Written<'a> {
    pub ports: Option<Table<'a>>,
    pub host_ports: Option<Table<'a>>,
}

impl<'a> Written<'a> {
    /// Take `ports` and `host_ports` out of a profile's table (marking them read).
    pub fn take(profile: &Table<'a>, iss: &mut Issues) -> Written<'a> {
        Written { ports: profile.table("ports", iss), host_ports: profile.table("host_ports", iss) }
    }

    /// Keys of the profile's table that are not port tables: none means the profile only sets
    /// ports, and a profile named after a transport is then that transport (`[transports.ndp.ports]`).
    pub fn only_ports(profile: &Map<String, Value>) -> bool {
        !profile.is_empty() && profile.keys().all(|k| k == "ports" || k == "host_ports")
    }
}

/// A port table read over a port's own spec: the spec, and whether it sets the memory keys.
#[derive(Clone, Copy)]
struct Overlay {
    spec: QueueSpec,
    buffer: bool,
    alpha: bool,
    send_limit: bool,
}

impl Overlay {
    fn read(t: &Table, base: QueueSpec, max_packet: u64, shared: bool, iss: &mut Issues) -> Overlay {
        let fresh = QueueSpec { limit: base.limit, shared_alpha: base.shared_alpha, send_limit: base.send_limit, ..QueueSpec::fifo(None) };
        let (buffer, alpha, send_limit) = (t.has("buffer"), t.has("alpha"), t.has("send_limit"));
        Overlay { spec: queue_table(t, fresh, max_packet, shared, iss), buffer, alpha, send_limit }
    }

    /// `port` with this table's settings, its own memory where the table gives none.
    fn over(&self, port: &QueueSpec) -> QueueSpec {
        QueueSpec {
            limit: if self.buffer { self.spec.limit } else { port.limit },
            shared_alpha: if self.alpha { self.spec.shared_alpha } else { port.shared_alpha },
            send_limit: if self.send_limit { self.spec.send_limit } else { port.send_limit },
            ..self.spec
        }
    }
}

/// A profile's port settings, read.
pub(super) struct Own {
    ports: Option<Overlay>,
    host_ports: Option<Overlay>,
    /// The tables as written, to tell equal settings apart from different ones.
    written: (Option<Value>, Option<Value>),
}

/// Read every profile's port tables (reported even when no traffic uses the profile).
pub(super) fn read(written: &BTreeMap<String, Written>, switch_q: QueueSpec, host_q: QueueSpec, max_packet: u64, shared: bool, iss: &mut Issues) -> BTreeMap<String, Own> {
    let raw = |t: &Option<Table>| t.as_ref().map(|t| Value::Object(t.entries().into_iter().map(|(k, v)| (k.clone(), v.clone())).collect()));
    written
        .iter()
        .filter(|(_, w)| w.ports.is_some() || w.host_ports.is_some())
        .map(|(name, w)| {
            let own = Own {
                ports: w.ports.as_ref().map(|t| Overlay::read(t, switch_q, max_packet, shared, iss)),
                host_ports: w.host_ports.as_ref().map(|t| Overlay::read(t, host_q, max_packet, shared, iss)),
                written: (raw(&w.ports), raw(&w.host_ports)),
            };
            (name.clone(), own)
        })
        .collect()
}

/// Give every port the settings of the profile that carries the traffic (`used`: the profile or
/// transport names the flows, workloads and incasts name), or refuse profiles whose port
/// settings differ.
pub(super) fn apply(own: &BTreeMap<String, Own>, used: &[&str], topo: &mut TopologySpec, iss: &mut Issues) {
    let mut names: Vec<&str> = Vec::new();
    for n in used {
        if !names.contains(n) {
            names.push(n);
        }
    }
    let settings = |n: &str| own.get(n).map(|o| &o.written);
    let Some(&first) = names.first() else { return };
    if let Some(other) = names.iter().find(|n| settings(n) != settings(first)) {
        let (with, without) = if settings(first).is_some() { (first, *other) } else { (*other, first) };
        let theirs = if settings(without).is_some() { "its own different ones" } else { "the scenario's [queue] ports" };
        iss.push(
            format!("transports.{with}.ports"),
            format!(
                "profile '{with}' brings its own port settings, but profile '{without}', which traffic in the same run uses, runs on {theirs}: \
                 a run has one set of ports; give both profiles the same ports, or run them separately (fabricsim compare)"
            ),
        );
        return;
    }
    let Some(o) = own.get(first) else { return };
    for l in &mut topo.links {
        let (a_host, b_host) = (topo.nodes[l.a].is_host, topo.nodes[l.b].is_host);
        let pick = |host: bool| if host { o.host_ports } else { o.ports };
        if let Some(ov) = pick(a_host) {
            l.queue_ab = ov.over(&l.queue_ab);
        }
        if let Some(ov) = pick(b_host) {
            l.queue_ba = ov.over(&l.queue_ba);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Scenario;
    use crate::queue::{Admission, Amount};

    /// A 3-host star, 200 KB ports, `profiles` after it and flows h1->h0 and h2->h0 of the two
    /// transports named.
    fn star(profiles: &str, a: &str, b: &str) -> Result<Scenario, super::super::Issues> {
        Scenario::from_toml(&format!(
            "[simulation]\nend = \"1ms\"\n[topology]\nkind = \"star\"\nhosts = 3\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
             [queue]\nbuffer = \"200KB\"\n{profiles}\n\
             [[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = \"20KB\"\ntransport = \"{a}\"\n\
             [[flows]]\nsrc = \"h2\"\ndst = \"h0\"\nsize = \"20KB\"\ntransport = \"{b}\"\n"
        ))
    }

    const NDP: &str = "[transports.ndp.ports]\nqueues = 2\nclasses = [0, 1]\nadmission = \"trim\"\n[transports.ndp.host_ports]\nqueues = 2\nclasses = [0, 1]\n";

    #[test]
    fn a_profile_named_after_a_transport_brings_its_ports() {
        // Without its ports NDP over drop-tail is refused; with them every switch port trims and
        // keeps the scenario's 200 KB, every host NIC has two queues and its send limit.
        assert!(star("", "ndp", "ndp").is_err());
        let s = star(NDP, "ndp", "ndp").unwrap();
        assert_eq!(s.flows[0].cfg.kind(), "ndp");
        for l in &s.topology.links {
            let (nic, sw) = (&l.queue_ab, &l.queue_ba); // star links are host -> s0
            assert!(matches!(sw.admission, Admission::Trim { header_bytes: 64, .. }));
            assert_eq!((sw.queues, sw.limit), (2, Some(Amount::Bytes(200_000))));
            assert_eq!((nic.queues, nic.admission, nic.send_limit), (2, Admission::DropTail, Some(100)));
        }
        assert!(s.warnings().is_empty());
    }

    #[test]
    fn a_profile_that_sets_only_ports_under_another_name_is_the_default_transport() {
        let s = star("[transport]\ncc = \"dctcp\"\n[transports.marked.ports]\ndiscipline = \"ecn\"\necn_threshold = \"20pkt\"\nbuffer = \"50pkt\"", "marked", "marked").unwrap();
        assert_eq!(s.flows[0].cfg.tcp().unwrap().cc.name(), "dctcp");
        let sw = &s.topology.links[0].queue_ba;
        assert_eq!(sw.limit, Some(Amount::Packets(50)));
        assert!(s.warnings().is_empty(), "{:?}", s.warnings());
    }

    #[test]
    fn profiles_with_different_ports_in_one_run_are_refused() {
        let e = star(NDP, "ndp", "cubic").unwrap_err();
        assert_eq!(e.0.len(), 1, "{e}");
        assert_eq!(e.0[0].path, "transports.ndp.ports");
        assert!(e.0[0].message.contains("profile 'cubic'") && e.0[0].message.contains("[queue] ports"), "{}", e.0[0].message);
        // The same ports on two profiles are one set of ports.
        let two = "[transports.a]\ncc = \"dctcp\"\nports = { discipline = \"ecn\", ecn_threshold = \"20pkt\" }\n\
                   [transports.b]\ncc = \"d2tcp\"\nports = { discipline = \"ecn\", ecn_threshold = \"20pkt\" }\n";
        assert!(star(two, "a", "b").is_ok());
        // A bad key in a profile no traffic uses is still reported, at its path.
        let e = star("[transports.spare.ports]\nqueus = 8", "cubic", "cubic").unwrap_err();
        assert_eq!(e.0[0].path, "transports.spare.ports.queus");
    }
}
