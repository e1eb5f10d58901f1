"""pcap traces checked by an independent decoder: tshark (Debian's, installed by .ci/run) reads
the files and its fields are compared with the simulator's own tables. Skipped when tshark is
missing, unless FABRICSIM_REQUIRE_TSHARK is set (CI)."""

import os
import shutil
import subprocess

import pytest

import fabricsim

TSHARK = shutil.which("tshark")
if TSHARK is None and os.environ.get("FABRICSIM_REQUIRE_TSHARK"):
    raise RuntimeError("FABRICSIM_REQUIRE_TSHARK is set but tshark is not installed")
needs_tshark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (apt-get install tshark)")

FIELDS = ["frame.len", "ip.src", "ip.dst", "ip.len", "ip.dsfield.dscp", "ip.dsfield.ecn", "tcp.srcport", "tcp.dstport",
          "tcp.seq", "tcp.ack", "tcp.len", "tcp.flags", "tcp.window_size_value", "tcp.options.sack_le", "tcp.options.sack_re",
          "tcp.options.wscale.shift", "frame.time_epoch"]


def tshark(path):
    out = subprocess.run([TSHARK, "-r", str(path), "-o", "tcp.relative_sequence_numbers:FALSE", "-T", "fields", "-E", "separator=|",
                          *sum((["-e", f] for f in FIELDS), [])], capture_output=True, text=True, check=True).stdout
    return [dict(zip(FIELDS, line.split("|"))) for line in out.splitlines()]


def scenario():
    # DCTCP into a 12-packet buffer marked at 4: marks (CE), drops and so SACK blocks; flow 1
    # opens with SYN / SYN-ACK and sends class-2 packets; flow 2 ends with FIN.
    return {"simulation": {"end": "20ms", "stop_when_done": True},
            "topology": {"kind": "star", "hosts": 4, "link": {"rate": "10Gbps", "delay": "2us"}},
            "queue": {"buffer": "12pkt", "discipline": "ecn", "ecn_threshold": "4pkt"},
            "transport": {"cc": "dctcp", "min_rto": "1ms", "initial_cwnd": 20},
            "transports": {"hs": {"cc": "dctcp", "handshake": True, "class": 2}},
            "flows": [{"src": "h1", "dst": "h0", "size": "300KB"},
                      {"src": "h2", "dst": "h0", "size": "200KB", "transport": "hs"},
                      {"src": "h3", "dst": "h0", "size": "150KB"}],
            "output": {"pcap": {"ports": ["s0->h0"], "hosts": ["h1", "h2"]}}}


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    d = tmp_path_factory.mktemp("pcap")
    res = fabricsim.run(scenario(), progress=False)
    files = res.write_pcap(d)
    return res, {f.stem: f for f in files}


def test_capture_costs_nothing_in_results():
    # The same run without a capture gives the same flows (the tap only reads).
    a = fabricsim.run(scenario(), progress=False).flows
    doc = scenario()
    del doc["output"]
    b = fabricsim.run(doc, progress=False).flows
    assert a.drop(columns=[]).equals(b)


def test_bad_capture_keys_are_named():
    doc = scenario()
    doc["output"]["pcap"] = {"ports": ["s0->h9"], "hosts": ["s0"], "flows": [7], "from": "2ms", "until": "1ms"}
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.validate(doc)
    msg = str(e.value)
    for key in ("output.pcap.ports[0]: 's0->h9' is not a port", "output.pcap.hosts[0]: 's0' is not a host",
                "output.pcap.flows[0]: there is no flow 7", "output.pcap.until"):
        assert key in msg, msg


@needs_tshark
def test_tshark_reads_the_switch_port_as_the_port_table_counts_it(traced):
    res, files = traced
    rows = tshark(files["s0_to_h0"])
    port = res.port("s0->h0")
    assert len(rows) == port["tx_packets"]                     # every packet the port sent
    assert sum(int(r["frame.len"]) - 14 for r in rows) == port["tx_bytes"]   # frame = Ethernet + the packet
    assert sum(r["ip.dsfield.ecn"] == "3" for r in rows) == port["ecn_marks"] > 0   # CE, as counted
    assert all(r["ip.len"] == str(int(r["frame.len"]) - 14) for r in rows)


@needs_tshark
def test_tshark_sees_each_senders_segments_as_the_flow_table_reports_them(traced):
    res, files = traced
    flows = res.flows.set_index("id")
    for host, fid in (("h1", 0), ("h2", 1)):
        rows = tshark(files[host])
        me = f"10.0.0.{int(host[1:]) + 1}"
        data = [r for r in rows if r["ip.src"] == me and r["tcp.len"] not in ("", "0")]
        acks = [r for r in rows if r["ip.dst"] == me]
        size = int(flows.loc[fid, "size"])
        # Sequence numbers: byte k is 1 + k; the highest byte sent is the flow's size.
        ends = [int(r["tcp.seq"]) + int(r["tcp.len"]) - 1 for r in data]
        assert max(ends) == size
        seen, retx = set(), 0
        for r in data:
            retx += r["tcp.seq"] in seen
            seen.add(r["tcp.seq"])
        assert retx == flows.loc[fid, "retransmits"]
        assert len(data) == flows.loc[fid, "segments_sent"]          # the SYN is not a data segment
        # The FIN rides the last new segment; the last ACK covers every byte.
        fin = [r for r in data if int(r["tcp.flags"], 16) & 0x01]
        assert fin and max(int(r["tcp.seq"]) + int(r["tcp.len"]) for r in fin) == size + 1
        assert max(int(r["tcp.ack"]) for r in acks) == size + 1
        # DSCP is the packet's class; data packets are ECN-capable (DCTCP), ACKs not.
        assert {r["ip.dsfield.dscp"] for r in data} == {"2" if fid == 1 else "0"}
        assert {r["ip.dsfield.ecn"] for r in data} <= {"2", "3"}
        # ECE on ACKs echoes the marks the receiver saw.
        assert any(int(r["tcp.flags"], 16) & 0x40 for r in acks)
        # Times are ordered; ACKs arrive after the data they acknowledge started.
        t = [float(r["frame.time_epoch"]) for r in rows]
        assert t == sorted(t)


