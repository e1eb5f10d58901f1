//! Named schemes: a congestion control together with the sender settings its paper pairs it
//! with, selectable wherever a congestion control is (`cc = "flash"`, `transport = "pias"`).
//! A scheme sets its defaults over the profile it starts from; keys written in the same table
//! still win.
//!
//! To add one: a line in [`SCHEMES`].

use super::cc::{CcKind, Knobs};
use super::lcp::PptSwitches;
use super::priority::{pias_thresholds, Priority};
use super::{EcnMode, FixedRto, TcpConfig};
use crate::transport::ports::{strict_marked_port, Needs, PaperPorts, PortSetup};
use serde_json::json;
use std::sync::LazyLock;

/// PIAS's switch ports (Bai et al., NSDI 2015 §3.3, §5; the authors' ns-2 runs: K = 65 packets
/// per port at 10 Gb/s): 8 strict-priority queues marking ECN on the port's total occupancy at
/// DCTCP's K.
const PIAS_PORTS: PaperPorts = PaperPorts {
    needs: Needs { marking: true, queues: 8, ..Needs::NONE },
    summary: "8 strict-priority queues, per-port ECN marking at DCTCP's K (PIAS §3.3)",
    setup: strict_marked_port,
};

/// Flash's switch ports (Gao et al. §3.2, Table 1: 8 queues, "queue length threshold for port
/// buffer 65 packets"): PIAS's per-port marking with Flash's priority-based push-out (Algorithm 1).
const FLASH_PORTS: PaperPorts = PaperPorts {
    needs: Needs { marking: true, queues: 8, ..Needs::NONE },
    summary: "8 strict-priority queues, per-port ECN marking at DCTCP's K, priority push-out when full (Flash §3.2, Table 1)",
    setup: |c, f| {
        let mut s = strict_marked_port(c, f);
        s.ports.insert("admission".into(), json!("pushout"));
        PortSetup { note: format!("{}; push-out admission", s.note), ..s }
    },
};

/// A congestion control plus sender settings, under one name.
pub struct Scheme {
    pub name: &'static str,
    pub cc: CcKind,
    pub help: &'static str,
    apply: fn(&mut TcpConfig),
    /// What it needs of the switch ports and its paper's setup (`transport/ports.rs`).
    pub ports: PaperPorts,
}

impl Scheme {
    /// `base` turned into this scheme: its algorithm (knobs reset) and its settings.
    pub fn config(&self, base: TcpConfig) -> TcpConfig {
        let mut c = base;
        c.cc = self.cc;
        c.cc_params = Knobs::default();
        c.ecn = if self.cc.uses_dctcp_ecn() { EcnMode::Dctcp } else { EcnMode::Off };
        c.priority = Priority::Fixed;
        c.rank_remaining = false;
        c.ppt = PptSwitches::default();
        (self.apply)(&mut c);
        c.scheme = Some(self.name);
        c
    }
}

/// α starts at 0 for the DCTCP-based schemes: PIAS and Flash were evaluated in ns-2 (Flash
/// §4), whose DCTCP starts from `dctcp_alpha_ = 0`; with RFC 8257's α = 1 Flash's eq. (1) would put
/// every new flow in the lowest class until α decays.
fn alpha_from_zero(c: &mut TcpConfig) {
    if let Some(i) = c.cc.knobs().iter().position(|k| k.name == "initial_alpha") {
        c.cc_params.0[i] = Some(0.0);
    }
}

/// PIAS's default thresholds: the web-search set the authors publish for load 0.5 (the
/// scenario key `pias_thresholds` picks another set or gives the values).
fn pias_default() -> Priority {
    Priority::Mlfq { n: 8, thresholds: pias_thresholds("websearch@0.5").expect("published set") }
}

/// Flash's Table 1: 8 queues, T_1 = 1.2 Mb (150 000 bytes), E = 3.
pub const FLASH_T1: u64 = 150_000;
pub const FLASH_E: f64 = 3.0;

/// pFabric's sender (SIGCOMM 2013 §4.2): timeouts of about 3 RTTs without back-off, probe mode
/// after 5 timeouts in a row (the authors' ns-2 `prob_cap`), no fast retransmit.
pub const PFABRIC_RTO_RTTS: f64 = 3.0;
pub const PFABRIC_PROBE_AFTER: u32 = 5;

