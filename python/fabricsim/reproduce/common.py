"""Shared pieces of the reproductions: running their points through the sweep runner (resumable
store, process pool, progress bar), the "paper vs ours" table, and the two model columns.

Two models of each paper (``--model text|artifact|both``):

- ``text``: every setup choice from the paper's text (and, where it is silent, our documented
  defaults). This is the column the reproductions have always printed.
- ``artifact``: "as the authors ran it": the text model with each behaviour of the authors'
  public simulator code (or its lineage's) that the text does not state, applied as a named
  :class:`Change`. A change is adopted because the code does it, never because it passes.

``--one-change`` adds, for the paper's central claims, one run set per single change applied to the
text model, so a reader sees which detail decides each claim (``one_change.csv``).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

import numpy as np
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
        # bool(): a numpy value gives numpy.bool_, which `is True` (verdict_counts) does not match.
        return bool((self.low is None or self.ours >= self.low) and (self.high is None or self.ours <= self.high))


MODELS = ("text", "artifact", "both")


@dataclass(frozen=True)
class Change:
    """One behaviour of the authors' code that their paper's text does not state.

    `name` is a short key (``l2dct-ns2``), `what` one line saying what it does, `source` the
    repository, file and function it models (or the simulator default it stands for), and
    `apply(point, doc)` returns the scenario of point `point` with the change made (a new dict,
    `doc` untouched; the same dict back when the change does not concern that point). `requires`
    names changes it cannot act without (ns-2's loss-state ECE reads the mark its timeout rule
    keeps): a one-change row applies them too, and `--changes` refuses a selection without them.
    `reading` marks a behaviour read in the authors' code but not adopted, because their text (or
    another of their figures) says otherwise: it runs only when asked for (`--changes=+NAME`), on
    top of the model, so that both sides can be shown."""

    name: str
    what: str
    source: str
    apply: Callable[[str, dict], dict]
    requires: tuple[str, ...] = ()
    reading: bool = False

    @property
    def tag(self) -> str:
        """A reading's mark beside its name in tables and listings ("" for an adopted change)."""
        return f" ({READING})" if self.reading else ""


#: How the listings mark a reading.
READING = "read in the authors' code, not adopted"


def artifact_scenario(changes: Sequence[Change], point: str, doc: dict) -> dict:
    """The artifact model of one point: every change applied in order."""
    for c in changes:
        doc = c.apply(point, doc)
    return doc


def model_points(points: list, model: str, changes: Sequence[Change]) -> dict[str, list]:
    """The run sets of a model choice: {"text": points, "artifact": points with every change}."""
    if model not in MODELS:
        raise ValueError(f"model '{model}' is not one of {', '.join(MODELS)}")
    sets: dict[str, list] = {}
    if model in ("text", "both"):
        sets["text"] = points
    if model in ("artifact", "both"):
        sets["artifact"] = [(n, artifact_scenario(changes, n, d), x) for n, d, x in points]
    return sets


