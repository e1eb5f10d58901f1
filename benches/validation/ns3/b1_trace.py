"""B1 packet by packet: ns-3's host trace against fabricsim's capture of the same start, per flow.

Run ns-3's driver with a host trace first, e.g. (deterministic marks: --b1MaxP 0.7, any value in
(0.5, 1) marks the arrival after an unmarked one and never the next under RED's Wait):

    dctcp_ns3 --scenario=b1 --time=0.2 --warmup=0.05 --sample=100 --deviceQueue=1 \\
        --startJitterNs=25 --b1MaxP=0.7 --hostTrace=host.txt --traceFrom=0 --traceUntil=0.2

then

    python benches/validation/ns3/b1_trace.py host.txt --start-jitter 25 --max-p 0.7 -o /tmp/b1trace

runs fabricsim's B1 (ns3_validate.b1_scenario: the whole mapping) at the same start with every
host link captured and prints, per flow, the first delivery (data at h0, ACKs at the sender) and
the first data packet onto the sender's wire that differ (kind, sequence or ACK number, CE, ECE
and CWR flags, time to the nanosecond). ns-3's wire times are rebuilt from the times it hands
packets to IP: its NIC sends one at a time at 10 Gb/s (1202 ns a data packet, 46 a SYN, 43 an
ACK, ns-3's rounding).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import ns3_validate as v  # noqa: E402

SYN, ACK = 0x02, 0x10
ECE_CWR = 0xC0
WIRE_NS = {"data": 1202, "syn": 46, "ack": 43}  # ns-3's serializations at 10 Gb/s, whole ns


def read_ns3(path: Path) -> pd.DataFrame:
    """The driver's --hostTrace: ev (S handed to IP, R delivered up), t ns, flow (1-based), seq,
    ack, flags, payload bytes, ce."""
    rows = [line.split() for line in path.read_text().splitlines()]
    df = pd.DataFrame(rows, columns=["ev", "t", "flow", "seq", "ack", "fl", "pay", "ce"])
    for c in df.columns[1:]:
        df[c] = df[c].astype("int64")
    df["flow"] += 1
    return df


def run_fabricsim(jitter: int, max_p: float, ns_clock: bool, out: Path, buffer: int = 250) -> pd.DataFrame:
    import fabricsim

    out.mkdir(parents=True, exist_ok=True)
    toml = v.b1_scenario(0.2, 100, out, loss_exit=True, jitter_ns=jitter, red_max_p=max_p, ns_clock=ns_clock, buffer=buffer)
    ports = [f"h{i}->s0" for i in range(17)] + [f"s0->h{i}" for i in range(17)]
    toml.write_text(toml.read_text() + "\n[output.pcap]\nports = [" + ", ".join(f'"{p}"' for p in ports)
                    + "]\nmax_packets = 5000000\n")
    p = fabricsim.run(str(toml), progress=False).packets
    p["flow"] = p["src"].where(p["dst"] == 0, p["dst"]).astype("int64")
    return p


def deliveries(ns: pd.DataFrame, fab: pd.DataFrame, f: int) -> str:
    a = ns[(ns.ev == "R") & (ns.flow == f)].reset_index(drop=True)
    b = fab[fab.port.str.startswith("s0->") & (fab.flow == f)].sort_values("arrive_ps", kind="stable").reset_index(drop=True)
    for i in range(min(len(a), len(b))):
        x, y = a.loc[i], b.loc[i]
        t = y.arrive_ps / 1000
        if x.fl & SYN:  # SYN or SYN-ACK (ns-3 counts the SYN's byte; fabricsim's SYNs carry no ECE/CWR)
            same = int(y.kind) in (2, 3) and x.t == t
        else:
            same = (x.pay > 0) == (y.len > 0) and x.ce == int(y.ecn == 3) and (x.fl & ECE_CWR) == (int(y["flags"]) & ECE_CWR) \
                and (x.seq == y.seq + 1 if x.pay > 0 else x.ack == y.ack + 1) and x.t == t
        if not same:
            return (f"delivery #{i}: ns-3 {x.t} ns seq {x.seq} ack {x.ack} flags {x.fl} ce {x.ce} | "
                    f"fabricsim {t:.0f} ns seq {y.seq + 1} ack {y.ack + 1} flags {int(y['flags'])} ce {int(y.ecn == 3)}")
    return f"deliveries: the same ({min(len(a), len(b))})"


def sends(ns: pd.DataFrame, fab: pd.DataFrame, f: int) -> str:
    s = ns[(ns.ev == "S") & (ns.flow == f)]
    # The sender's own packets: data, its SYN (no ACK flag), the handshake's ACK (seq = ack = 1).
    s = s[(s.pay > 0) | ((s.fl & (SYN | ACK)) == SYN) | ((s.seq == 1) & (s.ack == 1))].reset_index(drop=True)
    free, wire = 0, []
    for r in s.itertuples():
        start = max(r.t, free)
        wire.append(start)
        free = start + WIRE_NS["data" if r.pay > 0 else "syn" if r.fl & SYN else "ack"]
    s["wire"] = wire
    a = s[s.pay > 0].reset_index(drop=True)
    b = fab[(fab.port == f"h{f}->s0") & (fab.len > 0)].reset_index(drop=True)
    for i in range(min(len(a), len(b))):
        x, y = a.loc[i], b.loc[i]
        if x.seq != y.seq + 1 or x.wire != y.time_ps / 1000:
            return f"send #{i}: ns-3 seq {x.seq} onto the wire at {x.wire} ns | fabricsim seq {y.seq + 1} at {y.time_ps / 1000:.0f} ns"
    return f"sends: the same ({min(len(a), len(b))})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("host_trace", type=Path, help="the driver's --hostTrace file (from 0 s)")
    ap.add_argument("--start-jitter", type=int, default=0, metavar="NS", help="the driver's --startJitterNs")
    ap.add_argument("--max-p", type=float, default=0.02, help="RED's max_p, the driver's --b1MaxP (default 0.02, ns-3's)")
    ap.add_argument("--buffer", type=int, default=250, help="the switch's buffer per port, packets: the driver's --b1Buffer (default 250, B1's)")
    ap.add_argument("--ps-clock", action="store_true", help="fabricsim on its picosecond clock (default: ns-3's nanoseconds)")
    ap.add_argument("-o", "--out", type=Path, default=Path("b1-trace"), help="fabricsim's scenario goes here")
    a = ap.parse_args()
    if not a.host_trace.exists():
        ap.error(f"{a.host_trace}: no such file (run dctcp_ns3 with --hostTrace first)")
    if not 0 < a.max_p < 1:
        ap.error(f"--max-p must be in (0, 1), not {a.max_p}")
    ns = read_ns3(a.host_trace)
    fab = run_fabricsim(a.start_jitter, a.max_p, not a.ps_clock, a.out, a.buffer)
    for f in range(1, 17):
        print(f"h{f}: {deliveries(ns, fab, f)}\n     {sends(ns, fab, f)}")


if __name__ == "__main__":
    main()
