"""Flash's artifact model ("as the authors ran it"): the ns-2 lineage's behaviours as scenario
options, and the reproduction's list of changes."""

import copy

import pytest

import fabricsim
from fabricsim.reproduce import flash
from fabricsim.reproduce.common import artifact_scenario


def two_flows(host_queue) -> dict:
    """h1 sends a 100 KB flow in class 7 at t = 0 and a one-packet flow in class 0 at 1 us, both to
    h0, over 10 Gb/s links of 1 us; 8 strict-priority switch queues."""
    doc = {
        "simulation": {"end": "10ms", "stop_when_done": True},
        "topology": {"kind": "star", "hosts": 2, "link": {"rate": "10Gbps", "delay": "1us"}},
        "queue": {"buffer": "240pkt", "queues": 8, "scheduler": "strict"},
        "transport": {"cc": "newreno", "mss": "1460B", "header": "40B", "ack_size": "40B", "delayed_ack": 1, "class": 7},
        "transports": {"urgent": {"class": 0}},
        "flows": [{"src": "h1", "dst": "h0", "size": "100KB"},
                  {"src": "h1", "dst": "h0", "size": "1460B", "start": "1us", "transport": "urgent"}],
    }
    if host_queue is not None:
        doc["host_queue"] = host_queue
    return doc


def test_host_queue_switch_lets_an_urgent_packet_overtake_at_the_host():
    # A 1500 B packet takes 1.2 us on the wire, a 40 B ACK 0.032 us. The bulk flow puts its 10
    # initial packets into h1's NIC at t = 0.
    # FIFO NIC (the default): the urgent packet waits behind 9 of them, leaves at 12 us, reaches
    # the switch at 14.2 us (last bit + 1 us), where the bulk packet ahead of it ends at 14.2 us;
    # it crosses 14.2-15.4, reaches h0 at 16.4 us; its ACK leaves at once: 0.032 + 1 + 0.032 + 1
    # -> back at 18.464 us. FCT = 17.464 us.
    # host_queue = "switch" (strict priority at the host as at the ports): it leaves when the
    # packet on the wire ends, 1.2-2.4 us, is at the switch at 3.4 us when bulk packet 0 ends
    # there, crosses 3.4-4.6, reaches h0 at 5.6 us, and its ACK is back at 7.664 us. FCT 6.664 us.
    fct = {}
    for hq in (None, "switch"):
        f = fabricsim.run(two_flows(hq), progress=False).flows
        fct[hq] = float(f.loc[f["size"] == 1460, "fct_s"].iloc[0])
    assert fct[None] == pytest.approx(17.464e-6, abs=1e-12)
    assert fct["switch"] == pytest.approx(6.664e-6, abs=1e-12)


def test_bad_host_queue_is_a_one_line_error():
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.validate(two_flows("mirror"))
    assert "host_queue: 'mirror' is not \"switch\"" in str(e.value)


def test_artifact_changes_copy_and_leave_the_text_model_alone():
    pts = flash.points("reduced")
    frozen = copy.deepcopy(pts)
    names = [c.name for c in flash.ARTIFACT]
    assert len(set(names)) == len(names) == 12
    for c in flash.ARTIFACT:
        assert c.source and c.what
        for (n, d, _), (_, d0, _) in zip(pts, frozen):
            a = c.apply(n, d)
            assert d == d0, f"{c.name} changed the text model's {n}"
            if a is not d:
                assert a != d, f"{c.name}: a copy without a change at {n}"
    # The text model's scenarios carry none of the new keys.
    for _, d, _ in pts:
        t = d["transport"]
        assert "host_queue" not in d and not {"fixed_rto", "cwnd_cap", "ecn_growth", "tlp", "rack", "lost_retransmit", "limited_transmit", "timeout_ssthresh", "loss_exit", "cwr_exit"} & set(t) or t["cc"] == "pfabric"
        assert all("connections" not in w for w in d["workload"])


def test_artifact_model_of_the_mix_points():
    pts = {n: d for n, d, _ in flash.points("reduced")}
    a = artifact_scenario(flash.ARTIFACT, "main/mix/0.6/flash", pts["main/mix/0.6/flash"])
    t = a["transport"]
    assert t["cc_params"] == {"increase": "ns2"} and t["fixed_rto"] == "5ms" and t["probe_after"] == 5
    assert (t["tlp"], t["rack"], t["cwnd_cap"], t["ecn_growth"]) == (False, False, 239, "ns2")
    # ns-2's FullTcp/Sack finds a retransmission lost again only by its timeout.
    assert t["lost_retransmit"] == "never" and t["limited_transmit"] == "none"
    # ns-2's FullTcpAgent::timeout_action keeps ssthresh after an ECN reaction.
    assert t["timeout_ssthresh"] == "ns2"
    # ... and its TcpAgent::ecn() cuts at an ECE in the loss state of a timeout of its own.
    assert t["loss_exit"] == "ns2"
    # ... and reacts again only to an ACK beyond recover_ (the highest sequence sent + 1).
    assert t["cwr_exit"] == "beyond"
    assert a["host_queue"] == "switch" and all(w["connections"] == "persistent" for w in a["workload"])
    # DCTCP and PIAS have no L2DCT window; pFabric keeps its own sender (already the ns-2 one).
    d = artifact_scenario(flash.ARTIFACT, "main/mix/0.6/pias", pts["main/mix/0.6/pias"])["transport"]
    assert "cc_params" not in d and d["fixed_rto"] == "5ms" and d["lost_retransmit"] == "never"
    p = artifact_scenario(flash.ARTIFACT, "main/mix/0.6/pfabric", pts["main/mix/0.6/pfabric"])
    assert p["transport"] == pts["main/mix/0.6/pfabric"]["transport"] and p["host_queue"] == "switch"
    # 100 Gb/s: 512 KB buffers hold 341 packets of 1500 B; the cap is one less.
    f = artifact_scenario(flash.ARTIFACT, "fast/mix/0.6/flash", pts["fast/mix/0.6/flash"])
    assert f["transport"]["cwnd_cap"] == 340
    for n, d in pts.items():
        fabricsim.validate(artifact_scenario(flash.ARTIFACT, n, d))