def select_changes(paper: str, changes: Sequence[Change], spec: Optional[str | Sequence[str]],
                   model: str = "both", readings: Sequence[Change] = ()) -> list[Change]:
    """The changes of `paper`'s artifact model that `--changes` keeps (`spec`, a list or a
    comma-separated string): None, every one; names, the text model plus only these (in the
    model's order: a group of changes); names each prefixed "-", every change but these
    (leave-some-out). Names prefixed "+" add those of `readings` (behaviours read in the authors'
    code and not adopted) after the kept changes, which are every change when nothing else is
    named and none with the name "none" (the text model plus readings). Raises ValueError naming
    an unknown change, a list mixing keep and leave-out names, a selection without a change one of
    it requires, or a selection with `model` "text"."""
    if spec is None:
        return list(changes)
    if model == "text":
        raise ValueError("--changes picks the artifact column's changes, and --model text has no artifact column")
    names = [c.name for c in changes]
    spec = [x.strip() for x in (spec.split(",") if isinstance(spec, str) else spec) if x.strip()]
    if not spec:
        raise ValueError(f"--changes: empty; {paper}'s changes: {', '.join(names) or 'none'}")
    extra = [x[1:] for x in spec if x.startswith("+")]
    by_reading = {r.name: r for r in readings}
    for x in extra:
        if x not in by_reading:
            have = f"its readings: {', '.join(by_reading)}" if readings else "it has none"
            raise ValueError(f"--changes: '+{x}' is not a reading of {paper}'s code ({have})")
    spec = list(dict.fromkeys(x for x in spec if not x.startswith("+")))
    if "none" in spec:
        if spec != ["none"]:
            raise ValueError(f"--changes: '{','.join(spec)}': 'none' stands alone, or with +NAME readings")
        if not extra:
            raise ValueError("--changes: 'none' keeps no change: it is the text model's column (--model text), "
                             "or add readings with +NAME")
    drop = [x.startswith("-") for x in spec]
    if any(drop) and not all(drop):
        raise ValueError(f"--changes: '{','.join(spec)}' mixes names to keep and names to leave out ('-NAME'): use one form")
    wanted = [x[1:] if x.startswith("-") else x for x in spec]
    unknown = [w for w in wanted if w not in names and w != "none"]
    if unknown:
        hint = f" (a reading, not adopted: add it with +{unknown[0]})" if unknown[0] in by_reading and not all(drop) else \
            " (a reading: it runs only when added with +NAME)" if unknown[0] in by_reading else ""
        raise ValueError(f"--changes: '{unknown[0]}' is not a change of {paper}'s artifact model{hint}; its changes: "
                         f"{', '.join(names) or 'none'}")
    kept = [] if spec == ["none"] else [c for c in changes if (c.name not in wanted) == all(drop)]
    kept += [r for r in readings if r.name in extra]
    for c in kept:
        missing = [r for r in c.requires if r not in {k.name for k in kept}]
        if missing:
            fix = f"keep {', '.join(missing)}" if c.reading else "leave both out" if all(drop) else "name both"
            raise ValueError(f"--changes: {c.name} needs {', '.join(missing)} (it cannot act without it): {fix}")
    return kept


def one_change_points(points: list, changes: Sequence[Change], prefixes: Sequence[str]) -> dict[str, list]:
    """For the points under `prefixes` (those the central claims read): one set per change,
    that change alone applied to the text model."""
    sel = [p for p in points if any(p[0].startswith(o) for o in prefixes)]
    by_name = {c.name: c for c in changes}

    def alone(c: Change) -> list[Change]:  # with what it requires, in the model's order
        return [k for k in changes if k.name in c.requires] + [c] if all(r in by_name for r in c.requires) else [c]

    return {c.name: [(n, artifact_scenario(alone(c), n, d), x) for n, d, x in sel] for c in changes}


def headline_frame(rows: list[Headline]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"headline": h.name, "paper": h.paper, "band": h.band, "ours": h.ours, "unit": h.unit,
          "result": {True: "pass", False: "MISS", None: "n/a"}[h.passed], "note": h.note} for h in rows]
    )


def _result(h: Optional[Headline]) -> str:
    return "n/a" if h is None else {True: "pass", False: "MISS", None: "n/a"}[h.passed]


def models_frame(models: dict[str, list[Headline]]) -> pd.DataFrame:
    """headlines.csv: with one model, :func:`headline_frame`; with both, the text model's columns
    followed by the artifact model's value and result (rows matched by name)."""
    if set(models) != {"text", "artifact"}:
        return headline_frame(next(iter(models.values())))
    df = headline_frame(models["text"])
    art = {h.name: h for h in models["artifact"]}
    df.insert(df.columns.get_loc("result") + 1, "ours_artifact", [getattr(art.get(n), "ours", None) for n in df["headline"]])
    df.insert(df.columns.get_loc("ours_artifact") + 1, "result_artifact", [_result(art.get(n)) for n in df["headline"]])
    return df


def verdict_counts(rows: list[Headline]) -> str:
    """"N pass, M MISS of T" (n/a rows counted in T only)."""
    p = sum(h.passed is True for h in rows)
    m = sum(h.passed is False for h in rows)
    return f"{p} pass, {m} MISS of {len(rows)}"


