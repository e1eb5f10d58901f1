"""Reproduction of Mukerjee et al., "Adapting TCP for Reconfigurable Datacenter Networks"
(NSDI 2020): static VOQ sizes (Fig. 8), dynamic VOQ resizing (Fig. 9), reTCP with resizing
(Fig. 11), reTCP alone per VOQ size (§6.3), the TCP variants with static and resized VOQs
(Figs. 4a/4b, 10), the day-length sweep (Fig. 3), the motivation's old and modern schedules on 8
racks (Figs. 2a/2b, §3.1), the 3-rack schedule of §7 and the emulator validation of Table 1 (§4:
8 racks, every pair of racks loaded, ACKs bypassing the ToRs and switches). Setup: the paper's
§4.4-4.5.

Modelling choices the paper leaves open (also in docs/reproductions/retcp.md):
- Hosts: Ubuntu 18.04's Linux 4.15 (`[host] stack = "linux-4.15"`: IW10, RACK, TLP, quick-ACK,
  delayed ACK) under Etalon's 20x time dilation (`[host] time_dilation = 20`): LibVT dilates the
  applications' clocks, not the kernel's, so kernel timers shrink 20x in emulated time (the 200 ms
  minimum RTO becomes 10 ms, the 40 ms delayed-ACK timer 2 ms, the 10 ms TLP floor 0.5 ms) and
  the congestion controls run on the kernel's clock.
- Host links. §4.1: "tc [49] controls link bandwidths between the containers and the virtual
  switch, emulating a host-to-ToR link"; §4.3: "Each per-container link (i.e., each intra-rack link
  between the ToR and a host) is limited to 10 Gb/s (0.5 Gb/s)". Etalon's setup scripts apply
  `tc ... netem rate` to each container's data interface, i.e. to what the container sends: 10/TDF
  Gb/s as the text says until the repository's commit e6e94f9 (2019-07-26), 40/TDF Gb/s since;
  packets then cross a 40 Gb/s NIC that dilation makes 800 Gb/s, and nothing shapes what the
  containers receive. So: 800 Gb/s host links, no propagation, with each host's egress at
  10 Gb/s (`[host] egress_rate`; "etalon", the default). Until 2026-11-25 the reproduction left
  the egress unshaped ("unshaped": the emulator's raw path), chosen after the 10 Gb/s version
  missed; both are run, with a 10 Gb/s, 1 us link each way ("physical"), and printed as a
  sensitivity table. So is "etalon-gso" (added 2026-11-26, after the default was chosen): the
  same 10 Gb/s egress applied the way netem applies it with segmentation offload on (Etalon's
  tune.sh leaves TSO/GSO at the kernel's default, on) - per batch of up to 64 KB, whose packets
  then leave back to back at the link's 800 Gb/s (`[host] egress_burst`); and "etalon-40g",
  "etalon-40g-gso" (added the same day): the 40/TDF Gb/s that Etalon's etc/python_config.py has set
  for the containers' data interfaces since its commit e6e94f9 (2019-07-26), before the paper's
  graphs were made, where the paper's text says 10 Gb/s.
- MSS 8960 B (9000 B MTU minus 40 B of IP/TCP headers); packets are 9012 B with our 52 B headers.
- Fig. 3 is a simulation in the paper with few details: we use 3 racks (the paper's testbed, where
  the circuit can carry most of the traffic), 10 CUBIC flows, nights = day/9 (90 % uptime) and
  14 us packet links so the packet-path RTT is the stated 60 us.

The artifact model (`ARTIFACT`, `--model artifact`; docs/reproductions/retcp.md) applies what
Etalon's scripts did when the paper's graphs were made: 3 racks faking the 25-rack strobe, 40 Gb/s
container egress shaped per GSO batch, and reTCP's ECE 600 us ahead on static VOQs.
"""

from __future__ import annotations

import copy
import statistics
import sys
from functools import partial
from pathlib import Path
from typing import Optional, Sequence

import pandas as pd

from .common import (Change, FigureSaver, Headline, Setup, Stated, duration_us, finish_models, model_figures, primary, run_models,
                     runs_table, select_changes, value, write_runs)
from .page import write_report

VARIANTS = ["bbr", "bic", "cdg", "cubic", "dctcp", "highspeed", "htcp", "hybla", "illinois", "lp", "nv", "reno",
            "scalable", "vegas", "veno", "westwood", "yeah"]
VOQ_SIZES = [4, 8, 16, 32, 64, 128]
TAU_RESIZE = list(range(0, 3001, 300))
TAU_RETCP = list(range(0, 301, 50))
FIG3_DAYS_US = [10, 30, 100, 300, 1000, 3000, 10000]
FIG3_QUEUES = [8, 16, 32, 64, 128]
#: Fig. 2 (§3.1): "an 8-rack schedule with 1 ms nights and 9 ms days" (2a) and "a modern schedule
#: with 20 us nights and 180 us days" (2b), CUBIC, 16 flows rack 1 -> rack 2, 16-packet VOQs.
#: Values: (day us, night us, view_before us: where the one-week window opens ahead of the day).
FIG2 = {"2a": (9000, 1000, 30000), "2b": (180, 20, 700)}
FIG2_RACKS = 8
#: §7: "the time between circuits for a 3-rack cluster with a strobe schedule (week length =
#: 400 us) is 220 us"; resizing windows up to (and short of) those 220 us.
TAU_3RACK = [0, 50, 100, 150, 200]
#: Fig. 4b's reading: BBR and NV "falling behind" CUBIC, the rest "slightly better".
FIG4B_BEHIND = ["bbr", "nv"]

SCALES = {
    # weeks measured after the warm-up; Fig. 3 bytes in total over its 10 flows
    # fig2a_weeks: Fig. 2a's 70 ms weeks (8 racks x 10 ms); rack3_weeks: §7's 400 us weeks
    # table1_s: Table 1's run length in seconds, warm-up included ("for 2 seconds")
    "reduced": {"weeks": 300, "warmup_weeks": 10, "fig3_bytes": 2.5e9, "variant_weeks": 150,
                "fig2a_weeks": 12, "fig2a_warmup": 1, "rack3_weeks": 1000, "table1_s": 0.2},
    "paper": {"weeks": 3000, "warmup_weeks": 20, "fig3_bytes": 25e9, "variant_weeks": 3000,
              "fig2a_weeks": 100, "fig2a_warmup": 2, "rack3_weeks": 3000, "table1_s": 2.0},
}

#: Host links (module docstring): Etalon's host path (800 Gb/s links, each host's egress at 10 Gb/s
#: as tc's netem sets it), the same without the egress limit, or a physical 10 Gb/s link each way;
#: "etalon-gso" shapes the egress per offload batch of up to 64 KB (7 packets of 9012 B, as Linux
#: 4.15's 65 536 B GSO limit less headers holds 7 segments of 8960 B) instead of per packet.
#: Values: (host link, egress rate, egress burst).
HOST_MODELS = {
    "etalon": ({"rate": "800Gbps", "delay": "0us"}, "10Gbps", None),
    "unshaped": ({"rate": "800Gbps", "delay": "0us"}, None, None),
    "physical": ({"rate": "10Gbps", "delay": "1us"}, None, None),
    "etalon-gso": ({"rate": "800Gbps", "delay": "0us"}, "10Gbps", "64KB"),
    "etalon-40g": ({"rate": "800Gbps", "delay": "0us"}, "40Gbps", None),
    "etalon-40g-gso": ({"rate": "800Gbps", "delay": "0us"}, "40Gbps", "64KB"),
}
#: The alternatives run beside the default for the key points.
HOST_ALTERNATIVES = ["unshaped", "physical", "etalon-gso", "etalon-40g", "etalon-40g-gso"]

