"""Results of a run: pandas frames (polars on request), Parquet on disk."""

from __future__ import annotations

import math
import os
import warnings

from .errors import ResultsError

# pathlib, json and typing load where a run is saved or read, not when one is made (start-up,
# docs/PERFORMANCE.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Callable

    import pandas as pd

PS = 1e12
#: Parquet schema metadata key holding the run id (also summary.json's "run_id").
RUN_ID_KEY = b"fabricsim.run_id"


def check_output_dir(directory: str | Path, overwrite: bool = True) -> Path:
    """Check, before simulating, that `save(directory)` will succeed: the path is not a file, not
    a directory of other things, and its parent can be written. An existing results directory is
    replaced whole when `overwrite`, else refused. Raises ResultsError naming the path."""
    from pathlib import Path

    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise ResultsError(f"output '{d}' is a file, not a directory; choose another -o")
    if d.is_dir():
        try:
            entries = [p.name for p in d.iterdir()]
        except OSError as e:
            raise ResultsError(f"output '{d}' cannot be read: {e.strerror or e}") from None
        if entries and not (d / "summary.json").exists():
            raise ResultsError(f"output '{d}' holds files that are not fabricsim results ({', '.join(sorted(entries)[:3])}"
                               f"{', ...' if len(entries) > 3 else ''}); choose another -o or empty it")
        if entries and not overwrite:
            raise ResultsError(f"output '{d}' holds the results of an earlier run; choose another -o, or allow replacing it "
                               "(fabricsim run without --no-overwrite; Results.save(..., overwrite=True))")
    import tempfile  # here, not at the top: `import fabricsim` stays quick (docs/PERFORMANCE.md)

    parent = d.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        probe = tempfile.mkdtemp(prefix=f".{d.name}.probe-", dir=parent)
        os.rmdir(probe)
    except OSError as e:
        raise ResultsError(f"output '{d}' cannot be written: {e.strerror or e} ({parent})") from None
    return d


def _write_parquet(frame, path: Path, run_id: str) -> None:
    """Write a DataFrame, or an Arrow table from fabricsim.columns (which carries the run id)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not isinstance(frame, pa.Table):
        table = pa.Table.from_pandas(frame, preserve_index=False)
        meta = dict(table.schema.metadata or {})
        meta[RUN_ID_KEY] = run_id.encode()
        frame = table.replace_schema_metadata(meta)
    pq.write_table(frame, path)


def _read_parquet(path: Path, run_id: str | None, columns: list[str] | None = None) -> pd.DataFrame:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path, columns=columns)
    except FileNotFoundError:
        raise ResultsError(f"'{path}' is missing: the results directory is incomplete") from None
    except Exception as e:  # noqa: BLE001 - ArrowInvalid, OSError: a truncated or foreign file
        raise ResultsError(f"'{path}' is damaged or not a Parquet file ({type(e).__name__}: {str(e).splitlines()[0][:120]})") from None
    found = (table.schema.metadata or {}).get(RUN_ID_KEY)
    if run_id is not None and (found is None or found.decode() != run_id):
        raise ResultsError(f"'{path}' belongs to another run (run id {found.decode() if found else 'none'}, summary.json says {run_id}); "
                           "the directory mixes two runs")
    return table.to_pandas()


def _flows_frame(cols: dict) -> pd.DataFrame:
    import pandas as pd

    from .columns import FLOWS_NULLABLE, FLOWS_SECONDS

    df = pd.DataFrame(cols)
    for c, kind in FLOWS_NULLABLE.items():
        df[c] = df[c].astype(kind)  # nullable: long-lived / unfinished flows, flows without deadlines
    for name, source, kind in FLOWS_SECONDS:
        df[name] = (df[source] / PS).astype(kind)
    return df


def _circuit_frames(c: dict | None) -> dict[str, pd.DataFrame]:
    if c is None:
        return {}
    import pandas as pd

    days = pd.DataFrame(c["days"])
    days["start_s"] = days["start_ps"] / PS
    days["length_s"] = days["length_ps"] / PS
    for col in ("wire_start_ps", "wire_end_ps"):
        if col in days:
            days[col] = days[col].astype("Int64")  # nullable: a day the lane sent nothing in
    seq = pd.DataFrame(c["seq_view"])
    seq["offset_us"] = seq["offset_ps"] / 1e6
    lat = pd.DataFrame(c["latency"])
    for col in ("mean_us", "p50_us", "p99_us", "p999_us"):
        lat[col] = lat[col].astype("Float64")
    out = {"days": days, "voqs": pd.DataFrame(c["voqs"]), "seq_view": seq, "latency": lat}
    if "uplinks" in c:
        up = pd.DataFrame(c["uplinks"])
        # Bits serialized over the phase's length: the packet network's bandwidth per ToR.
        up["night_gbps"] = up["night_bytes"] * 8 / (up["night_ps"] / PS) / 1e9
        up["day_gbps"] = up["day_bytes"] * 8 / (up["day_ps"] / PS) / 1e9
        out["uplinks"] = up
    if "tor_queues" in c:
        # Segregating ToRs (AccelToR, Blocking, Unblocking).
        out["tor_queues"] = pd.DataFrame(c["tor_queues"])
        out["cases"] = pd.DataFrame(c["cases"])
        ew = pd.DataFrame(c["elephant_weeks"])
        ew["week_start_s"] = ew["week_start_ps"] / PS
        # AccelToR §IV-B: weekly throughput over the whole week, daily over the pair's day.
        ew["weekly_gbps"] = ew["bytes"] * 8 / (ew["week_ps"] / PS) / 1e9
        ew["daily_gbps"] = ew["circuit_bytes"] * 8 / (ew["day_ps"] / PS) / 1e9
        # What the sender put on the wire over the week (the AccelToR authors' "throughput");
        # results saved before the column existed have none.
        if "sent_bytes" in ew:
            ew["weekly_sent_gbps"] = ew["sent_bytes"] * 8 / (ew["week_ps"] / PS) / 1e9
        out["elephant_weeks"] = ew
    return out


def _series_frame(cols: dict) -> pd.DataFrame:
    import pandas as pd

    df = pd.DataFrame(cols)
    df["time_s"] = df["time_ps"] / PS
    return df


class _Table:
    """A Results table built on first use: a run keeps the engine's columns and turns them into a
    DataFrame (importing pandas, about 0.3 s) only when the table is read, so a script that needs
    only the summary or a column (`Results.raw`) never pays for pandas. Once built, the frame lives
    in the instance's __dict__, which shadows this (non-data) descriptor; assigning replaces it."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj._pending.pop(self.name)()
        obj.__dict__[self.name] = value
        return value


