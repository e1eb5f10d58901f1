"""Agreement tables: one network figure per row, the peer's value beside fabricsim's and their
relative difference, flagged above 5 %. Shared by the validation scripts of benches/validation/."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

TOLERANCE = 0.05


def jain(xs: list[float]) -> float:
    """Jain's fairness index: (sum x)^2 / (n sum x^2); 1 when all are equal."""
    xs = list(xs)
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if xs and sq > 0 else float("nan")


def percentile(xs: list[float], p: float) -> float:
    """The p-th percentile (0-100) by linear interpolation between order statistics."""
    s = sorted(xs)
    if not s:
        return float("nan")
    pos = (len(s) - 1) * p / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def goodput_rows(peer: list[float], ours: list[float], unit: str = "Gb/s") -> list[tuple[str, float, float]]:
    """Per-flow goodput: min, median, Jain."""
    return [(f"goodput per flow, min ({unit})", min(peer), min(ours)),
            (f"goodput per flow, median ({unit})", statistics.median(peer), statistics.median(ours)),
            ("goodput per flow, Jain", jain(peer), jain(ours))]


def fct_rows(peer: list[float], ours: list[float], unit: str = "us") -> list[tuple[str, float, float]]:
    """FCT percentiles: p50, p99, max, and how many flows finished."""
    return [(f"FCT p50 ({unit})", percentile(peer, 50), percentile(ours, 50)),
            (f"FCT p99 ({unit})", percentile(peer, 99), percentile(ours, 99)),
            (f"FCT max ({unit})", max(peer, default=float("nan")), max(ours, default=float("nan"))),
            ("flows finished", float(len(peer)), float(len(ours)))]


def rel_diff(peer: float, ours: float) -> float:
    """(ours - peer) / peer; 0 when both are 0; nan when either is unknown."""
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (peer, ours)):
        return float("nan")
    if peer == 0:
        return 0.0 if ours == 0 else float("inf")
    return (ours - peer) / abs(peer)


@dataclass
class Table:
    title: str
    peer: str  # the peer's column heading, e.g. "htsim 841d9e7"
    rows: list[tuple[str, float | None, float | None]]
    notes: list[str]
    cost: list[tuple[str, float | None, float | None]] = field(default_factory=list)  # wall time, memory: not flagged

    def lines(self) -> list[str]:
        w = max([len(r[0]) for r in self.rows] + [28])
        out = [self.title, f"{'figure':<{w}} {self.peer:>14} {'fabricsim':>14} {'difference':>10}"]
        for name, a, b in self.rows:
            d = rel_diff(a, b)
            flag = "  >5%" if not math.isnan(d) and abs(d) > TOLERANCE else ""
            out.append(f"{name:<{w}} {fmt(a):>14} {fmt(b):>14} {fmt_pct(d):>10}{flag}")
        for name, a, b in self.cost:
            out.append(f"{name:<{w}} {fmt(a):>14} {fmt(b):>14} {'':>10}")
        return out + [f"  {n}" for n in self.notes]

    def over_tolerance(self) -> list[tuple[str, float]]:
        """The figures differing by more than 5 %, with their difference."""
        out = []
        for name, a, b in self.rows:
            d = rel_diff(a, b)
            if not math.isnan(d) and abs(d) > TOLERANCE:
                out.append((name, d))
        return out


def fmt(v: float | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float) and not v.is_integer() or abs(v) < 1:
        return f"{v:,.1f}" if abs(v) >= 100 else f"{v:.4g}"
    return f"{int(v):,}"


def fmt_pct(d: float) -> str:
    if math.isnan(d):
        return "-"
    if math.isinf(d):
        return "inf"
    return f"{d:+.1%}"
