"""Jaeger query JSON: ``{"data": [{"traceID", "spans": [...], "processes": {...}}]}`` (the UI's
"Download JSON" and ``/api/traces``), or one such trace object on its own.

A span: ``traceID``/``spanID``; the parent is the first ``CHILD_OF`` reference (else the first
reference) or an old ``parentSpanID``; ``startTime``/``duration`` in microseconds; ``tags``
(``{key, type, value}``, typed by ``type``) are the attributes; ``logs`` (``{timestamp, fields}``)
are events named by their ``event`` field; the process (``serviceName`` + tags) is the resource.
The tags Jaeger made of OTel's envelope fields are read back into them and not kept as
attributes: ``span.kind``, ``otel.status_code``, ``otel.status_description``, ``otel.scope.name``,
``otel.scope.version``, ``error`` (``true`` ⇒ status ``error`` when no status code is given).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agenteval_nb.traces.envelope_fields import kind_word, micros_ns, otlp_id, status_word
from agenteval_nb.traces.read_problems import Problems
from agenteval_nb.traces.spans import Span, SpanEvent

_ENVELOPE_TAGS = frozenset(
    (
        "span.kind",
        "otel.status_code",
        "otel.status_description",
        "otel.scope.name",
        "otel.scope.version",
        "error",
    )
)


def is_jaeger(doc: dict[str, Any]) -> bool:
    """True for a query response (``data`` holding trace objects) or a single trace object."""
    if "spans" in doc and ("traceID" in doc or "processes" in doc):
        return True
    data = doc.get("data")
    if not isinstance(data, list) or not data:
        return False
    first = data[0]
    return (
        isinstance(first, dict)
        and "spans" in first
        and ("traceID" in first or "processes" in first)
    )


def read_jaeger(doc: dict[str, Any], problems: Problems, path: str = "$") -> Iterator[Span]:
    """The spans of every trace in the document, in file order."""
    single = "spans" in doc
    traces = [doc] if single else doc.get("data") or []
    for t_index, trace in enumerate(traces):
        t_path = path if single else f"{path}.data[{t_index}]"
        if not isinstance(trace, dict) or not isinstance(trace.get("spans"), list):
            problems.add(t_path, "expected a Jaeger trace {traceID, spans, processes}")
            continue
        processes = trace.get("processes")
        if not isinstance(processes, dict):
            processes = {}
        resources: dict[str, dict[str, Any]] = {}
        for index, raw in enumerate(trace["spans"]):
            where = f"{t_path}.spans[{index}]"
            try:
                span = _span(raw, processes, resources)
            except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
                problems.add(where, f"expected a Jaeger span ({exc})")
                continue
            if span is None:
                problems.add(where, "expected traceID and spanID")
                continue
            yield span


def _span(
    raw: dict[str, Any], processes: dict[str, Any], resources: dict[str, dict[str, Any]]
) -> Span | None:
    trace_id = otlp_id(raw.get("traceID"))
    span_id = otlp_id(raw.get("spanID"))
    if trace_id is None or span_id is None:
        return None
    attrs = tags(raw.get("tags") or ())
    envelope = {key: attrs.pop(key) for key in _ENVELOPE_TAGS.intersection(attrs)}
    status = status_word(envelope.get("otel.status_code"))
    if status is None and envelope.get("error") in (True, "true"):
        status = "error"
    start = micros_ns(raw.get("startTime"))
    duration = micros_ns(raw.get("duration"))
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=_parent(raw),
        name=str(raw.get("operationName") or ""),
        start_ns=start,
        end_ns=start + duration if start is not None and duration is not None else None,
        kind=kind_word(envelope.get("span.kind")),
        status=status,
        status_message=envelope.get("otel.status_description") or None,
        attributes=attrs,
        events=[_log(log) for log in raw.get("logs") or ()],
        resource=_resource(raw, processes, resources),
        scope=envelope.get("otel.scope.name") or None,
        source="jaeger",
    )


def _parent(raw: dict[str, Any]) -> str | None:
    references = raw.get("references") or ()
    chosen = next((r for r in references if r.get("refType") == "CHILD_OF"), None)
    if chosen is None and references:
        chosen = references[0]
    if chosen is not None:
        return otlp_id(chosen.get("spanID"))
    return otlp_id(raw.get("parentSpanID"))


def _resource(
    raw: dict[str, Any], processes: dict[str, Any], cache: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The span's process as resource attributes (one dict per process, shared by its spans)."""
    process_id = raw.get("processID")
    if process_id in cache:
        return cache[process_id]
    process = raw.get("process") or processes.get(str(process_id)) or {}
    resource = tags(process.get("tags") or ())
    if process.get("serviceName"):
        resource["service.name"] = process["serviceName"]
    if process_id is not None:
        cache[process_id] = resource
    return resource


def _log(raw: dict[str, Any]) -> SpanEvent:
    fields = tags(raw.get("fields") or ())
    name = fields.pop("event", None) or "log"
    return SpanEvent(name=str(name), time_ns=micros_ns(raw.get("timestamp")), attributes=fields)


def tags(items: Any) -> dict[str, Any]:
    """Jaeger ``{key, type, value}`` tags as a dict, each value of its declared type."""
    out: dict[str, Any] = {}
    for tag in items:
        value = tag.get("value")
        kind = tag.get("type")
        if kind == "int64" and value.__class__ is not int:
            value = int(value)
        elif kind == "float64" and value.__class__ is not float:
            value = float(value)
        elif kind == "bool" and value.__class__ is not bool:
            value = str(value).lower() == "true"
        out[tag["key"]] = value
    return out
