//! Reading the `[circuit]` and `[tor]` sections of a hybrid (`kind = "rdcn"`) scenario.

use super::parse::RdcnLayout;
use super::reader::*;
use crate::queue::Amount;
use crate::rdcn::acceltor;
use crate::rdcn::{AccelTor, Acceleration, Blocking, CaseIv, Design, EcnMarks, ElephantSpec, Etalon, Forget, Feedback, RdcnSpec, Resize, Selection, Slot, TorPolicy, Unblocking, WeekPlan};
use crate::time::Rate;
use crate::time::Time;
use crate::transport::tcp::EcnMode;
use crate::transport::TransportConfig;
use serde_json::Value;
use std::collections::BTreeMap;

/// Etalon's default VOQ capacity (Mukerjee et al. §3: 16 packets).
pub const DEFAULT_VOQ: Amount = Amount::Packets(16);
/// Week-folded view bins.
pub const DEFAULT_VIEW_BIN: Time = Time::from_us(10);

/// Read [circuit] and [tor]; `layout` is known when the topology itself was valid.
pub(super) fn sections(
    t: &Table,
    is_rdcn: bool,
    layout: Option<RdcnLayout>,
    profiles: &mut BTreeMap<String, TransportConfig>,
    iss: &mut Issues,
) -> Option<RdcnSpec> {
    if !is_rdcn {
        for key in ["circuit", "tor"] {
            if t.has(key) {
                iss.push(key, "only applies to a hybrid network: set [topology] kind = \"rdcn\"");
            }
        }
        // The bypass by name: it is the [tor] key most likely to be tried on another topology.
        if let Some(Value::Object(m)) = t.raw("tor") {
            for key in ["ack_bypass", "ack_bypass_delay"] {
                if let Some(v) = m.get(key) {
                    iss.push(format!("tor.{key}"), format!("{} only applies to a hybrid network (ACKs diverted around its ToRs and switches): set [topology] kind = \"rdcn\"", show(v)));
                }
            }
        }
        return None;
    }
    // A day must carry at least one packet: the largest one's serialization on the circuit.
    let max_packet = profiles.values().map(|p| p.framing()).map(|f| (f.payload + f.header) as u64).max().unwrap_or(1500);
    let min_day = layout.map(|l| (l.circuit_rate.serialization(max_packet), max_packet));
    let plan = match t.table("circuit", iss) {
        Some(c) => circuit(&c, layout.map(|l| l.racks), min_day, iss),
        None => {
            if !t.has("circuit") {
                iss.push("circuit", "missing; a hybrid network needs a circuit schedule, e.g. [circuit] schedule = \"strobe\", day = \"180us\", night = \"20us\"");
            }
            None
        }
    };
    let tor_table = t.table("tor", iss);
    let ack_bypass = tor_table.as_ref().and_then(|tt| bypass(tt, iss));
    let is_etalon = tor_table.as_ref().is_none_or(|tt| matches!(tt.raw("policy").and_then(|v| v.as_str()), None | Some("etalon")));
    // Etalon's keys are checked even when the schedule has problems; the segregating designs
    // derive their values from the schedule, so they are read once it is valid.
    let etalon = match &tor_table {
        Some(tt) if is_etalon => tor(tt, profiles, iss),
        None => Some(TorPolicy::Etalon(Etalon { voq: DEFAULT_VOQ, resize: None, ecn: None, feedback: Feedback::Off })),
        Some(_) => None,
    };
    let (plan, view_bin, view_before) = plan?;
    let l = layout?;
    let mut host_rto_min = None;
    let policy = match tor_table {
        Some(tt) if !is_etalon => {
            let (p, rto) = segregated(&tt, &plan, &l, max_packet, profiles, iss)?;
            host_rto_min = rto;
            Some(p)
        }
        _ => etalon,
    };
    let policy = policy?;
    if let (Some(_), mode @ (Feedback::Circuit | Feedback::Resize)) = (ack_bypass, policy.feedback_mode()) {
        let fb = if mode == Feedback::Circuit { "circuit" } else { "resize" };
        iss.push("tor.ack_bypass", format!("true conflicts with feedback = \"{fb}\": bypassed ACKs never reach the ToR that would mark them; turn one off"));
        return None;
    }
    let view_before = view_before.unwrap_or(Time(plan.week().0 / 2));
    Some(RdcnSpec {
        racks: l.racks,
        hosts_per_rack: l.hosts_per_rack,
        circuit_rate: l.circuit_rate,
        circuit_delay: l.circuit_delay,
        plan,
        policy,
        view_bin,
        view_before,
        host_rto_min,
        ack_bypass,
    })
}

