//! The queue keys of a port (`[queue]`, `[host_queue]`, a link's `queue = {...}`) and the
//! switch-wide `[switch]` section. Reference: docs/SCENARIOS.md "Queues".

use super::reader::*;
use crate::queue::{Admission, Amount, MarkAt, Marking, Order, QueueSpec, RandomDrop, RedAction, RedCount, RedSpec, Sched, CLASSES, MAX_QUEUES};
use serde_json::Value;

/// DRR's default quantum: one 1500-byte packet per unit of weight.
pub const DEFAULT_QUANTUM: u32 = 1500;
/// NDP trims a data packet to a 64-byte header (Handley et al. §3.1).
pub const DEFAULT_TRIM_BYTES: u32 = 64;

/// A list of `n ≤ max` items or one item for all, read by `one`.
fn list<T: Copy>(q: &Table, key: &'static str, max: usize, iss: &mut Issues, one: impl Fn(&Value) -> Result<T, String>) -> Option<Vec<T>> {
    let v = q.raw(key)?;
    match v {
        Value::Array(a) => {
            if a.is_empty() || a.len() > max {
                iss.push(q.key_path(key), format!("has {} entries; give 1 to {max}", a.len()));
                return None;
            }
            let mut out = Vec::new();
            for (i, x) in a.iter().enumerate() {
                match one(x) {
                    Ok(t) => out.push(t),
                    Err(e) => {
                        iss.push(format!("{}[{i}]", q.key_path(key)), e);
                        return None;
                    }
                }
            }
            Some(out)
        }
        x => match one(x) {
            Ok(t) => Some(vec![t]),
            Err(e) => {
                iss.push(q.key_path(key), e);
                None
            }
        },
    }
}

/// Per-queue values: a list with one entry per queue, or one value for every queue.
fn per_queue<T: Copy>(q: &Table, key: &'static str, n: usize, iss: &mut Issues, one: impl Fn(&Value) -> Result<T, String>) -> Option<Vec<T>> {
    let v = list(q, key, MAX_QUEUES, iss, one)?;
    match v.len() {
        1 if !matches!(q.raw(key), Some(Value::Array(_))) => Some(vec![v[0]; n]),
        l if l == n => Some(v),
        l => {
            iss.push(q.key_path(key), format!("has {l} entries but the port has {n} queues (queues = {n})"));
            None
        }
    }
}

pub(super) fn same_unit(a: Amount, b: Amount) -> bool {
    matches!((a, b), (Amount::Packets(_), Amount::Packets(_)) | (Amount::Bytes(_), Amount::Bytes(_)))
}

fn not_below(k: Amount, limit: Option<Amount>) -> bool {
    match (k, limit) {
        (Amount::Packets(k), Some(Amount::Packets(b))) => k >= b,
        (Amount::Bytes(k), Some(Amount::Bytes(b))) => k >= b,
        _ => false,
    }
}

fn positive_weight(v: &Value) -> Result<u32, String> {
    match v.as_u64() {
        Some(w) if (1..=1_000_000).contains(&w) => Ok(w as u32),
        _ => Err(format!("{} is not a weight; give a whole number from 1 to 1000000", show(v))),
    }
}

fn alpha(v: &Value) -> Result<f64, String> {
    match v.as_f64() {
        Some(a) if a > 0.0 && a.is_finite() => Ok(a),
        _ => Err(format!("{} is not a dynamic-threshold factor; give a number above 0 (e.g. 1 or 0.5)", show(v))),
    }
}

/// A marking threshold, or `"off"` (no threshold for that queue).
fn amount_or_off(v: &Value) -> Result<Option<Amount>, String> {
    if v.as_str() == Some("off") {
        return Ok(None);
    }
    as_amount(v).map(Some)
}