def _empty_frame():
    import pandas as pd

    return pd.DataFrame()


class Results:
    """What one run produced.

    flows:      one row per flow (id, src, dst, size, start/end/FCT/ideal FCT in ps and s,
                slowdown, bytes_acked, setup_s (connection setup time), retransmits, timeouts,
                trimmed (NDP: data packets cut to headers on the way), credits (NDP: PULLs, as
                the last pull number the sender saw; Homa: GRANTs the receiver sent), deadline_s
                and deadline_met for flows with deadlines, ...). FCT is NA for flows that
                did not finish (long-lived flows, or the run ended first).
    ports:      one row per port (link direction): packets/bytes sent, drops, ECN marks,
                max and time-averaged queue, utilization; with SAB also sab_flows,
                sab_peak_flows and sab_rewrites (flows counted, data windows lowered); with
                [pfc] also pfc_pauses and pfc_paused_s (PAUSE frames the port received from
                its peer switch, seconds it spent paused).
    timeseries: long format (time_s, metric, target, value); metrics queue_packets,
                queue_bytes (target = port), cwnd, dctcp_alpha (target = flow id).
    summary:    sim_time_s, wall_s, events, packet_hops, peak_rss_bytes, packet counts, and
                deadline_miss_fraction when flows have deadlines, ...
    queues:     one row per queue of every port (port, queue, classes, enqueued, drops, marks,
                trims, max/mean occupancy in packets and bytes): the per-class view of ports
    circuit:    hybrid networks only (kind = "rdcn"), else empty: frames
                  days     one row per circuit day of a rack pair with traffic (src, dst, start_s,
                           length_s, bytes, utilization = bytes / (circuit rate x day),
                           wire_start_ps / wire_end_ps: the lane's first transmission start and
                           last transmission end in the day, the day as seen on the wire)
                  uplinks  one row per ToR packet uplink: bytes serialized during the nights and
                           the days that began after the warm-up (pro rata across boundaries),
                           their total length (night_ps, day_ps), night_gbps and day_gbps
                  voqs     one row per used VOQ (enqueued, drops, ecn_marks, max/mean packets)
                  seq_view the week-folded view around the pair's day: offset_us (0 = day start),
                           bytes per bin and expected_bytes (cumulative, mean over weeks),
                           voq_packets (mean), optimal_bytes and packet_only_bytes (cumulative)
                  latency  per path (packet, circuit, all): packets, mean/p50/p99/p999 in us
                  with [tor] policy = acceltor / blocking / unblocking also:
                  tor_queues     one row per ToR queue (tor, queue: hp, lp, calendar<i> (physical),
                                 packet, circuit<d>, circuit; enqueued, drops, max/mean occupancy)
                  cases          one row: packets by Algorithm 1's case (mice, today, accelerated,
                                 buffered, case4_drops, case4_lp, overflow_lp), mice_lp and
                                 elephant_hp (packets [tor.acceltor] lp_left moved to LP / HP),
                                 elephant_packet, full_drops, stale_drops, and elephants
                                 promoted / departed
                  elephant_weeks one row per elephant and measured week: bytes that left the
                                 hybrid network, circuit_bytes (in its pair's day), sent_bytes
                                 (entered the source ToR: all the sender sent, dropped or not),
                                 weekly_gbps (bytes over the week), daily_gbps (circuit bytes
                                 over the day), weekly_sent_gbps (sent_bytes over the week)
                The days table's utilization is the optical link occupancy of each circuit day.
                The summary then also holds circuit_utilization (mean over days after warm-up)
                and latency_p50_us / latency_p99_us / latency_p999_us.
    packets:    with [output.pcap]: one row per captured packet and port (header fields; write_pcap)

    In a notebook a Results shows itself as a short summary table (``_repr_html_``); ``repr(res)``
    is the same as text.

    Example::

        >>> res = fabricsim.run("scenarios/example.toml")   # doctest: +SKIP
        >>> res                                             # doctest: +SKIP
        Results 'example', seed 1: 20 ms simulated in 0.09 s (100,477 events)
          flows   4, 3 finished, 0 retransmissions; FCT p50 3.043 ms, p99 3.547 ms; slowdown p99 4.253
          ...
    """

    flows: pd.DataFrame = _Table()  # type: ignore[assignment]
    ports: pd.DataFrame = _Table()  # type: ignore[assignment]
    timeseries: pd.DataFrame = _Table()  # type: ignore[assignment]
    circuit: dict[str, pd.DataFrame] = _Table()  # type: ignore[assignment]
    queues: pd.DataFrame = _Table()  # type: ignore[assignment]
    packets: pd.DataFrame = _Table()  # type: ignore[assignment]

    def __init__(self, flows, ports, timeseries, summary: dict[str, Any] | None = None, circuit=None, queues=None,
                 packets=None, *, raw: dict[str, dict] | None = None) -> None:
        """Each table is a DataFrame (circuit: a dict of them), or a function of no arguments that
        builds it on first use (what `from_engine` passes). `raw` keeps the engine's columns."""
        self.summary = {} if summary is None else summary
        #: The results directory these tables were read from (`load`), else None.
        self.directory: Path | None = None
        self._raw = raw or {}
        self._pending: dict[str, Callable[[], Any]] = {}
        tables = {"flows": flows, "ports": ports, "timeseries": timeseries, "circuit": {} if circuit is None else circuit,
                  "queues": _empty_frame if queues is None else queues, "packets": _empty_frame if packets is None else packets}
        for name, value in tables.items():
            if callable(value):
                self._pending[name] = value
            else:
                self.__dict__[name] = value

    def raw(self, table: str) -> dict:
        """The engine's columns of a table of this run ("flows", "ports", "timeseries", "queues"),
        as lists, without building a DataFrame (so without importing pandas); empty for results
        loaded from disk. For scripts that time whole processes (benches/htsim/compare.py).

        Example::

            >>> sum(res.raw("flows")["bytes_acked"])   # doctest: +SKIP
        """
        return self._raw.get(table, {})

    def _overview(self) -> list[tuple[str, str]]:
        """(label, text) lines of the notebook/text summary."""
        from .cli import _fmt_time

        s, f = self.summary, self.flows
        rows = []
        if len(f):
            done = f[f["fct_s"].notna()]
            line = f"{len(f):,}, {len(done):,} finished, {int(f['retransmits'].sum()):,} retransmissions"
            if len(done):
                fct = done["fct_s"].astype(float)
                line += (f"; FCT p50 {_fmt_time(fct.quantile(0.5))}, p99 {_fmt_time(fct.quantile(0.99))}"
                         f"; slowdown p99 {done['slowdown'].astype(float).quantile(0.99):.3f}")
            rows.append(("flows", line))
        if len(self.ports):
            b = self.ports.sort_values("utilization", ascending=False).iloc[0]
            rows.append(("ports", f"{len(self.ports):,}; busiest {b['port']} at utilization {b['utilization']:.3f}, "
                                  f"{int(self.ports['drops'].sum()):,} drops, {int(self.ports['ecn_marks'].sum()):,} ECN marks in all"))
            if "pfc_pauses" in self.ports:
                pauses = int(self.ports["pfc_pauses"].sum())
                if pauses == 0:
                    # Naming the first port of a table of zeros would point at nothing.
                    rows.append(("pfc", "0 pauses: no port was paused"))
                else:
                    m = self.ports.sort_values("pfc_paused_s", ascending=False).iloc[0]
                    rows.append(("pfc", f"{pauses:,} pauses; longest paused {m['port']}, "
                                        f"{_fmt_time(float(m['pfc_paused_s']))} in {int(m['pfc_pauses']):,} pauses"))
        if len(self.timeseries):
            rows.append(("series", f"{len(self.timeseries):,} samples of " + ", ".join(sorted(self.timeseries["metric"].unique()))))
        if len(self.packets):
            rows.append(("packets", f"{len(self.packets):,} captured (write_pcap)"))
        if self.circuit:
            u = s.get("circuit_utilization")
            rows.append(("circuit", f"utilization {'-' if u is None else f'{100 * u:.1f} %'}, {len(self.circuit['days']):,} pair-days"))
        tables = [n for n in ("flows", "ports", "timeseries", "queues", "packets") if len(getattr(self, n))]
        rows.append(("tables", ", ".join(f".{n}" for n in tables) + ", .summary; .flow_series(), .class_queues()"))
        return rows

    def _title(self) -> str:
        from .cli import _fmt_time

        s = self.summary
        head = f"Results {s.get('scenario', '?')!r}, seed {s.get('seed', '?')}"
        if "sim_time_s" in s:
            head += f": {_fmt_time(s['sim_time_s'])} simulated"
            if "wall_s" in s or "engine_wall_s" in s:
                head += f" in {s.get('wall_s', s.get('engine_wall_s')):.2f} s"
            if "events" in s:
                head += f" ({s['events']:,} events)"
        return head + ("  INTERRUPTED" if s.get("interrupted") else "")

    def __repr__(self) -> str:
        return "\n".join([self._title()] + [f"  {k:<8}{v}" for k, v in self._overview()])

    def _repr_html_(self) -> str:
        import html

        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:left'>{html.escape(v)}</td></tr>"
                       for k, v in self._overview())
        return f"<div><strong>{html.escape(self._title())}</strong><table>{rows}</table></div>"

    @classmethod
    def from_engine(cls, sim, summary_extra: dict | None = None) -> "Results":
        """Collect the tables of a finished (or stopped) engine simulation.

        Example::

            >>> sim = fabricsim._engine.Simulation(json_text, seed=1); sim.run_until(sim.end_ps)   # doctest: +SKIP
            >>> res = Results.from_engine(sim, {"wall_s": 0.1})   # doctest: +SKIP
        """
        summary = dict(sim.summary())
        summary["goodput_bytes"] = sim.goodput_bytes
        summary.update(summary_extra or {})
        raw = {"flows": sim.flows(), "ports": sim.ports(), "timeseries": sim.timeseries(), "queues": sim.queues()}
        decided = [m for m in raw["flows"]["deadline_met"] if m is not None]
        if decided:
            # Flows with a deadline that finished, or ran past it unfinished (SAB/D2TCP metric).
            summary["deadline_flows"] = len(decided)
            summary["deadline_miss_fraction"] = float(sum(1 for m in decided if not m) / len(decided))
        c = sim.circuit()
        if c is not None:
            summary["circuit_utilization"] = c["utilization"]
            lat = c["latency"]
            row = list(lat["path"]).index("all")
            for q in ("p50", "p99", "p999"):
                v = lat[f"{q}_us"][row]
                summary[f"latency_{q}_us"] = None if v is None or v != v else float(v)  # v != v: NaN
        packets = None
        cap = sim.capture()
        if cap is not None:
            from .pcap import packets_frame

            packets = packets_frame(cap)
            summary["pcap_packets"] = len(packets)
            summary["pcap_left_out"] = int(cap["dropped"])

        def frame(table: str):
            def build():
                import pandas as pd

                return pd.DataFrame(raw[table])
            return build

        return cls(lambda: _flows_frame(raw["flows"]), frame("ports"), lambda: _series_frame(raw["timeseries"]), summary,
                   lambda: _circuit_frames(c), frame("queues"), packets, raw=raw)

    def save(self, directory: str | Path, overwrite: bool = True) -> Path:
        """Write flows.parquet, ports.parquet, timeseries.parquet, queues.parquet, summary.json
        and, for hybrid networks, circuit_<table>.parquet.

        The files are written into a temporary sibling directory and renamed into place, so the
        directory always holds one whole run: an earlier run there is replaced whole (refused when
        not `overwrite`), and a save that fails part-way leaves the earlier one untouched. Every
        file carries the run's id (summary.json "run_id", Parquet metadata), checked by `load`.

        Example::

            >>> res.save("results/mine")           # replaces an earlier run there, whole   # doctest: +SKIP
        """
        import shutil
        import tempfile
        from pathlib import Path

        d = check_output_dir(directory, overwrite)
        parent = d.absolute().parent
        tmp = Path(tempfile.mkdtemp(prefix=f".{d.name}.tmp-", dir=parent))
        try:
            self.write_files(tmp)
            if d.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{d.name}.old-", dir=parent))
                os.replace(d, old / "run")
                os.replace(tmp, d)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(tmp, d)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return d

    def write_files(self, d: Path) -> None:
        """The files of `save`, written into the existing directory `d` (no renaming).

        Example::

            >>> res.write_files(Path(tempfile.mkdtemp()))   # doctest: +SKIP
        """
        import json
        import uuid  # imports platform: here, not at the top

        run_id = self.summary.get("run_id") or uuid.uuid4().hex
        files = {name: self._written(name, run_id) for name in ("flows", "ports", "timeseries")}
        if self._rows("queues"):
            files["queues"] = self._written("queues", run_id)
        files.update({f"circuit_{name}": frame for name, frame in self.circuit.items()})
        if "pcap" in self.summary:
            files["packets"] = self.packets
        files.update(self._series_written(run_id))
        for name, table in files.items():
            _write_parquet(table, d / f"{name}.parquet", run_id)
        if "pcap" in self.summary:
            self.write_pcap(d / "pcap")
        summary = {**self.summary, "run_id": run_id, "files": sorted(f"{n}.parquet" for n in files)}
        # summary.json last: a directory without it is not a finished write.
        (d / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
        self.summary = summary

    def flow_columns(self) -> dict:
        """What the run report needs of the flows, as numpy arrays: size, fct_s and slowdown
        (float, NaN where missing), measured (bool), workload, retransmits, timeouts — from the
        engine's columns while the flows' DataFrame is unbuilt (so without pandas).

        Example::

            >>> int((~np.isnan(res.flow_columns()["fct_s"])).sum())   # finished flows   # doctest: +SKIP
        """
        import numpy as np

        def floats(values, scale=1.0):
            return np.array([math.nan if v is None else v / scale for v in values], dtype=float)

        if "flows" in self._pending and "flows" in self._raw:
            r = self._raw["flows"]
            return {"size": floats(r["size"]), "fct_s": floats(r["fct_ps"], PS), "slowdown": floats(r["slowdown"]),
                    "measured": np.array(r["measured"], dtype=bool), "workload": np.array(r["workload"], dtype=object),
                    "retransmits": np.array(r["retransmits"]), "timeouts": np.array(r["timeouts"])}
        f = self.flows
        out = {c: f[c].to_numpy(dtype=float, na_value=np.nan) for c in ("size", "fct_s", "slowdown")}
        out["measured"] = f["measured"].to_numpy(dtype=bool) if "measured" in f else np.ones(len(f), dtype=bool)
        out["workload"] = f["workload"].to_numpy(dtype=object) if "workload" in f else np.full(len(f), "", dtype=object)
        out.update({c: f[c].to_numpy() for c in ("retransmits", "timeouts")})
        return out

    def port_columns(self) -> dict:
        """The ports table as columns (lists from the engine, or the DataFrame's arrays).

        Example::

            >>> max(res.port_columns()["utilization"])   # doctest: +SKIP
        """
        if "ports" in self._pending and "ports" in self._raw:
            return self._raw["ports"]
        return {c: self.ports[c].to_numpy() for c in self.ports.columns}

    def _rows(self, name: str) -> int:
        """The row count of a table, without building its DataFrame when it is still pending."""
        if name in self._pending and name in self._raw:
            return len(next(iter(self._raw[name].values()), []))
        return len(getattr(self, name))

    def _written(self, name: str, run_id: str):
        """What write_files writes for table `name`: straight from the engine's columns while
        nobody has built its DataFrame (no pandas; fabricsim.columns), else the DataFrame."""
        if name in self._pending and name in self._raw:
            from .columns import arrow_table

            table = arrow_table(name, self._raw[name], run_id)
            if table is not None:
                return table
        return getattr(self, name)

    def _series_written(self, run_id: str) -> dict:
        """flow_series and class_queues, the derived tables write_files adds when not empty."""
        out = {}
        if "timeseries" in self._pending and "timeseries" in self._raw:
            from .columns import FLOW_METRICS, PS, flow_series_columns, table_from

            ts = self._raw["timeseries"]
            cols = flow_series_columns([t / PS for t in ts["time_ps"]], ts["metric"], ts["target"], ts["value"], FLOW_METRICS)
            if cols is not None:
                out["flow_series"] = table_from(cols, run_id)
            if not any(m.startswith("class_queue_") for m in set(ts["metric"])):
                return out
        from . import analysis

        if "flow_series" not in out:
            out["flow_series"] = analysis.flow_series(self.timeseries)
        out["class_queues"] = analysis.class_queue_series(self.timeseries)
        return {name: table for name, table in out.items() if len(table)}

    @classmethod
    def load(cls, directory: str | Path) -> "Results":
        """Read what `save` wrote, checking that every file belongs to the run summary.json
        names. Raises ResultsError for a missing, damaged or mixed directory.

        Example::

            >>> res = fabricsim.Results.load("results/example")   # doctest: +SKIP
            >>> res.flows.fct_s.describe()   # doctest: +SKIP
        """
        import json
        from pathlib import Path

        d = Path(directory)
        if not d.is_dir():
            raise ResultsError(f"'{d}' is not a results directory" + ("" if d.exists() else " (it does not exist)"))
        try:
            summary = json.loads((d / "summary.json").read_text())
        except FileNotFoundError:
            raise ResultsError(f"'{d}' is not a results directory (no summary.json)") from None
        except (ValueError, UnicodeDecodeError, OSError) as e:
            raise ResultsError(f"'{d / 'summary.json'}' is damaged ({type(e).__name__}: {str(e)[:120]})") from None
        if not isinstance(summary, dict):
            raise ResultsError(f"'{d / 'summary.json'}' is damaged (not a JSON object)")
        run_id = summary.get("run_id")
        if run_id is None:
            # Written before run ids existed: the files cannot be checked against each other.
            warnings.warn(f"'{d}' was written by an older fabricsim without a run id; its files cannot be checked "
                          "to belong to one run", stacklevel=2)
            names = ["flows.parquet", "ports.parquet", "timeseries.parquet"] + sorted(p.name for p in d.glob("circuit_*.parquet"))
        else:
            names = summary.get("files")
            if not isinstance(names, list) or not all(isinstance(n, str) and n.endswith(".parquet") and "/" not in n
                                                      and "\\" not in n for n in names):
                raise ResultsError(f"'{d / 'summary.json'}' is damaged (its file list is {str(names)[:80]!r})")
        frames = {n.removesuffix(".parquet"): _read_parquet(d / n, run_id) for n in names}
        for n in ("flows", "ports", "timeseries"):
            if n not in frames:
                raise ResultsError(f"'{d}' has no {n}.parquet in its summary.json file list: the directory is damaged")
        circuit = {k.removeprefix("circuit_"): v for k, v in frames.items() if k.startswith("circuit_")}
        queues = frames.get("queues")
        packets = frames.get("packets")
        res = cls(frames["flows"], frames["ports"], frames["timeseries"], summary, circuit, queues, packets)
        res.directory = d
        return res

    @staticmethod
    def load_table(directory: str | Path, name: str, columns: list[str] | None = None) -> pd.DataFrame:
        """One table of a results directory ("flows", "ports", ...), checked against the run id
        in its summary.json like `load` does, optionally only some columns.

        Example::

            >>> fabricsim.Results.load_table("results/example", "ports", columns=["port", "utilization"])   # doctest: +SKIP
        """
        import json
        from pathlib import Path

        d = Path(directory)
        try:
            run_id = json.loads((d / "summary.json").read_text()).get("run_id")
        except FileNotFoundError:
            raise ResultsError(f"'{d}' is not a results directory (no summary.json)") from None
        except (ValueError, UnicodeDecodeError, AttributeError) as e:
            raise ResultsError(f"'{d / 'summary.json'}' is damaged ({type(e).__name__}: {str(e)[:120]})") from None
        return _read_parquet(d / f"{name}.parquet", run_id, columns)

    def flow_series(self) -> pd.DataFrame:
        """Per-flow samples, one row per (time, flow): delivered_bytes, goodput_gbps, cwnd,
        dctcp_alpha, srtt_s, rate_bps (analysis.flow_series; `[output] flows`/`cwnd`). Also
        written as flow_series.parquet.

        Example::

            >>> res = fabricsim.run("scenarios/dumbbell-cc.toml", overrides=["output.flows='all'"])  # doctest: +SKIP
            >>> res.flow_series().pivot(index="time_s", columns="flow", values="goodput_gbps")   # doctest: +SKIP
        """
        from .analysis import flow_series

        return flow_series(self.timeseries)

    def class_queues(self) -> pd.DataFrame:
        """Occupancy of each queue of the sampled multi-queue ports, one row per (time, port,
        queue): packets, bytes (analysis.class_queue_series). Also written as class_queues.parquet.

        Example::

            >>> res.class_queues().query("port == 's0->h0'").pivot(index="time_s", columns="queue", values="packets")  # doctest: +SKIP
        """
        from .analysis import class_queue_series

        return class_queue_series(self.timeseries)

    def write_pcap(self, directory: str | Path, ports: list[str] | None = None, hosts: list[str] | None = None) -> list[Path]:
        """Write one pcap file per captured port and host (fabricsim.pcap: headers, addresses,
        time stamps) into `directory`; by default the ones ``[output.pcap]`` asked for.

        Example::

            >>> res = fabricsim.run("scenarios/example.toml", overrides=["output.pcap.hosts=['h1']"])  # doctest: +SKIP
            >>> res.write_pcap("traces")          # traces/h1.pcap; tshark -r traces/h1.pcap   # doctest: +SKIP
            [PosixPath('traces/h1.pcap')]
        """
        from . import pcap

        spec = dict(self.summary.get("pcap") or {})
        if ports is not None or hosts is not None:
            spec = {"ports": ports or [], "hosts": hosts or []}
        if not len(self.packets):
            if not spec:
                raise ResultsError("this run captured no packets; add [output.pcap] (ports = [...] or hosts = [...]) "
                                   "or run with --pcap")
            import pandas as pd

            cols = ["port", "time_ps", "arrive_ps", "lost"]
            return pcap.write_all(pd.DataFrame({c: pd.Series(dtype="uint64" if c.endswith("ps") else "object") for c in cols}),
                                  self.ports, spec, directory)
        return pcap.write_all(self.packets, self.ports, spec, directory)

    def to_polars(self) -> dict:
        """The three tables as polars DataFrames (needs `pip install polars`).

        Example::

            >>> res.to_polars()["flows"].filter(pl.col("fct_s").is_not_null())   # doctest: +SKIP
        """
        import polars as pl

        out = {
            "flows": pl.from_pandas(self.flows),
            "ports": pl.from_pandas(self.ports),
            "timeseries": pl.from_pandas(self.timeseries),
        }
        out.update({f"circuit_{k}": pl.from_pandas(v) for k, v in self.circuit.items()})
        return out

    def port(self, name: str) -> pd.Series:
        """The row of one port, e.g. res.port("s0->h0").

        Example::

            >>> res.port("s0->h0")["utilization"]   # doctest: +SKIP
        """
        rows = self.ports[self.ports["port"] == name]
        if rows.empty:
            raise KeyError(f"no port '{name}'; ports are named 'node->peer', e.g. {self.ports['port'].iloc[0]!r}")
        return rows.iloc[0]
