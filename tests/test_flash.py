"""Flash, PIAS, L2DCT and pFabric from the user's side: names, scenarios, results, and the
reproduction's setup and scoring."""

import subprocess
import sys

import pytest

import fabricsim
from fabricsim.reproduce import flash


def star(transport: dict, n: int = 4, sizes=("200KB", "2MB", "20KB"), admission: str = "droptail") -> dict:
    return {
        "simulation": {"end": "1s", "stop_when_done": True},
        "topology": {"kind": "star", "hosts": n, "link": {"rate": "10Gbps", "delay": "2us"}},
        "queue": {"buffer": "240pkt", "queues": 8, "discipline": "ecn", "ecn_port_threshold": "65pkt", "admission": admission},
        "transport": transport,
        "flows": [{"src": f"h{i + 1}", "dst": "h0", "size": s} for i, s in enumerate(sizes)],
    }


def test_schemes_are_listed_with_their_knobs():
    cc = fabricsim.congestion_controls()
    for name in ("l2dct", "pfabric-rc", "pias", "l2dct-pias", "flash", "flash-ia", "pfabric"):
        assert name in cc, name
    assert [k["name"] for k in fabricsim.cc_params("flash")][:4] == ["g", "initial_alpha", "w_max", "w_min"]
    out = subprocess.run([sys.executable, "-m", "fabricsim", "list", "cc", "--params"], capture_output=True, text=True)
    assert out.returncode == 0 and "pias_thresholds" in out.stdout and "flash-ia" in out.stdout


@pytest.mark.parametrize("scheme", ["pias", "l2dct-pias", "flash", "flash-ia", "l2dct", "pfabric"])
def test_every_scheme_runs_from_a_scenario_and_reports_its_name(scheme):
    admission = {"flash": "pushout", "flash-ia": "pushout", "pfabric": "pfabric"}.get(scheme, "droptail")
    res = fabricsim.run(star({"cc": scheme, "mss": "1460B", "header": "40B"}, admission=admission), progress=False)
    f = res.flows
    assert f["fct_s"].notna().all()
    assert (f["cc"] == scheme).all()
    # Three flows into one 10 Gb/s port: the last can not finish before all bytes crossed it.
    assert f["end_s"].max() >= (200e3 + 2e6 + 20e3) * 8 / 10e9


