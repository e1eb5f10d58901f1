//! Thin Python binding: validate a scenario, run it in chunks (so Python can draw a progress bar
//! and stop cleanly), and hand results back as columns. All ergonomics live in python/fabricsim.

use fabricsim_engine::output::{FlowTable, PortTable, Series, Summary};
use fabricsim_engine::{Scenario, Simulator, Time};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

mod document;
use document::Document;

/// The engine's memory in transparent huge pages where Linux grants them on request
/// (`fabricsim_engine::huge_pages`: about 8 % less CPU on fabrics larger than the caches).
#[global_allocator]
static ALLOC: fabricsim_engine::huge_pages::HugePages = fabricsim_engine::huge_pages::HugePages;

/// Validate a scenario given as JSON text or as a dict; returns a list of (key path, message),
/// empty if valid.
#[pyfunction]
fn validate(doc: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    Ok(match Document::of(doc)?.scenario() {
        Ok(_) => vec![],
        Err(iss) => iss.0.into_iter().map(|i| (i.path, i.message)).collect(),
    })
}

/// A TOML document as `tomllib.loads` returns it, or None where `tomllib` must read it (a syntax
/// error, a date-time, an integer beyond i64, a byte-order mark): see `document.rs`.
#[pyfunction]
fn parse_toml(py: Python<'_>, text: &str) -> Option<PyObject> {
    document::toml_to_python(py, text)
}

/// The warnings of a valid scenario given as JSON text or a dict (key path, message); empty when
/// it is not valid (`validate` reports that).
#[pyfunction]
fn scenario_warnings(doc: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    Ok(match Document::of(doc)?.scenario() {
        Ok(sc) => issues(sc.warnings()),
        Err(_) => vec![],
    })
}

/// A valid scenario from JSON text or a dict, or its issues as a ValueError.
fn valid_scenario(doc: &Bound<'_, PyAny>) -> PyResult<Scenario> {
    Document::of(doc)?.scenario().map_err(|e| PyValueError::new_err(e.to_string()))
}

fn issues(v: Vec<fabricsim_engine::Issue>) -> Vec<(String, String)> {
    v.into_iter().map(|i| (i.path, i.message)).collect()
}

