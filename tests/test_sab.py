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


def test_mix_at_the_testbeds_flow_rate_arrives_at_55_flows_per_second():
    # Mean sizes under the linear reading. The whole web-search table: the value its file states
    # (mean_bytes_linear 1665830.8). Its 100 KB - 1 MB part by hand: 77 380-194 180 B carries 0.07,
    # of which (194 180 - 100 000)/116 800 lies above 100 KB (midpoint 147 090 B); 194 180-973 820 B
    # carries 0.1 (midpoint 584 000 B); 973 820-1 946 180 B carries 0.1, of which 26 180/972 360
    # lies below 1 MB (midpoint 986 910 B).
    pts = sab.cdf_points("websearch")
    assert sab.linear_mean(pts) == pytest.approx(1665830.8, abs=0.1)
    m = [0.07 * 94_180 / 116_800, 0.1, 0.1 * 26_180 / 972_360]
    want = (m[0] * 147_090 + m[1] * 584_000 + m[2] * 986_910) / sum(m)
    assert sab.linear_mean(pts, 100_000, 1_000_000) == pytest.approx(want, rel=1e-9)
    assert sab.linear_mean([(2000, 0.0), (2000, 1.0)]) == 2000  # a point mass (the 2 KB queries)
    # §V-B.6: 33 K flows in 10 minutes. Counted in a run, not taken from the loads: Poisson
    # arrivals over 20 s, 1100 expected, sd 33; the shares stay ours (queries 5625 of 5957 flows/s
    # at our loads: 2 KB at 1 % of nine 1 Gb/s links).
    assert sab.PAPER_FLOWS_PER_S == pytest.approx(55)
    f = fabricsim.run(sab.mix_at_paper_rate("sab", 20.0), progress=False).flows
    assert abs(len(f) - 1100) <= 4 * 33
    assert (f.workload == "query").mean() == pytest.approx(5625 / 5956.66, abs=0.03)
    for scale, least in (("reduced", 300), ("paper", 3000)):
        pts = {k for k, _, _ in sab.points(scale)}
        assert {f"sensitivity/rate/{s}" for s in sab.MIX_SCHEMES} <= pts
        assert sab.PAPER_FLOWS_PER_S * sab.SCALES[scale]["rate_s"] >= least
    # Reported beside the main mix, and scored nowhere.
    r = {f"{p}/{s}": {"flows": 10, "query_mean_ms": 1.0, "query_p99_ms": 2.0, "query_p999_ms": 3.0, "query_max_ms": 4.0,
                      "short_mean_ms": 5.0, "bg_mean_ms": 6.0, "deadline_miss": 0.0, "timeouts": 0}
         for p in ("mix", "sensitivity/rate") for s in sab.MIX_SCHEMES}
    t = sab.rate_table(r)
    assert len(t) == 8 and set(t["mix"]) == {"ours", "55 flows/s"}
    assert not any(h.name.startswith(("sensitivity", "55")) for h in sab.headlines({k: v for k, v in r.items() if k.startswith("sens")}, "reduced"))


def mix_result(q_mean, q_p999, per_kb_mean=1.0, per_kb_p999=1.1, bins=(1.0, 1.0, 1.0, 1.0)):
    out = {"query_mean_ms": q_mean, "query_p999_ms": q_p999, "per_kb_mean_ms": per_kb_mean, "per_kb_p999_ms": per_kb_p999}
    out.update({f"bg_p999_ms_{b[2]}": v for b, v in zip(sab.SIZE_BINS, bins)})
    return out


def test_orderings_without_a_size_need_a_margin_and_much_means_twice():
    # §V-B.6: "D2TCP works better than DCTCP" — a D2TCP that behaves as DCTCP (ratio 1) must miss.
    # "SAB performs much better than both DCTCP, D2TCP and TCP, especially at the tail": half at most.
    r = {"mix/sab": mix_result(0.4, 2.0), "mix/tcp": mix_result(5.0, 200.0), "mix/dctcp": mix_result(1.0, 5.0),
         "mix/d2tcp": mix_result(1.0, 5.0)}
    rows = {h.name: h for h in sab.headlines(r, "reduced")}
    assert rows["mix: D2TCP query p99.9 / DCTCP's"].passed is False
    assert rows["mix: SAB query p99.9 FCT / best other"].passed and rows["mix: SAB query mean FCT / best other"].passed
    r["mix/d2tcp"] = mix_result(0.9, 4.5)
    r["mix/sab"] = mix_result(0.6, 3.0)  # better than the others, not much better
    rows = {h.name: h for h in sab.headlines(r, "reduced")}
    assert rows["mix: D2TCP query p99.9 / DCTCP's"].passed
    assert rows["mix: SAB query p99.9 FCT / best other"].passed is False
    assert rows["mix: SAB query mean FCT / best other"].passed is False


