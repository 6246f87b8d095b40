"""OpenTelemetry SDK objects already in memory (what an ``InMemorySpanExporter`` /
``InMemoryLogExporter`` hands back), duck typed: the SDK is never imported.

* a span: anything with ``get_span_context()`` (or a ``context`` holding an integer
  ``trace_id``) and ``start_time`` — ``ReadableSpan``; ids are integers, written as hex;
* a log record: ``ReadableLogRecord`` / ``LogData`` (``.log_record``) or a bare SDK ``LogRecord``
  (``trace_id``, ``span_id``, ``body``, ``attributes``, ``event_name`` …) → a span event.

Sequence attribute values (tuples in the SDK) become lists, as they would in JSON.
"""

from __future__ import annotations

from typing import Any

from agenteval_nb.traces.envelope_fields import kind_word, status_word
from agenteval_nb.traces.otlp_json import LogEvent
from agenteval_nb.traces.spans import Span, SpanEvent


def is_sdk_span(obj: Any) -> bool:
    """True for an OTel SDK ``ReadableSpan`` (duck typed)."""
    if not hasattr(obj, "start_time"):
        return False
    if callable(getattr(obj, "get_span_context", None)):
        return True
    return isinstance(getattr(getattr(obj, "context", None), "trace_id", None), int)


def is_sdk_log(obj: Any) -> bool:
    """True for an OTel SDK log record, readable or bare (duck typed)."""
    record = getattr(obj, "log_record", obj)
    return all(hasattr(record, name) for name in ("trace_id", "span_id", "body", "severity_number"))


def sdk_span(obj: Any) -> Span | None:
    """The span of a ``ReadableSpan``; ``None`` when its context has no ids."""
    context = (
        obj.get_span_context() if callable(getattr(obj, "get_span_context", None)) else obj.context
    )
    trace_id, span_id = _hex(context.trace_id, 32), _hex(context.span_id, 16)
    if trace_id is None or span_id is None:
        return None
    parent = getattr(obj, "parent", None)
    status = getattr(obj, "status", None)
    code = getattr(status, "status_code", None)
    resource = getattr(obj, "resource", None)
    scope = getattr(obj, "instrumentation_scope", None)
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=_hex(getattr(parent, "span_id", None), 16),
        name=str(getattr(obj, "name", "") or ""),
        start_ns=getattr(obj, "start_time", None),
        end_ns=getattr(obj, "end_time", None),
        kind=kind_word(getattr(getattr(obj, "kind", None), "name", None)),
        status=status_word(getattr(code, "name", code)),
        status_message=getattr(status, "description", None) or None,
        attributes=plain_attributes(getattr(obj, "attributes", None)),
        events=[
            SpanEvent(
                name=str(event.name),
                time_ns=getattr(event, "timestamp", None),
                attributes=plain_attributes(getattr(event, "attributes", None)),
            )
            for event in getattr(obj, "events", None) or ()
        ],
        resource=plain_attributes(getattr(resource, "attributes", None)),
        scope=getattr(scope, "name", None) or None,
        dropped_attributes=int(getattr(obj, "dropped_attributes", 0) or 0),
        source="otel_sdk",
    )


def sdk_log(obj: Any) -> LogEvent | None:
    """A log record addressed to its span; ``None`` when it names no span."""
    record = getattr(obj, "log_record", obj)
    trace_id, span_id = _hex(record.trace_id, 32), _hex(record.span_id, 16)
    if trace_id is None or span_id is None:
        return None
    attributes = plain_attributes(getattr(record, "attributes", None))
    name = getattr(record, "event_name", None) or attributes.get("event.name") or "log"
    body = record.body
    return (
        trace_id,
        span_id,
        SpanEvent(
            name=str(name),
            time_ns=getattr(record, "timestamp", None)
            or getattr(record, "observed_timestamp", None),
            attributes=attributes,
            body=plain_value(body),
            from_log=True,
        ),
    )


def plain_attributes(mapping: Any) -> dict[str, Any]:
    """An SDK attribute mapping as a plain dict (tuples made lists)."""
    if not mapping:
        return {}
    return {str(k): plain_value(v) for k, v in mapping.items()}


def plain_value(value: Any) -> Any:
    """A value with tuples made lists and mappings made dicts, recursively."""
    if isinstance(value, (tuple, list)):
        return [plain_value(v) for v in value]
    if hasattr(value, "items") and not isinstance(value, (str, bytes)):
        return {str(k): plain_value(v) for k, v in value.items()}
    return value


def _hex(value: Any, width: int) -> str | None:
    if isinstance(value, int) and value:
        return format(value, f"0{width}x")
    return None
