"""The adversarial corpus of issue 22: each bad input is refused before t = 0 with one line naming
the key, each damaged or mixed results directory is refused on load, and what runs is right."""

import copy
import json
import os
import shutil

import pandas as pd
import pytest

import fabricsim
from fabricsim.cli import main
from fabricsim.errors import FabricsimError, ResultsError, ScenarioError
from fabricsim.results import Results


def small():
    return {
        "name": "small",
        "simulation": {"end": "1ms", "seed": 1},
        "topology": {"kind": "star", "hosts": 2, "link": {"rate": "10Gbps", "delay": "1us"}},
        "flows": [{"src": "h1", "dst": "h0", "size": "20KB"}],
    }


def write_toml(path, text):
    path.write_text(text)
    return path


SMALL_TOML = """
name = "small"
[simulation]
end = "1ms"
[topology]
kind = "star"
hosts = 2
link = { rate = "10Gbps", delay = "1us" }
[[flows]]
src = "h1"
dst = "h0"
size = "20KB"
"""


def cli(capsys, *args):
    """Run the CLI in this process; returns (exit code, stdout, stderr)."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    """The one `error: ...` line of stderr (progress notes may precede it), and no traceback."""
    lines = [ln for ln in err.splitlines() if ln.startswith("error: ")]
    assert len(lines) == 1 and "Traceback" not in err and not err.rstrip().splitlines()[-1].startswith(" "), err
    return lines[0]


def refused(doc, key):
    with pytest.raises(ScenarioError) as e:
        fabricsim.validate(doc)
    keys = [p for p, _ in e.value.issues]
    assert key in keys, e.value
    return dict(e.value.issues)[key]


# -- inputs refused before t = 0, with the key named -------------------------------------------

def test_seeds_beyond_64_bits_are_refused_not_clamped(tmp_path, capsys):
    d = small()
    d["simulation"]["seed"] = 2**64
    assert "2^64 - 1" in refused(d, "simulation.seed")
    d["simulation"]["seed"] = 2**64 - 1
    fabricsim.validate(d)
    # In a TOML file too (tomllib reads 2^64 as a Python int).
    p = write_toml(tmp_path / "s.toml", SMALL_TOML.replace('end = "1ms"', 'end = "1ms"\nseed = 18446744073709551616'))
    code, _, err = cli(capsys, "validate", p)
    assert code == 2 and "simulation.seed: 18446744073709551616 is out of range" in err
    # --seed: one line from argparse, no OverflowError.
    with pytest.raises(SystemExit) as e:
        main(["run", str(p), "--seed", str(2**64)])
    assert e.value.code == 2
    assert "seeds are 0 .. 2^64 - 1" in capsys.readouterr().err
    with pytest.raises(ScenarioError, match=r"seed: -1 is not a seed"):
        fabricsim.run(small(), seed=-1)


def test_a_flow_size_results_cannot_hold_is_refused_before_running():
    d = small()
    d["flows"][0]["size"] = 2**63 - 1
    assert "53 days" in refused(d, "flows[0].size")
    d["flows"][0]["size"] = 2**63
    assert "2^63 - 1" in refused(d, "flows[0].size")


def test_nan_and_inf_name_their_key():
    d = small()
    d["topology"]["link"]["loss_rate"] = float("nan")
    assert refused(d, "topology.link.loss_rate") == "nan is not a finite number"
    d = small()
    d["flows"][0]["size"] = float("inf")
    assert refused(d, "flows[0].size") == "inf is not a finite number"
    # Through --set as well.
    with pytest.raises(ScenarioError, match=r"topology\.link\.loss_rate: nan is not a finite number"):
        fabricsim.validate(small(), ["topology.link.loss_rate=nan"])


def test_a_float_end_suggests_seconds():
    d = small()
    d["simulation"]["end"] = 0.002
    assert "'2ms' if 0.002 is in seconds" in refused(d, "simulation.end")


def test_sampling_every_picosecond_is_refused_against_the_memory_budget():
    d = small()
    d["output"] = {"sample_interval": "1ps", "queues": ["s0->h0"]}
    msg = refused(d, "output.sample_interval")
    assert "output.memory_budget" in msg and "rows" in msg
    # With nothing to sample the events alone are counted.
    d["output"] = {"sample_interval": "1ps"}
    refused(d, "output.sample_interval")
    # The override: a larger budget lets a fine interval through.
    d["output"] = {"sample_interval": "1ns", "queues": ["s0->h0"], "memory_budget": "10GB"}
    fabricsim.validate(d)


def rdcn(circuit):
    return {
        "simulation": {"end": "1ms"},
        "topology": {"kind": "rdcn", "racks": 2, "hosts_per_rack": 1, "host_link": {"rate": "10Gbps", "delay": "1us"},
                     "packet_link": {"rate": "10Gbps", "delay": "1us"}, "circuit_link": {"rate": "80Gbps", "delay": "1us"}},
        "circuit": circuit,
        "flows": [{"src": "h0", "dst": "h1", "size": "10KB"}],
    }


def test_circuit_days_no_packet_fits_in_are_refused():
    msg = refused(rdcn({"schedule": "list", "slots": [{"night": "20us", "day": "0us", "matching": [1, 0]}]}), "circuit.slots[0].day")
    assert "no packet fits" in msg and "150ns" in msg  # 1500 B at 80 Gb/s
    msg = refused(rdcn({"schedule": "strobe", "day": "1ps", "night": "20us"}), "circuit.day")
    assert "no packet fits" in msg


def test_a_reversed_size_range_says_it_is_reversed():
    d = small()
    del d["flows"]
    d["workload"] = [{"cdf": "websearch", "load": 0.3, "size_range": ["1MB", "10KB"]}]
    msg = refused(d, "workload[0].size_range")
    assert "is reversed" in msg and "write ['10KB', '1MB']" in msg


def test_scenario_files_that_cannot_be_read_reasonably(tmp_path, capsys):
    utf16 = tmp_path / "utf16.toml"
    utf16.write_bytes(SMALL_TOML.encode("utf-16"))
    code, _, err = cli(capsys, "validate", utf16)
    assert code == 2 and "UTF-16" in one_error_line(err.replace("\n  - ", " "))
    deep = write_toml(tmp_path / "deep.toml", SMALL_TOML + "x = " + "[" * 5000 + "]" * 5000 + "\n")
    code, _, err = cli(capsys, "validate", deep)
    assert code == 2 and "nested" in err and "Traceback" not in err
    shallow_but_deep = write_toml(tmp_path / "deep2.toml", SMALL_TOML + "x = " + "[" * 40 + "]" * 40 + "\n")
    code, _, err = cli(capsys, "validate", shallow_but_deep)
    assert code == 2 and "nested deeper than 32 levels" in err
    # Above the size limit: refused at once, naming the limit, not parsed for a minute.
    big = tmp_path / "big.toml"
    flow = '[[flows]]\nsrc = "h1"\ndst = "h0"\nsize = "20KB"\n'
    big.write_text(SMALL_TOML + flow * (fabricsim.scenario.MAX_SCENARIO_BYTES // len(flow) + 1))
    code, _, err = cli(capsys, "validate", big)
    assert code == 2 and "MAX_SCENARIO_BYTES" in err and "[[workload]]" in err


def test_bad_output_paths_fail_before_simulating(tmp_path, capsys, monkeypatch):
    p = write_toml(tmp_path / "s.toml", SMALL_TOML)
    simulated = []
    monkeypatch.setattr("fabricsim.runner.run", lambda *a, **k: simulated.append(1))
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    code, out, err = cli(capsys, "run", p, "-o", a_file)
    assert code == 2 and "is a file, not a directory" in one_error_line(err)
    code, out, err = cli(capsys, "run", p, "-o", a_file / "sub")  # a parent that is a file
    assert code == 2 and "cannot be written" in one_error_line(err)
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    code, out, err = cli(capsys, "run", p, "-o", other)
    assert code == 2 and "not fabricsim results" in one_error_line(err)
    assert not simulated and (other / "notes.txt").read_text() == "keep me"


# -- results directories that cannot lie -------------------------------------------------------

def frames(n):
    flows = pd.DataFrame({"id": list(range(n)), "fct_s": [1.0] * n})
    return Results(flows, pd.DataFrame({"port": ["a"]}), pd.DataFrame({"time_s": [0.0]}), {"scenario": f"run{n}"})


def test_a_new_run_replaces_the_old_one_whole(tmp_path):
    d = tmp_path / "out"
    old = frames(1)
    old.circuit = {"days": pd.DataFrame({"src": [0]})}
    old.save(d)
    (d / "figures").mkdir()
    frames(2).save(d)
    assert sorted(p.name for p in d.iterdir()) == ["flows.parquet", "ports.parquet", "summary.json", "timeseries.parquet"]
    r = Results.load(d)
    assert r.circuit == {} and len(r.flows) == 2
    with pytest.raises(ResultsError, match="earlier run"):
        frames(3).save(d, overwrite=False)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no temp directories left behind"


def test_a_save_that_fails_part_way_leaves_the_old_run(tmp_path, monkeypatch):
    d = tmp_path / "out"
    frames(1).save(d)
    before = json.loads((d / "summary.json").read_text())["run_id"]
    import fabricsim.results as R

    real = R._write_parquet

    def fail_on_ports(frame, path, run_id):
        if path.name == "ports.parquet":
            raise OSError(28, "No space left on device")
        real(frame, path, run_id)

    monkeypatch.setattr(R, "_write_parquet", fail_on_ports)
    with pytest.raises(OSError):
        frames(2).save(d)
    r = Results.load(d)
    assert r.summary["run_id"] == before and len(r.flows) == 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_files_from_two_runs_are_refused_on_load(tmp_path):
    frames(1).save(tmp_path / "a")
    frames(2).save(tmp_path / "b")
    shutil.copy(tmp_path / "a" / "flows.parquet", tmp_path / "b" / "flows.parquet")
    with pytest.raises(ResultsError, match="belongs to another run"):
        Results.load(tmp_path / "b")


def test_damaged_results_give_one_line_in_report_and_plot(tmp_path, capsys):
    frames(1).save(tmp_path / "r")
    flows = tmp_path / "r" / "flows.parquet"
    flows.write_bytes(flows.read_bytes()[: len(flows.read_bytes()) // 2])
    for cmd in ("report", "plot"):
        code, _, err = cli(capsys, cmd, tmp_path / "r")
        assert code == 2 and "is damaged or not a Parquet file" in one_error_line(err)
    frames(1).save(tmp_path / "s")
    (tmp_path / "s" / "summary.json").write_text('{"run_id": ')
    code, _, err = cli(capsys, "plot", tmp_path / "s")
    assert code == 2 and "summary.json' is damaged" in one_error_line(err)
    with pytest.raises(ResultsError):
        Results.load(tmp_path / "s")
    assert issubclass(ResultsError, FabricsimError) and issubclass(ResultsError, ValueError)


# -- results that are right --------------------------------------------------------------------

def test_a_sprayed_lone_flow_never_beats_its_ideal():
    # Per-packet spraying over 4 spines of 10 Gb/s under 40 Gb/s hosts: packets overtake each
    # other in the core, and a lone flow finishes below the single-path ideal (the bound the
    # flow-hashed run reports); the sprayed run's ideal must still be a lower bound.
    base = {
        "simulation": {"end": "5ms"},
        "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 4, "hosts_per_leaf": 1,
                     "host_link": {"rate": "40Gbps", "delay": "1us"}, "core_link": {"rate": "10Gbps", "delay": "1us"}},
        "queue": {"buffer": "unlimited"},
    }
    beat_single_path = 0
    for size in (3 * 1448 + 1, 10 * 1448 + 100, 20 * 1448 + 52):
        for seed in (1, 2):
            d = copy.deepcopy(base)
            d["simulation"]["seed"] = seed
            d["flows"] = [{"src": "h0", "dst": "h1", "size": size}]
            single_path_ideal = fabricsim.run(d).flows.iloc[0]["ideal_fct_ps"]
            d["routing"] = {"ecmp": "packet_spray"}
            f = fabricsim.run(d).flows.iloc[0]
            assert f["fct_ps"] >= f["ideal_fct_ps"] and f["slowdown"] >= 1, (size, seed, f["slowdown"])
            beat_single_path += f["fct_ps"] < single_path_ideal
    assert beat_single_path > 0, "the case is adversarial: spraying beats the single-path bound"


# -- sweep stores that cannot lie ---------------------------------------------------------------

from fabricsim.errors import SweepError  # noqa: E402
from fabricsim.sweep import Sweep, load, run_sweep  # noqa: E402
from fabricsim.sweep.store import Store  # noqa: E402


def write_sweep(tmp_path, axes='"transport.cc" = ["dctcp", "newreno"]', base_end="1ms"):
    base = write_toml(tmp_path / "base.toml", SMALL_TOML.replace('end = "1ms"', f'end = "{base_end}"'))
    f = tmp_path / "sw.toml"
    f.write_text(f'name = "sw"\nbase = "{base.name}"\n[axes]\n{axes}\n')
    return f


def test_an_edited_base_is_refused_not_mixed(tmp_path, capsys):
    f = write_sweep(tmp_path)
    out = tmp_path / "store"
    assert len(run_sweep(Sweep.load(f), out, workers=1, progress=False).done) == 2
    write_sweep(tmp_path, base_end="2ms")  # the base is edited; the sweep file is the same
    with pytest.raises(SweepError, match=r"the base scenario differs .* --overwrite"):
        run_sweep(Sweep.load(f), out, workers=1, progress=False)
    code, _, err = cli(capsys, "sweep", f, "-o", out, "--no-progress")
    assert code == 2 and "-o NEW_DIR" in one_error_line(err)
    assert len(load(out).table) == 2
    # Replacing it: only the new runs remain, and the manifest and the runs agree.
    r = run_sweep(Sweep.load(f), out, workers=1, progress=False, overwrite=True)
    assert len(r.done) == 2 and r.skipped == 0
    table = load(out).table
    manifest = json.loads((out / "manifest.json").read_text())["points"]
    assert len(table) == 2 and sorted(table["key"]) == sorted(p["key"] for p in manifest)
    assert set(table["end_s"]) == {0.002}


def test_a_different_sweep_is_refused_and_a_second_writer_locked_out(tmp_path):
    out = tmp_path / "store"
    run_sweep(Sweep(small(), axes={"seed": [1]}), out, workers=1, progress=False)
    with pytest.raises(SweepError, match="axes differ"):
        run_sweep(Sweep(small(), axes={"seed": [2, 3]}), out, workers=1, progress=False)
    holder = Store(out)
    holder.lock()
    try:
        with pytest.raises(SweepError, match=rf"being written by another sweep \(process {__import__('os').getpid()}\)"):
            run_sweep(Sweep(small(), axes={"seed": [1]}), out, workers=1, progress=False)
    finally:
        holder.unlock()
    assert run_sweep(Sweep(small(), axes={"seed": [1]}), out, workers=1, progress=False).skipped == 1
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("x")
    with pytest.raises(SweepError, match="is not a sweep store"):
        run_sweep(Sweep(small(), axes={"seed": [1]}), tmp_path / "notes", workers=1, progress=False)


def test_a_bad_axis_key_names_the_file_point_and_key(tmp_path, capsys):
    f = write_sweep(tmp_path, axes='"transport.ccc" = ["dctcp"]')
    code, out, err = cli(capsys, "sweep", f, "-o", tmp_path / "st", "--no-progress", "--workers", "1")
    assert code == 1
    line = next(ln for ln in out.splitlines() if "failed" in ln and "sw.toml" in ln)
    assert "point {transport.ccc='dctcp'}: transport.ccc: unknown key; did you mean 'cc'?" in line, line


def _children(pid):
    import os

    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                kids.append(int(d))
    return kids


def _alive(pid):
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_die_with_a_killed_sweep(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    base = small()
    base["simulation"]["end"] = "20s"
    base["flows"][0].pop("size")  # long-lived: every run takes a while
    scen = tmp_path / "base.json"
    scen.write_text(json.dumps(base))
    code = (
        "import json\nfrom fabricsim.sweep import Sweep, run_sweep\n"
        f"run_sweep(Sweep(json.load(open({str(scen)!r})), axes={{'seed': [1, 2, 3]}}), {str(tmp_path / 'st')!r}, workers=2, progress=False)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code])
    workers = []
    try:
        deadline = time.time() + 60
        while time.time() < deadline and len(workers) < 2:
            time.sleep(0.1)
            workers = _children(proc.pid)
        assert len(workers) >= 2, "the pool never started"
        time.sleep(0.5)  # the workers are in the engine now
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.time() + 10
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers), "pool workers outlived their killed parent"
    finally:
        proc.kill()
        for w in workers:
            if _alive(w):
                os.kill(w, signal.SIGKILL)


def test_utilization_counts_only_what_was_serialized_before_the_end():
    # Found by the property suite: a long-lived flow at 1 Gb/s keeps h0's NIC busy from t = 0, so
    # its utilization over 1 ms is 1 (the packet still on the wire at the end used to count
    # whole: 126 000 B = 1.008 ms); the switch port starts after the first 1500 B packet
    # (12 us), so 0.988.
    d = {"simulation": {"end": "1ms"}, "topology": {"kind": "star", "hosts": 2, "link": {"rate": "1Gbps", "delay": "0us"}},
         "queue": {"buffer": "8pkt"}, "transport": {"cc": "bic"}, "flows": [{"src": "h0", "dst": "h1"}]}
    p = fabricsim.run(d).ports.set_index("port")["utilization"]
    assert p["h0->s0"] == 1.0
    assert p["s0->h1"] == pytest.approx(0.988, abs=1e-12)


def test_other_commands_refuse_bad_outputs_and_missing_inputs_in_one_line(tmp_path, capsys, monkeypatch):
    p = write_toml(tmp_path / "s.toml", SMALL_TOML)
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    import sys

    monkeypatch.setattr(sys.modules["fabricsim.compare"], "compare", lambda *a, **k: pytest.fail("simulated before checking -o"))
    code, _, err = cli(capsys, "compare", p, "--transports", "dctcp,newreno", "-o", a_file)
    assert code == 2 and "is a file, not a directory" in one_error_line(err)
    code, _, err = cli(capsys, "compare", p, "--transports", "dctcp", "--loads", "0.3,x")
    assert code == 2 and "--loads" in err and "Traceback" not in err
    code, _, err = cli(capsys, "run", tmp_path / "nope.toml")
    assert code == 2 and "no scenario file at" in one_error_line(err)
    code, _, err = cli(capsys, "report", tmp_path)
    assert code == 2 and "neither a results directory" in one_error_line(err)


def test_sweep_flows_are_checked_against_their_run(tmp_path):
    out = tmp_path / "store"
    run_sweep(Sweep(small(), axes={"seed": [1, 2]}), out, workers=1, progress=False)
    sw = load(out)
    assert len(sw.flows(["id", "fct_s"])) == 2
    a, b = sorted(sw.table["key"])
    shutil.copy(out / "runs" / a / "flows.parquet", out / "runs" / b / "flows.parquet")
    with pytest.raises(ResultsError, match="belongs to another run"):
        load(out).flows()


def test_a_store_from_before_identities_resumes_only_for_the_same_definition(tmp_path):
    out = tmp_path / "store"
    s = Sweep(small(), axes={"seed": [1, 2]})
    run_sweep(s, out, workers=1, progress=False)
    legacy = {k: v for k, v in json.loads((out / "sweep.json").read_text()).items() if k not in ("identity", "base_hash")}
    (out / "sweep.json").write_text(json.dumps(legacy))
    assert run_sweep(s, out, workers=1, progress=False).skipped == 2
    assert "identity" in json.loads((out / "sweep.json").read_text())
    (out / "sweep.json").write_text(json.dumps(legacy))
    with pytest.raises(SweepError, match="older fabricsim"):
        run_sweep(Sweep(small(), axes={"seed": [3]}), out, workers=1, progress=False)


def test_a_tampered_file_list_is_refused(tmp_path):
    frames(1).save(tmp_path / "r")
    s = json.loads((tmp_path / "r" / "summary.json").read_text())
    for files in ("flows.parquet", ["../r/flows.parquet"], [1]):
        (tmp_path / "r" / "summary.json").write_text(json.dumps({**s, "files": files}))
        with pytest.raises(ResultsError, match="file list"):
            Results.load(tmp_path / "r")


# -- issue 34: contradictory setups, huge imports, the CLI's last internal errors -------------

def warned(doc):
    """{key: message} of the scenario's warnings (it must be valid)."""
    return dict(fabricsim.scenario_warnings(doc))