/// One simulation. Build with a scenario (JSON text or a validated dict); advance with `run_until`.
#[pyclass(module = "fabricsim._engine")]
struct Simulation {
    sim: Simulator,
    /// The scenario's warnings, found while it was read (`Scenario::warnings`).
    warnings: Vec<(String, String)>,
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (doc, seed=None))]
    fn new(doc: &Bound<'_, PyAny>, seed: Option<u64>) -> PyResult<Self> {
        let sc = valid_scenario(doc)?;
        Ok(Simulation { sim: Simulator::new(&sc, seed), warnings: issues(sc.warnings()) })
    }

    /// The scenario's warnings: (key path, message).
    #[getter]
    fn warnings(&self) -> Vec<(String, String)> {
        self.warnings.clone()
    }

    /// Process events up to `until_ps` (picoseconds), without holding the GIL.
    fn run_until(&mut self, py: Python<'_>, until_ps: u64) {
        let sim = &mut self.sim;
        py.allow_threads(move || sim.run_until(Time(until_ps)));
    }

    #[getter]
    fn now_ps(&self) -> u64 {
        self.sim.now().0
    }
    #[getter]
    fn end_ps(&self) -> u64 {
        self.sim.end().0
    }
    #[getter]
    fn finished(&self) -> bool {
        self.sim.finished()
    }
    #[getter]
    fn events(&self) -> u64 {
        self.sim.events_processed()
    }
    #[getter]
    fn goodput_bytes(&self) -> u64 {
        self.sim.goodput_bytes()
    }

    /// Per-flow records as a dict of columns.
    fn flows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        flows_dict(py, &self.sim.flow_table())
    }
    /// Per-port counters as a dict of columns.
    fn ports<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = ports_dict(py, &self.sim.port_table())?;
        if let Some(s) = self.sim.fabric.sab.as_deref() {
            // SAB's switch side, per port in the same order: flows counted now, the most ever,
            // data packets whose window field the port lowered (host ports: 0).
            d.set_item("sab_flows", &s.flows)?;
            d.set_item("sab_peak_flows", &s.peak)?;
            d.set_item("sab_rewrites", &s.rewrites)?;
        }
        Ok(d)
    }
    /// Per-queue counters (one row per queue of every port) as a dict of columns.
    fn queues<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = self.sim.queue_table();
        let d = PyDict::new(py);
        d.set_item("port", &t.port)?;
        d.set_item("queue", &t.queue)?;
        d.set_item("classes", &t.classes)?;
        d.set_item("enqueued", &t.enqueued)?;
        d.set_item("drops", &t.drops)?;
        d.set_item("drops_over_lower", &t.drops_over_lower)?;
        d.set_item("selective_drops", &t.selective_drops)?;
        d.set_item("marks", &t.marks)?;
        d.set_item("trims", &t.trims)?;
        d.set_item("max_packets", &t.max_packets)?;
        d.set_item("max_bytes", &t.max_bytes)?;
        d.set_item("mean_packets", &t.mean_packets)?;
        d.set_item("mean_bytes", &t.mean_bytes)?;
        Ok(d)
    }
    /// Time series in long format as a dict of columns.
    fn timeseries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        series_dict(py, &self.sim.series, &self.sim)
    }
    /// Hybrid-network tables (days, uplinks, voqs, seq_view, latency: dicts of columns, plus the mean
    /// circuit utilization after the warm-up), or None for a packet-only fabric.
    fn circuit<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(r) = self.sim.fabric.rdcn.as_deref() else { return Ok(None) };
        let out = PyDict::new(py);
        let t = r.day_table();
        let d = PyDict::new(py);
        d.set_item("src", &t.src)?;
        d.set_item("dst", &t.dst)?;
        d.set_item("start_ps", &t.start_ps)?;
        d.set_item("length_ps", &t.length_ps)?;
        d.set_item("bytes", &t.bytes)?;
        d.set_item("utilization", &t.utilization)?;
        d.set_item("data", &t.data)?;
        d.set_item("wire_start_ps", &t.wire_start_ps)?;
        d.set_item("wire_end_ps", &t.wire_end_ps)?;
        out.set_item("days", d)?;
        let t = r.uplink_table();
        let d = PyDict::new(py);
        d.set_item("rack", &t.rack)?;
        d.set_item("night_bytes", &t.night_bytes)?;
        d.set_item("night_ps", &t.night_ps)?;
        d.set_item("day_bytes", &t.day_bytes)?;
        d.set_item("day_ps", &t.day_ps)?;
        out.set_item("uplinks", d)?;
        let t = r.voq_table(self.sim.now());
        let d = PyDict::new(py);
        d.set_item("src", &t.src)?;
        d.set_item("dst", &t.dst)?;
        d.set_item("enqueued", &t.enqueued)?;
        d.set_item("drops", &t.drops)?;
        d.set_item("ecn_marks", &t.ecn_marks)?;
        d.set_item("max_packets", &t.max_packets)?;
        d.set_item("mean_packets", &t.mean_packets)?;
        out.set_item("voqs", d)?;
        let t = r.seq_table(&self.sim.fabric.net);
        let d = PyDict::new(py);
        d.set_item("src", &t.src)?;
        d.set_item("dst", &t.dst)?;
        d.set_item("offset_ps", &t.offset_ps)?;
        d.set_item("bytes", &t.bytes)?;
        d.set_item("expected_bytes", &t.expected_bytes)?;
        d.set_item("voq_packets", &t.voq_packets)?;
        d.set_item("optimal_bytes", &t.optimal_bytes)?;
        d.set_item("packet_only_bytes", &t.packet_only_bytes)?;
        d.set_item("weeks", &t.weeks)?;
        out.set_item("seq_view", d)?;
        let t = r.latency_table();
        let d = PyDict::new(py);
        d.set_item("path", &t.path)?;
        d.set_item("packets", &t.packets)?;
        d.set_item("mean_us", &t.mean_us)?;
        d.set_item("p50_us", &t.p50_us)?;
        d.set_item("p99_us", &t.p99_us)?;
        d.set_item("p999_us", &t.p999_us)?;
        out.set_item("latency", d)?;
        if let Some(seg) = r.seg.as_deref() {
            // Segregating ToRs (AccelToR, Blocking, Unblocking): their queues, Algorithm 1's
            // cases, and per-elephant weekly bytes.
            let now = self.sim.now();
            let rows = seg.queue_rows();
            let d = PyDict::new(py);
            d.set_item("tor", rows.iter().map(|r| r.0).collect::<Vec<_>>())?;
            d.set_item("queue", rows.iter().map(|r| r.1.clone()).collect::<Vec<_>>())?;
            d.set_item("enqueued", rows.iter().map(|r| r.2.stats.enqueued).collect::<Vec<_>>())?;
            d.set_item("drops", rows.iter().map(|r| r.2.stats.drops).collect::<Vec<_>>())?;
            d.set_item("max_packets", rows.iter().map(|r| r.2.stats.max_packets).collect::<Vec<_>>())?;
            d.set_item("max_bytes", rows.iter().map(|r| r.2.stats.max_bytes).collect::<Vec<_>>())?;
            d.set_item(
                "mean_packets",
                rows.iter()
                    .map(|r| {
                        let mut f = r.2.clone();
                        f.note(now);
                        if now.0 > 0 { f.stats.area_packets as f64 / now.0 as f64 } else { 0.0 }
                    })
                    .collect::<Vec<_>>(),
            )?;
            out.set_item("tor_queues", d)?;
            let c = seg.cases;
            let d = PyDict::new(py);
            for (k, v) in [
                ("mice", c.mice),
                ("today", c.today),
                ("accelerated", c.accelerated),
                ("buffered", c.buffered),
                ("case4_drops", c.case4_drops),
                ("case4_lp", c.case4_lp),
                ("overflow_lp", c.overflow_lp),
                ("mice_lp", c.mice_lp),
                ("elephant_hp", c.elephant_hp),
                ("elephant_packet", c.elephant_packet),
                ("full_drops", c.full_drops),
                ("stale_drops", c.stale_drops),
                ("promoted", seg.elephants.promoted),
                ("departed", seg.elephants.departed),
            ] {
                d.set_item(k, vec![v])?;
            }
            out.set_item("cases", d)?;
            let w = &seg.weeks;
            let slot = &r.spec.plan.slots()[0];
            let d = PyDict::new(py);
            d.set_item("src", &w.src)?;
            d.set_item("dst", &w.dst)?;
            d.set_item("flow", &w.flow)?;
            d.set_item("week_start_ps", &w.week_start_ps)?;
            d.set_item("bytes", &w.bytes)?;
            d.set_item("circuit_bytes", &w.circuit_bytes)?;
            d.set_item("sent_bytes", &w.sent_bytes)?;
            d.set_item("week_ps", vec![r.spec.plan.week().0; w.flow.len()])?;
            d.set_item("day_ps", vec![slot.day.0; w.flow.len()])?;
            out.set_item("elephant_weeks", d)?;
        }
        out.set_item("utilization", r.mean_utilization(r.warmup))?;
        Ok(Some(out))
    }

    /// Packets recorded for pcap traces (`[output.pcap]`) as a dict of columns plus `dropped`
    /// (left out past max_packets), or None without a capture. `sack` holds 3 (left, right)
    /// pairs per row, flattened.
    fn capture<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(c) = self.sim.fabric.capture.as_deref() else { return Ok(None) };
        let t = &c.table;
        let d = PyDict::new(py);
        d.set_item("time_ps", &t.time_ps)?;
        d.set_item("arrive_ps", &t.arrive_ps)?;
        d.set_item("port", t.port.iter().map(|&p| self.sim.fabric.net.ports[p as usize].name.as_str()).collect::<Vec<_>>())?;
        d.set_item("flow", &t.flow)?;
        d.set_item("src", &t.src)?;
        d.set_item("dst", &t.dst)?;
        d.set_item("size", &t.size)?;
        d.set_item("class", &t.class)?;
        d.set_item("ecn", &t.ecn)?;
        d.set_item("kind", &t.kind)?;
        d.set_item("trimmed", &t.trimmed)?;
        d.set_item("lost", &t.lost)?;
        d.set_item("tcp", &t.tcp)?;
        d.set_item("seq", &t.seq)?;
        d.set_item("ack", &t.ack)?;
        d.set_item("len", &t.len)?;
        d.set_item("window", &t.window)?;
        d.set_item("flags", &t.flags)?;
        d.set_item("sack_count", &t.sack_count)?;
        d.set_item("sack", &t.sack)?;
        d.set_item("rank", &t.rank)?;
        d.set_item("dropped", c.dropped)?;
        let hosts: Vec<&str> = self.sim.fabric.net.hosts.iter().map(|h| self.sim.fabric.net.node(*h).name.as_str()).collect();
        d.set_item("hosts", hosts)?;
        Ok(Some(d))
    }

    /// Run figures as a dict.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        summary_dict(py, &self.sim.summary())
    }
}

