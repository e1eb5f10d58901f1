"""Shared pieces of the reproductions: running many points on a process pool with a progress
bar, and the "paper vs ours" table."""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Callable, Optional

import pandas as pd


@dataclass
class Headline:
    """One headline number of a paper: what it is, the paper's value, the band ours must fall in
    (low, high; None = open), ours, and a note."""

    name: str
    paper: str
    low: Optional[float]
    high: Optional[float]
    ours: Optional[float]
    unit: str = ""
    note: str = ""

    @property
    def band(self) -> str:
        lo = "" if self.low is None else f"{self.low:g}"
        hi = "" if self.high is None else f"{self.high:g}"
        if self.low is not None and self.high is not None:
            return f"{lo}-{hi}{self.unit}"
        return f">= {lo}{self.unit}" if self.low is not None else f"<= {hi}{self.unit}"

    @property
    def passed(self) -> Optional[bool]:
        if self.ours is None or self.ours != self.ours:
            return None
        return (self.low is None or self.ours >= self.low) and (self.high is None or self.ours <= self.high)


def headline_frame(rows: list[Headline]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"headline": h.name, "paper": h.paper, "band": h.band, "ours": h.ours, "unit": h.unit,
          "result": {True: "pass", False: "MISS", None: "n/a"}[h.passed], "note": h.note} for h in rows]
    )


def print_headlines(rows: list[Headline], title: str, file=sys.stdout) -> None:
    print(f"\n{title}\n", file=file)
    w = max(len(h.name) for h in rows)
    print(f"{'headline':<{w}}  {'paper':>14}  {'band':>14}  {'ours':>10}  result", file=file)
    for h in rows:
        ours = "-" if h.ours is None or h.ours != h.ours else f"{h.ours:.3g}{h.unit}"
        mark = {True: "pass", False: "MISS", None: "n/a"}[h.passed]
        print(f"{h.name:<{w}}  {h.paper:>14}  {h.band:>14}  {ours:>10}  {mark}", file=file)
        if h.note:
            print(f"{'':<{w}}    {h.note}", file=file)


def _run_one(point: tuple[str, dict, Callable[[Any], dict]]) -> tuple[str, dict]:
    key, doc, extract = point
    from ..runner import run

    res = run(doc, progress=False)
    return key, extract(res)


def run_points(points: list[tuple[str, dict, Callable[[Any], dict]]], jobs: Optional[int] = None,
               progress: bool = True, desc: str = "runs") -> dict[str, dict]:
    """Run (key, scenario dict, extract) points on `jobs` processes; returns {key: extract(results)}.

    `extract` must be a module-level function (it crosses process boundaries). A point that fails
    is reported with its error and the others go on."""
    jobs = jobs or os.cpu_count() or 1
    out: dict[str, dict] = {}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(points), unit="run", desc=desc, file=sys.stderr)
    failed = []
    if jobs == 1:
        for p in points:
            try:
                k, v = _run_one(p)
                out[k] = v
            except Exception as e:  # noqa: BLE001 - reported below, the others go on
                failed.append((p[0], e))
            if bar:
                bar.update()
    else:
        with ProcessPoolExecutor(max_workers=jobs) as ex:
            futs = {ex.submit(_run_one, p): p[0] for p in points}
            for f in as_completed(futs):
                try:
                    k, v = f.result()
                    out[k] = v
                except Exception as e:  # noqa: BLE001
                    failed.append((futs[f], e))
                if bar:
                    bar.update()
    if bar:
        bar.close()
    for k, e in failed:
        print(f"run {k} failed: {e}", file=sys.stderr)
    return out
