#!/usr/bin/env python3
"""Cross-validation against ns-3: DCTCP experiments in both simulators, one agreement table each.

    python benches/validation/ns3_validate.py --ns3 /path/to/ns-3-dev      # a source tree built with ./ns3 build
    python benches/validation/ns3_validate.py --ns3 SRC --experiment b1 --time 0.2
    python benches/validation/ns3_validate.py --ns3 SRC --experiment b1 --start-jitter 1500 --seed 7   # one start, its own draws

Nothing is downloaded: the script takes an ns-3 tree already configured and built (modules core,
network, internet, point-to-point, traffic-control, applications and their dependencies; its
build/include and build/lib), compiles our own driver ns3/dctcp_ns3.cc against it into
benches/validation/build/, and runs each experiment in ns-3 and fabricsim interleaved.

Experiments and their mapping, key by key (ns-3 attribute or example line -> fabricsim key):

b1: B1, python/fabricsim/benchmarks/dctcp-16to1.toml, as benches/ns3/b1_dctcp.cc set it up.
  17 nodes on one switch, PointToPoint 10Gbps / 1us -> star, link { rate = "10Gbps", delay = "1us" }
  RedQueueDisc on the switch port to h0: MinTh = MaxTh = 65, QW = 1, MaxSize 250p, UseEcn, no hard
    drop, and ns-3's defaults LInterm 50, Gentle = true and Wait = true: above 65 packets it marks
    with a probability rising from 0.02 to 1 at 130 (gentle RED), not at every packet as B1's step
    at 65 does, and spaces its marks 1/p_b to 2/p_b arrivals apart (Wait, RedQueueDisc::ModifyP)
    -> discipline = "red", red = { min_th = max_th = "65pkt", max_p = 0.02, weight = 1,
    gentle = true, action = "mark", wait = true }, buffer = "250pkt" (B1 itself keeps its step
    marking). --red-wait off maps RED as Linux's (FJ93's p_b / (1 - count p_b)) instead.
  RedQueueDisc::DoEnqueue's count: the first arrival at or above MinTh after a spell below it only
    restarts the count at 1 (m_old), nothing is marked with one packet queued, forced marks keep
    the count -> red.count = "ns3" (--red-count fj93: FJ93's count)
  TCP connection set-up (SYN, SYN-ACK; a lost SYN resent after ConnTimeout = 3 s) -> handshake = true,
    initial_rto = "3s"; TcpDctcp's DctcpEcn mode sends every packet ECN-capable, SYN and SYN-ACK
    included (tcp-socket-base.cc, ECN_RESTRICTION_MAP), so RED marks them -> ect_syn = true
  after an ECE ns-3 brings cwnd down over the round by Proportional Rate Reduction
    (TcpSocketBase::EnterCwr, TcpPrrRecovery: RecoveryType's default), counting the first ACK's
    delivery twice (EnterRecovery's DoRecovery, then ProcessAck's in CA_CWR) -> prr = true,
    prr_entry = "ns3" (--prr rfc6937: counted once; --prr off: no PRR)
  TcpPrrRecovery::DoRecovery (src/internet/model/tcp-prr-recovery.cc) takes the proportional
    quota in bytes, ceil(prr_delivered x ssthresh / RecoverFS), with TcpDctcp's exact byte cut as
    ssthresh, and SendPendingData sends only whole segments -> prr_units = "bytes" (--prr-units
    segments: rounded up to whole segments, a segment more on some ACKs of a reduction)
  TcpDctcp's receiver echo (CeState0to1/CeState1to0: on a CE change with an ACK delayed, an ACK
    for the point recorded before the previous segment was taken in) and ECE read only on ACKs
    that advance (TcpSocketBase::ReceivedAck), and a segment for every duplicate ACK in TcpDctcp's
    count (ProcessAck's PktsAcked(1)) -> dctcp_echo = "ns3" (--dctcp-echo rfc8257: not)
  TcpDctcp::GetSsThresh cuts (1 - alpha/2) of the window in bytes, no floor of 2 segments ->
    cc_params = { byte_cut = 1 } (--dctcp-cut linux: Linux's integer cut)
  the ACK ending a timeout's loss state grows the window only by what it acknowledges beyond the
    recovery point (ProcessAck in CA_LOSS: (ack - m_recover) / segment size; m_recover = HighTxMark
    at the timeout), so after a lone segment's timeout the window stays one segment; an ECE on that
    ACK enters CWR first (ReceivedAck, in any state but CWR) with TcpDctcp's CA_LOSS ssthresh
    (max(in flight / 2, 2 segments)) and PRR sets the window -> loss_exit = "ns3" (--loss-exit
    acked: Linux's growth by all acknowledged)
  the start-up (traced packet by packet with the driver's --hostTrace and --trace against fabricsim's
    capture): TcpSocketBase::ProcessSynSent answers the SYN-ACK with an ACK of its own before the
    first data segment -> handshake_ack = true; ProcessSynRcvd fills the receiver's delayed-ACK count
    on that ACK ("Always respond to first data packet"), so the first data segment is acknowledged at
    once -> ack_first_data = true; the SYN and SYN-ACK carry 16 B of options (36 B of TCP, 58 B on
    the wire) -> syn_size = "58B"; PointToPointNetDevice adds a 2 B PPP header to every packet
    (data 1502 B, ACKs 54 B on the wire) -> header = "54B", ack_size = "54B"; TcpHeader pads its
    options together to whole words, so an ACK's SACK option (2 + 8n B) fills the timestamp
    option's 2 B of padding and n blocks add 8n B -> sack_bytes = "ns3" (--start-up off: none
    of these, the first data segment carrying the handshake's ACK)
  four rules the packet-by-packet trace found (mapped for the example too: the same TcpSocketBase
    and TcpDctcp on the same nanosecond clock): the SYN-ACK carries the same 16 B of
    options as the SYN (58 B on the wire; TcpSocketBase::SendEmptyPacket) -> synack_size = "58B"
    (--synack ack: ack_size); TcpDctcp::PktsAcked (tcp-dctcp.cc) sets m_nextSeq at the first ACK,
    so alpha first moves once the initial window is acknowledged -> cc_params first_window_at_ack
    = 1 (--dctcp-first-window linux: the first ACK closes a window); TcpSocketBase::ReceivedAck
    (tcp-socket-base.cc) enters CWR (EnterCwr -> TcpDctcp::GetSsThresh) before ProcessAck calls
    PktsAcked, so the cut takes alpha before that ACK's update -> cc_params cut_before_alpha = 1
    (--dctcp-cut-order linux: alpha updated first); and a CWR episode ends only on an ACK beyond
    m_recover (TcpSocketBase::ReceivedAck) -> cwr_exit = "beyond" (--cwr-exit at), as for the example
  TcpDctcp's growth and timeout (mapped for the example too; found by the trace past 9.96 ms):
    TcpLinuxReno::IncreaseWindow -- slow start or congestion avoidance per ACK, no cwnd-limited check
    (TcpDctcp: SetSuppressIncreaseIfCwndLimited(false)), m_cWndCnt never reset, a step even on
    ProcessAck's IncreaseWindow(0) at a loss state's end -- and ReTxTimeout's ssthresh from
    TcpDctcp::GetSsThresh before CA_LOSS, the alpha cut, at every timeout (IsHeadRetransmitted reads
    the flags SetSentListLost has just cleared; a repeated one, in CA_LOSS, half the flight, at least 2
    segments); TcpDctcp::PktsAcked closes a window that counted no bytes (alpha decays) ->
    cc_params ns3_growth = 1, ns3_loss_cut = 1, empty_window = 1, timeout_ssthresh = "every"
    (--dctcp-growth linux)
  ns-3's loss recovery (mapped for the example too): TcpPrrRecovery in fast recovery as well
    (EnterRecovery, DupAck, ProcessAck's partial ACK; ns-3-dev's bound, a segment more on an ACK of
    a retransmission) -> prr_recovery = true; DupAck enters CA_RECOVERY only from CA_DISORDER, so
    duplicate ACKs during a CWR episode start no fast recovery -> recovery_from_cwr = false;
    TcpSocketBase has neither RACK nor tail loss probes -> tlp = false, rack = false; PRR steps in
    CA_CWR only on ACKs that advance (ProcessAck), counting currentDelivered -> prr_cwr_acks =
    "advancing"; with SACK, limited transmit through the pipe alone (DupAck in CA_DISORDER) ->
    limited_transmit = "pipe"; ProcessAck (ns-3-dev) counts an advancing ACK's segments as what it
    delivered (currentDelivered), SACKed data not twice -> acked_count = "delivered"; DupAck, the
    only way into CA_RECOVERY, runs only for an ACK with new SACK information -> recovery_on =
    "duplicate_ack"; TcpTxBuffer::MarkRetransmittedSegmentsLost deems a retransmission lost when a
    segment last sent strictly after it is SACKed, at once -> lost_retransmit = "ns3"; EnterRecovery
    resends the head (m_highRxAckMark) even when a retransmission of it is out -> fast_retransmit =
    "head"; a partial ACK in fast recovery calls DoRetransmit, which sends NextSeg's segment (lost, else
    new data) whatever the window -> partial_ack = "ns3" (--recovery linux: none of these,
    fabricsim's defaults)
  other switch ports FifoQueueDisc 250p -> the same buffer (no marks: only h0's port is congested)
  switch device queues 1p below the queue discs (PointToPointNetDevice's DropTailQueue, flow-
    controlled by NetDeviceQueue stop/wake) -> device_queue = "1pkt" on every switch port
    (--device-queue off: none)
  TcpDctcp, SegmentSize 1448 + timestamps (52 B of headers) -> cc = "dctcp", mss 1448 B, header 52 B
    (54 B with the PPP header: the start-up's mapping above)
  Timestamp = true (TcpSocketBase's default): EstimateRtt samples every advancing ACK, a
    retransmission's included, and NewAck recomputes the RTO from the estimator without the
    back-off -> timestamps = true (--timestamps off: Karn's rule keeps the doubled RTO)
  InitialCwnd 10, DelAckCount 2, MinRto 10 ms, buffers 64 MB -> initial_cwnd 10, delayed_ack 2, min_rto 10ms
  BulkSend from h1..h16 to h0, started at i us -> flows h{i} -> h0, start = "{i}us", long-lived
  ns-3's Time counts whole nanoseconds (the default resolution), so each serialization is
    DataRate::CalculateBytesTxTime rounded to the nanosecond (1502 B at 10 Gb/s: 1202 ns, 54 B:
    43 ns) -> [simulation] time_resolution = "1ns" (--time-resolution ps: fabricsim's picoseconds)
  same-instant events in the order they were scheduled (the scheduler's insertion uid,
    DefaultSimulatorImpl::Schedule; PointToPointNetDevice::TransmitStart schedules the end of the
    transmission and the peer's Receive as it begins) -> [simulation] tie_order = "scheduled"
    (--tie-order event: fabricsim's own order, by kind and port)
  marks: the RED queue disc's marked packets; fabricsim: the port's ecn_marks.
  RED's draws, the only random ones: ns-3's run number (the global RngRun, 1 by default) -> [simulation]
    seed (1); --seed N sets both, so runs over many starts need not share one draw sequence
example: ns-3's examples/tcp/dctcp-example.cc, item by item:
  nodes S1 (10), S2 (20), T1, T2, S3 (10), R2 (20), R1 -> explicit topology, hosts S1_i, S2_i, S3_i, R2_i, R1
  host links 1Gbps / 10us, T1-T2 10Gbps / 10us -> links of those rates and delays
  RedQueueDisc MinTh 50, MaxTh 150 on both ends of T1-T2 -> that link's queue = RED 50/150
  RedQueueDisc MinTh 20, MaxTh 60 on every switch port towards a host -> [queue] RED 20/60
  RED defaults: QW 1, MaxSize 2666p, LInterm 50 (max_p 0.02), Gentle, Wait, UseEcn, no hard drop,
    MeanPktSize 1500 -> red = { min_th, max_th, max_p = 0.02, weight = 1, gentle = true, wait = true,
    action = "mark", hard_drop = false }
  TcpDctcp, SegmentSize 1448, DelAckCount 2; ns-3 defaults InitialCwnd 10, MinRto 1 s,
    SndBufSize = RcvBufSize = 128 KiB, ConnTimeout 3 s, ECN-capable SYNs -> mss 1448 B, header 52 B,
    delayed_ack 2, initial_cwnd 10, min_rto "1s", rcv_buffer "131072B", handshake = true,
    initial_rto = "3s", ect_syn = true
  Proportional Rate Reduction after ECE, TcpDctcp's receiver echo and window cut -> prr = true,
    prr_entry = "ns3", prr_units = "bytes", dctcp_echo = "ns3", cc_params = { byte_cut = 1 }, loss_exit = "ns3" (as for b1)
  Timestamp = true (TcpSocketBase's default) -> timestamps = true (as for b1; --timestamps off)
  the same TcpSocketBase/TcpDctcp rules B1's trace found: the 58 B SYN-ACK, the first alpha window
    set at the first ACK, the cut before the ACK's alpha update -> synack_size = "58B", cc_params
    first_window_at_ack = 1, cut_before_alpha = 1 (as for b1; --synack ack, --dctcp-first-window
    linux, --dctcp-cut-order linux)
  a CWR episode ends only on an ACK beyond the point recorded at its start (TcpSocketBase::
    ReceivedAck: ackNumber > m_recover, m_recover = m_highTxMark in EnterCwr): the ACK of exactly
    that point stays in CWR (PRR sets the window, no growth, no second cut on its ECE) ->
    cwr_exit = "beyond" (--cwr-exit at: the episode ends on that ACK)
  ns-3's loss recovery -> prr_recovery = true, recovery_from_cwr = false, tlp = false, rack = false
    (as for b1; --recovery linux)
  the start-up: handshake_ack, ack_first_data, syn_size "58B", header and ack_size with PPP's 2 B
    (as for b1; --start-up off)
  switch device queues: PointToPointNetDevice's DropTailQueue, 100 packets by default, below each
    queue disc, filled whenever the disc holds packets (NetDeviceQueue stop/wake, no BQL) ->
    device_queue = "100pkt" on every switch port ("1pkt" for example-dq1; --device-queue off: none)
  OnOff (always on, 1 Gb/s of 1000 B writes) S2[i] -> R2[i] from i*1s/20 + i*5ms; S1[i] -> R1 from
    i*1s/10 + i*5ms; S3[i] -> R1 from i*1s/10 + (i+10)*5ms -> long-lived flows at those starts (the
    1 Gb/s application rate exceeds what a 1 Gb/s link carries in payload, so the link limits them)
  same-instant events in scheduling order -> tie_order = "scheduled" (as for b1)
  ns-3's nanosecond Time: each serialization rounded to the nanosecond (1502 B at 1 Gb/s: 12016 ns,
    54 B: 432 ns, exact either way; 1502 B at 10 Gb/s: 1202 ns) -> time_resolution = "1ns" (as for
    b1; --time-resolution ps)
  measurement: goodput per flow over the last --window seconds (the example: 1 s after 4 s)
  `example-dq1` runs both with device queues of 1 packet (as B1 does).

Figures: goodput per flow (min, median, Jain; and per group for the example, with the senders'
mean cwnd, DCTCP alpha and smoothed RTT), mean and p99 queue of the discipline (RED's view) and the
mean with the device queue below it (samples every --sample us after the warm-up on both sides;
fabricsim's discipline holds what waits beyond device_queue), ECN marks (whole run, and in the
window) and drops at the observed ports, retransmissions (ns-3's TcpSocketBase "Retransmission"
trace; fabricsim's per-flow retransmits), wall time and peak memory. Below each table: ns-3's
echo after the warm-up (from the driver's per-flow counters: CE-marked data segments at the
receivers, ECE on the bytes ACKs advanced over and on what TcpDctcp counted, duplicate ACKs) and
each simulator's timeouts by flow.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent / "htsim"))
sys.path.insert(0, str(HERE))

import timing  # noqa: E402
from agreement import Table, goodput_rows, jain  # noqa: E402

MODULES = ["core", "network", "internet", "point-to-point", "traffic-control", "applications", "bridge", "stats"]

FABRICSIM = r"""
import json, sys
from fabricsim import _engine
from fabricsim.results import Results
from fabricsim.scenario import to_json, validate
sim = _engine.Simulation(to_json(validate(sys.argv[1], ())), None)
warm = float(sys.argv[2]); ports = sys.argv[3].split(","); device = int(sys.argv[4])
sim.run_until(int(round(warm * 1e12)))  # each port's marks at the warm-up
p0 = sim.ports(); marks_at = {n: int(m) for n, m in zip(p0["port"], p0["ecn_marks"])}
sim.run_until(sim.end_ps)
r = Results.from_engine(sim, {})
f, p, ts = r.flows, r.ports, r.timeseries
q = ts[(ts["metric"] == "queue_packets") & (ts["time_s"] >= warm - 1e-12)]
fs = r.flow_series()
t_end = fs["time_s"].max()
def at(t):  # each flow's delivered bytes at the last sample at or before t
    last = fs["time_s"][fs["time_s"] <= t + 1e-12].max()
    return fs[fs["time_s"] == last].set_index("flow")["delivered_bytes"]
