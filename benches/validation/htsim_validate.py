#!/usr/bin/env python3
"""Cross-validation against htsim: the same experiment in both simulators, one agreement table each.

    python benches/validation/htsim_validate.py --htsim /path/to/csg-htsim                  # every experiment
    python benches/validation/htsim_validate.py --htsim SRC --experiment ndp-permutation --end 20ms
    python benches/validation/htsim_validate.py --htsim SRC --experiment ndp-permutation --strat perm
    python benches/validation/htsim_validate.py --htsim SRC --experiment swift-permutation --runs 6 --vary-seed

Nothing is downloaded: the script takes a checkout of Broadcom/csg-htsim (tested at 841d9e7),
builds its drivers in a copy (benches/htsim/htsim.py, shared with benches/htsim/compare.py), runs
each experiment in htsim and in fabricsim interleaved (--runs of each, default 2), and prints the
network figures of the first run of each side (both are deterministic for a given seed) with their
relative difference, flagged above 5 %, and the min wall time and peak memory over the runs.

Experiments. Each maps its htsim driver onto a fabricsim scenario key by key: NDP_SCENARIO and
DCTCP_SCENARIO below, each key commented with the htsim file and function it comes from (the
command lines are experiments.ndp_argv and the DCTCP driver's -nodes/-conns/-q).

ndp-permutation: htsim_ndp (sim/datacenter/main_ndp.cpp) at k = 12 (432 hosts, 10 Gb/s, 9000 B
  packets, -q 8, IW 23) on the permutation of B4/B5 written as an htsim connection matrix and
  given to both (htsim -tm, fabricsim [[import]]), 2 GB flows (long-lived for the run). htsim
  -strat rand by default (each packet a random one of the flow's paths, the receiver's ACKs,
  NACKs and PULLs too), mapped as fabricsim's [routing] paths = "random"; --strat perm runs
  htsim's path permutation (SCATTER_PERMUTE: each direction of a flow cycles through a shuffled
  list of its paths), mapped as paths = "permutation". --own-paths leaves fabricsim's NDP to its
  own spraying (a per-packet hash at each switch, control packets on the flow's one path).
ndp-incast: htsim's own sim/datacenter/connection_matrices/incast.cm (16 nodes: a k = 4 fat tree;
  15 senders to node 15, 2 MB each, all starting at 0), imported as it is, the same NDP mapping.
dctcp-permutation: htsim's old DCTCP permutation driver (old_tests/main_dctcp_permutation.cpp,
  built by benches/htsim/htsim.py with the end time set) at k = 12; it draws its permutation and
  paths from the time of day, so each fabricsim run takes the permutation of the htsim run
  before it (read from the names in its log) on the same paths: the build copy prints each
  flow's path draw (benches/htsim/htsim.py's print_path_choices; both directions use the same
  index), which becomes the flow's path index under [routing] paths = "flow"
  (htsim.fat_tree_path_index); the table compares the first pair and notes, pair by pair, how
  the same flows' goodputs go together. --own-paths lets fabricsim hash its flows onto paths of
  its own draw for htsim's first permutation instead; --vary-seed then gives fabricsim's runs
  seeds 1, 2, .... The table prints both simulators' range of per-flow figures over the runs.
  Both DCTCP experiments map htsim's hosts (ACKs ahead of data in a FairPriorityQueue, no send
  limit: [host_queue] and class / ack_class), its DCTCP window rules (cc_params window_cut,
  ack_window, cwr_on_ece; byte_cut for the permutation only: see INCAST_TRANSPORT) and its order
  of same-picosecond events ([simulation] tie_order = "scheduled_pipe": EventList's insertion
  order, each arrival scheduled by its Pipe as the packet enters the link; --tie-order event or
  scheduled to compare; TIE_ORDERS) and the round robin over flows inside each host queue
  ([host_queue] order = "flow_rr": FairPriorityQueue keeps a FairPullQueue per priority,
  sim/queue.h, sim/fairpullqueue.cpp FairPullQueue::dequeue; a no-op in the permutation, where each
  host queue holds one flow; --host-order fifo to compare; HOST_ORDERS) and its window in bytes
  ([transport] window = "htsim_bytes", with sack = false: sim/tcp.cpp TcpSrc::inflate_window grows
  by the window's free room, at most one packet per ACK, the SYN-ACK's included; TcpSrc::send_packets
  lets floor(cwnd / 9000) packets out; sim/dctcp.cpp DCTCPSrc::receivePacket cuts the bytes;
  deflate_window halves them at every timeout; --window segments to compare; WINDOWS) and, in the
  permutation, its ACKs' and SYN's sizes on the wire (ack_size = "40B", TcpAck::ACKSIZE; syn_size =
  "1B", TcpPacket::new_syn_pkt; --sizes header to compare; SIZES).
dctcp-incast: htsim's DCTCP incast driver (old_tests/main_dctcp_incast_collateral.cpp, built with
  the end time set and its flows named in its "finished" lines) as its sim/EXAMPLES/collateral
  script runs it (-nodes 432 -conns 64 -q 100): hosts 367-430 send 51 packets each to h0 at
  80 ms (htsim's TcpSrc::send_packets sends a 52nd packet that the flow's finish does not wait
  for: mapped as 52 segments with [transport] extra_segment; --extra-segment off to compare), a
  long flow h7 -> h1 runs from 0. DCTCP_SCENARIO with INCAST_TRANSPORT (htsim's TCP:
  no SACK, 250 ms minimum RTO, its zero SYN timestamp (tcp_367's SYN, made from a recycled packet,
  echoes that packet's time: STALE_SYN_SENDERS; --stale-syn off), its 0.5 ms timer scan, its 40 B ACKs and
  1 B SYN: sim/tcppacket.h TcpAck::ACKSIZE, sim/tcp.cpp TcpSrc::send_packets), its switches'
  marks decided as a packet's service ends (sim/ecnqueue.cpp ECNQueue::completeService: [queue]
  mark_at = "end" at 15 packets, in both DCTCP experiments, whose switches are the same ECNQueue;
  --mark-at dequeue marks as the service begins at 14, the permutation's mapping before; MARKINGS).
  Figures: FCTs,
  flows finished before one and two minimum RTOs, timeouts (htsim's "At T RTO" lines), the long
  flow's goodput before and in the incast's first 10 ms. The driver seeds its path draw
  (srand(13)), so its runs are identical; fabricsim pins each flow to htsim's path as in the
  permutation (the long flow to the first path each way, srcpaths->at(0)), or with --own-paths
  hashes them.

swift-incast, swift-permutation: htsim_swift (sim/datacenter/main_swift.cpp, Swift in sim/swift.cpp)
  against fabricsim's cc = "swift", SWIFT_SCENARIO below, each key commented with its source:
  100 Gb/s (HOST_NIC), 1 us links, 4000 B packets, IW 15, no slow start, no handshake, every
  packet ACKed, 40 B ACKs, FairScheduler host queues (sim/swift_scheduler.cpp
  FairScheduler::next_packet: one queue per flow id served a packet at a time in turn, a
  receiver's ACKs in the queue of the flow they acknowledge, SwiftSubflowSink::send_ack builds them
  on the source's PacketFlow): [host_queue] one queue, order = "flow_rr", which keys on the
  packet's flow, and fabricsim's ACKs carry their connection's flow id
  (crates/engine/src/transport/tcp/receiver.rs, Receiver::send_ack_at: Packet::new(ends.flow, ..));
  at most 3 packets of a flow at its NIC, the one on the wire included: send_limit 2 waiting),
  one path per flow and direction (below), target 20 us
  + flow term (fs_range 100 us, fs cwnd 0.1-100), ai 1, beta 0.8, max_mdf 0.5, and no hop term: htsim's SwiftSubflowSrc keeps
  routeout.clone(), and Route::clone's copy starts at hop count 0, so its route.hop_count() x _h
  is always 0 (found
  through the incast: with h = 20/6.55 us per hop mapped, fabricsim's flow from the receiver's
  own rack finished last, htsim's first). Switch queues: RandomQueue of -q x 4000 B (the packet
  on the wire counted) with a 10 % random-drop band over its last 3 packets, mapped onto [queue]
  buffer and random_drop (queue/random_drop.rs). The runs use -q 500 (--swift-queue), where no
  queue reaches the band (htsim prints no retransmission, fabricsim drops nothing); with the
  driver's own -q 8 htsim's Swift stops 11 of the incast's 15 flows for good after their
  timeouts (its go-back-N resends sequence numbers with new data: docs/VALIDATION.md). The
  incast is htsim's connection_matrices/incast.cm with -flowsize 499 (500 packets,
  SwiftSrc::set_flowsize adds one); the permutation is B4's derangement at k = 8 (the driver's
  128 default nodes), long-lived. Paths: the driver draws
  choice = rand() % paths and sends the ACKs on the reverse path at(choice), then
  SwiftSrc::set_paths shuffles the flow's paths and moves the data onto the shuffled list's first
  (timeouts keep it: move_path runs only under -plb, not passed); the build copy prints both
  (print_swift_paths) and each fabricsim run pins its flows to its htsim run's draws, per
  direction ([[flows]] path and return_path, htsim.fat_tree_path_index); --own-paths hashes them
  instead. htsim's copy of main_swift.cpp takes its srand seed from $HTSIM_SEED
  (benches/htsim/htsim.py): with --vary-seed its runs take 13, 14, ... (and fabricsim's, with
  --own-paths, seeds 1, 2, ...), so the path draws vary.
  Figures: FCTs (htsim's first "Flow .. finished at" line of each flow), goodput at htsim's last
  100 us sink sample (SwiftSink::cumulative_ack counts one packet more than received: 4 KB of
  tens of MB, not corrected), retransmissions ("retransmit_packet" lines) and timeouts ("At T
  RTO" lines, SwiftRtxTimerScanner checks every 10 ms).

hpcc-flow, hpcc-incast, hpcc-incast2, hpcc-incast15, hpcc-permutation: htsim_hpcc
  (sim/datacenter/main_hpcc.cpp, HPCC in sim/hpcc.cpp) against fabricsim's cc = "hpcc",
  HPCC_SCENARIO below: 100 Gb/s, 1 us links, 9000 B payload + 64 B header, ACKs of 64 B, T = 12 us
  for every path, eta 0.95, maxStage 5, W_AI one packet, W bounded only at 9064 B x T (w_max_bytes:
  the W past which htsim's own run fails its assertion in HPCCSrc::doNextEvent), and
  the eight places where sim/hpcc.cpp departs from HPCC's Algorithm 1 and htsim's INT recording
  point (LosslessOutputQueue::completeService: int_record = "end"), each an HPCC option
  (HPCC_HTSIM_RULES, commented key by key in HPCC_SCENARIO; --hpcc-algorithm1 leaves them out,
  --hpcc-int-record start only the last), and its source's timer (HPCCSrc::doNextEvent: a packet
  leaves only on a tick every T x 9064 B / W, send_timing = "tick"; --hpcc-send-timing window
  sends as soon as the window allows, paced at W/T, the mapping before) and its window's unit
  (_cwnd, a seq_t of payload bytes against _flightsize += _mss: window_rounding = "sequence",
  W_AI 9000 B; --hpcc-window wire counts W in bytes on the wire, the mapping before), its
  arithmetic for each hop's u (sim/hpcc.cpp, HPCCSrc::measureInFlight: bits x 10^12 over integer
  picoseconds, exact for whole packets at line rate, so such hops tie and the first keeps tau:
  u_arithmetic = "htsim"; --hpcc-u-arithmetic seconds, bytes over seconds, the mapping before)
  and its order
  of same-picosecond events ([simulation] tie_order = "scheduled_switch": sim/eventlist.cpp,
  EventList::sourceIsPending inserts into a multimap keyed by time, so EventList::doNextEvent runs
  equal times in insertion order; sim/pipe.cpp: Pipe::receivePacket schedules an arrival only
  into an empty pipe, Pipe::doNextEvent the next one as it delivers the one ahead; and
  sim/datacenter/fat_tree_switch.cpp: FatTreeSwitch::receivePacket passes every packet through
  the switch's own CallbackPipe of the switching latency, 0, before its egress queue;
  --hpcc-tie-order scheduled_pipe leaves that pipe out, the mapping before; own runs fabricsim's
  own order, the mapping before that);
  -strat ecmp_host -paths 256 (switches hash the flow id with a path id every HPCCSrc draws after
  srand(time(NULL)); the build copy takes that seed from $HTSIM_SEED, 13 + run with --vary-seed).
  The build copy prints each switch's choice for each flow's first data packet and first ACK
  (print_hpcc_hops) and each fabricsim run pins its flows to its htsim run's paths, per direction
  ([[flows]] path and return_path, htsim.hpcc_path_index); --own-paths hashes them instead
  (fabricsim's seeds 1, 2, ... with --vary-seed). Hosts: htsim's source hands its unbounded host
  queue (ACKs first) a packet every T x 9064 B / W while the window allows, whatever the queue
  holds, and stops at a pause (FairPriorityQueue::receivePacket forwards it to its sources,
  HPCCSrc::processPause); mapped as it is: send_limit = "unlimited" with the ACKs in a queue of
  their own ahead of data, and [pfc] stop_senders = true (a paused NIC holds its senders until the
  resume; a timer firing in the pause stops the source's timer and the resume fires it at once,
  HPCCSrc::doNextEvent and processPause in sim/hpcc.cpp: send_timing = "tick" does the same for a
  sender the pause blocked, cc/send_tick.rs). --hpcc-pause-hosts limit, and fabricsim's own draws, map the stop as a one-packet send
  limit instead, the mapping before (HPCC_HOST_QUEUE, HPCC_STOP_SENDERS, HPCC_SEND_LIMIT).
  The driver's queues are lossless: PFC at every switch ingress above HIGH x 9000 B, resumed below
  LOW x 9000 B (-pfc_thresholds LOW HIGH, its own 12 15), mapped key by key onto fabricsim's [pfc]
  (xoff = HIGH x 9000 B, xon = LOW x 9000 B; HPCC_SCENARIO's [pfc] comments say where each rule is
  in sim/queue_lossless_input.cpp) over unlimited buffers (its never-dropping egress queues). By
  default the runs pass a HIGH above all the flows' whole packets together (long-lived flows: line
  rate for the run), so no ingress can reach it and no pause can occur on either side; --hpcc-pfc
  driver keeps 12 15 and compares what PFC does. htsim counts no pauses, so its build copy prints
  one line per pause (benches/htsim/htsim.py); the table shows the most in a run on each side. Experiments: one
  20 MB flow; 4 x 100 KB and 2 x 500 KB into h15 at k = 4; htsim's incast.cm (15 x 2 MB into h15);
  a permutation of long flows at k = 8 (B4's derangement, as swift-permutation).

Figures. Goodput is acknowledged bytes in htsim's unit (NDP: 9000 B of payload per data packet on
both sides, 9064 B on the wire; DCTCP: htsim counts whole 9000 B packets, fabricsim's 8948 B of
payload are scaled to them), read at htsim's last sink sample (its sink logger samples every 1 ms
for NDP, 10 ms for DCTCP; none is taken at the end time itself) and at the same time in
fabricsim's flow series. Utilization is the receivers' mean goodput over the line rate. FCTs
(finite flows): htsim's "Flow .. finished at" (the sender's last ACK), fabricsim's fct_s (the
same event). Retransmissions: htsim_ndp's closing "Rtx" (data packets resent after a NACK, a
bounce or a timeout), fabricsim's per-flow retransmits; bounces: htsim's "Bounced", fabricsim's
ports' bounces; timeouts: htsim_ndp's "Total RTOs". htsim prints no trims, drops, marks or queue
figures without its own code changed (its DCTCP driver prints only its sinks' samples): their
column is "-" and fabricsim's value is shown alone.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
from dataclasses import dataclass, field
from typing import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "htsim"))
sys.path.insert(0, str(HERE))

import experiments  # noqa: E402
import timing  # noqa: E402
from agreement import Table, fct_rows, fmt, goodput_rows, jain  # noqa: E402
from htsim import (Htsim, checkout_commit, connection_matrix, fat_tree_path_index, finished_flows, host_queue_peak,  # noqa: E402
                   hpcc_hop_choices, hpcc_path_index, log_preamble, logged_names, ndp_totals, path_choices, pfc_pauses, sink_pair, sink_samples,
                   swift_path_choices, swift_retransmits, tcp_finished, tcp_timeouts)

PACKET = experiments.PACKET
LINE_GBPS = 10.0

FABRICSIM = r"""
import json, sys
from fabricsim.runner import run
r = run(sys.argv[1], progress=False)
f, p = r.flows, r.ports
series = r.flow_series() if len(r.timeseries) else None
t = float(sys.argv[2])
if series is not None and t > 0:
    at = series[series["time_s"] <= t + 1e-12]
    last = at[at["time_s"] == at["time_s"].max()]
    acked_at = {int(a): float(b) for a, b in zip(last["flow"], last["delivered_bytes"])}
