"""Scenario documents read by the engine instead of tomllib and json (crates/py/src/document.rs):
the same dicts, in the same key order, as tomllib for every TOML file the project ships, and
tomllib's own results and messages wherever the engine's reader steps aside."""

import enum
import json
import math
import tomllib
from pathlib import Path

import pytest

import fabricsim
from fabricsim import _engine
from fabricsim.scenario import ScenarioError, read_toml

ROOT = Path(__file__).resolve().parent.parent


def same(a, b) -> bool:
    """Equal values of equal types, dict keys in the same order, nan equal to nan."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return a == b


def shipped_toml():
    """Every TOML file of the checkout (scenarios, benchmarks, sweeps, the build's own), and the
    generated ones a working copy may hold, but not Rust's build output."""
    skip = {"target", ".git", "node_modules"}
    return sorted(p for p in ROOT.rglob("*.toml") if not skip & set(p.relative_to(ROOT).parts))


def test_every_shipped_toml_file_reads_as_tomllib_reads_it():
    files = shipped_toml()
    assert len(files) >= 20
    for p in files:
        text = p.read_text(encoding="utf-8-sig")
        got = _engine.parse_toml(text)
        assert got is not None, p
        assert same(got, tomllib.loads(text)), p


@pytest.mark.parametrize("text", [
    'a = 9223372036854775807\nb = -9223372036854775808\nc = 0x1f\nd = 1_000\ne = 0o17\nf = 0b101',
    'a = inf\nb = -inf\nc = nan\nd = -0.0\ne = 6.02e23\nf = 1e-300\ng = 0.1',
    'a.b.c = 1\n[x]\ny = 2\n[a.d]\ne = 3\n[[f]]\nx = 1\n[[f]]\nx = 2',
    'a = "\\u00e9\\t\\"q\\""\nb = \'C:\\\\x\'\nc = """\nl1\\\n  l2"""\nd = \'\'\'\nraw\\n\'\'\'',
    'z = 1\ny = { b = 2, a = [1, "x", [true, false]] }\nx = []',
])
def test_values_and_key_order_match_tomllib(text):
    assert same(_engine.parse_toml(text), tomllib.loads(text))


@pytest.mark.parametrize("text", [
    "a = 1979-05-27T07:32:00Z", "a = 1979-05-27", "a = 07:32:00",  # date-times: tomllib's objects
    "a = 18446744073709551615", "a = 9223372036854775808",  # beyond i64: tomllib's ints
    "a = 1e400",  # tomllib reads inf (refused later as not finite)
    "a = = 1", "a = 1\na = 2", 'x = "\\ud800"',  # errors: tomllib's messages
    "a = " + "[" * 300 + "]" * 300,  # deeper than the engine's reader goes
    "\ufeffa = 1",  # a byte-order mark: tomllib refuses it
])
def test_what_the_engine_leaves_to_tomllib(text):
    assert _engine.parse_toml(text) is None


def test_a_file_with_what_tomllib_alone_reads_gives_tomllib_s_value_or_message(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[simulation]\nseed = 18446744073709551615\n')
    assert read_toml(f)["simulation"]["seed"] == 2**64 - 1
    f.write_text('[simulation]\nwhen = 1979-05-27\n')
    with pytest.raises(ScenarioError, match=r"simulation.when: date value datetime.date\(1979, 5, 27\) is not scenario data"):
        read_toml(f)
    f.write_text("a = = 1\n")
    with pytest.raises(ScenarioError, match=r"not valid TOML: Invalid value \(at line 1, column 5\)"):
        read_toml(f)
    # A seed of 2^64 - 1 runs from a file as it did through tomllib.
    f.write_text('[simulation]\nend = "1us"\nseed = 18446744073709551615\n[topology]\nkind = "star"\nhosts = 2\n'
                 'link = { rate = "10Gbps", delay = "1us" }\n[[flows]]\nsrc = "h0"\ndst = "h1"\nsize = "1KB"\n')
    assert fabricsim.run(f, progress=False).summary["seed"] == 2**64 - 1


class Level(enum.IntEnum):
    HIGH = 7


EDGE_DOCS = [
    {"simulation": {"end": "1ms", "seed": 2**64 - 1}},
    {"simulation": {"end": "1ms", "seed": -1}},
    {"simulation": {"end": "1ms", "seed": 2**63}},
    {"simulation": {"end": "1ms"}, "topology": {"kind": "star", "hosts": (3.0, -0.0)}},
    {"simulation": {"end": "1ms"}, "topology": {"kind": "star", "hosts": Level.HIGH, "link": {"rate": "10Gbps", "delay": "1us"}}},
    {"simulation": {"end": "1ms"}, "topology": {"kind": "star\ud800"}},  # a lone surrogate: json.dumps escapes it
    {"simulation": {"end": None}, "flows": [[], {}], 3: "x"},
    {"simulation": {"end": "1ms", "seed": 1 << 70}},
]


#: Those of EDGE_DOCS only json.dumps converts (the engine hands them to it): a lone surrogate,
#: a key that is not a string, an integer beyond 64 bits.
THROUGH_JSON = {5, 6, 7}


@pytest.mark.parametrize("i", range(len(EDGE_DOCS)))
def test_a_dict_validates_as_its_json_text(i, monkeypatch):
    doc = EDGE_DOCS[i]
    want = _engine.validate(json.dumps(doc))
    calls = []
    real = json.dumps
    monkeypatch.setattr(json, "dumps", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert _engine.validate(doc) == want
    # The engine read the dict itself, or (only where it must) through json.dumps.
    assert len(calls) == (1 if i in THROUGH_JSON else 0)


class Items(dict):
    def items(self):  # json.dumps reads a dict subclass through this
        return [("simulation", {"end": "2ms"})]


def test_a_dict_subclass_goes_through_json_dumps_as_it_reads_it():
    doc = Items(simulation={"end": "nonsense"})
    assert _engine.validate(doc) == _engine.validate(json.dumps(doc))


def test_a_missing_or_directory_path_is_named_as_pathlib_writes_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(fabricsim.MissingFileError, match=r"no scenario file at 'a/b\.toml'"):
        fabricsim.validate("./a//b.toml")
    with pytest.raises(ScenarioError, match=r"'\.' is a directory, not a scenario file"):
        fabricsim.validate("")


def test_scenario_like_is_there_at_run_time():
    from fabricsim.scenario import ScenarioLike

    assert str in ScenarioLike.__args__


def test_a_run_from_a_dict_equals_the_run_from_its_json_text():
    doc = fabricsim.validate(ROOT / "scenarios" / "example.toml", ["simulation.end=2ms"])
    a = _engine.Simulation(doc, 3)
    b = _engine.Simulation(json.dumps(doc), 3)
    for s in (a, b):
        s.run_until(s.end_ps)
    assert a.flows() == b.flows() and len(a.flows()["id"]) > 0
    sa, sb = a.summary(), b.summary()
    for k in ("events", "packet_hops", "packets_delivered"):
        assert sa[k] == sb[k] > 0
