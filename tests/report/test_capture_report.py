"""The capture report (issue 33): per case, model calls, calls without usage, streams left
unconsumed, turns without a captured call, tool uses without results — with the fix — in
``run.info["capture"]``, ``run.capture_df()`` (the same after save and load), the HTML report
(headless Chromium) and the inspector's detail pane.

Each case's agent does one thing the report must name: streams without asking for usage
(paris), calls plainly (oslo: nothing to fix), answers without calling a model (rome), closes
its stream after the first chunk (lima).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

import agenteval_nb as ae
from agenteval_nb.testing import wire_forms
from agenteval_nb.testing.agent_model import ScriptedAgentModel, ToolRule
from agenteval_nb.testing.fake_server import FakeOpenAIServer, FakeResponse, completion
from agenteval_nb.views import export_html

CHROMIUM = Path("/usr/bin/chromium")

CITIES = ["Paris", "Oslo", "Rome", "Lima"]
TOOL_SCHEMA = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
METRICS = ae.load_metrics(
    [
        {
            "metricName": "final_response_avg_score",
            "threshold": 1.0,
            "criterion": {"finalResponse": {"text": {"matchStrategy": "contains"}}},
        }
    ]
)


def cases() -> ae.EvalSet:
    return ae.load_evalset(
        {
            "evalSetId": "weather",
            "evalCases": [
                {
                    "evalId": city.lower(),
                    "sessionInput": {"appName": "weather", "userId": "u"},
                    "conversation": [
                        {
                            "invocationId": f"{city.lower()}-0",
                            "userContent": {"role": "user", "content": f"Weather in {city}?"},
                            "finalResponse": {"role": "assistant", "content": city},
                        }
                    ],
                }
                for city in CITIES
            ],
        }
    )


def streamed(client: OpenAI, messages: list[dict[str, Any]], *, read_all: bool = True) -> str:
    stream = client.chat.completions.create(
        model="m", messages=messages, tools=[TOOL_SCHEMA], stream=True
    )
    text, calls = "", {}
    for chunk in stream:
        for choice in chunk.choices:
            text += choice.delta.content or ""
            for part in choice.delta.tool_calls or ():
                slot = calls.setdefault(part.index, {"id": "", "a": ""})
                slot["id"] += part.id or ""
                slot["a"] += (part.function and part.function.arguments) or ""
        if not read_all:
            stream.close()
            return "gave up"
    if calls:
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": c["id"], "type": "function", "function": {"name": "get_weather",
                                                                      "arguments": c["a"]}}
                    for c in calls.values()
                ],
            }
        )  # fmt: skip
        for c in calls.values():
            city = json.loads(c["a"])["city"]
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": city})
        return streamed(client, messages)
    return text


def agent_for(base_url: str):
    client = OpenAI(base_url=base_url, api_key="k", max_retries=0)

    def agent(text: str) -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
        if "Paris" in text:
            return streamed(client, messages)
        if "Oslo" in text:
            reply = client.chat.completions.create(model="m", messages=messages)
            return reply.choices[0].message.content or ""
        if "Lima" in text:
            return streamed(client, messages, read_all=False)
        return "Rome, from memory"

    return agent


SCRIPTED = ScriptedAgentModel(
    [ToolRule("get_weather", ["weather in paris"], arguments=r"in (?P<city>[A-Z]\w+)")],
    fallback="Oslo is cloudy",
)


def model(request: dict[str, Any]) -> dict[str, Any] | FakeResponse:
    """The scripted model; Lima's answer trickles in (a stream the agent can leave early)."""
    if "Lima" in json.dumps(request["messages"]):
        events = wire_forms.chat_stream_events(completion("Lima is warm"), include_usage=False)
        body = wire_forms.sse_body(events)
        return FakeResponse(200, body, content_type="text/event-stream", trickle_s=0.002)
    return SCRIPTED(request)


RESULTS: dict[str, Path] = {}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    RESULTS["dir"] = tmp_path_factory.mktemp("results")
    with FakeOpenAIServer(model) as server:
        return ae.evaluate(
            cases(),
            METRICS,
            agent=agent_for(server.base_url),
            results_dir=RESULTS["dir"],
            progress=False,
        )


def rows_by_case(run: ae.EvalRun) -> dict[str, dict[str, Any]]:
    return {row["eval_id"]: row for row in run.info["capture"]}


