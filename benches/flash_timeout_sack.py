"""Flash's mix at 0.6 (reduced), the artifact model with ns-2's two timeout rules (PIAS-NS2 keeps the
SACK scoreboard, clear_on_timeout_ false; TCN-NS2 runs ns-2.35's default, true): docs/reproductions/flash.md.

    PYTHONPATH=python python benches/flash_timeout_sack.py    # about 30 s of CPU
"""
import copy
import tempfile
from pathlib import Path

from fabricsim.reproduce import flash, common
pts = [p for p in flash.points("reduced") if p[0].startswith("main/mix/0.6/") and p[0].split("/")[-1] in ("flash", "pias", "dctcp")]
art = [(n, common.artifact_scenario(flash.ARTIFACT, n, d), x) for n, d, x in pts]
for mode in ("keep", "clear"):
    run = []
    for n, d, x in art:
        d = copy.deepcopy(d)
        assert d["transport"].get("sack", True), n
        d["transport"]["timeout_sack"] = mode
        run.append((n, d, x))
    r = common.run_points(run, str(Path(tempfile.mkdtemp()) / mode), jobs=1, progress=False)
    mean = {n.split("/")[-1]: r[n]["all_mean"] for n in r}
    short = {n.split("/")[-1]: r[n]["short_mean"] for n in r}
    print(f"timeout_sack = {mode}: mean FCT (ms) " + ", ".join(f"{k} {v * 1e3:.3f}" for k, v in mean.items()),
          f"| Flash vs PIAS {common.pct_lower(mean['flash'], mean['pias']):+.1f} %,"
          f" vs DCTCP {common.pct_lower(mean['flash'], mean['dctcp']):+.1f} %,"
          f" short flows vs PIAS {common.pct_lower(short['flash'], short['pias']):+.1f} %", flush=True)
    # A mean over finished flows only compares like with like when every flow finished.
    print("  unfinished / timeouts: " + ", ".join(f"{n.split('/')[-1]} {r[n]['unfinished']} / {r[n]['timeouts']}" for n in r))
