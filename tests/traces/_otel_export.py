"""Serialize what an OpenTelemetry SDK recorded into the files users hand us.

* :func:`traces_data`: finished SDK spans → OTLP/JSON ``TracesData`` (``resourceSpans`` /
  ``scopeSpans`` / ``spans``), one resource and one scope entry per distinct value, in first-seen
  order.
* :func:`logs_data`: SDK log records → OTLP/JSON ``LogsData`` (``resourceLogs`` / ``scopeLogs`` /
  ``logRecords``).
* :func:`console_spans`: the Python SDK's own ``span.to_json()`` of every span (the console
  exporter's form, what users paste into bug reports).

The OTLP JSON rules (opentelemetry-proto, JSON protobuf encoding) are kept by hand: trace and span
ids are lower-case hex (protobuf's ``json_format`` would write the ``bytes`` fields as base64),
enums are integers, 64-bit integers (times, ``intValue``) are decimal strings, field names are
lowerCamelCase, empty fields are left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from opentelemetry.sdk._logs import ReadableLogRecord
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

SPAN_KIND = {
    SpanKind.INTERNAL: 1,
    SpanKind.SERVER: 2,
    SpanKind.CLIENT: 3,
    SpanKind.PRODUCER: 4,
    SpanKind.CONSUMER: 5,
}
"""Python SDK kind → OTLP ``Span.SpanKind`` (0 is UNSPECIFIED, never written by the SDK)."""

STATUS_CODE = {StatusCode.UNSET: 0, StatusCode.OK: 1, StatusCode.ERROR: 2}


def trace_id_hex(value: int) -> str:
    """A 128-bit trace id as 32 lower-case hex digits."""
    return format(value, "032x")


def span_id_hex(value: int) -> str:
    """A 64-bit span id as 16 lower-case hex digits."""
    return format(value, "016x")


def any_value(value: Any) -> dict[str, Any]:
    """A Python attribute or body value as an OTLP ``AnyValue`` (bool before int: a bool is an
    int in Python; ints as decimal strings; mappings as ``kvlistValue``)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, bytes):
        raise TypeError("bytes attribute values are not expected from the GenAI instrumentations")
    if isinstance(value, Mapping):
        return {"kvlistValue": {"values": key_values(value)}}
    if isinstance(value, Sequence):
        return {"arrayValue": {"values": [any_value(item) for item in value]}}
    if value is None:
        return {}
    raise TypeError(f"cannot encode {type(value).__name__} as an OTLP AnyValue")


