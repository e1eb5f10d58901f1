"""Measure the table of docs/CONGESTION_CONTROL.md ("Measured behaviour"): per congestion control,
one flow on a 10 Gb/s dumbbell (utilization, mean queue, drops, 100 ms) and two flows (Jain, 1 s).
Run: python docs/congestion_control_table.py"""

import fabricsim
from concurrent.futures import ProcessPoolExecutor
CCS = ["newreno","dctcp","d2tcp","cubic","bic","highspeed","htcp","hybla","scalable","veno","westwood","vegas","illinois","yeah","ledbat","nv","cdg","bbr","lp","retcp","hpcc","swift"]
def doc(cc, n, end):
    d = {"simulation":{"end":end},"topology":{"kind":"dumbbell","left":n,"right":1,"link":{"rate":"40Gbps","delay":"5us"},
      "bottleneck":{"rate":"10Gbps","delay":"30us","queue":{"buffer":"84pkt"}}},
      "transport":{"cc":cc,"min_rto":"5ms"},
      "flows":[{"src":f"h{i}","dst":f"h{n}","start":f"{i*100}us"} for i in range(n)]}
    if cc in ("dctcp", "d2tcp"):
        d["topology"]["bottleneck"]["queue"].update(discipline="ecn", ecn_threshold="20pkt")
    if cc == "ledbat":
        d["transport"]["ledbat_target"] = "50us"
    if cc == "swift":
        d["transport"]["cc_params"] = {"base_target_us": 100}  # the base RTT here is ≈ 80 µs
    if cc == "lp":
        d["transport"]["delayed_ack"] = 1
    return d
def one(cc):
    r = fabricsim.run(doc(cc, 1, "100ms"), progress=False)
    p = r.port("s0->s1")
    r2 = fabricsim.run(doc(cc, 2, "1s"), progress=False)
    g = r2.flows.bytes_acked.astype(float)
    j = g.sum()**2 / (2*(g**2).sum())
    return cc, float(p.utilization), float(p.mean_queue_packets), int(p.drops), float(j)
if __name__ == "__main__":
    with ProcessPoolExecutor(2) as ex:
        for cc, u, q, d, j in ex.map(one, CCS):
            print(f"| {cc} | {u:.3f} | {q:.1f} | {d} | {j:.3f} |")
