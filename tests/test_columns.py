"""Parquet written straight from the engine's columns (fabricsim.columns) is byte for byte what
pandas writes for the same run's DataFrames; flow_series and the FCT rows (fabricsim.stats) on
hand-computed cases."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import fabricsim
from fabricsim import analysis
from fabricsim.columns import _array, flow_series_columns

SCENARIOS = Path(__file__).parent.parent / "scenarios"


@pytest.mark.parametrize("name, overrides", [
    ("example.toml", []),                                   # flow samples: flow_series.parquet
    ("incast.toml", ["simulation.end='2ms'"]),              # unfinished flows: nullable columns
    ("flash-mixed.toml", ["simulation.end='1ms'"]),         # several transports and workloads
])
@pytest.mark.skipif(int(pd.__version__.split(".")[0]) < 3, reason="pandas < 3 writes text columns with another Arrow type, so the writer goes through pandas")
def test_files_from_the_engine_columns_equal_the_pandas_written_ones(tmp_path, name, overrides):
    fast = fabricsim.run(SCENARIOS / name, overrides=overrides)
    slow = fabricsim.run(SCENARIOS / name, overrides=overrides)
    # The fast run's tables really come from the engine's columns (not through pandas).
    assert isinstance(fast._written("flows", "same"), pa.Table)
    for r in (fast, slow):
        r.summary["run_id"] = "same"
    _ = (slow.flows, slow.ports, slow.timeseries, slow.queues)  # built: written through pandas
    for r, d in ((fast, "a"), (slow, "b")):
        (tmp_path / d).mkdir()
        r.write_files(tmp_path / d)
    a = sorted(p.name for p in (tmp_path / "a").glob("*.parquet"))
    assert a == sorted(p.name for p in (tmp_path / "b").glob("*.parquet"))
    for f in a:
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    # And pandas reads back the dtypes it wrote: nullable FCT, boolean deadline_met.
    back = fabricsim.Results.load_table(tmp_path / "a", "flows")
    assert str(back["fct_ps"].dtype) == "Int64" and str(back["deadline_met"].dtype) == "boolean"


def test_arrays_assembled_from_buffers():
    assert _array([1, None, -3], "Int64").to_pylist() == [1, None, -3]
    assert _array([1.5, float("nan"), None], "float64").to_pylist() == [1.5, None, None]  # NaN written as missing
    assert _array([True, False, None] * 3, "boolean").to_pylist() == [True, False, None] * 3
    s = _array(["ab", None, "", "héllo"], "str")
    assert s.type == pa.large_string() and s.to_pylist() == ["ab", None, "", "héllo"]
    assert _array(np.array([0.25, np.nan]), "float64").to_pylist() == [0.25, None]


def test_flow_series_by_hand():
    # Flow 2 sampled at 1 and 2 us (delivered 0 then 1 250 B: 10 Gb/s), its cwnd at 1 us twice
    # (the last, 12, counts); flow 1's cwnd NaN at 2 us (left out) and no delivered samples.
    ts = pd.DataFrame({
        "time_ps": [1_000_000, 1_000_000, 1_000_000, 2_000_000, 2_000_000, 1_000_000, 2_000_000],
        "metric": ["delivered_bytes", "cwnd", "cwnd", "delivered_bytes", "queue_packets", "cwnd", "cwnd"],
        "target": ["2", "2", "2", "2", "s0->h0", "1", "1"],
        "value": [0.0, 10.0, 12.0, 1250.0, 5.0, 7.0, float("nan")],
    })
    ts["time_s"] = ts["time_ps"] / 1e12
    fs = analysis.flow_series(ts)
    assert list(fs.columns) == ["time_s", "flow", "cwnd", "delivered_bytes", "goodput_gbps"]
    assert fs["flow"].tolist() == [1, 2, 2] and fs["time_s"].tolist() == [1e-6, 1e-6, 2e-6]
    assert fs["cwnd"].tolist()[:2] == [7.0, 12.0] and math.isnan(fs["cwnd"].iloc[2])
    assert math.isnan(fs["delivered_bytes"].iloc[0]) and fs["delivered_bytes"].tolist()[1:] == [0.0, 1250.0]
    assert math.isnan(fs["goodput_gbps"].iloc[1]) and fs["goodput_gbps"].iloc[2] == pytest.approx(10.0)
    assert flow_series_columns([1.0], ["queue_packets"], ["s0->h0"], [3.0], ("cwnd",)) is None


def test_fct_rows_bins_are_right_closed():
    from fabricsim.stats import fct_rows

    # 100 KB sits in (0, 100KB]; 100 001 B in the next bin; the NaN size (long-lived) only in "all".
    rows = fct_rows([100_000, 100_001, float("nan")], [1.0, 3.0, 5.0], [1.0, 2.0, float("nan")], bins=(0, 100_000, math.inf))
    by = {r["size_bin"]: r for r in rows}
    assert by["(0, 100KB]"]["count"] == 1 and by[">100KB"]["count"] == 1 and by["all"]["count"] == 3
    assert by["all"]["fct_mean_s"] == 3.0 and by["all"]["fct_p50_s"] == 3.0
    # Linear interpolation: p99 of 1, 3, 5 = 3 + 0.98 * 2; slowdown's NaN left out: mean 1.5.
    assert by["all"]["fct_p99_s"] == pytest.approx(4.96) and by["all"]["slowdown_mean"] == 1.5
