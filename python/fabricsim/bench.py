"""`fabricsim bench`: named benchmark scenarios, timed with the installed (release) engine.

Each repetition runs in a fresh process, so its peak RSS is its own: the figure reported is the
growth of the process's peak RSS over the run (the engine, plus the result frames), next to the
process's total. Figures: wall seconds (median over repetitions), events and events/s,
packet-hops (packets serialized onto links, data and control) and packet-hops/s, simulated seconds
per wall second, peak RSS, bytes of RSS per packet in flight at the peak, and the network figures
(bottleneck utilization, goodput, mean queue, drops, ...) so the same scenario can be compared
with other simulators. Record new figures in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

HERE = Path(__file__).parent / "benchmarks"


@dataclass(frozen=True)
class Benchmark:
    file: str
    #: The port whose utilization and queue to report: a name, "busiest" (the most utilized port
    #: of the run) or None for a permutation, which has no shared bottleneck.
    bottleneck: Optional[str]
    description: str
    #: Part of a plain `fabricsim bench` (B7 runs for half an hour: only when named).
    default: bool = True
    #: A function of this module that builds the scenario instead of `file` (B6's 196 000
    #: elephant flows are written out by code, not kept as a TOML file).
    build: Optional[str] = None
    #: What the summary's circuit figure is called (AccelToR's paper says "optical occupancy").
    circuit_metric: str = "utilization"


BENCHMARKS = {
    "dctcp-16to1": Benchmark(
        "dctcp-16to1.toml",
        "s0->h0",
        "B1: 16 long-lived DCTCP flows into one 10 Gb/s port (star, K = 65), 1 s simulated",
    ),
    "leafspine-websearch": Benchmark(
        "leafspine-websearch.toml",
        "busiest",
        "B2: PPT's 144-host leaf-spine (40/100 Gb/s), DCTCP, web search at load 0.5, 20 000 flows",
    ),
    "rdcn-strobe": Benchmark(
        "rdcn-strobe.toml",
        "tor0->eps",
        "B3: reTCP paper's hybrid network, 25-rack strobe (180/20 us), 16 CUBIC flows, 16-pkt VOQs, 1 s simulated",
    ),
    "fattree-permutation": Benchmark(
        "fattree-permutation.toml",
        None,
        "B4: htsim's DCTCP permutation: k = 12 fat tree (432 hosts), 10 Gb/s, 9000 B packets, K = 15, 210 ms simulated",
    ),
    "leafspine-websearch-1m": Benchmark(
        "leafspine-websearch-1m.toml",
        "busiest",
        "B7: B2 with 1 000 000 web-search flows (PPT's 144-host leaf-spine, DCTCP, load 0.5): peak memory and flows/s; ~30 min, only when named",
        default=False,
    ),
    "acceltor-50": Benchmark(
        "",
        "tor0->eps",
        "B6: AccelToR paper's network (Chen et al. §IV-B): 50 racks, 10/80 Gb/s uplinks, 240/20 us strobe, 80 NewReno elephants per rack pair (196 000 flows), web-search mice at 50 % of each EPS uplink, 30 ms simulated",
        build="acceltor_50",
        circuit_metric="optical occupancy",
    ),
    "fattree-k32": Benchmark(
        "",
        None,
        "B8: B4's permutation at scale: k = 32 fat tree (8 192 hosts, 1 280 switches), 5 ms simulated; set-up time and memory per host",
        build="fattree_k32",
    ),
    "fattree-k48": Benchmark(
        "",
        None,
        "B8 (k = 48): B4's permutation on a k = 48 fat tree (27 648 hosts, 2 880 switches), 5 ms simulated; only when named",
        default=False,
        build="fattree_k48",
    ),
    "ndp-permutation": Benchmark(
        "ndp-permutation.toml",
        None,
        "B5: htsim's NDP permutation: k = 12 fat tree (432 hosts), 10 Gb/s, 9000 B packets, 8-packet trimming queues, IW 23, 50 ms simulated",
    ),
}


def acceltor_50() -> dict:
    """B6: the AccelToR reproduction's 50-rack comparison network for 30 ms (2.35 weeks of 12.74 ms),
    no warm-up."""
    from .reproduce.acceltor import scenario

    doc = scenario(policy="acceltor", racks=50, weeks=3, warmup_weeks=0)
    doc["name"] = "acceltor-50"
    doc["simulation"]["end"] = "30ms"
    return doc


def derangement(n: int) -> list[int]:
    """B4's permutation partners at n hosts: random.Random(n) shuffles until no host is its own
    partner (B4's flows at n = 432; also the htsim comparison and the lookahead experiment's)."""
    import random

    rng = random.Random(n)
    while True:
        perm = list(range(n))
        rng.shuffle(perm)
        if all(i != p for i, p in enumerate(perm)):
            return perm


def fattree_permutation(k: int, end: str = "5ms") -> dict:
    """B4's scenario (fattree-permutation.toml: links, buffers, marking, DCTCP settings) on a k-ary
    fat tree with B4's kind of derangement of its k^3/4 hosts."""
    from .scenario import load_scenario

    doc = load_scenario(HERE / "fattree-permutation.toml")
    perm = derangement(k**3 // 4)
    doc["name"] = f"fattree-permutation-k{k}"
    doc["simulation"]["end"] = end
    doc["topology"]["k"] = k
    doc["flows"] = [{"src": f"h{i}", "dst": f"h{p}"} for i, p in enumerate(perm)]
    return doc


def fattree_k32() -> dict:
    return fattree_permutation(32)


def fattree_k48() -> dict:
    return fattree_permutation(48)


def jain(x: list[float]) -> float:
    """Jain's fairness index (1 = equal shares)."""
    s, s2 = sum(x), sum(v * v for v in x)
    return s * s / (len(x) * s2) if s2 else 1.0


def pick_bottleneck(ports, spec: Optional[str]) -> Optional[str]:
    """The port a benchmark reports as its bottleneck: `spec` itself, the most utilized port of
    the run for "busiest", or None (a permutation has no shared bottleneck)."""
    if spec == "busiest":
        return str(ports.loc[ports["utilization"].idxmax(), "port"])
    return spec


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_benchmark(name: str) -> dict:
    """Run one benchmark in this process and return its figures."""
    from .runner import run

    b = BENCHMARKS[name]
    base_rss = _rss_mib()
    t0 = time.perf_counter()
    res = run(globals()[b.build]() if b.build else HERE / b.file, progress=False)
    wall = time.perf_counter() - t0
    peak_rss = _rss_mib()
    s = res.summary
    port_name = pick_bottleneck(res.ports, b.bottleneck)
    port = res.port(port_name) if port_name else None
    done = res.flows["fct_s"].notna()
    # Long-lived flows: each one's rate over its lifetime, and the receivers' links as the capacity.
    long = res.flows[res.flows["size"].isna()]
    rates = long["bytes_acked"].astype(float) * 8 / (s["sim_time_s"] - long["start_s"]) / 1e9
    host_gbps = res.ports.loc[res.ports["peer"].isin(set(long["dst"])), "rate_bps"].min() / 1e9 if len(long) else float("nan")
    ports = res.ports
    grow = max(peak_rss - base_rss, 0.0)
    peak_pkts = s["peak_packets_in_flight"]
    return {
        "name": name,
        "wall_s": wall,
        "engine_wall_s": s["engine_wall_s"],
        "events": s["events"],
        "events_per_s": s["events"] / s["engine_wall_s"],
        "packet_hops": s["packet_hops"],
        "packet_hops_per_s": s["packet_hops"] / s["engine_wall_s"],
        "sim_s_per_wall_s": s["sim_time_s"] / s["engine_wall_s"],
        # Reading, validating and building (routes, paths, flows) before the first event.
        "setup_wall_s": s.get("setup_wall_s"),
        # Hosts that send or receive (all of them in a permutation), for memory per host.
        "hosts": len(set(res.flows["src"]) | set(res.flows["dst"])),
        "process_peak_rss_mib": peak_rss,
        "run_peak_rss_mib": grow,
        "peak_packets_in_flight": peak_pkts,
        "rss_bytes_per_packet_in_flight": grow * 2**20 / peak_pkts if peak_pkts else None,
        "bottleneck": port_name,
        "bottleneck_utilization": float(port["utilization"]) if port is not None else None,
        "mean_link_utilization": float(ports["utilization"].mean()),
        "goodput_gbps": s["goodput_bytes"] * 8 / s["sim_time_s"] / 1e9,
        # Hybrid networks queue in the ToRs' VOQs (the busiest one), not behind the uplink port.
        "mean_queue_packets": float(res.circuit["voqs"]["mean_packets"].max()) if res.circuit
        else float(port["mean_queue_packets"]) if port is not None else None,
        "max_queue_packets": int(res.circuit["voqs"]["max_packets"].max()) if res.circuit
        else int(port["max_queue_packets"]) if port is not None else None,
        "drops": int(ports["drops"].sum()) + (int(res.circuit["voqs"]["drops"].sum()) if res.circuit else 0),
        # Fairness only means something among long-lived flows.
        "jain": jain(res.flows.loc[res.flows["size"].isna(), "bytes_acked"].astype(float).tolist())
        if res.flows["size"].isna().all() else None,
        "timeouts": int(res.flows["timeouts"].sum()),
        # As the NDP paper reports a permutation: mean flow rate over the host link rate, and the
        # slowest flow's rate (bytes acknowledged cumulatively, so a late hole counts against it).
        "permutation_utilization": float(rates.mean() / host_gbps) if len(long) else None,
        "slowest_flow_gbps": float(rates.min()) if len(long) else None,
        "trims": int(res.ports["trims"].sum()),
        "flows": len(res.flows),
        "flows_per_s": len(res.flows) / s["engine_wall_s"],
        "flows_finished": int(done.sum()),
        "sim_time_s": s["sim_time_s"],
        "mean_slowdown": float(res.flows.loc[done, "slowdown"].astype(float).mean()) if done.any() else float("nan"),
        "circuit_utilization": s.get("circuit_utilization"),
        "latency_p99_us": s.get("latency_p99_us"),
    }


def _in_subprocess(name: str) -> dict:
    code = "import json, sys; from fabricsim.bench import run_benchmark; print(json.dumps(run_benchmark(sys.argv[1])))"
    p = subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"benchmark {name} failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def measure(name: str, repeat: int = 1) -> dict:
    """`repeat` runs in fresh processes; the wall figures are medians, the rest from the first."""
    runs = [_in_subprocess(name) for _ in range(repeat)]
    r = dict(runs[0])
    for k in ("wall_s", "engine_wall_s"):
        r[k] = statistics.median(x[k] for x in runs)
    for k, n in (("events_per_s", "events"), ("packet_hops_per_s", "packet_hops"), ("sim_s_per_wall_s", "sim_time_s")):
        r[k] = r[n] / r["engine_wall_s"]
    r["repeat"] = repeat
    r["engine_wall_s_all"] = [x["engine_wall_s"] for x in runs]
    return r


def print_result(r: dict) -> None:
    n = r["name"]
    print(f"{n}: {BENCHMARKS[n].description}")
    reps = f", median of {r['repeat']}: {', '.join(f'{w:.3f}' for w in r['engine_wall_s_all'])}" if r["repeat"] > 1 else ""
    print(f"  wall time          {r['engine_wall_s']:.3f} s in the engine{reps} ({r['wall_s']:.3f} s with Python)")
    print(f"  events             {r['events']:,}  ({r['events_per_s'] / 1e6:.2f} M events/s)")
    print(f"  packet-hops        {r['packet_hops']:,}  ({r['packet_hops_per_s'] / 1e6:.2f} M packet-hops/s)")
    print(f"  speed              {r['sim_s_per_wall_s']:.4g} simulated s per wall s")
    per = r["rss_bytes_per_packet_in_flight"]
    per_s = f", {per:,.0f} B per packet in flight at the peak ({r['peak_packets_in_flight']:,})" if per else ""
    print(f"  peak RSS           {r['run_peak_rss_mib']:.1f} MiB for the run{per_s}; process {r['process_peak_rss_mib']:.1f} MiB")
    if r.get("setup_wall_s") is not None:
        total = r["setup_wall_s"] + r["engine_wall_s"]
        print(f"  set-up             {r['setup_wall_s']:.3f} s reading, validating and building before the first event "
              f"({100 * r['setup_wall_s'] / total:.1f} % of set-up + simulation); {r['run_peak_rss_mib'] * 1024 / max(r['hosts'], 1):.1f} KiB of "
              f"peak RSS per host ({r['hosts']:,} hosts with traffic)")
    line = f"  simulated          {r['sim_time_s']:.4f} s; {r['flows']} flows ({r['flows_per_s']:,.0f} flows per wall s)"
    if r["flows_finished"]:
        line += f", {r['flows_finished']} finished, mean slowdown {r['mean_slowdown']:.3f}"
    print(line)
    if r["bottleneck"]:
        print(f"  utilization        {r['bottleneck']} {r['bottleneck_utilization']:.4f}; mean over links {r['mean_link_utilization']:.4f}")
    else:
        print(f"  utilization        no shared bottleneck (a permutation); mean over links {r['mean_link_utilization']:.4f}")
    print(f"  receiver goodput   {r['goodput_gbps']:.3f} Gb/s")
    if r["mean_queue_packets"] is not None:
        print(f"  bottleneck queue   mean {r['mean_queue_packets']:.1f} pkts, max {r['max_queue_packets']} pkts")
    print(f"  drops / timeouts   {r['drops']} / {r['timeouts']}")
    if r["circuit_utilization"] is not None:
        print(f"  circuit            {BENCHMARKS[n].circuit_metric} {100 * r['circuit_utilization']:.1f} %, p99 latency {r['latency_p99_us']:.1f} us")
    if r.get("slowest_flow_gbps") is not None and r["flows_finished"] == 0:
        print(f"  long-lived flows   utilization {100 * r['permutation_utilization']:.1f} % of the host links, slowest flow {r['slowest_flow_gbps']:.2f} Gb/s; {r['trims']} trims")
    if r["jain"] is not None:
        print(f"  Jain index         {r['jain']:.4f} (bytes acknowledged per flow)")


def resolve(name: str) -> Optional[str]:
    """A benchmark's key from its key or its short name in README and docs/PERFORMANCE.md
    ("B4", "b4"), or None."""
    if name in BENCHMARKS:
        return name
    return next((k for k, b in BENCHMARKS.items() if b.description.split(":")[0].lower() == name.lower()), None)


def check_json_path(json_path: str) -> None:
    """Refuse, before an hour of benchmarks, a --json file that cannot be written."""
    from .errors import ResultsError

    p = Path(json_path)
    if p.is_dir():
        raise ResultsError(f"--json '{p}' is a directory; give a file name")
    existed = p.exists()
    try:
        with open(p, "a"):
            pass
    except OSError as e:
        raise ResultsError(f"--json '{p}' cannot be written: {e.strerror or e}") from None
    if not existed:
        p.unlink()


def run_benchmarks(names: list[str], repeat: int = 1, json_path: Optional[str] = None) -> int:
    from .errors import UsageError

    keys = [resolve(n) for n in names]
    unknown = [n for n, k in zip(names, keys) if k is None]
    if unknown:
        short = ", ".join(f"{b.description.split(':')[0]} {k}" for k, b in BENCHMARKS.items())
        raise UsageError(f"unknown benchmark(s) {', '.join(unknown)}; known: {short}")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise UsageError(f"repeat {repeat!r} is not a count of runs; give 1 or more")
    if json_path and json_path != "-":
        check_json_path(json_path)
    names = keys
    results = []
    for n in names:
        r = measure(n, repeat)
        print_result(r)
        results.append(r)
    if json_path:
        text = json.dumps(results, indent=1) + "\n"
        if json_path == "-":
            sys.stdout.write(text)
        else:
            Path(json_path).write_text(text)
    return 0
