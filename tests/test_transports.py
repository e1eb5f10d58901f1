"""NDP, Homa and Aeolus from the Python side: listed with their keys, runnable from scenarios, workloads
and `compare`, with their own columns in the flow table."""

import subprocess
import sys

import pandas as pd
import pytest

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
    assert "aeolus" in p.stdout
    assert set(fabricsim.transports()) == {"tcp", "ndp", "homa", "aeolus"}


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
    c = fabricsim.compare(doc, ["dctcp", "h"], progress=False)
    a, h = c.runs[("dctcp", None)].flows, c.runs[("h", None)].flows
    pd.testing.assert_series_equal(a["size"], h["size"])
    assert (h["cc"] == "homa").all() and h["fct_s"].notna().all()
    assert (h["slowdown"] >= 1).all()
    # NDP over these drop-tail ports cannot mean anything (issue 34): on the scenario's ports it
    # is refused before any run; on its paper's (the default, issue 37) it trims.
    with pytest.raises(fabricsim.ScenarioError, match="transport 'ndp' is NDP, which needs switch ports that trim"):
        fabricsim.compare(doc, ["dctcp", "ndp"], progress=False, ports="scenario")
    c = fabricsim.compare(doc, ["ndp"], progress=False)
    assert (c.runs[("ndp", None)].flows["cc"] == "ndp").all()
    assert c.setups[("ndp", None)]["admission"] == "trim 64B"
    doc["queue"] = NDP_QUEUE
    c = fabricsim.compare(doc, ["ndp"], progress=False, ports="scenario")
    assert (c.runs[("ndp", None)].flows["cc"] == "ndp").all()


def test_homa_flow_without_size_is_a_one_line_error():
    doc = star({"kind": "homa"}, flows=[{"src": "h1", "dst": "h0"}])
    try:
        fabricsim.validate(doc)
    except fabricsim.ScenarioError as e:
        assert "flows[0].size" in str(e) and "Homa" in str(e)
    else:
        raise AssertionError("a Homa flow needs a size")


def test_aeolus_incast_drops_only_droppable_packets_and_reports_them():
    # 12 x 100 KB into one host: 384 unscheduled packets for a 100-packet port with a 6 KB
    # selective-dropping threshold (Aeolus §3.2): only droppable packets are lost, each resent once.
    flows = [{"src": f"h{i}", "dst": "h0", "size": "100KB"} for i in range(1, 13)]
    r = fabricsim.run(star({"kind": "aeolus"}, flows=flows, hosts=13,
                           queue={"buffer": "100pkt", "queues": 8, "selective_drop": "6KB"}), progress=False)
    f, q = r.flows, r.queues
    assert (f["cc"] == "aeolus").all() and f["fct_s"].notna().all()
    assert q["selective_drops"].sum() > 0 and q["selective_drops"].sum() == q["drops"].sum()
    assert f["retransmits"].sum() == q["drops"].sum() and f["timeouts"].sum() == 0


def test_bad_selective_drop_is_a_one_line_error():
    for value, words in (("0KB", "admits no droppable packet"), ("lots", "not a buffer size")):
        doc = star({"kind": "aeolus"}, flows=[{"src": "h1", "dst": "h0", "size": "10KB"}],
                   queue={"buffer": "100pkt", "queues": 8, "selective_drop": value})
        try:
            fabricsim.validate(doc)
        except fabricsim.ScenarioError as e:
            lines = str(e).splitlines()
            assert len(lines) == 2 and "queue.selective_drop" in lines[1] and words in lines[1], str(e)
        else:
            raise AssertionError(value)


def test_aeolus_refuses_more_unscheduled_packets_than_it_tracks():
    doc = star({"kind": "aeolus", "rtt_bytes": "200KB"}, flows=[{"src": "h1", "dst": "h0", "size": "10KB"}])
    try:
        fabricsim.validate(doc)
    except fabricsim.ScenarioError as e:
        assert "transport.rtt_bytes" in str(e) and "64 unscheduled packets" in str(e), str(e)
    else:
        raise AssertionError("200 KB is 139 packets")


