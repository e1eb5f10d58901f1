"""Source-chosen paths (`[routing] paths`) from the command line: bad settings are one-line errors
before the run (exit 2), and a pinned flow's `path` and `return_path` are honoured end to end."""

import subprocess
import sys


def fabricsim(*args):
    return subprocess.run([sys.executable, "-m", "fabricsim", *map(str, args)], capture_output=True, text=True)


FAT_TREE = """
[simulation]
end = "1ms"
[topology]
kind = "fat_tree"
k = 4
link = { rate = "10Gbps", delay = "1us" }
[routing]
paths = "flow"
[[flows]]
src = "h0"
dst = "h15"
size = "20KB"
path = 3
"""


def test_bad_paths_settings_exit_2_with_the_key(tmp_path):
    doc = tmp_path / "ft.toml"
    doc.write_text(FAT_TREE)
    for sets, says in [(["routing.paths=perm"], "routing.paths: 'perm'"),
                       (["routing.paths=random"], "flows[0].path: 3 pins the flow to a path, which needs [routing] paths = \"flow\""),
                       (["routing.ecmp=packet_spray"], "routing.paths: 'flow' has the sources choose the paths"),
                       (["flows.0.return_path=-2"], "flows[0].return_path"),
                       (["routing.paths=random", "flows.0.return_path=1"],
                        "flows[0].return_path: 1 pins the flow's return direction to a path")]:
        p = fabricsim("validate", doc, *[a for s in sets for a in ("--set", s)])
        assert p.returncode == 2, p.stderr
        assert says in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_a_pinned_flow_takes_its_path(tmp_path):
    # Index 3 between pods of a k = 4 fat tree: edge0_0 -> agg0_1 (3 mod 2), then agg0_1's
    # uplink 3 div 2 = 1, core 3; nothing on agg0_0's side.
    doc = tmp_path / "ft.toml"
    doc.write_text(FAT_TREE)
    from fabricsim.runner import run
    ports = run(str(doc), progress=False).ports.set_index("port")["tx_packets"]
    assert ports["edge0_0->agg0_1"] > 0 and ports["agg0_1->core3"] > 0
    assert ports["edge0_0->agg0_0"] == 0 and ports["agg0_1->core2"] == 0


def test_a_return_path_takes_the_acks_apart(tmp_path):
    # Data on index 3 (core 3, as above), ACKs on index 0: h15 -> edge3_1 -> agg3_0 (0 mod 2)
    # -> its uplink 0 div 2 = 0, core 0 -> agg0_0 -> edge0_0; nothing comes back through core 3.
    doc = tmp_path / "ft.toml"
    doc.write_text(FAT_TREE + "return_path = 0\n")
    from fabricsim.runner import run
    ports = run(str(doc), progress=False).ports.set_index("port")["tx_packets"]
    assert ports["agg0_1->core3"] > 0 and ports["core3->agg3_1"] > 0
    assert ports["edge3_1->agg3_0"] > 0 and ports["agg3_0->core0"] > 0 and ports["core0->agg0_0"] > 0
    assert ports["agg3_1->core3"] == 0 and ports["core3->agg0_1"] == 0
