"""`fabricsim bench`: named benchmark scenarios, timed with the installed (release) engine.

Figures printed: wall seconds, events/s, packet-hops/s (packets serialized onto links per wall
second), peak RSS of the process, and the network figures (bottleneck utilization, receiver
goodput, mean bottleneck queue) so the same scenario can be compared with other simulators.
Record new figures in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent / "benchmarks"


@dataclass(frozen=True)
class Benchmark:
    file: str
    bottleneck: str
    description: str


BENCHMARKS = {
    "dctcp-16to1": Benchmark(
        "dctcp-16to1.toml",
        "s0->h0",
        "B1: 16 long-lived DCTCP flows into one 10 Gb/s port (star, K = 65), 1 s simulated",
    ),
    "leafspine-websearch": Benchmark(
        "leafspine-websearch.toml",
        "leaf0->spine0",
        "B2: PPT's 144-host leaf-spine (40/100 Gb/s), DCTCP, web search at load 0.5, 20 000 flows",
    ),
    "rdcn-strobe": Benchmark(
        "rdcn-strobe.toml",
        "tor0->eps",
        "B3: reTCP paper's hybrid network, 25-rack strobe (180/20 us), 16 CUBIC flows, 16-pkt VOQs, 1 s simulated",
    ),
}


def jain(x: list[float]) -> float:
    """Jain's fairness index (1 = equal shares)."""
    s, s2 = sum(x), sum(v * v for v in x)
    return s * s / (len(x) * s2) if s2 else 1.0


def run_benchmark(name: str) -> dict:
    from .runner import run

    b = BENCHMARKS[name]
    t0 = time.perf_counter()
    res = run(HERE / b.file, progress=False)
    wall = time.perf_counter() - t0
    s = res.summary
    port = res.port(b.bottleneck)
    done = res.flows["fct_s"].notna()
    return {
        "name": name,
        "wall_s": wall,
        "engine_wall_s": s["engine_wall_s"],
        "events": s["events"],
        "events_per_s": s["events"] / s["engine_wall_s"],
        "packet_hops": s["packet_hops"],
        "packet_hops_per_s": s["packet_hops"] / s["engine_wall_s"],
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "bottleneck_utilization": float(port["utilization"]),
        "goodput_gbps": s["goodput_bytes"] * 8 / s["sim_time_s"] / 1e9,
        # Hybrid networks queue in the ToRs' VOQs (the busiest one), not behind the uplink port.
        "mean_queue_packets": float(res.circuit["voqs"]["mean_packets"].max()) if res.circuit else float(port["mean_queue_packets"]),
        "max_queue_packets": int(res.circuit["voqs"]["max_packets"].max()) if res.circuit else int(port["max_queue_packets"]),
        "drops": int(res.ports["drops"].sum()) + (int(res.circuit["voqs"]["drops"].sum()) if res.circuit else 0),
        # Fairness only means something among long-lived flows.
        "jain": jain(res.flows.loc[res.flows["size"].isna(), "bytes_acked"].astype(float).tolist())
        if res.flows["size"].isna().all() else None,
        "timeouts": int(res.flows["timeouts"].sum()),
        "flows": len(res.flows),
        "flows_finished": int(done.sum()),
        "sim_time_s": s["sim_time_s"],
        "mean_slowdown": float(res.flows.loc[done, "slowdown"].astype(float).mean()) if done.any() else float("nan"),
        "circuit_utilization": s.get("circuit_utilization"),
        "latency_p99_us": s.get("latency_p99_us"),
    }


def run_benchmarks(names: list[str]) -> int:
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"error: unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
        return 2
    for n in names:
        r = run_benchmark(n)
        print(f"{n}: {BENCHMARKS[n].description}")
        print(f"  wall time          {r['wall_s']:.3f} s (engine {r['engine_wall_s']:.3f} s)")
        print(f"  events             {r['events']:,}  ({r['events_per_s'] / 1e6:.2f} M events/s)")
        print(f"  packet-hops        {r['packet_hops']:,}  ({r['packet_hops_per_s'] / 1e6:.2f} M packet-hops/s)")
        print(f"  peak RSS           {r['peak_rss_mib']:.1f} MiB")
        line = f"  simulated          {r['sim_time_s']:.4f} s; {r['flows']} flows"
        if r["flows_finished"]:
            line += f", {r['flows_finished']} finished, mean slowdown {r['mean_slowdown']:.3f}"
        print(line)
        print(f"  util of {BENCHMARKS[n].bottleneck:<10} {r['bottleneck_utilization']:.4f}")
        print(f"  receiver goodput   {r['goodput_gbps']:.3f} Gb/s")
        print(f"  bottleneck queue   mean {r['mean_queue_packets']:.1f} pkts, max {r['max_queue_packets']} pkts")
        print(f"  drops / timeouts   {r['drops']} / {r['timeouts']}")
        if r["circuit_utilization"] is not None:
            print(f"  circuit            utilization {100 * r['circuit_utilization']:.1f} %, p99 latency {r['latency_p99_us']:.1f} us")
        if r["jain"] is not None:
            print(f"  Jain index         {r['jain']:.4f} (bytes acknowledged per flow)")
    return 0
