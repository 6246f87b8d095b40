"""Any agent, captured: the generic path (an agent that returns text, its model calls captured
on the wire) against the explicit capture of ``OpenAIAgent`` — the reference — and real
frameworks (LangGraph, PydanticAI, the Agents SDK) driven through ``ae.evaluate``
against the loopback server playing the scripted agent model.

What is pinned: the same cases give identical invocations (tool ids, names, arguments,
results, final answer) and agent token usage, and identical scores on every metric, whether
the agent captured its own turn or the wire did; streamed and plain runs give identical
invocations; the judge's calls and the tool-mock generator's are never an agent's.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai import AsyncOpenAI, OpenAI

import agenteval_nb as ae
from agenteval_nb.agents import OpenAIAgent
from agenteval_nb.testing.agent_model import ScriptedAgentModel, ToolRule
from agenteval_nb.testing.fake_server import FakeOpenAIServer

WEATHER = ToolRule(
    "get_weather",
    ["weather"],
    arguments=r"in (?P<city>[A-Z]\w+)",
    answer="It is {result[condition]} in {arguments[city]}.",
)


def get_weather(city: str) -> dict[str, Any]:
    """Current weather of a city."""
    return {"city": city, "condition": "sunny" if city == "Paris" else "rainy"}


TOOL_SCHEMA = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather of a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def cases() -> ae.EvalSet:
    def case(eval_id: str, turns: list[tuple[str, str, str]]) -> dict[str, Any]:
        return {
            "evalId": eval_id,
            "sessionInput": {"appName": "weather", "userId": "u"},
            "conversation": [
                {
                    "invocationId": f"{eval_id}-{i}",
                    "userContent": {"role": "user", "content": text},
                    "finalResponse": {"role": "assistant", "content": answer},
                    "tools": [{"name": "get_weather", "arguments": {"city": city}}],
                }
                for i, (text, answer, city) in enumerate(turns)
            ],
        }

    return ae.load_evalset(
        {
            "evalSetId": "weather",
            "evalCases": [
                case(
                    "paris", [("What is the weather in Paris?", "It is sunny in Paris.", "Paris")]
                ),
                case(
                    "two-turns",
                    [
                        ("Weather in Oslo please", "It is rainy in Oslo.", "Oslo"),
                        ("And the weather in Paris?", "It is sunny in Paris.", "Paris"),
                    ],
                ),
            ],
        }
    )


METRICS = ae.load_metrics(
    [
        {
            "metricName": "final_response_avg_score",
            "threshold": 1.0,
            "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
        },
        {
            "metricName": "tool_trajectory_avg_score",
            "threshold": 1.0,
            "criterion": {"toolTrajectory": {"defaultStrategy": {"result": {"ignore": True}}}},
        },
    ]
)


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer(ScriptedAgentModel([WEATHER])) as srv:
        yield srv


def hand_loop(client: OpenAI, history: list[dict[str, Any]], text: str, *, stream: bool) -> str:
    """A hand-written tool loop over the openai client: what a user's own agent looks like."""
    history.append({"role": "user", "content": text})
    while True:
        if stream:
            chunks = client.chat.completions.create(
                model="m",
                messages=history,
                tools=[TOOL_SCHEMA],
                stream=True,
                stream_options={"include_usage": True},
            )
            content, calls = "", {}
            for chunk in chunks:
                for choice in chunk.choices:
                    content += choice.delta.content or ""
                    for part in choice.delta.tool_calls or ():
                        slot = calls.setdefault(part.index, {"id": "", "name": "", "args": ""})
                        slot["id"] += part.id or ""
                        slot["name"] += (part.function and part.function.name) or ""
                        slot["args"] += (part.function and part.function.arguments) or ""
            tool_calls = [(c["id"], c["name"], c["args"]) for c in calls.values()]
        else:
            message = (
                client.chat.completions.create(model="m", messages=history, tools=[TOOL_SCHEMA])
                .choices[0]
                .message
            )
            content = message.content or ""
            tool_calls = [
                (c.id, c.function.name, c.function.arguments) for c in message.tool_calls or ()
            ]
        if not tool_calls:
            history.append({"role": "assistant", "content": content})
            return content
        history.append(
            {
                "role": "assistant",
                "content": content or None,
                "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                    for i, n, a in tool_calls
                ],
            }
        )
        for call_id, _, args in tool_calls:
            result = get_weather(**json.loads(args))
            history.append({"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)})


def hand_agent(base_url: str, *, stream: bool):
    client = OpenAI(base_url=base_url, api_key="k")
    sessions: dict[str, list[dict[str, Any]]] = {}

    def agent(turn: ae.Turn) -> str:
        history = sessions.setdefault(turn.session_id, [])
        return hand_loop(client, history, turn.text, stream=stream)

    return agent


def turns_of(run: ae.EvalRun) -> list[tuple[Any, ...]]:
    """Per (case, turn): user text, final text, tools (id, name, arguments, result)."""
    out = []
    for case in sorted(run.result.eval_case_results, key=lambda c: c.eval_id):
        for metric_turn in case.eval_metric_result_per_invocation or ():
            inv = metric_turn.actual_invocation
            out.append(
                (
                    case.eval_id,
                    inv.user_content.content,
                    inv.final_response.content,
                    [(t.id, t.name, t.arguments, t.result) for t in inv.tools or ()],
                )
            )
    return out


def scores_of(run: ae.EvalRun) -> list[tuple[Any, ...]]:
    frame = run.metrics_df().sort_values(["eval_id", "metric_name"])
    return list(frame[["eval_id", "metric_name", "score", "status"]].itertuples(index=False))


def test_the_wire_gives_what_the_reference_agent_captured_itself(server):
    reference = ae.evaluate(
        cases(),
        METRICS,
        agent=OpenAIAgent("m", tools=[get_weather], base_url=server.base_url, api_key="k"),
        progress=False,
    )
    generic = ae.evaluate(
        cases(), METRICS, agent=hand_agent(server.base_url, stream=False), progress=False
    )
    streamed = ae.evaluate(
        cases(), METRICS, agent=hand_agent(server.base_url, stream=True), progress=False
    )
    expected = turns_of(reference)
    assert [t[3][0][:3] for t in expected] == [
        ("call_1", "get_weather", {"city": "Paris"}),
        ("call_1", "get_weather", {"city": "Oslo"}),
        ("call_2", "get_weather", {"city": "Paris"}),
    ]
    assert turns_of(generic) == expected
    assert turns_of(streamed) == expected
    assert scores_of(generic) == scores_of(reference) == scores_of(streamed)
    assert all(status == "passed" for *_, status in scores_of(generic))
    usage = reference.info["agent_usage"]
    assert usage["prompt_tokens"] > 0
    assert generic.info["agent_usage"] == streamed.info["agent_usage"] == usage


def test_a_captured_turn_names_its_calls_and_its_gaps(server):
    run = ae.evaluate(
        cases(), METRICS, agent=hand_agent(server.base_url, stream=False), progress=False
    )
    paris = next(c for c in run.result.eval_case_results if c.eval_id == "paris")
    inv = paris.eval_metric_result_per_invocation[0].actual_invocation
    assert inv.source is not None and len(inv.source.span_ids) == 2
    assert all(span.startswith("wire-") for span in inv.source.span_ids)
    assert not inv.source.gaps
    steps = inv.execution_trace.steps
    assert [s.node_type for s in steps] == ["llm", "llm"]


def test_an_agent_that_returns_without_calling_a_model_keeps_its_answer(server):
    run = ae.evaluate(cases(), METRICS, agent=lambda text: "It is sunny in Paris.", progress=False)
    paris = next(c for c in run.result.eval_case_results if c.eval_id == "paris")
    inv = paris.eval_metric_result_per_invocation[0].actual_invocation
    assert inv.final_response.content == "It is sunny in Paris." and not inv.tools
    assert inv.source is None


def test_the_judges_calls_are_never_an_agents(server):
    """An LLM-judge metric runs while other cases' agents run: its calls (same server, same
    client library) must not land in any case's turn, even by the sole-active rule."""
    judge_metric = {
        "metricName": "llm_final_response",
        "threshold": 0.5,
        "criterion": {
            "llmJudge": {
                "judgeModel": {
                    "modelName": "judge",
                    "baseUrl": server.base_url,
                    "apiKey": "k",
                    "numSamples": 1,
                }
            }
        },
    }
    run = ae.evaluate(
        cases(),
        ae.load_metrics([judge_metric]),
        agent=hand_agent(server.base_url, stream=False),
        progress=False,
        cache=False,
    )
    for case in run.result.eval_case_results:
        for turn in case.eval_metric_result_per_invocation or ():
            spans = turn.actual_invocation.source.span_ids
            assert len(spans) == 2, (case.eval_id, spans)


@pytest.mark.anyio
async def test_ae_capture_in_a_notebook_cell(server):
    client = AsyncOpenAI(base_url=server.base_url, api_key="k")
    with ae.capture() as cap:
        await client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "Weather in Rome?"}],
            tools=[TOOL_SCHEMA],
        )
    frame = cap.calls_df()
    assert frame[["api", "ok", "tool_calls"]].values.tolist() == [["chat", True, "get_weather"]]


