"""Spans as a second source: a case processor on the user's OpenTelemetry SDK provider.

Driven through ``ae.evaluate`` against the loopback server, with the real SDK, the real
instrumentations (``opentelemetry-instrumentation-openai-v2`` and OpenInference's, both at
once) and hand-made tool / model spans where a framework would write them. What is pinned:

* tool results the wire cannot see (sent back as plain text) come from tool spans — and are
  missing, reported with the fix, when the spans are not on the toolkit's provider;
* model calls of a client the wire does not hook (the stdlib's ``urllib``) become steps from
  their spans, with their usage;
* a model call seen on the wire and by two instrumentation layers counts once: tokens equal
  what the server issued, 8 concurrent cases, every span stamped with its own case;
* the user's provider stays the global one, its own processor gets every span, and the
  processor is added once.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.request
from typing import Any

import pytest
from openai import AsyncOpenAI, OpenAI
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import agenteval_nb as ae
from agenteval_nb.agents.capture import spans as capture_spans
from agenteval_nb.agents.capture.span_processor import CASE_ATTRIBUTE, CaseSpanProcessor
from agenteval_nb.testing.agent_model import ScriptedAgentModel, ToolRule
from agenteval_nb.testing.fake_server import FakeOpenAIServer, completion, tool_call

CITIES = ["Paris", "Oslo", "Rome", "Lima", "Kyiv", "Cairo", "Quito", "Seoul"]
CONDITION = {city: "sunny" if len(city) % 2 else "rainy" for city in CITIES}

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


def get_weather(city: str) -> dict[str, Any]:
    return {"city": city, "condition": CONDITION[city]}


def cases(cities: list[str]) -> ae.EvalSet:
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
                            "finalResponse": {
                                "role": "assistant",
                                "content": f"It is {CONDITION[city]} in {city}.",
                            },
                            "tools": [{"name": "get_weather", "arguments": {"city": city}}],
                        }
                    ],
                }
                for city in cities
            ],
        }
    )


METRICS = ae.load_metrics(
    [
        {
            "metricName": "tool_trajectory_avg_score",
            "threshold": 1.0,
            "criterion": {"toolTrajectory": {"defaultStrategy": {"result": {"ignore": True}}}},
        }
    ]
)


class Issued:
    """A server handler that records the usage it issued."""

    def __init__(self, handler: Any) -> None:
        self.handler = handler
        self.usage: list[dict[str, int]] = []
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        body = self.handler(request)
        with self._lock:
            self.usage.append(body["usage"])
        return body

    def totals(self) -> tuple[int, int]:
        return (
            sum(u["prompt_tokens"] for u in self.usage),
            sum(u["completion_tokens"] for u in self.usage),
        )


def observation_model(request: dict[str, Any]) -> dict[str, Any]:
    """A model that takes tool results as plain user text (``Observation: …``, smolagents'
    way): asks ``get_weather`` for the city of the question, then answers from the
    observation."""
    messages = request["messages"]
    last = messages[-1]["content"]
    usage = {"prompt_tokens": 10 * len(messages), "completion_tokens": 7, "total_tokens": 0}
    usage["total_tokens"] = usage["prompt_tokens"] + 7
    if last.startswith("Observation: "):
        seen = json.loads(last.removeprefix("Observation: "))
        return completion(f"It is {seen['condition']} in {seen['city']}.", usage=usage)
    city = re.search(r"in ([A-Z]\w+)", last).group(1)  # type: ignore[union-attr]
    call = tool_call(f"call_{city.lower()}", "get_weather", {"city": city})
    return completion(None, tool_calls=[call], usage=usage)


@pytest.fixture(scope="module")
def user_provider() -> tuple[TracerProvider, InMemorySpanExporter]:
    """The user's global SDK provider with their own exporter (set once per process: OTel
    allows one global provider)."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def observation_agent(base_url: str, tracer: Any):
    """An agent whose tools' results go back as plain text; each tool run in a GenAI
    ``execute_tool`` span (as an instrumented framework writes it)."""
    client = OpenAI(base_url=base_url, api_key="k")

    def agent(text: str) -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
        while True:
            reply = client.chat.completions.create(
                model="m", messages=messages, tools=[TOOL_SCHEMA]
            )
            message = reply.choices[0].message
            if not message.tool_calls:
                return message.content or ""
            messages.append({"role": "assistant", "content": f"calling {message.tool_calls[0].id}"})
            for call in message.tool_calls:
                attributes = {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": call.function.name,
                    "gen_ai.tool.call.id": call.id,
                    "gen_ai.tool.call.arguments": call.function.arguments,
                }
                with tracer.start_as_current_span(
                    f"execute_tool {call.function.name}", attributes=attributes
                ) as span:
                    result = get_weather(**json.loads(call.function.arguments))
                    span.set_attribute("gen_ai.tool.call.result", json.dumps(result))
                messages.append({"role": "user", "content": f"Observation: {json.dumps(result)}"})

    return agent


