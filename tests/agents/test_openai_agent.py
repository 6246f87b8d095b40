"""``OpenAIAgent`` through the real openai client against the loopback fake server: the tool
loop, recording, history across turns, usage, failures and secrets."""

from __future__ import annotations

import json
import logging
import uuid
import warnings
from typing import Any

import pytest
from _agent_builders import EXACT_FINAL, default_case, evalset, metrics
from pydantic import BaseModel

import agenteval_nb as ae
from agenteval_nb.agents import LLMUserSimulator, OpenAIAgent
from agenteval_nb.testing import FakeOpenAIServer, FakeResponse, completion
from agenteval_nb.testing.fake_server import ECHO_AUTHORIZATION

KEY = "sk-agent-SECRET-7c1d0e9b55"


def get_weather(city: str, unit: str = "celsius") -> dict:
    """Current weather for a city.

    Longer text that is not part of the description."""
    return {"city": city, "temp": 21 if city == "Paris" else 5, "unit": unit}


class Order(BaseModel):
    item: str
    quantity: int = 1


async def place_order(order: Order) -> str:
    """Place an order."""
    return f"ordered {order.quantity} x {order.item}"


def tool_call(call_id: str, name: str, arguments: dict[str, Any], content: str | None = None):
    return completion(
        content,
        finish_reason="tool_calls",
        message_extra={
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ]
        },
    )


def weather_model(request: dict[str, Any]) -> dict[str, Any]:
    """Calls get_weather for the city in the user's text, then answers from the result."""
    last = request["messages"][-1]
    if last["role"] == "tool":
        result = json.loads(last["content"])
        return completion(f"{result['temp']} degrees in {result['city']}")
    city = last["content"].rsplit(" ", 1)[-1].strip("?")
    return tool_call(f"call-{city}", "get_weather", {"city": city}, "Let me check.")


def test_tool_schemas_come_from_signatures() -> None:
    agent = OpenAIAgent("m", tools=[get_weather, place_order], base_url="http://127.0.0.1:9/v1")
    weather, order = (spec.openai_tool()["function"] for spec in agent.tools)
    assert weather["name"] == "get_weather"
    assert weather["description"] == "Current weather for a city."
    assert weather["parameters"]["required"] == ["city"]
    assert weather["parameters"]["properties"]["unit"]["default"] == "celsius"
    assert order["parameters"]["properties"]["order"]["$ref"].endswith("Order")
    assert "Order" in order["parameters"]["$defs"]


def test_tool_loop_end_to_end_through_evaluate() -> None:
    expected_tools = [[{"name": "get_weather", "arguments": {"city": "Paris"}}]]
    es = evalset(
        default_case("paris", [("weather in Paris?", "21 degrees in Paris")], tools=expected_tools)
    )
    ms = metrics(
        EXACT_FINAL,
        {
            "metricName": "tool_trajectory_avg_score",
            "threshold": 1.0,
            "criterion": {"toolTrajectory": {"defaultStrategy": {"result": {"ignore": True}}}},
        },
    )
    with FakeOpenAIServer(handler=weather_model) as server:
        agent = OpenAIAgent(
            "agent-model", tools=[get_weather], base_url=server.base_url, api_key=KEY, temperature=0
        )
        run = ae.evaluate(es, ms, agent=agent, progress=False, session_id_factory=lambda: "S1")
        requests = [r.json for r in server.requests]
    result = run.result.eval_case_results[0]
    assert result.final_eval_status == "passed", result.error_message
    actual = result.eval_metric_result_per_invocation[0].actual_invocation
    assert actual.final_response.content == "21 degrees in Paris"
    assert [(t.id, t.name, t.arguments) for t in actual.tools] == [
        ("call-Paris", "get_weather", {"city": "Paris"})
    ]
    assert actual.tools[0].result == {"city": "Paris", "temp": 21, "unit": "celsius"}
    assert [m.content for m in actual.intermediate_responses] == ["Let me check."]
    first, second = requests
    assert first["user"] == "S1" and first["temperature"] == 0
    assert first["tools"][0]["function"]["name"] == "get_weather"
    assert second["messages"][-2]["tool_calls"][0]["id"] == "call-Paris"
    assert second["messages"][-1] == {
        "role": "tool",
        "content": json.dumps({"city": "Paris", "temp": 21, "unit": "celsius"}),
        "tool_call_id": "call-Paris",
    }
    usage = run.info["agent_usage"]
    assert usage["calls"] == 2 and usage["prompt_tokens"] == 20
    assert KEY not in repr(agent)


def test_history_system_prompt_and_context_reach_the_model() -> None:
    es = evalset(
        default_case(
            "c",
            [
                ("weather in Paris?", "21 degrees in Paris"),
                ("weather in Oslo?", "5 degrees in Oslo"),
            ],
            context=["You are terse."],
        )
    )
    with FakeOpenAIServer(handler=weather_model) as server:
        agent = OpenAIAgent(
            "m", tools=[get_weather], base_url=server.base_url, system_prompt="Be helpful."
        )
        run = ae.evaluate(es, metrics(), agent=agent, progress=False)
        last_request = server.requests[-1].json
    assert run.result.eval_case_results[0].final_eval_status == "passed"
    roles = [(m["role"], m.get("content")) for m in last_request["messages"]]
    assert roles[0] == ("system", "Be helpful.")
    assert roles[1] == ("system", "You are terse.")
    # turn 1 in full (user, tool call, tool result, answer), then turn 2 so far
    assert [r for r, _ in roles[2:]] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
        "tool",
    ]
    assert roles[5] == ("assistant", "21 degrees in Paris")