def test_fig17_fig18_shapes_are_scored():
    # Fig. 17: SAB better than every other below 10 KB, worse than every other above; Fig. 18: SAB's
    # time per KB lowest, its p99.9 close to its mean.
    other = mix_result(1.0, 5.0, per_kb_mean=1.0, per_kb_p999=3.0, bins=(10.0, 20.0, 100.0, 1000.0))
    r = {"mix/sab": mix_result(0.4, 2.0, per_kb_mean=0.8, per_kb_p999=0.9, bins=(8.0, 30.0, 150.0, 1300.0)),
         "mix/tcp": other, "mix/dctcp": other, "mix/d2tcp": other}
    names = ["Fig. 17: SAB background p99.9 FCT <10KB / best other",
             "Fig. 17: SAB background p99.9 FCT / worst other, lowest over the bins >= 10KB",
             "Fig. 18: SAB mean time per KB / best other", "Fig. 18: SAB time per KB, p99.9 / mean"]
    rows = {h.name: h for h in sab.headlines(r, "reduced")}
    assert [rows[n].passed for n in names] == [True, True, True, True]
    assert rows[names[1]].ours == pytest.approx(1300 / 1000)  # the lowest of 30/20, 150/100, 1300/1000
    # The inverse picture (SAB worse for small flows, better for large, slower per KB, a long tail).
    r["mix/sab"] = mix_result(0.4, 2.0, per_kb_mean=1.2, per_kb_p999=3.6, bins=(12.0, 15.0, 150.0, 1300.0))
    rows = {h.name: h for h in sab.headlines(r, "reduced")}
    assert [rows[n].passed for n in names] == [False, False, False, False]


def test_outcast_fairness_is_bounded_by_the_rtt_ratio_on_both_sides():
    # Equal SAB windows give the short-RTT flows at most the base-RTT ratio, 150/100 us, more.
    def oc(short, long_):
        return {"short_mean_gbps": short, "long_mean_gbps": long_, "drops": 0}

    assert sab.outcast_rtt_ratio() == pytest.approx((6 * 25) / (4 * 25))
    r = {"outcast/tcp": oc(0.02, 0.09), "outcast/sab": oc(0.2, 0.08)}
    for nf, nl in sab.OUTCAST_SIZES:
        r[f"outcast/sab/{nf}v{nl}"] = oc(0.09, 0.088)
    r["outcast/sab/2v6"] = oc(0.3, 0.1)
    rows = {h.name: h for h in sab.headlines(r, "reduced")}
    assert rows["outcast: SAB short / long flow throughput"].passed is False  # 2.5x: not "fair"
    assert rows["outcast 1v10, 2v6, 2v2: SAB short / long, lowest"].passed
    assert rows["outcast 1v10, 2v6, 2v2: SAB short / long, highest"].passed is False


def test_incast_dctcp_decline_is_gradual_and_tcp_loses_most():
    def rows(dctcp, drops):
        r = {}
        for s, curve in (("sab", (0.95, 0.95, 0.95)), ("tcp", (0.9, 0.2, 0.1)), ("dctcp", dctcp)):
            for n, g in zip((16, 40, 100), curve):
                r[f"incast/{s}/{n}"] = {"goodput_gbps": g, "drops": drops[s] if n == 100 else 0}
        return {h.name: h for h in sab.headlines(r, "reduced")}

    decline, fig11 = "incast: DCTCP goodput at the largest N / at N = 40", "Fig. 11: incast drops over all N, TCP / larger of SAB's and DCTCP's"
    ok = rows((0.95, 0.95, 0.7), {"sab": 0, "tcp": 900, "dctcp": 40})
    assert ok[decline].passed and ok[fig11].passed and ok[fig11].ours == pytest.approx(900 / 40)
    # A DCTCP that collapses like TCP: below 0.5 only past 40, so the threshold row passes, but
    # the fall is no longer gradual. Nobody losing anything: TCP does not lose "the maximum".
    bad = rows((0.95, 0.95, 0.1), {"sab": 0, "tcp": 0, "dctcp": 0})
    assert bad["incast: DCTCP degrades (goodput < 0.5 Gb/s) from N"].passed
    assert bad[decline].passed is False and bad[fig11].passed is False


