"""Type stubs for the Rust engine (fabricsim._engine, crates/py/src/lib.rs).

Scenarios cross as the validated dict itself (read without Python's json module) or as JSON text
(fabricsim.scenario.to_json of it; `paper_ports` takes only the text); tables come back
as dicts of equal-length columns, ready for pandas.DataFrame. Times are integer picoseconds.
"""

from typing import Any, Optional

__version__: str

def validate(doc: str | dict[str, Any]) -> list[tuple[str, str]]:
    """Problems in a scenario (JSON text or a dict) as (key path, message); empty if it is valid."""

def parse_toml(text: str) -> Optional[dict[str, Any]]:
    """A TOML document as tomllib.loads returns it (keys in document order), or None where
    tomllib must read it: a syntax error, a date-time, an integer beyond i64 (2^63 and up), a byte-order mark."""

def scenario_warnings(doc: str | dict[str, Any]) -> list[tuple[str, str]]:
    """What in a valid JSON scenario runs but is probably not what was meant, as (key path,
    message); empty when there is nothing, or when the scenario is not valid."""

def topology_summary(doc: str | dict[str, Any]) -> dict[str, Any]:
    """kind, hosts, switches, links, paths_min/mean/max, diameter_hops, oversubscription,
    bisection_bps, host_capacity_bps."""

def offered_load(doc: str | dict[str, Any], seed: Optional[int] = None) -> dict[str, Any]:
    """Offered load of the workloads in closed form: downlink (port, load), uplink (port, load),
    core (switch, "up"|"down", load); None where there is nothing to report."""

def congestion_controls() -> list[tuple[str, str]]:
    """(name, description) of every congestion control and named scheme (pias, flash, pfabric, ...)."""

def transport_kinds() -> list[tuple[str, str, list[tuple[str, str, str]]]]:
    """(kind, description, [(key, default, meaning)]) of every transport kind (tcp, ndp, homa)."""

def host_stacks() -> list[tuple[str, str]]:
    """(name, what it sets at MSS 1448) of every Linux stack `[host] stack` accepts."""

def cc_knobs(name: str) -> list[tuple[str, float, float, float, str]]:
    """(name, default, min, max, meaning) of a congestion control's (or scheme's) cc_params knobs."""

def ns3_cc_knobs(cc: str) -> list[tuple[str, float]]:
    """The cc_params `[host] stack = "ns-3"` gives congestion control `cc` (empty for an unknown name)."""

def paper_ports(json: str) -> Optional[tuple[str, Optional[str], str]]:
    """The port setup the paper of the scenario's transport configures: (ports JSON, host_ports JSON or None, why)."""

def port_setup(doc: str | dict[str, Any]) -> dict[str, Any]:
    """The scenario's switch ports in words: queues, scheduler, buffer, marking, admission, switch_ports, setups."""

def port_declarations() -> list[tuple[str, str, str]]:
    """(name, what it needs of the switch ports, its paper's setup) for every transport, cc and scheme."""

def builtin_workloads() -> list[str]:
    """Names of the built-in flow-size distributions."""

def builtin_workload_text(name: str) -> str:
    """The .cdf text of a built-in distribution (ValueError if there is none)."""

class Simulation:
    """One simulation, built from a scenario (JSON text or a validated dict) and advanced in
    chunks (the GIL is released while it runs)."""

    def __init__(self, doc: str | dict[str, Any], seed: Optional[int] = None) -> None: ...
    def run_until(self, until_ps: int) -> None:
        """Process events up to `until_ps` (picoseconds)."""
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
    @property
    def warnings(self) -> list[tuple[str, str]]:
        """The scenario's warnings (key path, message), as scenario_warnings gives them."""
    def flows(self) -> dict[str, list[Any]]:
        """Per-flow records (id, src, dst, transport, workload, measured, cc, size, start_ps,
        end_ps, fct_ps, ideal_fct_ps, slowdown, bytes_acked, setup_ps, segments_sent,
        retransmits, timeouts, fast_recoveries, ecn_reductions, deadline_ps, deadline_met)."""
    def ports(self) -> dict[str, list[Any]]:
        """Per-port counters (port, node, peer, rate_bps, tx_packets, tx_bytes, drops,
        wire_losses, ecn_marks, trims, max/mean queue packets and bytes, utilization; with SAB
        also sab_flows, sab_peak_flows, sab_rewrites; with [pfc] also pfc_pauses, pfc_paused_s)."""
    def queues(self) -> dict[str, list[Any]]:
        """One row per queue of every port (port, queue, classes, enqueued, drops, marks, trims,
        max/mean packets and bytes)."""
    def timeseries(self) -> dict[str, list[Any]]:
        """Samples in long format: time_ps, metric, target, value."""
    def circuit(self) -> Optional[dict[str, Any]]:
        """Hybrid networks: days, uplinks, voqs, seq_view, latency (dicts of columns) and utilization;
        None for a packet-only fabric."""
    def capture(self) -> Optional[dict[str, Any]]:
        """Packets recorded for pcap traces ([output.pcap]) as columns (time_ps, arrive_ps,
        port, flow, src, dst, size, class, ecn, kind, trimmed, lost, tcp, seq, ack, len, window,
        flags, sack_count, sack (3 pairs per row, flattened), rank; u8 columns as bytes), plus
        dropped (rows left out past max_packets) and hosts (host names by index); None without
        a capture."""
    def summary(self) -> dict[str, Any]:
        """scenario, seed, sim_time_s, end_s, engine_wall_s, events, packet_hops, packet counts,
        peak_packets_in_flight, peak_rss_bytes, flows, flows_completed."""
