"""reTCP Table 1 (emulator validation, §4): the ACK bypass and the measurements on the wire from
the user's side, the reproduction's extraction on hand-made days, and its bands."""

from types import SimpleNamespace

import pandas as pd
import pytest

import fabricsim
from fabricsim.reproduce import retcp


def backlogged(bypass: bool = True) -> dict:
    """3 racks of one 100 Gb/s host, one flow h0 -> h1 with a 1000-segment window into a VOQ that
    never fills, 2 ms with a 400 us warm-up (the engine's closed-form test, through Python)."""
    doc = retcp.scenario(racks=3, hosts=1, flows=1, voq=100000, weeks=4, warmup_weeks=1, ack_bypass=bypass, view_before_us=200)
    doc["topology"]["host_link"] = {"rate": "100Gbps", "delay": "1us"}
    doc["topology"]["packet_link"] = {"rate": "10Gbps", "delay": "5us"}
    doc["host"] = {}
    doc["transports"]["tcp"] = {"cc": "newreno", "mss": "9000B", "initial_cwnd": 1000}
    return doc


def test_scenario_adds_the_bypass_only_when_asked_and_keeps_the_flows():
    off, on = retcp.scenario(), retcp.scenario(ack_bypass=True)
    assert "ack_bypass" not in off["tor"] and on["tor"]["ack_bypass"] is True
    # The default flows are host i of rack 0 to host i of rack 1, as before `pairs` existed.
    assert [(f["src"], f["dst"]) for f in off["flows"]] == [(f"h{i}", f"h{16 + i}") for i in range(16)]
    t1 = retcp.scenario(racks=retcp.TABLE1_RACKS, pairs=retcp.TABLE1_PAIRS)
    assert len(t1["flows"]) == 8 * 7 * 16 and {"src": "h127", "dst": "h111", "transport": "tcp"} in t1["flows"]


def test_a_backlogged_flow_gets_the_closed_form_bytes_per_phase_and_day_span():
    # Pair (0, 1): day [20, 200) us of each 400 us week; its packet path is open over [200, 400).
    # 9052 B packets: 0.9052 us at 80 Gb/s (198 per 180 us day, ending 179.2296 us in), 7.2416 us
    # at 10 Gb/s (28 start in [200, 400), the last ending 2.7648 us into the next night).
    res = fabricsim.run(backlogged(), progress=False)
    days = res.circuit["days"]
    d = days[(days.src == 0) & (days.dst == 1) & (days.start_ps >= 400_000_000)]
    assert len(d) == 4 and (d.bytes == 198 * 9052).all()
    assert ((d.wire_start_ps == d.start_ps) & (d.wire_end_ps - d.start_ps == 179_229_600)).all()
    up = res.circuit["uplinks"].set_index("rack")
    assert up.loc[0, "night_ps"] == 8 * 20_000_000 and up.loc[0, "day_ps"] == 8 * 180_000_000
    assert up.loc[0, "night_bytes"] == pytest.approx(4 * (25_000 + 3_456), rel=1e-9)
    assert up.loc[0, "day_bytes"] == pytest.approx(4 * 225_000, rel=1e-9)
    assert up.loc[0, "day_gbps"] == pytest.approx(4 * 225_000 * 8 / (8 * 180e-6) / 1e9, rel=1e-9)
    # Rack 1 sends only ACKs, and they take the bypass: its uplink and the reverse VOQ stay idle.
    assert up.loc[1, "night_bytes"] == 0 and up.loc[1, "day_bytes"] == 0
    assert not ((res.circuit["voqs"].src == 1) & (res.circuit["voqs"].dst == 0)).any()
    assert res.ports.set_index("port").loc["h1->tor1", "tx_packets"] == 0
    # Without the bypass the ACKs cross rack 1's NIC and VOQ (1, 0).
    res = fabricsim.run(backlogged(bypass=False), progress=False)
    assert res.ports.set_index("port").loc["h1->tor1", "tx_packets"] > 100
    assert ((res.circuit["voqs"].src == 1) & (res.circuit["voqs"].dst == 0)).any()


