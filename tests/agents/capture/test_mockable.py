"""Tool mocks for tools a framework runs (agenteval_nb/agents/mockable.py): ``ae.mockable(fn)``
answers from the turn's ``toolMock`` rules instead of running ``fn``, for real PydanticAI and
LangGraph agents and a plain function agent against the loopback server; a tool with rules that
the agent runs unwrapped fails its case naming the tool and the fix."""

from __future__ import annotations

import asyncio
import inspect
import json
import typing
from typing import Any

import pytest
from openai import OpenAI

import agenteval_nb as ae
from agenteval_nb.testing.agent_model import ScriptedAgentModel, ToolRule
from agenteval_nb.testing.fake_server import FakeOpenAIServer

WEATHER = ToolRule(
    "get_weather",
    ["weather"],
    arguments=r"in (?P<city>[A-Z]\w+)",
    answer="It is {result[condition]} in {arguments[city]}.",
)

REAL_CALLS: list[str] = []


City = typing.Literal["Paris", "Oslo", "Rome"]
"""A name only this module knows (frameworks must resolve the wrapper's hints here)."""


def get_weather(city: City) -> dict[str, Any]:
    """Current weather of a city."""
    REAL_CALLS.append(city)
    return {"city": city, "condition": "sunny" if city == "Paris" else "rainy"}


def _async_twin(sync):
    async def get_weather(city: City) -> dict[str, Any]:  # the same tool name
        """Current weather of a city."""
        await asyncio.sleep(0)
        return sync(city)

    return get_weather


get_weather_async = _async_twin(get_weather)


def cases(*, mocked: bool = True) -> ae.EvalSet:
    """Paris mocked as snowy (a rule on its arguments); Oslo runs for real in turn 1 of the
    second case and is mocked in turn 2 (rules are per turn)."""
    snowy = {"city": "Paris", "condition": "snowy"}
    paris_rule = {
        "name": "get_weather",
        "arguments": {"expected": {"city": "Paris"}},
        "result": snowy,
    }

    def turn(eval_id: str, i: int, text: str, answer: str, rules: list | None) -> dict:
        inv: dict[str, Any] = {
            "invocationId": f"{eval_id}-{i}",
            "userContent": {"role": "user", "content": text},
            "finalResponse": {"role": "assistant", "content": answer},
        }
        if rules and mocked:
            inv["toolMock"] = {"actual": rules}
        return inv

    return ae.load_evalset(
        {
            "evalSetId": "mocked-weather",
            "evalCases": [
                {
                    "evalId": "paris",
                    "sessionInput": {"appName": "weather", "userId": "u"},
                    "conversation": [
                        turn("paris", 0, "Weather in Paris?", "It is snowy in Paris.", [paris_rule])
                    ],
                },
                {
                    "evalId": "oslo",
                    "sessionInput": {"appName": "weather", "userId": "u"},
                    "conversation": [
                        turn("oslo", 0, "Weather in Oslo?", "It is rainy in Oslo.", None),
                        turn(
                            "oslo",
                            1,
                            "Weather in Oslo again?",
                            "It is foggy in Oslo.",
                            [{"name": "get_weather", "result": {"condition": "foggy"}}],
                        ),
                    ],
                },
            ],
        }
    )


METRICS = ae.load_metrics(
    [
        {
            "metricName": "final_response_avg_score",
            "threshold": 1.0,
            "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
        }
    ]
)


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer(ScriptedAgentModel([WEATHER])) as srv:
        yield srv


@pytest.fixture(autouse=True)
def fresh_calls():
    REAL_CALLS.clear()


def tools_of(run: ae.EvalRun) -> list[tuple[str, int, Any, Any, Any]]:
    """Per (case, turn): the tool uses with their arguments, results and mock notes."""
    out = []
    for case in sorted(run.result.eval_case_results, key=lambda c: c.eval_id):
        for i, metric_turn in enumerate(case.eval_metric_result_per_invocation or ()):
            for tool in metric_turn.actual_invocation.tools or ():
                result = tool.result
                if isinstance(result, str) and result.startswith("{"):
                    result = json.loads(result)
                out.append((case.eval_id, i, tool.arguments, result, tool.mock))
    return out


EXPECTED = [
    ("oslo", 0, {"city": "Oslo"}, {"city": "Oslo", "condition": "rainy"}, None),
    ("oslo", 1, {"city": "Oslo"}, {"condition": "foggy"}, {"side": "actual", "rule": 0}),
    ("paris", 0, {"city": "Paris"}, {"city": "Paris", "condition": "snowy"}, {"rule": 0}),
]


