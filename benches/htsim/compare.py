#!/usr/bin/env python3
"""fabricsim against htsim, side by side: htsim's DCTCP permutation on k-ary fat trees.

    python benches/htsim/compare.py --htsim /path/to/csg-htsim            # B4 and k = 8, 12, 16, 20
    python benches/htsim/compare.py --htsim SRC --sizes 12 --end 210ms --runs 5

The script never downloads anything: it takes a checkout of htsim (public repository
Broadcom/csg-htsim; tested at commit 841d9e7), builds its library if needed (`make` in sim/ and
sim/datacenter/), and compiles a copy of sim/datacenter/old_tests/main_dctcp_permutation.cpp into
build/ with two changes: its own definitions of ntoa/itoa are removed (libhtsim defines them
too, so the driver does not link otherwise) and the simulated time is the one asked for. The
checkout is not modified.

Both simulators run the same experiment, which is B4 (python/fabricsim/benchmarks/
fattree-permutation.toml) at other sizes: k-ary fat tree (k^3/4 hosts), 10 Gb/s links with 1 us of
delay, 100-packet buffers of 9000 B packets, DCTCP marking above 15 packets, initial ssthresh 15,
an ACK per packet, one long-lived flow per host to a random permutation partner, per-flow path
choice. htsim draws its own permutation from the time of day (srand(time(NULL))); ours is a seeded
derangement. Runs alternate (fabricsim, htsim, fabricsim, ...) in one session so that both see the
same machine; each is a fresh process, timed from outside (wall clock, including start-up).

Packet-hops (packets serialized onto links) are counted the same way for both: htsim does not
count them, so for each simulator we take the data bytes its receivers acknowledged, in 9000 B
packets, times two (an ACK per packet) times the mean path length of a random permutation on the
fat tree (2 links within an edge switch, 4 within a pod, 6 across pods). This ignores
retransmissions and packets in flight at the end (both tiny in this loss-free experiment); our
engine's exact count is printed beside it as a check.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
B4 = ROOT / "python" / "fabricsim" / "benchmarks" / "fattree-permutation.toml"
DRIVER = "sim/datacenter/old_tests/main_dctcp_permutation.cpp"
OBJECTS = ["firstfit", "vl2_topology", "fat_tree_topology", "fat_tree_switch", "bcube_topology", "connection_matrix",
           "oversubscribed_fat_tree_topology", "shortflows", "star_topology", "multihomed_fat_tree_topology"]
PACKET = 9000


def seconds(text: str) -> float:
    m = re.fullmatch(r"([0-9.]+)(ms|s)", text)
    if not m:
        raise SystemExit(f"--end: expected e.g. '50ms' or '0.21s', got {text!r}")
    return float(m[1]) / (1000 if m[2] == "ms" else 1)


def build_htsim(src: Path, end_s: float, out: Path) -> Path:
    """libhtsim from the checkout (make, if missing), then the driver with `end_s` simulated."""
    sim = src / "sim"
    if not (sim / DRIVER.split("sim/", 1)[1]).exists():
        raise SystemExit(f"--htsim: {src} has no {DRIVER} (expected a csg-htsim checkout)")
    if not (sim / "libhtsim.a").exists():
        subprocess.run(["make", "-j2"], cwd=sim, check=True, stdout=subprocess.DEVNULL)
    if not all((sim / "datacenter" / f"{o}.o").exists() for o in OBJECTS):
        subprocess.run(["make", "-j2"], cwd=sim / "datacenter", check=True, stdout=subprocess.DEVNULL)
    text = (sim / DRIVER.split("sim/", 1)[1]).read_text()
    text, n = re.subn(r"\nstring (ntoa|itoa)\((double|uint64_t) n\) \{.*?\n\}\n", "\n", text, flags=re.S)
    if n != 2:
        raise SystemExit(f"unexpected {DRIVER}: found {n} of the 2 ntoa/itoa definitions to drop")
    text, n = re.subn(r"eventlist\.setEndtime\(timeFromSec\([0-9.]+\)\)", f"eventlist.setEndtime(timeFromSec({end_s!r}))", text)
    if n != 1:
        raise SystemExit(f"unexpected {DRIVER}: no setEndtime to change")
    out.mkdir(parents=True, exist_ok=True)
    cpp = out / f"main_dctcp_permutation_{end_s}.cpp"
    cpp.write_text(text)
    exe = out / f"htsim_dctcp_permutation_{end_s}"
    dc = sim / "datacenter"
    subprocess.run(["g++", "-std=c++11", "-O2", "-w", f"-I{sim}", f"-I{dc}", f"-I{dc / 'old_tests'}", str(cpp),
                    *[str(dc / f"{o}.o") for o in OBJECTS], f"-L{sim}", "-lhtsim", "-o", str(exe)], check=True)
    return exe


def mean_path_links(k: int) -> float:
    """Mean links crossed by a packet between two distinct random hosts of a k-ary fat tree."""
    n, edge, pod = k**3 // 4, k // 2, k * k // 4
    same_edge = (edge - 1) / (n - 1)
    same_pod = (pod - edge) / (n - 1)
    return 2 * same_edge + 4 * same_pod + 6 * (1 - same_edge - same_pod)


def scenario(k: int, end: str, out: Path) -> Path:
    """B4's scenario at size k: same settings, a seeded derangement of the k^3/4 hosts."""
    base = B4.read_text().split("[[flows]]", 1)[0]
    base = re.sub(r"\nk = \d+", f"\nk = {k}", base)
    base = re.sub(r'\nend = "[^"]+"', f'\nend = "{end}"', base)
    base = re.sub(r'\nname = "[^"]+"', f'\nname = "fattree-permutation-k{k}"', base)
    n = k**3 // 4
    rng = random.Random(n)
    while True:
        perm = list(range(n))
        rng.shuffle(perm)
        if all(i != p for i, p in enumerate(perm)):
            break
    flows = "".join(f'[[flows]]\nsrc = "h{i}"\ndst = "h{p}"\n' for i, p in enumerate(perm))
    path = out / f"fattree-permutation-k{k}.toml"
    path.write_text(base + flows)
    return path


