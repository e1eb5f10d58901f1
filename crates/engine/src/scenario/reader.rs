//! Reading a scenario document (TOML or JSON, as a `serde_json::Value` tree) key by key, collecting
//! every problem with its key path instead of stopping at the first.

use crate::queue::Amount;
use crate::time::{Rate, Time};
use crate::units::{parse_bytes, parse_rate, parse_time};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;

/// One problem in a scenario: where, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// Key path, e.g. `topology.link.rate` or `flows[3].dst`.
    pub path: String,
    pub message: String,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// All problems found in a scenario.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Issues(pub Vec<Issue>);

impl Issues {
    pub fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(Issue { path: path.into(), message: message.into() });
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Issues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        writeln!(f, "the scenario has {n} problem{}:", if n == 1 { "" } else { "s" })?;
        for i in &self.0 {
            writeln!(f, "  - {i}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Issues {}

/// A value as users wrote it, for messages.
pub fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{s}'"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a table".into(),
        other => other.to_string(),
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur.push((prev[j] + (ca != cb) as usize).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest of `options` to `word`, if close enough to be a plausible typo.
pub fn suggest<'a>(word: &str, options: &[&'a str]) -> Option<&'a str> {
    options
        .iter()
        .map(|o| (edit_distance(&word.to_ascii_lowercase(), &o.to_ascii_lowercase()), *o))
        .filter(|&(d, o)| d <= 2.max(o.len() / 3))
        .min()
        .map(|(_, o)| o)
}

/// A table of the document being read; remembers which keys were looked at.
pub struct Table<'a> {
    pub path: String,
    map: &'a Map<String, Value>,
    used: RefCell<Vec<&'static str>>,
}

impl<'a> Table<'a> {
    pub fn new(path: impl Into<String>, map: &'a Map<String, Value>) -> Self {
        Table { path: path.into(), map, used: RefCell::new(Vec::new()) }
    }

    pub fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{}", self.path, key)
        }
    }

    /// Mark `key` as known (so `finish` does not report it) and return its value.
    pub fn raw(&self, key: &'static str) -> Option<&'a Value> {
        self.used.borrow_mut().push(key);
        self.map.get(key)
    }

    /// All entries (for tables whose keys are user-chosen names).
    pub fn entries(&self) -> Vec<(&'a String, &'a Value)> {
        self.map.iter().collect()
    }

    pub fn has(&self, key: &'static str) -> bool {
        self.raw(key).is_some()
    }

    /// Read `key` with `parse`; record a problem if it does not parse.
    pub fn get<T>(&self, key: &'static str, iss: &mut Issues, parse: impl Fn(&Value) -> Result<T, String>) -> Option<T> {
        let v = self.raw(key)?;
        match parse(v) {
            Ok(t) => Some(t),
            Err(e) => {
                iss.push(self.key_path(key), e);
                None
            }
        }
    }

    /// Like `get`, but the key must be present.
    pub fn need<T>(&self, key: &'static str, iss: &mut Issues, what: &str, parse: impl Fn(&Value) -> Result<T, String>) -> Option<T> {
        if self.map.get(key).is_none() {
            self.raw(key);
            iss.push(self.key_path(key), format!("missing; expected {what}"));
            return None;
        }
        self.get(key, iss, parse)
    }

    pub fn table(&self, key: &'static str, iss: &mut Issues) -> Option<Table<'a>> {
        match self.raw(key)? {
            Value::Object(m) => Some(Table::new(self.key_path(key), m)),
            v => {
                iss.push(self.key_path(key), format!("{} is not a table", show(v)));
                None
            }
        }
    }

    /// Report keys nobody asked for, with a suggestion.
    pub fn finish(&self, iss: &mut Issues) {
        let used = self.used.borrow();
        for k in self.map.keys() {
            if used.iter().any(|u| u == k) {
                continue;
            }
            let mut known: Vec<&str> = used.to_vec();
            known.sort_unstable();
            known.dedup();
            let top = ["flows", "simulation", "topology", "queue", "host_queue", "transport", "transports", "routing", "output", "faults"];
            let hint = match suggest(k, &known) {
                Some(s) => format!("; did you mean '{s}'?"),
                None if !self.path.is_empty() && top.contains(&k.as_str()) => format!(
                    "; in TOML every key after [{}] belongs to that table: move '{k}' above the first [section], or write it as its own [{k}] / [[{k}]] table",
                    self.path.split(['.', '[']).next().unwrap_or("")
                ),
                None if known.is_empty() => String::new(),
                None => format!(" (known keys here: {})", known.join(", ")),
            };
            iss.push(self.key_path(k), format!("unknown key{hint}"));
        }
    }
}

// Value parsers: each says what it expected.

pub fn as_str(v: &Value) -> Result<String, String> {
    v.as_str().map(str::to_string).ok_or_else(|| format!("{} is not a string", show(v)))
}

pub fn as_bool(v: &Value) -> Result<bool, String> {
    v.as_bool().ok_or_else(|| format!("{} is not true or false", show(v)))
}

pub fn as_u64(v: &Value) -> Result<u64, String> {
    match v {
        Value::Number(n) if n.as_u64().is_some() => Ok(n.as_u64().unwrap()),
        // 2^64 and above arrive as floats; refuse them rather than clamp to u64::MAX.
        Value::Number(n) if n.as_f64().is_some_and(|f| f >= 18_446_744_073_709_551_616.0) => {
            Err(format!("{} is too large; the most is 2^64 - 1 = {}", show(v), u64::MAX))
        }
        Value::Number(n) if n.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0) => Ok(n.as_f64().unwrap() as u64),
        _ => Err(format!("{} is not a non-negative whole number", show(v))),
    }
}

