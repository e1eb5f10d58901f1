"""One-command reproductions of the seed papers: ``fabricsim reproduce <paper>``.

Each reproduction runs the paper's experiments (a list of scenario points) on a process pool,
writes the per-point results, the figures and a "paper vs ours" table of the headline numbers
(from the paper's figures and tables), each with its band and a pass/miss mark. Two scales: the default reduced scale
(same per-link parameters, fewer weeks/flows) that finishes in minutes, and ``--scale paper``.
A miss is reported as such, never tuned away.
"""

from __future__ import annotations

from .common import Headline, run_points

PAPERS = {
    "retcp": "reTCP + dynamic VOQ resizing on a reconfigurable datacenter network (Mukerjee et al., NSDI 2020)",
    "sab": "SAB: switches allocate buffer as windows; vs TCP, DCTCP, D2TCP (Zhang et al., IEEE JSAC 2014)",
    "flash": "Flash: congestion-aware priorities + L2DCT + push-out; vs DCTCP, L2DCT, PIAS, pFabric (Gao et al.)",
    "acceltor": "AccelToR: accelerating TCP on circuit/packet hybrid ToRs; vs Blocking, Unblocking (Chen et al., IEEE/ACM ToN)",
    "ppt": "PPT: DCTCP plus a low-priority loop and buffer-aware scheduling; vs NDP, Aeolus, Homa, RC3, DCTCP (Suo et al.)",
}


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


__all__ = ["PAPERS", "reproduce", "Headline", "run_points"]
