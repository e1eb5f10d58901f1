"""`fabricsim reproduce ppt`: the point list, each point's scenario against PPT §6.2's setup key by
key, a toy end-to-end run, and the paper-vs-ours scoring on synthetic results."""

from pathlib import Path

import numpy as np
import pytest

import fabricsim
from fabricsim.reproduce import PAPERS, ppt


def test_point_list_covers_the_papers_figures():
    names = [n for n, _ in ppt.point_list("reduced")]
    assert len(names) == len(set(names))
    # Figs. 12, 13, 21: six schemes on three workloads; Figs. 15-18; Fig. 20; Fig. 23 (5 schemes x 4 N);
    # Fig. 24 (4 limits); Fig. 25; Fig. 14 (Swift, PPT on Swift, and its alternative reading); Fig. 26 (six schemes); Fig. 27
    # (4 send buffers). And PPT under the alternative reading of §3.2 on the three workloads.
    # And the central claims' sensitivity rows: push-out, no LCP, 10 us links (PPT, DCTCP, no LCP).
    assert len(names) == 3 * 6 + 4 + 2 + 4 * 5 + 4 + 2 + 2 + 1 + 6 + 4 + 3 + 2 * 5
    for wl in ("websearch", "datamining", "memcached"):
        assert [n for n in names if n.startswith(f"main/{wl}/")] == [f"main/{wl}/{s}" for s in ppt.SCHEMES]
    assert ppt.SCHEMES == ["ppt", "ndp", "aeolus", "homa", "rc3", "dctcp"]
    assert [n.split("/")[1] for n in names if n.startswith("incast/")][::5] == ["32", "64", "128", "256"]
    assert "rc3" not in ppt.INCAST_SCHEMES  # "RC3 is not included as it cannot sustain heavy incast"
    assert "ppt" in PAPERS


def test_unknown_schemes_are_left_out_with_a_reason(monkeypatch):
    monkeypatch.setattr(ppt, "available", lambda: frozenset({"dctcp", "homa", "ndp", "pias", "hpcc"}))
    skip = ppt.skipped("reduced")
    assert skip["main/websearch/ppt"].startswith("'ppt' is not in this engine")
    assert "main/websearch/dctcp" not in skip and "incast/32/ndp" not in skip
    assert all(s in ppt.available() for n, s in ppt.point_list("reduced") if n not in skip)
    # Once the schemes exist nothing is left out (Fig. 27 needs the send-buffer key as well).
    monkeypatch.setattr(ppt, "available", lambda: frozenset(ppt.SCHEMES + ppt.ABLATIONS + ppt.OTHERS + ppt.DELAY_SCHEMES))
    monkeypatch.setattr(ppt, "send_buffer_supported", lambda: True)
    assert ppt.skipped("reduced") == {}


