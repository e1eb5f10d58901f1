//! Scenarios: the TOML (or JSON) description of one simulation, validated into typed values.
//!
//! `Scenario::from_toml` / `from_json` read the whole document, check every key and value, build the
//! network to check reachability, and return either a `Scenario` or *all* the problems found, each
//! with its key path, the offending value and what was expected. Nothing is simulated before this
//! succeeds. The key reference is docs/SCENARIOS.md.

pub mod kinds;
mod parse;
mod port_profiles;
pub mod limits;
mod queues;
mod rdcn;
pub mod reader;
#[cfg(test)]
mod tests;
mod warnings;

pub use reader::{Issue, Issues};

use crate::network::Ecmp;
use crate::queue::Amount;
use crate::time::{Rate, Time};
use crate::transport::ports::{Fabric, PaperPorts, PortSetup};
use crate::transport::TransportConfig;

pub use crate::queue::QueueSpec;

/// A node as declared (star and dumbbell are expanded into these).
#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    pub name: String,
    pub is_host: bool,
}

/// A bidirectional link; each direction gets its own port and queue.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub a: usize,
    pub b: usize,
    pub rate: Rate,
    pub delay: Time,
    pub loss_rate: f64,
    /// Queue of the port a→b and of b→a.
    pub queue_ab: QueueSpec,
    pub queue_ba: QueueSpec,
    /// Rate and delay of the b→a direction when they differ from a→b.
    pub reverse: Option<(Rate, Time)>,
}

/// The network as explicit nodes and links.
#[derive(Clone, Debug, PartialEq)]
pub struct TopologySpec {
    /// "star", "dumbbell", "explicit", "leaf_spine" or "fat_tree".
    pub kind: String,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    /// Host capacity below a first-tier switch over its uplink capacity (generated fabrics).
    pub oversubscription: Option<f64>,
    /// Capacity across the worst even split of the hosts (generated fabrics).
    pub bisection_bps: Option<u64>,
    /// Each switch's shared packet memory (`[switch] shared_buffer`), for ports whose queues
    /// use dynamic thresholds.
    pub shared_buffer: Option<Amount>,
    /// The circuit side of a hybrid network (`kind = "rdcn"`).
    pub rdcn: Option<crate::rdcn::RdcnSpec>,
    /// The clock's resolution, which rounds every link's serialization times (`[simulation]
    /// time_resolution`; the delays are rounded when it is read).
    pub clock: crate::time::Resolution,
}

/// One flow.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub src: usize,
    pub dst: usize,
    /// `None` = long-lived (sends until the simulation ends).
    pub size: Option<u64>,
    pub start: Time,
    /// The application stops writing at this time: the flow sends one more segment, with FIN,
    /// and finishes when everything sent is acknowledged (ns-3's `Application::Stop`).
    pub stop: Option<Time>,
    /// The flow should finish within this time of its start (deadline-aware transports read it;
    /// the flow table reports whether it did).
    pub deadline: Option<Time>,
    /// The path indices the flow is pinned to (`[routing] paths = "flow"`): `path` for both
    /// directions, `return_path` for the return direction apart.
    pub path: crate::network::source_paths::Pins,
    /// Name of the transport profile used (for the output table).
    pub transport: String,
    pub cfg: TransportConfig,
}

/// Deadlines of a workload's flows, relative to their start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Deadline {
    Fixed(Time),
    /// This much per 1000 B of flow size (SAB's benchmark: 10 ms per KB), rounded up.
    PerKb(Time),
}

impl Deadline {
    pub fn for_size(self, size: u64) -> Time {
        match self {
            Deadline::Fixed(t) => t,
            Deadline::PerKb(t) => t.times(size.div_ceil(1000)),
        }
    }
}

/// What to record besides per-flow and per-port tables.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutputSpec {
    pub sample_interval: Option<Time>,
    /// Port names ("s0->h0") whose queue length is sampled.
    pub queues: Vec<String>,
    /// Flow indices whose cwnd is sampled.
    pub cwnd: Vec<usize>,
    /// Flows starting before `warmup` or after `end − cooldown` are marked not measured.
    pub warmup: Time,
    pub cooldown: Time,
    /// Flow indices whose delivered bytes, smoothed RTT and sending rate are sampled.
    pub flows: Vec<usize>,
    /// `[output.pcap]`: packets to record for pcap traces.
    pub pcap: Option<crate::capture::CaptureSpec>,
}

/// How an open-loop workload pairs senders with receivers.
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    /// Each flow: a uniformly random sender to a uniformly random other receiver.
    AllToAll,
    /// A fixed random one-to-one mapping of senders to receivers (no host to itself).
    Permutation,
    /// Every flow goes to one receiver (node index).
    ManyToOne(usize),
}

/// An open-loop workload: Poisson flow arrivals whose sizes follow a CDF, calibrated to a load.
///
/// Load (Flash eq. (2), PIAS, pFabric): offered bytes per second over the total host-link capacity
/// of the senders, so the arrival rate is λ = load · Σ_senders rate / (8 · mean size).
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadSpec {
    pub name: String,
    pub cdf: crate::workload::Cdf,
    pub sampling: crate::workload::Sampling,
    pub load: f64,
    pub pattern: Pattern,
    /// Host node indices.
    pub senders: Vec<usize>,
    pub receivers: Vec<usize>,
    /// Arrivals happen in [start, stop).
    pub start: Time,
    pub stop: Time,
    /// At most this many flows.
    pub max_flows: Option<u64>,
    pub deadline: Option<Deadline>,
    pub transport: String,
    pub cfg: TransportConfig,
    /// Flows between a pair of hosts reuse that pair's idle connections (a new one when all are
    /// busy), each flow starting from the ssthresh and α its connection's previous flow left
    /// (`transport::Carry`), as the HKUST ns-2 scripts' per-pair connection pools do.
    pub persistent: bool,
}

