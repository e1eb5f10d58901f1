"""Sweeps: definitions, the resumable store, local and Dask executors, failures, interruption."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from fabricsim.scenario import ScenarioError
from fabricsim.sweep import Sweep, load, run_sweep, scenario_hash

ROOT = Path(__file__).resolve().parent.parent


def tiny_base():
    return {
        "name": "sweep-tiny",
        "simulation": {"end": "5ms", "seed": 1},
        "topology": {"kind": "star", "hosts": 3, "link": {"rate": "10Gbps", "delay": "1us"}},
        "transport": {"cc": "dctcp", "min_rto": "1ms"},
        "workload": [{"cdf": "websearch", "load": 0.5, "senders": ["h1", "h2"], "receiver": "h0", "pattern": "many_to_one"}],
    }


def comparable(table: pd.DataFrame) -> pd.DataFrame:
    """A run's figures without the wall-clock and memory columns."""
    keep = [c for c in table.columns if "wall" not in c and "rss" not in c]
    return table[keep].sort_values("key").reset_index(drop=True)


def test_hash_is_stable_across_processes_and_pinned():
    doc = {"b": [1, 2.5, "x"], "a": {"z": True, "y": None}}
    # SHA-256 over canonical JSON ({"a":{"y":null,"z":true},"b":[1,2.5,"x"]}): pinned, so a change of
    # the encoding (and thus of every store's directory names) cannot go unnoticed.
    assert scenario_hash(doc) == "2521e2fc684ce7bf"
    code = "from fabricsim.sweep import scenario_hash; print(scenario_hash({'a': {'z': True, 'y': None}, 'b': [1, 2.5, 'x']}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "123"})
    assert out.stdout.strip() == "2521e2fc684ce7bf"


def test_axes_cross_zip_and_derived_values():
    s = Sweep(tiny_base(), axes={"load": [0.3, 0.6], "cc": ["dctcp", "newreno"]}, derived={"transport.min_rto": "{round(10 * load)}ms"})
    pts = s.points()
    assert len(pts) == 4 and len({p.key for p in pts}) == 4
    p = next(p for p in pts if p.params == {"load": 0.6, "cc": "newreno", "transport.min_rto": "6ms"})
    assert p.scenario["workload"][0]["load"] == 0.6 and p.scenario["transport"]["cc"] == "newreno"
    assert p.scenario["transport"]["min_rto"] == "6ms"
    z = Sweep(tiny_base(), axes={"load": [0.3, 0.6], "seed": [1, 2]}, mode="zip").points()
    assert [(p.params["load"], p.params["seed"]) for p in z] == [(0.3, 1), (0.6, 2)]
    with pytest.raises(ScenarioError, match="mode = 'zip' needs lists of one length"):
        Sweep(tiny_base(), axes={"load": [0.3, 0.6], "seed": [1]}, mode="zip").points()
    with pytest.raises(ScenarioError, match="derived.transport.min_rto: 'lod' is not an axis"):
        Sweep(tiny_base(), axes={"load": [0.3]}, derived={"transport.min_rto": "{lod}ms"}).points()
    with pytest.raises(ScenarioError, match="is not allowed"):
        Sweep(tiny_base(), axes={"load": [0.3]}, derived={"transport.min_rto": "{__import__('os')}"}).points()


