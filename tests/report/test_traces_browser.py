"""A trace set loaded from spans, evaluated, shown in the report (headless Chromium, playwright,
the system browser) and in the inspector's detail pane: the turns, their tools and the source
span ids are there, and the gaps of a turn without content are named."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _trace_spans import agent, llm, tool, usage

import agenteval_nb as ae
from agenteval_nb.steps.records import Content, ToolUse
from agenteval_nb.traces.load import build_evalset
from agenteval_nb.views import export_html

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.filterwarnings("ignore:constrained_layout:UserWarning"),
]

METRICS = [
    {
        "metricName": "tools",
        "evaluatorName": "tool_trajectory_avg_score",
        "threshold": 1.0,
        "criterion": {"toolTrajectory": {"defaultStrategy": {"name": {}}}},
    },
    {
        "metricName": "answer",
        "evaluatorName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "contains"}}},
    },
]


def spans(trace: str, conv: str, start: int, *, content: bool = True):
    c = Content.PRESENT if content else Content.MISSING
    a, m1, t, m2 = (f"{trace}-{n}" for n in ("agent", "chat1", "tool", "chat2"))
    return [
        agent(trace, a, None, start, start + 100, conv=conv, content=c),
        llm(
            trace,
            m1,
            a,
            start + 1,
            start + 10,
            user="rate for EUR?" if content else None,
            tools=[ToolUse(f"{trace}-call", "fx_rate", {"ccy": "EUR"})] if content else [],
            usage=usage(40, 8),
            content=c,
        ),
        tool(
            trace,
            t,
            a,
            start + 11,
            start + 20,
            call_id=f"{trace}-call",
            name="fx_rate",
            result=1.08 if content else None,
            has_result=content,
            content=c,
        ),
        llm(trace, m2, a, start + 21, start + 30, out="1.08" if content else None, content=c),
    ]


@pytest.fixture(scope="module")
def run():
    pairs = spans("aa01", "conv-a", 0) + spans("aa02", "conv-a", 200)
    pairs += spans("bb01", "conv-b", 400, content=False)
    evalset, _ = build_evalset(pairs, eval_set_id="fx")
    return ae.evaluate(evalset, METRICS, progress=False)


@pytest.fixture(scope="module")
def page():
    if not CHROMIUM.exists():
        if os.environ.get("AGENTEVAL_REQUIRE_BROWSER"):
            pytest.fail("chromium not installed but AGENTEVAL_REQUIRE_BROWSER is set (.ci/run)")
        pytest.skip("chromium not installed")
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM))
        yield browser.new_page(viewport={"width": 1280, "height": 900})
        browser.close()


def test_the_report_shows_turns_tools_and_source_span_ids(run, page, tmp_path):
    path = export_html(run, tmp_path / "traces.html")
    page.goto(path.as_uri())
    case = page.locator("details.ae-case-block", has=page.locator("code", has_text="conv-a"))
    case.locator("> summary").click()
    turns = case.locator("details.ae-inv")
    assert turns.count() == 2
    for index, trace in enumerate(("aa01", "aa02")):
        turn = turns.nth(index)
        turn.locator("> summary").click()
        assert turn.locator("code.ae-trace-id").inner_text() == trace
        assert turn.locator("code.ae-root-span").inner_text() == f"{trace}-agent"
        ids = turn.locator("code.ae-span-id").all_inner_texts()
        assert ids == [f"{trace}-agent", f"{trace}-chat1", f"{trace}-tool", f"{trace}-chat2"]
        assert turn.locator("code.ae-span-id").first.is_visible()
        assert "fx_rate" in turn.inner_text()
    dark = page.locator("details.ae-case-block", has=page.locator("code", has_text="conv-b"))
    dark.locator("> summary").click()
    turn = dark.locator("details.ae-inv").first
    turn.locator("> summary").click()
    gaps = turn.locator(".ae-gap").all_inner_texts()
    assert "content_missing" in gaps and "no_final_response" in gaps
    assert "fx_rate" in turn.inner_text()  # names survive without content
    assert "not evaluated: turn text not recovered" in turn.inner_text()
    page.screenshot(path=str(tmp_path / "traces.png"), full_page=True)


def test_the_inspector_detail_pane_shows_the_source_span_ids(run):
    view = ae.inspect(run)
    view.select("conv-a", 1)
    detail = view.detail.value
    assert 'class="ae-source"' in detail
    for trace in ("aa01", "aa02"):
        assert f'<code class="ae-span-id">{trace}-tool</code>' in detail
    view.select("conv-b", 1)
    assert '<span class="ae-gap">content_missing</span>' in view.detail.value
