"""Run one scenario under several transports (same seed, same workload draws) and compare."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence

import pandas as pd

from . import analysis
from .results import Results
from .runner import run
from .scenario import ScenarioLike, load_scenario

TRAFFIC_KEYS = ("flows", "workload", "incast")


def with_transport(doc: dict, transport: str) -> dict:
    """A copy of `doc` in which every flow, workload and incast uses `transport` (a profile name
    from [transports] or a congestion-control name)."""
    d = copy.deepcopy(doc)
    for key in TRAFFIC_KEYS:
        for item in d.get(key, []) or []:
            item["transport"] = transport
    return d


def with_load(doc: dict, load: float) -> dict:
    """A copy of `doc` whose workloads offer `load` in total: a mix keeps its proportions
    (Flash's four workloads at 0.125 each become 0.175 each for a load of 0.7)."""
    d = copy.deepcopy(doc)
    ws = d.get("workload", []) or []
    total = sum(float(w.get("load", 0.0)) for w in ws)
    for w in ws:
        w["load"] = load * float(w.get("load", 0.0)) / total if total > 0 else load / len(ws)
    return d


@dataclass
class Comparison:
    """Runs keyed by (transport, load) — load is None without a load axis."""

    runs: dict = field(default_factory=dict)
    bins: Sequence[float] = analysis.DEFAULT_BINS

    def stats(self) -> pd.DataFrame:
        """Long table: scheme, load, size_bin and the FCT statistics."""
        frames = []
        for (t, load), r in self.runs.items():
            s = analysis.fct_stats(r.flows, self.bins)
            s.insert(0, "scheme", t)
            s.insert(1, "load", load)
            s["unfinished"] = analysis.unfinished_count(r.flows)
            s["goodput_gbps"] = r.summary["goodput_bytes"] * 8 / max(r.summary["sim_time_s"], 1e-12) / 1e9
            frames.append(s)
        return pd.concat(frames, ignore_index=True)

    def table(self, load: Optional[float] = None) -> pd.DataFrame:
        """Side by side for one load (the only one if there is no load axis)."""
        runs = {t: r for (t, l), r in self.runs.items() if l == load}
        return analysis.compare_table(runs, self.bins)


def compare(
    scenario: ScenarioLike,
    transports: Sequence[str],
    *,
    loads: Optional[Iterable[float]] = None,
    seed: Optional[int] = None,
    overrides: Iterable[str] = (),
    progress: Optional[bool] = None,
    bins: Sequence[float] = analysis.DEFAULT_BINS,
) -> Comparison:
    """Run the scenario once per transport (and per load, if given) with the same seed.

    Example::

        >>> c = fabricsim.compare("scenarios/flash-mixed.toml", ["dctcp", "pias", "flash"], loads=[0.5])   # doctest: +SKIP
        >>> c.table(0.5)                     # FCT statistics per size bin, side by side   # doctest: +SKIP
    """
    base = load_scenario(scenario, overrides)
    c = Comparison(bins=bins)
    for load in (list(loads) if loads else [None]):
        doc = base if load is None else with_load(base, load)
        for t in transports:
            d = with_transport(doc, t)
            d["name"] = f"{base.get('name', 'scenario')} [{t}{'' if load is None else f' @ {load}'}]"
            c.runs[(t, load)] = run(d, seed=seed, progress=progress)
    return c


def write(c: Comparison, outdir: Path) -> list[Path]:
    """Results per run, the statistics table (CSV) and the figures."""
    from . import plots

    outdir = Path(outdir)
    written = []
    for (t, load), r in c.runs.items():
        r.save(outdir / (t if load is None else f"{t}_load{load:g}"))
    stats = c.stats()
    stats.to_csv(outdir / "compare.csv", index=False)
    written.append(outdir / "compare.csv")
    loads = sorted({l for (_, l) in c.runs if l is not None})
    first = loads[0] if loads else None
    at_first = {t: r for (t, l), r in c.runs.items() if l == first}
    if any(analysis.finished(r.flows, False).shape[0] for r in at_first.values()):
        written += plots.save(plots.compare_bars(c.table(first)), outdir / "compare")
        written += plots.save(plots.fct_cdf(at_first), outdir / "fct_cdf")
    if all((r.timeseries["metric"] == "tx_bytes").any() for r in at_first.values()):
        written += plots.save(plots.schemes_over_time(at_first), outdir / "throughput_queue")
    if len(loads) > 1:
        written += plots.save(plots.fct_vs_load(stats.dropna(subset=["load"])), outdir / "fct_vs_load")
        written += plots.save(plots.fct_vs_load(stats.dropna(subset=["load"]), metric="slowdown_p99"), outdir / "slowdown_p99_vs_load")
    plots.plt.close("all")
    return written