#: The hosts (§3.2 "17 TCP variants pre-installed on Ubuntu 18.04"; §4.3 "We use a TDF of 20x").
HOST_STACK, TIME_DILATION = "linux-4.15", 20

#: The paper's parameters (§4.4-4.5, §5.2, §6).
RACKS, HOSTS, FLOWS = 25, 16, 16
DAY_US, NIGHT_US = 180, 20
SMALL, LARGE = 16, 50

#: Table 1 (§4, the paragraph presenting it): "We validate Etalon on the 8-rack CloudLab cluster using a strobe schedule while
#: sending TCP traffic between pairs of racks for 2 seconds. ACKs are diverted around the switch
#: for this one experiment to avoid ACK loss." Read as every ordered pair of the 8 racks with §4.5's
#: workload per pair (16 flows, host i to host i) on §4.5's schedule (180 us days, 20 us nights);
#: everything else as the other points (docs/reproductions/retcp.md). The table's numbers are not in the
#: text: each row is scored against the configured value.
TABLE1_RACKS = 8
TABLE1_PAIRS = [(s, d) for s in range(TABLE1_RACKS) for d in range(TABLE1_RACKS) if s != d]
PACKET_GBPS, CIRCUIT_GBPS = 10.0, 80.0
#: Bands, fixed before the first run: timing +-5 % (a lane starts only a packet that ends before the
#: day does, so a backlogged day ends up to one 9012 B packet at 80 Gb/s, 0.90 us, early: 4.5 % of a
#: night, 0.5 % of a day); bandwidths +-10 % (the project's reading of "saturating the link" as
#: >= 90 %, Fig. 2a, made two-sided: more than the line rate can only be a measuring error).
TABLE1_TIME_BAND, TABLE1_RATE_BAND = 0.05, 0.10
#: Printed beside Table 1, unscored: the text's setup without the bypass, and with the VOQ size of
#: the authors' validation script (mukerjee/etalon, experiments/buffers/validation.py:
#: BUFFER_SIZE = 128), which the text does not state.
TABLE1_SENSITIVITY = {"no-bypass": "ACKs through the ToRs and switches (no bypass)",
                      "voq128": "128-packet VOQs (the authors' validation script), bypass on"}


def host_egress(model: str) -> dict:
    """The `[host]` keys of a host model's egress: none, a rate, or a rate with offload bursts."""
    _, rate, burst = HOST_MODELS[model]
    return {**({"egress_rate": rate} if rate else {}), **({"egress_burst": burst} if burst else {})}


def scenario(*, cc: str = "cubic", racks: int = RACKS, hosts: int = HOSTS, flows: int = FLOWS,
             day_us: float = DAY_US, night_us: float = NIGHT_US, voq: int = SMALL,
             resize: Optional[tuple[int, int, float]] = None, feedback: str = "off",
             weeks: int = 300, warmup_weeks: int = 10, packet_delay_us: float = 5.0,
             flow_bytes: Optional[int] = None, view_before_us: float = 3300, hosts_model: str = "etalon",
             pairs: Optional[list[tuple[int, int]]] = None, ack_bypass: bool = False, end_us: Optional[float] = None) -> dict:
    """The Etalon setup as a scenario dict: `flows` long flows from rack 0 to rack 1, host i of
    rack 0 to host i of rack 1; the other racks idle. `pairs` lists other (source, destination)
    racks to carry such flows instead; `ack_bypass` diverts ACKs around the ToRs and switches
    (Table 1's validation); `end_us` sets the run's length instead of the weeks."""
    week_us = (racks - 1) * (day_us + night_us)
    tor: dict = {"policy": "etalon", "feedback": feedback}
    if ack_bypass:
        tor["ack_bypass"] = True
    if resize:
        s, b, tau = resize
        tor["resize"] = {"small": f"{s}pkt", "large": f"{b}pkt", "tau": f"{tau}us"}
    else:
        tor["voq"] = f"{voq}pkt"
    if cc == "dctcp":  # Etalon's DCTCP marking (§6.2): 10 packets with 16-packet VOQs, 31 with 50
        tor["ecn_threshold"] = {"small": "10pkt", "large": "31pkt"} if resize else f"{max(1, round(voq * 10 / 16))}pkt"
    if end_us is None:
        end_us = (warmup_weeks + weeks) * week_us
    tcp = {"cc": cc, "mss": "8960B"}
    doc = {
        "name": f"retcp-{cc}",
        "simulation": {"end": f"{end_us}us" if flow_bytes is None else "120s", "stop_when_done": flow_bytes is not None},
        "topology": {
            "kind": "rdcn", "racks": racks, "hosts_per_rack": hosts,
            "host_link": HOST_MODELS[hosts_model][0],
            "packet_link": {"rate": "10Gbps", "delay": f"{packet_delay_us}us"},
            "circuit_link": {"rate": "80Gbps", "delay": "30us"},
        },
        "circuit": {"schedule": "strobe", "day": f"{day_us}us", "night": f"{night_us}us",
                    "view_before": f"{min(view_before_us, week_us)}us"},
        "tor": tor,
        "host": {"stack": HOST_STACK, "time_dilation": TIME_DILATION, **host_egress(hosts_model)},
        "output": {"warmup": f"{warmup_weeks * week_us}us"},
        "transports": {"tcp": tcp},
        "flows": [{"src": f"h{s * hosts + i}", "dst": f"h{d * hosts + i}", "transport": "tcp", **({"size": flow_bytes} if flow_bytes else {})}
                  for s, d in (pairs or [(0, 1)]) for i in range(flows)],
    }
    return doc


def extract_circuit(res) -> dict:
    """Utilization of pair (0, 1), latency percentiles, the week-folded view, TCP counters."""
    s = res.summary
    days = res.circuit["days"]
    days = days[(days.src == 0) & (days.dst == 1)]
    seq = res.circuit["seq_view"]
    seq = seq[(seq.src == 0) & (seq.dst == 1)]
    return {
        "utilization": s.get("circuit_utilization"),
        "days": int(len(days)),
        "p50_us": s.get("latency_p50_us"),
        "p99_us": s.get("latency_p99_us"),
        "p999_us": s.get("latency_p999_us"),
        "timeouts": int(res.flows["timeouts"].sum()),
        "retransmits": int(res.flows["retransmits"].sum()),
        "goodput_gbps": res.summary["goodput_bytes"] * 8 / res.summary["sim_time_s"] / 1e9,
        "seq": seq[["offset_us", "expected_bytes", "voq_packets", "optimal_bytes", "packet_only_bytes"]].to_dict("list"),
    }