/// Read a queue table over a base spec.
pub(super) fn queue_table(q: &Table, base: QueueSpec, max_packet: u64, shared_buffer: bool, iss: &mut Issues) -> QueueSpec {
    let mut spec = base;
    if let Some(v) = q.raw("buffer") {
        if v.as_str() == Some("unlimited") {
            spec.limit = None;
        } else {
            match as_amount(v) {
                Ok(Amount::Packets(0)) => iss.push(q.key_path("buffer"), "'0pkt' cannot hold a single packet"),
                Ok(Amount::Bytes(b)) if b < max_packet => iss.push(
                    q.key_path("buffer"),
                    format!("{} is smaller than one packet ({max_packet} B with the largest MSS and headers)", show(v)),
                ),
                Ok(a) => spec.limit = Some(a),
                Err(e) => iss.push(q.key_path("buffer"), e),
            }
        }
    }
    if base.send_limit.is_some() {
        match q.raw("send_limit") {
            Some(v) if v.as_str() == Some("unlimited") => spec.send_limit = None,
            Some(v) => match as_amount(v) {
                Ok(Amount::Packets(n)) if n > 0 => spec.send_limit = Some(n),
                _ => iss.push(q.key_path("send_limit"), format!("{} is not a packet count such as '100pkt' (or \"unlimited\")", show(v))),
            },
            None => {}
        }
    }

    // Queues and classes.
    if let Some(n) = q.get("queues", iss, as_positive) {
        if n as usize > MAX_QUEUES {
            iss.push(q.key_path("queues"), format!("{n} queues; a port has 1 to {MAX_QUEUES}"));
        } else {
            spec.queues = n as u8;
            for c in 0..CLASSES {
                spec.class_map[c] = (c as u8).min(spec.queues - 1);
            }
        }
    }
    let n = spec.queues as usize;
    if let Some(map) = list(q, "classes", CLASSES, iss, as_u64) {
        for (c, &qi) in map.iter().enumerate() {
            if qi as usize >= n {
                iss.push(format!("{}[{c}]", q.key_path("classes")), format!("class {c} maps to queue {qi}, but the port has {n} queues (0..{})", n - 1));
            } else {
                spec.class_map[c] = qi as u8;
            }
        }
        // Classes not listed share the last listed class's queue.
        for c in map.len()..CLASSES {
            spec.class_map[c] = spec.class_map[map.len() - 1];
        }
    }
    if let Some(limits) = per_queue(q, "queue_buffer", n, iss, as_amount) {
        for (i, l) in limits.into_iter().enumerate() {
            spec.queue_limits[i] = Some(l);
        }
    }

    // Scheduling.
    let sched = q.get("scheduler", iss, as_choice(&["strict", "drr", "wrr"]));
    let weights = per_queue(q, "weights", n, iss, positive_weight);
    let quantum = q.get("quantum", iss, as_bytes);
    match sched.as_deref() {
        Some("drr") | Some("wrr") => {
            let mut w = [1u32; MAX_QUEUES];
            if let Some(ws) = &weights {
                w[..ws.len()].copy_from_slice(ws);
            }
            spec.sched = if sched.as_deref() == Some("drr") {
                let qt = quantum.unwrap_or(DEFAULT_QUANTUM as u64);
                if qt == 0 || qt > u32::MAX as u64 {
                    iss.push(q.key_path("quantum"), "must be between 1 B and 4 GB");
                }
                Sched::Drr { weights: w, quantum: qt.clamp(1, u32::MAX as u64) as u32 }
            } else {
                if q.has("quantum") {
                    iss.push(q.key_path("quantum"), "only applies to scheduler = \"drr\" (wrr counts packets)");
                }
                Sched::Wrr { weights: w }
            };
        }
        Some(_) => {
            if q.has("weights") || q.has("quantum") {
                iss.push(q.key_path("weights"), "weights and quantum only apply to scheduler = \"drr\" or \"wrr\"");
            }
            spec.sched = Sched::Strict;
        }
        None if q.has("weights") && !q.has("scheduler") => iss.push(q.key_path("scheduler"), "missing; set scheduler = \"drr\" or \"wrr\" to use weights"),
        None => {}
    }

    // Order within each queue.
    match q.get("order", iss, as_choice(&["fifo", "flow_rr"])).as_deref() {
        Some("flow_rr") => spec.order = Order::FlowRr,
        Some(_) => spec.order = Order::Fifo,
        None => {}
    }

    // Shared buffer.
    if let Some(a) = per_queue_classes(q, iss) {
        if !shared_buffer {
            iss.push(q.key_path("alpha"), "needs a shared buffer: set [switch] shared_buffer (e.g. \"12MB\")");
        } else {
            spec.shared_alpha = Some(a);
        }
    }

    // Admission.
    match q.get("admission", iss, as_choice(&["droptail", "pushout", "pfabric", "trim"])).as_deref() {
        Some("droptail") => spec.admission = Admission::DropTail,
        Some("pushout") => spec.admission = Admission::PushOut,
        Some("pfabric") => spec.admission = Admission::PFabric,
        Some("trim") => {
            let b = q.get("trim_size", iss, as_bytes).unwrap_or(DEFAULT_TRIM_BYTES as u64);
            if b == 0 || b > max_packet {
                iss.push(q.key_path("trim_size"), format!("{b} B; a trimmed header must be 1 B to one packet ({max_packet} B)"));
            }
            if n < 2 {
                iss.push(q.key_path("admission"), "\"trim\" needs queues >= 2: queue 0 holds headers, data goes to the others");
            }
            let rts = q.get("return_to_sender", iss, as_bool).unwrap_or(false);
            let tail = match q.get("trim_tail", iss, as_probability) {
                Some(p) => (p * 100.0).round() as u8,
                None => 0,
            };
            spec.admission = Admission::Trim { header_bytes: b.clamp(1, u32::MAX as u64) as u32, return_to_sender: rts, tail_percent: tail };
        }
        _ => {}
    }
    if q.has("trim_tail") && !matches!(spec.admission, Admission::Trim { .. }) {
        iss.push(q.key_path("trim_tail"), "only applies to admission = \"trim\"");
    }
    if q.has("return_to_sender") && !matches!(spec.admission, Admission::Trim { .. }) {
        iss.push(q.key_path("return_to_sender"), "only applies to admission = \"trim\"");
    }
    if q.has("trim_size") && !matches!(spec.admission, Admission::Trim { .. }) {
        iss.push(q.key_path("trim_size"), "only applies to admission = \"trim\"");
    }

    // Aeolus's selective dropping of droppable (first-RTT unscheduled) packets.
    if let Some(v) = q.raw("selective_drop") {
        if v.as_str() == Some("off") {
            spec.selective_drop = None;
        } else {
            match as_amount(v) {
                Ok(Amount::Packets(0) | Amount::Bytes(0)) => iss.push(q.key_path("selective_drop"), format!("{} admits no droppable packet at all; give a threshold such as \"24KB\" or \"off\"", show(v))),
                Ok(a) => spec.selective_drop = Some(a),
                Err(e) => iss.push(q.key_path("selective_drop"), e),
            }
        }
    }

    random_drop(q, &mut spec, iss);

    // Marking.
    let disc = q.get("discipline", iss, as_choice(&["droptail", "ecn", "red"]));
    let ks = per_queue(q, "ecn_threshold", n, iss, amount_or_off);
    let kp = per_queue(q, "ecn_port_threshold", n, iss, amount_or_off);
    let at = match q.get("mark_at", iss, as_choice(&["enqueue", "dequeue", "end"])).as_deref() {
        Some("dequeue") => MarkAt::Dequeue,
        Some("end") => MarkAt::End,
        _ => MarkAt::Enqueue,
    };
    for (i, k) in ks.iter().flatten().enumerate() {
        if k.is_some_and(|k| not_below(k, spec.limit) || not_below(k, spec.queue_limits[i])) {
            let key = if matches!(q.raw("ecn_threshold"), Some(Value::Array(_))) { format!("{}[{i}]", q.key_path("ecn_threshold")) } else { q.key_path("ecn_threshold") };
            iss.push(key, "is not below the buffer size: no packet would ever be marked");
            break;
        }
    }
    for (i, k) in kp.iter().flatten().enumerate() {
        if k.is_some_and(|k| not_below(k, spec.limit)) {
            let key = if matches!(q.raw("ecn_port_threshold"), Some(Value::Array(_))) { format!("{}[{i}]", q.key_path("ecn_port_threshold")) } else { q.key_path("ecn_port_threshold") };
            iss.push(key, "is not below the buffer size: no packet would ever be marked");
            break;
        }
    }
    match disc.as_deref() {
        Some("ecn") => {
            if ks.is_none() && kp.is_none() {
                if !q.has("ecn_threshold") && !q.has("ecn_port_threshold") {
                    iss.push(q.key_path("ecn_threshold"), "missing; discipline = \"ecn\" needs a marking threshold such as '65pkt' (or ecn_port_threshold)");
                }
            } else {
                let (mut queue, mut port) = ([None; MAX_QUEUES], [None; MAX_QUEUES]);
                for (i, k) in ks.iter().flatten().enumerate() {
                    queue[i] = *k;
                }
                for (i, k) in kp.iter().flatten().enumerate() {
                    port[i] = *k;
                }
                spec.marking = Marking::Threshold { queue, port, at };
            }
        }
        Some("red") => {
            if q.has("ecn_threshold") || q.has("ecn_port_threshold") {
                iss.push(q.key_path("ecn_threshold"), "does not apply to discipline = \"red\"; set [red] min_th and max_th");
            }
            if let Some(r) = red_table(q, spec.limit, iss) {
                spec.marking = Marking::Red(r);
            }
        }
        Some(_) => {
            if q.has("ecn_threshold") || q.has("ecn_port_threshold") {
                iss.push(q.key_path("ecn_threshold"), "only applies to discipline = \"ecn\"");
            }
            spec.marking = Marking::None;
        }
        None if (q.has("ecn_threshold") || q.has("ecn_port_threshold")) && !q.has("discipline") => {
            iss.push(q.key_path("discipline"), "missing; set discipline = \"ecn\" to use ecn_threshold")
        }
        None => {}
    }
    if q.has("mark_at") && disc.as_deref() != Some("ecn") {
        iss.push(q.key_path("mark_at"), "only applies to discipline = \"ecn\"");
    }
    if q.has("red") && disc.as_deref() != Some("red") {
        iss.push(q.key_path("red"), "only applies to discipline = \"red\"");
    }
    device_queue(q, &mut spec, iss);
    if spec.order == Order::FlowRr && spec.admission == Admission::PFabric {
        iss.push(q.key_path("order"), "\"flow_rr\" cannot be combined with admission = \"pfabric\", which sends by rank");
    }
    if matches!(spec.marking, Marking::Threshold { at: MarkAt::End, .. }) && spec.device_queue.is_some() {
        iss.push(q.key_path("mark_at"), "\"end\" cannot be combined with device_queue: the packet in service left the discipline earlier");
    }
    q.finish(iss);
    spec
}

