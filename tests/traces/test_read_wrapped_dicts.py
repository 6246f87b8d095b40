"""Span dicts as strands-agents/evals captures them: wrapped in ``{session_id, span_count,
spans}`` (its ADOT captures), events under ``span_events`` named by ``event_name`` (a log
record's ``body`` kept), status ``{"code": "OK"}``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agenteval_nb.traces.read import ReadProblem, read_spans

STRANDS = Path(__file__).resolve().parent.parent / "corpus" / "traces" / "strands-evals"


@pytest.mark.parametrize("name", ["claude_adot_spans.json", "openai_agents_genai_adot_spans.json"])
def test_an_adot_capture_reads_every_span_of_its_envelope(name: str) -> None:
    raw = json.loads((STRANDS / name).read_text())
    problems: list[ReadProblem] = []
    spans = list(read_spans(STRANDS / name, problems=problems))
    assert problems == []
    assert len(spans) == raw["span_count"] == len(raw["spans"])
    assert [s.span_id for s in spans] == [s["span_id"] for s in raw["spans"]]
    assert {s.attributes["session.id"] for s in spans} == {raw["session_id"]}
    statuses = {s["span_id"]: s["status"]["code"].lower() for s in raw["spans"]}
    assert {s.span_id: s.status for s in spans} == statuses


def test_span_events_are_read_with_their_event_name_and_status_code() -> None:
    """The hand-built convention fixture keeps its content on operation-details events."""
    problems: list[ReadProblem] = []
    spans = list(read_spans(STRANDS / "otel_genai_convention_spans.json", problems=problems))
    assert problems == []
    chat = spans[1]
    (event,) = chat.events
    assert event.name == "gen_ai.client.inference.operation.details"
    assert event.time_ns == 1700000001500000000
    assert event.attributes["gen_ai.output.messages"][0]["finish_reason"] == "tool_calls"
    assert not event.from_log
    assert [s.status for s in spans] == ["ok", "ok", "ok", "error", "ok"]


def test_an_event_with_a_body_is_a_log_record_attached_to_its_span() -> None:
    """ADOT's split mode moves content into log records; the capture keeps them as events."""
    spans = list(read_spans(STRANDS / "openinference_adot_spans.json"))
    event = spans[0].events[0]
    assert event.name == "openinference.instrumentation.langchain"
    assert event.from_log
    assert event.body["input"]["messages"][0]["content"] == "What is the weather in Alaska?"


def _span(span_id: str, **extra: Any) -> dict[str, Any]:
    return {"trace_id": "ab" * 16, "span_id": span_id, "name": "s", **extra}


def test_a_bad_span_in_a_wrapped_list_is_named_by_its_path() -> None:
    doc = {"session_id": "x", "spans": [_span("cd" * 8), {"name": "no ids"}]}
    problems: list[ReadProblem] = []
    (got,) = list(read_spans(doc, problems=problems))
    assert got.span_id == "cd" * 8
    (problem,) = problems
    assert problem.where == "$.spans[1]"


def test_a_jaeger_trace_object_holding_spans_is_still_jaeger() -> None:
    """``spans`` is also a Jaeger trace object's key: that object is its own envelope."""
    trace = {
        "traceID": "ab" * 16,
        "spans": [
            {"traceID": "ab" * 16, "spanID": "cd" * 8, "operationName": "op", "startTime": 1}
        ],
        "processes": {},
    }
    (got,) = list(read_spans(trace))
    assert got.source == "jaeger" and got.name == "op"
