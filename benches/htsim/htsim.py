"""htsim as a peer: building its drivers from a checkout, running them, reading their output.

Shared by benches/htsim/compare.py (speed) and benches/validation/ (agreement). Nothing here
downloads htsim: callers pass the path of a checkout of Broadcom/csg-htsim (tested at 841d9e7).

Building. The checkout is never modified: its sim/ directory is copied once into
`BUILD/htsim-<commit>/sim` and built there with htsim's own Makefiles (`make libhtsim.a
parse_output` in sim/, `make htsim_ndp` etc. in sim/datacenter/). The old DCTCP drivers
(sim/datacenter/old_tests/main_dctcp_permutation.cpp and main_dctcp_incast_collateral.cpp, no
command-line end time) are compiled from a copy with two changes: their own ntoa/itoa definitions
are dropped (libhtsim defines them too, so they do not link otherwise) and their end time is the
one asked for. The incast driver's copy also names its flows in its "Flow .. finished at" lines
(TcpSrc prints its nodename(), which is "tcpsrc" for every flow: the copy's sources are a
subclass of DCTCPSrc whose nodename() is the name the driver gives them); nothing else changes.
Both old drivers' copies also print each flow's path draw ("Path choice SRC DST CHOICE of N",
print_path_choices), so that fabricsim can pin its flows to htsim's paths (fat_tree_path_index).
The copy of sim/datacenter/main_swift.cpp takes its seed (srand(13)) from $HTSIM_SEED when that is
set (EDITS, seed_from_env), so the validation can vary htsim's path draw as it varies fabricsim's,
and prints each flow's data and ACK paths, which it draws apart (print_swift_paths);
its copy of sim/queue_lossless_input.cpp prints a line for each PFC pause it sends (print_pauses),
which htsim does not count, so that HPCC runs can be checked for pauses. Only the lossless queues
(the HPCC and RoCE drivers') are changed by it. Its copy of sim/hpcc.cpp seeds HPCCSrc's path id
(srand(time(NULL)) in the constructor) from $HTSIM_SEED when that is set (pathid_seed_from_env),
so HPCC runs repeat and --vary-seed varies them, and its copy of sim/datacenter/fat_tree_switch.cpp
prints each switch's ECMP choice for every HPCC flow's first data packet and first ACK
(print_hpcc_hops; only HPCC's packets print), so that fabricsim can pin each direction of each
flow to htsim's paths (hpcc_path_index).

Reading. Drivers log through htsim's binary Logfile (`-o FILE`); sim/parse_output turns it into
text lines such as

    0.010000000 Type TCP_SINK ID 5551 Ev RATE CAck 3843001 Rate 384300100
    0.000250000 Type NDP_SINK ID 441 Ev RATE CAck 0 ReorderBuffer 0 Rate 0

(sink loggers: cumulative acknowledged bytes sampled every period); the log file starts with a
text preamble naming the logged objects (": dctcp_sink_3_17=239"). The NDP driver prints "New: N
Rtx: R Bounced: B" at the end (data packets first sent, retransmitted, headers returned to their
sender); finite flows print "Flow NAME flow_id I finished at T_US total bytes B" (Swift's driver: no
flow_id, and the line repeats for every later ACK).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

DCTCP_DRIVER = "datacenter/old_tests/main_dctcp_permutation.cpp"
# The old (sim/datacenter/old_tests) drivers the scripts build, by the name their binary takes.
OLD_DRIVERS = {"dctcp_permutation": DCTCP_DRIVER,
               "dctcp_incast_collateral": "datacenter/old_tests/main_dctcp_incast_collateral.cpp"}
# The objects sim/datacenter/Makefile links into its drivers (the htsim_tcp rule).
DC_OBJECTS = ["firstfit", "vl2_topology", "fat_tree_topology", "fat_tree_switch", "bcube_topology", "connection_matrix",
              "oversubscribed_fat_tree_topology", "shortflows", "star_topology", "multihomed_fat_tree_topology"]
DRIVERS = ("htsim_ndp", "htsim_hpcc", "htsim_swift", "htsim_tcp")


def checkout_commit(src: Path, given: str | None = None) -> str:
    """The checkout's commit: --peer-commit if given, else `git rev-parse`, else a COMMIT file."""
    if given:
        return given
    if (src / ".git").exists():
        p = subprocess.run(["git", "-C", str(src), "rev-parse", "--short=7", "HEAD"], capture_output=True, text=True)
        if p.returncode == 0:
            return p.stdout.strip()
    for f in (src / "COMMIT", src / "sim" / "COMMIT"):
        if f.exists() and f.read_text().strip():
            return f.read_text().split()[0][:7]
    raise SystemExit(f"{src} has no .git and no COMMIT file: say which commit it is with --peer-commit")


