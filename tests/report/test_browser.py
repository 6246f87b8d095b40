"""The report in a real browser: headless Chromium renders it from file:// (no network)."""

from __future__ import annotations

import os
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from report_builders import build_run

from agenteval_nb.views import export_html

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = [
    pytest.mark.browser,
    # the payload makes a very long metric name: matplotlib complains about the chart layout
    pytest.mark.filterwarnings("ignore:constrained_layout:UserWarning"),
]

PAYLOAD = '"><img src=x onerror=alert(1)><script>alert(2)</script>'


@pytest.fixture(scope="module")
def chromium() -> Path:
    if not CHROMIUM.exists():
        if os.environ.get("AGENTEVAL_REQUIRE_BROWSER"):
            pytest.fail("chromium not installed but AGENTEVAL_REQUIRE_BROWSER is set (.ci/run)")
        pytest.skip("chromium not installed")
    return CHROMIUM


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    return export_html(build_run(PAYLOAD), tmp_path_factory.mktemp("browser") / "report.html")


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def run_chromium(chromium: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp / "profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run(
        [str(chromium), *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_screenshot_is_not_blank(chromium, report, tmp_path):
    from matplotlib import image

    shot = tmp_path / "report.png"
    done = run_chromium(
        chromium, tmp_path, f"--screenshot={shot}", "--window-size=1280,2000", report.as_uri()
    )
    assert shot.exists(), done.stderr[-2000:]
    pixels = image.imread(str(shot))
    assert pixels.shape[:2] == (2000, 1280)
    rgb = pixels[..., :3]
    assert float(rgb.std()) > 0.05  # text, tables and charts, not a flat page
    non_white = (rgb.min(axis=2) < 0.9).mean()
    assert non_white > 0.02
    # the heuristic banner (pale yellow, #fff8c5) is visible near the top
    banner = np.all(np.abs(rgb[:300] - np.array([1.0, 0xF8 / 255, 0xC5 / 255])) < 0.02, axis=2)
    assert banner.sum() > 1000


def test_dom_has_the_sections_and_no_injected_elements(chromium, report, tmp_path):
    done = run_chromium(chromium, tmp_path, "--dump-dom", report.as_uri())
    dom = done.stdout
    assert "</html>" in dom, done.stderr[-2000:]
    for section in ('id="header"', 'id="summary"', 'id="plots"', 'id="cases"', 'id="details"'):
        assert section in dom
    assert dom.count('<details class="ae-case-block"') == 4
    assert dom.count("<svg") >= 4 + 3  # verifier bars in the details + charts
    assert 'id="heuristic-warning"' in dom
    # the payload was parsed as text: no element or handler came out of it
    tags = Tags()
    tags.feed(dom)
    assert not {"img", "script"} & {tag for tag, _ in tags.found}
    assert not [name for _, attrs in tags.found for name in attrs if name.startswith("on")]
    assert "&lt;img src=x onerror=alert(1)&gt;" in dom


def test_judge_usage_renders_as_a_table(chromium, tmp_path):
    run = build_run()
    run.info["judge_usage"] = {"prompt_tokens": 1234, "completion_tokens": 56, "cost": 0.0125}
    page = export_html(run, tmp_path / "usage.html")
    done = run_chromium(chromium, tmp_path, "--dump-dom", page.as_uri())
    dom = done.stdout
    assert "</html>" in dom, done.stderr[-2000:]
    usage = dom.split('data-key="judge_usage"')[1].split("</table>")[0]
    cells = re.findall(r"<t[hd][^>]*>([^<]*)</t[hd]>", usage)
    assert cells == ["prompt_tokens", "1234", "completion_tokens", "56", "cost", "0.0125"]
    assert '"prompt_tokens"' not in dom  # no raw JSON left
