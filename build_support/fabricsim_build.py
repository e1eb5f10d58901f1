"""fabricsim's build backend: maturin's, with the engine optimized by its trained profile.

pyproject.toml names this module as the PEP 517 backend. Every hook is maturin's; before a wheel
is built, the environment is set so that cargo compiles every crate with the profile in
pgo/fabricsim.profdata.gz (written by benches/pgo/train.py, unpacked for the build and passed as
`-Cprofile-use`), as one codegen unit with fat LTO: the combination that pays, since thin LTO with
4 units gains nothing from the profile (docs/PERFORMANCE.md, "profile-guided build"). The profile
is used only when the rustc building has the LLVM major version the profile was made with (an
LLVM reads its own profile format, and rustc refuses another's); otherwise, or with
FABRICSIM_PGO=0, the build is the plain release one, and a line on stderr says which. Results do
not depend on it: a profile steers layout and inlining, never what the code computes.
"""

from __future__ import annotations

import gzip
import os
import shutil
import tempfile
import re
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
PROFILE = ROOT / "pgo" / "fabricsim.profdata.gz"
RECORD = ROOT / "pgo" / "PROFILE.toml"


def llvm_major(text: str, pattern: str) -> int | None:
    m = re.search(pattern, text, re.M)
    return int(m.group(1)) if m else None


def pgo_env(environ: dict[str, str], rustc_vv: str | None, record: str | None, profile: Path | None) -> tuple[dict[str, str], str]:
    """The environment to build in with the unpacked `profile` (None: there is none), and a line
    saying whether it is used and why."""
    if environ.get("FABRICSIM_PGO", "1") == "0":
        return {}, "fabricsim: FABRICSIM_PGO=0, plain release build"
    if profile is None or record is None:
        return {}, "fabricsim: no pgo/fabricsim.profdata.gz, plain release build"
    want = llvm_major(record, r'^llvm\s*=\s*"(\d+)')
    have = llvm_major(rustc_vv or "", r"^LLVM version: (\d+)")
    if want is None or have != want:
        return {}, (f"fabricsim: the profile is for LLVM {want}, this rustc has LLVM {have}: plain release build "
                    "(retrain with `python benches/pgo/train.py`)")
    flags = " ".join(f for f in (environ.get("RUSTFLAGS", ""), f"-Cprofile-use={profile}") if f)
    env = {"RUSTFLAGS": flags, "CARGO_PROFILE_RELEASE_LTO": "fat", "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "1"}
    return env, f"fabricsim: building with the trained profile (LLVM {have}, fat LTO, one codegen unit)"


def _build(hook, *args):
    """Run maturin's `hook` in the environment `pgo_env` gives, the profile unpacked meanwhile."""
    try:
        vv = subprocess.run(["rustc", "-vV"], capture_output=True, text=True).stdout
    except OSError:
        vv = None
    record = RECORD.read_text() if RECORD.exists() else None
    with tempfile.TemporaryDirectory(prefix="fabricsim-pgo-") as tmp:
        profile = None
        if PROFILE.exists():
            profile = Path(tmp) / "fabricsim.profdata"
            with gzip.open(PROFILE, "rb") as src, open(profile, "wb") as dst:
                shutil.copyfileobj(src, dst)
        env, line = pgo_env(dict(os.environ), vv, record, profile)
        print(line, file=sys.stderr, flush=True)
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            return hook(*args)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


# PEP 517's hooks. maturin is imported in each (the frontend installs it in the build's own
# environment), so that this module's decision above can be tested without it.
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    import maturin
    return _build(maturin.build_wheel, wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    import maturin
    return _build(maturin.build_editable, wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    import maturin
    return maturin.build_sdist(sdist_directory, config_settings)


def get_requires_for_build_wheel(config_settings=None):
    import maturin
    return maturin.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_editable(config_settings=None):
    import maturin
    return maturin.get_requires_for_build_editable(config_settings)


def get_requires_for_build_sdist(config_settings=None):
    import maturin
    return maturin.get_requires_for_build_sdist(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    import maturin
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    import maturin
    return maturin.prepare_metadata_for_build_editable(metadata_directory, config_settings)
