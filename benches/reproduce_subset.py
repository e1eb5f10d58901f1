"""Run a reproduction with the text model plus only the named artifact changes.

`fabricsim reproduce PAPER --one-change` runs every single change; at paper scale one AccelToR point
costs minutes to over an hour of CPU, so this runs one chosen change, or a group, alone:

    PYTHONPATH=python python benches/reproduce_subset.py acceltor eps-fat-tree OUT \\
        --only compare/acceltor,compare/blocking --scale paper

The changes are named as in the paper module's ARTIFACT list (comma-separated); the output's
"artifact" column is then the text model plus those changes only.
"""
import argparse
import importlib
import sys


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paper", help="acceltor, flash, ppt, retcp or sab")
    ap.add_argument("changes", help="artifact changes to keep, comma-separated, as named in the module's ARTIFACT")
    ap.add_argument("output", help="output directory (its own store)")
    ap.add_argument("--only", required=True, help="point prefixes, comma-separated (as reproduce --only)")
    ap.add_argument("--scale", default="reduced", choices=["reduced", "paper"])
    a = ap.parse_args()
    module = importlib.import_module(f"fabricsim.reproduce.{a.paper}")
    keep = a.changes.split(",")
    names = [c.name for c in module.ARTIFACT]
    unknown = [k for k in keep if k not in names]
    if unknown:
        sys.exit(f"changes: {', '.join(unknown)} not in {a.paper}'s ARTIFACT ({', '.join(names)})")
    module.ARTIFACT[:] = [c for c in module.ARTIFACT if c.name in keep]
    print("text model plus:", ", ".join(c.name for c in module.ARTIFACT), flush=True)
    from fabricsim import cli
    sys.argv = ["fabricsim", "reproduce", a.paper, "--scale", a.scale, "--model", "artifact", "--only", a.only,
                "--jobs", "1", "--no-progress", "-o", a.output]
    cli.main()


if __name__ == "__main__":
    main()
