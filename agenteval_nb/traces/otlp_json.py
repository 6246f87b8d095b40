"""OTLP/JSON: ``TracesData`` (``resourceSpans[].scopeSpans[].spans[]``), Grafana Tempo's
``batches[]`` (the same resource spans; older ``instrumentationLibrarySpans`` accepted, and the
``{"trace": {...}}`` wrapper of Tempo's v2 API) and ``LogsData`` (``resourceLogs[].scopeLogs[]
.logRecords[]``, whose records become :class:`SpanEvent` ``from_log`` of their span).

The protobuf JSON mapping's rules: ids hex in any case or base64 (:func:`otlp_id`); enums as
integers or names; 64-bit integers as numbers or strings; unknown fields ignored; the original
snake_case field names accepted as well as lowerCamelCase (a snake_case document is renamed once
by :func:`camel_keys`: OTLP keeps user data in ``{key, value}`` pairs, never in object keys).
``AnyValue`` decoded to plain values (``kvlistValue`` → dict, ``arrayValue`` → list,
``bytesValue`` kept as its base64 text). The spans of one resource share one ``resource`` dict
(read it, do not mutate it).

A span without a trace or span id is a :class:`ReadProblem`; so is a malformed attribute
(the attribute is skipped, the span kept).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agenteval_nb.traces.envelope_fields import kind_word, otlp_id, status_word, time_ns
from agenteval_nb.traces.read_problems import Problems
from agenteval_nb.traces.spans import Span, SpanEvent

LogEvent = tuple[str, str, SpanEvent]
"""a log record addressed to its span: (trace id, span id, the event)"""


def is_traces_data(doc: dict[str, Any]) -> bool:
    """True for a ``TracesData`` / Tempo document (the keys that name the envelope)."""
    if "resourceSpans" in doc or "batches" in doc or "resource_spans" in doc:
        return True
    return _wrapper(doc) is not None


def camel_keys(value: Any) -> Any:
    """Every object key of an OTLP document in lowerCamelCase (``resource_spans`` →
    ``resourceSpans``); values that are not objects or arrays are returned as they are."""
    if isinstance(value, dict):
        return {_camel(k): camel_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [camel_keys(v) for v in value]
    return value


def _camel(key: str) -> str:
    if "_" not in key:
        return key
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _wrapper(doc: dict[str, Any]) -> str | None:
    """The key of a wrapper around a ``TracesData`` (Tempo v2 ``trace``, Jaeger v3 ``result``)."""
    for key in ("trace", "result"):
        inner = doc.get(key)
        if isinstance(inner, dict) and ("resourceSpans" in inner or "batches" in inner):
            return key
    return None


def read_traces_data(
    doc: dict[str, Any], problems: Problems, source: str = "otlp", path: str = "$"
) -> Iterator[Span]:
    """The spans of one ``TracesData`` (or Tempo) document, in file order."""
    if "resource_spans" in doc:
        doc = camel_keys(doc)
    if "resourceSpans" not in doc and "batches" not in doc:
        wrapper = _wrapper(doc)
        if wrapper is not None:
            doc, path = doc[wrapper], f"{path}.{wrapper}"
    key = "resourceSpans" if "resourceSpans" in doc else "batches"
    for r_index, resource_spans in enumerate(_list(doc.get(key), problems, f"{path}.{key}")):
        r_path = f"{path}.{key}[{r_index}]"
        if not isinstance(resource_spans, dict):
            problems.add(r_path, "expected a ResourceSpans object")
            continue
        resource = _resource(resource_spans, problems, r_path)
        scope_key = (
            "scopeSpans" if "scopeSpans" in resource_spans else "instrumentationLibrarySpans"
        )
        scopes = _list(resource_spans.get(scope_key), problems, f"{r_path}.{scope_key}")
        for s_index, scope_spans in enumerate(scopes):
            s_path = f"{r_path}.{scope_key}[{s_index}]"
            if not isinstance(scope_spans, dict):
                problems.add(s_path, "expected a ScopeSpans object")
                continue
            scope = _scope_name(scope_spans)
            for index, raw in enumerate(_list(scope_spans.get("spans"), problems, s_path)):
                try:
                    span = _span(raw, resource, scope, source)
                except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
                    problems.add(f"{s_path}.spans[{index}]", f"expected an OTLP span ({exc})")
                    continue
                if span is None:
                    problems.add(f"{s_path}.spans[{index}]", "expected traceId and spanId")
                    continue
                if span.attributes is _BAD:
                    span.attributes = attributes_checked(
                        raw.get("attributes"), problems, f"{s_path}.spans[{index}].attributes"
                    )
                yield span


def _span(
    raw: dict[str, Any], resource: dict[str, Any], scope: str | None, source: str
) -> Span | None:
    """One span; the hot path of a large file (positional ``Span``, cached enum words)."""
    trace_id = otlp_id(raw.get("traceId"))
    span_id = otlp_id(raw.get("spanId"))
    if trace_id is None or span_id is None:
        return None
    parent = raw.get("parentSpanId")
    status = raw.get("status")
    kvs = raw.get("attributes")
    events = raw.get("events")
    dropped = raw.get("droppedAttributesCount")
    return Span(
        trace_id,
        span_id,
        otlp_id(parent) if parent else None,
        str(raw.get("name") or ""),
        _nanos(raw.get("startTimeUnixNano")),
        _nanos(raw.get("endTimeUnixNano")),
        _kind(raw.get("kind")),
        _status(status.get("code")) if status else None,
        (status.get("message") or None) if status else None,
        attributes(kvs) if kvs else {},
        [_event(e) for e in events] if events else [],
        resource,
        scope,
        int(dropped) if dropped else 0,
        source,
    )


def _nanos(value: Any) -> int | None:
    try:
        return int(value) or None
    except (TypeError, ValueError):
        return time_ns(value)


_KIND_WORDS: dict[Any, str | None] = {}
_STATUS_WORDS: dict[Any, str | None] = {}


def _kind(value: Any) -> str | None:
    try:
        return _KIND_WORDS[value]
    except KeyError:
        word = _KIND_WORDS[value] = kind_word(value)
        return word


def _status(value: Any) -> str | None:
    try:
        return _STATUS_WORDS[value]
    except KeyError:
        word = _STATUS_WORDS[value] = status_word(value)
        return word


def _event(raw: dict[str, Any]) -> SpanEvent:
    """A span event; a malformed attribute list raises (the span becomes a problem)."""
    kvs = raw.get("attributes")
    attrs = attributes(kvs) if kvs else {}
    return SpanEvent(
        name=str(raw.get("name") or ""),
        time_ns=_nanos(raw.get("timeUnixNano")),
        attributes=attributes_strict(kvs) if attrs is _BAD else attrs,
    )


_BAD: dict[str, Any] = {}
"""returned by :func:`attributes` for a malformed list, so the caller re-reads it with problems"""


def attributes(kvs: list[dict[str, Any]]) -> dict[str, Any]:
    """An OTLP ``KeyValue`` list as a dict, in one tight loop (string values, the common case,
    cost two lookups). A malformed list returns the ``_BAD`` marker for a careful re-read."""
    out: dict[str, Any] = {}
    try:
        for kv in kvs:
            value = kv["value"]
            text = value.get("stringValue")
            out[kv["key"]] = text if text is not None else any_value(value)
    except (AttributeError, TypeError, KeyError, ValueError):
        return _BAD
    return out


def attributes_checked(kvs: Any, problems: Problems, path: str) -> dict[str, Any]:
    """The careful read of a ``KeyValue`` list: every bad entry a problem, the good ones kept."""
    out: dict[str, Any] = {}
    for index, kv in enumerate(kvs if isinstance(kvs, list) else []):
        try:
            key = kv["key"]
            out[str(key)] = any_value(kv.get("value"))
        except (AttributeError, TypeError, KeyError, ValueError) as exc:
            problems.add(f"{path}[{index}]", f"expected a KeyValue {{key, value}} ({exc})")
    if not isinstance(kvs, list):
        problems.add(path, "expected a list of KeyValue")
    return out


def any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a plain value (a bare JSON value is taken as it is; the
    snake_case names ``string_value`` … are read too)."""
    if not isinstance(value, dict):
        return value
    for name, inner in value.items():
        key = _camel(name)
        if key == "stringValue" or key == "boolValue" or key == "bytesValue":
            return inner
        if key == "intValue":
            return int(inner)
        if key == "doubleValue":
            return float(inner)
        if key == "arrayValue":
            return [any_value(v) for v in (inner or {}).get("values") or ()]
        if key == "kvlistValue":
            kvs = (inner or {}).get("values")
            return attributes_strict(kvs) if kvs else {}
    return None