def test_pias_demotes_the_long_flow_into_lower_queues():
    # Thresholds 50 KB and 500 KB: a 2 MB flow's segments start at k * 1460 B; those starting at
    # or below 50 000 B (k = 0..34) use queue 0 of the receiver's port, those up to 500 000 B
    # (k = 35..342) queue 1, the rest queue 2 (PIAS §3.1).
    doc = star({"cc": "pias", "mss": "1460B", "header": "40B", "pias_thresholds": ["50KB", "500KB"]}, sizes=("2MB",))
    q = fabricsim.run(doc, progress=False).queues
    port = q[q["port"] == "s0->h0"].set_index("queue")["enqueued"]
    pkts = -(-2_000_000 // 1460)
    assert port[0] == 50_000 // 1460 + 1
    assert port[1] == 500_000 // 1460 - 50_000 // 1460
    assert port[2] == pkts - port[0] - port[1]


def test_bad_scheme_keys_are_one_line_errors():
    doc = star({"cc": "flash", "flash_e": 0.5})
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.validate(doc)
    assert "transport.flash_e: 0.5 is not a threshold ratio above 1" in str(e.value)
    doc = star({"cc": "pias", "pias_thresholds": "websearch@0.65"})
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.validate(doc)
    assert "is not a published set" in str(e.value)


def test_reproduction_points_follow_the_papers_setup():
    pts = flash.points("reduced")
    names = [p[0] for p in pts]
    assert len(names) == len(set(names)) == 3 * 4 * 5 + 4 * (2 + 5 + 2 + 1)
    doc = dict(pts[0][1])
    fabricsim.validate(doc)
    topo = doc["topology"]
    assert (topo["leaves"], topo["spines"], topo["hosts_per_leaf"]) == (12, 12, 12)
    assert doc["queue"]["buffer"] == "240pkt" and doc["queue"]["ecn_port_threshold"] == "65pkt"
    t = doc["transport"]
    assert (t["initial_cwnd"], t["initial_rto"], t["min_rto"], t["mss"]) == (10, "5ms", "5ms", "1460B")
    fast = dict(next(p[1] for p in pts if p[0] == "fast/mix/0.5/flash"))
    assert fast["queue"]["buffer"] == "512KB" and fast["queue"]["ecn_port_threshold"] == "250KB"
    assert fast["queue"]["admission"] == "pushout"
    mix = next(p[1] for p in pts if p[0] == "main/mix/0.6/pias")
    # Table 2: equal bytes per workload, so flow counts fall as the mean size grows.
    counts = {w["name"]: w["flows"] for w in mix["workload"]}
    assert counts["cache"] > counts["websearch"] > counts["hadoop"] > counts["datamining"]
    assert abs(sum(w["load"] for w in mix["workload"]) - 0.6) < 1e-12
    assert mix["transport"]["pias_thresholds"] == "websearch@0.6"


def test_a_tiny_reproduction_point_runs_and_extracts():
    doc = flash.scenario("pias", "mix", 0.5, 40)
    d = flash.extract(fabricsim.run(doc, progress=False))
    assert d["flows"] >= 38 and d["unfinished"] == 0
    assert d["short_count"] + d["medium_count"] + d["long_count"] == d["flows"]
    assert d["drops_over_lower"] <= d["drops"]


def synthetic(flash_factor: float, order_ok: bool = True) -> dict:
    """Results where Flash's FCTs are `flash_factor` of every baseline's."""
    r = {}
    base = {"all_mean": 1.0, "short_mean": 1.0, "short_p99": 1.0, "medium_mean": 1.0, "long_mean": 1.0, "drops": 100, "drops_over_lower": 85}
    for prefix in ("main", "fast"):
        for wl in flash.WORKLOADS:
            for load in flash.LOADS:
                for s in flash.SCHEMES + ["l2dct-pias", "flash-ia"]:
                    d = dict(base)
                    if s in ("flash", "flash-ia"):
                        d = {k: (v * flash_factor if k.endswith(("mean", "p99")) else v) for k, v in d.items()}
                    if s in ("l2dct", "dctcp"):
                        d["short_mean"] = 2.0
                    if s == "pias" and not order_ok:
                        d["short_mean"] = 0.1
                    r[f"{prefix}/{wl}/{load}/{s}"] = d
    return r


def test_headline_bands_are_two_sided_and_shapes_catch_a_wrong_order():
    rows = {h.name: h for h in flash.headlines(synthetic(0.8))}
    h = rows["mix overall FCT: Flash vs DCTCP (lower by)"]
    assert (h.low, h.high) == (21.2 - 10.6, 21.2 + 10.6) and abs(h.ours - 20.0) < 1e-9 and h.passed
    # A Flash 60 % better than DCTCP is as much a miss as one 0 % better.
    far = {h.name: h for h in flash.headlines(synthetic(0.4))}
    assert far["mix overall FCT: Flash vs DCTCP (lower by)"].passed is False
    same = {h.name: h for h in flash.headlines(synthetic(1.0))}
    assert same["mix overall FCT: Flash vs DCTCP (lower by)"].passed is False
    assert rows["Figs. 9-11 shape: short avg Flash < PIAS < L2DCT, DCTCP (points in order)"].passed
    wrong = {h.name: h for h in flash.headlines(synthetic(0.8, order_ok=False))}
    assert wrong["Figs. 9-11 shape: short avg Flash < PIAS < L2DCT, DCTCP (points in order)"].passed is False
    assert abs(rows["Fig. 5: PIAS drops over lower-priority packets, share (100G)"].ours - 85.0) < 1e-9


def test_the_shipped_flash_scenario_is_the_reproductions_own():
    # One source of truth: scenarios/flash-mixed.toml reads as the reproduction's point
    # main/mix/0.5/flash at reduced scale.
    from pathlib import Path

    shipped = fabricsim.load_scenario(Path(__file__).parent.parent / "scenarios" / "flash-mixed.toml")
    assert shipped == flash.scenario("flash", "mix", 0.5, flash.SCALES["reduced"]["mix"])


def test_compare_loads_keep_a_mix_in_proportion():
    from fabricsim.compare import with_load

    d = {"workload": [{"cdf": "fb_cache", "load": 0.1}, {"cdf": "websearch", "load": 0.3}]}
    assert [w["load"] for w in with_load(d, 0.8)["workload"]] == pytest.approx([0.2, 0.6])
    assert with_load({"workload": [{"cdf": "websearch", "load": 0.5}]}, 0.7)["workload"][0]["load"] == 0.7


def test_compare_reports_unfinished_flows_without_a_load_axis(tmp_path):
    # A 50 MB flow can not finish in 1 ms: the summary line must name it, not crash (the load
    # level of the statistics is NaN without --loads).
    sc = tmp_path / "s.toml"
    sc.write_text('[simulation]\nend = "1ms"\n[topology]\nkind = "star"\nhosts = 2\n'
                  'link = { rate = "10Gbps", delay = "1us" }\n[[flows]]\nsrc = "h1"\ndst = "h0"\nsize = "50MB"\n')
    out = subprocess.run([sys.executable, "-m", "fabricsim", "compare", str(sc), "--transports", "dctcp,pias",
                          "-o", str(tmp_path / "out"), "--no-progress"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "unfinished flows (not in the statistics): {'dctcp': 1, 'pias': 1}" in out.stdout
