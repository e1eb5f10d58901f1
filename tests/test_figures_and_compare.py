"""Figures, compare and topology as a user runs them."""

import subprocess
import sys

import pandas as pd

import fabricsim
from fabricsim import plots


def small_fabric():
    return {
        "name": "small",
        "simulation": {"end": "50ms", "seed": 2, "stop_when_done": True},
        "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4,
                     "link": {"rate": "10Gbps", "delay": "1us"}},
        "queue": {"buffer": "100pkt", "discipline": "ecn", "ecn_threshold": "20pkt"},
        "transport": {"cc": "dctcp", "min_rto": "2ms"},
        "workload": [{"cdf": "websearch", "load": 0.3, "flows": 40}],
        "output": {"sample_interval": "50us", "queues": ["leaf0->spine0", "leaf0->h0"]},
    }


def test_plot_results_writes_png_and_svg(tmp_path):
    res = fabricsim.run(small_fabric(), progress=False)
    written = plots.plot_results(res, tmp_path)
    names = {p.name for p in written}
    for stem in ("fct_cdf", "slowdown_vs_size", "queue", "throughput"):
        assert f"{stem}.png" in names and f"{stem}.svg" in names
        assert (tmp_path / f"{stem}.png").stat().st_size > 1000


def test_compare_api_same_flows_for_each_transport(tmp_path):
    c = fabricsim.compare(small_fabric(), ["dctcp", "newreno"], progress=False)
    a, b = c.runs[("dctcp", None)].flows, c.runs[("newreno", None)].flows
    # Same seed: the same workload draws (sizes, endpoints, start times) under both transports.
    pd.testing.assert_series_equal(a["size"], b["size"])
    pd.testing.assert_series_equal(a["start_ps"], b["start_ps"])
    assert set(a["cc"]) == {"dctcp"} and set(b["cc"]) == {"newreno"}
    t = c.table()
    assert ("fct_mean_s", "dctcp") in t.columns and "all" in t.index
    stats = c.stats()
    assert set(stats["scheme"]) == {"dctcp", "newreno"}


def test_compare_and_topology_commands(tmp_path):
    import json
    scen = tmp_path / "s.toml"
    d = small_fabric()
    # Write the dict as TOML by hand (no writer dependency).
    scen.write_text(
        'name = "small"\n[simulation]\nend = "50ms"\nseed = 2\nstop_when_done = true\n'
        '[topology]\nkind = "leaf_spine"\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\n'
        'link = { rate = "10Gbps", delay = "1us" }\n'
        '[queue]\nbuffer = "100pkt"\ndiscipline = "ecn"\necn_threshold = "20pkt"\n'
        '[transport]\ncc = "dctcp"\nmin_rto = "2ms"\n'
        '[[workload]]\ncdf = "websearch"\nload = 0.3\nflows = 40\n'
    )
    out = tmp_path / "cmp"
    p = subprocess.run([sys.executable, "-m", "fabricsim", "compare", str(scen), "--transports", "dctcp,newreno",
                        "--loads", "0.2,0.4", "-o", str(out), "--no-progress"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "(0, 100KB]" in p.stdout and "at load 0.4" in p.stdout
    lines = p.stdout.splitlines()
    # First the ports each transport ran on (issue 37), then the tables.
    assert lines[0].startswith("ports dctcp") and lines[1].startswith("ports newreno") and lines[2] == ""
    lines = lines[3:]
    assert "mean FCT" in lines[1] and "vs dctcp" in lines[1]
    assert lines[2].split()[-4:] and "dctcp" in lines[2] and "newreno" in lines[3]
    for name in ("compare.csv", "compare.png", "compare.svg", "fct_cdf.png", "fct_vs_load.png"):
        assert (out / name).exists(), name
    assert (out / "newreno_load0.2" / "flows.parquet").exists()
    p = subprocess.run([sys.executable, "-m", "fabricsim", "topology", str(scen)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "8 hosts, 4 switches" in p.stdout and "oversubscription   2:1" in p.stdout
    p = subprocess.run([sys.executable, "-m", "fabricsim", "plot", str(out / "dctcp_load0.2"), str(out / "newreno_load0.2"),
                        "-o", str(tmp_path / "figs")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "figs" / "fct_cdf.svg").exists()
    assert json.loads((out / "dctcp_load0.2" / "summary.json").read_text())["flows"] == 40


def test_topology_summary_api():
    s = fabricsim.topology_summary(small_fabric())
    assert (s["hosts"], s["switches"], s["paths_max"], s["diameter_hops"]) == (8, 4, 2, 4)


def test_compare_long_lived_flows_draws_throughput_and_queue(tmp_path):
    from pathlib import Path

    scen = Path(__file__).resolve().parent.parent / "scenarios" / "dumbbell-cc.toml"
    out = tmp_path / "cc"
    p = subprocess.run([sys.executable, "-m", "fabricsim", "compare", str(scen), "--transports", "newreno,vegas",
                        "--set", "simulation.end=20ms", "-o", str(out), "--no-progress"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "goodput" in p.stdout and "vegas" in p.stdout and "FCT by flow size" not in p.stdout
    assert (out / "throughput_queue.png").exists() and (out / "throughput_queue.svg").exists()
