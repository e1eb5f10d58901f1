"""Property-based tests: random small scenarios across topologies, transports, queue settings and
workloads, each run and checked against invariants that hold for every run (issue 22; NDP, Homa
and PPT over the ports they need and multi-queue host NICs since issue 34).

Hypothesis is derandomized (a fixed seed), so the examples are the same on every run; a failure
prints the scenario as a dict ready to paste into a regression test.
"""

import math

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import fabricsim  # noqa: E402

CCS = sorted(fabricsim.congestion_controls())
RATES = ["1Gbps", "10Gbps", "40Gbps"]
DELAYS = ["0us", "1us", "5us"]
#: A run may process at most this many events (no hang: a run of a few ms needs far fewer).
MAX_EVENTS = 3_000_000


@st.composite
def links(draw):
    link = {"rate": draw(st.sampled_from(RATES)), "delay": draw(st.sampled_from(DELAYS))}
    if draw(st.integers(0, 4)) == 0:
        link["loss_rate"] = draw(st.sampled_from([0.001, 0.02]))
    return link


@st.composite
def topologies(draw):
    kind = draw(st.sampled_from(["star", "dumbbell", "leaf_spine", "fat_tree"]))
    if kind == "star":
        t = {"kind": "star", "hosts": draw(st.integers(2, 5)), "link": draw(links())}
        hosts = t["hosts"]
    elif kind == "dumbbell":
        left, right = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        t = {"kind": "dumbbell", "left": left, "right": right, "link": draw(links()), "bottleneck": draw(links())}
        hosts = left + right
    elif kind == "leaf_spine":
        t = {"kind": "leaf_spine", "leaves": draw(st.integers(2, 3)), "spines": draw(st.integers(1, 3)),
             "hosts_per_leaf": draw(st.integers(1, 2)), "host_link": draw(links()), "core_link": draw(links())}
        hosts = t["leaves"] * t["hosts_per_leaf"]
    else:
        t = {"kind": "fat_tree", "k": 4, "host_link": draw(links()), "core_link": draw(links())}
        hosts = 16
    return t, hosts


@st.composite
def scenarios(draw):
    topo, n_hosts = draw(topologies())
    hosts = [f"h{i}" for i in range(n_hosts)]
    buffer = draw(st.sampled_from(["8pkt", "30pkt", "100pkt", "20KB", "150KB"]))
    queue = {"buffer": buffer}
    if draw(st.booleans()):
        queue.update(discipline="ecn", ecn_threshold=draw(st.sampled_from(["2pkt", "10pkt", "3KB"])))
    switch = None
    if draw(st.booleans()):
        # Multi-class ports: several queues, a scheduler, an admission policy, marking.
        n = draw(st.integers(1, 4))
        queue["queues"] = n
        queue["admission"] = draw(st.sampled_from(["droptail", "pushout", "pfabric"] + (["trim"] if n >= 2 else [])))
        if n >= 2:
            queue["scheduler"] = draw(st.sampled_from(["strict", "drr", "wrr"]))
            if queue["scheduler"] != "strict":
                queue["weights"] = draw(st.lists(st.integers(1, 10), min_size=n, max_size=n))
            if queue["admission"] == "trim":
                queue["queue_buffer"] = [queue["buffer"]] + ["4pkt"] * (n - 1)
                queue["return_to_sender"] = draw(st.booleans())
                queue["trim_tail"] = draw(st.sampled_from([0, 0.5]))
        if queue["admission"] != "pfabric" and draw(st.booleans()):
            queue["order"] = "flow_rr"
        marking = draw(st.sampled_from(["none", "ecn_port", "ecn_dequeue", "ecn_end", "red"]))
        queue.pop("discipline", None)
        queue.pop("ecn_threshold", None)
        if marking == "ecn_port":
            queue.update(discipline="ecn", ecn_port_threshold=draw(st.sampled_from(["2pkt", "5pkt"])))
        elif marking in ("ecn_dequeue", "ecn_end"):
            queue.update(discipline="ecn", ecn_threshold="3pkt", mark_at=marking.removeprefix("ecn_"))
        elif marking == "red":
            queue.update(discipline="red", red={"min_th": "1pkt", "max_th": "4pkt", "max_p": 0.2,
                                                "weight": draw(st.sampled_from([0.002, 0.5, 1.0]))})
        if draw(st.booleans()):
            switch = {"shared_buffer": draw(st.sampled_from(["20pkt", "60pkt", "100KB"]))}
            queue["alpha"] = draw(st.sampled_from([0.5, 1, 4]))
    doc = {
        "name": "prop",
        "simulation": {"end": draw(st.sampled_from(["1ms", "2ms", "5ms"])), "seed": draw(st.integers(0, 2**64 - 1))},
        "topology": topo,
        "queue": queue,
        "routing": {"ecmp": draw(st.sampled_from(["flow_hash", "packet_spray"]))},
        "transport": {"cc": draw(st.sampled_from(CCS)), "min_rto": draw(st.sampled_from(["200us", "1ms"])),
                      "handshake": draw(st.booleans()), "class": draw(st.integers(0, 7)),
                      "rank": draw(st.sampled_from(["none", "remaining"])), "telemetry": draw(st.booleans())},
    }
    if switch:
        doc["switch"] = switch
    if draw(st.booleans()):
        flows = []
        for _ in range(draw(st.integers(1, 8))):
            src, dst = draw(st.lists(st.sampled_from(hosts), min_size=2, max_size=2, unique=True))
            f = {"src": src, "dst": dst, "size": draw(st.integers(1, 300_000)),
                 "start": f"{draw(st.integers(0, 200))}us"}
            if draw(st.integers(0, 5)) == 0:
                del f["size"]  # long-lived
            flows.append(f)
        doc["flows"] = flows
    else:
        doc["workload"] = [{"cdf": draw(st.sampled_from(["websearch", "datamining", "homa_w1", "fb_hadoop"])),
                            "load": draw(st.sampled_from([0.1, 0.3, 0.6])), "flows": draw(st.integers(1, 40)),
                            "size_range": ["1B", "500KB"]}]
    port = f"{hosts[0]}->" + {"star": "s0", "dumbbell": "s0", "leaf_spine": "leaf0", "fat_tree": "edge0_0"}[topo["kind"]]
    doc["output"] = {"sample_interval": "100us", "queues": [port]}
    return doc


