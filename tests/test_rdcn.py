"""Hybrid circuit/packet networks from the user's side: scenario, results, validation, the
reTCP reproduction."""

import copy
import subprocess
import sys
from pathlib import Path

import pytest

import fabricsim
from fabricsim.reproduce.retcp import scenario

ROOT = Path(__file__).resolve().parent.parent


def small(**kw):
    """A 3-rack, 4-host-per-rack version of the Etalon setup, 30 weeks."""
    return scenario(racks=3, hosts=4, flows=4, weeks=30, warmup_weeks=2, **kw)


def test_hybrid_run_gives_circuit_tables_and_they_survive_parquet(tmp_path):
    res = fabricsim.run(small(), progress=False)
    days = res.circuit["days"]
    data_days = days[(days.src == 0) & (days.dst == 1)]
    # 3-rack strobe: pair (0, 1) has one 180 us day per 400 us week.
    assert len(data_days) == 32 and (data_days.length_s == 180e-6).all()
    assert 0 < res.summary["circuit_utilization"] <= 1
    lat = res.circuit["latency"].set_index("path")
    assert lat.loc["all", "packets"] == lat.loc["packet", "packets"] + lat.loc["circuit", "packets"]
    assert lat.loc["circuit", "p50_us"] < lat.loc["packet", "p99_us"]
    seq = res.circuit["seq_view"]
    pair = seq[(seq.src == 0) & (seq.dst == 1)]
    assert pair["expected_bytes"].is_monotonic_increasing and pair["optimal_bytes"].iloc[-1] >= pair["expected_bytes"].iloc[-1]
    assert pair["weeks"].iloc[0] >= 29
    res.save(tmp_path / "r")
    back = fabricsim.Results.load(tmp_path / "r")
    assert set(back.circuit) == {"days", "voqs", "seq_view", "latency", "uplinks"}
    assert back.circuit["days"].equals(res.circuit["days"])


def test_voq_series_are_sampled_per_pair():
    doc = small()
    doc["output"]["sample_interval"] = "100us"
    res = fabricsim.run(doc, progress=False)
    ts = res.timeseries
    voq = ts[ts.metric == "voq_packets"]
    assert set(voq.target) == {"tor0->tor1", "tor1->tor0"}
    assert voq.value.max() <= 16


def test_bad_hybrid_inputs_are_named():
    doc = small(cc="dctcp", feedback="circuit")
    doc["circuit"] = {"schedule": "list", "slots": [{"night": "20us", "day": "180us", "matching": [1, 1, -1]}]}
    doc["tor"]["voq"] = "0pkt"
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.validate(doc)
    msg = str(e.value)
    assert "circuit.slots[0].matching: [1, 1, -1] is not a matching" in msg
    assert "tor.voq: must hold at least one packet" in msg
    assert "tor.feedback: carries circuit state in the ECE bit" in msg and "dctcp" in msg
    plain = {"simulation": {"end": "1ms"}, "topology": {"kind": "star", "hosts": 2, "link": {"rate": "10Gbps", "delay": "1us"}},
             "tor": {"voq": "16pkt"}, "flows": [{"src": "h0", "dst": "h1"}]}
    with pytest.raises(fabricsim.ScenarioError, match=r"tor: only applies to a hybrid network"):
        fabricsim.validate(plain)


def test_same_seed_same_bits():
    a = fabricsim.run(small(), progress=False)
    b = fabricsim.run(copy.deepcopy(small()), progress=False)
    assert a.flows.equals(b.flows) and a.circuit["days"].equals(b.circuit["days"])


def test_reproduce_retcp_runs_from_the_cli(tmp_path):
    out = tmp_path / "rep"
    p = subprocess.run([sys.executable, "-m", "fabricsim", "reproduce", "retcp", "--only", "static/16", "--jobs", "1",
                        "--no-progress", "-o", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "paper vs ours" in p.stdout and "static 16-pkt VOQs: circuit utilization" in p.stdout
    assert (out / "runs.csv").exists() and (out / "headlines.csv").exists() and (out / "fig8_static_voq.png").exists()


def test_cli_run_prints_circuit_figures_and_plots_the_circuit_view(tmp_path):
    out = tmp_path / "run"
    p = subprocess.run([sys.executable, "-m", "fabricsim", "run", str(ROOT / "scenarios" / "rdcn-etalon.toml"), "-o", str(out),
                        "--set", "simulation.end=60ms", "--set", "output.warmup=10ms", "--no-progress", "--plot"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "circuit: utilization" in p.stdout and "latency through the ToRs" in p.stdout
    assert (out / "figures" / "circuit_view.png").exists() and (out / "circuit_days.parquet").exists()


def test_the_shipped_etalon_scenario_is_the_reproductions_own():
    # One source of truth: scenarios/rdcn-etalon.toml must read as the dict the reproduction builds
    # for its static/16 point at the reduced scale (retcp.SCALES["reduced"]).
    from fabricsim.reproduce import retcp

    shipped = fabricsim.load_scenario(ROOT / "scenarios" / "rdcn-etalon.toml")
    shipped.pop("description")
    sc = retcp.SCALES["reduced"]
    assert shipped == scenario(voq=16, weeks=sc["weeks"], warmup_weeks=sc["warmup_weeks"])
    assert ("static/16", shipped) in [(k, d) for k, d, _ in retcp.points("reduced")]
