"""Run one scenario under several transports (same seed, same workload draws) and compare."""

from __future__ import annotations

from .errors import ScenarioError
from .scenario import load_scenario, validate

# `import fabricsim` imports this module: copy, pathlib and typing load on use (start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Callable, Iterable, Optional, Sequence

    import pandas as pd

    from .scenario import ScenarioLike

# pandas and the runner are imported where used: `fabricsim` itself (and so the CLI, which a
# Ctrl-C may interrupt while it starts) loads in a fraction of the time without them.

TRAFFIC_KEYS = ("flows", "workload", "incast")
#: What compare.csv says about each run's switch ports: where they came from (paper, profile,
#: scenario), the aspects of ports.ASPECTS and the note (written as ports_note).
SETUP_COLUMNS = ("ports", "queues", "scheduler", "buffer", "marking", "admission", "note")


def with_transport(doc: dict, transport: str) -> dict:
    """A copy of `doc` in which every flow, workload and incast uses `transport` (a profile name
    from [transports] or a congestion-control name)."""
    import copy

    d = copy.deepcopy(doc)
    for key in TRAFFIC_KEYS:
        for item in d.get(key, []) or []:
            item["transport"] = transport
    return d


def with_load(doc: dict, load: float) -> dict:
    """A copy of `doc` whose workloads offer `load` in total: a mix keeps its proportions
    (Flash's four workloads at 0.125 each become 0.175 each for a load of 0.7)."""
    import copy

    d = copy.deepcopy(doc)
    ws = d.get("workload", []) or []
    total = sum(float(w.get("load", 0.0)) for w in ws)
    for w in ws:
        w["load"] = load * float(w.get("load", 0.0)) / total if total > 0 else load / len(ws)
    return d


class Comparison:
    """Runs keyed by (transport, load) — load is None without a load axis — and the switch ports
    each ran on, keyed the same: {"ports": "paper" | "profile" | "scenario", "note": why, and
    ports.ASPECTS: queues, scheduler, buffer, marking, admission}."""

    # A plain class, not a dataclass: `import fabricsim` would pay for `dataclasses` (and
    # `inspect`), about 6 ms of every run's start-up.
    __slots__ = ("runs", "bins", "setups")

    def __init__(self, runs: Optional[dict] = None, bins: Optional[Sequence[float]] = None,
                 setups: Optional[dict] = None):
        self.runs = {} if runs is None else runs
        self.bins = bins  # None: analysis.DEFAULT_BINS
        self.setups = {} if setups is None else setups

    def __repr__(self) -> str:
        return f"Comparison(runs={self.runs!r}, bins={self.bins!r}, setups={self.setups!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Comparison):
            return NotImplemented
        return (self.runs, self.bins, self.setups) == (other.runs, other.bins, other.setups)

    def stats(self) -> pd.DataFrame:
        """Long table: scheme, load, size_bin and the FCT statistics."""
        import pandas as pd

        from . import analysis

        frames = []
        for (t, load), r in self.runs.items():
            s = analysis.fct_stats(r.flows, self._bins())
            s.insert(0, "scheme", t)
            s.insert(1, "load", load)
            s["unfinished"] = analysis.unfinished_count(r.flows)
            s["goodput_gbps"] = r.summary["goodput_bytes"] * 8 / max(r.summary["sim_time_s"], 1e-12) / 1e9
            setup = self.setups.get((t, load), {})
            for col in SETUP_COLUMNS:
                s["ports_note" if col == "note" else col] = setup.get(col, "")
            frames.append(s)
        return pd.concat(frames, ignore_index=True)

    def table(self, load: Optional[float] = None) -> pd.DataFrame:
        """Side by side for one load (the only one if there is no load axis)."""
        runs = {t: r for (t, l), r in self.runs.items() if l == load}
        from . import analysis

        return analysis.compare_table(runs, self._bins())

    def _bins(self) -> Sequence[float]:
        from . import analysis

        return analysis.DEFAULT_BINS if self.bins is None else self.bins