/// `random_drop = { above = "16KB", probability = 0.1 }` (or "off"): htsim's `RandomQueue` band
/// (queue/random_drop.rs). The threshold must lie below the buffer, or nothing would be in the band.
fn random_drop(q: &Table, spec: &mut QueueSpec, iss: &mut Issues) {
    if q.raw("random_drop").and_then(Value::as_str) == Some("off") {
        spec.random_drop = None;
        return;
    }
    if !q.has("random_drop") {
        return;
    }
    let Some(r) = q.table("random_drop", iss) else { return };
    let above = r.need("above", iss, "a threshold such as '16KB' or '4pkt'", as_amount);
    // (0, 1]: htsim's RandomQueue takes a drop probability of 1 (every arrival in the band).
    let p = r.need("probability", iss, "a probability such as 0.1 (htsim's RandomQueue)", |v: &Value| {
        let p = as_f64(v)?;
        if p == 0.0 {
            Err("0 drops nothing; give a probability such as 0.1, or random_drop = \"off\"".to_string())
        } else if p > 0.0 && p <= 1.0 {
            Ok(p)
        } else {
            Err(format!("{p} is not a probability in (0, 1]"))
        }
    });
    r.finish(iss);
    let (Some(above), Some(p)) = (above, p) else { return };
    if spec.limit.is_some_and(|b| !same_unit(above, b)) {
        iss.push(r.key_path("above"), format!("{} is in other units than the buffer; give both in packets or both in bytes", crate::queue::describe::amount(above)));
    } else if matches!(above, Amount::Packets(0) | Amount::Bytes(0)) {
        iss.push(r.key_path("above"), "0 puts every arrival in the band, even at an idle port; give a threshold such as '16KB'");
    } else if not_below(above, spec.limit) {
        iss.push(r.key_path("above"), format!("{} is not below the buffer size: no arrival would be in the band", crate::queue::describe::amount(above)));
    } else {
        spec.random_drop = Some(RandomDrop { above, probability: p });
    }
}