def test_main_points_follow_section_6_2_key_by_key():
    doc = ppt.build("main/websearch/dctcp", "reduced")
    fabricsim.validate(doc)
    topo = doc["topology"]
    # "144 servers, 9 leaf switches and 4 spine switches, with the host and core links operated at 40 and 100Gbps"
    assert (topo["kind"], topo["leaves"], topo["spines"], topo["hosts_per_leaf"]) == ("leaf_spine", 9, 4, 16)
    assert topo["host_link"]["rate"] == "40Gbps" and topo["core_link"]["rate"] == "100Gbps"
    s = fabricsim.topology_summary(doc)
    # 16 x 40 Gb/s down, 4 x 100 Gb/s up: 1.6:1 (the paper writes 1.4:1; docs/REPRODUCTIONS.md)
    assert s["hosts"] == 144 and s["oversubscription"] == pytest.approx(1.6)
    # "We configure a per-port buffer of 120KB" ; "For DCTCP, we set its ECN marking threshold to 96KB"
    q = doc["queue"]
    assert q["buffer"] == "120KB" and q["discipline"] == "ecn" and q["queues"] == 8
    # DCTCP uses class 0 only: its queue 0 marks at 96 KB; the other queues are PPT's (shared scenario).
    assert q["ecn_threshold"] == ["96KB"] * 4 + ["86KB"] * 4
    assert doc["transport"] == {"cc": "dctcp", "min_rto": "10ms"}
    # "all-to-all traffic patterns" ; "Unless otherwise specified, we use 0.5 load"
    wl = doc["workload"][0]
    assert (wl["cdf"], wl["pattern"], wl["load"], wl["flows"]) == ("websearch", "all_to_all", 0.5, 5000)
    assert ppt.build("main/memcached/dctcp", "reduced")["workload"][0]["cdf"] == "homa_w1"  # Homa's W1
    assert ppt.build("main/datamining/dctcp", "paper")["workload"][0]["flows"] == 25000

    # PPT: "ECN marking thresholds for PPT's HCP and LCP loops to 96KB and 86KB"; P0-P3 HCP, P4-P7 LCP.
    p = ppt.scenario("ppt", "websearch", 100)
    assert p["queue"]["queues"] == 8 and p["queue"]["scheduler"] == "strict"
    assert p["queue"]["ecn_threshold"] == ["96KB"] * 4 + ["86KB"] * 4
    assert p["transport"]["cc"] == "ppt"
    # Homa: "RTTbytes to 45KB ... the degree of overcommitment is 2"
    h = ppt.build("main/websearch/homa", "reduced")
    fabricsim.validate(h)
    assert h["transport"] == {"kind": "homa", "rtt_bytes": "45KB", "overcommitment": 2, "priorities": 8}
    assert h["queue"] == {"buffer": "120KB", "queues": 8, "scheduler": "strict"}
    # NDP with its own recommended setting: its defaults, trimming ports inside the 120 KB buffer.
    n = ppt.build("main/websearch/ndp", "reduced")
    fabricsim.validate(n)
    assert n["transport"] == {"kind": "ndp"}
    assert n["queue"]["admission"] == "trim" and n["queue"]["queue_buffer"] == ["72KB", "8pkt"] and n["queue"]["buffer"] == "120KB"
    assert n["host_queue"] == {"queues": 2, "classes": [0, 1]}


def test_the_base_rtt_matches_the_papers_rttbytes():
    # 1 us per link: 8.87 us idle RTT, so the 40 Gb/s BDP is 44.3 KB ~ the paper's 45 KB RTTbytes.
    rtt = ppt.idle_rtt_s(40, 100)
    assert rtt == pytest.approx(2 * 12000 / 40e9 + 2 * 12000 / 100e9 + 2 * 416 / 40e9 + 2 * 416 / 100e9 + 8e-6)
    assert 40e9 * rtt / 8 == pytest.approx(44_346, abs=5)
    assert ppt.rtt_bytes_for("10Gbps", "40Gbps") == "14KB"


