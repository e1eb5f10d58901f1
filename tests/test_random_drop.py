"""`[queue] random_drop` (htsim's RandomQueue band, queue/random_drop.rs) from the user's side:
drops in the band, deterministic per seed, errors at the command line."""

import subprocess
import sys

import pytest

import fabricsim


def incast(queue: dict, seed: int = 1) -> dict:
    return {
        "simulation": {"end": "2ms", "seed": seed},
        "topology": {"kind": "star", "hosts": 5, "link": {"rate": "10Gbps", "delay": "1us"}},
        "queue": queue,
        "transport": {"mss": 1448, "header": 52, "initial_cwnd": 10},
        "flows": [{"src": f"h{i}", "dst": "h0", "size": 100_000} for i in range(1, 5)],
    }


def test_the_band_drops_below_the_buffer_and_repeats_per_seed():
    # Four senders of 10 packets at once into one 10 Gb/s port: it holds far more than 8 packets
    # waiting, so an unlimited buffer with a band above 8 packets drops there (without the band
    # nothing is dropped).
    plain = fabricsim.run(incast({"buffer": "unlimited"}), progress=False)
    assert int(plain.ports["drops"].sum()) == 0
    band = {"buffer": "unlimited", "random_drop": {"above": "8pkt", "probability": 0.5}}
    a, b = (fabricsim.run(incast(band), progress=False) for _ in range(2))
    assert int(a.port("s0->h0")["drops"]) > 0
    fcts = lambda r: list(r.flows["fct_s"].fillna(-1.0))  # noqa: E731 (unfinished flows as -1)
    assert fcts(a) == fcts(b), "the same seed, the same draws"
    c = fabricsim.run(incast(band, seed=2), progress=False)
    assert fcts(a) != fcts(c), "another seed, other draws"


@pytest.mark.parametrize("setting, message", [
    ('{ above = "16KB", probability = 0 }', "queue.random_drop.probability: 0 drops nothing"),
    ('{ above = "16KB", probability = 1.5 }', "queue.random_drop.probability: 1.5 is not a probability in (0, 1]"),
    ('{ above = "4pkt", probability = 0.1 }', "queue.random_drop.above: 4pkt is in other units than the buffer"),
    ('{ above = "0B", probability = 0.1 }', "queue.random_drop.above: 0 puts every arrival in the band"),
    ('{ above = "40KB", probability = 0.1 }', "queue.random_drop.above: 40000B is not below the buffer size"),
    ('{ probability = 0.1 }', "queue.random_drop.above: missing"),
])
def test_bad_random_drop_is_one_line_and_exit_2(tmp_path, setting, message):
    f = tmp_path / "bad.toml"
    f.write_text('[simulation]\nend = "1ms"\n[topology]\nkind = "star"\nhosts = 3\nlink = { rate = "10Gbps", delay = "1us" }\n'
                 f'[queue]\nbuffer = "28KB"\nrandom_drop = {setting}\n[[flows]]\nsrc = "h1"\ndst = "h0"\nsize = 28960\n')
    for args in (["validate", f], ["run", f, "-o", tmp_path / "out"]):
        p = subprocess.run([sys.executable, "-m", "fabricsim", *map(str, args)], capture_output=True, text=True)
        assert p.returncode == 2, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1 and message in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert not (tmp_path / "out").exists(), "refused before the run"
