"""The report in headless Chromium (playwright, the system browser): it fits a 1280 px window,
and a run with human marks shows them and an agreement section with the numbers of
``ae.stats.agreement``. Screenshots go to ``/tmp/shots/report-*.png`` for people to look at."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest
from report_builders import build_run, case_result, metrics

import agenteval_nb as ae
from agenteval_nb.analysis.record import with_summary
from agenteval_nb.demo import recorded_demo
from agenteval_nb.evalrun import EvalRun
from agenteval_nb.schema import EvalSetResult
from agenteval_nb.views import export_html

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = Path("/tmp/shots")
WIDTH = 1280

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:constrained_layout:UserWarning"),
]


@pytest.fixture(scope="module")
def page():
    """A 1280×900 page of the system Chromium (skipped, or failed in CI, without one)."""
    if not CHROMIUM.exists():
        if os.environ.get("AGENTEVAL_REQUIRE_BROWSER"):
            pytest.fail("chromium not installed but AGENTEVAL_REQUIRE_BROWSER is set (.ci/run)")
        pytest.skip("chromium not installed")
    playwright = pytest.importorskip("playwright.sync_api")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM))
        yield browser.new_page(viewport={"width": WIDTH, "height": 900})
        browser.close()


def scroll_width(page, path: Path, shot: str) -> int:
    page.goto(path.as_uri())
    page.screenshot(path=str(SHOTS / f"report-{shot}.png"))
    return int(page.evaluate("document.documentElement.scrollWidth"))


def long_ids_run() -> EvalRun:
    """Two runs of cases with very long ids, reasons and errors (no spaces to break at)."""
    long = "x" * 400
    cases = [
        case_result(f"case_{i}_{long}", run_id, ok=(i + run_id) % 2 == 0, p=f"_{long}")
        for run_id in (1, 2)
        for i in range(3)
    ]
    result, _ = with_summary(
        EvalSetResult(eval_set_result_id="long", eval_set_id=f"set_{long}", eval_case_results=cases)
    )
    return EvalRun(result=result, metrics=metrics(f"_{long}"))


def test_the_demo_report_fits_1280_px(page, tmp_path):
    run = recorded_demo(tmp_path, judge=False, progress=False)
    path = export_html(run, tmp_path / "demo.html")
    assert scroll_width(page, path, "demo") <= WIDTH


def test_a_report_with_very_long_ids_and_reasons_fits_1280_px(page, tmp_path):
    path = export_html(long_ids_run(), tmp_path / "long.html")
    assert scroll_width(page, path, "long-ids") <= WIDTH
    page.locator("#cases").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "report-long-ids-cases.png"))
    # the collapsed case row names the metrics that failed
    summary = page.locator("details.ae-case-block > summary").first.inner_text()
    assert "failed: " in summary and "tool_trajectory_avg_score" in summary


def test_marks_and_the_agreement_section(page, tmp_path):
    run = build_run(runs=3)
    run.mark("weather_ok", 1, "pass", note="reads right")
    run.mark("weather_ok", 2, "pass")
    run.mark("weather_bad", 1, "pass", note="the judge is too strict")
    run.mark("weather_bad", 2, "pass")
    run.mark("weather_bad", 3, "fail")
    expected = ae.stats.agreement(run, against="human").table
    path = export_html(run, tmp_path / "marked.html")
    assert scroll_width(page, path, "agreement") <= WIDTH
    page.locator("#agreement").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "report-agreement-section.png"))
    section = page.locator("#agreement")
    lines = section.locator("table:not(.ae-confusion) > tbody > tr")
    shown = {}
    for i in range(lines.count()):
        cells = [c.strip() for c in lines.nth(i).locator(":scope > td").all_inner_texts()]
        if cells:
            shown[cells[0]] = cells
    assert set(shown) == set(expected["metric_name"])
    for row in expected.iter_rows(named=True):
        cells = shown[row["metric_name"]]
        assert cells[1] == str(row["n"])
        assert cells[2] == f"{100 * row['agreement']:.1f}%"
        kappa = "—" if math.isnan(row["kappa"]) else f"{row['kappa']:.3f}"
        assert cells[3].startswith(kappa)
        confusion = [row["pass_pass"], row["pass_fail"], row["fail_pass"], row["fail_fail"]]
        assert cells[4].split() == [str(c) for c in confusion]
    verifier = expected.filter(expected["metric_name"] == "llm_verifier_pairwise").row(
        0, named=True
    )
    text = section.inner_text()
    assert f"Brier {verifier['brier']:.3f}" in text
    assert f"ECE {verifier['ece']:.3f}" in text
    assert section.locator("svg").count() >= 1  # the calibration plot
    # the case rows carry the marks and notes
    page.locator("#cases").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "report-marks-cases.png"))
    table = page.locator("#cases").inner_text()
    assert "the judge is too strict" in table and "reads right" in table


def test_no_marks_no_agreement_section(page, tmp_path):
    path = export_html(build_run(), tmp_path / "plain.html")
    page.goto(path.as_uri())
    assert page.locator("#agreement").count() == 0
