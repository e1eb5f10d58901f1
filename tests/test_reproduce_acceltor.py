"""The AccelToR reproduction's pipeline (fabricsim reproduce acceltor): the scenarios carry the
paper's setup (Chen et al., §IV-B), the bands are two-sided, misses are printed as such, and a
tiny run yields every table. The reproduction itself is too long for the test suite."""

import io

import numpy as np
import pandas as pd
import pytest

import fabricsim
from fabricsim.reproduce import PAPERS, acceltor as A
from fabricsim.reproduce.common import Headline, headline_frame, print_headlines


def tor_rows(doc) -> dict:
    return dict(fabricsim.topology_summary(doc)["tor"])


def test_registered():
    assert "acceltor" in PAPERS


def test_paper_scale_takes_every_setup_value_from_the_paper():
    keys = [k for k, _ in A.plan("paper")]
    # Fig. 8: 8 to 72 racks; the other figures at 50 racks (§IV-C to §IV-H).
    assert sorted({int(k.split("/")[1]) for k in keys if k.startswith("racks/")}) == [8, 16, 24, 32, 40, 48, 56, 64, 72]
    assert len({k.split("/")[1] for k in keys if k.startswith("cca/")}) == 16
    pts = {k: doc for k, doc, _ in A.points("paper", only=["compare/", "cca/dctcp/acceltor", "cca/cubic/acceltor", "margin/", "queue/300"])}
    doc = pts["compare/acceltor"]
    t = doc["topology"]
    assert t["racks"] == 50
    # §IV-B: "the capacities of the uplinks connecting to the EPS and the OCS as 10 Gbit/s and 80 Gbit/s".
    assert t["packet_link"]["rate"] == "10Gbps" and t["circuit_link"]["rate"] == "80Gbps"
    # "tau_day = 240 us and tau_night = 20 us"; a strobe of N - 1 matchings (§II-B).
    assert doc["circuit"] == {"schedule": "strobe", "day": "240us", "night": "20us"}
    # "|F_i| = 80 largest flows as elephant flows": 80 long-lived flows per ordered rack pair.
    assert doc["tor"]["elephants"]["per_pair"] == 80
    assert len(doc["flows"]) == 50 * 49 * 80
    # HP/LP 150 kB, B = 500 kB; NewReno.
    assert doc["tor"]["acceltor"] == {"hp": "150KB", "lp": "150KB", "queue": "500KB", "safe_margin": True}
    assert doc["transport"]["cc"] == "newreno"
    # "An experiment lasts 5 seconds": 5 s / 12.74 ms = 392 whole weeks at 50 racks.
    assert A.weeks_in(50) == 392 and doc["simulation"]["end"] == f"{392 * 12740}us"
    # "suppose that the network has 72 racks, then each week lasts 18.46 ms, and 5 seconds contain 270 weeks".
    assert A.week_us(72) == 18460 and A.weeks_in(72) == 270
    # Blocking: 300 kB packet queue + 1.5 MB of per-destination queues; Unblocking: one 1.8 MB queue.
    assert pts["compare/blocking"]["tor"]["blocking"] == {"packet_queue": "300KB", "circuit_pool": "1500KB"}
    assert pts["compare/unblocking"]["tor"]["unblocking"] == {"shared": "1.8MB"}
    # §IV-H: DCTCP marks at 65 packets at the EPS; the others do not mark.
    assert pts["cca/dctcp/acceltor"]["queue"]["ecn_threshold"] == "65pkt"
    assert "ecn_threshold" not in pts["cca/cubic/acceltor"]["queue"]
    assert len(A.CCAS) == 16
    # §IV-F: 1 % loss inside the racks; K = K_1 + 1 without the margin.
    assert pts["margin/on"]["topology"]["host_downlink"]["loss_rate"] == 0.01
    assert pts["margin/off"]["tor"]["acceltor"]["safe_margin"] is False
    # §IV-G: 300 kB calendar queues, overflow through the LP queue.
    assert pts["queue/300"]["tor"]["acceltor"]["queue"] == "300KB" and pts["queue/300"]["tor"]["acceltor"]["overflow"] == "lp"
    # Fig. 14: 10 % to 95 % load.
    assert min(A.LOADS) == 10 and max(A.LOADS) == 95


