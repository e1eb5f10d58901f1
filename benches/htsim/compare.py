#!/usr/bin/env python3
"""fabricsim against htsim, speed side by side: htsim's DCTCP and NDP permutations on k-ary fat trees.

    python benches/htsim/compare.py --htsim /path/to/csg-htsim                       # DCTCP, k = 8, 12, 16, 20
    python benches/htsim/compare.py --htsim SRC --experiment ndp --sizes 12 --runs 5  # NDP, B5's permutation
    python benches/htsim/compare.py --htsim SRC --peer-commit 841d9e7 ...             # a checkout without .git
    python benches/htsim/compare.py --htsim SRC --end 50ms,210ms --case ndp:12:20ms   # issue 33's whole set

`--end` and `--experiment` take comma lists (every size at every span of every experiment);
`--case EXP:SIZES:END` (repeatable) adds a set of its own. After the last case a table gives each
case's headline ratio and warnings, and whether every ratio reached `--target` (default 3).

The script never downloads anything: it takes a checkout of htsim (public repository
Broadcom/csg-htsim; tested at commit 841d9e7), copies its sim/ into BUILD/htsim-<commit>/ and
builds there (the checkout is not modified). Experiments, and how each htsim option maps onto the
fabricsim scenario key by key, are in experiments.py: `dctcp` (htsim's old DCTCP permutation
driver against B4 at size k) and `ndp` (htsim's sim/datacenter/main_ndp.cpp against B5, both given
the same permutation as one htsim connection matrix).

Timing (timing.py). Runs alternate (fabricsim, htsim, fabricsim, ...); each is a fresh process,
timed from outside: wall clock, and CPU time (user + sys) and peak memory from the child's own
rusage. Per simulator: min and median of each over the runs, and their spread. The headline is
the ratio of each simulator's best rate, packet-hops per CPU second of its least disturbed run:
fabricsim's work is the same in every run (its minimum CPU time); htsim's DCTCP driver draws a
new random permutation in each run, so each htsim run is rated by its own work. Wall-time ratios
are printed beside it. The 1-minute load average is printed
before and after each size. Warnings: a simulator's runs spreading more than 15 % (CPU or wall),
a load average at or above the CPU count, and a minimum time more than 25 % away from the
previous recorded run of the same commit (the peer's commit for htsim, fabricsim's for fabricsim)
in BUILD/timing-history.jsonl, to which every run is appended (JSON lines keyed by simulator,
experiment, size, simulated time and commits).

Packet-hops (packets serialized onto links) are estimated the same way for both, since htsim
does not count them: the data each receiver acknowledged, in 9000 B packets, times the packets
each data packet brings (DCTCP 2: data and ACK; NDP 3: data, ACK, PULL), times its flow's path
length (2 links within an edge switch, 4 within a pod, 6 across pods; htsim's sinks are named by
their hosts in its log).
Retransmissions, trimmed headers and NACKs are left out (few here); our engine's exact count is
printed beside the estimate as a check. The ratio does not depend on the estimate's multiplier.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import experiments  # noqa: E402
import timing  # noqa: E402
from htsim import Htsim, checkout_commit, last_samples, log_preamble, logged_names, sink_pair, sink_samples  # noqa: E402

#: fabricsim's side: a run as a user's script makes it, its figures printed as one JSON line
#: written by hand — importing `json` (with the `re` and `enum` it brings, about 5 ms) would
#: charge the harness's own reporting to fabricsim, whose run imports neither.
FABRICSIM = r"""
import sys
from fabricsim.runner import run
r = run(sys.argv[1], progress=False)
s = r.summary
acked = [int(b) for b in r.raw("flows")["bytes_acked"]]
print('{"acked": %r, "by_flow": %r, "hops": %d, "engine_wall_s": %r}' % (float(sum(acked)), acked, s["packet_hops"],
                                                                         float(s["engine_wall_s"])))
