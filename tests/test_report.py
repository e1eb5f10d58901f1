"""The HTML report, rendered in a real browser (headless Chromium): the page must show its tables
and every figure must decode."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import fabricsim
from fabricsim.report import report
from fabricsim.sweep import Sweep, run_sweep

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("FABRICSIM_REQUIRE_BROWSER"):
            pytest.fail("chromium is required here (CI installs Debian's package) but was not found")
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    return exe


def render(page: Path, tmp_path: Path) -> tuple[str, Path]:
    """The DOM after load (scripts run) and a screenshot."""
    exe = chromium()
    url = page.resolve().as_uri()
    common = CHROMIUM_FLAGS + [f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([exe, *common, "--virtual-time-budget=5000", "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    shot = tmp_path / "page.png"
    subprocess.run([exe, *common, "--window-size=1200,1600", f"--screenshot={shot}", url], capture_output=True, timeout=120)
    return dom, shot


def assert_rendered(dom: str, shot: Path, min_tables: int, min_images: int) -> None:
    body = re.search(r"<body([^>]*)>", dom)
    assert body, dom[:500]
    attrs = dict(re.findall(r'data-([\w-]+)="(\d+)"', body.group(1)))
    images = dom.count("<img")
    assert images >= min_images
    assert int(attrs["images-ok"]) == images, f"{attrs} of {images} images decoded"
    assert int(attrs["tables"]) >= min_tables
    import matplotlib.image as mpimg

    px = mpimg.imread(shot)
    assert px.shape[0] >= 1000 and px.shape[1] >= 1000
    assert px.std() > 0.05, "the screenshot is blank"


def test_run_report_in_a_browser(tmp_path):
    res = fabricsim.run(Path(__file__).resolve().parent.parent / "scenarios" / "example.toml", progress=False)
    res.save(tmp_path / "run")
    page = report(tmp_path / "run")
    text = page.read_text()
    assert "Flow completion times" in text and "Busiest ports" in text
    dom, shot = render(page, tmp_path)
    assert_rendered(dom, shot, min_tables=3, min_images=3)


def test_sweep_report_in_a_browser(tmp_path):
    base = {
        "simulation": {"end": "3ms"},
        "topology": {"kind": "star", "hosts": 3, "link": {"rate": "10Gbps", "delay": "1us"}},
        "transport": {"cc": "dctcp", "min_rto": "1ms"},
        "workload": [{"cdf": "websearch", "load": 0.5, "senders": ["h1", "h2"], "receiver": "h0", "pattern": "many_to_one"}],
    }
    s = Sweep(base, axes={"load": [0.3, 0.6, 0.9], "cc": ["dctcp", "newreno"]}, name="report-test")
    run_sweep(s, tmp_path / "sw", workers=2, progress=False)
    page = report(tmp_path / "sw")
    assert "fabricsim sweep: report-test" in page.read_text()
    dom, shot = render(page, tmp_path)
    assert_rendered(dom, shot, min_tables=2, min_images=4)