after = (at(t_end) - at(warm)).fillna(0) if warm > 0 else at(t_end)
late = fs[fs["time_s"] >= warm - 1e-12].groupby("flow")
means = {c: late[c].mean() for c in ("cwnd", "dctcp_alpha", "srtt_s") if c in fs}
per_flow = [{k: float(v.get(i, float("nan"))) for k, v in means.items()} for i in f["id"]]
out = {"rx_after_warmup": [float(after.get(i, 0.0)) for i in f["id"]], "t_end": float(t_end), "per_flow": per_flow,
       "retransmits": float(f["retransmits"].sum()), "timeouts": [int(t) for t in f["timeouts"]], "queues": []}
for port in ports:
    t = q[q["target"] == port]["value"].astype(float)
    # With a device queue of N packets the discipline holds whatever waits beyond N (queue/device.rs).
    s = (t - device).clip(lower=0)
    row = p[p["port"] == port].iloc[0]
    out["queues"].append({"port": port, "marks": float(row["ecn_marks"]), "drops": float(row["drops"]),
                          "marks_after_warmup": float(row["ecn_marks"]) - marks_at[port],
                          "utilization": float(row["utilization"]), "mean_packets": float(s.mean()),
                          "p99_packets": float(s.quantile(0.99, interpolation="nearest")), "samples": int(len(s)),
                          "mean_with_device": float(t.mean()), "p99_with_device": float(t.quantile(0.99, interpolation="nearest"))})
