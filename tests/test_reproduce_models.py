"""The two model columns of the reproductions (text / artifact) and the one-change table, on a toy
"paper" of two tiny runs whose outcome is known by hand."""

import copy
import json

import pytest

from fabricsim.reproduce import common
from fabricsim.reproduce.common import Change, Headline

# One 150 KB flow over one 10 Gb/s hop pair (two 1 us links): its FCT is set by the bottleneck
# rate, so halving the rate (the "slow-links" change) must roughly double it.
BASE = {
    "name": "toy",
    "simulation": {"end": "50ms", "stop_when_done": True, "seed": 1},
    "topology": {"kind": "star", "hosts": 2, "link": {"rate": "10Gbps", "delay": "1us"}},
    "transport": {"cc": "newreno", "initial_cwnd": 200},
    "flows": [{"src": "h1", "dst": "h0", "size": "150KB"}],
}


def _fct(res) -> dict:
    return {"fct": float(res.flows["fct_s"].iloc[0])}


def _points(scale):
    return [("a/one", copy.deepcopy(BASE), _fct), ("b/other", {**copy.deepcopy(BASE), "name": "toy-b"}, _fct)]


def _slow(point, doc):
    if not point.startswith("a/"):
        return doc
    d = copy.deepcopy(doc)
    d["topology"]["link"]["rate"] = "5Gbps"
    return d


def _tagged(point, doc):
    d = copy.deepcopy(doc)
    d["name"] = doc["name"] + "-x"  # changes the scenario (and its hash) but not the outcome
    return d


CHANGES = [Change("slow-links", "links at half the rate", "a toy", _slow),
           Change("renamed", "another name", "a toy", _tagged)]


def _headlines(r):
    v = r.get("a/one", {}).get("fct")
    # Paper value: the FCT at 10 Gb/s, 150 KB / 10 Gb/s = 120 us plus a few us of RTTs and headers.
    return [Headline("toy FCT", "~125 us", 120e-6, 140e-6, v, "s"), Headline("other", "-", 0, None, r.get("b/other", {}).get("fct"))]


def test_text_model_alone_is_the_old_single_column(tmp_path):
    out, sets = common.run_models("toy", "reduced", {"reduced": {}}, _points, tmp_path, 1, False, None, "text", CHANGES)
    assert list(sets) == ["text"]
    df = common.models_frame({"text": _headlines(sets["text"])})
    assert list(df.columns) == ["headline", "paper", "band", "ours", "unit", "result", "note"]
    assert df["result"].tolist() == ["pass", "pass"]


def test_both_models_side_by_side_and_one_change(tmp_path, capsys):
    out, sets = common.run_models("toy", "reduced", {"reduced": {}}, _points, tmp_path, 1, False, None, "both", CHANGES,
                                  one_change=["a/"])
    assert set(sets) == {"text", "artifact", "slow-links", "renamed"}
    t, a = sets["text"]["a/one"]["fct"], sets["artifact"]["a/one"]["fct"]
    # Serialization dominates: 150 KB at 5 Gb/s takes 120 us more than at 10 Gb/s.
    assert 110e-6 < a - t < 140e-6
    assert sets["artifact"]["b/other"] == sets["text"]["b/other"]  # the change does not concern b/
    assert sets["renamed"]["a/one"] == sets["text"]["a/one"]
    assert set(sets["slow-links"]) == {"a/one"}  # one-change sets hold only the central points
    df, models = common.finish_models(out, sets, _headlines, "toy paper", CHANGES, ["toy FCT"])
    assert df["result"].tolist()[0] == "pass" and df["result_artifact"].tolist()[0] == "MISS"
    assert list(df.columns)[:8] == ["headline", "paper", "band", "ours", "unit", "result", "ours_artifact", "result_artifact"]
    assert (df["artifact_model"] == "artifact model (all changes)").all()
    oc = (tmp_path / "one_change.csv").read_text().splitlines()
    assert oc[0] == "headline,model,paper,band,ours,unit,result"
    assert [line.split(",")[1] for line in oc[1:]] == ["text model", "+ slow-links only", "+ renamed only", "artifact model (all changes)"]
    assert [line.split(",")[-1] for line in oc[1:]] == ["pass", "MISS", "pass", "MISS"]
    text = capsys.readouterr().out
    assert "text model: 2 pass, 0 MISS of 2; as the authors ran it (artifact): 1 pass, 1 MISS of 2" in text
    assert "slow-links: links at half the rate" in text and "source: a toy" in text