pub fn as_positive(v: &Value) -> Result<u64, String> {
    match as_u64(v)? {
        0 => Err("0 is not allowed here; expected a whole number of at least 1".into()),
        n => Ok(n),
    }
}

pub fn as_f64(v: &Value) -> Result<f64, String> {
    v.as_f64().ok_or_else(|| format!("{} is not a number", show(v)))
}

pub fn as_probability(v: &Value) -> Result<f64, String> {
    let p = as_f64(v)?;
    if (0.0..1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("{p} is not a probability in [0, 1)"))
    }
}

pub fn as_time(v: &Value) -> Result<Time, String> {
    match v {
        Value::String(s) => parse_time(s),
        Value::Number(n) => Err(format!("{} has no unit; write a duration such as {}", show(v), time_hint(n.as_f64().unwrap_or(0.0)))),
        _ => Err(format!("{} is not a duration such as '5us'", show(v))),
    }
}

pub fn as_rate(v: &Value) -> Result<Rate, String> {
    match v {
        Value::String(s) => parse_rate(s),
        Value::Number(n) => Err(format!("{} has no unit; write a rate such as {}", show(v), rate_hint(n.as_f64().unwrap_or(0.0)))),
        _ => Err(format!("{} is not a rate such as '10Gbps'", show(v))),
    }
}

/// A bare number where a duration belongs: a fraction is most likely seconds (the Python API's
/// habit, `end = 0.001`), a whole number microseconds or milliseconds.
fn time_hint(f: f64) -> String {
    if f.fract() != 0.0 || f < 1.0 {
        let (v, unit) = [(1.0, "s"), (1e3, "ms"), (1e6, "us"), (1e9, "ns")]
            .iter()
            .map(|&(k, u)| (f * k, u))
            .find(|(x, _)| x.abs() >= 1.0)
            .unwrap_or((f * 1e12, "ps"));
        format!("'{}{unit}' if {f} is in seconds", fmt_num(v))
    } else {
        format!("'{f}us' or '{f}ms'")
    }
}

/// A bare number where a rate belongs: large values are most likely bits per second.
fn rate_hint(f: f64) -> String {
    if f >= 1e6 {
        format!("'{}Gbps' if {f} is in bits per second", fmt_num(f / 1e9))
    } else {
        format!("'{f}Gbps'")
    }
}

