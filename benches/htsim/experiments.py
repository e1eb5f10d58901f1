"""The htsim experiments fabricsim is compared with, defined once for both sides: the htsim
driver's command line and the fabricsim scenario, mapped key by key.

Used by benches/htsim/compare.py (speed) and benches/validation/htsim_validate.py (agreement).

dctcp: htsim's DCTCP permutation, sim/datacenter/old_tests/main_dctcp_permutation.cpp (main()),
  against B4 (python/fabricsim/benchmarks/fattree-permutation.toml) at fat-tree size k:
    -nodes N (k^3/4), FatTreeTopology(N, ...)  -> [topology] kind = "fat_tree", k
    linkspeed = speedFromMbps(10000) in main(), RTT = 1 us per link -> link = { rate = "10Gbps", delay = "1us" }
    -q 100 (queuesize in packets, memFromPkt) -> [queue] buffer = "100pkt"
    queue type ECN: ECNQueue marking above memFromPkt(15) (FatTreeTopology::alloc_queue) -> discipline = "ecn", ecn_threshold = "15pkt"
    ssthresh 15 (driver default), DCTCP sources -> initial_ssthresh = 15, cc = "dctcp"
    9000 B packets (Packet::data_packet_size) -> mss 8948 B + header 52 B
    an ACK per packet (TcpSink) -> delayed_ack = 1
    one long-lived flow per host to a permutation partner drawn by srand(time(NULL)) (the driver
    has no matrix option) -> a seeded derangement (random.Random(N)); the permutations differ
    per-flow ECMP path choice (a random path of the flow's) -> ecmp = "flow_hash"
  htsim's sinks log their acknowledged bytes every 10 ms (TcpSinkLoggerSampling).

ndp: htsim's NDP driver, sim/datacenter/main_ndp.cpp (main()), against B5 (python/fabricsim/
  benchmarks/ndp-permutation.toml) with the same permutation, given to both as one htsim
  connection matrix (htsim: -tm FILE; fabricsim: [[import]] of the same file, docs/SCENARIOS.md).
  The command line (ndp_argv) asks the driver for B5's experiment:
    -nodes N, -conns N, -tm FILE -> k with k^3/4 = N; [[import]] file = FILE (node i = host h{i})
    -linkspeed 10000 (Mb/s; the driver's default is HOST_NIC = 100 Gb/s in datacenter/main.h)
                                           -> link rate "10Gbps"
    -hop_latency 1 (us, the driver's default), -switch_latency 0 (default) -> link delay "1us"
    -q 8 (data queue of memFromPkt(8) = 72000 B) -> queue_buffer = [.., "8pkt"]
    -mtu 9000 (default packet_size) -> 9000 B packets
    -cwnd 23 (packets; the driver's default is 15) -> initial_window = 23
    -strat rand (SCATTER_RANDOM: each packet a random one of the flow's paths) -> per-packet path
      hash (fabricsim's NDP sprays each packet on its own hash)
    -end T_US -> [simulation] end; -log sink -logtime MS -> samples of acknowledged bytes
  B5 keeps its own settings where the driver's constants differ: the driver's data packets carry
  9000 B of payload (9064 B on the wire; B5: 8936 + 64), its CompositeQueue counts the packet
  being serialized in its 72000 B and gives headers 144000 B served 100000:1 (B5: 8 waiting
  packets, 72 KB of headers served 10:1), it never returns headers to their sender (B5 does, as
  the paper), pulls at 0.99 of the line rate (B5: 1.0) and sets a 50 ms minimum RTO (B5: 1 ms).
  For speed these change little; benches/validation/htsim_validate.py maps every one of them
  for the agreement tables. Long-lived flows are written as flows of 2 GB (more than 10 Gb/s
  carries in the run): connection_matrix.cpp leaves a connection's size unset when the line has
  none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from htsim import Htsim, connection_matrix

ROOT = Path(__file__).resolve().parent.parent.parent
BENCHMARKS = ROOT / "python" / "fabricsim" / "benchmarks"
LONG_FLOW = 2_000_000_000  # bytes: "long-lived" in both simulators for any run of this kind
PACKET = 9000


def seconds(text: str) -> float:
    m = re.fullmatch(r"([0-9.]+)(ms|s|us)", text)
    if not m:
        raise SystemExit(f"expected a time such as '50ms' or '0.21s', got {text!r}")
    return float(m[1]) / {"s": 1, "ms": 1e3, "us": 1e6}[m[2]]


def derangement(n: int) -> list[int]:
    """B4's permutation partners at n hosts (fabricsim.bench.derangement)."""
    from fabricsim.bench import derangement as b4_derangement

    return b4_derangement(n)


