"""Bad scenarios at the command line: `fabricsim validate` and `fabricsim run` each give one line
naming the key and its value, exit 2, no traceback, and leave no results directory."""

import subprocess
import sys

import pytest

STAR = ('[simulation]\nend = "1ms"\n[topology]\nkind = "star"\nhosts = 3\n'
        'link = { rate = "10Gbps", delay = "1us" }\n')
FLOW = '[[flows]]\nsrc = "h1"\ndst = "h0"\nsize = 28960\n'


def refused(tmp_path, text: str, message: str):
    """Both commands refuse `text` with one line containing `message`, before any run."""
    f = tmp_path / "bad.toml"
    f.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    for args in (["validate", f], ["run", f, "-o", out]):
        p = subprocess.run([sys.executable, "-m", "fabricsim", *map(str, args)], capture_output=True, text=True)
        lines = p.stderr.strip().splitlines()
        assert p.returncode == 2, (args[0], p.returncode, p.stderr)
        assert len(lines) == 1 and message in lines[0] and "Traceback" not in p.stderr, (args[0], p.stderr)
    assert not out.exists(), "refused before the run"


def test_dctcp_without_cwr_on_ece_needs_window_cut(tmp_path):
    refused(tmp_path, STAR + '[transport]\ncc = "dctcp"\ncc_params = { cwr_on_ece = 0 }\n' + FLOW,
            "transport.cc_params: cwr_on_ece = 0 needs window_cut = 1")


SPLIT = ('[simulation]\nend = "2ms"\n[topology]\nkind = "explicit"\nhosts = ["a0", "a1", "b0", "b1"]\n'
         'switches = ["l0", "l1", "p0", "p1"]\nlinks = ['
         + ", ".join(f'{{ a = "{a}", b = "{b}", rate = "10Gbps", delay = "1us" }}'
                     for a, b in [("a0", "l0"), ("a1", "l0"), ("b0", "l1"), ("b1", "l1"), ("l0", "p0"), ("l0", "p1")])
         + "]\n")


def test_a_workload_across_a_split_leaf_spine_is_refused(tmp_path):
    # l1's uplinks failed: the engine used to panic creating the first flow across the split.
    refused(tmp_path, SPLIT + '[[workload]]\nsize = "3000B"\nload = 0.1\n',
            "workload[0]: 'a0' cannot reach 'b0' (no path through switches)")


LEAF_SPINE = ('[simulation]\nend = "1ms"\n[topology]\nkind = "leaf_spine"\nleaves = {l}\nspines = {s}\nhosts_per_leaf = {h}\n'
              'link = {{ rate = "10Gbps", delay = "1us" }}\n[[workload]]\nsize = "3000B"\nload = 0.1\n')


@pytest.mark.parametrize("text, message", [
    (STAR.replace('"10Gbps"', '"-10Gbps"') + FLOW, "topology.link.rate: '-10Gbps' is not a rate"),
    (STAR.replace('"10Gbps"', '"0Gbps"') + FLOW, "topology.link.rate: '0Gbps' is not a positive rate"),
    (STAR.replace('"10Gbps"', '"10Gbs"') + FLOW, "topology.link.rate: '10Gbs' is not a rate; try '10Gbps'"),
    (STAR.replace('"1us"', '"-1us"') + FLOW, "topology.link.delay: '-1us' is not a duration"),
    (STAR.replace('"1us"', '"100000000s"') + FLOW, "topology.link.delay: '100000000s' is longer than the 18446744 s"),
    (STAR.replace('"10Gbps"', '"100000000Tbps"') + FLOW, "topology.link.rate: '100000000Tbps' is above the largest rate"),
    (STAR.replace('"10Gbps"', '"1e30Gbps"') + FLOW, "topology.link.rate: '1e30Gbps' is not a rate; write the number without an exponent"),
    (STAR.replace('rate = "10Gbps"', "rate = inf") + FLOW, "topology.link.rate: inf is not a finite number"),
    (STAR.replace('end = "1ms"', "end = nan") + FLOW, "simulation.end: nan is not a finite number"),
    (STAR + FLOW.replace('dst = "h0"', 'dst = "h1"'), "flows[0].dst: 'h1' is also the source"),
    (STAR + FLOW.replace("size = 28960", "size = -5"), "flows[0].size: -5 is not a non-negative whole number"),
    (STAR.replace('kind = "star"\nhosts = 3', 'kind = "fat_tree"\nk = 5') + FLOW, "topology.k: 5 is not an even port count"),
    (STAR + FLOW + '[[faults]]\nport = "h1->s9"\ndrop_packets = [1]\n', "faults[0].port: 'h1->s9' is not a port"),
    (STAR + FLOW + "size = 5\n", "not valid TOML: Cannot overwrite a value"),
    (STAR + '[[workload]]\nsize = "3000B"\nload = nan\n', "workload[0].load: nan is not a finite number"),
    (STAR.replace("hosts = 3", "hosts = 4000000000") + FLOW, "topology.hosts: 4000000000 is more than the 1000000 hosts"),
    ('[simulation]\nend = "1ms"\n[topology]\nkind = "explicit"\nhosts = ["hôte-α", "b"]\nswitches = ["交换机"]\n'
     'links = [ { a = "hôte-α", b = "交换机", rate = "10Gbps", delay = "1us" }, { a = "b", b = "交换机", rate = "10Gbps", delay = "1us" } ]\n'
     '[[flows]]\nsrc = "hôte-α"\ndst = "bb"\nsize = 100\n', "flows[0].dst: 'bb' is not a host; did you mean 'b'?"),
    ('[simulation]\nend = "1ms"\n[topology]\nkind = "explicit"\nhosts = ["", "b"]\nswitches = ["s"]\n'
     'links = [ { a = "", b = "s", rate = "10Gbps", delay = "1us" }, { a = "b", b = "s", rate = "10Gbps", delay = "1us" } ]\n'
     '[[flows]]\nsrc = ""\ndst = "b"\nsize = 100\n', "topology.hosts: '' is not a usable name"),
    # 10^10 links: refused from the counts instead of being built until memory runs out.
    (LEAF_SPINE.format(l=100000, s=100000, h=1), "topology.leaves: 100000 leaves x 100000 spines x 1 hosts per leaf: 10000100000 links"),
    (LEAF_SPINE.format(l=100000, s=2, h=100), "10000000 hosts, more than the 1000000"),
    (STAR + '[transport]\ncc = "dctcp"\ncwr_exit = "ns3"\n' + FLOW, "transport.cwr_exit: 'ns3' is not known; expected one of: at, beyond"),
])
def test_hostile_scenarios_are_one_line_and_exit_2(tmp_path, text, message):
    refused(tmp_path, text, message)


