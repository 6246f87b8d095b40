"""The canonical span: what every envelope reader produces, whatever the file looked like.

Plain data. Attribute keys are the source's flat keys (``gen_ai.input.messages``,
``llm.input_messages.0.message.role``); values are plain JSON values (OTLP ``AnyValue`` decoded:
``intValue`` strings made ``int``, ``kvlistValue`` made ``dict``, ``arrayValue`` made ``list``).
JSON *strings* stay strings here: a dialect decodes the attributes it reads, tolerantly.

Sources that are not OpenTelemetry (Langfuse observations, Agents SDK spans) keep their own
fields in ``attributes`` under their own keys, and their dialect reads them; ``source`` says
which reader made the span.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class SpanEvent:
    """A span event, or a log record attached to its span (``from_log`` true)."""

    name: str
    time_ns: int | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    """a log record's body (legacy GenAI events put the message there)"""
    from_log: bool = False


@dataclass(slots=True)
class Span:
    """One span. ``end_ns`` ``None`` = still open (unfinished); ``parent_id`` ``None`` = a root.

    ``kind`` and ``status`` are lower-case words (``"client"``, ``"internal"``; ``"ok"``,
    ``"error"``, ``"unset"``) whatever the source spelled (OTLP integers, ``SpanKind.CLIENT``).
    ``dropped_attributes``: how many attributes the producer's limit dropped (OTLP
    ``droppedAttributesCount``). ``order``: position in the input, the tie-break after start time.
    """

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int | None = None
    end_ns: int | None = None
    kind: str | None = None
    status: str | None = None
    status_message: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[SpanEvent] = field(default_factory=list)
    resource: dict[str, Any] = field(default_factory=dict)
    scope: str | None = None
    dropped_attributes: int = 0
    source: str = "dict"
    """the envelope reader: otlp, jaeger, tempo, console, phoenix, langfuse, agents_sdk, dict"""
    file: str | None = None
    order: int = 0


def canonical_id(value: Any) -> str | None:
    """A span or trace id as one string: hex lower-cased (``0x`` dropped); ``trace_`` /
    ``span_`` prefixed ids, UUIDs and malformed ids kept as given (stripped); ``None`` / ``""``
    / all-zero hex → ``None``."""
    if value is None:
        return None
    text = str(value).strip()
    if not text:
        return None
    body = text[2:] if text[:2] in ("0x", "0X") else text
    if body and all(c in "0123456789abcdefABCDEF" for c in body):
        body = body.lower()
        return None if set(body) == {"0"} else body
    return text
