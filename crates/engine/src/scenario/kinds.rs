//! Transport tables of the kinds that are not TCP (`kind = "ndp"`, `"homa"`, `"aeolus"`): their keys,
//! ranges and defaults. TCP's keys are read in `parse.rs::tcp_config`.

use super::reader::*;
use crate::time::Time;
use crate::transport::homa::config::{MAX_AEOLUS_UNSCHEDULED, MAX_CUTOFFS};
use crate::transport::homa::HomaConfig;
use crate::transport::ndp::NdpConfig;
use crate::transport::TransportConfig;

/// Transport kinds a `[transport]` table may name.
pub const KINDS: &[&str] = &["tcp", "ndp", "homa", "aeolus"];

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

/// `[transport] kind = "homa"` (Homa, SIGCOMM 2018): keys over `base`.
pub fn homa_config(t: &Table, base: HomaConfig, iss: &mut Issues) -> HomaConfig {
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
    if let Some(v) = t.get("rtt_bytes", iss, as_bytes) {
        if v == 0 || v > 1 << 40 {
            iss.push(t.key_path("rtt_bytes"), format!("{v} B is not a usable RTTbytes (1 B to 1 TB; PPT uses 45KB at 40/100 Gb/s, the Homa paper 9.7KB at 10 Gb/s)"));
        } else {
            c.rtt_bytes = v;
        }
    }
    if let Some(v) = t.get("overcommitment", iss, as_positive) {
        if v > 1024 {
            iss.push(t.key_path("overcommitment"), format!("{v} messages; the degree of overcommitment is 1 to 1024 (PPT uses 2)"));
        } else {
            c.overcommit = v as u32;
        }
    }
    if let Some(v) = t.get("priorities", iss, as_positive) {
        if !(2..=8).contains(&v) {
            iss.push(t.key_path("priorities"), format!("{v} levels; Homa needs 2 to 8 priority levels (one unscheduled, one scheduled at least)"));
        } else {
            c.priorities = v as u8;
        }
    }
    match t.get("scheduled_priorities", iss, as_positive) {
        Some(v) if v < c.priorities as u64 => c.scheduled = v as u8,
        Some(v) => iss.push(t.key_path("scheduled_priorities"), format!("{v} levels; must leave at least one of the {} priorities for unscheduled packets", c.priorities)),
        // The Homa simulator uses as many scheduled levels as the overcommitment degree.
        None => c.scheduled = (c.overcommit.min(c.priorities as u32 - 1)) as u8,
    }
    if let Some(v) = t.raw("unscheduled_cutoffs") {
        let list: Option<Vec<u64>> = v.as_array().and_then(|a| a.iter().map(|x| as_bytes(x).ok()).collect());
        let levels = (c.priorities - c.scheduled) as usize;
        match list {
            Some(l) if l.len() < levels && l.len() <= MAX_CUTOFFS && l.windows(2).all(|w| w[0] < w[1]) => {
                c.cutoffs = [u64::MAX; MAX_CUTOFFS];
                c.cutoffs[..l.len()].copy_from_slice(&l);
                c.n_cutoffs = l.len() as u8;
                c.cutoffs_given = true;
            }
            _ => iss.push(
                t.key_path("unscheduled_cutoffs"),
                format!("{} is not an increasing list of at most {} message sizes (one fewer than the {levels} unscheduled levels), e.g. [\"1KB\", \"10KB\"]", show(v), levels.saturating_sub(1)),
            ),
        }
    }
    if let Some(v) = positive_time(t, "resend_interval", iss) {
        c.resend_interval = v;
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
        "homa" | "aeolus" => {
            let aeolus = kind == "aeolus";
            let base = match inherit {
                Some(TransportConfig::Homa(c)) if c.aeolus == aeolus => c,
                _ => HomaConfig { aeolus, ..HomaConfig::default() },
            };
            let c = homa_config(t, base, iss);
            if aeolus && c.unscheduled_packets() > MAX_AEOLUS_UNSCHEDULED {
                iss.push(
                    t.key_path("rtt_bytes"),
                    format!("{} B is {} packets of {} B; Aeolus tracks at most {MAX_AEOLUS_UNSCHEDULED} unscheduled packets per message (lower rtt_bytes or raise mss)", c.rtt_bytes, c.unscheduled_packets(), c.mss),
                );
            }
            Some(TransportConfig::Homa(c))
        }
        _ => None,
    }
}