/// `device_queue`: ns-3's NetDevice transmit queue below the discipline (queue/device.rs), in
/// packets, or "off". Refused with the settings that would read the port's whole occupancy
/// (a port-wide marking threshold, selective dropping, a shared buffer), where it is not clear
/// whether the device's packets count.
fn device_queue(q: &Table, spec: &mut QueueSpec, iss: &mut Issues) {
    let Some(v) = q.raw("device_queue") else { return };
    if v.as_str() == Some("off") {
        spec.device_queue = None;
        return;
    }
    match as_amount(v) {
        Ok(Amount::Packets(n)) if (1..=1_000_000).contains(&n) => spec.device_queue = Some(n as u32),
        _ => {
            iss.push(q.key_path("device_queue"), format!("{} is not a packet count from '1pkt' to '1000000pkt' (or \"off\"); ns-3's default is '100pkt'", show(v)));
            return;
        }
    }
    let port_wide = matches!(spec.marking, Marking::Threshold { port, .. } if port.iter().any(Option::is_some));
    let clash = [(port_wide, "ecn_port_threshold"), (spec.selective_drop.is_some(), "selective_drop"), (spec.shared_alpha.is_some(), "alpha (a shared buffer)")];
    if let Some((_, what)) = clash.iter().find(|(on, _)| *on) {
        iss.push(q.key_path("device_queue"), format!("cannot be combined with {what}: it reads the port's whole occupancy"));
    }
}