def extract_table1(res, warmup_ps: int, slot_ps: int) -> dict:
    """Table 1's rows as seen on the wire, over the days and nights that begin after the warm-up:
    - day length: per circuit day of a pair, from the start of the lane's first transmission to
      the end of its last;
    - night length: per source rack, from the end of its circuit's last transmission in one day
      to the start of its first in the next day (consecutive slots);
    - circuit bandwidth: bytes a pair's lane serialized in its day over the day's length;
    - packet bandwidth: bytes each ToR's packet uplink serialized during the nights (pro rata
      across the boundaries) over the nights' length.
    Means over all, and the range of the per-pair (per-rack for nights and the packet network)
    means."""
    days = res.circuit["days"]
    days = days[days.start_ps >= warmup_ps].copy()
    days["gbps"] = days["bytes"] * 8 / (days["length_ps"] / 1e12) / 1e9
    sent = days[days.wire_start_ps.notna()].copy()
    sent["wire_us"] = (sent.wire_end_ps - sent.wire_start_ps).astype(float) / 1e6
    nights = []
    for src, d in sent.sort_values("start_ps").groupby("src"):
        start, first, last = d.start_ps.to_numpy(), d.wire_start_ps.to_numpy(dtype=float), d.wire_end_ps.to_numpy(dtype=float)
        for k in range(len(d) - 1):
            if start[k + 1] - start[k] == slot_ps:
                nights.append((int(src), (first[k + 1] - last[k]) / 1e6))
    nights = pd.DataFrame(nights, columns=["src", "night_us"])
    up = res.circuit["uplinks"]
    up = up[up.night_ps > 0]

    def stats(col, by):
        m = col.groupby(by).mean()
        return float(col.mean()), float(m.min()), float(m.max())

    out = {"timeouts": int(res.flows["timeouts"].sum()), "retransmits": int(res.flows["retransmits"].sum()),
           "goodput_gbps": res.summary["goodput_bytes"] * 8 / res.summary["sim_time_s"] / 1e9,
           "days": int(len(days)), "idle_days": int(len(days) - len(sent)), "nights": int(len(nights))}
    for name, col, by in (("day_us", sent.wire_us, sent[["src", "dst"]].apply(tuple, axis=1)),
                          ("night_us", nights.night_us, nights.src),
                          ("circuit_gbps", days.gbps, days[["src", "dst"]].apply(tuple, axis=1)),
                          ("packet_gbps", up.night_gbps, up.rack),
                          ("packet_day_gbps", up.day_gbps, up.rack)):
        if len(col):
            out[name], out[f"{name}_min"], out[f"{name}_max"] = stats(col, by)
    if len(sent):
        out["day_us_lowest"] = float(sent.wire_us.min())
    if len(nights):
        out["night_us_highest"] = float(nights.night_us.max())
    return out


def extract_fct(res) -> dict:
    f = res.flows
    done = f["fct_s"].notna().all()
    return {"transfer_s": float(f["end_s"].max()) if done else float("nan"), "finished": bool(done),
            "timeouts": int(f["timeouts"].sum())}


# ---- the artifact model: Etalon as its scripts ran the paper's experiments ----------------------
#
# Read from mukerjee/etalon at 3063d45 ("Update NSDI graphs", 2020-02-13; the graphs of
# experiments/buffers/graphs/nsdi2020 were committed on 2019-09-10 and 2020-02-13) and the Click
# elements of its submodule ccanel/click-etalon (RunSchedule, ECEMark). docs/reproductions/retcp.md
# lists every setting checked, adopted or not.

#: Etalon's testbed for the paper's experiments: etc/python_config.py `NUM_RACKS = 3` (the local
#: 3-rack cluster of §4.4), on which experiments/buffers/nsdi2020.py runs every configuration as a
#: "fake_strobe" with `NUM_RACKS_FAKE = 25`.
ETALON_RACKS, ETALON_RACKS_FAKE = 3, 25
#: etc/python_config.py: `DATA_RATE_Gbps_TDF = 40. / TDF`, the netem rate experiments/common.py
#: `launch` puts on each container's data interface (the text says 10 Gb/s).
ETALON_EGRESS = "40Gbps"
#: Linux 4.15's GSO limit as a netem batch (HOST_MODELS "etalon-gso"): bin/tune.sh never runs
#: `ethtool -K`, so segmentation offload stays at the kernel default, on.
ETALON_GSO_BURST = "64KB"
#: experiments/click_common.py `setConfig`: `'in_advance': 12000` (µs under TDF = 600 µs) unless a
#: configuration sets it; nsdi2020.py sets it only for resizing, and RunSchedule marks ECE from
#: `in_advance` before a pair's day whether or not it resizes.
ETALON_IN_ADVANCE_US = 12000 / TIME_DILATION


def fake_strobe(doc: dict, racks_fake: int = ETALON_RACKS_FAKE) -> dict:
    """`doc` (a strobe between racks 0 and 1) as Etalon runs it: 3 racks whose schedule looks, from
    pair (0, 1), like a `racks_fake`-rack strobe (experiments/click_common.py
    `setFakeStrobeSchedule`): racks_fake − 2 slots with matching "1/2/0" and one with "2/0/1",
    each a day then a night. Etalon's strings list, per destination, its source; with its racks 2
    and 3 (the flow's, nsdi2020.py `{"src": "r2", "dst": "r3"}`) as our 0 and 1 and its rack 1 as
    our 2, "1/2/0" is rack 0 → 2, 1 → 0, 2 → 1 and "2/0/1" rack 0 → 1, 1 → 2, 2 → 0. So in every
    slot but the pair's own, the reverse pair (1 → 0, the ACKs) has the circuit, where on a real
    strobe it has one day a week. The run keeps its weeks (end and warm-up scale with the week)."""
    d = copy.deepcopy(doc)
    c, topo = d["circuit"], d["topology"]
    day, night = c.pop("day"), c.pop("night")
    old_week = (topo["racks"] - 1) * (duration_us(day) + duration_us(night))
    new_week = (racks_fake - 1) * (duration_us(day) + duration_us(night))
    slot = lambda m: {"night": night, "day": day, "matching": m}  # noqa: E731
    c["schedule"] = "list"
    c["slots"] = [slot([2, 0, 1]) for _ in range(racks_fake - 2)] + [slot([1, 2, 0])]
    topo["racks"] = ETALON_RACKS
    k = new_week / old_week
    for table, key in (("simulation", "end"), ("output", "warmup")):
        d[table][key] = f"{duration_us(d[table][key]) * k:.6f}us"
    if "view_before" in c:
        c["view_before"] = f"{min(duration_us(c['view_before']), new_week):g}us"
    return d


def _etalon_host(point: str) -> bool:
    """Points that run on Etalon's default host path (not a host-model sensitivity, not Fig. 3's
    simulation)."""
    return not point.startswith(tuple(f"{m}/" for m in HOST_ALTERNATIVES)) and not point.startswith("days/")


#: The points of experiments/buffers/nsdi2020.py's configurations (Figs. 2, 4, 8-11, and the
#: host-model copies of four of them); not §7's 3-rack strobe, Table 1 (validation.py: a real
#: strobe on CloudLab's 8 racks) or Fig. 3 (a simulation).
NSDI2020_POINTS = ("static/", "retcp-static/", "resize/", "retcp-resize/", "variant-static/", "variant-resize/", "fig2/",
                   *(f"{m}/" for m in HOST_ALTERNATIVES))


def _change_fake_strobe(point: str, doc: dict) -> dict:
    # Fig. 2 included: nsdi2020.py runs its 1 ms / 9 ms schedule as the same 25-rack fake (the
    # text: 8 racks), and nsdi2020_graphs.py draws Fig. 2b from the static 16-packet run.
    return fake_strobe(doc) if point.startswith(NSDI2020_POINTS) else doc


def _host_key(key: str, value: str):
    """A change setting `[host] key = value` on the points whose hosts are Etalon's shaped path."""
    def apply(point: str, doc: dict) -> dict:
        if not _etalon_host(point) or doc["host"].get("egress_rate") is None:
            return doc
        d = copy.deepcopy(doc)
        d["host"][key] = value
        return d
    return apply


def _change_ece_advance(point: str, doc: dict) -> dict:
    # reTCP on static VOQs: RunSchedule's ECE map looks `in_advance` ahead with or without
    # resizing, so ACKs carry ECE from 600 µs before the day; the same VOQ size inside and
    # outside that window is Etalon's own way of running static VOQs (nsdi2020.py sets
    # small_queue_cap = big_queue_cap).
    if doc["tor"].get("feedback") != "circuit":
        return doc
    d = copy.deepcopy(doc)
    q = d["tor"].pop("voq")
    d["tor"]["resize"] = {"small": q, "large": q, "tau": f"{ETALON_IN_ADVANCE_US:g}us"}
    d["tor"]["feedback"] = "resize"
    return d