def test_derived_values_match_the_papers():
    # "the RTT of the optical circuit network is set as 55 us, and the RTT of the packet network
    # is 60 us" -> n = floor(240 / 55) = 4, m = 2 (2 < 4 <= 4), K_1 = ceil(3 * 60 / 260) = 1,
    # K = 3 ("we have m = 2 and use K = 3 queues"); eq. (6) at 50 racks: 12740 - 240 - 3 * 60.
    rows = tor_rows(A.scenario(racks=50, per_pair=1, weeks=1, warmup_weeks=0))
    assert rows["rtt_packet"] == "60.000 us" and rows["rtt_circuit"] == "55.000 us"
    assert rows["m"].startswith("2 ") and rows["k1"].startswith("1 ") and rows["k"].startswith("3 ")
    assert rows["rto_min"].startswith("12320.0")
    assert tor_rows(A.scenario(racks=50, per_pair=1, weeks=1, warmup_weeks=0, safe_margin=False))["k"].startswith("2 ")
    # Eq. (7) for Blocking: week - day.
    assert tor_rows(A.scenario(policy="blocking", racks=50, per_pair=1, weeks=1, warmup_weeks=0))["rto_min"].startswith("12500.000")
    # §III-F: 2^m x |F_i| = 4 x 80 packets of 1500 B = 480 kB <= B = 500 kB.
    assert "= 480000 B fits" in tor_rows(A.scenario(racks=4, weeks=1, warmup_weeks=0))["queue"]


def test_load_is_the_mice_rate_over_each_racks_eps_uplink():
    # §IV-B: "load, which is defined as the ratio between the aggregated rate of the mice flows
    # and the EPS bandwidth". Each rack's two 100 Gb/s hosts offer 2.5 % of their links, 5 Gb/s
    # = 50 % of the rack's 10 Gb/s uplink, to hosts of other racks only.
    doc = A.scenario(racks=4, per_pair=1, load_pct=50, weeks=1, warmup_weeks=0)
    up = fabricsim.offered_load(doc)["uplink"][1]
    assert up * A.HOSTS * A.HOST_GBPS / A.EPS_GBPS == pytest.approx(0.5)
    for r, w in enumerate(doc["workload"]):
        rack = lambda h: int(h[1:]) // A.HOSTS  # noqa: E731
        assert {rack(h) for h in w["senders"]} == {r} and r not in {rack(h) for h in w["receivers"]}
    assert A.scenario(racks=4, per_pair=1, load_pct=0, weeks=1, warmup_weeks=0)["workload"] == []


def test_capacity_bound_by_hand():
    # 50 racks: 80 Gb/s x 240 us = 19.2 Mb per day, plus 10 Gb/s x 12.74 ms / 49 = 2.6 Mb of EPS
    # share, over 12.74 ms and 80 elephants: 21.39 Mb/s.
    assert A.capacity_mbps(50) == pytest.approx((19.2e6 + 10e9 * 12.74e-3 / 49) / 12.74e-3 / 80 / 1e6)
    assert 21.3 < A.capacity_mbps(50) < 21.5


def fake(occ: dict, fct: dict, weekly=25.0) -> dict:
    return {f"compare/{p}": {"occupancy": occ[p], "mice_norm_fct": fct[p], "weekly_mbps": np.full(10, weekly),
                              "idle_day_fraction": 0.5} for p in A.SCHEMES}


#: Headlines whose paper statement is a direction, not a value ("a greater variance").
DIRECTION_ONLY = {"Fig. 16: p90-p10 of weekly throughput, 300 KB / 500 KB"}


def test_bands_are_two_sided():
    r = fake({"acceltor": 0.9, "blocking": 0.1, "unblocking": 0.07}, {"acceltor": 1.01, "blocking": 1.0, "unblocking": 80})
    for n in (8, 16):
        for p in A.SCHEMES:
            r[f"racks/{n}/{p}"] = {"occupancy": 0.9, "weekly_mbps": np.ones(3)}
    for ld in A.LOADS:
        for p in A.SCHEMES:
            r[f"load/{ld}/{p}"] = {"occupancy": 0.9, "weekly_mbps": np.ones(3)}
    for q in (300, 500):
        r[f"queue/{q}"] = {"occupancy": 0.9, "weekly_mbps": np.arange(10.0)}
    rows = A.headlines(r, "paper")
    assert len(rows) >= 15
    for h in rows:
        if h.name in DIRECTION_ONLY:
            continue
        assert h.low is not None and h.high is not None, h.name
        assert h.low < h.high or h.name.startswith("Fig. 17a"), h.name


