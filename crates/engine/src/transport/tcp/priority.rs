//! Sender-side flow scheduling: which priority class a data packet carries.
//!
//! - [`Priority::Fixed`]: the connection's `class` on every packet.
//! - [`Priority::Mlfq`]: PIAS's multi-level feedback queue (Bai et al., NSDI 2015 §3.1): a flow
//!   starts in class 0 and is demoted as its bytes sent cross thresholds α_1 < … < α_{K−1}; a
//!   packet whose first byte is preceded by `s` bytes goes to the first class i with s ≤ α_{i+1}
//!   (the demotion thresholds), else to class K − 1.
//! - [`Priority::Flash`]: Flash (Gao et al., "Flash: Joint Flow Scheduling and Congestion
//!   Control in Data Center Networks", §3.2.1): W = bytes_sent / (1 − α) (eq. 1,
//!   α the congestion control's DCTCP estimate), recomputed each time a new window of packets
//!   starts; class 0 below T_1, class i in [T_i, T_{i+1}), class N − 1 from T_{N−1}, with
//!   T_i = T_1·E^{i−1}. Flash-IA (§4.4) uses the remaining flow size instead of bytes sent.
//!
//! Pure ACKs always travel in class 0 (PIAS §3.1; pFabric gives ACKs the highest priority).

/// Most classes a port has (`queue::CLASSES`), so at most 7 demotion thresholds.
pub const MAX_THRESHOLDS: usize = crate::queue::CLASSES - 1;

/// How a sender picks the class of its data packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Priority {
    Fixed,
    /// PIAS MLFQ: `n` classes, demotion thresholds in bytes sent (the first `n − 1` are used).
    Mlfq { n: u8, thresholds: [u64; MAX_THRESHOLDS] },
    /// Flash: `n` classes, thresholds T_1 (bytes) and ratio E; `aware` = Flash-IA.
    Flash { n: u8, t1: u64, e: f64, aware: bool },
}

impl Priority {
    /// PIAS's class for a packet preceded by `sent` bytes of its flow.
    pub fn mlfq_class(n: u8, thresholds: &[u64; MAX_THRESHOLDS], sent: u64) -> u8 {
        let used = (n.max(1) - 1) as usize;
        thresholds[..used].iter().position(|&a| sent <= a).unwrap_or(used) as u8
    }

    /// Flash's W of eq. (1) for `bytes` (sent, or remaining for Flash-IA) and congestion α.
    /// α = 1 (no available bandwidth) gives an infinite W, except for a flow with nothing sent.
    pub fn flash_w(bytes: u64, alpha: f64) -> f64 {
        if bytes == 0 {
            0.0
        } else if alpha >= 1.0 {
            f64::INFINITY
        } else {
            bytes as f64 / (1.0 - alpha.max(0.0))
        }
    }

    /// Flash's class for W with `n` classes and thresholds T_i = t1·E^{i−1} (§3.2.1).
    pub fn flash_class(n: u8, t1: u64, e: f64, w: f64) -> u8 {
        let mut class = 0u8;
        let mut t = t1 as f64;
        while class + 1 < n && w >= t {
            class += 1;
            t *= e;
        }
        class
    }
}

/// Demotion thresholds published with PIAS for its 8-queue ns-2 runs (final versions of the
/// authors' scripts `run_pias_dctcp.py` (web search) and `run_pias_vl2.py` (data mining) in
/// github.com/HKUST-SING/PIAS-NS2), in 1460-byte packets, by load 0.5–0.9.
pub const PIAS_THRESHOLDS: &[(&str, f64, [u64; MAX_THRESHOLDS])] = &[
    ("websearch", 0.5, [1059, 1412, 1643, 1869, 2008, 2115, 2184]),
    ("websearch", 0.6, [956, 1381, 1718, 2028, 2297, 2551, 2660]),
    ("websearch", 0.7, [999, 1305, 1564, 1763, 1956, 2149, 2309]),
    ("websearch", 0.8, [909, 1329, 1648, 1960, 2143, 2337, 2484]),
    ("websearch", 0.9, [759, 1132, 1456, 1737, 2010, 2199, 2325]),
    ("datamining", 0.5, [805, 1106, 1401, 10693, 11970, 21162, 22272]),
    ("datamining", 0.6, [840, 1232, 1617, 11950, 12238, 21494, 25720]),
    ("datamining", 0.7, [907, 1301, 1619, 12166, 12915, 21313, 26374]),
    ("datamining", 0.8, [745, 1083, 1391, 13689, 14936, 21149, 27245]),
    ("datamining", 0.9, [750, 1083, 1416, 13705, 14952, 21125, 28253]),
];