@dataclass
class Htsim:
    """A build of one htsim commit in `root` (BUILD/htsim-<commit>)."""

    root: Path
    commit: str

    @property
    def sim(self) -> Path:
        return self.root / "sim"

    @classmethod
    def prepare(cls, src: Path, build: Path, commit: str) -> "Htsim":
        """Copy the checkout's sim/ into build/htsim-<commit> (once) and build libhtsim there."""
        src = src.resolve()
        if not (src / "sim" / DCTCP_DRIVER).exists() or not (src / "sim" / "datacenter" / "main_ndp.cpp").exists():
            raise SystemExit(f"--htsim: {src} has no sim/{DCTCP_DRIVER} or sim/datacenter/main_ndp.cpp (expected a csg-htsim checkout)")
        h = cls(build.resolve() / f"htsim-{commit}", commit)
        if not h.sim.exists():
            h.root.mkdir(parents=True, exist_ok=True)
            shutil.copytree(src / "sim", h.sim, ignore=shutil.ignore_patterns("*.o", "*.a", "htsim_*", "parse_output"))
        if not (h.sim / "libhtsim.a").exists() or not (h.sim / "parse_output").exists():
            make(h.sim, "libhtsim.a", "parse_output")
        return h

    def driver(self, name: str) -> Path:
        """One of sim/datacenter's drivers (htsim_ndp, htsim_hpcc, htsim_swift), built if missing
        (after the copy's documented edits, EDITS)."""
        if name not in DRIVERS:
            raise ValueError(f"unknown htsim driver {name!r}")
        for rel, edit in EDITS.get(name, []):
            f = self.sim / rel
            text = f.read_text()
            if EDIT_MARK not in text:
                f.write_text(edit(text, rel))  # make rebuilds what depends on it
        exe = self.sim / "datacenter" / name
        if not exe.exists() or any((self.sim / rel).stat().st_mtime > exe.stat().st_mtime for rel, _ in EDITS.get(name, [])):
            if any("/" not in rel for rel, _ in EDITS.get(name, [])):
                make(self.sim, "libhtsim.a")
            exe.unlink(missing_ok=True)
            make(self.sim / "datacenter", name)
        return exe

    def dctcp_permutation(self, end_s: float) -> Path:
        """The old DCTCP permutation driver, its end time set to `end_s` seconds."""
        return self.old_driver("dctcp_permutation", end_s)

    def old_driver(self, name: str, end_s: float) -> Path:
        """One of OLD_DRIVERS, its end time set to `end_s` seconds (built once per end time),
        printing its flows' path choices (print_path_choices; "-paths" in the name: a build
        from before that edit is not reused)."""
        exe = self.root / f"htsim_{name}_{end_s}-paths"
        if exe.exists():
            return exe
        dc = self.sim / "datacenter"
        if not all((dc / f"{o}.o").exists() for o in DC_OBJECTS):
            make(dc, *(f"{o}.o" for o in DC_OBJECTS))
        cpp = self.root / f"main_{name}_{end_s}.cpp"
        text = old_driver_source((self.sim / OLD_DRIVERS[name]).read_text(), end_s, OLD_DRIVERS[name])
        text = print_path_choices(text, OLD_DRIVERS[name])
        if name == "dctcp_incast_collateral":
            text = named_tcp_sources(text, OLD_DRIVERS[name])
        cpp.write_text(text)
        subprocess.run(["g++", "-std=c++11", "-O2", "-w", f"-I{self.sim}", f"-I{dc}", f"-I{dc / 'old_tests'}", str(cpp),
                        *[str(dc / f"{o}.o") for o in DC_OBJECTS], f"-L{self.sim}", "-lhtsim", "-o", str(exe)], check=True)
        return exe

    def ascii_log(self, log: Path, keep: str | None = None) -> str:
        """htsim's binary log as text (sim/parse_output FILE -ascii); only the lines containing
        `keep` if given. Streamed: a driver that logs every packet of a flow (the incast driver's
        long flow) writes millions of lines, which would otherwise sit in this process (and, on
        Linux, in the peak memory its later children report: ru_maxrss survives fork + exec)."""
        with subprocess.Popen([str(self.sim / "parse_output"), str(log), "-ascii"], stdout=subprocess.PIPE, text=True) as p:
            assert p.stdout is not None
            text = "".join(line for line in p.stdout if keep is None or keep in line)
        if p.returncode != 0:
            raise SystemExit(f"parse_output {log} failed ({p.returncode})")
        return text


