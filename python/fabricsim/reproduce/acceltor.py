"""Reproduction of Chen, Tian and Zhang, "AccelToR: Accelerating TCP for Circuit/Packet Hybrid Data
Centers with Packet Scheduling" (IEEE/ACM ToN): Figs. 8-17 of §IV. Setup: §IV-B.

Experiments (point keys; ``--only`` selects by prefix):
- ``racks/N/SCHEME``: Fig. 8, the rack-count sweep at 50 % load (daily and weekly elephant
  throughput with 10th/90th percentiles, optical occupancy, mice normalized FCT).
- ``compare/SCHEME``: Figs. 9-12, the comparison network (50 racks in the paper): weekly
  throughput distribution, estimated elephant FCTs, the aggregated cwnd of one pair's elephants
  within its day, the mice FCT distribution.
- ``bigbuf/X``: Fig. 13, Blocking with X times AccelToR's 1.8 MB of packet buffer.
- ``load/L/SCHEME``: Fig. 14, the load sweep 10-95 %.
- ``margin/on|off``: Fig. 15, 1 % loss inside the racks, with and without the safe margin.
- ``queue/300|500``: Fig. 16, calendar queues of 300 KB (too small for 2^m·|F_i|) and 500 KB.
- ``cca/CC/SCHEME``: Fig. 17, 16 TCP congestion controls.

Every setup value and the sentence it comes from: docs/reproductions/acceltor.md. Choices the
paper leaves open are listed there too (hosts per rack, host links, delayed ACKs, how the reduced
scale shrinks the network).
"""

from __future__ import annotations

import copy
import sys
from functools import partial
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import pandas as pd

from .. import _engine
from .common import (Change, FigureSaver, Headline, Setup, Stated, finish_models, model_figures, percentile, primary, run_models,
                     select_changes, value, write_runs)
from .page import write_report

SCHEMES = ["acceltor", "blocking", "unblocking"]
LABEL = {"acceltor": "AccelToR", "blocking": "Blocking", "unblocking": "Unblocking"}

#: §IV-H: NewReno (the default) and the 15 other ns-3 congestion controls.
CCAS = ["newreno", "bic", "cubic", "highspeed", "htcp", "hybla", "reno", "scalable", "veno", "westwood",
        "ledbat", "vegas", "illinois", "bbr", "yeah", "dctcp"]
LOADS = [10, 30, 50, 70, 80, 90, 95]

#: The paper's parameters (§IV-B unless noted).
DAY_US, NIGHT_US = 240, 20
EPS_GBPS, OCS_GBPS = 10, 80
RTT_CIR_US, RTT_PKT_US = 55, 60
PER_PAIR = 80                      # |F_i|
LOAD = 50                          # % of the EPS uplink, Figs. 8-13, 15-17
SIM_S = 5.0                        # "An experiment lasts 5 seconds."
ECN_K_PKTS = 65                    # §IV-H: DCTCP's marking threshold at the EPS

#: Choices the paper leaves open (docs/reproductions/acceltor.md): two hosts per rack on 100 Gb/s, 1 us
#: links, so no host link is ever the bottleneck of an 80 + 10 Gb/s rack.
HOSTS, HOST_GBPS, HOST_DELAY_US = 2, 100, 1.0
# Link delays that make the topology's base RTTs the paper's 60 us (packet network) and 55 us
# (circuit) with 1500 B packets and 52 B ACKs (`fabricsim topology` prints 60.000 and 55.000).
PACKET_DELAY_US, CIRCUIT_DELAY_US = 13.317, 25.298

#: Paper scale: rack pairs (drawn with the run's seed) whose elephants get weekly rows; 100 pairs
#: are 8 000 elephants, enough for the throughput percentiles (our choice, not the paper's).
RECORD_PAIRS = 100

SCALES = {
    # racks: Fig. 8's sweep; compare_racks: the network of Figs. 9-17 (50 in the paper); weeks
    # measured after `warmup_weeks`; margin_weeks: Fig. 15's 70 weeks.
    "reduced": {"racks": [8, 16, 24, 32], "rack_weeks": 6, "compare_racks": 8, "weeks": 20, "warmup_weeks": 2,
                "margin_weeks": 70, "cca_weeks": 12, "bigbuf": [2, 5, 10]},
    "paper": {"racks": [8, 16, 24, 32, 40, 48, 56, 64, 72], "rack_weeks": None, "compare_racks": 50, "weeks": None,
              "warmup_weeks": 2, "margin_weeks": 70, "cca_weeks": None, "bigbuf": [2, 5, 10], "record_pairs": RECORD_PAIRS},
}


def week_us(racks: int) -> float:
    """§II-B: a week is N - 1 days and nights."""
    return (racks - 1) * (DAY_US + NIGHT_US)


