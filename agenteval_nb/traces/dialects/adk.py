"""Google ADK native spans (instrumentation scope ``gcp.vertex.agent``).

``invocation`` (the turn) → ``AgentRun``; ``call_llm`` → ``ModelCall`` from the JSON in
``gcp.vertex.agent.llm_request`` (Gemini ``contents``) / ``.llm_response`` (``content.parts``);
``execute_tool {name}`` → ``ToolRun`` from ``gcp.vertex.agent.tool_call_args`` /
``.tool_response`` (``gen_ai.tool.call.id`` for the id). Other spans of the scope
(``invoke_agent``, the genai SDK's ``generate_content``) are read as OTel GenAI but reported as
ADK; a ``generate_content`` span is the inner layer of its ``call_llm`` (which holds the content),
so its step says ``MISSING`` (the builder keeps the layer with content) without flagging the
trace. With content capture off ADK writes placeholders: ``{}`` (missing) and
``<not specified>`` (redacted). ADK spans carry ``gen_ai.operation.name`` too, so the detector
asks for ADK first (its scope, or its ``gcp.vertex.agent.*`` keys): their content lives in ADK's
own keys.
"""

from __future__ import annotations

from typing import Any

from agenteval_nb.steps.messages import decode_output, decode_recent
from agenteval_nb.steps.records import Content
from agenteval_nb.traces.dialects import otel_genai
from agenteval_nb.traces.dialects.classified import Classified, classified
from agenteval_nb.traces.dialects.step_readers import (
    agent_run,
    conversation_key,
    model_call,
    usage_of,
)
from agenteval_nb.traces.spans import Span

NAME = "adk"
SCOPE = "gcp.vertex.agent"
REQUEST = "gcp.vertex.agent.llm_request"
RESPONSE = "gcp.vertex.agent.llm_response"
TOOL_ARGS = "gcp.vertex.agent.tool_call_args"
TOOL_RESPONSE = "gcp.vertex.agent.tool_response"
CONVERSATION_KEYS = ("gcp.vertex.agent.session_id", "gen_ai.conversation.id")
PLACEHOLDERS = {"{}": Content.MISSING, "<not specified>": Content.REDACTED, "": Content.MISSING}


def claims(span: Span) -> bool:
    """Spans of ADK's instrumentation scope, or carrying ADK's own keys (some exports lose the
    scope: a Tempo batch names one scope for all its spans)."""
    attributes = span.attributes
    return (
        span.scope == SCOPE
        or "gcp.vertex.agent.event_id" in attributes
        or "gcp.vertex.agent.invocation_id" in attributes
        or REQUEST in attributes
        or TOOL_ARGS in attributes
    )


def read(span: Span) -> Classified:
    """The span's step by its name (see the module rule)."""
    attributes = span.attributes
    conversation = conversation_key(attributes, CONVERSATION_KEYS)
    if span.name == "invocation":
        step = agent_run(span, attributes.get("gen_ai.agent.name"))
        return classified(NAME, step, conversation)
    if span.name == "call_llm":
        return classified(NAME, _model(span), conversation)
    if span.name.startswith("execute_tool"):
        result = _tool(span)
    else:
        result = otel_genai.read(span, NAME)
        if attributes.get(otel_genai.OPERATION) in otel_genai.MODEL_OPERATIONS:
            result.flags.discard("content_missing")  # its call_llm parent has the content
    result.conversation_id = conversation or result.conversation_id
    return result


def _model(span: Span) -> Any:
    attributes = span.attributes
    request = attributes.get(REQUEST)
    response = attributes.get(RESPONSE)
    state = _placeholder(request) or _placeholder(response)
    inputs = decode_recent(request) if request is not None and state is None else None
    output = decode_output(response) if response is not None and state is None else None
    call = model_call(
        span,
        inputs,
        output,
        model=attributes.get("gen_ai.request.model"),
        usage=usage_of(attributes, otel_genai.USAGE_KEYS),
        finish_reason=attributes.get("gen_ai.response.finish_reasons"),
    )
    if state is not None:
        call.content = state
    return call


def _tool(span: Span) -> Classified:
    attributes = span.attributes
    args = attributes.get(TOOL_ARGS)
    response = attributes.get(TOOL_RESPONSE)
    off = _placeholder(args) is Content.REDACTED or _placeholder(response) is Content.REDACTED
    both_empty = _placeholder(args) is not None and _placeholder(response) is not None
    if off or both_empty:
        result = otel_genai.read_tool(span, NAME, (), ())
        result.step.content = Content.REDACTED if off else Content.MISSING  # type: ignore[union-attr]
        return classified(NAME, result.step, result.conversation_id)
    return otel_genai.read_tool(
        span,
        NAME,
        (TOOL_ARGS, *otel_genai.TOOL_ARGUMENT_KEYS),
        (TOOL_RESPONSE, *otel_genai.TOOL_RESULT_KEYS),
    )


def _placeholder(value: Any) -> Content | None:
    if isinstance(value, str):
        return PLACEHOLDERS.get(value.strip())
    return None