EDIT_MARK = "fabricsim's benches/htsim/htsim.py"


def _sub_once(pattern: str, repl: str, text: str, path: str, what: str, count: int = 1, flags: int = 0) -> str:
    """`text` with `pattern` replaced; the build stops with "unexpected PATH: WHAT" unless the
    pattern occurs exactly `count` times (the source is not the one the edit was written for).
    WHAT may name the count found as {n}."""
    text, n = re.subn(pattern, repl, text, flags=flags)
    if n != count:
        raise SystemExit(f"unexpected {path}: " + what.replace("{n}", str(n)))
    return text


def _srand_from_env(text: str, path: str, default: str) -> str:
    """Replace the one `srand(DEFAULT);` with a seed read from $HTSIM_SEED when it is set
    (DEFAULT otherwise, so runs without it are the driver's own)."""
    return _sub_once(r"\n(\s*)srand\(" + re.escape(default) + r"\);",
                     "\n\\1srand(getenv(\"HTSIM_SEED\") ? atoi(getenv(\"HTSIM_SEED\")) : " + default.replace("\\", "\\\\")
                     + ");  // edited by " + EDIT_MARK + ": the seed from $HTSIM_SEED", text, path, f"no 'srand({default});' to edit")


def seed_from_env(text: str, path: str = "") -> str:
    """main_swift.cpp seeds its path draw with srand(13): the copy reads the seed from $HTSIM_SEED
    when it is set (13 otherwise, so runs without it are the driver's own)."""
    return _srand_from_env(text, path, "13")


def pathid_seed_from_env(text: str, path: str = "") -> str:
    """HPCCSrc's constructor seeds its path id with srand(time(NULL)) (so every flow made in one
    second gets the same id, and runs differ by the second they start in): the copy reads the seed
    from $HTSIM_SEED when it is set (the time of day otherwise, so runs without it are the
    driver's own)."""
    return _srand_from_env(text, path, "time(NULL)")


def print_pauses(text: str, path: str = "") -> str:
    """LosslessInputQueue::receivePacket sends a PFC pause upstream when its ingress bytes pass the
    high threshold (and counts nothing): the copy prints "PFC pause T_US QUEUE" there, once per pause."""
    return _sub_once(r"\n(\s*)sendPause\(1000\);\n", "\n\\1sendPause(1000); cout << \"PFC pause \" << timeAsUs(eventlist().now()) << \" \" << "
                     "_nodename << endl;  // edited by " + EDIT_MARK + ": count the pauses\n", text, path, "no 'sendPause(1000);' to edit")


def print_swift_paths(text: str, path: str = "") -> str:
    """main_swift.cpp draws `choice = rand() % paths` and gives the sink's ACKs the reverse path
    at(choice) (routein), then SwiftSrc::set_paths shuffles the flow's paths (Fisher-Yates with
    random()) and reroutes its data onto the shuffled list's first (its path_id is its index in
    the unshuffled list): the copy prints "Swift paths SRC DST DATA back ACKS of N" after
    set_paths, so that fabricsim can pin each direction of a flow to htsim's."""
    return _sub_once(r"\n(\s*)(swiftSrc->set_paths\(net_paths\[src\]\[dest\]\);)",
                     "\n\\1\\2 cout << \"Swift paths \" << src << \" \" << dest << \" \" << swiftSrc->_paths[0]->path_id() << \" back \" "
                     "<< choice << \" of \" << net_paths[src][dest]->size() << endl;  // edited by " + EDIT_MARK
                     + ": print the path draw of each direction", text, path, "no 'swiftSrc->set_paths(net_paths[src][dest]);' to edit")