def tools_of(run: ae.EvalRun) -> dict[str, list[tuple[Any, ...]]]:
    out = {}
    for case in run.result.eval_case_results:
        assert case.eval_metric_result_per_invocation, case.error_message
        inv = case.eval_metric_result_per_invocation[0].actual_invocation
        out[case.eval_id] = [(t.id, t.name, t.arguments, t.result) for t in inv.tools or ()]
    return out


def capture_of(run: ae.EvalRun, eval_id: str) -> dict[str, int]:
    case = next(c for c in run.result.eval_case_results if c.eval_id == eval_id)
    return case.eval_metric_result_per_invocation[0].actual_invocation.source.capture


def test_tool_spans_give_the_results_the_wire_cannot_see(user_provider):
    provider, _ = user_provider
    with FakeOpenAIServer(observation_model) as server:
        agent = observation_agent(server.base_url, provider.get_tracer("my-framework"))
        run = ae.evaluate(cases(["Paris", "Oslo"]), METRICS, agent=agent, progress=False)
        # control: the same agent with its spans on a provider the toolkit does not know
        hidden = TracerProvider()
        blind_agent = observation_agent(server.base_url, hidden.get_tracer("my-framework"))
        blind = ae.evaluate(cases(["Paris", "Oslo"]), METRICS, agent=blind_agent, progress=False)
    assert tools_of(run) == {
        "paris": [("call_paris", "get_weather", {"city": "Paris"}, get_weather("Paris"))],
        "oslo": [("call_oslo", "get_weather", {"city": "Oslo"}, get_weather("Oslo"))],
    }
    assert capture_of(run, "paris") == {
        "model_calls": 2,
        "wire_calls": 2,
        "spans": 1,
        "prompt_tokens": 40,
        "completion_tokens": 14,
    }
    # the wire alone has the tool use and no result: reported, with the fix
    assert tools_of(blind)["paris"] == [("call_paris", "get_weather", {"city": "Paris"}, None)]
    assert capture_of(blind, "paris")["tools_without_result"] == 1
    rows = {row["eval_id"]: row for row in blind.info["capture"]}
    assert rows["paris"]["tools_without_result"] == 1
    assert any("tool uses whose result" in fix for fix in rows["paris"]["fixes"])
    assert "capture" in run.info and not any(r["fixes"] for r in run.info["capture"])


def urllib_agent(base_url: str, tracer: Any, issued_ids: list[str]):
    """An agent whose model client is the stdlib (no httpx): the wire sees none of its calls;
    each call is in a GenAI ``chat`` span (as an instrumented client writes it)."""

    def post(messages: list[dict[str, Any]]) -> dict[str, Any]:
        payload = json.dumps({"model": "m", "messages": messages, "tools": [TOOL_SCHEMA]})
        request = urllib.request.Request(
            f"{base_url}/chat/completions",
            data=payload.encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request) as response:
            return json.loads(response.read())

    def chat(messages: list[dict[str, Any]]) -> dict[str, Any]:
        last_user = [m["content"] for m in messages if m["role"] == "user"][-1]
        with tracer.start_as_current_span("chat m") as span:
            reply = post(messages)
            message = reply["choices"][0]["message"]
            parts: list[dict[str, Any]] = [
                {
                    "type": "tool_call",
                    "id": c["id"],
                    "name": c["function"]["name"],
                    "arguments": json.loads(c["function"]["arguments"]),
                }
                for c in message.get("tool_calls") or ()
            ]
            if message.get("content"):
                parts.append({"type": "text", "content": message["content"]})
            span.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "m",
                    "gen_ai.usage.input_tokens": reply["usage"]["prompt_tokens"],
                    "gen_ai.usage.output_tokens": reply["usage"]["completion_tokens"],
                    "gen_ai.input.messages": json.dumps(
                        [{"role": "user", "parts": [{"type": "text", "content": last_user}]}]
                    ),
                    "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}]),
                }
            )
            issued_ids.extend(c["id"] for c in message.get("tool_calls") or ())
            return message

    def agent(text: str) -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
        while True:
            message = chat(messages)
            if not message.get("tool_calls"):
                return message["content"]
            messages.append({"role": "assistant", "content": "checking"})
            for call in message["tool_calls"]:
                attributes = {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": call["function"]["name"],
                    "gen_ai.tool.call.id": call["id"],
                    "gen_ai.tool.call.arguments": call["function"]["arguments"],
                }
                with tracer.start_as_current_span("execute_tool", attributes=attributes) as span:
                    result = get_weather(**json.loads(call["function"]["arguments"]))
                    span.set_attribute("gen_ai.tool.call.result", json.dumps(result))
                messages.append({"role": "user", "content": f"Observation: {json.dumps(result)}"})

    return agent