print(json.dumps(out))
"""


def find_libs(ns3: Path) -> tuple[Path, Path, list[str]]:
    inc, lib = ns3 / "build" / "include", ns3 / "build" / "lib"
    if not (inc / "ns3" / "core-module.h").exists():
        raise SystemExit(f"--ns3: {ns3} has no build/include/ns3/core-module.h: configure and build it first "
                         f"(./ns3 configure --enable-modules={','.join(MODULES[:6])} -d optimized && ./ns3 build)")
    names = []
    for m in MODULES:
        found = sorted(lib.glob(f"libns3*-{m}-*.so")) or sorted(lib.glob(f"libns3*-{m}.so"))
        if not found:
            raise SystemExit(f"--ns3: no library for module {m} in {lib}")
        names.append(found[0].name[3:-3])
    return inc, lib, names


def build_driver(ns3: Path, out: Path) -> Path:
    inc, lib, names = find_libs(ns3)
    exe = out / "dctcp_ns3"
    src = HERE / "ns3" / "dctcp_ns3.cc"
    if exe.exists() and exe.stat().st_mtime > src.stat().st_mtime:
        return exe
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(["g++", "-std=c++23", "-O2", "-DNS3_BUILD_PROFILE_OPTIMIZED", f"-I{inc}", str(src), f"-L{lib}",
                    f"-Wl,-rpath,{lib}", *[f"-l{n}" for n in names], "-o", str(exe)], check=True)
    return exe


def ns3_version(ns3: Path, given: str | None = None) -> str:
    """--peer-commit if given, else the tree's git commit, else its VERSION file ("3-dev")."""
    if given:
        return given
    p = subprocess.run(["git", "-C", str(ns3), "rev-parse", "--short=10", "HEAD"], capture_output=True, text=True)
    if p.returncode == 0:
        return p.stdout.strip()
    v = ns3 / "VERSION"
    return v.read_text().strip() if v.exists() else "unknown"


# ---- fabricsim scenarios -----------------------------------------------------------------------

# ns-3's RedQueueDisc as its drivers configure it (QW = 1, UseEcn, no hard drop, MeanPktSize 1500)
# with its defaults: LInterm 50 (max_p = 0.02) and Gentle = true (p rises from max_p at MaxTh to 1
# at twice MaxTh), marking ECN-capable packets and dropping the others (SYNs); and Wait = true
# (RedQueueDisc::ModifyP: no mark until count * p_b reaches 1, then p_b / (2 - count * p_b): marks
# 1/p_b to 2/p_b arrivals apart, about a third as many as FJ93's p_b / (1 - count * p_b)); and its
# count as RedQueueDisc::DoEnqueue keeps it (red.count = "ns3": the m_old skip, no mark with one
# packet queued, forced marks keep the count).
NS3_RED = "discipline = \"red\"\nred = {{ min_th = \"{lo}pkt\", max_th = \"{hi}pkt\", max_p = 0.02, weight = 1.0, gentle = true, " \
          "action = \"mark\", hard_drop = false, mean_packet = \"1500B\", wait = {wait}, count = \"{count}\" }}"
