"""benches/htsim/timing.py: the warnings compare.py prints, from synthetic timings, and the
timing of a real child process. The peers themselves are not run here."""

import json
import pathlib
import sys

import pytest

BENCH = pathlib.Path(__file__).resolve().parent.parent / "benches" / "htsim"
sys.path.insert(0, str(BENCH))

import timing  # noqa: E402


def runs(cpu, wall=None):
    wall = wall or cpu
    return [timing.Run(w, c, 10.0, 0, "", "") for c, w in zip(cpu, wall)]


def test_summary_takes_min_median_and_spread_around_the_minimum():
    s = timing.Summary.of(runs([2.0, 2.6, 2.2], wall=[3.0, 2.5, 4.0]))
    assert (s.cpu_min, s.cpu_median, s.cpu_max) == (2.0, 2.2, 2.6)
    assert (s.wall_min, s.wall_median) == (2.5, 3.0)
    assert s.cpu_spread == pytest.approx(0.3)
    assert s.wall_spread == pytest.approx(0.6)


def test_spread_warning_above_15_percent_only():
    quiet = timing.Summary.of(runs([10.0, 11.4, 10.5]))  # 14 %
    assert timing.spread_warnings("htsim", quiet) == []
    # The disturbed case of issue 33: 25 s and 65 s runs of the same binary.
    w = timing.spread_warnings("htsim", timing.Summary.of(runs([25.0, 25.5], wall=[25.2, 65.0])))
    assert len(w) == 1 and "wall" in w[0] and "htsim" in w[0] and "158%" in w[0]


def record(sim="htsim", cpu=25.0, wall=26.0, peer="841d9e7", ours="abc1234", size=12):
    s = timing.Summary.of(runs([cpu], wall=[wall]))
    return timing.record_of(sim, s, experiment="dctcp", size=size, end="50ms", peer_commit=peer, fabricsim_commit=ours,
                            load_before=0.5, load_after=0.6)


def test_drift_warning_against_the_previous_record_of_the_same_commit(tmp_path):
    hist = tmp_path / "h.jsonl"
    timing.append_history(hist, [record(cpu=25.0, wall=26.0), record(cpu=40.0, wall=41.0, peer="0000000")])
    past = timing.read_history(hist)
    # 65 s wall, 27 s CPU: only the wall time drifted (+150 %), against the 841d9e7 record, not the other commit's.
    now = record(cpu=27.0, wall=65.0)
    prev = timing.previous(past, now)
    assert prev["wall_min"] == 26.0
    w = timing.drift_warnings(now, prev)
    assert len(w) == 1 and "wall min" in w[0] and "+150%" in w[0]
    assert timing.drift_warnings(record(cpu=30.0, wall=31.0), prev) == []  # +20 %, +19 %: within 25 %
    assert timing.drift_warnings(record(peer="1111111"), timing.previous(past, record(peer="1111111"))) == []  # no record yet


def test_our_side_is_compared_only_with_the_same_fabricsim_commit(tmp_path):
    hist = tmp_path / "h.jsonl"
    timing.append_history(hist, [record("fabricsim", cpu=5.0, wall=5.0, ours="aaaaaaa")])
    past = timing.read_history(hist)
    assert timing.previous(past, record("fabricsim", cpu=9.0, ours="bbbbbbb")) is None  # a new commit may be slower
    same = record("fabricsim", cpu=9.0, wall=9.0, ours="aaaaaaa", peer="2222222")  # the peer's commit does not matter
    assert len(timing.drift_warnings(same, timing.previous(past, same))) == 2


def test_history_survives_a_torn_line(tmp_path):
    hist = tmp_path / "h.jsonl"
    timing.append_history(hist, [record(size=8)])
    with hist.open("a") as f:
        f.write('{"simulator": "htsim", "exper')
    timing.append_history(hist, [record(size=12)])
    assert [r["size"] for r in timing.read_history(hist)] == [8, 12]
    assert json.loads(hist.read_text().splitlines()[0])["peer_commit"] == "841d9e7"


def test_load_warning_when_the_load_reaches_the_cpu_count():
    assert timing.load_warnings(0.3, 1.9, cpus=2) == []
    assert "load average" in timing.load_warnings(0.3, 2.1, cpus=2)[0]


def test_run_timed_separates_cpu_from_wall():
    # A child that sleeps 0.1 s and burns 0.1 s of CPU: its CPU time lacks the sleep, its wall time has both.
    code = "import time; time.sleep(0.1); t = time.process_time()\nwhile time.process_time() - t < 0.1: pass\nprint('ok')"
    r = timing.run_timed([sys.executable, "-c", code])
    assert r.returncode == 0 and r.stdout.strip() == "ok"
    assert r.wall_s >= 0.2
    assert 0.1 <= r.cpu_s < r.wall_s - 0.09
    assert r.maxrss_mb > 1