fn fmt_num(x: f64) -> String {
    let s = format!("{:.6}", x);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The largest size results can hold: flow tables carry sizes as signed 64-bit integers.
pub const MAX_BYTES: u64 = i64::MAX as u64;

/// A byte size: "120KB", "1500B", or a bare integer meaning bytes.
pub fn as_bytes(v: &Value) -> Result<u64, String> {
    let b = match v {
        Value::String(s) => parse_bytes(s),
        Value::Number(_) => as_u64(v),
        _ => Err(format!("{} is not a size such as '120KB'", show(v))),
    }?;
    if b > MAX_BYTES {
        return Err(format!("{} is larger than the {MAX_BYTES} B (2^63 - 1) that results can hold", show(v)));
    }
    Ok(b)
}

/// A buffer or threshold amount: "250pkt" / "250 packets" or a byte size such as "375KB".
pub fn as_amount(v: &Value) -> Result<Amount, String> {
    if let Value::String(s) = v {
        let t = s.trim();
        for suffix in ["packets", "packet", "pkts", "pkt", "p"] {
            if let Some(n) = t.strip_suffix(suffix) {
                return n
                    .trim()
                    .parse::<u64>()
                    .map(Amount::Packets)
                    .map_err(|_| format!("'{s}' is not a packet count; write e.g. '250pkt'"));
            }
        }
        if !t.is_empty() && t.parse::<f64>().is_ok() {
            // A bare number could be packets or bytes; guessing either is wrong half the time.
            return Err(format!("'{s}' has no unit; write packets as '{t}pkt' or bytes as '{t}B' (or '{t}KB')"));
        }
        return parse_bytes(s)
            .map(Amount::Bytes)
            .map_err(|_| format!("'{s}' is not a buffer size; write packets as '250pkt' or bytes as '375KB'"));
    }
    Err(format!("{} is not a buffer size; write packets as '250pkt' or bytes as '375KB'", show(v)))
}

/// One of a fixed set of names, with a suggestion on a near miss.
pub fn as_choice(options: &'static [&'static str]) -> impl Fn(&Value) -> Result<String, String> {
    move |v| {
        let s = as_str(v).map_err(|e| format!("{e}; expected one of: {}", options.join(", ")))?;
        if options.contains(&s.as_str()) {
            return Ok(s);
        }
        let hint = suggest(&s, options).map(|o| format!("did you mean '{o}'? ")).unwrap_or_default();
        Err(format!("'{s}' is not known; {hint}expected one of: {}", options.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_catch_typos() {
        assert_eq!(suggest("rtae", &["rate", "delay"]), Some("rate"));
        assert_eq!(suggest("dealy", &["rate", "delay"]), Some("delay"));
        assert_eq!(suggest("zzzzzz", &["rate", "delay"]), None);
    }

    #[test]
    fn json_text_gives_back_every_float_exactly() {
        // The front end sends a scenario as JSON text or as a dict read value by value
        // (crates/py/src/document.rs): both must give the same f64. Python writes a float as its
        // shortest round-trip text, as Rust's `{:?}` does; serde_json's default quick parse can
        // miss such text by a step (hence its `float_roundtrip` feature, which Cargo.toml sets).
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from_bits(x);
            if !v.is_finite() {
                continue;
            }
            let back: f64 = serde_json::from_str(&format!("{v:?}")).unwrap();
            assert_eq!(back.to_bits(), v.to_bits(), "{v:?}");
        }
    }

    #[test]
    fn numbers_out_of_range_are_refused_not_clamped() {
        let big: Value = serde_json::from_str("18446744073709551616").unwrap();
        assert!(as_u64(&big).unwrap_err().contains("too large"));
        assert_eq!(as_u64(&Value::from(u64::MAX)), Ok(u64::MAX));
        assert!(as_bytes(&Value::from(u64::MAX)).unwrap_err().contains("2^63 - 1"));
        assert_eq!(as_bytes(&Value::from(i64::MAX as u64)), Ok(i64::MAX as u64));
    }

    #[test]
    fn bare_numbers_suggest_the_unit_they_likely_meant() {
        assert!(as_time(&Value::from(0.001)).unwrap_err().contains("'1ms' if 0.001 is in seconds"));
        assert!(as_time(&Value::from(20)).unwrap_err().contains("'20us' or '20ms'"));
        assert!(as_rate(&Value::from(1e10)).unwrap_err().contains("'10Gbps' if 10000000000 is in bits per second"));
    }

    #[test]
    fn amounts() {
        assert_eq!(as_amount(&Value::from("250pkt")), Ok(Amount::Packets(250)));
        assert_eq!(as_amount(&Value::from("65 packets")), Ok(Amount::Packets(65)));
        assert_eq!(as_amount(&Value::from("375KB")), Ok(Amount::Bytes(375_000)));
        assert!(as_amount(&Value::from(250)).is_err());
        // A quoted bare number is refused for the missing unit, not read as bytes.
        for s in ["150000", "100", " 1.5 "] {
            let e = as_amount(&Value::from(s)).unwrap_err();
            assert!(e.contains("has no unit") && e.contains("pkt") && e.contains("B'"), "{e}");
        }
    }
}
