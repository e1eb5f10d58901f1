"""Parsing the peers' output (benches/htsim/htsim.py, benches/validation/), on small samples the
peers wrote on this machine (tests/peers/*/README.md says how). The peers are not run here."""

import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benches" / "htsim"))
sys.path.insert(0, str(ROOT / "benches" / "validation"))

import htsim  # noqa: E402

SAMPLES = ROOT / "tests" / "peers" / "htsim"
# htsim's connection_matrices/incast.cm, which the NDP sample ran: nodes 0-14 send 2 MB each to node 15.
SENDERS = list(range(15))


class FakeBuild:
    """An htsim build without its binaries: what the experiments write (scenario, command line)."""

    commit = "841d9e7"

    def __init__(self, root):
        self.sim = root

    def driver(self, name):
        return self.sim / name


def test_ndp_closing_totals_and_finished_flows():
    out = (SAMPLES / "ndp_stdout.txt").read_text()
    t = htsim.ndp_totals(out)
    done = htsim.finished_flows(out)
    assert len(SENDERS) == 15 and sorted(done) == sorted(f"ndp_{s}_15" for s in SENDERS)
    # htsim's sequence numbers count whole 9000 B packets: a 2 MB flow is 223 of them.
    assert {b for _, b in done.values()} == {-(-2_000_000 // 9000) * 9000}
    # 15 x 2 MB through one 10 Gb/s link cannot finish before 15 * 2007000 B * 8 / 10 Gb/s = 24.08 ms.
    assert max(t_us for t_us, _ in done.values()) >= 15 * 2_007_000 * 8 / 10e9 * 1e6
    # Every data packet sent new: at least the 15 flows' 223 packets each.
    assert t["new"] >= 15 * 223 and t["rtx"] >= 0 and t["bounced"] >= 0
    assert t["timeouts"] == 0  # no "Total RTOs" line: htsim's 50 ms minimum RTO never fired
    assert htsim.ndp_totals(out + "Total RTOs: 1\nTotal RTOs: 2\n")["timeouts"] == 2
    with pytest.raises(ValueError):
        htsim.ndp_totals("Done\n")


def test_ndp_sink_samples_named_through_the_log_preamble():
    samples = htsim.sink_samples((SAMPLES / "ndp_sinks.txt").read_text(), "NDP_SINK")
    names = htsim.logged_names((SAMPLES / "ndp_log_names.txt").read_bytes())
    assert sorted(names[i] for i in samples) == sorted(f"ndp_sink_{s}_15" for s in SENDERS)
    assert sorted(htsim.sink_pair(names[i]) for i in samples) == sorted((s, 15) for s in SENDERS)
    assert htsim.sink_pair("ndp_3_15") is None  # a source, not a sink
    t, last = htsim.last_samples(samples)
    # -logtime 10 over a 30 ms run: samples at 10 and 20 ms (none at the end time itself).
    assert t == pytest.approx(0.02) and len(last) == 15
    assert all([s[0] for s in v] == [pytest.approx(0.01), pytest.approx(0.02)] for v in samples.values())
    # Cumulative bytes: whole packets, never decreasing, and together no more than the link carried.
    assert all(b % 9000 == 0 for v in samples.values() for _, b in v)
    assert all(v[0][1] <= v[1][1] for v in samples.values())
    assert sum(last.values()) <= 10e9 / 8 * t
    assert htsim.sink_samples((SAMPLES / "ndp_sinks.txt").read_text(), "TCP_SINK") == {}


def test_dctcp_sink_samples_and_the_permutation_the_driver_drew():
    samples = htsim.sink_samples((SAMPLES / "dctcp_sinks.txt").read_text())
    t, last = htsim.last_samples(samples)
    assert len(samples) == 16 and t == pytest.approx(0.01)  # 16 hosts, one flow each; sampled every 10 ms
    names = htsim.logged_names((SAMPLES / "dctcp_log_names.txt").read_text())
    pairs = [htsim.sink_pair(names[i]) for i in samples]
    # A permutation: every host sends once and receives once, never to itself.
    assert sorted(a for a, _ in pairs) == list(range(16)) == sorted(b for _, b in pairs)
    assert all(a != b for a, b in pairs)
    assert 0 < sum(last.values()) <= 16 * 10e9 / 8 * t
    with pytest.raises(ValueError):
        htsim.last_samples({})


def test_validation_reads_an_ndp_run():
    import htsim_validate

    f = htsim_validate.htsim_figures("NDP_SINK", (SAMPLES / "ndp_stdout.txt").read_text(),
                                     (SAMPLES / "ndp_sinks.txt").read_text(), (SAMPLES / "ndp_log_names.txt").read_bytes())
    assert f["t_last"] == pytest.approx(0.02) and len(f["fct_us"]) == 15 and f["new"] >= 15 * 223
    assert set(f["bytes"]) == {f"ndp_sink_{s}_15" for s in SENDERS}
    assert all(b % 9000 == 0 for b in f["bytes"].values())


def test_connection_matrix_reads_back_as_fabricsim_reads_it(tmp_path):
    from fabricsim.traffic import read_htsim  # the [[import]] reader

    text = htsim.connection_matrix(4, [(0, 1), (1, 2), (2, 3), (3, 0)], start_ps=[0, 10, 20, 30], size=2_000_000_000)
    assert text.splitlines()[:3] == ["Nodes 4", "Connections 4", "0->1 id 1 start 0 size 2000000000"]
    p = tmp_path / "perm.cm"
    p.write_text(text)
    flows, _ = read_htsim(p, hosts=["h0", "h1", "h2", "h3"])
    assert [(f["src"], f["dst"], f["size"]) for f in flows] == [("h0", "h1", 2_000_000_000), ("h1", "h2", 2_000_000_000),
                                                                  ("h2", "h3", 2_000_000_000), ("h3", "h0", 2_000_000_000)]


NS3 = ROOT / "tests" / "peers" / "ns3"


def test_ns3_b1_output():
    import ns3_validate

    d = ns3_validate.parse_ns3((NS3 / "b1_stdout.txt").read_text())
    assert [f["group"] for f in d["flows"]] == [f"h{i}->h0" for i in range(1, 17)]
    # What the sinks received fits through h0's 10 Gb/s link in 5 ms (payload: 1448 of 1500 B).
    assert 0 < sum(f["rx_bytes"] for f in d["flows"]) <= 10e9 / 8 * 0.005 * 1448 / 1500
    assert all(f["rx_after_warmup"] <= f["rx_bytes"] for f in d["flows"])
    (q,) = d["queues"]
    assert q["port"] == "s0->h0" and q["marks"] <= q["enqueued"]
    assert q["samples"] == 40  # 4 ms after the warm-up, sampled every 100 us
    assert 0 <= q["mean_packets"] <= q["p99_packets"] <= 250  # the RED queue disc's limit
    # With the device queue: B1's driver gives every switch device a one-packet queue.
    assert 0 <= q["mean_with_device"] - q["mean_packets"] <= 1
    assert 0 <= q["marks_after_warmup"] <= q["marks"]
    # Each sender's state over the samples after the warm-up: DCTCP's alpha and the fraction of
    # acknowledged bytes that came with ECE are fractions; the window holds at least a segment.
    for f in d["flows"]:
        assert 0 <= f["alpha_mean"] <= 1 and 0 <= f["ece_fraction"] <= 1
        assert f["cwnd_mean"] >= 1448 and f["srtt_mean_s"] >= 0
    # h11 and h16, among the last to start, are the flows ns-3 starves: no RTT sample yet, alpha
    # still near its initial 1 (the start-up drops were h1's and h4's packets).
    slow = [f["group"] for f in d["flows"] if f["srtt_mean_s"] == 0]
    assert slow == ["h11->h0", "h16->h0"]
    assert all(f["alpha_mean"] > 0.9 for f in d["flows"] if f["group"] in slow)
    with pytest.raises(ValueError):
        ns3_validate.parse_ns3("no json here\n")


def test_ns3_echo_counters_and_timeouts_by_flow():
    import ns3_validate

    d = ns3_validate.parse_ns3((NS3 / "b1_stdout.txt").read_text())
    for f in d["flows"]:
        e = f["echo"]
        assert e["ce"] <= e["data"] and e["acks"] == e["adv_acks"] + e["dup_acks"]
        assert e["adv_ece_acks"] + e["dup_ece_acks"] == e["ece_acks"] and e["adv_ece_bytes"] <= e["adv_bytes"]
        # TcpDctcp counts whole segments, up to one for each duplicate ACK beyond what ACKs advanced
        # over (its windows that closed after the warm-up; h11 and h16 have none yet); its ECE share
        # is what the driver's own ece_fraction divides (computed in C++).
        assert e["cc_bytes"] % 1448 == 0 and e["cc_ece_bytes"] % 1448 == 0
        assert e["adv_bytes"] <= e["cc_bytes"] <= e["adv_bytes"] + 1448 * e["dup_acks"]
        assert ns3_validate.echo_summary([f])["ece_counted"] == pytest.approx(f["ece_fraction"], abs=1e-5)
    # h1 by hand: 38 of 211 segments CE; ECE on 41 992 of the 305 528 bytes ACKs advanced over and
    # of the 341 728 bytes TcpDctcp counted; 27 of 131 ACKs duplicates.
    h1 = ns3_validate.echo_summary(d["flows"][:1])
    assert h1 == pytest.approx({"ce": 38 / 211, "ece_acked": 41992 / 305528, "ece_counted": 41992 / 341728, "duplicates": 27 / 131})
    (line,) = ns3_validate.echo_note(d, None)
    assert line.startswith("ns-3's echo: CE on ") and "of what TcpDctcp counted" in line
    # The start-up's three drops are h1's (1) and h4's (2), each retransmitted once; no timeouts by 5 ms.
    assert [(f["group"], f["drops"], f["retransmits"]) for f in d["flows"] if f["drops"]] == [("h1->h0", 1, 1), ("h4->h0", 2, 2)]
    assert sum(f["drops"] for f in d["flows"]) == d["queues"][0]["drops"] == d["retransmits"] == 3
    assert ns3_validate.timeouts_note(["h1", "h2"], {"flows": d["flows"][:2]}, {"timeouts": [0, 0]}) == \
        "timeouts by flow: ns-3 none; fabricsim none"
    nd = {"flows": [{"timeouts": 0}, {"timeouts": 2}]}
    assert ns3_validate.timeouts_note(["h1", "h2"], nd, {"timeouts": [1, 0]}) == "timeouts by flow: ns-3 h2 2; fabricsim h1 1"
    # The example's groups, each its own line.
    ex = ns3_validate.parse_ns3((NS3 / "example_stdout.txt").read_text())
    lines = ns3_validate.echo_note(ex, ["S1->R1", "S2->R2", "S3->R1"])
    assert [line.split(":")[0] for line in lines] == ["ns-3's echo S1->R1", "ns-3's echo S2->R2", "ns-3's echo S3->R1"]


def test_ns3_example_output_and_the_mapped_start_times():
    import ns3_validate

    d = ns3_validate.parse_ns3((NS3 / "example_stdout.txt").read_text())
    groups = [f["group"] for f in d["flows"]]
    assert groups == ["S2->R2"] * 20 + ["S1->R1"] * 10 + ["S3->R1"] * 10
    assert [q["port"] for q in d["queues"]] == ["T1->T2", "T2->R1"]
    # Below each disc ns-3's device queue (100 packets) holds a packet whenever the disc holds any
    # (queue/device.rs), so the totals exceed the disc's by at most 100 and are full past it.
    for q in d["queues"]:
        assert 0 <= q["mean_with_device"] - q["mean_packets"] <= 100
        assert q["p99_packets"] == 0 or q["p99_with_device"] == q["p99_packets"] + 100
    # dctcp-example.cc's start times: S2[i] at i*50 ms + i*5 ms, S1[i] at i*100 ms + i*5 ms,
    # S3[i] at i*100 ms + (i+10)*5 ms. By 60 ms only S2[0] (0 ms) and S2[1] (55 ms) and S1[0] (0 ms)
    # have started; S3[0] starts at 50 ms.
    started = [i for i, f in enumerate(d["flows"]) if f["rx_bytes"] > 0]
    starts = ns3_validate.example_starts()
    assert [(s, t) for s, _, t in starts[:2]] == [("S2_0", 0.0), ("S2_1", pytest.approx(0.055))]
    assert starts[30] == ("S3_0", "R1", pytest.approx(0.05))
    assert set(started) <= {i for i, (_, _, t) in enumerate(starts) if t < 0.06}
    assert {0, 20} <= set(started)


def test_the_ns3_scenarios_map_its_tie_order(tmp_path):
    import tomllib

    import ns3_validate

    for make in (ns3_validate.b1_scenario, ns3_validate.example_scenario):
        assert tomllib.loads(make(0.01, 100, tmp_path).read_text())["simulation"]["tie_order"] == "scheduled"
        assert tomllib.loads(make(0.01, 100, tmp_path, ties="event").read_text())["simulation"]["tie_order"] == "event"


def test_the_ns3_runs_take_one_seed_on_both_sides(tmp_path, monkeypatch):
    """--seed N: fabricsim's [simulation] seed and ns-3's run number (--RngRun), so that a set of
    starts can draw RED's marks from a stream per run instead of sharing one."""
    import json
    import tomllib

    import ns3_validate
    import timing

    for make in (ns3_validate.b1_scenario, ns3_validate.example_scenario):
        toml = make(0.01, 100, tmp_path)
        assert tomllib.loads(toml.read_text())["simulation"]["seed"] == 1
        ns3_validate.with_seed(toml, 17)
        assert tomllib.loads(toml.read_text())["simulation"]["seed"] == 17
    seen = []
    monkeypatch.setattr(timing, "run_timed", lambda argv: seen.append(argv) or timing.Run(0.0, 0.0, 0.0, 0, '{"flows": []}', ""))
    ns3_validate.run_ns3(tmp_path / "dctcp_ns3", "b1", 0.2, 0.05, 100, 1, 0, seed=17)
    assert "--RngRun=17" in seen[0]
    ns3_validate.run_ns3(tmp_path / "dctcp_ns3", "b1", 0.2, 0.05, 100, 1)
    assert "--RngRun=1" in seen[1]  # ns-3's own default run
    # --save: the driver's output as --ns3-output reads it again, and fabricsim's figures.
    out = (NS3 / "b1_stdout.txt").read_text()
    fd = {"rx_after_warmup": [1.0, 2.0], "timeouts": [0, 3]}
    ns3_validate.save_runs(tmp_path / "raw", "b1", [(timing.Run(1.0, 1.0, 1.0, 0, out, ""), {}),
                                                    (timing.Run(0.0, 0.0, 0.0, 0, "", ""), {})], [(None, fd), (None, fd)])
    assert ns3_validate.parse_ns3((tmp_path / "raw" / "ns3-b1-0.txt").read_text()) == ns3_validate.parse_ns3(out)
    assert not (tmp_path / "raw" / "ns3-b1-1.txt").exists()  # a column read with --ns3-output is not copied
    assert json.loads((tmp_path / "raw" / "fabricsim-b1-1.json").read_text()) == fd


def test_the_ns3_scenarios_map_its_timestamps(tmp_path):
    """ns-3's TcpSocketBase has timestamps on by default: the mapping sets `timestamps`, and the
    scenario it writes is one fabricsim accepts; --timestamps off leaves Karn's rule."""
    import tomllib

    import ns3_validate
    from fabricsim.scenario import validate

    for make in (ns3_validate.b1_scenario, ns3_validate.example_scenario):
        on = make(2.0, 100, tmp_path)  # every flow of the example starts before 2 s
        assert tomllib.loads(on.read_text())["transport"]["timestamps"] is True
        validate(str(on), ())
        assert "timestamps" not in tomllib.loads(make(0.01, 100, tmp_path, timestamps=False).read_text())["transport"]


def test_the_ns3_scenarios_map_its_start_up_and_wire_sizes(tmp_path):
    """ns-3's start-up as its own trace shows it (the handshake's ACK a packet of its own, the
    first data segment acknowledged at once) and its sizes on the wire (SYN 58 B; data 1502 B and
    ACKs 54 B with PPP's 2 B): mapped in both experiments into scenarios fabricsim accepts;
    --start-up off leaves B1's own 52 B and no handshake ACK."""
    import tomllib

    import ns3_validate
    from fabricsim.scenario import validate

    for make in (ns3_validate.b1_scenario, ns3_validate.example_scenario):
        on = make(2.0, 100, tmp_path)
        t = tomllib.loads(on.read_text())["transport"]
        assert (t["handshake_ack"], t["ack_first_data"], t["syn_size"], t["header"], t["ack_size"]) == \
            (True, True, "58B", "54B", "54B")
        validate(str(on), ())
        off = tomllib.loads(make(0.01, 100, tmp_path, ns3_start=False).read_text())["transport"]
        assert (off["header"], off["ack_size"]) == ("52B", "52B")
        assert not {"handshake_ack", "ack_first_data", "syn_size"} & off.keys()


def test_the_ns3_scenarios_map_the_rules_b1s_trace_found(tmp_path):
    """B1's trace: ns-3's nanosecond clock, its 58 B SYN-ACK, its first alpha window set at the
    first ACK and its cut before the ACK's alpha update (the same TcpSocketBase/TcpDctcp in the
    example), mapped in both experiments into scenarios fabricsim accepts; each flag turns its rule
    off alone, leaving the others (and the byte cut) in place."""
    import tomllib

    import ns3_validate
    from fabricsim.scenario import validate

    for make in (ns3_validate.b1_scenario, ns3_validate.example_scenario):
        on = make(2.0, 100, tmp_path)
        d = tomllib.loads(on.read_text())
        t = d["transport"]
        assert d["simulation"]["time_resolution"] == "1ns"
        assert (t["synack_size"], t["cc_params"]) == ("58B", {"byte_cut": 1, "first_window_at_ack": 1, "cut_before_alpha": 1, "ns3_growth": 1, "ns3_loss_cut": 1, "empty_window": 1})
        validate(str(on), ())
        off = tomllib.loads(make(0.01, 100, tmp_path, synack=False, first_window=False, ns_clock=False, growth=False).read_text())
        assert "synack_size" not in off["transport"] and off["transport"]["cc_params"] == {"byte_cut": 1, "cut_before_alpha": 1}
        assert "time_resolution" not in off["simulation"]
        off = tomllib.loads(make(0.01, 100, tmp_path, cut=False, cut_order=False, growth=False).read_text())["transport"]
        assert off["cc_params"] == {"first_window_at_ack": 1}
        off = tomllib.loads(make(0.01, 100, tmp_path, cut=False, cut_order=False, first_window=False, growth=False).read_text())["transport"]
        assert "cc_params" not in off


def test_the_ns3_scenarios_map_its_growth_timeout_and_recovery(tmp_path):
    """The rules B1's trace found past 9.96 ms (TcpLinuxReno's growth and kept count, ReTxTimeout's
    ssthresh at every timeout from TcpDctcp's cut, PktsAcked's empty window) and ns-3's loss recovery
    (PRR in fast recovery, none during CWR): mapped in both experiments into scenarios fabricsim
    accepts; --dctcp-growth linux and --recovery linux each leave theirs out alone."""
    import tomllib

    import ns3_validate
    from fabricsim.scenario import validate

    for make in (ns3_validate.b1_scenario, ns3_validate.example_scenario):
        on = make(2.0, 100, tmp_path)
        t = tomllib.loads(on.read_text())["transport"]
        assert (t["timeout_ssthresh"], t["prr_recovery"], t["recovery_from_cwr"], t["tlp"], t["rack"]) == ("every", True, False, False, False)
        assert (t["prr_cwr_acks"], t["limited_transmit"], t["acked_count"], t["recovery_on"], t["lost_retransmit"], t["fast_retransmit"],
                t["partial_ack"]) == ("advancing", "pipe", "delivered", "duplicate_ack", "ns3", "head", "ns3")
        assert {k: t["cc_params"][k] for k in ("ns3_growth", "ns3_loss_cut", "empty_window")} == {"ns3_growth": 1, "ns3_loss_cut": 1, "empty_window": 1}
        validate(str(on), ())
        t = tomllib.loads(make(0.01, 100, tmp_path, growth=False).read_text())["transport"]
        assert "timeout_ssthresh" not in t and "ns3_growth" not in t["cc_params"] and t["prr_recovery"]
        t = tomllib.loads(make(0.01, 100, tmp_path, recovery=False).read_text())["transport"]
        assert "prr_recovery" not in t and "rack" not in t and "tlp" not in t and t["timeout_ssthresh"] == "every"


def test_the_ns3_scenarios_map_its_prr_in_bytes(tmp_path):
    """ns-3's TcpPrrRecovery::DoRecovery takes PRR's quota in bytes: mapped in both experiments into
    scenarios fabricsim accepts; --prr-units segments leaves the key out, and so does --prr off."""
    import tomllib

    import ns3_validate
    from fabricsim.scenario import validate

    for make in (ns3_validate.b1_scenario, ns3_validate.example_scenario):
        on = make(2.0, 100, tmp_path)
        assert tomllib.loads(on.read_text())["transport"]["prr_units"] == "bytes"
        validate(str(on), ())
        assert "prr_units" not in tomllib.loads(make(0.01, 100, tmp_path, prr_bytes=False).read_text())["transport"]
        assert "prr_units" not in tomllib.loads(make(0.01, 100, tmp_path, prr="off").read_text())["transport"]


def test_the_ns3_scenarios_map_its_end_of_cwr(tmp_path):
    """ns-3's TcpSocketBase::ReceivedAck ends CWR only beyond m_recover: mapped for dctcp-example
    and (since B1's trace found it too) for B1 (cwr_exit = "beyond") into scenarios fabricsim
    accepts; --cwr-exit at leaves the key out of both."""
    import tomllib

    import ns3_validate
    from fabricsim.scenario import validate

    on = ns3_validate.example_scenario(2.0, 100, tmp_path)
    assert tomllib.loads(on.read_text())["transport"]["cwr_exit"] == "beyond"
    validate(str(on), ())
    assert "cwr_exit" not in tomllib.loads(ns3_validate.example_scenario(2.0, 100, tmp_path, cwr_exit=False).read_text())["transport"]
    b1 = ns3_validate.b1_scenario(0.01, 100, tmp_path)
    assert tomllib.loads(b1.read_text())["transport"]["cwr_exit"] == "beyond"
    validate(str(b1), ())
    assert "cwr_exit" not in tomllib.loads(ns3_validate.b1_scenario(0.01, 100, tmp_path, cwr_exit=False).read_text())["transport"]


def test_the_start_jitter_shifts_flow_k_by_k_steps(tmp_path):
    """--start-jitter NS: flow k (the driver's order; the example's S2 0-19, S1 20-29, S3 30-39; B1's
    h1-h16) starts k x NS later, in nanoseconds in the scenario (the driver adds NanoSeconds(k * NS)
    to the same flow)."""
    import tomllib

    import ns3_validate

    base, shifted = ns3_validate.example_starts(), ns3_validate.example_starts(1000)
    assert [(s, d) for s, d, _ in shifted] == [(s, d) for s, d, _ in base]
    assert shifted[0][2] == base[0][2] and shifted[39][2] == pytest.approx(base[39][2] + 39e-6)
    assert shifted[30] == ("S3_0", "R1", pytest.approx(0.05 + 30e-6))
    flows = tomllib.loads(ns3_validate.example_scenario(2.0, 100, tmp_path, jitter_ns=1000).read_text())["flows"]
    # S1_1 (k = 21) at 100 ms + 5 ms + 21 us; the plain mapping's starts are unchanged (whole us, as before).
    assert flows[21]["src"] == "S1_1" and flows[21]["start"] == "105021000ns"
    plain = tomllib.loads(ns3_validate.example_scenario(2.0, 100, tmp_path).read_text())["flows"]
    assert plain[21]["start"] == "105000000ns"
    # B1: flow hi at i us (the driver's MicroSeconds(i)) and (i - 1) x NS later.
    b1 = tomllib.loads(ns3_validate.b1_scenario(0.01, 100, tmp_path, jitter_ns=300).read_text())["flows"]
    assert [(f["src"], f["start"]) for f in b1[:3]] == [("h1", "1000ns"), ("h2", "2300ns"), ("h3", "3600ns")]
    assert b1[15] == {"src": "h16", "dst": "h0", "start": "20500ns"}
    assert tomllib.loads(ns3_validate.b1_scenario(0.01, 100, tmp_path).read_text())["flows"][15]["start"] == "16000ns"


def test_dctcp_incast_finished_flows_timeouts_and_named_sinks():
    out = (SAMPLES / "dctcp_incast_stdout.txt").read_text()
    done = htsim.tcp_finished(out)
    # ConnectionMatrix::setIncast(64, 432 - 1 - 64): hosts 367..430 send to host 0, all finish in 1.2 s.
    assert sorted(done) == sorted(f"tcp_{s}_0(0)" for s in range(367, 431))
    # The first line of each flow counts: tcp_383_0 prints at its 51st packet's ACK (84.3444 ms,
    # after a progress dot: ".Flow tcp_383_0(0) finished at 84.3444") and at its 52nd's (84.4092 ms).
    assert done["tcp_383_0(0)"] == pytest.approx(84.3444)
    # Started at 80 ms: 64 x 459 KB cannot all cross h0's 10 Gb/s link before 80 + 23.5 ms.
    assert min(done.values()) > 80 and max(done.values()) > 80 + 64 * 459_000 * 8 / 10e9 * 1e3
    # One "At T RTO .." per timeout, some behind progress marks ("...|At 582.5 RTO 250 ..").
    assert htsim.tcp_timeouts(out) == out.count(" RTO ") == 76
    assert htsim.tcp_finished("Flow ndp_3_15 flow_id 4 finished at 10.5 total bytes 9000\n") == {}  # NDP's line


def test_dctcp_incast_sinks_and_the_validation_rows():
    import htsim_validate

    sinks = (SAMPLES / "dctcp_incast_sinks.txt").read_text()
    names = (SAMPLES / "dctcp_incast_log_names.txt").read_text()
    assert htsim.sink_pair("tcp_sink_367_0(0)") == (367, 0) and htsim.sink_pair("long_sink_7_1") == (7, 1)
    hd = htsim_validate.htsim_figures("TCP_SINK", (SAMPLES / "dctcp_incast_stdout.txt").read_text(), sinks, names)
    long = dict(hd["long"])
    # The long flow alone on its path for 80 ms: no more than 10 Gb/s, and most of it.
    assert 0.9 * 10e9 / 8 * 0.08 < long[0.08] <= 10e9 / 8 * 0.08
    # fabricsim's side, made up: every incast flow 1 ms after htsim's, the long flow the same bytes.
    fct = [(t - 80 + 1) * 1e3 for t in hd["tcp_finished"].values()]
    fd = {"fct_by_flow_us": fct + [None], "dst": ["h0"] * 64 + ["h1"], "timeouts": float(hd["timeouts"]),
          "acked_at_times": {repr(0.08): {"64": long[0.08] * 8948 / 9000}, repr(0.08 + 0.01): {"64": long[0.09] * 8948 / 9000}},
          "retransmits": 0.0, "marks": 0.0, "drops": 0.0}
    rows = {name: (a, b) for name, a, b in htsim_validate.incast_rows(hd, fd)}
    assert rows["flows finished"] == (64, 64)
    p50 = rows["FCT p50 (us)"]
    assert p50[1] - p50[0] == pytest.approx(1e3)
    assert rows["timeouts (all flows)"][0] == rows["timeouts (all flows)"][1] > 0
    a, b = rows["long flow goodput, 0 to 80 ms (Gb/s)"]
    assert a == pytest.approx(b) and 9 < a <= 10
    a, b = rows["long flow goodput, 80 to 90 ms (Gb/s)"]
    assert a == pytest.approx(b) and 0 < a <= 10


def test_the_incast_driver_copy_names_its_flows():
    src = ("#include \"dctcp.h\"\n\nEventList eventlist;\n\nint main() {\n    eventlist.setEndtime(timeFromSec(0.6));\n"
           "    tcpSrc = new DCTCPSrc(NULL, NULL, eventlist);\n}\n\nstring ntoa(double n) {\n    return x;\n}\n\n"
           "string itoa(uint64_t n) {\n    return y;\n}\n")
    text = htsim.named_tcp_sources(htsim.old_driver_source(src, 1.2, "x.cpp"))
    assert "timeFromSec(1.2)" in text and "string ntoa" not in text and "string itoa" not in text
    assert "tcpSrc = new NamedDCTCPSrc(NULL, NULL, eventlist);" in text
    assert text.index("class NamedDCTCPSrc") < text.index("EventList eventlist;")
    with pytest.raises(SystemExit):
        htsim.named_tcp_sources("no sources here")


def test_swift_finished_flows_retransmissions_and_timeouts():
    out = (SAMPLES / "swift_incast_stdout.txt").read_text()
    done = htsim.finished_flows(out)
    assert done["swift_12_15"] == (pytest.approx(732.95), 2_000_000)
    assert sorted(done) == ["swift_12_15", "swift_1_15", "swift_2_15", "swift_6_15"]
    # SwiftSrc::update_dsn_ack prints on every ACK at or past the flow's size: the first line counts,
    # also behind a progress mark.
    again = ".Flow swift_12_15 finished at 733.5 total bytes 2000000\n"
    assert htsim.finished_flows(out + again)["swift_12_15"][0] == pytest.approx(732.95)
    assert htsim.finished_flows(again) == {"swift_12_15": (733.5, 2_000_000)}
    # -flowsize 499 of 4000 B packets: SwiftSrc::set_flowsize adds one mss, 500 packets = 2 MB.
    assert {b for _, b in done.values()} == {500 * 4000}
    # 2 MB through a 100 Gb/s link takes 160 us: none finished sooner.
    assert min(t for t, _ in done.values()) > 2e6 * 8 / 100e9 * 1e6
    # One "T NAME retransmit_packet" line per packet resent; one "At T RTO" line per timeout,
    # which SwiftRtxTimerScanner checks every 10 ms: none before 10 ms.
    assert htsim.swift_retransmits(out) == out.count(" retransmit_packet") == 194
    assert htsim.tcp_timeouts(out) == 24
    assert all(float(line.split()[0]) >= 10_000 for line in out.splitlines() if " RTO " in line)
    # NDP's line (with flow_id) still reads.
    assert htsim.finished_flows("Flow ndp_3_15 flow_id 4 finished at 10.5 total bytes 9000\n") == {"ndp_3_15": (10.5, 9000)}


def test_the_swift_driver_copy_reads_its_seed_from_the_environment():
    src = "int main() {\n    queuesize = queuesize*Packet::data_packet_size();\n    srand(13);\n}\n"
    text = htsim.seed_from_env(src, "main_swift.cpp")
    assert 'srand(getenv("HTSIM_SEED") ? atoi(getenv("HTSIM_SEED")) : 13);' in text and htsim.EDIT_MARK in text
    assert text.count("srand") == 1
    with pytest.raises(SystemExit):
        htsim.seed_from_env("srand(time(NULL));\n")


def test_the_swift_mapping_follows_the_driver(tmp_path):
    import htsim_validate

    e = htsim_validate.swift_experiment(FakeBuild(tmp_path), "swift-incast", 4, [(0, 15), (14, 15)], "5ms", tmp_path, 500, 8, [], own_paths=True)
    argv = e.argv
    # -flowsize P makes P + 1 packets (SwiftSrc::set_flowsize adds one mss).
    assert argv[argv.index("-flowsize") + 1] == "499" and argv[argv.index("-q") + 1] == "8"
    import tomllib

    doc = tomllib.loads(e.toml.read_text())
    # -q 8 of 4000 B counts the packet on the wire: 7 wait here. 4000 B packets = mss + header.
    assert doc["queue"]["buffer"] == "28000B"
    t = doc["transport"]
    assert int(t["mss"][:-1]) + int(t["header"][:-1]) == 4000 and e.fab_scale == 4000 / int(t["mss"][:-1])
    assert [f["size"] for f in doc["flows"]] == [f"{500 * int(t['mss'][:-1])}B"] * 2
    # htsim's targets carry no hop term (Route::clone drops the hop count): 20 us base, h = 0.
    assert (t["cc_params"]["base_target_us"], t["cc_params"]["hop_scale_us"], t["cc_params"]["fs_range_us"]) == (20, 0, 100)
    # FairScheduler serves a host's flows a packet each in turn, a receiver's ACKs in the queue of
    # the flow they acknowledge: one queue, flows in turn (ACKs carry their connection's flow). It
    # holds at most 3 packets of a flow, the one on the wire included (src_queuesize > 2 defers);
    # the send limit counts waiting packets only: 2.
    hq = doc["host_queue"]
    assert (hq["queues"], hq["order"], hq["send_limit"]) == (1, "flow_rr", "2pkt")
    assert "classes" not in hq and "class" not in t and "ack_class" not in t


def test_the_swift_driver_copy_prints_each_flows_two_paths():
    src = ("int main() {\n    srand(13);\n        if (no_of_subflows == 1) {\n            swiftSrc->connect(*routeout, *routein, *swiftSnk, 0);\n        }\n"
           "        swiftSrc->set_paths(net_paths[src][dest]);\n")
    text = htsim.swift_driver(src, "main_swift.cpp")
    # After set_paths: the data's path is the shuffled list's first (its path_id, the index it had
    # before the shuffle), the ACKs' the draw `choice`.
    assert ('swiftSrc->set_paths(net_paths[src][dest]); cout << "Swift paths " << src << " " << dest << " " << '
            'swiftSrc->_paths[0]->path_id() << " back " << choice << " of "') in text
    assert "HTSIM_SEED" in text and text.count(htsim.EDIT_MARK) == 2
    with pytest.raises(SystemExit):
        htsim.print_swift_paths("swiftSrc->connect(*routeout, *routein, *swiftSnk, 0);\n")


def test_swift_path_draws_become_each_directions_path_index(tmp_path):
    import htsim_validate

    draws = htsim.swift_path_choices((SAMPLES / "swift_incast_paths.txt").read_text())
    # incast.cm at k = 4: hosts 0-11 in other pods (4 paths), 12-13 in h15's pod under the other
    # edge switch (2), 14 under h15's own (1); the two directions drawn apart.
    assert len(draws) == 15 and draws[0, 15] == (1, 1, 4) and draws[1, 15] == (2, 3, 4)
    assert draws[12, 15] == (1, 0, 2) and draws[14, 15] == (0, 0, 1)
    assert sum(d != b for d, b, _ in draws.values()) == 11

    pairs = [(0, 15), (1, 15), (12, 15), (14, 15)]
    e = htsim_validate.swift_experiment(FakeBuild(tmp_path), "swift-incast", 4, pairs, "5ms", tmp_path, 500, 500, [])
    assert e.toml is None and e.each_run
    import tomllib

    doc = tomllib.loads(e.after_htsim({"run": 0, "swift_paths": draws}).read_text())
    assert doc["routing"] == {"paths": "flow"}
    # htsim's index between pods is agg x 2 + uplink, fabricsim's agg + 2 x uplink: htsim 1
    # (agg 0, uplink 1) is fabricsim's 2, htsim 2 (agg 1, uplink 0) its 1, 3 stays 3; within a pod
    # both count the aggregation switch.
    assert [(f["path"], f["return_path"]) for f in doc["flows"]] == [(2, 2), (1, 3), (1, 0), (0, 0)]
    with pytest.raises(SystemExit, match="no Swift paths"):
        e.after_htsim({"run": 1, "swift_paths": {}})


def test_the_hpcc_driver_copy_prints_each_pfc_pause():
    src = ("    if ((uint64_t)_queuesize > _high_threshold && _state_recv!=PAUSED){\n        _state_recv = PAUSED;\n"
           "        sendPause(1000);\n    }\n")
    text = htsim.print_pauses(src, "queue_lossless_input.cpp")
    assert 'sendPause(1000); cout << "PFC pause "' in text and text.count("sendPause") == 1 and htsim.EDIT_MARK in text
    with pytest.raises(SystemExit):
        htsim.print_pauses("sendPause(0);\n")
    # What the edited driver prints, some lines behind progress marks; nothing else counts.
    out = ("PFC pause 19.6778 VirtualQueue(US1->CS3(0))\n.PFC pause 21.3034 VirtualQueue(SRC14->LS7(0))\n"
           "Flow HPCC_0_15 finished at 190.863 total bytes 2007000\n")
    assert htsim.pfc_pauses(out) == 2 and htsim.pfc_pauses("Done\n") == 0
    assert htsim.finished_flows(out) == {"HPCC_0_15": (190.863, 2_007_000)}


def test_the_largest_host_queue_htsim_printed():
    # FairPriorityQueue::receivePacket prints "Host Queue size N" past its 9 MB maxsize, between
    # other lines; the peak is the largest N (here the second), and a run without one held < 9 MB.
    out = ("CWND2 51311 ACKNO 31482000 at 2999.29 src HPCCsrc 113\nHost Queue size 9000464\n"
           "Host Queue size 121992376\nHost Queue size 120995336\n")
    assert htsim.host_queue_peak(out) == 121_992_376 and htsim.host_queue_peak("Done\n") == 0
    import htsim_validate

    # Run by run, in MB: htsim's printed peak or "<9" (none printed), fabricsim's host ports' most.
    hts = [(None, {"host_backlog": 121_992_376}), (None, {"host_backlog": 0})]
    fab = [(None, {"host_backlog": 9128.0}), (None, {"host_backlog": 10_264.0})]
    assert htsim_validate.host_backlog_note(hts, fab) == "host NIC backlog, most in a run (MB): htsim 122.0, <9; fabricsim 0.009, 0.010"


def test_the_hpcc_driver_copy_seeds_its_path_ids_from_the_environment():
    src = '    _nodename = "HPCCsrc " + to_string(_node_num);\n\n    srand(time(NULL));\n    _pathid = random()%256;\n'
    text = htsim.pathid_seed_from_env(src, "hpcc.cpp")
    assert 'srand(getenv("HTSIM_SEED") ? atoi(getenv("HTSIM_SEED")) : time(NULL));' in text and htsim.EDIT_MARK in text
    assert text.count("srand") == 1 and "_pathid = random()%256;" in text
    with pytest.raises(SystemExit):
        htsim.pathid_seed_from_env("srand(13);\n")


def test_the_hpcc_driver_copy_prints_each_flows_switch_choices():
    src = ("        FibEntry* e = (*available_hops)[ecmp_choice];\n        pkt.set_direction(e->getDirection());\n        \n"
           "        return e->getEgressPort();\n")
    text = htsim.print_hpcc_hops(src, "fat_tree_switch.cpp")
    assert text.startswith("#include <set>\n") and text.count("pkt.set_direction") == 1 and htsim.EDIT_MARK in text
    # Only where the switch had a choice, only HPCC's packets (the file is every driver's), once per flow, direction and switch.
    assert "available_hops->size() > 1 && (pkt.type() == HPCC || pkt.type() == HPCCACK)" in text and "printed.insert(" in text
    with pytest.raises(SystemExit):
        htsim.print_hpcc_hops("return e->getEgressPort();\n")


def test_hpcc_switch_choices_become_each_directions_path_index(tmp_path):
    import tomllib

    import htsim_validate

    # What the copy prints (the chosen queue's nodename), between other lines, at k = 8 (4 hosts
    # per edge switch, 16 per pod): flow 1 h13 -> h29 between pods 0 and 1, flow 2 h0 -> h5 within
    # pod 0, flow 3 h1 -> h2 under one edge switch (no choice, no line).
    q = "queue lossless output(100000Mb/s,135000bytes)"
    out = (f"HPCC hop 1 data {q}LS3->US1(0)\nHPCC hop 1 data {q}US1->CS5(0)\nstartflow HPCC_0_5 at 0\n"
           f"HPCC hop 1 ack {q}LS7->US6(0)\nHPCC hop 1 ack {q}US6->CS14(0)\n"
           f"HPCC hop 2 data {q}LS0->US3(0)\nHPCC hop 2 ack {q}LS1->US2(0)\n")
    hops = htsim.hpcc_hop_choices(out)
    assert hops == {(1, "data"): {"tor": 1, "agg": 5}, (1, "ack"): {"tor": 6, "agg": 14}, (2, "data"): {"tor": 3}, (2, "ack"): {"tor": 2}}
    # htsim's core c meets aggregation position c mod 4 (uplink c div 4); fabricsim's index is
    # position + 4 x uplink: data US1 (position 1), CS5 (uplink 1) -> 5; ACKs US6 (pod 1, position
    # 2), CS14 (uplink 3) -> 14; within a pod the position alone (US3 -> 3, US2 -> 2); else 0.
    assert [htsim.hpcc_path_index(8, hops[1, d]) for d in ("data", "ack")] == [5, 14]
    assert [htsim.hpcc_path_index(8, hops[2, d]) for d in ("data", "ack")] == [3, 2] and htsim.hpcc_path_index(8, {}) == 0

    pairs = [(13, 29), (0, 5), (1, 2)]
    e = htsim_validate.hpcc_experiment(FakeBuild(tmp_path), "hpcc-permutation", 8, pairs, None, "3ms", tmp_path, [])
    assert e.toml is None and e.each_run
    doc = tomllib.loads(e.after_htsim({"run": 0, "hpcc_hops": hops}).read_text())
    assert doc["routing"] == {"ecmp": "flow_hash", "paths": "flow"}
    assert [(f["path"], f["return_path"]) for f in doc["flows"]] == [(5, 14), (3, 2), (0, 0)]
    # No pause can occur: htsim's host queue itself, unbounded with the ACKs ahead of the data.
    assert doc["host_queue"] == {"queues": 2, "classes": [0, 1], "send_limit": "unlimited"}
    assert (doc["transport"]["class"], doc["transport"]["ack_class"]) == (1, 0)
    # At the driver's own thresholds too, with its sources' stop at a pause (HPCCSrc::processPause):
    # [pfc] stop_senders; --hpcc-pause-hosts limit maps the stop as a one-packet NIC limit instead.
    for hosts, queue, pfc in [("stop", doc["host_queue"], {"xoff": "135000B", "xon": "108000B", "stop_senders": True}),
                              ("limit", {"send_limit": "1pkt"}, {"xoff": "135000B", "xon": "108000B"})]:
        d = htsim_validate.hpcc_experiment(FakeBuild(tmp_path), "hpcc-permutation", 8, pairs, None, "3ms", tmp_path, [], pfc="driver",
                                           pause_hosts=hosts)
        d = tomllib.loads(d.after_htsim({"run": 0, "hpcc_hops": hops}).read_text())
        assert (d["host_queue"], d["pfc"]) == (queue, pfc), hosts
    # Where no pause can occur the limit mapping keeps htsim's host queue, as the mapping before.
    d = htsim_validate.hpcc_experiment(FakeBuild(tmp_path), "hpcc-permutation", 8, pairs, None, "3ms", tmp_path, [], pause_hosts="limit")
    assert tomllib.loads(d.after_htsim({"run": 0, "hpcc_hops": hops}).read_text())["host_queue"] == doc["host_queue"]
    # A flow between pods without its aggregation switch's choice: not the edited copy.
    with pytest.raises(SystemExit, match="no HPCC paths"):
        e.after_htsim({"run": 1, "hpcc_hops": {k: v for k, v in hops.items() if k != (1, "ack")}})
    own = htsim_validate.hpcc_experiment(FakeBuild(tmp_path), "hpcc-permutation", 8, pairs, None, "3ms", tmp_path, [], own_paths=True)
    own_doc = tomllib.loads(own.toml.read_text())
    assert not own.each_run and own_doc["routing"] == {"ecmp": "flow_hash"}
    # On fabricsim's own draw (windows ran to 6e12 B) the NICs keep a one-packet limit, as at htsim's own thresholds.
    assert own_doc["host_queue"] == {"send_limit": "1pkt"} and "ack_class" not in own_doc["transport"]


def test_hpcc_incast_samples_pauses_only_at_the_drivers_thresholds():
    # htsim's incast.cm under its HPCC driver (tests/peers/htsim/README.md): with its own PFC
    # thresholds (12, 15 packets) the copy printed 51 pauses; with them above all the flows' bytes,
    # none. Every flow finished in both, its 2 MB sent as 223 whole packets of 9000 B.
    for name, pauses, first in [("hpcc_incast_pfc_stdout.txt", 51, 499.992), ("hpcc_incast_stdout.txt", 0, 539.874)]:
        out = (SAMPLES / name).read_text()
        assert htsim.pfc_pauses(out) == pauses, name
        done = htsim.finished_flows(out)
        assert sorted(done) == sorted(f"HPCC_{i}_15" for i in range(15)), name
        assert {b for _, b in done.values()} == {2_007_000} and min(t for t, _ in done.values()) == first, name


def test_the_hpcc_mapping_follows_the_driver(tmp_path):
    import tomllib

    import htsim_validate

    e = htsim_validate.hpcc_incast(FakeBuild(tmp_path), "1ms", tmp_path, "rand", own_paths=True)
    doc = tomllib.loads(e.toml.read_text())
    # HPCCSrc sends whole 9000 B packets: 100 KB is 12 of them (108 000 B, its "total bytes").
    assert [f["size"] for f in doc["flows"]] == ["108000B"] * 4 and [f["dst"] for f in doc["flows"]] == ["h15"] * 4
    cc = doc["transport"]["cc_params"]
    # T = 12 us, W_AI one packet (its 9000 B of payload: htsim's W counts sequence bytes), W bounded
    # only where htsim's timer period (9064 B x T / W, whole picoseconds) would reach 0: 9064 B x 12e6.
    assert (cc["t_us"], cc["w_ai_bytes"], cc["eta"], cc["max_stage"]) == (12, 9000, 0.95, 5) and cc["w_max_bytes"] == 108_768_000_000
    # sim/hpcc.cpp's departures from Algorithm 1, each as its option.
    assert {k: cc[k] for k in ("reference_update", "int_reference", "tau_ratio", "u_init", "unmeasured_ack", "int_queue", "int_hops",
                               "window_rounding")} == {"reference_update": "per_ack", "int_reference": "first", "tau_ratio": "integer",
                                                       "u_init": 0.95, "unmeasured_ack": "update", "int_queue": "with_packet",
                                                       "int_hops": "switches", "window_rounding": "sequence"}
    # --hpcc-window wire: the mapping before, W in bytes on the wire and W_AI one 9064 B packet.
    wire = tomllib.loads(htsim_validate.hpcc_incast(FakeBuild(tmp_path), "1ms", tmp_path, "rand", window="wire", own_paths=True)
                         .toml.read_text())["transport"]["cc_params"]
    assert (wire["window_rounding"], wire["w_ai_bytes"]) == ("down", 9064)
    # htsim's order of same-picosecond events (EventList's multimap: insertion order among equal
    # times, arrivals scheduled by the per-link Pipe, each switch's zero-latency CallbackPipe);
    # --hpcc-tie-order scheduled_pipe leaves the switches' pipes out, own leaves fabricsim's order.
    assert doc["simulation"]["tie_order"] == "scheduled_switch"
    no_switch = htsim_validate.hpcc_incast(FakeBuild(tmp_path), "1ms", tmp_path, "rand", tie_order="scheduled_pipe", own_paths=True)
    assert tomllib.loads(no_switch.toml.read_text())["simulation"]["tie_order"] == "scheduled_pipe"
    assert any("--hpcc-tie-order scheduled_pipe" in n for n in no_switch.notes)
    own = htsim_validate.hpcc_incast(FakeBuild(tmp_path), "1ms", tmp_path, "rand", tie_order="own", own_paths=True)
    assert "tie_order" not in tomllib.loads(own.toml.read_text())["simulation"]
    assert any("--hpcc-tie-order own" in n for n in own.notes)
    # htsim's source timer (HPCCSrc::doNextEvent), and the mapping before it on request.
    assert cc["send_timing"] == "tick"
    window = htsim_validate.hpcc_incast(FakeBuild(tmp_path), "1ms", tmp_path, "rand", send_timing="window", own_paths=True)
    assert tomllib.loads(window.toml.read_text())["transport"]["cc_params"]["send_timing"] == "window"
    # htsim's arithmetic for u (HPCCSrc::measureInFlight), and bytes over seconds on request.
    assert cc["u_arithmetic"] == "htsim"
    seconds = htsim_validate.hpcc_incast(FakeBuild(tmp_path), "1ms", tmp_path, "rand", u_arithmetic="seconds", own_paths=True)
    assert tomllib.loads(seconds.toml.read_text())["transport"]["cc_params"]["u_arithmetic"] == "seconds"
    assert e.argv[e.argv.index("-strat") + 1] == "ecmp_host" and "-log" in e.argv
    # PFC above all the flows' bytes: 4 x 12 packets of 9000 B, so no ingress can pass 50 packets.
    i = e.argv.index("-pfc_thresholds")
    assert e.argv[i + 1:i + 3] == ["49", "50"]
    plain = htsim_validate.hpcc_incast(FakeBuild(tmp_path), "1ms", tmp_path, "rand", pfc="driver", rules=False, own_paths=True)
    cc = tomllib.loads(plain.toml.read_text())["transport"]["cc_params"]
    assert "reference_update" not in cc and plain.argv[plain.argv.index("-pfc_thresholds") + 1:][:2] == ["12", "15"]
    # htsim's thresholds onto [pfc]: LosslessInputQueue pauses above HIGH x 9000 B and resumes below
    # LOW x 9000 B of an ingress's packets (the driver's own 12 15 -> 135 000 B and 108 000 B; the
    # raised 49 50 -> 441 000 B and 450 000 B); its sources stop at a pause: one packet in the NIC.
    pfc = tomllib.loads(plain.toml.read_text())
    assert pfc["pfc"] == {"xoff": "135000B", "xon": "108000B"} and pfc["queue"]["buffer"] == "unlimited"
    assert pfc["host_queue"]["send_limit"] == "1pkt"
    assert doc["pfc"] == {"xoff": "450000B", "xon": "441000B"}
    # The pause row: the most in one run on each side; a fabricsim run without [pfc] has none to show.
    run = lambda n: (None, {"pauses": n})
    assert htsim_validate.pause_row([run(51), run(57)], [run(53), run(50)]) == ("PFC pauses (most in a run)", 57.0, 53)
    assert htsim_validate.pause_row([run(0)], [run(None)])[2] is None
    # Long-lived flows (the permutation): at most line rate each for the run, 4166 packets in 3 ms.
    assert htsim_validate.hpcc_pfc_thresholds([(0, 1), (1, 0)], None, "3ms", "raised") == (8333, 8334)


def test_dctcp_path_draw_and_its_fabricsim_path_index():
    # The incast driver's copy prints each flow's path draw (print_path_choices): hosts 367-430
    # to h0 across pods of the k = 12 fat tree, (k/2)^2 = 36 paths each.
    draw = htsim.path_choices((SAMPLES / "dctcp_incast_paths.txt").read_text())
    assert sorted(draw) == [(s, 0) for s in range(367, 431)]
    assert draw[367, 0] == (0, 36) and draw[368, 0] == (31, 36)
    assert all(n == 36 and 0 <= c < 36 for c, n in draw.values())
    # htsim lists the paths between pods aggregation switch first (upper = index div 6, then its
    # core uplink l = index mod 6); fabricsim's index takes the aggregation switch as its lowest
    # digit: 31 = upper 5, uplink 1 -> 5 + 6 * 1 = 11. A bijection of the 36.
    assert htsim.fat_tree_path_index(12, 368, 0, 31) == 11
    assert sorted(htsim.fat_tree_path_index(12, 368, 0, i) for i in range(36)) == list(range(36))
    # k = 4 between pods: htsim's (agg 0, l 0), (0, 1), (1, 0), (1, 1) are fabricsim's 0, 2, 1, 3;
    # within a pod both number the aggregation switch; under one edge switch there is one path.
    assert [htsim.fat_tree_path_index(4, 0, 15, i) for i in range(4)] == [0, 2, 1, 3]
    assert [htsim.fat_tree_path_index(4, 0, 2, i) for i in range(2)] == [0, 1]
    assert htsim.fat_tree_path_index(4, 0, 1, 0) == 0
    # The driver edit: one line, or the copy is not what the script expects.
    text = htsim.print_path_choices("\n\t\troutein = x;\n\t\trouteout = new Route(*(net_paths[src][dest]->at(choice)));\n")
    assert 'cout << "Path choice " << src' in text and htsim.EDIT_MARK in text
    with pytest.raises(SystemExit):
        htsim.print_path_choices("no routes here")


def test_same_flows_note_pairs_flows_by_source_and_destination():
    import htsim_validate
    # 10 ms of goodput: htsim's flows at 1, 2, 3 Gb/s, fabricsim's same pairs at 3, 2, 1 Gb/s
    # (listed in another order): correlation -1, differences +200 %, 0, -66.7 % (median 66.7 %),
    # and the slowest flows differ.
    gb = 1e9 / 8 * 0.01
    hd = {"pairs": {"x": (1, 2), "y": (3, 4), "z": (5, 6), "other": None}, "bytes": {"x": 1 * gb, "y": 2 * gb, "z": 3 * gb, "other": 0}}
    fd = {"src": ["h5", "h1", "h3"], "dst": ["h6", "h2", "h4"], "acked_at": {"0": 1 * gb, "1": 3 * gb, "2": 2 * gb}}
    note = htsim_validate.same_flows(hd, fd, 1.0, 0.01)
    assert note == ("per flow, the same pair on both sides (3): correlation -1.000, median |difference| 66.7%; "
                    "the slowest (1.00 / 1.00 Gb/s): h1 -> h2 and h5 -> h6")
    fd["acked_at"] = {"0": 3.3 * gb, "1": 1.1 * gb, "2": 2 * gb}
    assert htsim_validate.same_flows(hd, fd, 1.0, 0.01).endswith("median |difference| 10.0%; the slowest (1.00 / 1.10 Gb/s): the same flow")


def test_the_dctcp_incast_runs_htsims_own_path_draw(tmp_path):
    import tomllib

    import htsim_validate

    class Fake:  # an htsim build without its binaries: the scenario only
        commit = "841d9e7"

        def old_driver(self, name, end_s):
            return tmp_path / name

    draw = htsim.path_choices((SAMPLES / "dctcp_incast_paths.txt").read_text())
    e = htsim_validate.dctcp_incast(Fake(), "1200ms", tmp_path, "rand")
    assert e.toml is None  # written from htsim's run, which prints the draw
    doc = tomllib.loads(e.after_htsim({"paths": draw}).read_text())
    assert doc["routing"]["paths"] == "flow"
    flows = doc["flows"]
    # 64 incast flows on htsim's choices (h368's 31 is fabricsim's 11), then the long flow h7 -> h1
    # on the first path each way (within pod 0: index 0 is aggregation switch 0 in both).
    assert [(f["src"], f["path"]) for f in flows[:2]] == [("h367", 0), ("h368", 11)]
    assert all(f["path"] == htsim.fat_tree_path_index(12, int(f["src"][1:]), 0, draw[int(f["src"][1:]), 0][0]) for f in flows[:64])
    assert (flows[64]["src"], flows[64]["dst"], flows[64]["path"]) == ("h7", "h1", 0)
    # htsim's tie order (EventList's insertion order, arrivals scheduled by its Pipe), or the one
    # --tie-order gives.
    assert doc["simulation"]["tie_order"] == "scheduled_pipe"
    event = htsim_validate.dctcp_incast(Fake(), "1200ms", tmp_path, "rand", tie_order="event").after_htsim({"paths": draw})
    assert tomllib.loads(event.read_text())["simulation"]["tie_order"] == "event"
    own = tomllib.loads(htsim_validate.dctcp_incast(Fake(), "1200ms", tmp_path, "rand", own_paths=True).after_htsim({"paths": {}}).read_text())
    assert "paths" not in own["routing"] and not any("path" in f for f in own["flows"])
    with pytest.raises(SystemExit, match="no path choice"):
        e.after_htsim({"paths": {}})


def test_the_swift_mappings_hosts_let_an_ack_pass_their_own_backlog(tmp_path):
    # htsim's FairScheduler: h1 sends its own flow at line rate (its NIC backlogged at the send
    # limit) and ACKs h0's; the ACKs (flow 0's, as the data they acknowledge) take their flow's turn
    # with h1's data (flow 1), so an ACK waits at most for the data packet on the wire, 4000 B at
    # 100 Gb/s = 0.32 us. With one FIFO (the mapping before issue 32) it waits behind the 2 waiting
    # packets too: up to 0.96 us.
    import htsim_validate
    from fabricsim.runner import run


    e = htsim_validate.swift_experiment(FakeBuild(tmp_path), "swift-permutation", 4, [(0, 1), (1, 0)], "50us", tmp_path, None, 500, [], own_paths=True)
    text = e.toml.read_text().replace('flows = "all"\n', 'flows = "all"\n\n[output.pcap]\nports = ["h1->edge0_0", "edge0_0->h1"]\n', 1)
    waits = {}
    assert text.count('order = "flow_rr"') == 1
    for name, doc in (("round robin", text), ("fifo", text.replace('order = "flow_rr"', 'order = "fifo"'))):
        (tmp_path / "s.toml").write_text(doc)
        p = run(str(tmp_path / "s.toml"), progress=False).packets
        data_in = p[(p.port == "edge0_0->h1") & (p.flow == 0) & (p.kind == 0)]
        acks = p[(p.port == "h1->edge0_0") & (p.flow == 0) & (p.kind != 0)].set_index("ack")
        made = dict(zip(data_in.seq + data_in["len"], data_in.arrive_ps))  # the ACK leaves as the data's last bit arrives
        w = [(t - made[a]) / 1e6 for a, t in zip(acks.index, acks.time_ps) if a in made]
        assert len(w) > 120  # h0 sends at about line rate: 156 packets in 50 us
        waits[name] = max(w)
    assert waits["round robin"] <= 0.32 + 1e-6 < 0.64 < waits["fifo"] <= 0.96 + 1e-6, waits


def dctcp_permutation_scenario(tmp_path, **mapping):
    """The DCTCP permutation's scenario file for a two-flow draw (h0 <-> h1) with the mapping's
    choices, as the script writes it after htsim's run; no htsim binaries needed."""
    import htsim_validate

    class Fake:  # an htsim build without its binaries: the scenario only
        commit = "841d9e7"

        def dctcp_permutation(self, end_s):
            return tmp_path / "htsim_dctcp_permutation"

    first = {"run": 0, "pairs": {"dctcp_sink_0_1": (0, 1), "dctcp_sink_1_0": (1, 0)}, "paths": {(0, 1): (0, 0), (1, 0): (0, 0)}}
    return htsim_validate.dctcp_permutation(Fake(), "30ms", tmp_path, "rand", **mapping).after_htsim(first)


def test_the_dctcp_permutation_marks_as_htsims_ecnqueue_does(tmp_path):
    # The permutation's switches are the incast's ECNQueue: a departing packet is marked as its
    # service ends when the queue, it included, holds more than memFromPkt(15) = 15 x 9000 B
    # (ECNQueue::completeService); --mark-at dequeue keeps the mapping before (14 packets left
    # behind, decided as the service begins).
    import tomllib

    for mark_at, want in (("mapped", ("end", "135000B")), ("dequeue", ("dequeue", "126000B"))):
        q = tomllib.loads(dctcp_permutation_scenario(tmp_path, mark_at=mark_at).read_text())["queue"]
        assert (q["mark_at"], q["ecn_threshold"]) == want


def test_the_dctcp_permutation_sends_htsims_ack_and_syn_sizes(tmp_path):
    # TcpSink::send_ack sends TcpAcks of TcpAck::ACKSIZE = 40 B (the SYN-ACK too) and TcpSrc's SYN
    # is TcpPacket::new_syn_pkt(.., 1, 1), one byte: the permutation maps both (so does the
    # incast's transport); --sizes header keeps the mapping before, ACK and SYN the 52 B header.
    # With them the S2 draw's slowest flow runs as htsim's to the picosecond (docs/VALIDATION.md).
    import tomllib

    from fabricsim.scenario import validate

    for sizes, want in (("mapped", ("40B", "1B")), ("header", (None, None))):
        toml = dctcp_permutation_scenario(tmp_path, sizes=sizes)
        t = tomllib.loads(toml.read_text())["transport"]
        assert (t.get("ack_size"), t.get("syn_size"), t["header"]) == (*want, "52B")
        validate(str(toml))  # the engine accepts it


def test_the_dctcp_mappings_keep_htsims_window_in_bytes(tmp_path):
    # TcpSrc keeps its window in bytes (inflate_window, deflate_window; DCTCPSrc's cut): both DCTCP
    # experiments map it as window = "htsim_bytes", which needs sack = false (TcpSrc has none: the
    # incast's transport says so already, the permutation's gains it); --window segments keeps the
    # mapping before. Each scenario is read by the engine, which refuses a byte window without it.
    import tomllib

    import htsim_validate
    from fabricsim.scenario import validate

    class Fake:  # an htsim build without its binaries: the scenario only
        commit = "841d9e7"

        def dctcp_permutation(self, end_s):
            return tmp_path / "htsim_dctcp_permutation"

        def old_driver(self, name, end_s):
            return tmp_path / name

    first = {"run": 0, "pairs": {"dctcp_sink_0_1": (0, 1), "dctcp_sink_1_0": (1, 0)}, "paths": {(0, 1): (0, 0), (1, 0): (0, 0)}}
    draw = htsim.path_choices((SAMPLES / "dctcp_incast_paths.txt").read_text())
    for window, want in (("mapped", ("htsim_bytes", False)), ("segments", (None, None))):
        perm = htsim_validate.dctcp_permutation(Fake(), "30ms", tmp_path, "rand", window=window).after_htsim(first)
        inc = htsim_validate.dctcp_incast(Fake(), "1200ms", tmp_path, "rand", window=window).after_htsim({"paths": draw})
        for toml, sack in ((perm, want[1]), (inc, False)):
            t = tomllib.loads(toml.read_text())["transport"]
            assert (t.get("window"), t.get("sack")) == (want[0], sack), toml
            validate(str(toml))  # the engine accepts it
    # htsim's 52nd packet (TcpSrc::send_packets sends while _highest_sent <= _flow_size + 1): the
    # incast's flows are one segment longer, the last not waited for; --extra-segment off: 51.
    for extra, want in (("mapped", (True, 52 * 8948)), ("off", (None, 51 * 8948))):
        inc = htsim_validate.dctcp_incast(Fake(), "1200ms", tmp_path, "rand", extra_segment=extra).after_htsim({"paths": draw})
        doc = tomllib.loads(inc.read_text())
        assert (doc["transport"].get("extra_segment"), doc["flows"][0]["size"]) == (want[0], f"{want[1]}B")
        validate(str(inc))
    # tcp_367's SYN echoes a recycled packet's send time in htsim's run: its own profile samples
    # the SYN's round trip; the others keep the zero timestamp. --stale-syn off: all zero.
    for stale, want in (("mapped", ["recycled_syn"] + [None] * 63), ("off", [None] * 64)):
        inc = htsim_validate.dctcp_incast(Fake(), "1200ms", tmp_path, "rand", stale_syn=stale).after_htsim({"paths": draw})
        doc = tomllib.loads(inc.read_text())
        assert [f.get("transport") for f in doc["flows"][:64]] == want and doc["flows"][0]["src"] == "h367"
        assert doc["transport"]["syn_timestamp"] == "zero"
        assert doc.get("transports", {}).get("recycled_syn", {}).get("syn_timestamp") == ("sent" if stale == "mapped" else None)
        validate(str(inc))
