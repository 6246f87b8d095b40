"""The same conversation encoded three ways gives identical steps (issue 32 goal).

One tool round trip — the user asks, the model calls ``get_weather``, the tool answers, the
model replies — written as current GenAI attributes, as legacy per-message events (span events
and log records) and as OpenInference flattened attributes. Model calls and tool runs must come
out field for field equal; only OpenInference has no finish-reason attribute. The public
openinference fixtures (one round trip in three encodings, written by its authors) are held to the
same rule.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _dialect_spans import CORPUS, corpus_spans, span, step_fields

from agenteval_nb.steps.records import Content, ModelCall, ToolRun
from agenteval_nb.traces.dialects import classify
from agenteval_nb.traces.spans import Span, SpanEvent

USER = "Weather in Paris?"
FINAL = "It is rainy, 57°F in Paris."
ARGS = {"location": "Paris"}
RESULT = "rainy, 57°F"
CALL = "call_1"
MODEL = "gpt-4o-2024-08-06"


def _usage_attrs(first: bool) -> dict[str, Any]:
    return {"gen_ai.usage.input_tokens": 20 if first else 45, "gen_ai.usage.output_tokens": 8}


def current() -> list[Span]:
    user = {"role": "user", "parts": [{"type": "text", "content": USER}]}
    call = {"type": "tool_call", "id": CALL, "name": "get_weather", "arguments": ARGS}
    asked = {"role": "assistant", "parts": [call], "finish_reason": "tool_calls"}
    answer = {
        "role": "tool",
        "parts": [{"type": "tool_call_response", "id": CALL, "response": RESULT}],
    }
    final = {
        "role": "assistant",
        "parts": [{"type": "text", "content": FINAL}],
        "finish_reason": "stop",
    }
    chat = {"gen_ai.operation.name": "chat", "gen_ai.response.model": MODEL}
    return [
        span({"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather",
              "gen_ai.conversation.id": "conv-1",
              "gen_ai.input.messages": json.dumps([user]),
              "gen_ai.output.messages": json.dumps([final])},
             name="invoke_agent weather", span_id="a"),
        span({**chat, **_usage_attrs(True), "gen_ai.response.finish_reasons": ["tool_calls"],
              "gen_ai.input.messages": json.dumps([user]),
              "gen_ai.output.messages": json.dumps([asked])},
             name="chat", span_id="m1", parent_id="a"),
        span({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
              "gen_ai.tool.call.id": CALL, "gen_ai.tool.call.arguments": json.dumps(ARGS),
              "gen_ai.tool.call.result": RESULT},
             name="execute_tool get_weather", span_id="t1", parent_id="a"),
        span({**chat, **_usage_attrs(False), "gen_ai.response.finish_reasons": ["stop"],
              "gen_ai.input.messages": json.dumps([user, asked, answer]),
              "gen_ai.output.messages": json.dumps([final])},
             name="chat", span_id="m2", parent_id="a"),
    ]  # fmt: skip


def _legacy_events(first: bool, *, logs: bool) -> list[SpanEvent]:
    call = {"id": CALL, "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps(ARGS)}}  # fmt: skip
    bodies: list[tuple[str, dict[str, Any]]] = [("gen_ai.user.message", {"content": USER})]
    if first:
        bodies.append(("gen_ai.choice", {"index": 0, "finish_reason": "tool_calls",
                                         "message": {"tool_calls": [call]}}))  # fmt: skip
    else:
        bodies += [
            ("gen_ai.assistant.message", {"tool_calls": [call]}),
            ("gen_ai.tool.message", {"content": RESULT, "id": CALL}),
            ("gen_ai.choice", {"index": 0, "finish_reason": "stop",
                               "message": {"role": "assistant", "content": FINAL}}),
        ]  # fmt: skip
    if logs:
        return [SpanEvent(name, body=body, from_log=True) for name, body in bodies]
    return [
        SpanEvent(name, attributes={k: json.dumps(v) if isinstance(v, dict | list) else v
                                    for k, v in body.items()})
        for name, body in bodies
    ]  # fmt: skip


def legacy(*, logs: bool) -> list[Span]:
    chat = {"gen_ai.operation.name": "chat", "gen_ai.response.model": MODEL}
    return [
        span({"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather",
              "gen_ai.conversation.id": "conv-1"}, name="invoke_agent weather", span_id="a"),
        span({**chat, **_usage_attrs(True), "gen_ai.response.finish_reasons": ["tool_calls"]},
             name="chat", span_id="m1", parent_id="a", events=_legacy_events(True, logs=logs)),
        span({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
              "gen_ai.tool.call.id": CALL, "gen_ai.tool.call.arguments": json.dumps(ARGS),
              "gen_ai.tool.call.result": RESULT},
             name="execute_tool get_weather", span_id="t1", parent_id="a"),
        span({**chat, **_usage_attrs(False), "gen_ai.response.finish_reasons": ["stop"]},
             name="chat", span_id="m2", parent_id="a", events=_legacy_events(False, logs=logs)),
    ]  # fmt: skip


def openinference() -> list[Span]:
    user = {"llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": USER}  # fmt: skip
    asked = {
        "message.role": "assistant",
        "message.tool_calls.0.tool_call.id": CALL,
        "message.tool_calls.0.tool_call.function.name": "get_weather",
        "message.tool_calls.0.tool_call.function.arguments": json.dumps(ARGS),
    }
    llm = {"openinference.span.kind": "LLM", "llm.model_name": MODEL, "session.id": "conv-1"}
    return [
        span({"openinference.span.kind": "AGENT", "agent.name": "weather", "session.id": "conv-1",
              "input.value": USER, "output.value": FINAL}, name="weather", span_id="a"),
        span({**llm, **user, "llm.token_count.prompt": 20, "llm.token_count.completion": 8,
              **{"llm.output_messages.0." + k: v for k, v in asked.items()}},
             name="ChatCompletion", span_id="m1", parent_id="a"),
        span({"openinference.span.kind": "TOOL", "tool.name": "get_weather", "tool_call.id": CALL,
              "input.value": json.dumps(ARGS), "output.value": RESULT, "session.id": "conv-1"},
             name="get_weather", span_id="t1", parent_id="a"),
        span({**llm, **user, "llm.token_count.prompt": 45, "llm.token_count.completion": 8,
              **{"llm.input_messages.1." + k: v for k, v in asked.items()},
              "llm.input_messages.2.message.role": "tool",
              "llm.input_messages.2.message.tool_call_id": CALL,
              "llm.input_messages.2.message.content": RESULT,
              "llm.output_messages.0.message.role": "assistant",
              "llm.output_messages.0.message.contents.0.message_content.type": "text",
              "llm.output_messages.0.message.contents.0.message_content.text": FINAL},
             name="ChatCompletion", span_id="m2", parent_id="a"),
    ]  # fmt: skip


ENCODINGS = {
    "current": (current, "otel_genai"),
    "legacy span events": (lambda: legacy(logs=False), "otel_genai_events"),
    "legacy log records": (lambda: legacy(logs=True), "otel_genai_events"),
    "openinference": (openinference, "openinference"),
}


def _steps(spans: list[Span]) -> list[dict[str, Any]]:
    return [step_fields(classify(one).step, "finish_reason") for one in spans[1:]]


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_each_encoding_reads_the_round_trip(encoding: str) -> None:
    make, dialect = ENCODINGS[encoding]
    spans = make()
    results = [classify(one) for one in spans]
    assert [r.dialect for r in results[1:]] == [dialect, results[2].dialect, dialect]
    first, tool, second = (r.step for r in results[1:])
    assert isinstance(first, ModelCall) and isinstance(second, ModelCall)
    assert isinstance(tool, ToolRun)
    assert first.last_user_text == USER and first.output_text is None
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [(CALL, "get_weather", ARGS)]
    assert tool.tool.id == CALL and tool.tool.arguments == ARGS and tool.tool.result == RESULT
    assert second.last_user_text == USER and second.output_text == FINAL
    assert [(r.call_id, r.result) for r in second.tool_results] == [(CALL, RESULT)]
    assert second.usage is not None and second.usage.input_tokens == 45
    assert {r.conversation_id for r in results} <= {"conv-1", None}
    assert all(r.flags == set() for r in results)
    assert first.content is Content.PRESENT and second.content is Content.PRESENT


@pytest.mark.parametrize("encoding", ["legacy span events", "legacy log records", "openinference"])
def test_encodings_give_identical_steps(encoding: str) -> None:
    """Field for field equal to the current encoding (OpenInference has no finish reason)."""
    assert _steps(ENCODINGS[encoding][0]()) == _steps(current())


def test_finish_reasons_agree_where_the_encoding_has_them() -> None:
    reasons = {
        name: [classify(one).step.finish_reason for one in make()[1::2]]  # type: ignore[union-attr]
        for name, (make, _) in ENCODINGS.items()
        if name != "openinference"
    }
    assert set(map(tuple, reasons.values())) == {("tool_calls", "stop")}


def test_agent_texts_agree_between_current_and_openinference() -> None:
    agents = [classify(make()[0]).step for make in (current, openinference)]
    assert [(a.name, a.input_text, a.output_text) for a in agents] == [  # type: ignore[union-attr]
        ("weather", USER, FINAL)
    ] * 2


# --- the public fixtures: Arize-ai/openinference js/packages/openinference-genai (three encodings)

FIXTURES = {
    "otel_genai": "openinference/otel_genai_client_span_tool_calls.otlp.json",
    "deprecated gen_ai.prompt": "openinference/otel_genai_deprecated_client_span_tool_calls.otlp.json",
    "openinference": "openinference/openinference_client_span_tool_calls.otlp.json",
}
"""each fixture read as the one span of its OTLP/JSON twin (see the test below)"""


@pytest.mark.parametrize(
    "name",
    [
        "otel_genai_client_span_tool_calls",
        "otel_genai_deprecated_client_span_tool_calls",
        "openinference_client_span_tool_calls",
        "openinference_client_span_input_output_only",
        "otel_genai_tool_execution_span",
    ],
)
def test_each_otlp_twin_reads_back_to_its_source_attribute_map(name: str) -> None:
    """The source ships attribute maps, not spans; its OTLP wrapping (ours) must read back to
    the map verbatim, so the dialect tests that read the wrapping test the source's data."""
    (one,) = corpus_spans(f"openinference/{name}.otlp.json")
    source = json.loads((CORPUS / f"openinference/attributes/{name}.json").read_text())
    assert one.attributes == source