def assert_mocked(run: ae.EvalRun) -> None:
    statuses = [
        (c.eval_id, c.final_eval_status, c.error_message) for c in run.result.eval_case_results
    ]
    assert sorted(statuses) == [("oslo", "passed", None), ("paris", "passed", None)]
    got = tools_of(run)
    assert [t[:4] for t in got] == [t[:4] for t in EXPECTED]
    for (*_, note), (*_, expected_note) in zip(got, EXPECTED, strict=True):
        if expected_note is None:
            assert note is None
        else:
            assert note is not None and expected_note.items() <= note.items()
            assert note["kind"] == "static"
    assert REAL_CALLS == ["Oslo"]  # only the turn without rules ran the real tool


def test_the_wrapper_looks_like_the_function_to_frameworks() -> None:
    for fn in (get_weather, get_weather_async):
        wrapped = ae.mockable(fn)
        assert wrapped.__name__ == fn.__name__ and wrapped.__doc__ == fn.__doc__
        assert inspect.signature(wrapped) == inspect.signature(fn)
        assert typing.get_type_hints(wrapped) == typing.get_type_hints(fn)
        assert inspect.iscoroutinefunction(wrapped) == inspect.iscoroutinefunction(fn)
    assert ae.mockable(get_weather)("Rome") == {"city": "Rome", "condition": "rainy"}
    assert REAL_CALLS == ["Rome"]  # outside a turn: the real tool
    with pytest.raises(TypeError, match=r"tool\(ae\.mockable\(get_weather\)\)"):
        ae.mockable(object())  # type: ignore[type-var]


def plain_agent(base_url: str, tool):
    """A hand-written tool loop over the openai client, calling the (wrapped) function."""
    client = OpenAI(base_url=base_url, api_key="k")
    schema = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather of a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
    sessions: dict[str, list[dict[str, Any]]] = {}

    def agent(turn: ae.Turn) -> str:
        history = sessions.setdefault(turn.session_id, [])
        history.append({"role": "user", "content": turn.text})
        while True:
            message = (
                client.chat.completions.create(model="m", messages=history, tools=[schema])
                .choices[0]
                .message
            )
            history.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                return message.content or ""
            for call in message.tool_calls:
                result = tool(**json.loads(call.function.arguments))
                history.append(
                    {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
                )

    return agent


def test_a_plain_function_agent_calls_the_mock(server) -> None:
    agent = plain_agent(server.base_url, ae.mockable(get_weather))
    assert_mocked(ae.evaluate(cases(), METRICS, agent=agent, progress=False, cache=False))


def test_an_unwrapped_tool_with_rules_fails_its_case_naming_the_fix(server) -> None:
    agent = plain_agent(server.base_url, get_weather)
    run = ae.evaluate(cases(), METRICS, agent=agent, progress=False, cache=False)
    results = {c.eval_id: c for c in run.result.eval_case_results}
    assert results["paris"].final_eval_status == "failed"
    error = results["paris"].error_message or ""
    assert 'tool "get_weather" has toolMock rules in this turn' in error
    assert "ae.mockable(get_weather)" in error
    assert "turn 2" in (results["oslo"].error_message or "")  # turn 1 had no rules
    plain = ae.evaluate(cases(mocked=False), METRICS, agent=agent, progress=False, cache=False)
    assert {c.eval_id: c.error_message for c in plain.result.eval_case_results} == {
        "paris": None,
        "oslo": None,
    }


def test_pydantic_ai_takes_mockable_tools(server) -> None:
    pytest.importorskip("pydantic_ai", reason="the frameworks extra is not installed")
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIChatModel("m", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
    for tool in (get_weather, get_weather_async):
        REAL_CALLS.clear()
        agent = Agent(model, tools=[ae.mockable(tool)])
        assert_mocked(ae.evaluate(cases(), METRICS, agent=agent, progress=False, cache=False))


def test_langgraph_takes_mockable_tools(server) -> None:
    pytest.importorskip("langgraph", reason="the frameworks extra is not installed")
    from langchain_core.tools import tool as as_tool
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    llm = ChatOpenAI(model="m", base_url=server.base_url, api_key="k")
    for tool in (get_weather, get_weather_async):
        REAL_CALLS.clear()
        graph = create_react_agent(llm, [as_tool(ae.mockable(tool))])
        assert_mocked(ae.evaluate(cases(), METRICS, agent=graph, progress=False, cache=False))


def test_a_framework_context_parameter_is_not_an_argument(server) -> None:
    """PydanticAI passes its ``RunContext`` first: the rules compare the model's arguments."""
    pytest.importorskip("pydantic_ai", reason="the frameworks extra is not installed")
    from pydantic_ai import Agent, RunContext
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    globals()["RunContext"] = RunContext  # the tool's hints resolve in this module, as a user's

    def with_context(sync):
        def get_weather(ctx: RunContext[None], city: City) -> dict[str, Any]:
            """Current weather of a city."""
            assert ctx.deps is None
            return sync(city)

        return get_weather

    model = OpenAIChatModel("m", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
    agent = Agent(model, tools=[ae.mockable(with_context(get_weather))])
    assert_mocked(ae.evaluate(cases(), METRICS, agent=agent, progress=False, cache=False))
