"""pcap traces of the packets a run recorded (``[output.pcap]`` or ``fabricsim run --pcap``).

Each captured port or host gets one standard pcap file (nanosecond timestamps, Ethernet link
type) that Wireshark and tshark open as any capture:

- a **port** ("s0->h0") file holds what the port transmitted, stamped when serialization started
  (as tcpdump on an egress interface sees it), wire losses included;
- a **host** ("h1") file holds what the host sent (stamped at the start of serialization on its
  NIC) and what reached it (stamped when the last bit arrived; lost packets are absent).

Headers (only headers are written: the frame's captured length stops after them, its original
length is the packet's full size, as with a short snap length):

- Ethernet II: MAC 02:00:00:00:00:00 + host index + 1, EtherType IPv4.
- IPv4: host with index i (the topology's hosts in order; h{i} for the built-in topologies) is
  10.0.0.0 + i + 1; DSCP = the packet's class (0-7; in fabricsim class 0 is the most urgent, this
  is not the Class Selector meaning); ECN = Not-ECT / ECT(0) / CE as the packet carries it; total
  length = the packet's size in the simulator (headers + payload); TTL 64, DF, header checksum.
- TCP: the flow's sender uses port 10000 + flow number mod 50000, the receiver port 5001.
  Sequence numbers: the SYN is 0, payload byte k of the flow is sequence number 1 + k (mod 2^32),
  and ACK numbers follow; SYN and SYN-ACK (with ``handshake = true``) carry SACK-permitted and a
  window scale of 7; the window field is the simulator's window in bytes >> 7 (65535 when
  unlimited or larger). Every segment but the SYN has ACK set; FIN, PSH, ECE and CWR as the
  simulator sets them; SACK blocks as a SACK option (RFC 2018). The header is padded with NOPs
  to the size the simulator gave it (its ``header`` / ``ack_size``) when options allow, so frame
  lengths match the simulator's packet sizes: a timestamp option (TSval = the time in
  microseconds, TSecr 0) where 12 bytes are free, NOPs otherwise. A data segment's window is
  65535 unless a switch wrote one (SAB). The checksum is left 0.
- Other transports are written as UDP (ports as above) with a 20-byte payload header:
  ``b"FSIM"``, kind (u8: 0 data, 1 ACK, 2 SYN, 3 SYN-ACK, 4 control), class (u8), flags (u8,
  bit 0 = trimmed), 0 (u8), flow number (u32), rank (u64), big-endian.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Optional

import pandas as pd

SACK_BLOCKS = 3
WSCALE = 7
MAGIC_NS = 0xA1B23C4D
KIND_NAMES = {0: "data", 1: "ack", 2: "syn", 3: "synack", 4: "control"}
SENDER_PORT_BASE, RECEIVER_PORT = 10000, 5001


def packets_frame(cols: dict) -> pd.DataFrame:
    """The engine's capture columns as a DataFrame, one row per packet and captured port
    (SACK blocks as sack{1,2,3}_left/right).

    Example::

        >>> packets = packets_frame(sim.capture())   # doctest: +SKIP
    """
    cols = dict(cols)
    cols.pop("dropped", None)
    cols.pop("hosts", None)
    sack = cols.pop("sack")
    for k, v in cols.items():
        if isinstance(v, (bytes, bytearray)):  # the engine's u8 columns arrive as bytes
            cols[k] = pd.array(list(v), dtype="uint8")
    df = pd.DataFrame(cols)
    for b in range(SACK_BLOCKS):
        df[f"sack{b + 1}_left"] = pd.Series(sack[2 * b::2 * SACK_BLOCKS], dtype="uint64")
        df[f"sack{b + 1}_right"] = pd.Series(sack[2 * b + 1::2 * SACK_BLOCKS], dtype="uint64")
    for c in ("seq", "ack", "rank", "time_ps", "arrive_ps"):
        df[c] = df[c].astype("uint64")
    df["time_s"] = df["time_ps"] / 1e12
    return df


def ip_of(host_index: int) -> int:
    """The IPv4 address (as an integer) of the host with this index: 10.0.0.0 + index + 1.

    Example::

        >>> import ipaddress; ipaddress.IPv4Address(ip_of(0))
        IPv4Address('10.0.0.1')
    """
    return 0x0A000000 + host_index + 1


def _checksum(b: bytes) -> int:
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _mac(host_index: int) -> bytes:
    return b"\x02\x00" + struct.pack("!I", (host_index + 1) & 0xFFFFFFFF)


def _tcp_header(r, sport: int, dport: int) -> bytes:
    kind, flags = int(r["kind"]), int(r["flags"])
    if kind in (2, 3):  # SYN, SYN-ACK: seq 0; the SYN-ACK acknowledges the SYN
        seq, ack = 0, (1 if kind == 3 else 0)
        opts = b"\x01\x03\x03" + bytes([WSCALE]) + b"\x01\x01\x04\x02"
    elif kind == 0:
        seq, ack = (1 + int(r["seq"])) & 0xFFFFFFFF, 1
        opts = b""
    else:
        seq, ack = 1, (1 + int(r["ack"])) & 0xFFFFFFFF
        n = int(r["sack_count"])
        opts = b""
        if n:
            blocks = b"".join(struct.pack("!II", (1 + int(r[f"sack{i + 1}_left"])) & 0xFFFFFFFF,
                                          (1 + int(r[f"sack{i + 1}_right"])) & 0xFFFFFFFF) for i in range(n))
            opts = b"\x01\x01" + bytes([5, 2 + 8 * n]) + blocks
    # Fill the simulator's header size when the options fit and it is a valid TCP length: a
    # timestamp option first (TSval = the time in microseconds; what the 12 B beyond 40 B of a
    # Linux header hold), then NOPs.
    target = int(r["size"]) - 20 - int(r["len"])
    hlen = 20 + len(opts)
    if hlen <= target <= 60 and target % 4 == 0:
        pad = target - hlen
        if pad >= 12:
            ts = b"\x01\x01\x08\x0a" + struct.pack("!II", (int(r.get("_t", r["time_ps"])) // 1_000_000) & 0xFFFFFFFF, 0)
            opts, pad = ts + opts, pad - 12
        opts += b"\x01" * pad
    else:
        opts += b"\x01" * ((-len(opts)) % 4)
    w = int(r["window"])
    # Data segments carry no window of their own (0 here) unless a switch wrote one (SAB).
    window = 0xFFFF if w == 0xFFFFFFFF or (kind == 0 and w == 0) else min(w >> WSCALE, 0xFFFF)
    off = (20 + len(opts)) // 4
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, off << 4, flags, window, 0, 0) + opts


def frame(r: dict, ident: int = 0) -> tuple[bytes, int]:
    """One row of `packets_frame` as Ethernet/IPv4/TCP-or-UDP header bytes, and the frame's
    original length.

    Example::

        >>> data, length = frame(res.packets.iloc[0].to_dict())   # doctest: +SKIP
    """
    src, dst, kind = int(r["src"]), int(r["dst"]), int(r["kind"])
    flow_port = SENDER_PORT_BASE + int(r["flow"]) % 50000
    forward = kind in (0, 2)  # data and SYN go from the flow's sender
    sport, dport = (flow_port, RECEIVER_PORT) if forward else (RECEIVER_PORT, flow_port)
    if bool(r["tcp"]):
        l4, proto = _tcp_header(r, sport, dport), 6
    else:
        payload = b"FSIM" + struct.pack("!BBBBIQ", kind, int(r["class"]),
                                        int(bool(r["trimmed"])), 0, int(r["flow"]) & 0xFFFFFFFF, int(r["rank"]))
        l4, proto = struct.pack("!HHHH", sport, dport, max(8, int(r["size"]) - 20) & 0xFFFF, 0) + payload, 17
    total = max(int(r["size"]), 20 + len(l4) if proto == 17 else 20 + len(l4) + int(r["len"]))
    ip = struct.pack("!BBHHHBBHII", 0x45, (int(r["class"]) << 2) | int(r["ecn"]), total & 0xFFFF, ident & 0xFFFF,
                     0x4000, 64, proto, 0, ip_of(src), ip_of(dst))
    ip = ip[:10] + struct.pack("!H", _checksum(ip)) + ip[12:]
    eth = _mac(dst) + _mac(src) + b"\x08\x00"
    return eth + ip + l4, 14 + total


def write(packets: pd.DataFrame, path: str | Path, arrivals: Optional[pd.Series] = None) -> int:
    """Write rows of `packets_frame` as one pcap file, in time order. Rows where `arrivals` is
    true are stamped with their arrival time (a host's received packets), others with their
    transmission start. Returns the number of packets written.

    Example::

        >>> res = fabricsim.run("scenarios/example.toml", overrides=["output.pcap.ports=['s0->h0']"])  # doctest: +SKIP
        >>> fabricsim.pcap.write(res.packets[res.packets.port == "s0->h0"], "s0_to_h0.pcap")   # doctest: +SKIP
        1204
    """
    p = Path(path)
    df = packets.copy()
    arr = arrivals.reindex(df.index).fillna(False).astype(bool) if arrivals is not None else pd.Series(False, index=df.index)
    df["_t"] = df["arrive_ps"].where(arr, df["time_ps"]).astype("uint64")
    df = df.sort_values("_t", kind="stable")
    out = [struct.pack("<IHHiIII", MAGIC_NS, 2, 4, 0, 0, 65535, 1)]
    for i, r in enumerate(df.to_dict("records")):
        data, orig = frame(r, i)
        t = int(r["_t"]) // 1000  # ps -> ns
        out.append(struct.pack("<IIII", t // 1_000_000_000, t % 1_000_000_000, len(data), orig) + data)
    p.write_bytes(b"".join(out))
    return len(df)


def file_name(target: str) -> str:
    """The pcap file of a port or host: "s0->h0" -> "s0_to_h0.pcap", "h1" -> "h1.pcap".

    Example::

        >>> file_name("s0->h0")
        's0_to_h0.pcap'
    """
    return target.replace("->", "_to_").replace("/", "_") + ".pcap"


def write_all(packets: pd.DataFrame, ports: pd.DataFrame, spec: dict, directory: str | Path) -> list[Path]:
    """One pcap per port and host in `spec` (the scenario's ``[output.pcap]``) into `directory`.

    Example::

        >>> write_all(res.packets, res.ports, {"ports": ["s0->h0"], "hosts": ["h1"]}, "traces")   # doctest: +SKIP
    """
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    written = []
    for port in spec.get("ports", []) or []:
        rows = packets[packets["port"] == port]
        write(rows, d / file_name(port))
        written.append(d / file_name(port))
    if spec.get("hosts"):
        ends = ports.set_index("port")[["node", "peer"]]
        node = packets["port"].map(ends["node"])
        peer = packets["port"].map(ends["peer"])
        for host in spec["hosts"]:
            out = node == host
            into = (peer == host) & ~packets["lost"]
            rows = packets[out | into]
            write(rows, d / file_name(host), arrivals=into[out | into])
            written.append(d / file_name(host))
    return written