/// The transports a flow may name directly (as it names a congestion control): each kind's
/// default configuration.
pub fn default_of(name: &str) -> Option<TransportConfig> {
    match name {
        "ndp" => Some(TransportConfig::Ndp(NdpConfig::default())),
        "homa" => Some(TransportConfig::Homa(HomaConfig::default())),
        "aeolus" => Some(TransportConfig::Homa(HomaConfig { aeolus: true, ..HomaConfig::default() })),
        _ => None,
    }
}

/// A transport kind for `fabricsim list transports`: name, description, and its keys as
/// (key, default as a scenario would write it, meaning).
pub type KindEntry = (&'static str, &'static str, &'static [(&'static str, &'static str, &'static str)]);

/// Every transport kind and its parameters (the defaults are checked against the configs' own
/// in the tests).
pub const TRANSPORT_CATALOG: &[KindEntry] = &[
    ("tcp", "TCP with a congestion control (cc = \"...\"; see `fabricsim list cc`)", &[]),
    (
        "ndp",
        "NDP (Handley et al., SIGCOMM 2017): full first window, per-packet paths, trimming switches, receiver PULLs paced at line rate",
        &[
            ("mss", "8936B", "payload per data packet (9 KB jumbo frames less the header, §6)"),
            ("header", "64B", "header bytes; what a trimmed packet keeps (§3.1)"),
            ("control_size", "64B", "ACK, NACK and PULL size"),
            ("initial_window", "23", "packets sent unpulled in the first RTT (§6.2: IW 23; §6.1 up to 30)"),
            ("rto", "1ms", "retransmission timeout after the last sign of progress (§3.2)"),
            ("pull_rate", "1.0", "PULL pacing as a fraction of the receiver's line rate (§3.2)"),
        ],
    ),
    (
        "homa",
        "Homa (Montazeri et al., SIGCOMM 2018): RTTbytes unscheduled, receiver SRPT grants with overcommitment, network priorities, RESEND/BUSY",
        &[
            ("mss", "1448B", "payload per data packet"),
            ("header", "52B", "header bytes per data packet"),
            ("control_size", "52B", "GRANT, RESEND, BUSY and ACK size"),
            ("rtt_bytes", "45000B", "RTTbytes: unscheduled bytes per message and granted-not-received bytes per granted message (§3.2; PPT's 40/100G setting; the paper: 9.7KB at 10G)"),
            ("overcommitment", "2", "messages a receiver grants at once, k (§3.5; PPT §6.2)"),
            ("priorities", "8", "switch priority levels (§3.4), classes 0 (highest) to priorities-1"),
            ("scheduled_priorities", "overcommitment", "lowest levels used by scheduled packets; the rest are unscheduled (§3.4)"),
            ("unscheduled_cutoffs", "from the workload", "message sizes splitting the unscheduled levels so each carries equal unscheduled bytes (§3.4); listed flows without it use one level"),
            ("resend_interval", "1ms", "silence after which a receiver sends RESEND (§3.7); senders retransmit after twice it"),
        ],
    ),
    (
        "aeolus",
        "Aeolus on Homa (Hu et al., SIGCOMM 2020): Homa whose unscheduled packets are droppable at switches with selective dropping ([queue] selective_drop), followed by a PROBE; the receiver has lost ones resent first as scheduled packets",
        &[
            ("mss", "1448B", "payload per data packet"),
            ("header", "52B", "header bytes per data packet"),
            ("control_size", "52B", "GRANT, RESEND, BUSY, ACK and PROBE size"),
            ("rtt_bytes", "45000B", "unscheduled bytes per message, at most 64 packets (PPT §6.2: 45KB for Homa and Aeolus)"),
            ("overcommitment", "2", "messages a receiver grants at once (PPT §6.2)"),
            ("priorities", "8", "switch priority levels, as Homa"),
            ("scheduled_priorities", "overcommitment", "lowest levels used by scheduled packets, as Homa"),
            ("unscheduled_cutoffs", "from the workload", "as Homa"),
            ("resend_interval", "1ms", "Homa's timeouts; Aeolus leaves scheduled losses to them (§3.3)"),
        ],
    ),
];
