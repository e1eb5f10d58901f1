//! Reading the `[circuit]` and `[tor]` sections of a hybrid (`kind = "rdcn"`) scenario.

use super::parse::RdcnLayout;
use super::reader::*;
use crate::queue::Amount;
use crate::rdcn::{EcnMarks, Etalon, Feedback, RdcnSpec, Resize, Slot, TorPolicy, WeekPlan};
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
    profiles: &BTreeMap<String, TransportConfig>,
    iss: &mut Issues,
) -> Option<RdcnSpec> {
    if !is_rdcn {
        for key in ["circuit", "tor"] {
            if t.has(key) {
                iss.push(key, "only applies to a hybrid network: set [topology] kind = \"rdcn\"");
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
    let policy = match t.table("tor", iss) {
        Some(tt) => tor(&tt, profiles, iss),
        None => Some(TorPolicy::Etalon(Etalon { voq: DEFAULT_VOQ, resize: None, ecn: None, feedback: Feedback::Off })),
    };
    let (plan, view_bin, view_before) = plan?;
    let l = layout?;
    let policy = policy?;
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
    })
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
