"""Where a GenAI model span keeps its messages, tried in order (first found wins):

1. ``gen_ai.input.messages`` / ``gen_ai.output.messages`` attributes (v1.37+; JSON string or
   structured value) — dialect ``otel_genai``;
2. the ``gen_ai.client.inference.operation.details`` event (span event attributes, or a log
   record's body / attributes) — ``otel_genai``;
3. legacy per-message events (v1.28–v1.36) — ``otel_genai_events``;
4. Semantic Kernel's ``gen_ai.content.prompt`` / ``.completion`` events, then the deprecated
   single attributes ``gen_ai.prompt`` / ``gen_ai.completion`` (JSON) — ``otel_genai``;
5. indexed ``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*`` — ``openllmetry``.

None found: the content was not captured, unless a ``…_ref`` attribute says it lives elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agenteval_nb.steps.messages import (
    Message,
    decode_message,
    decode_output,
    decode_recent,
    loads,
    unflatten,
)
from agenteval_nb.traces.dialects import legacy_events
from agenteval_nb.traces.spans import Span

INPUT = "gen_ai.input.messages"
OUTPUT = "gen_ai.output.messages"
DETAILS_EVENT = "gen_ai.client.inference.operation.details"
REFS = ("gen_ai.input.messages_ref", "gen_ai.output.messages_ref",
        "gen_ai.system_instructions_ref")  # fmt: skip


@dataclass(slots=True)
class SpanMessages:
    """A model span's decoded messages and where they came from (``source``: the dialect
    name to report; ``None`` when no content was found)."""

    inputs: list[Message] | None
    output: Message | None
    source: str | None
    external: bool
    problem: str | None = None
    """``truncated`` (a JSON value cut short: the SDK's length limit) or ``garbled`` (a value
    that is not JSON at all) when a JSON attribute could not be read; it then counts as absent"""


def has_indexed(attributes: dict[str, Any]) -> bool:
    """Whether the span carries indexed prompt / completion attributes."""
    return (
        "gen_ai.prompt.0.role" in attributes
        or "gen_ai.prompt.0.content" in attributes
        or "gen_ai.completion.0.role" in attributes
        or "gen_ai.completion.0.content" in attributes
    )


def read_messages(span: Span) -> SpanMessages:
    """The span's messages from the first place that has them (see the module order)."""
    attributes = span.attributes
    if INPUT in attributes or OUTPUT in attributes:
        return _decoded(attributes.get(INPUT), attributes.get(OUTPUT), "otel_genai", strict=True)
    for event in span.events:
        if legacy_events.event_name(event) == DETAILS_EVENT:
            source = event.attributes
            if INPUT not in source and OUTPUT not in source:
                body = loads(event.body)
                source = body if isinstance(body, dict) else source
            return _decoded(source.get(INPUT), source.get(OUTPUT), "otel_genai", strict=True)
    legacy = legacy_events.messages(span) if span.events else None
    if legacy is not None:
        return SpanMessages(legacy[0], legacy[1], "otel_genai_events", False)
    content_events = _content_events(span) if span.events else None
    if content_events is not None:
        return _decoded(*content_events, "otel_genai")
    if "gen_ai.prompt" in attributes or "gen_ai.completion" in attributes:
        return _decoded(attributes.get("gen_ai.prompt"), attributes.get("gen_ai.completion"),
                        "otel_genai")  # fmt: skip
    if has_indexed(attributes):
        prompt = unflatten(attributes, "gen_ai.prompt.")
        completion = unflatten(attributes, "gen_ai.completion.")
        inputs = decode_recent(prompt) if isinstance(prompt, list) else []
        output = None
        if isinstance(completion, list) and completion:
            output = decode_message(completion[0], default_role="assistant")
        return SpanMessages(inputs, output, "openllmetry", False)
    external = any(key in attributes for key in REFS)
    return SpanMessages(None, None, None, external)


def _content_events(span: Span) -> tuple[Any, Any] | None:
    """Semantic Kernel's ``gen_ai.content.prompt`` / ``.completion`` events (the JSON in their
    ``gen_ai.prompt`` / ``gen_ai.completion`` attributes)."""
    prompt = completion = None
    for event in span.events:
        if event.name == "gen_ai.content.prompt":
            prompt = event.attributes.get("gen_ai.prompt")
        elif event.name == "gen_ai.content.completion":
            completion = event.attributes.get("gen_ai.completion")
    return None if prompt is None and completion is None else (prompt, completion)


def _decoded(inputs: Any, output: Any, source: str, *, strict: bool = False) -> SpanMessages:
    """Decoded messages; ``strict``: the values must be JSON (a string that does not parse
    counts as absent, and says why)."""
    problem = None
    if strict:
        inputs, in_problem = _json_value(inputs)
        output, out_problem = _json_value(output)
        problem = in_problem or out_problem
    return SpanMessages(
        decode_recent(inputs) if inputs is not None else None,
        decode_output(output) if output is not None else None,
        source,
        False,
        problem,
    )


def _json_value(value: Any) -> tuple[Any, str | None]:
    if not isinstance(value, str):
        return value, None
    decoded = loads(value)
    if decoded is not value:
        return decoded, None
    text = value.lstrip()
    return None, ("truncated" if text[:1] in ("[", "{") else "garbled")
