"""One JSON object per span: the OTel Python SDK's ``ReadableSpan.to_json()`` (what the console
exporter prints), Phoenix span exports, and plain span dicts of any spelling.

* console: ``context.trace_id`` / ``span_id`` as ``"0x…"``, ``parent_id``, ``kind``
  ``"SpanKind.CLIENT"``, ``status.status_code`` ``"OK"`` + ``description``, ISO times, flat
  ``attributes``, ``events[{name, timestamp, attributes}]``, ``resource.attributes``;
* Phoenix: the same ``context``, ``span_kind`` (the OpenInference kind, kept as the
  ``openinference.span.kind`` attribute when the attributes lack it), ``parent_id``,
  ``status_code``/``status_message``, ISO times, ``attributes`` possibly nested (rebuilt to flat
  keys by :func:`flatten_attributes`);
* console log records (``ReadableLogRecord.to_json()``: ``body``, ``severity_number``,
  ``trace_id``/``span_id`` ``"0x…"``, ``timestamp``, ``attributes``, ``event_name``) → span
  events of their span (:func:`read_console_log`);
* plain dicts: the first key found of each alias list below; ids through ``canonical_id``.
  Times: ISO text, or numbers scaled by magnitude to nanoseconds (seconds, ms, µs or ns since the
  epoch); ``attributes`` a dict or an OTLP ``KeyValue`` list; events under ``events`` or
  ``span_events`` (strands-agents/evals), named by ``name`` or ``event_name``; status a word or
  ``{"code": "OK"}``. A list of them may come wrapped: ``{"spans": [...], ...}`` (the ADOT
  session captures' ``{session_id, span_count, spans}``) or ``{"data": [...]}`` (Phoenix REST).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agenteval_nb.traces import otlp_json
from agenteval_nb.traces.envelope_fields import flatten_attributes, kind_word, status_word, time_ns
from agenteval_nb.traces.otlp_json import LogEvent
from agenteval_nb.traces.read_problems import Problems
from agenteval_nb.traces.spans import Span, SpanEvent, canonical_id

_TRACE_ID = ("trace_id", "traceId", "traceID")
_SPAN_ID = ("span_id", "spanId", "spanID", "id")
_PARENT_ID = ("parent_id", "parentId", "parent_span_id", "parentSpanId", "parentSpanID")
_NAME = ("name", "operationName", "span_name")
_START = (
    "start_time",
    "startTime",
    "start_time_unix_nano",
    "startTimeUnixNano",
    "start_ns",
    "start",
)
_END = ("end_time", "endTime", "end_time_unix_nano", "endTimeUnixNano", "end_ns", "end")
_EVENTS = ("events", "span_events", "spanEvents")
_EVENT_NAME = ("name", "event_name", "eventName")
_EVENT_TIME = ("timestamp", "time", "time_unix_nano", "timeUnixNano", "time_ns")
_DROPPED = ("dropped_attributes", "droppedAttributesCount", "dropped_attributes_count")


def is_span_dict(doc: dict[str, Any]) -> bool:
    """True when the object names a span: a trace id and a span id (top level or ``context``)."""
    context = doc.get("context")
    holder = context if isinstance(context, dict) and "trace_id" in context else doc
    return _first(holder, _TRACE_ID) is not None and _first(holder, _SPAN_ID) is not None


def is_console_log(doc: dict[str, Any]) -> bool:
    """True for a console log record (an SDK log record's ``to_json()``)."""
    return "body" in doc and "severity_number" in doc and "trace_id" in doc


def read_console_log(
    doc: dict[str, Any], problems: Problems, path: str = "$"
) -> Iterator[LogEvent]:
    """The span event of a console log record that names its span (else a problem)."""
    trace_id, span_id = canonical_id(doc.get("trace_id")), canonical_id(doc.get("span_id"))
    if trace_id is None or span_id is None:
        problems.add(path, "log record carries no trace_id/span_id: not attached to any span")
        return
    try:
        attributes = _attributes(doc.get("attributes"), nested=False)
        when = any_time_ns(doc.get("timestamp")) or any_time_ns(doc.get("observed_timestamp"))
    except (TypeError, ValueError) as exc:
        problems.add(path, f"expected a log record ({exc})")
        return
    name = doc.get("event_name") or attributes.get("event.name") or "log"
    event = SpanEvent(str(name), when, attributes, doc.get("body"), from_log=True)
    yield trace_id, span_id, event


def span_dict_format(doc: dict[str, Any]) -> str:
    """``"phoenix"`` (a ``span_kind``), ``"console"`` (an SDK ``context``) or ``"dicts"``."""
    context = doc.get("context")
    if isinstance(context, dict) and "trace_id" in context:
        return "phoenix" if "span_kind" in doc else "console"
    return "dicts"


def read_span_dict(
    doc: dict[str, Any], problems: Problems, source: str, path: str = "$"
) -> Iterator[Span]:
    """The one span the object describes (nothing, and a problem, when it has no ids)."""
    try:
        span = _span(doc, source)
    except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
        problems.add(path, f"expected a span object ({exc})")
        return
    if span is None:
        problems.add(path, "expected a trace id and a span id")
        return
    yield span


def _span(doc: dict[str, Any], source: str) -> Span | None:
    context = doc.get("context")
    holder = context if isinstance(context, dict) and "trace_id" in context else doc
    trace_id = canonical_id(_first(holder, _TRACE_ID))
    span_id = canonical_id(_first(holder, _SPAN_ID))
    if trace_id is None or span_id is None:
        return None
    attributes = _attributes(doc.get("attributes"), nested=source == "phoenix")
    if source == "phoenix" and doc.get("span_kind"):
        attributes.setdefault("openinference.span.kind", str(doc["span_kind"]))
    status, message = _status(doc)
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=canonical_id(_first(doc, _PARENT_ID)),
        name=str(_first(doc, _NAME) or ""),
        start_ns=any_time_ns(_first(doc, _START)),
        end_ns=any_time_ns(_first(doc, _END)),
        kind=None if source == "phoenix" else kind_word(doc.get("kind")),
        status=status,
        status_message=message,
        attributes=attributes,
        events=[_event(e, nested=source == "phoenix") for e in _first(doc, _EVENTS) or ()],
        resource=_resource(doc.get("resource")),
        scope=_scope(doc),
        dropped_attributes=int(_first(doc, _DROPPED) or 0),
        source=source,
    )


