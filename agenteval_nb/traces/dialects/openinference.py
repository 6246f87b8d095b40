"""OpenInference (Arize Phoenix and its per-framework instrumentors).

Recognised by ``openinference.span.kind``. LLM → ``ModelCall`` from the flattened
``llm.input_messages.N.message.*`` / ``llm.output_messages.N.message.*`` (else the
``input.value`` / ``output.value`` JSON), usage ``llm.token_count.*``; TOOL → ``ToolRun``
(``tool.name``, ``tool.id`` / ``tool_call.id``; arguments and result in ``input.value`` /
``output.value`` — ``tool.parameters`` is the schema, not the arguments); AGENT, and a CHAIN that
is a trace root → ``AgentRun`` (``input.value`` / ``output.value`` as texts); every other kind
→ ``OtherStep``. Conversation key ``session.id``. ``OPENINFERENCE_HIDE_*`` writes
``__REDACTED__``.
"""

from __future__ import annotations

from typing import Any

from agenteval_nb.steps.messages import Message, decode_output, decode_recent, unflatten
from agenteval_nb.traces.dialects import otel_genai
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

NAME = "openinference"
KIND = "openinference.span.kind"
CONVERSATION_KEYS = ("session.id",)
USAGE_KEYS: dict[str, tuple[str, ...]] = {
    "input_tokens": ("llm.token_count.prompt",),
    "output_tokens": ("llm.token_count.completion",),
    "total_tokens": ("llm.token_count.total",),
    "cached_input_tokens": ("llm.token_count.prompt_details.cache_read",),
    "reasoning_tokens": ("llm.token_count.completion_details.reasoning",),
}


def claims(span: Span) -> bool:
    """Spans that name an OpenInference kind."""
    return KIND in span.attributes


def read(span: Span) -> Classified:
    """The span's step by its kind (see the module rule)."""
    attributes = span.attributes
    kind = str(attributes.get(KIND, "")).upper()
    conversation = conversation_key(attributes, CONVERSATION_KEYS)
    step: Any
    if kind == "LLM":
        step = _model(span)
    elif kind == "TOOL":
        step = tool_run(
            span,
            name=attributes.get("tool.name") or span.name,
            call_id=attributes.get("tool.id") or attributes.get("tool_call.id"),
            args=attributes.get("input.value"),
            has_args="input.value" in attributes,
            result=attributes.get("output.value"),
            has_result="output.value" in attributes,
        )
        if step.tool.id is None and isinstance(step.tool.result, dict):
            # LangChain's ToolMessage names its call in the output
            call_id = step.tool.result.get("tool_call_id")
            step.tool.id = call_id if isinstance(call_id, str) else None
    elif kind == "AGENT" or (kind == "CHAIN" and span.parent_id is None):
        step = agent_run(
            span,
            attributes.get("agent.name") or span.name,
            agent_input_text(attributes.get("input.value")),
            agent_output_text(attributes.get("output.value")),
        )
    else:
        step = otel_genai.other_step(span)
    return classified(NAME, step, conversation)


def _model(span: Span) -> Any:
    attributes = span.attributes
    flat_in = unflatten(attributes, "llm.input_messages.")
    flat_out = unflatten(attributes, "llm.output_messages.")
    inputs: list[Message] | None = None
    output: Message | None = None
    if isinstance(flat_in, list):
        inputs = decode_recent(flat_in)
    elif "input.value" in attributes:
        inputs = decode_recent(attributes["input.value"])
    if isinstance(flat_out, list) and flat_out:
        output = decode_output(flat_out[:1])
    elif "output.value" in attributes:
        output = decode_output(attributes["output.value"])
    return model_call(
        span,
        inputs,
        output,
        model=attributes.get("llm.model_name"),
        usage=usage_of(attributes, USAGE_KEYS),
    )
