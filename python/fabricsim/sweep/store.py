"""The result store of a sweep: one directory per run named by its scenario hash, written
atomically, plus the sweep's definition, a manifest and a combined table.

    DIR/sweep.json           the sweep definition (name, base, axes, mode, derived)
    DIR/manifest.json        every point: key, params, status (done, failed, pending)
    DIR/runs/KEY/            params.json, scenario.json, row.json (params + summary + FCT
                             statistics), and the run's results (flows.parquet, ...)
    DIR/failed/KEY.json      a failed point: params, error type, message, traceback
    DIR/summary.parquet      one row per finished run (row.json of each)

A run directory appears only complete: it is written under runs/.tmp-KEY-* and renamed. A crash
or kill leaves at most a temp directory, removed by the next invocation.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Optional

import pandas as pd

from .spec import canonical


def write_json_atomic(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True, default=str)
        f.write("\n")
    os.replace(tmp, path)


def run_stats(res) -> dict:
    """Per-run figures for the combined table: FCT and slowdown statistics of finished measured
    flows, goodput, drops, timeouts, and the summary's scalar entries."""
    f = res.flows
    done = f[f["fct_s"].notna() & f["measured"]]
    row: dict[str, Any] = {k: v for k, v in res.summary.items()
                           if (isinstance(v, (int, float, str, bool)) or v is None) and k != "run_id"}
    row["flows_finished"] = int(f["fct_s"].notna().sum())
    if len(done):
        fct = done["fct_s"].astype(float)
        sd = done["slowdown"].astype(float)
        row.update(fct_mean_s=float(fct.mean()), fct_p50_s=float(fct.quantile(0.5)), fct_p99_s=float(fct.quantile(0.99)),
                   slowdown_mean=float(sd.mean()), slowdown_p50=float(sd.quantile(0.5)), slowdown_p99=float(sd.quantile(0.99)))
    row["retransmits"] = int(f["retransmits"].sum())
    row["timeouts"] = int(f["timeouts"].sum())
    row["drops"] = int(res.ports["drops"].sum())
    sim_s = res.summary.get("sim_time_s") or 0
    row["goodput_gbps"] = res.summary.get("goodput_bytes", 0) * 8 / sim_s / 1e9 if sim_s else None
    return row


def execute_point(out: str, key: str, scenario: dict, params: dict) -> dict:
    """Run one point and store it (called in a worker process: local pool or Dask). Never raises
    for a failing run: the error is recorded under failed/ and returned."""
    from ..runner import run

    out_dir = Path(out)
    t0 = time.perf_counter()
    try:
        res = run(scenario, progress=False)
        if res.summary.get("interrupted"):
            raise KeyboardInterrupt  # partial results are not a finished run
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{key}-", dir=out_dir / "runs"))
        res.write_files(tmp)
        (tmp / "params.json").write_text(json.dumps(params, sort_keys=True, default=str) + "\n")
        (tmp / "scenario.json").write_text(canonical(scenario) + "\n")
        row = {**{f"param.{k}": v for k, v in params.items()}, **run_stats(res), "key": key}
        (tmp / "row.json").write_text(json.dumps(row, sort_keys=True, default=str) + "\n")
        final = out_dir / "runs" / key
        if final.exists():  # the same point finished twice (e.g. a retried Dask task)
            shutil.rmtree(tmp)
        else:
            os.replace(tmp, final)
        failed = out_dir / "failed" / f"{key}.json"
        if failed.exists():
            failed.unlink()
        return {"key": key, "status": "done", "wall_s": time.perf_counter() - t0}
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: BLE001 - engine panics arrive as pyo3 PanicException (a BaseException)
        err = {"key": key, "params": params, "error": type(e).__name__, "message": str(e), "traceback": traceback.format_exc()}
        write_json_atomic(out_dir / "failed" / f"{key}.json", err)
        return {"key": key, "status": "failed", "wall_s": time.perf_counter() - t0, "error": f"{type(e).__name__}: {e}"}


class Store:
    def __init__(self, directory: str | os.PathLike):
        self.dir = Path(directory)

    def prepare(self, definition: dict) -> None:
        (self.dir / "runs").mkdir(parents=True, exist_ok=True)
        (self.dir / "failed").mkdir(exist_ok=True)
        for tmp in (self.dir / "runs").glob(".tmp-*"):
            shutil.rmtree(tmp, ignore_errors=True)  # left by a killed run
        write_json_atomic(self.dir / "sweep.json", definition)

    def done_keys(self) -> set[str]:
        runs = self.dir / "runs"
        if not runs.exists():
            return set()
        return {p.name for p in runs.iterdir() if not p.name.startswith(".") and (p / "row.json").exists()}

    def failed(self) -> dict[str, dict]:
        d = self.dir / "failed"
        return {p.stem: json.loads(p.read_text()) for p in d.glob("*.json")} if d.exists() else {}

    def write_manifest(self, points: list, status: dict[str, str]) -> None:
        write_json_atomic(self.dir / "manifest.json", {
            "points": [{"key": p.key, "params": p.params, "status": status.get(p.key, "pending")} for p in points],
        })

    def combined(self) -> pd.DataFrame:
        """One row per finished run (from each run's row.json); also written to summary.parquet."""
        rows = []
        for key in sorted(self.done_keys()):
            rows.append(json.loads((self.dir / "runs" / key / "row.json").read_text()))
        table = pd.DataFrame(rows)
        if len(table):
            tmp = self.dir / ".summary.parquet.tmp"
            table.to_parquet(tmp, index=False)
            os.replace(tmp, self.dir / "summary.parquet")
        return table

    def run_dir(self, key: str) -> Optional[Path]:
        p = self.dir / "runs" / key
        return p if (p / "row.json").exists() else None