FABRICSIM = r"""
import json, sys
from fabricsim.runner import run
r = run(sys.argv[1], progress=False)
s = r.summary
print(json.dumps({"acked": float(r.flows["bytes_acked"].sum()), "hops": s["packet_hops"],
                  "engine_wall_s": s["engine_wall_s"], "util": float(r.ports["utilization"].mean())}))
"""


def run_fabricsim(toml: Path) -> dict:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", FABRICSIM, str(toml)], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"fabricsim failed on {toml}:\n{p.stderr[-2000:]}")
    import json

    d = json.loads(p.stdout.strip().splitlines()[-1])
    d["wall_s"] = wall
    return d


def run_htsim(exe: Path, parse: Path, n: int, work: Path) -> dict:
    log = work / f"htsim-{n}.dat"
    t0 = time.perf_counter()
    p = subprocess.run([str(exe), "-nodes", str(n), "-conns", str(n), "-q", "100", "-o", str(log)],
                       capture_output=True, text=True, cwd=work)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"htsim failed:\n{p.stderr[-2000:]}")
    # The sinks log their cumulative acknowledged bytes every 10 ms: the last sample of each.
    txt = subprocess.run([str(parse), str(log), "-ascii"], capture_output=True, text=True).stdout
    last: dict[str, tuple[float, int]] = {}
    for line in txt.splitlines():
        f = line.split()
        # "0.010000000 Type TCP_SINK ID 5551 Ev RATE CAck 3843001 Rate 384300100"
        if len(f) >= 9 and f[2] == "TCP_SINK" and f[6] == "RATE":
            last[f[4]] = (float(f[0]), int(f[8]))
    if not last:
        raise SystemExit("htsim logged no sink samples (it samples every 10 ms: use --end of 20ms or more)")
    t_last = max(t for t, _ in last.values())
    acked = sum(b for _, b in last.values())
    log.unlink(missing_ok=True)
    return {"wall_s": wall, "acked": float(acked), "t_last": t_last}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Each row: median wall seconds over the runs (min-max), estimated packet-hops per wall second, the ratio, and each simulator's goodput.")
    ap.add_argument("--htsim", required=True, type=Path, help="path of a csg-htsim checkout (not downloaded)")
    ap.add_argument("--sizes", default="8,12,16,20", help="fat-tree k values (default 8,12,16,20)")
    ap.add_argument("--end", default="50ms", help="simulated time (default 50ms; B4 is 210ms at k = 12)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each simulator per size, interleaved (default 3)")
    ap.add_argument("--build", type=Path, default=HERE / "build", help="where to build and write scenarios")
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    if any(k < 4 or k % 2 for k in sizes):
        raise SystemExit(f"--sizes: fat-tree k must be even and >= 4, got {a.sizes!r}")
    end_s = seconds(a.end)
    exe = build_htsim(a.htsim.resolve(), end_s, a.build)
    parse = a.htsim.resolve() / "sim" / "parse_output"
    if not parse.exists():
        raise SystemExit(f"{parse} missing: run make in {a.htsim}/sim")
    work = a.build / "runs"
    work.mkdir(parents=True, exist_ok=True)
    print(f"htsim DCTCP permutation vs fabricsim, {a.end} simulated, {a.runs} interleaved runs each, {os.cpu_count()} CPUs")
    print("wall s: median (min-max) of whole processes; 'engine' = fabricsim's engine time alone (no Python start-up)")
    print(f"{'k':>3} {'hosts':>6} | {'fabricsim s':>18} {'engine s':>8} {'htsim s':>18} | {'fab Mhops/s':>11} {'hts Mhops/s':>11} "
          f"{'ratio':>6} {'engine':>6} | {'fab Gb/s':>9} {'hts Gb/s':>9} | {'exact/est':>9}")
    for k in sizes:
        n = k**3 // 4
        toml = scenario(k, a.end, a.build)
        fab, hts = [], []
        for _ in range(a.runs):
            fab.append(run_fabricsim(toml))
            hts.append(run_htsim(exe, parse, n, work))
        links = mean_path_links(k)
        est = lambda acked: 2 * acked / PACKET * links  # noqa: E731 — data + ACK packets, each over the path
        fw = statistics.median(r["wall_s"] for r in fab)
        fe = statistics.median(r["engine_wall_s"] for r in fab)
        hw = statistics.median(r["wall_s"] for r in hts)
        # htsim's sinks report every 10 ms: its rate up to the last report, over the whole run.
        f_hops = est(fab[0]["acked"])
        h_hops = statistics.median(est(r["acked"]) * end_s / r["t_last"] for r in hts)
        fg = fab[0]["acked"] * 8 / end_s / 1e9
        hg = statistics.median(r["acked"] * 8 / r["t_last"] / 1e9 for r in hts)
        span = lambda rs: f"{statistics.median(r['wall_s'] for r in rs):6.2f} ({min(r['wall_s'] for r in rs):.2f}-{max(r['wall_s'] for r in rs):.2f})"  # noqa: E731
        print(f"{k:>3} {n:>6} | {span(fab):>18} {fe:>8.2f} {span(hts):>18} | {f_hops / fw / 1e6:>11.2f} {h_hops / hw / 1e6:>11.2f} "
              f"{(f_hops / fw) / (h_hops / hw):>6.2f} {(f_hops / fe) / (h_hops / hw):>6.2f} | {fg:>9.1f} {hg:>9.1f} | "
              f"{fab[0]['hops'] / f_hops:>9.3f}", flush=True)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