def test_printer_reports_a_miss_honestly():
    # AccelToR at 40 % occupancy (paper: > 90 %) and 2x Blocking (paper: 8.24x) are misses.
    r = fake({"acceltor": 0.4, "blocking": 0.2, "unblocking": 0.03}, {"acceltor": 1.01, "blocking": 1.0, "unblocking": 80})
    rows = A.headlines(r, "paper")
    byname = {h.name: h for h in rows}
    assert byname["AccelToR optical occupancy, 50 % load"].passed is False
    assert byname["occupancy AccelToR / Blocking"].passed is False
    assert byname["mice norm. FCT: AccelToR vs Blocking"].passed is True
    buf = io.StringIO()
    print_headlines(rows, "t", file=buf)
    text = buf.getvalue()
    line = next(ln for ln in text.splitlines() if ln.startswith("occupancy AccelToR / Blocking"))
    assert line.rstrip().endswith("MISS") and "2x" in line
    frame = headline_frame(rows)
    assert (frame.loc[frame.headline == "AccelToR optical occupancy, 50 % load", "result"] == "MISS").all()
    # Nothing measured is "n/a", never a pass.
    assert Headline("x", "1", 0, 2, float("nan")).passed is None


def test_weekly_throughput_is_rescaled_to_fifty_racks():
    # A week of N racks lasts N - 1 slots, so per-flow throughput scales with 1/(N - 1): 8 racks'
    # 196 Mb/s is 196 x 7/49 = 28 Mb/s at 50 racks.
    r = fake({"acceltor": 0.9, "blocking": 0.1, "unblocking": 0.07}, {"acceltor": 1, "blocking": 1, "unblocking": 80}, weekly=196.0)
    h = next(h for h in A.headlines(r, "reduced") if h.name.startswith("AccelToR weekly"))
    assert h.ours == pytest.approx(28.0)


def test_cwnd_is_folded_onto_the_day():
    # 3 racks: week = 2 x 260 us; pair 0 -> 1's day starts 20 us into each week. Samples at
    # 540 us (20 us into week 1's day) and at 1060 us (the same offset in week 2) average.
    cw = pd.DataFrame({"time_s": [540e-6, 1060e-6, 100e-6], "cwnd": [10.0, 30.0, 999.0]})
    f = A.fold_cwnd(cw, 3, warmup_us=520)
    assert f.set_index("offset_us").loc[0.0, "cwnd"] == 20.0
    assert 999.0 not in f.cwnd.values  # before the warm-up ended


def test_tiny_run_produces_the_tables(tmp_path):
    r = {}
    for p in A.SCHEMES:
        doc = A.scenario(policy=p, racks=3, per_pair=4, weeks=8, warmup_weeks=1, load_pct=90, cwnd_pair=True)
        res = fabricsim.run(doc, progress=False)
        r[f"compare/{p}"] = A.extract(res, 3, 1)
    written = {p.name for p in A.tables(r, tmp_path)}
    assert written == {"elephant_throughput.parquet", "optical_occupancy.parquet", "mice_fct.parquet", "cwnd_day.parquet"}
    ew = pd.read_parquet(tmp_path / "elephant_throughput.parquet")
    assert {"weekly_gbps", "daily_gbps", "point"} <= set(ew.columns)
    assert len(ew) == 3 * (3 * 2 * 4 * 8)  # schemes x pairs x elephants x measured weeks
    days = pd.read_parquet(tmp_path / "optical_occupancy.parquet")
    assert (days.week >= 1).all() and days.utilization.between(0, 1).all()
    cw = pd.read_parquet(tmp_path / "cwnd_day.parquet")
    assert cw.offset_us.between(-100, 340).all() and (cw.cwnd >= 4).all()
    runs = A.runs_frame(r)
    assert set(runs.point) == {f"compare/{p}" for p in A.SCHEMES}
    rows = A.headlines(r, "reduced")
    assert all(isinstance(h.ours, float) for h in rows[:3])