def star8(transport, queue, hosts=3):
    return {"simulation": {"end": "1ms"}, "topology": {"kind": "star", "hosts": hosts, "link": {"rate": "10Gbps", "delay": "1us"}},
            "queue": queue, "transport": transport, "flows": [{"src": "h1", "dst": "h0", "size": "20KB"}]}


NDP_PORTS = {"buffer": "unlimited", "queues": 2, "classes": [0, 1], "queue_buffer": ["72KB", "8pkt"], "admission": "trim"}


def test_ndp_over_ports_that_do_not_trim_is_refused_with_the_keys_to_add(tmp_path, capsys):
    msg = refused(star8({"kind": "ndp"}, {"buffer": "100pkt"}), "queue.admission")
    assert "transport 'default' is NDP" in msg and "every switch port (3)" in msg and 'admission = "droptail"' in msg
    assert 'admission = "trim"' in msg and "queues = 2" in msg
    # One link's own queue table that does not trim is enough to refuse.
    d = star8({"kind": "ndp"}, NDP_PORTS)
    d["topology"] = {"kind": "explicit", "hosts": ["a", "b"], "switches": ["s"],
                     "links": [{"a": "a", "b": "s", "rate": "10Gbps", "delay": "1us"},
                               {"a": "s", "b": "b", "rate": "10Gbps", "delay": "1us", "queue": {"admission": "droptail"}}]}
    d["flows"] = [{"src": "a", "dst": "b", "size": "20KB"}]
    assert "port s->b has" in refused(d, "queue.admission")
    # Trimming ports: valid, and no warning.
    assert warned(star8({"kind": "ndp"}, NDP_PORTS)) == {}
    # The CLI: exit 2, one line, before anything runs.
    code, _, err = cli(capsys, "run", write_toml(tmp_path / "ndp.toml", SMALL_TOML + '[transport]\nkind = "ndp"\n'), "-o", tmp_path / "o")
    assert code == 2 and "queue.admission: transport 'default' is NDP" in one_error_line(err)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("transport, queue, key, words", [
    ({"kind": "homa"}, {"buffer": "100pkt"}, "queue.queues", ["Homa with 8 priority levels", "queues = 8"]),
    ({"kind": "homa", "priorities": 4}, {"buffer": "100pkt", "queues": 2}, "queue.queues", ["Homa with 4 priority levels"]),
    ({"cc": "ppt"}, {"buffer": "100pkt", "discipline": "ecn", "ecn_threshold": "20pkt"}, "queue.queues", ["is PPT", "fewer than 8 queues"]),
    ({"cc": "flash"}, {"buffer": "100pkt", "discipline": "ecn", "ecn_threshold": "20pkt"}, "queue.queues", ["is Flash", "fewer than 8 queues"]),
    ({"cc": "pfabric"}, {"buffer": "100pkt"}, "queue.admission", ["is pFabric", 'admission = "pfabric"']),
    ({"cc": "dctcp"}, {"buffer": "100pkt"}, "queue.discipline", ["(dctcp) reacts to ECN marks", 'discipline = "ecn"']),
])
def test_setups_that_run_but_contradict_their_transport_are_warned(transport, queue, key, words):
    w = warned(star8(transport, queue))
    assert list(w) == [key] and all(x in w[key] for x in words), w