#: The artifact model ("as the authors ran it", docs/reproductions/retcp.md): behaviours of the
#: authors' code that the text does not state, each applied to the text model's scenarios.
ARTIFACT: list[Change] = [
    Change("fake-strobe", "3 racks faking the 25-rack strobe: the ACKs' reverse pair holds the circuit in the other 23 slots",
           "mukerjee/etalon@3063d45 experiments/buffers/nsdi2020.py main (type fake_strobe, NUM_RACKS_FAKE = 25), "
           "experiments/click_common.py setFakeStrobeSchedule, etc/python_config.py NUM_RACKS = 3", _change_fake_strobe),
    Change("egress-40g", "each container's egress at 40 Gb/s (the text: 10 Gb/s)",
           "mukerjee/etalon@3063d45 etc/python_config.py DATA_RATE_Gbps_TDF = 40. / TDF, applied by experiments/common.py launch (TC netem rate)",
           _host_key("egress_rate", ETALON_EGRESS)),
    Change("netem-gso", "netem shapes 64 KB offload batches (TSO/GSO left on), not packets",
           "mukerjee/etalon@3063d45 bin/tune.sh (no ethtool -K: offloads at the kernel default, on); Linux 4.15 sch_netem.c netem_enqueue",
           _host_key("egress_burst", ETALON_GSO_BURST)),
    Change("ece-advance", "reTCP on static VOQs: ECE from 600 us before the day (the text: while the circuit is up)",
           "mukerjee/etalon@3063d45 experiments/click_common.py setConfig (in_advance 12000 under TDF); "
           "ccanel/click-etalon elements/standard/run_schedule.cc RunSchedule::execute_schedule (ECE map looks in_advance ahead)",
           _change_ece_advance),
]
#: The nine key headlines (§6.1-6.3: static 16 and 32, resizing at 1800 us, reTCP + resizing at
#: 150 us) and the points they read.
CENTRAL: list[str] = [
    "static 16-pkt VOQs: circuit utilization", "static 32-pkt VOQs: circuit utilization", "static 16-pkt VOQs: p99 latency",
    "resize(16, 50, 1800 us): utilization", "resize 1800 us: gain over static 16", "resize 1800 us: p99 latency vs static 16",
    "reTCP + resize 150 us: utilization", "reTCP + resize 150 us: gain over static 16", "reTCP + resize 150 us: p99 vs static 16",
]
CENTRAL_POINTS: list[str] = ["static/16", "static/32", "resize/1800", "retcp-resize/150"]


def points(scale: str) -> list[tuple[str, dict, object]]:
    sc = SCALES[scale]
    w, ww = sc["weeks"], sc["warmup_weeks"]
    pts = []
    for q in VOQ_SIZES:
        pts.append((f"static/{q}", scenario(voq=q, weeks=w, warmup_weeks=ww), extract_circuit))
        pts.append((f"retcp-static/{q}", scenario(cc="retcp", voq=q, feedback="circuit", weeks=w, warmup_weeks=ww), extract_circuit))
    for tau in TAU_RESIZE:
        pts.append((f"resize/{tau}", scenario(resize=(SMALL, LARGE, tau), weeks=w, warmup_weeks=ww), extract_circuit))
    for tau in TAU_RETCP:
        pts.append((f"retcp-resize/{tau}", scenario(cc="retcp", resize=(SMALL, LARGE, tau), feedback="resize", weeks=w, warmup_weeks=ww),
                    extract_circuit))
    for key, kw in (("static/16", dict(voq=SMALL)), ("static/32", dict(voq=32)), ("resize/1800", dict(resize=(SMALL, LARGE, 1800))),
                    ("retcp-resize/150", dict(cc="retcp", resize=(SMALL, LARGE, 150), feedback="resize"))):
        for m in HOST_ALTERNATIVES:
            pts.append((f"{m}/{key}", scenario(weeks=w, warmup_weeks=ww, hosts_model=m, **kw), extract_circuit))
    vw = sc["variant_weeks"]
    for cc in VARIANTS:
        pts.append((f"variant-static/{cc}", scenario(cc=cc, voq=SMALL, weeks=vw, warmup_weeks=ww), extract_circuit))
        pts.append((f"variant-resize/{cc}", scenario(cc=cc, resize=(SMALL, LARGE, 1200), weeks=vw, warmup_weeks=ww), extract_circuit))
    for fig, (day, night, before) in FIG2.items():
        fw, fww = (sc["fig2a_weeks"], sc["fig2a_warmup"]) if fig == "2a" else (w, ww)
        pts.append((f"fig2/{fig}", scenario(racks=FIG2_RACKS, day_us=day, night_us=night, voq=SMALL, weeks=fw, warmup_weeks=fww,
                                            view_before_us=before), extract_circuit))
    w3 = sc["rack3_weeks"]
    for q in (SMALL, LARGE):
        pts.append((f"3rack/static/{q}", scenario(racks=3, voq=q, weeks=w3, warmup_weeks=ww, view_before_us=220), extract_circuit))
    for tau in TAU_3RACK:
        pts.append((f"3rack/resize/{tau}", scenario(racks=3, resize=(SMALL, LARGE, tau), weeks=w3, warmup_weeks=ww, view_before_us=220),
                    extract_circuit))
        pts.append((f"3rack/retcp-resize/{tau}", scenario(racks=3, cc="retcp", resize=(SMALL, LARGE, tau), feedback="resize", weeks=w3,
                                                          warmup_weeks=ww, view_before_us=220), extract_circuit))
    # Table 1: the validation run; unscored beside it, the same without the ACK bypass and with
    # the 128-packet VOQs of the authors' validation script (TABLE1_SENSITIVITY).
    t1_week_us = (TABLE1_RACKS - 1) * (DAY_US + NIGHT_US)
    t1_warm = ww * t1_week_us
    for key, bypass, voq in (("table1/bypass", True, SMALL), ("table1/no-bypass", False, SMALL), ("table1/voq128", True, 128)):
        pts.append((key, scenario(racks=TABLE1_RACKS, pairs=TABLE1_PAIRS, ack_bypass=bypass, voq=voq, warmup_weeks=ww, end_us=sc["table1_s"] * 1e6,
                                  view_before_us=700),
                    partial(extract_table1, warmup_ps=int(t1_warm * 1e6), slot_ps=int((DAY_US + NIGHT_US) * 1e6))))
    per_flow = int(sc["fig3_bytes"] / 10)
    for day in FIG3_DAYS_US:
        for q in FIG3_QUEUES:
            pts.append((f"days/{day}/{q}", scenario(racks=3, flows=10, day_us=day, night_us=day / 9, voq=q, packet_delay_us=14,
                                                    flow_bytes=per_flow), extract_fct))
    return pts


def plateau_tau(r: dict, prefix: str, taus: list[int], within: float = 2.0) -> Optional[float]:
    """The smallest tau whose utilization is within `within` points of the sweep's maximum (None
    when the sweep was not run)."""
    pts = [(t, 100 * value(r, f"{prefix}/{t}", "utilization")) for t in taus if f"{prefix}/{t}" in r]
    pts = [(t, u) for t, u in pts if u == u]
    if len(pts) < 3:
        return None
    top = max(u for _, u in pts)
    return float(next(t for t, u in pts if u >= top - within))


def seq_frame(r: dict, key: str) -> Optional[pd.DataFrame]:
    """The week-folded view of a point (one week of bins, offsets relative to the pair's day),
    or None when the point was not run."""
    s = r.get(key, {}).get("seq")
    if not s or not s.get("offset_us"):
        return None
    return pd.DataFrame(s)


def week_vs_optimal(r: dict, key: str) -> float:
    """Bytes delivered over the one-week window / what the optimal line delivers in it (Fig. 2:
    "TCP roughly keeps up with the optimal throughput")."""
    df = seq_frame(r, key)
    if df is None or not df["optimal_bytes"].iloc[-1] > 0:
        return float("nan")
    return float(df["expected_bytes"].iloc[-1] / df["optimal_bytes"].iloc[-1])