/// `ack_bypass = true` and `ack_bypass_delay` (default 0) in [tor]: the delay of a bypassed ACK,
/// or `None` when the bypass is off.
fn bypass(t: &Table, iss: &mut Issues) -> Option<Time> {
    let on = match t.raw("ack_bypass").map(as_bool) {
        None => false,
        Some(Ok(b)) => b,
        Some(Err(e)) => {
            t.raw("ack_bypass_delay");
            iss.push(t.key_path("ack_bypass"), e);
            return None;
        }
    };
    let delay = match t.raw("ack_bypass_delay") {
        None => Time::ZERO,
        Some(Value::String(v)) if v.trim_start().starts_with('-') => {
            iss.push(t.key_path("ack_bypass_delay"), format!("'{v}' is negative; a bypassed ACK arrives a duration >= 0 after it is sent, e.g. '0us' or '2us'"));
            return None;
        }
        Some(v) => match as_time(v) {
            Ok(d) => d,
            Err(e) => {
                iss.push(t.key_path("ack_bypass_delay"), e);
                return None;
            }
        },
    };
    if !on {
        if let Some(v) = t.raw("ack_bypass_delay") {
            iss.push(t.key_path("ack_bypass_delay"), format!("{} only applies with ack_bypass = true", show(v)));
        }
        return None;
    }
    Some(delay)
}

/// Refuse a day no packet fits in; true when the day is long enough (or unknown).
fn check_day(c: &Table, key: &str, day: Option<Time>, min_day: Option<(Time, u64)>, iss: &mut Issues) -> bool {
    match (day, min_day) {
        (Some(d), Some((min, bytes))) if d < min => {
            iss.push(
                c.key_path(key),
                format!("'{d}' is shorter than one {bytes} B packet on the circuit ({min}); no packet fits in the day, so make it at least {min}"),
            );
            false
        }
        _ => true,
    }
}

fn circuit(c: &Table, racks: Option<usize>, min_day: Option<(Time, u64)>, iss: &mut Issues) -> Option<(WeekPlan, Time, Option<Time>)> {
    let kind = c.get("schedule", iss, as_choice(&["strobe", "list"])).unwrap_or_else(|| "strobe".into());
    let view_bin = c.get("view_bin", iss, as_time).unwrap_or(DEFAULT_VIEW_BIN);
    if view_bin == Time::ZERO {
        iss.push(c.key_path("view_bin"), "'0' is not a positive duration");
    }
    let view_before = c.get("view_before", iss, as_time);
    let plan = match kind.as_str() {
        "strobe" => {
            let day = c.need("day", iss, "the circuit day length such as '180us'", as_time);
            let night = c.need("night", iss, "the reconfiguration time such as '20us'", as_time);
            let ok = if day == Some(Time::ZERO) {
                iss.push(c.key_path("day"), "'0' is not a positive duration; a day must last some time");
                false
            } else {
                check_day(c, "day", day, min_day, iss)
            };
            match (racks, day.filter(|_| ok), night) {
                (Some(r), Some(d), Some(n)) => Some(WeekPlan::strobe(r, d, n)),
                _ => None,
            }
        }
        _ => {
            for k in ["day", "night"] {
                if c.has(k) {
                    iss.push(c.key_path(k), "only applies to schedule = \"strobe\"; a list gives each slot its own night and day");
                }
            }
            slots(c, racks, min_day, iss)
        }
    };
    c.finish(iss);
    Some((plan?, view_bin, view_before))
}