# ns-3's TCP opens connections (SYN, SYN-ACK) and resends a lost SYN after ConnTimeout (3 s); in
# its DctcpEcn mode every packet is ECN-capable, the SYN and SYN-ACK too (tcp-socket-base.cc's
# ECN_RESTRICTION_MAP), so RED marks them instead of dropping them.
NS3_OPEN = 'handshake = true\ninitial_rto = "3s"\nect_syn = true\n'
# ns-3's TCP brings cwnd down to ssthresh after an ECE over the round, by Proportional Rate
# Reduction (TcpSocketBase::EnterCwr + TcpPrrRecovery, its default RecoveryType), not at once.
NS3_PRR = 'prr = true\n'
# ... and counts the delivery of the ACK that starts the round twice (EnterCwr's
# TcpPrrRecovery::EnterRecovery runs DoRecovery, and ProcessAck in CA_CWR runs it again).
NS3_PRR_ENTRY = 'prr_entry = "ns3"\n'
# ... and takes the round's proportional quota in bytes, rounded up in bytes (TcpPrrRecovery::
# DoRecovery in tcp-prr-recovery.cc, ssthresh = TcpDctcp's byte cut), sending whole segments.
NS3_PRR_BYTES = 'prr_units = "bytes"\n'
# ns-3's TcpDctcp receiver echo (TcpDctcp::CeState0to1/1to0 with m_priorRcvNxt recorded before the
# segment is taken in) and its sender's ECE only on ACKs that advance (TcpSocketBase::ReceivedAck),
# with a segment counted for each duplicate ACK (TcpSocketBase::ProcessAck's PktsAcked(1)).
NS3_ECHO = 'dctcp_echo = "ns3"\n'
# ns-3 ends a timeout's loss state growing the window only by the segments acknowledged beyond the
# recovery point it recorded (TcpSocketBase::ProcessAck in CA_LOSS, m_recover = m_highTxMark).
NS3_LOSS_EXIT = 'loss_exit = "ns3"\n'
# ns-3 ends a CWR episode only on an ACK beyond m_recover (TcpSocketBase::ReceivedAck, `ackNumber >
# m_recover`, m_recover = m_highTxMark in EnterCwr); mapped for the example (found tracing its
# 200 ms delayed-ACK stops) and for B1 (found by B1's packet-by-packet trace).
NS3_CWR_EXIT = 'cwr_exit = "beyond"\n'
# ns-3's loss recovery: TcpPrrRecovery in fast recovery too (TcpSocketBase::EnterRecovery, DupAck and
# ProcessAck's partial ACK call it; ns-3-dev 1406464's conservative bound with its safe-ACK segment
# is fabricsim's default prr_bound "crb"), and no fast recovery during a CWR episode (DupAck enters
# CA_RECOVERY only from CA_DISORDER; SACK-lost segments are resent within the episode's window), and
# neither RACK nor tail loss probes (TcpSocketBase has none; fabricsim's TCP has both on by default,
# which the mappings before 2026-11-27 left on: B1's trace with drops found RACK's reorder timer
# resending a segment ns-3 resends only at its third SACK), and PRR in CWR only on ACKs that advance
# (ProcessAck's CA_CWR branch; a duplicate ACK's SACK leaves cwnd as it was), and limited transmit
# through the pipe alone (DupAck in CA_DISORDER with SACK adds nothing to cwnd), and an advancing ACK
# counting what it delivered for growth and alpha (ns-3-dev ProcessAck: bytesAcked = currentDelivered),
# fast recovery entered only on an ACK with new SACK information (DupAck, its only way in), and a
# retransmission lost once a segment sent strictly after it is SACKed (MarkRetransmittedSegmentsLost),
# fast recovery's first retransmission always the head (EnterRecovery: m_highRxAckMark), and on a
# partial ACK one segment beyond the window (ProcessAck's DoRetransmit through NextSeg).
NS3_RECOVERY = ('prr_recovery = true\nrecovery_from_cwr = false\ntlp = false\nrack = false\nprr_cwr_acks = "advancing"\n'
                'limited_transmit = "pipe"\nacked_count = "delivered"\nrecovery_on = "duplicate_ack"\n'
                'lost_retransmit = "ns3"\nfast_retransmit = "head"\npartial_ack = "ns3"\n')
# ns-3's TcpDctcp::GetSsThresh: (1 - alpha/2) of a window kept in bytes, without Linux's rounding or
# floor of 2 segments.
NS3_CUT = "byte_cut = 1"
# ns-3's TcpSocketBase has RFC 7323 timestamps on (its Timestamp attribute; the 52 B header above
# counts them), so EstimateRtt takes a sample from every ACK that advances, a retransmission's
# included, and NewAck recomputes the RTO from the estimator on each of them: a timeout's back-off
# lasts until the next advancing ACK -> timestamps = true (--timestamps off: Karn's rule).
NS3_TS = 'timestamps = true\n'
# ns-3's start-up (TcpSocketBase::ProcessSynSent: the handshake's ACK a packet of its own before the
# data; ProcessSynRcvd: the delayed-ACK count filled on it, so the first data segment is acknowledged
# at once) and its packets' sizes on the wire (SYN and SYN-ACK 36 B of TCP with options; the
# PointToPoint PPP header's 2 B on every packet), replacing the experiments' 52 B (IP, TCP,
# timestamps).
NS3_START = 'handshake_ack = true\nack_first_data = true\nsyn_size = "58B"\n'
# ... and an ACK's SACK blocks on the wire: TcpHeader pads the timestamp and SACK options together,
# so each block adds 8 B (B1's trace with drops: a --b1Buffer 150 run's ACKs 13-16 ns late).
NS3_SACK_BYTES = 'sack_bytes = "ns3"\n'
NS3_WIRE = {'header = "52B"': 'header = "54B"', 'ack_size = "52B"': 'ack_size = "54B"'}
# B1's trace (docs/VALIDATION.md): ns-3's SYN-ACK carries the SYN's 16 B of options (58 B on the
# wire, TcpSocketBase::SendEmptyPacket), not the ACK's size.
NS3_SYNACK = 'synack_size = "58B"\n'
# B1's trace: TcpDctcp::PktsAcked (tcp-dctcp.cc) sets m_nextSeq at the first ACK, so the first
# alpha window ends when the initial window is acknowledged; TcpSocketBase::ReceivedAck enters CWR
# (EnterCwr, TcpDctcp::GetSsThresh) before ProcessAck calls PktsAcked, so an ACK's cut takes alpha
# before that ACK's update (cc/dctcp.rs: first_window_at_ack, cut_before_alpha).
NS3_FIRST_WINDOW = "first_window_at_ack = 1"
NS3_CUT_ORDER = "cut_before_alpha = 1"
# B1's trace past 9.96 ms (docs/VALIDATION.md): TcpDctcp inherits TcpLinuxReno::IncreaseWindow
# (slow start or congestion avoidance per ACK, no cwnd-limited check since TcpDctcp sets
# SetSuppressIncreaseIfCwndLimited(false), m_cWndCnt kept across timeouts and reductions, a step even
# on the ACK that ends a timeout's loss state at its recovery point, ProcessAck's IncreaseWindow(0)),
# TcpSocketBase::ReTxTimeout takes TcpDctcp::GetSsThresh in the state before the timeout, the
# (1 - alpha/2) cut, not a halving, and TcpDctcp::PktsAcked closes an observation window that counted
# no bytes (alpha decays; the loss state's end at its recovery point calls PktsAcked(0))
# (cc/dctcp.rs: ns3_growth, ns3_loss_cut, empty_window).
NS3_GROWTH = "ns3_growth = 1, ns3_loss_cut = 1, empty_window = 1"
# TcpSocketBase::ReTxTimeout lowers ssthresh at every timeout (its IsHeadRetransmitted check reads the
# flags SetSentListLost has just cleared); mapped with NS3_GROWTH.
NS3_TIMEOUT = 'timeout_ssthresh = "every"\n'


def start_up(text: str, ns3: bool) -> str:
    """The scenario text with ns-3's start-up and wire sizes mapped (`ns3`), or as it is."""
    if not ns3:
        return text
    for old, new in NS3_WIRE.items():
        assert old in text, f"the scenario no longer sets {old}"
        text = text.replace(old, new)
    return text.replace("[transport]\n", "[transport]\n" + NS3_START + NS3_SACK_BYTES, 1)


# Same-instant events: ns-3's schedulers (src/core/model/scheduler.h, map-scheduler.cc, the default
# one) order events of one time by the uid DefaultSimulatorImpl::Schedule/ScheduleWithContext give
# them from one counter, so they run in the order they were scheduled; PointToPointNetDevice::
# TransmitStart schedules TransmitComplete, then the channel's TransmitStart the peer's Receive,
# both as the transmission begins -> tie_order = "scheduled" (--tie-order event: fabricsim's own).
# ns-3's clock: Time counts whole nanoseconds (its default resolution, src/core/model/time.cc), so
# PointToPointNetDevice::TransmitStart's DataRate::CalculateBytesTxTime rounds each serialization
# to the nearest nanosecond (1502 B at 10 Gb/s: 1202 ns, not 1201.6; ACKs 54 B: 43 ns, not 43.2)
# -> [simulation] time_resolution = "1ns" (both experiments; --time-resolution ps: fabricsim's picoseconds).
NS3_CLOCK = 'time_resolution = "1ns"   # ns-3\'s Time: whole nanoseconds\n'


def ties_line(order: str) -> str:
    """The [simulation] tie_order line for `order` ("scheduled": ns-3's; "event": fabricsim's own)."""
    why = "ns-3's scheduler: equal times by insertion uid" if order == "scheduled" else "--tie-order event: fabricsim's own order"
    return f'tie_order = "{order}"   # {why}\n'


