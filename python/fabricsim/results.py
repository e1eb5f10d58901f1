"""Results of a run: pandas frames (polars on request), Parquet on disk."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

PS = 1e12


def _flows_frame(cols: dict) -> pd.DataFrame:
    df = pd.DataFrame(cols)
    for c in ("size", "end_ps", "fct_ps", "ideal_fct_ps"):
        df[c] = df[c].astype("Int64")  # nullable: long-lived / unfinished flows
    df["slowdown"] = df["slowdown"].astype("Float64")
    df["start_s"] = df["start_ps"] / PS
    df["end_s"] = (df["end_ps"] / PS).astype("Float64")
    df["fct_s"] = (df["fct_ps"] / PS).astype("Float64")
    df["ideal_fct_s"] = (df["ideal_fct_ps"] / PS).astype("Float64")
    return df


def _series_frame(cols: dict) -> pd.DataFrame:
    df = pd.DataFrame(cols)
    df["time_s"] = df["time_ps"] / PS
    return df


@dataclass
class Results:
    """What one run produced.

    flows:      one row per flow (id, src, dst, size, start/end/FCT/ideal FCT in ps and s,
                slowdown, bytes_acked, retransmits, timeouts, ...). FCT is NA for flows that
                did not finish (long-lived flows, or the run ended first).
    ports:      one row per port (link direction): packets/bytes sent, drops, ECN marks,
                max and time-averaged queue, utilization.
    timeseries: long format (time_s, metric, target, value); metrics queue_packets,
                queue_bytes (target = port), cwnd, dctcp_alpha (target = flow id).
    summary:    sim_time_s, wall_s, events, packet_hops, peak_rss_bytes, packet counts, ...
    """

    flows: pd.DataFrame
    ports: pd.DataFrame
    timeseries: pd.DataFrame
    summary: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_engine(cls, sim, summary_extra: dict | None = None) -> "Results":
        summary = dict(sim.summary())
        summary["goodput_bytes"] = sim.goodput_bytes
        summary.update(summary_extra or {})
        return cls(_flows_frame(sim.flows()), pd.DataFrame(sim.ports()), _series_frame(sim.timeseries()), summary)

    def save(self, directory: str | Path) -> Path:
        """Write flows.parquet, ports.parquet, timeseries.parquet and summary.json."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self.flows.to_parquet(d / "flows.parquet", index=False)
        self.ports.to_parquet(d / "ports.parquet", index=False)
        self.timeseries.to_parquet(d / "timeseries.parquet", index=False)
        (d / "summary.json").write_text(json.dumps(self.summary, indent=2, sort_keys=True) + "\n")
        return d

    @classmethod
    def load(cls, directory: str | Path) -> "Results":
        """Read what `save` wrote."""
        d = Path(directory)
        return cls(
            pd.read_parquet(d / "flows.parquet"),
            pd.read_parquet(d / "ports.parquet"),
            pd.read_parquet(d / "timeseries.parquet"),
            json.loads((d / "summary.json").read_text()),
        )

    def to_polars(self) -> dict:
        """The three tables as polars DataFrames (needs `pip install polars`)."""
        import polars as pl

        return {
            "flows": pl.from_pandas(self.flows),
            "ports": pl.from_pandas(self.ports),
            "timeseries": pl.from_pandas(self.timeseries),
        }

    def port(self, name: str) -> pd.Series:
        """The row of one port, e.g. res.port("s0->h0")."""
        rows = self.ports[self.ports["port"] == name]
        if rows.empty:
            raise KeyError(f"no port '{name}'; ports are named 'node->peer', e.g. {self.ports['port'].iloc[0]!r}")
        return rows.iloc[0]