def test_other_experiments_build_their_variants():
    # Fig. 26: "Each leaf switch is connected to 16 hosts with 10Gbps links and 4 spine switches with 40Gbps links"
    d = ppt.build("nonover/websearch/homa", "reduced")
    fabricsim.validate(d)
    assert d["topology"]["host_link"]["rate"] == "10Gbps" and d["topology"]["core_link"]["rate"] == "40Gbps"
    assert fabricsim.topology_summary(d)["oversubscription"] == pytest.approx(1.0)
    assert d["transport"]["rtt_bytes"] == "14KB"
    # Fig. 23: N senders at random start one flow each to h0 at Poisson epochs; load 0.6 on h0's link.
    d = ppt.build("incast/64/dctcp", "reduced")
    fabricsim.validate(d)
    fl = d["flows"]
    assert "workload" not in d and len(fl) == 2048 and {f["dst"] for f in fl} == {"h0"}
    first = [f for f in fl if f["start"] == fl[0]["start"]]
    assert len(first) == 64 and len({f["src"] for f in first}) == 64 and "h0" not in {f["src"] for f in fl}
    starts = sorted({int(f["start"][:-2]) for f in fl})
    sizes, probs = ppt.cdf_table("websearch")
    mean = float(np.sum(np.diff(probs) * (sizes[1:] + sizes[:-1]) / 2))
    assert mean == pytest.approx(1.67e6, rel=0.01)  # the DCTCP paper's web search
    # Offered: 64 flows of the mean size per epoch at the epoch rate = 0.6 x 40 Gb/s (within sampling noise).
    offered = sum(f["size"] for f in fl) * 8 / (starts[-1] * 1e-12 * len(starts) / (len(starts) - 1))
    assert offered / 40e9 == pytest.approx(0.6, rel=0.35)
    assert ppt.build("incast/64/homa", "reduced")["flows"] == fl  # same draws for every scheme
    many = ppt.incast_flows("dctcp", 32, 20000)  # 625 epochs: the offered load settles near 0.6
    st = sorted({int(f["start"][:-2]) for f in many})
    assert sum(f["size"] for f in many) * 8 / (st[-1] * 1e-12 * len(st) / (len(st) - 1)) / 40e9 == pytest.approx(0.6, rel=0.1)
    assert len(ppt.incast_senders(256)) == 256 and len(set(ppt.incast_senders(256))) == 143
    # Fig. 24: RC3's low-priority queues limited to 20 % of the 120 KB buffer.
    q = ppt.scenario("rc3", "websearch", 10, rc3_fraction=0.2)["queue"]
    assert q["queue_buffer"] == ["120KB"] + ["24000B"] * 7
    # Fig. 20: two senders into one 40 Gb/s port, K = 120 KB, load 0.5 of that port, 100 us samples.
    u = ppt.build("util/dctcp", "reduced")
    fabricsim.validate(u)
    assert u["output"]["sample_interval"] == "100us" and u["queue"]["ecn_threshold"] == "120KB"
    assert fabricsim.offered_load(u)["downlink"] == ("s0->h0", pytest.approx(0.5))
    # Fig. 25: PIAS with DCTCP's threshold on every queue; HPCC without ECN.
    assert ppt.scenario("pias", "websearch", 10)["queue"]["ecn_threshold"] == "96KB"
    assert ppt.scenario("hpcc", "websearch", 10)["queue"]["discipline"] == "droptail"
    # Fig. 14: "under web search workload at 0.5 load", Swift alone and PPT on Swift, on the same
    # drop-tail priority ports (delay, not marks), PPT's send buffer for PPT's variant only.
    for s in ppt.DELAY_SCHEMES:
        d = ppt.build(f"delay/websearch/{s}", "reduced")
        fabricsim.validate(d)
        assert d["workload"][0]["cdf"] == "websearch" and d["workload"][0]["load"] == 0.5
        assert d["queue"]["discipline"] == "droptail" and d["queue"]["queues"] == 8 and "ecn_threshold" not in d["queue"]
        assert d["transport"]["cc"] == s
    assert ppt.build("delay/websearch/ppt-swift", "reduced")["transport"]["send_buffer"] == "2GB"
    alt = ppt.build("delaymark/websearch/ppt-swift", "reduced")
    fabricsim.validate(alt)
    assert alt["queue"]["discipline"] == "ecn" and alt["queue"]["ecn_threshold"] == ["off"] * 4 + ["86KB"] * 4


def test_a_toy_end_to_end_run_with_two_schemes(tmp_path, monkeypatch, capsys):
    # 40 web-search flows per main run, only DCTCP and Homa, only the web-search points.
    monkeypatch.setitem(ppt.SCALES, "reduced", dict(ppt.SCALES["reduced"], websearch=40))
    monkeypatch.setattr(ppt, "available", lambda: frozenset({"dctcp", "homa"}))
    out = ppt.reproduce(output=tmp_path / "o", jobs=1, progress=False, only=["main/websearch/"], model="text")
    runs = out["runs"]
    assert sorted(runs["point"]) == ["main/websearch/dctcp", "main/websearch/homa"]
    assert (runs["unfinished"] == 0).all() and (runs["flows"] == 40).all()
    text = capsys.readouterr().out
    # (the paper-vs-ours table goes to the stdout bound at import, out of capsys's reach)
    assert "main/websearch:" in text and "not in this engine" in text and "aeolus" in text
    hl = out["headlines"].set_index("headline")
    assert hl.loc["websearch overall avg FCT: PPT vs DCTCP (lower by)", "result"] == "n/a"
    assert (tmp_path / "o" / "fct_main_websearch.csv").exists() and (tmp_path / "o" / "fig12_websearch.png").exists()


