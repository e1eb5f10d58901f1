"""reTCP's artifact model (Etalon's scripts as the paper's graphs were made): each change against
hand-known values, and the text model's scenarios left alone."""

import copy

import fabricsim
from fabricsim.reproduce import common, retcp


def change(name: str):
    return next(c for c in retcp.ARTIFACT if c.name == name)


def test_fake_strobe_gives_the_pair_one_day_a_week_and_its_acks_the_other_23():
    doc = retcp.fake_strobe(retcp.scenario(weeks=2, warmup_weeks=0, flows=1))
    assert doc["topology"]["racks"] == 3 and doc["topology"]["hosts_per_rack"] == 16
    slots = doc["circuit"]["slots"]
    assert len(slots) == 24 and all((s["night"], s["day"]) == ("20us", "180us") for s in slots)
    # click_common.setFakeStrobeSchedule: 23 x "1/2/0" then "2/0/1" (sources per destination,
    # Etalon's racks 2, 3, 1 being our 0, 1, 2).
    assert [s["matching"] for s in slots] == [[2, 0, 1]] * 23 + [[1, 2, 0]]
    # Same 4800 us week as 25 racks, so the run keeps its length.
    assert doc["simulation"]["end"] == "9600.000000us"
    res = fabricsim.run(doc)
    days = res.circuit["days"]
    # Two weeks: pair (0, 1) has the last slot's day of each (night 20 us, so at 23 x 200 + 20 us),
    # the ACKs' pair (1, 0) the other 23 slots' days.
    d01 = days[(days.src == 0) & (days.dst == 1)]
    assert d01.start_ps.tolist() == [4_620_000_000, 9_420_000_000]
    assert len(days[(days.src == 1) & (days.dst == 0)]) == 46


def test_fig2_keeps_its_weeks_on_the_faked_25_racks():
    pts = {n: d for n, d, _ in retcp.points("reduced")}
    d = change("fake-strobe").apply("fig2/2a", pts["fig2/2a"])
    sc = retcp.SCALES["reduced"]
    week = 24 * (9000 + 1000)  # nsdi2020.py: 25 fake racks, 1 ms nights, 9 ms days (the text: 8 racks)
    assert d["simulation"]["end"] == f"{(sc['fig2a_weeks'] + sc['fig2a_warmup']) * week:.6f}us"
    assert d["output"]["warmup"] == f"{sc['fig2a_warmup'] * week:.6f}us"


def test_egress_gso_and_ece_take_etalons_values_where_they_apply():
    pts = {n: d for n, d, _ in retcp.points("reduced")}
    a = common.artifact_scenario(retcp.ARTIFACT, "static/16", pts["static/16"])
    assert a["host"] == {"stack": "linux-4.15", "time_dilation": 20, "egress_rate": "40Gbps", "egress_burst": "64KB"}
    # reTCP on static VOQs: ECE from in_advance = 12000 us under TDF 20 = 600 us before the day, the
    # VOQ the same size inside and outside that window.
    t = change("ece-advance").apply("retcp-static/32", pts["retcp-static/32"])["tor"]
    assert t == {"policy": "etalon", "feedback": "resize", "resize": {"small": "32pkt", "large": "32pkt", "tau": "600us"}}
    for p in ("retcp-resize/150", "static/32"):  # resizing already marks from tau; CUBIC gets no ECE
        assert change("ece-advance").apply(p, pts[p]) is pts[p]
    # The host-model sensitivities keep their own hosts, Fig. 3 (a simulation) its setup, and §7
    # and Table 1 their real strobes.
    for p in ("unshaped/static/16", "etalon-gso/resize/1800", "days/10/8"):
        for c in ("egress-40g", "netem-gso"):
            assert change(c).apply(p, pts[p]) is pts[p]
    for p in ("3rack/resize/150", "table1/bypass", "days/10/8"):
        assert change("fake-strobe").apply(p, pts[p]) is pts[p]


def test_the_text_model_is_untouched_and_every_artifact_scenario_validates():
    for n, d, _ in retcp.points("reduced"):
        before = copy.deepcopy(d)
        a = common.artifact_scenario(retcp.ARTIFACT, n, d)
        assert d == before
        fabricsim.validate(a)


def test_central_points_and_headlines_exist():
    names = {n for n, _, _ in retcp.points("reduced")}
    assert all(any(n.startswith(p) for n in names) for p in retcp.CENTRAL_POINTS)
    r = {p: {"utilization": 0.5, "p99_us": 130.0} for p in retcp.CENTRAL_POINTS}
    rows = {h.name for h in retcp.headlines(r)}
    assert set(retcp.CENTRAL) <= rows
