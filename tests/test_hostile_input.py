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