def synthetic(ppt_factor: float) -> dict:
    """Every baseline's FCTs 1 ms; PPT's `ppt_factor` of that; utilization 25-50 % / 50 %."""
    base = {"all_mean": 1e-3, "small_mean": 1e-3, "small_p99": 1e-3, "large_mean": 1e-3}
    r = {}
    for name, s in ppt.point_list("paper"):
        d = dict(base)
        if s in ("ppt", "ppt-swift"):
            d = {k: v * ppt_factor for k, v in d.items()}
        r[name] = d
    r["util/dctcp"] = {"min": 0.25, "mean": 0.43}
    r["util/ppt"] = {"min": 0.45, "mean": 0.50}
    return r


def test_bands_are_two_sided_and_report_misses():
    rows = {h.name: h for h in ppt.headlines(synthetic(0.6))}  # PPT 40 % lower than every baseline
    h = rows["websearch overall avg FCT: PPT vs NDP (lower by)"]
    assert (h.low, h.high) == (38.5 - 19.25, 38.5 + 19.25) and h.ours == pytest.approx(40.0) and h.passed
    assert rows["websearch overall avg FCT: PPT vs DCTCP (lower by)"].passed is False  # 40 % vs the paper's 87.5 %
    # A PPT far better than the paper says misses as well (two-sided).
    far = {h.name: h for h in ppt.headlines(synthetic(0.05))}
    assert far["websearch overall avg FCT: PPT vs NDP (lower by)"].passed is False
    # The memcached "at least" bound is one-sided.
    assert far["memcached avg FCT: PPT vs the best other (lower by, min)"].passed is True
    assert rows["Fig. 20: DCTCP's lowest 100 us utilization"].ours == pytest.approx(25.0)
    # Fig. 14: 16.7 % overall (band 11.7-21.7): band 8.35-25.05, so 40 % lower misses; small p99 72.1 % (band 36.05-108.15) passes.
    assert rows["Fig. 14: PPT-Swift vs Swift, overall avg (lower by)"].passed is False
    assert rows["Fig. 14: PPT-Swift vs Swift, small p99 (lower by)"].passed is True
    assert far["Fig. 14: PPT-Swift vs Swift, small p99 (lower by)"].ours == pytest.approx(95.0)
    assert rows["Fig. 20: PPT's mean utilization above DCTCP's by"].ours == pytest.approx(100 * (0.50 / 0.43 - 1))
    assert rows["websearch shape: PPT has the lowest overall avg FCT (schemes beaten)"].passed
    worse = {h.name: h for h in ppt.headlines(synthetic(1.2))}
    assert worse["websearch shape: PPT has the lowest overall avg FCT (schemes beaten)"].passed is False
    # Baselines against each other, from the paper's reductions: DCTCP / Homa = (1 - .463) / (1 - .875).
    h = rows["websearch overall FCT: DCTCP / Homa (implied by the reductions)"]
    assert (h.low, h.high) == (2.148, 6.444)
    assert h.ours == pytest.approx(1.0) and h.passed is False
    assert rows["datamining overall FCT: NDP / Homa (implied by the reductions)"].passed  # 1.034 implied, 1.0 ours
    # Schemes that did not run leave their rows n/a, not pass or miss.
    partial = {k: v for k, v in synthetic(0.6).items() if "/aeolus" not in k}
    prow = {h.name: h for h in ppt.headlines(partial)}
    assert prow["websearch overall avg FCT: PPT vs Aeolus (lower by)"].passed is None
    assert prow["memcached avg FCT: PPT vs the best other (lower by, min)"].passed is None


def test_shipped_ppt_scenarios_are_the_reproductions_own():
    root = Path(__file__).parent.parent / "scenarios"
    assert fabricsim.load_scenario(root / "ppt-websearch.toml") == ppt.build("main/websearch/dctcp", "reduced")
    assert fabricsim.load_scenario(root / "ppt-websearch-homa.toml") == ppt.build("main/websearch/homa", "reduced")


