"""Reproduction of Suo, Pang, Li et al., "PPT: A Pragmatic Transport for Datacenters" (SIGCOMM
2024): the large-scale simulations of §6.2-§6.3 and appendices D-F.

Experiments (paper figure -> point prefix):
- Figs. 12, 13, 21: web search, data mining and memcached (Homa W1) on the 1.4:1 leaf-spine,
  every scheme (`main/WORKLOAD/SCHEME`).
- Fig. 14: PPT on the Swift-like delay transport against that transport alone, web search
  (`delay/websearch/SCHEME`).
- Figs. 15-18: PPT without LCP ECN, without EWD, without scheduling, without identification
  (`ablation/websearch/VARIANT`).
- Fig. 20: bottleneck utilization of DCTCP and PPT, two senders into one 40 Gb/s receiver,
  100 us samples over 10 ms (`util/SCHEME`).
- Fig. 23: N-to-1 incast, N = 32, 64, 128, 256, web search at load 0.6 (`incast/N/SCHEME`).
- Fig. 24: RC3 with its low-priority queues limited to 20-80 % of the port buffer (`rc3buf/PCT`).
- Fig. 25: PIAS and HPCC against PPT (`others/websearch/SCHEME`).
- Fig. 26: the non-oversubscribed 10/40 Gb/s variant (`nonover/websearch/SCHEME`).
- Fig. 27: PPT's send buffer from 128 KB to 2 GB (`sndbuf/SIZE`).

Schemes the engine does not list (`fabricsim list cc`, `fabricsim list transports`) are left out
of the run with a note, and their headlines print "n/a": the pipeline runs before and after PPT,
RC3 and Aeolus exist. Their names are the lists below (adjust them here only).

Every setup choice and the sentence it comes from is in docs/reproductions/ppt.md; the choices
the paper leaves open were fixed before any run and are marked there.
"""

from __future__ import annotations

import copy
import random
import sys
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import pandas as pd

from ..ports import declared, declared_host
from .common import (Change, FigureSaver, Headline, Setup, Stated, cdf_points, finish_models, model_figures, pct_lower, primary,
                     run_models, runs_table, select_changes, value, wide_band, write_runs)
from .page import write_report
# queue() and the ns-3 K change call it `_bytes`.
from .common import size_bytes as _bytes

# ---- scheme names (the one place to adjust them) -------------------------------------------------
#: Figs. 12, 13, 21, 26: PPT against the proactive transports and the reactive ones.
SCHEMES = ["ppt", "ndp", "aeolus", "homa", "rc3", "dctcp"]
#: Figs. 15-18, in the paper's order.
ABLATIONS = ["ppt-no-lcp-ecn", "ppt-no-ewd", "ppt-no-sched", "ppt-no-ident"]
#: Fig. 25 (appendix D).
OTHERS = ["pias", "hpcc"]
#: Fig. 14 (§6.3): the Swift-like delay transport and PPT built on it, web search at load 0.5.
DELAY_SCHEMES = ["swift", "ppt-swift"]
#: Fig. 23: "We compare PPT with NDP, Homa, Aeolus and DCTCP" (RC3 left out by the paper).
INCAST_SCHEMES = ["ppt", "ndp", "homa", "aeolus", "dctcp"]
#: Schemes that are transport kinds (`kind = ...`); every other name is a TCP `cc`.
KINDS = {"ndp", "homa", "aeolus"}
#: The TCP transport key for the send-buffer capacity (§6.2: 2 GB for PPT and RC3; Fig. 27).
SEND_BUFFER_KEY = "send_buffer"
#: Extra switch-port keys Aeolus needs for selective dropping, beyond Homa's 8 priority queues.
#: Neither PPT nor the Aeolus text we have gives the threshold; htsim's Aeolus queue defaults to
#: 0.2 x the queue size, so 24 KB of the 120 KB port (fixed before any run; docs/reproductions/ppt.md).
AEOLUS_QUEUE: dict = {"selective_drop": "24KB"}

# ---- §6.2's setup ---------------------------------------------------------------------------------
LEAVES, SPINES, HOSTS_PER_LEAF = 9, 4, 16
HOST_RATE, CORE_RATE = "40Gbps", "100Gbps"
#: Not stated; 1 us per link gives a 8.9 us idle round trip across the spines, whose 40 Gb/s BDP
#: (44.4 KB) is the 45 KB RTTbytes §6.2 chose "to match our 40/100G topology".
LINK_DELAY = "1us"
BUFFER = "120KB"
K_DCTCP, K_HCP, K_LCP = "96KB", "96KB", "86KB"
QUEUES = 8  # P0-P3 HCP, P4-P7 LCP (§4.2)
RTT_BYTES, OVERCOMMIT = "45KB", 2
SEND_BUFFER = "2GB"
#: Only the testbed's value is stated (§6.1 "set the RTT_min to 10ms"); used for every TCP scheme.
MIN_RTO = "10ms"
LOAD = 0.5
#: The RTT-regime rows: 10 us per link gives an idle round trip of 81 us (eq. (3), K = λ·C·RTT with
#: λ = 0.17, K = 96 KB and C = 40 Gb/s, implies 113 us; 1 us links give 8.9 us).
LONG_LINK_DELAY = "10us"
#: The workloads of the central claims (PPT vs DCTCP, §6.2): their sensitivity and bound rows.
CENTRAL_WORKLOADS = ["websearch", "datamining"]
#: Simulated time of a point, the "10s" of `scenario` (a point stops earlier, when its flows are done).
SIM_END_PS = 10 * 10**12
#: §6.3.2: N-to-1 incast at load 0.6 on the receiver's link.
INCAST_LOAD, INCAST_N = 0.6, [32, 64, 128, 256]
#: Appendix D: RC3's low-priority traffic limited to 20 %..80 % of the switch buffer.
RC3_FRACTIONS = [0.2, 0.4, 0.6, 0.8]
#: Appendix F: "buffer sizes ranging from 128KB to 2G"; the text names 128 KB, 2 MB, 4 MB and 2 GB.
SEND_BUFFERS = ["128KB", "2MB", "4MB", "2GB"]
#: Appendix E: 16 hosts per leaf at 10 Gb/s, 40 Gb/s to the spines (1:1).
NONOVER = {"host": "10Gbps", "core": "40Gbps"}
#: Fig. 1 / Fig. 20: two senders, one receiver, 40 Gb/s bottleneck, K = 120 KB, 100 us samples for
#: 10 ms. The buffer is not stated: 1 MB, so that marking and not drops shapes the queue.
UTIL = {"k": "120KB", "buffer": "1MB", "sample": "100us", "from_s": 0.020, "to_s": 0.030}

WORKLOADS = {"websearch": "websearch", "datamining": "datamining", "memcached": "homa_w1"}
#: Flow classes of Figs. 12-13: small (0, 100 KB], large > 100 KB; "tail" read as the 99th percentile.
SMALL = 100e3

#: Flows per run. The paper states no flow counts; "paper" is our choice, ten times "reduced".
#: Memcached's flows average 188 B, so 500 000 of them last about 0.5 ms at load 0.5 on 144 hosts.
SCALES = {
    "reduced": {"websearch": 5000, "datamining": 2500, "memcached": 500000, "incast": 2000, "util_end": "30ms"},
    "paper": {"websearch": 50000, "datamining": 25000, "memcached": 2000000, "incast": 20000, "util_end": "30ms"},
}


# ---- which schemes the engine has ------------------------------------------------------------------
@lru_cache(maxsize=1)
def available() -> frozenset:
    """Congestion-control and transport-kind names the installed engine lists."""
    import fabricsim

    return frozenset(fabricsim.congestion_controls()) | frozenset(fabricsim.transports())


def has(scheme: str) -> bool:
    return scheme in available()


@lru_cache(maxsize=1)
def send_buffer_supported() -> bool:
    """Whether TCP transports take `send_buffer` (PPT's identification reads the first write)."""
    import fabricsim

    doc = {"simulation": {"end": "1ms"}, "topology": {"kind": "star", "hosts": 2, "link": {"rate": "1Gbps", "delay": "1us"}},
           "transport": {SEND_BUFFER_KEY: SEND_BUFFER}, "flows": [{"src": "h0", "dst": "h1", "size": "1KB"}]}
    try:
        fabricsim.validate(doc)
        return True
    except Exception:
        return False