def check_axes(transports: Iterable[str], loads: Optional[Iterable[float]]) -> tuple[list[str], Optional[list[float]]]:
    """The transports and loads of a comparison as lists, or a ScenarioError naming the bad one."""
    transports = [transports] if isinstance(transports, str) else list(transports)
    if not transports or not all(isinstance(t, str) and t.strip() for t in transports):
        raise ScenarioError([("transports", f"{transports!r} names no transport; give profile or congestion-control "
                                            "names such as dctcp,newreno")], "compare")
    loads = list(loads) if loads is not None else None
    for x in loads or []:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 < x < float("inf"):
            raise ScenarioError([("loads", f"{x!r} is not a load; give numbers above 0 such as 0.3,0.5")], "compare")
    return transports, loads


def check_loads_apply(doc: dict, loads: Optional[list[float]]) -> None:
    """Only [[workload]]s have a load: listed flows and incasts would run unchanged under a table
    that claims a load."""
    if loads and not doc.get("workload"):
        raise ScenarioError([("loads", f"{','.join(f'{x:g}' for x in loads)} sets the load of the [[workload]]s, but the "
                                       "scenario has none (its flows and incasts have no load to scale); drop --loads "
                                       "or add a [[workload]]")], "compare")


def compare(
    scenario: ScenarioLike,
    transports: Sequence[str],
    *,
    loads: Optional[Iterable[float]] = None,
    seed: Optional[int] = None,
    overrides: Iterable[str] = (),
    progress: Optional[bool] = None,
    bins: Optional[Sequence[float]] = None,
    ports: str = "paper",
    on_setups: Optional[Callable[[dict], None]] = None,
) -> Comparison:
    """Run the scenario once per transport (and per load, if given) with the same seed.

    bins: flow-size bin edges of the tables (default analysis.DEFAULT_BINS).
    ports: "paper" (default): each transport runs on the switch ports its paper configures
    (fabricsim.ports; DCTCP's K computed from the fabric), unless its profile in the scenario
    sets its own `ports`; "scenario": every transport on the scenario's ports, as written.
    on_setups: called with Comparison.setups once every run is planned, before the first runs.

    Example::

        >>> c = fabricsim.compare("scenarios/flash-mixed.toml", ["dctcp", "pias", "flash"], loads=[0.5])   # doctest: +SKIP
        >>> c.table(0.5)                     # FCT statistics per size bin, side by side   # doctest: +SKIP
    """
    from . import ports as port_setups
    from .runner import run

    transports, loads = check_axes(transports, loads)
    if ports not in port_setups.MODES:
        raise ScenarioError([("ports", f"{ports!r} is not a port choice; give \"paper\" (each transport on its paper's "
                                       "switch ports) or \"scenario\" (every transport on the scenario's)")], "compare")
    base = load_scenario(scenario, overrides)
    check_loads_apply(base, loads)
    docs = {}
    c = Comparison(bins=bins)
    for load in (loads or [None]):
        doc = base if load is None else with_load(base, load)
        for t in transports:
            d = with_transport(doc, t)
            d["name"] = f"{base.get('name', 'scenario')} [{t}{'' if load is None else f' @ {load}'}]"
            if port_setups.own_ports(d, t):
                source, note = "profile", f"the profile's own ports ([transports.{t}.ports])"
            elif ports == "paper":
                source, (d, note) = "paper", port_setups.with_paper_ports(d, t)
            else:
                source, note = "scenario", "the scenario's ports as written (--ports scenario)"
            validate(d)  # every variant before the first run: a bad last one must not cost the others' time
            docs[(t, load)] = d
            c.setups[(t, load)] = {"ports": source, **port_setups.describe(d), "note": note}
    if on_setups is not None:
        on_setups(c.setups)
    for key, d in docs.items():
        # A cut-short run is not one side of a comparison: Ctrl-C ends the whole of it.
        c.runs[key] = run(d, seed=seed, progress=progress, on_interrupt="raise")
    return c


def write(c: Comparison, outdir: Path) -> list[Path]:
    """Results per run, the statistics table (CSV) and the figures."""
    from pathlib import Path

    from . import analysis, plots

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