else:
    acked_at = {}
col = lambda frame, c: float(frame[c].sum()) if c in frame else None
at_times = {}
for x in (sys.argv[3].split(",") if len(sys.argv) > 3 and sys.argv[3] else []):
    w = series[series["time_s"] <= float(x) + 1e-12]
    w = w[w["time_s"] == w["time_s"].max()]
    at_times[x] = {int(a): float(b) for a, b in zip(w["flow"], w["delivered_bytes"])}
print(json.dumps({
    "acked_at_times": at_times, "dst": [str(x) for x in f["dst"]], "src": [str(x) for x in f["src"]], "fct_by_flow_us": [None if x != x or x is None else float(x) * 1e6 for x in f["fct_s"].astype(float)],
    "acked": [float(x) for x in f["bytes_acked"]],
    "acked_at": acked_at,
    "fct_us": [float(x) * 1e6 for x in f["fct_s"].dropna()],
    "retransmits": col(f, "retransmits"), "timeouts": col(f, "timeouts"), "trims": col(f, "trimmed"),
    "segments": col(f, "segments_sent"), "bounces": col(p, "bounces"), "drops": col(p, "drops"),
    "marks": col(p, "ecn_marks"), "pauses": col(p, "pfc_pauses"), "hops": r.summary["packet_hops"],
    "host_backlog": float(p[p["node"].str.match(r"h\d+$")]["max_queue_bytes"].max())}))
"""


@dataclass
class Experiment:
    name: str
    toml: Path | None  # fabricsim's scenario; None: written from htsim's first run by `after_htsim`
    argv: list[str]  # htsim's command line (run in its own directory)
    sink: str  # the sink type htsim logs
    end_s: float
    finite: bool  # flows of a size (FCTs), else long-lived (goodput)
    notes: list[str] = field(default_factory=list)
    after_htsim: Callable[[dict], Path] | None = None
    # fabricsim's run i written from htsim's run i (`after_htsim`): the DCTCP permutation on
    # htsim's own draw, which is new in every htsim run (its permutation and paths: time of day).
    each_run: bool = False
    # fabricsim's acknowledged bytes in htsim's unit: htsim's sequence numbers count whole 9000 B
    # TCP packets; fabricsim's count payload (8948 B of each 9000 B packet). NDP: 9000 B on both.
    fab_scale: float = 1.0
    # Instead of the default network rows: rows(htsim's figures, fabricsim's figures).
    rows: Callable[[dict, dict], list] | None = None
    at_times: list[float] = field(default_factory=list)  # fabricsim's delivered bytes also read at these times
    line_gbps: float = LINE_GBPS  # the hosts' line rate, for utilization


NDP_SCENARIO = """name = "{name}"
description = "htsim's NDP driver (sim/datacenter/main_ndp.cpp, csg-htsim {commit}) mapped key by key; benches/validation/htsim_validate.py"

[simulation]
end = "{end}"                        # -end (us)
seed = 1                             # htsim: -seed 13 (srand/srandom); the random streams differ anyway

[topology]
kind = "fat_tree"                    # FatTreeTopology, 3 tiers (default -tiers 3)
k = {k}                              # -nodes N = k^3/4 (FatTreeTopology::set_params)
link = {{ rate = "10Gbps", delay = "1us" }}   # -linkspeed 10000; -hop_latency 1, -switch_latency 0

[queue]
# -queue_type composite (COMPOSITE, FatTreeTopology::alloc_queue -> CompositeQueue), -q 8:
# maxsize = memFromPkt(8) = 72000 B of data (Packet::data_packet_size() = 9000; a data packet is
# 9064 B on the wire); headers get 2 x maxsize (CompositeQueue::receivePacket). htsim's occupancy
# (_queuesize_low/_high) includes the packet being serialized until CompositeQueue::completeService
# removes it, fabricsim's counts waiting packets only: htsim's M bytes are M minus one packet here
# (72000 - 9064 data: 6 waiting behind the one on the wire; 144000 - 64 headers). The header
# queue is served 100000:1 (_ratio_high/_ratio_low in CompositeQueue's constructor); a data packet
# that does not fit is trimmed, or, on a coin (drand() < 0.5), the queue's last packet is trimmed
# instead; a header that does not fit is dropped (_return_to_sender is false unless setRTS is
# called, and nothing calls it).
buffer = "unlimited"
queues = 2
classes = [0, 1]
queue_buffer = ["143936B", "62936B"]
scheduler = "wrr"
weights = [100000, 1]
admission = "trim"
trim_size = "64B"                    # NdpPacket::strip_payload: ACKSIZE = 64
return_to_sender = false
trim_tail = 0.5

[host_queue]
# FatTreeTopology's sender queue type FAIR_PRIO (-host_queue_type fair_prio): control first.
queues = 2
classes = [0, 1]

[routing]
ecmp = "flow_hash"
{paths}

[transport]
kind = "ndp"
mss = "9000B"                        # NdpSrc::_mss = Packet::data_packet_size() (-mtu 9000) ...
header = "64B"                       # ... plus ACKSIZE on the wire (NdpPacket::newpkt)
control_size = "64B"                 # ACK, NACK, PULL: NdpPacket::ACKSIZE
initial_window = 23                  # -cwnd 23 (setCwnd(cwnd * data_packet_size))
pull_rate = 0.99                     # NdpPullPacer(eventlist, linkspeed, 0.99) in main()
rto = "50ms"                         # NdpSrc::setMinRTO(50000) in main()

[output]
sample_interval = "1ms"              # -logtime 1: htsim's sink samples, to read goodput at the same time
flows = "all"