def test_runs_by_model_adds_the_model_column():
    sets = {"text": {"p": {"x": 1}}, "artifact": {"p": {"x": 2}}}
    import pandas as pd

    f = common.runs_by_model(sets, lambda r: pd.DataFrame([{"point": k, **v} for k, v in r.items()]))
    assert f.to_dict("records") == [{"model": "text", "point": "p", "x": 1}, {"model": "artifact", "point": "p", "x": 2}]
    assert list(common.runs_by_model({"text": sets["text"]}, lambda r: pd.DataFrame([{"point": "p"}])).columns) == ["point"]


def test_a_bad_model_is_refused(tmp_path):
    with pytest.raises(ValueError, match="model 'paper' is not one of text, artifact, both"):
        common.run_models("toy", "reduced", {"reduced": {}}, _points, tmp_path, 1, False, None, "paper", CHANGES)


def test_a_dask_local_cluster_gives_the_same_results_bit_for_bit(tmp_path):
    pytest.importorskip("distributed")
    _, local = common.run_models("toy", "reduced", {"reduced": {}}, _points, tmp_path / "l", 1, False, None, "both", CHANGES)
    _, dask = common.run_models("toy", "reduced", {"reduced": {}}, _points, tmp_path / "d", 2, False, None, "both", CHANGES,
                                dask="local")
    assert dask == local
    # The runs themselves, not just the extracts: each stored row is the same, wall times and the
    # process's memory aside.
    def rows(d):
        out = {}
        for p in (d / "store" / "runs").glob("*/row.json"):
            out[p.parent.name] = {k: v for k, v in json.loads(p.read_text()).items() if "wall" not in k and k != "peak_rss_bytes"}
        return out

    assert rows(tmp_path / "d") == rows(tmp_path / "l") and len(rows(tmp_path / "l")) == 4


def test_verdict_counts_count_numpy_values():
    # A headline computed from a frame holds numpy floats; its pass must count (the AccelToR
    # reduced run printed "3 pass, 20 MISS of 24" for a table of 4 pass, 20 MISS).
    np = pytest.importorskip("numpy")
    rows = [Headline("a", "1", 0.5, 1.5, np.float64(1.0)), Headline("b", "1", 0.5, 1.5, np.float64(2.0)),
            Headline("c", "1", 0.5, None, 1.0), Headline("d", "1", 0.5, 1.5, None)]
    assert [h.passed for h in rows] == [True, False, True, None]
    assert type(rows[0].passed) is bool
    assert common.verdict_counts(rows) == "2 pass, 1 MISS of 4"


def test_finished_reads_the_store_and_runs_nothing(tmp_path, capsys):
    # A reproduction run in parts: a/ has run, b/ not yet. `run=False` (`--finished`) returns
    # a/'s result as it was, leaves b/ out (its headline n/a), adds no run to the store and does
    # not touch its definition.
    store = tmp_path / "store"
    done = common.run_points(_points("reduced")[:1], store, jobs=1, progress=False)
    runs_before = sorted(p.name for p in (store / "runs").iterdir())
    stamp = {p.name: p.stat().st_mtime_ns for p in store.iterdir() if p.is_file()}
    capsys.readouterr()
    got = common.run_points(_points("reduced"), store, jobs=1, progress=False, run=False)
    assert got == done and set(got) == {"a/one"}
    assert sorted(p.name for p in (store / "runs").iterdir()) == runs_before
    assert {p.name: p.stat().st_mtime_ns for p in store.iterdir() if p.is_file()} == stamp
    assert "1 of 2 points have their runs in" in capsys.readouterr().err
    hl = {h.name: h for h in _headlines(got)}
    assert hl["toy FCT"].passed and hl["other"].ours is None
    # The same through run_models (both columns): nothing of the artifact column has run.
    out, sets = common.run_models("toy", "reduced", {"reduced": {}}, _points, tmp_path, 1, False, None, "both", CHANGES,
                                  run=False)
    assert sets["artifact"] == {} and sorted(p.name for p in (store / "runs").iterdir()) == runs_before


