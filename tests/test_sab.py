"""SAB and its reproduction from the user's side: scenarios, errors, results, the CLI."""

import subprocess
import sys

import pytest

import fabricsim
from fabricsim.reproduce import sab


def incast_doc(cc: str, n: int = 16) -> dict:
    return {
        "simulation": {"end": "2s", "stop_when_done": True},
        "topology": {"kind": "star", "hosts": n + 1, "link": {"rate": "1Gbps", "delay": "25us"}},
        "queue": {"buffer": "512KB"},
        "transport": {"cc": cc, "initial_cwnd": 3, "delayed_ack": 1},
        "incast": [{"receiver": "h0", "senders": n, "block": "256KB", "rounds": 2, "connections": "persistent"}],
    }


def test_sab_incast_is_lossless_and_every_connection_opens_with_a_syn():
    res = fabricsim.run(incast_doc("sab"), progress=False)
    assert int(res.ports["drops"].sum()) == 0
    f = res.flows
    assert len(f) == 16 and f["fct_s"].notna().all() and (f["size"] == 512_000).all()
    # The SYN round trip: 2 x (25 us + 52 B at 1 Gb/s) each way, plus queueing behind other SYNs.
    assert (f["setup_s"] >= 4 * (25e-6 + 52 * 8 / 1e9) - 1e-12).all()
    p = res.port("s0->h0")
    assert (p["sab_peak_flows"], p["sab_flows"]) == (16, 0), "16 SYNs counted, 16 FINs after the last round"
    assert p["sab_rewrites"] > 0 and res.port("s0->h1")["sab_rewrites"] == 0


def test_sab_settings_are_checked_with_their_key():
    doc = incast_doc("sab")
    doc["sab"] = {"epsilon": 1.5}
    with pytest.raises(fabricsim.ScenarioError, match=r"sab\.epsilon"):
        fabricsim.validate(doc)
    doc = incast_doc("sab")
    doc["transport"]["handshake"] = False
    with pytest.raises(fabricsim.ScenarioError, match=r"transport\.handshake"):
        fabricsim.validate(doc)
    doc = incast_doc("sab")
    doc["queue"]["buffer"] = "unlimited"
    with pytest.raises(fabricsim.ScenarioError, match=r"sab\.buffer"):
        fabricsim.validate(doc)


def test_fixed_and_truncated_workload_sizes():
    doc = {
        "simulation": {"end": "200ms"},
        "topology": {"kind": "star", "hosts": 4, "link": {"rate": "10Gbps", "delay": "1us"}},
        "workload": [{"name": "q", "size": "2KB", "load": 0.05, "deadline_per_kb": "10ms"},
                     {"name": "m", "cdf": "websearch", "size_range": ["100KB", "1MB"], "load": 0.1}],
    }
    f = fabricsim.run(doc, progress=False).flows
    q, m = f[f.workload == "q"], f[f.workload == "m"]
    assert len(q) > 100 and (q["size"] == 2000).all() and (q["deadline_s"] == 0.02).all()
    assert len(m) > 5 and m["size"].between(100_000, 1_000_000).all()
    doc["workload"][1]["size_range"] = ["1MB", "100KB"]
    with pytest.raises(fabricsim.ScenarioError, match=r"workload\[1\]\.size_range"):
        fabricsim.validate(doc)


def test_every_reproduction_point_is_a_valid_scenario():
    for scale in sab.SCALES:
        for name, doc, _ in sab.points(scale):
            fabricsim.validate(doc)  # raises with the key path if not


