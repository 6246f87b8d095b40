"""The experiment report: sections, escaping of variant names, the offline banner, and in a
real browser (headless Chromium from file://) the differing cases side by side."""

from __future__ import annotations

import os
from html.parser import HTMLParser
from pathlib import Path

import pytest

from agenteval_nb.analysis.experiment import records_of
from agenteval_nb.engine.summary import summarize
from agenteval_nb.evalrun import EvalRun
from agenteval_nb.offline_flags import SCRIPTED_AGENT_LABEL
from agenteval_nb.report.experiment import experiment_html, export_experiment_html
from agenteval_nb.schema import EvalCaseResult, EvalMetricResult, EvalSetResult
from agenteval_nb.testing.agent_model import SCRIPTED_AGENT_MODEL

pytestmark = pytest.mark.filterwarnings("ignore:constrained_layout:UserWarning")  # long names

CHROMIUM = Path("/usr/bin/chromium")
PAYLOAD = '"><img src=x onerror=alert(1)><script>alert(2)</script>'


def run_of(passes: dict[str, bool], **info) -> EvalRun:
    cases = [
        EvalCaseResult(
            eval_set_id="set",
            eval_id=eval_id,
            run_id=1,
            final_eval_status="passed" if ok else "failed",
            overall_eval_metric_results=[
                EvalMetricResult(
                    metric_name="m",
                    score=1.0 if ok else 0.0,
                    eval_status="passed" if ok else "failed",
                    threshold=0.5,
                )
            ],
            eval_metric_result_per_invocation=[],
        )
        for eval_id, ok in passes.items()
    ]
    result = EvalSetResult(
        eval_set_result_id="r",
        eval_set_id="set",
        eval_case_results=cases,
        summary=summarize(cases, 1),
    )
    return EvalRun(result=result, info=info)


class Exp:
    def __init__(self, runs):
        self.records = {name: run.record for name, run in runs.items()}
        self.num_runs = 1
        self.price_table = None


@pytest.fixture(scope="module")
def exp():
    return Exp(
        {
            "good": run_of({"c1": True, "c2": True, "c3": True}),
            PAYLOAD: run_of(
                {"c1": True, "c2": False, "c3": False}, agent=f"on {SCRIPTED_AGENT_MODEL}"
            ),
        }
    )


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.found.append(tag)
        self.found.extend(f"@{name}" for name, _ in attrs)


def test_sections_and_differing_cases(exp):
    page = experiment_html(exp)
    for heading in ("Leaderboard", "Pairwise", "Figures", "Cases that differ"):
        assert f"<h2>{heading}" in page
    assert page.count('class="ae-case-block"') == 2  # c2 and c3
    assert records_of(exp).keys() == {"good", PAYLOAD}


def test_a_variant_name_is_text_never_markup(exp):
    page = experiment_html(exp)
    tags = Tags()
    tags.feed(page)
    assert "img" not in tags.found and "script" not in tags.found
    assert not [t for t in tags.found if t.startswith("@on")]
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_the_offline_banner_names_the_variants_it_concerns(exp):
    page = experiment_html(exp)
    assert page.count('id="offline-warning"') == 1
    banner = page.split('id="offline-warning">', 1)[1].split("</div>", 1)[0]
    assert SCRIPTED_AGENT_LABEL in banner and "&lt;img" in banner and "good" not in banner


def test_written_atomically_where_asked(exp, tmp_path):
    path = export_experiment_html(exp, tmp_path / "sub" / "exp.html", title="T")
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "<title>T</title>" in path.read_text(encoding="utf-8")


@pytest.mark.browser
def test_in_a_browser_the_variants_stand_side_by_side(exp, tmp_path):
    if not CHROMIUM.exists():
        if os.environ.get("AGENTEVAL_REQUIRE_BROWSER"):
            pytest.fail("chromium not installed but AGENTEVAL_REQUIRE_BROWSER is set (.ci/run)")
        pytest.skip("chromium not installed")
    playwright = pytest.importorskip("playwright.sync_api")
    path = export_experiment_html(exp, tmp_path / "exp.html")
    requests: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM))
        page = browser.new_page(viewport={"width": 1280, "height": 1200})
        page.on("request", lambda r: requests.append(r.url))
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(path.as_uri())
        block = page.locator("details.ae-case-block").first
        block.locator("> summary").click()
        sides = block.locator(".ae-side > div")
        boxes = [sides.nth(i).bounding_box() for i in range(sides.count())]
        screenshots = Path(__file__).resolve().parents[2] / "out" / "browser"
        screenshots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(screenshots / "experiment_report.png"), full_page=True)
        browser.close()
    assert len(boxes) == 2
    assert boxes[0]["y"] == boxes[1]["y"]  # one row, two columns
    assert boxes[0]["x"] + boxes[0]["width"] <= boxes[1]["x"]
    assert dialogs == []
    assert all(url.startswith("file://") or url.startswith("data:") for url in requests)
