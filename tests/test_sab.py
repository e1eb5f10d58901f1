"""SAB and its reproduction from the user's side: scenarios, errors, results, the CLI."""

import subprocess
import sys

import pytest

import fabricsim
from fabricsim.reproduce import sab


def incast_doc(cc: str, n: int = 16) -> dict:
    return {
        "simulation": {"end": "2s", "stop_when_done": True},
        "topology": {"kind": "star", "hosts": n + 1, "link": {"rate": "1Gbps", "delay": "25us"}},
        "queue": {"buffer": "512KB"},
        "transport": {"cc": cc, "initial_cwnd": 3, "delayed_ack": 1},
        "incast": [{"receiver": "h0", "senders": n, "block": "256KB", "rounds": 2, "connections": "persistent"}],
    }


def test_sab_incast_is_lossless_and_every_connection_opens_with_a_syn():
    res = fabricsim.run(incast_doc("sab"), progress=False)
    assert int(res.ports["drops"].sum()) == 0
    f = res.flows
    assert len(f) == 16 and f["fct_s"].notna().all() and (f["size"] == 512_000).all()
    # The SYN round trip: 2 x (25 us + 52 B at 1 Gb/s) each way, plus queueing behind other SYNs.
    assert (f["setup_s"] >= 4 * (25e-6 + 52 * 8 / 1e9) - 1e-12).all()
    p = res.port("s0->h0")
    assert (p["sab_peak_flows"], p["sab_flows"]) == (16, 0), "16 SYNs counted, 16 FINs after the last round"
    assert p["sab_rewrites"] > 0 and res.port("s0->h1")["sab_rewrites"] == 0


def test_sab_settings_are_checked_with_their_key():
    doc = incast_doc("sab")
    doc["sab"] = {"epsilon": 1.5}
    with pytest.raises(fabricsim.ScenarioError, match=r"sab\.epsilon"):
        fabricsim.validate(doc)
    doc = incast_doc("sab")
    doc["transport"]["handshake"] = False
    with pytest.raises(fabricsim.ScenarioError, match=r"transport\.handshake"):
        fabricsim.validate(doc)
    doc = incast_doc("sab")
    doc["queue"]["buffer"] = "unlimited"
    with pytest.raises(fabricsim.ScenarioError, match=r"sab\.buffer"):
        fabricsim.validate(doc)


def test_fixed_and_truncated_workload_sizes():
    doc = {
        "simulation": {"end": "200ms"},
        "topology": {"kind": "star", "hosts": 4, "link": {"rate": "10Gbps", "delay": "1us"}},
        "workload": [{"name": "q", "size": "2KB", "load": 0.05, "deadline_per_kb": "10ms"},
                     {"name": "m", "cdf": "websearch", "size_range": ["100KB", "1MB"], "load": 0.1}],
    }
    f = fabricsim.run(doc, progress=False).flows
    q, m = f[f.workload == "q"], f[f.workload == "m"]
    assert len(q) > 100 and (q["size"] == 2000).all() and (q["deadline_s"] == 0.02).all()
    assert len(m) > 5 and m["size"].between(100_000, 1_000_000).all()
    doc["workload"][1]["size_range"] = ["1MB", "100KB"]
    with pytest.raises(fabricsim.ScenarioError, match=r"workload\[1\]\.size_range"):
        fabricsim.validate(doc)


def test_every_reproduction_point_is_a_valid_scenario():
    for scale in sab.SCALES:
        for name, doc, _ in sab.points(scale):
            fabricsim.validate(doc)  # raises with the key path if not


def test_reproduce_sab_runs_from_the_cli(tmp_path):
    out = tmp_path / "rep"
    p = subprocess.run([sys.executable, "-m", "fabricsim", "reproduce", "sab", "--only", "conv/sab,eps/0.5", "--jobs", "1",
                        "--no-progress", "-o", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "paper vs ours" in p.stdout and "convergence to the fair share: SAB" in p.stdout
    assert (out / "runs.csv").exists() and (out / "fig3_fig5_convergence.png").exists() and (out / "fig21_epsilon.png").exists()


def test_sab_queue_and_dctcp_incast_shapes_are_scored():
    # Fig. 5: SAB's queue "small and stable" like DCTCP's; a standing queue 7x DCTCP's is a miss.
    def conv(queue_kb):
        return {"time_s": [0.0], "gbps_h2": [0.0], "queue_kb": queue_kb}

    def rows(sab_q, tcp_peak=500.0, dctcp_curve=(0.95, 0.9, 0.7)):
        r = {"conv/sab": conv([0, sab_q, sab_q, 0]), "conv/dctcp": conv([0, 35.0, 30.0, 0]),
             "conv/tcp": conv([0, tcp_peak, 256.0, 0])}
        for s, curve in (("sab", (0.95, 0.95, 0.95)), ("tcp", (0.9, 0.2, 0.1)), ("dctcp", dctcp_curve)):
            for n, g in zip((16, 40, 64), curve):
                r[f"incast/{s}/{n}"] = {"goodput_gbps": g, "drops": 0}
        return {h.name: h for h in sab.headlines(r, "reduced")}

    good = rows(40.0)
    assert good["Fig. 5: SAB mean queue / DCTCP's (both 'small and stable')"].passed
    assert good["Fig. 5: TCP peak queue / buffer ('probes the maximum')"].passed
    assert good["incast: DCTCP goodput at the largest N / at N = 40"].passed
    assert rows(245.0)["Fig. 5: SAB mean queue / DCTCP's (both 'small and stable')"].passed is False
    # A DCTCP that never degrades passes the old threshold headline but not the shape.
    flat = rows(40.0, dctcp_curve=(0.95, 0.95, 0.95))
    assert flat["incast: DCTCP degrades (goodput < 0.5 Gb/s) from N"].passed
    assert flat["incast: DCTCP goodput at the largest N / at N = 40"].passed is False
