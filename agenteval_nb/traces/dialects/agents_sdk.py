"""OpenAI Agents SDK native traces (its trace processor's objects, not OTel).

The envelope reader keeps each span's data under :mod:`native_keys` ``agents_sdk.*``. Span
types: ``agent`` → ``AgentRun``; ``generation`` (Chat Completions messages in / out) and
``response`` (Responses input items / the Response; the exported form holds only the id and
usage) → ``ModelCall``; ``function`` → ``ToolRun`` (arguments string in, result out; no call
id); ``handoff``, ``guardrail``, ``custom``, ``mcp_tools`` … → ``OtherStep`` named after them.
Conversation key: the trace's ``group_id`` (on its top-level spans; grouping inherits it).
``trace_include_sensitive_data`` off leaves input and output out.
"""

from __future__ import annotations

from typing import Any

from agenteval_nb.steps.messages import decode_output, decode_recent, loads
from agenteval_nb.steps.records import OtherStep
from agenteval_nb.traces.dialects import native_keys as keys
from agenteval_nb.traces.dialects.classified import Classified, classified
from agenteval_nb.traces.dialects.step_readers import (
    agent_run,
    conversation_key,
    model_call,
    span_error,
    text_of,
    tool_run,
    usage_of,
)
from agenteval_nb.traces.spans import Span

NAME = "agents_sdk"
USAGE_KEYS: dict[str, tuple[str, ...]] = {
    "input_tokens": ("input_tokens", "prompt_tokens"),
    "output_tokens": ("output_tokens", "completion_tokens"),
    "total_tokens": ("total_tokens",),
}


def claims(span: Span) -> bool:
    """Spans the Agents SDK reader made (they carry a span type)."""
    return keys.AGENTS_SDK_TYPE in span.attributes


def read(span: Span) -> Classified:
    """The span's step by its type (see the module rule)."""
    attributes = span.attributes
    kind = attributes.get(keys.AGENTS_SDK_TYPE)
    conversation = conversation_key(attributes, (keys.AGENTS_SDK_GROUP_ID,))
    name = attributes.get(keys.AGENTS_SDK_NAME)
    error = _error(attributes.get(keys.AGENTS_SDK_ERROR))
    step: Any
    if kind == "agent":
        step = agent_run(span, name)
        step.error = step.error or error
    elif kind in ("generation", "response"):
        step = _model(span, kind)
        step.error = step.error or error
    elif kind == "function":
        step = tool_run(
            span,
            name=name,
            call_id=None,
            args=attributes.get(keys.AGENTS_SDK_INPUT),
            has_args=attributes.get(keys.AGENTS_SDK_INPUT) is not None,
            result=attributes.get(keys.AGENTS_SDK_OUTPUT),
            has_result=attributes.get(keys.AGENTS_SDK_OUTPUT) is not None,
            error=error,
        )
    else:
        label = name or kind
        if kind == "handoff":
            source = attributes.get(keys.AGENTS_SDK_FROM_AGENT)
            target = attributes.get(keys.AGENTS_SDK_TO_AGENT)
            label = f"handoff {source} -> {target}"
        step = OtherStep(span.span_id, text_of(label), span.start_ns, span.end_ns,
                         error or span_error(span), span.parent_id)  # fmt: skip
    return classified(NAME, step, conversation)


def _model(span: Span, kind: str) -> Any:
    attributes = span.attributes
    source = attributes.get(keys.AGENTS_SDK_INPUT)
    output = attributes.get(keys.AGENTS_SDK_OUTPUT)
    if output is None and kind == "response":
        output = attributes.get(keys.AGENTS_SDK_RESPONSE)
    response = loads(output)
    usage_source = loads(attributes.get(keys.AGENTS_SDK_USAGE))
    if not isinstance(usage_source, dict) and isinstance(response, dict):
        usage_source = response.get("usage")
    model = attributes.get(keys.AGENTS_SDK_MODEL)
    if model is None and isinstance(response, dict):
        model = response.get("model")
    return model_call(
        span,
        decode_recent(source) if source is not None else None,
        decode_output(response) if response is not None else None,
        model=model,
        usage=usage_of(usage_source, USAGE_KEYS) if isinstance(usage_source, dict) else None,
    )


def _error(value: Any) -> str | None:
    value = loads(value)
    if isinstance(value, dict):
        return text_of(value.get("message")) or text_of(value)
    return text_of(value)