def test_bad_bypass_inputs_are_named_before_the_run():
    doc = retcp.scenario(ack_bypass=True)
    doc["tor"]["ack_bypass_delay"] = "-2us"
    with pytest.raises(fabricsim.ScenarioError, match=r"tor\.ack_bypass_delay: '-2us' is negative"):
        fabricsim.validate(doc)
    doc = retcp.scenario(ack_bypass=True, cc="retcp", feedback="circuit")
    with pytest.raises(fabricsim.ScenarioError, match=r"tor\.ack_bypass: true conflicts with feedback"):
        fabricsim.validate(doc)


def fake(days: list[tuple], uplinks: list[tuple]) -> SimpleNamespace:
    """A Results-like object: days (src, dst, start_us, bytes, wire_start_us, wire_end_us) of
    180 us, uplinks (rack, night_gbps, day_gbps)."""
    us = 1_000_000
    d = pd.DataFrame([{"src": s, "dst": t, "start_ps": a * us, "length_ps": 180 * us, "bytes": b,
                       "wire_start_ps": None if w0 is None else int(w0 * us), "wire_end_ps": None if w1 is None else int(w1 * us)}
                      for s, t, a, b, w0, w1 in days])
    d["wire_start_ps"] = d["wire_start_ps"].astype("Int64")
    d["wire_end_ps"] = d["wire_end_ps"].astype("Int64")
    up = pd.DataFrame([{"rack": r, "night_ps": 1, "night_gbps": n, "day_gbps": g} for r, n, g in uplinks])
    flows = pd.DataFrame({"timeouts": [0], "retransmits": [0]})
    return SimpleNamespace(circuit={"days": d, "uplinks": up}, flows=flows, summary={"goodput_bytes": 0, "sim_time_s": 1.0})


def test_table1_extraction_on_hand_made_days():
    # Rack 0: days at 220 and 420 us (consecutive slots of 200 us) and 820 us (not consecutive to
    # 420); a day at 20 us before the 200 us warm-up is left out. Rack 1: one day, sent nothing.
    r = fake([(0, 1, 20, 10, 20, 199), (0, 1, 220, 1_800_000, 220, 399.5), (0, 2, 420, 900_000, 421, 599),
              (0, 3, 820, 0, None, None), (1, 0, 220, 0, None, None)],
             [(0, 10.0, 9.0), (1, 8.0, 7.0)])
    t = retcp.extract_table1(r, warmup_ps=200_000_000, slot_ps=200_000_000)
    assert t["days"] == 4 and t["idle_days"] == 2
    # One night, from 399.5 to 421 us; days of 179.5 and 178 us.
    assert t["nights"] == 1 and t["night_us"] == pytest.approx(21.5)
    assert t["day_us"] == pytest.approx((179.5 + 178) / 2) and t["day_us_lowest"] == pytest.approx(178)
    # 1.8 MB in 180 us is 80 Gb/s, 0.9 MB 40, idle days 0: pairs (0,1) 80, (0,2) 40, (0,3) 0, (1,0) 0.
    assert t["circuit_gbps"] == pytest.approx(30) and (t["circuit_gbps_min"], t["circuit_gbps_max"]) == pytest.approx((0, 80))
    assert (t["packet_gbps"], t["packet_gbps_min"], t["packet_gbps_max"]) == pytest.approx((9, 8, 10))


def test_table1_bands_are_two_sided_around_the_configured_values():
    def rows(**v):
        base = {"night_us": 20.0, "day_us": 180.0, "packet_gbps": 10.0, "circuit_gbps": 80.0}
        base.update(v)
        return {h.name.removeprefix("Table 1: "): h for h in retcp.headlines({"table1/bypass": base}) if h.name.startswith("Table 1: ")}

    ok = rows()
    assert len(ok) == 4 and all(h.passed for h in ok.values())
    for key, name, inside, outside in (("night_us", "night length on the wire", (19.0, 21.0), (18.9, 21.1)),
                                       ("day_us", "day length on the wire", (171.0, 189.0), (170.9, 189.1)),
                                       ("packet_gbps", "packet bandwidth during nights", (9.0, 11.0), (8.9, 11.1)),
                                       ("circuit_gbps", "circuit bandwidth during days", (72.0, 88.0), (71.9, 88.1))):
        for v in inside:
            assert rows(**{key: v})[name].passed, (key, v)
        for v in outside:
            assert rows(**{key: v})[name].passed is False, (key, v)
    assert retcp.table1_headlines({}) == []
