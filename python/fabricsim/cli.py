"""The `fabricsim` command line."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

from . import __version__
from .errors import FabricsimError, ScenarioError, ScenarioWarning

EPILOG_RUN = """\
examples:
  fabricsim run scenarios/example.toml
  fabricsim run scenarios/example.toml -o results/ex --seed 2
  fabricsim run scenarios/example.toml --set simulation.end=50ms --set transport.cc=newreno
  fabricsim run scenarios/example.toml --set flows.0.size=10MB
  fabricsim run scenarios/example.toml --pcap 's0->h0' --pcap h1 --pcap-window 0ms,1ms

--set takes dotted keys into the scenario; list items by index (flows.0.size). Values are
TOML values when they parse as one (42, true, "x", [1, 2]), otherwise plain strings, so units
need no quotes: --set topology.link.rate=40Gbps.

outputs (in the output directory):
  flows.parquet       one row per flow: FCT, ideal FCT, slowdown, retransmits, timeouts, ...
  ports.parquet       one row per port: bytes/packets sent, drops, ECN marks, queue stats
  timeseries.parquet  queue length / cwnd / per-flow samples if [output] asks for them
  summary.json        simulated and wall time, events, packet-hops, peak memory
  packets.parquet, pcap/*.pcap   with --pcap or [output.pcap]: the captured packets, and one
                      trace per port or host (tshark -r DIR/pcap/h1.pcap)
load them with fabricsim.Results.load(DIR) (pandas) or polars.read_parquet.
"""


EPILOG_SWEEP = """\
a sweep file:
  name = "cc-vs-load"
  base = "leafspine-websearch.toml"      # relative to the sweep file; or an inline [base] table
  mode = "cross"                         # every combination; "zip" pairs the i-th values
  [axes]
  "workload.0.load" = [0.3, 0.5, 0.7]    # any scenario key, as for --set
  "transport.cc" = ["dctcp", "cubic"]
  seed = [1, 2, 3]                       # aliases: seed, cc, load (workload.0.load), end
  [derived]                              # values computed from the axes
  "transport.min_rto" = "{1000 * load}us"

examples:
  fabricsim sweep cc-vs-load.toml -o out/cc-vs-load
  fabricsim sweep cc-vs-load.toml -o out/cc-vs-load --executor dask --workers 8
  fabricsim sweep cc-vs-load.toml -o out/cc-vs-load --executor dask --scheduler tcp://head:8786
  fabricsim report out/cc-vs-load

In Python: fabricsim.sweep.load("out/cc-vs-load").table (pandas; .to_polars()), .pivot(...),
.flows(), .results(key). docs/SWEEPS.md has the store layout and the Dask/Slurm setup.
"""


def _fmt_time(s) -> str:
    if s is None or s != s:
        return "-"
    for unit, k in (("s", 1), ("ms", 1e3), ("us", 1e6), ("ns", 1e9)):
        if s * k >= 1:
            return f"{s * k:.4g} {unit}"
    return f"{s * 1e12:.4g} ps"


def format_table(header: list[str], rows: list[list], indent: str = "  ", left: int = 1) -> list[str]:
    """Rows of already formatted cells as aligned text lines: each column as wide as its widest
    cell (header included) plus two spaces, so no value runs into the next one. The first `left`
    columns are left-aligned, the others right-aligned.

    >>> format_table(["port", "sent"], [["s0->h0", "1,234,567"]])
    ['  port         sent', '  s0->h0  1,234,567']
    """
    cells = [[str(c) for c in header]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    out = []
    for r in cells:
        parts = [c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))]
        out.append(indent + "  ".join(parts).rstrip())
    return out


def print_report(res, out_dir=None, file=sys.stdout) -> None:
    """The summary table printed after a run."""
    import numpy as np

    from . import stats

    s = res.summary
    f = res.flow_columns()
    finished = ~np.isnan(f["fct_s"])
    w = lambda *a: print(*a, file=file)  # noqa: E731
    w(f"scenario {s['scenario']!r}, seed {s['seed']}" + ("  (INTERRUPTED)" if s.get("interrupted") else ""))
    w(f"  simulated      {_fmt_time(s['sim_time_s'])} of {_fmt_time(s['end_s'])}")
    w(f"  wall time      {s.get('wall_s', s['engine_wall_s']):.3f} s")
    w(f"  events         {s['events']:,}")
    w(f"  packet-hops    {s['packet_hops']:,}")
    w(f"  packets        {s['packets_created']:,} sent, {s['packets_delivered']:,} delivered, "
      f"{s['packets_dropped']:,} dropped, {s['packets_in_flight']:,} in flight")
    w(f"  goodput        {s['goodput_bytes'] * 8 / max(s['sim_time_s'], 1e-12) / 1e9:.3f} Gb/s (all receivers)")
    w(f"  peak memory    {s['peak_rss_bytes'] / 2**20:.1f} MiB")
    w(f"flows: {len(finished)} total, {int(finished.sum())} finished, "
      f"{int(f['retransmits'].sum())} retransmissions, {int(f['timeouts'].sum())} timeouts")
    if finished.any():
        measured = f["measured"]
        workloads = sorted({x for x in f["workload"] if x})
        excluded = int((~measured).sum())
        w(f"FCT by flow size (finished flows{f', {excluded} in warm-up/cool-down left out' if excluded else ''}):")
        header = ["flow size", "flows", "mean", "median", "p99", "p99.9", "slowdown mean", "p99"]

        def table(keep):
            keep = keep & finished & measured
            return stats.fct_rows(f["size"][keep], f["fct_s"][keep], f["slowdown"][keep])

        rows = [("", table(np.ones(len(finished), dtype=bool)))]
        if len(workloads) > 1:
            rows += [(wl, table(f["workload"] == wl)) for wl in workloads]
        cells = []
        for wl, t in rows:
            if wl:
                cells.append([f"workload {wl}:"] + [""] * 7)
            for r in t:
                if r["count"] == 0:
                    continue
                cells.append([("  " if wl else "") + str(r["size_bin"]), f"{int(r['count']):,}", _fmt_time(r["fct_mean_s"]), _fmt_time(r["fct_p50_s"]),
                              _fmt_time(r["fct_p99_s"]), _fmt_time(r["fct_p999_s"]), f"{r['slowdown_mean']:.3f}", f"{r['slowdown_p99']:.3f}"])
        for line in format_table(header, cells):
            w(line)
    if s.get("deadline_flows"):
        w(f"deadlines: {s['deadline_flows']} flows decided, {100 * s['deadline_miss_fraction']:.1f} % missed")
    if res.circuit:
        v = res.circuit["voqs"]
        util = s.get("circuit_utilization")
        w(f"circuit: utilization {'-' if util is None else f'{100 * util:.1f} %'} (mean over the data pairs' days after warm-up), "
          f"{len(res.circuit['days'])} pair-days")
        lat = res.circuit["latency"].set_index("path").loc["all"]
        if lat["packets"]:
            w(f"  latency through the ToRs: p50 {lat['p50_us']:.1f} us, p99 {lat['p99_us']:.1f} us, p99.9 {lat['p999_us']:.1f} us "
              f"({int(lat['packets']):,} data packets)")
        if "cases" in res.circuit:
            c = res.circuit["cases"].iloc[0]
            w(f"  ToR packets: {int(c['mice']):,} mice/ACKs to the packet port, {int(c['today']):,} elephants to today's circuit, "
              f"{int(c['accelerated']):,} accelerated, {int(c['buffered']):,} buffered, {int(c['elephant_packet']):,} elephants by packet network")
            w(f"  ToR drops: {int(c['case4_drops']):,} case IV, {int(c['full_drops']):,} full queue, {int(c['stale_drops']):,} missed their day; "
              f"{int(c['overflow_lp']):,} overflowed to LP; elephants promoted {int(c['promoted'])}, departed {int(c['departed'])}")
            if c["mice_lp"] or c["elephant_hp"]:
                w(f"  by bytes left (lp_left): {int(c['mice_lp']):,} mice packets to LP, {int(c['elephant_hp']):,} elephant packets to HP")
            ew = res.circuit["elephant_weeks"]
            if len(ew):
                w(f"  elephants: weekly throughput p10/p50/p90 {ew['weekly_gbps'].quantile(0.1) * 1e3:.2f} / {ew['weekly_gbps'].median() * 1e3:.2f} / "
                  f"{ew['weekly_gbps'].quantile(0.9) * 1e3:.2f} Mb/s, daily p50 {ew['daily_gbps'].median() * 1e3:.2f} Mb/s "
                  f"({len(ew):,} elephant-weeks after warm-up)")
        else:
            w(f"  VOQs: {len(v)} in use, {int(v['drops'].sum()):,} drops, busiest mean {v['mean_packets'].max():.1f} / max "
              f"{int(v['max_packets'].max())} packets")
    p = res.port_columns()
    w("busiest ports (util = time the transmitter was busy / simulated time; counts in packets):")
    util = np.asarray(p["utilization"], dtype=float)
    # Descending in pandas' own order among equals (sort_values(ascending=False) reverses,
    # quicksorts and reverses again), so the report names the same ports as before.
    back = np.arange(len(util))[::-1]
    top = back[util[::-1].argsort(kind="quicksort")][::-1][:5]
    for line in format_table(["port", "util", "sent", "drops", "marks", "meanQ", "maxQ"],
                             [[p["port"][i], f"{p['utilization'][i]:.3f}", f"{p['tx_packets'][i]:,}", f"{p['drops'][i]:,}", f"{p['ecn_marks'][i]:,}",
                               f"{p['mean_queue_packets'][i]:,.1f}", f"{p['max_queue_packets'][i]:,}"] for i in top]):
        w(line)
    if "pcap" in s:
        w(f"pcap: {s.get('pcap_packets', 0):,} packet records" + (f", {s['pcap_left_out']:,} left out past max_packets" if s.get("pcap_left_out") else "")
          + (f"; traces in {out_dir}/pcap/ (tshark -r FILE)" if out_dir is not None else ""))
    if out_dir is not None:
        extra = ", circuit_*.parquet" if res.circuit else ""
        w(f"results written to {out_dir}/ (flows, ports, timeseries .parquet{extra}; summary.json)")


def pcap_overrides(a) -> list[str]:
    """--pcap TARGET (ports "s0->h0" or hosts "h1"), --pcap-flows, --pcap-window as scenario keys."""
    if not (a.pcap or a.pcap_flows or a.pcap_window):
        return []
    if not a.pcap:
        raise ScenarioError([("--pcap", "--pcap-flows and --pcap-window need --pcap TARGET (a port such as s0->h0, or a host)")], "run")
    import json

    ports = [t for t in a.pcap if "->" in t]
    hosts = [t for t in a.pcap if "->" not in t]
    out = [f"output.pcap.ports={json.dumps(ports)}", f"output.pcap.hosts={json.dumps(hosts)}"]
    if a.pcap_flows:
        try:
            flows = [int(x) for x in a.pcap_flows.split(",") if x.strip()]
        except ValueError:
            raise ScenarioError([("--pcap-flows", f"'{a.pcap_flows}' is not a comma-separated list of flow numbers such as 0,3")], "run") from None
        out.append(f"output.pcap.flows={json.dumps(flows)}")
    if a.pcap_window:
        parts = a.pcap_window.split(",")
        if len(parts) != 2:
            raise ScenarioError([("--pcap-window", f"'{a.pcap_window}' is not FROM,UNTIL such as 1ms,2ms")], "run")
        out += [f"output.pcap.from={json.dumps(parts[0].strip())}", f"output.pcap.until={json.dumps(parts[1].strip())}"]
    return out


def cmd_run(a) -> int:
    from .results import check_output_dir
    from .runner import run

    out = Path(a.output) if a.output else Path("results") / Path(a.scenario).stem
    check_output_dir(out, overwrite=not a.no_overwrite)  # before simulating, not after
    overrides = list(a.set or ()) + pcap_overrides(a)
    res = run(a.scenario, seed=a.seed, overrides=overrides, progress=False if a.no_progress else None)
    res.save(out, overwrite=not a.no_overwrite)
    if not a.quiet:
        print_report(res, out)
    if a.plot:
        from .plots import plot_results

        written = plot_results(res, out / "figures")
        if not a.quiet:
            print(f"figures written to {out / 'figures'}/ ({len(written)} files)")
    return 130 if res.summary.get("interrupted") else 0


def _check_output_root(out: Path) -> None:
    """A directory that will hold several outputs: it must be (or become) a writable directory."""
    from .errors import ResultsError

    if out.exists() and not out.is_dir():
        raise ResultsError(f"output '{out}' is a file, not a directory; choose another -o")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".fabricsim-probe"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise ResultsError(f"output '{out}' cannot be written: {e.strerror or e}") from None


def print_offered_load(doc, file=sys.stdout) -> None:
    """The offered-load lines of `validate` and `topology`, with a warning for each figure above 1."""
    from . import offered_load

    lo = offered_load(doc)
    if lo["downlink"] is None:
        print("offered load: no [[workload]] (listed flows and incast are not counted)", file=file)
        return
    print("offered load of the [[workload]]s (bits/s offered over capacity, all workloads at once):", file=file)
    rows = [("host downlink", lo["downlink"][1], f"{lo['downlink'][0]} (the most loaded link into a host)"),
            ("host uplink", lo["uplink"][1], f"{lo['uplink'][0]} (the most loaded host link out)")]
    if lo["core"] is not None:
        sw, direction, x = lo["core"]
        rows.append(("core", x, f"{sw}'s links to other switches, {direction} (the most loaded first-tier switch)"))
    for name, x, where in rows:
        print(f"  {name:<15}{x:>7.3f}  {where}", file=file)
    for name, x, where in rows:
        if x > 1:
            print(f"warning: the {name} is offered {x:.2f}x its capacity at {where.split(' (')[0]}: queues grow without bound "
                  "and flows will not finish; lower the load, or say in the scenario that overload is intended", file=file)


def print_warnings(doc) -> None:
    """One `warning: KEY: message` line on stderr per setting that runs but is probably not what
    was meant."""
    from .scenario import scenario_warnings

    for path, msg in scenario_warnings(doc):
        print(f"warning: {path}: {msg}", file=sys.stderr)


def cmd_validate(a) -> int:
    from .scenario import validate

    doc = validate(a.scenario, a.set or ())
    flows = doc.get("flows", [])
    print(f"{a.scenario}: valid ({len(flows)} flow{'s' if len(flows) != 1 else ''}, "
          f"topology {doc['topology'].get('kind')}, end {doc['simulation'].get('end')})")
    print_warnings(doc)
    print_offered_load(doc)
    return 0


def _fmt_table(wide) -> str:
    """The compare table as text: one row per (size bin, scheme), in the order given, with the
    mean FCT relative to the first scheme."""
    schemes = list(dict.fromkeys(c[1] for c in wide.columns))
    base = schemes[0]
    rows = []
    for bin_ in wide.index:
        for i, sc in enumerate(schemes):
            n = wide.loc[bin_, ("count", sc)]
            mean, p99 = wide.loc[bin_, ("fct_mean_s", sc)], wide.loc[bin_, ("fct_p99_s", sc)]
            smean, sp99 = wide.loc[bin_, ("slowdown_mean", sc)], wide.loc[bin_, ("slowdown_p99", sc)]
            ref = wide.loc[bin_, ("fct_mean_s", base)]
            ratio = f"{mean / ref:.3f}" if ref == ref and ref > 0 and mean == mean else "-"
            num = lambda v: f"{v:.3f}" if v == v else "-"  # noqa: E731
            rows.append([bin_ if i == 0 else "", sc, f"{int(n) if n == n else 0:,}", _fmt_time(mean), _fmt_time(p99), num(smean), num(sp99), ratio])
    return "\n".join(format_table(["flow size", "scheme", "flows", "mean FCT", "p99 FCT", "mean slowdown", "p99 slowdown",
                                    "mean FCT vs " + base], rows, indent="", left=2))


def _print_setups(setups: dict, mode: str) -> None:
    """The switch ports each transport runs on, one line per transport, before the runs."""
    from .ports import line

    if mode == "scenario":
        print("ports: --ports scenario: every transport runs on the scenario's switch ports as written, whatever its paper configures")
    width = max(len(t) for t, _ in setups)
    shown = set()
    for (t, _), s in setups.items():
        if t not in shown:
            shown.add(t)
            print(f"ports {t:<{width}}  {s['ports']:<8} {line(s)}; {s['note']}")
    print(flush=True)


def cmd_compare(a) -> int:
    from .compare import check_axes, check_loads_apply, compare, write
    from .scenario import load_scenario

    try:
        loads = [float(x) for x in a.loads.split(",")] if a.loads else None
    except ValueError:
        raise ScenarioError([("--loads", f"'{a.loads}' is not a comma-separated list of numbers such as 0.3,0.5")], "compare") from None
    transports = [t.strip() for t in a.transports.split(",") if t.strip()]
    if not transports:
        raise ScenarioError([("--transports", f"'{a.transports}' names no transport; give a comma-separated list such as dctcp,newreno")], "compare")
    transports, loads = check_axes(transports, loads)
    doc = load_scenario(a.scenario, a.set or ())
    check_loads_apply(doc, loads)
    out = Path(a.output) if a.output else Path("results") / (Path(a.scenario).stem + "-compare")
    _check_output_root(out)  # before simulating
    c = compare(doc, transports, loads=loads, seed=a.seed, progress=False if a.no_progress else None, ports=a.ports,
                on_setups=lambda setups: _print_setups(setups, a.ports))
    written = write(c, out)
    for load in (loads or [None]):
        runs = {t: r for (t, l), r in c.runs.items() if l == load}
        at = "" if load is None else f" at load {load:g}"
        if any(r.flows["fct_s"].notna().any() for r in runs.values()):
            print(f"FCT by flow size{at} (finished, measured flows):")
            print(_fmt_table(c.table(load)))
            print()
        rows = []
        for t, r in runs.items():
            s = r.summary
            p = r.ports.sort_values("utilization", ascending=False).iloc[0]
            gp = s["goodput_bytes"] * 8 / max(s["sim_time_s"], 1e-12) / 1e9
            rows.append([t, f"{gp:.3f} Gb/s", f"{int(r.flows['retransmits'].sum()):,}", f"{int(r.flows['timeouts'].sum()):,}",
                         p["port"], f"{p['utilization']:.3f}", f"{p['mean_queue_packets']:,.1f}", f"{int(r.ports['drops'].sum()):,}"])
        if at:
            print(at.strip() + ":")
        print("\n".join(format_table(["scheme", "goodput", "retransmits", "timeouts", "busiest port", "util", "mean Q", "drops"],
                                      rows, indent="")))
        print()
    st = c.stats()
    unfinished = st.groupby(["scheme", "load"], dropna=False)["unfinished"].first()
    # Items, not a boolean mask: the load level is NaN without --loads, which a MultiIndex
    # lookup can not find.
    left = {(t if l != l else f"{t} @ {l:g}"): int(n) for (t, l), n in unfinished.items() if n > 0}
    if left:
        print("unfinished flows (not in the statistics):", left)
    print(f"results and figures in {out}/: " + ", ".join(p.name for p in written))
    return 0


def cmd_plot(a) -> int:
    from . import plots
    from .results import Results

    dirs = [Path(d) for d in a.results]
    runs = {d.name: Results.load(d) for d in dirs}
    if len(runs) == 1:
        out = Path(a.output) if a.output else dirs[0] / "figures"
        written = plots.plot_results(next(iter(runs.values())), out)
    else:
        out = Path(a.output) if a.output else Path("figures")
        written = plots.save(plots.fct_cdf(runs), out / "fct_cdf") + plots.save(plots.slowdown_vs_size(runs), out / "slowdown_vs_size")
    if not written:
        print("nothing to plot: no finished flows and no time series (set [output] sample_interval and queues)")
        return 1
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


def cmd_topology(a) -> int:
    from . import _engine
    from .scenario import to_json, validate

    doc = validate(a.scenario, a.set or ())
    s = _engine.topology_summary(to_json(doc))
    print(f"topology {s['kind']}: {s['hosts']} hosts, {s['switches']} switches, {s['links']} links")
    print(f"  host capacity      {s['host_capacity_bps'] / 1e9:g} Gb/s in total")
    print(f"  ECMP paths         min {s['paths_min']}, mean {s['paths_mean']:.2f}, max {s['paths_max']} (between ordered host pairs)")
    print(f"  diameter           {s['diameter_hops']} links")
    if s["oversubscription"] is not None:
        print(f"  oversubscription   {s['oversubscription']:.3g}:1 (host capacity under a first-tier switch / its uplinks)")
        print(f"  bisection          {s['bisection_bps'] / 1e9:g} Gb/s")
    if s.get("tor"):
        print("  hybrid ToR")
        for key, value in s["tor"]:
            print(f"    {key:<16} {value}")
    print_offered_load(doc)
    return 0


def cmd_list(a) -> int:
    from . import congestion_controls, workloads

    if a.what in ("cc", "congestion-controls"):
        from . import cc_params
        from .ports import declarations

        ports = declarations()
        for name, desc in congestion_controls().items():
            print(f"{name:<11} {desc}")
            if name in ports and not desc.startswith("the same as"):
                print(f"{'':<13}switch: needs {ports[name][0]}; paper's ports: {ports[name][1]}")
            knobs = cc_params(name)
            if knobs and a.params:
                for k in knobs:
                    print(f"{'':<13}{k['name']} = {k['default']:g}  ({k['help']}; {k['min']:g}..{k['max']:g})")
        if a.params:
            print("\nSchemes (pias, l2dct-pias, flash, flash-ia, pfabric) take the knobs of their congestion control and "
                  "these transport keys: priority, priority_queues, pias_thresholds, flash_t1, flash_e, fixed_rto, "
                  "probe_after (docs/CONGESTION_CONTROL.md, docs/SCENARIOS.md)")
        else:
            print("\n(--params shows each algorithm's cc_params knobs and defaults)")
    elif a.what == "stacks":
        from . import _engine

        for name, desc in _engine.host_stacks():
            print(f"{name:<13} {desc}")
        print("\n([host] stack = \"NAME\" sets these as the defaults of every TCP profile; keys in [transport] win. "
              "docs/SCENARIOS.md \"[host]\")")
    elif a.what == "transports":
        from . import transports
        from .ports import declarations

        ports = declarations()
        for kind, (desc, params) in transports().items():
            print(f"{kind:<6} {desc}")
            if kind in ports:
                print(f"{'':<8}switch: needs {ports[kind][0]}; paper's ports: {ports[kind][1]}")
            elif kind == "tcp":
                print(f"{'':<8}switch: per congestion control and scheme (fabricsim list cc)")
            for p in params:
                print(f"{'':<8}{p['key']} = {p['default']}  ({p['help']})")
    else:
        print("\n".join(workloads()))
    return 0


def cmd_bench(a) -> int:
    from .bench import BENCHMARKS, run_benchmarks

    if a.list:
        for name, b in BENCHMARKS.items():
            print(f"{name:<22} {b.description}")
        return 0
    return run_benchmarks(a.names or [n for n, b in BENCHMARKS.items() if b.default], repeat=a.repeat, json_path=a.json)


def cmd_sweep(a) -> int:
    from .sweep import Sweep, run_sweep

    sweep = Sweep.load(a.sweep)
    out = a.output or f"sweeps/{sweep.name}"
    n = len(sweep.points())
    print(f"sweep '{sweep.name}': {n} runs into {out} ({a.executor} executor)", file=sys.stderr)
    if n:
        try:
            # Once, for the first point: its workers keep theirs to themselves.
            print_warnings(sweep.points()[0].scenario)
        except ScenarioError:
            pass  # a bad point is recorded as failed, with its error, while the others run
    r = run_sweep(sweep, out, executor=a.executor, workers=a.workers, scheduler=a.scheduler,
                  progress=not a.no_progress, retry_failed=not a.no_retry, overwrite=a.overwrite)
    print(f"{len(r.done)} run(s) done now, {r.skipped} already in the store, {len(r.failed)} failed, "
          f"{r.remaining} not run; {r.wall_s:.1f} s")
    for k, e in r.failed.items():
        line = " ".join((e or "").split())
        print(f"  failed {k} in {a.sweep}: {line[:400]}  (details: {out}/failed/{k}.json)")
    if r.interrupted:
        print(f"interrupted: finished runs are kept; run the same command again to complete the other {r.remaining}")
        return 130
    print(f"table: {out}/summary.parquet (fabricsim.sweep.load('{out}').table); report: fabricsim report {out}")
    return 1 if r.failed else 0


def cmd_report(a) -> int:
    from .report import report

    out = report(a.directory, a.output)
    print(f"wrote {out}")
    return 0


def check_only(paper: str, scale: str, only: str) -> list[str]:
    """--only's prefixes, each of which must select at least one of the paper's points: a typo
    would otherwise run nothing (or less than asked) and still print the whole table."""
    import importlib

    from .errors import UsageError

    prefixes = [o.strip() for o in only.split(",") if o.strip()]
    names = [name for name, _, _ in importlib.import_module(f"fabricsim.reproduce.{paper}").points(scale)]
    unmatched = [o for o in prefixes if not any(n.startswith(o) for n in names)]
    if not prefixes or unmatched:
        groups = ", ".join(dict.fromkeys(n.split("/")[0] + "/" for n in names))
        raise UsageError(f"--only '{only}': {', '.join(repr(o) for o in unmatched) or 'nothing'} selects no point of {paper} "
                         f"at scale {scale}; points start with {groups}")
    return prefixes


def cmd_reproduce(a) -> int:
    from .reproduce import PAPERS, RECORDED, last_run, reproduce

    if a.paper is None or a.paper == "list":
        import datetime

        from .reproduce.page import recorded_verdicts

        for name, desc in PAPERS.items():
            print(f"{name:<8} {desc}")
            print(f"{'':<8}   recorded (docs/reproductions/{name}.md): {RECORDED[name]}")
            got = last_run(name, a.output or ".")
            if got is not None:
                when = datetime.datetime.fromtimestamp(got.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
                page = got.parent / "report.html"
                print(f"{'':<8}   last run here ({got.parent}, {when}): {recorded_verdicts(got)}" + (f"; {page}" if page.exists() else ""))
        return 0
    if a.paper not in PAPERS:
        print(f"error: no reproduction '{a.paper}'; available: {', '.join(PAPERS)}", file=sys.stderr)
        return 2
    only = check_only(a.paper, a.scale, a.only) if a.only is not None else None
    if a.finished and a.dask:
        print("error: --finished runs nothing, so it takes no --dask", file=sys.stderr)
        return 2
    where = {"dask": a.dask} if a.dask else {}
    if a.finished:
        where["finished"] = True
    if a.changes is not None:
        import importlib

        from .reproduce.common import select_changes
        try:  # checked here so that a bad name stops before any output directory exists
            mod = importlib.import_module(f"fabricsim.reproduce.{a.paper}")
            select_changes(a.paper, mod.ARTIFACT, a.changes, a.model, getattr(mod, "READINGS", ()))
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        where["changes"] = a.changes
    reproduce(a.paper, scale=a.scale, output=a.output or f"reproduce-{a.paper}", jobs=a.jobs, progress=not a.no_progress, only=only,
              model=a.model, one_change=a.one_change, **where)
    return 0


def _seed(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if not 0 <= v < 2**64:
        raise argparse.ArgumentTypeError(f"{v} is out of range; seeds are 0 .. 2^64 - 1 = {2**64 - 1}")
    return v


def _positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"{v} is not a count; give 1 or more")
    return v


def _add_set(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a scenario key (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fabricsim",
        description="fabricsim: a fast, faithful packet-level simulator for datacenter networks.",
        epilog="Scenarios are TOML files; see docs/SCENARIOS.md and scenarios/. "
               "Run 'fabricsim COMMAND --help' for each command.",
    )
    p.add_argument("--version", action="version", version=f"fabricsim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser("run", help="run a scenario and write its results",
                       description="Run a scenario: validate it, simulate it with a progress bar, "
                                   "print a summary table and write Parquet + JSON results.",
                       epilog=EPILOG_RUN, formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("scenario", help="scenario TOML file")
    r.add_argument("-o", "--output", metavar="DIR", help="output directory (default: results/<scenario name>)")
    r.add_argument("--seed", type=_seed, help="override [simulation].seed (0 .. 2^64 - 1)")
    r.add_argument("--no-overwrite", action="store_true",
                   help="refuse to replace the results of an earlier run in the output directory (default: replace them whole)")
    _add_set(r)
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("-q", "--quiet", action="store_true", help="no summary table")
    r.add_argument("--plot", action="store_true", help="also draw the figures into DIR/figures (PNG + SVG)")
    r.add_argument("--pcap", action="append", metavar="TARGET",
                   help="write a pcap trace of a port ('s0->h0', quoted for the shell) or a host (h1) into DIR/pcap/ (repeatable; "
                        "same as [output.pcap] ports/hosts)")
    r.add_argument("--pcap-flows", metavar="N,M,...", help="with --pcap: only these flows")
    r.add_argument("--pcap-window", metavar="FROM,UNTIL", help="with --pcap: only packets sent in [FROM, UNTIL), e.g. 1ms,2ms")
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check a scenario without running it",
                       description="Check a scenario and list every problem with its key path, then print the "
                                   "offered load its workloads put on the most loaded host link and on the core, "
                                   "with a warning (not an error) for any above 1.")
    v.add_argument("scenario", help="scenario TOML file")
    _add_set(v)
    v.set_defaults(func=cmd_validate)

    c = sub.add_parser("compare", help="run one scenario under several transports, side by side",
                       description="Run a scenario once per transport (same seed, same flows), print FCT "
                                   "statistics per flow-size bin side by side, and write the results, a CSV "
                                   "and figures.",
                       epilog="examples:\n  fabricsim compare scenarios/leafspine-websearch.toml --transports dctcp,newreno\n"
                              "  fabricsim compare S.toml --transports dctcp,newreno --loads 0.3,0.5,0.7 -o out/\n\n"
                              "A transport is a profile from [transports] or a congestion control name; every flow,\n"
                              "workload and incast of the scenario uses it. --loads sets the total load of the [[workload]]s (a mix keeps its proportions).\n\n"
                              "Switch ports: by default each transport runs on the ports its paper configures (DCTCP: ECN\n"
                              "marking at K from the fabric's rate and RTT; NDP: trimming; Homa: priority queues; ...; see\n"
                              "`fabricsim list transports` and `list cc`), unless its profile in the scenario sets its own\n"
                              "[transports.NAME.ports]. The output starts with one line per transport naming the ports it ran on\n"
                              "(compare.csv has them as columns). --ports scenario runs every transport on the scenario's ports.",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("scenario", help="scenario TOML file")
    c.add_argument("--transports", required=True, metavar="A,B,...", help="comma-separated transports")
    c.add_argument("--loads", metavar="L1,L2,...", help="also sweep the workload load")
    c.add_argument("-o", "--output", metavar="DIR", help="output directory (default: results/<scenario>-compare)")
    c.add_argument("--seed", type=_seed, help="override [simulation].seed (the same for every run)")
    c.add_argument("--ports", choices=("paper", "scenario"), default="paper",
                   help="switch ports of each run: 'paper' (default) the setup each transport's paper configures, "
                        "unless its profile sets [transports.NAME.ports]; 'scenario' the scenario's [queue] for all")
    _add_set(c)
    c.add_argument("--no-progress", action="store_true", help="no progress bars")
    c.set_defaults(func=cmd_compare)

    pl = sub.add_parser("plot", help="draw figures from results directories",
                        description="Draw the figures that apply (FCT CDF, slowdown vs size, queue length and "
                                    "throughput over time) as PNG and SVG. With several directories, draw "
                                    "comparison figures.")
    pl.add_argument("results", nargs="+", help="results directories written by 'fabricsim run'")
    pl.add_argument("-o", "--output", metavar="DIR", help="where to write (default: DIR/figures, or ./figures)")
    pl.set_defaults(func=cmd_plot)

    tp = sub.add_parser("topology", help="summarize a scenario's topology",
                        description="Print hosts, switches, links, ECMP path counts, diameter, oversubscription "
                                    "and bisection bandwidth of a scenario's topology, and the offered load its "
                                    "workloads put on the most loaded host downlink, host uplink and first-tier "
                                    "switch uplinks (warning above 1).")
    tp.add_argument("scenario", help="scenario TOML file")
    _add_set(tp)
    tp.set_defaults(func=cmd_topology)

    ls = sub.add_parser("list", help="list congestion controls, transports, host stacks or built-in workloads",
                        description="List what scenarios can name: 'cc' (cc = \"...\" in [transport]), "
                                    "'transports' (kind = \"...\" in [transport], with their keys), "
                                    "'stacks' (stack = \"...\" in [host]: Linux kernels' TCP defaults) or "
                                    "'workloads' (cdf = \"...\" in [[workload]]).")
    ls.add_argument("what", choices=["cc", "congestion-controls", "transports", "stacks", "workloads"])
    ls.add_argument("--params", action="store_true", help="with cc: also each algorithm's cc_params knobs and defaults")
    ls.set_defaults(func=cmd_list)

    sw = sub.add_parser("sweep", help="run a scenario over axes of values, resumably, locally or on Dask",
                        description="Run every point of a sweep file once, into a store with one directory per run "
                                    "(named by a hash of its scenario), a manifest and a combined table. Re-running "
                                    "skips finished runs, so an interrupted sweep completes where it stopped; failed "
                                    "points are recorded with their error while the others go on.",
                        epilog=EPILOG_SWEEP, formatter_class=argparse.RawDescriptionHelpFormatter)
    sw.add_argument("sweep", help="sweep TOML file")
    sw.add_argument("-o", "--output", metavar="DIR", help="store directory (default: sweeps/<name>)")
    sw.add_argument("--executor", choices=["local", "dask"], default="local", help="local process pool (default) or Dask distributed")
    sw.add_argument("--workers", type=_positive, metavar="N", help="worker processes (local pool or Dask LocalCluster; default: all cores)")
    sw.add_argument("--scheduler", metavar="ADDR", help="an existing Dask scheduler, e.g. tcp://10.0.0.5:8786")
    sw.add_argument("--no-retry", action="store_true", help="do not retry points that failed before")
    sw.add_argument("--overwrite", action="store_true",
                    help="replace a store that holds another sweep (or this sweep over an edited base) instead of refusing")
    sw.add_argument("--no-progress", action="store_true", help="no progress bar")
    sw.set_defaults(func=cmd_sweep)

    rep = sub.add_parser("report", help="write a static HTML report of a run or a sweep",
                         description="Write one self-contained HTML page (tables and figures embedded) for a results "
                                     "directory (fabricsim run -o DIR) or a sweep store (fabricsim sweep -o DIR).")
    rep.add_argument("directory", help="results directory or sweep store")
    rep.add_argument("-o", "--output", metavar="FILE", help="where to write (default: DIR/report.html)")
    rep.set_defaults(func=cmd_report)

    rp = sub.add_parser("reproduce", help="reproduce a seed paper's experiments: paper vs ours",
                        description="Run a paper's key experiments on all cores, write the per-run results and the "
                                    "figures (the paper's stated values drawn on them), print a 'paper vs ours' table of "
                                    "its headline numbers with bands and pass/MISS marks, and write OUT/report.html, "
                                    "one page with all of it (docs/REPRODUCTIONS.md). 'list' shows each paper's last "
                                    "recorded verdict counts.",
                        epilog="examples:\n  fabricsim reproduce list\n  fabricsim reproduce retcp\n"
                               "  fabricsim reproduce retcp --scale paper -o out/retcp --jobs 2\n"
                               "  fabricsim reproduce retcp --only static/,resize/\n"
                               "  fabricsim reproduce flash --model artifact --one-change --only main/mix/\n"
                               "  fabricsim reproduce acceltor --scale paper --model artifact --changes=-case4-window --only compare/\n"
                               "  fabricsim reproduce acceltor --scale paper --model artifact --changes=+elephants-from-rack-0 --only compare/\n"
                               "  fabricsim reproduce sab --scale paper --dask tcp://head:8786 -o /shared/sab\n"
                               "  fabricsim reproduce sab --only incast/,eps/\n"
                               "  fabricsim reproduce ppt --scale paper -o /shared/ppt --finished   # where a long run stands\n"
                               "  fabricsim reproduce flash --only main/mix/,fast/   # points: main/WORKLOAD/LOAD/SCHEME, fast/, queues/, diag/\n"
                               "  fabricsim reproduce ppt --only main/websearch/,util/   # points: main/WORKLOAD/SCHEME, ablation/, delay/, delaymark/, util/, incast/, rc3buf/, others/, nonover/, sndbuf/, portk/\n"
                               "  fabricsim reproduce acceltor --only compare/,load/   # points: racks/N/SCHEME, compare/, bigbuf/, load/, margin/, queue/, cca/\n\n"
                               "The default (reduced) scale keeps every per-link parameter and runs shorter or fewer\n"
                               "experiments; --scale paper runs the paper's durations.",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    rp.add_argument("paper", nargs="?", help="which paper ('list' to see them)")
    rp.add_argument("--scale", choices=["reduced", "paper"], default="reduced", help="experiment size (default: reduced)")
    rp.add_argument("-o", "--output", metavar="DIR", help="output directory (default: reproduce-<paper>); with 'list', where "
                    "to look for the papers' outputs (DIR/reproduce-<paper> or DIR/<paper>; default: .)")
    rp.add_argument("--jobs", type=_positive, metavar="N", help="parallel runs (default: all cores)")
    rp.add_argument("--only", metavar="PREFIXES", help="run only points whose key starts with one of these (comma-separated)")
    rp.add_argument("--model", choices=["text", "artifact", "both"], default="both",
                    help="text: every choice from the paper's text; artifact: as the authors ran it (the text model plus "
                         "the behaviours of their public simulator code, each named and cited); both: side by side (default)")
    rp.add_argument("--dask", metavar="ADDRESS",
                    help="run the points on a Dask cluster: a scheduler's address (tcp://head:8786; its workers must see "
                         "the output directory at the same path) or 'local' for a LocalCluster of --jobs workers "
                         "(docs/SWEEPS.md, 'Reproductions on a cluster')")
    rp.add_argument("--one-change", action="store_true",
                    help="also run the central claims' points once per single artifact change and write one_change.csv: "
                         "which detail decides each claim")
    rp.add_argument("--changes", metavar="NAMES",
                    help="the artifact column with only these of the paper's changes on the text model (comma-separated, "
                         "as named in its docs and report: a group of changes), or with every change but those written "
                         "-NAME (--changes=-no-tlp-rack: leave one out); e.g. --changes no-tlp-rack,eps-fat-tree. "
                         "+NAME adds a behaviour read in the authors' code but not adopted (their text says otherwise), "
                         "to show both: --changes=+elephants-from-rack-0 is every change plus that reading, "
                         "--changes=none,+elephants-from-rack-0 the text model plus it. With "
                         "--one-change, one row per selected change")
    rp.add_argument("--finished", action="store_true",
                    help="run nothing: print and write the tables from the runs OUT's store already holds, the others "
                         "n/a (a paper-scale reproduction run in parts, even while another process is running it: "
                         "where it stands)")
    rp.add_argument("--no-progress", action="store_true", help="no progress bar")
    rp.set_defaults(func=cmd_reproduce)

    b = sub.add_parser("bench", help="run the speed benchmarks",
                       description="Run named benchmark scenarios with the installed (release) engine and "
                                   "print wall time, events/s, packet-hops/s, peak memory and the "
                                   "network figures to compare with other simulators.")
    b.add_argument("names", nargs="*", help="benchmarks to run, by name or B1..B7 (default: all but B7, the half-hour million-flow run; see --list)")
    b.add_argument("--list", action="store_true", help="list the benchmarks")
    b.add_argument("--repeat", type=_positive, default=1, metavar="N", help="runs per benchmark, each in a fresh process; wall time is the median")
    b.add_argument("--json", metavar="FILE", help="also write the figures as JSON ('-' for standard output)")
    b.set_defaults(func=cmd_bench)
    return p


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    if issubclass(category, ScenarioWarning):
        print(f"warning: {message}", file=sys.stderr)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def main(argv=None) -> int:
    parser = build_parser()
    a = parser.parse_args(argv)
    if a.command is None:
        parser.print_help()
        return 2
    try:
        with warnings.catch_warnings():
            # A ScenarioWarning (from `run`) as one line, each time, like the errors.
            warnings.simplefilter("always", ScenarioWarning)
            warnings.showwarning = _show_warning
            return a.func(a)
    except ScenarioError as e:
        # One problem on one line; several as a list under a heading.
        print(f"error: {e.one_line() if len(e.issues) == 1 else e}", file=sys.stderr)
        return 2
    except (FabricsimError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a disk full, a permission denied: the system's words, with the path
        print(f"error: {e.strerror or e}{f': {e.filename}' if e.filename else ''}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Ctrl-C outside a simulation (validating, saving, between runs): stores are written
        # atomically, so what is on disk is whole and the same command resumes.
        kept = "finished runs are kept and the same command resumes" if a.command in ("sweep", "reproduce") else "nothing more was written"
        print(f"interrupted: {kept}", file=sys.stderr)
        return 130
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001 - a bug (engine panics are BaseExceptions): one line, traceback on request
        if os.environ.get("FABRICSIM_TRACEBACK"):
            raise
        print(f"error: internal error ({type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}); "
              "set FABRICSIM_TRACEBACK=1 for the traceback and please report it", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
