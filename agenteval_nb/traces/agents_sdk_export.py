"""OpenAI Agents SDK native traces: the exported JSON of ``trace.export()`` (``object: "trace"``)
and ``span.export()`` (``object: "trace.span"``), as its trace processors receive them, and the
in-process ``Trace`` / ``Span`` objects themselves (duck typed: anything with ``.export()``).

A span: ``id`` (``span_<hex>``) → span id, ``trace_id`` (``trace_<hex>``), ``parent_id``,
``started_at``/``ended_at`` (ISO), ``error`` (``{message, data}``) → status ``error`` + message;
its name is ``span_data.name`` when there is one, else ``span_data.type``. The rest is kept as
attributes (JSON values as exported):

==================================== ========================================================
``agents_sdk.type``                  ``span_data.type``: agent, generation, response, function,
                                     handoff, guardrail, custom, mcp_tools, transcription …
``agents_sdk.<field>``               every other ``span_data`` field: ``name``, ``input``,
                                     ``output``, ``model``, ``model_config``, ``usage``,
                                     ``handoffs``, ``tools``, ``output_type``, ``from_agent``,
                                     ``to_agent``, ``triggered``, ``response_id``, ``data`` …
``agents_sdk.response``              in-process ``response`` spans only: the whole Response
                                     (``model_dump``), which the export drops
``agents_sdk.error``                 the span's ``error`` object
``agents_sdk.span.metadata``         the span's ``metadata`` (routing keys of the trace)
``agents_sdk.trace.id``              on the trace's top-level spans (no parent): the trace's
``agents_sdk.trace.workflow_name``   fields, when its ``object: "trace"`` record was read
``agents_sdk.trace.group_id``        before them (the SDK emits the trace first); ``group_id``
``agents_sdk.trace.metadata``        is the conversation key
==================================== ========================================================

Trace records are remembered per read (one small dict per trace); a JSON array is scanned for its
trace records before its spans, so order inside one document does not matter.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agenteval_nb.traces.envelope_fields import time_ns
from agenteval_nb.traces.read_problems import Problems
from agenteval_nb.traces.spans import Span, canonical_id

_KINDS = frozenset(("trace", "trace.span"))


def is_agents_sdk(doc: dict[str, Any]) -> bool:
    """True for an exported trace or span record."""
    return doc.get("object") in _KINDS


def is_agents_sdk_object(obj: Any) -> bool:
    """True for an in-process Agents SDK ``Trace`` / ``Span`` (it exports such a record)."""
    return callable(getattr(obj, "export", None)) and (
        hasattr(obj, "span_data") or hasattr(obj, "trace_id") or hasattr(obj, "group_id")
    )


def exported(obj: Any) -> dict[str, Any] | None:
    """The record of an in-process object: ``.export()``, plus the full Response of a response
    span (``agents_sdk.response`` / ``agents_sdk.input`` are read from it)."""
    record = obj.export()
    if not isinstance(record, dict):
        return None
    span_data = getattr(obj, "span_data", None)
    response = getattr(span_data, "response", None)
    if response is not None and isinstance(record.get("span_data"), dict):
        dump = getattr(response, "model_dump", None)
        data = dict(record["span_data"])
        data["response"] = dump(mode="json") if callable(dump) else response
        given = getattr(span_data, "input", None)
        if given is not None:
            data.setdefault("input", given)
        record = {**record, "span_data": data}
    return record


def remember_traces(items: list[Any], traces: dict[str, dict[str, Any]]) -> None:
    """Note the trace records (or in-process ``Trace`` objects) of an array before its spans."""
    for item in items:
        if not isinstance(item, dict) and is_agents_sdk_object(item):
            if hasattr(item, "span_data"):
                continue
            item = item.export()
        if isinstance(item, dict) and item.get("object") == "trace":
            trace_id = canonical_id(item.get("id"))
            if trace_id is not None:
                traces[trace_id] = _trace_fields(item)


def read_agents_sdk(
    doc: dict[str, Any], problems: Problems, traces: dict[str, dict[str, Any]], path: str = "$"
) -> Iterator[Span]:
    """The span of one exported record (a trace record is remembered, not yielded)."""
    if doc.get("object") == "trace":
        trace_id = canonical_id(doc.get("id"))
        if trace_id is None:
            problems.add(f"{path}.id", "expected the trace id")
        else:
            traces[trace_id] = _trace_fields(doc)
        return
    try:
        span = _span(doc, traces)
    except (AttributeError, TypeError, ValueError) as exc:
        problems.add(path, f"expected an Agents SDK span record ({exc})")
        return
    if span is None:
        problems.add(path, "expected the span's id and trace_id")
        return
    yield span


def _trace_fields(doc: dict[str, Any]) -> dict[str, Any]:
    return {f"agents_sdk.trace.{k}": v for k, v in doc.items() if k != "object"}


def _span(doc: dict[str, Any], traces: dict[str, dict[str, Any]]) -> Span | None:
    span_id = canonical_id(doc.get("id"))
    trace_id = canonical_id(doc.get("trace_id"))
    if span_id is None or trace_id is None:
        return None
    data = doc.get("span_data") or {}
    if not isinstance(data, dict):
        raise TypeError("span_data: expected an object")
    kind = data.get("type")
    attributes = {f"agents_sdk.{k}": v for k, v in data.items() if k != "type"}
    attributes["agents_sdk.type"] = kind
    error = doc.get("error")
    if error:
        attributes["agents_sdk.error"] = error
    if doc.get("metadata"):
        attributes["agents_sdk.span.metadata"] = doc["metadata"]
    parent_id = canonical_id(doc.get("parent_id"))
    if parent_id is None and trace_id in traces:
        attributes.update(traces[trace_id])
    name = data.get("name")
    message = error.get("message") if isinstance(error, dict) else (str(error) if error else None)
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent_id,
        name=str(name if isinstance(name, str) and name else kind or ""),
        start_ns=time_ns(doc.get("started_at")),
        end_ns=time_ns(doc.get("ended_at")),
        status="error" if error else None,
        status_message=message or None,
        attributes=attributes,
        source="agents_sdk",
    )