def guarded_run(doc, seconds=60):
    """Run with a wall-clock guard: a hang fails the test (the runner returns to Python between
    its chunks, where the alarm's exception lands) instead of stalling the suite."""
    import signal

    def on_alarm(signum, frame):
        raise TimeoutError(f"run took over {seconds} s: {doc!r}")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        return fabricsim.run(doc, progress=False)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def buffer_limits(doc):
    b = doc["queue"]["buffer"]
    if b.endswith("pkt"):
        return int(b[:-3]), None
    return None, int(float(b[:-2]) * 1000)


def check_invariants(doc, res):
    s, f, p = res.summary, res.flows, res.ports
    where = f"scenario: {doc!r}"
    assert s["events"] <= MAX_EVENTS, where
    # Packets: every one created is delivered, dropped or still in flight.
    assert s["packets_created"] == s["packets_delivered"] + s["packets_dropped"] + s["packets_in_flight"], where
    # Bytes delivered never exceed bytes sent: per flow, and in total against the hosts' NICs.
    finite = f[f["size"].notna()]
    assert (finite["bytes_acked"] <= finite["size"]).all(), where
    host_tx = p[p["node"].str.match(r"^h\d+$")]["tx_bytes"].sum()
    assert s["goodput_bytes"] <= host_tx, where
    # No FCT below the ideal lower bound.
    done = f[f["fct_ps"].notna() & f["ideal_fct_ps"].notna()]
    assert (done["fct_ps"] >= done["ideal_fct_ps"]).all(), (done[["size", "fct_ps", "ideal_fct_ps"]], where)
    # A finished flow carried all of its bytes.
    assert (done["bytes_acked"] == done["size"]).all(), where
    # Utilization is a fraction; switch queues stay within their buffers.
    assert ((p["utilization"] >= 0) & (p["utilization"] <= 1 + 1e-9)).all(), where
    pkts, nbytes = buffer_limits(doc)
    sw = p[~p["node"].str.match(r"^h\d+$")]
    if pkts is not None:
        assert (sw["max_queue_packets"] <= pkts).all(), where
    if nbytes is not None:
        assert (sw["max_queue_bytes"] <= nbytes).all(), where
    assert all(math.isfinite(x) for x in p["mean_queue_packets"]), where
    assert s["sim_time_s"] <= s["end_s"] + 1e-12, where
    # Bytes accounted: a port sent no more than its busy time carries at its rate (a packet on
    # the wire at the end counts in part; 8 bits for the rounding of that part).
    assert (p["tx_bytes"] * 8 <= p["utilization"] * p["rate_bps"] * s["sim_time_s"] + 8).all(), \
        (p[["port", "tx_bytes", "utilization", "rate_bps"]], where)


