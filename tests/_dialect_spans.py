"""Canonical spans for the dialect tests: hand-made, or from public fixture files.

The fixtures are attribute dicts (openinference) and span dicts (strands-agents/evals); the
converters here are the minimum the dialect tests need until the envelope readers
(``traces.read.read_spans``) can read the same files.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from agenteval_nb.traces.spans import Span, SpanEvent, canonical_id

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


def attribute_fixture(relative: str, *, name: str = "span", **kwargs: Any) -> Span:
    """A span whose attributes are a fixture file (a flat attribute dict)."""
    return span(json.loads((CORPUS / relative).read_text()), name=name, **kwargs)


def span_dict_fixture(relative: str) -> list[Span]:
    """The spans of a strands-agents/evals span-dict fixture (a JSON list of span dicts)."""
    out = []
    for order, item in enumerate(json.loads((CORPUS / relative).read_text())):
        status = (item.get("status") or {}).get("code")
        out.append(
            Span(
                trace_id=canonical_id(item["trace_id"]) or "",
                span_id=canonical_id(item["span_id"]) or "",
                parent_id=canonical_id(item.get("parent_span_id")),
                name=item["name"],
                start_ns=item.get("start_time"),
                end_ns=item.get("end_time"),
                status=status.lower() if isinstance(status, str) else None,
                attributes=item.get("attributes") or {},
                events=[
                    SpanEvent(
                        name=event.get("event_name") or event.get("name") or "",
                        time_ns=event.get("timestamp"),
                        attributes=event.get("attributes") or {},
                    )
                    for event in item.get("span_events") or []
                ],
                scope=(item.get("scope") or {}).get("name"),
                order=order,
            )
        )
    return out


def by_name(spans: list[Span], name: str) -> list[Span]:
    """The spans with this name, in file order."""
    return [one for one in spans if one.name == name]


def step_fields(step: Any, *drop: str) -> dict[str, Any]:
    """A step as a dict without its ids (and without the named fields), to compare encodings."""
    fields = dataclasses.asdict(step)
    for key in ("span_id", "parent_span_id", "start_ns", "end_ns", *drop):
        fields.pop(key, None)
    return fields
