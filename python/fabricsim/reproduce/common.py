"""Shared pieces of the reproductions: running their points through the sweep runner (resumable
store, process pool, progress bar) and the "paper vs ours" table."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
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
    if not rows:
        # `--only` may select points that no headline scores.
        print("(no headline scored by the points run)", file=file)
        return
    w = max(len(h.name) for h in rows)
    print(f"{'headline':<{w}}  {'paper':>14}  {'band':>14}  {'ours':>10}  result", file=file)
    for h in rows:
        ours = "-" if h.ours is None or h.ours != h.ours else f"{h.ours:.3g}{h.unit}"
        mark = {True: "pass", False: "MISS", None: "n/a"}[h.passed]
        print(f"{h.name:<{w}}  {h.paper:>14}  {h.band:>14}  {ours:>10}  {mark}", file=file)
        if h.note:
            print(f"{'':<{w}}    {h.note}", file=file)


def run_points(points: list[tuple[str, dict, Callable[[Any], dict]]], store: str | Path, jobs: Optional[int] = None,
               progress: bool = True, desc: str = "runs") -> dict[str, dict]:
    """Run (name, scenario dict, extract) points through the sweep runner into `store` and return
    {name: extract(results)}. The store makes a reproduction resumable: an interrupted one picks
    up where it stopped, and a repeated one only re-reads its runs. `extract` gets the run's
    Results. A point that fails is reported with its error and the others go on."""
    from ..results import Results
    from ..sweep import Sweep, run_sweep, scenario_hash

    sweep = Sweep(base={}, explicit=[({"point": name}, doc) for name, doc, _ in points], name=desc)
    r = run_sweep(sweep, store, workers=jobs or os.cpu_count() or 1, progress=progress)
    if r.interrupted:
        raise KeyboardInterrupt
    out: dict[str, dict] = {}
    for name, doc, extract in points:
        run_dir = Path(store) / "runs" / scenario_hash(doc)
        if (run_dir / "row.json").exists():
            out[name] = extract(Results.load(run_dir))
        else:
            print(f"run {name} failed: {r.failed.get(scenario_hash(doc), 'see the store')}", file=sys.stderr)
    return out


def run_selected(paper: str, scale: str, scales: dict, points: Callable[[str], list], output: str | Path,
                 jobs: Optional[int], progress: bool, only: Optional[list[str]]) -> tuple[Path, dict[str, dict]]:
    """The common start of a reproduction: check the scale, make the output directory, keep the
    points whose key starts with one of `only`, run them; returns (output dir, results)."""
    if scale not in scales:
        raise ValueError(f"scale '{scale}' is not one of {', '.join(scales)}")
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    pts = points(scale)
    if only:
        pts = [p for p in pts if any(p[0].startswith(o) for o in only)]
    return out, run_points(pts, out / "store", jobs=jobs, progress=progress, desc=f"{paper}-{scale}")


class FigureSaver:
    """Saves matplotlib figures as OUT/NAME.png (tight layout, 130 dpi) and remembers them."""

    def __init__(self, out: Path):
        self.out = out
        self.written: list[Path] = []

    def __call__(self, fig, name: str) -> None:
        import matplotlib.pyplot as plt

        p = self.out / f"{name}.png"
        fig.tight_layout()
        fig.savefig(p, dpi=130)
        plt.close(fig)
        self.written.append(p)
