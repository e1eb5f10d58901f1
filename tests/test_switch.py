"""Multi-class switch ports from the Python API: the queues table, per-queue series, Parquet,
and scenario errors that name the key."""

import pandas as pd
import pytest

import fabricsim

NDP_INCAST = """
[simulation]
end = "50ms"
stop_when_done = true
[topology]
kind = "star"
hosts = 9
link = { rate = "10Gbps", delay = "1us" }
[queue]
queues = 2
classes = [1]
queue_buffer = ["1000pkt", "8pkt"]
buffer = "2000pkt"
admission = "trim"
scheduler = "wrr"
weights = [10, 1]
[transport]
initial_cwnd = 30
min_rto = "1ms"
[output]
queues = ["s0->h0"]
sample_interval = "20us"
"""


def incast_doc():
    flows = "".join(f'[[flows]]\nsrc = "h{i}"\ndst = "h0"\nsize = "40KB"\n' for i in range(1, 9))
    return NDP_INCAST + flows


def test_queues_table_and_per_queue_series(tmp_path):
    path = tmp_path / "trim.toml"
    path.write_text(incast_doc())
    res = fabricsim.run(path, progress=False)
    q = res.queues
    assert list(q.columns[:3]) == ["port", "queue", "classes"]
    rows = q[q["port"] == "s0->h0"].set_index("queue")
    assert list(rows.index) == [0, 1]
    # classes = [1]: every class goes to the data queue; queue 0 holds only trimmed headers.
    assert rows.loc[0, "classes"] == "" and rows.loc[1, "classes"] == "0,1,2,3,4,5,6,7"
    # Overflowing data was cut to headers in the data queue, and no header was lost.
    assert rows.loc[1, "trims"] > 0 and rows.loc[0, "drops"] == 0
    port = res.port("s0->h0")
    assert port["trims"] == rows.loc[1, "trims"]
    assert res.flows["fct_s"].notna().all()
    series = res.timeseries
    names = set(series.loc[series["metric"] == "class_queue_packets", "target"])
    assert names == {"s0->h0#0", "s0->h0#1"}
    # Parquet round trip keeps the table.
    back = fabricsim.Results.load(res.save(tmp_path / "out"))
    pd.testing.assert_frame_equal(back.queues, res.queues)


@pytest.mark.parametrize(
    "queue, key",
    [
        ('queues = 9', "queue.queues"),
        ('queues = 2\nclasses = [0, 3]', "queue.classes[1]"),
        ('discipline = "red"\nred = { min_th = "50pkt", max_th = "10pkt" }', "queue.red.min_th"),
        ('discipline = "red"\nred = { min_th = "10pkt", max_th = "50pkt", count = "ns2" }', "queue.red.count"),
        ('alpha = -1', "queue.alpha"),
    ],
)
def test_bad_queue_settings_name_the_key(tmp_path, queue, key):
    doc = incast_doc().replace('admission = "trim"', "").replace(
        "queues = 2\nclasses = [1]\nqueue_buffer = [\"1000pkt\", \"8pkt\"]\n", ""
    ).replace('scheduler = "wrr"\nweights = [10, 1]\n', queue + "\n")
    path = tmp_path / "bad.toml"
    path.write_text(doc)
    with pytest.raises(ValueError) as e:
        fabricsim.run(path, progress=False)
    assert key in str(e.value)