def day_voq(r: dict, key: str, day_us: float, skip_us: float = 0.0) -> tuple[float, float]:
    """(mean VOQ length over the day's bins from `skip_us` on, fraction of those bins whose mean
    VOQ length is below one packet)."""
    df = seq_frame(r, key)
    if df is None:
        return float("nan"), float("nan")
    d = df[(df.offset_us >= skip_us) & (df.offset_us < day_us)]
    if d.empty:
        return float("nan"), float("nan")
    return float(d["voq_packets"].mean()), float((d["voq_packets"] < 1).mean())


def week_bytes(r: dict, key: str) -> float:
    df = seq_frame(r, key)
    return float("nan") if df is None else float(df["expected_bytes"].iloc[-1])


def p50_rise_tau(r: dict, prefix: str, taus: list[int], rise: float = 0.10) -> Optional[float]:
    """The first tau whose median latency exceeds the tau = taus[0] median by more than `rise`
    (relative); inf when none does; None when fewer than 3 points of the sweep were run."""
    pts = [(t, value(r, f"{prefix}/{t}", "p50_us")) for t in taus if f"{prefix}/{t}" in r]
    pts = [(t, v) for t, v in pts if v == v]
    if len(pts) < 3 or pts[0][0] != taus[0]:
        return None
    base = pts[0][1]
    return float(next((t for t, v in pts if v > (1 + rise) * base), float("inf")))


def headlines(r: dict) -> list[Headline]:
    u = lambda k: 100 * value(r, k, "utilization")  # noqa: E731
    p99 = lambda k: value(r, k, "p99_us")  # noqa: E731
    base_u, base_p99 = u("static/16"), p99("static/16")
    rows = [
        Headline("static 16-pkt VOQs: circuit utilization", "48.6 %", 40, 58, u("static/16"), " %"),
        Headline("static 32-pkt VOQs: circuit utilization", "76.7 %", 65, 88, u("static/32"), " %",
                 "no band given; +-15 % of the paper's value"),
        Headline("static 64-pkt VOQs: circuit utilization", "~ full", 90, None, u("static/64"), " %", "'full' read as >= 90 %"),
        Headline("static 64-pkt VOQs: p99 latency", "484 us", 411, 557, p99("static/64"), " us", "+-15 %"),
        Headline("static 16-pkt VOQs: p99 latency", "123 us", 105, 141, base_p99, " us", "+-15 %"),
        Headline("resize(16, 50, 1800 us): utilization", "91.1 %", 85, 97, u("resize/1800"), " %",
                 "+-6 points (a reading of 99 % is as wrong as 85 %)"),
        Headline("resize 1800 us: gain over static 16", "1.87x", 1.6, 2.15, u("resize/1800") / base_u, "x", "+-15 %"),
        Headline("resize 1800 us: p99 latency vs static 16", "2.33x", 1.98, 2.68, p99("resize/1800") / base_p99, "x", "+-15 %"),
        Headline("reTCP + resize 150 us: utilization", "92.7 %", 86, 99, u("retcp-resize/150"), " %", "+-6.5 points"),
        Headline("reTCP + resize 150 us: gain over static 16", "1.91x", 1.62, 2.2, u("retcp-resize/150") / base_u, "x", "+-15 %"),
        Headline("reTCP + resize 150 us: p99 vs static 16", "1.20x", 1.02, 1.38, p99("retcp-resize/150") / base_p99, "x", "+-15 %"),
    ]
    plateau = plateau_tau(r, "resize", TAU_RESIZE)
    if plateau is not None:
        # Shape, not a point: §6.1 "for TCP CUBIC, [high utilization] is effectively achieved at
        # tau = 1800 us" and §6.2 "Resizing earlier (e.g., tau = 1800 us) yields still-higher
        # utilization" than 1200 us. A curve that flattens at 900 us passes every point band.
        rows.append(Headline("Fig. 9: tau where resizing reaches its plateau", "1800 us", 1500, 2100, plateau, " us",
                             "first tau within 2 points of the curve's maximum; one sweep step (300 us) either side"))
    static_sizes = [q for q in VOQ_SIZES if f"retcp-static/{q}" in r and f"static/{q}" in r]
    gains = {q: u(f"retcp-static/{q}") - u(f"static/{q}") for q in static_sizes}
    if gains:
        gain = sum(gains.values()) / len(gains)
        rows.append(Headline("reTCP alone, static VOQs: mean gain", "+2.65 pts", 0, 6, gain, " pts",
                             "sign and size; band ours: 0 to +6 points"))
    # reTCP alone per VOQ size (§6.3): "an average improvement of 2.65% across the static buffer
    # capacities in Figure 8a. An improvement of 6% with 32-packet buffers is the most significant.
    # For 64 and 128-packet queues, both static buffers and reTCP achieve full utilization."
    # "%" read as points (the mean of six gains that are 0 at 64 and 128 packets).
    if 32 in gains:
        rows.append(Headline("reTCP alone, 32-pkt VOQs: gain", "+6 pts", 3, 9, gains[32], " pts",
                             "'%' read as points; +-3 points (ours)"))
    for q in (4, 8, 16):
        if q in gains:
            rows.append(Headline(f"reTCP alone, {q}-pkt VOQs: gain", "< +6 pts", 0, 6, gains[q], " pts",
                                 "below 32 packets' gain, 'the most significant'; not a loss"))
    for q in (64, 128):
        if f"retcp-static/{q}" in r:
            rows.append(Headline(f"reTCP alone, {q}-pkt VOQs: utilization", "~ full", 90, None, u(f"retcp-static/{q}"), " %",
                                 "'full' read as >= 90 %"))
    if len(gains) == len(VOQ_SIZES):
        best = max(gains, key=lambda q: gains[q])
        rows.append(Headline("reTCP alone: VOQ size with the largest gain", "32 pkts", 32, 32, float(best), " pkts",
                             "shape: the gain peaks at 32 packets"))
    rise = p50_rise_tau(r, "resize", TAU_RESIZE)
    if rise is not None:
        # §6.1: "Median latency does not increase until tau = 2700 us; we omit the results".
        rows.append(Headline("Fig. 9: first tau where median latency rises", "2700 us", 2400, 3000, rise, " us",
                             "first tau whose p50 exceeds tau = 0's by > 10 %; one sweep step either side"))
    # Figs. 2a/2b (§3.1), 8 racks, CUBIC, 16-packet VOQs.
    if "fig2/2a" in r:
        mean_voq, empty = day_voq(r, "fig2/2a", FIG2["2a"][0])
        rows += [
            Headline("Fig. 2a (9 ms days): circuit utilization", "~ full", 90, None, u("fig2/2a"), " %",
                     "'roughly keeps up with the optimal ... saturating the link' read as >= 90 %"),
            Headline("Fig. 2a: week delivered / optimal", "~ 1", 0.9, 1.0, week_vs_optimal(r, "fig2/2a"), "",
                     "the curve against the optimal line over one week; >= 0.9 (ours)"),
            Headline("Fig. 2a: mean VOQ during the day", "~ 8 pkts", 6, 10, mean_voq, " pkts", "'approximately 8'; +-25 % (ours)"),
            Headline("Fig. 2a: day bins with an empty VOQ", "brief", None, 5, 100 * empty, " %",
                     "'never empty except for a brief moment when the days begin': <= 5 % of the day (ours)"),
        ]
    if "fig2/2b" in r:
        mean_voq, _ = day_voq(r, "fig2/2b", FIG2["2b"][0], skip_us=20)
        rows += [
            Headline("Fig. 2b (180 us days): circuit utilization", "<= 55 %", None, 55, u("fig2/2b"), " %",
                     "§3.2.4: the same experiment with 17 variants 'does not exceed 55%'"),
            Headline("Fig. 2b: mean VOQ during the day after 20 us", "empty", None, 1, mean_voq, " pkts",
                     "'the VOQs drain immediately ... stay empty throughout the day': <= 1 packet after the drain"),
        ]
    # Fig. 4b (§3.2.4): "Most perform slightly better than CUBIC, with BBR and NV falling behind".
    wb = {cc: week_bytes(r, f"variant-static/{cc}") for cc in VARIANTS if f"variant-static/{cc}" in r}
    if "cubic" in wb and wb["cubic"] > 0:
        for cc in FIG4B_BEHIND:
            if cc in wb:
                rows.append(Headline(f"Fig. 4b: {cc.upper()} week bytes vs CUBIC", "behind", None, 0.95, wb[cc] / wb["cubic"], "x",
                                     "'falling behind' read as >= 5 % fewer bytes (ours)"))
        others = sorted(wb[cc] / wb["cubic"] for cc in wb if cc not in FIG4B_BEHIND + ["cubic"])
        if others:
            med = statistics.median(others)
            rows.append(Headline("Fig. 4b: other variants, median vs CUBIC", "slightly >", 1.0, 1.15, med, "x",
                                 "'most perform slightly better': median of the other 14 in 1.00-1.15 (ours)"))
    # §7: "the time between circuits for a 3-rack cluster with a strobe schedule (week length = 400
    # us) is 220 us ... as the prebuffer start time approaches the end of the previous circuit, the
    # residual high sending rate quickly fills the VOQs, causing the network to enter a mode similar
    # to using large static buffers, with high tail latency. reTCP ameliorates this problem."
    if all(k in r for k in ("3rack/resize/200", f"3rack/static/{LARGE}")):
        rows.append(Headline("§7, 3 racks: resize tau 200 us p99 vs static 50 pkts", "similar", 0.8, 1.25,
                             p99("3rack/resize/200") / p99(f"3rack/static/{LARGE}"), "x", "'similar' read as +-20-25 % (ours)"))
    if all(k in r for k in ("3rack/resize/200", "3rack/retcp-resize/150")):
        rows.append(Headline("§7, 3 racks: reTCP + resize 150 us p99 vs resize 200 us", "lower", None, 0.9,
                             p99("3rack/retcp-resize/150") / p99("3rack/resize/200"), "x",
                             "'reTCP ameliorates this problem' read as >= 10 % lower (ours)"))
        rows.append(Headline("§7, 3 racks: reTCP + resize 150 us utilization vs resize 200 us", "not lower", -5, None,
                             u("3rack/retcp-resize/150") - u("3rack/resize/200"), " pts", "at most 5 points below (ours)"))
    rows += table1_headlines(r)
    vs = [u(f"variant-static/{cc}") for cc in VARIANTS if f"variant-static/{cc}" in r]
    vr = {cc: u(f"variant-resize/{cc}") for cc in VARIANTS if f"variant-resize/{cc}" in r}
    if vs:
        rows.append(Headline("17 variants, static 16: best utilization", "<= ~55 %", None, 58, max(vs), " %"))
    if vs and vr:
        pairs = [(u(f"variant-static/{cc}"), vr[cc]) for cc in VARIANTS if cc in vr and f"variant-static/{cc}" in r]
        mean_gain = 100 * (sum(b / a for a, b in pairs if a > 0) / len(pairs) - 1)
        rows.append(Headline("17 variants: mean gain with resize 1200 us", "+36 %", 25, 47, mean_gain, " %", "+-30 % of the paper's value"))
        rows.append(Headline("BBR with resize 1200 us", "43 %", 36, 50, vr.get("bbr", float("nan")), " %", "+-15 %"))
        rows.append(Headline("NV with resize 1200 us", "54 %", 46, 62, vr.get("nv", float("nan")), " %", "+-15 %"))
    fct = {(int(k.split("/")[1]), int(k.split("/")[2])): v["transfer_s"] for k, v in r.items() if k.startswith("days/")}
    if fct:
        small = [q for q in FIG3_QUEUES if q <= 32]
        large = [q for q in FIG3_QUEUES if q >= 64]

        def worst_ratio(queues):
            # A transfer that did not finish within the run's 120 s counts as infinitely slow.
            ratios = []
            for q in queues:
                row = [fct.get((d, q), float("nan")) for d in FIG3_DAYS_US]
                row = [float("inf") if v != v else v for v in row]
                best = min(row[0], row[-1])
                ratios.append(max(row) / best if 0 < best < float("inf") else float("nan"))
            return max(ratios)

        rows.append(Headline("Fig. 3: small queues, worst mid-day FCT / best end", "2-4x", 2, 4, worst_ratio(small), "x",
                             "queues 8-32: FCT at the worst day length over the better of 10 us and 10 ms days"))
        rows.append(Headline("Fig. 3: 64-128 pkt queues, same ratio", "~1x", None, 1.5, worst_ratio(large), "x",
                             "'fine for all day lengths' read as <= 1.5x"))
    return rows