def test_a_stored_runs_large_tables_are_read_back_not_held(tmp_path):
    # A run read from a store keeps only loaders of its per-elephant-week and per-day tables
    # (a paper-scale rack sweep's would not fit in memory); the tables written, the runs frame and
    # the headlines are the same as from the run in memory.
    doc = A.scenario(policy="acceltor", racks=3, per_pair=4, weeks=8, warmup_weeks=1, load_pct=90)
    res = fabricsim.run(doc, progress=False)
    res.save(tmp_path / "run")
    held = {"compare/acceltor": A.extract(res, 3, 1)}
    stored = {"compare/acceltor": A.extract(fabricsim.Results.load(tmp_path / "run"), 3, 1)}
    assert isinstance(held["compare/acceltor"]["days"], pd.DataFrame)
    assert callable(stored["compare/acceltor"]["days"]) and callable(stored["compare/acceltor"]["elephant_weeks"])
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = sorted(p.name for p in A.tables(held, tmp_path / "a"))
    b = sorted(p.name for p in A.tables(stored, tmp_path / "b"))
    assert a == b == ["elephant_throughput.parquet", "mice_fct.parquet", "optical_occupancy.parquet"]
    for name in a:
        x, y = pd.read_parquet(tmp_path / "a" / name), pd.read_parquet(tmp_path / "b" / name)
        assert len(x) > 0
        pd.testing.assert_frame_equal(x, y)
    pd.testing.assert_frame_equal(A.runs_frame(held).drop(columns="wall_s"), A.runs_frame(stored).drop(columns="wall_s"))
    pd.testing.assert_frame_equal(A.weekly_occupancy(held["compare/acceltor"]), A.weekly_occupancy(stored["compare/acceltor"]))
    # Two runs' tables go into one file, one after the other, each with its point.
    two = {"compare/acceltor": stored["compare/acceltor"], "compare/other": stored["compare/acceltor"]}
    (tmp_path / "c").mkdir()
    A.tables(two, tmp_path / "c")
    days = pd.read_parquet(tmp_path / "c" / "optical_occupancy.parquet")
    assert list(days.point.unique()) == ["compare/acceltor", "compare/other"]
    assert len(days) == 2 * len(pd.read_parquet(tmp_path / "a" / "optical_occupancy.parquet"))
    # A run whose stored table has gone leaves no half-written file behind.
    (tmp_path / "run" / "circuit_days.parquet").unlink()
    (tmp_path / "d").mkdir()
    with pytest.raises(fabricsim.ResultsError):
        A.tables(stored, tmp_path / "d")
    assert not list((tmp_path / "d").glob("optical_occupancy*"))


def test_b6_is_the_fifty_rack_network_and_bench_reports_under_the_benchmarks_name(monkeypatch):
    from fabricsim import bench

    doc = bench.acceltor_50()
    assert doc["topology"]["racks"] == 50 and len(doc["flows"]) == 196_000 and doc["simulation"]["end"] == "30ms"
    assert bench.BENCHMARKS["acceltor-50"].build == "acceltor_50"
    # The run's figures carry the benchmark's name (the bottleneck port's name once overwrote it).
    monkeypatch.setitem(bench.BENCHMARKS, "tiny", bench.Benchmark("", "tor0->eps", "tiny", build="tiny"))
    monkeypatch.setattr(bench, "tiny", lambda: A.scenario(racks=3, per_pair=2, weeks=2, warmup_weeks=0), raising=False)
    r = bench.run_benchmark("tiny")
    assert r["name"] == "tiny" and r["bottleneck"] == "tor0->eps" and 0 < r["circuit_utilization"] <= 1
    bench.print_result({**r, "repeat": 1, "engine_wall_s_all": [r["engine_wall_s"]]})


def test_paper_scale_records_weekly_rows_for_a_sample_of_pairs_only():
    # 50 racks x 80 elephants is 196 000 weekly rows a week: paper scale keeps 100 pairs' rows.
    from fabricsim.reproduce import acceltor as acc

    paper = dict(acc.plan("paper"))
    assert paper["compare/acceltor"]["racks"] == 50 and paper["compare/acceltor"]["record_pairs"] == acc.RECORD_PAIRS == 100
    assert all("record_pairs" not in kw for _, kw in acc.plan("reduced"))
    # Fig. 11's 10 us cwnd samples over 5 s would not fit: only the reduced comparison traces them.
    assert not paper["compare/acceltor"]["cwnd_pair"] and dict(acc.plan("reduced"))["compare/acceltor"]["cwnd_pair"]
    doc = acc.scenario(racks=8, weeks=1, record_pairs=100)  # 56 pairs: all of them, no key
    assert "record_pairs" not in doc["tor"]["elephants"]
    doc = acc.scenario(racks=8, weeks=1, record_pairs=5)
    assert doc["tor"]["elephants"]["record_pairs"] == 5
    fabricsim.validate(doc)


def test_printer_says_so_when_no_headline_was_scored():
    # `fabricsim reproduce PAPER --only PREFIX` may run only points that no headline reads.
    buf = io.StringIO()
    print_headlines([], "t", file=buf)
    assert "no headline scored" in buf.getvalue()


