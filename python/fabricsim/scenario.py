"""Loading scenarios (TOML files or dicts), applying ``--set key=value`` overrides, validation."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Iterable, Mapping, Union

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from . import _engine

ScenarioLike = Union[str, os.PathLike, Mapping[str, Any]]


class ScenarioError(ValueError):
    """A scenario has problems; ``.issues`` lists (key path, message) pairs."""

    def __init__(self, issues: list[tuple[str, str]], source: str = "scenario"):
        self.issues = issues
        n = len(issues)
        lines = [f"{source} has {n} problem{'s' if n != 1 else ''}:"]
        lines += [f"  - {p}: {m}" if p else f"  - {m}" for p, m in issues]
        super().__init__("\n".join(lines))


def _parse_value(text: str) -> Any:
    """A --set value: a TOML value if it parses as one (number, bool, list, quoted string),
    otherwise the raw text as a string (so `--set topology.link.rate=40Gbps` just works)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def set_key(doc: dict, key: str, value: Any, source: str = "--set") -> None:
    """Set a dotted scenario key to a value; list items are addressed by index (``flows.0.size``)."""
    parts = key.strip().split(".")
    node: Any = doc
    for i, part in enumerate(parts[:-1]):
        where = ".".join(parts[: i + 1])
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise ScenarioError([(where, f"'{part}' is not an index of this list (0..{len(node) - 1})")], source)
            node = node[int(part)]
        else:
            node = node.setdefault(part, {})
        if not isinstance(node, (dict, list)):
            raise ScenarioError([(where, "is a value, not a table; cannot set a key inside it")], source)
    last = parts[-1]
    if isinstance(node, list):
        if not last.isdigit() or int(last) >= len(node):
            raise ScenarioError([(key, f"'{last}' is not an index of this list")], source)
        node[int(last)] = value
    else:
        node[last] = value


def apply_override(doc: dict, assignment: str) -> None:
    """Apply one ``dotted.key=value``; list items are addressed by index (``flows.0.size=1MB``)."""
    if "=" not in assignment:
        raise ScenarioError([("--set", f"'{assignment}' is not key=value (e.g. simulation.end=10ms)")])
    key, value = assignment.split("=", 1)
    set_key(doc, key, _parse_value(value))


def _resolve_paths(doc: dict, base: Path) -> None:
    """User CDF files are relative to the scenario file, not to the working directory."""
    for w in doc.get("workload", []) or []:
        cdf = w.get("cdf") if isinstance(w, dict) else None
        if isinstance(cdf, str) and (cdf.endswith(".cdf") or "/" in cdf) and not Path(cdf).is_absolute():
            w["cdf"] = str((base / cdf).resolve())


def read_toml(path: Path, what: str = "scenario") -> dict:
    """A TOML file as a dict; a missing file or bad TOML is reported with the path."""
    if not path.exists():
        raise FileNotFoundError(f"no {what} file at '{path}'")
    try:
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError([("", f"not valid TOML: {e}")], str(path)) from None


def load_scenario(scenario: ScenarioLike, overrides: Iterable[str] = ()) -> dict:
    """Read a scenario (TOML path or dict) and apply overrides; returns a new dict."""
    if isinstance(scenario, Mapping):
        doc = json.loads(json.dumps(scenario))  # deep copy, and proves it is plain data
    else:
        path = Path(scenario)
        doc = read_toml(path)
        _resolve_paths(doc, path.parent)
    for o in overrides:
        apply_override(doc, o)
    return doc


def to_json(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc)


def validate(scenario: ScenarioLike, overrides: Iterable[str] = ()) -> dict:
    """Load and validate; raise ScenarioError listing every problem. Returns the document."""
    doc = load_scenario(scenario, overrides)
    issues = _engine.validate(to_json(doc))
    if issues:
        source = str(scenario) if not isinstance(scenario, Mapping) else "scenario"
        raise ScenarioError(issues, source)
    return doc