def print_hpcc_hops(text: str, path: str = "") -> str:
    """Under -strat ecmp_host each FatTreeSwitch picks a packet's egress by hashing its flow id
    with its path id (FatTreeSwitch::getNextHop; HPCCSrc draws one path id per flow, HPCCSink's
    ACKs carry 0), and nothing prints the result: the copy prints "HPCC hop FLOW_ID data|ack
    QUEUE" the first time an HPCC packet or ACK of a flow takes an egress with a choice at a
    switch (QUEUE the chosen queue, named "..LS3->US2(0)" or "..US2->CS9(0)"), so that fabricsim
    can pin each direction of each flow to htsim's paths (hpcc_path_index). Other drivers'
    packets print nothing."""
    text = _sub_once(r"\n(\s*)pkt\.set_direction\(e->getDirection\(\)\);\n",
                     "\n\\1pkt.set_direction(e->getDirection());\n"
                     "\\1if (available_hops->size() > 1 && (pkt.type() == HPCC || pkt.type() == HPCCACK)) {  // edited by " + EDIT_MARK
                     + ": print each flow's path\n"
                     "\\1    static std::set<std::tuple<flowid_t, bool, const void*>> printed;\n"
                     "\\1    if (printed.insert(std::make_tuple(pkt.flow_id(), pkt.type() == HPCCACK, (const void*)this)).second)\n"
                     "\\1        cout << \"HPCC hop \" << pkt.flow_id() << (pkt.type() == HPCCACK ? \" ack \" : \" data \") "
                     "<< e->getEgressPort()->at(0)->nodename() << endl;\n"
                     "\\1}\n", text, path, "no 'pkt.set_direction(e->getDirection());' to edit")
    return "#include <set>\n#include <tuple>\n" + text


def swift_driver(text: str, path: str = "") -> str:
    """main_swift.cpp's copy: its seed from $HTSIM_SEED (seed_from_env) and its path draw printed
    (print_swift_paths)."""
    return print_swift_paths(seed_from_env(text, path), path)


# The documented edits the build copy gets before a driver is built: (file under sim/, edit). An
# edit of a file directly under sim/ is in libhtsim.a, rebuilt before the driver.
EDITS = {"htsim_swift": [("datacenter/main_swift.cpp", swift_driver)],
         "htsim_hpcc": [("queue_lossless_input.cpp", print_pauses), ("hpcc.cpp", pathid_seed_from_env),
                        ("datacenter/fat_tree_switch.cpp", print_hpcc_hops)]}


def make(cwd: Path, *targets: str) -> None:
    p = subprocess.run(["make", "-j1", *targets], cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"make {' '.join(targets)} in {cwd} failed:\n{p.stdout[-1500:]}\n{p.stderr[-1500:]}")


def old_driver_source(text: str, end_s: float, path: str = DCTCP_DRIVER) -> str:
    """An old_tests driver's source (`path` names it in errors) without its ntoa/itoa and with
    the simulated time `end_s`."""
    text = _sub_once(r"\nstring (ntoa|itoa)\((double|uint64_t) n\) \{.*?\n\}\n", "\n", text, path,
                     "found {n} of the 2 ntoa/itoa definitions to drop", count=2, flags=re.S)
    return _sub_once(r"eventlist\.setEndtime\(timeFromSec\([0-9.]+\)\)", f"eventlist.setEndtime(timeFromSec({end_s!r}))", text, path,
                     "no setEndtime to change")


NAMED_DCTCP = """
// Added by fabricsim's benches/htsim/htsim.py: TcpSrc prints nodename() ("tcpsrc") when a flow
// finishes; this subclass answers with the name the driver sets, so the lines say which flow.
class NamedDCTCPSrc : public DCTCPSrc {
public:
    NamedDCTCPSrc(TcpLogger* l, TrafficLogger* t, EventList& e) : DCTCPSrc(l, t, e) {}
    virtual const string& nodename() { return _name; }
};
"""