def table1_headlines(r: dict) -> list[Headline]:
    """Table 1 (§4), each row against its configured value (the paper's numbers are not in the
    text): night and day lengths on the wire, packet bandwidth during nights per ToR uplink,
    circuit bandwidth during days per rack pair."""
    t = r.get("table1/bypass")
    if not t:
        return []
    rows = []
    for name, key, want, band, unit, what in (
            ("night length on the wire", "night_us", NIGHT_US, TABLE1_TIME_BAND, " us", "racks"),
            ("day length on the wire", "day_us", DAY_US, TABLE1_TIME_BAND, " us", "pairs"),
            ("packet bandwidth during nights", "packet_gbps", PACKET_GBPS, TABLE1_RATE_BAND, " Gb/s", "ToR uplinks"),
            ("circuit bandwidth during days", "circuit_gbps", CIRCUIT_GBPS, TABLE1_RATE_BAND, " Gb/s", "pairs")):
        v = t.get(key, float("nan"))
        lo, hi = t.get(f"{key}_min", float("nan")), t.get(f"{key}_max", float("nan"))
        rows.append(Headline(f"Table 1: {name}", f"{want:g}{unit} (set)", round(want * (1 - band), 6), round(want * (1 + band), 6), v, unit,
                             f"mean; {what} {lo:.4g}-{hi:.4g}; the paper's value is not in the text: scored against the configured "
                             f"value +-{100 * band:g} %"))
    return rows


#: The paper's values on our figures (report.html; drawn by FigureSaver): each from the text, with
#: the band its headline uses where that band is in the figure's units.
STATED: list[Stated] = [
    Stated("fig8_static_voq", "static 16-packet VOQs: 48.6 % circuit utilization", "§6.1, Fig. 8a", 48.6, 40, 58, x=16),
    Stated("fig8_static_voq", "static 32-packet VOQs: 76.7 %", "§6.1, Fig. 8a", 76.7, 65, 88, x=32),
    Stated("fig8_static_voq", "64-packet VOQs: full utilization ('full' read as >= 90 %)", "§6.1, Fig. 8a", None, 90, None, x=64),
    Stated("fig8_static_voq", "static 16: p99 latency 123 us", "§6.1, Fig. 8b", 123, 105, 141, x=16, axes=1),
    Stated("fig8_static_voq", "static 64: p99 latency 484 us", "§6.1: 'improves tail latency by 0.59x (484 us -> 286 us)'", 484, 411, 557,
           x=64, axes=1),
    Stated("fig9_resize", "resize(16, 50, tau = 1800 us): 91.1 %", "§6.1, Fig. 9a", 91.1, 85, 97, x=1800),
    Stated("fig9_resize", "high utilization 'effectively achieved at tau = 1800 us' (the plateau; band one sweep step)", "§6.1",
           span=(1500, 2100)),
    Stated("fig9_resize", "tau = 1800 us: p99 latency 286 us (scored as 2.33x static 16's)", "§6.1: '(484 us -> 286 us)'", 286, x=1800,
           axes=1),
    Stated("fig9_resize", "'median latency does not increase until tau = 2700 us' (band one sweep step)", "§6.1", span=(2400, 3000), axes=1),
    Stated("fig11_retcp", "reTCP + resize at tau = 150 us: 92.7 %", "§6.2, Fig. 11a", 92.7, 86, 99, x=150),
    Stated("fig4_fig10_variants", "static 16-packet VOQs, 17 variants: 'does not exceed 55%'", "§3.2.4, Fig. 4a", 55, None, 58),
    Stated("fig4_fig10_variants", "BBR with resizing: 43 %", "§6.1, Fig. 10: 'realize only 43% and 54% utilization'", 43, 36, 50,
           x="bbr", dx=0.2),
    Stated("fig4_fig10_variants", "NV with resizing: 54 %", "§6.1, Fig. 10", 54, 46, 62, x="nv", dx=0.2),
]

