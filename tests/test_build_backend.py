"""The build backend's choice of the profile-guided build (build_support/fabricsim_build.py)."""

import gzip
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("fabricsim_build", ROOT / "build_support" / "fabricsim_build.py")
fb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fb)

RUSTC_22 = "rustc 1.95.0 (59807616e 2026-04-14)\nhost: x86_64-unknown-linux-gnu\nrelease: 1.95.0\nLLVM version: 22.1.2\n"
RECORD_22 = 'rustc = "1.95.0"\nllvm = "22.1.2"\ncommit = "abc"\n'


def test_the_profile_is_used_with_the_llvm_it_was_made_with():
    env, line = fb.pgo_env({"RUSTFLAGS": "-Cdebuginfo=1"}, RUSTC_22, RECORD_22, Path("/x/p.profdata"))
    assert env["RUSTFLAGS"] == "-Cdebuginfo=1 -Cprofile-use=/x/p.profdata"  # the user's flags kept
    assert env["CARGO_PROFILE_RELEASE_LTO"] == "fat" and env["CARGO_PROFILE_RELEASE_CODEGEN_UNITS"] == "1"
    assert "trained profile" in line


def test_another_llvm_no_profile_or_opt_out_build_plainly():
    other = RUSTC_22.replace("LLVM version: 22.1.2", "LLVM version: 21.1.0")
    env, line = fb.pgo_env({}, other, RECORD_22, Path("/x/p.profdata"))
    assert env == {} and "LLVM 22, this rustc has LLVM 21" in line
    assert fb.pgo_env({}, None, RECORD_22, Path("/x/p.profdata"))[0] == {}  # no rustc found
    assert fb.pgo_env({}, RUSTC_22, RECORD_22, None)[0] == {}
    assert fb.pgo_env({"FABRICSIM_PGO": "0"}, RUSTC_22, RECORD_22, Path("/x/p.profdata"))[0] == {}


def test_the_shipped_profile_is_recorded_and_readable():
    record = (ROOT / "pgo" / "PROFILE.toml").read_text()
    assert re.search(r'^llvm = "\d+\.', record, re.M) and re.search(r'^commit = "\w+"', record, re.M)
    with gzip.open(ROOT / "pgo" / "fabricsim.profdata.gz") as f:
        assert f.read(8) == b"\xfflprofi\x81"  # LLVM's indexed profile magic
