"""What researchers expect around the simulator (issue 20): CLI tables, offered load, host NIC vs
lossy host-link queues, workload import, per-flow series, pcap traces, the typed API."""

import pathlib
import subprocess
import sys

import pytest

import fabricsim
from fabricsim.cli import format_table
from fabricsim.scenario import load_scenario

ROOT = pathlib.Path(__file__).resolve().parent.parent


def cli(*args, check=True):
    p = subprocess.run([sys.executable, "-m", "fabricsim", *map(str, args)], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def star(hosts=8, **extra):
    doc = {"simulation": {"end": "1ms"}, "topology": {"kind": "star", "hosts": hosts, "link": {"rate": "10Gbps", "delay": "1us"}}}
    doc.update(extra)
    return doc


# --- item 5: tables sized to their values --------------------------------------------------------

def test_table_columns_never_run_together():
    lines = format_table(["port", "util", "sent", "drops"],
                         [["leaf10->spine3", "1.000", "12,345,678", "1,000,000"], ["s0->h0", "0.5", "1", "0"]])
    header, row = lines[0].split(), lines[1].split()
    assert header == ["port", "util", "sent", "drops"] and row == ["leaf10->spine3", "1.000", "12,345,678", "1,000,000"]
    # Right-aligned numbers end in the same column as their header.
    assert lines[1].index("1,000,000") + len("1,000,000") == lines[0].index("drops") + len("drops")


def test_run_report_utilization_is_defined_and_at_most_one(tmp_path):
    # A saturated port stopped mid-packet: 1500 B at 10 Gb/s = 1.2 us per packet, 1 ms ends inside one.
    doc = star(2, flows=[{"src": "h1", "dst": "h0"}], simulation={"end": "1000.5us"})
    res = fabricsim.run(doc, progress=False)
    u = res.port("h1->s0")["utilization"]
    assert 0.99 < u <= 1.0
    assert (res.ports["utilization"] <= 1.0).all()


# --- item 5: host NIC (backpressure) or lossy host-link queue -------------------------------------

def explicit(egress=None):
    link = {"a": "h1", "b": "s0", "rate": "10Gbps", "delay": "1us", "queue": {"buffer": "5pkt"}}
    if egress:
        link["host_egress"] = egress
    return {"simulation": {"end": "2ms"},
            "topology": {"kind": "explicit", "hosts": ["h0", "h1"], "switches": ["s0"],
                         "links": [link, {"a": "h0", "b": "s0", "rate": "1Gbps", "delay": "1us"}]},
            "transport": {"initial_cwnd": 40},
            "flows": [{"src": "h1", "dst": "h0", "size": "200KB"}]}


def test_a_host_link_queue_keeps_the_nic_backpressure_unless_asked_for_a_lossy_egress():
    # 40 segments at once into a 5-packet host queue: the NIC holds them (no drop) by default; a
    # lossy host-link queue drops at least 34 of the first window (one on the wire, 5 queued).
    nic = fabricsim.run(explicit(), progress=False).port("h1->s0")
    assert nic["drops"] == 0 and nic["max_queue_packets"] > 5
    lossy = fabricsim.run(explicit("lossy"), progress=False).port("h1->s0")
    assert lossy["drops"] >= 40 - 5 - 1 and lossy["max_queue_packets"] == 5
    with pytest.raises(fabricsim.ScenarioError, match=r"topology.links\[0\].host_egress: .*'drop'"):
        fabricsim.validate(explicit("drop"))


# --- item 4: offered load ------------------------------------------------------------------------

def test_offered_load_is_the_closed_form():
    many = star(workload=[{"cdf": "websearch", "load": 0.5, "pattern": "many_to_one", "receiver": "h0"}])
    lo = fabricsim.offered_load(many)
    assert lo["downlink"][0] == "s0->h0" and lo["downlink"][1] == pytest.approx(3.5)   # 7 senders x 0.5
    assert lo["core"] is None
    # Two workloads add up; a 2:1 oversubscribed leaf-spine sees the cross-rack share on its uplinks:
    # 2 leaves x 4 hosts, 1 spine link of 20 Gb/s per leaf, all-to-all 0.6: 0.6 x 40 x 4/7 / 20.
    ls = {"simulation": {"end": "1ms"}, "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 1, "hosts_per_leaf": 4,
                                                      "host_link": {"rate": "10Gbps", "delay": "1us"},
                                                      "core_link": {"rate": "20Gbps", "delay": "1us"}},
          "workload": [{"cdf": "websearch", "load": 0.4}, {"cdf": "datamining", "load": 0.2}]}
    lo = fabricsim.offered_load(ls)
    assert lo["core"][2] == pytest.approx(0.6 * 40 * 4 / 7 / 20)
    assert lo["downlink"][1] == pytest.approx(0.6)


def test_validate_and_topology_print_the_load_and_warn_above_one(tmp_path):
    f = tmp_path / "over.toml"
    f.write_text('[simulation]\nend = "1ms"\n[topology]\nkind = "star"\nhosts = 8\nlink = { rate = "10Gbps", delay = "1us" }\n'
                 '[[workload]]\ncdf = "websearch"\nload = 0.5\npattern = "many_to_one"\nreceiver = "h0"\n')
    for cmd in ("validate", "topology"):
        p = cli(cmd, f)   # a warning, not a failure
        assert "host downlink    3.500  s0->h0" in p.stdout
        assert "warning: the host downlink is offered 3.50x its capacity at s0->h0" in p.stdout
    p = cli("validate", f, "--set", "workload.0.load=0.1")
    assert "0.700" in p.stdout and "warning" not in p.stdout


def shipped_points():
    from fabricsim.sweep import Sweep

    for f in sorted((ROOT / "scenarios").glob("*.toml")):
        yield f.name, load_scenario(f), f.read_text()
    for f in sorted((ROOT / "scenarios" / "sweeps").glob("*.toml")):
        for p in Sweep.load(f).points():
            yield f"{f.name}:{p.key}", p.scenario, f.read_text()


def test_shipped_scenarios_and_sweeps_are_within_capacity_or_say_so():
    checked = 0
    for name, doc, text in shipped_points():
        lo = fabricsim.offered_load(doc)
        worst = max([lo["downlink"][1], lo["uplink"][1]] + ([lo["core"][2]] if lo["core"] else [])) if lo["downlink"] else 0
        checked += 1
        assert worst <= 1 or "overload is intended" in text, f"{name} offers {worst:.2f}x a link's capacity"
    assert checked > 50