#: The setup, each choice with the paper's sentence it rests on (docs/reproductions/retcp.md; report.html).
SETUP: list[Setup] = [
    Setup("network", "25 racks x 16 hosts; 10 Gb/s packet uplinks, 5 us per link; an 80 Gb/s, 30 us circuit switch",
          "§4.4-4.5 (the testbed's parameters)"),
    Setup("schedule", "round-robin strobe, 180 us days, 20 us nights (4800 us weeks)", "§4.4-4.5"),
    Setup("packets", "9000 B MTU, MSS 8960 B (9000 B minus 40 B of IP/TCP headers)", "§4.4-4.5"),
    Setup("traffic", "16 long-lived flows from rack 0 to rack 1, CUBIC unless stated", "§6"),
    Setup("VOQs", "one per rack pair, 16 packets static; resize(16, 50, tau); reTCP alpha = 2, beta = 0.5", "§5, §6"),
    Setup("hosts", "Linux 4.15 (IW10, RACK, TLP, quick-ACK) under 20x time dilation: kernel timers 20x shorter",
          "§3.2: '17 TCP variants pre-installed on Ubuntu 18.04'; §4.3: 'We use a TDF of 20x'"),
    Setup("host links", "800 Gb/s, each host's egress shaped at 10 Gb/s",
          "§4.3: 'Each per-container link ... is limited to 10 Gb/s (0.5 Gb/s)'; §4.1: tc shapes what the containers send"),
    Setup("utilization", "bytes over the circuit in the pair's days / (80 Gb/s x 180 us), after a warm-up", "§6 (Fig. 8a's metric)"),
    Setup("Fig. 3", "3 racks, 10 CUBIC flows, nights = day / 9, 14 us packet links (60 us packet RTT)",
          "not in the text (a simulation with few details): the testbed's 3 racks"),
]