def test_every_figure_renders_once_all_schemes_exist(tmp_path):
    # The figures PPT, RC3 and Aeolus will fill, drawn from synthetic results.
    r = synthetic(0.6)
    for s in ("dctcp", "ppt"):
        r[f"util/{s}"].update(t=[0.0201, 0.0202, 0.0203], util=[0.5, 0.25, 0.0])
    names = sorted(p.name for p in ppt.figures(r, tmp_path))
    assert names == sorted(["fig12_websearch.png", "fig13_datamining.png", "fig21_memcached.png", "fig15_ppt-no-lcp-ecn.png",
                            "fig16_ppt-no-ewd.png", "fig17_ppt-no-sched.png", "fig18_ppt-no-ident.png", "fig24_rc3_buffer.png",
                            "fig25_pias_hpcc.png", "fig26_nonoversubscribed.png", "fig27_send_buffer.png", "fig20_utilization.png",
                            "fig14_delay_based.png",
                            "fig23_incast.png"])
    assert set(ppt.runs_frame(r)["point"]) == set(r)


def test_the_alternative_lcp_marking_reads_the_port_for_lcp_queues_only():
    orig, alt = ppt.build("main/websearch/ppt", "reduced")["queue"], ppt.build("portk/websearch/ppt", "reduced")["queue"]
    assert orig["ecn_threshold"] == ["96KB"] * 4 + ["86KB"] * 4 and "ecn_port_threshold" not in orig
    assert alt["ecn_threshold"] == ["96KB"] * 4 + ["off"] * 4 and alt["ecn_port_threshold"] == ["off"] * 4 + ["86KB"] * 4
    fabricsim.validate(ppt.build("portk/websearch/ppt", "reduced"))


def test_the_engine_takes_the_send_buffer_key_so_figure_27_runs():
    ppt.send_buffer_supported.cache_clear()
    assert ppt.send_buffer_supported()
    assert not any(n.startswith("sndbuf/") for n in ppt.skipped("reduced"))
    assert ppt.build("sndbuf/128KB", "reduced")["transport"]["send_buffer"] == "128KB"


def test_rc3_with_a_limited_low_priority_buffer_is_a_valid_scenario():
    for pct in (20, 40, 60, 80):
        doc = ppt.build(f"rc3buf/{pct}", "reduced")
        assert doc["queue"]["queue_buffer"][1] == f"{round(pct / 100 * 120_000)}B"
        fabricsim.validate(doc)


