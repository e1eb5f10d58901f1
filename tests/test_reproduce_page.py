"""A reproduction's report.html and the paper's values drawn on its figures: the overlay against
hand-placed values, every paper's stated values against the figures its module draws, and the five
pages rendered in headless Chromium (like the sweep report in test_report.py)."""

import html
import importlib
import inspect
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import LineCollection, PolyCollection  # noqa: E402
from matplotlib.patches import Polygon, Rectangle  # noqa: E402

from fabricsim.cli import main  # noqa: E402
from fabricsim.reproduce import PAPERS, RECORDED  # noqa: E402
from fabricsim.reproduce.common import FigureSaver, Headline, Stated, one_change_frame, overlay  # noqa: E402
from fabricsim.reproduce.page import status_line, write_page  # noqa: E402

from test_report import render  # noqa: E402

MODULES = {p: importlib.import_module(f"fabricsim.reproduce.{p}") for p in PAPERS}


def _stars(ax):
    return [(list(l.get_xdata()), list(l.get_ydata())) for l in ax.lines if l.get_marker() == "*"]


def test_overlay_draws_the_value_as_a_star_and_its_band_as_a_shaded_bar():
    fig, ax = plt.subplots()
    ax.plot([4, 64], [10, 100])
    overlay(fig, [Stated("f", "static 16: 48.6 %", "§6.1", 48.6, 40, 58, x=16)])
    assert _stars(ax) == [([16], [48.6])]
    (bar,) = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert [list(map(float, p)) for p in bar.get_segments()[0]] == [[16, 40], [16, 58]]
    assert {t.get_text() for t in ax.get_legend().get_texts()} == {"paper", "paper's band"}
    plt.close(fig)


def test_overlay_whole_axis_band_span_band_and_out_of_view_values():
    fig, (a, b) = plt.subplots(1, 2)
    a.plot([0, 1], [0, 1])
    b.plot([0, 200], [0, 1])
    overlay(fig, [Stated("f", "'does not exceed 55%'", "s", 55, None, 58),       # a bound across the axis, beyond the view
                  Stated("f", "50 ms to converge", "s", 0.5, x=50, span=(25, 100), axes=1)])
    # The bound: a dotted line at 55 and a strip from the bottom to 58; the view grows to show it.
    assert [list(l.get_ydata()) for l in a.lines if l.get_linestyle() == ":"] == [[55, 55]]
    strip = [p for p in a.patches if isinstance(p, (Rectangle, Polygon))]
    assert len(strip) == 1 and a.get_ylim()[1] >= 58
    ys = strip[0].get_xy()[:, 1] if isinstance(strip[0], Polygon) else [strip[0].get_y(), strip[0].get_y() + strip[0].get_height()]
    assert max(ys) == pytest.approx(58) and min(ys) <= 0   # from the bottom of the view
    # A value stated on the x axis: the star at 50, the band 25-100 shaded over the whole height.
    assert _stars(b) == [([50], [0.5])]
    span = [p for p in b.patches if isinstance(p, (Rectangle, Polygon))]
    xs = span[0].get_xy()[:, 0] if isinstance(span[0], Polygon) else [span[0].get_x(), span[0].get_x() + span[0].get_width()]
    assert (min(xs), max(xs)) == pytest.approx((25, 100))
    plt.close(fig)


def test_overlay_finds_bars_by_their_tick_label_and_skips_points_that_did_not_run():
    fig, ax = plt.subplots()
    ax.bar([0, 1, 2], [1, 2, 3])
    ax.set_xticks([0, 1, 2], ["cubic", "bbr", "nv"])
    overlay(fig, [Stated("f", "BBR: 43 %", "s", 43, 36, 50, x="bbr", dx=0.2),
                  Stated("f", "Vegas", "s", 10, 5, 15, x="vegas"),            # no such bar: left out
                  Stated("f", "a panel that is not there", "s", 1, axes=3)])
    assert _stars(ax) == [([pytest.approx(1.2)], [43])]
    assert len([c for c in ax.collections if isinstance(c, LineCollection)]) == 1
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]
    plt.close(fig)


@pytest.mark.parametrize("paper", list(PAPERS))
def test_every_stated_value_is_on_a_figure_its_module_draws(paper):
    m = MODULES[paper]
    src = inspect.getsource(m.figures)
    drawn = set(re.findall(r'"(fig[\w]+|prop2_\w+|sec7_\w+|retcp_\w+)"', src))
    assert m.STATED, f"{paper} states no value for any figure"
    for s in m.STATED:
        assert s.figure in drawn, f"{paper}: {s.figure} is not a figure of figures()"
        assert s.source and s.label
        if s.y is not None and s.low is not None:
            assert s.low <= s.y, s
        if s.y is not None and s.high is not None:
            assert s.y <= s.high, s
        if s.span is not None:
            assert s.span[0] < s.span[1]
    assert all(r.choice and r.value and r.cites for r in m.SETUP)
    assert paper in RECORDED