fn flows_dict<'py>(py: Python<'py>, t: &FlowTable) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("id", &t.id)?;
    d.set_item("src", &t.src)?;
    d.set_item("dst", &t.dst)?;
    d.set_item("transport", &t.transport)?;
    d.set_item("workload", &t.workload)?;
    d.set_item("measured", &t.measured)?;
    d.set_item("cc", &t.cc)?;
    d.set_item("size", &t.size)?;
    d.set_item("start_ps", &t.start_ps)?;
    d.set_item("end_ps", &t.end_ps)?;
    d.set_item("fct_ps", &t.fct_ps)?;
    d.set_item("ideal_fct_ps", &t.ideal_fct_ps)?;
    d.set_item("slowdown", &t.slowdown)?;
    d.set_item("bytes_acked", &t.bytes_acked)?;
    d.set_item("setup_ps", &t.setup_ps)?;
    d.set_item("segments_sent", &t.segments_sent)?;
    d.set_item("retransmits", &t.retransmits)?;
    d.set_item("timeouts", &t.timeouts)?;
    d.set_item("fast_recoveries", &t.fast_recoveries)?;
    d.set_item("ecn_reductions", &t.ecn_reductions)?;
    d.set_item("trimmed", &t.trimmed)?;
    d.set_item("credits", &t.credits)?;
    d.set_item("deadline_ps", &t.deadline_ps)?;
    d.set_item("deadline_met", &t.deadline_met)?;
    Ok(d)
}