def test_the_artifact_model_is_ns3_for_the_tcp_schemes_only():
    # Every change returns a new scenario (the text model's stays as it was) and leaves NDP, Homa
    # and Aeolus (their authors' simulators, §6.2) alone.
    for name in ("main/websearch/ppt", "main/websearch/dctcp", "main/websearch/homa", "main/websearch/ndp", "rc3buf/20", "pushout/websearch/ppt"):
        doc = ppt.build(name, "reduced")
        before = repr(doc)
        art = doc
        for c in ppt.ARTIFACT:
            art = c.apply(name, art)
        assert repr(doc) == before
        fabricsim.validate(art)
        if doc["transport"].get("kind") in ("homa", "ndp"):
            assert art is doc
    art = ppt.build("main/websearch/dctcp", "reduced")
    for c in ppt.ARTIFACT:
        art = c.apply("main/websearch/dctcp", art)
    q, t = art["queue"], art["transport"]
    # PrioQueueDisc: no port total, each band its 120 KB; RED marks at >= K, i.e. above K - 1 B.
    assert q["buffer"] == "unlimited" and q["queue_buffer"] == ["120KB"] * 8
    assert q["ecn_threshold"] == ["95999B"] * 4 + ["85999B"] * 4
    # ns-3's TCP, the text's min RTO kept; ns-3's 128 KB send buffer where the text sets none.
    assert art["host"] == {"stack": "ns-3"} and t["min_rto"] == "10ms"
    assert (t["rcv_buffer"], t["send_buffer"]) == ("unlimited", "131072B")
    p = ppt.build("main/websearch/ppt", "reduced")
    for c in ppt.ARTIFACT:
        p = c.apply("main/websearch/ppt", p)
    assert (p["transport"]["send_buffer"], p["transport"]["rcv_buffer"]) == ("2GB", "unlimited")
    # RC3's limited low-priority queues keep their limit; push-out keeps its 120 KB port.
    r = ppt.ARTIFACT[0].apply("rc3buf/20", ppt.build("rc3buf/20", "reduced"))
    assert r["queue"]["queue_buffer"] == ["120KB"] + ["24000B"] * 7
    po = ppt.build("pushout/websearch/ppt", "reduced")
    assert ppt.ARTIFACT[0].apply("pushout/websearch/ppt", po) is po and po["queue"]["admission"] == "pushout"
    # The ns3-tcp change alone keeps the text model's unlimited buffers.
    t = ppt.ARTIFACT[2].apply("main/websearch/dctcp", ppt.build("main/websearch/dctcp", "reduced"))["transport"]
    assert (t["rcv_buffer"], t["send_buffer"]) == ("unlimited", "unlimited")
    # ns-3's TcpDctcp rules are their own change: off under ns3-tcp alone, on in the whole column
    # (dctcp's knobs; ppt's and rc3's ns3_dctcp), nothing for the other algorithms.
    assert set(t["cc_params"].values()) == {0} and len(t["cc_params"]) == 7
    assert t["cc_params"].keys() == set(ppt.NS3_DCTCP_KNOBS["dctcp"])
    assert set(art["transport"]["cc_params"].values()) == {1}
    assert p["transport"]["cc_params"]["ns3_dctcp"] == 1
    alone = ppt.ARTIFACT[3].apply("main/websearch/ppt", ppt.build("main/websearch/ppt", "reduced"))
    assert ppt.ARTIFACT[3].name == "ns3-dctcp" and "host" not in alone and alone["transport"]["cc_params"]["ns3_dctcp"] == 1
    pias = ppt.build("main/websearch/pias", "reduced")
    assert ppt.ARTIFACT[3].apply("main/websearch/pias", pias) is pias
    assert ppt.CENTRAL == ["websearch overall avg FCT: PPT vs DCTCP (lower by)", "datamining overall avg FCT: PPT vs DCTCP (lower by)"]
    names = {h.name for h in ppt.headlines(synthetic(0.6))}
    assert set(ppt.CENTRAL) <= names


def test_the_ideal_fct_bound_row():
    # DCTCP's mean FCT 1 ms with a mean ideal FCT of 0.31 ms: no scheme can be more than 69 % lower,
    # so the paper's 87.5 % misses its bound (it needs a bound of at least 87.5 %).
    r = synthetic(0.6)
    r["main/websearch/dctcp"] = dict(r["main/websearch/dctcp"], ideal_mean=0.31e-3)
    h = {x.name: x for x in ppt.headlines(r)}["websearch: most any scheme can gain on DCTCP (ideal-FCT bound)"]
    assert h.ours == pytest.approx(69.0) and h.passed is False and h.low == 87.5
    assert ppt.ideal_bound({"a": {"all_mean": 2.0, "ideal_mean": 0.5}}, "a") == pytest.approx(75.0)


def test_incast_runs_past_its_last_arrival_at_paper_scale():
    # 20 000 flows at load 0.6 arrive over about 10.6 s: the end moves to 10 s after the last
    # arrival (a scenario with a flow starting after its end is refused); reduced keeps "10s".
    doc = ppt.build("incast/32/dctcp", "paper")
    last = max(int(f["start"][:-2]) for f in doc["flows"])
    assert last > ppt.SIM_END_PS and doc["simulation"]["end"] == f"{last + ppt.SIM_END_PS}ps"
    fabricsim.validate(doc)
    assert ppt.build("incast/32/dctcp", "reduced")["simulation"]["end"] == "10s"


def test_the_ns3_dctcp_knobs_written_are_the_algorithms_own():
    # ppt.NS3_DCTCP_KNOBS repeats the engine's Dctcp::NS3_RULES (and `ns3_dctcp`) by name: each
    # must be a knob of its algorithm, switched on or off (0 to 1).
    for cc, names in ppt.NS3_DCTCP_KNOBS.items():
        knobs = {k["name"]: k for k in fabricsim.cc_params(cc)}
        for n in names:
            assert n in knobs and (knobs[n]["min"], knobs[n]["max"], knobs[n]["default"]) == (0.0, 1.0, 0.0), (cc, n)
