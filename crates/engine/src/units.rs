//! Parsing of the unit-carrying strings users write in scenarios: "10Gbps", "5us", "120KB".
//!
//! Decimal prefixes throughout (1 KB = 1000 B, 1 Gbps = 10^9 b/s), as in networking papers;
//! binary sizes are written "KiB"/"MiB". Each parser returns a message that says what was expected,
//! so scenario errors can name the key, the value and a fix.

use crate::time::{Rate, Time};

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    let num: String = s[..end].chars().filter(|&c| c != '_').collect();
    let v: f64 = num.parse().ok()?;
    Some((v, s[end..].trim()))
}

/// Multiply a decimal string exactly enough: values like "1.2us" must become 1_200_000 ps, not
/// 1_199_999. We round to the nearest integer unit, which is exact for any value with at most
/// 15 significant digits.
fn scaled(v: f64, unit: u64) -> Option<u64> {
    let x = (v * unit as f64).round();
    if !x.is_finite() || x < 0.0 || x > u64::MAX as f64 {
        None
    } else {
        Some(x as u64)
    }
}

/// Does the text after a number start with an exponent ("1e30Gbps" reads as 1 and "e30Gbps")?
fn has_exponent(unit: &str) -> bool {
    let mut c = unit.chars();
    matches!(c.next(), Some('e' | 'E')) && c.next().is_some_and(|d| d.is_ascii_digit() || d == '-' || d == '+')
}

/// Parse a duration such as "5us", "1.2 ms", "200ns", "1s", "30000ps".
pub fn parse_time(s: &str) -> Result<Time, String> {
    let err = || format!("'{s}' is not a duration; write a number and a unit, e.g. '5us', '10ms', '1s' (units: ps, ns, us, ms, s)");
    let (v, unit) = split_number(s).ok_or_else(err)?;
    if has_exponent(unit) {
        return Err(format!("'{s}' is not a duration; write the number without an exponent, e.g. '1500us'"));
    }
    let mult = match unit {
        "ps" => Time::PS,
        "ns" => Time::NS,
        "us" | "µs" => Time::US,
        "ms" => Time::MS,
        "s" | "sec" => Time::S,
        "" => return Err(format!("'{s}' has no unit; write e.g. '{s}us' or '{s}ms'")),
        _ => return Err(err()),
    };
    // The number is finite and not negative (digits and a point): only overflow fails here.
    scaled(v, mult).map(Time).ok_or_else(|| format!("'{s}' is longer than the {} s (about 213 days) a time can hold", u64::MAX / Time::S))
}

/// Parse a rate such as "10Gbps", "400 Gbps", "100Mbps", "2.5Gbps".
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let err = |hint: &str| format!("'{s}' is not a rate; {hint}");
    let (v, unit) = split_number(s).ok_or_else(|| err("write e.g. '10Gbps' (units: bps, Kbps, Mbps, Gbps, Tbps)"))?;
    if has_exponent(unit) {
        return Err(err("write the number without an exponent, e.g. '400Gbps'"));
    }
    let mult: u64 = match unit {
        "bps" => 1,
        "Kbps" | "kbps" => 1_000,
        "Mbps" => 1_000_000,
        "Gbps" => 1_000_000_000,
        "Tbps" => 1_000_000_000_000,
        "" => return Err(err(&format!("it has no unit; try '{s}Gbps'"))),
        u => {
            let lower = u.to_ascii_lowercase();
            let guess = if lower.starts_with('g') {
                "Gbps"
            } else if lower.starts_with('m') {
                "Mbps"
            } else if lower.starts_with('k') {
                "Kbps"
            } else if lower.starts_with('t') {
                "Tbps"
            } else {
                "Gbps"
            };
            let num = &s.trim()[..s.trim().len() - u.len()].trim();
            return Err(err(&format!("try '{num}{guess}'")));
        }
    };
    match scaled(v, mult) {
        Some(0) => Err(format!("'{s}' is not a positive rate; a link needs a rate above 0, e.g. '10Gbps'")),
        None => Err(format!("'{s}' is above the largest rate, {} Tbps (64-bit bits per second)", u64::MAX / 1_000_000_000_000)),
        Some(b) => Ok(Rate(b)),
    }
}

/// Parse a byte size such as "1500B", "120KB", "1MB", "64KiB", or in bits "1.2Mb" (150 000 B).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let err = || format!("'{s}' is not a size; write e.g. '1500B', '120KB', '10MB' (units: B, KB, MB, GB, KiB, MiB, GiB; bits: Kb, Mb, Gb)");
    let (v, unit) = split_number(s).ok_or_else(err)?;
    let mult: u64 = match unit {
        "B" | "" => 1,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        // Sizes papers give in bits (Flash's T_1 = 1.2 Mb).
        "Kb" => 125,
        "Mb" => 125_000,
        "Gb" => 125_000_000,
        _ => return Err(err()),
    };
    scaled(v, mult).ok_or_else(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_and_exponents_are_named_as_such() {
        // 2^64 ps is 18 446 744 s; 2^64 bps is 18 446 744 Tbps.
        assert_eq!(parse_time("100000000s").unwrap_err(), "'100000000s' is longer than the 18446744 s (about 213 days) a time can hold");
        assert!(parse_time("18446744s").is_ok());
        assert_eq!(parse_rate("100000000Tbps").unwrap_err(), "'100000000Tbps' is above the largest rate, 18446744 Tbps (64-bit bits per second)");
        assert!(parse_rate("0Gbps").unwrap_err().contains("not a positive rate"));
        assert_eq!(parse_rate("1e30Gbps").unwrap_err(), "'1e30Gbps' is not a rate; write the number without an exponent, e.g. '400Gbps'");
        assert!(parse_time("1e-3s").unwrap_err().contains("without an exponent"));
        assert!(parse_time("5e").is_err() && !parse_time("5e").unwrap_err().contains("exponent"), "a unit 'e' is just unknown");
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("5us").unwrap(), Time::from_us(5));
        assert_eq!(parse_time("1.2us").unwrap(), Time(1_200_000));
        assert_eq!(parse_time("200 ms").unwrap(), Time::from_ms(200));
        assert_eq!(parse_time("1s").unwrap(), Time(Time::S));
        assert_eq!(parse_time("30000ps").unwrap(), Time(30_000));
        assert!(parse_time("5").unwrap_err().contains("no unit"));
        assert!(parse_time("5 parsecs").is_err());
        assert!(parse_time("-5us").is_err());
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("10Gbps").unwrap(), Rate::gbps(10));
        assert_eq!(parse_rate("2.5Gbps").unwrap(), Rate(2_500_000_000));
        assert_eq!(parse_rate("100Mbps").unwrap(), Rate(100_000_000));
        let e = parse_rate("40Gbs").unwrap_err();
        assert!(e.contains("try '40Gbps'"), "{e}");
        assert!(parse_rate("0Gbps").unwrap_err().contains("positive"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("1500B").unwrap(), 1500);
        assert_eq!(parse_bytes("120KB").unwrap(), 120_000);
        assert_eq!(parse_bytes("64KiB").unwrap(), 65_536);
        assert_eq!(parse_bytes("1.5MB").unwrap(), 1_500_000);
        assert_eq!(parse_bytes("1.2Mb").unwrap(), 150_000);
        assert_eq!(parse_bytes("8Kb").unwrap(), 1_000);
        assert!(parse_bytes("12 furlongs").is_err());
    }
}
