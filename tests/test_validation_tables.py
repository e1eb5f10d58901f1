"""benches/validation/agreement.py: the agreement tables' statistics and their 5 % flag."""

import math
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "benches" / "validation"))

from agreement import Table, jain, percentile, rel_diff  # noqa: E402


def test_jain_is_one_for_equal_shares_and_one_over_n_for_one_taker():
    assert jain([3.0, 3.0, 3.0]) == pytest.approx(1.0)
    assert jain([5.0, 0.0, 0.0, 0.0]) == pytest.approx(1 / 4)
    assert math.isnan(jain([]))


def test_percentile_interpolates_between_order_statistics():
    xs = [10.0, 20.0, 30.0, 40.0, 50.0]
    assert percentile(xs, 50) == 30.0
    assert percentile(xs, 100) == 50.0
    assert percentile(xs, 75) == 40.0
    assert percentile([1.0, 2.0], 99) == pytest.approx(1.99)


def test_relative_difference_and_the_flag():
    assert rel_diff(100.0, 94.0) == pytest.approx(-0.06)
    assert rel_diff(0.0, 0.0) == 0.0 and math.isinf(rel_diff(0.0, 1.0))
    assert math.isnan(rel_diff(None, 3.0))
    t = Table("== t ==", "peer", [("a", 100.0, 104.9), ("b", 100.0, 94.0), ("c", None, 7.0)], ["note"],
              cost=[("wall s", 1.0, 9.0)])
    assert t.over_tolerance() == [("b", pytest.approx(-0.06))]
    lines = t.lines()
    assert [ln.endswith(">5%") for ln in lines[2:5]] == [False, True, False]
    assert "wall s" in lines[5] and not lines[5].endswith(">5%")  # cost rows are shown, never flagged
    assert lines[-1] == "  note"
