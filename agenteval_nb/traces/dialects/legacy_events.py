"""OTel GenAI legacy events (semconv v1.28–v1.36): one span event or log record per message.

``gen_ai.system.message`` / ``gen_ai.user.message`` / ``gen_ai.assistant.message`` /
``gen_ai.tool.message`` make the input; ``gen_ai.choice`` (index 0) the output. The message is
the log record's body, or the span event's attributes (``gen_ai.event.content`` as JSON, or the
message's own keys). The assistant body holds ``tool_calls`` with arguments as the model's raw
string; the tool body's ``id`` is the call id. With content off the bodies keep tool names and
ids only.
"""

from __future__ import annotations

from typing import Any

from agenteval_nb.steps.messages import Message, decode_message, loads
from agenteval_nb.traces.spans import Span, SpanEvent

EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
    "gen_ai.choice": "assistant",
}
CHOICE = "gen_ai.choice"


def event_name(event: SpanEvent) -> str:
    """A span event's name, or a log record's event name (its own, else the ``event.name`` /
    ``gen_ai.event.name`` attribute)."""
    if event.name and not (event.from_log and event.name == "log"):
        return event.name
    name = event.attributes.get("event.name") or event.attributes.get("gen_ai.event.name")
    return name if isinstance(name, str) else event.name


def has_events(span: Span) -> bool:
    """Whether the span carries any legacy GenAI message event."""
    if not span.events:
        return False
    return any(event_name(event) in EVENT_ROLES for event in span.events)


def messages(span: Span) -> tuple[list[Message], Message | None] | None:
    """The span's input messages and choice 0 from its legacy events; ``None`` when it has none."""
    inputs: list[Message] = []
    output: Message | None = None
    seen = False
    for event in span.events:
        name = event_name(event)
        role = EVENT_ROLES.get(name)
        if role is None:
            continue
        seen = True
        payload = _payload(event)
        if name == CHOICE:
            if output is None and payload.get("index", 0) in (0, "0"):
                output = _message(payload, role)
            continue
        inputs.append(_message(payload, role))
    return (inputs, output) if seen else None


def _payload(event: SpanEvent) -> dict[str, Any]:
    if event.body is not None:
        body = loads(event.body)
        return body if isinstance(body, dict) else {"content": body}
    attributes = event.attributes
    if "gen_ai.event.content" in attributes:
        body = loads(attributes["gen_ai.event.content"])
        return body if isinstance(body, dict) else {"content": body}
    return {
        key: loads(value)
        for key, value in attributes.items()
        if not key.startswith("gen_ai.") and key != "event.name"
    }


def _message(payload: dict[str, Any], role: str) -> Message:
    message = decode_message(payload, default_role=role) or Message(role=role)
    message.role = role
    if role == "tool" and message.tool_results and message.tool_results[0].call_id is None:
        call_id = payload.get("id")
        message.tool_results[0].call_id = call_id if isinstance(call_id, str) else None
    return message
