"""Lookahead windows of a partitioned fat tree, measured on B4-like permutations (docs/PARALLEL.md).

A conservative parallel engine with the link delay as lookahead L runs simulated time in windows
of L: every partition processes its events of the window, then all exchange the packets that
crossed the cut and meet at a barrier. What such an engine would gain depends on how many events
a window holds per partition, how evenly they fall, and how many packets cross the cut — this
script measures those on today's sequential engine, from its own outputs, with no engine change:

* the run is stepped one window at a time (``Simulation.run_until``); after each window the
  engine's event counter gives the window's events exactly, and the ports table
  (``Simulation.ports``: transmissions and bytes per port) gives every port's transmissions in
  the window, split into data packets and ACKs by their sizes;
* a partition's events in a window are estimated from where those transmissions act: each packet
  arrives (an ``Arrive`` event) at the port's peer node one serialization plus one propagation
  later (whole windows: +8 for a 9000 B data packet, +1 for an ACK, at 10 Gb/s and 1 µs), and the
  rest of the events (freed transmitters, timers) fall where transmissions start; the estimates
  are scaled so that the partitions of a window add up to the measured count;
* packets crossing the cut are the transmissions on ports whose node and peer lie in different
  partitions.

From these it prints, per fabric size and partitioning, events per window (mean, p50, p99)
overall and per partition, packets crossing the cut per window, the load imbalance (max/mean
partition share) and the speed-up on P cores of a window-synchronous engine for a barrier cost B:
sequential time sum_w E_w·c over parallel time sum_w (max_p (E_wp·c + X_wp·m) + B), c the cost
of an event, m that of receiving a packet from another partition, X_wp the packets partition p
receives in window w.

Usage (from the repository root, with the package installed):

    python benches/parallel/lookahead.py --sizes 12,16 --warmup 1ms --windows 1000

The pure computations (partition assignment, window statistics, the speed-up model) are
functions of plain arrays, tested in tests/test_parallel_lookahead.py.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
B4 = ROOT / "python" / "fabricsim" / "benchmarks" / "fattree-permutation.toml"

PS_PER_US = 1_000_000

# --------------------------------------------------------------------------------------------
# Fat-tree nodes and partitions (pure)
# --------------------------------------------------------------------------------------------

_NAME = re.compile(r"^(h|edge|agg|core)(\d+)(?:_(\d+))?$")


def parse_node(name: str) -> tuple[str, int, int]:
    """(kind, a, b) of a fat-tree node by the engine's names (scenario/parse.rs, `fat_tree`):
    host h{i} → ("h", i, 0), edge{p}_{i} → ("edge", p, i), agg{p}_{i} → ("agg", p, i),
    core{i} → ("core", i, 0)."""
    m = _NAME.match(name)
    if not m:
        raise ValueError(f"{name!r} is not a fat-tree node name")
    return m.group(1), int(m.group(2)), int(m.group(3) or 0)


def unit_of(name: str, k: int, unit: str) -> Optional[int]:
    """The placement unit of a node: its pod (unit = "pod", 0 .. k-1) or its rack (unit = "rack",
    0 .. k²/2 - 1: edge switch p_i, the k/2 hosts below it, and aggregation switch p_i — a pod
    has as many aggregation as edge switches). None for a core switch (placed by `partition_of`).
    Host h_x hangs off edge switch x // (k/2), in pod x // (k/2)² (Al-Fares et al. numbering, as
    parse.rs builds it)."""
    half = k // 2
    kind, a, b = parse_node(name)
    if kind == "core":
        return None
    if kind == "h":
        rack = a // half
    else:
        rack = a * half + b
    return rack // half if unit == "pod" else rack


def n_units(k: int, unit: str) -> int:
    return k if unit == "pod" else k * k // 2


def partition_of(name: str, k: int, parts: int, unit: str = "pod", cores: str = "spread") -> int:
    """Partition of a fat-tree node when the fabric's units (pods or racks) are dealt in
    contiguous blocks to `parts` partitions (unit u → u·parts // units). Core switches: "spread"
    deals the (k/2)² cores evenly over the units (core c with unit c·units // (k/2)²; each core
    has one link into every pod, so any spreading cuts as many core links); "own" gives all cores
    an extra partition, number `parts`."""
    units = n_units(k, unit)
    if not 1 <= parts <= units:
        raise ValueError(f"{parts} partitions of {units} {unit}s")
    u = unit_of(name, k, unit)
    if u is None:
        _, c, _ = parse_node(name)
        if cores == "own":
            return parts
        u = c * units // (k // 2) ** 2
    return u * parts // units


@dataclass(frozen=True)
class Scheme:
    """A partitioning: `parts` blocks of pods or racks, cores spread or on their own."""

    parts: int
    unit: str = "pod"
    cores: str = "spread"

    @property
    def n(self) -> int:
        return self.parts + (self.cores == "own")

    def label(self) -> str:
        core = "cores own partition" if self.cores == "own" else "cores spread"
        return f"{self.n} partitions: {self.parts} × {self.unit} blocks, {core}"


def port_partitions(nodes: Sequence[str], peers: Sequence[str], k: int, s: Scheme) -> tuple[np.ndarray, np.ndarray]:
    """Partition of each port's node (where its transmitter and freed-transmitter events run) and
    of its peer (where its packets arrive)."""
    memo: dict[str, int] = {}

    def part(n: str) -> int:
        if n not in memo:
            memo[n] = partition_of(n, k, s.parts, s.unit, s.cores)
        return memo[n]

    return np.array([part(n) for n in nodes], dtype=np.int64), np.array([part(n) for n in peers], dtype=np.int64)


# --------------------------------------------------------------------------------------------
# Window statistics and the speed-up model (pure)
# --------------------------------------------------------------------------------------------


def window_stats(x) -> dict:
    """Mean, median, 99th percentile and maximum of a series (numpy's linear percentiles)."""
    a = np.asarray(x, dtype=float).ravel()
    if a.size == 0:
        return {"mean": 0.0, "p50": 0.0, "p99": 0.0, "max": 0.0}
    return {"mean": float(a.mean()), "p50": float(np.percentile(a, 50)), "p99": float(np.percentile(a, 99)), "max": float(a.max())}


def split_data_acks(packets, nbytes, data_size: int, ack_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Data packets and ACKs among `packets` transmissions of `nbytes` bytes, when every packet is
    either `data_size` or `ack_size` bytes: data = (bytes - packets·ack) / (data - ack)."""
    packets = np.asarray(packets, dtype=np.int64)
    nbytes = np.asarray(nbytes, dtype=np.int64)
    data = (nbytes - packets * ack_size) // (data_size - ack_size)
    if np.any(data < 0) or np.any(data > packets) or np.any(data * data_size + (packets - data) * ack_size != nbytes):
        raise ValueError("bytes are not a mix of data packets and ACKs of the given sizes")
    return data, packets - data


def shift(a: np.ndarray, windows: int) -> np.ndarray:
    """Rows moved `windows` later (what starts in window w acts in window w + windows); the first
    rows become 0."""
    out = np.zeros_like(a)
    if windows < len(a):
        out[windows:] = a[: len(a) - windows]
    return out


def partition_events(events: np.ndarray, arrivals: np.ndarray, starts: np.ndarray, rho: float) -> np.ndarray:
    """Events per window and partition, (W, P): each window's measured count `events[w]` shared
    in proportion to arrivals[w, p] + rho·starts[w, p] (packets arriving at the partition's nodes,
    and transmissions its ports start, weighted by rho = the non-arrival events per transmission).
    A window with no packet activity is shared equally."""
    weight = arrivals + rho * starts
    total = weight.sum(axis=1, keepdims=True)
    p = weight.shape[1]
    share = np.where(total > 0, weight / np.where(total > 0, total, 1), 1.0 / p)
    return events[:, None] * share


def group_sum(a: np.ndarray, labels: np.ndarray, n: int) -> np.ndarray:
    """Column sums of `a` (W, ports) by label: (W, n), column j = sum of the columns labelled j."""
    out = np.zeros((a.shape[0], n), dtype=np.int64)
    for j in range(n):
        cols = labels == j
        if cols.any():
            out[:, j] = a[:, cols].sum(axis=1, dtype=np.int64)
    return out


def imbalance(e_wp: np.ndarray) -> float:
    """Max over partitions of its share of all events, over the mean share (1 = balanced)."""
    per = e_wp.sum(axis=0)
    return float(per.max() / per.mean()) if per.sum() > 0 else 1.0


def speedup(e_wp: np.ndarray, x_wp: np.ndarray, event_ns: float, barrier_ns: float, msg_ns: float) -> float:
    """Sequential time over window-synchronous parallel time. Sequential: every event costs
    `event_ns`. Parallel, per window: the slowest partition's events plus the packets it receives
    from other partitions (`msg_ns` each), then one barrier."""
    seq = e_wp.sum() * event_ns
    par = ((e_wp * event_ns + x_wp * msg_ns).max(axis=1) + barrier_ns).sum()
    return float(seq / par) if par > 0 else 1.0


# --------------------------------------------------------------------------------------------
# The experiment (runs the engine)
# --------------------------------------------------------------------------------------------


def derangement(n: int) -> list[int]:
    """B4's permutation partners at n hosts (fabricsim.bench.derangement)."""
    from fabricsim.bench import derangement as b4_derangement

    return b4_derangement(n)


def scenario(k: int, end_ps: int) -> dict:
    """B4's scenario (its TOML's settings) at size k and end time, one long-lived flow per host
    to its partner in a seeded derangement (for k = 12 exactly B4's flows)."""
    from fabricsim.scenario import read_toml

    doc = read_toml(B4)
    doc["name"] = f"fattree-permutation-k{k}"
    doc["topology"]["k"] = k
    doc["simulation"]["end"] = f"{end_ps}ps"
    n = k**3 // 4
    doc["flows"] = [{"src": f"h{i}", "dst": f"h{p}"} for i, p in enumerate(derangement(n))]
    return doc


@dataclass
class Run:
    k: int
    ports: int
    nodes: list
    peers: list
    window_ps: int
    warmup_ps: int
    events: np.ndarray  # (W,) measured
    tx: np.ndarray  # (W, ports) transmissions started
    data: np.ndarray  # (W, ports) of which data packets
    summary: dict = field(default_factory=dict)
    wall_s: float = 0.0
    data_size: int = 0
    ack_size: int = 0
    delay_ps: int = 0
    rate_bps: int = 0


def measure(k: int, warmup_ps: int, windows: int, window_ps: int) -> Run:
    from fabricsim import _engine
    from fabricsim.scenario import to_json, validate

    doc = scenario(k, warmup_ps + windows * window_ps)
    if k == 12:
        # The script's k = 12 permutation is B4's own (same rule, same seed): check it.
        from fabricsim.scenario import read_toml

        assert doc["flows"] == read_toml(B4)["flows"], "B4's flows differ from derangement(432)"
    tcp = doc["transport"]
    data_size, ack_size = _bytes(tcp["mss"]) + _bytes(tcp["header"]), int(tcp.get("ack_size", 52))
    t0 = time.perf_counter()
    sim = _engine.Simulation(to_json(validate(doc)))
    sim.run_until(warmup_ps)
    p = sim.ports()
    nodes, peers = p["node"], p["peer"]
    rates = set(p["rate_bps"])
    if len(rates) != 1:
        raise SystemExit(f"the window model assumes one link rate, found {sorted(rates)}")
    n = len(nodes)
    prev_pk = np.asarray(p["tx_packets"], dtype=np.int64)
    prev_by = np.asarray(p["tx_bytes"], dtype=np.int64)
    prev_ev = sim.events
    ev = np.zeros(windows, dtype=np.int64)
    tx = np.zeros((windows, n), dtype=np.uint8)
    dt = np.zeros((windows, n), dtype=np.uint8)
    for w in range(windows):
        sim.run_until(warmup_ps + (w + 1) * window_ps)
        p = sim.ports()
        pk = np.asarray(p["tx_packets"], dtype=np.int64)
        by = np.asarray(p["tx_bytes"], dtype=np.int64)
        d, _ = split_data_acks(pk - prev_pk, by - prev_by, data_size, ack_size)
        if (pk - prev_pk).max(initial=0) > 255:
            raise SystemExit("more than 255 transmissions on one port in one window: shorten the window")
        tx[w], dt[w] = pk - prev_pk, d
        ev[w] = sim.events - prev_ev
        prev_pk, prev_by, prev_ev = pk, by, sim.events
    wall = time.perf_counter() - t0
    delay = _delay_ps(doc["topology"]["link"]["delay"])
    return Run(k, n, nodes, peers, window_ps, warmup_ps, ev, tx, dt, sim.summary(), wall, data_size, ack_size, delay, rates.pop())


def _bytes(s: str) -> int:
    m = re.fullmatch(r"(\d+)B", s)
    if not m:
        raise ValueError(f"{s!r}: expected a byte count such as '8948B'")
    return int(m.group(1))


def _delay_ps(s: str) -> int:
    """Picoseconds of a time such as '1us', '2.5ms' (ps, ns, us, ms)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ps|ns|us|ms)", s)
    if not m:
        raise ValueError(f"{s!r}: expected a time such as '1us' or '2ms'")
    return round(float(m.group(1)) * {"ps": 1, "ns": 1e3, "us": 1e6, "ms": 1e9}[m.group(2)])


@dataclass
class Analysis:
    scheme: Scheme
    e_wp: np.ndarray
    x_wp: np.ndarray
    cut_per_window: np.ndarray
    cut_share: float


def analyse(run: Run, s: Scheme) -> Analysis:
    """Events per window and partition, and packets crossing the cut, for one partitioning.
    Windows whose arrivals began before the first measured window (the first `data shift`
    windows) are dropped."""
    own, peer = port_partitions(run.nodes, run.peers, run.k, s)
    cut = own != peer
    P = s.n
    tx, data = run.tx, run.data
    acks = tx - data  # uint8: data <= tx
    ser = lambda size: size * 8 * 10**12 // run.rate_bps  # noqa: E731
    sh_data = (ser(run.data_size) + run.delay_ps) // run.window_ps
    sh_ack = (ser(run.ack_size) + run.delay_ps) // run.window_ps
    starts = group_sum(tx, own, P)
    arrivals = shift(group_sum(data, peer, P), sh_data) + shift(group_sum(acks, peer, P), sh_ack)
    cut_in = np.where(cut, peer, P)  # ports inside a partition go to a discarded column P
    x_wp = shift(group_sum(data, cut_in, P + 1)[:, :P], sh_data) + shift(group_sum(acks, cut_in, P + 1)[:, :P], sh_ack)
    hops = int(tx.sum(dtype=np.int64))
    rho = max(run.events.sum() / hops - 1.0, 0.0) if hops else 0.0
    e_wp = partition_events(run.events.astype(float), arrivals, starts, rho)
    skip = max(sh_data, sh_ack)
    cut_w = tx[:, cut].sum(axis=1, dtype=np.int64)
    return Analysis(s, e_wp[skip:], x_wp[skip:], cut_w[skip:], float(cut_w.sum() / hops) if hops else 0.0)


def fmt(d: dict, digits: int = 0) -> str:
    return f"{d['mean']:.{digits}f} / {d['p50']:.{digits}f} / {d['p99']:.{digits}f}"


def report(run: Run, schemes: Sequence[Scheme], event_ns: float, barriers_us: Sequence[float], msg_ns: float) -> list[dict]:
    s = run.summary
    W = len(run.events)
    hops = int(run.tx.sum())
    print(f"\n## k = {run.k}: {run.k**3 // 4} hosts, {5 * run.k**2 // 4} switches, {run.ports} ports")
    print(
        f"windows of {run.window_ps / PS_PER_US:g} µs from {run.warmup_ps / PS_PER_US:g} µs to {(run.warmup_ps + W * run.window_ps) / PS_PER_US:g} µs: "
        f"{int(run.events.sum()):,} events, {hops:,} transmissions ({run.events.sum() / max(hops, 1):.3f} events per transmission); "
        f"whole run {s.get('events', 0):,} events, {s.get('packet_hops', 0):,} packet-hops; wall {run.wall_s:.1f} s (shared machine: not a speed figure)"
    )
    st = window_stats(run.events)
    print(f"events per window, whole fabric: mean {st['mean']:.0f}, p50 {st['p50']:.0f}, p99 {st['p99']:.0f}, max {st['max']:.0f}")
    rows = []
    head = "| partitions | events/window per partition mean / p50 / p99 | busiest partition per window mean / p99 | cut packets/window mean / p50 / p99 | cut share of hops | imbalance | ideal S | " + " | ".join(
        f"S at B = {b:g} µs" for b in barriers_us
    ) + " |"
    print()
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for sc in schemes:
        a = analyse(run, sc)
        per = window_stats(a.e_wp)
        busiest = window_stats(a.e_wp.max(axis=1))
        cut = window_stats(a.cut_per_window)
        imb = imbalance(a.e_wp)
        sp = [speedup(a.e_wp, a.x_wp, event_ns, b * 1000, msg_ns) for b in barriers_us]
        ideal = speedup(a.e_wp, a.x_wp, 1.0, 0.0, 0.0)
        print(
            f"| {sc.label()} | {fmt(per, 1)} | {busiest['mean']:.1f} / {busiest['p99']:.0f} | {fmt(cut)} | {a.cut_share:.3f} | {imb:.3f} | {ideal:.2f} | "
            + " | ".join(f"{x:.2f}" for x in sp)
            + " |"
        )
        row = {
            "k": run.k, "partitions": sc.n, "unit": sc.unit, "cores": sc.cores, "events_per_partition": per,
            "busiest": busiest, "cut_per_window": cut, "cut_share": a.cut_share, "imbalance": imb,
            "speedup": dict(zip(map(str, barriers_us), sp)), "ideal_speedup": ideal,
        }
        rows.append(row)
    return rows


def report_partitions(run: Run, sc: Scheme) -> None:
    """Each partition's events per window, share and packets in from the cut."""
    a = analyse(run, sc)
    shares = a.e_wp.sum(axis=0) / a.e_wp.sum()
    print(f"\nk = {run.k}, {sc.label()}, each partition:\n")
    print("| partition | events/window mean / p50 / p99 | share of events | packets in from the cut/window mean / p50 / p99 |")
    print("|---|---|---|---|")
    units = n_units(run.k, sc.unit)
    for p in range(sc.n):
        name = "cores" if sc.cores == "own" and p == sc.parts else f"{sc.unit}s {p * units // sc.parts}–{(p + 1) * units // sc.parts - 1}"
        print(f"| {p} ({name}) | {fmt(window_stats(a.e_wp[:, p]), 1)} | {shares[p]:.3f} | {fmt(window_stats(a.x_wp[:, p]), 1)} |")


def default_schemes(k: int) -> list[Scheme]:
    """Pods + a core partition; pods with the cores spread; and 2 .. 128 partitions of whole pods
    where P divides k, of racks otherwise (as many as the fabric has)."""
    out = [Scheme(k, "pod", "own"), Scheme(k, "pod", "spread")]
    for p in (2, 4, 8, 16, 32, 64, 128):
        if p == k:
            continue
        if p < k and k % p == 0:
            out.append(Scheme(p, "pod", "spread"))
        elif p <= k * k // 2:
            out.append(Scheme(p, "rack", "spread"))
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="12,16", help="fat-tree k values (default 12,16)")
    ap.add_argument("--warmup", default="1ms", help="simulated time run before the first window (default 1ms)")
    ap.add_argument("--windows", type=int, default=1000, help="windows measured (default 1000)")
    ap.add_argument("--window", default="1us", help="window = lookahead (default 1us, B4's link delay)")
    ap.add_argument("--event-ns", default="12:168,16:244,32:375", help="cost of one event per size, ns (k:ns,...; default from docs/PERFORMANCE.md, see PARALLEL.md)")
    ap.add_argument("--msg-ns", type=float, default=None, help="cost of receiving one packet from another partition, ns (default: one event's)")
    ap.add_argument("--barriers", default="0,1,5,20", help="barrier costs in µs (default 0,1,5,20)")
    ap.add_argument("--per-partition", action="store_true", help="print every partition's row for the pods + core scheme")
    ap.add_argument("--json", type=Path, help="write the rows as JSON")
    args = ap.parse_args(argv)

    sizes = [int(x) for x in args.sizes.split(",")]
    costs = {int(a): float(b) for a, b in (x.split(":") for x in args.event_ns.split(","))}
    barriers = [float(x) for x in args.barriers.split(",")]
    window = _delay_ps(args.window)
    warm = _delay_ps(args.warmup)
    print(f"# lookahead windows on B4-like fat-tree permutations ({platform.node()}, {os.cpu_count()} cores, {platform.processor() or platform.machine()})")
    print(f"command: python {' '.join(sys.argv)}")
    all_rows = []
    for k in sizes:
        event_ns = costs.get(k, max(costs.values()))
        run = measure(k, warm, args.windows, window)
        msg = args.msg_ns if args.msg_ns is not None else event_ns
        print(f"(event cost c = {event_ns:g} ns, cross-partition packet m = {msg:g} ns)")
        schemes = default_schemes(k)
        rows = report(run, schemes, event_ns, barriers, msg)
        if args.per_partition:
            report_partitions(run, schemes[0])
        for r in rows:
            r.update(window_us=window / PS_PER_US, warmup_us=warm / PS_PER_US, windows=args.windows, event_ns=event_ns, msg_ns=msg,
                     events_per_window=window_stats(run.events), wall_s=run.wall_s, summary=run.summary)
        all_rows += rows
    if args.json:
        args.json.write_text(json.dumps(all_rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
