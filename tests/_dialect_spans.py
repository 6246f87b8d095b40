"""Canonical spans for the dialect tests: hand-made, or read from corpus files by the real
envelope reader (``traces.read.read_spans``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from agenteval_nb.traces.read import ReadProblem, read_spans
from agenteval_nb.traces.spans import Span, SpanEvent

CORPUS = Path(__file__).resolve().parent / "corpus" / "traces"


def span(
    attributes: dict[str, Any] | None = None,
    *,
    name: str = "span",
    span_id: str = "s1",
    parent_id: str | None = None,
    trace_id: str = "t1",
    scope: str | None = None,
    events: list[SpanEvent] | None = None,
    status: str | None = None,
    status_message: str | None = None,
    start_ns: int | None = 1,
    end_ns: int | None = 2,
    dropped_attributes: int = 0,
) -> Span:
    """A hand-made span."""
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent_id,
        name=name,
        start_ns=start_ns,
        end_ns=end_ns,
        status=status,
        status_message=status_message,
        attributes=dict(attributes or {}),
        events=list(events or []),
        scope=scope,
        dropped_attributes=dropped_attributes,
    )


def corpus_spans(relative: str) -> list[Span]:
    """The spans of a corpus file (tests/corpus/traces), read by :func:`read_spans`; the file
    must read without a problem."""
    problems: list[ReadProblem] = []
    spans = list(read_spans(CORPUS / relative, problems=problems))
    assert problems == [], problems
    return spans


def by_name(spans: list[Span], name: str) -> list[Span]:
    """The spans with this name, in file order."""
    return [one for one in spans if one.name == name]


def step_fields(step: Any, *drop: str) -> dict[str, Any]:
    """A step as a dict without its ids (and without the named fields), to compare encodings."""
    fields = dataclasses.asdict(step)
    for key in ("span_id", "parent_span_id", "start_ns", "end_ns", *drop):
        fields.pop(key, None)
    return fields
