"""Langfuse exports: the trace download ``{trace, observations, scores}``, a trace object with its
``observations`` embedded (``GET /api/public/traces/{id}``), a bare trace object (``id``,
``timestamp`` and one of ``sessionId``/``projectId``/``latency``/``htmlPath``), lists of these (a
session download; ``{"data": [...]}``; a session object's ``traces``), and bare observation rows
(the observations table export, one per line).

Each observation becomes one :class:`Span`: ``id`` → span id, ``traceId`` (else the trace's
``id``) → trace id, ``parentObservationId`` → parent, ``name``, ``startTime``/``endTime`` (ISO)
→ times, ``level`` ``ERROR`` → status ``error`` with ``statusMessage``. Every other field of the
observation is kept verbatim (JSON values, not re-encoded) as an attribute ``langfuse.<field>``:

========================== ===============================================================
``langfuse.type``          GENERATION, SPAN, EVENT, AGENT, TOOL, CHAIN, RETRIEVER, EVALUATOR,
                           EMBEDDING, GUARDRAIL …
``langfuse.input``         the observation's input (messages, a string, any JSON)
``langfuse.output``        its output
``langfuse.metadata``      metadata (OTel-ingested observations keep the original attributes here)
``langfuse.model``         model name; also ``langfuse.modelParameters``
``langfuse.usageDetails``  token counts (``input``, ``output``, ``total`` …); also
                           ``langfuse.usage``, ``langfuse.costDetails``, ``langfuse.promptTokens`` …
``langfuse.toolCalls``     tool calls of a generation (when the export has them)
``langfuse.level``         DEBUG / DEFAULT / WARNING / ERROR; ``langfuse.statusMessage``
``langfuse.<field>``       any other field: ``completionStartTime``, ``promptName``, ``version``…
========================== ===============================================================

The trace's own fields go on the root observation(s) (no parent) as ``langfuse.trace.<field>``:
``langfuse.trace.id``, ``.name``, ``.input``, ``.output``, ``.sessionId`` (the conversation key),
``.userId``, ``.metadata``, ``.tags``, ``.release``, ``.version``, ``.timestamp`` … A trace with
no observations becomes one span of its own (span id = trace id, ``langfuse.type`` ``TRACE``)
carrying the same ``langfuse.trace.*`` keys, so its input and output are not lost.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agenteval_nb.traces.envelope_fields import time_ns
from agenteval_nb.traces.read_problems import Problems
from agenteval_nb.traces.spans import Span, canonical_id

OBSERVATION_TYPES = frozenset(
    (
        "GENERATION",
        "SPAN",
        "EVENT",
        "AGENT",
        "TOOL",
        "CHAIN",
        "RETRIEVER",
        "EVALUATOR",
        "EMBEDDING",
        "GUARDRAIL",
    )
)
_ENVELOPE = frozenset(("id", "traceId", "parentObservationId", "name", "startTime", "endTime"))
_TRACE_SKIPPED = frozenset(("observations", "scores"))


def is_langfuse(doc: dict[str, Any]) -> bool:
    """True for a ``{trace, observations}`` download, a trace with embedded observations, a
    ``{"data": [...]}`` list of those, or a bare observation row."""
    if "observations" in doc and (isinstance(doc.get("trace"), dict) or "id" in doc):
        return True
    for key in ("data", "traces"):
        items = doc.get(key)
        if isinstance(items, list) and items and isinstance(items[0], dict):
            return "observations" in items[0] or is_trace(items[0])
    return is_trace(doc) or is_observation(doc)


def is_trace(doc: dict[str, Any]) -> bool:
    """A Langfuse trace object without its observations."""
    return (
        "id" in doc
        and "timestamp" in doc
        and any(key in doc for key in ("sessionId", "projectId", "latency", "htmlPath"))
    )


def is_observation(doc: dict[str, Any]) -> bool:
    """A bare observation row: an id, a trace id and a known observation ``type``."""
    return (
        "traceId" in doc
        and "id" in doc
        and str(doc.get("type", "")).upper() in OBSERVATION_TYPES
        and ("startTime" in doc or "parentObservationId" in doc)
    )


def read_langfuse(doc: dict[str, Any], problems: Problems, path: str = "$") -> Iterator[Span]:
    """The spans of one Langfuse document (see the module doc for the shapes)."""
    for key in ("data", "traces"):
        if "observations" not in doc and isinstance(doc.get(key), list):
            for index, item in enumerate(doc[key]):
                if isinstance(item, dict):
                    yield from read_langfuse(item, problems, f"{path}.{key}[{index}]")
                else:
                    problems.add(f"{path}.{key}[{index}]", "expected a Langfuse trace object")
            return
    if "observations" not in doc and not is_trace(doc):
        yield from _observations([doc], {}, None, problems, path)
        return
    trace = doc["trace"] if isinstance(doc.get("trace"), dict) else doc
    observations = doc.get("observations", [])
    if not isinstance(observations, list):
        problems.add(f"{path}.observations", "expected a list of observations")
        return
    rows = [o for o in observations if isinstance(o, dict)]
    if len(rows) < len(observations):
        problems.add(
            f"{path}.observations",
            f"{len(observations) - len(rows)} observation(s) are ids only, not objects "
            "(download the trace itself for its observations)",
        )
    trace_fields = {f"langfuse.trace.{k}": v for k, v in trace.items() if k not in _TRACE_SKIPPED}
    trace_id = canonical_id(trace.get("id"))
    if not rows:
        if trace_id is None:
            problems.add(f"{path}.trace.id", "expected a trace id")
            return
        yield _trace_span(trace, trace_id, trace_fields)
        return
    yield from _observations(rows, trace_fields, trace_id, problems, f"{path}.observations")


def _observations(
    rows: list[dict[str, Any]],
    trace_fields: dict[str, Any],
    trace_id: str | None,
    problems: Problems,
    path: str,
) -> Iterator[Span]:
    for index, row in enumerate(rows):
        where = f"{path}[{index}]" if path.endswith("observations") else path
        try:
            span = _span(row, trace_id, trace_fields)
        except (AttributeError, TypeError, ValueError) as exc:
            problems.add(where, f"expected a Langfuse observation ({exc})")
            continue
        if span is None:
            problems.add(where, "expected an observation id and a trace id")
            continue
        yield span


def _span(row: dict[str, Any], trace_id: str | None, trace_fields: dict[str, Any]) -> Span | None:
    span_id = canonical_id(row.get("id"))
    trace_id = canonical_id(row.get("traceId")) or trace_id
    if span_id is None or trace_id is None:
        return None
    attributes = {f"langfuse.{k}": v for k, v in row.items() if k not in _ENVELOPE}
    parent_id = canonical_id(row.get("parentObservationId"))
    if parent_id is None:
        attributes.update(trace_fields)
    error = str(row.get("level") or "").upper() == "ERROR"
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent_id,
        name=str(row.get("name") or row.get("type") or ""),
        start_ns=time_ns(row.get("startTime")),
        end_ns=time_ns(row.get("endTime")),
        status="error" if error else None,
        status_message=(row.get("statusMessage") or None) if error else None,
        attributes=attributes,
        source="langfuse",
    )


def _trace_span(trace: dict[str, Any], trace_id: str, trace_fields: dict[str, Any]) -> Span:
    start = time_ns(trace.get("timestamp"))
    latency = trace.get("latency")
    end = start + int(float(latency) * 1e9) if start is not None and latency is not None else start
    return Span(
        trace_id=trace_id,
        span_id=trace_id,
        parent_id=None,
        name=str(trace.get("name") or "trace"),
        start_ns=start,
        end_ns=end,
        attributes={"langfuse.type": "TRACE", **trace_fields},
        source="langfuse",
    )