def test_host_rx_jitter_delays_handling_and_rejects_bad_values():
    flows = [{"src": "h1", "dst": "h0", "size": "1000B", "start": f"{100 * i}us"} for i in range(50)]
    doc = star({"cc": "newreno"}, flows=flows, hosts=2, queue={"buffer": "100pkt"})
    base = fabricsim.run(doc, progress=False).flows["fct_s"]
    doc["host"] = {"rx_jitter": "10us"}
    jit = fabricsim.run(doc, progress=False).flows["fct_s"]
    extra = (jit - base) * 1e6
    assert extra.between(0, 20).all() and 6 < extra.mean() < 14   # two uniform [0, 10 us] delays
    for bad in ("1s", "soon"):
        doc["host"] = {"rx_jitter": bad}
        try:
            fabricsim.validate(doc)
        except fabricsim.ScenarioError as e:
            assert "host.rx_jitter" in str(e), str(e)
        else:
            raise AssertionError(bad)


def test_ns3_stack_opens_with_a_handshake_and_is_listed():
    # 20 us wires, 4 segments: ns-3 connects first (SYN / SYN-ACK, 52 B each: one round trip of
    # 4 x 20 us + 4 x 0.0416 us) and answers the SYN-ACK with an ACK of its own (52 B) ahead of
    # the data (ProcessSynSent), 0.0416 us more; then the 4 segments (IW 10) take one more round
    # trip as on linux-4.15, which starts established.
    doc = star({"cc": "dctcp"}, flows=[{"src": "h1", "dst": "h0", "size": str(4 * 1448)}], hosts=2)
    doc["topology"]["link"]["delay"] = "20us"
    fct = {}
    for stack in ("ns-3", "linux-4.15"):
        doc["host"] = {"stack": stack}
        fct[stack] = float(fabricsim.run(doc, progress=False).flows["fct_s"].iloc[0]) * 1e6
    syn = 4 * 20 + 4 * 0.0416 + 0.0416
    assert abs(fct["ns-3"] - fct["linux-4.15"] - syn) < 1e-3, fct
    stack_is_checked_and_listed(doc, "ns3", "ns-3", ("ns-3", "min RTO 1s", "no TLP, no RACK"))


def test_syn_size_sets_the_syns_bytes_on_the_wire():
    # htsim's SYN is one byte (TcpSrc::send_packets: new_syn_pkt(.., 1, 1)). Two senders open
    # at 0 into s0 -> h0 over 10 Gb/s, 1 us wires: both SYNs reach s0 together, one behind the
    # other. 52 B (ack_size): 41.6 ns each, so s0 -> h0 starts them at 1041.6 and 1083.2 ns;
    # 1 B: 0.8 ns each, at 1000.8 and 1001.6 ns. The SYN-ACKs keep ack_size (40 B here).
    flows = [{"src": f"h{i}", "dst": "h0", "size": "9KB"} for i in (1, 2)]
    starts = {}
    for syn in (None, "1B"):
        tcp = {"cc": "dctcp", "handshake": True} | ({"syn_size": syn, "ack_size": "40B"} if syn else {})
        doc = star(tcp, flows=flows, hosts=3, queue={"buffer": "unlimited", "discipline": "ecn", "ecn_threshold": "65pkt"})
        doc["output"] = {"pcap": {"ports": ["s0->h0", "s0->h1"], "until": "5us"}}
        pk = fabricsim.run(doc, progress=False).packets
        syns = pk[(pk.port == "s0->h0") & (pk["size"] < 60)]
        starts[syn] = sorted(syns.time_ps.tolist())
        assert set(syns["size"]) == {1 if syn else 52}
        assert set(pk[pk.port == "s0->h1"]["size"]) == {40 if syn else 52}  # the SYN-ACK
    assert starts[None] == [1_041_600, 1_083_200], starts
    assert starts["1B"] == [1_000_800, 1_001_600], starts
    doc["transport"]["syn_size"] = 0
    with pytest.raises(fabricsim.ScenarioError, match="transport.syn_size"):
        fabricsim.validate(doc)


