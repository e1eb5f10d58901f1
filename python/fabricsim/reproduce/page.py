"""A reproduction's report.html: one self-contained page a reader takes in at a glance — the
verdict per model column, the headline table (central claims first), every figure with the
paper's stated values drawn on it, the setup with the sentence each choice cites, what the
artifact model changes and the one-change table, and links to runs.csv and the store.

Written by every `fabricsim reproduce PAPER` (:func:`write_page`), opened and checked in
headless Chromium by tests/test_reproduce_page.py like the sweep report."""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Optional, Sequence

import pandas as pd

from ..report import CHECK, STYLE
from .common import Change, Headline, Setup, Stated, verdict_counts

PAGE_STYLE = STYLE + """
td.pass { background: #d8f0d8; } td.MISS { background: #f7d4d4; font-weight: bold; } td.na { color: #888; }
tr.central td:first-child { font-weight: bold; }
.status { font-size: 1.1em; padding: 0.5em 0.8em; background: #f6f6f6; border-left: 4px solid #888; }
.figs figure { margin: 0.3em 0 1em 0; } figcaption { font-weight: bold; font-size: 0.85em; color: #555; }
td { text-align: left; vertical-align: top; }
"""


def _esc(x) -> str:
    return html.escape("" if x is None else str(x))


def _fmt(h: Optional[Headline]) -> str:
    if h is None or h.ours is None or h.ours != h.ours:
        return "-"
    return f"{h.ours:.3g}{h.unit}"


def _result(h: Optional[Headline]) -> str:
    return "n/a" if h is None else {True: "pass", False: "MISS", None: "n/a"}[h.passed]


def _cell(h: Optional[Headline]) -> str:
    r = _result(h)
    return f"<td>{_esc(_fmt(h))}</td><td class='{'na' if r == 'n/a' else r}'>{r}</td>"


def status_line(models: dict[str, list[Headline]], central: Sequence[str]) -> str:
    """"text model: 16 pass, 3 MISS of 19 (central 1 of 4); artifact: ..." per model that ran."""
    parts = []
    for m, rows in models.items():
        c = [h for h in rows if h.name in central]
        cp = sum(h.passed is True for h in c)
        parts.append(f"{'text model' if m == 'text' else 'as the authors ran it (artifact)'}: {verdict_counts(rows)}"
                     + (f" — central claims {cp} of {len(c)} pass" if c else ""))
    return "; ".join(parts) or "no headline scored by the points run"


def headline_table(models: dict[str, list[Headline]], central: Sequence[str]) -> str:
    ms = list(models)
    first = models[ms[0]] if ms else []
    others = {m: {h.name: h for h in models[m]} for m in ms}
    order = sorted(first, key=lambda h: (h.name not in central, central.index(h.name) if h.name in central else 0))
    head = "<tr><th>headline</th><th>paper</th><th>band</th>" + "".join(f"<th>{m}</th><th></th>" for m in ms) + "<th>note</th></tr>"
    rows = []
    for h in order:
        cls = " class='central'" if h.name in central else ""
        mark = "&#9733; " if h.name in central else ""
        cells = "".join(_cell(others[m].get(h.name)) for m in ms)
        rows.append(f"<tr{cls}><td>{mark}{_esc(h.name)}</td><td>{_esc(h.paper)}</td><td>{_esc(h.band)}</td>{cells}"
                    f"<td class='note'>{_esc(h.note)}</td></tr>")
    return f"<table>{head}{''.join(rows)}</table>"


def _img(p: Path) -> str:
    data = base64.b64encode(p.read_bytes()).decode()
    return f'<img alt="{_esc(p.stem)}" src="data:image/png;base64,{data}">'


def figure_section(out: Path, figures: Sequence[Path], stated: Sequence[Stated]) -> list[str]:
    """Each figure (the text model's beside the artifact model's when both ran), with the paper's
    values on it listed under it with their sources."""
    parts = []
    names = list(dict.fromkeys(p.stem for p in figures if p.parent == out))
    for name in names:
        pics = [(lab, d / f"{name}.png") for lab, d in (("text model", out), ("artifact model", out / "artifact"))
                if (d / f"{name}.png").exists()]
        if len(pics) == 1:
            pics = [("", pics[0][1])]
        ours = [s for s in stated if s.figure == name]
        parts.append(f"<h3>{_esc(name)}</h3><div class='figs'>" + "".join(
            f"<figure><figcaption>{_esc(lab)}</figcaption>{_img(p)}</figure>" for lab, p in pics) + "</div>")
        if ours:
            rows = "".join(f"<tr><td>{_esc(s.label)}</td><td>{'' if s.y is None else f'{s.y:g}'}</td><td>{_esc(s.band)}</td>"
                           f"<td class='note'>{_esc(s.source)}</td></tr>" for s in ours)
            parts.append("<p class='note'>drawn on the figure (star: the paper's value; shaded: its band):</p>"
                         f"<table><tr><th>the paper states</th><th>value</th><th>band</th><th>where</th></tr>{rows}</table>")
        else:
            parts.append("<p class='note'>No value the paper states sits on this figure's axes (its claims here are "
                         "orderings, shapes or relative reductions: see the headline table).</p>")
    return parts