def test_status_line_counts_each_column_and_the_central_claims():
    rows = [Headline("a", "1", 0, 2, 1.0), Headline("b", "1", 0, 2, 5.0), Headline("c", "1", 0, 2, None)]
    line = status_line({"text": rows, "artifact": rows[:1]}, ["a", "b"])
    assert line == ("text model: 1 pass, 1 MISS of 3 — central claims 1 of 2 pass; "
                    "as the authors ran it (artifact): 1 pass, 0 MISS of 1 — central claims 1 of 1 pass")


def _fake_output(paper: str, out):
    """What `fabricsim reproduce PAPER` leaves before its page: each stated figure drawn (both
    models) through the module's FigureSaver, and headlines for its central claims."""
    m = MODULES[paper]
    central = m.central("reduced") if paper == "acceltor" else m.CENTRAL
    figs = []
    for d in (out, out / "artifact"):
        d.mkdir(parents=True, exist_ok=True)
        save = FigureSaver(d, m.STATED)
        for name in dict.fromkeys(s.figure for s in m.STATED):
            n = max(s.axes for s in m.STATED if s.figure == name) + 1
            fig, axes = plt.subplots(1, n, figsize=(3 * n, 3), squeeze=False)
            labels = sorted({s.x for s in m.STATED if s.figure == name and isinstance(s.x, str)})
            for ax in axes[0]:
                ax.plot([0, 1], [0, 1], label="ours")
                if labels:
                    ax.bar(range(len(labels)), [1] * len(labels))
                    ax.set_xticks(range(len(labels)), labels)
            save(fig, name)
        figs += save.written
    text = [Headline(c, "p", 0, 1, 0.5 if i % 2 else 3.0, "x") for i, c in enumerate(central)]
    art = [Headline(c, "p", 0, 1, 0.5, "x") for c in central]
    one_change_frame(central, {"text": text, "artifact": art}, {m.ARTIFACT[0].name: art}, m.ARTIFACT[:1]).to_csv(out / "one_change.csv", index=False)
    for f in ("runs.csv", "headlines.csv"):
        (out / f).write_text("point\n")
    return {"text": text, "artifact": art}, central, figs


@pytest.mark.parametrize("paper", list(PAPERS))
def test_the_report_of_each_paper_renders_with_the_papers_values(paper, tmp_path):
    m = MODULES[paper]
    out = tmp_path / paper
    models, central, figs = _fake_output(paper, out)
    page = write_page(out, PAPERS[paper], models, central, figs, m.STATED, m.SETUP, m.ARTIFACT)
    text = page.read_text()
    for s in m.STATED:
        assert html.escape(s.label) in text
    for c in m.ARTIFACT:
        assert c.name in text
    assert "href='runs.csv'" in text and "href='store/'" in text and "class='MISS'" in text and "class='pass'" in text
    dom, shot = render(page, tmp_path)
    from test_report import assert_rendered

    names = len({s.figure for s in m.STATED})
    assert_rendered(dom, shot, min_tables=4, min_images=2 * names)
    assert "central claims" in dom


def test_reproduce_list_shows_the_recorded_and_the_last_run_verdicts(tmp_path, capsys):
    d = tmp_path / "reproduce-sab"
    d.mkdir()
    pd.DataFrame({"headline": ["a", "b", "c"], "result": ["pass", "MISS", "pass"],
                  "result_artifact": ["pass", "pass", "n/a"]}).to_csv(d / "headlines.csv", index=False)
    assert main(["reproduce", "list", "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"recorded (docs/reproductions/retcp.md): {RECORDED['retcp']}" in out
    assert "text 2 pass, 1 MISS of 3; artifact 2 pass, 0 MISS of 3" in out
    assert out.count("last run here") == 1


def test_the_last_run_names_an_artifact_column_that_held_a_selection_or_readings(tmp_path):
    from fabricsim.reproduce.page import recorded_verdicts
    p = tmp_path / "headlines.csv"
    label = "artifact model (all changes; + elephants-from-rack-0, read in the authors' code, not adopted)"
    pd.DataFrame({"headline": ["a", "b"], "result": ["pass", "MISS"], "result_artifact": ["pass", "pass"],
                  "artifact_model": [label] * 2}).to_csv(p, index=False)
    assert recorded_verdicts(p) == f"text 1 pass, 1 MISS of 2; {label} 2 pass, 0 MISS of 2"
    # An artifact-only run's one column is the artifact model's, not the text's.
    pd.DataFrame({"headline": ["a"], "result": ["MISS"], "artifact_model": ["artifact model (all changes)"]}).to_csv(p, index=False)
    assert recorded_verdicts(p) == "artifact 0 pass, 1 MISS of 1"
    pd.DataFrame({"headline": ["a"], "result": ["MISS"]}).to_csv(p, index=False)
    assert recorded_verdicts(p) == "text 0 pass, 1 MISS of 1"