def _fixture_step(relative: str) -> Any:
    (one,) = corpus_spans(relative)
    return classify(one).step


def test_openinference_fixtures_three_encodings_identical() -> None:
    steps = {name: _fixture_step(path) for name, path in FIXTURES.items()}
    expected = steps["otel_genai"]
    assert isinstance(expected, ModelCall)
    assert expected.last_user_text == "Weather in Paris?"
    assert expected.output_text == (
        "The weather in Paris is currently rainy with a temperature of 57°F."
    )
    assert [(r.call_id, r.result) for r in expected.tool_results] == [("1234", "rainy, 57°F")]
    assert expected.usage is not None
    assert (expected.usage.input_tokens, expected.usage.output_tokens) == (97, 52)
    assert expected.model == "gpt-4"  # requested; OpenInference names the responding model
    assert steps["openinference"].model == "gpt-4-0613"
    for name in ("deprecated gen_ai.prompt", "openinference"):
        drop = (
            ("finish_reason", "usage", "model", "response_id")
            if name == "openinference"
            else ("finish_reason",)
        )
        assert step_fields(steps[name], *drop) == step_fields(expected, *drop), name
    assert steps["openinference"].usage.total_tokens == 149  # type: ignore[union-attr]


def test_openinference_fixture_input_output_only() -> None:
    """``input.value`` / ``output.value`` hold the messages when no flattened keys exist."""
    step = _fixture_step("openinference/openinference_client_span_input_output_only.otlp.json")
    assert isinstance(step, ModelCall)
    assert step.last_user_text == "Weather in Paris?"
    assert step.output_text.startswith("The weather in Paris")  # type: ignore[union-attr]
    assert [r.call_id for r in step.tool_results] == ["1234"]
