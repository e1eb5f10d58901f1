"""`fabricsim report DIR`: one static HTML page (tables and figures embedded, no server, no
network) for a run's results directory or a sweep store."""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import Optional

import pandas as pd

from .errors import MissingFileError

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5em 0; }
.note { color: #666; font-size: 0.85em; }
"""

#: Counts decoded images after load, so a headless browser test can tell the figures rendered.
CHECK = """<script>
window.addEventListener('load', function () {
  var imgs = document.images, ok = 0;
  for (var i = 0; i < imgs.length; i++) { if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++; }
  document.body.setAttribute('data-images-ok', ok);
  document.body.setAttribute('data-tables', document.getElementsByTagName('table').length);
});
</script>"""


def _fig_html(fig, alt: str) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode()
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _table(df: pd.DataFrame, index: bool = False) -> str:
    return df.to_html(index=index, border=0, float_format=lambda v: f"{v:.4g}", na_rep="-", escape=True)


def _page(title: str, parts: list[str]) -> str:
    return (f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>\n<h1>{html.escape(title)}</h1>\n" + "\n".join(parts) + f"\n{CHECK}\n</body></html>\n")


def _run_parts(d: Path) -> tuple[str, list[str]]:
    import matplotlib

    matplotlib.use("Agg")
    from . import analysis, plots
    from .results import Results

    res = Results.load(d)
    s = res.summary
    title = f"fabricsim run: {s.get('scenario', d.name)}"
    keys = ["scenario", "seed", "sim_time_s", "wall_s", "events", "packet_hops", "packets_dropped", "flows", "flows_completed",
            "goodput_bytes", "circuit_utilization", "latency_p50_us", "latency_p99_us", "latency_p999_us", "peak_rss_bytes"]
    summary = pd.DataFrame([(k, s[k]) for k in keys if k in s and s[k] is not None], columns=["figure", "value"])
    parts = ["<h2>Summary</h2>", _table(summary)]
    finished = res.flows["fct_s"].notna()
    if finished.any():
        parts += ["<h2>Flow completion times</h2>", _table(analysis.fct_stats(res.flows), index=True)]
    ports = res.ports.sort_values("utilization", ascending=False).head(10)
    cols = [c for c in ["port", "utilization", "tx_packets", "drops", "ecn_marks", "mean_queue_packets", "max_queue_packets"] if c in ports]
    parts += ["<h2>Busiest ports</h2>", _table(ports[cols])]
    if res.circuit:
        parts += ["<h2>Circuit switch</h2>", "<p class='note'>Per-packet latency through the hybrid network (data packets):</p>",
                  _table(res.circuit["latency"])]
        days = res.circuit["days"]
        if len(days):
            per_pair = days.groupby(["src", "dst"]).agg(days=("utilization", "size"), utilization=("utilization", "mean"),
                                                        bytes=("bytes", "sum")).reset_index()
            parts += ["<p class='note'>Circuit days per rack pair with traffic:</p>", _table(per_pair)]
    figs = []
    if finished.any():
        figs.append(_fig_html(plots.fct_cdf(res), "FCT CDF"))
        figs.append(_fig_html(plots.slowdown_vs_size(res), "slowdown vs size"))
    ts = res.timeseries
    if (ts["metric"] == "queue_packets").any():
        figs.append(_fig_html(plots.queue_over_time(res), "queue over time"))
    if (ts["metric"] == "tx_bytes").any():
        figs.append(_fig_html(plots.throughput_over_time(res), "throughput over time"))
    if res.circuit and len(res.circuit["seq_view"]) and res.circuit["seq_view"]["weeks"].max() > 0:
        figs.append(_fig_html(plots.circuit_view(res), "expected bytes around a circuit day"))
    if figs:
        parts += ["<h2>Figures</h2>"] + figs
    return title, parts


METRICS = ["fct_mean_s", "fct_p99_s", "slowdown_mean", "slowdown_p99", "goodput_gbps", "circuit_utilization", "latency_p99_us",
           "timeouts", "drops"]


def _sweep_parts(d: Path) -> tuple[str, list[str]]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .sweep import load

    sw = load(d)
    t = sw.table
    title = f"fabricsim sweep: {sw.definition.get('name', d.name)}"
    axes = pd.DataFrame([(k, ", ".join(map(str, v))) for k, v in sw.definition.get("axes", {}).items()], columns=["axis", "values"])
    parts = [f"<p class='note'>base: {html.escape(str(sw.definition.get('base', ''))[:200])}; mode {sw.definition.get('mode')}; "
             f"{len(t)} finished runs, {len(sw.failed)} failed</p>", "<h2>Axes</h2>", _table(axes)]
    metrics = [m for m in METRICS if m in t.columns and pd.api.types.is_numeric_dtype(t[m]) and t[m].notna().any()]
    if len(t):
        cols = sw.params + metrics + ["key"]
        parts += ["<h2>Runs</h2>", _table(t[cols].sort_values(sw.params) if sw.params else t[cols])]
    if sw.failed:
        f = pd.DataFrame([{"key": k, **{f"param.{p}": v for p, v in e.get("params", {}).items()}, "error": f"{e['error']}: {e['message'][:300]}"}
                          for k, e in sw.failed.items()])
        parts += ["<h2>Failed runs</h2>", _table(f)]
    figs = []
    candidates = [p for p in sw.params if "seed" not in p] or sw.params
    numeric = [p for p in candidates if pd.api.types.is_numeric_dtype(t[p]) and t[p].nunique() > 1]
    x = numeric[0] if numeric else (candidates[0] if candidates else None)
    others = [p for p in candidates if p != x]
    for m in metrics if x is not None and len(t) else []:
        fig, ax = plt.subplots(figsize=(6.5, 3.6))
        if others:
            label = t[others].astype(str).agg(", ".join, axis=1).rename(", ".join(o.removeprefix("param.") for o in others))
            table = t.assign(_series=label).pivot_table(values=m, index=x, columns="_series", aggfunc="mean")
            table.columns.name = label.name
        else:
            table = t.pivot_table(values=m, index=x, aggfunc="mean")
        if x in numeric:
            table.plot(ax=ax, marker="o")
        else:
            table.plot.bar(ax=ax, rot=0)
        ax.set_xlabel(x.removeprefix("param."))
        ax.set_ylabel(m)
        ax.grid(alpha=0.3)
        if not others and ax.get_legend():
            ax.get_legend().remove()
        figs.append(_fig_html(fig, f"{m} vs {x}"))
    if figs:
        parts += ["<h2>Figures</h2>", "<p class='note'>Means over repeated points (seeds).</p>"] + figs
    return title, parts


def report(directory: str | Path, output: Optional[str | Path] = None) -> Path:
    """Write DIR/report.html (or `output`) for a results directory or a sweep store."""
    d = Path(directory)
    if (d / "sweep.json").exists():
        title, parts = _sweep_parts(d)
    elif (d / "summary.json").exists() and (d / "flows.parquet").exists():
        title, parts = _run_parts(d)
    else:
        raise MissingFileError(f"{d} is neither a results directory (summary.json, flows.parquet) nor a sweep store (sweep.json)")
    out = Path(output) if output else d / "report.html"
    out.write_text(_page(title, parts))
    return out

