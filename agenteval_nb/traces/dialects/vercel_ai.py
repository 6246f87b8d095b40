"""Vercel AI SDK telemetry (``ai.*`` operations, ``ai.operationId``).

The outer call (``ai.generateText``, ``ai.streamText``, ``ai.generateObject`` …) → ``AgentRun``
(input from ``ai.prompt``, output ``ai.response.text``); the provider call (``….doGenerate`` /
``….doStream``) → ``ModelCall`` (``ai.prompt.messages``, ``ai.response.text``,
``ai.response.toolCalls``, ``ai.usage.*`` in either naming); ``ai.toolCall`` → ``ToolRun``
(``ai.toolCall.name`` / ``.id`` / ``.args`` or ``.input`` / ``.result`` or ``.output``).
Conversation key: telemetry metadata ``sessionId`` / ``conversationId`` / ``threadId``.
"""

from __future__ import annotations

from typing import Any

from agenteval_nb.steps.messages import decode_message, decode_recent, loads
from agenteval_nb.traces.dialects import otel_genai
from agenteval_nb.traces.dialects.classified import Classified, classified
from agenteval_nb.traces.dialects.step_readers import (
    agent_input_text,
    agent_run,
    conversation_key,
    first_present,
    model_call,
    tool_run,
    usage_of,
)
from agenteval_nb.traces.spans import Span

NAME = "vercel_ai"
OPERATION = "ai.operationId"
CONVERSATION_KEYS = (
    "ai.telemetry.metadata.sessionId",
    "ai.telemetry.metadata.conversationId",
    "ai.telemetry.metadata.threadId",
    "session.id",
)
USAGE_KEYS: dict[str, tuple[str, ...]] = {
    "input_tokens": ("ai.usage.inputTokens", "ai.usage.promptTokens"),
    "output_tokens": ("ai.usage.outputTokens", "ai.usage.completionTokens"),
    "total_tokens": ("ai.usage.totalTokens",),
    "cached_input_tokens": ("ai.usage.cachedInputTokens",),
    "reasoning_tokens": ("ai.usage.reasoningTokens",),
}


def claims(span: Span) -> bool:
    """Spans with an AI SDK operation id (or named ``ai.…``)."""
    return OPERATION in span.attributes or span.name.startswith("ai.")


def read(span: Span) -> Classified:
    """The span's step by its operation (see the module rule)."""
    attributes = span.attributes
    operation = str(attributes.get(OPERATION) or span.name)
    conversation = conversation_key(attributes, CONVERSATION_KEYS)
    step: Any
    if operation == "ai.toolCall":
        has_args, args = first_present(attributes, ("ai.toolCall.args", "ai.toolCall.input"))
        has_result, result = first_present(attributes, ("ai.toolCall.result", "ai.toolCall.output"))
        step = tool_run(
            span,
            name=attributes.get("ai.toolCall.name"),
            call_id=attributes.get("ai.toolCall.id"),
            args=args,
            has_args=has_args,
            result=result,
            has_result=has_result,
        )
    elif operation.endswith((".doGenerate", ".doStream")):
        step = _model(span)
    elif operation.startswith("ai."):
        step = agent_run(
            span,
            attributes.get("ai.telemetry.functionId") or operation,
            agent_input_text(attributes.get("ai.prompt")),
            attributes.get("ai.response.text"),
        )
    else:
        step = otel_genai.other_step(span)
    return classified(NAME, step, conversation)


def _model(span: Span) -> Any:
    attributes = span.attributes
    source = attributes.get("ai.prompt.messages")
    text = attributes.get("ai.response.text")
    calls = loads(attributes.get("ai.response.toolCalls"))
    output = None
    if text is not None or isinstance(calls, list):
        parts: list[Any] = [{"type": "text", "text": text}] if isinstance(text, str) else []
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                parts.append({**call, "type": "tool-call"})
        output = decode_message({"role": "assistant", "content": parts})
    model = attributes.get("ai.response.model") or attributes.get("ai.model.id")
    return model_call(
        span,
        decode_recent(source) if source is not None else None,
        output,
        model=model,
        usage=usage_of(attributes, USAGE_KEYS),
        finish_reason=attributes.get("ai.response.finishReason"),
    )