def print_path_choices(text: str, path: str = "") -> str:
    """The old DCTCP drivers draw one path per flow (`choice = rand() % paths`, both directions
    `at(choice)`) and print nothing of it: the copy prints "Path choice SRC DST CHOICE of N" where
    it takes the route, so that fabricsim can pin its flows to the same paths."""
    return _sub_once(r"\n(\s*)(routeout = new Route\(\*\(net_paths\[src\]\[dest\]->at\(choice\)\)\);)",
                     "\n\\1\\2 cout << \"Path choice \" << src << \" \" << dest << \" \" << choice << \" of \" << "
                     "net_paths[src][dest]->size() << endl;  // edited by " + EDIT_MARK + ": print the path draw", text, path,
                     "no 'routeout = new Route(*(net_paths[src][dest]->at(choice)));' to edit")


def named_tcp_sources(text: str, path: str = "") -> str:
    """A driver whose incast sources (`new DCTCPSrc(NULL, NULL, eventlist)`) print their own
    names when they finish."""
    text = _sub_once(r"tcpSrc = new DCTCPSrc\(NULL, NULL, eventlist\);", "tcpSrc = new NamedDCTCPSrc(NULL, NULL, eventlist);", text, path,
                     "no 'tcpSrc = new DCTCPSrc(NULL, NULL, eventlist);' to name")
    at = text.index("\nEventList eventlist;")
    return text[:at] + NAMED_DCTCP + text[at:]


# ---- output ------------------------------------------------------------------------------------

SINK_LINE = re.compile(r"^([0-9.]+) Type (\w+_SINK) ID (\d+) Ev RATE CAck (\d+)")


def sink_samples(ascii_log: str, kind: str | None = None) -> dict[int, list[tuple[float, int]]]:
    """Per sink ID, its (time s, cumulative acknowledged bytes) samples, of sinks of `kind`
    (TCP_SINK, NDP_SINK, ...; any if None)."""
    out: dict[int, list[tuple[float, int]]] = {}
    for line in ascii_log.splitlines():
        m = SINK_LINE.match(line)
        if m and (kind is None or m[2] == kind):
            out.setdefault(int(m[3]), []).append((float(m[1]), int(m[4])))
    return out


def last_samples(samples: dict[int, list[tuple[float, int]]]) -> tuple[float, dict[int, int]]:
    """The last sampling time and each sink's bytes at it (sinks not sampled then are left out)."""
    if not samples:
        raise ValueError("htsim logged no sink samples (is the run shorter than the sampling period?)")
    t = max(s[-1][0] for s in samples.values())
    return t, {i: s[-1][1] for i, s in samples.items() if s[-1][0] == t}


def log_preamble(log: Path, limit: int = 4 << 20) -> bytes:
    """The start of an htsim log, where Logfile::writeName puts its names (written while the
    driver sets up, before any record); the records after it can be many megabytes."""
    with log.open("rb") as f:
        return f.read(limit)


def logged_names(log: bytes | str) -> dict[int, str]:
    """ID -> name of the objects a driver named in its log (Logfile::writeName writes a text
    preamble of lines ": NAME=ID" before the binary records): e.g. "ndp_sink_3_17", whose source
    and destination hosts are 3 and 17."""
    text = log.decode("latin-1") if isinstance(log, bytes) else log
    out = {}
    for line in text.split("\n"):
        m = re.fullmatch(r": (\S+)=(\d+)", line.rstrip("\r"))
        if m:
            out[int(m[2])] = m[1]
    return out


def sink_pair(name: str) -> tuple[int, int] | None:
    """(source, destination) of a sink named "<kind>_sink_<src>_<dst>" (the old drivers may add
    the connection's index: "tcp_sink_367_0(0)")."""
    m = re.fullmatch(r"\w+?_sink_(\d+)_(\d+)(?:\(\d+\))?", name)
    return (int(m[1]), int(m[2])) if m else None


