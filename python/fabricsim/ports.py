"""What each transport needs of the switch ports and the port setup its paper configures.

The declarations live beside each transport in the engine (crates/engine/src/transport/ports.rs
collects them); this module hands them to the front end: `fabricsim compare --ports paper`
writes a transport's setup as its profile's `ports` table (`with_paper_ports`), `describe` says
what a scenario's switch ports are, and `fabricsim list transports` / `list cc` print
`declarations()`.
"""

from __future__ import annotations

import copy
import json
from typing import Optional

from . import _engine
from .errors import ScenarioError
from .scenario import to_json, validate

#: Which ports a comparison runs each transport on (`fabricsim compare --ports`).
MODES = ("paper", "scenario")
#: The aspects of a port setup compare prints and writes (compare.csv's port columns).
ASPECTS = ("queues", "scheduler", "buffer", "marking", "admission")


def declarations() -> dict:
    """{name: (needs, setup)} for every transport kind, congestion control and scheme: what it
    needs of the switch ports and, in words with its source, the setup its paper configures.

    Example::

        >>> declarations()["dctcp"][0]   # doctest: +SKIP
        'ECN marking'
    """
    return {name: (needs, setup) for name, needs, setup in _engine.port_declarations()}


def paper_setup(doc: dict) -> Optional[tuple[dict, Optional[dict], str]]:
    """The port setup the paper of the transport carrying `doc`'s traffic configures, for `doc`'s
    fabric: (`ports` table, `host_ports` table or None, why), or None without traffic. A
    scenario with other problems raises its ScenarioError."""
    try:
        found = _engine.paper_ports(to_json(doc))
    except ValueError:
        validate(doc)  # the scenario's own one-line errors
        raise
    if found is None:
        return None
    ports, host_ports, note = found
    return json.loads(ports), json.loads(host_ports) if host_ports else None, note


def own_ports(doc: dict, transport: str) -> bool:
    """Does the scenario's profile `transport` set its own ports?"""
    profile = (doc.get("transports") or {}).get(transport)
    return isinstance(profile, dict) and ("ports" in profile or "host_ports" in profile)


def with_paper_ports(doc: dict, transport: str) -> tuple[dict, str]:
    """A copy of `doc` (whose traffic all uses `transport`) in which the profile `transport`
    carries its paper's ports (replacing any it had), and the note saying which values were
    chosen and why."""
    found = paper_setup(doc)
    if found is None:
        return doc, "no traffic"
    ports, host_ports, note = found
    d = copy.deepcopy(doc)
    profiles = d.setdefault("transports", {})
    if not isinstance(profiles, dict):
        raise ScenarioError([("transports", f"{profiles!r} is not a table of transport profiles")], "compare")
    profile = profiles.setdefault(transport, {})
    profile["ports"] = ports
    if host_ports:
        profile["host_ports"] = host_ports
    return d, note


def describe(doc: dict) -> dict:
    """The switch ports of a valid scenario in words: queues, scheduler, buffer, marking and
    admission of the most common setup, `switch_ports` (how many) and `setups` (distinct setups)."""
    return dict(_engine.port_setup(to_json(doc)))


def line(d: dict) -> str:
    """A described setup as one line: "8 queues strict, buffer 120000B, marking ecn per queue 65pkt,
    admission droptail" (+ "; N setups over M ports" when they differ)."""
    q = d.get("queues", "?")
    text = (f"{q} queue{'s' if q != '1' else ''} {d.get('scheduler', '?')}, buffer {d.get('buffer', '?')}, "
            f"marking {d.get('marking', '?')}, admission {d.get('admission', '?')}")
    if d.get("setups", 1) > 1:
        text += f" (the most common of {d['setups']} setups over {d['switch_ports']} switch ports)"
    return text



def _on_fabric(transport: str, topology: dict, buffer: str, profile: Optional[dict]) -> tuple[dict, Optional[dict], str]:
    """`transport`'s paper setup on `topology` with ports of `buffer` (one flow of traffic)."""
    doc = {"simulation": {"end": "1ms"}, "topology": topology, "queue": {"buffer": buffer},
           "workload": [{"cdf": "websearch", "load": 0.1, "flows": 1}]}
    if profile is None:
        doc["workload"][0]["transport"] = transport
    else:
        doc["transport"] = profile
    return paper_setup(doc)


def declared(transport: str, topology: dict, buffer: str, *, profile: Optional[dict] = None, **values) -> dict:
    """A `[queue]` table from `transport`'s declaration: the setup its paper configures, computed
    for `topology` with ports of `buffer` (and the `[transport]` table `profile`, when its keys
    matter: Homa's priority levels), with the caller's `buffer` and then `values` written over it
    (a value of None removes the key).

    What a reproduction uses for its schemes' ports: where its paper configures the switches
    otherwise than the transport's own paper, the `values` state the difference (PPT's 96 KB and
    86 KB thresholds over PPT's 8 queues), and the structure stays the declaration's.

    Example::

        >>> declared("ndp", {"kind": "star", "hosts": 2, "link": {"rate": "10Gbps", "delay": "1us"}}, "120KB")["admission"]   # doctest: +SKIP
        'trim'
    """
    q = {**_on_fabric(transport, topology, buffer, profile)[0], "buffer": buffer}
    for k, v in values.items():
        if v is None:
            q.pop(k, None)
        else:
            q[k] = v
    return q


def declared_host(transport: str, topology: dict, buffer: str = "100pkt", *, profile: Optional[dict] = None) -> Optional[dict]:
    """The `[host_queue]` table `transport`'s declaration asks for, or None (one FIFO)."""
    return _on_fabric(transport, topology, buffer, profile)[1]