def weeks_in(racks: int, seconds: float = SIM_S) -> int:
    """Whole weeks in the paper's 5-second experiment (72 racks: 270)."""
    return int(seconds * 1e6 // week_us(racks))


def mice_workload_load(load_pct: float, hosts: int = HOSTS, host_gbps: float = HOST_GBPS) -> float:
    """§IV-B: load = aggregated mice rate / EPS bandwidth. One workload per rack sends from the
    rack's hosts to hosts of other racks (no intra-rack traffic), and a workload's `load` is a
    fraction of its senders' host links, so the rack offers load x 10 Gb/s to its EPS uplink."""
    return load_pct / 100 * EPS_GBPS / (hosts * host_gbps)


def scenario(*, policy: str = "acceltor", racks: int = 8, per_pair: int = PER_PAIR, load_pct: float = LOAD,
             cc: str = "newreno", weeks: int = 20, warmup_weeks: int = 2, queue_kb: Optional[int] = None,
             safe_margin: bool = True, loss: float = 0.0, blocking_buffer_x: float = 1.0, cwnd_pair: bool = False,
             hosts: int = HOSTS, seed: int = 1, record_pairs: Optional[int] = None) -> dict:
    """The §IV-B network as a scenario dict: `racks` racks on one EPS (10 Gb/s uplinks) and one
    OCS (80 Gb/s), a strobe of 240 us days and 20 us nights, `per_pair` long-lived elephants per
    ordered rack pair, web-search mice at `load_pct` % of each EPS uplink."""
    wk = week_us(racks)
    # One string per host, shared by its flows: at paper scale the 409 k elephants of 72 racks
    # would otherwise carry 818 k strings (a third of the scenario's memory).
    host = [f"h{x}" for x in range(racks * hosts)]
    flows = []
    for s in range(racks):
        for d in range(racks):
            if s != d:
                for i in range(per_pair):
                    flows.append({"src": host[s * hosts + i % hosts], "dst": host[d * hosts + (i // hosts) % hosts]})
    workloads = []
    if load_pct > 0:
        for r in range(racks):
            workloads.append({"name": "mice", "cdf": "websearch", "load": mice_workload_load(load_pct, hosts),
                              "pattern": "all_to_all", "senders": [host[r * hosts + j] for j in range(hosts)],
                              "receivers": [host[x] for x in range(racks * hosts) if x // hosts != r]})
    tor: dict = {"policy": policy, "elephants": {"per_pair": per_pair}}
    if record_pairs is not None and record_pairs < racks * (racks - 1):
        tor["elephants"]["record_pairs"] = record_pairs
    if policy == "acceltor":
        acc: dict = {"hp": "150KB", "lp": "150KB", "queue": f"{queue_kb or 500}KB", "safe_margin": safe_margin}
        if queue_kb is not None and queue_kb < 500:
            acc["overflow"] = "lp"  # §IV-G: a packet for a full Q_i goes through the LP queue
        tor["acceltor"] = acc
    elif policy == "blocking":
        tor["blocking"] = {"packet_queue": f"{round(300 * blocking_buffer_x)}KB",
                           "circuit_pool": f"{round(1500 * blocking_buffer_x)}KB"}
    else:
        tor["unblocking"] = {"shared": "1.8MB"}
    host_link = {"rate": f"{HOST_GBPS}Gbps", "delay": f"{HOST_DELAY_US}us"}
    topo: dict = {"kind": "rdcn", "racks": racks, "hosts_per_rack": hosts, "host_link": host_link,
                  "packet_link": {"rate": f"{EPS_GBPS}Gbps", "delay": f"{PACKET_DELAY_US}us"},
                  "circuit_link": {"rate": f"{OCS_GBPS}Gbps", "delay": f"{CIRCUIT_DELAY_US}us"}}
    if loss > 0:  # §IV-F: losses inside the destination rack: the ToR -> host links
        topo["host_downlink"] = {**host_link, "loss_rate": loss}
    tcp = {"cc": cc, "mss": 1448, "header": 52, "delayed_ack": 1, "timestamps": True}
    queue: dict = {"buffer": "150KB"}
    if cc == "dctcp":
        queue.update({"discipline": "ecn", "ecn_threshold": f"{ECN_K_PKTS}pkt"})
    output: dict = {"warmup": f"{warmup_weeks * wk}us"}
    if cwnd_pair:  # Fig. 11: the cwnd of pair 0 -> 1's elephants (flows 0 .. per_pair - 1)
        output.update({"sample_interval": "10us", "cwnd": list(range(per_pair))})
    return {
        "name": f"acceltor-{policy}-{racks}r-{cc}",
        "simulation": {"end": f"{(warmup_weeks + weeks) * wk}us", "seed": seed},
        "topology": topo,
        "queue": queue,
        "circuit": {"schedule": "strobe", "day": f"{DAY_US}us", "night": f"{NIGHT_US}us"},
        "tor": tor,
        "transport": tcp,
        "output": output,
        "workload": workloads,
        "flows": flows,
    }


# ---------------------------------------------------------------------------------------------
# What each run contributes


def _rack(host: str, hosts: int) -> int:
    """The rack of host "hN" in a scenario of `hosts` hosts per rack."""
    return int(host[1:]) // hosts


def _measured_days(days: pd.DataFrame, warm_ps: float, wk_ps: float) -> pd.DataFrame:
    """The days after the warm-up, each with its week (the days table lists every day of every
    pair with traffic, the warm-up's included)."""
    days = days[days.start_ps >= warm_ps].copy()
    days["week"] = (days.start_ps // wk_ps).astype(int)
    return days


def _read_back(directory, table: str, warm_ps: float, wk_ps: float, hosts: int = HOSTS):
    """A loader of one run's large table from its results directory, as `extract` derives it."""
    def load() -> pd.DataFrame:
        from ..results import Results

        frame = Results.load_table(directory, f"circuit_{table}")
        if table != "days":
            return frame
        flows = Results.load_table(directory, "flows", columns=["workload", "src", "dst"])
        return _elephant_days(_measured_days(frame, warm_ps, wk_ps), flows, hosts)
    return load


def _frame(d: dict, field: str):
    """`d[field]` as a DataFrame: kept in memory, or read back from the run's directory."""
    v = d.get(field)
    return v() if callable(v) else v


def _elephant_days(days: pd.DataFrame, flows: pd.DataFrame, hosts: int) -> pd.DataFrame:
    """The days of the rack pairs that have elephants (the scenario's listed flows). The days table
    also lists pairs without elephants whose days carried ACKs or mice only (when elephants run one
    way only: `elephants-from-rack-0`); §IV-C measures the links the elephants use. With elephants
    on every pair (the text's setup) nothing is left out."""
    listed = flows[flows.workload == ""]
    src = listed["src"].map(lambda h: _rack(h, hosts))
    dst = listed["dst"].map(lambda h: _rack(h, hosts))
    pairs = pd.MultiIndex.from_arrays([src, dst]).unique()
    keep = pd.MultiIndex.from_arrays([days["src"], days["dst"]]).isin(pairs)
    return days if keep.all() else days[keep]


def extract(res, racks: int, warmup_weeks: int, hosts: int = HOSTS) -> dict:
    """Per-run tables (elephant weeks, measured days, mice) and the figures the headlines need.

    A run read from a store (`res.directory`) keeps only what the headlines and figures read; its
    per-elephant-week and per-day tables are read back from the store one run at a time when the
    Parquet tables are written. Those two tables have tens of millions of rows at paper scale
    (8 racks over 5 s: 12 M elephant-weeks, 1.3 GB), and a rack sweep holding all 27 runs' needed
    more than the machine's 24 GB."""
    c = res.circuit
    wk_ps = week_us(racks) * 1e6
    warm_ps = warmup_weeks * wk_ps
    ew = c["elephant_weeks"]
    f = res.flows
    days = _elephant_days(_measured_days(c["days"], warm_ps, wk_ps), f, hosts)
    warm = warm_ps / 1e6
    mice = f[(f.workload == "mice") & f.measured & f.fct_s.notna()][["size", "fct_s", "ideal_fct_s", "slowdown"]].copy()
    unfinished = int(((f.workload == "mice") & f.measured & f.fct_s.isna()).sum())
    cases = c["cases"].iloc[0].to_dict() if "cases" in c else {}
    where = getattr(res, "directory", None)
    out = {
        "elephant_weeks": ew.copy() if where is None else _read_back(where, "elephant_weeks", warm_ps, wk_ps),
        "days": days if where is None else _read_back(where, "days", warm_ps, wk_ps, hosts),
        "weekly_occupancy": _weekly_occupancy(days),
        "racks": racks,
        "mice": mice,
        "occupancy": float(days["utilization"].mean()) if len(days) else float("nan"),
        "weekly_mbps": ew["weekly_gbps"].to_numpy() * 1e3,
        "weekly_sent_mbps": ew["weekly_sent_gbps"].to_numpy() * 1e3 if "weekly_sent_gbps" in ew else np.array([]),
        "daily_mbps": ew["daily_gbps"].to_numpy() * 1e3,
        "idle_day_fraction": float((ew["circuit_bytes"] == 0).mean()) if len(ew) else float("nan"),
        "mice_norm_fct": float(mice["slowdown"].mean()) if len(mice) else float("nan"),
        "mice_unfinished": unfinished,
        "cases": {k: int(v) for k, v in cases.items()},
        "timeouts": int(f["timeouts"].sum()),
        "wall_s": float(res.summary.get("wall_s", float("nan"))),
        "packet_hops": int(res.summary.get("packet_hops", 0)),
        "warmup_us": warm,
    }
    ts = res.timeseries if hasattr(res, "timeseries") else None
    if ts is not None and len(ts):
        fs = res.flow_series()
        if "cwnd" in fs and fs["cwnd"].notna().any():
            out["cwnd"] = fs.groupby("time_s")["cwnd"].sum().rename("cwnd").reset_index()
    return out


def fold_cwnd(cwnd: pd.DataFrame, racks: int, warmup_us: float) -> pd.DataFrame:
    """Fig. 11: the aggregated cwnd of pair 0 -> 1's elephants against the time since its day
    began (slot 0 of the strobe: night 0-20 us, day 20-260 us of each week), averaged over the
    measured weeks."""
    wk = week_us(racks)
    t = cwnd["time_s"].to_numpy() * 1e6
    keep = t >= warmup_us
    off = (t[keep] % wk) - NIGHT_US
    df = pd.DataFrame({"offset_us": np.round(off, 3), "cwnd": cwnd["cwnd"].to_numpy()[keep]})
    df = df[(df.offset_us >= -100) & (df.offset_us <= DAY_US + 100)]
    return df.groupby("offset_us", as_index=False)["cwnd"].mean()


# ---------------------------------------------------------------------------------------------
# The experiments


def _x(racks: int, warmup_weeks: int):
    return partial(extract, racks=racks, warmup_weeks=warmup_weeks)


def plan(scale: str) -> list[tuple[str, dict]]:
    """The experiments as (point key, keyword arguments of `scenario`), cheap to list: a paper-scale
    scenario holds 196 000 elephant flows, so documents are built only for the selected points."""
    sc = SCALES[scale]
    ww = sc["warmup_weeks"]
    out: list[tuple[str, dict]] = []
    for n in sc["racks"]:
        w = sc["rack_weeks"] or weeks_in(n) - ww
        out += [(f"racks/{n}/{p}", dict(policy=p, racks=n, weeks=w)) for p in SCHEMES]
    n = sc["compare_racks"]
    w = sc["weeks"] or weeks_in(n) - ww
    # Fig. 11's cwnd trace samples every 10 us; over 5 s at 50 racks the series (with the hybrid
    # network's 2 450 VOQ series) would need ~260 GB, so paper scale leaves it to the reduced run.
    trace = scale != "paper"
    out += [(f"compare/{p}", dict(policy=p, racks=n, weeks=w, cwnd_pair=trace)) for p in SCHEMES]
    out += [(f"bigbuf/{x}", dict(policy="blocking", racks=n, weeks=w, blocking_buffer_x=x)) for x in sc["bigbuf"]]
    out += [(f"load/{ld}/{p}", dict(policy=p, racks=n, load_pct=ld, weeks=w)) for ld in LOADS for p in SCHEMES]
    out += [(f"margin/{tag}", dict(racks=n, weeks=sc["margin_weeks"], safe_margin=on, loss=0.01))
            for tag, on in (("on", True), ("off", False))]
    out += [(f"queue/{q}", dict(racks=n, weeks=w, queue_kb=q)) for q in (300, 500)]
    cw = sc["cca_weeks"] or w
    out += [(f"cca/{cc}/{p}", dict(policy=p, racks=n, cc=cc, weeks=cw)) for cc in CCAS for p in SCHEMES]
    # Paper scale: weekly elephant rows for a sample of rack pairs (every pair at 50 racks is
    # 196 000 rows a week, 26 GB over 5 s); the days and occupancy still cover every pair.
    extra = {"record_pairs": sc["record_pairs"]} if sc.get("record_pairs") else {}
    return [(k, {**kw, "warmup_weeks": ww, **extra}) for k, kw in out]


# ---------------------------------------------------------------------------------------------
# The artifact model: the authors' ns-3 code, github.com/HPCC724/RDCNSimulate (the paper's
# footnote 2; an ns-3.38 `ocs` module). Its 50-rack AccelToR setup is scratch/scratch-FTwarmup.cc
# (strategy "warmup" = `cwndbased`); the ToR is src/ocs/model/Ipv4EpsRouting.{h,cc}, the EPS
# src/ocs/helper/FatTreeHelper.cc. docs/reproductions/acceltor.md has the reading in full.

REPO = "github.com/HPCC724/RDCNSimulate"
#: Ipv4EpsRouting.h: a flow is an elephant once its Count-Min count (one per packet) exceeds 150;
#: our sketch counts data bytes, so 151 full 1500 B packets.
AUTHORS_HEAVY_PKTS = 150
#: Ipv4EpsRouting.h `EraseFlow`: a flow silent for 0.000520 × 50 s is forgotten.
AUTHORS_IDLE_US = 520 * 50
#: FatTreeHelper(10) in scratch-FTwarmup.cc: a k = 10 fat tree, so each ToR (edge switch) has
#: k/2 = 5 uplinks of 10 Gb/s (per-packet random ECMP), each port with 150 kB per priority queue.
FAT_TREE_UPLINKS = 5
#: scratch-FTwarmup.cc: each destination's 80 elephants start 260 us after the previous
#: destination's, the first at 20 us, destinations taken from rack 6 (relative to the source) on.
STAGGER_FIRST_US, STAGGER_STEP_US, STAGGER_FIRST_OFFSET = 20, DAY_US + NIGHT_US, 6


def _edit(doc: dict, *, policies=SCHEMES, fn) -> dict:
    """A deep copy of `doc` changed by `fn(copy)`, or `doc` itself for the ToR policies not in
    `policies`."""
    if doc["tor"]["policy"] not in policies:
        return doc
    new = copy.deepcopy(doc)
    fn(new)
    return new


def _tcp(**keys):
    return lambda point, doc: _edit(doc, fn=lambda d: d["transport"].update(keys))


def _ns3_dctcp(point: str, doc: dict) -> dict:
    """ns-3's `TcpDctcp` and its socket's ECN rules, for the DCTCP points only."""
    if doc["transport"]["cc"] != "dctcp":
        return doc

    def f(d):
        t = d["transport"]
        t.update({"ect_syn": True, "dctcp_echo": "ns3", "cwr_exit": "beyond"})
        if t.get("prr"):  # ns-3's PRR entry in CWR, where PRR is on (ns3-loss-recovery)
            t["prr_entry"] = "ns3"
        # Whole numbers written as integers, as the scenario keys are written elsewhere.
        t.setdefault("cc_params", {}).update({k: int(v) if float(v).is_integer() else v for k, v in NS3_DCTCP_RULES.items()})
    return _edit(doc, fn=f)


#: ns-3's `TcpDctcp` rules as DCTCP's `cc_params`, as the engine's `[host] stack = "ns-3"` gives
#: them (crates/engine/src/transport/tcp/cc/dctcp.rs `Dctcp::NS3_RULES`).
NS3_DCTCP_RULES = dict(_engine.ns3_cc_knobs("dctcp"))


def _acceltor(**keys):
    return lambda point, doc: _edit(doc, policies=("acceltor",), fn=lambda d: d["tor"]["acceltor"].update(keys))


def _elephants(**keys):
    return lambda point, doc: _edit(doc, fn=lambda d: d["tor"]["elephants"].update(keys))


def _fat_tree(point: str, doc: dict) -> dict:
    def f(d):
        d["topology"]["packet_link"]["rate"] = f"{FAT_TREE_UPLINKS * EPS_GBPS}Gbps"
        if d["tor"]["policy"] == "acceltor":
            d["tor"]["acceltor"].update(hp=f"{FAT_TREE_UPLINKS * 150}KB", lp=f"{FAT_TREE_UPLINKS * 150}KB")
    return _edit(doc, fn=f)


def stagger_start_us(src: int, dst: int, racks: int) -> float:
    """scratch-FTwarmup.cc's start plan: the source's destinations in the order rack src + 6,
    src + 7, … (mod N, skipping the source), the j-th starting at 20 + 260·j us."""
    order = [(src + STAGGER_FIRST_OFFSET + k) % racks for k in range(racks)]
    j = [d for d in order if d != src].index(dst)
    return STAGGER_FIRST_US + STAGGER_STEP_US * j


def _staggered(point: str, doc: dict) -> dict:
    def f(d):
        n, hosts = d["topology"]["racks"], d["topology"]["hosts_per_rack"]
        starts: dict[tuple[int, int], str] = {}  # one string per rack pair, shared by its flows
        for fl in d["flows"]:
            pair = (_rack(fl["src"], hosts), _rack(fl["dst"], hosts))
            if pair not in starts:
                starts[pair] = f"{stagger_start_us(*pair, n)}us"
            fl["start"] = starts[pair]
    return _edit(doc, fn=f)


#: The artifact model ("as the authors ran it", docs/reproductions/acceltor.md): behaviours of the
#: authors' code that the text does not state, each applied to the text model's scenarios.
ARTIFACT: list[Change] = [
    Change("no-tlp-rack", "TCP without tail-loss probes and without RACK (tlp = rack = false)",
           "ns-3 default: ns-3.38 TcpSocketBase (TcpNewReno, scratch-FTwarmup.cc) has neither TLP nor RACK",
           _tcp(tlp=False, rack=False)),
    Change("ns3-loss-recovery", "ns-3's loss recovery: PRR in fast recovery with ns-3.38's SSRB bound, counted in bytes "
           "(prr, prr_recovery, prr_bound = \"ns3-ssrb\", prr_units = \"bytes\"), fast recovery only from a duplicate ACK and "
           "never during CWR, ssthresh lowered at every timeout, limited transmit through the pipe, SACK option bytes "
           "(4 + 8n B: no timestamps here)",
           "ns-3 default: ns-3.38 TcpL4Protocol::RecoveryType = TcpPrrRecovery (ReductionBound SSRB; "
           "src/internet/model/tcp-prr-recovery.cc DoRecovery), TcpSocketBase::DupAck and ReTxTimeout; SACK on (its default)",
           _tcp(prr=True, prr_recovery=True, prr_bound="ns3-ssrb", prr_units="bytes", recovery_from_cwr=False,
                timeout_ssthresh="every", prr_cwr_acks="advancing", limited_transmit="pipe", recovery_on="duplicate_ack",
                sack_bytes="ns3")),
    Change("ns3-retransmissions", "ns-3.38's retransmissions: DoRetransmit entering fast recovery and on a partial ACK (NextSeg's lost, "
           "else new data, else the head: partial_ack = \"ns3\"), NextSeg's rule 3 and no rescue (next_seg = \"ns3\"), a lost "
           "retransmission found only by the timeout (lost_retransmit = \"never\")",
           f"{REPO} src/internet/model/tcp-socket-base.cc EnterRecovery, ProcessAck (partial ACK) and DoRetransmit; "
           "tcp-tx-buffer.cc NextSeg (skips segments flagged m_retrans; no rule 4) and SetSentListLost (the only reset of the flags): "
           "ns-3.38's files, unchanged in the repository but for blank lines and a commented-out print",
           _tcp(partial_ack="ns3", next_seg="ns3", lost_retransmit="never")),
    Change("ns3-loss-exit", "ns-3.38's end of a timeout's loss state: the ACK that ends it grows the window only by the "
           "segments beyond the recovery point the timeout recorded (loss_exit = \"ns3\")",
           f"{REPO} src/internet/model/tcp-socket-base.cc TcpSocketBase::ProcessAck (CA_LOSS branch: segsAcked = "
           "(ackNumber - m_recover) / segment size; ReTxTimeout sets m_recover = m_highTxMark); ns-3.38's file",
           _tcp(loss_exit="ns3")),
    Change("ns3-handshake", "every connection opens with ns-3's three-way handshake before its data: the SYN resent after "
           "ns-3's 3 s ConnTimeout if lost, the handshake's ACK a packet of its own (handshake = true, initial_rto = \"3s\", "
           "handshake_ack = true, ack_first_data = true)",
           f"{REPO} src/ocs/model/new-bulk-send-application.cc NewBulkSendApplication::StartApplication (m_socket->Connect) "
           "with scratch/scratch-FTwarmup.cc's NewBulkSend flows; tcp-socket-base.cc (ns-3.38's) ProcessSynSent, "
           "SendEmptyPacket (SYN timeout m_cnTimeout, TcpSocket::ConnTimeout 3 s, not set by the script)",
           _tcp(handshake=True, initial_rto="3s", handshake_ack=True, ack_first_data=True)),
    Change("iw1", "initial window of 1 segment (initial_cwnd = 1)",
           f"{REPO} scratch/scratch-FTwarmup.cc main: Config::SetDefault TcpSocket::InitialCwnd 1",
           _tcp(initial_cwnd=1)),
    Change("segment-1458", "1458 B segments with 42 B of headers (IPv4 20 + TCP 20, no timestamp option, PPP 2): "
           "mss = 1458, header = ack_size = 42; without the option, RTT samples by Karn's rule (timestamps = false)",
           f"{REPO} scratch/scratch-FTwarmup.cc main: TcpSocket::SegmentSize 1458, TcpSocketBase::Timestamp false",
           _tcp(mss=1458, header=42, ack_size=42, timestamps=False)),
    Change("ns3-rto-backoff", "a timeout's RTO back-off ends at the next ACK of new data, RTT sample or not "
           "(rto_backoff_end = \"new_ack\"; only differs without timestamps, i.e. with segment-1458)",
           f"ns-3 default: {REPO} src/internet/model/tcp-socket-base.cc TcpSocketBase::NewAck (m_rto recomputed from the "
           "estimator, dropping ReTxTimeout's doubling; called with resetRTO true by ProcessAck for every advancing ACK but "
           "fast recovery's later partial ACKs); ns-3.38's file. Added 2026-11-28: a review found the model kept Karn's "
           "back-off once segment-1458 turned timestamps off (scratch-FTwarmup.cc: TcpSocketBase::Timestamp false)",
           _tcp(rto_backoff_end="new_ack")),
    Change("case4-window", "Case IV drops a flow only for 520 us after its first drop, then its packets take LP until its "
           "day is within K days; a new elephant starts on LP ([tor.acceltor] case4 = \"window\")",
           f"{REPO} src/ocs/model/Ipv4EpsRouting.cc Ipv4EpsRouting::RouteInput (q_idx out of range: lostflag, "
           "droptime + 0.000520) and Ipv4EpsRouting.h Flow::DropPacket (lostflag = true at construction)",
           _acceltor(case4="window")),
    Change("count-acceleration", "acceleration by packet count: after a Case IV drop the first 4 packets take LP (8 if the "
           "flow sent < 25 in its last run), the next goes to Q_i, the rest LP until the day ([tor.acceltor] "
           "acceleration = \"count\")",
           f"{REPO} src/ocs/model/Ipv4EpsRouting.cc RouteInput (cwndbased branch), Ipv4EpsRouting.h Flow::DropPacket "
           "(sentp_thresh 25), src/ocs/helper/FatTreeHelper.cc EPSRouteInstall (SetSSthresh(4))",
           _acceltor(acceleration="count")),
    Change("elephant-150pkt", f"a flow is an elephant past {AUTHORS_HEAVY_PKTS} packets in the Count-Min sketch "
           f"([tor.elephants] heavy = {AUTHORS_HEAVY_PKTS + 1} x 1500 B)",
           f"{REPO} src/ocs/model/Ipv4EpsRouting.h (elephantthresh = 150; Count_MinSketch::Insert_and_Get adds 1 a packet)",
           _elephants(heavy=f"{(AUTHORS_HEAVY_PKTS + 1) * 1500}B")),
    Change("forget-idle-26ms", "an elephant silent for 26 ms is forgotten ([tor.elephants] idle = \"26ms\")",
           f"{REPO} src/ocs/model/Ipv4EpsRouting.h Ipv4EpsRouting::EraseFlow (0.000520*50 s), called at each night by BeginConfig",
           _elephants(idle=f"{AUTHORS_IDLE_US}us")),
    Change("forget-keeps-count", "a forgotten elephant counts as heavy, those chosen at the start too (never counted), so "
           "its next packet makes it an elephant again (fresh state, a place free in its pair) instead of a mouse that must "
           f"count {AUTHORS_HEAVY_PKTS} packets anew ([tor.elephants] forget = \"keep-count\"; the authors choose no "
           "elephant at the start: all of theirs passed the sketch)",
           f"{REPO} src/ocs/model/Ipv4EpsRouting.h Ipv4EpsRouting::EraseFlow (erases the Flow from all_upflows, never the "
           "Count_MinSketch) and Ipv4EpsRouting.cc RouteInput (a packet without a Flow: SketchInsert, then AddUpFlow once the "
           "count passes elephantthresh)",
           _elephants(forget="keep-count")),
    Change("eps-fat-tree", f"the packet network is a k = 10 fat tree: {FAT_TREE_UPLINKS} ECMP uplinks of {EPS_GBPS} Gb/s per "
           f"ToR, modelled as one {FAT_TREE_UPLINKS * EPS_GBPS} Gb/s uplink with {FAT_TREE_UPLINKS} x 150 KB HP and LP "
           "(mice keep their 5 Gb/s; per-packet ECMP reordering not modelled)",
           f"{REPO} src/ocs/helper/FatTreeHelper.cc FatTreeHelper::Create (edge-aggregation Prio2Device links 10Gbps, "
           "150kB queues) with FatTreeHelper(10) and RandomEcmpRouting in scratch/scratch-FTwarmup.cc",
           _fat_tree),
    Change("lp-by-bytes-left", "the packet port's queue is chosen by the bytes left in the packet's flow, not by "
           "Algorithm 1's case: LP while more than 50 KB (of 1024 B) are left, mice included; an elephant's last 50 KB HP; "
           "ACKs HP ([tor.acceltor] lp_left = \"52224B\"; the hosts' TCP writes the bytes left into each packet's rank)",
           f"{REPO} src/ocs/model/Prio2Device.cc Prio2Device::GetTargetQueue (OcsTag::GetLeftSize() > micethresh, 50 in "
           "Prio2Device.h; no tag: queue 0), written by new-bulk-send-application.cc NewBulkSendApplication::SendData "
           "(SetLeftSize((m_maxBytes - m_totBytes) / 1024)); Prio2DeviceHelper::Install puts the Prio2Device on the ToR "
           "side of every ToR-aggregation link (FatTreeHelper::Create(true), scratch-FTwarmup.cc)",
           _acceltor(lp_left="52224B")),
    Change("ns3-dctcp", "DCTCP points only (Fig. 17): ns-3's TcpDctcp and its socket's ECN rules: every packet ECN-capable, "
           "SYNs included (ect_syn), TcpDctcp's receiver echo and ECE reading (dctcp_echo = \"ns3\"), CWR's end beyond its "
           "recovery point (cwr_exit = \"beyond\"), PRR's entry in CWR (prr_entry = \"ns3\", with ns3-loss-recovery), "
           "TcpDctcp's cut in bytes, first window, cut before alpha, growth, empty-window decay and loss cuts (cc_params)",
           f"{REPO} src/internet/model/tcp-dctcp.cc (TcpDctcp, ns-3.38's: the simulator's only DCTCP; no script of the "
           "repository runs DCTCP, so Fig. 17's configuration is not public) and tcp-socket-base.cc (AddSocketTags, "
           "ReceivedAck, EnterCwr)", _ns3_dctcp),
    Change("staggered-starts", "each source's elephants start per destination, 260 us apart from 20 us on, instead of all at t = 0",
           f"{REPO} scratch/scratch-FTwarmup.cc main (starttime 0.000020, addperu 0.000260 per LongFlowPlan)",
           _staggered),
]
#: scratch-FTwarmup.cc (and scratch-FTalltor.cc, scratch-FTsinglequeue.cc: the three 50-rack
#: experiment scripts): the mice are fixed 150 000 B flows from rack 0, a Poisson stream of 350 a
#: second to each other rack (utils/FlowGenerate/poisson_multiple.py: `fsize = 150000`,
#: `flow_per_second = 350`). The traces hold 1 s of arrivals and the scripts stop at 0.15 or 1 s,
#: so mice arrive all through their runs: ours keep arriving to the end of the text's 5 s.
SCRIPT_MICE_BYTES, SCRIPT_MICE_PER_S = 150_000, 350


def _elephants_from_rack_0(point: str, doc: dict) -> dict:
    def f(d):
        hosts = d["topology"]["hosts_per_rack"]
        d["flows"] = [fl for fl in d["flows"] if _rack(fl["src"], hosts) == 0]
        # 49 pairs at 50 racks: every one recorded (a sample of 100 of 2 450 pairs would miss most).
        d["tor"]["elephants"].pop("record_pairs", None)
    return _edit(doc, fn=f)


def script_mice_load(racks: int, hosts: int = HOSTS, host_gbps: float = HOST_GBPS) -> float:
    """The scripts' mice as a workload load on rack 0's host links: 350 flows of 150 000 B a second
    to each of the other racks (at 50 racks 20.6 Gb/s, 0.103 of two 100 Gb/s hosts)."""
    return SCRIPT_MICE_PER_S * (racks - 1) * SCRIPT_MICE_BYTES * 8 / (hosts * host_gbps * 1e9)


def _script_mice(point: str, doc: dict) -> dict:
    if not doc["workload"] or point.startswith("load/"):  # Fig. 14's loads keep the text's mice
        return doc

    def f(d):
        racks, hosts = d["topology"]["racks"], d["topology"]["hosts_per_rack"]
        d["workload"] = [{"name": "mice", "size": f"{SCRIPT_MICE_BYTES}B", "load": script_mice_load(racks, hosts),
                          "pattern": "all_to_all", "senders": [f"h{j}" for j in range(hosts)],
                          "receivers": [f"h{x}" for x in range(hosts, racks * hosts)]}]
    return _edit(doc, fn=f)


#: Behaviours read in the authors' code and not adopted, because the paper's text says otherwise
#: (§IV-B: "for each pair of source-destination racks, we select |F_i| = 80 largest flows as
#: elephant flows"; flow sizes "drawn from pFabric"; Fig. 9's "elephant flows from rack 5 to rack
#: 37"). `--changes=+NAME` runs them on top of the model, so both sides are shown
#: (docs/reproductions/acceltor.md, "The scripts' traffic").
READINGS: list[Change] = [
    Change("elephants-from-rack-0", "the scripts' elephants: 80 from rack 0 to each other rack and none between other racks "
           "(the text: 80 per ordered pair of racks), so only rack 0's days carry elephants; every pair's elephant weeks "
           "recorded",
           f"{REPO} scratch/scratch-FTwarmup.cc main (LongFlowPlan(GetNodeInEdge(i % 50), GetNodeInEdge(0), 80, ...) for "
           "i = 6 .. 55, rack 0 skipped) with src/ocs/model/AppPlanner.cc AppPlanner::LongFlowPlan (the NewBulkSend client on "
           "the second rack, rack 0; the PacketSink server on the first); scratch-FTalltor.cc and scratch-FTsinglequeue.cc "
           "the same but for their first start times and 80 flows from rack 0 to itself (their skip tests i, not i % 50)",
           _elephants_from_rack_0, reading=True),
    Change("mice-150kb-from-rack-0", f"the scripts' mice: {SCRIPT_MICE_BYTES} B flows (104 segments of 1448 B, 103 of "
           f"1458 B: elephants only if retransmissions take them past 150 packets) from rack 0's hosts to the other racks', "
           f"{SCRIPT_MICE_PER_S} a second to each rack, all through the run (the text: web-search sizes from every rack at "
           "50 % of its uplink); Fig. 14's loads keep the text's mice. The generator's comment maps 3000 a second to "
           "70.56 %, so 350 may not be the 50 % setting (the trace files are not in the repository)",
           f"{REPO} utils/FlowGenerate/poisson_multiple.py FlowGenerator.GenerateSizeTrace (fsize = 150000, flow_per_second "
           "350, 1 s of arrivals for runs of 0.15-1 s), scratch/scratch-FTwarmup.cc main (aplmice[i]: AddClientSet(GetNodeInEdge(0)), "
           "AddServerSet(GetNodeInEdge(i + 1)), CreatePlanFromTrace), src/ocs/model/AppPlanner.cc "
           "AppPlanner::RegisterFlow (NewBulkSend on the client)",
           _script_mice, reading=True),
]
#: The central claims (headline names, the first without its reduced-scale "(N racks)" suffix:
#: `central`) and the points they read; `--one-change` runs those points once per single change.
OCCUPANCY = "AccelToR optical occupancy, 50 % load"
CENTRAL: list[str] = [OCCUPANCY, "occupancy AccelToR / Blocking", "occupancy AccelToR / Unblocking"]
CENTRAL_POINTS: list[str] = ["compare/"]


def central(scale: str) -> list[str]:
    """CENTRAL as the headlines of `scale` name them."""
    n = SCALES[scale]["compare_racks"]
    return [f"{c} ({n} racks)" if c == OCCUPANCY and n != 50 else c for c in CENTRAL]


def points(scale: str, only: Optional[list[str]] = None) -> list[tuple[str, dict, object]]:
    """(key, scenario, extract) of the points whose key starts with one of `only` (all if None)."""
    return [(k, scenario(**kw), _x(kw["racks"], kw["warmup_weeks"])) for k, kw in plan(scale)
            if not only or any(k.startswith(o) for o in only)]


# ---------------------------------------------------------------------------------------------
# Paper vs ours


def _pct(r: dict, key: str, field: str, q: float) -> float:
    return percentile(r.get(key, {}).get(field), q)


def capacity_mbps(racks: int, per_pair: int = PER_PAIR) -> float:
    """The most one elephant can average over a week: its pair's circuit day plus a 1/(N-1) share
    of the EPS uplink for the whole week, split over |F_i| elephants (Mb/s)."""
    wk = week_us(racks)
    bits = OCS_GBPS * 1e3 * DAY_US + EPS_GBPS * 1e3 * wk / (racks - 1)
    return bits / wk / per_pair


def headlines(r: dict, scale: str = "reduced") -> list[Headline]:
    sc = SCALES[scale]
    n = sc["compare_racks"]
    occ = lambda k: 100 * value(r, k, "occupancy")  # noqa: E731
    fct = lambda k: value(r, k, "mice_norm_fct")  # noqa: E731
    at = f" ({n} racks)" if n != 50 else ""
    rows = [
        Headline(f"{OCCUPANCY}{at}", "> 90 %", 90, 100, occ("compare/acceltor"), " %",
                 "the paper states the bound (abstract, §IV-C)"),
        Headline("occupancy AccelToR / Blocking", "8.24x", 6.2, 10.3, occ("compare/acceltor") / occ("compare/blocking"), "x",
                 "+-25 %"),
        Headline("occupancy AccelToR / Unblocking", "12.92x", 9.7, 16.2, occ("compare/acceltor") / occ("compare/unblocking"), "x",
                 "+-25 %"),
        Headline("mice norm. FCT: AccelToR vs Blocking", "+0.97 %", -1.0, 3.0,
                 100 * (fct("compare/acceltor") / fct("compare/blocking") - 1), " %", "+-2 points"),
        Headline("mice norm. FCT: AccelToR below Unblocking", "98.82 %", 96.0, 99.6,
                 100 * (1 - fct("compare/acceltor") / fct("compare/unblocking")), " %",
                 "Unblocking 85x AccelToR in the paper; band 25x-250x"),
    ]
    # Fig. 9: per-elephant weekly throughput; a week lasts N - 1 slots, so at another network size
    # the per-flow figure is rescaled to 50 racks ((N - 1) / 49) before it meets the paper's range.
    scale49 = (n - 1) / 49
    med = _pct(r, "compare/acceltor", "weekly_mbps", 50) * scale49
    rows.append(Headline("AccelToR weekly elephant throughput, median", "26.9-29.7 Mb/s", 26.9, 29.7, med, " Mb/s",
                         f"paper's 'most flows' range; the most one of 80 elephants can average at 50 racks is "
                         f"{capacity_mbps(50):.1f} Mb/s" + (f"; ours x {scale49:.3f} to 50 racks" if n != 50 else "")))
    sent = _pct(r, "compare/acceltor", "weekly_sent_mbps", 50) * scale49
    rows.append(Headline("AccelToR weekly elephant throughput, median, as the authors count it", "26.9-29.7 Mb/s", 26.9, 29.7,
                         sent, " Mb/s", "data the sender put on the wire, dropped packets included (RDCNSimulate "
                         "analyze/FlowThroughput_V2.py on a pcap at the sending hosts)"
                         + (f"; ours x {scale49:.3f} to 50 racks" if n != 50 else "")))
    rows.append(Headline("Unblocking: elephants idle in their day", "~80 %", 70, 90,
                         100 * value(r, "compare/unblocking", "idle_day_fraction"), " %", "elephant-weeks with no circuit byte"))
    rows.append(Headline("Blocking: elephants idle in their day", "~90 %", 80, 100,
                         100 * value(r, "compare/blocking", "idle_day_fraction"), " %", "Fig. 11's text: ~90 % send nothing"))
    racks = [m for m in sc["racks"] if f"racks/{m}/acceltor" in r]
    if len(racks) >= 2:
        a = [occ(f"racks/{m}/acceltor") for m in racks]
        b = [occ(f"racks/{m}/blocking") for m in racks]
        rows.append(Headline(f"Fig. 8c: AccelToR occupancy, lowest over {racks[0]}-{racks[-1]} racks", "> 90 %", 90, 100, min(a), " %"))
        rows.append(Headline("Fig. 8c: AccelToR occupancy spread over rack counts", "stable", 0, 10, max(a) - min(a), " pts",
                             "'stable': max - min within 10 points"))
        rows.append(Headline("Fig. 8c: Blocking occupancy, largest / smallest network", "decreases", 0, 0.9,
                             b[-1] / b[0] if b[0] else float("nan"), "x", "a fall of at least 10 %"))
    loads = [ld for ld in LOADS if f"load/{ld}/acceltor" in r]
    if len(loads) >= 3:
        lo = [occ(f"load/{ld}/acceltor") for ld in loads if ld <= 70]
        rows.append(Headline("Fig. 14b: AccelToR occupancy at <= 70 % load, lowest", "> 90 %", 90, 100, min(lo), " %"))
        if 95 in loads and 70 in loads:
            rows.append(Headline("Fig. 14b: AccelToR occupancy 95 % / 70 % load", "drops", 0, 0.8,
                                 occ("load/95/acceltor") / occ("load/70/acceltor"), "x", "'drops quickly': at least 20 % lower"))
        thr = lambda ld, p: _pct(r, f"load/{ld}/{p}", "weekly_mbps", 50)  # noqa: E731
        bl = [thr(ld, "blocking") for ld in loads]
        rows.append(Headline("Fig. 14a: Blocking weekly throughput, max / min over loads", "unaffected", 1.0, 1.1,
                             max(bl) / min(bl) if min(bl) > 0 else float("nan"), "x", "within 10 %"))
        ub = [np.mean(r[f"load/{ld}/unblocking"]["weekly_mbps"]) for ld in loads]
        rows.append(Headline("Fig. 14a: Unblocking mean weekly throughput, highest / lowest load", "degrades", 0, 0.9,
                             ub[-1] / ub[0] if ub[0] else float("nan"), "x"))
    if "margin/on" in r and "margin/off" in r:
        last = lambda k: _last_weeks_occupancy(r[k], 10)  # noqa: E731
        rows.append(Headline("Fig. 15: occupancy with the safe margin, last 10 weeks", "> 90 %", 90, 100, last("margin/on"), " %"))
        rows.append(Headline("Fig. 15: occupancy without it, last 10 weeks", "~65 %", 55, 75, last("margin/off"), " %",
                             "+-10 points"))
    if "queue/300" in r and "queue/500" in r:
        spread = lambda k: _pct(r, k, "weekly_mbps", 90) - _pct(r, k, "weekly_mbps", 10)  # noqa: E731
        rows.append(Headline("Fig. 16: p90-p10 of weekly throughput, 300 KB / 500 KB", "larger", 1.05, None,
                             spread("queue/300") / spread("queue/500") if spread("queue/500") else float("nan"), "x",
                             "'a greater variance' (direction only)"))
        rows.append(Headline("Fig. 16: occupancy 300 KB - 500 KB", "slightly lower", -10, 0, occ("queue/300") - occ("queue/500"),
                             " pts", "'slightly reduced': 0 to 10 points lower"))
    ccas = [cc for cc in CCAS if all(f"cca/{cc}/{p}" in r for p in SCHEMES)]
    if ccas:
        wins = sum(np.mean(r[f"cca/{cc}/acceltor"]["weekly_mbps"]) > max(np.mean(r[f"cca/{cc}/{p}"]["weekly_mbps"])
                                                                       for p in ("blocking", "unblocking")) for cc in ccas)
        rows.append(Headline(f"Fig. 17a: CCAs where AccelToR beats both (of {len(ccas)})", "all 16", len(ccas), len(ccas),
                             float(wins), "", "mean weekly throughput"))
        above = sum(occ(f"cca/{cc}/acceltor") > 90 for cc in ccas)
        rows.append(Headline("Fig. 17b: CCAs with occupancy > 90 %", "most (>= 9)", 9, 16, float(above), "",
                             "'most TCP variants': a majority of 16"))
        if "cubic" in ccas:
            rows.append(Headline("Fig. 17b: CUBIC occupancy", "53.1 %", 45, 61, occ("cca/cubic/acceltor"), " %", "+-8 points"))
        if "bbr" in ccas:
            rows.append(Headline("Fig. 17b: BBR occupancy", "76.0 %", 68, 84, occ("cca/bbr/acceltor"), " %", "+-8 points"))
    return rows


def _last_weeks_occupancy(d: dict, k: int) -> float:
    per = weekly_occupancy(d)
    return 100 * float(per["occupancy"].tail(k).mean()) if len(per) else float("nan")


def weekly_occupancy(d: dict) -> pd.DataFrame:
    """Mean optical occupancy of each week's days (Fig. 15's x-axis), as `extract` computed it."""
    return d["weekly_occupancy"]


def _weekly_occupancy(days: pd.DataFrame) -> pd.DataFrame:
    if not len(days):
        return pd.DataFrame(columns=["week", "occupancy"])
    return days.groupby("week", as_index=False)["utilization"].mean().rename(columns={"utilization": "occupancy"})


# ---------------------------------------------------------------------------------------------
# Tables and figures


def tables(r: dict, out: Path) -> list[Path]:
    """Parquet: per-elephant per-week throughput (weekly and daily), optical occupancy per day,
    mice normalized FCTs, the aggregated cwnd within a day, one row per point."""
    written = []

    def cat(field, fn):
        # One run's table at a time (read back from the store where `extract` left it there), each
        # appended to the file as row groups: the whole never needs to be in memory.
        import pyarrow as pa
        import pyarrow.parquet as pq

        p = out / fn
        partial = out / (fn + ".partial")  # renamed into place when whole: never half a table
        writer = None
        try:
            for k, d in sorted(r.items()):
                frame = _frame(d, field)
                if not isinstance(frame, pd.DataFrame) or not len(frame):
                    continue
                part = pa.Table.from_pandas(frame.assign(point=k), preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(partial, part.schema)
                writer.write_table(part.cast(writer.schema))
                del frame, part
        except BaseException:
            if writer is not None:
                writer.close()
            partial.unlink(missing_ok=True)
            raise
        if writer is not None:
            writer.close()
            partial.replace(p)
            written.append(p)

    cat("elephant_weeks", "elephant_throughput.parquet")
    cat("days", "optical_occupancy.parquet")
    cat("mice", "mice_fct.parquet")
    folded = {}
    for k, d in r.items():
        if isinstance(d.get("cwnd"), pd.DataFrame):
            n = d["racks"]
            folded[k] = {"cwnd_day": fold_cwnd(d["cwnd"], n, d.get("warmup_us", 0.0))}
    if folded:
        parts = [v["cwnd_day"].assign(point=k) for k, v in sorted(folded.items())]
        p = out / "cwnd_day.parquet"
        pd.concat(parts, ignore_index=True).to_parquet(p, index=False)
        written.append(p)
    return written


def runs_frame(r: dict) -> pd.DataFrame:
    rows = []
    for k, d in sorted(r.items()):
        w = d.get("weekly_mbps")
        dl = d.get("daily_mbps")
        ws = d.get("weekly_sent_mbps")
        rows.append({"point": k, "occupancy": d.get("occupancy"),
                     "weekly_mbps_p10": np.percentile(w, 10) if w is not None and len(w) else np.nan,
                     "weekly_mbps_p50": np.percentile(w, 50) if w is not None and len(w) else np.nan,
                     "weekly_mbps_p90": np.percentile(w, 90) if w is not None and len(w) else np.nan,
                     "weekly_sent_mbps_p50": np.percentile(ws, 50) if ws is not None and len(ws) else np.nan,
                     "daily_mbps_p10": np.percentile(dl, 10) if dl is not None and len(dl) else np.nan,
                     "daily_mbps_p50": np.percentile(dl, 50) if dl is not None and len(dl) else np.nan,
                     "daily_mbps_p90": np.percentile(dl, 90) if dl is not None and len(dl) else np.nan,
                     "idle_day_fraction": d.get("idle_day_fraction"), "mice_norm_fct": d.get("mice_norm_fct"),
                     "mice_unfinished": d.get("mice_unfinished"), "timeouts": d.get("timeouts"),
                     "packet_hops": d.get("packet_hops"), "wall_s": d.get("wall_s"),
                     **{f"case_{c}": v for c, v in d.get("cases", {}).items()}})
    return pd.DataFrame(rows)


def websearch_sizes(n: int, rng) -> np.ndarray:
    """`n` flow sizes from the built-in web-search CDF, read piecewise linearly (the engine's
    default `sampling`)."""

    pts = [tuple(map(float, ln.split()[:2])) for ln in _engine.builtin_workload_text("websearch").splitlines()
           if ln.strip() and not ln.lstrip().startswith("#")]
    size, cum = np.array([p[0] for p in pts]), np.array([p[1] for p in pts])
    return np.interp(rng.random(n), cum, size)


def elephant_fct_estimate(weekly_mbps: np.ndarray, seed: int = 1, draws: int = 100_000) -> np.ndarray:
    """Fig. 10: each elephant gets a size drawn from the 200 largest of `draws` web-search flows
    and finishes in size / its weekly throughput (seconds; inf for an elephant that sent nothing)."""
    rng = np.random.default_rng(seed)
    top = np.sort(websearch_sizes(draws, rng))[-200:]
    sizes = rng.choice(top, size=len(weekly_mbps))
    with np.errstate(divide="ignore"):
        return np.where(weekly_mbps > 0, sizes * 8 / (weekly_mbps * 1e6), np.inf)


#: The paper's values on our figures (report.html; drawn by FigureSaver), with their headline
#: bands. Panels of fig8_racks: daily, weekly throughput, occupancy, mice FCT; of fig14_load:
#: weekly throughput, occupancy, mice FCT. The weekly throughputs (26.9-29.7 Mb/s at 50 racks)
#: are not drawn: a week's length follows the rack count, so they sit on our axis only at 50 racks.
STATED: list[Stated] = [
    Stated("fig8_racks", "AccelToR's optical occupancy > 90 % at every network size", "abstract, §IV-C, Fig. 8c", None, 90, 100,
           axes=2),
    Stated("fig14_load", "AccelToR's occupancy > 90 % up to 70 % load", "the text on Fig. 14b", None, 90, 100, span=(10, 70), axes=1),
    Stated("fig15_safe_margin", "with the safe margin: occupancy > 90 %", "the text on Fig. 15", None, 90, 100),
    Stated("fig15_safe_margin", "without it: about 65 %", "the text on Fig. 15", 65, 55, 75),
    Stated("fig17_cca", "CUBIC: AccelToR's occupancy 53.1 %", "§IV-H, Fig. 17b", 53.1, 45, 61, x="cubic", axes=1),
    Stated("fig17_cca", "BBR: 76.0 %", "§IV-H, Fig. 17b", 76.0, 68, 84, x="bbr", axes=1),
]

#: The setup, each choice with the paper's sentence it rests on (docs/reproductions/acceltor.md; report.html).
SETUP: list[Setup] = [
    Setup('network',
          'N racks, one EPS uplink (10 Gb/s) and one OCS uplink (80 Gb/s) per ToR',
          '"each rack connects to an EPS switch and an OCS switch"; "set the capacities of the uplinks connecting to the EPS and the OCS as 10 Gbit/s and 80 Gbit/s respectively"'),
    Setup('schedule',
          'strobe (round robin over N − 1 matchings), day 240 µs, night 20 µs',
          '"We configure the durations of a day and a night as τ_day=240µs and τ_night=20µs"; §II-B "The OCS cycles through a series of N−1 static matchings in a demand-agnostic manner"'),
    Setup('RTTs',
          'link delays chosen so the base RTTs are 60.000 µs (packet network) and 55.000 µs (circuit), as `fabricsim topology` prints them',
          '"the RTT of the optical circuit network is set as 55µs, and the RTT of the packet network is 60µs"'),
    Setup('derived values',
          'm = 2, K_1 = 1, K = 3, RTO_min by eq. (6) (AccelToR) and eq. (7) (Blocking), all computed by the engine from the above',
          '"according to Sec. III-C and the network parameters, we have m = 2 and use K = 3 queues"; "We apply (6) to configure RTO_min"; Blocking: "we set RTO_min on end-hosts as RTO_min = τ_week − τ_day"'),
    Setup('AccelToR buffers',
          'HP and LP 150 KB, B = 500 KB per calendar queue',
          '"the HP and LP queues of the priority queue each has a size of 150 kB"; "Each queue has a size B of 500 kB"'),
    Setup('Blocking',
          '300 KB packet queue, 1.5 MB shared by the N − 1 per-destination queues',
          '"The size of the queue for the packet network is 300 kB, and the N − 1 per-destination queues for the circuit network have a total size of 1.5 MB"'),
    Setup('Unblocking',
          'EPS and OCS ports share one 1.8 MB queue; elephants take the packet network off-day',
          '"the egress ports connecting to the EPS and OCS share a queue, and to enable a fair comparison, the queue size is set as 1.8 MB"'),
    Setup('elephants',
          "80 long-lived NewReno flows per ordered rack pair, the pair's elephants from the start; Count-Min selection for replacements",
          '"for each pair of source-destination racks, we select |F_i| = 80 largest flows as elephant flows"; "We use Count-Min (CM) [44] ... to select elephant flows"; §IV-C estimates elephant FCTs from sizes "randomly selected from the top-200 largest flows in pFabric" because elephants outlast the run (at the paper\'s 26.9–29.7 Mb/s a 30 MB web-search elephant needs > 8 s)'),
    Setup('packet size',
          '1448 B payload + 52 B headers = 1500 B',
          '§IV-B "B ≥ 2^m × |F_i| = 480 kB": 4 × 80 packets of 1500 B'),
    Setup('mice',
          "web-search sizes (pFabric's first workload), Poisson arrivals; one workload per rack, from its hosts to hosts of the other racks; load = mice rate / the rack's 10 Gb/s EPS uplink (`mice_workload_load`: 50 % is 5 Gb/s from each rack)",
          '"We simulate network flows with their sizes drawn from pFabric"; "Subsequent flows arrive to the network following a Poisson process"; "load, which is defined as the ratio between the aggregated rate of the mice flows and the EPS bandwidth"; "We do not simulate intra-rack traffic"'),
    Setup('load',
          '50 % (Figs. 8–13, 15–17); 10, 30, 50, 70, 80, 90, 95 % (Fig. 14)',
          '"The load on the packet network introduced by the mice flows is fixed as 50%"; "make the load on the packet network vary from 10% to 95%"'),
    Setup('rack sweep',
          '8, 16, …, 72 racks (paper scale)',
          '"we vary the network size from 8 to 72 racks"'),
    Setup('duration',
          '5 s (paper scale: 392 weeks at 50 racks, 270 at 72)',
          '"An experiment lasts 5 seconds"; "suppose that the network has 72 racks, then each week lasts 18.46 ms, and 5 seconds contain 270 weeks"'),
    Setup('metrics',
          "weekly and daily elephant throughput (10th/50th/90th percentiles), optical occupancy of each pair's days, mice FCT / ideal FCT, aggregated cwnd of one pair's 80 elephants around its day",
          '§IV-B\'s list: "Weekly throughput", "Daily throughput", "Optical link bandwidth occupancy", "Normalized flow completion time (FCT)", "Aggregated congestion window (CWND)"'),
    Setup('Fig. 13',
          'Blocking with 2, 5 and 10 times the 1.8 MB',
          '"we presume that Blocking can employ up to 10 times larger packet buffer than AccelToR"'),
    Setup('Fig. 15',
          '1 % loss on every ToR → host link; with (K = 3) and without (K = 2) the safe margin; 70 measured weeks',
          '"we set the loss rate within the destination rack as 0.01"; "in the circuit days of 70 consecutive weeks"; "we use K = K_1 + 1 = 2 queues"'),
    Setup('Fig. 16',
          'B = 300 KB, a packet for a full Q_i goes through the LP queue',
          '"we set the size of each queue in the calendar queue as 300 kB ... if Q_i is full when a packet of a flow in F_i arrives, we schedule the packet to be transferred through the LP queue"'),
    Setup('Fig. 17',
          'NewReno, BIC, CUBIC, HighSpeed, H-TCP, Hybla, Reno, Scalable, Veno, Westwood, LEDBAT, Vegas, Illinois, BBR, YeAH, DCTCP under all three schemes; DCTCP with step marking at 65 packets on the EPS ports',
          '§IV-H\'s list; "we deploy DCTCP at EPS of the packet network with a default ECN marking threshold as 65 packets"'),
]


def figures(r: dict, out: Path, scale: str) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    save = FigureSaver(out, STATED)
    sc = SCALES[scale]

    def errbars(ax, xs, key_of, field, label, color):
        med = [_pct(r, key_of(x), field, 50) for x in xs]
        lo = [m - _pct(r, key_of(x), field, 10) for x, m in zip(xs, med)]
        hi = [_pct(r, key_of(x), field, 90) - m for x, m in zip(xs, med)]
        ax.errorbar(xs, med, yerr=[lo, hi], fmt="o-", capsize=3, label=label, color=color)

    def sweep(xs, key_of, throughputs, xlabel, title, name):
        """One figure per sweep: throughput percentiles per `throughputs` field, then optical
        occupancy and mice normalized FCT, a line per scheme against `xs`."""
        panels = [(f, f"{f.split('_')[0]} throughput (Mb/s)") for f in throughputs]
        fig, axs = plt.subplots(1, len(panels) + 2, figsize=(4 * len(panels) + 8, 3.6))
        for i, p in enumerate(SCHEMES):
            for ax, (field, _) in zip(axs, panels):
                errbars(ax, xs, lambda x: key_of(x, p), field, LABEL[p], f"C{i}")
            axs[-2].plot(xs, [100 * value(r, key_of(x, p), "occupancy") for x in xs], "o-", label=LABEL[p], color=f"C{i}")
            axs[-1].plot(xs, [value(r, key_of(x, p), "mice_norm_fct") for x in xs], "o-", label=LABEL[p], color=f"C{i}")
        for ax, yl in zip(axs, [y for _, y in panels] + ["optical occupancy (%)", "mice norm. FCT"]):
            ax.set_xlabel(xlabel)
            ax.set_ylabel(yl)
            ax.grid(alpha=0.3)
        axs[-1].set_yscale("log")
        axs[0].legend()
        fig.suptitle(title)
        save(fig, name)

    racks = [m for m in sc["racks"] if any(f"racks/{m}/{p}" in r for p in SCHEMES)]
    if racks:
        sweep(racks, lambda m, p: f"racks/{m}/{p}", ["daily_mbps", "weekly_mbps"], "racks",
              "Fig. 8: rack-count sweep, 50 % load (median, error bars 10th-90th percentile)", "fig8_racks")

    if all(f"compare/{p}" in r for p in SCHEMES):
        fig, axs = plt.subplots(1, 3, figsize=(14, 3.8))
        for i, p in enumerate(SCHEMES):
            w = np.sort(r[f"compare/{p}"]["weekly_mbps"])
            axs[0].plot(w, np.arange(1, len(w) + 1) / len(w), label=LABEL[p], color=f"C{i}")
            e = np.sort(elephant_fct_estimate(r[f"compare/{p}"]["weekly_mbps"]))
            axs[1].plot(e, np.arange(1, len(e) + 1) / len(e), label=LABEL[p], color=f"C{i}")
            m = np.sort(r[f"compare/{p}"]["mice"]["slowdown"].to_numpy())
            if len(m):
                axs[2].plot(m, np.arange(1, len(m) + 1) / len(m), label=LABEL[p], color=f"C{i}")
        axs[0].set_xlabel("weekly throughput (Mb/s)")
        axs[1].set_xlabel("estimated elephant FCT (s)")
        axs[1].set_xscale("log")
        axs[2].set_xlabel("mice normalized FCT")
        axs[2].set_xscale("log")
        for ax, t in zip(axs, ["Fig. 9", "Fig. 10", "Fig. 12"]):
            ax.set_ylabel("CDF")
            ax.set_title(t)
            ax.grid(alpha=0.3)
            ax.legend()
        save(fig, "fig9_10_12_compare")
        fig, ax = plt.subplots(figsize=(6.5, 4))
        for i, p in enumerate(SCHEMES):
            d = r[f"compare/{p}"]
            if isinstance(d.get("cwnd"), pd.DataFrame):
                f = fold_cwnd(d["cwnd"], sc["compare_racks"], d.get("warmup_us", 0.0))
                ax.plot(f.offset_us, f.cwnd, label=LABEL[p], color=f"C{i}")
        ax.axvspan(0, DAY_US, color="tab:blue", alpha=0.1)
        ax.set_xlabel("time since the pair's day began (us)")
        ax.set_ylabel("aggregated cwnd of the pair's elephants (MSS)")
        ax.set_title("Fig. 11: aggregated cwnd within a day")
        if ax.get_legend_handles_labels()[0]:  # paper scale samples no cwnd (see `plan`)
            ax.legend()
        ax.grid(alpha=0.3)
        save(fig, "fig11_cwnd")

    xs = [x for x in sc["bigbuf"] if f"bigbuf/{x}" in r]
    if xs and "compare/acceltor" in r and "compare/blocking" in r:
        fig, axs = plt.subplots(1, 2, figsize=(10, 3.6))
        keys = ["compare/blocking"] + [f"bigbuf/{x}" for x in xs]
        labels = ["1x"] + [f"{x}x" for x in xs]
        for j, field in enumerate(["daily_mbps", "weekly_mbps"]):
            med = [_pct(r, k, field, 50) for k in keys]
            axs[j].errorbar(range(len(keys)), med, yerr=[[m - _pct(r, k, field, 10) for k, m in zip(keys, med)],
                                                          [_pct(r, k, field, 90) - m for k, m in zip(keys, med)]],
                            fmt="o", capsize=3, label="Blocking")
            axs[j].axhline(_pct(r, "compare/acceltor", field, 50), color="C0", ls="--", label="AccelToR (1.8 MB)")
            axs[j].set_xticks(range(len(keys)), labels)
            axs[j].set_xlabel("Blocking's packet buffer")
            axs[j].set_ylabel(field.replace("_mbps", " throughput (Mb/s)"))
            axs[j].legend()
        fig.suptitle("Fig. 13: Blocking with larger buffers")
        save(fig, "fig13_bigbuf")

    loads = [ld for ld in LOADS if any(f"load/{ld}/{p}" in r for p in SCHEMES)]
    if loads:
        sweep(loads, lambda ld, p: f"load/{ld}/{p}", ["weekly_mbps"], "load on the packet network (%)", "Fig. 14: load sweep",
              "fig14_load")

    if "margin/on" in r or "margin/off" in r:
        fig, ax = plt.subplots(figsize=(6.5, 3.8))
        for tag, lab in (("on", "with safe margin (K = 3)"), ("off", "without (K = 2)")):
            if f"margin/{tag}" in r:
                per = weekly_occupancy(r[f"margin/{tag}"])
                ax.plot(per["week"], 100 * per["occupancy"], label=lab)
        ax.set_xlabel("week")
        ax.set_ylabel("optical occupancy (%)")
        ax.set_ylim(0, 105)
        ax.legend()
        ax.grid(alpha=0.3)
        ax.set_title("Fig. 15: 1 % loss inside the racks")
        save(fig, "fig15_safe_margin")

    if "queue/300" in r or "queue/500" in r:
        fig, ax = plt.subplots(figsize=(6.5, 3.8))
        for q in (300, 500):
            if f"queue/{q}" in r:
                w = np.sort(r[f"queue/{q}"]["weekly_mbps"])
                ax.plot(w, np.arange(1, len(w) + 1) / len(w), label=f"B = {q} KB")
        ax.set_xlabel("weekly throughput (Mb/s)")
        ax.set_ylabel("CDF")
        ax.legend()
        ax.grid(alpha=0.3)
        ax.set_title("Fig. 16: calendar queue size")
        save(fig, "fig16_queue")

    ccas = [cc for cc in CCAS if any(f"cca/{cc}/{p}" in r for p in SCHEMES)]
    if ccas:
        fig, axs = plt.subplots(2, 1, figsize=(12, 6.5))
        x = np.arange(len(ccas))
        for i, p in enumerate(SCHEMES):
            med = [_pct(r, f"cca/{cc}/{p}", "weekly_mbps", 50) for cc in ccas]
            lo = [m - _pct(r, f"cca/{cc}/{p}", "weekly_mbps", 10) for cc, m in zip(ccas, med)]
            hi = [_pct(r, f"cca/{cc}/{p}", "weekly_mbps", 90) - m for cc, m in zip(ccas, med)]
            axs[0].bar(x + (i - 1) * 0.27, med, 0.27, yerr=[lo, hi], capsize=2, label=LABEL[p], color=f"C{i}")
        axs[0].set_xticks(x, ccas, rotation=30)
        axs[0].set_ylabel("weekly throughput (Mb/s)")
        axs[0].legend()
        axs[1].bar(x, [100 * value(r, f"cca/{cc}/acceltor", "occupancy") for cc in ccas], color="C0")
        axs[1].axhline(90, color="k", ls=":")
        axs[1].set_xticks(x, ccas, rotation=30)
        axs[1].set_ylabel("AccelToR optical occupancy (%)")
        fig.suptitle("Fig. 17: TCP congestion controls")
        save(fig, "fig17_cca")
    return save.written


def reproduce(scale: str = "reduced", output: str | Path = "reproduce-acceltor", jobs: Optional[int] = None,
              progress: bool = True, only: Optional[list[str]] = None, model: str = "both", one_change: bool = False,
              dask: Optional[str] = None, finished: bool = False,
              changes: Optional[str | Sequence[str]] = None) -> dict:
    """Run the experiments in the text and/or artifact model, write runs.csv, headlines.csv (and
    one_change.csv), the Parquet tables and the figures (the artifact model's in artifact/); print
    the paper-vs-ours table."""
    chosen = select_changes("acceltor", ARTIFACT, changes, model, READINGS)
    out, sets = run_models("acceltor", scale, SCALES, lambda s: points(s, only), output, jobs, progress, None, model, chosen,
                           CENTRAL_POINTS if one_change else (), dask=dask, run=not finished)
    results = primary(sets)
    runs = write_runs(out, sets, runs_frame)
    written = tables(results, out)
    figs = model_figures(out, sets, lambda r, o: figures(r, o, scale))
    n = SCALES[scale]["compare_racks"]
    hl, models = finish_models(out, sets, lambda r: headlines(r, scale),
                          f"AccelToR (Chen et al.), scale = {scale} (comparison network: {n} racks): paper vs ours", chosen, central(scale), len(ARTIFACT))
    write_report(out, "acceltor", models, central(scale), figs, STATED, SETUP, chosen)
    print(f"\nwrote {out}/runs.csv, headlines.csv, {len(written)} Parquet tables and {len(figs)} figures; every run is kept in "
          f"{out}/store", file=sys.stderr)
    return {"runs": runs, "headlines": hl}


__all__ = ["scenario", "plan", "points", "headlines", "reproduce", "mice_workload_load", "week_us", "weeks_in", "capacity_mbps",
           "SCALES", "CCAS", "LOADS"]