def print_models(models: dict[str, list[Headline]], title: str, file=None) -> None:
    """The "paper vs ours" table; with both models, the text and artifact values side by side."""
    if set(models) != {"text", "artifact"}:
        (model, rows), = models.items()
        print_headlines(rows, f"{title} [{model} model]" if model != "text" else title, file=file)
        return
    text, art = models["text"], {h.name: h for h in models["artifact"]}
    print(f"\n{title}\n", file=file)
    print(f"text model: {verdict_counts(text)}; as the authors ran it (artifact): {verdict_counts(models['artifact'])}\n", file=file)
    if not text:
        print("(no headline scored by the points run)", file=file)
        return
    w = max(len(h.name) for h in text)

    def fmt(h: Optional[Headline]) -> str:
        return "-" if h is None or h.ours is None or h.ours != h.ours else f"{h.ours:.3g}{h.unit}"

    print(f"{'headline':<{w}}  {'paper':>14}  {'band':>14}  {'text':>10}  {'':4}  {'artifact':>10}  {'':4}", file=file)
    for h in text:
        a = art.get(h.name)
        print(f"{h.name:<{w}}  {h.paper:>14}  {h.band:>14}  {fmt(h):>10}  {_result(h):4}  {fmt(a):>10}  {_result(a):4}", file=file)
        if h.note:
            print(f"{'':<{w}}    text: {h.note}", file=file)
        if a is not None and a.note and a.note != h.note:
            print(f"{'':<{w}}    artifact: {a.note}", file=file)


def print_changes(changes: Sequence[Change], file=None) -> None:
    """What the artifact model changes, each with the code it models."""
    if not changes:
        return
    adopted = [c for c in changes if not c.reading]
    head = "the artifact model (as the authors ran it) = the text model plus" if adopted else \
        "this column is the text model (no change of the artifact model) plus readings"
    print(f"\n{head}:", file=file)
    for c in changes:
        print(f"  {c.name}{c.tag}: {c.what}\n      source: {c.source}", file=file)


def artifact_label(changes: Sequence[Change], every: int = 0) -> str:
    """What the artifact column held: all the paper's changes, or (`every`, the paper's number of
    changes, above the count kept: `--changes` picked some) the selected ones, and any readings."""
    adopted = [c for c in changes if not c.reading]
    whole = "artifact model (all changes" if len(adopted) >= every else \
        f"artifact model ({len(adopted)} of {every} changes: {', '.join(c.name for c in adopted)}" if adopted else \
        "text model (no change"
    extra = [c.name for c in changes if c.reading]
    return whole + (f"; + {', '.join(extra)}, {READING})" if extra else ")")


def one_change_frame(central: Sequence[str], base: dict[str, list[Headline]], per_change: dict[str, list[Headline]],
                     changes: Sequence[Change], every: int = 0) -> pd.DataFrame:
    """one_change.csv: for each central headline, its value and result in the text model, with each
    single change, and in the artifact column (`artifact_label`)."""
    rows = []
    whole = artifact_label(changes, every)

    def single(c: Change) -> str:
        return f"+ {c.name} only" + (f" (with {', '.join(c.requires)})" if c.requires else "") + c.tag

    cols = [("text model", base.get("text")), *((single(c), per_change.get(c.name)) for c in changes),
            (whole, base.get("artifact"))]
    for name in central:
        for label, hl in cols:
            if hl is None:
                continue
            h = next((x for x in hl if x.name == name), None)
            if h is not None:
                rows.append({"headline": name, "model": label, "paper": h.paper, "band": h.band, "ours": h.ours,
                             "unit": h.unit, "result": _result(h)})
    return pd.DataFrame(rows, columns=["headline", "model", "paper", "band", "ours", "unit", "result"])


def print_one_change(df: pd.DataFrame, file=None) -> None:
    if not len(df):
        return
    print("\none change at a time (central claims): which detail decides each", file=file)
    for name, g in df.groupby("headline", sort=False):
        print(f"\n  {name} (paper {g['paper'].iloc[0]}, band {g['band'].iloc[0]})", file=file)
        for _, r in g.iterrows():
            v = "-" if r["ours"] is None or r["ours"] != r["ours"] else f"{r['ours']:.3g}{r['unit']}"
            print(f"    {r['model']:<40} {v:>10}  {r['result']}", file=file)