def test_htsims_own_permutation_assertion_is_retried_other_failures_are_not(monkeypatch, tmp_path, capsys):
    # htsim's DCTCP driver asserts now and then in its random permutation (connection_matrix.cpp):
    # compare.py runs it again, at most three times in all; any other failure stops at once.
    import compare

    calls = []

    def fake(stderr):
        def run(argv, cwd=None):
            calls.append(argv)
            return timing.Run(1.0, 1.0, 10.0, 134, "", stderr)
        return run

    e = type("E", (), {"htsim_argv": ["htsim_dctcp"]})()
    monkeypatch.setattr(timing, "run_timed", fake("connection_matrix.cpp:48: void ConnectionMatrix::setPermutation(...): "
                                                  "Assertion `src!=dest' failed."))
    with pytest.raises(SystemExit):
        compare.run_htsim(None, e, tmp_path)
    assert len(calls) == 3 and capsys.readouterr().err.count("running it again") == 2
    calls.clear()
    monkeypatch.setattr(timing, "run_timed", fake("Segmentation fault"))
    with pytest.raises(SystemExit):
        compare.run_htsim(None, e, tmp_path)
    assert len(calls) == 1


def test_one_invocation_covers_every_span_experiment_and_extra_case():
    import compare

    cases = compare.parse_cases("dctcp", "8,12", "50ms,210ms", ["ndp:12:20ms"])
    assert cases == [("dctcp", 8, "50ms"), ("dctcp", 12, "50ms"), ("dctcp", 8, "210ms"), ("dctcp", 12, "210ms"),
                     ("ndp", 12, "20ms")]
    for bad in (("tcp", "8", "50ms", []), ("dctcp", "7", "50ms", []), ("dctcp", "8", "fifty", []),
                ("dctcp", "8", "50ms", ["ndp:12"]), ("dctcp", "x", "50ms", [])):
        with pytest.raises(SystemExit):
            compare.parse_cases(*bad)


def test_the_closing_summary_says_which_cases_fall_short_or_were_warned():
    import compare

    rows = [dict(experiment="dctcp", size=8, end="50ms", fabricsim_cpu=0.30, htsim_cpu=0.92, ratio=3.04, warnings=0),
            dict(experiment="dctcp", size=20, end="210ms", fabricsim_cpu=30.0, htsim_cpu=180.0, ratio=5.9, warnings=1)]
    out = compare.summary_table(rows, 3.0)
    assert "dctcp k = 8, 50ms" in out[1] and "3.04x" in out[1] and out[2].endswith("1")
    assert out[-1] == "every case >= 3x; 1 with timing warnings (rerun those before quoting)"
    rows[0]["ratio"] = 2.95
    assert compare.summary_table(rows, 3.0)[-1].startswith("1 of 2 cases below 3x")


def test_fabricsims_timed_process_loads_nothing_the_run_does_not_need(tmp_path):
    # The child compare.py times is a user's run: the harness's own JSON line is written without
    # the json module (which, with re and enum, would add about 5 ms to every fabricsim run).
    import subprocess
    import sys

    import compare

    f = tmp_path / "s.toml"
    f.write_text('[simulation]\nend = "1ms"\n[topology]\nkind = "star"\nhosts = 3\nlink = { rate = "10Gbps", delay = "1us" }\n'
                 '[[flows]]\nsrc = "h1"\ndst = "h0"\nsize = "30KB"\n')
    names = "('json', 're', 'enum', 'tomllib', 'pathlib')"
    probe = compare.FABRICSIM + f"\nprint(sorted(m for m in {names} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe, str(f)], capture_output=True, text=True, check=True).stdout.splitlines()
    # Beyond what the interpreter itself loaded (an environment's .pth files may import some).
    before = subprocess.run([sys.executable, "-c", f"import sys; print(sorted(m for m in {names} if m in sys.modules))"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert set(eval(out[-1])) <= set(eval(before))
    d = json.loads(out[-2])
    assert d["acked"] == 30_000.0 and d["hops"] > 0 and d["engine_wall_s"] > 0


def test_each_flow_is_weighted_by_its_own_path_length():
    import compare

    # k = 4: hosts 0 and 1 share an edge switch (2 links), 0 and 2 a pod (4), 0 and 4 nothing (6).
    assert [compare.path_links(4, 0, b) for b in (1, 2, 3, 4, 15)] == [2, 4, 4, 6, 6]
    # Over every ordered pair of distinct hosts the weights average to the random pair's mean.
    for k in (4, 8):
        n = k**3 // 4
        links = [compare.path_links(k, a, b) for a in range(n) for b in range(n) if a != b]
        assert sum(links) / len(links) == pytest.approx(compare.mean_path_links(k), rel=1e-12)
    # 9000 B acknowledged on a 6-link path and 18000 B on a 2-link one, 2 packets per data packet
    # (DCTCP's data and ACK): (6 + 2 * 2) * 2 = 20 packet-hops; an unnamed sink takes the mean.
    assert compare.weighted_hops(4, 2, [((0, 4), 9000.0), ((0, 1), 18000.0)]) == 20.0
    assert compare.weighted_hops(4, 2, [(None, 9000.0)]) == pytest.approx(2 * compare.mean_path_links(4))


def test_htsims_sinks_name_their_hosts():
    from htsim import sink_pair

    # The DCTCP driver's and htsim_ndp's names (Logfile::writeName), and the old drivers' index.
    assert sink_pair("dctcp_sink_3_17") == (3, 17)
    assert sink_pair("ndp_sink_3_17") == (3, 17)
    assert sink_pair("tcp_sink_367_0(0)") == (367, 0)
    assert sink_pair("dctcp_3_17") is None
