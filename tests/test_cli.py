"""The command line as a user runs it."""

import json
import subprocess
import sys

import pandas as pd


def fabricsim(*args, check=True):
    p = subprocess.run([sys.executable, "-m", "fabricsim", *map(str, args)], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def test_run_example_writes_results(example, tmp_path):
    out = tmp_path / "ex"
    p = fabricsim("run", example, "-o", out, "--set", "simulation.end=2ms", "--seed", "5")
    assert "busiest ports" in p.stdout and "packet-hops" in p.stdout
    s = json.loads((out / "summary.json").read_text())
    assert s["seed"] == 5 and abs(s["sim_time_s"] - 0.002) < 1e-12
    assert len(pd.read_parquet(out / "flows.parquet")) == 4


def test_validate_ok_and_errors(example, tmp_path):
    assert "valid" in fabricsim("validate", example).stdout
    p = fabricsim("validate", example, "--set", "topology.link.rate=40Gbs", "--set", "flows.0.dst=h9", check=False)
    assert p.returncode == 2
    assert "topology.link.rate: '40Gbs' is not a rate; try '40Gbps'" in p.stderr
    assert "flows[0].dst" in p.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("[simulation\nend = 1")
    p = fabricsim("validate", bad, check=False)
    assert p.returncode == 2 and "not valid TOML" in p.stderr
    p = fabricsim("run", tmp_path / "missing.toml", check=False)
    assert p.returncode == 2 and "no scenario file" in p.stderr
    # The tie order's values, named on one line before anything runs.
    p = fabricsim("validate", example, "--set", "simulation.tie_order=fifo", check=False)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    line = next(l for l in p.stderr.splitlines() if "tie_order" in l)
    assert "simulation.tie_order: 'fifo' is not known" in line and "event, scheduled, scheduled_pipe" in line


def test_help_teaches():
    out = fabricsim("run", "--help").stdout
    assert "--set" in out and "examples:" in out and "flows.parquet" in out
    assert "bench" in fabricsim("--help").stdout


def test_bench_lists_b1():
    assert "dctcp-16to1" in fabricsim("bench", "--list").stdout


def test_interrupted_run_keeps_what_it_has(tmp_path):
    """Ctrl-C stops the run between chunks; results so far are written and marked."""
    import signal
    import time
    from pathlib import Path

    bench = Path(__file__).resolve().parent.parent / "python" / "fabricsim" / "benchmarks" / "dctcp-16to1.toml"
    out = tmp_path / "int"
    p = subprocess.Popen(
        [sys.executable, "-m", "fabricsim", "run", str(bench), "-o", str(out), "--no-progress",
         "--set", "simulation.end=60s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    time.sleep(6.0)  # inside the simulation even on a busy machine (before it, Ctrl-C ends the command with no results)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 130, stderr
    assert "interrupted at" in stderr and "INTERRUPTED" in stdout
    s = json.loads((out / "summary.json").read_text())
    assert s["interrupted"] is True and 0 < s["sim_time_s"] < 60
    assert s["packets_created"] == s["packets_delivered"] + s["packets_dropped"] + s["packets_in_flight"]
    assert pd.read_parquet(out / "flows.parquet")["bytes_acked"].sum() > 0


def test_run_prints_fct_table_per_workload_and_plots(tmp_path):
    cdf = tmp_path / "two_sizes.cdf"
    cdf.write_text("# name: two sizes\n1000 0\n1000 0.5\n200000 0.5\n200000 1.0\n")
    scen = tmp_path / "mix.toml"
    scen.write_text(
        '[simulation]\nend = "20ms"\nstop_when_done = true\n'
        '[topology]\nkind = "fat_tree"\nk = 4\nlink = { rate = "10Gbps", delay = "1us" }\n'
        '[transport]\nmin_rto = "2ms"\n'
        '[[workload]]\ncdf = "two_sizes.cdf"\nname = "mine"\nload = 0.2\nflows = 30\n'
        '[[workload]]\ncdf = "homa_w1"\nsampling = "step"\nload = 0.05\nflows = 30\n'
        '[output]\nsample_interval = "100us"\nqueues = ["edge0_0->agg0_0"]\n'
    )
    out = tmp_path / "out"
    p = fabricsim("run", scen, "-o", out, "--plot", "--no-progress")
    assert "FCT by flow size" in p.stdout and "workload mine:" in p.stdout and "workload homa_w1:" in p.stdout
    assert "(100KB, 10MB]" in p.stdout
    assert (out / "figures" / "fct_cdf.png").exists() and (out / "figures" / "queue.svg").exists()
    flows = pd.read_parquet(out / "flows.parquet")
    assert set(flows.loc[flows.workload == "mine", "size"]) == {1000, 200000}


def test_list_cc_and_workloads():
    import fabricsim

    out = fabricsim_cli_list("cc")
    for name in ("newreno", "reno", "dctcp", "cubic", "bic", "highspeed", "htcp", "hybla", "scalable", "veno", "westwood", "vegas", "illinois", "yeah", "ledbat", "nv", "cdg", "bbr", "lp"):
        assert name in fabricsim.congestion_controls()
        assert f"\n{name} " in "\n" + out
    assert "websearch" in fabricsim.workloads() and "fb_hadoop_mqecn" in fabricsim_cli_list("workloads")


def fabricsim_cli_list(what):
    return fabricsim("list", what).stdout


def test_bench_reports_the_busiest_port_or_none_for_a_permutation():
    import pandas as pd

    from fabricsim.bench import BENCHMARKS, pick_bottleneck

    ports = pd.DataFrame({"port": ["a->b", "b->c", "c->a"], "utilization": [0.2, 0.9, 0.5]})
    assert pick_bottleneck(ports, "busiest") == "b->c"
    assert pick_bottleneck(ports, "c->a") == "c->a"
    assert pick_bottleneck(ports, None) is None
    # The permutations (B4, B5) name no bottleneck; B2 reports its busiest port.
    assert BENCHMARKS["fattree-permutation"].bottleneck is None and BENCHMARKS["ndp-permutation"].bottleneck is None
    assert BENCHMARKS["leafspine-websearch"].bottleneck == "busiest"


def test_b7_is_listed_but_runs_only_when_named():
    from fabricsim.bench import BENCHMARKS

    assert "leafspine-websearch-1m" in fabricsim("bench", "--list").stdout
    assert not BENCHMARKS["leafspine-websearch-1m"].default
    # B7 (half an hour) and B8 at k = 48 (tens of minutes) run only when named.
    assert [n for n, b in BENCHMARKS.items() if not b.default] == ["leafspine-websearch-1m", "fattree-k48"]
