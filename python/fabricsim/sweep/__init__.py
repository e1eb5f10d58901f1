"""Parameter sweeps: many runs of one scenario over axes of values, on local cores or a Dask
cluster, into a resumable store (docs/SWEEPS.md).

    from fabricsim.sweep import Sweep, run_sweep, load
    s = Sweep("scenarios/example.toml", axes={"transport.cc": ["dctcp", "newreno"], "seed": [1, 2]})
    run_sweep(s, "out/example-sweep")             # or executor="dask"
    table = load("out/example-sweep").table       # one row per run: param.* columns + metrics
"""

from .execute import SweepRun, run_sweep
from .results import SweepResults, load
from .spec import ALIASES, Point, Sweep, scenario_hash

__all__ = ["Sweep", "Point", "run_sweep", "SweepRun", "load", "SweepResults", "scenario_hash", "ALIASES"]
