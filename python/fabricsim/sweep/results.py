"""Reading a sweep's store as frames keyed by its axes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

import pandas as pd

from ..results import Results
from ..errors import MissingFileError
from .store import Store, _read_json


@dataclass
class SweepResults:
    """A sweep store. `table` has one row per finished run: `param.<axis>` columns, the run's
    summary (sim_time_s, events, packet_hops, goodput_gbps, circuit_utilization, ...) and FCT
    statistics of its measured finished flows (fct_mean_s, fct_p99_s, slowdown_mean, ...)."""

    directory: Path
    table: pd.DataFrame
    definition: dict
    failed: dict

    @property
    def params(self) -> list[str]:
        return [c for c in self.table.columns if c.startswith("param.")]

    def results(self, key: str) -> Results:
        """The full results of one run (by key, the table's `key` column)."""
        return Results.load(self.directory / "runs" / key)

    def flows(self, columns: Optional[Iterable[str]] = None) -> pd.DataFrame:
        """Every run's flows in one frame, with the run's key and param.* columns."""
        frames = []
        for _, row in self.table.iterrows():
            f = Results.load_table(self.directory / "runs" / row["key"], "flows", list(columns) if columns else None)
            f["key"] = row["key"]
            for p in self.params:
                f[p] = row[p]
            frames.append(f)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def pivot(self, values: str, index: str, columns: Optional[str] = None, aggfunc: str = "mean") -> pd.DataFrame:
        """A table such as mean slowdown by load (index) and congestion control (columns); axis
        names may be given without the "param." prefix. Repeated points (seeds) are aggregated."""
        col = lambda n: n if n in self.table.columns else f"param.{n}"  # noqa: E731
        return self.table.pivot_table(values=values, index=col(index), columns=col(columns) if columns else None, aggfunc=aggfunc)

    def to_polars(self):
        import polars as pl

        return pl.from_pandas(self.table)


def load(directory: str | Path) -> SweepResults:
    """Open a sweep store written by `run_sweep` / `fabricsim sweep`."""
    d = Path(directory)
    if not (d / "sweep.json").exists():
        raise MissingFileError(f"{d} is not a sweep store (no sweep.json)")
    store = Store(d)
    definition = _read_json(d / "sweep.json")
    if (d / "manifest.json").exists():
        # Written at the start and the end of every invocation: damage means the store was cut
        # short mid-write, and what it lists as pending or failed cannot be trusted.
        _read_json(d / "manifest.json", "; running the sweep again into this store rewrites it")
    return SweepResults(d, store.combined(), definition, store.failed())