@settings(max_examples=400, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(scenarios())
def test_random_scenarios_keep_the_invariants(doc):
    try:
        fabricsim.validate(doc)
    except fabricsim.ScenarioError:
        # Some combinations are refused on purpose (e.g. SAB needs its switch settings): a refusal
        # is one of the allowed outcomes, a panic or traceback is not.
        return
    a = guarded_run(doc)
    check_invariants(doc, a)
    b = guarded_run(doc)
    assert a.flows.equals(b.flows) and a.ports.equals(b.ports) and a.timeseries.equals(b.timeseries), \
        f"same seed, different results: {doc!r}"


@st.composite
def receiver_driven(draw):
    """The same random scenarios with NDP or Homa as the transport."""
    doc = draw(scenarios())
    kind = draw(st.sampled_from(["ndp", "homa"]))
    t = {"kind": kind, "mss": draw(st.sampled_from(["1448B", "4000B"]))}
    if kind == "ndp":
        t.update(initial_window=draw(st.integers(1, 30)), rto=draw(st.sampled_from(["100us", "1ms"])))
    else:
        t.update(rtt_bytes=draw(st.sampled_from(["3KB", "20KB", "45KB"])), overcommitment=draw(st.integers(1, 4)),
                 resend_interval=draw(st.sampled_from(["50us", "1ms"])))
        for f in doc.get("flows", []):
            f.setdefault("size", 5000)  # Homa carries messages
    doc["transport"] = t
    return doc


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(receiver_driven())
def test_random_ndp_and_homa_scenarios_keep_the_invariants(doc):
    try:
        fabricsim.validate(doc)
    except fabricsim.ScenarioError:
        return
    a = guarded_run(doc)
    check_invariants(doc, a)
    b = guarded_run(doc)
    assert a.flows.equals(b.flows) and a.ports.equals(b.ports), f"same seed, different results: {doc!r}"


@st.composite
def host_egress(draw):
    """A host NIC with several queues (control and data apart, or a scheduler over classes)."""
    n = draw(st.integers(2, 8))
    q = {"queues": n, "scheduler": draw(st.sampled_from(["strict", "drr", "wrr"]))}
    if q["scheduler"] != "strict":
        q["weights"] = draw(st.lists(st.integers(1, 10), min_size=n, max_size=n))
    return q


@st.composite
def priority_transports(draw):
    """The random topologies and traffic with a transport over the ports it needs (issue 34):
    NDP over trimming ports, Homa over as many strict-priority queues as its levels, PPT over
    eight marking queues; host NICs with several queues."""
    doc = draw(scenarios())
    doc.pop("switch", None)
    kind = draw(st.sampled_from(["ndp", "homa", "ppt"]))
    buffer = draw(st.sampled_from(["30pkt", "100pkt", "150KB"]))
    if kind == "ndp":
        doc["transport"] = {"kind": "ndp", "mss": draw(st.sampled_from(["1448B", "4000B"])),
                            "initial_window": draw(st.integers(1, 30)), "rto": draw(st.sampled_from(["100us", "1ms"]))}
        doc["queue"] = {"buffer": buffer, "queues": 2, "classes": [0, 1], "queue_buffer": [buffer, "8pkt"], "admission": "trim",
                        "scheduler": "wrr", "weights": [10, 1], "trim_tail": draw(st.sampled_from([0, 0.5])),
                        "return_to_sender": draw(st.booleans())}
        doc["host_queue"] = {"queues": 2, "classes": [0, 1]}
    elif kind == "homa":
        levels = draw(st.integers(2, 8))
        doc["transport"] = {"kind": "homa", "priorities": levels, "rtt_bytes": draw(st.sampled_from(["3KB", "20KB", "45KB"])),
                            "overcommitment": draw(st.integers(1, min(4, levels - 1)))}
        doc["queue"] = {"buffer": buffer, "queues": levels}
        for f in doc.get("flows", []):
            f.setdefault("size", 5000)  # Homa carries messages
    else:
        doc["transport"] = {"cc": "ppt", "min_rto": "1ms"}
        doc["queue"] = {"buffer": buffer, "queues": 8, "discipline": "ecn", "ecn_threshold": "10pkt" if buffer.endswith("pkt") else "20KB"}
    if kind != "ndp" and draw(st.booleans()):
        doc["host_queue"] = draw(host_egress())
    return doc


@settings(max_examples=120, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(priority_transports())
def test_random_transports_over_the_ports_they_need_keep_the_invariants(doc):
    # These setups are what the transports need: valid and without a warning, so every example runs.
    assert fabricsim.scenario_warnings(doc) == [], doc
    a = guarded_run(doc)
    check_invariants(doc, a)
    b = guarded_run(doc)
    assert a.flows.equals(b.flows) and a.ports.equals(b.ports), f"same seed, different results: {doc!r}"
