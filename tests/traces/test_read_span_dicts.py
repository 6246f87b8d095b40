"""One object per span: the OTel SDK's console output (produced here by the real SDK, also its
in-memory spans and log records), Phoenix span exports, plain dicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "opentelemetry.sdk", reason="the otel extra (opentelemetry-sdk) is not installed"
)

from opentelemetry._logs import LogRecord
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import (
    InMemoryLogRecordExporter,
    SimpleLogRecordProcessor,
)
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

from agenteval_nb.traces.read import ReadProblem, read_spans
from agenteval_nb.traces.spans import Span


@pytest.fixture(scope="module")
def sdk_run() -> tuple[list[Any], list[Any]]:
    """Spans and log records made by the real OTel SDK: an agent span, a chat span with an
    event and a log record, a failing tool span."""
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    tracer = provider.get_tracer("test.tracer")
    logs = InMemoryLogRecordExporter()
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    logger = logger_provider.get_logger("test.logger")
    with tracer.start_as_current_span(
        "invoke_agent bot", attributes={"gen_ai.conversation.id": "c1"}
    ):
        with tracer.start_as_current_span(
            "chat gpt-4o",
            kind=SpanKind.CLIENT,
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.response.finish_reasons": ("stop",),
            },
        ) as chat:
            chat.add_event("gen_ai.choice", {"index": 0})
            context = chat.get_span_context()
            logger.emit(
                LogRecord(
                    trace_id=context.trace_id,
                    span_id=context.span_id,
                    body={"content": "hello"},
                    attributes={"event.name": "gen_ai.user.message"},
                    event_name="gen_ai.user.message",
                )
            )
        with tracer.start_as_current_span("execute_tool f") as tool:
            tool.set_status(Status(StatusCode.ERROR, "tool failed"))
    return list(spans.get_finished_spans()), list(logs.get_finished_logs())


def _essentials(span: Span) -> tuple[Any, ...]:
    return (
        span.trace_id,
        span.span_id,
        span.parent_id,
        span.name,
        span.kind,
        span.status,
        span.status_message,
        span.attributes,
        [(e.name, e.attributes, e.body, e.from_log) for e in span.events],
        span.resource,
    )


def test_in_memory_sdk_spans_and_logs_read_with_the_log_attached(sdk_run: Any) -> None:
    sdk_spans, sdk_logs = sdk_run
    problems: list[ReadProblem] = []
    got = {s.name: s for s in read_spans([*sdk_logs, *sdk_spans], problems=problems)}
    assert problems == []
    chat, agent, tool = got["chat gpt-4o"], got["invoke_agent bot"], got["execute_tool f"]
    assert chat.parent_id == agent.span_id == tool.parent_id and agent.parent_id is None
    assert len(chat.trace_id) == 32 and len(chat.span_id) == 16
    assert chat.kind == "client" and agent.kind == "internal"
    assert chat.attributes["gen_ai.response.finish_reasons"] == ["stop"]
    assert [(e.name, e.from_log) for e in chat.events] == [
        ("gen_ai.choice", False),
        ("gen_ai.user.message", True),
    ]
    assert chat.events[1].body == {"content": "hello"}
    assert (tool.status, tool.status_message) == ("error", "tool failed")
    assert chat.source == "otel_sdk" and chat.scope == "test.tracer"
    assert chat.start_ns == sdk_spans[0].start_time


def test_console_output_reads_like_the_in_memory_spans(sdk_run: Any, tmp_path: Path) -> None:
    """What ConsoleSpanExporter prints: pretty-printed objects one after the other."""
    sdk_spans, sdk_logs = sdk_run
    path = tmp_path / "console.json"
    path.write_text(
        "".join(s.to_json() + "\n" for s in sdk_spans)
        + "".join(r.to_json() + "\n" for r in sdk_logs)
    )
    problems: list[ReadProblem] = []
    console = list(read_spans(path, problems=problems))
    assert problems == []
    memory = list(read_spans([*sdk_logs, *sdk_spans]))
    assert [_essentials(s) for s in console] == [_essentials(s) for s in memory]
    assert {s.source for s in console} == {"console"}
    # ISO times keep microseconds (the SDK rounds nanoseconds through a float: ±1 µs)
    assert all(abs(c.start_ns - m.start_ns) <= 1000 for c, m in zip(console, memory, strict=True))


def test_console_jsonl_one_object_per_line(sdk_run: Any) -> None:
    sdk_spans, _ = sdk_run
    text = "\n".join(s.to_json(indent=None) for s in sdk_spans)
    got = list(read_spans(text, format="console"))
    assert [s.name for s in got] == [s.name for s in sdk_spans]


def test_phoenix_export_nested_attributes_are_flattened_and_span_kind_kept() -> None:
    row = {
        "name": "ChatCompletion",
        "context": {"trace_id": "8a9b" * 8, "span_id": "1f2e" * 4},
        "span_kind": "LLM",
        "parent_id": "aaaa" * 4,
        "start_time": "2024-05-01T10:00:00.123456+00:00",
        "end_time": "2024-05-01T10:00:01.5+00:00",
        "status_code": "OK",
        "status_message": "",
        "attributes": {
            "llm": {
                "model_name": "gpt-4o",
                "input_messages": [
                    {"message": {"role": "system", "content": "be brief"}},
                    {"message": {"role": "user", "content": "hi"}},
                ],
                "token_count": {"prompt": 10, "completion": 2},
            },
            "session": {"id": "s-1"},
            "tag": {"tags": ["a", "b"]},
        },
        "events": [{"name": "exception", "timestamp": "2024-05-01T10:00:01Z", "attributes": {}}],
        "conversation": None,
    }
    (got,) = list(read_spans([row]))
    assert got.source == "phoenix"
    assert got.attributes == {
        "llm.model_name": "gpt-4o",
        "llm.input_messages.0.message.role": "system",
        "llm.input_messages.0.message.content": "be brief",
        "llm.input_messages.1.message.role": "user",
        "llm.input_messages.1.message.content": "hi",
        "llm.token_count.prompt": 10,
        "llm.token_count.completion": 2,
        "session.id": "s-1",
        "tag.tags": ["a", "b"],
        "openinference.span.kind": "LLM",
    }
    assert (got.start_ns, got.end_ns) == (1714557600123456000, 1714557601500000000)
    assert (got.status, got.kind, got.parent_id) == ("ok", None, "aaaa" * 4)
    assert got.events[0].time_ns == 1714557601000000000


@pytest.mark.parametrize(
    ("start", "ns"),
    [
        (1700000000, 1700000000000000000),  # seconds
        (1700000000.25, 1700000000250000000),
        (1700000000123, 1700000000123000000),  # ms
        (1700000000123456, 1700000000123456000),  # µs
        ("1700000000123456789", 1700000000123456789),  # ns, as a string
        ("2023-11-14T22:13:20Z", 1700000000000000000),
    ],
)
def test_plain_dicts_any_spelling_times_by_magnitude(start: Any, ns: int) -> None:
    row = {"traceId": "T1", "spanId": "S1", "parentSpanId": "S0", "name": "x", "startTime": start}
    (got,) = list(read_spans(row))
    assert (got.trace_id, got.span_id, got.parent_id, got.start_ns) == ("T1", "S1", "S0", ns)
    assert got.source == "dict"


def test_plain_dicts_otlp_attribute_lists_and_status_strings() -> None:
    rows = [
        {
            "trace_id": "0x" + "AB" * 16,
            "span_id": "0x" + "CD" * 8,
            "status": "ERROR",
            "status_message": "bad",
            "kind": "SpanKind.SERVER",
            "attributes": [{"key": "n", "value": {"intValue": "3"}}],
            "dropped_attributes_count": 7,
        },
        {"trace_id": "t", "name": "no span id"},
    ]
    problems: list[ReadProblem] = []
    (got,) = list(read_spans(json.dumps(rows), problems=problems))
    assert (got.trace_id, got.span_id) == ("ab" * 16, "cd" * 8)
    assert (got.status, got.status_message, got.kind) == ("error", "bad", "server")
    assert got.attributes == {"n": 3} and got.dropped_attributes == 7
    (problem,) = problems
    assert problem.where == "$[1]" and "expected a trace envelope" in problem.message


def test_a_page_of_otlp_shaped_span_objects_phoenix_rest() -> None:
    page = {
        "data": [
            {
                "trace_id": "ab" * 16,
                "span_id": "cd" * 8,
                "parent_span_id": None,
                "name": "agent",
                "kind": "SPAN_KIND_INTERNAL",
                "start_time_unix_nano": "1700000000000000000",
                "end_time_unix_nano": "1700000001000000000",
                "status": {"code": 1, "message": ""},
                "attributes": [
                    {"key": "openinference.span.kind", "value": {"string_value": "AGENT"}},
                    {"key": "session.id", "value": {"string_value": "s1"}},
                ],
                "events": [{"name": "e", "time_unix_nano": "1700000000500000000"}],
            },
            {"name": "no ids"},
        ],
        "next_cursor": None,
    }
    problems: list[ReadProblem] = []
    (got,) = list(read_spans(page, problems=problems))
    assert (got.kind, got.status, got.start_ns, got.end_ns) == (
        "internal",
        "ok",
        1700000000000000000,
        1700000001000000000,
    )
    assert got.attributes == {"openinference.span.kind": "AGENT", "session.id": "s1"}
    assert got.events[0].time_ns == 1700000000500000000
    assert [p.where for p in problems] == ["$.data[1]"]