pub const SCHEMES: &[Scheme] = &[
    Scheme {
        name: "pias",
        cc: CcKind::Dctcp,
        help: "PIAS (NSDI 2015): DCTCP + MLFQ tagging, class demoted at bytes-sent thresholds (pias_thresholds)",
        apply: |c| {
            c.priority = pias_default();
            alpha_from_zero(c);
        },
        ports: PIAS_PORTS,
    },
    Scheme {
        name: "l2dct-pias",
        cc: CcKind::L2dct,
        help: "L2DCT windows + PIAS's MLFQ tagging (Flash §2.2's combined baseline)",
        apply: |c| {
            c.priority = pias_default();
            alpha_from_zero(c);
        },
        ports: PIAS_PORTS,
    },
    Scheme {
        name: "flash",
        cc: CcKind::L2dct,
        help: "Flash (Gao et al. §3): L2DCT + class from W = bytes_sent/(1-alpha) per window, T_i = T_1*E^(i-1); pair with admission = \"pushout\"",
        apply: |c| {
            c.priority = Priority::Flash { n: 8, t1: FLASH_T1, e: FLASH_E, aware: false };
            alpha_from_zero(c);
        },
        ports: FLASH_PORTS,
    },
    Scheme {
        name: "flash-ia",
        cc: CcKind::L2dct,
        help: "Flash-IA (Gao et al. §4.4): Flash with the remaining flow size instead of bytes sent",
        apply: |c| {
            c.priority = Priority::Flash { n: 8, t1: FLASH_T1, e: FLASH_E, aware: true };
            alpha_from_zero(c);
        },
        ports: FLASH_PORTS,
    },
    Scheme {
        name: "pfabric",
        cc: CcKind::PFabric,
        help: "pFabric (SIGCOMM 2013): remaining size as packet rank, minimal rate control, fixed ~3 RTT timeout, probe mode; pair with admission = \"pfabric\"",
        apply: |c| {
            c.rank_remaining = true;
            c.dupthresh = 1000;
            c.rack = false;
            c.tlp = false;
            c.fixed_rto = FixedRto::Rtts(PFABRIC_RTO_RTTS);
            c.probe_after = PFABRIC_PROBE_AFTER;
        },
        ports: super::cc::PFABRIC_PORTS,
    },
    // PPT's ablations (SIGCOMM 2024 §6.3, Figs. 15-18); `ppt` itself is the congestion control.
    Scheme {
        name: "ppt-no-lcp-ecn",
        cc: CcKind::Ppt,
        help: "PPT without ECN on the LCP (§6.3, Fig. 15): opportunistic packets Not-ECT, every low-priority ACK clocks a packet",
        apply: |c| c.ppt.lcp_ecn = false,
        ports: super::cc::PPT_PORTS,
    },
    Scheme {
        name: "ppt-no-ewd",
        cc: CcKind::Ppt,
        help: "PPT without exponential window decrease (§6.3, Fig. 16): the LCP window at line rate, one low-priority ACK per packet",
        apply: |c| c.ppt.ewd = false,
        ports: super::cc::PPT_PORTS,
    },
    Scheme {
        name: "ppt-no-sched",
        cc: CcKind::Ppt,
        help: "PPT without flow scheduling (§6.3, Fig. 17): every HCP packet in the connection's class, every LCP packet 4 classes lower",
        apply: |c| c.ppt.sched = false,
        ports: super::cc::PPT_PORTS,
    },
    Scheme {
        name: "ppt-no-ident",
        cc: CcKind::Ppt,
        help: "PPT without buffer-aware identification (§6.3, Fig. 18): every flow starts unidentified at P0/P4",
        apply: |c| c.ppt.ident = false,
        ports: super::cc::PPT_PORTS,
    },
];

/// The scheme called `name`.
pub fn scheme(name: &str) -> Option<&'static Scheme> {
    SCHEMES.iter().find(|s| s.name == name)
}

