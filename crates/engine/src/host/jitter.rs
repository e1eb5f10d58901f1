//! Receive-side processing jitter of hosts (`[host] rx_jitter`): each packet a host receives is
//! handed to its transport after a delay drawn uniformly from [0, rx_jitter] on the host's own
//! seeded stream, in arrival order (a packet is never processed before one that arrived earlier
//! at the same host).
//!
//! Why: identical deterministic hosts phase-lock. With every host answering in exactly the same
//! time, competing flows keep the same relative phase for the whole run and one of them can take
//! every drop (Floyd & Jacobson, "On Traffic Phase Effects in Packet-Switched Gateways", 1992,
//! who add a random processing time of up to one bottleneck service time to break it). Real hosts
//! (interrupt coalescing, scheduling) never answer in constant time. Off by default, so runs
//! without it are unchanged.

use super::HostSpec;
use crate::ids::{NodeId, PacketId};
use crate::rng::Rng;
use crate::time::Time;
use std::collections::VecDeque;

/// Random streams of hosts' processing delays (stream numbers disjoint from the switch's).
const HOST_STREAM: u64 = 3 << 40;

/// Per-host state of the receive delay.
#[derive(Clone, Debug)]
pub struct RxJitter {
    max: Time,
    rng: Vec<Rng>,
    /// When each host handles the last packet it received (later ones wait for it).
    busy_until: Vec<Time>,
    /// Each host's received packets not yet handled, in arrival order. Several can fall due in
    /// one picosecond (a packet waits for the one before it), and events of one picosecond are
    /// not ordered by arrival (`Event::tie_key` ranks them by packet id): each `HostRx` of a
    /// host hands over the oldest, so the order of arrival holds whatever the tie order.
    waiting: Vec<VecDeque<PacketId>>,
}

impl RxJitter {
    /// The delay model for `nodes` nodes, or `None` when `spec` has no jitter.
    pub fn new(spec: &HostSpec, nodes: usize, seed: u64) -> Option<RxJitter> {
        if spec.rx_jitter == Time::ZERO {
            return None;
        }
        let rng = (0..nodes).map(|i| Rng::stream(seed, HOST_STREAM | i as u64)).collect();
        Some(RxJitter { max: spec.rx_jitter, rng, busy_until: vec![Time::ZERO; nodes], waiting: vec![VecDeque::new(); nodes] })
    }

    /// When host `node` handles a packet that reaches it at `now`.
    #[inline]
    pub fn due(&mut self, node: NodeId, now: Time) -> Time {
        let n = node.idx();
        let d = Time(self.rng[n].below(self.max.0 + 1));
        let t = (now + d).max(self.busy_until[n]);
        self.busy_until[n] = t;
        t
    }

    /// Packet `id` reached host `node` and waits for its `HostRx` (scheduled at `due`).
    #[inline]
    pub fn hold(&mut self, node: NodeId, id: PacketId) {
        self.waiting[node.idx()].push_back(id);
    }

    /// The packet host `node` handles at this `HostRx`: the oldest it holds.
    #[inline]
    pub fn take(&mut self, node: NodeId) -> PacketId {
        self.waiting[node.idx()].pop_front().expect("a HostRx for every held packet")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_are_uniform_bounded_and_keep_arrival_order() {
        let mut j = RxJitter::new(&HostSpec { rx_jitter: Time::from_us(10), ..Default::default() }, 2, 1).unwrap();
        // Packets 100 µs apart never wait for each other: the delays are the draws. Their mean
        // is 5 µs (uniform on [0, 10 µs]; standard error 2.89 µs / √10 000 = 0.03 µs).
        let n = 10_000u64;
        let mut sum = 0u64;
        for i in 0..n {
            let now = Time::from_us(100 * i);
            let d = j.due(NodeId(0), now) - now;
            assert!(d <= Time::from_us(10));
            sum += d.0;
        }
        let mean_us = sum as f64 / n as f64 / 1e6;
        assert!((mean_us - 5.0).abs() < 0.15, "mean {mean_us} us");
        // Back-to-back arrivals keep their order.
        let base = Time::from_ms(10);
        let mut last = Time::ZERO;
        for i in 0..100 {
            let t = j.due(NodeId(1), base + Time(i));
            assert!(t >= last && t >= base + Time(i));
            last = t;
        }
        // No jitter: no model.
        assert!(RxJitter::new(&HostSpec::default(), 2, 1).is_none());
    }

    /// 300 one-packet TCP flows, one every 100 µs on a 2-host star, with `[host]` `extra`.
    fn one_packet_flows(extra: &str) -> crate::sim::Simulator {
        let mut doc = String::from(
            "[simulation]\nend = \"40ms\"\n[topology]\nkind = \"star\"\nhosts = 2\nlink = { rate = \"10Gbps\", delay = \"1us\" }\n\
             [transport]\ncc = \"newreno\"\n",
        );
        doc += extra;
        for i in 0..300 {
            doc += &format!("[[flows]]\nsrc = \"h1\"\ndst = \"h0\"\nsize = \"1000B\"\nstart = \"{}us\"\n", 100 * i);
        }
        crate::sim::testing::run(&doc)
    }

    #[test]
    fn each_flow_waits_for_two_receive_delays() {
        // A one-packet flow is handled twice by a receiving host (its data at h0, the ACK at h1):
        // with jitter J its FCT grows by two independent uniform [0, J] draws, J = 10 µs: each
        // flow by 0-20 µs, 10 µs on average (standard error 4.08 µs / √300 = 0.24 µs).
        let (plain, jit) = (one_packet_flows(""), one_packet_flows("[host]\nrx_jitter = \"10us\"\n"));
        let (a, b) = (plain.flow_table(), jit.flow_table());
        let extra: Vec<f64> = (0..300).map(|i| (b.fct_ps[i].unwrap() as f64 - a.fct_ps[i].unwrap() as f64) / 1e6).collect();
        assert!(extra.iter().all(|&x| (0.0..=20.0).contains(&x)), "{extra:?}");
        let mean = extra.iter().sum::<f64>() / 300.0;
        assert!((mean - 10.0).abs() < 1.0, "mean extra {mean} us");
        // Same seed, same draws.
        let again = one_packet_flows("[host]\nrx_jitter = \"10us\"\n").flow_table();
        assert_eq!(again.fct_ps, b.fct_ps);
    }
}