def scenario_header(toml: Path, k: int, end: str, name: str) -> str:
    """A benchmark scenario's text up to its flows, at fat-tree size k and simulated time `end`."""
    base = toml.read_text().split("[[flows]]", 1)[0]
    base = re.sub(r"\nk = \d+", f"\nk = {k}", base)
    base = re.sub(r'\nend = "[^"]+"', f'\nend = "{end}"', base)
    return re.sub(r'^name = "[^"]+"', f'name = "{name}"', base)


def benchmark_pairs(toml: Path) -> list[tuple[int, int]]:
    """The (src, dst) host indices of a benchmark's [[flows]]."""
    text = toml.read_text()
    return [(int(a), int(b)) for a, b in re.findall(r'\[\[flows\]\]\nsrc = "h(\d+)"\ndst = "h(\d+)"', text)]


@dataclass
class Prepared:
    """One experiment at one size, ready to run on both sides."""

    name: str
    k: int
    hosts: int
    end: str
    toml: Path  # fabricsim's scenario
    htsim_argv: list[str]  # run in its own working directory
    sink_kind: str  # the sink type htsim logs: TCP_SINK, NDP_SINK, ...
    packets_per_data: int  # packets per delivered data packet in the packet-hop estimate
    pairs: list[tuple[int, int]]  # fabricsim's flows in order, (source host, destination host)


def dctcp(h: Htsim, k: int, end: str, out: Path) -> Prepared:
    n = k**3 // 4
    exe = h.dctcp_permutation(seconds(end))
    base = scenario_header(BENCHMARKS / "fattree-permutation.toml", k, end, f"fattree-permutation-k{k}")
    pairs = list(enumerate(derangement(n)))
    flows = "".join(f'[[flows]]\nsrc = "h{i}"\ndst = "h{p}"\n' for i, p in pairs)
    toml = out / f"dctcp-k{k}-{end}.toml"
    toml.write_text(base + flows)
    return Prepared("dctcp", k, n, end, toml, [str(exe), "-nodes", str(n), "-conns", str(n), "-q", "100", "-o", "log.dat"],
                    "TCP_SINK", 2, pairs)


def ndp_pairs(k: int) -> list[tuple[int, int]]:
    """B5's permutation at k = 12 (the one B4 uses), the same kind of derangement at other sizes."""
    if k == 12:
        return benchmark_pairs(BENCHMARKS / "ndp-permutation.toml")
    return list(enumerate(derangement(k**3 // 4)))


def ndp_argv(exe: Path, n: int, cm: str, end: str, *, strat: str = "rand", queue: int = 8, cwnd: int = 23,
             logtime_ms: float = 1.0) -> list[str]:
    return [str(exe), "-nodes", str(n), "-conns", str(n), "-tm", cm, "-strat", strat, "-q", str(queue), "-cwnd", str(cwnd),
            "-linkspeed", "10000", "-mtu", "9000", "-hop_latency", "1", "-end", str(round(seconds(end) * 1e6)),
            "-log", "sink", "-logtime", str(logtime_ms), "-o", "log.dat"]


def ndp(h: Htsim, k: int, end: str, out: Path, strat: str = "rand") -> Prepared:
    n = k**3 // 4
    pairs = ndp_pairs(k)
    cm = out / f"ndp-permutation-k{k}.cm"
    cm.write_text(connection_matrix(n, pairs, size=LONG_FLOW))
    base = scenario_header(BENCHMARKS / "ndp-permutation.toml", k, end, f"ndp-permutation-k{k}")
    toml = out / f"ndp-k{k}-{end}.toml"
    toml.write_text(base + f'[[import]]\nfile = "{cm.name}"\n')
    return Prepared("ndp", k, n, end, toml, ndp_argv(h.driver("htsim_ndp"), n, str(cm.resolve()), end, strat=strat),
                    "NDP_SINK", 3, pairs)


EXPERIMENTS = {"dctcp": dctcp, "ndp": ndp}
