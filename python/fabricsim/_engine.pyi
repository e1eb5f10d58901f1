"""Type stubs for the Rust engine (fabricsim._engine)."""

from typing import Any, Optional

__version__: str

def validate(json: str) -> list[tuple[str, str]]:
    """Problems in a JSON scenario as (key path, message); empty if it is valid."""

def topology_summary(json: str) -> dict[str, Any]:
    """Hosts, switches, links, ECMP path counts, diameter, oversubscription, bisection bandwidth."""

def congestion_controls() -> list[tuple[str, str]]:
    """(name, description) of every congestion control."""

def cc_knobs(name: str) -> list[tuple[str, float, float, float, str]]:
    """(name, default, min, max, meaning) of a congestion control's cc_params knobs."""

def builtin_workloads() -> list[str]:
    """Names of the built-in flow-size distributions."""

def builtin_workload_text(name: str) -> str:
    """The .cdf text of a built-in distribution."""

class Simulation:
    def __init__(self, json: str, seed: Optional[int] = None) -> None: ...
    def run_until(self, until_ps: int) -> None: ...
    @property
    def now_ps(self) -> int: ...
    @property
    def end_ps(self) -> int: ...
    @property
    def finished(self) -> bool: ...
    @property
    def events(self) -> int: ...
    @property
    def goodput_bytes(self) -> int: ...
    def flows(self) -> dict[str, list[Any]]: ...
    def ports(self) -> dict[str, list[Any]]: ...
    def queues(self) -> dict[str, list[Any]]: ...
    def timeseries(self) -> dict[str, list[Any]]: ...
    def summary(self) -> dict[str, Any]: ...
