"""OpenAI Agents SDK native traces: objects made by the real SDK's tracing (a processor of our
own, so nothing is exported), read in process and as their exported JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

agents = pytest.importorskip("agents", reason="the openai-agents extra is not installed")

from agents.tracing import (  # noqa: E402
    TracingProcessor,
    agent_span,
    function_span,
    generation_span,
    get_trace_provider,
    response_span,
    set_trace_processors,
    trace,
)

from agenteval_nb.traces.read import ReadProblem, read_spans  # noqa: E402


class _Keep(TracingProcessor):
    """Keeps the finished traces and spans, in the order the SDK reports them."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    def on_trace_start(self, trace: Any) -> None:
        self.items.append(trace)

    def on_trace_end(self, trace: Any) -> None:
        pass

    def on_span_start(self, span: Any) -> None:
        pass

    def on_span_end(self, span: Any) -> None:
        self.items.append(span)

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass


@contextmanager
def _collecting() -> Iterator[_Keep]:
    """Our processor alone for the duration; the SDK's global tracing state is restored after
    (other tests disable tracing; the default processor exports to OpenAI): read through its
    private fields, tests only."""
    keep = _Keep()
    provider = get_trace_provider()
    manual_disabled = getattr(provider, "_manual_disabled", None)
    previous = list(getattr(getattr(provider, "_multi_processor", None), "_processors", ()))
    provider.set_disabled(False)
    set_trace_processors([keep])
    try:
        yield keep
    finally:
        set_trace_processors(previous)
        if manual_disabled is not None:
            provider.set_disabled(manual_disabled)


@pytest.fixture(scope="module")
def sdk_items() -> list[Any]:
    with (
        _collecting() as keep,
        trace("weather workflow", group_id="conv-42", metadata={"user": "u1"}),
        agent_span(name="Weather agent", tools=["get_weather"]),
    ):
        with generation_span(
            input=[{"role": "user", "content": "Weather in Paris?"}],
            output=[{"role": "assistant", "content": "Sunny."}],
            model="gpt-4o-mini",
            usage={"input_tokens": 12, "output_tokens": 3},
        ):
            pass
        with function_span(name="get_weather", input='{"city": "Paris"}') as tool:
            tool.span_data.output = "sunny"
            tool.set_error({"message": "rate limited", "data": {"retry": True}})
    return keep.items


def _check(spans: list[Any]) -> None:
    by_type = {s.attributes["agents_sdk.type"]: s for s in spans}
    assert set(by_type) == {"agent", "generation", "function"}
    agent, generation, function = by_type["agent"], by_type["generation"], by_type["function"]
    assert agent.trace_id.startswith("trace_") and agent.span_id.startswith("span_")
    assert agent.parent_id is None
    assert generation.parent_id == function.parent_id == agent.span_id
    assert agent.name == "Weather agent" and function.name == "get_weather"
    assert generation.name == "generation"
    assert agent.attributes["agents_sdk.tools"] == ["get_weather"]
    assert generation.attributes["agents_sdk.input"] == [
        {"role": "user", "content": "Weather in Paris?"}
    ]
    assert generation.attributes["agents_sdk.output"] == [
        {"role": "assistant", "content": "Sunny."}
    ]
    assert generation.attributes["agents_sdk.model"] == "gpt-4o-mini"
    assert generation.attributes["agents_sdk.usage"] == {"input_tokens": 12, "output_tokens": 3}
    assert function.attributes["agents_sdk.input"] == '{"city": "Paris"}'
    assert function.attributes["agents_sdk.output"] == "sunny"
    assert (function.status, function.status_message) == ("error", "rate limited")
    assert function.attributes["agents_sdk.error"] == {
        "message": "rate limited",
        "data": {"retry": True},
    }
    # the trace's own fields sit on its top-level span only
    assert agent.attributes["agents_sdk.trace.group_id"] == "conv-42"
    assert agent.attributes["agents_sdk.trace.workflow_name"] == "weather workflow"
    assert agent.attributes["agents_sdk.trace.metadata"] == {"user": "u1"}
    assert agent.attributes["agents_sdk.trace.id"] == agent.trace_id
    assert not any(k.startswith("agents_sdk.trace.") for k in generation.attributes)
    assert all(s.start_ns and s.end_ns and s.end_ns >= s.start_ns for s in spans)
    assert {s.source for s in spans} == {"agents_sdk"}


def test_in_process_objects_read_through_their_export(sdk_items: list[Any]) -> None:
    problems: list[ReadProblem] = []
    spans = list(read_spans(sdk_items, problems=problems))
    assert problems == []
    _check(spans)


def test_exported_json_reads_the_same_even_with_the_trace_record_last(sdk_items: list[Any]) -> None:
    records = [item.export() for item in sdk_items]
    assert records[0]["object"] == "trace"
    text = json.dumps(records[1:] + records[:1])  # one JSON array: order inside it does not matter
    problems: list[ReadProblem] = []
    spans = list(read_spans(text, format="agents_sdk", problems=problems))
    assert problems == []
    _check(spans)


def test_exported_jsonl_reads_trace_first_as_the_sdk_emits_it(
    sdk_items: list[Any], tmp_path: Any
) -> None:
    path = tmp_path / "agents.jsonl"
    path.write_text("".join(json.dumps(item.export()) + "\n" for item in sdk_items))
    _check(list(read_spans(path)))


def test_a_span_record_without_ids_is_a_problem() -> None:
    problems: list[ReadProblem] = []
    spans = list(
        read_spans(
            [{"object": "trace.span", "id": "span_1", "span_data": {"type": "custom"}}],
            problems=problems,
        )
    )
    assert spans == []
    assert [(p.where, p.message) for p in problems] == [
        ("$[0]", "expected the span's id and trace_id")
    ]


class _Response:
    """Stands in for an openai ``Response``: the two things the SDK and the reader touch."""

    id = "resp_1"

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        return {"id": "resp_1", "output": [{"type": "message", "content": "Sunny."}], "mode": mode}


def test_an_in_process_response_span_keeps_the_whole_response_the_export_drops() -> None:
    response: Any = _Response()
    with _collecting() as keep, trace("wf"), response_span(response=response) as span:
        span.span_data.input = [{"role": "user", "content": "Weather?"}]
    (in_process,) = list(read_spans(keep.items))
    assert in_process.attributes["agents_sdk.response"]["output"][0]["content"] == "Sunny."
    assert in_process.attributes["agents_sdk.response"]["mode"] == "json"
    assert in_process.attributes["agents_sdk.input"] == [{"role": "user", "content": "Weather?"}]
    (exported,) = list(read_spans([item.export() for item in keep.items]))
    assert exported.attributes["agents_sdk.response_id"] == "resp_1"
    assert "agents_sdk.response" not in exported.attributes