def test_tool_error_goes_back_to_the_model_as_text() -> None:
    def broken(city: str) -> str:
        raise ConnectionError("weather service unreachable")

    def model(request):
        last = request["messages"][-1]
        if last["role"] == "tool":
            return completion(f"sorry: {last['content']}")
        return tool_call("c1", "broken", {"city": "Paris"})

    with FakeOpenAIServer(handler=model) as server:
        agent = OpenAIAgent("m", tools=[broken], base_url=server.base_url)
        run = ae.evaluate(
            evalset(default_case("c", [("x", "y")])), metrics(), agent=agent, progress=False
        )
    actual = run.result.eval_case_results[0].eval_metric_result_per_invocation[0].actual_invocation
    assert actual.tools[0].result == "error: ConnectionError: weather service unreachable"
    assert (
        actual.final_response.content
        == "sorry: error: ConnectionError: weather service unreachable"
    )


def test_max_steps_fails_the_case() -> None:
    with FakeOpenAIServer(
        handler=lambda r: tool_call("loop", "get_weather", {"city": "Paris"})
    ) as server:
        agent = OpenAIAgent("m", tools=[get_weather], base_url=server.base_url, max_steps=3)
        run = ae.evaluate(
            evalset(default_case("c", [("x", "y")])), metrics(), agent=agent, progress=False
        )
        assert len(server.requests) == 3
    assert "no final answer after 3 model calls" in run.result.eval_case_results[0].error_message


@pytest.mark.parametrize(
    ("answer", "needle"),
    [
        (
            FakeResponse(status=401, body={"error": {"message": f"bad key {KEY}"}}),
            "AuthenticationError",
        ),
        (
            FakeResponse(
                status=200,
                body={
                    "id": "x",
                    "object": "chat.completion",
                    "created": 1,
                    "model": "m",
                    "choices": [],
                },
            ),
            "no choices in response",
        ),
        (
            FakeResponse(
                status=400, body={"error": {"message": "Bearer sk-leaked-key-123456789 rejected"}}
            ),
            "BadRequestError",
        ),
    ],
)
def test_endpoint_failures_fail_the_case_without_leaking_keys(answer, needle, tmp_path) -> None:
    es = evalset(default_case("bad", [("x", "y")]), default_case("good", [("x", "x")]))

    def model(request):
        return (
            answer
            if request["messages"][-1]["content"] == "x" and request["user"] == "bad-session"
            else completion("x")
        )

    sessions = iter(["bad-session", "good-session"])
    with FakeOpenAIServer(handler=model) as server:
        agent = OpenAIAgent("m", base_url=server.base_url, api_key=KEY, max_retries=0)
        run = ae.evaluate(
            es,
            metrics(),
            agent=agent,
            progress=False,
            session_id_factory=lambda: next(sessions),
            results_dir=tmp_path,
        )
    bad, good = run.result.eval_case_results
    assert bad.final_eval_status == "failed" and needle in bad.error_message
    assert good.final_eval_status == "passed"
    written = "".join(p.read_text() for p in tmp_path.rglob("*.json"))
    for text in (bad.error_message, written, run.cases_df().to_csv()):
        assert KEY not in text
        assert "sk-leaked-key-123456789" not in text


def test_agent_is_reusable_across_evaluations() -> None:
    es = evalset(default_case("c", [("weather in Paris?", "21 degrees in Paris")]))
    with FakeOpenAIServer(handler=weather_model) as server:
        agent = OpenAIAgent("m", tools=[get_weather], base_url=server.base_url)
        first = ae.evaluate(es, metrics(), agent=agent, progress=False)
        second = ae.evaluate(es, metrics(), agent=agent, num_runs=2, progress=False)
    assert first.result.eval_case_results[0].final_eval_status == "passed"
    assert [r.final_eval_status for r in second.result.eval_case_results] == ["passed", "passed"]


def test_constructor_validation() -> None:
    with pytest.raises(ValueError, match="model"):
        OpenAIAgent("")
    with pytest.raises(ValueError, match="max_steps"):
        OpenAIAgent("m", max_steps=0)
    with pytest.raises(TypeError, match="'messages' is set by the agent"):
        OpenAIAgent("m", messages=[])

    def spread(*values: int) -> int:
        return sum(values)

    with pytest.raises(TypeError, match="\\*args"):
        OpenAIAgent("m", tools=[spread])
    with pytest.raises(TypeError, match="needs a name"):
        OpenAIAgent("m", tools=[lambda x: x])
    with pytest.raises(ValueError, match="two tools"):
        OpenAIAgent("m", tools=[get_weather, get_weather])


