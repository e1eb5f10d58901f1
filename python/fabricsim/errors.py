"""The exceptions fabricsim raises for bad input and damaged files. The CLI prints their message
as `error: ...` and exits non-zero; the Python API raises them with the same message.

    FabricsimError            every error below
      ScenarioError           a scenario (or a sweep file, or an override) has problems; .issues
      ResultsError            a results directory cannot be written, or what is on disk is damaged
                              or does not belong to one run
      SweepError              a sweep store belongs to another sweep, or another writer holds it
      MissingFileError        an input file does not exist (also a FileNotFoundError)
      UsageError              an argument of a command or function is out of range

All but MissingFileError are ValueErrors too, so `except ValueError` keeps working.

ScenarioWarning (a UserWarning) is issued by `run` for settings that run but are probably not
what was meant; `fabricsim.scenario_warnings` lists them without running.
"""

from __future__ import annotations


class FabricsimError(Exception):
    """Base of fabricsim's own errors."""


#: Problems a message lists before "... and N more" (the full list stays in ``.issues``): a
#: generated scenario can have thousands of the same kind, e.g. every flow starting too late.
LISTED_PROBLEMS = 20
#: The same, for one-line messages.
LISTED_ON_ONE_LINE = 5


def issues_line(issues: list[tuple[str, str]], limit: int = LISTED_ON_ONE_LINE) -> str:
    """The first `limit` problems on one line, "key: message; key: message; ... and N more"."""
    shown = "; ".join(f"{p}: {m}" if p else m for p, m in issues[:limit])
    more = len(issues) - limit
    return shown + (f"; ... and {more} more problem{'s' if more != 1 else ''}" if more > 0 else "")


class ScenarioError(FabricsimError, ValueError):
    """A scenario has problems; ``.issues`` lists (key path, message) pairs."""

    def __init__(self, issues: list[tuple[str, str]], source: str = "scenario"):
        self.issues = issues
        self.source = source
        n = len(issues)
        lines = [f"{source} has {n} problem{'s' if n != 1 else ''}:"]
        lines += [f"  - {p}: {m}" if p else f"  - {m}" for p, m in issues[:LISTED_PROBLEMS]]
        if n > LISTED_PROBLEMS:
            lines.append(f"  ... and {n - LISTED_PROBLEMS} more")
        super().__init__("\n".join(lines))

    def one_line(self) -> str:
        """The problems on one line: "source: key: message; key: message" (the first few)."""
        return f"{self.source}: " + issues_line(self.issues)


class ResultsError(FabricsimError, ValueError):
    """A results directory cannot be written where asked, or what is on disk is not one whole run."""


class SweepError(FabricsimError, ValueError):
    """A sweep store belongs to another sweep, or is in use by another writer."""


class MissingFileError(FabricsimError, FileNotFoundError):
    """An input file (scenario, sweep, CDF) does not exist."""


class UsageError(FabricsimError, ValueError):
    """An argument of a command or an API function is out of range (a repeat count of 0, an
    --only prefix that selects nothing)."""


class ScenarioWarning(UserWarning):
    """A scenario runs, but probably not as meant (Homa over fewer queues than its priority
    levels, DCTCP where no port marks ECN, ...); the message names the key to change."""
