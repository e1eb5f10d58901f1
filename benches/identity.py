"""Bit-identity check for engine changes: run every scenarios/*.toml, the shipped benchmarks and
B4's permutation at k = 32 (each cut short) through the Python bindings and hash the FULL result
tables (flows, ports, queues, time series, circuit and capture tables, and the summary's counts
but the event count, which is the engine's work and is shown beside), so that a change meant to be
pure speed can be shown to change nothing.

    python benches/identity.py -o before.json          # on the old build
    python benches/identity.py -o after.json           # on the new build
    python benches/identity.py --compare before.json after.json

--only NAME[,NAME] runs a subset; --list shows the cases and their end times. Exit 1 when a
compared case differs (the tables that differ are named).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from fabricsim import _engine  # noqa: E402
from fabricsim.bench import HERE as BENCH_DIR, fattree_permutation  # noqa: E402
from fabricsim.scenario import load_scenario, to_json, validate  # noqa: E402

# Each case: name -> (scenario source, simulated end). Ends keep every case within seconds.
SCENARIO_ENDS = {
    "acceltor-small": "10ms",
    "dumbbell-cc": "30ms",
    "example": "20ms",
    "flash-mixed": "20ms",
    "incast": "100ms",
    "leafspine-websearch": "5ms",
    "ndp-permutation-k8": "3ms",
    "ppt-websearch": "5ms",
    "ppt-websearch-homa": "5ms",
    "rdcn-etalon": "60ms",
    "star-websearch": "100ms",
}
BENCHMARK_ENDS = {
    "dctcp-16to1": "200ms",     # B1
    "rdcn-strobe": "100ms",     # B3
    "ndp-permutation": "2ms",   # B5
    "fattree-permutation": "5ms",  # B4
    "leafspine-websearch": "5ms",  # B2
}
# Summary fields that measure the machine, not the simulation.
MACHINE = {"engine_wall_s", "peak_rss_bytes"}
# Summary fields that count the engine's work, not the simulation's results: the event count
# (reported beside the hashes; an engine change may well run the same simulation in fewer events).
ENGINE = {"events"}


def cases() -> dict[str, tuple[dict, str]]:
    out = {}
    for name, end in SCENARIO_ENDS.items():
        out[name] = (load_scenario(ROOT / "scenarios" / f"{name}.toml"), end)
    for name, end in BENCHMARK_ENDS.items():
        out[f"bench/{name}"] = (load_scenario(BENCH_DIR / f"{name}.toml"), end)
    out["fattree-k32"] = (fattree_permutation(32, "300us"), "300us")
    # Features with a branch on the per-hop path, on the example's star (20 ms).
    example = out["example"][0]
    variants = {
        "hpcc": {"transport": {"cc": "hpcc"}},
        "swift": {"transport": {"cc": "swift"}},
        "sab": {"transport": {"cc": "sab"}},
        "shaped": {"host": {"egress_rate": "5Gbps", "egress_burst": "64KB"}},
        "pcap-loss": {"output": {"pcap": {"ports": ["s0->h0"], "hosts": ["h1"]}},
                      "topology": {"link": {"rate": "10Gbps", "delay": "1us", "loss_rate": 0.001}},
                      "faults": [{"port": "h2->s0", "drop_packets": [20, 22]}]},
    }
    for name, change in variants.items():
        doc = copy.deepcopy(example)
        for section, keys in change.items():
            if isinstance(keys, dict):
                doc.setdefault(section, {}).update(keys)
            else:
                doc[section] = keys
        out[f"example/{name}"] = (doc, "20ms")
    # AccelToR's reproduction, reduced scale (8 racks), 1 + 3 weeks, as the authors ran it: the
    # ToR rules that keep per-elephant state (case4 = "window", acceleration = "count") and the
    # weekly elephant rows (`circuit` table).
    for point in ("compare/acceltor", "compare/blocking", "queue/300"):
        out[f"acceltor-artifact/{point}"] = (acceltor_artifact(point), "7280us")
    # PPT's incast as the authors ran it (the ns-3 stack: an RTO recomputed on every ACK, so
    # deadlines move earlier and lazy timers leave superseded events behind), first second.
    out["ppt-artifact/incast/32/dctcp"] = (ppt_artifact("incast/32/dctcp", 1000), "1000ms")
    # Per-packet spraying falls back from the flows' paths to the routing table at every hop.
    spray = copy.deepcopy(out["bench/fattree-permutation"][0])
    spray["routing"] = {"ecmp": "packet_spray"}
    out["bench/fattree-permutation/spray"] = (spray, "2ms")
    return out


def acceltor_artifact(point: str) -> dict:
    """A point of the AccelToR reproduction (reduced scale, 1 warm-up and 3 measured weeks) in
    the artifact model."""
    from fabricsim.reproduce import acceltor
    from fabricsim.reproduce.common import artifact_scenario
    kw = {**dict(acceltor.plan("reduced"))[point], "weeks": 3, "warmup_weeks": 1}
    return artifact_scenario(acceltor.ARTIFACT, point, acceltor.scenario(**kw))


def ppt_artifact(point: str, end_ms: int) -> dict:
    """A point of the PPT reproduction (reduced scale) in the artifact model, its flows cut to
    those that start in the first `end_ms` (its flows' starts are written in ps)."""
    from fabricsim.reproduce import ppt
    from fabricsim.reproduce.common import artifact_scenario
    doc = artifact_scenario(ppt.ARTIFACT, point, ppt.build(point, "reduced"))
    doc["flows"] = [f for f in doc["flows"] if int(f["start"].removesuffix("ps")) < end_ms * 10**9]
    return doc


def digest(value) -> str:
    text = json.dumps(value, sort_keys=True, default=repr, allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run_case(doc: dict, end: str) -> dict:
    doc = copy.deepcopy(doc)
    doc.setdefault("simulation", {})["end"] = end
    doc = validate(doc)
    sim = _engine.Simulation(to_json(doc), None)
    t0 = time.perf_counter()
    sim.run_until(sim.end_ps)
    wall = time.perf_counter() - t0
    full = dict(sim.summary())
    summary = {k: v for k, v in full.items() if k not in MACHINE | ENGINE}
    summary["goodput_bytes"] = sim.goodput_bytes
    tables = {
        "summary": summary,
        "flows": sim.flows(),
        "ports": sim.ports(),
        "queues": sim.queues(),
        "timeseries": sim.timeseries(),
        "circuit": sim.circuit(),
        "capture": sim.capture(),
    }
    hashes = {name: digest(t) for name, t in tables.items()}
    return {"hashes": hashes, "events": full.get("events"), "packet_hops": summary.get("packet_hops"), "wall_s": round(wall, 3)}


def compare(a_path: str, b_path: str) -> int:
    a, b = json.loads(Path(a_path).read_text()), json.loads(Path(b_path).read_text())
    bad = 0
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b:
            print(f"{name:32s} only in {'the first' if name in a else 'the second'}")
            continue
        diff = [t for t in a[name]["hashes"] if a[name]["hashes"][t] != b[name]["hashes"].get(t)]
        speed = f"{a[name]['wall_s']:.2f} -> {b[name]['wall_s']:.2f} s"
        if diff:
            bad += 1
            print(f"{name:32s} DIFFERS in {', '.join(diff)} (events {a[name]['events']} -> {b[name]['events']})")
        else:
            print(f"{name:32s} identical ({a[name]['events']:,} events, {a[name]['packet_hops']:,} hops; {speed})")
    print("all identical" if not bad else f"{bad} case(s) differ")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--out", help="write the hashes here (JSON)")
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--list", action="store_true", help="list the cases and their end times")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two hash files")
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    all_cases = cases()
    if args.list:
        for name, (_, end) in all_cases.items():
            print(f"{name:32s} {end}")
        return 0
    names = args.only.split(",") if args.only else list(all_cases)
    unknown = [n for n in names if n not in all_cases]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}; --list shows them", file=sys.stderr)
        return 2
    results = {}
    for name in names:
        doc, end = all_cases[name]
        r = run_case(doc, end)
        results[name] = r
        print(f"{name:32s} {r['events']:>12,} events {r['wall_s']:7.2f} s  {' '.join(r['hashes'].values())}", flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