"""


def mean_path_links(k: int) -> float:
    """Mean links crossed by a packet between two distinct random hosts of a k-ary fat tree."""
    n, edge, pod = k**3 // 4, k // 2, k * k // 4
    same_edge = (edge - 1) / (n - 1)
    same_pod = (pod - edge) / (n - 1)
    return 2 * same_edge + 4 * same_pod + 6 * (1 - same_edge - same_pod)


def path_links(k: int, a: int, b: int) -> int:
    """Links between hosts a and b of a k-ary fat tree, numbered as htsim's FatTreeTopology and
    fabricsim's fat_tree number them (k/2 hosts per edge switch, k^2/4 per pod)."""
    if a // (k // 2) == b // (k // 2):
        return 2
    return 4 if a // (k * k // 4) == b // (k * k // 4) else 6


def weighted_hops(k: int, packets_per_data: int, acked: list[tuple[tuple[int, int] | None, float]]) -> float:
    """Packet-hops of the data acknowledged per flow, each flow's bytes times its own path's
    links (a flow whose endpoints are unknown gets the mean of a random pair)."""
    links = sum(b * (path_links(k, *pair) if pair else mean_path_links(k)) for pair, b in acked)
    return links * packets_per_data / experiments.PACKET


def run_fabricsim(toml: Path) -> tuple[timing.Run, dict]:
    return timing.run_python(FABRICSIM, str(toml))


#: htsim's DCTCP driver draws its own random permutation (`ConnectionMatrix::setPermutation`,
#: sim/datacenter/connection_matrix.cpp, `rand()` seeded from the clock) and asserts when the last
#: host left to draw is the source itself, about once in N runs: such a run is repeated.
PERMUTATION_ASSERT = "setPermutation"


def run_htsim(h: Htsim, e: experiments.Prepared, work: Path, attempts: int = 3) -> tuple[timing.Run, dict]:
    work.mkdir(parents=True, exist_ok=True)
    r = timing.run_timed(e.htsim_argv, cwd=work)
    while r.returncode != 0 and PERMUTATION_ASSERT in r.stderr and attempts > 1:
        print(f"htsim's random permutation drew a host for itself (its assertion in {PERMUTATION_ASSERT}); running it again",
              file=sys.stderr)
        attempts -= 1
        r = timing.run_timed(e.htsim_argv, cwd=work)
    if r.returncode != 0:
        raise SystemExit(f"htsim failed ({' '.join(e.htsim_argv)}):\n{r.stdout[-1000:]}\n{r.stderr[-1000:]}")
    t_last, acked = last_samples(sink_samples(h.ascii_log(work / "log.dat"), e.sink_kind))
    names = logged_names(log_preamble(work / "log.dat"))
    (work / "log.dat").unlink(missing_ok=True)
    # Each sink's (source, destination) from its name: htsim's DCTCP driver draws a permutation of
    # its own in every run, so each run's work is its own.
    by_flow = [(sink_pair(names[i]) if i in names else None, float(b)) for i, b in acked.items()]
    return r, {"acked": float(sum(acked.values())), "t_last": t_last, "by_flow": by_flow}