def test_artifact_changes_copy_the_scenario_and_touch_only_their_schemes():
    import copy
    from fabricsim.reproduce.common import artifact_scenario
    for policy in A.SCHEMES:
        doc = A.scenario(policy=policy, racks=4, weeks=1)
        before = copy.deepcopy(doc)
        for c in A.ARTIFACT:
            new = c.apply(f"compare/{policy}", doc)
            assert doc == before, c.name
            if c.name in ("case4-window", "count-acceleration", "lp-by-bytes-left") and policy != "acceltor" or c.name == "ns3-dctcp":
                assert new is doc, c.name  # (ns3-dctcp: NewReno here)
            else:
                assert new is not doc and new != doc, c.name
        art = artifact_scenario(A.ARTIFACT, f"compare/{policy}", doc)
        assert art["transport"]["tlp"] is False and art["transport"]["initial_cwnd"] == 1
        assert art["transport"]["loss_exit"] == "ns3" and art["transport"]["handshake"] is True
        # scratch-FTwarmup.cc sets TcpSocketBase::Timestamp false: no option bytes, no RTT sample
        # from every ACK (the text model keeps ns-3's default, on).
        assert art["transport"]["timestamps"] is False and art["transport"]["header"] == 42
        assert doc["transport"]["timestamps"] is True
        # ns-3's NewAck ends a timeout's back-off at the next new ACK; the text model keeps Karn's.
        assert art["transport"]["rto_backoff_end"] == "new_ack" and "rto_backoff_end" not in doc["transport"]
        assert art["topology"]["packet_link"]["rate"] == "50Gbps"
        # The authors' EraseFlow keeps the sketch; their Prio2Device picks LP by bytes left.
        assert art["tor"]["elephants"]["forget"] == "keep-count"
        assert art["tor"].get("acceltor", {}).get("lp_left") == ("52224B" if policy == "acceltor" else None)
        fabricsim.validate(art)
    assert len({c.name for c in A.ARTIFACT}) == len(A.ARTIFACT)


def test_the_dctcp_points_get_ns3s_tcpdctcp_rules():
    # Fig. 17's DCTCP: in the artifact model ns-3's TcpDctcp (cc_params) and its socket's ECN
    # rules; PRR's ns-3 entry because ns3-loss-recovery turns PRR on; NewReno untouched.
    from fabricsim.reproduce.common import artifact_scenario
    doc = A.scenario(policy="acceltor", racks=4, weeks=1, cc="dctcp")
    art = artifact_scenario(A.ARTIFACT, "cca/dctcp/acceltor", doc)
    t = art["transport"]
    assert (t["ect_syn"], t["dctcp_echo"], t["cwr_exit"], t["prr_entry"]) == (True, "ns3", "beyond", "ns3")
    assert t["cc_params"] == {k: 1 for k in A.NS3_DCTCP_RULES} and len(t["cc_params"]) == 7
    assert "cc_params" not in doc["transport"] and "dctcp_echo" not in doc["transport"]
    fabricsim.validate(art)
    # Alone (the one-change table), without PRR, no PRR entry rule: a valid scenario.
    one = next(c for c in A.ARTIFACT if c.name == "ns3-dctcp").apply("cca/dctcp/acceltor", doc)
    assert "prr_entry" not in one["transport"]
    fabricsim.validate(one)


def test_staggered_starts_follow_the_authors_start_plan():
    # scratch-FTwarmup.cc: 50 racks, source 0, destinations 6, 7, ..., 49, 1, ..., 5; the j-th
    # starts at 20 + 260 j us.
    assert A.stagger_start_us(0, 6, 50) == 20
    assert A.stagger_start_us(0, 7, 50) == 280
    assert A.stagger_start_us(0, 49, 50) == 20 + 260 * 43
    assert A.stagger_start_us(0, 1, 50) == 20 + 260 * 44
    assert A.stagger_start_us(0, 5, 50) == 20 + 260 * 48
    # 8 racks, source 3: 1, 2, 4, 5, 6, 7, 0 -> rack 0 is the last (j = 6).
    assert A.stagger_start_us(3, 1, 8) == 20 and A.stagger_start_us(3, 0, 8) == 20 + 260 * 6