/// `slots = [{ night = "20us", day = "180us", matching = [1, 2, 0] }, ...]`; matching entry i is
/// the rack that rack i's circuit reaches, or -1 for none.
fn slots(c: &Table, racks: Option<usize>, min_day: Option<(Time, u64)>, iss: &mut Issues) -> Option<WeekPlan> {
    let items = match c.raw("slots") {
        Some(Value::Array(a)) if !a.is_empty() => a,
        Some(v) => {
            iss.push(c.key_path("slots"), format!("{} is not a non-empty list of slots such as [{{ night = \"20us\", day = \"180us\", matching = [1, 0] }}]", show(v)));
            return None;
        }
        None => {
            iss.push(c.key_path("slots"), "missing; schedule = \"list\" needs slots = [{ night = \"20us\", day = \"180us\", matching = [1, 0] }, ...]");
            return None;
        }
    };
    let mut out = Vec::new();
    let before = iss.0.len();
    for (i, item) in items.iter().enumerate() {
        let path = format!("{}[{i}]", c.key_path("slots"));
        let Value::Object(m) = item else {
            iss.push(path, "is not a table such as { night = \"20us\", day = \"180us\", matching = [1, 0] }");
            continue;
        };
        let s = Table::new(path, m);
        let night = s.need("night", iss, "a duration such as '20us'", as_time);
        let day = s.need("day", iss, "a duration such as '180us'", as_time);
        let matching = s.need("matching", iss, "a list with, per rack, the rack its circuit reaches (-1 = none)", |v| match v {
            Value::Array(a) => a
                .iter()
                .map(|x| match x.as_i64() {
                    Some(-1) => Ok(None),
                    Some(r) if r >= 0 => Ok(Some(r as u32)),
                    _ => Err(format!("{} is not a rack index or -1", show(x))),
                })
                .collect::<Result<Vec<_>, _>>(),
            _ => Err(format!("{} is not a list of rack indices", show(v))),
        });
        if let (Some(m), Some(r)) = (&matching, racks) {
            if m.len() != r {
                iss.push(s.key_path("matching"), format!("has {} entries; expected one per rack ({r})", m.len()));
            } else if !crate::rdcn::schedule::is_matching(m) {
                iss.push(
                    s.key_path("matching"),
                    format!(
                        "[{}] is not a matching: each rack may reach one other rack (not itself, index < {r}) and no rack may be reached twice",
                        m.iter().map(|d| d.map_or("-1".to_string(), |d| d.to_string())).collect::<Vec<_>>().join(", ")
                    ),
                );
            }
        }
        if let (Some(n), Some(d), Some(m)) = (night, day, matching) {
            if n + d == Time::ZERO {
                iss.push(s.key_path("day"), "a slot must last some time");
            } else {
                check_day(&s, "day", Some(d), min_day, iss);
            }
            out.push(Slot { night: n, day: d, matching: m });
        }
        s.finish(iss);
    }
    if iss.0.len() > before {
        return None;
    }
    racks.map(|r| WeekPlan::new(r, out))
}

