"""HPCC and the Swift-like window from the user's side: listed with their knobs, run from a
scenario with cc_params, checked with one-line errors, and swept like any other cc."""

import pytest

import fabricsim
from fabricsim.sweep import Sweep, run_sweep


def star(cc: str, n: int = 2, size: str = "300KB", **transport) -> dict:
    return {
        "simulation": {"end": "20ms"},
        "topology": {"kind": "star", "hosts": n + 1, "link": {"rate": "10Gbps", "delay": "5us"}},
        "queue": {"buffer": "200pkt"},
        "transport": {"cc": cc, "min_rto": "1ms", **transport},
        "flows": [{"src": f"h{i}", "dst": "h0", "size": size} for i in range(1, n + 1)],
    }


def test_listed_with_their_knobs():
    ccs = fabricsim.congestion_controls()
    assert "hpcc" in ccs and "swift" in ccs
    hpcc = {k["name"]: k["default"] for k in fabricsim.cc_params("hpcc")}
    assert hpcc == {"eta": 0.95, "max_stage": 5, "w_ai_bytes": 0, "ai_flows": 100, "t_us": 0, "w_max_bytes": 0,
                    # htsim's HPCCSrc readings, off by default (docs/CONGESTION_CONTROL.md)
                    "reference_update": 0, "int_reference": 0, "tau_ratio": 0, "u_init": 0, "unmeasured_ack": 0,
                    "int_queue": 0, "int_hops": 0, "window_rounding": 0, "int_record": 0, "send_timing": 0,
                    "u_arithmetic": 0}
    swift = {k["name"]: k["default"] for k in fabricsim.cc_params("swift")}
    assert swift["max_mdf"] == 0.5 and swift["beta"] == 0.8 and swift["fs_range_us"] == 50


def test_runs_and_knobs_change_the_run():
    # eta 0.95 vs 0.5 on a shared port: the lower target leaves more of the link idle, so the
    # two 300 KB flows take longer (at least 0.95/0.5 times as long, minus the first window).
    a = fabricsim.run(star("hpcc"), progress=False)
    b = fabricsim.run(star("hpcc", cc_params={"eta": 0.5}), progress=False)
    fa, fb = a.flows["fct_s"].max(), b.flows["fct_s"].max()
    assert a.flows["fct_s"].notna().all() and fb > 1.5 * fa
    assert (a.flows["cc"] == "hpcc").all()
    s = fabricsim.run(star("swift"), progress=False)
    assert s.flows["fct_s"].notna().all() and int(s.ports["drops"].sum()) == 0


def test_contrary_settings_are_errors_with_their_key():
    with pytest.raises(fabricsim.ScenarioError, match=r"transport\.telemetry: hpcc reads in-band telemetry"):
        fabricsim.validate(star("hpcc", telemetry=False))
    with pytest.raises(fabricsim.ScenarioError, match=r"transport\.delayed_ack: 2: swift needs an ACK per data packet"):
        fabricsim.validate(star("swift", delayed_ack=2))
    with pytest.raises(fabricsim.ScenarioError, match=r"transport\.cc_params\.eta: 1\.5 is not a number in \[0\.01, 1\]"):
        fabricsim.validate(star("hpcc", cc_params={"eta": 1.5}))


def test_swept_like_any_cc(tmp_path):
    s = Sweep(star("dctcp"), axes={"cc": ["dctcp", "hpcc", "swift"]})
    r = run_sweep(s, tmp_path / "sw", workers=1, progress=False)
    assert len(r.done) == 3 and not r.failed