fn ports_dict<'py>(py: Python<'py>, t: &PortTable) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("port", &t.name)?;
    d.set_item("node", &t.node)?;
    d.set_item("peer", &t.peer)?;
    d.set_item("rate_bps", &t.rate_bps)?;
    d.set_item("tx_packets", &t.tx_packets)?;
    d.set_item("tx_bytes", &t.tx_bytes)?;
    d.set_item("drops", &t.drops)?;
    d.set_item("wire_losses", &t.wire_losses)?;
    d.set_item("ecn_marks", &t.ecn_marks)?;
    d.set_item("trims", &t.trims)?;
    d.set_item("bounces", &t.bounces)?;
    d.set_item("max_queue_packets", &t.max_queue_packets)?;
    d.set_item("max_queue_bytes", &t.max_queue_bytes)?;
    d.set_item("mean_queue_packets", &t.mean_queue_packets)?;
    d.set_item("mean_queue_bytes", &t.mean_queue_bytes)?;
    d.set_item("utilization", &t.utilization)?;
    if let Some(p) = &t.pfc {
        // PFC (`[pfc]`): PAUSE frames each port received from its peer switch, time paused.
        d.set_item("pfc_pauses", &p.pauses)?;
        d.set_item("pfc_paused_s", &p.paused_s)?;
    }
    Ok(d)
}

fn series_dict<'py>(py: Python<'py>, s: &Series, sim: &Simulator) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("time_ps", &s.time_ps)?;
    d.set_item("metric", s.metric.iter().map(|m| m.name()).collect::<Vec<_>>())?;
    d.set_item("target", (0..s.value.len()).map(|i| sim.series_target(i)).collect::<Vec<_>>())?;
    d.set_item("value", &s.value)?;
    Ok(d)
}

fn summary_dict<'py>(py: Python<'py>, s: &Summary) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("scenario", &s.scenario)?;
    d.set_item("seed", s.seed)?;
    d.set_item("sim_time_s", s.sim_time_ps as f64 / 1e12)?;
    d.set_item("end_s", s.end_ps as f64 / 1e12)?;
    d.set_item("engine_wall_s", s.wall_seconds)?;
    d.set_item("events", s.events)?;
    d.set_item("packet_hops", s.packet_hops)?;
    d.set_item("packets_created", s.packets_created)?;
    d.set_item("packets_delivered", s.packets_delivered)?;
    d.set_item("packets_dropped", s.packets_dropped)?;
    d.set_item("packets_in_flight", s.packets_in_flight)?;
    d.set_item("peak_packets_in_flight", s.peak_packets_in_flight)?;
    d.set_item("peak_rss_bytes", s.peak_rss_bytes)?;
    d.set_item("flows", s.flows)?;
    d.set_item("flows_completed", s.flows_completed)?;
    Ok(d)
}

