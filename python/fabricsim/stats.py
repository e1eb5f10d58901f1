"""FCT statistics on plain columns (numpy, no pandas): the one implementation behind
analysis.fct_stats (DataFrames in and out) and the report `fabricsim run` prints straight from the
engine's columns, so a run's process never imports pandas (about 0.3 s) just to print its table."""
from __future__ import annotations

import math
from typing import Sequence

KB = 1_000
MB = 1_000_000

#: Default flow-size bins (bytes): (0, 100 KB], (100 KB, 10 MB], > 10 MB.
DEFAULT_BINS: tuple = (0, 100 * KB, 10 * MB, math.inf)


def _fmt_size(b: float) -> str:
    if b == math.inf:
        return "inf"
    if b == 0:
        return "0"
    for unit, k in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if b >= k and b % k == 0:
            return f"{b / k:g}{unit}"
    return f"{b:g}B"


def bin_labels(bins: Sequence[float]) -> list[str]:
    """Labels such as '(0, 100KB]', '(100KB, 10MB]', '>10MB'.

    Example::

        >>> bin_labels([0, 100e3, 10e6, float("inf")])
        ['(0, 100KB]', '(100KB, 10MB]', '>10MB']
    """
    out = []
    for lo, hi in zip(bins[:-1], bins[1:]):
        out.append(f">{_fmt_size(lo)}" if hi == math.inf else f"({_fmt_size(lo)}, {_fmt_size(hi)}]")
    return out


def qname(q: float) -> str:
    """A quantile's column suffix: 0.5 -> '50', 0.99 -> '99', 0.999 -> '999'."""
    s = f"{q * 100:g}".replace(".", "")
    return "50" if q == 0.5 else s


def _summary(fct, slowdown, quantiles: Sequence[float]) -> dict:
    """count, mean and quantiles of FCT and slowdown, missing values left out. Quantiles are
    linear interpolation between order statistics (np.quantile of the non-missing values, which
    is also what pandas' Series.quantile computes)."""
    import numpy as np

    row: dict = {"count": len(fct)}
    for name, v, suffix in (("fct", fct, "_s"), ("slowdown", slowdown, "")):
        v = v[~np.isnan(v)]
        row[f"{name}_mean{suffix}"] = float(v.sum() / len(v)) if len(v) else math.nan
        for q in quantiles:
            row[f"{name}_p{qname(q)}{suffix}"] = float(np.quantile(v, q)) if len(v) else math.nan
    return row


def fct_rows(size, fct_s, slowdown, bins: Sequence[float] = DEFAULT_BINS,
             quantiles: Sequence[float] = (0.5, 0.99, 0.999)) -> list[dict]:
    """One row per flow-size bin (lo, hi] — as pandas.cut with right=True — then a row "all": size_bin,
    count, fct_mean_s, fct_pXX_s, slowdown_mean, slowdown_pXX. The inputs are the finished flows'
    columns (float arrays; NaN where missing), in the flows' order."""
    import numpy as np

    size = np.asarray(size, dtype=np.float64)
    fct_s = np.asarray(fct_s, dtype=np.float64)
    slowdown = np.asarray(slowdown, dtype=np.float64)
    rows = []
    for label, lo, hi in zip(bin_labels(bins), bins[:-1], bins[1:]):
        inside = (size > lo) & (size <= hi)
        rows.append({"size_bin": label, **_summary(fct_s[inside], slowdown[inside], quantiles)})
    rows.append({"size_bin": "all", **_summary(fct_s, slowdown, quantiles)})
    return rows
