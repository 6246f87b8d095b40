"""Dialects: one ordered detector turns a canonical span into a step (TRACES.md §1.1, §3).

:func:`classify` asks each dialect in :data:`DIALECTS` order whether it claims the span; the first
that does reads it (first match wins). Each check is one dict lookup or a string compare, and a
dialect decodes JSON only for the attributes it reads, so classifying stays cheap on files of
millions of spans. Order and why:

1. ``agents_sdk`` / 2. ``langfuse`` — the native keys their own readers write
   (:mod:`native_keys`): such a span is from that source whatever its name says (a Langfuse
   observation named ``ai.generateText`` is not a Vercel span: its fields are Langfuse's);
3. ``openinference`` — ``openinference.span.kind``;
4. ``adk`` — scope ``gcp.vertex.agent`` or ADK's own keys (before GenAI: its spans also name a
   GenAI operation but keep their content in ADK's keys);
5. ``pydantic_ai`` — scope ``pydantic-ai`` or its v2 span names (same reason: ``final_result``);
6. ``otel_genai`` — ``gen_ai.operation.name`` (reported as ``otel_genai_events`` /
   ``openllmetry`` when the content came from legacy events / indexed attributes);
7. ``otel_genai_events`` — legacy per-message events on a span that names no operation;
8. ``openllmetry`` — ``traceloop.span.kind`` or indexed ``gen_ai.prompt.N.*``;
9. ``langsmith`` — ``langsmith.span.kind``;  10. ``vercel_ai`` — ``ai.operationId`` / ``ai.*``;
11. ``heuristic`` — ``gen_ai.tool.name`` / ``gen_ai.tool.call.id`` ⇒ tool, a model attribute ⇒
    model call (a key prefix alone never classifies: HTTP spans stay unclaimed);
12. ``unclaimed`` — an ``OtherStep``, never an error.

Every dialect flags its content state (``content_missing`` / ``redacted`` / ``ref_unresolved``);
``dropped_attributes`` is flagged for any span whose producer dropped attributes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agenteval_nb.traces.dialects import (
    adk,
    agents_sdk,
    langfuse,
    langsmith,
    legacy_events,
    openinference,
    openllmetry,
    otel_genai,
    pydantic_ai,
    vercel_ai,
)
from agenteval_nb.traces.dialects.classified import Classified
from agenteval_nb.traces.spans import Span

__all__ = ["CONTENT_SWITCH", "DIALECTS", "Classified", "classify"]

HEURISTIC = "heuristic"
UNCLAIMED = "unclaimed"

CONTENT_SWITCH: dict[str, str] = {
    "openinference": "on by default; unset OPENINFERENCE_HIDE_* (they write __REDACTED__)",
    "adk": "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true (the default; false writes placeholders)",
    "pydantic_ai": "InstrumentationSettings(include_content=True) (the default)",
    "otel_genai": "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only (or "
    "span_and_event); older contrib packages also need "
    "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental",
    "otel_genai_events": "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, and export "
    "the logs signal too",
    "openllmetry": "TRACELOOP_TRACE_CONTENT=true (the default)",
    "langsmith": "LANGSMITH_HIDE_INPUTS / LANGSMITH_HIDE_OUTPUTS unset",
    "vercel_ai": "experimental_telemetry: {recordInputs: true, recordOutputs: true} (the default)",
    "agents_sdk": "RunConfig(trace_include_sensitive_data=True) or "
    "OPENAI_AGENTS_TRACE_INCLUDE_SENSITIVE_DATA=true (the default)",
    "langfuse": "Langfuse stores what the producer sent: switch content on in the producer",
    HEURISTIC: "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only",
    UNCLAIMED: "",
}
"""Per dialect: how to turn content capture on (the load report names it per producer)."""


def _heuristic_claims(span: Span) -> bool:
    attributes = span.attributes
    return (
        "gen_ai.tool.name" in attributes
        or "gen_ai.tool.call.id" in attributes
        or otel_genai.is_model_span(attributes)
    )


def _heuristic_read(span: Span) -> Classified:
    attributes = span.attributes
    if "gen_ai.tool.name" in attributes or "gen_ai.tool.call.id" in attributes:
        return otel_genai.read_tool(span, HEURISTIC)
    return otel_genai.read_model(span, HEURISTIC)


def _events_read(span: Span) -> Classified:
    return otel_genai.read_model(span)


_DETECTOR: tuple[tuple[str, Callable[[Span], bool], Callable[[Span], Classified]], ...] = (
    (agents_sdk.NAME, agents_sdk.claims, agents_sdk.read),
    (langfuse.NAME, langfuse.claims, langfuse.read),
    (openinference.NAME, openinference.claims, openinference.read),
    (adk.NAME, adk.claims, adk.read),
    (pydantic_ai.NAME, pydantic_ai.claims, pydantic_ai.read),
    (otel_genai.NAME, otel_genai.claims, otel_genai.read),
    ("otel_genai_events", legacy_events.has_events, _events_read),
    (openllmetry.NAME, openllmetry.claims, openllmetry.read),
    (langsmith.NAME, langsmith.claims, langsmith.read),
    (vercel_ai.NAME, vercel_ai.claims, vercel_ai.read),
    (HEURISTIC, _heuristic_claims, _heuristic_read),
)

DIALECTS: tuple[str, ...] = (*(name for name, _, _ in _DETECTOR), UNCLAIMED)
"""The detector's order (first match wins); ``unclaimed`` last."""


def classify(span: Span, *, group_by: str | None = None) -> Classified:
    """The span's dialect, step, own conversation key and flags (see the module order).

    The conversation key is the dialect's own, else the generic ``gen_ai.conversation.id`` /
    ``session.id`` of any span. ``group_by``: an attribute the user chose as the conversation key;
    when given, the key is that attribute's value (as a string), or ``None`` when the span lacks it.
    """
    result: Classified | None = None
    for _, claims, read in _DETECTOR:
        if claims(span):
            result = read(span)
            break
    if result is None:
        result = Classified(UNCLAIMED, otel_genai.other_step(span))
    if group_by is not None:
        value: Any = span.attributes.get(group_by)
        result.conversation_id = None if value is None or value == "" else str(value)
    elif result.conversation_id is None:
        # the generic keys on any span (an unclaimed root, baggage copied onto every span)
        result.conversation_id = otel_genai.conversation(span.attributes)
    if span.dropped_attributes > 0:
        result.flags.add("dropped_attributes")
    return result
