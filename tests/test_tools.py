"""What researchers expect around the simulator (issue 20): CLI tables, offered load, host NIC vs
lossy host-link queues, workload import, per-flow series, pcap traces, the typed API."""

import pathlib
import subprocess
import sys

import pandas as pd
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


# --- item 3: workload import ---------------------------------------------------------------------

def write_scenario(tmp_path, imp, hosts=4):
    f = tmp_path / "s.toml"
    f.write_text(f'[simulation]\nend = "5ms"\n[topology]\nkind = "star"\nhosts = {hosts}\nlink = {{ rate = "10Gbps", delay = "1us" }}\n'
                 f'[transports.hi]\ncc = "dctcp"\n[[import]]\n{imp}\n')
    return f


def test_a_csv_flow_list_becomes_the_flows_it_says(tmp_path):
    (tmp_path / "flows.csv").write_text("src,dst,size,start,priority,transport,deadline\n"
                                        "h1,h0,100000,0us,,,\n"
                                        "2,h0,20KB,15us,3,hi,2ms\n"
                                        "h3,1,,1ms,,,\n")
    res = fabricsim.run(write_scenario(tmp_path, 'file = "flows.csv"'), progress=False)
    f = res.flows
    assert list(f["src"]) == ["h1", "h2", "h3"] and list(f["dst"]) == ["h0", "h0", "h1"]
    assert list(f["size"].astype("object")) == [100000, 20000, pd.NA] or (f["size"].iloc[:2].tolist() == [100000, 20000] and pd.isna(f["size"].iloc[2]))
    assert f["start_ps"].tolist() == [0, 15_000_000, 1_000_000_000]
    assert f["transport"].tolist()[1] == "hi" and f["cc"].tolist()[1] == "dctcp"
    assert f["deadline_ps"].iloc[1] == 2_000_000_000 and pd.isna(f["deadline_ps"].iloc[0])
    assert f["fct_s"].iloc[:2].notna().all()


def test_a_flow_list_priority_is_the_packets_class(tmp_path):
    # Class 3 packets on a 4-queue port land in queue 3 (the per-queue table counts them there).
    (tmp_path / "flows.csv").write_text("src,dst,size,start_us,priority\nh1,h0,30000,0,3\n")
    f = write_scenario(tmp_path, 'file = "flows.csv"')
    f.write_text(f.read_text() + '[queue]\nqueues = 4\n')
    q = fabricsim.run(f, progress=False).queues
    row = q[(q["port"] == "s0->h0")].set_index("queue")["enqueued"]
    assert row[3] > 0 and row[0] == 0


def test_a_parquet_flow_list_reads_like_the_csv(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"src": ["h1", "h2"], "dst": ["h0", "h0"], "size": [1000, 2000], "start_us": [0.0, 2.5]}), tmp_path / "f.parquet")
    res = fabricsim.run(write_scenario(tmp_path, 'file = "f.parquet"'), progress=False)
    assert res.flows["size"].tolist() == [1000, 2000] and res.flows["start_ps"].tolist() == [0, 2_500_000]


def test_an_htsim_connection_matrix_is_read_as_htsim_reads_it(tmp_path):
    (tmp_path / "incast.cm").write_text("Nodes 4\nConnections 3\n# a comment\n1->0 id 1 start 0 size 5000\n"
                                        "2->0 id 2 start 1000000 size 5000\n3->0 id 3 start 2000000 size 5000 prio 2\n")
    res = fabricsim.run(write_scenario(tmp_path, 'file = "incast.cm"'), progress=False)
    f = res.flows
    assert f["src"].tolist() == ["h1", "h2", "h3"] and set(f["dst"]) == {"h0"}
    assert f["start_ps"].tolist() == [0, 1_000_000, 2_000_000] and f["size"].tolist() == [5000] * 3


@pytest.mark.parametrize("name,text,expect", [
    ("f.csv", "src,dst,size,start\nh1,h0,1000,0us\nh1,h9,1000,0us\n", "f.csv line 3: dst: 'h9' is not a host"),
    ("f.csv", "src,dst,size,start\nh1,h0,12XB,0us\n", "f.csv line 2: size:"),
    ("f.csv", "src,dst,size,start\nh1,h0,1000,5\n", "f.csv line 2: start: '5' has no unit"),
    ("f.csv", "src,dst,size,start,colour\nh1,h0,1000,0us,red\n", "f.csv header: colour: unknown column"),
    ("f.csv", "src,dst,start\nh1,h0,0us\n", "f.csv header: size: missing column"),
    ("f.csv", "src,dst,size,start\nh1,h0,1000,0us,extra\n", "f.csv line 2: has 5 fields, the header 4"),
    ("f.csv", "src,dst,size,start,priority\nh1,h0,1000,0us,9\n", "f.csv line 2: priority: 9 is not a class"),
    ("f.csv", "src,dst,size,start\nh1,7,1000,0us\n", "f.csv line 2: dst: host index 7 is beyond the topology's 4 hosts"),
    ("f.cm", "Nodes 4\nConnections 2\n1->0 start 0 size 10\n", "Connections: says 2, the file has 1"),
    ("f.cm", "Nodes 4\nConnections 1\n1->0 start 0 size 10 trigger 3\n", "f.cm line 3: trigger: htsim triggers"),
    ("f.cm", "Nodes 4\nConnections 1\n1->0 size 10\n", "f.cm line 3: start: missing"),
    ("f.cm", "Nodes 4\nConnections 1\n1->0 start 0 size 10 colour 3\n", "f.cm line 3: colour: unknown"),
    ("f.cm", "Nodes 9\nConnections 1\n1->0 start 0 size 10\n", "Nodes: 9 nodes, but the topology has 4 hosts"),
    ("f.txt", "x", "cannot tell the format of 'f.txt'"),
])
def test_bad_flow_lists_are_named_by_line_key_and_value(tmp_path, name, text, expect):
    (tmp_path / name).write_text(text)
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.validate(write_scenario(tmp_path, f'file = "{name}"'))
    assert expect in str(e.value)