def test_finished_from_the_cli_refuses_dask(tmp_path):
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-m", "fabricsim", "reproduce", "sab", "--finished", "--dask", "local", "-o", str(tmp_path)],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "--finished runs nothing, so it takes no --dask" in p.stderr


def test_changes_picks_a_group_or_leaves_some_out(tmp_path):
    names = lambda spec: [c.name for c in common.select_changes("toy", CHANGES, spec)]  # noqa: E731
    assert names(None) == ["slow-links", "renamed"]
    assert names(["renamed"]) == ["renamed"] and names(["renamed", "slow-links"]) == ["slow-links", "renamed"]
    assert names(["-slow-links"]) == ["renamed"] and names(["-slow-links", "-renamed"]) == []
    with pytest.raises(ValueError, match="'fast' is not a change of toy's artifact model; its changes: slow-links, renamed"):
        common.select_changes("toy", CHANGES, ["fast"])
    with pytest.raises(ValueError, match="mixes names to keep and names to leave out"):
        common.select_changes("toy", CHANGES, ["renamed", "-slow-links"])
    assert names("renamed, slow-links") == ["slow-links", "renamed"]  # a string as the CLI gives it
    with pytest.raises(ValueError, match="--model text has no artifact column"):
        common.select_changes("toy", CHANGES, ["renamed"], "text")
    # A change that reads another's state cannot go without it, either way round; its one-change
    # row applies both.
    needs = [*CHANGES, Change("renamed-slow", "reads slow-links' state", "a toy", _tagged, requires=("slow-links",))]
    with pytest.raises(ValueError, match="renamed-slow needs slow-links .*: name both"):
        common.select_changes("toy", needs, ["renamed-slow"])
    with pytest.raises(ValueError, match="renamed-slow needs slow-links .*: leave both out"):
        common.select_changes("toy", needs, ["-slow-links"])
    assert [c.name for c in common.select_changes("toy", needs, ["-slow-links", "-renamed-slow"])] == ["renamed"]
    one = common.one_change_points(_points("reduced"), needs, ["a/"])
    assert one["renamed-slow"][0][1]["topology"]["link"]["rate"] == "5Gbps" and one["renamed-slow"][0][1]["name"] == "toy-x"
    assert one["renamed"][0][1]["topology"]["link"]["rate"] == "10Gbps"
    # Leaving out the change that slows a/ gives the text model's FCT in the artifact column.
    out, sets = common.run_models("toy", "reduced", {"reduced": {}}, _points, tmp_path, 1, False, None, "both",
                                  common.select_changes("toy", CHANGES, ["-slow-links"]))
    assert sets["artifact"]["a/one"] == sets["text"]["a/one"]
    # One change at a time over a selection: the last row names what the artifact column held.
    singles = {"renamed": _headlines(sets["text"])}
    models = {m: _headlines(sets[m]) for m in ("text", "artifact")}
    kept = common.select_changes("toy", CHANGES, ["-slow-links"])
    oc = common.one_change_frame(["toy FCT"], models, singles, kept, len(CHANGES))
    assert oc["model"].tolist() == ["text model", "+ renamed only", "artifact model (1 of 2 changes: renamed)"]
    assert common.one_change_frame(["toy FCT"], models, singles, kept)["model"].tolist()[-1] == "artifact model (all changes)"