/// The classic synchronized-block incast: a request goes out, each sender answers with `block`
/// bytes, and the next request is issued only when every answer has arrived (plus `gap`).
#[derive(Clone, Debug, PartialEq)]
pub struct IncastSpec {
    pub name: String,
    pub receiver: usize,
    pub senders: Vec<usize>,
    pub block: u64,
    /// Number of rounds; `None` = until the simulation ends.
    pub rounds: Option<u64>,
    pub start: Time,
    pub gap: Time,
    /// One connection per sender carrying every round's block (the storage-cluster incast of
    /// Phanishayee et al.), instead of a new connection per round.
    pub persistent: bool,
    pub transport: String,
    pub cfg: TransportConfig,
}

/// Packets a port's wire loses on purpose (0-based serialization indices).
#[derive(Clone, Debug, PartialEq)]
pub struct FaultSpec {
    pub port: String,
    pub drop_packets: Vec<u64>,
}

/// A validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub end: Time,
    pub seed: u64,
    pub topology: TopologySpec,
    pub ecmp: Ecmp,
    /// Who picks each packet's path among the equal-cost ones (`[routing] paths`): the switches
    /// (by `ecmp`), or the flow's endpoints (`network/source_paths.rs`).
    pub paths: crate::network::source_paths::PathChoice,
    pub flows: Vec<FlowSpec>,
    pub output: OutputSpec,
    pub faults: Vec<FaultSpec>,
    pub workloads: Vec<WorkloadSpec>,
    pub incasts: Vec<IncastSpec>,
    /// End the run as soon as every flow has finished and no generator can make more.
    pub stop_when_done: bool,
    /// How events due at the same picosecond are ordered (`[simulation] tie_order`).
    pub tie_order: crate::event::TieOrder,
    /// SAB's switch parameters, when SAB runs (`[sab]`, or a profile with `cc = "sab"`).
    pub sab: Option<crate::switch::sab::SabSpec>,
    /// The hosts' model (`[host]`): receive processing jitter.
    pub host: crate::host::HostSpec,
    /// Priority Flow Control at every switch (`[pfc]`), if on.
    pub pfc: Option<crate::switch::pfc::PfcSpec>,
}

impl Scenario {
    /// Parse and validate a TOML document.
    pub fn from_toml(text: &str) -> Result<Scenario, Issues> {
        let value: toml::Value = toml::from_str(text).map_err(|e| {
            let mut iss = Issues::default();
            iss.push("", format!("not valid TOML: {}", e.to_string().trim()));
            iss
        })?;
        let json = serde_json::to_value(value).map_err(|e| {
            let mut iss = Issues::default();
            iss.push("", format!("cannot read the document: {e}"));
            iss
        })?;
        Self::from_value(&json)
    }

    /// Parse and validate a JSON document (what the Python front end sends).
    pub fn from_json(text: &str) -> Result<Scenario, Issues> {
        Self::from_value(&json_document(text)?)
    }

    pub fn from_value(v: &serde_json::Value) -> Result<Scenario, Issues> {
        let s = parse::scenario(v)?;
        let contradictions = warnings::errors(&s);
        if !contradictions.is_empty() {
            return Err(Issues(contradictions));
        }
        Ok(s)
    }

    /// The port setup the paper of the transport carrying this scenario's traffic configures
    /// (the first flow's, workload's or incast's profile), for this scenario's fabric, with that
    /// transport's declaration (`transport/ports.rs`). The scenario is read without refusing
    /// contradictions between its transport and its ports (NDP over ports that do not trim):
    /// those are what the setup replaces. `Ok(None)`: the scenario has no traffic.
    pub fn paper_ports(json: &str) -> Result<Option<(&'static PaperPorts, PortSetup)>, Issues> {
        let s = parse::scenario(&json_document(json)?)?;
        let cfg = s.flows.iter().map(|f| &f.cfg).chain(s.workloads.iter().map(|w| &w.cfg)).chain(s.incasts.iter().map(|i| &i.cfg)).next();
        Ok(cfg.map(|c| {
            let decl = c.paper_ports();
            (decl, (decl.setup)(c, &Fabric::of(&s)))
        }))
    }

    /// Settings that run but are probably not what was meant (Homa over fewer queues than its
    /// priority levels, DCTCP where no port marks, ...): one issue per finding, naming the key
    /// to change. `validate` and `run` print them; nothing here stops a run.
    pub fn warnings(&self) -> Vec<Issue> {
        warnings::warnings(self)
    }
}

/// The JSON document the Python front end sends, or the one issue saying why it is not JSON.
fn json_document(text: &str) -> Result<serde_json::Value, Issues> {
    serde_json::from_str(text).map_err(|e| {
        let mut iss = Issues::default();
        iss.push("", format!("not valid JSON: {e}"));
        iss
    })
}