# ---- scenarios -------------------------------------------------------------------------------------
def transport(scheme: str, *, rtt_bytes: str = RTT_BYTES, send_buffer: Optional[str] = None) -> dict:
    """One scheme's transport table (§6.2)."""
    if scheme == "ndp":
        # "For NDP, we use the simulator provided by the authors with their recommended
        # configurations": NDP's defaults (9000 B packets, IW 23, 1 ms RTO).
        return {"kind": "ndp"}
    if scheme in ("homa", "aeolus"):
        t: dict = {"kind": scheme}
        keys = {p["key"] for p in _kind_params(scheme)}
        for k, v in (("rtt_bytes", rtt_bytes), ("overcommitment", OVERCOMMIT), ("priorities", QUEUES)):
            if scheme == "homa" or k in keys:
                t[k] = v
        return t
    t = {"cc": scheme, "min_rto": MIN_RTO}
    if scheme in ("ppt", "rc3") or scheme.startswith("ppt-"):
        sb = send_buffer or SEND_BUFFER
        if send_buffer_supported():
            t[SEND_BUFFER_KEY] = sb
    if scheme == "pias":
        t["pias_thresholds"] = "websearch@0.5"
    return t


def _kind_params(kind: str) -> list:
    import fabricsim

    return fabricsim.transports().get(kind, ("", []))[1]


def fabric(host_rate: str = HOST_RATE, core_rate: str = CORE_RATE, link_delay: str = LINK_DELAY) -> dict:
    """§6.2's leaf-spine as a `[topology]` table."""
    return {"kind": "leaf_spine", "leaves": LEAVES, "spines": SPINES, "hosts_per_leaf": HOSTS_PER_LEAF,
            "host_link": {"rate": host_rate, "delay": link_delay}, "core_link": {"rate": core_rate, "delay": link_delay}}


def queue(scheme: str, *, k_hcp: str = K_HCP, k_lcp: str = K_LCP, buffer: str = BUFFER, rc3_fraction: Optional[float] = None,
          lcp_on_port: bool = False, lcp_marking: bool = False, topology: Optional[dict] = None) -> dict:
    """Switch ports, from each scheme's declared port setup (fabricsim.ports) with §6.2's values:
    120 KB per port; NDP on its own trimming ports; Homa and Aeolus on their 8 strict-priority
    queues (Aeolus with selective dropping); the TCP schemes on PPT's 8 strict-priority queues:
    PPT (and its variants) marks HCP queues (P0-P3) at 96 KB and LCP queues (P4-P7) at 86 KB,
    each on its own queue's length; with `lcp_on_port` (the alternative reading of §3.2, chosen
    after the first results: see docs/reproductions/ppt.md) LCP packets are marked on the port's
    buffer occupancy instead. The other TCP schemes mark every queue at DCTCP's 96 KB."""
    topo = topology or fabric()
    if scheme == "ndp":
        # "For NDP, we use the simulator provided by the authors with their recommended
        # configurations": NDP's own ports.
        return declared("ndp", topo, buffer)
    if scheme in ("homa", "aeolus"):
        return declared(scheme, topo, buffer, profile=transport(scheme), **(AEOLUS_QUEUE if scheme == "aeolus" else {}))
    if scheme in DELAY_SCHEMES or scheme == "hpcc":
        # Swift reads delay and HPCC reads INT, not ECN: PPT's queues without marking (PPT on
        # Swift's ports); Fig. 14's alternative reading (chosen after the first results) keeps
        # PPT's LCP ECN (86 KB on the LCP queues), the delay loop's queues unmarked.
        marked = {"discipline": "ecn", "ecn_threshold": ["off"] * 4 + [k_lcp] * 4}
        q = declared("ppt-swift", topo, buffer, **(marked if scheme in DELAY_SCHEMES and lcp_marking else {"discipline": "droptail"}))
    elif scheme == "ppt" or scheme.startswith("ppt-") or scheme == "dctcp":
        # DCTCP sends everything in class 0, so PPT's ports are DCTCP's (K = 96 KB on queue 0):
        # one scenario serves both (`fabricsim compare scenarios/ppt-websearch.toml --transports dctcp,ppt`).
        thresholds = {"ecn_threshold": [k_hcp] * 4 + [k_lcp] * 4}
        if lcp_on_port:
            thresholds = {"ecn_threshold": [k_hcp] * 4 + ["off"] * 4, "ecn_port_threshold": ["off"] * 4 + [k_lcp] * 4}
        q = declared("ppt", topo, buffer, **thresholds)
    else:
        # RC3 and PIAS: their 8 strict-priority queues, each marking at DCTCP's 96 KB (not on the port).
        q = declared(scheme, topo, buffer, ecn_threshold=K_DCTCP, ecn_port_threshold=None)
    if rc3_fraction is not None:
        lp = f"{round(rc3_fraction * _bytes(buffer))}B"
        q["queue_buffer"] = [buffer] + [lp] * (QUEUES - 1)
        # A low-priority queue limited below K could never mark: "off" says so (same behaviour;
        # the engine refuses a threshold that can never be reached).
        q["ecn_threshold"] = [K_DCTCP] + ["off"] * (QUEUES - 1)
    return q


def host_queue(scheme: str, topology: Optional[dict] = None) -> Optional[dict]:
    # NDP's ACKs, NACKs and PULLs leave ahead of the host's own data (docs/TRANSPORTS.md).
    return declared_host(scheme, topology or fabric()) if scheme == "ndp" else None


def scenario(scheme: str, workload: str, flows: int, *, load: float = LOAD, host_rate: str = HOST_RATE,
             core_rate: str = CORE_RATE, rc3_fraction: Optional[float] = None, send_buffer: Optional[str] = None,
             senders=None, seed: int = 1, lcp_on_port: bool = False, lcp_marking: bool = False,
             link_delay: str = LINK_DELAY) -> dict:
    """The leaf-spine of §6.2 carrying `flows` flows of `workload` all-to-all at `load` under
    `scheme` (or many-to-one into h0 from `senders`)."""
    rtt_bytes = RTT_BYTES if host_rate == HOST_RATE else rtt_bytes_for(host_rate, core_rate)
    wl: dict = {"name": workload, "cdf": WORKLOADS[workload], "load": load, "flows": flows}
    if senders is None:
        wl["pattern"] = "all_to_all"
    else:
        wl.update(pattern="many_to_one", receiver="h0", senders=senders)
    topo = fabric(host_rate, core_rate, link_delay)
    doc = {
        "name": f"ppt-{scheme}-{workload}",
        "simulation": {"end": "10s", "stop_when_done": True, "seed": seed},
        "topology": topo,
        "queue": queue(scheme, rc3_fraction=rc3_fraction, lcp_on_port=lcp_on_port, lcp_marking=lcp_marking, topology=topo),
        "transport": transport(scheme, rtt_bytes=rtt_bytes, send_buffer=send_buffer),
        "workload": [wl],
    }
    hq = host_queue(scheme, topo)
    if hq:
        doc["host_queue"] = hq
    return doc


def idle_rtt_s(host_gbps: float, core_gbps: float, data: int = 1500, ack: int = 52, delay_s: float = 1e-6) -> float:
    """Idle round trip across the spines: a full packet out over 4 links, an ACK back."""
    ser = lambda b: 2 * b * 8 / (host_gbps * 1e9) + 2 * b * 8 / (core_gbps * 1e9)  # noqa: E731
    return ser(data) + ser(ack) + 8 * delay_s


def rtt_bytes_for(host_rate: str, core_rate: str) -> str:
    """RTTbytes matched to a topology as §6.2 matched 45 KB to 40/100G: the host link's BDP,
    rounded to 1 KB (40/100: 44.4 KB -> the paper's 45 KB; 10/40: 13.9 KB -> 14 KB)."""
    h, c = float(host_rate[:-4]), float(core_rate[:-4])
    return f"{round(h * 1e9 * idle_rtt_s(h, c) / 8 / 1000)}KB"


def incast_senders(n: int, hosts: int = LEAVES * HOSTS_PER_LEAF, seed: int = 1) -> list[str]:
    """N senders drawn at random from every host but the receiver h0 (§6.3.2 "We choose N
    senders randomly across all servers"); N above 143 takes every host once and draws the rest
    again (a host then carries two senders' shares)."""
    rng = random.Random(seed)
    others = [f"h{i}" for i in range(1, hosts)]
    out: list[str] = []
    while len(out) < n:
        take = min(n - len(out), len(others))
        out += rng.sample(others, take)
    return out