def test_reproduce_sab_runs_from_the_cli(tmp_path):
    out = tmp_path / "rep"
    p = subprocess.run([sys.executable, "-m", "fabricsim", "reproduce", "sab", "--only", "conv/sab,eps/0.5", "--jobs", "1",
                        "--no-progress", "-o", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "paper vs ours" in p.stdout and "convergence to the fair share: SAB" in p.stdout
    assert (out / "runs.csv").exists() and (out / "fig3_fig5_convergence.png").exists() and (out / "fig21_epsilon.png").exists()


def test_sab_queue_and_dctcp_incast_shapes_are_scored():
    # Fig. 5: SAB's queue "small and stable" like DCTCP's; a standing queue 7x DCTCP's is a miss.
    def conv(queue_kb):
        return {"time_s": [0.0], "gbps_h2": [0.0], "queue_kb": queue_kb}

    def rows(sab_q, tcp_peak=500.0, dctcp_curve=(0.95, 0.9, 0.7)):
        r = {"conv/sab": conv([0, sab_q, sab_q, 0]), "conv/dctcp": conv([0, 35.0, 30.0, 0]),
             "conv/tcp": conv([0, tcp_peak, 256.0, 0])}
        for s, curve in (("sab", (0.95, 0.95, 0.95)), ("tcp", (0.9, 0.2, 0.1)), ("dctcp", dctcp_curve)):
            for n, g in zip((16, 40, 64), curve):
                r[f"incast/{s}/{n}"] = {"goodput_gbps": g, "drops": 0}
        return {h.name: h for h in sab.headlines(r, "reduced")}

    good = rows(40.0)
    assert good["Fig. 5: SAB mean queue / DCTCP's (both 'small and stable')"].passed
    assert good["Fig. 5: TCP peak queue / buffer ('probes the maximum')"].passed
    assert good["incast: DCTCP goodput at the largest N / at N = 40"].passed
    assert rows(245.0)["Fig. 5: SAB mean queue / DCTCP's (both 'small and stable')"].passed is False
    # A DCTCP that never degrades passes the old threshold headline but not the shape.
    flat = rows(40.0, dctcp_curve=(0.95, 0.95, 0.95))
    assert flat["incast: DCTCP degrades (goodput < 0.5 Gb/s) from N"].passed
    assert flat["incast: DCTCP goodput at the largest N / at N = 40"].passed is False


def test_fig4_joining_flow_is_read_from_the_200_ms_window():
    # 10 ms samples (sample end times); the second flow starts at 0.25 s. Hand-made series: 0.3 Gb/s
    # in the sample ending 10 ms after its start, 0.45 Gb/s (90 % of 0.5) in the one ending at
    # 20 ms, a peak of 0.65 Gb/s at 70 ms: an overshoot of 50 ms.
    gap = 0.25
    t = [gap + 0.01 * k for k in range(-3, 25)]
    b = [0.0] * 3 + [0.1, 0.3, 0.45, 0.5, 0.55, 0.6, 0.62, 0.65, 0.6] + [0.5] * 16
    d = {"time_s": t, "gbps_h2": b}
    ms, g = sab.fig4_series(d, gap)
    assert len(ms) == 20 and ms[0] == pytest.approx(10) and ms[-1] == pytest.approx(200)
    assert sab.overshoot_ms(d, gap) == pytest.approx(50)
    assert sab.settled_deviation_gbps(d, gap) == pytest.approx(0.15)  # the peak; the first sample is skipped
    # Never above 1.1 x the fair share: no overshoot; never at 90 %: undefined.
    assert sab.overshoot_ms({"time_s": t, "gbps_h2": [min(x, 0.52) for x in b]}, gap) == 0.0
    assert sab.overshoot_ms({"time_s": t, "gbps_h2": [0.2] * len(t)}, gap) != sab.overshoot_ms({"time_s": t, "gbps_h2": [0.2] * len(t)}, gap)
    flat = {"time_s": t, "gbps_h2": [0.5] * len(t), "queue_kb": []}
    swing = {"time_s": t, "gbps_h2": [0.9, 0.1] * (len(t) // 2), "queue_kb": []}
    assert sab.mean_deviation_gbps(flat, gap) == 0.0 and sab.mean_deviation_gbps(swing, gap) == pytest.approx(0.4)
    rows = {h.name: h for h in sab.headlines({"conv/sab": flat, "conv/dctcp": d, "conv/tcp": swing}, "reduced")}
    assert rows["Fig. 4: DCTCP keeps rising past the fair share for"].passed
    assert rows["Fig. 4: SAB joining flow, largest distance from 0.5 Gb/s after 10 ms"].passed
    assert rows["Fig. 4: joining flow's mean distance from 0.5 Gb/s, TCP / DCTCP"].passed
    rows = {h.name: h for h in sab.headlines({"conv/sab": swing, "conv/dctcp": swing, "conv/tcp": flat}, "reduced")}
    assert rows["Fig. 4: DCTCP keeps rising past the fair share for"].ours == 0.0  # highest at the first reach
    assert rows["Fig. 4: SAB joining flow, largest distance from 0.5 Gb/s after 10 ms"].passed is False
    assert rows["Fig. 4: joining flow's mean distance from 0.5 Gb/s, TCP / DCTCP"].ours == 0.0


def test_fig7_fig8_spread_and_long_to_short_ratio():
    assert sab.jain([1, 1, 1, 1]) == pytest.approx(1.0) and sab.jain([1, 0, 0, 0]) == pytest.approx(0.25)

    def multi(L, S, F):
        port = {"gbps": 1.0, "drops": 0, "mean_queue_kb": 0.0}
        return {"gbps_L": L, "gbps_S": S, "gbps_F": F, "R1->M": port, "R2->h5": port}

    r = {"multi/sab": multi([0.04] * 5, [0.08] * 10, [0.06] * 15), "multi/dctcp": multi([0.05] * 5, [0.07, 0.09] * 5, [0.06] * 15),
         "multi/tcp": multi([0.01] * 5, [0.2, 0.05] * 5, [0.06] * 15)}
    rows = {h.name: h for h in sab.headlines(r, "reduced")}
    spread = rows["Fig. 7: per-flow spread at R1 (max - min), TCP / larger of SAB's and DCTCP's"]
    assert spread.ours == pytest.approx((0.2 - 0.01) / (0.09 - 0.05)) and spread.passed
    assert rows["Fig. 8: SAB slowest L flow / fastest F flow at R2"].ours == pytest.approx(0.04 / 0.06)
    r["multi/sab"]["gbps_F"][3] = 0.1  # one F flow 2.5x the slowest L flow: "more than half" fails
    assert {h.name: h for h in sab.headlines(r, "reduced")}["Fig. 8: SAB slowest L flow / fastest F flow at R2"].passed is False


def test_outcast_group_sizes_are_scored_over_every_size():
    def oc(short, long_, drops=0):
        return {"short_mean_gbps": short, "long_mean_gbps": long_, "drops": drops}

    r = {}
    for nf, nl in sab.OUTCAST_SIZES:
        r[f"outcast/tcp/{nf}v{nl}"] = oc(0.02, 0.09)
        r[f"outcast/sab/{nf}v{nl}"] = oc(0.09, 0.088)
    names = {h.name: h for h in sab.headlines(r, "reduced")}
    tcp = next(h for n, h in names.items() if n.startswith("outcast") and "TCP short / long" in n)
    assert "2v2" not in tcp.name, "equal groups are no outcast setting"
    assert tcp.passed and tcp.ours == pytest.approx(0.02 / 0.09)
    r["outcast/tcp/2v6"] = oc(0.5, 0.0)  # the long flows locked out: inverse of the paper's victim
    r["outcast/sab/1v10"] = oc(0.09, 0.088, drops=3)
    names = {h.name: h for h in sab.headlines(r, "reduced")}
    assert next(h for n, h in names.items() if "TCP short / long" in n).passed is False
    assert next(h for n, h in names.items() if n.startswith("outcast 1v10") and n.endswith("SAB drops")).passed is False


def test_large_topology_headlines_follow_the_text_of_fig23_fig24():
    def run(mean, p999, p9999, bg_mean, bg_p95):
        return {"query_mean_ms": mean, "query_p99.9_ms": p999, "query_p99.99_ms": p9999, "bg_mean_ms": bg_mean, "bg_p95_ms": bg_p95}

    # The paper's picture: SAB 0.01 ms faster than D2TCP, 0.02 than DCTCP; D2TCP's p99.9 below
    # SAB's but its p99.99 far above; SAB's p99.99 close to its p99.9; TCP times out.
    r = {"large/sab": run(0.30, 1.0, 1.1, 50, 110), "large/d2tcp": run(0.31, 0.9, 3.0, 50, 100),
         "large/dctcp": run(0.32, 1.2, 1.3, 50, 100), "large/tcp": run(0.5, 5.0, 210, 70, 140)}
    rows = sab.large_headlines(r)
    assert len(rows) == 8 and all(h.passed for h in rows), [(h.name, h.ours) for h in rows if not h.passed]
    assert rows[0].ours == pytest.approx(-0.01) and rows[1].ours == pytest.approx(-0.02)
    # Half a millisecond faster on average than the others (the paper: 0.01-0.02 ms), and a p99.9
    # below D2TCP's: misses.
    r["large/sab"] = run(0.30 - 0.49, 0.8, 0.85, 50, 110)
    assert [h.passed for h in sab.large_headlines(r)][:3] == [False, False, False]
    assert sab.large_headlines({"large/sab": r["large/sab"]}) == []


def test_prop2_bound_is_the_papers_example_and_is_scored():
    # §IV-C: C = 1 Gb/s, D = 100/300 us, B = 512 KB give eta_max = (512 + 12.5 - 37.5)/(512 + 12.5 + 37.5).
    eta = sab.prop2_eta_max()
    assert eta == pytest.approx(487 / 562) and round(eta, 4) == 0.8665
    eps = sab.prop2_epsilon()
    # At eta_max both ends of eq. (3) meet: (1 + eta) CD_max / B = (1 - eta)(B + CD_min) / B.
    assert eps == pytest.approx((1 - eta) * (512 + 12.5) / 512)

    def p(util, drops):
        return {"utilization": util, "drops": drops}

    r = {f"prop2/{e:+g}": p(1.0, 0) for e in sab.PROP2_ERRORS}
    for e in (-0.95, -0.9, -0.88):
        r[f"prop2/{e:+g}"] = p(1.0, 100)
    rows = {h.name.split(" (")[0]: h for h in sab.prop2_headlines(r)}
    assert rows["Prop. 2: lowest utilization, |count error| <= eta_max"].passed
    assert rows["Prop. 2: drops, |count error| <= eta_max"].passed
    assert rows["Prop. 2: smallest under-count error with losses"].ours == pytest.approx(0.88)
    r["prop2/-0.8665"] = p(1.0, 5)  # a loss inside the bound breaks both
    rows = {h.name.split(" (")[0]: h for h in sab.prop2_headlines(r)}
    assert rows["Prop. 2: drops, |count error| <= eta_max"].passed is False
    assert rows["Prop. 2: smallest under-count error with losses"].passed is False


def test_prop2_run_at_the_bound_queues_the_window_sum_less_the_pipe():
    # N_hat = 100 x (1 - 0.8665) = 13.35 -> each window floor(eps B / 13.35) = 5243 B = 5 segments
    # of 960 B; 100 flows x 5 x 1000 B on the wire = 500 KB, less the 12.5-37.5 KB in flight
    # (CD_min..CD_max), is queued: below B = 512 KB, so nothing is lost. An under-count of 0.95
    # gives 14 segments each, 1.4 MB: losses.
    res = fabricsim.run(sab.prop2_point(-0.8665, 0.05), progress=False)
    out = sab.extract_prop2(res)
    assert out["drops"] == 0 and out["utilization"] > 0.99 and out["sab_peak_flows"] == 100
    assert 500 - 37.5 - 1 <= out["mean_queue_kb"] <= 500 - 12.5
    assert sab.extract_prop2(fabricsim.run(sab.prop2_point(-0.95, 0.05), progress=False))["drops"] > 0


def test_fig22_rate_limit_is_applied_to_set_l_and_scored_by_shape():
    doc = sab.rate_limited(True, 0.5)
    limited = [f for f in doc["flows"] if f.get("transport") == "limited"]
    assert len(limited) == 200 and all(f["src"] == "h1" for f in limited)
    assert doc["transports"]["limited"]["app_rate"] == "750000bps"   # 150 Mb/s over 200 flows
    assert "transports" not in sab.rate_limited(False, 0.5)

    def run(L, S, F, payload=None):
        return {"L_mbps": L, "S_mbps": S, "F_mbps": F, "R1_mbps": S + L, "R2_mbps": F + L, "L_payload_mbps": payload or L}

    paper = {"ratelimit/off": run(270, 720, 720), "ratelimit/on": run(160, 840, 840, 150)}
    assert all(h.passed for h in sab.ratelimit_headlines(paper))
    # S and F that do not take what L gives up: every value band could pass, the shape cannot.
    flat = {"ratelimit/off": run(270, 730, 730), "ratelimit/on": run(160, 730, 730, 150)}
    rows = {h.name: h for h in sab.ratelimit_headlines(flat)}
    assert rows["Fig. 22: S and F with L limited / without (lower)"].passed is False
    assert rows["Fig. 22: R1 and R2 with L limited, lower / 1 Gb/s"].passed is False