def report(e: experiments.Prepared, fab: list[tuple[timing.Run, dict]], hts: list[tuple[timing.Run, dict]], *, end_s: float,
           load: tuple[float, float], peer_commit: str, fab_commit: str, history: Path) -> tuple[list[str], dict]:
    """The table for one experiment and size, and its warnings; appends both records to `history`.
    Also the case's row of the closing summary (`summary_table`)."""
    # Packet-hops of each run: the data its receivers acknowledged, flow by flow times the flow's
    # own path length. fabricsim's work is the same in every run; htsim's DCTCP driver draws a new
    # permutation in each, so each of its runs is rated by its own work (htsim's sinks report
    # every sampling period: its rate up to the last report, over the whole run).
    if len(e.pairs) != len(fab[0][1]["by_flow"]):
        raise SystemExit(f"fabricsim reported {len(fab[0][1]['by_flow'])} flows for the {len(e.pairs)} of {e.toml}")
    fab_hops = weighted_hops(e.k, e.packets_per_data, list(zip(e.pairs, fab[0][1]["by_flow"])))
    hts_each = [weighted_hops(e.k, e.packets_per_data, d["by_flow"]) * end_s / d["t_last"] for _, d in hts]
    hts_hops = statistics.median(hts_each)
    sf, sh = timing.Summary.of([r for r, _ in fab]), timing.Summary.of([r for r, _ in hts])
    lines = [f"{e.name} permutation, k = {e.k} ({e.hosts} hosts), {e.end} simulated, {sf.runs} interleaved runs each; "
             f"htsim {peer_commit}, fabricsim {fab_commit}; {os.cpu_count()} CPUs",
             f"load average (1 min): {load[0]:.2f} before, {load[1]:.2f} after",
             f"{'':10} {'CPU s: min':>10} {'median':>7} {'spread':>6} | {'wall s: min':>11} {'median':>7} {'spread':>6} | "
             f"{'peak MB':>7} | {'total Gb/s':>10} | {'best Mhops/CPU-s':>16}"]
    # The best rate of each simulator's runs: for fabricsim its least CPU; for htsim the run
    # whose own work per CPU second was highest (the least disturbed, whatever its permutation).
    fab_rate = fab_hops / sf.cpu_min
    hts_rate = max(hops / r.cpu_s for hops, (r, _) in zip(hts_each, hts))
    fab_wall = fab_hops / sf.wall_min
    hts_wall = max(hops / r.wall_s for hops, (r, _) in zip(hts_each, hts))
    # Goodput: the bytes acknowledged (htsim's: its median run's, scaled to the whole span).
    fab_acked = fab[0][1]["acked"]
    hts_acked = statistics.median(d["acked"] * end_s / d["t_last"] for _, d in hts)
    for name, s, acked, rate in (("fabricsim", sf, fab_acked, fab_rate), ("htsim", sh, hts_acked, hts_rate)):
        gbps = acked * 8 / end_s / 1e9
        lines.append(f"{name:10} {s.cpu_min:>10.2f} {s.cpu_median:>7.2f} {s.cpu_spread:>6.0%} | {s.wall_min:>11.2f} "
                     f"{s.wall_median:>7.2f} {s.wall_spread:>6.0%} | {s.maxrss_mb:>7.0f} | {gbps:>10.1f} | {rate / 1e6:>16.2f}")
    wall_median = (fab_hops / sf.wall_median) / (hts_hops / sh.wall_median)
    lines.append(f"headline: fabricsim / htsim packet-hops per CPU second, best of {sf.runs}: "
                 f"{fab_rate / hts_rate:.2f}x   (wall, best: {fab_wall / hts_wall:.2f}x; wall, medians: {wall_median:.2f}x)")
    engine = min(d["engine_wall_s"] for _, d in fab)
    lines.append(f"fabricsim's CPU time includes Python's start-up and scenario reading; its engine ran {engine:.2f} s of "
                 f"wall time at least (whole process {sf.wall_min:.2f} s)")
    lines.append(f"estimated packet-hops: fabricsim {fab_hops:.3g} (engine's exact count {fab[0][1]['hops']:.3g}, "
                 f"ratio {fab[0][1]['hops'] / fab_hops:.3f}), htsim {hts_hops:.3g} (median; its runs "
                 f"{min(hts_each):.3g}-{max(hts_each):.3g})")
    common = dict(experiment=e.name, size=e.k, end=e.end, peer_commit=peer_commit, fabricsim_commit=fab_commit,
                  load_before=load[0], load_after=load[1])
    records = [timing.record_of("fabricsim", sf, **common), timing.record_of("htsim", sh, **common)]
    past = timing.read_history(history)
    warnings = timing.spread_warnings("fabricsim", sf) + timing.spread_warnings("htsim", sh) + timing.load_warnings(*load)
    for rec in records:
        warnings += timing.drift_warnings(rec, timing.previous(past, rec))
    timing.append_history(history, records)
    row = dict(experiment=e.name, size=e.k, end=e.end, fabricsim_cpu=sf.cpu_min, htsim_cpu=sh.cpu_min,
               ratio=fab_rate / hts_rate, warnings=len(warnings))
    return lines + (warnings or ["no timing warnings"]), row


def summary_table(rows: list[dict], target: float) -> list[str]:
    """One line per case: CPU s (min) of each simulator, the headline ratio, its warnings; then
    whether every ratio reached `target` with no warning."""
    out = [f"{'case':<24} {'fabricsim CPU s':>15} {'htsim CPU s':>11} {'ratio':>7} {'warnings':>8}"]
    for r in rows:
        case = f"{r['experiment']} k = {r['size']}, {r['end']}"
        out.append(f"{case:<24} {r['fabricsim_cpu']:>15.2f} {r['htsim_cpu']:>11.2f} {r['ratio']:>6.2f}x {r['warnings']:>8}")
    short = [r for r in rows if r["ratio"] < target]
    noisy = [r for r in rows if r["warnings"]]
    verdict = f"every case >= {target:g}x" if not short else f"{len(short)} of {len(rows)} cases below {target:g}x"
    out.append(verdict + (f"; {len(noisy)} with timing warnings (rerun those before quoting)" if noisy else "; no timing warnings"))
    return out


