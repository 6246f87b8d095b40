"""Langfuse observations (trace / session exports), read under :mod:`native_keys` ``langfuse.*``.

``GENERATION`` → ``ModelCall`` (``input`` in any chat shape, ``output``, ``model``,
``usageDetails``, ``toolCalls`` when the output names none); ``TOOL`` → ``ToolRun`` (name and
call id from the producer's OTel attributes that Langfuse keeps in ``metadata``, else the
observation name without ``execute_tool``; LangSmith's ``{"input": …}`` wrapper removed);
``AGENT``, the trace itself (``TRACE``) and any other root observation (a SPAN or CHAIN without
parent) → ``AgentRun`` (its input / output, else the trace's); every other type → ``OtherStep``.
``level`` ``ERROR`` with ``statusMessage`` is the error. Conversation key: the trace's
``sessionId``.
"""

from __future__ import annotations

from typing import Any

from agenteval_nb.steps.messages import decode_message, decode_output, decode_recent, loads
from agenteval_nb.traces.dialects import langsmith, otel_genai
from agenteval_nb.traces.dialects import native_keys as keys
from agenteval_nb.traces.dialects.classified import Classified, classified
from agenteval_nb.traces.dialects.step_readers import (
    agent_input_text,
    agent_output_text,
    agent_run,
    conversation_key,
    model_call,
    tool_run,
    usage_of,
)
from agenteval_nb.traces.spans import Span

NAME = "langfuse"
_LEAVES = frozenset({"GENERATION", "TOOL", "EVENT", "EMBEDDING", "RETRIEVER", "EVALUATOR"})
USAGE_KEYS: dict[str, tuple[str, ...]] = {
    "input_tokens": ("input", "promptTokens", "input_tokens"),
    "output_tokens": ("output", "completionTokens", "output_tokens"),
    "total_tokens": ("total", "totalTokens", "total_tokens"),
    "cached_input_tokens": ("input_cached_tokens", "cache_read_input_tokens"),
    "reasoning_tokens": ("output_reasoning_tokens", "reasoning_tokens"),
}


def claims(span: Span) -> bool:
    """Spans the Langfuse reader made (they carry an observation type)."""
    return keys.LANGFUSE_TYPE in span.attributes


def read(span: Span) -> Classified:
    """The observation's step by its type (see the module rule)."""
    attributes = span.attributes
    kind = str(attributes.get(keys.LANGFUSE_TYPE, "")).upper()
    conversation = conversation_key(
        attributes, (keys.LANGFUSE_SESSION_ID, keys.LANGFUSE_OBSERVATION_SESSION_ID)
    )
    error = None
    if str(attributes.get(keys.LANGFUSE_LEVEL, "")).upper() == "ERROR":
        error = str(attributes.get(keys.LANGFUSE_STATUS_MESSAGE) or "error")
    step: Any
    if kind == "GENERATION":
        step = _model(span)
    elif kind == "TOOL":
        original = _original_attributes(attributes)
        call_id = original.get("gen_ai.tool.call.id") or original.get("tool_call_id")
        args = attributes.get(keys.LANGFUSE_INPUT)
        if "langsmith.span.kind" in original:
            args = langsmith.tool_arguments(args)
        name = original.get("gen_ai.tool.name") or span.name.removeprefix("execute_tool ")
        step = tool_run(
            span,
            name=name,
            call_id=call_id,
            args=args,
            has_args=attributes.get(keys.LANGFUSE_INPUT) is not None,
            result=attributes.get(keys.LANGFUSE_OUTPUT),
            has_result=attributes.get(keys.LANGFUSE_OUTPUT) is not None,
        )
    elif kind in ("AGENT", "TRACE") or (span.parent_id is None and kind not in _LEAVES):
        given = attributes.get(keys.LANGFUSE_INPUT)
        produced = attributes.get(keys.LANGFUSE_OUTPUT)
        if given is None:
            given = attributes.get(keys.LANGFUSE_TRACE_INPUT)
        if produced is None:
            produced = attributes.get(keys.LANGFUSE_TRACE_OUTPUT)
        step = agent_run(span, span.name, agent_input_text(given), agent_output_text(produced))
    else:
        step = otel_genai.other_step(span)
    if error is not None:
        if hasattr(step, "tool"):
            step.tool.error = step.tool.error or error
        else:
            step.error = step.error or error
    return classified(NAME, step, conversation)


def _original_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    """The producer's OTel attributes Langfuse kept in ``metadata`` (under ``attributes``, or
    the metadata itself)."""
    metadata = loads(attributes.get(keys.LANGFUSE_METADATA))
    if not isinstance(metadata, dict):
        return {}
    inner = metadata.get("attributes")
    return inner if isinstance(inner, dict) else metadata


def _model(span: Span) -> Any:
    attributes = span.attributes
    source = attributes.get(keys.LANGFUSE_INPUT)
    produced = attributes.get(keys.LANGFUSE_OUTPUT)
    output = decode_output(produced) if produced is not None else None
    calls = loads(attributes.get(keys.LANGFUSE_TOOL_CALLS))
    if isinstance(calls, list) and calls and (output is None or not output.tool_calls):
        extra = decode_message({"role": "assistant", "tool_calls": calls})
        if extra is not None:
            if output is None:
                output = extra
            else:
                output.tool_calls = extra.tool_calls
    usage = loads(attributes.get(keys.LANGFUSE_USAGE))
    return model_call(
        span,
        decode_recent(source) if source is not None else None,
        output,
        model=attributes.get(keys.LANGFUSE_MODEL),
        usage=usage_of(usage, USAGE_KEYS) if isinstance(usage, dict) else None,
    )