def test_fig5_tcp_settles_at_half_the_buffer():
    buf = 512.0
    sawtooth = {"queue_kb": [0, 300, 512, 300, 256, 240, 270, 256, 250, 0]}
    assert sab.settled_queue_frac(sawtooth, buf) == pytest.approx(256 / 512)
    pinned = {"queue_kb": [0, 300, 512, 500, 505, 510, 0]}
    assert sab.settled_queue_frac(pinned, buf) == pytest.approx(505 / 512)
    assert sab.settled_queue_frac({"queue_kb": [0, 100, 0]}, buf) != sab.settled_queue_frac({"queue_kb": [0, 100, 0]}, buf)

    def conv(q):
        return {"time_s": [0.0], "gbps_h2": [0.0], "queue_kb": q["queue_kb"]}

    name = "Fig. 5: TCP queue after its peak, median / buffer ('decreases to about half')"
    for q, want in ((sawtooth, True), (pinned, False)):
        r = {"conv/sab": conv({"queue_kb": [0, 30, 30, 0]}), "conv/dctcp": conv({"queue_kb": [0, 30, 30, 0]}), "conv/tcp": conv(q)}
        assert {h.name: h for h in sab.headlines(r, "reduced")}[name].passed is want


def test_epsilon_sweep_shape_below_cd_and_above_0_9():
    # eps = 0.05: 100 one-segment windows of 64 B payload + 40 B header = 10.4 KB per RTT against
    # CD = 12.5 KB: 0.832 of the link. eps >= 0.9: whole segments only, so the queue is below
    # eps*B - CD (+ headers).
    assert sab.eps_window_utilization(0.05) == pytest.approx(10.4 / 12.5)

    def sweep(util_low, q_high):
        r = {f"eps/{e}": {"utilization": 1.0, "mean_queue_kb": sab.eps_queue_kb(e)} for e in sab.EPSILONS}
        r["eps/0.05"]["utilization"] = util_low
        for e in (0.9, 1.0):
            r[f"eps/{e}"]["mean_queue_kb"] = q_high(e)
        return {h.name: h for h in sab.headlines(r, "reduced")}

    low, high = "eps sweep: utilization at eps = 0.05 / (eps*B + headers) / CD", "eps sweep: queue / (eps*B - CD + headers) at eps >= 0.9, highest"
    good = sweep(0.81, lambda e: 100 - 12.5)
    assert good[low].passed and good[high].passed
    bad = sweep(1.0, sab.eps_queue_kb)  # full below CD/B, and the computed queue at 0.9 and 1
    assert bad[low].passed is False and bad[high].passed is False


def test_fig9_fig19_fig24_comparisons():
    delay = {"size_kb": [1.0], "fct_ms": [1.0], "data_ms": [1.0], "unfinished": 0}
    r = {f"delay/{s}": dict(delay, goodput_gbps=0.995) for s in sab.SCHEMES}
    name9 = "Fig. 9: receiver goodput behind the short flows, lowest scheme"
    assert {h.name: h for h in sab.headlines(r, "reduced")}[name9].passed
    r["delay/tcp"]["goodput_gbps"] = 0.9
    assert {h.name: h for h in sab.headlines(r, "reduced")}[name9].passed is False

    def cap(sab_u, tcp_u):
        r = {}
        for c in (1, 100):
            r[f"capacity/sab/{c}"] = {"utilization": 1.0 if c == 1 else sab_u, "timeouts_per_flow_s": 0.0}
            r[f"capacity/tcp/{c}"] = {"utilization": tcp_u, "timeouts_per_flow_s": 1.0}
        return {h.name: h for h in sab.headlines(r, "reduced")}["Fig. 19: SAB utilization - TCP's, lowest over 1-100 Gb/s"]

    assert cap(1.0, 0.98).passed and cap(1.0, 1.0).passed
    assert cap(0.8, 1.0).passed is False  # SAB below TCP at 100 Gb/s

    def run(bg_p95):
        return {"query_mean_ms": 1.0, "query_p99.9_ms": 1.0, "query_p99.99_ms": 1.0, "bg_mean_ms": 50, "bg_p95_ms": bg_p95}

    # "The 95th percentile tail latency of SAB is a little larger than D2TCP and DCTCP": above both.
    r = {"large/sab": run(110), "large/d2tcp": run(100), "large/dctcp": run(120), "large/tcp": run(150)}
    row = next(h for h in sab.large_headlines(r) if h.name.startswith("Fig. 24: SAB background p95"))
    assert row.ours == pytest.approx(110 / 120) and row.passed is False
