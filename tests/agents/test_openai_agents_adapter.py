"""The openai-agents SDK adapter, end to end: an SDK agent with a function tool, served by the
scripted agent model (not an LLM) on the loopback server, evaluated by ``ae.evaluate``."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip(
    "agents.run", reason="the openai-agents SDK is an optional extra: agenteval_nb[openai-agents]"
)

from agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    RunConfig,
    ToolCallOutputItem,
    function_tool,
    set_tracing_disabled,
)
from openai import AsyncOpenAI

import agenteval_nb as ae
from agenteval_nb.agents import OpenAIAgentsSDKAgent, Turn
from agenteval_nb.agents.openai_agents_adapter import ToolResultError, capture_invocation
from agenteval_nb.testing import (
    SCRIPTED_AGENT_MODEL,
    FakeOpenAIServer,
    FakeResponse,
    ScriptedAgentModel,
    ToolRule,
)
from agenteval_nb.testing.fake_server import error_body

API_KEY = "sk-adapter-test-secret-0123456789"
CITIES = {
    "Paris": {"condition": "sunny", "temp_c": 21},
    "Oslo": {"condition": "rainy", "temp_c": 4},
}


@pytest.fixture(autouse=True, scope="module")
def _no_tracing():
    set_tracing_disabled(True)


@function_tool
def get_weather(city: str) -> dict:
    """The current weather of a city."""
    return CITIES[city]


MODEL = ScriptedAgentModel(
    [
        ToolRule(
            "get_weather",
            ["weather"],
            arguments=r"in (?P<city>[A-Z][a-z]+)",
            say="Let me check the weather.",
            answer="It is {result[condition]} and {result[temp_c]} °C in {arguments[city]}.",
        )
    ],
    answers={"hello": "Hello! Ask me about the weather."},
)


def handler(request: dict[str, Any]) -> Any:
    """The scripted model, except that a user asking about Atlantis breaks the server."""
    last_user = [m for m in request["messages"] if m.get("role") == "user"][-1]
    if "Atlantis" in str(last_user.get("content")):
        return FakeResponse(500, error_body("the model server fell into the sea"))
    return MODEL(request)


def sdk_agent(server: FakeOpenAIServer) -> Agent:
    client = AsyncOpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0)
    return Agent(
        name="weather",
        instructions="You answer weather questions.",
        tools=[get_weather],
        model=OpenAIChatCompletionsModel(model=SCRIPTED_AGENT_MODEL, openai_client=client),
    )


def case(eval_id: str, *turns: dict[str, Any]) -> dict[str, Any]:
    return {
        "evalId": eval_id,
        "sessionInput": {"appName": "weather", "userId": "u1"},
        "conversation": list(turns),
    }


def turn(user: str, answer: str, tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    inv: dict[str, Any] = {
        "userContent": {"role": "user", "content": user},
        "finalResponse": {"role": "assistant", "content": answer},
    }
    if tools is not None:
        inv["tools"] = tools
    return inv


def weather_call(city: str) -> dict[str, Any]:
    return {"name": "get_weather", "arguments": {"city": city}, "result": CITIES.get(city)}


EVALSET = {
    "evalSetId": "weather",
    "evalCases": [
        case(
            "paris",
            turn(
                "What's the weather in Paris?",
                "It is sunny and 21 °C in Paris.",
                [weather_call("Paris")],
            ),
        ),
        case(
            "two-turns",
            turn("Hello there", "Hello! Ask me about the weather.", []),
            turn(
                "And the weather in Oslo?", "It is rainy and 4 °C in Oslo.", [weather_call("Oslo")]
            ),
        ),
        case(
            "wrong-city",
            turn(
                "weather in Oslo please", "It is rainy and 4 °C in Oslo.", [weather_call("Paris")]
            ),
        ),
        case("atlantis", turn("What's the weather in Atlantis?", "No idea.", [])),
    ],
}

METRICS = [
    {
        "metricName": "tool_trajectory_avg_score",
        "threshold": 1.0,
        "criterion": {
            "toolTrajectory": {"defaultStrategy": {"name": {}, "arguments": {}, "result": {}}}
        },
    },
    {
        "metricName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {"finalResponse": {"text": {}}},
    },
]


@pytest.fixture(scope="module")
def evaluated():
    with FakeOpenAIServer(handler=handler) as server:
        adapter = OpenAIAgentsSDKAgent(
            sdk_agent(server), run_config=RunConfig(tracing_disabled=True), max_turns=5
        )
        run = ae.evaluate(EVALSET, METRICS, agent=adapter, progress=False, cache=False)
        yield run, server, adapter


def by_id(run) -> dict[str, Any]:
    return {c.eval_id: c for c in run.result.eval_case_results}


def metric_status(case_result) -> dict[str, str]:
    return {m.metric_name: m.eval_status for m in case_result.overall_eval_metric_results or ()}


def actuals(case_result) -> list[ae.Invocation]:
    return [p.actual_invocation for p in case_result.eval_metric_result_per_invocation]


def test_tool_calls_arguments_results_and_final_response_are_captured(evaluated):
    run, _, _ = evaluated
    paris = by_id(run)["paris"]
    assert paris.final_eval_status == "passed", paris.error_message
    assert metric_status(paris) == {
        "tool_trajectory_avg_score": "passed",
        "final_response_avg_score": "passed",
    }
    [inv] = actuals(paris)
    assert inv.final_response.content == "It is sunny and 21 °C in Paris."
    assert [t.model_dump(by_alias=True, exclude_none=True) for t in inv.tools] == [
        {
            "id": "call_1",
            "name": "get_weather",
            "arguments": {"city": "Paris"},
            "result": CITIES["Paris"],
        }
    ]
    assert [m.content for m in inv.intermediate_responses] == ["Let me check the weather."]
    assert inv.user_content.content == "What's the weather in Paris?"
    usage = run.info["agent_usage"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0


def test_multi_turn_history_is_kept_within_a_session(evaluated):
    run, server, adapter = evaluated
    two = by_id(run)["two-turns"]
    assert two.final_eval_status == "passed", two.error_message
    first, second = actuals(two)
    assert (
        first.tools is None and first.final_response.content == "Hello! Ask me about the weather."
    )
    assert second.tools[0].arguments == {"city": "Oslo"} and second.tools[0].id == "call_1"
    oslo_requests = [r for r in server.chat_requests if "Oslo?" in json.dumps(r["messages"])]
    assert oslo_requests, "the second turn never reached the model"
    roles_and_text = [(m["role"], m.get("content")) for m in oslo_requests[0]["messages"]]
    assert roles_and_text == [
        ("system", "You answer weather questions."),
        ("user", "Hello there"),
        ("assistant", "Hello! Ask me about the weather."),
        ("user", "And the weather in Oslo?"),
    ]
    kept = adapter.conversation(two.session_id)
    assert [item.get("type", "message") for item in kept] == [
        "message",
        "message",
        "message",
        "message",
        "function_call",
        "function_call_output",
        "message",
    ]


def test_a_wrong_trajectory_fails_the_metric_with_the_reason(evaluated):
    run, _, _ = evaluated
    wrong = by_id(run)["wrong-city"]
    assert wrong.error_message is None
    assert metric_status(wrong) == {
        "tool_trajectory_avg_score": "failed",
        "final_response_avg_score": "passed",
    }
    [trajectory] = [
        m for m in wrong.overall_eval_metric_results if m.metric_name == "tool_trajectory_avg_score"
    ]
    assert "with name get_weather mismatch" in trajectory.details.reason  # unordered matching


def test_a_failing_sdk_run_fails_only_its_case_and_keeps_secrets_out(evaluated):
    run, _, _ = evaluated
    cases = by_id(run)
    atlantis = cases["atlantis"]
    assert atlantis.final_eval_status == "failed"
    assert atlantis.error_message.startswith("inference eval case (evalCaseID=atlantis, sessionID=")
    assert "InternalServerError" in atlantis.error_message
    assert "the model server fell into the sea" in atlantis.error_message
    assert API_KEY not in json.dumps(run.result.model_dump(by_alias=True))
    assert {k: c.final_eval_status for k, c in cases.items() if k != "atlantis"} == {
        "paris": "passed",
        "two-turns": "passed",
        "wrong-city": "failed",
    }


def test_capture_rejects_an_output_of_an_unknown_call():
    orphan = ToolCallOutputItem(
        agent=Agent(name="a"),
        raw_item={"type": "function_call_output", "call_id": "call_9", "output": "x"},
        output="x",
    )
    with pytest.raises(
        ToolResultError,
        match=r"^tool ID call_9 not found in tool ID index for tool result response$",
    ):
        capture_invocation([orphan], "done")


def test_adapter_repr_and_secrets():
    with FakeOpenAIServer(handler=MODEL) as server:
        adapter = OpenAIAgentsSDKAgent(sdk_agent(server))
    assert API_KEY not in repr(adapter) and "weather" in repr(adapter)
    assert adapter.secrets() == (API_KEY,)
    assert adapter.tools == []
    with pytest.raises(TypeError, match=r"agents\.Agent"):
        OpenAIAgentsSDKAgent(object())  # type: ignore[arg-type]


def test_user_from_session_sends_the_session_id_as_user():
    es = {"evalSetId": "w", "evalCases": [EVALSET["evalCases"][1]]}
    with FakeOpenAIServer(handler=MODEL) as server:
        plain = OpenAIAgentsSDKAgent(sdk_agent(server), run_config=RunConfig(tracing_disabled=True))
        ae.evaluate(es, METRICS, agent=plain, progress=False, cache=False)
        assert all("user" not in r for r in server.chat_requests)
        server.reset()
        config = RunConfig(tracing_disabled=True, model_settings=ModelSettings(temperature=0.5))
        adapter = OpenAIAgentsSDKAgent(sdk_agent(server), run_config=config, user_from_session=True)
        run = ae.evaluate(es, METRICS, agent=adapter, progress=False, cache=False, num_runs=2)
        sessions = {c.session_id for c in run.result.eval_case_results}
        requests = server.chat_requests
    assert len(sessions) == 2 and {r["user"] for r in requests} == sessions
    assert {r["temperature"] for r in requests} == {0.5}  # the caller's settings are kept
    assert config.model_settings.extra_args is None  # and not modified


def sdk_turn(text: str, session: str, index: int, **extra: Any) -> Turn:
    return Turn(
        ae.Message(role="user", content=text), session_id=session, turn_index=index, **extra
    )


@pytest.mark.anyio
async def test_an_evicted_session_is_rebuilt_from_the_turn_history_and_context_comes_every_turn():
    with FakeOpenAIServer(handler=MODEL) as server:
        adapter = OpenAIAgentsSDKAgent(
            sdk_agent(server), run_config=RunConfig(tracing_disabled=True), max_sessions=1
        )
        context = [ae.Message(role="system", content="Case context.")]
        first = await adapter.run_turn(sdk_turn("hello", "A", 0, context_messages=context))
        await adapter.run_turn(sdk_turn("hello", "B", 0))  # evicts session A
        assert adapter.conversation("A") == [] and len(adapter.conversation("B")) == 2
        history = [ae.Message(role="user", content="hello"), first.final_response]
        parts = ae.Message(role="user", content_parts=[{"type": "text", "text": "weather in Oslo"}])
        turn = Turn(parts, session_id="A", turn_index=1, history=history, context_messages=context)
        second = await adapter.run_turn(turn)
        last_request = server.chat_requests[-1]["messages"]
    assert first.final_response.content == "Hello! Ask me about the weather."
    assert [(m["role"], m.get("content")) for m in last_request[:5]] == [
        ("system", "You answer weather questions."),
        ("system", "Case context."),
        ("user", "hello"),
        ("assistant", "Hello! Ask me about the weather."),
        ("user", "weather in Oslo"),
    ]
    assert second.final_response.content == "It is rainy and 4 °C in Oslo."
    assert turn.usage["prompt_tokens"] > 0 and turn.usage["completion_tokens"] > 0


def test_tool_mocks_answer_instead_of_the_sdk_function_tool():
    calls: list[str] = []

    @function_tool(name_override="get_weather")
    def real_weather(city: str) -> dict:
        """The current weather of a city."""
        calls.append(city)
        return CITIES[city]

    snowy = {"condition": "snowy", "temp_c": -3}
    mocked = case("mocked", turn("weather in Paris?", "It is snowy and -3 °C in Paris."))
    mocked["conversation"][0]["toolMock"] = {
        "actual": [
            {"name": "get_weather", "arguments": {"expected": {"city": "Paris"}}, "result": snowy}
        ]
    }
    unmatched = case("unmatched", turn("weather in Paris?", "whatever"))
    unmatched["conversation"][0]["toolMock"] = {
        "actual": [
            {"name": "get_weather", "arguments": {"expected": {"city": "Oslo"}}, "result": snowy}
        ]
    }
    real = case("real", turn("weather in Oslo?", "It is rainy and 4 °C in Oslo."))
    es = {"evalSetId": "mocks", "evalCases": [mocked, unmatched, real]}
    with FakeOpenAIServer(handler=MODEL) as server:
        agent = sdk_agent(server).clone(tools=[real_weather])
        adapter = OpenAIAgentsSDKAgent(agent, run_config=RunConfig(tracing_disabled=True))
        run = ae.evaluate(es, METRICS[1:], agent=adapter, progress=False, cache=False)
    results = by_id(run)
    assert calls == ["Oslo"]  # only the unmocked case ran the real tool
    assert {k: c.final_eval_status for k, c in results.items()} == {
        "mocked": "passed",
        "unmatched": "failed",
        "real": "passed",
    }
    [m] = actuals(results["mocked"])
    assert m.tools[0].result == snowy
    assert m.tools[0].mock == {"side": "actual", "rule": 0, "kind": "static"}
    [u] = actuals(results["unmatched"])
    assert u.tools[0].result.startswith(
        'error: LookupError: tool "get_weather" configured for mock but no rule matched'
    )
    assert u.final_response.content.startswith(
        "Sorry, I could not complete get_weather: error: LookupError"
    )
    [r] = actuals(results["real"])
    assert r.tools[0].result == CITIES["Oslo"] and getattr(r.tools[0], "mock", None) is None
    assert agent.tools == [real_weather]  # the caller's agent is not changed


def test_a_factory_builds_one_agent_per_evaluation_loop_so_evaluations_can_repeat():
    es = {"evalSetId": "w", "evalCases": [EVALSET["evalCases"][0]]}
    with FakeOpenAIServer(handler=MODEL) as server:
        built: list[Agent] = []

        def build() -> Agent:
            built.append(sdk_agent(server))
            return built[-1]

        adapter = OpenAIAgentsSDKAgent(build, run_config=RunConfig(tracing_disabled=True))
        assert "per event loop" in repr(adapter) and len(built) == 1
        statuses = []
        for _ in range(2):  # blocking evaluations share the process's one loop
            run = ae.evaluate(es, METRICS, agent=adapter, progress=False, cache=False)
            statuses.append(
                [(c.final_eval_status, c.error_message) for c in run.result.eval_case_results]
            )
        for _ in range(2):  # each asyncio.run is a loop of its own
            run = asyncio.run(
                ae.evaluate_async(es, METRICS, agent=adapter, progress=False, cache=False)
            )
            statuses.append(
                [(c.final_eval_status, c.error_message) for c in run.result.eval_case_results]
            )
        assert adapter.secrets() == (API_KEY,)
    assert statuses == [[("passed", None)]] * 4
    assert len(built) == 3  # the first agent served the shared loop; one more per later loop


def test_a_plain_agent_reused_on_a_later_loop_names_the_fix():
    """Blocking evaluations share one loop, so a plain agent serves them all; an evaluation
    on another loop (``asyncio.run`` of ``evaluate_async``) fails naming the fix."""
    es = {"evalSetId": "w", "evalCases": [EVALSET["evalCases"][0]]}
    with FakeOpenAIServer(handler=MODEL) as server:
        adapter = OpenAIAgentsSDKAgent(
            sdk_agent(server), run_config=RunConfig(tracing_disabled=True)
        )
        first = ae.evaluate(es, METRICS, agent=adapter, progress=False, cache=False)
        again = ae.evaluate(es, METRICS, agent=adapter, progress=False, cache=False)
        second = asyncio.run(
            ae.evaluate_async(es, METRICS, agent=adapter, progress=False, cache=False)
        )
    assert first.result.eval_case_results[0].final_eval_status == "passed"
    assert again.result.eval_case_results[0].final_eval_status == "passed"
    error = second.result.eval_case_results[0].error_message
    assert "event loop" in error and "OpenAIAgentsSDKAgent(lambda: <build the agent>)" in error


def test_a_factory_must_build_an_sdk_agent():
    with pytest.raises(TypeError, match=r"factory returned int, not agents\.Agent"):
        OpenAIAgentsSDKAgent(lambda: 3)  # type: ignore[arg-type,return-value]