def print_headlines(rows: list[Headline], title: str, file=None) -> None:
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
               progress: bool = True, desc: str = "runs", dask: Optional[str] = None, run: bool = True) -> dict[str, dict]:
    """Run (name, scenario dict, extract) points through the sweep runner into `store` and return
    {name: extract(results)}. The store makes a reproduction resumable: an interrupted one picks
    up where it stopped, and a repeated one only re-reads its runs. `extract` gets the run's
    Results. A point that fails is reported with its error and the others go on.

    `dask`: None runs on a local process pool of `jobs`; "local" on a Dask LocalCluster of `jobs`
    workers; any other value is a Dask scheduler's address ("tcp://head:8786"), whose workers must
    see `store` at the same path (shared storage). Runs are deterministic, so the results are the
    same bit for bit wherever they ran.

    `run=False` runs nothing and leaves the store as it is: only the points whose runs the store
    already holds are returned (a paper-scale reproduction run in parts: where it stands)."""
    from ..results import Results
    from ..sweep import Sweep, run_sweep, scenario_hash

    failed: dict = {}
    if run:
        sweep = Sweep(base={}, explicit=[({"point": name}, doc) for name, doc, _ in points], name=desc)
        where = {} if dask is None else {"executor": "dask", "scheduler": None if dask == "local" else dask}
        r = run_sweep(sweep, store, workers=jobs or os.cpu_count() or 1, progress=progress, **where)
        if r.interrupted:
            raise KeyboardInterrupt
        failed = r.failed
    out: dict[str, dict] = {}
    for name, doc, extract in points:
        run_dir = Path(store) / "runs" / scenario_hash(doc)
        if (run_dir / "row.json").exists():
            out[name] = extract(Results.load(run_dir))
        elif run:
            print(f"run {name} failed: {failed.get(scenario_hash(doc), 'see the store')}", file=sys.stderr)
    if not run:
        print(f"{len(out)} of {len(points)} points have their runs in {store}; the others are left out (n/a) and were not run",
              file=sys.stderr)
    return out


def run_selected(paper: str, scale: str, scales: dict, points: Callable[[str], list], output: str | Path,
                 jobs: Optional[int], progress: bool, only: Optional[list[str]]) -> tuple[Path, dict[str, dict]]:
    """The common start of a reproduction: check the scale, make the output directory, keep the
    points whose key starts with one of `only`, run them; returns (output dir, results)."""
    out, sets = run_models(paper, scale, scales, points, output, jobs, progress, only)
    return out, sets["text"]


def run_models(paper: str, scale: str, scales: dict, points: Callable[[str], list], output: str | Path,
               jobs: Optional[int], progress: bool, only: Optional[list[str]], model: str = "text",
               changes: Sequence[Change] = (), one_change: Sequence[str] = (), dask: Optional[str] = None,
               run: bool = True) -> tuple[Path, dict[str, dict[str, dict]]]:
    """:func:`run_selected` for several models at once: the text model, the artifact model
    (`changes` applied), and with `one_change` (point prefixes the central claims read) one set per
    single change. All runs go through one sweep (one progress bar; a scenario shared by two sets
    runs once; `dask` and `run` as :func:`run_points`). Returns (output dir, {set name: {point:
    extract}}), set names "text", "artifact" and each change's name."""
    if scale not in scales:
        raise ValueError(f"scale '{scale}' is not one of {', '.join(scales)}")
    if model not in MODELS:
        raise ValueError(f"model '{model}' is not one of {', '.join(MODELS)}")
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    pts = points(scale)
    if only:
        pts = [p for p in pts if any(p[0].startswith(o) for o in only)]
    sets = model_points(pts, model, changes)
    if one_change:
        for name, s in one_change_points(pts, changes, one_change).items():
            sets[name] = s
    if "text" not in sets:
        pts = []  # the text model's scenarios are not run: let them go (at paper scale, GBs)
    if list(sets) == ["text"]:
        return out, {"text": run_points(pts, out / "store", jobs=jobs, progress=progress, desc=f"{paper}-{scale}", dask=dask,
                                        run=run)}
    tagged = [(f"{k}::{n}", d, x) for k, s in sets.items() for n, d, x in s]
    got = run_points(tagged, out / "store", jobs=jobs, progress=progress, desc=f"{paper}-{scale}", dask=dask, run=run)
    res: dict[str, dict[str, dict]] = {k: {} for k in sets}
    for key, v in got.items():
        k, n = key.split("::", 1)
        res[k][n] = v
    return out, res