/// Shape figures of a scenario's topology (hosts, switches, links, ECMP path counts, diameter,
/// oversubscription, bisection bandwidth), as a dict.
#[pyfunction]
fn topology_summary<'py>(py: Python<'py>, doc: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let sc = valid_scenario(doc)?;
    let net = fabricsim_engine::topology::build(&sc.topology);
    let s = fabricsim_engine::topology::summarize(&sc.topology, &net);
    let d = PyDict::new(py);
    d.set_item("kind", s.kind)?;
    d.set_item("hosts", s.hosts)?;
    d.set_item("switches", s.switches)?;
    d.set_item("links", s.links)?;
    d.set_item("paths_min", s.paths_min)?;
    d.set_item("paths_mean", s.paths_mean)?;
    d.set_item("paths_max", s.paths_max)?;
    d.set_item("diameter_hops", s.diameter_hops)?;
    d.set_item("oversubscription", s.oversubscription)?;
    d.set_item("bisection_bps", s.bisection_bps)?;
    d.set_item("host_capacity_bps", s.host_capacity_bps)?;
    // The hybrid ToR design with its derived values (AccelToR's m, K_1, K, RTO_min), as lines.
    let tor = sc.topology.rdcn.as_ref().map(|r| {
        let max_packet = sc.flows.iter().map(|f| f.cfg.framing()).chain(sc.workloads.iter().map(|w| w.cfg.framing())).map(|f| (f.payload + f.header) as u64).max().unwrap_or(1500);
        fabricsim_engine::rdcn::segregated::describe(r, max_packet)
    });
    d.set_item("tor", tor)?;
    Ok(d)
}

/// Offered load of a scenario's workloads (closed form, no simulation; crates/engine/src/load.rs):
/// the most loaded host downlink and uplink (port, load) and first-tier switch (switch,
/// direction, load), None where there is nothing to report.
#[pyfunction]
#[pyo3(signature = (doc, seed=None))]
fn offered_load<'py>(py: Python<'py>, doc: &Bound<'py, PyAny>, seed: Option<u64>) -> PyResult<Bound<'py, PyDict>> {
    let sc = valid_scenario(doc)?;
    let net = fabricsim_engine::topology::build(&sc.topology);
    let l = fabricsim_engine::load::offered(&sc, &net, seed.unwrap_or(sc.seed));
    let d = PyDict::new(py);
    d.set_item("downlink", l.downlink)?;
    d.set_item("uplink", l.uplink)?;
    d.set_item("core", l.core)?;
    Ok(d)
}

/// The port setup the paper of the transport carrying a scenario's traffic configures, for the
/// scenario's fabric: (`ports` keys as JSON, `host_ports` keys as JSON or None, why), or None when
/// the scenario has no traffic (crates/engine/src/transport/ports.rs).
#[pyfunction]
fn paper_ports(json: &str) -> PyResult<Option<(String, Option<String>, String)>> {
    let found = Scenario::paper_ports(json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(found.map(|(_, s)| {
        let (ports, host_ports) = s.tables_json();
        (ports, host_ports, s.note)
    }))
}

/// The switch ports of a valid scenario in words: the most common setup's queues, scheduler,
/// buffer, marking and admission, with `switch_ports` (how many) and `setups` (distinct setups).
#[pyfunction]
fn port_setup<'py>(py: Python<'py>, doc: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let sc = valid_scenario(doc)?;
    let t = &sc.topology;
    let mut seen: Vec<(fabricsim_engine::queue::describe::Described, usize)> = Vec::new();
    for l in &t.links {
        for (from, q) in [(l.a, &l.queue_ab), (l.b, &l.queue_ba)] {
            if t.nodes[from].is_host {
                continue;
            }
            let d = q.describe();
            match seen.iter_mut().find(|(x, _)| *x == d) {
                Some((_, n)) => *n += 1,
                None => seen.push((d, 1)),
            }
        }
    }
    let d = PyDict::new(py);
    d.set_item("switch_ports", seen.iter().map(|(_, n)| n).sum::<usize>())?;
    d.set_item("setups", seen.len())?;
    if let Some((top, _)) = seen.iter().max_by_key(|(_, n)| *n) {
        d.set_item("queues", &top.queues)?;
        d.set_item("scheduler", &top.scheduler)?;
        d.set_item("buffer", &top.buffer)?;
        d.set_item("marking", &top.marking)?;
        d.set_item("admission", &top.admission)?;
    }
    Ok(d)
}

