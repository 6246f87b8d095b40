"""OTel GenAI semantic conventions (current, v1.37+; and the earlier forms of the same spans).

Recognised by ``gen_ai.operation.name``. Model operations (``chat``, ``generate_content``,
``text_completion``, ``responses``) → ``ModelCall`` with messages from wherever the span keeps
them (:mod:`genai_content`: the dialect reported is where the content was found);
``execute_tool`` → ``ToolRun`` (``gen_ai.tool.name`` / ``.call.id`` / ``.call.arguments`` /
``.call.result``; the non-standard ``input`` / ``output`` keys accepted); ``invoke_agent`` /
``invoke_workflow`` → ``AgentRun``; anything else (embeddings, create_agent, memory …) →
``OtherStep``. Usage comes from this span's ``gen_ai.usage.*`` only (old names accepted);
the model is the requested one (else the responding one).
"""

from __future__ import annotations

from typing import Any

from agenteval_nb.steps.messages import decode_output, decode_recent, last_user_text
from agenteval_nb.steps.records import Content, OtherStep
from agenteval_nb.traces.dialects import genai_content
from agenteval_nb.traces.dialects.classified import Classified, classified
from agenteval_nb.traces.dialects.step_readers import (
    agent_run,
    conversation_key,
    first_present,
    model_call,
    span_error,
    text_of,
    tool_run,
    usage_of,
)
from agenteval_nb.traces.spans import Span

NAME = "otel_genai"
OPERATION = "gen_ai.operation.name"
MODEL_OPERATIONS = frozenset(
    {"chat", "generate_content", "text_completion", "responses",
     "chat.completions", "text.completions"}  # Semantic Kernel's older names
)  # fmt: skip
AGENT_OPERATIONS = frozenset({"invoke_agent", "invoke_workflow"})
TOOL_OPERATION = "execute_tool"
MODEL_KEYS = ("gen_ai.request.model", "gen_ai.response.model")
"""request first: the name every layer of one call agrees on (ADK's ``call_llm`` knows only the
request model; the client layer under it answers with a dated variant), so duplicates match"""
CONVERSATION_KEYS = (
    "gen_ai.conversation.id",
    "session.id",
    "traceloop.association.properties.session_id",
    "traceloop.association.properties.thread_id",
    "traceloop.association.properties.conversation_id",
    "traceloop.association.properties.chat_id",
)
USAGE_KEYS: dict[str, tuple[str, ...]] = {
    "input_tokens": ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
    "output_tokens": ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"),
    "total_tokens": ("gen_ai.usage.total_tokens", "llm.usage.total_tokens"),
    "cached_input_tokens": ("gen_ai.usage.cache_read.input_tokens",
                            "gen_ai.usage.cache_read_input_tokens"),
    "reasoning_tokens": ("gen_ai.usage.reasoning.output_tokens",
                         "gen_ai.usage.reasoning_tokens"),
}  # fmt: skip
TOOL_ARGUMENT_KEYS = ("gen_ai.tool.call.arguments", "input")
TOOL_RESULT_KEYS = ("gen_ai.tool.call.result", "gen_ai.tool.call.response", "output")


def claims(span: Span) -> bool:
    """Spans that name a GenAI operation."""
    return OPERATION in span.attributes


def conversation(attributes: dict[str, Any]) -> str | None:
    """The GenAI conversation key (``gen_ai.conversation.id``, ``session.id``, traceloop
    association properties)."""
    return conversation_key(attributes, CONVERSATION_KEYS)


def is_model_span(attributes: dict[str, Any]) -> bool:
    """Whether the attributes name a model (request or response)."""
    return MODEL_KEYS[0] in attributes or MODEL_KEYS[1] in attributes


def read(span: Span, dialect: str = NAME) -> Classified:
    """The span's step by its operation (see the module rule)."""
    operation = span.attributes.get(OPERATION)
    if operation in MODEL_OPERATIONS:
        return read_model(span, dialect)
    if operation == TOOL_OPERATION:
        return read_tool(span, dialect)
    if operation in AGENT_OPERATIONS:
        return read_agent(span, dialect)
    return classified(dialect, other_step(span), conversation(span.attributes))


def read_model(span: Span, dialect: str = NAME) -> Classified:
    """A model call; the reported dialect is where its content was found (``dialect`` when
    none was, or when the caller is a vendor dialect)."""
    attributes = span.attributes
    found = genai_content.read_messages(span)
    model = attributes.get(MODEL_KEYS[0]) or attributes.get(MODEL_KEYS[1])
    step = model_call(
        span,
        found.inputs,
        found.output,
        model=model,
        usage=usage_of(attributes, USAGE_KEYS),
        finish_reason=attributes.get("gen_ai.response.finish_reasons"),
        external=found.external,
    )
    if found.problem == "truncated" and step.content is Content.MISSING:
        step.content = Content.TRUNCATED
    step.response_id = text_of(attributes.get("gen_ai.response.id"))
    name = found.source if dialect == NAME and found.source is not None else dialect
    result = classified(name, step, conversation(attributes))
    if found.problem is not None:
        result.flags.add(found.problem)
    return result


def read_tool(
    span: Span,
    dialect: str = NAME,
    argument_keys: tuple[str, ...] = TOOL_ARGUMENT_KEYS,
    result_keys: tuple[str, ...] = TOOL_RESULT_KEYS,
) -> Classified:
    """An executed tool: name (attribute, else the span name after ``execute_tool``), call id,
    arguments and result under the first present of the given keys."""
    attributes = span.attributes
    name = attributes.get("gen_ai.tool.name")
    if name is None and span.name.startswith(TOOL_OPERATION + " "):
        name = span.name[len(TOOL_OPERATION) + 1 :]
    has_args, args = first_present(attributes, argument_keys)
    has_result, result = first_present(attributes, result_keys)
    step = tool_run(
        span,
        name=name,
        call_id=attributes.get("gen_ai.tool.call.id"),
        args=args,
        has_args=has_args,
        result=result,
        has_result=has_result,
    )
    return classified(dialect, step, conversation(attributes))


def read_agent(
    span: Span, dialect: str = NAME, output_fallback: Any = None, history: Any = None
) -> Classified:
    """An agent run: name, the last user text of its input messages (or of ``history``), the
    text of its output (or ``output_fallback``, e.g. Pydantic AI's ``final_result``)."""
    attributes = span.attributes
    name = attributes.get("gen_ai.agent.name")
    if name is None and " " in span.name:
        name = span.name.split(" ", 1)[1]
    source = attributes.get(genai_content.INPUT, history)
    inputs = decode_recent(source) if source is not None else []
    input_text, _ = last_user_text(inputs)
    output = attributes.get(genai_content.OUTPUT)
    output_message = decode_output(output) if output is not None else None
    output_text = output_message.text if output_message is not None else output_fallback
    redacted = any(message.redacted for message in inputs) or bool(
        output_message and output_message.redacted
    )
    step = agent_run(span, name, input_text, output_text, redacted=redacted)
    return classified(dialect, step, conversation(attributes))


def other_step(span: Span) -> OtherStep:
    """The span kept as a plain step."""
    return OtherStep(
        span_id=span.span_id,
        name=text_of(span.name),
        start_ns=span.start_ns,
        end_ns=span.end_ns,
        error=span_error(span),
        parent_span_id=span.parent_id,
    )
