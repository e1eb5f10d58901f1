#!/usr/bin/env bash
# Side by side on B1 (dctcp-16to1): fabricsim and ns-3.37 (Debian's libns3-dev), the same scenario
# on the same machine, one after the other. Prints both simulators' wall time, packet-hops,
# goodput and mean bottleneck queue, and the wall-time ratio. Not part of CI (ns-3 needs ~1 min).
#   bash benches/ns3/compare.sh            # 1 s simulated (B1 as defined)
set -euo pipefail
cd "$(dirname "$0")"
if ! ls /usr/lib/*/libns3-core.so >/dev/null 2>&1; then
  echo "installing libns3-dev (Debian's ns-3.37) ..." >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libns3-dev >/dev/null
fi
mkdir -p build
g++ -O2 -std=c++17 -o build/b1_ns3 b1_dctcp.cc \
  -lns3-core -lns3-network -lns3-internet -lns3-point-to-point -lns3-applications -lns3-traffic-control -lns3-bridge -lns3-stats
echo "running ns-3 on B1 ..." >&2
./build/b1_ns3 --time=1.0 > build/ns3.json
echo "running fabricsim on B1 ..." >&2
python3 -m fabricsim bench dctcp-16to1 --json build/fabricsim.json > /dev/null
python3 - <<'PY'
import json
ns3 = json.load(open("build/ns3.json"))
fab = json.load(open("build/fabricsim.json"))[0]
rows = [("wall time (s)", ns3["wall_s"], fab["engine_wall_s"]),
        ("packet-hops", ns3["packet_hops"], fab["packet_hops"]),
        ("packet-hops per wall s", ns3["packet_hops"] / ns3["wall_s"], fab["packet_hops_per_s"]),
        ("receiver goodput (Gb/s)", ns3["goodput_gbps"], fab["goodput_gbps"]),
        ("mean bottleneck queue (pkts)", ns3["mean_queue_packets"], fab["mean_queue_packets"])]
print(f"{'B1 dctcp-16to1, 1 s simulated':<30} {'ns-3.37':>14} {'fabricsim':>14}")
for name, a, b in rows:
    print(f"{name:<30} {a:>14,.4g} {b:>14,.4g}")
print(f"fabricsim is {ns3['wall_s'] / fab['engine_wall_s']:.0f}x faster in wall time, "
      f"{(fab['packet_hops_per_s']) / (ns3['packet_hops'] / ns3['wall_s']):.0f}x per packet-hop")
PY