/// `alpha`: one factor for every class or a list per class.
fn per_queue_classes(q: &Table, iss: &mut Issues) -> Option<[f64; CLASSES]> {
    let a = list(q, "alpha", CLASSES, iss, alpha)?;
    let mut out = [a[a.len() - 1]; CLASSES];
    out[..a.len()].copy_from_slice(&a);
    Some(out)
}

/// `[queue.red]`.
fn red_table(q: &Table, limit: Option<Amount>, iss: &mut Issues) -> Option<RedSpec> {
    let Some(r) = q.table("red", iss) else {
        iss.push(q.key_path("red"), "missing; discipline = \"red\" needs red = { min_th = \"20pkt\", max_th = \"60pkt\" }");
        return None;
    };
    let min = r.need("min_th", iss, "a threshold such as '20pkt' or '30KB'", as_amount);
    let max = r.need("max_th", iss, "a threshold such as '60pkt' or '90KB'", as_amount);
    let mut spec = RedSpec::new(min.unwrap_or(Amount::Packets(1)), max.unwrap_or(Amount::Packets(1)));
    if let Some(p) = r.get("max_p", iss, as_probability) {
        spec.max_p = p;
    }
    // (0, 1]: 1 makes the average the instantaneous queue (ns-3's QW = 1, step marking).
    if let Some(w) = r.get("weight", iss, as_f64) {
        if !(w > 0.0 && w <= 1.0) {
            iss.push(r.key_path("weight"), format!("{w}: give a weight in (0, 1] (0 would never update the average)"));
        }
        spec.weight = w;
    }
    spec.gentle = r.get("gentle", iss, as_bool).unwrap_or(spec.gentle);
    if let Some(a) = r.get("action", iss, as_choice(&["mark", "drop"])) {
        spec.action = if a == "drop" { RedAction::Drop } else { RedAction::Mark };
    }
    spec.hard_drop = r.get("hard_drop", iss, as_bool).unwrap_or(false);
    spec.wait = r.get("wait", iss, as_bool).unwrap_or(false);
    if let Some(c) = r.get("count", iss, as_choice(&["fj93", "ns3"])) {
        spec.count = if c == "ns3" { RedCount::Ns3 } else { RedCount::Fj93 };
    }
    if let Some(m) = r.get("mean_packet", iss, as_bytes) {
        spec.mean_packet = m.clamp(1, u32::MAX as u64) as u32;
    }
    r.finish(iss);
    let (min, max) = (min?, max?);
    if !same_unit(min, max) {
        iss.push(r.key_path("max_th"), "must be in the same unit as min_th (both packets or both bytes)");
        return None;
    }
    let v = |a: Amount| match a {
        Amount::Packets(n) | Amount::Bytes(n) => n,
    };
    if v(min) > v(max) {
        iss.push(r.key_path("min_th"), format!("{} is above max_th ({}); RED needs min_th <= max_th", v(min), v(max)));
        return None;
    }
    if not_below(min, limit) {
        iss.push(r.key_path("min_th"), "is not below the buffer size: RED would never act before the buffer overflows");
    }
    Some(spec)
}
