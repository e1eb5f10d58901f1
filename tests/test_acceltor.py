"""AccelToR and its baselines (Chen et al., "AccelToR", §III-IV) from the user's side: the shipped
scenario, the derived values `fabricsim topology` prints, the result tables, validation."""

import subprocess
import sys
from pathlib import Path

import pytest

import fabricsim
from fabricsim.scenario import load_scenario as load

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "scenarios" / "acceltor-small.toml"


def short(policy: str, end: str = "4ms") -> dict:
    doc = load(SMALL)
    doc["simulation"]["end"] = end
    doc["output"]["warmup"] = "1820us"  # one week of 8 racks
    doc["tor"]["policy"] = policy
    return doc


def test_topology_prints_the_derived_values():
    out = subprocess.run([sys.executable, "-m", "fabricsim", "topology", str(SMALL)], capture_output=True, text=True, check=True).stdout
    # Base RTTs of the scenario's links (100 Gb/s hosts 1 us, 10 Gb/s packet links 13 us, 80 Gb/s
    # circuits 25 us; 1500 B out, 52 B ACK back): 58.732 us and 54.404 us. n = floor(240/54.404)
    # = 4 -> m = 2 (eq. 4); K_1 = ceil(3 * 58.732 / 260) = 1 (eq. 1); K = 3; RTO_min = 1820 - 240
    # - 3 * 58.73152 = 1403.805 us (eq. 6). The paper's setup gives the same m, K_1 and K (§IV-B).
    assert "policy           acceltor" in out
    assert "rtt_packet       58.732 us" in out
    assert "rtt_circuit      54.404 us" in out
    assert "m                2 RTTs of acceleration (eq. 4)" in out
    assert "k1               1 (eq. 1)" in out
    assert "k                3 calendar queues (K_1 + 2, safe margin)" in out
    assert "rto_min          1403.805 us at every TCP host" in out
    assert "2^m x |F_i| = 32 packets = 48000 B fits" in out
    # Blocking: eq. (7), RTO_min = week - day = 1820 - 240 us.
    out = subprocess.run([sys.executable, "-m", "fabricsim", "topology", str(SMALL), "--set", "tor.policy=blocking"],
                         capture_output=True, text=True, check=True).stdout
    assert "policy           blocking" in out and "rto_min          1580.000 us at every TCP host" in out
    assert "circuit_pool     1500000 B shared by 7 per-destination queues" in out


def test_each_design_runs_and_reports_its_tables(tmp_path):
    res = {p: fabricsim.run(short(p), progress=False) for p in ("acceltor", "blocking", "unblocking")}
    for policy, r in res.items():
        c = r.circuit
        assert {"tor_queues", "cases", "elephant_weeks"} <= set(c), policy
        cases = c["cases"].iloc[0]
        ew = c["elephant_weeks"]
        # 8 racks x 7 destinations x 8 elephants, one row each per measured week (1 to 2 weeks).
        assert len(ew) % 448 == 0 and len(ew) >= 448, policy
        assert (ew["circuit_bytes"] <= ew["bytes"]).all()
        assert (ew["weekly_gbps"] >= 0).all() and (ew["daily_gbps"] * 240 <= ew["weekly_gbps"] * 1820 + 1e-9).all()
        assert 0 < r.summary["circuit_utilization"] <= 1, policy
        if policy == "acceltor":
            assert cases["accelerated"] > 0 and cases["buffered"] > 0 and cases["case4_drops"] > 0
            queues = set(c["tor_queues"]["queue"])
            assert queues == {"hp", "lp", "calendar0", "calendar1", "calendar2"}
            # Each calendar queue holds at most B = 500 KB; HP and LP 150 KB.
            q = c["tor_queues"]
            assert (q[q.queue.str.startswith("calendar")]["max_bytes"] <= 500_000).all()
            assert (q[q.queue.isin(["hp", "lp"])]["max_bytes"] <= 150_000).all()
        elif policy == "blocking":
            # Elephants never use the packet network, and there is no calendar.
            assert cases["accelerated"] == 0 and cases["elephant_packet"] == 0 and cases["case4_drops"] == 0
            q = c["tor_queues"]
            assert len(q[q.tor == 0]) == 1 + 7
        else:
            assert cases["elephant_packet"] > 0 and cases["case4_drops"] == 0
    res["acceltor"].save(tmp_path / "r")
    back = fabricsim.Results.load(tmp_path / "r")
    assert back.circuit["elephant_weeks"].equals(res["acceltor"].circuit["elephant_weeks"])


def test_runs_are_deterministic_and_the_sketch_seed_matters_only_through_hashing():
    a = fabricsim.run(short("acceltor", "2ms"), progress=False)
    b = fabricsim.run(short("acceltor", "2ms"), progress=False)
    assert a.flows.equals(b.flows) and a.circuit["days"].equals(b.circuit["days"])
    doc = short("acceltor", "2ms")
    doc["tor"]["elephants"] = {"per_pair": 8, "selection": "oracle"}
    o = fabricsim.run(doc, progress=False)
    assert len(o.circuit["elephant_weeks"]) == len(a.circuit["elephant_weeks"])


