"""A run's tables written to Parquet straight from the engine's columns, with pyarrow alone.

Importing pandas costs about 0.3 s, most of a small run's whole process (`fabricsim run` of the
example computes for 0.03 s). So `Results.write_files` writes a table that nobody has turned into a
DataFrame from the engine's lists: the same Arrow schema and the same "pandas" metadata that
``pa.Table.from_pandas`` would give for the DataFrame `results.py` builds, so pandas reads back the
same dtypes (nullable Int64, Float64, boolean) and the files are byte for byte the ones written
through pandas (tests/test_columns.py). A column whose values fit none of the kinds below (an empty
table, mixed types) makes `arrow_table` return None, and the caller goes through pandas.
"""
from __future__ import annotations

import json
import math
from typing import Any

from .results import PS, RUN_ID_KEY

# Per-flow metrics of the timeseries that flow_series gathers into columns.
FLOW_METRICS = ("delivered_bytes", "cwnd", "dctcp_alpha", "srtt_s", "rate_bps")

# kind -> (pandas_type, numpy_type) as pandas metadata names them.
_PANDAS_NAMES = {
    "int64": ("int64", "int64"), "Int64": ("int64", "Int64"),
    "float64": ("float64", "float64"), "Float64": ("float64", "Float64"),
    "bool": ("bool", "bool"), "boolean": ("bool", "boolean"),
    "str": ("object", "str"),
}

# flows' columns that may be missing (long-lived or unfinished flows; flows without deadlines),
# and their dtypes: the one list both results._flows_frame (pandas) and arrow_table use.
FLOWS_NULLABLE = {"size": "Int64", "end_ps": "Int64", "fct_ps": "Int64", "ideal_fct_ps": "Int64", "setup_ps": "Int64",
                  "deadline_ps": "Int64", "slowdown": "Float64", "deadline_met": "boolean"}
# Derived seconds, in column order: (new column, from, kind).
FLOWS_SECONDS = [("deadline_s", "deadline_ps", "Float64"), ("start_s", "start_ps", "float64"),
                 ("end_s", "end_ps", "Float64"), ("fct_s", "fct_ps", "Float64"),
                 ("ideal_fct_s", "ideal_fct_ps", "Float64"), ("setup_s", "setup_ps", "Float64")]

_INT64 = (-(2**63), 2**63 - 1)


def _kind(values: list) -> str | None:
    """What pandas infers for a column built from this list, when it is one of our kinds."""
    if not values:
        return None
    types = {type(v) for v in values}
    if types == {bool}:
        return "bool"
    if types == {int}:
        return "int64" if _INT64[0] <= min(values) and max(values) <= _INT64[1] else None
    if types == {float}:
        return "float64"
    if str in types and types <= {str, type(None)}:
        return "str"
    return None


def _fits(values: list, kind: str) -> bool:
    """Whether a nullable column's values are of its kind or missing."""
    allowed = {"Int64": (int,), "Float64": (float, int), "boolean": (bool,)}[kind]
    return all(v is None or (isinstance(v, allowed) and (kind != "Int64" or type(v) is int)) for v in values)


def _bits(flags) -> bytearray:
    """Arrow's bit-packed layout (least significant bit first) of a sequence of truths."""
    out = bytearray((len(flags) + 7) // 8)
    for i, f in enumerate(flags):
        if f:
            out[i >> 3] |= 1 << (i & 7)
    return out


def _array(values, kind: str):
    """An Arrow array of one column, assembled from its buffers: pyarrow's converters
    (pa.array) import pandas, which is what writing this way avoids. Missing values (None; NaN
    in float columns, as pandas' conversion writes them) become nulls."""
    import pyarrow as pa
    from array import array

    n = len(values)
    if not isinstance(values, list):  # a numpy column (float64 or int64) from flow_series_columns
        import numpy as np

        if kind == "float64":
            valid = ~np.isnan(values)
            mask = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
            return pa.Array.from_buffers(pa.float64(), n, [mask, pa.py_buffer(np.ascontiguousarray(values, dtype=np.float64))])
        return pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(np.ascontiguousarray(values, dtype=np.int64))])
    floats = kind in ("float64", "Float64")
    valid = [v is not None and not (floats and v != v) for v in values]
    mask = None if all(valid) else pa.py_buffer(_bits(valid))
    if kind in ("int64", "Int64"):
        return pa.Array.from_buffers(pa.int64(), n, [mask, pa.py_buffer(array("q", [v if ok else 0 for v, ok in zip(values, valid)]))])
    if floats:
        return pa.Array.from_buffers(pa.float64(), n, [mask, pa.py_buffer(array("d", [v if ok else 0.0 for v, ok in zip(values, valid)]))])
    if kind in ("bool", "boolean"):
        return pa.Array.from_buffers(pa.bool_(), n, [mask, pa.py_buffer(_bits([v is True for v in values]))])
    data = [v.encode() if ok else b"" for v, ok in zip(values, valid)]
    offsets = array("q", [0])
    for d in data:
        offsets.append(offsets[-1] + len(d))
    return pa.Array.from_buffers(pa.large_string(), n, [mask, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))])