def test_agent_pickles_without_its_http_clients() -> None:
    """An agent travels to other processes (Ray workers): clients are rebuilt there."""
    import pickle

    with FakeOpenAIServer(handler=weather_model) as server:
        agent = OpenAIAgent("m", tools=[get_weather], base_url=server.base_url, api_key=KEY)
        es = evalset(default_case("c", [("weather in Paris?", "21 degrees in Paris")]))
        ae.evaluate(es, metrics(), agent=agent, progress=False)  # clients were created
        copy = pickle.loads(pickle.dumps(agent))
        run = ae.evaluate(es, metrics(), agent=copy, progress=False)
    assert run.result.eval_case_results[0].final_eval_status == "passed"
    assert [t.name for t in copy.tools] == ["get_weather"]
    assert copy.secrets() == (KEY,)


def _every_output(run: ae.EvalRun, tmp_path, caplog, caught: list) -> dict[str, str]:
    """Every place a key could reach: result file, frames, report, reprs, logs, warnings."""
    path = tmp_path / "result.json"
    run.save(path)
    report = tmp_path / "report.html"
    ae.export_html(run, report)
    texts = {
        "result file": path.read_text(),
        "report": report.read_text(),
        "repr(run)": repr(run),
        "logs": "\n".join(r.getMessage() for r in caplog.records),
        "warnings": "\n".join(str(w.message) for w in caught),
    }
    for frame in ("cases_df", "metrics_df", "invocations_df", "samples_df", "summary_df"):
        texts[frame] = getattr(run, frame)().to_csv()
        texts[f"{frame} (polars)"] = str(getattr(run, frame)(backend="polars").to_dicts())
    return texts


def test_agent_key_reaches_no_output_even_when_tools_and_the_model_echo_it(
    tmp_path, caplog
) -> None:
    key = f"agentkey{uuid.uuid4().hex}"  # no sk- prefix: only the registration can hide it

    def reveal() -> str:
        """Returns the key."""
        return f"the configured key is {key}"

    def explode() -> str:
        """Raises with the key."""
        raise PermissionError(f"denied for {key}")

    def model(request: dict[str, Any]) -> dict[str, Any]:
        tool_results = [m for m in request["messages"] if m["role"] == "tool"]
        if not tool_results:
            return tool_call("c1", "reveal", {}, f"checking {key}")
        if len(tool_results) == 1:
            return tool_call("c2", "explode", {"why": key})
        quoted = " | ".join(m["content"] for m in tool_results)
        return completion(f"done: {quoted} / {ECHO_AUTHORIZATION} / {key}")

    caplog.set_level(logging.DEBUG)
    with warnings.catch_warnings(record=True) as caught, FakeOpenAIServer(model) as server:
        warnings.simplefilter("always")
        agent = OpenAIAgent("agent", tools=[reveal, explode], base_url=server.base_url, api_key=key)
        run = ae.evaluate(
            evalset(default_case("leaky", [("go", "done")])), metrics(), agent=agent, progress=False
        )
        assert server.requests[0].headers["authorization"] == f"Bearer {key}"
    actual = run.result.eval_case_results[0].eval_metric_result_per_invocation[0].actual_invocation
    assert actual.final_response.content.startswith("done: ")  # the echoes did happen
    assert [t.name for t in actual.tools] == ["reveal", "explode"]
    texts = _every_output(run, tmp_path, caplog, caught)
    texts["repr(agent)"] = repr(agent)
    texts["invocation"] = actual.model_dump_json()
    for where, text in texts.items():
        assert key not in text, f"the agent key leaked into {where}"


def test_simulator_key_reaches_no_output(tmp_path, caplog) -> None:
    key = f"simkey{uuid.uuid4().hex}"
    replies = iter([f"my key is {key}", f"again {ECHO_AUTHORIZATION}", "</finished>"])

    def model(request: dict[str, Any]) -> dict[str, Any]:
        if request["model"] == "simulator":
            return completion(next(replies))
        return completion(f"you said: {request['messages'][-1]['content']}")

    case = {
        "evalId": "sim",
        "sessionInput": {"appName": "a", "userId": "u"},
        "conversationScenario": {"conversationPlan": "ask twice", "maxAllowedInvocations": 3},
    }
    caplog.set_level(logging.DEBUG)
    with warnings.catch_warnings(record=True) as caught, FakeOpenAIServer(model) as server:
        warnings.simplefilter("always")
        simulator = LLMUserSimulator("simulator", base_url=server.base_url, api_key=key)
        agent = OpenAIAgent("agent", base_url=server.base_url)
        run = ae.evaluate(
            evalset(case), metrics(), agent=agent, user_simulator=simulator, progress=False
        )
    turns = run.result.eval_case_results[0].eval_metric_result_per_invocation
    assert len(turns) >= 2  # both echoing user turns were played
    texts = _every_output(run, tmp_path, caplog, caught)
    texts["repr(simulator)"] = repr(simulator)
    for where, text in texts.items():
        assert key not in text, f"the simulator key leaked into {where}"
