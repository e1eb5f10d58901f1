"""fabricsim: a fast, faithful packet-level simulator for datacenter networks.

Quick use::

    import fabricsim
    res = fabricsim.run("scenarios/example.toml")
    res.flows          # pandas DataFrame, one row per flow
    res.ports          # per-port counters
    res.timeseries     # queue lengths / cwnd samples (long format)
    res.summary        # dict: sim time, wall time, events, packet-hops, peak memory
    res.save("results/example")   # Parquet + summary.json
"""

from ._engine import __version__
from .results import Results
from .runner import run
from .scenario import ScenarioError, load_scenario, validate

__all__ = ["run", "validate", "load_scenario", "Results", "ScenarioError", "__version__"]
