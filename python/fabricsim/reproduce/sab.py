"""Reproduction of Zhang, Ren, Yue, Shu and Lin, "Sharing Bandwidth by Allocating Switch Buffer in
Data Center Networks" (IEEE JSAC 32(1), 2014): SAB against TCP NewReno (SACK), DCTCP and D2TCP.
Setup: the paper's §V-A and §VI (Zhang et al., IEEE JSAC 2014).

Experiments (paper figure -> point prefix):
- Fig. 3-5 convergence: senders join a 1 Gb/s bottleneck one after another (`conv/`); Fig. 4 is
  the first 200 ms of the second flow in the same runs.
- Fig. 6-8, Table I: two bottlenecks, Ns = 10, Nl = 5, Nf = 15 (`multi/`); Figs. 7-8 are the
  per-flow throughputs at R1 and R2 in the same runs.
- Fig. 9: short flows of 1-20 KB behind 30 long-lived flows (`delay/`).
- Fig. 10-11: incast of 256 KB blocks vs the number of senders (`incast/`).
- Fig. 12-13, 15: outcast, Nf = 2 short-RTT flows against Nl = 10 long-RTT flows (`outcast/SCHEME`),
  and the other group sizes of §V-B.5's "series of experiments" (`outcast/SCHEME/NFvNL`).
- Fig. 16-18: the DCTCP-paper traffic mix with deadlines of 10 ms per KB (`mix/`); the same mix
  at the testbed's 55 flows/s (§V-B.6: 33 K flows in 10 minutes) is a sensitivity point
  (`sensitivity/rate/`, reported, not scored).
- Fig. 19-20: ns-2, 1000 long flows, 1-100 Gb/s (`capacity/`).
- Fig. 21: ns-2, epsilon sweep, 100 senders, B = 128 KB (`eps/`).
- Figs. 23-24: ns-2, the DCTCP-paper mix on 20 racks of 20 servers, 1 Gb/s in a rack, 10 Gb/s
  rack uplinks (`large/`; 4 racks reduced).
- Proposition 2 (eq. (4)): a flow-count error eta on §IV-C's example, C = 1 Gb/s, D = 100 and
  300 us, B = 512 KB, at the epsilon of eq. (3) that tolerates eta_max (`prop2/`).
- Fig. 22: Fig. 6's chain with Ns = 300, Nl = 200, Nf = 200 and set L's applications limited to
  150 Mb/s in all (`ratelimit/`).

Fig. 14's drawing is not in the text: the caption says "The switches are NetFPGA. Server 0 is the
controller of traffic generation" and §VI-D runs "a topology similar to Figure 14, but with more
servers and higher link bandwidth" as racks under a core switch, so the mix runs on racks of
four-port switches (three hosts and an uplink each) under one core switch (docs/reproductions/sab.md).

Modelling choices the paper leaves open (docs/reproductions/sab.md):
- Testbed hosts run Linux 2.6.38: initial window 3 (IW10 came in 2.6.39), minimum RTO 200 ms,
  delayed ACKs (2 segments, 40 ms), SACK, no RACK or tail loss probes (later kernels), and
  every connection opens with SYN / SYN-ACK (SAB's switches count flows by them; the other
  schemes get the same handshake so FCTs compare).
- SAB receivers ACK every segment: with SAB's windows of one or two segments a delayed ACK
  would wait for its 40 ms timer every round trip; the paper does not say how its kernel
  avoided that. ns-2's default sink also ACKs every packet, so the ns-2 runs do so for all.
- One-way link delay 25 us (a 100 us base RTT through one switch, as in the ns-2 runs); the
  testbed's RTT is not given.
- Fig. 6's topology is not drawn in the text; we use the chain h1,h2 - R1 - M(h3) - R2 - h4,h5,
  the one that matches the text: S (h2->h3) and L (h1->h5) share R1's port, L and F (h4->h5)
  share R2's port to h5, and an L flow crosses four links each way and an F flow two (the RTT
  ratio of §V-B.2).
- Incast and outcast senders are one host per flow (the testbed had three senders running many
  flows each); incast connections are persistent, as in the storage-cluster incast of [7].
- The convergence runs start the three senders T apart and stop them in reverse order (§V-B.1:
  "the last started flow will be stopped first"): T = 1 s at paper scale, 0.25 s reduced.
- Benchmark mix (Figs. 16-18): 9 hosts on three 1 Gb/s leaves under one spine (Fig. 14's testbed
  as far as the text describes it); queries 2 KB,
  short messages = the 100 KB-1 MB part of the web-search sizes, background = web-search sizes;
  loads 0.01 / 0.05 / 0.3 of the host links; queries and short messages carry 10 ms/KB deadlines.
- ns-2 runs: 1000 B packets (960 B payload + 40 B header), NewReno without SACK, initial window
  2 (ns-2's default), minimum RTO 200 ms.
- Figs. 23-24: the benchmark mix's workloads and loads, §VI-A's ns-2 buffer rule per link rate
  (300 KB at 1 Gb/s, 545 KB at 10 Gb/s), epsilon 1/2, DCTCP marking at 32 KB on every port.
- Proposition 2: 100 senders, half at 100 us and half at 300 us base RTT, 1 KB packets.

The artifact model (`ARTIFACT`, `--model artifact`; docs/reproductions/sab.md): no authors' code
is public, so the testbed keeps its text and the ns-2 points take ns-2.35's Agent/TCP defaults
(window_ 20 packets, rtxcur_init_ 3 s).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import pandas as pd

from ..ports import declared
from ..analysis import jain
from .common import (Change, FigureSaver, Headline, Setup, Stated, cdf_points, counter_rate, duration_us, finish_models,
                     model_figures, primary, rate_bps, relative_band, run_models, select_changes, size_bytes, value, write_runs)
from .page import write_report

SCHEMES = ["sab", "tcp", "dctcp"]  # D2TCP equals DCTCP without deadlines (§V-A); it joins the mix
MIX_SCHEMES = ["sab", "tcp", "dctcp", "d2tcp"]
LINK = {"rate": "1Gbps", "delay": "25us"}
BUFFER = "512KB"
K_DCTCP = "32KB"
EPSILON = 0.5
DELAY_SIZES_KB = {"reduced": [1, 2, 5, 10, 15, 20], "paper": list(range(1, 21))}
INCAST_N = {"reduced": [4, 16, 32, 48, 64, 100], "paper": [1, 4, 8, 16, 24, 32, 40, 48, 64, 80, 100]}
CAPACITY_GBPS = {"reduced": [1, 10, 40, 100], "paper": [1, 10, 20, 40, 60, 80, 100]}
EPSILONS = [0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0]

SCALES = {
    "reduced": {"conv_gap_s": 0.25, "multi_s": 0.5, "delay_warmup_s": 0.2, "delay_reps": 5, "incast_rounds": 5,
                "outcast_s": 3.0, "mix_s": 2.0, "capacity_s": 0.3, "eps_s": 0.1, "large_racks": 4, "large_s": 0.6,
                "prop2_s": 0.1, "ratelimit_s": 0.5, "rate_s": 60.0},
    "paper": {"conv_gap_s": 1.0, "multi_s": 5.0, "delay_warmup_s": 10.0, "delay_reps": 20, "incast_rounds": 20,
              "outcast_s": 10.0, "mix_s": 10.0, "capacity_s": 2.0, "eps_s": 1.0, "large_racks": 20, "large_s": 1.0,
              "prop2_s": 1.0, "ratelimit_s": 5.0, "rate_s": 600.0},
}
#: Outcast group sizes (Nf short-RTT, Nl long-RTT flows) besides Fig. 13's 2 vs 10: §V-B.5 "We
#: conduct series of experiments with different N_f and N_l [...] TCP indeed suffers the Outcast
#: problem when N_l is several times of N_f" (the sizes themselves are not given).
OUTCAST_SIZES = [(1, 10), (2, 6), (2, 2)]


#: The testbed's hosts (§V-A: "We implemented the end host part of SAB in Linux kernel 2.6.38.3";
#: "TCP NewReno (with SACK) is implemented in the kernel 2.6.38.3"): `[host] stack` gives every
#: scheme that kernel's defaults (IW 3, 200 ms minimum RTO, delayed ACK with a 40 ms timer and
#: quick-ACK, SACK, timestamps, no RACK or TLP).
HOST_STACK = "linux-2.6.38"


def transport(scheme: str, *, ns2: bool = False) -> dict:
    """The transport table of a scheme: on the testbed's Linux hosts (`host()`), or ns-2's agents."""
    if ns2:
        t = {"mss": "960B", "header": "40B", "ack_size": "40B", "initial_cwnd": 2, "min_rto": "200ms", "delayed_ack": 1,
             "sack": False, "rack": False, "tlp": False, "handshake": True}
    else:
        t = {"handshake": True}
    t["cc"] = {"tcp": "newreno"}.get(scheme, scheme)
    if scheme == "sab":
        t["delayed_ack"] = 1
    return t


def queue(scheme: str, buffer: str = BUFFER) -> dict:
    """Switch ports from each scheme's declared setup (fabricsim.ports): drop-tail for TCP and SAB
    (SAB's switch side is `[sab]`), DCTCP's marking for DCTCP and D2TCP at the paper's K_DCTCP
    (32 KB) instead of the K of DCTCP's rule. The testbed's 1 Gb/s star is the fabric the
    declarations are read for; every value that depends on it is stated here."""
    q = declared({"tcp": "newreno"}.get(scheme, scheme), {"kind": "star", "hosts": 2, "link": LINK}, buffer)
    if "ecn_threshold" in q:
        q["ecn_threshold"] = K_DCTCP
    return q


#: Sensitivity points (not the paper's setting): SAB with a smaller share of the buffer.
SMALL_EPSILON = 0.1


def base(name: str, scheme: str, end_s: float, topology: dict, *, ns2: bool = False, buffer: str = BUFFER,
         epsilon: float = EPSILON) -> dict:
    doc = {
        "name": name,
        "simulation": {"end": f"{end_s}s"},
        "topology": topology,
        "queue": queue(scheme, buffer),
        "transport": transport(scheme, ns2=ns2),
    }
    if not ns2:
        doc["host"] = {"stack": HOST_STACK}
    if scheme == "sab":
        doc["sab"] = {"epsilon": epsilon}
    return doc


def star(n_hosts: int, link: dict = LINK) -> dict:
    return {"kind": "star", "hosts": n_hosts, "link": link}


# ---- the experiments ---------------------------------------------------------------------------

def convergence(scheme: str, gap_s: float) -> dict:
    doc = base(f"sab-conv-{scheme}", scheme, 5 * gap_s + 0.05, star(4))
    doc["flows"] = [{"src": f"h{i}", "dst": "h0", "start": f"{(i - 1) * gap_s}s", "stop": f"{(6 - i) * gap_s}s"} for i in (1, 2, 3)]
    doc["output"] = {"sample_interval": "10ms", "queues": ["h1->s0", "h2->s0", "h3->s0", "s0->h0"]}
    return doc


def extract_convergence(res) -> dict:
    ts = res.timeseries
    tx = ts[ts.metric == "tx_bytes"].pivot_table(index="time_s", columns="target", values="value")
    rate = (tx.diff() * 8 / tx.index.to_series().diff().values[:, None] / 1e9).iloc[1:]
    q = ts[(ts.metric == "queue_bytes") & (ts.target == "s0->h0")]
    return {"time_s": list(rate.index), **{f"gbps_{c.split('->')[0]}": list(rate[c]) for c in rate.columns},
            "queue_time_s": list(q.time_s), "queue_kb": list(q.value / 1e3)}


def convergence_time_ms(d: dict, gap_s: float, joiner: str = "h2", reach: float = 0.9) -> float:
    """Time from the second sender's start to the end of the first 10 ms sample in which its
    throughput reaches `reach` of the fair share (Fig. 4: "DCTCP spends 50 milliseconds in
    evolving to the desired value, i.e., 0.5 Gbps")."""
    t = np.array(d["time_s"])
    b = np.array(d[f"gbps_{joiner}"])
    hit = np.where((t > gap_s + 1e-9) & (t <= 2 * gap_s + 1e-9) & (b >= reach * 0.5))[0]
    return float((t[hit[0]] - gap_s) * 1e3) if len(hit) else float("nan")


#: Fig. 4: "we magnify the throughput curve of 200 milliseconds from the start of flow 2".
FIG4_WINDOW_S = 0.2


def fig4_series(d: dict, gap_s: float, joiner: str = "h2") -> tuple[np.ndarray, np.ndarray]:
    """The joining flow's 10 ms throughput samples in the 200 ms after it starts: (ms since its
    start at the end of each sample, Gb/s)."""
    t = np.array(d["time_s"], dtype=float)
    b = np.array(d.get(f"gbps_{joiner}", [np.nan] * len(t)), dtype=float)
    sel = (t > gap_s + 1e-9) & (t <= gap_s + FIG4_WINDOW_S + 1e-9)
    return (t[sel] - gap_s) * 1e3, b[sel]


def overshoot_ms(d: dict, gap_s: float, fair: float = 0.5, reach: float = 0.9, above: float = 1.1) -> float:
    """Fig. 4, DCTCP: "the throughput continually increases for a long time (about 50 ms) instead of
    staying at the ideal value after arriving at it". Time from the first sample at `reach` of the
    fair share to the highest sample of the 200 ms window; 0 when no sample exceeds the fair share
    by `above` (no overshoot); NaN when the flow never reaches the fair share."""
    t, b = fig4_series(d, gap_s)
    hit = np.where(b >= reach * fair)[0]
    if not len(hit):
        return float("nan")
    peak = int(hit[0] + np.argmax(b[hit[0]:]))
    return float(t[peak] - t[hit[0]]) if b[peak] > above * fair else 0.0


def settled_deviation_gbps(d: dict, gap_s: float, fair: float = 0.5) -> float:
    """Fig. 4, SAB: "the SAB flow immediately converges to the expected throughput": the largest
    distance of a 10 ms sample from the fair share after the first sample of the 200 ms window."""
    _, b = fig4_series(d, gap_s)
    return float(np.max(np.abs(b[1:] - fair))) if len(b) > 1 else float("nan")


def mean_deviation_gbps(d: dict, gap_s: float, fair: float = 0.5) -> float:
    """The joining flow's mean distance from the fair share over the 200 ms window of Fig. 4: the
    longer a flow takes to converge (or the more it swings), the larger."""
    _, b = fig4_series(d, gap_s)
    return float(np.mean(np.abs(b - fair))) if len(b) else float("nan")


def multi_bottleneck(scheme: str, end_s: float, ns: int = 10, nl: int = 5, nf: int = 15) -> dict:
    links = [("h1", "R1"), ("h2", "R1"), ("R1", "M"), ("M", "h3"), ("M", "R2"), ("h4", "R2"), ("R2", "h5")]
    topo = {"kind": "explicit", "hosts": ["h1", "h2", "h3", "h4", "h5"], "switches": ["R1", "M", "R2"],
            "links": [{"a": a, "b": b, **LINK} for a, b in links]}
    doc = base(f"sab-multi-{scheme}", scheme, end_s, topo)
    doc["flows"] = ([{"src": "h1", "dst": "h5"}] * nl + [{"src": "h2", "dst": "h3"}] * ns + [{"src": "h4", "dst": "h5"}] * nf)
    return doc


def extract_ports(res, ports: list[str]) -> dict:
    t = res.summary["sim_time_s"]
    out = {}
    for p in ports:
        r = res.port(p)
        out[p] = {"gbps": float(r["tx_bytes"]) * 8 / t / 1e9, "drops": int(r["drops"]),
                  "mean_queue_kb": float(r["mean_queue_bytes"]) / 1e3}
    f = res.flows
    dur = t - f["start_s"]
    out["flow_gbps"] = list((f["bytes_acked"] * 8 / dur / 1e9).astype(float))
    out["flow_dst"] = list(f["dst"])
    out["flow_src"] = list(f["src"])
    out["timeouts"] = int(f["timeouts"].sum())
    return out


def extract_multi(res) -> dict:
    """Table I's port throughputs plus Figs. 7-8's per-flow throughputs: L (h1 -> h5) crosses R1 and
    R2, S (h2 -> h3) only R1, F (h4 -> h5) only R2."""
    out = extract_ports(res, ["R1->M", "R2->h5"])
    g = {k: [x for x, src in zip(out["flow_gbps"], out["flow_src"]) if src == h] for k, h in (("L", "h1"), ("S", "h2"), ("F", "h4"))}
    out.update({f"gbps_{k}": v for k, v in g.items()})
    out["jain_R1"], out["jain_R2"] = jain(g["L"] + g["S"]), jain(g["L"] + g["F"])
    return out


def short_delay(scheme: str, sizes_kb: list[int], reps: int, warmup_s: float) -> dict:
    spacing = 0.01
    end = warmup_s + reps * len(sizes_kb) * spacing + 0.05
    doc = base(f"sab-delay-{scheme}", scheme, end, star(4))
    flows = [{"src": f"h{s}", "dst": "h0"} for s in (1, 2, 3) for _ in range(10)]
    k = 0
    for _ in range(reps):
        for kb in sizes_kb:
            flows.append({"src": "h1", "dst": "h0", "size": f"{kb}KB", "start": f"{warmup_s + k * spacing:.4f}s"})
            k += 1
    doc["flows"] = flows
    return doc


def extract_short(res) -> dict:
    """Mean completion time per size: whole (with the SYN round trip) and after connection setup."""
    f = res.flows
    s = f[f["size"].notna()].assign(data_s=lambda d: d["fct_s"] - d["setup_s"])
    g = s.groupby("size")
    return {"size_kb": [int(x) / 1000 for x in g["fct_s"].mean().index], "fct_ms": list(g["fct_s"].mean().astype(float) * 1e3),
            "data_ms": list(g["data_s"].mean().astype(float) * 1e3),
            "unfinished": int(s["fct_s"].isna().sum()),
            "goodput_gbps": float(res.port("s0->h0")["tx_bytes"]) * 8 / res.summary["sim_time_s"] / 1e9}


def incast(scheme: str, n: int, rounds: int) -> dict:
    doc = base(f"sab-incast-{scheme}-{n}", scheme, 60, star(n + 1))
    doc["simulation"]["stop_when_done"] = True
    doc["incast"] = [{"receiver": "h0", "senders": n, "block": "256KB", "rounds": rounds, "connections": "persistent"}]
    doc["transport"]["rcv_buffer"] = "64KB"
    return doc


def extract_incast(res) -> dict:
    f = res.flows
    done = f["fct_s"].notna().all()
    t = float(f["end_s"].max()) if done else res.summary["sim_time_s"]
    n = len(f)
    drops = int(res.ports["drops"].sum())
    return {"goodput_gbps": float(f["bytes_acked"].sum()) * 8 / t / 1e9, "finished": bool(done), "drops": drops,
            "losses_per_flow_s": drops / n / t, "timeouts": int(f["timeouts"].sum())}


def outcast(scheme: str, end_s: float, nf: int = 2, nl: int = 10) -> dict:
    hosts = ["h0", "hs"] + [f"hl{i}" for i in range(nl)]
    links = [{"a": "hs", "b": "R", **LINK}, {"a": "h0", "b": "R", **LINK}, {"a": "S2", "b": "R", **LINK}]
    links += [{"a": f"hl{i}", "b": "S2", **LINK} for i in range(nl)]
    topo = {"kind": "explicit", "hosts": hosts, "switches": ["R", "S2"], "links": links}
    name = f"sab-outcast-{scheme}" if (nf, nl) == (2, 10) else f"sab-outcast-{scheme}-{nf}v{nl}"
    doc = base(name, scheme, end_s, topo)
    doc["flows"] = [{"src": "hs", "dst": "h0"}] * nf + [{"src": f"hl{i}", "dst": "h0"} for i in range(nl)]
    # Every long flow has its own host, so its NIC's byte counter is its throughput; the short
    # flows share hs. Measured after half the run: all connections are open by then (a SYN lost
    # at start waits out the 1 s initial RTO).
    doc["output"] = {"sample_interval": "10ms", "queues": ["hs->R"] + [f"hl{i}->S2" for i in range(nl)]}
    return doc


def extract_outcast(res) -> dict:
    f = res.flows
    t = res.summary["sim_time_s"]
    ts = res.timeseries
    nf = int((f["src"] == "hs").sum())
    short = [counter_rate(ts, "hs->R", t / 2) / 1e9 / nf] * nf
    nl = int((f["src"] != "hs").sum())
    long_ = [counter_rate(ts, f"hl{i}->S2", t / 2) / 1e9 for i in range(nl)]
    losses = int(res.ports["drops"].sum())
    return {"flow_gbps": short + long_, "short_mean_gbps": float(np.mean(short)), "long_mean_gbps": float(np.mean(long_)),
            "drops": losses, "losses_per_flow_s": losses / len(f) / t, "timeouts": int(f["timeouts"].sum()),
            "retransmits": int(f["retransmits"].sum())}


def mix(scheme: str, end_s: float) -> dict:
    topo = {"kind": "leaf_spine", "leaves": 3, "spines": 1, "hosts_per_leaf": 3, "link": LINK}
    doc = base(f"sab-mix-{scheme}", scheme, end_s, topo)
    doc["output"] = {"warmup": "100ms", "cooldown": "200ms"}
    doc["workload"] = [
        {"name": "query", "size": "2KB", "load": 0.01, "deadline_per_kb": "10ms"},
        {"name": "short", "cdf": "websearch", "size_range": ["100KB", "1MB"], "load": 0.05, "deadline_per_kb": "10ms"},
        {"name": "background", "cdf": "websearch", "load": 0.3},
    ]
    return doc


#: §V-B.6: "The traffic lasts 10 minutes, and is consist of 33 K flows" — 55 flows/s in all. The
#: text gives neither the loads nor the shares of queries, short messages and background flows.
PAPER_FLOWS_PER_S = 33_000 / 600


def linear_mean(points: list[tuple[float, float]], lo: float = 0.0, hi: float = float("inf")) -> float:
    """Mean size of a piecewise-linear CDF (sizes uniform between consecutive points, a repeated size
    a point mass) conditioned on lo <= size <= hi: the engine's `sampling = "linear"` and
    `size_range` readings."""
    mass = total = 0.0
    for (s0, p0), (s1, p1) in zip(points, points[1:]):
        w = p1 - p0
        if w <= 0:
            continue
        if s1 == s0:
            if lo <= s0 <= hi:
                mass, total = mass + w, total + w * s0
            continue
        a, b = max(s0, lo), min(s1, hi)
        if b > a:
            m = w * (b - a) / (s1 - s0)
            mass, total = mass + m, total + m * (a + b) / 2
    return total / mass


def workload_rates(doc: dict) -> dict[str, float]:
    """Expected flow arrivals per second of each workload of a mix scenario: load x the senders'
    link capacity / (8 x mean size) (docs/SCENARIOS.md, `[[workload]]`). Every host sends, and
    every host link of `mix` is LINK's rate."""
    topo = doc["topology"]
    hosts = topo["leaves"] * topo["hosts_per_leaf"]
    bps = hosts * rate_bps(LINK["rate"])
    out = {}
    for w in doc["workload"]:
        if "size" in w:
            mean = size_bytes(w["size"])
        else:
            mean = linear_mean(cdf_points(w["cdf"]), *map(size_bytes, w.get("size_range", ["0KB", "1e12MB"])))
        out[w["name"]] = w["load"] * bps / (8 * mean)
    return out


def mix_at_paper_rate(scheme: str, end_s: float) -> dict:
    """Sensitivity point: `mix` with every workload's load scaled by one factor so that flows
    arrive at the testbed's 55 flows/s in all (§V-B.6); the shares of queries, short messages and
    background flows stay ours (about 94 / 2 / 3 % of flows), the text giving none."""
    doc = mix(scheme, end_s)
    k = PAPER_FLOWS_PER_S / sum(workload_rates(doc).values())
    for w in doc["workload"]:
        w["load"] = w["load"] * k
    doc["name"] = f"sab-mixrate-{scheme}"
    return doc


SIZE_BINS = [(0, 10_000, "<10KB"), (10_000, 100_000, "10-100KB"), (100_000, 1_000_000, "100KB-1MB"), (1_000_000, 1e12, ">1MB")]


def extract_mix(res) -> dict:
    f = res.flows[res.flows["measured"]]
    q = f[f.workload == "query"]["fct_s"].astype(float)
    bg = f[f.workload == "background"]
    per_kb = (f["fct_s"].astype(float) / (f["size"].astype(float) / 1000)).dropna()
    out = {"query_mean_ms": q.mean() * 1e3, "query_p99_ms": q.quantile(0.99) * 1e3, "query_p999_ms": q.quantile(0.999) * 1e3,
           "query_max_ms": q.max() * 1e3, "queries": int(q.notna().sum()), "query_unfinished": int(q.isna().sum()),
           "per_kb_mean_ms": per_kb.mean() * 1e3, "per_kb_p999_ms": per_kb.quantile(0.999) * 1e3,
           "deadline_miss": res.summary.get("deadline_miss_fraction"), "timeouts": int(f["timeouts"].sum()),
           "flows": int(len(f)), "short_mean_ms": f[f.workload == "short"]["fct_s"].astype(float).mean() * 1e3,
           "bg_mean_ms": bg["fct_s"].astype(float).mean() * 1e3, "shorts": int(len(f[f.workload == "short"])),
           "backgrounds": int(len(bg))}
    for lo, hi, name in SIZE_BINS:
        b = bg[(bg["size"] >= lo) & (bg["size"] < hi)]["fct_s"].astype(float)
        out[f"bg_p999_ms_{name}"] = b.quantile(0.999) * 1e3 if len(b) else float("nan")
    return out


def capacity(scheme: str, gbps: int, end_s: float, n: int = 1000) -> dict:
    link = {"rate": f"{gbps}Gbps", "delay": "25us"}
    doc = base(f"sab-capacity-{scheme}-{gbps}", scheme, end_s, star(n + 1, link), ns2=True, buffer=f"{ns2_buffer_bytes(gbps)}B",
               epsilon=0.6)
    staggered(doc, n, end_s)
    return doc


def staggered(doc: dict, n: int, end_s: float) -> None:
    """n long flows h1..hn -> h0 starting evenly over the first 20 % of the run (all at once, their
    first windows — before any switch has assigned one — would overflow the buffer), measured
    from 30 % on through 1 ms samples of the bottleneck."""
    doc["flows"] = [{"src": f"h{i}", "dst": "h0", "start": f"{0.2 * end_s * (i - 1) / n:.6f}s"} for i in range(1, n + 1)]
    doc["output"] = {"sample_interval": "1ms", "queues": ["s0->h0"], "warmup": f"{0.3 * end_s:.6f}s"}


def extract_bottleneck(res) -> dict:
    """Bottleneck figures after the warm-up (1 ms samples): utilization (wire bytes over capacity),
    mean queue, drops; timeouts per flow per second over the whole run."""
    r = res.port("s0->h0")
    t = res.summary["sim_time_s"]
    util = counter_rate(res.timeseries, "s0->h0", 0.3 * t) / float(r["rate_bps"])
    ts = res.timeseries
    ts = ts[(ts.target == "s0->h0") & (ts.time_s >= 0.3 * t - 1e-9)]
    f = res.flows
    return {"utilization": float(util), "mean_queue_kb": float(ts[ts.metric == "queue_bytes"].value.mean()) / 1e3,
            "drops": int(r["drops"]), "timeouts_per_flow_s": float(f["timeouts"].sum()) / len(f) / t,
            "goodput_norm": float(f["bytes_acked"].sum()) * 8 / t / float(r["rate_bps"])}


def eps_point(eps: float, end_s: float) -> dict:
    link = {"rate": "1Gbps", "delay": "25us"}
    doc = base(f"sab-eps-{eps}", "sab", end_s, star(101, link), ns2=True, buffer="128KB", epsilon=eps)
    staggered(doc, 100, end_s)
    return doc


def eps_queue_kb(eps: float, n: int = 100, header: float = 40.0) -> float:
    """§VI-C's queue, εB − CD (B = 128 KB, C = 1 Gb/s, D = 100 µs), in wire bytes: below one MSS each
    of the n windows is one segment, which carries a header besides its εB/n payload bytes."""
    return (eps * 128_000 + n * header - 1e9 / 8 * 100e-6) / 1e3


def eps_window_utilization(eps: float, n: int = 100, header: float = 40.0) -> float:
    """Below CD/B (§VI-C: "0.1B = 12.8 KBytes, which is greater than CD = 12.5 KBytes") the n
    one-segment windows, εB/n payload bytes and a header each, are all the link carries per round
    trip (Prop. 1: "if Σ W_i < CD, then the link will be idle at some time"): utilization
    (εB + n·header)/CD on the wire."""
    return (eps * 128_000 + n * header) / (1e9 / 8 * 100e-6)


def ns2_buffer_bytes(gbps: float) -> int:
    """§VI-A's ns-2 buffer per port, B = (300C + 3000)/11 KB with C in Gb/s (300 KB at 1 Gb/s)."""
    return round((300 * gbps + 3000) / 11 * 1000)


def large(scheme: str, end_s: float, racks: int, hosts_per_rack: int = 20) -> dict:
    """Figs. 23-24 (§VI-D): "20 racks, each rack has 20 servers. The capacity of each link within a
    rack is 1 Gbps. The capacity of one link between a rack switch and the core switch is 10 Gbps",
    running the testbed's mix (`mix`). Buffers follow §VI-A's ns-2 rule per link rate."""
    hosts = [f"h{i}" for i in range(racks * hosts_per_rack)]
    links = []
    for r in range(racks):
        for j in range(hosts_per_rack):
            links.append({"a": hosts[r * hosts_per_rack + j], "b": f"tor{r}", **LINK,
                          "queue": queue(scheme, f"{ns2_buffer_bytes(1)}B")})
        links.append({"a": f"tor{r}", "b": "core", "rate": "10Gbps", "delay": LINK["delay"],
                      "queue": queue(scheme, f"{ns2_buffer_bytes(10)}B")})
    topo = {"kind": "explicit", "hosts": hosts, "switches": [f"tor{r}" for r in range(racks)] + ["core"], "links": links}
    doc = base(f"sab-large-{scheme}-{racks}", scheme, end_s, topo, ns2=True, buffer=f"{ns2_buffer_bytes(1)}B")
    doc["output"] = {"warmup": "100ms", "cooldown": "200ms"}
    doc["workload"] = mix(scheme, end_s)["workload"]
    return doc


def extract_large(res) -> dict:
    """Fig. 23: query completion times (mean and tail); Fig. 24: background flows'."""
    f = res.flows[res.flows["measured"]]
    q = f[f.workload == "query"]["fct_s"].astype(float)
    bg = f[f.workload == "background"]["fct_s"].astype(float)
    out = {"queries": int(q.notna().sum()), "query_unfinished": int(q.isna().sum()), "query_mean_ms": q.mean() * 1e3,
           "background": int(bg.notna().sum()), "bg_unfinished": int(bg.isna().sum()), "bg_mean_ms": bg.mean() * 1e3,
           "timeouts": int(f["timeouts"].sum()), "deadline_miss": res.summary.get("deadline_miss_fraction"),
           "drops": int(res.ports["drops"].sum())}
    for p in (99, 99.9, 99.99):
        out[f"query_p{p:g}_ms"] = q.quantile(p / 100) * 1e3
    for p in (95, 99):
        out[f"bg_p{p:g}_ms"] = bg.quantile(p / 100) * 1e3
    return out


#: Proposition 2 on §IV-C's example: "if C=1 Gbps, D_max=300 us, D_min=100 us, B=512 KB, then
#: CD_min=12.5 KB, CD_max=37.5 KB. Therefore, we have eta_max = 0.8665".
PROP2 = {"C": 1e9 / 8, "d_min": 100e-6, "d_max": 300e-6, "B": 512_000, "flows": 100}


def prop2_eta_max(C: float = PROP2["C"], d_min: float = PROP2["d_min"], d_max: float = PROP2["d_max"],
                  B: float = PROP2["B"]) -> float:
    """Eq. (4): the largest flow-count error SAB tolerates, (B + CD_min − CD_max)/(B + CD_min + CD_max)."""
    return (B + C * d_min - C * d_max) / (B + C * d_min + C * d_max)


def prop2_epsilon() -> float:
    """The one ε eq. (3) allows at η = η_max: (1 + η_max)·CD_max/B (= (1 − η_max)(B + CD_min)/B)."""
    return (1 + prop2_eta_max()) * PROP2["C"] * PROP2["d_max"] / PROP2["B"]


#: Count errors (N̂ = N(1 + error)): inside ±η_max, at it, and past it on both sides.
PROP2_ERRORS = [-0.95, -0.9, -0.88, -round(prop2_eta_max(), 4), -0.5, 0.0, 0.5, round(prop2_eta_max(), 4), 2.0, 5.0]


def prop2_point(err: float, end_s: float) -> dict:
    """Half the senders at 100 µs base RTT (25 µs links), half at 300 µs (125 µs sender links), all to
    h0 through one switch with B = 512 KB; 1 KB packets (§VI's ns-2 setting), started over the first
    20 % of the run, measured from 30 %."""
    n = PROP2["flows"]
    hosts = [f"h{i}" for i in range(n + 1)]
    links = [{"a": "h0", "b": "s0", **LINK}]
    links += [{"a": h, "b": "s0", "rate": LINK["rate"], "delay": "25us" if i <= n // 2 else "125us"} for i, h in enumerate(hosts) if i]
    topo = {"kind": "explicit", "hosts": hosts, "switches": ["s0"], "links": links}
    doc = base(f"sab-prop2-{err}", "sab", end_s, topo, ns2=True, epsilon=prop2_epsilon())
    doc["sab"]["count_error"] = err
    staggered(doc, n, end_s)
    return doc


def extract_prop2(res) -> dict:
    out = extract_bottleneck(res)
    out["sab_peak_flows"] = int(res.port("s0->h0")["sab_peak_flows"])
    return out


#: Fig. 22 (§VI-B "Impact of Rate Limitation"): "We let N_s = 300, N_l = 200, N_f = 200" on Fig. 6's
#: topology, and "rate limitation of 150 Mbps on the long flow set L" (the caption says F; the text
#: and its numbers, L falling from 270 to 150 Mbps, say L).
RATELIMIT_SETS = (300, 200, 200)
RATELIMIT_L_MBPS = 150


def rate_limited(limit: bool, end_s: float) -> dict:
    """Fig. 22: Fig. 6's chain with N_s = 300, N_l = 200, N_f = 200 SAB flows — a simulation, so
    ns-2's agents and §VI-A's ns-2 buffer (300 KB at 1 Gb/s), ε = 1/2 as on the testbed — with the
    set L's applications writing 150 Mb/s in all (0.75 Mb/s each) or as fast as they can. Flows
    start evenly over the first 20 % (as every ns-2 run here) and are measured from 30 % on."""
    ns, nl, nf = RATELIMIT_SETS
    doc = multi_bottleneck("sab", end_s, ns=ns, nl=nl, nf=nf)
    buf = f"{ns2_buffer_bytes(1)}B"
    doc["transport"] = transport("sab", ns2=True)
    doc["queue"] = queue("sab", buf)
    doc.pop("host", None)
    doc["name"] = f"sab-ratelimit-{'on' if limit else 'off'}"
    if limit:
        doc["transports"] = {"limited": {"app_rate": f"{RATELIMIT_L_MBPS * 1e6 / nl:.0f}bps"}}
    flows = doc["flows"]
    for i, f in enumerate(flows):
        f = dict(f, start=f"{0.2 * end_s * i / len(flows):.6f}s")
        if limit and f["src"] == "h1":
            f["transport"] = "limited"
        flows[i] = f
    doc["output"] = {"sample_interval": "1ms", "queues": ["M->R2", "M->h3", "R2->h5", "R1->M"], "warmup": f"{0.3 * end_s:.6f}s"}
    return doc


def extract_ratelimit(res) -> dict:
    """Each set's throughput after the warm-up, from the ports only it (or it and one other) uses:
    L alone crosses M->R2, S alone M->h3; F is R2->h5 less L."""
    t = res.summary["sim_time_s"]
    mbps = lambda port: counter_rate(res.timeseries, port, 0.3 * t) / 1e6  # noqa: E731

    l_, s_ = mbps("M->R2"), mbps("M->h3")
    r1, r2 = mbps("R1->M"), mbps("R2->h5")
    f = res.flows
    lf = f[f.src == "h1"]
    # The application's rate is in payload bytes: L's goodput over each flow's life.
    l_payload = float((lf.bytes_acked * 8 / (t - lf.start_s)).sum() / 1e6)
    return {"L_mbps": l_, "S_mbps": s_, "F_mbps": r2 - l_, "R1_mbps": r1, "R2_mbps": r2, "L_payload_mbps": l_payload,
            "drops": int(res.ports["drops"].sum())}


# ---- the artifact model: ns-2's defaults under the simulations --------------------------------
#
# No code of the authors' is public (docs/reproductions/sab.md). §VI's simulations ran on ns-2,
# so "as the authors ran it" there is ns-2.35's defaults that the text does not override
# (tcl/lib/ns-default.tcl, Agent/TCP); the testbed's artifact is its text (Linux 2.6.38 hosts,
# already the text model).

#: The ns-2 points (§VI, Prop. 2 on §IV-C's example, Fig. 22).
NS2_POINTS = ("capacity/", "eps/", "large/", "prop2/", "ratelimit/")
#: ns-2.35 tcl/lib/ns-default.tcl: `Agent/TCP set window_ 20` (packets; the most a one-way TCP
#: agent has out, standing for the receiver's window), here of 960 B payload each.
NS2_WINDOW_BYTES = 20 * 960
#: ns-2.35 tcl/lib/ns-default.tcl: `Agent/TCP set rtxcur_init_ 3.0` (the RTO before any sample).
NS2_INITIAL_RTO = "3s"


def _with_transport(doc: dict, **keys) -> dict:
    """`doc` with `keys` in its [transport] table and every named profile of [transports]."""
    d = copy.deepcopy(doc)
    d["transport"].update(keys)
    for prof in d.get("transports", {}).values():
        prof.update(keys)
    return d


def _change_ns2_window(point: str, doc: dict) -> dict:
    # §VI-A: "when conducting simulations on ns-2 with higher link capacity, the window value at
    # the receiver side needs to be enlarged so that it will not clamp the sending window": the
    # capacity sweep (Figs. 19-20) ran with it enlarged; the text says nothing of the others.
    if not point.startswith(NS2_POINTS) or point.startswith("capacity/"):
        return doc
    return _with_transport(doc, rcv_buffer=f"{NS2_WINDOW_BYTES}B")


def _change_ns2_initial_rto(point: str, doc: dict) -> dict:
    return _with_transport(doc, initial_rto=NS2_INITIAL_RTO) if point.startswith(NS2_POINTS) else doc


#: The artifact model ("as the authors ran it", docs/reproductions/sab.md): what the authors'
#: simulator did that the text does not state, each applied to the text model's scenarios.
ARTIFACT: list[Change] = [
    Change("ns2-window-20", "ns-2 runs: a sender has at most 20 packets out (19 200 B), except the capacity sweep (text: enlarged)",
           "ns-2.35 tcl/lib/ns-default.tcl: Agent/TCP set window_ 20 (packets)", _change_ns2_window),
    Change("ns2-initial-rto-3s", "ns-2 runs: the RTO before any RTT sample (the SYN's) is 3 s",
           "ns-2.35 tcl/lib/ns-default.tcl: Agent/TCP set rtxcur_init_ 3.0", _change_ns2_initial_rto),
]

#: A reading of the text, not the code (there is none), run as a sensitivity only: §IV-A's window
#: field is TCP's 16-bit one with 0xffff meaning "unset", so no window the switches assign or the
#: receiver echoes exceeds 65 535 B (window scaling, which would lift it, is never mentioned).
#: Ambiguous, so not in ARTIFACT.
WINDOW_16BIT = Change(
    "sab-16bit-window", "SAB on the testbed: windows carried in a 16-bit field, at most 65 535 B",
    "the text (§IV-A: 'if the value in its window field equals 0xffff or is larger than eB/N'); ambiguous",
    lambda point, doc: _with_transport(doc, rcv_buffer="65535B") if doc["transport"].get("cc") == "sab"
    and not point.startswith(NS2_POINTS) else doc)

#: The central claims: the standing queue (Fig. 5), short flows (Fig. 9), the query mix on the
#: testbed (Figs. 16, 18) and in ns-2 (Fig. 23); and the points they read.
CENTRAL: list[str] = [
    "Fig. 5: SAB mean queue / DCTCP's (both 'small and stable')", "short flows: SAB mean FCT / DCTCP's",
    "mix: SAB query p99.9 FCT / best other", "mix: SAB query mean FCT / best other", "Fig. 18: SAB mean time per KB / best other",
    "Fig. 23: SAB mean query FCT - D2TCP's", "Fig. 23: SAB mean query FCT - DCTCP's",
]
CENTRAL_POINTS: list[str] = ["conv/", "delay/", "mix/", "large/"]


def points(scale: str) -> list[tuple[str, dict, object]]:
    sc = SCALES[scale]
    pts = []
    for s in SCHEMES:
        pts.append((f"conv/{s}", convergence(s, sc["conv_gap_s"]), extract_convergence))
        pts.append((f"multi/{s}", multi_bottleneck(s, sc["multi_s"]), extract_multi))
        pts.append((f"delay/{s}", short_delay(s, DELAY_SIZES_KB[scale], sc["delay_reps"], sc["delay_warmup_s"]), extract_short))
        pts.append((f"outcast/{s}", outcast(s, sc["outcast_s"]), extract_outcast))
        for nf, nl in OUTCAST_SIZES:
            pts.append((f"outcast/{s}/{nf}v{nl}", outcast(s, sc["outcast_s"], nf, nl), extract_outcast))
        for n in INCAST_N[scale]:
            pts.append((f"incast/{s}/{n}", incast(s, n, sc["incast_rounds"]), extract_incast))
    for s in MIX_SCHEMES:
        pts.append((f"mix/{s}", mix(s, sc["mix_s"]), extract_mix))
    # SAB's standing queue is about eps*B - CD (Fig. 21): with eps = 1/2 and 512 KB that is ~2 ms
    # at 1 Gb/s. How short flows fare with a smaller share, eq. (2)'s CD/B <= eps still holding:
    small = short_delay("sab", DELAY_SIZES_KB[scale], sc["delay_reps"], sc["delay_warmup_s"])
    small["sab"]["epsilon"] = SMALL_EPSILON
    pts.append((f"sensitivity/delay/sab-eps{SMALL_EPSILON}", small, extract_short))
    small = mix("sab", sc["mix_s"])
    small["sab"]["epsilon"] = SMALL_EPSILON
    pts.append((f"sensitivity/mix/sab-eps{SMALL_EPSILON}", small, extract_mix))
    for s in MIX_SCHEMES:
        pts.append((f"sensitivity/rate/{s}", mix_at_paper_rate(s, sc["rate_s"]), extract_mix))
    for s in ("sab", "tcp"):
        for c in CAPACITY_GBPS[scale]:
            pts.append((f"capacity/{s}/{c}", capacity(s, c, sc["capacity_s"]), extract_bottleneck))
    for e in EPSILONS:
        pts.append((f"eps/{e}", eps_point(e, sc["eps_s"]), extract_bottleneck))
    for s in MIX_SCHEMES:
        pts.append((f"large/{s}", large(s, sc["large_s"], sc["large_racks"]), extract_large))
    for e in PROP2_ERRORS:
        pts.append((f"prop2/{e:+g}", prop2_point(e, sc["prop2_s"]), extract_prop2))
    for on in (False, True):
        pts.append((f"ratelimit/{'on' if on else 'off'}", rate_limited(on, sc["ratelimit_s"]), extract_ratelimit))
    return pts


# ---- paper vs ours -----------------------------------------------------------------------------

def collapse_n(r: dict, scheme: str, frac: float = 0.5) -> float:
    """The smallest sender count whose goodput falls below `frac` Gb/s (inf: none does)."""
    ns = sorted(int(k.split("/")[2]) for k in r if k.startswith(f"incast/{scheme}/"))
    for n in ns:
        if value(r, f"incast/{scheme}/{n}", "goodput_gbps") < frac:
            return float(n)
    return float("inf")


def backlogged_queue_kb(d: dict) -> tuple[float, float]:
    """Fig. 5's bottleneck queue while it holds a backlog: (mean, max) over the 10 ms samples in
    which it is not empty (NaN when it never is)."""
    q = np.array(d.get("queue_kb", []), dtype=float)
    q = q[q > 0]
    return (float(q.mean()), float(q.max())) if len(q) else (float("nan"), float("nan"))


def degradation(r: dict, scheme: str, at: int = 40) -> float:
    """Goodput at the largest sender count over goodput at `at` senders (or the nearest count
    above it): below 1 when throughput falls after `at`."""
    ns = sorted(int(k.split("/")[2]) for k in r if k.startswith(f"incast/{scheme}/"))
    base = [n for n in ns if n >= at]
    if len(base) < 2:
        return float("nan")
    g0 = value(r, f"incast/{scheme}/{base[0]}", "goodput_gbps")
    return value(r, f"incast/{scheme}/{ns[-1]}", "goodput_gbps") / g0 if g0 > 0 else float("nan")


#: An ordering the paper states without a size ("X better than Y", "lower", "larger") is read as
#: a ratio at least 5 % (relative) past 1: two schemes that behave alike (a ratio of 1 within
#: noise) must not pass it.
ORDER = 0.05
#: "Much larger" / "much better": a factor of 2 at least.
MUCH = 2.0
ORDER_NOTE = "an ordering without a size: 5 % (relative) past 1, so alike schemes miss"


def settled_queue_frac(d: dict, buffer_kb: float, peak: float = 0.85) -> float:
    """Fig. 5, TCP "probes the maximum of the buffer size per port and then decreases to about half
    of it": the median of the backlogged 10 ms queue samples after the first at `peak` of the
    buffer, over the buffer (NaN if it never gets there)."""
    q = np.array(d.get("queue_kb", []), dtype=float)
    top = np.where(q >= peak * buffer_kb)[0]
    if not len(top):
        return float("nan")
    after = q[top[0] + 1:]
    after = after[after > 0]
    return float(np.median(after) / buffer_kb) if len(after) else float("nan")


def outcast_rtt_ratio() -> float:
    """The long-RTT over the short-RTT flows' base RTT in `outcast` (three links each way against
    two): the most a window-based scheme's short/long throughput can be when the windows are equal
    (§I: "the fair throughput achieved by a flow is inversely proportional to the RTT")."""
    doc = outcast("sab", 1.0, nf=1, nl=1)
    links = doc["topology"]["links"]

    def one_way(src: str, dst: str) -> float:
        # Breadth-first over the explicit links: the summed delay of the hop-shortest path.
        seen, frontier = {src: 0.0}, [src]
        while frontier:
            nxt = []
            for n in frontier:
                for link in links:
                    for a, b in ((link["a"], link["b"]), (link["b"], link["a"])):
                        if a == n and b not in seen:
                            seen[b] = seen[n] + duration_us(link["delay"])
                            nxt.append(b)
            frontier = nxt
        return seen[dst]

    return one_way("hl0", "h0") / one_way("hs", "h0")


def headlines(r: dict, scale: str) -> list[Headline]:
    sc = SCALES[scale]
    rows = []
    conv = {s: convergence_time_ms(r[f"conv/{s}"], sc["conv_gap_s"]) for s in SCHEMES if f"conv/{s}" in r}
    if conv:
        rows.append(Headline("convergence to the fair share: SAB", "~1 RTT", None, 20, conv.get("sab"), " ms",
                             "'in only one RTT' (§VII) is a bound; 10 ms samples, so within the first two samples (absolute)"))
        rows.append(Headline("convergence to the fair share: DCTCP", "~50 ms", 25, 100, conv.get("dctcp"), " ms",
                             "band 0.5-2x (relative, both sides)"))
    gap = sc["conv_gap_s"]
    if "conv/dctcp" in r:
        rows.append(Headline("Fig. 4: DCTCP keeps rising past the fair share for", "~50 ms", 25, 100,
                             overshoot_ms(r["conv/dctcp"], gap), " ms",
                             "from reaching 90 % of 0.5 Gb/s to its highest 10 ms sample in the 200 ms window; "
                             "0 = never above 0.55 Gb/s; band 0.5-2x (relative, both sides)"))
    if "conv/sab" in r:
        rows.append(Headline("Fig. 4: SAB joining flow, largest distance from 0.5 Gb/s after 10 ms", "~0 (immediate)", None, 0.05,
                             settled_deviation_gbps(r["conv/sab"], gap), " Gb/s",
                             "10 ms samples 2-20 of the 200 ms window; band: 10 % of the fair share (relative); "
                             "a distance cannot be below 0"))
    if "conv/tcp" in r and "conv/dctcp" in r:
        dev = {s: mean_deviation_gbps(r[f"conv/{s}"], gap) for s in ("tcp", "dctcp")}
        rows.append(Headline("Fig. 4: joining flow's mean distance from 0.5 Gb/s, TCP / DCTCP", "> 1 ('quite slowly')", 1 + ORDER, None,
                             dev["tcp"] / dev["dctcp"] if dev["dctcp"] > 0 else float("inf"), "x",
                             "the 20 samples of the 200 ms window; TCP's slow-start burst can touch 0.5 Gb/s early, so the "
                             "first-reach time does not tell slow convergence; " + ORDER_NOTE))
    if all(f"conv/{s}" in r for s in ("sab", "dctcp", "tcp")):
        # Fig. 5 (§V-B.1): "TCP probes the maximum of the buffer size per port and then decreases
        # to about half of it. While both of DCTCP and SAB have small and stable queue length."
        q = {s: backlogged_queue_kb(r[f"conv/{s}"]) for s in ("sab", "dctcp", "tcp")}
        buffer_kb = size_bytes(BUFFER) // 1000
        rows.append(Headline("Fig. 5: SAB mean queue / DCTCP's (both 'small and stable')", "~1", 0.5, 2.0,
                             q["sab"][0] / q["dctcp"][0] if q["dctcp"][0] > 0 else float("nan"), "x",
                             "while backlogged; band 0.5-2x (relative, both sides): a standing eps*B - CD queue many "
                             "times DCTCP's is a miss"))
        rows.append(Headline("Fig. 5: TCP peak queue / buffer ('probes the maximum')", "~1", 0.85, 1.0,
                             q["tcp"][1] / buffer_kb, "x", f"{BUFFER} per port; 10 ms samples; 15 points below the "
                             "paper's 1, the buffer itself above"))
        rows.append(Headline("Fig. 5: TCP queue after its peak, median / buffer ('decreases to about half')", "~0.5", 0.35, 0.65,
                             settled_queue_frac(r["conv/tcp"], buffer_kb), "x",
                             "backlogged 10 ms samples after the first at 85 % of the buffer; +-0.15 of the buffer "
                             "(points; +-30 % relative)"))
    for s, paper in (("sab", (0.99, 0.99)), ("dctcp", (0.93, 0.95)), ("tcp", (0.99, 0.94))):
        if f"multi/{s}" in r:
            for port, p in zip(("R1->M", "R2->h5"), paper):
                v = r[f"multi/{s}"][port]["gbps"]
                rows.append(Headline(f"Table I {s.upper()} aggregate at {port.split('->')[0]}", f"{p} Gb/s", p - 0.03, p + 0.03, v,
                                     " Gb/s", "wire throughput of the bottleneck port; band +-0.03 Gb/s (absolute: "
                                     "3 points of the 1 Gb/s link)"))
    if all(f"multi/{s}" in r for s in SCHEMES):
        # Fig. 7: "the throughput difference of two TCP flows is larger than that in SAB and DCTCP".
        spread = {s: max(r[f"multi/{s}"]["gbps_L"] + r[f"multi/{s}"]["gbps_S"]) - min(r[f"multi/{s}"]["gbps_L"] + r[f"multi/{s}"]["gbps_S"])
                  for s in SCHEMES}
        other = max(spread["sab"], spread["dctcp"])
        rows.append(Headline("Fig. 7: per-flow spread at R1 (max - min), TCP / larger of SAB's and DCTCP's", "> 1", 1 + ORDER, None,
                             spread["tcp"] / other if other > 0 else float("inf"), "x",
                             "the 5 L and 10 S flows, throughput over the whole run; " + ORDER_NOTE))
    if "multi/sab" in r:
        # Fig. 8: "each long flow achieves more than half of throughput of each short flow".
        d = r["multi/sab"]
        rows.append(Headline("Fig. 8: SAB slowest L flow / fastest F flow at R2", "> 0.5", 0.5, None,
                             min(d["gbps_L"]) / max(d["gbps_F"]), "x", "the paper's own bound: an L/F RTT ratio below 2"))
    n_tcp, n_dctcp = collapse_n(r, "tcp"), collapse_n(r, "dctcp")
    ns = sorted(int(k.split("/")[2]) for k in r if k.startswith("incast/sab/"))
    if ns:
        rows.append(Headline("incast: TCP collapses (goodput < 0.5 Gb/s) from N", "~32", 24, 48, n_tcp, "",
                             "64 KB receive windows, as in the classic incast studies; band 0.75-1.5x (relative): "
                             "'after about 32' puts the first collapsed N of the grid past 32"))
        rows.append(Headline("incast: DCTCP degrades (goodput < 0.5 Gb/s) from N", "> 40", 41, None, n_dctcp, "",
                             "'after 40 connections' is the paper's bound; inf = never below 0.5 Gb/s here"))
        # The shape the threshold above cannot check: "after 40 connections, its throughput
        # gradually decreases" (§V-B.4). A DCTCP that never degrades must not pass, nor one that
        # collapses like TCP ("DCTCP performs better than TCP does").
        rows.append(Headline("incast: DCTCP goodput at the largest N / at N = 40", "< 1 (gradually decreases)", 0.5, 0.9,
                             degradation(r, "dctcp"), "x", "relative: a fall of 10 % at least, and of less than half "
                             "(a collapse is not gradual)"))
        drops = {s: sum(value(r, f"incast/{s}/{n}", "drops") for n in ns) for s in SCHEMES}
        other = max(drops["sab"], drops["dctcp"])
        rows.append(Headline("Fig. 11: incast drops over all N, TCP / larger of SAB's and DCTCP's", "> 1 ('TCP loses the maximum')",
                             1 + ORDER, None, drops["tcp"] / other if other > 0 else (float("inf") if drops["tcp"] > 0 else 1.0), "x",
                             ORDER_NOTE))
        rows.append(Headline("incast: SAB lowest goodput over N", "'well and stable'", 0.9, None,
                             min(value(r, f"incast/sab/{n}", "goodput_gbps") for n in ns), " Gb/s",
                             "absolute; the link rate is the upper side"))
        rows.append(Headline("incast: SAB drops over all N", "0", None, 0, drops["sab"], "", "'SAB does not lose any packets' (bound)"))

    def ratio(s, size=""):
        key = f"outcast/{s}" + (f"/{size}" if size else "")
        short, long_ = value(r, key, "short_mean_gbps"), value(r, key, "long_mean_gbps")
        return short / long_ if long_ > 0 else float("inf")

    fair_note = (f"1 - 5 % (relative) below; above, the base-RTT ratio {outcast_rtt_ratio():g} (throughput inversely "
                 "proportional to RTT, §I)")
    if "outcast/tcp" in r:
        rows.append(Headline("outcast: TCP short-RTT / long-RTT flow throughput", "< 1 (inverse RTT bias)", None, 1 - ORDER, ratio("tcp"), "x",
                             ORDER_NOTE))
        rows.append(Headline("outcast: SAB short / long flow throughput", "~1 (fair, RTT bias only)", 1 - ORDER, outcast_rtt_ratio(),
                             ratio("sab"), "x", fair_note))
        rows.append(Headline("outcast: SAB drops", "0", None, 0, value(r, "outcast/sab", "drops"), "", "'SAB does not lose any packets' (bound)"))
    sizes = [f"{nf}v{nl}" for nf, nl in OUTCAST_SIZES]
    several = [f"{nf}v{nl}" for nf, nl in OUTCAST_SIZES if nl >= 3 * nf]
    if all(f"outcast/tcp/{z}" in r for z in several) and several:
        rows.append(Headline(f"outcast {', '.join(several)}: TCP short / long, largest", "< 1 (Nl several times Nf)", None, 1 - ORDER,
                             max(ratio("tcp", z) for z in several), "x", "§V-B.5: 'TCP indeed suffers the Outcast problem "
                             "when N_l is several times of N_f'; several = 3x or more; " + ORDER_NOTE))
    if all(f"outcast/sab/{z}" in r for z in sizes):
        rows.append(Headline(f"outcast {', '.join(sizes)}: SAB short / long, lowest", "~1 (fair)", 1 - ORDER, None,
                             min(ratio("sab", z) for z in sizes), "x", "the lower side of the band below"))
        rows.append(Headline(f"outcast {', '.join(sizes)}: SAB short / long, highest", "~1 (fair)", None, outcast_rtt_ratio(),
                             max(ratio("sab", z) for z in sizes), "x", fair_note))
        rows.append(Headline(f"outcast {', '.join(sizes)}: SAB drops", "0", None, 0,
                             sum(value(r, f"outcast/sab/{z}", "drops") for z in sizes), "", "'SAB does not lose any packets' (Fig. 15)"))
    if "delay/sab" in r:
        mean = lambda s: float(np.nanmean(r[f"delay/{s}"]["data_ms"]))  # noqa: E731
        note = "mean over 1-20 KB, after connection setup (whole FCTs, SYN included, in runs.csv)"
        rows.append(Headline("short flows behind 30 long: TCP mean FCT", "~4 ms", 2, 6, mean("tcp"), " ms", note + "; +-50 % (relative)"))
        rows.append(Headline("short flows behind 30 long: DCTCP mean FCT", "~1 ms", 0.5, 1.5, mean("dctcp"), " ms",
                             note + "; +-50 % (relative)"))
        rows.append(Headline("short flows: SAB mean FCT / DCTCP's", "< 1 (SAB best)", None, 1 - ORDER, mean("sab") / mean("dctcp"), "x",
                             note + "; " + ORDER_NOTE))
        if all(f"delay/{s}" in r for s in SCHEMES):
            rows.append(Headline("Fig. 9: receiver goodput behind the short flows, lowest scheme", "> 0.99 Gb/s", 0.99, None,
                                 min(value(r, f"delay/{s}", "goodput_gbps") for s in SCHEMES), " Gb/s",
                                 "the paper's bound; wire bytes of the receiver's port (a 1 Gb/s link carries at most "
                                 "0.95 Gb/s of payload), the link rate above"))
    if all(f"mix/{s}" in r for s in MIX_SCHEMES):
        others = [s for s in MIX_SCHEMES if s != "sab"]
        g = lambda s, f: value(r, f"mix/{s}", f)  # noqa: E731
        much = f"'much better' read as at most 1/{MUCH:g} (relative), as Fig. 23's 'much larger'"
        rows.append(Headline("mix: SAB query p99.9 FCT / best other", "< 1 (much better, esp. tail)", None, 1 / MUCH,
                             g("sab", "query_p999_ms") / min(g(s, "query_p999_ms") for s in others), "x", much))
        rows.append(Headline("mix: SAB query mean FCT / best other", "< 1 (much better)", None, 1 / MUCH,
                             g("sab", "query_mean_ms") / min(g(s, "query_mean_ms") for s in others), "x", much))
        rows.append(Headline("mix: D2TCP query p99.9 / DCTCP's", "< 1 (D2TCP better)", None, 1 - ORDER,
                             g("d2tcp", "query_p999_ms") / g("dctcp", "query_p999_ms"), "x", ORDER_NOTE))
        # Fig. 17: "SAB performs better than DCTCP, D2TCP and TCP for flows smaller than 10KB, while
        # it performs worse for flows larger than 10KB".
        small = SIZE_BINS[0][2]
        rows.append(Headline(f"Fig. 17: SAB background p99.9 FCT {small} / best other", "< 1 (better)", None, 1 - ORDER,
                             g("sab", f"bg_p999_ms_{small}") / min(g(s, f"bg_p999_ms_{small}") for s in others), "x", ORDER_NOTE))
        large_bins = [b[2] for b in SIZE_BINS[1:]]
        rows.append(Headline("Fig. 17: SAB background p99.9 FCT / worst other, lowest over the bins >= 10KB", "> 1 (worse)",
                             1 + ORDER, None,
                             min(g("sab", f"bg_p999_ms_{b}") / max(g(s, f"bg_p999_ms_{b}") for s in others) for b in large_bins), "x",
                             f"bins {', '.join(large_bins)}; 'worse than DCTCP, D2TCP and TCP' = above the worst of them; "
                             + ORDER_NOTE))
        # Fig. 18: "SAB transfers data faster than DCTCP, D2TCP and TCP [...] The 99.9th percentile
        # value is almost the same as the mean value".
        rows.append(Headline("Fig. 18: SAB mean time per KB / best other", "< 1 (faster)", None, 1 - ORDER,
                             g("sab", "per_kb_mean_ms") / min(g(s, "per_kb_mean_ms") for s in others), "x",
                             "every measured flow's FCT over its size; " + ORDER_NOTE))
        rows.append(Headline("Fig. 18: SAB time per KB, p99.9 / mean", "~1 ('almost the same')", 1.0, 1.2,
                             g("sab", "per_kb_p999_ms") / g("sab", "per_kb_mean_ms"), "x",
                             "+20 % (relative), as Fig. 23's 'almost the same'; a p99.9 cannot be below a mean of "
                             "nearly equal values"))
    caps = sorted(int(k.split("/")[2]) for k in r if k.startswith("capacity/sab/"))
    if caps:
        rows.append(Headline("ns-2 1000 flows: SAB lowest utilization over 1-100 Gb/s", "'works well' (full)", 0.95, None,
                             min(value(r, f"capacity/sab/{c}", "utilization") for c in caps), "",
                             "absolute; the link rate is the upper side"))
        if all(f"capacity/tcp/{c}" in r for c in caps):
            rows.append(Headline("Fig. 19: SAB utilization - TCP's, lowest over 1-100 Gb/s", "> 0 ('a little higher')", -0.01, 0.05,
                                 min(value(r, f"capacity/sab/{c}", "utilization") - value(r, f"capacity/tcp/{c}", "utilization")
                                     for c in caps), "",
                                 "points of utilization: -0.01 for two full links within a sample's rounding, +0.05 for "
                                 "'a little'"))
        rows.append(Headline("ns-2 1000 flows: SAB timeouts per flow per s", "0", None, 0,
                             max(value(r, f"capacity/sab/{c}", "timeouts_per_flow_s") for c in caps), "",
                             "'Timeouts do not happen in SAB' (bound)"))
        rows.append(Headline("ns-2 1000 flows: TCP timeouts per flow per s (max)", "> 0", 1e-9, None,
                             max(value(r, f"capacity/tcp/{c}", "timeouts_per_flow_s") for c in caps), "",
                             "'It incurs many timeouts': the paper gives no number for 'many'"))
    if f"eps/{EPSILONS[0]}" in r:
        full = [e for e in EPSILONS if e >= 0.1]
        rows.append(Headline("eps sweep: lowest utilization for eps >= 0.1", "full", 0.97, None,
                             min(value(r, f"eps/{e}", "utilization") for e in full), "",
                             "3 points below full (absolute); the link rate is the upper side"))
        low = EPSILONS[0]
        rows.append(Headline(f"eps sweep: utilization at eps = {low:g} / (eps*B + headers) / CD", "~1 (eps*B < CD: not full)",
                             0.85, 1.15, value(r, f"eps/{low}", "utilization") / eps_window_utilization(low), "x",
                             f"Prop. 1: a window sum below CD fills that share of the link ({eps_window_utilization(low):.3f} "
                             "on the wire); +-15 % (relative)"))
        errs = [abs(value(r, f"eps/{e}", "mean_queue_kb") - eps_queue_kb(e)) / eps_queue_kb(e) for e in EPSILONS if 0.2 <= e < 0.9]
        rows.append(Headline("eps sweep: queue vs eps*B - CD (0.2 <= eps < 0.9), worst error", "~0", None, 0.15, max(errs), "",
                             "relative; eps*B - CD plus the 40 B header of each sender's one sub-MSS segment (100 x 40 B)"))
        high = [e for e in EPSILONS if e >= 0.9]
        rows.append(Headline("eps sweep: queue / (eps*B - CD + headers) at eps >= 0.9, highest", "< 1 ('smaller than the computed value')",
                             None, 1 - ORDER, max(value(r, f"eps/{e}", "mean_queue_kb") / eps_queue_kb(e) for e in high), "x",
                             "the window's fraction of a segment is dropped; " + ORDER_NOTE))
    rows += large_headlines(r)
    rows += prop2_headlines(r)
    rows += ratelimit_headlines(r)
    return rows


def ratelimit_headlines(r: dict) -> list[Headline]:
    """Fig. 22: "without rate limitation, the long flows can obtain about 270 Mbps bandwidth. Flow
    sets S and F take about 720 Mbps"; with 150 Mb/s on L, "S and F accordingly increase their
    throughput to about 840 Mbps, that is, the bottleneck links at the switches R_1 and R_2 are
    still fully utilized". Bands +-15 % (relative) of the paper's values; full reads as >= 0.97.
    Set throughputs are wire bytes on the ports each set crosses (the paper does not say whether
    its throughput counts headers)."""
    if "ratelimit/off" not in r or "ratelimit/on" not in r:
        return []
    off, on = r["ratelimit/off"], r["ratelimit/on"]
    b = lambda v: relative_band(v, 0.15)  # noqa: E731
    rows = [
        Headline("Fig. 22: set L without a limit", "~270 Mb/s", *b(270), off["L_mbps"], " Mb/s", "+-15 % (relative)"),
        Headline("Fig. 22: sets S and F without a limit (lower)", "~720 Mb/s", *b(720), min(off["S_mbps"], off["F_mbps"]), " Mb/s",
                 "+-15 % (relative)"),
        Headline("Fig. 22: sets S and F without a limit (higher)", "~720 Mb/s", *b(720), max(off["S_mbps"], off["F_mbps"]), " Mb/s",
                 "+-15 % (relative)"),
        Headline("Fig. 22: set L's goodput limited to 150 Mb/s", "150 Mb/s", *b(150), on["L_payload_mbps"], " Mb/s",
                 "the limit as the applications apply it (payload); on the wire L carries its sub-MSS segments' headers too"),
        Headline("Fig. 22: S and F with L limited (lower)", "~840 Mb/s", *b(840), min(on["S_mbps"], on["F_mbps"]), " Mb/s",
                 "+-15 % (relative)"),
        Headline("Fig. 22: S and F with L limited (higher)", "~840 Mb/s", *b(840), max(on["S_mbps"], on["F_mbps"]), " Mb/s",
                 "+-15 % (relative)"),
        # The shape: S and F gain what L gives up (840 / 720 in the paper); +-0.08 keeps a set that
        # does not move (ratio 1) a miss while the per-value bands above cannot.
        Headline("Fig. 22: S and F with L limited / without (lower)", "~1.17x", 1.09, 1.25,
                 min(on["S_mbps"] / off["S_mbps"], on["F_mbps"] / off["F_mbps"]), "x", "840 / 720; +-0.08 (absolute in the ratio, 7 % relative)"),
        Headline("Fig. 22: R1 and R2 with L limited, lower / 1 Gb/s", "full", 0.97, 1.02,
                 min(on["R1_mbps"], on["R2_mbps"]) / 1e3, "", "'still fully utilized'; wire bytes over 1 ms samples"),
    ]
    return rows


def large_headlines(r: dict) -> list[Headline]:
    """Figs. 23-24 (§VI-D), from the text: SAB's mean query time 0.01 ms below D2TCP's and 0.02 ms
    below DCTCP's; "the 99.9th percentile tail latency in D2TCP is smaller than in SAB"; "the
    99.99th percentile tail latency in D2TCP is much larger than its 99.9th"; "the 99.99th
    percentile tail latency in SAB is almost the same as its 99.9th"; TCP's tail "quite high"
    (a 2 KB query recovers a loss only by a 200 ms timeout); background flows: "The 95th percentile
    tail latency of SAB is a little larger than D2TCP and DCTCP", "TCP performs worst"."""
    if not all(f"large/{s}" in r for s in MIX_SCHEMES):
        return []
    g = lambda s, f: value(r, f"large/{s}", f)  # noqa: E731
    rows = [
        Headline("Fig. 23: SAB mean query FCT - D2TCP's", "-0.01 ms", -0.03, 0.0, g("sab", "query_mean_ms") - g("d2tcp", "query_mean_ms"),
                 " ms", "+-0.02 ms (absolute) around the paper's value, capped at 0 by its 'faster'"),
        Headline("Fig. 23: SAB mean query FCT - DCTCP's", "-0.02 ms", -0.04, 0.0, g("sab", "query_mean_ms") - g("dctcp", "query_mean_ms"),
                 " ms", "+-0.02 ms (absolute), capped at 0 by 'faster'"),
        Headline("Fig. 23: D2TCP query p99.9 / SAB's", "< 1", None, 1 - ORDER, g("d2tcp", "query_p99.9_ms") / g("sab", "query_p99.9_ms"),
                 "x", ORDER_NOTE),
        Headline("Fig. 23: D2TCP query p99.99 / its p99.9", ">> 1 ('much larger')", MUCH, None,
                 g("d2tcp", "query_p99.99_ms") / g("d2tcp", "query_p99.9_ms"), "x", f"'much larger' read as {MUCH:g}x or more (relative)"),
        Headline("Fig. 23: SAB query p99.99 / its p99.9", "~1 ('almost the same')", 1.0, 1.2,
                 g("sab", "query_p99.99_ms") / g("sab", "query_p99.9_ms"), "x", "band +20 % (relative); a p99.99 is never below the p99.9"),
        Headline("Fig. 23: TCP query p99.99 FCT", ">= 200 ms (a timeout)", 200, None, g("tcp", "query_p99.99_ms"), " ms",
                 "'quite high': a 2 KB query recovers a loss only by a timeout of RTO_min = 200 ms (the bound)"),
        Headline("Fig. 24: SAB background p95 FCT / higher of D2TCP's and DCTCP's", "a little > 1", 1 + ORDER, 1.5,
                 g("sab", "bg_p95_ms") / max(g("d2tcp", "bg_p95_ms"), g("dctcp", "bg_p95_ms")), "x",
                 "'larger than D2TCP and DCTCP': above both; 'a little' read as up to +50 % (relative); " + ORDER_NOTE),
        Headline("Fig. 24: TCP background mean FCT / highest other", "> 1 (TCP worst)", 1 + ORDER, None,
                 g("tcp", "bg_mean_ms") / max(g(s, "bg_mean_ms") for s in MIX_SCHEMES if s != "tcp"), "x", ORDER_NOTE),
    ]
    return rows


def prop2_headlines(r: dict) -> list[Headline]:
    """Proposition 2 / eq. (4) on §IV-C's example: SAB is lossless and fills the link for every
    count error within η_max; "SAB does not lose packets unless the estimation error exceeds
    η_max". An under-count (N̂ < N) enlarges every window and loses packets past η_max; an
    over-count shrinks them, and the bound (CD_max on the window sum) is only sufficient there
    with mixed RTTs. The paper writes the loss probability as Pr{(N̂ − N)/N > η_max}, an over-count;
    since an over-count only shrinks the windows εB/N̂, we read it as the under-count of η's own
    definition |N − N̂|/N."""
    errs = sorted(float(k.split("/")[1]) for k in r if k.startswith("prop2/"))
    if not errs:
        return []
    eta = prop2_eta_max()
    g = lambda e, f: value(r, f"prop2/{e:+g}", f)  # noqa: E731
    inside = [e for e in errs if abs(e) <= eta]
    under = [e for e in errs if e < 0]
    lossy = [-e for e in under if g(e, "drops") > 0]
    rows = [
        Headline(f"Prop. 2: lowest utilization, |count error| <= eta_max ({len(inside)} runs)", "full", 0.99, None,
                 min(g(e, "utilization") for e in inside), "",
                 f"eps = {prop2_epsilon():.4f} from eq. (3); C = 1 Gb/s, D = 100/300 us, B = 512 KB, 100 flows"),
        Headline(f"Prop. 2: drops, |count error| <= eta_max", "0", None, 0, sum(g(e, "drops") for e in inside), ""),
        Headline("Prop. 2: smallest under-count error with losses", f"> eta_max = {eta:.4f}", eta, 0.95,
                 min(lossy) if lossy else float("inf"), "",
                 f"over the errors run ({', '.join(f'{-e:g}' for e in sorted(under, reverse=True))}); band: above eta_max "
                 "(the paper's bound), within 10 % (relative) of it (the grid's resolution)"),
    ]
    return rows


# ---- figures -----------------------------------------------------------------------------------

#: The paper's values on our figures (report.html; drawn by FigureSaver): each from the text, with
#: the band its headline uses where that band is in the figure's units. Panels of
#: fig3_fig5_convergence: row 1 throughput, row 2 queue, one column per scheme (SCHEMES order).
STATED: list[Stated] = [
    Stated("fig3_fig5_convergence", "TCP 'probes the maximum of the buffer size per port' (512 KB)", "§V-B.1, Fig. 5", 512, 0.85 * 512, 512,
           axes=3 + SCHEMES.index("tcp")),
    Stated("fig3_fig5_convergence", "'and then decreases to about half of it'", "§V-B.1, Fig. 5", 256, 0.35 * 512, 0.65 * 512,
           axes=3 + SCHEMES.index("tcp")),
    Stated("fig4_joining_flow", "DCTCP 'spends 50 milliseconds in evolving to the desired value, i.e., 0.5 Gbps' (band 0.5-2x)",
           "§V-B.1, Fig. 4", 0.5, x=50, span=(25, 100)),
    Stated("fig9_short_flow_delay", "TCP: short flows take about 4 ms (mean over 1-20 KB)", "§V-B.3, Fig. 9", 4, 2, 6),
    Stated("fig9_short_flow_delay", "DCTCP: about 1 ms", "§V-B.3, Fig. 9", 1, 0.5, 1.5),
    Stated("fig10_fig11_incast", "TCP's goodput collapses 'after about 32' senders (band 24-48)", "§V-B.4, Fig. 10", span=(24, 48)),
    Stated("fig22_rate_limit", "no limit: set L about 270 Mb/s", "§VI-B, Fig. 22", 270, *relative_band(270, 0.15), x="set L", dx=-0.19),
    Stated("fig22_rate_limit", "no limit: sets S and F about 720 Mb/s", "§VI-B, Fig. 22", 720, *relative_band(720, 0.15), x="set S", dx=-0.19),
    Stated("fig22_rate_limit", "no limit: sets S and F about 720 Mb/s", "§VI-B, Fig. 22", 720, *relative_band(720, 0.15), x="set F", dx=-0.19),
    Stated("fig22_rate_limit", "L limited to 150 Mb/s (payload; ours on the wire)", "§VI-B, Fig. 22", 150, *relative_band(150, 0.15),
           x="set L", dx=0.19),
    Stated("fig22_rate_limit", "S and F 'increase their throughput to about 840 Mbps'", "§VI-B, Fig. 22", 840, *relative_band(840, 0.15),
           x="set S", dx=0.19),
    Stated("fig22_rate_limit", "S and F 'increase their throughput to about 840 Mbps'", "§VI-B, Fig. 22", 840, *relative_band(840, 0.15),
           x="set F", dx=0.19),
]

#: The setup, each choice with the paper's sentence it rests on (docs/reproductions/sab.md; report.html).
SETUP: list[Setup] = [
    Setup("hosts", "Linux 2.6.38 (IW 3, 200 ms minimum RTO, delayed ACKs, SACK, no RACK/TLP), SYN handshake for every scheme",
          "§V-A: 'We implemented the end host part of SAB in Linux kernel 2.6.38.3'; 'TCP NewReno (with SACK) is implemented in "
          "the kernel 2.6.38.3'"),
    Setup("SAB receivers", "ACK every segment", "not in the text: with windows of 1-2 segments a delayed ACK would wait 40 ms every RTT"),
    Setup("links", "1 Gb/s, 25 us one way (100 us base RTT through one switch)",
          "§V-A: 'four 1 Gbps ports'; the testbed's RTT is not in the text (ours: the ns-2 runs' 100 us)"),
    Setup("buffer, marking", "512 KB per port; DCTCP and D2TCP marked at 32 KB; SAB's epsilon = 1/2",
          "§V-A: 'a buffer of 512 KB per port'; 'The threshold of marking packets in DCTCP and D2TCP is 32 KB as recommended "
          "in [4]. In SAB, epsilon is set to 1/2'"),
    Setup("Fig. 6 topology", "the chain h1,h2 - R1 - M(h3) - R2 - h4,h5; Ns = 10, Nl = 5, Nf = 15",
          "not drawn in the text: the chain that matches §V-B.2's sets and RTT ratio"),
    Setup("incast, outcast", "one host per flow; persistent incast connections, 256 KB blocks, 64 KB receive windows",
          "§V-B.4-5 (the blocks); hosts, windows and persistent connections are not in the text: the storage-cluster incast of [7]"),
    Setup("benchmark mix", "9 hosts on three 1 Gb/s leaves under one spine; queries 2 KB, short messages 100 KB-1 MB, background "
          "web search; loads 0.01 / 0.05 / 0.3; 10 ms/KB deadlines", "§V-B.6 (Fig. 14's testbed as far as the text describes it)"),
    Setup("ns-2 runs", "1000 B packets (960 B payload), NewReno without SACK, IW 2, 200 ms minimum RTO; buffer (300C + 3000)/11 KB",
          "§VI-A: the buffer rule and 1 KB packets; IW 2 and no SACK are ns-2's defaults (not in the text)"),
    Setup("Figs. 23-24", "the mix on 20 racks of 20 servers, 1 Gb/s in a rack, 10 Gb/s uplinks (4 racks reduced)",
          "§VI-D: '20 racks, each rack has 20 servers'"),
]


def figures(r: dict, out: Path, scale: str) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    save = FigureSaver(out, STATED)

    conv = [s for s in SCHEMES if f"conv/{s}" in r]
    if conv:
        fig, axes = plt.subplots(2, len(conv), figsize=(4 * len(conv), 6), squeeze=False)
        for j, s in enumerate(conv):
            d = r[f"conv/{s}"]
            for h in ("h1", "h2", "h3"):
                if f"gbps_{h}" in d:
                    axes[0][j].plot(d["time_s"], d[f"gbps_{h}"], label=f"flow from {h}")
            axes[0][j].set_title(f"Fig. 3: {s.upper()}")
            axes[0][j].set_ylabel("throughput (Gb/s, 10 ms samples)")
            axes[0][j].set_ylim(0, 1.1)
            axes[0][j].legend(fontsize=7)
            axes[1][j].plot(d["queue_time_s"], d["queue_kb"], color="C3")
            axes[1][j].set_ylabel("bottleneck queue (KB), Fig. 5")
            axes[1][j].set_xlabel("time (s)")
        save(fig, "fig3_fig5_convergence")

    if conv:
        gap = SCALES[scale]["conv_gap_s"]
        fig, ax = plt.subplots(figsize=(6, 4))
        for s in conv:
            t, b = fig4_series(r[f"conv/{s}"], gap)
            ax.plot(t, b, "o-", ms=3, label=s.upper())
        ax.axhline(0.5, color="k", ls="--", lw=1, label="fair share")
        ax.set_xlim(0, FIG4_WINDOW_S * 1e3)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("time since flow 2 started (ms)")
        ax.set_ylabel("throughput of flow 2 (Gb/s, 10 ms samples)")
        ax.set_title("Fig. 4: a long-lived flow exists; the second flow joins")
        ax.legend(fontsize=8)
        save(fig, "fig4_joining_flow")

    inc = [s for s in SCHEMES if any(k.startswith(f"incast/{s}/") for k in r)]
    if inc:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
        for s in inc:
            ns = sorted(int(k.split("/")[2]) for k in r if k.startswith(f"incast/{s}/"))
            a1.plot(ns, [value(r, f"incast/{s}/{n}", "goodput_gbps") for n in ns], "o-", label=s.upper())
            a2.plot(ns, [value(r, f"incast/{s}/{n}", "losses_per_flow_s") for n in ns], "o-", label=s.upper())
        a1.set_xlabel("number of flows")
        a1.set_ylabel("goodput (Gb/s)")
        a1.set_title("Fig. 10: incast, 256 KB blocks")
        a2.set_xlabel("number of flows")
        a2.set_ylabel("lost packets per flow per second")
        a2.set_title("Fig. 11")
        a1.legend()
        save(fig, "fig10_fig11_incast")

    multi = [s for s in SCHEMES if f"multi/{s}" in r]
    if multi:
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
        for k, (dst, title) in enumerate((("h3", "Fig. 7: flows through R1 (L then S)"), ("h5", "Fig. 8: flows through R2 (L then F)"))):
            for s in multi:
                d = r[f"multi/{s}"]
                sel = [g for g, dd, src in zip(d["flow_gbps"], d["flow_dst"], d["flow_src"]) if dd == dst or (src == "h1")]
                j = d.get("jain_R1" if dst == "h3" else "jain_R2")
                axes[k].plot(range(1, len(sel) + 1), sel, "o-",
                             label=s.upper() + (f" (Jain {j:.2f})" if j is not None else ""))
            axes[k].set_title(title)
            axes[k].set_xlabel("flow")
            axes[k].set_ylabel("throughput (Gb/s)")
            axes[k].legend()
        save(fig, "fig7_fig8_multibottleneck")

    delay = [s for s in SCHEMES if f"delay/{s}" in r]
    if delay:
        fig, ax = plt.subplots(figsize=(6, 4))
        for s in delay:
            ax.plot(r[f"delay/{s}"]["size_kb"], r[f"delay/{s}"]["data_ms"], "o-", label=s.upper())
            ax.plot(r[f"delay/{s}"]["size_kb"], r[f"delay/{s}"]["fct_ms"], ":", color=ax.lines[-1].get_color(), lw=1)
        ax.set_xlabel("flow size (KB)")
        ax.set_ylabel("completion time after setup (ms; dotted: with SYN)")
        ax.set_title("Fig. 9: short flows behind 30 long-lived flows")
        ax.legend()
        save(fig, "fig9_short_flow_delay")

    out_s = [s for s in SCHEMES if f"outcast/{s}" in r]
    if out_s:
        fig, ax = plt.subplots(figsize=(7, 3.6))
        for i, s in enumerate(out_s):
            g = r[f"outcast/{s}"]["flow_gbps"]
            ax.bar([x + 0.27 * (i - 1) for x in range(1, len(g) + 1)], g, 0.27, label=s.upper())
        ax.set_xlabel("flow (1-2: short RTT, others: long RTT)")
        ax.set_ylabel("throughput (Gb/s)")
        ax.set_title("Fig. 13: outcast, Nf = 2, Nl = 10")
        ax.legend()
        losses = ", ".join(f"{s.upper()} {value(r, f'outcast/{s}', 'losses_per_flow_s'):.2f}" for s in out_s)
        ax.text(0.01, 0.97, f"Fig. 15, lost packets per flow per s: {losses}", transform=ax.transAxes, va="top", fontsize=8)
        save(fig, "fig13_fig15_outcast")

    sizes = [(nf, nl) for nf, nl in OUTCAST_SIZES if any(f"outcast/{s}/{nf}v{nl}" in r for s in SCHEMES)]
    if sizes:
        fig, axes = plt.subplots(1, len(sizes), figsize=(4.5 * len(sizes), 3.6), squeeze=False)
        for ax, (nf, nl) in zip(axes[0], sizes):
            present = [s for s in SCHEMES if f"outcast/{s}/{nf}v{nl}" in r]
            for i, s in enumerate(present):
                g = r[f"outcast/{s}/{nf}v{nl}"]["flow_gbps"]
                ax.bar([x + 0.27 * (i - 1) for x in range(1, len(g) + 1)], g, 0.27, label=s.upper())
            ax.set_xlabel(f"flow (1-{nf}: short RTT, others: long RTT)" if nf > 1 else "flow (1: short RTT, others: long RTT)")
            ax.set_ylabel("throughput (Gb/s)")
            ax.set_title(f"outcast, Nf = {nf}, Nl = {nl}")
            ax.legend(fontsize=7)
        save(fig, "fig13_outcast_group_sizes")

    mixes = [s for s in MIX_SCHEMES if f"mix/{s}" in r]
    if mixes:
        fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(14, 3.6))
        x = np.arange(3)
        for i, s in enumerate(mixes):
            a1.bar(x + 0.2 * (i - 1.5), [value(r, f"mix/{s}", k) for k in ("query_mean_ms", "query_p99_ms", "query_p999_ms")], 0.2,
                   label=s.upper())
            a2.bar(np.arange(len(SIZE_BINS)) + 0.2 * (i - 1.5), [value(r, f"mix/{s}", f"bg_p999_ms_{b[2]}") for b in SIZE_BINS], 0.2,
                   label=s.upper())
        a1.set_xticks(x, ["mean", "99th", "99.9th"])
        a1.set_yscale("log")
        a1.set_ylabel("query completion time (ms)")
        a1.set_title("Fig. 16: query flows")
        a1.legend(fontsize=7)
        a2.set_xticks(np.arange(len(SIZE_BINS)), [b[2] for b in SIZE_BINS])
        a2.set_yscale("log")
        a2.set_ylabel("99.9th pct completion (ms)")
        a2.set_title("Fig. 17: background flows")
        for i, s in enumerate(mixes):
            a3.bar(np.arange(2) + 0.2 * (i - 1.5), [value(r, f"mix/{s}", k) for k in ("per_kb_mean_ms", "per_kb_p999_ms")], 0.2,
                   label=s.upper())
        a3.set_xticks(np.arange(2), ["mean", "99.9th"])
        a3.set_yscale("log")
        a3.set_ylabel("completion time per KB (ms)")
        a3.set_title("Fig. 18: time per KB, all flows")
        save(fig, "fig16_fig17_fig18_mix")

    caps = sorted({int(k.split("/")[2]) for k in r if k.startswith("capacity/")})
    if caps:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
        for s in ("sab", "tcp"):
            a1.plot(caps, [value(r, f"capacity/{s}/{c}", "utilization") for c in caps], "o-", label=s.upper())
            a2.plot(caps, [value(r, f"capacity/{s}/{c}", "timeouts_per_flow_s") for c in caps], "o-", label=s.upper())
        a1.set_xlabel("link capacity (Gb/s)")
        a1.set_ylabel("bottleneck utilization")
        a1.set_title("Fig. 19: 1000 flows")
        a2.set_xlabel("link capacity (Gb/s)")
        a2.set_ylabel("timeouts per flow per second")
        a2.set_title("Fig. 20")
        a1.legend()
        save(fig, "fig19_fig20_capacity")

    if any(k.startswith("eps/") for k in r):
        fig, ax = plt.subplots(figsize=(6, 4))
        ax2 = ax.twinx()
        ax.plot(EPSILONS, [value(r, f"eps/{e}", "utilization") for e in EPSILONS], "o-", label="utilization")
        ax2.plot(EPSILONS, [value(r, f"eps/{e}", "mean_queue_kb") for e in EPSILONS], "s-", color="C3", label="queue (KB)")
        ax2.plot(EPSILONS, [e * 128 - 12.5 for e in EPSILONS], "k--", label="eps*B - CD")
        ax.set_xlabel("epsilon")
        ax.set_ylabel("bottleneck utilization")
        ax2.set_ylabel("mean queue (KB)")
        ax.set_title("Fig. 21: impact of epsilon (100 senders, B = 128 KB)")
        ax2.legend(loc="lower right", fontsize=8)
        save(fig, "fig21_epsilon")

    large_s = [s for s in MIX_SCHEMES if f"large/{s}" in r]
    if large_s:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 3.8))
        qk = ["query_mean_ms", "query_p99_ms", "query_p99.9_ms", "query_p99.99_ms"]
        bk = ["bg_mean_ms", "bg_p95_ms", "bg_p99_ms"]
        for i, s in enumerate(large_s):
            a1.bar(np.arange(len(qk)) + 0.2 * (i - 1.5), [value(r, f"large/{s}", k) for k in qk], 0.2, label=s.upper())
            a2.bar(np.arange(len(bk)) + 0.2 * (i - 1.5), [value(r, f"large/{s}", k) for k in bk], 0.2, label=s.upper())
        racks = SCALES[scale]["large_racks"]
        a1.set_xticks(np.arange(len(qk)), ["mean", "99th", "99.9th", "99.99th"])
        a1.set_yscale("log")
        a1.set_ylabel("query completion time (ms)")
        a1.set_title(f"Fig. 23: queries, {racks} racks x 20 servers")
        a1.legend(fontsize=7)
        a2.set_xticks(np.arange(len(bk)), ["mean", "95th", "99th"])
        a2.set_yscale("log")
        a2.set_ylabel("background completion time (ms)")
        a2.set_title("Fig. 24: background flows")
        save(fig, "fig23_fig24_large")

    errs = sorted(float(k.split("/")[1]) for k in r if k.startswith("prop2/"))
    if errs:
        eta = prop2_eta_max()
        fig, ax = plt.subplots(figsize=(6.5, 4))
        ax2 = ax.twinx()
        x = [1 + e for e in errs]
        ax.plot(x, [value(r, f"prop2/{e:+g}", "utilization") for e in errs], "o-", label="utilization")
        ax2.plot(x, [value(r, f"prop2/{e:+g}", "drops") for e in errs], "s-", color="C3", label="drops")
        for v in (1 - eta, 1 + eta):
            ax.axvline(v, color="k", ls="--", lw=1)
        ax.set_xscale("log")
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("estimated / true flow count, N_hat/N (dashed: 1 -+ eta_max, eq. (4))")
        ax.set_ylabel("bottleneck utilization")
        ax2.set_ylabel("drops")
        ax2.legend(loc="lower left", fontsize=8)
        ax.set_title(f"Prop. 2: eps = {prop2_epsilon():.3f}, D = 100/300 us, B = 512 KB, 100 flows")
        save(fig, "prop2_count_error")

    if "ratelimit/off" in r and "ratelimit/on" in r:
        fig, ax = plt.subplots(figsize=(6, 4))
        sets = ["S", "L", "F"]
        x = np.arange(len(sets))
        for k, (key, label) in enumerate((("off", "no limit"), ("on", f"L limited to {RATELIMIT_L_MBPS} Mb/s"))):
            ax.bar(x + (k - 0.5) * 0.38, [r[f"ratelimit/{key}"][f"{n}_mbps"] for n in sets], 0.38, label=label)
        ax.set_xticks(x, [f"set {n}" for n in sets])
        ax.set_ylabel("throughput on the wire (Mb/s)")
        ax.set_title("Fig. 22: N_s = 300, N_l = 200, N_f = 200 SAB flows")
        ax.legend(fontsize=8)
        save(fig, "fig22_rate_limit")
    return save.written


def rate_table(r: dict) -> pd.DataFrame:
    """The benchmark mix at our loads (`mix/`) beside the same mix at the testbed's 55 flows/s
    (`sensitivity/rate/`): measured flows, query FCTs, short-message and background mean FCTs,
    the fraction of deadline flows that missed, timeouts."""
    rows = []
    for s in MIX_SCHEMES:
        for point, label in ((f"mix/{s}", "ours"), (f"sensitivity/rate/{s}", "55 flows/s")):
            if point in r:
                d = r[point]
                rows.append({"scheme": s.upper(), "mix": label, "flows": d.get("flows"), "query mean ms": d["query_mean_ms"],
                             "query p99 ms": d["query_p99_ms"], "query p99.9 ms": d["query_p999_ms"], "query max ms": d["query_max_ms"],
                             "short mean ms": d.get("short_mean_ms"), "background mean ms": d.get("bg_mean_ms"),
                             "deadline miss": d["deadline_miss"], "timeouts": d["timeouts"]})
    return pd.DataFrame(rows)


def print_rate_sensitivity(r: dict, scale: str, file=sys.stdout) -> None:
    t = rate_table(r)
    if t.empty or not (t["mix"] == "55 flows/s").any():
        return
    print(f"\nsensitivity (reported, not scored): the mix at the testbed's {PAPER_FLOWS_PER_S:g} flows/s (§V-B.6: 33 K flows in "
          f"10 minutes), our shares of queries / short messages / background, {SCALES[scale]['rate_s']:g} s; "
          "beside it the mix at our loads (about 6 000 flows/s)", file=file)
    print(t.to_string(index=False, float_format=lambda v: f"{v:.3g}"), file=file)


def runs_frame(results: dict) -> pd.DataFrame:
    flat = []
    for k, d in sorted(results.items()):
        row = {"point": k}
        for f, v in d.items():
            if isinstance(v, dict):
                row.update({f"{f}.{kk}": vv for kk, vv in v.items()})
            elif not isinstance(v, list):
                row[f] = v
        flat.append(row)
    return pd.DataFrame(flat)


def reproduce(scale: str = "reduced", output: str | Path = "reproduce-sab", jobs: Optional[int] = None,
              progress: bool = True, only: Optional[list[str]] = None, model: str = "both", one_change: bool = False,
              dask: Optional[str] = None, finished: bool = False,
              changes: Optional[str | Sequence[str]] = None) -> dict:
    """Run the experiments in the text and/or artifact model, write runs.csv, headlines.csv (and
    one_change.csv) and the figures (the artifact model's in artifact/); print the table."""
    chosen = select_changes("sab", ARTIFACT, changes, model)
    out, sets = run_models("sab", scale, SCALES, points, output, jobs, progress, only, model, chosen,
                           CENTRAL_POINTS if one_change else (), dask=dask, run=not finished)
    results = primary(sets)
    runs = write_runs(out, sets, runs_frame)
    figs = model_figures(out, sets, lambda r, o: figures(r, o, scale))
    hl, models = finish_models(out, sets, lambda r: headlines(r, scale), f"SAB (IEEE JSAC 2014), scale = {scale}: paper vs ours",
                          chosen, CENTRAL, len(ARTIFACT))
    write_report(out, "sab", models, CENTRAL, figs, STATED, SETUP, chosen)
    print_rate_sensitivity(results, scale)
    sens = {k: d for k, d in results.items() if k.startswith(("sensitivity/delay/", "sensitivity/mix/"))}
    if sens:
        print(f"\nsensitivity (not the paper's setting): SAB with epsilon = {SMALL_EPSILON} instead of {EPSILON}")
        for k, d in sorted(sens.items()):
            if k.startswith("sensitivity/delay/"):
                base_ms = float(np.nanmean(results.get("delay/sab", {}).get("data_ms", [np.nan])))
                dc = float(np.nanmean(results.get("delay/dctcp", {}).get("data_ms", [np.nan])))
                print(f"  short flows after setup: mean {np.nanmean(d['data_ms']):.2f} ms (eps {EPSILON}: {base_ms:.2f} ms, DCTCP {dc:.2f} ms)")
            else:
                m = results.get("mix/sab", {})
                dc = results.get("mix/dctcp", {})
                print(f"  mix queries: mean {d['query_mean_ms']:.2f} ms, p99.9 {d['query_p999_ms']:.2f} ms "
                      f"(eps {EPSILON}: {m.get('query_mean_ms', float('nan')):.2f} / {m.get('query_p999_ms', float('nan')):.2f} ms; "
                      f"DCTCP {dc.get('query_mean_ms', float('nan')):.2f} / {dc.get('query_p999_ms', float('nan')):.2f} ms)")
    print(f"\nwrote {out}/runs.csv, headlines.csv and {len(figs)} figures; every run is kept in {out}/store "
          f"(a sweep store: fabricsim report {out}/store)", file=sys.stderr)
    return {"runs": runs, "headlines": hl}