def test_a_reading_of_the_code_runs_only_when_asked_for_and_is_labelled_so(tmp_path):
    # A behaviour read in the authors' code but not adopted (their text says otherwise) is never in
    # the artifact model; "+NAME" adds it after the kept changes, so that both sides can be shown.
    readings = [Change("slower", "links at a fifth of the rate", "a toy", _slow, reading=True)]
    names = lambda spec: [c.name for c in common.select_changes("toy", CHANGES, spec, "both", readings)]  # noqa: E731
    assert names(None) == ["slow-links", "renamed"]
    assert names(["+slower"]) == ["slow-links", "renamed", "slower"]
    assert names(["-slow-links", "+slower"]) == ["renamed", "slower"]
    assert names("renamed,+slower") == ["renamed", "slower"]
    assert names("none,+slower") == ["slower"]  # the text model with the reading
    with pytest.raises(ValueError, match="'none' keeps no change: it is the text model's column"):
        names(["none"])
    assert names("none, none, +slower, +slower") == ["slower"]  # repeated names count once
    with pytest.raises(ValueError, match="'none,renamed': 'none' stands alone, or with \\+NAME readings"):
        names("none,renamed,+slower")
    with pytest.raises(ValueError, match="'slower' is not a change .* \\(a reading: it runs only when added with \\+NAME\\)"):
        names(["-slower"])
    # A reading that needs a change cannot go without it, on the text model either.
    needy = [Change("slower-too", "reads slow-links' state", "a toy", _slow, requires=("slow-links",), reading=True)]
    with pytest.raises(ValueError, match="slower-too needs slow-links .*: keep slow-links"):
        common.select_changes("toy", CHANGES, "none,+slower-too", "both", needy)
    with pytest.raises(ValueError, match="slower-too needs slow-links .*: keep slow-links"):
        common.select_changes("toy", CHANGES, "-slow-links,+slower-too", "both", needy)
    with pytest.raises(ValueError, match=r"'slower' is not a change of toy's artifact model \(a reading, not adopted: add it with \+slower\)"):
        names(["slower"])
    with pytest.raises(ValueError, match=r"'\+fast' is not a reading of toy's code \(its readings: slower\)"):
        names(["+fast"])
    with pytest.raises(ValueError, match=r"'\+slower' is not a reading of toy's code \(it has none\)"):
        common.select_changes("toy", CHANGES, ["+slower"])
    # The artifact column's label says what it held beyond the adopted changes.
    models = {"text": _headlines({}), "artifact": _headlines({})}
    every = common.select_changes("toy", CHANGES, ["+slower"], "both", readings)
    oc = common.one_change_frame(["toy FCT"], models, {}, every, len(CHANGES))
    assert oc["model"].tolist() == ["text model", "artifact model (all changes; + slower, read in the authors' code, not adopted)"]
    some = common.select_changes("toy", CHANGES, ["-renamed", "+slower"], "both", readings)
    assert common.one_change_frame(["toy FCT"], models, {}, some, len(CHANGES))["model"].tolist()[-1] == \
        "artifact model (1 of 2 changes: slow-links; + slower, read in the authors' code, not adopted)"
    assert common.one_change_frame(["toy FCT"], models, {"slower": _headlines({})}, every, len(CHANGES))["model"].tolist()[1] == \
        "+ slower only (read in the authors' code, not adopted)"
    only = common.select_changes("toy", CHANGES, ["none", "+slower"], "both", readings)
    assert common.one_change_frame(["toy FCT"], models, {}, only, len(CHANGES))["model"].tolist()[-1] == \
        "text model (no change; + slower, read in the authors' code, not adopted)"
    # The listing of the model's changes marks it too.
    import io
    buf = io.StringIO()
    common.print_changes(every, file=buf)
    assert buf.getvalue().startswith("\nthe artifact model (as the authors ran it) = the text model plus:")
    assert "  slower (read in the authors' code, not adopted): links at" in buf.getvalue()
    assert "  renamed: another name" in buf.getvalue()
    buf = io.StringIO()
    common.print_changes(only, file=buf)
    assert buf.getvalue().startswith("\nthis column is the text model (no change of the artifact model) plus readings:")


def test_changes_from_the_cli_is_checked_before_anything_runs(tmp_path):
    import subprocess
    import sys
    run = lambda *a: subprocess.run([sys.executable, "-m", "fabricsim", "reproduce", "flash", *a, "-o", str(tmp_path / "o")],  # noqa: E731
                                    capture_output=True, text=True)
    p = run("--changes", "mintcp-rto,nope")
    assert p.returncode == 2 and p.stderr.startswith("error: --changes: 'nope' is not a change of flash's artifact model")
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    p = run("--model", "text", "--changes", "mintcp-rto")
    assert p.returncode == 2 and "--model text has no artifact column" in p.stderr
    p = run("--changes=+nope")
    assert p.returncode == 2 and p.stderr == "error: --changes: '+nope' is not a reading of flash's code (it has none)\n"
    assert not (tmp_path / "o").exists()