def parse_cases(experiments_arg: str, sizes_arg: str, ends_arg: str, extra: list[str]) -> list[tuple[str, int, str]]:
    """(experiment, k, end) for every experiment, size and span asked, then each `--case`."""
    def sizes_of(text: str) -> list[int]:
        try:
            ks = [int(x) for x in text.split(",")]
        except ValueError:
            raise SystemExit(f"--sizes: {text!r} is not a comma list of whole numbers") from None
        if any(k < 4 or k % 2 for k in ks):
            raise SystemExit(f"--sizes: fat-tree k must be even and >= 4, got {text!r}")
        return ks

    def checked(exp: str, end: str) -> tuple[str, str]:
        if exp not in experiments.EXPERIMENTS:
            raise SystemExit(f"--experiment: {exp!r} is not one of {', '.join(sorted(experiments.EXPERIMENTS))}")
        experiments.seconds(end)  # or SystemExit naming the text
        return exp, end

    cases = [(*checked(x, end), k)
             for x in experiments_arg.split(",") for end in ends_arg.split(",") for k in sizes_of(sizes_arg)]
    for c in extra:
        parts = c.split(":")
        if len(parts) != 3:
            raise SystemExit(f"--case: {c!r} is not EXPERIMENT:SIZES:END, e.g. ndp:12:20ms")
        exp, end = checked(parts[0], parts[2])
        cases += [(exp, end, k) for k in sizes_of(parts[1])]
    return [(exp, k, end) for exp, end, k in cases]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("--htsim", required=True, type=Path, help="path of a csg-htsim checkout (not downloaded)")
    ap.add_argument("--peer-commit", help="the checkout's commit, when it has no .git (else read from git or a COMMIT file)")
    ap.add_argument("--experiment", default="dctcp", help=f"one or more of {', '.join(sorted(experiments.EXPERIMENTS))}, "
                    "comma-separated (default dctcp)")
    ap.add_argument("--sizes", default="8,12,16,20", help="fat-tree k values (default 8,12,16,20)")
    ap.add_argument("--end", default="50ms", help="simulated time, or a comma list of them (default 50ms; B4 is 210ms at k = 12)")
    ap.add_argument("--case", action="append", default=[], metavar="EXP:SIZES:END",
                    help="one more set of cases, e.g. ndp:12:20ms (repeatable)")
    ap.add_argument("--target", type=float, default=3.0, help="the ratio the closing summary checks (default 3)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each simulator per size, interleaved (default 3)")
    ap.add_argument("--build", type=Path, default=HERE / "build", help="where to build, write scenarios and keep the history")
    a = ap.parse_args()
    cases = parse_cases(a.experiment, a.sizes, a.end, a.case)
    if a.runs < 1:
        raise SystemExit("--runs: at least 1")
    peer_commit = checkout_commit(a.htsim.resolve(), a.peer_commit)
    h = Htsim.prepare(a.htsim, a.build, peer_commit)
    fab_commit = timing.git_commit(experiments.ROOT)
    work = a.build / "runs"
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for exp, k, end in cases:
        e = experiments.EXPERIMENTS[exp](h, k, end, a.build)
        before = timing.loadavg()
        fab, hts = [], []
        for _ in range(a.runs):
            fab.append(run_fabricsim(e.toml))
            hts.append(run_htsim(h, e, work))
        lines, row = report(e, fab, hts, end_s=experiments.seconds(end), load=(before, timing.loadavg()),
                            peer_commit=peer_commit, fab_commit=fab_commit, history=a.build / "timing-history.jsonl")
        rows.append(row)
        print("\n".join(lines) + "\n", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    if len(rows) > 1:
        print("\n".join(summary_table(rows, a.target)), flush=True)


if __name__ == "__main__":
    main()