@needs_tshark
def test_tshark_decodes_syn_window_scale_and_sack_blocks(traced):
    res, files = traced
    rows = tshark(files["h2"])
    syn = [r for r in rows if int(r["tcp.flags"], 16) & 0x02]
    assert [int(r["tcp.flags"], 16) for r in syn] == [0x02, 0x12]      # SYN out, SYN-ACK back
    assert all(r["tcp.options.wscale.shift"] == "7" for r in syn) and syn[0]["tcp.seq"] == "0"
    # SACK blocks as the simulator wrote them (packets table), edges + 1: flow 0 (h1) lost packets.
    rows = tshark(files["h1"])
    pk = res.packets
    mine = pk[(pk["port"] == "s0->h1") & (pk["sack_count"] > 0)]
    sacks = [r for r in rows if r["tcp.options.sack_le"]]
    assert len(sacks) == len(mine) > 0
    for r, (_, p) in zip(sacks, mine.iterrows()):
        le = [int(x) for x in r["tcp.options.sack_le"].split(",")]
        re_ = [int(x) for x in r["tcp.options.sack_re"].split(",")]
        n = int(p["sack_count"])
        assert le == [int(p[f"sack{i + 1}_left"]) + 1 for i in range(n)]
        assert re_ == [int(p[f"sack{i + 1}_right"]) + 1 for i in range(n)]
        assert int(r["tcp.ack"]) == int(p["ack"]) + 1


@needs_tshark
def test_cli_pcap_with_flow_and_time_filters(tmp_path):
    import json
    import sys

    f = tmp_path / "s.toml"
    f.write_text('[simulation]\nend = "5ms"\n[topology]\nkind = "star"\nhosts = 3\nlink = { rate = "10Gbps", delay = "1us" }\n'
                 '[[flows]]\nsrc = "h1"\ndst = "h0"\nsize = "500KB"\n[[flows]]\nsrc = "h2"\ndst = "h0"\nsize = "500KB"\n')
    out = tmp_path / "run"
    p = subprocess.run([sys.executable, "-m", "fabricsim", "run", str(f), "-o", str(out), "--no-progress", "--pcap", "s0->h0",
                        "--pcap-flows", "1", "--pcap-window", "100us,200us"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rows = tshark(out / "pcap" / "s0_to_h0.pcap")
    assert rows and {r["ip.src"] for r in rows} == {"10.0.0.3"}     # h2's flow only
    t = [float(r["frame.time_epoch"]) for r in rows]
    assert 100e-6 <= min(t) and max(t) < 200e-6
    assert json.loads((out / "summary.json").read_text())["pcap_packets"] == len(rows)


@needs_tshark
def test_other_transports_are_udp_with_the_documented_header(tmp_path):
    # A hand-made packet of a non-TCP transport (a Homa/NDP-style grant, class 1, trimmed).
    import pandas as pd

    from fabricsim import pcap

    row = {"time_ps": 1_000_000, "arrive_ps": 2_000_000, "port": "s0->h0", "flow": 7, "src": 2, "dst": 0, "size": 64,
           "class": 1, "ecn": 0, "kind": 4, "trimmed": True, "lost": False, "tcp": False, "seq": 0, "ack": 0, "len": 0,
           "window": 0, "flags": 0, "sack_count": 0, "rank": 123456, **{f"sack{i}_{e}": 0 for i in (1, 2, 3) for e in ("left", "right")}}
    pcap.write(pd.DataFrame([row]), tmp_path / "u.pcap")
    out = subprocess.run([TSHARK, "-r", str(tmp_path / "u.pcap"), "-T", "fields", "-E", "separator=|", "-e", "ip.src", "-e", "ip.dst",
                          "-e", "udp.srcport", "-e", "udp.dstport", "-e", "udp.length", "-e", "ip.dsfield.dscp", "-e", "data.data",
                          "-e", "frame.time_epoch"], capture_output=True, text=True, check=True).stdout.strip().split("|")
    assert out[:6] == ["10.0.0.3", "10.0.0.1", "5001", "10007", "44", "1"]   # control goes receiver-port -> flow port
    data = bytes.fromhex(out[6].replace(":", ""))
    assert data[:4] == b"FSIM" and data[4:8] == bytes([4, 1, 1, 0])
    assert int.from_bytes(data[8:12], "big") == 7 and int.from_bytes(data[12:20], "big") == 123456
    assert float(out[7]) == pytest.approx(1e-6)
