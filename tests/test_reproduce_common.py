"""The helpers the five reproductions share (reproduce/common.py), each against a hand-computed case."""

import math

import pandas as pd
import pytest

from fabricsim.reproduce.common import (cdf_points, counter_rate, duration_us, nan_mean, pct_lower, percentile, rate_bps,
                                        relative_band, runs_table, size_bytes, value, wide_band)


def test_units_read_as_the_engine_reads_them():
    assert size_bytes("120KB") == 120_000 and size_bytes("2GB") == 2 * 10 ** 9 and size_bytes("1500B") == 1500
    assert size_bytes("1.5MB") == 1_500_000
    assert duration_us("5us") == 5 and duration_us("1.5ms") == 1500 and duration_us("2s") == 2e6 and duration_us("500ns") == 0.5
    assert rate_bps("10Gbps") == 1e10 and rate_bps("150Mbps") == 1.5e8
    with pytest.raises(ValueError, match="'5 furlongs' is not a size"):
        size_bytes("5 furlongs")


def test_counter_rate_is_the_slope_over_the_window_after_warmup():
    # A counter at 0, 1000, 3000, 6000 bytes at 0, 1, 2, 3 ms: from 1 ms on, 5000 B in 2 ms = 20 Mb/s;
    # another port's samples and another metric must not count.
    ts = pd.DataFrame({"time_s": [0.0, 0.001, 0.002, 0.003] * 2 + [0.001],
                       "metric": ["tx_bytes"] * 8 + ["queue_bytes"],
                       "target": ["p"] * 4 + ["q"] * 4 + ["p"],
                       "value": [0, 1000, 3000, 6000, 0, 0, 0, 9e9, 7e9]})
    assert counter_rate(ts, "p", since_s=0.001) == pytest.approx(5000 * 8 / 0.002)
    assert counter_rate(ts, "p") == pytest.approx(6000 * 8 / 0.003)


def test_bands_and_reductions():
    # Flash's and PPT's rule: 5 points or half the value beyond each end.
    assert wide_band(21.2) == (21.2 - 10.6, 21.2 + 10.6)
    assert wide_band(2.2, 8.2) == (2.2 - 5.0, 8.2 + 5.0)
    assert relative_band(200, 0.15) == pytest.approx((170, 230))
    assert pct_lower(80, 100) == pytest.approx(20) and pct_lower(120, 100) == pytest.approx(-20)
    assert math.isnan(pct_lower(1, 0)) and math.isnan(pct_lower(float("nan"), 1))


def test_missing_points_read_as_nan():
    r = {"a": {"x": 3, "y": None}}
    assert value(r, "a", "x") == 3.0 and math.isnan(value(r, "a", "y")) and math.isnan(value(r, "b", "x"))
    assert nan_mean([1, float("nan"), 3]) == 2 and math.isnan(nan_mean([float("nan")]))
    assert percentile([1, 2, 3, 4, 5], 50) == 3 and math.isnan(percentile([], 50)) and math.isnan(percentile(None, 50))
    t = runs_table({"b": {"x": 1, "s": [1, 2]}, "a": {"x": 2, "s": [3]}}, skip=("s",))
    assert list(t.columns) == ["point", "x"] and list(t.point) == ["a", "b"]


def test_cdf_points_are_the_shipped_table():
    pts = cdf_points("websearch")
    assert pts[-1][1] == pytest.approx(1.0) and all(b[0] >= a[0] and b[1] >= a[1] for a, b in zip(pts, pts[1:]))