def ns3_tcp(prr: str, echo: bool, loss_exit: bool = False, timestamps: bool = True,
            prr_bytes: bool = True) -> str:
    """The [transport] lines every ns-3 experiment shares, with the ns-3 behaviours chosen (prr:
    "ns3", "rfc6937" or "off"; prr_bytes: PRR's quota in bytes, when PRR is on)."""
    prr_lines = {"ns3": NS3_PRR + NS3_PRR_ENTRY, "rfc6937": NS3_PRR, "off": ""}[prr]
    if prr_lines and prr_bytes:
        prr_lines += NS3_PRR_BYTES
    return NS3_OPEN + prr_lines + (NS3_ECHO if echo else "") + \
        (NS3_LOSS_EXIT if loss_exit else "") + (NS3_TS if timestamps else "")


def device_line(packets: int) -> str:
    """ns-3's switch device queues under the queue discs (0: not mapped, one queue per port)."""
    return f'device_queue = "{packets}pkt"\n' if packets else ""


def dctcp_params(cut: bool, first_window: bool, cut_order: bool, growth: bool = True) -> str:
    """The [transport] cc_params line of ns-3's TcpDctcp rules chosen (NS3_CUT, NS3_FIRST_WINDOW,
    NS3_CUT_ORDER, NS3_GROWTH), or nothing when none is."""
    knobs = [k for k, on in ((NS3_CUT, cut), (NS3_FIRST_WINDOW, first_window), (NS3_CUT_ORDER, cut_order),
                             (NS3_GROWTH, growth)) if on]
    return f"cc_params = {{ {', '.join(knobs)} }}\n" if knobs else ""


def b1_scenario(time_s: float, sample_us: float, out: Path, wait: bool = True, device: int = 1, prr: str = "ns3",
                echo: bool = True, cut: bool = True, loss_exit: bool = False, red_count: str = "ns3",
                ties: str = "scheduled", timestamps: bool = True, jitter_ns: int = 0, ns3_start: bool = True,
                prr_bytes: bool = True, ns_clock: bool = True, red_max_p: float = 0.02, synack: bool = True,
                first_window: bool = True, cut_order: bool = True, cwr_exit: bool = True, recovery: bool = True,
                growth: bool = True, buffer: int = 250) -> Path:
    """B1 as benches/ns3/b1_dctcp.cc runs it in ns-3: B1's settings, but the port to h0 is ns-3's
    RED with MinTh = MaxTh = 65 (gentle by default: not B1's step at 65) and connections open;
    every switch port has ns-3's one-packet device queue below it (`device`, 0: none). Flow hi
    starts at i us and (i - 1) x `jitter_ns` later (--start-jitter). `ns_clock`: ns-3's nanosecond
    clock (NS3_CLOCK). `red_max_p`: RED's max_p at h0's port (the driver's --b1MaxP; 0.7 makes the
    marks deterministic on both sides, for packet-by-packet traces). `synack`, `first_window`,
    `cut_order`: the trace's three rules (NS3_SYNACK, NS3_FIRST_WINDOW, NS3_CUT_ORDER); `cwr_exit`: its
    fourth, NS3_CWR_EXIT; `recovery`: ns-3's loss recovery (NS3_RECOVERY); `growth`: TcpDctcp's growth
    and timeout (NS3_GROWTH, NS3_TIMEOUT); `buffer`: the switch's buffer per port, packets (the
    driver's --b1Buffer; B1's 250)."""
    base = (ROOT / "python" / "fabricsim" / "benchmarks" / "dctcp-16to1.toml").read_text()
    tcp = ns3_tcp(prr, echo, loss_exit, timestamps, prr_bytes) + (NS3_SYNACK if synack else "") + \
        (NS3_CWR_EXIT if cwr_exit else "") + (NS3_RECOVERY if recovery else "") + (NS3_TIMEOUT if growth else "") + \
        dctcp_params(cut, first_window, cut_order, growth)
    base = base.replace('end = "1s"', f'end = "{time_s}s"\n' + ties_line(ties) + (NS3_CLOCK if ns_clock else "").rstrip("\n")).replace("[transport]\n", "[transport]\n" + tcp)
    red = NS3_RED.format(lo=65, hi=65, wait=str(wait).lower(), count=red_count).replace("max_p = 0.02", f"max_p = {red_max_p}")
    base = base.replace('discipline = "ecn"\necn_threshold = "65pkt"', device_line(device) + red)
    assert 'buffer = "250pkt"' in base, "B1's buffer is no longer written as 250pkt"
    base = base.replace('buffer = "250pkt"', f'buffer = "{buffer}pkt"')
    for i in range(1, 17):
        old = f'{{ src = "h{i}", dst = "h0", start = "{i}us" }}'
        assert old in base, f"B1's flow h{i} is no longer written as {old}"
        base = base.replace(old, f'{{ src = "h{i}", dst = "h0", start = "{i * 1000 + (i - 1) * jitter_ns}ns" }}')
    toml = out / f"b1-{time_s}s-j{jitter_ns}-{os.getpid()}.toml"  # runs in parallel must not share a file
    toml.write_text(start_up(base, ns3_start) + f'\n[output]\nsample_interval = "{sample_us}us"\nqueues = ["s0->h0"]\nflows = "all"\n')
    return toml


def example_starts(jitter_ns: int = 0) -> list[tuple[str, str, float]]:
    """(src, dst, start s) of the example's 40 flows, in the order its driver creates them; flow k
    starts k x `jitter_ns` later (--start-jitter)."""
    flows = [(f"S2_{i}", f"R2_{i}", i * 1.0 / 20 + i * 0.005) for i in range(20)]
    flows += [(f"S1_{i}", "R1", i * 1.0 / 10 + i * 0.005) for i in range(10)]
    flows += [(f"S3_{i}", "R1", i * 1.0 / 10 + (i + 10) * 0.005) for i in range(10)]
    return [(src, dst, t + k * jitter_ns * 1e-9) for k, (src, dst, t) in enumerate(flows)]


def example_scenario(time_s: float, sample_us: float, out: Path, wait: bool = True, device: int = 100, prr: str = "ns3",
                     echo: bool = True, cut: bool = True, loss_exit: bool = False, red_count: str = "ns3",
                     ties: str = "scheduled", timestamps: bool = True, jitter_ns: int = 0, ns3_start: bool = True,
                     prr_bytes: bool = True, cwr_exit: bool = True, ns_clock: bool = True, synack: bool = True,
                     first_window: bool = True, cut_order: bool = True, recovery: bool = True, growth: bool = True) -> Path:
    """ns-3's examples/tcp/dctcp-example.cc mapped item by item (the docstring's `example`); flow k
    starts k x `jitter_ns` later (--start-jitter); `device` packets of device queue below every
    switch port's disc (0: none). The same TcpSocketBase/TcpDctcp rules as b1_scenario's, each
    with its flag: `ns_clock` (NS3_CLOCK), `synack`, `first_window`, `cut_order`, `cwr_exit`, `recovery`."""
    hosts = [f"S1_{i}" for i in range(10)] + [f"S2_{i}" for i in range(20)] + [f"S3_{i}" for i in range(10)] + \
            [f"R2_{i}" for i in range(20)] + ["R1"]
    host_sw = {**{h: "T1" for h in hosts if h[:2] in ("S1", "S2")}, **{h: "T2" for h in hosts if h[:2] in ("S3", "R2") or h == "R1"}}
    links = [f'  {{ a = "{h}", b = "{host_sw[h]}", rate = "1Gbps", delay = "10us" }},' for h in hosts]
    trunk_dev = device_line(device).replace("\n", ", ")  # the same key, inline in the link's table
    trunk_q = "{ buffer = \"2666pkt\", " + trunk_dev + NS3_RED.format(lo=50, hi=150, wait=str(wait).lower(), count=red_count).replace("\n", ", ") + " }"
    links.append(f'  {{ a = "T1", b = "T2", rate = "10Gbps", delay = "10us", queue = {trunk_q} }},')
    flows = "".join(f'[[flows]]\nsrc = "{s}"\ndst = "{d}"\nstart = "{round(t * 1e9)}ns"\n' for s, d, t in example_starts(jitter_ns))
    text = f"""name = "ns3-dctcp-example"
description = "ns-3's examples/tcp/dctcp-example.cc mapped item by item (benches/validation/ns3_validate.py)"

[simulation]
end = "{time_s}s"
seed = 1
{ties_line(ties)}{NS3_CLOCK if ns_clock else ""}
[topology]
kind = "explicit"
hosts = {json.dumps(hosts)}
switches = ["T1", "T2"]
links = [
{chr(10).join(links)}
]

[queue]
buffer = "2666pkt"
{device_line(device)}{NS3_RED.format(lo=20, hi=60, wait=str(wait).lower(), count=red_count)}

[transport]
{ns3_tcp(prr, echo, loss_exit, timestamps, prr_bytes)}{NS3_SYNACK if synack else ""}{NS3_CWR_EXIT if cwr_exit else ""}{NS3_RECOVERY if recovery else ""}{NS3_TIMEOUT if growth else ""}{dctcp_params(cut, first_window, cut_order, growth)}cc = "dctcp"
mss = "1448B"
header = "52B"
ack_size = "52B"
initial_cwnd = 10
min_rto = "1s"
delayed_ack = 2
rcv_buffer = "131072B"

[output]
sample_interval = "{sample_us}us"
queues = ["T1->T2", "T2->R1"]
flows = "all"
cwnd = "all"

{flows}"""
    toml = out / f"example-dq{device}-{time_s}s-j{jitter_ns}-{os.getpid()}.toml"
    toml.write_text(start_up(text, ns3_start))
    return toml


