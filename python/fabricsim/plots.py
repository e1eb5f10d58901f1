"""Figures (matplotlib): FCT CDFs, slowdown vs flow size, FCT/slowdown vs load, queue length and
throughput over time, per-flow goodput and fairness, per-class queues, compare bars. Every function returns the Figure and, given `out`, writes
`out.png` and `out.svg` (a suffix in `out` is replaced)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional, Sequence, Union

import matplotlib

matplotlib.use("Agg")  # files only; never needs a display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from . import analysis  # noqa: E402

plt.rcParams.update({"figure.dpi": 110, "axes.grid": True, "grid.alpha": 0.3, "font.size": 10,
                     "axes.spines.top": False, "axes.spines.right": False})

FlowsLike = Union[pd.DataFrame, "object"]


def _flows(x) -> pd.DataFrame:
    return x.flows if hasattr(x, "flows") else x


def _as_mapping(x) -> Mapping[str, pd.DataFrame]:
    if isinstance(x, Mapping):
        return {k: _flows(v) for k, v in x.items()}
    return {"": _flows(x)}


def save(fig, out: Optional[Union[str, Path]]) -> list[Path]:
    """Write `out`.png and `out`.svg; returns the paths.

    Example::

        >>> fabricsim.plots.save(fig, "figures/mine")        # figures/mine.png and .svg   # doctest: +SKIP
    """
    if out is None:
        return []
    base = Path(out).with_suffix("")
    base.parent.mkdir(parents=True, exist_ok=True)
    paths = [base.with_suffix(".png"), base.with_suffix(".svg")]
    fig.tight_layout()
    for p in paths:
        fig.savefig(p)
    return paths


def fct_cdf(runs, out=None, measured_only: bool = True, title: str = "Flow completion time"):
    """CDF of FCT, one line per run ({name: Results or flows frame}, or one run).

    Example::

        >>> fabricsim.plots.fct_cdf({"dctcp": r1, "newreno": r2}, out="figures/fct_cdf")   # doctest: +SKIP
    """
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, f in _as_mapping(runs).items():
        x = np.sort(analysis.finished(f, measured_only)["fct_s"].astype(float).to_numpy()) * 1e6
        if len(x):
            ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=name or None, drawstyle="steps-post")
    ax.set_xscale("log")
    ax.set_xlabel("FCT (µs)")
    ax.set_ylabel("CDF (fraction of flows)")
    ax.set_ylim(0, 1.01)
    ax.set_title(title)
    if len(_as_mapping(runs)) > 1:
        ax.legend()
    save(fig, out)
    return fig


def slowdown_vs_size(runs, out=None, buckets: int = 20, measured_only: bool = True):
    """Homa-style: median and p99 slowdown per flow-size bucket (equal-count buckets of size).

    Example::

        >>> fabricsim.plots.slowdown_vs_size(res, out="figures/slowdown")   # doctest: +SKIP
    """
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, (name, f) in enumerate(_as_mapping(runs).items()):
        g = analysis.finished(f, measured_only).copy()
        if g.empty:
            continue
        g["bucket"] = pd.qcut(g["size"].astype(float).rank(method="first"), min(buckets, len(g)), labels=False)
        s = g.groupby("bucket").agg(size=("size", "max"), p50=("slowdown", lambda v: v.astype(float).median()),
                                     p99=("slowdown", lambda v: v.astype(float).quantile(0.99)))
        color = f"C{i}"
        ax.plot(s["size"], s["p50"], "-o", ms=3, color=color, label=f"{name} median".strip())
        ax.plot(s["size"], s["p99"], "--", color=color, label=f"{name} p99".strip())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("flow size (bytes, bucket upper edge)")
    ax.set_ylabel("slowdown (FCT / ideal FCT)")
    ax.legend(fontsize=8)
    save(fig, out)
    return fig


def fct_vs_load(df: pd.DataFrame, out=None, metric: str = "fct_mean_s", scheme_col: str = "scheme",
                load_col: str = "load", size_bin: str = "all"):
    """A statistic (default mean FCT) against load, one line per scheme. `df` has columns scheme,
    load, size_bin and the metric (e.g. fct_stats rows with scheme and load added).

    Example::

        >>> fabricsim.plots.fct_vs_load(compare_result.stats(), out="figures/fct_vs_load")   # doctest: +SKIP
    """
    d = df[df["size_bin"] == size_bin] if "size_bin" in df else df
    fig, ax = plt.subplots(figsize=(6, 4))
    scale, unit = (1e6, " (µs)") if metric.endswith("_s") else (1, "")
    for name, g in d.groupby(scheme_col):
        g = g.sort_values(load_col)
        ax.plot(g[load_col], g[metric] * scale, "-o", label=name)
    ax.set_xlabel("load (fraction of sender host-link capacity)")
    ax.set_ylabel(metric.replace("_s", "").replace("_", " ") + unit)
    ax.set_title(f"flows {size_bin}")
    ax.legend()
    save(fig, out)
    return fig


def queue_over_time(res, ports: Optional[Sequence[str]] = None, out=None, unit: str = "packets"):
    """Queue length over time of sampled ports (all sampled ports by default).

    Example::

        >>> fabricsim.plots.queue_over_time(res, ["s0->h0"], out="figures/queue")   # doctest: +SKIP
    """
    ts = res.timeseries
    m = "queue_packets" if unit == "packets" else "queue_bytes"
    ports = list(ports) if ports else sorted(ts.loc[ts["metric"] == m, "target"].unique())
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for p in ports:
        s = analysis.queue_series(ts, p, unit)
        ax.plot(s["time_s"] * 1e3, s["value"], label=p, lw=1)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel(f"queue length ({unit})")
    if ports:
        ax.legend(fontsize=8)
    save(fig, out)
    return fig


def throughput_over_time(res, ports: Optional[Sequence[str]] = None, out=None):
    """Throughput of sampled ports over time (Gb/s, averaged over each sampling interval).

    Example::

        >>> fabricsim.plots.throughput_over_time(res, out="figures/throughput")   # doctest: +SKIP
    """
    ts = res.timeseries
    ports = list(ports) if ports else sorted(ts.loc[ts["metric"] == "tx_bytes", "target"].unique())
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for p in ports:
        s = analysis.throughput_series(ts, p)
        ax.plot(s["time_s"] * 1e3, s["gbps"], label=p, lw=1)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("throughput (Gb/s)")
    if ports:
        ax.legend(fontsize=8)
    save(fig, out)
    return fig


def flows_over_time(res, flows: Optional[Sequence[int]] = None, out=None):
    """Per-flow goodput over time (the slope of each flow's delivered bytes), with Jain's
    fairness index over the flows active at each sample, and the smoothed RTT when sampled —
    the convergence / fairness figure. Needs `[output] flows` and `sample_interval`.

    Example::

        >>> res = fabricsim.run("scenarios/dumbbell-cc.toml", overrides=["output.flows='all'"])   # doctest: +SKIP
        >>> fabricsim.plots.flows_over_time(res, out="figures/flows")   # doctest: +SKIP
    """
    fs = analysis.flow_series(res.timeseries)
    if flows is not None:
        fs = fs[fs["flow"].isin(list(flows))]
    panels = 2 + ("srtt_s" in fs)
    fig, axes = plt.subplots(panels, 1, figsize=(7, 2.4 * panels + 0.6), sharex=True)
    for f, g in fs.groupby("flow"):
        axes[0].plot(g["time_s"] * 1e3, g["goodput_gbps"], lw=1, label=f"flow {f}")
        if panels == 3:
            axes[2].plot(g["time_s"] * 1e3, g["srtt_s"] * 1e6, lw=1)
    active = fs[fs["goodput_gbps"] > 0].groupby("time_s")["goodput_gbps"]
    j = active.apply(lambda v: analysis.jain(v.to_numpy()))
    axes[1].plot(j.index * 1e3, j.to_numpy(), color="k", lw=1)
    axes[0].set_ylabel("goodput (Gb/s)")
    axes[1].set_ylabel("Jain's index")
    axes[1].set_ylim(0, 1.05)
    if panels == 3:
        axes[2].set_ylabel("smoothed RTT (µs)")
    axes[-1].set_xlabel("time (ms)")
    if fs["flow"].nunique() <= 12:
        axes[0].legend(fontsize=8, ncol=4)
    save(fig, out)
    return fig


def class_queues_over_time(res, port: Optional[str] = None, out=None, unit: str = "packets"):
    """Occupancy of each queue (class) of one sampled multi-queue port over time (default: the
    first such port).

    Example::

        >>> fabricsim.plots.class_queues_over_time(res, "s0->h0", out="figures/classes")   # doctest: +SKIP
    """
    cq = analysis.class_queue_series(res.timeseries)
    port = port or sorted(cq["port"].unique())[0]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for q, g in cq[cq["port"] == port].groupby("queue"):
        ax.plot(g["time_s"] * 1e3, g[unit], lw=1, label=f"queue {q}")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel(f"{port} occupancy ({unit})")
    ax.legend(fontsize=8)
    save(fig, out)
    return fig


def compare_bars(table: pd.DataFrame, out=None, stats: Sequence[str] = ("fct_mean_s", "fct_p99_s")):
    """Grouped bars of `analysis.compare_table` output: one panel per statistic, bins on x.

    Example::

        >>> fabricsim.plots.compare_bars(fabricsim.analysis.compare_table(runs), out="figures/bars")   # doctest: +SKIP
    """
    fig, axes = plt.subplots(1, len(stats), figsize=(5 * len(stats), 3.8), squeeze=False)
    for ax, stat in zip(axes[0], stats):
        sub = table[stat] * (1e6 if stat.endswith("_s") else 1)
        bins = list(sub.index)
        schemes = list(sub.columns)
        width = 0.8 / max(len(schemes), 1)
        x = np.arange(len(bins))
        for i, s in enumerate(schemes):
            ax.bar(x + i * width - 0.4 + width / 2, sub[s].to_numpy(dtype=float), width, label=s)
        ax.set_xticks(x, bins, rotation=15)
        ax.set_yscale("log")
        ax.set_ylabel(stat.replace("_s", " (µs)").replace("_", " "))
        ax.set_xlabel("flow size")
    axes[0][0].legend(fontsize=8)
    save(fig, out)
    return fig


def schemes_over_time(runs: Mapping[str, "object"], port: Optional[str] = None, out=None):
    """Throughput and queue length of one sampled port, one line per run ({scheme: Results}) —
    the comparison for long-lived flows, where there are no FCTs.

    Example::

        >>> fabricsim.plots.schemes_over_time({"dctcp": r1, "cubic": r2}, port="s0->s1", out="figures/long")   # doctest: +SKIP
    """
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 5.5), sharex=True)
    for name, r in runs.items():
        ts = r.timeseries
        p = port or sorted(ts.loc[ts["metric"] == "tx_bytes", "target"].unique())[0]
        th = analysis.throughput_series(ts, p)
        q = analysis.queue_series(ts, p)
        ax1.plot(th["time_s"] * 1e3, th["gbps"], label=name, lw=1)
        ax2.plot(q["time_s"] * 1e3, q["value"], label=name, lw=1)
    ax1.set_ylabel(f"throughput of {p} (Gb/s)")
    ax2.set_ylabel(f"queue at {p} (packets)")
    ax2.set_xlabel("time (ms)")
    ax1.legend(fontsize=8, ncol=3)
    save(fig, out)
    return fig


def circuit_view(res, pair: Optional[tuple[int, int]] = None, out=None):
    """Hybrid networks: expected bytes delivered around a rack pair's circuit day, averaged over
    weeks, with the optimal and packet-only lines and the mean VOQ length (Mukerjee et al. Figs.
    2, 8b, 9b, 11b). `pair` = (src rack, dst rack); default: the pair carrying the most bytes.

    Example::

        >>> fabricsim.plots.circuit_view(res, pair=(0, 1), out="figures/circuit")   # doctest: +SKIP
    """
    seq = res.circuit["seq_view"]
    if pair is None:
        last = seq.groupby(["src", "dst"])["expected_bytes"].max()
        pair = last.idxmax()
    s = seq[(seq.src == pair[0]) & (seq.dst == pair[1])]
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.plot(s.offset_us, s.expected_bytes / 1e6, label="expected")
    ax.plot(s.offset_us, s.optimal_bytes / 1e6, "k-", alpha=0.4, label="optimal")
    ax.plot(s.offset_us, s.packet_only_bytes / 1e6, "k--", label="packet only")
    ax.set_xlabel(f"time relative to the tor{pair[0]}->tor{pair[1]} circuit day (us)")
    ax.set_ylabel("bytes delivered (MB)")
    ax2 = ax.twinx()
    ax2.plot(s.offset_us, s.voq_packets, ":", color="C3")
    ax2.set_ylabel("mean VOQ length (packets, dotted)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save(fig, out)
    return fig


def plot_results(res, outdir: Union[str, Path]) -> list[Path]:
    """Every figure that applies to one run, written into `outdir`.

    Example::

        >>> fabricsim.plots.plot_results(res, "results/example/figures")   # doctest: +SKIP
    """
    outdir = Path(outdir)
    written = []
    if analysis.finished(res.flows, False).shape[0]:
        written += save(fct_cdf(res), outdir / "fct_cdf")
        written += save(slowdown_vs_size(res), outdir / "slowdown_vs_size")
    ts = res.timeseries
    if (ts["metric"] == "queue_packets").any():
        written += save(queue_over_time(res), outdir / "queue")
    if (ts["metric"] == "tx_bytes").any():
        written += save(throughput_over_time(res), outdir / "throughput")
    if (ts["metric"] == "delivered_bytes").any():
        written += save(flows_over_time(res), outdir / "flows")
    if (ts["metric"] == "class_queue_packets").any():
        written += save(class_queues_over_time(res), outdir / "class_queues")
    circuit = getattr(res, "circuit", None)
    if circuit and len(circuit["seq_view"]) and circuit["seq_view"]["weeks"].max() > 0:
        written += save(circuit_view(res), outdir / "circuit_view")
    plt.close("all")
    return written