def cdf_table(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(sizes, cumulative probabilities) of a built-in distribution."""
    sizes, probs = zip(*cdf_points(name))
    return np.array(sizes), np.array(probs)


def incast_flows(scheme: str, n: int, flows: int, *, load: float = INCAST_LOAD, seed: int = 1) -> list[dict]:
    """Fig. 23's N-to-1 incast as synchronized requests: at Poisson epochs the N senders each start
    one flow to h0 with a web-search size (read linearly between the table's points, as the
    engine's workloads do); the epoch rate puts `load` on h0's 40 Gb/s link. ceil(flows / N)
    epochs, seeded."""
    sizes, probs = cdf_table("websearch")
    mean = float(np.sum(np.diff(probs) * (sizes[1:] + sizes[:-1]) / 2))
    rate = load * 40e9 / (8 * n * mean)  # epochs per second
    rng = np.random.default_rng(seed)
    senders = incast_senders(n, seed=seed)
    out, t = [], 0.0
    for _ in range(-(-flows // n)):
        t += rng.exponential(1 / rate)
        for src, u in zip(senders, rng.random(n)):
            size = max(1, int(np.ceil(np.interp(u, probs, sizes))))
            out.append({"src": src, "dst": "h0", "size": size, "start": f"{round(t * 1e12)}ps"})
    return out


def incast_scenario(scheme: str, n: int, flows: int) -> dict:
    """The §6.2 fabric carrying Fig. 23's synchronized N-to-1 incast into h0."""
    doc = scenario(scheme, "websearch", flows)
    del doc["workload"]
    doc["name"] = f"ppt-{scheme}-incast{n}"
    doc["flows"] = incast_flows(scheme, n, flows)
    # The paper scale's 20 000 flows arrive over about 10.6 s at load 0.6: the run keeps its
    # 10 s after the last arrival (it stops when every flow is done).
    last_ps = max(int(f["start"][:-2]) for f in doc["flows"])
    if last_ps >= SIM_END_PS:
        doc["simulation"]["end"] = f"{last_ps + SIM_END_PS}ps"
    return doc


def util_scenario(scheme: str, end: str) -> dict:
    """Fig. 1 / Fig. 20: h1, h2 -> h0 through one 40 Gb/s switch port, web search at load 0.5 of
    that port (0.25 of the two senders' links), K = 120 KB (both of PPT's loops)."""
    topo = {"kind": "star", "hosts": 3, "link": {"rate": HOST_RATE, "delay": LINK_DELAY}}
    return {
        "name": f"ppt-util-{scheme}",
        "simulation": {"end": end, "seed": 1},
        "topology": topo,
        "queue": declared("ppt", topo, UTIL["buffer"], ecn_threshold=UTIL["k"]),
        "transport": transport(scheme),
        "workload": [{"name": "websearch", "cdf": "websearch", "load": LOAD / 2, "pattern": "many_to_one",
                      "receiver": "h0", "senders": ["h1", "h2"]}],
        "output": {"sample_interval": UTIL["sample"], "queues": ["s0->h0"]},
    }


# ---- extraction ------------------------------------------------------------------------------------
def extract(res) -> dict:
    """FCT statistics of Figs. 12-13: overall average, small (<= 100 KB) average and p99, large average."""
    f = res.flows
    done = f[f["fct_s"].notna()]
    size = done["size"].astype(float)
    fct = done["fct_s"].astype(float)
    small, large = fct[size <= SMALL], fct[size > SMALL]
    return {"flows": int(len(f)), "unfinished": int(f["fct_s"].isna().sum()), "all_mean": float(fct.mean()) if len(fct) else float("nan"),
            "small_mean": float(small.mean()) if len(small) else float("nan"),
            "small_p99": float(small.quantile(0.99)) if len(small) else float("nan"),
            "large_mean": float(large.mean()) if len(large) else float("nan"),
            "small_count": int(len(small)), "large_count": int(len(large)),
            "ideal_mean": float(done["ideal_fct_s"].astype(float).mean()) if len(done) else float("nan"),
            "timeouts": int(f["timeouts"].sum()), "retransmits": int(f["retransmits"].sum()),
            "drops": int(res.ports["drops"].sum())}


def extract_util(res) -> dict:
    """Utilization of the bottleneck s0->h0 per 100 us sample in the paper's 10 ms window."""
    ts = res.timeseries
    tx = ts[(ts["metric"] == "tx_bytes") & (ts["target"] == "s0->h0")].sort_values("time_s")
    t = tx["time_s"].to_numpy()
    b = tx["value"].to_numpy(dtype=float)
    rate = 40e9
    u = np.diff(b) * 8 / (np.diff(t) * rate)
    mid = t[1:]
    sel = (mid > UTIL["from_s"] + 1e-12) & (mid <= UTIL["to_s"] + 1e-12)
    return {"t": [float(x) for x in mid[sel]], "util": [float(x) for x in u[sel]],
            "mean": float(u[sel].mean()) if sel.any() else float("nan"), "min": float(u[sel].min()) if sel.any() else float("nan")}


# ---- points ----------------------------------------------------------------------------------------
def point_list(scale: str) -> list[tuple[str, str]]:
    """(point name, scheme) of every experiment, whether the engine has the scheme or not."""
    pts = []
    for wl in WORKLOADS:
        pts += [(f"main/{wl}/{s}", s) for s in SCHEMES]
    pts += [(f"ablation/websearch/{v}", v) for v in ABLATIONS]
    pts += [(f"util/{s}", s) for s in ("dctcp", "ppt")]
    pts += [(f"incast/{n}/{s}", s) for n in INCAST_N for s in INCAST_SCHEMES]
    pts += [(f"rc3buf/{int(fr * 100)}", "rc3") for fr in RC3_FRACTIONS]
    pts += [(f"others/websearch/{s}", s) for s in OTHERS]
    pts += [(f"delay/websearch/{s}", s) for s in DELAY_SCHEMES]
    # Fig. 14 under the alternative reading (PPT's LCP with its ECN on the LCP queues), beside the
    # original (drop-tail ports): chosen after the first results, so both are run and shown.
    pts += [("delaymark/websearch/ppt-swift", "ppt-swift")]
    pts += [(f"nonover/websearch/{s}", s) for s in SCHEMES]
    pts += [(f"sndbuf/{b}", "ppt") for b in SEND_BUFFERS]
    # The alternative reading of §3.2 (LCP marked on the port's buffer occupancy), beside the
    # original: chosen after the first results, so both are run and shown.
    pts += [(f"portk/{wl}/ppt", "ppt") for wl in WORKLOADS]
    # Sensitivity rows of the central claims (added 2026-11-26 with the artifact model, after the
    # first results): push-out, the other reading of a 120 KB port that protects the HCP; PPT
    # without its low-priority loop; and the RTT regime eq. (3) implies (10 us links).
    for wl in CENTRAL_WORKLOADS:
        pts += [(f"pushout/{wl}/ppt", "ppt"), (f"nolcp/{wl}/ppt", "ppt")]
        pts += [(f"rtt10/{wl}/{s}", s) for s in ("ppt", "dctcp")] + [(f"rtt10nolcp/{wl}/ppt", "ppt")]
    return pts


def build(name: str, scale: str) -> dict:
    """The scenario of point `name`."""
    n = SCALES[scale]
    parts = name.split("/")
    kind = parts[0]
    if kind == "main":
        return scenario(parts[2], parts[1], n[parts[1]])
    if kind in ("ablation", "others", "delay"):
        return scenario(parts[2], "websearch", n["websearch"])
    if kind == "util":
        return util_scenario(parts[1], n["util_end"])
    if kind == "incast":
        return incast_scenario(parts[2], int(parts[1]), n["incast"])
    if kind == "rc3buf":
        return scenario("rc3", "websearch", n["websearch"], rc3_fraction=int(parts[1]) / 100)
    if kind == "nonover":
        return scenario(parts[2], "websearch", n["websearch"], host_rate=NONOVER["host"], core_rate=NONOVER["core"])
    if kind == "sndbuf":
        return scenario("ppt", "websearch", n["websearch"], send_buffer=parts[1])
    if kind == "delaymark":
        return scenario(parts[2], "websearch", n["websearch"], lcp_marking=True)
    if kind == "portk":
        return scenario("ppt", parts[1], n[parts[1]], lcp_on_port=True)
    if kind == "pushout":
        doc = scenario("ppt", parts[1], n[parts[1]])
        doc["queue"]["admission"] = "pushout"
        return doc
    if kind in ("nolcp", "rtt10", "rtt10nolcp"):
        doc = scenario(parts[2], parts[1], n[parts[1]], link_delay=LONG_LINK_DELAY if kind.startswith("rtt10") else LINK_DELAY)
        if kind.endswith("nolcp"):
            doc["transport"]["cc_params"] = {"lcp": 0}
        return doc
    raise KeyError(name)


def skipped(scale: str) -> dict[str, str]:
    """{point: why} for points left out: the scheme is not in this engine, or Fig. 27 without a
    send-buffer key."""
    out = {}
    for name, s in point_list(scale):
        if not has(s):
            out[name] = f"'{s}' is not in this engine (fabricsim list cc / list transports)"
        elif name.startswith("sndbuf/") and not send_buffer_supported():
            out[name] = f"TCP has no '{SEND_BUFFER_KEY}' key"
    return out


# ---- the artifact model: ns-3 as the paper's simulator runs it (docs/reproductions/ppt.md) ---------
# The authors' code is not public (searched 2026-11-26); the paper names ns-3 for its simulations
# (Figs. 1, 14, 15, 20, 28). Each change is what stock ns-3 does where the text is silent, read from
# nsnam/ns-3-dev-git at ns-3.32-3.45 (where a rule changes among them, ns-3.33-3.40's). NDP ran in
# its authors' simulator and Homa and Aeolus in Aeolus's (§6.2): their points keep the text model.
NS3 = "nsnam/ns-3-dev-git (ns-3.33-3.40)"
#: ns-3's TcpSocket::SndBufSize and RcvBufSize.
NS3_SOCKET_BUFFER = "131072B"


def _on_ns3(doc: dict) -> bool:
    """Does the point run a TCP scheme (ns-3 in the paper), not NDP, Homa or Aeolus?"""
    return doc.get("transport", {}).get("kind", "tcp") == "tcp"


def _ns3_bands(point: str, doc: dict) -> dict:
    """Each queue of an 8-queue port keeps its own limit (the port's 120 KB, or RC3's smaller
    low-priority limit), with no port total. The push-out rows keep their 120 KB port."""
    q = doc.get("queue", {})
    if not _on_ns3(doc) or point.startswith("pushout/") or q.get("queues", 1) < 2 or q.get("buffer") in (None, "unlimited"):
        return doc
    d = copy.deepcopy(doc)
    q = d["queue"]
    q["queue_buffer"] = q.get("queue_buffer") or [q["buffer"]] * q["queues"]
    q["buffer"] = "unlimited"
    return d


def _ns3_red_k(point: str, doc: dict) -> dict:
    """Step marking at "finds at least K" (RED with MinTh = MaxTh = K) instead of "more than K": in
    bytes, more than K - 1 B."""
    q = doc.get("queue", {})
    if not _on_ns3(doc) or q.get("discipline") != "ecn":
        return doc
    d = copy.deepcopy(doc)
    for key in ("ecn_threshold", "ecn_port_threshold"):
        v = d["queue"].get(key)
        if v is not None:
            one = lambda k: k if k == "off" else f"{_bytes(k) - 1}B"  # noqa: E731
            d["queue"][key] = [one(k) for k in v] if isinstance(v, list) else one(v)
    return d


def _ns3_tcp(point: str, doc: dict) -> dict:
    """`[host] stack = "ns-3"` with the socket buffers left as the text model has them (unlimited
    unless it sets one; the send buffer is `ns3-send-buffer`): the text's own keys (min RTO 10 ms,
    PPT's and RC3's 2 GB) still win."""
    if not _on_ns3(doc):
        return doc
    d = copy.deepcopy(doc)
    _write_dctcp_rules(d, _dctcp_rule_names(doc), False)  # they are `ns3-dctcp`
    d["host"] = {**d.get("host", {}), "stack": "ns-3"}
    for key in ("rcv_buffer", SEND_BUFFER_KEY):
        d["transport"].setdefault(key, "unlimited")
    return d


#: ns-3's TcpDctcp as knobs (crates/engine/src/transport/tcp/cc/dctcp.rs `Dctcp::NS3_RULES`): `dctcp`'s,
#: and `ns3_dctcp` for the primary loop of `ppt` and `rc3`. `[host] stack = "ns-3"` sets them where
#: a scenario does not; `ns3-tcp` writes them off and `ns3-dctcp` on, so each shows alone.
NS3_DCTCP_KNOBS = {"dctcp": ("byte_cut", "first_window_at_ack", "cut_before_alpha", "ns3_growth", "empty_window",
                             "ns3_loss_cut", "loss_state_cut"),
                   "ppt": ("ns3_dctcp",), "rc3": ("ns3_dctcp",)}


def _dctcp_rule_names(doc: dict) -> tuple:
    """The knobs of ns-3's TcpDctcp that `doc`'s algorithm has (none off the ns-3 side)."""
    return NS3_DCTCP_KNOBS.get(doc.get("transport", {}).get("cc", ""), ()) if _on_ns3(doc) else ()


def _write_dctcp_rules(d: dict, names: tuple, on: bool) -> None:
    """Write the knobs `names` of `d`'s transport on (1) or off (0), in place (none: `d` as it is)."""
    if names:
        d["transport"]["cc_params"] = {**d["transport"].get("cc_params", {}), **{n: int(on) for n in names}}


def _ns3_dctcp(point: str, doc: dict) -> dict:
    names = _dctcp_rule_names(doc)
    if not names:
        return doc
    d = copy.deepcopy(doc)
    _write_dctcp_rules(d, names, True)
    return d


def _ns3_send_buffer(point: str, doc: dict) -> dict:
    """ns-3's 128 KB send buffer wherever the text model sets none (it sets PPT's and RC3's, 2 GB,
    §6.2). ns-3's 128 KB receive buffer is not applied (docs/reproductions/ppt.md: PPT's
    low-priority loop sends far beyond any receive window, and how the authors' PPT met one is not
    known)."""
    if not _on_ns3(doc) or doc["transport"].get(SEND_BUFFER_KEY, "unlimited") != "unlimited":
        return doc
    d = copy.deepcopy(doc)
    d["transport"][SEND_BUFFER_KEY] = NS3_SOCKET_BUFFER
    return d


#: The artifact model ("as the authors ran it", docs/reproductions/ppt.md): behaviours of the authors'
#: code (or its lineage's) that the text does not state, each applied to the text model's scenarios.
ARTIFACT: list[Change] = [
    Change("ns3-prio-bands", "each of the 8 priority queues holds its own 120 KB (no port total), so LCP packets cannot take HCP's buffer",
           f"simulator default: {NS3}, src/traffic-control/model/prio-queue-disc.cc, PrioQueueDisc::PrioQueueDisc "
           "(QueueDiscSizePolicy::NO_LIMITS) and DoEnqueue (each band a child queue disc with its own limit)", _ns3_bands),
    Change("ns3-red-k", "ECN marks an arrival that finds at least K in its queue (RED, MinTh = MaxTh = K), not more than K",
           f"simulator default: {NS3}, src/traffic-control/model/red-queue-disc.cc, RedQueueDisc::DoEnqueue "
           "(forced mark when the average, QW = 1, is >= MaxTh; per band on the band's own bytes)", _ns3_red_k),
    Change("ns3-tcp", "ns-3's TCP: handshake (SYN timeout 3 s), no TLP and no RACK, RTT timestamps, 1 ms clock granularity, 200 ms delayed-ACK timer, "
           "PRR (SSRB) in fast recovery and CWR (in CWR on advancing ACKs), fast recovery only from a duplicate ACK and never during CWR, CWR ends beyond its recovery point, ssthresh lowered at every timeout, limited transmit through the pipe, SACK option bytes, DoRetransmit entering fast recovery and on partial ACKs, NextSeg's rule 3 and no rescue, lost retransmissions only by timeout, DCTCP's SYN and SYN-ACK ECN-capable (DctcpEcn mode), DCTCP's receiver echo and ECE reading, the loss state's exit, the handshake's ACK a packet of its own and the first data segment acknowledged at once (min RTO stays the text's 10 ms; TcpDctcp's own rules are ns3-dctcp)",
           f"simulator default: {NS3}, src/internet/model/tcp-socket.cc and tcp-socket-base.cc, TcpSocket/TcpSocketBase::GetTypeId "
           "attributes, TcpSocketBase::DupAck/ReceivedAck/ReTxTimeout/EnterRecovery/ProcessAck/DoRetransmit/AddSocketTags/ProcessSynSent/ProcessSynRcvd, tcp-dctcp.cc Init (DctcpEcn), CeState0to1/CeState1to0, tcp-tx-buffer.cc NextSeg, tcp-prr-recovery.cc (TcpPrrRecovery, SSRB); [host] stack = \"ns-3\" "
           "(crates/engine/src/host/ns3.rs)", _ns3_tcp),
    Change("ns3-dctcp", "ns-3's TcpDctcp for DCTCP and for PPT's and RC3's primary loop (an assumption for these two: PPT is "
           "\"designed around DCTCP\", §7, and its ns-3 code is not public): the window cut in bytes, exactly, the first "
           "observation window at the first ACK, the cut before the ACK's α update, TcpLinuxReno's growth, α's decay on an "
           "empty window, the cut kept at timeouts and, in the loss state, the release's cut (no halving before ns-3-dev d3181b537)",
           f"simulator default: {NS3}, src/internet/model/tcp-dctcp.cc (GetSsThresh, PktsAcked), tcp-linux-reno.cc "
           "(IncreaseWindow, CongestionAvoidance), tcp-socket-base.cc (ReceivedAck, ReTxTimeout, EnterRecovery); the same in "
           "ns-3.33-3.40 but for whitespace; cc_params of dctcp, ns3_dctcp of ppt and rc3", _ns3_dctcp),
    Change("ns3-send-buffer", "128 KB send buffer where the text sets none (DCTCP, PIAS, HPCC, Swift; PPT and RC3 keep the text's 2 GB)",
           f"simulator default: {NS3}, src/internet/model/tcp-socket.cc, TcpSocket::GetTypeId (SndBufSize = 131072)",
           _ns3_send_buffer),
]
#: The central claims (headline names) and the points they read; `--one-change` runs those points
#: once per single change.
CENTRAL: list[str] = [f"{wl} overall avg FCT: PPT vs DCTCP (lower by)" for wl in CENTRAL_WORKLOADS]
CENTRAL_POINTS: list[str] = [f"main/{wl}/{s}" for wl in CENTRAL_WORKLOADS for s in ("ppt", "dctcp")]


def points(scale: str) -> list:
    skip = skipped(scale)
    return [(name, build(name, scale), extract_util if name.startswith("util/") else extract)
            for name, _ in point_list(scale) if name not in skip]


# ---- headlines -------------------------------------------------------------------------------------
def lower_by(r: dict, key: str, base: str, field: str) -> float:
    """How much lower (%) point `key`'s `field` is than point `base`'s (positive = key better)."""
    return pct_lower(value(r, key, field), value(r, base, field))


def ideal_bound(r: dict, key: str) -> float:
    """How much lower (%) than point `key`'s mean FCT a scheme with every flow at its ideal FCT
    would be: the most any scheme can gain on it in this fabric."""
    return pct_lower(value(r, key, "ideal_mean"), value(r, key, "all_mean"))


def headlines(r: dict) -> list[Headline]:
    rows: list[Headline] = []

    def banded(name: str, paper: float, ours: float, note: str = "", unit: str = "%") -> None:
        lo, hi = wide_band(paper)
        rows.append(Headline(name, f"{paper:g}{unit}", lo, hi, ours, unit, note))

    names = {"ndp": "NDP", "aeolus": "Aeolus", "homa": "Homa", "rc3": "RC3", "dctcp": "DCTCP", "pias": "PIAS", "hpcc": "HPCC"}
    # §6.2, Figs. 12-13: overall average FCT, PPT lower by.
    paper_overall = {"websearch": [38.5, 40.8, 46.3, 69.3, 87.5], "datamining": [47.1, 47.1, 45.3, 67.8, 67.4]}
    for wl, vals in paper_overall.items():
        for s, p in zip(["ndp", "aeolus", "homa", "rc3", "dctcp"], vals):
            banded(f"{wl} overall avg FCT: PPT vs {names[s]} (lower by)", p, lower_by(r, f"main/{wl}/ppt", f"main/{wl}/{s}", "all_mean"))
    # The same headlines under the alternative reading of §3.2 (LCP on port occupancy).
    for wl, vals in paper_overall.items():
        for s, p in zip(["ndp", "aeolus", "homa", "rc3", "dctcp"], vals):
            banded(f"{wl} overall avg FCT: PPT [LCP K on port] vs {names[s]} (lower by)", p,
                   lower_by(r, f"portk/{wl}/ppt", f"main/{wl}/{s}", "all_mean"), "alternative reading, chosen after the first results")
    # Sensitivity and bound rows of the central claims (docs/reproductions/ppt.md).
    for wl in CENTRAL_WORKLOADS:
        p = paper_overall[wl][-1]
        banded(f"{wl} overall avg FCT: PPT [push-out, 120 KB port] vs DCTCP (lower by)", p,
               lower_by(r, f"pushout/{wl}/ppt", f"main/{wl}/dctcp", "all_mean"), "sensitivity: the other reading that keeps HCP's buffer")
        banded(f"{wl} overall avg FCT: PPT vs DCTCP at 10 us links, RTT 81 us (lower by)", p,
               lower_by(r, f"rtt10/{wl}/ppt", f"rtt10/{wl}/dctcp", "all_mean"), "sensitivity: the RTT regime eq. (3) implies")
        for prefix, where in (("main", ""), ("rtt10", " at 10 us links")):
            rows.append(Headline(f"{wl}: most any scheme can gain on DCTCP{where} (ideal-FCT bound)", f"{p:g}%", p, None,
                                 ideal_bound(r, f"{prefix}/{wl}/dctcp"),
                                 "%", "1 - mean ideal FCT / DCTCP's mean FCT; the paper's value needs a bound at least this"))
    # §6.2: small flows, web search tail vs the proactive ones.
    for s, p in (("ndp", 32.0), ("homa", 35.8), ("aeolus", 29.2)):
        banded(f"websearch small p99: PPT vs {names[s]} (lower by)", p, lower_by(r, "main/websearch/ppt", f"main/websearch/{s}", "small_p99"))
    # §6.2: data mining, PPT worse than Homa on small flows by 6.3 % / 54.5 %.
    banded("datamining small avg: PPT vs Homa (worse by)", 6.3, -lower_by(r, "main/datamining/ppt", "main/datamining/homa", "small_mean"))
    banded("datamining small p99: PPT vs Homa (worse by)", 54.5, -lower_by(r, "main/datamining/ppt", "main/datamining/homa", "small_p99"))
    # §6.3.2, Fig. 21: memcached, at least 25 % / 55.6 % lower than every other scheme (a bound).
    for field, p in (("small_mean", 25.0), ("small_p99", 55.6)):
        v = [lower_by(r, "main/memcached/ppt", f"main/memcached/{s}", field) for s in SCHEMES if s != "ppt"]
        present = [x for x in v if x == x]
        lo = p - max(5.0, p / 2)
        rows.append(Headline(f"memcached {'avg' if field == 'small_mean' else 'p99'} FCT: PPT vs the best other (lower by, min)",
                             f">= {p:g}%", lo, None, min(present) if len(present) == len(v) else float("nan"), "%",
                             "the paper's bound 'at least', widened like the two-sided bands; n/a until every scheme runs"))
    # §6.3.1, Figs. 15-17: each variant's overall average FCT against PPT's.
    banded("no LCP ECN: overall FCT slower than PPT by", 18.9, -lower_by(r, "ablation/websearch/ppt-no-lcp-ecn", "main/websearch/ppt", "all_mean"))
    banded("no EWD: overall FCT slower than PPT by", 26.0, -lower_by(r, "ablation/websearch/ppt-no-ewd", "main/websearch/ppt", "all_mean"))
    banded("no scheduling: PPT's overall FCT lower by", 26.0, lower_by(r, "main/websearch/ppt", "ablation/websearch/ppt-no-sched", "all_mean"))
    banded("no identification: PPT's small p99 lower by", 31.9, lower_by(r, "main/websearch/ppt", "ablation/websearch/ppt-no-ident", "small_p99"))
    # §6.3, Fig. 14: PPT on the delay transport against the delay transport alone, web search.
    for field, p, label in (("all_mean", 16.7, "overall avg"), ("small_mean", 56.5, "small avg"), ("small_p99", 72.1, "small p99"),
                            ("large_mean", 11.0, "large avg")):
        banded(f"Fig. 14: PPT-Swift vs Swift, {label} (lower by)", p, lower_by(r, "delay/websearch/ppt-swift", "delay/websearch/swift", field),
               "the LCP's opening window is ours (the paper gives none)")
        banded(f"Fig. 14: PPT-Swift [LCP marked at 86 KB] vs Swift, {label} (lower by)", p,
               lower_by(r, "delaymark/websearch/ppt-swift", "delay/websearch/swift", field), "alternative reading, chosen after the first results")
    # Fig. 20: DCTCP's utilization drops to 25 %, PPT's stays around 50 %; PPT's mean 15 % higher.
    banded("Fig. 20: DCTCP's lowest 100 us utilization", 25.0, 100 * value(r, "util/dctcp", "min"),
           "the paper's curve read off the text ('can drop to 25%')")
    rows.append(Headline("Fig. 20: PPT's mean utilization (ideal 50 %)", "~50%", 40.0, 60.0, 100 * value(r, "util/ppt", "mean"), "%",
                         "'around 50%' read as +-10 points"))
    banded("Fig. 20: PPT's mean utilization above DCTCP's by", 15.0,
           100 * (value(r, "util/ppt", "mean") / value(r, "util/dctcp", "mean") - 1))
    # Appendix D, Fig. 25.
    banded("PPT vs PIAS overall (lower by)", 24.6, lower_by(r, "main/websearch/ppt", "others/websearch/pias", "all_mean"))
    banded("PPT vs HPCC overall (lower by)", 4.7, lower_by(r, "main/websearch/ppt", "others/websearch/hpcc", "all_mean"))
    banded("PPT vs PIAS small p99 (lower by)", 46.9, lower_by(r, "main/websearch/ppt", "others/websearch/pias", "small_p99"))
    banded("PPT vs HPCC small p99 (lower by)", 38.2, lower_by(r, "main/websearch/ppt", "others/websearch/hpcc", "small_p99"))
    # Appendix D, Fig. 24: "up to 71%" overall over the RC3 buffer limits.
    rc3 = [lower_by(r, "main/websearch/ppt", f"rc3buf/{int(f * 100)}", "all_mean") for f in RC3_FRACTIONS]
    present = [x for x in rc3 if x == x]
    banded("Fig. 24: PPT vs RC3 with limited LP buffer, overall (lower by, max)", 71.0, max(present) if present else float("nan"),
           "ours per limit 20/40/60/80 %: " + ", ".join(f"{x:.1f}" for x in rc3))
    # Appendix E, Fig. 26 (10/40 Gb/s).
    for s, p in zip(["ndp", "aeolus", "homa", "rc3", "dctcp"], [19.0, 20.8, 45.9, 71.1, 85.9]):
        banded(f"10/40G overall: PPT vs {names[s]} (lower by)", p, lower_by(r, "nonover/websearch/ppt", f"nonover/websearch/{s}", "all_mean"))
    # Appendix F, Fig. 27: 128 KB send buffer, small avg / p99 0.20 / 0.48 ms, overall 10 ms, large 20.2 ms.
    for field, p, label in (("small_mean", 0.20, "small avg"), ("small_p99", 0.48, "small p99"), ("all_mean", 10.0, "overall avg"),
                            ("large_mean", 20.2, "large avg")):
        lo, hi = p / 2, p * 1.5
        rows.append(Headline(f"Fig. 27: 128 KB send buffer, {label}", f"{p:g} ms", lo, hi, 1e3 * value(r, "sndbuf/128KB", field), " ms",
                             "an absolute FCT: band +-50 %"))
    # The baselines against each other, as the paper's reductions imply: FCT_X = FCT_PPT / (1 - r_X),
    # so X's overall FCT over Homa's is (1 - r_Homa) / (1 - r_X). Checkable before PPT exists.
    # Band: half the ratio each side (the "half the value" rule on a ratio).
    implied = {"websearch": ("main", {"ndp": 38.5, "aeolus": 40.8, "homa": 46.3, "rc3": 69.3, "dctcp": 87.5}),
               "datamining": ("main", {"ndp": 47.1, "aeolus": 47.1, "homa": 45.3, "rc3": 67.8, "dctcp": 67.4}),
               "10/40G websearch": ("nonover", {"ndp": 19.0, "aeolus": 20.8, "homa": 45.9, "rc3": 71.1, "dctcp": 85.9})}
    for label, (prefix, red) in implied.items():
        wl = label.split()[-1]
        for s in ("ndp", "aeolus", "rc3", "dctcp"):
            p = (100 - red["homa"]) / (100 - red[s])
            a, b = value(r, f"{prefix}/{wl}/{s}", "all_mean"), value(r, f"{prefix}/{wl}/homa", "all_mean")
            rows.append(Headline(f"{label} overall FCT: {names[s]} / Homa (implied by the reductions)", f"{p:.3g}", round(p / 2, 3), round(p * 1.5, 3),
                                 a / b if a == a and b == b and b else float("nan"), "x",
                                 f"(1 - {red['homa']:g} %) / (1 - {red[s]:g} %)"))
    # Appendix D against §6.2 (same fabric and workload): PIAS and HPCC over DCTCP.
    for s, rr in (("pias", 24.6), ("hpcc", 4.7)):
        p = (100 - 87.5) / (100 - rr)
        a, b = value(r, f"others/websearch/{s}", "all_mean"), value(r, "main/websearch/dctcp", "all_mean")
        rows.append(Headline(f"websearch overall FCT: {names[s]} / DCTCP (implied by the reductions)", f"{p:.3g}", round(p / 2, 3), round(p * 1.5, 3),
                             a / b if a == a and b == b and b else float("nan"), "x", f"(1 - 87.5 %) / (1 - {rr:g} %)"))
    # Shapes the paper states.
    order = [s for s in ("ndp", "aeolus", "homa", "rc3", "dctcp")]
    for wl in ("websearch", "datamining"):
        v = [lower_by(r, f"main/{wl}/ppt", f"main/{wl}/{s}", "all_mean") for s in order]
        got = [x for x in v if x == x]
        rows.append(Headline(f"{wl} shape: PPT has the lowest overall avg FCT (schemes beaten)", f"{len(order)} of {len(order)}",
                             len(order), len(order), float(sum(x > 0 for x in got)) if len(got) == len(v) else float("nan"), "",
                             "" if len(got) == len(v) else f"n/a until every scheme runs ({len(got)} of {len(order)} baselines ran)"))
    # Fig. 23: PPT close to DCTCP and NDP, better than Homa and Aeolus, at every N.
    for s, want in (("homa", "better"), ("aeolus", "better")):
        v = [lower_by(r, f"incast/{n}/ppt", f"incast/{n}/{s}", "all_mean") for n in INCAST_N]
        got = [x for x in v if x == x]
        rows.append(Headline(f"Fig. 23 shape: PPT's overall avg below {names[s]}'s (incast N)", f"{len(INCAST_N)} of {len(INCAST_N)}",
                             len(INCAST_N), None, float(sum(x > 0 for x in got)) if len(got) == len(v) else float("nan"), "",
                             "per N: " + ", ".join(f"{x:.1f}%" for x in v)))
    v = [lower_by(r, f"incast/{n}/ppt", f"incast/{n}/dctcp", "all_mean") for n in INCAST_N]
    got = [abs(x) for x in v if x == x]
    rows.append(Headline("Fig. 23 shape: PPT close to DCTCP under incast (largest gap)", "similar", None, 20.0,
                         max(got) if len(got) == len(v) else float("nan"), "%", "'similar' read as within 20 %; per N: " +
                         ", ".join(f"{x:.1f}" for x in v)))
    return rows


# ---- tables and figures ----------------------------------------------------------------------------
def fct_table(r: dict, prefix: str, schemes: list[str]) -> pd.DataFrame:
    """Per scheme: overall/small/large average and small p99 FCT (ms), counts, unfinished, timeouts."""
    rows = []
    for s in schemes:
        d = r.get(f"{prefix}/{s}")
        if not d:
            continue
        rows.append({"scheme": s, "overall_ms": 1e3 * d["all_mean"], "small_avg_ms": 1e3 * d["small_mean"],
                     "small_p99_ms": 1e3 * d["small_p99"], "large_avg_ms": 1e3 * d["large_mean"], "flows": d["flows"],
                     "unfinished": d["unfinished"], "timeouts": d["timeouts"], "drops": d["drops"]})
    return pd.DataFrame(rows)


def sensitivity_frame(sets: dict[str, dict]) -> pd.DataFrame:
    """The central claims' points and their sensitivity rows, per model: FCTs (ms), timeouts,
    drops, the mean ideal FCT, and PPT's LCP gain (PPT against PPT without its LCP, same fabric)."""
    rows = []
    for model in ("text", "artifact"):
        r = sets.get(model)
        if not r:
            continue
        for wl in CENTRAL_WORKLOADS:
            for key in (f"main/{wl}/dctcp", f"main/{wl}/ppt", f"pushout/{wl}/ppt", f"nolcp/{wl}/ppt", f"rtt10/{wl}/dctcp",
                        f"rtt10/{wl}/ppt", f"rtt10nolcp/{wl}/ppt"):
                d = r.get(key)
                if not d:
                    continue
                row = {"model": model, "point": key, "overall_ms": 1e3 * d["all_mean"], "small_avg_ms": 1e3 * d["small_mean"],
                       "small_p99_ms": 1e3 * d["small_p99"], "large_avg_ms": 1e3 * d["large_mean"], "ideal_ms": 1e3 * d.get("ideal_mean", float("nan")),
                       "timeouts": d["timeouts"], "drops": d["drops"], "unfinished": d["unfinished"], "vs_dctcp_pct": float("nan"), "lcp_gain_pct": float("nan")}
                base = "rtt10" if key.startswith("rtt10") else "main"
                if "/ppt" in key:
                    row["vs_dctcp_pct"] = lower_by(r, key, f"{base}/{wl}/dctcp", "all_mean")
                if key in (f"main/{wl}/ppt", f"rtt10/{wl}/ppt"):
                    row["lcp_gain_pct"] = lower_by(r, key, f"{'rtt10nolcp' if base == 'rtt10' else 'nolcp'}/{wl}/ppt", "all_mean")
                rows.append(row)
    return pd.DataFrame(rows)


#: The paper's values on our figures (report.html; drawn by FigureSaver), with their headline
#: bands. The FCT figures' other values are reductions relative to PPT (the headline table).
STATED: list[Stated] = [
    Stated("fig20_utilization", "DCTCP's utilization 'can drop to 25%'", "§6.3.1, Fig. 20", 25, *wide_band(25)),
    Stated("fig20_utilization", "PPT's stays 'around 50%' (the ideal at load 0.5)", "§6.3.1, Fig. 20", 50, 40, 60),
    Stated("fig27_send_buffer", "128 KB send buffer: overall avg 10 ms", "App. F, Fig. 27", 10, 5, 15, x="128KB", axes=0),
    Stated("fig27_send_buffer", "128 KB send buffer: small avg 0.20 ms", "App. F, Fig. 27", 0.20, 0.10, 0.30, x="128KB", axes=1),
    Stated("fig27_send_buffer", "128 KB send buffer: small p99 0.48 ms", "App. F, Fig. 27", 0.48, 0.24, 0.72, x="128KB", axes=2),
    Stated("fig27_send_buffer", "128 KB send buffer: large avg 20.2 ms", "App. F, Fig. 27", 20.2, 10.1, 30.3, x="128KB", axes=3),
]

#: The setup, each choice with the paper's sentence it rests on (docs/reproductions/ppt.md; report.html).
SETUP: list[Setup] = [
    Setup('topology',
          'leaf-spine, 9 leaves × 4 spines, 16 hosts per leaf, 40 Gb/s host links, 100 Gb/s core links, per-flow ECMP',
          '"This topology consists of 144 servers, 9 leaf switches and 4 spine switches, with the host and core links operated at 40 and 100Gbps, respectively"'),
    Setup('oversubscription',
          '1.6:1 (16 × 40 down, 4 × 100 up), not 1.4:1',
          '"We simulate a 1.4:1 oversubscribed topology": the counts and rates above give 640/400 = 1.6; we keep the counts and rates the paper states'),
    Setup('traffic',
          'all-to-all, Poisson arrivals, load 0.5 of the host links',
          '"use all-to-all traffic patterns"; "Unless otherwise specified, we use 0.5 load"; §6.1 "randomly starting flows following the Poisson process"'),
    Setup('ports',
          '120 KB per port, 8 strict-priority queues',
          '"We configure a per-port buffer of 120KB at the switches"; §4.2 "P0~P3 is used for HCP traffic, while ... P4~P7 is for LCP traffic"; §5 "strict priority queuing (SP)"'),
    Setup('ECN',
          'per-queue step marking: P0–P3 at 96 KB, P4–P7 at 86 KB (PPT and its variants; DCTCP only uses P0, so its ports are the same); PIAS and RC3 at 96 KB on every queue; HPCC none',
          '"For DCTCP, we set its ECN marking threshold to 96KB"; "We set the ECN marking thresholds for PPT\'s HCP and LCP loops to 96KB and 86KB"; §3.2 "simply set both the low and high thresholds to the same value K"'),
    Setup('PPT, RC3 send buffer',
          '2 GB (`send_buffer`, when the engine has the key)',
          '"For RC3, we set the send buffer to its recommended value—2GB. For PPT, we configure its send buffer to 2GB"'),
    Setup('Homa, Aeolus',
          "RTTbytes 45 KB, overcommitment 2, 8 priority levels, drop-tail 120 KB ports, loss recovery by Homa's RESEND timeout",
          '"We set RTTbytes to 45KB for Homa and Aeolus to match our 40/100G topology, and the degree of overcommitment is 2"; "we use Aeolus\'s simulator with a timeout-based loss recovery mechanism"; "(integrated with Homa by default)"'),
    Setup('NDP',
          "the engine's NDP defaults, which are the NDP paper's (9000 B packets, IW 23, 1 ms timeout), trimming ports (8-packet data queue, header queue first 10:1, return to sender) inside the 120 KB port buffer, two NIC queues",
          '"For NDP, we use the simulator provided by the authors with their recommended configurations"'),
    Setup('workloads',
          '`websearch`, `datamining`, `homa_w1` (memcached)',
          '"We also use the web search [34] and data mining [13] workloads"; §6.3.2 "an Memcached workload from Facebook, which is exactly the W1 workload used in Homa"'),
    Setup('metrics',
          'overall average FCT, small (≤ 100 KB) average and tail, large (> 100 KB) average',
          'Figs. 12–13: "the overall average FCT, average/tail FCT of (≤ 100 KB) small flows, and the average FCT of (> 100 KB) large flows"'),
    Setup('ablations',
          'PPT without LCP ECN, without EWD, without scheduling, without identification; web search, load 0.5, same topology',
          '§6.3.1, Figs. 15–18'),
    Setup('Fig. 20',
          "two senders into one receiver through a 40 Gb/s port, K = 120 KB (both of PPT's loops), web search at load 0.5 of that port, utilization sampled every 100 µs for 10 ms (20–30 ms)",
          '§6.3.1 "with the same setting as that for Fig. 1"; §2.3 "two senders and one receiver. The bottleneck link capacity is 40Gbps. The ECN marking threshold is 120KB ... We sample the bottleneck link utilization every 100us for 10ms"; "As we set the network load to 0.5, the ideal link utilization should be maintained at 50%"'),
    Setup('incast',
          "N = 32, 64, 128, 256 senders drawn at random (seeded) from the 143 other hosts, one receiver (h0), web search at load 0.6 of the receiver's link; PPT, NDP, Homa, Aeolus, DCTCP",
          '§6.3.2 "We choose N senders randomly across all servers, and one server as the receiver"; "at 0.6 network load"; "RC3 is not included"'),
    Setup('RC3 buffer limits',
          "RC3's low-priority queues (P1–P7) limited to 20/40/60/80 % of the 120 KB port buffer",
          'App. D "we vary the buffer for RC3\'s low priority traffic from 20% to 80% of the switch buffer"'),
    Setup('PIAS, HPCC',
          'web search, the §6.2 fabric',
          'App. D, Fig. 25'),
    Setup('non-oversubscribed',
          '16 hosts per leaf at 10 Gb/s, 40 Gb/s to the 4 spines; web search',
          'App. E "Each leaf switch is connected to 16 hosts with 10Gbps links and 4 spine switches with 40Gbps links"'),
    Setup('send buffer',
          'PPT with 128 KB, 2 MB, 4 MB, 2 GB',
          'App. F "buffer sizes ranging from 128KB to 2G"; the text names 128 KB, 2 MB and 4 MB'),
    Setup('Fig. 14',
          "`swift` and `ppt-swift` (PPT's low-priority loop on the Swift-like window), web search at load 0.5 on the §6.2 fabric; 8 strict-priority drop-tail queues (Swift reads delay, not marks); PPT's 2 GB send buffer for `ppt-swift`",
          '§6.3 "this variant starts an LCP loop whenever a flow\'s transmission delay falls below the target delay and closes it when it does not receive ACKs for two consecutive RTTs. Moreover, this variant uses the same flow scheduling method as PPT"; "Fig 14 compares the FCT statistics of this variant with those of the original delay-based transport under web search workload at 0.5 load"; footnote 7 "adjusts the congestion window only based on the fabric delay"'),
]


def figures(r: dict, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    save = FigureSaver(out, STATED)
    panels = [("all_mean", "(a) overall avg"), ("small_mean", "(b) small avg"), ("small_p99", "(c) small p99"), ("large_mean", "(d) large avg")]

    def bars(keys: list[tuple[str, str]], name: str, title: str) -> None:
        keys = [(k, lab) for k, lab in keys if k in r]
        if not keys:
            return
        fig, axes = plt.subplots(1, 4, figsize=(15, 3.2))
        for ax, (field, label) in zip(axes, panels):
            ax.bar(range(len(keys)), [1e3 * value(r, k, field) for k, _ in keys], color="tab:blue")
            ax.set_xticks(range(len(keys)), [lab for _, lab in keys], rotation=30, fontsize=8)
            ax.set_title(label, fontsize=9)
        axes[0].set_ylabel("FCT (ms)")
        fig.suptitle(title)
        save(fig, name)

    for wl, fig_no in (("websearch", "12"), ("datamining", "13"), ("memcached", "21")):
        bars([(f"main/{wl}/{s}", s) for s in SCHEMES], f"fig{fig_no}_{wl}", f"Fig. {fig_no}: {wl}, load 0.5, 144 hosts at 40/100 Gb/s")
    bars([(f"delay/websearch/{s}", s) for s in DELAY_SCHEMES] + [("delaymark/websearch/ppt-swift", "ppt-swift [LCP K]")], "fig14_delay_based", "Fig. 14: PPT on the Swift-like delay transport (web search)")
    for no, v in zip(("15", "16", "17", "18"), ABLATIONS):
        bars([("main/websearch/ppt", "ppt"), (f"ablation/websearch/{v}", v)], f"fig{no}_{v}", f"Fig. {no}: PPT vs {v} (web search)")
    bars([("main/websearch/ppt", "ppt")] + [(f"rc3buf/{int(f * 100)}", f"rc3 {int(f * 100)}%") for f in RC3_FRACTIONS],
         "fig24_rc3_buffer", "Fig. 24: RC3 with its low-priority queues limited")
    bars([(f"others/websearch/{s}", s) for s in OTHERS] + [("main/websearch/ppt", "ppt")], "fig25_pias_hpcc", "Fig. 25: HPCC, PIAS, PPT")
    bars([(f"nonover/websearch/{s}", s) for s in SCHEMES], "fig26_nonoversubscribed", "Fig. 26: 10/40 Gb/s, 1:1 (web search)")
    bars([(f"sndbuf/{b}", b) for b in SEND_BUFFERS], "fig27_send_buffer", "Fig. 27: PPT's send buffer")

    if any(f"util/{s}" in r for s in ("dctcp", "ppt")):
        fig, ax = plt.subplots(figsize=(6, 3.2))
        for s in ("dctcp", "ppt"):
            d = r.get(f"util/{s}")
            if d:
                ax.plot([1e3 * (t - UTIL["from_s"]) for t in d["t"]], [100 * u for u in d["util"]], label=s)
        ax.axhline(50, color="k", lw=0.6, ls="--")
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("utilization (%)")
        ax.set_ylim(0, 105)
        ax.legend()
        ax.set_title("Fig. 20: bottleneck utilization, 100 us samples, load 0.5")
        save(fig, "fig20_utilization")

    if any(k.startswith("incast/") for k in r):
        fig, ax = plt.subplots(figsize=(6, 3.4))
        for s in INCAST_SCHEMES:
            ys = [1e3 * value(r, f"incast/{n}/{s}", "all_mean") for n in INCAST_N]
            if any(y == y for y in ys):
                ax.plot(INCAST_N, ys, "o-", label=s)
        ax.set_xscale("log", base=2)
        ax.set_xticks(INCAST_N, [str(n) for n in INCAST_N])
        ax.set_xlabel("incast ratio N")
        ax.set_ylabel("overall avg FCT (ms)")
        ax.legend()
        ax.set_title("Fig. 23: N-to-1 incast, web search at load 0.6")
        save(fig, "fig23_incast")
    return save.written


def runs_frame(results: dict) -> pd.DataFrame:
    return runs_table(results, skip=("t", "util"))


def reproduce(scale: str = "reduced", output: str | Path = "reproduce-ppt", jobs: Optional[int] = None,
              progress: bool = True, only: Optional[list[str]] = None, model: str = "both", one_change: bool = False,
              dask: Optional[str] = None, finished: bool = False,
              changes: Optional[str | Sequence[str]] = None) -> dict:
    """Run the experiments the engine has schemes for, in the text and/or artifact model; write
    runs.csv, headlines.csv (and one_change.csv), fct_*.csv and the figures (the artifact model's
    in artifact/); print the per-scheme tables and "paper vs ours"."""
    chosen = select_changes("ppt", ARTIFACT, changes, model)
    if scale not in SCALES:
        raise ValueError(f"scale '{scale}' is not one of {', '.join(SCALES)}")
    skip = {k: v for k, v in skipped(scale).items() if not only or any(k.startswith(o) for o in only)}
    if skip:
        gone = sorted({s for n, s in point_list(scale) if n in skip and not has(s)})
        print(f"left out {len(skip)} of {len(point_list(scale))} points" +
              (f"; schemes not in this engine (fabricsim list cc / list transports): {', '.join(gone)}" if gone else "") +
              ("" if send_buffer_supported() else f"; TCP has no '{SEND_BUFFER_KEY}' key: Fig. 27 is left out and PPT/RC3 "
                                                "run without §6.2's 2 GB send buffer"), file=sys.stderr)
    out, sets = run_models("ppt", scale, SCALES, points, output, jobs, progress, only, model, chosen,
                           CENTRAL_POINTS if one_change else (), dask=dask, run=not finished)
    results = primary(sets)
    runs = write_runs(out, sets, runs_frame)
    print(f"\nPPT (Suo et al., SIGCOMM 2024), scale = {scale}: FCTs per scheme (ms; small <= 100 KB, large > 100 KB)")
    for prefix, schemes in [(f"main/{wl}", SCHEMES) for wl in WORKLOADS] + [("ablation/websearch", ABLATIONS),
                                                                           ("others/websearch", OTHERS), ("nonover/websearch", SCHEMES)]:
        t = fct_table(results, prefix, schemes)
        if len(t):
            t.to_csv(out / f"fct_{prefix.replace('/', '_')}.csv", index=False)
            print(f"\n{prefix}:\n" + t.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    inc = pd.DataFrame({s: [1e3 * value(results, f"incast/{n}/{s}", "all_mean") for n in INCAST_N] for s in INCAST_SCHEMES
                        if any(f"incast/{n}/{s}" in results for n in INCAST_N)}, index=pd.Index(INCAST_N, name="N"))
    if len(inc.columns):
        inc.to_csv(out / "fct_incast.csv")
        print("\nincast (Fig. 23), overall avg FCT (ms):\n" + inc.to_string(float_format=lambda x: f"{x:.3f}"))
    sens = sensitivity_frame(sets)
    if len(sens):
        sens.to_csv(out / "sensitivity.csv", index=False)
        print("\ncentral claims' points and sensitivity rows (ms; vs_dctcp and lcp_gain: % lower FCT):\n" +
              sens.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    figs = model_figures(out, sets, figures)
    hl, models = finish_models(out, sets, headlines, f"PPT, scale = {scale}: paper vs ours (reductions in % of the baseline's FCT)",
                          chosen, CENTRAL, len(ARTIFACT))
    write_report(out, "ppt", models, CENTRAL, figs, STATED, SETUP, chosen)
    missing = sorted({s for _, s in point_list(scale) if not has(s)})
    if missing:
        print(f"\nnot in this engine (their rows are n/a): {', '.join(missing)}")
    for s in ("dctcp", "ppt"):
        d = results.get(f"util/{s}")
        if d and d.get("util"):
            u = np.array(d["util"])
            busy = u[u > 0]
            print(f"\nFig. 20 diagnostic, {s}: {100 * (u == 0).mean():.0f} % of the 100 us samples idle (no flow active), "
                  f"busy samples median {100 * np.median(busy) if len(busy) else float('nan'):.0f} %, "
                  f"{100 * (busy >= 0.95).mean() if len(busy) else float('nan'):.0f} % of them at >= 95 %")
    unfinished = int(runs["unfinished"].fillna(0).sum()) if "unfinished" in runs else 0
    if unfinished:
        print(f"\nnote: {unfinished} flows did not finish in their runs and are left out of the FCTs")
    print(f"\nwrote {out}/runs.csv, headlines.csv and {len(figs)} figures; every run is kept in {out}/store", file=sys.stderr)
    return {"runs": runs, "headlines": hl, "skipped": skip}