def test_synack_size_sets_the_synacks_bytes_on_the_wire():
    # ns-3's SYN-ACK carries 16 B of options (58 B on its wire). One flow h1 -> h0 over 10 Gb/s,
    # 1 us wires, ACKs (and the SYN) 40 B = 32 ns: the SYN leaves h1 at 0, starts on s0 -> h0 at
    # 1032 ns and reaches h0 at 2064 ns; the SYN-ACK then takes 32 ns (40 B) or 46.4 ns (58 B) to
    # serialize and 1 us, so it starts on s0 -> h1 at 3096 or 3110.4 ns. Unset: ack_size.
    flows = [{"src": "h1", "dst": "h0", "size": "9KB"}]
    for synack, size, t_ps in ((None, 40, 3_096_000), ("58B", 58, 3_110_400)):
        tcp = {"cc": "dctcp", "handshake": True, "ack_size": "40B"} | ({"synack_size": synack} if synack else {})
        doc = star(tcp, flows=flows, hosts=2, queue={"buffer": "unlimited", "discipline": "ecn", "ecn_threshold": "65pkt"})
        doc["output"] = {"pcap": {"ports": ["s0->h0", "s0->h1"], "until": "3.2us"}}
        pk = fabricsim.run(doc, progress=False).packets
        assert pk[pk.port == "s0->h0"][["time_ps", "size"]].values.tolist() == [[1_032_000, 40]]  # the SYN
        assert pk[pk.port == "s0->h1"][["time_ps", "size"]].values.tolist() == [[t_ps, size]], synack
    doc["transport"]["synack_size"] = "20KB"
    with pytest.raises(fabricsim.ScenarioError, match="transport.synack_size"):
        fabricsim.validate(doc)
    # ns-3's DCTCP rules are 0 or 1 (cc/dctcp.rs): another value is named before the run.
    for knob in ("first_window_at_ack", "cut_before_alpha", "ns3_growth", "empty_window", "ns3_loss_cut"):
        doc["transport"] = {"cc": "dctcp", "handshake": True, "cc_params": {knob: 2}}
        with pytest.raises(fabricsim.ScenarioError, match=f"transport.cc_params.{knob}: 2 is not a number in"):
            fabricsim.validate(doc)


def stack_is_checked_and_listed(doc, bad: str, meant: str, listed: tuple) -> None:
    """An unknown `[host] stack` is named with the closest one; `fabricsim list stacks` shows `listed`."""
    doc["host"] = {"stack": bad}
    try:
        fabricsim.validate(doc)
    except fabricsim.ScenarioError as e:
        assert f"host.stack: '{bad}' is not known; did you mean '{meant}'?" in str(e), str(e)
    else:
        raise AssertionError("unknown stack accepted")
    p = subprocess.run([sys.executable, "-m", "fabricsim", "list", "stacks"], capture_output=True, text=True, check=True)
    for s in listed:
        assert s in p.stdout, s


def test_host_stack_sets_linux_defaults_for_every_scheme_and_is_listed():
    # 20 us wires: a 4-segment flow takes 2 round trips (~170 us) with 2.6.38's initial window of
    # 3 and 1 (~85 us) with IW 10, for NewReno and DCTCP alike.
    flows = [{"src": "h1", "dst": "h0", "size": str(4 * 1448)}, {"src": "h2", "dst": "h0", "size": str(4 * 1448), "transport": "d"}]
    doc = star({"cc": "newreno"}, flows=flows, hosts=3)
    doc["topology"]["link"]["delay"] = "20us"
    doc["transports"] = {"d": {"cc": "dctcp"}}
    fct = {}
    for stack in ("linux-2.6.38", "linux-4.15"):
        doc["host"] = {"stack": stack}
        f = fabricsim.run(doc, progress=False).flows
        fct[stack] = f["fct_s"].to_numpy() * 1e6
    rtt = 4 * 20 + 2 * 1.2 + 2 * 0.0416   # us: four wires, a data segment and an ACK per hop
    assert ((fct["linux-4.15"] > rtt) & (fct["linux-4.15"] < rtt + 10)).all(), fct
    # The 4th segment waits a round trip (less the serializations it no longer queues behind).
    extra = fct["linux-2.6.38"] - fct["linux-4.15"]
    assert ((extra > rtt - 10) & (extra < rtt)).all(), fct
    stack_is_checked_and_listed(doc, "linux-4.51", "linux-4.15", ("linux-2.6.38", "initial window 3", "linux-4.15", "RACK on"))
