"""A bounded fuzz of the scenario reader: mutated TOML documents (from the shipped scenarios) fed
to validation must come back valid or as a ScenarioError — never another exception, a traceback
or an engine panic. The mutations come from a fixed seed, so every run tries the same inputs; the
crashes ever found are kept in tests/corpus/scenario_reader.json and replayed first."""

import json
import random
import time
from pathlib import Path

import pytest

import fabricsim
from fabricsim import _engine
from fabricsim.errors import MissingFileError, ScenarioError

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).parent / "corpus" / "scenario_reader.json"
#: Mutations tried (fixed seed) and the wall-clock cap on the whole fuzz.
ROUNDS = 1500
BUDGET_S = 45.0

TOKENS = ['""', '"x"', "0", "-1", "1.5", "nan", "inf", "-inf", "18446744073709551616", "9223372036854775807",
          "true", "[]", "{}", "[[1]]", '"0us"', '"1ps"', '"-5us"', '"10Gbps"', '"0Gbps"', '"99999999999999TB"',
          '"h0"', '"s0->h0"', '"all"', '"\\u0000"', '"é"', "1e308", '["1MB", "1KB"]', '"infinite"']


def seeds() -> list[str]:
    return [p.read_text() for p in sorted((ROOT / "scenarios").glob("*.toml"))]


def mutate(text: str, rng: random.Random) -> bytes:
    lines = text.splitlines()
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        i = rng.randrange(len(lines)) if lines else 0
        if op == 0 and lines:  # replace a value
            if "=" in lines[i]:
                lines[i] = lines[i].split("=", 1)[0] + "= " + rng.choice(TOKENS)
        elif op == 1 and lines:  # drop a line
            del lines[i]
        elif op == 2 and lines:  # duplicate a line
            lines.insert(i, lines[i])
        elif op == 3:  # a stray key or table
            lines.insert(i, rng.choice(["[x]", "[[flows]]", "[output]", "[circuit]", "y = 1", "[simulation.z]", "[[workload]]"]))
        elif op == 4 and lines:  # a character flipped
            ln = lines[i]
            if ln:
                j = rng.randrange(len(ln))
                lines[i] = ln[:j] + rng.choice("[]{}=\"',.#\\ 0x") + ln[j + 1:]
        elif op == 5:  # deep nesting
            d = rng.choice([5, 40, 600])
            lines.insert(i, "deep = " + "[" * d + "]" * d)
        elif op == 6 and lines:  # a truncated document
            lines = lines[: i + 1]
            lines[-1] = lines[-1][: rng.randrange(len(lines[-1]) + 1)]
    data = "\n".join(lines).encode()
    if rng.randrange(40) == 0:
        data = data.decode().encode("utf-16")
    return data


def check(data: bytes, path: Path) -> None:
    path.write_bytes(data)
    try:
        fabricsim.validate(path)
    except (ScenarioError, MissingFileError):
        pass
    except BaseException as e:  # noqa: BLE001 - panics are BaseExceptions
        pytest.fail(f"{type(e).__name__}: {e}\nfor input (add it to {CORPUS.name}):\n{data!r}")


def corpus_bytes(case: dict) -> bytes:
    return bytes.fromhex(case["bytes_hex"]) if "bytes_hex" in case else case["text"].encode()


@pytest.mark.parametrize("case", json.loads(CORPUS.read_text())["cases"], ids=lambda c: c["name"])
def test_corpus_cases_are_refused_cleanly(case, tmp_path):
    path = tmp_path / "case.toml"
    path.write_bytes(corpus_bytes(case))
    with pytest.raises(ScenarioError):
        fabricsim.validate(path)


def test_fuzzed_scenarios_never_crash_the_reader(tmp_path):
    rng = random.Random(22)
    docs = seeds()
    path = tmp_path / "fuzz.toml"
    t0 = time.perf_counter()
    for n in range(ROUNDS):
        if time.perf_counter() - t0 > BUDGET_S:
            break
        check(mutate(rng.choice(docs), rng), path)
    assert n > 100


def test_fuzzed_json_never_panics_the_engine():
    # The engine's own reader, past the Python checks: any JSON value at any key must come back
    # as a list of issues.
    rng = random.Random(7)
    values = [None, True, -1, 0, 1, 2**63, 2**64 - 1, 1e308, -1e308, 0.5, "", "x", "1ps", "-1us", [], {}, [[]], {"a": 1}]
    base = {"simulation": {"end": "1ms"}, "topology": {"kind": "star", "hosts": 2, "link": {"rate": "10Gbps", "delay": "1us"}},
            "flows": [{"src": "h1", "dst": "h0", "size": "1KB"}], "output": {"sample_interval": "10us", "queues": ["s0->h0"]}}
    paths = [("simulation", "end"), ("simulation", "seed"), ("topology", "hosts"), ("topology", "kind"), ("topology", "link"),
             ("flows",), ("output", "sample_interval"), ("output", "queues"), ("output", "cwnd"), ("queue",), ("transport",),
             ("routing", "ecmp"), ("workload",), ("incast",), ("circuit",)]
    for _ in range(600):
        doc = json.loads(json.dumps(base))
        node = doc
        *parents, last = rng.choice(paths)
        for p in parents:
            node = node.setdefault(p, {})
        node[last] = rng.choice(values)
        try:
            issues = _engine.validate(json.dumps(doc))
        except BaseException as e:  # noqa: BLE001
            pytest.fail(f"{type(e).__name__}: {e} for {doc!r}")
        assert isinstance(issues, list)