NDP_TOTALS = re.compile(r"^New: (\d+) Rtx: (\d+) Bounced: (\d+)\s*$", re.M)
# NDP: "Flow ndp_3_15 flow_id 4 finished at T total bytes B" (once); Swift (SwiftSrc::update_dsn_ack):
# "Flow swift_3_15 finished at T total bytes B" on every ACK at or past the flow's size, the first
# one the completion, some behind the event loop's progress marks (".Flow swift_7_15 ...").
FINISHED = re.compile(r"Flow (\S+) (?:flow_id \d+ )?finished at ([0-9.e+-]+) total bytes (\d+)")


NDP_RTOS = re.compile(r"^Total RTOs: (\d+)", re.M)


def ndp_totals(stdout: str) -> dict[str, int]:
    """htsim_ndp's closing line: data packets sent new, retransmitted, and bounced headers; and
    its timeouts (NdpSrc::retransmit_packet prints the running total of packets resent on a
    timeout, a global count, at each)."""
    m = NDP_TOTALS.search(stdout)
    if not m:
        raise ValueError("no 'New: .. Rtx: .. Bounced: ..' line in htsim_ndp's output")
    rtos = [int(x) for x in NDP_RTOS.findall(stdout)]
    return {"new": int(m[1]), "rtx": int(m[2]), "bounced": int(m[3]), "timeouts": max(rtos, default=0)}


def finished_flows(stdout: str) -> dict[str, tuple[float, int]]:
    """Finite flows that completed (NDP's and Swift's drivers): name -> (completion time in us,
    bytes), from each flow's first line."""
    out: dict[str, tuple[float, int]] = {}
    for m in FINISHED.finditer(stdout):
        out.setdefault(m[1], (float(m[2]), int(m[3])))
    return out


PFC_PAUSE = re.compile(r"PFC pause [0-9.e+-]+ ")


def pfc_pauses(stdout: str) -> int:
    """PFC pauses sent in a lossless run: the build copy's "PFC pause T QUEUE" lines (print_pauses)."""
    return len(PFC_PAUSE.findall(stdout))


# FairPriorityQueue::receivePacket prints its size each time it grows past another million bytes
# above its maxsize (memFromPkt(FEEDER_BUFFER): 1000 packets of 9000 B in the datacenter drivers).
HOST_QUEUE = re.compile(r"Host Queue size (\d+)")


def host_queue_peak(stdout: str) -> int:
    """The most bytes any host's queue held, as far as htsim printed it: its "Host Queue size N"
    lines, which only a queue above its maxsize (9 MB) prints; 0 when none did."""
    return max((int(n) for n in HOST_QUEUE.findall(stdout)), default=0)


SWIFT_RTX = re.compile(r"\S+ retransmit_packet")


def swift_retransmits(stdout: str) -> int:
    """Packets htsim's Swift resent: SwiftSubflowSrc::retransmit_packet prints "T NAME
    retransmit_packet" for each (fast retransmit, recovery and timeout alike)."""
    return len(SWIFT_RTX.findall(stdout))


# Not anchored: the event loop's progress marks may precede them on the line (".Flow tcp_383_0(0)
# finished at 84.3444", "...|At 582.5 RTO 250 ...").
TCP_FINISHED = re.compile(r"Flow (\S+) finished at ([0-9.e+-]+)\s*$", re.M)
TCP_RTO = re.compile(r"At [0-9.e+-]+ RTO ")


def tcp_finished(stdout: str) -> dict[str, float]:
    """htsim TCP flows that completed: name -> time in ms. TcpSrc::receivePacket prints the line on
    every ACK at or past the flow's size (the last packet's and any later duplicate's): the first
    is the completion."""
    out: dict[str, float] = {}
    for m in TCP_FINISHED.finditer(stdout):
        out.setdefault(m[1], float(m[2]))
    return out


PATH_CHOICE = re.compile(r"Path choice (\d+) (\d+) (\d+) of (\d+)")


def path_choices(stdout: str) -> dict[tuple[int, int], tuple[int, int]]:
    """The old DCTCP drivers' per-flow path draw (their copies print it, print_path_choices):
    (source, destination) -> (the index into FatTreeTopology::get_bidir_paths' list, its length)."""
    return {(int(m[1]), int(m[2])): (int(m[3]), int(m[4])) for m in PATH_CHOICE.finditer(stdout)}