def test_model_calls_of_a_client_the_wire_does_not_hook_come_from_spans(user_provider):
    provider, _ = user_provider
    issued = Issued(observation_model)
    ids: list[str] = []
    with FakeOpenAIServer(issued) as server:
        agent = urllib_agent(server.base_url, provider.get_tracer("stdlib-client"), ids)
        run = ae.evaluate(cases(["Rome", "Lima"]), METRICS, agent=agent, progress=False)
    assert sorted(ids) == ["call_lima", "call_rome"]
    assert tools_of(run)["rome"] == [
        ("call_rome", "get_weather", {"city": "Rome"}, get_weather("Rome"))
    ]
    counts = capture_of(run, "rome")
    assert counts["model_calls"] == counts["span_calls"] == 2
    assert "wire_calls" not in counts
    prompt, completion_tokens = issued.totals()
    assert run.info["agent_usage"] == {
        "prompt_tokens": prompt,
        "completion_tokens": completion_tokens,
        "calls": 4,
    }
    assert run.metrics_df()["status"].tolist() == ["passed", "passed"]


SCRIPTED = ScriptedAgentModel(
    [ToolRule("get_weather", ["weather"], arguments=r"in (?P<city>[A-Z]\w+)")]
)


def sdk_agent(base_url: str, *, stream: bool):
    client = OpenAI(base_url=base_url, api_key="k")

    def agent(text: str) -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
        while True:
            if stream:
                chunks = client.chat.completions.create(
                    model="m",
                    messages=messages,
                    tools=[TOOL_SCHEMA],
                    stream=True,
                    stream_options={"include_usage": True},
                )
                content, calls = "", {}
                for chunk in chunks:
                    for choice in chunk.choices:
                        content += choice.delta.content or ""
                        for part in choice.delta.tool_calls or ():
                            slot = calls.setdefault(part.index, {"id": "", "name": "", "a": ""})
                            slot["id"] += part.id or ""
                            slot["name"] += (part.function and part.function.name) or ""
                            slot["a"] += (part.function and part.function.arguments) or ""
                found = [(c["id"], c["name"], c["a"]) for c in calls.values()]
            else:
                message = (
                    client.chat.completions.create(
                        model="m", messages=messages, tools=[TOOL_SCHEMA]
                    )
                    .choices[0]
                    .message
                )
                content = message.content or ""
                found = [
                    (c.id, c.function.name, c.function.arguments) for c in message.tool_calls or ()
                ]
            if not found:
                return content
            messages.append(
                {
                    "role": "assistant",
                    "content": content or None,
                    "tool_calls": [
                        {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                        for i, n, a in found
                    ],
                }
            )
            for call_id, _, arguments in found:
                result = get_weather(**json.loads(arguments))
                messages.append(
                    {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)}
                )

    return agent


def async_sdk_agent(base_url: str):
    """The same tool loop on the async client (cases run as tasks of one loop)."""
    client = AsyncOpenAI(base_url=base_url, api_key="k")

    async def agent(text: str) -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
        while True:
            reply = await client.chat.completions.create(
                model="m", messages=messages, tools=[TOOL_SCHEMA]
            )
            message = reply.choices[0].message
            if not message.tool_calls:
                return message.content or ""
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                result = get_weather(**json.loads(call.function.arguments))
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
                )

    return agent


@pytest.fixture
def two_instrumentations(user_provider, monkeypatch):
    """The openai client instrumented twice, on the global provider: the official OTel package
    and OpenInference's (a framework layer over a provider layer writes two spans per call)."""
    from openinference.instrumentation.openai import OpenAIInstrumentor as OpenInference
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor as OpenAIv2

    monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")
    layers = [OpenAIv2(), OpenInference()]
    for layer in layers:
        layer.instrument()
    try:
        yield user_provider
    finally:
        for layer in reversed(layers):
            layer.uninstrument()


