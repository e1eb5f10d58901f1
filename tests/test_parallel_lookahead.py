"""The pure computations of benches/parallel/lookahead.py (docs/PARALLEL.md): partition
assignment of a k = 4 fat tree's nodes and ports, checked by hand; window statistics, the
data/ACK split, the arrival shift and the speed-up model on small synthetic series."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("lookahead", ROOT / "benches" / "parallel" / "lookahead.py")
la = importlib.util.module_from_spec(_spec)
sys.modules["lookahead"] = la  # dataclasses look their module up while the file runs
_spec.loader.exec_module(la)


# k = 4 (parse.rs): hosts h0..h15, two per edge switch, four per pod; edge{p}_{0,1}, agg{p}_{0,1}
# for pods 0..3; core0..core3, core c on aggregation switch c // 2 of every pod.

def test_k4_pods_by_hand():
    k = 4
    assert [la.unit_of(f"h{i}", k, "pod") for i in range(16)] == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4
    assert la.unit_of("edge2_1", k, "pod") == 2 and la.unit_of("agg3_0", k, "pod") == 3
    assert la.unit_of("core3", k, "pod") is None
    # Racks: edge p_i with its two hosts and agg p_i.
    assert [la.unit_of(f"h{i}", k, "rack") for i in range(8)] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert la.unit_of("edge1_1", k, "rack") == 3 and la.unit_of("agg1_1", k, "rack") == 3
    # Four pods + the cores on their own: partitions 0..3 and 4.
    own = lambda n: la.partition_of(n, k, 4, "pod", "own")  # noqa: E731
    assert [own(n) for n in ("h0", "h5", "edge2_0", "agg3_1", "core0", "core3")] == [0, 1, 2, 3, 4, 4]
    # Cores spread: 4 cores over 4 pods, one each.
    spread = lambda n: la.partition_of(n, k, 4, "pod", "spread")  # noqa: E731
    assert [spread(f"core{c}") for c in range(4)] == [0, 1, 2, 3]
    # Two partitions of two pods; the cores dealt evenly: core0, core1 with pods 0–1.
    two = lambda n: la.partition_of(n, k, 2, "pod", "spread")  # noqa: E731
    assert [two(n) for n in ("h7", "h8", "edge1_1", "agg2_0", "core0", "core1", "core2", "core3")] == [0, 1, 0, 1, 0, 0, 1, 1]
    with pytest.raises(ValueError):
        la.partition_of("h0", k, 5, "pod")
    with pytest.raises(ValueError):
        la.parse_node("s1")


def test_k4_ports_and_cut_by_hand():
    # Some ports of the k = 4 fat tree as the ports table names them (node -> peer).
    ports = [("h0", "edge0_0"), ("edge0_0", "h0"), ("edge0_0", "agg0_1"), ("agg0_1", "edge0_0"),
             ("agg0_1", "core2"), ("core2", "agg0_1"), ("agg3_0", "core1"), ("core1", "agg3_0")]
    nodes, peers = zip(*ports)
    s = la.Scheme(4, "pod", "own")
    own, peer = la.port_partitions(nodes, peers, 4, s)
    assert own.tolist() == [0, 0, 0, 0, 0, 4, 3, 4]
    assert peer.tolist() == [0, 0, 0, 0, 4, 0, 4, 3]
    assert (own != peer).tolist() == [False] * 4 + [True] * 4  # only pod-core links are cut
    # Spread: core2 sits with pod 2, core1 with pod 1: the same links stay cut.
    own, peer = la.port_partitions(nodes, peers, 4, la.Scheme(4, "pod", "spread"))
    assert own.tolist() == [0, 0, 0, 0, 0, 2, 3, 1] and (own != peer).sum() == 4
    # Racks (8 of them) in 4 partitions: rack pairs; the host link stays inside, edge-agg
    # link edge0_0 (rack 0) - agg0_1 (rack 1) stays inside partition 0.
    own, peer = la.port_partitions(nodes, peers, 4, la.Scheme(4, "rack", "spread"))
    assert own[:4].tolist() == [0, 0, 0, 0] and peer[:4].tolist() == [0, 0, 0, 0]


def test_window_stats_on_a_synthetic_series():
    st = la.window_stats(np.arange(1, 101))
    assert st["mean"] == 50.5 and st["p50"] == 50.5 and st["max"] == 100
    assert st["p99"] == pytest.approx(99.01)
    assert la.window_stats([]) == {"mean": 0.0, "p50": 0.0, "p99": 0.0, "max": 0.0}
    assert la.window_stats(np.full((3, 4), 7))["p99"] == 7


def test_data_ack_split_and_shift():
    data, acks = la.split_data_acks([0, 1, 3, 20], [0, 9000, 9000 + 2 * 52, 20 * 52], 9000, 52)
    assert data.tolist() == [0, 1, 1, 0] and acks.tolist() == [0, 0, 2, 20]
    with pytest.raises(ValueError):
        la.split_data_acks([1], [100], 9000, 52)
    a = np.array([[1, 2], [3, 4], [5, 6]])
    assert la.shift(a, 1).tolist() == [[0, 0], [1, 2], [3, 4]]
    assert la.shift(a, 5).tolist() == [[0, 0]] * 3
    assert la.group_sum(np.array([[1, 2, 3], [4, 5, 6]]), np.array([1, 0, 1]), 3).tolist() == [[2, 4, 0], [5, 10, 0]]


def test_partition_events_keep_each_window_total():
    events = np.array([10.0, 20.0, 6.0])
    arrivals = np.array([[3, 1], [0, 0], [0, 0]])
    starts = np.array([[1, 1], [2, 0], [0, 0]])
    e = la.partition_events(events, arrivals, starts, rho=1.0)
    assert e.sum(axis=1) == pytest.approx([10.0, 20.0, 6.0])
    assert e[0] == pytest.approx([10 * 4 / 6, 10 * 2 / 6])  # weights 3+1, 1+1
    assert e[1].tolist() == [20.0, 0.0]
    assert e[2].tolist() == [3.0, 3.0]  # nothing moving: shared equally


def test_speedup_model_by_hand():
    e = np.array([[10.0, 10.0], [20.0, 0.0]])
    x = np.zeros_like(e)
    # Sequential 40 events; parallel: window 1 takes 10, window 2 takes 20.
    assert la.speedup(e, x, 1.0, 0.0, 0.0) == pytest.approx(40 / 30)
    # A barrier of 5 per window: 40 / (15 + 25).
    assert la.speedup(e, x, 1.0, 5.0, 0.0) == pytest.approx(1.0)
    # Received packets cost the receiving partition: window 1's second partition gets 4 at 2 each.
    x[0, 1] = 4
    assert la.speedup(e, x, 1.0, 0.0, 2.0) == pytest.approx(40 / (18 + 20))
    assert la.imbalance(e) == pytest.approx(30 / 20)


def test_k12_scheme_list():
    labels = [(s.n, s.unit, s.cores) for s in la.default_schemes(12)]
    assert labels[:2] == [(13, "pod", "own"), (12, "pod", "spread")]
    assert (4, "pod", "spread") in labels and (8, "rack", "spread") in labels and (64, "rack", "spread") in labels
    assert all(n <= 72 for n, _, _ in labels)