def runs_by_model(sets: dict[str, dict[str, dict]], frame: Callable[[dict[str, dict]], pd.DataFrame]) -> pd.DataFrame:
    """runs.csv: one model's runs as `frame` makes them; with both models, both, under a leading
    "model" column."""
    ms = [m for m in ("text", "artifact") if m in sets]
    if len(ms) == 1:
        return frame(sets[ms[0]])
    parts = []
    for m in ms:
        f = frame(sets[m])
        f.insert(0, "model", m)
        parts.append(f)
    return pd.concat(parts, ignore_index=True)


def primary(sets: dict[str, dict[str, dict]]) -> dict[str, dict]:
    """The runs a reproduction's own tables and printouts read: the text model's, or the artifact
    model's when only it ran."""
    return sets.get("text", sets.get("artifact", {}))


def write_runs(out: Path, sets: dict[str, dict[str, dict]], frame: Callable[[dict[str, dict]], pd.DataFrame]) -> pd.DataFrame:
    """runs.csv (:func:`runs_by_model`), written and returned."""
    runs = runs_by_model(sets, frame)
    runs.to_csv(out / "runs.csv", index=False)
    return runs


def model_figures(out: Path, sets: dict[str, dict[str, dict]], draw: Callable[[dict[str, dict], Path], list[Path]]) -> list[Path]:
    """The figures of :func:`primary`'s runs in `out`, and with both models the artifact model's in
    `out`/artifact."""
    figs = draw(primary(sets), out)
    if "text" in sets and "artifact" in sets:
        (out / "artifact").mkdir(exist_ok=True)
        figs += draw(sets["artifact"], out / "artifact")
    return figs


def finish_models(out: Path, sets: dict[str, dict[str, dict]], headlines: Callable[[dict[str, dict]], list[Headline]],
                  title: str, changes: Sequence[Change], central: Sequence[str], every: int = 0) -> tuple[pd.DataFrame, dict[str, list[Headline]]]:
    """The end every reproduction shares: score each model's runs, write headlines.csv and print
    both columns with what the artifact model changes; where single-change sets ran, write
    one_change.csv and print it (`every`: the paper's number of changes, so a `--changes`
    selection is labelled as one). Returns (headlines frame, {model: headlines})."""
    models = {m: headlines(sets[m]) for m in ("text", "artifact") if m in sets}
    df = write_models(out, models, title, changes, artifact_label(changes, every))
    singles = {c.name: headlines(sets[c.name]) for c in changes if c.name in sets}
    if singles:
        oc = one_change_frame(central, models, singles, changes, every)
        oc.to_csv(out / "one_change.csv", index=False)
        print_one_change(oc)
    return df, models


def write_models(out: Path, models: dict[str, list[Headline]], title: str, changes: Sequence[Change] = (),
                 label: str = "artifact model (all changes)") -> pd.DataFrame:
    """Write headlines.csv (both columns when both models ran; with the artifact model, its column
    `artifact_model` says what it held, `label`) and print the table, then what the artifact model
    changes."""
    df = models_frame(models)
    if "artifact" in models:
        df["artifact_model"] = label
    df.to_csv(out / "headlines.csv", index=False)
    print_models(models, title)
    if "artifact" in models:
        print_changes(changes)
    return df


@dataclass(frozen=True)
class Stated:
    """A value the paper states for one of our figures, drawn on it beside ours.

    `figure` is the figure's file name without .png, `axes` the index of its panel in
    `fig.axes`; `y` the paper's value (None: the paper gives only a bound), `low`/`high` the band
    the matching headline scores ours against (None = open), in the figure's units; `x` where on
    the x axis (a number, a tick's label such as a scheme's name, or None for the whole axis), `dx`
    an offset from it (one bar of a group); `span` a (from, to) range on the x axis: the band of
    a value the paper states as a time or a count, or the x range a y band holds over; `label`
    what the paper says and `source` where (section, figure, sentence)."""

    figure: str
    label: str
    source: str
    y: Optional[float] = None
    low: Optional[float] = None
    high: Optional[float] = None
    x: Any = None
    axes: int = 0
    dx: float = 0.0
    span: Optional[tuple] = None

    @property
    def band(self) -> str:
        if self.low is None and self.high is None:
            return ""
        if self.low is not None and self.high is not None:
            return f"{self.low:g} to {self.high:g}"
        return f">= {self.low:g}" if self.low is not None else f"<= {self.high:g}"


