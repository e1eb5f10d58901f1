"""Sweep definitions: a base scenario, axes of values for scenario keys (crossed or zipped), and
derived values computed from the axes. Each point resolves to a complete scenario whose stable hash
names its run in the store."""

from __future__ import annotations

import ast
import hashlib
import itertools
import json
import math
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

from ..scenario import ScenarioError, load_scenario, read_toml
from ..scenario import set_key as _set_key

#: Short names for common axes.
ALIASES = {"seed": "simulation.seed", "cc": "transport.cc", "load": "workload.0.load", "end": "simulation.end"}


def set_key(doc: dict, key: str, value: Any) -> None:
    """Set a dotted scenario key (list items by index, ``flows.0.size``) to a typed value."""
    _set_key(doc, key, value, "sweep")


def canonical(doc: Any) -> str:
    """Canonical JSON: sorted keys, no whitespace, ASCII, floats as Python's shortest repr (the same
    on every platform and Python version since 3.1)."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def scenario_hash(doc: Mapping) -> str:
    """Stable run key: the first 16 hex digits of SHA-256 over the canonical JSON."""
    return hashlib.sha256(canonical(doc).encode()).hexdigest()[:16]


# Derived values: "{expr}" templates over the axis values, with a small safe arithmetic language.
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_FUNCS = {"min": min, "max": max, "round": round, "int": int, "float": float, "abs": abs, "ceil": math.ceil, "floor": math.floor}


def _eval(node: ast.AST, names: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Expression):
        return _eval(node.body, names)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise KeyError(node.id)
        return names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval(node.left, names), _eval(node.right, names))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _eval(node.operand, names)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS and not node.keywords:
        return _FUNCS[node.func.id](*[_eval(a, names) for a in node.args])
    raise ValueError(f"'{ast.unparse(node)}' is not allowed (numbers, axis names, + - * / // % **, min max round int float abs ceil floor)")


def evaluate(template: Any, names: Mapping[str, Any], key: str) -> Any:
    """A derived value: non-strings as they are; "{expr}" alone gives the expression's value;
    otherwise each {expr} is replaced by its value ("{3 * week_us}us" → "14400us")."""
    if not isinstance(template, str):
        return template
    parts = re.split(r"(\{[^{}]*\})", template)
    try:
        vals = [_eval(ast.parse(p[1:-1], mode="eval"), names) if p.startswith("{") and p.endswith("}") else p for p in parts]
    except KeyError as e:
        raise ScenarioError([(f"derived.{key}", f"'{e.args[0]}' is not an axis; known: {', '.join(sorted(names))}")], "sweep") from None
    except (ValueError, SyntaxError, ZeroDivisionError, TypeError) as e:
        raise ScenarioError([(f"derived.{key}", f"{template!r}: {e}")], "sweep") from None
    vals = [v for v in vals if v != ""]
    if len(vals) == 1 and not isinstance(vals[0], str):
        return vals[0]
    return "".join(f"{v:g}" if isinstance(v, float) else str(v) for v in vals)


def _alias(key: str, keys: Sequence[str]) -> str:
    """Variable name of an axis in derived expressions: its last component if unique, else the
    whole key with non-word characters as underscores."""
    last = key.split(".")[-1]
    if sum(1 for k in keys if k.split(".")[-1] == last) == 1 and last.isidentifier():
        return last
    return re.sub(r"\W", "_", key)


@dataclass
class Point:
    """One run of a sweep: its axis values, the resolved scenario and its key."""

    params: dict
    scenario: dict
    key: str


@dataclass
class Sweep:
    """A base scenario and axes. `axes` maps scenario keys (dotted, as for --set; aliases seed, cc,
    load, end) to value lists; `mode` "cross" runs every combination, "zip" the i-th of each;
    `derived` maps keys to values or "{expr}" templates over the axis variables."""

    base: Union[str, Path, Mapping[str, Any]]
    axes: dict[str, list] = field(default_factory=dict)
    mode: str = "cross"
    derived: dict[str, Any] = field(default_factory=dict)
    name: str = "sweep"
    #: Extra points given explicitly as (params, scenario) — the reproductions' form.
    explicit: list[tuple[dict, dict]] = field(default_factory=list)
    #: The sweep file it was read from, for messages.
    source: Optional[str] = None

    @classmethod
    def load(cls, path: Union[str, Path]) -> "Sweep":
        """Read a sweep TOML: `base` (a path relative to the sweep file) or a [base] table,
        `mode`, `name`, [axes], [derived]."""
        path = Path(path)
        d = read_toml(path, "sweep")
        issues = []
        unknown = set(d) - {"name", "base", "mode", "axes", "derived"}
        for k in sorted(unknown):
            issues.append((k, "unknown key (known: name, base, mode, axes, derived)"))
        base = d.get("base")
        if base is None:
            issues.append(("base", "missing; a path to a scenario (relative to this file) or a [base] table"))
        elif isinstance(base, str):
            base = (path.parent / base).resolve()
            if not base.exists():
                issues.append(("base", f"'{d['base']}': no such scenario file (looked at {base})"))
        elif not isinstance(base, dict):
            issues.append(("base", "is neither a path nor a table"))
        if issues:
            raise ScenarioError(issues, str(path))
        return cls(base=base, axes=dict(d.get("axes", {})), mode=d.get("mode", "cross"), derived=dict(d.get("derived", {})),
                   name=d.get("name", path.stem), source=str(path))

    def check(self) -> None:
        issues = []
        if self.mode not in ("cross", "zip"):
            issues.append(("mode", f"'{self.mode}' is not 'cross' or 'zip'"))
        for k, v in self.axes.items():
            if not isinstance(v, list) or not v:
                issues.append((f"axes.{k}", f"{v!r} is not a non-empty list of values"))
        if self.mode == "zip" and len({len(v) for v in self.axes.values() if isinstance(v, list)}) > 1:
            lens = ", ".join(f"{k}: {len(v)}" for k, v in self.axes.items())
            issues.append(("axes", f"mode = 'zip' needs lists of one length ({lens})"))
        if issues:
            raise ScenarioError(issues, f"sweep '{self.name}'")

    def points(self) -> list[Point]:
        """Every point, resolved and validated structurally (the engine validates each run)."""
        self.check()
        base = load_scenario(self.base)
        keys = [ALIASES.get(k, k) for k in self.axes]
        values = list(self.axes.values())
        combos = list(itertools.product(*values)) if self.mode == "cross" else list(zip(*values))
        if not self.axes:
            combos = [] if self.explicit else [()]
        out = []
        for combo in combos:
            doc = json.loads(json.dumps(base))
            params = {}
            env = {}
            for k, raw, v in zip(keys, self.axes, combo):
                set_key(doc, k, v)
                params[raw] = v
                env[_alias(k, keys)] = v
            for dk, template in self.derived.items():
                v = evaluate(template, env, dk)
                set_key(doc, ALIASES.get(dk, dk), v)
                params[dk] = v
            out.append(Point(params, doc, scenario_hash(doc)))
        seen = {}
        for p in out:
            if p.key in seen and seen[p.key] != p.params:
                raise ScenarioError([("axes", f"points {seen[p.key]} and {p.params} resolve to the same scenario")], f"sweep '{self.name}'")
            seen[p.key] = p.params
        # Explicit points may repeat a scenario under another name (a reproduction's experiments
        # share runs): it runs once.
        for params, doc in self.explicit:
            key = scenario_hash(doc)
            if key not in seen:
                seen[key] = params
                out.append(Point(dict(params), doc, key))
        return out

    def describe(self) -> dict:
        """The definition stored in sweep.json, with "base_hash" (the resolved base scenario's
        hash: an edited base file changes it) and "identity" (a hash over the base, axes, mode
        and derived values: the store's owner). Sweeps of explicit points only (the
        reproductions) share one identity: their runs are looked up by scenario, never pooled."""
        base = self.base if isinstance(self.base, Mapping) else str(self.base)
        if self.explicit and not self.axes:
            base_hash, ident = None, {"explicit": True}
        else:
            base_hash = scenario_hash(load_scenario(self.base))
            ident = {"base": base_hash, "axes": self.axes, "mode": self.mode, "derived": self.derived}
        return {"name": self.name, "base": base, "axes": self.axes, "mode": self.mode, "derived": self.derived,
                "base_hash": base_hash, "identity": scenario_hash(ident)}
