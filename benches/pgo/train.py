"""Train the profile the release build is optimized with (profile-guided optimization, PGO).

    rustup component add llvm-tools        # once: llvm-profdata, matching rustc's LLVM
    python benches/pgo/train.py            # about a minute on 2 cores

Builds the extension module instrumented (`-Cprofile-generate`), runs the training set below
through it (every shipped scenario and benchmark, long ones cut short), merges the counts with
rustc's own llvm-profdata into pgo/fabricsim.profdata.gz and writes pgo/PROFILE.toml (the rustc and
LLVM it was made with, the commit, the training set). `pip install .` then builds with it
(build_support/fabricsim_build.py): about 10 % less CPU per packet-hop (docs/PERFORMANCE.md).

A profile only steers the optimizer (layout, inlining, branch order); results are bit-identical
with or without it. Functions changed since the profile was taken lose their counts, so
retrain after engine changes worth measuring.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "pgo"

# (scenario, simulated time to cut it to, or None for its own). The fat-tree permutations are
# the comparisons with htsim; the rest cover the other transports, queues and the hybrid ToRs.
TRAINING = [
    ("python/fabricsim/benchmarks/fattree-permutation.toml", "10ms"),
    ("python/fabricsim/benchmarks/ndp-permutation.toml", "5ms"),
    ("python/fabricsim/benchmarks/dctcp-16to1.toml", None),
    ("python/fabricsim/benchmarks/leafspine-websearch.toml", "200ms"),
    ("python/fabricsim/benchmarks/rdcn-strobe.toml", None),
    ("scenarios/acceltor-small.toml", None),
    ("scenarios/dumbbell-cc.toml", None),
    ("scenarios/example.toml", None),
    ("scenarios/flash-mixed.toml", None),
    ("scenarios/incast.toml", None),
    ("scenarios/ndp-permutation-k8.toml", None),
    ("scenarios/ppt-websearch-homa.toml", None),
    ("scenarios/ppt-websearch.toml", None),
    ("scenarios/rdcn-etalon.toml", None),
    ("scenarios/star-websearch.toml", None),
]


# What each training run executes: the package as a user runs it, without writing results.
RUN = "import sys; from fabricsim.runner import run; run(sys.argv[1], progress=False)"


def rustc_versions() -> tuple[str, str]:
    """(rustc release, LLVM version) of the rustc on PATH."""
    v = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    rel = re.search(r"^release: (\S+)", v, re.M)
    llvm = re.search(r"^LLVM version: (\S+)", v, re.M)
    if not rel or not llvm:
        raise SystemExit(f"cannot read rustc's release and LLVM version from `rustc -vV`:\n{v}")
    return rel.group(1), llvm.group(1)


def llvm_profdata() -> Path:
    """rustc's own llvm-profdata (the llvm-tools component): its format matches rustc's LLVM."""
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout.strip()
    host = re.search(r"^host: (\S+)", subprocess.run(["rustc", "-vV"], capture_output=True, text=True).stdout, re.M)
    tool = Path(sysroot) / "lib" / "rustlib" / (host.group(1) if host else "") / "bin" / "llvm-profdata"
    if not tool.exists():
        raise SystemExit(f"{tool} is missing: run `rustup component add llvm-tools` (an llvm-profdata of another "
                         "LLVM version cannot read rustc's counts)")
    return tool


def cut(text: str, end: str) -> str:
    """The scenario with [simulation] end set to `end`."""
    new, n = re.subn(r'(?m)^end\s*=\s*"[^"]*"', f'end = "{end}"', text, count=1)
    if n != 1:
        raise SystemExit("a training scenario has no end = \"...\" line to cut")
    return new


def main() -> None:
    release, llvm = rustc_versions()
    profdata = llvm_profdata()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=10", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    with tempfile.TemporaryDirectory(prefix="fabricsim-pgo-") as tmp:
        tmp = Path(tmp)
        raw, wheels, site = tmp / "raw", tmp / "wheels", tmp / "site"
        # The extension module itself is instrumented, not the `run` example: #[inline] functions
        # are compiled into the crate that calls them, under names local to it, so a profile
        # taken from another crate would miss the event loop's hot path.
        env = dict(os.environ, RUSTFLAGS=f"-Cprofile-generate={raw}", FABRICSIM_PGO="0",
                   CARGO_PROFILE_RELEASE_LTO="fat", CARGO_PROFILE_RELEASE_CODEGEN_UNITS="1")
        print("building the instrumented extension ...", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
                       env=env, check=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
                        *map(str, wheels.glob("*.whl"))], check=True)
        run_env = dict(os.environ, PYTHONPATH=str(site))
        for i, (path, end) in enumerate(TRAINING, 1):
            text = (ROOT / path).read_text()
            scenario = (ROOT / path).parent / f".pgo-training-{Path(path).name}"
            # Written beside the original: a scenario's relative paths (workloads) are its directory's.
            scenario.write_text(cut(text, end) if end else text)
            print(f"[{i}/{len(TRAINING)}] {path}" + (f" (cut to {end})" if end else ""), flush=True)
            try:
                subprocess.run([sys.executable, "-c", RUN, str(scenario)], env=run_env, check=True)
            finally:
                scenario.unlink()
        OUT.mkdir(exist_ok=True)
        # Sparse (functions never run left out) and gzipped: about 400 kB in the repository.
        merged = tmp / "fabricsim.profdata"
        subprocess.run([str(profdata), "merge", "--sparse", "-o", str(merged), *map(str, raw.glob("*.profraw"))],
                       check=True)
        with open(merged, "rb") as src, gzip.GzipFile(OUT / "fabricsim.profdata.gz", "wb", mtime=0) as dst:
            shutil.copyfileobj(src, dst)
    lines = [
        "# Written by benches/pgo/train.py; read by build_support/fabricsim_build.py.",
        f'rustc = "{release}"',
        f'llvm = "{llvm}"',
        f'commit = "{commit}"',
        "training = [",
        *[f'    "{p}{" @ " + e if e else ""}",' for p, e in TRAINING],
        "]",
    ]
    (OUT / "PROFILE.toml").write_text("\n".join(lines) + "\n")
    size = (OUT / "fabricsim.profdata.gz").stat().st_size
    print(f"wrote pgo/fabricsim.profdata.gz ({size / 1e3:.0f} kB) for rustc {release} (LLVM {llvm}) at {commit}")


if __name__ == "__main__":
    if not shutil.which("cargo"):
        sys.exit("cargo is not on PATH")
    main()
