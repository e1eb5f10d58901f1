//! Transport tables of the kinds that are not TCP (`kind = "ndp"`, `kind = "homa"`): their keys,
//! ranges and defaults. TCP's keys are read in `parse.rs::tcp_config`.

use super::reader::*;
use crate::time::Time;
use crate::transport::ndp::NdpConfig;
use crate::transport::TransportConfig;

/// Transport kinds a `[transport]` table may name.
pub const KINDS: &[&str] = &["tcp", "ndp", "homa"];

/// A packet payload (`mss`) in 1..=65000 B.
fn payload(t: &Table, key: &'static str, iss: &mut Issues) -> Option<u32> {
    let v = t.get(key, iss, as_bytes)?;
    if v == 0 || v > 65_000 {
        iss.push(t.key_path(key), format!("{v} B is not a usable payload size (1 to 65000 bytes)"));
        return None;
    }
    Some(v as u32)
}

/// A header or control packet size in 1..=10000 B.
fn small_size(t: &Table, key: &'static str, iss: &mut Issues) -> Option<u32> {
    let v = t.get(key, iss, as_bytes)?;
    if v == 0 || v > 10_000 {
        iss.push(t.key_path(key), format!("{v} B is not a usable size (1 to 10000 bytes)"));
        return None;
    }
    Some(v as u32)
}

fn positive_time(t: &Table, key: &'static str, iss: &mut Issues) -> Option<Time> {
    match t.get(key, iss, as_time)? {
        Time::ZERO => {
            iss.push(t.key_path(key), "'0' is not a positive duration");
            None
        }
        d => Some(d),
    }
}

/// `[transport] kind = "ndp"` (NDP, SIGCOMM 2017): keys over `base`.
pub fn ndp_config(t: &Table, base: NdpConfig, iss: &mut Issues) -> NdpConfig {
    let mut c = base;
    if let Some(v) = payload(t, "mss", iss) {
        c.mss = v;
    }
    if let Some(v) = small_size(t, "header", iss) {
        c.header = v;
    }
    if let Some(v) = small_size(t, "control_size", iss) {
        c.control = v;
    }
    if let Some(v) = t.get("initial_window", iss, as_positive) {
        if v > 100_000 {
            iss.push(t.key_path("initial_window"), format!("{v} packets; the first window is at most 100000 packets"));
        } else {
            c.iw = v as u32;
        }
    }
    if let Some(v) = positive_time(t, "rto", iss) {
        c.rto = v;
    }
    if let Some(v) = t.get("pull_rate", iss, as_f64) {
        if v > 0.0 && v <= 1.0 {
            c.pull_rate = v;
        } else {
            iss.push(t.key_path("pull_rate"), format!("{v} is not a fraction of the line rate in (0, 1] (the paper pulls at 1)"));
        }
    }
    t.finish(iss);
    c
}

/// The kind a transport table names (`None`: not given or not known, already reported).
pub fn kind_of(t: &Table, iss: &mut Issues) -> Option<String> {
    t.get("kind", iss, as_choice(KINDS))
}

/// A non-TCP transport table: `kind` decides; `inherit` is the profile it extends when it is
/// of the same kind (named profiles inherit from `[transport]`).
pub fn config(t: &Table, kind: &str, inherit: Option<TransportConfig>, iss: &mut Issues) -> Option<TransportConfig> {
    match kind {
        "ndp" => {
            let base = match inherit {
                Some(TransportConfig::Ndp(c)) => c,
                _ => NdpConfig::default(),
            };
            Some(TransportConfig::Ndp(ndp_config(t, base, iss)))
        }
        _ => None,
    }
}

/// The transports a flow may name directly (as it names a congestion control): each kind's
/// default configuration.
pub fn default_of(name: &str) -> Option<TransportConfig> {
    match name {
        "ndp" => Some(TransportConfig::Ndp(NdpConfig::default())),
        _ => None,
    }
}