@pytest.mark.parametrize("transport, queue", [
    ({"kind": "homa"}, {"buffer": "100pkt", "queues": 8}),
    ({"kind": "homa", "priorities": 4}, {"buffer": "100pkt", "queues": 4}),
    ({"cc": "ppt"}, {"buffer": "100pkt", "queues": 8, "discipline": "ecn", "ecn_threshold": "20pkt"}),
    ({"cc": "flash"}, {"buffer": "100pkt", "queues": 8, "admission": "pushout", "discipline": "ecn", "ecn_port_threshold": "20pkt"}),
    ({"cc": "pfabric"}, {"buffer": "24pkt", "admission": "pfabric"}),
    ({"cc": "dctcp"}, {"buffer": "100pkt", "discipline": "ecn", "ecn_threshold": "20pkt"}),
    ({"cc": "cubic"}, {"buffer": "100pkt"}),
])
def test_the_same_transports_over_the_ports_they_need_are_not_warned(transport, queue):
    assert warned(star8(transport, queue)) == {}


def test_a_shared_buffer_no_port_draws_on_is_warned_and_run_prints_warnings(tmp_path, capsys):
    d = star8({"cc": "cubic"}, {"buffer": "100pkt"})
    d["switch"] = {"shared_buffer": "200pkt"}
    assert "no port's queue table sets alpha" in warned(d)["switch.shared_buffer"]
    d["queue"]["alpha"] = 1
    assert warned(d) == {}
    # validate and run print one line per warning, naming the key; the Python API warns too.
    p = write_toml(tmp_path / "homa.toml", SMALL_TOML + '[transport]\nkind = "homa"\n')
    code, out, err = cli(capsys, "validate", p)
    assert code == 0 and [ln[:22] for ln in err.splitlines()] == ["warning: queue.queues:"]
    code, out, err = cli(capsys, "run", p, "-o", tmp_path / "out", "--no-progress", "-q")
    assert code == 0 and [ln[:22] for ln in err.splitlines()] == ["warning: queue.queues:"]
    with pytest.warns(fabricsim.ScenarioWarning, match=r"queue\.queues: transport 'default' is Homa"):
        fabricsim.run(p, progress=False)