def test_sweep_file_with_relative_base(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(f'name = "ex"\nbase = "{os.path.relpath(ROOT / "scenarios" / "example.toml", tmp_path)}"\n[axes]\n"transport.cc" = ["dctcp", "newreno"]\n')
    s = Sweep.load(f)
    assert s.name == "ex" and len(s.points()) == 2
    bad = tmp_path / "b.toml"
    bad.write_text('base = "nope.toml"\naxis = 1\n')
    with pytest.raises(ScenarioError) as e:
        Sweep.load(bad)
    assert "base: 'nope.toml': no such scenario file" in str(e.value) and "axis: unknown key" in str(e.value)


def test_local_and_dask_give_identical_runs(tmp_path):
    s = Sweep(tiny_base(), axes={"load": [0.3, 0.7], "cc": ["dctcp", "newreno"], "seed": [1, 2]})
    local = run_sweep(s, tmp_path / "local", workers=2, progress=False)
    assert len(local.done) == 8 and not local.failed
    dask = run_sweep(s, tmp_path / "dask", executor="dask", workers=2, progress=False)
    assert len(dask.done) == 8 and not dask.failed
    a, b = comparable(load(tmp_path / "local").table), comparable(load(tmp_path / "dask").table)
    assert len(a) == 8 and a.equals(b)
    # Per-run flows are bit-identical too.
    for key in a["key"]:
        fa = pd.read_parquet(tmp_path / "local" / "runs" / key / "flows.parquet")
        fb = pd.read_parquet(tmp_path / "dask" / "runs" / key / "flows.parquet")
        assert fa.equals(fb)


def test_finished_runs_are_skipped_and_failures_recorded(tmp_path):
    s = Sweep(tiny_base(), axes={"topology.link.rate": ["10Gbps", "40Gbs", "25Gbps"]})
    r = run_sweep(s, tmp_path / "st", workers=2, progress=False)
    assert len(r.done) == 2 and len(r.failed) == 1
    (key, err), = r.failed.items()
    assert "topology.link.rate: '40Gbs' is not a rate" in err
    rec = json.loads((tmp_path / "st" / "failed" / f"{key}.json").read_text())
    assert rec["params"] == {"topology.link.rate": "40Gbs"} and rec["error"] == "ScenarioError"
    manifest = json.loads((tmp_path / "st" / "manifest.json").read_text())
    assert sorted(p["status"] for p in manifest["points"]) == ["done", "done", "failed"]
    again = run_sweep(s, tmp_path / "st", workers=2, progress=False, retry_failed=False)
    assert (again.skipped, again.done, again.failed) == (3, [], {})
    t = load(tmp_path / "st")
    assert len(t.table) == 2 and key in t.failed
    assert t.pivot("fct_mean_s", "topology.link.rate").shape == (2, 1)


def test_manifest_follows_the_runs_as_they_finish(tmp_path, monkeypatch):
    from fabricsim.sweep import execute

    seen = []
    record = execute._LiveManifest.record

    def record_and_read(self, key, status):
        self.interval_s = 0.0  # every run rewrites it (default: at most every 5 s)
        record(self, key, status)
        manifest = json.loads((tmp_path / "st" / "manifest.json").read_text())
        seen.append(sorted(p["status"] for p in manifest["points"]))

    monkeypatch.setattr(execute._LiveManifest, "record", record_and_read)
    run_sweep(Sweep(tiny_base(), axes={"simulation.seed": [1, 2, 3]}), tmp_path / "st", workers=1, progress=False)
    assert seen == [["done", "pending", "pending"], ["done", "done", "pending"], ["done", "done", "done"]]


def test_manifest_rewrites_are_spaced_and_the_last_is_whole():
    from fabricsim.sweep import execute

    class Store:
        writes = []

        def write_manifest(self, points, status):
            self.writes.append(dict(status))

    m = execute._LiveManifest(Store(), [], {}, interval_s=3600)
    m.write()
    m.record("a", "done")
    m.record("b", "failed")
    assert Store.writes == [{}]  # within the interval: kept in memory
    m.write()
    assert Store.writes[-1] == {"a": "done", "b": "failed"}


def test_killed_sweep_keeps_finished_runs_and_completes_on_rerun(tmp_path):
    base = tiny_base()
    base["simulation"]["end"] = "3s"  # about 0.4 s of wall time per run
    scen = tmp_path / "base.json"
    scen.write_text(json.dumps(base))
    out = tmp_path / "store"
    code = (
        "import json, sys\n"
        "from fabricsim.sweep import Sweep, run_sweep\n"
        f"s = Sweep(json.load(open({str(scen)!r})), axes={{'seed': list(range(1, 13))}}, name='kill')\n"
        f"run_sweep(s, {str(out)!r}, workers=1, progress=False)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        # A run is written into ".tmp-KEY-..." and renamed when complete: only renamed ones count.
        done = [p for p in (out / "runs").glob("*") if not p.name.startswith(".tmp-") and (p / "row.json").exists()] if (out / "runs").exists() else []
        if len(done) >= 2:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=60)
    finished = {p.name: (p / "row.json").read_text() for p in (out / "runs").iterdir() if not p.name.startswith(".tmp-") and (p / "row.json").exists()}
    assert 2 <= len(finished) < 12, len(finished)
    s = Sweep(json.loads(scen.read_text()), axes={"seed": list(range(1, 13))}, name="kill")
    r = run_sweep(s, out, workers=2, progress=False)
    assert r.skipped == len(finished) and len(r.done) == 12 - len(finished) and not r.failed
    for k, text in finished.items():
        assert (out / "runs" / k / "row.json").read_text() == text, "a finished run was redone"
    assert not list((out / "runs").glob(".tmp-*"))
    assert len(load(out).table) == 12


def test_explicit_points_may_share_a_scenario():
    doc = tiny_base()
    s = Sweep({}, explicit=[({"point": "a"}, doc), ({"point": "b"}, json.loads(json.dumps(doc)))])
    pts = s.points()
    assert len(pts) == 1 and pts[0].params == {"point": "a"}
