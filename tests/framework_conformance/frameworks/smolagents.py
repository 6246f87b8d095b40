"""smolagents: a ``ToolCallingAgent`` over ``OpenAIServerModel``, passed as it is (the
toolkit's way: ``agent.run(text, reset=…)`` in a worker thread); streaming with
``stream_outputs=True``. Every mode is a gap: the agent replays its calls and their results to
the model as plain text (``"Calling tools: […]"``, ``"Observation: …"``), so the wire sees each
tool use (id, name, arguments) but never its result, and the answer leaves as a call to the
``final_answer`` tool. smolagents has no coroutine API."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import runner
from ..contract import Gap

FRAMEWORK = "smolagents"
PACKAGE = "smolagents"
CALLED = "`agent.run(text, reset=<first turn>)` in a worker thread (the object as it is)"
MEMORY = (
    "the agent's own `memory.steps`, saved per session and put back before a later turn "
    "(`reset=False`); one turn at a time per agent object"
)
TEXT_RESULTS = (
    "tool results travel as user text (`Observation: …`): tool uses with ids and arguments "
    "captured, results not; the answer is a `final_answer` tool use, so the trajectory "
    "metric fails while the final response passes"
)


def check_text_results(run: Any) -> None:
    """Tool uses and final answers as expected; no result captured; ``final_answer`` closes
    every turn; hence the trajectory metric fails and the final response passes."""
    where = "smolagents"
    runner.assert_tool_uses(run, where)
    runner.assert_final_answers(run, where)
    for case, index, inv in runner.turns_of(run):
        tools = runner.framework_tools(inv)
        assert all(t.result is None for t in tools), (case, index, [t.result for t in tools])
        assert "tool_without_result" in (inv.source.gaps or []), (case, index, inv.source)
        last = (inv.tools or [])[-1]
        answer = inv.final_response.content if inv.final_response else None
        assert (last.name, last.arguments) == ("final_answer", {"answer": answer}), last
    statuses = {(row.eval_id, row.metric_name): row.status for row in run.metrics_df().itertuples()}
    assert {m for (_, m), s in statuses.items() if s == "passed"} == {"final_response_avg_score"}
    assert {m for (_, m), s in statuses.items() if s != "passed"} == {"tool_trajectory_avg_score"}
    assert run.info["agent_usage"]["prompt_tokens"] > 0


def check_no_coroutine_api(run: Any) -> None:
    from smolagents import MultiStepAgent

    assert run is None
    found = [name for name in ("arun", "run_async", "astream") if hasattr(MultiStepAgent, name)]
    assert not found, f"smolagents now has {found}: give the way an async call"


def make(base_url: str, mode: str, tools: Sequence[Callable[..., Any]]) -> Any | Gap:
    from smolagents import OpenAIServerModel, ToolCallingAgent, tool

    if mode == "async":
        return Gap(
            "no coroutine API (`run` is blocking; the way runs it in a worker thread)",
            None,
            check_no_coroutine_api,
        )
    model = OpenAIServerModel("m", api_base=base_url, api_key="k")
    agent = ToolCallingAgent(
        tools=[tool(fn) for fn in tools],
        model=model,
        max_steps=4,
        verbosity_level=-1,
        stream_outputs=mode == "streaming",
    )
    return Gap(TEXT_RESULTS, agent, check_text_results)
