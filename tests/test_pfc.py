"""PFC (`[pfc]`) from the user's side: the port columns, saved results, errors at the command line."""

import subprocess
import sys

import pytest

import fabricsim


def incast_doc(pfc: dict | None) -> dict:
    doc = {
        "simulation": {"end": "1ms"},
        "topology": {"kind": "star", "hosts": 3, "link": {"rate": "10Gbps", "delay": "1us"}},
        "queue": {"buffer": "unlimited"},
        "transport": {"mss": 1448, "header": 52, "initial_cwnd": 20},
        "flows": [{"src": "h1", "dst": "h0", "size": 28960}, {"src": "h2", "dst": "h0", "size": 28960}],
    }
    if pfc is not None:
        doc["pfc"] = pfc
    return doc


def test_pfc_columns_count_pauses_and_paused_time(tmp_path):
    res = fabricsim.run(incast_doc({"xoff": "4pkt", "xon": "2pkt"}), progress=False)
    # The engine's hand-computed case (switch/pfc.rs): h2's NIC is paused from 10.4 to 22.4 us first.
    h2 = res.port("h2->s0")
    assert h2["pfc_pauses"] >= 1 and h2["pfc_paused_s"] >= 12e-6 - 1e-15
    assert res.port("s0->h0")["pfc_pauses"] == 0, "hosts do not pause"
    assert int(res.ports["drops"].sum()) == 0 and res.flows["fct_s"].notna().all()
    assert "pfc" in str(res) and "longest paused" in str(res)
    res.save(tmp_path / "r")
    back = fabricsim.Results.load(tmp_path / "r")
    assert list(back.ports["pfc_pauses"]) == list(res.ports["pfc_pauses"])


def test_the_summary_names_no_port_when_none_paused():
    # One sender never fills s0: PFC is on but nothing pauses.
    doc = incast_doc({"xoff": "4pkt", "xon": "2pkt"})
    doc["flows"] = doc["flows"][:1]
    res = fabricsim.run(doc, progress=False)
    assert int(res.ports["pfc_pauses"].sum()) == 0
    line = next(ln for ln in str(res).splitlines() if ln.strip().startswith("pfc"))
    assert "0 pauses: no port was paused" in line and "longest" not in line and "->" not in line, line


def test_without_pfc_the_port_table_has_no_pfc_columns():
    res = fabricsim.run(incast_doc(None), progress=False)
    assert "pfc_pauses" not in res.ports and "pfc_paused_s" not in res.ports and "longest paused" not in str(res)


def toml(pfc: str, buffer: str, queue: str = "", flow: str = "") -> str:
    return (f'[simulation]\nend = "1ms"\n[topology]\nkind = "star"\nhosts = 3\nlink = {{ rate = "10Gbps", delay = "1us" }}\n'
            f'[queue]\nbuffer = "{buffer}"\n{queue}\n[pfc]\n{pfc}\n[[flows]]\nsrc = "h1"\ndst = "h0"\nsize = 28960\n{flow}')


@pytest.mark.parametrize("pfc, buffer, message", [
    ('xoff = "4pkt"\nxon = "5pkt"', "unlimited", "pfc.xon: 5pkt is above xoff (4pkt)"),
    ('xoff = "-4KB"\nxon = "2KB"', "unlimited", "pfc.xoff: "),
    ('xon = "2pkt"', "unlimited", "pfc.xoff: "),
    ('xoff = "4pkt"\nxon = "2pkt"\nxoff_bytes = 3', "unlimited", "pfc.xoff_bytes: "),
    ('xoff = "4pkt"\nxon = "2pkt"', "100pkt", "pfc: a PFC fabric does not drop, but port s0->h0 has a 100pkt buffer"),
    ('xoff = "4pkt"\nxon = "2pkt"', "unlimited|random_drop = { above = \"4pkt\", probability = 0.5 }",
     "pfc: a PFC fabric does not drop, but port s0->h0 has random_drop; remove it or set random_drop = \"off\""),
    ('xoff = "4pkt"\nxon = "2KB"', "unlimited", "pfc.xon: 2000B is in bytes but xoff (4pkt) in packets"),
    ('xoff = "4pkt"\nxon = "2pkt"', "unlimited|queues = 2\nadmission = \"trim\"", "pfc: not with trimming queues (port s0->h0 has admission = \"trim\")"),
    ('xoff = "4pkt"\nxon = "2pkt"', "unlimited|queues = 2\nclasses = [0, 1]\nadmission = \"trim\"|transport = \"ndp\"\n",
     "pfc: not with NDP (transport 'ndp')"),
])
def test_bad_pfc_settings_are_one_line_and_exit_2(tmp_path, pfc, buffer, message):
    f = tmp_path / "bad.toml"
    # "buffer|more [queue] lines|more [[flows]] lines"
    f.write_text(toml(pfc, *buffer.split("|")))
    for args in (["validate", f], ["run", f, "-o", tmp_path / "out"]):
        p = subprocess.run([sys.executable, "-m", "fabricsim", *map(str, args)], capture_output=True, text=True)
        assert p.returncode == 2, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1 and message in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert not (tmp_path / "out").exists(), "refused before the run"
