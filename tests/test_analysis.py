"""Analysis functions against hand-computed values."""

import numpy as np
import pandas as pd
import pytest

from fabricsim import analysis


def flows_frame():
    # Two short flows, one medium, one long; one unfinished medium flow; one short in warm-up.
    return pd.DataFrame({
        "size": pd.array([50_000, 80_000, 1_000_000, 20_000_000, 2_000_000, 10_000], dtype="Int64"),
        "fct_s": pd.array([0.001, 0.003, 0.010, 0.100, None, 0.5], dtype="Float64"),
        "slowdown": pd.array([2.0, 4.0, 1.5, 1.1, None, 9.0], dtype="Float64"),
        "measured": [True, True, True, True, True, False],
        "start_s": [0.0] * 6,
        "bytes_acked": [50_000, 80_000, 1_000_000, 20_000_000, 500_000, 10_000],
        "workload": ["a", "a", "b", "b", "b", "a"],
    })


def test_fct_stats_by_bin():
    s = analysis.fct_stats(flows_frame()).set_index("size_bin")
    assert list(s.index) == ["(0, 100KB]", "(100KB, 10MB]", ">10MB", "all"]
    assert list(s["count"]) == [2, 1, 1, 4]
    assert s.loc["(0, 100KB]", "fct_mean_s"] == pytest.approx(0.002)
    assert s.loc["(0, 100KB]", "fct_p50_s"] == pytest.approx(0.002)
    assert s.loc["(0, 100KB]", "slowdown_mean"] == pytest.approx(3.0)
    # p99 of two values with linear interpolation: 0.001 + 0.99·0.002.
    assert s.loc["(0, 100KB]", "fct_p99_s"] == pytest.approx(0.00298)
    assert s.loc["all", "fct_mean_s"] == pytest.approx((0.001 + 0.003 + 0.010 + 0.100) / 4)
    assert analysis.unfinished_count(flows_frame()) == 1


def test_fct_stats_user_bins_and_groups():
    s = analysis.fct_stats(flows_frame(), bins=(0, 1_000_000, np.inf), by="workload")
    a = s[(s.workload == "a") & (s.size_bin == "all")].iloc[0]
    assert a["count"] == 2  # the warm-up flow is excluded
    b = s[(s.workload == "b") & (s.size_bin == "(0, 1MB]")].iloc[0]
    assert b["count"] == 1 and b["fct_mean_s"] == pytest.approx(0.010)
    with_warmup = analysis.fct_stats(flows_frame(), measured_only=False)
    assert with_warmup.set_index("size_bin").loc["all", "count"] == 5


def test_normalize_to_baseline():
    st = pd.DataFrame({"scheme": ["x", "y", "x", "y"], "size_bin": ["s", "s", "all", "all"],
                       "fct_mean_s": [2.0, 1.0, 4.0, 3.0]})
    n = analysis.normalize(st, "y").set_index(["scheme", "size_bin"])["fct_mean_s"]
    assert n[("y", "s")] == 1.0 and n[("x", "s")] == 2.0 and n[("x", "all")] == pytest.approx(4 / 3)
    with pytest.raises(KeyError):
        analysis.normalize(st, "z")


def test_jain_goodput_throughput():
    assert analysis.jain([5, 5, 5]) == pytest.approx(1.0)
    assert analysis.jain([1, 0]) == pytest.approx(0.5)
    g = analysis.goodput(flows_frame(), duration_s=1.0)
    assert g.iloc[0] == pytest.approx(50_000 * 8 / 0.001)
    assert g.iloc[4] == pytest.approx(500_000 * 8 / 1.0)  # unfinished: start to end of run
    ts = pd.DataFrame({"time_s": [0.0, 0.001, 0.002], "metric": ["tx_bytes"] * 3, "target": ["p"] * 3,
                       "value": [0.0, 1.25e6, 2.5e6]})
    th = analysis.throughput_series(ts, "p")
    assert list(th["gbps"]) == pytest.approx([10.0, 10.0])
    with pytest.raises(KeyError, match="sample_interval"):
        analysis.queue_series(ts, "p")