# -- real frameworks -------------------------------------------------------------------------


def framework_run(server, make_agent) -> ae.EvalRun:
    return ae.evaluate(cases(), METRICS, agent=make_agent(server.base_url), progress=False)


def langgraph_agent(base_url: str, *, streaming: bool = False):
    pytest.importorskip("langgraph", reason="the frameworks extra is not installed")
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    llm = ChatOpenAI(
        model="m", base_url=base_url, api_key="k", streaming=streaming, stream_usage=True
    )
    return create_react_agent(llm, [tool(get_weather)])


def pydantic_ai_agent(base_url: str):
    pytest.importorskip("pydantic_ai", reason="the frameworks extra is not installed")
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIChatModel("m", provider=OpenAIProvider(base_url=base_url, api_key="k"))
    return Agent(model, tools=[get_weather])


def agents_sdk_agent(base_url: str):
    from agents import Agent, OpenAIChatCompletionsModel, function_tool, set_tracing_disabled

    set_tracing_disabled(True)
    model = OpenAIChatCompletionsModel("m", AsyncOpenAI(base_url=base_url, api_key="k"))
    return Agent(
        name="weather", instructions="Answer.", model=model, tools=[function_tool(get_weather)]
    )


@pytest.mark.parametrize(
    "make_agent",
    [
        langgraph_agent,
        lambda url: langgraph_agent(url, streaming=True),
        pydantic_ai_agent,
        agents_sdk_agent,
    ],
    ids=["langgraph", "langgraph-streaming", "pydantic-ai", "openai-agents"],
)
def test_frameworks_are_captured_without_an_adapter(server, make_agent):
    run = framework_run(server, make_agent)
    turns = turns_of(run)
    assert [(t[0], t[2]) for t in turns] == [
        ("paris", "It is sunny in Paris."),
        ("two-turns", "It is rainy in Oslo."),
        ("two-turns", "It is sunny in Paris."),
    ]
    for _, _, _, tools in turns:
        ((call_id, name, arguments, result),) = tools
        assert call_id.startswith("call_") and name == "get_weather"
        # the Agents SDK sends a tool's dict as its str(): what crossed the wire is the result
        expected = get_weather(arguments["city"])
        assert result in (expected, str(expected))
    assert all(status == "passed" for *_, status in scores_of(run))
    assert run.info["agent_usage"]["prompt_tokens"] > 0
