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

from . import analysis
from ._engine import __version__
from .compare import compare
from .errors import FabricsimError, MissingFileError, ResultsError, SweepError
from .results import Results
from .runner import run
from .scenario import ScenarioError, load_scenario, validate

__all__ = ["run", "compare", "congestion_controls", "cc_params", "transports", "workloads", "validate", "load_scenario", "topology_summary", "Results", "ScenarioError",
           "FabricsimError", "ResultsError", "SweepError", "MissingFileError",
           "analysis", "__version__"]


def topology_summary(scenario, overrides=()) -> dict:
    """Hosts, switches, links, ECMP path counts, diameter, oversubscription, bisection bandwidth."""
    from . import _engine
    from .scenario import to_json

    return _engine.topology_summary(to_json(validate(scenario, overrides)))


def congestion_controls() -> dict:
    """{name: one-line description} of the congestion controls usable as `cc = "..."`."""
    from . import _engine

    return dict(_engine.congestion_controls())


def cc_params(name: str) -> list[dict]:
    """The tunable constants of congestion control `name`, settable as
    `cc_params = { NAME = value }` in a transport table: name, default, min, max, help."""
    from . import _engine

    return [dict(zip(("name", "default", "min", "max", "help"), k)) for k in _engine.cc_knobs(name)]


def transports() -> dict:
    """{kind: (description, [{key, default, help}])} of the transport kinds usable as
    `kind = "..."` in a transport table (tcp, ndp, homa)."""
    from . import _engine

    return {k: (d, [dict(zip(("key", "default", "help"), p)) for p in ps]) for k, d, ps in _engine.transport_kinds()}


def workloads() -> list:
    """Names of the built-in flow-size distributions usable as `cdf = "..."`."""
    from . import _engine

    return list(_engine.builtin_workloads())