fn tor(t: &Table, profiles: &BTreeMap<String, TransportConfig>, iss: &mut Issues) -> Option<TorPolicy> {
    t.get("policy", iss, as_choice(&["etalon"]));
    let positive = |key: &'static str, tt: &Table, iss: &mut Issues| -> Option<Amount> {
        match tt.get(key, iss, as_amount)? {
            Amount::Packets(0) | Amount::Bytes(0) => {
                iss.push(tt.key_path(key), "must hold at least one packet");
                None
            }
            a => Some(a),
        }
    };
    let voq = positive("voq", t, iss);
    let resize = t.table("resize", iss).and_then(|r| {
        let small = positive("small", &r, iss);
        let large = positive("large", &r, iss);
        let tau = r.need("tau", iss, "how long before its day a pair's VOQ grows, e.g. '1800us'", as_time);
        for (k, v) in [("small", small), ("large", large)] {
            if v.is_none() && !r.has(k) {
                iss.push(r.key_path(k), "missing; expected a VOQ size such as '16pkt'");
            }
        }
        r.finish(iss);
        Some(Resize { small: small?, large: large?, tau: tau? })
    });
    if voq.is_some() && resize.is_some() {
        iss.push(t.key_path("voq"), "conflicts with tor.resize, which sets the VOQ size (small outside the resizing window, large inside)");
    }
    let ecn = match t.raw("ecn_threshold") {
        None => None,
        Some(Value::Object(m)) => {
            let e = Table::new(t.key_path("ecn_threshold"), m);
            let small = positive("small", &e, iss);
            let large = positive("large", &e, iss);
            e.finish(iss);
            match (small, large) {
                (Some(s), Some(l)) => Some(EcnMarks { small: s, large: l }),
                _ => {
                    iss.push(e.path.clone(), "expected { small = \"10pkt\", large = \"31pkt\" } (thresholds with small and with resized VOQs)");
                    None
                }
            }
        }
        Some(_) => positive("ecn_threshold", t, iss).map(|k| EcnMarks { small: k, large: k }),
    };
    let feedback = match t.get("feedback", iss, as_choice(&["off", "circuit", "resize"])).as_deref() {
        Some("circuit") => Feedback::Circuit,
        Some("resize") => {
            if resize.is_none() && !t.has("resize") {
                iss.push(t.key_path("feedback"), "'resize' marks from the start of the resizing window, but tor.resize is not set; use 'circuit' or add resize = { small, large, tau }");
            }
            Feedback::Resize
        }
        _ => Feedback::Off,
    };
    if feedback != Feedback::Off {
        for (name, p) in profiles.iter().filter_map(|(n, p)| Some((n, p.tcp()?))) {
            if p.ecn != EcnMode::Off {
                iss.push(
                    t.key_path("feedback"),
                    format!("carries circuit state in the ECE bit of ACKs, but transport '{name}' uses ECN ({}); with feedback use a transport without ECN (reTCP)", p.cc.name()),
                );
            }
        }
    }
    t.finish(iss);
    Some(TorPolicy::Etalon(Etalon { voq: voq.unwrap_or(DEFAULT_VOQ), resize, ecn, feedback }))
}

/// AccelToR's buffers (§IV-B): HP and LP 150 KB each, calendar queues of B = 500 KB.
pub const ACCELTOR_HP: Amount = Amount::Bytes(150_000);
pub const ACCELTOR_LP: Amount = Amount::Bytes(150_000);
pub const ACCELTOR_QUEUE: Amount = Amount::Bytes(500_000);
/// Blocking (§IV-B): a 300 KB packet queue, 1.5 MB shared by the per-destination queues.
pub const BLOCKING_PACKET: Amount = Amount::Bytes(300_000);
pub const BLOCKING_POOL: Amount = Amount::Bytes(1_500_000);
/// Unblocking (§IV-B): one 1.8 MB buffer for both ports.
pub const UNBLOCKING_SHARED: Amount = Amount::Bytes(1_800_000);
/// |F_i| = 80 elephants per rack pair (§IV-B).
pub const DEFAULT_ELEPHANTS: u64 = 80;
/// Count-Min dimensions: ε = e/1024 ≈ 0.27 % of the ToR's mouse bytes, δ = e^-4 ≈ 1.8 %.
pub const DEFAULT_SKETCH_WIDTH: u64 = 1024;
pub const DEFAULT_SKETCH_DEPTH: u64 = 4;
/// A flow is a heavy-hitter candidate from 1 MB on (pFabric's web-search and data-mining
/// workloads put a few percent of flows above it).
pub const DEFAULT_HEAVY: u64 = 1_000_000;
/// An elephant silent for this many weeks has left.
pub const DEFAULT_IDLE_WEEKS: u64 = 16;
/// The authors' ns-3 ToR (RDCNSimulate `Ipv4EpsRouting::RouteInput`): Case IV drops a flow for
/// 520 µs after its first drop (`case4 = "window"`).
pub const AUTHORS_CASE4_WINDOW: Time = Time::from_us(520);
/// Their warm-up threshold (`SetSSthresh(4)` in `FatTreeHelper::EPSRouteInstall`) and the
/// packets a flow must have sent in its last run for it not to double (`Flow::sentp_thresh`).
pub const AUTHORS_WARMUP: u64 = 4;
pub const AUTHORS_WARMUP_DOUBLE_BELOW: u64 = 25;

/// Base round trip over one path: hosts' links both ways, `mid` hops of (rate, delay) between
/// the ToRs, a full packet out and an ACK back, no queueing.
fn base_rtt(host: (Rate, Time), mid: &[(Rate, Time)], data: u64, ack: u64) -> Time {
    let mut t = Time::ZERO;
    for bytes in [data, ack] {
        t = t + host.0.serialization(bytes) + host.1 + host.0.serialization(bytes) + host.1;
        for &(r, d) in mid {
            t = t + r.serialization(bytes) + d;
        }
    }
    t
}