def test_a_buffer_without_a_unit_is_refused_for_the_unit():
    for value in ("150000", "100"):
        d = small()
        d["queue"] = {"buffer": value}
        msg = refused(d, "queue.buffer")
        assert f"'{value}' has no unit" in msg and f"'{value}pkt'" in msg and "smaller than one packet" not in msg
    d["queue"] = {"buffer": "150000B"}
    fabricsim.validate(d)


def test_compare_loads_without_a_workload_and_empty_transports_are_refused(tmp_path, capsys):
    p = write_toml(tmp_path / "s.toml", SMALL_TOML)
    out = tmp_path / "cmp"
    code, _, err = cli(capsys, "compare", p, "--transports", "dctcp", "--loads", "0.5", "-o", out)
    line = one_error_line(err)
    assert code == 2 and "loads: 0.5 sets the load of the [[workload]]s, but the scenario has none" in line
    code, _, err = cli(capsys, "compare", p, "--transports", "", "-o", out)
    assert code == 2 and "--transports: '' names no transport" in one_error_line(err)
    code, _, err = cli(capsys, "compare", p, "--transports", "dctcp", "--loads", "0", "-o", out)
    assert code == 2 and "0.0 is not a load" in one_error_line(err)
    assert not out.exists(), "nothing written before the checks"
    with pytest.raises(ScenarioError, match="names no transport"):
        fabricsim.compare(small(), [])