@pytest.mark.parametrize("mode", ["plain", "stream", "async"])
def test_a_call_seen_on_the_wire_and_by_two_instrumentations_counts_once(
    two_instrumentations, mode
):
    provider, exporter = two_instrumentations
    exporter.clear()
    issued = Issued(SCRIPTED)
    with FakeOpenAIServer(issued, latency_s=0.01) as server:
        run = ae.evaluate(
            cases(CITIES),
            METRICS,
            agent=async_sdk_agent(server.base_url)
            if mode == "async"
            else sdk_agent(server.base_url, stream=mode == "stream"),
            case_parallelism=8,
            progress=False,
        )
    assert trace.get_tracer_provider() is provider
    prompt, completion_tokens = issued.totals()
    assert len(issued.usage) == 16
    assert run.info["agent_usage"] == {
        "prompt_tokens": prompt,
        "completion_tokens": completion_tokens,
        "calls": 16,
    }
    for city in CITIES:
        counts = capture_of(run, city.lower())
        assert (counts["model_calls"], counts["wire_calls"], counts["spans"]) == (2, 2, 4)
        assert "span_calls" not in counts
    assert tools_of(run)["kyiv"] == [
        ("call_1", "get_weather", {"city": "Kyiv"}, get_weather("Kyiv"))
    ]
    # every model span is stamped with its own case: its input names that case's city
    stamped = [s for s in exporter.get_finished_spans() if CASE_ATTRIBUTE in s.attributes]
    assert len(stamped) == 32
    for span in stamped:
        case_id = span.attributes[CASE_ATTRIBUTE]
        city = next(c for c in CITIES if case_id.startswith(f"{c.lower()}/"))
        inputs = json.dumps(dict(span.attributes))
        assert f"Weather in {city}?" in inputs
        assert not any(f"Weather in {other}?" in inputs for other in CITIES if other != city)


def test_the_users_provider_and_its_processors_keep_working(user_provider):
    provider, exporter = user_provider
    exporter.clear()
    capture_spans.install()
    capture_spans.install()
    processors = provider._active_span_processor._span_processors
    assert sum(isinstance(p, CaseSpanProcessor) for p in processors) == 1
    explicit = TracerProvider()  # handed to an instrumentation, not the global one
    assert capture_spans.attach(explicit) is capture_spans.attach(explicit)
    assert len(explicit._active_span_processor._span_processors) == 1
    tracer = explicit.get_tracer("lib")
    with ae.capture("explicit") as on_explicit, tracer.start_as_current_span("on explicit"):
        pass
    assert [s.name for s in on_explicit.spans] == ["on explicit"]
    tracer = provider.get_tracer("user-code")
    with tracer.start_as_current_span("outside any case"):
        pass
    with ae.capture() as cap, tracer.start_as_current_span("inside a capture"):
        pass
    names = [s.name for s in exporter.get_finished_spans()]
    assert names == ["outside any case", "inside a capture"]
    assert [s.name for s in cap.recording.spans] == ["inside a capture"]
    first, second = exporter.get_finished_spans()
    assert CASE_ATTRIBUTE not in first.attributes
    assert second.attributes[CASE_ATTRIBUTE] == "capture"
    assert trace.get_tracer_provider() is provider


def test_a_bare_thread_span_follows_its_parent_span_case(user_provider):
    """Two cases active, a span started in a bare thread that was handed the OTel context (not
    ours): it belongs to its parent's case, never unattributed, never the other case."""
    provider, _ = user_provider
    capture_spans.install()
    tracer = provider.get_tracer("threads")
    from opentelemetry import context as otel_context

    done: list[Any] = []

    def worker(ctx: Any, name: str) -> None:
        token = otel_context.attach(ctx)
        try:
            with tracer.start_as_current_span(name):
                pass
        finally:
            otel_context.detach(token)

    with ae.capture("a") as a, ae.capture("b") as b:
        with tracer.start_as_current_span("root of b"):
            thread = threading.Thread(target=worker, args=(otel_context.get_current(), "child"))
            thread.start()
            thread.join()
        done.append(1)
    assert [s.name for s in b.recording.spans] == ["child", "root of b"]
    assert a.recording.spans == []


def test_without_an_sdk_provider_nothing_is_imported_or_added(tmp_path):
    """No OTel SDK loaded ⇒ install() is a no-op that imports nothing (checked in a fresh
    interpreter: this one has the SDK loaded)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from agenteval_nb.agents.capture import spans\n"
        "spans.install()\n"
        "assert 'opentelemetry.sdk.trace' not in sys.modules, 'SDK imported'\n"
        "import opentelemetry.trace\n"
        "spans.install()\n"
        "assert not spans._attached, 'attached to the API default provider'\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.stdout.strip() == "ok", out.stderr


def test_a_span_that_never_ends_does_not_keep_its_case_alive(user_provider):
    import gc
    import weakref

    provider, _ = user_provider
    capture_spans.install()
    tracer = provider.get_tracer("leaky")
    with ae.capture("leaky") as cap:
        forgotten = tracer.start_span("never ended")
        with tracer.start_as_current_span("ended"):
            pass
    assert [s.name for s in cap.recording.spans] == ["ended"]
    assert forgotten.attributes[CASE_ATTRIBUTE] == "leaky"
    alive = weakref.ref(cap.recording)
    del cap
    gc.collect()
    assert alive() is None
    forgotten.end()  # its case is gone: dropped, nothing raised
