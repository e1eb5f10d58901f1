import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture
def example():
    return ROOT / "scenarios" / "example.toml"


@pytest.fixture
def tiny():
    """A 2-host scenario that runs in milliseconds."""
    return {
        "name": "tiny",
        "simulation": {"end": "2ms", "seed": 3},
        "topology": {"kind": "star", "hosts": 3, "link": {"rate": "10Gbps", "delay": "1us"}},
        "queue": {"buffer": "100pkt", "discipline": "ecn", "ecn_threshold": "20pkt"},
        "transport": {"cc": "dctcp", "min_rto": "1ms"},
        "flows": [
            {"src": "h1", "dst": "h0", "size": "200KB"},
            {"src": "h2", "dst": "h0", "start": "10us"},
        ],
        "output": {"sample_interval": "20us", "queues": ["s0->h0"], "cwnd": "all"},
    }