def save_runs(out: Path, name: str, ns: list, fab: list) -> None:
    """Each run's raw figures (`--save`): ns-3's driver output, fabricsim's child's JSON."""
    out.mkdir(parents=True, exist_ok=True)
    for i, ((nrun, _), (_, fd)) in enumerate(zip(ns, fab)):
        if nrun.stdout:  # empty when the ns-3 column was read with --ns3-output
            (out / f"ns3-{name}-{i}.txt").write_text(nrun.stdout)
        (out / f"fabricsim-{name}-{i}.json").write_text(json.dumps(fd))


def with_seed(toml: Path, seed: int) -> None:
    """Set the scenario's `[simulation] seed` (both scenarios write `seed = 1`)."""
    text = toml.read_text()
    assert text.count("\nseed = 1\n") == 1, "the scenario no longer writes its seed as seed = 1"
    toml.write_text(text.replace("\nseed = 1\n", f"\nseed = {seed}\n"))


# ---- runs and tables ---------------------------------------------------------------------------

def run_ns3(exe: Path, scenario: str, time_s: float, warmup: float, sample_us: float, device_queue: int,
            jitter_ns: int = 0, seed: int = 1) -> tuple[timing.Run, dict]:
    """One run of the driver; `seed` is ns-3's run number (the global RngRun: 1, its default, gives
    the driver's own streams; RED's draws are the only random ones here)."""
    r = timing.run_timed([str(exe), f"--scenario={scenario}", f"--time={time_s}", f"--warmup={warmup}", f"--sample={sample_us}",
                          f"--deviceQueue={device_queue}", f"--startJitterNs={jitter_ns}", f"--RngRun={seed}"])
    if r.returncode != 0:
        raise SystemExit(f"ns-3 failed:\n{r.stdout[-1000:]}\n{r.stderr[-1500:]}")
    return r, parse_ns3(r.stdout)


def parse_ns3(stdout: str) -> dict:
    """The driver's JSON line (the last line of its output that parses as an object)."""
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise ValueError("no JSON object in the ns-3 driver's output")


def echo_summary(flows: list[dict]) -> dict:
    """ns-3's echo over these flows after the warm-up (the driver's per-flow "echo" counters): the
    share of data segments that arrived CE-marked, of the bytes advancing ACKs acknowledged that
    came with ECE, of the bytes TcpDctcp counted that it counted as ECE (its total includes a
    segment per duplicate ACK), and of the ACKs that were duplicates."""
    t = {k: sum(f["echo"][k] for f in flows) for k in flows[0]["echo"]}
    share = lambda a, b: t[a] / t[b] if t[b] else 0.0
    return {"ce": share("ce", "data"), "ece_acked": share("adv_ece_bytes", "adv_bytes"),
            "ece_counted": share("cc_ece_bytes", "cc_bytes"), "duplicates": share("dup_acks", "acks")}


def echo_note(nd: dict, groups: list[str] | None) -> list[str]:
    """One line per group (or for all flows) of ns-3's echo (`echo_summary`), when the driver counted it."""
    if not nd["flows"] or "echo" not in nd["flows"][0]:
        return []
    lines = []
    for g in groups or [None]:
        e = echo_summary([f for f in nd["flows"] if g is None or f["group"] == g])
        lines.append(f"ns-3's echo{' ' + g if g else ''}: CE on {e['ce']:.1%} of data segments, ECE on {e['ece_acked']:.1%} of "
                     f"the bytes ACKs advanced over, {e['ece_counted']:.1%} of what TcpDctcp counted; "
                     f"{e['duplicates']:.1%} of ACKs duplicates")
    return lines


def timeouts_note(labels: list[str], nd: dict, fd: dict) -> str:
    """Each simulator's timeouts by flow (only the flows that had any)."""
    def by_flow(counts):
        return ", ".join(f"{n} {c}" for n, c in zip(labels, counts) if c) or "none"
    return (f"timeouts by flow: ns-3 {by_flow([f.get('timeouts', 0) for f in nd['flows']])}; "
            f"fabricsim {by_flow(fd.get('timeouts', []))}")


def run_fabricsim(toml: Path, warmup: float, ports: list[str], device: int) -> tuple[timing.Run, dict]:
    return timing.run_python(FABRICSIM, str(toml), repr(warmup), ",".join(ports), str(device))


