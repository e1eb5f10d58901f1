"""NDP and Homa from the Python side: listed with their keys, runnable from scenarios, workloads
and `compare`, with their own columns in the flow table."""

import subprocess
import sys

import pandas as pd

import fabricsim


def star(kind_table: dict, flows=None, workload=None, hosts=9, queue=None) -> dict:
    doc = {
        "name": "t",
        "simulation": {"end": "200ms", "stop_when_done": True, "seed": 3},
        "topology": {"kind": "star", "hosts": hosts, "link": {"rate": "10Gbps", "delay": "1us"}},
        "queue": queue or {"buffer": "unlimited", "queues": 8},
        "transport": kind_table,
    }
    if flows:
        doc["flows"] = flows
    if workload:
        doc["workload"] = [workload]
    return doc


NDP_QUEUE = {"buffer": "unlimited", "queues": 2, "classes": [0, 1], "queue_buffer": ["72KB", "8pkt"],
             "scheduler": "wrr", "weights": [10, 1], "admission": "trim"}


def test_list_transports_prints_kinds_keys_and_defaults():
    p = subprocess.run([sys.executable, "-m", "fabricsim", "list", "transports"], capture_output=True, text=True, check=True)
    for s in ("ndp", "homa", "initial_window = 23", "rtt_bytes = 45000B", "overcommitment = 2"):
        assert s in p.stdout, s
    assert set(fabricsim.transports()) == {"tcp", "ndp", "homa"}


def test_ndp_incast_trims_and_pulls_everything_back():
    flows = [{"src": f"h{i}", "dst": "h0", "size": "450KB"} for i in range(1, 9)]
    r = fabricsim.run(star({"kind": "ndp"}, flows=flows, queue=NDP_QUEUE), progress=False)
    f = r.flows
    assert f["fct_s"].notna().all() and (f["cc"] == "ndp").all()
    assert f["trimmed"].sum() > 0 and f["retransmits"].sum() == f["trimmed"].sum()
    assert (f["credits"] > 0).all(), "every flow was pulled"
    assert r.ports["trims"].sum() == f["trimmed"].sum()


def test_homa_workload_and_compare_share_the_draws():
    # A Homa profile and TCP on the same workload: same sizes and endpoints, Homa's grants counted.
    doc = star({"cc": "dctcp"}, workload={"cdf": "homa_w1", "load": 0.5, "flows": 60}, hosts=6,
               queue={"buffer": "200pkt", "queues": 8, "discipline": "ecn", "ecn_threshold": "65pkt"})
    doc["transports"] = {"h": {"kind": "homa", "rtt_bytes": "10KB"}}
    c = fabricsim.compare(doc, ["dctcp", "h", "ndp"], progress=False)
    a, h = c.runs[("dctcp", None)].flows, c.runs[("h", None)].flows
    pd.testing.assert_series_equal(a["size"], h["size"])
    assert (h["cc"] == "homa").all() and h["fct_s"].notna().all()
    assert (h["slowdown"] >= 1).all()
    assert (c.runs[("ndp", None)].flows["cc"] == "ndp").all()


def test_homa_flow_without_size_is_a_one_line_error():
    doc = star({"kind": "homa"}, flows=[{"src": "h1", "dst": "h0"}])
    try:
        fabricsim.validate(doc)
    except fabricsim.ScenarioError as e:
        assert "flows[0].size" in str(e) and "Homa" in str(e)
    else:
        raise AssertionError("a Homa flow needs a size")