@dataclass(frozen=True)
class Setup:
    """One setup choice of a reproduction: what, our value, and the paper's sentence it rests on
    (or why ours, where the text is silent). Listed in report.html."""

    choice: str
    value: str
    cites: str


def _x_of(ax, x) -> Optional[float]:
    """A stated x as a position on `ax`: numbers as they are, a tick label as its tick's position
    (None when no tick has that label: the point did not run)."""
    if not isinstance(x, str):
        return x
    for pos, lab in zip(ax.get_xticks(), ax.get_xticklabels()):
        if lab.get_text() == x:
            return float(pos)
    return None


#: How the paper's values look on our figures: a black star per value, its band shaded.
PAPER_STYLE = {"marker": "*", "color": "black", "ms": 13, "ls": "none", "zorder": 5}
BAND_COLOR = "#f2c14e"


def overlay(fig, stated: Sequence[Stated]) -> None:
    """Draw the paper's stated values on `fig`: a star at each value and its band as a shaded area
    (a horizontal strip when the value holds for the whole x axis, a shaded span or a bar at its x
    otherwise); the legend of each panel gains "paper" and "paper's band". A value whose tick
    label is not on its panel (that point did not run) is left out."""
    labelled: set = set()

    def label(ax, what: str) -> Optional[str]:
        if (id(ax), what) in labelled:
            return None
        labelled.add((id(ax), what))
        return what

    for s in stated:
        if s.axes >= len(fig.axes):
            continue
        ax = fig.axes[s.axes]
        x = _x_of(ax, s.x)
        span = None if s.span is None else tuple(_x_of(ax, v) for v in s.span)
        if (s.x is not None and x is None) or (span is not None and None in span):
            continue
        x = None if x is None else x + s.dx
        y0, y1 = ax.get_ylim()
        lo = y0 if s.low is None else s.low
        hi = y1 if s.high is None else s.high
        shaded = s.low is not None or s.high is not None or span is not None
        band = dict(color=BAND_COLOR, alpha=0.35, zorder=0, label=label(ax, "paper's band") if shaded else None)
        if s.low is not None or s.high is not None:
            if span is not None:
                ax.fill_between(list(span), [lo, lo], [hi, hi], **band)
            elif x is None:
                ax.axhspan(lo, hi, **band)
            else:
                ax.vlines(x, lo, hi, lw=14, **band)
        elif span is not None:
            ax.axvspan(*span, **band)
        if s.y is not None:
            if x is None and span is None:
                ax.axhline(s.y, color="black", ls=":", lw=1.2, label=label(ax, "paper"))
            else:
                ax.plot([x if x is not None else sum(span) / 2], [s.y], **PAPER_STYLE, label=label(ax, "paper"))
        shown = [v for v in (s.low, s.high, s.y) if v is not None]
        ax.set_ylim(min([y0, *shown]), max([y1, *shown]))
    drawn = {k for k, _ in labelled}
    for ax in fig.axes:
        if id(ax) in drawn:
            ax.legend(fontsize=7)


class FigureSaver:
    """Saves matplotlib figures as OUT/NAME.png (tight layout, 130 dpi) and remembers them; with
    `stated`, the paper's values for NAME are drawn on it first (:func:`overlay`)."""

    def __init__(self, out: Path, stated: Sequence[Stated] = ()):
        self.out = out
        self.stated = stated
        self.written: list[Path] = []

    def __call__(self, fig, name: str) -> None:
        import matplotlib.pyplot as plt

        overlay(fig, [s for s in self.stated if s.figure == name])
        p = self.out / f"{name}.png"
        fig.tight_layout()
        fig.savefig(p, dpi=130)
        plt.close(fig)
        self.written.append(p)


# ---- what the papers' analyses share -------------------------------------------------------------