def table(title: str, notes: list[str], version: str, ns: list, fab: list, window: float, groups: list[str] | None) -> Table:
    nd, fd = ns[0][1], fab[0][1]
    ng = [f["rx_after_warmup"] * 8 / window / 1e9 for f in nd["flows"]]
    fg = [b * 8 / window / 1e9 for b in fd["rx_after_warmup"]]
    rows = list(goodput_rows(ng, fg))
    if groups:
        for g in groups:
            idx = [i for i, f in enumerate(nd["flows"]) if f["group"] == g]
            rows.append((f"{g}: total goodput (Gb/s)", sum(ng[i] for i in idx), sum(fg[i] for i in idx)))
            rows.append((f"{g}: Jain", jain([ng[i] for i in idx]), jain([fg[i] for i in idx])))
            # The senders' state, averaged over the samples after the warm-up and over the group.
            nf, ff = [nd["flows"][i] for i in idx], [fd["per_flow"][i] for i in idx]
            if ff and "cwnd" in ff[0]:
                mean = lambda xs: sum(xs) / len(xs)
                rows.append((f"{g}: cwnd (packets)", mean([x["cwnd_mean"] / 1448 for x in nf]), mean([x["cwnd"] for x in ff])))
                rows.append((f"{g}: DCTCP alpha", mean([x["alpha_mean"] for x in nf]), mean([x["dctcp_alpha"] for x in ff])))
                rows.append((f"{g}: smoothed RTT (ms)", mean([x["srtt_mean_s"] * 1e3 for x in nf]), mean([x["srtt_s"] * 1e3 for x in ff])))
    for nq, fq in zip(nd["queues"], fd["queues"]):
        p = nq["port"]
        rows += [(f"{p}: mean queue (packets)", nq["mean_packets"], fq["mean_packets"]),
                 (f"{p}: p99 queue (packets)", float(nq["p99_packets"]), fq["p99_packets"]),
                 (f"{p}: mean queue + device (packets)", nq["mean_with_device"], fq["mean_with_device"]),
                 (f"{p}: ECN marks", float(nq["marks"]), fq["marks"]), (f"{p}: drops", float(nq["drops"]), fq["drops"])]
        if "marks_after_warmup" in nq:
            rows.append((f"{p}: ECN marks in the window", float(nq["marks_after_warmup"]), fq["marks_after_warmup"]))
    rows.append(("retransmissions", float(nd["retransmits"]), fd["retransmits"]))
    sn, sf = timing.Summary.of([r for r, _ in ns]), timing.Summary.of([r for r, _ in fab])
    cost = [("wall s (min of runs)", sn.wall_min, sf.wall_min), ("CPU s (min of runs)", sn.cpu_min, sf.cpu_min),
            ("peak memory MB", sn.maxrss_mb, sf.maxrss_mb)]
    notes = notes + [f"{sn.runs} runs of each, interleaved; wall spread ns-3 {sn.wall_spread:.0%}, fabricsim {sf.wall_spread:.0%}; "
                     f"measured on a loaded machine"]
    return Table(f"== {title} ==", f"ns-3 {version}", rows, notes, cost)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("--ns3", required=True, type=Path, help="an ns-3 source tree, configured and built (not downloaded)")
    ap.add_argument("--experiment", default="all", choices=["all", "b1", "example", "example-dq1"])
    ap.add_argument("--time", type=float, help="simulated seconds (default: b1 0.2, example 2.0)")
    ap.add_argument("--window", type=float, help="measurement window at the end, seconds (default: b1 0.15, example 0.5)")
    ap.add_argument("--sample", type=float, default=100, help="queue sampling interval, us (default 100)")
    ap.add_argument("--runs", type=int, default=1, help="runs of each simulator, interleaved (default 1)")
    ap.add_argument("--peer-commit", help="the ns-3 tree's commit, when it has no .git")
    ap.add_argument("--red-wait", choices=["on", "off"], default="on",
                    help="map ns-3 RED's Wait (its default, on) or FJ93's marking as Linux's (off), to show what Wait accounts for")
    ap.add_argument("--device-queue", choices=["on", "off"], default="on",
                    help="map ns-3's switch device queues (device_queue: 1 packet in B1, 100 in example, 1 in example-dq1; "
                         "on) or give fabricsim's ports one queue (off), to show what they account for")
    ap.add_argument("--prr", choices=["on", "rfc6937", "off"], default="on",
                    help="map ns-3's Proportional Rate Reduction after ECE (prr = true, prr_entry = \"ns3\": the first ACK's "
                         "delivery counted twice; on), RFC 6937's (counted once: rfc6937) or cut cwnd to ssthresh at once (off)")
    ap.add_argument("--prr-units", choices=["bytes", "segments"], default="bytes",
                    help="map ns-3's PRR quota in bytes (prr_units = \"bytes\": ceil(delivered x ssthresh / RecoverFS) "
                         "rounded up in bytes, whole segments sent, as TcpPrrRecovery::DoRecovery; default) or "
                         "fabricsim's in whole segments (segments), to show what it accounts for")
    ap.add_argument("--dctcp-echo", choices=["ns3", "rfc8257"], default="ns3",
                    help="map ns-3's DCTCP receiver echo (dctcp_echo = \"ns3\"; default) or RFC 8257's exact echo")
    ap.add_argument("--dctcp-cut", choices=["ns3", "linux"], default="ns3",
                    help="map ns-3's DCTCP window cut (cc_params byte_cut = 1; default) or Linux's integer cut with its floor of 2")
    ap.add_argument("--loss-exit", choices=["ns3", "acked"], default="ns3",
                    help="map ns-3's way of leaving a timeout's loss state (loss_exit = \"ns3\": growth only by what lies "
                         "beyond the recovery point, and an ECE on that ACK entering CWR; default) or grow by all "
                         "acknowledged (acked)")
    ap.add_argument("--red-count", choices=["ns3", "fj93"], default="ns3",
                    help="map ns-3 RED's count (red.count = \"ns3\": the first arrival above MinTh after a spell below "
                         "only restarts the count, no mark with one packet queued, forced marks keep the count; "
                         "default) or FJ93's, to show what it accounts for")
    ap.add_argument("--tie-order", choices=["scheduled", "event"], default="scheduled",
                    help="map ns-3's order of same-instant events (tie_order = \"scheduled\": the order they were "
                         "scheduled in; default) or keep fabricsim's own (event), to show what it accounts for")
    ap.add_argument("--timestamps", choices=["on", "off"], default="on",
                    help="map ns-3's RFC 7323 timestamps (timestamps = true: every advancing ACK an RTT sample, so a "
                         "timeout's back-off ends with the next one, as NewAck's RTO; default) or Karn's rule (off)")
    ap.add_argument("--start-up", choices=["ns3", "off"], default="ns3",
                    help="map ns-3's start-up (handshake_ack, ack_first_data: the handshake's ACK a packet of its own, "
                         "the first data segment acknowledged at once) and its sizes on the wire (SYN 58 B, the PPP "
                         "header's 2 B on every packet; default) or leave them out (off), to show what they account for")
    ap.add_argument("--time-resolution", choices=["ns", "ps"], default="ns",
                    help="map ns-3's nanosecond clock in both experiments (time_resolution = \"1ns\": each serialization rounded to the "
                         "nanosecond as DataRate::CalculateBytesTxTime, 1502 B at 10 Gb/s 1202 ns; default) or keep "
                         "fabricsim's picoseconds (ps: 1201.6 ns), to show what it accounts for")
    ap.add_argument("--synack", choices=["ns3", "ack"], default="ns3",
                    help="map ns-3's 58 B SYN-ACK in both experiments (synack_size = \"58B\"; default) or send it at ack_size (ack)")
    ap.add_argument("--dctcp-first-window", choices=["ns3", "linux"], default="ns3",
                    help="map ns-3's first alpha window in both experiments, set at the first ACK (cc_params first_window_at_ack = 1; "
                         "default) or Linux's, closed by the first ACK (linux)")
    ap.add_argument("--dctcp-cut-order", choices=["ns3", "linux"], default="ns3",
                    help="map ns-3's cut in both experiments before the ACK's alpha update (cc_params cut_before_alpha = 1; default) "
                         "or Linux's order, alpha first (linux)")
    ap.add_argument("--dctcp-growth", choices=["ns3", "linux"], default="ns3",
                    help="map TcpDctcp's growth and timeout in both experiments (cc_params ns3_growth = 1, "
                         "ns3_loss_cut = 1: TcpLinuxReno's IncreaseWindow with its kept count, the timeout's "
                         "ssthresh the alpha cut; default) or keep Linux's (tcp_reno_cong_avoid, halving)")
    ap.add_argument("--recovery", choices=["ns3", "linux"], default="ns3",
                    help="map ns-3's loss recovery in both experiments (prr_recovery = true: PRR in fast "
                         "recovery too; recovery_from_cwr = false: no fast recovery during a CWR episode; "
                         "default) or keep fabricsim's (linux: cwnd = ssthresh on entering fast recovery, "
                         "which duplicate ACKs may start during CWR)")
    ap.add_argument("--cwr-exit", choices=["beyond", "at"], default="beyond",
                    help="map ns-3's end of a CWR episode (cwr_exit = \"beyond\": only an ACK beyond the "
                         "point recorded at its start ends it, TcpSocketBase::ReceivedAck; default) or end it on the ACK "
                         "of that point (at), to show what it accounts for")
    ap.add_argument("--ns3-output", type=Path,
                    help="take the ns-3 column from this file, the driver's output of an earlier run of the same "
                         "experiment and settings (ns-3 is deterministic; its wall and CPU time are then not measured), "
                         "instead of running ns-3 again: a 5 s example costs ns-3 about 6 CPU minutes")
    ap.add_argument("--start-jitter", type=int, default=0, metavar="NS",
                    help="flow k (0-based, in the driver's order) starts k x NS nanoseconds later in both simulators, "
                         "a perturbation that changes no rule, to show how much a figure owes to the start-up's "
                         "phase (default 0: the experiment's own starts)")
    ap.add_argument("--seed", type=int, default=1, metavar="N",
                    help="the random streams' seed in both simulators: ns-3's run number (--RngRun) and fabricsim's "
                         "[simulation] seed (default 1, both simulators' own). RED's marks are the only draws: with one "
                         "seed every start draws the same numbers, so figures over many starts share one draw sequence")
    ap.add_argument("--save", type=Path, metavar="DIR",
                    help="also write each run's raw figures into DIR: ns-3's driver output (ns3-E-RUN.txt, readable "
                         "again with --ns3-output) and fabricsim's per-flow and per-port figures (fabricsim-E-RUN.json)")
    ap.add_argument("--build", type=Path, default=HERE / "build")
    a = ap.parse_args()
    if a.seed < 1:
        ap.error(f"--seed must be 1 or more (ns-3's RngRun), not {a.seed}")
    if a.start_jitter < 0:
        ap.error(f"--start-jitter must be 0 or more nanoseconds, not {a.start_jitter}")
    if a.ns3_output and a.experiment == "all":
        ap.error("--ns3-output holds one experiment's ns-3 output: name it with --experiment b1|example|example-dq1")
    wait = a.red_wait == "on"
    exe = build_driver(a.ns3.resolve(), a.build)
    version = ns3_version(a.ns3.resolve(), a.peer_commit)
    names = ["b1", "example", "example-dq1"] if a.experiment == "all" else [a.experiment]
    for name in names:
        b1 = name == "b1"
        time_s = a.time or (0.2 if b1 else 2.0)
        window = a.window or (0.15 if b1 else 0.5)
        warm = time_s - window
        dq = 1 if name != "example" else 100
        fdq = dq if a.device_queue == "on" else 0
        prr = {"on": "ns3"}.get(a.prr, a.prr)
        prr_bytes = a.prr_units == "bytes"
        echo = a.dctcp_echo == "ns3"
        cut = a.dctcp_cut == "ns3"
        loss_exit = a.loss_exit == "ns3"
        ts = a.timestamps == "on"
        toml = (b1_scenario(time_s, a.sample, a.build, wait, fdq, prr, echo, cut, loss_exit, a.red_count, a.tie_order, ts,
                            a.start_jitter, a.start_up == "ns3", prr_bytes, a.time_resolution == "ns",
                            synack=a.synack == "ns3", first_window=a.dctcp_first_window == "ns3",
                            cut_order=a.dctcp_cut_order == "ns3", cwr_exit=a.cwr_exit == "beyond",
                            recovery=a.recovery == "ns3", growth=a.dctcp_growth == "ns3") if b1
                else example_scenario(time_s, a.sample, a.build, wait, fdq, prr, echo, cut, loss_exit, a.red_count, a.tie_order, ts,
                                   a.start_jitter, a.start_up == "ns3", prr_bytes, a.cwr_exit == "beyond",
                                   ns_clock=a.time_resolution == "ns", synack=a.synack == "ns3",
                                   first_window=a.dctcp_first_window == "ns3", cut_order=a.dctcp_cut_order == "ns3",
                                   recovery=a.recovery == "ns3", growth=a.dctcp_growth == "ns3"))
        with_seed(toml, a.seed)
        ports = ["s0->h0"] if b1 else ["T1->T2", "T2->R1"]
        ns, fab = [], []
        for _ in range(a.runs):
            if a.ns3_output:
                nan = float("nan")
                ns.append((timing.Run(nan, nan, nan, 0, "", ""), parse_ns3(a.ns3_output.read_text())))
            else:
                ns.append(run_ns3(exe, "b1" if b1 else "example", time_s, warm, a.sample, dq, a.start_jitter, a.seed))
            fab.append(run_fabricsim(toml, warm, ports, fdq))
        if a.save:
            save_runs(a.save, name, ns, fab)
        notes = [f"{time_s} s simulated, goodput and queues over the last {window} s (queue sampled every {a.sample:g} us)"]
        if a.ns3_output:
            notes.append(f"ns-3 column read from the driver's output of an earlier run ({a.ns3_output.name}; not timed)")
        if not wait:
            notes.append("fabricsim's RED without ns-3's Wait (--red-wait off)")
        if a.red_count != "ns3":
            notes.append("fabricsim's RED counts as FJ93 (--red-count fj93)")
        if prr == "off":
            notes.append("fabricsim cuts cwnd to ssthresh at once after ECE (--prr off)")
        if prr == "rfc6937":
            notes.append("fabricsim's PRR counts the first ACK's delivery once (--prr rfc6937)")
        if prr != "off" and not prr_bytes:
            notes.append("fabricsim's PRR quota rounded up to whole segments, not bytes (--prr-units segments)")
        if not echo:
            notes.append("fabricsim's DCTCP echo as RFC 8257 (--dctcp-echo rfc8257)")
        if not cut:
            notes.append("fabricsim's DCTCP cut as Linux's (--dctcp-cut linux)")
        if not loss_exit:
            notes.append("fabricsim leaves a timeout's loss state growing by all it acknowledged (--loss-exit acked)")
        if not ts:
            notes.append("fabricsim's RTO keeps its back-off until a sample from a segment sent once (Karn's rule; --timestamps off)")
        if a.start_jitter:
            notes.append(f"flow k starts k x {a.start_jitter} ns later than the experiment's own start in both simulators (--start-jitter)")
        if a.seed != 1:
            notes.append(f"seed {a.seed} in both simulators: ns-3's --RngRun, fabricsim's [simulation] seed (--seed)")
        if a.start_up != "ns3":
            notes.append("fabricsim's start-up without ns-3's handshake ACK, first-data ACK and wire sizes (--start-up off)")
        if a.time_resolution != "ns":
            notes.append("fabricsim's picosecond clock, serializations not rounded to ns-3's nanoseconds (--time-resolution ps)")
        if a.synack != "ns3":
            notes.append("fabricsim's SYN-ACK at ack_size, not ns-3's 58 B (--synack ack)")
        if a.dctcp_first_window != "ns3":
            notes.append("fabricsim's first alpha window closed by the first ACK, as Linux (--dctcp-first-window linux)")
        if a.dctcp_cut_order != "ns3":
            notes.append("fabricsim's DCTCP updates alpha before an ACK's cut, as Linux (--dctcp-cut-order linux)")
        if a.cwr_exit != "beyond":
            notes.append("fabricsim ends a CWR episode on the ACK of its recovery point (--cwr-exit at)")
        if a.dctcp_growth != "ns3":
            notes.append("fabricsim's DCTCP grows as Linux's tcp_reno_cong_avoid and halves at a timeout (--dctcp-growth linux)")
        if a.recovery != "ns3":
            notes.append("fabricsim's own loss recovery: cwnd = ssthresh on entering fast recovery, which a CWR episode may start; RACK and TLP on (--recovery linux)")
        if a.tie_order != "scheduled":
            notes.append("fabricsim runs same-instant events in its own order, by kind and port (--tie-order event)")
        notes.append(f"ns-3 switch device queues: {dq} packet{'s' if dq > 1 else ''}; fabricsim "
                     + (f"device_queue = {fdq}pkt" if fdq else "without (--device-queue off)"))
        groups = None if b1 else ["S1->R1", "S2->R2", "S3->R1"]
        labels = [f"h{i}" for i in range(1, 17)] if b1 else [src for src, _, _ in example_starts()]
        notes += echo_note(ns[0][1], groups) + [timeouts_note(labels, ns[0][1], fab[0][1])]
        print("\n".join(table(f"ns-3 {name}", notes, version, ns, fab, window, groups).lines()) + "\n", flush=True)


if __name__ == "__main__":
    main()