def _first(doc: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = doc.get(key)
        if value is not None:
            return value
    return None


def _attributes(value: Any, *, nested: bool) -> dict[str, Any]:
    if not value:
        return {}
    if isinstance(value, list):
        return otlp_json.attributes_strict(value)
    if not isinstance(value, dict):
        raise TypeError(f"attributes: expected an object, got {type(value).__name__}")
    return flatten_attributes(value) if nested else dict(value)


def _status(doc: dict[str, Any]) -> tuple[str | None, str | None]:
    status = doc.get("status")
    if isinstance(status, dict):
        code = _first(status, ("status_code", "code", "statusCode"))
        message = _first(status, ("description", "message", "status_message"))
    else:
        code = status if status is not None else _first(doc, ("status_code", "statusCode"))
        message = _first(doc, ("status_message", "statusMessage", "status_description"))
    return status_word(code), (str(message) if message else None)


def _event(raw: dict[str, Any], *, nested: bool) -> SpanEvent:
    """A span event; one with a ``body`` is a log record its producer attached to the span
    (ADOT's split mode as strands-agents/evals captures it)."""
    return SpanEvent(
        name=str(_first(raw, _EVENT_NAME) or ""),
        time_ns=any_time_ns(_first(raw, _EVENT_TIME)),
        attributes=_attributes(raw.get("attributes"), nested=nested),
        body=raw.get("body"),
        from_log="body" in raw,
    )


def _resource(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        return {}
    attributes = value.get("attributes")
    if attributes is None:
        return dict(value)
    return _attributes(attributes, nested=False)


def _scope(doc: dict[str, Any]) -> str | None:
    scope = _first(doc, ("instrumentation_scope", "instrumentationScope", "scope"))
    if isinstance(scope, dict):
        scope = scope.get("name")
    return str(scope) if scope else None


def any_time_ns(value: Any) -> int | None:
    """Nanoseconds from ISO text, or from a number of seconds, ms, µs or ns since the epoch
    (told apart by magnitude: any date after 1973 in the unit it is written in)."""
    if isinstance(value, str) and not value.strip().isdigit():
        return time_ns(value)
    if value is None or value == "":
        return None
    number = float(value) if isinstance(value, float) else int(value)
    for limit, scale in ((1e11, 1_000_000_000), (1e14, 1_000_000), (1e17, 1_000)):
        if abs(number) < limit:
            if isinstance(number, float):  # a float holds µs at best: no false nanoseconds
                return round(number * scale / 1000) * 1000 or None
            return number * scale or None
    return int(number) or None
