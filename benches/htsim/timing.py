"""Timing that a disturbed machine cannot silently spoil: child processes timed in wall and CPU
time, their min and median over N interleaved runs, the load average around them, and a history
of recorded runs to compare against.

Why: a speed ratio once reported as 3.78x measured 2.3-2.5x when rerun; the peer's runs had been
slowed by other jobs (65 s where the same binary takes 25 s) and nothing noticed. CPU time (user +
sys of the child, from os.wait4) barely moves when a process waits for a core, wall time does;
the minimum of several runs is the least disturbed one; a spread between runs, or a departure from
what the same binary took before, is reported instead of averaged away.

Used by benches/htsim/compare.py and benches/validation/ (wall time and peak memory per run).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

SPREAD_LIMIT = 0.15  # (max - min) / min of a simulator's runs above this: warn
DRIFT_LIMIT = 0.25  # min time differing from the previous record of the same commit by more: warn


@dataclass
class Run:
    """One child process: wall seconds, CPU seconds (user + sys), peak resident memory (MB), output."""

    wall_s: float
    cpu_s: float
    maxrss_mb: float
    returncode: int
    stdout: str
    stderr: str


def run_timed(argv: list[str], cwd: Path | None = None) -> Run:
    """Run `argv` to completion and time it from outside: wall clock around the process, its own
    rusage (os.wait4) for CPU time and peak RSS. Output goes through files, so a chatty child
    cannot block on a full pipe."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err, text=True)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, p.returncode, out.read(), err.read())


def run_python(script: str, *args: str) -> tuple[Run, dict]:
    """A fresh Python process (this interpreter) running `script` with `args`, timed as above;
    its last output line read as a JSON object (fabricsim's side of a comparison)."""
    r = run_timed([sys.executable, "-c", script, *args])
    if r.returncode != 0:
        raise SystemExit(f"fabricsim failed ({' '.join(args)}):\n{r.stderr[-2000:]}")
    return r, json.loads(r.stdout.strip().splitlines()[-1])


@dataclass
class Summary:
    """A simulator's N runs of one experiment."""

    runs: int
    cpu_min: float
    cpu_median: float
    cpu_max: float
    wall_min: float
    wall_median: float
    wall_max: float
    maxrss_mb: float

    @classmethod
    def of(cls, runs: list[Run]) -> "Summary":
        cpu = [r.cpu_s for r in runs]
        wall = [r.wall_s for r in runs]
        return cls(len(runs), min(cpu), statistics.median(cpu), max(cpu), min(wall), statistics.median(wall), max(wall),
                   max(r.maxrss_mb for r in runs))

    @property
    def cpu_spread(self) -> float:
        return (self.cpu_max - self.cpu_min) / self.cpu_min if self.cpu_min > 0 else 0.0

    @property
    def wall_spread(self) -> float:
        return (self.wall_max - self.wall_min) / self.wall_min if self.wall_min > 0 else 0.0


def spread_warnings(name: str, s: Summary, limit: float = SPREAD_LIMIT) -> list[str]:
    """A warning per time (CPU, wall) whose runs spread more than `limit` around their minimum."""
    out = []
    for what, spread, lo, hi in (("CPU", s.cpu_spread, s.cpu_min, s.cpu_max), ("wall", s.wall_spread, s.wall_min, s.wall_max)):
        if spread > limit:
            out.append(f"WARNING {name}: {what} times of its {s.runs} runs spread {spread:.0%} ({lo:.2f}-{hi:.2f} s, "
                       f"more than {limit:.0%}): the machine was disturbed; rerun before quoting")
    return out


def loadavg() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def load_warnings(before: float, after: float, cpus: int | None = None) -> list[str]:
    """A warning when the 1-minute load average reached the number of CPUs: runs then share cores."""
    cpus = cpus or os.cpu_count() or 1
    peak = max(before, after)
    if peak >= cpus:
        return [f"WARNING load average {before:.2f} before, {after:.2f} after, on {cpus} CPUs: other jobs shared the "
                f"cores; CPU times hold up better than wall times, but rerun before quoting"]
    return []


# ---- history of recorded runs ------------------------------------------------------------------

def history_key(record: dict) -> tuple:
    """What must match for two records to be the same binary on the same experiment: the
    experiment, size and simulated time, and the commit of the simulator that ran (the peer's for
    the peer, fabricsim's for fabricsim)."""
    commit = record["fabricsim_commit"] if record["simulator"] == "fabricsim" else record["peer_commit"]
    return (record["simulator"], record["experiment"], record["size"], record["end"], commit)


def read_history(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a torn line from an interrupted run: skip it, keep the rest
    return out


def previous(history: list[dict], record: dict) -> dict | None:
    """The latest recorded run with the same key as `record`."""
    key = history_key(record)
    same = [r for r in history if history_key(r) == key]
    return same[-1] if same else None


def drift_warnings(record: dict, prev: dict | None, limit: float = DRIFT_LIMIT) -> list[str]:
    """A warning per time (min CPU, min wall) differing more than `limit` from the previous record
    of the same commit."""
    if prev is None:
        return []
    out = []
    for what in ("cpu_min", "wall_min"):
        a, b = record[what], prev[what]
        if b > 0 and abs(a - b) / b > limit:
            out.append(f"WARNING {record['simulator']}: {what.replace('_', ' ')} {a:.2f} s differs {(a - b) / b:+.0%} from "
                       f"the previous record of the same commit ({b:.2f} s on {prev.get('when', '?')}, load "
                       f"{prev.get('load_before', float('nan')):.2f}/{prev.get('load_after', float('nan')):.2f}): one of "
                       f"the two was disturbed")
    return out


def record_of(simulator: str, s: Summary, *, experiment: str, size: int, end: str, peer_commit: str, fabricsim_commit: str,
              load_before: float, load_after: float) -> dict:
    return {"simulator": simulator, "experiment": experiment, "size": size, "end": end, "peer_commit": peer_commit,
            "fabricsim_commit": fabricsim_commit, "when": time.strftime("%Y-%m-%d %H:%M:%S"), "load_before": round(load_before, 2),
            "load_after": round(load_after, 2), "cpus": os.cpu_count(), **{k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(s).items()}}


def append_history(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    torn = path.exists() and path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
    with path.open("a") as f:
        if torn:  # an interrupted write left half a line: end it, so that the new records stay whole
            f.write("\n")
        for r in records:
            f.write(json.dumps(r, sort_keys=True) + "\n")


def git_commit(root: Path) -> str:
    """fabricsim's commit (short), with '-dirty' when the engine or the Python package has
    uncommitted changes (such runs are compared only with runs of the same dirty state's commit)."""
    p = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=7", "HEAD"], capture_output=True, text=True)
    if p.returncode != 0:
        return "unknown"
    d = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "crates", "python"], capture_output=True, text=True)
    return p.stdout.strip() + ("-dirty" if d.stdout.strip() else "")
