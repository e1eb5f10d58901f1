"""Bringing existing traffic into a scenario: flow lists (CSV or Parquet) and htsim connection
matrices, as ``[[flows]]``.

In a scenario::

    [[import]]
    file = "flows.csv"          # relative to the scenario file; .csv, .parquet, or htsim's .cm
    # format = "csv"            # "csv", "parquet" or "htsim"; default from the file's extension
    # transport = "dctcp"       # profile for rows that name none

A flow list has one row per flow and the columns ``src``, ``dst``, ``size``, ``start`` and
optionally ``transport``, ``priority`` (class 0-7), ``deadline`` and ``stop``. Hosts are names
(``h3``) or indices into the topology's hosts (``3``); sizes are bytes or a size with its unit
(``120KB``); empty ``size`` means a long-lived flow. Times carry their unit (``5us``), or the
column name does (``start_us``, ``deadline_ms``: s, ms, us, ns, ps).

An htsim connection matrix (csg-htsim ``sim/datacenter/connection_matrix.cpp``) is read as htsim
reads it: a header (``Nodes N``, ``Connections C``, optional ``Triggers 0``/``Failures 0``) and
lines ``SRC->DST [id I] start PS size BYTES [prio P]``; node i is the topology's i-th host,
``start`` is in picoseconds (as htsim's generators write it), a missing ``size`` is a long-lived
flow and ``prio`` must be a class 0-7. Triggers and failures have no fabricsim equivalent and are
refused with their line.

Every problem is reported before the run as ``FILE line N: key: message`` (Parquet: ``row N``),
whether the file's own reader or the scenario validator found it.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any, Optional

from .errors import MissingFileError, ScenarioError

REQUIRED = ("src", "dst", "size", "start")
OPTIONAL = ("transport", "priority", "deadline", "stop")
TIME_COLUMNS = ("start", "deadline", "stop")
UNITS = ("s", "ms", "us", "ns", "ps")
FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".cm": "htsim", ".tm": "htsim"}
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")

#: An imported file above this size is refused before it is read (100 MB: about 5 million rows
#: of a plain CSV flow list).
MAX_IMPORT_BYTES = 100_000_000
#: All [[import]]s together may bring at most this many flows. Files are read row by row and
#: stop at the first row past the limit, so reading never holds more than this many flows. Each
#: imported flow costs about 2 KB at the peak of `validate` and `run` (a table in Python, then in
#: the engine's reader, then a flow with its transport settings: 2 x 10^5 flows peaked at 0.49 GB
#: RSS), so a scenario at the ceiling needs about 2 GB.
MAX_IMPORT_FLOWS = 1_000_000


class Origin(str):
    """Where an imported flow came from: "flows.csv line 3"."""


def host_names(doc: dict) -> Optional[list[str]]:
    """The topology's hosts in order (what node indices refer to), or None when the topology
    is not readable enough to tell (the validator reports it).

    Example::

        >>> host_names({"topology": {"kind": "star", "hosts": 3}})
        ['h0', 'h1', 'h2']
    """
    t = doc.get("topology")
    if not isinstance(t, dict):
        return None
    kind = t.get("kind")
    try:
        if kind == "explicit":
            hosts = t.get("hosts")
            return [str(h) for h in hosts] if isinstance(hosts, list) else None
        n = {"star": lambda: t["hosts"], "dumbbell": lambda: t["left"] + t["right"],
             "leaf_spine": lambda: t["leaves"] * t["hosts_per_leaf"], "fat_tree": lambda: t["k"] ** 3 // 4,
             "rdcn": lambda: t["racks"] * t["hosts_per_rack"]}[kind]()
    except (KeyError, TypeError):
        return None
    return [f"h{i}" for i in range(n)] if isinstance(n, int) and 0 <= n <= 10_000_000 else None


class _Problems:
    def __init__(self, source: str):
        self.source = source
        self.items: list[tuple[str, str]] = []

    def add(self, where: str, key: str, msg: str) -> None:
        if len(self.items) < 50:
            self.items.append((f"{where}: {key}" if key else where, msg))

    def raise_any(self) -> None:
        if self.items:
            raise ScenarioError(self.items, self.source)


def _host(value: Any, hosts: Optional[list[str]], where: str, key: str, bad: _Problems) -> Optional[str]:
    s = str(value).strip()
    if not s:
        bad.add(where, key, "is empty; a host name (h3) or index (3)")
        return None
    if hosts is not None and s not in hosts and s.isdigit():
        i = int(s)
        if i >= len(hosts):
            bad.add(where, key, f"host index {i} is beyond the topology's {len(hosts)} hosts (0..{len(hosts) - 1})")
            return None
        return hosts[i]
    return s  # a name: the validator checks it (with a suggestion)


def _time(value: Any, column: str, where: str, bad: _Problems) -> Optional[str]:
    key, _, unit = column.partition("_")
    s = str(value).strip()
    if unit:
        if not _NUMBER.match(s):
            bad.add(where, column, f"'{s}' is not a number of {unit}")
            return None
        return f"{s}{unit}"
    if _NUMBER.match(s):
        bad.add(where, key, f"'{s}' has no unit; write e.g. '{s}us', or name the column {key}_s / {key}_us / {key}_ns")
        return None
    return s


def _row_to_flow(row: dict, where: str, hosts, default_transport, bad: _Problems) -> Optional[dict]:
    flow: dict[str, Any] = {}
    for key in ("src", "dst"):
        h = _host(row.get(key, ""), hosts, where, key, bad)
        if h is not None:
            flow[key] = h
    size = row.get("size", "")
    if isinstance(size, float) and size.is_integer():
        size = int(size)
    size = str(size).strip()
    if size:
        flow["size"] = int(size) if size.isdigit() else size
    for column, value in row.items():
        base = column.partition("_")[0]
        if base in TIME_COLUMNS and str(value).strip():
            t = _time(value, column, where, bad)
            if t is not None:
                flow[base] = t
    if "start" not in flow and not any(str(row.get(c, "")).strip() for c in row if c.partition("_")[0] == "start"):
        bad.add(where, "start", "is empty; a start time such as '0us'")
    tr = str(row.get("transport", "")).strip() or default_transport
    if tr:
        flow["transport"] = tr
    prio = str(row.get("priority", "")).strip()
    if prio:
        if not prio.isdigit():
            bad.add(where, "priority", f"'{prio}' is not a class 0-7")
        else:
            flow["priority"] = int(prio)
    return flow


def _check_columns(columns: list[str], source: str, bad: _Problems) -> None:
    known = set(REQUIRED + OPTIONAL) | {f"{c}_{u}" for c in TIME_COLUMNS for u in UNITS}
    for c in columns:
        if c not in known:
            bad.add(f"{source} header", c, f"unknown column; columns are {', '.join(REQUIRED)} and optionally "
                                           f"{', '.join(OPTIONAL)} (times may be start_us, deadline_ms, ...)")
    have = {c.partition("_")[0] if c.partition("_")[0] in TIME_COLUMNS else c for c in columns}
    for c in REQUIRED:
        if c not in have:
            bad.add(f"{source} header", c, "missing column" + (" (or start_s, start_us, ...)" if c == "start" else ""))


def _check_size(p: Path) -> None:
    """Refuse a file above MAX_IMPORT_BYTES before reading a byte of it."""
    size = p.stat().st_size
    if size > MAX_IMPORT_BYTES:
        raise ScenarioError([("", f"the file is {size / 1e6:,.1f} MB, above the {MAX_IMPORT_BYTES / 1e6:g} MB an imported file may "
                                  f"have (fabricsim.traffic.MAX_IMPORT_BYTES, at most {MAX_IMPORT_FLOWS:,} flows in all); "
                                  "describe the traffic with a [[workload]], or split it into several scenarios")], str(p))


def _too_many(p: Path, where: str, limit: int) -> ScenarioError:
    return ScenarioError([(where, f"more than {limit:,} flows"
                                  + (f" ({MAX_IMPORT_FLOWS - limit:,} came before this file)" if limit < MAX_IMPORT_FLOWS else "")
                                  + f"; the [[import]]s of a scenario may bring {MAX_IMPORT_FLOWS:,} "
                                  "(fabricsim.traffic.MAX_IMPORT_FLOWS); describe the traffic with a [[workload]]")], str(p))


def read_flow_list(path: str | Path, format: Optional[str] = None, hosts: Optional[list[str]] = None,
                   transport: Optional[str] = None, limit: int = MAX_IMPORT_FLOWS) -> tuple[list[dict], list[Origin]]:
    """Read a CSV or Parquet flow list into ``[[flows]]`` tables and where each came from.

    Example::

        >>> flows, origins = read_flow_list("flows.csv", hosts=["h0", "h1", "h2"])   # doctest: +SKIP
        >>> flows[0], origins[0]   # doctest: +SKIP
        ({'src': 'h1', 'dst': 'h0', 'size': 100000, 'start': '0us'}, 'flows.csv line 2')
    """
    p = Path(path)
    fmt = format or FORMATS.get(p.suffix.lower())
    if not p.exists():
        raise MissingFileError(f"no flow list at '{p}'")
    if fmt not in ("csv", "parquet", "htsim"):
        raise ScenarioError([("format", f"'{format or p.suffix}' is not a flow-list format; use csv, parquet or htsim")], str(p))
    if fmt == "htsim":
        return read_htsim(p, hosts=hosts, transport=transport, limit=limit)
    _check_size(p)
    bad = _Problems(str(p))
    flows, origins = [], []
    # Rows are turned into flows as they are read: the file is never held whole.
    for where, row in (_csv_rows if fmt == "csv" else _parquet_rows)(p, bad, limit):
        flows.append(_row_to_flow(row, where, hosts, transport, bad))
        origins.append(Origin(where))
    bad.raise_any()
    return flows, origins


def _csv_rows(p: Path, bad: _Problems, limit: int):
    """(where, row) of each data line of a CSV flow list, read line by line."""
    try:
        with open(p, newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            columns = [c.strip() for c in (reader.fieldnames or [])]
            _check_columns(columns, p.name, bad)
            bad.raise_any()
            n = 0
            for raw in reader:
                where = f"{p.name} line {reader.line_num}"
                fields = [v for v in raw.values() if isinstance(v, str)]
                breaks = sum(v.count("\n") for v in fields)
                if breaks:
                    # No flow-list field holds a line break: a quote was never closed and the
                    # reader took the following lines as part of its field (the last line's
                    # break too, when the file ends inside it).
                    opened = reader.line_num - breaks + any(v.endswith("\n") for v in fields)
                    raise ScenarioError([(f"{p.name} line {opened}", "a quote (\") opened on this line is not closed; the field "
                                                                     f"runs on to line {reader.line_num}")], str(p))
                if all(not (v or "").strip() for v in raw.values() if isinstance(v, str)) or (raw.get(reader.fieldnames[0]) or "").lstrip().startswith("#"):
                    continue
                if None in raw:
                    bad.add(where, "", f"has {len(columns) + len(raw[None])} fields, the header {len(columns)}")
                    continue
                n += 1
                if n > limit:
                    raise _too_many(p, where, limit)
                yield where, {k.strip(): (v or "") for k, v in raw.items()}
    except UnicodeDecodeError as e:
        raise ScenarioError([("", f"not UTF-8 text (byte {e.start}); save it as UTF-8")], str(p)) from None
    except csv.Error as e:
        raise ScenarioError([("", f"not a CSV file: {e}")], str(p)) from None


def _parquet_rows(p: Path, bad: _Problems, limit: int):
    """(where, row) of each row of a Parquet flow list, read a batch at a time; the row count is
    checked from the file's metadata before any row is read."""
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(p)
    except Exception as e:  # noqa: BLE001 - ArrowInvalid, OSError: not Parquet
        raise ScenarioError([("", f"not a Parquet file ({type(e).__name__}: {str(e).splitlines()[0][:120]})")], str(p)) from None
    _check_columns(pf.schema_arrow.names, p.name, bad)
    bad.raise_any()
    if pf.metadata.num_rows > limit:
        raise _too_many(p, f"{p.name} ({pf.metadata.num_rows:,} rows)", limit)
    i = 0
    for batch in pf.iter_batches(batch_size=65536):
        for raw in batch.to_pylist():
            i += 1
            yield f"{p.name} row {i}", {k: "" if v is None else v for k, v in raw.items()}