def figures(r: dict, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    save = FigureSaver(out, STATED)

    def sweep(prefix, xs, xlabel, name, title, compare=None):
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
        ys = [100 * value(r, f"{prefix}/{x}", "utilization") for x in xs]
        a1.plot(xs, ys, "o-", label="ours")
        a1.set_xlabel(xlabel)
        a1.set_ylabel("circuit utilization (%)")
        a1.set_ylim(0, 105)
        a1.grid(alpha=0.3)
        a2.plot(xs, [value(r, f"{prefix}/{x}", "p99_us") for x in xs], "o-", color="C3", label="p99")
        a2.plot(xs, [value(r, f"{prefix}/{x}", "p50_us") for x in xs], "s--", color="C2", label="p50")
        a2.set_xlabel(xlabel)
        a2.set_ylabel("latency through the ToRs (us)")
        a2.legend()
        a2.grid(alpha=0.3)
        if compare:
            a1.plot(xs, [100 * value(r, f"{compare}/{x}", "utilization") for x in xs], "^:", label=compare)
            a1.legend()
        fig.suptitle(title)
        save(fig, name)

    def draw_seq(ax, keys, labels, xmin, xmax, day=DAY_US, styles=None):
        ax2 = ax.twinx()
        drawn = False
        for i, (k, lab) in enumerate(zip(keys, labels)):
            s = r.get(k, {}).get("seq")
            if not s or not s["offset_us"]:
                continue
            df = pd.DataFrame(s)
            df = df[(df.offset_us >= xmin) & (df.offset_us <= xmax)]
            base = df["expected_bytes"].iloc[0]
            st = dict((styles or {}).get(k, {}))
            color = st.pop("color", f"C{i % 10}")
            ax.plot(df.offset_us, (df.expected_bytes - base) / 1e6, color=color, label=lab, **st)
            ax2.plot(df.offset_us, df.voq_packets, color=color, ls=":", lw=1)
            if not drawn:
                ax.plot(df.offset_us, (df.optimal_bytes - df.optimal_bytes.iloc[0]) / 1e6, "k-", lw=2, alpha=0.4, label="optimal")
                ax.plot(df.offset_us, (df.packet_only_bytes - df.packet_only_bytes.iloc[0]) / 1e6, "k--", lw=1, label="packet only")
                drawn = True
        ax.axvspan(0, day, color="tab:blue", alpha=0.12)
        ax.set_xlabel("time relative to the circuit day (us)")
        ax.set_ylabel("expected bytes delivered (MB)")
        ax2.set_ylabel("mean VOQ length (packets, dotted)")
        if drawn:
            ax.legend(fontsize=8, loc="upper left")

    def seq(keys, labels, name, title, xmin=-3300, xmax=400):
        fig, ax = plt.subplots(figsize=(7, 4.2))
        draw_seq(ax, keys, labels, xmin, xmax)
        ax.set_title(title)
        save(fig, name)

    sweep("static", VOQ_SIZES, "VOQ size (packets)", "fig8_static_voq", "Fig. 8: static VOQ sizes (CUBIC)", compare="retcp-static")
    seq([f"static/{q}" for q in VOQ_SIZES], [f"{q} pkts" for q in VOQ_SIZES], "fig8b_seq", "Fig. 8b: static VOQs")
    sweep("resize", TAU_RESIZE, "tau (us)", "fig9_resize", "Fig. 9: dynamic VOQ resizing (16 -> 50 pkts, CUBIC)")
    seq([f"resize/{t}" for t in (0, 600, 1200, 1800, 2400, 3000)], [f"tau {t} us" for t in (0, 600, 1200, 1800, 2400, 3000)],
        "fig9b_seq", "Fig. 9b: dynamic resizing")
    sweep("retcp-resize", TAU_RETCP, "tau (us)", "fig11_retcp", "Fig. 11: reTCP + dynamic resizing")
    seq([f"retcp-resize/{t}" for t in TAU_RETCP], [f"tau {t} us" for t in TAU_RETCP], "fig11b_seq", "Fig. 11b: reTCP + resizing",
        xmin=-600)

    vs = [100 * value(r, f"variant-static/{cc}", "utilization") for cc in VARIANTS]
    vr = [100 * value(r, f"variant-resize/{cc}", "utilization") for cc in VARIANTS]
    fig, ax = plt.subplots(figsize=(10, 3.6))
    x = range(len(VARIANTS))
    ax.bar([i - 0.2 for i in x], vs, 0.4, label="static 16 pkts (Fig. 4a)")
    ax.bar([i + 0.2 for i in x], vr, 0.4, label="resize tau = 1200 us (Fig. 10)")
    ax.set_xticks(list(x), VARIANTS, rotation=45)
    ax.set_ylabel("circuit utilization (%)")
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    save(fig, "fig4_fig10_variants")

    # Figs. 2a/2b: one week of each schedule around rack 0 -> 1's day.
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.2))
    for ax, fig_id in zip(axes, FIG2):
        day, night, before = FIG2[fig_id]
        week = (FIG2_RACKS - 1) * (day + night)
        draw_seq(ax, [f"fig2/{fig_id}"], ["CUBIC, 16-pkt VOQs"], -before, week - before, day=day)
        ax.set_title(f"Fig. {fig_id}: {FIG2_RACKS} racks, {day / 1000:g} ms days, {night / 1000:g} ms nights")
    save(fig, "fig2_seq")

    # Fig. 4b: the variants' week around the day, static 16-packet VOQs.
    fig, ax = plt.subplots(figsize=(8, 4.6))
    tab = plt.get_cmap("tab20")
    styles = {f"variant-static/{cc}": {"color": tab(i % 20), **({"lw": 2.5} if cc in ["cubic"] + FIG4B_BEHIND else {"lw": 0.8, "alpha": 0.7})}
              for i, cc in enumerate(VARIANTS)}
    draw_seq(ax, [f"variant-static/{cc}" for cc in VARIANTS], VARIANTS, -3300, 1500, styles=styles)
    ax.legend(fontsize=6, loc="upper left", ncol=2)
    ax.set_title("Fig. 4b: TCP variants, static 16-pkt VOQs (thick: CUBIC, BBR, NV)")
    save(fig, "fig4b_seq")

    # reTCP alone per static VOQ size (§6.3; the paper omits the graph).
    fig, ax = plt.subplots(figsize=(6, 3.8))
    gains = [100 * (value(r, f"retcp-static/{q}", "utilization") - value(r, f"static/{q}", "utilization")) for q in VOQ_SIZES]
    ax.bar([str(q) for q in VOQ_SIZES], gains, label="ours")
    ax.plot(["32"], [6], "r*", ms=12, label="paper: +6 at 32 (largest)")
    ax.axhline(2.65, color="k", ls="--", lw=1, label="paper: mean +2.65")
    ax.axhline(sum(g for g in gains if g == g) / max(1, sum(g == g for g in gains)), color="C0", ls=":", lw=1, label="ours: mean")
    ax.set_xlabel("static VOQ size (packets)")
    ax.set_ylabel("reTCP - CUBIC utilization (points)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.set_title("reTCP alone vs static VOQs (§6.3)")
    save(fig, "retcp_static_gain")

    # §7: three racks, 400 us weeks, 220 us between a pair's days.
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
    for prefix, lab, mk in (("3rack/resize", "resize (CUBIC)", "o-"), ("3rack/retcp-resize", "reTCP + resize", "s-")):
        a1.plot(TAU_3RACK, [100 * value(r, f"{prefix}/{t}", "utilization") for t in TAU_3RACK], mk, label=lab)
        a2.plot(TAU_3RACK, [value(r, f"{prefix}/{t}", "p99_us") for t in TAU_3RACK], mk, label=lab)
    for q, ls in ((SMALL, ":"), (LARGE, "--")):
        a1.axhline(100 * value(r, f"3rack/static/{q}", "utilization"), color="gray", ls=ls, label=f"static {q} pkts")
        a2.axhline(value(r, f"3rack/static/{q}", "p99_us"), color="gray", ls=ls, label=f"static {q} pkts")
    a1.set_ylim(0, 105)
    a1.set_ylabel("circuit utilization (%)")
    a2.set_ylabel("p99 latency through the ToRs (us)")
    for a in (a1, a2):
        a.set_xlabel("tau (us); a pair's days are 220 us apart")
        a.grid(alpha=0.3)
        a.legend(fontsize=8)
    fig.suptitle("§7: 3-rack strobe (400 us weeks)")
    save(fig, "sec7_three_racks")

    fig, ax = plt.subplots(figsize=(6, 4))
    for q in FIG3_QUEUES:
        ys = [value(r, f"days/{d}/{q}", "transfer_s") for d in FIG3_DAYS_US]
        ax.plot(FIG3_DAYS_US, ys, "o-", label=f"{q} pkts")
    ax.set_xscale("log")
    ax.set_xlabel("circuit day length (us)")
    ax.set_ylabel("transfer completion time (s)")
    ax.legend(title="VOQ")
    ax.grid(alpha=0.3)
    ax.set_title("Fig. 3: day length sweep (3 racks, 10 CUBIC flows)")
    save(fig, "fig3_day_length")
    return save.written


def runs_frame(results: dict) -> pd.DataFrame:
    return runs_table(results, skip=("seq",))


def reproduce(scale: str = "reduced", output: str | Path = "reproduce-retcp", jobs: Optional[int] = None,
              progress: bool = True, only: Optional[list[str]] = None, model: str = "both", one_change: bool = False,
              dask: Optional[str] = None, finished: bool = False,
              changes: Optional[str | Sequence[str]] = None) -> dict:
    """Run the experiments in the text and/or artifact model, write runs.csv, headlines.csv (and
    one_change.csv) and the figures (the artifact model's in artifact/); print the table."""
    chosen = select_changes("retcp", ARTIFACT, changes, model)
    out, sets = run_models("retcp", scale, SCALES, points, output, jobs, progress, only, model, chosen,
                           CENTRAL_POINTS if one_change else (), dask=dask, run=not finished)
    results = primary(sets)
    runs = write_runs(out, sets, runs_frame)
    seq = [pd.DataFrame(d["seq"]).assign(point=k) for k, d in results.items() if d.get("seq")]
    if seq:
        pd.concat(seq).to_parquet(out / "seq_view.parquet", index=False)
    figs = model_figures(out, sets, figures)
    hl, models = finish_models(out, sets, headlines, f"reTCP / dynamic VOQ resizing (NSDI 2020), scale = {scale}: paper vs ours",
                          chosen, CENTRAL, len(ARTIFACT))
    write_report(out, "retcp", models, CENTRAL, figs, STATED, SETUP, chosen)
    titles = {"unshaped": "800 Gb/s host links without the 10 Gb/s egress limit (the default before 2026-11-25)",
              "physical": "10 Gb/s, 1 us host links each way",
              "etalon-gso": "the 10 Gb/s egress limit per 64 KB offload burst (netem with TSO/GSO), packets back to back at 800 Gb/s",
              "etalon-40g": "a 40 Gb/s egress limit (Etalon's python_config.py since 2019-07-26), per packet",
              "etalon-40g-gso": "a 40 Gb/s egress limit per 64 KB offload burst"}
    for m in HOST_ALTERNATIVES:
        alt = [(k.removeprefix(f"{m}/"), d) for k, d in sorted(results.items()) if k.startswith(f"{m}/")]
        if alt:
            print(f"\nsensitivity: {titles[m]} instead of Etalon's host path", file=sys.stdout)
            for k, d in alt:
                base = results.get(k, {})
                print(f"  {k:<20} utilization {100 * (d['utilization'] or 0):5.1f} % (etalon hosts {100 * (base.get('utilization') or 0):5.1f} %),"
                      f" p99 {d['p99_us'] or 0:6.1f} us", file=sys.stdout)
    t1 = [(k, results[f"table1/{k}"]) for k in TABLE1_SENSITIVITY if f"table1/{k}" in results]
    if t1:
        print("\nTable 1 beside the scored run (every pair, 16-packet VOQs, ACK bypass), unscored:", file=sys.stdout)
        for k, d in [("bypass", results.get("table1/bypass", {}))] + t1:
            print(f"  {k:<10} night {d.get('night_us', float('nan')):6.2f} us, day {d.get('day_us', float('nan')):6.2f} us, "
                  f"packet {d.get('packet_gbps', float('nan')):5.2f} Gb/s, circuit {d.get('circuit_gbps', float('nan')):5.2f} Gb/s"
                  f"  ({TABLE1_SENSITIVITY.get(k, 'scored')})", file=sys.stdout)
    print(f"\nwrote {out}/runs.csv, headlines.csv, seq_view.parquet and {len(figs)} figures; every run is kept in "
          f"{out}/store (a sweep store: fabricsim report {out}/store)", file=sys.stderr)
    return {"runs": runs, "headlines": hl}
