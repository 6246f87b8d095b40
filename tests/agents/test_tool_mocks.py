"""Tool mocks (SPEC §8.3): validation texts, matching (tolerance 0, trees, raw arguments, first
match wins), no-match errors, llmGenerator, recording, and the seed files end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _agent_builders import default_case, evalset, metrics
from pydantic import BaseModel

import agenteval_nb as ae
from agenteval_nb.agents import FunctionAgent, Turn
from agenteval_nb.agents.tool_mocks import ToolMockError, ToolMockInterceptor, validate_rules
from agenteval_nb.agents.tools import NOT_INTERCEPTED, Mocked
from agenteval_nb.schema import ToolMockTool
from agenteval_nb.testing import FakeOpenAIServer, completion, tool_call

SEEDS = Path(__file__).resolve().parents[2] / "data" / "seeds"


def rules(*items: dict[str, Any]) -> list[ToolMockTool]:
    return [ToolMockTool.model_validate(i) for i in items]


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({"result": 1}, "name is required"),
        ({"name": " ", "result": 1}, "name is required"),
        (
            {"name": "t", "arguments": {"ignore": True, "expected": {}}, "result": 1},
            "arguments.ignore cannot be combined",
        ),
        (
            {"name": "t", "arguments": {"ignore": True, "numberTolerance": 0.1}, "result": 1},
            "arguments.ignore cannot be combined",
        ),
        (
            {"name": "t", "arguments": {"onlyTree": {"a": True}}, "result": 1},
            "arguments.expected is required",
        ),
        (
            {
                "name": "t",
                "arguments": {"expected": {}, "onlyTree": {"a": True}, "ignoreTree": {"b": True}},
                "result": 1,
            },
            "onlyTree and ignoreTree cannot be set at the same time",
        ),
        (
            {"name": "t", "arguments": {"expected": {}, "numberTolerance": -1}, "result": 1},
            "numberTolerance must be >= 0",
        ),
        ({"name": "t"}, "result is required for a static rule"),
        ({"name": "t", "llmGenerator": {"prompt": " "}}, "llmGenerator requires a prompt"),
        (
            {"name": "t", "llmGenerator": {"prompt": "p"}, "result": 1},
            "llmGenerator cannot be combined with result",
        ),
    ],
)
def test_validation_texts(rule, message) -> None:
    with pytest.raises(ToolMockError, match=message):
        validate_rules(rules(rule), generator_available=True)


def test_generator_needs_a_runner() -> None:
    with pytest.raises(ToolMockError, match="requires a tool mock runner"):
        validate_rules(
            rules({"name": "t", "llmGenerator": {"prompt": "p"}}), generator_available=False
        )


@pytest.mark.anyio
async def test_matching_rules() -> None:
    mock = ToolMockInterceptor(
        rules(
            {"name": "t", "arguments": {"expected": {"x": 0.3}}, "result": "exact"},
            {
                "name": "t",
                "arguments": {"expected": {"x": 0.3}, "numberTolerance": 0.01},
                "result": "tolerant",
            },
            {
                "name": "t",
                "arguments": {"expected": {"city": "A"}, "onlyTree": {"city": True}},
                "result": "tree",
            },
            {"name": "t", "arguments": {"expected": "raw text"}, "result": "raw"},
        )
    )
    assert (await mock("t", {"x": 0.3})).result == "exact"
    # tolerance defaults to 0: a difference the metric default (1e-6) would forgive is a miss
    assert (await mock("t", {"x": 0.3000001})).result == "tolerant"
    assert (await mock("t", {"city": "A", "date": "any"})).result == "tree"
    assert (await mock("t", "raw text")).result == "raw"
    hit = await mock("t", {"x": 0.3})
    assert isinstance(hit, Mocked) and hit.note == {"side": "actual", "rule": 0, "kind": "static"}
    assert await mock("other", {}) is NOT_INTERCEPTED
    with pytest.raises(LookupError) as err:
        await mock("t", {"y": 1})
    assert str(err.value).startswith('tool "t" configured for mock but no rule matched: ')


@pytest.mark.anyio
async def test_first_match_wins_and_absent_arguments_match_everything() -> None:
    mock = ToolMockInterceptor(
        rules(
            {"name": "t", "result": "first"},
            {"name": "t", "arguments": {"expected": {}}, "result": "second"},
        )
    )
    assert (await mock("t", {})).result == "first"
    assert (await mock("t", {"anything": [1, 2]})).result == "first"


def weather_agent(turn: Turn) -> str:
    result = turn.tools.call("get_weather", {"city": "Shenzhen", "date": "2026-07-01", "unit": "c"})
    return f"{result['condition']}"


def get_weather(city: str, date: str, unit: str = "c") -> dict:
    """Real weather (must not run when mocked)."""
    raise AssertionError("the real tool ran")


def test_seed_static_mock_end_to_end() -> None:
    es = ae.load_evalset(SEEDS / "weather-eval-app" / "toolmock-static.evalset.json")
    agent = FunctionAgent(weather_agent, tools=[get_weather])
    run = ae.evaluate(
        es,
        [
            {
                "metricName": "tool_trajectory_avg_score",
                "threshold": 1.0,
                "criterion": {
                    "toolTrajectory": {"defaultStrategy": {"arguments": {"ignore": True}}}
                },
            }
        ],
        agent=agent,
        expected_agent=agent,
        progress=False,
    )
    case = run.result.eval_case_results[0]
    actual = case.eval_metric_result_per_invocation[0].actual_invocation
    tool = actual.tools[0]
    assert tool.result == {"city": "Shenzhen", "condition": "sunny", "temperature": 28}
    assert tool.mock == {"side": "actual", "rule": 0, "kind": "static"}
    assert actual.final_response.content == "sunny"
    # the written result keeps the mock note (an extra key Go readers ignore)
    assert (
        json.loads(json.dumps(run.result.to_wire()))["evalCaseResults"][0][
            "evalMetricResultPerInvocation"
        ][0]["actualInvocation"]["tools"][0]["mock"]["kind"]
        == "static"
    )


def test_seed_rule_order_falls_back_to_name_only_rule() -> None:
    es = ae.load_evalset(SEEDS / "weather-eval-app" / "toolmock-rules.evalset.json")

    def agent(turn: Turn) -> str:
        first = turn.tools.call("get_weather", {"city": "Shenzhen", "date": "2026-07-01"})
        other = turn.tools.call("get_weather", {"city": "Beijing", "date": "2026-07-01"})
        return f"{first['condition']} {other['condition']}"

    run = ae.evaluate(
        es, metrics(), agent=FunctionAgent(agent, tools=[get_weather]), progress=False
    )
    tools = (
        run.result.eval_case_results[0].eval_metric_result_per_invocation[0].actual_invocation.tools
    )
    assert [t.mock["rule"] for t in tools] == [0, 1]


def test_no_rule_matched_is_returned_to_the_agent() -> None:
    case = default_case("c", [("x", "y")])
    case["conversation"][0]["toolMock"] = {
        "actual": [{"name": "lookup", "arguments": {"expected": {"q": "a"}}, "result": 1}]
    }
    seen: list[str] = []

    def lookup(q: str) -> int:
        raise AssertionError("real tool must not run")

    def agent(turn: Turn) -> str:
        try:
            turn.tools.call("lookup", {"q": "b"})
        except ae.agents.ToolCallError as exc:
            seen.append(str(exc))
        turn.tools.call("free", {})  # not mocked: the real tool runs
        return "y"

    def free() -> str:
        return "real"

    run = ae.evaluate(
        evalset(case), metrics(), agent=FunctionAgent(agent, tools=[lookup, free]), progress=False
    )
    assert 'tool "lookup" configured for mock but no rule matched: ' in seen[0]
    tools = (
        run.result.eval_case_results[0].eval_metric_result_per_invocation[0].actual_invocation.tools
    )
    assert tools[1].result == "real" and getattr(tools[1], "mock", None) is None


def test_invalid_rule_fails_the_case_with_the_reason() -> None:
    case = default_case("c", [("x", "y")])
    case["conversation"][0]["toolMock"] = {"actual": [{"name": "t"}]}
    run = ae.evaluate(evalset(case), metrics(), agent=lambda t: "y", progress=False)
    error = run.result.eval_case_results[0].error_message
    assert "turn 1: tool mock rule 0 (t): result is required for a static rule" in error


def test_llm_generator_rule_uses_the_tool_mock_agent() -> None:
    es = ae.load_evalset(SEEDS / "seed_examples" / "toolmock-llmgenerator.evalset.json")
    prompts: list[tuple[str, str]] = []

    def generator(turn: Turn) -> str:
        prompts.append((turn.context_messages[0].content, turn.text))
        return '{"hotels": [{"name": "Bay View"}]}'

    def agent(turn: Turn) -> str:
        found = turn.tools.call("search_hotels", {"city": "Shenzhen"})
        return found["hotels"][0]["name"]

    run = ae.evaluate(es, metrics(), agent=agent, tool_mock_agent=generator, progress=False)
    actual = run.result.eval_case_results[0].eval_metric_result_per_invocation
    assert run.result.eval_case_results[0].error_message is None
    invocation = actual[0].actual_invocation
    assert invocation.final_response.content == "Bay View"
    assert invocation.tools[0].mock["kind"] == "llmGenerator"
    assert prompts == [
        ('Return only the tool result JSON, for example {"hotels":[]}.', '{"city": "Shenzhen"}')
    ]
    missing = ae.evaluate(es, metrics(), agent=agent, progress=False)
    assert "requires a tool mock runner" in missing.result.eval_case_results[0].error_message


@pytest.mark.parametrize(
    ("output", "expected"), [("plain words", "plain words"), ("[1, 2]", [1, 2])]
)
def test_generator_output_decoding(output, expected) -> None:
    case = default_case("c", [("x", "y")])
    case["conversation"][0]["toolMock"] = {
        "actual": [{"name": "t", "llmGenerator": {"prompt": "p"}}]
    }
    got: list[Any] = []

    def agent(turn: Turn) -> str:
        got.append(turn.tools.call("t", {}))
        return "y"

    ae.evaluate(
        evalset(case), metrics(), agent=agent, tool_mock_agent=lambda text: output, progress=False
    )
    assert got == [expected]


@pytest.mark.parametrize(
    ("output", "needle"), [("  ", "empty response"), ("null", "returned null")]
)
def test_generator_empty_or_null_is_a_tool_error(output, needle) -> None:
    case = default_case("c", [("x", "y")])
    case["conversation"][0]["toolMock"] = {
        "actual": [{"name": "t", "llmGenerator": {"prompt": "p"}}]
    }
    errors: list[str] = []

    def agent(turn: Turn) -> str:
        try:
            turn.tools.call("t", {})
        except ae.agents.ToolCallError as exc:
            errors.append(str(exc))
        return "y"

    ae.evaluate(
        evalset(case), metrics(), agent=agent, tool_mock_agent=lambda text: output, progress=False
    )
    assert needle in errors[0]


def test_expected_runner_uses_expected_mocks() -> None:
    es = ae.load_evalset(SEEDS / "weather-eval-app" / "toolmock-static.evalset.json")
    es.eval_cases[0].expected_runner_enabled = True

    def agent(turn: Turn) -> str:
        result = turn.tools.call("get_weather", {"city": "Shenzhen", "date": "2026-07-01"})
        return result["condition"]

    run = ae.evaluate(es, metrics(), agent=agent, expected_agent=agent, progress=False)
    per_turn = run.result.eval_case_results[0].eval_metric_result_per_invocation[0]
    assert per_turn.expected_invocation.tools[0].mock["side"] == "expected"
    assert per_turn.actual_invocation.tools[0].mock["side"] == "actual"
    assert run.result.eval_case_results[0].final_eval_status == "passed"


class Hotel(BaseModel):
    name: str
    stars: int


def find_hotel(city: str) -> Hotel:
    """Find a hotel (must not run when mocked)."""
    raise AssertionError("the real tool ran")


def test_openai_agent_tool_calls_are_mocked_and_generators_get_the_result_schema() -> None:
    """Mocks apply to OpenAIAgent's own tool loop; an llmGenerator rule calls the tool-mock
    agent with the mocked tool's result schema as structured output."""
    case = default_case("c", [("find a hotel in Oslo", "Fjord Inn (4 stars)")])
    case["conversation"][0]["toolMock"] = {
        "actual": [
            {
                "name": "find_hotel",
                "arguments": {"expected": {"city": "Paris"}},
                "result": {"name": "Static", "stars": 3},
            },
            {"name": "find_hotel", "llmGenerator": {"prompt": "Invent a plausible hotel."}},
        ]
    }

    def model(request: dict[str, Any]) -> dict[str, Any]:
        last = request["messages"][-1]
        if request["model"] == "generator":
            return completion(json.dumps({"name": "Fjord Inn", "stars": 4}))
        if last["role"] == "tool":
            hotel = json.loads(last["content"])
            return completion(f"{hotel['name']} ({hotel['stars']} stars)")
        return completion(None, tool_calls=[tool_call("call-1", "find_hotel", {"city": "Oslo"})])

    with FakeOpenAIServer(handler=model) as server:
        agent = ae.agents.OpenAIAgent("agent", tools=[find_hotel], base_url=server.base_url)
        generator = ae.agents.OpenAIAgent("generator", base_url=server.base_url)
        run = ae.evaluate(
            evalset(case), metrics(), agent=agent, tool_mock_agent=generator, progress=False
        )
        generator_request = next(r for r in server.chat_requests if r["model"] == "generator")
    result = run.result.eval_case_results[0]
    assert result.final_eval_status == "passed", result.error_message
    call = result.eval_metric_result_per_invocation[0].actual_invocation.tools[0]
    assert call.mock == {"side": "actual", "rule": 1, "kind": "llmGenerator"}
    assert call.result == {"name": "Fjord Inn", "stars": 4}
    schema = generator_request["response_format"]["json_schema"]["schema"]
    assert schema["properties"].keys() == {"name", "stars"}
    assert generator_request["messages"][0] == {
        "role": "system",
        "content": "Invent a plausible hotel.",
    }
    assert generator_request["messages"][-1]["content"] == '{"city": "Oslo"}'