def test_flow_list_errors_on_the_command_line_are_one_error_each(tmp_path):
    p = cli("run", write_scenario(tmp_path, 'file = "nope.csv"'), "-o", tmp_path / "out", check=False)
    assert p.returncode == 2 and "no flow list at" in p.stderr and not (tmp_path / "out").exists()
    (tmp_path / "f.csv").write_text("src,dst,size,start\nh1,h0,1000,0us\nh1,h9,1000,0us\n")
    p = cli("validate", write_scenario(tmp_path, 'file = "f.csv"'), check=False)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "f.csv line 3: dst: 'h9' is not a host; did you mean 'h0'?" in p.stderr or "f.csv line 3: dst: 'h9' is not a host" in p.stderr


# --- item 2: per-flow series ---------------------------------------------------------------------

def two_flows(**output):
    # Two DCTCP flows through one 10 Gb/s port (h1, h2 -> h0), 2 us links: idle-path RTT 4 x 2 us
    # + 2 x 1.2 us for a full packet (+ the ACK's 2 x 0.04 us); the queue is marked at 20 packets.
    return {"simulation": {"end": "4ms"},
            "topology": {"kind": "star", "hosts": 3, "link": {"rate": "10Gbps", "delay": "2us"}},
            "queue": {"buffer": "100pkt", "discipline": "ecn", "ecn_threshold": "20pkt"},
            "transport": {"cc": "dctcp"},
            "flows": [{"src": "h1", "dst": "h0"}, {"src": "h2", "dst": "h0", "size": "1MB"}],
            "output": {"sample_interval": "50us", "flows": "all", "queues": ["s0->h0"], **output}}


def test_per_flow_series_add_up_to_the_link_and_match_the_flow_table():
    res = fabricsim.run(two_flows(), progress=False)
    fs = res.flow_series()
    assert set(fs["flow"]) == {0, 1} and {"delivered_bytes", "goodput_gbps", "srtt_s", "rate_bps"} <= set(fs.columns)
    # Delivered bytes only grow, and end where the flow table does (the 1 MB flow finished).
    for f, g in fs.groupby("flow"):
        assert g["delivered_bytes"].is_monotonic_increasing
        assert g["delivered_bytes"].iloc[-1] == res.flows.loc[f, "bytes_acked"]
    assert fs[fs.flow == 1]["delivered_bytes"].iloc[-1] == 1_000_000
    # Once flow 1 is done, flow 0 alone fills the link: 10 Gb/s x 1448/1500 of payload.
    late = fs[(fs.flow == 0) & (fs.time_s > 3e-3)]["goodput_gbps"]
    assert late.mean() == pytest.approx(10 * 1448 / 1500, rel=0.02)
    # Smoothed RTT between the idle-path RTT and that plus a full queue (100 x 1.2 us).
    base = 4 * 2e-6 + 2 * 1.2e-6
    rtt = fs["srtt_s"].dropna()
    assert len(rtt) >= len(fs) - 2 and ((rtt > base * 0.99) & (rtt < base + 100 * 1.2e-6)).all()


def test_per_flow_series_need_an_interval_and_valid_flows():
    doc = two_flows()
    doc["output"] = {"flows": [5], "sample_interval": "10us"}
    with pytest.raises(fabricsim.ScenarioError, match=r"output.flows\[0\]: there is no flow 5"):
        fabricsim.validate(doc)
    doc["output"] = {"flows": [1]}
    with pytest.raises(fabricsim.ScenarioError, match="output.sample_interval: missing"):
        fabricsim.validate(doc)


def test_class_queue_series_show_strict_priority(tmp_path):
    # Flow 0 in class 0, flow 1 in class 1, strict priority: the low class holds the backlog.
    doc = two_flows()
    doc["flows"][0]["priority"] = 0
    doc["flows"][1]["priority"] = 1
    doc["flows"][1].pop("size")
    doc["queue"] = {"buffer": "100pkt", "queues": 2}
    doc["transport"] = {"cc": "newreno"}
    res = fabricsim.run(doc, progress=False)
    cq = res.class_queues()
    m = cq[cq.port == "s0->h0"].groupby("queue")["packets"].mean()
    assert m[1] > 10 * max(m[0], 0.1)
    res.save(tmp_path / "r")
    assert (tmp_path / "r" / "class_queues.parquet").exists() and (tmp_path / "r" / "flow_series.parquet").exists()
    p = cli("plot", tmp_path / "r")
    assert "flows.png" in p.stdout and "class_queues.png" in p.stdout