/// What every transport kind, congestion control and scheme needs of the switch ports and the
/// setup its paper configures: (name, needs in words, setup in words).
#[pyfunction]
fn port_declarations() -> Vec<(&'static str, String, &'static str)> {
    use fabricsim_engine::scenario::kinds::default_of;
    use fabricsim_engine::transport::tcp::{scheme::SCHEMES, CcKind, CC_CATALOG};
    let kinds = ["ndp", "homa", "aeolus"].into_iter().filter_map(|k| default_of(k).map(|c| (k, c.port_needs(), c.paper_ports().summary)));
    let ccs = CC_CATALOG.iter().filter_map(|(n, _)| CcKind::from_name(n).map(|k| (*n, k.paper_ports().needs, k.paper_ports().summary)));
    let schemes = SCHEMES.iter().map(|s| (s.name, s.ports.needs, s.ports.summary));
    kinds.chain(ccs).chain(schemes).map(|(n, needs, summary)| (n, needs.describe(), summary)).collect()
}

/// Congestion controls and the named schemes built on them: (scenario name, one-line description).
#[pyfunction]
fn congestion_controls() -> Vec<(&'static str, &'static str)> {
    use fabricsim_engine::transport::tcp::scheme::SCHEMES;
    fabricsim_engine::transport::tcp::CC_CATALOG.iter().copied().chain(SCHEMES.iter().map(|s| (s.name, s.help))).collect()
}

/// Transport kinds and their parameters: (kind, description, [(key, default, meaning)]).
#[pyfunction]
fn transport_kinds() -> Vec<(&'static str, &'static str, Vec<(&'static str, &'static str, &'static str)>)> {
    fabricsim_engine::scenario::kinds::TRANSPORT_CATALOG.iter().map(|(k, d, p)| (*k, *d, p.to_vec())).collect()
}

/// The knobs of a congestion control or scheme (`cc_params`): (name, default, min, max, meaning).
#[pyfunction]
fn cc_knobs(name: &str) -> Vec<(&'static str, f64, f64, f64, &'static str)> {
    use fabricsim_engine::transport::tcp::{cc::knobs_of, scheme::scheme};
    let list = match scheme(name) {
        Some(s) => s.cc.knobs(),
        None => knobs_of(name),
    };
    list.iter().map(|k| (k.name, k.default, k.min, k.max, k.help)).collect()
}

/// The `cc_params` the `[host] stack = "ns-3"` profile gives congestion control `cc` (ns-3's own
/// implementation of it, `host::ns3::cc_knobs`); empty for an unknown name.
#[pyfunction]
fn ns3_cc_knobs(cc: &str) -> Vec<(&'static str, f64)> {
    fabricsim_engine::transport::tcp::cc::CcKind::from_name(cc).map_or_else(Vec::new, |k| fabricsim_engine::host::ns3::cc_knobs(k).to_vec())
}

/// Names of the built-in flow-size distributions.
/// (name, what it sets) of every host stack `[host] stack` accepts.
#[pyfunction]
fn host_stacks() -> Vec<(&'static str, String)> {
    fabricsim_engine::host::linux::STACKS.iter().map(|&(n, k)| (n, k.summary(1448))).collect()
}

#[pyfunction]
fn builtin_workloads() -> Vec<&'static str> {
    fabricsim_engine::workload::builtin::names()
}

/// Text of a built-in flow-size distribution (the .cdf file).
#[pyfunction]
fn builtin_workload_text(name: &str) -> PyResult<&'static str> {
    fabricsim_engine::workload::builtin::text(name).ok_or_else(|| PyValueError::new_err(format!("no built-in workload '{name}'")))
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_toml, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_warnings, m)?)?;
    m.add_function(wrap_pyfunction!(topology_summary, m)?)?;
    m.add_function(wrap_pyfunction!(offered_load, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_workloads, m)?)?;
    m.add_function(wrap_pyfunction!(congestion_controls, m)?)?;
    m.add_function(wrap_pyfunction!(cc_knobs, m)?)?;
    m.add_function(wrap_pyfunction!(ns3_cc_knobs, m)?)?;
    m.add_function(wrap_pyfunction!(transport_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(host_stacks, m)?)?;
    m.add_function(wrap_pyfunction!(paper_ports, m)?)?;
    m.add_function(wrap_pyfunction!(port_setup, m)?)?;
    m.add_function(wrap_pyfunction!(port_declarations, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_workload_text, m)?)?;
    m.add_class::<Simulation>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