/// Every name `cc` accepts: the congestion controls and the schemes.
pub static CC_AND_SCHEME_NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| super::cc::CC_NAMES.iter().copied().chain(SCHEMES.iter().map(|s| s.name)).collect());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheme_names_do_not_shadow_congestion_controls() {
        for s in SCHEMES {
            assert!(CcKind::from_name(s.name).is_none(), "{} is both", s.name);
        }
    }

    use crate::sim::testing::run;

    /// Three senders to one receiver through one switch, 10 Gb/s and 1 µs per wire; 1460 B of
    /// payload + 40 B of header = 1500 B packets (1.2 µs each).
    fn incast(cc: &str, admission: &str, buffer: &str, sizes: [u64; 3]) -> String {
        format!(
            r#"
[simulation]
end = "5ms"
[topology]
kind = "star"
hosts = 4
link = {{ rate = "10Gbps", delay = "1us" }}
[queue]
buffer = "{buffer}"
queues = 8
admission = "{admission}"
[transport]
cc = "{cc}"
mss = 1460
header = 40
ack_size = 40
initial_cwnd = 12
delayed_ack = 1
[[flows]]
src = "h1"
dst = "h0"
size = {}
[[flows]]
src = "h2"
dst = "h0"
size = {}
[[flows]]
src = "h3"
dst = "h0"
size = {}
"#,
            sizes[0], sizes[1], sizes[2]
        )
    }

    #[test]
    fn pfabric_completes_flows_in_srpt_order_near_srpt_times() {
        // 20, 40 and 60 packets at once to one receiver, with pFabric's ratios (§5.1: IW = BDP,
        // buffer = 2 BDP, window cap = buffer − 1; here BDP ≈ 6 packets). SRPT on the receiver's
        // link finishes them after 20, 60 and 120 packet times (24, 72, 144 µs) plus the path's
        // fixed part: the first packet's other hop and two wires (1.2 + 2 µs) and the last ACK's
        // return (2 × (32 ns + 1 µs)) ≈ 5.3 µs. The shortest flow preempts everything and must
        // finish as if alone; the others lose a few RTTs each to the fixed 3-RTT timeouts and the
        // restart from one segment that pFabric accepts after being preempted (§4.2).
        let sizes = [20 * 1460, 40 * 1460, 60 * 1460];
        let doc = incast("pfabric", "pfabric", "12pkt", sizes).replace("initial_cwnd = 12", "initial_cwnd = 6\ncc_params = { max_cwnd = 11 }");
        let sim = run(&doc);
        let fct: Vec<f64> = sim.flow_table().fct_ps.iter().map(|f| f.expect("finished") as f64 / 1e6).collect();
        let srpt = [24.0 + 5.3, 72.0 + 5.3, 144.0 + 5.3];
        assert!(fct[0] < fct[1] && fct[1] < fct[2], "SRPT order: {fct:?}");
        assert!((fct[0] / srpt[0] - 1.0).abs() < 0.03, "shortest: {:.1} µs vs {:.1} µs alone", fct[0], srpt[0]);
        for i in 1..3 {
            assert!(fct[i] <= srpt[i] * 1.20 && fct[i] >= srpt[i], "flow {i}: {:.1} µs vs SRPT {:.1} µs", fct[i], srpt[i]);
        }
        // A lossless FIFO port shares the link instead: the shortest flow takes far longer.
        let fifo = run(&incast("newreno", "droptail", "240pkt", sizes));
        let short_fifo = fifo.flow_table().fct_ps[0].unwrap() as f64 / 1e6;
        assert!(short_fifo > 1.8 * fct[0], "FIFO {short_fifo:.1} µs vs pFabric {:.1} µs", fct[0]);
    }

    #[test]
    fn a_single_long_flow_reaches_line_rate_under_every_scheme() {
        for cc in ["dctcp", "l2dct", "pias", "l2dct-pias", "flash", "flash-ia", "pfabric"] {
            let admission = match cc {
                "pfabric" => "pfabric",
                "flash" | "flash-ia" => "pushout",
                _ => "droptail",
            };
            let doc = incast(cc, admission, "240pkt", [5_000_000, 0, 0])
                .replace("[[flows]]\nsrc = \"h2\"\ndst = \"h0\"\nsize = 0\n[[flows]]\nsrc = \"h3\"\ndst = \"h0\"\nsize = 0\n", "")
                .replace("buffer = \"240pkt\"", "buffer = \"240pkt\"\ndiscipline = \"ecn\"\necn_port_threshold = \"65pkt\"");
            let sim = run(&doc);
            let t = sim.flow_table();
            assert_eq!(t.fct_ps.len(), 1, "{cc}");
            let slowdown = t.slowdown[0].expect("finished");
            assert!(slowdown < 1.05, "{cc}: slowdown {slowdown}");
            assert_eq!(t.cc[0], cc);
        }
    }

    #[test]
    fn flash_is_l2dct_with_flash_priority() {
        let c = scheme("flash").unwrap().config(TcpConfig::default());
        assert_eq!(c.cc, CcKind::L2dct);
        assert_eq!(c.ecn, EcnMode::Dctcp);
        assert_eq!(c.priority, Priority::Flash { n: 8, t1: 150_000, e: 3.0, aware: false });
        assert_eq!(c.scheme, Some("flash"));
    }
}