def test_bad_acceltor_inputs_are_named():
    doc = short("blocking")
    doc["tor"]["acceltor"] = {"m": 2}
    doc["tor"]["elephants"]["selection"] = "guess"
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.validate(doc)
    msg = str(e.value)
    assert "tor.acceltor: only applies to policy = \"acceltor\" (this ToR is 'blocking')" in msg
    assert "tor.elephants.selection" in msg and "guess" in msg


def test_weekly_rows_for_a_sample_of_rack_pairs_change_nothing_else():
    # `record_pairs` keeps the weekly rows of a seeded sample of ordered rack pairs (a 50-rack, 5 s
    # run has 196 000 rows a week otherwise); the simulation itself is the same.
    full = fabricsim.run(short("acceltor", "4ms"), progress=False)
    doc = short("acceltor", "4ms")
    doc["tor"]["elephants"]["record_pairs"] = 3
    part = fabricsim.run(doc, progress=False)
    assert part.flows.equals(full.flows) and part.circuit["days"].equals(full.circuit["days"])
    ew, few = full.circuit["elephant_weeks"], part.circuit["elephant_weeks"]
    pairs = set(zip(few.src, few.dst))
    assert len(pairs) == 3 and all(s != d for s, d in pairs)
    # Exactly the full table's rows of those pairs: 8 elephants each per measured week.
    sub = ew[[p in pairs for p in zip(ew.src, ew.dst)]].reset_index(drop=True)
    assert len(few) == len(sub) == len(ew) * 3 // 56
    assert few.reset_index(drop=True)[["src", "dst", "flow", "bytes", "circuit_bytes"]].equals(sub[["src", "dst", "flow", "bytes", "circuit_bytes"]])
    doc["tor"]["elephants"]["record_pairs"] = 57
    with pytest.raises(fabricsim.ScenarioError, match=r"tor.elephants.record_pairs.*57 exceeds the 8 × 7 = 56 ordered rack pairs"):
        fabricsim.validate(doc)


def test_the_authors_tor_rules_take_the_packet_network_instead_of_dropping():
    # case4 = "window": no elephant packet is dropped in Case IV before it ever used the calendar
    # (new elephants start on LP), so over one week some Case IV packets go LP; acceleration =
    # "count" sends a flow's warm-up by LP. Algorithm 1 as written (the defaults) has neither.
    text = fabricsim.run(short("acceltor", "2ms"), progress=False).circuit["cases"].iloc[0]
    doc = short("acceltor", "2ms")
    doc["tor"]["acceltor"] = {"case4": "window", "acceleration": "count"}
    auth = fabricsim.run(doc, progress=False).circuit["cases"].iloc[0]
    assert text["case4_lp"] == 0 and text["case4_drops"] > 0
    assert auth["case4_lp"] > 0 and auth["case4_drops"] < text["case4_drops"]


def test_sent_bytes_are_at_least_the_delivered_ones_and_count_the_drops():
    # sent_bytes counts what entered the source ToR; bytes what left the hybrid network (the same
    # packets a week later at most, minus drops), so over the run sent >= delivered and Case IV
    # drops make the difference positive.
    r = fabricsim.run(short("acceltor", "4ms"), progress=False)
    ew = r.circuit["elephant_weeks"]
    assert ew["sent_bytes"].sum() > ew["bytes"].sum() > 0
    assert (ew["weekly_sent_gbps"] * ew["week_ps"] / 1e12 * 1e9 / 8 - ew["sent_bytes"]).abs().max() < 1e-3


@pytest.mark.parametrize("sets, msg", [
    (["tor.acceltor.case4=always"], "tor.acceltor.case4"),
    (["tor.acceltor.case4_window=520us"], 'tor.acceltor.case4_window: only applies to case4 = "window"'),
    (["tor.acceltor.acceleration=count", "tor.acceltor.warmup=0"], "tor.acceltor.warmup"),
    (["tor.acceltor.warmup=4"], 'tor.acceltor.warmup: only applies to acceleration = "count"'),
])
def test_bad_authors_rule_keys_stop_the_cli_before_the_run(tmp_path, sets, msg):
    args = [a for s in sets for a in ("--set", s)]
    out = subprocess.run([sys.executable, "-m", "fabricsim", "run", str(SMALL), *args, "-o", str(tmp_path / "o")],
                         capture_output=True, text=True)
    assert out.returncode == 2 and msg in out.stderr, out.stderr
    assert not (tmp_path / "o").exists()


def test_topology_prints_the_case_4_and_acceleration_rules():
    def topo(*sets):
        args = [a for s in sets for a in ("--set", s)]
        return subprocess.run([sys.executable, "-m", "fabricsim", "topology", str(SMALL), *args], capture_output=True, text=True, check=True).stdout
    out = topo()
    assert "case4            drop every packet (Algorithm 1)" in out
    assert "acceleration     LP while >= RTT_pkt before the day (Algorithm 1)" in out
    out = topo("tor.acceltor.case4=window", "tor.acceltor.acceleration=count")
    assert "case4            drop for 520.000 us after a flow's first drop, then LP (the authors' ns-3 ToR)" in out
    assert "acceleration     count: 4 packets by LP (8 after a run under 25), then one packet to Q_i and LP until the day" in out