def key_values(attributes: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Attributes as an OTLP ``KeyValue`` list, in the SDK's order."""
    return [{"key": key, "value": any_value(value)} for key, value in (attributes or {}).items()]


def _span(span: ReadableSpan) -> dict[str, Any]:
    context = span.context
    assert context is not None, "a recorded span always has a context"
    out: dict[str, Any] = {
        "traceId": trace_id_hex(context.trace_id),
        "spanId": span_id_hex(context.span_id),
    }
    if span.parent is not None:
        out["parentSpanId"] = span_id_hex(span.parent.span_id)
    out["name"] = span.name
    out["kind"] = SPAN_KIND[span.kind]
    out["startTimeUnixNano"] = str(span.start_time)
    if span.end_time is not None:
        out["endTimeUnixNano"] = str(span.end_time)
    out["attributes"] = key_values(span.attributes)
    if span.dropped_attributes:
        out["droppedAttributesCount"] = span.dropped_attributes
    events = [
        {
            "timeUnixNano": str(event.timestamp),
            "name": event.name,
            "attributes": key_values(event.attributes),
        }
        for event in span.events
    ]
    if events:
        out["events"] = events
    status: dict[str, Any] = {}
    if span.status.description:
        status["message"] = span.status.description
    if span.status.status_code is not StatusCode.UNSET:
        status["code"] = STATUS_CODE[span.status.status_code]
    out["status"] = status
    return out


def _scope(name: str, version: str | None) -> dict[str, Any]:
    scope: dict[str, Any] = {"name": name}
    if version:
        scope["version"] = version
    return scope


def _grouped(items: Iterable[Any], resource_of: Any, scope_of: Any) -> list[tuple[Any, Any, list]]:
    """(resource, scope, items) groups in first-seen order."""
    groups: dict[tuple[str, str], tuple[Any, Any, list]] = {}
    for item in items:
        resource, scope = resource_of(item), scope_of(item)
        key = (
            json.dumps(dict(resource.attributes), sort_keys=True, default=str),
            json.dumps([scope.name, scope.version] if scope else None),
        )
        groups.setdefault(key, (resource, scope, []))[2].append(item)
    return list(groups.values())


def traces_data(spans: Iterable[ReadableSpan]) -> dict[str, Any]:
    """OTLP/JSON ``TracesData`` of finished spans."""
    by_resource: dict[str, dict[str, Any]] = {}
    for resource, scope, members in _grouped(
        spans, lambda s: s.resource, lambda s: s.instrumentation_scope
    ):
        key = json.dumps(dict(resource.attributes), sort_keys=True, default=str)
        entry = by_resource.setdefault(
            key,
            {
                "resource": {"attributes": key_values(resource.attributes)},
                "scopeSpans": [],
                **({"schemaUrl": resource.schema_url} if resource.schema_url else {}),
            },
        )
        scope_entry: dict[str, Any] = {
            "scope": _scope(scope.name, scope.version) if scope else {},
            "spans": [_span(span) for span in members],
        }
        if scope is not None and scope.schema_url:
            scope_entry["schemaUrl"] = scope.schema_url
        entry["scopeSpans"].append(scope_entry)
    return {"resourceSpans": list(by_resource.values())}


def _log_record(readable: ReadableLogRecord) -> dict[str, Any]:
    record = readable.log_record
    out: dict[str, Any] = {}
    if record.timestamp is not None:
        out["timeUnixNano"] = str(record.timestamp)
    if record.observed_timestamp is not None:
        out["observedTimeUnixNano"] = str(record.observed_timestamp)
    if record.severity_number is not None:
        out["severityNumber"] = record.severity_number.value
    if record.severity_text:
        out["severityText"] = record.severity_text
    if record.body is not None:
        out["body"] = any_value(record.body)
    out["attributes"] = key_values(record.attributes)
    if readable.dropped_attributes:
        out["droppedAttributesCount"] = readable.dropped_attributes
    if record.trace_id:
        out["traceId"] = trace_id_hex(record.trace_id)
    if record.span_id:
        out["spanId"] = span_id_hex(record.span_id)
    if record.trace_flags is not None:
        out["flags"] = int(record.trace_flags)
    event_name = getattr(record, "event_name", None)
    if event_name:
        out["eventName"] = event_name
    return out


def logs_data(records: Iterable[ReadableLogRecord]) -> dict[str, Any]:
    """OTLP/JSON ``LogsData`` of emitted log records (legacy GenAI events live here)."""
    by_resource: dict[str, dict[str, Any]] = {}
    for resource, scope, members in _grouped(
        records, lambda r: r.resource, lambda r: r.instrumentation_scope
    ):
        key = json.dumps(dict(resource.attributes), sort_keys=True, default=str)
        entry = by_resource.setdefault(
            key, {"resource": {"attributes": key_values(resource.attributes)}, "scopeLogs": []}
        )
        entry["scopeLogs"].append(
            {
                "scope": _scope(scope.name, scope.version) if scope else {},
                "logRecords": [_log_record(record) for record in members],
            }
        )
    return {"resourceLogs": list(by_resource.values())}


def console_spans(spans: Iterable[ReadableSpan]) -> list[dict[str, Any]]:
    """Each span's ``to_json()`` (the console exporter's text) parsed back into a dict."""
    return [json.loads(span.to_json()) for span in spans]