def test_flows_share_their_host_and_start_strings():
    # At paper scale a scenario holds hundreds of thousands of flows: each host's name and each
    # rack pair's start time is one string the flows share, and the staggered starts land where
    # the start plan puts them.
    doc = A.scenario(racks=8)
    flows = doc["flows"]
    assert len({id(f["src"]) for f in flows}) == len({f["src"] for f in flows}) == 16
    staggered = next(c for c in A.ARTIFACT if c.name == "staggered-starts").apply("racks/8/acceltor", doc)
    starts = staggered["flows"]
    assert len({id(f["start"]) for f in starts}) == 8 * 7  # one per ordered rack pair
    first = next(f for f in starts if f["src"] == "h6" and f["dst"] == "h0")  # rack 3 -> rack 0
    assert first["start"] == f"{20 + 260 * 6}us"
    assert "start" not in flows[0], "the text scenario is left as it was"


def test_central_names_are_headlines_at_each_scale():
    for scale in ("reduced", "paper"):
        names = {h.name for h in A.headlines({}, scale)}
        assert set(A.central(scale)) <= names, scale
    assert A.CENTRAL_POINTS == ["compare/"]


def test_the_scripts_traffic_is_a_reading_shown_beside_the_model():
    # scratch-FTwarmup.cc sends every elephant from rack 0 (80 to each other rack) and fixed
    # 150 000 B mice from rack 0, 350 a second to each rack (all through the run: the traces' 1 s
    # covers the scripts' runs of 0.15-1 s); the text has 80
    # elephants per ordered pair and web-search mice from every rack. Not adopted: readings only.
    assert {c.name for c in A.READINGS} == {"elephants-from-rack-0", "mice-150kb-from-rack-0"}
    assert all(c.reading for c in A.READINGS) and not any(c.reading for c in A.ARTIFACT)
    el, mice = (next(c for c in A.READINGS if c.name == n) for n in ("elephants-from-rack-0", "mice-150kb-from-rack-0"))
    doc = A.scenario(racks=8)
    doc["tor"]["elephants"]["record_pairs"] = 5
    one = el.apply("compare/acceltor", doc)
    assert len(doc["flows"]) == 8 * 7 * 80 and len(one["flows"]) == 7 * 80
    assert {A._rack(f["src"], A.HOSTS) for f in one["flows"]} == {0}
    assert {A._rack(f["dst"], A.HOSTS) for f in one["flows"]} == set(range(1, 8))
    assert "record_pairs" not in one["tor"]["elephants"] and doc["tor"]["elephants"]["record_pairs"] == 5
    # 350 flows/s x 49 racks x 150 000 B x 8 bit = 20.58 Gb/s on two 100 Gb/s hosts: load 0.1029.
    assert A.script_mice_load(50) == pytest.approx(350 * 49 * 150_000 * 8 / 200e9) == pytest.approx(0.1029)
    two = mice.apply("compare/acceltor", doc)
    (w,) = two["workload"]
    assert w["size"] == "150000B" and "stop" not in w and w["senders"] == ["h0", "h1"]
    assert w["receivers"] == [f"h{x}" for x in range(2, 16)] and w["load"] == pytest.approx(350 * 7 * 1.2e6 / 200e9)
    assert len(doc["workload"]) == 8, "the text scenario is left as it was"
    assert mice.apply("load/90/acceltor", doc) is doc  # Fig. 14's loads keep the text's mice
    fabricsim.validate(el.apply("x", two))


def test_occupancy_is_measured_on_the_days_of_pairs_with_elephants():
    # With elephants one way only (rack 0 out), the reverse pairs' days carry their ACKs and are
    # listed in the days table; the occupancy is that of the elephants' pairs' days. With
    # elephants on every pair nothing is left out.
    el = next(c for c in A.READINGS if c.name == "elephants-from-rack-0")
    doc = A.scenario(policy="acceltor", racks=3, per_pair=4, weeks=6, warmup_weeks=1, load_pct=0)
    res = fabricsim.run(el.apply("compare/acceltor", doc), progress=False)
    all_days = A._measured_days(res.circuit["days"], 1 * A.week_us(3) * 1e6, A.week_us(3) * 1e6)
    assert {(1, 0), (2, 0)} <= set(zip(all_days.src, all_days.dst)), "the ACKs' pairs are listed"
    d = A.extract(res, 3, 1)
    assert set(zip(d["days"].src, d["days"].dst)) == {(0, 1), (0, 2)}
    mine = all_days[all_days.src == 0]
    assert d["occupancy"] == pytest.approx(mine.utilization.mean()) and d["occupancy"] > all_days.utilization.mean()
    full = fabricsim.run(doc, progress=False)
    kept = A.extract(full, 3, 1)["days"]
    assert len(kept) == len(A._measured_days(full.circuit["days"], A.week_us(3) * 1e6, A.week_us(3) * 1e6))
