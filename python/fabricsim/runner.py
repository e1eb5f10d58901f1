"""Running a scenario: chunked so that a progress bar can follow simulated time and Ctrl-C stops
cleanly with the results computed so far."""

from __future__ import annotations

import sys
import time
import warnings

from . import _engine
from .results import Results
from .errors import ScenarioError, ScenarioWarning, UsageError
from .scenario import MAX_INT, validate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, Optional

    from .scenario import ScenarioLike


def check_seed(seed, key: str = "seed") -> None:
    """Seeds are whole numbers 0 .. 2^64 - 1 (the engine's generators are seeded with 64 bits)."""
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_INT:
        raise ScenarioError([(key, f"{seed!r} is not a seed; seeds are whole numbers 0 .. 2^64 - 1 = {MAX_INT}")], "run")

#: Number of chunks a run is split into (progress granularity).
CHUNKS = 200


def run(
    scenario: ScenarioLike,
    *,
    seed: Optional[int] = None,
    overrides: Iterable[str] = (),
    progress: Optional[bool] = None,
    on_interrupt: str = "return",
) -> Results:
    """Validate and run a scenario (TOML path or dict); returns Results.

    seed overrides [simulation].seed; overrides are "dotted.key=value" strings as on the CLI.
    progress: show a bar on stderr (default: when stderr is a terminal). On KeyboardInterrupt the
    run stops and the results so far come back with summary["interrupted"] = True, or, with
    on_interrupt="raise", the KeyboardInterrupt goes on to the caller (no results, no message).

    Example::

        >>> res = fabricsim.run("scenarios/example.toml", seed=2, overrides=["transport.cc=cubic"])  # doctest: +SKIP
        >>> res.flows[["id", "size", "fct_s", "slowdown"]]   # doctest: +SKIP
    """
    check_seed(seed)
    if on_interrupt not in ("return", "raise"):
        raise UsageError(f"on_interrupt={on_interrupt!r} is not 'return' or 'raise'")
    t_setup = time.perf_counter()
    doc = validate(scenario, overrides)
    try:
        sim = _engine.Simulation(doc, seed)
    except ValueError as e:  # validated above, so only a mismatch between the two would land here
        raise ScenarioError([("", str(e))], "scenario") from None
    # Reading, validating and building the fabric (routes, paths, flows) before the first event.
    setup = time.perf_counter() - t_setup
    for path, msg in sim.warnings:
        warnings.warn(f"{path}: {msg}", ScenarioWarning, stacklevel=2)
    if progress is None:
        progress = sys.stderr.isatty()
    bar = None
    if progress:
        import shutil

        from tqdm import tqdm

        # Terminals that report a 0-column window would otherwise get an empty bar.
        width = min(shutil.get_terminal_size((100, 24)).columns or 100, 120)
        bar = tqdm(total=sim.end_ps / 1e12, unit="sim-s", desc=doc.get("name", "run"), file=sys.stderr, ncols=width,
                   bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.4g}/{total:.4g} sim-s [{elapsed}<{remaining}]")
    t0 = time.perf_counter()
    interrupted = False
    step = max(1, sim.end_ps // CHUNKS)
    try:
        while not sim.finished:
            sim.run_until(min(sim.now_ps + step, sim.end_ps))
            if bar is not None:
                bar.n = sim.now_ps / 1e12
                bar.refresh()
    except KeyboardInterrupt:
        if on_interrupt == "raise":
            raise
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - t0
    extra = {"wall_s": wall, "setup_wall_s": setup, "interrupted": interrupted}
    pc = (doc.get("output") or {}).get("pcap")
    if isinstance(pc, dict):
        extra["pcap"] = {"ports": list(pc.get("ports") or []), "hosts": list(pc.get("hosts") or [])}
    res = Results.from_engine(sim, extra)
    if interrupted:
        print(
            f"interrupted at {res.summary['sim_time_s']:.6g} s of {res.summary['end_s']:.6g} s simulated; "
            "returning the results so far",
            file=sys.stderr,
        )
    return res
