"""SAB's artifact model (ns-2.35's defaults under the simulations; the testbed's artifact is its
text): each change against hand-known values, and the text model's scenarios left alone."""

import copy

import pytest

import fabricsim
from fabricsim.reproduce import common, sab


def change(name: str):
    return next(c for c in sab.ARTIFACT if c.name == name)


def one_ns2_flow(window: bool) -> dict:
    """One long ns-2 NewReno flow over a 1 Gb/s star, 250 us per link: a 1 ms base RTT."""
    doc = sab.base("ns2-window", "tcp", 0.5, sab.star(2, {"rate": "1Gbps", "delay": "250us"}), ns2=True)
    doc["flows"] = [{"src": "h1", "dst": "h0"}]
    return change("ns2-window-20").apply("eps/x", doc) if window else doc


def test_ns2_window_of_20_packets_caps_a_flow_at_20_packets_a_round_trip():
    # Window-limited: 20 packets of 960 B payload per round trip. The round trip of a packet:
    # 1000 B at 1 Gb/s on the host and switch ports (8 us each), 4 x 250 us of links, and a 40 B
    # ACK's two serializations (0.32 us each): 1016.64 us. So 19 200 B / 1016.64 us = 151.1 Mb/s,
    # less the handshake and slow start from 2 packets (about 5 round trips of 0.5 s).
    rtt = 2 * 8e-6 + 4 * 250e-6 + 2 * 0.32e-6
    want = 20 * 960 * 8 / rtt * (1 - 5 * rtt / 0.5)
    res = fabricsim.run(one_ns2_flow(True))
    got = float(res.flows["bytes_acked"].iloc[0]) * 8 / 0.5
    assert got == pytest.approx(want, rel=0.01)
    # Without it the flow fills the link (it is not window-limited).
    free = float(fabricsim.run(one_ns2_flow(False)).flows["bytes_acked"].iloc[0]) * 8 / 0.5
    assert free > 0.9e9


def test_ns2_changes_apply_to_the_simulations_only():
    pts = {n: d for n, d, _ in sab.points("reduced")}
    w, rto = change("ns2-window-20"), change("ns2-initial-rto-3s")
    for p in ("large/tcp", "large/sab", "eps/0.5", "prop2/+0", "ratelimit/on"):
        a = w.apply(p, pts[p])
        assert a["transport"]["rcv_buffer"] == "19200B"
        assert all(t["rcv_buffer"] == "19200B" for t in a.get("transports", {}).values())
        assert rto.apply(p, pts[p])["transport"]["initial_rto"] == "3s"
    # §VI-A: the capacity sweep ran with the window "enlarged"; it keeps the initial RTO change.
    assert w.apply("capacity/tcp/10", pts["capacity/tcp/10"]) is pts["capacity/tcp/10"]
    assert rto.apply("capacity/tcp/10", pts["capacity/tcp/10"])["transport"]["initial_rto"] == "3s"
    # The testbed's points are its text (Linux 2.6.38 hosts): no change.
    for p in ("conv/sab", "delay/dctcp", "mix/tcp", "incast/sab/16", "outcast/tcp"):
        assert all(c.apply(p, pts[p]) is pts[p] for c in sab.ARTIFACT)


def test_sixteen_bit_window_reading_is_a_sensitivity_on_testbed_sab_only():
    pts = {n: d for n, d, _ in sab.points("reduced")}
    c = sab.WINDOW_16BIT
    assert c not in sab.ARTIFACT
    assert c.apply("conv/sab", pts["conv/sab"])["transport"]["rcv_buffer"] == "65535B"
    assert c.apply("conv/dctcp", pts["conv/dctcp"]) is pts["conv/dctcp"]
    assert c.apply("large/sab", pts["large/sab"]) is pts["large/sab"]


def test_the_text_model_is_untouched_and_every_artifact_scenario_validates():
    for n, d, _ in sab.points("reduced"):
        before = copy.deepcopy(d)
        a = common.artifact_scenario(sab.ARTIFACT, n, d)
        assert d == before
        if a is not d:
            fabricsim.validate(a)


def test_central_headlines_are_rows_of_the_table():
    names = {n for n, _, _ in sab.points("reduced")}
    assert all(any(n.startswith(p) for n in names) for p in sab.CENTRAL_POINTS)
    conv = {"time_s": [0.0], "gbps_h2": [0.0], "queue_kb": [0, 40.0, 40.0, 0]}
    mix = {"query_mean_ms": 1.0, "query_p999_ms": 2.0, "per_kb_mean_ms": 1.0, "per_kb_p999_ms": 1.1}
    large = {"query_mean_ms": 0.3, "query_p99.9_ms": 1.0, "query_p99.99_ms": 1.1, "bg_mean_ms": 50, "bg_p95_ms": 100}
    r = {**{f"conv/{s}": conv for s in sab.SCHEMES}, **{f"delay/{s}": {"data_ms": [1.0], "fct_ms": [1.1], "goodput_gbps": 1.0}
                                                        for s in sab.SCHEMES},
         **{f"mix/{s}": mix for s in sab.MIX_SCHEMES}, **{f"large/{s}": large for s in sab.MIX_SCHEMES}}
    rows = {h.name for h in sab.headlines(r, "reduced")}
    assert set(sab.CENTRAL) <= rows
