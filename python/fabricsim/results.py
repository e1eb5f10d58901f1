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
    for c in ("size", "end_ps", "fct_ps", "ideal_fct_ps", "setup_ps"):
        df[c] = df[c].astype("Int64")  # nullable: long-lived / unfinished flows
    df["slowdown"] = df["slowdown"].astype("Float64")
    df["deadline_ps"] = df["deadline_ps"].astype("Int64")
    df["deadline_s"] = (df["deadline_ps"] / PS).astype("Float64")
    df["deadline_met"] = df["deadline_met"].astype("boolean")
    df["start_s"] = df["start_ps"] / PS
    df["end_s"] = (df["end_ps"] / PS).astype("Float64")
    df["fct_s"] = (df["fct_ps"] / PS).astype("Float64")
    df["ideal_fct_s"] = (df["ideal_fct_ps"] / PS).astype("Float64")
    df["setup_s"] = (df["setup_ps"] / PS).astype("Float64")
    return df


def _circuit_frames(c: dict | None) -> dict[str, pd.DataFrame]:
    if c is None:
        return {}
    days = pd.DataFrame(c["days"])
    days["start_s"] = days["start_ps"] / PS
    days["length_s"] = days["length_ps"] / PS
    seq = pd.DataFrame(c["seq_view"])
    seq["offset_us"] = seq["offset_ps"] / 1e6
    lat = pd.DataFrame(c["latency"])
    for col in ("mean_us", "p50_us", "p99_us", "p999_us"):
        lat[col] = lat[col].astype("Float64")
    return {"days": days, "voqs": pd.DataFrame(c["voqs"]), "seq_view": seq, "latency": lat}


def _series_frame(cols: dict) -> pd.DataFrame:
    df = pd.DataFrame(cols)
    df["time_s"] = df["time_ps"] / PS
    return df


@dataclass
class Results:
    """What one run produced.

    flows:      one row per flow (id, src, dst, size, start/end/FCT/ideal FCT in ps and s,
                slowdown, bytes_acked, setup_s (connection setup time), retransmits, timeouts, deadline_s and deadline_met for
                flows with deadlines, ...). FCT is NA for flows that
                did not finish (long-lived flows, or the run ended first).
    ports:      one row per port (link direction): packets/bytes sent, drops, ECN marks,
                max and time-averaged queue, utilization; with SAB also sab_flows,
                sab_peak_flows and sab_rewrites (flows counted, data windows lowered).
    timeseries: long format (time_s, metric, target, value); metrics queue_packets,
                queue_bytes (target = port), cwnd, dctcp_alpha (target = flow id).
    summary:    sim_time_s, wall_s, events, packet_hops, peak_rss_bytes, packet counts, and
                deadline_miss_fraction when flows have deadlines, ...
    queues:     one row per queue of every port (port, queue, classes, enqueued, drops, marks,
                trims, max/mean occupancy in packets and bytes): the per-class view of ports
    circuit:    hybrid networks only (kind = "rdcn"), else empty: frames
                  days     one row per circuit day of a rack pair with traffic (src, dst, start_s,
                           length_s, bytes, utilization = bytes / (circuit rate x day))
                  voqs     one row per used VOQ (enqueued, drops, ecn_marks, max/mean packets)
                  seq_view the week-folded view around the pair's day: offset_us (0 = day start),
                           bytes per bin and expected_bytes (cumulative, mean over weeks),
                           voq_packets (mean), optimal_bytes and packet_only_bytes (cumulative)
                  latency  per path (packet, circuit, all): packets, mean/p50/p99/p999 in us
                The summary then also holds circuit_utilization (mean over days after warm-up)
                and latency_p50_us / latency_p99_us / latency_p999_us.
    """

    flows: pd.DataFrame
    ports: pd.DataFrame
    timeseries: pd.DataFrame
    summary: dict[str, Any] = field(default_factory=dict)
    circuit: dict[str, pd.DataFrame] = field(default_factory=dict)
    queues: pd.DataFrame = field(default_factory=pd.DataFrame)

    @classmethod
    def from_engine(cls, sim, summary_extra: dict | None = None) -> "Results":
        summary = dict(sim.summary())
        summary["goodput_bytes"] = sim.goodput_bytes
        summary.update(summary_extra or {})
        flows = _flows_frame(sim.flows())
        decided = flows["deadline_met"].dropna()
        if len(decided):
            # Flows with a deadline that finished, or ran past it unfinished (SAB/D2TCP metric).
            summary["deadline_flows"] = int(len(decided))
            summary["deadline_miss_fraction"] = float((~decided).mean())
        circuit = _circuit_frames(sim.circuit())
        if circuit:
            summary["circuit_utilization"] = sim.circuit()["utilization"]
            lat = circuit["latency"].set_index("path")
            for q in ("p50", "p99", "p999"):
                v = lat.loc["all", f"{q}_us"]
                summary[f"latency_{q}_us"] = None if pd.isna(v) else float(v)
        queues = pd.DataFrame(sim.queues())
        return cls(flows, pd.DataFrame(sim.ports()), _series_frame(sim.timeseries()), summary, circuit, queues)

    def save(self, directory: str | Path) -> Path:
        """Write flows.parquet, ports.parquet, timeseries.parquet, summary.json and, for hybrid
        networks, circuit_<table>.parquet."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self.flows.to_parquet(d / "flows.parquet", index=False)
        self.ports.to_parquet(d / "ports.parquet", index=False)
        self.timeseries.to_parquet(d / "timeseries.parquet", index=False)
        if len(self.queues):
            self.queues.to_parquet(d / "queues.parquet", index=False)
        for name, frame in self.circuit.items():
            frame.to_parquet(d / f"circuit_{name}.parquet", index=False)
        (d / "summary.json").write_text(json.dumps(self.summary, indent=2, sort_keys=True) + "\n")
        return d

    @classmethod
    def load(cls, directory: str | Path) -> "Results":
        """Read what `save` wrote."""
        d = Path(directory)
        circuit = {p.stem.removeprefix("circuit_"): pd.read_parquet(p) for p in sorted(d.glob("circuit_*.parquet"))}
        return cls(
            pd.read_parquet(d / "flows.parquet"),
            pd.read_parquet(d / "ports.parquet"),
            pd.read_parquet(d / "timeseries.parquet"),
            json.loads((d / "summary.json").read_text()),
            circuit,
            pd.read_parquet(d / "queues.parquet") if (d / "queues.parquet").exists() else pd.DataFrame(),
        )

    def to_polars(self) -> dict:
        """The three tables as polars DataFrames (needs `pip install polars`)."""
        import polars as pl

        out = {
            "flows": pl.from_pandas(self.flows),
            "ports": pl.from_pandas(self.ports),
            "timeseries": pl.from_pandas(self.timeseries),
        }
        out.update({f"circuit_{k}": pl.from_pandas(v) for k, v in self.circuit.items()})
        return out

    def port(self, name: str) -> pd.Series:
        """The row of one port, e.g. res.port("s0->h0")."""
        rows = self.ports[self.ports["port"] == name]
        if rows.empty:
            raise KeyError(f"no port '{name}'; ports are named 'node->peer', e.g. {self.ports['port'].iloc[0]!r}")
        return rows.iloc[0]