[[import]]
file = "{cm}"                        # -tm: the same connection matrix
"""


# -strat: NdpSrc::choose_route picks each data packet's path, NdpSink::send_ack/send_nack and
# process_request_to_send each ACK's, NACK's and PULL's, from the flow's own list of paths.
NDP_PATHS = {"rand": 'paths = "random"                     # -strat rand (SCATTER_RANDOM): random() % paths per packet, both directions',
             "perm": 'paths = "permutation"                # -strat perm (SCATTER_PERMUTE): each direction cycles through a shuffled '
                     'list of its paths (permute_paths when used up)'}
OWN_NDP_PATHS = "# --own-paths: fabricsim's NDP sprays by a per-packet hash at every switch (its control packets on one path)"


def ndp_scenario(k: int, end: str, cm: Path, out: Path, name: str, commit: str, strat: str, own_paths: bool) -> Path:
    """htsim's NDP driver as a fabricsim scenario at size k with the flows of the connection matrix
    `cm`, its path strategy `strat` mapped (or fabricsim's own spraying with `own_paths`)."""
    toml = out / f"{name}{'-own' if own_paths else ''}.toml"
    paths = OWN_NDP_PATHS if own_paths else NDP_PATHS[strat]
    toml.write_text(NDP_SCENARIO.format(name=name, commit=commit, end=end, k=k, cm=cm.name, paths=paths))
    return toml


def paths_note(own_paths: bool, mapped: str) -> str:
    return "fabricsim: its own path choice (--own-paths)" if own_paths else f"fabricsim: {mapped}"


def ndp_permutation(h: Htsim, end: str, out: Path, strat: str, own_paths: bool = False) -> Experiment:
    k, n = 12, 432
    cm = out / "ndp-permutation-k12.cm"
    cm.write_text(connection_matrix(n, experiments.ndp_pairs(k), size=experiments.LONG_FLOW))
    toml = ndp_scenario(k, end, cm, out, f"ndp-permutation-{strat}", h.commit, strat, own_paths)
    argv = experiments.ndp_argv(h.driver("htsim_ndp"), n, str(cm.resolve()), end, strat=strat)
    return Experiment("ndp-permutation", toml, argv, "NDP_SINK", experiments.seconds(end), False,
                      [f"k = 12, 432 flows, {end} simulated, htsim -strat {strat}; "
                       + paths_note(own_paths, NDP_PATHS[strat].split("#")[0].strip())])


def ndp_incast(h: Htsim, end: str, out: Path, strat: str, own_paths: bool = False) -> Experiment:
    src = h.sim / "datacenter" / "connection_matrices" / "incast.cm"
    cm = out / "ndp-incast.cm"
    cm.write_text(src.read_text())
    n = int(cm.read_text().split()[1])
    k = round((4 * n) ** (1 / 3))
    toml = ndp_scenario(k, end, cm, out, f"ndp-incast-{strat}", h.commit, strat, own_paths)
    argv = experiments.ndp_argv(h.driver("htsim_ndp"), n, str(cm.resolve()), end, strat=strat)
    argv[argv.index("-conns") + 1] = cm.read_text().split()[3]
    return Experiment("ndp-incast", toml, argv, "NDP_SINK", experiments.seconds(end), True,
                      [f"htsim's connection_matrices/incast.cm: k = {k} fat tree, 15 x 2 MB -> one host, {end} simulated, "
                       f"htsim -strat {strat}; " + paths_note(own_paths, NDP_PATHS[strat].split("#")[0].strip())])


DCTCP_SCENARIO = """name = "{name}"
description = "htsim's DCTCP permutation driver (sim/datacenter/old_tests/main_dctcp_permutation.cpp, csg-htsim {commit}) mapped key by key; benches/validation/htsim_validate.py"

[simulation]
end = "{end}"                        # eventlist.setEndtime (set in the copy the script compiles)
seed = 1
{tie_order}

[topology]
kind = "fat_tree"
k = {k}                              # -nodes N = k^3/4
link = {{ rate = "10Gbps", delay = "1us" }}   # speedFromMbps(10000) in main(); RTT = 1 us per link

[queue]
# FatTreeTopology(..., ECN, ...) -> ECNQueue(speed, memFromPkt(-q 100), .., memFromPkt(15)): drop
# tail at 100 x 9000 B, counting the packet being serialized (Queue's _queuesize keeps it until
# completeService), so 99 packets wait behind it at most; ECNQueue::completeService marks a
# departing packet as its service ends when the queue with it still counted exceeds 15 x 9000 B.
buffer = "891000B"
discipline = "ecn"
{marking}

[host_queue]
# FatTreeTopology::alloc_src_queue -> FairPriorityQueue (the constructor's default _sender_qt =
# FAIR_PRIO): TcpAck is PRIO_HI, TcpPacket PRIO_LO (tcppacket.h), served strictly in that order
# (FairPriorityQueue::beginService), so a host's ACKs never wait behind its own data backlog:
# two queues, ACKs (ack_class = 0 below) in the first. No marking; its memFromPkt(FEEDER_BUFFER)
# limit only prints ("Host Queue size"), and TcpSrc sends into it without backpressure.
queues = 2
classes = [0, 1]
send_limit = "unlimited"
{host_order}

[routing]
ecmp = "flow_hash"                   # choice = rand() % paths: one random path per flow ...
{paths}

[transport]
cc = "dctcp"                         # DCTCPSrc; TcpSink ACKs every packet
dctcp_g = 0.0625                     # DCTCPSrc::receivePacket: alfa = 15/16 alfa + 1/16 f, once per window
dctcp_initial_alpha = 0.0            # DCTCPSrc's constructor: _alfa = 0
# DCTCPSrc::receivePacket: cwnd *= 1 - alfa/2 every window while alfa > 0 (window_cut), in bytes:
# the fraction of a segment is kept (byte_cut); the window is _pkts_seen ACKs, duplicates included,
# until they reach _past_cwnd (ack_window); an ECE only ends slow start: TcpSrc::receivePacket grows
# the window on every new ACK (cwr_on_ece = 0).
cc_params = {{ window_cut = 1, byte_cut = 1, ack_window = 1, cwr_on_ece = 0 }}
{window}
mss = "8948B"                        # Packet::data_packet_size() = 9000 B on the wire ...
header = "52B"                       # ... (htsim's TCP packet has no separate header)
{sizes}
initial_cwnd = 10                    # TcpSrc: _cwnd = 10 * _mss
initial_ssthresh = 15                # -ssthresh default 15 (set_ssthresh(15 * 9000))
min_rto = "250ms"                    # TcpSrc::update_rtx_time: _rto at least 0.25 s
delayed_ack = 1
handshake = true                     # TcpSrc::connect sends a SYN and waits for the SYN/ACK
class = 1                            # TcpPacket::priority(): PRIO_LO at the host's FairPriorityQueue ...
ack_class = 0                        # ... TcpAck::priority(): PRIO_HI, ahead of the host's own data

[output]
sample_interval = "10ms"             # TcpSinkLoggerSampling(timeFromMs(10)): goodput read at the same time
flows = "all"

"""


# Same-picosecond events. htsim's EventList (sim/eventlist.h, .cpp) is a multimap keyed by time:
# equal times run in insertion order. Its Pipe (sim/pipe.cpp) is handed a packet by the queue's
# completeService as the packet's service ends (before the queue begins the next one), and keeps
# one pending event per link, scheduling the next arrival once the previous one has been handled.
TIE_ORDERS = {
    "scheduled_pipe": 'tie_order = "scheduled_pipe"          # EventList: ties in insertion order; Pipe::receivePacket '
                      'schedules an arrival as its packet enters the link, one per pipe',
    "scheduled_switch": 'tie_order = "scheduled_switch"        # scheduled_pipe, and FatTreeSwitch::receivePacket hands '
                        'each packet to its egress through the switch\'s zero-latency CallbackPipe, one per switch',
    "scheduled": 'tie_order = "scheduled"               # --tie-order scheduled: insertion order, each arrival scheduled '
                 'as its transmission begins (not htsim\'s Pipe)',
    "event": 'tie_order = "event"                   # --tie-order event: fabricsim\'s own tie order (by kind), not htsim\'s',
}


def tie_line(chosen: str) -> str:
    """The [simulation] tie_order line: htsim's order (scheduled_pipe), or what --tie-order chose."""
    return TIE_ORDERS["scheduled_pipe" if chosen == "mapped" else chosen]


# The order within each of a host's two queues. FairPriorityQueue keeps a FairPullQueue per
# priority (sim/queue.h; sim/fairpullqueue.cpp, FairPullQueue::dequeue): a queue per flow id in a
# std::map and a cursor that takes one packet from the next non-empty flow after the last one
# served. In the permutation each host sends one flow and acknowledges one, so each of its queues
# holds one flow and the order changes nothing there; at the incast's receiver h0 it orders the
# SYN-ACKs and ACKs of 64 flows (docs/VALIDATION.md, the first round traced for h407).
HOST_ORDERS = {
    "flow_rr": 'order = "flow_rr"                    # FairPullQueue::dequeue: flows in turn by flow id, '
               'the oldest packet of the next one after the last served',
    "fifo": 'order = "fifo"                       # --host-order fifo: one FIFO per priority, not htsim\'s FairPullQueue',
}

# Where a switch port marks. ECNQueue::completeService (sim/ecnqueue.cpp) decides as the packet's
# service ends, on _queuesize with the departing packet still counted: arrivals during its service
# count. mark_at = "dequeue" at K less one packet decides as the service begins (the mapping before,
# kept for --mark-at dequeue).
MARKINGS = {
    "end": 'ecn_threshold = "135000B"             # memFromPkt(15): the queue with the departing packet above it ...\n'
           'mark_at = "end"                      # ... as its service ends (ECNQueue::completeService)',
    "dequeue": 'ecn_threshold = "126000B"             # what a departing packet leaves behind above 135000 - 9000 B ...\n'
               'mark_at = "dequeue"                  # ... as its service begins (without the arrivals during it)',
}


# The congestion window's unit. TcpSrc keeps _cwnd and _ssthresh in bytes (sim/tcp.cpp): it grows
# by TcpSrc::inflate_window on every new ACK outside fast recovery, the SYN-ACK's included (the
# window's free room, at most one packet: slow start adds it up to ssthresh, avoidance room * mss /
# cwnd bytes), DCTCPSrc::receivePacket (sim/dctcp.cpp) cuts it to cwnd * (1 - alfa/2) bytes,
# deflate_window halves it at every timeout and fast recovery counts it in bytes; TcpSrc::
# send_packets lets a packet out while flight + mss <= cwnd (no limited transmit). fabricsim's
# window = "htsim_bytes" (crates/engine/src/transport/tcp/cc/byte_window.rs) keeps those bytes;
# it needs sack = false (TcpSrc has no SACK). --window segments: whole segments (the mapping before).
WINDOWS = {
    "htsim_bytes": 'window = "htsim_bytes"               # TcpSrc::inflate_window, send_packets, deflate_window; '
                   'DCTCPSrc::receivePacket: cwnd in bytes',
    "segments": '# --window segments: whole segments, fabricsim\'s own (not htsim\'s byte window)',
}


# The sizes on the wire of the permutation's ACKs and SYN (the incast's transport sets the same).
# TcpSink::send_ack sends a TcpAck, TcpAck::ACKSIZE = 40 B (sim/tcppacket.h), the SYN-ACK included;
# TcpSrc::send_packets opens with TcpPacket::new_syn_pkt(.., 1, 1), one byte. An ACK shares the
# reverse path's links with other flows' data and its serialization (32 ns a hop at 10 Gb/s, not
# 41.6) times its sender's next packets, so the sizes decide which of two packets reaching a
# shared port together goes first (docs/VALIDATION.md, the permutation's slowest flow). --sizes
# header: fabricsim's default sizes, the ACK's `ack_size` default (52 B) and a SYN of the ACK's
# size (the mapping before).
SIZES = {
    "htsim": 'ack_size = "40B"                     # TcpAck::ACKSIZE (the SYN-ACK is one: TcpSink::send_ack)\n'
             'syn_size = "1B"                      # TcpSrc::send_packets: TcpPacket::new_syn_pkt(.., 1, 1), one byte on the wire',
    "header": "# --sizes header: fabricsim's default ack_size (52 B) for ACKs and SYN, not htsim's 40 B and 1 B",
}


def window_line(chosen: str, incast: bool) -> str:
    """The [transport] window line (mapped: htsim's bytes); the permutation's adds sack = false,
    which the byte window needs (the incast's transport sets it already)."""
    line = WINDOWS["htsim_bytes" if chosen == "mapped" else chosen]
    if chosen != "segments" and not incast:
        line += '\nsack = false                         # TcpSrc: no SACK (RFC 3782 recovery); this run loses nothing'
    return line


def dctcp_lines(tie_order: str, host_order: str, mark_at: str, window: str = "mapped", sizes: str = "mapped") -> dict:
    """DCTCP_SCENARIO's chosen lines: tie order, host order (mapped: flow_rr), switch marking
    (mapped: at the end of service), window (mapped: htsim's bytes) and ACK and SYN sizes (mapped:
    htsim's 40 B and 1 B); the last two the permutation's (the incast's transport replaces them)."""
    return dict(tie_order=tie_line(tie_order), host_order=HOST_ORDERS["flow_rr" if host_order == "mapped" else host_order],
                marking=MARKINGS["end" if mark_at == "mapped" else mark_at], window=window_line(window, incast=False),
                sizes=SIZES["htsim" if sizes == "mapped" else sizes])


# ... which the copies print (htsim.py's print_path_choices): fabricsim pins each flow to it.
DCTCP_PATHS = ('paths = "flow"                       # ... printed by the copy (print_path_choices); each flow\'s path = '
               'htsim\'s choice (routeout at(choice), routein at(choice))')
OWN_DCTCP_PATHS = "# --own-paths: fabricsim's switches hash each flow onto a path of their own draw"


def pinned(k: int, pairs: list[tuple[int, int]], choices: dict, own_paths: bool) -> list[str]:
    """The `path = ...` line of each flow (src, dst): htsim's draw as fabricsim's path index, or
    nothing with `own_paths`."""
    if own_paths:
        return ["" for _ in pairs]
    missing = [p for p in pairs if p not in choices]
    if missing:
        raise SystemExit(f"htsim printed no path choice for {len(missing)} flows (e.g. {missing[0]}): is its build the edited copy?")
    return [f"path = {fat_tree_path_index(k, a, b, choices[a, b][0])}\n" for a, b in pairs]


def dctcp_permutation(h: Htsim, end: str, out: Path, strat: str, own_paths: bool = False, tie_order: str = "mapped",
                      host_order: str = "mapped", mark_at: str = "mapped", window: str = "mapped",
                      sizes: str = "mapped") -> Experiment:
    k, n = 12, 432
    exe = h.dctcp_permutation(experiments.seconds(end))

    def scenario(first: dict) -> Path:
        # The driver draws its permutation and paths from srand(time(NULL)): take the ones its
        # first run used.
        pairs = sorted(first["pairs"].values())
        toml = out / f"dctcp-permutation{'-own' if own_paths else ''}-{first['run']}.toml"
        flows = "".join(f'[[flows]]\nsrc = "h{a}"\ndst = "h{b}"\n{p}' for (a, b), p in zip(pairs, pinned(k, pairs, first["paths"], own_paths)))
        paths = OWN_DCTCP_PATHS if own_paths else DCTCP_PATHS
        text = DCTCP_SCENARIO.format(name="dctcp-permutation", commit=h.commit, end=end, k=k, paths=paths,
                                     **dctcp_lines(tie_order, host_order, mark_at, window, sizes))
        toml.write_text(text + flows)
        return toml

    return Experiment("dctcp-permutation", None, [str(exe), "-nodes", str(n), "-conns", str(n), "-q", "100", "-o", "log.dat"],
                      "TCP_SINK", experiments.seconds(end), False,
                      [f"B4's experiment: k = 12, 432 flows, {end} simulated; "
                       + ("fabricsim runs the permutation htsim's first run drew, on its own paths (--own-paths)" if own_paths else
                          "each fabricsim run takes the permutation and the paths htsim's run drew (paths = \"flow\", each "
                          "flow's path = htsim's choice)")],
                      after_htsim=scenario, fab_scale=9000 / 8948, each_run=not own_paths)


# htsim's DCTCP incast with a collateral flow (old_tests/main_dctcp_incast_collateral.cpp), as its
# own sim/EXAMPLES/collateral/run_dctcp_collateral.sh runs it: -nodes 432 -conns 64 -q 100.
INCAST_START_MS = 80.0  # tcpSrc->connect(..., timeFromMs(extrastarttime = 80))
INCAST_SENDERS = 64
INCAST_PACKETS = 51  # set_flowsize(50 * 9000): _flow_size = 450000 + mss; "finished" at the ACK of 459001
INCAST_LONG = (7, 1)  # long_src_no = 7, long_dest_no = 1 at 432 nodes
INCAST_TRANSPORT = """cc = "dctcp"                         # DCTCPSrc for the incast and the long flow
dctcp_g = 0.0625                     # DCTCPSrc::receivePacket: alfa = 15/16 alfa + 1/16 f
dctcp_initial_alpha = 0.0            # DCTCPSrc's constructor: _alfa = 0
# As DCTCP_SCENARIO's but without byte_cut: the byte window (window, below) makes the cut exact in
# its bytes; with --window segments, the cut alone exact and the rest in whole segments sends the
# incast's long flow into a long recovery (docs/VALIDATION.md).
cc_params = {{ window_cut = 1, ack_window = 1, cwr_on_ece = 0 }}
{window}
mss = "8948B"                        # Packet::set_packet_size(9000): 9000 B on the wire
header = "52B"
{sizes}
initial_cwnd = 10                    # TcpSrc: _cwnd = 10 * _mss
initial_ssthresh = 10                # tcpSrc->set_ssthresh(10 * data_packet_size())
min_rto = "250ms"                    # TcpSrc::receivePacket: _rto at least 0.25 s
initial_rto = "10ms"                 # tcpSrc->_rto = timeFromMs(10): the SYN's timer
rto_tick = "0.5ms"                   # TcpRtxTimerScanner(timeFromMs(0.5)): deadlines checked every 0.5 ms
delayed_ack = 1                      # TcpSink ACKs every packet
handshake = true                     # TcpSrc::send_packets sends a SYN first
sack = false                         # TcpSrc: NewReno-style fast recovery on 3 duplicate ACKs (RFC 3782), no SACK
rack = false
tlp = false
timestamps = true                    # TcpSink echoes each packet's timestamp; every ACK is an RTT sample
syn_timestamp = "zero"               # TcpPacket::new_syn_pkt sets no timestamp: the SYN-ACK's sample is its time since 0 (about 80 ms)
class = 1                            # TcpPacket::priority(): PRIO_LO at the host's FairPriorityQueue ...
ack_class = 0                        # ... TcpAck::priority(): PRIO_HI, ahead of the host's own data
"""


# htsim's packet beyond the flow: TcpSrc::send_packets sends while _highest_sent <= _flow_size + 1,
# so each incast flow sends a 52nd packet after the 51 whose ACK finishes it (sim/tcp.cpp). Mapped
# as a flow one segment longer whose last segment is not waited for ([transport] extra_segment);
# --extra-segment off: 51 segments, the mapping before.
EXTRA_SEGMENT = 'extra_segment = true                 # TcpSrc::send_packets: one packet beyond _flow_size, not waited for'

# htsim's SYN carries the timestamp of whatever packet it was allocated from: TcpPacket::new_syn_pkt
# (sim/tcppacket.h) never sets _ts and newpkt takes packets from a free list (_packetdb), so a SYN
# made from a freed data packet echoes that packet's send time. In this (seeded) run one SYN does:
# tcp_367's, the incast's first, made from a packet the long flow sent at 78,942.659 us, so its
# SYN-ACK samples 1,074.9 us instead of 80 ms (a scratch copy printing every SYN-ACK's echoed time;
# the other 63 echo 0: syn_timestamp = "zero"). Its RTO then stays at the 250 ms floor and it times
# out at 331.0 ms with the others' first wave (with "zero": RTO 280 ms, 361.5 ms). Mapped as its own
# profile whose SYN-ACK samples the SYN's round trip (a sample of under 1.1 ms gives the same floored
# RTO); --stale-syn off: every flow "zero", the mapping before.
STALE_SYN_SENDERS = (367,)
STALE_SYN_PROFILE = ('[transports.recycled_syn]                # tcp_367: its SYN echoes a recycled packet\'s send time\n'
                     'syn_timestamp = "sent"\n\n')


def dctcp_incast(h: Htsim, end: str, out: Path, strat: str, own_paths: bool = False, tie_order: str = "mapped",
                 host_order: str = "mapped", mark_at: str = "mapped", window: str = "mapped", extra_segment: str = "mapped",
                 stale_syn: str = "mapped") -> Experiment:
    k, n = 12, 432
    exe = h.old_driver("dctcp_incast_collateral", experiments.seconds(end))
    paths = OWN_DCTCP_PATHS if own_paths else DCTCP_PATHS
    text = DCTCP_SCENARIO.format(name="dctcp-incast", commit=h.commit, end=end, k=k, paths=paths,
                                 **dctcp_lines(tie_order, host_order, mark_at))
    text = text.replace("DCTCP permutation driver (sim/datacenter/old_tests/main_dctcp_permutation.cpp",
                        "DCTCP incast driver (sim/datacenter/old_tests/main_dctcp_incast_collateral.cpp")
    text = text.replace('sample_interval = "10ms"             # TcpSinkLoggerSampling(timeFromMs(10))',
                        'sample_interval = "1ms"              # TcpSinkLoggerSampling(timeFromMs(1))')
    extra = extra_segment != "off"
    transport = INCAST_TRANSPORT.format(window=window_line(window, incast=True) + ("\n" + EXTRA_SEGMENT if extra else ""),
                                        sizes=SIZES["htsim"])
    sent = INCAST_PACKETS + extra
    text = re.sub(r"\[transport\]\n.*?\n\[output\]", lambda _: "[transport]\n" + transport + "\n[output]", text, flags=re.S)
    # ConnectionMatrix::setIncast(conns, N - 1 - conns): hosts N-1-conns .. N-2 send to host 0.
    first = n - 1 - INCAST_SENDERS
    senders = list(range(first, first + INCAST_SENDERS))

    def scenario(htsim_run: dict) -> Path:
        # The driver's draw (srand(13): the same in every run), printed by its copy; the long flow
        # takes the first path of each direction (srcpaths->at(0), dstpaths->at(0)).
        choices = {**htsim_run["paths"], INCAST_LONG: (0, 0)}
        pairs = [(s, 0) for s in senders] + [INCAST_LONG]
        lines = pinned(k, pairs, choices, own_paths)
        stale = STALE_SYN_SENDERS if stale_syn != "off" else ()
        flows = STALE_SYN_PROFILE if stale else ""
        flows += "".join(f'[[flows]]\nsrc = "h{s}"\ndst = "h0"\nsize = "{sent * 8948}B"\nstart = "{INCAST_START_MS:g}ms"\n{p}'
                         + ('transport = "recycled_syn"\n' if s in stale else "") for s, p in zip(senders, lines))
        flows += f'[[flows]]\nsrc = "h{INCAST_LONG[0]}"\ndst = "h{INCAST_LONG[1]}"\n{lines[-1]}'  # the collateral long flow, from 0
        toml = out / f"dctcp-incast{'-own' if own_paths else ''}.toml"
        toml.write_text(text + flows)
        return toml

    argv = [str(exe), "-nodes", str(n), "-conns", str(INCAST_SENDERS), "-q", "100", "-o", "log.dat"]
    t0, t1 = INCAST_START_MS / 1e3, INCAST_START_MS / 1e3 + 0.01
    return Experiment("dctcp-incast", None, argv, "TCP_SINK", experiments.seconds(end), True,
                      [f"htsim's sim/EXAMPLES/collateral run: k = 12, {INCAST_SENDERS} x {INCAST_PACKETS} packets -> h0 at "
                       f"{INCAST_START_MS:g} ms, a long flow h7 -> h1 from 0; {end} simulated; "
                       + paths_note(own_paths, "htsim's paths (paths = \"flow\", each flow's path = htsim's choice)")],
                      after_htsim=scenario, fab_scale=9000 / 8948, rows=incast_rows, at_times=[t0, t1])


def incast_rows(hd: dict, fd: dict) -> list:
    """The incast's FCTs (from its start, the handshake included), how many finished before the
    first timeout could fire, timeouts, and the long flow's goodput before and during the incast."""
    start_us = INCAST_START_MS * 1e3
    hf = [t * 1e3 - start_us for name, t in hd["tcp_finished"].items() if not name.startswith("long")]
    ff = [t for t, d in zip(fd["fct_by_flow_us"], fd["dst"]) if d == "h0" and t is not None]
    rows = fct_rows(hf, ff)
    rto_us = 250e3
    rows += [("flows finished before the 250 ms min RTO", float(sum(t < rto_us for t in hf)), float(sum(t < rto_us for t in ff))),
             ("flows finished before 2 x 250 ms", float(sum(t < 2 * rto_us for t in hf)), float(sum(t < 2 * rto_us for t in ff))),
             ("timeouts (all flows)", float(hd["timeouts"]), fd["timeouts"])]
    t0, t1 = INCAST_START_MS / 1e3, INCAST_START_MS / 1e3 + 0.01
    long_h = {t: b for t, b in hd["long"]}
    long_id = len(fd["dst"]) - 1
    f0, f1 = (fd["acked_at_times"][repr(x)][str(long_id)] * 9000 / 8948 for x in (t0, t1))
    h0, h1 = (long_h.get(round(x, 6), float("nan")) for x in (t0, t1))
    rows += [("long flow goodput, 0 to 80 ms (Gb/s)", gbps(h0, t0), gbps(f0, t0)),
             ("long flow goodput, 80 to 90 ms (Gb/s)", gbps(h1 - h0, t1 - t0), gbps(f1 - f0, t1 - t0)),
             ("retransmissions", None, fd["retransmits"]), ("ECN marks", None, fd["marks"]), ("drops", None, fd["drops"])]
    return rows


# htsim's Swift driver (sim/datacenter/main_swift.cpp) and Swift (sim/swift.cpp, SwiftSrc and
# SwiftSubflowSrc), mapped onto fabricsim's `cc = "swift"` (transport/tcp/cc/swift.rs).
SWIFT_MTU = 4000  # -mtu default: Packet::set_packet_size(4000); htsim's sequence numbers count these whole
SWIFT_Q = 500  # -q, packets: large enough that no queue reaches RandomQueue's drop band (see the header)
SWIFT_SCENARIO = """name = "{name}"
description = "htsim's Swift driver (sim/datacenter/main_swift.cpp, csg-htsim {commit}) mapped key by key; benches/validation/htsim_validate.py"

[simulation]
end = "{end}"                        # -end (us)
seed = 1                             # htsim: srand(13); its path draw differs anyway

[topology]
kind = "fat_tree"                    # FatTreeTopology(no_of_nodes, linkspeed, queuesize, .., RANDOM, SWIFT_SCHEDULER, 0)
k = {k}                              # -nodes N = k^3/4
link = {{ rate = "100Gbps", delay = "1us" }}   # linkspeed = HOST_NIC (main.h: 100000 Mb/s); that constructor: 1 us per link, 0 switching

[queue]
# RANDOM -> RandomQueue(speed, -q x 4000 B, .., memFromPkt(RANDOM_BUFFER = 3)): an arrival is dropped
# when the queue, the packet being serialized included, would exceed -q x 4000 B, and with
# probability 0.1 when it would exceed that less 3 packets (RandomQueue::receivePacket). fabricsim
# counts waiting packets only: -q x 4000 B is (q - 1) x 4000 B here (as the NDP mapping), the
# band's threshold (q - 3) x 4000 B is (q - 4) x 4000 B.
buffer = "{buffer}B"
random_drop = {{ above = "{band}B", probability = 0.1 }}

[host_queue]
# SWIFT_SCHEDULER -> FairScheduler at each host (sim/swift_scheduler.cpp): a queue per flow id,
# served round robin a packet at a time (FairScheduler::next_packet); the receiver's ACKs carry the
# flow id of the data they acknowledge (SwiftSubflowSink::send_ack: the source's PacketFlow), so an
# ACK waits behind at most one packet of the host's own flow, not its backlog. One queue, flows in
# turn: fabricsim's ACKs carry their connection's flow id too (transport/tcp/receiver.rs,
# Receiver::send_ack_at), so an ACK takes its flow's turn.
queues = 1
order = "flow_rr"                    # FairScheduler::next_packet: the oldest packet of the next flow after the last served
# SwiftSubflowSrc::send_next_packet hands the scheduler a packet only while the flow has at most 2
# there, the one being serialized included (src_queuesize > 2 defers; completeService decrements):
# 2 waiting (fabricsim counts the waiting packets, the host's ACKs among them; htsim only the flow's own).
send_limit = "2pkt"

[routing]
{routing}

[transport]
cc = "swift"
mss = "{mss}B"                       # 4000 B packets on the wire (htsim counts them whole as payload) ...
header = "52B"                       # ... = mss + header here; goodput is scaled to htsim's unit
ack_size = "40B"                     # SwiftAck::ACKSIZE
initial_cwnd = 15                    # -cwnd 15 (set_cwnd(cwnd * data_packet_size())); no slow start
handshake = false                    # SwiftSrc::startflow sets _established and sends data at once
delayed_ack = 1                      # SwiftSubflowSink::receivePacket ACKs every packet
timestamps = true                    # every ACK echoes its packet's time: delay = now - ts_echo
sack = false                         # SwiftSubflowSrc::handle_ack: NewReno-style fast recovery on 3 duplicate ACKs
rack = false
tlp = false
min_rto = "100us"                    # SwiftSubflowSrc: _min_rto = 100 us ...
initial_rto = "1ms"                  # ... _rto = 1 ms before a sample (checked every 10 ms by SwiftRtxTimerScanner)
# SwiftSrc's constructor: _base_delay 20 us, _h = _base_delay / 6.55 per hop, _fs_range = 5 x
# _base_delay, _fs_min_cwnd 0.1, _fs_max_cwnd 100, _ai 1, _beta 0.8, _max_mdf 0.5. The hop term is
# route.hop_count() x _h, and the route SwiftSubflowSrc::connect keeps is routeout.clone(), which
# Route::clone builds with Route(int size): hop count 0 (the reserve size takes the count). So
# htsim's target has no hop term: hop_scale_us = 0. SwiftSrc::targetDelay's flow term divides the
# window in bytes by _mss as integers (uint32_t / uint16_t): whole packets, fs_whole_packets = 1.
# SwiftSubflowSrc::adjust_cwnd allows a decrease one smoothed _rtt (read before this ACK's sample)
# after the last: decrease_srtt = 1.
cc_params = {{ base_target_us = 20, hop_scale_us = 0, fs_range_us = 100, fs_min_cwnd = 0.1, fs_max_cwnd = 100, ai = 1, beta = 0.8, max_mdf = 0.5, fs_whole_packets = 1, decrease_srtt = 1 }}

[output]
sample_interval = "{sample_us}us"         # -tsample (SwiftSinkLoggerSampling): goodput read at the same time
flows = "all"

"""
SWIFT_SAMPLE_US = 100
# main_swift.cpp draws choice = rand() % paths and gives the sink's ACKs routein = the reverse path
# at(choice); SwiftSrc::set_paths then shuffles the flow's paths (random()) and reroutes the data onto
# the shuffled list's first. Timeouts keep the path (SwiftSubflowSrc::move_path runs only under -plb,
# which the runs do not pass). The copy prints both (htsim.py's print_swift_paths): each flow's
# path and return_path.
SWIFT_PATHS = ('paths = "flow"                       # each flow: path = the data\'s (set_paths\' shuffled first), '
               'return_path = the ACKs\' (at(choice)), printed by the copy (print_swift_paths)')
OWN_SWIFT_PATHS = 'ecmp = "flow_hash"                   # --own-paths: one path per flow and direction, fabricsim\'s own draw'


def swift_pins(k: int, pairs: list[tuple[int, int]], draws: dict) -> list[str]:
    """The `path` and `return_path` lines of each flow (src, dst): htsim's two draws (htsim.py's
    swift_path_choices) as fabricsim's path indices."""
    missing = [p for p in pairs if p not in draws]
    if missing:
        raise SystemExit(f"htsim printed no Swift paths for {len(missing)} flows (e.g. {missing[0]}): is its build the edited copy? "
                         "(a copy edited before print_swift_paths: delete its sim/datacenter/main_swift.cpp and copy it again from the checkout)")
    return [f"path = {fat_tree_path_index(k, a, b, draws[a, b][0])}\nreturn_path = {fat_tree_path_index(k, b, a, draws[a, b][1])}\n"
            for a, b in pairs]


def swift_experiment(h: Htsim, name: str, k: int, pairs: list[tuple[int, int]], end: str, out: Path, packets: int | None,
                     q: int, notes: list[str], own_paths: bool = False) -> Experiment:
    """One Swift experiment: `pairs` (src, dst) from time 0, each `packets` long (None: long-lived);
    each fabricsim run on the paths its htsim run drew, or on its own draw (`own_paths`)."""
    n = k**3 // 4
    cm = out / f"{name}.cm"
    cm.write_text(connection_matrix(n, pairs))  # main_swift reads only its pairs and start times (us)
    mss = SWIFT_MTU - 52
    text = SWIFT_SCENARIO.format(name=name, commit=h.commit, end=end, k=k, buffer=(q - 1) * SWIFT_MTU, band=max(q - 4, 0) * SWIFT_MTU, mss=mss,
                                 sample_us=SWIFT_SAMPLE_US, routing=OWN_SWIFT_PATHS if own_paths else SWIFT_PATHS)
    size = f'size = "{packets * mss}B"\n' if packets else ""

    def scenario(run: dict | None) -> Path:
        pins = [""] * len(pairs) if run is None else swift_pins(k, pairs, run["swift_paths"])
        toml = out / (f"{name}.toml" if run is None else f"{name}-{run['run']}.toml")
        toml.write_text(text + "".join(f'[[flows]]\nsrc = "h{a}"\ndst = "h{b}"\n{size}{p}' for (a, b), p in zip(pairs, pins)))
        return toml
    argv = [str(h.driver("htsim_swift")), "-nodes", str(n), "-conns", str(len(pairs)), "-tm", str(cm.resolve()), "-q", str(q),
            "-cwnd", "15", "-mtu", str(SWIFT_MTU), "-linkspeed", "100000", "-end", str(round(experiments.seconds(end) * 1e6)),
            "-tsample", str(SWIFT_SAMPLE_US), "-o", "log.dat"]
    if packets:
        # SwiftSrc::set_flowsize(F) makes the flow F + one mss: -flowsize P sends P + 1 packets.
        argv += ["-flowsize", str(packets - 1)]
    notes = notes + [paths_note(own_paths, "htsim's paths, each direction its own (paths = \"flow\", path and return_path = htsim's draws)")]
    return Experiment(name, scenario(None) if own_paths else None, argv, "SWIFT_SINK", experiments.seconds(end), packets is not None, notes,
                      after_htsim=scenario, fab_scale=SWIFT_MTU / mss, line_gbps=100.0, each_run=not own_paths)


def swift_permutation(h: Htsim, end: str, out: Path, strat: str, q: int = SWIFT_Q, own_paths: bool = False) -> Experiment:
    k = 8  # main_swift's DEFAULT_NODES, 128
    return swift_experiment(h, "swift-permutation", k, experiments.ndp_pairs(k), end, out, None, q,
                            [f"k = 8 (128 hosts, 100 Gb/s), a permutation of long flows, {end} simulated, -q {q}"], own_paths)


def swift_incast(h: Htsim, end: str, out: Path, strat: str, q: int = SWIFT_Q, own_paths: bool = False) -> Experiment:
    # htsim's own connection_matrices/incast.cm: 16 nodes (k = 4), nodes 0-14 -> node 15, 500 packets (2 MB) each.
    cm = (h.sim / "datacenter" / "connection_matrices" / "incast.cm").read_text()
    pairs = [(int(a), int(b)) for a, b in re.findall(r"^(\d+)->(\d+)", cm, flags=re.M)]
    return swift_experiment(h, "swift-incast", 4, pairs, end, out, 500, q,
                            [f"htsim's connection_matrices/incast.cm: k = 4, 15 x 500 packets (2 MB) -> h15, 100 Gb/s, {end} simulated, -q {q}"],
                            own_paths)


# htsim's HPCC driver (sim/datacenter/main_hpcc.cpp, HPCC in sim/hpcc.cpp) onto fabricsim's
# cc = "hpcc" (transport/tcp/cc/hpcc.rs), its PFC onto fabricsim's [pfc] (switch/pfc.rs).
HPCC_MTU = 9000  # -mtu default (payload); HPCCPacket adds ACKSIZE = 64 B on the wire
HPCC_SCENARIO = """name = "{name}"
description = "htsim's HPCC driver (sim/datacenter/main_hpcc.cpp, csg-htsim {commit}) mapped key by key; benches/validation/htsim_validate.py"

[simulation]
end = "{end}"                        # -end (us)
seed = 1                             # htsim: each HPCCSrc reseeds srand() for its path id (time(NULL); its copy: $HTSIM_SEED)
{hpcc_tie_order}
[topology]
kind = "fat_tree"                    # FatTreeTopology(no_of_nodes, linkspeed, queuesize, .., LOSSLESS_INPUT, hop_latency, switch_latency, FAIR_PRIO)
k = {k}                              # -nodes N = k^3/4
link = {{ rate = "100Gbps", delay = "1us" }}   # HOST_NIC 100 Gb/s; -hop_latency 1, -switch_latency 0 (defaults)

[queue]
# LOSSLESS_INPUT: LosslessOutputQueue egress queues never drop (-q only sets when they print
# "LOSSLESS not working"): unlimited buffers, which [pfc] requires.
buffer = "unlimited"

[pfc]
# LosslessInputQueue at every switch ingress (the hosts' ingress has none): receivePacket adds
# pkt.size() (9000 B of payload + 64 B, as fabricsim's packets) and sends a pause upstream when the
# sum exceeds _high_threshold = HIGH x Packet::data_packet_size() (9000 B); completedService (the
# egress's completeService, the last bit out) subtracts it and resumes below _low_threshold =
# LOW x 9000 B. -pfc_thresholds {pfc_low} {pfc_high}{pfc_note}. The pause reaches the upstream
# after the hop latency (CallbackPipe, no serialization), as in fabricsim. The build copy prints
# every pause (benches/htsim/htsim.py), compared with the ports' pfc_pauses.
xoff = "{xoff}B"
xon = "{xon}B"
{stop_senders}

[host_queue]
# FAIR_PRIO: a FairPriorityQueue per host (ACKs, PRIO_HI, ahead of data, PRIO_LO), fed by
# HPCCSrc::doNextEvent: a timer every _packet_spacing = T x (9000 + 64 B) / W hands it one packet
# while _cwnd >= _flightsize + _mss (send_timing = "tick" in [transport]), whatever the queue
# holds (its 9 MB maxsize only prints "Host Queue size"); a pause that reaches it is forwarded
# to its sources (FairPriorityQueue::receivePacket -> HPCCSrc::processPause), which stop their
# timer until the resume ([pfc] stop_senders above; with --hpcc-pause-hosts limit, a one-packet
# send limit stands for the stop): doNextEvent returns at its first firing in the pause without
# firing again, and processPause fires it at once at the resume, a tick if a period has passed
# since the last (send_timing = "tick" restarts the timer so for a sender the pause blocked).
{host_queue}

[routing]
{routing}

[transport]
cc = "hpcc"
{classes}mss = "{mss}B"                       # Packet::data_packet_size() = -mtu 9000 of payload ...
header = "64B"                       # ... + HPCCPacket::ACKSIZE on the wire
ack_size = "64B"                     # HPCCAck: ACKSIZE
handshake = false                    # HPCCSrc::startflow sends at once
delayed_ack = 1                      # HPCCSink::receivePacket ACKs every packet
# HPCCSrc: _T = 12 us (a global T; W_init = T x linkspeed = 150 KB), _eta 0.95, _max_stages 5,
# _Wai = _mss (one packet per step, not W_init(1 - eta)/N: {w_ai} B, in the units of W below).
# HPCCSrc never bounds W (fabricsim's default bound is W_init), but its run ends when W passes
# {w_limit:.0f} B = 9064 B x T in ps: the timer's period, T x 9064 B / W truncated to picoseconds, is
# then 0 and doNextEvent's assert(next_send > now) fails; w_max_bytes = that W, which no htsim run
# that finishes reaches (fabricsim's window would otherwise grow on, into memory). Where sim/hpcc.cpp departs from
# HPCC's Algorithm 1 (docs/CONGESTION_CONTROL.md "HPCC"; --hpcc-algorithm1 leaves these out):
#   reference_update = "per_ack"    processAck: _cwnd = computeWind(..) on every ACK, and computeWind
#                                   reads _cwnd as W_c
#   int_reference = "first"         measureInFlight: _link_info is set only when the hop count changes
#   tau_ratio = "integer"           measureInFlight: tau/_T, two simtime_picosec: 0 below T, 1 from T
#   u_init = 0.95                   HPCCSrc(): _U = _eta
#   unmeasured_ack = "update"       processAck runs computeWind on the first ACK too (_last_update_seq
#                                   starts at 0)
#   int_queue = "with_packet"       LosslessOutputQueue::completeService records _queuesize before the
#                                   leaving packet is taken off it
#   int_hops = "switches"           the host queue (FairPriorityQueue) records no INT
#   window_rounding = "sequence"    doNextEvent sends only if _cwnd >= _flightsize + _mss, and
#                                   send_packet adds _mss to _flightsize: W holds floor(W / 9000 B)
#                                   packets of payload (the timer's period counts 9064 B on the
#                                   wire); _cwnd is an HPCCPacket::seq_t, so computeWind truncates
#                                   every W to whole bytes
# and where its switches record INT (the HPCC option that the data packets carry to them):
#   int_record = "end"              LosslessOutputQueue::completeService, as the last bit leaves:
#                                   _ts = now, _queuesize with what arrived during the
#                                   serialization, _txbytes before the packet
# and when its source sends:
#   send_timing = "tick"            doNextEvent, the source's only sender: it fires at startflow
#                                   and then every _packet_spacing, which processAck recomputes on
#                                   every ACK as (9000 + 64 B) x 8e12 / _pacing_rate, _pacing_rate
#                                   = _cwnd x 8e12 / _T (each truncated); at a firing at least one
#                                   period after the last tick (or before any) it sends one packet
#                                   if _cwnd >= _flightsize + _mss and takes the tick, sent or not;
#                                   processAck never sends, so a packet the window allows waits
#                                   for the next tick
# and how it computes each hop's u:
#   u_arithmetic = "htsim"          measureInFlight: txRate = (txbytes - L.txbytes) x 8 x 10^12 /
#                                   (ts - L.ts) in integer picoseconds, u' = min(q, L.q) x 8 x
#                                   10^12 / (linkrate x _T) + txRate / linkrate: exact for whole
#                                   packets at line rate, so hops at one rate tie and the first
#                                   (u' > u is strict) keeps tau
cc_params = {{ eta = 0.95, max_stage = 5, t_us = 12, w_ai_bytes = {w_ai}, w_max_bytes = {w_limit:.0f}{htsim_rules} }}

[output]
sample_interval = "100us"            # -logtime 0.1 (HPCCSinkLoggerSampling)
flows = "all"

"""


# The htsim departures from Algorithm 1 that the mapping follows (HPCC_SCENARIO's comments say where
# each is in sim/hpcc.cpp); --hpcc-algorithm1 runs fabricsim without them.
HPCC_HTSIM_RULES = ('reference_update = "per_ack", int_reference = "first", tau_ratio = "integer", u_init = 0.95, '
                    'unmeasured_ack = "update", int_queue = "with_packet", int_hops = "switches", window_rounding = "sequence", '
                    'int_record = "end", send_timing = "tick", u_arithmetic = "htsim"')
HPCC_DRIVER_PFC = (12, 15)  # main_hpcc.cpp's low_pfc, high_pfc (packets of 9000 B)
# The largest W an htsim HPCC run survives: beyond it HPCCSrc's period, (9000 + 64) B x T / W in
# whole picoseconds (T = 12 us), is 0 and doNextEvent's assertion ends the run (its draw 18 at its
# own PFC thresholds ends so: docs/VALIDATION.md).
HPCC_W_LIMIT = (HPCC_MTU + 64) * 12_000_000
# -strat ecmp_host: each switch hashes the flow id with the flow's random path id (its ACKs: 0),
# printed by the copy (htsim.py's print_hpcc_hops) and pinned, or fabricsim's own hash (--own-paths).
HPCC_PATHS = ('ecmp = "flow_hash"\npaths = "flow"                       # -strat ecmp_host -paths 256: each flow: path = the switches\' '
              'choices for its data, return_path = for its ACKs, printed by the copy (print_hpcc_hops)')
# The host queue where no pause can occur: unbounded, ACKs first, filled at the source's pace
# whatever it holds. A source whose W explodes (htsim's draws 13, 14, 18: 100-180 MB) puts the
# window into it at once, which drains at line rate for the rest of the run and starves the flows
# that share its uplink (the permutation's slowest flows near 3 Gb/s; docs/VALIDATION.md).
HPCC_HOST_QUEUE = ('queues = 2                           # ACKs (ack_class = 0 below) ahead of data\nclasses = [0, 1]\n'
                   'send_limit = "unlimited"             # the source never waits for its NIC',
                   'class = 1                            # HPCCPacket::priority(): PRIO_LO at the host queue ...\n'
                   'ack_class = 0                        # ... HPCCAck::priority(): PRIO_HI, ahead of the host\'s own data\n')
# The sources' stop at a pause, mapped as it is: HPCCSrc::processPause sets _state_send = PAUSED, so
# doNextEvent returns at its next firing without handing the host queue anything and without firing
# again, until the resume fires it at once (sim/hpcc.cpp, HPCCSrc::processPause: sourceIsPendingRel(0);
# fabricsim's send_timing = "tick" restarts the timer at the resume that wakes a sender the pause
# blocked, cc/send_tick.rs). With the host queue unlimited and sources that did not stop, a
# paused NIC filled with the window and sent it back to back at the resume (2,051 pauses instead of
# 500 on the permutation's first draw).
HPCC_STOP_SENDERS = ('stop_senders = true                  # FairPriorityQueue::receivePacket forwards a pause to the host\'s '
                     'sources, HPCCSrc::processPause stops them until the resume')
# The stop as a send limit of one packet (--hpcc-pause-hosts limit: the mapping before), and on
# fabricsim's own draws (--own-paths), whose windows ran away further (up to 6e12 B) and outgrew 6 GB
# of memory before 1 ms with unlimited NICs.
HPCC_SEND_LIMIT = ('send_limit = "1pkt"                  # a source hands its NIC one packet at a time, as at a pause', '')
OWN_HPCC_PATHS = 'ecmp = "flow_hash"                   # --own-paths: one path per flow and direction, fabricsim\'s own hash'


def hpcc_pfc_thresholds(pairs: list[tuple[int, int]], size: int | None, end: str, pfc: str) -> tuple[int, int]:
    """-pfc_thresholds LOW HIGH: the driver's own, or HIGH above every byte the flows can send (so
    no ingress can hold that many: a pause is impossible); long-lived flows at most 100 Gb/s each
    for the run."""
    if pfc == "driver":
        return HPCC_DRIVER_PFC
    # HPCCSrc sends whole packets: ceil(size / mss) of them.
    per_flow = -(-size // HPCC_MTU) if size is not None else int(100e9 / 8 * experiments.seconds(end) // HPCC_MTU)
    high = len(pairs) * per_flow + 2
    return high - 1, high


def hpcc_pins(k: int, pairs: list[tuple[int, int]], hops: dict) -> list[str]:
    """The `path` and `return_path` lines of each flow (the connection matrix's id i + 1 for
    pairs[i]): htsim's switch choices (htsim.py's hpcc_hop_choices) as fabricsim's path indices.
    A flow between two pods has both switches' choices in each direction, one within a pod its edge
    switch's, one under one edge switch none."""
    half = k // 2
    # The choices a direction from a to b must show: an edge switch's unless under one, an aggregation's between pods.
    need = lambda a, b: (a // half != b // half) + (a // (half * half) != b // (half * half))
    missing = [(a, b) for i, (a, b) in enumerate(pairs)
               if len(hops.get((i + 1, "data"), {})) != need(a, b) or len(hops.get((i + 1, "ack"), {})) != need(b, a)]
    if missing:
        raise SystemExit(f"htsim printed no HPCC paths for {len(missing)} flows (e.g. {missing[0]}): is its build the edited copy? "
                         "(a copy edited before print_hpcc_hops: delete its sim/datacenter/fat_tree_switch.cpp and copy it again from the checkout)")
    return [f"path = {hpcc_path_index(k, hops.get((i + 1, 'data'), {}))}\nreturn_path = {hpcc_path_index(k, hops.get((i + 1, 'ack'), {}))}\n"
            for i in range(len(pairs))]


def hpcc_experiment(h: Htsim, name: str, k: int, pairs: list[tuple[int, int]], size: int | None, end: str, out: Path,
                    notes: list[str], pfc: str = "raised", rules: bool = True, int_record: str = "end", send_timing: str = "tick",
                    pause_hosts: str = "stop", window: str = "sequence", tie_order: str = "scheduled_switch", own_paths: bool = False,
                    u_arithmetic: str = "htsim") -> Experiment:
    n = k**3 // 4
    cm = out / f"{name}.cm"
    cm.write_text(connection_matrix(n, pairs, size=size))
    low, high = hpcc_pfc_thresholds(pairs, size, end, pfc)
    pfc_note = " (the driver's own)" if pfc == "driver" else ": HIGH x 9000 B is more than all the flows' bytes, so no pause can occur"
    # The one-packet limit stood for htsim's sources' stop at a pause: only where pauses occur
    # (--hpcc-pause-hosts limit with the driver's thresholds) and on fabricsim's own draw.
    host = HPCC_SEND_LIMIT if (pause_hosts == "limit" and pfc == "driver") or own_paths else HPCC_HOST_QUEUE
    # W_AI is one packet: its payload where W counts sequence bytes (window_rounding = "sequence"),
    # its wire bytes otherwise (--hpcc-window wire: window_rounding = "down", the mapping before).
    sequence = rules and window == "sequence"
    text = HPCC_SCENARIO.format(name=name, commit=h.commit, end=end, k=k, mss=HPCC_MTU, w_ai=HPCC_MTU if sequence else HPCC_MTU + 64, w_limit=HPCC_W_LIMIT,
                                # htsim's order of same-picosecond events (TIE_ORDERS; the start-up ties that part the
                                # permutation's windows, docs/VALIDATION.md); --hpcc-tie-order own: fabricsim's.
                                hpcc_tie_order="" if tie_order == "own" else TIE_ORDERS[tie_order] + "\n",
                                pfc_low=low, pfc_high=high,
                                pfc_note=pfc_note, xoff=high * HPCC_MTU, xon=low * HPCC_MTU,
                                stop_senders=HPCC_STOP_SENDERS if host is HPCC_HOST_QUEUE else "", routing=OWN_HPCC_PATHS if own_paths else HPCC_PATHS,
                                host_queue=host[0], classes=host[1],
                                htsim_rules=", " + HPCC_HTSIM_RULES.replace('int_record = "end"', f'int_record = "{int_record}"')
                                .replace('send_timing = "tick"', f'send_timing = "{send_timing}"')
                                .replace('window_rounding = "sequence"', 'window_rounding = "sequence"' if sequence else 'window_rounding = "down"')
                                .replace('u_arithmetic = "htsim"', f'u_arithmetic = "{u_arithmetic}"')
                                if rules else "")
    # HPCCSrc sends whole packets: ceil(size / mss).
    sized = f'size = "{-(-size // HPCC_MTU) * HPCC_MTU}B"\n' if size is not None else ""

    def scenario(run: dict | None) -> Path:
        pins = [""] * len(pairs) if run is None else hpcc_pins(k, pairs, run["hpcc_hops"])
        toml = out / (f"{name}.toml" if run is None else f"{name}-{run['run']}.toml")
        toml.write_text(text + "".join(f'[[flows]]\nsrc = "h{a}"\ndst = "h{b}"\n{sized}{p}' for (a, b), p in zip(pairs, pins)))
        return toml
    argv = [str(h.driver("htsim_hpcc")), "-nodes", str(n), "-tm", str(cm.resolve()), "-strat", "ecmp_host", "-paths", "256",
            "-pfc_thresholds", str(low), str(high),
            "-end", str(round(experiments.seconds(end) * 1e6)), "-log", "sink", "-logtime", "0.1", "-o", "log.dat"]
    notes = notes + [f"htsim -pfc_thresholds {low} {high}" + (" (the driver's own)" if pfc == "driver" else " (above all the flows' bytes)")
                     + ("" if rules else "; fabricsim without htsim's HPCC rules (--hpcc-algorithm1)")
                     + ("; fabricsim's INT recorded as a packet starts (--hpcc-int-record start)" if rules and int_record == "start" else "")
                     + ("; fabricsim's sources send as the window allows, not on htsim's timer (--hpcc-send-timing window)"
                        if rules and send_timing == "window" else "")
                     + ("; fabricsim's W in wire bytes, not htsim's whole payload bytes (--hpcc-window wire)" if rules and not sequence else "")
                     + ("; fabricsim's u in bytes over seconds, not htsim's arithmetic (--hpcc-u-arithmetic seconds)"
                        if rules and u_arithmetic == "seconds" else "")
                     + ("; fabricsim's own tie order, not htsim's (--hpcc-tie-order own)" if tie_order == "own" else "")
                     + ("; fabricsim's tie order without htsim's switch pipes (--hpcc-tie-order scheduled_pipe)"
                        if tie_order == "scheduled_pipe" else "")
                     + ("; fabricsim's host NICs: unlimited, ACKs first, a pause stops their sources (htsim's host queue)"
                        if host is HPCC_HOST_QUEUE
                        else "; fabricsim's host NICs: a one-packet send limit"),
                     paths_note(own_paths, "htsim's paths, each direction its own (paths = \"flow\", path and return_path = its switches' choices)")]
    return Experiment(name, scenario(None) if own_paths else None, argv, "HPCC_SINK", experiments.seconds(end), size is not None, notes,
                      after_htsim=scenario, line_gbps=100.0, each_run=not own_paths)


def hpcc_incast(h: Htsim, end: str, out: Path, strat: str, senders: int = 4, size: int = 100_000,
                name: str = "hpcc-incast", **hpcc) -> Experiment:
    # h0..h{senders-1} -> h15 at k = 4. Without a pause in htsim even at its own thresholds:
    # 4 x 100 KB (8 x 100 KB pauses), 2 x 500 KB (3 x 500 KB pauses).
    pairs = [(i, 15) for i in range(senders)]
    return hpcc_experiment(h, name, 4, pairs, size, end, out,
                           [f"k = 4, {senders} x {size // 1000} KB -> h15, 100 Gb/s, {end} simulated"], **hpcc)


def hpcc_incast2(h: Htsim, end: str, out: Path, strat: str, **hpcc) -> Experiment:
    return hpcc_incast(h, end, out, strat, senders=2, size=500_000, name="hpcc-incast2", **hpcc)


def hpcc_flow(h: Htsim, end: str, out: Path, strat: str, **hpcc) -> Experiment:
    return hpcc_experiment(h, "hpcc-flow", 4, [(0, 15)], 20_000_000, end, out,
                           [f"k = 4, one 20 MB flow h0 -> h15 across the core, 100 Gb/s, {end} simulated"], **hpcc)


def hpcc_incast15(h: Htsim, end: str, out: Path, strat: str, **hpcc) -> Experiment:
    # htsim's own connection_matrices/incast.cm (nodes 0-14 -> 15, 2 MB each).
    return hpcc_experiment(h, "hpcc-incast15", 4, [(i, 15) for i in range(15)], 2_000_000, end, out,
                           [f"htsim's incast.cm: k = 4, 15 x 2 MB -> h15, 100 Gb/s, {end} simulated"], **hpcc)


def hpcc_permutation(h: Htsim, end: str, out: Path, strat: str, **hpcc) -> Experiment:
    # B4's derangement at k = 8 (as the Swift permutation), long-lived flows.
    return hpcc_experiment(h, "hpcc-permutation", 8, experiments.ndp_pairs(8), None, end, out,
                           [f"k = 8 (128 hosts, 100 Gb/s), a permutation of long flows, {end} simulated"], **hpcc)


EXPERIMENTS = {"ndp-permutation": ndp_permutation, "ndp-incast": ndp_incast, "dctcp-permutation": dctcp_permutation,
               "dctcp-incast": dctcp_incast, "swift-permutation": swift_permutation, "swift-incast": swift_incast,
               "hpcc-flow": hpcc_flow, "hpcc-incast": hpcc_incast, "hpcc-incast2": hpcc_incast2,
               "hpcc-incast15": hpcc_incast15, "hpcc-permutation": hpcc_permutation}
# Long enough for the incast's 30 MB to cross one 10 Gb/s link (24 ms) and for the DCTCP driver's
# sinks, which log every 10 ms, to log twice.
# The DCTCP incast: until its last flows, stalled by timeouts, finish (htsim: about 1.09 s).
DEFAULT_END = {"ndp-permutation": "20ms", "ndp-incast": "40ms", "dctcp-permutation": "30ms", "dctcp-incast": "1200ms",
               "swift-permutation": "5ms", "swift-incast": "5ms", "hpcc-flow": "3ms", "hpcc-incast": "1ms", "hpcc-incast2": "1ms",
               "hpcc-incast15": "6ms", "hpcc-permutation": "3ms"}


def run_htsim(h: Htsim, e: Experiment, work: Path) -> tuple[timing.Run, dict]:
    work.mkdir(parents=True, exist_ok=True)
    r = timing.run_timed(e.argv, cwd=work)
    if r.returncode != 0:
        raise SystemExit(f"htsim failed ({' '.join(e.argv)}):\n{r.stdout[-1500:]}\n{r.stderr[-1000:]}")
    log = work / "log.dat"
    return r, htsim_figures(e.sink, r.stdout, h.ascii_log(log, keep=e.sink), log_preamble(log))



def htsim_figures(sink: str, stdout: str, ascii_log: str, log: bytes | str) -> dict:
    """What an htsim driver reported: per sink, its bytes at the last sink sample and its
    (source, destination); finished flows' FCTs; htsim_ndp's closing totals."""
    samples = sink_samples(ascii_log, sink)
    names = logged_names(log)
    t_last = max(s[-1][0] for s in samples.values()) if samples else float("nan")
    done = finished_flows(stdout)
    out = {"t_last": t_last, "bytes": {names.get(i, str(i)): s[-1][1] for i, s in samples.items()},
           "pairs": {names[i]: sink_pair(names[i]) for i in samples if i in names},
           "fct_us": [t for t, _ in done.values()]}
    if sink == "NDP_SINK":
        out.update(ndp_totals(stdout))
    elif sink == "HPCC_SINK":
        out.update(finished_bytes=sum(b for _, b in done.values()), pauses=pfc_pauses(stdout), host_backlog=host_queue_peak(stdout),
                   hpcc_hops=hpcc_hop_choices(stdout))
    elif sink == "SWIFT_SINK":
        out.update(finished_bytes=sum(b for _, b in done.values()), swift_rtx=swift_retransmits(stdout),
                   timeouts=tcp_timeouts(stdout), swift_paths=swift_path_choices(stdout))
    else:
        out["tcp_finished"] = tcp_finished(stdout)
        out["paths"] = path_choices(stdout)
        out["timeouts"] = tcp_timeouts(stdout)
        out["long"] = next((v for i, v in samples.items() if names.get(i, "").startswith("long_sink")), [])
    return out


def run_fabricsim(toml: Path, t: float, at_times: list[float] = ()) -> tuple[timing.Run, dict]:
    return timing.run_python(FABRICSIM, str(toml), repr(t), ",".join(repr(x) for x in at_times))


def table(e: Experiment, hts: list[tuple[timing.Run, dict]], fab: list[tuple[timing.Run, dict]], peer: str) -> Table:
    hd, fd = hts[0][1], fab[0][1]
    t = hd["t_last"]
    rows: list = []
    if e.rows:
        rows = e.rows(hd, fd)
    elif e.finite:
        rows += fct_rows(hd["fct_us"], fd["fct_us"])
        span = max(hd["fct_us"], default=float("nan")) * 1e-6, max(fd["fct_us"], default=float("nan")) * 1e-6
        line = e.line_gbps
        peer_bytes = hd.get("finished_bytes", sum(hd["bytes"].values()))
        rows.append(("bottleneck utilization (bytes / last FCT)", gbps(peer_bytes, span[0]) / line,
                     gbps(sum(fd["acked"]) * e.fab_scale, span[1]) / line))
    else:
        hg = [gbps(b, t) for b in hd["bytes"].values()]
        fg = [gbps(b * e.fab_scale, t) for b in fd["acked_at"].values()]
        rows.append(("utilization (receivers' mean / line rate)", statistics.mean(hg) / e.line_gbps, statistics.mean(fg) / e.line_gbps))
        rows += goodput_rows(hg, fg)
    if e.finite and not e.rows and ("pauses" in hd or "swift_rtx" in hd):
        # HPCC's and Swift's incasts: the fastest flow too (Swift's: the one from the receiver's own rack).
        rows.insert(0, ("FCT min (us)", min(hd["fct_us"], default=float("nan")), min(fd["fct_us"], default=float("nan"))))
    if e.rows:
        pass
    elif "new" in hd:  # htsim_ndp's closing totals
        rows += [("data packets sent new", float(hd["new"]), fd["segments"] - fd["retransmits"]),
                 ("retransmissions", float(hd["rtx"]), fd["retransmits"]),
                 ("bounces (headers returned)", float(hd["bounced"]), fd["bounces"]), ("trims", None, fd["trims"]),
                 ("drops", None, fd["drops"]), ("timeouts", float(hd["timeouts"]), fd["timeouts"])]
    elif "pauses" in hd:  # htsim's HPCC driver: its copy prints each PFC pause; fabricsim's ports count theirs
        rows += [pause_row(hts, fab), ("retransmissions", None, fd["retransmits"]), ("drops", None, fd["drops"])]
        if len(hts) > 1 and None not in (d["pauses"] for _, d in fab):
            def span(runs: list) -> str:
                each = [d["pauses"] for _, d in runs]
                return f"{min(each):,.0f}-{max(each):,.0f} ({', '.join(f'{n:,.0f}' for n in each)})"
            e.notes.append(f"PFC pauses per run: htsim {span(hts)}, fabricsim {span(fab)}")
        e.notes.append(host_backlog_note(hts, fab))
    elif "swift_rtx" in hd:  # htsim's Swift prints each retransmission and timeout
        rows += [("retransmissions", float(hd["swift_rtx"]), fd["retransmits"]), ("timeouts", float(hd["timeouts"]), fd["timeouts"]),
                 ("drops", None, fd["drops"])]
    else:
        rows += [("retransmissions", None, fd["retransmits"]), ("ECN marks", None, fd["marks"]), ("drops", None, fd["drops"]),
                 ("timeouts", None, fd["timeouts"])]
    sh, sf = timing.Summary.of([r for r, _ in hts]), timing.Summary.of([r for r, _ in fab])
    cost = [("wall s (min of runs)", sh.wall_min, sf.wall_min), ("CPU s (min of runs)", sh.cpu_min, sf.cpu_min),
            ("peak memory MB", sh.maxrss_mb, sf.maxrss_mb)]
    if e.rows and len(fab) > 1:
        # fabricsim's runs differ with --vary-seed (htsim's incast driver is seeded: srand(13)).
        per_run = [e.rows(hd, d) for _, d in fab]
        varied = [f"{name.split(' (')[0]} {fmt(min(vs))}-{fmt(max(vs))}" for (name, _, _), vs in
                  zip(per_run[0], zip(*[[r[2] for r in run] for run in per_run])) if None not in vs and min(vs) != max(vs)]
        if varied:
            e.notes.append(f"fabricsim across its {len(fab)} runs: " + "; ".join(varied))
    if e.finite and not e.rows and len(hts) > 1:
        # Runs that differ (htsim's HPCC path ids from $HTSIM_SEED, fabricsim's seeds with --vary-seed).
        def fcts(runs: list) -> str:
            parts = []
            for name, f in (("min", min), ("p50", statistics.median), ("max", max)):
                vs = [f(d["fct_us"]) for _, d in runs if d["fct_us"]]
                parts.append(f"FCT {name} {fmt(min(vs))}-{fmt(max(vs))}" if vs else f"FCT {name} -")
            return ", ".join(parts) + " us"
        e.notes.append(f"across the {len(hts)} runs: htsim {fcts(hts)}; fabricsim {fcts(fab)}")
    if not e.finite and len(hts) > 1:
        # Runs that differ (htsim's DCTCP driver draws its permutation and paths from the time of
        # day; --vary-seed gives fabricsim's runs seeds 1, 2, ...): the range of the per-flow figures.
        def spread(runs: list, key: str, scale: float) -> str:
            mins = [min(gbps(b * scale, t) for b in d[key].values()) for _, d in runs]
            js = [jain([gbps(b * scale, t) for b in d[key].values()]) for _, d in runs]
            meds = [statistics.median(gbps(b * scale, t) for b in d[key].values()) for _, d in runs]
            us = [statistics.mean(gbps(b * scale, t) for b in d[key].values()) / e.line_gbps for _, d in runs]
            return (f"utilization {min(us):.3f}-{max(us):.3f}, min goodput {min(mins):.2f}-{max(mins):.2f} Gb/s, "
                    f"median {min(meds):.2f}-{max(meds):.2f} Gb/s, Jain {min(js):.3f}-{max(js):.3f}")
        e.notes.append(f"across the {len(hts)} runs: htsim {spread(hts, 'bytes', 1.0)}; fabricsim {spread(fab, 'acked_at', e.fab_scale)}")
    if not e.finite and hd.get("pairs") and "src" in fd:
        pairs = list(zip(hts, fab)) if e.each_run else [(hts[0], fab[0])]
        for i, ((_, h_i), (_, f_i)) in enumerate(pairs):
            e.notes.append((f"run {i + 1}: " if len(pairs) > 1 else "") + same_flows(h_i, f_i, e.fab_scale, h_i["t_last"]))
    notes = e.notes + [f"goodput over htsim's last sink sample, t = {t * 1e3:.1f} ms; {sh.runs} runs of each, interleaved; "
                       f"wall spread htsim {sh.wall_spread:.0%}, fabricsim {sf.wall_spread:.0%}; measured on a loaded machine"]
    return Table(f"== {e.name} ==", f"htsim {peer}", rows, notes, cost)


def host_backlog_note(hts: list, fab: list) -> str:
    """The most bytes a host's NIC held, run by run: htsim's sources hand their unbounded host
    queue a packet per pacing interval whatever it holds (only a queue past 9 MB prints its size),
    fabricsim's senders stop at their NIC's send limit."""
    ht = ", ".join(f"{d['host_backlog'] / 1e6:.1f}" if d["host_backlog"] else "<9" for _, d in hts)
    ours = ", ".join(f"{d['host_backlog'] / 1e6:.3f}" for _, d in fab)
    return f"host NIC backlog, most in a run (MB): htsim {ht}; fabricsim {ours}"


def pause_row(hts: list, fab: list) -> tuple:
    """PFC pauses, the most in one run on each side: htsim's printed pauses, fabricsim's ports'
    pfc_pauses (None: a scenario without [pfc])."""
    ours = [d["pauses"] for _, d in fab]
    return ("PFC pauses (most in a run)", float(max(d["pauses"] for _, d in hts)), None if None in ours else max(ours))


def same_flows(hd: dict, fd: dict, fab_scale: float, t: float) -> str:
    """Flow by flow (the same source and destination on both sides): how the two simulators'
    goodputs go together, and which flow is the slowest in each."""
    peer = {hd["pairs"][n]: gbps(b, t) for n, b in hd["bytes"].items() if hd["pairs"].get(n)}
    ours = {(int(fd["src"][i][1:]), int(fd["dst"][i][1:])): gbps(b * fab_scale, t) for i, b in ((int(i), b) for i, b in fd["acked_at"].items())}
    common = sorted(set(peer) & set(ours))
    if len(common) < 3:
        return "per flow: too few flows in common"
    x, y = [peer[k] for k in common], [ours[k] for k in common]
    slow_p, slow_f = min(common, key=peer.get), min(common, key=ours.get)
    same = "the same flow" if slow_p == slow_f else f"h{slow_p[0]} -> h{slow_p[1]} and h{slow_f[0]} -> h{slow_f[1]}"
    return (f"per flow, the same pair on both sides ({len(common)}): correlation {statistics.correlation(x, y):.3f}, median |difference| "
            f"{statistics.median(abs(b / a - 1) for a, b in zip(x, y) if a > 0):.1%}; the slowest ({min(x):.2f} / {min(y):.2f} Gb/s): {same}")


def gbps(nbytes: float, seconds: float) -> float:
    return nbytes * 8 / seconds / 1e9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("--htsim", required=True, type=Path, help="path of a csg-htsim checkout (not downloaded)")
    ap.add_argument("--peer-commit", help="the checkout's commit, when it has no .git")
    ap.add_argument("--experiment", default="all", choices=["all", *EXPERIMENTS])
    ap.add_argument("--end", help="simulated time (default: ndp-permutation 20ms, ndp-incast 40ms, dctcp-permutation 30ms)")
    ap.add_argument("--strat", default="rand", choices=["rand", "perm"],
                    help="htsim's NDP path strategy (default rand), mapped to fabricsim's [routing] paths (random, permutation)")
    ap.add_argument("--own-paths", action="store_true",
                    help="fabricsim chooses its paths its own way (NDP: per-packet hashes at the switches; DCTCP, "
                         "Swift, HPCC: per-flow hashes) instead of htsim's strategy (NDP) or htsim's own draw (DCTCP: pinned per flow; "
                         "Swift, HPCC: pinned per flow and direction)")
    ap.add_argument("--swift-queue", type=int, default=SWIFT_Q,
                    help=f"htsim's -q for the Swift experiments, packets of 4000 B (default {SWIFT_Q}; the driver's own is 8)")
    ap.add_argument("--hpcc-pfc", default="raised", choices=["raised", "driver"],
                    help="htsim's HPCC PFC thresholds, mapped onto fabricsim's [pfc]: raised above all the flows' bytes (default: no pause can occur) "
                         "or the driver's own 12 15 packets")
    ap.add_argument("--hpcc-algorithm1", action="store_true",
                    help="run fabricsim's HPCC as Algorithm 1, without htsim's departures (HPCC_HTSIM_RULES)")
    ap.add_argument("--hpcc-int-record", default="end", choices=["end", "start"],
                    help="where fabricsim's switches record HPCC's INT: end (default: as the packet's last bit leaves, as htsim's "
                         "LosslessOutputQueue::completeService) or start (as it starts serializing, Algorithm 1's own)")
    ap.add_argument("--tie-order", default="mapped", choices=["mapped", *TIE_ORDERS],
                    help="DCTCP: fabricsim's [simulation] tie_order: mapped (default: htsim's, scheduled_pipe) or the one "
                         "given, to show what the order accounts for")
    ap.add_argument("--host-order", default="mapped", choices=["mapped", *HOST_ORDERS],
                    help="DCTCP: the order within each host queue: mapped (default: htsim's FairPullQueue, [host_queue] "
                         "order = \"flow_rr\") or fifo, to show what it accounts for")
    ap.add_argument("--window", default="mapped", choices=["mapped", *WINDOWS],
                    help="DCTCP: fabricsim's congestion window: mapped (default: htsim's, in bytes, window = \"htsim_bytes\": "
                         "TcpSrc::inflate_window's growth by the free room, DCTCPSrc's cut and the loss rules in bytes) or "
                         "segments (fabricsim's whole segments: the mapping before)")
    ap.add_argument("--sizes", default="mapped", choices=["mapped", "header"],
                    help="DCTCP permutation: the ACKs' and the SYN's size on the wire: mapped (default: htsim's, ack_size = "
                         "\"40B\" as TcpAck::ACKSIZE, syn_size = \"1B\" as TcpPacket::new_syn_pkt) or header (both the 52 B "
                         "header: the mapping before; the incast maps htsim's sizes either way)")
    ap.add_argument("--extra-segment", default="mapped", choices=["mapped", "off"],
                    help="DCTCP incast: htsim's packet beyond each flow (TcpSrc::send_packets sends 52 packets for the 51 "
                         "whose ACK finishes the flow): mapped (default: fabricsim's flows one segment longer, extra_segment "
                         "= true) or off (51 segments: the mapping before)")
    ap.add_argument("--stale-syn", default="mapped", choices=["mapped", "off"],
                    help="DCTCP incast: the one SYN (tcp_367's) that echoes a recycled packet's send time in htsim's run: "
                         "mapped (default: its SYN-ACK samples the SYN's round trip, syn_timestamp = \"sent\") or off (every "
                         "SYN's timestamp zero: the mapping before)")
    ap.add_argument("--mark-at", default="mapped", choices=["mapped", *MARKINGS],
                    help="DCTCP: where the switch ports mark: mapped (default: at the end of service, mark_at = \"end\" "
                         "at 15 packets, as ECNQueue::completeService) or dequeue (as the service begins, at 14: the "
                         "permutation's mapping before)")
    ap.add_argument("--hpcc-send-timing", default="tick", choices=["tick", "window"],
                    help="when fabricsim's HPCC source sends: tick (default: only on a timer every T x packet / W, as htsim's "
                         "HPCCSrc::doNextEvent) or window (as soon as the window allows, paced at W/T: the mapping before)")
    ap.add_argument("--hpcc-window", default="sequence", choices=["sequence", "wire"],
                    help="what fabricsim's HPCC window counts: sequence (default: whole payload bytes, window_rounding = \"sequence\", "
                         "W_AI 9000 B, as htsim's seq_t _cwnd against _flightsize += _mss in HPCCSrc::doNextEvent and send_packet) "
                         "or wire (real-valued bytes on the wire, window_rounding = \"down\", W_AI 9064 B: the mapping before)")
    ap.add_argument("--hpcc-u-arithmetic", default="htsim", choices=["htsim", "seconds"],
                    help="how fabricsim's HPCC computes each hop's u: htsim (default: u_arithmetic = \"htsim\", bits x 10^12 over "
                         "integer picoseconds as sim/hpcc.cpp's HPCCSrc::measureInFlight, so hops at line rate tie exactly and "
                         "the first keeps tau) or seconds (bytes over seconds in floating point: the mapping before)")
    ap.add_argument("--hpcc-tie-order", default="scheduled_switch", choices=["scheduled_switch", "scheduled_pipe", "own"],
                    help="fabricsim's [simulation] tie_order in the HPCC experiments: scheduled_switch (default: htsim's, "
                         "EventList's insertion order among events of one picosecond with its per-link Pipe and each "
                         "FatTreeSwitch's zero-latency CallbackPipe), scheduled_pipe (without the switches' pipes: the "
                         "mapping before) or own (fabricsim's own order of same-picosecond events: the mapping before that)")
    ap.add_argument("--hpcc-pause-hosts", default="stop", choices=["stop", "limit"],
                    help="fabricsim's HPCC hosts under a pause: stop (default: htsim's host queue as it is, unlimited with ACKs "
                         "first, and a pause stops the sources, [pfc] stop_senders, as FairPriorityQueue::receivePacket -> "
                         "HPCCSrc::processPause) or limit (a one-packet NIC send limit standing for the stop: the mapping before)")
    ap.add_argument("--runs", type=int, default=2, help="runs of each simulator, interleaved (default 2)")
    ap.add_argument("--vary-seed", action="store_true",
                    help="give fabricsim's runs seeds 1, 2, ... (its runs are otherwise identical) and htsim's Swift driver 13, 14, ...")
    ap.add_argument("--build", type=Path, default=HERE.parent / "htsim" / "build", help="htsim build directory (shared with compare.py)")
    a = ap.parse_args()
    if a.hpcc_algorithm1 and a.hpcc_u_arithmetic != "htsim":
        ap.error("--hpcc-u-arithmetic is one of htsim's HPCC rules, which --hpcc-algorithm1 leaves out: give one of them")
    commit = checkout_commit(a.htsim.resolve(), a.peer_commit)
    h = Htsim.prepare(a.htsim, a.build, commit)
    out = a.build / "validation"
    out.mkdir(parents=True, exist_ok=True)
    names = list(EXPERIMENTS) if a.experiment == "all" else [a.experiment]
    for name in names:
        extra = {"q": a.swift_queue} if name.startswith("swift") else {}
        if name.startswith("hpcc"):
            extra = {"pfc": a.hpcc_pfc, "rules": not a.hpcc_algorithm1, "int_record": a.hpcc_int_record, "send_timing": a.hpcc_send_timing,
                     "pause_hosts": a.hpcc_pause_hosts, "window": a.hpcc_window, "tie_order": a.hpcc_tie_order,
                     "u_arithmetic": a.hpcc_u_arithmetic}
        extra["own_paths"] = a.own_paths
        if name.startswith("dctcp"):
            extra.update(tie_order=a.tie_order, host_order=a.host_order, mark_at=a.mark_at, window=a.window)
        if name == "dctcp-permutation":
            extra.update(sizes=a.sizes)
        if name == "dctcp-incast":
            extra.update(extra_segment=a.extra_segment, stale_syn=a.stale_syn)
        e = EXPERIMENTS[name](h, a.end or DEFAULT_END[name], out, a.strat, **extra)
        hts, fab = [], []
        for i in range(a.runs):
            # htsim's Swift driver (its copy) takes its path-draw seed from $HTSIM_SEED: 13 (its own)
            # in the first run, 13 + i in run i with --vary-seed; so does the HPCC driver's copy for
            # its path ids (its own: the time of day). The other drivers ignore it.
            os.environ["HTSIM_SEED"] = str(13 + i if a.vary_seed else 13)
            hts.append(run_htsim(h, e, out / f"run-{name}-{i}"))
            hts[-1][1]["run"] = i
            if e.toml is None or e.each_run:
                e.toml = e.after_htsim(hts[-1][1] if e.each_run else hts[0][1])
            toml = e.toml
            if a.vary_seed and i > 0 and not e.each_run:
                toml = e.toml.with_name(f"{e.toml.stem}-seed{i + 1}.toml")
                toml.write_text(e.toml.read_text().replace("\nseed = 1", f"\nseed = {i + 1}", 1))
            fab.append(run_fabricsim(toml, hts[-1 if e.each_run else 0][1]["t_last"], e.at_times))
        print("\n".join(table(e, hts, fab, commit).lines()) + "\n", flush=True)


if __name__ == "__main__":
    main()
