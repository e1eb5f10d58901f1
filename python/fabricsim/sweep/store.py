"""The result store of a sweep: one directory per run named by its scenario hash, written
atomically, plus the sweep's definition, a manifest and a combined table.

    DIR/sweep.json           the sweep definition (name, base, axes, mode, derived)
    DIR/manifest.json        every point: key, params, status (done, failed, pending); rewritten
                             as runs finish (at most every 5 s) and when the batch ends
    DIR/runs/KEY/            params.json, scenario.json, row.json (params + summary + FCT
                             statistics), and the run's results (flows.parquet, ...)
    DIR/failed/KEY.json      a failed point: params, error type, message, traceback
    DIR/summary.parquet      one row per finished run (row.json of each)

A run directory appears only complete: it is written under runs/.tmp-KEY-* and renamed. A crash
or kill leaves at most a temp directory, removed by the next invocation.

A store belongs to one sweep: sweep.json records the hash of the resolved base scenario, the axes,
the mode and the derived values ("identity"), and a different sweep or an edited base is refused
(SweepError) unless the store is replaced (overwrite). A writer holds DIR/.lock (flock) for the
whole invocation, so two sweeps cannot write one store at once.
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

from ..errors import ResultsError, ScenarioError, SweepError, issues_line
from .spec import canonical


def write_json_atomic(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True, default=str)
        f.write("\n")
    os.replace(tmp, path)


def _read_json(path: Path, hint: str = "") -> Any:
    try:
        return json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError) as e:
        raise ResultsError(f"'{path}' is damaged ({type(e).__name__}: {str(e)[:100]}){hint}") from None


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
        res = run(scenario, progress=False, on_interrupt="raise")  # partial results are not a finished run
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
        where = describe_point(params)
        if isinstance(e, ScenarioError):
            line = f"point {where}: " + issues_line(e.issues)
        else:
            line = f"point {where}: {type(e).__name__}: {' '.join(str(e).split())}"
        err = {"key": key, "params": params, "error": type(e).__name__, "message": str(e), "line": line,
               "traceback": traceback.format_exc()}
        write_json_atomic(out_dir / "failed" / f"{key}.json", err)
        return {"key": key, "status": "failed", "wall_s": time.perf_counter() - t0, "error": line}


def describe_point(params: dict) -> str:
    """A point as its axis values: {load=0.5, transport.cc='dctcp'}."""
    return "{" + ", ".join(f"{k}={v!r}" for k, v in params.items()) + "}"


class Store:
    def __init__(self, directory: str | os.PathLike):
        self.dir = Path(directory)
        self._lock_fd: Optional[int] = None

    def lock(self) -> None:
        """Take DIR/.lock for writing (released by unlock or when this process ends); another
        writer holding it is a SweepError naming its process."""
        self.dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.dir / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # pragma: no cover - not POSIX: no lock
            pass
        except OSError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise SweepError(f"sweep store '{self.dir}' is being written by another sweep (process {holder}); "
                             "wait for it to finish, or write this sweep elsewhere with -o") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock_fd = fd

    def unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing releases the flock
            self._lock_fd = None

    def prepare(self, definition: dict, overwrite: bool = False) -> None:
        """Make the store ready for `definition` (with its "identity" hash): a new store is
        created; a store of the same sweep is resumed; another sweep's store, or a directory that
        is not a store, is refused unless `overwrite` (which empties a store, never other files)."""
        sweep_json = self.dir / "sweep.json"
        if self.dir.exists() and not sweep_json.exists():
            others = [p.name for p in self.dir.iterdir() if p.name != ".lock"]
            if others:
                raise SweepError(f"'{self.dir}' is not a sweep store (no sweep.json) and is not empty "
                                 f"({', '.join(sorted(others)[:3])}); choose another -o")
        if sweep_json.exists():
            try:
                old = json.loads(sweep_json.read_text())
                mismatch = self._mismatch(old, definition) if isinstance(old, dict) else "its sweep.json is not a sweep definition"
            except (ValueError, UnicodeDecodeError) as e:
                # Cut short by a full disk or a kill: which sweep it held cannot be told.
                mismatch = f"its sweep.json is damaged (truncated or not JSON: {type(e).__name__}: {str(e)[:80]})"
            if mismatch and not overwrite:
                raise SweepError(f"sweep store '{self.dir}' cannot be resumed: {mismatch}; start a new store with "
                                 "-o NEW_DIR, or replace this one with --overwrite (run_sweep(..., overwrite=True))")
            if mismatch:
                self.clear()
        (self.dir / "runs").mkdir(parents=True, exist_ok=True)
        (self.dir / "failed").mkdir(exist_ok=True)
        for tmp in (self.dir / "runs").glob(".tmp-*"):
            shutil.rmtree(tmp, ignore_errors=True)  # left by a killed run
        write_json_atomic(sweep_json, definition)

    @staticmethod
    def _mismatch(old: dict, new: dict) -> Optional[str]:
        """Why the stored sweep is not this one, or None when it is."""
        if old.get("identity") == new["identity"]:
            return None
        if "identity" not in old:
            # Written before identities: the same definition is adopted (the base's content was
            # not recorded then, so an edit of it cannot be told).
            same = old == {k: v for k, v in new.items() if k not in ("identity", "base_hash")}
            return None if same else "its sweep.json (written by an older fabricsim) differs from this sweep"
        parts = []
        if old.get("base_hash") != new.get("base_hash"):
            parts.append(f"the base scenario differs (hash {old.get('base_hash')} there, {new.get('base_hash')} now: "
                         "was it edited?)")
        for k in ("name", "axes", "mode", "derived"):
            if old.get(k) != new.get(k):
                parts.append(f"{k} differ ({json.dumps(old.get(k), default=str)[:80]} there)")
        return "; ".join(parts) or "its identity differs"

    def clear(self) -> None:
        """Remove what a store holds (runs, failures, manifest, table, definition); nothing else."""
        for sub in ("runs", "failed"):
            shutil.rmtree(self.dir / sub, ignore_errors=True)
        for f in ("manifest.json", "summary.parquet", "sweep.json", "report.html"):
            (self.dir / f).unlink(missing_ok=True)

    def done_keys(self) -> set[str]:
        runs = self.dir / "runs"
        if not runs.exists():
            return set()
        return {p.name for p in runs.iterdir() if not p.name.startswith(".") and (p / "row.json").exists()}

    def failed(self) -> dict[str, dict]:
        d = self.dir / "failed"
        return {p.stem: _read_json(p) for p in d.glob("*.json")} if d.exists() else {}

    def write_manifest(self, points: list, status: dict[str, str]) -> None:
        write_json_atomic(self.dir / "manifest.json", {
            "points": [{"key": p.key, "params": p.params, "status": status.get(p.key, "pending")} for p in points],
        })

    def combined(self) -> pd.DataFrame:
        """One row per finished run (from each run's row.json); also written to summary.parquet."""
        rows = []
        for key in sorted(self.done_keys()):
            rows.append(_read_json(self.dir / "runs" / key / "row.json"))
        table = pd.DataFrame(rows)
        if len(table):
            tmp = self.dir / ".summary.parquet.tmp"
            table.to_parquet(tmp, index=False)
            os.replace(tmp, self.dir / "summary.parquet")
        return table

    def run_dir(self, key: str) -> Optional[Path]:
        p = self.dir / "runs" / key
        return p if (p / "row.json").exists() else None