SWIFT_PATHS = re.compile(r"Swift paths (\d+) (\d+) (\d+) back (\d+) of (\d+)")


def swift_path_choices(stdout: str) -> dict[tuple[int, int], tuple[int, int, int]]:
    """The Swift driver's per-flow paths (its copy prints them, print_swift_paths): (source,
    destination) -> (the data's and the ACKs' index into FatTreeTopology's path lists, their
    length)."""
    return {(int(m[1]), int(m[2])): (int(m[3]), int(m[4]), int(m[5])) for m in SWIFT_PATHS.finditer(stdout)}


HPCC_HOP = re.compile(r"HPCC hop (\d+) (data|ack) .*?(LS|US)(\d+)->(?:US|CS)(\d+)\(")


def hpcc_hop_choices(stdout: str) -> dict[tuple[int, str], dict[str, int]]:
    """The HPCC driver's switch choices (its copy prints them, print_hpcc_hops): (flow id,
    "data" or "ack") -> {"tor": the aggregation switch an edge switch sent it to (FatTreeTopology's
    global US number), "agg": the core switch an aggregation switch sent it to (CS number)}; a
    flow under one edge switch has none, one within a pod no "agg"."""
    out: dict[tuple[int, str], dict[str, int]] = {}
    for m in HPCC_HOP.finditer(stdout):
        out.setdefault((int(m[1]), m[2]), {})["tor" if m[3] == "LS" else "agg"] = int(m[5])
    return out


def hpcc_path_index(k: int, hops: dict[str, int]) -> int:
    """fabricsim's path index ([routing] paths) of one direction of an HPCC flow, from the switch
    choices htsim printed (hpcc_hop_choices). FatTreeTopology numbers the aggregation switches
    across pods (US p x k/2 + a) and the cores so that core c meets aggregation position c mod
    k/2 in every pod (uplink c div k/2 of that position); fabricsim's index takes the aggregation
    position as its lowest digit and the uplink above it (a + k/2 x uplink). The two number the
    cores apart (fabricsim's position a reaches cores a x k/2 ..), but the same (position,
    uplink) is one core in every pod on both sides, so the flows that share a core link share it
    in both."""
    half = k // 2
    if "tor" not in hops:
        return 0
    return hops["tor"] % half + half * (hops["agg"] // half if "agg" in hops else 0)


def fat_tree_path_index(k: int, src: int, dst: int, htsim_index: int) -> int:
    """fabricsim's path index ([routing] paths, crates/engine/src/network/source_paths.rs) of the
    path htsim's FatTreeTopology::get_bidir_paths lists at `htsim_index` between hosts `src` and
    `dst` of a k-port fat tree. htsim lists paths between pods aggregation switch first (outer
    loop `upper`, inner loop over its core uplinks `l`: index = upper * k/2 + l), fabricsim reads
    the edge switch's choice as the lowest digit (index mod k/2 picks the aggregation switch,
    index div k/2 its core uplink): the digits swap. Within a pod both index the aggregation
    switch; under one edge switch there is one path."""
    half = k // 2
    if src // half == dst // half:
        return 0
    if src // (half * half) == dst // (half * half):
        return htsim_index
    return htsim_index // half + half * (htsim_index % half)


def tcp_timeouts(stdout: str) -> int:
    """Retransmission timeouts of htsim's TCP (and Swift) sources: TcpSrc::rtx_timer_hook (and
    SwiftSubflowSrc::rtx_timer_hook) prints "At T RTO .." once for each timeout that fires."""
    return len(TCP_RTO.findall(stdout))


def connection_matrix(nodes: int, pairs: list[tuple[int, int]], start_ps: list[int] | None = None,
                      size: int | None = None) -> str:
    """An htsim connection matrix (sim/datacenter/connection_matrix.cpp's format): node pairs,
    ids from 1, start times in picoseconds, no size for long-lived flows."""
    lines = [f"Nodes {nodes}", f"Connections {len(pairs)}"]
    for i, (s, d) in enumerate(pairs):
        start = start_ps[i] if start_ps else 0
        lines.append(f"{s}->{d} id {i + 1} start {start}" + (f" size {size}" if size else ""))
    return "\n".join(lines) + "\n"