/// `[tor]` with policy = "acceltor", "blocking" or "unblocking": the design, its elephant
/// selection, and the RTO_min to give the hosts (applied to every TCP profile here).
fn segregated(
    t: &Table,
    plan: &WeekPlan,
    l: &RdcnLayout,
    max_packet: u64,
    profiles: &mut BTreeMap<String, TransportConfig>,
    iss: &mut Issues,
) -> Option<(TorPolicy, Option<Time>)> {
    let policy = t.get("policy", iss, as_choice(&["etalon", "acceltor", "blocking", "unblocking"]))?;
    for k in ["voq", "resize", "ecn_threshold", "feedback"] {
        if t.has(k) {
            iss.push(t.key_path(k), format!("only applies to policy = \"etalon\" (this ToR is '{policy}')"));
        }
    }
    for (k, owner) in [("acceltor", "acceltor"), ("blocking", "blocking"), ("unblocking", "unblocking")] {
        if owner != policy && t.has(k) {
            iss.push(t.key_path(k), format!("only applies to policy = \"{owner}\" (this ToR is '{policy}')"));
        }
    }
    let amount = |tt: &Table, key: &'static str, default: Amount, iss: &mut Issues| -> Amount {
        match tt.get(key, iss, as_amount) {
            Some(Amount::Packets(0)) | Some(Amount::Bytes(0)) => {
                iss.push(tt.key_path(key), "must hold at least one packet");
                default
            }
            Some(Amount::Bytes(b)) if b < max_packet => {
                iss.push(tt.key_path(key), format!("{b} B is smaller than one packet ({max_packet} B)"));
                default
            }
            Some(a) => a,
            None => default,
        }
    };
    // Equal days and nights: eqs. (1) and (6) take one τ_day and one τ_night.
    let s0 = &plan.slots()[0];
    let (day, night) = (s0.day, s0.night);
    if plan.slots().iter().any(|s| s.day != day || s.night != night) {
        iss.push("circuit.slots", format!("policy = \"{policy}\" needs equal days and equal nights in every slot (eqs. (1), (6) and (7) of AccelToR take one τ_day and one τ_night)"));
        return None;
    }
    let week = plan.week();
    let ack = profiles.values().filter_map(|p| p.tcp()).map(|c| c.ack_size as u64).max().unwrap_or(52);
    let rtt_pkt_base = base_rtt(l.host, &[l.packet, l.packet], max_packet, ack);
    let rtt_cir_base = base_rtt(l.host, &[(l.circuit_rate, l.circuit_delay)], max_packet, ack);

    // The elephants.
    let elephants = {
        let empty = serde_json::Map::new();
        let e = t.table("elephants", iss);
        let e = e.unwrap_or_else(|| Table::new(t.key_path("elephants"), &empty));
        let per_pair = e.get("per_pair", iss, as_positive).unwrap_or(DEFAULT_ELEPHANTS);
        let sel = e.get("selection", iss, as_choice(&["sketch", "oracle"])).unwrap_or_else(|| "sketch".into());
        let width = e.get("width", iss, as_positive).unwrap_or(DEFAULT_SKETCH_WIDTH);
        let depth = e.get("depth", iss, as_positive).unwrap_or(DEFAULT_SKETCH_DEPTH);
        if sel == "oracle" {
            for k in ["width", "depth"] {
                if e.has(k) {
                    iss.push(e.key_path(k), "only applies to selection = \"sketch\"");
                }
            }
        }
        if width > 1 << 24 || depth > 32 {
            iss.push(e.key_path("width"), format!("a {width} × {depth} sketch is too large (width ≤ 16777216, depth ≤ 32)"));
        }
        let heavy = e.get("heavy", iss, as_bytes).unwrap_or(DEFAULT_HEAVY);
        // A blocked elephant still sends once per RTO, and RTO_min is about a week (eqs. 6, 7);
        // after k timeouts in a row its RTO has doubled k times. 16 weeks of silence (4 backoffs)
        // mean it has left; shorter, and stalled elephants turn into mice and flood the HP queue.
        let idle = e.get("idle", iss, as_time).unwrap_or(week.times(DEFAULT_IDLE_WEEKS));
        if idle == Time::ZERO {
            iss.push(e.key_path("idle"), "'0' is not a positive duration");
        }
        let forget = match e.get("forget", iss, as_choice(&["as-counted", "keep-count"])).as_deref() {
            Some("keep-count") => Forget::KeepCount,
            _ => Forget::AsCounted,
        };
        let n = l.racks;
        let pairs = (n * n.saturating_sub(1)) as u64;
        let record_pairs = e.get("record_pairs", iss, as_positive);
        if let Some(r) = record_pairs.filter(|&r| r > pairs) {
            iss.push(e.key_path("record_pairs"), format!("{r} exceeds the {n} × {} = {pairs} ordered rack pairs", n.saturating_sub(1)));
        }
        e.finish(iss);
        ElephantSpec {
            record_pairs: record_pairs.filter(|&r| r < pairs).map(|r| r as usize),
            per_pair: per_pair.min(1 << 20) as usize,
            heavy,
            idle,
            forget,
            selection: if sel == "oracle" { Selection::Oracle } else { Selection::Sketch { width: width as usize, depth: depth as usize } },
        }
    };
    let rto_choice = |tt: &Table, derived: Time, iss: &mut Issues| -> Option<Time> {
        match tt.raw("rto_min") {
            None => Some(derived),
            Some(Value::String(s)) if s == "auto" => Some(derived),
            Some(Value::String(s)) if s == "transport" => None,
            Some(v) => match as_time(v) {
                Ok(x) => Some(x),
                Err(_) => {
                    iss.push(tt.key_path("rto_min"), format!("{} is not 'auto' (the paper's equation), 'transport' (keep each transport's min_rto) or a duration such as '12ms'", show(v)));
                    None
                }
            },
        }
    };
    let empty = serde_json::Map::new();
    let sub = |key: &'static str, iss: &mut Issues| t.table(key, iss).unwrap_or_else(|| Table::new(t.key_path(key), &empty));
    let (design, rto) = match policy.as_str() {
        "acceltor" => {
            let a = sub("acceltor", iss);
            let hp = amount(&a, "hp", ACCELTOR_HP, iss);
            let lp = amount(&a, "lp", ACCELTOR_LP, iss);
            let queue = amount(&a, "queue", ACCELTOR_QUEUE, iss);
            let rtt_pkt = a.get("rtt_packet", iss, as_time).unwrap_or(rtt_pkt_base);
            let rtt_cir = a.get("rtt_circuit", iss, as_time).unwrap_or(rtt_cir_base);
            if rtt_cir == Time::ZERO {
                iss.push(a.key_path("rtt_circuit"), "'0' is not a positive duration");
            }
            let m = match a.get("m", iss, as_u64) {
                Some(m) if m > 30 => {
                    iss.push(a.key_path("m"), format!("{m} RTTs of slow start (a window of 2^{m} packets) is beyond any buffer; use at most 30"));
                    None
                }
                Some(m) => Some(m as u32),
                None => Some(acceltor::acceleration_rtts(acceltor::rtts_per_day(day, rtt_cir))),
            }?;
            let k1 = a.get("k1", iss, as_u64).map(|k| k as u32).unwrap_or_else(|| acceltor::k1(m, rtt_pkt, day, night));
            let margin = a.get("safe_margin", iss, as_bool).unwrap_or(true);
            let k = match a.get("k", iss, as_positive) {
                Some(k) => {
                    if a.has("safe_margin") {
                        iss.push(a.key_path("safe_margin"), "conflicts with k, which sets the number of calendar queues itself");
                    }
                    k as u32
                }
                None => k1 + 1 + margin as u32,
            };
            if k as usize > plan.slots().len() * 64 {
                iss.push(a.key_path("k"), format!("{k} calendar queues is far beyond the {} days of a week", plan.slots().len()));
            }
            // §III-F: 2^m·|F_i| packets must fit in one calendar queue; §IV-G sends the overflow
            // through the LP queue when they do not.
            let fits = !queue.exceeded_by((1u64 << m) * elephants.per_pair as u64, (1u64 << m) * elephants.per_pair as u64 * max_packet);
            let overflow_to_lp = match a.get("overflow", iss, as_choice(&["auto", "lp", "drop"])).as_deref() {
                Some("lp") => true,
                Some("drop") => false,
                _ => !fits,
            };
            let case4 = match a.get("case4", iss, as_choice(&["drop", "window"])).as_deref() {
                Some("window") => CaseIv::Window(a.get("case4_window", iss, as_time).unwrap_or(AUTHORS_CASE4_WINDOW)),
                _ => {
                    if a.has("case4_window") {
                        iss.push(a.key_path("case4_window"), "only applies to case4 = \"window\"");
                    }
                    CaseIv::Drop
                }
            };
            let acceleration = match a.get("acceleration", iss, as_choice(&["time", "count"])).as_deref() {
                Some("count") => {
                    let warmup = a.get("warmup", iss, as_positive).unwrap_or(AUTHORS_WARMUP);
                    let below = a.get("warmup_double_below", iss, as_u64).unwrap_or(AUTHORS_WARMUP_DOUBLE_BELOW);
                    if warmup > 1 << 20 {
                        iss.push(a.key_path("warmup"), format!("{warmup} packets is beyond any window; use at most 1048576"));
                    }
                    let then_calendar = a.get("after_warmup", iss, as_choice(&["one", "all"])).as_deref() == Some("all");
                    Acceleration::Count { warmup: warmup.min(1 << 20) as u32, double_below: below.min(u32::MAX as u64) as u32, then_calendar }
                }
                _ => {
                    for k in ["warmup", "warmup_double_below", "after_warmup"] {
                        if a.has(k) {
                            iss.push(a.key_path(k), "only applies to acceleration = \"count\"");
                        }
                    }
                    Acceleration::Time
                }
            };
            // The authors' packet port (`Prio2Device`): LP by the bytes left in the flow, which the
            // hosts' TCP writes into every data packet's rank (parse.rs `rank_for_lp_left`).
            let lp_left = a.get("lp_left", iss, as_bytes);
            if lp_left == Some(0) {
                iss.push(a.key_path("lp_left"), "a size of 0 B would send every packet, ACKs included, to LP; give one such as '52224B' (the authors' 50 KB rule)");
            }
            let rto_min = acceltor::rto_min(week, day, m, rtt_pkt);
            let rto = rto_choice(&a, rto_min, iss);
            if rto == Some(Time::ZERO) {
                iss.push(
                    a.key_path("rto_min"),
                    format!("eq. (6) gives τ_week − τ_day − (m+1)·RTT_pkt = {week} − {day} − {}·{rtt_pkt} ≤ 0; set rto_min to a duration or 'transport'", m + 1),
                );
            }
            a.finish(iss);
            (Design::Accel(AccelTor { hp, lp, queue, rtt_pkt, rtt_cir, m, k1, k, rto_min: rto.unwrap_or(rto_min), overflow_to_lp, case4, acceleration, lp_left }), rto)
        }
        "blocking" => {
            let b = sub("blocking", iss);
            let packet_queue = amount(&b, "packet_queue", BLOCKING_PACKET, iss);
            let circuit_pool = amount(&b, "circuit_pool", BLOCKING_POOL, iss);
            let rto_min = acceltor::blocking_rto_min(week, day);
            let rto = rto_choice(&b, rto_min, iss);
            b.finish(iss);
            (Design::Blocking(Blocking { packet_queue, circuit_pool, rto_min: rto.unwrap_or(rto_min) }), rto)
        }
        _ => {
            let u = sub("unblocking", iss);
            let shared = amount(&u, "shared", UNBLOCKING_SHARED, iss);
            // Unblocking keeps the transports' own RTO_min ([22] tunes no host).
            let rto = u.get("rto_min", iss, as_time);
            u.finish(iss);
            (Design::Unblocking(Unblocking { shared }), rto)
        }
    };
    t.finish(iss);
    if let Some(rto) = rto {
        for p in profiles.values_mut() {
            if let TransportConfig::Tcp(c) = p {
                c.rto.min = rto;
                if c.rto.max < rto {
                    c.rto.max = rto;
                }
            }
        }
    }
    Some((TorPolicy::Segregated(design, elephants), rto))
}