def test_reproduce_only_and_jobs_are_checked_before_running(tmp_path, capsys):
    out = tmp_path / "rep"
    code, _, err = cli(capsys, "reproduce", "retcp", "--only", "static/,nonexist/", "-o", out)
    line = one_error_line(err)
    assert code == 2 and "'nonexist/' selects no point of retcp" in line and "static/" in line.split("start with")[1]
    assert not out.exists()
    with pytest.raises(SystemExit) as e:
        main(["reproduce", "retcp", "--jobs", "0", "-o", str(out)])
    assert e.value.code == 2 and "0 is not a count" in capsys.readouterr().err


def test_bench_and_sweep_arguments_are_checked_before_running(tmp_path, capsys, monkeypatch):
    import fabricsim.bench as B

    monkeypatch.setattr(B, "measure", lambda *a, **k: pytest.fail("benchmarked before checking the arguments"))
    for argv in (["bench", "--repeat", "0"], ["sweep", "x.toml", "--workers", "-3"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2 and "is not a count; give 1 or more" in capsys.readouterr().err
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if not os.access(locked, os.W_OK):  # root may write anyway
            code, _, err = cli(capsys, "bench", "B1", "--json", locked / "b.json")
            assert code == 2 and "--json" in one_error_line(err) and "cannot be written" in err
    finally:
        locked.chmod(0o700)
    code, _, err = cli(capsys, "bench", "B1", "--json", tmp_path / "no" / "such" / "dir" / "b.json")
    assert code == 2 and "cannot be written: No such file or directory" in one_error_line(err)
    code, _, err = cli(capsys, "bench", "--json", tmp_path, "B1")
    assert code == 2 and "is a directory" in one_error_line(err)
    # The short names of README and docs/PERFORMANCE.md are accepted.
    assert B.resolve("B4") == "fattree-permutation" and B.resolve("b1") == "dctcp-16to1" and B.resolve("B9") is None
    code, _, err = cli(capsys, "bench", "B9")
    assert code == 2 and "unknown benchmark(s) B9; known: B1 dctcp-16to1" in one_error_line(err)
    with pytest.raises(fabricsim.FabricsimError, match="workers -3"):
        run_sweep(Sweep(small(), axes={"seed": [1]}), tmp_path / "st", workers=-3, progress=False)


def test_overrides_must_be_a_list_of_strings():
    with pytest.raises(ScenarioError, match=r"'simulation.end=2ms' is one string; pass a list"):
        fabricsim.validate(small(), "simulation.end=2ms")
    with pytest.raises(ScenarioError, match=r"overrides\[0\]: 1 is not a 'KEY=VALUE' string"):
        fabricsim.run(small(), overrides=[1, 2])


def test_the_no_overwrite_refusal_names_an_option_that_exists(tmp_path, capsys):
    p = write_toml(tmp_path / "s.toml", SMALL_TOML)
    assert cli(capsys, "run", p, "-o", tmp_path / "o", "-q", "--no-progress")[0] == 0
    code, _, err = cli(capsys, "run", p, "-o", tmp_path / "o", "--no-overwrite")
    line = one_error_line(err)
    assert code == 2 and "without --no-overwrite" in line and "run --overwrite" not in line


def test_damaged_sweep_definition_and_manifest_are_called_damaged(tmp_path, capsys):
    out = tmp_path / "store"
    s = Sweep(small(), axes={"seed": [1]})
    run_sweep(s, out, workers=1, progress=False)
    manifest = out / "manifest.json"
    manifest.write_text(manifest.read_text()[:20])
    code, _, err = cli(capsys, "report", out)
    assert code == 2 and "manifest.json' is damaged" in one_error_line(err) and "rewrites it" in err
    (out / "sweep.json").write_text('{"name": "x", "ax')
    with pytest.raises(SweepError, match=r"its sweep.json is damaged \(truncated or not JSON") as e:
        run_sweep(s, out, workers=1, progress=False)
    assert "older" not in str(e.value)
    assert run_sweep(s, out, workers=1, progress=False, overwrite=True).done  # --overwrite replaces it


def import_refused(tmp_path, name, text, match):
    """Importing a file `name` holding `text` into the small scenario fails with `match`."""
    (tmp_path / name).write_text(text)
    d = small()
    d["import"] = [{"file": str(tmp_path / name)}]
    with pytest.raises(ScenarioError, match=match):
        fabricsim.validate(d)


def test_htsim_connections_with_the_same_id_are_refused(tmp_path):
    import_refused(tmp_path, "m.cm", "Nodes 2\nConnections 2\n0->1 id 7 start 0 size 1000\n1->0 id 7 start 0 size 1000\n",
                   r"m.cm line 4: id: 7 is already the id of the connection on line 3")


def test_a_csv_quote_left_open_is_reported_where_it_opened(tmp_path):
    import_refused(tmp_path, "f.csv", 'src,dst,size,start\nh1,h0,100,0us\nh1,h0,"200,1us\nh1,h0,300,2us\n',
                   r"f.csv line 3: a quote \(\"\) opened on this line is not closed; the field runs on to line 4")


def test_huge_imports_are_refused_up_front_by_size_and_by_rows(tmp_path, monkeypatch):
    import fabricsim.traffic as T

    # 175 MB (a sparse file: nothing is written): refused from its size, before any read.
    big = tmp_path / "big.csv"
    with open(big, "wb") as fh:
        fh.truncate(175_000_000)
    monkeypatch.setattr(T, "_csv_rows", lambda *a: pytest.fail("read a file above the ceiling"))
    d = small()
    d["import"] = [{"file": str(big)}]
    with pytest.raises(ScenarioError, match=r"the file is 175\.0 MB, above the 100 MB an imported file may have"):
        fabricsim.validate(d)
    monkeypatch.undo()
    # Rows: the reader stops at the first row past the limit, counting earlier imports.
    monkeypatch.setattr(T, "MAX_IMPORT_FLOWS", 3)
    f = tmp_path / "f.csv"
    f.write_text("src,dst,size,start\n" + "h1,h0,100,0us\n" * 2)
    d["import"] = [{"file": str(f)}, {"file": str(f)}]
    with pytest.raises(ScenarioError, match=r"f.csv line 3: more than 1 flows \(2 came before this file\)"):
        fabricsim.validate(d)
    pq = tmp_path / "f.parquet"
    pd.DataFrame({"src": ["h1"] * 4, "dst": ["h0"] * 4, "size": [100] * 4, "start": ["0us"] * 4}).to_parquet(pq)
    d["import"] = [{"file": str(pq)}]
    with pytest.raises(ScenarioError, match=r"f.parquet \(4 rows\): more than 3 flows"):
        fabricsim.validate(d)
    d["import"] = [{"file": str(f)}]
    assert len(fabricsim.validate(d)["flows"]) == 3  # the listed flow and two rows


def test_tx_bytes_count_only_what_was_serialized_before_the_end():
    # As the utilization test above: h0's NIC sends 1500 B packets back to back at 1 Gb/s from
    # t = 0, so by 1 ms it has serialized 125 000 B (the packet on the wire at the end counts in
    # part); the switch port starts 12 us later, so 0.988 ms x 1 Gb/s = 123 500 B.
    d = {"simulation": {"end": "1ms"}, "topology": {"kind": "star", "hosts": 2, "link": {"rate": "1Gbps", "delay": "0us"}},
         "queue": {"buffer": "8pkt"}, "transport": {"cc": "bic"}, "flows": [{"src": "h0", "dst": "h1"}]}
    p = fabricsim.run(d).ports.set_index("port")
    assert p.loc["h0->s0", "tx_bytes"] == 125_000
    assert p.loc["s0->h1", "tx_bytes"] == 123_500
    assert (p["tx_bytes"] * 8 <= p["rate_bps"] * 1e-3 * p["utilization"] + 8).all()


# -- Ctrl-C ------------------------------------------------------------------------------------

def _interrupt(args, cwd, ready, timeout=120, after_output=False):
    """Start `fabricsim ARGS` in its own process group, wait until `ready()` holds, then send
    SIGINT to the whole group (as a terminal's Ctrl-C does); returns (exit code, stdout, stderr)."""
    import signal
    import subprocess
    import sys
    import tempfile
    import time

    # Output to files, so the wait below can look at it. The child's Ctrl-C as a terminal gives
    # it, even when this test runs with SIGINT ignored (a shell's background job): Python installs
    # its handler only over the default disposition.
    with tempfile.TemporaryFile("w+") as fo, tempfile.NamedTemporaryFile("w+") as fe:
        p = subprocess.Popen([sys.executable, "-m", "fabricsim", *map(str, args)], cwd=cwd, stdout=fo, stderr=fe,
                             text=True, start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.time() + timeout
        while not ready() and p.poll() is None and time.time() < deadline:
            time.sleep(0.02)
        # Under load the interpreter may not have started by then: a SIGINT before Python installs
        # its handler kills the process outright (exit -2), and one while the package imports is a
        # traceback, both the shell's business, not ours. `after_output`: the CLI has begun once it
        # has written to stderr.
        begun = lambda: _catches_sigint(p.pid) and (not after_output or os.path.getsize(fe.name) > 0)  # noqa: E731
        while not begun() and p.poll() is None and time.time() < deadline:
            time.sleep(0.02)
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGINT)
        p.wait(timeout=timeout)
        fo.seek(0)
        fe.seek(0)
        return p.returncode, fo.read(), fe.read()


def _catches_sigint(pid):
    """Whether process PID has a handler for SIGINT (Linux: bit 1 of SigCgt in /proc/PID/status);
    True where /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/status") as f:
            caught = next(ln for ln in f if ln.startswith("SigCgt:"))
    except (OSError, StopIteration):
        return True
    return bool(int(caught.split()[1], 16) & (1 << 1))


def _one_interrupted_line(code, err):
    assert code == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err and "KeyboardInterrupt" not in err, err
    assert len([ln for ln in err.splitlines() if ln.startswith("interrupted")]) <= 1, err


def test_ctrl_c_at_several_points_prints_one_line_and_leaves_stores_resumable(tmp_path):
    import time

    # Long-lived flows: a run of 5 simulated seconds takes about a wall second, 600 s minutes.
    long_lived = SMALL_TOML.replace('size = "20KB"\n', "")
    (tmp_path / "base.toml").write_text(long_lived.replace('end = "1ms"', 'end = "5s"'))
    (tmp_path / "long.toml").write_text(long_lived.replace('end = "1ms"', 'end = "600s"'))
    # Eight runs on two workers: when the first run of step 3 is written, others are still to come,
    # so its Ctrl-C cannot land after the sweep has ended (with four, the last two could finish
    # together, and a faster build made that happen).
    (tmp_path / "sw.toml").write_text('name = "sig"\nbase = "base.toml"\n[axes]\nseed = [1, 2, 3, 4, 5, 6, 7, 8]\n')
    st = tmp_path / "st"
    t0 = time.time()
    # 1. While the CLI starts (before any store exists).
    code, out, err = _interrupt(["sweep", "sw.toml", "-o", st, "--workers", "2"], tmp_path, lambda: time.time() > t0 + 1.0,
                                after_output=True)
    _one_interrupted_line(code, err + out)
    # 2. With the store prepared and runs in flight; 3. after a run has finished. Both wait for
    # files this invocation writes (step 1 may have prepared the store already: a signal before
    # the interpreter has started is the shell's business, not ours).
    def written_since(t, pattern):
        return lambda: any(p.stat().st_mtime > t for p in st.glob(pattern))

    for pattern in ("manifest.json", "runs/*/row.json"):
        ready = written_since(time.time(), pattern)
        code, out, err = _interrupt(["sweep", "sw.toml", "-o", st, "--workers", "2", "--no-progress"], tmp_path, ready)
        _one_interrupted_line(code, err)
        # During the runs the sweep's summary says it on stdout; a Ctrl-C that lands once the last
        # run is in (writing the summary) gets the CLI's one line on stderr: both keep the runs.
        assert "interrupted: finished runs are kept" in out + err, (out, err)
        json.loads((st / "manifest.json").read_text())  # whole
    # The same command completes the rest.
    code, out, err = _interrupt(["sweep", "sw.toml", "-o", st, "--workers", "2", "--no-progress"], tmp_path, lambda: False)
    assert code == 0 and len(list((st / "runs").glob("*/row.json"))) == 8, err
    # run and compare: in the simulation.
    code, out, err = _interrupt(["run", "long.toml", "-o", tmp_path / "r", "--no-progress", "-q"], tmp_path,
                                lambda: time.sleep(3) or True)
    _one_interrupted_line(code, err)
    assert "interrupted at" in err and (tmp_path / "r" / "summary.json").exists()
    code, out, err = _interrupt(["compare", "long.toml", "--transports", "cubic,newreno", "-o", tmp_path / "c", "--no-progress"],
                                tmp_path, lambda: time.sleep(3) or True)
    _one_interrupted_line(code, err)
    # bench (its runs are child processes) and reproduce (a sweep underneath).
    code, out, err = _interrupt(["bench", "B4"], tmp_path, lambda: time.sleep(3) or True)  # B1 may be over by then
    _one_interrupted_line(code, err)
    code, out, err = _interrupt(["reproduce", "retcp", "--only", "static/", "-o", tmp_path / "rp", "--no-progress", "--jobs", "2"],
                                tmp_path, lambda: (tmp_path / "rp" / "store" / "manifest.json").exists())
    _one_interrupted_line(code, err)