def read_htsim(path: str | Path, hosts: Optional[list[str]] = None, transport: Optional[str] = None,
               limit: int = MAX_IMPORT_FLOWS) -> tuple[list[dict], list[Origin]]:
    """Read an htsim connection matrix into ``[[flows]]`` tables (module docstring).

    Example::

        >>> flows, _ = read_htsim("incast.cm", hosts=[f"h{i}" for i in range(16)])   # doctest: +SKIP
        >>> flows[0]   # doctest: +SKIP
        {'src': 'h0', 'dst': 'h15', 'start': '0ps', 'size': 2000000}
    """
    p = Path(path)
    if not p.exists():
        raise MissingFileError(f"no connection matrix at '{p}'")
    _check_size(p)
    try:
        with open(p, encoding="utf-8") as f:
            return _read_htsim_lines(p, f, hosts, transport, limit)
    except UnicodeDecodeError as e:
        raise ScenarioError([("", f"not UTF-8 text (byte {e.start})")], str(p)) from None


def _read_htsim_lines(p: Path, lines, hosts, transport, limit) -> tuple[list[dict], list[Origin]]:
    bad = _Problems(str(p))
    header: dict[str, int] = {}
    flows, origins = [], []
    ids: dict[str, str] = {}  # id -> the line that gave it
    for n, line in enumerate(lines, 1):
        tok = line.split()
        where = f"{p.name} line {n}"
        if not tok or tok[0].startswith("#"):
            continue
        if tok[0] in ("Nodes", "Connections", "Triggers", "Failures"):
            if len(tok) != 2 or not tok[1].isdigit():
                bad.add(where, tok[0], f"'{' '.join(tok[1:])}' is not a count")
            else:
                header[tok[0]] = int(tok[1])
            continue
        if tok[0] in ("trigger", "failure"):
            bad.add(where, tok[0], "htsim triggers and failures have no fabricsim equivalent; remove the line "
                                   "(closed-loop traffic: [[incast]]; losses: [[faults]])")
            continue
        m = re.fullmatch(r"(\d+)->(\d+)", tok[0])
        if not m:
            bad.add(where, "", f"'{tok[0]}' is neither a header (Nodes, Connections) nor a connection SRC->DST")
            continue
        flow: dict[str, Any] = {}
        for key, idx in (("src", m.group(1)), ("dst", m.group(2))):
            h = _host(idx, hosts, where, key, bad) if hosts is not None else None
            if hosts is None:
                bad.add(where, key, "node indices need a topology whose hosts can be listed")
            elif h is not None:
                flow[key] = h
        rest = tok[1:]
        if len(rest) % 2:
            bad.add(where, rest[-1], "has no value")
            rest = rest[:-1]
        for key, value in zip(rest[::2], rest[1::2]):
            if key == "start":
                if not _NUMBER.match(value) or float(value) < 0:
                    bad.add(where, key, f"'{value}' is not a time in picoseconds")
                else:
                    flow["start"] = f"{value}ps"
            elif key == "size":
                if not value.isdigit():
                    bad.add(where, key, f"'{value}' is not a number of bytes")
                elif int(value) > 0:
                    flow["size"] = int(value)
            elif key == "prio":
                if not value.isdigit() or int(value) > 7:
                    bad.add(where, key, f"'{value}' is not a class 0-7")
                else:
                    flow["priority"] = int(value)
            elif key == "id":
                if not value.isdigit() or int(value) == 0:
                    bad.add(where, key, f"'{value}' is not a flow id (a whole number > 0)")
                elif str(int(value)) in ids:
                    # htsim keys its connections by id (triggers and logs name them): a second
                    # connection with the same id is a mistake in the file, not a second flow.
                    bad.add(where, key, f"{value} is already the id of the connection on {ids[str(int(value))]}; ids must be unique")
                else:
                    ids[str(int(value))] = f"line {n}"
            elif key in ("trigger", "send_done_trigger", "recv_done_trigger"):
                bad.add(where, key, "htsim triggers have no fabricsim equivalent")
            else:
                bad.add(where, key, "unknown; connections take id, start, size and prio")
        if "start" not in flow and not any(k == "start" for k in rest[::2]):
            bad.add(where, "start", "missing; htsim needs a start time (picoseconds) per connection")
        if transport:
            flow["transport"] = transport
        if len(flows) == limit:
            raise _too_many(p, where, limit)
        flows.append(flow)
        origins.append(Origin(where))
    if "Connections" in header and header["Connections"] != len(flows):
        bad.add(f"{p.name}", "Connections", f"says {header['Connections']}, the file has {len(flows)}")
    if hosts is not None and header.get("Nodes", 0) > len(hosts):
        bad.add(f"{p.name}", "Nodes", f"{header['Nodes']} nodes, but the topology has {len(hosts)} hosts")
    bad.raise_any()
    return flows, origins


