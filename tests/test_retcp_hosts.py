"""reTCP host models: the default stays Etalon's per-packet 10 Gb/s egress; the offload-burst
sensitivities reach the engine as `[host] egress_burst` with the rate, and validate."""

import fabricsim
from fabricsim.reproduce import retcp


def host(model: str) -> dict:
    return retcp.scenario(hosts_model=model, weeks=1, warmup_weeks=1)["host"]


def test_the_default_host_model_is_unchanged():
    doc = retcp.scenario(weeks=1, warmup_weeks=1)
    assert doc["host"] == {"stack": "linux-4.15", "time_dilation": 20, "egress_rate": "10Gbps"}
    assert doc["topology"]["host_link"] == {"rate": "800Gbps", "delay": "0us"}
    assert "etalon" not in retcp.HOST_ALTERNATIVES


def test_offload_burst_models_carry_rate_and_burst_and_validate():
    assert host("etalon-gso")["egress_rate"] == "10Gbps" and host("etalon-gso")["egress_burst"] == "64KB"
    assert host("etalon-40g") == {"stack": "linux-4.15", "time_dilation": 20, "egress_rate": "40Gbps"}
    assert "egress_burst" not in host("unshaped") and "egress_rate" not in host("unshaped")
    for m in ("etalon-gso", "etalon-40g-gso"):
        fabricsim.validate(retcp.scenario(hosts_model=m, weeks=1, warmup_weeks=1))


def test_every_alternative_runs_for_the_key_points():
    keys = {k for k, _, _ in retcp.points("reduced")}
    for m in retcp.HOST_ALTERNATIVES:
        for p in ("static/16", "static/32", "resize/1800", "retcp-resize/150"):
            assert f"{m}/{p}" in keys
