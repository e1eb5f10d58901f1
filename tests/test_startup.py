"""Start-up stays light (issue 33): `import fabricsim`, `fabricsim --help` and a run whose
results are read only through the summary or `Results.raw` never import the frame libraries
(pandas, numpy, pyarrow, polars: about 0.3-0.4 s together). Their times are benchmarks
(docs/PERFORMANCE.md), not tests; what is pinned here is the import graph that makes them."""

import subprocess
import sys

import fabricsim

HEAVY = ("pandas", "numpy", "pyarrow", "polars", "matplotlib")


def loaded_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout.split()
    return {m for m in HEAVY if m in out}


def test_import_and_help_load_no_frame_library():
    assert loaded_after("import fabricsim") == set()
    assert loaded_after("import sys, contextlib, io\nfrom fabricsim.cli import main\n"
                        "with contextlib.redirect_stdout(io.StringIO()):\n"
                        "    try: main(['--help'])\n    except SystemExit: pass") == set()


SMALL = {"simulation": {"end": "1ms"}, "topology": {"kind": "star", "hosts": 3, "link": {"rate": "10Gbps", "delay": "1us"}},
         "flows": [{"src": "h1", "dst": "h0", "size": "30KB"}, {"src": "h2", "dst": "h0", "size": "20KB"}]}


def test_a_run_read_through_summary_and_raw_columns_imports_no_pandas():
    code = (f"import fabricsim\nr = fabricsim.run({SMALL!r})\n"
            "assert sum(r.raw('flows')['bytes_acked']) == 50_000 and r.summary['packet_hops'] > 0")
    assert loaded_after(code) == set()


def test_raw_columns_are_the_frames_columns():
    r = fabricsim.run(SMALL)
    raw = r.raw("flows")
    # The two flows of 30 KB and 20 KB, acknowledged whole, in the frame and in the raw columns.
    assert sorted(raw["bytes_acked"]) == [20_000, 30_000]
    assert list(r.flows["bytes_acked"]) == raw["bytes_acked"] and list(r.flows["id"]) == raw["id"]
    assert list(r.ports["port"]) == r.raw("ports")["port"]
    # Built once: the same frame on every read; an assignment replaces it.
    assert r.flows is r.flows
    r.flows = r.flows.head(1)
    assert len(r.flows) == 1


def test_the_cli_run_writes_and_reports_without_pandas(tmp_path):
    from importlib.metadata import version

    if int(version("pandas").split(".")[0]) < 3:
        import pytest

        pytest.skip("with pandas < 3 the files are written through pandas (fabricsim.columns)")
    # `fabricsim run` of the example: Parquet written from the engine's columns (pyarrow,
    # numpy), the report from fabricsim.stats: pandas (about 0.3 s) is never imported.
    code = ("import io, sys\nout, sys.stdout = io.StringIO(), io.StringIO()\nsys.stdout = out\n"
            "from fabricsim.cli import main\n"
            f"rc = main(['run', 'scenarios/example.toml', '-o', {str(tmp_path / 'ex')!r}])\n"
            "sys.stdout = sys.__stdout__\nassert rc == 0 and 'FCT by flow size' in out.getvalue(), out.getvalue()")
    assert "pandas" not in loaded_after(code)
    assert {"flows.parquet", "flow_series.parquet"} <= {p.name for p in (tmp_path / "ex").iterdir()}


# What a run of a TOML scenario needs from the standard library: the engine reads the file and
# the validated dict itself (crates/py/src/document.rs), so these load only where a run is saved
# or a file needs tomllib (about 15 ms of every process, docs/PERFORMANCE.md).
STDLIB_DEFERRED = ("tomllib", "json", "re", "enum", "pathlib", "typing", "copy")


def stdlib_loaded_after(code: str) -> set[str]:
    """Those of STDLIB_DEFERRED that `code` loads beyond what the interpreter loaded before it
    (an environment's .pth files may import some at start-up: not fabricsim's doing)."""
    def loaded(c: str) -> set[str]:
        out = subprocess.run([sys.executable, "-c", c + "\nimport sys; print(' '.join(sys.modules))"],
                             capture_output=True, text=True, check=True).stdout.split()
        return {m for m in STDLIB_DEFERRED if m in out}

    return loaded(code) - loaded("pass")


def test_a_run_of_a_toml_file_imports_no_parser_module(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[simulation]\nend = "1ms"\n[topology]\nkind = "star"\nhosts = 3\nlink = { rate = "10Gbps", delay = "1us" }\n'
                 '[[flows]]\nsrc = "h1"\ndst = "h0"\nsize = "30KB"\n')
    code = (f"from fabricsim.runner import run\nr = run({str(f)!r}, progress=False)\n"
            "assert sum(r.raw('flows')['bytes_acked']) == 30_000")
    assert stdlib_loaded_after(code) == set()
