"""The Python API: run, results as frames, Parquet round trip, determinism, conservation."""

import json

import pandas as pd
import pytest

import fabricsim
from fabricsim.scenario import apply_override, load_scenario


def test_run_returns_frames(tiny):
    res = fabricsim.run(tiny, progress=False)
    assert isinstance(res.flows, pd.DataFrame) and len(res.flows) == 2
    f0 = res.flows.iloc[0]
    assert f0["size"] == 200_000 and f0["bytes_acked"] == 200_000
    assert f0["fct_s"] > f0["ideal_fct_s"] > 0
    assert f0["slowdown"] == pytest.approx(f0["fct_s"] / f0["ideal_fct_s"])
    # The long-lived flow never finishes: FCT is missing, not zero.
    assert pd.isna(res.flows.iloc[1]["fct_s"])
    assert set(res.timeseries["metric"]) == {"queue_packets", "queue_bytes", "tx_bytes", "cwnd", "dctcp_alpha"}
    s = res.summary
    assert s["sim_time_s"] == pytest.approx(0.002)
    assert s["packets_created"] == s["packets_delivered"] + s["packets_dropped"] + s["packets_in_flight"]
    assert s["events"] > 0 and s["packet_hops"] > 0 and s["peak_rss_bytes"] > 0
    assert res.port("s0->h0")["tx_packets"] > 0


def test_save_and_load_roundtrip_pandas_and_polars(tiny, tmp_path):
    res = fabricsim.run(tiny, progress=False)
    d = res.save(tmp_path / "out")
    for name in ("flows.parquet", "ports.parquet", "timeseries.parquet", "summary.json"):
        assert (d / name).exists()
    back = fabricsim.Results.load(d)
    pd.testing.assert_frame_equal(back.flows, res.flows)
    assert back.summary == json.loads(json.dumps(res.summary))
    pl = pytest.importorskip("polars")
    flows = pl.read_parquet(d / "flows.parquet")
    assert flows.height == 2
    assert res.to_polars()["ports"].height == len(res.ports)


def test_same_seed_bit_identical_and_seed_changes_results(tiny):
    tiny["topology"]["link"]["loss_rate"] = 0.001
    a = fabricsim.run(tiny, progress=False)
    b = fabricsim.run(tiny, progress=False)
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.timeseries, b.timeseries)
    assert a.summary["events"] == b.summary["events"]
    c = fabricsim.run(tiny, progress=False, seed=99)
    assert not a.flows["bytes_acked"].equals(c.flows["bytes_acked"])


def test_overrides():
    doc = {"simulation": {"end": "1ms"}, "flows": [{"size": "1MB"}]}
    apply_override(doc, "simulation.end=5ms")
    apply_override(doc, "flows.0.size=10MB")
    apply_override(doc, "transport.initial_cwnd=4")
    apply_override(doc, "transport.sack=false")
    assert doc["simulation"]["end"] == "5ms"
    assert doc["flows"][0]["size"] == "10MB"
    assert doc["transport"] == {"initial_cwnd": 4, "sack": False}
    with pytest.raises(fabricsim.ScenarioError, match="not an index"):
        apply_override(doc, "flows.3.size=1MB")
    with pytest.raises(fabricsim.ScenarioError, match="key=value"):
        apply_override(doc, "simulation.end")


def test_bad_scenario_lists_every_problem(tiny):
    tiny["topology"]["link"]["rate"] = "10Gbs"
    tiny["simulation"]["sede"] = 1
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.validate(tiny)
    paths = [p for p, _ in e.value.issues]
    assert "topology.link.rate" in paths and "simulation.sede" in paths
    assert "try '10Gbps'" in str(e.value)


def test_example_scenario_is_valid(example):
    doc = load_scenario(example)
    fabricsim.validate(doc)


def test_workload_deadlines_and_d2tcp(tmp_path):
    """Deadlines from a workload (per KB of flow size, as SAB's benchmark) reach the flow table
    and the summary's miss fraction; D2TCP runs from a scenario."""
    doc = {
        "simulation": {"end": "20ms", "seed": 2},
        "topology": {"kind": "star", "hosts": 5, "link": {"rate": "10Gbps", "delay": "1us"}},
        "queue": {"buffer": "200pkt", "discipline": "ecn", "ecn_threshold": "20pkt"},
        "transport": {"cc": "d2tcp", "min_rto": "1ms"},
        "workload": [{"cdf": "websearch", "load": 0.6, "senders": ["h1", "h2", "h3", "h4"], "receiver": "h0",
                      "pattern": "many_to_one", "deadline_per_kb": "2us"}],
    }
    res = fabricsim.run(doc, progress=False)
    f = res.flows
    assert (f["cc"] == "d2tcp").all()
    # 2 us per started KB of size.
    expect = (f["size"].astype("int64") + 999) // 1000 * 2e-6
    assert ((f["deadline_s"] - expect).abs() < 1e-12).all()
    done = f[f["fct_s"].notna()]
    assert (done["deadline_met"] == (done["fct_s"] <= done["deadline_s"])).all()
    assert 0 <= res.summary["deadline_miss_fraction"] <= 1 and res.summary["deadline_flows"] >= len(done)
    res.save(tmp_path / "d")
    assert fabricsim.Results.load(tmp_path / "d").flows["deadline_met"].dtype == "boolean"


def test_cc_params_are_listed_and_set(tiny):
    knobs = {k["name"]: k for k in fabricsim.cc_params("cubic")}
    assert knobs["beta"]["default"] == 0.7 and knobs["c"]["default"] == 0.4
    assert fabricsim.cc_params("westwood") == []
    doc = dict(tiny)
    doc["transport"] = {"cc": "dctcp", "min_rto": "1ms", "cc_params": {"g": 0.5}}
    fabricsim.validate(doc)
    doc["transport"]["cc_params"] = {"gee": 0.5}
    with pytest.raises(fabricsim.ScenarioError, match="is not a parameter of 'dctcp'; did you mean 'g'"):
        fabricsim.validate(doc)