def attributes_strict(kvs: Any) -> dict[str, Any]:
    """A nested ``KeyValue`` list (inside a ``kvlistValue``); raises on malformed entries."""
    return {kv["key"]: any_value(kv.get("value")) for kv in kvs}


def _resource(container: dict[str, Any], problems: Problems, path: str) -> dict[str, Any]:
    resource = container.get("resource")
    kvs = resource.get("attributes") if isinstance(resource, dict) else None
    if not kvs:
        return {}
    out = attributes(kvs)
    if out is _BAD:
        out = attributes_checked(kvs, problems, f"{path}.resource.attributes")
    return out


def _scope_name(container: dict[str, Any]) -> str | None:
    scope = container.get("scope") or container.get("instrumentationLibrary")
    name = scope.get("name") if isinstance(scope, dict) else None
    return str(name) if name else None


def _list(value: Any, problems: Problems, path: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.add(path, "expected a list")
        return []
    return value


def is_logs_data(doc: dict[str, Any]) -> bool:
    """True for a ``LogsData`` document."""
    return "resourceLogs" in doc or "resource_logs" in doc


def read_logs_data(doc: dict[str, Any], problems: Problems, path: str = "$") -> Iterator[LogEvent]:
    """The log records of one ``LogsData`` document that name a span, as span events.
    Records without a trace or span id cannot be attached: one problem per document counts them."""
    if "resource_logs" in doc:
        doc = camel_keys(doc)
    unattached = 0
    for r_index, resource_logs in enumerate(_list(doc.get("resourceLogs"), problems, path)):
        r_path = f"{path}.resourceLogs[{r_index}]"
        if not isinstance(resource_logs, dict):
            problems.add(r_path, "expected a ResourceLogs object")
            continue
        scope_key = "scopeLogs" if "scopeLogs" in resource_logs else "instrumentationLibraryLogs"
        scopes = _list(resource_logs.get(scope_key), problems, f"{r_path}.{scope_key}")
        for s_index, scope_logs in enumerate(scopes):
            s_path = f"{r_path}.{scope_key}[{s_index}]"
            records = scope_logs.get("logRecords") if isinstance(scope_logs, dict) else None
            for index, raw in enumerate(_list(records, problems, f"{s_path}.logRecords")):
                try:
                    trace_id = otlp_id(raw.get("traceId"))
                    span_id = otlp_id(raw.get("spanId"))
                    event = _log_event(raw)
                except (AttributeError, TypeError, ValueError, KeyError) as exc:
                    problems.add(f"{s_path}.logRecords[{index}]", f"expected a LogRecord ({exc})")
                    continue
                if trace_id is None or span_id is None:
                    unattached += 1
                    continue
                yield trace_id, span_id, event
    if unattached:
        problems.add(
            f"{path}.resourceLogs",
            f"{unattached} log record(s) carry no traceId/spanId: not attached to any span",
        )


def _log_event(raw: dict[str, Any]) -> SpanEvent:
    """A log record as a span event: its name is ``eventName``, else the ``event.name``
    attribute (the legacy GenAI events), else ``"log"``."""
    kvs = raw.get("attributes")
    attrs = attributes(kvs) if kvs else {}
    if attrs is _BAD:
        attrs = attributes_strict(kvs)
    name = raw.get("eventName") or attrs.get("event.name") or "log"
    when = time_ns(raw.get("timeUnixNano")) or time_ns(raw.get("observedTimeUnixNano"))
    body = raw.get("body")
    return SpanEvent(
        name=str(name),
        time_ns=when,
        attributes=attrs,
        body=any_value(body) if body is not None else None,
        from_log=True,
    )
