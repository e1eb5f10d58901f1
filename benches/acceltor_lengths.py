"""AccelToR's circuit occupancy as runs of other lengths would report it, read from stored runs.

The paper says its runs last 5 s; the authors' AccelToR script (HPCC724/RDCNSimulate,
scratch/scratch-FTwarmup.cc) stops at 0.15 s and their other scripts at 1 s
(docs/reproductions/acceltor.md, "The run's length"). A run cut at T is its longer run's first T
(nothing in the engine reads the end time before it comes; not checked run by run), so each
length's occupancy is the mean utilization of the stored run's measured days (after the warm-up,
of the pairs with elephants, as `reproduce.acceltor.extract` takes them) that start before T; a day
straddling T counts whole.
The warm-up is ours (two weeks at paper scale): the authors' 0.15 s run, if their analysis read all
of it, included its first weeks.

    PYTHONPATH=python python benches/acceltor_lengths.py STORE_RUN_DIR... [--cuts 0.15,1,1.4,5]
"""
import argparse
import json
import pathlib

import pandas as pd

from fabricsim.reproduce.acceltor import SCALES, _elephant_days, _measured_days, week_us


def lengths(run: pathlib.Path, cuts: list[float], warmup_weeks: int) -> dict:
    """{cut in s: (occupancy, measured days before it)} of one stored run."""
    topo = json.loads((run / "scenario.json").read_text())["topology"]
    wk_ps = week_us(topo["racks"]) * 1e6
    days = pd.read_parquet(run / "circuit_days.parquet", columns=["src", "dst", "start_ps", "utilization"])
    flows = pd.read_parquet(run / "flows.parquet", columns=["workload", "src", "dst"])
    days = _elephant_days(_measured_days(days, warmup_weeks * wk_ps, wk_ps), flows, topo["hosts_per_rack"])
    out = {}
    for cut in cuts:
        d = days[days.start_ps < cut * 1e12]
        out[cut] = (float(d.utilization.mean()) if len(d) else float("nan"), len(d))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=pathlib.Path, help="store run directories (OUT/store/runs/KEY)")
    ap.add_argument("--cuts", default="0.15,1,1.4,5", help="run lengths in seconds (comma-separated)")
    ap.add_argument("--warmup-weeks", type=int, default=SCALES["paper"]["warmup_weeks"])
    a = ap.parse_args()
    cuts = [float(c) for c in a.cuts.split(",")]
    for run in a.runs:
        point = json.loads((run / "params.json").read_text()).get("point", run.name)
        cells = [f"{c:g} s: {100 * occ:.2f} % ({n} days)" for c, (occ, n) in lengths(run, cuts, a.warmup_weeks).items()]
        print(" | ".join([point] + cells))


if __name__ == "__main__":
    main()
