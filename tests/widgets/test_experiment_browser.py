"""The experiment inspector in a real browser (voilà + playwright on the system Chromium, see
``browser_support``): the leaderboard on top, the pickers, the comparison of the chosen pair;
picking another variant shows that pair. Screenshots go to ``out/browser/experiment/``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
from browser_support import CHROMIUM, SCREENSHOTS, require_browser, serve_cells

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]

WAIT_MS = 120_000
LOOPBACK = {"127.0.0.1", "localhost"}

SETUP = f"""import sys
sys.path.insert(0, {str(Path(__file__).parent.parent / "report")!r})
import agenteval_nb as ae
from agenteval_nb.experiments import experiment_of_runs
from report_builders import many_cases_run
exp = experiment_of_runs({{"baseline": many_cases_run(3), "new prompt": many_cases_run(4),
                          "new model": many_cases_run(6)}})"""
CELL = """insp = ae.inspect(exp, page_size=10)
insp.add_class("ae-test-exp")
insp"""


@pytest.fixture(scope="module")
def base_url(tmp_path_factory) -> Iterator[str]:
    require_browser()
    yield from serve_cells(tmp_path_factory.mktemp("voila"), "experiment", [SETUP, CELL])


def _picker(root, label: str):
    return (
        root.locator(".widget-dropdown")
        .filter(has=root.page.locator("label", has_text=re.compile(f"^{label}$")))
        .locator("select")
    )


def _chosen(root, label: str) -> str:
    # ipywidgets writes option labels with no-break spaces
    return _picker(root, label).evaluate("s => s.selectedOptions[0].text").replace("\xa0", " ")


def test_leaderboard_pickers_and_comparison(base_url):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    errors: list[str] = []
    requests: list[str] = []
    shots = SCREENSHOTS / "experiment"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.set_default_timeout(WAIT_MS)
        page.on("request", lambda r: requests.append(r.url))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base_url + "/voila/render/experiment.ipynb", timeout=WAIT_MS)
        root = page.locator(".ae-test-exp")
        expect(root.locator("table.ae-board")).to_have_count(1)
        expect(root.locator("table.ae-board")).to_contain_text("new model")
        # the two best first: fails every 6th and every 4th case-run
        expect(_picker(root, "A")).to_have_value(re.compile("."))
        assert _chosen(root, "A") == "new model"
        assert _chosen(root, "B") == "new prompt"
        expect(root).to_contain_text("new model vs new prompt")
        root.screenshot(path=str(shots / "experiment-inspector.png"))
        _picker(root, "B").select_option(index=0)  # baseline, the first of the given order
        expect(root).to_contain_text("new model vs baseline")
        root.screenshot(path=str(shots / "experiment-inspector-baseline.png"))
        browser.close()
    assert errors == []
    assert [u for u in requests if urlparse(u).hostname not in LOOPBACK | {None}] == []
