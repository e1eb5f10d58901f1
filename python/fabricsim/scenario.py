"""Loading scenarios (TOML files or dicts), applying ``--set key=value`` overrides, validation."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from . import _engine
from .errors import MissingFileError, ScenarioError

# `json`, `tomllib`, `pathlib` and `typing` (with the `re` and `enum` they import) are imported
# only where needed: the engine reads TOML files and dicts itself (crates/py/src/document.rs),
# which keeps about 15 ms off every run's start (docs/PERFORMANCE.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Iterable, Union

    ScenarioLike = Union[str, os.PathLike, Mapping[str, Any]]


def __getattr__(name: str):
    # `ScenarioLike` for code that reads it at run time, built on first use (typing is slow to import).
    if name == "ScenarioLike":
        from typing import Any, Union

        globals()[name] = value = Union[str, os.PathLike, Mapping[str, Any]]
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _tomllib():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


#: Scenario files above this size are refused before parsing (a TOML parser needs ~10 s and
#: ~150 MB per 10 MB); large flow lists belong in a [[workload]] or the Python API.
MAX_SCENARIO_BYTES = 10_000_000
#: Tables and lists may nest this deep (a scenario needs 4).
MAX_DEPTH = 32
#: Integers must fit in 64 bits (seeds are unsigned 64-bit).
MAX_INT = 2**64 - 1


def _parse_value(text: str) -> Any:
    """A --set value: a TOML value if it parses as one (number, bool, list, quoted string),
    otherwise the raw text as a string (so `--set topology.link.rate=40Gbps` just works)."""
    doc = _engine.parse_toml(f"v = {text}")
    if doc is not None:
        return doc["v"]
    tomllib = _tomllib()
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


def check_overrides(overrides: Any) -> list[str]:
    """Overrides as a list of "KEY=VALUE" strings, or a ScenarioError: a lone string would
    otherwise be taken character by character."""
    if isinstance(overrides, (str, bytes)):
        raise ScenarioError([("overrides", f"{overrides!r} is one string; pass a list of 'KEY=VALUE' strings, "
                                           f"e.g. [{overrides!r}]")], "overrides")
    if overrides is None:
        return []
    try:
        items = list(overrides)
    except TypeError:
        raise ScenarioError([("overrides", f"{overrides!r} is not a list of 'KEY=VALUE' strings")], "overrides") from None
    for i, o in enumerate(items):
        if not isinstance(o, str):
            raise ScenarioError([(f"overrides[{i}]", f"{o!r} is not a 'KEY=VALUE' string such as 'simulation.end=10ms'")], "overrides")
    return items


def _resolve_paths(doc: dict, base: str | os.PathLike) -> None:
    """User CDF files are relative to the scenario file, not to the working directory."""
    for w in doc.get("workload", []) or []:
        cdf = w.get("cdf") if isinstance(w, dict) else None
        if isinstance(cdf, str) and (cdf.endswith(".cdf") or "/" in cdf) and not os.path.isabs(cdf):
            from pathlib import Path

            w["cdf"] = str((Path(base) / cdf).resolve())


def _shown(path: str | os.PathLike) -> str:
    """A path as messages show it: as pathlib writes it (``./a//b.toml`` is ``a/b.toml``)."""
    from pathlib import Path

    return str(Path(path))


def _decode(data: bytes, path: str | os.PathLike) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or (len(data) > 1 and b"\x00" in data[:2]):
        raise ScenarioError([("", "the file is UTF-16 encoded; save it as UTF-8")], _shown(path))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ScenarioError([("", f"not UTF-8 text (byte {e.start} is {data[e.start]:#04x}); save it as UTF-8")], _shown(path)) from None


def read_toml(path: str | os.PathLike, what: str = "scenario") -> dict:
    """A TOML file as a dict; a missing, oversized, non-UTF-8 or malformed file is reported with
    the path."""
    if not os.path.exists(path):
        raise MissingFileError(f"no {what} file at '{_shown(path)}'")
    if os.path.isdir(path):
        raise ScenarioError([("", f"'{_shown(path)}' is a directory, not a {what} file")], _shown(path))
    try:
        size = os.stat(path).st_size
        if size > MAX_SCENARIO_BYTES:
            raise ScenarioError([("", f"the file is {size / 1e6:.1f} MB, above the {MAX_SCENARIO_BYTES / 1e6:g} MB a {what} file may have "
                                      "(fabricsim.scenario.MAX_SCENARIO_BYTES); describe many flows with a [[workload]], "
                                      "or pass a dict to the Python API")], _shown(path))
        with open(path, "rb") as f:
            text = _decode(f.read(), path)
    except OSError as e:
        raise ScenarioError([("", f"cannot read the file: {e.strerror or e}")], _shown(path)) from None
    doc = _engine.parse_toml(text)
    if doc is None:
        doc = _read_toml_python(text, path)
    issues = check_values(doc)
    if issues:
        raise ScenarioError(issues, _shown(path))
    return doc


def _read_toml_python(text: str, path) -> dict:
    """tomllib's reading, for what the engine's reader leaves to it: syntax errors (tomllib's
    message), date-times, integers beyond i64, a byte-order mark."""
    tomllib = _tomllib()
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError([("", f"not valid TOML: {e}")], _shown(path)) from None
    except RecursionError:
        raise ScenarioError([("", f"nested too deeply to read (tables and lists may nest {MAX_DEPTH} levels)")], _shown(path)) from None


def _path(parent: str, key) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else str(key)


def check_values(doc: Any) -> list[tuple[str, str]]:
    """Problems no scenario key can accept, found without recursion: nesting deeper than
    MAX_DEPTH, nan/inf, integers beyond 64 bits, values that are not TOML/JSON data."""
    import math

    issues: list[tuple[str, str]] = []
    stack = [("", doc, 0)]
    while stack and len(issues) < 20:
        path, v, depth = stack.pop()
        t = type(v)
        # The exact types a TOML file gives first; isinstance against the ABC for the rest.
        if t is str or t is bool or v is None:
            continue
        mapping = t is dict or (t is not list and isinstance(v, Mapping))
        if mapping or t is list or isinstance(v, (list, tuple)):
            if depth >= MAX_DEPTH:
                issues.append((path, f"nested deeper than {MAX_DEPTH} levels of tables and lists"))
                continue
            for k, x in (v.items() if mapping else enumerate(v)):
                if mapping and not isinstance(k, str):
                    issues.append((path, f"key {k!r} is not a string"))
                    continue
                stack.append((_path(path, k), x, depth + 1))
        elif isinstance(v, bool) or isinstance(v, str):
            continue
        elif isinstance(v, int):
            if not -(2**63) <= v <= MAX_INT:
                issues.append((path, f"{v} is out of range; whole numbers here go up to 2^64 - 1 = {MAX_INT}"))
        elif isinstance(v, float):
            if not math.isfinite(v):
                issues.append((path, f"{v} is not a finite number"))
        else:
            issues.append((path, f"{type(v).__name__} value {v!r} is not scenario data (strings, numbers, booleans, lists, tables)"))
    return sorted(issues)


def load_scenario(scenario: ScenarioLike, overrides: Iterable[str] = ()) -> dict:
    """Read a scenario (TOML path or dict), apply overrides and read the flow lists its
    ``[[import]]`` tables name (fabricsim.traffic); returns a new dict.

    Example::

        >>> doc = fabricsim.load_scenario("scenarios/example.toml", ["transport.cc=cubic"])   # doctest: +SKIP
        >>> doc["transport"]["cc"]   # doctest: +SKIP
        'cubic'
    """
    return _load(scenario, overrides)[0]


def _load(scenario: ScenarioLike, overrides: Iterable[str] = ()) -> tuple[dict, list]:
    base = None
    if isinstance(scenario, Mapping):
        import json

        issues = check_values(scenario)
        if issues:
            raise ScenarioError(issues, "scenario")
        doc = json.loads(json.dumps(scenario))  # deep copy, and proves it is plain data
    else:
        path = _path_text(scenario)
        doc = read_toml(path)
        base = os.path.dirname(path) or "."
        _resolve_paths(doc, base)
    for o in check_overrides(overrides):
        apply_override(doc, o)
    if "import" not in doc:
        return doc, listed_origins(doc)  # nothing to read: traffic (and its re, csv) not loaded
    from pathlib import Path

    from .traffic import expand_imports

    origins = expand_imports(doc, None if base is None else Path(base))
    return doc, origins


def listed_origins(doc: dict) -> list:
    """The origin of each flow the document lists itself: none (fabricsim.traffic's
    `expand_imports` appends the imported flows' after these)."""
    flows = doc.get("flows")
    return [None] * (len(flows) if isinstance(flows, list) else 0)


def _path_text(scenario) -> str:
    """A scenario file's path as text; what is neither text nor a path gets pathlib's TypeError."""
    if isinstance(scenario, str):
        return scenario or "."  # pathlib reads "" as the current directory
    from pathlib import Path

    return str(Path(scenario))


def to_json(doc: Mapping[str, Any]) -> str:
    import json

    return json.dumps(doc)


def validate(scenario: ScenarioLike, overrides: Iterable[str] = ()) -> dict:
    """Load and validate; raise ScenarioError listing every problem (imported flows by file and
    line). Returns the document, ready for the engine.

    Example::

        >>> fabricsim.validate("scenarios/example.toml", ["topology.link.rate=40Gbs"])   # doctest: +SKIP
        ScenarioError: scenarios/example.toml has 1 problem:
          - topology.link.rate: '40Gbs' is not a rate; try '40Gbps'
    """
    doc, origins = _load(scenario, overrides)
    issues = check_values(doc)  # overrides may have brought nan or huge numbers
    if not issues:
        issues = _engine.validate(doc)
        if issues and any(o is not None for o in origins):
            from .traffic import locate

            issues = locate(issues, origins)
    if issues:
        source = str(scenario) if not isinstance(scenario, Mapping) else "scenario"
        raise ScenarioError(issues, source)
    return doc


def scenario_warnings(scenario: ScenarioLike, overrides: Iterable[str] = ()) -> list[tuple[str, str]]:
    """Validate, then list what runs but is probably not what was meant, as (key path, message):
    transports over ports that lack what they need (Homa with fewer queues than its priority
    levels, PPT/RC3/Flash/PIAS over one queue, pFabric without its admission), DCTCP-family
    profiles where no port marks ECN, a shared buffer no port draws on. `fabricsim validate` and
    `fabricsim run` print them; `run` also issues each as a ScenarioWarning.

    Example::

        >>> fabricsim.scenario_warnings({..., "transport": {"kind": "homa"}})   # doctest: +SKIP
        [('queue.queues', "transport 'default' is Homa with 8 priority levels, but every switch port (2) has fewer queues, ...")]
    """
    return [tuple(w) for w in _engine.scenario_warnings(to_json(validate(scenario, overrides)))]