def test_a_sweep_with_an_empty_axis_is_refused(tmp_path):
    (tmp_path / "base.toml").write_text(STAR + FLOW)
    sweep = tmp_path / "s.toml"
    sweep.write_text('name = "empty"\nbase = "base.toml"\n[axes]\n"topology.link.rate" = []\nseed = [1, 2]\n')
    p = subprocess.run([sys.executable, "-m", "fabricsim", "sweep", str(sweep), "-o", str(tmp_path / "out"), "--workers", "1", "--no-progress"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.strip().splitlines() == ["error: sweep 'empty': axes.topology.link.rate: [] is not a non-empty list of values"], p.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("transport, message", [
    ('handshake_ack = true\n', "transport.handshake_ack: true needs handshake = true"),
    ('prr_entry = "ns3"\n', 'transport.prr_entry: "ns3" needs prr = true'),
    ('prr_units = "bytes"\n', 'transport.prr_units: "bytes" needs prr = true'),
    ('prr_bound = "ns3-ssrb"\n', "transport.prr_bound: needs prr = true or prr_recovery = true"),
    ('prr_recovery = true\nsack = false\n', "transport.prr_recovery: true needs sack = true"),
    ('prr_cwr_acks = "advancing"\n', 'transport.prr_cwr_acks: "advancing" needs prr = true'),
    ('prr_bound = "ssrb"\nprr = true\n', "transport.prr_bound: 'ssrb' is not known; did you mean 'crb'? expected one of: crb, ns3-ssrb"),
])
def test_an_ns3_option_without_the_mechanism_it_changes_is_refused(tmp_path, transport, message):
    refused(tmp_path, STAR + '[transport]\ncc = "dctcp"\n' + transport + FLOW, message)


def test_a_scenario_with_thousands_of_problems_lists_the_first_and_counts_the_rest():
    # A generated scenario whose 3 000 flows all start after its end: the message names the
    # first 20 (one line: 5) and counts the others, instead of one line of every flow.
    import fabricsim
    from fabricsim.errors import LISTED_ON_ONE_LINE, LISTED_PROBLEMS
    doc = {"simulation": {"end": "1ms"}, "topology": {"kind": "star", "hosts": 2, "link": {"rate": "10Gbps", "delay": "1us"}},
           "flows": [{"src": "h1", "dst": "h0", "size": "10KB", "start": "2ms"}] * 3000}
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.validate(doc)
    assert len(e.value.issues) == 3000
    text = str(e.value)
    assert text.count("is not before the end of the simulation") == LISTED_PROBLEMS
    assert text.endswith(f"... and {3000 - LISTED_PROBLEMS} more")
    line = e.value.one_line()
    assert line.count("is not before") == LISTED_ON_ONE_LINE and line.endswith(f"... and {3000 - LISTED_ON_ONE_LINE} more problems")



def test_the_command_line_names_a_few_of_thousands_of_problems(tmp_path):
    f = tmp_path / "many.toml"
    f.write_text(STAR + ('[[flows]]\nsrc = "h1"\ndst = "h0"\nsize = 28960\nstart = "2ms"\n' * 3000))
    p = subprocess.run([sys.executable, "-m", "fabricsim", "validate", str(f)], capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.count("is not before the end of the simulation") == 20 and "... and 2980 more" in p.stderr, p.stderr[:500]
