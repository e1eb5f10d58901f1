"""FCT statistics, normalization, utilization, goodput and fairness — plain functions over the
frames in `Results` (pandas in, pandas out)."""

from __future__ import annotations

from typing import Iterable, Mapping, Optional, Sequence

import numpy as np
import pandas as pd

from .stats import DEFAULT_BINS, KB, MB, bin_labels, fct_rows, qname  # noqa: F401 - part of this module's API


def finished(flows: pd.DataFrame, measured_only: bool = True) -> pd.DataFrame:
    """Finished flows (FCT known), inside the measurement window unless told otherwise.

    Example::

        >>> len(fabricsim.analysis.finished(res.flows))   # doctest: +SKIP
    """
    f = flows[flows["fct_s"].notna()]
    if measured_only and "measured" in f:
        f = f[f["measured"]]
    return f


def fct_stats(
    flows: pd.DataFrame,
    bins: Sequence[float] = DEFAULT_BINS,
    by: Optional[str | Sequence[str]] = None,
    measured_only: bool = True,
    quantiles: Sequence[float] = (0.5, 0.99, 0.999),
) -> pd.DataFrame:
    """FCT and slowdown statistics per flow-size bin (and per `by` column, e.g. "workload").

    Columns: count, fct_mean_s, fct_p50_s, fct_p99_s, fct_p999_s, slowdown_mean, slowdown_p50,
    slowdown_p99, slowdown_p999. A row "all" covers every size. Unfinished flows are not counted
    (see `unfinished_count`).

    Example::

        >>> fabricsim.analysis.fct_stats(res.flows, bins=[100e3, 10e6])[["size_bin", "count", "fct_p99_s"]]   # doctest: +SKIP
    """
    f = finished(flows, measured_only)
    keys = [by] if isinstance(by, str) else list(by or [])
    rows = []
    groups = f.groupby(keys, observed=True) if keys else [((), f)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        base = dict(zip(keys, key))
        cols = [g[c].to_numpy(dtype=float, na_value=np.nan) for c in ("size", "fct_s", "slowdown")]
        rows += [{**base, **r} for r in fct_rows(*cols, bins=list(bins), quantiles=quantiles)]
    return pd.DataFrame(rows)


def unfinished_count(flows: pd.DataFrame) -> int:
    """Finite flows that did not finish within the run.

    Example::

        >>> fabricsim.analysis.unfinished_count(res.flows)   # doctest: +SKIP
    """
    return int((flows["size"].notna() & flows["fct_s"].isna()).sum())


def normalize(stats: pd.DataFrame, baseline: str, scheme_col: str = "scheme",
              keys: Sequence[str] = ("size_bin",), columns: Optional[Iterable[str]] = None) -> pd.DataFrame:
    """Divide every statistic by the baseline scheme's value for the same keys (e.g. size bin), so
    the baseline reads 1.0 and 0.8 means 20 % better.

    Example::

        >>> st = pd.concat([fct_stats(a.flows).assign(scheme="a"), fct_stats(b.flows).assign(scheme="b")])   # doctest: +SKIP
        >>> fabricsim.analysis.normalize(st, baseline="a")   # doctest: +SKIP
    """
    cols = list(columns) if columns is not None else [c for c in stats.columns if c.startswith(("fct_", "slowdown_"))]
    keys = list(keys)
    base = stats[stats[scheme_col] == baseline].set_index(keys)[cols]
    if base.empty:
        raise KeyError(f"baseline '{baseline}' not in column '{scheme_col}' ({sorted(stats[scheme_col].unique())})")
    out = stats.copy()
    idx = out.set_index(keys).index
    out[cols] = out[cols].to_numpy() / base.reindex(idx)[cols].to_numpy()
    return out


def jain(x: Iterable[float]) -> float:
    """Jain's fairness index: (Σx)² / (n·Σx²); 1 = equal shares.

    Example::

        >>> jain([5.0, 5.0]), jain([10.0, 0.0])
        (1.0, 0.5)
    """
    a = np.asarray(list(x), dtype=float)
    s2 = float((a * a).sum())
    return float(a.sum() ** 2 / (len(a) * s2)) if s2 > 0 else 1.0


def goodput(flows: pd.DataFrame, duration_s: Optional[float] = None) -> pd.Series:
    """Goodput per flow in bits/s: bytes acknowledged over the flow's lifetime (FCT if finished,
    else from its start to `duration_s`).

    Example::

        >>> fabricsim.analysis.goodput(res.flows, duration_s=res.summary["sim_time_s"])   # doctest: +SKIP
    """
    life = flows["fct_s"].astype(float)
    if duration_s is not None:
        life = life.fillna(duration_s - flows["start_s"])
    return flows["bytes_acked"] * 8 / life


def utilization(ports: pd.DataFrame, min_util: float = 0.0) -> pd.DataFrame:
    """Ports by utilization, busiest first, with throughput in Gb/s.

    Example::

        >>> fabricsim.analysis.utilization(res.ports, min_util=0.5).head()   # doctest: +SKIP
    """
    p = ports[ports["utilization"] >= min_util].copy()
    p["throughput_gbps"] = p["utilization"] * p["rate_bps"] / 1e9
    return p.sort_values("utilization", ascending=False)[
        ["port", "utilization", "throughput_gbps", "tx_packets", "drops", "ecn_marks", "mean_queue_packets", "max_queue_packets"]
    ]


def queue_series(timeseries: pd.DataFrame, port: str, unit: str = "packets") -> pd.DataFrame:
    """(time_s, value) of one port's queue length in packets or bytes.

    Example::

        >>> fabricsim.analysis.queue_series(res.timeseries, "s0->h0").plot(x="time_s", y="value")   # doctest: +SKIP
    """
    m = "queue_packets" if unit == "packets" else "queue_bytes"
    s = timeseries[(timeseries["metric"] == m) & (timeseries["target"] == port)]
    if s.empty:
        raise KeyError(f"no {m} series for '{port}'; add it to [output] queues and set sample_interval")
    return s[["time_s", "value"]].reset_index(drop=True)


def throughput_series(timeseries: pd.DataFrame, port: str) -> pd.DataFrame:
    """(time_s, gbps) of one sampled port: the slope of its cumulative bytes between samples.

    Example::

        >>> fabricsim.analysis.throughput_series(res.timeseries, "s0->h0").gbps.mean()   # doctest: +SKIP
    """
    s = timeseries[(timeseries["metric"] == "tx_bytes") & (timeseries["target"] == port)]
    if s.empty:
        raise KeyError(f"no tx_bytes series for '{port}'; add it to [output] queues and set sample_interval")
    t = s["time_s"].to_numpy()
    b = s["value"].to_numpy()
    gbps = np.diff(b) * 8 / np.diff(t) / 1e9
    return pd.DataFrame({"time_s": t[1:], "gbps": gbps})


from .columns import FLOW_METRICS  # noqa: E402 - the metrics flow_series gathers


def flow_series(timeseries: pd.DataFrame) -> pd.DataFrame:
    """Per-flow samples as one row per (time, flow): delivered_bytes (acknowledged so far),
    goodput_gbps (its slope since the flow's previous sample), cwnd (packets), dctcp_alpha,
    srtt_s and rate_bps (pacing rate, else window / RTT) — whichever `[output] flows` / `cwnd`
    sampled. Empty when nothing per flow was sampled.

    Example::

        >>> fs = fabricsim.analysis.flow_series(res.timeseries)     # doctest: +SKIP
        >>> fs.pivot(index="time_s", columns="flow", values="goodput_gbps").plot()   # doctest: +SKIP
    """
    from .columns import flow_series_columns

    cols = None
    if len(timeseries) and "metric" in timeseries:
        cols = flow_series_columns(timeseries["time_s"].to_numpy(), timeseries["metric"].to_numpy(dtype=object),
                                   timeseries["target"].to_numpy(dtype=object), timeseries["value"].to_numpy(), FLOW_METRICS)
    if cols is None:
        return pd.DataFrame(columns=["time_s", "flow", "delivered_bytes", "goodput_gbps"])
    return pd.DataFrame({name: values for name, values, _ in cols})


def class_queue_series(timeseries: pd.DataFrame) -> pd.DataFrame:
    """Occupancy of each queue of the sampled multi-queue ports as one row per (time, port,
    queue): packets and bytes (metrics class_queue_packets/_bytes, target "port#queue").

    Example::

        >>> cq = fabricsim.analysis.class_queue_series(res.timeseries)   # doctest: +SKIP
        >>> cq.pivot_table(index="time_s", columns="queue", values="packets")   # doctest: +SKIP
    """
    s = timeseries[timeseries["metric"].isin(("class_queue_packets", "class_queue_bytes"))] if "metric" in timeseries else timeseries.iloc[:0]
    if s.empty:
        return pd.DataFrame(columns=["time_s", "port", "queue", "packets", "bytes"])
    w = s.pivot_table(index=["time_s", "target"], columns="metric", values="value", aggfunc="last").reset_index()
    parts = w["target"].str.rsplit("#", n=1, expand=True)
    w.insert(1, "port", parts[0])
    w.insert(2, "queue", parts[1].astype(int))
    w = w.drop(columns="target").rename(columns={"class_queue_packets": "packets", "class_queue_bytes": "bytes"})
    w.columns.name = None
    return w.sort_values(["port", "queue", "time_s"], kind="stable").reset_index(drop=True)


def compare_table(results: Mapping[str, "object"], bins: Sequence[float] = DEFAULT_BINS,
                  stats: Sequence[str] = ("count", "fct_mean_s", "fct_p99_s", "slowdown_mean", "slowdown_p99")) -> pd.DataFrame:
    """Side-by-side FCT statistics of several runs {scheme: Results}: one row per size bin, one
    column group per statistic.

    Example::

        >>> fabricsim.analysis.compare_table({"dctcp": r1, "newreno": r2})["fct_p99_s"]   # doctest: +SKIP
    """
    frames = []
    for name, r in results.items():
        s = fct_stats(r.flows, bins)
        s.insert(0, "scheme", name)
        frames.append(s)
    long = pd.concat(frames, ignore_index=True)
    wide = long.pivot(index="size_bin", columns="scheme", values=list(stats))
    order = bin_labels(bins) + ["all"]
    schemes = list(results)
    wide = wide.reindex(columns=pd.MultiIndex.from_product([list(stats), schemes]))
    return wide.reindex([o for o in order if o in wide.index])