def test_trace_mode_expected_runner_replays_actual_turns_with_the_conversation_mocks() -> None:
    """SPEC §8.3/§8.8: in trace mode the ExpectedRunner gets the recorded actual turns, each
    with the toolMock of the aligned conversation turn (user content from the actual turn)."""
    user = {"role": "user", "content": "recorded question"}
    case = {
        "evalId": "t",
        "evalMode": "trace",
        "expectedRunnerEnabled": True,
        "sessionInput": {"appName": "a", "userId": "u"},
        "actualConversation": [
            {"userContent": user, "finalResponse": {"role": "assistant", "content": "sunny"}}
        ],
        "conversation": [
            {
                "userContent": {"role": "user", "content": "planned question"},
                "toolMock": {
                    "expected": [{"name": "get_weather", "result": {"condition": "sunny"}}]
                },
            }
        ],
    }
    seen: list[str] = []

    def expected(turn: Turn) -> str:
        seen.append(turn.text)
        return turn.tools.call("get_weather", {"city": "Shenzhen", "date": "2026-07-01"})[
            "condition"
        ]

    run = ae.evaluate(
        evalset(case),
        metrics(),
        expected_agent=FunctionAgent(expected, tools=[get_weather]),
        progress=False,
        session_id_factory=lambda: "S",
    )
    result = run.result.eval_case_results[0]
    assert result.final_eval_status == "passed", result.error_message
    assert seen == ["recorded question"]
    tool = result.eval_metric_result_per_invocation[0].expected_invocation.tools[0]
    assert tool.mock == {"side": "expected", "rule": 0, "kind": "static"}