/// The packet unit of [`PIAS_THRESHOLDS`] (ns-2's 1460-byte payload).
pub const PIAS_PACKET: u64 = 1460;

/// PIAS's published thresholds in bytes for `"websearch@0.6"`-style names.
pub fn pias_thresholds(name: &str) -> Option<[u64; MAX_THRESHOLDS]> {
    let (w, load) = name.split_once('@')?;
    let load: f64 = load.parse().ok()?;
    PIAS_THRESHOLDS.iter().find(|(n, l, _)| *n == w && (l - load).abs() < 1e-9).map(|(_, _, t)| t.map(|p| p * PIAS_PACKET))
}

/// The names `pias_thresholds` accepts.
pub fn pias_threshold_names() -> Vec<String> {
    PIAS_THRESHOLDS.iter().map(|(n, l, _)| format!("{n}@{l}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mlfq_demotes_after_each_threshold() {
        // Three classes, thresholds 10 KB and 100 KB: bytes 0..=10 KB → 0, up to 100 KB → 1, more → 2.
        let mut t = [u64::MAX; MAX_THRESHOLDS];
        t[0] = 10_000;
        t[1] = 100_000;
        let c = |s| Priority::mlfq_class(3, &t, s);
        assert_eq!((c(0), c(10_000), c(10_001), c(100_000), c(100_001), c(u64::MAX)), (0, 0, 1, 1, 2, 2));
        // One class: everything in 0.
        assert_eq!(Priority::mlfq_class(1, &t, 1 << 40), 0);
    }

    #[test]
    fn flash_priority_follows_equation_1_and_the_thresholds() {
        // Table 1: T_1 = 1.2 Mb = 150 000 B, E = 3 → T = 150 K, 450 K, 1.35 M, 4.05 M, 12.15 M,
        // 36.45 M, 109.35 M bytes.
        let (t1, e) = (150_000, 3.0);
        let cases: &[(u64, f64, f64, u8)] = &[
            // (bytes sent, α, W by hand, class by hand)
            (0, 0.9, 0.0, 0),
            (100_000, 0.0, 100_000.0, 0),
            (100_000, 0.5, 200_000.0, 1),
            (300_000, 0.25, 400_000.0, 1),
            (300_000, 0.4, 500_000.0, 2),
            (1_000_000, 0.0, 1_000_000.0, 2),
            (1_000_000, 0.8, 5_000_000.0, 4),
            (12_150_000, 0.0, 12_150_000.0, 5),
            (40_000_000, 0.0, 40_000_000.0, 6),
            (40_000_000, 0.9, 400_000_000.0, 7),
            (1, 1.0, f64::INFINITY, 7),
        ];
        for &(sent, alpha, w, class) in cases {
            let got = Priority::flash_w(sent, alpha);
            assert!((got - w).abs() <= 1e-6 * w.max(1.0) || got == w, "W({sent}, {alpha}) = {got}, not {w}");
            assert_eq!(Priority::flash_class(8, t1, e, got), class, "class of W = {w}");
        }
        // Fewer queues cap the class: with 4 queues everything from T_3 on is class 3.
        assert_eq!(Priority::flash_class(4, t1, e, 1e12), 3);
        assert_eq!(Priority::flash_class(4, t1, e, 449_999.0), 1);
    }

    #[test]
    fn published_pias_thresholds_by_name() {
        let t = pias_thresholds("websearch@0.6").unwrap();
        assert_eq!(t[0], 956 * 1460);
        assert_eq!(t[6], 2660 * 1460);
        assert!(pias_thresholds("websearch@0.55").is_none());
        assert!(pias_thresholds("datamining@0.9").is_some());
        assert_eq!(pias_threshold_names().len(), 10);
    }
}