def write_page(out: Path, title: str, models: dict[str, list[Headline]], central: Sequence[str], figures: Sequence[Path],
               stated: Sequence[Stated] = (), setup: Sequence[Setup] = (), changes: Sequence[Change] = ()) -> Path:
    """Write OUT/report.html and return its path."""
    parts = [f"<p class='status'>{_esc(status_line(models, central))}</p>",
             "<p class='note'>&#9733; = a central claim (listed first). Bands are fixed before the runs; a miss is reported, "
             "never tuned away. Files: <a href='runs.csv'>runs.csv</a> (one row per run), <a href='headlines.csv'>headlines.csv</a>"
             + (", <a href='one_change.csv'>one_change.csv</a>" if (out / "one_change.csv").exists() else "")
             + ", <a href='store/'>store/</a> (every run's results; <code>fabricsim report " + _esc(out / "store") + "</code>).</p>",
             "<h2>Headlines: paper vs ours</h2>", headline_table(models, central)]
    parts += ["<h2>Figures, with the paper's values on them</h2>"] + figure_section(out, figures, stated)
    if setup:
        rows = "".join(f"<tr><td>{_esc(s.choice)}</td><td>{_esc(s.value)}</td><td class='note'>{_esc(s.cites)}</td></tr>" for s in setup)
        parts += ["<h2>Setup</h2>", f"<table><tr><th>choice</th><th>ours</th><th>the paper's sentence</th></tr>{rows}</table>"]
    if changes:
        rows = "".join(f"<tr><td>{_esc(c.name + c.tag)}</td><td>{_esc(c.what)}</td>"
                       f"<td class='note'>{_esc(c.source)}</td></tr>" for c in changes)
        parts += ["<h2>What the artifact model changes</h2>",
                  f"<table><tr><th>change</th><th>what it does</th><th>source</th></tr>{rows}</table>"]
    oc = out / "one_change.csv"
    parts.append("<h2>One change at a time (central claims)</h2>")
    if oc.exists():
        df = pd.read_csv(oc)
        rows = "".join(f"<tr><td>{_esc(r.headline)}</td><td>{_esc(r.model)}</td><td>{_esc(r.paper)}</td><td>{_esc(r.band)}</td>"
                       f"<td>{'-' if r.ours != r.ours else f'{r.ours:.3g}{r.unit if r.unit == r.unit else chr(32)}'}</td>"
                       f"<td class='{'na' if r.result == 'n/a' else r.result}'>{_esc(r.result)}</td></tr>" for r in df.itertuples())
        parts.append(f"<table><tr><th>headline</th><th>model</th><th>paper</th><th>band</th><th>ours</th><th></th></tr>{rows}</table>")
    else:
        parts.append("<p class='note'>Not run: add <code>--one-change</code> to see which single change decides each central claim.</p>")
    page = (f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{_esc(title)}</title><style>{PAGE_STYLE}</style></head>"
            f"<body>\n<h1>{_esc(title)}</h1>\n" + "\n".join(parts) + f"\n{CHECK}\n</body></html>\n")
    p = out / "report.html"
    p.write_text(page)
    return p


def recorded_verdicts(headlines_csv: Path) -> str:
    """The verdict counts of a written headlines.csv, per model column ("text 16 pass, 3 MISS of 19;
    artifact 16 pass, ..."); the artifact column named by what it held when `--changes` picked
    some changes or readings, and an artifact-only run's one column as the artifact's."""
    df = pd.read_csv(headlines_csv)
    out = []
    art = "artifact"
    if "artifact_model" in df and len(df) and df["artifact_model"].iloc[0] != "artifact model (all changes)":
        art = str(df["artifact_model"].iloc[0])
    first = art if "artifact_model" in df and "result_artifact" not in df else "text"
    for col, name in (("result", first), ("result_artifact", art)):
        if col in df:
            out.append(f"{name} {int((df[col] == 'pass').sum())} pass, {int((df[col] == 'MISS').sum())} MISS of {len(df)}")
    return "; ".join(out)


def write_report(out: Path, paper: str, models: dict[str, list[Headline]], central: Sequence[str], figures: Sequence[Path],
                 stated: Sequence[Stated], setup: Sequence[Setup], changes: Sequence[Change]) -> Path:
    """The end of `fabricsim reproduce PAPER`: OUT/report.html under the paper's title, said on stderr."""
    import sys

    from . import PAPERS

    p = write_page(out, PAPERS[paper], models, central, figures, stated, setup, changes)
    print(f"report: {p} (open it in a browser)", file=sys.stderr)
    return p