def expand_imports(doc: dict, base: Optional[Path] = None) -> list[Optional[Origin]]:
    """Replace ``doc["import"]`` by the flows it names, appended to ``doc["flows"]``; returns the
    origin of every flow (None for listed ones), so that validation can name the line.

    Example::

        >>> doc = {"topology": {...}, "import": [{"file": "flows.csv"}]}   # doctest: +SKIP
        >>> origins = expand_imports(doc, Path("scenarios"))   # doc["flows"] now holds the rows   # doctest: +SKIP
    """
    from .scenario import listed_origins

    imports = doc.pop("import", None)
    flows = doc.get("flows")
    origins: list[Optional[Origin]] = listed_origins(doc)
    if imports is None:
        return origins
    if isinstance(imports, dict):
        imports = [imports]
    if not isinstance(imports, list):
        raise ScenarioError([("import", f"{imports!r} is not a list of [[import]] tables")])
    hosts = host_names(doc)
    new: list[dict] = []
    for i, imp in enumerate(imports):
        path = f"import[{i}]"
        if not isinstance(imp, dict):
            raise ScenarioError([(path, f"{imp!r} is not a table such as {{ file = \"flows.csv\" }}")])
        unknown = sorted(set(imp) - {"file", "format", "transport"})
        if unknown:
            raise ScenarioError([(f"{path}.{unknown[0]}", "unknown key; [[import]] takes file, format and transport")])
        f = imp.get("file")
        if not isinstance(f, str) or not f:
            raise ScenarioError([(f"{path}.file", "missing; the flow list or connection matrix to read")])
        fmt = imp.get("format")
        if fmt is not None and fmt not in ("csv", "parquet", "htsim"):
            raise ScenarioError([(f"{path}.format", f"'{fmt}' is not one of csv, parquet, htsim")])
        fp = Path(f)
        if base is not None and not fp.is_absolute():
            fp = base / fp
        if fmt is None and fp.suffix.lower() not in FORMATS:
            raise ScenarioError([(f"{path}.format", f"cannot tell the format of '{fp.name}'; set format = \"csv\", \"parquet\" or \"htsim\"")])
        got, where = read_flow_list(fp, fmt, hosts, imp.get("transport"), limit=MAX_IMPORT_FLOWS - len(new))
        new += got
        origins += where
    if flows is None:
        doc["flows"] = new
    elif isinstance(flows, list):
        flows += new
    return origins


def locate(issues: list[tuple[str, str]], origins: list[Optional[Origin]]) -> list[tuple[str, str]]:
    """Rewrite validator issues about imported flows (``flows[7].size``) to name the file and line.

    Example::

        >>> locate([("flows[1].size", "not a size")], [None, Origin("f.csv line 2")])
        [('f.csv line 2: size', 'not a size')]
    """
    out = []
    for path, msg in issues:
        m = re.match(r"^flows\[(\d+)\](?:\.(.*))?$", path)
        if m and int(m.group(1)) < len(origins) and origins[int(m.group(1))] is not None:
            o = origins[int(m.group(1))]
            path = f"{o}: {m.group(2)}" if m.group(2) else str(o)
        out.append((path, msg))
    return out