def test_each_case_has_its_counts_and_fixes_in_run_info(run):
    rows = rows_by_case(run)
    json.dumps(run.info["capture"])  # JSON-ready
    paris, oslo, rome, lima = (rows[c.lower()] for c in CITIES)
    assert (paris["model_calls"], paris["calls_without_usage"]) == (2, 2)
    assert paris["fixes"] == [
        "2 calls whose reply reported no token usage: pass "
        "stream_options={'include_usage': True} (a stream reports usage only when asked)"
    ]
    assert (oslo["model_calls"], oslo["fixes"]) == (1, [])
    assert oslo["prompt_tokens"] > 0 and oslo["completion_tokens"] > 0
    assert rome["model_calls"] == 0 and rome["turns_without_calls"] == 1
    assert rome["fixes"][0].startswith("1 turns with no model call captured: ")
    assert (lima["streams_unconsumed"], lima["turns_without_calls"]) == (1, 1)
    assert any("read each stream to its end" in fix for fix in lima["fixes"])


def test_capture_df_is_the_same_after_save_and_load(run):
    fresh = run.capture_df(backend="polars")
    assert fresh.height == 4
    assert fresh.to_dicts() == run.info["capture"]
    (saved,) = RESULTS["dir"].rglob("*.json")
    loaded = ae.load_run(saved)
    assert "capture" not in loaded.info  # run.info is not saved; the turns' counts are
    assert loaded.capture_df(backend="polars").to_dicts() == fresh.to_dicts()


def test_a_run_without_captured_turns_has_no_report():
    run = ae.evaluate(cases(), METRICS, agent=lambda text: "Paris", progress=False)
    assert "capture" not in run.info
    assert run.capture_df(backend="polars").height == 0


def test_the_inspector_detail_pane_shows_the_case_capture_and_its_fix(run):
    view = ae.inspect(run)
    view.select("paris", 1)
    detail = view.detail.value
    assert 'data-count="calls_without_usage"' in detail
    assert "stream_options={&#39;include_usage&#39;: True}" in detail
    view.select("oslo", 1)
    assert 'data-count="model_calls"' in view.detail.value
    assert 'class="ae-capture-fix"' not in view.detail.value


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


@pytest.mark.browser
def test_the_report_shows_the_capture_section_and_each_case_capture(run, page, tmp_path):
    path = export_html(run, tmp_path / "capture.html")
    page.goto(path.as_uri())
    section = page.locator("#capture-report")
    assert section.is_visible()
    total = section.locator(".ae-capture-total").inner_text()
    assert total.startswith("4 cases:")
    flagged = section.locator("table.ae-capture-cases tr td:first-child code")
    assert sorted(flagged.all_inner_texts()) == ["lima", "paris", "rome"]
    assert "pass stream_options={'include_usage': True}" in section.inner_text()
    assert "capture" not in page.locator("table.ae-kv th").all_inner_texts()
    case = page.locator("details.ae-case-block", has=page.locator("code", has_text="paris"))
    case.locator("> summary").click()
    counts = case.locator(".ae-capture").first
    assert counts.is_visible()
    assert "calls without usage 2" in counts.inner_text()
    turn = case.locator("details.ae-inv").first
    turn.locator("> summary").click()
    assert "model calls 2" in turn.locator("table.ae-source").inner_text()


def test_calls_no_case_could_claim_are_reported_with_the_fix():
    """Two cases run at once; each agent's model call comes from a bare thread it starts: the
    calls belong to neither case (never guessed) and both cases report them."""
    import threading

    both_running = threading.Barrier(2, timeout=10)

    def agent_on(base_url: str):
        client = OpenAI(base_url=base_url, api_key="k", max_retries=0)

        def agent(text: str) -> str:
            both_running.wait()
            out: list[str] = []

            def call() -> None:
                reply = client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": text}]
                )
                out.append(reply.choices[0].message.content or "")

            worker = threading.Thread(target=call)
            worker.start()
            worker.join()
            both_running.wait()  # neither case ends before the other's call is made
            return out[0]

        return agent

    two = cases()
    two.eval_cases = two.eval_cases[:2]
    with FakeOpenAIServer(SCRIPTED) as server:
        run = ae.evaluate(
            two, METRICS, agent=agent_on(server.base_url), case_parallelism=2, progress=False
        )
    rows = rows_by_case(run)
    for eval_id in ("paris", "oslo"):
        row = rows[eval_id]
        assert row["unattributed_calls"] == 2 and row["model_calls"] == 0, row
        assert any("contextvars.copy_context().run" in fix for fix in row["fixes"])