def value(r: dict, key: str, field: str) -> float:
    """Field `field` of point `key`'s extract in `r` as a float; NaN when the point did not run (an
    `--only` subset) or has no such field, so a headline reading it comes out n/a."""
    v = r.get(key, {}).get(field)
    return float("nan") if v is None else float(v)


def percentile(a, q: float) -> float:
    """The q-th percentile of the values `a`; NaN when there are none."""
    return float(np.percentile(a, q)) if a is not None and len(a) else float("nan")


def nan_mean(xs: Iterable[float]) -> float:
    """Mean of the values that are not NaN (the loads or points that ran); NaN when none is."""
    v = [x for x in xs if x == x]
    return float(np.mean(v)) if v else float("nan")


def pct_lower(a: float, b: float) -> float:
    """How much lower (%) `a` is than `b` — a paper's "X reduces FCT by N %" (positive = `a` better);
    NaN when either is missing or `b` is 0."""
    return 100 * (1 - a / b) if b == b and a == a and b else float("nan")


def wide_band(lo: float, hi: Optional[float] = None) -> tuple[float, float]:
    """Two-sided band around a paper's value (or range lo-hi): 5 points or half the value beyond
    each end, whichever is wider. The rule Flash's and PPT's percentage headlines share, fixed
    before any run (docs/reproductions/flash.md)."""
    hi = lo if hi is None else hi
    return lo - max(5.0, abs(lo) / 2), hi + max(5.0, abs(hi) / 2)


def relative_band(v: float, frac: float) -> tuple[float, float]:
    """The band `v` ± `frac` of `v` (relative, both sides)."""
    return (1 - frac) * v, (1 + frac) * v


_SIZE = {"B": 1, "KB": 1000, "MB": 1000 ** 2, "GB": 1000 ** 3}
_TIME_US = {"ps": 1e-6, "ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
_RATE = {"bps": 1.0, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}


def _number(text: str, units: dict, what: str) -> tuple[float, Any]:
    for u in sorted(units, key=len, reverse=True):
        if text.endswith(u):
            return float(text[: -len(u)]), units[u]
    raise ValueError(f"'{text}' is not a {what} ({', '.join(units)})")


def size_bytes(text: str) -> int:
    """A scenario size ("120KB", "2GB", "1500B"; decimal units as the engine reads them) in bytes."""
    x, k = _number(text, _SIZE, "size")
    return int(x * k)


def duration_us(text: str) -> float:
    """A scenario duration ("5us", "1.5ms", "10s") in microseconds."""
    x, k = _number(text, _TIME_US, "duration")
    return x * k


def rate_bps(text: str) -> float:
    """A scenario rate ("10Gbps", "150Mbps") in bits per second."""
    x, k = _number(text, _RATE, "rate")
    return x * k


def cdf_points(name: str) -> list[tuple[float, float]]:
    """(size in bytes, cumulative probability) of a built-in flow-size distribution (`fabricsim list
    workloads`)."""
    from .. import _engine

    return [(float(a), float(b)) for a, b, *_ in (ln.split() for ln in _engine.builtin_workload_text(name).splitlines()
                                                  if ln.strip() and not ln.lstrip().startswith("#"))]


def counter_rate(timeseries: pd.DataFrame, target: str, since_s: float = 0.0, metric: str = "tx_bytes") -> float:
    """Mean rate in bits/s of a sampled byte counter (a port's `tx_bytes`) over the measured window:
    from its first sample at or after `since_s` (the warm-up's end) to its last."""
    x = timeseries[(timeseries.metric == metric) & (timeseries.target == target) & (timeseries.time_s >= since_s - 1e-9)]
    x = x.sort_values("time_s")
    return float((x.value.iloc[-1] - x.value.iloc[0]) * 8 / (x.time_s.iloc[-1] - x.time_s.iloc[0]))


def runs_table(results: dict[str, dict], skip: Sequence[str] = ()) -> pd.DataFrame:
    """runs.csv's rows: one per point (sorted by name), its extract's fields but `skip` (series
    kept for the figures)."""
    return pd.DataFrame([{"point": k, **{f: v for f, v in d.items() if f not in skip}} for k, d in sorted(results.items())])