def _seconds(values: list, kind: str) -> list:
    return [None if v is None else v / PS for v in values] if kind == "Float64" else [v / PS for v in values]


def table_from(columns: list[tuple[str, Any, str]], run_id: str):
    """An Arrow table of (name, values, kind) columns with the pandas metadata and the run id."""
    import pyarrow as pa
    from importlib.metadata import version

    meta = {
        "index_columns": [], "column_indexes": [],
        "columns": [{"name": n, "field_name": n, "pandas_type": _PANDAS_NAMES[k][0], "numpy_type": _PANDAS_NAMES[k][1],
                     "metadata": None} for n, _, k in columns],
        "attributes": {}, "creator": {"library": "pyarrow", "version": pa.__version__},
        "pandas_version": version("pandas"),
    }
    table = pa.Table.from_arrays([_array(v, k) for _, v, k in columns], names=[n for n, _, _ in columns])
    return table.replace_schema_metadata({b"pandas": json.dumps(meta).encode(), RUN_ID_KEY: run_id.encode()})


def arrow_table(name: str, cols: dict[str, list], run_id: str) -> Any:
    """The Arrow table pandas would write for the engine's table `name` ("flows", "ports",
    "timeseries", "queues"), or None when a column is of no kind this writer knows or pandas is
    older than 3 (whose text columns are written as object/string, not str/large_string)."""
    from importlib.metadata import version

    if int(version("pandas").split(".")[0]) < 3:
        return None
    columns: list[tuple[str, list, str]] = []
    for c, values in cols.items():
        if name == "flows" and c in FLOWS_NULLABLE:
            kind = FLOWS_NULLABLE[c]
            if not values or not _fits(values, kind):
                return None
            if kind == "Float64":
                values = [None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v) for v in values]
        else:
            kind = _kind(values)
            if kind is None:
                return None
        columns.append((c, values, kind))
    if name == "flows":
        known = dict((c, (v, k)) for c, v, k in columns)
        if any(src not in known for _, src, _ in FLOWS_SECONDS):
            return None
        columns += [(new, _seconds(known[src][0], kind), kind) for new, src, kind in FLOWS_SECONDS]
    elif name == "timeseries":
        times = dict((c, v) for c, v, _ in columns).get("time_ps")
        if times is None:
            return None
        columns.append(("time_s", _seconds(times, "float64"), "float64"))
    return table_from(columns, run_id)


def flow_series_columns(time_s, metric, target, value, metrics: tuple[str, ...]) -> list[tuple[str, Any, str]] | None:
    """Per-flow samples as one row per (flow, time), sorted by flow then time: a column per
    sampled metric (alphabetical; the last non-missing sample of that flow, time and metric;
    missing where none), then goodput_gbps, the slope of delivered_bytes since the flow's previous
    row. The inputs are the timeseries' columns as sequences (numpy arrays or lists; target holds
    flow ids as text). None when no metric of `metrics` was sampled. What analysis.flow_series
    returns and flow_series.parquet holds."""
    import numpy as np

    time_s = np.asarray(time_s, dtype=np.float64)
    value = np.asarray(value, dtype=np.float64)
    metric = np.asarray(metric, dtype=object)
    keep = np.isin(metric, list(metrics)) & ~np.isnan(value)
    if not keep.any():
        return None
    t, v = time_s[keep], value[keep]
    f = np.asarray(target, dtype=object)[keep].astype(np.int64)
    names, m = np.unique(metric[keep].astype(str), return_inverse=True)
    order = np.lexsort((np.arange(len(t)), m, t, f))
    f, t, m, v = f[order], t[order], m[order], v[order]
    # The last sample of each (flow, time, metric), then a row per (flow, time).
    last = np.ones(len(f), dtype=bool)
    last[:-1] = (f[1:] != f[:-1]) | (t[1:] != t[:-1]) | (m[1:] != m[:-1])
    f, t, m, v = f[last], t[last], m[last], v[last]
    first = np.ones(len(f), dtype=bool)
    first[1:] = (f[1:] != f[:-1]) | (t[1:] != t[:-1])
    row = np.cumsum(first) - 1
    grid = np.full((int(row[-1]) + 1, len(names)), np.nan)
    grid[row, m] = v
    flows, times = f[first], t[first]
    cols: list[tuple[str, Any, str]] = [("time_s", times, "float64"), ("flow", flows, "int64")]
    cols += [(str(n), grid[:, i], "float64") for i, n in enumerate(names)]
    if "delivered_bytes" in names:
        d = grid[:, list(names).index("delivered_bytes")]
        goodput = np.full(len(flows), np.nan)
        same = flows[1:] == flows[:-1]
        goodput[1:] = np.where(same, (d[1:] - d[:-1]) * 8 / (times[1:] - times[:-1]) / 1e9, np.nan)
        cols.append(("goodput_gbps", goodput, "float64"))
    return cols
