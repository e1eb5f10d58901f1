"""One-command reproductions of the seed papers: ``fabricsim reproduce <paper>``.

Each reproduction runs the paper's experiments (a list of scenario points) on a process pool,
writes the per-point results, the figures and a "paper vs ours" table of the headline numbers
(from the paper's figures and tables), each with its band and a pass/miss mark. Two scales: the default reduced scale
(same per-link parameters, fewer weeks/flows) that finishes in minutes, and ``--scale paper``.
A miss is reported as such, never tuned away.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .common import Headline, run_points

PAPERS = {
    "retcp": "reTCP + dynamic VOQ resizing on a reconfigurable datacenter network (Mukerjee et al., NSDI 2020)",
    "sab": "SAB: switches allocate buffer as windows; vs TCP, DCTCP, D2TCP (Zhang et al., IEEE JSAC 2014)",
    "flash": "Flash: congestion-aware priorities + L2DCT + push-out; vs DCTCP, L2DCT, PIAS, pFabric (Gao et al.)",
    "acceltor": "AccelToR: accelerating TCP on circuit/packet hybrid ToRs; vs Blocking, Unblocking (Chen et al., IEEE/ACM ToN)",
    "ppt": "PPT: DCTCP plus a low-priority loop and buffer-aware scheduling; vs NDP, Aeolus, Homa, RC3, DCTCP (Suo et al.)",
}


#: The verdict counts last recorded in docs/reproductions/PAPER.md (date, scale, the two model
#: columns), shown by `fabricsim reproduce list` beside those of a run's output at hand.
RECORDED = {
    "retcp": "reduced 2026-11-26: text 25 pass, 18 MISS; artifact 34 pass, 9 MISS (of 43); paper scale: text 26, artifact 35 pass",
    "sab": "reduced 2026-11-26: text 43 pass, 24 MISS; artifact 41 pass, 26 MISS (of 67); paper scale: text 39, artifact 38 pass",
    "flash": "reduced: text 9 pass, 16 MISS (2026-11-26); artifact 14 pass, 11 MISS (of 25; twelve changes, 2026-11-29, session 26; eleven and ten 13 pass, 12 MISS); paper scale, every row (main/ 2026-11-27, fast/ and queues/ 2026-11-28): text 10 pass, 15 MISS; artifact 18 pass, 7 MISS (of 25; main/ with seven changes, the rest nine; web search with ten and with twelve, the mix with eleven and with twelve, fast/ and queues/ with eleven and with twelve, 2026-11-29: the same verdicts; the mix with twelve: Flash vs PIAS 5.2 %, vs DCTCP 13.1 %)",
    "ppt": "reduced 2026-11-27 (session 14's ns-3 stack): text 17 pass, 66 MISS; artifact 17 pass, 66 MISS (of 83); paper scale, every point, 2026-11-28: text 18 pass, 65 MISS; artifact 12 pass, 71 MISS; the 2 central claims at paper scale: text 0 pass, artifact 0 pass",
    "acceltor": "reduced (8 racks), every point: text 4 pass, 20 MISS (2026-11-27); artifact 3 pass, 21 MISS (of 24, 2026-11-29, sixteen changes, with forget-keeps-count and lp-by-bytes-left: 87.3 %, 1.96x Blocking, 7.92x Unblocking; fourteen changes 6 pass, 18 MISS); the 3 central claims at paper scale (50 racks, 5 s): text 0 pass (2026-11-28), artifact 0 pass (2026-11-29, sixteen changes: 41.7 %, 3.87x Blocking, 39.1x Unblocking; fourteen: 26.1 %, 2.39x, 24.8x); with the scripts' traffic (two readings, not adopted: --changes=+elephants-from-rack-0,+mice-150kb-from-rack-0) 1 pass (9.63x Blocking; 85.5 % and 27.9x Unblocking MISS); Fig. 8's rack sweep at paper scale (8-72 racks), text 2026-11-28: 1 pass, 2 MISS of its 3 rows; artifact all 27 runs (2026-11-29, before ns3-rto-backoff): 1 pass, 2 MISS (AccelToR 27-29.8 % from 24 to 72 racks, lowest 27.1 %; Blocking 72/8 racks 0.238x)",
}


def last_run(paper: str, where: str | Path = ".") -> Optional[Path]:
    """The headlines.csv of `paper`'s output under `where`: WHERE/reproduce-PAPER (the default
    output directory) or WHERE/PAPER; None if neither has one."""
    w = Path(where)
    for d in (w / f"reproduce-{paper}", w / paper):
        if (d / "headlines.csv").exists():
            return d / "headlines.csv"
    return None


def reproduce(paper: str, **kwargs):
    """Run the reproduction of `paper` (see PAPERS); returns its report (a dict of frames)."""
    if paper == "retcp":
        from . import retcp

        return retcp.reproduce(**kwargs)
    if paper == "sab":
        from . import sab

        return sab.reproduce(**kwargs)
    if paper == "flash":
        from . import flash

        return flash.reproduce(**kwargs)
    if paper == "ppt":
        from . import ppt

        return ppt.reproduce(**kwargs)
    if paper == "acceltor":
        from . import acceltor

        return acceltor.reproduce(**kwargs)
    raise KeyError(f"no reproduction '{paper}'; available: {', '.join(PAPERS)}")


__all__ = ["PAPERS", "RECORDED", "last_run", "reproduce", "Headline", "run_points"]
