"""`[simulation] time_resolution = "1ns"`: ns-3's nanosecond clock. A timeline computed by hand
at 10 Gb/s (0.8 ns per byte): a 1502 B segment takes 1201.6 ns on fabricsim's picosecond clock and
1202 ns on ns-3's (DataRate::CalculateBytesTxTime, rounded to the nanosecond), a 54 B ACK 43.2 ns
and 43 ns; links of 1 us."""

import pytest

import fabricsim


def doc(resolution=None, delay="1us"):
    sim = {"end": "1ms"}
    if resolution:
        sim["time_resolution"] = resolution
    return {"simulation": sim,
            "topology": {"kind": "star", "hosts": 2, "link": {"rate": "10Gbps", "delay": delay}},
            "transport": {"cc": "reno", "mss": "1448B", "header": "54B", "ack_size": "54B", "initial_cwnd": 10,
                          "delayed_ack": 2},
            "flows": [{"src": "h1", "dst": "h0", "size": "4344B"}],  # three segments
            "output": {"pcap": {"ports": ["h1->s0", "s0->h0", "h0->s0", "s0->h1"]}}}


def starts(res):
    p = res.packets
    return {port: [int(t) for t in p[p["port"] == port]["time_ps"]] for port in ("h1->s0", "s0->h0", "h0->s0", "s0->h1")}


def test_a_nanosecond_clock_gives_the_hand_computed_timeline():
    got = starts(fabricsim.run(doc("1ns"), progress=False))
    ns = 1000
    # h1 sends three segments back to back, 1202 ns each.
    assert got["h1->s0"] == [0, 1202 * ns, 2404 * ns]
    # Each reaches s0 1202 ns + 1 us after it started and leaves at once (s0->h0 is idle).
    assert got["s0->h0"] == [2202 * ns, 3404 * ns, 4606 * ns]
    # h0 acknowledges the second segment as it arrives (3404 + 1202 + 1000 ns), the third (the
    # last: at once) at 6808 ns; each ACK reaches s0 43 + 1000 ns later.
    assert got["h0->s0"] == [5606 * ns, 6808 * ns]
    assert got["s0->h1"] == [6649 * ns, 7851 * ns]


def test_the_picosecond_clock_keeps_the_exact_times():
    for res in (None, "1ps"):
        got = starts(fabricsim.run(doc(res), progress=False))
        assert got["h1->s0"] == [0, 1_201_600, 2_403_200]
        assert got["s0->h0"] == [2_201_600, 3_403_200, 4_604_800]
        assert got["h0->s0"] == [5_604_800, 6_806_400]
        assert got["s0->h1"] == [6_648_000, 7_849_600]


def test_a_nanosecond_clock_rounds_the_link_delay():
    # 1500 ps is 2 ns on ns-3's clock (its Time("1500ps"): a half rounds up).
    p = fabricsim.run(doc("1ns", delay="1500ps"), progress=False).packets
    first = p[p["port"] == "h1->s0"].iloc[0]
    assert int(first["arrive_ps"]) - int(first["time_ps"]) == 1_202_000 + 2_000


def test_a_bad_resolution_is_named():
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.validate(doc("1us"))
    assert "simulation.time_resolution" in str(e.value) and "1ps, 1ns" in str(e.value)
