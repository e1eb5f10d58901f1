"""fabricsim: a fast, faithful packet-level simulator for datacenter networks.

Quick use::

    import fabricsim
    res = fabricsim.run("scenarios/example.toml")
    res.flows          # pandas DataFrame, one row per flow
    res.ports          # per-port counters
    res.timeseries     # queue lengths / cwnd samples (long format)
    res.summary        # dict: sim time, wall time, events, packet-hops, peak memory
    res.save("results/example")   # Parquet + summary.json
    res                # in a notebook: a summary table

Also: fabricsim.offered_load (load sanity), fabricsim.traffic (flow lists, htsim connection
matrices), fabricsim.pcap (packet traces), fabricsim.analysis, fabricsim.plots.
"""

from ._engine import __version__
from .compare import compare
from .errors import FabricsimError, MissingFileError, ResultsError, ScenarioWarning, SweepError
from .scenario import ScenarioError, load_scenario, scenario_warnings, validate

# The modules that need pandas load on first use: the CLI starts (and a Ctrl-C while it starts
# is caught) before they are needed.
_LAZY = {"analysis": ("analysis", None), "pcap": ("pcap", None), "traffic": ("traffic", None),
         "Results": ("results", "Results"), "run": ("runner", "run")}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'fabricsim' has no attribute {name!r}")
    import importlib

    module, attr = _LAZY[name]
    m = importlib.import_module(f".{module}", __name__)
    value = m if attr is None else getattr(m, attr)
    globals()[name] = value
    return value


__all__ = ["run", "compare", "congestion_controls", "cc_params", "transports", "workloads", "validate", "scenario_warnings", "load_scenario", "topology_summary", "offered_load", "Results", "ScenarioError",
           "ScenarioWarning", "FabricsimError", "ResultsError", "SweepError", "MissingFileError",
           "analysis", "pcap", "traffic", "__version__"]


def topology_summary(scenario, overrides=()) -> dict:
    """Hosts, switches, links, ECMP path counts, diameter, oversubscription, bisection bandwidth.

    Example::

        >>> s = fabricsim.topology_summary("scenarios/leafspine-websearch.toml")   # doctest: +SKIP
        >>> s["hosts"], s["oversubscription"]   # doctest: +SKIP
    """
    from . import _engine
    from .scenario import to_json

    return _engine.topology_summary(to_json(validate(scenario, overrides)))


def offered_load(scenario, overrides=(), seed=None) -> dict:
    """The load a scenario's ``[[workload]]``s offer, in closed form (no simulation): bits/s over
    capacity on the most loaded host downlink, host uplink and first-tier switch's links to other
    switches. Values above 1 mean the scenario is overloaded by construction.

    Returns ``{"downlink": (port, load), "uplink": (port, load), "core": (switch, "up"|"down",
    load)}``, each None where there is nothing to report (no workload; no switch-to-switch link).

    Example::

        >>> fabricsim.offered_load("scenarios/incast.toml")["downlink"]      # doctest: +SKIP
        ('s0->h0', 0.7)
    """
    from . import _engine
    from .scenario import to_json

    return _engine.offered_load(to_json(validate(scenario, overrides)), seed)


def congestion_controls() -> dict:
    """{name: one-line description} of the congestion controls usable as `cc = "..."`.

    Example::

        >>> fabricsim.congestion_controls()["dctcp"]   # doctest: +SKIP
    """
    from . import _engine

    return dict(_engine.congestion_controls())


def cc_params(name: str) -> list[dict]:
    """The tunable constants of congestion control `name`, settable as
    `cc_params = { NAME = value }` in a transport table: name, default, min, max, help.

    Example::

        >>> [k["name"] for k in fabricsim.cc_params("cubic")]   # doctest: +SKIP
    """
    from . import _engine

    return [dict(zip(("name", "default", "min", "max", "help"), k)) for k in _engine.cc_knobs(name)]


def transports() -> dict:
    """{kind: (description, [{key, default, help}])} of the transport kinds usable as
    `kind = "..."` in a transport table (tcp, ndp, homa).

    Example::

        >>> sorted(fabricsim.transports())   # doctest: +SKIP
        ['homa', 'ndp', 'tcp']
    """
    from . import _engine

    return {k: (d, [dict(zip(("key", "default", "help"), p)) for p in ps]) for k, d, ps in _engine.transport_kinds()}


def workloads() -> list:
    """Names of the built-in flow-size distributions usable as `cdf = "..."`.

    Example::

        >>> "websearch" in fabricsim.workloads()   # doctest: +SKIP
    """
    from . import _engine

    return list(_engine.builtin_workloads())