# --- item 7: the web-search discrepancy is stated where users read about workloads ---------------

def test_websearch_share_below_100kb_is_what_the_docs_say():
    # Linear reading of the shipped table at 100 KB, computed here from its text.
    from fabricsim import _engine

    pts = [tuple(map(float, line.split())) for line in _engine.builtin_workload_text("websearch").splitlines()
           if line.strip() and not line.startswith("#")]
    below = max((s, p) for s, p in pts if s <= 100_000)
    above = min((s, p) for s, p in pts if s >= 100_000)
    share = below[1] + (above[1] - below[1]) * (100_000 - below[0]) / (above[0] - below[0])
    assert share == pytest.approx(0.544, abs=0.0005)
    doc = (ROOT / "docs" / "SCENARIOS.md").read_text()
    assert "54 %, not 62 %, of flows are ≤ 100 KB" in doc and "0.544" in doc


def test_docs_cite_only_what_a_reader_has():
    missing = ["DESIGN.md", "tcp-family.md", "dc-transports.md", "PAPERS.md"]
    for base in ("docs", "crates/engine/src", "crates/py/src", "python/fabricsim", "scenarios"):
        for f in (ROOT / base).rglob("*"):
            if f.suffix in (".md", ".rs", ".py", ".toml", ".pyi"):
                text = f.read_text(errors="replace")
                for m in missing:
                    assert m not in text, f"{f} cites {m}, which is not in the repository"


# --- item 6: typed API ---------------------------------------------------------------------------

def test_engine_stubs_cover_the_compiled_module():
    import ast

    from fabricsim import _engine

    tree = ast.parse((ROOT / "python" / "fabricsim" / "_engine.pyi").read_text())
    funcs = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Simulation")
    methods = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    public = {n for n in dir(_engine) if not n.startswith("_")}
    assert public - {"Simulation"} == funcs
    assert {n for n in dir(_engine.Simulation) if not n.startswith("_")} == methods - {"__init__"}
    assert (ROOT / "python" / "fabricsim" / "py.typed").exists()


def test_every_public_function_has_a_docstring_with_an_example():
    import inspect

    from fabricsim import analysis, pcap, plots, traffic

    missing = []
    for name in fabricsim.__all__:
        obj = getattr(fabricsim, name)
        if (inspect.isfunction(obj) or obj is fabricsim.Results) and ">>>" not in (obj.__doc__ or ""):
            missing.append(name)
    for n, m in vars(fabricsim.Results).items():
        f = m.__func__ if isinstance(m, (classmethod, staticmethod)) else m
        if not n.startswith("_") and inspect.isfunction(f) and ">>>" not in (f.__doc__ or ""):
            missing.append(f"Results.{n}")
    for mod in (analysis, plots, traffic, pcap):
        for n, f in inspect.getmembers(mod, inspect.isfunction):
            if f.__module__ == mod.__name__ and not n.startswith("_") and ">>>" not in (f.__doc__ or ""):
                missing.append(f"{mod.__name__}.{n}")
    assert not missing, missing


def test_results_summarize_themselves_in_a_notebook():
    res = fabricsim.run(two_flows(), progress=False)
    text = repr(res)
    assert text.startswith("Results 'scenario', seed 1: 4 ms simulated") and "2 finished" not in text
    assert "flows   2, 1 finished" in text and "busiest s0->h0" in text and "delivered_bytes" in text
    html = res._repr_html_()
    assert html.startswith("<div>") and "<table>" in html and "s0-&gt;h0" in html


def test_b8_is_b4s_permutation_at_scale_and_validates_without_building_routes():
    from fabricsim import bench

    # At k = 12 the generator gives B4 itself (same settings, same derangement), so B8 at k = 32
    # and 48 is B4's experiment at those sizes.
    b4 = fabricsim.load_scenario(pathlib.Path(bench.HERE) / "fattree-permutation.toml")
    d = bench.fattree_permutation(12, "210ms")
    assert {k: v for k, v in d.items() if k != "name"} == {k: v for k, v in b4.items() if k != "name"}
    k32 = bench.fattree_k32()
    assert len(k32["flows"]) == 8192 and all(f["src"] != f["dst"] for f in k32["flows"])
    assert sorted(int(f["dst"][1:]) for f in k32["flows"]) == list(range(8192))
    assert bench.resolve("B8") == "fattree-k32" and not bench.BENCHMARKS["fattree-k48"].default
    # 8 192 hosts used to be refused by a count of nodes x hosts; validation now checks
    # reachability on the switch graph instead of building the forwarding tables.
    fabricsim.validate(k32)
